/* dmd_part_verify.c: proofs, for all ranks at once, that the transfers
 * of a plan match up, so that no emitted program can hang or read what
 * nobody sent.
 *
 *   point to point: the receives are { [R[r] -> X[t, s]] -> box } (rank r
 *     receives a box from s at t) and the sends { [R[s] -> X[t, r]] ->
 *     box }; with the roles of the two ranks swapped, the two relations
 *     must be equal: every send has exactly one receive with the same box
 *     (origin and extents) and every receive exactly one send.
 *   broadcast: every rank of an axis group takes part at every time point
 *     of the transfer (its statement's domain does not depend on the
 *     rank), with the same root and the same box extents: neither may
 *     depend on the coordinate along the axis.
 *   shift: what rank r receives at t + 1 is what its neighbour sends: the
 *     box extents at t + 1 on r equal those at t on r + disp (around the
 *     ring).
 * Each proof is an isl equality on relations over the mesh parameters;
 * nothing iterates over ranks, except where isl's equality of the
 * point-to-point relations for all ranks at once exceeds
 * DMD_VERIFY_MAX_OPS isl operations on a mesh of at most
 * DMD_VERIFY_MAX_RANKS ranks: then it is decided rank by rank
 * (dmd_part_map_rel, which the tests of the holes of boxes and of what
 * a sender holds use too).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/local_space.h>

#include "partition/dmd_part.h"
#include "ir/dmd_int.h"
#include "ir/dmd_isl.h"

/* The isl operations a test of dmd_part_map_rel for all ranks at once
 * may take before it is decided rank by rank instead (a fraction of a
 * second; every job of the tests stays within it). */
#define DMD_VERIFY_MAX_OPS	200000UL
/* The most ranks whose relations are compared one by one. */
#define DMD_VERIFY_MAX_RANKS	4096

/* What the proofs of transfer "x" say it is: "A in step 1: broadcast"
 * (malloc'ed; NULL if out of memory). */
char *dmd_part_xfer_what(const struct dmd_model *m, const struct dmd_xfer *x)
{
	char *what;

	if (asprintf(&what, "%s in step %d: %s",
			m->job->tensors[x->tensor].name, x->step + 1,
			dmd_part_kind_name(x->kind)) < 0)
		return NULL;
	return what;
}

/* Add a proof of "claim" with "verdict" to "rep" (its text
 * printf-style); -1 if out of memory. */
