/* dmd_part_plan.c: the transfer plan of a program.
 *
 * For each step, for each tensor it reads, at the step's communicate
 * point for that tensor (or once, before its time loops):
 *   need(t) = access(iterations under time point t on this rank)
 *           [c] -> { X[t] -> T[e] }
 * and the pattern that brings it (dmd_part_pattern.c, dmd_part_p2p.c):
 * local (held), a broadcast along an axis, a ring shift, or point to
 * point.  A read of the step's own output is a snapshot (the values
 * before the step); a read of a partial tensor is its sum over the
 * partial axes, unless the step runs on the partials (ir/dmd_poly.c:
 * every rank of a line along them runs it on its own): then each rank
 * reads the partials at its own coordinates along the partial axes.
 * After the
 * step, results computed away from their holders (or split over ranks)
 * are summed onto them.  A point-to-point input whose need contains the
 * rank's block lands in the tensor's home buffer around the block: ghost
 * cells, no copy of the rank's own data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* The names of the transfer kinds, in one table: in listings and
 * proofs ("point-to-point"), and in the labels of the requests of the
 * emitted code ("point to point"; a point-to-point transfer is labelled
 * by what it is for: "return", "reduce"). */
static const struct {
	enum dmd_xfer_kind kind;
	const char *listing;
	const char *label;
} dmd_part_kinds[] = {
	{ DMD_XFER_LOCAL, "local", "local" },
	{ DMD_XFER_BCAST, "broadcast", "broadcast" },
	{ DMD_XFER_SHIFT, "shift", "shift" },
	{ DMD_XFER_P2P, "point-to-point", "point to point" },
	{ DMD_XFER_RETURN, "returned to the holders", "return" },
};

/* The entry of "kind" in dmd_part_kinds, or -1. */
static int dmd_part_kind_find(enum dmd_xfer_kind kind)
{
	int i, n = sizeof(dmd_part_kinds) / sizeof(dmd_part_kinds[0]);

	for (i = 0; i < n; ++i)
		if (dmd_part_kinds[i].kind == kind)
			return i;
	return -1;
}

/* The name of transfer kind "kind", for listings. */
const char *dmd_part_kind_name(enum dmd_xfer_kind kind)
{
	int i = dmd_part_kind_find(kind);

	return i < 0 ? "?" : dmd_part_kinds[i].listing;
}

/* The word for transfer "x" in the label of its request: a broadcast
 * or a shift by its kind, another transfer by what it is for ("return",
 * "reduce", else "point to point"). */
const char *dmd_part_xfer_label(const struct dmd_xfer *x)
{
	enum dmd_xfer_kind kind = x->kind;
	int i;

	if (kind != DMD_XFER_BCAST && kind != DMD_XFER_SHIFT) {
		if (x->use == DMD_USE_REDUCE)
			return "reduce";
		kind = x->use == DMD_USE_RETURN ? DMD_XFER_RETURN :
			DMD_XFER_P2P;
	}
	i = dmd_part_kind_find(kind);
	return i < 0 ? "?" : dmd_part_kinds[i].label;
}

/* Release transfer "x"; returns NULL. */
static struct dmd_xfer *dmd_plan_xfer_free(struct dmd_xfer *x)
{
	if (!x)
		return NULL;
	free(x->name);
	isl_set_free(x->dom);
	isl_map_free(x->need);
	dmd_box_clear(&x->box);
	isl_pw_aff_free(x->root);
	dmd_part_p2p_free(x->first);
	dmd_part_p2p_free(x->p2p);
	free(x);
	return NULL;
}

/* A new transfer of tensor "tensor" for step "s" at "level", added to
 * the plan and to the step (NULL on error). */
static struct dmd_xfer *dmd_plan_add(struct dmd_plan *plan, int s,
	int tensor, int level, enum dmd_xfer_use use)
{
	struct dmd_step_plan *sp = &plan->steps[s];
	struct dmd_xfer **all, **mine, *x;
	char name[32];

	all = realloc(plan->xfer, (plan->n_xfer + 1) * sizeof(*all));
	if (!all)
		return NULL;
	plan->xfer = all;
	mine = realloc(sp->xfer, (sp->n_xfer + 1) * sizeof(*mine));
	if (!mine)
		return NULL;
	sp->xfer = mine;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->id = plan->n_xfer;
	x->step = s;
	x->tensor = tensor;
	x->level = level;
	x->use = use;
	snprintf(name, sizeof(name), "X%d", x->id);
	x->name = strdup(name);
	plan->xfer[plan->n_xfer++] = x;
	sp->xfer[sp->n_xfer++] = x;
	return x->name ? x : NULL;
}

/* Remove the last transfer of the plan (and of its step). */
static void dmd_plan_drop_last(struct dmd_plan *plan)
{
	struct dmd_xfer *x = plan->xfer[--plan->n_xfer];

	plan->steps[x->step].n_xfer--;
	dmd_plan_xfer_free(x);
}

/* The time points of the first "len" time loops of step "p" over all
 * ranks (lock step): [c] -> { name[t] }. */
static __isl_give isl_set *dmd_plan_time(const struct dmd_model *m,
	const struct dmd_poly *p, int len, const char *name)
{
	isl_set *r;

	r = isl_map_range(isl_map_copy(p->rsched));
	r = isl_set_project_out(r, isl_dim_set, len, p->n_time - len);
	r = isl_set_project_out_all_params(r);
	r = isl_set_set_tuple_name(r, name);
	r = isl_set_align_params(r, isl_space_copy(m->mesh->space));
	r = isl_set_intersect_params(r, isl_set_copy(m->mesh->set));
	return isl_set_coalesce(r);
}

/* What each rank reads of tensor "t" (through the accesses marked in
 * "which") in each time point of the first "len" time loops:
 * [c] -> { name[t] -> T[e] }. */
static __isl_give isl_map *dmd_plan_need(const struct dmd_poly *p,
	const int *which, int len, const char *name)
{
	isl_map *rev, *acc = NULL;
	int a;

	for (a = 1; a < p->n_acc; ++a) {
		if (!which[a])
			continue;
		acc = acc ? isl_map_union(acc, isl_map_copy(p->acc[a].map)) :
			isl_map_copy(p->acc[a].map);
	}
	rev = isl_map_reverse(isl_map_copy(p->rsched));
	rev = isl_map_project_out(rev, isl_dim_in, len, p->n_time - len);
	rev = isl_map_apply_range(rev, acc);
	rev = isl_map_set_tuple_name(rev, isl_dim_in, name);
	return isl_map_coalesce(rev);
}

/* The box of "x" from its need, 0 on its time points where nothing is
 * needed. */
