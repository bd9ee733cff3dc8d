/* dmd_rt.c: the runtime library of the programs distmpmd emits.
 *
 * One struct dmd_rt per process holds the mesh (a Cartesian communicator
 * without reordering, so that mesh rank == world rank, and one
 * sub-communicator per axis), the buffers handed out by dmd_alloc, the
 * requests of the current transfer group and the stats.
 *
 * Boxes are described to MPI by derived datatypes (dmd_rt_box_get):
 * a subarray of the buffer, or a plain count when the box is one
 * contiguous stretch of memory.  Errors all end in dmd_fail (one rank
 * stops the job) or dmd_rt_fail_all (every rank knows about the error and
 * rank 0 prints the message).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_npy.h"

/* Tags of the point-to-point messages. */
#define DMD_RT_TAG_XFER 1
#define DMD_RT_TAG_SHIFT 2

/* Size of the verdict rank 0 broadcasts about a .npy file. */
#define DMD_RT_TEXT 4096

/* A received contribution waiting to be added into a box of "dbuf". */
struct dmd_rt_sum {
	void *tmp;
	void *dbuf;
	int ndim;
	long ext[DMD_RT_MAX_DIMS];
	long lo[DMD_RT_MAX_DIMS];
	long cnt[DMD_RT_MAX_DIMS];
};

struct dmd_rt {
	const dmd_job_desc *job;
	int rank;
	int size;
	int n_axes;
	int shape[DMD_RT_MAX_DIMS];
	int coords[DMD_RT_MAX_DIMS];
	MPI_Comm cart;
	MPI_Comm axis[DMD_RT_MAX_DIMS];
	MPI_Errhandler errh;

	MPI_Datatype base;
	size_t esize;
	const char *descr;
	char *job_dir;

	int stats;
	long long bytes_recv;
	long long messages;
	double t_start;
	double t_compute;

	void **bufs;
	int n_bufs;
	int cap_bufs;

	int in_xfer;
	struct dmd_rt_sum *sums;	/* receives to add at dmd_xfer_end */
	int n_sums;
	int cap_sums;
	MPI_Request *reqs;
	MPI_Status *statuses;
	int n_reqs;
	int cap_reqs;
};

/* A box of a buffer as MPI sees it: "count" elements of "type" starting
 * "offset" elements into the buffer.  "derived" says whether "type" must be
 * freed; "nelem" is the number of elements in the box.
 */
struct dmd_rt_box {
	MPI_Datatype type;
	int count;
	long offset;
	long nelem;
	int derived;
};

/* What rank 0 found out and tells every rank: "ok", the file offset
 * of the data and a message or a file name.
 */
struct dmd_rt_verdict {
	int ok;
	long long offset;
	char text[DMD_RT_TEXT];
};

/* Stop every process; never returns. */
static void dmd_rt_abort(void) __attribute__((noreturn));
static void dmd_rt_abort(void)
{
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* This process's world rank, or -1 if MPI is not running. */
static int dmd_rt_world_rank(void)
{
	int init = 0, fin = 0, rank = -1;

	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (init && !fin)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	return rank;
}

/* Print "distmpmd: rank R: <message>" to stderr and stop every rank. */
void dmd_fail(dmd_rt *rt, const char *fmt, ...)
{
	char msg[2 * DMD_RT_TEXT];
	va_list ap;
	int rank = rt ? rt->rank : dmd_rt_world_rank();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "distmpmd: rank %d: %s\n", rank, msg);
	fflush(stderr);
	dmd_rt_abort();
}

/* Stop every rank after an error that every rank has seen (a collective
 * call): rank 0 prints "distmpmd: <message>", then all ranks meet in a
 * barrier (so that the message is out before anybody aborts) and abort.
 */
