/* dmd_layout.c: which rank holds which block of a tensor (spec 1.2).
 *
 * Every dist entry is a quasi-affine function b(c) of the coordinates: the
 * index of the block a rank holds along that dimension.  The block's
 * origin and extent follow from the spec's formulas, written in exactly
 * one place (dmd_layout_block):
 *   block:    [min(s b, E), +max(0, min(s, E - s b)))   s = ceil(E / B)
 *   balanced: [q b + min(b, r), +(q + 1 if b < r else q))  q, r = E /% B
 *   offsets:  [o_b, o_(b+1))
 * so that their pieces are real differences between ranks (a
 * tail block, an empty one) and nothing else.  For "tail" (X [127, 64],
 * dist [x, "-"] over 2 ranks): lo = [c_x] -> { [(64 c_x)] },
 * ext = [c_x] -> { [(64)] : c_x = 0; [(63)] : c_x = 1 }.
 * A cyclic dimension (spec 1.2, v3) is laid out in local coordinates
 * (dmd_layout_cyclic, dmd_layout_local_map; see dmd_model.h), where a
 * holder's blocks are one box as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_model.h"
#include "dmd_isl.h"

/* What dmd_layout_var needs: the mesh and the job. */
struct dmd_layout_vars {
	const struct dmd_mesh *mesh;
	const struct dmd_job *job;
};

/* The value of mesh axis "name" in a dist entry: its parameter. */
static __isl_give isl_pw_aff *dmd_layout_var(__isl_keep isl_space *space,
	const char *name, void *user)
{
	struct dmd_layout_vars *v = user;
	int a = dmd_job_find_axis(v->job, name);
	isl_local_space *ls;

	if (a < 0)
		return NULL;
	if (a >= v->job->n_axes)
		return isl_pw_aff_intersect_params(dmd_mesh_coord_at(v->mesh,
			a, space, isl_dim_param, 0),
			isl_set_copy(v->mesh->set));
	ls = isl_local_space_from_space(isl_space_copy(space));
	return isl_pw_aff_var_on_domain(ls, isl_dim_param, a);
}

/* Does expression "e" mention the variable "name"? */
static int dmd_layout_mentions(const struct dmd_expr *e, const char *name)
{
	int i;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR && !strcmp(e->name, name))
		return 1;
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_layout_mentions(e->args[i], name))
			return 1;
	return 0;
}

/* The number of blocks B of dist entry "b" over the mesh, after checking
 * that it takes exactly the values 0 .. B-1 there (spec 1.2); -1 after an
 * error at the entry. */
static long dmd_layout_nblocks(const struct dmd_mesh *mesh,
	const struct dmd_job *job, int ti, int d, __isl_keep isl_pw_aff *b)
{
	const struct dmd_tensor *t = &job->tensors[ti];
	isl_set *img, *want;
	isl_val *v;
	long B = -1;
	int ok;

	img = isl_set_from_pw_aff(isl_pw_aff_copy(b));
	img = isl_set_intersect_params(img, isl_set_copy(mesh->set));
	img = isl_set_project_out_all_params(img);
	v = isl_set_dim_max_val(isl_set_copy(img), 0);
	if (v && isl_val_is_int(v))
		B = isl_val_get_num_si(v) + 1;
	isl_val_free(v);
	ok = B >= 1;
	if (ok) {
		want = isl_set_universe(isl_set_get_space(img));
		want = isl_set_lower_bound_si(want, isl_dim_set, 0, 0);
		want = isl_set_upper_bound_si(want, isl_dim_set, 0, B - 1);
		ok = dmd_isl_bool(isl_set_is_equal(img, want)) == 1;
		isl_set_free(want);
	}
	isl_set_free(img);
	if (!ok) {
		char *txt = dmd_expr_to_str(t->dist[d]);

		dmd_job_error(job, t->dist_loc[d], "dist entry '%s' of tensor "
			"'%s' must take exactly the values 0 .. B-1 over the "
			"%s%s%s", txt ? txt : "?", t->name, t->view < 0 ?
			"mesh" : "ranks of view '", t->view < 0 ? "" :
			job->views[t->view].name, t->view < 0 ? "" : "'");
		free(txt);
		return -1;
	}
	if (t->offsets[d] && t->n_offsets[d] != B + 1) {
		dmd_job_error(job, t->dist_loc[d], "offsets of dimension %d of "
			"tensor '%s' give %d blocks, dist gives %ld", d,
			t->name, t->n_offsets[d] - 1, B);
		return -1;
	}
	return B;
}

