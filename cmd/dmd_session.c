/* dmd_session.c: the compiler core, stage by stage (doc/design-notes.md):
 * job (ir) -> model (ir) -> transfer plan and its proofs (partition) ->
 * facts and cells (partition) -> classes with their code (specialize,
 * emit).  Used by the command line and by the fuzzing harness. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isl/ctx.h>
#include <isl/options.h>

#include "cmd/dmd_session.h"

/* Free what "s" holds. */
void dmd_session_free(struct dmd_session *s)
{
	free(s->cls);
	free(s->files);
	dmd_emit_classes_free(s->classes);
	dmd_specs_free(s->specs);
	dmd_part_cells_free(s->cells);
	dmd_part_facts_free(s->facts);
	dmd_part_proofs_clear(&s->proofs);
	dmd_part_plan_free(s->plan);
	dmd_model_free(s->m);
	dmd_job_free(s->job);
	if (s->ctx)
		isl_ctx_free(s->ctx);
}

/* Report the proofs of "s" that failed (or that they could not be
 * made) as internal errors; returns 1, the exit status. */
static int session_proofs_failed(struct dmd_session *s, const char *path)
{
	int i;

	for (i = 0; i < s->proofs.n; ++i)
		if (!strncmp(s->proofs.line[i], "NOT", 3))
			fprintf(stderr, "%s: error: internal error: %s (please "
				"report it)\n", path, s->proofs.line[i]);
	if (!s->proofs.failed)
		fprintf(stderr, "%s: error: internal error: cannot prove that "
			"the transfers of this job match up (please report "
			"it)\n", path);
	return 1;
}

/* The files of the job in s->files (in.files): every tensor with a file
 * that the programs read (an input) or write (an output), as the class
 * programs' tensor table has them (emit/dmd_emit_file.c). */
static int session_files(struct dmd_session *s)
{
	const struct dmd_job *job = s->job;
	int t, n = 0;

	s->files = calloc(job->n_tensors + 1, sizeof(*s->files));
	if (!s->files)
		return -1;
	for (t = 0; t < job->n_tensors; ++t) {
		const struct dmd_tensor *tn = &job->tensors[t];
		const struct dmd_tensor_use *u = &s->m->use[t];
		struct dmd_build_file *f = &s->files[n];

		if (!tn->file || !(u->input || u->output))
			continue;
		f->tensor = tn->name;
		f->file = tn->file;
		f->input = u->input;
		f->output = u->output;
		f->f64 = tn->dtype == DMD_F64;
		f->ndim = tn->ndim;
		f->shape = tn->shape;
		++n;
	}
	s->in.n_files = n;
	s->in.files = s->files;
	return 0;
}

/* The core's result as struct dmd_build_input: the job's fields and its
 * files, the shared common.h, and for each class its code, its set, why,
 * count and ranges.  Without classes, n_class is 0. */
static int session_build_input(struct dmd_session *s, int classes)
{
	struct dmd_build_input *in = &s->in;
	struct dmd_classes *cl = s->classes;
	const char *slash = strrchr(s->job->path, '/');
	int i;

	in->job_name = s->job->name;
	in->job_path = s->job->path;
	in->job_dir = s->job->dir;
	in->job_file = slash ? slash + 1 : s->job->path;
	if (session_files(s) < 0)
		return -1;
	in->n_axes = s->job->n_axes;
	in->axes = s->job->axes;
	in->shape = s->job->mesh_shape;
	in->nranks = s->job->nranks;
	in->common = NULL;
	in->n_class = 0;
	if (!classes)
		return 0;
	s->cls = calloc(cl->n + 1, sizeof(*s->cls));
	if (!s->cls)
		return -1;
	in->common = cl->common;
	in->n_class = cl->n;
	in->cls = s->cls;
	for (i = 0; i < cl->n; ++i) {
		s->cls[i].code = cl->cls[i].code;
		s->cls[i].set = cl->cls[i].set_text;
		s->cls[i].why = cl->cls[i].why;
		s->cls[i].blocks = cl->cls[i].blocks;
		s->cls[i].count = cl->cls[i].count;
		s->cls[i].n_ranges = cl->cls[i].n_ranges;
		s->cls[i].ranges = cl->cls[i].ranges;
	}
	return 0;
}

/* With DMD_TIME set, print the time since the previous call, for
 * "stage" (NULL: start the clock). */
static void stage_time(const char *stage)
{
	static struct timespec t0;
	struct timespec t;

	if (!getenv("DMD_TIME"))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (stage)
		fprintf(stderr, "distmpmd: %s: %.3f s\n", stage,
			(t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec));
	t0 = t;
}

/* Analyse "job" (taken: "s" owns it, even on failure); with classes != 0
 * find the rank classes and emit their code too.  Returns 0, or the
 * exit status (2 for a bad job, 1 otherwise), the problem printed. */
