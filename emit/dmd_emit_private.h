/* dmd_emit_private.h: what the parts of the emit room share while they
 * print one cell's program (emit/dmd_emit.c: main(), the set-up, the
 * views; emit/dmd_emit_stmt.c: the statements; emit/dmd_emit_wrap.c:
 * the layout).
 */
#ifndef DMD_EMIT_PRIVATE_H
#define DMD_EMIT_PRIVATE_H

#include "emit/dmd_emit.h"

/* Printing one cell: its typed program (specialize/dmd_spec.h), and
 * while printing a step, the step. */
struct dmd_emit_ctx {
	const struct dmd_spec *spec;
	const struct dmd_plan *plan;
	const struct dmd_model *m;
	const char *real;		/* "float" or "double" */
	const struct dmd_spec_step *ss;
	const struct dmd_poly *p;
	const struct dmd_step_plan *sp;
};

/* emit/dmd_emit_name.c: the names of the program.  Print the name "kind"
 * "_" "user" (kind from "fmt"). */
__isl_give isl_printer *dmd_emit_use(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const char *user, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The origin / extent of dimension "d" of tensor "t"'s home buffer:
 * "ho0_A" (ghost cells) or the block's "lo0_A". */
__isl_give isl_printer *dmd_emit_home_o(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, int d);
__isl_give isl_printer *dmd_emit_home_x(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, int d);

/* emit/dmd_emit_stmt.c: the print_user callback of a step's AST. */
__isl_give isl_printer *dmd_emit_user(__isl_take isl_printer *p,
	__isl_take isl_ast_print_options *options,
	__isl_keep isl_ast_node *node, void *user);
/* Print "e", in parentheses unless it is an atom or a call. */
__isl_give isl_printer *dmd_emit_expr(__isl_take isl_printer *p,
	__isl_keep isl_ast_expr *e);

/* emit/dmd_emit_wrap.c: "text" (taken) with every line of code of
 * DMD_EMIT_COLUMNS columns or more broken into shorter ones. */
#define DMD_EMIT_COLUMNS 100
char *dmd_emit_wrap(char *text);

#endif
