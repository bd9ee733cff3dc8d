/* dmd_program.c: checks of a job's program as a whole (spec 1.5), on the
 * parsed job, in the order its steps run:
 *   - a step reads a tensor with neither 'file' nor 'init' (an
 *     intermediate) only after an earlier step wrote it;
 *   - a tensor read from its file is not 'partial' (a file holds whole
 *     values, never unreduced partial sums);
 *   - a tensor is not partial along a mesh axis that splits or places it;
 *   - no two tensors the program writes name the same file (one result
 *     would be lost).
 * A "compute" job is a program of one step.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_job.h"

/* The state of the walk: which tensors hold values so far. */
struct dmd_program_walk {
	const struct dmd_job *job;
	char *written;			/* per tensor: a step wrote it */
};

/* Does expression "e" use the mesh axis (or variable) "name"? */
static int dmd_program_mentions(const struct dmd_expr *e, const char *name)
{
	int i;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR && !strcmp(e->name, name))
		return 1;
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_program_mentions(e->args[i], name))
			return 1;
	return 0;
}

/* Check that tensor "t" is not partial along an axis that splits or
 * places it: partial sums along x are summed over x, so every rank along
 * x must hold the same block. */
static int dmd_program_check_partial_axes(const struct dmd_job *job,
	const struct dmd_tensor *t)
{
	int i, d, a;

	for (i = 0; i < t->n_partial; ++i) {
		a = t->partial_axis[i];
		for (d = 0; d < t->ndim; ++d)
			if (dmd_program_mentions(t->dist[d],
					dmd_job_axis_name(job, a)))
				break;
		if (d < t->ndim) {
			dmd_job_error(job, t->partial_loc, "tensor '%s' is "
				"split along mesh axis '%s' (dim %d), so it "
				"cannot be partial along it", t->name,
				dmd_job_axis_name(job, a), d);
			return -1;
		}
		for (d = 0; d < t->n_place; ++d)
			if (t->place_axis[d] == a)
				break;
		if (d < t->n_place) {
			dmd_job_error(job, t->partial_loc, "tensor '%s' is "
				"placed on one coordinate of mesh axis '%s', "
				"so it cannot be partial along it", t->name,
				dmd_job_axis_name(job, a));
			return -1;
		}
	}
	return 0;
}

/* The number of bytes of "s" to show in a message: all of it up to 80
 * bytes, else fewer, cut between two UTF-8 characters. */
static int dmd_program_msg_len(const char *s)
{
	size_t n = strlen(s);

	if (n <= 80)
		return n;
	for (n = 77; n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80; --n)
		;
	return n;
}

/* Check the read of tensor access "e" by a step of a program (or by the
 * statement of a "compute" job when "program" is 0). */
static int dmd_program_check_read(struct dmd_program_walk *w,
	const struct dmd_expr *e, int program)
{
	const struct dmd_job *job = w->job;
	const struct dmd_tensor *t;
	int k;

	k = dmd_job_find_tensor(job, e->name);
	if (k < 0 || w->written[k])
		return 0;
	t = &job->tensors[k];
	if (t->file && t->n_partial > 0) {
		int n = dmd_program_msg_len(t->file);

		dmd_job_error(job, t->partial_loc, "tensor '%s' is read from "
			"its file '%.*s%s', so it cannot be 'partial' (a file "
			"holds whole values)", t->name, n, t->file,
			t->file[n] ? "..." : "");
		return -1;
	}
	if (program && !t->file && t->init == DMD_INIT_NONE) {
		dmd_job_error(job, e->loc, "tensor '%s' is read before any "
			"step writes it, and has neither 'file' nor 'init'",
			t->name);
		return -1;
	}
	return 0;
}

/* Check every tensor read in "e" (right-hand side), left to right. */
static int dmd_program_check_reads(struct dmd_program_walk *w,
	const struct dmd_expr *e, int program)
{
	int i;

	if (e->type == DMD_EXPR_ACCESS)
		return dmd_program_check_read(w, e, program);
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_program_check_reads(w, e->args[i], program) < 0)
			return -1;
	return 0;
}

/* Walk one statement: its reads (the output too with +=), then mark its
 * output written. */
static int dmd_program_check_stmt(struct dmd_program_walk *w,
	const struct dmd_expr *lhs, int accumulate,
	const struct dmd_expr *rhs, int program)
{
	int k;

	if (dmd_program_check_reads(w, rhs, program) < 0)
		return -1;
	if (accumulate && dmd_program_check_read(w, lhs, program) < 0)
		return -1;
	k = dmd_job_find_tensor(w->job, lhs->name);
	if (k >= 0)
		w->written[k] = 1;
	return 0;
}

/* Walk "n" steps in order; a repeat is walked once (its first round
 * decides what is read before it is written). */
