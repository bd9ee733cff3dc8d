/* dmd_rt_mpi.c: the MPI calls whose counts may pass INT_MAX, for MPI 4
 * and for MPI 3, and the mark of the MPI the runtime was compiled with.
 *
 * An MPI 4 library (MPICH 4) has large-count calls (MPI_Isend_c, ...,
 * with MPI_Count counts); an MPI 3 library (Debian's Open MPI 4.1) has
 * only int counts.  Which one the runtime uses is decided when it is
 * compiled, from MPI_VERSION in the wrapper's mpi.h.  With MPI 3, a
 * count of at most DMD_RT_COUNT_MAX items goes to the int call as it
 * is; a larger one is sent as one item of a derived datatype: q blocks
 * of DMD_RT_COUNT_MAX items, then the r that remain,
 *
 *	count = q * DMD_RT_COUNT_MAX + r
 *	struct { contiguous(q, contiguous(DMD_RT_COUNT_MAX, type)) at 0;
 *		 r x type at q * DMD_RT_COUNT_MAX * extent(type) }
 *
 * made with the classic constructors (int counts), committed, used and
 * freed at once (MPI keeps it for the operations posted with it).
 *
 * DMD_RT_COUNT_MAX is INT_MAX; the unit test compiles the runtime with
 * a small one (-DDMD_RT_COUNT_MAX=7), and with -DDMD_RT_MPI3 to take the
 * MPI 3 path with an MPI 4 library, so that the datatypes of counts past
 * the limit are checked on values with both MPIs.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"

#if MPI_VERSION >= 4 && !defined(DMD_RT_MPI3)
#define DMD_RT_LARGE_COUNT 1
#else
#define DMD_RT_LARGE_COUNT 0
#endif

#ifndef DMD_RT_COUNT_MAX
#define DMD_RT_COUNT_MAX INT_MAX
#endif

/* The tag of the point-to-point messages of dmd_rt_mpi_gatherv (MPI 3):
 * above the transfers' tags (1 .. 32000), within the least MPI_TAG_UB. */
#define DMD_RT_GATHER_TAG 32767

/* The family of the MPI whose mpi.h the runtime was compiled with, as
 * distmpmd names it (manifests/dmd_mpi.c); distmpmd looks for this text
 * in libdmdrt.a before it links a class against it with another MPI's
 * wrapper. */
#if defined(OMPI_MAJOR_VERSION)
#define DMD_RT_MPI_FAMILY "openmpi"
#elif defined(I_MPI_VERSION)
#define DMD_RT_MPI_FAMILY "intelmpi"
#elif defined(MPICH_VERSION)
#define DMD_RT_MPI_FAMILY "mpich"
#else
#define DMD_RT_MPI_FAMILY "unknown"
#endif

__attribute__((used))
const char dmd_rt_mpi_mark[] = "distmpmd-runtime-mpi=" DMD_RT_MPI_FAMILY ";";

/* What must be set before MPI_Init.  Open MPI's own MPI-IO (OMPIO)
 * "sieves" reads and writes through a file view that is not contiguous
 * (new in Open MPI 4.1; open-mpi/ompi issue 10546 is a bug of its read
 * side), and with Debian 12's 4.1.4 its writes lose data: a 5x7 .npy
 * written by 4 ranks as 2-D blocks came out with a stretch of zeros in
 * 3 of 5 runs of the unit test.  Hence data sieving off before Open MPI
 * 5, unless the user set it: the MCA parameters are read from the
 * environment when MPI starts, so this holds however the ranks were
 * launched (mpiexec, srun). */
void dmd_rt_mpi_before_init(void)
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
	setenv("OMPI_MCA_fbtl_posix_write_datasieving", "0", 0);
	setenv("OMPI_MCA_fbtl_posix_read_datasieving", "0", 0);
#endif
}

/* How many datatypes of counts past DMD_RT_COUNT_MAX were made (MPI 3). */
static long dmd_rt_mpi_n_big;

/* Does the runtime use MPI 4's large-count calls, and how many datatypes
 * of counts past the limit has it made?  (For the unit test.) */
int dmd_rt_debug_large_count(long *n_big)
{
	*n_big = dmd_rt_mpi_n_big;
	return DMD_RT_LARGE_COUNT;
}

#if !DMD_RT_LARGE_COUNT
/* Return in *t a datatype of "count" items of "type" (count larger than
 * DMD_RT_COUNT_MAX), to be used as one item and freed by the caller
 * (see the top of this file). */
static void dmd_rt_mpi_big(dmd_rt *rt, MPI_Count count, MPI_Datatype type,
	MPI_Datatype *t)
{
	MPI_Count q = count / DMD_RT_COUNT_MAX, r = count % DMD_RT_COUNT_MAX;
	MPI_Datatype chunk, chunks;
	MPI_Aint lb, extent;

	if (q > INT_MAX)
		dmd_fail(rt, "a message of %lld items is beyond this MPI's "
			"counts", (long long) count);
	MPI_Type_get_extent(type, &lb, &extent);
	MPI_Type_contiguous(DMD_RT_COUNT_MAX, type, &chunk);
	MPI_Type_contiguous((int) q, chunk, &chunks);
	MPI_Type_free(&chunk);
	if (r == 0) {
		*t = chunks;
	} else {
		int len[2] = { 1, (int) r };
		MPI_Aint disp[2];
		MPI_Datatype types[2];

		disp[0] = 0;
		disp[1] = (MPI_Aint) (q * DMD_RT_COUNT_MAX) * extent;
		types[0] = chunks;
		types[1] = type;
		MPI_Type_create_struct(2, len, disp, types, t);
		MPI_Type_free(&chunks);
	}
	MPI_Type_commit(t);
	dmd_rt_mpi_n_big++;
}

