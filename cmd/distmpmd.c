/* distmpmd: the command line (spec section 2).
 *
 *   distmpmd build JOB [--lib] [-o DIR] [-j N] [--cflag FLAG]...
 *   distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-o DIR]
 *	[-j N] [--cflag FLAG]... [-- MPIEXEC_ARGS]
 *   distmpmd classes JOB [--svg FILE]
 *   distmpmd emit JOB --rank R | --class K | --common | --lib | --lib-header
 *   distmpmd check JOB
 *   distmpmd plan JOB [--json] [--top N] [-o FILE]
 *   distmpmd diff JOB RANK_A RANK_B
 *   distmpmd sweep JOB --set KEY=LIST... [-o CSV] [--svg FILE] [--ref[=PATH]]
 *	[--no-run] [--work DIR]
 *   distmpmd ref inputs|check|expect|ideal JOB ...
 *   distmpmd help [COMMAND]
 *   distmpmd --version
 *
 * Options are read with GNU getopt_long (cmd/dmd_args.c), integers with
 * ir/dmd_int.c (exact, range-checked: nothing wraps).
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
#include <isl/version.h>
#include <yaml.h>

#include "cmd/dmd_args.h"
#include "cmd/dmd_session.h"
#include "cmd/dmd_build.h"
#include "cmd/dmd_diff.h"
#include "cmd/dmd_files.h"
#include "cmd/dmd_plan.h"
#include "cmd/dmd_ref.h"
#include "cmd/dmd_svg.h"
#include "cmd/dmd_sweep.h"
#include "manifests/dmd_launch.h"
#include "manifests/dmd_manifest.h"
#include "manifests/dmd_trace.h"
#include "ir/dmd_int.h"

/* What --version says; the Makefile gives the real values. */
#ifndef DMD_VERSION
#define DMD_VERSION "unknown"
#endif
#ifndef DMD_MPI
#define DMD_MPI "unknown MPI"
#endif
#ifndef DMD_MPICC
#define DMD_MPICC "mpicc.mpich"
#endif
#ifndef DMD_MPI_MORE
#define DMD_MPI_MORE ""
#endif
#ifndef DMD_OPENBLAS
#define DMD_OPENBLAS "unknown version"
#endif

static const char *usage_main =
"usage: distmpmd COMMAND [ARGS]\n"
"       distmpmd --version | --help\n"
"\n"
"Compile a distributed tensor job into rank-specialized MPI programs.\n"
"\n"
"commands:\n"
"  build JOB [-o DIR] [-j N] [--cflag FLAG]...\n"
"                                emit, compile, write DIR/manifest.yaml,\n"
"                                DIR/appfile and DIR/multiprog.conf\n"
"                                (default DIR: build/<name>)\n"
"  build JOB --lib [-o DIR]      a library an MPI program calls instead:\n"
"                                DIR/lib<name>.a, DIR/<name>.h\n"
"  run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-- MPIEXEC_ARGS]\n"
"                                build if given a job, check its input\n"
"                                files, then run it with mpiexec.mpich\n"
"  classes JOB [--svg FILE]      the rank classes, why, and a map of the mesh\n"
"  emit JOB --rank R             print the C source that rank R runs\n"
"  check JOB                     parse and analyse; report problems\n"
"  plan JOB [--json] [--top N] [-o FILE]\n"
"                                the schedules and layouts with their\n"
"                                modeled cost; -o writes the frozen job\n"
"  diff JOB RANK_A RANK_B        unified diff of the C the two ranks run\n"
"  sweep JOB --set KEY=LIST...   build and run the job over a range of\n"
"                                values; one CSV row per point\n"
"  ref inputs|check JOB          the sequential reference: write the\n"
"                                job's inputs, check its outputs\n"
"  help [COMMAND]                this text, or what COMMAND does\n"
"\n"
"Options follow the command, as GNU getopt_long reads them: a long option\n"
"may be shortened to any unambiguous prefix (--stat for --stats), its\n"
"value given as --opt=VALUE or --opt VALUE.\n"
"'distmpmd help COMMAND' (or 'distmpmd COMMAND --help') describes one\n"
"command; 'man distmpmd' all of them.\n"
"Exit status: 0 success, 1 a failed build or run, 2 a bad job or bad "
"arguments.\n";

static const char *usage_ref =
"usage: distmpmd ref inputs JOB\n"
"       distmpmd ref check JOB [--rtol R]\n"
"       distmpmd ref expect JOB OUT.npy|DIR\n"
"       distmpmd ref ideal JOB\n"
"\n"
"The independent sequential reference (dmd_ref.py: numpy, float64),\n"
"installed with distmpmd.\n"
"  inputs   write every .npy file that JOB reads, with random values in\n"
"           [-1, 1) (spec 1.2's generator; the tensor's seed, else 100 +\n"
"           its position), so that 'distmpmd run JOB' has its inputs\n"
"  check    compare every .npy file JOB writes with the expected values\n"
"           (relative error within 1e-4 for f32, 1e-9 for f64, or R);\n"
"           exit status 1 if one differs\n"
"  expect   write the expected outputs (float64)\n"
"  ideal    the ideal data movement of each redistribution step\n"
"It runs under $DISTMPMD_PYTHON if set, else /usr/bin/python3 (Debian's,\n"
"with python3-numpy and python3-yaml).\n";

