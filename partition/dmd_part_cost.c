/* dmd_part_cost.c: the cost model of a plan (spec 1.6): per step and
 * rank the bytes and messages it receives, priced by the links of the
 * mesh, and its flops; a step costs its slowest rank, a program the sum
 * of its steps; and the memory every rank allocates.
 *
 * The byte and message counts are those of the runtime (runtime/
 * dmd_rt_xfer.c): a rank counts a box it receives from another rank when
 * the box is not empty, once per receive (a broadcast: every rank of the
 * group but the root; a shift: the receiver, unless its neighbour is
 * itself; point to point and returns: every piece from a peer).  They are
 * derived from the plan's transfers, never from the emitted code, as
 * functions of the mesh coordinates (pw_affs over the parameters):
 *
 *   received bytes of rank c in one run of step s
 *     = sum over the receive events e of the step's transfers
 *       of [c receives at e] * (product of the box extents at e) * esize
 *
 * (a combed box, dmd_part_comb.c: the product of the elements its combs
 * let through per dimension, F(a + ext) - F(a), instead of the extents)
 *
 * An event is a time point of a broadcast or a shift, or a time point and
 * a peer offset (peer - c, in mesh coordinates) of point-to-point pieces.
 * The events are the points of the transfer's time points (and offsets)
 * over all ranks, which are enumerated: they are few (the iterations of
 * the loops the transfer is at, a few offsets per halo); a transfer with
 * more than DMD_COST_MAX_EVENTS is not counted (an error).  The events
 * of a broadcast or a shift at a rotated loop are summed in the order of
 * the loop before the rotation (dmd_cost_rotation: the same sums).  On a
 * mesh of at most DMD_COST_MAX_RUN_RANKS ranks the events of
 * point-to-point pieces are read from the enumerated points (c, t, o) of
 * the ranks that receive (dmd_cost_p2p_points), which beyond
 * DMD_COST_DENSE_EVENTS events are also counted rank by rank
 * (dmd_cost_p2p_ranks), and a step's sums are priced rank by rank
 * (dmd_cost_price_dense).  For each
 * event the ranks that receive and the size of what they receive are
 * pw_affs over the parameters (the box extents at the event are
 * piecewise constant in practice; where two of them vary with the
 * coordinates on one piece, as 5 - c_x and 1 + 2 c_x, they are split by
 * their values, which are few, so that the product stays a pw_aff).  Summed over the events these give the per-rank bytes,
 * messages and modeled time of the step, as pw_affs: their maximum over
 * the mesh is exact (isl), and their sum over the ranks counts the ranks
 * of each piece by its structure (dmd_cost_count: boxes by their
 * extents, products of per-axis sets axis by axis, other sets by
 * enumerating their points; a 1-D mesh or a coupled set is enumerated,
 * of at most DMD_COST_MAX_POINTS ranks).
 *
 * Flops: the iterations a rank runs in a step (the per-rank schedule's
 * domain, a union of boxes whose extents are pw_affs) times the
 * operations of one iteration (the operators and calls of the right side,
 * plus one where iterations sum into an element: 2 for a matrix product).
 * On block-cyclic layouts a rank's iterations are strided in the global
 * indices; each index variable that an access uses as the index of a
 * cyclic dimension is counted in its local coordinate (injective, the
 * same number of iterations, one box per rank: dmd_cost_local_dom).
 *
 * Time: an event costs latency + bytes / bandwidth of the link it uses
 * (mesh.links, default 2 us and 10 GB/s; "gbps" is read as 10^9 bytes per
 * second): a broadcast or a shift along a mesh axis its link, along a view
 * axis the slowest link among the mesh axes its lines span, a point-to-
 * point piece the slowest link among the mesh axes its offset moves along
 * (the least bandwidth, then the most latency); a rank computes at
 * DMD_COST_GFLOPS.  Transfers and computation do not overlap in the model.
 * Time is counted in integer femtoseconds (a link's cost per byte is
 * rounded to 1 fs), so that isl takes the maximum over the ranks.
 *
 * Memory: per cell of the rank classes, what the emitted code allocates
 * (emit/dmd_emit.c, dmd_emit_sizes): each tensor's home buffer (block and
 * ghost cells) and each transfer's buffers (two for a transfer at a time
 * loop, none for ghost cells), their extents the largest over the cell.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/local_space.h>
#include <isl/point.h>

#include "partition/dmd_part.h"
#include "ir/dmd_isl.h"

/* What the model assumes of a rank's speed: GFLOP/s (flops per ns). */
#define DMD_COST_GFLOPS		10
/* The most events of one transfer, and ranks of one set, enumerated. */
#define DMD_COST_MAX_EVENTS	200000
#define DMD_COST_MAX_POINTS	(1L << 22)
/* The fewest events (time points and peer offsets) of point-to-point
 * pieces whose receives are counted rank by rank (dmd_cost_p2p_ranks):
 * with fewer (a halo exchange's few offsets) the sums of pw_affs are
 * quicker than the evaluation at every rank. */
#define DMD_COST_DENSE_EVENTS	32
/* The most runs of consecutive ranks along the last mesh axis that a set
 * of ranks is rewritten as (dmd_cost_runs). */
#define DMD_COST_MAX_RUNS	64
/* The most ranks of a mesh whose sets of ranks are rewritten as runs
 * (each such set's ranks are enumerated). */
#define DMD_COST_MAX_RUN_RANKS	4096

/* Per step, per rank: pw_affs over the mesh parameters (on the whole
 * mesh), for one run of the step.  The receives are summed per link
 * (bytes and messages over mesh axis a's link in link[a]; NULL: none),
 * and priced once at the end of the step (dmd_cost_price): the time of
 * the events over a link is its cost per byte times their bytes plus its
 * latency times their number, the same integers as event by event, with
 * two sums of pw_affs per event instead of three. */
#define DMD_COST_LEVELS	40

/* A sum of pw_affs (over the parameters, each on the whole mesh or on
 * some ranks, 0 elsewhere) kept as a binary counter: level l holds the
 * sum of 2^l of them or NULL.  Adding one carries like a counter, so
 * each is summed with sums of about its own size, about log2(n) times,
 * instead of once with the sum of all before it: the pieces of a sum
 * over many events grow with their number, and adding to it one by one
 * costs their product.  The total is the same pw_aff. */
struct dmd_cost_tree {
	isl_pw_aff *lvl[DMD_COST_LEVELS];
};

/* The receives over one link: sums of pw_affs, and on a mesh of at most
 * DMD_COST_MAX_RUN_RANKS ranks, the receives counted rank by rank
 * (dmd_cost_p2p_ranks) in "dense" (NULL: none): bytes of rank i at
 * 2 i, messages at 2 i + 1 (i row-major). */
struct dmd_cost_link_acc {
	int used;
	struct dmd_cost_tree bytes;
	struct dmd_cost_tree msgs;
	long long *dense;
};

struct dmd_cost_acc {
	struct dmd_cost_link_acc link[DMD_MAX_AXES];
	isl_pw_aff *bytes;
	isl_pw_aff *msgs;
	isl_pw_aff *time;		/* fs (integers) */
	isl_pw_aff *flops;
};

/* What the computation of the cost carries. */
struct dmd_cost_build {
	const struct dmd_plan *plan;
	const struct dmd_model *m;
	long esize;
	struct dmd_cost_acc *acc;	/* per step */
	int failed;			/* a message was printed */
};

/* Report that the cost of "what" cannot be counted exactly. */
static void dmd_cost_fail(struct dmd_cost_build *b, const char *why,
	int step, int tensor)
{
	const struct dmd_job *job = b->m->job;

	struct dmd_loc none = { 0, 0 };

	if (b->failed)
		return;
	b->failed = 1;
	if (tensor >= 0)
		dmd_job_error(job, none, "cannot count the cost of the "
			"transfers of '%s' in step %d exactly: %s",
			job->tensors[tensor].name, step + 1, why);
	else
		dmd_job_error(job, none, "cannot count the cost of step %d "
			"exactly: %s", step + 1, why);
}

/* "v" rounded to an integer (the model's time is counted in integer
 * femtoseconds, so that isl can take its maximum). */
static __isl_give isl_val *dmd_cost_int(isl_ctx *ctx, double v)
{
	return isl_val_int_from_si(ctx, (long) llround(v));
}

/* The constant "v" on the mesh. */
static __isl_give isl_pw_aff *dmd_cost_cst(const struct dmd_model *m,
	__isl_take isl_val *v)
{
	return isl_pw_aff_val_on_domain(isl_set_copy(m->mesh->set), v);
}

static __isl_give isl_set *dmd_cost_runs(const struct dmd_model *m,
	__isl_take isl_set *r);
static void dmd_cost_reset_error(isl_ctx *ctx);
static __isl_give isl_set *dmd_cost_ids_set(const struct dmd_model *m,
	__isl_take isl_space *space, const long *id, long n);

/* "w" (over the parameters) on the ranks of "r" (of the mesh) only
 * (its ranks as runs, dmd_cost_runs). */
static __isl_give isl_pw_aff *dmd_cost_on(const struct dmd_model *m,
	__isl_take isl_pw_aff *w, __isl_take isl_set *r)
{
	r = isl_set_intersect_params(r, isl_set_copy(m->mesh->set));
	return isl_pw_aff_intersect_params(w, dmd_cost_runs(m, r));
}

/* *acc (defined on the whole mesh) += w (defined on some ranks, 0
 * elsewhere) */
static void dmd_cost_add(isl_pw_aff **acc, __isl_take isl_pw_aff *w)
{
	*acc = isl_pw_aff_coalesce(isl_pw_aff_union_add(*acc, w));
}

/* Add "w" (taken) to the sum "t" (dmd_cost_tree). */
static void dmd_cost_tree_add(struct dmd_cost_tree *t,
	__isl_take isl_pw_aff *w)
{
	int l;

	for (l = 0; l < DMD_COST_LEVELS - 1 && t->lvl[l]; ++l) {
		w = isl_pw_aff_coalesce(isl_pw_aff_union_add(t->lvl[l], w));
		t->lvl[l] = NULL;
	}
	if (t->lvl[l])
		w = isl_pw_aff_coalesce(isl_pw_aff_union_add(t->lvl[l], w));
	t->lvl[l] = w;
}

/* The sum "t" (emptied) added to *acc. */
static void dmd_cost_tree_fold(struct dmd_cost_tree *t, isl_pw_aff **acc)
{
	int l;

	for (l = 0; l < DMD_COST_LEVELS; ++l)
		if (t->lvl[l]) {
			dmd_cost_add(acc, t->lvl[l]);
			t->lvl[l] = NULL;
		}
}

/* Release the pw_affs of "t". */
static void dmd_cost_tree_clear(struct dmd_cost_tree *t)
{
	int l;

	for (l = 0; l < DMD_COST_LEVELS; ++l)
		t->lvl[l] = isl_pw_aff_free(t->lvl[l]);
}

/* The link of the slowest of the mesh axes marked in "axes" (the least
 * bandwidth, then the most latency), or -1 if none is marked. */
static int dmd_cost_slowest(const struct dmd_job *job, const int *axes)
{
	int a, best = -1;

	for (a = 0; a < job->n_axes; ++a) {
		const struct dmd_link *l = &job->links[a], *k;

		if (!axes[a])
			continue;
		k = best < 0 ? NULL : &job->links[best];
		if (!k || l->gbps < k->gbps ||
		    (l->gbps == k->gbps && l->latency_us > k->latency_us))
			best = a;
	}
	return best;
}

/* The ranks of the mesh of "m" if its receives may be counted rank by
 * rank (it has at most DMD_COST_MAX_RUN_RANKS), else 0. */
