/* dmd_rt_xfer.c: boxes, the datatype cache, transfers and local copies.
 *
 * A box (lo[], cnt[] in a buffer of extents bx[]) is described to MPI as
 * the address of its first element plus either a plain count (the box is
 * one contiguous stretch of memory) or one item of a derived datatype with
 * origin 0.  The datatype depends only on the box's "levels": the
 * (count, stride) pairs that remain after dropping extents of 1 and
 * merging dimensions that continue each other in memory.  Each distinct
 * list of levels is created once (nested MPI_Type_create_hvector) and
 * kept in a small hash table until dmd_finish: a transfer that repeats
 * every time step creates no new type.
 *
 * Plain counts are MPI_Count: a contiguous box may have more than
 * INT_MAX elements (MPI 4's large-count calls, or derived types with
 * MPI 3: dmd_rt_mpi.c).  Derived types use int counts per level (see
 * dmd_rt_make_type).
 *
 * A strided box (one that needs a derived datatype) is not given to MPI
 * as such: with MPICH 4 over shared memory, a message of a derived
 * datatype moves many times slower than a contiguous one (32 rows of
 * 16384 doubles between 4 ranks: 0.43 s against 0.07 s packed by hand,
 * bench note in doc/design-notes.md), so the runtime packs a strided box
 * into a contiguous staging buffer when it posts a send and receives a
 * strided box into one that dmd_wait unpacks (struct dmd_rt_sum).  The
 * derived datatypes serve the file views of MPI-IO (dmd_rt_io.c).
 * A combed box (dmd_irecv_comb, dmd_isend_comb: along each dimension
 * only the elements of a periodic run pattern, the pieces of a block
 * to block-cyclic redistribution; dmd_irecv_combs, dmd_isend_combs:
 * several runs per period, between block-cyclic layouts of other
 * blocks) always travels packed the same way, its runs along the last
 * dimension copied one by one.
 *
 * Transfers: each dmd_req collects the MPI requests posted on it since its
 * last dmd_wait; a request with posted operations is "in flight" and is
 * listed in rt->inflight, so that dmd_gemm can let MPI progress on it.
 * Bytes and messages are counted at post time, on the receiver, for
 * non-empty boxes from other ranks only.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"

/* Write the levels of a box of extents cnt[] in a buffer of extents bx[]
 * into count[] and stride[] (in elements, innermost first) and return
 * their number: dimensions of extent 1 are dropped, and a dimension whose
 * stride is the span of the level inside it is merged into that level.
 * 0 levels: a single element; 1 level of stride 1: a contiguous stretch.
 */
static int dmd_rt_levels(int ndim, const int64_t *bx, const int64_t *cnt,
	int64_t *count, int64_t *stride)
{
	int64_t s = 1;
	int i, n = 0;

	for (i = ndim - 1; i >= 0; --i) {
		if (cnt[i] != 1) {
			if (n > 0 && stride[n - 1] * count[n - 1] == s) {
				count[n - 1] *= cnt[i];
			} else {
				count[n] = cnt[i];
				stride[n] = s;
				n++;
			}
		}
		s *= bx[i];
	}
	return n;
}

/* A hash of the levels (FNV-1a over their values). */
static unsigned dmd_rt_levels_hash(int n, const int64_t *count,
	const int64_t *stride)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	for (i = 0; i < n; ++i) {
		h = (h ^ (uint64_t) count[i]) * 0x100000001b3ULL;
		h = (h ^ (uint64_t) stride[i]) * 0x100000001b3ULL;
	}
	h ^= (uint64_t) n;
	return (unsigned) (h % DMD_RT_TYPE_BUCKETS);
}

/* Create and commit the datatype of "n" levels (not contiguous).  The
 * classic constructors (int counts, MPI_Aint strides) are used: ROMIO in
 * MPICH 4.0 cannot flatten large-count datatypes for MPI-IO, and these
 * types also serve as file views and memory types of file reads.
 */
static MPI_Datatype dmd_rt_make_type(dmd_rt *rt, int n,
	const int64_t *count, const int64_t *stride)
{
	MPI_Aint es = (MPI_Aint) rt->esize;
	MPI_Datatype t, next;
	int k;

	for (k = 0; k < n; ++k)
		if (count[k] > INT_MAX)
			dmd_fail(rt, "a box of %" PRId64 " elements along one "
				"dimension, strided in memory, is beyond MPI's "
				"int counts", count[k]);
	if (stride[0] == 1) {
		MPI_Type_create_hvector((int) count[1], (int) count[0],
			stride[1] * es, rt->base, &t);
		k = 2;
	} else {
		MPI_Type_create_hvector((int) count[0], 1, stride[0] * es,
			rt->base, &t);
		k = 1;
	}
	for (; k < n; ++k) {
		MPI_Type_create_hvector((int) count[k], 1, stride[k] * es, t,
			&next);
		MPI_Type_free(&t);
		t = next;
	}
	MPI_Type_commit(&t);
	return t;
}