static int dmd_plan_box(struct dmd_xfer *x)
{
	int d;

	if (dmd_box_of_map(&x->box, x->need) < 0)
		return -1;
	for (d = 0; d < x->box.n; ++d) {
		x->box.lo[d] = dmd_isl_complete(x->box.lo[d], x->dom);
		x->box.ext[d] = dmd_isl_complete(x->box.ext[d], x->dom);
		if (!x->box.lo[d] || !x->box.ext[d])
			return -1;
	}
	return 0;
}

/* The points of "x"'s time points that follow another one along its
 * level ("rest") or do not ("first"). */
static __isl_give isl_set *dmd_plan_split_time(const struct dmd_model *m,
	const struct dmd_xfer *x, int first)
{
	isl_space *space = isl_set_get_space(x->dom);
	isl_multi_aff *back;
	isl_set *later;

	back = isl_multi_aff_identity(isl_space_map_from_set(space));
	back = isl_multi_aff_set_aff(back, x->level, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(back, x->level), -1));
	later = isl_set_preimage_multi_aff(isl_set_copy(x->dom), back);
	later = isl_set_intersect(later, isl_set_copy(x->dom));
	(void) m;
	if (!first)
		return isl_set_coalesce(later);
	return isl_set_coalesce(isl_set_subtract(isl_set_copy(x->dom),
		later));
}

/* The first step of shift "x": its own block, or fetched point to
 * point. */
static int dmd_plan_shift_first(const struct dmd_model *m,
	struct dmd_xfer *x)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	isl_map *n0, *h;
	int local;

	n0 = isl_map_intersect_domain(isl_map_copy(x->need),
		dmd_plan_split_time(m, x, 1));
	h = isl_map_from_domain_and_range(isl_set_universe(
		isl_set_get_space(x->dom)), isl_set_copy(lay->held));
	local = dmd_isl_bool(isl_map_is_subset(n0, h));
	isl_map_free(h);
	if (local < 0) {
		isl_map_free(n0);
		return -1;
	}
	x->first_local = local;
	if (local) {
		isl_map_free(n0);
		return 0;
	}
	x->first = dmd_part_p2p(m, x, n0, 0);
	return x->first ? 0 : -1;
}

/* Is mesh axis "a" one of the partial axes of layout "lay"? */
static int dmd_plan_partial_axis(const struct dmd_layout *lay, int a)
{
	int i;

	for (i = 0; i < lay->n_partial; ++i)
		if (lay->partial[i] == a)
			return 1;
	return 0;
}

/* Find how transfer "x" (with its need) brings its data. */
static int dmd_plan_classify(const struct dmd_model *m, struct dmd_xfer *x)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	isl_map *h;
	int local, a, r;

	if (dmd_plan_box(x) < 0)
		return -1;
	if (x->use == DMD_USE_INPUT) {
		h = isl_map_from_domain_and_range(isl_set_universe(
			isl_set_get_space(x->dom)), isl_set_copy(lay->held));
		local = dmd_isl_bool(isl_map_is_subset(x->need, h));
		isl_map_free(h);
		if (local < 0)
			return -1;
		if (local) {
			x->kind = DMD_XFER_LOCAL;
			return 0;
		}
		/* partials travel along other axes only (the same
		 * coordinates along theirs: dmd_part_p2p) */
		for (a = 0; a < m->mesh->n_all; ++a)
			if (!dmd_plan_partial_axis(lay, a) &&
			    (r = dmd_part_try_bcast(m, x, a)) != 0)
				return r < 0 ? -1 : 0;
		for (a = 0; a < m->mesh->n_all; ++a) {
			if (dmd_plan_partial_axis(lay, a))
				continue;
			if ((r = dmd_part_try_shift(m, x, a, 1)) == 0)
				r = dmd_part_try_shift(m, x, a, -1);
			if (r < 0)
				return -1;
			if (r)
				return dmd_plan_shift_first(m, x);
		}
	}
	x->kind = DMD_XFER_P2P;
	x->p2p = dmd_part_p2p(m, x, isl_map_copy(x->need),
		x->use == DMD_USE_REDUCE);
	return x->p2p ? 0 : -1;
}

/* Does every rank that runs an iteration of step "p" hold the element it
 * writes, and does every holder (up to the output's partial axes) run
 * every iteration that writes its elements?  Then the step computes in
 * place and returns nothing.  1, 0, or -1 on error; "written" (if not
 * NULL) gets [c] -> { T[e] : rank c writes e }. */
static int dmd_plan_in_place(const struct dmd_model *m,
	const struct dmd_poly *p, isl_set **written)
{
	const struct dmd_layout *lay = m->lay[p->out];
	isl_set *done, *w, *some, *mine;
	int local, i;

	done = isl_map_domain(isl_map_copy(p->rsched));
	done = isl_set_align_params(done, isl_space_copy(m->mesh->space));
	w = isl_set_coalesce(isl_set_apply(isl_set_copy(done),
		isl_map_copy(p->acc[0].map)));
	local = dmd_isl_bool(isl_set_is_subset(w, lay->held));
	if (local == 1) {
		some = done;
		for (i = 0; i < lay->n_partial; ++i)
			some = dmd_mesh_eliminate(m->mesh, some,
				lay->partial[i]);
		mine = isl_set_apply(isl_set_copy(lay->held),
			isl_map_reverse(isl_map_copy(p->acc[0].map)));
		local = dmd_isl_bool(isl_set_is_subset(mine, some));
		isl_set_free(mine);
		isl_set_free(some);
	} else
		isl_set_free(done);
	if (written)
		*written = w;
	else
		isl_set_free(w);
	return local;
}

/* The time level of communicate(t, v) in step "p", or -1. */
static int dmd_plan_comm_level(const struct dmd_poly *p, int t)
{
	int i;

	for (i = 0; i < p->n_comm; ++i)
		if (p->comm[i].tensor == t)
			return p->comm[i].level;
	return -1;
}

/* The transfers that bring tensor "t" to step "s": which accesses read
 * it, which use, and the transfer (or none when every rank holds what it
 * reads). */
