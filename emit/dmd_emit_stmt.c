/* dmd_emit_stmt.c: one printer per statement kind of a step's program
 * (specialize/dmd_spec.h), called from the AST's print_user callback,
 * which only switches on the statement's kind.
 *
 * In a step, tensor A is read through its view v_A (vo0_A.. its first
 * element's global index, vx1_A.. its extents) and the output C is
 * written through w_C (wo.., wx..); transfer k of A has buffers r<k>_A
 * (or r<k>a_A and r<k>b_A, used in turn by the time points of its loop),
 * extents rx<k>_A, request q<k>.  For the stencil
 * B[i] = A[i - 1] + A[i] + A[i + 1]:
 *   w_B[(i_ii - wo0_B)] = v_A[(i_ii - 1 - vo0_A)] + ...;
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/id.h>

#include "emit/dmd_emit_private.h"

/* Print "e", in parentheses when it is a selection, a comparison or a
 * logical operation (so that it can be an operand of '-', '*' or '=='),
 * or a negative integer. */
__isl_give isl_printer *dmd_emit_expr(__isl_take isl_printer *p,
	__isl_keep isl_ast_expr *e)
{
	int paren = 0;

	if (isl_ast_expr_get_type(e) == isl_ast_expr_op)
		switch (isl_ast_expr_op_get_type(e)) {
		case isl_ast_expr_op_select:
		case isl_ast_expr_op_cond:
		case isl_ast_expr_op_eq:
		case isl_ast_expr_op_le:
		case isl_ast_expr_op_lt:
		case isl_ast_expr_op_ge:
		case isl_ast_expr_op_gt:
		case isl_ast_expr_op_and:
		case isl_ast_expr_op_or:
		case isl_ast_expr_op_and_then:
		case isl_ast_expr_op_or_else:
			paren = 1;
			break;
		default:
			break;
		}
	if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
		isl_val *v = isl_ast_expr_get_val(e);

		paren = isl_val_is_neg(v) == isl_bool_true;
		isl_val_free(v);
	}
	if (paren)
		p = isl_printer_print_str(p, "(");
	p = isl_printer_print_ast_expr(p, e);
	if (paren)
		p = isl_printer_print_str(p, ")");
	return p;
}

/* Print "a - b" (in parentheses where C needs them: "b" is a right
 * operand of '-'), or "0" when the two are the same expression. */
static __isl_give isl_printer *dmd_emit_diff(__isl_take isl_printer *p,
	__isl_keep isl_ast_expr *a, __isl_keep isl_ast_expr *b)
{
	int paren = 0;

	if (isl_ast_expr_is_equal(a, b) == isl_bool_true)
		return isl_printer_print_str(p, "0");
	p = dmd_emit_expr(p, a);
	p = isl_printer_print_str(p, " - ");
	if (isl_ast_expr_get_type(b) == isl_ast_expr_op)
		paren = isl_ast_expr_op_get_type(b) != isl_ast_expr_op_max &&
			isl_ast_expr_op_get_type(b) != isl_ast_expr_op_min &&
			isl_ast_expr_op_get_type(b) != isl_ast_expr_op_call &&
			isl_ast_expr_op_get_type(b) != isl_ast_expr_op_fdiv_q;
	if (!paren)
		return dmd_emit_expr(p, b);
	p = isl_printer_print_str(p, "(");
	p = isl_printer_print_ast_expr(p, b);
	return isl_printer_print_str(p, ")");
}

/* "(const int64_t[]){ e[0], .., e[n-1] }", or NULL for n == 0, each
 * minus the name "base" of dimension d when "base" is not NULL
 * (dmd_emit_use format with one %d: "vo%d"). */
static __isl_give isl_printer *dmd_emit_arr(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, isl_ast_expr **e, int n,
	const char *user, const char *base)
{
	int d;

	if (n == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		if (!base) {
			p = isl_printer_print_ast_expr(p, e[d]);
			continue;
		}
		p = dmd_emit_expr(p, e[d]);
		p = isl_printer_print_str(p, " - ");
		p = dmd_emit_use(ctx, p, user, base, d);
	}
	return isl_printer_print_str(p, " }");
}

/* The combs of a box (dmd_part_comb.c), "c" their expressions: period,
 * phase and run per dimension ({ 1, 0, 1 }: every element), then
 * "runs" - 1 further runs (start, length), the number of runs first if
 * there are several. */
static __isl_give isl_printer *dmd_emit_comb(__isl_take isl_printer *p,
	isl_ast_expr **c, int n, int runs)
{
	int d;

	if (runs > 1)
		p = dmd_emit_printf(p, "%d, ", runs);
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < (1 + 2 * runs) * n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = isl_printer_print_ast_expr(p, c[d]);
	}
	return isl_printer_print_str(p, " }");
}

/* The same, relative to tensor "t"'s home buffer's origin. */
static __isl_give isl_printer *dmd_emit_arr_home(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, isl_ast_expr **e, int n, int t)
{
	int d;

	if (n == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = dmd_emit_expr(p, e[d]);
		p = isl_printer_print_str(p, " - ");
		p = dmd_emit_home_o(ctx, p, t, d);
	}
	return isl_printer_print_str(p, " }");
}

