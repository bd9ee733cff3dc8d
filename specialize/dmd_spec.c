/* dmd_spec.c: the program of one cell, step by step: statements placed
 * in one schedule (2d+1 form) and the isl AST generated with the cell as
 * context.
 *
 * The schedule space of a step with K printed time loops t and np mesh
 * axes is [b0, t0, b1, t1, ..., b_K, p0, .., p_(np-1)]: b_l orders the
 * statements of level l (before the loop nest: b_l < NEST; the nest:
 * b_l = NEST; after it: b_l > NEST), the p are the peers of
 * point-to-point pieces; a GEMM leaf cut in pieces (dmd_gemm_plan.n_piece)
 * adds [g_i, g_j, g_k], the origins of its pieces.  PUMMA's B (broadcast at kor) and the GEMM:
 *   { s1[kor] -> [N, kor - 1, 1, 0, ..] : kor >= 1 (post, pipelined);
 *     s2[kor] -> [N, kor, 0, 0, ..] (wait); G[kor] -> [N, kor, N, ..] }
 * Under the context [c_x, c_y] -> { : c_x = 1 and c_y = 0 }, guards that
 * hold for the whole cell disappear and the coordinates fold into
 * constants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/local_space.h>
#include <isl/options.h>
#include <isl/union_map.h>

#include "specialize/dmd_spec.h"
#include "ir/dmd_isl.h"

/* The value of b_l for the loop nest: after every statement before it. */
#define DMD_SPEC_NEST (1 << 20)

/* What the build of one step's program carries. */
struct dmd_spec_build {
	struct dmd_spec *spec;
	const struct dmd_model *m;
	const struct dmd_poly *p;
	const struct dmd_step_plan *sp;
	struct dmd_spec_step *ss;
	int K;				/* printed time loops */
	int n_sched;			/* dimensions of the schedule */
	int n_piece;			/* the GEMM's piece dimensions */
	long *slot;			/* next free b_l per level */
	long after;			/* next b_0 after the nest */
	isl_union_map *sched;
	int view;			/* the code in the coordinates of this
					 * view (-1: of the mesh) */
	int err;
};

static __isl_give isl_set *dmd_spec_context(struct dmd_spec_build *b);

/* A new statement of kind "kind" for transfer "x" (or NULL). */
static struct dmd_spec_stmt *dmd_spec_add(struct dmd_spec_build *b,
	enum dmd_spec_kind kind, struct dmd_xfer *x, int pipe)
{
	struct dmd_spec_step *ss = b->ss;
	struct dmd_spec_stmt *s;
	char name[32];

	s = realloc(ss->stmt, (ss->n_stmt + 1) * sizeof(*s));
	if (!s) {
		b->err = 1;
		return NULL;
	}
	ss->stmt = s;
	s = &ss->stmt[ss->n_stmt];
	memset(s, 0, sizeof(*s));
	snprintf(name, sizeof(name), "s%d", ss->n_stmt);
	s->name = strdup(name);
	s->kind = kind;
	s->xfer = x;
	s->pipe = pipe;
	ss->n_stmt++;
	if (!s->name)
		b->err = 1;
	return s;
}

/* Append "pa" (a quantity over the statement's domain, whose tuple is
 * renamed to the statement's) to the quantities "s" prints. */
static void dmd_spec_push(struct dmd_spec_build *b, struct dmd_spec_stmt *s,
	__isl_take isl_pw_aff *pa)
{
	isl_pw_aff **a;

	if (!s) {
		isl_pw_aff_free(pa);
		return;
	}
	a = realloc(s->pa, (s->n_pa + 1) * sizeof(*a));
	if (!a || !pa) {
		isl_pw_aff_free(pa);
		b->err = 1;
		return;
	}
	s->pa = a;
	s->pa[s->n_pa++] = dmd_isl_pw_aff_name(pa, s->name);
}

/* Place statement "s" with domain "dom" (tuple renamed to s's name; its
 * first "len" dimensions time, then "npeer" peers, or for a GEMM leaf cut
 * in pieces, the pieces' origins, in the last b->n_piece dimensions of
 * the schedule) at level "level", slot "slot": the first "level" time
 * dimensions are loops around it (the last of them one earlier if s is
 * pipelined). */
static void dmd_spec_place(struct dmd_spec_build *b, struct dmd_spec_stmt *s,
	__isl_take isl_set *dom, int len, int npeer, int level, long slot)
{
	isl_space *space, *ss;
	isl_local_space *ls;
	isl_aff_list *list;
	isl_map *map;
	int j;

	if (!s) {
		isl_set_free(dom);
		return;
	}
	dom = isl_set_set_tuple_name(dom, s->name);
	dom = isl_set_intersect_params(dom, isl_set_copy(b->spec->cell));
	space = isl_set_get_space(dom);
	ls = isl_local_space_from_space(isl_space_copy(space));
	list = isl_aff_list_alloc(b->m->ctx, b->n_sched);
	for (j = 0; j <= b->K; ++j) {
		long beta = j < level ? DMD_SPEC_NEST : j == level ? slot : 0;
		isl_aff *a = isl_aff_val_on_domain(isl_local_space_copy(ls),
			isl_val_int_from_si(b->m->ctx, beta));

		list = isl_aff_list_add(list, a);
		if (j == b->K)
			break;
		if (j < level && j < len) {
			a = isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, j);
			if (s->pipe && j == level - 1)
				a = isl_aff_add_constant_si(a, -1);
		} else
			a = isl_aff_zero_on_domain(isl_local_space_copy(ls));
		list = isl_aff_list_add(list, a);
	}
	for (j = 0; j < b->m->mesh->n; ++j)
		list = isl_aff_list_add(list, j < npeer ?
			isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, len + j) :
			isl_aff_zero_on_domain(isl_local_space_copy(ls)));
	for (j = 0; j < b->n_piece; ++j)
		list = isl_aff_list_add(list, s->kind == DMD_SPEC_GEMM ?
			isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, len + j) :
			isl_aff_zero_on_domain(isl_local_space_copy(ls)));
	isl_local_space_free(ls);
	ss = isl_space_set_alloc(b->m->ctx, 0, b->n_sched);
	space = isl_space_map_from_domain_and_range(space,
		isl_space_align_params(ss, isl_set_get_space(dom)));
	map = isl_map_from_multi_aff(isl_multi_aff_from_aff_list(space, list));
	map = isl_map_intersect_domain(map, dom);
	if (isl_map_is_empty(map) == isl_bool_true) {
		isl_map_free(map);
		return;
	}
	s->dom = s->dom ? isl_set_union(s->dom, isl_map_domain(
		isl_map_copy(map))) : isl_map_domain(isl_map_copy(map));
	b->sched = isl_union_map_union(b->sched,
		isl_union_map_from_map(map));
	if (!b->sched)
		b->err = 1;
}

/* The next slot before the nest at "level". */
static long dmd_spec_slot(struct dmd_spec_build *b, int level)
{
	return b->slot[level]++;
}

/* "pa" over X[t] as a pw_aff over X[t, peer] (np more dimensions). */
static __isl_give isl_pw_aff *dmd_spec_widen(const struct dmd_model *m,
	__isl_keep isl_pw_aff *pa)
{
	return isl_pw_aff_add_dims(isl_pw_aff_copy(pa), isl_dim_in,
		m->mesh->n);
}

/* The parity quantity of transfer "x" over a domain with "extra" more
 * dimensions than its time points: t_level, or 0 before the loops. */
