/* dmd_poly.c: the polyhedral model of one compute step.
 *
 * For C[m, n] = A[m, k] * B[k, n] (PUMMA on a 2x2 mesh, extents 64):
 *   domain  [c_x, c_y] -> { S[m, n, k] : 0 <= m, n, k < 64 }
 *   access  { S[m, n, k] -> T1[m, k] }
 *   sched   { S[m, n, k] -> L[mo, no, kor, mi, ni, ki] : ... }
 *   rsched  [c_x, c_y] -> { S[m, n, k] -> L[kor, mi, ni, ki] : mo = c_x
 *           and no = c_y ... }
 * Every object is built through the isl API: loop transformations are
 * relations between two loop vectors, [L[old] -> L[new]], made of
 * equalities of their dimensions (dmd_poly_relation).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/local_space.h>

#include "dmd_model.h"
#include "dmd_isl.h"

/* Report an error at "loc" of the job and return -1. */
static int dmd_poly_error(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int dmd_poly_error(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(job, loc, fmt, ap);
	va_end(ap);
	return -1;
}

/* What the build of one statement's model shares. */
struct dmd_poly_build {
	const struct dmd_mesh *mesh;
	const struct dmd_job *job;
	struct dmd_layout **lay;
	struct dmd_poly *p;
};

/* The index of index variable "name" in "p", or -1. */
static int dmd_poly_find_var(const struct dmd_poly *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_vars; ++i)
		if (!strcmp(p->vars[i], name))
			return i;
	return -1;
}

/* Record the index variables of "e" in order of first appearance and its
 * accesses in order; "lhs": "e" is the left side (its variables are not
 * summed over); "in_index": "e" is part of an index. */
static int dmd_poly_collect(struct dmd_poly_build *b, struct dmd_expr *e,
	int lhs, int in_index)
{
	struct dmd_poly *p = b->p;
	int i;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR && in_index) {
		i = dmd_poly_find_var(p, e->name);
		if (i < 0) {
			char **v = realloc(p->vars,
				(p->n_vars + 1) * sizeof(*v));
			int *r = realloc(p->var_reduced,
				(p->n_vars + 1) * sizeof(*r));

			if (v)
				p->vars = v;
			if (r)
				p->var_reduced = r;
			if (!v || !r)
				return -1;
			i = p->n_vars;
			p->vars[i] = strdup(e->name);
			if (!p->vars[i])
				return -1;
			p->var_reduced[i] = 1;
			p->n_vars++;
		}
		if (lhs)
			p->var_reduced[i] = 0;
		return 0;
	}
	if (e->type == DMD_EXPR_ACCESS) {
		struct dmd_access *a = realloc(p->acc,
			(p->n_acc + 1) * sizeof(*a));

		if (!a)
			return -1;
		p->acc = a;
		a = &p->acc[p->n_acc++];
		memset(a, 0, sizeof(*a));
		a->tensor = dmd_job_find_tensor(b->job, e->name);
		a->expr = e;
		for (i = 0; i < e->n_arg; ++i)
			if (dmd_poly_collect(b, e->args[i], lhs, 1) < 0)
				return -1;
		return 0;
	}
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_poly_collect(b, e->args[i], lhs, in_index) < 0)
			return -1;
	return 0;
}

/* The value of index variable "name" in an index: its dimension of the
 * statement's space. */
static __isl_give isl_pw_aff *dmd_poly_var(__isl_keep isl_space *space,
	const char *name, void *user)
{
	struct dmd_poly *p = user;
	int i = dmd_poly_find_var(p, name);

	if (i < 0)
		return NULL;
	return dmd_isl_dim(space, i);
}

/* The index function of access "a": { S[i] -> T[idx(i)] }. */
static __isl_give isl_multi_aff *dmd_poly_index(struct dmd_poly_build *b,
	struct dmd_access *a)
{
	struct dmd_layout *lay = b->lay[a->tensor];
	isl_space *space;
	isl_aff_list *list;
	int d;

	space = isl_space_map_from_domain_and_range(
		isl_space_copy(b->p->space), isl_space_copy(lay->space));
	list = isl_aff_list_alloc(b->mesh->ctx, lay->ndim);
	for (d = 0; d < a->expr->n_arg; ++d) {
		isl_pw_aff *pa = dmd_isl_expr(b->p->space, a->expr->args[d],
			&dmd_poly_var, b->p);

		list = isl_aff_list_add(list, isl_pw_aff_as_aff(pa));
	}
	return isl_multi_aff_from_aff_list(space, list);
}

/* The iterations where dimension "d" of access "a" is in bounds, e.g.
 * for A[i - 1] { S[i] : 0 <= i - 1 < 1003 }. */
static __isl_give isl_set *dmd_poly_in_bounds(struct dmd_poly_build *b,
	int a, int d)
{
	struct dmd_poly *p = b->p;
	const struct dmd_tensor *t = &b->job->tensors[p->acc[a].tensor];
	isl_pw_aff *e;
	isl_set *nonneg;

	e = isl_pw_aff_from_aff(isl_multi_aff_get_aff(p->acc[a].idx, d));
	nonneg = isl_pw_aff_nonneg_set(isl_pw_aff_copy(e));
	return isl_set_intersect(nonneg,
		isl_pw_aff_lt_set(e, dmd_isl_cst(p->space, t->shape[d])));
}

/* The iterations where every access but "skip" (-1: none) is in bounds,
 * on the mesh. */
static __isl_give isl_set *dmd_poly_bounds(struct dmd_poly_build *b,
	int skip)
{
	struct dmd_poly *p = b->p;
	isl_set *dom = isl_set_universe(isl_space_copy(p->space));
	int a, d;

	for (a = 0; a < p->n_acc; ++a) {
		if (a == skip)
			continue;
		for (d = 0; d < b->job->tensors[p->acc[a].tensor].ndim; ++d)
			dom = isl_set_intersect(dom,
				dmd_poly_in_bounds(b, a, d));
	}
	return isl_set_intersect_params(dom, isl_set_copy(b->mesh->set));
}

/* The iteration domain: every access in bounds, e.g. for A[i - 1]
 * { S[i] : 0 <= i - 1 < 1003 and ... }, and the access relations. */
static int dmd_poly_domain(struct dmd_poly_build *b)
{
	struct dmd_poly *p = b->p;
	int a;

	for (a = 0; a < p->n_acc; ++a) {
		p->acc[a].idx = dmd_poly_index(b, &p->acc[a]);
		if (!p->acc[a].idx)
			return -1;
	}
	p->domain = dmd_poly_bounds(b, -1);
	p->domain = isl_set_coalesce(p->domain);
	for (a = 0; a < p->n_acc; ++a)
		p->acc[a].map = isl_map_intersect_domain(isl_map_from_multi_aff(
			isl_multi_aff_copy(p->acc[a].idx)),
			isl_set_copy(p->domain));
	return p->domain ? 0 : -1;
}

/* The first use of variable "name" in "e" (depth first), or NULL. */
static const struct dmd_expr *dmd_poly_var_use(const struct dmd_expr *e,
	const char *name)
{
	const struct dmd_expr *r;
	int i;

	if (e->type == DMD_EXPR_VAR && !strcmp(e->name, name))
		return e;
	for (i = 0; i < e->n_arg; ++i)
		if ((r = dmd_poly_var_use(e->args[i], name)))
			return r;
	return NULL;
}

/* Check that every index variable takes finitely many values: the
 * shapes bound it through the indices it appears in.  In B[i] = A[i - z
 * - w], z and w are not bounded (z - w = 5 for every z), nor is k in
 * A[i + 0 * k].  Reported at the variable's first use. */
static int dmd_poly_check_bounded(struct dmd_poly_build *b)
{
	struct dmd_poly *p = b->p;
	int v, a;

	for (v = 0; v < p->n_vars; ++v) {
		isl_val *lo, *hi;
		int ok;

		lo = isl_set_dim_min_val(isl_set_copy(p->domain), v);
		hi = isl_set_dim_max_val(isl_set_copy(p->domain), v);
		ok = lo && hi && (isl_val_is_int(lo) || isl_val_is_nan(lo)) &&
			(isl_val_is_int(hi) || isl_val_is_nan(hi));
		if (!lo || !hi) {
			isl_val_free(lo);
			isl_val_free(hi);
			return -1;
		}
		isl_val_free(lo);
		isl_val_free(hi);
		if (ok)
			continue;
		for (a = 0; a < p->n_acc; ++a) {
			const struct dmd_expr *u;

			u = dmd_poly_var_use(p->acc[a].expr, p->vars[v]);
			if (u)
				return dmd_poly_error(b->job, u->loc,
					"index variable '%s' takes unboundedly "
					"many values: the indices it appears in "
					"do not bound it", p->vars[v]);
		}
		return dmd_poly_error(b->job, b->p->st->loc, "index variable "
			"'%s' takes unboundedly many values", p->vars[v]);
	}
	return 0;
}

