/* dmd_part_fact.c: the facts the emitted code depends on.
 *
 * A fact is a set of ranks: the pieces of every quantity the code prints
 * (block and buffer origins and extents, transfer boxes, broadcast roots,
 * GEMM extents, loop bounds) and, for every transfer, the ranks that send,
 * receive or copy in it (and to which peer offset, when there are few).
 * For "tail" (127 rows over 2 ranks):
 *   X's block extent along dim 0: [c_x] -> { [(64)] : c_x = 0;
 *                                            [(63)] : c_x = 1 }
 * gives the facts { : c_x = 0 } and { : c_x = 1 }.  Facts are built from
 * the plan only, never from printed code.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/point.h>
#include <isl/local_space.h>
#include <isl/ast.h>
#include <isl/ast_build.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* A fact's name from "fmt" (malloc'ed; NULL if out of memory). */
static char *dmd_fact_name(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *dmd_fact_name(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* What the collection of facts carries. */
struct dmd_fact_build {
	const struct dmd_model *m;
	struct dmd_facts *facts;
};

/* Record that the code depends on whether a rank lies in "set" (a fact
 * true on every rank or on none is no fact; a set already recorded under
 * the same name is not recorded twice).  "pa": the quantity it is a
 * piece of, or NULL. */
static int dmd_fact_add(struct dmd_fact_build *b, const char *what,
	__isl_take isl_set *set, __isl_keep isl_pw_aff *pa)
{
	const struct dmd_model *m = b->m;
	struct dmd_facts *f = b->facts;
	struct dmd_fact *nf;
	isl_set *rest;
	int triv, i;

	if (!what) {
		isl_set_free(set);
		return -1;
	}
	set = isl_set_coalesce(isl_set_intersect(set,
		isl_set_copy(m->mesh->set)));
	rest = isl_set_subtract(isl_set_copy(m->mesh->set), isl_set_copy(set));
	triv = dmd_isl_bool(isl_set_is_empty(set));
	if (triv == 0)
		triv = dmd_isl_bool(isl_set_is_empty(rest));
	isl_set_free(rest);
	for (i = 0; triv == 0 && i < f->n; ++i)
		if (!strcmp(f->f[i].what, what))
			triv = dmd_isl_bool(isl_set_is_equal(f->f[i].set,
				set));
	if (triv != 0) {
		isl_set_free(set);
		return triv < 0 ? -1 : 0;
	}
	nf = realloc(f->f, (f->n + 1) * sizeof(*nf));
	if (!nf) {
		isl_set_free(set);
		return -1;
	}
	f->f = nf;
	nf = &f->f[f->n++];
	nf->what = strdup(what);
	nf->set = set;
	nf->pa = pa ? isl_pw_aff_copy(pa) : NULL;
	return nf->what ? 0 : -1;
}

/* What dmd_fact_piece needs. */
struct dmd_fact_piece_data {
	struct dmd_fact_build *b;
	const char *what;
	isl_pw_aff *pa;
	int r;
};

/* Record the projection onto the mesh of one piece of a quantity. */
static isl_stat dmd_fact_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_fact_piece_data *data = user;

	isl_aff_free(aff);
	if (dmd_fact_add(data->b, data->what, isl_set_params(set),
			data->pa) < 0)
		data->r = -1;
	return isl_stat_ok;
}

/* Record the pieces of quantity "pa" (over the mesh, possibly over time
 * too): each piece's projection onto the mesh is a fact, and so are the
 * ranks where it is defined. */
static int dmd_fact_pw_aff(struct dmd_fact_build *b, const char *what,
	__isl_keep isl_pw_aff *pa)
{
	struct dmd_fact_piece_data data = { b, what, NULL, 0 };
	isl_pw_aff *p;

	if (!what)
		return -1;
	if (!pa)
		return 0;
	p = isl_pw_aff_coalesce(isl_pw_aff_gist_params(isl_pw_aff_copy(pa),
		isl_set_copy(b->m->mesh->set)));
	data.pa = p;
	if (isl_pw_aff_foreach_piece(p, &dmd_fact_piece, &data) < 0)
		data.r = -1;
	if (data.r == 0 && dmd_fact_add(b, what, isl_set_params(
			isl_pw_aff_domain(isl_pw_aff_copy(p))), p) < 0)
		data.r = -1;
	isl_pw_aff_free(p);
	return data.r;
}

/* The ranks with some point in "dom" (a role: receives, sends...). */
static int dmd_fact_role(struct dmd_fact_build *b, const char *what,
	__isl_keep isl_set *dom)
{
	if (!what)
		return -1;
	if (!dom)
		return 0;
	return dmd_fact_add(b, what, isl_set_params(isl_set_copy(dom)), NULL);
}

/* What dmd_fact_offset needs. */
struct dmd_fact_offset_data {
	struct dmd_fact_build *b;
	const char *what;
	isl_set *off;			/* [c] -> { [d] : a peer at c + d } */
	int r;
};

/* The fact of one peer offset, e.g. [-1]: the ranks that talk to the
 * peer at x - 1 ("receives A from x - 1"). */
static isl_stat dmd_fact_offset(__isl_take isl_point *pnt, void *user)
{
	struct dmd_fact_offset_data *data = user;
	const struct dmd_model *m = data->b->m;
	isl_set *pt = isl_set_from_point(pnt), *who;
	char *w, *s;
	size_t n;
	int d;

	n = strlen(data->what) + 2;
	for (d = 0; d < m->mesh->n; ++d)
		n += strlen(m->job->axes[d]) + 32;
	w = malloc(n);
	if (!w) {
		isl_set_free(pt);
		data->r = -1;
		return isl_stat_ok;
	}
	s = w + snprintf(w, n, "%s", data->what);
	for (d = 0; d < m->mesh->n; ++d) {
		isl_val *v = isl_set_plain_get_val_if_fixed(pt, isl_dim_set, d);
		long o = v ? isl_val_get_num_si(v) : 0;

		isl_val_free(v);
		if (o)
			s += snprintf(s, n - (s - w), "%s %s %c %ld",
				s > w + strlen(data->what) ? "," : "",
				m->job->axes[d], o > 0 ? '+' : '-',
				o > 0 ? o : -o);
	}
	pt = isl_set_align_params(pt, isl_set_get_space(data->off));
	who = isl_set_params(isl_set_intersect(isl_set_copy(data->off), pt));
	if (dmd_fact_add(data->b, w, who, NULL) < 0)
		data->r = -1;
	free(w);
	return isl_stat_ok;
}

/* The peer offsets of a send or receive domain [c] -> { X[t, p] }:
 * { [p - c] }; each offset gives a fact, the ranks that talk to the peer
 * at that offset (the edges of a halo have fewer).  Only a few offsets
 * (at most 8) are expected; with more, none is recorded. */
static int dmd_fact_peers(struct dmd_fact_build *b, const char *what,
	__isl_keep isl_set *dom, int len)
{
	const struct dmd_model *m = b->m;
	struct dmd_fact_offset_data data = { b, what, NULL, 0 };
	isl_set *all;
	isl_val *cnt = NULL;
	int np = m->mesh->n, i;

	if (!what)
		return -1;
	if (!dom)
		return 0;
	/* [c] -> { [p - c] } */
	data.off = isl_set_project_out(isl_set_copy(dom), isl_dim_set, 0, len);
	data.off = isl_set_reset_tuple_id(data.off);
	{
		isl_space *sp = isl_set_get_space(data.off);
		isl_multi_aff *ma;
		isl_aff_list *list = isl_aff_list_alloc(m->ctx, np);
		isl_local_space *ls = isl_local_space_from_space(
			isl_space_copy(sp));

		for (i = 0; i < np; ++i) {
			isl_aff *a = isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_set, i);

			a = isl_aff_sub(a, isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_param, i));
			list = isl_aff_list_add(list, a);
		}
		isl_local_space_free(ls);
		ma = isl_multi_aff_from_aff_list(isl_space_map_from_set(sp),
			list);
		data.off = isl_set_apply(data.off, isl_map_from_multi_aff(ma));
	}
	all = isl_set_project_out_all_params(isl_set_copy(data.off));
	if (isl_set_is_bounded(all) == isl_bool_true)
		cnt = isl_set_count_val(all);
	/* in lexicographic order of the offsets, whatever isl's */
	if (cnt && isl_val_is_int(cnt) && isl_val_get_num_si(cnt) <= 8) {
		isl_bool empty;

		while ((empty = isl_set_is_empty(all)) == isl_bool_false) {
			isl_set *first = isl_set_lexmin(isl_set_copy(all));

			dmd_fact_offset(isl_set_sample_point(
				isl_set_copy(first)), &data);
			all = isl_set_subtract(all, first);
		}
		if (empty < 0)
			data.r = -1;
	}
	isl_val_free(cnt);
	isl_set_free(all);
	isl_set_free(data.off);
	return data.r;
}