static __isl_give isl_pw_aff *dmd_spec_parity(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_keep isl_set *dom)
{
	isl_space *space = isl_set_get_space(dom);
	isl_pw_aff *pa;

	if (x->level < 0)
		pa = dmd_isl_cst(space, 0);
	else
		pa = dmd_isl_dim(space, x->level);
	isl_space_free(space);
	(void) m;
	return pa;
}

/* The time points of "x" that follow another one along its loop (rest),
 * or the others (first), with "np" more dimensions for peers. */
static __isl_give isl_set *dmd_spec_when(const struct dmd_xfer *x,
	int first, int np)
{
	isl_space *space = isl_set_get_space(x->dom);
	isl_multi_aff *back;
	isl_set *later;

	back = isl_multi_aff_identity(isl_space_map_from_set(space));
	back = isl_multi_aff_set_aff(back, x->level, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(back, x->level), -1));
	later = isl_set_preimage_multi_aff(isl_set_copy(x->dom), back);
	later = isl_set_intersect(later, isl_set_copy(x->dom));
	if (first)
		later = isl_set_subtract(isl_set_copy(x->dom), later);
	later = isl_set_add_dims(later, isl_dim_set, np);
	later = isl_set_set_tuple_name(later, x->name);
	return isl_set_coalesce(later);
}

/* Push the combs of "box" (one of the boxes of "p") onto "s": period,
 * phase and run per dimension, then box->runs - 1 further runs (start,
 * length), { 1, 0, 1, 0, 0, .. } along the dimensions without one;
 * nothing if "p" has no combs. */
static void dmd_spec_push_combs(struct dmd_spec_build *b,
	struct dmd_spec_stmt *s, const struct dmd_p2p *p,
	const struct dmd_box *box)
{
	int d, k;

	if (!p->combs)
		return;
	for (d = 0; d < box->n; ++d)
		for (k = 0; k < 1 + 2 * (box->runs ? box->runs : 1); ++k) {
			isl_pw_aff *c = box->comb ?
				box->comb[DMD_COMB_W * d + k] : NULL;

			if (!c)
				c = isl_pw_aff_val_on_domain(isl_pw_aff_domain(
					isl_pw_aff_copy(box->lo[d])),
					isl_val_int_from_si(isl_pw_aff_get_ctx(
					box->lo[d]), k == 0 || k == 2));
			else
				c = isl_pw_aff_copy(c);
			dmd_spec_push(b, s, c);
		}
}

/* The statements that post the pieces "p" of transfer "x" at the time
 * points "when" (NULL: all), at "level" and "pipe" as for
 * dmd_spec_place: clearing a buffer of sums, receives, sends, copies.
 * "ghost": the copies are not needed (the data is in place). */
static void dmd_spec_post_p2p(struct dmd_spec_build *b, struct dmd_xfer *x,
	struct dmd_p2p *p, __isl_keep isl_set *when, int level, int pipe)
{
	const struct dmd_model *m = b->m;
	int np = m->mesh->n, len = x->level + 1, nd = m->lay[x->tensor]->ndim;
	struct dmd_spec_stmt *s;
	isl_set *dom;
	int d;

	if (p->sum && x->use != DMD_USE_RETURN) {
		s = dmd_spec_add(b, DMD_SPEC_CLEAR, x, pipe);
		dom = isl_set_copy(x->dom);
		if (when)
			dom = isl_set_intersect(dom, isl_set_set_tuple_name(
				isl_set_project_out(isl_set_copy(when),
				isl_dim_set, len, np), x->name));
		dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
		dmd_spec_place(b, s, dom, len, 0, level,
			dmd_spec_slot(b, level));
	}
	s = dmd_spec_add(b, DMD_SPEC_RECV, x, pipe);
	if (s)
		s->pieces = p;
	dom = isl_set_copy(p->recv_dom);
	if (when)
		dom = isl_set_intersect(dom, isl_set_copy(when));
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	for (d = 0; d < np; ++d) {
		isl_space *sp = isl_set_get_space(dom);

		dmd_spec_push(b, s, dmd_isl_dim(sp, len + d));
		isl_space_free(sp);
	}
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->recv.lo[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->recv.ext[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, dmd_spec_widen(m, x->box.lo[d]));
	dmd_spec_push_combs(b, s, p, &p->recv);
	dmd_spec_place(b, s, dom, len, np, level, dmd_spec_slot(b, level));

	s = dmd_spec_add(b, DMD_SPEC_SEND, x, pipe);
	if (s)
		s->pieces = p;
	dom = isl_set_copy(p->send_dom);
	if (when)
		dom = isl_set_intersect(dom, isl_set_copy(when));
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	for (d = 0; d < np; ++d) {
		isl_space *sp = isl_set_get_space(dom);

		dmd_spec_push(b, s, dmd_isl_dim(sp, len + d));
		isl_space_free(sp);
	}
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->send.lo[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->send.ext[d]));
	dmd_spec_push_combs(b, s, p, &p->send);
	dmd_spec_place(b, s, dom, len, np, level, dmd_spec_slot(b, level));

	if (x->ghost)
		return;
	s = dmd_spec_add(b, DMD_SPEC_SELF, x, pipe);
	if (s)
		s->pieces = p;
	dom = isl_set_copy(p->self_dom);
	if (when)
		dom = isl_set_intersect(dom, isl_set_set_tuple_name(
			isl_set_project_out(isl_set_copy(when), isl_dim_set,
			len, np), x->name));
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->self.lo[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(p->self.ext[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.lo[d]));
	dmd_spec_place(b, s, dom, len, 0, level, dmd_spec_slot(b, level));
}

/* The post of a broadcast for the time points "when" (NULL: all). */
static void dmd_spec_post_bcast(struct dmd_spec_build *b, struct dmd_xfer *x,
	__isl_keep isl_set *when, int level, int pipe)
{
	const struct dmd_model *m = b->m;
	int nd = m->lay[x->tensor]->ndim, d;
	struct dmd_spec_stmt *s;
	isl_set *dom;

	s = dmd_spec_add(b, DMD_SPEC_BCAST, x, pipe);
	dom = isl_set_copy(x->dom);
	if (when)
		dom = isl_set_intersect(dom, isl_set_copy(when));
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	dmd_spec_push(b, s, isl_pw_aff_copy(x->root));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.lo[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.ext[d]));
	dmd_spec_place(b, s, dom, x->level + 1, 0, level,
		dmd_spec_slot(b, level));
}

/* The post of a ring shift for the time points after the first: it
 * sends the box of the previous time point from the current view. */
static void dmd_spec_post_shift(struct dmd_spec_build *b, struct dmd_xfer *x)
{
	const struct dmd_model *m = b->m;
	int nd = m->lay[x->tensor]->ndim, d, L = x->level;
	struct dmd_spec_stmt *s;
	isl_multi_aff *back;
	isl_space *space;
	isl_set *dom;

	s = dmd_spec_add(b, DMD_SPEC_SHIFT, x, 1);
	dom = dmd_spec_when(x, 0, 0);
	if (dmd_mesh_axis_view(m->mesh, x->axis) >= 0)
		/* the ranks off the view of the ring take no part */
		dom = isl_set_intersect_params(dom, dmd_mesh_frame(m->mesh,
			dmd_mesh_axis_view(m->mesh, x->axis)));
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.lo[d]));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.ext[d]));
	space = isl_set_get_space(x->dom);
	back = isl_multi_aff_identity(isl_space_map_from_set(space));
	back = isl_multi_aff_set_aff(back, L, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(back, L), -1));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_pullback_multi_aff(
			isl_pw_aff_copy(x->box.lo[d]),
			isl_multi_aff_copy(back)));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_pullback_multi_aff(
			isl_pw_aff_copy(x->box.ext[d]),
			isl_multi_aff_copy(back)));
	isl_multi_aff_free(back);
	dmd_spec_place(b, s, dom, L + 1, 0, L + 1, dmd_spec_slot(b, L + 1));
}

