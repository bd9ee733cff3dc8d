/* dmd_search.c: a schedule for a step that has none (spec 1.6), chosen
 * among candidates by their modeled cost; see search/dmd_search.h.  A
 * step that is not a matrix product gets the empty schedule and the
 * distributions of 1 to 3 of its loops as candidates
 * (dmd_search_loops): the empty schedule analysed exactly, the others
 * estimated in closed form (search/dmd_search_est_loops.c) and the best
 * few analysed (dmd_search_prune_loops).
 *
 * For C[i, j] (+)= A * B over P ranks, the views are every ordered
 * factorization of P into one, two or three factors of at least 2 (and,
 * when a slightly smaller count P' >= 0.9 P has more divisors than P, those
 * of P', the other ranks idle: 61 ranks as 3x4x5), and per view:
 *   [P]          1-D: distribute i, or j, or k (a split reduction)
 *   [P1, P2]     2-D: distribute i and j; SUMMA (k in L = lcm(P1, P2)
 *                panels, broadcast at each) or the whole k at once;
 *                the panel loop rotated by the coordinate of an axis of
 *                extent L (PUMMA: one operand shifts around that axis's
 *                ring, the other is broadcast) or, on a square view, by
 *                both (Cannon: both shift)
 *   [P1, P2, P3] 3-D: distribute i, j and k, the layer's k block at once
 *                or (2.5-D) in lcm(P1, P2) panels, at least 4
 * always with tensorize for the local product.  Where a SUMMA or 2.5-D
 * candidate's estimated memory is beyond mesh.memory, the same with
 * twice the panels is added, and so on until one fits
 * (dmd_search_more_panels).  A view equal to the mesh
 * uses the mesh's own axes.  Every candidate is first estimated in
 * closed form (search/dmd_search_est.c: boxes and block arithmetic, no
 * isl beyond reading the declared layouts); then, in the estimates'
 * order, the best few are analysed as the job would be with them (a view
 * added to the mesh, the schedule given to the step): model, transfer
 * plan, proofs, cost, and the memory of the busiest rank over the whole
 * mesh (an upper bound of what its class allocates).  The best is the
 * analysed one of least modeled time within mesh.memory (then of fewest
 * bytes at the busiest receiver).  A candidate whose analysis takes more
 * than DMD_SEARCH_MAX_OPS isl operations is given up ("too costly to
 * analyse", listed by plan with the refused ones); DMD_TIME prints each
 * analysed candidate's analysis time and its estimate.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/dmd_search.h"
#include "search/dmd_search_spec.h"
#include "ir/dmd_diag.h"
#include "ir/dmd_int.h"

/* The isl operations the analysis of one candidate may take: a few
 * seconds (a 64-rank product's 1-D candidates take a tenth of it; views
 * that cut the mesh's axes across, as 2x32 of an 8x8 mesh, take more). */
#define DMD_SEARCH_MAX_OPS	20000000UL

/* The candidates analysed exactly: at most DMD_SEARCH_EXACT, those
 * estimated within DMD_SEARCH_NEAR times the best analysed. */
#define DMD_SEARCH_EXACT	3
#define DMD_SEARCH_NEAR		1.02

/* What a search carries. */
struct dmd_search_build {
	isl_ctx *ctx;
	struct dmd_job *job;
	const struct dmd_model *m;
	const struct dmd_poly *p;
	struct dmd_step *st;		/* the step, modified while analysing */
	const char *iv, *jv, *kv;	/* the loops of i, j, k */
	const char *a, *b;		/* the tensors read */
	struct dmd_search *s;
	char **used;			/* names made up so far */
	int n_used;
	/* the candidate whose analysis s->kept is (until the candidates
	 * are sorted at the end), or NULL */
	const struct dmd_search_cand *kept;
};

/* Does expression "e" read its 2-D plain access? The names of its two
 * index variables in *x, *y. */
static int dmd_search_access(const struct dmd_expr *e, const char **x,
	const char **y)
{
	if (!e || e->type != DMD_EXPR_ACCESS || e->n_arg != 2 ||
	    e->args[0]->type != DMD_EXPR_VAR ||
	    e->args[1]->type != DMD_EXPR_VAR)
		return 0;
	*x = e->args[0]->name;
	*y = e->args[1]->name;
	return strcmp(*x, *y) != 0;
}

/* Does the search handle step "p" (see the header): a matrix product,
 * or a step with index variables to distribute? */
int dmd_search_handles(const struct dmd_poly *p)
{
	return dmd_search_is_product(p) || p->n_vars > 0;
}

/* Is step "p" a matrix product the search handles (see the header)? */
int dmd_search_is_product(const struct dmd_poly *p)
{
	const struct dmd_expr *r = p->st->rhs;
	const char *i, *j, *a0, *a1, *b0, *b1, *k = NULL;
	const char *an[2], *bn[2];
	int x, y, ok;

	if (p->n_vars != 3 || !dmd_search_access(p->st->lhs, &i, &j) ||
	    r->type != DMD_EXPR_MUL ||
	    !dmd_search_access(r->args[0], &a0, &a1) ||
	    !dmd_search_access(r->args[1], &b0, &b1))
		return 0;
	an[0] = a0, an[1] = a1, bn[0] = b0, bn[1] = b1;
	/* the summed variable: in both operands, not in the output */
	for (x = 0; x < 2; ++x)
		for (y = 0; y < 2; ++y)
			if (!strcmp(an[x], bn[y]) && strcmp(an[x], i) &&
			    strcmp(an[x], j))
				k = an[x];
	if (!k)
		return 0;
	/* A has one of i, j and k, B the other and k */
	ok = 0;
	for (x = 0; x < 2; ++x)
		for (y = 0; y < 2; ++y)
			if (!strcmp(an[x], k) && !strcmp(bn[y], k)) {
				const char *ao = an[1 - x], *bo = bn[1 - y];

				ok |= (!strcmp(ao, i) && !strcmp(bo, j)) ||
					(!strcmp(ao, j) && !strcmp(bo, i));
			}
	return ok;
}

/* The most ranks on which a step that is not a matrix product and has
 * no schedule key is searched when its candidates have no closed-form
 * estimate (dmd_search_est_loops_applies: an access that is not affine,
 * a partial layout): each is then analysed exactly (seconds each on 12
 * ranks with cyclic layouts, minutes on 64), so beyond this it keeps the
 * empty schedule unless it says "schedule: auto". */
#define DMD_SEARCH_LOOPS_RANKS	8

/* Is step "st" a redistribution (spec 1.5: B[i, j] = A[i, j], the same
 * plain indices on both sides), whose empty schedule moves the ideal
 * bytes that the spec promises? */
