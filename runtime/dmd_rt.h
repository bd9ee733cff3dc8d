/* dmd_rt.h: the runtime library that every emitted class program links.
 *
 * Conventions.
 *  - Indices, extents and mesh coordinates are int64_t.
 *  - Buffers are dense, row-major (C order) arrays of the job's dtype
 *    (float for f32, double for f64).  A buffer is described by its
 *    extents bx[0..ndim); a "box" inside it by its origin lo[] (relative to
 *    the buffer's first element) and its extents cnt[].  The box must lie
 *    inside the buffer.  A box with a zero extent is empty; every call
 *    accepts empty boxes (and then any origin).
 *  - Mesh coordinates are row-major: rank = ((c0 * s1) + c1) * s2 + c2 ...
 *  - Every error (bad rank count, bad .npy file, failed allocation, MPI
 *    error, bad output destination) prints "distmpmd: ..." to stderr and
 *    calls MPI_Abort, which stops every rank: never a hang, never a partial
 *    output file.
 *
 * Transfers are non-blocking and grouped: a "dmd_req" is created once per
 * transfer statement of the program (dmd_req_new, at set-up); each
 * dmd_ibcast / dmd_ishift / dmd_irecv / dmd_isend / dmd_irecv_sum posts
 * operations on it, and dmd_wait completes everything posted on it since
 * the last dmd_wait.  Emitted code posts the transfer of time step t + 1,
 * computes step t, then waits (double buffering), so transfers overlap
 * with computation.
 */
#ifndef DMD_RT_H
#define DMD_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DMD_RT_MAX_DIMS 8
/* The most runs per period of a comb (dmd_irecv_combs). */
#define DMD_RT_MAX_RUNS 8
/* Axes of the mesh and of all its views together. */
#define DMD_RT_MAX_AXES 136

typedef struct dmd_rt dmd_rt;
typedef struct dmd_req dmd_req;

enum { DMD_RT_F32 = 0, DMD_RT_F64 = 1 };
enum { DMD_RT_INIT_NONE = 0, DMD_RT_INIT_ZEROS, DMD_RT_INIT_ONES,
	DMD_RT_INIT_RANDOM };

/* A tensor of the job, as every class program knows it. */
typedef struct dmd_tensor_desc {
	const char *name;		/* the job's name for it (messages) */
	const char *file;		/* .npy path as the job gives it, or NULL */
	int init;			/* DMD_RT_INIT_*, for inputs without file */
	unsigned long long seed;	/* for DMD_RT_INIT_RANDOM */
	int ndim;
	const int64_t *shape;		/* ndim extents */
	int output;			/* written to "file" at the end */
} dmd_tensor_desc;

/* A view of the ranks (spec 1.1): rank r has coordinates on it by the
 * row-major order of r, if r < the product of its shape. */
typedef struct dmd_view_desc {
	const char *name;
	int n_axes;
	const int *shape;
	const char *const *axis_names;
} dmd_view_desc;

/* What an emitted program tells the runtime about its job. */
typedef struct dmd_job_desc {
	const char *job;		/* job name */
	int n_axes;
	const int *mesh_shape;		/* n_axes extents */
	const char *const *axis_names;
	int nranks;			/* product of mesh_shape */
	int nclasses;			/* classes in the whole build */
	int dtype;			/* DMD_RT_F32 or DMD_RT_F64 */
	double flops;			/* of all matrix-product steps, else < 0 */
	/* Where relative .npy paths start: absolute, or relative to the
	 * directory holding the running binary (the build directory), so
	 * that a build directory can be moved or copied together with the
	 * job's files.  The environment variable DMD_JOB_DIR, when set and
	 * not empty, overrides it. */
	const char *job_dir;
	int n_tensors;
	const dmd_tensor_desc *tensors;
	int n_steps;			/* steps of the program, in order */
	const char *const *step_labels;	/* "step 1: C[m, n] = ..." */
	/* Views: their axes are numbered after the mesh axes, view by
	 * view (n_axes, n_axes + 1, ...), in every call taking an axis. */
	int n_views;
	const dmd_view_desc *views;
	/* Per tensor, NULL or its cyclic dimensions (spec 1.2, v3): 3 per
	 * dimension, { S, B, L }: block size, holders, elements per holder
	 * at most (0, 0, 0: not cyclic).  The boxes dmd_read and dmd_write
	 * take are then in local coordinates: index v of such a dimension
	 * is element (l // S) S B + b S + l % S, b = v // L, l = v % L (a
	 * holder's blocks one after another, ScaLAPACK's local layout).
	 * NULL when no tensor is cyclic. */
	const int64_t *const *cyclic;
} dmd_job_desc;

