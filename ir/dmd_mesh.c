/* dmd_mesh.c: the mesh as an isl parameter space, and the coordinates
 * of the ranks on views.
 *
 * Mesh axis x becomes the parameter c_x (the name of the coordinate in the
 * emitted C), whatever the job calls it, so that AST expressions print
 * the emitted program's own variables:
 *   [c_x, c_y] -> { : 0 <= c_x <= 7 and 0 <= c_y <= 7 }
 * A view (spec 1.1) adds no parameter: its coordinates are quasi-affine
 * functions of the mesh coordinates, through the row-major rank r.  On a
 * mesh [8] (r = c_r) viewed as g: [2, 2, 2] with axes a, b, c:
 *   a = floor(r / 4), b = floor(r / 2) mod 2, c = r mod 2
 * on the ranks r < 8 of the view.  So every analysis stays one object
 * for all ranks, and nothing iterates over ranks.  The first axis of a
 * view is not reduced modulo its extent: the ranks past the view (a view
 * over fewer ranks than the mesh) have no coordinates on it, and the
 * pw_affs of its coordinates are not defined there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/local_space.h>

#include "dmd_model.h"
#include "dmd_isl.h"

/* The C name of the coordinate of mesh axis "axis": "c_" + its name
 * (malloc'ed).  Names of the form KIND_NAME with an underscore-free KIND
 * cannot collide with each other, with C keywords or with the runtime's
 * names (see emit/dmd_emit_name.c). */
char *dmd_mesh_coord_name(const struct dmd_job *job, int axis)
{
	const char *name = dmd_job_axis_name(job, axis);
	size_t n = strlen(name) + 3;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "c_%s", name);
	return s;
}

/* The position in "ls" of mesh coordinate "i" of the rank at
 * dimensions pos .. of "type" (the parameter c_<axis> for isl_dim_param). */
static int dmd_mesh_pos(const struct dmd_mesh *mesh,
	__isl_keep isl_local_space *ls, enum isl_dim_type type, int pos,
	int i)
{
	isl_space *space;
	isl_id *id;
	int p;

	if (type != isl_dim_param)
		return pos + i;
	id = isl_multi_id_get_at(mesh->ids, i);
	space = isl_local_space_get_space(ls);
	p = isl_space_find_dim_by_id(space, isl_dim_param, id);
	isl_space_free(space);
	isl_id_free(id);
	return p;
}

/* The row-major rank of the mesh point at dimensions pos .. of "type"
 * of "ls": ((c0 s1) + c1) s2 + c2 ... */
static __isl_give isl_aff *dmd_mesh_linear(const struct dmd_mesh *mesh,
	__isl_keep isl_local_space *ls, enum isl_dim_type type, int pos)
{
	isl_aff *lin;
	int i;

	lin = isl_aff_zero_on_domain(isl_local_space_copy(ls));
	for (i = 0; i < mesh->n; ++i) {
		int p = dmd_mesh_pos(mesh, ls, type, pos, i);

		if (p < 0)
			return isl_aff_free(lin);
		lin = isl_aff_scale_val(lin, isl_val_int_from_si(mesh->ctx,
			mesh->shape[i]));
		lin = isl_aff_add(lin, isl_aff_var_on_domain(
			isl_local_space_copy(ls), type, p));
	}
	return lin;
}

/* floor(lin / stride), modulo "extent" unless extent is 0. */
static __isl_give isl_aff *dmd_mesh_digit(isl_ctx *ctx, __isl_take isl_aff *lin,
	long stride, long extent)
{
	lin = isl_aff_scale_down_val(lin, isl_val_int_from_si(ctx, stride));
	lin = isl_aff_floor(lin);
	if (extent)
		lin = isl_aff_mod_val(lin, isl_val_int_from_si(ctx, extent));
	return lin;
}

/* The stride of axis "pos" of view "v" in the row-major rank. */
static long dmd_mesh_view_stride(const struct dmd_view *view, int pos)
{
	long s = 1;
	int j;

	for (j = pos + 1; j < view->n_axes; ++j)
		s *= view->shape[j];
	return s;
}

