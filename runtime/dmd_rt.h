/* dmd_rt.h: the runtime library that every emitted class program links.
 *
 * Conventions.
 *  - Buffers are dense, row-major (C order) arrays of the job's dtype
 *    (float for f32, double for f64).
 *  - A "box" in a buffer of extents ext[0..ndim) is given by its origin lo[]
 *    and its extents cnt[] (element counts); the box must lie inside ext.
 *    A box with a zero extent is empty; every call accepts empty boxes.
 *  - Mesh coordinates are row-major: rank = ((c0 * s1) + c1) * s2 + c2 ...
 *  - Every error (bad rank count, bad .npy file, failed allocation, MPI
 *    error) prints "distmpmd: rank R: ..." to stderr and calls MPI_Abort,
 *    which stops every rank.
 */
#ifndef DMD_RT_H
#define DMD_RT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DMD_RT_MAX_DIMS 8

typedef struct dmd_rt dmd_rt;

enum { DMD_RT_F32 = 0, DMD_RT_F64 = 1 };
enum { DMD_RT_INIT_NONE = 0, DMD_RT_INIT_ZEROS, DMD_RT_INIT_ONES,
	DMD_RT_INIT_RANDOM };

/* What an emitted program tells the runtime about its job and class. */
typedef struct dmd_job_desc {
	const char *job;		/* job name */
	int n_axes;
	const int *mesh_shape;		/* n_axes extents */
	const char *const *axis_names;
	int nranks;			/* product of mesh_shape */
	int nclasses;			/* classes in the whole build */
	int class_id;			/* this program's class */
	int n_ranges;			/* ranks of this class: inclusive ranges */
	const int (*ranges)[2];
	int dtype;			/* DMD_RT_F32 or DMD_RT_F64 */
	double flops;			/* 2*M*N*K for a matrix product, else < 0 */
	const char *job_dir;		/* where relative .npy paths start */
} dmd_job_desc;

/* MPI_Init, then check that the world has job->nranks ranks and that this
 * rank belongs to this class (else a clear message and MPI_Abort: never a
 * hang).  Builds the Cartesian mesh communicator (no reordering) and one
 * sub-communicator per axis.  Reads DMD_STATS from the environment
 * (non-empty and not "0": print the stats line in dmd_finish).
 * The environment variable DMD_JOB_DIR, when set, overrides job->job_dir. */
dmd_rt *dmd_init(int *argc, char ***argv, const dmd_job_desc *job);

/* This rank's coordinate along "axis". */
int dmd_coord(const dmd_rt *rt, int axis);
/* This rank's rank in the world. */
int dmd_rank(const dmd_rt *rt);

/* Allocate a zero-filled buffer of n elements of the job's dtype (n may be
 * 0: a valid non-NULL pointer is returned).  Freed by dmd_finish. */
void *dmd_alloc(dmd_rt *rt, long n);

/* Fill "buf" (extents ext[], row-major) with the block of global tensor
 * "name" (global shape gshape[0..ndim)) whose origin is lo[]:
 *  - file != NULL: read from the .npy file (path relative to the job
 *    directory unless absolute) with collective MPI-IO.  The header is
 *    checked first: a missing file, a bad header, a shape or dtype that
 *    disagrees with gshape / the job's dtype stops every rank with a
 *    message naming the file and the tensor.
 *  - otherwise initialise: zeros, ones, or the spec's random formula on the
 *    global row-major linear index with "seed".
 * Collective: every rank calls it for every input tensor, in the same
 * order, even when its block is empty (some ext[d] == 0).  A rank whose
 * block is empty passes the tensor's file all the same. */
void dmd_tensor_input(dmd_rt *rt, const char *name, const char *file,
	int init, unsigned long long seed, int ndim, const long *gshape,
	const long *lo, const long *ext, void *buf);

/* Write this rank's block (origin lo[], extents ext[]) of output tensor
 * "name" into the .npy file "file" (relative to the job directory).  Only
 * ranks with writer != 0 write their block (replicas pass 0); the file is
 * written under a temporary name in the same directory and renamed by rank
 * 0 after every rank has finished, so no reader ever sees a partial file.
 * Collective over all ranks, in the same order. */