/* MPI_Init, then check that the world has job->nranks ranks and that this
 * rank belongs to class "class_id", whose ranks are the "n_ranges"
 * inclusive ranges "ranges" (else a clear message and MPI_Abort: never a
 * hang).  Builds the Cartesian mesh communicator (no reordering) and one
 * sub-communicator per axis.  Before any computation, rank 0 checks every
 * output tensor's destination: its directory exists and is writable, and
 * the file is absent or a regular file (never a device, a directory or a
 * FIFO); any problem stops every rank with the system's reason.  Rank 0
 * also removes temporary output files left by earlier runs whose process
 * is gone (".NAME.tmp.HOST.PID" next to the output).
 * Environment: DMD_STATS (non-empty and not "0": print the stats line in
 * dmd_finish), DMD_TRACE (a path: write a trace there in dmd_finish),
 * DMD_JOB_DIR (see job_dir), DMD_DUMP_BLOCKS (a directory: see
 * dmd_write).  When OPENBLAS_CORETYPE is unset, OpenBLAS
 * runs a generic kernel and the CPU has AVX2 or AVX-512, rank 0 says so
 * on stderr, naming OPENBLAS_CORETYPE and the value to try. */
dmd_rt *dmd_init(int *argc, char ***argv, const dmd_job_desc *job,
	int class_id, int n_ranges, const int64_t (*ranges)[2]);

/* This rank's coordinate along "axis" (of the mesh or of a view; on a
 * view that does not reach the rank, its row-major order continued: the
 * first coordinate past its extent, the others as on the view). */
int64_t dmd_coord(const dmd_rt *rt, int axis);
/* This rank's rank in the world. */
int dmd_rank(const dmd_rt *rt);

/* Allocate a zero-filled buffer of n elements of the job's dtype, aligned
 * to 64 bytes (n may be 0: a valid non-NULL pointer is returned).  Freed
 * by dmd_finish.  In a library run (dmd_rt_lib.h) the home buffer of a
 * tensor may be the caller's block instead. */
void *dmd_alloc(dmd_rt *rt, int64_t n);

/* Fill the block (lo[], ext[]: global origin and extents) of tensor
 * number "tensor" into "buf", a buffer whose first element has global
 * index bo[] and whose extents are bx[] (the block lies inside it; a
 * buffer may be larger than the block: ghost cells).  From the tensor's
 * file (path relative to the job directory unless absolute, collective
 * MPI-IO; a missing file, a bad header, a shape or dtype that disagrees
 * with the job stops every rank with a message naming the file and the
 * tensor) or from its init (zeros, ones, the spec's random formula on the
 * global row-major linear index).  Collective: every rank calls it for
 * every input tensor in the same order, also with an empty block. */
void dmd_read(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, void *buf, const int64_t *bo, const int64_t *bx);

/* Write the block (lo[], ext[]) of output tensor number "tensor", held in
 * "buf" (first element at global bo[], extents bx[]), into the tensor's
 * .npy file.  Only ranks with writer != 0 write their block (replicas pass
 * 0).  The file is written under a temporary name in the same directory
 * and renamed by rank 0 after every rank has finished, so no reader ever
 * sees a partial file; on failure the temporary file is removed and the
 * system's reason is printed.  Collective over all ranks, same order.
 * With DMD_DUMP_BLOCKS set to a directory, every rank with a non-empty
 * block (replicas too) also writes it there as NAME.rRANK.at_LO0_LO1...npy
 * (the tensor's name, the world rank, the block's global origin), so that
 * tests can check every copy of an output, not only the file's. */
void dmd_write(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, const void *buf, const int64_t *bo,
	const int64_t *bx, int writer);

/* The timed compute phase (barrier, then MPI_Wtime), around all steps. */
void dmd_compute_begin(dmd_rt *rt);
void dmd_compute_end(dmd_rt *rt);
/* Around each execution of step "step" (0-based; a step inside a repeat
 * runs once per repetition): per-step time, bytes and messages for
 * --stats, spans for --trace. */
void dmd_step_begin(dmd_rt *rt, int step);
void dmd_step_end(dmd_rt *rt, int step);

/* A transfer: created once at set-up, with a tag that no other transfer
 * of the program uses (1 .. 32000), the step it belongs to (for the
 * stats; -1: none, its bytes and messages count in the totals only) and a
 * label for messages and traces ("A: broadcast along x"). */
dmd_req *dmd_req_new(dmd_rt *rt, int tag, int step, const char *label);

/* Post the broadcast of a box along mesh or view axis "axis" from the
 * rank of the axis group whose coordinate is "root" (MPI_Ibcast on the
 * axis sub-communicator; a rank off the axis's view takes no part and
 * must pass empty boxes).  At the root buf/bx/lo describe where the box lies
 * in its buffer, elsewhere where to receive it; cnt[] must agree on the
 * whole group.  Stats: every non-root rank counts the box's bytes and one
 * message. */
void dmd_ibcast(dmd_rt *rt, dmd_req *q, int axis, int64_t root, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt);

/* Post a ring shift along "axis": send the box (sbuf, sx, slo, scnt) to
 * the rank whose coordinate is (c - disp) mod P and receive the box
 * (rbuf, rx, rlo, rcnt) from (c + disp) mod P.  Empty boxes are neither
 * sent nor received (a rank off the axis's view takes no part and must
 * pass empty boxes).  Stats: the receiver counts the received bytes and
 * one message (when its box is not empty and the peer is another rank). */
