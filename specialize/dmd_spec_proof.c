/* dmd_spec_proof.c: proofs on the programs as emitted.
 *
 * The transfers are read back from the statements of every cell's
 * program (dmd_spec.c): their domains and the quantities the printer
 * prints (peers, box origins and extents, roots), each a pw_aff over the
 * statement's domain with the cell's constraints.  Put together over all
 * cells they are relations over the mesh parameters, e.g. the receives
 * of a point-to-point transfer
 *	[c] -> { [t, s, lo, ext] : rank c receives the box lo, ext from s
 *				    at time point t }
 * and on them, for all ranks at once (nothing iterates over ranks):
 *   matching: every send meets exactly one receive with the same box,
 *     every receive one send;
 *   coverage: every element a rank reads at a time point is one it holds
 *     or one the pieces of that time point bring (a broadcast's box, a
 *     shift's box, the pieces of a point-to-point transfer), and the view
 *     it reads through starts where the pieces land;
 *   sources: a sender holds what it sends (a broadcast's root its box; a
 *     shift sends what it had at the previous time point; results are
 *     returned by the ranks that computed them);
 *   outputs: every holder of an output element gets the result of every
 *     iteration that writes it exactly once (computed itself, or returned
 *     by exactly one rank that ran it; partial sums counted once over the
 *     partial axes).
 * A failure names a witness: the rank, the time point and the element.
 * The printer (emit/) prints these very quantities, so a bug in the
 * plan or in the specializer shows here, before anything is emitted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/local_space.h>

#include "specialize/dmd_spec.h"
#include "ir/dmd_isl.h"

/* A set that dmd_proof_collect put together, kept for its next call
 * with the same arguments. */
struct dmd_proof_memo {
	const struct dmd_xfer *x;
	int step, kind, keep, fields, undef;
	isl_set *set;
};

/* The named fields (dmd_spec_field) that the proofs read of a
 * statement, in order: the peer and box of a point-to-point piece, a
 * box, an origin, the origin of the transfer's buffer (where a piece
 * lands), a broadcast's root and box, the view a broadcast's wait sets,
 * the boxes a shift receives and sends. */
static const enum dmd_spec_field dmd_proof_piece[] = { DMD_FIELD_PEER,
	DMD_FIELD_LO, DMD_FIELD_EXT };
static const enum dmd_spec_field dmd_proof_piece_comb[] = { DMD_FIELD_PEER,
	DMD_FIELD_LO, DMD_FIELD_EXT, DMD_FIELD_COMB };
static const enum dmd_spec_field dmd_proof_box[] = { DMD_FIELD_LO,
	DMD_FIELD_EXT };
static const enum dmd_spec_field dmd_proof_lo[] = { DMD_FIELD_LO };
static const enum dmd_spec_field dmd_proof_blo[] = { DMD_FIELD_BLO };
static const enum dmd_spec_field dmd_proof_root_box[] = { DMD_FIELD_ROOT,
	DMD_FIELD_LO, DMD_FIELD_EXT };
static const enum dmd_spec_field dmd_proof_root_view[] = { DMD_FIELD_LO,
	DMD_FIELD_ROOT };
static const enum dmd_spec_field dmd_proof_shift_boxes[] = { DMD_FIELD_LO,
	DMD_FIELD_EXT, DMD_FIELD_PLO, DMD_FIELD_PEXT };
/* Such a list and its length, as arguments. */
#define DMD_PROOF_FIELDS(f) f, (int) (sizeof(f) / sizeof(f[0]))

/* The state of the proofs of one plan over its cells' programs. */
struct dmd_proof_run {
	const struct dmd_plan *plan;
	const struct dmd_model *m;
	struct dmd_spec *const *spec;	/* per cell */
	int n_spec;
	struct dmd_proofs *rep;
	int n_memo;
	struct dmd_proof_memo *memo;	/* owned */
};

/* The number of time dimensions of transfer "x". */
static int dmd_proof_len(const struct dmd_xfer *x)
{
	return x->level + 1;
}

/* Add quantity "q" of a statement with domain "dom" (in "space") to
 * "list", only on the statement's instances on this cell (fewer pieces);
 * it must be defined on the whole domain, else *undef is set.  In a step
 * distributed over view "view" (>= 0) "q" is written in the view's
 * coordinates, as printed (c_a = dmd_coord(..)); it is read back in the
 * mesh coordinates through the same bijection. */
static __isl_give isl_pw_aff_list *dmd_proof_quantity(
	const struct dmd_model *m, int view, __isl_take isl_pw_aff_list *list,
	__isl_keep isl_set *dom, __isl_keep isl_space *space,
	__isl_keep isl_pw_aff *q, int *undef)
{
	isl_pw_aff *pa;
	isl_set *def;

	pa = isl_pw_aff_copy(q);
	if (view >= 0)
		pa = dmd_mesh_unbase_pw_aff(m->mesh, view, pa);
	pa = isl_pw_aff_align_params(pa, isl_space_copy(space));
	def = isl_pw_aff_domain(isl_pw_aff_copy(pa));
	if (dmd_isl_bool(isl_set_is_subset(dom, def)) != 1)
		*undef = 1;
	isl_set_free(def);
	pa = isl_pw_aff_coalesce(isl_pw_aff_gist(pa, isl_set_copy(dom)));
	return isl_pw_aff_list_add(list, pa);
}

/* The fields "f" (nf of them, see dmd_spec_field) as one number, for
 * the memo. */
static int dmd_proof_key(const enum dmd_spec_field *f, int nf)
{
	int i, key = nf;

	for (i = 0; i < nf; ++i)
		key = 16 * key + (int) f[i];
	return key;
}

static const struct dmd_p2p *dmd_proof_combed(const struct dmd_xfer *x);

/* The number of quantities per dimension of the combs that the
 * receives and sends of "x" post (dmd_spec_push_combs): period, phase,
 * first run and the further runs' starts and lengths. */
static int dmd_proof_comb_w(const struct dmd_xfer *x)
{
	const struct dmd_p2p *pp = dmd_proof_combed(x);
	int runs = pp && pp->recv.runs ? pp->recv.runs : 1;

	return 1 + 2 * runs;
}

/* The number of quantities in the fields "f" (nf of them) of the
 * statements of transfer "x". */
static int dmd_proof_n(const struct dmd_model *m, const struct dmd_xfer *x,
	const enum dmd_spec_field *f, int nf)
{
	int i, n = 0;

	for (i = 0; i < nf; ++i)
		n += f[i] == DMD_FIELD_PAR || f[i] == DMD_FIELD_ROOT ? 1 :
			f[i] == DMD_FIELD_PEER ? m->mesh->n :
			f[i] == DMD_FIELD_COMB ? dmd_proof_comb_w(x) *
				m->lay[x->tensor]->ndim :
			m->lay[x->tensor]->ndim;
	return n;
}

/* The image of the domain of statement "s" (of a transfer) under its
 * first "keep" dimensions followed by the quantities of its named fields
 * "f" (nf of them, dmd_spec_field: the quantities that emit prints):
 *	[c] -> { [d_0, .., d_keep-1, q_0, ..] : d in dom }
 * (anonymous tuple), or an empty set if the cell does not run "s".
 * Every quantity must be defined on the whole domain (else *undef is
 * set: the printed expression would be arbitrary somewhere).  In a step
 * distributed over view "view" (>= 0) the quantities are written in the
 * view's coordinates, as printed (c_a = dmd_coord(..)); they are read
 * back in the mesh coordinates through the same bijection. */
static __isl_give isl_set *dmd_proof_image(const struct dmd_model *m,
	const struct dmd_spec_stmt *s, int view, int keep,
	const enum dmd_spec_field *f, int nf, int *undef)
{
	int np = m->mesh->n, nd = m->lay[s->xfer->tensor]->ndim;
	int n = dmd_proof_n(m, s->xfer, f, nf);
	isl_space *space;
	isl_pw_aff_list *list;
	isl_multi_pw_aff *mpa;
	isl_pw_aff **q;
	isl_map *map;
	int i, j, nq;

	if (!s->dom)
		return isl_set_empty(dmd_isl_set_space(m->mesh->space, NULL,
			keep + n));
	space = isl_set_get_space(s->dom);
	list = isl_pw_aff_list_alloc(m->ctx, keep + n);
	for (i = 0; i < keep; ++i)
		list = isl_pw_aff_list_add(list, dmd_isl_dim(space, i));
	for (j = 0; j < nf; ++j) {
		q = dmd_spec_field(s, f[j], np, nd, &nq);
		if (!q)
			list = isl_pw_aff_list_free(list);
		for (i = 0; q && i < nq; ++i)
			list = dmd_proof_quantity(m, view, list, s->dom, space,
				q[i], undef);
	}
	mpa = isl_multi_pw_aff_from_pw_aff_list(
		isl_space_map_from_domain_and_range(isl_space_copy(space),
		dmd_isl_set_space(space, NULL, keep + n)), list);
	isl_space_free(space);
	map = isl_map_from_multi_pw_aff(mpa);
	map = isl_map_intersect_domain(map, isl_set_copy(s->dom));
	return isl_set_coalesce(isl_map_range(map));
}

