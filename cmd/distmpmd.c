/* distmpmd: the command line (spec section 2).
 *
 *   distmpmd build JOB [-o DIR] [-j N] [--cflag FLAG]...
 *   distmpmd run JOB_OR_DIR [--stats] [--dry-run] [-o DIR] [-j N]
 *	[--cflag FLAG]... [-- MPIEXEC_ARGS]
 *   distmpmd classes JOB
 *   distmpmd emit JOB --rank R | --class K
 *   distmpmd check JOB
 *
 * Exit status: 0 success; 1 a run or build that failed; 2 a bad job file
 * or bad arguments.
 *
 * Only the section "The compiler core" below knows the core's data
 * structures; it turns its result into a struct dmd_build_input
 * (cmd/dmd_build.h), which is all the rest uses, with the job's name,
 * path, directory, mesh axes, mesh shape and number of ranks.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>

#include "ir/dmd_model.h"
#include "partition/dmd_part.h"
#include "emit/dmd_emit.h"
#include "cmd/dmd_build.h"
#include "manifests/dmd_launch.h"

static const char *usage_main =
"usage: distmpmd COMMAND [ARGS]\n"
"\n"
"Compile a distributed tensor job into rank-specialized MPI programs.\n"
"\n"
"commands:\n"
"  build JOB [-o DIR] [-j N] [--cflag FLAG]...\n"
"                                emit, compile, write DIR/manifest.yaml,\n"
"                                DIR/appfile and DIR/multiprog.conf\n"
"                                (default DIR: build/<name>)\n"
"  run JOB_OR_DIR [--stats] [--dry-run] [-- MPIEXEC_ARGS]\n"
"                                build if given a job, then run with\n"
"                                mpiexec.mpich -configfile DIR/appfile\n"
"  classes JOB                   the rank classes, why, and a map of the mesh\n"
"  emit JOB --rank R             print the C source that rank R runs\n"
"  check JOB                     parse and analyse; report problems\n"
"\n"
"'distmpmd COMMAND --help' describes one command; 'man distmpmd' all.\n"
"Exit status: 0 success, 1 a failed build or run, 2 a bad job or bad "
"arguments.\n";

static const char *usage_build =
"usage: distmpmd build JOB [-o DIR] [-j N] [--cflag FLAG]...\n"
"\n"
"Analyse JOB, emit one C file per rank class (DIR/classK.c), compile each\n"
"with mpicc.mpich against the distmpmd runtime and OpenBLAS, and write\n"
"DIR/manifest.yaml, DIR/appfile and DIR/multiprog.conf.  DIR defaults to\n"
"build/<name> in the current directory.\n"
"\n"
"  -o, --output DIR   the build directory (created if missing, not its\n"
"                     parents)\n"
"  -j, --jobs N       compile N classes at once (default: the cores)\n"
"  --cflag FLAG       one more compiler flag (repeatable), after the\n"
"                     defaults -O3 -Wall -Wextra and after the words of\n"
"                     $DISTMPMD_CFLAGS, e.g. --cflag -march=native\n";

static const char *usage_run =
"usage: distmpmd run JOB_OR_DIR [--stats] [--dry-run] [-o DIR] [-j N]\n"
"                    [--cflag FLAG]... [-- MPIEXEC_ARGS]\n"
"\n"
"Given a job file, build it first (into build/<name>, or DIR with -o);\n"
"given a build directory, use it.  The directory is checked (the\n"
"binaries are the ones its manifest records, the appfile is the one it\n"
"implies), then run: mpiexec.mpich [MPIEXEC_ARGS] -wdir DIR -configfile\n"
"DIR/appfile.  Exits 1 if any rank failed, or if the run was cancelled\n"
"(SIGINT, SIGTERM, SIGHUP: passed on to mpiexec and its ranks).\n"
"\n"
"  --stats      rank 0 prints one JSON line: ranks, classes, time_s,\n"
"               gflops, bytes_moved_total, bytes_recv_max, messages\n"
"  --dry-run    print the commands that run DIR (mpiexec.mpich with the\n"
"               ranks on its command line, with the appfile, and srun\n"
"               --multi-prog) instead of running it\n"
"  -o, -j, --cflag    as for build\n";

static const char *usage_classes =
"usage: distmpmd classes JOB\n"
"\n"
"List the rank classes of JOB: their ranks (as ranges and as an isl set),\n"
"what distinguishes each, and a picture of the mesh by class.\n";

static const char *usage_emit =
"usage: distmpmd emit JOB --rank R\n"
"       distmpmd emit JOB --class K\n"
"       distmpmd emit JOB --common\n"
"\n"
"Print the C that rank R runs (common.h, then its class's file), the\n"
"file of class K, or common.h (what every class program includes).\n";

static const char *usage_check =
"usage: distmpmd check JOB\n"
"\n"
"Parse and analyse JOB without emitting code; print a summary of the\n"
"loops and transfers, or the problems found (exit 2).\n";

/* ------------------------------------------------------------------ */
/* The compiler core: the only part of cmd/ that knows its structures. */