static int dmd_plan_input(struct dmd_plan *plan, int s, int t)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	struct dmd_step_plan *sp = &plan->steps[s];
	enum dmd_xfer_use use = DMD_USE_INPUT;
	struct dmd_xfer *x;
	int *which, a, level = -1, in_place = 1, id;

	which = calloc(p->n_acc, sizeof(int));
	if (!which)
		return -1;
	for (a = 1; a < p->n_acc; ++a) {
		which[a] = p->acc[a].tensor == t;
		if (which[a] && !isl_multi_aff_plain_is_equal(p->acc[a].idx,
				p->acc[0].idx))
			in_place = 0;
	}
	if (t == p->out && m->lay[t]->n_partial && !p->on_partials) {
		/* its values are the sums of the partials */
		use = DMD_USE_REDUCE;
	} else if (t == p->out) {
		/* read where it is written: from the home buffer, when the
		 * ranks that run an iteration hold its element */
		if (in_place && !p->reduce &&
		    (in_place = dmd_plan_in_place(m, p, NULL)) < 0)
			goto error;
		if (in_place && !p->reduce) {
			for (a = 1; a < p->n_acc; ++a)
				if (which[a])
					sp->provider[a] = -2;
			free(which);
			return 0;
		}
		use = DMD_USE_SNAPSHOT;
	} else {
		level = dmd_plan_comm_level(p, t);
		if (m->lay[t]->n_partial && !p->on_partials)
			use = DMD_USE_REDUCE;
	}
	x = dmd_plan_add(plan, s, t, level, use);
	if (!x)
		goto error;
	x->dom = dmd_plan_time(m, p, level + 1, x->name);
	x->need = dmd_plan_need(p, which, level + 1, x->name);
	if (!x->dom || !x->need || dmd_plan_classify(m, x) < 0)
		goto error;
	id = x->id;
	if (x->kind == DMD_XFER_LOCAL) {
		dmd_plan_drop_last(plan);
		id = -1;
	}
	for (a = 1; a < p->n_acc; ++a)
		if (which[a])
			sp->provider[a] = id;
	free(which);
	return 0;
error:
	free(which);
	return -1;
}

/* Does the box of return "x" (the part buffer of a rank, the hull of
 * what it writes) hold elements the rank does not write ("written":
 * [c] -> { T[e] })?  C[2 * i] writes every other element of its box;
 * those are returned too, so the buffer must hold the additive identity
 * there.  1, 0, or -1 on error. */
static int dmd_plan_gaps(const struct dmd_model *m, const struct dmd_xfer *x,
	__isl_keep isl_set *written)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	isl_set *box;
	int sub;

	if (lay->ndim == 0)
		return 0;
	box = isl_map_range(dmd_isl_box_map(lay->space, lay->ndim,
		x->box.lo, x->box.ext));
	box = isl_set_intersect_params(box, isl_set_copy(m->mesh->set));
	sub = dmd_isl_bool(isl_set_is_subset(box, written));
	isl_set_free(box);
	return sub < 0 ? -1 : !sub;
}

/* The return of step "s"'s results, when a rank writes elements it does
 * not hold, or the holders (up to the output's partial axes) do not run
 * every iteration that writes their elements: the step writes into a
 * buffer of its own, summed onto the holders afterwards. */
static int dmd_plan_return(struct dmd_plan *plan, int s)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	struct dmd_step_plan *sp = &plan->steps[s];
	struct dmd_xfer *x;
	isl_set *written = NULL, *done;
	int local;

	local = dmd_plan_in_place(m, p, &written);
	if (local != 0) {
		isl_set_free(written);
		return local < 0 ? -1 : 0;
	}
	done = isl_map_domain(isl_map_copy(p->rsched));
	done = isl_set_align_params(done, isl_space_copy(m->mesh->space));
	x = dmd_plan_add(plan, s, p->out, -1, DMD_USE_RETURN);
	if (!x)
		goto error;
	x->kind = DMD_XFER_RETURN;
	x->dom = dmd_plan_time(m, p, 0, x->name);
	x->need = isl_map_from_domain_and_range(isl_set_universe(
		isl_set_get_space(x->dom)), isl_set_copy(written));
	if (!x->dom || !x->need || dmd_plan_box(x) < 0)
		goto error;
	x->p2p = dmd_part_return(m, x, done, p->acc[0].map);
	isl_set_free(done);
	if (!x->p2p) {
		isl_set_free(written);
		return -1;
	}
	sp->ret = x;
	sp->part = 1;
	sp->part_clear = p->reduce || dmd_plan_gaps(m, x, written);
	isl_set_free(written);
	return sp->part_clear < 0 ? -1 : 0;
error:
	isl_set_free(done);
	isl_set_free(written);
	return -1;
}

/* The elements of the output's home buffer that step "s" sets to zero
 * (-0.0) before it computes: with '=', the elements it writes that the
 * rank holds, when the step sums into them (several iterations write one
 * element, results are returned, or the output holds partial sums). */
static int dmd_plan_zero(struct dmd_plan *plan, int s)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	const struct dmd_layout *lay = m->lay[p->out];
	struct dmd_step_plan *sp = &plan->steps[s];
	isl_set *w;
	isl_bool empty;

	if (p->st->accumulate ||
	    !(p->reduce || sp->ret || (lay->n_partial && !p->on_partials)))
		return 0;
	/* nothing to clear in a buffer that is still all zeros: not an
	 * input, not written before, not in a repeat; except where results
	 * come back one per element: cleared to -0.0, the additive
	 * identity, so that a returned -0.0 stays -0.0 (0.0 + -0.0 is 0.0) */
	if (!m->use[p->out].input && dmd_model_step_count(m, s) == 1 &&
	    !(sp->ret && !p->reduce)) {
		int k;

		for (k = 0; k < s; ++k)
			if (m->poly[k]->out == p->out)
				break;
		if (k == s)
			return 0;
	}
	w = isl_set_apply(isl_set_copy(p->domain),
		isl_map_copy(p->acc[0].map));
	w = isl_set_coalesce(isl_set_intersect(w, isl_set_copy(lay->held)));
	empty = isl_set_is_empty(w);
	if (empty != isl_bool_false) {
		isl_set_free(w);
		return empty < 0 ? -1 : 0;
	}
	sp->zero = w;
	return 0;
}

/* The roles of the GEMM's operands of "p": per operand A, B, C (x) the
 * access acc[x] and the variable var[x][d] (0: i, 1: j, 2: k) that
 * indexes its dimension d. */
static void dmd_plan_gemm_roles(const struct dmd_poly *p, int acc[3],
	int var[3][2])
{
	const struct dmd_gemm_info *gi = p->gemm;

	acc[0] = gi->acc_a;
	acc[1] = gi->acc_b;
	acc[2] = 0;
	var[0][0] = gi->ta ? 2 : 0;
	var[0][1] = gi->ta ? 0 : 2;
	var[1][0] = gi->tb ? 1 : 2;
	var[1][1] = gi->tb ? 2 : 1;
	var[2][0] = 0;
	var[2][1] = 1;
}

/* The offset of dimension "d" of access "a" of "p" from variable "v"
 * that indexes it, S[i] -> idx_d(i) - i_v, into *off; NULL when the
 * access is the variable itself. */