/* "(const int64_t[]){ hx0_A, .. }": the extents of "t"'s home buffer. */
static __isl_give isl_printer *dmd_emit_home_arr(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, int t)
{
	int n = ctx->m->lay[t]->ndim, d;

	if (n == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = dmd_emit_home_x(ctx, p, t, d);
	}
	return isl_printer_print_str(p, " }");
}

/* "(const int64_t[]){ vx0_A, .. }" (kind "vx" or "wx"). */
static __isl_give isl_printer *dmd_emit_view_arr(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const char *kind, int t)
{
	int n = ctx->m->lay[t]->ndim, d;
	const char *user = ctx->m->job->tensors[t].name;

	if (n == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < n; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = dmd_emit_use(ctx, p, user, "%s%d", kind, d);
	}
	return isl_printer_print_str(p, " }");
}

/* The buffer of its transfer that the statement of "pl" uses at its
 * node (pl->which): r3_A, r3a_A, r3b_A or (par & 1 ? r3b_A : r3a_A). */
static __isl_give isl_printer *dmd_emit_buf(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const char *user = ctx->m->job->tensors[x->tensor].name;
	isl_ast_expr *par = dmd_spec_par(pl);

	switch (pl->which) {
	case DMD_SPEC_ONE:
		return dmd_emit_use(ctx, p, user, "r%d", x->id);
	case DMD_SPEC_FIRST:
		return dmd_emit_use(ctx, p, user, "r%da", x->id);
	case DMD_SPEC_SECOND:
		return dmd_emit_use(ctx, p, user, "r%db", x->id);
	case DMD_SPEC_BY_PARITY:
		break;
	}
	p = isl_printer_print_str(p, "(");
	if (isl_ast_expr_get_type(par) == isl_ast_expr_op)
		p = isl_printer_print_str(p, "(");
	p = isl_printer_print_ast_expr(p, par);
	if (isl_ast_expr_get_type(par) == isl_ast_expr_op)
		p = isl_printer_print_str(p, ")");
	p = isl_printer_print_str(p, " & 1 ? ");
	p = dmd_emit_use(ctx, p, user, "r%db", x->id);
	p = isl_printer_print_str(p, " : ");
	p = dmd_emit_use(ctx, p, user, "r%da", x->id);
	return isl_printer_print_str(p, ")");
}

/* The linear index of element e (nd expressions) in a buffer whose first
 * element is global "o"-kind names and whose extents are "x"-kind names
 * of "user": ((e0 - o0) * x1 + (e1 - o1)) * x2 + (e2 - o2). */
static __isl_give isl_printer *dmd_emit_index(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, isl_ast_expr **e, int nd,
	const char *user, const char *o, const char *x, int t)
{
	int d;

	if (nd == 0)
		return isl_printer_print_str(p, "0");
	for (d = 0; d + 2 < nd; ++d)
		p = isl_printer_print_str(p, "(");
	for (d = 0; d < nd; ++d) {
		if (d > 0) {
			p = isl_printer_print_str(p, " * ");
			if (!strcmp(x, "home"))
				p = dmd_emit_home_x(ctx, p, t, d);
			else
				p = dmd_emit_use(ctx, p, user, "%s%d", x, d);
			p = isl_printer_print_str(p, " + ");
		}
		p = isl_printer_print_str(p, "(");
		p = dmd_emit_expr(p, e[d]);
		p = isl_printer_print_str(p, " - ");
		if (!strcmp(o, "home"))
			p = dmd_emit_home_o(ctx, p, t, d);
		else
			p = dmd_emit_use(ctx, p, user, "%s%d", o, d);
		p = isl_printer_print_str(p, ")");
		if (d > 0 && d + 1 < nd)
			p = isl_printer_print_str(p, ")");
	}
	return p;
}

/* The compute statement while its right side is printed: its payload
 * (its accesses, u.comp.acc, and their index expressions) and the type
 * it computes in. */
struct dmd_emit_rhs {
	struct dmd_emit_ctx *ctx;
	const struct dmd_spec_payload *pl;
	const struct dmd_spec_ctype *type;
};

/* The precedence of a binary operator node (0: not one). */
static int dmd_emit_prec(const struct dmd_expr *e)
{
	switch (e->type) {
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
		return 1;
	case DMD_EXPR_MUL:
	case DMD_EXPR_DIV:
		return 2;
	default:
		return 0;
	}
}

static __isl_give isl_printer *dmd_emit_rhs(__isl_take isl_printer *p,
	struct dmd_emit_rhs *r, const struct dmd_expr *e);

/* Print operand "e" of an operator of precedence "outer", in parentheses
 * when C would otherwise read it differently ("right": the right operand,
 * where a - (b - c) and a / (b * c) need them). */