/* The cached datatype of "n" levels, created on first use. */
static MPI_Datatype dmd_rt_cached_type(dmd_rt *rt, int n,
	const int64_t *count, const int64_t *stride)
{
	unsigned h = dmd_rt_levels_hash(n, count, stride);
	struct dmd_rt_type *e;
	size_t len = (size_t) n * sizeof(int64_t);

	for (e = rt->types[h]; e; e = e->next)
		if (e->n == n && !memcmp(e->count, count, len) &&
		    !memcmp(e->stride, stride, len))
			return e->type;
	e = dmd_rt_malloc(rt, sizeof(*e));
	e->n = n;
	memcpy(e->count, count, len);
	memcpy(e->stride, stride, len);
	e->type = dmd_rt_make_type(rt, n, count, stride);
	e->next = rt->types[h];
	rt->types[h] = e;
	rt->n_types++;
	return e->type;
}

/* Describe the box (lo, cnt) of a buffer of extents bx[] to MPI (the box
 * must have been checked).  An empty box is a count of 0; a contiguous box
 * a plain count; any other box one item of a cached derived datatype.
 */
void dmd_rt_box_get(dmd_rt *rt, int ndim, const int64_t *bx,
	const int64_t *lo, const int64_t *cnt, struct dmd_rt_box *box)
{
	int64_t count[DMD_RT_MAX_DIMS], stride[DMD_RT_MAX_DIMS];
	int i, n;

	box->nelem = dmd_rt_nelem(ndim, cnt);
	box->type = rt->base;
	box->offset = 0;
	box->count = 0;
	if (box->nelem == 0)
		return;
	for (i = 0; i < ndim; ++i)
		box->offset = box->offset * bx[i] + lo[i];
	n = dmd_rt_levels(ndim, bx, cnt, count, stride);
	if (n == 0 || (n == 1 && stride[0] == 1)) {
		box->count = box->nelem;
		return;
	}
	box->type = dmd_rt_cached_type(rt, n, count, stride);
	box->count = 1;
}

/* Free the datatype cache. */
void dmd_rt_types_free(dmd_rt *rt)
{
	int h;

	for (h = 0; h < DMD_RT_TYPE_BUCKETS; ++h) {
		struct dmd_rt_type *e = rt->types[h], *next;

		for (; e; e = next) {
			next = e->next;
			MPI_Type_free(&e->type);
			free(e);
		}
		rt->types[h] = NULL;
	}
}

/* How many derived datatypes the cache has created (for the unit test). */
int dmd_rt_debug_ntypes(const dmd_rt *rt)
{
	return rt->n_types;
}

/* Address of the first element of "box" in "buf". */
static void *dmd_rt_box_ptr(const dmd_rt *rt, const void *buf,
	const struct dmd_rt_box *box)
{
	return (char *) buf + box->offset * (int64_t) rt->esize;
}

/* Create the request of a transfer statement (owned by rt). */
dmd_req *dmd_req_new(dmd_rt *rt, int tag, int step, const char *label)
{
	dmd_req *q;
	int64_t i;
	size_t len;
	int *ub, flag = 0;

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	if (tag < 1 || tag > 32000 || (flag && tag > *ub))
		dmd_fail(rt, "transfer '%s': bad tag %d (1 .. 32000)",
			label ? label : "", tag);
	if (step < -1 || step >= rt->job->n_steps)
		dmd_fail(rt, "transfer '%s': bad step %d (the program has %d)",
			label ? label : "", step, rt->job->n_steps);
	for (i = 0; i < rt->n_reqs; ++i)
		if (rt->reqs[i]->tag == tag)
			dmd_fail(rt, "transfers '%s' and '%s' have the same "
				"tag %d", rt->reqs[i]->label,
				label ? label : "", tag);
	q = calloc(1, sizeof(*q));
	if (!q)
		dmd_fail(rt, "out of memory");
	len = label ? strlen(label) : 0;
	q->label = dmd_rt_malloc(rt, len + 1);
	memcpy(q->label, label ? label : "", len);
	q->label[len] = '\0';
	q->tag = tag;
	q->step = step;
	rt->reqs = dmd_rt_grow(rt, rt->reqs, &rt->cap_reqs, rt->n_reqs + 1,
		sizeof(*rt->reqs));
	q->id = (int) rt->n_reqs;
	rt->reqs[rt->n_reqs++] = q;
	return q;
}

