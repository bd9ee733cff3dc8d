/* dmd_axe.c: Axe layouts (spec 1.2, v3) as the layouts of 1.2.
 *
 * An Axe layout L(x) = { D(x) + r + O | r in R } decomposes the
 * row-major linear index of an element by the extents of its D
 * iterators (the last fastest); the coordinate along axis a is the sum
 * of index * stride over the iterators on a, plus O[a] (0 if none).
 * Iterators and offsets on "m" only arrange local memory and are
 * otherwise free.  It is a layout that 1.2 writes when
 *   - every D iterator lies within one dimension (the extents of a
 *     dimension's iterators multiply to its extent);
 *   - per device axis, the iterators of D and R on it (those of extent
 *     1 take one value and do not count) are the digits of its
 *     coordinate: by increasing stride, the strides are 1, e1, e1 e2,
 *     ..., and they reach every coordinate of the axis, with no offset;
 *     or there is none, and the axis is placed at O[a];
 *   - per dimension, the iterators on device axes are adjacent: the
 *     memory iterators after them make the block size S, those before
 *     them how often the blocks are dealt round (once: a block
 *     dimension, split in blocks of S; more: cyclic: {d: S}).
 * The dist entry of a dimension is the number that its device
 * iterators' digits make, each digit read from its axis: on a mesh
 * {axes: [g], shape: [4]}, a 64x128 tensor's
 *   {D: [[2, 1, g], [32, 128, m], [2, 2, g], [64, 1, m]]}
 * is dist: ["g % 2", "g // 2"].  The entries are written as text and
 * read by the dist parser (ir/dmd_expr.c), so that their trees are the
 * ones a user writing that dist gets, and the job builds to the same C.
 * Anything else is refused at the iterator (or offset) that breaks a
 * rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"

/* A digit of an axis's coordinate: an iterator of extent > 1 on a
 * device axis ("dim": the dimension of a D iterator, -1 for R), with
 * the text of its value read from the coordinate ("g // 2"). */
struct dmd_axe_digit {
	struct dmd_axe_iter it;
	const char *list;		/* "D" or "R" */
	int dim;
	char expr[2 * DMD_MAX_NAME + 64];
};

/* The state of one translation. */
struct dmd_axe_build {
	struct dmd_job *job;
	struct dmd_tensor *t;
	const struct dmd_axe *axe;
	int frame;			/* -1: the mesh, else a view */
	int n;
	struct dmd_axe_digit digit[2 * DMD_MAX_AXE_ITERS];
	int first[DMD_MAX_DIMS];	/* D iterators of dimension d: */
	int end[DMD_MAX_DIMS];		/* first[d] .. end[d] - 1 */
};

/* Report at iterator "it" of list "list": "iterator [e, s, a] of
 * 'list' in 'axe' of tensor 'T' <why>". */
static int dmd_axe_error(struct dmd_axe_build *b,
	const struct dmd_axe_iter *it, const char *list, const char *why)
{
	const char *axis = it->axis == DMD_AXE_MEM ? "m" :
		dmd_job_axis_name(b->job, it->axis);

	dmd_job_error(b->job, it->loc, "iterator [%ld, %ld, %s] of '%s' in "
		"'axe' of tensor '%s' %s", it->extent, it->stride, axis, list,
		b->t->name, why);
	return -1;
}

/* Find the D iterators of each dimension (first[d] .. end[d] - 1), from
 * the last (fastest) one: those of dimension d multiply to its extent.
 * Iterators of extent 1 before a dimension's first one may fall in
 * either; they take one value. */
