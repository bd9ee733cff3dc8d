#ifndef DMD_PLAN_H
#define DMD_PLAN_H

/* distmpmd plan (spec 2): the schedules and layouts of a job with their
 * modeled cost (partition/dmd_part_cost.c), as text or as one JSON
 * object, and the frozen job.  cmd/dmd_plan.c. */

#include "cmd/dmd_session.h"

struct dmd_plan_opts {
	int json;			/* --json */
	int top;			/* --top N: candidates per step */
	const char *out;		/* -o FILE: the frozen job, or NULL */
};

/* Print the plan of the analysed job "s" (with its cells) and write the
 * frozen job.  Returns the exit status (after a message if not 0). */
int dmd_plan_report(struct dmd_session *s, const struct dmd_plan_opts *o);

/* Refuse a job whose ranks need more memory than mesh.memory (spec 1.1):
 * 0, or 2 after a located message naming the rank, the step and the
 * figures.  Needs the cells (s->cells). */
int dmd_plan_check_memory(struct dmd_session *s);

#endif