/* The view of axis "a" (-1: the mesh). */
int dmd_mesh_axis_view(const struct dmd_mesh *mesh, int a)
{
	return dmd_job_axis_view(mesh->job, a);
}

/* The ranks of view "v" of the rank at (type, pos) of "space": r <
 * nranks of the view (the universe for the mesh and a view of every
 * rank). */
__isl_give isl_set *dmd_mesh_frame_at(const struct dmd_mesh *mesh, int v,
	__isl_keep isl_space *space, enum isl_dim_type type, int pos)
{
	const struct dmd_view *view;
	isl_local_space *ls;
	isl_aff *lin;

	if (v < 0 || mesh->job->views[v].nranks == mesh->job->nranks)
		return isl_set_universe(isl_space_copy(space));
	view = &mesh->job->views[v];
	ls = isl_local_space_from_space(isl_space_copy(space));
	lin = dmd_mesh_linear(mesh, ls, type, pos);
	lin = isl_aff_add_constant_si(isl_aff_neg(lin), view->nranks - 1);
	isl_local_space_free(ls);
	return isl_pw_aff_nonneg_set(isl_pw_aff_from_aff(lin));
}

/* The coordinate along axis "a" of the rank at (type, pos) of "space". */
__isl_give isl_pw_aff *dmd_mesh_coord_at(const struct dmd_mesh *mesh, int a,
	__isl_keep isl_space *space, enum isl_dim_type type, int pos)
{
	const struct dmd_view *view;
	isl_local_space *ls;
	isl_aff *c;
	int v = dmd_mesh_axis_view(mesh, a), j;

	ls = isl_local_space_from_space(isl_space_copy(space));
	if (v < 0) {
		int p = dmd_mesh_pos(mesh, ls, type, pos, a);

		c = p < 0 ? NULL : isl_aff_var_on_domain(
			isl_local_space_copy(ls), type, p);
		isl_local_space_free(ls);
		return isl_pw_aff_from_aff(c);
	}
	view = &mesh->job->views[v];
	j = dmd_job_axis_pos(mesh->job, a);
	c = dmd_mesh_digit(mesh->ctx, dmd_mesh_linear(mesh, ls, type, pos),
		dmd_mesh_view_stride(view, j), j ? view->shape[j] : 0);
	isl_local_space_free(ls);
	return isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(c),
		dmd_mesh_frame_at(mesh, v, space, type, pos));
}

/* The coordinate of a rank along axis "a" (on its frame). */
__isl_give isl_pw_aff *dmd_mesh_coord(const struct dmd_mesh *mesh, int a)
{
	return isl_pw_aff_copy(mesh->coord[a]);
}

/* The ranks of view "v" (the mesh for v = -1). */
__isl_give isl_set *dmd_mesh_frame(const struct dmd_mesh *mesh, int v)
{
	return isl_set_copy(v < 0 ? mesh->set : mesh->frame[v]);
}

/* The coordinates of every axis and the ranks of every view. */
static int dmd_mesh_views(struct dmd_mesh *mesh)
{
	const struct dmd_job *job = mesh->job;
	isl_space *ps = isl_space_copy(mesh->space);
	int a, v;

	mesh->n_all = dmd_job_n_all_axes(job);
	mesh->coord = calloc(mesh->n_all + 1, sizeof(*mesh->coord));
	mesh->n_frame = job->n_views;
	mesh->frame = calloc(job->n_views + 1, sizeof(*mesh->frame));
	if (!mesh->coord || !mesh->frame) {
		isl_space_free(ps);
		return -1;
	}
	for (a = 0; a < mesh->n_all; ++a) {
		mesh->coord[a] = dmd_mesh_coord_at(mesh, a, ps,
			isl_dim_param, 0);
		mesh->coord[a] = isl_pw_aff_intersect_params(mesh->coord[a],
			isl_set_copy(mesh->set));
		if (!mesh->coord[a])
			break;
	}
	for (v = 0; a == mesh->n_all && v < job->n_views; ++v) {
		mesh->frame[v] = isl_set_intersect(dmd_mesh_frame_at(mesh, v,
			ps, isl_dim_param, 0), isl_set_copy(mesh->set));
		if (!mesh->frame[v])
			break;
	}
	isl_space_free(ps);
	return a == mesh->n_all && v == job->n_views ? 0 : -1;
}

