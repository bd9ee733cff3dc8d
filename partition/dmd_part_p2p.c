/* dmd_part_p2p.c: point-to-point pieces, and boxes.
 *
 * The general transfer: each element a rank needs comes from one holder,
 * the rank itself if it holds it, else the holder sharing the most
 * leading coordinates with it, else the lexicographically first.  With
 * the rank as dimensions (r receives, s sends) the pieces are
 *   { [[R[r] -> X[t]] -> R[s]] -> T[e] }
 * and each (r, t, s) moves the box of its elements.  For the stencil
 * B[i] = A[i - 1] + A[i] + A[i + 1] over 5 ranks of 201 elements:
 *   recv: [c_x] -> { X0[s] : s = c_x - 1 and c_x >= 1; ... }
 *   box:  [c_x] -> { X0[s] -> [(201 c_x - 1)] : s = c_x - 1 ... }
 * A box with holes (a piece for a cyclic receiver) gets combs that drop
 * them (dmd_part_comb.c).
 */
#include <stdlib.h>
#include <string.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* Allocate the n pw_affs of "box" (all NULL). */
int dmd_box_init(struct dmd_box *box, int n)
{
	box->n = n;
	box->comb = NULL;
	box->cnt = NULL;
	box->runs = 0;
	box->lo = calloc(n + 1, sizeof(*box->lo));
	box->ext = calloc(n + 1, sizeof(*box->ext));
	return box->lo && box->ext ? 0 : -1;
}

/* Release what "box" holds. */
void dmd_box_clear(struct dmd_box *box)
{
	int d;

	for (d = 0; d < box->n; ++d) {
		if (box->lo)
			isl_pw_aff_free(box->lo[d]);
		if (box->ext)
			isl_pw_aff_free(box->ext[d]);
	}
	dmd_box_drop_combs(box);
	free(box->lo);
	free(box->ext);
	memset(box, 0, sizeof(*box));
}

/* Release the combs of "box" (it moves whole). */
void dmd_box_drop_combs(struct dmd_box *box)
{
	int d, k;

	for (d = 0; d < box->n; ++d) {
		for (k = 0; box->comb && k < DMD_COMB_W; ++k)
			isl_pw_aff_free(box->comb[DMD_COMB_W * d + k]);
		if (box->cnt)
			isl_pw_aff_free(box->cnt[d]);
	}
	free(box->comb);
	free(box->cnt);
	box->comb = NULL;
	box->cnt = NULL;
	box->runs = 0;
}

/* "box" := the box hull of "map" (over its domain). */
int dmd_box_of_map(struct dmd_box *box, __isl_keep isl_map *map)
{
	isl_size n = isl_map_dim(map, isl_dim_out);

	if (n < 0 || dmd_box_init(box, n) < 0)
		return -1;
	return dmd_isl_box(map, box->lo, box->ext);
}

/* [c] -> { X[t] -> T[e] } as { [R[r] -> X[t]] -> T[e] } with r = c. */
static __isl_give isl_map *dmd_p2p_ranks(const struct dmd_model *m,
	__isl_take isl_map *need)
{
	isl_map *r;

	r = isl_set_unbind_params_insert_domain(isl_map_wrap(need),
		isl_multi_id_copy(m->mesh->ids));
	return isl_map_uncurry(r);
}

/* { R[s] -> Q[s_a..] } for the partial axes a of "lay" (the
 * coordinates along view axes are quasi-affine in s, on the view). */
static __isl_give isl_map *dmd_p2p_partial_coords(const struct dmd_model *m,
	const struct dmd_layout *lay)
{
	isl_space *rs, *qs;
	isl_pw_aff_list *list;
	int i;

	rs = isl_space_set_from_params(isl_space_params_alloc(m->ctx, 0));
	rs = isl_space_add_dims(rs, isl_dim_set, m->mesh->n);
	rs = isl_space_set_tuple_name(rs, isl_dim_set, "R");
	qs = isl_space_set_from_params(isl_space_params_alloc(m->ctx, 0));
	qs = isl_space_add_dims(qs, isl_dim_set, lay->n_partial);
	qs = isl_space_set_tuple_name(qs, isl_dim_set, "Q");
	list = isl_pw_aff_list_alloc(m->ctx, lay->n_partial);
	for (i = 0; i < lay->n_partial; ++i)
		list = isl_pw_aff_list_add(list, dmd_mesh_coord_at(m->mesh,
			lay->partial[i], rs, isl_dim_set, 0));
	return isl_map_from_multi_pw_aff(isl_multi_pw_aff_from_pw_aff_list(
		isl_space_map_from_domain_and_range(rs, qs), list));
}