/* The block of dimension "d" of tensor "t" (extent E, B blocks) that the
 * rank whose block index is "b" holds, by the formulas at the top of this
 * file: *lo and *ext over the mesh parameters. */
static int dmd_layout_block(const struct dmd_mesh *mesh,
	const struct dmd_tensor *t, int d, __isl_take isl_pw_aff *b, long B,
	isl_pw_aff **lo, isl_pw_aff **ext)
{
	isl_space *sp = mesh->space;
	long E = t->shape[d];
	isl_ctx *ctx = mesh->ctx;
	int i;

	if (t->offsets[d]) {
		*lo = *ext = NULL;
		for (i = 0; i < B; ++i) {
			isl_set *is_i;
			isl_pw_aff *l, *x;

			is_i = isl_pw_aff_eq_set(isl_pw_aff_copy(b),
				dmd_isl_cst(sp, i));
			l = isl_pw_aff_intersect_params(dmd_isl_cst(sp,
				t->offsets[d][i]), isl_set_copy(is_i));
			x = isl_pw_aff_intersect_params(dmd_isl_cst(sp,
				t->offsets[d][i + 1] - t->offsets[d][i]), is_i);
			*lo = *lo ? isl_pw_aff_union_add(*lo, l) : l;
			*ext = *ext ? isl_pw_aff_union_add(*ext, x) : x;
		}
		isl_pw_aff_free(b);
	} else if (t->split == DMD_SPLIT_BALANCED) {
		long q = E / B, r = E % B;
		isl_set *small, *big;

		small = isl_pw_aff_lt_set(isl_pw_aff_copy(b),
			dmd_isl_cst(sp, r));
		big = isl_set_subtract(isl_set_universe(isl_set_get_space(
			small)), isl_set_copy(small));
		*ext = isl_pw_aff_union_add(
			isl_pw_aff_intersect_params(dmd_isl_cst(sp, q + 1),
				small),
			isl_pw_aff_intersect_params(dmd_isl_cst(sp, q), big));
		*lo = isl_pw_aff_scale_val(isl_pw_aff_copy(b),
			isl_val_int_from_si(ctx, q));
		*lo = isl_pw_aff_add(*lo, isl_pw_aff_min(b,
			dmd_isl_cst(sp, r)));
	} else {
		long s = (E + B - 1) / B;
		isl_pw_aff *sb;

		sb = isl_pw_aff_scale_val(b, isl_val_int_from_si(ctx, s));
		*lo = isl_pw_aff_min(isl_pw_aff_copy(sb), dmd_isl_cst(sp, E));
		*ext = isl_pw_aff_max(dmd_isl_cst(sp, 0),
			isl_pw_aff_min(dmd_isl_cst(sp, s),
				isl_pw_aff_sub(dmd_isl_cst(sp, E), sb)));
	}
	return *lo && *ext ? 0 : -1;
}

/* The local block of cyclic dimension "d" of tensor "t" (extent E,
 * block size S, B holders) that the rank whose block index is "b" holds,
 * in local coordinates (see dmd_model.h): the nb = ceil(E / S) blocks are
 * dealt round-robin, so holder b has full = nb // B blocks, one more if
 * b < nb % B, and the holder of the last block, (nb - 1) % B, is short of
 * nb S - E elements:
 *   lo = b Lmax,  ext = S (full + [b < nb % B]) - [b = (nb - 1) % B] short
 * with Lmax = ceil(nb / B) S.  For E = 10, S = 2, B = 2 (blocks 0, 2, 4 on
 * holder 0 and 1, 3 on holder 1): Lmax = 6, lo = 6 b, ext = 6 - 2 b.
 * Sets *Lmax. */
