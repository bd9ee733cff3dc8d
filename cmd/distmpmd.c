/* distmpmd: the command line (spec section 2).
 *
 *   distmpmd build JOB [-o DIR] [-j N] [--cflag FLAG]...
 *   distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-o DIR]
 *	[-j N] [--cflag FLAG]... [-- MPIEXEC_ARGS]
 *   distmpmd classes JOB [--svg FILE]
 *   distmpmd emit JOB --rank R | --class K | --common
 *   distmpmd check JOB
 *   distmpmd plan JOB [--json] [--top N] [-o FILE]
 *   distmpmd diff JOB RANK_A RANK_B
 *   distmpmd sweep JOB --set KEY=LIST... [-o CSV] [--svg FILE] [--ref[=PATH]]
 *	[--no-run] [--work DIR]
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

#include "cmd/dmd_session.h"
#include "cmd/dmd_build.h"
#include "cmd/dmd_diff.h"
#include "cmd/dmd_plan.h"
#include "cmd/dmd_svg.h"
#include "cmd/dmd_sweep.h"
#include "manifests/dmd_launch.h"
#include "manifests/dmd_trace.h"

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
"  run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-- MPIEXEC_ARGS]\n"
"                                build if given a job, then run with\n"
"                                mpiexec.mpich -configfile DIR/appfile\n"
"  classes JOB [--svg FILE]      the rank classes, why, and a map of the mesh\n"
"  emit JOB --rank R             print the C source that rank R runs\n"
"  check JOB                     parse and analyse; report problems\n"
"  plan JOB [--json] [--top N] [-o FILE]\n"
"                                the schedules and layouts with their\n"
"                                modeled cost; -o writes the frozen job\n"
"  diff JOB RANK_A RANK_B        unified diff of the C the two ranks run\n"
"  sweep JOB --set KEY=LIST...   build and run the job over a range of\n"
"                                values; one CSV row per point\n"
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
"usage: distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-o DIR]\n"
"                    [-j N] [--cflag FLAG]... [-- MPIEXEC_ARGS]\n"
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
"  --trace FILE write a timeline of the run to FILE (Chrome trace-event\n"
"               JSON: one track per rank with compute, transfers and\n"
"               waits; open it in Perfetto) and draw it as SVG beside it\n"
"               (FILE with the extension .svg)\n"
"  --dry-run    print the commands that run DIR (mpiexec.mpich with the\n"
"               ranks on its command line, with the appfile, and srun\n"
"               --multi-prog) instead of running it\n"
"  -o, -j, --cflag    as for build\n";

static const char *usage_classes =
"usage: distmpmd classes JOB [--svg FILE]\n"
"\n"
"List the rank classes of JOB: their ranks (as ranges and as an isl set),\n"
"what distinguishes each, and a picture of the mesh by class.\n"
"\n"
"  --svg FILE   also draw the mesh coloured by class into FILE (SVG), with\n"
"               a legend; each class's 'why' is its tooltip\n";

static const char *usage_emit =
"usage: distmpmd emit JOB --rank R\n"
"       distmpmd emit JOB --class K\n"
"       distmpmd emit JOB --common\n"
"\n"
"Print the C that rank R runs (common.h, then its class's file), the\n"
"file of class K, or common.h (what every class program includes).\n";

static const char *usage_diff =
"usage: distmpmd diff JOB RANK_A RANK_B\n"
"\n"
"Print the unified diff (3 lines of context) of the C that rank RANK_A\n"
"runs and the C that rank RANK_B runs (their class files), or\n"
"'same class K' when both run class K.  Exit status 0 either way.\n";

static const char *usage_sweep =
"usage: distmpmd sweep JOB --set KEY=LIST [--set KEY=LIST]... [-o CSV]\n"
"                      [--svg FILE] [--ref[=PATH]] [--no-run] [--work DIR]\n"
"\n"
"Build and run JOB (with --stats) at every point of the product of the\n"
"lists, one after another, and write one CSV row per point: the values,\n"
"ranks, classes, bytes_moved_total, messages, time_s, gflops, max_rel_err.\n"
"\n"
"  --set KEY=LIST  KEY: a field of the job, as mesh.shape, mesh.shape[1],\n"
"                  tensors.A.shape, tensors.A.shape[0]; KEY,KEY,... sets\n"
"                  several fields to each value.  LIST: values separated by\n"
"                  ',' or ';': integers, ranges START:STOP[:STEP] (STOP\n"
"                  included), or lists for a list field:\n"
"                  mesh.shape=[2,2];[2,3]\n"
"  -o, --output CSV  the CSV file (default: standard output)\n"
"  --svg FILE      plot classes and bytes moved against the first KEY\n"
"  --ref[=PATH]    write the inputs and check the outputs of every point\n"
"                  with the reference (dmd_ref.py; found beside distmpmd\n"
"                  unless PATH is given): max_rel_err\n"
"  --no-run        only analyse: ranks and classes per point\n"
"  --work DIR      where the points' jobs and builds go, DIR/point-N\n"
"                  (default: build/<name>-sweep)\n";

static const char *usage_plan =
"usage: distmpmd plan JOB [--json] [--top N] [-o FILE]\n"
"\n"
"The schedule and layouts of every step with their modeled cost (spec\n"
"1.6): bytes moved (summed over the receivers), the busiest receiver,\n"
"messages, flops and memory of the busiest rank, modeled time; per step\n"
"(all its runs) and for the whole program.  The byte and message counts\n"
"are those 'run --stats' reports.\n"
"\n"
"  --json      one JSON object (spec 2) instead of text\n"
"  --top N     at most N candidates per step (default 5)\n"
"  -o FILE     write the frozen job (every choice explicit) to FILE\n";

static const char *usage_check =
"usage: distmpmd check JOB\n"
"\n"
"Parse and analyse JOB without emitting code; print a summary of the\n"
"loops and transfers, or the problems found (exit 2).\n";

/* ------------------------------------------------------------------ */
/* The compiler core is cmd/dmd_session.c; the rest of cmd/ uses only its
 * struct dmd_build_input. */

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
static char *default_dir(struct dmd_session *s)
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
	struct dmd_session s;
	int r;

	*dir = NULL;
	r = dmd_session_analyse(&s, job, 1);
	if (!r) {
		*dir = out ? strdup(out) : default_dir(&s);
		if (!*dir)
			r = 1;
	}
	if (!r)
		r = dmd_plan_check_memory(&s);
	if (!r) {
		b->opts.progress = isatty(2);
		r = dmd_build_dir(&s.in, *dir, &b->opts);
	}
	if (!r && verbose)
		printf("distmpmd: built %s: %d class%s for %ld ranks in %s\n",
			s.in.job_name, s.in.n_class,
			s.in.n_class == 1 ? "" : "es", s.in.nranks, *dir);
	dmd_session_free(&s);
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

