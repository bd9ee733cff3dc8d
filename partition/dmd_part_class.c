/* dmd_part_class.c: the cells of the mesh that no fact tells apart.
 *
 * Starting from the whole mesh, each cell is split by each fact S into
 * cell * S and cell - S.  To keep the cost flat in the mesh size, most
 * facts (block extents, roles along one axis) are products of sets of
 * single coordinates: each axis is refined on its own by its factors
 * (cheap 1-D sets), the cells are the products of the per-axis cells,
 * and only the facts that couple axes (skews, multi-axis splits) split
 * those products further.  For "tail" (127 rows over 2 ranks) the fact
 * [c_x] -> { : c_x = 1 } splits [c_x] -> { : 0 <= c_x <= 1 } into c_x = 0
 * and c_x = 1.  Nothing here iterates over ranks, except
 * dmd_part_rank_ranges, which lists them (the manifest does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/point.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* A list of parameter sets (cells or facts). */
struct dmd_sets {
	int n;
	isl_set **set;
};

/* Append "set" to "l". */
static int dmd_sets_add(struct dmd_sets *l, __isl_take isl_set *set)
{
	isl_set **s = realloc(l->set, (l->n + 1) * sizeof(*s));

	if (!s || !set) {
		isl_set_free(set);
		return -1;
	}
	l->set = s;
	l->set[l->n++] = set;
	return 0;
}

/* Release the sets of "l". */
static void dmd_sets_clear(struct dmd_sets *l)
{
	int i;

	for (i = 0; i < l->n; ++i)
		isl_set_free(l->set[i]);
	free(l->set);
	l->set = NULL;
	l->n = 0;
}

/* Split every cell of "cells" by every set of "facts". */
static int dmd_class_refine(struct dmd_sets *cells,
	const struct dmd_sets *facts)
{
	int f, i;

	for (f = 0; f < facts->n; ++f) {
		struct dmd_sets next = { 0, NULL };

		for (i = 0; i < cells->n; ++i) {
			isl_set *in, *out;
			int e;

			in = isl_set_intersect(isl_set_copy(cells->set[i]),
				isl_set_copy(facts->set[f]));
			out = isl_set_subtract(isl_set_copy(cells->set[i]),
				isl_set_copy(facts->set[f]));
			e = dmd_isl_bool(isl_set_is_empty(in));
			if (e == 0)
				e = dmd_sets_add(&next, isl_set_coalesce(in));
			else
				isl_set_free(in);
			if (e < 0) {
				isl_set_free(out);
				dmd_sets_clear(&next);
				return -1;
			}
			e = dmd_isl_bool(isl_set_is_empty(out));
			if (e == 0)
				e = dmd_sets_add(&next, isl_set_coalesce(out));
			else
				isl_set_free(out);
			if (e < 0) {
				dmd_sets_clear(&next);
				return -1;
			}
		}
		dmd_sets_clear(cells);
		*cells = next;
	}
	return 0;
}

/* "set" with every mesh parameter but "axis" eliminated: its shadow on
 * one axis. */
static __isl_give isl_set *dmd_class_shadow(const struct dmd_model *m,
	__isl_keep isl_set *set, int axis)
{
	isl_set *s = isl_set_copy(set);
	int b;

	for (b = 0; b < m->mesh->n; ++b)
		if (b != axis)
			s = isl_set_eliminate(s, isl_dim_param, b, 1);
	s = isl_set_intersect(s, isl_set_copy(m->mesh->set));
	return isl_set_coalesce(s);
}

/* Sort the facts: a fact that is the product of its shadows goes to the
 * axes (each shadow that is not the whole mesh), the others to
 * "coupled". */
static int dmd_class_sort_facts(const struct dmd_model *m,
	const struct dmd_facts *facts, struct dmd_sets *axis,
	struct dmd_sets *coupled)
{
	int np = m->mesh->n, f, a, r;

