/* dmd_part_class.c: rank classes by refinement of the mesh.
 *
 * Every parameter-dependent fact the emitted code depends on (the pieces
 * of extents and bounds, who sends or receives in a transfer) is a set of
 * ranks.  Starting from the whole mesh, each cell is split by each fact
 * (cell * S, cell - S).  For "tail" (127 rows over 2 ranks):
 *   X's block extent along dim 0: { [64] : x = 0; [63] : x = 1 }
 * splits [x] -> { : 0 <= x <= 1 } into x = 0 and x = 1.
 * Nothing here iterates over ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/val.h>
#include <isl/point.h>
#include <isl/ast.h>
#include <isl/ast_build.h>

#include "dmd_model.h"

/* Record that the code depends on whether a rank lies in "set". */
int dmd_part_add_fact(struct dmd_model *m, const char *what,
	__isl_take isl_set *set)
{
	isl_bool triv;
	isl_set *rest;

	set = isl_set_coalesce(isl_set_intersect(set, isl_set_copy(m->mesh)));
	rest = isl_set_subtract(isl_set_copy(m->mesh), isl_set_copy(set));
	triv = isl_set_is_empty(set);
	if (triv == isl_bool_false)
		triv = isl_set_is_empty(rest);
	isl_set_free(rest);
	if (triv < 0) {
		isl_set_free(set);
		return -1;
	}
	if (triv) {
		isl_set_free(set);
		return 0;
	}
	m->fact = realloc(m->fact, (m->n_fact + 1) * sizeof(*m->fact));
	m->fact[m->n_fact].what = strdup(what);
	m->fact[m->n_fact].set = set;
	m->fact[m->n_fact].pa = NULL;
	m->n_fact++;
	return 0;
}

/* Like dmd_part_add_fact, for a piece of quantity "pa". */
static int add_quantity_fact(struct dmd_model *m, const char *what,
	__isl_take isl_set *set, __isl_keep isl_pw_aff *pa)
{
	int n = m->n_fact;

	if (dmd_part_add_fact(m, what, set) < 0)
		return -1;
	if (m->n_fact > n)
		m->fact[n].pa = isl_pw_aff_copy(pa);
	return 0;
}

struct piece_data {
	struct dmd_model *m;
	const char *what;
	isl_pw_aff *pa;
	int r;
};

/* Record the projection onto the mesh of one piece of a quantity. */
static isl_stat add_piece(__isl_take isl_set *set, __isl_take isl_aff *aff,
	void *user)
{
	struct piece_data *data = user;

	isl_aff_free(aff);
	if (add_quantity_fact(data->m, data->what, isl_set_params(set),
			data->pa) < 0)
		data->r = -1;
	return isl_stat_ok;
}

/* Record the pieces of "pa" (over the mesh and possibly time): each
 * piece's projection onto the mesh coordinates is a fact; a piece that
 * every rank meets at some time does not split anything. */
int dmd_part_add_pw_aff_facts(struct dmd_model *m, const char *what,
	__isl_keep isl_pw_aff *pa)
{
	struct piece_data data = { m, what, pa, 0 };
	isl_pw_aff *p;

	if (!pa)
		return 0;
	p = isl_pw_aff_coalesce(isl_pw_aff_copy(pa));
	if (isl_pw_aff_foreach_piece(p, &add_piece, &data) < 0)
		data.r = -1;
	isl_pw_aff_free(p);
	if (add_quantity_fact(m, what, isl_set_params(isl_pw_aff_domain(
			isl_pw_aff_copy(pa))), pa) < 0)
		return -1;
	return data.r;
}

/* The ranks with some point in "dom" (any time). */
static int add_dom_fact(struct dmd_model *m, const char *what,
	__isl_keep isl_set *dom)
{
	if (!dom)
		return 0;
	return dmd_part_add_fact(m, what, isl_set_params(isl_set_copy(dom)));
}