/* The analysed job: every stage of the compiler, each made and freed by
 * its room: job (ir) -> model (ir) -> transfer plan (partition) -> facts
 * and cells (partition) -> classes with their code (specialize, emit;
 * cells with identical code merged).  "in" is what the rest of cmd/
 * uses. */
struct session {
	isl_ctx *ctx;
	struct dmd_job *job;
	struct dmd_model *m;
	struct dmd_plan *plan;
	struct dmd_facts *facts;
	struct dmd_cells *cells;
	struct dmd_classes *classes;
	struct dmd_build_input in;
	struct dmd_build_class *cls;	/* in.cls, owned */
};

/* Free what "s" holds. */
static void session_free(struct session *s)
{
	free(s->cls);
	dmd_emit_classes_free(s->classes);
	dmd_part_cells_free(s->cells);
	dmd_part_facts_free(s->facts);
	dmd_part_plan_free(s->plan);
	dmd_model_free(s->m);
	dmd_job_free(s->job);
	if (s->ctx)
		isl_ctx_free(s->ctx);
}

/* The core's result as struct dmd_build_input: the job's fields, the
 * shared common.h, and for each class its code, its set, why, count and
 * ranges.  Without classes, n_class is 0. */
static int session_build_input(struct session *s, int classes)
{
	struct dmd_build_input *in = &s->in;
	struct dmd_classes *cl = s->classes;
	int i;

	in->job_name = s->job->name;
	in->job_path = s->job->path;
	in->job_dir = s->job->dir;
	in->n_axes = s->job->n_axes;
	in->axes = s->job->axes;
	in->shape = s->job->mesh_shape;
	in->nranks = s->job->nranks;
	in->common = NULL;
	in->n_class = 0;
	if (!classes)
		return 0;
	s->cls = calloc(cl->n + 1, sizeof(*s->cls));
	if (!s->cls)
		return -1;
	in->common = cl->common;
	in->n_class = cl->n;
	in->cls = s->cls;
	for (i = 0; i < cl->n; ++i) {
		s->cls[i].code = cl->cls[i].code;
		s->cls[i].set = cl->cls[i].set_text;
		s->cls[i].why = cl->cls[i].why;
		s->cls[i].count = cl->cls[i].count;
		s->cls[i].n_ranges = cl->cls[i].n_ranges;
		s->cls[i].ranges = cl->cls[i].ranges;
	}
	return 0;
}

/* With DMD_TIME set, print the time since the previous call, for
 * "stage" (NULL: start the clock). */
