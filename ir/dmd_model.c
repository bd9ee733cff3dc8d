/* dmd_model.c: the model of a whole program (spec 1.5): the mesh, one
 * layout per tensor, one dmd_poly per compute step, and the tree of
 * steps and repeats in which they run.
 *
 * A v1 job ("compute") is a program of one step.  Per tensor the model
 * says what the program does with it: an input is read (from its file)
 * or initialised before the first step; an output (a tensor with a file
 * that some step writes) is written after the last one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmd_model.h"
#include "dmd_isl.h"

/* What the walk over the steps keeps: the model, the next step number,
 * and per tensor whether a step has written it yet. */
struct dmd_model_walk {
	struct dmd_model *m;
	int next;
	char *written;
};

static int dmd_model_nodes(struct dmd_model_walk *w,
	const struct dmd_step *steps, int n, struct dmd_node **node,
	int *n_node);

/* Mark the tensors read by "e" as used, and as inputs when no step has
 * written them yet. */
static void dmd_model_reads(struct dmd_model_walk *w,
	const struct dmd_expr *e)
{
	int i, t;

	if (e->type == DMD_EXPR_ACCESS) {
		t = dmd_job_find_tensor(w->m->job, e->name);
		if (t >= 0) {
			w->m->use[t].used = 1;
			if (!w->written[t])
				w->m->use[t].input = 1;
		}
		return;
	}
	for (i = 0; i < e->n_arg; ++i)
		dmd_model_reads(w, e->args[i]);
}

/* Mark every tensor that "e" accesses as used. */
static void dmd_model_accessed_expr(const struct dmd_job *job,
	const struct dmd_expr *e, struct dmd_tensor_use *use)
{
	int i, t;

	if (e->type == DMD_EXPR_ACCESS) {
		t = dmd_job_find_tensor(job, e->name);
		if (t >= 0)
			use[t].used = 1;
		return;
	}
	for (i = 0; i < e->n_arg; ++i)
		dmd_model_accessed_expr(job, e->args[i], use);
}

/* Mark every tensor that a step of "steps" (n of them, nested steps too)
 * accesses as used: only those get a layout (the others are only
 * checked), so that unused tensors cost next to nothing. */
static void dmd_model_accessed(const struct dmd_job *job,
	const struct dmd_step *steps, int n, struct dmd_tensor_use *use)
{
	int i;

	for (i = 0; i < n; ++i) {
		if (steps[i].type != DMD_STEP_COMPUTE) {
			dmd_model_accessed(job, steps[i].steps,
				steps[i].n_steps, use);
			continue;
		}
		dmd_model_accessed_expr(job, steps[i].lhs, use);
		dmd_model_accessed_expr(job, steps[i].rhs, use);
	}
}

/* Build the model of compute step "st" into node "node". */
static int dmd_model_step(struct dmd_model_walk *w,
	const struct dmd_step *st, struct dmd_node *node)
{
	struct dmd_model *m = w->m;
	struct dmd_poly **poly;
	int t;

	poly = realloc(m->poly, (m->n_poly + 1) * sizeof(*poly));
	if (!poly)
		return -1;
	m->poly = poly;
	m->poly[m->n_poly] = dmd_poly_build(m->mesh, m->job, m->lay, st,
		w->next);
	if (!m->poly[m->n_poly])
		return -1;
	node->type = DMD_NODE_STEP;
	node->step = m->n_poly++;
	w->next++;
	dmd_model_reads(w, st->rhs);
	t = dmd_job_find_tensor(m->job, st->lhs->name);
	if (st->accumulate)
		dmd_model_reads(w, st->lhs);
	m->use[t].used = 1;
	m->use[t].written = 1;
	w->written[t] = 1;
	return 0;
}

/* Build the nodes of the "n" steps at "steps" into a new array. */
static int dmd_model_nodes(struct dmd_model_walk *w,
	const struct dmd_step *steps, int n, struct dmd_node **node,
	int *n_node)
{
	int i;

	*node = calloc(n, sizeof(**node));
	if (!*node)
		return -1;
	*n_node = n;
	for (i = 0; i < n; ++i) {
		const struct dmd_step *s = &steps[i];
		struct dmd_node *nd = &(*node)[i];

		if (s->type == DMD_STEP_COMPUTE) {
			if (dmd_model_step(w, s, nd) < 0)
				return -1;
			continue;
		}
		nd->type = DMD_NODE_REPEAT;
		nd->n_repeat = s->n_repeat;
		if (dmd_model_nodes(w, s->steps, s->n_steps, &nd->child,
				&nd->n_child) < 0)
			return -1;
	}
	return 0;
}

/* The number of times step "step" runs inside the nodes "node": 0 if it
 * is not there. */
static long dmd_model_count(const struct dmd_node *node, int n, int step)
{
	int i;
	long c;

	for (i = 0; i < n; ++i) {
		if (node[i].type == DMD_NODE_STEP) {
			if (node[i].step == step)
				return 1;
			continue;
		}
		c = dmd_model_count(node[i].child, node[i].n_child, step);
		if (c)
			return c * node[i].n_repeat;
	}
	return 0;
}