static __isl_give isl_set *dmd_proof_gather(struct dmd_proof_run *pr,
	const struct dmd_xfer *x, int step, enum dmd_spec_kind kind,
	int keep, const enum dmd_spec_field *f, int nf, int *undef);

/* The union over every cell of the images (dmd_proof_image) of the
 * statements of kind "kind" that belong to transfer "x" (NULL: to no
 * transfer, for COMP statements of step "step"). */
static __isl_give isl_set *dmd_proof_collect(struct dmd_proof_run *pr,
	const struct dmd_xfer *x, int step, enum dmd_spec_kind kind,
	int keep, const enum dmd_spec_field *f, int nf, int *undef)
{
	int key = dmd_proof_key(f, nf);
	struct dmd_proof_memo *mm;
	isl_set *all;
	int i, u = 0;

	for (i = 0; i < pr->n_memo; ++i) {
		mm = &pr->memo[i];
		if (mm->x == x && mm->step == step && mm->kind == (int) kind &&
		    mm->keep == keep && mm->fields == key) {
			*undef |= mm->undef;
			return isl_set_copy(mm->set);
		}
	}
	all = dmd_proof_gather(pr, x, step, kind, keep, f, nf, &u);
	*undef |= u;
	mm = realloc(pr->memo, (pr->n_memo + 1) * sizeof(*mm));
	if (!mm)
		return all;
	pr->memo = mm;
	mm = &pr->memo[pr->n_memo++];
	*mm = (struct dmd_proof_memo) { x, step, kind, keep, key, u,
		isl_set_copy(all) };
	return all;
}

/* dmd_proof_collect without the memo. */
static __isl_give isl_set *dmd_proof_gather(struct dmd_proof_run *pr,
	const struct dmd_xfer *x, int step, enum dmd_spec_kind kind,
	int keep, const enum dmd_spec_field *f, int nf, int *undef)
{
	isl_set *all;
	int c, i;

	all = isl_set_empty(dmd_isl_set_space(pr->m->mesh->space, NULL,
		keep + dmd_proof_n(pr->m, x, f, nf)));
	for (c = 0; c < pr->n_spec; ++c) {
		struct dmd_spec_step *ss = &pr->spec[c]->steps[step];

		for (i = 0; i < ss->n_stmt; ++i) {
			struct dmd_spec_stmt *s = &ss->stmt[i];

			if (s->kind != kind || s->xfer != x)
				continue;
			all = isl_set_union(all, dmd_proof_image(pr->m, s,
				pr->m->poly[step]->view, keep, f, nf, undef));
		}
	}
	return isl_set_coalesce(all);
}

/* Add "n" dimensions to set "set" holding the elements of the boxes
 * whose origins start at dimension "lo" and extents at "lo + nd":
 *	{ [v..] } -> { [v.., e] : lo <= e < lo + ext }. */
static __isl_give isl_set *dmd_proof_add_elements(__isl_take isl_set *set,
	int lo, int nd)
{
	isl_local_space *ls;
	int n = isl_set_dim(set, isl_dim_set), d;

	set = isl_set_add_dims(set, isl_dim_set, nd);
	ls = isl_local_space_from_space(isl_set_get_space(set));
	for (d = 0; d < nd; ++d) {
		isl_constraint *c;

		c = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
		c = isl_constraint_set_coefficient_si(c, isl_dim_set, n + d, 1);
		c = isl_constraint_set_coefficient_si(c, isl_dim_set, lo + d,
			-1);
		set = isl_set_add_constraint(set, c);
		c = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
		c = isl_constraint_set_coefficient_si(c, isl_dim_set, n + d,
			-1);
		c = isl_constraint_set_coefficient_si(c, isl_dim_set,
			lo + d, 1);
		c = isl_constraint_set_coefficient_si(c, isl_dim_set,
			lo + nd + d, 1);
		c = isl_constraint_set_constant_si(c, -1);
		set = isl_set_add_constraint(set, c);
	}
	isl_local_space_free(ls);
	return set;
}

/* The set of "set" where quantity "pos" equals "v". */
static __isl_give isl_set *dmd_proof_fix(__isl_take isl_set *set, int pos,
	long v)
{
	return isl_set_fix_si(set, isl_dim_set, pos, v);
}

/* Keep of "set" ({ [v.., e] }, the nd elements e last, after the
 * boxes' origins at "lo" and the combs at "comb": period, phase and
 * first run per dimension, then the further runs' starts and lengths,
 * "w" quantities per dimension) the elements that the combs let
 * through: along dimension d, where the period is 1 every element (the
 * box), where it is one of those "pp" uses there, (P, S), the e_d with
 * (e_d - lo_d + a_d) mod P < S (dmd_part_comb.c), or for a period of
 * several runs (S = 0 in "pp"), r = (e_d - lo_d + a_d) mod P in
 * [0, S1) or in [b_k, b_k + S_k) for a further run k, nowhere else (a
 * period the plan does not know brings nothing). */
static __isl_give isl_set *dmd_proof_comb(__isl_take isl_set *set, int lo,
	int comb, int nd, int w, const struct dmd_p2p *pp)
{
	int n = isl_set_dim(set, isl_dim_set) - nd, d, i, k;

	for (d = 0; d < nd && set; ++d) {
		const struct dmd_comb_used *u = &pp->combs[d];
		isl_ctx *ctx = isl_set_get_ctx(set);
		int c = comb + w * d;
		isl_set *all;

		all = dmd_proof_fix(dmd_proof_fix(isl_set_copy(set),
			c, 1), c + 2, 1);
		for (i = 0; i < u->n; ++i) {
			isl_set *one, *in;
			isl_local_space *ls;
			isl_pw_aff *e, *t;

			one = dmd_proof_fix(isl_set_copy(set), c, u->P[i]);
			if (u->S[i])
				one = dmd_proof_fix(one, c + 2, u->S[i]);
			ls = isl_local_space_from_space(isl_set_get_space(set));
			e = isl_pw_aff_from_aff(isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_set, n + d));
			e = isl_pw_aff_sub(e, isl_pw_aff_from_aff(
				isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, lo + d)));
			e = isl_pw_aff_add(e, isl_pw_aff_from_aff(
				isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, c + 1)));
			e = isl_pw_aff_mod_val(e, isl_val_int_from_si(ctx,
				u->P[i]));
			t = isl_pw_aff_from_aff(isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_set, c + 2));
			in = isl_pw_aff_lt_set(isl_pw_aff_copy(e), t);
			for (k = 1; !u->S[i] && 2 * k + 2 < w; ++k) {
				isl_pw_aff *b, *l;

				b = isl_pw_aff_from_aff(isl_aff_var_on_domain(
					isl_local_space_copy(ls), isl_dim_set,
					c + 2 * k + 1));
				l = isl_pw_aff_add(isl_pw_aff_copy(b),
					isl_pw_aff_from_aff(
					isl_aff_var_on_domain(
					isl_local_space_copy(ls), isl_dim_set,
					c + 2 * k + 2)));
				in = isl_set_union(in, isl_set_intersect(
					isl_pw_aff_ge_set(isl_pw_aff_copy(e),
					b), isl_pw_aff_lt_set(
					isl_pw_aff_copy(e), l)));
			}
			isl_pw_aff_free(e);
			isl_local_space_free(ls);
			one = isl_set_intersect(one, in);
			all = isl_set_union(all, one);
		}
		isl_set_free(set);
		set = isl_set_coalesce(all);
	}
	return set;
}

/* The elements of the boxes of "pieces" ([c] -> { [t(len), ..] } with
 * the origins at "lo", the extents after them and, if "pp" (the pieces
 * posted) has combs, the combs after those) as a map like "like"
 * ([c] -> { X[t] -> T[e] }). */