static int dmd_layout_cyclic(const struct dmd_mesh *mesh,
	const struct dmd_tensor *t, int d, __isl_take isl_pw_aff *b, long B,
	isl_pw_aff **lo, isl_pw_aff **ext, long *Lmax)
{
	isl_space *sp = mesh->space;
	long E = t->shape[d], S = t->cyclic[d];
	long nb = (E + S - 1) / S, full = nb / B, extra = nb % B;
	long last = nb > 0 ? (nb - 1) % B : -1, shorter = nb * S - E;
	isl_set *more, *fewer, *is_last, *other;
	int k;

	*Lmax = (nb + B - 1) / B * S;
	*lo = isl_pw_aff_scale_val(isl_pw_aff_copy(b),
		isl_val_int_from_si(mesh->ctx, *Lmax));
	more = isl_pw_aff_lt_set(isl_pw_aff_copy(b), dmd_isl_cst(sp, extra));
	fewer = isl_set_complement(isl_set_copy(more));
	is_last = isl_pw_aff_eq_set(b, dmd_isl_cst(sp, last));
	other = isl_set_complement(isl_set_copy(is_last));
	*ext = NULL;
	for (k = 0; k < 4; ++k) {
		isl_set *where = isl_set_intersect(isl_set_copy(k < 2 ? more :
			fewer), isl_set_copy(k % 2 ? is_last : other));
		long n = S * (full + (k < 2)) - (k % 2 ? shorter : 0);
		isl_pw_aff *pa;

		pa = isl_pw_aff_intersect_params(dmd_isl_cst(sp, n), where);
		*ext = *ext ? isl_pw_aff_union_add(*ext, pa) : pa;
	}
	isl_set_free(more);
	isl_set_free(fewer);
	isl_set_free(is_last);
	isl_set_free(other);
	*ext = isl_pw_aff_coalesce(*ext);
	return *lo && *ext ? 0 : -1;
}

/* The local coordinate (see dmd_model.h) of index "e" along cyclic
 * dimension "d" of "lay" (block size S, B holders, Lmax elements per
 * holder at most):
 *   v = b Lmax + (j // B) S + o,  j = e // S, b = j % B, o = e % S
 * e.g. for S = 2, B = 2, Lmax = 6: 6 (floor(e/2) mod 2) + 2 floor(e/4) +
 * (e mod 2).  "e" itself when the dimension is not cyclic. */
__isl_give isl_aff *dmd_layout_local_aff(const struct dmd_layout *lay, int d,
	__isl_take isl_aff *e)
{
	isl_ctx *ctx;
	isl_aff *j, *b, *q, *o, *v;
	long S, B;

	if (!e || !lay->cyc[d])
		return e;
	ctx = isl_aff_get_ctx(e);
	S = lay->cyc[d];
	B = lay->cyc_B[d];
	j = isl_aff_floor(isl_aff_scale_down_ui(isl_aff_copy(e), S));
	b = isl_aff_mod_val(isl_aff_copy(j), isl_val_int_from_si(ctx, B));
	q = isl_aff_floor(isl_aff_scale_down_ui(j, B));
	o = isl_aff_mod_val(e, isl_val_int_from_si(ctx, S));
	v = isl_aff_scale_val(b, isl_val_int_from_si(ctx, lay->cyc_L[d]));
	v = isl_aff_add(v, isl_aff_scale_val(q, isl_val_int_from_si(ctx, S)));
	return isl_aff_add(v, o);
}

/* The global index of local coordinate "v" along cyclic dimension "d" of
 * "lay" (the inverse of dmd_layout_local_aff on the local coordinates a
 * holder uses):
 *   e = ((r // S) B + b) S + (v mod S),  b = v // Lmax, r = v mod Lmax
 * e.g. for S = 2, B = 2, Lmax = 6: 2 (2 floor((v mod 6)/2) + floor(v/6))
 * + (v mod 2).  "v" itself when the dimension is not cyclic. */
