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
 * extents, roots, peers; named fields per kind, union dmd_spec_fields)
 * into AST expressions stored in a payload on the AST node, so that the
 * printer (emit/) only switches on the kind and reads the fields.
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
	DMD_SPEC_COMP,		/* out[...] (+)= expr */
	DMD_SPEC_GEMM,		/* the BLAS leaf */
	DMD_SPEC_ZERO,		/* out[e] = 0 */
	DMD_SPEC_CLEAR,		/* a receive or part buffer := 0 */
	DMD_SPEC_BCAST,		/* post of a broadcast */
	DMD_SPEC_SHIFT,		/* post of a ring shift */
	DMD_SPEC_RECV,		/* post of a receive */
	DMD_SPEC_SEND,		/* post of a send */
	DMD_SPEC_SELF,		/* copy of the rank's own piece */
	DMD_SPEC_WAIT,		/* wait, set the view */
	DMD_SPEC_VIEW_HOME,	/* the view is the home buffer */
};

/* The C element type of the job's data (spec 1.3: f32 in float, f64 in
 * double), carried by the typed program's buffers, views and compute
 * statements: "name" declares them ("float"); "single": constants are
 * float constants (2.0f) and functions libm's float ones (expf). */
struct dmd_spec_ctype {
	const char *name;
	int single;
};

/* The buffer a statement reads or writes: its tensor's home buffer
 * (buf_A), its transfer's buffer at the time point "par" (r3_A, r3a_A
 * or r3b_A), the step's view of its tensor (v_A) or the step's write
 * view (w_C). */
enum dmd_spec_buf {
	DMD_BUF_HOME,
	DMD_BUF_XFER,
	DMD_BUF_VIEW,
	DMD_BUF_WRITE,
};

/* How the compute statement uses the element of an access: read,
 * written (w_C[..] = ..) or added to (w_C[..] += ..: the step sums into
 * the element or accumulates). */
enum dmd_spec_mode {
	DMD_SPEC_READ,
	DMD_SPEC_WRITE,
	DMD_SPEC_ADD,
};

/* An access of the compute statement (as PPCG's gpu_stmt_access with
 * ref2expr): "expr", the ACCESS node of the step's statement where it is
 * printed; its tensor; its mode; "view", the view it goes through (an
 * index into its step's view[], set by dmd_spec_uses: v_A, or w_C for
 * the output and for a read of the element the iteration writes);
 * "index", its n_index index expressions (into the statement's pa[]). */
struct dmd_spec_access {
	const struct dmd_expr *expr;
	int tensor;
	enum dmd_spec_mode mode;
	int view;
	int n_index;
	isl_pw_aff **index;
};

/* The quantities a statement prints, by kind, as named fields (as in
 * PPCG's struct ppcg_kernel_stmt): each points to its pw_affs in the
 * statement's pa[] (a scalar to one, an array to np, nd or 3 of them;
 * at an AST node, dmd_spec_exprs gives their expressions).  "par": the
 * time point whose buffer a transfer uses (t_level, 0 before the loops);
 * "peer": mesh coordinates; "lo", "ext": a box (origins, extents) in
 * global element indices; "blo": the origin of the transfer's buffer;
 * "plo", "pext": the box a shift sends (its view's, of the previous time
 * point); "root": a broadcast's root along its axis.  And the buffers
 * they use, decided here: a receive "into" its transfer's buffer or the
 * home buffer (ghost cells, a returned sum), adding ("sum") or not; a
 * send "from" the home buffer or the write view (a return); the copy of
 * the rank's own piece "from" one "into" another, adding or not; a wait
 * that sets its view ("set_view", at a time loop; "root": a broadcast's,
 * whose root's view is its home buffer).  The compute statement (COMP)
 * has its accesses (n_acc, acc: the output's first) and the type it
 * computes in; VIEW_HOME has none. */
