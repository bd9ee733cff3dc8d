/* dmd_job.h: the job file as parsed (ir/dmd_parse.c), before any polyhedral
 * analysis.  Every object that came from the file carries its location so
 * that later passes report errors as FILE:LINE:COL.
 *
 * Ownership: a struct dmd_job owns everything reachable from it;
 * dmd_job_free() releases it all and returns NULL.
 */
#ifndef DMD_JOB_H
#define DMD_JOB_H

#include <stdarg.h>
#include <stddef.h>

#define DMD_MAX_DIMS 8
#define DMD_MAX_AXES 8
/* Views of the mesh (spec 1.1): at most DMD_MAX_VIEWS, each of at most
 * DMD_MAX_AXES axes. */
#define DMD_MAX_VIEWS 16

/* Limits of the job reader (ir/dmd_parse.c, ir/dmd_expr.c).  A job file
 * beyond any of them is refused with a message, located where the limit is
 * crossed, before the work grows with it; README.md lists them too.  Jobs
 * within them are read in time linear in the size of the file (a job at
 * each limit takes well under a second).
 *
 * The file: a regular file (not a device, FIFO or directory) of at most
 * DMD_MAX_JOB_BYTES bytes.  Before libyaml builds the document, its event
 * stream is walked: YAML collections may nest at most DMD_MAX_DEPTH deep,
 * the file may define at most DMD_MAX_ANCHORS anchors, an alias may not
 * refer to a node that contains it, and the document with its aliases
 * expanded may weigh at most DMD_MAX_EXPANDED (a node weighs 1, plus the
 * bytes of its value for a scalar: without aliases a file within
 * DMD_MAX_JOB_BYTES is always lighter, so that aliases at most double the
 * work of the largest file). */
#define DMD_MAX_JOB_BYTES	(1 << 20)
#define DMD_MAX_DEPTH		64
#define DMD_MAX_ANCHORS		256
#define DMD_MAX_EXPANDED	(2 << 20)
/* Counts: tensors; steps of the program (nested steps included, each
 * counted once however often it repeats); schedule commands in the whole
 * job; arguments, and names, in one schedule command (its lists
 * together); characters of a name (job, mesh axis, tensor, index
 * variable, loop: 64, well within a file name); bytes of a 'file'
 * (PATH_MAX - 1). */
#define DMD_MAX_TENSORS		4096
#define DMD_MAX_STEPS		4096
#define DMD_MAX_CMDS		4096
#define DMD_MAX_CMD_NAMES	64
#define DMD_MAX_NAME		64
#define DMD_MAX_FILE		4095
/* Integers: every integer of a job but a seed (an unsigned 64-bit
 * integer) and the rank count (at most INT_MAX here, fewer in the
 * analysis) lies in [-DMD_MAX_INT, DMD_MAX_INT] = [-2^62, 2^62], so that
 * the sum of two of them fits a long: integers in indices and dist
 * entries and their constant parts, divide's number of parts, split's
 * chunk size.  A tensor's element count and its size in bytes (count * 4
 * or 8) fit an int64 (so an f32 extent is below 2^61).  Offsets lie in
 * [0, extent], place coordinates in [0, mesh extent).  A step runs at
 * most DMD_MAX_RUNS times: the product of the counts of the repeats
 * around it (an int counter never overflows). */
#define DMD_MAX_INT		(1L << 62)
#define DMD_MAX_RUNS		2147483647L

struct dmd_names;

/* 1-based line and column in the job file. */
struct dmd_loc {
	int line;
	int col;
};

enum dmd_dtype { DMD_F32 = 0, DMD_F64 = 1 };
enum dmd_split { DMD_SPLIT_BLOCK = 0, DMD_SPLIT_BALANCED = 1 };
enum dmd_init { DMD_INIT_NONE = 0, DMD_INIT_ZEROS, DMD_INIT_ONES,
	DMD_INIT_RANDOM };

/* Expression trees: dist entries (quasi-affine over mesh axes), access
 * indices (affine over index variables) and the right-hand side of the
 * statement.
 *   INT      ival
 *   NUM      fval (a literal with '.', 'e' or too large for long)
 *   VAR      name (index variable or mesh axis)
 *   ACCESS   name = tensor, args = indices (n_arg == 0 for a scalar)
 *   ADD SUB MUL DIV(/) FDIV(//) MOD(%)   args[0], args[1]
 *   NEG      args[0]
 *   CALL     name = max|min|exp|sqrt|relu|tanh|sigmoid|erf|gelu|abs|log,
 *            args
 */