/* Keep, for each key of "c" ({ [[R[r] -> ...] -> ...] -> R[s] }, r the
 * first dimensions of the domain), the sender "s" preferred: s = r if
 * possible, then s sharing coordinate 0 with r, then 1, ..., then the
 * lexicographically first. */
static __isl_give isl_map *dmd_p2p_prefer(const struct dmd_model *m,
	__isl_take isl_map *c)
{
	int np = m->mesh->n, i, j;

	for (i = -1; i < np; ++i) {
		isl_map *eq;
		isl_set *dom;

		eq = isl_map_universe(isl_map_get_space(c));
		for (j = 0; j < np; ++j)
			if (i < 0 || j == i)
				eq = isl_map_equate(eq, isl_dim_in, j,
					isl_dim_out, j);
		eq = isl_map_intersect(isl_map_copy(c), eq);
		dom = isl_map_domain(isl_map_copy(eq));
		c = isl_map_union(isl_map_subtract_domain(c, dom), eq);
	}
	return isl_map_lexmin(c);
}

/* Check that each piece { [[R[r] -> X[t]] -> R[s]] -> T[e] } can travel
 * as its box: the sender holds every element of the box (the extra
 * elements are then copies of the same values).  A job where it does not
 * is refused (rather than sending data the sender does not have). */
static int dmd_p2p_check_boxes(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_keep isl_map *pieces)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	struct dmd_box box;
	isl_map *b, *sender, *held;
	isl_space *dom;
	isl_bool ok;

	if (lay->ndim == 0)
		return 0;
	if (dmd_box_of_map(&box, pieces) < 0) {
		dmd_box_clear(&box);
		return -1;
	}
	b = dmd_isl_box_map(lay->space, lay->ndim, box.lo, box.ext);
	dmd_box_clear(&box);
	dom = isl_space_unwrap(isl_space_domain(isl_map_get_space(pieces)));
	sender = isl_map_from_multi_aff(isl_multi_aff_range_map(dom));
	held = isl_map_apply_range(sender, isl_map_copy(lay->holds));
	ok = dmd_part_map_rel(m, b, held, DMD_ISL_SUBSET, 0);
	isl_map_free(b);
	isl_map_free(held);
	if (ok == isl_bool_true)
		return 0;
	if (ok == isl_bool_false)
		dmd_job_error(m->job, m->poly[x->step]->st->compute_loc, "the "
			"pieces of tensor '%s' that ranks exchange are not "
			"boxes held by one rank each; this distribution is not "
			"supported", m->job->tensors[x->tensor].name);
	return -1;
}

/* From the pieces { [[R[me] -> X[t]] -> R[peer]] -> T[e] } (the ranks
 * as dimensions), what the rank "me" does with its peers, over the mesh
 * parameters: [c] -> { name[t, peer] -> T[e] } with me = c. */
static __isl_give isl_map *dmd_p2p_view(const struct dmd_model *m,
	__isl_take isl_map *pieces, const char *name)
{
	isl_map *v;
	isl_set *s;

	v = isl_map_curry(isl_map_curry(pieces));
	s = isl_map_bind_domain(v, isl_multi_id_copy(m->mesh->ids));
	s = isl_set_align_params(s, isl_space_copy(m->mesh->space));
	s = isl_set_intersect_params(s, isl_set_copy(m->mesh->set));
	v = isl_map_uncurry(isl_set_unwrap(s));
	v = isl_map_flatten_domain(v);
	v = isl_map_set_tuple_name(v, isl_dim_in, name);
	return isl_map_coalesce(v);
}

/* { [[R[r] -> X[t]] -> R[s]] -> T[e] } with the two ranks swapped:
 * { [[R[s] -> X[t]] -> R[r]] -> T[e] }. */
static __isl_give isl_map *dmd_p2p_swap(const struct dmd_model *m,
	__isl_take isl_map *pieces, int len)
{
	isl_space *space = isl_space_domain(isl_map_get_space(pieces));

	return isl_map_preimage_domain_multi_aff(pieces,
		dmd_isl_swap(space, m->mesh->n, len));
}

/* Split the pieces (see the top of this file) into what each rank
 * receives from other ranks, copies from itself, and sends. */
