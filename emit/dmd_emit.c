/* dmd_emit.c: the C program of a cell, the header shared by the class
 * programs (common.h) and the file of a class.
 *
 * The program of a cell, for PUMMA:
 *   int main(int argc, char **argv)
 *   {
 *     dmd_rt *const rt = dmd_init(...);
 *     const int64_t c_x = dmd_coord(rt, 0), c_y = dmd_coord(rt, 1);
 *     (tensor buffers: blocks, ghost cells, reads; transfer buffers)
 *     dmd_compute_begin(rt);
 *     (each step, in a block declaring its views; repeats as loops)
 *     dmd_compute_end(rt);
 *     (output writes)
 *     return dmd_finish(rt);
 *   }
 * Each step is printed twice: the first pass records which view
 * components the step reads, the second prints it updating only those,
 * and the declarations come before it.  The set-up likewise declares only
 * the variables the program uses, so the code compiles without warnings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>

#include "emit/dmd_emit_private.h"
#include "ir/dmd_isl.h"

/* Release the names of "names". */
void dmd_emit_names_clear(struct dmd_emit_names *names)
{
	int i;

	for (i = 0; i < names->n; ++i)
		free(names->name[i]);
	free(names->name);
	names->name = NULL;
	names->n = 0;
}

/* Is "name" in "names"? */
static int dmd_emit_names_find(const struct dmd_emit_names *names,
	const char *name)
{
	int i;

	for (i = 0; names && i < names->n; ++i)
		if (!strcmp(names->name[i], name))
			return 1;
	return 0;
}