enum dmd_expr_type {
	DMD_EXPR_INT,
	DMD_EXPR_NUM,
	DMD_EXPR_VAR,
	DMD_EXPR_ACCESS,
	DMD_EXPR_ADD,
	DMD_EXPR_SUB,
	DMD_EXPR_MUL,
	DMD_EXPR_DIV,
	DMD_EXPR_FDIV,
	DMD_EXPR_MOD,
	DMD_EXPR_NEG,
	DMD_EXPR_CALL,
};

struct dmd_expr {
	enum dmd_expr_type type;
	struct dmd_loc loc;
	long ival;
	double fval;
	char *name;
	int n_arg;
	struct dmd_expr **args;
};

struct dmd_tensor {
	char *name;
	struct dmd_loc loc;		/* of the tensor's key */
	int ndim;
	long shape[DMD_MAX_DIMS];
	struct dmd_loc shape_loc;	/* of the shape's sequence */
	enum dmd_dtype dtype;
	/* dist[d] == NULL means "-" (not split). */
	struct dmd_expr *dist[DMD_MAX_DIMS];
	struct dmd_loc dist_loc[DMD_MAX_DIMS];
	struct dmd_loc layout_loc;	/* of the 'dist' key, else 'place',
					 * else the tensor's key */
	enum dmd_split split;
	/* offsets[d] != NULL: explicit boundaries o0 = 0 < ... <= oB = shape[d],
	 * n_offsets[d] = B + 1 entries. */
	long *offsets[DMD_MAX_DIMS];
	int n_offsets[DMD_MAX_DIMS];
	/* cyclic[d] > 0: dimension d is cut into blocks of cyclic[d]
	 * elements dealt round-robin over its holders (spec 1.2, v3);
	 * 0: not cyclic.  cyclic_loc[d]: the location of its key. */
	long cyclic[DMD_MAX_DIMS];
	struct dmd_loc cyclic_loc[DMD_MAX_DIMS];
	int n_cyclic;			/* dimensions with cyclic[d] > 0 */
	/* place: the tensor lives only where axis place_axis[i] has
	 * coordinate place_coord[i]; place_axis[i] is an axis index (mesh
	 * axes, then view axes: dmd_job_find_axis). */
	int n_place;
	int place_axis[DMD_MAX_AXES];
	long place_coord[DMD_MAX_AXES];
	/* partial: held as unreduced partial sums along these axes (spec
	 * 1.5); axis indices. */
	int n_partial;
	int partial_axis[DMD_MAX_AXES];
	struct dmd_loc partial_loc;
	/* The frame of its layout: -1 the mesh, else the view whose axes
	 * its dist, place and partial name (one frame per tensor). */
	int view;
	/* dist_auto: the layout is the compiler's to choose (spec 1.2:
	 * 'dist: auto', or an intermediate without 'dist'), located at
	 * dist_auto_loc; search/dmd_search_layout.c sets dist. */
	int dist_auto;
	struct dmd_loc dist_auto_loc;
	char *file;			/* as written, relative to the job file */
	struct dmd_loc file_loc;
	enum dmd_init init;
	unsigned long long seed;
};

enum dmd_cmd_type {
	DMD_CMD_DIVIDE,
	DMD_CMD_SPLIT,
	DMD_CMD_REORDER,
	DMD_CMD_DISTRIBUTE,
	DMD_CMD_ROTATE,
	DMD_CMD_COMMUNICATE,
	DMD_CMD_TENSORIZE,
};

enum dmd_arg_kind { DMD_ARG_ID, DMD_ARG_INT, DMD_ARG_LIST };

/* One argument of a schedule command: an identifier, an integer, or a
 * bracketed list of identifiers (a single identifier where a list is
 * expected is stored as a list of one). */
struct dmd_sched_arg {
	enum dmd_arg_kind kind;
	struct dmd_loc loc;
	char *id;			/* DMD_ARG_ID */
	long ival;			/* DMD_ARG_INT */
	int n;				/* DMD_ARG_LIST */
	char **ids;
	struct dmd_loc *locs;
};