__isl_give isl_aff *dmd_layout_global_aff(const struct dmd_layout *lay,
	int d, __isl_take isl_aff *v)
{
	isl_ctx *ctx;
	isl_aff *b, *q, *o, *e;
	long S, B, L;

	if (!v || !lay->cyc[d])
		return v;
	ctx = isl_aff_get_ctx(v);
	S = lay->cyc[d];
	B = lay->cyc_B[d];
	L = lay->cyc_L[d];
	b = isl_aff_floor(isl_aff_scale_down_ui(isl_aff_copy(v), L));
	q = isl_aff_mod_val(isl_aff_copy(v), isl_val_int_from_si(ctx, L));
	q = isl_aff_floor(isl_aff_scale_down_ui(q, S));
	o = isl_aff_mod_val(v, isl_val_int_from_si(ctx, S));
	e = isl_aff_add(isl_aff_scale_val(q, isl_val_int_from_si(ctx, B)), b);
	e = isl_aff_scale_val(e, isl_val_int_from_si(ctx, S));
	return isl_aff_add(e, o);
}

/* The map of "lay" from global to local coordinates (see dmd_model.h):
 * { T[e] -> T[v] } with v from dmd_layout_local_aff on each cyclic
 * dimension, e.g. for S = 2, B = 2, Lmax = 6:
 *   { T[e] -> T[6 (floor(e/2) mod 2) + 2 floor(e/4) + (e mod 2)] }. */
static __isl_give isl_multi_aff *dmd_layout_local_map(
	const struct dmd_layout *lay)
{
	isl_space *space;
	isl_local_space *ls;
	isl_aff_list *list;
	isl_ctx *ctx = isl_space_get_ctx(lay->space);
	int d;

	space = isl_space_map_from_set(isl_space_copy(lay->space));
	ls = isl_local_space_from_space(isl_space_copy(lay->space));
	list = isl_aff_list_alloc(ctx, lay->ndim);
	for (d = 0; d < lay->ndim; ++d)
		list = isl_aff_list_add(list, dmd_layout_local_aff(lay, d,
			isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, d)));
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(space, list);
}

/* [c] -> { : c lies on the slice of tensor "t"'s place (and on its
 * view) } */
static __isl_give isl_set *dmd_layout_place(const struct dmd_mesh *mesh,
	const struct dmd_tensor *t)
{
	isl_set *set = dmd_mesh_frame(mesh, t->view);
	int i, a;

	for (i = 0; i < t->n_place; ++i) {
		a = t->place_axis[i];
		if (dmd_mesh_axis_view(mesh, a) < 0)
			set = isl_set_fix_si(set, isl_dim_param, a,
				t->place_coord[i]);
		else
			set = isl_set_intersect(set, isl_pw_aff_eq_set(
				dmd_mesh_coord(mesh, a), dmd_isl_cst(
				mesh->space, t->place_coord[i])));
	}
	return set;
}

/* Check that every combination of block indices of tensor "ti" is held by
 * some rank (spec 1.2), given the block index b[d] of each dimension as a
 * pw_aff over the mesh parameters (NULL: not split, one block) and the
 * number of blocks B[d].  Decided on sets, never by visiting ranks: the
 * block indices the ranks on the tensor's place slice hold,
 *	{ [b0, ..., bn-1] : exists c in the slice: b_d = b_d(c) },
 * must be the whole box 0 <= b_d < B[d].  For dist [x, x] on a mesh [2],
 * { [0, 0]; [1, 1] } misses [0, 1], reported as "block (0, 1)".  Returns
 * 0, or -1 after reporting the lexicographically first missing block. */
