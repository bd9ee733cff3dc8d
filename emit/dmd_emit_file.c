/* dmd_emit_file.c: the files of a build around the programs of the
 * classes: common.h (what every class program shares: the job
 * descriptor, the tensor table, the step labels) and each classK.c (a
 * header saying which ranks run it and why they form a class, the
 * class's ranks, then its main()).  The library of a build --lib is
 * emit/dmd_emit_lib.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/dmd_emit_private.h"

/* One line of text. */
static __isl_give isl_printer *dmd_file_line(__isl_take isl_printer *p,
	const char *s)
{
	if (!*s)
		return isl_printer_print_str(p, "\n");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, s);
	return isl_printer_end_line(p);
}

/* The name of init "i" in the runtime. */
static const char *dmd_file_init(enum dmd_init i)
{
	switch (i) {
	case DMD_INIT_ONES:
		return "DMD_RT_INIT_ONES";
	case DMD_INIT_RANDOM:
		return "DMD_RT_INIT_RANDOM";
	case DMD_INIT_ZEROS:
		return "DMD_RT_INIT_ZEROS";
	default:
		return "DMD_RT_INIT_NONE";
	}
}

/* The views of the mesh (spec 1.1), if any: their shapes and axis
 * names, and dmd_views[]. */
static __isl_give isl_printer *dmd_file_views(const struct dmd_model *m,
	__isl_take isl_printer *p)
{
	const struct dmd_job *job = m->job;
	int v, i;

	for (v = 0; v < job->n_views; ++v) {
		const struct dmd_view *vw = &job->views[v];

		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "static const int dmd_view%d_shape[] = "
			"{ ", v);
		for (i = 0; i < vw->n_axes; ++i)
			p = dmd_emit_printf(p, "%s%ld", i ? ", " : "",
				vw->shape[i]);
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "static const char *const "
			"dmd_view%d_axes[] = { ", v);
		for (i = 0; i < vw->n_axes; ++i) {
			p = isl_printer_print_str(p, i ? ", " : "");
			p = dmd_emit_cstr(p, vw->axes[i]);
		}
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
	}
	if (!job->n_views)
		return p;
	p = dmd_file_line(p, "static const dmd_view_desc dmd_views[] = {");
	p = isl_printer_indent(p, 2);
	for (v = 0; v < job->n_views; ++v) {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "{ ");
		p = dmd_emit_cstr(p, job->views[v].name);
		p = dmd_emit_printf(p, ", %d, dmd_view%d_shape, "
			"dmd_view%d_axes },", job->views[v].n_axes, v, v);
		p = isl_printer_end_line(p);
	}
	p = isl_printer_indent(p, -2);
	return dmd_file_line(p, "};");
}

/* The tensor table: shapes, then { name, file, init, seed, ndim, shape,
 * output } per tensor (file only for inputs read from it and outputs). */
static __isl_give isl_printer *dmd_file_tensors(const struct dmd_model *m,
	__isl_take isl_printer *p)
{
	const struct dmd_job *job = m->job;
	int t, d;

	for (t = 0; t < job->n_tensors; ++t) {
		const struct dmd_tensor *tn = &job->tensors[t];

		if (!tn->ndim)
			continue;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "static const int64_t dmd_shape%d[] = "
			"{ ", t);
		for (d = 0; d < tn->ndim; ++d)
			p = dmd_emit_printf(p, "%s%ld", d ? ", " : "",
				tn->shape[d]);
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
	}
	p = dmd_file_line(p, "static const dmd_tensor_desc dmd_tensors[] = {");
	p = isl_printer_indent(p, 2);
	for (t = 0; t < job->n_tensors; ++t) {
		const struct dmd_tensor *tn = &job->tensors[t];
		const struct dmd_tensor_use *u = &m->use[t];
		int file = tn->file && ((u->input) || u->output);

		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "{ ");
		p = dmd_emit_cstr(p, tn->name);
		p = isl_printer_print_str(p, ", ");
		if (file)
			p = dmd_emit_cstr(p, tn->file);
		else
			p = isl_printer_print_str(p, "NULL");
		p = dmd_emit_printf(p, ", %s, %lluULL, %d, ",
			dmd_file_init(u->input && !tn->file ? tn->init :
				DMD_INIT_NONE), tn->seed, tn->ndim);
		if (tn->ndim)
			p = dmd_emit_printf(p, "dmd_shape%d", t);
		else
			p = isl_printer_print_str(p, "NULL");
		p = dmd_emit_printf(p, ", %d },", u->output);
		p = isl_printer_end_line(p);
	}
	if (!job->n_tensors)
		p = dmd_file_line(p, "{ NULL, NULL, 0, 0, 0, NULL, 0 },");
	p = isl_printer_indent(p, -2);
	return dmd_file_line(p, "};");
}