/* "map" where the ranks at in_pos (input) and out_pos (output) have
 * the same coordinate along axis "a". */
__isl_give isl_map *dmd_mesh_equate(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, int in_pos, int out_pos, int a)
{
	isl_size n_in;
	isl_space *space;
	isl_set *w;
	isl_pw_aff *c1, *c2;

	if (dmd_mesh_axis_view(mesh, a) < 0)
		return isl_map_equate(map, isl_dim_in, in_pos + a,
			isl_dim_out, out_pos + a);
	n_in = isl_map_dim(map, isl_dim_in);
	if (n_in < 0)
		return isl_map_free(map);
	w = isl_map_wrap(map);
	space = isl_set_get_space(w);
	c1 = dmd_mesh_coord_at(mesh, a, space, isl_dim_set, in_pos);
	c2 = dmd_mesh_coord_at(mesh, a, space, isl_dim_set, n_in + out_pos);
	isl_space_free(space);
	w = isl_set_intersect(w, isl_pw_aff_eq_set(c1, c2));
	return isl_set_unwrap(w);
}

/* "map" where the rank at (type, pos) has coordinate "val" along "a". */
__isl_give isl_map *dmd_mesh_fix(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, enum isl_dim_type type, int pos, int a,
	long val)
{
	isl_size n_in;
	isl_space *space;
	isl_set *w;
	isl_pw_aff *c;

	if (dmd_mesh_axis_view(mesh, a) < 0)
		return isl_map_fix_si(map, type, pos + a, val);
	n_in = isl_map_dim(map, isl_dim_in);
	if (n_in < 0)
		return isl_map_free(map);
	w = isl_map_wrap(map);
	space = isl_set_get_space(w);
	c = dmd_mesh_coord_at(mesh, a, space, isl_dim_set,
		type == isl_dim_in ? pos : n_in + pos);
	w = isl_set_intersect(w, isl_pw_aff_eq_set(c, dmd_isl_cst(space,
		val)));
	isl_space_free(space);
	return isl_set_unwrap(w);
}

/* The line along axis "a": { R[r] -> R[s] } (see dmd_model.h). */
__isl_give isl_map *dmd_mesh_line(const struct dmd_mesh *mesh, int a)
{
	const struct dmd_job *job = mesh->job;
	int v = dmd_mesh_axis_view(mesh, a), j, n;
	isl_space *rs = dmd_mesh_rank_space(mesh);
	isl_set *f;
	isl_map *line;

	f = isl_set_intersect(dmd_mesh_frame_at(mesh, v, rs, isl_dim_set, 0),
		dmd_mesh_ranks(mesh));
	line = isl_map_from_domain_and_range(isl_set_copy(f), f);
	isl_space_free(rs);
	n = v < 0 ? mesh->n : job->views[v].n_axes;
	for (j = 0; j < n; ++j) {
		int b = dmd_job_view_axis(job, v, j);

		if (b != a)
			line = dmd_mesh_equate(mesh, line, 0, 0, b);
	}
	return line;
}

/* Does the coordinate along axis "b" change along the lines of axis "a"
 * (see dmd_model.h)?  Compared on the ranks of both frames. */
isl_bool dmd_mesh_crosses(const struct dmd_mesh *mesh, int a, int b)
{
	int v = dmd_mesh_axis_view(mesh, b);
	isl_space *rs;
	isl_set *f;
	isl_map *line, *same;
	isl_bool sub;

	if (a == b)
		return isl_bool_true;
	line = dmd_mesh_line(mesh, a);
	if (v >= 0) {
		rs = dmd_mesh_rank_space(mesh);
		f = dmd_mesh_frame_at(mesh, v, rs, isl_dim_set, 0);
		isl_space_free(rs);
		line = isl_map_intersect_domain(line, isl_set_copy(f));
		line = isl_map_intersect_range(line, f);
	}
	same = dmd_mesh_equate(mesh, isl_map_copy(line), 0, 0, b);
	sub = isl_map_is_subset(line, same);
	isl_map_free(line);
	isl_map_free(same);
	if (sub < 0)
		return sub;
	return sub ? isl_bool_false : isl_bool_true;
}