static __isl_give struct dmd_p2p *dmd_p2p_split(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_take isl_map *pieces, int sum)
{
	int len = x->level + 1, np = m->mesh->n;
	struct dmd_p2p *p;
	isl_map *recv, *self, *send;
	isl_set *me;
	int i;

	p = calloc(1, sizeof(*p));
	if (!p)
		goto error;
	p->sum = sum;
	recv = dmd_p2p_view(m, isl_map_copy(pieces), x->name);
	send = dmd_p2p_view(m, dmd_p2p_swap(m, pieces, len), x->name);
	/* the points whose peer is the rank itself */
	me = isl_set_universe(isl_space_domain(isl_map_get_space(recv)));
	for (i = 0; i < np; ++i)
		me = isl_set_equate(me, isl_dim_set, len + i, isl_dim_param, i);
	self = isl_map_intersect_domain(isl_map_copy(recv),
		isl_set_copy(me));
	self = isl_map_project_out(self, isl_dim_in, len, np);
	self = isl_map_set_tuple_name(self, isl_dim_in, x->name);
	recv = isl_map_subtract_domain(recv, isl_set_copy(me));
	send = isl_map_subtract_domain(send, me);
	p->recv_dom = isl_map_domain(isl_map_copy(recv));
	p->send_dom = isl_map_domain(isl_map_copy(send));
	p->self_dom = isl_map_domain(isl_map_copy(self));
	if (dmd_box_of_map(&p->recv, recv) < 0 ||
	    dmd_box_of_map(&p->send, send) < 0 ||
	    dmd_box_of_map(&p->self, self) < 0 ||
	    dmd_part_comb(m, x, p, recv, send) < 0)
		p = dmd_part_p2p_free(p);
	isl_map_free(recv);
	isl_map_free(send);
	isl_map_free(self);
	if (p && (!p->recv_dom || !p->send_dom || !p->self_dom))
		return dmd_part_p2p_free(p);
	return p;
error:
	isl_map_free(pieces);
	return NULL;
}

/* The pieces of transfer "x" of "need" ([c] -> { X[t] -> T[e] }): one
 * holder per element (see the top of this file), or with "partial" one
 * holder per element and coordinate along the partial axes. */
__isl_give struct dmd_p2p *dmd_part_p2p(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_take isl_map *need, int partial)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	isl_map *c, *pieces;
	int i;

	c = isl_map_range_map(dmd_p2p_ranks(m, need));
	c = isl_map_apply_range(c, isl_map_reverse(isl_map_copy(lay->holds)));
	/* partials themselves (a step on the partials): from the holder
	 * at the same coordinates along the partial axes */
	for (i = 0; !partial && i < lay->n_partial; ++i)
		c = dmd_mesh_equate(m->mesh, c, 0, 0, lay->partial[i]);
	if (partial) {
		isl_map *q = dmd_p2p_partial_coords(m, lay);

		c = isl_map_apply_range(c, isl_map_reverse(
			isl_map_domain_map(q)));
		c = isl_map_uncurry(isl_map_range_reverse(c));
	}
	c = dmd_p2p_prefer(m, c);
	if (partial)
		c = isl_map_domain_factor_domain(c);
	pieces = isl_map_uncurry(isl_map_range_reverse(isl_map_curry(c)));
	pieces = isl_map_coalesce(pieces);
	if (!pieces || dmd_p2p_check_boxes(m, x, pieces) < 0) {
		isl_map_free(pieces);
		return NULL;
	}
	return dmd_p2p_split(m, x, pieces, partial);
}

/* { [R[h] -> S[i]] -> R[r] } <-> { [R[h] -> R[r]] -> S[i] } (either way) */
static __isl_give isl_map *dmd_part_by_holder(__isl_take isl_map *c)
{
	return isl_map_uncurry(isl_map_range_reverse(isl_map_curry(c)));
}

/* The senders of the return of step "s" to each holder, iteration by
 * iteration, from "run" ({ R[r] -> S[i] : rank r runs i }):
 *   { [R[h] -> S[i]] -> R[r] }
 * h holds the element i writes, r runs i, and h and r are at the same
 * coordinates along the output's partial axes (the partial sums there
 * stay where they are). */
static __isl_give isl_map *dmd_part_senders(const struct dmd_model *m,
	const struct dmd_layout *lay, __isl_keep isl_map *acc,
	__isl_keep isl_map *run)
{
	isl_map *hi, *c;
	int i;

	hi = isl_map_apply_range(isl_map_copy(lay->holds),
		isl_map_reverse(isl_map_copy(acc)));
	c = isl_map_apply_range(isl_map_range_map(hi),
		isl_map_reverse(isl_map_copy(run)));
	for (i = 0; i < lay->n_partial; ++i)
		c = dmd_mesh_equate(m->mesh, c, 0, 0, lay->partial[i]);
	return c;
}


/* Does every holder receive each iteration that writes an element it
 * holds exactly once, from "pieces" ({ [R[h] -> R[r]] -> T[e] }: r sends
 * h the sum of the iterations of e it ran) with the senders chosen
 * among "c0" ({ [R[h] -> S[i]] -> R[r] }, r runs i)?  Since the chosen
 * senders are one per (h, i) of c0, the relation k below contains them
 * and has c0's domain; it must be single-valued. */
