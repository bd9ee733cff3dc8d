/* dmd_job.c: releasing a parsed job and looking names up in it. */
#include <stdlib.h>
#include <string.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"

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
	int i, j;

	if (!steps)
		return NULL;
	for (i = 0; i < n; ++i) {
		dmd_expr_free(steps[i].lhs);
		dmd_expr_free(steps[i].rhs);
		if (steps[i].cmds)
			for (j = 0; j < steps[i].n_cmds; ++j)
				dmd_sched_cmd_clear(&steps[i].cmds[j]);
		free(steps[i].cmds);
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
	if (job->tensors)
		for (i = 0; i < job->n_tensors; ++i)
			dmd_job_tensor_clear(&job->tensors[i]);
	free(job->tensors);
	dmd_job_steps_free(job->steps, job->n_steps);
	free(job);
	return NULL;
}

/* Index of the tensor called "name", or -1. */
int dmd_job_find_tensor(const struct dmd_job *job, const char *name)
{
	int i;

	if (!job || !name || !job->tensors)
		return -1;
	for (i = 0; i < job->n_tensors; ++i)
		if (job->tensors[i].name &&
		    strcmp(job->tensors[i].name, name) == 0)
			return i;
	return -1;
}

/* Index of the mesh axis called "name", or -1. */
int dmd_job_find_axis(const struct dmd_job *job, const char *name)
{
	int i;

	if (!job || !name)
		return -1;
	for (i = 0; i < job->n_axes; ++i)
		if (job->axes[i] && strcmp(job->axes[i], name) == 0)
			return i;
	return -1;
}
