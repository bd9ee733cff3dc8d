/* dmd_plan.c: distmpmd plan JOB [--json] [--top N] [-o FILE] (spec 2).
 *
 * A matrix-product step whose schedule is the compiler's to choose (no
 * 'schedule' key, or 'schedule: auto') gets the best of the candidates of
 * search/dmd_search.c, listed (the best N) with their figures; the job is
 * then analysed again with the choices.  For a job whose schedules and
 * layouts are all written out, the plan is the job itself.  Either way
 * it reports the cost (partition/dmd_part_cost.c): per step the
 * schedule, the view it is distributed over, bytes moved (summed over
 * the receivers), the busiest receiver, messages, the flops and memory of
 * the busiest rank and the modeled time, every figure over all runs of
 * the step; the same for the whole program; the layout of every tensor.
 * The candidates of an explicit step are its one schedule.  "-o FILE"
 * writes the frozen job: the job file loaded and emitted by libyaml with
 * the choices made explicit (the search's views under mesh.views, the
 * schedules of the searched steps; comments dropped, "file" paths
 * unchanged, so they name files relative to FILE's directory), under a
 * temporary name then renamed; never over the job file itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "cmd/dmd_plan.h"
#include "cmd/dmd_svg.h"
#include "search/dmd_search.h"

/* Why a candidate only estimated was not analysed although its time
 * is lower: the estimate of its busiest rank's memory is beyond
 * mesh.memory (the search analyses those last, if at all). */
#define DMD_PLAN_EST_OVER "its estimated memory is beyond mesh.memory"

/* The name of schedule command type "t". */
static const char *dmd_plan_cmd_name(enum dmd_cmd_type t)
{
	switch (t) {
	case DMD_CMD_DIVIDE: return "divide";
	case DMD_CMD_SPLIT: return "split";
	case DMD_CMD_REORDER: return "reorder";
	case DMD_CMD_DISTRIBUTE: return "distribute";
	case DMD_CMD_ROTATE: return "rotate";
	case DMD_CMD_COMMUNICATE: return "communicate";
	case DMD_CMD_TENSORIZE: return "tensorize";
	}
	return "?";
}

/* Schedule command "c" as text, "divide(k, ko, ki, 8)" (malloc'ed). */
static char *dmd_plan_cmd_str(const struct dmd_sched_cmd *c)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	int i, j;

	if (!f)
		return NULL;
	fprintf(f, "%s(", dmd_plan_cmd_name(c->type));
	for (i = 0; i < c->n_args; ++i) {
		const struct dmd_sched_arg *a = &c->args[i];

		fprintf(f, "%s", i ? ", " : "");
		if (a->kind == DMD_ARG_ID)
			fprintf(f, "%s", a->id);
		else if (a->kind == DMD_ARG_INT)
			fprintf(f, "%ld", a->ival);
		else {
			fprintf(f, "[");
			for (j = 0; j < a->n; ++j)
				fprintf(f, "%s%s", j ? ", " : "", a->ids[j]);
			fprintf(f, "]");
		}
	}
	fprintf(f, ")");
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Print "s" as a JSON string. */
static void dmd_plan_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; ++s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The view (or NULL for the mesh) a step is distributed over. */
static const char *dmd_plan_view(const struct dmd_job *job, int v)
{
	return v < 0 ? NULL : job->views[v].name;
}

/* Why a step whose figures are "f" does not fit mesh.memory
 * (malloc'ed). */
static char *dmd_plan_rejected(const struct dmd_job *job,
	const struct dmd_cost_figs *f)
{
	char *s;

	if (asprintf(&s, "rank %ld needs %lld bytes, more than mesh.memory "
			"(%ld bytes)", f->mem_rank, f->mem_max,
			job->memory) < 0)
		return NULL;
	return s;
}