/* Add "name" to "names" (once). */
int dmd_emit_names_add(struct dmd_emit_names *names, const char *name)
{
	char **n;

	if (dmd_emit_names_find(names, name))
		return 0;
	n = realloc(names->name, (names->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	names->name = n;
	names->name[names->n] = strdup(name);
	return names->name[names->n++] ? 0 : -1;
}

/* kind (from "fmt" and "ap") "_" user, malloc'ed. */
static char *dmd_emit_vname(const char *user, const char *fmt, va_list ap)
{
	char kind[64], *s;
	size_t n;

	vsnprintf(kind, sizeof(kind), fmt, ap);
	n = strlen(kind) + strlen(user ? user : "") + 2;
	s = malloc(n);
	if (s)
		snprintf(s, n, user ? "%s_%s" : "%s", kind, user);
	return s;
}

/* Print kind_user and record it as used (in the step and in main). */
__isl_give isl_printer *dmd_emit_use(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const char *user, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = dmd_emit_vname(user, fmt, ap);
	va_end(ap);
	if (!s || dmd_emit_names_add(&ctx->used, s) < 0 ||
	    dmd_emit_names_add(&ctx->top, s) < 0) {
		free(s);
		return isl_printer_free(p);
	}
	p = isl_printer_print_str(p, s);
	free(s);
	return p;
}

/* Is kind_user recorded in "names"? */
int dmd_emit_has(const struct dmd_emit_names *names, const char *user,
	const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	s = dmd_emit_vname(user, fmt, ap);
	va_end(ap);
	r = s && dmd_emit_names_find(names, s);
	free(s);
	return r;
}

/* The origin of dimension "d" of tensor "t"'s home buffer. */
__isl_give isl_printer *dmd_emit_home_o(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, int d)
{
	const char *user = ctx->m->job->tensors[t].name;

	return dmd_emit_use(ctx, p, user, ctx->plan->ghost[t] ? "ho%d" :
		"lo%d", d);
}

/* The extent of dimension "d" of tensor "t"'s home buffer. */
__isl_give isl_printer *dmd_emit_home_x(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, int d)
{
	const char *user = ctx->m->job->tensors[t].name;

	return dmd_emit_use(ctx, p, user, ctx->plan->ghost[t] ? "hx%d" :
		"ext%d", d);
}

/* One line of text. */
static __isl_give isl_printer *dmd_emit_line(__isl_take isl_printer *p,
	const char *s)
{
	if (!*s)
		return isl_printer_print_str(p, "\n");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, s);
	return isl_printer_end_line(p);
}

/* Print the expression of parameter-only "pa" on the cell, in the
 * coordinates of view "v" (-1: of the mesh). */
static __isl_give isl_printer *dmd_emit_param(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, __isl_keep isl_pw_aff *pa, int v)
{
	isl_ast_expr *e = dmd_spec_param_expr_in(ctx->spec, pa, v);

	if (!e)
		return isl_printer_free(p);
	p = isl_printer_print_ast_expr(p, e);
	isl_ast_expr_free(e);
	return p;
}

/* "(const int64_t[]){ lo0_A, lo1_A }" of kind "lo" or "ext". */
static __isl_give isl_printer *dmd_emit_block_arr(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, const char *kind)
{
	int n = ctx->m->lay[t]->ndim, d;
	const char *user = ctx->m->job->tensors[t].name;

	if (n == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		if (!strcmp(kind, "home_o"))
			p = dmd_emit_home_o(ctx, p, t, d);
		else if (!strcmp(kind, "home_x"))
			p = dmd_emit_home_x(ctx, p, t, d);
		else
			p = dmd_emit_use(ctx, p, user, "%s%d", kind, d);
	}
	return isl_printer_print_str(p, " }");
}

/* "c_y == ROOT ? ": whether the rank is the root of broadcast "x" (one
 * before the step's loops, whose root is a function of the mesh
 * coordinates only): the root reads its own home buffer, the others the
 * buffer the broadcast fills. */
static __isl_give isl_printer *dmd_emit_root_test(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_xfer *x)
{
	isl_ast_expr *e = dmd_spec_param_expr_in(ctx->spec, x->root,
		ctx->p->view);
	enum isl_ast_expr_type type;

	if (!e)
		return isl_printer_free(p);
	type = isl_ast_expr_get_type(e);
	p = dmd_emit_name(p, "c", dmd_job_axis_name(ctx->m->job, x->axis));
	p = isl_printer_print_str(p, " == ");
	if (type != isl_ast_expr_int && type != isl_ast_expr_id)
		p = isl_printer_print_str(p, "(");
	p = isl_printer_print_ast_expr(p, e);
	if (type != isl_ast_expr_int && type != isl_ast_expr_id)
		p = isl_printer_print_str(p, ")");
	isl_ast_expr_free(e);
	return isl_printer_print_str(p, " ? ");
}

/* The view declarations of the step being printed: for each tensor it
 * reads, v_A (pointer), vo<d>_A (origins), vx<d>_A (extents) of the
 * components the step reads, constant where the view is (home buffer,
 * buffer filled before the step's loops), initialised to the home buffer
 * where transfers at time loops change it; for the output, w_C.. (the
 * home buffer, or the step's own buffer when its results are returned).
 * restrict where no transfer of the step touches the buffer. */
static __isl_give isl_printer *dmd_emit_views(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p)
{
	const struct dmd_poly *p0 = ctx->p;
	const struct dmd_step_plan *sp = ctx->sp;
	int a, b, i, d, t, nd;

	for (a = 0; a < p0->n_acc; ++a) {
		const struct dmd_xfer *x = NULL;
		const char *user, *cst;
		int restrict_ok = 1, mut, root;

		t = p0->acc[a].tensor;
		user = ctx->m->job->tensors[t].name;
		nd = ctx->m->lay[t]->ndim;
		for (b = 0; b < a; ++b)
			if (p0->acc[b].tensor == t && (a == 0 || b > 0))
				break;
		if (a > 0 && b < a && b > 0)
			continue;
		if (a > 0 && (sp->provider[a] == -2 ||
		    !dmd_emit_has(&ctx->used, user, "v")))
			continue;
		if (a == 0) {
			/* the write view */
			if (!dmd_emit_has(&ctx->used, user, "w"))
				continue;
			x = sp->ret;
			for (i = 0; i < sp->n_xfer; ++i)
				if (sp->xfer[i]->tensor == t &&
				    sp->xfer[i]->use == DMD_USE_SNAPSHOT)
					restrict_ok = 0;
			if (x)
				restrict_ok = 0;
			p = isl_printer_start_line(p);
			p = dmd_emit_printf(p, "%s *%sconst ", ctx->real,
				restrict_ok ? "restrict " : "");
			p = dmd_emit_name(p, "w", user);
			p = isl_printer_print_str(p, " = ");
			if (x)
				p = dmd_emit_use(ctx, p, user, "r%d", x->id);
			else
				p = dmd_emit_use(ctx, p, user, "buf");
			p = isl_printer_print_str(p, ";");
			p = isl_printer_end_line(p);
			for (d = 0; d < 2 * nd; ++d) {
				int dd = d % nd;
				const char *k = d < nd ? "wo" : "wx";

				if (!dmd_emit_has(&ctx->used, user, "%s%d", k,
						dd))
					continue;
				p = isl_printer_start_line(p);
				p = isl_printer_print_str(p, "const int64_t ");
				p = dmd_emit_namef(p, user, "%s%d", k, dd);
				p = isl_printer_print_str(p, " = ");
				if (x && d < nd)
					p = dmd_emit_param(ctx, p,
						x->box.lo[dd], ctx->p->view);
				else if (x)
					p = dmd_emit_printf(p, "%ld",
						ctx->rx[x->id][dd]);
				else if (d < nd)
					p = dmd_emit_home_o(ctx, p, t, dd);
				else
					p = dmd_emit_home_x(ctx, p, t, dd);
				p = isl_printer_print_str(p, ";");
				p = isl_printer_end_line(p);
			}
			continue;
		}
		if (sp->provider[a] >= 0)
			x = ctx->plan->xfer[sp->provider[a]];
		mut = x && x->level >= 0;
		if (x && (!x->ghost || mut))
			restrict_ok = 0;
		if (x && x->ghost)
			restrict_ok = 0;
		cst = mut ? "" : "const ";
		root = x && !mut && x->kind == DMD_XFER_BCAST;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "const %s *%s%s", ctx->real,
			restrict_ok ? "restrict " : "", cst);
		p = dmd_emit_name(p, "v", user);
		p = isl_printer_print_str(p, " = ");
		if (root) {
			p = dmd_emit_root_test(ctx, p, x);
			p = dmd_emit_use(ctx, p, user, "buf");
			p = isl_printer_print_str(p, " : ");
		}
		if (!x || x->ghost || mut)
			p = dmd_emit_use(ctx, p, user, "buf");
		else
			p = dmd_emit_use(ctx, p, user, "r%d", x->id);
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
		for (d = 0; d < 2 * nd; ++d) {
			int dd = d % nd;
			const char *k = d < nd ? "vo" : "vx";

			if (!dmd_emit_has(&ctx->used, user, "%s%d", k, dd))
				continue;
			p = isl_printer_start_line(p);
			p = dmd_emit_printf(p, "%sint64_t ", cst);
			p = dmd_emit_namef(p, user, "%s%d", k, dd);
			p = isl_printer_print_str(p, " = ");
			if (root) {
				p = dmd_emit_root_test(ctx, p, x);
				p = d < nd ? dmd_emit_home_o(ctx, p, t, dd) :
					dmd_emit_home_x(ctx, p, t, dd);
				p = isl_printer_print_str(p, " : ");
			}
			if (!x || x->ghost || mut)
				p = d < nd ? dmd_emit_home_o(ctx, p, t, dd) :
					dmd_emit_home_x(ctx, p, t, dd);
			else if (d < nd)
				p = dmd_emit_param(ctx, p, x->box.lo[dd],
					ctx->p->view);
			else
				p = dmd_emit_printf(p, "%ld",
					ctx->rx[x->id][dd]);
			p = isl_printer_print_str(p, ";");
			p = isl_printer_end_line(p);
		}
	}
	return p;
}