void dmd_tensor_output(dmd_rt *rt, const char *name, const char *file,
	int ndim, const long *gshape, const long *lo, const long *ext,
	const void *buf, int writer);

/* Start and stop the timed compute phase (barrier, then MPI_Wtime). */
void dmd_compute_begin(dmd_rt *rt);
void dmd_compute_end(dmd_rt *rt);

/* Broadcast a box along mesh axis "axis" from the rank of the same
 * sub-communicator whose coordinate along the axis is "root".  At the root,
 * buf/ext/lo describe where the box lies in its own (local) buffer; at the
 * other ranks, where to receive it.  cnt[] (the box extents) must agree on
 * all ranks of the group.  Stats: every non-root rank counts the box's
 * bytes and one message. */
void dmd_bcast(dmd_rt *rt, int axis, int root, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt);

/* Ring shift along mesh axis "axis": send the box (sbuf, sext, slo, scnt)
 * to the rank whose coordinate is (c - disp) mod P and receive the box
 * (rbuf, rext, rlo, rcnt) from the rank at (c + disp) mod P (one
 * MPI_Sendrecv on the axis sub-communicator).  Stats: the receiver counts
 * the received bytes and one message (when the box is not empty). */
void dmd_shift(dmd_rt *rt, int axis, int disp,
	const void *sbuf, int ndim, const long *sext, const long *slo,
	const long *scnt,
	void *rbuf, const long *rext, const long *rlo, const long *rcnt);

/* Point-to-point transfers, grouped: dmd_xfer_begin, then any number of
 * dmd_recv / dmd_send / dmd_copy (non-blocking, in any order), then
 * dmd_xfer_end, which waits for all of them.  Ranks are given by mesh
 * coordinates (n_axes ints).  Messages between one pair of ranks inside a
 * group match in the order they were posted.  Stats: dmd_recv of a
 * non-empty box counts its bytes and one message; dmd_copy counts nothing. */
void dmd_xfer_begin(dmd_rt *rt);
void dmd_recv(dmd_rt *rt, const int *src, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt);
void dmd_send(dmd_rt *rt, const int *dst, const void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt);
void dmd_copy(dmd_rt *rt, void *dbuf, int ndim, const long *dext,
	const long *dlo, const void *sbuf, const long *sext, const long *slo,
	const long *cnt);
void dmd_xfer_end(dmd_rt *rt);

/* Inside a transfer group: receive a box from "src" and, at
 * dmd_xfer_end, add it element-wise into the box (lo[], cnt[]) of "buf"
 * (extents ext[]); and add a box of one local buffer into a box of another
 * at once.  Used to return partial results to the holders of the output.
 * Stats: as dmd_recv. */
void dmd_recv_sum(dmd_rt *rt, const int *src, void *buf, int ndim,
	const long *ext, const long *lo, const long *cnt);
void dmd_copy_sum(dmd_rt *rt, void *dbuf, int ndim, const long *dext,
	const long *dlo, const void *sbuf, const long *sext, const long *slo,
	const long *cnt);

/* Element-wise sum reduction of a box onto a root (MPI_Reduce on the axis
 * sub-communicator if axis >= 0; the buffers are described as in
 * dmd_bcast: sbuf box is the contribution, rbuf box (root only) receives
 * the sum; may be the same buffer at the root).  Stats: the root counts
 * (group size - 1) * box bytes and group size - 1 messages. */
void dmd_reduce(dmd_rt *rt, int axis, int root,
	const void *sbuf, int ndim, const long *sext, const long *slo,
	void *rbuf, const long *rext, const long *rlo, const long *cnt);

/* Stop with a message from this rank (MPI_Abort). */
void dmd_fail(dmd_rt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Gather the stats; if enabled, rank 0 prints one JSON line on stdout:
 * {"ranks": N, "classes": C, "time_s": T, "gflops": G|null,
 *  "bytes_moved_total": B, "bytes_recv_max": R, "messages": M}
 * time_s is the largest compute phase over the ranks.  Frees every
 * dmd_alloc buffer, MPI_Finalize, returns 0 (the program's exit status). */
int dmd_finish(dmd_rt *rt);

#ifdef __cplusplus
}
#endif

#endif
