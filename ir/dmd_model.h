/* dmd_model.h: the polyhedral model of a job (ir/), made from the parsed
 * job (dmd_job.h) and read, never written, by the later rooms.
 *
 * Mesh coordinates are isl parameters whose ids the compiler names after
 * the C variables of the emitted code ("c_x" for mesh axis x), so one
 * object describes every rank at once:
 *   [c_x, c_y] -> { : 0 <= c_x < 2 and 0 <= c_y < 2 }
 * No user name is ever parsed by isl: every object is built through the
 * API (ir/dmd_isl.c).
 *
 * The model of a program is one dmd_poly per compute step (in the order
 * of the program text) sharing one dmd_layout per tensor, and a tree of
 * dmd_node saying in which order (and how many times) the steps run.
 *
 * Ownership: dmd_model_build gives a dmd_model that owns everything
 * reachable from it except the job (which must outlive it);
 * dmd_model_free releases it and returns NULL.
 */
#ifndef DMD_MODEL_H
#define DMD_MODEL_H

#include <isl/ctx.h>
#include <isl/space.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>
#include <isl/val.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/union_map.h>

#include "dmd_job.h"
#include "dmd_diag.h"

/* The manifest and the appfile list every rank: a bound on their size. */
#define DMD_MAX_RANKS (1L << 20)

/* The mesh: its parameter space and set.
 *   space: [c_x, c_y] -> { : }     set: the ranks of the mesh
 *   ids:   the parameter ids, in axis order (c_x, c_y)
 * The axes of views (spec 1.1) are not parameters: a rank's coordinate
 * on a view is a quasi-affine function of its mesh coordinates, by the
 * row-major order r of the rank (here on a mesh [4, 2], view g of shape
 * [2, 2, 2], r = 2 c_x + c_y):
 *   coord[a] = [c_x, c_y] -> { [floor(r / 4)] : r < 8 }
 *   coord[b] = [c_x, c_y] -> { [floor(r / 2) mod 2] : r < 8 }
 * defined on the ranks of the view (r < its rank count: "frame").  Axis
 * indices are those of the job (dmd_job_find_axis): the mesh axes, then
 * the axes of each view. */
struct dmd_mesh {
	isl_ctx *ctx;
	const struct dmd_job *job;	/* not owned */
	int n;				/* axes */
	const long *shape;		/* job->mesh_shape (not owned) */
	isl_space *space;
	isl_set *set;
	isl_multi_id *ids;		/* { R[c_x, c_y] } */
	int n_all;			/* axes of the mesh and the views */
	isl_pw_aff **coord;		/* per axis: the coordinate */
	int n_frame;			/* the job's views when built */
	isl_set **frame;		/* per view: its ranks */
};

/* How tensor "tensor" is laid out over the mesh (spec 1.2).
 *   lo[d], ext[d]: [c] -> { [origin] }, [c] -> { [extent] }: the block of
 *                  dimension d a rank holds (extent 0: none), from the
 *                  spec's formulas, defined on the whole mesh;
 *   held:   [c] -> { T[e] : rank c holds e }
 *   holds:  { R[r] -> T[e] : rank r holds e }
 *   writer: [c] -> { : rank c writes the tensor's file (one replica) }
 *   partial: the mesh axes along which it holds partial sums. */
struct dmd_layout {
	int tensor;
	int ndim;
	isl_space *space;		/* { T[e0, ..] } with the mesh params */
	isl_pw_aff **lo;
	isl_pw_aff **ext;
	/* Cyclic dimensions (spec 1.2, v3) are laid out in local
	 * coordinates: element e of dimension d (block size S = cyc[d],
	 * holders B = cyc_B[d], Lmax = cyc_L[d] elements per holder at
	 * most) is at
	 *   v = b Lmax + (j // B) S + o,  j = e // S, b = j % B, o = e % S
	 * so that a holder's blocks, one after another, are the box
	 * [b Lmax, b Lmax + ext) (ScaLAPACK's local layout).  Every set
	 * and box over the tensor ("space", lo/ext, held, holds, the
	 * accesses of the steps) is in these coordinates; "local" is the
	 * map { T[e] -> T[v] } (NULL when no dimension is cyclic) and
	 * vshape[d] the extent of v (B Lmax, shape[d] if not cyclic).
	 * cyc[d] = 0: not cyclic (also for a cyclic dimension held whole,
	 * B = 1, whose local coordinates are the global ones). */
	long *cyc;
	long *cyc_B;
	long *cyc_L;
	long *vshape;
	isl_multi_aff *local;
	isl_set *held;
	isl_map *holds;
	isl_set *writer;
	int n_partial;
	int *partial;			/* axis indices */
	int *axis_used;			/* per axis (of the mesh and the
					 * views): dist or place mention it */
	int view;			/* the view of its axes, -1: the mesh */
};