/* What add_offset_fact needs: the offsets per rank and the fact name. */
struct offset_data {
	struct dmd_model *m;
	const char *what;
	isl_set *off;		/* [x, y] -> { [dx, dy] } */
	int r;
};

/* The fact of one peer offset, e.g. [-1]: the ranks that talk to the
 * peer at x - 1 ("receives A from x - 1"). */
static isl_stat add_offset_fact(__isl_take isl_point *pnt, void *user)
{
	struct offset_data *data = user;
	struct dmd_model *m = data->m;
	isl_set *pt = isl_set_from_point(pnt);
	isl_set *who;
	char buf[256], *w;
	size_t n = 0;
	int d;

	buf[0] = '\0';
	for (d = 0; d < m->job->n_axes; ++d) {
		isl_val *v = isl_set_plain_get_val_if_fixed(pt, isl_dim_set, d);
		long o = isl_val_get_num_si(v);
		isl_val_free(v);
		if (o)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s %c %ld",
				n ? ", " : "", m->job->axes[d],
				o > 0 ? '+' : '-', o > 0 ? o : -o);
	}
	pt = isl_set_align_params(pt, isl_set_get_space(data->off));
	who = isl_set_params(isl_set_intersect(isl_set_copy(data->off), pt));
	w = dmd_strdup_printf("%s %s", data->what, buf);
	if (dmd_part_add_fact(m, w, who) < 0)
		data->r = -1;
	free(w);
	return isl_stat_ok;
}

/* The peer offsets of a recv/send domain [x, y] -> { X[t, s] } are
 * { [s - x, ...] }; each offset gives a fact: the ranks that talk to the
 * peer at that offset (the edges of a halo have fewer).  Only a few
 * offsets (at most 8) are expected; with more, none is recorded. */
static int add_peer_facts(struct dmd_model *m, const char *what,
	__isl_keep isl_set *dom, int len)
{
	struct offset_data data = { m, what, NULL, 0 };
	int np = m->job->n_axes, i;
	isl_set *all;
	isl_val *cnt = NULL;
	char s[1024];
	size_t n;

	if (!dom)
		return 0;
	/* { [t, s] -> [s - me] } with me as parameters */
	n = sprintf(s, "%s -> { [", dmd_model_params(m));
	for (i = 0; i < len + np; ++i)
		n += sprintf(s + n, "%sa%d", i ? ", " : "", i);
	n += sprintf(s + n, "] -> [");
	for (i = 0; i < np; ++i)
		n += sprintf(s + n, "%sa%d - %s", i ? ", " : "", len + i,
			m->job->axes[i]);
	sprintf(s + n, "] }");
	data.off = isl_set_apply(isl_set_reset_tuple_id(isl_set_copy(dom)),
		isl_map_read_from_str(m->ctx, s));
	/* all offsets over all ranks */
	all = isl_set_move_dims(isl_set_copy(data.off), isl_dim_set, 0,
		isl_dim_param, 0, np);
	all = isl_set_project_out(all, isl_dim_set, 0, np);
	if (isl_set_is_bounded(all) == isl_bool_true)
		cnt = isl_set_count_val(all);
	if (cnt && isl_val_is_int(cnt) && isl_val_get_num_si(cnt) <= 8 &&
	    isl_set_foreach_point(all, &add_offset_fact, &data) < 0)
		data.r = -1;
	isl_val_free(cnt);
	isl_set_free(all);
	isl_set_free(data.off);
	return data.r;
}

