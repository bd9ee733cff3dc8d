/* distmpmd: the command line (spec section 2).
 *
 *   distmpmd build JOB [-o DIR]
 *   distmpmd run JOB_OR_DIR [--stats] [-- MPIEXEC_ARGS]
 *   distmpmd classes JOB
 *   distmpmd emit JOB --rank R
 *   distmpmd check JOB
 *
 * Exit status: 0 success; 1 a run or build that failed; 2 a bad job file
 * or bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>

#include "ir/dmd_model.h"
#include "partition/dmd_part.h"
#include "emit/dmd_emit.h"
#include "manifests/dmd_manifest.h"

#ifndef DMD_TOP
#define DMD_TOP "."
#endif
#ifndef DMD_BLAS_CFLAGS
#define DMD_BLAS_CFLAGS ""
#endif
#ifndef DMD_BLAS_LIBS
#define DMD_BLAS_LIBS "-lopenblas"
#endif

static const char *usage_main =
"usage: distmpmd COMMAND [ARGS]\n"
"\n"
"Compile a distributed tensor job into rank-specialized MPI programs.\n"
"\n"
"commands:\n"
"  build JOB [-o DIR]            emit, compile, write DIR/manifest.yaml and\n"
"                                DIR/appfile (default DIR: build/<name>)\n"
"  run JOB_OR_DIR [--stats] [-- MPIEXEC_ARGS]\n"
"                                build if given a job, then run with\n"
"                                mpiexec.mpich -configfile DIR/appfile\n"
"  classes JOB                   the rank classes, why, and a map of the mesh\n"
"  emit JOB --rank R             print the C source that rank R runs\n"
"  check JOB                     parse and analyse; report problems\n"
"\n"
"'distmpmd COMMAND --help' describes one command.\n"
"Exit status: 0 success, 1 a failed build or run, 2 a bad job or bad "
"arguments.\n";

static const char *usage_build =
"usage: distmpmd build JOB [-o DIR]\n"
"\n"
"Analyse JOB, emit one C file per rank class (DIR/classK.c), compile each\n"
"with mpicc.mpich against the distmpmd runtime and OpenBLAS, and write\n"
"DIR/manifest.yaml and DIR/appfile.  DIR defaults to build/<name> in the\n"
"current directory.\n";

static const char *usage_run =
"usage: distmpmd run JOB_OR_DIR [--stats] [-- MPIEXEC_ARGS]\n"
"\n"
"Given a job file, build it first (into build/<name>); given a build\n"
"directory, use it.  Launch mpiexec.mpich [MPIEXEC_ARGS] -configfile\n"
"DIR/appfile.  With --stats, rank 0 prints one JSON line: ranks, classes,\n"
"time_s, gflops, bytes_moved_total, bytes_recv_max, messages.\n"
"Exits 1 if any rank failed.\n";

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
"file of class K, or common.h.\n";

static const char *usage_check =
"usage: distmpmd check JOB\n"
"\n"
"Parse and analyse JOB without emitting code; print a summary of the\n"
"loops and transfers, or the problems found (exit 2).\n";

/* The analysed job: every stage of the compiler, each made by its room:
 * job (ir) -> model (ir) -> plan (partition) -> facts and cells
 * (partition) -> classes with their code (specialize + emit). */
struct session {
	isl_ctx *ctx;
	struct dmd_job *job;
	struct dmd_model *m;
	struct dmd_plan *plan;
	struct dmd_facts *facts;
	struct dmd_cells *cells;
	struct dmd_classes *cls;
};

/* Free what "s" holds. */
static void session_free(struct session *s)
{
	dmd_emit_classes_free(s->cls);
	dmd_part_cells_free(s->cells);
	dmd_part_facts_free(s->facts);
	dmd_part_plan_free(s->plan);
	dmd_model_free(s->m);
	dmd_job_free(s->job);
	if (s->ctx)
		isl_ctx_free(s->ctx);
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
	if (!classes)
		return 0;
	s->facts = dmd_part_facts(s->plan);
	stage_time("facts");
	if (s->facts)
		s->cells = dmd_part_cells(s->m, s->facts);
	stage_time("cells");
	if (s->cells)
		s->cls = dmd_emit_classes(s->plan, s->facts, s->cells);
	stage_time("classes");
	if (!s->cls) {
		fprintf(stderr, "%s: error: internal error: cannot find the "
			"rank classes (please report it)\n", path);
		return 1;
	}
	return 0;
}