/* Print the AST of step "s" into a new string (one pass). */
static char *dmd_emit_step_ast(struct dmd_emit_ctx *ctx, int s)
{
	isl_ast_print_options *opts;
	isl_printer *p;
	char *str;

	p = isl_printer_to_str(ctx->m->ctx);
	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	p = isl_printer_set_indent(p, 0);
	opts = isl_ast_print_options_alloc(ctx->m->ctx);
	opts = isl_ast_print_options_set_print_user(opts, &dmd_emit_user,
		ctx);
	p = isl_ast_node_print(ctx->spec->steps[s].ast, p, opts);
	str = isl_printer_get_str(p);
	isl_printer_free(p);
	return str;
}

/* Print "text" (lines) at the printer's indentation. */
static __isl_give isl_printer *dmd_emit_lines(__isl_take isl_printer *p,
	const char *text)
{
	const char *e;
	char *line;

	while (text && *text) {
		e = strchr(text, '\n');
		if (!e)
			e = text + strlen(text);
		line = strndup(text, e - text);
		if (!line)
			return isl_printer_free(p);
		p = dmd_emit_line(p, line);
		free(line);
		text = *e ? e + 1 : e;
	}
	return p;
}

/* Print step "s": its label, its block with the view declarations and
 * its AST (two passes, see the top of this file). */