static __isl_give isl_printer *dmd_emit_operand(__isl_take isl_printer *p,
	struct dmd_emit_rhs *r, const struct dmd_expr *e, int outer,
	int right)
{
	int pe = dmd_emit_prec(e);
	int paren = pe && (pe < outer || (right && pe == outer));

	if (paren)
		p = isl_printer_print_str(p, "(");
	p = dmd_emit_rhs(p, r, e);
	if (paren)
		p = isl_printer_print_str(p, ")");
	return p;
}

/* Print the element of access "acc" of the compute statement of "pl"
 * through its view: v_A[..] (vo<d>_A, vx<d>_A) or w_C[..] (wo, wx). */
static __isl_give isl_printer *dmd_emit_access(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_payload *pl,
	const struct dmd_spec_access *acc)
{
	const struct dmd_spec_view *v = &ctx->ss->view[acc->view];
	const char *user = ctx->m->job->tensors[v->tensor].name;

	p = dmd_emit_use(ctx, p, user, v->write ? "w" : "v");
	p = isl_printer_print_str(p, "[");
	p = dmd_emit_index(ctx, p, dmd_spec_exprs(pl, acc->index),
		acc->n_index, user, v->write ? "wo" : "vo",
		v->write ? "wx" : "vx", v->tensor);
	return isl_printer_print_str(p, "]");
}

/* Print a read of tensor access "e": the access of the statement at
 * that node, through its view. */
static __isl_give isl_printer *dmd_emit_read(__isl_take isl_printer *p,
	struct dmd_emit_rhs *r, const struct dmd_expr *e)
{
	const struct dmd_spec_access *acc;

	acc = dmd_spec_access_at(r->pl->stmt, e);
	if (!acc)
		return isl_printer_free(p);
	return dmd_emit_access(r->ctx, p, r->pl, acc);
}

/* Print unary minus "e" as "-X" where X is an access, a call or a
 * number (never negative: the parser makes "-2" a NEG of 2), and as
 * "-(X)" for anything else, so that two minus signs never meet ("- -a"
 * is "-(-a)", not the decrement "--a") and "-(a * b)" keeps its
 * grouping.  Correct by construction: no operator is printed right
 * after "-" without a parenthesis between them. */
static __isl_give isl_printer *dmd_emit_neg(__isl_take isl_printer *p,
	struct dmd_emit_rhs *r, const struct dmd_expr *e)
{
	const struct dmd_expr *a = e->args[0];
	int atom = a->type == DMD_EXPR_ACCESS || a->type == DMD_EXPR_CALL ||
		a->type == DMD_EXPR_INT || a->type == DMD_EXPR_NUM;

	p = isl_printer_print_str(p, atom ? "-" : "-(");
	p = dmd_emit_rhs(p, r, a);
	if (!atom)
		p = isl_printer_print_str(p, ")");
	return p;
}

/* The C function of function "name" of spec 1.5 in double precision
 * (f32 == 0) or in float (f32 != 0), or NULL if there is none. */
static const char *dmd_emit_fn(const char *name, int f32)
{
	static const struct {
		const char *name, *c[2];
	} fn[] = {
		{ "max", { "dmd_max", "dmd_maxf" } },
		{ "min", { "dmd_min", "dmd_minf" } },
		{ "abs", { "fabs", "fabsf" } },
		{ "sigmoid", { "dmd_sigmoid", "dmd_sigmoidf" } },
		{ "gelu", { "dmd_gelu", "dmd_geluf" } },
		{ "exp", { "exp", "expf" } },
		{ "sqrt", { "sqrt", "sqrtf" } },
		{ "tanh", { "tanh", "tanhf" } },
		{ "erf", { "erf", "erff" } },
		{ "log", { "log", "logf" } },
		{ "relu", { "dmd_relu", "dmd_reluf" } },
	};
	int i;

	for (i = 0; i < (int) (sizeof(fn) / sizeof(fn[0])); ++i)
		if (!strcmp(name, fn[i].name))
			return fn[i].c[f32 != 0];
	return NULL;
}

/* Print number "v" (not negative: the parser makes "-2" a NEG of 2) as a
 * C constant of the job's type: "2.0", "0.25", "1e-07" in double; in
 * float (f32) rounded to float, "2.0f", "0.100000001f", and INFINITY
 * where it is out of the range of float. */
static __isl_give isl_printer *dmd_emit_number(__isl_take isl_printer *p,
	double v, int f32)
{
	char b[64];

	if (f32 && isinf((float) v))
		return isl_printer_print_str(p, "INFINITY");
	snprintf(b, sizeof(b), f32 ? "%.9g" : "%.17g", f32 ? (float) v : v);
	if (!strpbrk(b, ".eEn"))
		strcat(b, ".0");
	if (f32)
		strcat(b, "f");
	return isl_printer_print_str(p, b);
}

/* Print the right side "e", in the statement's type (double, or float:
 * single). */
static __isl_give isl_printer *dmd_emit_rhs(__isl_take isl_printer *p,
	struct dmd_emit_rhs *r, const struct dmd_expr *e)
{
	int f32 = r->type->single;
	const char *op, *fn;
	int j;