static int dmd_search_is_redistribution(const struct dmd_step *st)
{
	return !st->accumulate && st->rhs->type == DMD_EXPR_ACCESS &&
		dmd_expr_same_vars(st->lhs, st->rhs);
}

/* Is step "p" of "job" searched (see the header)?  The empty schedule
 * (owner computes) is one of the candidates and wins ties.  Without a
 * schedule key, a step whose loop distributions the closed-form
 * estimate does not cover is searched on at most DMD_SEARCH_LOOPS_RANKS
 * ranks; a redistribution keeps the empty schedule (a loop
 * distribution with fewer messages may move more than the ideal
 * bytes). */
int dmd_search_wanted(const struct dmd_poly *p, const struct dmd_job *job)
{
	const struct dmd_step *st = p->st;

	if (!dmd_step_is_auto(st))
		return 0;
	if (dmd_search_is_product(p))
		return 1;
	if (!dmd_search_handles(p))
		return 0;
	if (st->schedule_auto)
		return 1;
	return (job->nranks <= DMD_SEARCH_LOOPS_RANKS ||
		dmd_search_est_loops_applies(p, job)) &&
		!dmd_search_is_redistribution(st);
}

/* Is "name" free for a new loop or view axis? */
static int dmd_search_free_name(struct dmd_search_build *b, const char *name)
{
	int i;

	if (dmd_job_find_axis(b->job, name) >= 0 ||
	    dmd_job_find_tensor(b->job, name) >= 0 ||
	    dmd_job_find_view(b->job, name) >= 0)
		return 0;
	for (i = 0; i < b->p->n_vars; ++i)
		if (!strcmp(b->p->vars[i], name))
			return 0;
	for (i = 0; i < b->n_used; ++i)
		if (!strcmp(b->used[i], name))
			return 0;
	return 1;
}

/* A new name "base", or "base2", "base3", ... that nothing uses yet
 * (kept in b->used; not owned by the caller). */
static const char *dmd_search_name(struct dmd_search_build *b,
	const char *base)
{
	char buf[DMD_MAX_NAME + 16];
	char **u;
	int k;

	snprintf(buf, sizeof(buf), "%s", base);
	for (k = 2; !dmd_search_free_name(b, buf); ++k)
		snprintf(buf, sizeof(buf), "%.*s%d", DMD_MAX_NAME - 8, base, k);
	u = realloc(b->used, (b->n_used + 1) * sizeof(*u));
	if (!u)
		return NULL;
	b->used = u;
	b->used[b->n_used] = strdup(buf);
	return b->used[b->n_used] ? b->used[b->n_used++] : NULL;
}

/* A new command of type "type" with "n" arguments (all zero). */
static int dmd_search_cmd(struct dmd_search_cand *c, enum dmd_cmd_type type,
	int n)
{
	struct dmd_sched_cmd *cmd;

	cmd = realloc(c->cmds, (c->n_cmds + 1) * sizeof(*cmd));
	if (!cmd)
		return -1;
	c->cmds = cmd;
	cmd = &c->cmds[c->n_cmds++];
	memset(cmd, 0, sizeof(*cmd));
	cmd->type = type;
	cmd->args = calloc(n + 1, sizeof(*cmd->args));
	if (!cmd->args)
		return -1;
	cmd->n_args = n;
	return 0;
}

/* Argument "k" of the last command: the name "id". */
static int dmd_search_arg_id(struct dmd_search_cand *c, int k,
	const char *id)
{
	struct dmd_sched_arg *a = &c->cmds[c->n_cmds - 1].args[k];

	a->kind = DMD_ARG_ID;
	a->id = strdup(id);
	return a->id ? 0 : -1;
}

/* Argument "k" of the last command: the integer "v". */
static void dmd_search_arg_int(struct dmd_search_cand *c, int k, long v)
{
	struct dmd_sched_arg *a = &c->cmds[c->n_cmds - 1].args[k];

	a->kind = DMD_ARG_INT;
	a->ival = v;
}

/* Argument "k" of the last command: the list of the "n" names "ids". */
static int dmd_search_arg_list(struct dmd_search_cand *c, int k, int n,
	const char *const *ids)
{
	struct dmd_sched_arg *a = &c->cmds[c->n_cmds - 1].args[k];
	int i;

	a->kind = DMD_ARG_LIST;
	a->ids = calloc(n + 1, sizeof(*a->ids));
	a->locs = calloc(n + 1, sizeof(*a->locs));
	if (!a->ids || !a->locs)
		return -1;
	a->n = n;
	for (i = 0; i < n; ++i) {
		a->ids[i] = strdup(ids[i]);
		if (!a->ids[i])
			return -1;
	}
	return 0;
}

/* Release what candidate "c" owns. */
static void dmd_search_cand_clear(struct dmd_search_cand *c)
{
	int i;

	free(c->algo);
	free(c->view_name);
	if (c->view) {
		free(c->view->name);
		for (i = 0; i < c->view->n_axes; ++i)
			free(c->view->axes[i]);
		free(c->view);
	}
	for (i = 0; i < c->n_cmds; ++i)
		dmd_sched_cmd_clear(&c->cmds[i]);
	free(c->cmds);
	free(c->why);
	free(c->rejected);
	memset(c, 0, sizeof(*c));
}

/* Does "shape" (n extents) equal the mesh's shape? */
static int dmd_search_is_mesh(const struct dmd_job *job, int n,
	const long *shape)
{
	int i;

	if (n != job->n_axes)
		return 0;
	for (i = 0; i < n; ++i)
		if (shape[i] != job->mesh_shape[i])
			return 0;
	return 1;
}

/* The axes of a candidate over "shape" (n extents): the mesh's if it has
 * that shape, else a new view's (made up names into c->view).  Their
 * names in axes[]. */