static long dmd_cost_dense_size(const struct dmd_model *m)
{
	long size = 1;
	int i;

	for (i = 0; i < m->mesh->n; ++i) {
		size *= m->job->mesh_shape[i];
		if (size > DMD_COST_MAX_RUN_RANKS)
			return 0;
	}
	return m->mesh->n > 0 ? size : 0;
}

/* A rank's value, and the rank, in the order dmd_cost_dense_pw groups
 * them. */
struct dmd_cost_val_rank {
	long long v;
	long id;
};

static int dmd_cost_val_rank_cmp(const void *a, const void *b)
{
	const struct dmd_cost_val_rank *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The values v[stride i] of the n ranks i (row-major) as a pw_aff over
 * the mesh parameters: each value other than 0 on its ranks
 * (dmd_cost_ids_set), 0 on the others.  NULL on error. */
static __isl_give isl_pw_aff *dmd_cost_dense_pw(const struct dmd_model *m,
	const long long *v, long n, int stride)
{
	struct dmd_cost_val_rank *vr;
	long *id, i, j, k, nz = 0;
	isl_space *space = isl_set_get_space(m->mesh->set);
	isl_pw_aff *pa;

	vr = malloc((n + 1) * sizeof(*vr));
	id = malloc((n + 1) * sizeof(*id));
	pa = dmd_cost_cst(m, isl_val_zero(m->ctx));
	if (!vr || !id)
		pa = isl_pw_aff_free(pa);
	for (i = 0; pa && i < n; ++i)
		if (v[stride * i] != 0) {
			vr[nz].v = v[stride * i];
			vr[nz++].id = i;
		}
	if (pa)
		qsort(vr, nz, sizeof(*vr), &dmd_cost_val_rank_cmp);
	for (j = 0; pa && j < nz; j = k) {
		isl_set *on;

		for (k = j; k < nz && vr[k].v == vr[j].v; ++k)
			id[k - j] = vr[k].id;
		on = dmd_cost_ids_set(m, isl_space_copy(space), id, k - j);
		pa = isl_pw_aff_union_add(pa, isl_pw_aff_val_on_domain(on,
			isl_val_int_from_si(m->ctx, vr[j].v)));
	}
	free(vr);
	free(id);
	isl_space_free(space);
	return isl_pw_aff_coalesce(pa);
}

/* Add the receive of "bytes" by rank "id" over link "link" (-1: the
 * first axis's) to step "step"'s per-rank counts.  Returns -1 if they
 * cannot be allocated. */
static int dmd_cost_dense_add(struct dmd_cost_build *b, int step, int link,
	long id, long long bytes)
{
	struct dmd_cost_link_acc *l = &b->acc[step].link[link < 0 ? 0 : link];

	if (!l->dense) {
		l->dense = calloc(2 * dmd_cost_dense_size(b->m),
			sizeof(long long));
		if (!l->dense)
			return -1;
	}
	l->used = 1;
	l->dense[2 * id] += bytes;
	l->dense[2 * id + 1] += 1;
	return 0;
}

/* The link of a broadcast or shift along axis "a": the axis itself, or
 * for an axis of a view the slowest of the mesh axes its lines span
 * (those whose coordinate changes along some line). */
static int dmd_cost_axis_link(const struct dmd_model *m, int a)
{
	const struct dmd_job *job = m->job;
	int axes[DMD_MAX_AXES] = { 0 }, v, j, i;
	long vs = 1, ms = 1, span;

	v = dmd_job_axis_view(job, a);
	if (v < 0)
		return a;
	j = dmd_job_axis_pos(job, a);
	for (i = j + 1; i < job->views[v].n_axes; ++i)
		vs *= job->views[v].shape[i];
	span = vs * job->views[v].shape[j];
	for (i = job->n_axes - 1; i >= 0; --i) {
		/* mesh axis i has stride ms: it changes within a line of
		 * stride vs and extent shape[j] if the two overlap */
		axes[i] = ms < span && vs < ms * job->mesh_shape[i] &&
			job->views[v].shape[j] > 1;
		ms *= job->mesh_shape[i];
	}
	i = dmd_cost_slowest(job, axes);
	return i < 0 ? 0 : i;
}

/* Add the receive of "bytes" (a pw_aff over the parameters, defined
 * where "ranks" receive) over link "link" (-1: the first axis's) to the
 * step's accumulators of that link. */
static void dmd_cost_receive(struct dmd_cost_build *b, int step,
	__isl_take isl_pw_aff *bytes, __isl_take isl_set *ranks, int link)
{
	const struct dmd_model *m = b->m;
	struct dmd_cost_link_acc *l = &b->acc[step].link[link < 0 ? 0 : link];
	isl_set *on;

	l->used = 1;
	/* the ranks as runs once (dmd_cost_on) for both sums */
	on = dmd_cost_runs(m, isl_set_intersect_params(ranks,
		isl_set_copy(m->mesh->set)));
	dmd_cost_tree_add(&l->msgs, isl_pw_aff_intersect_params(
		dmd_cost_cst(m, isl_val_one(m->ctx)), isl_set_copy(on)));
	dmd_cost_tree_add(&l->bytes, isl_pw_aff_intersect_params(bytes, on));
}

/* What dmd_cost_eval_piece needs: the values of a per-rank quantity
 * added to v[stride id] (id row-major); bad: some value is not an
 * integer of 63 bits, a sum overflows or a rank is off the mesh. */
struct dmd_cost_eval {
	const struct dmd_model *m;
	isl_aff *aff;			/* over R[c], the piece's */
	long long *v;
	int stride;
	int bad;
};

/* Add the value of the piece's aff at rank "pnt" (R[c]) to its slot. */
static isl_stat dmd_cost_eval_point(__isl_take isl_point *pnt, void *user)
{
	struct dmd_cost_eval *e = user;
	const long *shape = e->m->job->mesh_shape;
	long id = 0, c;
	long long *slot;
	isl_val *v;
	int a;

	for (a = 0; a < e->m->mesh->n; ++a) {
		v = isl_point_get_coordinate_val(pnt, isl_dim_set, a);
		c = v && isl_val_is_int(v) ? isl_val_get_num_si(v) : -1;
		isl_val_free(v);
		if (c < 0 || c >= shape[a]) {
			isl_point_free(pnt);
			e->bad = 1;
			return isl_stat_error;
		}
		id = id * shape[a] + c;
	}
	v = isl_aff_eval(isl_aff_copy(e->aff), pnt);
	slot = &e->v[(long) e->stride * id];
	if (!v || !isl_val_is_int(v) || isl_val_cmp_si(v, LONG_MAX) >= 0 ||
	    isl_val_cmp_si(v, -LONG_MAX) <= 0 ||
	    __builtin_add_overflow(*slot, isl_val_get_num_si(v), slot))
		e->bad = 1;
	isl_val_free(v);
	return e->bad ? isl_stat_error : isl_stat_ok;
}

/* Add the values of piece "aff" (over the parameters) at the ranks of
 * "set" (of the mesh: bounded) to e->v, its ranks enumerated. */
static isl_stat dmd_cost_eval_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_cost_eval *e = user;
	const struct dmd_mesh *mesh = e->m->mesh;
	isl_stat r;

	set = isl_set_intersect_params(set, isl_set_copy(mesh->set));
	set = isl_set_unbind_params(set, isl_multi_id_copy(mesh->ids));
	e->aff = isl_aff_unbind_params_insert_domain(aff,
		isl_multi_id_copy(mesh->ids));
	r = set && e->aff ? isl_set_foreach_point(set, &dmd_cost_eval_point,
		e) : isl_stat_error;
	e->aff = isl_aff_free(e->aff);
	isl_set_free(set);
	if (r < 0)
		e->bad = 1;
	return r;
}

/* Add the values of "pa" (over the mesh's parameters, on the mesh) at
 * every rank i to v[stride i], piece by piece (isl_pw_aff_eval at each
 * rank decides the integer feasibility of every piece's periodic
 * constraints there: ten times slower).  Returns -1 if they cannot be
 * read as 63-bit integers (or on error). */
static int dmd_cost_eval(const struct dmd_model *m, __isl_keep isl_pw_aff *pa,
	long long *v, int stride)
{
	struct dmd_cost_eval e = { m, NULL, v, stride, 0 };

	if (!pa || isl_pw_aff_dim(pa, isl_dim_param) != m->mesh->n)
		return -1;
	if (isl_pw_aff_foreach_piece(pa, &dmd_cost_eval_piece, &e) < 0 ||
	    e.bad) {
		dmd_cost_reset_error(m->ctx);
		return -1;
	}
	return 0;
}

/* *acc += "v" (n ranks, stride "stride"): a pw_aff of the values
 * (dmd_cost_dense_pw). */
static void dmd_cost_add_dense(const struct dmd_model *m, isl_pw_aff **acc,
	const long long *v, long n, int stride)
{
	dmd_cost_add(acc, dmd_cost_dense_pw(m, v, n, stride));
}

/* The receives over the links of "acc", summed per link in "bytes" and
 * "msgs" (pw_affs, kept) and in each link's "dense" counts, priced rank
 * by rank on a mesh of at most DMD_COST_MAX_RUN_RANKS ranks: each sum
 * evaluated at every rank (dmd_cost_eval) and the step's bytes, messages
 * and time made pw_affs once, instead of sums of pw_affs with as many
 * pieces as the ranks have distinct values (Cannon with tails on 64x64:
 * most of its plan).  The same integers as dmd_cost_price's.  Returns
 * 0 when priced, -1 if not (a larger mesh, a value or a sum beyond 63
 * bits): then "acc" is unchanged. */
static int dmd_cost_price_dense(const struct dmd_model *m,
	struct dmd_cost_acc *acc, isl_pw_aff **bytes, isl_pw_aff **msgs)
{
	long n = dmd_cost_dense_size(m), i;
	long long *v, *lv;
	int a, r = 0;

	if (n == 0)
		return -1;
	/* per rank i: bytes, messages, time at 3 i; a link's at lv[2 i] */
	v = calloc(3 * n, sizeof(*v));
	lv = malloc(2 * n * sizeof(*lv));
	if (!v || !lv)
		r = -1;
	for (a = 0; r == 0 && a < DMD_MAX_AXES; ++a) {
		const struct dmd_cost_link_acc *l = &acc->link[a];
		const struct dmd_link *k = &m->job->links[a];
		long long pb = llround(1e6 / k->gbps);
		long long pl = llround(k->latency_us * 1e9);

		if (!l->used)
			continue;
		if (l->dense)
			memcpy(lv, l->dense, 2 * n * sizeof(*lv));
		else
			memset(lv, 0, 2 * n * sizeof(*lv));
		if (dmd_cost_eval(m, bytes[a], lv, 2) < 0 ||
		    dmd_cost_eval(m, msgs[a], lv + 1, 2) < 0)
			r = -1;
		for (i = 0; r == 0 && i < n; ++i) {
			long long *w = &v[3 * i], tb, tl;

			if (__builtin_add_overflow(w[0], lv[2 * i], &w[0]) ||
			    __builtin_add_overflow(w[1], lv[2 * i + 1], &w[1]) ||
			    __builtin_mul_overflow(lv[2 * i], pb, &tb) ||
			    __builtin_mul_overflow(lv[2 * i + 1], pl, &tl) ||
			    __builtin_add_overflow(w[2], tb, &w[2]) ||
			    __builtin_add_overflow(w[2], tl, &w[2]))
				r = -1;
		}
	}
	if (r == 0) {
		dmd_cost_add_dense(m, &acc->bytes, v, n, 3);
		dmd_cost_add_dense(m, &acc->msgs, v + 1, n, 3);
		dmd_cost_add_dense(m, &acc->time, v + 2, n, 3);
	}
	free(v);
	free(lv);
	return r;
}

/* The sums of the receives over the links of "acc" into its bytes,
 * messages and time: per link, latency_us * 1e9 fs a message and
 * 1e6 / gbps fs a byte (each rounded to an integer, as event by
 * event); rank by rank if it can (dmd_cost_price_dense), else as sums
 * of pw_affs. */
