/* dmd_model.h: the polyhedral model of a job (ir/dmd_model.c), the
 * transfers found at its communication points (partition/dmd_part_comm.c),
 * its rank classes (partition/dmd_part_class.c), and the per-class program
 * (specialize/, emit/).
 *
 * Mesh coordinates are isl parameters named after the mesh axes:
 *   [x, y] -> { : 0 <= x < 2 and 0 <= y < 2 }
 * so one object describes every rank at once.
 */
#ifndef DMD_MODEL_H
#define DMD_MODEL_H

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/union_map.h>
#include <isl/ilp.h>
#include <isl/val.h>

#include "dmd_job.h"

#define DMD_MAX_LOOPS 32
/* The manifest and the appfile list every rank: a bound on their size. */
#define DMD_MAX_RANKS (1 << 20)

enum dmd_loop_kind { DMD_LOOP_TIME, DMD_LOOP_SPACE };

/* A loop of the schedule after the schedule commands. */
struct dmd_loop {
	char *name;
	int origin;			/* the original index variable it cuts */
	enum dmd_loop_kind kind;
	int axis;			/* mesh axis, for DMD_LOOP_SPACE */
	long extent;			/* number of values it may take */
	int tensorized;
};

/* One access of the statement, in order of appearance (lhs first). */
struct dmd_access {
	int tensor;
	struct dmd_expr *expr;		/* the ACCESS node (not owned) */
	isl_map *map;			/* { S[orig] -> T[e] } */
};

/* A tensor's distribution: which block a rank holds.
 * lo[d], ext[d]: [x, y] -> { [...] } over the mesh. */
struct dmd_dist {
	isl_pw_aff *lo[DMD_MAX_DIMS];
	isl_pw_aff *ext[DMD_MAX_DIMS];
	isl_set *held;			/* [x, y] -> { T[e] : held by (x, y) } */
	isl_map *holds;			/* { R[r] -> T[e] } held by rank r */
	isl_set *writer;		/* [x, y] -> { : canonical replica } */
	int is_input;
	int is_output;
};

/* How a tensor's data reaches a rank at a communication point. */
enum dmd_xfer_kind {
	DMD_XFER_LOCAL,		/* every element needed is held: no transfer */
	DMD_XFER_BCAST,		/* from one rank of a mesh-axis group to all */
	DMD_XFER_SHIFT,		/* ring shift along an axis, after a first fetch */
	DMD_XFER_P2P,		/* general: pieces from each holder */
	DMD_XFER_RETURN,	/* output: partial results summed onto holders */
};

/* The pieces of a point-to-point transfer, each over the statement's
 * space extended with the peer's coordinates:
 *   recv: [x, y] -> { X[t, s] : rank (x, y) receives from s at t }
 *   send: [x, y] -> { X[t, d] : rank (x, y) sends to d at t }
 *   self: [x, y] -> { X[t] : rank (x, y) copies from its own block }
 * with box origins/extents (global element indices) over each. */
struct dmd_p2p {
	isl_set *recv_dom, *send_dom, *self_dom;
	isl_pw_aff *recv_lo[DMD_MAX_DIMS], *recv_ext[DMD_MAX_DIMS];
	isl_pw_aff *send_lo[DMD_MAX_DIMS], *send_ext[DMD_MAX_DIMS];
	isl_pw_aff *self_lo[DMD_MAX_DIMS], *self_ext[DMD_MAX_DIMS];
};

/* A transfer of tensor "tensor" at time level "level" (the position of
 * the communicate loop among the time loops; -1: once, before the time
 * loops).  "dom" is the time range [x, y] -> { X[t0..t_level] }.
 * need_lo/need_ext describe the box the rank needs at each point. */
struct dmd_xfer {
	int tensor;
	int level;
	char *name;			/* statement name, e.g. "xfer_A" */
	enum dmd_xfer_kind kind;
	isl_set *dom;
	isl_map *need;			/* [x, y] -> { X[t] -> T[e] } */
	isl_pw_aff *need_lo[DMD_MAX_DIMS];
	isl_pw_aff *need_ext[DMD_MAX_DIMS];
	long alloc[DMD_MAX_DIMS];	/* receive buffer extents (max) */
	int axis;			/* BCAST, SHIFT */
	int disp;			/* SHIFT */
	isl_pw_aff *root;		/* BCAST: root coordinate along axis */
	/* SHIFT: the first step, when t_level is at its minimum. */
	int first_local;
	struct dmd_p2p *p2p;		/* P2P, or SHIFT whose first step is not local */
};

/* The GEMM leaf of tensorize([i, j, k], gemm): at each point of the
 * outer time loops, C[i0.., j0..] += op(A) op(B) over a box. */