/* The facts of point-to-point pieces "p" of transfer "x" (named "tn"). */
static int dmd_fact_p2p(struct dmd_fact_build *b, const struct dmd_xfer *x,
	const struct dmd_p2p *p, const char *tn)
{
	char *what = NULL;
	int r = 0, len = x->level + 1;

	free(what);
	what = dmd_fact_name("receives %s from", tn);
	r |= dmd_fact_role(b, what, p->recv_dom);
	r |= dmd_fact_peers(b, what, p->recv_dom, len);
	free(what);
	what = dmd_fact_name("sends %s to", tn);
	r |= dmd_fact_role(b, what, p->send_dom);
	r |= dmd_fact_peers(b, what, p->send_dom, len);
	free(what);
	what = dmd_fact_name("copies %s from its own block", tn);
	r |= dmd_fact_role(b, what, p->self_dom);
	free(what);
	return r ? -1 : 0;
}

/* The facts of transfer "x". */
static int dmd_fact_xfer(struct dmd_fact_build *b, const struct dmd_xfer *x)
{
	const struct dmd_model *m = b->m;
	const char *tn = m->job->tensors[x->tensor].name;
	char *what = NULL;
	int r = 0, d;

	for (d = 0; d < x->box.n; ++d) {
		const char *v = x->use == DMD_USE_RETURN ? "computed" :
			"needed";

		free(what);
		what = dmd_fact_name("the origin of the %s box %s in "
			"step %d along dim %d", tn, v, x->step + 1, d);
		r |= dmd_fact_pw_aff(b, what, x->box.lo[d]);
		free(what);
		what = dmd_fact_name("the extent of the %s box %s in "
			"step %d along dim %d", tn, v, x->step + 1, d);
		r |= dmd_fact_pw_aff(b, what, x->box.ext[d]);
	}
	if (x->root) {
		free(what);
		what = dmd_fact_name("the root of %s's broadcast", tn);
		r |= dmd_fact_pw_aff(b, what, x->root);
	}
	free(what);
	if (x->first)
		r |= dmd_fact_p2p(b, x, x->first, tn);
	if (x->p2p)
		r |= dmd_fact_p2p(b, x, x->p2p, tn);
	return r ? -1 : 0;
}