static void dmd_rt_fail_all(int rank, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void dmd_rt_fail_all(int rank, const char *fmt, ...)
{
	va_list ap;

	if (rank == 0) {
		fprintf(stderr, "distmpmd: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
		fflush(stderr);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	dmd_rt_abort();
}

/* The error handler of our communicators: report the MPI error as ours. */
static void dmd_rt_mpi_error(MPI_Comm *comm, int *code, ...)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	(void) comm;
	s[0] = '\0';
	MPI_Error_string(*code, s, &len);
	dmd_fail(NULL, "MPI error: %s", s);
}

/* Stop with a message if "rc" (returned by an MPI-IO call "what" on
 * "path") is an error.  Files use MPI_ERRORS_RETURN by default.
 */
static void dmd_rt_file_check(dmd_rt *rt, int rc, const char *what,
	const char *path)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (rc == MPI_SUCCESS)
		return;
	s[0] = '\0';
	MPI_Error_string(rc, s, &len);
	dmd_fail(rt, "%s %s: %s", what, path, s);
}

/* malloc that never returns NULL (it stops the job instead). */
static void *dmd_rt_malloc(dmd_rt *rt, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		dmd_fail(rt, "out of memory (%zu bytes)", size);
	return p;
}

/* realloc that never returns NULL (it stops the job instead). */
static void *dmd_rt_realloc(dmd_rt *rt, void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		dmd_fail(rt, "out of memory (%zu bytes)", size);
	return p;
}

/* Return "v" as an int, stopping with a message if it does not fit. */
static int dmd_rt_int(dmd_rt *rt, long v, const char *what)
{
	if (v < INT_MIN || v > INT_MAX)
		dmd_fail(rt, "%s %ld does not fit in an MPI int", what, v);
	return (int) v;
}

/* Return a newly allocated "dir/file", or a copy of "file" if it is
 * absolute.
 */
static char *dmd_rt_path(dmd_rt *rt, const char *file)
{
	size_t ld, lf;
	char *p;

	lf = strlen(file);
	if (file[0] == '/') {
		p = dmd_rt_malloc(rt, lf + 1);
		memcpy(p, file, lf + 1);
		return p;
	}
	ld = strlen(rt->job_dir);
	p = dmd_rt_malloc(rt, ld + 1 + lf + 1);
	memcpy(p, rt->job_dir, ld);
	p[ld] = '/';
	memcpy(p + ld + 1, file, lf + 1);
	return p;
}

/* Check the job description; a problem is reported by rank 0 and stops
 * every rank (each rank finds the same problem).
 */
static void dmd_rt_check_job(int rank, int size, const dmd_job_desc *job)
{
	long prod = 1;
	int i;

	if (!job)
		dmd_rt_fail_all(rank, "no job description");
	if (job->n_axes < 0 || job->n_axes > DMD_RT_MAX_DIMS)
		dmd_rt_fail_all(rank, "job '%s' has %d mesh axes (at most %d)",
			job->job, job->n_axes, DMD_RT_MAX_DIMS);
	if (job->dtype != DMD_RT_F32 && job->dtype != DMD_RT_F64)
		dmd_rt_fail_all(rank, "job '%s': bad dtype %d",
			job->job, job->dtype);
	for (i = 0; i < job->n_axes; ++i) {
		if (job->mesh_shape[i] < 1)
			dmd_rt_fail_all(rank, "job '%s': mesh axis %d has "
				"extent %d", job->job, i, job->mesh_shape[i]);
		prod *= job->mesh_shape[i];
		if (prod > INT_MAX)
			dmd_rt_fail_all(rank, "job '%s': mesh too large",
				job->job);
	}
	if (prod != job->nranks)
		dmd_rt_fail_all(rank, "job '%s': the mesh has %ld ranks, "
			"the job says %d", job->job, prod, job->nranks);
	if (size != job->nranks)
		dmd_rt_fail_all(rank,
			"job '%s' needs %d ranks but was started with %d",
			job->job, job->nranks, size);
}

/* Check that this rank lies in job->ranges.  Every wrong rank prints a
 * message; then (after an Allreduce, so nobody waits for a rank that has
 * gone) every rank aborts.
 */
static void dmd_rt_check_class(int rank, const dmd_job_desc *job)
{
	int i, mine = 0, bad, any = 0;

	for (i = 0; i < job->n_ranges; ++i)
		if (job->ranges[i][0] <= rank && rank <= job->ranges[i][1])
			mine = 1;
	bad = !mine;
	if (bad) {
		fprintf(stderr, "distmpmd: rank %d runs the program of class "
			"%d, but belongs to another class (wrong appfile?)\n",
			rank, job->class_id);
		fflush(stderr);
	}
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any)
		dmd_rt_abort();
}

/* Build the Cartesian communicator and the per-axis sub-communicators. */
static void dmd_rt_make_mesh(dmd_rt *rt)
{
	int periods[DMD_RT_MAX_DIMS];
	int i;

	if (rt->n_axes == 0) {
		MPI_Comm_dup(MPI_COMM_WORLD, &rt->cart);
		return;
	}
	for (i = 0; i < rt->n_axes; ++i)
		periods[i] = 1;
	MPI_Cart_create(MPI_COMM_WORLD, rt->n_axes, rt->shape, periods, 0,
		&rt->cart);
	if (rt->cart == MPI_COMM_NULL)
		dmd_fail(rt, "not part of the Cartesian mesh");
	MPI_Cart_coords(rt->cart, rt->rank, rt->n_axes, rt->coords);
	for (i = 0; i < rt->n_axes; ++i) {
		int remain[DMD_RT_MAX_DIMS] = { 0 };

		remain[i] = 1;
		MPI_Cart_sub(rt->cart, remain, &rt->axis[i]);
	}
}

/* MPI_Init, check the world against the job, build the mesh. */
dmd_rt *dmd_init(int *argc, char ***argv, const dmd_job_desc *job)
{
	const union { uint32_t u; unsigned char c[4]; } endian = { 1 };
	const char *env;
	dmd_rt *rt;
	int rank, size, i;

	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!endian.c[0])
		dmd_rt_fail_all(rank, ".npy I/O needs a little-endian host");
	dmd_rt_check_job(rank, size, job);
	dmd_rt_check_class(rank, job);

	rt = calloc(1, sizeof(*rt));
	if (!rt)
		dmd_fail(NULL, "out of memory");
	rt->job = job;
	rt->rank = rank;
	rt->size = size;
	MPI_Comm_create_errhandler(&dmd_rt_mpi_error, &rt->errh);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, rt->errh);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, rt->errh);
	rt->n_axes = job->n_axes;
	for (i = 0; i < rt->n_axes; ++i)
		rt->shape[i] = job->mesh_shape[i];
	dmd_rt_make_mesh(rt);

	rt->base = job->dtype == DMD_RT_F64 ? MPI_DOUBLE : MPI_FLOAT;
	rt->esize = job->dtype == DMD_RT_F64 ? 8 : 4;
	rt->descr = job->dtype == DMD_RT_F64 ? "<f8" : "<f4";

	env = getenv("DMD_JOB_DIR");
	if (!env || !*env)
		env = job->job_dir;
	if (!env || !*env)
		env = ".";
	rt->job_dir = dmd_rt_malloc(rt, strlen(env) + 1);
	strcpy(rt->job_dir, env);

	env = getenv("DMD_STATS");
	rt->stats = env && *env && strcmp(env, "0") != 0;
	return rt;
}

/* Stop with a message unless 0 <= axis < n_axes. */
static void dmd_rt_check_axis(const dmd_rt *rt, int axis)
{
	if (axis < 0 || axis >= rt->n_axes)
		dmd_fail((dmd_rt *) rt, "bad mesh axis %d (the mesh has %d)",
			axis, rt->n_axes);
}

