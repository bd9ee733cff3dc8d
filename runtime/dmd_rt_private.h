/* dmd_rt_private.h: what the files of the runtime share (not for emitted
 * programs; the unit test uses the dmd_rt_debug_* and dmd_rt_blas_advice
 * entry points).
 *
 * Files:
 *	dmd_rt.c	init, mesh, checks, buffers, steps, stats, finish
 *	dmd_rt_io.c	.npy reads and writes (MPI-IO), random init,
 *			output destination checks, stale temporaries
 *	dmd_rt_xfer.c	boxes, the datatype cache, transfers, local copies
 *	dmd_rt_blas.c	dmd_gemm (panels with MPI progress), BLAS kernel check
 *	dmd_rt_trace.c	trace events, their gathering and the JSON file
 *	dmd_rt_mpi.c	the calls whose counts may pass INT_MAX (MPI 4's
 *			large-count calls, or MPI 3 with derived types)
 *	dmd_rt_lib.c	library mode: NAME_run's checks and call, the
 *			caller's blocks (dmd_rt_lib.h)
 *	dmd_npy.c	the .npy header (no MPI)
 */
#ifndef DMD_RT_PRIVATE_H
#define DMD_RT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_lib.h"

/* Size of a message or a path that ranks exchange (fixed, for MPI_Bcast). */
#define DMD_RT_TEXT 4096
/* Buckets of the datatype cache. */
#define DMD_RT_TYPE_BUCKETS 64

/* A box of a buffer as MPI sees it: "count" items of "type", the first
 * at element "offset" of the buffer; "nelem" elements in all.  "type" is
 * the base type (count = nelem: the box is contiguous, or empty) or a
 * derived type of the datatype cache (count = 1), owned by the cache.
 */
struct dmd_rt_box {
	MPI_Datatype type;
	MPI_Count count;
	int64_t offset;
	int64_t nelem;
};

/* A derived datatype of the cache: "n" levels of (count, stride in
 * elements), innermost first, that describe a box with origin 0.
 */
struct dmd_rt_type {
	struct dmd_rt_type *next;
	int n;
	int64_t count[DMD_RT_MAX_DIMS];
	int64_t stride[DMD_RT_MAX_DIMS];
	MPI_Datatype type;
};

/* What dmd_wait does with a staged box (struct dmd_rt_sum). */
enum dmd_rt_stage_kind {
	DMD_RT_STAGE_ADD,	/* a received contribution: add it in */
	DMD_RT_STAGE_COPY,	/* a strided box received packed: unpack */
	DMD_RT_STAGE_SEND	/* a strided box sent packed: nothing */
};

/* A box of "dbuf" staged in "tmp" (owned), its elements contiguous: a
 * received contribution that dmd_wait adds into the box, or a strided
 * box moved packed (MPICH's derived-datatype path is many times slower
 * than a contiguous message, see dmd_rt_xfer.c), which dmd_wait unpacks
 * (received) or just frees (sent).
 */
struct dmd_rt_sum {
	enum dmd_rt_stage_kind kind;
	void *tmp;
	void *dbuf;
	int ndim;
	int64_t bx[DMD_RT_MAX_DIMS];
	int64_t lo[DMD_RT_MAX_DIMS];
	int64_t cnt[DMD_RT_MAX_DIMS];
	int combed;			/* comb[] applies (dmd_irecv_comb) */
	int runs;			/* runs per period of comb[] */
	int64_t comb[(1 + 2 * DMD_RT_MAX_RUNS) * DMD_RT_MAX_DIMS];
};

/* A transfer statement of the program (dmd_req_new).  "mreq" holds the
 * MPI requests posted since the last wait, "sums" the contributions to
 * add at the wait.  "inflight" is its position in rt->inflight plus one
 * (0: nothing posted).  "t_post" is the time of the first post since the
 * last wait, "bytes" what this rank counted since then (for the trace),
 * "posted" the bytes of every operation posted since then (sent or
 * received, for dmd_gemm's panels).
 */
struct dmd_req {
	int id;
	int tag;
	int step;
	char *label;			/* owned */
	MPI_Request *mreq;		/* owned */
	int64_t n_mreq;
	int64_t cap_mreq;
	struct dmd_rt_sum *sums;	/* owned, with their tmp */
	int64_t n_sums;
	int64_t cap_sums;
	int64_t inflight;
	double t_post;
	int64_t bytes;
	int64_t posted;
};

/* What the trace records: kinds of events. */
enum dmd_rt_ev_kind {
	DMD_RT_EV_COMPUTE = 0,	/* dmd_compute_begin .. end */
	DMD_RT_EV_STEP,		/* dmd_step_begin .. end; label: step */
	DMD_RT_EV_GEMM,		/* dmd_gemm */
	DMD_RT_EV_WAIT,		/* dmd_wait; label: req id */
	DMD_RT_EV_XFER,		/* first post .. wait end; label: req id */
	DMD_RT_EV_NKINDS
};

/* One event of the trace (fixed size: gathered as bytes).  Times are
 * MPI_Wtime values of the rank that recorded it.
 */
struct dmd_rt_event {
	double t0;
	double t1;
	int32_t kind;
	int32_t label;
	int64_t bytes;
};

struct dmd_rt {
	const dmd_job_desc *job;	/* not owned */
	int class_id;
	int rank;
	int size;
	int n_axes;			/* of the mesh */
	int n_all;			/* of the mesh and the views */
	int shape[DMD_RT_MAX_AXES];
	int coords[DMD_RT_MAX_AXES];	/* past a view: its first axis
					 * beyond its extent */
	MPI_Comm cart;
	MPI_Comm axis[DMD_RT_MAX_AXES];	/* MPI_COMM_NULL: off its view */
	MPI_Errhandler errh;