static const char *usage_help =
"usage: distmpmd help [COMMAND]\n"
"\n"
"Print what COMMAND does and its options (as 'distmpmd COMMAND --help'),\n"
"or, without COMMAND, the list of commands.\n";

static const char *usage_build =
"usage: distmpmd build JOB [--lib] [-o DIR] [-j N] [--mpicc CC]\n"
"                      [--cflag FLAG]...\n"
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
"                     $DISTMPMD_CFLAGS, e.g. --cflag -march=native\n"
"  --mpicc CC         the MPI compiler wrapper (default: $DISTMPMD_MPICC,\n"
"                     else mpicc.mpich), e.g. mpicc.openmpi\n"
"  --lib              a library instead of programs: DIR/lib<name>.a (every\n"
"                     class, <name>_run dispatching on the rank), its header\n"
"                     DIR/<name>.h, and DIR/<name>.pc and DIR/<name>.mk with\n"
"                     the flags and libraries of a program that calls it\n";

static const char *usage_run =
"usage: distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-q]\n"
"                    [--no-input-check] [-o DIR] [-j N] [--mpicc CC]\n"
"                    [--mpiexec MPIEXEC] [--cflag FLAG]... [-- MPIEXEC_ARGS]\n"
"\n"
"Given a job file, build it first (into build/<name>, or DIR with -o);\n"
"given a build directory, use it.  The directory is checked (the\n"
"binaries are the ones its manifest records, the appfile is the one it\n"
"implies), and so are the job's input files (each a .npy file of the\n"
"tensor's shape and dtype, where the ranks will read it: a missing one\n"
"is named, with how to make it, before anything starts).  Then run:\n"
"mpiexec.mpich [MPIEXEC_ARGS] -n COUNT -wdir DIR DIR/classK : ...,\n"
"and say in one line what ran and where the outputs went.  Exits 1 if\n"
"any rank failed, or if the run was cancelled (SIGINT, SIGTERM, SIGHUP:\n"
"passed on to mpiexec and its ranks).\n"
"\n"
"  --stats      rank 0 prints one JSON line: ranks, classes, time_s,\n"
"               gflops, bytes_moved_total, bytes_recv_max, messages,\n"
"               blas (OpenBLAS's core type for this CPU); the line of\n"
"               run goes to stderr then\n"
"  --trace FILE write a timeline of the run to FILE (Chrome trace-event\n"
"               JSON: one track per rank with compute, transfers and\n"
"               waits; open it in Perfetto) and draw it as SVG beside it\n"
"               (FILE with the extension .svg)\n"
"  --dry-run    print the commands that run DIR (mpiexec.mpich with the\n"
"               ranks on its command line, with the appfile, and srun\n"
"               --multi-prog) instead of running it; relative files given\n"
"               to mpiexec (-f hosts) are made absolute\n"
"  -q, --quiet  no line on success\n"
"  --no-input-check  do not check the input files here (for a launch\n"
"               node that does not see the files the ranks will read)\n"
"  --mpiexec MPIEXEC  the MPI launcher (default: $DISTMPMD_MPIEXEC, else\n"
"               mpiexec.mpich); it must belong to the MPI that built DIR\n"
"  -o, -j, --mpicc, --cflag    as for build\n";

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
"       distmpmd emit JOB --lib | --lib-header\n"
"\n"
"Print the C that rank R runs (common.h, then its class's file), the\n"
"file of class K, or common.h (what every class program includes); or\n"
"the C source of the library that build --lib compiles (lib<name>.c,\n"
"which includes common.h) or its header <name>.h.\n";

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
"  --svg FILE      plot classes, bytes moved, time and GFLOP/s against\n"
"                  the first KEY\n"
"  --ref[=PATH]    write the inputs and check the outputs of every point\n"
"                  with the reference (what 'distmpmd ref' runs, unless\n"
"                  PATH is given): max_rel_err.  Without it, each point\n"
"                  reads a copy of the input files beside the job\n"
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
"  --json              one JSON object (spec 2) instead of text\n"
"  --top N             at most N candidates per step (default 5)\n"
"  -o, --output FILE   write the frozen job (every choice explicit) to\n"
"                      FILE (never the job file itself)\n";

static const char *usage_check =
"usage: distmpmd check JOB\n"
"\n"
"Parse and analyse JOB without emitting code; print a summary of the\n"
"loops and transfers, or the problems found (exit 2).\n";

/* ------------------------------------------------------------------ */
/* The compiler core is cmd/dmd_session.c; the rest of cmd/ uses only its
 * struct dmd_build_input. */

static int cmd_help(int argc, char **argv);

/* ------------------------------------------------------------------ */
/* Arguments (cmd/dmd_args.h: GNU getopt_long) */

/* The values of the long options that have no short form. */
enum {
	OPT_CFLAG = 256, OPT_STATS, OPT_TRACE, OPT_DRY_RUN, OPT_SVG,
	OPT_RANK, OPT_CLASS, OPT_COMMON, OPT_SET, OPT_REF, OPT_NO_RUN,
	OPT_WORK, OPT_NO_INPUT_CHECK, OPT_MPICC, OPT_MPIEXEC, OPT_JSON,
	OPT_TOP, OPT_LIB, OPT_LIB_HEADER,
};

/* Report the argument "arg" of "a": "fmt" holds one "%s", "arg" as
 * dmd_args_show gives it; the usage follows.  Returns 2. */
static int arg_error(struct dmd_args *a, const char *fmt, const char *arg)
{
	char *shown = dmd_args_show(arg ? arg : "");

	dmd_args_error(a, fmt, shown ? shown : "?");
	free(shown);
	return 2;
}