/* The facts of step plan "sp". */
static int dmd_fact_step(struct dmd_fact_build *b,
	const struct dmd_step_plan *sp)
{
	const struct dmd_model *m = b->m;
	const struct dmd_poly *p = m->poly[sp->step];
	char *what = NULL;
	int r = 0, d;

	free(what);
	what = dmd_fact_name("computes in step %d", sp->step + 1);
	r |= dmd_fact_add(b, what, isl_set_copy(sp->comp), NULL);
	if (sp->zero) {
		free(what);
		what = dmd_fact_name("clears its %s before step %d",
			m->job->tensors[p->out].name, sp->step + 1);
		r |= dmd_fact_role(b, what, sp->zero);
	}
	if (sp->gemm) {
		static const char *nm[3] = { "M", "N", "K" };

		for (d = 0; d < 3; ++d) {
			free(what);
			what = dmd_fact_name("the GEMM's %s in step "
				"%d", nm[d], sp->step + 1);
			r |= dmd_fact_pw_aff(b, what, sp->gemm->ext[d]);
			free(what);
			what = dmd_fact_name("the GEMM's origin along "
				"%s in step %d", nm[d], sp->step + 1);
			r |= dmd_fact_pw_aff(b, what, sp->gemm->lo[d]);
		}
		for (d = 0; sp->gemm->org && d < 6; ++d) {
			static const char *op[3] = { "A", "B", "C" };

			free(what);
			what = dmd_fact_name("the GEMM's origin of %s along "
				"its dimension %d in step %d", op[d / 2], d % 2,
				sp->step + 1);
			r |= dmd_fact_pw_aff(b, what,
				sp->gemm->org[d / 2][d % 2]);
		}
		free(what);
		return r ? -1 : 0;
	}
	for (d = 0; d < p->n_time; ++d) {
		isl_pw_aff *mn, *mx;

		mn = isl_set_dim_min(isl_set_copy(sp->time), d);
		mx = isl_set_dim_max(isl_set_copy(sp->time), d);
		free(what);
		what = dmd_fact_name("the first value of loop %s",
			p->loops[p->time_loop[d]].name);
		r |= dmd_fact_pw_aff(b, what, mn);
		free(what);
		what = dmd_fact_name("the last value of loop %s",
			p->loops[p->time_loop[d]].name);
		r |= dmd_fact_pw_aff(b, what, mx);
		isl_pw_aff_free(mn);
		isl_pw_aff_free(mx);
	}
	free(what);
	return r ? -1 : 0;
}