static int dmd_search_axes(struct dmd_search_build *b,
	struct dmd_search_cand *c, int n, const long *shape,
	const char **axes)
{
	static const char *const base[3] = { "u", "v", "w" };
	char name[64];
	const char *vn;
	long total = 1;
	int i;

	if (dmd_search_is_mesh(b->job, n, shape)) {
		for (i = 0; i < n; ++i)
			axes[i] = b->job->axes[i];
		return 0;
	}
	/* a view of the job of that shape: its axes */
	for (i = 0; i < b->job->n_views; ++i) {
		const struct dmd_view *v = &b->job->views[i];
		int j;

		if (v->n_axes != n)
			continue;
		for (j = 0; j < n && v->shape[j] == shape[j]; ++j)
			;
		if (j < n)
			continue;
		for (j = 0; j < n; ++j)
			axes[j] = v->axes[j];
		c->view_name = strdup(v->name);
		return c->view_name ? 0 : -1;
	}
	c->view = calloc(1, sizeof(*c->view));
	if (!c->view)
		return -1;
	snprintf(name, sizeof(name), "auto");
	for (i = 0; i < n; ++i)
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			"%s%ld", i ? "x" : "", shape[i]);
	vn = dmd_search_name(b, name);
	c->view->name = vn ? strdup(vn) : NULL;
	c->view_name = vn ? strdup(vn) : NULL;
	if (!c->view->name || !c->view_name)
		return -1;
	for (i = 0; i < n; ++i) {
		const char *an = dmd_search_name(b, base[i]);

		c->view->axes[i] = an ? strdup(an) : NULL;
		if (!c->view->axes[i])
			return -1;
		c->view->shape[i] = shape[i];
		c->view->n_axes = i + 1;
		total *= shape[i];
		axes[i] = c->view->axes[i];
	}
	c->view->nranks = total;
	return 0;
}

/* A new candidate at the end of the list (NULL on error). */
static struct dmd_search_cand *dmd_search_new(struct dmd_search_build *b)
{
	struct dmd_search *s = b->s;
	struct dmd_search_cand *c;

	c = realloc(s->c, (s->n + 1) * sizeof(*c));
	if (!c)
		return NULL;
	s->c = c;
	c = &s->c[s->n++];
	memset(c, 0, sizeof(*c));
	return c;
}

/* The loop (0: i, 1: j) besides k of operand "x" (0: A, 1: B) of "b":
 * A has one of i, j and k, B the other (dmd_search_is_product). */
static int dmd_search_operand_loop(struct dmd_search_build *b, int x)
{
	const struct dmd_expr *acc = b->p->st->rhs->args[x];
	int d;

	for (d = 0; d < 2; ++d)
		if (strcmp(acc->args[d]->name, b->kv))
			return strcmp(acc->args[d]->name, b->iv) ? 1 : 0;
	return 0;
}

/* Add the candidate that distributes the loops "dist" (n of them, among
 * i, j, k) over a view of "shape" (n extents), with k in "panels" panels
 * communicated at each (0: none), the panel loop rotated by the view
 * coordinates of the axes in the bit set "rot" (0: none; DISTAL's
 * rotate: panel (t + sum of those coordinates) mod panels at time t). */
static int dmd_search_add(struct dmd_search_build *b, int n,
	const char *const *dist, const long *shape, long panels, int rot)
{
	struct dmd_search_cand *c = dmd_search_new(b);
	const char *axes[3], *outer[3], *inner[3], *order[7], *gemm[3];
	const char *ko = NULL, *ki = NULL, *kr = NULL, *loops[3];
	const char *rv[3];
	char desc[256], suf[64];
	int i, d, r = 0, nr = 0;

	/* names are fresh within a candidate (each is analysed alone) */
	for (i = 0; i < b->n_used; ++i)
		free(b->used[i]);
	b->n_used = 0;
	if (!c || dmd_search_axes(b, c, n, shape, axes) < 0)
		return -1;
	c->est.n = n;
	c->est.panels = panels;
	c->est.rot = panels > 0 ? rot : 0;
	for (i = 0; i < n; ++i) {
		c->est.shape[i] = shape[i];
		c->est.loop[i] = !strcmp(dist[i], b->iv) ? 0 :
			!strcmp(dist[i], b->jv) ? 1 : 2;
	}
	for (i = 0; i < n; ++i) {
		snprintf(suf, sizeof(suf), "%.40so", dist[i]);
		outer[i] = dmd_search_name(b, suf);
		snprintf(suf, sizeof(suf), "%.40si", dist[i]);
		inner[i] = dmd_search_name(b, suf);
		if (!outer[i] || !inner[i])
			return -1;
	}
	r |= dmd_search_cmd(c, DMD_CMD_DISTRIBUTE, 4);
	r |= dmd_search_arg_list(c, 0, n, dist);
	r |= dmd_search_arg_list(c, 1, n, outer);
	r |= dmd_search_arg_list(c, 2, n, inner);
	r |= dmd_search_arg_list(c, 3, n, axes);
	/* the three innermost loops: i, j, k or their inner parts */
	loops[0] = b->iv, loops[1] = b->jv, loops[2] = b->kv;
	for (d = 0; d < 3; ++d) {
		gemm[d] = loops[d];
		for (i = 0; i < n; ++i)
			if (!strcmp(dist[i], loops[d]))
				gemm[d] = inner[i];
	}
	if (panels > 0) {
		const char *comm[2] = { b->a, b->b };

		ko = dmd_search_name(b, "ko");
		ki = dmd_search_name(b, "ki");
		if (!ko || !ki)
			return -1;
		/* k, or its inner part where k is distributed too (2.5-D:
		 * SUMMA within each layer of a 3-D view) */
		r |= dmd_search_cmd(c, DMD_CMD_DIVIDE, 4);
		r |= dmd_search_arg_id(c, 0, gemm[2]);
		r |= dmd_search_arg_id(c, 1, ko);
		r |= dmd_search_arg_id(c, 2, ki);
		dmd_search_arg_int(c, 3, panels);
		for (i = 0; i < n; ++i)
			order[i] = outer[i];
		order[n] = ko;
		order[n + 1] = gemm[0];
		order[n + 2] = gemm[1];
		order[n + 3] = ki;
		gemm[2] = ki;
		r |= dmd_search_cmd(c, DMD_CMD_REORDER, n + 4);
		for (i = 0; i < n + 4; ++i)
			r |= dmd_search_arg_id(c, i, order[i]);
		for (i = 0; i < n; ++i)
			if (c->est.rot >> i & 1)
				rv[nr++] = outer[i];
		if (nr > 0) {
			kr = dmd_search_name(b, "kor");
			if (!kr)
				return -1;
			r |= dmd_search_cmd(c, DMD_CMD_ROTATE, 3);
			r |= dmd_search_arg_id(c, 0, ko);
			r |= dmd_search_arg_list(c, 1, nr, rv);
			r |= dmd_search_arg_id(c, 2, kr);
		}
		r |= dmd_search_cmd(c, DMD_CMD_COMMUNICATE, 2);
		r |= dmd_search_arg_list(c, 0, strcmp(b->a, b->b) ? 2 : 1,
			comm);
		r |= dmd_search_arg_id(c, 1, nr > 0 ? kr : ko);
	}
	r |= dmd_search_cmd(c, DMD_CMD_TENSORIZE, 2);
	r |= dmd_search_arg_list(c, 0, 3, gemm);
	r |= dmd_search_arg_id(c, 1, "gemm");
	if (n == 1)
		snprintf(desc, sizeof(desc), "1-D over %s (%ld ranks)",
			dist[0], shape[0]);
	else if (n == 2 && nr > 0) {
		/* Cannon: both operands shift; PUMMA: the one named shifts,
		 * the other is broadcast */
		int sa = dmd_search_est_shifts(&c->est,
			dmd_search_operand_loop(b, 0));

		snprintf(desc, sizeof(desc), "2-D over %s x %s (%ldx%ld), "
			"%s%.40s%s", dist[0], dist[1], shape[0], shape[1],
			nr == 2 ? "Cannon" : "PUMMA, ", nr == 2 ? "" :
			sa ? b->a : b->b, nr == 2 ? "" : " shifts");
	} else if (n == 2)
		snprintf(desc, sizeof(desc), "2-D over %s x %s (%ldx%ld), "
			"%s", dist[0], dist[1], shape[0], shape[1],
			panels ? "SUMMA" : "the whole k at once");
	else
		/* with panels: 2.5-D, SUMMA within each layer along k */
		snprintf(desc, sizeof(desc), "%s over %s x %s x %s "
			"(%ldx%ldx%ld)", panels ? "2.5-D" : "3-D", dist[0],
			dist[1], dist[2], shape[0], shape[1], shape[2]);
	if (panels > 0)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
			", %ld panels of %s", panels, b->kv);
	if (c->view) {
		long idle = b->job->nranks - c->view->nranks;

		if (idle > 0)
			snprintf(desc + strlen(desc), sizeof(desc) -
				strlen(desc), ", %ld rank%s idle", idle,
				idle == 1 ? "" : "s");
	}
	c->algo = strdup(desc);
	return r || !c->algo ? -1 : 0;
}