/* This rank's coordinate along "axis". */
int dmd_coord(const dmd_rt *rt, int axis)
{
	dmd_rt_check_axis(rt, axis);
	return rt->coords[axis];
}

/* This rank's world rank. */
int dmd_rank(const dmd_rt *rt)
{
	return rt->rank;
}

/* Allocate a zero-filled buffer of n elements, to be freed by dmd_finish. */
void *dmd_alloc(dmd_rt *rt, long n)
{
	void *p;

	if (n < 0 || (unsigned long) n > SIZE_MAX / rt->esize)
		dmd_fail(rt, "cannot allocate %ld elements", n);
	p = calloc(n ? (size_t) n : 1, rt->esize);
	if (!p)
		dmd_fail(rt, "out of memory allocating %ld elements of %zu "
			"bytes", n, rt->esize);
	if (rt->n_bufs == rt->cap_bufs) {
		rt->cap_bufs = rt->cap_bufs ? 2 * rt->cap_bufs : 16;
		rt->bufs = dmd_rt_realloc(rt, rt->bufs,
				rt->cap_bufs * sizeof(*rt->bufs));
	}
	rt->bufs[rt->n_bufs++] = p;
	return p;
}

/* Number of elements in a box of extents cnt[0..ndim) (1 if ndim == 0). */
static long dmd_rt_nelem(int ndim, const long *cnt)
{
	long n = 1;
	int i;

	for (i = 0; i < ndim; ++i)
		n *= cnt[i];
	return n;
}

/* Stop with a message unless the box (lo, cnt) lies inside "ext". */
static void dmd_rt_check_box(dmd_rt *rt, const char *what, int ndim,
	const long *ext, const long *lo, const long *cnt)
{
	int i;

	int empty = 0;

	if (ndim < 0 || ndim > DMD_RT_MAX_DIMS)
		dmd_fail(rt, "%s: bad number of dimensions %d", what, ndim);
	for (i = 0; i < ndim; ++i) {
		if (cnt[i] < 0)
			dmd_fail(rt, "%s: negative extent %ld in dimension %d",
				what, cnt[i], i);
		empty |= cnt[i] == 0;
	}
	/* an empty box has no place: any origin will do */
	if (empty)
		return;
	for (i = 0; i < ndim; ++i)
		if (ext[i] < 0 || lo[i] < 0 || cnt[i] < 0 ||
		    lo[i] + cnt[i] > ext[i])
			dmd_fail(rt, "%s: box [%ld, %ld) of dimension %d lies "
				"outside [0, %ld)", what, lo[i],
				lo[i] + cnt[i], i, ext[i]);
}

/* Describe the box (lo, cnt) of a buffer of extents "ext" to MPI, using
 * elements of type "base".  An empty box is a count of 0; a box that is one
 * contiguous stretch of memory (full in every dimension after the first
 * one it does not cover fully, and of extent 1 before) is a plain count
 * at an offset; any other box is a subarray datatype.
 */
static void dmd_rt_box_get(dmd_rt *rt, MPI_Datatype base, int ndim,
	const long *ext, const long *lo, const long *cnt,
	struct dmd_rt_box *box)
{
	int sizes[DMD_RT_MAX_DIMS], subs[DMD_RT_MAX_DIMS];
	int starts[DMD_RT_MAX_DIMS];
	int i, k, contiguous;

	box->nelem = dmd_rt_nelem(ndim, cnt);
	box->derived = 0;
	box->type = base;
	box->offset = 0;
	box->count = 0;
	if (box->nelem == 0)
		return;
	k = 0;
	while (k < ndim && cnt[k] == 1)
		++k;
	contiguous = 1;
	for (i = k + 1; i < ndim; ++i)
		if (lo[i] != 0 || cnt[i] != ext[i])
			contiguous = 0;
	if (contiguous && box->nelem <= INT_MAX) {
		for (i = 0; i < ndim; ++i)
			box->offset = box->offset * ext[i] + lo[i];
		box->count = (int) box->nelem;
		return;
	}
	for (i = 0; i < ndim; ++i) {
		sizes[i] = dmd_rt_int(rt, ext[i], "buffer extent");
		subs[i] = dmd_rt_int(rt, cnt[i], "box extent");
		starts[i] = dmd_rt_int(rt, lo[i], "box origin");
	}
	MPI_Type_create_subarray(ndim, sizes, subs, starts, MPI_ORDER_C,
		base, &box->type);
	MPI_Type_commit(&box->type);
	box->derived = 1;
	box->count = 1;
}

/* Free the datatype of "box" if it is ours. */
static void dmd_rt_box_free(struct dmd_rt_box *box)
{
	if (box->derived)
		MPI_Type_free(&box->type);
	box->derived = 0;
}

/* Address of the first element of "box" in "buf". */
static void *dmd_rt_box_ptr(const dmd_rt *rt, const void *buf,
	const struct dmd_rt_box *box)
{
	return (char *) buf + box->offset * rt->esize;
}

/* Copy the box (slo, cnt) of "sbuf" (extents sext) to the box (dlo, cnt) of
 * "dbuf" (extents dext), one innermost row at a time.  The two may be the
 * same buffer (overlapping rows are moved correctly, whole overlapping
 * boxes are not).
 */