/* The number of times step "step" runs. */
long dmd_model_step_count(const struct dmd_model *m, int step)
{
	return dmd_model_count(m->node, m->n_node, step);
}

/* Refuse an output file that exists and is not a regular file (a device,
 * a directory, a FIFO): the output would replace it (issue: /dev/null
 * replaced by a regular file). */
static int dmd_model_check_output(const struct dmd_model *m, int t)
{
	const struct dmd_tensor *tn = &m->job->tensors[t];
	struct stat st;
	char *path;
	size_t n;
	int r = 0;

	if (tn->file[0] == '/')
		path = strdup(tn->file);
	else {
		n = strlen(m->job->dir) + strlen(tn->file) + 2;
		path = malloc(n);
		if (path)
			snprintf(path, n, "%s/%s", m->job->dir, tn->file);
	}
	if (!path)
		return -1;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		dmd_job_error(m->job, tn->file_loc, "output file '%s' of "
			"tensor '%s' exists and is not a regular file", tn->file,
			tn->name);
		r = -1;
	}
	free(path);
	return r;
}

/* Build the model of "job".  Errors are reported against the job file
 * and NULL is returned. */
static __isl_give struct dmd_model *dmd_model_make(isl_ctx *ctx,
	const struct dmd_job *job)
{
	struct dmd_model_walk w = { NULL, 0, NULL };
	struct dmd_model *m;
	int t;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->ctx = ctx;
	m->job = job;
	m->flops = -1;
	w.m = m;
	if (job->nranks > DMD_MAX_RANKS) {
		dmd_job_error(job, job->mesh_loc, "the mesh has %ld ranks; at "
			"most %ld are supported", job->nranks, DMD_MAX_RANKS);
		goto error;
	}
	m->mesh = dmd_mesh_alloc(ctx, job);
	m->lay = calloc(job->n_tensors + 1, sizeof(*m->lay));
	m->use = calloc(job->n_tensors + 1, sizeof(*m->use));
	w.written = calloc(job->n_tensors + 1, 1);
	if (!m->mesh || !m->lay || !m->use || !w.written)
		goto error;
	dmd_model_accessed(job, job->steps, job->n_steps, m->use);
	for (t = 0; t < job->n_tensors; ++t) {
		if (!m->use[t].used) {
			if (dmd_layout_check(m->mesh, job, t) < 0)
				goto error;
			continue;
		}
		m->lay[t] = dmd_layout_build(m->mesh, job, t);
		if (!m->lay[t])
			goto error;
	}
	if (dmd_model_nodes(&w, job->steps, job->n_steps, &m->node,
			&m->n_node) < 0)
		goto error;
	for (t = 0; t < m->n_poly; ++t)
		if (m->poly[t]->flops >= 0)
			m->flops = (m->flops < 0 ? 0 : m->flops) +
				m->poly[t]->flops * dmd_model_step_count(m, t);
	for (t = 0; t < job->n_tensors; ++t) {
		const struct dmd_tensor *tn = &job->tensors[t];

		if (m->use[t].used && tn->init != DMD_INIT_NONE)
			m->use[t].input = 1;
		if (m->use[t].input && !tn->file && tn->init == DMD_INIT_NONE &&
		    job->is_program)
			m->use[t].input = 0;
		m->use[t].output = m->use[t].written && tn->file;
		if (m->use[t].output && dmd_model_check_output(m, t) < 0)
			goto error;
	}
	free(w.written);
	return m;
error:
	free(w.written);
	return dmd_model_free(m);
}

/* Build the model of "job" into *m: DMD_OK; DMD_REFUSED after a message
 * to job->diag (a job the model cannot describe); DMD_INTERNAL. */
enum dmd_status dmd_model_build(isl_ctx *ctx, const struct dmd_job *job,
	__isl_give struct dmd_model **m)
{
	int before = dmd_diag_count(job->diag);

	*m = dmd_model_make(ctx, job);
	return dmd_diag_status(job->diag, before, *m != NULL);
}

/* Release the nodes "node" (n of them). */
static void dmd_model_free_nodes(struct dmd_node *node, int n)
{
	int i;

	if (!node)
		return;
	for (i = 0; i < n; ++i)
		dmd_model_free_nodes(node[i].child, node[i].n_child);
	free(node);
}

/* Release "m" (not the job); returns NULL. */
__isl_null struct dmd_model *dmd_model_free(__isl_take struct dmd_model *m)
{
	int i;

	if (!m)
		return NULL;
	for (i = 0; i < m->n_poly; ++i)
		dmd_poly_free(m->poly[i]);
	free(m->poly);
	if (m->lay)
		for (i = 0; i < m->job->n_tensors; ++i)
			dmd_layout_free(m->lay[i]);
	free(m->lay);
	free(m->use);
	dmd_model_free_nodes(m->node, m->n_node);
	dmd_mesh_free(m->mesh);
	free(m);
	return NULL;
}