static __isl_give isl_printer *dmd_emit_step(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int s)
{
	struct dmd_emit_names read = { 0, NULL };
	char *text;

	ctx->ss = &ctx->spec->steps[s];
	ctx->p = ctx->m->poly[s];
	ctx->sp = &ctx->plan->steps[s];
	dmd_emit_names_clear(&ctx->used);
	ctx->read = NULL;
	text = dmd_emit_step_ast(ctx, s);
	free(text);
	read = ctx->used;
	ctx->used.n = 0;
	ctx->used.name = NULL;
	ctx->read = &read;
	text = dmd_emit_step_ast(ctx, s);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "/* step %d: ", s + 1);
	p = dmd_emit_ctext(p, ctx->p->label);
	p = isl_printer_print_str(p, " */");
	p = isl_printer_end_line(p);
	p = dmd_emit_printf(isl_printer_start_line(p),
		"dmd_step_begin(rt, %d);", s);
	p = isl_printer_end_line(p);
	p = dmd_emit_line(p, "{");
	p = isl_printer_indent(p, 2);
	p = dmd_emit_views(ctx, p);
	p = dmd_emit_lines(p, text);
	p = isl_printer_indent(p, -2);
	p = dmd_emit_line(p, "}");
	p = dmd_emit_printf(isl_printer_start_line(p),
		"dmd_step_end(rt, %d);", s);
	p = isl_printer_end_line(p);
	free(text);
	dmd_emit_names_clear(&read);
	ctx->read = NULL;
	return p;
}

/* Print the program's nodes "node" (n of them); repeats are loops with
 * counters rep0, rep1, ... by depth. */
static __isl_give isl_printer *dmd_emit_nodes(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_node *node, int n,
	int depth)
{
	int i;

	for (i = 0; i < n; ++i) {
		if (node[i].type == DMD_NODE_STEP) {
			p = dmd_emit_step(ctx, p, node[i].step);
			continue;
		}
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "for (int64_t rep%d = 0; rep%d < %ld; "
			"++rep%d) {", depth, depth, node[i].n_repeat, depth);
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 2);
		p = dmd_emit_nodes(ctx, p, node[i].child, node[i].n_child,
			depth + 1);
		p = isl_printer_indent(p, -2);
		p = dmd_emit_line(p, "}");
	}
	return p;
}

/* The description of tensor "t" in a comment: "A[512, 2048]: read from
 * 'A.npy'" (user text defused). */
static __isl_give isl_printer *dmd_emit_tensor_comment(
	struct dmd_emit_ctx *ctx, __isl_take isl_printer *p, int t)
{
	const struct dmd_tensor *tn = &ctx->m->job->tensors[t];
	const struct dmd_tensor_use *u = &ctx->m->use[t];
	int d;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "/* ");
	p = dmd_emit_ctext(p, tn->name);
	if (tn->ndim) {
		p = isl_printer_print_str(p, "[");
		for (d = 0; d < tn->ndim; ++d)
			p = dmd_emit_printf(p, "%s%ld", d ? ", " : "",
				tn->shape[d]);
		p = isl_printer_print_str(p, "]");
	}
	if (u->input && tn->file) {
		p = isl_printer_print_str(p, ": read from '");
		p = dmd_emit_ctext(p, tn->file);
		p = isl_printer_print_str(p, "'");
	} else if (u->input)
		p = dmd_emit_printf(p, ": %s", tn->init == DMD_INIT_RANDOM ?
			"random" : tn->init == DMD_INIT_ONES ? "ones" :
			"zeros");
	else
		p = isl_printer_print_str(p, ": in memory");
	if (u->output) {
		p = isl_printer_print_str(p, ", written to '");
		p = dmd_emit_ctext(p, tn->file);
		p = isl_printer_print_str(p, "'");
	}
	if (ctx->plan->ghost[t])
		p = isl_printer_print_str(p, "; its buffer holds ghost cells");
	p = isl_printer_print_str(p, " */");
	return isl_printer_end_line(p);
}