	switch (e->type) {
	case DMD_EXPR_INT:
		return dmd_emit_number(p, f32 ? (double) (float) e->ival :
			(double) e->ival, f32);
	case DMD_EXPR_NUM:
		return dmd_emit_number(p, e->fval, f32);
	case DMD_EXPR_ACCESS:
		return dmd_emit_read(p, r, e);
	case DMD_EXPR_NEG:
		return dmd_emit_neg(p, r, e);
	case DMD_EXPR_CALL:
		fn = dmd_emit_fn(e->name, f32);
		if (!fn)
			return isl_printer_free(p);
		/* dmd_max(dmd_max(a, b), c) for max(a, b, c): numpy's
		 * maximum.reduce folds from the left, and with signed
		 * zeros the order shows */
		for (j = 1; j < e->n_arg || j == 1; ++j) {
			p = isl_printer_print_str(p, fn);
			p = isl_printer_print_str(p, "(");
		}
		p = dmd_emit_rhs(p, r, e->args[0]);
		for (j = 1; j < e->n_arg; ++j) {
			p = isl_printer_print_str(p, ", ");
			p = dmd_emit_rhs(p, r, e->args[j]);
			p = isl_printer_print_str(p, ")");
		}
		if (e->n_arg == 1)
			p = isl_printer_print_str(p, ")");
		return p;
	case DMD_EXPR_ADD:
		op = " + ";
		break;
	case DMD_EXPR_SUB:
		op = " - ";
		break;
	case DMD_EXPR_MUL:
		op = " * ";
		break;
	case DMD_EXPR_DIV:
		op = " / ";
		break;
	default:
		return isl_printer_free(p);
	}
	p = dmd_emit_operand(p, r, e->args[0], dmd_emit_prec(e), 0);
	p = isl_printer_print_str(p, op);
	return dmd_emit_operand(p, r, e->args[1], dmd_emit_prec(e), 1);
}

/* w_C[...] = expr; or w_C[...] += expr; (the output's access added to:
 * the step sums into the element or accumulates). */
static __isl_give isl_printer *dmd_emit_comp(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_step *st = ctx->p->st;
	const struct dmd_spec_access *out;
	struct dmd_emit_rhs r = { ctx, pl, pl->stmt->u.comp.type };

	out = dmd_spec_access_at(pl->stmt, st->lhs);
	if (!out)
		return isl_printer_free(p);
	p = isl_printer_start_line(p);
	p = dmd_emit_access(ctx, p, pl, out);
	p = isl_printer_print_str(p, out->mode == DMD_SPEC_ADD ? " += " :
		" = ");
	p = dmd_emit_rhs(p, &r, st->rhs);
	p = isl_printer_print_str(p, ";");
	return isl_printer_end_line(p);
}

/* v_A + (r - vo0_A) * vx1_A + (c - vo1_A) (kind v or w). */
static __isl_give isl_printer *dmd_emit_corner(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const char *user, const char *v,
	__isl_keep isl_ast_expr *r, __isl_keep isl_ast_expr *c)
{
	char o[8], x[8];

	snprintf(o, sizeof(o), "%so", v);
	snprintf(x, sizeof(x), "%sx", v);
	p = dmd_emit_use(ctx, p, user, "%s", v);
	p = isl_printer_print_str(p, " + (");
	p = dmd_emit_expr(p, r);
	p = isl_printer_print_str(p, " - ");
	p = dmd_emit_use(ctx, p, user, "%s0", o);
	p = isl_printer_print_str(p, ") * ");
	p = dmd_emit_use(ctx, p, user, "%s1", x);
	p = isl_printer_print_str(p, " + (");
	p = dmd_emit_expr(p, c);
	p = isl_printer_print_str(p, " - ");
	p = dmd_emit_use(ctx, p, user, "%s1", o);
	p = isl_printer_print_str(p, "), ");
	return dmd_emit_use(ctx, p, user, "%s1", x);
}

/* dmd_gemm(rt, ta, tb, M, N, K, A.., lda, B.., ldb, C.., ldc) with lo
 * the origins of i, j, k and ext their extents (u.gemm); the corners of
 * A, B and C at the origins of their own dimensions when the step has
 * them (u.gemm.org: an operand indexed by the global index of another's
 * local coordinate). */