/* Parse "text", the value of "what" (an option, "RANK_A"), as an integer
 * in [min, max] (ir/dmd_int.h) into *v.  Returns 0, or 2 after
 * "distmpmd: CMD: WHAT 'TEXT' is not an integer" or "... is out of
 * range (MIN to MAX)", followed by the usage if "a" is given. */
static int arg_integer(const char *cmd, struct dmd_args *a,
	const char *what, const char *text, long min, long max, long *v)
{
	enum dmd_int_status st;
	char *shown;

	st = dmd_int_parse(text, DMD_INT_NUL, min, max, v);
	if (st == DMD_INT_OK)
		return 0;
	shown = dmd_args_show(text);
	if (a && st == DMD_INT_SYNTAX)
		dmd_args_error(a, "%s '%s' is not an integer", what,
			shown ? shown : "?");
	else if (a)
		dmd_args_error(a, "%s '%s' is out of range (%ld to %ld)", what,
			shown ? shown : "?", min, max);
	else if (st == DMD_INT_SYNTAX)
		fprintf(stderr, "distmpmd: %s: %s '%s' is not an integer\n",
			cmd, what, shown ? shown : "?");
	else
		fprintf(stderr, "distmpmd: %s: %s '%s' is out of range (%ld to "
			"%ld)\n", cmd, what, shown ? shown : "?", min, max);
	free(shown);
	return 2;
}

/* Check that "text", the value of "what", is an integer; its range is
 * checked later (arg_integer), once it is known.  Returns 0, or 2 after
 * a message and the usage. */
static int arg_is_integer(struct dmd_args *a, const char *what,
	const char *text)
{
	long v;

	if (dmd_int_parse(text, DMD_INT_NUL, LONG_MIN, LONG_MAX, &v) !=
			DMD_INT_SYNTAX)
		return 0;
	return arg_integer(a->cmd, a, what, text, LONG_MIN, LONG_MAX, &v);
}

/* Take the positional argument "a->value" as *pos if it is still
 * unset; else report it.  Returns 0 or 2. */
static int arg_positional(struct dmd_args *a, const char **pos)
{
	if (*pos)
		return arg_error(a, "unexpected argument '%s'", a->value);
	*pos = a->value;
	return 0;
}

/* Take the arguments after "--" as positional arguments, each as
 * arg_positional does with "pos".  Returns 0 or 2. */
static int arg_rest(struct dmd_args *a, const char **pos)
{
	int i, r = 0;

	for (i = a->rest; !r && i < a->argc; ++i) {
		a->value = a->argv[i];
		r = arg_positional(a, pos);
	}
	return r;
}

/* The build options given on the command line (-j, --mpicc, --cflag). */
struct build_args {
	struct dmd_build_opts opts;
	char **cflags;			/* owned array, strings not owned */
	int given;		/* any of -o, -j, --mpicc, --cflag given */
	int lib;		/* build --lib */
};

/* Handle option "c" if it is a build option (-j N, --mpicc CC, --cflag
 * FLAG).  Returns 1 if it was, 0 if not, 2 after a message. */