/* Collect every fact the emitted code depends on. */
static int collect_facts(struct dmd_model *m)
{
	int i, d, r = 0;
	char what[256];

	for (i = 0; i < m->job->n_tensors; ++i) {
		struct dmd_tensor *t = &m->job->tensors[i];
		if (!m->dist[i].is_input && !m->dist[i].is_output)
			continue;
		for (d = 0; d < t->ndim; ++d) {
			snprintf(what, sizeof(what), "%s's block origin "
				"along dim %d", t->name, d);
			r |= dmd_part_add_pw_aff_facts(m, what,
				m->dist[i].lo[d]);
			snprintf(what, sizeof(what), "%s's block extent "
				"along dim %d", t->name, d);
			r |= dmd_part_add_pw_aff_facts(m, what,
				m->dist[i].ext[d]);
		}
		if (m->dist[i].is_output && t->file) {
			snprintf(what, sizeof(what), "writes %s", t->name);
			r |= dmd_part_add_fact(m, what,
				isl_set_copy(m->dist[i].writer));
		}
	}
	for (i = 0; i < m->n_xfer; ++i) {
		struct dmd_xfer *x = &m->xfer[i];
		const char *tn = m->job->tensors[x->tensor].name;
		int nd = m->job->tensors[x->tensor].ndim;
		if (x->kind == DMD_XFER_LOCAL)
			continue;
		for (d = 0; d < nd; ++d) {
			snprintf(what, sizeof(what), "the %s box needed "
				"along dim %d", tn, d);
			r |= dmd_part_add_pw_aff_facts(m, what,
				x->need_lo[d]);
			r |= dmd_part_add_pw_aff_facts(m, what,
				x->need_ext[d]);
		}
		if (x->root) {
			snprintf(what, sizeof(what), "the root of %s's "
				"broadcast", tn);
			r |= dmd_part_add_pw_aff_facts(m, what, x->root);
		}
		if (x->p2p) {
			struct dmd_p2p *p = x->p2p;
			int len = x->level + 1;
			snprintf(what, sizeof(what), "receives %s from", tn);
			r |= add_dom_fact(m, what, p->recv_dom);
			r |= add_peer_facts(m, what, p->recv_dom, len);
			snprintf(what, sizeof(what), "sends %s to", tn);
			r |= add_dom_fact(m, what, p->send_dom);
			r |= add_peer_facts(m, what, p->send_dom, len);
			snprintf(what, sizeof(what), "copies %s from its "
				"own block", tn);
			r |= add_dom_fact(m, what, p->self_dom);
			/* the pieces' boxes follow from the roles and the
			 * extents above; where they still differ, the code
			 * of the class keeps a condition */
		}
	}
	r |= dmd_part_add_fact(m, "computes", isl_set_copy(m->comp_ranks));
	if (m->gemm) {
		static const char *nm[3] = { "M", "N", "K" };
		for (d = 0; d < 3; ++d) {
			snprintf(what, sizeof(what), "the GEMM's %s", nm[d]);
			r |= dmd_part_add_pw_aff_facts(m, what,
				m->gemm->ext[d]);
			snprintf(what, sizeof(what), "the GEMM's origin "
				"along %s", nm[d]);
			r |= dmd_part_add_pw_aff_facts(m, what,
				m->gemm->lo[d]);
		}
	} else {
		/* bounds of each time loop */
		isl_set *dom = isl_map_range(isl_map_copy(m->rsched));
		for (d = 0; d < m->n_time; ++d) {
			isl_pw_aff *mn = isl_set_dim_min(isl_set_copy(dom), d);
			isl_pw_aff *mx = isl_set_dim_max(isl_set_copy(dom), d);
			snprintf(what, sizeof(what), "the first value of "
				"loop %s", m->loops[m->time_loop[d]].name);
			r |= dmd_part_add_pw_aff_facts(m, what, mn);
			snprintf(what, sizeof(what), "the last value of "
				"loop %s", m->loops[m->time_loop[d]].name);
			r |= dmd_part_add_pw_aff_facts(m, what, mx);
			isl_pw_aff_free(mn);
			isl_pw_aff_free(mx);
		}
		isl_set_free(dom);
	}
	return r ? -1 : 0;
}