/* The figures of "f" as JSON members (after a member: ", ..."). */
static void dmd_plan_json_figs(FILE *f, const struct dmd_cost_figs *c,
	int step)
{
	fprintf(f, "\"bytes_moved_total\": %lld, \"bytes_recv_max\": %lld, "
		"\"messages\": %lld, ", c->bytes_moved_total,
		c->bytes_recv_max, c->messages);
	if (step)
		fprintf(f, "\"flops_max\": %lld, ", c->flops_max);
	fprintf(f, "\"mem_max\": %lld, \"model_time_s\": %.6g",
		c->mem_max, c->time_s);
}

/* The schedule of step "st" as a JSON array of strings. */
static int dmd_plan_json_sched(FILE *f, const struct dmd_step *st)
{
	int i;

	fputc('[', f);
	for (i = 0; i < st->n_cmds; ++i) {
		char *c = dmd_plan_cmd_str(&st->cmds[i]);

		if (!c)
			return -1;
		fprintf(f, "%s", i ? ", " : "");
		dmd_plan_json_str(f, c);
		free(c);
	}
	fputc(']', f);
	return 0;
}

/* The layout of tensor "t" as JSON: dist, view, partial, and its cyclic
 * dimensions' block sizes when it has some ("cyclic": {"0": 2}). */
static int dmd_plan_json_layout(FILE *f, const struct dmd_job *job,
	const struct dmd_tensor *t)
{
	int d;

	fputs("{\"dist\": [", f);
	for (d = 0; d < t->ndim; ++d) {
		char *e = t->dist[d] ? dmd_expr_to_str(t->dist[d]) :
			strdup("-");

		if (!e)
			return -1;
		fprintf(f, "%s", d ? ", " : "");
		dmd_plan_json_str(f, e);
		free(e);
	}
	fputs("], \"view\": ", f);
	if (t->view >= 0)
		dmd_plan_json_str(f, job->views[t->view].name);
	else
		fputs("null", f);
	fputs(", \"partial\": [", f);
	for (d = 0; d < t->n_partial; ++d) {
		fprintf(f, "%s", d ? ", " : "");
		dmd_plan_json_str(f, dmd_job_axis_name(job,
			t->partial_axis[d]));
	}
	fputs("]", f);
	if (t->n_cyclic) {
		int n = 0;

		fputs(", \"cyclic\": {", f);
		for (d = 0; d < t->ndim; ++d)
			if (t->cyclic[d])
				fprintf(f, "%s\"%d\": %ld", n++ ? ", " : "",
					d, t->cyclic[d]);
		fputs("}", f);
	}
	fprintf(f, ", \"auto\": %s}", t->dist_auto ? "true" : "false");
	return 0;
}

/* The choices of layouts of "l" as JSON (at most "top"): per choice the
 * dist of every automatic tensor, the figures of the whole program,
 * whether it was chosen and why it was rejected. */
static int dmd_plan_json_layouts(FILE *f, const struct dmd_job *job,
	const struct dmd_layouts *l, int top)
{
	int k, g, m;

	fputs(", \"layout_candidates\": [", f);
	for (k = 0; l && k < l->n && k < top; ++k) {
		const struct dmd_layout_choice *c = &l->c[k];

		fputs(k ? ", {\"dist\": {" : "{\"dist\": {", f);
		for (g = 0; g < l->n_groups; ++g)
			for (m = 0; m < l->g[g].n_members; ++m) {
				char *d = dmd_layouts_str(l, job, g,
					c->pick[g]);

				if (!d)
					return -1;
				fputs(g || m ? ", " : "", f);
				dmd_plan_json_str(f, job->tensors[
					l->g[g].members[m]].name);
				fputs(": ", f);
				dmd_plan_json_str(f, d);
				free(d);
			}
		fputs("}, ", f);
		if (!c->why)
			dmd_plan_json_figs(f, &c->fig, 0);
		fprintf(f, "%s\"chosen\": %s, \"rejected\": ",
			c->why ? "" : ", ", k == l->best ? "true" : "false");
		if (c->why || c->rejected)
			dmd_plan_json_str(f, c->why ? c->why : c->rejected);
		else
			fputs("null", f);
		fputs("}", f);
	}
	fputs("]", f);
	return 0;
}