/* Write "text" to "path" (via a temporary file and rename). */
static int write_file(const char *path, const char *text)
{
	char tmp[PATH_MAX + 64];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int) getpid());
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char b[PATH_MAX], *p;

	snprintf(b, sizeof(b), "%s", dir);
	for (p = b + 1; *p; ++p)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(b, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(b, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Where the runtime lives: $DISTMPMD_HOME or the source tree. */
static const char *top_dir(void)
{
	const char *t = getenv("DISTMPMD_HOME");
	return t && *t ? t : DMD_TOP;
}

/* Compile DIR/classK.c into DIR/classK. */
static int compile_class(const char *dir, int k, const char *job_dir)
{
	char cmd[8192];
	int st;

	snprintf(cmd, sizeof(cmd), "mpicc.mpich -O3 -Wall -Wextra -Werror "
		"-I'%s/runtime' %s -DDMD_JOB_DIR='\"%s\"' "
		"-o '%s/class%d' '%s/class%d.c' '%s/obj/libdmdrt.a' %s -lm",
		top_dir(), DMD_BLAS_CFLAGS, job_dir, dir, k, dir, k,
		top_dir(), DMD_BLAS_LIBS);
	st = system(cmd);
	if (st != 0) {
		fprintf(stderr, "distmpmd: compiling %s/class%d.c failed\n",
			dir, k);
		return -1;
	}
	return 0;
}

/* The build: sources, binaries, then manifest and appfile. */
static int do_build(struct session *s, const char *dir)
{
	struct dmd_classes *cls = s->cls;
	struct dmd_manifest man;
	struct dmd_mclass *mc;
	char path[PATH_MAX];
	int i, r = 0;

	if (make_dirs(dir) < 0) {
		fprintf(stderr, "distmpmd: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	/* an old manifest must not describe new binaries */
	snprintf(path, sizeof(path), "%s/manifest.yaml", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/common.h", dir);
	if (write_file(path, cls->common) < 0)
		return 1;
	for (i = 0; i < cls->n; ++i) {
		snprintf(path, sizeof(path), "%s/class%d.c", dir, i);
		if (write_file(path, cls->cls[i].code) < 0)
			return 1;
	}
	for (i = 0; i < cls->n; ++i)
		if (compile_class(dir, i, s->job->dir) < 0)
			return 1;
	memset(&man, 0, sizeof(man));
	man.job = s->job->name;
	man.n_axes = s->job->n_axes;
	man.axes = s->job->axes;
	man.shape = s->job->mesh_shape;
	man.nranks = s->job->nranks;
	man.n_classes = cls->n;
	mc = calloc(cls->n, sizeof(*mc));
	for (i = 0; i < cls->n; ++i) {
		mc[i].id = i;
		mc[i].source = malloc(32);
		mc[i].binary = malloc(32);
		snprintf(mc[i].source, 32, "class%d.c", i);
		snprintf(mc[i].binary, 32, "class%d", i);
		mc[i].set = strdup(cls->cls[i].set_text);
		mc[i].why = cls->cls[i].why;
		mc[i].n_ranges = cls->cls[i].n_ranges;
		mc[i].ranges = cls->cls[i].ranges;
		mc[i].count = cls->cls[i].count;
	}
	man.classes = mc;
	if (dmd_manifest_write(dir, &man) < 0)
		r = 1;
	for (i = 0; i < cls->n; ++i) {
		free(mc[i].source);
		free(mc[i].binary);
		free(mc[i].set);
	}
	free(mc);
	return r;
}

/* Does any argument ask for help? */
static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; ++i)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

/* Print "usage" to stderr; exit status 2. */
static int bad_usage(const char *usage)
{
	fputs(usage, stderr);
	return 2;
}

/* The default build directory: build/<name> in the current directory. */
static void default_dir(struct session *s, char *dir, size_t size)
{
	snprintf(dir, size, "build/%s", s->job->name);
}

/* distmpmd build JOB [-o DIR] */
static int cmd_build(int argc, char **argv)
{
	struct session s;
	const char *job = NULL, *out = NULL;
	char dir[PATH_MAX];
	int i, r;

	if (wants_help(argc, argv)) {
		fputs(usage_build, stdout);
		return 0;
	}
	for (i = 0; i < argc; ++i) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-' || job)
			return bad_usage(usage_build);
		else
			job = argv[i];
	}
	if (!job)
		return bad_usage(usage_build);
	r = analyse(&s, job, 1);
	if (!r) {
		if (out)
			snprintf(dir, sizeof(dir), "%s", out);
		else
			default_dir(&s, dir, sizeof(dir));
		r = do_build(&s, dir);
		if (!r)
			printf("distmpmd: built %s: %d class%s for %ld ranks "
				"in %s\n", s.job->name, s.cls->n,
				s.cls->n == 1 ? "" : "es", s.job->nranks,
				dir);
	}
	session_free(&s);
	return r;
}

/* Is "path" a directory? */
static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* distmpmd run JOB_OR_DIR [--stats] [-- MPIEXEC_ARGS] */
static int cmd_run(int argc, char **argv)
{
	const char *target = NULL;
	int stats = 0, i, n_extra = 0, r;
	char **extra = NULL;
	char dir[PATH_MAX];

	for (i = 0; i < argc; ++i) {
		if (!strcmp(argv[i], "--")) {
			extra = argv + i + 1;
			n_extra = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_run, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--stats"))
			stats = 1;
		else if (argv[i][0] == '-' || target)
			return bad_usage(usage_run);
		else
			target = argv[i];
	}
	if (!target)
		return bad_usage(usage_run);
	if (is_dir(target)) {
		struct dmd_manifest *man = dmd_manifest_read(target);
		if (!man)
			return 1;
		dmd_manifest_free(man);
		snprintf(dir, sizeof(dir), "%s", target);
	} else {
		struct session s;
		r = analyse(&s, target, 1);
		if (!r) {
			default_dir(&s, dir, sizeof(dir));
			r = do_build(&s, dir);
		}
		session_free(&s);
		if (r)
			return r;
	}
	fflush(stdout);
	return dmd_launch(dir, stats, n_extra, extra);
}

/* The class label of class "k" in the mesh picture. */
static char label(int k)
{
	static const char *l = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz";
	return k < 62 ? l[k] : '*';
}

/* Draw the mesh: one character per rank, the class label; a 1-D mesh is
 * one row, a 2-D mesh has x down and y across, higher dimensions are
 * printed as slices of the last two axes. */
static void draw_mesh(struct dmd_model *m, struct dmd_classes *cl)
{
	long n = m->job->nranks, r;
	int *cls = malloc(n * sizeof(int));
	int i, na = m->job->n_axes;
	long rows, cols;

	for (i = 0; i < cl->n; ++i) {
		int j;
		for (j = 0; j < cl->cls[i].n_ranges; ++j)
			for (r = cl->cls[i].ranges[j][0];
			     r <= cl->cls[i].ranges[j][1]; ++r)
				cls[r] = i;
	}
	cols = m->job->mesh_shape[na - 1];
	rows = na >= 2 ? m->job->mesh_shape[na - 2] : 1;
	if (na >= 2)
		printf("mesh by class (%s down, %s across):\n",
			m->job->axes[na - 2], m->job->axes[na - 1]);
	else
		printf("mesh by class (%s across):\n", m->job->axes[0]);
	for (r = 0; r < n; ++r) {
		if (r % (rows * cols) == 0 && r && na > 2)
			printf("\n");
		if (r % (rows * cols) == 0 && na > 2) {
			long rest = r / (rows * cols);
			long c[DMD_MAX_AXES];
			for (i = na - 3; i >= 0; --i) {
				c[i] = rest % m->job->mesh_shape[i];
				rest /= m->job->mesh_shape[i];
			}
			printf("  slice");
			for (i = 0; i < na - 2; ++i)
				printf("%s %s = %ld", i ? "," : "",
					m->job->axes[i], c[i]);
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
	struct session s;
	int r, i, j;

	if (wants_help(argc, argv)) {
		fputs(usage_classes, stdout);
		return 0;
	}
	if (argc != 1 || argv[0][0] == '-')
		return bad_usage(usage_classes);
	r = analyse(&s, argv[0], 1);
	if (!r) {
		struct dmd_classes *cl = s.cls;
		printf("job %s: %ld ranks, %d class%s\n", s.job->name,
			s.job->nranks, cl->n, cl->n == 1 ? "" : "es");
		for (i = 0; i < cl->n; ++i) {
			struct dmd_class *c = &cl->cls[i];
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
			printf("\n  set: %s\n  why: %s\n", c->set_text,
				c->why);
		}
		printf("\n");
		draw_mesh(s.m, cl);
	}
	session_free(&s);
	return r;
}

/* distmpmd emit JOB --rank R | --class K */
static int cmd_emit(int argc, char **argv)
{
	struct session s;
	const char *job = NULL;
	long rank = -1, cls = -1;
	int i, r, common = 0;
	char *end;

	if (wants_help(argc, argv)) {
		fputs(usage_emit, stdout);
		return 0;
	}
	for (i = 0; i < argc; ++i) {
		if (!strcmp(argv[i], "--common"))
			common = 1;
		else if (!strcmp(argv[i], "--rank") && i + 1 < argc) {
			rank = strtol(argv[++i], &end, 10);
			if (*end || rank < 0)
				return bad_usage(usage_emit);
		} else if (!strcmp(argv[i], "--class") && i + 1 < argc) {
			cls = strtol(argv[++i], &end, 10);
			if (*end || cls < 0)
				return bad_usage(usage_emit);
		} else if (argv[i][0] == '-' || job)
			return bad_usage(usage_emit);
		else
			job = argv[i];
	}
	if (!job || (rank >= 0) + (cls >= 0) + common != 1)
		return bad_usage(usage_emit);
	r = analyse(&s, job, 1);
	if (!r && common) {
		fputs(s.cls->common, stdout);
		session_free(&s);
		return r;
	}
	if (!r && cls >= 0) {
		if (cls >= s.cls->n) {
			fprintf(stderr, "distmpmd: there is no class %ld (%d "
				"classes)\n", cls, s.cls->n);
			r = 2;
		} else
			fputs(s.cls->cls[cls].code, stdout);
		session_free(&s);
		return r;
	}
	if (!r && rank >= s.job->nranks) {
		fprintf(stderr, "distmpmd: rank %ld is not in the mesh (%ld "
			"ranks)\n", rank, s.job->nranks);
		r = 2;
	}
	if (!r) {
		for (i = 0; i < s.cls->n; ++i) {
			int j;
			for (j = 0; j < s.cls->cls[i].n_ranges; ++j)
				if (s.cls->cls[i].ranges[j][0] <= rank &&
				    rank <= s.cls->cls[i].ranges[j][1]) {
					printf("/* ---- common.h ---- */\n");
					fputs(s.cls->common, stdout);
					printf("/* ---- class%d.c ---- */\n",
						i);
					fputs(s.cls->cls[i].code, stdout);
				}
		}
	}
	session_free(&s);
	return r;
}

/* distmpmd check JOB: a summary of the loops and transfers. */
static int cmd_check(int argc, char **argv)
{
	struct session s;
	int r, i;

	if (wants_help(argc, argv)) {
		fputs(usage_check, stdout);
		return 0;
	}
	if (argc != 1 || argv[0][0] == '-')
		return bad_usage(usage_check);
	r = analyse(&s, argv[0], 0);
	if (!r) {
		struct dmd_model *m = s.m;
		int k;

		printf("%s: ok: job %s, %ld ranks\n", argv[0], s.job->name,
			s.job->nranks);
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
		for (i = 0; i < s.plan->n_xfer; ++i) {
			struct dmd_xfer *x = s.plan->xfer[i];
			struct dmd_poly *p = m->poly[x->step];

			printf("transfer %s of %s in step %d at %s: %s", x->name,
				s.job->tensors[x->tensor].name, x->step + 1,
				x->use == DMD_USE_RETURN ? "the end" :
				x->level < 0 ? "the start" :
				p->loops[p->time_loop[x->level]].name,
				dmd_part_kind_name(x->kind));
			if (x->kind == DMD_XFER_BCAST ||
			    x->kind == DMD_XFER_SHIFT)
				printf(" along %s", s.job->axes[x->axis]);
			if (x->ghost)
				printf(" (into ghost cells)");
			if (x->use == DMD_USE_SNAPSHOT)
				printf(" (the values before the step)");
			if (x->use == DMD_USE_REDUCE)
				printf(" (summed over the partial axes)");
			printf("\n");
		}
	}
	session_free(&s);
	return r;
}

/* Dispatch on the command. */
int main(int argc, char **argv)
{
	const char *cmd;

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
	fprintf(stderr, "distmpmd: unknown command '%s'\n\n", cmd);
	fputs(usage_main, stderr);
	return 2;
}