static __isl_give isl_printer *dmd_emit_gemm(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_poly *p0 = ctx->p;
	const struct dmd_gemm_info *g = p0->gemm;
	const char *A = p0->acc[g->acc_a].expr->name;
	const char *B = p0->acc[g->acc_b].expr->name;
	const char *C = p0->acc[0].expr->name;
	isl_ast_expr **e = dmd_spec_exprs(pl, pl->stmt->u.gemm.lo);
	isl_ast_expr **ext = dmd_spec_exprs(pl, pl->stmt->u.gemm.ext);
	isl_ast_expr **o = pl->stmt->u.gemm.org ?
		dmd_spec_exprs(pl, pl->stmt->u.gemm.org) : NULL;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_gemm(rt, %d, %d, ", g->ta, g->tb);
	p = isl_printer_print_ast_expr(p, ext[0]);
	p = isl_printer_print_str(p, ", ");
	p = isl_printer_print_ast_expr(p, ext[1]);
	p = isl_printer_print_str(p, ", ");
	p = isl_printer_print_ast_expr(p, ext[2]);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 4);
	p = isl_printer_start_line(p);
	if (o)
		p = dmd_emit_corner(ctx, p, A, "v", o[0], o[1]);
	else
		p = g->ta ? dmd_emit_corner(ctx, p, A, "v", e[2], e[0]) :
			dmd_emit_corner(ctx, p, A, "v", e[0], e[2]);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	if (o)
		p = dmd_emit_corner(ctx, p, B, "v", o[2], o[3]);
	else
		p = g->tb ? dmd_emit_corner(ctx, p, B, "v", e[1], e[2]) :
			dmd_emit_corner(ctx, p, B, "v", e[2], e[1]);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = o ? dmd_emit_corner(ctx, p, C, "w", o[4], o[5]) :
		dmd_emit_corner(ctx, p, C, "w", e[0], e[1]);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* The output's home buffer element e := -0.0 (in the zero loop nest):
 * the additive identity, so that results added into it keep their sign
 * (0.0 + -0.0 would be 0.0). */
static __isl_give isl_printer *dmd_emit_zero_elem(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	int t = ctx->p->out;
	const char *user = ctx->m->job->tensors[t].name;

	p = isl_printer_start_line(p);
	p = dmd_emit_use(ctx, p, user, "buf");
	p = isl_printer_print_str(p, "[");
	p = dmd_emit_index(ctx, p, dmd_spec_exprs(pl, pl->stmt->u.zero.e),
		ctx->m->lay[t]->ndim, user, "home", "home", t);
	p = isl_printer_print_str(p, "] = -0.0;");
	return isl_printer_end_line(p);
}

/* Print an AST "node" of the step with this file's print_user. */
static __isl_give isl_printer *dmd_emit_ast(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, __isl_keep isl_ast_node *node)
{
	isl_ast_print_options *opts;

	opts = isl_ast_print_options_alloc(isl_printer_get_ctx(p));
	opts = isl_ast_print_options_set_print_user(opts, &dmd_emit_user,
		ctx);
	return isl_ast_node_print(node, p, opts);
}

/* The zero marker: the loop nest that clears the output's elements the
 * rank holds and the step writes. */
static __isl_give isl_printer *dmd_emit_zero(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p)
{
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "{");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "/* ");
	p = dmd_emit_ctext(p, ctx->m->job->tensors[ctx->p->out].name);
	p = isl_printer_print_str(p, ": the elements this step writes start "
		"at -0.0, to which results are added */");
	p = isl_printer_end_line(p);
	p = dmd_emit_ast(ctx, p, ctx->ss->zero);
	p = isl_printer_indent(p, -2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "}");
	return isl_printer_end_line(p);
}

/* dmd_clear_double(buffer, size): a buffer that receives sums starts at
 * -0.0, the additive identity (memset's 0.0 would turn a sum of -0.0
 * into 0.0). */
static __isl_give isl_printer *dmd_emit_clear(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const struct dmd_spec_xbuf *xb = &ctx->spec->xbuf[x->id];

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_clear_%s(", xb->type->name);
	p = dmd_emit_buf(ctx, p, pl);
	p = dmd_emit_printf(p, ", %ld);", xb->size);
	return isl_printer_end_line(p);
}

/* "rx0_A", the extents of the buffer of transfer "x" (NULL for a
 * scalar, which has none). */
static __isl_give isl_printer *dmd_emit_rx(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_xfer *x)
{
	if (ctx->m->lay[x->tensor]->ndim == 0)
		return isl_printer_print_str(p, "NULL");
	return dmd_emit_use(ctx, p, ctx->m->job->tensors[x->tensor].name,
		"rx%d", x->id);
}

/* The post of a broadcast: from the root's home buffer, into the
 * buffer of the time point elsewhere (u.bcast: par, root, lo, ext). */
static __isl_give isl_printer *dmd_emit_bcast(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	isl_ast_expr *root = *dmd_spec_exprs(pl, pl->stmt->u.bcast.root);
	isl_ast_expr **lo = dmd_spec_exprs(pl, pl->stmt->u.bcast.lo);
	isl_ast_expr **ext = dmd_spec_exprs(pl, pl->stmt->u.bcast.ext);
	const char *user = ctx->m->job->tensors[x->tensor].name;
	const char *axis = dmd_job_axis_name(ctx->m->job, x->axis);
	int nd = ctx->m->lay[x->tensor]->ndim;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "{");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "const int64_t root = ");
	p = isl_printer_print_ast_expr(p, root);
	p = isl_printer_print_str(p, ";");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "if (");
	p = dmd_emit_name(p, "c", axis);
	p = isl_printer_print_str(p, " == root)");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_ibcast(rt, q%d, %d, root, ", x->id,
		x->axis);
	p = dmd_emit_use(ctx, p, user, "buf");
	p = dmd_emit_printf(p, ", %d, ", nd);
	p = dmd_emit_home_arr(ctx, p, x->tensor);
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr_home(ctx, p, lo, nd, x->tensor);
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr(ctx, p, ext, nd, user, NULL);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, -2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "else");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_ibcast(rt, q%d, %d, root, ", x->id,
		x->axis);
	p = dmd_emit_buf(ctx, p, pl);
	p = dmd_emit_printf(p, ", %d, ", nd);
	p = dmd_emit_rx(ctx, p, x);
	p = isl_printer_print_str(p, ", dmd_zero, ");
	p = dmd_emit_arr(ctx, p, ext, nd, user, NULL);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, -4);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "}");
	return isl_printer_end_line(p);
}