union dmd_spec_fields {
	struct {
		int n_acc;
		struct dmd_spec_access *acc;	/* owned */
		const struct dmd_spec_ctype *type;
	} comp;
	struct {
		isl_pw_aff **lo, **ext;			/* i, j, k */
		isl_pw_aff **org;	/* A, B, C: 2 each, or NULL */
	} gemm;
	struct { isl_pw_aff **e; } zero;		/* the element */
	struct { isl_pw_aff **par; } clear;
	struct { isl_pw_aff **par, **root, **lo, **ext; } bcast;
	struct { isl_pw_aff **par, **lo, **ext, **plo, **pext; } shift;
	struct {
		isl_pw_aff **par, **peer, **lo, **ext, **blo;
		isl_pw_aff **comb;	/* combs (P, a, S per dimension,
					 * then runs - 1 further runs'
					 * start and length), or NULL */
		int runs;
		enum dmd_spec_buf into;
		int sum;
	} recv;
	struct {
		isl_pw_aff **par, **peer, **lo, **ext;
		isl_pw_aff **comb;	/* as recv.comb */
		int runs;
		enum dmd_spec_buf from;
	} send;
	struct {
		isl_pw_aff **par, **lo, **ext, **blo;
		enum dmd_spec_buf from, into;
		int sum;
	} self;
	struct {
		isl_pw_aff **par, **lo, **root;	/* root: broadcast */
		int set_view;
	} wait;
};

/* A statement of a step's program.  "pipe": placed at the previous time
 * point of its transfer's loop (a post for t in iteration t - 1). */
struct dmd_spec_stmt {
	enum dmd_spec_kind kind;
	char *name;			/* tuple name of its domain: "s3" */
	struct dmd_xfer *xfer;		/* not owned; NULL for COMP/GEMM/ZERO */
	const struct dmd_p2p *pieces;	/* not owned: the point-to-point
					 * pieces RECV/SEND/SELF post (the
					 * combs they use) */
	int pipe;
	union dmd_spec_fields u;	/* by kind, into pa[] */
	int n_pa;
	isl_pw_aff **pa;		/* the storage of u's quantities */
	isl_set *dom;			/* the instances the cell runs, over
					 * the cell (COMP: its iterations
					 * S[i]); NULL if none */
};

/* A quantity of a statement by name, for the proofs (which read the
 * quantities that emit prints, field by field). */
enum dmd_spec_field {
	DMD_FIELD_PAR,
	DMD_FIELD_ROOT,
	DMD_FIELD_PEER,
	DMD_FIELD_LO,
	DMD_FIELD_EXT,
	DMD_FIELD_BLO,
	DMD_FIELD_PLO,
	DMD_FIELD_PEXT,
	DMD_FIELD_COMB,		/* combs (RECV, SEND): P, a, S per
				 * dimension */
};

/* Field "f" of statement "s" (NULL if its kind has none), with the
 * number of its pw_affs in *n. */
isl_pw_aff **dmd_spec_field(const struct dmd_spec_stmt *s,
	enum dmd_spec_field f, int np, int nd, int *n);

/* Which of the buffers of its transfer a statement uses at an AST node:
 * the only one (r3_A), the first or the second of two used in turn
 * (r3a_A, r3b_A: its "par" there is even or odd), or the one of the
 * parity of "par" at run time. */
enum dmd_spec_which {
	DMD_SPEC_ONE,
	DMD_SPEC_FIRST,
	DMD_SPEC_SECOND,
	DMD_SPEC_BY_PARITY,
};

/* What at_each_domain computed for one AST node: the statement and the
 * expressions of its pw_affs in terms of the AST's iterators (expr[i]
 * of stmt->pa[i]); "which": the buffer of its transfer it uses there,
 * if any (set by dmd_spec_uses). */
struct dmd_spec_payload {
	struct dmd_spec_stmt *stmt;
	int n_expr;
	isl_ast_expr **expr;
	enum dmd_spec_which which;
};

/* The expressions at the node of "pl" of the quantities of field
 * "field" of its statement (e.g. pl->stmt->u.recv.lo). */
static inline isl_ast_expr **dmd_spec_exprs(
	const struct dmd_spec_payload *pl, isl_pw_aff **field)
{
	return pl->expr + (field - pl->stmt->pa);
}

/* The expression at the node of "pl" of its statement's "par" (the time
 * point whose buffer a transfer uses), or NULL if its kind has none. */
isl_ast_expr *dmd_spec_par(const struct dmd_spec_payload *pl);

/* The access of compute statement "s" printed at ACCESS node "e" of its
 * step's statement, or NULL. */
const struct dmd_spec_access *dmd_spec_access_at(
	const struct dmd_spec_stmt *s, const struct dmd_expr *e);