static void dmd_cost_price(const struct dmd_model *m,
	struct dmd_cost_acc *acc)
{
	isl_pw_aff *bytes[DMD_MAX_AXES] = { NULL };
	isl_pw_aff *msgs[DMD_MAX_AXES] = { NULL };
	int a, dense;

	for (a = 0; a < DMD_MAX_AXES; ++a) {
		struct dmd_cost_link_acc *l = &acc->link[a];

		if (!l->used)
			continue;
		bytes[a] = dmd_cost_cst(m, isl_val_zero(m->ctx));
		msgs[a] = dmd_cost_cst(m, isl_val_zero(m->ctx));
		dmd_cost_tree_fold(&l->bytes, &bytes[a]);
		dmd_cost_tree_fold(&l->msgs, &msgs[a]);
	}
	dense = dmd_cost_price_dense(m, acc, bytes, msgs) == 0;
	for (a = 0; a < DMD_MAX_AXES; ++a) {
		struct dmd_cost_link_acc *l = &acc->link[a];
		const struct dmd_link *k = &m->job->links[a];
		long n = dmd_cost_dense_size(m);

		if (!l->used)
			continue;
		if (!dense && l->dense) {
			dmd_cost_add(&bytes[a], dmd_cost_dense_pw(m, l->dense,
				n, 2));
			dmd_cost_add(&msgs[a], dmd_cost_dense_pw(m,
				l->dense + 1, n, 2));
		}
		free(l->dense);
		l->dense = NULL;
		l->used = 0;
		if (dense) {
			isl_pw_aff_free(bytes[a]);
			isl_pw_aff_free(msgs[a]);
			continue;
		}
		dmd_cost_add(&acc->time, isl_pw_aff_add(
			isl_pw_aff_scale_val(isl_pw_aff_copy(bytes[a]),
				dmd_cost_int(m->ctx, 1e6 / k->gbps)),
			isl_pw_aff_scale_val(isl_pw_aff_copy(msgs[a]),
				dmd_cost_int(m->ctx, k->latency_us * 1e9))));
		dmd_cost_add(&acc->bytes, bytes[a]);
		dmd_cost_add(&acc->msgs, msgs[a]);
	}
}

/* Release the pw_affs of "acc". */
static void dmd_cost_acc_clear(struct dmd_cost_acc *acc)
{
	int a;

	for (a = 0; a < DMD_MAX_AXES; ++a) {
		dmd_cost_tree_clear(&acc->link[a].bytes);
		dmd_cost_tree_clear(&acc->link[a].msgs);
		free(acc->link[a].dense);
		acc->link[a].dense = NULL;
		acc->link[a].used = 0;
	}
	acc->bytes = isl_pw_aff_free(acc->bytes);
	acc->msgs = isl_pw_aff_free(acc->msgs);
	acc->time = isl_pw_aff_free(acc->time);
	acc->flops = isl_pw_aff_free(acc->flops);
}

/* Collect the points of a bounded set without parameters (at most
 * DMD_COST_MAX_EVENTS): their coordinates, n each. */
struct dmd_cost_points {
	int n;
	long count;
	long cap;
	long *v;
};

static isl_stat dmd_cost_point_add(__isl_take isl_point *pnt, void *user)
{
	struct dmd_cost_points *p = user;
	int i;

	if (p->count == p->cap) {
		long *v;

		p->cap = 2 * p->cap + 16;
		v = realloc(p->v, p->cap * (p->n + 1) * sizeof(long));
		if (!v) {
			isl_point_free(pnt);
			return isl_stat_error;
		}
		p->v = v;
	}
	for (i = 0; i < p->n; ++i) {
		isl_val *x = isl_point_get_coordinate_val(pnt, isl_dim_set, i);

		p->v[p->count * (p->n + 1) + i] = isl_val_get_num_si(x);
		isl_val_free(x);
	}
	p->count++;
	isl_point_free(pnt);
	return isl_stat_ok;
}

/* The points of "set" (its parameters projected out) into "p"; -1 if
 * there are too many (or on error). */
static int dmd_cost_enumerate(__isl_take isl_set *set,
	struct dmd_cost_points *p)
{
	isl_val *cnt;
	isl_size n;
	int ok;

	set = isl_set_project_out_all_params(set);
	n = isl_set_dim(set, isl_dim_set);
	memset(p, 0, sizeof(*p));
	p->n = n < 0 ? 0 : n;
	if (n < 0 || isl_set_is_bounded(set) != isl_bool_true) {
		isl_set_free(set);
		return -1;
	}
	cnt = isl_set_count_val(set);
	ok = cnt && isl_val_is_int(cnt) &&
		isl_val_cmp_si(cnt, DMD_COST_MAX_EVENTS) <= 0;
	isl_val_free(cnt);
	if (ok && isl_set_foreach_point(set, &dmd_cost_point_add, p) < 0)
		ok = 0;
	isl_set_free(set);
	return ok ? 0 : -1;
}

static int dmd_cost_long_cmp(const void *a, const void *b)
{
	long x = *(const long *) a, y = *(const long *) b;

	return x < y ? -1 : x > y;
}

/* A tuple of n longs, as dmd_cost_tuple_cmp orders them. */
struct dmd_cost_tuple {
	const long *v;
	int n;
};

/* Tuples in lexicographic order. */
static int dmd_cost_tuple_cmp(const void *a, const void *b)
{
	const struct dmd_cost_tuple *x = a, *y = b;
	int i;

	for (i = 0; i < x->n; ++i)
		if (x->v[i] != y->v[i])
			return x->v[i] < y->v[i] ? -1 : 1;
	return 0;
}

/* The ranks "id" (n of them, row-major, sorted ascending) as a set over
 * the mesh parameters of "space" (taken): the union of their runs of
 * consecutive ranks along the last mesh axis, coalesced.  For ranks
 * 32 .. 39 and 48 .. 55 of a mesh [r] of 64:
 * [r] -> { : 32 <= r <= 39 or 48 <= r <= 55 }. */
static __isl_give isl_set *dmd_cost_ids_set(const struct dmd_model *m,
	__isl_take isl_space *space, const long *id, long n)
{
	const long *shape = m->job->mesh_shape;
	int np = m->mesh->n, i;
	long j, k, q, last = shape[np - 1];
	isl_set *out;

	out = isl_set_empty(isl_space_copy(space));
	for (j = 0; j < n; j = k) {
		isl_set *run = isl_set_universe(isl_space_copy(space));

		for (k = j + 1; k < n && id[k] == id[k - 1] + 1 &&
		     id[k] % last != 0; ++k)
			;
		for (q = id[j] / last, i = np - 2; i >= 0; --i) {
			run = isl_set_fix_si(run, isl_dim_param, i,
				q % shape[i]);
			q /= shape[i];
		}
		run = isl_set_lower_bound_si(run, isl_dim_param, np - 1,
			id[j] % last);
		run = isl_set_upper_bound_si(run, isl_dim_param, np - 1,
			id[k - 1] % last);
		out = isl_set_union(out, run);
	}
	isl_space_free(space);
	return isl_set_coalesce(out);
}

/* The ranks of "r" (a set over the mesh parameters) as the union of its
 * runs of consecutive ranks along the last mesh axis, merged where they
 * line up (isl_set_coalesce), where its description has divisions: the
 * coordinates of a view are divisions of the mesh's (on a 4x4x4 view of
 * a 1-D mesh of 64 ranks, [r] -> { : r mod 16 < 8 and r >= 32 } becomes
 * [r] -> { : 32 <= r <= 39 or 48 <= r <= 55 }), and every union, sum and
 * subtraction of the cost's accumulators on such sets piles up more
 * divisions (a plan on a view of a 1-D mesh spent three quarters of its
 * time there); on boxes they stay small.  The same ranks either way;
 * "r" is kept as it is without divisions, with more than
 * DMD_COST_MAX_RUNS runs, or on a mesh of more than
 * DMD_COST_MAX_RUN_RANKS ranks (its ranks are enumerated). */
static __isl_give isl_set *dmd_cost_runs(const struct dmd_model *m,
	__isl_take isl_set *r)
{
	const long *shape = m->job->mesh_shape;
	struct dmd_cost_points pts;
	int np = m->mesh->n, div = 0, i;
	long j, id, last, runs = 0, size = 1;
	isl_set *out;

	for (i = 0; i < np && size <= DMD_COST_MAX_RUN_RANKS; ++i)
		size *= shape[i];
	if (!r || np < 1 || size > DMD_COST_MAX_RUN_RANKS)
		return r;
	div = dmd_isl_set_has_div(r);
	if (div < 0)
		return isl_set_free(r);
	if (!div)
		return r;
	if (dmd_cost_enumerate(isl_set_move_dims(isl_set_copy(r), isl_dim_set,
			0, isl_dim_param, 0, np), &pts) < 0) {
		free(pts.v);
		return r;
	}
	/* each point as its rank (row-major), in place: point j's np
	 * coordinates start at j (np + 1) >= j */
	for (j = 0; j < pts.count; ++j) {
		for (id = 0, i = 0; i < np; ++i)
			id = id * shape[i] + pts.v[j * (np + 1) + i];
		pts.v[j] = id;
	}
	qsort(pts.v, pts.count, sizeof(long), &dmd_cost_long_cmp);
	last = shape[np - 1];
	for (j = 0; j < pts.count; ++j)
		runs += j == 0 || pts.v[j] != pts.v[j - 1] + 1 ||
			pts.v[j] % last == 0;
	if (runs > DMD_COST_MAX_RUNS) {
		free(pts.v);
		return r;
	}
	out = dmd_cost_ids_set(m, isl_set_get_space(r), pts.v, pts.count);
	free(pts.v);
	isl_set_free(r);
	return out;
}

/* "pa" (over the parameters, bounded) as a pw_aff whose every piece is a
 * constant: its values enumerated, each on the ranks where it takes it.
 * NULL if it takes too many values. */
static __isl_give isl_pw_aff *dmd_cost_constantize(const struct dmd_model *m,
	__isl_take isl_pw_aff *pa)
{
	struct dmd_cost_points pts;
	isl_pw_aff *r;
	isl_set *vals;
	long i;

	vals = isl_set_from_pw_aff(isl_pw_aff_copy(pa));
	if (dmd_cost_enumerate(vals, &pts) < 0) {
		free(pts.v);
		isl_pw_aff_free(pa);
		return NULL;
	}
	r = isl_pw_aff_empty(isl_pw_aff_get_space(pa));
	for (i = 0; i < pts.count; ++i) {
		isl_val *v = isl_val_int_from_si(m->ctx, pts.v[i * 2]);
		isl_set *dom = isl_pw_aff_eq_set(isl_pw_aff_copy(pa),
			isl_pw_aff_val_on_domain(isl_pw_aff_domain(
			isl_pw_aff_copy(pa)), isl_val_copy(v)));

		r = isl_pw_aff_union_add(r, isl_pw_aff_val_on_domain(dom, v));
	}
	free(pts.v);
	isl_pw_aff_free(pa);
	return isl_pw_aff_coalesce(r);
}

/* Forget the error of an isl operation that failed because its result
 * is not what is asked for (a product that is not a pw_aff), but not
 * one of the operation quota (a search's limit on the analysis of a
 * candidate, which must see it). */
static void dmd_cost_reset_error(isl_ctx *ctx)
{
	if (isl_ctx_last_error(ctx) != isl_error_quota)
		isl_ctx_reset_error(ctx);
}

/* The product of "a" and "b" (taken), pw_affs over the parameters: isl's,
 * or when on a piece neither is constant (two extents that both vary
 * with the coordinates, as 5 - c_x and 1 + 2 c_x on two ranks), the
 * product of their values piece by piece. */