int dmd_part_proof_add(struct dmd_proofs *rep, enum dmd_proof_claim claim,
	enum dmd_proof_verdict verdict, const char *fmt, ...)
{
	struct dmd_proof *p;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -1;
	p = realloc(rep->proof, (rep->n + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return -1;
	}
	rep->proof = p;
	p[rep->n].claim = claim;
	p[rep->n].verdict = verdict;
	p[rep->n++].text = s;
	return 0;
}

/* Does some proof of "rep" fail? */
int dmd_part_proofs_failed(const struct dmd_proofs *rep)
{
	int i;

	for (i = 0; i < rep->n; ++i)
		if (rep->proof[i].verdict == DMD_PROOF_FAILS)
			return 1;
	return 0;
}

/* Print "p" as one line of check (without the newline): "proved: ...",
 * "NOT covered: ...", "not checked: ...". */
void dmd_part_proof_print(FILE *f, const struct dmd_proof *p)
{
	static const char *const claim[] = {
		[DMD_CLAIM_PROVED] = "proved",
		[DMD_CLAIM_PROVED_AS_EMITTED] = "proved as emitted",
		[DMD_CLAIM_COVERED] = "covered",
	};

	if (p->verdict == DMD_PROOF_UNCHECKED)
		fprintf(f, "not checked: %s", p->text);
	else
		fprintf(f, "%s%s: %s", p->verdict == DMD_PROOF_FAILS ? "NOT " :
			"", claim[p->claim], p->text);
}

/* The relation { [R[me] -> X[t, peer]] -> B[lo.., ext..] } of one side of
 * point-to-point pieces: "dom" ([c] -> { X[t, peer] }) with the box
 * "box" over it, the rank as dimensions. */
static __isl_give isl_map *dmd_verify_side(const struct dmd_model *m,
	__isl_keep isl_set *dom, const struct dmd_box *box)
{
	isl_pw_aff_list *list;
	isl_space *space;
	isl_map *map;
	int d;

	space = isl_set_get_space(dom);
	list = isl_pw_aff_list_alloc(m->ctx, 2 * box->n);
	for (d = 0; d < 2 * box->n; ++d)
		list = isl_pw_aff_list_add(list, isl_pw_aff_copy(
			d < box->n ? box->lo[d] : box->ext[d - box->n]));
	if (box->n == 0) {
		isl_pw_aff_list_free(list);
		map = isl_map_from_domain(isl_set_copy(dom));
	} else {
		isl_multi_pw_aff *mpa;

		mpa = isl_multi_pw_aff_from_pw_aff_list(
			isl_space_map_from_domain_and_range(isl_space_copy(
			space), dmd_isl_set_space(space, NULL, 2 * box->n)),
			list);
		map = isl_map_from_multi_pw_aff(mpa);
		map = isl_map_intersect_domain(map, isl_set_copy(dom));
	}
	isl_space_free(space);
	map = isl_map_intersect_params(map, isl_set_copy(m->mesh->set));
	map = isl_set_unbind_params_insert_domain(isl_map_wrap(map),
		isl_multi_id_copy(m->mesh->ids));
	/* { R[me] -> [X[t, peer] -> B] } as { [R[me] -> X[t, peer]] -> B } */
	return isl_map_uncurry(map);
}

/* { [R[a] -> X[t, b]] -> B } with a and b swapped (the peer's view). */
static __isl_give isl_map *dmd_verify_swap(const struct dmd_model *m,
	__isl_take isl_map *map, int len)
{
	isl_space *space = isl_space_domain(isl_map_get_space(map));

	return isl_map_preimage_domain_multi_aff(map,
		dmd_isl_swap(space, m->mesh->n, len));
}

/* The isl operations of DMD_VERIFY_MAX_OPS: a positive integer in
 * DMD_BY_RANK_QUOTA (for tests: 1 decides every test rank by rank),
 * else DMD_VERIFY_MAX_OPS. */
static unsigned long dmd_verify_quota(void)
{
	return (unsigned long) dmd_int_env("DMD_BY_RANK_QUOTA", 1, LONG_MAX,
		DMD_VERIFY_MAX_OPS);
}

/* Whether map "a" is equal to (DMD_ISL_EQUAL) or a subset of
 * (DMD_ISL_SUBSET) map "b", whose first mesh->n input dimensions (or
 * with "params" whose mesh parameters) are a rank's coordinates: for
 * all ranks at once, or rank by rank (dmd_isl_map_rel_by_rank) where
 * that takes more than dmd_verify_quota() isl operations on a mesh of
 * at most DMD_VERIFY_MAX_RANKS ranks.  Under a quota of the caller's
 * (the search's, for a candidate) only for all ranks at once, within
 * it. */
isl_bool dmd_part_map_rel(const struct dmd_model *m, __isl_keep isl_map *a,
	__isl_keep isl_map *b, enum dmd_isl_rel rel, int params)
{
	long ranks = 1;
	isl_bool r;
	int d;

	for (d = 0; d < m->mesh->n && ranks <= DMD_VERIFY_MAX_RANKS; ++d)
		ranks *= m->mesh->shape[d];
	if (ranks > DMD_VERIFY_MAX_RANKS ||
	    isl_ctx_get_max_operations(m->ctx) != 0)
		return rel == DMD_ISL_EQUAL ? isl_map_is_equal(a, b) :
			isl_map_is_subset(a, b);
	isl_ctx_reset_operations(m->ctx);
	isl_ctx_set_max_operations(m->ctx, dmd_verify_quota());
	r = rel == DMD_ISL_EQUAL ? isl_map_is_equal(a, b) :
		isl_map_is_subset(a, b);
	isl_ctx_set_max_operations(m->ctx, 0);
	if (r >= 0 || isl_ctx_last_error(m->ctx) != isl_error_quota)
		return r;
	isl_ctx_reset_error(m->ctx);
	return dmd_isl_map_rel_by_rank(a, b, rel, params ? m->mesh->ids :
		NULL, m->mesh->n, m->mesh->shape);
}

/* Prove that the pieces "p" of transfer "x" match up. */
static int dmd_verify_p2p(const struct dmd_model *m, const struct dmd_xfer *x,
	const struct dmd_p2p *p, struct dmd_proofs *rep, const char *what)
{
	isl_map *recv, *send;
	isl_bool eq;

	recv = dmd_verify_side(m, p->recv_dom, &p->recv);
	send = dmd_verify_swap(m, dmd_verify_side(m, p->send_dom, &p->send),
		x->level + 1);
	eq = dmd_part_map_rel(m, recv, send, DMD_ISL_EQUAL, 0);
	isl_map_free(recv);
	isl_map_free(send);
	if (eq < 0)
		return -1;
	if (!eq) {
		return dmd_part_proof_add(rep, DMD_CLAIM_PROVED,
			DMD_PROOF_FAILS, "transfer #%d (%s): a send without a "
			"matching receive, or a receive without a matching "
			"send", x->id, what);
	}
	return dmd_part_proof_add(rep, DMD_CLAIM_PROVED, DMD_PROOF_HOLDS,
		"transfer #%d (%s): every send has exactly one receive with "
		"the same box, and every receive one send", x->id, what);
}

/* Does "pa" (over the transfer's time points) depend on mesh coordinate
 * "axis"? */
static int dmd_verify_involves(const struct dmd_model *m,
	__isl_keep isl_pw_aff *pa, int axis)
{
	isl_pw_aff *g;
	isl_bool r;

	g = isl_pw_aff_gist_params(isl_pw_aff_copy(pa),
		isl_set_copy(m->mesh->set));
	r = isl_pw_aff_involves_dims(g, isl_dim_param, axis, 1);
	isl_pw_aff_free(g);
	return r < 0 ? -1 : r == isl_bool_true;
}

/* The proof of dmd_verify_bcast for an axis of a view: with the ranks
 * as dimensions, { [R[r] -> X[t]] -> B[root, ext..] } on the time points
 * of the transfer is the same for every rank s on the line of r along
 * the axis (dmd_mesh_line), and so are the time points.  1 if proved, 0
 * if not, -1 on error. */
static int dmd_verify_bcast_view(const struct dmd_model *m,
	const struct dmd_xfer *x)
{
	isl_pw_aff_list *list;
	isl_multi_pw_aff *mpa;
	isl_space *space, *xs;
	isl_map *r1, *r2, *lx;
	isl_set *d1, *d2;
	int d, ok;

	space = isl_set_get_space(x->dom);
	list = isl_pw_aff_list_alloc(m->ctx, x->box.n + 1);
	list = isl_pw_aff_list_add(list, isl_pw_aff_copy(x->root));
	for (d = 0; d < x->box.n; ++d)
		list = isl_pw_aff_list_add(list,
			isl_pw_aff_copy(x->box.ext[d]));
	mpa = isl_multi_pw_aff_from_pw_aff_list(
		isl_space_map_from_domain_and_range(isl_space_copy(space),
		dmd_isl_set_space(space, NULL, x->box.n + 1)), list);
	isl_space_free(space);
	r1 = isl_map_from_multi_pw_aff(mpa);
	r1 = isl_map_intersect_domain(r1, isl_set_copy(x->dom));
	r1 = isl_map_intersect_params(r1, isl_set_copy(m->mesh->set));
	r1 = isl_map_uncurry(isl_set_unbind_params_insert_domain(
		isl_map_wrap(r1), isl_multi_id_copy(m->mesh->ids)));
	d1 = isl_map_domain(isl_map_copy(r1));
	xs = isl_space_range(isl_space_unwrap(isl_set_get_space(d1)));
	lx = isl_map_product(dmd_mesh_line(m->mesh, x->axis),
		isl_map_identity(isl_space_map_from_set(xs)));
	/* the time points of a line mate are the rank's own */
	d2 = isl_set_apply(isl_set_copy(d1), isl_map_reverse(
		isl_map_copy(lx)));
	ok = dmd_isl_bool(isl_set_is_subset(d2, d1));
	isl_set_free(d2);
	/* and so are its root and extents */
	lx = isl_map_intersect_domain(lx, isl_set_copy(d1));
	lx = isl_map_intersect_range(lx, d1);
	r2 = isl_map_apply_range(lx, isl_map_copy(r1));
	if (ok == 1)
		ok = dmd_isl_bool(isl_map_is_equal(r1, r2));
	isl_map_free(r1);
	isl_map_free(r2);
	return ok;
}

/* Prove that broadcast "x" is entered by every rank of each axis group
 * at the same time points, with the same root and box extents. */
static int dmd_verify_bcast(const struct dmd_model *m,
	const struct dmd_xfer *x, struct dmd_proofs *rep, const char *what)
{
	isl_set *dom;
	int d, r, bad = 0;

	if (dmd_mesh_axis_view(m->mesh, x->axis) >= 0) {
		r = dmd_verify_bcast_view(m, x);
		if (r < 0)
			return -1;
		bad = !r;
		goto report;
	}
	dom = isl_set_gist_params(isl_set_copy(x->dom),
		isl_set_copy(m->mesh->set));
	r = dmd_isl_bool(isl_set_involves_dims(dom, isl_dim_param, x->axis,
		1));
	isl_set_free(dom);
	bad |= r != 0;
	r = dmd_verify_involves(m, x->root, x->axis);
	bad |= r != 0;
	for (d = 0; d < x->box.n; ++d) {
		r = dmd_verify_involves(m, x->box.ext[d], x->axis);
		bad |= r != 0;
	}
	if (r < 0)
		return -1;
report:
	if (bad) {
		return dmd_part_proof_add(rep, DMD_CLAIM_PROVED,
			DMD_PROOF_FAILS, "transfer #%d (%s): the ranks of an "
			"axis group may disagree on its time points, root or "
			"extents", x->id, what);
	}
	return dmd_part_proof_add(rep, DMD_CLAIM_PROVED, DMD_PROOF_HOLDS,
		"transfer #%d (%s): every rank of each group along %s enters "
		"it at the same time points, with the same root and box "
		"extents", x->id, what, dmd_job_axis_name(m->job, x->axis));
}

/* Prove that shift "x" sends what its neighbour receives: the box
 * extents at time point t + e_level on rank r equal those at t on rank
 * r + disp (around the ring), wherever both time points exist. */
static int dmd_verify_shift(const struct dmd_model *m,
	const struct dmd_xfer *x, struct dmd_proofs *rep, const char *what)
{
	isl_map *now, *next, *prev;
	isl_space *space;
	isl_multi_aff *step, *move;
	isl_local_space *ls;
	isl_aff_list *l1, *l2;
	isl_set *both;
	isl_bool eq;
	int np = m->mesh->n, n, i;

	if (x->box.n == 0)
		return dmd_part_proof_add(rep, DMD_CLAIM_PROVED,
			DMD_PROOF_HOLDS, "transfer #%d (%s): a scalar shifted "
			"around the ring", x->id, what);
	now = dmd_verify_side(m, x->dom, &x->box);
	space = isl_space_domain(isl_map_get_space(now));
	n = isl_space_dim(space, isl_dim_set);
	ls = isl_local_space_from_space(isl_space_copy(space));
	l1 = isl_aff_list_alloc(m->ctx, n);
	l2 = isl_aff_list_alloc(m->ctx, n);
	for (i = 0; i < n; ++i) {
		isl_aff *a = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, i);
		isl_aff *b = isl_aff_copy(a);

		if (i == np + x->level)
			a = isl_aff_add_constant_si(a, 1);
		if (i < np && (i == x->axis || x->axis >= np)) {
			isl_aff_free(b);
			b = dmd_mesh_moved(m->mesh, ls, 0, x->axis, x->disp,
				i);
		}
		l1 = isl_aff_list_add(l1, a);
		l2 = isl_aff_list_add(l2, b);
	}
	isl_local_space_free(ls);
	step = isl_multi_aff_from_aff_list(isl_space_map_from_set(
		isl_space_copy(space)), l1);
	move = isl_multi_aff_from_aff_list(isl_space_map_from_set(space), l2);
	/* the extents only: project out the origins */
	now = isl_map_project_out(now, isl_dim_out, 0, x->box.n);
	next = isl_map_preimage_domain_multi_aff(isl_map_copy(now),
		isl_multi_aff_copy(step));
	prev = isl_map_preimage_domain_multi_aff(isl_map_copy(now), move);
	both = isl_set_preimage_multi_aff(isl_map_domain(isl_map_copy(now)),
		step);
	both = isl_set_intersect(both, isl_map_domain(now));
	if (dmd_mesh_axis_view(m->mesh, x->axis) >= 0) {
		/* the ring of a view: its ranks */
		isl_space *rs = isl_space_domain(isl_space_unwrap(
			isl_set_get_space(both)));
		isl_set *f = dmd_mesh_frame_at(m->mesh, dmd_mesh_axis_view(
			m->mesh, x->axis), rs, isl_dim_set, 0);

		isl_space_free(rs);
		both = isl_set_intersect(both, isl_map_wrap(
			isl_map_from_domain_and_range(f, isl_set_universe(
			isl_space_range(isl_space_unwrap(isl_set_get_space(
			both)))))));
	}
	next = isl_map_intersect_domain(next, isl_set_copy(both));
	prev = isl_map_intersect_domain(prev, both);
	eq = isl_map_is_equal(next, prev);
	isl_map_free(next);
	isl_map_free(prev);
	if (eq < 0)
		return -1;
	if (!eq) {
		return dmd_part_proof_add(rep, DMD_CLAIM_PROVED,
			DMD_PROOF_FAILS, "transfer #%d (%s): a rank may "
			"receive another box than its neighbour sends", x->id,
			what);
	}
	return dmd_part_proof_add(rep, DMD_CLAIM_PROVED, DMD_PROOF_HOLDS,
		"transfer #%d (%s): what each rank receives is what its "
		"neighbour along %s sends, around the ring", x->id, what,
		dmd_job_axis_name(m->job, x->axis));
}