static int dmd_layout_check_held(const struct dmd_mesh *mesh,
	const struct dmd_job *job, int ti, isl_pw_aff *const *b,
	const long *B)
{
	const struct dmd_tensor *t = &job->tensors[ti];
	isl_pw_aff *idx[DMD_MAX_DIMS], *one[DMD_MAX_DIMS];
	isl_space *space;
	isl_set *held, *all, *missing, *unplaced;
	isl_point *pt;
	char buf[DMD_MAX_DIMS * 24 + 4];
	size_t len = 0;
	int d, n = t->ndim, r = -1, empty, by_place;

	if (n == 0)
		return 0;
	space = dmd_isl_set_space(mesh->space, "B", n);
	for (d = 0; d < n; ++d) {
		idx[d] = b[d] ? isl_pw_aff_copy(b[d]) :
			dmd_isl_cst(mesh->space, 0);
		one[d] = dmd_isl_cst(mesh->space, 1);
	}
	held = isl_map_range(dmd_isl_box_map(space, n, idx, one));
	unplaced = isl_set_intersect_params(isl_set_copy(held),
		isl_set_copy(mesh->set));
	unplaced = isl_set_project_out_all_params(unplaced);
	held = isl_set_intersect_params(held, dmd_layout_place(mesh, t));
	held = isl_set_project_out_all_params(held);
	all = isl_set_universe(isl_set_get_space(held));
	for (d = 0; d < n; ++d) {
		all = isl_set_lower_bound_si(all, isl_dim_set, d, 0);
		all = isl_set_upper_bound_si(all, isl_dim_set, d,
			b[d] ? B[d] - 1 : 0);
	}
	missing = isl_set_subtract(all, held);
	empty = dmd_isl_bool(isl_set_is_empty(missing));
	if (empty < 0)
		goto done;
	if (empty) {
		r = 0;
		goto done;
	}
	missing = isl_set_lexmin(missing);
	by_place = dmd_isl_bool(isl_set_is_subset(missing, unplaced));
	pt = isl_set_sample_point(isl_set_copy(missing));
	for (d = 0; d < n && pt; ++d) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, d);

		len += snprintf(buf + len, sizeof(buf) - len, "%s%ld",
			d ? ", " : "(", v ? isl_val_get_num_si(v) : -1L);
		isl_val_free(v);
	}
	isl_point_free(pt);
	snprintf(buf + len, sizeof(buf) - len, ")");
	dmd_job_error(job, t->layout_loc, "no rank holds block %s of tensor "
		"'%s'%s", buf, t->name, by_place == 1 ? " (its 'place' leaves "
		"out the ranks that would hold it)" : "");
done:
	for (d = 0; d < n; ++d) {
		isl_pw_aff_free(idx[d]);
		isl_pw_aff_free(one[d]);
	}
	isl_space_free(space);
	isl_set_free(missing);
	isl_set_free(unplaced);
	return r;
}

/* The block index of every dimension of tensor "ti" as a pw_aff over the
 * mesh parameters (b[d], NULL for "-") and the number of blocks (B[d], 1
 * for "-"), each dist entry checked (dmd_layout_nblocks), and then the
 * whole: every combination of block indices held by some rank
 * (dmd_layout_check_held).  Returns 0, or -1 after reporting an error
 * (every b[d] NULL then). */
static int dmd_layout_indices(const struct dmd_mesh *mesh,
	const struct dmd_job *job, int ti, isl_pw_aff **b, long *B)
{
	const struct dmd_tensor *t = &job->tensors[ti];
	struct dmd_layout_vars vars = { mesh, job };
	int d;

	for (d = 0; d < t->ndim; ++d) {
		b[d] = NULL;
		B[d] = 1;
	}
	for (d = 0; d < t->ndim; ++d) {
		if (!t->dist[d])
			continue;
		b[d] = dmd_isl_expr(mesh->space, t->dist[d],
			&dmd_layout_var, &vars);
		if (!b[d])
			goto error;
		B[d] = dmd_layout_nblocks(mesh, job, ti, d, b[d]);
		if (B[d] < 0)
			goto error;
	}
	if (dmd_layout_check_held(mesh, job, ti, b, B) < 0)
		goto error;
	return 0;
error:
	for (d = 0; d < t->ndim; ++d)
		b[d] = isl_pw_aff_free(b[d]);
	return -1;
}

/* The blocks of every dimension: lo/ext on the place slice, an empty
 * block at the origin elsewhere. */