/* The post of a ring shift: send the current view's box (the previous
 * time point's: u.shift.plo, pext), receive the next one (ext). */
static __isl_give isl_printer *dmd_emit_shift(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const struct dmd_spec_stmt *st = pl->stmt;
	const char *user = ctx->m->job->tensors[x->tensor].name;
	int nd = ctx->m->lay[x->tensor]->ndim;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_ishift(rt, q%d, %d, %d, ", x->id, x->axis,
		x->disp);
	p = dmd_emit_use(ctx, p, user, "v");
	p = dmd_emit_printf(p, ", %d, ", nd);
	p = dmd_emit_view_arr(ctx, p, "vx", x->tensor);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 4);
	p = isl_printer_start_line(p);
	p = dmd_emit_arr(ctx, p, dmd_spec_exprs(pl, st->u.shift.plo), nd,
		user, "vo%d");
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr(ctx, p, dmd_spec_exprs(pl, st->u.shift.pext), nd,
		user, NULL);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = dmd_emit_buf(ctx, p, pl);
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_rx(ctx, p, x);
	p = isl_printer_print_str(p, ", dmd_zero, ");
	p = dmd_emit_arr(ctx, p, dmd_spec_exprs(pl, st->u.shift.ext), nd,
		user, NULL);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* "(const int64_t[]){ peer coordinates }" from expr[first..]. */
static __isl_give isl_printer *dmd_emit_peer(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, isl_ast_expr **e)
{
	return dmd_emit_arr(ctx, p, e, ctx->m->mesh->n, NULL, NULL);
}

/* "buf_A, nd, (home extents)," then, on a continuation line indented by
 * 4, "(home origins of lo)": the home buffer of the tensor of "x" and a
 * box in it, for dmd_irecv, dmd_isend and the like.  The caller undoes
 * the indentation. */
static __isl_give isl_printer *dmd_emit_home_box(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_xfer *x, isl_ast_expr **lo)
{
	const char *user = ctx->m->job->tensors[x->tensor].name;
	int nd = ctx->m->lay[x->tensor]->ndim;

	p = dmd_emit_use(ctx, p, user, "buf");
	p = dmd_emit_printf(p, ", %d, ", nd);
	p = dmd_emit_home_arr(ctx, p, x->tensor);
	p = isl_printer_print_str(p, ",");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 4);
	p = isl_printer_start_line(p);
	return dmd_emit_arr_home(ctx, p, lo, nd, x->tensor);
}

/* "(const int64_t[]){ lo[0] - blo[0], ... }" ("NULL" if nd is 0): a box
 * origin relative to a buffer's origin. */
static __isl_give isl_printer *dmd_emit_rel_arr(__isl_take isl_printer *p,
	isl_ast_expr **lo, isl_ast_expr **blo, int nd)
{
	int d;

	if (nd == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const int64_t[]){ ");
	for (d = 0; d < nd; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = dmd_emit_diff(p, lo[d], blo[d]);
	}
	return isl_printer_print_str(p, " }");
}

/* The post of a receive: into the transfer's buffer (relative to its
 * origin blo) or the home buffer (u.recv.into), adding for sums
 * (u.recv.sum; u.recv: par, peer, lo, ext, blo). */
static __isl_give isl_printer *dmd_emit_recv(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const char *user = ctx->m->job->tensors[x->tensor].name;
	int nd = ctx->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, pl->stmt->u.recv.lo);
	isl_ast_expr **ext = dmd_spec_exprs(pl, pl->stmt->u.recv.ext);
	isl_pw_aff **comb = pl->stmt->u.recv.comb;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s(rt, q%d, ", pl->stmt->u.recv.sum ?
		"dmd_irecv_sum" : !comb ? "dmd_irecv" :
		pl->stmt->u.recv.runs > 1 ? "dmd_irecv_combs" :
		"dmd_irecv_comb",
		x->id);
	p = dmd_emit_peer(ctx, p, dmd_spec_exprs(pl, pl->stmt->u.recv.peer));
	p = isl_printer_print_str(p, ", ");
	if (pl->stmt->u.recv.into == DMD_BUF_HOME) {
		p = dmd_emit_home_box(ctx, p, x, lo);
	} else {
		isl_ast_expr **blo = dmd_spec_exprs(pl, pl->stmt->u.recv.blo);

		p = dmd_emit_buf(ctx, p, pl);
		p = dmd_emit_printf(p, ", %d, ", nd);
		p = dmd_emit_rx(ctx, p, x);
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 4);
		p = isl_printer_start_line(p);
		p = dmd_emit_rel_arr(p, lo, blo, nd);
	}
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr(ctx, p, ext, nd, user, NULL);
	if (comb) {
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_start_line(p);
		p = dmd_emit_comb(p, dmd_spec_exprs(pl, comb), nd,
			pl->stmt->u.recv.runs);
	}
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* The post of a send: from the home buffer, or the step's write buffer
 * (u.send.from; u.send: peer, lo, ext). */