/* "map" { R[r] -> X[x] } keeping, for each x and each line along axis
 * "a", only the rank of least coordinate along "a" (see dmd_model.h):
 *	map - { r -> x : r2 -> x in map, r2 on r's line, a(r2) < a(r) } */
__isl_give isl_map *dmd_mesh_first_along(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, int a)
{
	isl_map *before;
	isl_space *space;
	isl_set *w;
	isl_pw_aff *c1, *c2;
	int n = mesh->n;

	w = isl_map_wrap(dmd_mesh_line(mesh, a));
	space = isl_set_get_space(w);
	c1 = dmd_mesh_coord_at(mesh, a, space, isl_dim_set, 0);
	c2 = dmd_mesh_coord_at(mesh, a, space, isl_dim_set, n);
	isl_space_free(space);
	w = isl_set_intersect(w, isl_pw_aff_lt_set(c2, c1));
	before = isl_map_apply_range(isl_set_unwrap(w), isl_map_copy(map));
	return isl_map_subtract(map, before);
}

/* "set" spread along axis "a" (see dmd_model.h). */
__isl_give isl_set *dmd_mesh_eliminate(const struct dmd_mesh *mesh,
	__isl_take isl_set *set, int a)
{
	int v = dmd_mesh_axis_view(mesh, a);
	isl_set *off, *res;
	isl_map *m;

	if (v < 0)
		return isl_set_eliminate(set, isl_dim_param, a, 1);
	set = isl_set_align_params(set, isl_space_copy(mesh->space));
	off = isl_set_subtract(isl_set_copy(mesh->set),
		dmd_mesh_frame(mesh, v));
	if (isl_set_is_params(set) == isl_bool_true) {
		res = isl_set_unbind_params(isl_set_copy(set),
			isl_multi_id_copy(mesh->ids));
		res = isl_set_apply(res, dmd_mesh_line(mesh, a));
		res = isl_set_bind(res, isl_multi_id_copy(mesh->ids));
	} else {
		m = isl_set_unbind_params_insert_domain(isl_set_copy(set),
			isl_multi_id_copy(mesh->ids));
		m = isl_map_apply_range(dmd_mesh_line(mesh, a), m);
		res = isl_map_bind_domain(m, isl_multi_id_copy(mesh->ids));
		res = isl_set_align_params(res, isl_space_copy(mesh->space));
	}
	set = isl_set_intersect_params(set, off);
	return isl_set_coalesce(isl_set_union(res, set));
}

/* Mesh coordinate "i" of the rank "disp" steps along axis "a" from the
 * rank at set dimensions pos .. of "ls" (see dmd_model.h). */
__isl_give isl_aff *dmd_mesh_moved(const struct dmd_mesh *mesh,
	__isl_keep isl_local_space *ls, int pos, int a, int disp, int i)
{
	const struct dmd_view *view;
	int v = dmd_mesh_axis_view(mesh, a), j;
	long vs, ms = 1;
	isl_aff *c, *lin, *nc;

	if (v < 0) {
		c = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, pos + i);
		if (i != a)
			return c;
		c = isl_aff_add_constant_si(c, disp);
		return isl_aff_mod_val(c, isl_val_int_from_si(mesh->ctx,
			mesh->shape[a]));
	}
	view = &mesh->job->views[v];
	j = dmd_job_axis_pos(mesh->job, a);
	vs = dmd_mesh_view_stride(view, j);
	lin = dmd_mesh_linear(mesh, ls, isl_dim_set, pos);
	c = dmd_mesh_digit(mesh->ctx, isl_aff_copy(lin), vs,
		j ? view->shape[j] : 0);
	nc = isl_aff_mod_val(isl_aff_add_constant_si(isl_aff_copy(c), disp),
		isl_val_int_from_si(mesh->ctx, view->shape[j]));
	nc = isl_aff_scale_val(isl_aff_sub(nc, c),
		isl_val_int_from_si(mesh->ctx, vs));
	lin = isl_aff_add(lin, nc);
	for (j = i + 1; j < mesh->n; ++j)
		ms *= mesh->shape[j];
	return dmd_mesh_digit(mesh->ctx, lin, ms, i ? mesh->shape[i] : 0);
}