static int arg_build(struct dmd_args *a, int c, struct build_args *b)
{
	long j;

	if (c == 'j') {
		if (arg_integer(a->cmd, a, "-j", a->value, 1, INT_MAX, &j))
			return 2;
		b->opts.jobs = (int) j;
		b->given = 1;
		return 1;
	}
	if (c == OPT_MPICC) {
		if (!*a->value)
			return arg_error(a, "--mpicc needs a compiler wrapper",
				NULL);
		b->opts.mpicc = a->value;
		b->given = 1;
		return 1;
	}
	if (c == OPT_CFLAG) {
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
	return 0;
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

/* The files of "in" as the manifest has them (the strings not copied),
 * in newly allocated memory; NULL if memory runs out. */
static struct dmd_mfile *mfiles(const struct dmd_build_input *in)
{
	struct dmd_mfile *f = calloc(in->n_files + 1, sizeof(*f));
	int i;

	for (i = 0; f && i < in->n_files; ++i) {
		f[i].tensor = (char *) in->files[i].tensor;
		f[i].file = (char *) in->files[i].file;
		f[i].input = in->files[i].input;
		f[i].output = in->files[i].output;
		f[i].f64 = in->files[i].f64;
		f[i].ndim = in->files[i].ndim;
		f[i].shape = (long *) in->files[i].shape;
	}
	return f;
}

/* Check the input files of the analysed job "in" for "run JOB", in the
 * job directory the run will use (DMD_JOB_DIR, else the job's).
 * Returns 0, or 1 after the messages (cmd/dmd_files.h). */
static int check_job_files(const struct dmd_build_input *in)
{
	struct dmd_mfile *f = mfiles(in);
	char *dir = dmd_files_job_dir("/", in->job_dir);
	int r = 1;

	if (!f || !dir)
		fprintf(stderr, "distmpmd: out of memory\n");
	else if (dmd_files_check("run", f, in->n_files, dir,
			in->job_path) == 0)
		r = 0;
	free(dir);
	free(f);
	return r;
}

/* Analyse "job" and build it into "out" (NULL: the default directory,
 * whose name is returned in *dir, newly allocated).  With "check", the
 * job's input files are checked first (run JOB). */
static int build_job(const char *job, const char *out,
	struct build_args *b, char **dir, int verbose, int check)
{
	struct dmd_session s;
	int r;

	*dir = NULL;
	r = dmd_session_analyse(&s, job, 1);
	if (!r && check)
		r = check_job_files(&s.in);
	if (!r) {
		*dir = out ? strdup(out) : default_dir(&s);
		if (!*dir)
			r = 1;
	}
	if (!r)
		r = dmd_plan_check_memory(&s);
	if (!r && b->lib)
		r = dmd_session_lib(&s);
	if (!r) {
		b->opts.progress = isatty(2);
		r = dmd_build_dir(&s.in, *dir, &b->opts);
	}
	if (!r && verbose && b->lib)
		printf("distmpmd: built the library of %s (%d class%s for %ld "
			"ranks): %s/lib%s.a, %s/%s.h, %s/%s.pc, %s/%s.mk\n",
			s.in.job_name, s.in.n_class,
			s.in.n_class == 1 ? "" : "es", s.in.nranks, *dir,
			s.in.job_name, *dir, s.in.job_name, *dir,
			s.in.job_name, *dir, s.in.job_name);
	else if (!r && verbose)
		printf("distmpmd: built %s: %d class%s for %ld ranks in %s\n",
			s.in.job_name, s.in.n_class,
			s.in.n_class == 1 ? "" : "es", s.in.nranks, *dir);
	dmd_session_free(&s);
	return r;
}

/* The options of build (run has these and more). */
static const struct option build_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "mpicc", required_argument, NULL, OPT_MPICC },
	{ "cflag", required_argument, NULL, OPT_CFLAG },
	{ "lib", no_argument, NULL, OPT_LIB },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* distmpmd build JOB [--lib] [-o DIR] [-j N] [--cflag FLAG]... */
static int cmd_build(int argc, char **argv)
{
	struct dmd_args a = { .cmd = "build", .usage = usage_build,
		.argc = argc, .argv = argv, .shortopts = "o:j:h",
		.longopts = build_opts };
	struct build_args b;
	const char *job = NULL, *out = NULL;
	char *dir = NULL;
	int r = 0, c;

	memset(&b, 0, sizeof(b));
	while (!r && (c = dmd_args_next(&a)) > 0) {
		if (c == 'h') {
			fputs(usage_build, stdout);
			goto done;
		}
		if (c == 'o')
			out = a.value;
		else if (c == OPT_LIB)
			b.lib = 1;
		else if (c == 1)
			r = arg_positional(&a, &job);
		else
			r = arg_build(&a, c, &b) == 2 ? 2 : 0;
	}
	if (c < 0)
		r = 2;
	if (!r)
		r = arg_rest(&a, &job);
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	if (!r)
		r = build_job(job, out, &b, &dir, 1, 0);
done:
	dmd_args_clear(&a);
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
static int trace_files(struct dmd_args *a, const char *file,
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

/* The manifest of the build directory "dir", and if it lists the job's
 * files, the job directory of a run in *job_dir (newly allocated; else
 * NULL: an older manifest).  NULL if it cannot be read, after
 * dmd_manifest_read's message. */
static struct dmd_manifest *run_manifest(const char *dir, char **job_dir)
{
	struct dmd_manifest *m;
	char *absdir;

	*job_dir = NULL;
	m = dmd_manifest_read(dir);
	if (!m || !m->job_dir)
		return m;
	absdir = realpath(dir, NULL);
	if (absdir)
		*job_dir = dmd_files_job_dir(absdir, m->job_dir);
	free(absdir);
	if (!*job_dir) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return dmd_manifest_free(m);
	}
	return m;
}

/* Check the input files of the build directory "dir" before "run DIR"
 * (cmd/dmd_files.h).  Returns 0, or 1 after the messages. */
static int check_dir_files(const char *dir)
{
	struct dmd_manifest *m;
	char *job_dir, *job = NULL;
	int r = 0;

	m = run_manifest(dir, &job_dir);
	if (!m)
		return 1;
	if (!job_dir) {
		dmd_manifest_free(m);
		return 0;
	}
	job = dmd_files_path(job_dir, m->job_file);
	if (!job || dmd_files_check("run", m->files, m->n_files, job_dir,
			job) < 0)
		r = 1;
	free(job);
	free(job_dir);
	dmd_manifest_free(m);
	return r;
}

/* Say what "run" ran and where its outputs went, on "out":
 *   distmpmd: ran NAME (N ranks, K classes) in DIR; wrote C.npy
 * from the manifest of the build directory "dir" (with "trace", the
 * timeline files "trace" and "svg" too). */
static void say_ran(FILE *out, const char *dir, const char *trace,
	const char *svg)
{
	struct dmd_manifest *m;
	char *job_dir;
	int i, n = 0;

	m = run_manifest(dir, &job_dir);
	if (!m)
		return;
	fprintf(out, "distmpmd: ran %s (%ld rank%s, %d class%s) in %s", m->job,
		m->nranks, m->nranks == 1 ? "" : "s", m->n_classes,
		m->n_classes == 1 ? "" : "es", dir);
	for (i = 0; job_dir && i < m->n_files; ++i) {
		char *path;

		if (!m->files[i].output)
			continue;
		path = dmd_files_path(job_dir, m->files[i].file);
		fprintf(out, "%s%s", n++ ? ", " : "; wrote ",
			path ? path : m->files[i].file);
		free(path);
	}
	if (job_dir && !n)
		fprintf(out, "; no output file (no tensor with 'file' is "
			"written)");
	if (trace)
		fprintf(out, "; timeline %s and %s", trace, svg);
	fputc('\n', out);
	fflush(out);
	free(job_dir);
	dmd_manifest_free(m);
}

/* The options of mpiexec (MPICH's hydra, Open MPI) whose value is a
 * file: a relative one is made absolute, so that the commands of
 * --dry-run, one of which runs in the build directory, can be pasted
 * anywhere. */
static const char *const file_opts[] = {
	"-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile",
	"--default-hostfile", "-outfile-pattern", "-errfile-pattern",
};

/* "extra" (n of them, after "--") with the relative file values of
 * file_opts made absolute, as a new array in *abs whose new strings
 * are in *owned (both to be freed; *owned NULL-terminated).  -1 if
 * memory runs out or the current directory is unknown. */
static int absolute_files(int n, char **extra, char ***abs, char ***owned)
{
	char *cwd = NULL;
	int i, k, n_own = 0;
	size_t j;

	*abs = calloc(n + 1, sizeof(**abs));
	*owned = calloc(n + 1, sizeof(**owned));
	if (!*abs || !*owned)
		goto error;
	for (i = 0; i < n; ++i) {
		const char *value = NULL;
		size_t len = 0;

		(*abs)[i] = extra[i];
		for (j = 0; j < sizeof(file_opts) / sizeof(file_opts[0]); ++j) {
			len = strlen(file_opts[j]);
			if (i > 0 && !strcmp(extra[i - 1], file_opts[j])) {
				value = extra[i];
				len = 0;
				break;
			}
			if (!strncmp(extra[i], file_opts[j], len) &&
			    extra[i][len] == '=' && file_opts[j][1] == '-') {
				value = extra[i] + len + 1;
				len += 1;
				break;
			}
		}
		if (!value || !*value || value[0] == '/')
			continue;
		if (!cwd && !(cwd = getcwd(NULL, 0)))
			goto error;
		k = n_own++;
		if (asprintf(&(*owned)[k], "%.*s%s/%s", (int) len, extra[i],
				cwd, value) < 0) {
			(*owned)[k] = NULL;
			goto error;
		}
		(*abs)[i] = (*owned)[k];
	}
	free(cwd);
	return 0;
error:
	fprintf(stderr, "distmpmd: %s\n", cwd || errno == ENOMEM ?
		"out of memory" : "cannot find the current directory");
	free(cwd);
	return -1;
}

/* distmpmd run JOB_OR_DIR [--stats] [--trace FILE] [--dry-run] [-o DIR]
 * [-j N] [--mpicc CC] [--mpiexec MPIEXEC] [--cflag FLAG]...
 * [-- MPIEXEC_ARGS]
 * With --trace, every rank gets DMD_TRACE=<absolute FILE>
 * (dmd_launch), and after a successful run the trace is drawn. */
static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-input-check", no_argument, NULL, OPT_NO_INPUT_CHECK },
		{ "lib", no_argument, NULL, OPT_LIB },
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "mpicc", required_argument, NULL, OPT_MPICC },
		{ "mpiexec", required_argument, NULL, OPT_MPIEXEC },
		{ "cflag", required_argument, NULL, OPT_CFLAG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "run", .usage = usage_run,
		.argc = argc, .argv = argv, .shortopts = "o:j:qh",
		.longopts = opts };
	struct build_args b;
	struct trace_files t = { NULL, NULL };
	struct dmd_launch_opts lo;
	const char *target = NULL, *out = NULL, *trace = NULL;
	int stats = 0, dry_run = 0, quiet = 0, check = 1, n_extra = 0, r = 0;
	int i, c;
	char **extra = NULL, *dir = NULL, **abs = NULL, **owned = NULL;

	memset(&b, 0, sizeof(b));
	memset(&lo, 0, sizeof(lo));
	while (!r && (c = dmd_args_next(&a)) > 0) {
		switch (c) {
		case 'h':
			fputs(usage_run, stdout);
			goto done;
		case OPT_STATS:
			stats = 1;

			break;
		case OPT_DRY_RUN:
			dry_run = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_NO_INPUT_CHECK:
			check = 0;
			break;
		case OPT_MPIEXEC:
			if (!*a.value)
				r = arg_error(&a, "--mpiexec needs a launcher",
					NULL);
			lo.mpiexec = a.value;
			break;
		case OPT_TRACE:
			trace = a.value;
			break;
		case OPT_LIB:
			r = arg_error(&a, "--lib is an option of build: a "
				"library is called from your own MPI program, "
				"not run by distmpmd (distmpmd build JOB --lib)",
				NULL);
			break;
		case 'o':
			out = a.value;
			b.given = 1;
			break;
		case 1:
			r = arg_positional(&a, &target);
			break;
		default:
			r = arg_build(&a, c, &b) == 2 ? 2 : 0;
		}
	}
	if (c < 0)
		r = 2;
	if (!r) {
		n_extra = argc - a.rest;
		if (absolute_files(n_extra, argv + a.rest, &abs, &owned) < 0)
			r = 1;
		extra = abs;
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
	if (is_dir(target)) {
		if (b.given) {
			r = arg_error(&a, "-o, -j, --mpicc and --cflag apply "
				"to a job file, but '%s' is a build directory",
				target);
			goto done;
		}
		dir = strdup(target);
		if (!dir) {
			fprintf(stderr, "distmpmd: out of memory\n");
			r = 1;
			goto done;
		}
		if (!dry_run && check && check_dir_files(dir))
			r = 1;
	} else {
		r = build_job(target, out, &b, &dir, 0, !dry_run && check);
	}
	if (r)
		goto done;
	fflush(stdout);
	lo.stats = stats;
	lo.trace = t.json;
	lo.n_extra = n_extra;
	lo.extra = extra;
	if (dry_run)
		r = dmd_launch_dry_run(dir, &lo, stdout);
	else
		r = dmd_launch(dir, &lo);
	if (!r && trace && dmd_trace_svg(t.json, t.svg) < 0)
		r = 1;
	if (!r && !dry_run && !quiet)
		say_ran(stats ? stderr : stdout, dir, trace, t.svg);
done:
	dmd_args_clear(&a);
	if (owned)
		for (i = 0; owned[i]; ++i)
			free(owned[i]);
	free(owned);
	free(abs);
	free(t.json);
	free(t.svg);
	free(dir);
	free(b.cflags);
	return r;
}

/* Parse the arguments of a command that takes only a job file (and
 * --help).  Returns 0 with the job in *job, -1 after printing the usage
 * (--help), or 2 after a message. */
static int job_only(struct dmd_args *a, const char **job)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int r = 0, c;

	*job = NULL;
	a->shortopts = "h";
	a->longopts = opts;
	while (!r && (c = dmd_args_next(a)) > 0) {
		if (c == 'h') {
			fputs(a->usage, stdout);
			return -1;
		}
		r = arg_positional(a, job);
	}
	if (c < 0)
		return 2;
	if (!r)
		r = arg_rest(a, job);
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
	static const struct option opts[] = {
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "classes", .usage = usage_classes,
		.argc = argc, .argv = argv, .shortopts = "h",
		.longopts = opts };
	struct dmd_session s;
	const char *job = NULL, *svg = NULL;
	int r = 0, i, j, c;

	while (!r && (c = dmd_args_next(&a)) > 0) {
		if (c == 'h') {
			fputs(usage_classes, stdout);
			dmd_args_clear(&a);
			return 0;
		}
		if (c == OPT_SVG)
			svg = a.value;
		else
			r = arg_positional(&a, &job);
	}
	if (c < 0)
		r = 2;
	if (!r)
		r = arg_rest(&a, &job);
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	dmd_args_clear(&a);
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
			if (c->n_blocks)
				printf("  blocks (cyclic):\n");
			for (j = 0; j < c->n_blocks; ++j)
				printf("    %s\n", c->blocks[j]);
		}
		printf("\n");
		draw_mesh(in);
		if (svg)
			r = dmd_svg_classes(in, svg);
	}
	dmd_session_free(&s);
	return r;
}

