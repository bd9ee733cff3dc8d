/* dmd_part_comb.c: combs, the holes of point-to-point pieces.
 *
 * A piece that a rank receives from one holder travels as a box
 * (dmd_part_p2p.c).  Where the receiver's layout is cyclic and the
 * holder's is not (or cyclic with other blocks), the elements of the
 * piece are runs spread over its box: rows {0 1 4 5 8} of a block [0, 9)
 * for a receiver holding rows in blocks of 2 over 2 ranks.  Sending the
 * box would move the holes too (a block to 2-D block-cyclic
 * redistribution then moves 1.7x the ideal bytes).  A comb along
 * dimension d says which elements of the box move: element u of the box
 * (0 <= u < ext) moves when
 *	(u + a) mod P < S
 * with a period P and run S (constants of the transfer) and a phase a
 * (a pw_aff, like the box).  The runtime packs exactly those elements
 * (dmd_irecv_comb, dmd_isend_comb), both sides in the same order.
 *
 * The combs are found, not derived from the layouts: for every
 * dimension with holes, each candidate (P, S) (from the cyclic
 * dimensions of the job's tensors) gives a phase from the pieces
 * themselves, the start of the arc that the piece's residues e mod P
 * form on the circle mod P (dmd_comb_start):
 *	phi = min (R \ ((R + 1) mod P)),  a = (lo - phi) mod P
 * and is kept only where isl shows that every element of every piece
 * passes it (so nothing needed is dropped) and that it drops something.
 * Both sides compute the phase from the same pieces, so they agree.
 */
#include <stdlib.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* Candidate periods and runs (P, S) of combs along a dimension. */
struct dmd_comb_cands {
	int n;
	long P[64], S[64];
};

/* Add (P, S) to "c" unless it is there or meaningless. */
static void dmd_comb_add(struct dmd_comb_cands *c, long P, long S)
{
	int i;

	if (P < 2 || S < 1 || S >= P || c->n >= 64)
		return;
	for (i = 0; i < c->n; ++i)
		if (c->P[i] == P && c->S[i] == S)
			return;
	c->P[c->n] = P;
	c->S[c->n] = S;
	c->n++;
}

/* The candidates along dimension "d" of the tensor of "lay": for every
 * cyclic dimension of every tensor, blocks of S over B holders, (S B, S)
 * in global indices; where "lay" itself is cyclic along d over B'
 * holders in blocks of S' (its local coordinates run over a holder's
 * blocks one after another), also (S B / B', S / B') and (S B / B', S)
 * where they divide, and (S', r) for runs r < S' (a halo of r elements
 * at every block's edge: 8 at most). */
static void dmd_comb_candidates(const struct dmd_model *m,
	const struct dmd_layout *lay, int d, struct dmd_comb_cands *c)
{
	long Bd = lay->cyc && lay->cyc[d] ? lay->cyc_B[d] : 1;
	long r;
	int t, e;

	c->n = 0;
	for (t = 0; t < m->job->n_tensors; ++t) {
		const struct dmd_layout *l = m->lay[t];

		if (!l || !l->cyc)
			continue;
		for (e = 0; e < l->ndim; ++e) {
			long S = l->cyc[e], P = S * l->cyc_B[e];

			if (!S)
				continue;
			dmd_comb_add(c, P, S);
			if (Bd > 1 && P % Bd == 0) {
				if (S % Bd == 0)
					dmd_comb_add(c, P / Bd, S / Bd);
				dmd_comb_add(c, P / Bd, S);
			}
		}
	}
	for (r = 1; Bd > 1 && r < lay->cyc[d] && r <= 8; ++r)
		dmd_comb_add(c, lay->cyc[d], r);
}

/* The constant "v" on the domain of "like". */
static __isl_give isl_pw_aff *dmd_comb_cst(__isl_keep isl_pw_aff *like,
	long v)
{
	isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(like));

	return isl_pw_aff_val_on_domain(dom,
		isl_val_int_from_si(isl_pw_aff_get_ctx(like), v));
}

/* The phase phi of a comb of period P along dimension "d" of the
 * pieces "map" ([c] -> { X[t, peer] -> T[e] }), over the pieces'
 * domain: where the residues R = { e_d mod P } of a piece form one arc
 * of the circle mod P (a run, or a run that wraps past P - 1, or such a
 * run cut short at the box's ends), its start, the residue r of R with
 * (r - 1) mod P not in R:
 *	phi = min (R \ ((R + 1) mod P))
 * (a piece whose residues are several arcs gets one of their starts,
 * and the comb is then refused by dmd_comb_fits). */