static int dmd_plan_gemm_off(const struct dmd_poly *p, int a, int d, int v,
	isl_aff **off)
{
	isl_local_space *ls;
	isl_aff *idx, *var;
	isl_bool plain;

	*off = NULL;
	idx = isl_multi_aff_get_aff(p->acc[a].idx, d);
	ls = isl_local_space_from_space(isl_aff_get_domain_space(idx));
	var = isl_aff_var_on_domain(ls, isl_dim_set, v);
	plain = isl_aff_plain_is_equal(idx, var);
	if (plain != isl_bool_false) {
		isl_aff_free(idx);
		isl_aff_free(var);
		return plain < 0 ? -1 : 0;
	}
	*off = isl_aff_sub(idx, var);
	return *off ? 0 : -1;
}

/* Index "d" of access "a" of "p" at the origin "lo" of the GEMM's boxes
 * ("rev": { G[t, s] -> S[i] }): idx_d(lo), e.g. B's global row of A's
 * local column s_k, [s_k] -> [4 floor(s_k / 2) + s_k mod 2] for blocks
 * of 2 over 2 holders (Lmax a multiple of 2). */
static __isl_give isl_pw_aff *dmd_plan_gemm_at(const struct dmd_poly *p,
	__isl_keep isl_map *rev, isl_pw_aff *const *lo, int a, int d)
{
	isl_space *space;
	isl_multi_pw_aff *at;
	isl_pw_aff *idx;
	int v;

	space = isl_map_get_space(rev);
	at = isl_multi_pw_aff_zero(space);
	for (v = 0; v < 3; ++v)
		at = isl_multi_pw_aff_set_pw_aff(at, v,
			isl_pw_aff_copy(lo[v]));
	idx = isl_pw_aff_from_aff(isl_multi_aff_get_aff(p->acc[a].idx, d));
	idx = isl_pw_aff_pullback_multi_pw_aff(idx, at);
	return isl_pw_aff_coalesce(idx);
}

/* The origin, at each point G[t] of the GEMM's outer loops (or piece of
 * its box: "rev" { G[t] -> S[i] }, origins "lo"), of dimension "d" of
 * access "a" of "p", which is indexed by variable "v" (a role of the
 * GEMM: i, j or k); NULL in *org when the access is that variable
 * itself.  Otherwise the access must be a translation of the variable on
 * every box: the offset idx_d(i) - i_v takes one value per G[t] (e.g.
 * B's global rows of a k block of A's local columns, consecutive within
 * one cyclic block: dmd_plan_gemm_pieces cuts the boxes there), and the
 * origin is lo_v + that offset.  A located error if not. */
static int dmd_plan_gemm_org(const struct dmd_model *m,
	const struct dmd_poly *p, __isl_keep isl_map *rev,
	isl_pw_aff *const *lo, int piece, int a, int d, int v,
	isl_pw_aff **org)
{
	isl_aff *aff;
	isl_map *off;
	isl_bool single;

	*org = NULL;
	if (dmd_plan_gemm_off(p, a, d, v, &aff) < 0)
		return -1;
	if (!aff)
		return 0;
	off = isl_map_apply_range(isl_map_copy(rev), isl_map_from_aff(aff));
	single = isl_map_is_single_valued(off);
	if (single == isl_bool_true && piece)
		*org = dmd_plan_gemm_at(p, rev, lo, a, d);
	else if (single == isl_bool_true)
		*org = isl_pw_aff_coalesce(isl_pw_aff_add(isl_pw_aff_copy(
			lo[v]), isl_map_dim_min(isl_map_copy(off), 0)));
	isl_map_free(off);
	if (single == isl_bool_false)
		dmd_job_error(m->job, p->gemm->loc, "tensorize(..., gemm): "
			"the elements of '%s' along dimension %d are not a "
			"translation of the GEMM's loops on any box (not "
			"supported)",
			m->job->tensors[p->acc[a].tensor].name, d);
	return single == isl_bool_true && *org ? 0 : -1;
}

/* The origins of the GEMM's operands A, B and C along their dimensions
 * (dmd_plan_gemm_org), into g->org; left NULL when every access is
 * indexed by the variables themselves (the origins are g->lo). */
static int dmd_plan_gemm_orgs(const struct dmd_model *m,
	const struct dmd_poly *p, __isl_keep isl_map *rev,
	struct dmd_gemm_plan *g)
{
	int acc[3], var[3][2];
	isl_pw_aff *org[3][2];
	int x, d, any = 0, r = 0;

	dmd_plan_gemm_roles(p, acc, var);
	for (x = 0; x < 3; ++x)
		for (d = 0; d < 2; ++d) {
			org[x][d] = NULL;
			if (r == 0 && dmd_plan_gemm_org(m, p, rev, g->lo,
					g->n_piece, acc[x], d, var[x][d],
					&org[x][d]) < 0)
				r = -1;
			if (org[x][d])
				any = 1;
		}
	if (r == 0 && any) {
		g->org = calloc(3, sizeof(*g->org));
		if (!g->org)
			r = -1;
	}
	for (x = 0; x < 3; ++x)
		for (d = 0; d < 2; ++d) {
			if (r == 0 && any && !org[x][d])
				org[x][d] = isl_pw_aff_copy(g->lo[var[x][d]]);
			if (r == 0 && any)
				g->org[x][d] = org[x][d];
			else
				isl_pw_aff_free(org[x][d]);
		}
	return r;
}

/* The points along variable "v" where the offset of some operand's
 * dimension indexed by v (dmd_plan_gemm_off, taken as a function of i_v
 * alone: on the pieces it is checked to be single-valued) differs from
 * its value one point before: { [s] : off(s) != off(s - 1) }, the
 * boundaries of the cyclic blocks of that operand, e.g. for B's rows the
 * global index of A's local column k in blocks of 2 over 2 holders with
 * 10 local columns each: { [s] : s mod 2 = 0 }. */
