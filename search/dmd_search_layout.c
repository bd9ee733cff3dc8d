/* dmd_search_layout.c: the layouts of the automatic intermediates of a
 * program, chosen with the schedules of its steps (spec 1.6); see
 * search/dmd_search_layout.h.
 *
 * For an MLP H[m, n] = X[m, k] * W1[k, n]; G = gelu(H); Y = G * W2 with
 * H and G automatic on a mesh [x]: one group {H, G}, layouts [-, -],
 * [x, -] and [-, x]; each is the program analysed with its three steps
 * searched, and the one of least modeled time is kept.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/dmd_search_layout.h"

/* What a layout search carries. */
struct dmd_layout_build {
	struct dmd_job *job;
	struct dmd_layouts *l;
	int *parent;			/* union-find over the tensors */
	dmd_layouts_eval_fn eval;
	void *user;
	int cap;			/* of l->c */
};

/* Does "job" have an automatic layout (see the header)? */
int dmd_search_has_auto(const struct dmd_job *job)
{
	int i;

	for (i = 0; i < job->n_tensors; ++i)
		if (job->tensors[i].dist_auto)
			return 1;
	return 0;
}

/* The root of tensor "t" in the union-find of "b". */
static int dmd_layout_find(struct dmd_layout_build *b, int t)
{
	while (b->parent[t] != t)
		t = b->parent[t] = b->parent[b->parent[t]];
	return t;
}

/* Join the output of a step, written by access "lhs", with every
 * automatic tensor of the same shape that "e" reads with the same
 * indices. */
static void dmd_layout_join_expr(struct dmd_layout_build *b,
	const struct dmd_expr *lhs, const struct dmd_expr *e)
{
	const struct dmd_job *job = b->job;
	int i, t, u;

	if (e->type == DMD_EXPR_ACCESS) {
		t = dmd_job_find_tensor(job, lhs->name);
		u = dmd_job_find_tensor(job, e->name);
		if (t < 0 || u < 0 || t == u ||
		    !job->tensors[t].dist_auto || !job->tensors[u].dist_auto ||
		    job->tensors[t].ndim != job->tensors[u].ndim ||
		    memcmp(job->tensors[t].shape, job->tensors[u].shape,
			job->tensors[t].ndim * sizeof(long)) ||
		    !dmd_expr_same_vars(lhs, e))
			return;
		b->parent[dmd_layout_find(b, t)] = dmd_layout_find(b, u);
		return;
	}
	for (i = 0; i < e->n_arg; ++i)
		dmd_layout_join_expr(b, lhs, e->args[i]);
}

/* Join the tensors that the steps "st" (n of them, repeats entered)
 * link element-wise. */
static void dmd_layout_join_steps(struct dmd_layout_build *b,
	const struct dmd_step *st, int n)
{
	int i;

	for (i = 0; i < n; ++i) {
		if (st[i].type == DMD_STEP_REPEAT)
			dmd_layout_join_steps(b, st[i].steps, st[i].n_steps);
		else if (st[i].lhs && st[i].rhs)
			dmd_layout_join_expr(b, st[i].lhs, st[i].rhs);
	}
}

/* Add to group "g" every layout of its tensors (of "ndim" dimensions of
 * extents "shape"): each mesh axis on one dimension or none, a
 * dimension cut into at most its extent blocks.  Axis assignments are
 * counted in base ndim + 1, the first axis slowest, "none" first: the
 * replicated layout first, then [-, x], [x, -], ... */
static int dmd_layout_opts(struct dmd_layout_build *b,
	struct dmd_layout_group *g, int ndim, const long *shape)
{
	const struct dmd_job *job = b->job;
	int k = job->n_axes, a, d;
	long n = 1, code;

	for (a = 0; a < k; ++a)
		n *= ndim + 1;
	g->axis = calloc(n, sizeof(*g->axis));
	if (!g->axis)
		return -1;
	for (code = 0; code < n; ++code) {
		long blocks[DMD_MAX_DIMS], c = code;
		int *axis = g->axis[g->n_opts], ok = 1;

		for (d = 0; d < ndim; ++d)
			blocks[d] = 1;
		for (a = k - 1; a >= 0; --a) {
			axis[a] = (int) (c % (ndim + 1)) - 1;
			c /= ndim + 1;
			if (axis[a] >= 0)
				blocks[axis[a]] *= job->mesh_shape[a];
		}
		for (d = 0; d < ndim; ++d)
			ok &= blocks[d] <= shape[d];
		if (ok)
			g->n_opts++;
	}
	return 0;
}