/* distmpmd emit JOB --rank R | --class K | --common */
static int cmd_emit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rank", required_argument, NULL, OPT_RANK },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "common", no_argument, NULL, OPT_COMMON },
		{ "lib", no_argument, NULL, OPT_LIB },
		{ "lib-header", no_argument, NULL, OPT_LIB_HEADER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "emit", .usage = usage_emit,
		.argc = argc, .argv = argv, .shortopts = "h",
		.longopts = opts };
	struct dmd_session s;
	const char *job = NULL, *rank_s = NULL, *cls_s = NULL;
	long rank = -1, cls = -1;
	int i, j, r = 0, common = 0, lib = 0, c;

	while (!r && (c = dmd_args_next(&a)) > 0) {
		switch (c) {
		case 'h':
			fputs(usage_emit, stdout);
			dmd_args_clear(&a);
			return 0;
		case OPT_COMMON:
			common = 1;
			break;
		case OPT_LIB:
			lib |= 1;
			break;
		case OPT_LIB_HEADER:
			lib |= 2;
			break;
		case OPT_RANK:
			/* the range is known after the analysis */
			rank_s = a.value;
			r = arg_is_integer(&a, "--rank", rank_s);
			break;
		case OPT_CLASS:
			cls_s = a.value;
			r = arg_is_integer(&a, "--class", cls_s);
			break;
		default:
			r = arg_positional(&a, &job);
		}
	}
	if (c < 0)
		r = 2;
	if (!r)
		r = arg_rest(&a, &job);
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	if (!r && !!rank_s + !!cls_s + common + (lib & 1) + (lib >> 1) > 1)
		r = arg_error(&a, "give one of --rank, --class, --common, --lib "
			"and --lib-header", NULL);
	if (!r && !rank_s && !cls_s && !common && !lib)
		r = arg_error(&a, "--rank R, --class K, --common, --lib or "
			"--lib-header is needed", NULL);
	dmd_args_clear(&a);
	if (r)
		return r;
	r = dmd_session_analyse(&s, job, 1);
	if (!r && lib)
		r = dmd_session_lib(&s);
	if (!r && lib) {
		fputs(lib == 1 ? s.in.lib_source : s.in.lib_header, stdout);
	} else if (!r && common) {
		fputs(s.in.common, stdout);
	} else if (!r && cls_s) {
		r = arg_integer("emit", NULL, "--class", cls_s, 0,
			s.in.n_class - 1, &cls);
		if (!r)
			fputs(s.in.cls[cls].code, stdout);
	} else if (!r) {
		r = arg_integer("emit", NULL, "--rank", rank_s, 0,
			s.in.nranks - 1, &rank);
		for (i = 0; !r && i < s.in.n_class; ++i)
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
	static const char *const what[2] = { "RANK_A", "RANK_B" };
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "diff", .usage = usage_diff,
		.argc = argc, .argv = argv, .shortopts = "h",
		.longopts = opts, .negative_positionals = 1 };
	struct dmd_session s;
	const char *pos[3] = { NULL, NULL, NULL };
	char *label[2] = { NULL, NULL };
	long rank[2];
	int cls[2], r = 0, n = 0, k, c;

	while (!r && (c = dmd_args_next(&a)) > 0) {
		if (c == 'h') {
			fputs(usage_diff, stdout);
			dmd_args_clear(&a);
			return 0;
		}
		if (n < 3)
			pos[n++] = a.value;
		else
			r = arg_error(&a, "unexpected argument '%s'",
				a.value);
	}
	if (c < 0)
		r = 2;
	for (k = a.rest; !r && k < argc; ++k) {
		a.value = argv[k];
		if (n < 3)
			pos[n++] = a.value;
		else
			r = arg_error(&a, "unexpected argument '%s'",
				a.value);
	}
	if (!r && n < 3)
		r = arg_error(&a, n == 0 ? "no job file given" :
			"two ranks are needed: JOB RANK_A RANK_B", NULL);
	for (k = 0; !r && k < 2; ++k)
		r = arg_is_integer(&a, what[k], pos[1 + k]);
	dmd_args_clear(&a);
	if (r)
		return r;
	r = dmd_session_analyse(&s, pos[0], 1);
	for (k = 0; !r && k < 2; ++k) {
		r = arg_integer("diff", NULL, what[k], pos[1 + k], 0,
			s.in.nranks - 1, &rank[k]);
		if (!r)
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

/* The input files of a job, for sweep (see dmd_sweep_inputs). */
static int sweep_inputs(const char *job, char ***files)
{
	struct dmd_session s;
	int r, i, n = 0;

	*files = NULL;
	r = dmd_session_analyse(&s, job, 0);
	if (!r) {
		*files = calloc(s.in.n_files + 1, sizeof(**files));
		for (i = 0; *files && i < s.in.n_files; ++i) {
			if (!s.in.files[i].input)
				continue;
			(*files)[n] = strdup(s.in.files[i].file);
			if (!(*files)[n++])
				break;
		}
		if (!*files || i < s.in.n_files) {
			fprintf(stderr, "distmpmd: out of memory\n");
			r = 1;
		}
	}
	dmd_session_free(&s);
	if (r && *files) {
		for (i = 0; (*files)[i]; ++i)
			free((*files)[i]);
		free(*files);
		*files = NULL;
	}
	return r;
}

/* distmpmd sweep JOB --set KEY=LIST... [-o CSV] [--svg FILE]
 * [--ref[=PATH]] [--no-run] [--work DIR] */
static int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, OPT_SET },
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "ref", optional_argument, NULL, OPT_REF },
		{ "no-run", no_argument, NULL, OPT_NO_RUN },
		{ "work", required_argument, NULL, OPT_WORK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "sweep", .usage = usage_sweep,
		.argc = argc, .argv = argv, .shortopts = "o:h",
		.longopts = opts };
	struct dmd_sweep_opts o;
	char **set = NULL, **more;
	int r = 0, c;

	memset(&o, 0, sizeof(o));
	o.analyse = &sweep_analyse;
	o.inputs = &sweep_inputs;
	while (!r && (c = dmd_args_next(&a)) > 0) {
		switch (c) {
		case 'h':
			fputs(usage_sweep, stdout);
			goto done;
		case OPT_NO_RUN:
			o.no_run = 1;
			break;
		case OPT_REF:
			o.ref = 1;
			o.ref_path = a.value;
			break;
		case OPT_SET:
			more = realloc(set, (o.n_set + 1) * sizeof(*more));
			if (!more) {
				fprintf(stderr, "distmpmd: out of memory\n");
				r = 1;
				break;
			}
			set = more;
			set[o.n_set++] = (char *) a.value;
			break;
		case 'o':
			o.csv = a.value;
			break;
		case OPT_SVG:
			o.svg = a.value;
			break;
		case OPT_WORK:
			o.work = a.value;
			break;
		default:
			r = arg_positional(&a, &o.job);
		}
	}
	if (c < 0)
		r = 2;
	if (!r)
		r = arg_rest(&a, &o.job);
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
	dmd_args_clear(&a);
	free(set);
	return r;
}