static __isl_give isl_pw_aff *dmd_cost_mul(const struct dmd_model *m,
	__isl_take isl_pw_aff *a, __isl_take isl_pw_aff *b)
{
	isl_pw_aff *r;

	r = isl_pw_aff_mul(isl_pw_aff_copy(a), isl_pw_aff_copy(b));
	if (r) {
		isl_pw_aff_free(a);
		isl_pw_aff_free(b);
		return r;
	}
	if (isl_ctx_last_error(m->ctx) == isl_error_quota) {
		isl_pw_aff_free(a);
		isl_pw_aff_free(b);
		return NULL;
	}
	isl_ctx_reset_error(m->ctx);
	a = dmd_cost_constantize(m, a);
	b = dmd_cost_constantize(m, b);
	if (!a || !b) {
		isl_pw_aff_free(a);
		isl_pw_aff_free(b);
		return NULL;
	}
	return isl_pw_aff_mul(a, b);
}

/* The bytes of the box with extents "ext" (n pw_affs over the
 * parameters, taken): their product times the element size, or NULL if
 * it cannot be formed.  *pos: the ranks where every extent is
 * positive. */
static __isl_give isl_pw_aff *dmd_cost_box_bytes(struct dmd_cost_build *b,
	int n, isl_pw_aff **ext, isl_set **pos)
{
	const struct dmd_model *m = b->m;
	isl_pw_aff *w;
	int d;

	*pos = isl_set_copy(m->mesh->set);
	w = dmd_cost_cst(m, isl_val_int_from_si(m->ctx, b->esize));
	for (d = 0; d < n; ++d) {
		*pos = isl_set_intersect(*pos, isl_pw_aff_pos_set(
			isl_pw_aff_copy(ext[d])));
		w = w ? dmd_cost_mul(m, w, ext[d]) : isl_pw_aff_free(ext[d]);
		ext[d] = NULL;
	}
	if (!w)
		dmd_cost_reset_error(m->ctx);
	return w;
}

/* The multi_aff from the parameters to the point X[t, c + o] (t: "len"
 * values, o: np values or none) of set space "space". */
static __isl_give isl_multi_aff *dmd_cost_point(const struct dmd_model *m,
	__isl_keep isl_space *space, const long *t, int len, const long *o)
{
	isl_space *dom;
	isl_local_space *ls;
	isl_aff_list *list;
	int i, np = m->mesh->n, n = len + (o ? np : 0);

	dom = isl_space_set_from_params(isl_space_params(
		isl_space_copy(space)));
	ls = isl_local_space_from_space(isl_space_copy(dom));
	list = isl_aff_list_alloc(m->ctx, n);
	for (i = 0; i < len; ++i)
		list = isl_aff_list_add(list, isl_aff_val_on_domain(
			isl_local_space_copy(ls), isl_val_int_from_si(m->ctx,
			t[i])));
	for (i = 0; o && i < np; ++i) {
		isl_aff *a = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_param, i);

		list = isl_aff_list_add(list, isl_aff_add_constant_si(a,
			o[i]));
	}
	isl_local_space_free(ls);
	return isl_multi_aff_from_aff_list(isl_space_map_from_domain_and_range(
		dom, isl_space_copy(space)), list);
}

/* "pa" (over the space of "ma"'s range) at the point "ma": a pw_aff over
 * the parameters. */
static __isl_give isl_pw_aff *dmd_cost_at(__isl_keep isl_pw_aff *pa,
	__isl_keep isl_multi_aff *ma)
{
	isl_pw_aff *r;

	r = isl_pw_aff_pullback_multi_aff(isl_pw_aff_copy(pa),
		isl_multi_aff_copy(ma));
	return isl_pw_aff_project_domain_on_params(r);
}

/* The ranks for which "dom" (over the space of "ma"'s range) holds the
 * point "ma". */
static __isl_give isl_set *dmd_cost_holds(__isl_keep isl_set *dom,
	__isl_keep isl_multi_aff *ma)
{
	isl_set *s;

	s = isl_set_preimage_multi_aff(isl_set_copy(dom),
		isl_multi_aff_copy(ma));
	return isl_set_params(s);
}

/* A rotation of the time loops of "len" dimensions found in a div of
 * a transfer's pw_aff: floor((t_j + g) / E) with g an affine function
 * of the coordinates (and of t_0 .. t_{j-1}) that involves some
 * coordinate, E > 1.  j < 0: none found yet. */
struct dmd_cost_rot {
	int len;
	int j;
	long E;
	isl_aff *g;			/* over X, no divs */
};

/* The div "div" (floor of an affine expression over X) of a transfer's
 * pw_aff as the rotation "user" (dmd_cost_rot) if it is one. */
static isl_stat dmd_cost_rot_div(__isl_take isl_aff *div,
	struct dmd_cost_rot *rot)
{
	isl_val *den = isl_aff_get_denominator_val(div);
	isl_size nd = isl_aff_dim(div, isl_dim_div);
	isl_size np = isl_aff_dim(div, isl_dim_param);
	isl_local_space *ls;
	isl_aff *g;
	int j = -1, i, ok;

	div = isl_aff_scale_val(div, isl_val_copy(den));
	ok = div && den && nd >= 0 && np > 0 && isl_val_is_int(den) &&
		isl_val_cmp_si(den, 1) > 0 && isl_val_cmp_si(den, LONG_MAX) < 0;
	ok = ok && (nd == 0 || isl_aff_involves_dims(div, isl_dim_div, 0,
		nd) == isl_bool_false);
	ok = ok && isl_aff_involves_dims(div, isl_dim_param, 0, np) ==
		isl_bool_true;
	for (i = 0; ok && i < rot->len; ++i)
		if (isl_aff_involves_dims(div, isl_dim_in, i, 1) ==
		    isl_bool_true)
			j = i;
	if (ok && j >= 0) {
		isl_val *c = isl_aff_get_coefficient_val(div, isl_dim_in, j);

		ok = c && isl_val_is_one(c);
		isl_val_free(c);
	}
	if (!ok || j < 0) {
		isl_val_free(den);
		isl_aff_free(div);
		return isl_stat_ok;
	}
	/* g: the constant, coordinates and t_0 .. t_{j-1} of the div */
	ls = isl_local_space_from_space(isl_space_domain(isl_aff_get_space(
		div)));
	g = isl_aff_val_on_domain(isl_local_space_copy(ls),
		isl_aff_get_constant_val(div));
	for (i = 0; i < np; ++i)
		g = isl_aff_set_coefficient_val(g, isl_dim_param, i,
			isl_aff_get_coefficient_val(div, isl_dim_param, i));
	for (i = 0; i < j; ++i)
		g = isl_aff_set_coefficient_val(g, isl_dim_in, i,
			isl_aff_get_coefficient_val(div, isl_dim_in, i));
	isl_local_space_free(ls);
	rot->j = j;
	rot->E = isl_val_get_num_si(den);
	rot->g = g;
	isl_val_free(den);
	isl_aff_free(div);
	return g ? isl_stat_ok : isl_stat_error;
}

/* Look for a rotation (dmd_cost_rot) in the divs of piece "aff". */
static isl_stat dmd_cost_rot_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_cost_rot *rot = user;
	isl_size nd = isl_aff_dim(aff, isl_dim_div);
	isl_stat r = nd < 0 ? isl_stat_error : isl_stat_ok;
	int i;

	for (i = 0; r == isl_stat_ok && rot->j < 0 && i < nd; ++i)
		r = dmd_cost_rot_div(isl_aff_get_div(aff, i), rot);
	isl_set_free(set);
	isl_aff_free(aff);
	return r;
}

/* The order in which the events of a transfer with time points "dom"
 * ([c] -> { X[t] }, "len" time loops) and root or box origins "pa" (n
 * pw_affs over X) are summed: NULL (as enumerated), or the map M:
 * X[u] -> X[t] with t_j = (u_j - g) mod E and t_i = u_i otherwise, where
 * some pa[k] has a div floor((t_j + g) / E) and every time point has
 * 0 <= t_j < E (*dom_u: the time points u, 0 <= u_j < E, that M maps
 * into dom).
 *
 * For every rank (and t_0 .. t_{j-1}) M maps 0 <= u_j < E one to one
 * onto 0 <= t_j < E, so the sums over u equal those over t whatever g
 * is.  A loop rotated by the coordinates (rotate(ko, [no], kor): the
 * root of a broadcast along x at kor is (c_y + kor) mod N) has events
 * whose receivers and boxes differ with the coordinates at each t (c_x
 * != (c_y + t) mod N); at each u they are those of the loop before the
 * rotation (c_x != u), and the sums over u stay a few pieces instead of
 * one per residue (summa_tail_256x256: most of its plan's 230 s). */
static __isl_give isl_multi_aff *dmd_cost_rotation(__isl_keep isl_set *dom,
	isl_pw_aff *const *pa, int n, int len, __isl_give isl_set **dom_u)
{
	struct dmd_cost_rot rot = { len, -1, 0, NULL };
	isl_space *sp;
	isl_local_space *ls;
	isl_aff_list *list;
	isl_multi_aff *M;
	isl_set *range;
	isl_bool in;
	int i, k, bad = 0;

	*dom_u = NULL;
	for (k = 0; !bad && k < n && rot.j < 0; ++k)
		bad = !pa[k] || isl_pw_aff_foreach_piece(pa[k],
			&dmd_cost_rot_piece, &rot) < 0;
	if (bad || rot.j < 0) {
		isl_aff_free(rot.g);
		return NULL;
	}
	sp = isl_set_get_space(dom);
	range = isl_set_universe(isl_space_copy(sp));
	range = isl_set_lower_bound_si(range, isl_dim_set, rot.j, 0);
	range = isl_set_upper_bound_si(range, isl_dim_set, rot.j, rot.E - 1);
	in = isl_set_is_subset(dom, range);
	if (in != isl_bool_true) {
		isl_set_free(range);
		isl_space_free(sp);
		isl_aff_free(rot.g);
		return NULL;
	}
	ls = isl_local_space_from_space(isl_space_copy(sp));
	list = isl_aff_list_alloc(isl_set_get_ctx(dom), len);
	for (i = 0; i < len; ++i) {
		isl_aff *a = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, i);

		if (i == rot.j)
			a = isl_aff_mod_val(isl_aff_sub(a,
				isl_aff_copy(rot.g)), isl_val_int_from_si(
				isl_set_get_ctx(dom), rot.E));
		list = isl_aff_list_add(list, a);
	}
	isl_local_space_free(ls);
	isl_aff_free(rot.g);
	M = isl_multi_aff_from_aff_list(isl_space_map_from_set(sp), list);
	*dom_u = isl_set_intersect(isl_set_preimage_multi_aff(
		isl_set_copy(dom), isl_multi_aff_copy(M)), range);
	if (!*dom_u)
		M = isl_multi_aff_free(M);
	return M;
}

/* The receives of broadcast "x" at each of its time points: every rank
 * of a group that is not its root, where the box is not empty. */