/* One "const int64_t name = expr;" for each used component kind<d>. */
static __isl_give isl_printer *dmd_emit_scalars(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, const char *kind,
	isl_pw_aff *const *pa)
{
	const char *user = ctx->m->job->tensors[t].name;
	int d;

	for (d = 0; d < ctx->m->lay[t]->ndim; ++d) {
		if (!dmd_emit_has(&ctx->top, user, "%s%d", kind, d))
			continue;
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_namef(p, user, "%s%d", kind, d);
		p = isl_printer_print_str(p, " = ");
		p = dmd_emit_param(ctx, p, pa[d], ctx->m->lay[t]->view);
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
	}
	return p;
}

/* The set-up of tensor "t": block and buffer origins and extents, the
 * buffer, its input.  Printed after the program (so that only what it
 * uses is declared): "pre" is the text of its read. */
static __isl_give isl_printer *dmd_emit_tensor(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t)
{
	const struct dmd_layout *lay = ctx->m->lay[t];
	const char *user = ctx->m->job->tensors[t].name;

	p = dmd_emit_tensor_comment(ctx, p, t);
	p = dmd_emit_scalars(ctx, p, t, "lo", lay->lo);
	p = dmd_emit_scalars(ctx, p, t, "ext", lay->ext);
	p = dmd_emit_scalars(ctx, p, t, "ho", ctx->plan->home[t].lo);
	p = dmd_emit_scalars(ctx, p, t, "hx", ctx->plan->home[t].ext);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s *restrict const ", ctx->real);
	p = dmd_emit_name(p, "buf", user);
	p = dmd_emit_printf(p, " = dmd_alloc(rt, %ld);", ctx->home_size[t]);
	p = isl_printer_end_line(p);
	return p;
}

/* The calls that read tensor "t" (input) or write it (output). */
static __isl_give isl_printer *dmd_emit_io(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, int write)
{
	const char *user = ctx->m->job->tensors[t].name;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s(rt, %d, ", write ? "dmd_write" : "dmd_read",
		t);
	p = dmd_emit_block_arr(ctx, p, t, "lo");
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_block_arr(ctx, p, t, "ext");
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_use(ctx, p, user, "buf");
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 4);
	p = isl_printer_start_line(p);
	p = dmd_emit_block_arr(ctx, p, t, "home_o");
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_block_arr(ctx, p, t, "home_x");
	if (write) {
		isl_ast_expr *w;

		w = isl_ast_build_expr_from_set(ctx->spec->pbuild,
			isl_set_copy(ctx->m->lay[t]->writer));
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_expr(p, w);
		isl_ast_expr_free(w);
	}
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* The buffers and request of transfer "x": rx<k>_A (extents), r<k>_A or
 * r<k>a_A and r<k>b_A, q<k>. */