/* The posts of transfer "x" for its time points "first" (placed at
 * "level") or the rest (pipelined, at level + 1); level -1 transfers
 * have only "first" (all their points). */
static void dmd_spec_posts(struct dmd_spec_build *b, struct dmd_xfer *x,
	int first)
{
	int np = b->m->mesh->n, level = first ? x->level : x->level + 1;
	isl_set *when = NULL, *wp = NULL;

	if (x->level < 0)
		level = 0;
	else {
		when = dmd_spec_when(x, first, 0);
		wp = dmd_spec_when(x, first, np);
	}
	switch (x->kind) {
	case DMD_XFER_BCAST:
		dmd_spec_post_bcast(b, x, when, level, !first);
		break;
	case DMD_XFER_SHIFT:
		if (first && !x->first_local)
			dmd_spec_post_p2p(b, x, x->first, wp, level, 0);
		else if (!first)
			dmd_spec_post_shift(b, x);
		break;
	case DMD_XFER_P2P:
	case DMD_XFER_RETURN:
		dmd_spec_post_p2p(b, x, x->p2p, wp, level, !first);
		break;
	case DMD_XFER_LOCAL:
		break;
	}
	isl_set_free(when);
	isl_set_free(wp);
}

/* The wait of transfer "x": at each of its time points (at level + 1),
 * or once before the nest (level -1); it sets the view the step reads
 * (the box origin, the broadcast's root).  A shift whose first step lies
 * in the rank's own block views the home buffer there instead. */
static void dmd_spec_wait(struct dmd_spec_build *b, struct dmd_xfer *x,
	long slot)
{
	const struct dmd_model *m = b->m;
	int nd = m->lay[x->tensor]->ndim, d, level = x->level + 1;
	struct dmd_spec_stmt *s;
	isl_set *dom;

	if (x->kind == DMD_XFER_SHIFT && x->first_local) {
		s = dmd_spec_add(b, DMD_SPEC_VIEW_HOME, x, 0);
		dmd_spec_place(b, s, dmd_spec_when(x, 1, 0), x->level + 1, 0,
			level, slot);
		dom = dmd_spec_when(x, 0, 0);
		slot = dmd_spec_slot(b, level);
	} else
		dom = isl_set_copy(x->dom);
	s = dmd_spec_add(b, DMD_SPEC_WAIT, x, 0);
	dmd_spec_push(b, s, dmd_spec_parity(m, x, dom));
	for (d = 0; d < nd; ++d)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->box.lo[d]));
	if (x->kind == DMD_XFER_BCAST)
		dmd_spec_push(b, s, isl_pw_aff_copy(x->root));
	dmd_spec_place(b, s, dom, x->level + 1, 0, x->level < 0 ? 0 : level,
		slot);
}

/* Place the instances "rs" ([c] -> { S[i] -> L[t] }, a part of the
 * per-rank schedule) of compute statement "s" in a loop nest at "slot"
 * of level 0 (DMD_SPEC_NEST: the nest the transfers are placed around):
 * the loop points L[t] are placed like a statement in the nest, then
 * composed, and b_0 is set to "slot". */
static void dmd_spec_place_comp(struct dmd_spec_build *b,
	struct dmd_spec_stmt *s, __isl_take isl_map *rs, long slot)
{
	struct dmd_spec_stmt tmp = *s;
	isl_union_map *saved = b->sched;
	isl_map *pl;

	if (isl_map_is_empty(rs) != isl_bool_false) {
		isl_map_free(rs);
		return;
	}
	rs = isl_map_set_tuple_name(rs, isl_dim_in, s->name);
	tmp.name = "L";
	b->sched = isl_union_map_empty(isl_union_map_get_space(saved));
	dmd_spec_place(b, &tmp, isl_map_range(isl_map_copy(rs)), b->K, 0,
		b->K, DMD_SPEC_NEST);
	pl = isl_map_from_union_map(b->sched);
	b->sched = saved;
	isl_set_free(tmp.dom);
	s->dom = isl_map_domain(isl_map_copy(rs));
	rs = isl_map_apply_range(rs, pl);
	if (slot != DMD_SPEC_NEST) {
		rs = isl_map_project_out(rs, isl_dim_out, 0, 1);
		rs = isl_map_insert_dims(rs, isl_dim_out, 0, 1);
		rs = isl_map_fix_si(rs, isl_dim_out, 0, slot);
	}
	b->sched = isl_union_map_union(b->sched, isl_union_map_from_map(rs));
	if (!b->sched)
		b->err = 1;
}

/* Push the indices of every access of compute statement "s" of the
 * step, access by access (named by dmd_spec_name_comp). */
static void dmd_spec_push_indices(struct dmd_spec_build *b,
	struct dmd_spec_stmt *s)
{
	const struct dmd_poly *p = b->p;
	int a, d, n;

	for (a = 0; a < p->n_acc; ++a) {
		n = isl_multi_aff_dim(p->acc[a].idx, isl_dim_out);
		for (d = 0; d < n; ++d)
			dmd_spec_push(b, s, isl_pw_aff_from_aff(
				isl_multi_aff_get_aff(p->acc[a].idx, d)));
	}
}

/* The loops of the per-rank schedule "rs" ([c] -> { S[i] -> L[t] }) of
 * step "b->p" in the local coordinates of its output (see dmd_model.h):
 * a time loop whose value is the output's index along a cyclic
 * dimension d (t_l = e_d on every instance) runs over the local
 * coordinate v_d(t_l) instead, so that a rank visits its blocks one
 * after another, each element once, and no iteration of another rank's
 * blocks is skipped (for S = 2, B = 2, Lmax = 6, the rank of block
 * index 1 runs i_i from 6 to 11 rather than i from 2 to 11 under
 * "if (i % 4 >= 2)").  v_d is injective and increasing on a holder's
 * elements, so each element's iterations keep their order.  Only loops
 * inside every communication point of the step: transfers run in lock
 * step over the global time points. */