/* A schedule command, with its arguments checked for count and kind:
 *   divide(i, io, ii, P[, balanced])  args: ID ID ID INT [ID "balanced"]
 *   split(i, io, ii, S)               args: ID ID ID INT
 *   reorder(v1, v2, ...)              args: ID...   (n_args >= 1)
 *   distribute([..], [..], [..], [..]) args: LIST LIST LIST LIST (equal n)
 *   rotate(t, [v..], r)               args: ID LIST ID
 *   communicate(T | [T..], v)         args: LIST ID
 *   tensorize([..], gemm)             args: LIST ID "gemm"
 */
struct dmd_sched_cmd {
	enum dmd_cmd_type type;
	struct dmd_loc loc;		/* of the command's name */
	int n_args;
	struct dmd_sched_arg *args;
	int balanced;			/* divide(..., balanced) */
};

/* A step of a program (spec 1.5): a statement with its own schedule,
 * or "repeat" steps of its own "n_repeat" times in order. */
enum dmd_step_type { DMD_STEP_COMPUTE, DMD_STEP_REPEAT };

struct dmd_step {
	enum dmd_step_type type;
	struct dmd_loc loc;		/* of the step's mapping */
	/* DMD_STEP_COMPUTE: the statement lhs (=|+=) rhs, with its schedule */
	struct dmd_expr *lhs;		/* an ACCESS */
	int accumulate;
	struct dmd_expr *rhs;
	struct dmd_loc compute_loc;
	int n_cmds;
	struct dmd_sched_cmd *cmds;
	struct dmd_loc schedule_loc;	/* line 0: no 'schedule' key */
	int schedule_auto;		/* 'schedule: auto' */
	/* DMD_STEP_REPEAT */
	long n_repeat;
	struct dmd_loc repeat_loc;
	int n_steps;
	struct dmd_step *steps;
};

/* A view of the ranks (spec 1.1): rank r has coordinates on it by the
 * row-major order of r; it uses ranks 0 .. nranks - 1. */
struct dmd_view {
	char *name;
	struct dmd_loc loc;		/* of its key */
	int n_axes;
	char *axes[DMD_MAX_AXES];
	long shape[DMD_MAX_AXES];
	struct dmd_loc shape_loc;
	long nranks;			/* product of shape */
};

/* The cost of one transfer along a mesh axis (spec 1.1 'links'). */
struct dmd_link {
	double latency_us;
	double gbps;
};
struct dmd_diag;

struct dmd_job {
	struct dmd_diag *diag;		/* where its messages go (not owned;
					 * ir/dmd_diag.h) */
	char *path;			/* the job file as given */
	char *dir;			/* its directory, absolute */
	char *name;
	struct dmd_loc name_loc;

	int n_axes;
	char *axes[DMD_MAX_AXES];
	long mesh_shape[DMD_MAX_AXES];
	struct dmd_loc mesh_loc;
	long nranks;
	/* Views (spec 1.1).  Axis indices: 0 .. n_axes - 1 the mesh axes,
	 * then the axes of each view in order (dmd_job_find_axis). */
	int n_views;
	struct dmd_view views[DMD_MAX_VIEWS];
	/* mesh.memory in bytes (0: not given) and mesh.links per mesh
	 * axis (default {2, 10}: spec 1.1) */
	long memory;
	struct dmd_loc memory_loc;
	struct dmd_link links[DMD_MAX_AXES];
	int links_given;

	int n_tensors;
	struct dmd_tensor *tensors;
	struct dmd_names *tensor_names;	/* owned: index of tensors by name
					 * (ir/dmd_job.c), or NULL */
	enum dmd_dtype dtype;		/* shared by all tensors */

	/* The program (spec 1.5): n_steps >= 1 steps in order.  A job with
	 * "compute" (v1) is a program of one DMD_STEP_COMPUTE step, with
	 * is_program == 0 (then inputs without file or init are zeros). */
	int is_program;
	struct dmd_loc program_loc;
	int n_steps;
	struct dmd_step *steps;
};

/* Is the schedule of step "st" the compiler's to choose (spec 1.4: no
 * 'schedule' key, or 'schedule: auto')? */
static inline int dmd_step_is_auto(const struct dmd_step *st)
{
	return st->schedule_loc.line == 0 || st->schedule_auto;
}

/* Release what schedule command "cmd" owns (not "cmd" itself): its
 * arguments, their names and locations (ir/dmd_expr.c). */
void dmd_sched_cmd_clear(struct dmd_sched_cmd *cmd);