/* Collect every fact the emitted code of "plan" depends on. */
static __isl_give struct dmd_facts *dmd_fact_all(const struct dmd_plan *plan)
{
	const struct dmd_model *m = plan->m;
	struct dmd_fact_build b = { m, NULL };
	char *what = NULL;
	int t, d, i, r = 0;

	b.facts = calloc(1, sizeof(*b.facts));
	if (!b.facts)
		return NULL;
	for (t = 0; t < m->job->n_tensors; ++t) {
		const char *tn = m->job->tensors[t].name;

		if (!m->use[t].used)
			continue;
		for (d = 0; d < m->lay[t]->ndim; ++d) {
			free(what);
			what = m->lay[t]->cyc[d] ?
				dmd_fact_name("%s's local origin along dim "
					"%d (%ld per cyclic holder)",
					tn, d, m->lay[t]->cyc_L[d]) :
				dmd_fact_name("%s's block origin along dim "
					"%d", tn, d);
			r |= dmd_fact_pw_aff(&b, what, m->lay[t]->lo[d]);
			free(what);
			what = dmd_fact_name(m->lay[t]->cyc[d] ?
				"%s's elements held along dim %d" :
				"%s's block extent along dim %d", tn, d);
			r |= dmd_fact_pw_aff(&b, what, m->lay[t]->ext[d]);
			if (!plan->ghost[t])
				continue;
			free(what);
			what = dmd_fact_name("%s's buffer origin "
				"along dim %d", tn, d);
			r |= dmd_fact_pw_aff(&b, what, plan->home[t].lo[d]);
			free(what);
			what = dmd_fact_name("%s's buffer extent "
				"along dim %d", tn, d);
			r |= dmd_fact_pw_aff(&b, what, plan->home[t].ext[d]);
		}
		if (m->use[t].output) {
			free(what);
			what = dmd_fact_name("writes %s", tn);
			r |= dmd_fact_add(&b, what,
				isl_set_copy(m->lay[t]->writer), NULL);
		}
	}
	free(what);
	for (i = 0; i < plan->n_xfer; ++i)
		r |= dmd_fact_xfer(&b, plan->xfer[i]);
	for (i = 0; i < plan->n_step; ++i)
		r |= dmd_fact_step(&b, &plan->steps[i]);
	if (r)
		return dmd_part_facts_free(b.facts);
	return b.facts;
}

/* The facts of "plan" in *facts: DMD_OK or DMD_INTERNAL. */
enum dmd_status dmd_part_facts(const struct dmd_plan *plan,
	__isl_give struct dmd_facts **facts)
{
	*facts = dmd_fact_all(plan);
	return *facts ? DMD_OK : DMD_INTERNAL;
}

/* Release "facts"; returns NULL. */
__isl_null struct dmd_facts *dmd_part_facts_free(
	__isl_take struct dmd_facts *facts)
{
	int i;

	if (!facts)
		return NULL;
	for (i = 0; i < facts->n; ++i) {
		free(facts->f[i].what);
		isl_set_free(facts->f[i].set);
		isl_pw_aff_free(facts->f[i].pa);
	}
	free(facts->f);
	free(facts);
	return NULL;
}

/* The value of parameter-only quantity "pa" on the ranks of "set", as C
 * with the job's axis names ("63", "201 * x"), or NULL if it depends on
 * time. */