/* Candidate "c" of a search as JSON; "sched": the schedule to print for
 * it (the step's own for the choice, whose commands the job took). */
static int dmd_plan_json_cand(FILE *f, const struct dmd_search_cand *c,
	const struct dmd_step *sched, int chosen)
{
	struct dmd_step tmp;

	memset(&tmp, 0, sizeof(tmp));
	tmp.n_cmds = c->n_cmds;
	tmp.cmds = c->cmds;
	fputs("{\"algorithm\": ", f);
	dmd_plan_json_str(f, c->algo);
	fputs(", \"schedule\": ", f);
	if (dmd_plan_json_sched(f, chosen ? sched : &tmp) < 0)
		return -1;
	fputs(", \"view\": ", f);
	if (c->view_name)
		dmd_plan_json_str(f, c->view_name);
	else
		fputs("null", f);
	if (c->costed || c->estimated) {
		fputs(", ", f);
		dmd_plan_json_figs(f, &c->fig, 1);
	}
	fprintf(f, ", \"exact\": %s, \"chosen\": %s, \"rejected\": ",
		c->costed ? "true" : "false", chosen ? "true" : "false");
	if (c->rejected || c->why)
		dmd_plan_json_str(f, c->rejected ? c->rejected : c->why);
	else if (c->estimated && c->est_over)
		dmd_plan_json_str(f, DMD_PLAN_EST_OVER);
	else
		fputs("null", f);
	fputs("}", f);
	return 0;
}