/* An access of a statement: tensor[idx(i)] over the statement's domain.
 *   idx: { S[i] -> T[e] }   map: idx restricted to the domain */
struct dmd_access {
	int tensor;
	struct dmd_expr *expr;		/* the ACCESS node (not owned) */
	isl_multi_aff *idx;
	isl_map *map;
};

enum dmd_loop_kind { DMD_LOOP_TIME, DMD_LOOP_SPACE };

/* A loop of the schedule after the schedule commands. */
struct dmd_loop {
	char *name;			/* as the job names it */
	int origin;			/* index variable it cuts */
	enum dmd_loop_kind kind;
	int axis;			/* mesh axis, for DMD_LOOP_SPACE */
	long lo;			/* its least value: 0, or below 0 for
					 * an index that runs below 0 */
	long extent;			/* number of values it may take:
					 * lo .. lo + extent - 1 */
	int tensorized;
};

/* communicate(T, v): tensor "tensor" at time loop "level" (position
 * among the time loops). */
struct dmd_comm {
	int tensor;
	int level;
	struct dmd_loc loc;
};

/* tensorize([i, j, k], gemm): C[i, j] (+)= A[..] * B[..] over the three
 * innermost time loops; A is accessed as A[k, i] when ta, B as B[j, k]
 * when tb.  acc_*: indices into the statement's accesses. */
struct dmd_gemm_info {
	int ta, tb;
	int acc_a, acc_b;
	struct dmd_loc loc;
};

/* The model of one compute step.
 *   domain: [c] -> { S[i] : every access in bounds } (the same on every
 *           rank: mesh parameters only for uniformity)
 *   sched:  { S[i] -> L[loops] } after the schedule commands
 *   rsched: [c] -> { S[i] -> L[time loops] : rank c executes i }
 * acc[0] is the access written (the left side). */
/* The values an index variable takes (spec 1.3: where every access is
 * in bounds), for "check": lo .. hi (empty: none), and per access of the
 * step whether it cuts the range (without its bounds the variable would
 * take more values) and, where the variable alone indexes some of its
 * dimensions, the range those dimensions allow (own_lo .. own_hi). */
struct dmd_var_range {
	int empty;
	long lo, hi;
	int *cut;			/* per access */
	int *own;			/* per access: own_lo/own_hi are set */
	long *own_lo, *own_hi;		/* per access */
};

struct dmd_poly {
	int index;			/* step number in program text order */
	const struct dmd_step *st;	/* not owned */
	char *label;			/* "C[m, n] = A[m, k] * B[k, n]" */
	int n_vars;
	char **vars;
	long *var_extent;
	struct dmd_var_range *range;	/* per variable */
	int *var_reduced;		/* only on the right: summed over */
	isl_space *space;		/* { S[i] } with the mesh params */
	isl_set *domain;
	int n_acc;
	struct dmd_access *acc;
	int out;			/* the tensor written */
	int reduce;			/* an element is written by several
					 * iterations: the statement sums */
	int on_partials;		/* the output is partial and every
					 * rank of a line along its partial
					 * axes runs the step on its own
					 * partials (linear in its only
					 * partial input) */
	int n_loops;
	struct dmd_loop *loops;
	int view;			/* the view its loops are distributed
					 * over; -1: the mesh (or none) */
	isl_map *sched;
	isl_map *rsched;
	int n_time;
	int *time_loop;			/* loop index of each time dim */
	int n_comm;
	struct dmd_comm *comm;
	struct dmd_gemm_info *gemm;	/* or NULL */
	double flops;			/* 2MNK for a matrix product, else -1 */
};

/* The program: steps in order, repeats as loops around their steps. */
enum dmd_node_type { DMD_NODE_STEP, DMD_NODE_REPEAT };

struct dmd_node {
	enum dmd_node_type type;
	int step;			/* DMD_NODE_STEP: index into poly */
	long n_repeat;			/* DMD_NODE_REPEAT */
	int n_child;
	struct dmd_node *child;
};