static void dmd_rt_box_copy(dmd_rt *rt, void *dbuf, int ndim,
	const long *dext, const long *dlo, const void *sbuf,
	const long *sext, const long *slo, const long *cnt)
{
	long idx[DMD_RT_MAX_DIMS] = { 0 };
	size_t row;
	long n, r, nrows;
	int i, last = ndim - 1;

	n = dmd_rt_nelem(ndim, cnt);
	if (n == 0)
		return;
	if (ndim == 0) {
		memmove(dbuf, sbuf, rt->esize);
		return;
	}
	row = cnt[last] * rt->esize;
	nrows = n / cnt[last];
	for (r = 0; r < nrows; ++r) {
		long so = 0, doff = 0;

		for (i = 0; i < ndim; ++i) {
			long j = i < last ? idx[i] : 0;

			so = so * sext[i] + slo[i] + j;
			doff = doff * dext[i] + dlo[i] + j;
		}
		memmove((char *) dbuf + doff * rt->esize,
			(const char *) sbuf + so * rt->esize, row);
		for (i = last - 1; i >= 0; --i) {
			if (++idx[i] < cnt[i])
				break;
			idx[i] = 0;
		}
	}
}

/* The spec's random value of the element at global linear index "i". */
static double dmd_rt_random(unsigned long long seed, unsigned long long i)
{
	uint64_t z;

	z = (uint64_t) seed + (uint64_t) (i + 1) * 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z = z ^ (z >> 31);
	return (double) (z >> 11) * 0x1.0p-53 * 2 - 1;
}

/* Store "v" as element "k" of "buf", rounded to the job's dtype. */
static void dmd_rt_store(dmd_rt *rt, void *buf, long k, double v)
{
	if (rt->job->dtype == DMD_RT_F64)
		((double *) buf)[k] = v;
	else
		((float *) buf)[k] = (float) v;
}

/* Fill "buf" (the block lo, ext of a tensor of shape gshape) with zeros,
 * ones or the random values of the elements' global linear indices.
 */
static void dmd_rt_fill(dmd_rt *rt, int init, unsigned long long seed,
	int ndim, const long *gshape, const long *lo, const long *ext,
	void *buf)
{
	long idx[DMD_RT_MAX_DIMS] = { 0 };
	long n, k, r, nrows, row;
	int i, last = ndim - 1;

	n = dmd_rt_nelem(ndim, ext);
	if (n == 0)
		return;
	if (init != DMD_RT_INIT_RANDOM) {
		double v = init == DMD_RT_INIT_ONES ? 1.0 : 0.0;

		for (k = 0; k < n; ++k)
			dmd_rt_store(rt, buf, k, v);
		return;
	}
	if (ndim == 0) {
		dmd_rt_store(rt, buf, 0, dmd_rt_random(seed, 0));
		return;
	}
	row = ext[last];
	nrows = n / row;
	k = 0;
	for (r = 0; r < nrows; ++r) {
		unsigned long long g = 0;
		long j;

		for (i = 0; i < ndim; ++i)
			g = g * gshape[i] + lo[i] + (i < last ? idx[i] : 0);
		for (j = 0; j < row; ++j)
			dmd_rt_store(rt, buf, k++, dmd_rt_random(seed, g + j));
		for (i = last - 1; i >= 0; --i) {
			if (++idx[i] < ext[i])
				break;
			idx[i] = 0;
		}
	}
}

/* Set the view of "fh" to the block (lo, ext) of a global array of shape
 * "gshape" stored at "offset", and return the number of elements this rank
 * reads or writes through it.  Ranks with an empty block get a plain view
 * and a count of 0 (a subarray needs extents >= 1); a scalar (ndim == 0)
 * is one element at the offset.
 */
static int dmd_rt_set_view(dmd_rt *rt, MPI_File fh, MPI_Offset offset,
	int ndim, const long *gshape, const long *lo, const long *ext,
	int active, const char *path, MPI_Datatype *ftype)
{
	int sizes[DMD_RT_MAX_DIMS], subs[DMD_RT_MAX_DIMS];
	int starts[DMD_RT_MAX_DIMS];
	long n = dmd_rt_nelem(ndim, ext);
	int i, rc;

	*ftype = MPI_DATATYPE_NULL;
	if (!active)
		n = 0;
	if (n == 0 || ndim == 0) {
		rc = MPI_File_set_view(fh, offset, rt->base, rt->base,
				"native", MPI_INFO_NULL);
		dmd_rt_file_check(rt, rc, "cannot set the view of", path);
		return (int) n;
	}
	for (i = 0; i < ndim; ++i) {
		sizes[i] = dmd_rt_int(rt, gshape[i], "tensor extent");
		subs[i] = dmd_rt_int(rt, ext[i], "block extent");
		starts[i] = dmd_rt_int(rt, lo[i], "block origin");
	}
	MPI_Type_create_subarray(ndim, sizes, subs, starts, MPI_ORDER_C,
		rt->base, ftype);
	MPI_Type_commit(ftype);
	rc = MPI_File_set_view(fh, offset, rt->base, *ftype, "native",
			MPI_INFO_NULL);
	dmd_rt_file_check(rt, rc, "cannot set the view of", path);
	return dmd_rt_int(rt, n, "number of elements in the block");
}

/* Read the block (lo, ext) of tensor "name" from the .npy file "file":
 * rank 0 checks the header and broadcasts its verdict, then every rank
 * reads its block with collective MPI-IO.
 */
static void dmd_rt_read_npy(dmd_rt *rt, const char *name, const char *file,
	int ndim, const long *gshape, const long *lo, const long *ext,
	void *buf)
{
	struct dmd_rt_verdict v;
	MPI_Datatype ftype;
	MPI_File fh;
	char *path = dmd_rt_path(rt, file);
	int n, rc;

	memset(&v, 0, sizeof(v));
	if (rt->rank == 0) {
		char msg[DMD_NPY_MSG];
		long long off = 0;

		v.ok = dmd_npy_check(path, file, rt->descr, ndim, gshape,
				&off, msg, sizeof(msg)) == 0;
		v.offset = off;
		if (!v.ok)
			snprintf(v.text, sizeof(v.text), "%s", msg);
	}
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (!v.ok)
		dmd_rt_fail_all(rt->rank, "tensor '%s': %s", name, v.text);

	rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY,
			MPI_INFO_NULL, &fh);
	dmd_rt_file_check(rt, rc, "cannot open", path);
	n = dmd_rt_set_view(rt, fh, v.offset, ndim, gshape, lo, ext, 1,
			path, &ftype);
	rc = MPI_File_read_all(fh, buf, n, rt->base, MPI_STATUS_IGNORE);
	dmd_rt_file_check(rt, rc, "cannot read", path);
	rc = MPI_File_close(&fh);
	dmd_rt_file_check(rt, rc, "cannot close", path);
	if (ftype != MPI_DATATYPE_NULL)
		MPI_Type_free(&ftype);
	free(path);
}