/* The plan as one JSON object on stdout. */
static int dmd_plan_json(struct dmd_session *s, const struct dmd_cost *c,
	int top, struct dmd_search **found)
{
	const struct dmd_model *m = s->m;
	const struct dmd_job *job = s->job;
	FILE *f = stdout;
	int i;

	fputs("{\"job\": ", f);
	dmd_plan_json_str(f, job->name);
	fprintf(f, ", \"ranks\": %ld, ", job->nranks);
	dmd_plan_json_figs(f, &c->total, 0);
	fprintf(f, ", \"mem_rank\": %ld, \"layouts\": {", c->total.mem_rank);
	for (i = 0; i < job->n_tensors; ++i) {
		fprintf(f, "%s", i ? ", " : "");
		dmd_plan_json_str(f, job->tensors[i].name);
		fputs(": ", f);
		if (dmd_plan_json_layout(f, job, &job->tensors[i]) < 0)
			return -1;
	}
	fputs("}", f);
	if (dmd_plan_json_layouts(f, job, s->layouts, top) < 0)
		return -1;
	fputs(", \"steps\": [", f);
	for (i = 0; i < m->n_poly; ++i) {
		const struct dmd_poly *p = m->poly[i];
		const char *v = dmd_plan_view(job, p->view);

		fprintf(f, "%s{\"compute\": ", i ? ", " : "");
		dmd_plan_json_str(f, p->label);
		fputs(", \"schedule\": ", f);
		if (dmd_plan_json_sched(f, p->st) < 0)
			return -1;
		fputs(", \"view\": ", f);
		if (v)
			dmd_plan_json_str(f, v);
		else
			fputs("null", f);
		fprintf(f, ", \"runs\": %ld, \"searched\": %s, ",
			dmd_model_step_count(m, i), found[i] ? "true" : "false");
		dmd_plan_json_figs(f, &c->step[i], 1);
		fputs(", \"candidates\": [", f);
		if (found[i]) {
			int k;

			for (k = 0; k < found[i]->n && k < top; ++k) {
				fputs(k ? ", " : "", f);
				if (dmd_plan_json_cand(f, &found[i]->c[k],
						p->st, k == found[i]->best) < 0)
					return -1;
			}
		} else if (top > 0) {
			/* an explicit schedule is its only candidate */
			fputs("{\"schedule\": ", f);
			dmd_plan_json_sched(f, p->st);
			fputs(", \"view\": ", f);
			if (v)
				dmd_plan_json_str(f, v);
			else
				fputs("null", f);
			fputs(", ", f);
			dmd_plan_json_figs(f, &c->step[i], 1);
			fputs(", \"explicit\": true, \"rejected\": ", f);
			if (job->memory && c->step[i].mem_max > job->memory) {
				char *why = dmd_plan_rejected(job,
					&c->step[i]);

				dmd_plan_json_str(f, why ? why : "memory");
				free(why);
			} else
				fputs("null", f);
			fputs("}", f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return fflush(f) == 0 ? 0 : -1;
}

/* The candidates of search "sr" as text (at most "top"). */
static void dmd_plan_text_cands(const struct dmd_search *sr, int top)
{
	int k, n = 0;

	for (k = 0; k < sr->n; ++k)
		n += !sr->c[k].estimated && !sr->c[k].skipped;
	if (n == sr->n)
		printf("  candidates (%d analysed; figures for the step, "
			"memory of the busiest rank over the mesh):\n", n);
	else
		printf("  candidates (%d, %d analysed, ~: estimated only; "
			"figures for the step,\n  memory of the busiest rank "
			"over the mesh):\n", sr->n, n);
	for (k = 0; k < sr->n && k < top; ++k) {
		const struct dmd_search_cand *c = &sr->c[k];

		printf("   %c %-60s", k == sr->best ? '*' : ' ', c->algo);
		if (c->costed)
			printf(" %10.4g s %12lld B max %12lld B mem",
				c->fig.time_s, c->fig.bytes_recv_max,
				c->mem_total);
		else if (c->estimated)
			printf("~%10.4g s %12lld B max %12lld B mem",
				c->fig.time_s, c->fig.bytes_recv_max,
				c->fig.mem_max);
		if (c->skipped)
			printf("  %s", c->why);
		else if (c->rejected || c->why)
			printf("  rejected: %s", c->rejected ? c->rejected :
				c->why);
		else if (c->estimated && c->est_over)
			printf("  rejected: %s", DMD_PLAN_EST_OVER);
		printf("\n");
	}
}

/* The choices of layouts of "l" as text (at most "top"), best first:
 * the dist of each group of automatic tensors, the figures of the
 * whole program with it. */
static int dmd_plan_text_layouts(const struct dmd_job *job,
	const struct dmd_layouts *l, int top)
{
	int k, g, m;

	if (!l)
		return 0;
	printf("\nlayout candidates (%d analysed, the steps' schedules "
		"chosen for each; figures for the program):\n", l->n);
	for (k = 0; k < l->n && k < top; ++k) {
		const struct dmd_layout_choice *c = &l->c[k];
		char *line = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&line, &size);

		if (!f)
			return -1;
		for (g = 0; g < l->n_groups; ++g) {
			char *d = dmd_layouts_str(l, job, g, c->pick[g]);

			for (m = 0; d && m < l->g[g].n_members; ++m)
				fprintf(f, "%s%s", g || m ? ", " : "",
					job->tensors[l->g[g].members[m]].name);
			fprintf(f, " %s", d ? d : "?");
			free(d);
		}
		if (fclose(f) != 0) {
			free(line);
			return -1;
		}
		printf("   %c %-60s", k == l->best ? '*' : ' ', line);
		free(line);
		if (!c->why)
			printf(" %10.4g s %12lld B max %12lld B mem",
				c->fig.time_s, c->fig.bytes_recv_max,
				c->fig.mem_max);
		if (c->why || c->rejected)
			printf("  rejected: %s", c->why ? c->why :
				c->rejected);
		printf("\n");
	}
	return 0;
}

/* The plan as text on stdout. */
static int dmd_plan_text(struct dmd_session *s, const struct dmd_cost *c,
	int top, struct dmd_search **found)
{
	const struct dmd_model *m = s->m;
	const struct dmd_job *job = s->job;
	int i, k, d;

	for (i = k = 0; i < m->n_poly; ++i)
		k += found[i] != NULL;
	printf("plan of job %s: %ld ranks, %s\n", job->name, job->nranks,
		k ? "schedules chosen where none is written" :
		"schedules and layouts as written");
	for (i = 0; i < m->n_poly; ++i) {
		const struct dmd_poly *p = m->poly[i];
		const struct dmd_cost_figs *f = &c->step[i];
		const char *v = dmd_plan_view(job, p->view);
		long runs = dmd_model_step_count(m, i);

		printf("\nstep %d: %s\n", i + 1, p->label);
		/* searched without a choice: every candidate analysed was
		 * beyond mesh.memory or refused, the step keeps none */
		printf("  schedule%s:", !found[i] ? "" : found[i]->best >= 0 ?
			" (chosen by the search)" : job->memory ?
			" (the search found no candidate within mesh.memory)" :
			" (the search found no candidate it could analyse)");
		if (!p->st->n_cmds)
			printf(" none (every iteration on the holders of what "
				"it writes)");
		for (k = 0; k < p->st->n_cmds; ++k) {
			char *cmd = dmd_plan_cmd_str(&p->st->cmds[k]);

			if (!cmd)
				return -1;
			printf("%s %s", k ? ";" : "", cmd);
			free(cmd);
		}
		for (k = 0; k < p->n_loops; ++k)
			if (p->loops[k].kind == DMD_LOOP_SPACE)
				break;
		printf("\n  %s%s%s%s; runs %ld time%s (figures for all runs)"
			"\n", k == p->n_loops ? "no loop distributed" :
			"distributed over ", k == p->n_loops ? "" : v ?
			"view '" : "the mesh", v ? v : "", v ? "'" : "", runs,
			runs == 1 ? "" : "s");
		printf("  %-22s %lld\n", "bytes moved", f->bytes_moved_total);
		printf("  %-22s %lld\n", "busiest receiver", f->bytes_recv_max);
		printf("  %-22s %lld\n", "messages", f->messages);
		printf("  %-22s %lld\n", "flops (busiest rank)", f->flops_max);
		printf("  %-22s %lld bytes (rank %ld)\n", "memory (most)",
			f->mem_max, f->mem_rank);
		printf("  %-22s %.6g s\n", "modeled time", f->time_s);
		if (found[i])
			dmd_plan_text_cands(found[i], top);
		if (job->memory && f->mem_max > job->memory) {
			char *why = dmd_plan_rejected(job, f);

			printf("  does not fit: %s\n", why ? why : "memory");
			free(why);
		}
	}
	printf("\nprogram:\n");
	printf("  %-22s %lld\n", "bytes moved", c->total.bytes_moved_total);
	printf("  %-22s %lld\n", "busiest receiver", c->total.bytes_recv_max);
	printf("  %-22s %lld\n", "messages", c->total.messages);
	printf("  %-22s %lld bytes (rank %ld)\n", "memory (most)",
		c->total.mem_max, c->total.mem_rank);
	printf("  %-22s %.6g s\n", "modeled time", c->total.time_s);
	printf("\nlayouts:\n");
	for (i = 0; i < job->n_tensors; ++i) {
		const struct dmd_tensor *t = &job->tensors[i];

		printf("  %s: dist [", t->name);
		for (d = 0; d < t->ndim; ++d) {
			char *e = t->dist[d] ? dmd_expr_to_str(t->dist[d]) :
				NULL;

			printf("%s%s", d ? ", " : "", e ? e : "-");
			free(e);
		}
		printf("]");
		if (t->view >= 0)
			printf(" on view '%s'", job->views[t->view].name);
		for (d = 0, k = 0; d < t->ndim; ++d)
			if (t->cyclic[d])
				printf("%s%d: %ld", k++ ? ", " : ", cyclic {",
					d, t->cyclic[d]);
		if (k)
			printf("}");
		for (d = 0; d < t->n_partial; ++d)
			printf("%s%s", d ? ", " : ", partial along ",
				dmd_job_axis_name(job, t->partial_axis[d]));
		for (d = 0; d < t->n_place; ++d)
			printf("%s%s = %ld", d ? ", " : ", placed at ",
				dmd_job_axis_name(job, t->place_axis[d]),
				t->place_coord[d]);
		printf("%s\n", t->dist_auto ? " (chosen by the search)" : "");
	}
	if (dmd_plan_text_layouts(job, s->layouts, top) < 0)
		return -1;
	return fflush(stdout) == 0 ? 0 : -1;
}

/* The emitter's output: append to a memory stream. */
static int dmd_plan_write(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, data) == size;
}

/* The value of key "key" in mapping node "map" of "doc" (0: none), and
 * in *pair the index of its pair. */
static int dmd_plan_yaml_get(yaml_document_t *doc, int map, const char *key,
	yaml_node_pair_t **pair)
{
	yaml_node_t *m = yaml_document_get_node(doc, map);
	yaml_node_pair_t *p;

	if (!m || m->type != YAML_MAPPING_NODE)
		return 0;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     ++p) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    k->data.scalar.length == strlen(key) &&
		    !memcmp(k->data.scalar.value, key, strlen(key))) {
			if (pair)
				*pair = p;
			return p->value;
		}
	}
	return 0;
}