static __isl_give isl_map *dmd_spec_local_loops(struct dmd_spec_build *b,
	__isl_take isl_map *rs)
{
	const struct dmd_layout *lay = b->m->lay[b->p->out];
	isl_multi_aff *acc, *dm, *ma;
	isl_local_space *ls, *lsl;
	isl_space *space;
	isl_set *wrapped;
	isl_size n_in;
	int first = 0, changed = 0, l, d, i;

	if (!rs || !lay || !lay->local || b->K == 0)
		return rs;
	for (i = 0; i < b->sp->n_xfer; ++i)
		if (b->sp->xfer[i]->level + 1 > first)
			first = b->sp->xfer[i]->level + 1;
	n_in = isl_map_dim(rs, isl_dim_in);
	if (n_in < 0 || isl_map_dim(rs, isl_dim_out) != b->K)
		return isl_map_free(rs);
	wrapped = isl_map_wrap(isl_map_copy(rs));
	space = isl_set_get_space(wrapped);
	dm = isl_multi_aff_domain_map(isl_space_unwrap(isl_space_copy(space)));
	acc = isl_multi_aff_pullback_multi_aff(isl_multi_aff_copy(
		b->p->acc[0].idx), dm);
	ls = isl_local_space_from_space(space);
	space = isl_space_range(isl_map_get_space(rs));
	lsl = isl_local_space_from_space(isl_space_copy(space));
	ma = isl_multi_aff_identity(isl_space_map_from_set(space));
	for (l = first; ma && l < b->K; ++l) {
		for (d = 0; d < lay->ndim; ++d) {
			isl_aff *f1;
			isl_set *eq;
			isl_bool ok;

			if (!lay->cyc[d])
				continue;
			f1 = dmd_layout_local_aff(lay, d, isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_set,
				n_in + l));
			eq = isl_aff_eq_set(f1, isl_multi_aff_get_aff(acc, d));
			ok = isl_set_is_subset(wrapped, eq);
			isl_set_free(eq);
			if (ok < 0)
				ma = isl_multi_aff_free(ma);
			if (ok != isl_bool_true)
				continue;
			ma = isl_multi_aff_set_aff(ma, l,
				dmd_layout_local_aff(lay, d,
					isl_aff_var_on_domain(
						isl_local_space_copy(lsl),
						isl_dim_set, l)));
			changed = 1;
			break;
		}
	}
	isl_local_space_free(ls);
	isl_local_space_free(lsl);
	isl_multi_aff_free(acc);
	isl_set_free(wrapped);
	if (!ma)
		return isl_map_free(rs);
	if (!changed) {
		isl_multi_aff_free(ma);
		return rs;
	}
	return isl_map_apply_range(rs, isl_map_from_multi_aff(ma));
}

/* The zero marker, the part buffer's clearing and the compute statement
 * (or GEMM leaf) of the step; with sp->late, the iterations that need
 * no ghost cell before the waits of the halo and the others after. */
static void dmd_spec_compute(struct dmd_spec_build *b)
{
	const struct dmd_model *m = b->m;
	const struct dmd_poly *p = b->p;
	const struct dmd_step_plan *sp = b->sp;
	struct dmd_spec_stmt *s;
	isl_space *space;
	isl_map *rs;
	int d;

	if (sp->zero) {
		s = dmd_spec_add(b, DMD_SPEC_ZERO, NULL, 0);
		space = isl_space_set_from_params(isl_space_copy(
			m->mesh->space));
		dmd_spec_place(b, s, isl_set_universe(space), 0, 0, 0,
			dmd_spec_slot(b, 0));
	}
	if (sp->ret && sp->part_clear) {
		s = dmd_spec_add(b, DMD_SPEC_CLEAR, sp->ret, 0);
		space = isl_space_set_from_params(isl_space_copy(
			m->mesh->space));
		dmd_spec_push(b, s, dmd_isl_cst(space, 0));
		dmd_spec_place(b, s, isl_set_universe(space), 0, 0, 0,
			dmd_spec_slot(b, 0));
	}
	if (sp->gemm) {
		s = dmd_spec_add(b, DMD_SPEC_GEMM, NULL, 0);
		for (d = 0; d < 3; ++d)
			dmd_spec_push(b, s, isl_pw_aff_copy(sp->gemm->lo[d]));
		for (d = 0; d < 3; ++d)
			dmd_spec_push(b, s, isl_pw_aff_copy(sp->gemm->ext[d]));
		for (d = 0; sp->gemm->org && d < 6; ++d)
			dmd_spec_push(b, s, isl_pw_aff_copy(
				sp->gemm->org[d / 2][d % 2]));
		dmd_spec_place(b, s, isl_set_copy(sp->gemm->dom), b->K, 0,
			b->K, DMD_SPEC_NEST);
		return;
	}
	/* the compute statement: the per-rank schedule, then its place */
	s = dmd_spec_add(b, DMD_SPEC_COMP, NULL, 0);
	if (!s)
		return;
	dmd_spec_push_indices(b, s);
	rs = isl_map_copy(p->rsched);
	rs = isl_map_intersect_params(rs, isl_set_copy(b->spec->cell));
	rs = dmd_spec_local_loops(b, rs);
	if (isl_map_is_empty(rs) != isl_bool_false) {
		isl_map_free(rs);
		return;
	}
	if (sp->late) {
		/* overlap: what needs no ghost cell before the waits, as a
		 * statement of its own (one statement spread over two places
		 * would make isl loop over the places) */
		isl_map *early = isl_map_subtract_domain(isl_map_copy(rs),
			isl_set_copy(sp->late));

		rs = isl_map_intersect_domain(rs, isl_set_copy(sp->late));
		dmd_spec_place_comp(b, s, early, dmd_spec_slot(b, 0));
		s = dmd_spec_add(b, DMD_SPEC_COMP, NULL, 0);
		if (!s) {
			isl_map_free(rs);
			return;
		}
		dmd_spec_push_indices(b, s);
	}
	dmd_spec_place_comp(b, s, rs, DMD_SPEC_NEST);
}

/* The statements of every transfer of the step, level by level (see
 * the top of this file for the order). */
static void dmd_spec_transfers(struct dmd_spec_build *b)
{
	const struct dmd_step_plan *sp = b->sp;
	int i, l;

	/* before the loops: level -1 transfers (clears and posts), the
	 * output's zero, the first posts of level 0, the level -1 waits */
	for (i = 0; i < sp->n_xfer; ++i)
		if (sp->xfer[i]->level < 0 && sp->xfer[i] != sp->ret)
			dmd_spec_posts(b, sp->xfer[i], 1);
	dmd_spec_compute(b);
	for (l = 0; l < b->K; ++l) {
		if (l > 0) {
			for (i = 0; i < sp->n_xfer; ++i)
				if (sp->xfer[i]->level == l - 1)
					dmd_spec_wait(b, sp->xfer[i],
						dmd_spec_slot(b, l));
			for (i = 0; i < sp->n_xfer; ++i)
				if (sp->xfer[i]->level == l - 1)
					dmd_spec_posts(b, sp->xfer[i], 0);
		}
		for (i = 0; i < sp->n_xfer; ++i)
			if (sp->xfer[i]->level == l)
				dmd_spec_posts(b, sp->xfer[i], 1);
		if (l == 0)
			for (i = 0; i < sp->n_xfer; ++i)
				if (sp->xfer[i]->level < 0 &&
				    sp->xfer[i] != sp->ret)
					dmd_spec_wait(b, sp->xfer[i],
						dmd_spec_slot(b, 0));
	}
	if (b->K == 0)
		for (i = 0; i < sp->n_xfer; ++i)
			if (sp->xfer[i]->level < 0 && sp->xfer[i] != sp->ret)
				dmd_spec_wait(b, sp->xfer[i],
					dmd_spec_slot(b, 0));
	/* the last level's waits and next posts, around the compute */
	if (b->K > 0) {
		for (i = 0; i < sp->n_xfer; ++i)
			if (sp->xfer[i]->level == b->K - 1)
				dmd_spec_wait(b, sp->xfer[i],
					dmd_spec_slot(b, b->K));
		for (i = 0; i < sp->n_xfer; ++i)
			if (sp->xfer[i]->level == b->K - 1)
				dmd_spec_posts(b, sp->xfer[i], 0);
	}
	/* after the loops: the return of the results */
	if (sp->ret) {
		long save = b->slot[0];

		b->slot[0] = b->after;
		dmd_spec_posts(b, sp->ret, 1);
		dmd_spec_wait(b, sp->ret, dmd_spec_slot(b, 0));
		b->after = b->slot[0];
		b->slot[0] = save;
	}
}