/* The files of "run --trace FILE": the JSON as an absolute path (the
 * ranks run in the build directory) and the SVG beside it.  With the
 * file's extension replaced by .svg, or .svg appended when it has none. */
struct trace_files {
	char *json;		/* owned */
	char *svg;		/* owned */
};

/* Fill "t" for "--trace FILE" and check that both files can be
 * written, before anything is built or run.  Returns 0, or the exit
 * status after a message (2: FILE names the SVG itself; 1: a file that
 * cannot be written, with the system's reason). */
static int trace_files(struct args *a, const char *file,
	struct trace_files *t)
{
	const char *base = strrchr(file, '/'), *dot;
	char *cwd = NULL;
	size_t stem;

	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	stem = dot && dot > base ? (size_t) (dot - file) : strlen(file);
	if (!*base)
		return arg_error(a, "--trace '%s' names a directory", file);
	if (asprintf(&t->svg, "%.*s.svg", (int) stem, file) < 0) {
		t->svg = NULL;
		goto nomem;
	}
	if (!strcmp(t->svg, file))
		return arg_error(a, "--trace '%s': the SVG timeline is "
			"written beside the trace, as FILE.svg; give the "
			"trace another extension (.json)", file);
	if (file[0] != '/' && !(cwd = getcwd(NULL, 0))) {
		fprintf(stderr, "distmpmd: cannot find the current directory: "
			"%s\n", strerror(errno));
		return 1;
	}
	if (!cwd)
		t->json = strdup(file);
	else if (asprintf(&t->json, "%s/%s", cwd, file) < 0)
		t->json = NULL;
	free(cwd);
	if (!t->json)
		goto nomem;
	if (dmd_svg_probe(file) < 0 || dmd_svg_probe(t->svg) < 0)
		return 1;
	return 0;
nomem:
	fprintf(stderr, "distmpmd: out of memory\n");
	return 1;
}

/* distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-o DIR]
 * [-j N] [--cflag FLAG]... [-- MPIEXEC_ARGS]
 * With --trace, "-genv DMD_TRACE <absolute FILE>" goes before the
 * MPIEXEC_ARGS, and after a successful run the trace is drawn. */
static int cmd_run(int argc, char **argv)
{
	struct args a = { "run", usage_run, argc, argv, 0, NULL };
	struct build_args b;
	struct trace_files t = { NULL, NULL };
	const char *target = NULL, *out = NULL, *trace = NULL;
	int stats = 0, dry_run = 0, n_extra = 0, r = 0, i;
	char **extra = NULL, *dir = NULL, **args = NULL;

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
		r = arg_value(&a, NULL, "--trace");
		if (r == 1) {
			trace = a.value;
			r = 0;
			continue;
		}
		if (r)
			break;
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
	if (!r && trace && dry_run)
		r = arg_error(&a, "--trace needs a run: it cannot go with "
			"--dry-run", NULL);
	if (!r && trace)
		r = trace_files(&a, trace, &t);
	if (r)
		goto done;
	if (trace) {
		/* -genv DMD_TRACE FILE, then the user's MPIEXEC_ARGS */
		args = malloc((n_extra + 4) * sizeof(*args));
		if (!args) {
			fprintf(stderr, "distmpmd: out of memory\n");
			r = 1;
			goto done;
		}
		args[0] = "-genv";
		args[1] = "DMD_TRACE";
		args[2] = t.json;
		for (i = 0; i < n_extra; ++i)
			args[3 + i] = extra[i];
		args[3 + n_extra] = NULL;
		extra = args;
		n_extra += 3;
	}
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
	if (!r && trace && dmd_trace_svg(t.json, t.svg) < 0)
		r = 1;
done:
	free(args);
	free(t.json);
	free(t.svg);
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

/* distmpmd classes JOB [--svg FILE] */
static int cmd_classes(int argc, char **argv)
{
	struct args a = { "classes", usage_classes, argc, argv, 0, NULL };
	struct dmd_session s;
	const char *job = NULL, *svg = NULL;
	int r = 0, i, j;

	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_help(&a)) {
			fputs(usage_classes, stdout);
			return 0;
		}
		r = arg_value(&a, NULL, "--svg");
		if (r == 1) {
			svg = a.value;
			r = 0;
			continue;
		}
		if (!r)
			r = arg_positional(&a, &job);
	}
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	if (r)
		return r;
	if (svg && dmd_svg_probe(svg) < 0)
		return 1;
	r = dmd_session_analyse(&s, job, 1);
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
		if (svg)
			r = dmd_svg_classes(in, svg);
	}
	dmd_session_free(&s);
	return r;
}

/* distmpmd emit JOB --rank R | --class K */
static int cmd_emit(int argc, char **argv)
{
	struct args a = { "emit", usage_emit, argc, argv, 0, NULL };
	struct dmd_session s;
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
	r = dmd_session_analyse(&s, job, 1);
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
	dmd_session_free(&s);
	return r;
}

/* The class of rank "rank" in "in", or -1. */
static int class_of(const struct dmd_build_input *in, long rank)
{
	int i, j;

	for (i = 0; i < in->n_class; ++i)
		for (j = 0; j < in->cls[i].n_ranges; ++j)
			if (in->cls[i].ranges[j][0] <= rank &&
			    rank <= in->cls[i].ranges[j][1])
				return i;
	return -1;
}