static void stage_time(const char *stage)
{
	static struct timespec t0;
	struct timespec t;

	if (!getenv("DMD_TIME"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (stage)
		fprintf(stderr, "distmpmd: %s: %.3f s\n", stage,
			(t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec));
	t0 = t;
}

/* Read and analyse "path"; with classes != 0 find the rank classes and
 * emit their code too.  Returns 0, or the exit status (2 for a bad job,
 * 1 otherwise). */
static int analyse(struct session *s, const char *path, int classes)
{
	memset(s, 0, sizeof(*s));
	s->job = dmd_job_read(path);
	if (!s->job)
		return 2;
	s->ctx = isl_ctx_alloc();
	isl_options_set_on_error(s->ctx, getenv("DMD_DEBUG") ?
		ISL_ON_ERROR_WARN : ISL_ON_ERROR_CONTINUE);
	isl_options_set_ast_iterator_type(s->ctx, "int64_t");
	stage_time(NULL);
	s->m = dmd_model_build(s->ctx, s->job);
	stage_time("model");
	if (s->m)
		s->plan = dmd_part_plan(s->m);
	stage_time("plan");
	if (!s->m || !s->plan) {
		if (dmd_job_n_errors() > 0)
			return 2;
		fprintf(stderr, "%s: error: internal error: the analysis of "
			"this job failed (please report it)\n", path);
		return 1;
	}
	if (classes) {
		s->facts = dmd_part_facts(s->plan);
		stage_time("facts");
		if (s->facts)
			s->cells = dmd_part_cells(s->m, s->facts);
		stage_time("cells");
		if (s->cells)
			s->classes = dmd_emit_classes(s->plan, s->facts,
				s->cells);
		stage_time("classes");
		if (!s->classes) {
			fprintf(stderr, "%s: error: internal error: cannot "
				"find the rank classes (please report it)\n",
				path);
			return 1;
		}
	}
	if (session_build_input(s, classes) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return 1;
	}
	return 0;
}

/* Print what "check" says of the analysis beyond the job: per step the
 * loops, then every transfer of the plan. */
static void session_summary(struct session *s)
{
	struct dmd_model *m = s->m;
	int i, k;

	for (k = 0; k < m->n_poly; ++k) {
		struct dmd_poly *p = m->poly[k];

		printf("step %d: %s\n  loops:", k + 1, p->label);
		for (i = 0; i < p->n_loops; ++i)
			printf(" %s%s", p->loops[i].name,
				p->loops[i].kind == DMD_LOOP_SPACE ?
				"(space)" : p->loops[i].tensorized ?
				"(gemm)" : "");
		printf("\n");
	}
	for (i = 0; i < s->plan->n_xfer; ++i) {
		struct dmd_xfer *x = s->plan->xfer[i];
		struct dmd_poly *p = m->poly[x->step];

		printf("transfer %s of %s in step %d at %s: %s", x->name,
			s->job->tensors[x->tensor].name, x->step + 1,
			x->use == DMD_USE_RETURN ? "the end" :
			x->level < 0 ? "the start" :
			p->loops[p->time_loop[x->level]].name,
			dmd_part_kind_name(x->kind));
		if (x->kind == DMD_XFER_BCAST || x->kind == DMD_XFER_SHIFT)
			printf(" along %s", s->job->axes[x->axis]);
		if (x->ghost)
			printf(" (into ghost cells)");
		if (x->use == DMD_USE_SNAPSHOT)
			printf(" (the values before the step)");
		if (x->use == DMD_USE_REDUCE)
			printf(" (summed over the partial axes)");
		printf("\n");
	}
}

/* ------------------------------------------------------------------ */
/* Arguments */

/* The arguments of one command being parsed. */
struct args {
	const char *cmd;	/* "build", for messages */
	const char *usage;
	int argc;
	char **argv;
	int i;			/* the argument being looked at */
	const char *value;	/* the value of the option just matched */
};

/* Return "s" for a message, in newly allocated memory: bytes outside
 * printable ASCII and '\'' as octal escapes, at most 200 of them. */
static char *show(const char *s)
{
	size_t i, n = strlen(s);
	char *t, *p;

	if (n > 200)
		n = 200;
	t = malloc(4 * n + 4);
	if (!t)
		return NULL;
	p = t;
	for (i = 0; i < n; ++i) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			p += sprintf(p, "\\%03o", c);
		else
			*p++ = c;
	}
	strcpy(p, s[i] ? "..." : "");
	return t;
}

/* Report "distmpmd: CMD: " with the formatted message "fmt", in which
 * "%s" is "arg" as show() gives it, then the usage; return 2. */
static int arg_error(struct args *a, const char *fmt, const char *arg)
{
	char *shown = show(arg ? arg : "");

	fprintf(stderr, "distmpmd: %s: ", a->cmd);
	fprintf(stderr, fmt, shown ? shown : "?");
	fprintf(stderr, "\n\n%s", a->usage);
	free(shown);
	return 2;
}

/* Does the current argument name the option "shrt" (may be NULL) or
 * "lng" (may be NULL), with a value?  The value is the next argument
 * (or after '=' for the long option, or attached to the short one:
 * "-j4").  Returns 1 with a->value set, 0 if it is another argument,
 * or 2 after a message if the value is missing. */
static int arg_value(struct args *a, const char *shrt, const char *lng)
{
	const char *s = a->argv[a->i];
	size_t n;

	if (lng) {
		n = strlen(lng);
		if (!strncmp(s, lng, n) && s[n] == '=') {
			a->value = s + n + 1;
			return 1;
		}
	}
	if (shrt && !strncmp(s, shrt, 2) && s[2]) {
		a->value = s + 2;
		return 1;
	}
	if (!(shrt && !strcmp(s, shrt)) && !(lng && !strcmp(s, lng)))
		return 0;
	if (a->i + 1 >= a->argc) {
		arg_error(a, "option '%s' needs an argument", s);
		return 2;
	}
	a->value = a->argv[++a->i];
	return 1;
}

/* Is the current argument the flag "name"? */
static int arg_flag(struct args *a, const char *name)
{
	return !strcmp(a->argv[a->i], name);
}

/* Is the current argument a request for help? */
static int arg_help(struct args *a)
{
	return arg_flag(a, "--help") || arg_flag(a, "-h");
}

/* Handle the current argument as not an option: the positional
 * argument *pos if it is still unset.  Returns 0, or 2 after a message
 * (an unknown option, or one argument too many). */
static int arg_positional(struct args *a, const char **pos)
{
	const char *s = a->argv[a->i];

	if (s[0] == '-' && s[1])
		return arg_error(a, "unknown option '%s'", s);
	if (*pos)
		return arg_error(a, "unexpected argument '%s'", s);
	*pos = s;
	return 0;
}

/* Parse the index "s" (a rank or class number): decimal digits only.
 * Returns 0 with the value in *v, or -1 if "s" is not a number; a
 * number larger than LONG_MAX gives LONG_MAX (larger than any mesh). */
static int parse_index(const char *s, long *v)
{
	unsigned long long u = 0;
	const char *p;

	if (!*s)
		return -1;
	for (p = s; *p; ++p) {
		if (*p < '0' || *p > '9')
			return -1;
		if (u <= LONG_MAX)
			u = u * 10 + (*p - '0');
	}
	*v = u > LONG_MAX ? LONG_MAX : (long) u;
	return 0;
}

/* The build options given on the command line (-j, --cflag). */
struct build_args {
	struct dmd_build_opts opts;
	char **cflags;			/* owned array, strings not owned */
	int given;			/* any of -o, -j, --cflag given */
};

/* Handle the current argument if it is a build option (-j N, --cflag
 * FLAG).  Returns 1 if it was, 0 if not, 2 after a message. */
static int arg_build(struct args *a, struct build_args *b)
{
	int r;
	long j;

	r = arg_value(a, "-j", "--jobs");
	if (r == 1) {
		if (parse_index(a->value, &j) < 0 || j < 1)
			return arg_error(a, "-j '%s' is not a positive "
				"number", a->value);
		b->opts.jobs = j > INT_MAX ? INT_MAX : (int) j;
		b->given = 1;
		return 1;
	}
	if (r)
		return r;
	r = arg_value(a, NULL, "--cflag");
	if (r == 1) {
		char **f = realloc(b->cflags,
			(b->opts.n_cflags + 1) * sizeof(*f));
		if (!f) {
			fprintf(stderr, "distmpmd: out of memory\n");
			return 2;
		}
		b->cflags = f;
		f[b->opts.n_cflags++] = (char *) a->value;
		b->opts.cflags = f;
		b->given = 1;
		return 1;
	}
	return r;
}

/* ------------------------------------------------------------------ */
/* Commands */

/* The default build directory: build/<name> in the current directory,
 * with build/ created if missing.  NULL with a message on error. */
static char *default_dir(struct session *s)
{
	char *dir;

	if (mkdir("build", 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "distmpmd: cannot create the directory "
			"build: %s\n", strerror(errno));
		return NULL;
	}
	if (asprintf(&dir, "build/%s", s->in.job_name) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return NULL;
	}
	return dir;
}

/* Analyse "job" and build it into "out" (NULL: the default directory,
 * whose name is returned in *dir, newly allocated). */
static int build_job(const char *job, const char *out,
	struct build_args *b, char **dir, int verbose)
{
	struct session s;
	int r;

	*dir = NULL;
	r = analyse(&s, job, 1);
	if (!r) {
		*dir = out ? strdup(out) : default_dir(&s);
		if (!*dir)
			r = 1;
	}
	if (!r) {
		b->opts.progress = isatty(2);
		r = dmd_build_dir(&s.in, *dir, &b->opts);
	}
	if (!r && verbose)
		printf("distmpmd: built %s: %d class%s for %ld ranks in %s\n",
			s.in.job_name, s.in.n_class,
			s.in.n_class == 1 ? "" : "es", s.in.nranks, *dir);
	session_free(&s);
	return r;
}

/* distmpmd build JOB [-o DIR] [-j N] [--cflag FLAG]... */
static int cmd_build(int argc, char **argv)
{
	struct args a = { "build", usage_build, argc, argv, 0, NULL };
	struct build_args b;
	const char *job = NULL, *out = NULL;
	char *dir = NULL;
	int r = 0;

	memset(&b, 0, sizeof(b));
	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_help(&a)) {
			fputs(usage_build, stdout);
			goto done;
		}
		r = arg_value(&a, "-o", "--output");
		if (r == 1) {
			out = a.value;
			r = 0;
			continue;
		}
		if (r)
			break;
		r = arg_build(&a, &b);
		if (r == 1) {
			r = 0;
			continue;
		}
		if (!r)
			r = arg_positional(&a, &job);
	}
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	if (!r)
		r = build_job(job, out, &b, &dir, 1);