/* Add the candidate that distributes the loops "dist" (n of them, any
 * of the step's index variables) over a view of "shape" (n extents),
 * and nothing else: the loop distribution of a step that is not a
 * matrix product (a stencil, an element-wise step, another contraction:
 * a summed variable distributed gives partial results summed onto the
 * output's holders). */
static int dmd_search_add_loops(struct dmd_search_build *b, int n,
	const char *const *dist, const long *shape)
{
	struct dmd_search_cand *c = dmd_search_new(b);
	const char *axes[3], *outer[3], *inner[3];
	char desc[256], suf[64];
	int i, r = 0;

	for (i = 0; i < b->n_used; ++i)
		free(b->used[i]);
	b->n_used = 0;
	if (!c || dmd_search_axes(b, c, n, shape, axes) < 0)
		return -1;
	c->est.n = n;
	for (i = 0; i < n; ++i) {
		int v;

		c->est.shape[i] = shape[i];
		for (v = 0; v < b->p->n_vars; ++v)
			if (!strcmp(b->p->vars[v], dist[i]))
				c->est.loop[i] = v;
	}
	for (i = 0; i < n; ++i) {
		snprintf(suf, sizeof(suf), "%.40so", dist[i]);
		outer[i] = dmd_search_name(b, suf);
		snprintf(suf, sizeof(suf), "%.40si", dist[i]);
		inner[i] = dmd_search_name(b, suf);
		if (!outer[i] || !inner[i])
			return -1;
	}
	r |= dmd_search_cmd(c, DMD_CMD_DISTRIBUTE, 4);
	r |= dmd_search_arg_list(c, 0, n, dist);
	r |= dmd_search_arg_list(c, 1, n, outer);
	r |= dmd_search_arg_list(c, 2, n, inner);
	r |= dmd_search_arg_list(c, 3, n, axes);
	snprintf(desc, sizeof(desc), "%d-D over ", n);
	for (i = 0; i < n; ++i)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
			"%s%s", i ? " x " : "", dist[i]);
	for (i = 0; i < n; ++i)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc),
			"%s%ld", i ? "x" : " (", shape[i]);
	snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), ")");
	if (c->view) {
		long idle = b->job->nranks - c->view->nranks;

		if (idle > 0)
			snprintf(desc + strlen(desc), sizeof(desc) -
				strlen(desc), ", %ld rank%s idle", idle,
				idle == 1 ? "" : "s");
	}
	c->algo = strdup(desc);
	return r || !c->algo ? -1 : 0;
}

/* Add the candidate that keeps the empty schedule: each iteration on
 * the ranks that hold the element it writes (spec 1.4's owner
 * computes). */
static int dmd_search_add_owner(struct dmd_search_build *b)
{
	struct dmd_search_cand *c = dmd_search_new(b);

	if (!c)
		return -1;
	c->algo = strdup("owner computes (the empty schedule)");
	return c->algo ? 0 : -1;
}

/* The loop distributions of a step that is not a matrix product over
 * views of "P" ranks: every set of 1 to 3 of its index variables, in the
 * order of the step, over every ordered factorization of P into as many
 * factors of at least 2 (1 factor: P itself). */
static int dmd_search_loops(struct dmd_search_build *b, long P)
{
	const struct dmd_poly *p = b->p;
	int nv = p->n_vars, v1, v2, v3;
	long a, c;

	for (v1 = 0; v1 < nv; ++v1) {
		const char *d1[1] = { p->vars[v1] };
		long s1[1] = { P };

		if (P >= 2 && dmd_search_add_loops(b, 1, d1, s1) < 0)
			return -1;
		for (v2 = v1 + 1; v2 < nv; ++v2) {
			const char *d2[2] = { p->vars[v1], p->vars[v2] };

			for (a = 2; a <= P / 2; ++a) {
				long s2[2] = { a, P / a };

				if (P % a == 0 &&
				    dmd_search_add_loops(b, 2, d2, s2) < 0)
					return -1;
			}
			for (v3 = v2 + 1; v3 < nv; ++v3) {
				const char *d3[3] = { p->vars[v1],
					p->vars[v2], p->vars[v3] };

				for (a = 2; a <= P / 4; ++a)
					for (c = 2; P % a == 0 &&
					     c <= P / a / 2; ++c) {
						long s3[3] = { a, c,
							P / a / c };

						if ((P / a) % c == 0 &&
						    dmd_search_add_loops(b, 3,
							d3, s3) < 0)
							return -1;
					}
			}
		}
	}
	return 0;
}


/* The number of divisors of "n". */
static int dmd_search_divisors(long n)
{
	int k = 0;
	long d;

	for (d = 1; d * d <= n; ++d)
		if (n % d == 0)
			k += d * d == n ? 1 : 2;
	return k;
}

