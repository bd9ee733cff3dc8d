/* dmd_part.h: the partition room.  From the model (ir/dmd_model.h) it
 * makes
 *   - the transfer plan (dmd_part_plan.c, dmd_part_pattern.c,
 *     dmd_part_p2p.c): per step, what each rank needs at each
 *     communication point, from whom and in which pattern, what it sends
 *     back, and each tensor's home buffer;
 *   - the rank classes (dmd_part_fact.c, dmd_part_class.c): the facts the
 *     emitted code depends on, as sets of ranks, and the cells of the
 *     mesh they cut it into.
 * Both are read, never written, by specialize/ and emit/.
 *
 * Sets "over the mesh" have the mesh parameters ([c_x, c_y] -> { ... }):
 * one object describes every rank.  A transfer's time points are
 * X<id>[t0 .. t_level] (the time loops down to its communication point);
 * its pieces are over X<id>[t.., peer..], the peer's coordinates after
 * the time loops.
 */
#ifndef DMD_PART_H
#define DMD_PART_H

#include <stdio.h>

#include "ir/dmd_model.h"
#include "ir/dmd_isl.h"
#include "ir/dmd_diag.h"

/* A box per dimension of a tensor: the origin and the extent of each
 * dimension as pw_affs over one space (global element indices).  The
 * boxes of point-to-point pieces may have combs (dmd_part_comb.c):
 * comb[W d], comb[W d + 1], comb[W d + 2] (W = DMD_COMB_W) the period,
 * phase and first run along dimension d, then "runs" - 1 further runs
 * as their start and length (comb[W d + 2 k + 1], comb[W d + 2 k + 2]),
 * and cnt[d] the number of elements that move along it, pw_affs over
 * the same space (comb and cnt NULL: none; NULL entries along a
 * dimension without, or runs it does not have). */
#define DMD_COMB_RUNS	8
#define DMD_COMB_W	(1 + 2 * DMD_COMB_RUNS)
struct dmd_box {
	int n;
	isl_pw_aff **lo;
	isl_pw_aff **ext;
	isl_pw_aff **comb;
	isl_pw_aff **cnt;
	int runs;
};

/* The combs (period P, run S) that the pieces of a transfer use along
 * one dimension (besides { 1, 1 }, every element), in the order they
 * were chosen (at most DMD_COMB_MAX: as many as there are candidates,
 * dmd_part_comb.c); S = 0: runs read off the pieces (up to
 * DMD_COMB_RUNS of them, their starts and lengths pw_affs). */
#define DMD_COMB_MAX	64
struct dmd_comb_used {
	int n;
	long P[DMD_COMB_MAX], S[DMD_COMB_MAX];
};

/* How a transfer brings data. */
enum dmd_xfer_kind {
	DMD_XFER_LOCAL,		/* every element needed is held: nothing */
	DMD_XFER_BCAST,		/* from one rank of a mesh-axis group to all */
	DMD_XFER_SHIFT,		/* ring shift along an axis, after a first
				 * step that is local or point to point */
	DMD_XFER_P2P,		/* general: one piece from each peer */
	DMD_XFER_RETURN,	/* after the step: results sent to holders */
};

/* What a transfer is for. */
enum dmd_xfer_use {
	DMD_USE_INPUT,		/* the data a step reads a tensor through */
	DMD_USE_SNAPSHOT,	/* the step's own output, as before the step */
	DMD_USE_REDUCE,		/* a partial tensor, summed over its partial
				 * axes, for a step that reads it */
	DMD_USE_RETURN,		/* results computed away from their holders
				 * (or partial over ranks) summed onto them */
};

/* The pieces of a point-to-point transfer, each from one rank's point of
 * view (the mesh parameters):
 *   recv: [c] -> { X[t, s] : rank c receives a box from rank s at t }
 *   send: [c] -> { X[t, d] : rank c sends a box to rank d at t }
 *   self: [c] -> { X[t] : rank c copies a box from its own block }
 * with the boxes (global indices) over each.  "sum": receivers add the
 * pieces instead of storing them.  combs (owned, NULL: none): per
 * dimension the combs the received and sent boxes use
 * (dmd_part_comb.c). */
struct dmd_p2p {
	isl_set *recv_dom, *send_dom, *self_dom;
	struct dmd_box recv, send, self;
	int sum;
	struct dmd_comb_used *combs;
};