/* Split the cells by every fact. */
static int refine(struct dmd_model *m, isl_set ***cells_p, int *n_p)
{
	isl_set **cells = malloc(sizeof(isl_set *));
	int n = 1, f, i;

	cells[0] = isl_set_copy(m->mesh);
	for (f = 0; f < m->n_fact; ++f) {
		isl_set **next = malloc(2 * n * sizeof(isl_set *));
		int k = 0;
		for (i = 0; i < n; ++i) {
			isl_set *in = isl_set_intersect(isl_set_copy(cells[i]),
				isl_set_copy(m->fact[f].set));
			isl_set *out = isl_set_subtract(cells[i],
				isl_set_copy(m->fact[f].set));
			if (isl_set_is_empty(in))
				isl_set_free(in);
			else
				next[k++] = isl_set_coalesce(in);
			if (isl_set_is_empty(out))
				isl_set_free(out);
			else
				next[k++] = isl_set_coalesce(out);
		}
		free(cells);
		cells = next;
		n = k;
	}
	*cells_p = cells;
	*n_p = n;
	return 0;
}

/* qsort order of ranks. */
static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *) a, y = *(const long *) b;
	return x < y ? -1 : x > y;
}

struct rank_data {
	struct dmd_model *m;
	long *ranks;
	long n;
};

/* Add the row-major rank of mesh point "pnt" to the list. */
static isl_stat add_rank(__isl_take isl_point *pnt, void *user)
{
	struct rank_data *d = user;
	long r = 0;
	int i;

	for (i = 0; i < d->m->job->n_axes; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_set, i);
		r = r * d->m->job->mesh_shape[i] + isl_val_get_num_si(v);
		isl_val_free(v);
	}
	d->ranks[d->n++] = r;
	isl_point_free(pnt);
	return isl_stat_ok;
}

/* The ranks of class "c" as sorted inclusive ranges (this lists the
 * output, so it is linear in the class's size). */
int dmd_part_rank_ranges(struct dmd_model *m, struct dmd_class *c)
{
	struct rank_data d = { m, NULL, 0 };
	isl_set *s;
	long i;
	int np = m->job->n_axes;

	d.ranks = malloc((m->job->nranks + 1) * sizeof(long));
	s = isl_set_move_dims(isl_set_copy(c->set), isl_dim_set, 0,
		isl_dim_param, 0, np);
	if (isl_set_foreach_point(s, &add_rank, &d) < 0) {
		isl_set_free(s);
		free(d.ranks);
		return -1;
	}
	isl_set_free(s);
	qsort(d.ranks, d.n, sizeof(long), &cmp_long);
	c->count = d.n;
	c->n_ranges = 0;
	c->ranges = malloc((d.n + 1) * sizeof(*c->ranges));
	for (i = 0; i < d.n; ++i) {
		if (c->n_ranges &&
		    c->ranges[c->n_ranges - 1][1] + 1 == d.ranks[i])
			c->ranges[c->n_ranges - 1][1] = d.ranks[i];
		else {
			c->ranges[c->n_ranges][0] = d.ranks[i];
			c->ranges[c->n_ranges][1] = d.ranks[i];
			c->n_ranges++;
		}
	}
	free(d.ranks);
	return 0;
}

/* The value of quantity "pa" on the ranks of "set", as C text ("63",
 * "201 * x"), or NULL if it depends on time. */
static char *value_on(__isl_keep isl_pw_aff *pa, __isl_keep isl_set *set)
{
	isl_ast_build *build;
	isl_ast_expr *e;
	isl_pw_aff *g;
	char *s;

	if (isl_pw_aff_dim(pa, isl_dim_in) != 0)
		return NULL;
	build = isl_ast_build_from_context(isl_set_copy(set));
	g = isl_pw_aff_intersect_params(isl_pw_aff_copy(pa),
		isl_set_copy(set));
	e = isl_ast_build_expr_from_pw_aff(build, g);
	s = isl_ast_expr_to_C_str(e);
	isl_ast_expr_free(e);
	isl_ast_build_free(build);
	return s;
}

/* Explain class "set" in words: for each fact that splits the mesh, the
 * value of its quantity on these ranks ("X's block extent along dim 0 =
 * 63") or whether they play its role ("no: receives A from x - 1"). */