/* Per tensor: what the program does with it. */
struct dmd_tensor_use {
	int used;			/* some step reads or writes it */
	int input;			/* read before any step writes it */
	int output;			/* written, and has a file */
	int written;			/* some step writes it */
};

struct dmd_model {
	isl_ctx *ctx;
	const struct dmd_job *job;	/* not owned */
	struct dmd_mesh *mesh;
	struct dmd_layout **lay;	/* per tensor; NULL for a tensor no
					 * step accesses (only checked) */
	struct dmd_tensor_use *use;	/* per tensor */
	int n_poly;
	struct dmd_poly **poly;
	int n_node;			/* the program's top-level nodes */
	struct dmd_node *node;
	double flops;			/* all matrix-product steps, each
					 * times the repeats around it */
};

/* ir/dmd_model.c */
enum dmd_status dmd_model_build(isl_ctx *ctx, const struct dmd_job *job,
	__isl_give struct dmd_model **m);
__isl_null struct dmd_model *dmd_model_free(__isl_take struct dmd_model *m);
/* The number of times step "step" runs (the product of the repeats
 * around it). */
long dmd_model_step_count(const struct dmd_model *m, int step);

/* ir/dmd_mesh.c */
__isl_give struct dmd_mesh *dmd_mesh_alloc(isl_ctx *ctx,
	const struct dmd_job *job);
__isl_null struct dmd_mesh *dmd_mesh_free(__isl_take struct dmd_mesh *mesh);
/* The C name of the coordinate along axis "axis" (of the mesh or a
 * view): "c_x". */
char *dmd_mesh_coord_name(const struct dmd_job *job, int axis);
/* A copy of parameter set "set" with the parameters named as the job
 * names the mesh axes, for messages and listings only. */
__isl_give isl_set *dmd_mesh_display(const struct dmd_mesh *mesh,
	const struct dmd_job *job, __isl_take isl_set *set);
/* { R[r] } with the mesh parameters, and [c] -> { R[r] : r = c }. */
__isl_give isl_space *dmd_mesh_rank_space(const struct dmd_mesh *mesh);
__isl_give isl_set *dmd_mesh_rank_is_me(const struct dmd_mesh *mesh);
/* { R[r] : r in the mesh } */
__isl_give isl_set *dmd_mesh_ranks(const struct dmd_mesh *mesh);
/* The view of axis "a" (-1: the mesh). */
int dmd_mesh_axis_view(const struct dmd_mesh *mesh, int a);
/* The coordinate of a rank along axis "a", [c] -> { [coord] }, defined
 * on the ranks of its frame. */
__isl_give isl_pw_aff *dmd_mesh_coord(const struct dmd_mesh *mesh, int a);
/* The ranks of view "v" ([c] -> { : ... }; v = -1: the mesh). */
__isl_give isl_set *dmd_mesh_frame(const struct dmd_mesh *mesh, int v);
/* The coordinate along axis "a" of the rank whose mesh coordinates are
 * the dimensions pos .. pos + n - 1 of type "type" (isl_dim_param: the
 * mesh parameters, pos ignored) of set space "space", as a pw_aff on
 * "space" (defined on the ranks of the axis's frame). */
__isl_give isl_pw_aff *dmd_mesh_coord_at(const struct dmd_mesh *mesh, int a,
	__isl_keep isl_space *space, enum isl_dim_type type, int pos);
/* The same for the ranks of view "v": a subset of the universe of
 * "space". */
__isl_give isl_set *dmd_mesh_frame_at(const struct dmd_mesh *mesh, int v,
	__isl_keep isl_space *space, enum isl_dim_type type, int pos);
/* "map" where the ranks at input dimensions in_pos .. and output
 * dimensions out_pos .. have the same coordinate along axis "a" (both on
 * its frame): isl_map_equate for a mesh axis. */
__isl_give isl_map *dmd_mesh_equate(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, int in_pos, int out_pos, int a);
/* "map" where the rank at dimensions pos .. of "type" (isl_dim_in or
 * isl_dim_out) has coordinate "val" along axis "a". */
__isl_give isl_map *dmd_mesh_fix(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, enum isl_dim_type type, int pos, int a,
	long val);
/* "set" (over the mesh parameters) spread along axis "a": a rank gets
 * what any rank of its line along "a" has (isl_set_eliminate of the
 * parameter for a mesh axis; ranks off a view keep their own). */