/* Set key "key" of mapping "map" to node "value" (replaced or added). */
static int dmd_plan_yaml_set(yaml_document_t *doc, int map, const char *key,
	int value)
{
	yaml_node_pair_t *pair;
	int k;

	if (dmd_plan_yaml_get(doc, map, key, &pair)) {
		pair->value = value;
		return 0;
	}
	k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *) key, -1,
		YAML_PLAIN_SCALAR_STYLE);
	return k && yaml_document_append_mapping_pair(doc, map, k, value) ?
		0 : -1;
}

/* A scalar node "text" (its style the emitter's choice). */
static int dmd_plan_yaml_str(yaml_document_t *doc, const char *text)
{
	return yaml_document_add_scalar(doc, NULL, (yaml_char_t *) text, -1,
		YAML_ANY_SCALAR_STYLE);
}

/* The mapping nodes of the compute steps of the sequence "seq" (a
 * program, or the steps of a repeat), in text order, into nodes[]
 * from *k on. */
static void dmd_plan_yaml_steps(yaml_document_t *doc, int seq, int *nodes,
	int *k, int n)
{
	yaml_node_t *sq = yaml_document_get_node(doc, seq);
	yaml_node_item_t *it;

	if (!sq || sq->type != YAML_SEQUENCE_NODE)
		return;
	for (it = sq->data.sequence.items.start;
	     it < sq->data.sequence.items.top; ++it) {
		int sub;

		if (dmd_plan_yaml_get(doc, *it, "repeat", NULL)) {
			sub = dmd_plan_yaml_get(doc, *it, "steps", NULL);
			dmd_plan_yaml_steps(doc, sub, nodes, k, n);
		} else if (*k < n)
			nodes[(*k)++] = *it;
	}
}