static char *dmd_fact_value(const struct dmd_model *m,
	__isl_keep isl_pw_aff *pa, __isl_keep isl_set *set)
{
	isl_ast_build *build;
	isl_ast_expr *e;
	isl_pw_aff *g;
	isl_set *ctx;
	char *s;
	int i;

	if (isl_pw_aff_dim(pa, isl_dim_in) != 0)
		return NULL;
	ctx = dmd_mesh_display(m->mesh, m->job, isl_set_copy(set));
	g = isl_pw_aff_project_domain_on_params(isl_pw_aff_copy(pa));
	g = isl_pw_aff_align_params(g, isl_space_copy(m->mesh->space));
	for (i = 0; i < m->mesh->n; ++i)
		g = isl_pw_aff_set_dim_id(g, isl_dim_param, i,
			isl_id_alloc(m->ctx, m->job->axes[i], NULL));
	g = isl_pw_aff_intersect_params(g, isl_set_copy(ctx));
	if (isl_pw_aff_is_empty(g) != isl_bool_false) {
		isl_pw_aff_free(g);
		isl_set_free(ctx);
		return NULL;
	}
	build = isl_ast_build_from_context(ctx);
	e = isl_ast_build_expr_from_pw_aff(build, g);
	s = isl_ast_expr_to_C_str(e);
	isl_ast_expr_free(e);
	isl_ast_build_free(build);
	return s;
}

/* Append "text" to the malloc'ed string "s" (freed); NULL if out of
 * memory or "text" is NULL. */
static char *dmd_fact_cat(char *s, const char *text)
{
	char *t;

	if (!s || !text) {
		free(s);
		return NULL;
	}
	t = realloc(s, strlen(s) + strlen(text) + 1);
	if (!t) {
		free(s);
		return NULL;
	}
	return strcat(t, text);
}

/* Add "fact" (taken) to "why"; -1 if it is NULL or out of memory. */
static int dmd_why_add(struct dmd_why *why, char *fact)
{
	char **l;

	if (!fact)
		return -1;
	l = realloc(why->fact, (why->n + 1) * sizeof(*l));
	if (!l) {
		free(fact);
		return -1;
	}
	why->fact = l;
	why->fact[why->n++] = fact;
	return 0;
}

/* Is "s" a plain decimal integer?  Then store it in *v. */
static int dmd_fact_long(const char *s, long *v)
{
	char *end;

	*v = strtol(s, &end, 10);
	return *s && !*end;
}

/* The line of "set"'s blocks of cyclic tensor "t": "A: dim 0: 2
 * blocks of 2 (dealt over 2 holders), dim 1: 2 blocks of 3 (dealt over
 * 2 holders); 4 x 5 elements" (the number of blocks ceil(ext / S) of
 * the local extent ext, which the last block may leave short).  NULL if
 * out of memory. */
static char *dmd_fact_blocks(const struct dmd_model *m, int t,
	__isl_keep isl_set *set)
{
	const struct dmd_layout *lay = m->lay[t];
	char *s = strdup(m->job->tensors[t].name), buf[128];
	long ext;
	int d, one;

	s = dmd_fact_cat(s, ":");
	for (d = 0; s && d < lay->ndim; ++d) {
		isl_pw_aff *nb;
		char *v;

		snprintf(buf, sizeof(buf), "%s dim %d: ", d ? "," : "", d);
		s = dmd_fact_cat(s, buf);
		if (!lay->cyc[d]) {
			s = dmd_fact_cat(s, "1 block");
			continue;
		}
		nb = isl_pw_aff_ceil(isl_pw_aff_scale_down_val(
			isl_pw_aff_copy(lay->ext[d]), isl_val_int_from_si(
				m->ctx, lay->cyc[d])));
		v = dmd_fact_value(m, nb, set);
		isl_pw_aff_free(nb);
		s = dmd_fact_cat(s, v ? v : "?");
		snprintf(buf, sizeof(buf), " block%s of %ld",
			v && !strcmp(v, "1") ? "" : "s", lay->cyc[d]);
		s = dmd_fact_cat(s, buf);
		free(v);
		/* the last block short: "2 blocks of 2, the last of 1" */
		v = dmd_fact_value(m, lay->ext[d], set);
		if (v && dmd_fact_long(v, &ext) && ext % lay->cyc[d]) {
			snprintf(buf, sizeof(buf), ", the last of %ld",
				ext % lay->cyc[d]);
			s = dmd_fact_cat(s, buf);
		}
		free(v);
		snprintf(buf, sizeof(buf), " (dealt over %ld holders)",
			lay->cyc_B[d]);
		s = dmd_fact_cat(s, buf);
	}
	s = dmd_fact_cat(s, ";");
	one = lay->ndim == 1;
	for (d = 0; s && d < lay->ndim; ++d) {
		char *v = dmd_fact_value(m, lay->ext[d], set);

		s = dmd_fact_cat(s, d ? " x " : " ");
		s = dmd_fact_cat(s, v ? v : "?");
		one = one && v && !strcmp(v, "1");
		free(v);
	}
	return dmd_fact_cat(s, one ? " element" : " elements");
}