static __isl_give isl_map *dmd_proof_elements_comb(__isl_take isl_set *pieces,
	int len, int lo, int nd, __isl_keep isl_map *like,
	const struct dmd_p2p *pp)
{
	int n = isl_set_dim(pieces, isl_dim_set);
	isl_map *map;

	pieces = dmd_proof_add_elements(pieces, lo, nd);
	if (pp && pp->combs)
		pieces = dmd_proof_comb(pieces, lo, lo + 2 * nd, nd,
			1 + 2 * (pp->recv.runs ? pp->recv.runs : 1), pp);
	pieces = isl_set_project_out(pieces, isl_dim_set, len, n - len);
	map = isl_map_from_range(pieces);
	map = isl_map_move_dims(map, isl_dim_in, 0, isl_dim_out, 0, len);
	map = isl_map_set_tuple_name(map, isl_dim_in,
		isl_map_get_tuple_name(like, isl_dim_in));
	map = isl_map_set_tuple_name(map, isl_dim_out,
		isl_map_get_tuple_name(like, isl_dim_out));
	map = isl_map_align_params(map, isl_map_get_space(like));
	return isl_map_coalesce(map);
}

/* The elements of the boxes of "pieces" ([c] -> { [t(len), ..] } with
 * the origins at "lo" and the extents after them) as a map like
 * "like" ([c] -> { X[t] -> T[e] }). */
static __isl_give isl_map *dmd_proof_elements(__isl_take isl_set *pieces,
	int len, int lo, int nd, __isl_keep isl_map *like)
{
	return dmd_proof_elements_comb(pieces, len, lo, nd, like, NULL);
}

/* Close the memory stream "f" whose text open_memstream puts in "*s",
 * freeing witness point "pt": the text, or NULL. */
static char *dmd_proof_text(FILE *f, __isl_take isl_point *pt, char **s)
{
	isl_point_free(pt);
	if (fclose(f) != 0) {
		free(*s);
		return NULL;
	}
	return *s;
}

/* Print a witness point of "bad" ([c] -> { X[t] -> T[e] }, not empty):
 * "rank R (x=.., y=..) at ko=.. reads|...  A[i, j]" into a malloc'ed
 * string. */
static char *dmd_proof_witness(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	__isl_take isl_map *bad, const char *verb)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_poly *p = m->poly[x->step];
	int np = m->mesh->n, len = isl_map_dim(bad, isl_dim_in);
	int nd = isl_map_dim(bad, isl_dim_out), i;
	isl_point *pt;
	char *s = NULL;
	size_t size = 0;
	FILE *f;
	long rank = 0;

	bad = isl_map_intersect_params(bad, isl_set_copy(m->mesh->set));
	pt = isl_set_sample_point(isl_set_flatten(isl_map_wrap(
		isl_set_unbind_params_insert_domain(isl_map_wrap(bad),
		isl_multi_id_copy(m->mesh->ids)))));
	f = open_memstream(&s, &size);
	if (!f || !pt) {
		if (f)
			fclose(f);
		isl_point_free(pt);
		free(s);
		return NULL;
	}
	for (i = 0; i < np; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, i);

		rank = rank * m->mesh->shape[i] + isl_val_get_num_si(v);
		isl_val_free(v);
	}
	fprintf(f, "rank %ld (", rank);
	for (i = 0; i < np; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, i);

		fprintf(f, "%s%s=%ld", i ? ", " : "", m->job->axes[i],
			isl_val_get_num_si(v));
		isl_val_free(v);
	}
	fprintf(f, ")");
	for (i = 0; i < len; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set,
			np + i);

		fprintf(f, "%s%s=%ld", i ? ", " : " at ",
			p->loops[p->time_loop[i]].name, isl_val_get_num_si(v));
		isl_val_free(v);
	}
	fprintf(f, " %s %s", verb, m->job->tensors[x->tensor].name);
	for (i = 0; i < nd; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set,
			np + len + i);

		fprintf(f, "%s%ld", i ? ", " : "[", isl_val_get_num_si(v));
		isl_val_free(v);
	}
	fprintf(f, "%s", nd ? "]" : "");
	return dmd_proof_text(f, pt, &s);
}

/* Report that "x" is not covered, with a witness of "bad" (taken). */
static int dmd_proof_fail(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what, __isl_take isl_map *bad, const char *verb,
	const char *why)
{
	char *w = dmd_proof_witness(pr, x, bad, verb);

	dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED, DMD_PROOF_FAILS,
		"transfer #%d (%s): %s%s%s", x->id, what, w ? w : "",
		w ? ", " : "", why);
	free(w);
	return 0;
}

/* Is "sub" a subset of "super" (both taken)?  Otherwise report "x" as
 * not covered with a point of the difference.  1 yes, 0 no, -1 error. */
static int dmd_proof_within(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what, __isl_take isl_map *sub, __isl_take isl_map *super,
	const char *verb, const char *why)
{
	isl_map *bad;
	int empty;

	bad = isl_map_subtract(sub, super);
	bad = isl_map_intersect_params(bad, isl_set_copy(pr->m->mesh->set));
	empty = dmd_isl_bool(isl_map_is_empty(bad));
	if (empty != 0) {
		isl_map_free(bad);
		return empty;
	}
	dmd_proof_fail(pr, x, what, bad, verb, why);
	return 0;
}

/* What rank c holds ("held": [c] -> { T[e] }) at every time point of
 * "x": [c] -> { X[t] -> T[e] : c holds e } like x->need. */
static __isl_give isl_map *dmd_proof_held(const struct dmd_xfer *x,
	__isl_keep isl_set *held)
{
	return isl_map_from_domain_and_range(isl_set_universe(
		isl_set_get_space(x->dom)), isl_set_copy(held));
}

/* [c] -> { S[i] } the iterations of step "step" that the programs run:
 * the domains of the compute statements of every cell, or the per-rank
 * schedule of a step whose leaf is a GEMM call (its boxes cover the
 * iterations of its time points by construction). */
static __isl_give isl_set *dmd_proof_exec(struct dmd_proof_run *pr, int step)
{
	const struct dmd_poly *p = pr->m->poly[step];
	isl_set *all;
	int c, i;

	if (pr->plan->steps[step].gemm)
		return isl_set_align_params(isl_map_domain(isl_map_copy(
			p->rsched)), isl_space_copy(pr->m->mesh->space));
	all = isl_set_empty(isl_space_copy(p->space));
	for (c = 0; c < pr->n_spec; ++c) {
		struct dmd_spec_step *ss = &pr->spec[c]->steps[step];

		for (i = 0; i < ss->n_stmt; ++i) {
			struct dmd_spec_stmt *s = &ss->stmt[i];
			isl_set *d;

			if (s->kind != DMD_SPEC_COMP || !s->dom)
				continue;
			d = isl_set_set_tuple_name(isl_set_copy(s->dom),
				isl_space_get_tuple_name(p->space,
				isl_dim_set));
			all = isl_set_union(all, isl_set_align_params(d,
				isl_space_copy(p->space)));
		}
	}
	return isl_set_coalesce(all);
}

/* Make the mesh parameters of "set" its first dimensions, flattened:
 * [c] -> { [v] } becomes { [c, v] }. */
static __isl_give isl_set *dmd_proof_unbind(const struct dmd_model *m,
	__isl_take isl_set *set)
{
	set = isl_set_intersect_params(set, isl_set_copy(m->mesh->set));
	set = isl_set_set_tuple_name(set, NULL);
	return isl_set_flatten(isl_map_wrap(
		isl_set_unbind_params_insert_domain(set,
		isl_multi_id_copy(m->mesh->ids))));
}

/* The map { [c(np), v] -> [c', v] } on an anonymous space of "n"
 * dimensions, with c' the neighbour of c "disp" further around the ring
 * along axis "axis": for a mesh axis (c + disp) mod extent along it; for
 * an axis of a view, the mesh coordinates of the rank whose coordinate
 * along it is (a + disp) mod extent (dmd_mesh_moved). */
static __isl_give isl_multi_aff *dmd_proof_ring(const struct dmd_model *m,
	int n, int axis, int disp)
{
	isl_space *space = isl_space_set_alloc(m->ctx, 0, n);
	isl_local_space *ls;
	isl_multi_aff *ma;
	int i;

	ls = isl_local_space_from_space(isl_space_copy(space));
	ma = isl_multi_aff_identity(isl_space_map_from_set(space));
	for (i = 0; i < m->mesh->n; ++i)
		ma = isl_multi_aff_set_aff(ma, i, dmd_mesh_moved(m->mesh, ls,
			0, axis, disp, i));
	isl_local_space_free(ls);
	return ma;
}