/* The extent of the loop k of product "b". */
static long dmd_search_k_extent(const struct dmd_search_build *b)
{
	int v;

	for (v = 0; v < b->p->n_vars; ++v)
		if (!strcmp(b->p->vars[v], b->kv))
			return b->p->var_extent[v];
	return 1;
}

/* The candidates over views of "P" ranks. */
static int dmd_search_views(struct dmd_search_build *b, long P)
{
	const char *ij[2] = { b->iv, b->jv }, *ijk[3] = { b->iv, b->jv,
		b->kv };
	long s1[1] = { P }, s2[2], s3[3], a, c, l;
	long K = dmd_search_k_extent(b);
	int v, rot;

	for (v = 0; v < 3; ++v) {
		const char *one[1] = { ijk[v] };

		if (dmd_search_add(b, 1, one, s1, 0, 0) < 0)
			return -1;
	}
	for (a = 2; a <= P / 2; ++a) {
		if (P % a)
			continue;
		s2[0] = a, s2[1] = P / a;
		l = dmd_int_lcm(a, P / a);
		if (dmd_search_add(b, 2, ij, s2, 0, 0) < 0)
			return -1;
		if (l > K)
			continue;
		if (dmd_search_add(b, 2, ij, s2, l, 0) < 0)
			return -1;
		/* rotated by the coordinates along which a panel's operand
		 * can shift around the ring: l panels on an axis of l
		 * ranks (Cannon on a square view, PUMMA on either axis of
		 * P1 x P2 whose extent is the lcm) */
		for (rot = 1; rot <= 3; ++rot)
			if ((!(rot & 1) || l == s2[0]) &&
			    (!(rot & 2) || l == s2[1]) &&
			    dmd_search_add(b, 2, ij, s2, l, rot) < 0)
				return -1;
	}
	for (a = 2; a <= P / 4; ++a) {
		if (P % a)
			continue;
		for (c = 2; c <= P / a / 2; ++c) {
			if ((P / a) % c)
				continue;
			s3[0] = a, s3[1] = c, s3[2] = P / a / c;
			if (dmd_search_add(b, 3, ijk, s3, 0, 0) < 0)
				return -1;
			/* 2.5-D: the layer's k block in panels, a multiple
			 * of lcm(a, c) and at least 4, communicated at each:
			 * the same bytes, more messages, and less memory than
			 * the whole block (two panels are held at a time, the
			 * next one received while the last is multiplied) */
			l = dmd_int_lcm(a, c);
			l *= (4 + l - 1) / l;
			if (l <= (K + s3[2] - 1) / s3[2] &&
			    dmd_search_add(b, 3, ijk, s3, l, 0) < 0)
				return -1;
		}
	}
	return 0;
}

/* The isl operations one candidate's analysis may take: a positive
 * integer in DMD_SEARCH_QUOTA (for experiments), else
 * DMD_SEARCH_MAX_OPS. */
static unsigned long dmd_search_quota(void)
{
	return (unsigned long) dmd_int_env("DMD_SEARCH_QUOTA", 1, LONG_MAX,
		DMD_SEARCH_MAX_OPS);
}

/* The seconds since "t0" (CLOCK_MONOTONIC). */
static double dmd_search_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + 1e-9 * (t.tv_nsec - t0->tv_nsec);
}

/* Analyse candidate "c": the job with its view and the step with its
 * schedule, then restored.  The analysis (model, plan and cost) is given
 * in "an" if "c" is costed (else freed, "an" cleared). */
static void dmd_search_eval(struct dmd_search_build *b,
	struct dmd_search_cand *c, struct dmd_search_an *an)
{
	struct dmd_job *job = b->job;
	struct dmd_sched_cmd *saved = b->st->cmds;
	int n_saved = b->st->n_cmds, nv = job->n_views;
	struct dmd_proofs proofs = { 0 };
	struct dmd_model *m = NULL;
	struct dmd_plan *plan = NULL;
	struct dmd_cost *cost = NULL;
	struct dmd_diag diag, *saved_diag = job->diag;
	int quota;

	if (c->view) {
		if (nv >= DMD_MAX_VIEWS) {
			c->why = strdup("the job has too many views");
			return;
		}
		job->views[nv] = *c->view;
		job->n_views = nv + 1;
	}
	b->st->cmds = c->cmds;
	b->st->n_cmds = c->n_cmds;
	/* the analysis's messages are the candidate's, not the job's */
	dmd_diag_init(&diag, &dmd_diag_keep_first, &c->why);
	job->diag = &diag;
	/* a candidate whose analysis would take too long is given up (a
	 * count of isl operations: the same choice on every machine) */
	isl_ctx_reset_operations(b->ctx);
	isl_ctx_set_max_operations(b->ctx, dmd_search_quota());
	if (dmd_model_build(b->ctx, job, &m) == DMD_OK)
		dmd_part_plan(m, &plan);
	if (plan && dmd_part_verify(plan, &proofs) != DMD_OK)
		plan = dmd_part_plan_free(plan);
	if (plan)
		cost = dmd_part_cost_mesh(plan);
	quota = isl_ctx_last_error(b->ctx) == isl_error_quota;
	isl_ctx_set_max_operations(b->ctx, 0);
	job->diag = saved_diag;
	if (quota && !cost) {
		free(c->why);
		c->why = strdup("too costly to analyse (isl operation "
			"quota)");
	}
	dmd_part_proofs_clear(&proofs);
	if (!cost) {
		plan = dmd_part_plan_free(plan);
		m = dmd_model_free(m);
	}
	b->st->cmds = saved;
	b->st->n_cmds = n_saved;
	if (c->view) {
		memset(&job->views[nv], 0, sizeof(job->views[nv]));
		job->n_views = nv;
	}
	isl_ctx_reset_error(b->ctx);
	if (!cost) {
		if (!c->why)
			c->why = strdup("the analysis failed");
		return;
	}
	c->costed = 1;
	c->fig = cost->step[b->s->step];
	c->mem_total = cost->total.mem_max;
	if (job->memory && cost->total.mem_max > job->memory &&
	    asprintf(&c->rejected, "rank %ld needs %lld bytes, more than "
			"mesh.memory (%ld bytes)", cost->total.mem_rank,
			cost->total.mem_max, job->memory) < 0)
		c->rejected = NULL;
	an->m = m;
	an->plan = plan;
	an->cost = cost;
}

/* The group of candidate "c" in the order of the candidates: analysed
 * and within memory, analysed beyond it, estimated only, refused. */
static int dmd_search_rank(const struct dmd_search_cand *c)
{
	if (c->costed)
		return c->rejected ? 1 : 0;
	return c->estimated ? 2 : 3;
}