static __isl_give isl_printer *dmd_emit_send(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const char *user = ctx->m->job->tensors[x->tensor].name;
	int nd = ctx->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, pl->stmt->u.send.lo);
	isl_ast_expr **ext = dmd_spec_exprs(pl, pl->stmt->u.send.ext);
	isl_pw_aff **comb = pl->stmt->u.send.comb;

	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "%s(rt, q%d, ", !comb ? "dmd_isend" :
		pl->stmt->u.send.runs > 1 ? "dmd_isend_combs" :
		"dmd_isend_comb", x->id);
	p = dmd_emit_peer(ctx, p, dmd_spec_exprs(pl, pl->stmt->u.send.peer));
	p = isl_printer_print_str(p, ", ");
	if (pl->stmt->u.send.from == DMD_BUF_WRITE) {
		p = dmd_emit_use(ctx, p, user, "w");
		p = dmd_emit_printf(p, ", %d, ", nd);
		p = dmd_emit_view_arr(ctx, p, "wx", x->tensor);
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 4);
		p = isl_printer_start_line(p);
		p = dmd_emit_arr(ctx, p, lo, nd, user, "wo%d");
	} else {
		p = dmd_emit_home_box(ctx, p, x, lo);
	}
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr(ctx, p, ext, nd, user, NULL);
	if (comb) {
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_start_line(p);
		p = dmd_emit_comb(p, dmd_spec_exprs(pl, comb), nd,
			pl->stmt->u.send.runs);
	}
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* The rank's own piece: a copy from its home buffer into the transfer's
 * buffer, or from the step's write buffer into the home buffer
 * (u.self.from, into), added for sums (u.self.sum; u.self: par, lo, ext,
 * blo). */
static __isl_give isl_printer *dmd_emit_self(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	const char *user = ctx->m->job->tensors[x->tensor].name;
	int nd = ctx->m->lay[x->tensor]->ndim;
	isl_ast_expr **lo = dmd_spec_exprs(pl, pl->stmt->u.self.lo);
	isl_ast_expr **ext = dmd_spec_exprs(pl, pl->stmt->u.self.ext);
	isl_ast_expr **blo = dmd_spec_exprs(pl, pl->stmt->u.self.blo);

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, pl->stmt->u.self.sum ?
		"dmd_copy_sum(rt, " : "dmd_copy(rt, ");
	if (pl->stmt->u.self.into == DMD_BUF_HOME) {
		p = dmd_emit_use(ctx, p, user, "buf");
		p = dmd_emit_printf(p, ", %d, ", nd);
		p = dmd_emit_home_arr(ctx, p, x->tensor);
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_arr_home(ctx, p, lo, nd, x->tensor);
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 4);
		p = isl_printer_start_line(p);
		p = dmd_emit_use(ctx, p, user, "w");
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_view_arr(ctx, p, "wx", x->tensor);
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_arr(ctx, p, lo, nd, user, "wo%d");
	} else {
		p = dmd_emit_buf(ctx, p, pl);
		p = dmd_emit_printf(p, ", %d, ", nd);
		p = dmd_emit_rx(ctx, p, x);
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_rel_arr(p, lo, blo, nd);
		p = isl_printer_print_str(p, ",");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 4);
		p = isl_printer_start_line(p);
		p = dmd_emit_use(ctx, p, user, "buf");
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_home_arr(ctx, p, x->tensor);
		p = isl_printer_print_str(p, ", ");
		p = dmd_emit_arr_home(ctx, p, lo, nd, x->tensor);
	}
	p = isl_printer_print_str(p, ", ");
	p = dmd_emit_arr(ctx, p, ext, nd, user, NULL);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* Print " kind<d>_user = " (d < 0: "kind_user") when the step reads
 * that component of view "v" (the pointer, an origin, an extent), and
 * return 1; else print nothing, return 0. */
static int dmd_emit_set(const struct dmd_spec_view *v, isl_printer **p,
	const char *user, const char *kind, int d)
{
	unsigned mask = kind[1] == 'o' ? v->o : v->x;

	if (d >= 0 ? !((mask >> d) & 1) : !v->ptr)
		return 0;
	*p = isl_printer_print_str(*p, " ");
	*p = d >= 0 ? dmd_emit_namef(*p, user, "%s%d", kind, d) :
		dmd_emit_name(*p, kind, user);
	*p = isl_printer_print_str(*p, " =");
	*p = isl_printer_print_str(*p, " ");
	return 1;
}

/* The view of the tensor of the transfer "x" of the statement of "pl"
 * := its home buffer ("home"), or the buffer of "x" the statement uses
 * at its node with origin lo[] (and the buffer's extents), in the
 * components the step reads:
 *   v_A = r0b_A; vo0_A = 64 * c_x; vx1_A = 256; */