/* The points of "set" (anonymous, no parameters) whose first dimensions
 * are the mesh coordinates of a rank of the frame of axis "axis" (the
 * universe for a mesh axis and a view of every rank). */
static __isl_give isl_set *dmd_proof_on_frame(const struct dmd_model *m,
	__isl_take isl_set *set, int axis)
{
	isl_space *space = isl_set_get_space(set);

	set = isl_set_intersect(set, dmd_mesh_frame_at(m->mesh,
		dmd_mesh_axis_view(m->mesh, axis), space, isl_dim_set, 0));
	isl_space_free(space);
	return set;
}

/* The map from an anonymous space of "n" dimensions to one of "k" whose
 * dimension i is input dimension idx[i]. */
static __isl_give isl_multi_aff *dmd_proof_pick(const struct dmd_model *m,
	int n, const int *idx, int k)
{
	isl_space *space = isl_space_set_alloc(m->ctx, 0, n);
	isl_local_space *ls = isl_local_space_from_space(
		isl_space_copy(space));
	isl_aff_list *list = isl_aff_list_alloc(m->ctx, k);
	int i;

	for (i = 0; i < k; ++i)
		list = isl_aff_list_add(list, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, idx[i]));
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(isl_space_map_from_domain_and_range(
		space, isl_space_set_alloc(m->ctx, 0, k)), list);
}

/* The points of "set" (anonymous, "n" dimensions, no parameters beyond
 * those it has) with their dimensions rearranged: dimension i of the
 * result is dimension idx[i] of "set" (a permutation). */
static __isl_give isl_set *dmd_proof_rearrange(const struct dmd_model *m,
	__isl_take isl_set *set, const int *idx, int n)
{
	isl_map *map;

	map = isl_map_from_multi_aff(dmd_proof_pick(m, n, idx, n));
	map = isl_map_align_params(map, isl_set_get_space(set));
	return isl_set_apply(set, map);
}

/* The preimage of "set" (anonymous, "k" dimensions) under picking the
 * dimensions idx[0 .. k) of an anonymous space of "n" dimensions. */
static __isl_give isl_set *dmd_proof_lift(const struct dmd_model *m,
	__isl_take isl_set *set, int n, const int *idx, int k)
{
	return isl_set_preimage_multi_aff(set, dmd_proof_pick(m, n, idx, k));
}

/* The points of "set" (anonymous, no parameters) whose first dimensions
 * are the coordinates of a rank of the mesh. */
static __isl_give isl_set *dmd_proof_on_mesh(const struct dmd_model *m,
	__isl_take isl_set *set)
{
	int np = m->mesh->n, n = isl_set_dim(set, isl_dim_set), i, *idx;
	isl_set *ranks;

	idx = malloc((np + 1) * sizeof(int));
	if (!idx)
		return isl_set_free(set);
	for (i = 0; i < np; ++i)
		idx[i] = i;
	ranks = isl_set_set_tuple_name(dmd_mesh_ranks(m->mesh), NULL);
	set = isl_set_intersect(set, dmd_proof_lift(m, ranks, n, idx, np));
	free(idx);
	return set;
}

/* The point-to-point pieces that the receives and sends of "x" post
 * if they have combs (their periods and runs, which emit prints), else
 * NULL. */
static const struct dmd_p2p *dmd_proof_combed(const struct dmd_xfer *x)
{
	const struct dmd_p2p *pp = x->kind == DMD_XFER_SHIFT ? x->first :
		x->p2p;

	return pp && pp->combs ? pp : NULL;
}

/* The pieces of the point-to-point part "p2p" of "x" as emitted:
 * [c] -> { [t, peer, lo, ext] } for the receives ("send" 0) or the
 * sends, without the landing origins. */
static __isl_give isl_set *dmd_proof_side(struct dmd_proof_run *pr,
	const struct dmd_xfer *x, int send, int *undef)
{
	int len = dmd_proof_len(x);
	enum dmd_spec_kind kind = send ? DMD_SPEC_SEND : DMD_SPEC_RECV;

	if (dmd_proof_combed(x))
		return dmd_proof_collect(pr, x, x->step, kind, len,
			DMD_PROOF_FIELDS(dmd_proof_piece_comb), undef);
	return dmd_proof_collect(pr, x, x->step, kind, len,
		DMD_PROOF_FIELDS(dmd_proof_piece), undef);
}

/* Describe a point where the receives "recv" and the sends "send" (as
 * received: { [c, t, s, lo, ext] }) of "x" differ: "rank C at T receives
 * from rank S a box no send brings" or the other way round (malloc'ed). */
static char *dmd_proof_mismatch(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_keep isl_set *recv,
	__isl_keep isl_set *send)
{
	int np = m->mesh->n, len = dmd_proof_len(x), nd = x->box.n, i, only;
	int comb = dmd_proof_combed(x) != NULL;
	isl_set *d;
	isl_point *pt;
	char *s = NULL;
	size_t size = 0;
	FILE *f;

	d = isl_set_subtract(isl_set_copy(recv), isl_set_copy(send));
	only = dmd_isl_bool(isl_set_is_empty(d)) == 1;
	if (only) {
		isl_set_free(d);
		d = isl_set_subtract(isl_set_copy(send), isl_set_copy(recv));
	}
	pt = isl_set_sample_point(d);
	f = open_memstream(&s, &size);
	if (!pt || !f) {
		isl_point_free(pt);
		if (f)
			fclose(f);
		free(s);
		return NULL;
	}
	for (i = 0; i < 2 * np + len + (comb ? 2 + dmd_proof_comb_w(x) : 2) * nd; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, i);
		long val = isl_val_get_num_si(v);

		isl_val_free(v);
		if (i == 0)
			fprintf(f, "rank at (");
		else if (i == np + len)
			fprintf(f, only ? ") is sent by (" :
				") expects from (");
		else if (i == 2 * np + len)
			fprintf(f, ") the box with origin (");
		else if (i == 2 * np + len + nd)
			fprintf(f, ") and extents (");
		else if (i == 2 * np + len + 2 * nd)
			fprintf(f, ") and combs (");
		else if (i == np)
			fprintf(f, ") at (");
		else
			fprintf(f, ", ");
		fprintf(f, "%ld", val);
	}
	fprintf(f, ")%s", only ? ", which it does not receive" :
		", which that rank does not send");
	return dmd_proof_text(f, pt, &s);
}

/* Matching, as emitted: the receives equal the sends with the two ranks
 * swapped (dmd_part_verify.c proves the same of the plan). */
static int dmd_proof_match(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what)
{
	const struct dmd_model *m = pr->m;
	int np = m->mesh->n, len = dmd_proof_len(x), undef = 0;
	int w = dmd_proof_combed(x) ? 2 + dmd_proof_comb_w(x) : 2;
	int n = 2 * np + len + w * x->box.n, eq;
	isl_set *recv, *send;

	recv = dmd_proof_unbind(m, dmd_proof_side(pr, x, 0, &undef));
	send = dmd_proof_unbind(m, dmd_proof_side(pr, x, 1, &undef));
	send = isl_set_preimage_multi_aff(send, dmd_isl_swap(
		isl_space_set_alloc(m->ctx, 0, n), np, len));
	eq = dmd_isl_bool(isl_set_is_equal(recv, send));
	if (eq == 0) {
		char *w = dmd_proof_mismatch(m, x, recv, send);

		dmd_part_proof_add(pr->rep, DMD_CLAIM_PROVED_AS_EMITTED,
			DMD_PROOF_FAILS, "transfer #%d (%s): %s", x->id, what,
			w ? w : "a send without a matching receive, or a "
			"receive without a matching send");
		free(w);
	}
	isl_set_free(recv);
	isl_set_free(send);
	if (eq <= 0)
		return eq;
	if (undef) {
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_PROVED_AS_EMITTED,
			DMD_PROOF_FAILS, "transfer #%d (%s): a peer or a box "
			"is not defined everywhere its statement runs", x->id,
			what);
	}
	return dmd_part_proof_add(pr->rep, DMD_CLAIM_PROVED_AS_EMITTED,
		DMD_PROOF_HOLDS, "transfer #%d (%s): every send has exactly "
		"one receive with the same box, and every receive one send",
		x->id, what);
}

/* What the senders of "x" have to send, for each of its time points:
 * their blocks (inputs, snapshots, partial sums), or the results of the
 * iterations they ran (a return); a rank whose program clears the part
 * buffer it returns from to -0.0 first may send any element of it (the
 * ones it does not compute add nothing). */