/* Prove that every transfer of "plan" matches up (see the top of this
 * file).  "rep" gets one proof per transfer.  DMD_OK if every one holds;
 * DMD_INTERNAL if one fails or on an error of the analysis. */
enum dmd_status dmd_part_verify(const struct dmd_plan *plan,
	struct dmd_proofs *rep)
{
	const struct dmd_model *m = plan->m;
	int i, r = 0;

	for (i = 0; r == 0 && i < plan->n_xfer; ++i) {
		const struct dmd_xfer *x = plan->xfer[i];
		char *what = dmd_part_xfer_what(m, x);

		if (!what)
			return DMD_INTERNAL;
		switch (x->kind) {
		case DMD_XFER_LOCAL:
			break;
		case DMD_XFER_BCAST:
			r = dmd_verify_bcast(m, x, rep, what);
			break;
		case DMD_XFER_SHIFT:
			r = dmd_verify_shift(m, x, rep, what);
			if (r == 0 && x->first)
				r = dmd_verify_p2p(m, x, x->first, rep, what);
			break;
		case DMD_XFER_P2P:
		case DMD_XFER_RETURN:
			r = dmd_verify_p2p(m, x, x->p2p, rep, what);
			break;
		}
		free(what);
	}
	return r < 0 || dmd_part_proofs_failed(rep) ? DMD_INTERNAL : DMD_OK;
}

/* Release what "rep" holds. */
void dmd_part_proofs_clear(struct dmd_proofs *rep)
{
	int i;

	for (i = 0; i < rep->n; ++i)
		free(rep->proof[i].text);
	free(rep->proof);
	memset(rep, 0, sizeof(*rep));
}