	MPI_Datatype base;
	size_t esize;
	const char *descr;		/* "<f4" or "<f8" */
	char *job_dir;			/* owned */
	char host[256];

	int stats;
	char *trace_path;		/* owned; NULL: no trace */
	char *dump_dir;			/* owned; NULL: no block dumps */

	double t_start;
	double t_compute;
	int step_open;			/* the step begun, or -1 */
	double t_step;
	double *step_time;		/* owned, n_steps */
	int64_t *step_bytes;		/* owned, n_steps */
	int64_t *step_msgs;		/* owned, n_steps */
	int64_t bytes_recv;
	int64_t messages;

	void **bufs;			/* owned, with the buffers */
	int64_t n_bufs;
	int64_t cap_bufs;

	dmd_req **reqs;			/* owned, with the requests */
	int64_t n_reqs;
	int64_t cap_reqs;
	dmd_req **inflight;		/* owned array, not the requests */
	int64_t n_inflight;
	int64_t cap_inflight;

	struct dmd_rt_type *types[DMD_RT_TYPE_BUCKETS];	/* owned */
	int n_types;
	int64_t n_panels;		/* dmd_gemm panels (unit test) */

	int tracing;
	int have_t0;
	double t0;			/* trace time origin */
	struct dmd_rt_event *ev;	/* owned */
	int64_t n_ev;
	int64_t cap_ev;
	int64_t n_dropped;		/* events beyond the cap */
};

/* dmd_rt.c */
void dmd_rt_fail_all(dmd_rt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void *dmd_rt_malloc(dmd_rt *rt, size_t size);
void *dmd_rt_grow(dmd_rt *rt, void *p, int64_t *cap, int64_t need,
	size_t elem);
char *dmd_rt_path(dmd_rt *rt, const char *file);
int64_t dmd_rt_nelem(int ndim, const int64_t *cnt);
void dmd_rt_check_box(dmd_rt *rt, const char *what, int ndim,
	const int64_t *bx, const int64_t *lo, const int64_t *cnt);

/* dmd_rt_lib.c: a library run in progress (dmd_rt_lib_call() != NULL):
 * the library, the caller's blocks, the dup of its communicator, which
 * stands for MPI_COMM_WORLD (dmd_rt_world()). */
struct dmd_rt_lib_call {
	const dmd_lib_desc *lib;
	void *const *tensors;
	MPI_Comm comm;
	int64_t n_alloc;		/* dmd_alloc calls so far */
};
struct dmd_rt_lib_call *dmd_rt_lib_call(void);
MPI_Comm dmd_rt_world(void);
void *dmd_rt_lib_alloc(dmd_rt *rt, int64_t n);
int dmd_rt_lib_read(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, void *buf, const int64_t *rel, const int64_t *bx);
int dmd_rt_lib_write(dmd_rt *rt, int tensor, const int64_t *lo,
	const int64_t *ext, const void *buf, const int64_t *rel,
	const int64_t *bx);

/* dmd_rt_io.c */
void dmd_rt_check_outputs(dmd_rt *rt);
int dmd_rt_tmp_name(char *out, size_t size, const char *path,
	const char *host, long pid);
int dmd_rt_write_file(dmd_rt *rt, const char *path, const char *data,
	size_t len, char *why, size_t why_size);
double dmd_rt_random(unsigned long long seed, unsigned long long i);
int64_t dmd_rt_global(const int64_t *cyc, int d, int64_t v);

/* dmd_rt_xfer.c */
void dmd_rt_box_get(dmd_rt *rt, int ndim, const int64_t *bx,
	const int64_t *lo, const int64_t *cnt, struct dmd_rt_box *box);
void dmd_rt_types_free(dmd_rt *rt);
void dmd_rt_reqs_free(dmd_rt *rt);
int64_t dmd_rt_progress(dmd_rt *rt);

/* dmd_rt_blas.c */
void dmd_rt_blas_check(dmd_rt *rt);
int dmd_rt_blas_advice(int avx512f, int avx2, const char *core, char *out,
	size_t size);
const char *dmd_rt_blas_core(void);

/* dmd_rt_trace.c */
void dmd_rt_trace_event(dmd_rt *rt, int kind, int label, double t0,
	double t1, int64_t bytes);
void dmd_rt_trace_write(dmd_rt *rt);

/* dmd_rt_mpi.c */
void dmd_rt_mpi_before_init(void);
int dmd_rt_mpi_isend(dmd_rt *rt, const void *buf, MPI_Count count,
	MPI_Datatype type, int dest, int tag, MPI_Comm comm,
	MPI_Request *req);
int dmd_rt_mpi_irecv(dmd_rt *rt, void *buf, MPI_Count count,
	MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req);
int dmd_rt_mpi_ibcast(dmd_rt *rt, void *buf, MPI_Count count,
	MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req);
int dmd_rt_mpi_read_all(dmd_rt *rt, MPI_File fh, void *buf, MPI_Count count,
	MPI_Datatype type);
int dmd_rt_mpi_write_all(dmd_rt *rt, MPI_File fh, const void *buf,
	MPI_Count count, MPI_Datatype type);
void dmd_rt_mpi_gatherv(dmd_rt *rt, const void *send, MPI_Count n,
	void *recv, const MPI_Count *counts, const MPI_Aint *displs,
	MPI_Comm comm);
int dmd_rt_debug_large_count(long *n_big);

/* For the unit test: how many derived datatypes the cache has created,
 * and how many panels dmd_gemm has computed (0 while nothing is in flight).
 */
int dmd_rt_debug_ntypes(const dmd_rt *rt);
int64_t dmd_rt_debug_panels(const dmd_rt *rt);

#endif