/* Describe "count" items of "type" with an int count: as they are if
 * the count is small enough (*big is MPI_DATATYPE_NULL), else as one
 * item of the datatype *big, which the caller frees. */
static int dmd_rt_mpi_count(dmd_rt *rt, MPI_Count count, MPI_Datatype *type,
	MPI_Datatype *big)
{
	*big = MPI_DATATYPE_NULL;
	if (count <= DMD_RT_COUNT_MAX)
		return (int) count;
	dmd_rt_mpi_big(rt, count, *type, big);
	*type = *big;
	return 1;
}

/* Free the datatype of dmd_rt_mpi_count, if it made one. */
static void dmd_rt_mpi_done(MPI_Datatype *big)
{
	if (*big != MPI_DATATYPE_NULL)
		MPI_Type_free(big);
}
#endif

/* MPI_Isend of "count" items of "type". */
int dmd_rt_mpi_isend(dmd_rt *rt, const void *buf, MPI_Count count,
	MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	return MPI_Isend_c(buf, count, type, dest, tag, comm, req);
#else
	MPI_Datatype big;
	int n = dmd_rt_mpi_count(rt, count, &type, &big);
	int rc = MPI_Isend(buf, n, type, dest, tag, comm, req);

	dmd_rt_mpi_done(&big);
	return rc;
#endif
}

/* MPI_Irecv of "count" items of "type". */
int dmd_rt_mpi_irecv(dmd_rt *rt, void *buf, MPI_Count count,
	MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	return MPI_Irecv_c(buf, count, type, src, tag, comm, req);
#else
	MPI_Datatype big;
	int n = dmd_rt_mpi_count(rt, count, &type, &big);
	int rc = MPI_Irecv(buf, n, type, src, tag, comm, req);

	dmd_rt_mpi_done(&big);
	return rc;
#endif
}

/* MPI_Ibcast of "count" items of "type" (the same count on every rank,
 * hence the same datatype). */
int dmd_rt_mpi_ibcast(dmd_rt *rt, void *buf, MPI_Count count,
	MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	return MPI_Ibcast_c(buf, count, type, root, comm, req);
#else
	MPI_Datatype big;
	int n = dmd_rt_mpi_count(rt, count, &type, &big);
	int rc = MPI_Ibcast(buf, n, type, root, comm, req);

	dmd_rt_mpi_done(&big);
	return rc;
#endif
}

/* MPI_File_read_all of "count" items of "type". */
int dmd_rt_mpi_read_all(dmd_rt *rt, MPI_File fh, void *buf, MPI_Count count,
	MPI_Datatype type)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	return MPI_File_read_all_c(fh, buf, count, type, MPI_STATUS_IGNORE);
#else
	MPI_Datatype big;
	int n = dmd_rt_mpi_count(rt, count, &type, &big);
	int rc = MPI_File_read_all(fh, buf, n, type, MPI_STATUS_IGNORE);

	dmd_rt_mpi_done(&big);
	return rc;
#endif
}

/* MPI_File_write_all of "count" items of "type". */
int dmd_rt_mpi_write_all(dmd_rt *rt, MPI_File fh, const void *buf,
	MPI_Count count, MPI_Datatype type)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	return MPI_File_write_all_c(fh, buf, count, type, MPI_STATUS_IGNORE);
#else
	MPI_Datatype big;
	int n = dmd_rt_mpi_count(rt, count, &type, &big);
	int rc = MPI_File_write_all(fh, buf, n, type, MPI_STATUS_IGNORE);

	dmd_rt_mpi_done(&big);
	return rc;
#endif
}

/* Gather "n" bytes of "send" from every rank of "comm" into "recv" on
 * rank 0, rank r's at byte displs[r], counts[r] bytes (both significant
 * on rank 0 only).  MPI 3: point to point with the large-count sends
 * and receives above (a collective's int counts and displacements
 * could not hold them). */
void dmd_rt_mpi_gatherv(dmd_rt *rt, const void *send, MPI_Count n,
	void *recv, const MPI_Count *counts, const MPI_Aint *displs,
	MPI_Comm comm)
{
#if DMD_RT_LARGE_COUNT
	(void) rt;
	MPI_Gatherv_c(send, n, MPI_BYTE, recv, counts, displs, MPI_BYTE, 0,
		comm);
#else
	MPI_Request *reqs;
	int me, size, r, k = 0;

	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &size);
	if (me != 0) {
		MPI_Request req;

		dmd_rt_mpi_isend(rt, send, n, MPI_BYTE, 0, DMD_RT_GATHER_TAG,
			comm, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		return;
	}
	reqs = dmd_rt_malloc(rt, (size_t) size * sizeof(*reqs));
	for (r = 1; r < size; ++r)
		dmd_rt_mpi_irecv(rt, (char *) recv + displs[r], counts[r],
			MPI_BYTE, r, DMD_RT_GATHER_TAG, comm, &reqs[k++]);
	if (n > 0)
		memcpy((char *) recv + displs[0], send, (size_t) n);
	for (r = 0; r < k; ++r)
		MPI_Wait(&reqs[r], MPI_STATUS_IGNORE);
	free(reqs);
#endif
}