/* distmpmd check JOB: a summary of the loops and transfers. */
static int cmd_check(int argc, char **argv)
{
	struct dmd_args a = { .cmd = "check", .usage = usage_check,
		.argc = argc, .argv = argv };
	struct dmd_session s;
	const char *job;
	int r;

	r = job_only(&a, &job);
	dmd_args_clear(&a);
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

/* distmpmd ref ARGS...: dmd_ref.py ARGS... (cmd/dmd_ref.h), in place of
 * this process. */
static int cmd_ref(int argc, char **argv)
{
	char *self;
	int r;

	if (argc < 2) {
		fprintf(stderr, "distmpmd: ref: inputs, check, expect or ideal "
			"is needed\n\n%s", usage_ref);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_ref, stdout);
		return 0;
	}
	self = realpath("/proc/self/exe", NULL);
	if (!self) {
		fprintf(stderr, "distmpmd: ref: cannot find this executable: "
			"%s\n", strerror(errno));
		return 1;
	}
	r = dmd_ref_exec(self, argc - 1, argv + 1);
	free(self);
	return r;
}

/* distmpmd plan JOB [--json] [--top N] [-o FILE] */
static int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dmd_args a = { .cmd = "plan", .usage = usage_plan,
		.argc = argc, .argv = argv, .shortopts = "o:h",
		.longopts = opts };
	struct dmd_plan_opts o = { 0, 5, NULL };
	struct dmd_session s;
	const char *job = NULL;
	long top;
	int r = 0, c;

	while (!r && (c = dmd_args_next(&a)) > 0) {
		switch (c) {
		case 'h':
			fputs(usage_plan, stdout);
			dmd_args_clear(&a);
			return 0;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_TOP:
			r = arg_integer(a.cmd, &a, "--top", a.value, 1,
				INT_MAX, &top);
			o.top = (int) top;
			break;
		case 'o':
			o.out = a.value;
			break;
		default:
			r = arg_positional(&a, &job);
		}
	}
	if (c < 0)
		r = 2;
	if (!r)
		r = arg_rest(&a, &job);
	if (!r && !job)
		r = arg_error(&a, "no job file given", NULL);
	if (!r && o.out && !*o.out)
		r = arg_error(&a, "-o needs a file name", NULL);
	dmd_args_clear(&a);
	if (r)
		return r;
	r = dmd_session_analyse(&s, job, DMD_SESSION_CELLS);
	if (!r)
		r = dmd_plan_report(&s, &o);
	dmd_session_free(&s);
	return r;
}