/* Write the dist of every automatic tensor of the job of "s" into the
 * tensors of "doc" (whose root is "root"). */
static int dmd_plan_yaml_dists(struct dmd_session *s, yaml_document_t *doc,
	int root)
{
	const struct dmd_job *job = s->job;
	int tensors = dmd_plan_yaml_get(doc, root, "tensors", NULL);
	int i, d, r = 0;

	for (i = 0; tensors && i < job->n_tensors; ++i) {
		const struct dmd_tensor *t = &job->tensors[i];
		int node, seq;

		if (!t->dist_auto)
			continue;
		node = dmd_plan_yaml_get(doc, tensors, t->name, NULL);
		seq = yaml_document_add_sequence(doc, NULL,
			YAML_FLOW_SEQUENCE_STYLE);
		if (!node || !seq)
			return -1;
		for (d = 0; d < t->ndim; ++d) {
			char *e = t->dist[d] ? dmd_expr_to_str(t->dist[d]) :
				strdup("-");

			r |= !e || !yaml_document_append_sequence_item(doc,
				seq, yaml_document_add_scalar(doc, NULL,
				(yaml_char_t *) e, -1,
				YAML_DOUBLE_QUOTED_SCALAR_STYLE));
			free(e);
		}
		r |= dmd_plan_yaml_set(doc, node, "dist", seq) < 0;
	}
	return r ? -1 : 0;
}

