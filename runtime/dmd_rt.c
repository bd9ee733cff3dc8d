/* dmd_rt.c: the core of the runtime library of the programs distmpmd
 * emits: start-up (checks of the world against the job, the mesh), buffers,
 * the timed phases and steps, the stats and the end.
 *
 * One struct dmd_rt per process (dmd_rt_private.h) holds the mesh (a
 * Cartesian communicator without reordering, so that mesh rank == world
 * rank, and one sub-communicator per axis), the buffers handed out by
 * dmd_alloc, the transfer requests, the datatype cache, the stats and the
 * trace.  Errors all end in dmd_fail (one rank stops the job) or
 * dmd_rt_fail_all (every rank knows about the error and rank 0 prints the
 * message): never a hang.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"

/* Stop every process; never returns.  The pause first lets the launcher
 * forward what this rank has just written to stderr: without it,
 * MPICH's mpiexec sometimes tore the job down before it did, and the
 * message was lost.
 */
static void dmd_rt_abort(void) __attribute__((noreturn));
static void dmd_rt_abort(void)
{
	usleep(100000);
	MPI_Abort(dmd_rt_world(), 1);
	exit(1);
}

/* This process's world rank, or -1 if MPI is not running. */
static int dmd_rt_world_rank(void)
{
	int init = 0, fin = 0, rank = -1;

	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (init && !fin)
		MPI_Comm_rank(dmd_rt_world(), &rank);
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
 * call, or a verdict rank 0 broadcast): rank 0 prints "distmpmd:
 * <message>", then all ranks meet in a barrier (so that the message is out
 * before anybody aborts) and abort.  "rt" may be NULL (early in dmd_init).
 */