static char *explain(struct dmd_model *m, __isl_keep isl_set *set)
{
	char *s = strdup(""), *t, *v;
	int f, g, n = 0;

	for (f = 0; f < m->n_fact; ++f) {
		isl_bool in;
		int dup = 0;
		for (g = 0; g < f; ++g)
			if (!strcmp(m->fact[g].what, m->fact[f].what))
				dup = 1;
		if (dup)
			continue;
		if (m->fact[f].pa) {
			v = value_on(m->fact[f].pa, set);
			if (!v)
				continue;
			t = dmd_strdup_printf("%s%s%s = %s", s, n ? "; " : "",
				m->fact[f].what, v);
			free(v);
		} else {
			in = isl_set_is_subset(set, m->fact[f].set);
			t = dmd_strdup_printf("%s%s%s: %s", s, n ? "; " : "",
				m->fact[f].what,
				in == isl_bool_true ? "yes" : "no");
		}
		free(s);
		s = t;
		n++;
	}
	if (!n) {
		free(s);
		s = strdup("every extent, bound and transfer role is the same "
			"on these ranks");
	}
	return s;
}

/* Order classes by their first rank. */
static int cmp_class(const void *a, const void *b)
{
	const struct dmd_class *x = a, *y = b;
	return x->ranges[0][0] < y->ranges[0][0] ? -1 :
		x->ranges[0][0] > y->ranges[0][0];
}

/* Find the rank classes: refine the mesh by the facts, emit the code of
 * each cell, and merge cells whose code is identical. */
int dmd_part_classes(struct dmd_model *m)
{
	isl_set **cells;
	char **code;
	int n, i, j, *rep;

	if (collect_facts(m) < 0)
		return -1;
	if (refine(m, &cells, &n) < 0)
		return -1;
	if (getenv("DMD_DEBUG"))
		fprintf(stderr, "distmpmd: %d facts, %d cells\n", m->n_fact,
			n);
	code = calloc(n, sizeof(char *));
	rep = calloc(n, sizeof(int));
	for (i = 0; i < n; ++i) {
		code[i] = dmd_emit_body(m, cells[i]);
		if (!code[i])
			goto error;
	}
	/* merge identical code */
	m->cls = calloc(n, sizeof(*m->cls));
	m->n_class = 0;
	for (i = 0; i < n; ++i) {
		rep[i] = -1;
		for (j = 0; j < m->n_class; ++j)
			if (!strcmp(code[i], m->cls[j].code))
				break;
		if (j < m->n_class) {
			m->cls[j].set = isl_set_coalesce(isl_set_union(
				m->cls[j].set, isl_set_copy(cells[i])));
			rep[i] = j;
			continue;
		}
		m->cls[m->n_class].set = isl_set_copy(cells[i]);
		m->cls[m->n_class].code = code[i];
		code[i] = NULL;
		rep[i] = m->n_class;
		m->n_class++;
	}
	/* number the classes by their first rank, then wrap each body (the
	 * same for all the cells of the class) in its header */
	for (j = 0; j < m->n_class; ++j)
		if (dmd_part_rank_ranges(m, &m->cls[j]) < 0)
			goto error;
	qsort(m->cls, m->n_class, sizeof(*m->cls), &cmp_class);
	for (j = 0; j < m->n_class; ++j) {
		struct dmd_class *c = &m->cls[j];
		char *body = c->code;
		c->why = explain(m, c->set);
		c->code = dmd_emit_file(m, c, j, m->n_class, body);
		free(body);
		if (!c->code)
			goto error;
	}
	for (i = 0; i < n; ++i) {
		isl_set_free(cells[i]);
		free(code[i]);
	}
	free(cells);
	free(code);
	free(rep);
	return 0;
error:
	for (i = 0; i < n; ++i) {
		isl_set_free(cells[i]);
		free(code[i]);
	}
	free(cells);
	free(code);
	free(rep);
	return -1;
}