static __isl_give isl_map *dmd_proof_source(struct dmd_proof_run *pr,
	const struct dmd_xfer *x)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_poly *p = m->poly[x->step];
	isl_set *w;
	int c;

	if (x->use != DMD_USE_RETURN)
		return dmd_proof_held(x, m->lay[x->tensor]->held);
	w = isl_set_apply(dmd_proof_exec(pr, x->step),
		isl_map_copy(p->acc[0].map));
	w = isl_set_align_params(w, isl_space_copy(m->mesh->space));
	for (c = 0; c < pr->n_spec; ++c) {
		struct dmd_spec_step *ss = &pr->spec[c]->steps[x->step];
		int i;

		for (i = 0; i < ss->n_stmt; ++i)
			if (ss->stmt[i].kind == DMD_SPEC_CLEAR &&
			    ss->stmt[i].xfer == x && ss->stmt[i].dom)
				break;
		if (i < ss->n_stmt)
			w = isl_set_union(w, isl_set_intersect_params(
				isl_set_universe(isl_set_get_space(w)),
				isl_set_copy(pr->spec[c]->cell)));
	}
	return isl_map_from_domain_and_range(isl_set_universe(
		isl_set_get_space(x->dom)), isl_set_coalesce(w));
}

/* The coverage of point-to-point "x" (or the first step of a shift):
 * what each rank needs at each time point ("need") is brought by its
 * receives and copies (or lies in its home buffer for a transfer into
 * ghost cells); every piece lands where the wait's view starts; every
 * sender has what it sends.  *got: the elements brought. */
static int dmd_proof_p2p(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what, __isl_take isl_map *need, isl_map **got)
{
	const struct dmd_model *m = pr->m;
	int np = m->mesh->n, nd = x->box.n, len = dmd_proof_len(x);
	int undef = 0, r;
	isl_set *recv, *self, *send;
	isl_map *have;

	recv = dmd_proof_side(pr, x, 0, &undef);
	self = dmd_proof_collect(pr, x, x->step, DMD_SPEC_SELF, len,
		DMD_PROOF_FIELDS(dmd_proof_box), &undef);
	send = dmd_proof_side(pr, x, 1, &undef);
	have = isl_map_union(dmd_proof_elements_comb(recv, len, len + np, nd,
		need, dmd_proof_combed(x)),
		dmd_proof_elements(self, len, len, nd, need));
	if (got)
		*got = isl_map_copy(have);
	if (x->ghost)
		have = isl_map_union(have, dmd_proof_held(x,
			m->lay[x->tensor]->held));
	r = dmd_proof_within(pr, x, what, need, have, "needs",
		"which no piece brings");
	if (r == 1)
		r = dmd_proof_within(pr, x, what, dmd_proof_elements_comb(send,
			len, len + np, nd, x->need, dmd_proof_combed(x)),
			dmd_proof_source(pr, x),
			"sends", "which it does not have");
	else
		isl_set_free(send);
	if (r == 1 && undef) {
		dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_FAILS, "transfer #%d (%s): a box is not "
			"defined everywhere its statement runs", x->id, what);
		r = 0;
	}
	return r;
}

/* The landing origins of the pieces of "x" (receives: "blo"; copies
 * from the rank's own block) against the view's origin its wait sets:
 * the step reads element e of the buffer at e - origin. */
static int dmd_proof_origins(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what)
{
	int nd = x->box.n, len = dmd_proof_len(x);
	int undef = 0, ok;
	isl_set *wait, *land;

	if (x->ghost || nd == 0)
		return 1;
	wait = dmd_proof_collect(pr, x, x->step, DMD_SPEC_WAIT, len,
		DMD_PROOF_FIELDS(dmd_proof_lo), &undef);
	land = dmd_proof_collect(pr, x, x->step, DMD_SPEC_RECV, len,
		DMD_PROOF_FIELDS(dmd_proof_blo), &undef);
	land = isl_set_union(land, dmd_proof_collect(pr, x, x->step,
		DMD_SPEC_SELF, len, DMD_PROOF_FIELDS(dmd_proof_blo), &undef));
	ok = dmd_isl_bool(isl_set_is_subset(land, wait));
	isl_set_free(land);
	isl_set_free(wait);
	if (ok < 0)
		return -1;
	if (!ok || undef) {
		dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_FAILS, "transfer #%d (%s): a piece lands at "
			"another origin than the view the step reads through",
			x->id, what);
		return 0;
	}
	return 1;
}

/* The map { [c, v] -> [c + e_axis, v] } on an anonymous space of "n"
 * dimensions: the next rank along mesh axis "axis"; along an axis of a
 * view, the next one around its ring (dmd_proof_ring). */
static __isl_give isl_multi_aff *dmd_proof_step(const struct dmd_model *m,
	int n, int axis)
{
	isl_multi_aff *ma;

	if (dmd_mesh_axis_view(m->mesh, axis) >= 0)
		return dmd_proof_ring(m, n, axis, 1);
	ma = isl_multi_aff_identity(isl_space_map_from_set(
		isl_space_set_alloc(m->ctx, 0, n)));
	return isl_multi_aff_set_aff(ma, axis, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(ma, axis), 1));
}

/* The map { [c(np), .., root (at "pos"), .., e(nd)] -> [c', e] } from an
 * anonymous space of "n" dimensions: c' the rank of the group of c
 * along axis "axis" whose coordinate along it is "root" (for a mesh
 * axis: c with c_axis = root; for an axis of a view, dmd_mesh_placed). */
static __isl_give isl_multi_aff *dmd_proof_root(const struct dmd_model *m,
	int n, int axis, int pos, int nd)
{
	isl_space *space = isl_space_set_alloc(m->ctx, 0, n);
	isl_local_space *ls = isl_local_space_from_space(
		isl_space_copy(space));
	isl_aff_list *list;
	int np = m->mesh->n, i;

	list = isl_aff_list_alloc(m->ctx, np + nd);
	for (i = 0; i < np; ++i)
		list = isl_aff_list_add(list, dmd_mesh_placed(m->mesh, 0, axis,
			isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, pos), i));
	for (i = 0; i < nd; ++i)
		list = isl_aff_list_add(list, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, n - nd + i));
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(isl_space_map_from_domain_and_range(
		space, isl_space_set_alloc(m->ctx, 0, np + nd)), list);
}

/* The group agreement of broadcast "x" as emitted ("bc": [c] -> { [t,
 * root, lo, ext] }): every rank of a group along the axis enters it at
 * the same time points with the same root and extents, so the
 * collective is entered alike: the set { [c, t, root, ext] } does not
 * depend on the coordinate along the axis. */
static int dmd_proof_group(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what, __isl_keep isl_set *bc)
{
	const struct dmd_model *m = pr->m;
	int nd = x->box.n, len = dmd_proof_len(x), ok;
	isl_set *g, *next, *has, *off;

	g = isl_set_project_out(isl_set_copy(bc), isl_dim_set, len + 1, nd);
	g = dmd_proof_unbind(m, g);
	/* what the next rank along the axis does, where there is one: equal
	 * for every pair of neighbours is equal along the whole group (a
	 * translation is cheaper for isl than eliminating the coordinate) */
	next = isl_set_preimage_multi_aff(isl_set_copy(g),
		dmd_proof_step(m, isl_set_dim(g, isl_dim_set), x->axis));
	has = dmd_proof_on_mesh(m, isl_set_preimage_multi_aff(
		dmd_proof_on_mesh(m, isl_set_universe(isl_set_get_space(g))),
		dmd_proof_step(m, isl_set_dim(g, isl_dim_set), x->axis)));
	/* along an axis of a view: its ranks (the ring of each line); the
	 * ranks off the view enter none of its broadcasts */
	off = isl_set_subtract(isl_set_copy(g), dmd_proof_on_frame(m,
		isl_set_universe(isl_set_get_space(g)), x->axis));
	has = dmd_proof_on_frame(m, has, x->axis);
	g = isl_set_intersect(g, isl_set_copy(has));
	next = isl_set_intersect(next, has);
	ok = dmd_isl_bool(isl_set_is_equal(g, next));
	if (ok == 1)
		ok = dmd_isl_bool(isl_set_is_empty(off));
	isl_set_free(off);
	isl_set_free(next);
	isl_set_free(g);
	if (ok < 0)
		return -1;
	if (!ok) {
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_PROVED_AS_EMITTED,
			DMD_PROOF_FAILS, "transfer #%d (%s): the ranks of a "
			"group along %s may disagree on its time points, root "
			"or extents", x->id, what,
			dmd_job_axis_name(m->job, x->axis)) < 0 ? -1 : 0;
	}
	return dmd_part_proof_add(pr->rep, DMD_CLAIM_PROVED_AS_EMITTED,
		DMD_PROOF_HOLDS, "transfer #%d (%s): every rank of each group "
		"along %s enters it at the same time points, with the same "
		"root and box extents", x->id, what,
		dmd_job_axis_name(m->job, x->axis)) < 0 ? -1 : 1;
}

