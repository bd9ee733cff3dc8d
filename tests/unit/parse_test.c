/* parse_test: read a job file with dmd_job_read.
 *
 *	parse_test [--dump] [--again] JOB
 *
 * Exit status 0 if the job is valid (with --dump, a canonical dump of it
 * on stdout), 2 after the error message otherwise (or on bad arguments).
 * With --again the job is read a second time in the same process, which
 * must give the same result (exactly one message if it fails), else the
 * exit status is 1.
 * Build (from the repository root):
 *	cc -Wall -Wextra -Werror -std=gnu11 -I ir tests/unit/parse_test.c \
 *		ir/dmd_parse.c ir/dmd_expr.c ir/dmd_diag.c ir/dmd_int.c \
 *		ir/dmd_job.c ir/dmd_program.c \
 *		$(pkg-config --cflags --libs yaml-0.1 isl)
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmd_diag.h"
#include "dmd_job.h"

/* Print " @LINE:COL" if "loc" is known. */
static void print_loc(struct dmd_loc loc)
{
	if (loc.line > 0)
		printf(" @%d:%d", loc.line, loc.col);
}

/* Print "e" in the job's syntax followed by its location. */
static void print_expr(const struct dmd_expr *e)
{
	char *s = dmd_expr_to_str(e);

	printf("%s", s ? s : "<null>");
	print_loc(e->loc);
	free(s);
}

/* Print every access of "e", with its indices and their isl form. */
static void print_accesses(const struct dmd_expr *e)
{
	int i;

	if (e->type != DMD_EXPR_ACCESS) {
		for (i = 0; i < e->n_arg; ++i)
			print_accesses(e->args[i]);
		return;
	}
	printf("  access ");
	print_expr(e);
	printf("\n");
	for (i = 0; i < e->n_arg; ++i) {
		char *isl = dmd_expr_to_isl(e->args[i]);

		printf("    index %d: ", i);
		print_expr(e->args[i]);
		printf(" isl: %s\n", isl ? isl : "<null>");
		free(isl);
	}
}

/* Print one tensor with all its fields. */
static void print_tensor(const struct dmd_job *job, const struct dmd_tensor *t)
{
	static const char *const dtypes[] = { "f32", "f64" };
	static const char *const splits[] = { "block", "balanced" };
	static const char *const inits[] = { "none", "zeros", "ones",
		"random" };
	int d, i;

	printf("tensor %s", t->name);
	print_loc(t->loc);
	printf("\n  shape [");
	for (d = 0; d < t->ndim; ++d)
		printf("%s%ld", d ? ", " : "", t->shape[d]);
	printf("]\n  dtype %s\n", dtypes[t->dtype]);
	for (d = 0; d < t->ndim; ++d) {
		printf("  dist %d: ", d);
		if (t->dist[d]) {
			char *isl = dmd_expr_to_isl(t->dist[d]);

			print_expr(t->dist[d]);
			printf(" isl: %s", isl ? isl : "<null>");
			free(isl);
		} else
			printf("-");
		printf(" entry");
		print_loc(t->dist_loc[d]);
		printf("\n");
	}
	printf("  split %s\n", splits[t->split]);
	for (d = 0; d < t->ndim; ++d) {
		if (!t->offsets[d])
			continue;
		printf("  offsets %d: [", d);
		for (i = 0; i < t->n_offsets[d]; ++i)
			printf("%s%ld", i ? ", " : "", t->offsets[d][i]);
		printf("]\n");
	}
	for (i = 0; i < t->n_place; ++i)
		printf("  place %s=%ld\n", dmd_job_axis_name(job,
			t->place_axis[i]), t->place_coord[i]);
	if (t->n_partial > 0) {
		printf("  partial");
		for (i = 0; i < t->n_partial; ++i)
			printf(" %s", dmd_job_axis_name(job,
				t->partial_axis[i]));
		print_loc(t->partial_loc);
		printf("\n");
	}
	if (t->view >= 0)
		printf("  view %s\n", job->views[t->view].name);
	printf("  file %s", t->file ? t->file : "-");
	print_loc(t->file_loc);
	printf("\n  init %s\n  seed %llu\n", inits[t->init], t->seed);
}

/* Print one schedule argument. */
static void print_arg(const struct dmd_sched_arg *arg)
{
	int i;

	switch (arg->kind) {
	case DMD_ARG_ID:
		printf("%s", arg->id);
		break;
	case DMD_ARG_INT:
		printf("%ld", arg->ival);
		break;
	case DMD_ARG_LIST:
		printf("[");
		for (i = 0; i < arg->n; ++i) {
			printf("%s%s", i ? ", " : "", arg->ids[i]);
			print_loc(arg->locs[i]);
		}
		printf("]");
		break;
	}
	print_loc(arg->loc);
}

/* Is job->dir the absolute directory of job->path?  (Checked rather than
 * printed, so that dumps do not depend on where the tree is.) */
static int dir_ok(const struct dmd_job *job)
{
	char *copy = strdup(job->path), *full = NULL;
	struct stat s1, s2;
	int ok = 0;

	if (copy && job->dir && job->dir[0] == '/' &&
	    asprintf(&full, "%s/%s", job->dir, basename(copy)) >= 0)
		ok = stat(full, &s1) == 0 && stat(job->path, &s2) == 0 &&
			s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
	free(full);
	free(copy);
	return ok;
}