/* Does some tensor of "m" have a cyclic dimension? */
static int dmd_file_has_cyclic(const struct dmd_model *m)
{
	int t;

	for (t = 0; t < m->job->n_tensors; ++t)
		if (m->lay[t] && m->lay[t]->local)
			return 1;
	return 0;
}

/* The cyclic dimensions of the tensors (dmd_job_desc.cyclic): per cyclic
 * tensor "static const int64_t dmd_cyclic<t>[] = { S, B, L, ... };"
 * (0, 0, 0 for a dimension that is not cyclic), then the table. */
static __isl_give isl_printer *dmd_file_cyclic(const struct dmd_model *m,
	__isl_take isl_printer *p)
{
	int t, d;

	for (t = 0; t < m->job->n_tensors; ++t) {
		const struct dmd_layout *lay = m->lay[t];

		if (!lay || !lay->local)
			continue;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "static const int64_t dmd_cyclic%d[] = "
			"{ ", t);
		for (d = 0; d < lay->ndim; ++d)
			p = dmd_emit_printf(p, "%s%ld, %ld, %ld", d ? ", " : "",
				lay->cyc[d], lay->cyc[d] ? lay->cyc_B[d] : 0,
				lay->cyc[d] ? lay->cyc_L[d] : 0);
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
	}
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const int64_t *const dmd_cyclic[] "
		"= { ");
	for (t = 0; t < m->job->n_tensors; ++t) {
		p = isl_printer_print_str(p, t ? ", " : "");
		if (m->lay[t] && m->lay[t]->local)
			p = dmd_emit_printf(p, "dmd_cyclic%d", t);
		else
			p = isl_printer_print_str(p, "NULL");
	}
	p = isl_printer_print_str(p, " };");
	return isl_printer_end_line(p);
}

/* The labels of the steps, dmd_step_labels[]: "step 1: C = A @ B". */
static __isl_give isl_printer *dmd_file_step_labels(
	const struct dmd_model *m, __isl_take isl_printer *p)
{
	int i;

	p = dmd_file_line(p, "static const char *const dmd_step_labels[] = {");
	p = isl_printer_indent(p, 2);
	for (i = 0; i < m->n_poly; ++i) {
		char *label;
		size_t len = strlen(m->poly[i]->label) + 32;

		label = malloc(len);
		if (!label)
			return isl_printer_free(p);
		snprintf(label, len, "step %d: %s", i + 1, m->poly[i]->label);
		p = isl_printer_start_line(p);
		p = dmd_emit_cstr(p, label);
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		free(label);
	}
	p = isl_printer_indent(p, -2);
	return dmd_file_line(p, "};");
}