done:
	free(dir);
	free(b.cflags);
	return r;
}

/* Is "path" a directory? */
static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* distmpmd run JOB_OR_DIR [--stats] [--dry-run] [-o DIR] [-j N]
 * [--cflag FLAG]... [-- MPIEXEC_ARGS] */
static int cmd_run(int argc, char **argv)
{
	struct args a = { "run", usage_run, argc, argv, 0, NULL };
	struct build_args b;
	const char *target = NULL, *out = NULL;
	int stats = 0, dry_run = 0, n_extra = 0, r = 0;
	char **extra = NULL, *dir = NULL;

	memset(&b, 0, sizeof(b));
	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_flag(&a, "--")) {
			extra = argv + a.i + 1;
			n_extra = argc - a.i - 1;
			break;
		}
		if (arg_help(&a)) {
			fputs(usage_run, stdout);
			goto done;
		}
		if (arg_flag(&a, "--stats")) {
			stats = 1;
			continue;
		}
		if (arg_flag(&a, "--dry-run")) {
			dry_run = 1;
			continue;
		}
		r = arg_value(&a, "-o", "--output");
		if (r == 1) {
			out = a.value;
			b.given = 1;
			r = 0;
			continue;
		}
		if (r)
			break;
		r = arg_build(&a, &b);
		if (r == 1) {
			r = 0;
			continue;
		}
		if (!r)
			r = arg_positional(&a, &target);
	}
	if (!r && !target)
		r = arg_error(&a, "no job file or build directory given", NULL);
	if (r)
		goto done;
	if (is_dir(target)) {
		if (b.given) {
			r = arg_error(&a, "-o, -j and --cflag apply to a job "
				"file, but '%s' is a build directory", target);
			goto done;
		}
		dir = strdup(target);
		if (!dir) {
			fprintf(stderr, "distmpmd: out of memory\n");
			r = 1;
			goto done;
		}
	} else {
		r = build_job(target, out, &b, &dir, 0);
		if (r)
			goto done;
	}
	fflush(stdout);
	if (dry_run)
		r = dmd_launch_dry_run(dir, stats, n_extra, extra, stdout);
	else
		r = dmd_launch(dir, stats, n_extra, extra);