struct dmd_gemm {
	int q;				/* number of time loops outside the leaf */
	int ta, tb;			/* A is accessed as A[k, i]; B as B[j, k] */
	int acc_c, acc_a, acc_b;	/* indices into model->acc */
	/* [x, y] -> { G[t] -> ... } origins and extents of i, j, k */
	isl_pw_aff *lo[3], *ext[3];
	isl_set *dom;			/* [x, y] -> { G[t] : box not empty } */
};

/* A fact the emitted code depends on: a parameter set of ranks.  Rank
 * classes are the cells of the refinement of the mesh by all facts. */
struct dmd_fact {
	char *what;			/* "A's block extent along dim 0" */
	isl_set *set;			/* [x, y] -> { : ... } */
	isl_pw_aff *pa;			/* the quantity, or NULL for a role */
};

struct dmd_class {
	isl_set *set;			/* [x, y] -> { : ... } */
	char *code;			/* emitted C */
	char *why;			/* one line */
	long count;
	int n_ranges;
	long (*ranges)[2];
};

struct dmd_model {
	isl_ctx *ctx;
	struct dmd_job *job;		/* not owned */
	struct dmd_step *st;		/* its single step (not owned) */

	isl_set *mesh;			/* [x, y] -> { : in the mesh } */
	isl_space *rank_space;		/* { R[x, y] } with the same params */

	int n_vars;			/* original index variables */
	char *vars[DMD_MAX_LOOPS];
	long var_extent[DMD_MAX_LOOPS];
	int var_reduced[DMD_MAX_LOOPS];	/* appears only on the right */
	isl_set *domain;		/* [x, y] -> { S[orig] : ... } */

	int n_acc;
	struct dmd_access acc[64];
	int out_tensor;

	struct dmd_dist *dist;		/* per tensor */

	int n_loops;
	struct dmd_loop loops[DMD_MAX_LOOPS];
	isl_map *sched;			/* { S[orig] -> L[loops] } */
	/* per rank: space loops fixed to the coordinates and dropped:
	 * [x, y] -> { S[orig] -> L[time loops] } */
	isl_map *rsched;
	int n_time;
	int time_loop[DMD_MAX_LOOPS];	/* loop index of each time dim */

	int n_comm;			/* communicate points, in order */
	int comm_tensor[64];
	int comm_loop[64];
	struct dmd_loc comm_loc[64];

	int has_gemm;
	struct dmd_loc gemm_loc;
	int n_tens;			/* tensorized loops */
	int tens_loop[3];

	double flops;			/* 2MNK for a matrix product, else -1 */

	/* partition */
	int n_xfer;
	struct dmd_xfer *xfer;
	struct dmd_gemm *gemm;
	isl_set *comp_ranks;		/* ranks that compute something */
	int n_fact;
	struct dmd_fact *fact;
	int n_class;
	struct dmd_class *cls;
};

/* ir/dmd_model.c */
__isl_give struct dmd_model *dmd_model_build(isl_ctx *ctx,
	struct dmd_job *job);
struct dmd_model *dmd_model_free(__isl_take struct dmd_model *m);
int dmd_model_time_pos(struct dmd_model *m, int loop);
void dmd_xfer_clear(struct dmd_xfer *x);

/* partition/dmd_part_comm.c: transfers and the GEMM leaf. */
int dmd_part_comm(struct dmd_model *m);
/* partition/dmd_part_class.c: facts and rank classes. */
int dmd_part_classes(struct dmd_model *m);
int dmd_part_add_fact(struct dmd_model *m, const char *what,
	__isl_take isl_set *set);
int dmd_part_add_pw_aff_facts(struct dmd_model *m, const char *what,
	__isl_keep isl_pw_aff *pa);
int dmd_part_rank_ranges(struct dmd_model *m, struct dmd_class *c);

/* specialize/dmd_spec.c + emit/dmd_emit.c: the C program of one cell,
 * and the whole file of a class around it. */
__isl_give char *dmd_emit_body(struct dmd_model *m, __isl_keep isl_set *cell);
__isl_give char *dmd_emit_file(struct dmd_model *m, struct dmd_class *c,
	int class_id, int n_classes, const char *body);

/* helpers shared by the passes (ir/dmd_model.c) */
char *dmd_strdup_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
__isl_give isl_set *dmd_params_of(__isl_take isl_set *set);
/* The parameter names "[x, y]" of the mesh, for building isl strings. */
const char *dmd_model_params(struct dmd_model *m);
long dmd_pw_aff_max(__isl_keep isl_pw_aff *pa, __isl_keep isl_set *ctx);

/* pa + 1 */
static inline __isl_give isl_pw_aff *dmd_pw_aff_add_one(
	__isl_take isl_pw_aff *pa)
{
	return isl_pw_aff_add_constant_val(pa,
		isl_val_one(isl_pw_aff_get_ctx(pa)));
}

#endif