/* The blocks each used tensor with a cyclic dimension holds on the
 * ranks of "set" into "blocks" (empty on entry), one line per tensor
 * (dmd_fact_blocks); none if no tensor is cyclic.  Returns 0, or -1
 * (out of memory; "blocks" holds what was added). */
int dmd_part_blocks(const struct dmd_model *m, __isl_keep isl_set *set,
	struct dmd_why *blocks)
{
	int t;

	for (t = 0; t < m->job->n_tensors; ++t) {
		const struct dmd_layout *lay = m->lay[t];

		if (!lay || !lay->local || !m->use[t].used)
			continue;
		if (dmd_why_add(blocks, dmd_fact_blocks(m, t, set)) < 0)
			return -1;
	}
	return 0;
}

/* One fact of class "set": the value of quantity "ft" on its ranks
 * ("X's block extent along dim 0 = 63"), or whether they play its role
 * ("receives A from x - 1: no").  *skip is set (and NULL returned) for a
 * quantity that depends on time. */
static char *dmd_fact_explain(const struct dmd_model *m,
	const struct dmd_fact *ft, __isl_keep isl_set *set, int *skip)
{
	char *t = NULL, *v;
	int in, out;

	*skip = 0;
	if (ft->pa) {
		v = dmd_fact_value(m, ft->pa, set);
		if (!v) {
			*skip = 1;
			return NULL;
		}
		if (asprintf(&t, "%s = %s", ft->what, v) < 0)
			t = NULL;
		free(v);
		return t;
	}
	in = dmd_isl_bool(isl_set_is_subset(set, ft->set));
	out = dmd_isl_bool(isl_set_is_disjoint(set, ft->set));
	if (asprintf(&t, "%s: %s", ft->what, in == 1 ? "yes" : out == 1 ?
			"no" : "on some of these ranks") < 0)
		t = NULL;
	return t;
}

/* Explain class "set" in words into "why" (empty on entry), one fact
 * per quantity that splits the mesh (dmd_fact_explain), each quantity
 * once; a class that no fact tells apart gets the one fact that says so.
 * Returns 0, or -1 (out of memory; "why" holds what was added). */
int dmd_part_explain(const struct dmd_model *m,
	const struct dmd_facts *facts, __isl_keep isl_set *set,
	struct dmd_why *why)
{
	int f, g, skip;
	char *t;

	for (f = 0; f < facts->n; ++f) {
		const struct dmd_fact *ft = &facts->f[f];

		for (g = 0; g < f; ++g)
			if (!strcmp(facts->f[g].what, ft->what))
				break;
		if (g < f)
			continue;
		t = dmd_fact_explain(m, ft, set, &skip);
		if (!skip && dmd_why_add(why, t) < 0)
			return -1;
	}
	if (why->n == 0)
		return dmd_why_add(why, strdup("every extent, bound and "
			"transfer role is the same on these ranks"));
	return 0;
}

/* The facts of "why" on one line, separated by "; " (malloc'ed). */
char *dmd_part_why_line(const struct dmd_why *why)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < why->n; ++i)
		len += strlen(why->fact[i]) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < why->n; ++i) {
		if (i)
			strcat(s, "; ");
		strcat(s, why->fact[i]);
	}
	return s;
}

/* Release the facts of "why" and empty it. */
void dmd_part_why_clear(struct dmd_why *why)
{
	int i;

	for (i = 0; i < why->n; ++i)
		free(why->fact[i]);
	free(why->fact);
	why->n = 0;
	why->fact = NULL;
}