/* Free every request (none is in flight). */
void dmd_rt_reqs_free(dmd_rt *rt)
{
	int64_t i, k;

	for (i = 0; i < rt->n_reqs; ++i) {
		dmd_req *q = rt->reqs[i];

		for (k = 0; k < q->n_sums; ++k)
			free(q->sums[k].tmp);
		free(q->sums);
		free(q->mreq);
		free(q->label);
		free(q);
	}
	free(rt->reqs);
	free(rt->inflight);
	rt->reqs = NULL;
	rt->inflight = NULL;
	rt->n_reqs = rt->n_inflight = 0;
}

/* A new slot for an MPI request on "q" that moves "nelem" elements; the
 * first one since the last wait puts "q" in flight.
 */
static MPI_Request *dmd_rt_slot(dmd_rt *rt, dmd_req *q, int64_t nelem)
{
	if (!q->inflight) {
		rt->inflight = dmd_rt_grow(rt, rt->inflight,
			&rt->cap_inflight, rt->n_inflight + 1,
			sizeof(*rt->inflight));
		rt->inflight[rt->n_inflight++] = q;
		q->inflight = rt->n_inflight;
		q->t_post = MPI_Wtime();
	}
	if (q->n_mreq >= INT_MAX)
		dmd_fail(rt, "transfer '%s': too many operations", q->label);
	q->mreq = dmd_rt_grow(rt, q->mreq, &q->cap_mreq, q->n_mreq + 1,
		sizeof(*q->mreq));
	q->posted += nelem * (int64_t) rt->esize;
	return &q->mreq[q->n_mreq++];
}

/* Count the receipt of "nelem" elements from another rank on "q". */
static void dmd_rt_count(dmd_rt *rt, dmd_req *q, int64_t nelem)
{
	int64_t b = nelem * (int64_t) rt->esize;

	rt->bytes_recv += b;
	rt->messages++;
	q->bytes += b;
	if (q->step >= 0) {
		rt->step_bytes[q->step] += b;
		rt->step_msgs[q->step]++;
	}
}

/* The communicator of mesh or view axis "axis" (checked; MPI_COMM_NULL
 * on a rank off the axis's view). */
static MPI_Comm dmd_rt_axis_comm(dmd_rt *rt, int axis, const char *what)
{
	if (axis < 0 || axis >= rt->n_all)
		dmd_fail(rt, "%s: bad mesh axis %d (the mesh and its views "
			"have %d)", what, axis, rt->n_all);
	return rt->axis[axis];
}

/* On a rank off the view of "axis": check that the boxes of "what" are
 * empty (the rank takes no part).  Returns 1 if the rank is off it. */
static int dmd_rt_off_view(dmd_rt *rt, dmd_req *q, MPI_Comm comm, int ndim,
	const int64_t *cnt1, const int64_t *cnt2)
{
	if (comm != MPI_COMM_NULL)
		return 0;
	if (dmd_rt_nelem(ndim, cnt1) > 0 ||
	    (cnt2 && dmd_rt_nelem(ndim, cnt2) > 0))
		dmd_fail(rt, "transfer '%s': this rank is not on the view of "
			"the transfer's axis but has a box to move", q->label);
	return 1;
}

static void dmd_rt_rows(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt,
	void (*row)(dmd_rt *rt, void *d, const void *s, int64_t n));
static void dmd_rt_row_copy(dmd_rt *rt, void *d, const void *s, int64_t n);

static char *dmd_rt_comb_dim(dmd_rt *rt, char *buf, int d, int ndim,
	const int64_t *bx, const int64_t *lo, const int64_t *cnt, int runs,
	const int64_t *comb, int64_t off, char *packed, int pack);

/* Stage the box (lo, cnt) of "buf" (extents bx[], "n" elements) on "q"
 * for dmd_wait to treat as "kind" says, only the elements its combs
 * ("runs" runs per period) let through if "comb" is not NULL; a box
 * sent is packed now.
 * Returns the staging buffer, contiguous, owned by "q".
 */