static int dmd_axe_dims(struct dmd_axe_build *b)
{
	const struct dmd_tensor *t = b->t;
	int k = b->axe->n_d, d;
	char why[160];

	for (d = t->ndim - 1; d >= 0; --d) {
		long p = 1;

		b->end[d] = k;
		while (p < t->shape[d] && k > 0) {
			const struct dmd_axe_iter *it = &b->axe->d[k - 1];

			if (it->extent > t->shape[d] / p ||
			    t->shape[d] % (p * it->extent)) {
				snprintf(why, sizeof(why), "does not fit in "
					"dimension %d of extent %ld (the "
					"extents of a dimension's iterators "
					"multiply to its extent)", d,
					t->shape[d]);
				return dmd_axe_error(b, it, "D", why);
			}
			p *= it->extent;
			--k;
		}
		if (p != t->shape[d]) {
			dmd_job_error(b->job, b->axe->d_loc, "the extents of "
				"'D' in 'axe' of tensor '%s' multiply to "
				"fewer elements than the tensor has (its "
				"dimension %d of extent %ld has iterators of "
				"%ld elements)", t->name, d, t->shape[d], p);
			return -1;
		}
		b->first[d] = k;
	}
	for (; k > 0; --k)
		if (b->axe->d[k - 1].extent > 1)
			return dmd_axe_error(b, &b->axe->d[k - 1], "D",
				"is beyond the elements of the tensor (the "
				"extents of 'D' multiply to more)");
	return 0;
}

/* Add iterator "it" of "list" (of dimension "dim", -1 for R) as a
 * digit, unless it is on the memory axis or takes one value. */
static void dmd_axe_add(struct dmd_axe_build *b,
	const struct dmd_axe_iter *it, const char *list, int dim)
{
	struct dmd_axe_digit *g;

	if (it->axis == DMD_AXE_MEM || it->extent == 1)
		return;
	g = &b->digit[b->n++];
	g->it = *it;
	g->list = list;
	g->dim = dim;
	g->expr[0] = '\0';
}

/* The digits of dimension "d": its D iterators on device axes, after a
 * check that they are adjacent (no memory iterator of extent > 1
 * between two of them).  Adjacent ones on one axis whose strides chain
 * (the outer's is the inner's times the inner's extent) are one digit
 * (so that [2, 2, g], [2, 1, g] reads "g", not "g // 2 * 2 + g % 2"). */
static int dmd_axe_dim_digits(struct dmd_axe_build *b, int d)
{
	const struct dmd_axe *axe = b->axe;
	int k, dev = 0, gap = 0, start = b->n;

	for (k = b->first[d]; k < b->end[d]; ++k) {
		const struct dmd_axe_iter *it = &axe->d[k];
		struct dmd_axe_digit *last = b->n > start ?
			&b->digit[b->n - 1] : NULL;

		if (it->extent == 1)
			continue;
		if (it->axis == DMD_AXE_MEM) {
			gap = dev;
			continue;
		}
		if (gap)
			return dmd_axe_error(b, it, "D", "follows a memory "
				"iterator after other device iterators of its "
				"dimension (1.2 writes a dimension split in "
				"blocks or cyclic: its device iterators are "
				"adjacent)");
		dev = 1;
		if (last && last->it.axis == it->axis &&
		    last->it.stride == it->stride * it->extent) {
			last->it.stride = it->stride;
			last->it.extent *= it->extent;
			continue;
		}
		dmd_axe_add(b, it, "D", d);
	}
	return 0;
}

/* The text of digit "g" read from its axis "name" of extent "x" (its
 * stride s and extent e reach every coordinate with the others): "g",
 * "g % e", "g // s" or "(g // s) % e". */
static void dmd_axe_digit_expr(struct dmd_axe_digit *g, const char *name,
	long x)
{
	long s = g->it.stride, e = g->it.extent;

	if (s == 1 && e == x)
		snprintf(g->expr, sizeof(g->expr), "%s", name);
	else if (s == 1)
		snprintf(g->expr, sizeof(g->expr), "%s %% %ld", name, e);
	else if (s * e == x)
		snprintf(g->expr, sizeof(g->expr), "%s // %ld", name, s);
	else
		snprintf(g->expr, sizeof(g->expr), "(%s // %ld) %% %ld", name,
			s, e);
}