/* The commands: name, function (called with argv[0] the command) and
 * usage. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *const *usage;
} commands[] = {
	{ "build", &cmd_build, &usage_build },
	{ "run", &cmd_run, &usage_run },
	{ "classes", &cmd_classes, &usage_classes },
	{ "emit", &cmd_emit, &usage_emit },
	{ "check", &cmd_check, &usage_check },
	{ "plan", &cmd_plan, &usage_plan },
	{ "diff", &cmd_diff, &usage_diff },
	{ "sweep", &cmd_sweep, &usage_sweep },
	{ "ref", &cmd_ref, &usage_ref },
	{ "help", &cmd_help, &usage_help },
};
#define N_COMMANDS ((int) (sizeof(commands) / sizeof(commands[0])))

/* The command called "name", or NULL after "distmpmd: unknown command
 * 'NAME'" (with the command it most resembles, else the list of
 * commands). */
static const struct command *find_command(const char *name)
{
	const char *names[N_COMMANDS], *hint;
	char *shown;
	int i;

	for (i = 0; i < N_COMMANDS; ++i) {
		if (!strcmp(name, commands[i].name))
			return &commands[i];
		names[i] = commands[i].name;
	}
	hint = dmd_args_suggest(name, names, N_COMMANDS);
	shown = dmd_args_show(name);
	if (hint)
		fprintf(stderr, "distmpmd: unknown command '%s'; did you mean "
			"'%s'?\n", shown ? shown : "?", hint);
	else
		fprintf(stderr, "distmpmd: unknown command '%s'\n\n%s",
			shown ? shown : "?", usage_main);
	free(shown);
	return NULL;
}