static int dmd_layout_blocks(struct dmd_layout *lay,
	const struct dmd_mesh *mesh, const struct dmd_job *job)
{
	const struct dmd_tensor *t = &job->tensors[lay->tensor];
	isl_set *place = dmd_layout_place(mesh, t);
	isl_pw_aff *b[DMD_MAX_DIMS];
	long B[DMD_MAX_DIMS];
	isl_set *off;
	int d;

	off = isl_set_subtract(isl_set_copy(mesh->set), isl_set_copy(place));
	if (dmd_layout_indices(mesh, job, lay->tensor, b, B) < 0)
		goto error;
	for (d = 0; d < lay->ndim; ++d) {
		isl_pw_aff *zero;

		lay->vshape[d] = t->shape[d];
		if (!b[d]) {
			lay->lo[d] = dmd_isl_cst(mesh->space, 0);
			lay->ext[d] = dmd_isl_cst(mesh->space, t->shape[d]);
		} else if (t->cyclic[d] && B[d] > 1) {
			int r = dmd_layout_cyclic(mesh, t, d, b[d], B[d],
				&lay->lo[d], &lay->ext[d], &lay->cyc_L[d]);

			b[d] = NULL;
			if (r < 0)
				goto error;
			lay->cyc[d] = t->cyclic[d];
			lay->cyc_B[d] = B[d];
			lay->vshape[d] = B[d] * lay->cyc_L[d];
		} else {
			int r = dmd_layout_block(mesh, t, d, b[d], B[d],
				&lay->lo[d], &lay->ext[d]);

			b[d] = NULL;
			if (r < 0)
				goto error;
		}
		zero = isl_pw_aff_val_on_domain(isl_set_copy(off),
			isl_val_zero(mesh->ctx));
		lay->lo[d] = isl_pw_aff_union_add(isl_pw_aff_intersect_params(
			lay->lo[d], isl_set_copy(place)),
			isl_pw_aff_copy(zero));
		lay->ext[d] = isl_pw_aff_union_add(isl_pw_aff_intersect_params(
			lay->ext[d], isl_set_copy(place)), zero);
		lay->lo[d] = isl_pw_aff_coalesce(lay->lo[d]);
		lay->ext[d] = isl_pw_aff_coalesce(lay->ext[d]);
		if (!lay->lo[d] || !lay->ext[d])
			goto error;
	}
	isl_set_free(off);
	isl_set_free(place);
	return 0;
error:
	for (d = 0; d < lay->ndim; ++d)
		isl_pw_aff_free(b[d]);
	isl_set_free(off);
	isl_set_free(place);
	return -1;
}

/* held, holds and writer of "lay" from its blocks. */
static int dmd_layout_sets(struct dmd_layout *lay,
	const struct dmd_mesh *mesh, const struct dmd_job *job)
{
	const struct dmd_tensor *t = &job->tensors[lay->tensor];
	isl_set *place = dmd_layout_place(mesh, t), *one;
	int i;

	if (lay->ndim == 0)
		lay->held = isl_set_universe(isl_space_copy(lay->space));
	else
		lay->held = isl_map_range(dmd_isl_box_map(lay->space,
			lay->ndim, lay->lo, lay->ext));
	lay->held = isl_set_intersect_params(lay->held, isl_set_copy(place));
	lay->held = isl_set_coalesce(lay->held);
	lay->holds = isl_set_unbind_params_insert_domain(
		isl_set_copy(lay->held), isl_multi_id_copy(mesh->ids));
	lay->holds = isl_map_intersect_domain(lay->holds,
		dmd_mesh_ranks(mesh));
	/* one replica writes: coordinate 0 along the axes of its frame
	 * that replicate */
	one = dmd_mesh_frame(mesh, lay->view);
	for (i = 0; i < mesh->n_all; ++i) {
		if (lay->axis_used[i] ||
		    dmd_mesh_axis_view(mesh, i) != lay->view)
			continue;
		if (lay->view < 0)
			one = isl_set_fix_si(one, isl_dim_param, i, 0);
		else
			one = isl_set_intersect(one, isl_pw_aff_eq_set(
				dmd_mesh_coord(mesh, i),
				dmd_isl_cst(mesh->space, 0)));
	}
	lay->writer = isl_set_intersect(one, isl_set_params(
		isl_set_copy(lay->held)));
	lay->writer = isl_set_coalesce(lay->writer);
	isl_set_free(place);
	return lay->held && lay->holds && lay->writer ? 0 : -1;
}