/* Make the choices of the search explicit in "doc": every view the job
 * has that the file does not (the search's) under mesh.views, and the
 * schedule of every searched step. */
static int dmd_plan_yaml_choices(struct dmd_session *s, yaml_document_t *doc,
	struct dmd_search **found)
{
	const struct dmd_job *job = s->job;
	int root = 1, mesh, views, prog, *steps, k = 0, i, j, r = 0;

	mesh = dmd_plan_yaml_get(doc, root, "mesh", NULL);
	views = dmd_plan_yaml_get(doc, mesh, "views", NULL);
	for (i = 0; i < job->n_views; ++i) {
		const struct dmd_view *v = &job->views[i];
		int vm, ax, sh;
		char buf[32];

		if (views && dmd_plan_yaml_get(doc, views, v->name, NULL))
			continue;
		if (!views) {
			views = yaml_document_add_mapping(doc, NULL,
				YAML_BLOCK_MAPPING_STYLE);
			r |= !views || dmd_plan_yaml_set(doc, mesh, "views",
				views) < 0;
		}
		vm = yaml_document_add_mapping(doc, NULL,
			YAML_FLOW_MAPPING_STYLE);
		ax = yaml_document_add_sequence(doc, NULL,
			YAML_FLOW_SEQUENCE_STYLE);
		sh = yaml_document_add_sequence(doc, NULL,
			YAML_FLOW_SEQUENCE_STYLE);
		for (j = 0; j < v->n_axes; ++j) {
			snprintf(buf, sizeof(buf), "%ld", v->shape[j]);
			r |= !yaml_document_append_sequence_item(doc, ax,
				dmd_plan_yaml_str(doc, v->axes[j]));
			r |= !yaml_document_append_sequence_item(doc, sh,
				dmd_plan_yaml_str(doc, buf));
		}
		r |= dmd_plan_yaml_set(doc, vm, "axes", ax) < 0;
		r |= dmd_plan_yaml_set(doc, vm, "shape", sh) < 0;
		r |= dmd_plan_yaml_set(doc, views, v->name, vm) < 0;
	}
	r |= dmd_plan_yaml_dists(s, doc, root) < 0;
	steps = calloc(s->m->n_poly + 1, sizeof(int));
	if (!steps)
		return -1;
	prog = dmd_plan_yaml_get(doc, root, "program", NULL);
	if (prog)
		dmd_plan_yaml_steps(doc, prog, steps, &k, s->m->n_poly);
	else
		steps[k++] = root;
	for (i = 0; i < s->m->n_poly && i < k; ++i) {
		const struct dmd_step *st = s->m->poly[i]->st;
		int seq;

		if (!found[i] || found[i]->best < 0)
			continue;
		seq = yaml_document_add_sequence(doc, NULL,
			YAML_BLOCK_SEQUENCE_STYLE);
		for (j = 0; j < st->n_cmds; ++j) {
			char *c = dmd_plan_cmd_str(&st->cmds[j]);

			r |= !c || !yaml_document_append_sequence_item(doc,
				seq, dmd_plan_yaml_str(doc, c));
			free(c);
		}
		r |= dmd_plan_yaml_set(doc, steps[i], "schedule", seq) < 0;
	}
	free(steps);
	return r ? -1 : 0;
}

/* Write the frozen job of "s" to "path" (see the top of this file):
 * the job file with the choices of the searches "found" made explicit.
 * Returns 0, or the exit status after a message. */
static int dmd_plan_freeze(struct dmd_session *s, const char *path,
	struct dmd_search **found)
{
	const char *job = s->job->path;
	struct stat a, b;
	yaml_parser_t parser;
	yaml_emitter_t emitter;
	yaml_document_t doc;
	char *tmp = NULL;
	FILE *in, *f;
	int ok;