/* The runs per period of the combs of a receive or send whose pa[] has
 * "extra" pw_affs after its box, nd dimensions: 1 + 2 runs per
 * dimension (dmd_spec_push_combs), 0 without combs. */
static int dmd_spec_runs(int extra, int nd)
{
	if (nd <= 0 || extra <= 0 || extra % nd || (extra / nd) % 2 == 0)
		return 0;
	return (extra / nd - 1) / 2;
}

/* Point the named fields of "s" (dmd_spec.h) into its pa[], in the
 * order its quantities were pushed (dmd_spec_post_p2p, _bcast, _shift,
 * dmd_spec_wait, dmd_spec_compute, dmd_spec_zero_ast): "np" mesh axes,
 * "nd" dimensions of its tensor.  -1 if pa[] has another length. */
static int dmd_spec_name_fields(struct dmd_spec_stmt *s, int np, int nd)
{
	union dmd_spec_fields *u = &s->u;
	isl_pw_aff **q = s->pa;
	int n = 0;

	switch (s->kind) {
	case DMD_SPEC_COMP:	/* dmd_spec_name_comp */
	case DMD_SPEC_VIEW_HOME:
		break;
	case DMD_SPEC_GEMM:
		u->gemm.lo = q;
		u->gemm.ext = q + 3;
		u->gemm.org = s->n_pa == 12 ? q + 6 : NULL;
		n = u->gemm.org ? 12 : 6;
		break;
	case DMD_SPEC_ZERO:
		u->zero.e = q;
		n = s->n_pa ? nd : 0;	/* none: the marker in the step */
		break;
	case DMD_SPEC_CLEAR:
		u->clear.par = q;
		n = 1;
		break;
	case DMD_SPEC_BCAST:
		u->bcast.par = q;
		u->bcast.root = q + 1;
		u->bcast.lo = q + 2;
		u->bcast.ext = q + 2 + nd;
		n = 2 + 2 * nd;
		break;
	case DMD_SPEC_SHIFT:
		u->shift.par = q;
		u->shift.lo = q + 1;
		u->shift.ext = q + 1 + nd;
		u->shift.plo = q + 1 + 2 * nd;
		u->shift.pext = q + 1 + 3 * nd;
		n = 1 + 4 * nd;
		break;
	case DMD_SPEC_RECV:
		u->recv.par = q;
		u->recv.peer = q + 1;
		u->recv.lo = q + 1 + np;
		u->recv.ext = q + 1 + np + nd;
		u->recv.blo = q + 1 + np + 2 * nd;
		n = 1 + np + 3 * nd;
		u->recv.runs = dmd_spec_runs(s->n_pa - n, nd);
		u->recv.comb = u->recv.runs ? q + n : NULL;
		n += u->recv.runs ? (1 + 2 * u->recv.runs) * nd : 0;
		break;
	case DMD_SPEC_SEND:
		u->send.par = q;
		u->send.peer = q + 1;
		u->send.lo = q + 1 + np;
		u->send.ext = q + 1 + np + nd;
		n = 1 + np + 2 * nd;
		u->send.runs = dmd_spec_runs(s->n_pa - n, nd);
		u->send.comb = u->send.runs ? q + n : NULL;
		n += u->send.runs ? (1 + 2 * u->send.runs) * nd : 0;
		break;
	case DMD_SPEC_SELF:
		u->self.par = q;
		u->self.lo = q + 1;
		u->self.ext = q + 1 + nd;
		u->self.blo = q + 1 + 2 * nd;
		n = 1 + 3 * nd;
		break;
	case DMD_SPEC_WAIT:
		u->wait.par = q;
		u->wait.lo = q + 1;
		u->wait.root = s->xfer->kind == DMD_XFER_BCAST ? q + 1 + nd :
			NULL;
		n = 1 + nd + (u->wait.root != NULL);
		break;
	}
	return n == s->n_pa ? 0 : -1;
}

/* The accesses of compute statement "s" (dmd_spec.h), their indices
 * pointing into its pa[] in the order dmd_spec_push_indices pushed them:
 * the output, written or added to, then the reads, in the order of the
 * ACCESS nodes of the step's statement.  Their views are set by
 * dmd_spec_uses.  -1 if pa[] has another length. */
static int dmd_spec_name_comp(struct dmd_spec_build *b,
	struct dmd_spec_stmt *s)
{
	const struct dmd_poly *p = b->p;
	int a, pos = 0;

	s->u.comp.acc = calloc(p->n_acc + 1, sizeof(*s->u.comp.acc));
	if (!s->u.comp.acc)
		return -1;
	s->u.comp.n_acc = p->n_acc;
	for (a = 0; a < p->n_acc; ++a) {
		struct dmd_spec_access *acc = &s->u.comp.acc[a];

		acc->expr = p->acc[a].expr;
		acc->tensor = p->acc[a].tensor;
		acc->mode = a > 0 ? DMD_SPEC_READ :
			p->reduce || p->st->accumulate ? DMD_SPEC_ADD :
			DMD_SPEC_WRITE;
		acc->view = -1;
		acc->n_index = isl_multi_aff_dim(p->acc[a].idx, isl_dim_out);
		acc->index = s->pa + pos;
		pos += acc->n_index;
	}
	return pos == s->n_pa ? 0 : -1;
}

/* The buffers the statements of a transfer "s" read and write (see
 * union dmd_spec_fields): a halo lands in the home buffer's ghost
 * cells; a return's pieces leave the write view and are added into
 * the home buffers; a reduction's pieces are added into its buffer. */
static void dmd_spec_name_bufs(struct dmd_spec_stmt *s)
{
	const struct dmd_xfer *x = s->xfer;
	int ret = x && x->use == DMD_USE_RETURN;

	switch (s->kind) {
	case DMD_SPEC_RECV:
		s->u.recv.into = x->ghost || ret ? DMD_BUF_HOME :
			DMD_BUF_XFER;
		s->u.recv.sum = ret || x->use == DMD_USE_REDUCE;
		break;
	case DMD_SPEC_SEND:
		s->u.send.from = ret ? DMD_BUF_WRITE : DMD_BUF_HOME;
		break;
	case DMD_SPEC_SELF:
		s->u.self.from = ret ? DMD_BUF_WRITE : DMD_BUF_HOME;
		s->u.self.into = ret ? DMD_BUF_HOME : DMD_BUF_XFER;
		s->u.self.sum = ret || x->use == DMD_USE_REDUCE;
		break;
	case DMD_SPEC_WAIT:
		s->u.wait.set_view = x->level >= 0;
		break;
	default:
		break;
	}
}

/* Name the fields of every statement of step "ss" (dmd_spec_name_fields,
 * dmd_spec_name_comp) and choose their buffers (dmd_spec_name_bufs),
 * once all their quantities are pushed. */
