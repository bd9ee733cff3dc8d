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
 * with a period P, a run S and a phase a, pw_affs like the box (P and S
 * piecewise constant: pieces between other pairs of holders have other
 * patterns, e.g. from blocks of 2 to blocks of 3 over 3 ranks, in the
 * sender's local coordinates, every third element from one holder and
 * two of every six from another).  The runtime packs exactly those
 * elements (dmd_irecv_comb, dmd_isend_comb), both sides in the same
 * order.
 *
 * The combs are found, not derived from the layouts: along every
 * dimension, each candidate (P, S) (from the cyclic dimensions of the
 * job's tensors, dmd_comb_candidates) gives a phase from the pieces
 * themselves, the start of the arc that a piece's residues e mod P
 * form on the circle mod P (dmd_comb_start):
 *	phi = min (R \ ((R + 1) mod P)),  a = (lo - phi) mod P
 * and isl gives the pieces that it fits: every element of the piece
 * passes (so nothing needed is dropped) and some element of its box
 * does not.  Each piece takes the candidate that fits it and moves the
 * fewest elements (dmd_comb_select); a piece that none fits moves its
 * box whole along that dimension ({ 1, 0, 1 }).  Both sides choose from
 * the same pieces in the same order, so they agree (and the proofs of
 * `check` show it on the emitted code).
 *
 * Where no comb of one run fits, or one that lets through more than
 * needed (a receiver's elements from one holder are several runs per
 * period: blocks of 2 to blocks of 3 over 2 ranks, local rows { 0 2 3 6 }
 * of a holder; blocks of 7 to 2 over 3, where a comb of period 7 and run
 * 6 fits but passes 6 rows of 7), a comb of several runs may: its
 * period is that of the pattern the two layouts form in the holder's
 * coordinates (dmd_comb_periods), its runs are read off the pieces, the
 * arcs of their residues (dmd_comb_arcs, up to DMD_COMB_RUNS), so it
 * lets every element of the piece through, and it is taken where it
 * drops something and moves fewer elements than the best comb of one
 * run (dmd_comb_multi).  The further runs are
 * comb[W d + 2 k + 1 ..] (start after the first run's, length), the
 * box's "runs" how many are printed (dmd_irecv_combs).
 */
#include <stdlib.h>

#include "partition/dmd_part.h"
#include "ir/dmd_int.h"
#include "ir/dmd_isl.h"

#define W	DMD_COMB_W

/* Candidate periods and runs (P, S) of combs along a dimension. */
struct dmd_comb_cands {
	int n;
	long P[DMD_COMB_MAX], S[DMD_COMB_MAX];
};

/* Add (P, S) to "c" unless it is there or meaningless. */
static void dmd_comb_add(struct dmd_comb_cands *c, long P, long S)
{
	int i;

	if (P < 2 || S < 1 || S >= P || c->n >= DMD_COMB_MAX)
		return;
	for (i = 0; i < c->n; ++i)
		if (c->P[i] == P && c->S[i] == S)
			return;
	c->P[c->n] = P;
	c->S[c->n] = S;
	c->n++;
}

/* Add period P for combs of several runs read off the pieces (S = 0),
 * unless it is there or meaningless. */
static void dmd_comb_add_period(struct dmd_comb_cands *c, long P)
{
	int i;

	if (P < 2 || P > 1L << 20 || c->n >= DMD_COMB_MAX)
		return;
	for (i = 0; i < c->n; ++i)
		if (c->P[i] == P && c->S[i] == 0)
			return;
	c->P[c->n] = P;
	c->S[c->n] = 0;
	c->n++;
}

/* The periods of combs of several runs, after the candidates of one
 * run, along dimension "d" of "lay": the periods of the patterns that
 * pieces form in its coordinates.  Where "lay" is cyclic along d (S'
 * over Bd holders, period P' = S' Bd), for every cyclic dimension of
 * the job's tensors (S over B, period P = S B) the least common
 * multiple L of P' and P, over Bd: a holder's elements that a receiver
 * needs repeat after L global indices, L / Bd of the holder's local
 * ones (blocks of 2 over 3 ranks against blocks of 5 over 3: L = 30,
 * 10 local rows); where "lay" is not cyclic along d, P itself.
 * Largest first: the first period that fits is taken
 * (dmd_comb_multi), and a larger one is the finer pattern (blocks of 7
 * to 2 over 3: the layout's own period 7 passes rows of both layouts'
 * pattern of 14 that the receiver does not need). */
static void dmd_comb_periods(const struct dmd_model *m,
	const struct dmd_layout *lay, int d, struct dmd_comb_cands *c)
{
	long Sd = lay->cyc && lay->cyc[d] ? lay->cyc[d] : 0;
	long Bd = Sd ? lay->cyc_B[d] : 1, L[DMD_COMB_MAX];
	int nl = 0, t, e, i, j;

	for (t = 0; t < m->job->n_tensors; ++t)
		for (e = 0; m->lay[t] && m->lay[t]->cyc &&
				e < m->lay[t]->ndim && nl < DMD_COMB_MAX; ++e) {
			long p = m->lay[t]->cyc[e] * m->lay[t]->cyc_B[e];
			long q = Sd * Bd;

			if (!p)
				continue;
			L[nl++] = q ? dmd_int_lcm(p, q) / Bd : p;
		}
	for (i = 0; i < nl; ++i)
		for (j = i + 1; j < nl; ++j)
			if (L[j] > L[i]) {
				long x = L[i];

				L[i] = L[j];
				L[j] = x;
			}
	for (i = 0; i < nl; ++i)
		dmd_comb_add_period(c, L[i]);
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
	dmd_comb_periods(m, lay, d, c);
}

/* The constant "v" on the domain of "like". */
static __isl_give isl_pw_aff *dmd_comb_cst(__isl_keep isl_pw_aff *like,
	long v)
{
	isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(like));

	return isl_pw_aff_val_on_domain(dom,
		isl_val_int_from_si(isl_pw_aff_get_ctx(like), v));
}

/* The residues mod P along dimension "d" of the pieces "map"
 * ([c] -> { X[t, peer] -> T[e] }): { X[t, peer] -> [e_d mod P] }. */
static __isl_give isl_map *dmd_comb_residues(__isl_keep isl_map *map, int d,
	long P)
{
	isl_size n = isl_map_dim(map, isl_dim_out);
	isl_ctx *ctx = isl_map_get_ctx(map);
	isl_map *res;
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
	return isl_map_apply_range(res, isl_map_from_aff(isl_aff_mod_val(e,
		isl_val_int_from_si(ctx, P))));
}

/* The starts of the arcs that the residues "res" ({ X -> [r] }, mod P)
 * form on the circle: the r of "res" with (r - 1) mod P not in it,
 * R \ ((R + 1) mod P). */
static __isl_give isl_map *dmd_comb_arc_starts(__isl_take isl_map *res,
	long P)
{
	isl_ctx *ctx = isl_map_get_ctx(res);
	isl_space *sp;
	isl_aff *e;
	isl_map *next;

	if (!res)
		return NULL;
	sp = isl_space_range(isl_map_get_space(res));
	e = isl_aff_var_on_domain(isl_local_space_from_space(sp),
		isl_dim_set, 0);
	e = isl_aff_mod_val(isl_aff_add_constant_si(e, 1),
		isl_val_int_from_si(ctx, P));
	next = isl_map_apply_range(isl_map_copy(res), isl_map_from_aff(e));
	return isl_map_subtract(res, next);
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
	isl_map *res = dmd_comb_arc_starts(dmd_comb_residues(map, d, P), P);

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

/* The points of the domain of "map" where the comb (P, S, phi) along
 * "d" lets every element of the piece through and drops some element
 * of its box "hull" (same space). */
static __isl_give isl_set *dmd_comb_fits(__isl_keep isl_map *map,
	__isl_keep isl_map *hull, int d, long P, long S,
	__isl_keep isl_pw_aff *phi)
{
	isl_map *c = dmd_comb_map(map, d, P, S, phi);
	isl_set *fit, *drop;

	fit = isl_set_subtract(isl_pw_aff_domain(isl_pw_aff_copy(phi)),
		isl_map_domain(isl_map_subtract(isl_map_copy(map),
		isl_map_copy(c))));
	drop = isl_map_domain(isl_map_subtract(isl_map_copy(hull), c));
	return isl_set_coalesce(isl_set_intersect(fit, drop));
}

/* "pa" on "dom" added to "*acc" (disjoint domains; *acc NULL: none). */
static void dmd_comb_acc(isl_pw_aff **acc, __isl_take isl_pw_aff *pa,
	__isl_keep isl_set *dom)
{
	pa = isl_pw_aff_intersect_domain(pa, isl_set_copy(dom));
	*acc = *acc ? isl_pw_aff_union_add(*acc, pa) : pa;
}

/* { X -> [x] in "map" : x > pa(X) } ("map" with a one-dimensional
 * range, "pa" on its domain). */
static __isl_give isl_map *dmd_comb_above(__isl_take isl_map *map,
	__isl_keep isl_pw_aff *pa)
{
	isl_space *w = isl_space_wrap(isl_map_get_space(map));
	isl_size nin = isl_map_dim(map, isl_dim_in);
	isl_multi_aff *dom;
	isl_pw_aff *x, *f;

	dom = isl_multi_aff_domain_map(isl_space_unwrap(isl_space_copy(w)));
	x = isl_pw_aff_from_aff(isl_aff_var_on_domain(
		isl_local_space_from_space(w), isl_dim_set, nin));
	f = isl_pw_aff_pullback_multi_aff(isl_pw_aff_copy(pa), dom);
	return isl_map_intersect(map, isl_set_unwrap(isl_pw_aff_gt_set(x, f)));
}

/* What dmd_comb_times_piece needs: the factor q and the sum so far. */
struct dmd_comb_times_data {
	isl_pw_aff *q;
	long P;
	isl_pw_aff *r;
};

/* Add to data->r the product of data->q with "aff" on "set" (a piece
 * of a run length): aff q where aff is constant, else the sum over the
 * values v that aff takes on "set" (its least to its largest, within
 * 0 .. P) of v q on { aff = v }. */
static isl_stat dmd_comb_times_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_comb_times_data *data = user;
	isl_ctx *ctx = isl_set_get_ctx(set);
	isl_pw_aff *pa, *qs;
	isl_val *lo, *hi;
	long v, vlo, vhi;

	qs = isl_pw_aff_intersect_domain(isl_pw_aff_copy(data->q),
		isl_set_copy(set));
	if (isl_aff_is_cst(aff) == isl_bool_true) {
		qs = isl_pw_aff_scale_val(qs, isl_aff_get_constant_val(aff));
		data->r = isl_pw_aff_union_add(data->r, qs);
		isl_set_free(set);
		isl_aff_free(aff);
		return data->r ? isl_stat_ok : isl_stat_error;
	}
	pa = isl_pw_aff_alloc(set, aff);
	lo = dmd_isl_opt_val(isl_pw_aff_copy(pa), 0);
	hi = dmd_isl_opt_val(isl_pw_aff_copy(pa), 1);
	if (!lo || !hi)
		data->r = isl_pw_aff_free(data->r);
	vlo = lo && isl_val_is_int(lo) ? isl_val_get_num_si(lo) : 0;
	vhi = hi && isl_val_is_int(hi) ? isl_val_get_num_si(hi) : data->P;
	vlo = vlo < 0 ? 0 : vlo;
	vhi = vhi > data->P ? data->P : vhi;
	isl_val_free(lo);
	isl_val_free(hi);
	for (v = vlo; v <= vhi && data->r; ++v) {
		isl_set *on = isl_pw_aff_eq_set(isl_pw_aff_copy(pa),
			dmd_comb_cst(pa, v));

		data->r = isl_pw_aff_union_add(data->r, isl_pw_aff_scale_val(
			isl_pw_aff_intersect_domain(isl_pw_aff_copy(qs), on),
			isl_val_int_from_si(ctx, v)));
	}
	isl_pw_aff_free(pa);
	isl_pw_aff_free(qs);
	return data->r ? isl_stat_ok : isl_stat_error;
}

/* The product q S of "q" and a run length "S" in 0 .. P: isl's where "S" is
 * constant; else, as a run length can vary with the time point
 * (S = 3 - i0 where the blocks of a tensor held in blocks meet those of
 * a cyclic one) and so can q, piece by piece of S, each piece where it
 * is not constant split by the values it takes there
 * (dmd_comb_times_piece). */
static __isl_give isl_pw_aff *dmd_comb_times(__isl_take isl_pw_aff *q,
	__isl_keep isl_pw_aff *S, long P)
{
	struct dmd_comb_times_data data;
	isl_bool cst = isl_pw_aff_is_cst(S);

	if (cst < 0)
		q = isl_pw_aff_free(q);
	if (cst != isl_bool_false)
		return isl_pw_aff_mul(q, isl_pw_aff_copy(S));
	data.q = q;
	data.P = P;
	data.r = isl_pw_aff_empty(isl_pw_aff_get_space(q));
	if (isl_pw_aff_foreach_piece(S, &dmd_comb_times_piece, &data) < 0)
		data.r = isl_pw_aff_free(data.r);
	isl_pw_aff_free(q);
	return data.r;
}

/* How many of 0 .. x - 1 fall in the run [b, b + S) of period P:
 * G(x) = S floor(x / P) + min(S, max(0, x mod P - b)) (S and b
 * pw_affs; S in 0 .. P). */
static __isl_give isl_pw_aff *dmd_comb_G(__isl_take isl_pw_aff *x, long P,
	__isl_keep isl_pw_aff *b, __isl_keep isl_pw_aff *S)
{
	isl_ctx *ctx = isl_pw_aff_get_ctx(x);
	isl_pw_aff *q, *r;

	q = isl_pw_aff_floor(isl_pw_aff_scale_down_val(isl_pw_aff_copy(x),
		isl_val_int_from_si(ctx, P)));
	q = dmd_comb_times(q, S, P);
	r = isl_pw_aff_sub(isl_pw_aff_mod_val(x, isl_val_int_from_si(ctx, P)),
		isl_pw_aff_copy(b));
	r = isl_pw_aff_max(r, isl_pw_aff_sub(isl_pw_aff_copy(S),
		isl_pw_aff_copy(S)));
	r = isl_pw_aff_min(r, isl_pw_aff_copy(S));
	return isl_pw_aff_add(q, r);
}

/* The start of run "st" relative to the first run's "st0", 0 where
 * there is no such run, on "fit". */
static __isl_give isl_pw_aff *dmd_comb_rel_run(__isl_keep isl_pw_aff *st,
	__isl_keep isl_pw_aff *st0, __isl_keep isl_set *fit)
{
	isl_pw_aff *b = isl_pw_aff_sub(isl_pw_aff_copy(st),
		isl_pw_aff_copy(st0));

	b = dmd_isl_complete(b, fit);
	return isl_pw_aff_intersect_domain(b, isl_set_copy(fit));
}

/* The phase of a comb of period P whose first run starts at residue
 * "st0", for a box at "lo": (lo - st0) mod P, on "fit". */
static __isl_give isl_pw_aff *dmd_comb_phase(__isl_keep isl_pw_aff *lo,
	__isl_keep isl_pw_aff *st0, long P, __isl_keep isl_set *fit)
{
	isl_pw_aff *ph;

	ph = isl_pw_aff_mod_val(isl_pw_aff_sub(isl_pw_aff_copy(lo),
		isl_pw_aff_copy(st0)), isl_val_int_from_si(
		isl_pw_aff_get_ctx(lo), P));
	return isl_pw_aff_intersect_domain(ph, isl_set_copy(fit));
}

/* The arcs of the residues "res" ({ X -> [r] }, mod P) of some pieces,
 * by start, up to DMD_COMB_RUNS of them: st[k] the start of the k-th
 * and len[k] its length (pw_affs where it has one; an arc may wrap
 * past P - 1), and the points with more arcs than that in *many. */
static int dmd_comb_arcs(__isl_keep isl_map *res, long P, isl_pw_aff **st,
	isl_pw_aff **len, isl_set **many)
{
	isl_map *starts, *ext, *gaps, *cur;
	isl_space *sp;
	int k;

	starts = dmd_comb_arc_starts(isl_map_copy(res), P);
	/* the residues on [0, 2P), and the points there not among them */
	sp = isl_space_range(isl_map_get_space(res));
	ext = isl_map_apply_range(isl_map_copy(res), isl_map_union(
		isl_map_identity(isl_space_map_from_set(isl_space_copy(sp))),
		isl_map_from_aff(isl_aff_add_constant_si(isl_aff_var_on_domain(
		isl_local_space_from_space(isl_space_copy(sp)),
		isl_dim_set, 0), P))));
	gaps = isl_map_from_domain_and_range(isl_map_domain(isl_map_copy(
		res)), isl_set_upper_bound_si(isl_set_lower_bound_si(
		isl_set_universe(sp), isl_dim_set, 0, 0), isl_dim_set, 0,
		2 * P - 1));
	gaps = isl_map_subtract(gaps, ext);
	for (k = 0; k < DMD_COMB_RUNS; ++k) {
		cur = k ? dmd_comb_above(isl_map_copy(starts), st[k - 1]) :
			isl_map_copy(starts);
		st[k] = isl_pw_aff_coalesce(dmd_isl_explicit(
			isl_map_dim_min(cur, 0)));
		len[k] = isl_pw_aff_coalesce(dmd_isl_explicit(isl_pw_aff_sub(
			isl_map_dim_min(dmd_comb_above(isl_map_copy(gaps),
			st[k]), 0), isl_pw_aff_copy(st[k]))));
		if (!st[k] || !len[k])
			break;
	}
	*many = k < DMD_COMB_RUNS ? NULL : isl_set_coalesce(isl_map_domain(
		dmd_comb_above(isl_map_copy(starts), st[k - 1])));
	isl_map_free(starts);
	isl_map_free(gaps);
	return *many ? 0 : -1;
}

/* Along dimension "d", give the pieces "map" of "box" on *rest a comb
 * of several runs of one of the periods of "c" with S = 0: its runs are
 * the arcs of the pieces' residues (dmd_comb_arcs), so it lets every
 * element of a piece through; it is taken where it drops some of the
 * box and moves fewer elements than "best" (the count of the best comb
 * of one run, where one fits).  The first such period in the order of
 * "c" is taken (the largest first: a period of the two layouts' pattern
 * moves just the piece's elements).  Adds the periods, phases, first
 * runs and counts to *P, *a, *S, *n, the further runs (start relative
 * to the first, length) to box->comb, sets box->runs to the most
 * runs, moves the pieces combed from *rest to *won and appends the
 * periods taken to "used".  Returns how many periods were taken, -1
 * on error. */
static int dmd_comb_multi(struct dmd_box *box, __isl_keep isl_map *map,
	int d, const struct dmd_comb_cands *c, __isl_keep isl_pw_aff *best,
	isl_set **rest, isl_set **won,
	isl_pw_aff **P, isl_pw_aff **a, isl_pw_aff **S, isl_pw_aff **n,
	struct dmd_comb_used *used)
{
	isl_ctx *ctx = isl_map_get_ctx(map);
	int i, k, taken = 0, err = 0;

	for (i = 0; i < c->n && !err; ++i) {
		isl_pw_aff *st[DMD_COMB_RUNS] = { NULL };
		isl_pw_aff *len[DMD_COMB_RUNS] = { NULL }, *cnt = NULL;
		isl_map *sub, *res;
		isl_set *many = NULL, *fit;
		isl_bool empty;
		long p = c->P[i];

		if (c->S[i] != 0)
			continue;
		empty = isl_set_is_empty(*rest);
		if (empty != isl_bool_false) {
			err = empty < 0;
			break;
		}
		sub = isl_map_intersect_domain(isl_map_copy(map),
			isl_set_copy(*rest));
		res = dmd_comb_residues(sub, d, p);
		if (dmd_comb_arcs(res, p, st, len, &many) < 0)
			err = 1;
		isl_map_free(res);
		fit = err ? NULL : isl_pw_aff_domain(isl_pw_aff_copy(st[0]));
		fit = isl_set_intersect(fit, isl_set_copy(*rest));
		fit = isl_set_coalesce(isl_set_compute_divs(
			isl_set_subtract(fit, many)));
		many = NULL;
		isl_map_free(sub);
		empty = isl_set_is_empty(fit);
		if (empty < 0)
			err = 1;
		if (empty != isl_bool_false) {
			isl_set_free(fit);
			for (k = 0; k < DMD_COMB_RUNS; ++k) {
				isl_pw_aff_free(st[k]);
				isl_pw_aff_free(len[k]);
			}
			continue;
		}
		/* the count */
		for (k = 0; k < DMD_COMB_RUNS && !err; ++k) {
			isl_pw_aff *b, *l, *ph, *end;

			b = k ? dmd_comb_rel_run(st[k], st[0], fit) :
				dmd_comb_cst(st[0], 0);
			l = dmd_isl_complete(isl_pw_aff_copy(len[k]), fit);
			l = isl_pw_aff_intersect_domain(l, isl_set_copy(fit));
			ph = dmd_comb_phase(box->lo[d], st[0], p, fit);
			end = dmd_comb_G(isl_pw_aff_add(isl_pw_aff_copy(ph),
				isl_pw_aff_copy(box->ext[d])), p, b, l);
			end = isl_pw_aff_sub(end, dmd_comb_G(ph, p, b, l));
			cnt = k ? isl_pw_aff_add(cnt, end) : end;
			if (!cnt)
				err = 1;
			isl_pw_aff_free(b);
			isl_pw_aff_free(l);
		}
		cnt = isl_pw_aff_coalesce(cnt);
		/* something dropped, and fewer than a comb of one run */
		fit = isl_set_intersect(fit, isl_pw_aff_lt_set(
			isl_pw_aff_copy(cnt), isl_pw_aff_copy(box->ext[d])));
		if (best)
			fit = isl_set_subtract(fit, isl_pw_aff_ge_set(
				isl_pw_aff_copy(cnt), isl_pw_aff_copy(best)));
		empty = isl_set_is_empty(fit);
		if (empty < 0 || !cnt)
			err = 1;
		if (empty != isl_bool_false || err) {
			isl_set_free(fit);
			isl_pw_aff_free(cnt);
			for (k = 0; k < DMD_COMB_RUNS; ++k) {
				isl_pw_aff_free(st[k]);
				isl_pw_aff_free(len[k]);
			}
			continue;
		}
		dmd_comb_acc(n, cnt, fit);
		dmd_comb_acc(a, dmd_comb_phase(box->lo[d], st[0], p, fit), fit);
		dmd_comb_acc(P, isl_pw_aff_val_on_domain(isl_set_copy(fit),
			isl_val_int_from_si(ctx, p)), fit);
		dmd_comb_acc(S, isl_pw_aff_copy(len[0]), fit);
		for (k = 1; k < DMD_COMB_RUNS && !err; ++k) {
			isl_set *has = isl_set_intersect(isl_pw_aff_domain(
				isl_pw_aff_copy(st[k])), isl_set_copy(fit));

			empty = isl_set_is_empty(has);
			isl_set_free(has);
			if (empty < 0)
				err = 1;
			if (empty == isl_bool_false && box->runs < k + 1)
				box->runs = k + 1;
			dmd_comb_acc(&box->comb[W * d + 2 * k + 1],
				dmd_comb_rel_run(st[k], st[0], fit), fit);
			dmd_comb_acc(&box->comb[W * d + 2 * k + 2],
				dmd_isl_complete(isl_pw_aff_copy(len[k]), fit),
				fit);
		}
		*rest = isl_set_subtract(*rest, isl_set_copy(fit));
		*won = isl_set_union(*won, fit);
		for (k = 0; k < DMD_COMB_RUNS; ++k) {
			isl_pw_aff_free(st[k]);
			isl_pw_aff_free(len[k]);
		}
		if (used) {
			used->P[used->n] = p;
			used->S[used->n] = 0;
			used->n++;
		}
		if (!*rest || !*won || !*n)
			err = 1;
		taken++;
	}
	return err ? -1 : taken;
}

/* Choose the combs along dimension "d" of the pieces "map" of "box"
 * (one side of the pieces: [c] -> { X[t, peer] -> T[e] }): piece by
 * piece, of the candidates of "c" that let its elements through and
 * drop some of its box, the one that moves the fewest elements (the
 * first of them in the order of "c" on a tie); the pieces for which
 * none does keep their box along d ({ 1, 0, 1 }).  Sets
 * box->comb[3 d ..] to (P, a, S) and box->cnt[d] to the elements that
 * move, all pw_affs on the pieces' domain; "used" (if not NULL) gets
 * the candidates chosen for some piece, in the order of "c" (so that
 * the other side, choosing among those, chooses alike).  Returns the
 * number chosen, -1 on error. */
static int dmd_comb_select(struct dmd_box *box, __isl_keep isl_map *map,
	__isl_keep isl_map *hull, int d, const struct dmd_comb_cands *c,
	struct dmd_comb_used *used)
{
	isl_ctx *ctx = isl_map_get_ctx(map);
	isl_set *rest, *won, *avail;
	isl_set *sel[DMD_COMB_MAX] = { NULL };
	isl_pw_aff *an[DMD_COMB_MAX] = { NULL }, *nn[DMD_COMB_MAX] = { NULL };
	isl_pw_aff *best = NULL;
	isl_pw_aff *P = NULL, *S = NULL, *a = NULL, *n = NULL, *one;
	int i, j, k = 0, err = 0;

	/* the pieces' domain, its divisions explicit (dmd_isl_explicit) */
	rest = isl_set_coalesce(isl_set_compute_divs(isl_map_domain(
		isl_map_copy(map))));
	for (i = 0; i < c->n && !err; ++i) {
		isl_pw_aff *phi, *end;
		isl_set *fit, *win;

		if (!c->S[i])
			continue;
		phi = dmd_comb_start(map, d, c->P[i]);
		fit = dmd_comb_fits(map, hull, d, c->P[i], c->S[i], phi);

		an[i] = isl_pw_aff_mod_val(isl_pw_aff_sub(isl_pw_aff_copy(
			box->lo[d]), phi), isl_val_int_from_si(ctx, c->P[i]));
		an[i] = isl_pw_aff_intersect_domain(an[i], fit);
		end = isl_pw_aff_add(isl_pw_aff_copy(an[i]),
			isl_pw_aff_copy(box->ext[d]));
		nn[i] = isl_pw_aff_coalesce(isl_pw_aff_sub(dmd_comb_F(end,
			c->P[i], c->S[i]), dmd_comb_F(isl_pw_aff_copy(an[i]),
			c->P[i], c->S[i])));
		if (!nn[i]) {
			err = 1;
			break;
		}
		/* where it fits and no earlier one fits as well */
		win = isl_pw_aff_domain(isl_pw_aff_copy(nn[i]));
		if (best) {
			win = isl_set_subtract(win, isl_pw_aff_domain(
				isl_pw_aff_copy(best)));
			win = isl_set_union(win, isl_pw_aff_lt_set(
				isl_pw_aff_copy(nn[i]), isl_pw_aff_copy(best)));
		}
		win = isl_set_coalesce(win);
		for (j = 0; j < i; ++j)
			if (sel[j])
				sel[j] = isl_set_subtract(sel[j],
					isl_set_copy(win));
		sel[i] = win;
		if (best)
			best = isl_pw_aff_subtract_domain(best,
				isl_set_copy(win));
		dmd_comb_acc(&best, isl_pw_aff_copy(nn[i]), win);
		if (best)
			best = isl_pw_aff_coalesce(best);
		if (!sel[i] || !best)
			err = 1;
	}
	/* combs of several runs where they move fewer */
	won = isl_set_empty(isl_set_get_space(rest));
	avail = isl_set_copy(rest);
	if (!err) {
		int t = dmd_comb_multi(box, map, d, c, best, &avail,
			&won, &P, &a, &S, &n, used);

		if (t < 0)
			err = 1;
		k += t < 0 ? 0 : t;
	}
	isl_set_free(avail);
	for (i = 0; i < c->n && !err; ++i)
		if (sel[i])
			sel[i] = isl_set_subtract(sel[i], isl_set_copy(won));
	rest = isl_set_subtract(rest, won);
	for (i = 0; i < c->n && !err; ++i) {
		isl_bool empty;

		if (!c->S[i])
			continue;
		empty = isl_set_is_empty(sel[i]);

		if (empty < 0)
			err = 1;
		if (empty != isl_bool_false)
			continue;
		dmd_comb_acc(&n, isl_pw_aff_copy(nn[i]), sel[i]);
		dmd_comb_acc(&a, isl_pw_aff_copy(an[i]), sel[i]);
		dmd_comb_acc(&P, isl_pw_aff_val_on_domain(isl_set_copy(sel[i]),
			isl_val_int_from_si(ctx, c->P[i])), sel[i]);
		dmd_comb_acc(&S, isl_pw_aff_val_on_domain(isl_set_copy(sel[i]),
			isl_val_int_from_si(ctx, c->S[i])), sel[i]);
		rest = isl_set_subtract(rest, isl_set_copy(sel[i]));
		if (used) {
			used->P[used->n] = c->P[i];
			used->S[used->n] = c->S[i];
			used->n++;
		}
		k++;
	}
	if (err || !rest) {
		k = -1;
		goto done;
	}
	if (k == 0)
		goto done;
	one = isl_pw_aff_val_on_domain(isl_set_copy(rest),
		isl_val_one(ctx));
	dmd_comb_acc(&P, isl_pw_aff_copy(one), rest);
	dmd_comb_acc(&S, isl_pw_aff_copy(one), rest);
	dmd_comb_acc(&a, isl_pw_aff_sub(isl_pw_aff_copy(one),
		isl_pw_aff_copy(one)), rest);
	dmd_comb_acc(&n, isl_pw_aff_copy(box->ext[d]), rest);
	isl_pw_aff_free(one);
	box->comb[W * d] = isl_pw_aff_coalesce(P);
	box->comb[W * d + 1] = isl_pw_aff_coalesce(a);
	box->comb[W * d + 2] = isl_pw_aff_coalesce(S);
	box->cnt[d] = isl_pw_aff_coalesce(n);
	P = S = a = n = NULL;
	if (!box->comb[W * d] || !box->comb[W * d + 1] ||
	    !box->comb[W * d + 2] || !box->cnt[d])
		k = -1;
done:
	for (i = 0; i < c->n; ++i) {
		isl_set_free(sel[i]);
		isl_pw_aff_free(an[i]);
		isl_pw_aff_free(nn[i]);
	}
	isl_pw_aff_free(best);
	isl_set_free(rest);
	isl_pw_aff_free(P);
	isl_pw_aff_free(S);
	isl_pw_aff_free(a);
	isl_pw_aff_free(n);
	return k;
}

/* Allocate the combs of "box" (3 per dimension) and its counts. */
static int dmd_comb_alloc(struct dmd_box *box)
{
	box->comb = calloc(W * box->n + 1, sizeof(*box->comb));
	box->runs = 1;
	box->cnt = calloc(box->n + 1, sizeof(*box->cnt));
	return box->comb && box->cnt ? 0 : -1;
}

/* The further runs of the combs of "box" (its box->runs - 1 after the
 * first) defined wherever its periods are: 0 (start and length: no
 * run) where a piece has fewer. */
static int dmd_comb_complete_runs(struct dmd_box *box)
{
	int d, k;

	for (d = 0; d < box->n; ++d) {
		isl_set *dom;

		if (!box->comb[W * d])
			continue;
		dom = isl_pw_aff_domain(isl_pw_aff_copy(box->comb[W * d]));
		for (k = 2 * 1 + 1; k < 1 + 2 * box->runs; ++k) {
			isl_pw_aff *c = box->comb[W * d + k];

			box->comb[W * d + k] = c ? dmd_isl_complete(c, dom) :
				dmd_comb_cst(box->comb[W * d], 0);
			if (!box->comb[W * d + k]) {
				isl_set_free(dom);
				return -1;
			}
		}
		isl_set_free(dom);
	}
	return 0;
}

/* Give the pieces "p" of transfer "x" combs where their boxes have
 * holes (see the top of this file): "recv" and "send" are the pieces of
 * p->recv and p->send ([c] -> { X[t, peer] -> T[e] }).  Sums (the
 * boxes are added in) and pieces without holes keep plain boxes.  Along
 * a dimension where some piece has a comb, every piece has one (those
 * without, { 1, 0, 1 }); the receiving side chooses among all the
 * candidates, the sending side among those chosen, in the same order.
 * Returns 0 (with or without combs) or -1 on error. */
int dmd_part_comb(const struct dmd_model *m, const struct dmd_xfer *x,
	struct dmd_p2p *p, __isl_keep isl_map *recv, __isl_keep isl_map *send)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	int nd = lay->ndim, d, k, any = 0, holes;
	isl_map *hull, *shull = NULL;
	struct dmd_comb_used *used;

	if (p->sum || nd == 0 || isl_map_plain_is_empty(recv) == isl_bool_true)
		return 0;
	hull = dmd_isl_box_map(lay->space, nd, p->recv.lo, p->recv.ext);
	holes = dmd_isl_bool(dmd_part_map_rel(m, hull, recv, DMD_ISL_SUBSET,
		1));
	if (holes != 0) {
		isl_map_free(hull);
		return holes < 0 ? -1 : 0;
	}
	used = calloc(nd, sizeof(*used));
	if (!used || dmd_comb_alloc(&p->recv) < 0)
		goto error;
	for (d = 0; d < nd; ++d) {
		struct dmd_comb_cands c;

		dmd_comb_candidates(m, lay, d, &c);
		k = dmd_comb_select(&p->recv, recv, hull, d, &c, &used[d]);
		if (k < 0)
			goto error;
		any |= k > 0;
	}
	if (!any) {
		isl_map_free(hull);
		free(used);
		dmd_box_drop_combs(&p->recv);
		return 0;
	}
	if (dmd_comb_complete_runs(&p->recv) < 0)
		goto error;
	shull = dmd_isl_box_map(lay->space, nd, p->send.lo, p->send.ext);
	if (dmd_comb_alloc(&p->send) < 0)
		goto error;
	for (d = 0; d < nd; ++d) {
		struct dmd_comb_cands c;

		c.n = used[d].n;
		for (k = 0; k < c.n; ++k) {
			c.P[k] = used[d].P[k];
			c.S[k] = used[d].S[k];
		}
		k = dmd_comb_select(&p->send, send, shull, d, &c, NULL);
		if (k < 0 || k != used[d].n)
			goto error;
	}
	if (dmd_comb_complete_runs(&p->send) < 0)
		goto error;
	if (p->send.runs != p->recv.runs) {
		/* both sides post the same fields */
		int r = p->send.runs > p->recv.runs ? p->send.runs :
			p->recv.runs;

		p->send.runs = p->recv.runs = r;
		if (dmd_comb_complete_runs(&p->recv) < 0 ||
		    dmd_comb_complete_runs(&p->send) < 0)
			goto error;
	}
	isl_map_free(hull);
	isl_map_free(shull);
	p->combs = used;
	return 0;
error:
	isl_map_free(hull);
	isl_map_free(shull);
	free(used);
	return -1;
}

/* The number of elements that move along dimension "d" of "box": its
 * extent, or with combs the u in [0, ext) with (u + a) mod P < S,
 * F(a + ext) - F(a) (dmd_comb_F) where it has one. */
__isl_give isl_pw_aff *dmd_part_comb_count(const struct dmd_box *box, int d)
{
	if (!box->cnt || !box->cnt[d])
		return isl_pw_aff_copy(box->ext[d]);
	return isl_pw_aff_copy(box->cnt[d]);
}