/* The order of the candidates: analysed and within memory first, by
 * modeled time, then by bytes at the busiest receiver; then the ones
 * analysed beyond mesh.memory, the ones only estimated (by their
 * estimate), the refused ones. */
static int dmd_search_cmp(const void *x, const void *y)
{
	const struct dmd_search_cand *a = x, *b = y;
	int ra = dmd_search_rank(a), rb = dmd_search_rank(b);

	if (ra != rb)
		return ra - rb;
	if (!a->costed && !a->estimated)
		return 0;
	if (a->fig.time_s != b->fig.time_s)
		return a->fig.time_s < b->fig.time_s ? -1 : 1;
	if (a->fig.bytes_recv_max != b->fig.bytes_recv_max)
		return a->fig.bytes_recv_max < b->fig.bytes_recv_max ? -1 : 1;
	if (a->n_cmds != b->n_cmds)
		return a->n_cmds - b->n_cmds;
	return a->order - b->order;
}

/* The order of the candidates by their estimates: within mesh.memory
 * first, by estimated time, then bytes at the busiest receiver, then as
 * they were made. */
static int dmd_search_cmp_est(const void *x, const void *y)
{
	const struct dmd_search_cand *a = x, *b = y;

	if (a->est_over != b->est_over)
		return a->est_over - b->est_over;
	if (a->fig.time_s != b->fig.time_s)
		return a->fig.time_s < b->fig.time_s ? -1 : 1;
	if (a->fig.bytes_recv_max != b->fig.bytes_recv_max)
		return a->fig.bytes_recv_max < b->fig.bytes_recv_max ? -1 : 1;
	return a->order - b->order;
}

/* The most candidates the search analyses exactly (DMD_SEARCH_EXACT in
 * the environment overrides; 0: all of them). */
static int dmd_search_exact(void)
{
	return (int) dmd_int_env("DMD_SEARCH_EXACT", 0, INT_MAX,
		DMD_SEARCH_EXACT);
}

/* Release the analysis "an" (cleared). */
static void dmd_search_an_clear(struct dmd_search_an *an)
{
	an->cost = dmd_part_cost_free(an->cost);
	an->plan = dmd_part_plan_free(an->plan);
	an->m = dmd_model_free(an->m);
}

/* Keep the analysis "an" of candidate "c" (taken) if "c" is the best
 * analysed within memory so far (by dmd_search_cmp, the final order),
 * else release it: the session takes the kept one for the choice
 * instead of analysing the job again (dmd_search_take). */
static void dmd_search_keep(struct dmd_search_build *b,
	struct dmd_search_cand *c, struct dmd_search_an *an)
{
	struct dmd_search *s = b->s;

	if (!an->cost || c->rejected || (b->kept &&
	    dmd_search_cmp(c, b->kept) >= 0)) {
		dmd_search_an_clear(an);
		return;
	}
	dmd_search_an_clear(&s->kept);
	s->kept = *an;
	b->kept = c;
	memset(an, 0, sizeof(*an));
}

/* Analyse candidate "c" exactly (timed, with its estimate, for
 * DMD_TIME), keeping its analysis if it is the best so far, or, "ahead"
 * (in a child of dmd_search_spec.c), only its figures. */
static void dmd_search_eval_timed(struct dmd_search_build *b,
	struct dmd_search_cand *c, int ahead)
{
	struct dmd_search_an an = { NULL, NULL, NULL };
	struct dmd_cost_figs est = c->fig;
	int estimated = c->estimated;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	c->estimated = 0;
	dmd_search_eval(b, c, &an);
	if (ahead)
		dmd_search_an_clear(&an);
	else
		dmd_search_keep(b, c, &an);
	if (!getenv("DMD_TIME"))
		return;
	fprintf(stderr, "distmpmd: search: %s%s%s: %.3f s%s", c->algo,
		c->why ? ": " : "", c->why ? c->why : "",
		dmd_search_since(&t0), ahead ? " (ahead)" : "");
	if (estimated)
		fprintf(stderr, " (estimated %.4g s, %lld B max, %lld msgs; "
			"exact %.4g s, %lld B max, %lld msgs)", est.time_s,
			est.bytes_recv_max, est.messages, c->fig.time_s,
			c->fig.bytes_recv_max, c->fig.messages);
	fprintf(stderr, "\n");
}

/* The index in s of the 3-D twin of 2.5-D candidate "c" (the same view
 * and distribution, the whole k block at once; see dmd_search_twin_fits),
 * or -1: "c" is not 2.5-D, or has none. */
static int dmd_search_twin(const struct dmd_search *s,
	const struct dmd_search_cand *c)
{
	int i, d;

	if (c->est.n != 3 || c->est.panels == 0)
		return -1;
	for (i = 0; i < s->n; ++i) {
		const struct dmd_search_cand *t = &s->c[i];

		if (t->est.n != 3 || t->est.panels != 0)
			continue;
		for (d = 0; d < 3; ++d)
			if (t->est.loop[d] != c->est.loop[d] ||
			    t->est.shape[d] != c->est.shape[d])
				break;
		if (d == 3)
			return i;
	}
	return -1;
}

/* Analyse candidate "c" ahead, in a child ("user": the search build). */
static void dmd_search_eval_ahead(struct dmd_search_cand *c, void *user)
{
	dmd_search_eval_timed(user, c, 1);
}

/* Start analysing ahead, in children (search/dmd_search_spec.c), the
 * candidates dmd_search_analyse_best is likely to analyse after
 * candidate "first" (which it analyses itself): the next k - 1 of them
 * estimated within DMD_SEARCH_NEAR of the first's estimate and of "best"
 * (the best time analysed before, -1: none), but for a 2.5-D one whose
 * 3-D twin comes before it estimated within mesh.memory (the twin is
 * likely to fit: dmd_search_twin_fits).  NULL: none. */
static struct dmd_spec *dmd_search_ahead(struct dmd_search_build *b,
	int first, int k, double best)
{
	struct dmd_search *s = b->s;
	int idx[DMD_SEARCH_EXACT], n = 0, i, jobs;
	double ref;

	jobs = dmd_search_spec_jobs();
	if (k <= 1 || jobs < 2 || first >= s->n)
		return NULL;
	ref = s->c[first].fig.time_s;
	if (best >= 0 && best < ref)
		ref = best;
	for (i = first + 1; i < s->n && n < k - 1 && n < DMD_SEARCH_EXACT;
	     ++i) {
		int t = dmd_search_twin(s, &s->c[i]);

		if (s->c[i].fig.time_s > ref * DMD_SEARCH_NEAR)
			break;
		if (t >= first && t < i && !s->c[t].est_over)
			continue;
		idx[n++] = i;
	}
	return dmd_search_spec_start(s->c, idx, n, jobs,
		&dmd_search_eval_ahead, b);
}