	for (f = 0; f < facts->n; ++f) {
		isl_set *set = facts->f[f].set, *prod, **sh;

		sh = calloc(np + 1, sizeof(*sh));
		if (!sh)
			return -1;
		prod = isl_set_copy(m->mesh->set);
		for (a = 0; a < np; ++a) {
			sh[a] = dmd_class_shadow(m, set, a);
			prod = isl_set_intersect(prod, isl_set_copy(sh[a]));
		}
		r = dmd_isl_bool(isl_set_is_subset(prod, set));
		isl_set_free(prod);
		for (a = 0; a < np; ++a) {
			int full = 0;

			if (r == 1)
				full = dmd_isl_bool(isl_set_is_equal(sh[a],
					m->mesh->set));
			if (r == 1 && full == 0 &&
			    dmd_sets_add(&axis[a], isl_set_copy(sh[a])) < 0)
				r = -1;
			if (full < 0)
				r = -1;
			isl_set_free(sh[a]);
		}
		free(sh);
		if (r == 0 && dmd_sets_add(coupled, isl_set_copy(set)) < 0)
			r = -1;
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The cells of the mesh refined by "facts" (see the top of this file),
 * in an order that does not depend on isl's internals: by their first
 * rank (dmd_class_order). */
__isl_give struct dmd_cells *dmd_part_cells(const struct dmd_model *m,
	const struct dmd_facts *facts)
{
	int np = m->mesh->n, a, i, j;
	struct dmd_sets *axis, coupled = { 0, NULL }, cells = { 0, NULL };
	struct dmd_cells *res = NULL;

	axis = calloc(np + 1, sizeof(*axis));
	if (!axis)
		return NULL;
	if (dmd_class_sort_facts(m, facts, axis, &coupled) < 0)
		goto error;
	if (dmd_sets_add(&cells, isl_set_copy(m->mesh->set)) < 0)
		goto error;
	for (a = 0; a < np; ++a) {
		struct dmd_sets ac = { 0, NULL }, prod = { 0, NULL };

		if (dmd_sets_add(&ac, isl_set_copy(m->mesh->set)) < 0 ||
		    dmd_class_refine(&ac, &axis[a]) < 0) {
			dmd_sets_clear(&ac);
			goto error;
		}
		for (i = 0; i < cells.n; ++i)
			for (j = 0; j < ac.n; ++j)
				if (dmd_sets_add(&prod, isl_set_intersect(
						isl_set_copy(cells.set[i]),
						isl_set_copy(ac.set[j]))) < 0) {
					dmd_sets_clear(&ac);
					dmd_sets_clear(&prod);
					goto error;
				}
		dmd_sets_clear(&ac);
		dmd_sets_clear(&cells);
		cells = prod;
	}
	if (dmd_class_refine(&cells, &coupled) < 0)
		goto error;
	res = calloc(1, sizeof(*res));
	if (!res)
		goto error;
	res->cell = calloc(cells.n + 1, sizeof(*res->cell));
	if (!res->cell)
		goto error;
	res->n = cells.n;
	for (i = 0; i < cells.n; ++i) {
		res->cell[i].set = cells.set[i];
		cells.set[i] = NULL;
	}
	free(cells.set);
	cells.set = NULL;
	cells.n = 0;
error:
	for (a = 0; a < np; ++a)
		dmd_sets_clear(&axis[a]);
	free(axis);
	dmd_sets_clear(&coupled);
	dmd_sets_clear(&cells);
	if (res && !res->cell)
		return dmd_part_cells_free(res);
	return res;
}

/* Release "cells"; returns NULL. */
__isl_null struct dmd_cells *dmd_part_cells_free(
	__isl_take struct dmd_cells *cells)
{
	int i;

	if (!cells)
		return NULL;
	for (i = 0; cells->cell && i < cells->n; ++i)
		isl_set_free(cells->cell[i].set);
	free(cells->cell);
	free(cells);
	return NULL;
}

/* What dmd_class_add_rank needs. */
struct dmd_class_ranks {
	const struct dmd_model *m;
	long *ranks;
	long n;
};

/* Add the row-major rank of mesh point "pnt" to the list. */
static isl_stat dmd_class_add_rank(__isl_take isl_point *pnt, void *user)
{
	struct dmd_class_ranks *d = user;
	long r = 0;
	int i;

	for (i = 0; i < d->m->mesh->n; ++i) {
		isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_set, i);

		r = r * d->m->mesh->shape[i] + isl_val_get_num_si(v);
		isl_val_free(v);
	}
	d->ranks[d->n++] = r;
	isl_point_free(pnt);
	return isl_stat_ok;
}

/* qsort order of ranks. */
static int dmd_class_cmp(const void *a, const void *b)
{
	long x = *(const long *) a, y = *(const long *) b;

	return x < y ? -1 : x > y;
}

/* The ranks of "set" as sorted inclusive ranges (linear in the number of
 * ranks: this lists the output). */
int dmd_part_rank_ranges(const struct dmd_model *m, __isl_keep isl_set *set,
	long (**ranges)[2], long *count)
{
	struct dmd_class_ranks d = { m, NULL, 0 };
	isl_set *s;
	long i;
	int n = 0;

	d.ranks = malloc((m->job->nranks + 1) * sizeof(long));
	*ranges = NULL;
	if (!d.ranks)
		return -1;
	s = isl_set_unbind_params(isl_set_copy(set),
		isl_multi_id_copy(m->mesh->ids));
	if (isl_set_foreach_point(s, &dmd_class_add_rank, &d) < 0) {
		isl_set_free(s);
		free(d.ranks);
		return -1;
	}
	isl_set_free(s);
	qsort(d.ranks, d.n, sizeof(long), &dmd_class_cmp);
	*count = d.n;
	*ranges = malloc((d.n + 1) * sizeof(**ranges));
	if (!*ranges) {
		free(d.ranks);
		return -1;
	}
	for (i = 0; i < d.n; ++i) {
		if (n && (*ranges)[n - 1][1] + 1 == d.ranks[i])
			(*ranges)[n - 1][1] = d.ranks[i];
		else {
			(*ranges)[n][0] = d.ranks[i];
			(*ranges)[n][1] = d.ranks[i];
			n++;
		}
	}
	free(d.ranks);
	return n;
}