static int dmd_cost_bcast(struct dmd_cost_build *b, const struct dmd_xfer *x)
{
	const struct dmd_model *m = b->m;
	struct dmd_cost_points pts;
	isl_space *space = isl_set_get_space(x->dom);
	int len = x->level + 1, link = dmd_cost_axis_link(m, x->axis), d;
	isl_multi_aff *rot;
	isl_set *dom_u;
	long i;

	rot = dmd_cost_rotation(x->dom, &x->root, 1, len, &dom_u);
	if (!rot)
		dom_u = isl_set_copy(x->dom);
	if (dmd_cost_enumerate(dom_u, &pts) < 0) {
		free(pts.v);
		isl_space_free(space);
		isl_multi_aff_free(rot);
		dmd_cost_fail(b, "too many time points", x->step, x->tensor);
		return -1;
	}
	for (i = 0; i < pts.count && !b->failed; ++i) {
		isl_multi_aff *ma = dmd_cost_point(m, space,
			pts.v + i * (pts.n + 1), len, NULL);
		isl_pw_aff **ext, *w, *root;

		if (rot)
			ma = isl_multi_aff_pullback_multi_aff(
				isl_multi_aff_copy(rot), ma);
		isl_set *r, *pos;

		ext = calloc(x->box.n + 1, sizeof(*ext));
		for (d = 0; ext && d < x->box.n; ++d)
			ext[d] = dmd_cost_at(x->box.ext[d], ma);
		r = dmd_cost_holds(x->dom, ma);
		root = dmd_cost_at(x->root, ma);
		r = isl_set_intersect(r, isl_pw_aff_ne_set(dmd_mesh_coord(
			m->mesh, x->axis), root));
		w = ext ? dmd_cost_box_bytes(b, x->box.n, ext, &pos) : NULL;
		free(ext);
		isl_multi_aff_free(ma);
		if (!w) {
			isl_set_free(r);
			isl_set_free(pos);
			dmd_cost_fail(b, "a box whose size is not a piecewise "
				"affine function of the coordinates", x->step,
				x->tensor);
			break;
		}
		dmd_cost_receive(b, x->step, w, isl_set_intersect(r, pos),
			link);
	}
	free(pts.v);
	isl_space_free(space);
	isl_multi_aff_free(rot);
	return b->failed ? -1 : 0;
}

/* The receives of the ring shift "x" at its time points after the first
 * of their loop: from the neighbour along the axis (not counted on a
 * ring of one rank), where the box is not empty, on the ranks of the
 * axis's view.  At a rotated loop (Cannon's skewed panels: a box origin
 * with a div floor((t + c_x + c_y) / N)) the events are summed in the
 * loop's own order (dmd_cost_rotation); the time point before an event's,
 * from which the shift receives, is its own (rotated or not) with the
 * shift's loop one less. */
static int dmd_cost_shift(struct dmd_cost_build *b, const struct dmd_xfer *x)
{
	const struct dmd_model *m = b->m;
	struct dmd_cost_points pts;
	isl_space *space = isl_set_get_space(x->dom);
	int len = x->level + 1, link = dmd_cost_axis_link(m, x->axis), d;
	isl_multi_aff *rot;
	isl_set *dom_u;
	long i;

	if (dmd_job_axis_extent(m->job, x->axis) == 1) {
		isl_space_free(space);
		return 0;
	}
	rot = dmd_cost_rotation(x->dom, x->box.lo, x->box.n, len, &dom_u);
	if (!rot)
		dom_u = isl_set_copy(x->dom);
	if (dmd_cost_enumerate(dom_u, &pts) < 0) {
		free(pts.v);
		isl_space_free(space);
		isl_multi_aff_free(rot);
		dmd_cost_fail(b, "too many time points", x->step, x->tensor);
		return -1;
	}
	for (i = 0; i < pts.count && !b->failed; ++i) {
		isl_multi_aff *ma, *prev;
		isl_pw_aff **ext, *w;
		isl_aff *before;
		isl_set *r, *pos;

		ma = dmd_cost_point(m, space, pts.v + i * (pts.n + 1), len,
			NULL);
		if (rot)
			ma = isl_multi_aff_pullback_multi_aff(
				isl_multi_aff_copy(rot), ma);
		/* the time point before ma's along the shift's loop */
		before = isl_aff_add_constant_si(isl_multi_aff_get_at(ma,
			x->level), -1);
		prev = isl_multi_aff_set_at(isl_multi_aff_copy(ma), x->level,
			before);
		ext = calloc(x->box.n + 1, sizeof(*ext));
		for (d = 0; ext && d < x->box.n; ++d)
			ext[d] = dmd_cost_at(x->box.ext[d], ma);
		r = isl_set_intersect(dmd_cost_holds(x->dom, ma),
			dmd_cost_holds(x->dom, prev));
		r = isl_set_intersect(r, dmd_mesh_frame(m->mesh,
			dmd_mesh_axis_view(m->mesh, x->axis)));
		w = ext ? dmd_cost_box_bytes(b, x->box.n, ext, &pos) : NULL;
		free(ext);
		isl_multi_aff_free(ma);
		isl_multi_aff_free(prev);
		if (!w) {
			isl_set_free(r);
			isl_set_free(pos);
			dmd_cost_fail(b, "a box whose size is not a piecewise "
				"affine function of the coordinates", x->step,
				x->tensor);
			break;
		}
		dmd_cost_receive(b, x->step, w, isl_set_intersect(r, pos),
			link);
	}
	free(pts.v);
	isl_space_free(space);
	isl_multi_aff_free(rot);
	return b->failed ? -1 : 0;
}

/* [c] -> { X[t, s] } as [c] -> { E[t, o] } with o = s - c. */
static __isl_give isl_set *dmd_cost_offsets(const struct dmd_model *m,
	__isl_keep isl_set *dom, int len)
{
	isl_space *sp = isl_set_get_space(dom);
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(sp));
	isl_aff_list *list;
	isl_multi_aff *ma;
	isl_set *s;
	int np = m->mesh->n, i;

	list = isl_aff_list_alloc(m->ctx, len + np);
	for (i = 0; i < len + np; ++i) {
		isl_aff *a = isl_aff_var_on_domain(isl_local_space_copy(ls),
			isl_dim_set, i);

		if (i >= len)
			a = isl_aff_sub(a, isl_aff_var_on_domain(
				isl_local_space_copy(ls), isl_dim_param,
				i - len));
		list = isl_aff_list_add(list, a);
	}
	isl_local_space_free(ls);
	ma = isl_multi_aff_from_aff_list(isl_space_map_from_set(sp), list);
	s = isl_set_apply(isl_set_copy(dom), isl_map_from_multi_aff(ma));
	return isl_set_reset_tuple_id(s);
}

/* The points (c, t, o) of the ranks c of the mesh, time points t and peer
 * offsets o at which point-to-point pieces "p" of transfer "x" receive
 * (dmd_cost_offsets, the parameters moved into the set) into "pts", on
 * a mesh of at most DMD_COST_MAX_RUN_RANKS ranks whose parameters are
 * those of "p".  Returns 1 when enumerated, 0 if not (too many points,
 * a larger mesh or other parameters). */
static int dmd_cost_p2p_points(const struct dmd_model *m,
	const struct dmd_xfer *x, const struct dmd_p2p *p,
	struct dmd_cost_points *pts)
{
	int np = m->mesh->n;
	isl_set *e;

	memset(pts, 0, sizeof(*pts));
	if (dmd_cost_dense_size(m) == 0 ||
	    isl_set_dim(p->recv_dom, isl_dim_param) != np)
		return 0;
	e = dmd_cost_offsets(m, p->recv_dom, x->level + 1);
	e = isl_set_intersect_params(e, isl_set_copy(m->mesh->set));
	e = isl_set_move_dims(e, isl_dim_set, 0, isl_dim_param, 0, np);
	if (dmd_cost_enumerate(e, pts) < 0) {
		free(pts->v);
		memset(pts, 0, sizeof(*pts));
		return 0;
	}
	return 1;
}

/* The distinct events (t, o) of the points (c, t, o) "cpts" of a mesh of
 * "np" axes into "ev" (sorted).  Returns -1 if they cannot be
 * allocated. */
static int dmd_cost_events_of(const struct dmd_cost_points *cpts, int np,
	struct dmd_cost_points *ev)
{
	struct dmd_cost_tuple *tu;
	int n = cpts->n - np, j;
	long i;

	memset(ev, 0, sizeof(*ev));
	ev->n = n;
	tu = malloc((cpts->count + 1) * sizeof(*tu));
	ev->v = malloc((cpts->count + 1) * (n + 1) * sizeof(long));
	if (!tu || !ev->v) {
		free(tu);
		return -1;
	}
	for (i = 0; i < cpts->count; ++i) {
		tu[i].v = cpts->v + i * (cpts->n + 1) + np;
		tu[i].n = n;
	}
	qsort(tu, cpts->count, sizeof(*tu), &dmd_cost_tuple_cmp);
	for (i = 0; i < cpts->count; ++i) {
		if (i > 0 && dmd_cost_tuple_cmp(&tu[i - 1], &tu[i]) == 0)
			continue;
		for (j = 0; j < n; ++j)
			ev->v[ev->count * (n + 1) + j] = tu[i].v[j];
		ev->count++;
	}
	ev->cap = ev->count;
	free(tu);
	return 0;
}

/* The receives of point-to-point pieces "p" of transfer "x" counted rank
 * by rank, at the points (c, t, o) "pts" of dmd_cost_p2p_points: the
 * extents of the box of each evaluated there; where every one is
 * positive, c receives their product's bytes in one message over the
 * slowest link along which o moves.  The same sums as dmd_cost_p2p's
 * event by event, without a pw_aff per event (on a 2.5-D plan of 64
 * ranks with its redistributions, 958 events: most of the analysis;
 * used beyond DMD_COST_DENSE_EVENTS events).  Returns 0 when counted,
 * -1 on error. */
static int dmd_cost_p2p_ranks(struct dmd_cost_build *b,
	const struct dmd_xfer *x, const struct dmd_p2p *p,
	const struct dmd_cost_points *pts)
{
	const struct dmd_model *m = b->m;
	const long *shape = m->job->mesh_shape;
	int len = x->level + 1, np = m->mesh->n, nd = p->recv.n, d, a;
	isl_pw_aff **cnt = NULL;
	isl_space *dom = NULL;
	long i, k;
	int r = 1;

	cnt = calloc(nd + 1, sizeof(*cnt));
	if (!cnt)
		r = -1;
	for (d = 0; r > 0 && d < nd; ++d) {
		cnt[d] = isl_pw_aff_move_dims(dmd_part_comb_count(&p->recv, d),
			isl_dim_in, 0, isl_dim_param, 0, np);
		if (!cnt[d])
			r = -1;
	}
	if (r > 0 && nd > 0)
		dom = isl_pw_aff_get_domain_space(cnt[0]);
	for (i = 0; r > 0 && i < pts->count; ++i) {
		const long *v = pts->v + i * (pts->n + 1);
		int axes[DMD_MAX_AXES] = { 0 };
		long long bytes = b->esize;
		isl_point *pt = NULL;
		long id = 0;

		if (nd > 0)
			pt = isl_point_zero(isl_space_copy(dom));
		/* X[c, t, c + o] */
		for (k = 0; pt && k < np + len + np; ++k) {
			long c = k < np + len ? v[k] : v[k - len - np] + v[k];

			pt = isl_point_set_coordinate_val(pt, isl_dim_set, k,
				isl_val_int_from_si(m->ctx, c));
		}
		if (nd > 0 && !pt)
			r = -1;
		for (d = 0; r > 0 && d < nd && bytes > 0; ++d) {
			isl_val *ext = isl_pw_aff_eval(isl_pw_aff_copy(cnt[d]),
				isl_point_copy(pt));
			long long e;

			if (!ext) {
				r = -1;
			} else if (!isl_val_is_int(ext) ||
				   !isl_val_is_pos(ext)) {
				bytes = 0;
			} else {
				e = isl_val_get_num_si(ext);
				if (__builtin_mul_overflow(bytes, e, &bytes))
					r = -1;
			}
			isl_val_free(ext);
		}
		isl_point_free(pt);
		if (r <= 0 || bytes <= 0)
			continue;
		for (a = 0; a < np; ++a) {
			id = id * shape[a] + v[a];
			axes[a] = v[np + len + a] != 0;
		}
		if (dmd_cost_dense_add(b, x->step,
				dmd_cost_slowest(m->job, axes), id, bytes) < 0)
			r = -1;
	}
	for (d = 0; cnt && d < nd; ++d)
		isl_pw_aff_free(cnt[d]);
	free(cnt);
	isl_space_free(dom);
	return r < 0 ? -1 : 0;
}