/* Analyse candidate "c" (the i-th) exactly: its figures taken from the
 * child that analysed it ahead ("sp", NULL: none), unless it is the best
 * analysed so far: then (or where no child did) analysed here, its
 * analysis kept for the build (dmd_search_keep). */
static void dmd_search_analyse(struct dmd_search_build *b,
	struct dmd_spec *sp, int i)
{
	struct dmd_search_cand *c = &b->s->c[i];
	struct dmd_cost_figs est = c->fig;

	if (dmd_search_spec_take(sp, i, c)) {
		if (!c->costed || c->rejected || (b->kept &&
		    dmd_search_cmp(c, b->kept) >= 0))
			return;
		c->costed = 0;
		c->estimated = 1;
		c->fig = est;
		free(c->why);
		c->why = NULL;
	}
	dmd_search_eval_timed(b, c, 0);
}

/* Is candidate "c" 2.5-D (its k block in panels within each layer of a
 * 3-D view) whose 3-D twin (the same view and distribution, the whole
 * block at once) was analysed and fits in mesh.memory?  Then it is not
 * analysed: the panels only save memory.  Over the same view the two
 * receive the same elements at each rank (those of its blocks of A and
 * B that it does not hold: exactly once with the whole block, at least
 * once with panels), in more messages (a piece per panel) and with the
 * same flops; the model does not overlap transfers and computation, so
 * the twin is never slower (checked with every candidate analysed, on
 * shapes that do not divide and on meshes with mesh.links:
 * doc/design-notes.md). */
static int dmd_search_twin_fits(const struct dmd_search *s,
	const struct dmd_search_cand *c)
{
	int t = dmd_search_twin(s, c);

	return t >= 0 && s->c[t].costed && !s->c[t].rejected;
}

/* Analyse exactly, in their order (by their estimates), the candidates
 * "first" .. s->n - 1: the first, then the next ones whose estimated
 * time is within DMD_SEARCH_NEAR of the best analysed so far ("best":
 * the best time analysed before, -1: none), at most DMD_SEARCH_EXACT of
 * them (once one is analysed within mesh.memory: until then every next
 * one, but no more than DMD_SEARCH_EXACT that the analysis refuses or
 * gives up: each of those may have taken the whole operation quota).
 * A 2.5-D candidate whose 3-D twin fits is passed over
 * (dmd_search_twin_fits; unless every candidate is to be analysed,
 * DMD_SEARCH_EXACT=0).  The others keep their estimates.  The next few
 * are analysed ahead in children meanwhile (dmd_search_ahead): the same
 * decisions, sooner. */
static void dmd_search_analyse_best(struct dmd_search_build *b, int first,
	double best)
{
	struct dmd_search *s = b->s;
	int i, k = dmd_search_exact(), n = 0, failed = 0;
	struct dmd_spec *sp = dmd_search_ahead(b, first, k, best);

	for (i = first; i < s->n; ++i) {
		struct dmd_search_cand *c = &s->c[i];

		if (k > 0 && n > 0 && ((best >= 0 && (n >= k ||
		    c->fig.time_s > best * DMD_SEARCH_NEAR)) || failed >= k))
			break;
		if (k > 0 && dmd_search_twin_fits(s, c)) {
			c->skipped = 1;
			c->why = strdup("not analysed: 3-D on this view fits "
				"in memory (2.5-D only saves memory)");
			continue;
		}
		dmd_search_analyse(b, sp, i);
		++n;
		failed += !c->costed;
		if (c->costed && !c->rejected &&
		    (best < 0 || c->fig.time_s < best))
			best = c->fig.time_s;
	}
	dmd_search_spec_free(sp);
}

/* Candidate "c" as estimated (its figures in c->fig): beyond mesh.memory
 * if its estimated memory is. */
static void dmd_search_estimated(const struct dmd_search_build *b,
	struct dmd_search_cand *c)
{
	c->estimated = 1;
	c->est_over = b->job->memory && c->fig.mem_max > b->job->memory;
}

/* Candidate "c" (the i-th of b->s) with twice its panels, added at the
 * end and estimated with "e", if it is SUMMA within a 2-D view or 2.5-D
 * (panels, not rotated: a rotated panel loop shifts around a ring of as
 * many ranks as panels) whose estimated memory is beyond mesh.memory and
 * whose k block (within a layer, for 2.5-D) has room for twice the
 * panels.  Held two at a time, panels take memory in inverse proportion
 * to their count: e.g. 2.5-D on 4x4x4 for 8192^3 in 4 panels needs 92
 * MiB at a rank, in 8 panels 72 MiB.  The new candidate comes after
 * every other, so a chain of doublings ends at the first that fits. */
static int dmd_search_more_panels(struct dmd_search_build *b,
	struct dmd_est *e, int i)
{
	struct dmd_search *s = b->s;
	const char *ijk[3] = { b->iv, b->jv, b->kv }, *dist[3];
	struct dmd_est_cand est = s->c[i].est;
	long K = dmd_search_k_extent(b), shape[3];
	struct dmd_search_cand *c;
	int d;

	if (!s->c[i].est_over || est.panels == 0 || est.rot)
		return 0;
	if (est.n == 3)
		K = (K + est.shape[2] - 1) / est.shape[2];
	if (2 * est.panels > K)
		return 0;
	for (d = 0; d < est.n; ++d) {
		dist[d] = ijk[est.loop[d]];
		shape[d] = est.shape[d];
	}
	if (dmd_search_add(b, est.n, dist, shape, 2 * est.panels, 0) < 0)
		return -1;
	c = &s->c[s->n - 1];
	c->order = s->n - 1;
	dmd_search_est(e, &c->est, &c->fig);
	dmd_search_estimated(b, c);
	return 0;
}

/* Estimate every candidate (search/dmd_search_est.c), with more panels
 * where memory is short (dmd_search_more_panels), then analyse the best
 * few exactly (dmd_search_analyse_best). */
static int dmd_search_prune(struct dmd_search_build *b)
{
	struct dmd_search *s = b->s;
	struct dmd_est *e;
	int i;

	e = dmd_search_est_new(b->m, b->p, b->iv, b->jv, b->kv);
	if (!e)
		return -1;
	for (i = 0; i < s->n; ++i) {
		struct dmd_search_cand *c = &s->c[i];

		if (!c->estimated) {
			dmd_search_est(e, &c->est, &c->fig);
			dmd_search_estimated(b, c);
		}
		if (dmd_search_more_panels(b, e, i) < 0) {
			dmd_search_est_free(e);
			return -1;
		}
	}
	dmd_search_est_free(e);
	qsort(s->c, s->n, sizeof(*s->c), &dmd_search_cmp_est);
	dmd_search_analyse_best(b, 0, -1);
	return 0;
}

