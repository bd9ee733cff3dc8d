/* dmd_job.c: releasing a parsed job and looking names up in it, with
 * the hash table of names (struct dmd_names) that keeps the look-ups of
 * the reader in constant time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"

/* A set of names, each with a non-negative value: open addressing with
 * linear probing, at most half full.  The names are not owned. */
struct dmd_names {
	size_t n;
	size_t cap;			/* a power of 2, or 0 */
	const char **name;		/* owned array; NULL: empty slot */
	int *val;			/* owned array */
};

/* A new empty set (owned by the caller), or NULL if out of memory. */
struct dmd_names *dmd_names_alloc(void)
{
	return calloc(1, sizeof(struct dmd_names));
}

/* Release "names" (not the names).  Returns NULL. */
struct dmd_names *dmd_names_free(struct dmd_names *names)
{
	if (!names)
		return NULL;
	free(names->name);
	free(names->val);
	free(names);
	return NULL;
}

/* The FNV-1a hash of "s". */
static size_t dmd_names_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; ++s) {
		h ^= (unsigned char) *s;
		h *= 1099511628211ULL;
	}
	return (size_t) h;
}

/* The slot of "name" in "names", or of the empty slot where it would
 * go.  "names" has room. */
static size_t dmd_names_slot(const struct dmd_names *names, const char *name)
{
	size_t mask = names->cap - 1, i = dmd_names_hash(name) & mask;

	while (names->name[i] && strcmp(names->name[i], name) != 0)
		i = (i + 1) & mask;
	return i;
}

/* The value of "name" in "names", or -1 if absent. */
int dmd_names_find(const struct dmd_names *names, const char *name)
{
	size_t i;

	if (!names || !name || names->cap == 0)
		return -1;
	i = dmd_names_slot(names, name);
	return names->name[i] ? names->val[i] : -1;
}

/* The number of names in "names". */
size_t dmd_names_count(const struct dmd_names *names)
{
	return names ? names->n : 0;
}

/* Double the table of "names" (or make its first one). */
static int dmd_names_grow(struct dmd_names *names)
{
	struct dmd_names bigger = { 0 };
	size_t i, j;

	bigger.cap = names->cap ? 2 * names->cap : 16;
	bigger.name = calloc(bigger.cap, sizeof(*bigger.name));
	bigger.val = calloc(bigger.cap, sizeof(*bigger.val));
	if (!bigger.name || !bigger.val)
		goto error;
	for (i = 0; i < names->cap; ++i) {
		if (!names->name[i])
			continue;
		j = dmd_names_slot(&bigger, names->name[i]);
		bigger.name[j] = names->name[i];
		bigger.val[j] = names->val[i];
	}
	free(names->name);
	free(names->val);
	bigger.n = names->n;
	*names = bigger;
	return 0;
error:
	free(bigger.name);
	free(bigger.val);
	return -1;
}

/* Give "name" (not owned: it must outlive "names") the value "val" >= 0
 * in "names", replacing an earlier value.  Returns -1 if out of memory. */
int dmd_names_add(struct dmd_names *names, const char *name, int val)
{
	size_t i;

	if (!names || !name || val < 0)
		return -1;
	if (2 * (names->n + 1) > names->cap && dmd_names_grow(names) < 0)
		return -1;
	i = dmd_names_slot(names, name);
	if (!names->name[i])
		names->n++;
	names->name[i] = name;
	names->val[i] = val;
	return 0;
}

/* Release everything "tensor" owns (not the struct itself). */
static void dmd_job_tensor_clear(struct dmd_tensor *tensor)
{
	int d;

	free(tensor->name);
	for (d = 0; d < DMD_MAX_DIMS; ++d) {
		dmd_expr_free(tensor->dist[d]);
		free(tensor->offsets[d]);
	}
	free(tensor->file);
}

/* Release what the "n" steps at "steps" own, and the array.  Returns
 * NULL. */
static struct dmd_step *dmd_job_steps_free(struct dmd_step *steps, int n)
{
	int i;