static __isl_give isl_printer *dmd_emit_xfer_setup(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_xfer *x)
{
	const struct dmd_model *m = ctx->m;
	const char *user = m->job->tensors[x->tensor].name;
	int nd = m->lay[x->tensor]->ndim, d, k;
	long n = 1;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_req *const q%d = dmd_req_new(rt, %d, %d, ",
		x->id, x->id + 1, x->step);
	{
		char *label;
		size_t len = strlen(user) + 128;
		const char *what = dmd_part_xfer_label(x);

		label = malloc(len);
		if (!label)
			return isl_printer_free(p);
		snprintf(label, len, "%s: %s (step %d)", user, what,
			x->step + 1);
		p = dmd_emit_cstr(p, label);
		free(label);
	}
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	if (!ctx->nbuf[x->id])
		return p;
	for (d = 0; d < nd; ++d)
		n *= ctx->rx[x->id][d];
	if (nd && dmd_emit_has(&ctx->top, user, "rx%d", x->id)) {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_namef(p, user, "rx%d", x->id);
		p = isl_printer_print_str(p, "[] = { ");
		for (d = 0; d < nd; ++d)
			p = dmd_emit_printf(p, "%s%ld", d ? ", " : "",
				ctx->rx[x->id][d]);
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
	}
	for (k = 0; k < ctx->nbuf[x->id]; ++k) {
		if (ctx->nbuf[x->id] == 1 ?
		    !dmd_emit_has(&ctx->top, user, "r%d", x->id) :
		    !dmd_emit_has(&ctx->top, user, "r%d%c", x->id, 'a' + k))
			continue;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "%s *restrict const ", ctx->real);
		if (ctx->nbuf[x->id] == 1)
			p = dmd_emit_namef(p, user, "r%d", x->id);
		else
			p = dmd_emit_namef(p, user, "r%d%c", x->id, 'a' + k);
		p = dmd_emit_printf(p, " = dmd_alloc(rt, %ld);", n);
		p = isl_printer_end_line(p);
	}
	return p;
}

/* The extents of the buffers of every transfer on the cell, and how many
 * buffers each has; the size of every home buffer. */
static int dmd_emit_sizes(struct dmd_emit_ctx *ctx)
{
	const struct dmd_plan *plan = ctx->plan;
	const struct dmd_model *m = ctx->m;
	int i, d, t;

	ctx->rx = calloc(plan->n_xfer + 1, sizeof(*ctx->rx));
	ctx->nbuf = calloc(plan->n_xfer + 1, sizeof(int));
	ctx->home_size = calloc(m->job->n_tensors + 1, sizeof(long));
	if (!ctx->rx || !ctx->nbuf || !ctx->home_size)
		return -1;
	for (i = 0; i < plan->n_xfer; ++i) {
		const struct dmd_xfer *x = plan->xfer[i];
		int nd = m->lay[x->tensor]->ndim;

		ctx->rx[i] = calloc(nd + 1, sizeof(long));
		if (!ctx->rx[i])
			return -1;
		for (d = 0; d < nd; ++d) {
			ctx->rx[i][d] = dmd_spec_max(ctx->spec,
				x->box.ext[d]);
			if (ctx->rx[i][d] < 0)
				return -1;
		}
		if (x->ghost)
			ctx->nbuf[i] = 0;
		else if (x->level >= 0)
			ctx->nbuf[i] = 2;
		else
			ctx->nbuf[i] = 1;
	}
	for (t = 0; t < m->job->n_tensors; ++t) {
		long n = 1;

		if (!m->lay[t])
			continue;	/* no step accesses it */
		for (d = 0; d < m->lay[t]->ndim; ++d) {
			long e = dmd_spec_max(ctx->spec,
				plan->home[t].ext[d]);

			if (e < 0)
				return -1;
			n *= e;
		}
		ctx->home_size[t] = n;
	}
	return 0;
}

/* Release what "ctx" holds. */
static void dmd_emit_ctx_clear(struct dmd_emit_ctx *ctx)
{
	int i;

	for (i = 0; ctx->rx && i < ctx->plan->n_xfer; ++i)
		free(ctx->rx[i]);
	free(ctx->rx);
	free(ctx->nbuf);
	free(ctx->home_size);
	dmd_emit_names_clear(&ctx->used);
	dmd_emit_names_clear(&ctx->top);
}

/* A new printer to a string, for C. */
static __isl_give isl_printer *dmd_emit_printer(isl_ctx *ctx)
{
	isl_printer *p = isl_printer_to_str(ctx);

	return isl_printer_set_output_format(p, ISL_FORMAT_C);
}