/* The least and the largest value of variable "v" in "set" (freed):
 * *empty if it has none; LONG_MIN or LONG_MAX where it has no bound.
 * Returns -1 on error. */
static int dmd_poly_var_span(__isl_take isl_set *set, int v, int *empty,
	long *lo, long *hi)
{
	isl_val *l, *h;
	int r = 0;

	*empty = dmd_isl_bool(isl_set_is_empty(set));
	if (*empty < 0) {
		isl_set_free(set);
		return -1;
	}
	if (*empty) {
		isl_set_free(set);
		return 0;
	}
	l = isl_set_dim_min_val(isl_set_copy(set), v);
	h = isl_set_dim_max_val(set, v);
	if (!l || !h || isl_val_is_nan(l) || isl_val_is_nan(h))
		r = -1;
	else {
		*lo = isl_val_is_int(l) ? isl_val_get_num_si(l) : LONG_MIN;
		*hi = isl_val_is_int(h) ? isl_val_get_num_si(h) : LONG_MAX;
	}
	isl_val_free(l);
	isl_val_free(h);
	return r;
}

/* The range of variable "v" for "check" (struct dmd_var_range): in the
 * domain; without each access's bounds in turn (that access cuts it if
 * the range grows); and the range that the dimensions an access indexes
 * with "v" alone allow.  For B[i] = A[i - 1] + A[i + 1] (B and A of
 * extent 200): 1 .. 198, cut by A[i - 1] (1 .. 200) and A[i + 1]
 * (-1 .. 198), B[i] allowing 0 .. 199. */
static int dmd_poly_var_range(struct dmd_poly_build *b, int v)
{
	struct dmd_poly *p = b->p;
	struct dmd_var_range *r = &p->range[v];
	int a, d, n = p->n_acc;

	r->cut = calloc(n, sizeof(int));
	r->own = calloc(n, sizeof(int));
	r->own_lo = calloc(n, sizeof(long));
	r->own_hi = calloc(n, sizeof(long));
	if (!r->cut || !r->own || !r->own_lo || !r->own_hi)
		return -1;
	if (dmd_poly_var_span(isl_set_copy(p->domain), v, &r->empty, &r->lo,
			&r->hi) < 0)
		return -1;
	for (a = 0; a < n; ++a) {
		const struct dmd_tensor *t = &b->job->tensors[p->acc[a].tensor];
		isl_set *own = NULL;
		long lo, hi;
		int empty;

		if (!r->empty) {
			if (dmd_poly_var_span(dmd_poly_bounds(b, a), v, &empty,
					&lo, &hi) < 0)
				return -1;
			r->cut[a] = lo != r->lo || hi != r->hi;
		}
		for (d = 0; d < t->ndim; ++d) {
			isl_aff *e = isl_multi_aff_get_aff(p->acc[a].idx, d);
			int alone = isl_aff_involves_dims(e, isl_dim_in, v, 1) &&
				!isl_aff_involves_dims(e, isl_dim_in, 0, v) &&
				!isl_aff_involves_dims(e, isl_dim_in, v + 1,
					p->n_vars - v - 1);

			isl_aff_free(e);
			if (!alone)
				continue;
			own = own ? isl_set_intersect(own,
				dmd_poly_in_bounds(b, a, d)) :
				dmd_poly_in_bounds(b, a, d);
		}
		if (!own)
			continue;
		if (dmd_poly_var_span(own, v, &empty, &r->own_lo[a],
				&r->own_hi[a]) < 0)
			return -1;
		r->own[a] = !empty;
	}
	return 0;
}

/* The extent of index variable "v": the extent of a dimension it
 * indexes alone (the first such access, the output first), else the
 * largest value it takes plus one. */
static long dmd_poly_var_extent(struct dmd_poly_build *b, int v)
{
	struct dmd_poly *p = b->p;
	isl_val *val;
	long r;
	int a, d;

	for (a = 0; a < p->n_acc; ++a) {
		struct dmd_expr *e = p->acc[a].expr;

		for (d = 0; d < e->n_arg; ++d)
			if (e->args[d]->type == DMD_EXPR_VAR &&
			    !strcmp(e->args[d]->name, p->vars[v]))
				return b->job->tensors[p->acc[a].tensor].
					shape[d];
	}
	val = isl_set_dim_max_val(isl_set_copy(p->domain), v);
	r = val && isl_val_is_int(val) ? isl_val_get_num_si(val) + 1 : 1;
	isl_val_free(val);
	return r;
}

/* The position of loop "name" in the current loop order, or -1. */
static int dmd_poly_find_loop(const struct dmd_poly *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_loops; ++i)
		if (!strcmp(p->loops[i].name, name))
			return i;
	return -1;
}

/* Find loop "name" for command "cmd", or report it unknown. */
static int dmd_poly_need_loop(struct dmd_poly_build *b, const char *name,
	struct dmd_loc loc, const char *cmd)
{
	int i = dmd_poly_find_loop(b->p, name);

	if (i < 0)
		dmd_poly_error(b->job, loc, "unknown loop '%s' in %s", name,
			cmd);
	return i;
}

/* Check that "name" can name a new loop. */
static int dmd_poly_fresh_loop(struct dmd_poly_build *b, const char *name,
	struct dmd_loc loc)
{
	if (dmd_poly_find_loop(b->p, name) >= 0)
		return dmd_poly_error(b->job, loc, "loop '%s' already exists",
			name);
	if (dmd_job_find_axis(b->job, name) >= 0)
		return dmd_poly_error(b->job, loc,
			"loop '%s' has the name of a mesh axis", name);
	if (dmd_job_find_tensor(b->job, name) >= 0)
		return dmd_poly_error(b->job, loc,
			"loop '%s' has the name of a tensor", name);
	return 0;
}

/* The set space [L[n_old] -> L[n_new]] in which loop transformations are
 * written: dimension i < n_old is old loop i, n_old + j new loop j. */
static __isl_give isl_space *dmd_poly_relation(struct dmd_poly *p,
	int n_new)
{
	isl_space *old, *new;

	old = dmd_isl_set_space(p->space, "L", p->n_loops);
	new = dmd_isl_set_space(p->space, "L", n_new);
	return isl_space_wrap(isl_space_map_from_domain_and_range(old, new));
}

/* Compose the schedule with the transformation "rel" (a subset of the
 * relation space). */
static int dmd_poly_apply(struct dmd_poly *p, __isl_take isl_set *rel)
{
	p->sched = isl_map_apply_range(p->sched, isl_set_unwrap(rel));
	p->sched = isl_map_coalesce(p->sched);
	return p->sched ? 0 : -1;
}

/* In relation "rel" ([L[old] -> L[new]]), new loop j equals old loop i. */
static __isl_give isl_set *dmd_poly_same(__isl_take isl_set *rel,
	int n_old, int j, int i)
{
	return isl_set_equate(rel, isl_dim_set, i, isl_dim_set, n_old + j);
}

/* Replace loop "li" (extent E) by io, ii:
 * (with i counted from the loop's least value, 0 or below):
 *   block (P parts, balanced == 0; or split(S): s = S):
 *      i = s io + ii, 0 <= ii < s
 *   balanced: i in [io q + min(io, r), (io + 1) q + min(io + 1, r)):
 *      io < r:  i = (q + 1) io + ii,     0 <= ii < q + 1
 *      io >= r: i = q io + r + ii,       0 <= ii < q
 * Returns the relation. */