static int dmd_spec_name_all(struct dmd_spec_build *b)
{
	const struct dmd_model *m = b->m;
	int i, nd;

	for (i = 0; i < b->ss->n_stmt; ++i) {
		struct dmd_spec_stmt *s = &b->ss->stmt[i];

		nd = m->lay[s->xfer ? s->xfer->tensor : b->p->out]->ndim;
		if (s->kind == DMD_SPEC_COMP) {
			if (dmd_spec_name_comp(b, s) < 0)
				return -1;
			continue;
		}
		if (dmd_spec_name_fields(s, m->mesh->n, nd) < 0)
			return -1;
		dmd_spec_name_bufs(s);
	}
	return 0;
}

/* The expression at the node of "pl" of its statement's "par". */
isl_ast_expr *dmd_spec_par(const struct dmd_spec_payload *pl)
{
	isl_pw_aff **par;
	int n;

	par = dmd_spec_field(pl->stmt, DMD_FIELD_PAR, 0, 0, &n);
	return par ? *dmd_spec_exprs(pl, par) : NULL;
}

/* The access of compute statement "s" printed at ACCESS node "e". */
const struct dmd_spec_access *dmd_spec_access_at(
	const struct dmd_spec_stmt *s, const struct dmd_expr *e)
{
	int a;

	if (s->kind != DMD_SPEC_COMP)
		return NULL;
	for (a = 0; a < s->u.comp.n_acc; ++a)
		if (s->u.comp.acc[a].expr == e)
			return &s->u.comp.acc[a];
	return NULL;
}

/* Field "f" of statement "s" (NULL if its kind has none): its quantities
 * and their number *n ("np" mesh axes, "nd" dimensions of its tensor). */
isl_pw_aff **dmd_spec_field(const struct dmd_spec_stmt *s,
	enum dmd_spec_field f, int np, int nd, int *n)
{
	const union dmd_spec_fields *u = &s->u;
	isl_pw_aff **q[DMD_FIELD_COMB + 1] = { NULL };

	switch (s->kind) {
	case DMD_SPEC_COMP:
	case DMD_SPEC_VIEW_HOME:
	case DMD_SPEC_ZERO:
		break;
	case DMD_SPEC_GEMM:
		q[DMD_FIELD_LO] = u->gemm.lo;
		q[DMD_FIELD_EXT] = u->gemm.ext;
		nd = 3;
		break;
	case DMD_SPEC_CLEAR:
		q[DMD_FIELD_PAR] = u->clear.par;
		break;
	case DMD_SPEC_BCAST:
		q[DMD_FIELD_PAR] = u->bcast.par;
		q[DMD_FIELD_ROOT] = u->bcast.root;
		q[DMD_FIELD_LO] = u->bcast.lo;
		q[DMD_FIELD_EXT] = u->bcast.ext;
		break;
	case DMD_SPEC_SHIFT:
		q[DMD_FIELD_PAR] = u->shift.par;
		q[DMD_FIELD_LO] = u->shift.lo;
		q[DMD_FIELD_EXT] = u->shift.ext;
		q[DMD_FIELD_PLO] = u->shift.plo;
		q[DMD_FIELD_PEXT] = u->shift.pext;
		break;
	case DMD_SPEC_RECV:
		q[DMD_FIELD_PAR] = u->recv.par;
		q[DMD_FIELD_PEER] = u->recv.peer;
		q[DMD_FIELD_LO] = u->recv.lo;
		q[DMD_FIELD_EXT] = u->recv.ext;
		q[DMD_FIELD_BLO] = u->recv.blo;
		q[DMD_FIELD_COMB] = u->recv.comb;
		break;
	case DMD_SPEC_SEND:
		q[DMD_FIELD_PAR] = u->send.par;
		q[DMD_FIELD_PEER] = u->send.peer;
		q[DMD_FIELD_LO] = u->send.lo;
		q[DMD_FIELD_EXT] = u->send.ext;
		q[DMD_FIELD_COMB] = u->send.comb;
		break;
	case DMD_SPEC_SELF:
		q[DMD_FIELD_PAR] = u->self.par;
		q[DMD_FIELD_LO] = u->self.lo;
		q[DMD_FIELD_EXT] = u->self.ext;
		q[DMD_FIELD_BLO] = u->self.blo;
		break;
	case DMD_SPEC_WAIT:
		q[DMD_FIELD_PAR] = u->wait.par;
		q[DMD_FIELD_LO] = u->wait.lo;
		q[DMD_FIELD_ROOT] = u->wait.root;
		break;
	}
	*n = f == DMD_FIELD_PAR || f == DMD_FIELD_ROOT ? 1 :
		f == DMD_FIELD_PEER ? np : f != DMD_FIELD_COMB ? nd :
		(1 + 2 * (s->kind == DMD_SPEC_RECV ? u->recv.runs :
		u->send.runs)) * nd;
	return q[f];
}

/* Free a payload (the free_user of its isl_id). */
static void dmd_spec_payload_free(void *user)
{
	struct dmd_spec_payload *pl = user;
	int i;

	if (!pl)
		return;
	for (i = 0; i < pl->n_expr; ++i)
		isl_ast_expr_free(pl->expr[i]);
	free(pl->expr);
	free(pl);
}

/* The expression of "pa" at "build" where the schedule's points are
 * "where"; 0 where "pa" is nowhere defined there (a quantity of a
 * transfer that no rank of this cell takes part in). */
static __isl_give isl_ast_expr *dmd_spec_expr(__isl_keep isl_ast_build *build,
	__isl_take isl_pw_aff *pa, __isl_keep isl_set *where)
{
	isl_set *dom;
	isl_bool empty;

	dom = isl_pw_aff_domain(isl_pw_aff_copy(pa));
	if (isl_set_dim(where, isl_dim_set) == 0)
		dom = isl_set_intersect_params(dom, isl_set_params(
			isl_set_copy(where)));
	else
		dom = isl_set_intersect(dom, isl_set_copy(where));
	empty = isl_set_is_empty(dom);
	isl_set_free(dom);
	if (empty != isl_bool_false) {
		isl_ctx *ctx = isl_pw_aff_get_ctx(pa);

		isl_pw_aff_free(pa);
		return empty < 0 ? NULL :
			isl_ast_expr_from_val(isl_val_zero(ctx));
	}
	return isl_ast_build_expr_from_pw_aff(build, pa);
}

/* The statement of "ss" whose domain tuple is "name", or NULL. */
static struct dmd_spec_stmt *dmd_spec_find(struct dmd_spec_step *ss,
	const char *name)
{
	int i;

	for (i = 0; i < ss->n_stmt; ++i)
		if (!strcmp(ss->stmt[i].name, name))
			return &ss->stmt[i];
	return NULL;
}

/* What at_each_domain needs: the step. */
struct dmd_spec_domain_data {
	struct dmd_spec_step *ss;
};

/* Attach to each user node the expressions its statement prints, in
 * terms of the AST's iterators: each quantity is pulled back by the
 * inverse of the schedule at this node. */
