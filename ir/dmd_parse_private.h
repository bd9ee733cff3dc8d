/* dmd_parse_private.h: what the parts of the job reader (ir/dmd_parse.c,
 * ir/dmd_expr.c, ir/dmd_job.c) share.  Not for the later passes: they use
 * dmd_job.h only.
 */
#ifndef DMD_PARSE_PRIVATE_H
#define DMD_PARSE_PRIVATE_H

#include <stddef.h>

#include "dmd_job.h"

/* A string taken from the job file, with the file location of each of its
 * bytes, so that the parsers of ir/dmd_expr.c report errors at the right
 * place.  "what" names the string in messages: "compute",
 * "dist of tensor 'A'", "schedule". */
struct dmd_src {
	const char *text;		/* not owned; len bytes, may hold NULs */
	size_t len;
	const struct dmd_loc *locs;	/* not owned; len + 1 entries, the
					 * last one just past the end */
	const char *what;		/* not owned */
};

/* A set of names with an int each (ir/dmd_job.c): a hash table, so that
 * looking names up costs the same however many there are.  The names are
 * not owned; they must outlive the set. */
struct dmd_names *dmd_names_alloc(void);
struct dmd_names *dmd_names_free(struct dmd_names *names);
int dmd_names_add(struct dmd_names *names, const char *name, int val);
int dmd_names_find(const struct dmd_names *names, const char *name);
size_t dmd_names_count(const struct dmd_names *names);

/* The length in bytes of the character at s[0] (n > 0 bytes left): a
 * UTF-8 sequence, or 1 for a byte that starts none.  *printable is set
 * unless it is a control character (C0, DEL, C1), a line or paragraph
 * separator, a bidirectional control, or not valid UTF-8: what may not go
 * into a one-line message as is. */
size_t dmd_expr_char(const char *s, size_t n, int *printable);

/* Is text[0..len) an identifier [A-Za-z_][A-Za-z0-9_]*? */
int dmd_expr_is_identifier(const char *text, size_t len);

/* Release an expression tree.  Returns NULL. */
struct dmd_expr *dmd_expr_free(struct dmd_expr *e);

/* Parse a dist entry (not "-"): a quasi-affine expression over the mesh
 * axes of "job".  Returns a new tree, or NULL after reporting an error. */
struct dmd_expr *dmd_expr_parse_dist(struct dmd_job *job,
	const struct dmd_src *src);

/* Parse and check the statement; on success fill step->lhs, step->rhs
 * and step->accumulate and return 0.  Needs the mesh and the tensors.
 * Returns -1 after reporting an error. */
int dmd_expr_parse_stmt(struct dmd_job *job, const struct dmd_src *src,
	struct dmd_step *step);

/* Parse and check one schedule command into "cmd" (which must be zeroed;
 * it owns what is stored in it even on error: release it with
 * dmd_sched_cmd_clear).  Returns 0, or -1 after reporting an error. */
int dmd_expr_parse_cmd(struct dmd_job *job, const struct dmd_src *src,
	struct dmd_sched_cmd *cmd);

/* An Axe layout (spec 1.2, v3: "axe: {D: [[extent, stride, axis], ...],
 * R: [...], O: {axis: offset}}"), as read: the iterators in the order
 * written, each on an axis index of the job (dmd_job_find_axis) or on
 * DMD_AXE_MEM, the local memory axis "m". */
#define DMD_AXE_MEM		(-1)
#define DMD_MAX_AXE_ITERS	64

struct dmd_axe_iter {
	long extent;			/* at least 1 */
	long stride;
	int axis;			/* an axis index, or DMD_AXE_MEM */
	struct dmd_loc loc;		/* of its [extent, stride, axis] */
};

struct dmd_axe {
	struct dmd_loc loc;		/* of the 'axe' key */
	struct dmd_loc d_loc;		/* of the 'D' key ("loc" if none) */
	int n_d, n_r, n_o;
	struct dmd_axe_iter d[DMD_MAX_AXE_ITERS];
	struct dmd_axe_iter r[DMD_MAX_AXE_ITERS];
	int o_axis[DMD_MAX_AXES];	/* distinct axes of the frame */
	long o_val[DMD_MAX_AXES];
	struct dmd_loc o_loc[DMD_MAX_AXES];
};

/* Set the layout of tensor "t" (shape read, no dist, cyclic or place;
 * t->view its frame, -2 if "axe" names no axis) to the layout of
 * 1.2 that "axe" writes: dist entries, cyclic block sizes and place
 * (ir/dmd_axe.c).  Returns 0, or -1 after reporting at the first
 * iterator (or offset, or 'D') that 1.2 cannot write. */
int dmd_axe_layout(struct dmd_job *job, struct dmd_tensor *t,
	const struct dmd_axe *axe);

#endif