/* Build the layout of tensor "ti" of "job" over "mesh".  Errors in its
 * dist entries are reported against the job file; NULL is returned. */
__isl_give struct dmd_layout *dmd_layout_build(const struct dmd_mesh *mesh,
	const struct dmd_job *job, int ti)
{
	const struct dmd_tensor *t = &job->tensors[ti];
	struct dmd_layout *lay;
	char name[32];
	int d, i;

	lay = calloc(1, sizeof(*lay));
	if (!lay)
		return NULL;
	lay->tensor = ti;
	lay->ndim = t->ndim;
	snprintf(name, sizeof(name), "T%d", ti);
	lay->space = dmd_isl_set_space(mesh->space, name, t->ndim);
	lay->lo = calloc(t->ndim + 1, sizeof(*lay->lo));
	lay->ext = calloc(t->ndim + 1, sizeof(*lay->ext));
	lay->axis_used = calloc(mesh->n_all + 1, sizeof(int));
	lay->partial = calloc(t->n_partial + 1, sizeof(int));
	lay->cyc = calloc(t->ndim + 1, sizeof(long));
	lay->cyc_B = calloc(t->ndim + 1, sizeof(long));
	lay->cyc_L = calloc(t->ndim + 1, sizeof(long));
	lay->vshape = calloc(t->ndim + 1, sizeof(long));
	if (!lay->space || !lay->lo || !lay->ext || !lay->axis_used ||
	    !lay->partial || !lay->cyc || !lay->cyc_B || !lay->cyc_L ||
	    !lay->vshape)
		return dmd_layout_free(lay);
	lay->view = t->view;
	for (i = 0; i < mesh->n_all; ++i) {
		for (d = 0; d < t->ndim; ++d)
			lay->axis_used[i] |= dmd_layout_mentions(t->dist[d],
				dmd_job_axis_name(job, i));
		for (d = 0; d < t->n_place; ++d)
			lay->axis_used[i] |= t->place_axis[d] == i;
	}
	lay->n_partial = t->n_partial;
	for (i = 0; i < t->n_partial; ++i)
		lay->partial[i] = t->partial_axis[i];
	if (dmd_layout_blocks(lay, mesh, job) < 0 ||
	    dmd_layout_sets(lay, mesh, job) < 0)
		return dmd_layout_free(lay);
	for (d = 0; d < lay->ndim; ++d)
		if (lay->cyc[d])
			break;
	if (d < lay->ndim) {
		lay->local = dmd_layout_local_map(lay);
		if (!lay->local)
			return dmd_layout_free(lay);
	}
	return lay;
}

/* Check the dist entries of tensor "ti" of "job" over "mesh" as
 * dmd_layout_build does, without building the layout: for a tensor no
 * step accesses.  Returns 0, or -1 after reporting an error. */
int dmd_layout_check(const struct dmd_mesh *mesh, const struct dmd_job *job,
	int ti)
{
	isl_pw_aff *b[DMD_MAX_DIMS];
	long B[DMD_MAX_DIMS];
	int d;

	if (dmd_layout_indices(mesh, job, ti, b, B) < 0)
		return -1;
	for (d = 0; d < job->tensors[ti].ndim; ++d)
		isl_pw_aff_free(b[d]);
	return 0;
}

/* Release "lay"; returns NULL. */
__isl_null struct dmd_layout *dmd_layout_free(
	__isl_take struct dmd_layout *lay)
{
	int d;

	if (!lay)
		return NULL;
	isl_space_free(lay->space);
	for (d = 0; d < lay->ndim; ++d) {
		if (lay->lo)
			isl_pw_aff_free(lay->lo[d]);
		if (lay->ext)
			isl_pw_aff_free(lay->ext[d]);
	}
	free(lay->lo);
	free(lay->ext);
	isl_set_free(lay->held);
	isl_map_free(lay->holds);
	isl_set_free(lay->writer);
	free(lay->partial);
	free(lay->axis_used);
	free(lay->cyc);
	free(lay->cyc_B);
	free(lay->cyc_L);
	free(lay->vshape);
	isl_multi_aff_free(lay->local);
	free(lay);
	return NULL;
}