/* distmpmd help [COMMAND]: the usage of COMMAND, or of distmpmd. */
static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc > 2) {
		char *shown = dmd_args_show(argv[2]);

		fprintf(stderr, "distmpmd: help: unexpected argument '%s'\n\n"
			"%s", shown ? shown : "?", usage_help);
		free(shown);
		return 2;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(argc < 2 ? usage_main : usage_help, stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c)
		return 2;
	fputs(*c->usage, stdout);
	return 0;
}

/* distmpmd --version: the version, and the MPI, isl, OpenBLAS and
 * libyaml it was built with (MPI and OpenBLAS as the Makefile found
 * them; isl and libyaml as linked). */
static int cmd_version(void)
{
	const char *isl = isl_version();
	const char *more = DMD_MPI_MORE, *end;

	printf("distmpmd %s\n", DMD_VERSION);
	printf("MPI: %s (the runtime was compiled with %s)\n", DMD_MPI,
		DMD_MPICC);
	/* the runtimes of other MPIs, each ending with ';' */
	for (; (end = strchr(more, ';')); more = end + 1) {
		more += strspn(more, " ");
		printf("MPI: %.*s\n", (int) (end - more), more);
	}
	/* isl_version() ends with a newline */
	printf("isl: %.*s\n", (int) strcspn(isl, "\n"), isl);
	printf("OpenBLAS: %s\n", DMD_OPENBLAS);
	printf("libyaml: %s\n", yaml_get_version_string());
	return 0;
}

/* Dispatch on the command. */
int main(int argc, char **argv)
{
	const struct command *c;
	const char *cmd;

	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	cmd = argv[1];
	/* --help and --version, or an unambiguous prefix (--vers) */
	if (!strcmp(cmd, "-h") || (strlen(cmd) > 2 &&
			!strncmp("--help", cmd, strlen(cmd)))) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || (strlen(cmd) > 2 &&
			!strncmp("--version", cmd, strlen(cmd))))
		return cmd_version();
	if (cmd[0] == '-' && cmd[1]) {
		char *shown = dmd_args_show(cmd);

		fprintf(stderr, "distmpmd: unknown option '%s' (options come "
			"after the command)\n\n%s", shown ? shown : "?",
			usage_main);
		free(shown);
		return 2;
	}
	c = find_command(cmd);
	if (!c)
		return 2;
	return c->fn(argc - 1, argv + 1);
}