done:
	free(dir);
	free(b.cflags);
	return r;
}

/* Parse the arguments of a command that takes only a job file. */
static int job_only(struct args *a, const char **job)
{
	int r = 0;

	*job = NULL;
	for (a->i = 0; a->i < a->argc && !r; ++a->i) {
		if (arg_help(a)) {
			fputs(a->usage, stdout);
			return -1;
		}
		r = arg_positional(a, job);
	}
	if (!r && !*job)
		r = arg_error(a, "no job file given", NULL);
	return r;
}

/* The class label of class "k" in the mesh picture. */
static char label(int k)
{
	static const char *l = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz";
	return k < 62 ? l[k] : '*';
}

/* Draw the mesh of "in": one character per rank, the class label; a
 * 1-D mesh is one row, a 2-D mesh has x down and y across, higher
 * dimensions are printed as slices of the last two axes. */
static void draw_mesh(const struct dmd_build_input *in)
{
	long n = in->nranks, r;
	int *cls = malloc(n * sizeof(int));
	int i, na = in->n_axes;
	long rows, cols;

	if (!cls) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return;
	}
	for (i = 0; i < in->n_class; ++i) {
		int j;
		for (j = 0; j < in->cls[i].n_ranges; ++j)
			for (r = in->cls[i].ranges[j][0];
			     r <= in->cls[i].ranges[j][1]; ++r)
				cls[r] = i;
	}
	cols = in->shape[na - 1];
	rows = na >= 2 ? in->shape[na - 2] : 1;
	if (na >= 2)
		printf("mesh by class (%s down, %s across):\n",
			in->axes[na - 2], in->axes[na - 1]);
	else
		printf("mesh by class (%s across):\n", in->axes[0]);
	for (r = 0; r < n; ++r) {
		if (r % (rows * cols) == 0 && r && na > 2)
			printf("\n");
		if (r % (rows * cols) == 0 && na > 2) {
			long rest = r / (rows * cols);
			long c[DMD_MAX_AXES];
			for (i = na - 3; i >= 0; --i) {
				c[i] = rest % in->shape[i];
				rest /= in->shape[i];
			}
			printf("  slice");
			for (i = 0; i < na - 2; ++i)
				printf("%s %s = %ld", i ? "," : "",
					in->axes[i], c[i]);
			printf(":\n");
		}
		if (r % cols == 0)
			printf("  ");
		putchar(label(cls[r]));
		if (r % cols == cols - 1)
			putchar('\n');
		else if (cols <= 32)
			putchar(' ');
	}
	free(cls);
}