	if (!steps)
		return NULL;
	for (i = 0; i < n; ++i) {
		dmd_expr_free(steps[i].lhs);
		dmd_expr_free(steps[i].rhs);
		dmd_step_clear_schedule(&steps[i]);
		dmd_job_steps_free(steps[i].steps, steps[i].n_steps);
	}
	free(steps);
	return NULL;
}

/* Release "job" and everything reachable from it.  Returns NULL. */
struct dmd_job *dmd_job_free(struct dmd_job *job)
{
	int i;

	if (!job)
		return NULL;
	free(job->path);
	free(job->dir);
	free(job->name);
	for (i = 0; i < DMD_MAX_AXES; ++i)
		free(job->axes[i]);
	dmd_job_drop_views(job, 0);
	if (job->tensors)
		for (i = 0; i < job->n_tensors; ++i)
			dmd_job_tensor_clear(&job->tensors[i]);
	free(job->tensors);
	dmd_names_free(job->tensor_names);
	dmd_job_steps_free(job->steps, job->n_steps);
	free(job);
	return NULL;
}

/* Index of the tensor called "name", or -1.  The index of names is used
 * when it holds every tensor. */
int dmd_job_find_tensor(const struct dmd_job *job, const char *name)
{
	int i;

	if (!job || !name || !job->tensors)
		return -1;
	if (job->tensor_names &&
	    dmd_names_count(job->tensor_names) == (size_t) job->n_tensors)
		return dmd_names_find(job->tensor_names, name);
	for (i = 0; i < job->n_tensors; ++i)
		if (job->tensors[i].name &&
		    strcmp(job->tensors[i].name, name) == 0)
			return i;
	return -1;
}

/* Index of the axis called "name", or -1: the mesh axes first, then
 * the axes of each view in order. */
int dmd_job_find_axis(const struct dmd_job *job, const char *name)
{
	int i, v, n;

	if (!job || !name)
		return -1;
	for (i = 0; i < job->n_axes; ++i)
		if (job->axes[i] && strcmp(job->axes[i], name) == 0)
			return i;
	n = job->n_axes;
	for (v = 0; v < job->n_views; ++v) {
		for (i = 0; i < job->views[v].n_axes; ++i)
			if (job->views[v].axes[i] &&
			    strcmp(job->views[v].axes[i], name) == 0)
				return n + i;
		n += job->views[v].n_axes;
	}
	return -1;
}

/* The number of axes of the mesh and of all views. */
int dmd_job_n_all_axes(const struct dmd_job *job)
{
	int v, n = job->n_axes;

	for (v = 0; v < job->n_views; ++v)
		n += job->views[v].n_axes;
	return n;
}

/* The view of axis "a" (-1: the mesh), and its position there in *pos. */
static int dmd_job_axis_locate(const struct dmd_job *job, int a, int *pos)
{
	int v;

	if (a < job->n_axes) {
		*pos = a;
		return -1;
	}
	a -= job->n_axes;
	for (v = 0; v < job->n_views; ++v) {
		if (a < job->views[v].n_axes) {
			*pos = a;
			return v;
		}
		a -= job->views[v].n_axes;
	}
	*pos = -1;
	return -2;
}

/* The view axis "a" belongs to, or -1 for a mesh axis. */
int dmd_job_axis_view(const struct dmd_job *job, int a)
{
	int pos;

	return dmd_job_axis_locate(job, a, &pos);
}

/* The position of axis "a" among the axes of its view (or the mesh). */
int dmd_job_axis_pos(const struct dmd_job *job, int a)
{
	int pos;

	dmd_job_axis_locate(job, a, &pos);
	return pos;
}

/* The name of axis "a". */
const char *dmd_job_axis_name(const struct dmd_job *job, int a)
{
	int pos, v = dmd_job_axis_locate(job, a, &pos);

	if (v == -1)
		return job->axes[pos];
	return v >= 0 ? job->views[v].axes[pos] : "?";
}

/* The extent of axis "a". */
long dmd_job_axis_extent(const struct dmd_job *job, int a)
{
	int pos, v = dmd_job_axis_locate(job, a, &pos);

	if (v == -1)
		return job->mesh_shape[pos];
	return v >= 0 ? job->views[v].shape[pos] : 0;
}

