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
	int i;

	for (i = 0; s->found && i < s->n_found; ++i)
		dmd_search_free(s->found[i]);
	free(s->found);
	dmd_layouts_free(s->layouts);
	free(s->cls);
	free(s->files);
	free(s->lib_source);
	free(s->lib_header);
	dmd_emit_classes_free(s->classes);
	dmd_specs_free(s->specs);
	dmd_part_cells_free(s->cells);
	dmd_part_facts_free(s->facts);
	dmd_part_proofs_clear(&s->proofs);
	dmd_part_cost_free(s->cost);
	dmd_part_plan_free(s->plan);
	dmd_model_free(s->m);
	dmd_job_free(s->job);
	if (s->ctx)
		isl_ctx_free(s->ctx);
}

/* Report an internal error of the analysis of the job of "s" ("what"
 * could not be done, or a failed proof): "PATH: error: internal error:
 * ... (please report it)". */
static void session_internal(struct dmd_session *s, const char *what)
{
	dmd_diag_error(&s->diag, s->job->path, (struct dmd_loc) { 0, 0 },
		"internal error: %s (please report it)", what);
}

/* Report the proofs of "s" that failed (or that they could not be
 * made) as internal errors. */
static void session_proofs_failed(struct dmd_session *s)
{
	char *line;
	size_t size;
	FILE *f;
	int i;

	for (i = 0; i < s->proofs.n; ++i) {
		if (s->proofs.proof[i].verdict != DMD_PROOF_FAILS)
			continue;
		line = NULL;
		f = open_memstream(&line, &size);
		if (f) {
			dmd_part_proof_print(f, &s->proofs.proof[i]);
			if (fclose(f) != 0) {
				free(line);
				line = NULL;
			}
		}
		session_internal(s, line ? line : "a proof failed");
		free(line);
	}
	if (!dmd_part_proofs_failed(&s->proofs))
		session_internal(s, "cannot prove that the transfers of this "
			"job match up");
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
		s->cls[i].why = cl->cls[i].why_line;
		s->cls[i].n_blocks = cl->cls[i].blocks.n;
		s->cls[i].blocks = cl->cls[i].blocks.fact;
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

/* Search the matrix-product steps of the analysed job of "s" whose
 * schedule is the compiler's to choose (search/dmd_search.c): each gets
 * the best candidate (applied to the job at once, so that the next
 * searches see it); s->found keeps the candidates (per step, NULL if not
 * searched).  If any was chosen, the job is analysed again (model and
 * plan), unless the last step searched made a choice and kept its
 * analysis (the job as it is now: every other step's choice was made
 * before): then that analysis and its cost (s->cost) are the job's.  How
 * that ended. */
static enum dmd_status session_search(struct dmd_session *s)
{
	int i, any = 0, last = -1, n = s->m->n_poly;
	struct dmd_search_an an;
	enum dmd_status st;

	for (i = 0; i < n; ++i)
		if (dmd_search_wanted(s->m->poly[i], s->job))
			break;
	if (i == n)
		return DMD_OK;
	s->n_found = n;
	s->found = calloc(n + 1, sizeof(*s->found));
	if (!s->found)
		return DMD_INTERNAL;
	for (i = 0; i < n; ++i) {
		const struct dmd_poly *p = s->m->poly[i];

		if (!dmd_search_wanted(p, s->job))
			continue;
		s->found[i] = dmd_search_step(s->ctx, s->job, s->m, i);
		if (!s->found[i])
			return DMD_INTERNAL;
		if (s->found[i]->best >= 0 && dmd_search_apply(s->found[i],
				s->job, (struct dmd_step *) p->st) < 0)
			s->found[i]->best = -1;
		any |= s->found[i]->best >= 0;
		last = i;
	}
	if (!any)
		return DMD_OK;
	s->plan = dmd_part_plan_free(s->plan);
	s->m = dmd_model_free(s->m);
	s->cost = dmd_part_cost_free(s->cost);
	if (dmd_search_take(s->found[last], &an) == 0) {
		s->m = an.m;
		s->plan = an.plan;
		s->cost = an.cost;
		return DMD_OK;
	}
	st = dmd_model_build(s->ctx, s->job, &s->m);
	if (st == DMD_OK)
		st = dmd_part_plan(s->m, &s->plan);
	return st;
}

/* Undo what session_search did to the job of "s" (whose first "nv"
 * views are its own): the steps it gave a schedule have none again, the
 * views it added are gone; the searches, plan and model are freed. */
static void session_undo_search(struct dmd_session *s, int nv)
{
	int i;

	for (i = 0; s->found && i < s->n_found; ++i)
		if (s->found[i] && s->found[i]->best >= 0 && s->m)
			dmd_step_clear_schedule((struct dmd_step *)
				s->m->poly[i]->st);
	for (i = 0; s->found && i < s->n_found; ++i)
		dmd_search_free(s->found[i]);
	free(s->found);
	s->found = NULL;
	s->n_found = 0;
	dmd_job_drop_views(s->job, nv);
	s->cost = dmd_part_cost_free(s->cost);
	s->plan = dmd_part_plan_free(s->plan);
	s->m = dmd_model_free(s->m);
}

/* Evaluate the job of "s" with its layouts as they are now (a
 * dmd_layouts_eval_fn): model, plan, the steps without a schedule
 * searched, proofs, the cost of the whole program with the memory of
 * the busiest rank; then the job as it was.  A choice the analysis
 * cannot handle is refused with its first message. */
static enum dmd_status session_layout_eval(void *user,
	struct dmd_cost_figs *fig, char **why)
{
	struct dmd_session *s = user;
	struct dmd_job *job = s->job;
	struct dmd_diag diag, *saved = job->diag;
	struct dmd_proofs proofs = { 0 };
	struct dmd_cost *cost = NULL;
	int nv = job->n_views;
	enum dmd_status st;

	dmd_diag_init(&diag, &dmd_diag_keep_first, why);
	job->diag = &diag;
	st = dmd_model_build(s->ctx, job, &s->m);
	if (st == DMD_OK)
		st = dmd_part_plan(s->m, &s->plan);
	if (st == DMD_OK)
		st = session_search(s);
	if (st == DMD_OK)
		st = dmd_part_verify(s->plan, &proofs);
	if (st == DMD_OK)
		cost = s->cost ? dmd_part_cost_recount(s->cost, s->plan,
			NULL) : dmd_part_cost_mesh(s->plan);
	if (cost)
		*fig = cost->total;
	job->diag = saved;
	dmd_part_proofs_clear(&proofs);
	dmd_part_cost_free(cost);
	session_undo_search(s, nv);
	isl_ctx_reset_error(s->ctx);
	if (!cost && !*why)
		*why = strdup("the analysis failed");
	return cost ? DMD_OK : DMD_REFUSED;
}

/* Choose the layouts of the automatic tensors of the job of "s"
 * (search/dmd_search_layout.c), left set in the job; refused if no
 * choice can be analysed. */
static enum dmd_status session_layouts(struct dmd_session *s)
{
	const struct dmd_tensor *t = NULL;
	int i;

	if (!dmd_search_has_auto(s->job))
		return DMD_OK;
	s->layouts = dmd_search_layouts(s->job, &session_layout_eval, s);
	if (!s->layouts)
		return DMD_INTERNAL;
	if (s->layouts->best >= 0)
		return DMD_OK;
	for (i = 0; !t && i < s->job->n_tensors; ++i)
		if (s->job->tensors[i].dist_auto)
			t = &s->job->tensors[i];
	dmd_job_error(s->job, t->dist_auto_loc, "no layout of the "
		"automatic tensor '%s'%s can be used: %s", t->name,
		s->layouts->n_groups > 1 || s->layouts->g[0].n_members > 1 ?
		" (chosen with the other automatic tensors)" : "",
		!s->layouts->n ? "none to try" : s->layouts->c[0].why ?
		s->layouts->c[0].why : s->layouts->c[0].rejected);
	return DMD_REFUSED;
}

/* Start session "s": nothing analysed yet, the messages about its job
 * to "fn" (with "user"), or to stderr if "fn" is NULL. */
void dmd_session_init(struct dmd_session *s, dmd_diag_fn fn, void *user)
{
	memset(s, 0, sizeof(*s));
	dmd_diag_init(&s->diag, fn, user);
}

/* Read the job held in data[0..len) as the job file "name" (see
 * dmd_job_read_mem) into s->job: DMD_OK, or DMD_REFUSED after a
 * message. */
enum dmd_status dmd_session_read_mem(struct dmd_session *s, const char *name,
	const char *data, size_t len)
{
	s->job = dmd_job_read_mem(name, data, len, &s->diag);
	return s->job ? DMD_OK : DMD_REFUSED;
}

/* The model and the transfer plan of s->job, with the plan's proofs. */
static enum dmd_status session_plan(struct dmd_session *s)
{
	enum dmd_status st;

	st = session_layouts(s);
	stage_time("layouts");
	if (st == DMD_OK)
		st = dmd_model_build(s->ctx, s->job, &s->m);
	stage_time("model");
	if (st == DMD_OK)
		st = dmd_part_plan(s->m, &s->plan);
	stage_time("plan");
	/* the steps whose schedule is the compiler's to choose: searched,
	 * the choices made part of the job, which is analysed again */
	if (st == DMD_OK) {
		st = session_search(s);
		stage_time("search");
	}
	if (st == DMD_INTERNAL)
		session_internal(s, "the analysis of this job failed");
	if (st != DMD_OK)
		return st;
	st = dmd_part_verify(s->plan, &s->proofs);
	stage_time("proofs");
	if (st != DMD_OK)
		session_proofs_failed(s);
	return st;
}

/* The facts, cells and (unless "cells_only": `plan` needs the cells'
 * figures, not their code, spec 1.6 "cost only") the program of every
 * cell of the plan of "s", proved as emitted. */
static enum dmd_status session_specialize(struct dmd_session *s,
	int cells_only)
{
	enum dmd_status st;

	st = dmd_part_facts(s->plan, &s->facts);
	stage_time("facts");
	if (st == DMD_OK)
		st = dmd_part_cells(s->m, s->facts, &s->cells);
	stage_time("cells");
	if (st == DMD_OK && cells_only)
		return st;
	if (st == DMD_OK)
		st = dmd_spec_cells(s->plan, s->cells, &s->specs);
	stage_time("specialize");
	if (st != DMD_OK) {
		session_internal(s, "cannot find the rank classes");
		return st;
	}
	st = dmd_spec_prove(s->plan, s->specs, &s->proofs);
	stage_time("proofs as emitted");
	if (st != DMD_OK)
		session_proofs_failed(s);
	return st;
}

/* Analyse s->job, stage by stage (see the top of this file); with
 * "classes" find the rank classes and emit their code too.  Each stage
 * says how it ended: DMD_OK, DMD_REFUSED (a bad job, with one message)
 * or DMD_INTERNAL (reported here as an internal error). */
enum dmd_status dmd_session_run(struct dmd_session *s, int classes)
{
	enum dmd_status st;

	if (!s->job)
		return DMD_REFUSED;
	s->ctx = isl_ctx_alloc();
	if (!s->ctx) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return DMD_INTERNAL;
	}
	isl_options_set_on_error(s->ctx, getenv("DMD_DEBUG") ?
		ISL_ON_ERROR_WARN : ISL_ON_ERROR_CONTINUE);
	isl_options_set_ast_iterator_type(s->ctx, "int64_t");
	stage_time(NULL);
	st = session_plan(s);
	if (st == DMD_OK)
		st = session_specialize(s, classes == DMD_SESSION_CELLS);
	if (st == DMD_OK && classes == DMD_SESSION_CLASSES) {
		st = dmd_emit_classes(s->plan, s->facts, s->cells, s->specs,
			&s->classes);
		stage_time("classes");
		if (st != DMD_OK)
			session_internal(s, "cannot print the rank classes");
	}
	if (st == DMD_OK && session_build_input(s,
			classes == DMD_SESSION_CLASSES) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		st = DMD_INTERNAL;
	}
	return st;
}