static __isl_give isl_set *dmd_poly_cut_rel(struct dmd_poly *p, int li,
	long s, long P, int balanced)
{
	int n = p->n_loops, j;
	isl_space *space = dmd_poly_relation(p, n + 1);
	isl_set *rel = isl_set_universe(isl_space_copy(space));
	isl_ctx *ctx = isl_space_get_ctx(space);
	isl_pw_aff *i, *io, *ii;
	long E = p->loops[li].extent;

	for (j = 0; j < n + 1; ++j)
		if (j < li)
			rel = dmd_poly_same(rel, n, j, j);
		else if (j > li + 1)
			rel = dmd_poly_same(rel, n, j, j - 1);
	i = dmd_isl_add(dmd_isl_dim(space, li), -p->loops[li].lo);
	io = dmd_isl_dim(space, n + li);
	ii = dmd_isl_dim(space, n + li + 1);
	if (!balanced) {
		rel = isl_set_intersect(rel, isl_pw_aff_eq_set(i,
			isl_pw_aff_add(isl_pw_aff_scale_val(io,
				isl_val_int_from_si(ctx, s)),
				isl_pw_aff_copy(ii))));
		rel = isl_set_intersect(rel, isl_pw_aff_nonneg_set(
			isl_pw_aff_copy(ii)));
		rel = isl_set_intersect(rel, isl_pw_aff_lt_set(ii,
			dmd_isl_cst(space, s)));
	} else {
		long q = E / P, r = E % P;
		isl_set *lo, *hi;

		lo = isl_pw_aff_eq_set(isl_pw_aff_copy(i), isl_pw_aff_add(
			isl_pw_aff_scale_val(isl_pw_aff_copy(io),
				isl_val_int_from_si(ctx, q + 1)),
			isl_pw_aff_copy(ii)));
		lo = isl_set_intersect(lo, isl_pw_aff_lt_set(
			isl_pw_aff_copy(io), dmd_isl_cst(space, r)));
		lo = isl_set_intersect(lo, isl_pw_aff_lt_set(
			isl_pw_aff_copy(ii), dmd_isl_cst(space, q + 1)));
		hi = isl_pw_aff_eq_set(i, isl_pw_aff_add(dmd_isl_add(
			isl_pw_aff_scale_val(isl_pw_aff_copy(io),
				isl_val_int_from_si(ctx, q)), r),
			isl_pw_aff_copy(ii)));
		hi = isl_set_intersect(hi, isl_pw_aff_ge_set(
			isl_pw_aff_copy(io), dmd_isl_cst(space, r)));
		hi = isl_set_intersect(hi, isl_pw_aff_lt_set(
			isl_pw_aff_copy(ii), dmd_isl_cst(space, q)));
		rel = isl_set_intersect(rel, isl_set_union(lo, hi));
		rel = isl_set_intersect(rel, isl_pw_aff_nonneg_set(ii));
		rel = isl_set_intersect(rel, isl_pw_aff_nonneg_set(
			isl_pw_aff_copy(io)));
		rel = isl_set_intersect(rel, isl_pw_aff_lt_set(io,
			dmd_isl_cst(space, P)));
	}
	isl_space_free(space);
	return rel;
}

/* Cut loop "li" into "io" (eo values) and "ii" (ei values) by the
 * relation "rel" (see dmd_poly_cut_rel). */
static int dmd_poly_cut(struct dmd_poly *p, int li, const char *io,
	const char *ii, long eo, long ei, __isl_take isl_set *rel)
{
	struct dmd_loop *loops;
	char *no, *ni;

	loops = realloc(p->loops, (p->n_loops + 1) * sizeof(*loops));
	no = strdup(io);
	ni = strdup(ii);
	if (loops)
		p->loops = loops;
	if (!loops || !no || !ni) {
		free(no);
		free(ni);
		isl_set_free(rel);
		return -1;
	}
	memmove(&p->loops[li + 2], &p->loops[li + 1],
		(p->n_loops - li - 1) * sizeof(*p->loops));
	p->loops[li + 1] = p->loops[li];
	p->n_loops++;
	free(p->loops[li].name);
	p->loops[li].name = no;
	p->loops[li].lo = 0;
	p->loops[li].extent = eo;
	p->loops[li + 1].name = ni;
	p->loops[li + 1].lo = 0;
	p->loops[li + 1].extent = ei;
	return dmd_poly_apply(p, rel);
}

/* divide(i, io, ii, P[, balanced]) of loop "li" (spec 1.4: blocks as in
 * spec 1.2). */
static int dmd_poly_divide(struct dmd_poly *p, int li, const char *io,
	const char *ii, long P, int balanced)
{
	long E = p->loops[li].extent;
	long s = (E + P - 1) / P;
	isl_set *rel;

	if (!balanced) {
		rel = dmd_poly_cut_rel(p, li, s, P, 0);
		return dmd_poly_cut(p, li, io, ii, P, s, rel);
	}
	rel = dmd_poly_cut_rel(p, li, 0, P, 1);
	return dmd_poly_cut(p, li, io, ii, P, E % P ? E / P + 1 : E / P, rel);
}

/* split(i, io, ii, S) of loop "li": i = S io + ii, 0 <= ii < S. */
static int dmd_poly_split(struct dmd_poly *p, int li, const char *io,
	const char *ii, long S)
{
	long E = p->loops[li].extent;
	isl_set *rel = dmd_poly_cut_rel(p, li, S, 0, 0);

	return dmd_poly_cut(p, li, io, ii, (E + S - 1) / S, S, rel);
}

/* Permute the loops: new position j holds old loop perm[j]. */
static int dmd_poly_permute(struct dmd_poly *p, const int *perm)
{
	struct dmd_loop *tmp;
	isl_space *space;
	isl_set *rel;
	int j, n = p->n_loops;

	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	space = dmd_poly_relation(p, n);
	rel = isl_set_universe(space);
	for (j = 0; j < n; ++j) {
		rel = dmd_poly_same(rel, n, j, perm[j]);
		tmp[j] = p->loops[perm[j]];
	}
	memcpy(p->loops, tmp, n * sizeof(*tmp));
	free(tmp);
	return dmd_poly_apply(p, rel);
}

/* reorder(v1, v2, ...): the listed loops take the listed order in the
 * positions they held. */
static int dmd_poly_reorder(struct dmd_poly_build *b,
	const struct dmd_sched_cmd *c)
{
	struct dmd_poly *p = b->p;
	int *pos, *idx, *perm;
	int n = c->n_args, i, j, r = -1;

	pos = calloc(n + 1, sizeof(int));
	idx = calloc(n + 1, sizeof(int));
	perm = calloc(p->n_loops + 1, sizeof(int));
	if (!pos || !idx || !perm)
		goto error;
	for (i = 0; i < n; ++i) {
		idx[i] = dmd_poly_need_loop(b, c->args[i].id, c->args[i].loc,
			"reorder");
		if (idx[i] < 0)
			goto error;
		for (j = 0; j < i; ++j)
			if (idx[j] == idx[i]) {
				dmd_poly_error(b->job, c->args[i].loc, "loop "
					"'%s' is listed twice in reorder",
					c->args[i].id);
				goto error;
			}
		pos[i] = idx[i];
	}
	for (i = 0; i < n; ++i)
		for (j = i + 1; j < n; ++j)
			if (pos[j] < pos[i]) {
				int t = pos[i];

				pos[i] = pos[j];
				pos[j] = t;
			}
	for (i = 0; i < p->n_loops; ++i)
		perm[i] = i;
	for (i = 0; i < n; ++i)
		perm[pos[i]] = idx[i];
	r = dmd_poly_permute(p, perm);
error:
	free(pos);
	free(idx);
	free(perm);
	return r;
}

/* distribute([i..], [io..], [ii..], [axis..]): divide each i over its
 * axis, move the io loops outermost in the given order, and run them
 * across the mesh. */