	if (stat(job, &a) == 0 && stat(path, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		fprintf(stderr, "distmpmd: plan: -o %s is the job file itself; "
			"the frozen job goes to another file\n", path);
		return 2;
	}
	in = fopen(job, "rb");
	if (!in) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", job,
			strerror(errno));
		return 1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, in);
	ok = yaml_parser_load(&parser, &doc);
	yaml_parser_delete(&parser);
	fclose(in);
	if (!ok) {
		fprintf(stderr, "distmpmd: cannot read %s again\n", job);
		return 1;
	}
	if (dmd_plan_yaml_choices(s, &doc, found) < 0) {
		yaml_document_delete(&doc);
		fprintf(stderr, "distmpmd: plan: out of memory\n");
		return 1;
	}
	f = dmd_svg_open(path, &tmp);
	if (!f) {
		yaml_document_delete(&doc);
		return 1;
	}
	yaml_emitter_initialize(&emitter);
	yaml_emitter_set_output(&emitter, &dmd_plan_write, f);
	yaml_emitter_set_unicode(&emitter, 1);
	yaml_emitter_set_width(&emitter, -1);
	ok = yaml_emitter_open(&emitter) &&
		yaml_emitter_dump(&emitter, &doc) &&	/* frees doc */
		yaml_emitter_close(&emitter);
	if (!ok)
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			emitter.problem ? emitter.problem :
			"YAML emitter error");
	yaml_emitter_delete(&emitter);
	if (!ok) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		return 1;
	}
	ok = dmd_svg_close(f, tmp, path) == 0;
	free(tmp);
	return ok ? 0 : 1;
}

/* Print the plan of "s" and write the frozen job (see the header). */
int dmd_plan_report(struct dmd_session *s, const struct dmd_plan_opts *o)
{
	struct dmd_search **found;
	struct dmd_cost *c = NULL;
	int n = s->m->n_poly, r;

	/* the searches of the analysis (none: every step explicit) */
	found = s->found ? s->found : calloc(n + 1, sizeof(*found));
	if (!found)
		return 1;
	/* the search's cost of the plan it chose, its memory counted per
	 * cell; else counted now */
	c = s->cost ? dmd_part_cost_recount(s->cost, s->plan, s->cells) :
		dmd_part_cost(s->plan, s->cells);
	r = c ? 0 : 1;
	if (!r && (o->json ? dmd_plan_json(s, c, o->top, found) :
			dmd_plan_text(s, c, o->top, found)) < 0) {
		fprintf(stderr, "distmpmd: plan: cannot write the plan\n");
		r = 1;
	}
	dmd_part_cost_free(c);
	if (!r && o->out)
		r = dmd_plan_freeze(s, o->out, found);
	if (found != s->found)
		free(found);
	return r;
}

/* Refuse a job that needs more memory than mesh.memory (see the header). */
int dmd_plan_check_memory(struct dmd_session *s)
{
	const struct dmd_job *job = s->job;
	struct dmd_cost *c;
	int i, worst = -1;

	if (!job->memory)
		return 0;
	c = dmd_part_cost_mem(s->plan, s->cells);
	if (!c) {
		fprintf(stderr, "%s: error: internal error: cannot compute "
			"the memory of the ranks (please report it)\n",
			job->path);
		return 1;
	}
	if (c->total.mem_max <= job->memory) {
		dmd_part_cost_free(c);
		return 0;
	}
	for (i = 0; i < c->n_step; ++i)
		if (worst < 0 || c->step[i].mem_max >
				c->step[worst].mem_max)
			worst = i;
	dmd_job_error(job, job->memory_loc, "rank %ld needs %lld bytes, "
		"more than mesh.memory (%ld bytes); step %d (%s) alone needs "
		"%lld bytes on rank %ld (its tensors' buffers and its "
		"transfer buffers)", c->total.mem_rank, c->total.mem_max,
		job->memory, worst + 1, s->m->poly[worst]->label,
		c->step[worst].mem_max, c->step[worst].mem_rank);
	dmd_part_cost_free(c);
	return 2;
}
