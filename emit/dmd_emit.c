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
 * Printed in one pass from the typed program of the cell
 * (specialize/dmd_spec.h): its buffers, the views of each step with the
 * components its statements read, and the names the code uses, so that
 * only those are declared (the code compiles without warnings) and
 * nothing here decides what the code does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>

#include "emit/dmd_emit_private.h"
#include "ir/dmd_isl.h"

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
	isl_ast_expr *e = ctx->spec->xbuf[x->id].root;
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
	return isl_printer_print_str(p, " ? ");
}

/* The declarations of the write view "v" (w_C, wo<d>_C, wx<d>_C of the
 * components its step reads): the home buffer, or the step's own buffer
 * when its results are returned. */
static __isl_give isl_printer *dmd_emit_write_view(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_view *v)
{
	const struct dmd_xfer *x = v->xfer;
	int t = v->tensor, nd = ctx->m->lay[t]->ndim, d;
	const char *user = ctx->m->job->tensors[t].name;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s *%sconst ", ctx->real,
		v->restrict_ok ? "restrict " : "");
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

		if (!(((d < nd ? v->o : v->x) >> dd) & 1))
			continue;
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_namef(p, user, "%s%d", d < nd ? "wo" : "wx", dd);
		p = isl_printer_print_str(p, " = ");
		if (x && d < nd)
			p = isl_printer_print_ast_expr(p,
				ctx->spec->xbuf[x->id].lo[dd]);
		else if (x)
			p = dmd_emit_printf(p, "%ld",
				ctx->spec->xbuf[x->id].ext[dd]);
		else if (d < nd)
			p = dmd_emit_home_o(ctx, p, t, dd);
		else
			p = dmd_emit_home_x(ctx, p, t, dd);
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
	}
	return p;
}

/* The value of component "d" (an origin if d < nd, else an extent) of
 * read view "v": the home buffer's, the box of its transfer fixed before
 * the loops (whose buffer's extents are numbers), or chosen by the root
 * test of a broadcast before the loops. */
static __isl_give isl_printer *dmd_emit_view_comp(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_view *v, int d,
	int nd)
{
	const struct dmd_xfer *x = v->xfer;
	int t = v->tensor, dd = d % nd;

	if (v->root) {
		p = dmd_emit_root_test(ctx, p, x);
		p = d < nd ? dmd_emit_home_o(ctx, p, t, dd) :
			dmd_emit_home_x(ctx, p, t, dd);
		p = isl_printer_print_str(p, " : ");
	}
	if (!x || x->ghost || v->mut)
		return d < nd ? dmd_emit_home_o(ctx, p, t, dd) :
			dmd_emit_home_x(ctx, p, t, dd);
	if (d < nd)
		return isl_printer_print_ast_expr(p,
			ctx->spec->xbuf[x->id].lo[dd]);
	return dmd_emit_printf(p, "%ld", ctx->spec->xbuf[x->id].ext[dd]);
}

/* The declarations of read view "v" (v_A, vo<d>_A, vx<d>_A of the
 * components its step reads), constant unless waits at a time loop
 * update it. */
static __isl_give isl_printer *dmd_emit_read_view(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_view *v)
{
	const struct dmd_xfer *x = v->xfer;
	int t = v->tensor, nd = ctx->m->lay[t]->ndim, d;
	const char *user = ctx->m->job->tensors[t].name;
	const char *cst = v->mut ? "" : "const ";

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "const %s *%s%s", ctx->real,
		v->restrict_ok ? "restrict " : "", cst);
	p = dmd_emit_name(p, "v", user);
	p = isl_printer_print_str(p, " = ");
	if (v->root) {
		p = dmd_emit_root_test(ctx, p, x);
		p = dmd_emit_use(ctx, p, user, "buf");
		p = isl_printer_print_str(p, " : ");
	}
	if (!x || x->ghost || v->mut)
		p = dmd_emit_use(ctx, p, user, "buf");
	else
		p = dmd_emit_use(ctx, p, user, "r%d", x->id);
	p = isl_printer_print_str(p, ";");
	p = isl_printer_end_line(p);
	for (d = 0; d < 2 * nd; ++d) {
		if (!(((d < nd ? v->o : v->x) >> (d % nd)) & 1))
			continue;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "%sint64_t ", cst);
		p = dmd_emit_namef(p, user, "%s%d", d < nd ? "vo" : "vx",
			d % nd);
		p = isl_printer_print_str(p, " = ");
		p = dmd_emit_view_comp(ctx, p, v, d, nd);
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
	}
	return p;
}