static __isl_give isl_pw_aff *dmd_comb_start(__isl_keep isl_map *map, int d,
	long P)
{
	isl_size n = isl_map_dim(map, isl_dim_out);
	isl_ctx *ctx = isl_map_get_ctx(map);
	isl_map *res, *next;
	isl_space *sp;
	isl_aff *e;

	if (n < 0)
		return NULL;
	res = isl_map_project_out(isl_map_copy(map), isl_dim_out, d + 1,
		n - d - 1);
	res = isl_map_project_out(res, isl_dim_out, 0, d);
	sp = isl_space_range(isl_map_get_space(res));
	e = isl_aff_var_on_domain(isl_local_space_from_space(sp),
		isl_dim_set, 0);
	res = isl_map_apply_range(res, isl_map_from_aff(isl_aff_mod_val(
		isl_aff_copy(e), isl_val_int_from_si(ctx, P))));
	e = isl_aff_mod_val(isl_aff_add_constant_si(e, 1),
		isl_val_int_from_si(ctx, P));
	next = isl_map_apply_range(isl_map_copy(res), isl_map_from_aff(e));
	res = isl_map_subtract(res, next);
	return isl_pw_aff_coalesce(isl_map_dim_min(res, 0));
}

/* The elements that a comb of period P, run S and start "phi" (over the
 * domain of "map") lets through along dimension "d", in the space of
 * "map": { X[t, peer] -> T[e] : (e_d - phi) mod P < S }. */
static __isl_give isl_map *dmd_comb_map(__isl_keep isl_map *map, int d,
	long P, long S, __isl_keep isl_pw_aff *phi)
{
	isl_space *w = isl_space_wrap(isl_map_get_space(map));
	isl_size nin = isl_map_dim(map, isl_dim_in);
	isl_multi_aff *dom;
	isl_pw_aff *e, *f;
	isl_ctx *ctx = isl_map_get_ctx(map);

	dom = isl_multi_aff_domain_map(isl_space_unwrap(isl_space_copy(w)));
	e = isl_pw_aff_from_aff(isl_aff_var_on_domain(
		isl_local_space_from_space(w), isl_dim_set, nin + d));
	f = isl_pw_aff_pullback_multi_aff(isl_pw_aff_copy(phi), dom);
	e = isl_pw_aff_mod_val(isl_pw_aff_sub(e, f),
		isl_val_int_from_si(ctx, P));
	f = e ? dmd_comb_cst(e, S) : NULL;
	return isl_set_unwrap(isl_pw_aff_lt_set(e, f));
}

/* Does the comb (P, S, phi) along "d" let every element of "map"
 * through (1), and (if "hull" is given) drop some element of "hull"
 * (else 0)?  -1 on error. */
static int dmd_comb_fits(__isl_keep isl_map *map, __isl_keep isl_map *hull,
	int d, long P, long S, __isl_keep isl_pw_aff *phi)
{
	isl_map *c = dmd_comb_map(map, d, P, S, phi);
	int ok, all = 0;

	ok = dmd_isl_bool(isl_map_is_subset(map, c));
	if (ok == 1 && hull) {
		all = dmd_isl_bool(isl_map_is_subset(hull, c));
		if (all < 0)
			ok = -1;
	}
	isl_map_free(c);
	return ok < 0 ? -1 : ok && !all;
}

/* The phases a = (lo - phi) mod P of "box" along the dimensions with a
 * comb ("P"[d] > 0), from the pieces "map" of that side. */
static int dmd_comb_phases(struct dmd_box *box, __isl_keep isl_map *map,
	const long *P, const long *S)
{
	int d;

	box->phase = calloc(box->n + 1, sizeof(*box->phase));
	if (!box->phase)
		return -1;
	for (d = 0; d < box->n; ++d) {
		isl_pw_aff *phi, *a;

		if (!P[d])
			continue;
		phi = dmd_comb_start(map, d, P[d]);
		if (dmd_comb_fits(map, NULL, d, P[d], S[d], phi) != 1) {
			isl_pw_aff_free(phi);
			return -1;
		}
		a = isl_pw_aff_sub(isl_pw_aff_copy(box->lo[d]), phi);
		a = isl_pw_aff_mod_val(a, isl_val_int_from_si(
			isl_map_get_ctx(map), P[d]));
		box->phase[d] = isl_pw_aff_coalesce(a);
		if (!box->phase[d])
			return -1;
	}
	return 0;
}