/* A transfer of tensor "tensor" for step "step", at time level "level"
 * (position of its communication point among the time loops; -1: once,
 * before them).
 *   dom:  [c] -> { X[t] } the time points, the same on every rank (all
 *         ranks take part in every transfer in the same order)
 *   need: [c] -> { X[t] -> T[e] } what the rank needs at each point
 *   box:  the box it needs (over X), completed with 0 on dom */
struct dmd_xfer {
	int id;				/* program-wide, in order */
	int step;
	int tensor;
	int level;
	enum dmd_xfer_kind kind;
	enum dmd_xfer_use use;
	int ghost;			/* lands in the tensor's home buffer */
	char *name;			/* "X3": tuple name of its points
					 * (messages say "transfer #3") */
	isl_set *dom;
	isl_map *need;
	struct dmd_box box;
	int axis;			/* BCAST, SHIFT */
	int disp;			/* SHIFT */
	isl_pw_aff *root;		/* BCAST: root coordinate, over X */
	int first_local;		/* SHIFT: first step in the own block */
	struct dmd_p2p *first;		/* SHIFT: first step fetched */
	struct dmd_p2p *p2p;		/* P2P, RETURN */
};

/* The GEMM leaf of a step: at each point of the q outer time loops
 * G[t], C[i0.., j0..] += op(A) op(B) over the box lo/ext of (i, j, k).
 * "org" (NULL unless some operand is not indexed by the variables
 * themselves, see dmd_poly_local_gemm): per operand A, B, C the origins
 * of its two dimensions, in its dimensions' order.  With n_piece = 3,
 * the box of G[t] is cut into pieces on which every operand is
 * consecutive (a dimension held whole indexed by the global index of a
 * cyclic one's local coordinate): the points are G[t, s_i, s_j, s_k],
 * one GEMM call per piece with origins s (dmd_plan_gemm_pieces). */
struct dmd_gemm_plan {
	int q;
	int n_piece;			/* 0 or 3: dimensions after t */
	isl_set *dom;			/* [c] -> { G[t(, s)] : a box } */
	isl_pw_aff *lo[3], *ext[3];
	isl_pw_aff *(*org)[2];		/* [3][2] or NULL */
};

/* The plan of one step.  "provider" gives, per access of the step
 * (index into poly->acc), the transfer that brings what the access reads
 * (a ghost transfer's data lands in the home buffer), or -1 for the
 * tensor's home buffer with nothing to bring (and for access 0, the one
 * written), or -2 for a read of the output in place (the element the
 * iteration writes).
 *   zero: [c] -> { T[e] } elements of the output's home buffer set to 0
 *         before the step (written by the step with '=', when it sums or
 *         its results are returned), or NULL
 *   part: the step writes into a buffer of its own ("part"), returned
 *         by "ret"
 *   late: [c] -> { S[i] } the iterations that must wait for the halo,
 *         the others run while it is in flight; NULL: no overlap (all
 *         wait) */
struct dmd_step_plan {
	int step;
	int n_xfer;
	struct dmd_xfer **xfer;		/* not owned: see dmd_plan */
	int *provider;
	struct dmd_xfer *ret;		/* not owned */
	isl_set *zero;
	int part;
	int part_clear;			/* the part buffer starts at -0.0:
					 * the step sums into it, or its box
					 * holds elements the rank does not
					 * compute (C[2 * i]), returned too */
	isl_set *comp;			/* [c] -> { : computes something } */
	isl_set *time;			/* [c] -> { L[t] : time points } */
	isl_set *late;
	struct dmd_gemm_plan *gemm;
};

/* The plan of the program.  "home" is, per tensor, the buffer that
 * holds its block and its ghost cells: a box over the mesh parameters
 * (the block itself when nothing lands around it). */
struct dmd_plan {
	const struct dmd_model *m;	/* not owned */
	int n_step;
	struct dmd_step_plan *steps;
	int n_xfer;
	struct dmd_xfer **xfer;		/* owned, by id */
	struct dmd_box *home;		/* per tensor */
	int *ghost;			/* per tensor: home larger than block */
};

/* partition/dmd_part_plan.c */
enum dmd_status dmd_part_plan(const struct dmd_model *m,
	__isl_give struct dmd_plan **plan);
__isl_null struct dmd_plan *dmd_part_plan_free(__isl_take struct dmd_plan *p);
const char *dmd_part_kind_name(enum dmd_xfer_kind kind);
/* The word for "x" in the label of its request in the emitted code:
 * "broadcast", "shift", "point to point", "return", "reduce". */
const char *dmd_part_xfer_label(const struct dmd_xfer *x);