static int dmd_poly_distribute(struct dmd_poly_build *b,
	const struct dmd_sched_cmd *c)
{
	struct dmd_poly *p = b->p;
	int n = c->args[0].n, i, j, k, *perm, r = -1;

	for (i = 0; i < n; ++i) {
		int li, axis;

		li = dmd_poly_need_loop(b, c->args[0].ids[i],
			c->args[0].locs[i], "distribute");
		if (li < 0)
			return -1;
		if (p->loops[li].kind == DMD_LOOP_SPACE)
			return dmd_poly_error(b->job, c->args[0].locs[i],
				"loop '%s' is already distributed",
				c->args[0].ids[i]);
		/* a known axis: ir/dmd_expr_check.c */
		axis = dmd_job_find_axis(b->job, c->args[3].ids[i]);
		if (axis < 0)
			return -1;
		for (j = 0; j < p->n_loops; ++j) {
			int v1, v2;

			if (p->loops[j].kind != DMD_LOOP_SPACE)
				continue;
			if (p->loops[j].axis == axis)
				return dmd_poly_error(b->job,
					c->args[3].locs[i], "mesh axis '%s' "
					"is already used by loop '%s'",
					c->args[3].ids[i], p->loops[j].name);
			v1 = dmd_job_axis_view(b->job, p->loops[j].axis);
			v2 = dmd_job_axis_view(b->job, axis);
			if (v1 != v2)
				return dmd_poly_error(b->job,
					c->args[3].locs[i], "loop '%s' runs "
					"across axis '%s' of %s%s%s, so no loop "
					"of the step can run across axis '%s' "
					"of %s%s%s (a step is distributed over "
					"the axes of one view or of the mesh)",
					p->loops[j].name, dmd_job_axis_name(
					b->job, p->loops[j].axis),
					v1 < 0 ? "the mesh" : "view '",
					v1 < 0 ? "" : b->job->views[v1].name,
					v1 < 0 ? "" : "'", c->args[3].ids[i],
					v2 < 0 ? "the mesh" : "view '",
					v2 < 0 ? "" : b->job->views[v2].name,
					v2 < 0 ? "" : "'");
		}
		if (dmd_poly_fresh_loop(b, c->args[1].ids[i],
				c->args[1].locs[i]) < 0 ||
		    dmd_poly_fresh_loop(b, c->args[2].ids[i],
				c->args[2].locs[i]) < 0)
			return -1;
		if (dmd_poly_divide(p, li, c->args[1].ids[i],
				c->args[2].ids[i], dmd_job_axis_extent(b->job,
				axis), 0) < 0)
			return -1;
		p->loops[li].kind = DMD_LOOP_SPACE;
		p->loops[li].axis = axis;
	}
	perm = calloc(p->n_loops + 1, sizeof(int));
	if (!perm)
		return -1;
	k = 0;
	for (i = 0; i < n; ++i)
		perm[k++] = dmd_poly_find_loop(p, c->args[1].ids[i]);
	for (j = 0; j < p->n_loops; ++j) {
		int listed = 0;

		for (i = 0; i < n; ++i)
			listed |= perm[i] == j;
		if (!listed)
			perm[k++] = j;
	}
	r = dmd_poly_permute(p, perm);
	free(perm);
	return r;
}

/* rotate(t, [v..], r): loop t is replaced by r with
 * t = lo + (r + sum(v)) mod extent(t), that is r = (t - lo - sum(v)) mod
 * extent(t), lo the least value of t (0, or below 0). */
static int dmd_poly_rotate(struct dmd_poly_build *b,
	const struct dmd_sched_cmd *c)
{
	struct dmd_poly *p = b->p;
	isl_space *space;
	isl_set *rel;
	isl_pw_aff *v;
	char *name;
	int li, i, n = p->n_loops;

	li = dmd_poly_need_loop(b, c->args[0].id, c->args[0].loc, "rotate");
	if (li < 0)
		return -1;
	for (i = 0; i < c->args[1].n; ++i)
		if (dmd_poly_need_loop(b, c->args[1].ids[i],
				c->args[1].locs[i], "rotate") < 0)
			return -1;
	if (dmd_poly_fresh_loop(b, c->args[2].id, c->args[2].loc) < 0)
		return -1;
	name = strdup(c->args[2].id);
	if (!name)
		return -1;
	space = dmd_poly_relation(p, n);
	rel = isl_set_universe(isl_space_copy(space));
	for (i = 0; i < n; ++i)
		if (i != li)
			rel = dmd_poly_same(rel, n, i, i);
	v = dmd_isl_add(dmd_isl_dim(space, li), -p->loops[li].lo);
	for (i = 0; i < c->args[1].n; ++i)
		v = isl_pw_aff_sub(v, dmd_isl_dim(space,
			dmd_poly_find_loop(p, c->args[1].ids[i])));
	v = isl_pw_aff_mod_val(v, isl_val_int_from_si(b->mesh->ctx,
		p->loops[li].extent));
	rel = isl_set_intersect(rel, isl_pw_aff_eq_set(dmd_isl_dim(space,
		n + li), v));
	isl_space_free(space);
	free(p->loops[li].name);
	p->loops[li].name = name;
	p->loops[li].lo = 0;
	return dmd_poly_apply(p, rel);
}

/* Record communicate(T | [T..], v) of command "c" (resolved to a time
 * level after all commands). */
static int dmd_poly_communicate(struct dmd_poly_build *b,
	const struct dmd_sched_cmd *c, int cmd)
{
	struct dmd_poly *p = b->p;
	int j;

	if (dmd_poly_need_loop(b, c->args[1].id, c->args[1].loc,
			"communicate") < 0)
		return -1;
	for (j = 0; j < c->args[0].n; ++j) {
		int ti = dmd_job_find_tensor(b->job, c->args[0].ids[j]);
		struct dmd_comm *cm;

		if (ti < 0)	/* declared: ir/dmd_expr_check.c */
			return -1;
		cm = realloc(p->comm, (p->n_comm + 1) * sizeof(*cm));
		if (!cm)
			return -1;
		p->comm = cm;
		cm[p->n_comm].tensor = ti;
		cm[p->n_comm].level = cmd;	/* the command, for now */
		cm[p->n_comm].loc = c->args[1].loc;
		p->n_comm++;
	}
	return 0;
}

/* The values loop "i" of index variable i runs over before any
 * command: 0 .. extent - 1 with the variable's extent (that of a
 * dimension it indexes alone, so that divided loops follow the blocks
 * of that tensor), widened to the values the variable takes where they
 * lie beyond (C[i + 1] = A[i + 1] runs i over -1 .. 2: that loop starts
 * at -1, and divide and distribute cut -1 .. 2, losing nothing). */
static void dmd_poly_loop_range(struct dmd_poly *p, int i)
{
	const struct dmd_var_range *r = &p->range[i];
	long hi = p->var_extent[i] - 1;

	p->loops[i].lo = 0;
	if (!r->empty) {
		if (r->lo < 0)
			p->loops[i].lo = r->lo;
		if (r->hi > hi)
			hi = r->hi;
	}
	p->loops[i].extent = hi - p->loops[i].lo + 1;
}

/* Apply the schedule commands in order, starting from the loops of the
 * index variables: { S[i, j, k] -> L[i, j, k] }.  What a command's
 * arguments decide alone was checked when it was read
 * (ir/dmd_expr_check.c); here, what needs the loops. */
static int dmd_poly_commands(struct dmd_poly_build *b, int *gemm_cmd)
{
	struct dmd_poly *p = b->p;
	const struct dmd_step *st = p->st;
	isl_space *ls;
	int i, j;

	p->loops = calloc(p->n_vars + 1, sizeof(*p->loops));
	if (!p->loops)
		return -1;
	for (i = 0; i < p->n_vars; ++i) {
		p->loops[i].name = strdup(p->vars[i]);
		if (!p->loops[i].name)
			return -1;
		p->loops[i].origin = i;
		p->loops[i].kind = DMD_LOOP_TIME;
		dmd_poly_loop_range(p, i);
	}
	p->n_loops = p->n_vars;
	ls = dmd_isl_set_space(p->space, "L", p->n_vars);
	p->sched = isl_map_identity(isl_space_map_from_domain_and_range(
		isl_space_copy(p->space), ls));
	if (!p->sched)
		return -1;
	*gemm_cmd = -1;
	for (i = 0; i < st->n_cmds; ++i) {
		const struct dmd_sched_cmd *c = &st->cmds[i];
		const char *what;
		int li;

		switch (c->type) {
		case DMD_CMD_DIVIDE:
		case DMD_CMD_SPLIT:
			what = c->type == DMD_CMD_DIVIDE ? "divide" : "split";
			li = dmd_poly_need_loop(b, c->args[0].id,
				c->args[0].loc, what);
			if (li < 0)
				return -1;
			if (p->loops[li].kind == DMD_LOOP_SPACE)
				return dmd_poly_error(b->job, c->args[0].loc,
					"loop '%s' is distributed; it cannot "
					"be cut", c->args[0].id);
			if (dmd_poly_fresh_loop(b, c->args[1].id,
					c->args[1].loc) < 0 ||
			    dmd_poly_fresh_loop(b, c->args[2].id,
					c->args[2].loc) < 0)
				return -1;
			if (c->type == DMD_CMD_DIVIDE ?
			    dmd_poly_divide(p, li, c->args[1].id,
					c->args[2].id, c->args[3].ival,
					c->balanced) < 0 :
			    dmd_poly_split(p, li, c->args[1].id,
					c->args[2].id, c->args[3].ival) < 0)
				return -1;
			break;
		case DMD_CMD_REORDER:
			if (dmd_poly_reorder(b, c) < 0)
				return -1;
			break;
		case DMD_CMD_DISTRIBUTE:
			if (dmd_poly_distribute(b, c) < 0)
				return -1;
			break;
		case DMD_CMD_ROTATE:
			if (dmd_poly_rotate(b, c) < 0)
				return -1;
			break;
		case DMD_CMD_COMMUNICATE:
			if (dmd_poly_communicate(b, c, i) < 0)
				return -1;
			break;
		case DMD_CMD_TENSORIZE:
			if (*gemm_cmd >= 0)
				return dmd_poly_error(b->job, c->loc,
					"only one tensorize is supported");
			for (j = 0; j < 3; ++j)
				if (dmd_poly_need_loop(b, c->args[0].ids[j],
						c->args[0].locs[j],
						"tensorize") < 0)
					return -1;
			*gemm_cmd = i;
			break;
		}
	}
	return 0;
}