/* distmpmd diff JOB RANK_A RANK_B: the unified diff of the class files
 * of the two ranks, or "same class K".  A rank that is not a number is a
 * bad argument; one outside the mesh is reported as by emit --rank. */
static int cmd_diff(int argc, char **argv)
{
	struct args a = { "diff", usage_diff, argc, argv, 0, NULL };
	struct dmd_session s;
	const char *pos[3] = { NULL, NULL, NULL };
	char *label[2] = { NULL, NULL };
	long rank[2];
	int cls[2], r = 0, n = 0, k;

	for (a.i = 0; a.i < argc && !r; ++a.i) {
		const char *arg = argv[a.i];

		if (arg_help(&a)) {
			fputs(usage_diff, stdout);
			return 0;
		}
		if (n == 3 || (arg[0] == '-' && !(n > 0 && arg[1] >= '0' &&
				arg[1] <= '9')))
			r = arg_positional(&a, &pos[2]);
		else
			pos[n++] = arg;
	}
	if (!r && n < 3)
		r = arg_error(&a, n == 0 ? "no job file given" :
			"two ranks are needed: JOB RANK_A RANK_B", NULL);
	for (k = 0; !r && k < 2; ++k)
		if (parse_index(pos[1 + k], &rank[k]) < 0)
			r = arg_error(&a, "'%s' is not a rank number",
				pos[1 + k]);
	if (r)
		return r;
	r = dmd_session_analyse(&s, pos[0], 1);
	for (k = 0; !r && k < 2; ++k) {
		if (rank[k] >= s.in.nranks) {
			fprintf(stderr, "distmpmd: rank %s is not in the mesh "
				"(%ld rank%s)\n", pos[1 + k], s.in.nranks,
				s.in.nranks == 1 ? "" : "s");
			r = 2;
		} else
			cls[k] = class_of(&s.in, rank[k]);
	}
	if (!r && cls[0] == cls[1]) {
		printf("same class %d\n", cls[0]);
	} else if (!r) {
		if (asprintf(&label[0], "rank %ld (class%d.c)", rank[0],
				cls[0]) < 0 ||
		    asprintf(&label[1], "rank %ld (class%d.c)", rank[1],
				cls[1]) < 0) {
			label[0] = label[1] = NULL;
			r = 1;
		} else if (dmd_diff_unified(stdout, s.in.cls[cls[0]].code,
				s.in.cls[cls[1]].code, label[0], label[1],
				3) < 0) {
			r = 1;
		}
		if (!label[0] || !label[1])
			fprintf(stderr, "distmpmd: out of memory\n");
	}
	free(label[0]);
	free(label[1]);
	dmd_session_free(&s);
	return r;
}

/* The analysis that sweep needs of a job (see dmd_sweep_analyse). */
static int sweep_analyse(const char *job, int classes, long *ranks,
	int *n_class)
{
	struct dmd_session s;
	int r;

	r = dmd_session_analyse(&s, job, classes);
	if (!r) {
		*ranks = s.in.nranks;
		*n_class = s.in.n_class;
	}
	dmd_session_free(&s);
	return r;
}

/* distmpmd sweep JOB --set KEY=LIST... [-o CSV] [--svg FILE]
 * [--ref[=PATH]] [--no-run] [--work DIR] */