/* A view of a step (see doc/design-notes.md, "Views instead of per-case
 * buffers"): the pointer v_A (w_C for the output written) and the
 * components vo<d>_A (origins) and vx<d>_A (extents) that the step's
 * statements read, bit d of "o" and "x" (the others are neither declared
 * nor set).  It points to the home buffer, or with "xfer" to the buffer
 * of that transfer: fixed before the step's loops ("lo": the box's
 * origins on the cell), or "mut" (set by the waits at a time loop,
 * starting at the home buffer); "root": a broadcast before the loops,
 * whose root (the expression "root") reads its own home buffer.
 * "home": its declaration points to the home buffer (and takes its
 * origins and extents): no transfer, one into ghost cells, or one at a
 * time loop before its first wait; else the buffer of "xfer" (r<k>_A).
 * "restrict": no transfer of the step touches the buffer.  "type": the
 * element type it points to. */
struct dmd_spec_view {
	int tensor;
	int write;			/* w_C, not v_A */
	int ptr;			/* the pointer is read */
	unsigned o, x;			/* components read */
	const struct dmd_xfer *xfer;	/* NULL: the home buffer */
	int mut, root, restrict_ok;
	int home;
	const struct dmd_spec_ctype *type;
};

/* The program of one step in one cell; "zero": the loop nest of the
 * zero statement (printed where the main AST has its ZERO marker);
 * "view": the views its statements read through, in the order of the
 * accesses, the output's first. */
struct dmd_spec_step {
	int step;
	int n_stmt;
	struct dmd_spec_stmt *stmt;
	isl_ast_node *ast;
	isl_ast_node *zero;
	void *data;			/* for at_each_domain */
	int n_view;
	struct dmd_spec_view *view;
};

/* A tensor in the program of a cell: its home buffer (the box of its
 * block and ghost cells, "size" elements), the expressions on the cell
 * of its block's origins "lo" and extents "ext" and of its home buffer's
 * "ho", "hx" (nd each; in the coordinates of the view the tensor is
 * laid out on, if any: c_a of the view), of "writer" (an output: the
 * ranks that write it, in the mesh coordinates); and which of them the
 * code uses: bit d of "use_lo" for lo<d>_A, ... ("use_buf": buf_A).
 * "halo": the home buffer holds ghost cells, so its origins and extents
 * are ho<d>_A, hx<d>_A (else the block's, lo<d>_A, ext<d>_A).  "type":
 * the element type of the buffer. */
struct dmd_spec_tensor {
	long size;
	int halo;
	const struct dmd_spec_ctype *type;
	isl_ast_expr **lo, **ext, **ho, **hx;
	isl_ast_expr *writer;
	unsigned use_lo, use_ext, use_ho, use_hx;
	int use_buf;
};

/* A transfer in the program of a cell: its buffers (none: it lands in
 * the home buffer; 1; 2, used in turn by the time points of its loop)
 * of extents "ext" (nd), "size" elements each, of element type "type",
 * the expressions on the cell of its box's
 * origins "lo" (for a view fixed before the loops) and of its root (a
 * broadcast), both in the coordinates of the view its step is
 * distributed over, if any (as the step's statements); which names the
 * code uses: r<k>_A ("use_r"), r<k>a_A and r<k>b_A, rx<k>_A. */
struct dmd_spec_xbuf {
	int n_buf;
	long *ext;
	long size;
	const struct dmd_spec_ctype *type;
	isl_ast_expr **lo;
	isl_ast_expr *root;
	int use_r, use_ra, use_rb, use_rx;
};

/* The program of one cell: its steps, and the AST build of the cell
 * (for the expressions of parameter-only quantities in the set-up); the
 * typed program emit prints without deciding anything: per tensor and
 * per transfer their buffers and quantities, per axis of the mesh or a
 * view (dmd_job_axis_name) whether the code uses its coordinate c_x
 * ("use_coord"), found by walking the ASTs, payloads and views
 * (specialize/dmd_spec_uses.c). */
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
	struct dmd_spec_tensor *tensor;	/* per tensor of the job */
	struct dmd_spec_xbuf *xbuf;	/* per transfer of the plan */
	int *use_coord;			/* per axis of the mesh and the
					 * views (mesh->n_all) */
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

/* specialize/dmd_spec_uses.c: the buffers, views and identifiers of
 * the program of cell "spec" (its steps built); dmd_spec_uses_free
 * releases them.  -1 on error. */
int dmd_spec_uses(struct dmd_spec *spec);
void dmd_spec_uses_free(struct dmd_spec *spec);
/* The view of tensor "t" of step "ss" ("write": the output's), or NULL. */
const struct dmd_spec_view *dmd_spec_view_of(const struct dmd_spec_step *ss,
	int t, int write);

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