void dmd_rt_fail_all(dmd_rt *rt, const char *fmt, ...)
{
	va_list ap;
	int rank = rt ? rt->rank : dmd_rt_world_rank();

	if (rank == 0) {
		char msg[2 * DMD_RT_TEXT];

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		fprintf(stderr, "distmpmd: %s\n", msg);
		fflush(stderr);
	}
	MPI_Barrier(dmd_rt_world());
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

/* malloc that never returns NULL (it stops the job instead). */
void *dmd_rt_malloc(dmd_rt *rt, size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		dmd_fail(rt, "out of memory (%zu bytes)", size);
	return p;
}

/* Make room for "need" elements of "elem" bytes in the array "p" (owned,
 * may be NULL) whose capacity is *cap; return the (maybe moved) array.
 */
void *dmd_rt_grow(dmd_rt *rt, void *p, int64_t *cap, int64_t need,
	size_t elem)
{
	int64_t n = *cap;

	if (need <= n)
		return p;
	n = n ? n : 8;
	while (n < need)
		n *= 2;
	if ((uint64_t) n > SIZE_MAX / elem)
		dmd_fail(rt, "out of memory (%" PRId64 " items)", n);
	p = realloc(p, (size_t) n * elem);
	if (!p)
		dmd_fail(rt, "out of memory (%" PRId64 " items of %zu bytes)",
			n, elem);
	*cap = n;
	return p;
}

/* A newly allocated copy of "s". */
static char *dmd_rt_strdup(dmd_rt *rt, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = dmd_rt_malloc(rt, n);

	memcpy(p, s, n);
	return p;
}

/* Return a newly allocated "job_dir/file", or a copy of "file" if it is
 * absolute.
 */
char *dmd_rt_path(dmd_rt *rt, const char *file)
{
	size_t ld, lf;
	char *p;

	if (file[0] == '/')
		return dmd_rt_strdup(rt, file);
	lf = strlen(file);
	ld = strlen(rt->job_dir);
	p = dmd_rt_malloc(rt, ld + 1 + lf + 1);
	memcpy(p, rt->job_dir, ld);
	p[ld] = '/';
	memcpy(p + ld + 1, file, lf + 1);
	return p;
}

/* Number of elements in a box of extents cnt[0..ndim) (1 if ndim == 0). */
int64_t dmd_rt_nelem(int ndim, const int64_t *cnt)
{
	int64_t n = 1;
	int i;

	for (i = 0; i < ndim; ++i)
		n *= cnt[i];
	return n;
}

/* Stop with a message unless the box (lo, cnt) lies inside a buffer of
 * extents bx[] (an empty box may have any origin).
 */
void dmd_rt_check_box(dmd_rt *rt, const char *what, int ndim,
	const int64_t *bx, const int64_t *lo, const int64_t *cnt)
{
	int i, empty = 0;

	if (ndim < 0 || ndim > DMD_RT_MAX_DIMS)
		dmd_fail(rt, "%s: bad number of dimensions %d", what, ndim);
	for (i = 0; i < ndim; ++i) {
		if (cnt[i] < 0)
			dmd_fail(rt, "%s: negative extent %" PRId64
				" in dimension %d", what, cnt[i], i);
		empty |= cnt[i] == 0;
	}
	if (empty)
		return;
	for (i = 0; i < ndim; ++i)
		if (bx[i] < 0 || lo[i] < 0 || lo[i] > bx[i] - cnt[i])
			dmd_fail(rt, "%s: box [%" PRId64 ", %" PRId64 ") of "
				"dimension %d lies outside [0, %" PRId64 ")",
				what, lo[i], lo[i] + cnt[i], i, bx[i]);
}

/* Check the job description; a problem is reported by rank 0 and stops
 * every rank (each rank finds the same problem).
 */
static void dmd_rt_check_job(int size, const dmd_job_desc *job)
{
	int64_t prod = 1;
	int i, v, all;

	if (!job)
		dmd_rt_fail_all(NULL, "no job description");
	if (job->n_axes < 0 || job->n_axes > DMD_RT_MAX_DIMS)
		dmd_rt_fail_all(NULL, "job '%s' has %d mesh axes (at most %d)",
			job->job, job->n_axes, DMD_RT_MAX_DIMS);
	if (job->dtype != DMD_RT_F32 && job->dtype != DMD_RT_F64)
		dmd_rt_fail_all(NULL, "job '%s': bad dtype %d",
			job->job, job->dtype);
	if (job->n_steps < 0 || job->n_tensors < 0)
		dmd_rt_fail_all(NULL, "job '%s': bad number of steps or "
			"tensors", job->job);
	for (i = 0; i < job->n_axes; ++i) {
		if (job->mesh_shape[i] < 1)
			dmd_rt_fail_all(NULL, "job '%s': mesh axis %d has "
				"extent %d", job->job, i, job->mesh_shape[i]);
		prod *= job->mesh_shape[i];
		if (prod > INT_MAX)
			dmd_rt_fail_all(NULL, "job '%s': mesh too large",
				job->job);
	}
	if (prod != job->nranks)
		dmd_rt_fail_all(NULL, "job '%s': the mesh has %" PRId64
			" ranks, the job says %d", job->job, prod, job->nranks);
	all = job->n_axes;
	if (job->n_views < 0 || (job->n_views > 0 && !job->views))
		dmd_rt_fail_all(NULL, "job '%s': bad views", job->job);
	for (v = 0; v < job->n_views; ++v) {
		const dmd_view_desc *vw = &job->views[v];

		if (vw->n_axes < 1 || vw->n_axes > DMD_RT_MAX_DIMS ||
		    all + vw->n_axes > DMD_RT_MAX_AXES)
			dmd_rt_fail_all(NULL, "job '%s': view %d has %d axes",
				job->job, v, vw->n_axes);
		all += vw->n_axes;
		prod = 1;
		for (i = 0; i < vw->n_axes; ++i) {
			if (vw->shape[i] < 1)
				dmd_rt_fail_all(NULL, "job '%s': axis %d of "
					"view %d has extent %d", job->job, i,
					v, vw->shape[i]);
			prod *= vw->shape[i];
			if (prod > job->nranks)
				dmd_rt_fail_all(NULL, "job '%s': view %d has "
					"more ranks than the mesh", job->job,
					v);
		}
	}
	if (size != job->nranks)
		dmd_rt_fail_all(NULL,
			"job '%s' needs %d ranks but was started with %d",
			job->job, job->nranks, size);
}

/* Check that this rank lies in one of the inclusive "ranges" of class
 * "class_id".  Every wrong rank prints a message; then (after an
 * Allreduce, so that nobody waits for a rank that has gone) every rank
 * aborts.
 */
static void dmd_rt_check_class(int rank, int class_id, int n_ranges,
	const int64_t (*ranges)[2])
{
	int i, mine = 0, bad, any = 0;

	for (i = 0; i < n_ranges; ++i)
		if (ranges[i][0] <= rank && rank <= ranges[i][1])
			mine = 1;
	bad = !mine;
	if (bad) {
		fprintf(stderr, "distmpmd: rank %d runs the program of class "
			"%d, but belongs to another class (wrong appfile?)\n",
			rank, class_id);
		fflush(stderr);
	}
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, dmd_rt_world());
	if (any)
		dmd_rt_abort();
}