/* The parameter set linking the mesh coordinates and those of view "v"
 * (parameters c_<axis> of both): equal row-major ranks, the view's
 * coordinates but the first within their extents. */
static __isl_give isl_set *dmd_mesh_link(const struct dmd_mesh *mesh, int v)
{
	const struct dmd_view *view = &mesh->job->views[v];
	isl_space *sp = isl_space_copy(mesh->space);
	isl_local_space *ls;
	isl_aff *lm, *lv;
	isl_set *link;
	int j, n0 = isl_space_dim(sp, isl_dim_param);

	sp = isl_space_add_dims(sp, isl_dim_param, view->n_axes);
	for (j = 0; j < view->n_axes; ++j) {
		char *name = dmd_mesh_coord_name(mesh->job,
			dmd_job_view_axis(mesh->job, v, j));

		sp = isl_space_set_dim_id(sp, isl_dim_param, n0 + j,
			isl_id_alloc(mesh->ctx, name, NULL));
		free(name);
	}
	ls = isl_local_space_from_space(isl_space_copy(sp));
	lm = dmd_mesh_linear(mesh, ls, isl_dim_param, 0);
	lv = isl_aff_zero_on_domain(isl_local_space_copy(ls));
	for (j = 0; j < view->n_axes; ++j) {
		lv = isl_aff_scale_val(lv, isl_val_int_from_si(mesh->ctx,
			view->shape[j]));
		lv = isl_aff_add(lv, isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_param, n0 + j));
	}
	isl_local_space_free(ls);
	link = isl_set_universe(sp);
	link = isl_set_intersect(link, isl_aff_eq_set(lm, lv));
	for (j = 0; j < view->n_axes; ++j) {
		link = isl_set_lower_bound_si(link, isl_dim_param, n0 + j, 0);
		if (j > 0)
			link = isl_set_upper_bound_si(link, isl_dim_param,
				n0 + j, view->shape[j] - 1);
	}
	return isl_set_intersect(link, isl_set_copy(mesh->set));
}

/* "set" in the coordinates of view "v" (see dmd_model.h). */
__isl_give isl_set *dmd_mesh_rebase_set(const struct dmd_mesh *mesh, int v,
	__isl_take isl_set *set)
{
	isl_set *link = dmd_mesh_link(mesh, v);

	set = isl_set_align_params(set, isl_set_get_space(link));
	set = isl_set_intersect_params(set, link);
	set = isl_set_project_out(set, isl_dim_param, 0, mesh->n);
	return isl_set_coalesce(set);
}

/* "umap" in the coordinates of view "v" (see dmd_model.h). */
__isl_give isl_union_map *dmd_mesh_rebase_union_map(
	const struct dmd_mesh *mesh, int v, __isl_take isl_union_map *umap)
{
	isl_set *link = dmd_mesh_link(mesh, v);

	umap = isl_union_map_align_params(umap, isl_set_get_space(link));
	umap = isl_union_map_intersect_params(umap, link);
	umap = isl_union_map_project_out(umap, isl_dim_param, 0, mesh->n);
	return isl_union_map_coalesce(umap);
}

/* "pa" in the coordinates of view "v" (see dmd_model.h). */
__isl_give isl_pw_aff *dmd_mesh_rebase_pw_aff(const struct dmd_mesh *mesh,
	int v, __isl_take isl_pw_aff *pa)
{
	isl_set *link = dmd_mesh_link(mesh, v);
	isl_pw_multi_aff *pma;
	isl_space *sp;
	isl_map *map;
	int par;

	sp = isl_pw_aff_get_domain_space(pa);
	par = isl_space_is_params(sp) == isl_bool_true;
	isl_space_free(sp);
	if (par)
		pa = isl_pw_aff_from_range(pa);
	pa = isl_pw_aff_align_params(pa, isl_set_get_space(link));
	pa = isl_pw_aff_intersect_params(pa, link);
	map = isl_map_from_pw_aff(pa);
	map = isl_map_project_out(map, isl_dim_param, 0, mesh->n);
	pma = isl_pw_multi_aff_from_map(map);
	pa = isl_pw_multi_aff_get_pw_aff(pma, 0);
	isl_pw_multi_aff_free(pma);
	if (par)
		pa = isl_pw_aff_project_domain_on_params(pa);
	return isl_pw_aff_coalesce(pa);
}

