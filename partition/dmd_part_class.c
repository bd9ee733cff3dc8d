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

/* An axis fact of at most this many intervals of coordinates is
 * refined by in that form (cheaper than its existentially quantified
 * form, e.g. the ranks on a k-block edge of a SUMMA); one of more keeps
 * its form (e.g. the even coordinates). */
#define DMD_CLASS_FACT_INTERVALS 16

static __isl_give isl_set *dmd_class_simplify(const struct dmd_model *m,
	__isl_take isl_set *cell, int axis, int max);

/* Sort the facts: a fact that is the product of its shadows goes to the
 * axes (each shadow that is not the whole mesh, in a simple form), the
 * others to "coupled". */
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
			    dmd_sets_add(&axis[a], dmd_class_simplify(m,
				isl_set_copy(sh[a]), a,
				DMD_CLASS_FACT_INTERVALS)) < 0)
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

/* What dmd_class_interval needs: the axis, the intervals found so far. */
struct dmd_class_intervals {
	int axis;
	long (*iv)[2];
	int n;
	int cap;
};

/* Add the coordinate of point "pnt" along the axis to the intervals
 * (points come in increasing order). */
static isl_stat dmd_class_interval(__isl_take isl_point *pnt, void *user)
{
	struct dmd_class_intervals *d = user;
	isl_val *v = isl_point_get_coordinate_val(pnt, isl_dim_set, d->axis);
	long c = isl_val_get_num_si(v);

	isl_val_free(v);
	isl_point_free(pnt);
	if (d->n && d->iv[d->n - 1][1] + 1 == c) {
		d->iv[d->n - 1][1] = c;
		return isl_stat_ok;
	}
	if (d->n == d->cap) {
		long (*iv)[2];

		d->cap = 2 * d->cap + 4;
		iv = realloc(d->iv, d->cap * sizeof(*iv));
		if (!iv)
			return isl_stat_error;
		d->iv = iv;
	}
	d->iv[d->n][0] = d->iv[d->n][1] = c;
	d->n++;
	return isl_stat_ok;
}

/* A simple form of "cell", a set of ranks that only constrains mesh
 * axis "axis": the union of the intervals of coordinates it contains
 * (refining by facts with existentially quantified variables leaves
 * cells whose constraints are costly in every later operation), if
 * there are at most "max" intervals (0: any number). */
static __isl_give isl_set *dmd_class_simplify(const struct dmd_model *m,
	__isl_take isl_set *cell, int axis, int max)
{
	struct dmd_class_intervals d = { axis, NULL, 0, 0 };
	isl_set *pts, *simple;
	int i;

	if (isl_set_involves_locals(cell) == isl_bool_false)
		return cell;
	pts = isl_set_unbind_params(isl_set_copy(cell),
		isl_multi_id_copy(m->mesh->ids));
	for (i = m->mesh->n - 1; i >= 0; --i)
		if (i != axis)
			pts = isl_set_fix_si(pts, isl_dim_set, i, 0);
	if (isl_set_foreach_point(pts, &dmd_class_interval, &d) < 0) {
		isl_set_free(pts);
		free(d.iv);
		return cell;
	}
	isl_set_free(pts);
	if (max > 0 && d.n > max) {
		free(d.iv);
		return cell;
	}
	simple = isl_set_empty(isl_set_get_space(m->mesh->set));
	for (i = 0; i < d.n; ++i) {
		isl_set *iv = isl_set_copy(m->mesh->set);

		iv = isl_set_lower_bound_si(iv, isl_dim_param, axis,
			d.iv[i][0]);
		iv = isl_set_upper_bound_si(iv, isl_dim_param, axis,
			d.iv[i][1]);
		simple = isl_set_union(simple, iv);
	}
	free(d.iv);
	simple = isl_set_coalesce(simple);
	if (dmd_isl_bool(isl_set_is_equal(simple, cell)) != 1) {
		isl_set_free(simple);
		return cell;
	}
	isl_set_free(cell);
	return simple;
}

/* The cells of the mesh refined by "facts" (see the top of this file),
 * in an order that does not depend on isl's internals: by their first
 * rank (dmd_class_order). */
static __isl_give struct dmd_cells *dmd_class_cells(
	const struct dmd_model *m, const struct dmd_facts *facts)
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
		for (j = 0; j < ac.n; ++j)
			ac.set[j] = dmd_class_simplify(m, ac.set[j], a, 0);
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

/* The cells of the mesh that "facts" cut it into, in *cells: DMD_OK or
 * DMD_INTERNAL. */