__isl_give isl_set *dmd_mesh_eliminate(const struct dmd_mesh *mesh,
	__isl_take isl_set *set, int a);
/* { R[r] -> R[s] : r and s on the frame of "a" and equal coordinates
 * along its other axes } (the line along "a"; for a mesh axis, equal
 * coordinates along the other mesh axes). */
__isl_give isl_map *dmd_mesh_line(const struct dmd_mesh *mesh, int a);
/* Does the coordinate along axis "b" change along the lines of axis
 * "a" (ranks of both frames)?  True for b = a; for view axis u = 2 x + y
 * of a 2x2 mesh and mesh axis y (or x); false for axes of the same
 * frame. */
isl_bool dmd_mesh_crosses(const struct dmd_mesh *mesh, int a, int b);
/* "map" { R[r] -> X[x] } with, for each x and each line along axis
 * "a", only the rank of that line of least coordinate along "a" that
 * "map" relates to x. */
__isl_give isl_map *dmd_mesh_first_along(const struct dmd_mesh *mesh,
	__isl_take isl_map *map, int a);
/* The ranks written in the coordinates of view "v" instead of the mesh
 * coordinates, for the code of a step distributed over the view: the
 * parameters c_x.. of the mesh replaced by c_a.. of the view (the
 * bijection r = row-major rank of either; on a 1-D mesh an affine
 * substitution, so the divisions by the view's strides disappear).  For
 * the ranks past the view the first coordinate goes on past its extent.
 * Each of these takes an object over the mesh parameters. */
__isl_give isl_set *dmd_mesh_rebase_set(const struct dmd_mesh *mesh, int v,
	__isl_take isl_set *set);
__isl_give isl_union_map *dmd_mesh_rebase_union_map(
	const struct dmd_mesh *mesh, int v, __isl_take isl_union_map *umap);
__isl_give isl_pw_aff *dmd_mesh_rebase_pw_aff(const struct dmd_mesh *mesh,
	int v, __isl_take isl_pw_aff *pa);

/* "pa" in the coordinates of view "v" back in those of the mesh (the
 * inverse of dmd_mesh_rebase_pw_aff, for the proofs of the code as
 * emitted). */
__isl_give isl_pw_aff *dmd_mesh_unbase_pw_aff(const struct dmd_mesh *mesh,
	int v, __isl_take isl_pw_aff *pa);
/* Mesh coordinate "i" of the rank with coordinate "val" along axis "a"
 * and the coordinates of the rank at set dimensions pos .. of the
 * domain of "val" along the other axes of the frame of "a". */
__isl_give isl_aff *dmd_mesh_placed(const struct dmd_mesh *mesh, int pos,
	int a, __isl_take isl_aff *val, int i);
/* Mesh coordinate "i" of the rank "disp" steps further along axis "a"
 * (around its ring) from the rank at dimensions pos .. of local space
 * "ls" (set dimensions). */
__isl_give isl_aff *dmd_mesh_moved(const struct dmd_mesh *mesh,
	__isl_keep isl_local_space *ls, int pos, int a, int disp, int i);

/* ir/dmd_layout.c */
__isl_give struct dmd_layout *dmd_layout_build(const struct dmd_mesh *mesh,
	const struct dmd_job *job, int tensor);
int dmd_layout_check(const struct dmd_mesh *mesh, const struct dmd_job *job,
	int ti);
__isl_null struct dmd_layout *dmd_layout_free(
	__isl_take struct dmd_layout *lay);
__isl_give isl_aff *dmd_layout_local_aff(const struct dmd_layout *lay, int d,
	__isl_take isl_aff *e);
__isl_give isl_aff *dmd_layout_global_aff(const struct dmd_layout *lay,
	int d, __isl_take isl_aff *v);

/* ir/dmd_poly.c */
__isl_give struct dmd_poly *dmd_poly_build(const struct dmd_mesh *mesh,
	const struct dmd_job *job, struct dmd_layout **lay,
	const struct dmd_step *st, int index);
__isl_null struct dmd_poly *dmd_poly_free(__isl_take struct dmd_poly *p);
/* The floating-point operations of one iteration of "p" (2 for a matrix
 * product): the one count behind p->flops and the cost model's flops. */
long dmd_poly_ops(const struct dmd_poly *p);
/* The position of loop "loop" among the time loops, or -1. */
int dmd_poly_time_pos(const struct dmd_poly *p, int loop);

#endif
