/* dmd_spec.h: the program of one cell of the mesh (a candidate rank
 * class): per step, its statements placed in one schedule and the isl
 * AST generated under the cell as context.
 *
 * Besides the compute statement (or the GEMM leaf), each transfer becomes
 * synthetic statements, real leaves of the schedule: the posts of its
 * operations (a broadcast, a shift, the receives, sends and copies of
 * point-to-point pieces, clearing a buffer that receives sums) and a wait
 * that completes them and sets the view the computation reads.  A
 * transfer at a time loop is pipelined: the posts for time point t are
 * placed in iteration t - 1 (before its computation), or before the loop
 * for the first t, and the wait in iteration t.  at_each_domain turns the
 * quantities a statement prints (pw_affs over its domain: box origins and
 * extents, roots, peers) into AST expressions stored in a typed payload
 * on the AST node, so that the printer (emit/) only switches on the type.
 *
 * Ownership: dmd_spec_cell gives a dmd_spec that owns its statements,
 * ASTs and builds; dmd_spec_free releases it and returns NULL.
 */
#ifndef DMD_SPEC_H
#define DMD_SPEC_H

#include <isl/ast.h>
#include <isl/ast_build.h>

#include "partition/dmd_part.h"

enum dmd_spec_kind {
	DMD_SPEC_COMP,		/* out[...] (+)= expr; pa: the accesses' indices */
	DMD_SPEC_GEMM,		/* the BLAS leaf; pa: lo[3], ext[3] of i, j, k */
	DMD_SPEC_ZERO,		/* out[e] = 0; pa: e[nd] */
	DMD_SPEC_CLEAR,		/* a receive or part buffer := 0 */
	DMD_SPEC_BCAST,		/* post: pa root, lo[nd], ext[nd] */
	DMD_SPEC_SHIFT,		/* post: pa lo[nd], ext[nd] (received),
				 * plo[nd], pext[nd] (sent: the view's box) */
	DMD_SPEC_RECV,		/* post: pa peer[np], lo[nd], ext[nd], blo[nd] */
	DMD_SPEC_SEND,		/* post: pa peer[np], lo[nd], ext[nd] */
	DMD_SPEC_SELF,		/* copy: pa lo[nd], ext[nd], blo[nd] */
	DMD_SPEC_WAIT,		/* wait, set the view: pa lo[nd] (, root) */
	DMD_SPEC_VIEW_HOME,	/* the view is the home buffer: pa none */
};

/* A statement of a step's program.  "pipe": placed at the previous time
 * point of its transfer's loop (a post for t in iteration t - 1). */
struct dmd_spec_stmt {
	enum dmd_spec_kind kind;
	char *name;			/* tuple name of its domain: "s3" */
	struct dmd_xfer *xfer;		/* not owned; NULL for COMP/GEMM/ZERO */
	int pipe;
	int n_pa;
	isl_pw_aff **pa;
	isl_set *dom;			/* the instances the cell runs, over
					 * the cell (COMP: its iterations
					 * S[i]); NULL if none */
};

/* What at_each_domain computed for one AST node: the statement and the
 * expressions of its pw_affs in terms of the AST's iterators. */
struct dmd_spec_payload {
	struct dmd_spec_stmt *stmt;
	int n_expr;
	isl_ast_expr **expr;
};

/* The program of one step in one cell; "zero": the loop nest of the
 * zero statement (printed where the main AST has its ZERO marker). */
struct dmd_spec_step {
	int step;
	int n_stmt;
	struct dmd_spec_stmt *stmt;
	isl_ast_node *ast;
	isl_ast_node *zero;
	void *data;			/* for at_each_domain */
};

/* The program of one cell: its steps, and the AST build of the cell
 * (for the expressions of parameter-only quantities in the set-up). */
struct dmd_spec {
	const struct dmd_plan *plan;	/* not owned */
	isl_set *cell;			/* [c] -> { : ... } */
	isl_ast_build *pbuild;
	int n_view;			/* the job's views */
	isl_set **vcell;		/* per view: the cell in its
					 * coordinates */
	isl_ast_build **vbuild;		/* per view: its build */
	int n_step;
	struct dmd_spec_step *steps;
};

__isl_give struct dmd_spec *dmd_spec_cell(const struct dmd_plan *plan,
	__isl_keep isl_set *cell);
__isl_null struct dmd_spec *dmd_spec_free(__isl_take struct dmd_spec *s);

/* The programs of every cell of a plan, in the order of the cells. */
struct dmd_specs {
	int n;
	struct dmd_spec **spec;
};

enum dmd_status dmd_spec_cells(const struct dmd_plan *plan,
	const struct dmd_cells *cells, __isl_give struct dmd_specs **specs);
__isl_null struct dmd_specs *dmd_specs_free(__isl_take struct dmd_specs *s);

/* specialize/dmd_spec_proof.c: on the programs as emitted, that the
 * transfers match up and bring every element a rank reads, and that
 * every holder of an output gets each iteration's result exactly once.
 * Proofs are added to "rep" (a failed one with a witness); DMD_OK if
 * all hold, else DMD_INTERNAL. */
enum dmd_status dmd_spec_prove(const struct dmd_plan *plan,
	const struct dmd_specs *specs, struct dmd_proofs *rep);
/* The expression of parameter-only "pa" (or of a pw_aff over a 0-dim
 * tuple) on the cell; 0 where "pa" is not defined on the cell. */
__isl_give isl_ast_expr *dmd_spec_param_expr(const struct dmd_spec *s,
	__isl_keep isl_pw_aff *pa);
/* The same in the coordinates of view "v" (v < 0: of the mesh), for the
 * quantities of a tensor laid out on a view or of a step distributed
 * over one. */
__isl_give isl_ast_expr *dmd_spec_param_expr_in(const struct dmd_spec *s,
	__isl_keep isl_pw_aff *pa, int v);
/* The largest value of "pa" on the cell (over time too); 0 if nowhere
 * defined, -1 if unbounded. */
long dmd_spec_max(const struct dmd_spec *s, __isl_keep isl_pw_aff *pa);

#endif