/* Print one statement with its schedule, each line after "indent". */
static void print_stmt(const char *indent, const struct dmd_expr *lhs,
	int accumulate, const struct dmd_expr *rhs, struct dmd_loc stmt_loc,
	int n_cmds, const struct dmd_sched_cmd *cmds, struct dmd_loc sched_loc,
	int automatic)
{
	static const char *const names[] = { "divide", "split", "reorder",
		"distribute", "rotate", "communicate", "tensorize" };
	int i, j;

	printf("%scompute ", indent);
	print_expr(lhs);
	printf(" %s ", accumulate ? "+=" : "=");
	print_expr(rhs);
	printf(" stmt");
	print_loc(stmt_loc);
	printf("\n");
	print_accesses(lhs);
	print_accesses(rhs);
	printf("%sschedule %d%s", indent, n_cmds, automatic ? " auto" : "");
	print_loc(sched_loc);
	printf("\n");
	for (i = 0; i < n_cmds; ++i) {
		const struct dmd_sched_cmd *cmd = &cmds[i];

		printf("%s  %s", indent, names[cmd->type]);
		print_loc(cmd->loc);
		printf(":");
		for (j = 0; j < cmd->n_args; ++j) {
			printf(" ");
			print_arg(&cmd->args[j]);
		}
		if (cmd->balanced)
			printf(" (balanced)");
		printf("\n");
	}
}

/* Print the steps of a program, nested steps indented by two more. */
static void print_steps(int depth, const struct dmd_step *steps, int n)
{
	char indent[2 * 64 + 1];
	int i, k = depth < 64 ? depth : 64;

	memset(indent, ' ', 2 * k);
	indent[2 * k] = '\0';
	for (i = 0; i < n; ++i) {
		const struct dmd_step *s = &steps[i];

		printf("%sstep %d", indent, i + 1);
		print_loc(s->loc);
		if (s->type == DMD_STEP_REPEAT) {
			printf(" repeat %ld", s->n_repeat);
			print_loc(s->repeat_loc);
			printf("\n");
			print_steps(depth + 1, s->steps, s->n_steps);
			continue;
		}
		printf("\n");
		print_stmt(indent, s->lhs, s->accumulate, s->rhs,
			s->compute_loc, s->n_cmds, s->cmds, s->schedule_loc,
			s->schedule_auto);
	}
}

/* Print the canonical dump of "job". */
static void dump(const struct dmd_job *job)
{
	int i;

	printf("name %s", job->name);
	print_loc(job->name_loc);
	printf("\nmesh");
	for (i = 0; i < job->n_axes; ++i)
		printf(" %s=%ld", job->axes[i], job->mesh_shape[i]);
	printf(" nranks=%ld", job->nranks);
	print_loc(job->mesh_loc);
	for (i = 0; i < job->n_views; ++i) {
		const struct dmd_view *v = &job->views[i];
		int j;

		printf("\nview %s", v->name);
		for (j = 0; j < v->n_axes; ++j)
			printf(" %s=%ld", v->axes[j], v->shape[j]);
		printf(" nranks=%ld", v->nranks);
		print_loc(v->loc);
	}
	if (job->memory) {
		printf("\nmemory %ld", job->memory);
		print_loc(job->memory_loc);
	}
	for (i = 0; job->links_given && i < job->n_axes; ++i)
		printf("\nlink %s latency_us=%g gbps=%g", job->axes[i],
			job->links[i].latency_us, job->links[i].gbps);
	printf("\ndtype %s\n", job->dtype == DMD_F32 ? "f32" : "f64");
	printf("dir %s\n", dir_ok(job) ? "ok" : "WRONG");
	for (i = 0; i < job->n_tensors; ++i)
		print_tensor(job, &job->tensors[i]);
	if (job->is_program) {
		printf("program %d steps", job->n_steps);
		print_loc(job->program_loc);
		printf("\n");
		print_steps(1, job->steps, job->n_steps);
		return;
	}
	print_stmt("", job->steps[0].lhs, job->steps[0].accumulate,
		job->steps[0].rhs, job->steps[0].compute_loc,
		job->steps[0].n_cmds, job->steps[0].cmds,
		job->steps[0].schedule_loc, job->steps[0].schedule_auto);
	if (dmd_job_find_tensor(job, job->steps[0].lhs->name) < 0)
		printf("lookup failed\n");
}

/* The message hook of --again: keep the last message in "user". */
static void keep_message(const char *line, void *user)
{
	char **last = user;

	free(*last);
	*last = strdup(line);
}

/* --again: read "path" once more, in the same process, after a first
 * read that returned "job" (NULL if it failed): the second read must
 * give the same result with exactly one message if it fails (the
 * reader keeps no state from one read to the next).  Returns 0 if so. */
static int read_again(const char *path, struct dmd_job *job)
{
	struct dmd_diag diag;
	struct dmd_job *again;
	char *last = NULL;
	int n, ok;

	dmd_diag_init(&diag, &keep_message, &last);
	again = dmd_job_read(path, &diag);
	n = diag.n_errors;
	ok = !job == !again && n == (again ? 0 : 1);
	if (!ok)
		fprintf(stderr, "parse_test: reading %s again gave %s with %d "
			"message%s (%s)\n", path, again ? "a job" : "no job",
			n, n == 1 ? "" : "s", last ? last : "none");
	free(last);
	dmd_job_free(again);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct dmd_diag diag;
	struct dmd_job *job;
	int do_dump = 0, again = 0;
	const char *path = NULL;
	int i;

	for (i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--dump") == 0)
			do_dump = 1;
		else if (strcmp(argv[i], "--again") == 0)
			again = 1;
		else if (!path)
			path = argv[i];
		else
			path = NULL, i = argc;
	}
	if (!path) {
		fprintf(stderr, "usage: parse_test [--dump] [--again] JOB\n");
		return 2;
	}
	dmd_diag_init(&diag, NULL, NULL);
	job = dmd_job_read(path, &diag);
	if (again && read_again(path, job) < 0) {
		dmd_job_free(job);
		return 1;
	}
	if (!job)
		return 2;
	if (do_dump)
		dump(job);
	dmd_job_free(job);
	return 0;
}