static void *dmd_rt_stage(dmd_rt *rt, dmd_req *q, enum dmd_rt_stage_kind kind,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb, int64_t n)
{
	int64_t zero[DMD_RT_MAX_DIMS] = { 0 };
	struct dmd_rt_sum *s;
	int d;

	if ((uint64_t) n > SIZE_MAX / rt->esize)
		dmd_fail(rt, "transfer '%s': box of %" PRId64 " elements is "
			"too large", q->label, n);
	q->sums = dmd_rt_grow(rt, q->sums, &q->cap_sums, q->n_sums + 1,
		sizeof(*q->sums));
	s = &q->sums[q->n_sums++];
	s->kind = kind;
	s->tmp = NULL;
	s->dbuf = (void *) buf;
	s->ndim = ndim;
	for (d = 0; d < ndim; ++d) {
		s->bx[d] = bx[d];
		s->lo[d] = lo[d];
		s->cnt[d] = cnt[d];
	}
	s->combed = comb != NULL;
	s->runs = runs;
	for (d = 0; comb && d < (1 + 2 * runs) * ndim; ++d)
		s->comb[d] = comb[d];
	s->tmp = dmd_rt_malloc(rt, (size_t) n * rt->esize);
	if (kind == DMD_RT_STAGE_SEND && comb)
		dmd_rt_comb_dim(rt, (char *) buf, 0, ndim, bx, lo, cnt, runs,
			comb, 0, s->tmp, 1);
	else if (kind == DMD_RT_STAGE_SEND)
		dmd_rt_rows(rt, s->tmp, ndim, cnt, zero, buf, bx, lo, cnt,
			&dmd_rt_row_copy);
	return s->tmp;
}

/* Is "box" strided (described by a derived datatype)? */
static int dmd_rt_strided(const dmd_rt *rt, const struct dmd_rt_box *box)
{
	return box->type != rt->base;
}

/* Post the receive of "box" (lo, cnt of "buf", extents bx[]) from rank
 * "from" of "comm" on "q": into a staging buffer if it is strided. */
static void dmd_rt_post_recv(dmd_rt *rt, dmd_req *q, void *buf, int ndim,
	const int64_t *bx, const int64_t *lo, const int64_t *cnt,
	const struct dmd_rt_box *box, int from, MPI_Comm comm)
{
	if (dmd_rt_strided(rt, box))
		dmd_rt_mpi_irecv(rt, dmd_rt_stage(rt, q, DMD_RT_STAGE_COPY,
			buf, ndim, bx, lo, cnt, 0, NULL, box->nelem), box->nelem,
			rt->base, from, q->tag, comm,
			dmd_rt_slot(rt, q, box->nelem));
	else
		dmd_rt_mpi_irecv(rt, dmd_rt_box_ptr(rt, buf, box),
			box->count, box->type, from, q->tag, comm,
			dmd_rt_slot(rt, q, box->nelem));
}

/* Post the send of "box" (lo, cnt of "buf", extents bx[]) to rank "to"
 * of "comm" on "q": packed first if it is strided. */
static void dmd_rt_post_send(dmd_rt *rt, dmd_req *q, const void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt,
	const struct dmd_rt_box *box, int to, MPI_Comm comm)
{
	if (dmd_rt_strided(rt, box))
		dmd_rt_mpi_isend(rt, dmd_rt_stage(rt, q, DMD_RT_STAGE_SEND,
			buf, ndim, bx, lo, cnt, 0, NULL, box->nelem), box->nelem,
			rt->base, to, q->tag, comm,
			dmd_rt_slot(rt, q, box->nelem));
	else
		dmd_rt_mpi_isend(rt, dmd_rt_box_ptr(rt, buf, box),
			box->count, box->type, to, q->tag, comm,
			dmd_rt_slot(rt, q, box->nelem));
}

/* Post the broadcast of a box along "axis" from coordinate "root". */
void dmd_ibcast(dmd_rt *rt, dmd_req *q, int axis, int64_t root, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt)
{
	MPI_Comm comm = dmd_rt_axis_comm(rt, axis, "dmd_ibcast");
	struct dmd_rt_box box;

	if (dmd_rt_off_view(rt, q, comm, ndim, cnt, NULL))
		return;
	if (root < 0 || root >= rt->shape[axis])
		dmd_fail(rt, "transfer '%s': bad root %" PRId64 " (axis %d "
			"has %d ranks)", q->label, root, axis,
			rt->shape[axis]);
	dmd_rt_check_box(rt, q->label, ndim, bx, lo, cnt);
	dmd_rt_box_get(rt, ndim, bx, lo, cnt, &box);
	if (box.nelem == 0)
		return;
	if (dmd_rt_strided(rt, &box))
		dmd_rt_mpi_ibcast(rt, dmd_rt_stage(rt, q,
			rt->coords[axis] == root ? DMD_RT_STAGE_SEND :
			DMD_RT_STAGE_COPY, buf, ndim, bx, lo, cnt, 0, NULL,
			box.nelem),
			box.nelem, rt->base, (int) root, comm,
			dmd_rt_slot(rt, q, box.nelem));
	else
		dmd_rt_mpi_ibcast(rt, dmd_rt_box_ptr(rt, buf, &box),
			box.count, box.type, (int) root, comm,
			dmd_rt_slot(rt, q, box.nelem));
	if (rt->coords[axis] != root)
		dmd_rt_count(rt, q, box.nelem);
}