/* The index of axis "pos" of view "v" (v = -1: of the mesh). */
int dmd_job_view_axis(const struct dmd_job *job, int v, int pos)
{
	int i, n = job->n_axes;

	if (v < 0)
		return pos;
	for (i = 0; i < v; ++i)
		n += job->views[i].n_axes;
	return n + pos;
}

/* Index of the view called "name", or -1. */
int dmd_job_find_view(const struct dmd_job *job, const char *name)
{
	int v;

	for (v = 0; job && name && v < job->n_views; ++v)
		if (job->views[v].name && !strcmp(job->views[v].name, name))
			return v;
	return -1;
}

/* A new expression of type "type" with "n_arg" arguments (all NULL). */
static struct dmd_expr *dmd_job_expr(enum dmd_expr_type type, int n_arg)
{
	struct dmd_expr *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->type = type;
	if (n_arg) {
		e->args = calloc(n_arg, sizeof(*e->args));
		if (!e->args) {
			free(e);
			return NULL;
		}
		e->n_arg = n_arg;
	}
	return e;
}

/* Set dimension "d" of "t" to the split over mesh axes axes[0..n) of
 * "job" (see the header): built left to right as
 * ((a0 * e1 + a1) * e2 + a2). */
int dmd_tensor_set_dist_axes(const struct dmd_job *job, struct dmd_tensor *t,
	int d, int n, const int *axes)
{
	struct dmd_expr *e = NULL;
	int i;

	t->dist[d] = dmd_expr_free(t->dist[d]);
	for (i = 0; i < n; ++i) {
		struct dmd_expr *v = dmd_job_expr(DMD_EXPR_VAR, 0);

		if (!v || !(v->name = strdup(job->axes[axes[i]]))) {
			dmd_expr_free(v);
			goto error;
		}
		if (e) {
			struct dmd_expr *mul = dmd_job_expr(DMD_EXPR_MUL, 2);
			struct dmd_expr *c = dmd_job_expr(DMD_EXPR_INT, 0);
			struct dmd_expr *add = dmd_job_expr(DMD_EXPR_ADD, 2);

			if (!mul || !c || !add) {
				dmd_expr_free(mul);
				dmd_expr_free(c);
				dmd_expr_free(add);
				dmd_expr_free(v);
				goto error;
			}
			c->ival = job->mesh_shape[axes[i]];
			mul->args[0] = e;
			mul->args[1] = c;
			add->args[0] = mul;
			add->args[1] = v;
			e = add;
		} else
			e = v;
	}
	t->dist[d] = e;
	return 0;
error:
	dmd_expr_free(e);
	return -1;
}

/* Release the views of "job" from the "nv"-th on (see the header). */
void dmd_job_drop_views(struct dmd_job *job, int nv)
{
	int i, j;

	for (i = nv; i < job->n_views; ++i) {
		free(job->views[i].name);
		for (j = 0; j < job->views[i].n_axes; ++j)
			free(job->views[i].axes[j]);
		memset(&job->views[i], 0, sizeof(job->views[i]));
	}
	job->n_views = nv;
}

/* Release the schedule commands of step "st" (see the header). */
void dmd_step_clear_schedule(struct dmd_step *st)
{
	int j;

	for (j = 0; st->cmds && j < st->n_cmds; ++j)
		dmd_sched_cmd_clear(&st->cmds[j]);
	free(st->cmds);
	st->cmds = NULL;
	st->n_cmds = 0;
}

/* Do accesses "x" and "y" have the same plain indices (see the
 * header)? */
int dmd_expr_same_vars(const struct dmd_expr *x, const struct dmd_expr *y)
{
	int i;

	if (x->n_arg != y->n_arg)
		return 0;
	for (i = 0; i < x->n_arg; ++i)
		if (x->args[i]->type != DMD_EXPR_VAR ||
		    y->args[i]->type != DMD_EXPR_VAR ||
		    strcmp(x->args[i]->name, y->args[i]->name))
			return 0;
	return 1;
}