/* The view declarations of step "ss" (specialize/dmd_spec.h), of the
 * views its statements read through. */
static __isl_give isl_printer *dmd_emit_views(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_step *ss)
{
	int i;

	for (i = 0; i < ss->n_view; ++i) {
		if (!ss->view[i].ptr)
			continue;
		if (ss->view[i].write)
			p = dmd_emit_write_view(ctx, p, &ss->view[i]);
		else
			p = dmd_emit_read_view(ctx, p, &ss->view[i]);
	}
	return p;
}

/* Print step "s": its label, its block with the view declarations and
 * its AST. */
static __isl_give isl_printer *dmd_emit_step(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int s)
{
	isl_ast_print_options *opts;

	ctx->ss = &ctx->spec->steps[s];
	ctx->p = ctx->m->poly[s];
	ctx->sp = &ctx->plan->steps[s];
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
	p = dmd_emit_views(ctx, p, ctx->ss);
	opts = isl_ast_print_options_alloc(ctx->m->ctx);
	opts = isl_ast_print_options_set_print_user(opts, &dmd_emit_user,
		ctx);
	p = isl_ast_node_print(ctx->ss->ast, p, opts);
	p = isl_printer_indent(p, -2);
	p = dmd_emit_line(p, "}");
	p = dmd_emit_printf(isl_printer_start_line(p),
		"dmd_step_end(rt, %d);", s);
	return isl_printer_end_line(p);
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

/* One "const int64_t kind<d>_A = e[d];" for each component d in "use"
 * (bit d). */
static __isl_give isl_printer *dmd_emit_scalars(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t, const char *kind, unsigned use,
	isl_ast_expr *const *e)
{
	const char *user = ctx->m->job->tensors[t].name;
	int d;

	for (d = 0; d < ctx->m->lay[t]->ndim; ++d) {
		if (!((use >> d) & 1))
			continue;
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_namef(p, user, "%s%d", kind, d);
		p = isl_printer_print_str(p, " = ");
		p = isl_printer_print_ast_expr(p, e[d]);
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
	}
	return p;
}

/* The set-up of tensor "t": the block's and home buffer's origins and
 * extents the code uses, the home buffer. */
static __isl_give isl_printer *dmd_emit_tensor(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t)
{
	const struct dmd_spec_tensor *st = &ctx->spec->tensor[t];
	const char *user = ctx->m->job->tensors[t].name;

	p = dmd_emit_tensor_comment(ctx, p, t);
	p = dmd_emit_scalars(ctx, p, t, "lo", st->use_lo, st->lo);
	p = dmd_emit_scalars(ctx, p, t, "ext", st->use_ext, st->ext);
	p = dmd_emit_scalars(ctx, p, t, "ho", st->use_ho, st->ho);
	p = dmd_emit_scalars(ctx, p, t, "hx", st->use_hx, st->hx);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s *restrict const ", ctx->real);
	p = dmd_emit_name(p, "buf", user);
	p = dmd_emit_printf(p, " = dmd_alloc(rt, %ld);", st->size);
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
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_expr(p, ctx->spec->tensor[t].writer);
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
	const struct dmd_spec_xbuf *xb = &ctx->spec->xbuf[x->id];
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
	if (!xb->n_buf)
		return p;
	for (d = 0; d < nd; ++d)
		n *= xb->ext[d];
	if (nd && xb->use_rx) {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_namef(p, user, "rx%d", x->id);
		p = isl_printer_print_str(p, "[] = { ");
		for (d = 0; d < nd; ++d)
			p = dmd_emit_printf(p, "%s%ld", d ? ", " : "",
				xb->ext[d]);
		p = isl_printer_print_str(p, " };");
		p = isl_printer_end_line(p);
	}
	for (k = 0; k < xb->n_buf; ++k) {
		if (!(xb->n_buf == 1 ? xb->use_r : k ? xb->use_rb :
		      xb->use_ra))
			continue;
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "%s *restrict const ", ctx->real);
		if (xb->n_buf == 1)
			p = dmd_emit_namef(p, user, "r%d", x->id);
		else
			p = dmd_emit_namef(p, user, "r%d%c", x->id, 'a' + k);
		p = dmd_emit_printf(p, " = dmd_alloc(rt, %ld);", n);
		p = isl_printer_end_line(p);
	}
	return p;
}

