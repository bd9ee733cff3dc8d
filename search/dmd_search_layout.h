/* dmd_search_layout.h: the layouts of a program's automatic
 * intermediates (spec 1.2 'dist: auto', 1.6), chosen together with the
 * schedules of the steps around them.
 *
 * The automatic tensors are grouped: a step that reads an automatic
 * tensor with exactly the indices with which it writes another one of
 * the same shape (an element-wise step, G[m, n] = gelu(H[m, n])) puts
 * both in one group, which takes one layout (else every choice for one
 * would cost the step a redistribution that the same choice for both
 * avoids).  A group's candidate layouts are every assignment of each
 * mesh axis to one dimension of its tensors or to none (replicated
 * along it), the axes of one dimension in mesh order ("x * 4 + y"),
 * leaving out those that cut a dimension into more blocks than it has
 * elements.  A choice of one layout per group is evaluated as the whole
 * program: the job analysed with those layouts, every step without a
 * schedule searched (search/dmd_search.c), the modeled time of the
 * program (partition/dmd_part_cost.c) within mesh.memory.  Every choice
 * is evaluated when there are at most DMD_LAYOUT_ALL of them; otherwise
 * one group at a time over all of its layouts, the others fixed, until
 * no change lowers the cost (at most DMD_LAYOUT_ROUNDS rounds, and
 * DMD_LAYOUT_MAX_EVALS choices in all).
 *
 * Ownership: dmd_search_layouts gives a dmd_layouts that owns its
 * groups and choices; dmd_layouts_free releases it and returns NULL.
 */
#ifndef DMD_SEARCH_LAYOUT_H
#define DMD_SEARCH_LAYOUT_H

#include "ir/dmd_diag.h"
#include "ir/dmd_job.h"
#include "partition/dmd_part.h"

#define DMD_LAYOUT_ALL		64
#define DMD_LAYOUT_ROUNDS	3
/* The most choices evaluated in all (each is the whole program
 * analysed): beyond, the descent stops with the best so far. */
#define DMD_LAYOUT_MAX_EVALS	128

/* One group of automatic tensors and its candidate layouts: layout l
 * splits dimension d over the mesh axes whose axis[l][a] == d (-1: not
 * split along axis a). */
struct dmd_layout_group {
	int n_members;
	int *members;			/* tensor indices */
	int n_opts;
	int (*axis)[DMD_MAX_AXES];	/* per layout, per mesh axis */
};

/* One evaluated choice: a layout per group, the program's figures (or
 * why it was refused, or why it does not fit mesh.memory). */
struct dmd_layout_choice {
	int *pick;			/* per group: a layout index */
	struct dmd_cost_figs fig;
	char *why;			/* refused: the analysis's message */
	char *rejected;			/* beyond mesh.memory */
	int order;			/* evaluated as the order-th */
};

struct dmd_layouts {
	int n_groups;
	struct dmd_layout_group *g;
	int n;				/* choices evaluated, best first */
	struct dmd_layout_choice *c;
	int best;			/* index of the choice, -1: none */
};

/* Evaluate the job as its layouts are now: the figures of the whole
 * program with its steps' schedules chosen, the job left as it was
 * given (searched schedules and views undone).  DMD_OK with *fig set;
 * DMD_REFUSED with *why (malloc'ed) saying why; DMD_INTERNAL. */
typedef enum dmd_status (*dmd_layouts_eval_fn)(void *user,
	struct dmd_cost_figs *fig, char **why);

/* Does "job" have an automatic layout? */
int dmd_search_has_auto(const struct dmd_job *job);
/* Choose the layouts of the automatic tensors of "job" (see the top),
 * evaluating choices with "eval"; the best one is left set in "job".
 * NULL on error (out of memory, or eval's DMD_INTERNAL). */
struct dmd_layouts *dmd_search_layouts(struct dmd_job *job,
	dmd_layouts_eval_fn eval, void *user);
/* Set the layouts of choice "pick" (a layout index per group) in
 * "job".  Returns 0, or -1 if out of memory. */
int dmd_layouts_set(const struct dmd_layouts *l, struct dmd_job *job,
	const int *pick);
/* The dist of layout "opt" of group "g" as text, "[x, -]" (malloc'ed). */
char *dmd_layouts_str(const struct dmd_layouts *l, const struct dmd_job *job,
	int g, int opt);
struct dmd_layouts *dmd_layouts_free(struct dmd_layouts *l);

#endif
