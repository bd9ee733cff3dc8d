/* dmd_spec.h: the statements of one class's program and its isl AST.
 *
 * Besides the compute statement (or the GEMM leaf), each transfer becomes
 * one or more synthetic statements.  Each is a real leaf of the schedule;
 * at_each_domain turns the piecewise quantities it needs (box origins and
 * extents, broadcast roots, peers) into AST expressions stored in a
 * payload (struct dmd_payload) attached to the AST node, so the printer
 * only switches on the statement type.
 */
#ifndef DMD_SPEC_H
#define DMD_SPEC_H

#include <isl/ast.h>
#include <isl/ast_build.h>

#include "dmd_model.h"

enum dmd_stmt_type {
	DMD_STMT_COMP,		/* out[...] (+)= expr */
	DMD_STMT_GEMM,		/* cblas_?gemm on a box */
	DMD_STMT_VIEW_LOCAL,	/* the view is part of its own block; pa: lo[nd] */
	DMD_STMT_BCAST,		/* pa: root, lo[nd], ext[nd] */
	DMD_STMT_SHIFT,		/* pa: lo[nd], ext[nd], previous ext[nd] */
	DMD_STMT_BEGIN,		/* pa: lo[nd] (the receive box origin) */
	DMD_STMT_RECV,		/* pa: peer[np], lo[nd], ext[nd] */
	DMD_STMT_SELF,		/* pa: lo[nd], ext[nd] */
	DMD_STMT_SEND,		/* pa: peer[np], lo[nd], ext[nd] */
	DMD_STMT_END,
};

/* A statement of the per-class program. */
struct dmd_stmt {
	enum dmd_stmt_type type;
	char *name;		/* tuple name of its domain */
	int xfer;		/* index into model->xfer, or -1 */
	int n_pa;
	isl_pw_aff *pa[3 * DMD_MAX_DIMS + DMD_MAX_AXES + 4];
};

/* What at_each_domain computed for one AST node. */
struct dmd_payload {
	struct dmd_stmt *stmt;
	int n_expr;
	isl_ast_expr **expr;
};

/* The program of one cell: statements, and the AST under the cell. */
struct dmd_prog {
	struct dmd_model *m;
	isl_set *cell;			/* [x, y] -> { : ... } */
	int n_stmt;
	struct dmd_stmt *stmt;
	isl_union_map *sched;
	isl_ast_node *ast;
	isl_ast_build *pbuild;		/* expressions of the parameters */
	long alloc[64][DMD_MAX_DIMS];	/* per transfer: buffer extents */
	long local[16][DMD_MAX_DIMS];	/* per tensor: block extents */
};

__isl_give struct dmd_prog *dmd_spec_prog(struct dmd_model *m,
	__isl_keep isl_set *cell);
struct dmd_prog *dmd_spec_prog_free(__isl_take struct dmd_prog *p);
__isl_give isl_ast_expr *dmd_spec_expr(__isl_keep isl_ast_build *build,
	__isl_take isl_pw_aff *pa, __isl_keep isl_set *where);

#endif