/* Post a ring shift along "axis": send to (c - disp) mod P, receive from
 * (c + disp) mod P.  Empty boxes are neither sent nor received.
 */
void dmd_ishift(dmd_rt *rt, dmd_req *q, int axis, int disp,
	const void *sbuf, int ndim, const int64_t *sx, const int64_t *slo,
	const int64_t *scnt, void *rbuf, const int64_t *rx,
	const int64_t *rlo, const int64_t *rcnt)
{
	MPI_Comm comm = dmd_rt_axis_comm(rt, axis, "dmd_ishift");
	struct dmd_rt_box sbox, rbox;
	int p, c, d, dst, src;

	if (dmd_rt_off_view(rt, q, comm, ndim, scnt, rcnt))
		return;
	dmd_rt_check_box(rt, q->label, ndim, sx, slo, scnt);
	dmd_rt_check_box(rt, q->label, ndim, rx, rlo, rcnt);
	p = rt->shape[axis];
	c = rt->coords[axis];
	d = ((disp % p) + p) % p;
	dst = (c - d + p) % p;
	src = (c + d) % p;
	dmd_rt_box_get(rt, ndim, rx, rlo, rcnt, &rbox);
	if (rbox.nelem > 0) {
		dmd_rt_post_recv(rt, q, rbuf, ndim, rx, rlo, rcnt, &rbox, src,
			comm);
		if (src != c)
			dmd_rt_count(rt, q, rbox.nelem);
	}
	dmd_rt_box_get(rt, ndim, sx, slo, scnt, &sbox);
	if (sbox.nelem > 0)
		dmd_rt_post_send(rt, q, sbuf, ndim, sx, slo, scnt, &sbox, dst,
			comm);
}

/* The world rank of the mesh coordinates "coords" (checked). */
static int dmd_rt_coords_rank(dmd_rt *rt, dmd_req *q, const int64_t *coords)
{
	int64_t r = 0;
	int i;

	for (i = 0; i < rt->n_axes; ++i) {
		if (coords[i] < 0 || coords[i] >= rt->shape[i])
			dmd_fail(rt, "transfer '%s': mesh coordinate %" PRId64
				" along axis %d lies outside [0, %d)",
				q->label, coords[i], i, rt->shape[i]);
		r = r * rt->shape[i] + coords[i];
	}
	return (int) r;
}

/* Post the receive of a box from the rank at mesh coordinates "src". */
void dmd_irecv(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt)
{
	int from = dmd_rt_coords_rank(rt, q, src);
	struct dmd_rt_box box;

	dmd_rt_check_box(rt, q->label, ndim, bx, lo, cnt);
	dmd_rt_box_get(rt, ndim, bx, lo, cnt, &box);
	if (box.nelem == 0)
		return;
	dmd_rt_post_recv(rt, q, buf, ndim, bx, lo, cnt, &box, from, rt->cart);
	if (from != rt->rank)
		dmd_rt_count(rt, q, box.nelem);
}

/* Post the send of a box to the rank at mesh coordinates "dst". */
void dmd_isend(dmd_rt *rt, dmd_req *q, const int64_t *dst, const void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt)
{
	int to = dmd_rt_coords_rank(rt, q, dst);
	struct dmd_rt_box box;

	dmd_rt_check_box(rt, q->label, ndim, bx, lo, cnt);
	dmd_rt_box_get(rt, ndim, bx, lo, cnt, &box);
	if (box.nelem == 0)
		return;
	dmd_rt_post_send(rt, q, buf, ndim, bx, lo, cnt, &box, to, rt->cart);
}

/* How many of 0 .. x - 1 fall in run [b, b + S) of period P:
 * G(x) = S (x / P) + min(S, max(0, x mod P - b)). */