void dmd_ishift(dmd_rt *rt, dmd_req *q, int axis, int disp,
	const void *sbuf, int ndim, const int64_t *sx, const int64_t *slo,
	const int64_t *scnt, void *rbuf, const int64_t *rx,
	const int64_t *rlo, const int64_t *rcnt);

/* Post the receive of a box from, or the send of a box to, the rank at
 * mesh coordinates src[] / dst[] (n_axes values).  Between one pair of
 * ranks, one transfer posts at most one message each way per wait.
 * Stats: dmd_irecv of a non-empty box counts its bytes and one message. */
void dmd_irecv(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt);
void dmd_isend(dmd_rt *rt, dmd_req *q, const int64_t *dst, const void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt);
/* The same for the elements of the box that its combs let through:
 * comb[] holds per dimension a period P, a phase a and a run S
 * (1 <= S <= P, 0 <= a < P); the element at offset u of the box along
 * that dimension moves if (u + a) mod P < S ({ 1, 0, 1 }: every one).
 * They travel packed as one message, in row-major order; both sides
 * give the same box extents and combs.  Stats: the elements that move. */
void dmd_irecv_comb(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt,
	const int64_t *comb);
void dmd_isend_comb(dmd_rt *rt, dmd_req *q, const int64_t *dst,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, const int64_t *comb);
/* The same with "runs" runs per period (1 <= runs <= DMD_RT_MAX_RUNS):
 * comb[] holds per dimension 1 + 2 runs values, P, a, the first run's
 * length S1 (the run [0, S1)), then the start and length (b, S) of each
 * further run, increasing and apart within [0, P) (S = 0: none); the
 * element at offset u moves if (u + a) mod P falls in a run.  Between
 * block-cyclic layouts of other block sizes, blocks of 2 to blocks of 5
 * over 3 ranks: a receiver's rows from one holder are local rows
 * { 0 1 5 } of every 10, { P, a, S1, b2, S2 } = { 10, a, 2, 5, 1 }. */
void dmd_irecv_combs(dmd_rt *rt, dmd_req *q, const int64_t *src,
	void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb);
void dmd_isend_combs(dmd_rt *rt, dmd_req *q, const int64_t *dst,
	const void *buf, int ndim, const int64_t *bx, const int64_t *lo,
	const int64_t *cnt, int runs, const int64_t *comb);
/* Like dmd_irecv, but dmd_wait adds what arrived element-wise into the
 * box instead of storing it (partial sums). */
void dmd_irecv_sum(dmd_rt *rt, dmd_req *q, const int64_t *src, void *buf,
	int ndim, const int64_t *bx, const int64_t *lo, const int64_t *cnt);

/* Complete every operation posted on "q" since its last wait (and add the
 * dmd_irecv_sum contributions).  A wait with nothing posted returns at
 * once. */
void dmd_wait(dmd_rt *rt, dmd_req *q);

/* Copy (or add) a box of one local buffer into a box of another, at once.
 * The boxes have the same extents cnt[]. */
void dmd_copy(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt);
void dmd_copy_sum(dmd_rt *rt, void *dbuf, int ndim, const int64_t *dx,
	const int64_t *dlo, const void *sbuf, const int64_t *sx,
	const int64_t *slo, const int64_t *cnt);

/* The BLAS leaf: C += op(A) * op(B), row-major, in the job's dtype
 * (cblas_sgemm or cblas_dgemm with alpha = beta = 1); op(A) is M x K,
 * op(B) K x N, C M x N; ta/tb non-zero: A/B are stored transposed.  While
 * transfers are in flight it works in panels and lets MPI progress
 * between them, so that they overlap with the product.  M, N or K may be
 * 0. */
void dmd_gemm(dmd_rt *rt, int ta, int tb, int64_t M, int64_t N, int64_t K,
	const void *A, int64_t lda, const void *B, int64_t ldb, void *C,
	int64_t ldc);

/* Stop with a message from this rank (MPI_Abort). */
void dmd_fail(dmd_rt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Gather the stats; if enabled, rank 0 prints one JSON line on stdout:
 * {"ranks": N, "classes": C, "time_s": T, "gflops": G|null,
 *  "bytes_moved_total": B, "bytes_recv_max": R, "messages": M,
 *  "blas": "<OpenBLAS core name>",
 *  "steps": [{"time_s": T, "bytes_moved_total": B, "messages": M}, ...]}
 * time_s is the largest compute phase over the ranks (per step: the
 * largest time of the step over the ranks, summed over its repetitions).
 * With DMD_TRACE set, rank 0 writes the trace (Chrome trace-event JSON,
 * one process per rank: step spans, compute, each transfer from post to
 * completion, waits).  Frees every buffer and request, MPI_Finalize,
 * returns 0 (the program's exit status). */
int dmd_finish(dmd_rt *rt);

#ifdef __cplusplus
}
#endif

#endif
