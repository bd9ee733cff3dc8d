/* dmd_rt_lib.c: the runtime's library mode (dmd_rt_lib.h): the checks of
 * NAME_run's arguments, the run of the caller's class on a dup of the
 * caller's communicator, the blocks (NAME_block) and the copies between
 * the caller's blocks and the program's buffers (none where the buffer
 * is the block).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dmd_rt_lib.h"
#include "dmd_rt_private.h"

/* The run in progress (NULL: none, or a class program's main). */
static struct dmd_rt_lib_call *dmd_rt_lib_cur;

/* The library call in progress, or NULL. */
struct dmd_rt_lib_call *dmd_rt_lib_call(void)
{
	return dmd_rt_lib_cur;
}

/* The communicator that stands for the world: the dup of the caller's
 * communicator in a library run, else MPI_COMM_WORLD. */
MPI_Comm dmd_rt_world(void)
{
	return dmd_rt_lib_cur ? dmd_rt_lib_cur->comm : MPI_COMM_WORLD;
}

/* Write the message of "fmt" into lib->err; return 1 (NAME_run's
 * failure). */
static int dmd_rt_lib_err(const dmd_lib_desc *lib, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int dmd_rt_lib_err(const dmd_lib_desc *lib, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lib->err, lib->err_size, fmt, ap);
	va_end(ap);
	return 1;
}

/* The entry of blocks[] of rank "rank" and library tensor "t". */
static const int64_t *dmd_rt_lib_entry(const dmd_lib_desc *lib, int rank,
	int t)
{
	return lib->blocks + ((int64_t) rank * lib->n_files + t) *
		(1 + 2 * lib->max_dims);
}

/* The block of library tensor "t" that "rank" holds: its number of
 * dimensions, its global offset[] and extent[]; -1 if it holds none of
 * it (or rank or t is out of range). */
int dmd_lib_block(const dmd_lib_desc *lib, int rank, int t,
	int64_t offset[], int64_t extent[])
{
	const int64_t *e;
	int d, n;

	if (!lib || rank < 0 || rank >= lib->job->nranks || t < 0 ||
	    t >= lib->n_files)
		return -1;
	e = dmd_rt_lib_entry(lib, rank, t);
	n = (int) e[0];
	for (d = 0; d < n; ++d) {
		if (offset)
			offset[d] = e[1 + d];
		if (extent)
			extent[d] = e[1 + lib->max_dims + d];
	}
	return n;
}

/* The library tensor of job tensor "tensor", or -1 (it has no file). */
static int dmd_rt_lib_index(const dmd_lib_desc *lib, int tensor)
{
	int i;

	for (i = 0; i < lib->n_files; ++i)
		if (lib->file_tensor[i] == tensor)
			return i;
	return -1;
}

/* In a library run, if job tensor "tensor" is one of the library's:
 * check that the block (lo, ext) is the one NAME_block gives this rank
 * and return the caller's block (NULL if empty); else return NULL and
 * set *mine to 0.  Along a cyclic dimension, lo is the local origin of
 * the rank's blocks (b Lmax for holder b, see dmd_job_desc) and NAME_block
 * gives the global index of their first element (b S): lo is compared by
 * that index (dmd_rt_global), the extents as they are (the number of
 * elements the holder has, NUMROC), so that the caller's block, its
 * blocks one after another, is the program's local box. */