static int64_t dmd_rt_comb_G(int64_t x, int64_t P, int64_t b, int64_t S)
{
	int64_t r = x % P - b;

	return S * (x / P) + (r < 0 ? 0 : r < S ? r : S);
}

/* The number of elements of the box cnt[] that the combs "comb" let
 * through.  Per dimension "comb" holds 1 + 2 runs values: a period
 * P >= 1, a phase 0 <= a < P, the first run's length S1 >= 1 (it
 * starts at 0), then each further run's start and length (b_k, S_k),
 * increasing and apart, within [0, P) (S_k = 0: no run, wherever it
 * starts), all checked;
 * the element at offset u moves if (u + a) mod P falls in a run:
 * along each dimension the sum over the runs of G(a + cnt) - G(a)
 * (dmd_rt_comb_G). */
static int64_t dmd_rt_comb_nelem(dmd_rt *rt, dmd_req *q, int ndim,
	const int64_t *cnt, int runs, const int64_t *comb)
{
	int w = 1 + 2 * runs;
	int64_t n = 1;
	int d, k;

	if (runs < 1 || runs > DMD_RT_MAX_RUNS)
		dmd_fail(rt, "transfer '%s': bad comb: %d runs", q->label,
			runs);
	for (d = 0; d < ndim; ++d) {
		const int64_t *c = comb + w * d;
		int64_t P = c[0], a = c[1], end = 0, m = 0;

		for (k = 0; k < runs; ++k) {
			int64_t b = k ? c[2 * k + 1] : 0, S = c[2 * k + 2];

			if (P < 1 || a < 0 || a >= P || S < !k || b < 0 ||
			    (S && b < end) || S > P - b)
				dmd_fail(rt, "transfer '%s': bad comb %" PRId64
					", %" PRId64 ", run %d at %" PRId64
					" of %" PRId64 " along dimension %d",
					q->label, P, a, k + 1, b, S, d);
			m += dmd_rt_comb_G(a + cnt[d], P, b, S) -
				dmd_rt_comb_G(a, P, b, S);
			if (S)
				end = b + S;
		}
		n *= m;
	}
	return n;
}

/* Walk dimension "d" of the box cnt[] at lo[] of "buf" (extents bx[];
 * "off": the element offset of the dimensions before d) through its
 * combs "comb" ("runs" runs per period, dmd_rt_comb_nelem), copying
 * each run of elements let through to ("pack") or from the packed
 * buffer at "packed", in order.  Returns the packed buffer's position
 * after them.  Along the last dimension a run is one copy; before it,
 * each index let through is walked in turn. */
static char *dmd_rt_comb_dim(dmd_rt *rt, char *buf, int d, int ndim,
	const int64_t *bx, const int64_t *lo, const int64_t *cnt, int runs,
	const int64_t *comb, int64_t off, char *packed, int pack)
{
	const int64_t *c = comb + (1 + 2 * runs) * d;
	int64_t P = c[0], a = c[1];
	int64_t es = (int64_t) rt->esize, u = 0, k;
	int j;

	while (u < cnt[d]) {
		int64_t r = (u + a) % P, len, next = P;

		/* the run that holds r, or the start of the next one */
		for (j = 0; j < runs; ++j) {
			int64_t b = j ? c[2 * j + 1] : 0, S = c[2 * j + 2];

			if (S && r >= b && r < b + S)
				break;
			if (S && b > r && b < next)
				next = b;
		}
		if (j == runs) {
			u += next - r;
			continue;
		}
		len = (j ? c[2 * j + 1] : 0) + c[2 * j + 2] - r;
		if (len > cnt[d] - u)
			len = cnt[d] - u;
		if (d == ndim - 1) {
			char *b = buf + (off * bx[d] + lo[d] + u) * es;

			if (pack)
				memcpy(packed, b, (size_t) (len * es));
			else
				memcpy(b, packed, (size_t) (len * es));
			packed += len * es;
		} else {
			for (k = 0; k < len; ++k)
				packed = dmd_rt_comb_dim(rt, buf, d + 1, ndim,
					bx, lo, cnt, runs, comb,
					off * bx[d] + lo[d] + u + k, packed,
					pack);
		}
		u += len;
	}
	return packed;
}

/* Post the receive ("send" 0) or the send of the elements of a box that
 * its combs "comb" let through, packed (a send packed now), from or to
 * the rank at mesh coordinates "peer" (dmd_irecv_comb in dmd_rt.h). */