/* distmpmd classes JOB */
static int cmd_classes(int argc, char **argv)
{
	struct args a = { "classes", usage_classes, argc, argv, 0, NULL };
	struct session s;
	const char *job;
	int r, i, j;

	r = job_only(&a, &job);
	if (r)
		return r < 0 ? 0 : r;
	r = analyse(&s, job, 1);
	if (!r) {
		const struct dmd_build_input *in = &s.in;

		printf("job %s: %ld ranks, %d class%s\n", in->job_name,
			in->nranks, in->n_class, in->n_class == 1 ? "" : "es");
		for (i = 0; i < in->n_class; ++i) {
			const struct dmd_build_class *c = &in->cls[i];

			printf("\nclass %d (%c): %ld rank%s:", i, label(i),
				c->count, c->count == 1 ? "" : "s");
			for (j = 0; j < c->n_ranges; ++j)
				if (c->ranges[j][0] == c->ranges[j][1])
					printf("%s %ld", j ? "," : "",
						c->ranges[j][0]);
				else
					printf("%s %ld-%ld", j ? "," : "",
						c->ranges[j][0],
						c->ranges[j][1]);
			printf("\n  set: %s\n  why: %s\n", c->set, c->why);
		}
		printf("\n");
		draw_mesh(in);
	}
	session_free(&s);
	return r;
}