static void *dmd_rt_lib_user(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, int *mine)
{
	const struct dmd_rt_lib_call *c = dmd_rt_lib_cur;
	const int64_t *cyc = rt->job->cyclic ? rt->job->cyclic[tensor] : NULL;
	int64_t off[DMD_RT_MAX_DIMS], x[DMD_RT_MAX_DIMS];
	int t, n, d, ndim = rt->job->tensors[tensor].ndim;

	*mine = 0;
	if (!c)
		return NULL;
	t = dmd_rt_lib_index(c->lib, tensor);
	if (t < 0)
		return NULL;
	*mine = 1;
	n = dmd_lib_block(c->lib, rt->rank, t, off, x);
	if (dmd_rt_nelem(ndim, ext) == 0 && n < 0)
		return NULL;
	if (n != ndim)
		dmd_fail(rt, "tensor '%s': the program's block is not the "
			"library's (internal error)",
			rt->job->tensors[tensor].name);
	for (d = 0; d < ndim; ++d)
		if (off[d] != dmd_rt_global(cyc, d, lo[d]) || x[d] != ext[d])
			dmd_fail(rt, "tensor '%s': the program's block is not "
				"the library's (internal error)",
				rt->job->tensors[tensor].name);
	if (!c->tensors[t])
		dmd_fail(rt, "tensor '%s': NULL block",
			rt->job->tensors[tensor].name);
	return c->tensors[t];
}

/* dmd_alloc in a library run: if this call allocates the home buffer of
 * a library tensor (the first n_home calls do, in the order of
 * lib->home) whose size is that of the caller's block on this rank,
 * return the caller's block, zeroed unless the program reads it (as
 * dmd_alloc zeroes); else NULL (allocate).  dmd_read and dmd_write then
 * find the block in place (dmd_rt_lib_in_place). */
void *dmd_rt_lib_alloc(dmd_rt *rt, int64_t n)
{
	struct dmd_rt_lib_call *c = dmd_rt_lib_cur;
	const int64_t *e;
	int64_t k, nelem = 1;
	int t, d;

	if (!c)
		return NULL;
	k = c->n_alloc++;
	if (k >= c->lib->n_home)
		return NULL;
	t = dmd_rt_lib_index(c->lib, c->lib->home[k]);
	if (t < 0 || !c->tensors[t])
		return NULL;
	e = dmd_rt_lib_entry(c->lib, rt->rank, t);
	for (d = 0; d < e[0]; ++d)
		nelem *= e[1 + c->lib->max_dims + d];
	if (e[0] < 0 || nelem != n || n == 0)
		return NULL;
	if (!c->lib->file_input[t])
		memset(c->tensors[t], 0, (size_t) n * rt->esize);
	return c->tensors[t];
}

/* Is "buf" the caller's block "user" (the program's buffer of the
 * tensor)?  Then the buffer's box (rel, bx) must be the whole block
 * (ext): else the program and the library disagree, and it stops. */
static int dmd_rt_lib_in_place(dmd_rt *rt, int tensor, const void *buf,
	const void *user, const int64_t *ext, const int64_t *rel,
	const int64_t *bx)
{
	int d;

	if (buf != user)
		return 0;
	for (d = 0; d < rt->job->tensors[tensor].ndim; ++d)
		if (rel[d] != 0 || bx[d] != ext[d])
			dmd_fail(rt, "tensor '%s': the program's buffer is "
				"not the caller's block (internal error)",
				rt->job->tensors[tensor].name);
	return 1;
}

/* dmd_read in a library run: the caller's block of job tensor "tensor"
 * (lo, ext) at rel[] of "buf" (extents bx): there already, or copied.
 * Returns 1 if the tensor is the library's, else 0. */
int dmd_rt_lib_read(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, void *buf, const int64_t *rel, const int64_t *bx)
{
	int64_t zero[DMD_RT_MAX_DIMS] = { 0 };
	int mine, ndim = rt->job->tensors[tensor].ndim;
	void *user = dmd_rt_lib_user(rt, tensor, lo, ext, &mine);

	if (user && !dmd_rt_lib_in_place(rt, tensor, buf, user, ext, rel, bx))
		dmd_copy(rt, buf, ndim, bx, rel, user, ext, zero, ext);
	return mine;
}

/* dmd_write in a library run: rel[] of "buf" (extents bx) into the
 * caller's block of job tensor "tensor" (lo, ext), on every rank that
 * holds it (replicas too): there already, or copied.  Returns 1 if the
 * tensor is the library's, else 0. */