/* Read and analyse the job file "path" (dmd_session_run), the messages
 * to stderr.  Returns the exit status: 0, 2 for a bad job, 1 for an
 * internal error. */
int dmd_session_analyse(struct dmd_session *s, const char *path,
	int classes)
{
	dmd_session_init(s, NULL, NULL);
	s->job = dmd_job_read(path, &s->diag);
	if (!s->job)
		return dmd_status_exit(DMD_REFUSED);
	return dmd_status_exit(dmd_session_run(s, classes));
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
			printf(" along %s", dmd_job_axis_name(s->job, x->axis));
		if (x->ghost)
			printf(" (into ghost cells)");
		if (x->use == DMD_USE_SNAPSHOT)
			printf(" (the values before the step)");
		if (x->use == DMD_USE_REDUCE)
			printf(" (summed over the partial axes)");
		printf("\n");
	}
	for (i = 0; i < s->proofs.n; ++i) {
		dmd_part_proof_print(stdout, &s->proofs.proof[i]);
		printf("\n");
	}
}

/* The library of the analysed job of "s" (analysed with its classes):
 * its C source and header into s->in.lib_source, s->in.lib_header.
 * Returns 0, 2 after a located message (a tensor whose name in the
 * header would clash with another of its names), or 1. */
int dmd_session_lib(struct dmd_session *s)
{
	int t = dmd_emit_lib_clash(s->m);

	if (t >= 0) {
		const struct dmd_tensor *tn = &s->job->tensors[t];

		dmd_diag_error(&s->diag, s->job->path, tn->loc, "tensor '%s': "
			"build --lib names it %s_%s in the library's header, "
			"which is one of the header's own names; rename the "
			"tensor", tn->name, s->job->name, tn->name);
		return 2;
	}
	s->lib_source = dmd_emit_lib_source(s->plan, s->classes);
	s->lib_header = dmd_emit_lib_header(s->m);
	if (!s->lib_source || !s->lib_header) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return 1;
	}
	s->in.lib_source = s->lib_source;
	s->in.lib_header = s->lib_header;
	return 0;
}