/* The per-rank schedule: space loops equated with the mesh coordinates
 * and projected out; the time loops remain. */
static int dmd_poly_rsched(struct dmd_poly_build *b)
{
	struct dmd_poly *p = b->p;
	isl_set *on;
	isl_map *s;
	int i;

	on = isl_set_universe(isl_space_range(isl_map_get_space(p->sched)));
	p->view = -1;
	for (i = 0; i < p->n_loops; ++i) {
		int a = p->loops[i].axis;
		isl_space *sp;

		if (p->loops[i].kind != DMD_LOOP_SPACE)
			continue;
		p->view = dmd_mesh_axis_view(b->mesh, a);
		if (dmd_mesh_axis_view(b->mesh, a) < 0) {
			on = isl_set_equate(on, isl_dim_set, i, isl_dim_param,
				a);
			continue;
		}
		/* a view axis: the loop runs on the ranks of the view */
		sp = isl_set_get_space(on);
		on = isl_set_intersect(on, isl_pw_aff_eq_set(
			dmd_isl_dim(sp, i), dmd_mesh_coord_at(b->mesh, a, sp,
			isl_dim_param, 0)));
		isl_space_free(sp);
	}
	s = isl_map_intersect_range(isl_map_copy(p->sched), on);
	s = isl_map_intersect_domain(s, isl_set_copy(p->domain));
	for (i = p->n_loops - 1; i >= 0; --i)
		if (p->loops[i].kind == DMD_LOOP_SPACE)
			s = isl_map_project_out(s, isl_dim_out, i, 1);
	p->time_loop = calloc(p->n_loops + 1, sizeof(int));
	if (!p->time_loop) {
		isl_map_free(s);
		return -1;
	}
	p->n_time = 0;
	for (i = 0; i < p->n_loops; ++i)
		if (p->loops[i].kind == DMD_LOOP_TIME)
			p->time_loop[p->n_time++] = i;
	s = isl_map_set_tuple_name(s, isl_dim_out, "L");
	p->rsched = isl_map_coalesce(s);
	return p->rsched ? 0 : -1;
}

/* Among the executors "e" ({ R[r] -> S[i] }) of iterations that no
 * holder of what they write executes, keep one per iteration: along
 * each axis in turn, one whose coordinate is that of a holder if there
 * is one (the choice then follows the output's blocks and each rank's
 * iterations stay boxes), then the lexicographically first. */
static __isl_give isl_map *dmd_poly_one_executor(const struct dmd_mesh *mesh,
	const struct dmd_poly *p, const struct dmd_layout *out,
	__isl_take isl_map *e)
{
	isl_map *ei, *hs;
	int a;

	ei = isl_map_reverse(e);
	/* { S[i] -> R[h] : h holds out(i) } */
	hs = isl_map_apply_range(isl_map_copy(p->acc[0].map),
		isl_map_reverse(isl_map_copy(out->holds)));
	for (a = 0; a < mesh->n; ++a) {
		isl_map *same, *pref;
		isl_set *dom;

		same = isl_map_universe(isl_space_map_from_set(
			dmd_mesh_rank_space(mesh)));
		same = isl_map_equate(same, isl_dim_in, a, isl_dim_out, a);
		same = isl_map_apply_range(isl_map_copy(hs), same);
		pref = isl_map_intersect(isl_map_copy(ei), same);
		dom = isl_map_domain(isl_map_copy(pref));
		ei = isl_map_union(pref, isl_map_subtract_domain(ei, dom));
	}
	isl_map_free(hs);
	return isl_map_reverse(isl_map_lexmin(ei));
}

/* Does "e" read tensor "t" anywhere? */
static int dmd_poly_reads(const struct dmd_expr *e, const char *t)
{
	int i;

	if (e->type == DMD_EXPR_ACCESS && !strcmp(e->name, t))
		return 1;
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_poly_reads(e->args[i], t))
			return 1;
	return 0;
}

/* Is "e" linear in tensor "t": a sum of terms, each a product with
 * exactly one factor linear in t and the others free of t (divisions by
 * expressions free of t)?  Then summing the step over the partials of t
 * equals the step on their sum.  A constant term is not linear. */
static int dmd_poly_linear(const struct dmd_expr *e, const char *t)
{
	int i, n;

	switch (e->type) {
	case DMD_EXPR_ACCESS:
		return !strcmp(e->name, t);
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
		return dmd_poly_linear(e->args[0], t) &&
			dmd_poly_linear(e->args[1], t);
	case DMD_EXPR_NEG:
		return dmd_poly_linear(e->args[0], t);
	case DMD_EXPR_MUL:
		n = 0;
		for (i = 0; i < 2; ++i) {
			if (dmd_poly_linear(e->args[i], t))
				n++;
			else if (dmd_poly_reads(e->args[i], t))
				return 0;
		}
		return n == 1;
	case DMD_EXPR_DIV:
		return dmd_poly_linear(e->args[0], t) &&
			!dmd_poly_reads(e->args[1], t);
	default:
		return 0;
	}
}

/* May step "p" run on the partials of its output?  Its output is
 * partial, no loop distributes or crosses a partial axis ("dist"), and the right
 * side reads exactly one partial tensor (possibly the output), partial
 * along the same axes, and is linear in it. */
static int dmd_poly_may_run_on_partials(struct dmd_poly_build *b,
	const int *dist)
{
	const struct dmd_poly *p = b->p;
	const struct dmd_layout *out = b->lay[p->out], *lt;
	int i, a, t = -1;

	if (!out->n_partial)
		return 0;
	for (i = 0; i < out->n_partial; ++i)
		if (dist[out->partial[i]])
			return 0;
	for (i = 0; i < b->job->n_tensors; ++i) {
		if (!b->lay[i] || !b->lay[i]->n_partial ||
		    !dmd_poly_reads(p->st->rhs, b->job->tensors[i].name))
			continue;
		if (t >= 0)
			return 0;
		t = i;
	}
	if (t < 0)
		return 0;
	lt = b->lay[t];
	if (lt->n_partial != out->n_partial)
		return 0;
	for (i = 0; i < lt->n_partial; ++i) {
		for (a = 0; a < out->n_partial; ++a)
			if (out->partial[a] == lt->partial[i])
				break;
		if (a == out->n_partial)
			return 0;
	}
	return dmd_poly_linear(p->st->rhs, b->job->tensors[t].name);
}

/* Mark with 2 in "dist" (1 on the axes a loop is distributed over)
 * every partial axis of the step's output along whose lines the
 * coordinate of a distributed axis changes: a loop over view axis
 * u = 2 x + y of a 2x2 mesh pins an iteration to one coordinate along
 * partial axis y, which need not be 0.  -1 on error. */
static int dmd_poly_crossed(struct dmd_poly_build *b, int *dist)
{
	const struct dmd_mesh *mesh = b->mesh;
	const struct dmd_layout *out = b->lay[b->p->out];
	int i, a, pa;

	for (i = 0; i < out->n_partial; ++i) {
		pa = out->partial[i];
		for (a = 0; !dist[pa] && a < mesh->n_all; ++a) {
			isl_bool c;

			if (dist[a] != 1)
				continue;
			c = dmd_mesh_crosses(mesh, pa, a);
			if (c < 0)
				return -1;
			if (c)
				dist[pa] = 2;
		}
	}
	return 0;
}