static __isl_give isl_printer *dmd_emit_view(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const struct dmd_spec_payload *pl,
	int home, isl_ast_expr **lo)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	int t = x->tensor, nd = ctx->m->lay[t]->ndim, d;
	const char *user = ctx->m->job->tensors[t].name;
	const struct dmd_spec_view none = { 0 };
	const struct dmd_spec_view *v = dmd_spec_view_of(ctx->ss, t, 0);

	if (!v)
		v = &none;
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "{");
	if (dmd_emit_set(v, &p, user, "v", -1)) {
		p = home ? dmd_emit_use(ctx, p, user, "buf") :
			dmd_emit_buf(ctx, p, pl);
		p = isl_printer_print_str(p, ";");
	}
	for (d = 0; d < nd; ++d) {
		if (!dmd_emit_set(v, &p, user, "vo", d))
			continue;
		p = home ? dmd_emit_home_o(ctx, p, t, d) :
			isl_printer_print_ast_expr(p, lo[d]);
		p = isl_printer_print_str(p, ";");
	}
	for (d = 0; d < nd; ++d) {
		if (!dmd_emit_set(v, &p, user, "vx", d))
			continue;
		if (home)
			p = dmd_emit_home_x(ctx, p, t, d);
		else
			p = dmd_emit_printf(p, "%ld",
				ctx->spec->xbuf[x->id].ext[d]);
		p = isl_printer_print_str(p, ";");
	}
	p = isl_printer_print_str(p, " }");
	return isl_printer_end_line(p);
}

/* The wait of a transfer, then (at a time loop: u.wait.set_view) the
 * view of its time point, as one block (u.wait: par, lo, the
 * broadcast's root). */
static __isl_give isl_printer *dmd_emit_wait(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, struct dmd_spec_payload *pl)
{
	const struct dmd_xfer *x = pl->stmt->xfer;
	isl_ast_expr **lo = dmd_spec_exprs(pl, pl->stmt->u.wait.lo);

	if (!pl->stmt->u.wait.set_view) {
		p = isl_printer_start_line(p);
		p = dmd_emit_printf(p, "dmd_wait(rt, q%d);", x->id);
		return isl_printer_end_line(p);
	}
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "{");
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 2);
	p = isl_printer_start_line(p);
	p = dmd_emit_printf(p, "dmd_wait(rt, q%d);", x->id);
	p = isl_printer_end_line(p);
	if (!pl->stmt->u.wait.root) {
		p = dmd_emit_view(ctx, p, pl, 0, lo);
	} else {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "if (");
		p = dmd_emit_name(p, "c", dmd_job_axis_name(ctx->m->job, x->axis));
		p = isl_printer_print_str(p, " == ");
		p = dmd_emit_expr(p, *dmd_spec_exprs(pl,
			pl->stmt->u.wait.root));
		p = isl_printer_print_str(p, ")");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 2);
		p = dmd_emit_view(ctx, p, pl, 1, NULL);
		p = isl_printer_indent(p, -2);
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, "else");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 2);
		p = dmd_emit_view(ctx, p, pl, 0, lo);
		p = isl_printer_indent(p, -2);
	}
	p = isl_printer_indent(p, -2);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "}");
	return isl_printer_end_line(p);
}

/* Print one user statement from its payload: the only switch on the
 * statement's kind. */
__isl_give isl_printer *dmd_emit_user(__isl_take isl_printer *p,
	__isl_take isl_ast_print_options *options,
	__isl_keep isl_ast_node *node, void *user)
{
	struct dmd_emit_ctx *ctx = user;
	isl_id *id = isl_ast_node_get_annotation(node);
	struct dmd_spec_payload *pl = isl_id_get_user(id);

	isl_id_free(id);
	isl_ast_print_options_free(options);
	if (!pl)
		return isl_printer_free(p);
	switch (pl->stmt->kind) {
	case DMD_SPEC_COMP:
		return dmd_emit_comp(ctx, p, pl);
	case DMD_SPEC_GEMM:
		return dmd_emit_gemm(ctx, p, pl);
	case DMD_SPEC_ZERO:
		if (pl->n_expr)
			return dmd_emit_zero_elem(ctx, p, pl);
		return dmd_emit_zero(ctx, p);
	case DMD_SPEC_CLEAR:
		return dmd_emit_clear(ctx, p, pl);
	case DMD_SPEC_BCAST:
		return dmd_emit_bcast(ctx, p, pl);
	case DMD_SPEC_SHIFT:
		return dmd_emit_shift(ctx, p, pl);
	case DMD_SPEC_RECV:
		return dmd_emit_recv(ctx, p, pl);
	case DMD_SPEC_SEND:
		return dmd_emit_send(ctx, p, pl);
	case DMD_SPEC_SELF:
		return dmd_emit_self(ctx, p, pl);
	case DMD_SPEC_WAIT:
		return dmd_emit_wait(ctx, p, pl);
	case DMD_SPEC_VIEW_HOME:
		return dmd_emit_view(ctx, p, pl, 1, NULL);
	}
	return isl_printer_free(p);
}
