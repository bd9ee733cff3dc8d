/* dmd_part_pattern.c: recognising broadcasts and ring shifts.
 *
 * SUMMA's A at step ko: need [c_x, c_y] -> { X0[ko] -> T0[i, k] :
 * 32 c_x <= i < 32 c_x + 32 and 48 ko <= k < 48 ko + 48 } does not depend
 * on c_y, and the rank of the row with c_y = ko holds all of it: a
 * broadcast along y with root ko.
 * PUMMA's A: need(r, kor + 1) = need(r + e_y, kor): a ring shift along y.
 */
#include <stdlib.h>

#include <isl/local_space.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* Does "pa" depend on mesh coordinate "axis", once the mesh bounds are
 * known?  (-1 on error) */
static int dmd_pattern_involves(const struct dmd_model *m,
	__isl_keep isl_pw_aff *pa, int axis)
{
	isl_pw_aff *g;
	isl_bool r;

	g = isl_pw_aff_gist_params(isl_pw_aff_copy(pa),
		isl_set_copy(m->mesh->set));
	g = isl_pw_aff_coalesce(g);
	r = isl_pw_aff_involves_dims(g, isl_dim_param, axis, 1);
	isl_pw_aff_free(g);
	return r < 0 ? -1 : r == isl_bool_true;
}

/* The root of a broadcast of box "box" (over X) along "axis": the rank
 * with the coordinates of the receiver off the axis that holds the box's
 * first element (lexicographically first along the axis), as a map
 *   [c] -> { X[t] -> R[h] }. */
static __isl_give isl_map *dmd_pattern_root(const struct dmd_model *m,
	const struct dmd_layout *lay, const struct dmd_box *box, int axis)
{
	isl_multi_pw_aff *mpa;
	isl_pw_aff_list *list;
	isl_space *space;
	isl_map *root;
	isl_set *others;
	int d;

	list = isl_pw_aff_list_alloc(m->ctx, lay->ndim);
	for (d = 0; d < lay->ndim; ++d)
		list = isl_pw_aff_list_add(list, isl_pw_aff_copy(box->lo[d]));
	space = isl_space_map_from_domain_and_range(
		isl_pw_aff_get_domain_space(box->lo[0]),
		isl_space_copy(lay->space));
	mpa = isl_multi_pw_aff_from_pw_aff_list(space, list);
	root = isl_map_from_multi_pw_aff(mpa);
	root = isl_map_apply_range(root, isl_map_reverse(
		isl_map_copy(lay->holds)));
	others = isl_set_universe(dmd_mesh_rank_space(m->mesh));
	for (d = 0; d < m->mesh->n; ++d)
		if (d != axis)
			others = isl_set_equate(others, isl_dim_set, d,
				isl_dim_param, d);
	root = isl_map_intersect_range(root, others);
	return isl_map_lexmin(root);
}

/* "need" ([c] -> { X[t] -> T[e] }) with the ranks as dimensions:
 * { [R[r] -> X[t]] -> T[e] }. */
static __isl_give isl_map *dmd_pattern_unbind(const struct dmd_model *m,
	__isl_take isl_map *need)
{
	return isl_map_uncurry(isl_set_unbind_params_insert_domain(
		isl_map_wrap(need), isl_multi_id_copy(m->mesh->ids)));
}

/* The inverse of dmd_pattern_unbind. */
static __isl_give isl_map *dmd_pattern_bind(const struct dmd_model *m,
	__isl_take isl_map *map)
{
	isl_set *s;

	s = isl_map_bind_domain(isl_map_curry(map),
		isl_multi_id_copy(m->mesh->ids));
	s = isl_set_align_params(s, isl_space_copy(m->mesh->space));
	return isl_set_unwrap(s);
}

/* Is there a rank off the view of "axis" that needs something in "x"?
 * (1, 0, -1 on error) */
static int dmd_pattern_off_view_needs(const struct dmd_model *m,
	const struct dmd_xfer *x, int axis)
{
	isl_set *off;
	isl_map *n;
	int r;

	off = isl_set_subtract(isl_set_copy(m->mesh->set), dmd_mesh_frame(
		m->mesh, dmd_mesh_axis_view(m->mesh, axis)));
	n = isl_map_intersect_params(isl_map_copy(x->need), off);
	r = dmd_isl_bool(isl_map_is_empty(n));
	isl_map_free(n);
	return r < 0 ? -1 : !r;
}