/* Which ranks execute which iterations ("owner computes").  The loops a
 * schedule distributes fix the coordinates along their axes.  A step
 * that may run on the partials of its output, and whose holders can run
 * every iteration, runs there, every rank on its own partials.  Else,
 * along the output's partial axes that no loop distributes, only
 * coordinate 0 executes (the partial sums must count each contribution
 * once); along those that a loop over another axis crosses (a view axis
 * spanning them, dmd_poly_crossed), only the least coordinate of each
 * line that may execute the iteration.  Of
 * the ranks left, those that hold the element an iteration writes all
 * execute it (every replica of the output computes its own elements:
 * nothing is sent back); an iteration that no such holder executes runs
 * on one rank only (dmd_poly_one_executor), whose result is returned:
 *   E = { R[r] -> S[i] : r may execute i and r holds out(i) }
 *     + one executor for each other i */
static int dmd_poly_executors(struct dmd_poly_build *b)
{
	struct dmd_poly *p = b->p;
	const struct dmd_mesh *mesh = b->mesh;
	struct dmd_layout *out = b->lay[p->out];
	isl_set *dom, *covered;
	isl_map *e, *hold, *rest;
	isl_bool single;
	int *dist, i, fixed = 0;

	dist = calloc(mesh->n_all + 1, sizeof(int));
	if (!dist)
		return -1;
	for (i = 0; i < p->n_loops; ++i)
		if (p->loops[i].kind == DMD_LOOP_SPACE)
			dist[p->loops[i].axis] = 1;
	if (dmd_poly_crossed(b, dist) < 0) {
		free(dist);
		return -1;
	}
	dom = isl_map_domain(isl_map_copy(p->rsched));
	e = isl_set_unbind_params_insert_domain(dom,
		isl_multi_id_copy(mesh->ids));
	e = isl_map_intersect_domain(e, dmd_mesh_ranks(mesh));
	/* on the partials: the holders run every iteration, each on its
	 * own partials (nothing returned) */
	if (dmd_poly_may_run_on_partials(b, dist)) {
		hold = isl_map_apply_range(isl_map_copy(out->holds),
			isl_map_reverse(isl_map_copy(p->acc[0].map)));
		hold = isl_map_intersect(isl_map_copy(e), hold);
		rest = isl_map_subtract_range(isl_map_copy(e),
			isl_map_range(isl_map_copy(hold)));
		rest = isl_map_intersect_params(rest,
			isl_set_copy(mesh->set));
		single = isl_map_is_empty(rest);
		isl_map_free(rest);
		if (single < 0) {
			isl_map_free(hold);
			isl_map_free(e);
			free(dist);
			return -1;
		}
		if (single) {
			isl_map_free(e);
			e = hold;
			free(dist);
			p->on_partials = 1;
			goto done;
		}
		isl_map_free(hold);
	}
	for (i = 0; i < out->n_partial; ++i) {
		if (dist[out->partial[i]] == 1)
			continue;
		if (dist[out->partial[i]] == 2)
			e = dmd_mesh_first_along(mesh, e, out->partial[i]);
		else
			e = dmd_mesh_fix(mesh, e, isl_dim_in, 0,
				out->partial[i], 0);
		fixed = 1;
	}
	free(dist);
	/* one executor per iteration already (every axis distributed) */
	hold = isl_map_reverse(isl_map_copy(e));
	single = isl_map_is_single_valued(hold);
	isl_map_free(hold);
	if (single < 0) {
		isl_map_free(e);
		return -1;
	}
	if (single && !fixed) {
		isl_map_free(e);
		return 0;
	}
	if (single)
		goto done;
	/* { R[r] -> S[i] : r holds out(i) } */
	hold = isl_map_apply_range(isl_map_copy(out->holds), isl_map_reverse(
		isl_map_copy(p->acc[0].map)));
	hold = isl_map_intersect(isl_map_copy(e), hold);
	covered = isl_map_range(isl_map_copy(hold));
	rest = isl_map_subtract_range(e, covered);
	e = isl_map_union(hold, dmd_poly_one_executor(mesh, p, out, rest));
done:
	dom = isl_map_bind_domain(e, isl_multi_id_copy(mesh->ids));
	dom = isl_set_align_params(dom, isl_space_copy(mesh->space));
	dom = isl_set_intersect_params(dom, isl_set_copy(mesh->set));
	p->rsched = isl_map_intersect_domain(p->rsched, dom);
	p->rsched = isl_map_coalesce(p->rsched);
	return p->rsched ? 0 : -1;
}

/* The position of loop "loop" among the time loops, or -1. */
int dmd_poly_time_pos(const struct dmd_poly *p, int loop)
{
	int i;

	for (i = 0; i < p->n_time; ++i)
		if (p->time_loop[i] == loop)
			return i;
	return -1;
}

/* Resolve the loops named by communicate and tensorize ("gemm_cmd"),
 * now that every command has been applied. */
static int dmd_poly_resolve(struct dmd_poly_build *b, int gemm_cmd)
{
	struct dmd_poly *p = b->p;
	const struct dmd_step *st = p->st;
	int i, j;

	for (i = 0; i < p->n_comm; ++i) {
		const struct dmd_sched_cmd *c = &st->cmds[p->comm[i].level];
		int li = dmd_poly_find_loop(p, c->args[1].id);

		if (li < 0)
			return dmd_poly_error(b->job, c->args[1].loc, "loop "
				"'%s' of communicate was replaced by a later "
				"command", c->args[1].id);
		p->comm[i].level = dmd_poly_time_pos(p, li);
	}
	if (gemm_cmd < 0)
		return 0;
	{
		const struct dmd_sched_cmd *c = &st->cmds[gemm_cmd];

		for (j = 0; j < 3; ++j) {
			int li = dmd_poly_find_loop(p, c->args[0].ids[j]);

			if (li < 0)
				return dmd_poly_error(b->job,
					c->args[0].locs[j], "loop '%s' of "
					"tensorize was replaced by a later "
					"command", c->args[0].ids[j]);
			if (p->loops[li].tensorized)
				return dmd_poly_error(b->job,
					c->args[0].locs[j], "loop '%s' is "
					"listed twice in tensorize",
					c->args[0].ids[j]);
			if (p->loops[li].kind != DMD_LOOP_TIME ||
			    dmd_poly_time_pos(p, li) < p->n_time - 3)
				return dmd_poly_error(b->job,
					c->args[0].locs[j], "tensorize: loop "
					"'%s' is not one of the three "
					"innermost loops", c->args[0].ids[j]);
			p->loops[li].tensorized = 1;
		}
		for (i = 0; i < p->n_comm; ++i)
			if (p->comm[i].level >= p->n_time - 3)
				return dmd_poly_error(b->job, p->comm[i].loc,
					"communicate inside a tensorized "
					"loop");
	}
	return 0;
}

/* Is the statement a matrix product C[i, j] (+)= A[.., ..] * B[.., ..]
 * with plain index variables (i, j, k the first three variables)?  Fills
 * the roles of "g". */
static int dmd_poly_is_matmul(const struct dmd_poly *p,
	struct dmd_gemm_info *g)
{
	const struct dmd_expr *l = p->st->lhs, *r = p->st->rhs;
	const struct dmd_expr *a, *bb;
	const char *i, *j, *k;
	int d;

	if (!l || l->n_arg != 2 || !r || r->type != DMD_EXPR_MUL)
		return 0;
	a = r->args[0];
	bb = r->args[1];
	if (a->type != DMD_EXPR_ACCESS || bb->type != DMD_EXPR_ACCESS ||
	    a->n_arg != 2 || bb->n_arg != 2)
		return 0;
	for (d = 0; d < 2; ++d)
		if (l->args[d]->type != DMD_EXPR_VAR ||
		    a->args[d]->type != DMD_EXPR_VAR ||
		    bb->args[d]->type != DMD_EXPR_VAR)
			return 0;
	i = l->args[0]->name;
	j = l->args[1]->name;
	if (!strcmp(i, j))
		return 0;
	g->acc_a = 1;
	g->acc_b = 2;
	if (strcmp(a->args[0]->name, i) && strcmp(a->args[1]->name, i)) {
		const struct dmd_expr *t = a;

		a = bb;
		bb = t;
		g->acc_a = 2;
		g->acc_b = 1;
	}
	if (!strcmp(a->args[0]->name, i)) {
		g->ta = 0;
		k = a->args[1]->name;
	} else if (!strcmp(a->args[1]->name, i)) {
		g->ta = 1;
		k = a->args[0]->name;
	} else
		return 0;
	if (!strcmp(k, i) || !strcmp(k, j))
		return 0;
	if (!strcmp(bb->args[0]->name, k) && !strcmp(bb->args[1]->name, j))
		g->tb = 0;
	else if (!strcmp(bb->args[1]->name, k) &&
		 !strcmp(bb->args[0]->name, j))
		g->tb = 1;
	else
		return 0;
	return 1;
}