int dmd_rt_lib_write(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, const void *buf, const int64_t *rel,
	const int64_t *bx)
{
	int64_t zero[DMD_RT_MAX_DIMS] = { 0 };
	int mine, ndim = rt->job->tensors[tensor].ndim;
	void *user = dmd_rt_lib_user(rt, tensor, lo, ext, &mine);

	if (user && !dmd_rt_lib_in_place(rt, tensor, buf, user, ext, rel, bx))
		dmd_copy(rt, user, ndim, ext, zero, buf, bx, rel, ext);
	return mine;
}

/* The first library tensor whose block this rank ("rank") holds but
 * "tensors" has none of, as rank * n_files + t; INT_MAX if none. */
static int dmd_rt_lib_null(const dmd_lib_desc *lib, int rank,
	void *const tensors[])
{
	int t;

	for (t = 0; t < lib->n_files; ++t) {
		const int64_t *e = dmd_rt_lib_entry(lib, rank, t);

		if (e[0] >= 0 && (!tensors || !tensors[t]))
			return rank * lib->n_files + t;
	}
	return INT_MAX;
}

/* The class of "rank", or -1. */
static int dmd_rt_lib_class(const dmd_lib_desc *lib, int rank)
{
	int k, i;

	for (k = 0; k < lib->n_classes; ++k)
		for (i = 0; i < lib->classes[k].n_ranges; ++i)
			if (lib->classes[k].ranges[i][0] <= rank &&
			    rank <= lib->classes[k].ranges[i][1])
				return k;
	return -1;
}

/* NAME_run: check the arguments (the size of "comm" here, the blocks by
 * an allreduce on its dup, which also tells every rank if one has no
 * class, so that none goes on alone), then run the class of this rank on the dup
 * with the caller's blocks "tensors", and free the dup. */
int dmd_lib_run(const dmd_lib_desc *lib, MPI_Comm comm,
	void *const tensors[])
{
	struct dmd_rt_lib_call call;
	int init = 0, fin = 0, size, rank, k, bad, first = INT_MAX, rc;

	lib->err[0] = '\0';
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (!init || fin)
		return dmd_rt_lib_err(lib, "%s_run: MPI is not running "
			"(MPI_Init first, MPI_Finalize after)", lib->job->job);
	if (dmd_rt_lib_cur)
		return dmd_rt_lib_err(lib, "%s_run: called while a run of a "
			"distmpmd library is in progress", lib->job->job);
	if (comm == MPI_COMM_NULL)
		return dmd_rt_lib_err(lib, "%s_run: the communicator is "
			"MPI_COMM_NULL", lib->job->job);
	MPI_Comm_size(comm, &size);
	if (size != lib->job->nranks)
		return dmd_rt_lib_err(lib, "%s_run: the communicator has %d "
			"rank%s, the job needs %d", lib->job->job, size,
			size == 1 ? "" : "s", lib->job->nranks);
	MPI_Comm_rank(comm, &rank);
	k = dmd_rt_lib_class(lib, rank);
	MPI_Comm_dup(comm, &call.comm);
	bad = k < 0 ? -1 : dmd_rt_lib_null(lib, rank, tensors);
	MPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, call.comm);
	if (first < 0) {
		MPI_Comm_free(&call.comm);
		return dmd_rt_lib_err(lib, "%s_run: a rank is in no class "
			"(internal error)", lib->job->job);
	}
	if (first != INT_MAX) {
		int t = first % lib->n_files;

		MPI_Comm_free(&call.comm);
		return dmd_rt_lib_err(lib, "%s_run: tensor '%s': rank %d "
			"passed NULL for its block", lib->job->job,
			lib->job->tensors[lib->file_tensor[t]].name,
			first / lib->n_files);
	}
	call.lib = lib;
	call.tensors = tensors;
	call.n_alloc = 0;
	dmd_rt_lib_cur = &call;
	rc = lib->classes[k].fn(0, NULL, k, lib->classes[k].n_ranges,
		lib->classes[k].ranges);
	dmd_rt_lib_cur = NULL;
	MPI_Comm_free(&call.comm);
	return rc;
}