int dmd_session_analyse_job(struct dmd_session *s,
	__isl_take struct dmd_job *job, int classes)
{
	const char *path;

	memset(s, 0, sizeof(*s));
	s->job = job;
	if (!s->job)
		return 2;
	path = s->job->path;
	s->ctx = isl_ctx_alloc();
	if (!s->ctx) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return 1;
	}
	isl_options_set_on_error(s->ctx, getenv("DMD_DEBUG") ?
		ISL_ON_ERROR_WARN : ISL_ON_ERROR_CONTINUE);
	isl_options_set_ast_iterator_type(s->ctx, "int64_t");
	stage_time(NULL);
	s->m = dmd_model_build(s->ctx, s->job);
	stage_time("model");
	if (s->m)
		s->plan = dmd_part_plan(s->m);
	stage_time("plan");
	if (!s->m || !s->plan) {
		if (dmd_job_n_errors() > 0)
			return 2;
		fprintf(stderr, "%s: error: internal error: the analysis of "
			"this job failed (please report it)\n", path);
		return 1;
	}
	if (dmd_part_verify(s->plan, &s->proofs) < 0 || s->proofs.failed)
		return session_proofs_failed(s, path);
	stage_time("proofs");
	s->facts = dmd_part_facts(s->plan);
	stage_time("facts");
	if (s->facts)
		s->cells = dmd_part_cells(s->m, s->facts);
	stage_time("cells");
	if (s->cells)
		s->specs = dmd_spec_cells(s->plan, s->cells);
	stage_time("specialize");
	if (!s->specs) {
		fprintf(stderr, "%s: error: internal error: cannot find the "
			"rank classes (please report it)\n", path);
		return 1;
	}
	if (dmd_spec_prove(s->plan, s->specs, &s->proofs) < 0 ||
	    s->proofs.failed)
		return session_proofs_failed(s, path);
	stage_time("proofs as emitted");
	if (classes) {
		s->classes = dmd_emit_classes(s->plan, s->facts, s->cells,
			s->specs);
		stage_time("classes");
		if (!s->classes) {
			fprintf(stderr, "%s: error: internal error: cannot "
				"print the rank classes (please report it)\n",
				path);
			return 1;
		}
	}
	if (session_build_input(s, classes) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return 1;
	}
	return 0;
}

/* Read and analyse the job file "path", as dmd_session_analyse_job. */
int dmd_session_analyse(struct dmd_session *s, const char *path,
	int classes)
{
	return dmd_session_analyse_job(s, dmd_job_read(path), classes);
}

/* Print the range of index variable "v" of step "p" (spec 1.3: the
 * values where every access is in bounds), the accesses that cut it and
 * the range each access that indexes with "v" alone allows, e.g.
 *   index i: 1 .. 198, cut by A[i - 1], A[i + 1] (in bounds: B[i]
 *   0 .. 199, A[i - 1] 1 .. 200, A[i] 0 .. 199, A[i + 1] -1 .. 198)
 * so that a typo in a shape shows. */
static void session_print_range(const struct dmd_poly *p, int v)
{
	const struct dmd_var_range *r = &p->range[v];
	const char *sep;
	char *txt;
	int a;

	if (r->empty) {
		printf("  index %s: no value (no iteration keeps every access "
			"in bounds)\n", p->vars[v]);
		return;
	}
	printf("  index %s: %ld .. %ld", p->vars[v], r->lo, r->hi);
	for (a = 0, sep = ", cut by "; a < p->n_acc; ++a) {
		if (!r->cut[a])
			continue;
		txt = dmd_expr_to_msg(p->acc[a].expr);
		printf("%s%s", sep, txt ? txt : "?");
		free(txt);
		sep = ", ";
	}
	for (a = 0, sep = " (in bounds: "; a < p->n_acc; ++a) {
		if (!r->own[a])
			continue;
		txt = dmd_expr_to_msg(p->acc[a].expr);
		printf("%s%s %ld .. %ld", sep, txt ? txt : "?",
			r->own_lo[a], r->own_hi[a]);
		free(txt);
		sep = ", ";
	}
	printf("%s\n", strcmp(sep, ", ") ? "" : ")");
}

/* Print what "check" says of the analysis beyond the job: per step the
 * loops and the range of each index, then every transfer of the plan. */
void dmd_session_summary(struct dmd_session *s)
{
	struct dmd_model *m = s->m;
	int i, k;

	for (k = 0; k < m->n_poly; ++k) {
		struct dmd_poly *p = m->poly[k];

		printf("step %d: %s\n  loops:", k + 1, p->label);
		for (i = 0; i < p->n_loops; ++i)
			printf(" %s%s", p->loops[i].name,
				p->loops[i].kind == DMD_LOOP_SPACE ?
				"(space)" : p->loops[i].tensorized ?
				"(gemm)" : "");
		printf("\n");
		for (i = 0; i < p->n_vars; ++i)
			session_print_range(p, i);
	}
	for (i = 0; i < s->plan->n_xfer; ++i) {
		struct dmd_xfer *x = s->plan->xfer[i];
		struct dmd_poly *p = m->poly[x->step];

		printf("transfer #%d of %s in step %d at %s: %s", x->id,
			s->job->tensors[x->tensor].name, x->step + 1,
			x->use == DMD_USE_RETURN ? "the end" :
			x->level < 0 ? "the start" :
			p->loops[p->time_loop[x->level]].name,
			dmd_part_kind_name(x->kind));
		if (x->kind == DMD_XFER_BCAST || x->kind == DMD_XFER_SHIFT)
			printf(" along %s", s->job->axes[x->axis]);
		if (x->ghost)
			printf(" (into ghost cells)");
		if (x->use == DMD_USE_SNAPSHOT)
			printf(" (the values before the step)");
		if (x->use == DMD_USE_REDUCE)
			printf(" (summed over the partial axes)");
		printf("\n");
	}
	for (i = 0; i < s->proofs.n; ++i)
		printf("%s\n", s->proofs.line[i]);
}