/* The receives of point-to-point pieces "p" of transfer "x": for each
 * time point and peer offset, the ranks that receive a box that is not
 * empty from the peer at that offset (its combed elements, if it has
 * combs).  On a mesh of at most DMD_COST_MAX_RUN_RANKS ranks the points
 * (c, t, o) are enumerated first and the events (t, o) read from them
 * (projecting the ranks out of the set instead gives many pieces with
 * divisions, slow to count and enumerate); beyond DMD_COST_DENSE_EVENTS
 * events the receives are then counted rank by rank from those points.
 * Else the events are the points of the set with the ranks projected
 * out. */
static int dmd_cost_p2p(struct dmd_cost_build *b, const struct dmd_xfer *x,
	const struct dmd_p2p *p)
{
	const struct dmd_model *m = b->m;
	struct dmd_cost_points pts, cpts;
	isl_space *space = isl_set_get_space(p->recv_dom);
	int len = x->level + 1, np = m->mesh->n, d, a;
	long i;

	if (dmd_cost_p2p_points(m, x, p, &cpts)) {
		d = dmd_cost_events_of(&cpts, np, &pts);
		if (d == 0 && pts.count > DMD_COST_DENSE_EVENTS)
			d = dmd_cost_p2p_ranks(b, x, p, &cpts) < 0 ? -1 : 1;
		free(cpts.v);
	} else if (dmd_cost_enumerate(dmd_cost_offsets(m, p->recv_dom, len),
			&pts) < 0) {
		free(pts.v);
		isl_space_free(space);
		dmd_cost_fail(b, "too many time points and peers", x->step,
			x->tensor);
		return -1;
	} else {
		d = 0;
	}
	if (d != 0) {
		free(pts.v);
		isl_space_free(space);
		if (d < 0)
			dmd_cost_fail(b, "the receives of a rank cannot be "
				"counted", x->step, x->tensor);
		return d < 0 ? -1 : 0;
	}
	for (i = 0; i < pts.count && !b->failed; ++i) {
		const long *v = pts.v + i * (pts.n + 1);
		int axes[DMD_MAX_AXES] = { 0 };
		isl_multi_aff *ma = dmd_cost_point(m, space, v, len, v + len);
		isl_pw_aff **ext, *w;
		isl_set *r, *pos;

		for (a = 0; a < np; ++a)
			axes[a] = v[len + a] != 0;
		ext = calloc(p->recv.n + 1, sizeof(*ext));
		for (d = 0; ext && d < p->recv.n; ++d) {
			isl_pw_aff *cnt = dmd_part_comb_count(&p->recv, d);

			ext[d] = dmd_cost_at(cnt, ma);
			isl_pw_aff_free(cnt);
		}
		r = dmd_cost_holds(p->recv_dom, ma);
		w = ext ? dmd_cost_box_bytes(b, p->recv.n, ext, &pos) : NULL;
		free(ext);
		isl_multi_aff_free(ma);
		if (!w) {
			isl_set_free(r);
			isl_set_free(pos);
			dmd_cost_fail(b, "a box whose size is not a piecewise "
				"affine function of the coordinates", x->step,
				x->tensor);
			break;
		}
		dmd_cost_receive(b, x->step, w, isl_set_intersect(r, pos),
			dmd_cost_slowest(m->job, axes));
	}
	free(pts.v);
	isl_space_free(space);
	return b->failed ? -1 : 0;
}

/* The receives of transfer "x". */
static int dmd_cost_xfer(struct dmd_cost_build *b, const struct dmd_xfer *x)
{
	switch (x->kind) {
	case DMD_XFER_LOCAL:
		return 0;
	case DMD_XFER_BCAST:
		return dmd_cost_bcast(b, x);
	case DMD_XFER_SHIFT:
		if (!x->first_local && dmd_cost_p2p(b, x, x->first) < 0)
			return -1;
		return dmd_cost_shift(b, x);
	case DMD_XFER_P2P:
	case DMD_XFER_RETURN:
		return dmd_cost_p2p(b, x, x->p2p);
	}
	return -1;
}

/* The number of iterations of "set" ([c] -> { S[i] }) on each rank, a
 * pw_aff over the parameters: the sum over its disjoint pieces, each a
 * box on every rank, of the product of the box's extents.  NULL if a
 * piece is not a box or its count is not a pw_aff. */
struct dmd_cost_iter {
	const struct dmd_model *m;
	isl_pw_aff *n;
	int bad;
};

static isl_stat dmd_cost_iter_piece(__isl_take isl_basic_set *bs, void *user)
{
	struct dmd_cost_iter *it = user;
	const struct dmd_model *m = it->m;
	isl_set *set = isl_set_from_basic_set(bs), *box;
	isl_pw_aff **lo, **ext, *cnt;
	isl_size n = isl_set_dim(set, isl_dim_set);
	int d, eq;

	lo = calloc(n + 1, sizeof(*lo));
	ext = calloc(n + 1, sizeof(*ext));
	if (n < 0 || !lo || !ext || (n > 0 &&
	    dmd_isl_set_box(set, lo, ext) < 0)) {
		it->bad = 1;
		goto done;
	}
	if (n > 0) {
		isl_space *sp = isl_set_get_space(set);

		box = isl_map_range(dmd_isl_box_map(sp, n, lo, ext));
		isl_space_free(sp);
	} else
		box = isl_set_copy(set);
	box = isl_set_intersect_params(box, isl_set_params(
		isl_set_copy(set)));
	/* "set" lies in its box hull: a box if the hull lies in it (half
	 * the work of isl_set_is_equal, which checks both) */
	eq = dmd_isl_bool(isl_set_is_subset(box, set));
	isl_set_free(box);
	if (eq != 1) {
		it->bad = 1;
		goto done;
	}
	cnt = isl_pw_aff_val_on_domain(isl_set_params(isl_set_copy(set)),
		isl_val_one(m->ctx));
	for (d = 0; d < n && cnt; ++d) {
		cnt = dmd_cost_mul(m, cnt, ext[d]);
		ext[d] = NULL;
	}
	if (!cnt) {
		dmd_cost_reset_error(m->ctx);
		it->bad = 1;
		goto done;
	}
	dmd_cost_add(&it->n, dmd_cost_on(m, cnt, isl_set_params(
		isl_set_copy(set))));
done:
	for (d = 0; lo && ext && d < n; ++d) {
		isl_pw_aff_free(lo[d]);
		isl_pw_aff_free(ext[d]);
	}
	free(lo);
	free(ext);
	isl_set_free(set);
	return it->bad ? isl_stat_error : isl_stat_ok;
}

/* Whether index variable "k" of "dom" ([c] -> { S[i] }) runs over the
 * local coordinate of cyclic dimension "d" of "lay" in access "idx" (in
 * local coordinates, see dmd_model.h): v_d(i_k) = idx_d on "dom". */
static int dmd_cost_is_local(const struct dmd_layout *lay, int d, int k,
	__isl_keep isl_multi_aff *idx, __isl_keep isl_set *dom)
{
	isl_local_space *ls;
	isl_aff *f1;
	isl_set *eq;
	int ok;

	ls = isl_local_space_from_space(isl_set_get_space(dom));
	f1 = dmd_layout_local_aff(lay, d, isl_aff_var_on_domain(ls,
		isl_dim_set, k));
	eq = isl_aff_eq_set(f1, isl_multi_aff_get_aff(idx, d));
	ok = dmd_isl_bool(isl_set_is_subset(dom, eq));
	isl_set_free(eq);
	return ok;
}

/* The iterations "dom" ([c] -> { S[i] }) of step "p" in local
 * coordinates: each index variable i_k that an access of "p" uses as the
 * index of a cyclic dimension d (v_d(i_k) is the access's local index on
 * every iteration) replaced by v_d(i_k), as specialize runs the loops
 * (dmd_spec_local_loops).  v_d is injective on the tensor's elements, so
 * a rank's iterations keep their number, and its blocks one after
 * another become a box: for S = 2, B = 2, Lmax = 6, the rows
 * { i : 0 <= i < 10 and floor(i/2) mod 2 = 1 } of a holder become
 * { v : 6 <= v < 10 }.  "dom" itself when no layout is cyclic. */
static __isl_give isl_set *dmd_cost_local_dom(const struct dmd_model *m,
	const struct dmd_poly *p, int n_acc, __isl_take isl_set *dom)
{
	isl_local_space *ls;
	isl_multi_aff *ma;
	isl_size n = isl_set_dim(dom, isl_dim_set);
	int k, a, d, changed = 0, done;

	if (n < 0)
		return isl_set_free(dom);
	ls = isl_local_space_from_space(isl_set_get_space(dom));
	ma = isl_multi_aff_identity(isl_space_map_from_set(
		isl_set_get_space(dom)));
	for (k = 0; ma && k < n; ++k) {
		done = 0;
		for (a = 0; ma && !done && a < n_acc; ++a) {
			const struct dmd_layout *lay =
				m->lay[p->acc[a].tensor];

			if (!lay || !lay->local)
				continue;
			for (d = 0; ma && !done && d < lay->ndim; ++d) {
				int ok;

				if (!lay->cyc[d])
					continue;
				ok = dmd_cost_is_local(lay, d, k,
					p->acc[a].idx, dom);
				if (ok < 0)
					ma = isl_multi_aff_free(ma);
				if (ok != 1)
					continue;
				ma = isl_multi_aff_set_aff(ma, k,
					dmd_layout_local_aff(lay, d,
						isl_aff_var_on_domain(
						isl_local_space_copy(ls),
						isl_dim_set, k)));
				done = changed = 1;
			}
		}
	}
	isl_local_space_free(ls);
	if (!ma)
		return isl_set_free(dom);
	if (!changed) {
		isl_multi_aff_free(ma);
		return dom;
	}
	dom = isl_set_apply(dom, isl_map_from_multi_aff(ma));
	dom = isl_set_detect_equalities(dom);
	return isl_set_coalesce(dom);
}

/* The number of iterations of "dom" ([c] -> { S[i] }) on each rank
 * (dmd_cost_iter_piece), NULL if a piece is not a box. */
static __isl_give isl_pw_aff *dmd_cost_iters_boxes(const struct dmd_model *m,
	__isl_take isl_set *dom)
{
	struct dmd_cost_iter it = { m, NULL, 0 };

	it.n = dmd_cost_cst(m, isl_val_zero(m->ctx));
	dom = isl_set_make_disjoint(dom);
	if (!dom || isl_set_foreach_basic_set(dom, &dmd_cost_iter_piece,
			&it) < 0 || it.bad)
		it.n = isl_pw_aff_free(it.n);
	isl_set_free(dom);
	return it.n;
}

/* The points of "vals" (a set [v] without parameters) whose neighbour
 * v + "dir" is not among them: the first points of its runs (dir -1)
 * or their last ones (dir 1), sorted, into *pts (-1 if too many).
 * E.g. for { [v] : 0 <= v <= 6 or 8 <= v <= 11 }, dir -1: 0, 8. */
static int dmd_cost_run_ends(__isl_keep isl_set *vals, int dir,
	struct dmd_cost_points *pts)
{
	isl_space *sp = isl_set_get_space(vals);
	isl_set *shifted, *ends;
	long j;

	shifted = isl_set_apply(isl_set_copy(vals), isl_map_from_aff(
		isl_aff_add_constant_si(isl_aff_var_on_domain(
		isl_local_space_from_space(sp), isl_dim_set, 0), -dir)));
	ends = isl_set_subtract(isl_set_copy(vals), shifted);
	if (dmd_cost_enumerate(ends, pts) < 0)
		return -1;
	/* one coordinate per point (pts->v holds n + 1 longs a point) */
	for (j = 0; j < pts->count; ++j)
		pts->v[j] = pts->v[j * (pts->n + 1)];
	qsort(pts->v, pts->count, sizeof(long), &dmd_cost_long_cmp);
	return 0;
}