/* dmd_part_try_bcast for an axis of a view: the line of a rank along
 * the axis (dmd_mesh_line) is its group; the group needs the union of
 * what its ranks need ({ [R[r] -> X[t]] -> T[e] } composed with the
 * line), and the root is the rank of the line that holds the first
 * element of the group's box.  Ranks off the view must need nothing. */
static int dmd_pattern_bcast_view(const struct dmd_model *m,
	struct dmd_xfer *x, int axis)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	struct dmd_box box = { 0 };
	isl_map *needr, *line, *lx, *group, *cover, *root = NULL, *rholds;
	isl_map *first, *others, *coord;
	isl_set *gd, *rd, *on;
	isl_space *xs, *rs;
	isl_pw_multi_aff *pma;
	isl_pw_aff *pa = NULL;
	isl_multi_pw_aff *mpa;
	isl_pw_aff_list *list;
	int ok, d;

	ok = dmd_pattern_off_view_needs(m, x, axis);
	if (ok != 0)
		return ok < 0 ? -1 : 0;
	needr = dmd_pattern_unbind(m, isl_map_copy(x->need));
	line = dmd_mesh_line(m->mesh, axis);
	xs = isl_space_unwrap(isl_space_domain(isl_map_get_space(needr)));
	xs = isl_space_range(xs);
	lx = isl_map_product(isl_map_copy(line), isl_map_identity(
		isl_space_map_from_set(xs)));
	group = dmd_pattern_bind(m, isl_map_apply_range(lx, needr));
	group = isl_map_intersect_params(group, isl_set_copy(m->mesh->set));
	group = isl_map_coalesce(group);
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(x->need)));
	ok = dmd_isl_bool(isl_map_is_subset(cover, x->need));
	isl_map_free(cover);
	if (ok != 1)
		goto done;
	if (dmd_box_of_map(&box, group) < 0)
		goto error;
	/* the root: the rank of the line holding the box's first element */
	list = isl_pw_aff_list_alloc(m->ctx, lay->ndim);
	for (d = 0; d < lay->ndim; ++d)
		list = isl_pw_aff_list_add(list, isl_pw_aff_copy(box.lo[d]));
	mpa = isl_multi_pw_aff_from_pw_aff_list(
		isl_space_map_from_domain_and_range(
		isl_pw_aff_get_domain_space(box.lo[0]),
		isl_space_copy(lay->space)), list);
	first = isl_map_from_multi_pw_aff(mpa);
	first = isl_map_apply_range(first, isl_map_reverse(
		isl_map_copy(lay->holds)));
	others = isl_map_reverse(isl_map_copy(line));
	on = isl_map_bind_domain(isl_map_reverse(others),
		isl_multi_id_copy(m->mesh->ids));
	on = isl_set_align_params(on, isl_space_copy(m->mesh->space));
	root = isl_map_lexmin(isl_map_intersect_range(first, on));
	rholds = isl_map_apply_range(isl_map_copy(root),
		isl_map_copy(lay->holds));
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(root)));
	ok = dmd_isl_bool(isl_map_is_subset(cover, rholds));
	isl_map_free(cover);
	isl_map_free(rholds);
	if (ok != 1)
		goto done;
	gd = isl_map_domain(isl_map_copy(group));
	rd = isl_map_domain(isl_map_copy(root));
	ok = dmd_isl_bool(isl_set_is_subset(gd, rd));
	isl_set_free(rd);
	if (ok != 1) {
		isl_set_free(gd);
		goto done;
	}
	x->dom = isl_set_coalesce(isl_set_intersect(x->dom, gd));
	/* its coordinate along the axis */
	rs = dmd_mesh_rank_space(m->mesh);
	coord = isl_map_from_pw_aff(dmd_mesh_coord_at(m->mesh, axis, rs,
		isl_dim_set, 0));
	isl_space_free(rs);
	pma = isl_pw_multi_aff_from_map(isl_map_apply_range(
		isl_map_copy(root), coord));
	pa = isl_pw_multi_aff_get_pw_aff(pma, 0);
	isl_pw_multi_aff_free(pma);
	pa = isl_pw_aff_coalesce(isl_pw_aff_gist_params(pa,
		isl_set_copy(m->mesh->set)));
	if (!x->dom || !pa)
		goto error;
	x->kind = DMD_XFER_BCAST;
	x->axis = axis;
	x->root = pa;
	pa = NULL;
	dmd_box_clear(&x->box);
	x->box = box;
	box.n = 0;
	box.lo = box.ext = NULL;
	ok = 1;