static int cmd_sweep(int argc, char **argv)
{
	struct args a = { "sweep", usage_sweep, argc, argv, 0, NULL };
	struct dmd_sweep_opts o;
	char **set = NULL;
	int r = 0;

	memset(&o, 0, sizeof(o));
	o.analyse = &sweep_analyse;
	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_help(&a)) {
			fputs(usage_sweep, stdout);
			goto done;
		}
		if (arg_flag(&a, "--no-run")) {
			o.no_run = 1;
			continue;
		}
		if (arg_flag(&a, "--ref") || !strncmp(argv[a.i], "--ref=", 6)) {
			o.ref = 1;
			o.ref_path = argv[a.i][5] ? argv[a.i] + 6 : NULL;
			continue;
		}
		r = arg_value(&a, NULL, "--set");
		if (r == 1) {
			char **more = realloc(set, (o.n_set + 1) *
				sizeof(*more));

			if (!more) {
				fprintf(stderr, "distmpmd: out of memory\n");
				r = 1;
				break;
			}
			set = more;
			set[o.n_set++] = (char *) a.value;
			r = 0;
			continue;
		}
		if (!r)
			r = arg_value(&a, "-o", "--output");
		if (r == 1) {
			o.csv = a.value;
			r = 0;
			continue;
		}
		if (!r)
			r = arg_value(&a, NULL, "--svg");
		if (r == 1) {
			o.svg = a.value;
			r = 0;
			continue;
		}
		if (!r)
			r = arg_value(&a, NULL, "--work");
		if (r == 1) {
			o.work = a.value;
			r = 0;
			continue;
		}
		if (!r)
			r = arg_positional(&a, &o.job);
	}
	if (!r && !o.job)
		r = arg_error(&a, "no job file given", NULL);
	if (!r && o.n_set == 0)
		r = arg_error(&a, "nothing to sweep: give --set KEY=LIST",
			NULL);
	if (!r && o.ref_path && !*o.ref_path)
		r = arg_error(&a, "--ref= needs a path", NULL);
	if (!r && o.no_run && o.ref)
		r = arg_error(&a, "--ref checks the outputs of the runs: it "
			"cannot go with --no-run", NULL);
	if (!r && o.svg && dmd_svg_probe(o.svg) < 0)
		r = 1;
	if (r)
		goto done;
	o.set = set;
	r = dmd_sweep(&o);
done:
	free(set);
	return r;
}

/* distmpmd check JOB: a summary of the loops and transfers. */
static int cmd_check(int argc, char **argv)
{
	struct args a = { "check", usage_check, argc, argv, 0, NULL };
	struct dmd_session s;
	const char *job;
	int r;

	r = job_only(&a, &job);
	if (r)
		return r < 0 ? 0 : r;
	r = dmd_session_analyse(&s, job, 0);
	if (!r) {
		printf("%s: ok: job %s, %ld ranks\n", job, s.in.job_name,
			s.in.nranks);
		dmd_session_summary(&s);
	}
	dmd_session_free(&s);
	return r;
}

/* distmpmd plan JOB [--json] [--top N] [-o FILE] */
static int cmd_plan(int argc, char **argv)
{
	struct args a = { "plan", usage_plan, argc, argv, 0, NULL };
	struct dmd_plan_opts o = { 0, 5, NULL };
	struct dmd_session s;
	const char *job = NULL;
	long top;
	int r = 0;

	for (a.i = 0; a.i < argc && !r; ++a.i) {
		if (arg_help(&a)) {
			fputs(usage_plan, stdout);
			return 0;
		}
		if (arg_flag(&a, "--json")) {
			o.json = 1;
			continue;
		}
		r = arg_value(&a, "-o", "--output");
		if (r == 1) {
			o.out = a.value;
			r = 0;
			continue;
		}
		if (r)
			break;
		r = arg_value(&a, NULL, "--top");
		if (r == 1) {
			if (parse_index(a.value, &top) < 0 || top < 1)
				return arg_error(&a, "--top '%s' is not a "
					"positive number", a.value);
			o.top = top > INT_MAX ? INT_MAX : (int) top;
			r = 0;
			continue;
		}
		if (r)
			break;
		r = arg_positional(&a, &job);
	}
	if (r)
		return r;
	if (!job)
		return arg_error(&a, "no job file given", NULL);
	r = dmd_session_analyse(&s, job, DMD_SESSION_CELLS);
	if (!r)
		r = dmd_plan_report(&s, &o);
	dmd_session_free(&s);
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
	if (!strcmp(cmd, "diff"))
		return cmd_diff(argc - 2, argv + 2);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(argc - 2, argv + 2);
	if (!strcmp(cmd, "plan"))
		return cmd_plan(argc - 2, argv + 2);
	shown = show(cmd);
	fprintf(stderr, "distmpmd: unknown command '%s'\n\n",
		shown ? shown : "?");
	free(shown);
	fputs(usage_main, stderr);
	return 2;
}