/* "pa" written in the coordinates of view "v" (dmd_mesh_rebase_pw_aff)
 * back in the mesh coordinates, through the same bijection: the value
 * at a rank is the value at its view coordinates, as the emitted code
 * computes them (see dmd_model.h). */
__isl_give isl_pw_aff *dmd_mesh_unbase_pw_aff(const struct dmd_mesh *mesh,
	int v, __isl_take isl_pw_aff *pa)
{
	isl_set *link = dmd_mesh_link(mesh, v);
	isl_pw_multi_aff *pma;
	isl_space *sp;
	isl_map *map;
	int par, nv = mesh->job->views[v].n_axes;

	sp = isl_pw_aff_get_domain_space(pa);
	par = isl_space_is_params(sp) == isl_bool_true;
	isl_space_free(sp);
	if (par)
		pa = isl_pw_aff_from_range(pa);
	pa = isl_pw_aff_align_params(pa, isl_set_get_space(link));
	pa = isl_pw_aff_intersect_params(pa, link);
	map = isl_map_from_pw_aff(pa);
	map = isl_map_project_out(map, isl_dim_param, mesh->n, nv);
	pma = isl_pw_multi_aff_from_map(map);
	pa = isl_pw_multi_aff_get_pw_aff(pma, 0);
	isl_pw_multi_aff_free(pma);
	if (par)
		pa = isl_pw_aff_project_domain_on_params(pa);
	return isl_pw_aff_coalesce(pa);
}

/* Mesh coordinate "i" of the rank whose coordinate along axis "a" is
 * "val" and whose other coordinates (along the other axes of the frame
 * of "a") are those of the rank at set dimensions pos .. of the domain
 * of "val" (see dmd_model.h). */
__isl_give isl_aff *dmd_mesh_placed(const struct dmd_mesh *mesh, int pos,
	int a, __isl_take isl_aff *val, int i)
{
	const struct dmd_view *view;
	int v = dmd_mesh_axis_view(mesh, a), j;
	long vs, ms = 1;
	isl_local_space *ls;
	isl_aff *c, *lin;

	ls = isl_aff_get_domain_local_space(val);
	if (v < 0) {
		if (i == a) {
			isl_local_space_free(ls);
			return val;
		}
		isl_aff_free(val);
		return isl_aff_var_on_domain(ls, isl_dim_set, pos + i);
	}
	view = &mesh->job->views[v];
	j = dmd_job_axis_pos(mesh->job, a);
	vs = dmd_mesh_view_stride(view, j);
	lin = dmd_mesh_linear(mesh, ls, isl_dim_set, pos);
	isl_local_space_free(ls);
	c = dmd_mesh_digit(mesh->ctx, isl_aff_copy(lin), vs,
		j ? view->shape[j] : 0);
	val = isl_aff_scale_val(isl_aff_sub(val, c),
		isl_val_int_from_si(mesh->ctx, vs));
	lin = isl_aff_add(lin, val);
	for (j = i + 1; j < mesh->n; ++j)
		ms *= mesh->shape[j];
	return dmd_mesh_digit(mesh->ctx, lin, ms, i ? mesh->shape[i] : 0);
}