done:
	isl_pw_aff_free(pa);
	isl_map_free(root);
	isl_map_free(group);
	isl_map_free(line);
	dmd_box_clear(&box);
	return ok;
error:
	ok = -1;
	goto done;
}

/* Is transfer "x" a broadcast along "axis"?  The whole axis group needs
 * the same box (the need with the coordinate along the axis eliminated:
 * ranks that need part of it need all of it; ranks with empty shards
 * receive it and ignore it), and one rank of the group, the root, holds
 * all of it, at a coordinate along the axis that does not depend on the
 * receiver's.  Sets the kind, the root, the (group's) box, and restricts
 * the time points to those where the group needs something. */
int dmd_part_try_bcast(const struct dmd_model *m, struct dmd_xfer *x,
	int axis)
{
	const struct dmd_layout *lay = m->lay[x->tensor];
	struct dmd_box box = { 0 };
	isl_map *group, *cover, *root = NULL, *rholds;
	isl_set *gd, *rd;
	isl_pw_aff *pa = NULL;
	isl_pw_multi_aff *pma;
	int ok = 0, d, r;

	if (lay->ndim == 0)
		return 0;
	if (dmd_mesh_axis_view(m->mesh, axis) >= 0)
		return dmd_pattern_bcast_view(m, x, axis);
	group = isl_map_eliminate(isl_map_copy(x->need), isl_dim_param, axis,
		1);
	group = isl_map_intersect_params(group, isl_set_copy(m->mesh->set));
	group = isl_map_coalesce(group);
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(x->need)));
	ok = dmd_isl_bool(isl_map_is_subset(cover, x->need));
	isl_map_free(cover);
	if (ok != 1)
		goto done;
	if (dmd_box_of_map(&box, group) < 0)
		goto error;
	for (d = 0; d < lay->ndim; ++d) {
		if ((r = dmd_pattern_involves(m, box.lo[d], axis)) != 0 ||
		    (r = dmd_pattern_involves(m, box.ext[d], axis)) != 0) {
			ok = r < 0 ? -1 : 0;
			goto done;
		}
	}
	root = dmd_pattern_root(m, lay, &box, axis);
	/* the root holds every element the group needs, and is found
	 * wherever something is needed */
	rholds = isl_map_apply_range(isl_map_copy(root),
		isl_map_copy(lay->holds));
	cover = isl_map_intersect_domain(isl_map_copy(group),
		isl_map_domain(isl_map_copy(root)));
	ok = dmd_isl_bool(isl_map_is_subset(cover, rholds));
	isl_map_free(cover);
	isl_map_free(rholds);
	if (ok != 1)
		goto done;
	gd = isl_map_domain(isl_map_copy(group));
	rd = isl_map_domain(isl_map_copy(root));
	ok = dmd_isl_bool(isl_set_is_subset(gd, rd));
	isl_set_free(rd);
	if (ok != 1) {
		isl_set_free(gd);
		goto done;
	}
	/* the group broadcasts at the time points where one of its ranks
	 * needs something: the box and the root are defined there only
	 * (a tail block has fewer time points than the others) */
	x->dom = isl_set_coalesce(isl_set_intersect(x->dom, gd));
	if (!x->dom)
		goto error;
	pma = isl_pw_multi_aff_from_map(isl_map_copy(root));
	pa = isl_pw_multi_aff_get_pw_aff(pma, axis);
	isl_pw_multi_aff_free(pma);
	pa = isl_pw_aff_coalesce(isl_pw_aff_gist_params(pa,
		isl_set_copy(m->mesh->set)));
	r = dmd_pattern_involves(m, pa, axis);
	if (r != 0) {
		ok = r < 0 ? -1 : 0;
		goto done;
	}
	x->kind = DMD_XFER_BCAST;
	x->axis = axis;
	x->root = pa;
	pa = NULL;
	dmd_box_clear(&x->box);
	x->box = box;
	box.n = 0;
	box.lo = box.ext = NULL;
	ok = 1;