/* The text of common.h for a build of "n" classes. */
static char *dmd_file_common(const struct dmd_plan *plan, int n)
{
	const struct dmd_model *m = plan->m;
	const struct dmd_job *job = m->job;
	isl_printer *p;
	char *s;
	int i;

	p = isl_printer_to_str(m->ctx);
	p = isl_printer_print_str(p, "/* distmpmd: job '");
	p = dmd_emit_ctext(p, job->name);
	p = isl_printer_print_str(p, "': what every class program of the "
		"build shares.\n");
	p = dmd_file_line(p, " * Generated by distmpmd from the job file; do "
		"not edit.");
	p = dmd_file_line(p, " */");
	p = dmd_file_line(p, "#ifndef DMD_COMMON_H");
	p = dmd_file_line(p, "#define DMD_COMMON_H");
	p = dmd_file_line(p, "");
	p = dmd_file_line(p, "#include <math.h>");
	p = dmd_file_line(p, "#include <stdint.h>");
	p = dmd_file_line(p, "#include <string.h>");
	p = dmd_file_line(p, "#include \"dmd_rt.h\"");
	p = dmd_file_line(p, "#include \"dmd_emit_ops.h\"");
	p = dmd_file_line(p, "");
	p = dmd_file_line(p, "/* where relative .npy paths start (set by "
		"distmpmd build) */");
	p = dmd_file_line(p, "#ifndef DMD_JOB_DIR");
	p = dmd_file_line(p, "#define DMD_JOB_DIR \".\"");
	p = dmd_file_line(p, "#endif");
	p = dmd_file_line(p, "");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const int dmd_mesh_shape[] = { ");
	for (i = 0; i < job->n_axes; ++i)
		p = dmd_emit_printf(p, "%s%ld", i ? ", " : "",
			job->mesh_shape[i]);
	p = isl_printer_print_str(p, " };");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const char *const dmd_axis_names[]"
		" = { ");
	for (i = 0; i < job->n_axes; ++i) {
		p = isl_printer_print_str(p, i ? ", " : "");
		p = dmd_emit_cstr(p, job->axes[i]);
	}
	p = isl_printer_print_str(p, " };");
	p = isl_printer_end_line(p);
	p = dmd_file_views(m, p);
	p = dmd_file_tensors(m, p);
	if (dmd_file_has_cyclic(m))
		p = dmd_file_cyclic(m, p);
	p = dmd_file_step_labels(m, p);
	p = dmd_file_line(p, "static const dmd_job_desc dmd_job = {");
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, ".job = ");
	p = dmd_emit_cstr(p, job->name);
	p = dmd_emit_printf(p, ", .n_axes = %d, .mesh_shape = dmd_mesh_shape,",
		job->n_axes);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, ".axis_names = dmd_axis_names, .nranks = %ld, "
		".nclasses = %d,", job->nranks, n);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, ".dtype = %s, .flops = ", job->dtype ==
		DMD_F32 ? "DMD_RT_F32" : "DMD_RT_F64");
	if (m->flops >= 0)
		p = dmd_emit_printf(p, "%.17g", m->flops);
	else
		p = isl_printer_print_str(p, "-1");
	p = isl_printer_print_str(p, ", .job_dir = DMD_JOB_DIR,");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, ".n_tensors = %d, .tensors = dmd_tensors, "
		".n_steps = %d,", job->n_tensors, m->n_poly);
	p = isl_printer_end_line(p);
	p = dmd_file_line(p, ".step_labels = dmd_step_labels,");
	if (job->n_views) {
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, ".n_views = %d, .views = dmd_views,",
			job->n_views);
		p = isl_printer_end_line(p);
	}
	if (dmd_file_has_cyclic(m))
		p = dmd_file_line(p, ".cyclic = dmd_cyclic,");
	p = isl_printer_indent(p, -2);
	p = dmd_file_line(p, "};");
	p = dmd_file_line(p, "");
	p = dmd_file_line(p, "#endif");
	s = isl_printer_get_str(p);
	isl_printer_free(p);
	return s;
}

/* Print line "l" of a class's blocks (dmd_part_blocks:
 * "A: dim 0: 2 blocks of 2 (dealt over 2 holders), dim 1: ...; 4 x 6
 * elements") in the header of its file, as comment lines under
 * DMD_EMIT_COLUMNS columns: broken after the ", " before a dimension
 * where the line would be too wide, continued 2 columns deeper. */
static __isl_give isl_printer *dmd_file_blocks_line(
	__isl_take isl_printer *p, const char *l)
{
	const char *indent = " *   ";
	size_t width = DMD_EMIT_COLUMNS - 1, n = strlen(l);

	while (p && n > 0) {
		size_t len = n, i;
		char *part;

		if (strlen(indent) + n > width)
			for (i = 1; i + 6 <= n; ++i) {
				if (strncmp(l + i, ", dim ", 6))
					continue;
				if (strlen(indent) + i + 1 > width &&
				    len != n)
					break;
				len = i + 1;
			}
		part = strndup(l, len);
		if (!part)
			return isl_printer_free(p);
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, indent);
		p = dmd_emit_ctext(p, part);
		p = isl_printer_end_line(p);
		free(part);
		l += len;
		n -= len;
		while (n > 0 && *l == ' ') {
			++l;
			--n;
		}
		indent = " *     ";
	}
	return p;
}