/* distmpmd emit JOB --rank R | --class K */
static int cmd_emit(int argc, char **argv)
{
	struct args a = { "emit", usage_emit, argc, argv, 0, NULL };
	struct session s;
	const char *job = NULL, *rank_s = NULL, *cls_s = NULL;
	long rank = -1, cls = -1;
	int i, j, r = 0, common = 0;

	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_help(&a)) {
			fputs(usage_emit, stdout);
			return 0;
		}
		if (arg_flag(&a, "--common")) {
			common = 1;
			continue;
		}
		r = arg_value(&a, NULL, "--rank");
		if (r == 1) {
			rank_s = a.value;
			if (parse_index(rank_s, &rank) < 0)
				return arg_error(&a, "--rank '%s' is not a "
					"rank number", rank_s);
			r = 0;
			continue;
		}
		if (r)
			return r;
		r = arg_value(&a, NULL, "--class");
		if (r == 1) {
			cls_s = a.value;
			if (parse_index(cls_s, &cls) < 0)
				return arg_error(&a, "--class '%s' is not a "
					"class number", cls_s);
			r = 0;
			continue;
		}
		if (!r)
			r = arg_positional(&a, &job);
	}
	if (r)
		return r;
	if (!job)
		return arg_error(&a, "no job file given", NULL);
	if (!!rank_s + !!cls_s + common > 1)
		return arg_error(&a, "give one of --rank, --class and --common",
			NULL);
	if (!rank_s && !cls_s && !common)
		return arg_error(&a, "--rank R, --class K or --common is "
			"needed", NULL);
	r = analyse(&s, job, 1);
	if (!r && common) {
		fputs(s.in.common, stdout);
	} else if (!r && cls_s) {
		if (cls >= s.in.n_class) {
			fprintf(stderr, "distmpmd: there is no class %s (%d "
				"class%s)\n", cls_s, s.in.n_class,
				s.in.n_class == 1 ? "" : "es");
			r = 2;
		} else
			fputs(s.in.cls[cls].code, stdout);
	} else if (!r && rank >= s.in.nranks) {
		fprintf(stderr, "distmpmd: rank %s is not in the mesh (%ld "
			"rank%s)\n", rank_s, s.in.nranks,
			s.in.nranks == 1 ? "" : "s");
		r = 2;
	} else if (!r) {
		for (i = 0; i < s.in.n_class; ++i)
			for (j = 0; j < s.in.cls[i].n_ranges; ++j)
				if (s.in.cls[i].ranges[j][0] <= rank &&
				    rank <= s.in.cls[i].ranges[j][1]) {
					printf("/* ---- common.h ---- */\n");
					fputs(s.in.common, stdout);
					printf("/* ---- class%d.c ---- */\n",
						i);
					fputs(s.in.cls[i].code, stdout);
				}
	}
	session_free(&s);
	return r;
}

/* distmpmd check JOB: a summary of the loops and transfers. */
static int cmd_check(int argc, char **argv)
{
	struct args a = { "check", usage_check, argc, argv, 0, NULL };
	struct session s;
	const char *job;
	int r;

	r = job_only(&a, &job);
	if (r)
		return r < 0 ? 0 : r;
	r = analyse(&s, job, 0);
	if (!r) {
		printf("%s: ok: job %s, %ld ranks\n", job, s.in.job_name,
			s.in.nranks);
		session_summary(&s);
	}
	session_free(&s);
	return r;
}

/* Dispatch on the command. */
int main(int argc, char **argv)
{
	const char *cmd;
	char *shown;

	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "build"))
		return cmd_build(argc - 2, argv + 2);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "classes"))
		return cmd_classes(argc - 2, argv + 2);
	if (!strcmp(cmd, "emit"))
		return cmd_emit(argc - 2, argv + 2);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 2, argv + 2);
	shown = show(cmd);
	fprintf(stderr, "distmpmd: unknown command '%s'\n\n",
		shown ? shown : "?");
	free(shown);
	fputs(usage_main, stderr);
	return 2;
}