/* The groups of the automatic tensors of b->job, with their layouts. */
static int dmd_layout_groups(struct dmd_layout_build *b)
{
	struct dmd_job *job = b->job;
	struct dmd_layouts *l = b->l;
	int i, j;

	b->parent = malloc(job->n_tensors * sizeof(int));
	l->g = calloc(job->n_tensors, sizeof(*l->g));
	if (!b->parent || !l->g)
		return -1;
	for (i = 0; i < job->n_tensors; ++i)
		b->parent[i] = i;
	dmd_layout_join_steps(b, job->steps, job->n_steps);
	for (i = 0; i < job->n_tensors; ++i) {
		struct dmd_layout_group *g;
		const struct dmd_tensor *t = &job->tensors[i];

		if (!t->dist_auto || dmd_layout_find(b, i) != i)
			continue;
		g = &l->g[l->n_groups++];
		g->members = malloc(job->n_tensors * sizeof(int));
		if (!g->members)
			return -1;
		for (j = 0; j < job->n_tensors; ++j)
			if (job->tensors[j].dist_auto &&
			    dmd_layout_find(b, j) == i)
				g->members[g->n_members++] = j;
		if (dmd_layout_opts(b, g, t->ndim, t->shape) < 0)
			return -1;
	}
	return 0;
}

