/* dmd_search.h: the search room (spec 1.6, first part): schedules for a
 * step that has none (a matrix product; or another step: loop
 * distributions, see dmd_search_handles), chosen by the cost model
 * (partition/dmd_part_cost.c) among candidate algorithms on views of the
 * ranks.
 *
 * A candidate is a view of the ranks (or the mesh itself) and a schedule
 * of the step over it: 1-D on each of the three loops, 2-D with the
 * output's two loops distributed (SUMMA with k panels, Cannon and PUMMA
 * with the panels rotated, or the whole k at once), 3-D with all three
 * distributed (the partial products summed onto the output's holders).
 * Each is estimated in closed form; the best estimated few are analysed
 * exactly as a job whose step had that schedule (the model, the transfer
 * plan and its proofs, the cost); a candidate the analysis refuses is
 * dropped, one whose memory exceeds mesh.memory is rejected; the others
 * keep their estimates.  The declared layouts of the inputs and the
 * output stay as they are: every candidate's cost includes bringing the
 * data from them and returning the results to them.
 *
 * Ownership: dmd_search_step gives a dmd_search that owns its candidates;
 * dmd_search_free releases it and returns NULL.
 */
#ifndef DMD_SEARCH_H
#define DMD_SEARCH_H

#include <isl/ctx.h>

#include "ir/dmd_model.h"
#include "partition/dmd_part.h"
#include "search/dmd_search_est.h"

/* A candidate: its view (NULL: the mesh's axes), its schedule, what it
 * is, the cost of the step with it (unless the analysis refused it:
 * "why" then says why). */
struct dmd_search_cand {
	char *algo;			/* "2-D over m x n (2x4), SUMMA, .." */
	struct dmd_view *view;		/* a new view, or NULL */
	char *view_name;		/* its name (the mesh: NULL) */
	int n_cmds;
	struct dmd_sched_cmd *cmds;
	struct dmd_est_cand est;	/* what the estimate sees of it */
	int costed;			/* analysed exactly */
	int skipped;			/* not analysed ("why" says why) */
	int estimated;			/* not analysed: "fig" estimated */
	int est_over;			/* the estimate exceeds mesh.memory */
	struct dmd_cost_figs fig;	/* the step's figures */
	long long mem_total;		/* the busiest rank's memory */
	char *why;			/* refused: the analysis's message */
	char *rejected;			/* beyond mesh.memory: why */
	int order;			/* made as the order-th (ties) */
};

/* The exact analysis of a candidate: the job's model and transfer plan
 * with its view and schedule, and their cost (the memory that of the
 * busiest rank over the mesh, dmd_part_cost_mesh); all owned, NULL when
 * none. */
struct dmd_search_an {
	struct dmd_model *m;
	struct dmd_plan *plan;
	struct dmd_cost *cost;
};

/* The candidates of one step, best first (refused ones last). */
struct dmd_search {
	int step;			/* poly index */
	int n;
	struct dmd_search_cand *c;
	int best;			/* index of the choice, -1: none */
	struct dmd_search_an kept;	/* the choice's analysis, or none */
};

/* Is step "p" a matrix product the search handles (C[i, j] (+)= A * B,
 * 2-D accesses, one summed loop)?  Without a schedule, it is searched. */
int dmd_search_is_product(const struct dmd_poly *p);
/* Does the search handle step "p": a matrix product (the candidates
 * above), or another step with index variables (a stencil, an
 * element-wise step, another contraction): the empty schedule (owner
 * computes) and the distributions of 1 to 3 of its loops over views of
 * the ranks, the empty schedule kept on a tie. */
int dmd_search_handles(const struct dmd_poly *p);

/* Is step "p" of "job" searched: its schedule is the compiler's to
 * choose (no schedule key, or schedule: auto) and it is a matrix
 * product, or has index variables to distribute and says "schedule:
 * auto", or has no schedule key, is neither a redistribution nor a step
 * on cyclic layouts, and either the closed-form estimate applies to it
 * (dmd_search_est_loops_applies) or it runs on at most
 * DMD_SEARCH_LOOPS_RANKS ranks (see dmd_search.c). */
int dmd_search_wanted(const struct dmd_poly *p, const struct dmd_job *job);

/* Search a schedule for step "step" of "m"'s job (which must have no
 * schedule): the candidates, costed and sorted.  "job" is the model's
 * job, modified while each candidate is analysed and restored after.
 * NULL on error. */
struct dmd_search *dmd_search_step(isl_ctx *ctx, struct dmd_job *job,
	const struct dmd_model *m, int step);
struct dmd_search *dmd_search_free(struct dmd_search *s);

/* Make the choice of "s" part of "job": its view added to the mesh's
 * views (taken from the candidate) and its schedule given to the step
 * (taken).  Returns 0, or -1 (no choice). */
int dmd_search_apply(struct dmd_search *s, struct dmd_job *job,
	struct dmd_step *st);
/* Take the exact analysis of the choice of "s" made while searching
 * (into "an"): that of "job" once dmd_search_apply made the choice part
 * of it, provided no other step's schedule or view changed since this
 * search.  Returns 0, or -1 (none kept: "an" cleared). */
int dmd_search_take(struct dmd_search *s, struct dmd_search_an *an);

#endif