/* The iterations of "dom" ([c] -> { S[i] }) cut along dimension "i" at
 * the gaps of the values any rank takes there, counted run by run
 * (dmd_cost_iters_boxes): in local coordinates a holder that holds
 * fewer than Lmax elements of a cyclic dimension leaves a gap before
 * the next holder's (blocks of 4 over 2 holders of 11 rows: v in
 * { 0 .. 6, 8 .. 11 }), so a rank's iterations over that variable
 * are a box on each run, not on their union.  The runs are found from
 * their first and last points (dmd_cost_run_ends: one pair a run, at
 * most one run a holder), not by enumerating the values.  NULL if
 * there are too many runs or a run is not a union of boxes. */
static __isl_give isl_pw_aff *dmd_cost_iters_runs(const struct dmd_model *m,
	__isl_keep isl_set *dom, int i)
{
	struct dmd_cost_points first, last;
	isl_pw_aff *n = NULL;
	isl_size nd = isl_set_dim(dom, isl_dim_set);
	isl_set *vals;
	long j;

	if (nd < 0)
		return NULL;
	vals = isl_set_project_out(isl_set_copy(dom), isl_dim_set, i + 1,
		nd - i - 1);
	vals = isl_set_project_out(vals, isl_dim_set, 0, i);
	vals = isl_set_coalesce(isl_set_project_out_all_params(vals));
	first.v = last.v = NULL;
	if (isl_set_is_bounded(vals) != isl_bool_true ||
	    dmd_cost_run_ends(vals, -1, &first) < 0 ||
	    dmd_cost_run_ends(vals, 1, &last) < 0 ||
	    first.count == 0 || first.count != last.count)
		goto done;
	for (j = 0; j < first.count; ++j) {
		isl_set *run;
		isl_pw_aff *c;

		run = isl_set_lower_bound_si(isl_set_copy(dom), isl_dim_set,
			i, first.v[j]);
		run = isl_set_upper_bound_si(run, isl_dim_set, i, last.v[j]);
		c = dmd_cost_iters_boxes(m, run);
		if (!c) {
			n = isl_pw_aff_free(n);
			break;
		}
		n = n ? isl_pw_aff_add(n, c) : c;
	}
done:
	isl_set_free(vals);
	free(first.v);
	free(last.v);
	return n;
}

/* The number of iterations of "dom" ([c] -> { S[i] }) on each rank:
 * its pieces as boxes (dmd_cost_iters_boxes), else cut into runs along
 * one of its dimensions (dmd_cost_iters_runs).  NULL if neither
 * counts. */
static __isl_give isl_pw_aff *dmd_cost_iters(const struct dmd_model *m,
	__isl_take isl_set *dom)
{
	isl_pw_aff *n = dmd_cost_iters_boxes(m, isl_set_copy(dom));
	isl_size nd = isl_set_dim(dom, isl_dim_set);
	int i;

	for (i = 0; !n && i < nd; ++i) {
		dmd_cost_reset_error(m->ctx);
		n = dmd_cost_iters_runs(m, dom, i);
	}
	isl_set_free(dom);
	return n;
}

/* The flops of step "s" on every rank: its iterations counted as they
 * are, else with the index variables of the output's cyclic dimensions
 * in local coordinates, else with those of every access's
 * (dmd_cost_local_dom): a rank's iterations over a block output that
 * reads a cyclic tensor are already boxes, those over a cyclic output
 * are boxes in its local coordinates. */
static int dmd_cost_flops(struct dmd_cost_build *b, int s)
{
	const struct dmd_model *m = b->m;
	const struct dmd_poly *p = m->poly[s];
	isl_pw_aff *n = NULL;
	isl_set *dom;
	long ops;
	int k;

	dom = isl_map_domain(isl_map_copy(p->rsched));
	dom = isl_set_intersect_params(dom, isl_set_copy(m->mesh->set));
	for (k = 0; dom && !n && k < 3; ++k) {
		isl_set *d = isl_set_copy(dom);

		if (k > 0)
			d = dmd_cost_local_dom(m, p, k == 1 ? 1 : p->n_acc, d);
		n = dmd_cost_iters(m, d);
	}
	isl_set_free(dom);
	if (!n) {
		dmd_cost_fail(b, "the iterations of a rank are not a union "
			"of boxes", s, -1);
		return -1;
	}
	ops = dmd_poly_ops(p);
	b->acc[s].flops = isl_pw_aff_scale_val(n,
		isl_val_int_from_si(m->ctx, ops));
	dmd_cost_add(&b->acc[s].time, isl_pw_aff_scale_val(
		isl_pw_aff_copy(b->acc[s].flops), dmd_cost_int(m->ctx,
		1e6 / DMD_COST_GFLOPS)));
	return 0;
}

/* What dmd_cost_count needs. */
struct dmd_cost_count_data {
	const struct dmd_model *m;
	isl_val *n;
	int bad;
	int enumerated;
};

/* The number of points of the 1-D or general set "set" (no parameters),
 * by enumeration (bounded). */
static __isl_give isl_val *dmd_cost_count_points(__isl_take isl_set *set)
{
	isl_val *v;

	if (isl_set_is_bounded(set) != isl_bool_true) {
		isl_set_free(set);
		return NULL;
	}
	v = isl_set_count_val(set);
	isl_set_free(set);
	return v;
}

/* Add the number of ranks of basic set "bs" (over R[r]): the product of
 * its extents if it is a box, of its per-axis counts if it is the
 * product of its shadows, else by enumerating it. */
static isl_stat dmd_cost_count_basic(__isl_take isl_basic_set *bs,
	void *user)
{
	struct dmd_cost_count_data *d = user;
	isl_set *set = isl_set_reset_tuple_id(isl_set_from_basic_set(bs));
	isl_set *prod;
	isl_set **sh;
	isl_val *c = NULL;
	int n = d->m->mesh->n, i, r;
	long total = 1;

	sh = calloc(n + 1, sizeof(*sh));
	if (!sh) {
		d->bad = 1;
		isl_set_free(set);
		return isl_stat_error;
	}
	prod = isl_set_universe(isl_set_get_space(set));
	for (i = 0; i < n; ++i) {
		sh[i] = isl_set_copy(set);
		if (i + 1 < n)
			sh[i] = isl_set_project_out(sh[i], isl_dim_set, i + 1,
				n - i - 1);
		sh[i] = isl_set_project_out(sh[i], isl_dim_set, 0, i);
		prod = isl_set_intersect(prod, isl_set_add_dims(
			isl_set_insert_dims(isl_set_copy(sh[i]), isl_dim_set,
			0, i), isl_dim_set, n - i - 1));
		prod = isl_set_coalesce(prod);
	}
	r = dmd_isl_bool(isl_set_is_subset(prod, set));
	isl_set_free(prod);
	if (r == 1) {
		/* a product: count axis by axis (at most an extent each) */
		c = isl_val_one(d->m->ctx);
		for (i = 0; i < n && c; ++i) {
			isl_val *k = dmd_cost_count_points(isl_set_copy(
				sh[i]));

			c = k ? isl_val_mul(c, k) : isl_val_free(c);
		}
	} else if (r == 0) {
		for (i = 0; i < n; ++i)
			total *= d->m->mesh->shape[i];
		if (total <= DMD_COST_MAX_POINTS) {
			c = dmd_cost_count_points(isl_set_copy(set));
			d->enumerated = 1;
		}
	}
	for (i = 0; i < n; ++i)
		isl_set_free(sh[i]);
	free(sh);
	isl_set_free(set);
	if (!c) {
		d->bad = 1;
		return isl_stat_error;
	}
	d->n = isl_val_add(d->n, c);
	return isl_stat_ok;
}

/* The number of ranks of "set" (over the parameters), NULL if it cannot
 * be counted. */
static __isl_give isl_val *dmd_cost_count(const struct dmd_model *m,
	__isl_take isl_set *set)
{
	struct dmd_cost_count_data d = { m, NULL, 0, 0 };
	isl_set *s;

	d.n = isl_val_zero(m->ctx);
	s = isl_set_intersect_params(set, isl_set_copy(m->mesh->set));
	s = isl_set_unbind_params(s, isl_multi_id_copy(m->mesh->ids));
	s = isl_set_make_disjoint(isl_set_coalesce(s));
	if (!s || isl_set_foreach_basic_set(s, &dmd_cost_count_basic, &d) < 0
	    || d.bad)
		d.n = isl_val_free(d.n);
	isl_set_free(s);
	return d.n;
}

/* What dmd_cost_sum needs. */
struct dmd_cost_sum_data {
	const struct dmd_model *m;
	isl_val *sum;
	int bad;
};

/* Add the value of one piece of a per-rank quantity times its ranks. */
static isl_stat dmd_cost_sum_piece(__isl_take isl_set *set,
	__isl_take isl_aff *aff, void *user)
{
	struct dmd_cost_sum_data *d = user;
	isl_val *v, *c;

	if (isl_aff_is_cst(aff) != isl_bool_true) {
		/* a value that varies over the ranks of the piece: each of
		 * its values on its own ranks (the values are enumerated) */
		isl_pw_aff *pa = isl_pw_aff_alloc(set, aff);
		struct dmd_cost_points pts;
		isl_set *g;
		int np = d->m->mesh->n;
		long i;

		g = isl_map_wrap(isl_set_unbind_params_insert_domain(
			isl_set_from_pw_aff(pa),
			isl_multi_id_copy(d->m->mesh->ids)));
		g = isl_set_flatten(g);
		if (dmd_cost_enumerate(isl_set_project_out(isl_set_copy(g),
				isl_dim_set, 0, np), &pts) < 0) {
			free(pts.v);
			isl_set_free(g);
			d->bad = 1;
			return isl_stat_error;
		}
		for (i = 0; i < pts.count; ++i) {
			isl_set *r = isl_set_fix_si(isl_set_copy(g),
				isl_dim_set, np, pts.v[i * 2]);

			r = isl_set_project_out(r, isl_dim_set, np, 1);
			r = isl_set_set_tuple_name(r, "R");
			r = isl_set_bind(r, isl_multi_id_copy(
				d->m->mesh->ids));
			c = dmd_cost_count(d->m, r);
			if (!c) {
				d->bad = 1;
				break;
			}
			d->sum = isl_val_add(d->sum, isl_val_mul(c,
				isl_val_int_from_si(d->m->ctx, pts.v[i * 2])));
		}
		free(pts.v);
		isl_set_free(g);
		return d->bad ? isl_stat_error : isl_stat_ok;
	}
	v = isl_aff_get_constant_val(aff);
	isl_aff_free(aff);
	if (isl_val_is_zero(v)) {
		isl_val_free(v);
		isl_set_free(set);
		return isl_stat_ok;
	}
	c = dmd_cost_count(d->m, set);
	if (!c) {
		isl_val_free(v);
		d->bad = 1;
		return isl_stat_error;
	}
	d->sum = isl_val_add(d->sum, isl_val_mul(v, c));
	return isl_stat_ok;
}

/* The sum over the ranks of the per-rank quantity "pa" (taken), as a
 * long long; -1 if it cannot be counted. */
static long long dmd_cost_sum(const struct dmd_model *m,
	__isl_take isl_pw_aff *pa)
{
	struct dmd_cost_sum_data d = { m, NULL, 0 };
	long long r = -1;

	d.sum = isl_val_zero(m->ctx);
	pa = isl_pw_aff_coalesce(pa);
	if (!pa || isl_pw_aff_foreach_piece(pa, &dmd_cost_sum_piece, &d) < 0
	    || d.bad)
		d.sum = isl_val_free(d.sum);
	isl_pw_aff_free(pa);
	if (d.sum && isl_val_is_int(d.sum))
		r = isl_val_get_num_si(d.sum);
	isl_val_free(d.sum);
	return r;
}