static __isl_give isl_set *dmd_plan_gemm_marks(const struct dmd_poly *p,
	__isl_keep isl_map *rev, int v)
{
	int acc[3], var[3][2];
	isl_space *space, *s1;
	isl_local_space *ls;
	isl_multi_aff *at, *prev;
	isl_set *marks;
	int x, d;

	dmd_plan_gemm_roles(p, acc, var);
	space = isl_space_range(isl_map_get_space(rev));
	s1 = isl_space_add_dims(isl_space_params(isl_space_copy(space)),
		isl_dim_set, 1);
	marks = isl_set_empty(isl_space_copy(s1));
	/* at: [s] -> S[0, .., s, .., 0]; prev: [s] -> [s - 1] */
	ls = isl_local_space_from_space(isl_space_copy(s1));
	at = isl_multi_aff_zero(isl_space_map_from_domain_and_range(
		isl_space_copy(s1), space));
	at = isl_multi_aff_set_aff(at, v, isl_aff_var_on_domain(
		isl_local_space_copy(ls), isl_dim_set, 0));
	prev = isl_multi_aff_from_aff(isl_aff_add_constant_si(
		isl_aff_var_on_domain(ls, isl_dim_set, 0), -1));
	isl_space_free(s1);
	for (x = 0; x < 3; ++x)
		for (d = 0; d < 2; ++d) {
			isl_aff *off, *op;

			if (var[x][d] != v)
				continue;
			if (dmd_plan_gemm_off(p, acc[x], d, v, &off) < 0)
				marks = isl_set_free(marks);
			if (!off)
				continue;
			off = isl_aff_pullback_multi_aff(off,
				isl_multi_aff_copy(at));
			op = isl_aff_pullback_multi_aff(isl_aff_copy(off),
				isl_multi_aff_copy(prev));
			marks = isl_set_union(marks, isl_aff_ne_set(off, op));
		}
	isl_multi_aff_free(at);
	isl_multi_aff_free(prev);
	return isl_set_coalesce(marks);
}

/* Add to "marks" (a set [s] along variable "v") the gaps of the values
 * any iteration of "rev" ({ G[t] -> S[i] }) takes along v, and the
 * points after them where the values resume, and set *vals to those
 * values: in local coordinates a holder that holds fewer than Lmax
 * elements of a cyclic dimension leaves a gap before the next holder's
 * (blocks of 4 over 2 holders of 11 rows: values { 0 .. 6, 8 .. 11 },
 * marks 7 and 8), which a piece of a GEMM box must not span: with
 * these marks a piece ends at the gap, and no piece starts in one
 * (its origins are taken among *vals).  Run for every GEMM, not only
 * for steps in local coordinates: a box with a hole along v for any
 * other reason is cut there as well, and one without adds no mark. */
static __isl_give isl_set *dmd_plan_gemm_gaps(__isl_keep isl_map *rev,
	int v, __isl_take isl_set *marks, isl_set **vals)
{
	isl_set *all, *hull, *gaps, *resume;
	isl_size n = isl_map_dim(rev, isl_dim_out);
	isl_space *sp;

	if (n < 0)
		return isl_set_free(marks);
	all = isl_map_range(isl_map_copy(rev));
	all = isl_set_project_out(all, isl_dim_set, v + 1, n - v - 1);
	all = isl_set_project_out(all, isl_dim_set, 0, v);
	all = isl_set_project_out_all_params(all);
	all = isl_set_coalesce(isl_set_compute_divs(all));
	all = isl_set_reset_tuple_id(all);
	hull = isl_set_from_basic_set(isl_set_simple_hull(
		isl_set_copy(all)));
	gaps = isl_set_subtract(hull, isl_set_copy(all));
	/* { [s] in all : s - 1 not in all } */
	sp = isl_set_get_space(all);
	resume = isl_set_subtract(isl_set_copy(all), isl_set_apply(
		isl_set_copy(all), isl_map_from_aff(isl_aff_add_constant_si(
		isl_aff_var_on_domain(isl_local_space_from_space(sp),
		isl_dim_set, 0), 1))));
	gaps = isl_set_union(gaps, resume);
	marks = isl_set_union(marks, isl_set_align_params(gaps,
		isl_set_get_space(marks)));
	*vals = isl_set_align_params(all, isl_set_get_space(marks));
	return isl_set_coalesce(marks);
}

/* The points where a piece of a GEMM box [lo, end) starts along a
 * variable after the box's origin: { G[t] -> [s] : s in "marks",
 * lo(t) < s < end(t) } (dmd_plan_gemm_marks).  E.g. for
 * k panels of 8 over cyclic blocks of 2: { G[ko] -> [s] : s = 8ko + 2,
 * 8ko + 4, 8ko + 6 }. */
static __isl_give isl_map *dmd_plan_gemm_cuts(__isl_keep isl_pw_aff *lo,
	__isl_keep isl_pw_aff *end, __isl_keep isl_set *marks)
{
	isl_map *cut;

	cut = isl_map_from_domain_and_range(isl_pw_aff_domain(
		isl_pw_aff_copy(lo)), isl_set_copy(marks));
	cut = isl_map_lower_bound_multi_pw_aff(cut,
		isl_multi_pw_aff_from_pw_aff(dmd_isl_add(isl_pw_aff_copy(lo),
		1)));
	cut = isl_map_upper_bound_multi_pw_aff(cut,
		isl_multi_pw_aff_from_pw_aff(dmd_isl_add(isl_pw_aff_copy(end),
		-1)));
	return isl_map_coalesce(cut);
}

/* The first point of "marks" (a set [s]) after dimension "pos" of the
 * points of "space" (G[t, s]), where there is one: e.g. for
 * { [s] : s mod 2 = 0 } and pos the last, G[t, s] -> 2 floor(s / 2) + 2. */
static __isl_give isl_pw_aff *dmd_plan_gemm_next(__isl_keep isl_set *marks,
	__isl_keep isl_space *space, int pos)
{
	isl_space *s1;
	isl_map *after;
	isl_multi_aff *at;
	isl_pw_multi_aff *pma;
	isl_pw_aff *next;

	s1 = isl_set_get_space(marks);
	after = isl_map_from_domain_and_range(isl_set_universe(
		isl_space_copy(s1)), isl_set_copy(marks));
	after = isl_map_lower_bound_multi_pw_aff(after,
		isl_multi_pw_aff_from_pw_aff(dmd_isl_add(dmd_isl_dim(s1, 0),
		1)));
	isl_space_free(s1);
	pma = isl_map_lexmin_pw_multi_aff(after);
	next = isl_pw_multi_aff_get_pw_aff(pma, 0);
	isl_pw_multi_aff_free(pma);
	at = isl_multi_aff_from_aff(isl_aff_var_on_domain(
		isl_local_space_from_space(isl_space_copy(space)),
		isl_dim_set, pos));
	return isl_pw_aff_pullback_multi_aff(next, at);
}

/* The set { G[t, s] } (q + n dimensions) whose points are those of
 * "map" { G[t] -> [s_v] } at dimension q + v, any other s free. */
static __isl_give isl_set *dmd_plan_gemm_lift(__isl_take isl_map *map,
	int q, int v, int n)
{
	isl_set *set;

	set = isl_set_flatten(isl_map_wrap(map));
	set = isl_set_insert_dims(set, isl_dim_set, q, v);
	set = isl_set_add_dims(set, isl_dim_set, n - 1 - v);
	return isl_set_set_tuple_name(set, "G");
}