/* Give the pieces "p" of transfer "x" combs where their boxes have
 * holes (see the top of this file): "recv" and "send" are the pieces of
 * p->recv and p->send ([c] -> { X[t, peer] -> T[e] }).  Sums (the
 * boxes are added in) and pieces without holes keep plain boxes.
 * Returns 0 (with or without combs) or -1 on error. */
int dmd_part_comb(const struct dmd_model *m, const struct dmd_xfer *x,
	struct dmd_p2p *p, __isl_keep isl_map *recv, __isl_keep isl_map *send)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	int nd = lay->ndim, d, i, any = 0, holes;
	isl_map *hull;
	long *P, *S;

	if (p->sum || nd == 0 || isl_map_plain_is_empty(recv) == isl_bool_true)
		return 0;
	hull = dmd_isl_box_map(lay->space, nd, p->recv.lo, p->recv.ext);
	holes = dmd_isl_bool(isl_map_is_subset(hull, recv));
	if (holes != 0) {
		isl_map_free(hull);
		return holes < 0 ? -1 : 0;
	}
	P = calloc(nd, sizeof(*P));
	S = calloc(nd, sizeof(*S));
	if (!P || !S)
		goto error;
	for (d = 0; d < nd; ++d) {
		struct dmd_comb_cands c;

		dmd_comb_candidates(m, lay, d, &c);
		for (i = 0; i < c.n; ++i) {
			isl_pw_aff *phi = dmd_comb_start(recv, d, c.P[i]);
			int ok = dmd_comb_fits(recv, hull, d, c.P[i], c.S[i],
				phi);

			isl_pw_aff_free(phi);
			if (ok < 0)
				goto error;
			if (ok) {
				P[d] = c.P[i];
				S[d] = c.S[i];
				any = 1;
				break;
			}
		}
	}
	isl_map_free(hull);
	hull = NULL;
	if (!any) {
		free(P);
		free(S);
		return 0;
	}
	if (dmd_comb_phases(&p->recv, recv, P, S) < 0 ||
	    dmd_comb_phases(&p->send, send, P, S) < 0)
		goto error;
	p->period = P;
	p->run = S;
	return 0;
error:
	isl_map_free(hull);
	free(P);
	free(S);
	return -1;
}

/* F(x) = S floor(x / P) + min(S, x mod P): how many of 0 .. x - 1 pass
 * a comb of period P and run S with phase 0. */
static __isl_give isl_pw_aff *dmd_comb_F(__isl_take isl_pw_aff *x, long P,
	long S)
{
	isl_ctx *ctx = isl_pw_aff_get_ctx(x);
	isl_pw_aff *q, *r;

	q = isl_pw_aff_floor(isl_pw_aff_scale_down_val(isl_pw_aff_copy(x),
		isl_val_int_from_si(ctx, P)));
	q = isl_pw_aff_scale_val(q, isl_val_int_from_si(ctx, S));
	r = isl_pw_aff_mod_val(x, isl_val_int_from_si(ctx, P));
	r = isl_pw_aff_min(r, dmd_comb_cst(q, S));
	return isl_pw_aff_add(q, r);
}

/* The number of elements that move along dimension "d" of "box" (a box
 * of "p"): its extent, or with a comb (P, S, phase a) the u in [0, ext)
 * with (u + a) mod P < S, F(a + ext) - F(a) (dmd_comb_F). */
__isl_give isl_pw_aff *dmd_part_comb_count(const struct dmd_p2p *p,
	const struct dmd_box *box, int d)
{
	isl_pw_aff *a, *end;

	if (!p->period || !p->period[d] || !box->phase)
		return isl_pw_aff_copy(box->ext[d]);
	a = box->phase[d];
	end = isl_pw_aff_add(isl_pw_aff_copy(a), isl_pw_aff_copy(box->ext[d]));
	return isl_pw_aff_coalesce(isl_pw_aff_sub(
		dmd_comb_F(end, p->period[d], p->run[d]),
		dmd_comb_F(isl_pw_aff_copy(a), p->period[d], p->run[d])));
}