/* The largest value of the per-rank quantity "pa" (taken) over the
 * mesh, as a double (0 if none, NaN on error). */
static double dmd_cost_max(__isl_take isl_pw_aff *pa)
{
	isl_val *v;
	double r;

	if (isl_pw_aff_is_empty(pa) == isl_bool_true) {
		isl_pw_aff_free(pa);
		return 0;
	}
	v = dmd_isl_opt_val(pa, 1);
	r = v && isl_val_is_rat(v) ? isl_val_get_d(v) : NAN;
	isl_val_free(v);
	return r;
}

/* The memory of the home buffer of tensor "t" on "cell", in bytes. */
static long long dmd_cost_home(const struct dmd_plan *plan, int t,
	__isl_keep isl_set *cell, long esize)
{
	const struct dmd_layout *lay = plan->m->lay[t];
	long long n = esize;
	int d;

	for (d = 0; d < lay->ndim; ++d) {
		long e = dmd_isl_max(plan->home[t].ext[d], cell);

		if (e < 0)
			return -1;
		n *= e;
	}
	return n;
}

/* The memory of the buffers of transfer "x" on "cell", in bytes: none
 * for ghost cells (the home buffer holds them), two for a transfer at a
 * time loop (double buffering), else one, each as large as the largest
 * box over the cell. */
static long long dmd_cost_buffers(const struct dmd_xfer *x,
	__isl_keep isl_set *cell, long esize)
{
	long long n = esize;
	int d;

	if (x->ghost)
		return 0;
	for (d = 0; d < x->box.n; ++d) {
		long e = dmd_isl_max(x->box.ext[d], cell);

		if (e < 0)
			return -1;
		n *= e;
	}
	return x->level >= 0 ? 2 * n : n;
}

/* The first rank of "cell". */
static long dmd_cost_first_rank(const struct dmd_model *m,
	__isl_keep isl_set *cell)
{
	isl_set *s;
	long r = 0;
	int i;

	s = isl_set_intersect_params(isl_set_copy(cell),
		isl_set_copy(m->mesh->set));
	s = isl_set_lexmin(isl_set_unbind_params(s,
		isl_multi_id_copy(m->mesh->ids)));
	for (i = 0; i < m->mesh->n; ++i) {
		isl_val *v = isl_set_plain_get_val_if_fixed(s, isl_dim_set, i);

		r = r * m->mesh->shape[i] + (v ? isl_val_get_num_si(v) : 0);
		isl_val_free(v);
	}
	isl_set_free(s);
	return r;
}

/* The memory per cell: of the whole program (cost->total) and of each
 * step (its tensors' home buffers and its transfers' buffers), the
 * largest over the cells and a rank that needs it. */
int dmd_part_cost_memory(const struct dmd_plan *plan,
	const struct dmd_cells *cells, struct dmd_cost *cost)
{
	const struct dmd_model *m = plan->m;
	long esize = m->job->dtype == DMD_F64 ? 8 : 4;
	int c, t, s, i, a;

	for (c = 0; c < cells->n; ++c) {
		isl_set *cell = cells->cell[c].set;
		long long total = 0, *step;
		long rank = -1;

		step = calloc(plan->n_step + 1, sizeof(*step));
		if (!step)
			return -1;
		for (t = 0; t < m->job->n_tensors; ++t) {
			long long h;

			if (!m->use[t].used)
				continue;
			h = dmd_cost_home(plan, t, cell, esize);
			if (h < 0) {
				free(step);
				return -1;
			}
			total += h;
			for (s = 0; s < plan->n_step; ++s) {
				const struct dmd_poly *p = m->poly[s];

				for (a = 0; a < p->n_acc; ++a)
					if (p->acc[a].tensor == t)
						break;
				if (a < p->n_acc)
					step[s] += h;
			}
		}
		for (i = 0; i < plan->n_xfer; ++i) {
			const struct dmd_xfer *x = plan->xfer[i];
			long long n = dmd_cost_buffers(x, cell, esize);

			if (n < 0) {
				free(step);
				return -1;
			}
			total += n;
			step[x->step] += n;
		}
		if (total > cost->total.mem_max || cost->total.mem_rank < 0) {
			rank = dmd_cost_first_rank(m, cell);
			cost->total.mem_max = total;
			cost->total.mem_rank = rank;
		}
		for (s = 0; s < plan->n_step; ++s) {
			struct dmd_cost_figs *f = &cost->step[s];

			if (step[s] > f->mem_max || f->mem_rank < 0) {
				f->mem_max = step[s];
				f->mem_rank = rank >= 0 ? rank :
					dmd_cost_first_rank(m, cell);
			}
		}
		free(step);
	}
	return 0;
}

/* Release "cost"; returns NULL. */
struct dmd_cost *dmd_part_cost_free(struct dmd_cost *cost)
{
	if (!cost)
		return NULL;
	free(cost->step);
	free(cost);
	return NULL;
}

/* A new cost of "n_step" steps, every figure 0 (no rank yet). */
static struct dmd_cost *dmd_cost_alloc(int n_step)
{
	struct dmd_cost *cost = calloc(1, sizeof(*cost));
	int s;

	if (!cost)
		return NULL;
	cost->n_step = n_step;
	cost->step = calloc(n_step + 1, sizeof(*cost->step));
	if (!cost->step)
		return dmd_part_cost_free(cost);
	cost->total.mem_rank = -1;
	for (s = 0; s < n_step; ++s)
		cost->step[s].mem_rank = -1;
	return cost;
}

/* The memory of "plan" per rank, over the cells of its classes (see
 * dmd_part_cost_memory); no traffic. */
struct dmd_cost *dmd_part_cost_mem(const struct dmd_plan *plan,
	const struct dmd_cells *cells)
{
	struct dmd_cost *cost = dmd_cost_alloc(plan->n_step);

	if (cost && dmd_part_cost_memory(plan, cells, cost) < 0)
		return dmd_part_cost_free(cost);
	return cost;
}

/* The cost of "plan" (see the top of this file); "cells" are the cells
 * of its rank classes (for the memory).  NULL after a message if some
 * figure cannot be counted exactly. */
struct dmd_cost *dmd_part_cost(const struct dmd_plan *plan,
	const struct dmd_cells *cells)
{
	const struct dmd_model *m = plan->m;
	struct dmd_cost_build b = { plan, m, 0, NULL, 0 };
	struct dmd_cost *cost;
	isl_pw_aff *all;
	double mx;
	int s, i, r = 0;

	b.esize = m->job->dtype == DMD_F64 ? 8 : 4;
	cost = dmd_cost_alloc(plan->n_step);
	b.acc = calloc(plan->n_step + 1, sizeof(*b.acc));
	if (!cost || !b.acc)
		goto error;
	for (s = 0; s < plan->n_step; ++s) {
		b.acc[s].bytes = dmd_cost_cst(m, isl_val_zero(m->ctx));
		b.acc[s].msgs = dmd_cost_cst(m, isl_val_zero(m->ctx));
		b.acc[s].time = dmd_cost_cst(m, isl_val_zero(m->ctx));
	}
	for (i = 0; r == 0 && i < plan->n_xfer; ++i)
		r = dmd_cost_xfer(&b, plan->xfer[i]);
	for (s = 0; r == 0 && s < plan->n_step; ++s)
		dmd_cost_price(m, &b.acc[s]);
	for (s = 0; r == 0 && s < plan->n_step; ++s)
		r = dmd_cost_flops(&b, s);
	if (r < 0)
		goto error;
	all = dmd_cost_cst(m, isl_val_zero(m->ctx));
	for (s = 0; s < plan->n_step; ++s) {
		struct dmd_cost_figs *f = &cost->step[s];
		long runs = dmd_model_step_count(m, s);
		long long by, ms;
		double mx[3];

		by = dmd_cost_sum(m, isl_pw_aff_copy(b.acc[s].bytes));
		ms = dmd_cost_sum(m, isl_pw_aff_copy(b.acc[s].msgs));
		if (by < 0 || ms < 0) {
			isl_pw_aff_free(all);
			dmd_cost_fail(&b, "the ranks of a piece cannot be "
				"counted", s, -1);
			goto error;
		}
		f->bytes_moved_total = by * runs;
		f->messages = ms * runs;
		mx[0] = dmd_cost_max(isl_pw_aff_copy(b.acc[s].bytes));
		mx[1] = dmd_cost_max(isl_pw_aff_copy(b.acc[s].flops));
		mx[2] = dmd_cost_max(isl_pw_aff_copy(b.acc[s].time));
		if (isnan(mx[0]) || isnan(mx[1]) || isnan(mx[2])) {
			isl_pw_aff_free(all);
			goto error;
		}
		f->bytes_recv_max = (long long) llround(mx[0]) * runs;
		f->flops_max = (long long) llround(mx[1]) * runs;
		f->time_s = mx[2] * 1e-15 * runs;
		all = isl_pw_aff_add(all, isl_pw_aff_scale_val(
			isl_pw_aff_copy(b.acc[s].bytes),
			isl_val_int_from_si(m->ctx, runs)));
		all = isl_pw_aff_coalesce(all);
		cost->total.bytes_moved_total += f->bytes_moved_total;
		cost->total.messages += f->messages;
		cost->total.time_s += f->time_s;
		if (f->flops_max > cost->total.flops_max)
			cost->total.flops_max = f->flops_max;
	}
	mx = dmd_cost_max(all);
	if (isnan(mx))
		goto error;
	cost->total.bytes_recv_max = (long long) llround(mx);
	if (cells && dmd_part_cost_memory(plan, cells, cost) < 0)
		goto error;
	for (s = 0; s < plan->n_step; ++s)
		dmd_cost_acc_clear(&b.acc[s]);
	free(b.acc);
	return cost;
error:
	for (s = 0; b.acc && s < plan->n_step; ++s)
		dmd_cost_acc_clear(&b.acc[s]);
	free(b.acc);
	if (!b.failed) {
		struct dmd_loc none = { 0, 0 };

		dmd_job_error(m->job, none, "internal error: the cost of this "
			"job cannot be computed (please report it)");
	}
	return dmd_part_cost_free(cost);
}

/* The cost of "plan" with the memory of the busiest rank over the mesh
 * (see the header): dmd_part_cost and dmd_part_cost_memory on one cell,
 * the mesh. */
struct dmd_cost *dmd_part_cost_mesh(const struct dmd_plan *plan)
{
	struct dmd_cell cell = { plan->m->mesh->set };
	struct dmd_cells one = { 1, &cell };
	struct dmd_cost *cost = dmd_part_cost(plan, NULL);

	if (cost && dmd_part_cost_memory(plan, &one, cost) < 0)
		cost = dmd_part_cost_free(cost);
	return cost;
}

/* The cost of "plan" with the memory over "cells" (see the header), from
 * "traffic", its cost as dmd_part_cost_mesh gave it: a copy whose memory
 * is counted again over "cells" (NULL: kept, over the mesh). */
struct dmd_cost *dmd_part_cost_recount(const struct dmd_cost *traffic,
	const struct dmd_plan *plan, const struct dmd_cells *cells)
{
	struct dmd_cost *cost;
	int s;

	if (!traffic || traffic->n_step != plan->n_step)
		return NULL;
	cost = dmd_cost_alloc(plan->n_step);
	if (!cost)
		return NULL;
	cost->total = traffic->total;
	for (s = 0; s < plan->n_step; ++s)
		cost->step[s] = traffic->step[s];
	if (!cells)
		return cost;
	cost->total.mem_max = 0;
	cost->total.mem_rank = -1;
	for (s = 0; s < plan->n_step; ++s) {
		cost->step[s].mem_max = 0;
		cost->step[s].mem_rank = -1;
	}
	if (dmd_part_cost_memory(plan, cells, cost) < 0)
		return dmd_part_cost_free(cost);
	return cost;
}
