/* dmd_mesh.c: the mesh as an isl parameter space.
 *
 * Mesh axis x becomes the parameter c_x (the name of the coordinate in the
 * emitted C), whatever the job calls it, so that AST expressions print
 * the emitted program's own variables:
 *   [c_x, c_y] -> { : 0 <= c_x <= 7 and 0 <= c_y <= 7 }
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_model.h"
#include "dmd_isl.h"

/* The C name of the coordinate of mesh axis "axis": "c_" + its name
 * (malloc'ed).  Names of the form KIND_NAME with an underscore-free KIND
 * cannot collide with each other, with C keywords or with the runtime's
 * names (see emit/dmd_emit_name.c). */
char *dmd_mesh_coord_name(const struct dmd_job *job, int axis)
{
	size_t n = strlen(job->axes[axis]) + 3;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "c_%s", job->axes[axis]);
	return s;
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
	return mesh;
}

/* Release "mesh"; returns NULL. */
__isl_null struct dmd_mesh *dmd_mesh_free(__isl_take struct dmd_mesh *mesh)
{
	if (!mesh)
		return NULL;
	isl_space_free(mesh->space);
	isl_set_free(mesh->set);
	isl_multi_id_free(mesh->ids);
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