/* partition/dmd_part_box.c: boxes */
int dmd_box_init(struct dmd_box *box, int n);
void dmd_box_clear(struct dmd_box *box);
int dmd_box_of_map(struct dmd_box *box, __isl_keep isl_map *map);

/* partition/dmd_part_pattern.c: broadcast and shift */
int dmd_part_try_bcast(const struct dmd_model *m, struct dmd_xfer *x,
	int axis);
int dmd_part_try_shift(const struct dmd_model *m, struct dmd_xfer *x,
	int axis, int disp);

/* partition/dmd_part_p2p.c: point-to-point pieces.  "need" is
 * [c] -> { X[t] -> T[e] }; with "partial" the pieces come from one holder
 * per coordinate along the tensor's partial axes (and are summed). */
__isl_give struct dmd_p2p *dmd_part_p2p(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_take isl_map *need, int partial);
/* partition/dmd_part_comb.c: combs on the boxes of pieces "p" of "x"
 * where they have holes ("recv", "send": the pieces of p->recv and
 * p->send); the number of elements that move along dimension d of one
 * of its boxes. */
int dmd_part_comb(const struct dmd_model *m, const struct dmd_xfer *x,
	struct dmd_p2p *p, __isl_keep isl_map *recv, __isl_keep isl_map *send);
__isl_give isl_pw_aff *dmd_part_comb_count(const struct dmd_box *box, int d);
/* Release the combs of "box" (it moves whole). */
void dmd_box_drop_combs(struct dmd_box *box);
/* The return of step results: "written" is [c] -> { T[e] } written by
 * rank c; holder h receives what r wrote and h holds (with the same
 * coordinates along the output's partial axes). */
__isl_give struct dmd_p2p *dmd_part_return(const struct dmd_model *m,
	const struct dmd_xfer *x, __isl_keep isl_set *done,
	__isl_keep isl_map *acc);
__isl_null struct dmd_p2p *dmd_part_p2p_free(__isl_take struct dmd_p2p *p);

/* partition/dmd_part_verify.c: proofs that the transfers match up.
 * A proof claims something of a transfer or a step (that it is proved
 * on the plan, proved as emitted, covered) and holds, fails (with a
 * witness in its text) or could not be checked; check prints it as one
 * line: "proved: transfer #0 (A in step 1: broadcast): ...", "NOT
 * covered: ...", "not checked: ...". */
enum dmd_proof_claim {
	DMD_CLAIM_PROVED,
	DMD_CLAIM_PROVED_AS_EMITTED,
	DMD_CLAIM_COVERED,
};

enum dmd_proof_verdict {
	DMD_PROOF_HOLDS,
	DMD_PROOF_FAILS,
	DMD_PROOF_UNCHECKED,
};

struct dmd_proof {
	enum dmd_proof_claim claim;
	enum dmd_proof_verdict verdict;
	char *text;			/* "transfer #0 (...): every send ..." */
};

struct dmd_proofs {
	int n;
	struct dmd_proof *proof;
};

/* Whether "a" is equal to or a subset of "b" (relations with a rank's
 * coordinates as their first input dimensions, or with "params" as
 * the mesh parameters), decided rank by rank where isl's test for all
 * ranks at once is slow. */
isl_bool dmd_part_map_rel(const struct dmd_model *m, __isl_keep isl_map *a,
	__isl_keep isl_map *b, enum dmd_isl_rel rel, int params);
enum dmd_status dmd_part_verify(const struct dmd_plan *plan,
	struct dmd_proofs *rep);
void dmd_part_proofs_clear(struct dmd_proofs *rep);
/* Does some proof of "rep" fail? */
int dmd_part_proofs_failed(const struct dmd_proofs *rep);
/* Print proof "p" as check says it, without a newline. */
void dmd_part_proof_print(FILE *f, const struct dmd_proof *p);
/* "A in step 1: broadcast", for the proofs' texts (malloc'ed). */
char *dmd_part_xfer_what(const struct dmd_model *m, const struct dmd_xfer *x);
/* Add a proof of "claim" with "verdict" to "rep", its text printf-style;
 * 0, or -1 if out of memory. */