done:
	isl_pw_aff_free(pa);
	isl_map_free(root);
	isl_map_free(group);
	dmd_box_clear(&box);
	return ok;
error:
	ok = -1;
	goto done;
}

/* The map on [R[r] -> X[t]] that adds 1 to time dimension "level"
 * (disp == 0), or moves r by "disp" along "axis" around the ring (of a
 * view: dmd_mesh_moved). */
static __isl_give isl_multi_aff *dmd_pattern_move(const struct dmd_model *m,
	__isl_take isl_space *space, int level, int axis, int disp)
{
	isl_local_space *ls;
	isl_aff_list *list;
	int np = m->mesh->n, i, n;
	isl_ctx *ctx = m->ctx;

	n = isl_space_dim(space, isl_dim_set);
	ls = isl_local_space_from_space(isl_space_copy(space));
	list = isl_aff_list_alloc(ctx, n);
	for (i = 0; i < n; ++i) {
		isl_aff *a;

		if (disp != 0 && i < np)
			a = dmd_mesh_moved(m->mesh, ls, 0, axis, disp, i);
		else
			a = isl_aff_var_on_domain(isl_local_space_copy(ls),
				isl_dim_set, i);
		if (disp == 0 && i == np + level)
			a = isl_aff_add_constant_si(a, 1);
		list = isl_aff_list_add(list, a);
	}
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(isl_space_map_from_set(space),
		list);
}

/* Is transfer "x" a ring shift along "axis" by "disp"?  For every time
 * point t but the first of its loop, what rank r needs at t + e_level is
 * what rank r + disp e_axis (around the ring) needed at t:
 *   need(r, t + e_level) = need(r + disp e_axis mod P, t). */
int dmd_part_try_shift(const struct dmd_model *m, struct dmd_xfer *x,
	int axis, int disp)
{
	isl_map *needr, *next, *nb;
	isl_set *d0, *d1, *ranks;
	isl_space *space;
	isl_multi_aff *step;
	isl_bool eq;

	if (x->level < 0)
		return 0;
	if (dmd_mesh_axis_view(m->mesh, axis) >= 0) {
		int r = dmd_pattern_off_view_needs(m, x, axis);

		if (r != 0)
			return r < 0 ? -1 : 0;
	}
	needr = isl_map_uncurry(isl_set_unbind_params_insert_domain(
		isl_map_wrap(isl_map_copy(x->need)),
		isl_multi_id_copy(m->mesh->ids)));
	space = isl_space_domain(isl_map_get_space(needr));
	step = dmd_pattern_move(m, isl_space_copy(space), x->level, axis, 0);
	next = isl_map_preimage_domain_multi_aff(isl_map_copy(needr),
		isl_multi_aff_copy(step));
	nb = isl_map_preimage_domain_multi_aff(needr,
		dmd_pattern_move(m, space, x->level, axis, disp));
	/* where t and t + e_level are both time points (on the ranks of
	 * the axis's view) */
	ranks = dmd_mesh_ranks(m->mesh);
	if (dmd_mesh_axis_view(m->mesh, axis) >= 0) {
		isl_space *rs = dmd_mesh_rank_space(m->mesh);

		ranks = isl_set_intersect(ranks, dmd_mesh_frame_at(m->mesh,
			dmd_mesh_axis_view(m->mesh, axis), rs, isl_dim_set, 0));
		isl_space_free(rs);
	}
	d0 = isl_map_wrap(isl_map_from_domain_and_range(ranks,
		isl_set_copy(x->dom)));
	d1 = isl_set_preimage_multi_aff(isl_set_copy(d0), step);
	d0 = isl_set_intersect(d0, d1);
	next = isl_map_intersect_domain(next, isl_set_copy(d0));
	nb = isl_map_intersect_domain(nb, d0);
	eq = isl_map_is_equal(next, nb);
	isl_map_free(next);
	isl_map_free(nb);
	if (eq < 0)
		return -1;
	if (!eq)
		return 0;
	x->kind = DMD_XFER_SHIFT;
	x->axis = axis;
	x->disp = disp;
	return 1;
}