/* The candidates of a step that is not a matrix product: the empty
 * schedule (the first) analysed exactly, always.  When the step has no
 * schedule key and the empty schedule moves nothing, the others are not
 * analysed: they could only trade bytes for a better spread of its flops
 * (spec 1.6 asks the least modeled time: see doc/design-notes.md for
 * what this gives up).  Else the loop distributions are estimated in
 * closed form (search/dmd_search_est_loops.c) and the best few analysed
 * (dmd_search_analyse_best, the empty schedule's time the best so far);
 * where the estimate does not apply, every one is analysed. */
static int dmd_search_prune_loops(struct dmd_search_build *b)
{
	struct dmd_search *s = b->s;
	struct dmd_search_cand *c0 = &s->c[0];
	struct dmd_est_loops *e;
	int i;

	dmd_search_eval_timed(b, c0, 0);
	if (!b->st->schedule_auto && c0->costed && !c0->rejected &&
	    c0->fig.bytes_recv_max == 0) {
		for (i = 1; i < s->n; ++i) {
			s->c[i].skipped = 1;
			s->c[i].why = strdup("not analysed: the empty "
				"schedule moves nothing");
		}
		return 0;
	}
	e = dmd_search_est_loops_new(b->m, b->p);
	if (!e) {
		for (i = 1; i < s->n; ++i)
			dmd_search_eval_timed(b, &s->c[i], 0);
		return 0;
	}
	for (i = 1; i < s->n; ++i) {
		struct dmd_search_cand *c = &s->c[i];

		dmd_search_est_loops(e, &c->est, &c->fig);
		dmd_search_estimated(b, c);
	}
	dmd_search_est_loops_free(e);
	if (s->n > 1)
		qsort(s->c + 1, s->n - 1, sizeof(*s->c), &dmd_search_cmp_est);
	dmd_search_analyse_best(b, 1, c0->costed && !c0->rejected ?
		c0->fig.time_s : -1);
	return 0;
}

/* The loops i, j, k and the tensors of product step "p". */
static void dmd_search_roles(struct dmd_search_build *b)
{
	const struct dmd_expr *lhs = b->p->st->lhs, *r = b->p->st->rhs;
	int v;

	b->iv = lhs->args[0]->name;
	b->jv = lhs->args[1]->name;
	b->kv = NULL;
	for (v = 0; v < b->p->n_vars; ++v)
		if (strcmp(b->p->vars[v], b->iv) &&
		    strcmp(b->p->vars[v], b->jv))
			b->kv = b->p->vars[v];
	b->a = r->args[0]->name;
	b->b = r->args[1]->name;
}

/* Search step "step" (see the header). */
struct dmd_search *dmd_search_step(isl_ctx *ctx, struct dmd_job *job,
	const struct dmd_model *m, int step)
{
	struct dmd_search_build b = { ctx, job, m, m->poly[step],
		(struct dmd_step *) m->poly[step]->st, NULL, NULL, NULL,
		NULL, NULL, NULL, NULL, 0, NULL };
	long P = job->nranks, Q, best = 0;
	int i, r, kept;

	b.s = calloc(1, sizeof(*b.s));
	if (!b.s)
		return NULL;
	b.s->step = step;
	b.s->best = -1;
	if (dmd_search_is_product(b.p)) {
		dmd_search_roles(&b);
		r = b.kv ? dmd_search_views(&b, P) : -1;
	} else
		r = dmd_search_add_owner(&b) < 0 ? -1 :
			dmd_search_loops(&b, P);
	/* views of slightly fewer ranks with more factorizations */
	for (Q = P - 1; r == 0 && Q >= (9 * P + 9) / 10 && Q > 1; --Q)
		if (dmd_search_divisors(Q) > dmd_search_divisors(P) &&
		    (!best || dmd_search_divisors(Q) >
			      dmd_search_divisors(best)))
			best = Q;
	if (r == 0 && best)
		r = b.kv ? dmd_search_views(&b, best) :
			dmd_search_loops(&b, best);
	for (i = 0; i < b.s->n; ++i)
		b.s->c[i].order = i;
	/* estimated, the best few analysed */
	if (r == 0)
		r = b.kv ? dmd_search_prune(&b) : dmd_search_prune_loops(&b);
	for (i = 0; i < b.n_used; ++i)
		free(b.used[i]);
	free(b.used);
	if (r < 0)
		return dmd_search_free(b.s);
	kept = b.kept ? b.kept->order : -1;
	qsort(b.s->c, b.s->n, sizeof(*b.s->c), &dmd_search_cmp);
	if (b.s->n && b.s->c[0].costed && !b.s->c[0].rejected)
		b.s->best = 0;
	/* the analysis kept is the choice's (the same order) */
	if (b.s->best < 0 || b.s->c[0].order != kept)
		dmd_search_an_clear(&b.s->kept);
	return b.s;
}

/* Make the choice of "s" part of "job" (see the header). */
int dmd_search_apply(struct dmd_search *s, struct dmd_job *job,
	struct dmd_step *st)
{
	struct dmd_search_cand *c;

	if (!s || s->best < 0)
		return -1;
	c = &s->c[s->best];
	if (c->view) {
		if (job->n_views >= DMD_MAX_VIEWS)
			return -1;
		job->views[job->n_views++] = *c->view;
		free(c->view);
		c->view = NULL;
		/* the candidate still names its view: by the job's copy */
	}
	st->cmds = c->cmds;
	st->n_cmds = c->n_cmds;
	c->cmds = NULL;
	c->n_cmds = 0;
	return 0;
}

/* Take the analysis of the choice of "s" (see the header). */
int dmd_search_take(struct dmd_search *s, struct dmd_search_an *an)
{
	memset(an, 0, sizeof(*an));
	if (!s || s->best < 0 || !s->kept.cost)
		return -1;
	*an = s->kept;
	memset(&s->kept, 0, sizeof(s->kept));
	return 0;
}

/* Release "s"; returns NULL. */
struct dmd_search *dmd_search_free(struct dmd_search *s)
{
	int i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n; ++i)
		dmd_search_cand_clear(&s->c[i]);
	free(s->c);
	dmd_search_an_clear(&s->kept);
	free(s);
	return NULL;
}