/* Build the Cartesian communicator and the per-axis sub-communicators
 * (they inherit the error handler of MPI_COMM_WORLD).
 */
static void dmd_rt_make_mesh(dmd_rt *rt)
{
	int periods[DMD_RT_MAX_DIMS];
	int i;

	if (rt->n_axes == 0) {
		MPI_Comm_dup(dmd_rt_world(), &rt->cart);
		return;
	}
	for (i = 0; i < rt->n_axes; ++i)
		periods[i] = 1;
	MPI_Cart_create(dmd_rt_world(), rt->n_axes, rt->shape, periods, 0,
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

/* The coordinates of this rank on the views and the communicators of
 * their axes: along axis j of a view, the ranks of the view with the
 * same coordinates along its other axes, ordered by their coordinate
 * along j (so that a coordinate is a rank in the communicator).  Ranks
 * past the view get MPI_COMM_NULL, and the coordinates of the row-major
 * order continued (the first one past its extent), as the compiler
 * writes them.  Collective.
 */
static void dmd_rt_make_views(dmd_rt *rt)
{
	const dmd_job_desc *job = rt->job;
	int v, j, a = rt->n_axes;

	for (v = 0; v < job->n_views; ++v) {
		const dmd_view_desc *vw = &job->views[v];
		int64_t n = 1, stride, r = rt->rank;

		for (j = 0; j < vw->n_axes; ++j)
			n *= vw->shape[j];
		stride = n;
		for (j = 0; j < vw->n_axes; ++j, ++a) {
			int color = MPI_UNDEFINED, key = 0;

			stride /= vw->shape[j];
			rt->shape[a] = vw->shape[j];
			rt->coords[a] = (int) (j ? r / stride % vw->shape[j] :
				r / stride);
			if (r < n) {
				key = rt->coords[a];
				color = (int) (r - key * stride);
			}
			MPI_Comm_split(dmd_rt_world(), color, key, &rt->axis[a]);
		}
	}
	rt->n_all = a;
}

/* Set rt->job_dir: DMD_JOB_DIR if set and not empty; else job->job_dir
 * if absolute; else job->job_dir (or nothing) relative to the directory
 * of the running binary (/proc/self/exe).
 */
static void dmd_rt_set_job_dir(dmd_rt *rt)
{
	const char *env = getenv("DMD_JOB_DIR");
	const char *jd = rt->job->job_dir;
	char exe[PATH_MAX];
	char *slash, *p;
	ssize_t n;
	size_t le, lj;

	if (env && *env) {
		rt->job_dir = dmd_rt_strdup(rt, env);
		return;
	}
	if (jd && jd[0] == '/') {
		rt->job_dir = dmd_rt_strdup(rt, jd);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		dmd_fail(rt, "cannot find the running binary "
			"(/proc/self/exe): %s", strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*(slash == exe ? slash + 1 : slash) = '\0';
	if (!jd || !*jd || !strcmp(jd, ".")) {
		rt->job_dir = dmd_rt_strdup(rt, exe);
		return;
	}
	le = strlen(exe);
	lj = strlen(jd);
	p = dmd_rt_malloc(rt, le + 1 + lj + 1);
	memcpy(p, exe, le);
	p[le] = '/';
	memcpy(p + le + 1, jd, lj + 1);
	rt->job_dir = p;
}

/* What a class program takes from its environment: the job directory,
 * DMD_STATS, DMD_TRACE, DMD_DUMP_BLOCKS (not in a library run). */
static void dmd_rt_read_env(dmd_rt *rt)
{
	const char *env;

	dmd_rt_set_job_dir(rt);

	env = getenv("DMD_STATS");
	rt->stats = env && *env && strcmp(env, "0") != 0;
	env = getenv("DMD_TRACE");
	if (env && *env) {
		rt->trace_path = dmd_rt_strdup(rt, env);
		rt->tracing = 1;
	}
	env = getenv("DMD_DUMP_BLOCKS");
	if (env && *env)
		rt->dump_dir = dmd_rt_strdup(rt, env);
}

/* MPI_Init, check the world against the job and this rank against its
 * class, build the mesh, read the environment, check the output
 * destinations and the BLAS kernels.  In a library run (dmd_rt_lib.h):
 * no MPI_Init, the dup of the caller's communicator as the world, no
 * environment, no output destinations, no BLAS advice.
 */
dmd_rt *dmd_init(int *argc, char ***argv, const dmd_job_desc *job,
	int class_id, int n_ranges, const int64_t (*ranges)[2])
{
	const union { uint32_t u; unsigned char c[4]; } endian = { 1 };
	const struct dmd_rt_lib_call *lib = dmd_rt_lib_call();
	dmd_rt *rt;
	int rank, size, i, n;

	if (!lib) {
		dmd_rt_mpi_before_init();
		MPI_Init(argc, argv);
	}
	MPI_Comm_rank(dmd_rt_world(), &rank);
	MPI_Comm_size(dmd_rt_world(), &size);
	if (!endian.c[0])
		dmd_rt_fail_all(NULL, ".npy I/O needs a little-endian host");
	dmd_rt_check_job(size, job);
	dmd_rt_check_class(rank, class_id, n_ranges, ranges);

	rt = calloc(1, sizeof(*rt));
	if (!rt)
		dmd_fail(NULL, "out of memory");
	rt->job = job;
	rt->class_id = class_id;
	rt->rank = rank;
	rt->size = size;
	rt->step_open = -1;
	MPI_Comm_create_errhandler(&dmd_rt_mpi_error, &rt->errh);
	MPI_Comm_set_errhandler(dmd_rt_world(), rt->errh);
	if (!lib)
		MPI_Comm_set_errhandler(MPI_COMM_SELF, rt->errh);
	rt->n_axes = job->n_axes;
	for (i = 0; i < rt->n_axes; ++i)
		rt->shape[i] = job->mesh_shape[i];
	dmd_rt_make_mesh(rt);
	dmd_rt_make_views(rt);

	rt->base = job->dtype == DMD_RT_F64 ? MPI_DOUBLE : MPI_FLOAT;
	rt->esize = job->dtype == DMD_RT_F64 ? 8 : 4;
	rt->descr = job->dtype == DMD_RT_F64 ? "<f8" : "<f4";
	if (gethostname(rt->host, sizeof(rt->host) - 1) != 0 || !rt->host[0])
		strcpy(rt->host, "localhost");
	for (i = 0; rt->host[i]; ++i)
		if (rt->host[i] == '/')
			rt->host[i] = '_';
	if (!lib)
		dmd_rt_read_env(rt);
	n = job->n_steps;
	rt->step_time = calloc(n ? n : 1, sizeof(*rt->step_time));
	rt->step_bytes = calloc(n ? n : 1, sizeof(*rt->step_bytes));
	rt->step_msgs = calloc(n ? n : 1, sizeof(*rt->step_msgs));
	if (!rt->step_time || !rt->step_bytes || !rt->step_msgs)
		dmd_fail(rt, "out of memory");

	if (!lib)
		dmd_rt_check_outputs(rt);
	if (rank == 0 && !lib)
		dmd_rt_blas_check(rt);
	MPI_Barrier(rt->cart);
	rt->t0 = MPI_Wtime();
	return rt;
}

/* Stop with a message unless 0 <= axis < n_all. */
static void dmd_rt_check_axis(const dmd_rt *rt, int axis)
{
	if (axis < 0 || axis >= rt->n_all)
		dmd_fail((dmd_rt *) rt, "bad mesh axis %d (the mesh and its "
			"views have %d)", axis, rt->n_all);
}

/* This rank's coordinate along "axis". */
int64_t dmd_coord(const dmd_rt *rt, int axis)
{
	dmd_rt_check_axis(rt, axis);
	return rt->coords[axis];
}

/* This rank's world rank. */
int dmd_rank(const dmd_rt *rt)
{
	return rt->rank;
}

/* Allocate a zero-filled buffer of n elements, aligned to 64 bytes, to be
 * freed by dmd_finish.
 */
void *dmd_alloc(dmd_rt *rt, int64_t n)
{
	size_t size;
	void *p;

	if (n < 0 || (uint64_t) n > (SIZE_MAX - 64) / rt->esize)
		dmd_fail(rt, "cannot allocate %" PRId64 " elements", n);
	p = dmd_rt_lib_alloc(rt, n);
	if (p)
		return p;
	size = ((size_t) n * rt->esize + 63) / 64 * 64;
	p = aligned_alloc(64, size ? size : 64);
	if (!p)
		dmd_fail(rt, "out of memory allocating %" PRId64 " elements "
			"of %zu bytes", n, rt->esize);
	memset(p, 0, size);
	rt->bufs = dmd_rt_grow(rt, rt->bufs, &rt->cap_bufs, rt->n_bufs + 1,
		sizeof(*rt->bufs));
	rt->bufs[rt->n_bufs++] = p;
	return p;
}

/* Start the timed compute phase: barrier, then note the time (the first
 * one is also the time origin of the trace).
 */
void dmd_compute_begin(dmd_rt *rt)
{
	MPI_Barrier(rt->cart);
	rt->t_start = MPI_Wtime();
	if (!rt->have_t0) {
		rt->t0 = rt->t_start;
		rt->have_t0 = 1;
	}
}

/* End the timed compute phase and add its length to the compute time. */
void dmd_compute_end(dmd_rt *rt)
{
	double t = MPI_Wtime();

	rt->t_compute += t - rt->t_start;
	dmd_rt_trace_event(rt, DMD_RT_EV_COMPUTE, -1, rt->t_start, t, 0);
}

/* Stop with a message unless 0 <= step < n_steps. */
static void dmd_rt_check_step(dmd_rt *rt, int step, const char *what)
{
	if (step < 0 || step >= rt->job->n_steps)
		dmd_fail(rt, "%s: bad step %d (the program has %d)", what,
			step, rt->job->n_steps);
}

/* Start an execution of step "step". */
void dmd_step_begin(dmd_rt *rt, int step)
{
	dmd_rt_check_step(rt, step, "dmd_step_begin");
	if (rt->step_open >= 0)
		dmd_fail(rt, "dmd_step_begin(%d) inside step %d", step,
			rt->step_open);
	rt->step_open = step;
	rt->t_step = MPI_Wtime();
}

/* End the execution of step "step": add its time to the step's. */
void dmd_step_end(dmd_rt *rt, int step)
{
	double t = MPI_Wtime();

	dmd_rt_check_step(rt, step, "dmd_step_end");
	if (rt->step_open != step)
		dmd_fail(rt, "dmd_step_end(%d) outside that step", step);
	rt->step_open = -1;
	rt->step_time[step] += t - rt->t_step;
	dmd_rt_trace_event(rt, DMD_RT_EV_STEP, step, rt->t_step, t, 0);
}

/* Append "s" to the string "buf" (of "size" bytes, *len used so far),
 * keeping it NUL-terminated; a string that does not fit is cut.
 */
static void dmd_rt_cat(char *buf, size_t size, size_t *len,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void dmd_rt_cat(char *buf, size_t size, size_t *len,
	const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t) n;
	if (*len >= size)
		*len = size;
}

/* The stats line (one JSON object and '\n'), newly allocated. */
static char *dmd_rt_stats_line(dmd_rt *rt, double t, const int64_t *sum,
	int64_t max_bytes, const double *st, const int64_t *sb,
	const int64_t *sm)
{
	const char *core = dmd_rt_blas_core();
	int n = rt->job->n_steps;
	size_t size = 512 + 2 * strlen(core) + (size_t) n * 128;
	size_t len = 0;
	char *buf = dmd_rt_malloc(rt, size);
	int i;

	buf[0] = '\0';
	dmd_rt_cat(buf, size, &len, "{\"ranks\": %d, \"classes\": %d, "
		"\"time_s\": %.9g, ", rt->size, rt->job->nclasses, t);
	if (rt->job->flops >= 0 && t > 0)
		dmd_rt_cat(buf, size, &len, "\"gflops\": %.6g, ",
			rt->job->flops / t / 1e9);
	else
		dmd_rt_cat(buf, size, &len, "\"gflops\": null, ");
	dmd_rt_cat(buf, size, &len, "\"bytes_moved_total\": %" PRId64
		", \"bytes_recv_max\": %" PRId64 ", \"messages\": %" PRId64
		", \"blas\": \"", sum[0], max_bytes, sum[1]);
	for (i = 0; core[i]; ++i) {
		unsigned char c = core[i];

		if (c == '"' || c == '\\')
			dmd_rt_cat(buf, size, &len, "\\%c", c);
		else if (c >= 0x20)
			dmd_rt_cat(buf, size, &len, "%c", c);
	}
	dmd_rt_cat(buf, size, &len, "\", \"steps\": [");
	for (i = 0; i < n; ++i)
		dmd_rt_cat(buf, size, &len, "%s{\"time_s\": %.9g, "
			"\"bytes_moved_total\": %" PRId64 ", \"messages\": %"
			PRId64 "}", i ? ", " : "", st[i], sb[i], sm[i]);
	dmd_rt_cat(buf, size, &len, "]}\n");
	return buf;
}

/* Gather the stats over the ranks and, if asked for, print them on
 * rank 0 (one line, flushed).
 */
static void dmd_rt_stats(dmd_rt *rt)
{
	int64_t in[2] = { rt->bytes_recv, rt->messages }, sum[2] = { 0, 0 };
	int64_t max_bytes = 0, *sb, *sm;
	int n = rt->job->n_steps;
	double t = 0, *st;

	st = calloc(n ? n : 1, sizeof(*st));
	sb = calloc(n ? n : 1, sizeof(*sb));
	sm = calloc(n ? n : 1, sizeof(*sm));
	if (!st || !sb || !sm)
		dmd_fail(rt, "out of memory");
	MPI_Reduce(&rt->t_compute, &t, 1, MPI_DOUBLE, MPI_MAX, 0, rt->cart);
	MPI_Reduce(in, sum, 2, MPI_INT64_T, MPI_SUM, 0, rt->cart);
	MPI_Reduce(&rt->bytes_recv, &max_bytes, 1, MPI_INT64_T, MPI_MAX, 0,
		rt->cart);
	if (n > 0) {
		MPI_Reduce(rt->step_time, st, n, MPI_DOUBLE, MPI_MAX, 0,
			rt->cart);
		MPI_Reduce(rt->step_bytes, sb, n, MPI_INT64_T, MPI_SUM, 0,
			rt->cart);
		MPI_Reduce(rt->step_msgs, sm, n, MPI_INT64_T, MPI_SUM, 0,
			rt->cart);
	}
	if (rt->stats && rt->rank == 0) {
		char *line = dmd_rt_stats_line(rt, t, sum, max_bytes, st, sb,
			sm);

		fputs(line, stdout);
		fflush(stdout);
		free(line);
	}
	free(st);
	free(sb);
	free(sm);
}

/* Gather the stats and (if asked for) print them on rank 0, write the
 * trace (if asked for); free everything and finalize MPI.
 */
int dmd_finish(dmd_rt *rt)
{
	int64_t i;

	if (rt->step_open >= 0)
		dmd_fail(rt, "dmd_finish inside step %d", rt->step_open);
	if (rt->n_inflight > 0)
		dmd_fail(rt, "transfer '%s' was posted but never waited for",
			rt->inflight[0]->label);
	dmd_rt_stats(rt);
	if (rt->tracing)
		dmd_rt_trace_write(rt);

	for (i = 0; i < rt->n_bufs; ++i)
		free(rt->bufs[i]);
	free(rt->bufs);
	dmd_rt_reqs_free(rt);
	dmd_rt_types_free(rt);
	free(rt->step_time);
	free(rt->step_bytes);
	free(rt->step_msgs);
	free(rt->ev);
	free(rt->trace_path);
	free(rt->dump_dir);
	free(rt->job_dir);
	for (i = 0; i < rt->n_all; ++i)
		if (rt->axis[i] != MPI_COMM_NULL)
			MPI_Comm_free(&rt->axis[i]);
	MPI_Comm_free(&rt->cart);
	if (dmd_rt_lib_call()) {
		MPI_Comm_set_errhandler(dmd_rt_world(), MPI_ERRORS_ARE_FATAL);
		MPI_Errhandler_free(&rt->errh);
		free(rt);
		return 0;
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	MPI_Errhandler_free(&rt->errh);
	free(rt);
	MPI_Finalize();
	return 0;
}