/* Fill "buf" with this rank's block of input tensor "name". */
void dmd_tensor_input(dmd_rt *rt, const char *name, const char *file,
	int init, unsigned long long seed, int ndim, const long *gshape,
	const long *lo, const long *ext, void *buf)
{
	dmd_rt_check_box(rt, name, ndim, gshape, lo, ext);
	if (file) {
		dmd_rt_read_npy(rt, name, file, ndim, gshape, lo, ext, buf);
		return;
	}
	if (init != DMD_RT_INIT_NONE && init != DMD_RT_INIT_ZEROS &&
	    init != DMD_RT_INIT_ONES && init != DMD_RT_INIT_RANDOM)
		dmd_fail(rt, "tensor '%s': bad init %d", name, init);
	dmd_rt_fill(rt, init, seed, ndim, gshape, lo, ext, buf);
}

/* Rank 0: write the .npy header of the output into a new temporary file
 * next to "path" and fill in the verdict (the temporary name and the data
 * offset, or a message).
 */
static void dmd_rt_start_output(dmd_rt *rt, const char *path, int ndim,
	const long *gshape, struct dmd_rt_verdict *v)
{
	char header[4096];
	char name[DMD_RT_TEXT - 512];
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t) (slash - path) + 1 : 0;
	FILE *f;
	int len, n;

	len = dmd_npy_header(header, sizeof(header), rt->descr, ndim, gshape);
	if (len < 0) {
		snprintf(v->text, sizeof(v->text), "cannot make a .npy header");
		return;
	}
	n = snprintf(name, sizeof(name), "%.*s.%s.tmp.%ld",
		(int) dir_len, path, path + dir_len, (long) getpid());
	if (n < 0 || (size_t) n >= sizeof(name)) {
		snprintf(v->text, sizeof(v->text), "path too long");
		return;
	}
	f = fopen(name, "wb");
	if (!f) {
		snprintf(v->text, sizeof(v->text),
			"cannot write %.1800s: cannot create %.1800s: %s",
			path, name, strerror(errno));
		return;
	}
	n = fwrite(header, 1, len, f) == (size_t) len;
	if (fclose(f) != 0 || !n) {
		snprintf(v->text, sizeof(v->text),
			"cannot write %.1800s: writing %.1800s failed: %s",
			path, name, strerror(errno));
		remove(name);
		return;
	}
	strcpy(v->text, name);
	v->ok = 1;
	v->offset = len;
}

/* Write this rank's block of output tensor "name" (if writer) into the
 * .npy file "file": under a temporary name first, renamed by rank 0 once
 * every rank has written and closed it.
 */
void dmd_tensor_output(dmd_rt *rt, const char *name, const char *file,
	int ndim, const long *gshape, const long *lo, const long *ext,
	const void *buf, int writer)
{
	struct dmd_rt_verdict v;
	MPI_Datatype ftype;
	MPI_Offset total;
	MPI_File fh;
	char why[256];
	char *path;
	int n, rc, ok, all_ok;

	dmd_rt_check_box(rt, name, ndim, gshape, lo, ext);
	path = dmd_rt_path(rt, file);
	memset(&v, 0, sizeof(v));
	if (rt->rank == 0)
		dmd_rt_start_output(rt, path, ndim, gshape, &v);
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (!v.ok)
		dmd_rt_fail_all(rt->rank, "tensor '%s': %s", name, v.text);

	rc = MPI_File_open(MPI_COMM_WORLD, v.text, MPI_MODE_WRONLY,
			MPI_INFO_NULL, &fh);
	dmd_rt_file_check(rt, rc, "cannot open", v.text);
	total = (MPI_Offset) v.offset +
		(MPI_Offset) dmd_rt_nelem(ndim, gshape) * rt->esize;
	ok = MPI_File_set_size(fh, total) == MPI_SUCCESS;
	n = dmd_rt_set_view(rt, fh, v.offset, ndim, gshape, lo, ext, writer,
			v.text, &ftype);
	ok &= MPI_File_write_all(fh, buf, n, rt->base, MPI_STATUS_IGNORE) ==
		MPI_SUCCESS;
	ok &= MPI_File_close(&fh) == MPI_SUCCESS;
	if (ftype != MPI_DATATYPE_NULL)
		MPI_Type_free(&ftype);
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	why[0] = '\0';
	if (rt->rank == 0) {
		if (all_ok && rename(v.text, path) != 0) {
			snprintf(why, sizeof(why), ": %s", strerror(errno));
			all_ok = 0;
		}
		if (!all_ok)
			remove(v.text);
	}
	MPI_Bcast(&all_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!all_ok)
		dmd_rt_fail_all(rt->rank, "tensor '%s': cannot write %s%s",
			name, path, why);
	free(path);
}

/* Start the timed compute phase: barrier, then note the time. */
void dmd_compute_begin(dmd_rt *rt)
{
	MPI_Barrier(rt->cart);
	rt->t_start = MPI_Wtime();
}