/* The coverage of broadcast "x": what each rank needs lies in the box
 * of the time point, which the root (the rank of the group at the root
 * coordinate) holds, and the view starts at the box. */
static int dmd_proof_bcast(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what)
{
	const struct dmd_model *m = pr->m;
	int np = m->mesh->n, nd = x->box.n, len = dmd_proof_len(x);
	int undef = 0, r, i, n, *perm;
	isl_set *bc, *rooted, *holds, *wait, *lo;
	isl_map *have;

	bc = dmd_proof_collect(pr, x, x->step, DMD_SPEC_BCAST, len,
		DMD_PROOF_FIELDS(dmd_proof_root_box), &undef);
	r = dmd_proof_group(pr, x, what, bc);
	have = dmd_proof_elements(isl_set_copy(bc), len, len + 1, nd,
		x->need);
	if (r == 1)
		r = dmd_proof_within(pr, x, what, isl_map_copy(x->need), have,
			"needs", "which the broadcast's box does not hold");
	else
		isl_map_free(have);
	/* the root holds the box: [c, t, root, e] -> [c', e], c' = c with
	 * the axis coordinate replaced by the root */
	rooted = dmd_proof_add_elements(isl_set_copy(bc), len + 1, nd);
	rooted = isl_set_project_out(rooted, isl_dim_set, len + 1, 2 * nd);
	rooted = dmd_proof_unbind(m, rooted);
	n = np + len + 1 + nd;
	holds = isl_set_flatten(isl_map_wrap(isl_map_copy(
		m->lay[x->tensor]->holds)));
	holds = isl_set_set_tuple_name(holds, NULL);
	holds = isl_set_preimage_multi_aff(holds, dmd_proof_root(m, n,
		x->axis, np + len, nd));
	if (r == 1) {
		int ok = dmd_isl_bool(isl_set_is_subset(rooted, holds));

		if (ok < 0)
			r = -1;
		else if (!ok) {
			dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
				DMD_PROOF_FAILS, "transfer #%d (%s): a root "
				"broadcasts a box it does not hold", x->id,
				what);
			r = 0;
		}
	}
	isl_set_free(rooted);
	isl_set_free(holds);
	/* the view starts at the box, and the root is the one it names */
	wait = dmd_proof_collect(pr, x, x->step, DMD_SPEC_WAIT, len,
		DMD_PROOF_FIELDS(dmd_proof_root_view), &undef);
	lo = isl_set_project_out(bc, isl_dim_set, len + 1 + nd, nd);
	perm = malloc((len + 1 + nd) * sizeof(int));
	for (i = 0; perm && i < len + 1 + nd; ++i)
		perm[i] = i < len ? i : i < len + nd ? i + 1 : len;
	lo = perm ? dmd_proof_rearrange(m, lo, perm, len + 1 + nd) :
		isl_set_free(lo);
	free(perm);
	if (r == 1) {
		int ok = dmd_isl_bool(isl_set_is_subset(wait, lo));

		if (ok < 0)
			r = -1;
		else if (!ok || undef) {
			dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
				DMD_PROOF_FAILS, "transfer #%d (%s): the view "
				"does not start at the box the root sends",
				x->id, what);
			r = 0;
		}
	}
	isl_set_free(wait);
	isl_set_free(lo);
	return r;
}

/* The time points of "x" that follow no other one along its level. */
static __isl_give isl_set *dmd_proof_first_points(const struct dmd_xfer *x)
{
	isl_multi_aff *back;
	isl_set *later;

	back = isl_multi_aff_identity(isl_space_map_from_set(
		isl_set_get_space(x->dom)));
	back = isl_multi_aff_set_aff(back, x->level, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(back, x->level), -1));
	later = isl_set_preimage_multi_aff(isl_set_copy(x->dom), back);
	return isl_set_coalesce(isl_set_subtract(isl_set_copy(x->dom),
		later));
}

/* The coverage of shift "x": at its first time point as a local view or
 * a point-to-point transfer; then what each rank receives at t is what
 * its neighbour along the ring sends at t, which is data that
 * neighbour had at t - 1; what a rank needs lies in its box. */
static int dmd_proof_shift(struct dmd_proof_run *pr, const struct dmd_xfer *x,
	const char *what)
{
	const struct dmd_model *m = pr->m;
	int np = m->mesh->n, nd = x->box.n, len = dmd_proof_len(x);
	int undef = 0, r = 1, n, ok;
	isl_set *sh, *recv, *sent, *first_pts;
	isl_map *need_first, *have, *prev, *sent_el;
	isl_multi_aff *back;

	first_pts = dmd_proof_first_points(x);
	need_first = isl_map_intersect_domain(isl_map_copy(x->need),
		isl_set_copy(first_pts));
	if (x->first_local) {
		have = dmd_proof_held(x, m->lay[x->tensor]->held);
		r = dmd_proof_within(pr, x, what, need_first,
			isl_map_copy(have), "needs",
			"which it does not hold (first step)");
	} else {
		r = dmd_proof_p2p(pr, x, what, need_first, &have);
		if (r == 1)
			r = dmd_proof_origins(pr, x, what);
	}
	have = isl_map_intersect_domain(have, first_pts);
	sh = dmd_proof_collect(pr, x, x->step, DMD_SPEC_SHIFT, len,
		DMD_PROOF_FIELDS(dmd_proof_shift_boxes), &undef);
	/* what each rank has at each point after the first: its box */
	have = isl_map_union(have, dmd_proof_elements(isl_set_copy(sh), len,
		len, nd, x->need));
	if (r == 1)
		r = dmd_proof_within(pr, x, what, isl_map_copy(x->need),
			isl_map_copy(have), "needs", "which is not in its box");
	/* received (lo, ext) at (c, t) = sent (plo, pext) at (c + disp, t) */
	recv = isl_set_project_out(isl_set_copy(sh), isl_dim_set,
		len + 2 * nd, 2 * nd);
	sent = isl_set_project_out(isl_set_copy(sh), isl_dim_set, len,
		2 * nd);
	recv = dmd_proof_unbind(m, recv);
	sent = dmd_proof_unbind(m, sent);
	n = np + len + 2 * nd;
	sent = isl_set_preimage_multi_aff(sent, dmd_proof_ring(m, n, x->axis,
		x->disp));
	/* the sender's coordinates on the ring, the receiver on the mesh
	 * (and on the view of the ring: the ranks off it take no part) */
	sent = dmd_proof_on_frame(m, dmd_proof_on_mesh(m, sent), x->axis);
	ok = dmd_isl_bool(isl_set_is_equal(recv, sent));
	isl_set_free(recv);
	isl_set_free(sent);
	if (r == 1 && (ok != 1 || undef)) {
		if (ok < 0)
			r = -1;
		else {
			dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
				DMD_PROOF_FAILS, "transfer #%d (%s): a rank "
				"may receive another box than its neighbour "
				"along %s sends", x->id, what,
				dmd_job_axis_name(m->job, x->axis));
			r = 0;
		}
	}
	/* what a rank sends at t is what it had at t - 1 */
	sent_el = dmd_proof_elements(isl_set_project_out(sh, isl_dim_set,
		len, 2 * nd), len, len, nd, x->need);
	back = isl_multi_aff_identity(isl_space_map_from_set(
		isl_set_get_space(x->dom)));
	back = isl_multi_aff_set_aff(back, x->level, isl_aff_add_constant_si(
		isl_multi_aff_get_aff(back, x->level), -1));
	prev = isl_map_preimage_domain_multi_aff(have, back);
	if (r == 1)
		r = dmd_proof_within(pr, x, what, sent_el, prev, "sends",
			"which it did not have at the previous time point");
	else {
		isl_map_free(sent_el);
		isl_map_free(prev);
	}
	return r;
}

/* Prove that what the step of "x" reads through "x" is there (see the
 * top of this file), adding a "covered" line for "x". */