/* The offset of "axe" on axis "a": its index in axe->o_axis, or -1. */
static int dmd_axe_offset(const struct dmd_axe *axe, int a)
{
	int i;

	for (i = 0; i < axe->n_o; ++i)
		if (axe->o_axis[i] == a)
			return i;
	return -1;
}

/* Check that the digits on axis "a" of extent "x", by increasing stride,
 * have strides 1, e1, e1 e2, ... up to "x", and write their text; place
 * the tensor at O[a] (0 by default) if none is on it. */
static int dmd_axe_axis(struct dmd_axe_build *b, int a, long x)
{
	struct dmd_axe_digit *on[2 * DMD_MAX_AXE_ITERS], *g;
	const char *name = dmd_job_axis_name(b->job, a);
	int n = 0, i, j, o = dmd_axe_offset(b->axe, a);
	long reach = 1;
	char why[256];

	for (i = 0; i < b->n; ++i) {
		if (b->digit[i].it.axis != a)
			continue;
		for (j = n++; j > 0 && on[j - 1]->it.stride >
		     b->digit[i].it.stride; --j)
			on[j] = on[j - 1];
		on[j] = &b->digit[i];
	}
	for (i = 0; i < n; ++i) {
		g = on[i];
		if (g->it.stride != reach) {
			snprintf(why, sizeof(why), "has stride %ld on axis "
				"'%s', where the iterators on it of smaller "
				"strides reach %ld coordinate%s (1.2 writes "
				"layouts whose iterators on an axis reach each "
				"coordinate once: strides 1, e1, e1 * e2, ... "
				"in increasing order)", g->it.stride, name,
				reach, reach == 1 ? "" : "s");
			return dmd_axe_error(b, &g->it, g->list, why);
		}
		if (g->it.extent > x / reach) {
			snprintf(why, sizeof(why), "reaches beyond axis '%s' "
				"of extent %ld", name, x);
			return dmd_axe_error(b, &g->it, g->list, why);
		}
		reach *= g->it.extent;
		dmd_axe_digit_expr(g, name, x);
	}
	if (n > 0 && reach != x) {
		snprintf(why, sizeof(why), "ends the iterators on axis '%s', "
			"which reach %ld of its %ld coordinates (1.2 writes no "
			"layout that leaves ranks out along a split axis)",
			name, reach, x);
		return dmd_axe_error(b, &on[n - 1]->it, on[n - 1]->list, why);
	}
	if (n > 0 && o >= 0 && b->axe->o_val[o] != 0) {
		dmd_job_error(b->job, b->axe->o_loc[o], "offset %ld on axis "
			"'%s' in 'axe' of tensor '%s': iterators are on that "
			"axis too (1.2 writes no layout shifted along a split "
			"axis)", b->axe->o_val[o], name, b->t->name);
		return -1;
	}
	if (n > 0 || (x == 1 && (o < 0 || b->axe->o_val[o] == 0)))
		return 0;
	b->t->place_axis[b->t->n_place] = a;
	b->t->place_coord[b->t->n_place++] = o >= 0 ? b->axe->o_val[o] : 0;
	return 0;
}

/* Read dist entry "text" (at "loc") as the dist of dimension "d". */
static int dmd_axe_entry(struct dmd_axe_build *b, int d, const char *text,
	struct dmd_loc loc)
{
	struct dmd_loc *locs;
	struct dmd_src src;
	char what[DMD_MAX_NAME + 64];
	size_t len = strlen(text), i;

	locs = malloc((len + 1) * sizeof(*locs));
	if (!locs) {
		dmd_job_error(b->job, loc, "out of memory");
		return -1;
	}
	for (i = 0; i <= len; ++i)
		locs[i] = loc;
	snprintf(what, sizeof(what), "the dist that 'axe' of tensor '%s' "
		"writes", b->t->name);
	src.text = text;
	src.len = len;
	src.locs = locs;
	src.what = what;
	b->t->dist[d] = dmd_expr_parse_dist(b->job, &src);
	free(locs);
	return b->t->dist[d] ? 0 : -1;
}