/* End the timed compute phase and add its length to the compute time. */
void dmd_compute_end(dmd_rt *rt)
{
	rt->t_compute += MPI_Wtime() - rt->t_start;
}

/* The communicator of "axis": the axis sub-communicator, or the whole
 * mesh for axis -1.
 */
static MPI_Comm dmd_rt_comm(dmd_rt *rt, int axis)
{
	if (axis == -1)
		return rt->cart;
	dmd_rt_check_axis(rt, axis);
	return rt->axis[axis];
}

/* Stop with a message unless "root" is a rank of "comm". */
static void dmd_rt_check_root(dmd_rt *rt, MPI_Comm comm, int root,
	const char *what)
{
	int size;

	MPI_Comm_size(comm, &size);
	if (root < 0 || root >= size)
		dmd_fail(rt, "%s: bad root %d (the group has %d ranks)",
			what, root, size);
}

/* Broadcast a box along "axis" from coordinate "root" (axis -1: the whole
 * mesh, root a world rank).
 */
void dmd_bcast(dmd_rt *rt, int axis, int root, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt)
{
	struct dmd_rt_box box;
	MPI_Comm comm = dmd_rt_comm(rt, axis);
	int me;

	dmd_rt_check_root(rt, comm, root, "dmd_bcast");
	dmd_rt_check_box(rt, "dmd_bcast", ndim, ext, lo, cnt);
	dmd_rt_box_get(rt, rt->base, ndim, ext, lo, cnt, &box);
	MPI_Bcast(dmd_rt_box_ptr(rt, buf, &box), box.count, box.type, root,
		comm);
	dmd_rt_box_free(&box);
	MPI_Comm_rank(comm, &me);
	if (me != root && box.nelem > 0) {
		rt->bytes_recv += box.nelem * (long long) rt->esize;
		rt->messages++;
	}
}

/* Ring shift along "axis": send to (c - disp) mod P, receive from
 * (c + disp) mod P.  Empty boxes are neither sent nor received.
 */
void dmd_shift(dmd_rt *rt, int axis, int disp,
	const void *sbuf, int ndim, const long *sext, const long *slo,
	const long *scnt,
	void *rbuf, const long *rext, const long *rlo, const long *rcnt)
{
	struct dmd_rt_box sbox, rbox;
	MPI_Comm comm;
	int p, c, d, dst, src;

	comm = dmd_rt_comm(rt, axis);
	if (axis < 0)
		dmd_fail(rt, "dmd_shift needs a mesh axis");
	dmd_rt_check_box(rt, "dmd_shift send", ndim, sext, slo, scnt);
	dmd_rt_check_box(rt, "dmd_shift receive", ndim, rext, rlo, rcnt);
	p = rt->shape[axis];
	c = rt->coords[axis];
	d = ((disp % p) + p) % p;
	dst = (c - d + p) % p;
	src = (c + d) % p;
	dmd_rt_box_get(rt, rt->base, ndim, sext, slo, scnt, &sbox);
	dmd_rt_box_get(rt, rt->base, ndim, rext, rlo, rcnt, &rbox);
	MPI_Sendrecv(dmd_rt_box_ptr(rt, sbuf, &sbox), sbox.count, sbox.type,
		sbox.nelem ? dst : MPI_PROC_NULL, DMD_RT_TAG_SHIFT,
		dmd_rt_box_ptr(rt, rbuf, &rbox), rbox.count, rbox.type,
		rbox.nelem ? src : MPI_PROC_NULL, DMD_RT_TAG_SHIFT,
		comm, MPI_STATUS_IGNORE);
	dmd_rt_box_free(&sbox);
	dmd_rt_box_free(&rbox);
	if (src != c && rbox.nelem > 0) {
		rt->bytes_recv += rbox.nelem * (long long) rt->esize;
		rt->messages++;
	}
}

/* Start a group of point-to-point transfers. */
void dmd_xfer_begin(dmd_rt *rt)
{
	if (rt->in_xfer)
		dmd_fail(rt, "dmd_xfer_begin inside a transfer group");
	rt->in_xfer = 1;
	rt->n_reqs = 0;
}

/* The world rank of the mesh coordinates "coords". */
static int dmd_rt_coords_rank(dmd_rt *rt, const int *coords)
{
	int i, r = 0;

	for (i = 0; i < rt->n_axes; ++i) {
		if (coords[i] < 0 || coords[i] >= rt->shape[i])
			dmd_fail(rt, "mesh coordinate %d along axis %d lies "
				"outside [0, %d)", coords[i], i, rt->shape[i]);
		r = r * rt->shape[i] + coords[i];
	}
	return r;
}

/* A new slot in the request array of the current transfer group. */
static MPI_Request *dmd_rt_new_request(dmd_rt *rt, const char *what)
{
	if (!rt->in_xfer)
		dmd_fail(rt, "%s outside dmd_xfer_begin/dmd_xfer_end", what);
	if (rt->n_reqs == rt->cap_reqs) {
		rt->cap_reqs = rt->cap_reqs ? 2 * rt->cap_reqs : 16;
		rt->reqs = dmd_rt_realloc(rt, rt->reqs,
				rt->cap_reqs * sizeof(*rt->reqs));
		rt->statuses = dmd_rt_realloc(rt, rt->statuses,
				rt->cap_reqs * sizeof(*rt->statuses));
	}
	return &rt->reqs[rt->n_reqs++];
}

/* Post the receive of a box from the rank at mesh coordinates "src".
 * (The datatype may be freed at once: MPI keeps it until the request
 * completes.)
 */