enum dmd_status dmd_part_cells(const struct dmd_model *m,
	const struct dmd_facts *facts, __isl_give struct dmd_cells **cells)
{
	*cells = dmd_class_cells(m, facts);
	return *cells ? DMD_OK : DMD_INTERNAL;
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

/* A list of ranks or of inclusive rank ranges being built. */
struct dmd_class_ranks {
	const struct dmd_model *m;
	long (*r)[2];
	long n;
	long cap;
	long count;
	int err;
};

/* Append the range [lo, hi] to "d". */
static void dmd_class_push(struct dmd_class_ranks *d, long lo, long hi)
{
	if (d->n == d->cap) {
		long (*r)[2];

		d->cap = 2 * d->cap + 16;
		r = realloc(d->r, d->cap * sizeof(*r));
		if (!r) {
			d->err = 1;
			return;
		}
		d->r = r;
	}
	d->r[d->n][0] = lo;
	d->r[d->n][1] = hi;
	d->n++;
}

/* Add the row-major rank of mesh point "pnt". */
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
	isl_point_free(pnt);
	dmd_class_push(d, r, r);
	return d->err ? isl_stat_error : isl_stat_ok;
}

/* The ranks of box lo[a] <= r_a <= hi[a] as ranges: one per row of the
 * last axis, "pos" axes fixed in "c". */
static void dmd_class_box_ranges(struct dmd_class_ranks *d, const long *lo,
	const long *hi, long *c, int pos)
{
	const struct dmd_model *m = d->m;
	int n = m->mesh->n, i;
	long base = 0;

	if (pos < n - 1) {
		for (c[pos] = lo[pos]; c[pos] <= hi[pos] && !d->err; ++c[pos])
			dmd_class_box_ranges(d, lo, hi, c, pos + 1);
		return;
	}
	for (i = 0; i < n - 1; ++i)
		base = base * m->mesh->shape[i] + c[i];
	base *= m->mesh->shape[n - 1];
	dmd_class_push(d, base + lo[n - 1], base + hi[n - 1]);
}

/* Add the ranks of basic set "bs" (over R[r]): arithmetically if it is
 * a box, point by point otherwise. */
static isl_stat dmd_class_add_basic(__isl_take isl_basic_set *bs, void *user)
{
	struct dmd_class_ranks *d = user;
	int n = d->m->mesh->n, i, box;
	long lo[DMD_MAX_AXES], hi[DMD_MAX_AXES], c[DMD_MAX_AXES];
	isl_set *set = isl_set_from_basic_set(bs), *b;

	b = isl_set_universe(isl_set_get_space(set));
	for (i = 0; i < n; ++i) {
		isl_val *mn = isl_set_dim_min_val(isl_set_copy(set), i);
		isl_val *mx = isl_set_dim_max_val(isl_set_copy(set), i);

		lo[i] = mn && isl_val_is_int(mn) ? isl_val_get_num_si(mn) : 0;
		hi[i] = mx && isl_val_is_int(mx) ? isl_val_get_num_si(mx) : -1;
		isl_val_free(mn);
		isl_val_free(mx);
		b = isl_set_lower_bound_si(b, isl_dim_set, i, lo[i]);
		b = isl_set_upper_bound_si(b, isl_dim_set, i, hi[i]);
	}
	box = dmd_isl_bool(isl_set_is_equal(b, set));
	isl_set_free(b);
	if (box == 1)
		dmd_class_box_ranges(d, lo, hi, c, 0);
	else if (box < 0 ||
		 isl_set_foreach_point(set, &dmd_class_add_rank, d) < 0)
		d->err = 1;
	isl_set_free(set);
	return d->err ? isl_stat_error : isl_stat_ok;
}

/* qsort order of ranges. */
static int dmd_class_cmp(const void *a, const void *b)
{
	const long *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The ranks of "set" as sorted inclusive ranges (boxes are listed range
 * by range, other pieces point by point). */
int dmd_part_rank_ranges(const struct dmd_model *m, __isl_keep isl_set *set,
	long (**ranges)[2], long *count)
{
	struct dmd_class_ranks d = { m, NULL, 0, 0, 0, 0 };
	isl_set *s;
	long i;
	int n = 0;

	*ranges = NULL;
	s = isl_set_intersect_params(isl_set_copy(set),
		isl_set_copy(m->mesh->set));
	s = isl_set_unbind_params(s, isl_multi_id_copy(m->mesh->ids));
	s = isl_set_make_disjoint(s);
	if (!s || isl_set_foreach_basic_set(s, &dmd_class_add_basic, &d) < 0 ||
	    d.err) {
		isl_set_free(s);
		free(d.r);
		return -1;
	}
	isl_set_free(s);
	qsort(d.r, d.n, sizeof(*d.r), &dmd_class_cmp);
	*count = 0;
	for (i = 0; i < d.n; ++i) {
		*count += d.r[i][1] - d.r[i][0] + 1;
		if (n && d.r[n - 1][1] + 1 >= d.r[i][0]) {
			if (d.r[i][1] > d.r[n - 1][1])
				d.r[n - 1][1] = d.r[i][1];
			continue;
		}
		d.r[n][0] = d.r[i][0];
		d.r[n][1] = d.r[i][1];
		n++;
	}
	*ranges = d.r;
	return n;
}