static int dmd_program_check_steps(struct dmd_program_walk *w,
	const struct dmd_step *steps, int n)
{
	int i;

	for (i = 0; i < n; ++i) {
		const struct dmd_step *s = &steps[i];

		if (s->type == DMD_STEP_REPEAT) {
			if (dmd_program_check_steps(w, s->steps,
					s->n_steps) < 0)
				return -1;
			continue;
		}
		if (dmd_program_check_stmt(w, s->lhs, s->accumulate, s->rhs,
				w->job->is_program) < 0)
			return -1;
	}
	return 0;
}

/* Append the components of path "p" to the normalised absolute path
 * "out" (of "*len" bytes, room for PATH_MAX + 1): "." and empty
 * components are dropped, ".." removes the last one (lexically).
 * Returns -1 if the result does not fit. */
static int dmd_program_path_append(char *out, size_t *len, const char *p)
{
	while (*p) {
		const char *e = strchrnul(p, '/');
		size_t n = e - p;

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (*len > 0 && out[*len - 1] != '/')
				--*len;
			if (*len > 0)
				--*len;
		} else {
			if (*len + 1 + n > PATH_MAX)
				return -1;
			out[(*len)++] = '/';
			memcpy(out + *len, p, n);
			*len += n;
		}
		p = *e ? e + 1 : e;
	}
	out[*len] = '\0';
	return 0;
}

/* The file that "file" (relative to the job's directory, or absolute)
 * names, as a key: two outputs write the same file exactly when their
 * keys are equal.  An output is written by renaming a new file onto its
 * name, so what matters is the directory it lands in (resolved with
 * realpath when it exists: "d/B.npy" and "link-to-d/B.npy" are the same
 * file) and the last component; a directory that does not exist yet is
 * normalised lexically.  Returns a malloc'ed string, or NULL. */
static char *dmd_program_file_key(const struct dmd_job *job,
	const char *file)
{
	char path[PATH_MAX + 1], *dir, *base, *key = NULL;
	size_t len = 0;

	if (file[0] != '/' && dmd_program_path_append(path, &len, job->dir) < 0)
		return NULL;
	if (dmd_program_path_append(path, &len, file) < 0)
		return NULL;
	base = strrchr(path, '/');
	if (!base)
		return NULL;
	*base++ = '\0';
	dir = realpath(path[0] ? path : "/", NULL);
	if (asprintf(&key, "%s/%s", dir ? dir : path, base) < 0)
		key = NULL;
	free(dir);
	return key;
}

/* Check that no two tensors that the program writes ("written") name the
 * same file (spec 1.5), reporting the second at its 'file'. */
static int dmd_program_check_outputs(const struct dmd_job *job,
	const char *written)
{
	char **key;
	int i, j, r = 0;

	key = calloc(job->n_tensors + 1, sizeof(*key));
	if (!key) {
		dmd_job_error(job, job->program_loc, "out of memory");
		return -1;
	}
	for (i = 0; i < job->n_tensors && r == 0; ++i) {
		const struct dmd_tensor *t = &job->tensors[i];

		if (!written[i] || !t->file)
			continue;
		key[i] = dmd_program_file_key(job, t->file);
		if (!key[i]) {
			dmd_job_error(job, t->file_loc, "the path of 'file' of "
				"tensor '%s' is too long", t->name);
			r = -1;
			break;
		}
		for (j = 0; j < i; ++j) {
			int n;

			if (!key[j] || strcmp(key[i], key[j]))
				continue;
			n = dmd_program_msg_len(t->file);
			dmd_job_error(job, t->file_loc, "tensors '%s' and '%s' "
				"both write file '%.*s%s' (one result would be "
				"lost)", job->tensors[j].name, t->name, n,
				t->file, t->file[n] ? "..." : "");
			r = -1;
			break;
		}
	}
	for (i = 0; i < job->n_tensors; ++i)
		free(key[i]);
	free(key);
	return r;
}

/* Check the program of "job" (see the top of this file).  Returns 0, or
 * -1 after reporting the first problem. */
int dmd_job_check_program(const struct dmd_job *job)
{
	struct dmd_program_walk w = { job, NULL };
	int i, r;

	for (i = 0; i < job->n_tensors; ++i)
		if (dmd_program_check_partial_axes(job, &job->tensors[i]) < 0)
			return -1;
	w.written = calloc(job->n_tensors ? job->n_tensors : 1, 1);
	if (!w.written) {
		dmd_job_error(job, job->program_loc, "out of memory");
		return -1;
	}
	r = dmd_program_check_steps(&w, job->steps, job->n_steps);
	if (r == 0)
		r = dmd_program_check_outputs(job, w.written);
	free(w.written);
	return r;
}