/* Build the mesh of "job": its parameter space, its set and the ids. */
__isl_give struct dmd_mesh *dmd_mesh_alloc(isl_ctx *ctx,
	const struct dmd_job *job)
{
	struct dmd_mesh *mesh;
	isl_id_list *ids;
	isl_space *rs;
	int i;

	mesh = calloc(1, sizeof(*mesh));
	if (!mesh)
		return NULL;
	mesh->ctx = ctx;
	mesh->job = job;
	mesh->n = job->n_axes;
	mesh->shape = job->mesh_shape;
	mesh->space = isl_space_params_alloc(ctx, mesh->n);
	ids = isl_id_list_alloc(ctx, mesh->n);
	for (i = 0; i < mesh->n; ++i) {
		char *name = dmd_mesh_coord_name(job, i);
		isl_id *id = isl_id_alloc(ctx, name, NULL);

		free(name);
		mesh->space = isl_space_set_dim_id(mesh->space, isl_dim_param,
			i, isl_id_copy(id));
		ids = isl_id_list_add(ids, id);
	}
	mesh->set = isl_set_universe(isl_space_copy(mesh->space));
	for (i = 0; i < mesh->n; ++i) {
		mesh->set = isl_set_lower_bound_si(mesh->set, isl_dim_param, i,
			0);
		mesh->set = isl_set_upper_bound_si(mesh->set, isl_dim_param, i,
			job->mesh_shape[i] - 1);
	}
	rs = dmd_isl_set_space(mesh->space, "R", mesh->n);
	mesh->ids = isl_multi_id_from_id_list(rs, ids);
	if (!mesh->space || !mesh->set || !mesh->ids)
		return dmd_mesh_free(mesh);
	if (dmd_mesh_views(mesh) < 0)
		return dmd_mesh_free(mesh);
	return mesh;
}

/* Release "mesh"; returns NULL. */
__isl_null struct dmd_mesh *dmd_mesh_free(__isl_take struct dmd_mesh *mesh)
{
	int i;

	if (!mesh)
		return NULL;
	isl_space_free(mesh->space);
	isl_set_free(mesh->set);
	isl_multi_id_free(mesh->ids);
	for (i = 0; mesh->coord && i < mesh->n_all; ++i)
		isl_pw_aff_free(mesh->coord[i]);
	free(mesh->coord);
	/* its own count: the search frees the model of a candidate after
	 * taking the candidate's view out of the job again */
	for (i = 0; mesh->frame && i < mesh->n_frame; ++i)
		isl_set_free(mesh->frame[i]);
	free(mesh->frame);
	free(mesh);
	return NULL;
}

/* "set" (a parameter set over the mesh, or a set with the mesh
 * parameters) with its mesh parameters named as the job names the axes:
 * [c_x] -> { : c_x = 1 } is shown as [x] -> { : x = 1 }.  For messages
 * and listings only: the names are not for isl to read back. */
__isl_give isl_set *dmd_mesh_display(const struct dmd_mesh *mesh,
	const struct dmd_job *job, __isl_take isl_set *set)
{
	int i;

	set = isl_set_align_params(set, isl_space_copy(mesh->space));
	for (i = 0; i < mesh->n; ++i)
		set = isl_set_set_dim_name(set, isl_dim_param, i,
			job->axes[i]);
	return set;
}

/* { R[r0, r1] } with the mesh parameters. */
__isl_give isl_space *dmd_mesh_rank_space(const struct dmd_mesh *mesh)
{
	return dmd_isl_set_space(mesh->space, "R", mesh->n);
}

/* [c] -> { R[r] : r = c } */
__isl_give isl_set *dmd_mesh_rank_is_me(const struct dmd_mesh *mesh)
{
	isl_set *set;
	int i;

	set = isl_set_universe(dmd_mesh_rank_space(mesh));
	for (i = 0; i < mesh->n; ++i)
		set = isl_set_equate(set, isl_dim_param, i, isl_dim_set, i);
	return isl_set_intersect_params(set, isl_set_copy(mesh->set));
}

/* { R[r] : 0 <= r_i < shape_i } (with the mesh parameters, unused). */
__isl_give isl_set *dmd_mesh_ranks(const struct dmd_mesh *mesh)
{
	isl_set *set;
	int i;

	set = isl_set_universe(dmd_mesh_rank_space(mesh));
	for (i = 0; i < mesh->n; ++i) {
		set = isl_set_lower_bound_si(set, isl_dim_set, i, 0);
		set = isl_set_upper_bound_si(set, isl_dim_set, i,
			mesh->shape[i] - 1);
	}
	return set;
}