static void dmd_rt_post_comb(dmd_rt *rt, dmd_req *q, const int64_t *peer,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb, int send)
{
	int r = dmd_rt_coords_rank(rt, q, peer);
	int64_t n;
	void *tmp;

	dmd_rt_check_box(rt, q->label, ndim, bx, lo, cnt);
	n = dmd_rt_comb_nelem(rt, q, ndim, cnt, runs, comb);
	if (n == 0)
		return;
	tmp = dmd_rt_stage(rt, q, send ? DMD_RT_STAGE_SEND : DMD_RT_STAGE_COPY,
		buf, ndim, bx, lo, cnt, runs, comb, n);
	if (send) {
		dmd_rt_mpi_isend(rt, tmp, n, rt->base, r, q->tag, rt->cart,
			dmd_rt_slot(rt, q, n));
		return;
	}
	dmd_rt_mpi_irecv(rt, tmp, n, rt->base, r, q->tag, rt->cart,
		dmd_rt_slot(rt, q, n));
	if (r != rt->rank)
		dmd_rt_count(rt, q, n);
}

/* Post the receive of the elements of a box that its combs let through,
 * packed, from "src". */
void dmd_irecv_comb(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt,
	const int64_t *comb)
{
	dmd_rt_post_comb(rt, q, src, buf, ndim, bx, lo, cnt, 1, comb, 0);
}

/* Post the send of the elements of a box that its combs let through,
 * packed now, to "dst". */
void dmd_isend_comb(dmd_rt *rt, dmd_req *q, const int64_t *dst,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, const int64_t *comb)
{
	dmd_rt_post_comb(rt, q, dst, buf, ndim, bx, lo, cnt, 1, comb, 1);
}

/* Post the receive of the elements of a box that its combs of "runs"
 * runs per period let through, packed, from "src". */
void dmd_irecv_combs(dmd_rt *rt, dmd_req *q, const int64_t *src,
	void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb)
{
	dmd_rt_post_comb(rt, q, src, buf, ndim, bx, lo, cnt, runs, comb, 0);
}

/* Post the send of the elements of a box that its combs of "runs" runs
 * per period let through, packed now, to "dst". */
void dmd_isend_combs(dmd_rt *rt, dmd_req *q, const int64_t *dst,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb)
{
	dmd_rt_post_comb(rt, q, dst, buf, ndim, bx, lo, cnt, runs, comb, 1);
}

/* Post the receive of a contribution from "src" into a temporary buffer;
 * dmd_wait adds it into the box (lo, cnt) of "buf".
 */
void dmd_irecv_sum(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt)
{
	int from = dmd_rt_coords_rank(rt, q, src);
	int64_t n;

	dmd_rt_check_box(rt, q->label, ndim, bx, lo, cnt);
	n = dmd_rt_nelem(ndim, cnt);
	if (n == 0)
		return;
	dmd_rt_mpi_irecv(rt, dmd_rt_stage(rt, q, DMD_RT_STAGE_ADD, buf, ndim,
		bx, lo, cnt, 0, NULL, n), n, rt->base, from, q->tag, rt->cart,
		dmd_rt_slot(rt, q, n));
	if (from != rt->rank)
		dmd_rt_count(rt, q, n);
}

/* Call "row" on every innermost row of the box cnt[] (at dlo[] of a
 * buffer of extents dx[], and at slo[] of one of extents sx[]) with the
 * rows' element offsets and length.  A 0-D box is one row of 1.
 */
static void dmd_rt_rows(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt,
	void (*row)(dmd_rt *rt, void *d, const void *s, int64_t n))
{
	int64_t idx[DMD_RT_MAX_DIMS] = { 0 };
	int64_t n, r, nrows, len, so, doff;
	int i, last = ndim - 1;

	n = dmd_rt_nelem(ndim, cnt);
	if (n == 0)
		return;
	if (ndim == 0) {
		row(rt, dbuf, sbuf, 1);
		return;
	}
	len = cnt[last];
	nrows = n / len;
	for (r = 0; r < nrows; ++r) {
		so = doff = 0;
		for (i = 0; i < ndim; ++i) {
			int64_t j = i < last ? idx[i] : 0;

			so = so * sx[i] + slo[i] + j;
			doff = doff * dx[i] + dlo[i] + j;
		}
		row(rt, (char *) dbuf + doff * (int64_t) rt->esize,
			(const char *) sbuf + so * (int64_t) rt->esize, len);
		for (i = last - 1; i >= 0; --i) {
			if (++idx[i] < cnt[i])
				break;
			idx[i] = 0;
		}
	}
}