static __isl_give isl_ast_node *dmd_spec_at_each_domain(
	__isl_take isl_ast_node *node, __isl_keep isl_ast_build *build,
	void *user)
{
	struct dmd_spec_domain_data *data = user;
	struct dmd_spec_payload *pl;
	struct dmd_spec_stmt *st;
	isl_pw_multi_aff *iter;
	isl_map *s;
	isl_set *where;
	isl_id *id;
	int i, r = 0;

	s = isl_map_from_union_map(isl_ast_build_get_schedule(build));
	st = s ? dmd_spec_find(data->ss, isl_map_get_tuple_name(s,
		isl_dim_in)) : NULL;
	pl = calloc(1, sizeof(*pl));
	if (!st || !pl) {
		isl_map_free(s);
		free(pl);
		return isl_ast_node_free(node);
	}
	pl->stmt = st;
	where = isl_map_range(isl_map_copy(s));
	iter = isl_pw_multi_aff_from_map(isl_map_reverse(s));
	pl->expr = calloc(st->n_pa + 1, sizeof(*pl->expr));
	if (!pl->expr)
		r = -1;
	for (i = 0; r == 0 && i < st->n_pa; ++i) {
		isl_pw_aff *pa = isl_pw_aff_pullback_pw_multi_aff(
			isl_pw_aff_copy(st->pa[i]),
			isl_pw_multi_aff_copy(iter));

		pa = isl_pw_aff_coalesce(pa);
		pl->expr[pl->n_expr] = dmd_spec_expr(build, pa, where);
		if (!pl->expr[pl->n_expr++])
			r = -1;
	}
	isl_pw_multi_aff_free(iter);
	isl_set_free(where);
	id = isl_id_alloc(isl_ast_node_get_ctx(node), st->name, pl);
	id = isl_id_set_free_user(id, &dmd_spec_payload_free);
	if (r < 0 || !id) {
		isl_id_free(id);
		return isl_ast_node_free(node);
	}
	return isl_ast_node_set_annotation(node, id);
}

/* The iterator names of the schedule of "b": b0, i_<loop>, b1, ...,
 * p_<axis>, then g_<loop> for the GEMM's loops when it is cut in
 * pieces. */
static __isl_give isl_id_list *dmd_spec_iterators(struct dmd_spec_build *b)
{
	const struct dmd_model *m = b->m;
	const struct dmd_poly *p = b->p;
	isl_id_list *ids;
	char buf[32];
	int j;

	ids = isl_id_list_alloc(m->ctx, b->n_sched);
	for (j = 0; j <= b->K; ++j) {
		const char *loop;
		char *name;
		size_t n;

		snprintf(buf, sizeof(buf), "b%d", j);
		ids = isl_id_list_add(ids, isl_id_alloc(m->ctx, buf, NULL));
		if (j == b->K)
			break;
		loop = p->loops[p->time_loop[j]].name;
		n = strlen(loop) + 3;
		name = malloc(n);
		if (!name)
			return isl_id_list_free(ids);
		snprintf(name, n, "i_%s", loop);
		ids = isl_id_list_add(ids, isl_id_alloc(m->ctx, name, NULL));
		free(name);
	}
	for (j = 0; j < m->mesh->n; ++j) {
		const char *axis = m->job->axes[j];
		size_t n = strlen(axis) + 3;
		char *name = malloc(n);

		if (!name)
			return isl_id_list_free(ids);
		snprintf(name, n, "p_%s", axis);
		ids = isl_id_list_add(ids, isl_id_alloc(m->ctx, name, NULL));
		free(name);
	}
	for (j = 0; j < b->n_piece; ++j) {
		const char *loop = p->loops[p->time_loop[b->K + j]].name;
		size_t n = strlen(loop) + 3;
		char *name = malloc(n);

		if (!name)
			return isl_id_list_free(ids);
		snprintf(name, n, "g_%s", loop);
		ids = isl_id_list_add(ids, isl_id_alloc(m->ctx, name, NULL));
		free(name);
	}
	return ids;
}

/* The AST of the zero statement of the step: a loop nest over the
 * output elements the rank clears, e0, e1, ... ({ Z[e] -> [e] }). */
static __isl_give isl_ast_node *dmd_spec_zero_ast(struct dmd_spec_build *b,
	struct dmd_spec_domain_data *data)
{
	const struct dmd_model *m = b->m;
	struct dmd_spec_stmt *s;
	isl_ast_build *build;
	isl_ast_node *ast;
	isl_id_list *ids;
	isl_set *z;
	isl_map *sched;
	int nd = m->lay[b->p->out]->ndim, d;
	char buf[32];

	s = dmd_spec_add(b, DMD_SPEC_ZERO, NULL, 0);
	if (!s)
		return NULL;
	z = isl_set_set_tuple_name(isl_set_copy(b->sp->zero), s->name);
	z = isl_set_intersect_params(z, isl_set_copy(b->spec->cell));
	if (b->view >= 0)
		z = dmd_mesh_rebase_set(m->mesh, b->view, z);
	for (d = 0; d < nd; ++d) {
		isl_space *sp = isl_set_get_space(z);

		dmd_spec_push(b, s, dmd_isl_dim(sp, d));
		isl_space_free(sp);
	}
	sched = isl_map_identity(isl_space_map_from_set(isl_set_get_space(z)));
	sched = isl_map_intersect_domain(sched, z);
	sched = isl_map_reset_tuple_id(sched, isl_dim_out);
	ids = isl_id_list_alloc(m->ctx, nd);
	for (d = 0; d < nd; ++d) {
		snprintf(buf, sizeof(buf), "e%d", d);
		ids = isl_id_list_add(ids, isl_id_alloc(m->ctx, buf, NULL));
	}
	build = isl_ast_build_from_context(dmd_spec_context(b));
	build = isl_ast_build_set_iterators(build, ids);
	build = isl_ast_build_set_at_each_domain(build,
		&dmd_spec_at_each_domain, data);
	ast = isl_ast_build_node_from_schedule_map(build,
		isl_union_map_from_map(sched));
	isl_ast_build_free(build);
	return ast;
}

/* The context of the ASTs of the step: the cell (in the coordinates of
 * the step's view, if any). */
static __isl_give isl_set *dmd_spec_context(struct dmd_spec_build *b)
{
	isl_set *cell = isl_set_copy(b->spec->cell);

	if (b->view >= 0)
		cell = dmd_mesh_rebase_set(b->m->mesh, b->view, cell);
	return cell;
}

/* Write the schedule and the quantities of every statement of the step
 * in the coordinates of its view (dmd_mesh_rebase_*): the code of a
 * step distributed over a view speaks of the view's coordinates. */
static int dmd_spec_rebase(struct dmd_spec_build *b)
{
	const struct dmd_mesh *mesh = b->m->mesh;
	struct dmd_spec_step *ss = b->ss;
	int i, j;

	b->sched = dmd_mesh_rebase_union_map(mesh, b->view, b->sched);
	if (!b->sched)
		return -1;
	for (i = 0; i < ss->n_stmt; ++i)
		for (j = 0; j < ss->stmt[i].n_pa; ++j) {
			ss->stmt[i].pa[j] = dmd_mesh_rebase_pw_aff(mesh,
				b->view, ss->stmt[i].pa[j]);
			if (!ss->stmt[i].pa[j])
				return -1;
		}
	return 0;
}