static isl_bool dmd_part_return_once(__isl_keep isl_map *pieces,
	__isl_keep isl_map *c0, __isl_keep isl_map *acc)
{
	isl_map *k;
	isl_set *d, *d0;
	isl_bool ok, ok2;

	/* what h receives, iteration by iteration: every one, once */
	k = dmd_part_by_holder(isl_map_apply_range(isl_map_copy(pieces),
		isl_map_reverse(isl_map_copy(acc))));
	k = isl_map_intersect(k, isl_map_copy(c0));
	ok = isl_map_is_single_valued(k);
	d = isl_map_domain(k);
	d0 = isl_map_domain(isl_map_copy(c0));
	ok2 = isl_set_is_equal(d, d0);
	isl_set_free(d);
	isl_set_free(d0);
	if (ok < 0 || ok2 < 0)
		return isl_bool_error;
	return isl_bool_ok(ok && ok2);
}

/* The return of step "x->step"'s results: "done" ([c] -> { S[i] } run by
 * rank c) and "acc" ({ S[i] -> T[e] }, the access written).  Holder h
 * receives from r the sums r computed of the elements h holds, with r
 * chosen among the ranks that run an iteration by dmd_p2p_prefer (h
 * itself, else a rank in one of h's lines, else the first):
 *   { [[R[h] -> X[]] -> R[r]] -> T[e] }
 * Holders sum what they receive, and r sends the sum over every
 * iteration it ran of an element: so every iteration that writes an
 * element of h must reach h from exactly one chosen r.  When it does not
 * (an element summed over iterations whose copies run on ranks that
 * overlap differently), the job is refused, never summed twice.
 * Where each iteration runs on one rank at most (shown on
 * { S[i] -> R[r] }, which has neither holders nor elements), there is
 * nothing to choose: the senders are all the candidates and the
 * condition holds (the general check, on relations over holders,
 * iterations and ranks, took minutes on a 3-D view of thousands of
 * ranks; this one takes milliseconds). */
__isl_give struct dmd_p2p *dmd_part_return(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_keep isl_set *done,
	__isl_keep isl_map *acc)
{
	isl_map *run, *c0, *c, *pieces, *by_rank;
	isl_space *xs;
	isl_bool ok, once;

	run = isl_set_unbind_params_insert_domain(isl_set_copy(done),
		isl_multi_id_copy(m->mesh->ids));
	run = isl_map_intersect_domain(run, isl_set_unbind_params(
		isl_set_copy(m->mesh->set), isl_multi_id_copy(m->mesh->ids)));
	c0 = dmd_part_senders(m, m->lay[x->tensor], acc, run);
	/* { R[r] -> S[i] } (run consumed) */
	by_rank = isl_map_reverse(run);
	once = isl_map_is_single_valued(by_rank);
	isl_map_free(by_rank);
	if (once < 0)
		c0 = isl_map_free(c0);
	c = once ? isl_map_copy(c0) : dmd_p2p_prefer(m, isl_map_copy(c0));
	/* { [R[h] -> R[r]] -> T[e] } */
	pieces = isl_map_apply_range(dmd_part_by_holder(c),
		isl_map_copy(acc));
	ok = once ? isl_bool_true : dmd_part_return_once(pieces, c0, acc);
	isl_map_free(c0);
	if (ok < 0)
		goto error;
	if (!ok) {
		dmd_job_error(m->job, m->poly[x->step]->st->compute_loc,
			"tensor '%s' is computed away from its holders, "
			"and copies of one iteration run on several ranks "
			"would be summed into it; this schedule is not "
			"supported", m->job->tensors[x->tensor].name);
		goto error;
	}
	/* insert the (empty) time tuple after the holder */
	xs = isl_space_set_alloc(m->ctx, 0, 0);
	xs = isl_space_set_tuple_name(xs, isl_dim_set, x->name);
	pieces = isl_map_curry(pieces);
	pieces = isl_map_apply_domain(pieces, isl_map_reverse(
		isl_map_domain_map(isl_map_from_domain_and_range(
			isl_set_universe(dmd_mesh_rank_space(m->mesh)),
			isl_set_universe(xs)))));
	pieces = isl_map_uncurry(pieces);
	pieces = isl_map_coalesce(pieces);
	if (!pieces)
		return NULL;
	return dmd_p2p_split(m, x, pieces, 1);
error:
	isl_map_free(pieces);
	return NULL;
}

/* Release "p"; returns NULL. */
__isl_null struct dmd_p2p *dmd_part_p2p_free(__isl_take struct dmd_p2p *p)
{
	if (!p)
		return NULL;
	isl_set_free(p->recv_dom);
	isl_set_free(p->send_dom);
	isl_set_free(p->self_dom);
	dmd_box_clear(&p->recv);
	dmd_box_clear(&p->send);
	dmd_box_clear(&p->self);
	free(p->combs);
	free(p);
	return NULL;
}