/* Read and validate a job file.  On error, report
 * "PATH:LINE:COL: error: ..." to "diag" (ir/dmd_diag.h; NULL: stderr)
 * and return NULL.  "path" must be a regular file of at most
 * DMD_MAX_JOB_BYTES bytes.  The job reports its later messages to "diag"
 * too. */
struct dmd_job *dmd_job_read(const char *path, struct dmd_diag *diag);
/* Read and validate the job held in data[0..len) (not NUL-terminated) as
 * if it were the content of the job file "name": messages name it, and
 * job->dir is the directory of "name" (which must exist).  dmd_job_read
 * reads the file and calls this; so does the session for the fuzz
 * harness (tests/fuzz/fuzz_job.c).  "data" is not kept. */
struct dmd_job *dmd_job_read_mem(const char *name, const char *data,
	size_t len, struct dmd_diag *diag);
struct dmd_job *dmd_job_free(struct dmd_job *job);

/* Check the program of "job" (spec 1.5): no step reads a tensor that has
 * neither 'file' nor 'init' before a step writes it; no tensor read from
 * its file is partial.  Reports the first problem and returns -1, else 0.
 * (ir/dmd_program.c) */
int dmd_job_check_program(const struct dmd_job *job);

/* Index of the tensor called "name", or -1. */
int dmd_job_find_tensor(const struct dmd_job *job, const char *name);
/* Index of the axis (of the mesh or of a view) called "name", or -1:
 * mesh axes are 0 .. n_axes - 1, view axes follow, view by view. */
int dmd_job_find_axis(const struct dmd_job *job, const char *name);
/* Axes of the mesh and of every view. */
int dmd_job_n_all_axes(const struct dmd_job *job);
/* Name and extent of axis "a"; the view it belongs to (-1: the mesh)
 * and its position there. */
const char *dmd_job_axis_name(const struct dmd_job *job, int a);
long dmd_job_axis_extent(const struct dmd_job *job, int a);
int dmd_job_axis_view(const struct dmd_job *job, int a);
int dmd_job_axis_pos(const struct dmd_job *job, int a);
/* The axis index of axis "pos" of view "v" (-1: of the mesh). */
int dmd_job_view_axis(const struct dmd_job *job, int v, int pos);
/* Index of the view called "name", or -1. */
int dmd_job_find_view(const struct dmd_job *job, const char *name);

/* Report an error at "loc" in the job file to job->diag
 * (ir/dmd_diag.c): "PATH:LINE:COL: error: <fmt...>". */
void dmd_job_error(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void dmd_job_verror(const struct dmd_job *job, struct dmd_loc loc,
	const char *fmt, va_list ap);

/* Do accesses "x" and "y" have the same plain index variables in the
 * same order (B[i, j] and A[i, j]; not A[j, i] or A[i + 1, j])? */
int dmd_expr_same_vars(const struct dmd_expr *x, const struct dmd_expr *y);

/* Release the schedule commands of step "st": it has none after (as a
 * step the search gave one had before). */
void dmd_step_clear_schedule(struct dmd_step *st);

/* Release the views of "job" from the "nv"-th on (those a search added);
 * the job keeps its first "nv". */
void dmd_job_drop_views(struct dmd_job *job, int nv);

/* Make dimension "d" of tensor "t" of "job" split over the mesh axes
 * axes[0..n) (indices of mesh axes, in mesh order), row-major: "x" for
 * one axis, "x * 4 + y" for two axes of extents [., 4]; not split if
 * n == 0.  The dimension's previous entry is released.  Returns 0, or
 * -1 if out of memory (the entry is then "-"). */
int dmd_tensor_set_dist_axes(const struct dmd_job *job, struct dmd_tensor *t,
	int d, int n, const int *axes);

/* Print an expression in a syntax that isl reads ("floor((x)/4)" for
 * "x // 4", "(a) mod 8" for "a % 8") to a malloc'ed string. */
char *dmd_expr_to_isl(const struct dmd_expr *e);
/* Print an expression in the job's own syntax, e.g. "A[m, k]". */
char *dmd_expr_to_str(const struct dmd_expr *e);
/* The same for a message: at most DMD_EXPR_MSG_LEN characters, cut with
 * "..." (an expression may have thousands of nodes). */
#define DMD_EXPR_MSG_LEN	120
char *dmd_expr_to_msg(const struct dmd_expr *e);

#endif
