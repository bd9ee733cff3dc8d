/* dmd_model.c: the job as isl sets and maps.
 *
 * Everything is built once for all ranks: mesh coordinates are parameters.
 *   domain   [x, y] -> { S[m, n, k] : 0 <= m < 512 and ... }
 *   access   { S[m, n, k] -> A[m, k] }
 *   held     [x, y] -> { A[i, j] : 64x <= i < 64x + 64 and ... }
 *   sched    { S[m, n, k] -> L[mo, no, kor, mi, ni, ki] : ... }
 *   rsched   [x, y] -> { S[m, n, k] -> L[kor, mi, ni, ki] : mo = x ... }
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/val.h>
#include <isl/id.h>

#include "dmd_model.h"

/* A growable string for building isl input text. */
struct dmd_buf {
	char *s;
	size_t len, cap;
};

/* Append formatted text to "b". */
static void buf_add(struct dmd_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append formatted text to "b". */
static void buf_add(struct dmd_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + n + 1 > b->cap) {
		b->cap = 2 * (b->len + n + 1) + 64;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* Return a malloc'ed string built from "fmt". */
char *dmd_strdup_printf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = malloc(n + 1);
	if (!s)
		abort();
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Project out every set dimension of "set", keeping a parameter set:
 * [x] -> { S[i] : 0 <= i < 2x } becomes [x] -> { : x >= 1 }. */
__isl_give isl_set *dmd_params_of(__isl_take isl_set *set)
{
	return isl_set_params(set);
}

/* The largest value "pa" takes on "ctx" (a parameter set), or 0 if it is
 * nowhere defined there; -1 if unbounded. */
long dmd_pw_aff_max(__isl_keep isl_pw_aff *pa, __isl_keep isl_set *ctx)
{
	isl_pw_aff *p;
	isl_set *dom;
	isl_val *v;
	long r;

	p = isl_pw_aff_copy(pa);
	if (ctx)
		p = isl_pw_aff_intersect_params(p, isl_set_copy(ctx));
	dom = isl_pw_aff_domain(isl_pw_aff_copy(p));
	if (isl_set_is_empty(dom)) {
		isl_set_free(dom);
		isl_pw_aff_free(p);
		return 0;
	}
	isl_set_free(dom);
	v = isl_pw_aff_max_val(p);
	if (!v || !isl_val_is_int(v))
		r = -1;
	else
		r = isl_val_get_num_si(v);
	isl_val_free(v);
	return r;
}

/* The mesh parameters as isl writes them, "[x, y]" (a static buffer). */
const char *dmd_model_params(struct dmd_model *m)
{
	static char buf[512];
	int i;

	buf[0] = '\0';
	strcat(buf, "[");
	for (i = 0; i < m->job->n_axes; ++i) {
		if (i)
			strcat(buf, ", ");
		strcat(buf, m->job->axes[i]);
	}
	strcat(buf, "]");
	return buf;
}

/* Report an error at "loc" and return -1. */
static int model_error(struct dmd_model *m, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int model_error(struct dmd_model *m, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(m->job, loc, fmt, ap);
	va_end(ap);
	return -1;
}

/* Is "name" taken in the emitted C (a keyword, a name the emitted
 * program declares, or the name of a variable it derives from tensor
 * "T": T_l, T_p, T_o, T_x, T_lo, T_ext, T_recv...)? */
static int reserved_c_name(struct dmd_model *m, const char *name)
{
	static const char *words[] = { "auto", "break", "case", "char",
		"const", "continue", "default", "do", "double", "else", "enum",
		"extern", "float", "for", "goto", "if", "inline", "int", "long",
		"register", "restrict", "return", "short", "signed", "sizeof",
		"static", "struct", "switch", "typedef", "union", "unsigned",
		"void", "volatile", "while", "_Bool", "_Complex", "main",
		"argc", "argv", "rt", "job", "next", "mesh_shape", "axis_names",
		"class_ranks", "floord", "min", "max", "fmin", "fmax", "exp",
		"sqrt", "tanh", "erf", "log", "fabs", "NULL", NULL };
	static const char *suffix[] = { "_l", "_p", "_o", "_x", "_lo", "_ext",
		"_part", "_recv", "_recv2", "_recv_a", NULL };
	int i, j;

	for (i = 0; words[i]; ++i)
		if (!strcmp(name, words[i]))
			return 1;
	if (!strncmp(name, "dmd_", 4) || !strncmp(name, "peer_", 5) ||
	    !strncmp(name, "cblas", 5) || !strncmp(name, "Cblas", 5) ||
	    !strncmp(name, "MPI_", 4))
		return 1;
	for (i = 0; i < m->job->n_tensors; ++i) {
		const char *t = m->job->tensors[i].name;
		size_t n = strlen(t);
		if (strncmp(name, t, n))
			continue;
		for (j = 0; suffix[j]; ++j)
			if (!strcmp(name + n, suffix[j]))
				return 1;
		if (!strncmp(name + n, "_recv", 5))
			return 1;
	}
	return 0;
}

/* Report "name" (a loop or mesh axis) if the emitted C cannot use it. */
static int check_c_name(struct dmd_model *m, const char *name,
	struct dmd_loc loc, const char *what)
{
	if (!reserved_c_name(m, name))
		return 0;
	return model_error(m, loc, "%s name '%s' is reserved in the emitted "
		"C; choose another name", what, name);
}

/* The index of index variable "name", or -1. */
static int find_var(struct dmd_model *m, const char *name)
{
	int i;

	for (i = 0; i < m->n_vars; ++i)
		if (!strcmp(m->vars[i], name))
			return i;
	return -1;
}

/* Record the index variables of "e" in order of first appearance;
 * "lhs" marks those of the output access. */
static int collect_vars(struct dmd_model *m, struct dmd_expr *e, int lhs,
	int in_index)
{
	int i;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR && in_index) {
		i = find_var(m, e->name);
		if (i < 0) {
			if (m->n_vars >= DMD_MAX_LOOPS)
				return model_error(m, e->loc,
					"too many index variables");
			if (check_c_name(m, e->name, e->loc,
					"index variable") < 0)
				return -1;
			i = m->n_vars++;
			m->vars[i] = strdup(e->name);
			m->var_reduced[i] = 1;
		}
		if (lhs)
			m->var_reduced[i] = 0;
		return 0;
	}
	if (e->type == DMD_EXPR_ACCESS) {
		if (m->n_acc >= 64)
			return model_error(m, e->loc, "too many accesses");
		m->acc[m->n_acc].tensor = dmd_job_find_tensor(m->job, e->name);
		m->acc[m->n_acc].expr = e;
		m->n_acc++;
		for (i = 0; i < e->n_arg; ++i)
			if (collect_vars(m, e->args[i], lhs, 1) < 0)
				return -1;
		return 0;
	}
	for (i = 0; i < e->n_arg; ++i)
		if (collect_vars(m, e->args[i], lhs, in_index) < 0)
			return -1;
	return 0;
}

/* "S[m, n, k]" */
static void print_stmt_tuple(struct dmd_buf *b, struct dmd_model *m)
{
	int i;

	buf_add(b, "S[");
	for (i = 0; i < m->n_vars; ++i)
		buf_add(b, "%s%s", i ? ", " : "", m->vars[i]);
	buf_add(b, "]");
}

/* Build the iteration domain and the access relations:
 * every access in bounds, e.g. { S[i] : 0 <= i - 1 < 1003 and ... }. */
static int build_domain(struct dmd_model *m)
{
	struct dmd_buf b = { 0 };
	const char *params = dmd_model_params(m);
	int a, d, first = 1;

	buf_add(&b, "%s -> { ", params);
	print_stmt_tuple(&b, m);
	buf_add(&b, " : ");
	for (a = 0; a < m->n_acc; ++a) {
		struct dmd_expr *e = m->acc[a].expr;
		struct dmd_tensor *t = &m->job->tensors[m->acc[a].tensor];
		for (d = 0; d < e->n_arg; ++d) {
			char *s = dmd_expr_to_isl(e->args[d]);
			buf_add(&b, "%s0 <= %s < %ld", first ? "" : " and ",
				s, t->shape[d]);
			first = 0;
			free(s);
		}
	}
	if (first)
		buf_add(&b, "true");
	buf_add(&b, " }");
	m->domain = isl_set_read_from_str(m->ctx, b.s);
	if (!m->domain) {
		free(b.s);
		return -1;
	}
	m->domain = isl_set_intersect_params(m->domain, isl_set_copy(m->mesh));

	for (a = 0; a < m->n_acc; ++a) {
		struct dmd_expr *e = m->acc[a].expr;
		struct dmd_tensor *t = &m->job->tensors[m->acc[a].tensor];
		b.len = 0;
		buf_add(&b, "%s -> { ", params);
		print_stmt_tuple(&b, m);
		buf_add(&b, " -> %s[", t->name);
		for (d = 0; d < e->n_arg; ++d) {
			char *s = dmd_expr_to_isl(e->args[d]);
			buf_add(&b, "%s%s", d ? ", " : "", s);
			free(s);
		}
		buf_add(&b, "] }");
		m->acc[a].map = isl_map_read_from_str(m->ctx, b.s);
		if (!m->acc[a].map) {
			free(b.s);
			return -1;
		}
		m->acc[a].map = isl_map_intersect_domain(m->acc[a].map,
			isl_set_copy(m->domain));
	}
	free(b.s);
	return 0;
}

/* The extent of index variable "v": the extent of a dimension it indexes
 * alone (the output's first), else the largest value it takes plus one. */
static long var_extent(struct dmd_model *m, int v)
{
	int a, d;
	isl_set *s;
	isl_val *val;
	long r;

	for (a = 0; a < m->n_acc; ++a) {
		struct dmd_expr *e = m->acc[a].expr;
		for (d = 0; d < e->n_arg; ++d)
			if (e->args[d]->type == DMD_EXPR_VAR &&
			    !strcmp(e->args[d]->name, m->vars[v]))
				return m->job->tensors[m->acc[a].tensor].shape[d];
	}
	s = isl_set_copy(m->domain);
	val = isl_set_dim_max_val(s, v);
	r = val && isl_val_is_int(val) ? isl_val_get_num_si(val) + 1 : 1;
	isl_val_free(val);
	return r;
}

/* The constraints saying that element "T[e0, ...]" lies in the block held
 * by the rank whose coordinates are the mesh axis names (spec 1.2). */
static int held_constraints(struct dmd_model *m, int ti, struct dmd_buf *b)
{
	struct dmd_tensor *t = &m->job->tensors[ti];
	int d, i;

	buf_add(b, "true");
	for (d = 0; d < t->ndim; ++d) {
		long E = t->shape[d];
		char *es;
		isl_set *img;
		isl_val *v;
		long B;
		struct dmd_buf ib = { 0 };
		int ok;

		buf_add(b, " and 0 <= e%d < %ld", d, E);
		if (!t->dist[d])
			continue;
		es = dmd_expr_to_isl(t->dist[d]);
		/* values of the entry over the mesh: must be 0 .. B-1 */
		buf_add(&ib, "{ [b] : exists ");
		for (i = 0; i < m->job->n_axes; ++i)
			buf_add(&ib, "%s%s", i ? ", " : "", m->job->axes[i]);
		buf_add(&ib, " : b = %s", es);
		for (i = 0; i < m->job->n_axes; ++i)
			buf_add(&ib, " and 0 <= %s < %ld", m->job->axes[i],
				m->job->mesh_shape[i]);
		buf_add(&ib, " }");
		img = isl_set_read_from_str(m->ctx, ib.s);
		free(ib.s);
		if (!img) {
			free(es);
			return model_error(m, t->dist_loc[d],
				"dist entry of tensor '%s' is not "
				"quasi-affine", t->name);
		}
		v = isl_set_dim_max_val(isl_set_copy(img), 0);
		B = v && isl_val_is_int(v) ? isl_val_get_num_si(v) + 1 : -1;
		isl_val_free(v);
		ok = B >= 1;
		if (ok) {
			isl_set *want = isl_set_read_from_str(m->ctx,
				"{ [b] : b >= 0 }");
			want = isl_set_upper_bound_si(want, isl_dim_set, 0,
				B - 1);
			ok = isl_set_is_equal(img, want) == isl_bool_true;
			isl_set_free(want);
		}
		isl_set_free(img);
		if (!ok) {
			char *txt = dmd_expr_to_str(t->dist[d]);
			model_error(m, t->dist_loc[d],
				"dist entry '%s' of tensor '%s' must take "
				"exactly the values 0 .. B-1 over the mesh",
				txt, t->name);
			free(txt);
			free(es);
			return -1;
		}
		if (t->offsets[d]) {
			if (t->n_offsets[d] != B + 1) {
				free(es);
				return model_error(m, t->dist_loc[d],
					"offsets of dimension %d of tensor "
					"'%s' give %d blocks, dist gives %ld",
					d, t->name, t->n_offsets[d] - 1, B);
			}
			buf_add(b, " and (false");
			for (i = 0; i < B; ++i)
				buf_add(b, " or (%s = %d and %ld <= e%d < %ld)",
					es, i, t->offsets[d][i], d,
					t->offsets[d][i + 1]);
			buf_add(b, ")");
		} else if (t->split == DMD_SPLIT_BALANCED) {
			long q = E / B, r = E % B;
			buf_add(b, " and ((%s < %ld and %ld * (%s) <= e%d < "
				"%ld * (%s) + %ld) or (%s >= %ld and "
				"%ld * (%s) + %ld <= e%d < %ld * (%s) + %ld))",
				es, r, q + 1, es, d, q + 1, es, q + 1,
				es, r, q, es, r, d, q, es, q + r);
		} else {
			long s = (E + B - 1) / B;
			buf_add(b, " and %ld * (%s) <= e%d < %ld * (%s) + %ld",
				s, es, d, s, es, s);
		}
		free(es);
	}
	for (i = 0; i < t->n_place; ++i)
		buf_add(b, " and %s = %ld", m->job->axes[t->place_axis[i]],
			t->place_coord[i]);
	return 0;
}

/* Does "e" mention mesh axis "name"? */
static int expr_mentions(const struct dmd_expr *e, const char *name)
{
	int i;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR && !strcmp(e->name, name))
		return 1;
	for (i = 0; i < e->n_arg; ++i)
		if (expr_mentions(e->args[i], name))
			return 1;
	return 0;
}

/* The origin and extent of the block of dimension "d" of tensor "ti"
 * that a rank holds, as quasi-affine expressions of the coordinates
 * written directly from spec 1.2 (b = the dist entry), so that their
 * pieces are real differences between ranks:
 *   block:    [(min(s * b, E))], [(max(0, min(s, E - s * b)))]
 *   balanced: [(q * b + min(b, r))], [(q + 1)] : b < r; [(q)] : b >= r
 *   offsets:  one piece per block. */
static int block_pw_affs(struct dmd_model *m, int ti)
{
	struct dmd_tensor *t = &m->job->tensors[ti];
	struct dmd_dist *dist = &m->dist[ti];
	const char *params = dmd_model_params(m);
	struct dmd_buf lo = { 0 }, ext = { 0 }, pl = { 0 };
	int d, i;

	buf_add(&pl, "true");
	for (i = 0; i < t->n_place; ++i)
		buf_add(&pl, " and %s = %ld", m->job->axes[t->place_axis[i]],
			t->place_coord[i]);
	for (d = 0; d < t->ndim; ++d) {
		long E = t->shape[d];
		char *b = t->dist[d] ? dmd_expr_to_isl(t->dist[d]) : NULL;
		long B = 1;
		isl_pw_aff *plo, *pext, *zero;
		isl_set *outside;

		if (b) {
			isl_set *img;
			isl_val *v;
			char *is = dmd_strdup_printf("%s -> { [b] : b = %s }",
				params, b);
			img = isl_set_read_from_str(m->ctx, is);
			free(is);
			img = isl_set_intersect_params(img,
				isl_set_copy(m->mesh));
			v = isl_set_dim_max_val(img, 0);
			B = isl_val_get_num_si(v) + 1;
			isl_val_free(v);
		}
		lo.len = ext.len = 0;
		if (!b) {
			buf_add(&lo, "%s -> { [(0)] : %s }", params, pl.s);
			buf_add(&ext, "%s -> { [(%ld)] : %s }", params, E, pl.s);
		} else if (t->offsets[d]) {
			buf_add(&lo, "%s -> { ", params);
			buf_add(&ext, "%s -> { ", params);
			for (i = 0; i + 1 < t->n_offsets[d]; ++i) {
				buf_add(&lo, "%s[(%ld)] : %s = %d and %s",
					i ? "; " : "", t->offsets[d][i], b, i,
					pl.s);
				buf_add(&ext, "%s[(%ld)] : %s = %d and %s",
					i ? "; " : "", t->offsets[d][i + 1] -
					t->offsets[d][i], b, i, pl.s);
			}
			buf_add(&lo, " }");
			buf_add(&ext, " }");
		} else if (t->split == DMD_SPLIT_BALANCED) {
			long q = E / B, r = E % B;
			buf_add(&lo, "%s -> { [(%ld * (%s) + min(%s, %ld))] : "
				"%s }", params, q, b, b, r, pl.s);
			buf_add(&ext, "%s -> { [(%ld)] : %s < %ld and %s; "
				"[(%ld)] : %s >= %ld and %s }", params, q + 1,
				b, r, pl.s, q, b, r, pl.s);
		} else {
			long s = (E + B - 1) / B;
			buf_add(&lo, "%s -> { [(min(%ld * (%s), %ld))] : %s }",
				params, s, b, E, pl.s);
			buf_add(&ext, "%s -> { [(max(0, min(%ld, %ld - %ld * "
				"(%s))))] : %s }", params, s, E, s, b, pl.s);
		}
		free(b);
		plo = isl_pw_aff_read_from_str(m->ctx, lo.s);
		pext = isl_pw_aff_read_from_str(m->ctx, ext.s);
		if (!plo || !pext) {
			isl_pw_aff_free(plo);
			isl_pw_aff_free(pext);
			free(lo.s);
			free(ext.s);
			free(pl.s);
			return -1;
		}
		/* off the place slice: an empty block at the origin */
		outside = isl_set_subtract(isl_set_copy(m->mesh),
			isl_pw_aff_domain(isl_pw_aff_copy(plo)));
		zero = isl_pw_aff_zero_on_domain(isl_local_space_from_space(
			isl_set_get_space(outside)));
		zero = isl_pw_aff_intersect_domain(zero, outside);
		plo = isl_pw_aff_union_add(plo, isl_pw_aff_copy(zero));
		pext = isl_pw_aff_union_add(pext, zero);
		dist->lo[d] = isl_pw_aff_coalesce(isl_pw_aff_intersect_params(
			plo, isl_set_copy(m->mesh)));
		dist->ext[d] = isl_pw_aff_coalesce(isl_pw_aff_intersect_params(
			pext, isl_set_copy(m->mesh)));
	}
	free(lo.s);
	free(ext.s);
	free(pl.s);
	return 0;
}

/* Build the distribution of tensor "ti": held set, holds relation, block
 * origin and extents per dimension, the canonical writer. */
static int build_dist(struct dmd_model *m, int ti)
{
	struct dmd_tensor *t = &m->job->tensors[ti];
	struct dmd_dist *dist = &m->dist[ti];
	struct dmd_buf c = { 0 }, b = { 0 };
	const char *params = dmd_model_params(m);
	int d, i;
	isl_set *nonempty;

	if (held_constraints(m, ti, &c) < 0) {
		free(c.s);
		return -1;
	}
	buf_add(&b, "%s -> { %s[", params, t->name);
	for (d = 0; d < t->ndim; ++d)
		buf_add(&b, "%se%d", d ? ", " : "", d);
	buf_add(&b, "] : %s }", c.s);
	dist->held = isl_set_read_from_str(m->ctx, b.s);
	dist->held = isl_set_intersect_params(dist->held,
		isl_set_copy(m->mesh));
	b.len = 0;
	buf_add(&b, "{ R[");
	for (i = 0; i < m->job->n_axes; ++i)
		buf_add(&b, "%s%s", i ? ", " : "", m->job->axes[i]);
	buf_add(&b, "] -> %s[", t->name);
	for (d = 0; d < t->ndim; ++d)
		buf_add(&b, "%se%d", d ? ", " : "", d);
	buf_add(&b, "] : %s", c.s);
	for (i = 0; i < m->job->n_axes; ++i)
		buf_add(&b, " and 0 <= %s < %ld", m->job->axes[i],
			m->job->mesh_shape[i]);
	buf_add(&b, " }");
	dist->holds = isl_map_read_from_str(m->ctx, b.s);
	free(b.s);
	free(c.s);
	if (!dist->held || !dist->holds)
		return -1;
	dist->held = isl_set_coalesce(dist->held);
	dist->holds = isl_map_coalesce(dist->holds);

	nonempty = isl_set_params(isl_set_copy(dist->held));
	if (block_pw_affs(m, ti) < 0) {
		isl_set_free(nonempty);
		return -1;
	}

	/* the canonical replica: coordinate 0 along unmentioned axes */
	b = (struct dmd_buf){ 0 };
	buf_add(&b, "%s -> { : true", params);
	for (i = 0; i < m->job->n_axes; ++i) {
		int used = 0;
		for (d = 0; d < t->ndim; ++d)
			used |= expr_mentions(t->dist[d], m->job->axes[i]);
		for (d = 0; d < t->n_place; ++d)
			used |= t->place_axis[d] == i;
		if (!used)
			buf_add(&b, " and %s = 0", m->job->axes[i]);
	}
	buf_add(&b, " }");
	dist->writer = isl_set_read_from_str(m->ctx, b.s);
	free(b.s);
	dist->writer = isl_set_intersect(dist->writer, nonempty);
	return dist->writer ? 0 : -1;
}

/* The position of loop "name" in the current loop order, or -1. */
static int find_loop(struct dmd_model *m, const char *name)
{
	int i;

	for (i = 0; i < m->n_loops; ++i)
		if (!strcmp(m->loops[i].name, name))
			return i;
	return -1;
}

/* Find loop "name" for command "cmd", or report it unknown. */
static int need_loop(struct dmd_model *m, const char *name,
	struct dmd_loc loc, const char *cmd)
{
	int i = find_loop(m, name);

	if (i < 0)
		model_error(m, loc, "unknown loop '%s' in %s", name, cmd);
	return i;
}

/* Check that a new loop name is free. */
static int fresh_loop(struct dmd_model *m, const char *name,
	struct dmd_loc loc)
{
	int i;

	if (find_loop(m, name) >= 0 || find_var(m, name) >= 0)
		for (i = 0; i < m->n_loops; ++i)
			if (!strcmp(m->loops[i].name, name))
				return model_error(m, loc,
					"loop '%s' already exists", name);
	if (dmd_job_find_axis(m->job, name) >= 0)
		return model_error(m, loc,
			"loop '%s' has the name of a mesh axis", name);
	if (dmd_job_find_tensor(m->job, name) >= 0)
		return model_error(m, loc,
			"loop '%s' has the name of a tensor", name);
	return check_c_name(m, name, loc, "loop");
}

/* "L[a, b, c]" with the current loop names, loop "skip" replaced by
 * "repl" (NULL: keep). */
static void print_loops(struct dmd_buf *b, struct dmd_model *m, int skip,
	const char *repl)
{
	int i;

	buf_add(b, "L[");
	for (i = 0; i < m->n_loops; ++i) {
		if (i)
			buf_add(b, ", ");
		if (i == skip)
			buf_add(b, "%s", repl);
		else
			buf_add(b, "%s", m->loops[i].name);
	}
	buf_add(b, "]");
}

/* Compose the schedule with the loop transformation "str". */
static int apply_sched(struct dmd_model *m, const char *str)
{
	isl_map *t = isl_map_read_from_str(m->ctx, str);

	if (!t)
		return -1;
	m->sched = isl_map_apply_range(m->sched, t);
	return m->sched ? 0 : -1;
}

/* Replace loop "li" by the pair "io" (extent "eo") and "ii" (extent
 * "ei") related to it by "cons", a constraint over the old name and the
 * new ones, e.g. "k = 256 * ko + ki and 0 <= ki < 256". */
static int cut_loop(struct dmd_model *m, int li, const char *io,
	const char *ii, long eo, long ei, const char *cons)
{
	struct dmd_buf b = { 0 };
	char pair[256];
	char *old = m->loops[li].name;
	int r;

	if (m->n_loops + 1 > DMD_MAX_LOOPS)
		return -1;
	snprintf(pair, sizeof(pair), "%s, %s", io, ii);
	buf_add(&b, "{ ");
	print_loops(&b, m, -1, NULL);
	buf_add(&b, " -> ");
	print_loops(&b, m, li, pair);
	buf_add(&b, " : %s }", cons);
	memmove(&m->loops[li + 2], &m->loops[li + 1],
		(m->n_loops - li - 1) * sizeof(struct dmd_loop));
	m->loops[li + 1] = m->loops[li];
	m->n_loops++;
	m->loops[li].name = strdup(io);
	m->loops[li].extent = eo;
	m->loops[li + 1].name = strdup(ii);
	m->loops[li + 1].extent = ei;
	r = apply_sched(m, b.s);
	free(b.s);
	free(old);
	return r;
}

/* divide(i, io, ii, P[, balanced]): loop "li" becomes "io" (P parts) and
 * "ii" (the offset in the part), blocks as in spec 1.2:
 *   block:    i = s * io + ii, 0 <= ii < s, s = ceil(E / P)
 *   balanced: i in [io*q + min(io, r), (io+1)*q + min(io+1, r)) */
static int divide_loop(struct dmd_model *m, int li, const char *io,
	const char *ii, long P, int balanced)
{
	const char *i = m->loops[li].name;
	long E = m->loops[li].extent;
	char *cons;
	int r;

	if (!balanced) {
		long s = (E + P - 1) / P;
		cons = dmd_strdup_printf("%s = %ld * %s + %s and 0 <= %s < %ld",
			i, s, io, ii, ii, s);
		r = cut_loop(m, li, io, ii, P, s, cons);
	} else {
		long q = E / P, rr = E % P;
		cons = dmd_strdup_printf("0 <= %s < %ld and ((%s < %ld and "
			"%s = %ld * %s + %s and 0 <= %s < %ld) or "
			"(%s >= %ld and %s = %ld * %s + %ld + %s and "
			"0 <= %s < %ld))",
			io, P, io, rr, i, q + 1, io, ii, ii, q + 1,
			io, rr, i, q, io, rr, ii, ii, q);
		r = cut_loop(m, li, io, ii, P, rr ? q + 1 : q, cons);
	}
	free(cons);
	return r;
}

/* split(i, io, ii, S): i = S * io + ii with 0 <= ii < S. */
static int split_loop(struct dmd_model *m, int li, const char *io,
	const char *ii, long S)
{
	long E = m->loops[li].extent;
	char *cons;
	int r;

	cons = dmd_strdup_printf("%s = %ld * %s + %s and 0 <= %s < %ld",
		m->loops[li].name, S, io, ii, ii, S);
	r = cut_loop(m, li, io, ii, (E + S - 1) / S, S, cons);
	free(cons);
	return r;
}

/* Permute the loops: new position i holds old loop perm[i]. */
static int permute_loops(struct dmd_model *m, const int *perm)
{
	struct dmd_buf b = { 0 };
	struct dmd_loop tmp[DMD_MAX_LOOPS];
	int i, r;

	buf_add(&b, "{ ");
	print_loops(&b, m, -1, NULL);
	buf_add(&b, " -> L[");
	for (i = 0; i < m->n_loops; ++i)
		buf_add(&b, "%s%s", i ? ", " : "", m->loops[perm[i]].name);
	buf_add(&b, "] }");
	for (i = 0; i < m->n_loops; ++i)
		tmp[i] = m->loops[perm[i]];
	memcpy(m->loops, tmp, m->n_loops * sizeof(struct dmd_loop));
	r = apply_sched(m, b.s);
	free(b.s);
	return r;
}

/* reorder(v1, v2, ...): the listed loops take the listed order in the
 * positions they held. */
static int do_reorder(struct dmd_model *m, struct dmd_sched_cmd *c)
{
	int pos[DMD_MAX_LOOPS], idx[DMD_MAX_LOOPS], perm[DMD_MAX_LOOPS];
	int n = c->n_args, i, j;

	for (i = 0; i < n; ++i) {
		idx[i] = need_loop(m, c->args[i].id, c->args[i].loc, "reorder");
		if (idx[i] < 0)
			return -1;
		for (j = 0; j < i; ++j)
			if (idx[j] == idx[i])
				return model_error(m, c->args[i].loc,
					"loop '%s' is listed twice in reorder",
					c->args[i].id);
		pos[i] = idx[i];
	}
	/* sort positions */
	for (i = 0; i < n; ++i)
		for (j = i + 1; j < n; ++j)
			if (pos[j] < pos[i]) {
				int t = pos[i];
				pos[i] = pos[j];
				pos[j] = t;
			}
	for (i = 0; i < m->n_loops; ++i)
		perm[i] = i;
	for (i = 0; i < n; ++i)
		perm[pos[i]] = idx[i];
	return permute_loops(m, perm);
}

/* distribute([i..], [io..], [ii..], [axis..]): divide each i over its
 * axis, move the io loops outermost and run them across the mesh. */
static int do_distribute(struct dmd_model *m, struct dmd_sched_cmd *c)
{
	int n = c->args[0].n, i, j, k, perm[DMD_MAX_LOOPS];
	int outer[DMD_MAX_LOOPS];

	for (i = 0; i < n; ++i) {
		int li, axis;
		li = need_loop(m, c->args[0].ids[i], c->args[0].locs[i],
			"distribute");
		if (li < 0)
			return -1;
		if (m->loops[li].kind == DMD_LOOP_SPACE)
			return model_error(m, c->args[0].locs[i],
				"loop '%s' is already distributed",
				c->args[0].ids[i]);
		axis = dmd_job_find_axis(m->job, c->args[3].ids[i]);
		if (axis < 0)
			return model_error(m, c->args[3].locs[i],
				"unknown mesh axis '%s' in distribute",
				c->args[3].ids[i]);
		for (j = 0; j < m->n_loops; ++j)
			if (m->loops[j].kind == DMD_LOOP_SPACE &&
			    m->loops[j].axis == axis)
				return model_error(m, c->args[3].locs[i],
					"mesh axis '%s' is already used by "
					"loop '%s'", c->args[3].ids[i],
					m->loops[j].name);
		if (fresh_loop(m, c->args[1].ids[i], c->args[1].locs[i]) < 0 ||
		    fresh_loop(m, c->args[2].ids[i], c->args[2].locs[i]) < 0)
			return -1;
		if (divide_loop(m, li, c->args[1].ids[i], c->args[2].ids[i],
				m->job->mesh_shape[axis], 0) < 0)
			return -1;
		m->loops[li].kind = DMD_LOOP_SPACE;
		m->loops[li].axis = axis;
		outer[i] = li;
		/* loops after li moved by one */
		for (j = 0; j < i; ++j)
			if (outer[j] > li)
				outer[j]++;
	}
	/* move the io loops outermost, in the given order */
	k = 0;
	for (i = 0; i < n; ++i)
		perm[k++] = find_loop(m, c->args[1].ids[i]);
	for (j = 0; j < m->n_loops; ++j) {
		int listed = 0;
		for (i = 0; i < n; ++i)
			listed |= perm[i] == j;
		if (!listed)
			perm[k++] = j;
	}
	return permute_loops(m, perm);
}

/* rotate(t, [v..], r): loop t is replaced by r with
 * t = (r + sum(v)) mod extent(t), i.e. r = (t - sum(v)) mod extent(t). */
static int do_rotate(struct dmd_model *m, struct dmd_sched_cmd *c)
{
	struct dmd_buf b = { 0 };
	int li, i, r;
	char *old;

	li = need_loop(m, c->args[0].id, c->args[0].loc, "rotate");
	if (li < 0)
		return -1;
	for (i = 0; i < c->args[1].n; ++i)
		if (need_loop(m, c->args[1].ids[i], c->args[1].locs[i],
				"rotate") < 0)
			return -1;
	if (fresh_loop(m, c->args[2].id, c->args[2].loc) < 0)
		return -1;
	buf_add(&b, "{ ");
	print_loops(&b, m, -1, NULL);
	buf_add(&b, " -> ");
	print_loops(&b, m, li, c->args[2].id);
	buf_add(&b, " : %s = (%s", c->args[2].id, c->args[0].id);
	for (i = 0; i < c->args[1].n; ++i)
		buf_add(&b, " - %s", c->args[1].ids[i]);
	buf_add(&b, ") mod %ld }", m->loops[li].extent);
	old = m->loops[li].name;
	m->loops[li].name = strdup(c->args[2].id);
	r = apply_sched(m, b.s);
	free(b.s);
	free(old);
	return r;
}

/* Apply the schedule commands in order. */
static int apply_commands(struct dmd_model *m)
{
	int i, j;
	struct dmd_buf b = { 0 };

	for (i = 0; i < m->n_vars; ++i) {
		m->loops[i].name = strdup(m->vars[i]);
		m->loops[i].origin = i;
		m->loops[i].kind = DMD_LOOP_TIME;
		m->loops[i].extent = m->var_extent[i];
	}
	m->n_loops = m->n_vars;
	buf_add(&b, "%s -> { ", dmd_model_params(m));
	print_stmt_tuple(&b, m);
	buf_add(&b, " -> L[");
	for (i = 0; i < m->n_vars; ++i)
		buf_add(&b, "%s%s", i ? ", " : "", m->vars[i]);
	buf_add(&b, "] }");
	m->sched = isl_map_read_from_str(m->ctx, b.s);
	free(b.s);
	if (!m->sched)
		return -1;

	for (i = 0; i < m->st->n_cmds; ++i) {
		struct dmd_sched_cmd *c = &m->st->cmds[i];
		int li;
		switch (c->type) {
		case DMD_CMD_DIVIDE:
		case DMD_CMD_SPLIT:
			li = need_loop(m, c->args[0].id, c->args[0].loc,
				c->type == DMD_CMD_DIVIDE ? "divide" : "split");
			if (li < 0)
				return -1;
			if (m->loops[li].kind == DMD_LOOP_SPACE)
				return model_error(m, c->args[0].loc,
					"loop '%s' is distributed; it cannot "
					"be cut", c->args[0].id);
			if (fresh_loop(m, c->args[1].id, c->args[1].loc) < 0 ||
			    fresh_loop(m, c->args[2].id, c->args[2].loc) < 0)
				return -1;
			if (m->n_loops + 1 > DMD_MAX_LOOPS)
				return model_error(m, c->loc, "too many loops");
			if (c->type == DMD_CMD_DIVIDE) {
				if (divide_loop(m, li, c->args[1].id,
						c->args[2].id, c->args[3].ival,
						c->balanced) < 0)
					return -1;
			} else if (split_loop(m, li, c->args[1].id,
					c->args[2].id, c->args[3].ival) < 0)
				return -1;
			break;
		case DMD_CMD_REORDER:
			if (do_reorder(m, c) < 0)
				return -1;
			break;
		case DMD_CMD_DISTRIBUTE:
			if (do_distribute(m, c) < 0)
				return -1;
			break;
		case DMD_CMD_ROTATE:
			if (do_rotate(m, c) < 0)
				return -1;
			break;
		case DMD_CMD_COMMUNICATE:
			li = need_loop(m, c->args[1].id, c->args[1].loc,
				"communicate");
			if (li < 0)
				return -1;
			for (j = 0; j < c->args[0].n; ++j) {
				int ti = dmd_job_find_tensor(m->job,
					c->args[0].ids[j]);
				if (ti < 0)
					return model_error(m,
						c->args[0].locs[j],
						"tensor '%s' is not declared",
						c->args[0].ids[j]);
				if (m->n_comm >= 64)
					return model_error(m, c->loc,
						"too many communicate points");
				m->comm_tensor[m->n_comm] = ti;
				m->comm_loop[m->n_comm] = -1;
				m->comm_loc[m->n_comm] = c->args[1].loc;
				/* resolved by name after all commands */
				m->comm_loop[m->n_comm] = i;
				m->n_comm++;
			}
			break;
		case DMD_CMD_TENSORIZE:
			if (m->has_gemm)
				return model_error(m, c->loc,
					"only one tensorize is supported");
			if (c->args[0].n != 3)
				return model_error(m, c->loc,
					"tensorize(..., gemm) takes three "
					"loops");
			for (j = 0; j < 3; ++j)
				if (need_loop(m, c->args[0].ids[j],
						c->args[0].locs[j],
						"tensorize") < 0)
					return -1;
			m->has_gemm = i + 1;
			m->gemm_loc = c->loc;
			break;
		}
	}
	return 0;
}

/* The per-rank schedule: space loops equated with the mesh coordinates
 * and projected out; the rest are the time loops. */
static int build_rsched(struct dmd_model *m)
{
	struct dmd_buf b = { 0 };
	isl_map *s;
	int i, first = 1;

	buf_add(&b, "%s -> { ", dmd_model_params(m));
	print_loops(&b, m, -1, NULL);
	buf_add(&b, " : ");
	for (i = 0; i < m->n_loops; ++i)
		if (m->loops[i].kind == DMD_LOOP_SPACE) {
			buf_add(&b, "%s%s = %s", first ? "" : " and ",
				m->loops[i].name,
				m->job->axes[m->loops[i].axis]);
			first = 0;
		}
	if (first)
		buf_add(&b, "true");
	buf_add(&b, " }");
	s = isl_map_intersect_range(isl_map_copy(m->sched),
		isl_set_read_from_str(m->ctx, b.s));
	free(b.s);
	s = isl_map_intersect_domain(s, isl_set_copy(m->domain));
	for (i = m->n_loops - 1; i >= 0; --i)
		if (m->loops[i].kind == DMD_LOOP_SPACE)
			s = isl_map_project_out(s, isl_dim_out, i, 1);
	m->n_time = 0;
	for (i = 0; i < m->n_loops; ++i)
		if (m->loops[i].kind == DMD_LOOP_TIME) {
			s = isl_map_set_dim_name(s, isl_dim_out, m->n_time,
				m->loops[i].name);
			m->time_loop[m->n_time++] = i;
		}
	s = isl_map_set_tuple_name(s, isl_dim_out, "L");
	m->rsched = isl_map_coalesce(s);
	return m->rsched ? 0 : -1;
}

/* When several ranks would execute the same iteration (a mesh axis that
 * no distributed loop runs across, or no distribute at all), keep one
 * executor per iteration: a rank that holds the output element the
 * iteration writes if there is one, else the first rank.  The other ranks
 * neither compute it nor need its inputs ("owner computes").
 *   E  = { R[x, y] -> S[i] : rank (x, y) would execute i }
 *   C  = lexmin of { S[i] -> R[r] } preferring holders of acc0(i) */
static int restrict_executors(struct dmd_model *m)
{
	int np = m->job->n_axes, i;
	isl_map *e, *ei, *acc, *hs, *pref, *c;
	isl_set *dom;
	isl_bool single;

	e = isl_map_from_range(isl_map_domain(isl_map_copy(m->rsched)));
	e = isl_map_move_dims(e, isl_dim_in, 0, isl_dim_param, 0, np);
	e = isl_map_set_tuple_name(e, isl_dim_in, "R");
	ei = isl_map_reverse(e);
	single = isl_map_is_single_valued(ei);
	if (single != isl_bool_false) {
		isl_map_free(ei);
		return single < 0 ? -1 : 0;
	}
	acc = isl_map_gist_params(isl_map_copy(m->acc[0].map),
		isl_set_copy(m->mesh));
	acc = isl_map_drop_unused_params(acc);
	hs = isl_map_apply_range(acc, isl_map_reverse(isl_map_copy(
		m->dist[m->out_tensor].holds)));
	/* axis by axis, prefer executors whose coordinate along the axis is
	 * that of a holder: the choice then follows the blocks of the
	 * output and the iterations of a rank stay boxes */
	for (i = 0; i < np; ++i) {
		isl_map *same;
		char *str;
		struct dmd_buf b = { 0 };
		int j;

		buf_add(&b, "{ R[");
		for (j = 0; j < np; ++j)
			buf_add(&b, "%sh%d", j ? ", " : "", j);
		buf_add(&b, "] -> R[");
		for (j = 0; j < np; ++j)
			buf_add(&b, "%sr%d", j ? ", " : "", j);
		buf_add(&b, "] : r%d = h%d", i, i);
		for (j = 0; j < np; ++j)
			buf_add(&b, " and 0 <= r%d < %ld", j,
				m->job->mesh_shape[j]);
		buf_add(&b, " }");
		str = b.s;
		same = isl_map_apply_range(isl_map_copy(hs),
			isl_map_read_from_str(m->ctx, str));
		free(str);
		pref = isl_map_intersect(isl_map_copy(ei), same);
		dom = isl_map_domain(isl_map_copy(pref));
		ei = isl_map_union(pref, isl_map_subtract_domain(ei, dom));
	}
	isl_map_free(hs);
	c = isl_map_lexmin(ei);
	e = isl_map_reverse(c);
	for (i = 0; i < np; ++i)
		e = isl_map_set_dim_name(e, isl_dim_in, i, m->job->axes[i]);
	e = isl_map_move_dims(e, isl_dim_param, 0, isl_dim_in, 0, np);
	e = isl_map_align_params(e, isl_set_get_space(m->mesh));
	m->rsched = isl_map_intersect_domain(m->rsched, isl_map_range(e));
	m->rsched = isl_map_coalesce(m->rsched);
	return m->rsched ? 0 : -1;
}

/* The position of loop "loop" among the time loops, or -1 for a space
 * loop. */
int dmd_model_time_pos(struct dmd_model *m, int loop)
{
	int i;

	for (i = 0; i < m->n_time; ++i)
		if (m->time_loop[i] == loop)
			return i;
	return -1;
}

/* Resolve the loops named by communicate and tensorize, now that every
 * command has been applied. */
static int resolve_points(struct dmd_model *m)
{
	int i, j;

	for (i = 0; i < m->n_comm; ++i) {
		struct dmd_sched_cmd *c = &m->st->cmds[m->comm_loop[i]];
		int li = find_loop(m, c->args[1].id);
		if (li < 0)
			return model_error(m, c->args[1].loc,
				"loop '%s' of communicate was replaced by a "
				"later command", c->args[1].id);
		m->comm_loop[i] = li;
	}
	if (m->has_gemm) {
		struct dmd_sched_cmd *c = &m->st->cmds[m->has_gemm - 1];
		for (j = 0; j < 3; ++j) {
			int li = find_loop(m, c->args[0].ids[j]);
			if (li < 0)
				return model_error(m, c->args[0].locs[j],
					"loop '%s' of tensorize was replaced "
					"by a later command",
					c->args[0].ids[j]);
			if (m->loops[li].kind != DMD_LOOP_TIME ||
			    dmd_model_time_pos(m, li) < m->n_time - 3)
				return model_error(m, c->args[0].locs[j],
					"tensorize: loop '%s' is not one of "
					"the three innermost loops",
					c->args[0].ids[j]);
			m->tens_loop[j] = li;
			m->loops[li].tensorized = 1;
		}
		m->n_tens = 3;
		for (i = 0; i < m->n_comm; ++i)
			if (m->loops[m->comm_loop[i]].tensorized)
				return model_error(m, m->comm_loc[i],
					"communicate inside a tensorized "
					"loop");
	}
	return 0;
}

/* Is the statement a matrix product C[i, j] (+)= A[.., ..] * B[.., ..]
 * with plain index variables?  Fills the gemm roles. */
static int is_matmul(struct dmd_model *m, int *ta, int *tb, int *acc_a,
	int *acc_b)
{
	struct dmd_expr *l = m->st->lhs, *r = m->st->rhs;
	struct dmd_expr *a, *b;
	const char *i, *j, *k;
	int d;

	if (!l || l->n_arg != 2 || !r || r->type != DMD_EXPR_MUL)
		return 0;
	a = r->args[0];
	b = r->args[1];
	if (a->type != DMD_EXPR_ACCESS || b->type != DMD_EXPR_ACCESS ||
	    a->n_arg != 2 || b->n_arg != 2)
		return 0;
	for (d = 0; d < 2; ++d)
		if (l->args[d]->type != DMD_EXPR_VAR ||
		    a->args[d]->type != DMD_EXPR_VAR ||
		    b->args[d]->type != DMD_EXPR_VAR)
			return 0;
	i = l->args[0]->name;
	j = l->args[1]->name;
	if (!strcmp(i, j))
		return 0;
	/* A carries i, B carries j; swap if written B * A */
	if (strcmp(a->args[0]->name, i) && strcmp(a->args[1]->name, i)) {
		struct dmd_expr *t = a;
		a = b;
		b = t;
		*acc_a = 2;
		*acc_b = 1;
	} else {
		*acc_a = 1;
		*acc_b = 2;
	}
	if (!strcmp(a->args[0]->name, i)) {
		*ta = 0;
		k = a->args[1]->name;
	} else if (!strcmp(a->args[1]->name, i)) {
		*ta = 1;
		k = a->args[0]->name;
	} else
		return 0;
	if (!strcmp(k, i) || !strcmp(k, j))
		return 0;
	if (!strcmp(b->args[0]->name, k) && !strcmp(b->args[1]->name, j))
		*tb = 0;
	else if (!strcmp(b->args[1]->name, k) && !strcmp(b->args[0]->name, j))
		*tb = 1;
	else
		return 0;
	return 1;
}

/* Check the tensorize command and the flop count of a matrix product. */
static int check_gemm(struct dmd_model *m)
{
	int ta, tb, aa, ab, j, ok;
	int seen[3] = { 0, 0, 0 };

	ok = is_matmul(m, &ta, &tb, &aa, &ab);
	if (ok) {
		m->flops = 2.0;
		for (j = 0; j < m->n_vars; ++j)
			m->flops *= (double) m->var_extent[j];
	}
	if (!m->has_gemm)
		return 0;
	/* the three loops must cut the three variables, one each */
	if (ok)
		for (j = 0; j < 3; ++j) {
			int o = m->loops[m->tens_loop[j]].origin;
			if (o < 0 || o >= 3 || seen[o])
				ok = 0;
			else
				seen[o] = 1;
		}
	if (!ok)
		return model_error(m, m->gemm_loc,
			"tensorize(..., gemm): the statement is not a matrix "
			"product C[i, j] (+)= A[i, k] * B[k, j] over these "
			"loops");
	m->gemm = calloc(1, sizeof(*m->gemm));
	m->gemm->ta = ta;
	m->gemm->tb = tb;
	m->gemm->acc_c = 0;
	m->gemm->acc_a = aa;
	m->gemm->acc_b = ab;
	m->gemm->q = m->n_time - 3;
	return 0;
}

/* Build the model of "job".  Errors are reported on stderr against the
 * job file; NULL is returned. */
__isl_give struct dmd_model *dmd_model_build(isl_ctx *ctx,
	struct dmd_job *job)
{
	struct dmd_model *m;
	struct dmd_buf b = { 0 };
	int i;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->ctx = ctx;
	m->job = job;
	m->flops = -1;
	if (job->nranks > DMD_MAX_RANKS) {
		model_error(m, job->mesh_loc, "the mesh has %ld ranks; at most "
			"%d are supported", job->nranks, DMD_MAX_RANKS);
		goto error;
	}
	m->st = &job->steps[0];
	if (job->n_steps != 1 || m->st->type != DMD_STEP_COMPUTE) {
		model_error(m, job->program_loc, "a program of several steps "
			"cannot be compiled yet: only programs of one "
			"'compute' step are supported");
		goto error;
	}

	buf_add(&b, "%s -> { : ", dmd_model_params(m));
	for (i = 0; i < job->n_axes; ++i)
		buf_add(&b, "%s0 <= %s < %ld", i ? " and " : "", job->axes[i],
			job->mesh_shape[i]);
	buf_add(&b, " }");
	m->mesh = isl_set_read_from_str(ctx, b.s);
	free(b.s);
	if (!m->mesh)
		goto error;
	for (i = 0; i < job->n_axes; ++i)
		if (check_c_name(m, job->axes[i], job->mesh_loc,
				"mesh axis") < 0)
			goto error;

	if (collect_vars(m, m->st->lhs, 1, 0) < 0 ||
	    collect_vars(m, m->st->rhs, 0, 0) < 0)
		goto error;
	m->out_tensor = m->acc[0].tensor;
	if (build_domain(m) < 0)
		goto error;
	for (i = 0; i < m->n_vars; ++i)
		m->var_extent[i] = var_extent(m, i);

	m->dist = calloc(job->n_tensors, sizeof(*m->dist));
	for (i = 0; i < job->n_tensors; ++i)
		if (build_dist(m, i) < 0)
			goto error;
	for (i = 0; i < m->n_acc; ++i) {
		if (i == 0)
			m->dist[m->acc[i].tensor].is_output = 1;
		else
			m->dist[m->acc[i].tensor].is_input = 1;
	}
	if (m->st->accumulate)
		m->dist[m->out_tensor].is_input = 1;

	if (apply_commands(m) < 0 || build_rsched(m) < 0 ||
	    restrict_executors(m) < 0 ||
	    resolve_points(m) < 0 || check_gemm(m) < 0)
		goto error;
	return m;
error:
	dmd_model_free(m);
	return NULL;
}

/* Free the pieces of a point-to-point transfer. */
static void free_p2p(__isl_take struct dmd_p2p *p)
{
	int d;

	if (!p)
		return;
	isl_set_free(p->recv_dom);
	isl_set_free(p->send_dom);
	isl_set_free(p->self_dom);
	for (d = 0; d < DMD_MAX_DIMS; ++d) {
		isl_pw_aff_free(p->recv_lo[d]);
		isl_pw_aff_free(p->recv_ext[d]);
		isl_pw_aff_free(p->send_lo[d]);
		isl_pw_aff_free(p->send_ext[d]);
		isl_pw_aff_free(p->self_lo[d]);
		isl_pw_aff_free(p->self_ext[d]);
	}
	free(p);
}

/* Free what transfer "x" owns. */
void dmd_xfer_clear(struct dmd_xfer *x)
{
	int d;

	free(x->name);
	isl_set_free(x->dom);
	isl_map_free(x->need);
	for (d = 0; d < DMD_MAX_DIMS; ++d) {
		isl_pw_aff_free(x->need_lo[d]);
		isl_pw_aff_free(x->need_ext[d]);
	}
	isl_pw_aff_free(x->root);
	free_p2p(x->p2p);
	memset(x, 0, sizeof(*x));
}

/* Free the model and everything it owns; returns NULL. */
struct dmd_model *dmd_model_free(__isl_take struct dmd_model *m)
{
	int i, d;

	if (!m)
		return NULL;
	isl_set_free(m->mesh);
	isl_space_free(m->rank_space);
	for (i = 0; i < m->n_vars; ++i)
		free(m->vars[i]);
	isl_set_free(m->domain);
	for (i = 0; i < m->n_acc; ++i)
		isl_map_free(m->acc[i].map);
	if (m->dist)
		for (i = 0; i < m->job->n_tensors; ++i) {
			struct dmd_dist *dd = &m->dist[i];
			for (d = 0; d < DMD_MAX_DIMS; ++d) {
				isl_pw_aff_free(dd->lo[d]);
				isl_pw_aff_free(dd->ext[d]);
			}
			isl_set_free(dd->held);
			isl_map_free(dd->holds);
			isl_set_free(dd->writer);
		}
	free(m->dist);
	for (i = 0; i < m->n_loops; ++i)
		free(m->loops[i].name);
	isl_map_free(m->sched);
	isl_map_free(m->rsched);
	for (i = 0; i < m->n_xfer; ++i)
		dmd_xfer_clear(&m->xfer[i]);
	free(m->xfer);
	if (m->gemm) {
		for (d = 0; d < 3; ++d) {
			isl_pw_aff_free(m->gemm->lo[d]);
			isl_pw_aff_free(m->gemm->ext[d]);
		}
		isl_set_free(m->gemm->dom);
		free(m->gemm);
	}
	isl_set_free(m->comp_ranks);
	for (i = 0; i < m->n_fact; ++i) {
		free(m->fact[i].what);
		isl_set_free(m->fact[i].set);
		isl_pw_aff_free(m->fact[i].pa);
	}
	free(m->fact);
	for (i = 0; i < m->n_class; ++i) {
		isl_set_free(m->cls[i].set);
		free(m->cls[i].code);
		free(m->cls[i].why);
		free(m->cls[i].ranges);
	}
	free(m->cls);
	free(m);
	return NULL;
}