/* Does "text" mention identifier "name" (as a whole word)? */
static int dmd_emit_mentions(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	for (s = text; s && (s = strstr(s, name)); s += n) {
		char before = s == text ? ' ' : s[-1], after = s[n];

		if ((before == '_' || (before >= 'a' && before <= 'z') ||
		     (before >= 'A' && before <= 'Z') ||
		     (before >= '0' && before <= '9')))
			continue;
		if (after == '_' || (after >= 'a' && after <= 'z') ||
		    (after >= 'A' && after <= 'Z') ||
		    (after >= '0' && after <= '9'))
			continue;
		return 1;
	}
	return 0;
}

/* The body of the program of a cell: main(). */
char *dmd_emit_body(const struct dmd_spec *spec)
{
	struct dmd_emit_ctx ctx = { 0 };
	const struct dmd_model *m = spec->plan->m;
	isl_printer *p, *prog;
	char *text = NULL, *setup = NULL, *s = NULL;
	int i, t;

	ctx.spec = spec;
	ctx.plan = spec->plan;
	ctx.m = m;
	ctx.real = m->job->dtype == DMD_F32 ? "float" : "double";
	if (dmd_emit_sizes(&ctx) < 0)
		goto error;
	/* the program first, to know what the set-up must declare */
	prog = dmd_emit_printer(m->ctx);
	prog = isl_printer_indent(prog, 2);
	prog = dmd_emit_line(prog, "dmd_compute_begin(rt);");
	prog = dmd_emit_nodes(&ctx, prog, m->node, m->n_node, 0);
	prog = dmd_emit_line(prog, "dmd_compute_end(rt);");
	for (t = 0; t < m->job->n_tensors; ++t)
		if (m->use[t].output)
			prog = dmd_emit_io(&ctx, prog, t, 1);
	prog = dmd_emit_line(prog, "return dmd_finish(rt);");
	text = isl_printer_get_str(prog);
	isl_printer_free(prog);
	if (!text)
		goto error;
	/* then the set-up of the tensors and transfers */
	p = dmd_emit_printer(m->ctx);
	p = isl_printer_indent(p, 2);
	for (t = 0; t < m->job->n_tensors; ++t) {
		isl_printer *io;
		char *rd;

		if (!m->use[t].used)
			continue;
		/* the read first, so that its names count as used */
		io = dmd_emit_printer(m->ctx);
		io = isl_printer_indent(io, 2);
		if (m->use[t].input)
			io = dmd_emit_io(&ctx, io, t, 0);
		rd = isl_printer_get_str(io);
		isl_printer_free(io);
		p = dmd_emit_line(p, "");
		p = dmd_emit_tensor(&ctx, p, t);
		p = isl_printer_print_str(p, rd);
		free(rd);
	}
	if (ctx.plan->n_xfer)
		p = dmd_emit_line(p, "");
	for (i = 0; i < ctx.plan->n_xfer; ++i)
		p = dmd_emit_xfer_setup(&ctx, p, ctx.plan->xfer[i]);
	setup = isl_printer_get_str(p);
	isl_printer_free(p);
	if (!setup)
		goto error;
	p = dmd_emit_printer(m->ctx);
	p = dmd_emit_line(p, "int main(int argc, char **argv)");
	p = dmd_emit_line(p, "{");
	p = isl_printer_indent(p, 2);
	p = dmd_emit_line(p, "dmd_rt *const rt = dmd_init(&argc, &argv, "
		"&dmd_job, dmd_class_id,");
	p = dmd_emit_line(p, "    dmd_class_nranges, dmd_class_ranks);");
	for (i = 0; i < m->mesh->n_all; ++i) {
		char *c = dmd_mesh_coord_name(m->job, i);

		if (c && (dmd_emit_mentions(setup, c) ||
			  dmd_emit_mentions(text, c))) {
			p = isl_printer_start_line(p);
			p = dmd_emit_printf(p, "const int64_t %s = "
				"dmd_coord(rt, %d);", c, i);
			p = isl_printer_end_line(p);
		}
		free(c);
	}
	p = isl_printer_print_str(p, setup);
	p = isl_printer_print_str(p, text);
	p = isl_printer_indent(p, -2);
	p = dmd_emit_line(p, "}");
	s = dmd_emit_wrap(isl_printer_get_str(p));
	isl_printer_free(p);
error:
	free(text);
	free(setup);
	dmd_emit_ctx_clear(&ctx);
	return s;
}
