/* dmd_emit.h: the emit room.  It prints the program of a cell
 * (specialize/dmd_spec.h) as C calling the runtime (runtime/dmd_rt.h),
 * the header shared by every class program, and the file of a class; and
 * it merges cells whose printed code is identical into the rank classes.
 *
 * Every name in the emitted C is the compiler's own: a KIND_NAME form
 * (c_x for the coordinate along axis x, buf_A for tensor A's buffer,
 * i_kor for loop kor, ...) whose KIND has no underscore, so no two can
 * collide, none is a C keyword, a libc macro or a runtime symbol, and
 * internal names (rt, q3, b0, e0) have no underscore at all.  User text
 * in strings is escaped; in comments it is defused.
 */
#ifndef DMD_EMIT_H
#define DMD_EMIT_H

#include <isl/printer.h>

#include "specialize/dmd_spec.h"

/* A rank class: cells with identical code. */
struct dmd_class {
	isl_set *set;			/* [c] -> { : ... } (mesh params) */
	char *set_text;			/* as the job names the axes */
	struct dmd_why why;		/* the facts that make it a class */
	char *why_line;			/* the same on one line */
	struct dmd_why blocks;		/* cyclic tensors' blocks: a line
					 * each (none if no tensor is
					 * cyclic) */
	char *code;			/* the whole classK.c */
	char *body;			/* its program's block (of main) */
	long count;
	int n_ranges;
	long (*ranges)[2];
};

struct dmd_classes {
	char *common;			/* common.h */
	int n;
	struct dmd_class *cls;
};

/* emit/dmd_emit.c */
/* The body of the program of a cell: the block of main() (or of a
 * class's function in a library); the text compared when cells are
 * merged. */
char *dmd_emit_body(const struct dmd_spec *spec);
/* emit/dmd_emit_file.c */
/* The whole file of class "c" (number "id" of "n") around "body". */
char *dmd_emit_file(const struct dmd_model *m, const struct dmd_class *c,
	int id, int n, const char *body);
/* The body of every cell's program "specs" (printed): a new array of
 * specs->n strings; dmd_emit_bodies_free releases it. */
char **dmd_emit_cells(const struct dmd_specs *specs);
char **dmd_emit_bodies_free(char **body, int n);
/* The merge, a step of its own after printing: cells whose bodies are
 * identical form one class; classes numbered by their first rank,
 * explained, wrapped in their file.  Takes the bodies. */
__isl_give struct dmd_classes *dmd_emit_merge(const struct dmd_plan *plan,
	const struct dmd_facts *facts, const struct dmd_cells *cells,
	char **body);
/* dmd_emit_cells, then dmd_emit_merge, into *classes: DMD_OK or
 * DMD_INTERNAL. */
enum dmd_status dmd_emit_classes(const struct dmd_plan *plan,
	const struct dmd_facts *facts, const struct dmd_cells *cells,
	const struct dmd_specs *specs, __isl_give struct dmd_classes **classes);
__isl_null struct dmd_classes *dmd_emit_classes_free(
	__isl_take struct dmd_classes *c);

/* emit/dmd_emit_lib.c: the library of "classes" (distmpmd build
 * --lib): its C source (every class's body as a static function, the
 * rank's blocks, NAME_run, NAME_block, NAME_error) and its header
 * NAME.h (spec section 2, "Library mode").  NULL if memory runs out. */
char *dmd_emit_lib_source(const struct dmd_plan *plan,
	const struct dmd_classes *classes);
char *dmd_emit_lib_header(const struct dmd_model *m);
/* The first tensor with a file whose enumerator NAME_T in the header
 * would clash with another name of the header (T is NTENSORS, run,
 * block or error), or -1. */
int dmd_emit_lib_clash(const struct dmd_model *m);

/* emit/dmd_emit_name.c */
/* Print "kind" "_" "user" (a name of the emitted C). */
__isl_give isl_printer *dmd_emit_name(__isl_take isl_printer *p,
	const char *kind, const char *user);
/* The same with a printf-formatted kind ("lo%d"). */
__isl_give isl_printer *dmd_emit_namef(__isl_take isl_printer *p,
	const char *user, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print "s" as a C string literal, every byte that is not plain
 * printable ASCII (and \, ", ?) escaped. */
__isl_give isl_printer *dmd_emit_cstr(__isl_take isl_printer *p,
	const char *s);
/* Print "s" for a comment: printable ASCII as is except that no comment
 * terminator survives, other bytes as \xNN. */
__isl_give isl_printer *dmd_emit_ctext(__isl_take isl_printer *p,
	const char *s);
/* printf to the printer. */
__isl_give isl_printer *dmd_emit_printf(__isl_take isl_printer *p,
	const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