/* The arithmetic of expression "e": its operators and calls. */
static long dmd_poly_expr_ops(const struct dmd_expr *e)
{
	long n = 0;
	int i;

	switch (e->type) {
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
	case DMD_EXPR_DIV:
	case DMD_EXPR_NEG:
	case DMD_EXPR_CALL:
		n = 1;
		break;
	case DMD_EXPR_ACCESS:
		return 0;
	default:
		break;
	}
	for (i = 0; i < e->n_arg; ++i)
		n += dmd_poly_expr_ops(e->args[i]);
	return n;
}

/* The floating-point operations of one iteration of step "p": the
 * operators and calls of its right side, and one more if it adds into
 * its output ('+=', or a sum over a variable of the right side only).
 * A matrix product's is 2; its flops (p->flops, the runtime's GFLOP/s)
 * and the cost model's (per rank, partition/dmd_part_cost.c) are this
 * times the iterations (of the in-bounds ranges, spec 1.3). */
long dmd_poly_ops(const struct dmd_poly *p)
{
	return dmd_poly_expr_ops(p->st->rhs) + (p->st->accumulate ||
		p->reduce);
}

/* The flop count of a matrix product, and the check of tensorize. */
static int dmd_poly_gemm(struct dmd_poly_build *b, int gemm_cmd)
{
	struct dmd_poly *p = b->p;
	struct dmd_gemm_info g = { 0 };
	int j, ok, seen[3] = { 0, 0, 0 };

	ok = dmd_poly_is_matmul(p, &g);
	if (ok) {
		p->flops = dmd_poly_ops(p);
		for (j = 0; j < p->n_vars; ++j)
			p->flops *= p->range[j].empty ? 0.0 :
				(double) (p->range[j].hi - p->range[j].lo + 1);
	}
	if (gemm_cmd < 0)
		return 0;
	g.loc = p->st->cmds[gemm_cmd].loc;
	for (j = 0; ok && j < p->n_loops; ++j) {
		int o = p->loops[j].origin;

		if (!p->loops[j].tensorized)
			continue;
		if (o < 0 || o >= 3 || seen[o])
			ok = 0;
		else
			seen[o] = 1;
	}
	if (!ok)
		return dmd_poly_error(b->job, g.loc, "tensorize(..., gemm): "
			"the statement is not a matrix product C[i, j] (+)= "
			"A[i, k] * B[k, j] over these loops");
	p->gemm = malloc(sizeof(*p->gemm));
	if (!p->gemm)
		return -1;
	*p->gemm = g;
	return 0;
}

/* "C[m, n] = A[m, k] * B[k, n]" */
static char *dmd_poly_label(const struct dmd_step *st)
{
	char *l = dmd_expr_to_str(st->lhs), *r = dmd_expr_to_str(st->rhs);
	char *s = NULL;
	size_t n;

	if (l && r) {
		n = strlen(l) + strlen(r) + 5;
		s = malloc(n);
		if (s)
			snprintf(s, n, "%s %s %s", l,
				st->accumulate ? "+=" : "=", r);
	}
	free(l);
	free(r);
	return s;
}

/* Is "lay" along dimension "d" (extent "E") cut alike with "lay2" along
 * "d2": both cyclic with the same block size, holders and local extent,
 * or neither cyclic? */
static int dmd_poly_same_cyclic(const struct dmd_layout *lay, int d,
	const struct dmd_layout *lay2, int d2)
{
	if (!lay->cyc[d] || !lay2->cyc[d2])
		return !lay->cyc[d] && !lay2->cyc[d2];
	return lay->cyc[d] == lay2->cyc[d2] &&
		lay->cyc_B[d] == lay2->cyc_B[d2] &&
		lay->cyc_L[d] == lay2->cyc_L[d2];
}

/* How dimension "d" of "lay" is cut, into "buf" (80 bytes): "blocks of
 * 2 over 2 holders, 6 local" (cyclic) or "not cyclic". */
static void dmd_poly_cyclic_show(const struct dmd_layout *lay, int d,
	char *buf)
{
	if (lay->cyc[d])
		snprintf(buf, 80, "blocks of %ld over %ld holders, %ld local",
			lay->cyc[d], lay->cyc_B[d], lay->cyc_L[d]);
	else
		snprintf(buf, 80, "not cyclic");
}

/* A tensorized step ("gemm_cmd") that accesses a cyclic tensor runs in
 * local coordinates (see dmd_model.h): each index variable m that
 * indexes a cyclic dimension is replaced by its local coordinate v_m
 * (the domain is mapped through { S[m] -> S[v_m] }, the extents of the
 * variables become the local extents B Lmax), so that a rank's blocks
 * are one box of iterations and the GEMM leaf multiplies whole local
 * panels (what PDGEMM does).  The accesses of cyclic dimensions keep
 * their indices, now local ones: this needs every cyclic dimension a
 * variable indexes to be cut alike (the same block size, holders and
 * local extent: the k blocks of A's columns and B's rows line up, as
 * ScaLAPACK requires of its descriptors).  A dimension that is not
 * cyclic (held whole, or in blocks over any number of ranks) may be
 * indexed by a variable that runs over another tensor's cyclic
 * dimension: its access is the global index of the local coordinate
 * (dmd_layout_global_aff), e.g.
 * B[2 (2 floor((k mod 6)/2) + floor(k/6)) + (k mod 2), n]; the plan cuts
 * the GEMM's boxes into pieces on which such an access is consecutive
 * (dmd_plan_gemm_pieces), and at the gaps the local coordinates have
 * where a holder but the last holds fewer than Lmax elements.  Anything
 * else is refused at the tensorize command.  Sets *done. */