void dmd_recv(dmd_rt *rt, const int *src, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt)
{
	struct dmd_rt_box box;
	int from = dmd_rt_coords_rank(rt, src);

	if (!rt->in_xfer)
		dmd_fail(rt, "dmd_recv outside dmd_xfer_begin/dmd_xfer_end");
	dmd_rt_check_box(rt, "dmd_recv", ndim, ext, lo, cnt);
	dmd_rt_box_get(rt, rt->base, ndim, ext, lo, cnt, &box);
	if (box.nelem == 0)
		return;
	MPI_Irecv(dmd_rt_box_ptr(rt, buf, &box), box.count, box.type, from,
		DMD_RT_TAG_XFER, rt->cart, dmd_rt_new_request(rt, "dmd_recv"));
	dmd_rt_box_free(&box);
	if (from != rt->rank) {
		rt->bytes_recv += box.nelem * (long long) rt->esize;
		rt->messages++;
	}
}

/* Post the send of a box to the rank at mesh coordinates "dst". */
void dmd_send(dmd_rt *rt, const int *dst, const void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt)
{
	struct dmd_rt_box box;
	int to = dmd_rt_coords_rank(rt, dst);

	if (!rt->in_xfer)
		dmd_fail(rt, "dmd_send outside dmd_xfer_begin/dmd_xfer_end");
	dmd_rt_check_box(rt, "dmd_send", ndim, ext, lo, cnt);
	dmd_rt_box_get(rt, rt->base, ndim, ext, lo, cnt, &box);
	if (box.nelem == 0)
		return;
	MPI_Isend(dmd_rt_box_ptr(rt, buf, &box), box.count, box.type, to,
		DMD_RT_TAG_XFER, rt->cart, dmd_rt_new_request(rt, "dmd_send"));
	dmd_rt_box_free(&box);
}

/* Copy a box between two local buffers (at once). */
void dmd_copy(dmd_rt *rt, void *dbuf, int ndim, const long *dext,
	const long *dlo, const void *sbuf, const long *sext, const long *slo,
	const long *cnt)
{
	dmd_rt_check_box(rt, "dmd_copy destination", ndim, dext, dlo, cnt);
	dmd_rt_check_box(rt, "dmd_copy source", ndim, sext, slo, cnt);
	dmd_rt_box_copy(rt, dbuf, ndim, dext, dlo, sbuf, sext, slo, cnt);
}

/* Add the contiguous box "src" (cnt[] elements, row-major) into the box
 * at lo[] of "dbuf" (extents ext[]); "src_ext"/"src_lo" describe "src" as
 * a box of a larger buffer (NULL: contiguous). */
static void dmd_rt_box_add(dmd_rt *rt, void *dbuf, int ndim, const long *ext,
	const long *lo, const void *src, const long *sext, const long *slo,
	const long *cnt)
{
	long idx[DMD_RT_MAX_DIMS] = { 0 };
	long n = 1, k;
	int d;

	for (d = 0; d < ndim; ++d)
		n *= cnt[d];
	for (k = 0; k < n; ++k) {
		long off = 0, soff = 0;
		for (d = 0; d < ndim; ++d) {
			off = off * ext[d] + lo[d] + idx[d];
			soff = sext ? soff * sext[d] + slo[d] + idx[d] :
				soff * cnt[d] + idx[d];
		}
		if (rt->esize == sizeof(float))
			((float *) dbuf)[off] += ((const float *) src)[soff];
		else
			((double *) dbuf)[off] += ((const double *) src)[soff];
		for (d = ndim - 1; d >= 0; --d) {
			if (++idx[d] < cnt[d])
				break;
			idx[d] = 0;
		}
	}
}

/* Post the receive of a contribution from "src" that dmd_xfer_end adds
 * into the box (lo[], cnt[]) of "buf" (extents ext[]). */
void dmd_recv_sum(dmd_rt *rt, const int *src, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt)
{
	struct dmd_rt_sum *s;
	long n = 1;
	int d, from = dmd_rt_coords_rank(rt, src);

	if (!rt->in_xfer)
		dmd_fail(rt, "dmd_recv_sum outside dmd_xfer_begin/"
			"dmd_xfer_end");
	dmd_rt_check_box(rt, "dmd_recv_sum", ndim, ext, lo, cnt);
	for (d = 0; d < ndim; ++d)
		n *= cnt[d];
	if (n == 0)
		return;
	if (n > INT_MAX)
		dmd_fail(rt, "dmd_recv_sum: box of %ld elements is too large",
			n);
	if (rt->n_sums == rt->cap_sums) {
		rt->cap_sums = rt->cap_sums ? 2 * rt->cap_sums : 8;
		rt->sums = dmd_rt_realloc(rt, rt->sums,
			rt->cap_sums * sizeof(*rt->sums));
	}
	s = &rt->sums[rt->n_sums++];
	s->tmp = dmd_rt_realloc(rt, NULL, n * rt->esize);
	s->dbuf = buf;
	s->ndim = ndim;
	for (d = 0; d < ndim; ++d) {
		s->ext[d] = ext[d];
		s->lo[d] = lo[d];
		s->cnt[d] = cnt[d];
	}
	MPI_Irecv(s->tmp, (int) n, rt->base, from, DMD_RT_TAG_XFER, rt->cart,
		dmd_rt_new_request(rt, "dmd_recv_sum"));
	if (from != rt->rank) {
		rt->bytes_recv += n * (long long) rt->esize;
		rt->messages++;
	}
}

/* Add a box of a local buffer into a box of another (at once). */
void dmd_copy_sum(dmd_rt *rt, void *dbuf, int ndim, const long *dext,
	const long *dlo, const void *sbuf, const long *sext, const long *slo,
	const long *cnt)
{
	dmd_rt_check_box(rt, "dmd_copy_sum destination", ndim, dext, dlo,
		cnt);
	dmd_rt_check_box(rt, "dmd_copy_sum source", ndim, sext, slo, cnt);
	dmd_rt_box_add(rt, dbuf, ndim, dext, dlo, sbuf, sext, slo, cnt);
}