/* Cut the GEMM's boxes of "p" into pieces on which every operand's
 * access is a translation of the GEMM's loops, where some operand's
 * offset (a dimension held whole, indexed by the global index of
 * another's local coordinate) changes within a box: along each variable
 * v, the runs between the cuts of every operand (dmd_plan_gemm_cuts, the
 * common refinement of their cyclic blocks).  The pieces become the
 * points G[t, s_i, s_j, s_k] of g->dom, with origins g->lo = s and
 * extents g->ext up to the next cut or the box's end, and *rev their
 * iterations { G[t, s] -> S[i] }; nothing changes when no box is cut.
 * E.g. k panels of 4 over cyclic blocks of 2: pieces G[ko, s_i, s_j, s_k]
 * with s_k in { 4ko, 4ko + 2 }, each of K = 2.  The pieces are checked
 * to cover each box exactly once. */
static int dmd_plan_gemm_pieces(const struct dmd_poly *p,
	struct dmd_gemm_plan *g, isl_map **rev)
{
	isl_map *cut[3], *rp, *cover, *in;
	isl_set *marks[3], *vals[3] = { NULL, NULL, NULL };
	isl_set *dom = NULL;
	isl_space *space;
	isl_pw_aff *lo[3], *next[3], *hlo[3], *hend[3];
	isl_multi_pw_aff *bound;
	isl_bool empty, ok;
	int v, any = 0, q = g->q, r = -1;

	for (v = 0; v < 3; ++v) {
		lo[v] = next[v] = NULL;
		/* the box's bounds, simplified in the context of g->dom (its
		 * existentials once, in dom, not in every piece) */
		hlo[v] = isl_pw_aff_gist(isl_pw_aff_copy(g->lo[v]),
			isl_set_copy(g->dom));
		hend[v] = isl_pw_aff_gist(isl_pw_aff_add(isl_pw_aff_copy(
			g->lo[v]), isl_pw_aff_copy(g->ext[v])),
			isl_set_copy(g->dom));
		marks[v] = dmd_plan_gemm_marks(p, *rev, v);
		marks[v] = dmd_plan_gemm_gaps(*rev, v, marks[v], &vals[v]);
		cut[v] = dmd_plan_gemm_cuts(hlo[v], hend[v], marks[v]);
		in = isl_map_intersect_domain(isl_map_copy(cut[v]),
			isl_set_copy(g->dom));
		empty = isl_map_is_empty(in);
		isl_map_free(in);
		if (empty < 0)
			any = -1;
		if (any >= 0 && !empty)
			any = 1;
	}
	if (any <= 0)
		goto done;
	/* the pieces' origins, one set per variable, then their product */
	dom = isl_set_add_dims(isl_set_copy(g->dom), isl_dim_set, 3);
	dom = isl_set_set_tuple_name(dom, "G");
	for (v = 0; v < 3; ++v) {
		isl_map *starts;

		starts = isl_map_union(isl_map_copy(cut[v]),
			isl_map_from_pw_aff(isl_pw_aff_copy(hlo[v])));
		starts = isl_map_intersect_range(starts,
			isl_set_copy(vals[v]));
		dom = isl_set_intersect(dom, dmd_plan_gemm_lift(starts, q, v,
			3));
	}
	dom = isl_set_coalesce(dom);
	space = isl_set_get_space(dom);
	/* the next cut (or the box's end) after each origin */
	for (v = 0; v < 3; ++v) {
		isl_pw_aff *end;

		lo[v] = dmd_isl_dim(space, q + v);
		end = isl_pw_aff_insert_dims(isl_pw_aff_copy(hend[v]),
			isl_dim_in, q, 3);
		end = isl_pw_aff_set_tuple_id(end, isl_dim_in,
			isl_space_get_tuple_id(space, isl_dim_set));
		next[v] = isl_pw_aff_union_min(end, dmd_plan_gemm_next(
			marks[v], space, q + v));
		next[v] = isl_pw_aff_coalesce(next[v]);
	}
	/* the iterations of each piece: its box within the box of G[t] */
	rp = isl_map_insert_dims(isl_map_copy(*rev), isl_dim_in, q, 3);
	rp = isl_map_set_tuple_name(rp, isl_dim_in, "G");
	rp = isl_map_intersect_domain(rp, isl_set_copy(dom));
	space = isl_space_map_from_domain_and_range(space,
		isl_space_range(isl_map_get_space(*rev)));
	bound = isl_multi_pw_aff_zero(isl_space_copy(space));
	for (v = 0; v < 3; ++v)
		bound = isl_multi_pw_aff_set_pw_aff(bound, v,
			isl_pw_aff_copy(lo[v]));
	rp = isl_map_lower_bound_multi_pw_aff(rp, bound);
	bound = isl_multi_pw_aff_zero(space);
	for (v = 0; v < 3; ++v)
		bound = isl_multi_pw_aff_set_pw_aff(bound, v,
			dmd_isl_add(isl_pw_aff_copy(next[v]), -1));
	rp = isl_map_upper_bound_multi_pw_aff(rp, bound);
	rp = isl_map_coalesce(rp);
	/* the pieces cover each box, each iteration once */
	cover = isl_map_project_out(isl_map_copy(rp), isl_dim_in, q, 3);
	cover = isl_map_set_tuple_name(cover, isl_dim_in, "G");
	ok = isl_map_is_equal(cover, *rev);
	isl_map_free(cover);
	if (ok == isl_bool_true) {
		cover = isl_map_reverse(isl_map_copy(rp));
		ok = isl_map_is_single_valued(cover);
		isl_map_free(cover);
	}
	if (ok != isl_bool_true) {
		isl_map_free(rp);
		goto error;
	}
	isl_map_free(*rev);
	*rev = rp;
	isl_set_free(g->dom);
	g->dom = dom;
	dom = NULL;
	for (v = 0; v < 3; ++v) {
		isl_pw_aff_free(g->lo[v]);
		isl_pw_aff_free(g->ext[v]);
		g->lo[v] = isl_pw_aff_intersect_domain(lo[v],
			isl_set_copy(g->dom));
		g->ext[v] = isl_pw_aff_coalesce(isl_pw_aff_sub(next[v],
			isl_pw_aff_copy(g->lo[v])));
		lo[v] = next[v] = NULL;
		if (!g->lo[v] || !g->ext[v])
			goto error;
	}
	g->n_piece = 3;
done:
	r = any < 0 ? -1 : 0;
error:
	isl_set_free(dom);
	for (v = 0; v < 3; ++v) {
		isl_pw_aff_free(hlo[v]);
		isl_pw_aff_free(hend[v]);
		isl_set_free(marks[v]);
		isl_set_free(vals[v]);
		isl_map_free(cut[v]);
		isl_pw_aff_free(lo[v]);
		isl_pw_aff_free(next[v]);
	}
	return r;
}