/* The dist (and cyclic block size) of dimension "d" from its digits:
 * the number they make, outer to inner ("x * 4 + y"), dealt cyclically
 * when memory iterators come before them. */
static int dmd_axe_dim(struct dmd_axe_build *b, int d)
{
	const struct dmd_axe *axe = b->axe;
	char text[DMD_MAX_AXE_ITERS * (2 * DMD_MAX_NAME + 96)];
	long weight[DMD_MAX_AXE_ITERS];
	long w = 1, outer = 1, S = 1;
	int i, k, first = -1, n = 0, dev = 0;

	for (i = 0; i < b->n; ++i)
		if (b->digit[i].dim == d) {
			first = first < 0 ? i : first;
			++n;
		}
	if (n == 0)
		return 0;
	for (k = b->first[d]; k < b->end[d]; ++k) {
		const struct dmd_axe_iter *it = &axe->d[k];

		if (it->axis != DMD_AXE_MEM && it->extent > 1)
			dev = 1;
		else if (it->axis == DMD_AXE_MEM && dev)
			S *= it->extent;
		else if (it->axis == DMD_AXE_MEM)
			outer *= it->extent;
	}
	for (i = first + n - 1; i >= first; --i) {
		weight[i - first] = w;
		w *= b->digit[i].it.extent;
	}
	text[0] = '\0';
	for (i = first; i < first + n; ++i) {
		const struct dmd_axe_digit *g = &b->digit[i];
		int compound = strchr(g->expr, ' ') != NULL;
		size_t len = strlen(text);

		w = weight[i - first];
		if (w == 1)
			snprintf(text + len, sizeof(text) - len, "%s%s",
				i > first ? " + " : "", g->expr);
		else
			snprintf(text + len, sizeof(text) - len, "%s%s%s%s * "
				"%ld", i > first ? " + " : "", compound ? "(" :
				"", g->expr, compound ? ")" : "", w);
	}
	b->t->dist_loc[d] = b->digit[first].it.loc;
	if (outer > 1) {
		b->t->cyclic[d] = S;
		b->t->cyclic_loc[d] = b->digit[first].it.loc;
		b->t->n_cyclic++;
	}
	return dmd_axe_entry(b, d, text, b->digit[first].it.loc);
}

/* Set the layout of tensor "t" to the one of 1.2 that "axe" writes (see
 * the top of the file): the digits of each dimension and of R, then per
 * axis of the tensor's frame their texts or its place, then per
 * dimension its dist entry and cyclic block size. */
int dmd_axe_layout(struct dmd_job *job, struct dmd_tensor *t,
	const struct dmd_axe *axe)
{
	struct dmd_axe_build *b;
	int d, i, r = -1;

	b = calloc(1, sizeof(*b));
	if (!b) {
		dmd_job_error(job, axe->loc, "out of memory");
		return -1;
	}
	b->job = job;
	b->t = t;
	b->axe = axe;
	b->frame = t->view >= 0 ? t->view : -1;
	if (dmd_axe_dims(b) < 0)
		goto done;
	for (d = 0; d < t->ndim; ++d)
		if (dmd_axe_dim_digits(b, d) < 0)
			goto done;
	for (i = 0; i < axe->n_r; ++i)
		dmd_axe_add(b, &axe->r[i], "R", -1);
	if (b->frame < 0) {
		for (i = 0; i < job->n_axes; ++i)
			if (dmd_axe_axis(b, i, job->mesh_shape[i]) < 0)
				goto done;
	} else {
		const struct dmd_view *v = &job->views[b->frame];

		for (i = 0; i < v->n_axes; ++i)
			if (dmd_axe_axis(b, dmd_job_view_axis(job, b->frame, i),
					v->shape[i]) < 0)
				goto done;
	}
	for (d = 0; d < t->ndim; ++d)
		if (dmd_axe_dim(b, d) < 0)
			goto done;
	r = 0;
done:
	free(b);
	return r;
}