/* Copy a row of "n" elements. */
static void dmd_rt_row_copy(dmd_rt *rt, void *d, const void *s, int64_t n)
{
	memmove(d, s, (size_t) n * rt->esize);
}

/* Add a row of "n" elements into another. */
static void dmd_rt_row_add(dmd_rt *rt, void *d, const void *s, int64_t n)
{
	int64_t k;

	if (rt->job->dtype == DMD_RT_F64) {
		double *dd = d;
		const double *ss = s;

		for (k = 0; k < n; ++k)
			dd[k] += ss[k];
	} else {
		float *dd = d;
		const float *ss = s;

		for (k = 0; k < n; ++k)
			dd[k] += ss[k];
	}
}

/* MPI_STATUSES_IGNORE is (MPI_Status *) 1: GCC's -Wstringop-overflow
 * takes it for an array of size 0.  Pass it through this pointer, which
 * GCC cannot see through.
 */
static MPI_Status *volatile dmd_rt_no_statuses = MPI_STATUSES_IGNORE;

/* Let MPI progress on every request in flight (MPI_Testall: completed
 * operations become MPI_REQUEST_NULL only when all of a request's have).
 * Return the bytes that the requests in flight send and receive.
 */
int64_t dmd_rt_progress(dmd_rt *rt)
{
	int64_t i, bytes = 0;

	for (i = 0; i < rt->n_inflight; ++i) {
		dmd_req *q = rt->inflight[i];
		int flag = 0;

		if (q->n_mreq > 0)
			MPI_Testall((int) q->n_mreq, q->mreq, &flag,
				dmd_rt_no_statuses);
		bytes += q->posted;
	}
	return bytes;
}

/* Complete every operation posted on "q" since its last wait, then add
 * the received contributions and unpack the strided boxes received
 * packed; record the wait and the transfer for the trace.
 */
void dmd_wait(dmd_rt *rt, dmd_req *q)
{
	int64_t zero[DMD_RT_MAX_DIMS] = { 0 };
	int64_t k;
	double t0, t1;
	dmd_req *last;

	if (!q->inflight)
		return;
	t0 = MPI_Wtime();
	MPI_Waitall((int) q->n_mreq, q->mreq, dmd_rt_no_statuses);
	for (k = 0; k < q->n_sums; ++k) {
		struct dmd_rt_sum *s = &q->sums[k];

		if (s->kind == DMD_RT_STAGE_COPY && s->combed)
			dmd_rt_comb_dim(rt, s->dbuf, 0, s->ndim, s->bx, s->lo,
				s->cnt, s->runs, s->comb, 0, s->tmp, 0);
		else if (s->kind != DMD_RT_STAGE_SEND)
			dmd_rt_rows(rt, s->dbuf, s->ndim, s->bx, s->lo, s->tmp,
				s->cnt, zero, s->cnt,
				s->kind == DMD_RT_STAGE_ADD ? &dmd_rt_row_add :
				&dmd_rt_row_copy);
		free(s->tmp);
		s->tmp = NULL;
	}
	q->n_sums = 0;
	q->n_mreq = 0;
	t1 = MPI_Wtime();
	dmd_rt_trace_event(rt, DMD_RT_EV_WAIT, q->id, t0, t1, 0);
	dmd_rt_trace_event(rt, DMD_RT_EV_XFER, q->id, q->t_post, t1,
		q->bytes);
	q->bytes = 0;
	q->posted = 0;
	last = rt->inflight[--rt->n_inflight];
	rt->inflight[q->inflight - 1] = last;
	last->inflight = q->inflight;
	q->inflight = 0;
}

/* Copy a box of one local buffer into a box of another. */
void dmd_copy(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt)
{
	dmd_rt_check_box(rt, "dmd_copy destination", ndim, dx, dlo, cnt);
	dmd_rt_check_box(rt, "dmd_copy source", ndim, sx, slo, cnt);
	dmd_rt_rows(rt, dbuf, ndim, dx, dlo, sbuf, sx, slo, cnt,
		&dmd_rt_row_copy);
}

/* Add a box of one local buffer into a box of another. */
void dmd_copy_sum(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt)
{
	dmd_rt_check_box(rt, "dmd_copy_sum destination", ndim, dx, dlo, cnt);
	dmd_rt_check_box(rt, "dmd_copy_sum source", ndim, sx, slo, cnt);
	dmd_rt_rows(rt, dbuf, ndim, dx, dlo, sbuf, sx, slo, cnt,
		&dmd_rt_row_add);
}