/* The whole file of class "c" (number "id" of "n") around "body". */
char *dmd_emit_file(const struct dmd_model *m, const struct dmd_class *c,
	int id, int n, const char *body)
{
	isl_printer *p;
	char *s;
	long count = 0;
	int i;

	p = isl_printer_to_str(m->ctx);
	p = isl_printer_print_str(p, "/* distmpmd: job '");
	p = dmd_emit_ctext(p, m->job->name);
	p = dmd_emit_printf(p, "', class %d of %d.\n", id, n);
	p = dmd_file_line(p, " *");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, " * Ranks: ");
	p = dmd_emit_ctext(p, c->set_text);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, " *   (rank ");
	for (i = 0; i < c->n_ranges; ++i) {
		p = isl_printer_print_str(p, i ? ", " : "");
		if (c->ranges[i][0] == c->ranges[i][1])
			p = dmd_emit_printf(p, "%ld", c->ranges[i][0]);
		else
			p = dmd_emit_printf(p, "%ld-%ld", c->ranges[i][0],
				c->ranges[i][1]);
		count += c->ranges[i][1] - c->ranges[i][0] + 1;
	}
	p = dmd_emit_printf(p, "; %ld rank%s)", count, count == 1 ? "" : "s");
	p = isl_printer_end_line(p);
	p = dmd_file_line(p, " * Why these ranks form a class:");
	for (i = 0; i < c->why.n; ++i) {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, " *   ");
		p = dmd_emit_ctext(p, c->why.fact[i]);
		p = isl_printer_end_line(p);
	}
	if (c->blocks.n)
		p = dmd_file_line(p, " * Blocks held (cyclic layouts: a rank "
			"keeps its blocks one after another):");
	for (i = 0; i < c->blocks.n; ++i)
		p = dmd_file_blocks_line(p, c->blocks.fact[i]);
	p = dmd_file_line(p, " * Generated by distmpmd from the job file; "
		"do not edit.");
	p = dmd_file_line(p, " */");
	p = dmd_file_line(p, "#include \"common.h\"");
	p = dmd_file_line(p, "");
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "enum { dmd_class_id = %d, dmd_class_nranges = "
		"%d };", id, c->n_ranges);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const int64_t dmd_class_ranks[][2] "
		"= {");
	for (i = 0; i < c->n_ranges; ++i) {
		if (i % 4 == 0) {
			p = isl_printer_end_line(p);
			p = isl_printer_start_line(p);
			p = isl_printer_print_str(p, " ");
		}
		p = dmd_emit_printf(p, " { %ld, %ld },", c->ranges[i][0],
			c->ranges[i][1]);
	}
	p = isl_printer_end_line(p);
	p = dmd_file_line(p, "};");
	p = dmd_file_line(p, "");
	p = dmd_file_line(p, "int main(int argc, char **argv)");
	p = isl_printer_print_str(p, body);
	s = isl_printer_get_str(p);
	isl_printer_free(p);
	return s;
}

/* qsort order of classes: by their first rank. */
static int dmd_file_cmp(const void *a, const void *b)
{
	const struct dmd_class *x = a, *y = b;

	return x->ranges[0][0] < y->ranges[0][0] ? -1 :
		x->ranges[0][0] > y->ranges[0][0];
}

/* The body of the program of every cell, printed from its program in
 * "specs", as a new array of specs->n strings. */
char **dmd_emit_cells(const struct dmd_specs *specs)
{
	char **body;
	int i;

	body = calloc(specs->n + 1, sizeof(*body));
	if (!body)
		return NULL;
	for (i = 0; i < specs->n; ++i) {
		body[i] = dmd_emit_body(specs->spec[i]);
		if (!body[i])
			return dmd_emit_bodies_free(body, specs->n);
	}
	return body;
}