/* The boxes of the GEMM leaf of step "s": at each point of the outer q
 * time loops, the iterations must form a box in (i, j, k), cut into
 * pieces where an operand's elements are not consecutive
 * (dmd_plan_gemm_pieces), and on each, each operand's elements a box of
 * the same extents (dmd_plan_gemm_orgs). */
static int dmd_plan_gemm(struct dmd_plan *plan, int s)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	struct dmd_gemm_plan *g;
	isl_map *rev, *prod, *pi[3];
	isl_bool box;
	int v, q = p->n_time - 3;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	plan->steps[s].gemm = g;
	g->q = q;
	rev = isl_map_reverse(isl_map_copy(p->rsched));
	rev = isl_map_project_out(rev, isl_dim_in, q, p->n_time - q);
	rev = isl_map_set_tuple_name(rev, isl_dim_in, "G");
	rev = isl_map_coalesce(rev);
	g->dom = isl_map_domain(isl_map_copy(rev));
	if (dmd_isl_box(rev, g->lo, g->ext) < 0) {
		isl_map_free(rev);
		return -1;
	}
	/* the iterations are the product of their projections */
	for (v = 0; v < 3; ++v) {
		pi[v] = isl_map_copy(rev);
		if (v < 2)
			pi[v] = isl_map_project_out(pi[v], isl_dim_out, v + 1,
				2 - v);
		if (v > 0)
			pi[v] = isl_map_project_out(pi[v], isl_dim_out, 0, v);
	}
	prod = isl_map_flat_range_product(pi[0], pi[1]);
	prod = isl_map_flat_range_product(prod, pi[2]);
	prod = isl_map_set_tuple_name(prod, isl_dim_out, "S");
	/* "rev" lies in the product of its projections: equal if the
	 * product lies in it */
	box = isl_map_is_subset(prod, rev);
	isl_map_free(prod);
	if (box == isl_bool_true) {
		box = dmd_plan_gemm_pieces(p, g, &rev) < 0 ||
			dmd_plan_gemm_orgs(m, p, rev, g) < 0 ? isl_bool_error :
			isl_bool_true;
		isl_map_free(rev);
		return box == isl_bool_true ? 0 : -1;
	}
	isl_map_free(rev);
	if (box == isl_bool_false)
		dmd_job_error(m->job, p->gemm->loc, "tensorize(..., gemm): the "
			"iterations under the outer loops do not form a box");
	return -1;
}

/* The plan of step "s". */
static int dmd_plan_step(struct dmd_plan *plan, int s)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	struct dmd_step_plan *sp = &plan->steps[s];
	int a, b;

	sp->step = s;
	sp->provider = calloc(p->n_acc, sizeof(int));
	if (!sp->provider)
		return -1;
	for (a = 0; a < p->n_acc; ++a)
		sp->provider[a] = -1;
	/* one transfer per tensor read, in order of first read */
	for (a = 1; a < p->n_acc; ++a) {
		for (b = 1; b < a; ++b)
			if (p->acc[b].tensor == p->acc[a].tensor)
				break;
		if (b < a)
			continue;
		if (dmd_plan_input(plan, s, p->acc[a].tensor) < 0)
			return -1;
	}
	if (dmd_plan_return(plan, s) < 0 || dmd_plan_zero(plan, s) < 0)
		return -1;
	if (p->gemm && dmd_plan_gemm(plan, s) < 0)
		return -1;
	sp->comp = isl_set_coalesce(isl_set_params(isl_map_domain(
		isl_map_copy(p->rsched))));
	sp->time = isl_set_coalesce(isl_map_range(isl_map_copy(p->rsched)));
	return sp->comp && sp->time ? 0 : -1;
}

/* Is "x" a transfer whose data may land in its tensor's home buffer,
 * around the rank's block (ghost cells)?  An input fetched point to point
 * before the step's loops, where on every rank the box needed contains
 * the block (a halo, a gather) or lies in it: then the box around both is
 * no larger than the larger of the two, and nothing of the rank's own
 * data needs a copy. */
static int dmd_plan_is_ghost(const struct dmd_plan *plan,
	const struct dmd_xfer *x)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_layout *lay = m->lay[x->tensor];
	isl_set *box, *need, *bad1, *bad2;
	int r;

	if (x->use != DMD_USE_INPUT || x->kind != DMD_XFER_P2P ||
	    x->level >= 0 || lay->ndim == 0)
		return 0;
	box = isl_map_range(dmd_isl_box_map(lay->space, lay->ndim,
		x->box.lo, x->box.ext));
	need = isl_map_range(isl_map_copy(x->need));
	/* ranks whose block sticks out of the box they need, and ranks
	 * that need something outside their block */
	bad1 = isl_set_params(isl_set_subtract(isl_set_copy(lay->held),
		isl_set_copy(box)));
	bad1 = isl_set_intersect(bad1, isl_set_params(isl_set_copy(need)));
	bad2 = isl_set_params(isl_set_subtract(need,
		isl_set_copy(lay->held)));
	bad2 = isl_set_intersect(bad2, isl_set_params(isl_set_copy(
		lay->held)));
	isl_set_free(box);
	bad1 = isl_set_intersect(bad1, bad2);
	r = dmd_isl_bool(isl_set_is_empty(bad1));
	isl_set_free(bad1);
	return r;
}

/* The home buffers: the block of each tensor, grown to the box of the
 * ghost cells of its ghost transfers. */