/* Wait for every transfer of the group, then add the contributions
 * received with dmd_recv_sum. */
void dmd_xfer_end(dmd_rt *rt)
{
	int i;

	if (!rt->in_xfer)
		dmd_fail(rt, "dmd_xfer_end without dmd_xfer_begin");
	if (rt->n_reqs > 0)
		MPI_Waitall(rt->n_reqs, rt->reqs, rt->statuses);
	for (i = 0; i < rt->n_sums; ++i) {
		struct dmd_rt_sum *s = &rt->sums[i];
		dmd_rt_box_add(rt, s->dbuf, s->ndim, s->ext, s->lo, s->tmp,
			NULL, NULL, s->cnt);
		free(s->tmp);
	}
	rt->n_sums = 0;
	rt->n_reqs = 0;
	rt->in_xfer = 0;
}

/* Do the two boxes (at p and q, n elements each) share memory? */
static int dmd_rt_overlap(const dmd_rt *rt, const void *p, const void *q,
	long n)
{
	const char *a = p, *b = q;
	size_t len = n * rt->esize;

	return a < b + len && b < a + len;
}

/* Sum-reduce a box onto "root" of "axis" (axis -1: the whole mesh, root a
 * world rank).  The contribution is packed into a contiguous buffer unless
 * it is contiguous already; at the root the sum is reduced in place and
 * unpacked into the rbuf box.
 */
void dmd_reduce(dmd_rt *rt, int axis, int root,
	const void *sbuf, int ndim, const long *sext, const long *slo,
	void *rbuf, const long *rext, const long *rlo, const long *cnt)
{
	struct dmd_rt_box sbox, rbox;
	MPI_Comm comm = dmd_rt_comm(rt, axis);
	void *tmp = NULL, *sp, *rp = NULL;
	int me, size, n;
	long zero[DMD_RT_MAX_DIMS] = { 0 };

	dmd_rt_check_root(rt, comm, root, "dmd_reduce");
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &size);
	dmd_rt_check_box(rt, "dmd_reduce send", ndim, sext, slo, cnt);
	dmd_rt_box_get(rt, rt->base, ndim, sext, slo, cnt, &sbox);
	n = dmd_rt_int(rt, sbox.nelem, "dmd_reduce box size");
	sp = dmd_rt_box_ptr(rt, sbuf, &sbox);
	if (me == root) {
		dmd_rt_check_box(rt, "dmd_reduce receive", ndim, rext, rlo,
			cnt);
		dmd_rt_box_get(rt, rt->base, ndim, rext, rlo, cnt, &rbox);
		rp = dmd_rt_box_ptr(rt, rbuf, &rbox);
		if (n > 0 && !rbox.derived && !sbox.derived && sp == rp) {
			sp = MPI_IN_PLACE;
		} else if (n > 0 && (rbox.derived || sbox.derived ||
			   dmd_rt_overlap(rt, sp, rp, n))) {
			tmp = dmd_rt_malloc(rt, n * rt->esize);
			dmd_rt_box_copy(rt, tmp, ndim, cnt, zero, sbuf, sext,
				slo, cnt);
			sp = MPI_IN_PLACE;
		}
		dmd_rt_box_free(&rbox);
	} else if (sbox.derived) {
		tmp = dmd_rt_malloc(rt, n * rt->esize);
		dmd_rt_box_copy(rt, tmp, ndim, cnt, zero, sbuf, sext, slo, cnt);
		sp = tmp;
	}
	dmd_rt_box_free(&sbox);
	MPI_Reduce(sp, me == root ? (tmp ? tmp : rp) : NULL, n, rt->base,
		MPI_SUM, root, comm);
	if (me == root && tmp)
		dmd_rt_box_copy(rt, rbuf, ndim, rext, rlo, tmp, cnt, zero, cnt);
	free(tmp);
	if (me == root && n > 0) {
		rt->bytes_recv += (long long) (size - 1) * n * rt->esize;
		rt->messages += size - 1;
	}
}

/* Gather the stats and (if asked for) print them on rank 0; free
 * everything and finalize MPI.
 */
int dmd_finish(dmd_rt *rt)
{
	long long in[2] = { rt->bytes_recv, rt->messages }, sum[2] = { 0, 0 };
	long long max_bytes = 0;
	double t = 0;
	int i;

	MPI_Reduce(&rt->t_compute, &t, 1, MPI_DOUBLE, MPI_MAX, 0, rt->cart);
	MPI_Reduce(in, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, rt->cart);
	MPI_Reduce(&rt->bytes_recv, &max_bytes, 1, MPI_LONG_LONG, MPI_MAX, 0,
		rt->cart);
	if (rt->stats && rt->rank == 0) {
		printf("{\"ranks\": %d, \"classes\": %d, \"time_s\": %.9g, ",
			rt->size, rt->job->nclasses, t);
		if (rt->job->flops >= 0 && t > 0)
			printf("\"gflops\": %.6g, ", rt->job->flops / t / 1e9);
		else
			printf("\"gflops\": null, ");
		printf("\"bytes_moved_total\": %lld, \"bytes_recv_max\": %lld, "
			"\"messages\": %lld}\n", sum[0], max_bytes, sum[1]);
		fflush(stdout);
	}

	for (i = 0; i < rt->n_bufs; ++i)
		free(rt->bufs[i]);
	free(rt->bufs);
	free(rt->reqs);
	free(rt->sums);
	free(rt->statuses);
	free(rt->job_dir);
	for (i = 0; i < rt->n_axes; ++i)
		MPI_Comm_free(&rt->axis[i]);
	MPI_Comm_free(&rt->cart);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	MPI_Errhandler_free(&rt->errh);
	free(rt);
	MPI_Finalize();
	return 0;
}