/* Release the "n" bodies "body"; returns NULL. */
char **dmd_emit_bodies_free(char **body, int n)
{
	int i;

	for (i = 0; body && i < n; ++i)
		free(body[i]);
	free(body);
	return NULL;
}

/* Merge the cells of "cells" whose printed bodies "body" are identical
 * into classes (a class is the union of its cells' sets), number them by
 * their first rank, explain each with "facts", and wrap its body in its
 * file.  Takes the bodies. */
__isl_give struct dmd_classes *dmd_emit_merge(const struct dmd_plan *plan,
	const struct dmd_facts *facts, const struct dmd_cells *cells,
	char **body)
{
	const struct dmd_model *m = plan->m;
	struct dmd_classes *res;
	int i, j;

	res = calloc(1, sizeof(*res));
	if (!res || !body)
		goto error;
	res->cls = calloc(cells->n + 1, sizeof(*res->cls));
	if (!res->cls)
		goto error;
	for (i = 0; i < cells->n; ++i) {
		for (j = 0; j < res->n; ++j)
			if (!strcmp(body[i], res->cls[j].code))
				break;
		if (j < res->n) {
			res->cls[j].set = isl_set_coalesce(isl_set_union(
				res->cls[j].set,
				isl_set_copy(cells->cell[i].set)));
			continue;
		}
		res->cls[res->n].set = isl_set_copy(cells->cell[i].set);
		res->cls[res->n++].code = body[i];
		body[i] = NULL;
	}
	for (j = 0; j < res->n; ++j) {
		struct dmd_class *c = &res->cls[j];
		isl_set *d;

		c->n_ranges = dmd_part_rank_ranges(m, c->set, &c->ranges,
			&c->count);
		if (c->n_ranges < 1)
			goto error;
		d = dmd_mesh_display(m->mesh, m->job, isl_set_copy(c->set));
		c->set_text = isl_set_to_str(d);
		isl_set_free(d);
		if (dmd_part_explain(m, facts, c->set, &c->why) < 0)
			goto error;
		c->why_line = dmd_part_why_line(&c->why);
		if (dmd_part_blocks(m, c->set, &c->blocks) < 0)
			goto error;
		if (!c->set_text || !c->why_line)
			goto error;
	}
	qsort(res->cls, res->n, sizeof(*res->cls), &dmd_file_cmp);
	for (j = 0; j < res->n; ++j) {
		struct dmd_class *c = &res->cls[j];
		char *file = dmd_emit_file(m, c, j, res->n, c->code);

		if (!file)
			goto error;
		c->body = c->code;
		c->code = file;
	}
	res->common = dmd_file_common(plan, res->n);
	if (!res->common)
		goto error;
	dmd_emit_bodies_free(body, cells->n);
	return res;
error:
	dmd_emit_bodies_free(body, cells->n);
	return dmd_emit_classes_free(res);
}

/* Print every cell's program and merge them (dmd_emit_cells, then
 * dmd_emit_merge) into *classes: DMD_OK or DMD_INTERNAL. */
enum dmd_status dmd_emit_classes(const struct dmd_plan *plan,
	const struct dmd_facts *facts, const struct dmd_cells *cells,
	const struct dmd_specs *specs, __isl_give struct dmd_classes **classes)
{
	*classes = dmd_emit_merge(plan, facts, cells, dmd_emit_cells(specs));
	return *classes ? DMD_OK : DMD_INTERNAL;
}

/* Release "c"; returns NULL. */
__isl_null struct dmd_classes *dmd_emit_classes_free(
	__isl_take struct dmd_classes *c)
{
	int i;

	if (!c)
		return NULL;
	for (i = 0; c->cls && i < c->n; ++i) {
		isl_set_free(c->cls[i].set);
		free(c->cls[i].set_text);
		dmd_part_why_clear(&c->cls[i].why);
		free(c->cls[i].why_line);
		dmd_part_why_clear(&c->cls[i].blocks);
		free(c->cls[i].code);
		free(c->cls[i].body);
		free(c->cls[i].ranges);
	}
	free(c->cls);
	free(c->common);
	free(c);
	return NULL;
}