/* Build the program of step "step" in the cell of "spec". */
static int dmd_spec_step(struct dmd_spec *spec, int step)
{
	const struct dmd_plan *plan = spec->plan;
	const struct dmd_model *m = plan->m;
	struct dmd_spec_build b = { 0 };
	struct dmd_spec_domain_data *data;
	struct dmd_spec_step *ss = &spec->steps[step];
	isl_ast_build *build;
	isl_space *space;
	int r = -1;

	ss->step = step;
	b.view = -1;
	b.spec = spec;
	b.m = m;
	b.p = m->poly[step];
	b.sp = &plan->steps[step];
	b.ss = ss;
	b.K = b.p->n_time - (b.p->gemm ? 3 : 0);
	b.n_piece = b.sp->gemm ? b.sp->gemm->n_piece : 0;
	b.n_sched = 2 * b.K + 1 + m->mesh->n + b.n_piece;
	b.slot = calloc(b.K + 1, sizeof(long));
	b.after = DMD_SPEC_NEST + 1;
	data = malloc(sizeof(*data));
	if (!b.slot || !data)
		goto error;
	data->ss = ss;
	space = isl_space_set_alloc(m->ctx, 0, b.n_sched);
	space = isl_space_align_params(space, isl_space_copy(m->mesh->space));
	b.sched = isl_union_map_empty(isl_space_params(space));
	dmd_spec_transfers(&b);
	if (b.err || !b.sched)
		goto error;
	/* a step distributed over a view: its code in the view's
	 * coordinates */
	b.view = b.p->view;
	if (b.view >= 0 && dmd_spec_rebase(&b) < 0)
		goto error;
	if (b.sp->zero) {
		ss->zero = dmd_spec_zero_ast(&b, data);
		if (!ss->zero)
			goto error;
	}
	if (dmd_spec_name_all(&b) < 0)
		goto error;
	build = isl_ast_build_from_context(dmd_spec_context(&b));
	build = isl_ast_build_set_iterators(build, dmd_spec_iterators(&b));
	build = isl_ast_build_set_at_each_domain(build,
		&dmd_spec_at_each_domain, data);
	ss->ast = isl_ast_build_node_from_schedule_map(build, b.sched);
	b.sched = NULL;
	isl_ast_build_free(build);
	if (ss->ast && !b.err)
		r = 0;
error:
	isl_union_map_free(b.sched);
	free(b.slot);
	ss->data = data;
	return r;
}

/* Build the program of cell "cell" (a parameter set) of "plan". */
__isl_give struct dmd_spec *dmd_spec_cell(const struct dmd_plan *plan,
	__isl_keep isl_set *cell)
{
	struct dmd_spec *spec;
	int s;

	spec = calloc(1, sizeof(*spec));
	if (!spec)
		return NULL;
	spec->plan = plan;
	spec->cell = isl_set_copy(cell);
	spec->pbuild = isl_ast_build_from_context(isl_set_copy(cell));
	spec->n_step = plan->n_step;
	spec->steps = calloc(plan->n_step + 1, sizeof(*spec->steps));
	if (!spec->cell || !spec->pbuild || !spec->steps)
		return dmd_spec_free(spec);
	spec->n_view = plan->m->job->n_views;
	spec->vcell = calloc(spec->n_view + 1, sizeof(*spec->vcell));
	spec->vbuild = calloc(spec->n_view + 1, sizeof(*spec->vbuild));
	if (!spec->vcell || !spec->vbuild)
		return dmd_spec_free(spec);
	for (s = 0; s < spec->n_view; ++s) {
		spec->vcell[s] = dmd_mesh_rebase_set(plan->m->mesh, s,
			isl_set_copy(cell));
		spec->vbuild[s] = isl_ast_build_from_context(
			isl_set_copy(spec->vcell[s]));
		if (!spec->vbuild[s])
			return dmd_spec_free(spec);
	}
	for (s = 0; s < plan->n_step; ++s)
		if (dmd_spec_step(spec, s) < 0)
			return dmd_spec_free(spec);
	if (dmd_spec_uses(spec) < 0)
		return dmd_spec_free(spec);
	return spec;
}

/* The programs of every cell of "cells" (dmd_spec_cell each). */
static __isl_give struct dmd_specs *dmd_spec_all(const struct dmd_plan *plan,
	const struct dmd_cells *cells)
{
	struct dmd_specs *s;
	int i;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->spec = calloc(cells->n + 1, sizeof(*s->spec));
	if (!s->spec)
		return dmd_specs_free(s);
	for (i = 0; i < cells->n; ++i) {
		s->spec[i] = dmd_spec_cell(plan, cells->cell[i].set);
		if (!s->spec[i])
			return dmd_specs_free(s);
		s->n++;
	}
	return s;
}

/* The programs of every cell of "cells" in *specs: DMD_OK or
 * DMD_INTERNAL. */
enum dmd_status dmd_spec_cells(const struct dmd_plan *plan,
	const struct dmd_cells *cells, __isl_give struct dmd_specs **specs)
{
	*specs = dmd_spec_all(plan, cells);
	return *specs ? DMD_OK : DMD_INTERNAL;
}

/* Release "s"; returns NULL. */
__isl_null struct dmd_specs *dmd_specs_free(__isl_take struct dmd_specs *s)
{
	int i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n; ++i)
		dmd_spec_free(s->spec[i]);
	free(s->spec);
	free(s);
	return NULL;
}

/* Release "spec"; returns NULL. */
__isl_null struct dmd_spec *dmd_spec_free(__isl_take struct dmd_spec *spec)
{
	int s, i, j;

	if (!spec)
		return NULL;
	dmd_spec_uses_free(spec);
	for (s = 0; spec->steps && s < spec->n_step; ++s) {
		struct dmd_spec_step *ss = &spec->steps[s];

		isl_ast_node_free(ss->ast);
		isl_ast_node_free(ss->zero);
		for (i = 0; i < ss->n_stmt; ++i) {
			free(ss->stmt[i].name);
			for (j = 0; j < ss->stmt[i].n_pa; ++j)
				isl_pw_aff_free(ss->stmt[i].pa[j]);
			free(ss->stmt[i].pa);
			if (ss->stmt[i].kind == DMD_SPEC_COMP)
				free(ss->stmt[i].u.comp.acc);
			isl_set_free(ss->stmt[i].dom);
		}
		free(ss->stmt);
		free(ss->data);
	}
	free(spec->steps);
	isl_set_free(spec->cell);
	isl_ast_build_free(spec->pbuild);
	for (s = 0; s < spec->n_view; ++s) {
		if (spec->vcell)
			isl_set_free(spec->vcell[s]);
		if (spec->vbuild)
			isl_ast_build_free(spec->vbuild[s]);
	}
	free(spec->vcell);
	free(spec->vbuild);
	free(spec);
	return NULL;
}

/* The expression of parameter-only "pa" (or a pw_aff over a 0-dim
 * tuple) on the cell. */
__isl_give isl_ast_expr *dmd_spec_param_expr(const struct dmd_spec *s,
	__isl_keep isl_pw_aff *pa)
{
	isl_pw_aff *p;

	p = isl_pw_aff_project_domain_on_params(isl_pw_aff_copy(pa));
	return dmd_spec_expr(s->pbuild, p, s->cell);
}

/* The expression of parameter-only "pa" on the cell, in the coordinates
 * of view "v" (v < 0: of the mesh). */
__isl_give isl_ast_expr *dmd_spec_param_expr_in(const struct dmd_spec *s,
	__isl_keep isl_pw_aff *pa, int v)
{
	isl_pw_aff *p;

	if (v < 0 || v >= s->n_view)
		return dmd_spec_param_expr(s, pa);
	p = isl_pw_aff_project_domain_on_params(isl_pw_aff_copy(pa));
	p = dmd_mesh_rebase_pw_aff(s->plan->m->mesh, v, p);
	return dmd_spec_expr(s->vbuild[v], p, s->vcell[v]);
}

/* The largest value of "pa" on the cell (over time too). */
long dmd_spec_max(const struct dmd_spec *s, __isl_keep isl_pw_aff *pa)
{
	return dmd_isl_max(pa, s->cell);
}