static int dmd_proof_xfer(struct dmd_proof_run *pr, const struct dmd_xfer *x)
{
	const struct dmd_model *m = pr->m;
	char *what = dmd_part_xfer_what(m, x);
	int r = 1, undef = 0;

	if (!what)
		return -1;
	switch (x->kind) {
	case DMD_XFER_LOCAL:
		break;
	case DMD_XFER_BCAST:
		r = dmd_proof_bcast(pr, x, what);
		break;
	case DMD_XFER_SHIFT:
		if (!x->first_local && dmd_proof_match(pr, x, what) < 0)
			r = -1;
		if (r == 1)
			r = dmd_proof_shift(pr, x, what);
		break;
	case DMD_XFER_P2P:
		if (dmd_proof_match(pr, x, what) < 0)
			r = -1;
		if (r == 1)
			r = dmd_proof_p2p(pr, x, what, isl_map_copy(x->need),
				NULL);
		if (r == 1)
			r = dmd_proof_origins(pr, x, what);
		break;
	case DMD_XFER_RETURN:
		if (dmd_proof_match(pr, x, what) < 0)
			r = -1;
		/* what is returned is the senders' results; what the
		 * holders get is proved per step (dmd_proof_outputs) */
		if (r == 1)
			r = dmd_proof_within(pr, x, what, dmd_proof_elements(
				dmd_proof_side(pr, x, 1, &undef),
				dmd_proof_len(x), dmd_proof_len(x) + m->mesh->n,
				x->box.n, x->need), dmd_proof_source(pr, x),
				"sends", "which it did not compute");
		break;
	}
	if (r == 1 && x->kind != DMD_XFER_LOCAL)
		r = dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_HOLDS, "transfer #%d (%s): %s", x->id, what,
			x->use == DMD_USE_RETURN ? "every rank "
			"returns only results it computed" : "every element "
			"a rank reads through it at a time point is one it "
			"receives or holds, and every sender has what it "
			"sends") < 0 ? -1 : 1;
	free(what);
	return r < 0 ? -1 : 0;
}

/* The reads of step "s" from home buffers (accesses with nothing to
 * bring): every element a rank reads there is one it holds. */
static int dmd_proof_home_reads(struct dmd_proof_run *pr, int s,
	__isl_keep isl_set *exec)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_poly *p = m->poly[s];
	const struct dmd_step_plan *sp = &pr->plan->steps[s];
	int a, ok;

	for (a = 1; a < p->n_acc; ++a) {
		isl_set *read;

		if (sp->provider[a] != -1)
			continue;
		read = isl_set_apply(isl_set_copy(exec),
			isl_map_copy(p->acc[a].map));
		read = isl_set_intersect_params(read,
			isl_set_copy(m->mesh->set));
		ok = dmd_isl_bool(isl_set_is_subset(read,
			m->lay[p->acc[a].tensor]->held));
		isl_set_free(read);
		if (ok < 0)
			return -1;
		if (!ok) {
			char *txt = dmd_expr_to_msg(p->acc[a].expr);

			dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
				DMD_PROOF_FAILS, "step %d: %s reads an element "
				"its rank does not hold", s + 1,
				txt ? txt : "?");
			free(txt);
			return 0;
		}
	}
	return 1;
}

/* The ranks whose results the holders of step "s"'s output add up:
 * { [h, e, src] : holder h adds what rank src computed of e } (anonymous,
 * no parameters), from the return's receives and copies as emitted, or
 * { [h, e, h] : h holds e } where the step computes in place.  NULL if a
 * returned box is not defined everywhere its statement runs. */
static __isl_give isl_set *dmd_proof_contrib(struct dmd_proof_run *pr, int s)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_xfer *x = pr->plan->steps[s].ret;
	int np = m->mesh->n, nd = m->lay[m->poly[s]->out]->ndim, i;
	int undef = 0, *idx;
	isl_set *recv, *self;

	if (!x) {
		/* [c] -> { [e, c] } */
		recv = isl_set_copy(m->lay[m->poly[s]->out]->held);
		recv = isl_set_set_tuple_name(recv, NULL);
		recv = isl_set_add_dims(recv, isl_dim_set, np);
		for (i = 0; i < np; ++i)
			recv = isl_set_equate(recv, isl_dim_set, nd + i,
				isl_dim_param, i);
		return dmd_proof_unbind(m, recv);
	}
	/* [c] -> { [peer, e] } from the receives (the return comes after
	 * the loops: no time dimension), [c] -> { [c, e] } from the copies */
	recv = dmd_proof_collect(pr, x, s, DMD_SPEC_RECV, 0,
		DMD_PROOF_FIELDS(dmd_proof_piece), &undef);
	recv = dmd_proof_add_elements(recv, np, nd);
	recv = isl_set_project_out(recv, isl_dim_set, np, 2 * nd);
	self = dmd_proof_collect(pr, x, s, DMD_SPEC_SELF, 0,
		DMD_PROOF_FIELDS(dmd_proof_box), &undef);
	self = dmd_proof_add_elements(self, 0, nd);
	self = isl_set_project_out(self, isl_dim_set, 0, 2 * nd);
	self = isl_set_insert_dims(self, isl_dim_set, 0, np);
	for (i = 0; i < np; ++i)
		self = isl_set_equate(self, isl_dim_set, i, isl_dim_param, i);
	recv = isl_set_union(recv, self);
	if (undef) {
		isl_set_free(recv);
		return NULL;
	}
	/* [peer, e] -> [e, peer] */
	idx = malloc((np + nd) * sizeof(int));
	for (i = 0; idx && i < np + nd; ++i)
		idx[i] = i < nd ? np + i : i - nd;
	recv = idx ? dmd_proof_rearrange(m, recv, idx, np + nd) :
		isl_set_free(recv);
	free(idx);
	return dmd_proof_unbind(m, recv);
}

/* { [h, h2] } (anonymous, no parameters): the ranks h2 that differ from
 * h only along the partial axes of "lay", axes of its view: the lines
 * along them, one after the other. */
static __isl_give isl_set *dmd_proof_partial_lines(const struct dmd_model *m,
	const struct dmd_layout *lay)
{
	isl_map *r;
	int j;

	r = dmd_mesh_line(m->mesh, lay->partial[0]);
	for (j = 1; j < lay->n_partial; ++j)
		r = isl_map_apply_range(r, dmd_mesh_line(m->mesh,
			lay->partial[j]));
	r = isl_map_project_out_all_params(r);
	return isl_set_set_tuple_name(isl_set_flatten(isl_map_wrap(r)),
		NULL);
}

/* Fill idx[0 .. 2 np) with h .., h2 .. and return it. */
static int *dmd_proof_idx_hh(int *idx, int np, int h, int h2)
{
	int k;

	for (k = 0; k < np; ++k) {
		idx[k] = h + k;
		idx[np + k] = h2 + k;
	}
	return idx;
}

/* The output of step "s": every holder h of an element e gets the
 * result of every iteration i that writes e exactly once, from the ranks
 * whose results it adds (dmd_proof_contrib).  With partial sums along
 * axes P (and a step not run on the partials), the holders of e that
 * differ from h only along P count each iteration once together.  On
 * the space [h, e, i, h2, src]:
 *	C = { [h, e, i] -> [h2, src] : h holds e, i writes e, h2 agrees
 *	      with h off P and holds e, h2 adds src's results of e, src
 *	      ran i }
 * must be single-valued and defined on every [h, e, i] with h holding e
 * and i writing e. */