/* A new printer to a string, for C. */
static __isl_give isl_printer *dmd_emit_printer(isl_ctx *ctx)
{
	isl_printer *p = isl_printer_to_str(ctx);

	return isl_printer_set_output_format(p, ISL_FORMAT_C);
}

/* The string printed to "p" (taken); NULL if "p" failed. */
static char *dmd_emit_printer_str(__isl_take isl_printer *p)
{
	char *s = isl_printer_get_str(p);

	isl_printer_free(p);
	return s;
}

/* The set-up of the program: the coordinates, every tensor's buffer
 * (with the read of an input), every transfer's buffers and request. */
static __isl_give isl_printer *dmd_emit_setup(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p)
{
	const struct dmd_model *m = ctx->m;
	int i, t;

	for (i = 0; i < m->mesh->n_all; ++i) {
		if (!ctx->spec->use_coord[i])
			continue;
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "const int64_t ");
		p = dmd_emit_name(p, "c", dmd_job_axis_name(m->job, i));
		p = dmd_emit_printf(p, " = dmd_coord(rt, %d);", i);
		p = isl_printer_end_line(p);
	}
	for (t = 0; t < m->job->n_tensors; ++t) {
		if (!m->use[t].used)
			continue;
		p = dmd_emit_line(p, "");
		p = dmd_emit_tensor(ctx, p, t);
		if (m->use[t].input)
			p = dmd_emit_io(ctx, p, t, 0);
	}
	if (ctx->plan->n_xfer)
		p = dmd_emit_line(p, "");
	for (i = 0; i < ctx->plan->n_xfer; ++i)
		p = dmd_emit_xfer_setup(ctx, p, ctx->plan->xfer[i]);
	return p;
}

/* The body of the program of a cell: main(), in one pass. */
char *dmd_emit_body(const struct dmd_spec *spec)
{
	struct dmd_emit_ctx ctx = { 0 };
	const struct dmd_model *m = spec->plan->m;
	isl_printer *p;
	int t;

	ctx.spec = spec;
	ctx.plan = spec->plan;
	ctx.m = m;
	ctx.real = m->job->dtype == DMD_F32 ? "float" : "double";
	p = dmd_emit_printer(m->ctx);
	p = dmd_emit_line(p, "int main(int argc, char **argv)");
	p = dmd_emit_line(p, "{");
	p = isl_printer_indent(p, 2);
	p = dmd_emit_line(p, "dmd_rt *const rt = dmd_init(&argc, &argv, "
		"&dmd_job, dmd_class_id,");
	p = dmd_emit_line(p, "    dmd_class_nranges, dmd_class_ranks);");
	p = dmd_emit_setup(&ctx, p);
	p = dmd_emit_line(p, "dmd_compute_begin(rt);");
	p = dmd_emit_nodes(&ctx, p, m->node, m->n_node, 0);
	p = dmd_emit_line(p, "dmd_compute_end(rt);");
	for (t = 0; t < m->job->n_tensors; ++t)
		if (m->use[t].output)
			p = dmd_emit_io(&ctx, p, t, 1);
	p = dmd_emit_line(p, "return dmd_finish(rt);");
	p = isl_printer_indent(p, -2);
	p = dmd_emit_line(p, "}");
	return dmd_emit_wrap(dmd_emit_printer_str(p));
}