/* Set the layouts of "pick" in "job" (see the header). */
int dmd_layouts_set(const struct dmd_layouts *l, struct dmd_job *job,
	const int *pick)
{
	int g, m, d, a;

	for (g = 0; g < l->n_groups; ++g) {
		const int *axis = l->g[g].axis[pick[g]];

		for (m = 0; m < l->g[g].n_members; ++m) {
			struct dmd_tensor *t = &job->tensors[l->g[g].members[m]];

			t->view = -1;
			for (d = 0; d < t->ndim; ++d) {
				int axes[DMD_MAX_AXES], n = 0;

				for (a = 0; a < job->n_axes; ++a)
					if (axis[a] == d)
						axes[n++] = a;
				if (dmd_tensor_set_dist_axes(job, t, d, n,
						axes) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* The dist of layout "opt" of group "g" as text (see the header). */
char *dmd_layouts_str(const struct dmd_layouts *l, const struct dmd_job *job,
	int g, int opt)
{
	const struct dmd_tensor *t = &job->tensors[l->g[g].members[0]];
	const int *axis = l->g[g].axis[opt];
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int d, a;

	if (!f)
		return NULL;
	fputc('[', f);
	for (d = 0; d < t->ndim; ++d) {
		int n = 0;

		fputs(d ? ", " : "", f);
		for (a = 0; a < job->n_axes; ++a) {
			if (axis[a] != d)
				continue;
			if (n++)
				fprintf(f, " * %ld + ", job->mesh_shape[a]);
			fputs(job->axes[a], f);
		}
		if (!n)
			fputc('-', f);
	}
	fputc(']', f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Is choice "x" better than "y": within memory before beyond it, then
 * less modeled time, fewer bytes at the busiest receiver, evaluated
 * earlier?  Refused choices come last. */
static int dmd_layout_cmp(const void *xv, const void *yv)
{
	const struct dmd_layout_choice *x = xv, *y = yv;
	int rx = x->why ? 2 : x->rejected ? 1 : 0;
	int ry = y->why ? 2 : y->rejected ? 1 : 0;

	if (rx != ry)
		return rx - ry;
	if (rx < 2 && x->fig.time_s != y->fig.time_s)
		return x->fig.time_s < y->fig.time_s ? -1 : 1;
	if (rx < 2 && x->fig.bytes_recv_max != y->fig.bytes_recv_max)
		return x->fig.bytes_recv_max < y->fig.bytes_recv_max ? -1 : 1;
	return x->order - y->order;
}

/* The choice "pick" among those evaluated, or NULL. */
static struct dmd_layout_choice *dmd_layout_seen(struct dmd_layout_build *b,
	const int *pick)
{
	int i;

	for (i = 0; i < b->l->n; ++i)
		if (!memcmp(b->l->c[i].pick, pick,
				b->l->n_groups * sizeof(int)))
			return &b->l->c[i];
	return NULL;
}

/* Evaluate choice "pick" (once): the job with its layouts, by b->eval.
 * Returns the choice, or NULL on error. */
static struct dmd_layout_choice *dmd_layout_eval(struct dmd_layout_build *b,
	const int *pick)
{
	struct dmd_layouts *l = b->l;
	struct dmd_layout_choice *c = dmd_layout_seen(b, pick);
	enum dmd_status st;

	if (c)
		return c;
	if (l->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		struct dmd_layout_choice *more;

		more = realloc(l->c, cap * sizeof(*l->c));
		if (!more)
			return NULL;
		l->c = more;
		b->cap = cap;
	}
	c = &l->c[l->n];
	memset(c, 0, sizeof(*c));
	c->pick = malloc(l->n_groups * sizeof(int));
	if (!c->pick)
		return NULL;
	memcpy(c->pick, pick, l->n_groups * sizeof(int));
	c->order = l->n++;
	if (dmd_layouts_set(l, b->job, pick) < 0)
		return NULL;
	st = b->eval(b->user, &c->fig, &c->why);
	if (st == DMD_INTERNAL)
		return NULL;
	if (st == DMD_REFUSED && !c->why)
		c->why = strdup("the analysis refused it");
	if (st == DMD_OK && b->job->memory &&
	    c->fig.mem_max > b->job->memory &&
	    asprintf(&c->rejected, "rank %ld needs %lld bytes, more than "
			"mesh.memory (%ld bytes)", c->fig.mem_rank,
			c->fig.mem_max, b->job->memory) < 0)
		c->rejected = NULL;
	return c;
}

/* The number of choices (capped at DMD_LAYOUT_ALL + 1). */
static long dmd_layout_count(const struct dmd_layouts *l)
{
	long n = 1;
	int g;

	for (g = 0; g < l->n_groups && n <= DMD_LAYOUT_ALL; ++g)
		n *= l->g[g].n_opts;
	return n;
}

/* Evaluate every choice (odometer order, the last group fastest). */
static int dmd_layout_all(struct dmd_layout_build *b, int *pick)
{
	struct dmd_layouts *l = b->l;
	int g;

	for (;;) {
		if (!dmd_layout_eval(b, pick))
			return -1;
		for (g = l->n_groups - 1; g >= 0; --g) {
			if (++pick[g] < l->g[g].n_opts)
				break;
			pick[g] = 0;
		}
		if (g < 0)
			return 0;
	}
}

/* Is choice "x" strictly better than "y" (either may be NULL: none)? */
static int dmd_layout_better(const struct dmd_layout_choice *x,
	const struct dmd_layout_choice *y)
{
	if (!x)
		return 0;
	if (!y)
		return 1;
	return dmd_layout_cmp(x, y) < 0 && x->order != y->order;
}

/* Improve one group at a time: each over all its layouts, the others
 * fixed at the best so far, until a round changes nothing. */
static int dmd_layout_descend(struct dmd_layout_build *b, int *pick)
{
	struct dmd_layouts *l = b->l;
	int round, g, o, changed = 1;
	struct dmd_layout_choice best;

	if (!dmd_layout_eval(b, pick))
		return -1;
	best = *dmd_layout_seen(b, pick);
	for (round = 0; changed && round < DMD_LAYOUT_ROUNDS; ++round) {
		changed = 0;
		for (g = 0; g < l->n_groups; ++g) {
			int keep = pick[g];

			for (o = 0; o < l->g[g].n_opts &&
			     l->n < DMD_LAYOUT_MAX_EVALS; ++o) {
				struct dmd_layout_choice *c;

				pick[g] = o;
				c = dmd_layout_eval(b, pick);
				if (!c)
					return -1;
				if (dmd_layout_better(c, &best)) {
					best = *c;
					keep = o;
					changed = 1;
				}
			}
			pick[g] = keep;
		}
	}
	return 0;
}

/* Choose the layouts of the automatic tensors of "job" (see the
 * header). */
struct dmd_layouts *dmd_search_layouts(struct dmd_job *job,
	dmd_layouts_eval_fn eval, void *user)
{
	struct dmd_layout_build b = { job, NULL, NULL, eval, user, 0 };
	int *pick = NULL, r = -1;

	b.l = calloc(1, sizeof(*b.l));
	if (!b.l)
		return NULL;
	b.l->best = -1;
	if (dmd_layout_groups(&b) < 0)
		goto done;
	pick = calloc(b.l->n_groups + 1, sizeof(int));
	if (!pick)
		goto done;
	if (dmd_layout_count(b.l) <= DMD_LAYOUT_ALL)
		r = dmd_layout_all(&b, pick);
	else
		r = dmd_layout_descend(&b, pick);
	if (r < 0)
		goto done;
	qsort(b.l->c, b.l->n, sizeof(*b.l->c), &dmd_layout_cmp);
	if (b.l->n && !b.l->c[0].why && !b.l->c[0].rejected)
		b.l->best = 0;
	r = dmd_layouts_set(b.l, job, b.l->n ? b.l->c[0].pick : pick);
done:
	free(pick);
	free(b.parent);
	if (r < 0)
		return dmd_layouts_free(b.l);
	return b.l;
}

/* Release "l"; returns NULL. */
struct dmd_layouts *dmd_layouts_free(struct dmd_layouts *l)
{
	int i;

	if (!l)
		return NULL;
	for (i = 0; i < l->n_groups; ++i) {
		free(l->g[i].members);
		free(l->g[i].axis);
	}
	for (i = 0; i < l->n; ++i) {
		free(l->c[i].pick);
		free(l->c[i].why);
		free(l->c[i].rejected);
	}
	free(l->g);
	free(l->c);
	free(l);
	return NULL;
}