static int dmd_proof_outputs(struct dmd_proof_run *pr, int s,
	__isl_keep isl_set *exec)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_poly *p = m->poly[s];
	const struct dmd_layout *lay = m->lay[p->out];
	int np = m->mesh->n, nd = lay->ndim, nv = p->n_vars, j, k;
	int n = 3 * np + nd + nv, h = 0, e = np, it = np + nd;
	int h2 = np + nd + nv, src = 2 * np + nd + nv, ok, sv, idx[64];
	isl_set *contrib, *holds, *writes, *ran, *all, *want;
	isl_map *w, *c;

	if (n > 64)
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_UNCHECKED, "step %d: the output proof has "
			"too many dimensions", s + 1) < 0 ? -1 : 1;
	contrib = dmd_proof_contrib(pr, s);
	if (!contrib) {
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_FAILS, "step %d: a returned box is not "
			"defined everywhere its statement runs", s + 1) < 0 ?
			-1 : 0;
	}
	holds = isl_set_set_tuple_name(isl_set_flatten(isl_map_wrap(
		isl_map_copy(lay->holds))), NULL);
	w = isl_map_project_out_all_params(isl_map_copy(p->acc[0].map));
	w = isl_map_set_tuple_name(w, isl_dim_in, NULL);
	w = isl_map_set_tuple_name(w, isl_dim_out, NULL);
	writes = isl_set_flatten(isl_map_wrap(w));	/* [i, e] */
	ran = dmd_proof_unbind(m, isl_set_copy(exec));	/* [src, i] */
	ran = isl_set_set_tuple_name(ran, NULL);
	all = isl_set_universe(isl_space_set_alloc(m->ctx, 0, n));
	for (k = 0; k < np; ++k)
		idx[k] = h + k;
	for (k = 0; k < nd; ++k)
		idx[np + k] = e + k;
	all = isl_set_intersect(all, dmd_proof_lift(m, isl_set_copy(holds),
		n, idx, np + nd));
	for (k = 0; k < nv; ++k)
		idx[k] = it + k;
	for (k = 0; k < nd; ++k)
		idx[nv + k] = e + k;
	all = isl_set_intersect(all, dmd_proof_lift(m, writes, n, idx,
		nv + nd));
	want = isl_set_project_out(isl_set_copy(all), isl_dim_set, h2,
		2 * np);
	for (k = 0; k < np; ++k)
		idx[k] = h2 + k;
	for (k = 0; k < nd; ++k)
		idx[np + k] = e + k;
	all = isl_set_intersect(all, dmd_proof_lift(m, holds, n, idx,
		np + nd));
	for (k = 0; k < np; ++k)
		idx[np + nd + k] = src + k;
	all = isl_set_intersect(all, dmd_proof_lift(m, contrib, n, idx,
		2 * np + nd));
	for (k = 0; k < np; ++k)
		idx[k] = src + k;
	for (k = 0; k < nv; ++k)
		idx[np + k] = it + k;
	all = isl_set_intersect(all, dmd_proof_lift(m, ran, n, idx, np + nv));
	/* h2 = h off the partial axes (on all axes without partial sums
	 * or for a step run on the partials); partial axes of a view: h2
	 * on the lines through h along them */
	if (lay->view >= 0 && lay->n_partial && !p->on_partials)
		all = isl_set_intersect(all, dmd_proof_lift(m,
			dmd_proof_partial_lines(m, lay), n, dmd_proof_idx_hh(idx, np, h,
			h2), 2 * np));
	else
		for (k = 0; k < np; ++k) {
			int partial = 0;

			for (j = 0; j < lay->n_partial; ++j)
				partial |= lay->partial[j] == k;
			if (!partial || p->on_partials)
				all = isl_set_equate(all, isl_dim_set, h + k,
					isl_dim_set, h2 + k);
		}
	c = isl_map_from_range(all);
	c = isl_map_move_dims(c, isl_dim_in, 0, isl_dim_out, 0, h2);
	sv = dmd_isl_bool(isl_map_is_single_valued(c));
	all = isl_map_domain(c);
	ok = dmd_isl_bool(isl_set_is_subset(want, all));
	isl_set_free(all);
	isl_set_free(want);
	if (sv < 0 || ok < 0)
		return -1;
	if (!sv || !ok) {
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_FAILS, "step %d: some holder of %s gets the "
			"result of an iteration %s", s + 1,
			m->job->tensors[p->out].name, !ok ? "never" :
			"more than once") < 0 ? -1 : 0;
	}
	return 1;
}

/* Is the home buffer of step "s"'s output still all zeros when the step
 * runs: not an input, written by no earlier step, the step not in a
 * repeat? */
static int dmd_proof_fresh(const struct dmd_model *m, int s)
{
	int k, out = m->poly[s]->out;

	if (m->use[out].input || dmd_model_step_count(m, s) != 1)
		return 0;
	for (k = 0; k < s; ++k)
		if (m->poly[k]->out == out)
			return 0;
	return 1;
}

/* The clearing of step "s"'s output: with '=', a holder that adds
 * results into its home buffer (the statement sums, results are
 * returned and added, or it holds partial sums that other ranks
 * compute) must first set the elements the step writes to -0.0, unless
 * the buffer is still all zeros and the results are sums anyway; and
 * nothing else may be cleared (an element no iteration writes keeps its
 * value).  Each cell whose ranks clear something runs the clearing
 * statement. */
static int dmd_proof_zero(struct dmd_proof_run *pr, int s)
{
	const struct dmd_model *m = pr->m;
	const struct dmd_poly *p = m->poly[s];
	const struct dmd_step_plan *sp = &pr->plan->steps[s];
	isl_set *w, *zero;
	int adds, ret, ok, c, i, has, some;

	w = isl_set_apply(isl_set_copy(p->domain), isl_map_copy(
		p->acc[0].map));
	w = isl_set_intersect(w, isl_set_copy(m->lay[p->out]->held));
	zero = sp->zero ? isl_set_copy(sp->zero) :
		isl_set_empty(isl_set_get_space(w));
	ret = sp->ret && sp->ret->p2p && sp->ret->p2p->sum;
	adds = !p->st->accumulate && (p->reduce || ret ||
		(m->lay[p->out]->n_partial && !p->on_partials)) &&
		(!dmd_proof_fresh(m, s) || (ret && !p->reduce));
	ok = dmd_isl_bool(isl_set_is_subset(zero, w));
	if (ok == 1 && adds)
		ok = dmd_isl_bool(isl_set_is_subset(w, zero));
	isl_set_free(w);
	for (c = 0; ok == 1 && c < pr->n_spec; ++c) {
		struct dmd_spec_step *ss = &pr->spec[c]->steps[s];

		isl_set *z = isl_set_intersect_params(isl_set_copy(zero),
			isl_set_copy(pr->spec[c]->cell));

		some = dmd_isl_bool(isl_set_is_empty(z));
		isl_set_free(z);
		for (i = 0, has = 0; i < ss->n_stmt; ++i)
			has |= ss->stmt[i].kind == DMD_SPEC_ZERO &&
				ss->stmt[i].dom;
		ok = some < 0 ? -1 : some || has;
	}
	isl_set_free(zero);
	if (ok < 0)
		return -1;
	if (!ok) {
		return dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED,
			DMD_PROOF_FAILS, "step %d: %s", s + 1,
			adds ? "a rank adds results into elements of its home "
			"buffer it does not clear first, or clears elements the "
			"step does not write" : "a rank clears elements the step "
			"does not write") < 0 ? -1 : 0;
	}
	return 1;
}

/* Prove what step "s" reads from home buffers, what its holders get and
 * what they clear, adding a "covered" line for it.  0, or -1 on error. */
static int dmd_proof_one_step(struct dmd_proof_run *pr, int s)
{
	const struct dmd_model *m = pr->m;
	isl_set *exec = dmd_proof_exec(pr, s);
	int r;

	r = dmd_proof_home_reads(pr, s, exec);
	if (r == 1)
		r = dmd_proof_outputs(pr, s, exec);
	if (r == 1)
		r = dmd_proof_zero(pr, s);
	isl_set_free(exec);
	if (r != 1)
		return r < 0 ? -1 : 0;
	return dmd_part_proof_add(pr->rep, DMD_CLAIM_COVERED, DMD_PROOF_HOLDS,
		"step %d (%s): every element it reads from a home buffer is "
		"held there, and every holder of %s gets the result of each "
		"iteration exactly once (cleared first where it adds them)",
		s + 1, m->poly[s]->label,
		m->job->tensors[m->poly[s]->out].name) < 0 ? -1 : 0;
}

/* Prove, on the programs "spec" of every cell (n of them) of the plan
 * "plan", that the transfers match up and cover what every rank reads,
 * and that every output element is computed exactly once (see the top of
 * this file).  "rep" gets a proof per transfer and per step.  DMD_OK if
 * every one holds; DMD_INTERNAL if one fails or on an error of the
 * analysis. */
enum dmd_status dmd_spec_prove(const struct dmd_plan *plan,
	const struct dmd_specs *specs, struct dmd_proofs *rep)
{
	struct dmd_proof_run pr = { plan, plan->m, specs->spec, specs->n, rep,
		0, NULL };
	int i, s, r = 0;

	for (i = 0; i < plan->n_xfer && r == 0; ++i)
		r = dmd_proof_xfer(&pr, plan->xfer[i]);
	for (s = 0; s < plan->n_step && r == 0; ++s)
		r = dmd_proof_one_step(&pr, s);
	for (i = 0; i < pr.n_memo; ++i)
		isl_set_free(pr.memo[i].set);
	free(pr.memo);
	if (r < 0)
		return DMD_INTERNAL;
	return dmd_part_proofs_failed(rep) ? DMD_INTERNAL : DMD_OK;
}