int dmd_part_proof_add(struct dmd_proofs *rep, enum dmd_proof_claim claim,
	enum dmd_proof_verdict verdict, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Rank classes. */

/* A fact the emitted code depends on: a set of ranks; "pa" the quantity
 * it is a piece of (NULL for a role: sends, receives...). */
struct dmd_fact {
	char *what;			/* "A's block extent along dim 0" */
	isl_set *set;			/* [c] -> { : ... } */
	isl_pw_aff *pa;
};

struct dmd_facts {
	int n;
	struct dmd_fact *f;
};

/* A cell of the refinement: ranks that no fact tells apart. */
struct dmd_cell {
	isl_set *set;			/* [c] -> { : ... } */
};

struct dmd_cells {
	int n;
	struct dmd_cell *cell;
};

/* partition/dmd_part_fact.c */
enum dmd_status dmd_part_facts(const struct dmd_plan *plan,
	__isl_give struct dmd_facts **facts);
__isl_null struct dmd_facts *dmd_part_facts_free(
	__isl_take struct dmd_facts *facts);
/* Why the ranks of a class form one: a list of facts, one line each
 * ("X's block extent along dim 0 = 63", "receives A from x - 1: no"). */
struct dmd_why {
	int n;
	char **fact;			/* owned */
};

/* Explain the ranks of "set" in words into "why" (empty on entry): the
 * value of each quantity that tells classes apart, or whether they play
 * each role.  0, or -1 if out of memory. */
int dmd_part_explain(const struct dmd_model *m,
	const struct dmd_facts *facts, __isl_keep isl_set *set,
	struct dmd_why *why);
/* The facts of "why" joined by "; " on one line (malloc'ed). */
char *dmd_part_why_line(const struct dmd_why *why);
void dmd_part_why_clear(struct dmd_why *why);
/* The blocks each tensor with a cyclic dimension holds on the ranks of
 * "set" into "blocks" (empty on entry), one line per tensor (none if no
 * tensor is cyclic).  0, or -1 if out of memory. */
int dmd_part_blocks(const struct dmd_model *m, __isl_keep isl_set *set,
	struct dmd_why *blocks);

/* partition/dmd_part_class.c */
enum dmd_status dmd_part_cells(const struct dmd_model *m,
	const struct dmd_facts *facts, __isl_give struct dmd_cells **cells);
__isl_null struct dmd_cells *dmd_part_cells_free(
	__isl_take struct dmd_cells *cells);
/* The ranks of parameter set "set" as sorted inclusive ranges
 * (*ranges, malloc'ed); returns the number of ranges, -1 on error;
 * *count: the number of ranks. */
int dmd_part_rank_ranges(const struct dmd_model *m, __isl_keep isl_set *set,
	long (**ranges)[2], long *count);

/* partition/dmd_part_cost.c: the cost model (spec 1.6).  Figures of a
 * step count every run of it (the repeats around it). */
struct dmd_cost_figs {
	long long bytes_moved_total;	/* summed over the receivers */
	long long bytes_recv_max;	/* the busiest receiver */
	long long messages;
	long long flops_max;		/* the rank that computes most */
	long long mem_max;		/* bytes, the rank that needs most */
	long mem_rank;			/* a rank that needs mem_max */
	double time_s;			/* modeled: the slowest rank */
};

struct dmd_cost {
	struct dmd_cost_figs total;
	int n_step;
	struct dmd_cost_figs *step;
};

/* The whole cost of "plan"; "cells" (the cells of its classes) give the
 * memory (NULL: none).  NULL after a message if a figure cannot be
 * counted exactly. */
struct dmd_cost *dmd_part_cost(const struct dmd_plan *plan,
	const struct dmd_cells *cells);
/* The memory only (what build checks against mesh.memory). */
struct dmd_cost *dmd_part_cost_mem(const struct dmd_plan *plan,
	const struct dmd_cells *cells);
int dmd_part_cost_memory(const struct dmd_plan *plan,
	const struct dmd_cells *cells, struct dmd_cost *cost);
/* The whole cost of "plan" with, as memory, that of the busiest rank
 * over the whole mesh (one cell: an upper bound of what its class
 * allocates; the search's figure, before there are classes).  NULL
 * after a message if a figure cannot be counted exactly. */
struct dmd_cost *dmd_part_cost_mesh(const struct dmd_plan *plan);
/* What dmd_part_cost(plan, cells) gives, from "traffic", the cost
 * dmd_part_cost_mesh(plan) gave (kept): its traffic, flops and time
 * copied, the memory counted over "cells" (NULL: that of "traffic",
 * over the mesh).  NULL on error. */
struct dmd_cost *dmd_part_cost_recount(const struct dmd_cost *traffic,
	const struct dmd_plan *plan, const struct dmd_cells *cells);
struct dmd_cost *dmd_part_cost_free(struct dmd_cost *cost);

#endif