static int dmd_plan_homes(struct dmd_plan *plan)
{
	const struct dmd_model *m = plan->m;
	int t, i, d, r;

	plan->home = calloc(m->job->n_tensors + 1, sizeof(*plan->home));
	plan->ghost = calloc(m->job->n_tensors + 1, sizeof(int));
	if (!plan->home || !plan->ghost)
		return -1;
	for (i = 0; i < plan->n_xfer; ++i) {
		struct dmd_xfer *x = plan->xfer[i];

		r = dmd_plan_is_ghost(plan, x);
		if (r < 0)
			return -1;
		x->ghost = r;
		plan->ghost[x->tensor] |= r;
	}
	for (t = 0; t < m->job->n_tensors; ++t) {
		const struct dmd_layout *lay = m->lay[t];
		struct dmd_box *home = &plan->home[t];
		isl_set *all;

		if (!lay)
			continue;	/* no step accesses it */

		if (dmd_box_init(home, lay->ndim) < 0)
			return -1;
		if (!plan->ghost[t]) {
			for (d = 0; d < lay->ndim; ++d) {
				home->lo[d] = isl_pw_aff_copy(lay->lo[d]);
				home->ext[d] = isl_pw_aff_copy(lay->ext[d]);
			}
			continue;
		}
		all = isl_set_copy(lay->held);
		for (i = 0; i < plan->n_xfer; ++i)
			if (plan->xfer[i]->tensor == t && plan->xfer[i]->ghost)
				all = isl_set_union(all, isl_map_range(
					isl_map_copy(plan->xfer[i]->need)));
		all = isl_set_coalesce(all);
		r = dmd_isl_set_box(all, home->lo, home->ext);
		isl_set_free(all);
		if (r < 0)
			return -1;
		/* ranks that hold and need nothing: the (empty) block */
		for (d = 0; d < lay->ndim; ++d) {
			isl_set *rest = isl_set_subtract(isl_set_copy(
				m->mesh->set), isl_pw_aff_domain(
				isl_pw_aff_copy(home->lo[d])));

			home->lo[d] = isl_pw_aff_coalesce(isl_pw_aff_union_add(
				home->lo[d], isl_pw_aff_intersect_params(
				isl_pw_aff_copy(lay->lo[d]),
				isl_set_copy(rest))));
			home->ext[d] = isl_pw_aff_coalesce(isl_pw_aff_union_add(
				home->ext[d], isl_pw_aff_intersect_params(
				isl_pw_aff_copy(lay->ext[d]), rest)));
			if (!home->lo[d] || !home->ext[d])
				return -1;
		}
	}
	return 0;
}

/* The iterations of step "s" that must wait for its halo, for overlap:
 * when every transfer of the step before its loops lands in ghost cells
 * (an input fetched point to point, of a tensor the step does not
 * write) and the step has no GEMM leaf, the rank can
 * compute every output element that reads none of the ghost cells while
 * the halo is in flight.  sp->late is then the iterations that write an
 * element some of whose iterations read a ghost cell (whole output
 * elements, so that each element is summed in the same order), e.g. for
 * B[i] = A[i - 1] + A[i + 1] over blocks of 4 on x
 *   [c_x] -> { S[i] : i = 4c_x or i = 4c_x + 3 }
 * (less on the edge ranks); else NULL.
 */
static int dmd_plan_late(struct dmd_plan *plan, int s)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_poly *p = m->poly[s];
	struct dmd_step_plan *sp = &plan->steps[s];
	isl_set *reads, *out;
	int i, a, any = 0;

	if (sp->gemm)
		return 0;
	for (i = 0; i < sp->n_xfer; ++i) {
		struct dmd_xfer *x = sp->xfer[i];

		if (x == sp->ret || x->kind == DMD_XFER_LOCAL)
			continue;
		if (x->level >= 0 || !x->ghost || x->tensor == p->out)
			return 0;
		any = 1;
	}
	if (!any)
		return 0;
	reads = isl_set_empty(isl_space_copy(p->space));
	for (a = 1; a < p->n_acc; ++a) {
		struct dmd_xfer *x;
		isl_set *ghost;

		if (sp->provider[a] < 0)
			continue;
		x = plan->xfer[sp->provider[a]];
		if (x->kind == DMD_XFER_LOCAL)
			continue;
		ghost = isl_set_subtract(isl_map_range(isl_map_copy(x->need)),
			isl_set_copy(m->lay[x->tensor]->held));
		reads = isl_set_union(reads, isl_map_domain(
			isl_map_intersect_range(isl_map_copy(p->acc[a].map),
			ghost)));
	}
	out = isl_set_apply(reads, isl_map_copy(p->acc[0].map));
	sp->late = isl_set_apply(out, isl_map_reverse(isl_map_copy(
		p->acc[0].map)));
	sp->late = isl_set_coalesce(sp->late);
	return sp->late ? 0 : -1;
}

/* Make the transfer plan of "m".  Errors are reported against the job
 * file (a distribution that cannot be served) or not at all (an internal
 * error); NULL is returned. */
static __isl_give struct dmd_plan *dmd_plan_make(const struct dmd_model *m)
{
	struct dmd_plan *plan;
	int s;

	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return NULL;
	plan->m = m;
	plan->n_step = m->n_poly;
	plan->steps = calloc(m->n_poly + 1, sizeof(*plan->steps));
	if (!plan->steps)
		return dmd_part_plan_free(plan);
	for (s = 0; s < m->n_poly; ++s)
		if (dmd_plan_step(plan, s) < 0)
			return dmd_part_plan_free(plan);
	if (dmd_plan_homes(plan) < 0)
		return dmd_part_plan_free(plan);
	for (s = 0; s < m->n_poly; ++s)
		if (dmd_plan_late(plan, s) < 0)
			return dmd_part_plan_free(plan);
	return plan;
}

/* The transfer plan of "m" in *plan: DMD_OK; DMD_REFUSED after a message
 * to the job's diag (a distribution that cannot be served); or
 * DMD_INTERNAL. */
enum dmd_status dmd_part_plan(const struct dmd_model *m,
	__isl_give struct dmd_plan **plan)
{
	int before = dmd_diag_count(m->job->diag);

	*plan = dmd_plan_make(m);
	return dmd_diag_status(m->job->diag, before, *plan != NULL);
}

/* Release "plan"; returns NULL. */
__isl_null struct dmd_plan *dmd_part_plan_free(__isl_take struct dmd_plan *plan)
{
	int i, d;

	if (!plan)
		return NULL;
	for (i = 0; i < plan->n_xfer; ++i)
		dmd_plan_xfer_free(plan->xfer[i]);
	free(plan->xfer);
	for (i = 0; plan->steps && i < plan->n_step; ++i) {
		struct dmd_step_plan *sp = &plan->steps[i];

		free(sp->xfer);
		free(sp->provider);
		isl_set_free(sp->zero);
		isl_set_free(sp->comp);
		isl_set_free(sp->time);
		isl_set_free(sp->late);
		if (sp->gemm) {
			isl_set_free(sp->gemm->dom);
			for (d = 0; d < 3; ++d) {
				isl_pw_aff_free(sp->gemm->lo[d]);
				isl_pw_aff_free(sp->gemm->ext[d]);
			}
			for (d = 0; sp->gemm->org && d < 6; ++d)
				isl_pw_aff_free(sp->gemm->org[d / 2][d % 2]);
			free(sp->gemm->org);
			free(sp->gemm);
		}
	}
	free(plan->steps);
	if (plan->home)
		for (i = 0; i < plan->m->job->n_tensors; ++i)
			dmd_box_clear(&plan->home[i]);
	free(plan->home);
	free(plan->ghost);
	free(plan);
	return NULL;
}