static int dmd_poly_local_gemm(struct dmd_poly_build *b, int gemm_cmd,
	int *done)
{
	struct dmd_poly *p = b->p;
	const struct dmd_layout **vl = NULL;
	struct dmd_loc loc;
	isl_local_space *ls;
	isl_aff_list *list;
	isl_multi_aff *ma;
	int *vd = NULL, *vt = NULL, *glob = NULL, a, d, m, any = 0;

	*done = 0;
	for (a = 0; a < p->n_acc; ++a)
		if (b->lay[p->acc[a].tensor]->local)
			any = 1;
	if (!any || gemm_cmd < 0)
		return 0;
	loc = p->st->cmds[gemm_cmd].loc;
	vl = calloc(p->n_vars + 1, sizeof(*vl));
	vd = calloc(p->n_vars + 1, sizeof(*vd));
	vt = calloc(p->n_vars + 1, sizeof(*vt));
	glob = calloc(p->n_acc + 1, sizeof(*glob));
	if (!vl || !vd || !vt || !glob)
		goto error;
	for (a = 0; a < p->n_acc; ++a) {
		const struct dmd_layout *lay = b->lay[p->acc[a].tensor];
		const struct dmd_expr *e = p->acc[a].expr;

		for (d = 0; d < e->n_arg; ++d) {
			m = e->args[d]->type == DMD_EXPR_VAR ?
				dmd_poly_find_var(p, e->args[d]->name) : -1;
			if (m < 0 && lay->cyc[d]) {
				dmd_poly_error(b->job, loc, "tensorize: "
					"tensor '%s' is cyclic along dimension "
					"%d, which is not indexed by one index "
					"variable (not supported)",
					b->job->tensors[p->acc[a].tensor].name,
					d);
				goto error;
			}
			if (m >= 0 && lay->cyc[d] && !vl[m]) {
				vl[m] = lay;
				vd[m] = d;
				vt[m] = p->acc[a].tensor;
			}
		}
	}
	for (a = 0; a < p->n_acc; ++a) {
		const struct dmd_layout *lay = b->lay[p->acc[a].tensor];
		const struct dmd_tensor *t = &b->job->tensors[p->acc[a].tensor];
		const struct dmd_expr *e = p->acc[a].expr;

		for (d = 0; d < e->n_arg; ++d) {
			if (e->args[d]->type != DMD_EXPR_VAR)
				continue;
			m = dmd_poly_find_var(p, e->args[d]->name);
			if (m < 0)
				continue;
			if (vl[m] && !dmd_poly_same_cyclic(vl[m], vd[m], lay,
					d)) {
				char what[2][80];

				if (!lay->cyc[d]) {
					glob[a] |= 1 << d;
					continue;
				}

				dmd_poly_cyclic_show(vl[m], vd[m], what[0]);
				dmd_poly_cyclic_show(lay, d, what[1]);
				dmd_poly_error(b->job, loc, "tensorize: index "
					"'%s' runs over dimension %d of '%s' "
					"(%s) and dimension %d of '%s' (%s); "
					"a local product needs them cut into "
					"the same cyclic blocks (not "
					"supported)", p->vars[m], vd[m],
					b->job->tensors[vt[m]].name, what[0],
					d, t->name, what[1]);
				goto error;
			}
		}
	}
	ls = isl_local_space_from_space(isl_space_copy(p->space));
	list = isl_aff_list_alloc(isl_space_get_ctx(p->space), p->n_vars);
	for (m = 0; m < p->n_vars; ++m) {
		isl_aff *v = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, m);

		if (vl[m])
			v = dmd_layout_local_aff(vl[m], vd[m], v);
		list = isl_aff_list_add(list, v);
	}
	isl_local_space_free(ls);
	ma = isl_multi_aff_from_aff_list(isl_space_map_from_set(
		isl_space_copy(p->space)), list);
	p->domain = isl_set_apply(p->domain, isl_map_from_multi_aff(ma));
	if (!p->domain)
		goto error;
	for (a = 0; a < p->n_acc; ++a) {
		const struct dmd_expr *e = p->acc[a].expr;

		for (d = 0; glob[a] && d < e->n_arg; ++d) {
			isl_aff *g;

			if (!(glob[a] & (1 << d)))
				continue;
			m = dmd_poly_find_var(p, e->args[d]->name);
			g = isl_multi_aff_get_aff(p->acc[a].idx, d);
			g = dmd_layout_global_aff(vl[m], vd[m], g);
			p->acc[a].idx = isl_multi_aff_set_aff(p->acc[a].idx,
				d, g);
		}
		isl_map_free(p->acc[a].map);
		p->acc[a].map = isl_map_intersect_domain(isl_map_from_multi_aff(
			isl_multi_aff_copy(p->acc[a].idx)),
			isl_set_copy(p->domain));
		if (!p->acc[a].map)
			goto error;
	}
	for (m = 0; m < p->n_vars; ++m)
		if (vl[m])
			p->var_extent[m] = vl[m]->vshape[vd[m]];
	*done = 1;
	free(vl);
	free(vd);
	free(vt);
	free(glob);
	return 0;
error:
	free(vl);
	free(vd);
	free(vt);
	free(glob);
	return -1;
}

/* The accesses of cyclic tensors in their local coordinates (see
 * dmd_model.h): idx := local o idx, e.g. for A[i] with block size 2 over
 * 2 holders (Lmax 6) { S[i] -> T[6 (floor(i/2) mod 2) + 2 floor(i/4) +
 * (i mod 2)] }, after everything that needs the global index (the
 * domain, the ranges of "check").  Nothing to do when "done": a
 * tensorized step runs in local coordinates (dmd_poly_local_gemm). */
static int dmd_poly_local(struct dmd_poly_build *b, int gemm_cmd, int done)
{
	struct dmd_poly *p = b->p;
	int a;

	for (a = 0; !done && a < p->n_acc; ++a) {
		const struct dmd_layout *lay = b->lay[p->acc[a].tensor];

		if (!lay->local)
			continue;
		if (gemm_cmd >= 0) {
			dmd_job_error(b->job, p->st->cmds[gemm_cmd].loc,
				"tensorize: tensor '%s' is cyclic (not "
				"supported yet)",
				b->job->tensors[p->acc[a].tensor].name);
			return -1;
		}
		p->acc[a].idx = isl_multi_aff_pullback_multi_aff(
			isl_multi_aff_copy(lay->local), p->acc[a].idx);
		isl_map_free(p->acc[a].map);
		p->acc[a].map = isl_map_intersect_domain(isl_map_from_multi_aff(
			isl_multi_aff_copy(p->acc[a].idx)),
			isl_set_copy(p->domain));
		if (!p->acc[a].idx || !p->acc[a].map)
			return -1;
	}
	return 0;
}

/* Build the model of compute step "st" (number "index" in program text
 * order) of "job" over "mesh", with the tensors laid out as "lay".
 * Errors are reported against the job file; NULL is returned. */
__isl_give struct dmd_poly *dmd_poly_build(const struct dmd_mesh *mesh,
	const struct dmd_job *job, struct dmd_layout **lay,
	const struct dmd_step *st, int index)
{
	struct dmd_poly_build b = { mesh, job, lay, NULL };
	struct dmd_poly *p;
	isl_bool inj;
	int i, gemm_cmd, local;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	b.p = p;
	p->index = index;
	p->st = st;
	p->flops = -1;
	p->view = -1;
	p->label = dmd_poly_label(st);
	if (!p->label)
		goto error;
	if (dmd_poly_collect(&b, st->lhs, 1, 0) < 0 ||
	    dmd_poly_collect(&b, st->rhs, 0, 0) < 0)
		goto error;
	p->out = p->acc[0].tensor;
	p->space = dmd_isl_set_space(mesh->space, "S", p->n_vars);
	if (dmd_poly_domain(&b) < 0 || dmd_poly_check_bounded(&b) < 0)
		goto error;
	p->var_extent = calloc(p->n_vars + 1, sizeof(long));
	if (!p->var_extent)
		goto error;
	for (i = 0; i < p->n_vars; ++i)
		p->var_extent[i] = dmd_poly_var_extent(&b, i);
	p->range = calloc(p->n_vars + 1, sizeof(*p->range));
	if (!p->range)
		goto error;
	for (i = 0; i < p->n_vars; ++i)
		if (dmd_poly_var_range(&b, i) < 0)
			goto error;
	inj = isl_map_is_injective(p->acc[0].map);
	if (inj < 0)
		goto error;
	p->reduce = !inj;
	for (gemm_cmd = 0; gemm_cmd < st->n_cmds; ++gemm_cmd)
		if (st->cmds[gemm_cmd].type == DMD_CMD_TENSORIZE)
			break;
	if (gemm_cmd == st->n_cmds)
		gemm_cmd = -1;
	if (dmd_poly_local_gemm(&b, gemm_cmd, &local) < 0)
		goto error;
	if (dmd_poly_commands(&b, &gemm_cmd) < 0 ||
	    dmd_poly_local(&b, gemm_cmd, local) < 0 ||
	    dmd_poly_rsched(&b) < 0 || dmd_poly_executors(&b) < 0 ||
	    dmd_poly_resolve(&b, gemm_cmd) < 0 ||
	    dmd_poly_gemm(&b, gemm_cmd) < 0)
		goto error;
	return p;
error:
	return dmd_poly_free(p);
}

/* Release "p"; returns NULL. */
__isl_null struct dmd_poly *dmd_poly_free(__isl_take struct dmd_poly *p)
{
	int i;

	if (!p)
		return NULL;
	free(p->label);
	for (i = 0; i < p->n_vars; ++i)
		free(p->vars[i]);
	free(p->vars);
	free(p->var_extent);
	for (i = 0; p->range && i < p->n_vars; ++i) {
		free(p->range[i].cut);
		free(p->range[i].own);
		free(p->range[i].own_lo);
		free(p->range[i].own_hi);
	}
	free(p->range);
	free(p->var_reduced);
	isl_space_free(p->space);
	isl_set_free(p->domain);
	for (i = 0; i < p->n_acc; ++i) {
		isl_multi_aff_free(p->acc[i].idx);
		isl_map_free(p->acc[i].map);
	}
	free(p->acc);
	for (i = 0; i < p->n_loops; ++i)
		free(p->loops[i].name);
	free(p->loops);
	isl_map_free(p->sched);
	isl_map_free(p->rsched);
	free(p->time_loop);
	free(p->comm);
	free(p->gemm);
	free(p);
	return NULL;
}
