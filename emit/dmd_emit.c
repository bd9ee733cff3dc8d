/* dmd_emit.c: print the program of one rank class as a C file that calls
 * the runtime (runtime/dmd_rt.h) and CBLAS.
 *
 * Every tensor T used by the statement has, on every rank:
 *   T_l           its own block (T_lo origin, T_ext extents)
 *   T_p, T_o, T_x the view the statement reads: a pointer, the global
 *                 index of its first element, and its buffer extents.
 * Transfers set the view; the statement reads T_p[(i - T_o[0]) * T_x[1]
 * + (j - T_o[1])].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/printer.h>
#include <isl/id.h>
#include <isl/val.h>

#include "specialize/dmd_spec.h"

struct emit_info {
	struct dmd_prog *prog;
	const char *real;		/* "float" or "double" */
};

/* The C expression of a parameter-only pw_aff under the class. */
static char *param_expr(struct dmd_prog *p, __isl_keep isl_pw_aff *pa)
{
	isl_ast_expr *e;
	char *s;

	e = dmd_spec_expr(p->pbuild, isl_pw_aff_copy(pa), p->cell);
	s = isl_ast_expr_to_C_str(e);
	isl_ast_expr_free(e);
	return s;
}

/* Print "e", in parentheses if it is a selection or a comparison (so
 * that it can be an operand of '-' or '=='). */
static __isl_give isl_printer *print_expr(__isl_take isl_printer *p,
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
	if (paren)
		p = isl_printer_print_str(p, "(");
	p = isl_printer_print_ast_expr(p, e);
	if (paren)
		p = isl_printer_print_str(p, ")");
	return p;
}

/* Suffix of the receive buffers of transfer "xi": "" for the first
 * transfer of its tensor, "_2" for the second, ... */
static void recv_name(struct dmd_model *m, int xi, int which, char *buf,
	size_t size)
{
	int i, k = 1;

	for (i = 0; i < xi; ++i)
		if (m->xfer[i].tensor == m->xfer[xi].tensor &&
		    m->xfer[i].kind != DMD_XFER_LOCAL)
			k++;
	if (k == 1)
		snprintf(buf, size, "%s_recv%s",
			m->job->tensors[m->xfer[xi].tensor].name,
			which ? "2" : "");
	else
		snprintf(buf, size, "%s_recv%s_%d",
			m->job->tensors[m->xfer[xi].tensor].name,
			which ? "2" : "", k);
}

/* "(const long[]){ e0 - T_o[0], e1 - T_o[1] }" from expressions
 * expr[first..first+nd) relative to "base" ("T_o" or "T_lo"). */
static __isl_give isl_printer *print_rel(__isl_take isl_printer *p,
	struct dmd_payload *pl, int first, int nd, const char *t,
	const char *base)
{
	int d;

	if (nd == 0)
		return isl_printer_print_str(p, "NULL");
	p = isl_printer_print_str(p, "(const long[]){ ");
	for (d = 0; d < nd; ++d) {
		char b[128];
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = print_expr(p, pl->expr[first + d]);
		if (base) {
			snprintf(b, sizeof(b), " - %s_%s[%d]", t, base, d);
			p = isl_printer_print_str(p, b);
		}
	}
	return isl_printer_print_str(p, " }");
}

/* "(const long[]){ e0, e1 }" */
static __isl_give isl_printer *print_list(__isl_take isl_printer *p,
	struct dmd_payload *pl, int first, int nd)
{
	return print_rel(p, pl, first, nd, NULL, NULL);
}

/* "T_p = PTR; T_o[0] = ...; T_x[0] = ...;" with the origins from
 * expressions (or from "T_lo") and the extents from "x" or "T_ext". */
static __isl_give isl_printer *print_view(__isl_take isl_printer *p,
	const char *t, int nd, const char *ptr, struct dmd_payload *pl,
	int first, const long *x)
{
	char b[256];
	int d;

	p = isl_printer_start_line(p);
	if (ptr) {
		snprintf(b, sizeof(b), "%s_p = %s; ", t, ptr);
		p = isl_printer_print_str(p, b);
	}
	for (d = 0; d < nd; ++d) {
		snprintf(b, sizeof(b), "%s%s_o[%d] = ", d ? " " : "", t, d);
		p = isl_printer_print_str(p, b);
		if (pl) {
			p = print_expr(p, pl->expr[first + d]);
		} else {
			snprintf(b, sizeof(b), "%s_lo[%d]", t, d);
			p = isl_printer_print_str(p, b);
		}
		p = isl_printer_print_str(p, ";");
	}
	for (d = 0; d < nd; ++d) {
		if (x)
			snprintf(b, sizeof(b), " %s_x[%d] = %ld;", t, d, x[d]);
		else
			snprintf(b, sizeof(b), " %s_x[%d] = %s_ext[%d];", t, d,
				t, d);
		p = isl_printer_print_str(p, b);
	}
	return isl_printer_end_line(p);
}

/* One line at the current indentation (an empty line without it). */
static __isl_give isl_printer *print_line(__isl_take isl_printer *p,
	const char *s)
{
	if (!*s)
		return isl_printer_print_str(p, "\n");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, s);
	return isl_printer_end_line(p);
}

/* The linear offset of element e in a buffer whose first element is
 * T_<o> and whose extents are T_<x>:
 * ((e0 - T_o[0]) * T_x[1] + (e1 - T_o[1])) * T_x[2] + (e2 - T_o[2]) */
static __isl_give isl_printer *print_linear(__isl_take isl_printer *p,
	const char *t, int nd, isl_ast_expr **e, const char *o, const char *x)
{
	char b[128];
	int d;

	if (nd == 0)
		return isl_printer_print_str(p, "0");
	for (d = 0; d + 2 < nd; ++d)
		p = isl_printer_print_str(p, "(");
	for (d = 0; d < nd; ++d) {
		if (d > 0) {
			snprintf(b, sizeof(b), " * %s_%s[%d] + ", t, x, d);
			p = isl_printer_print_str(p, b);
		}
		p = isl_printer_print_str(p, "(");
		p = print_expr(p, e[d]);
		snprintf(b, sizeof(b), " - %s_%s[%d])", t, o, d);
		p = isl_printer_print_str(p, b);
		if (d > 0 && d + 1 < nd)
			p = isl_printer_print_str(p, ")");
	}
	return p;
}

/* The linear index of an access into the view of "t". */
static __isl_give isl_printer *print_index(__isl_take isl_printer *p,
	const char *t, int nd, isl_ast_expr **e)
{
	return print_linear(p, t, nd, e, "o", "x");
}

/* The precedence of a binary operator node (0: not one). */
static int prec(const struct dmd_expr *e)
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

static __isl_give isl_printer *print_rhs(__isl_take isl_printer *p,
	struct dmd_model *m, struct dmd_expr *e, isl_ast_expr ***next);

/* Print operand "e" of an operator of precedence "outer", in parentheses
 * when C would otherwise read it differently ("right": the right operand,
 * where a - (b - c) and a / (b * c) need them). */
static __isl_give isl_printer *print_operand(__isl_take isl_printer *p,
	struct dmd_model *m, struct dmd_expr *e, isl_ast_expr ***next,
	int outer, int right)
{
	int pe = prec(e);
	int paren = pe && (pe < outer || (right && pe == outer));

	if (paren)
		p = isl_printer_print_str(p, "(");
	p = print_rhs(p, m, e, next);
	if (paren)
		p = isl_printer_print_str(p, ")");
	return p;
}

/* Print the right-hand side "e"; accesses take their index expressions
 * from "*next" in order. */
static __isl_give isl_printer *print_rhs(__isl_take isl_printer *p,
	struct dmd_model *m, struct dmd_expr *e, isl_ast_expr ***next)
{
	char b[64];
	int i;
	const char *op = NULL;

	switch (e->type) {
	case DMD_EXPR_INT:
		snprintf(b, sizeof(b), "%ld.0", e->ival);
		return isl_printer_print_str(p, b);
	case DMD_EXPR_NUM:
		snprintf(b, sizeof(b), "%.17g", e->fval);
		if (!strpbrk(b, ".eEn"))
			strcat(b, ".0");
		return isl_printer_print_str(p, b);
	case DMD_EXPR_ACCESS:
		p = isl_printer_print_str(p, e->name);
		p = isl_printer_print_str(p, "_p[");
		p = print_index(p, e->name, e->n_arg, *next);
		*next += e->n_arg;
		return isl_printer_print_str(p, "]");
	case DMD_EXPR_NEG:
		p = isl_printer_print_str(p, "-");
		return print_operand(p, m, e->args[0], next, 3, 0);
	case DMD_EXPR_CALL:
		if (!strcmp(e->name, "relu")) {
			p = isl_printer_print_str(p, "fmax(");
			p = print_rhs(p, m, e->args[0], next);
			return isl_printer_print_str(p, ", 0.0)");
		}
		if (!strcmp(e->name, "max"))
			p = isl_printer_print_str(p, "fmax(");
		else if (!strcmp(e->name, "min"))
			p = isl_printer_print_str(p, "fmin(");
		else if (!strcmp(e->name, "abs"))
			p = isl_printer_print_str(p, "fabs(");
		else if (!strcmp(e->name, "sigmoid"))
			p = isl_printer_print_str(p, "dmd_sigmoid(");
		else if (!strcmp(e->name, "gelu"))
			p = isl_printer_print_str(p, "dmd_gelu(");
		else {
			p = isl_printer_print_str(p, e->name);
			p = isl_printer_print_str(p, "(");
		}
		for (i = 0; i < e->n_arg; ++i) {
			if (i)
				p = isl_printer_print_str(p, ", ");
			p = print_rhs(p, m, e->args[i], next);
		}
		return isl_printer_print_str(p, ")");
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
		/* // and % only occur in indices */
		op = " ? ";
		break;
	}
	p = print_operand(p, m, e->args[0], next, prec(e), 0);
	p = isl_printer_print_str(p, op);
	return print_operand(p, m, e->args[1], next, prec(e), 1);
}

/* out[...] = expr;  or  out[...] += expr;  (+= when summing over a
 * variable of the right-hand side only, or for a job's +=). */
static __isl_give isl_printer *print_comp(__isl_take isl_printer *p,
	struct dmd_model *m, struct dmd_payload *pl)
{
	struct dmd_expr *l = m->st->lhs;
	isl_ast_expr **next = pl->expr + l->n_arg;
	int i, reduce = m->st->accumulate;

	for (i = 0; i < m->n_vars; ++i)
		reduce |= m->var_reduced[i];
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, l->name);
	p = isl_printer_print_str(p, "_p[");
	p = print_index(p, l->name, l->n_arg, pl->expr);
	p = isl_printer_print_str(p, reduce ? "] += " : "] = ");
	p = print_rhs(p, m, m->st->rhs, &next);
	p = isl_printer_print_str(p, ";");
	return isl_printer_end_line(p);
}

/* T_p + (r - T_o[0]) * T_x[1] + (c - T_o[1]) */
static __isl_give isl_printer *print_corner(__isl_take isl_printer *p,
	const char *t, __isl_keep isl_ast_expr *r, __isl_keep isl_ast_expr *c)
{
	char b[128];

	snprintf(b, sizeof(b), "%s_p + (", t);
	p = isl_printer_print_str(p, b);
	p = print_expr(p, r);
	snprintf(b, sizeof(b), " - %s_o[0]) * %s_x[1] + (", t, t);
	p = isl_printer_print_str(p, b);
	p = print_expr(p, c);
	snprintf(b, sizeof(b), " - %s_o[1]), %s_x[1]", t, t);
	return isl_printer_print_str(p, b);
}

/* cblas_?gemm(RowMajor, ta, tb, M, N, K, 1, A.., lda, B.., ldb, 1, C.., ldc)
 * with expr[0..2] the origins of i, j, k and expr[3..5] their extents. */
static __isl_give isl_printer *print_gemm(__isl_take isl_printer *p,
	struct dmd_model *m, struct dmd_payload *pl, const char *real)
{
	struct dmd_gemm *g = m->gemm;
	const char *A = m->acc[g->acc_a].expr->name;
	const char *B = m->acc[g->acc_b].expr->name;
	const char *C = m->acc[0].expr->name;
	int f32 = !strcmp(real, "float");
	isl_ast_expr **e = pl->expr;
	char b[256];

	p = isl_printer_start_line(p);
	snprintf(b, sizeof(b), "cblas_%cgemm(CblasRowMajor, %s, %s, ",
		f32 ? 's' : 'd', g->ta ? "CblasTrans" : "CblasNoTrans",
		g->tb ? "CblasTrans" : "CblasNoTrans");
	p = isl_printer_print_str(p, b);
	p = print_expr(p, e[3]);
	p = isl_printer_print_str(p, ", ");
	p = print_expr(p, e[4]);
	p = isl_printer_print_str(p, ", ");
	p = print_expr(p, e[5]);
	p = isl_printer_end_line(p);
	p = isl_printer_indent(p, 4);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, f32 ? ", 1.0f, " : ", 1.0, ");
	if (g->ta)
		p = print_corner(p, A, e[2], e[0]);
	else
		p = print_corner(p, A, e[0], e[2]);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, ", ");
	if (g->tb)
		p = print_corner(p, B, e[1], e[2]);
	else
		p = print_corner(p, B, e[2], e[1]);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, f32 ? ", 1.0f, " : ", 1.0, ");
	p = print_corner(p, C, e[0], e[1]);
	p = isl_printer_print_str(p, ");");
	p = isl_printer_end_line(p);
	return isl_printer_indent(p, -4);
}

/* The return of partial results: the holder adds what it receives into
 * its own block; the contributor sends from its partial view.
 *   dmd_recv_sum(rt, peer, C_l, 2, C_ext, lo - C_lo, ext);
 *   dmd_send(rt, peer, C_p, 2, C_x, lo - C_o, ext); */
static __isl_give isl_printer *print_return(__isl_take isl_printer *p,
	struct dmd_payload *pl, int recv, const char *t, int nd, int np)
{
	char b[256];
	int d;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, recv ? "dmd_recv_sum(rt, (const int[]){ " :
		"dmd_send(rt, (const int[]){ ");
	for (d = 0; d < np; ++d) {
		if (d)
			p = isl_printer_print_str(p, ", ");
		p = print_expr(p, pl->expr[d]);
	}
	if (recv)
		snprintf(b, sizeof(b), " }, %s_l, %d, %s_ext, ", t, nd, t);
	else
		snprintf(b, sizeof(b), " }, %s_p, %d, %s_x, ", t, nd, t);
	p = isl_printer_print_str(p, b);
	p = print_rel(p, pl, np, nd, t, recv ? "lo" : "o");
	p = isl_printer_print_str(p, ", ");
	p = print_list(p, pl, np + nd, nd);
	p = isl_printer_print_str(p, ");");
	return isl_printer_end_line(p);
}

/* Print one user statement from its payload. */
static __isl_give isl_printer *print_user(__isl_take isl_printer *p,
	__isl_take isl_ast_print_options *options,
	__isl_keep isl_ast_node *node, void *user)
{
	struct emit_info *info = user;
	struct dmd_prog *prog = info->prog;
	struct dmd_model *m = prog->m;
	isl_id *id = isl_ast_node_get_annotation(node);
	struct dmd_payload *pl = isl_id_get_user(id);
	struct dmd_stmt *st = pl->stmt;
	struct dmd_xfer *x = st->xfer >= 0 ? &m->xfer[st->xfer] : NULL;
	const char *t = x ? m->job->tensors[x->tensor].name : NULL;
	int nd = x ? m->job->tensors[x->tensor].ndim : 0;
	int np = m->job->n_axes;
	long *alloc = x ? prog->alloc[st->xfer] : NULL;
	char b[512], rb[128], rb2[128];

	isl_id_free(id);
	isl_ast_print_options_free(options);
	if (x) {
		recv_name(m, st->xfer, 0, rb, sizeof(rb));
		recv_name(m, st->xfer, 1, rb2, sizeof(rb2));
	}
	switch (st->type) {
	case DMD_STMT_COMP:
		return print_comp(p, m, pl);
	case DMD_STMT_GEMM:
		return print_gemm(p, m, pl, info->real);
	case DMD_STMT_VIEW_LOCAL:
		p = print_line(p, "{");
		p = isl_printer_indent(p, 2);
		snprintf(b, sizeof(b), "/* %s: the first step's box lies in "
			"this rank's own block */", t);
		p = print_line(p, b);
		p = isl_printer_start_line(p);
		snprintf(b, sizeof(b), "%s_p = %s_l + ", t, t);
		p = isl_printer_print_str(p, b);
		p = print_linear(p, t, nd, pl->expr, "lo", "ext");
		p = isl_printer_print_str(p, ";");
		p = isl_printer_end_line(p);
		p = print_view(p, t, nd, NULL, pl, 0, NULL);
		p = isl_printer_indent(p, -2);
		return print_line(p, "}");
	case DMD_STMT_BCAST:
		p = print_line(p, "{");
		p = isl_printer_indent(p, 2);
		snprintf(b, sizeof(b), "/* %s: broadcast along %s */", t,
			m->job->axes[x->axis]);
		p = print_line(p, b);
		p = isl_printer_start_line(p);
		snprintf(b, sizeof(b), "if (%s == ", m->job->axes[x->axis]);
		p = isl_printer_print_str(p, b);
		p = print_expr(p, pl->expr[0]);
		p = isl_printer_print_str(p, ") {");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 2);
		snprintf(b, sizeof(b), "%s_l", t);
		p = print_view(p, t, nd, b, NULL, 0, NULL);
		p = isl_printer_indent(p, -2);
		p = print_line(p, "} else {");
		p = isl_printer_indent(p, 2);
		p = print_view(p, t, nd, rb, pl, 1, alloc);
		p = isl_printer_indent(p, -2);
		p = print_line(p, "}");
		p = isl_printer_start_line(p);
		snprintf(b, sizeof(b), "dmd_bcast(rt, %d, ", x->axis);
		p = isl_printer_print_str(p, b);
		p = print_expr(p, pl->expr[0]);
		snprintf(b, sizeof(b), ", %s_p, %d, %s_x, ", t, nd, t);
		p = isl_printer_print_str(p, b);
		p = print_rel(p, pl, 1, nd, t, "o");
		p = isl_printer_print_str(p, ", ");
		p = print_list(p, pl, 1 + nd, nd);
		p = isl_printer_print_str(p, ");");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, -2);
		return print_line(p, "}");
	case DMD_STMT_SHIFT:
		p = print_line(p, "{");
		p = isl_printer_indent(p, 2);
		snprintf(b, sizeof(b), "/* %s: ring shift along %s: receive "
			"from %s %c 1, send to %s %c 1 */", t,
			m->job->axes[x->axis], m->job->axes[x->axis],
			x->disp > 0 ? '+' : '-', m->job->axes[x->axis],
			x->disp > 0 ? '-' : '+');
		p = print_line(p, b);
		snprintf(b, sizeof(b), "%s *next = %s_p == %s ? %s : %s;",
			info->real, t, rb, rb2, rb);
		p = print_line(p, b);
		p = isl_printer_start_line(p);
		snprintf(b, sizeof(b), "dmd_shift(rt, %d, %d, %s_p, %d, %s_x, "
			"dmd_zero, ", x->axis, x->disp, t, nd, t);
		p = isl_printer_print_str(p, b);
		p = print_list(p, pl, 2 * nd, nd);
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, 4);
		p = isl_printer_start_line(p);
		snprintf(b, sizeof(b), ", next, %s_a, dmd_zero, ", rb);
		p = isl_printer_print_str(p, b);
		p = print_list(p, pl, nd, nd);
		p = isl_printer_print_str(p, ");");
		p = isl_printer_end_line(p);
		p = isl_printer_indent(p, -4);
		p = print_view(p, t, nd, "next", pl, 0, alloc);
		p = isl_printer_indent(p, -2);
		return print_line(p, "}");
	case DMD_STMT_BEGIN:
		if (x->kind == DMD_XFER_RETURN) {
			snprintf(b, sizeof(b), "dmd_xfer_begin(rt); /* %s: "
				"partial results summed onto their holders */",
				t);
			return print_line(p, b);
		}
		p = print_line(p, "{");
		p = isl_printer_indent(p, 2);
		snprintf(b, sizeof(b), "/* %s: point to point, each piece "
			"from one holder */", t);
		p = print_line(p, b);
		p = print_view(p, t, nd, rb, pl, 0, alloc);
		p = print_line(p, "dmd_xfer_begin(rt);");
		p = isl_printer_indent(p, -2);
		return print_line(p, "}");
	case DMD_STMT_RECV:
	case DMD_STMT_SEND:
		if (x->kind == DMD_XFER_RETURN)
			return print_return(p, pl, st->type == DMD_STMT_RECV,
				t, nd, np);
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, st->type == DMD_STMT_RECV ?
			"dmd_recv(rt, (const int[]){ " :
			"dmd_send(rt, (const int[]){ ");
		{
			int d;
			for (d = 0; d < np; ++d) {
				if (d)
					p = isl_printer_print_str(p, ", ");
				p = print_expr(p, pl->expr[d]);
			}
		}
		if (st->type == DMD_STMT_RECV)
			snprintf(b, sizeof(b), " }, %s, %d, %s_x, ", rb, nd, t);
		else
			snprintf(b, sizeof(b), " }, %s_l, %d, %s_ext, ", t, nd,
				t);
		p = isl_printer_print_str(p, b);
		p = print_rel(p, pl, np, nd, t,
			st->type == DMD_STMT_RECV ? "o" : "lo");
		p = isl_printer_print_str(p, ", ");
		p = print_list(p, pl, np + nd, nd);
		p = isl_printer_print_str(p, ");");
		return isl_printer_end_line(p);
	case DMD_STMT_SELF:
		p = isl_printer_start_line(p);
		if (x->kind == DMD_XFER_RETURN) {
			snprintf(b, sizeof(b), "dmd_copy_sum(rt, %s_l, %d, "
				"%s_ext, ", t, nd, t);
			p = isl_printer_print_str(p, b);
			p = print_rel(p, pl, 0, nd, t, "lo");
			snprintf(b, sizeof(b), ", %s_p, %s_x, ", t, t);
			p = isl_printer_print_str(p, b);
			p = print_rel(p, pl, 0, nd, t, "o");
			p = isl_printer_print_str(p, ", ");
			p = print_list(p, pl, nd, nd);
			p = isl_printer_print_str(p, ");");
			return isl_printer_end_line(p);
		}
		snprintf(b, sizeof(b), "dmd_copy(rt, %s, %d, %s_x, ", rb, nd, t);
		p = isl_printer_print_str(p, b);
		p = print_rel(p, pl, 0, nd, t, "o");
		snprintf(b, sizeof(b), ", %s_l, %s_ext, ", t, t);
		p = isl_printer_print_str(p, b);
		p = print_rel(p, pl, 0, nd, t, "lo");
		p = isl_printer_print_str(p, ", ");
		p = print_list(p, pl, nd, nd);
		p = isl_printer_print_str(p, ");");
		return isl_printer_end_line(p);
	case DMD_STMT_END:
		return print_line(p, "dmd_xfer_end(rt);");
	}
	return p;
}

/* Print the header comment. */
static __isl_give isl_printer *print_header(__isl_take isl_printer *p,
	struct dmd_model *m, int class_id, int n_classes, const char *set,
	const char *why, int n_ranges, long (*ranges)[2])
{
	char b[512];
	int i;
	long count = 0;

	snprintf(b, sizeof(b), "/* distmpmd: job '%s', class %d of %d.",
		m->job->name, class_id, n_classes);
	p = print_line(p, b);
	p = print_line(p, " *");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, " * Ranks: ");
	p = isl_printer_print_str(p, set);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, " *   (rank ");
	for (i = 0; i < n_ranges; ++i) {
		if (i)
			p = isl_printer_print_str(p, ", ");
		if (ranges[i][0] == ranges[i][1])
			snprintf(b, sizeof(b), "%ld", ranges[i][0]);
		else
			snprintf(b, sizeof(b), "%ld-%ld", ranges[i][0],
				ranges[i][1]);
		p = isl_printer_print_str(p, b);
		count += ranges[i][1] - ranges[i][0] + 1;
	}
	snprintf(b, sizeof(b), "; %ld rank%s)", count, count == 1 ? "" : "s");
	p = isl_printer_print_str(p, b);
	p = isl_printer_end_line(p);
	p = print_line(p, " * Why these ranks form a class:");
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, " *   ");
	p = isl_printer_print_str(p, why);
	p = isl_printer_end_line(p);
	p = print_line(p, " * Generated by distmpmd from the job file; "
		"do not edit.");
	p = print_line(p, " */");
	return p;
}

/* static const dmd_job_desc job = { ... }; */
static __isl_give isl_printer *print_desc(__isl_take isl_printer *p,
	struct dmd_model *m, int class_id, int n_classes, int n_ranges,
	long (*ranges)[2])
{
	char b[512];
	int i;
	struct dmd_job *j = m->job;

	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const int mesh_shape[] = { ");
	for (i = 0; i < j->n_axes; ++i) {
		snprintf(b, sizeof(b), "%s%ld", i ? ", " : "", j->mesh_shape[i]);
		p = isl_printer_print_str(p, b);
	}
	p = isl_printer_print_str(p, " };");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const char *const axis_names[] = "
		"{ ");
	for (i = 0; i < j->n_axes; ++i) {
		snprintf(b, sizeof(b), "%s\"%s\"", i ? ", " : "", j->axes[i]);
		p = isl_printer_print_str(p, b);
	}
	p = isl_printer_print_str(p, " };");
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	p = isl_printer_print_str(p, "static const int class_ranks[][2] = { ");
	for (i = 0; i < n_ranges; ++i) {
		snprintf(b, sizeof(b), "%s{ %ld, %ld }", i ? ", " : "",
			ranges[i][0], ranges[i][1]);
		p = isl_printer_print_str(p, b);
	}
	p = isl_printer_print_str(p, " };");
	p = isl_printer_end_line(p);
	p = print_line(p, "static const dmd_job_desc job = {");
	p = isl_printer_indent(p, 2);
	snprintf(b, sizeof(b), ".job = \"%s\", .n_axes = %d, .mesh_shape = "
		"mesh_shape, .axis_names = axis_names,", j->name, j->n_axes);
	p = print_line(p, b);
	snprintf(b, sizeof(b), ".nranks = %ld, .nclasses = %d, .class_id = "
		"%d, .n_ranges = %d, .ranges = class_ranks,", j->nranks,
		n_classes, class_id, n_ranges);
	p = print_line(p, b);
	if (m->flops >= 0)
		snprintf(b, sizeof(b), ".dtype = %s, .flops = %.17g, "
			".job_dir = DMD_JOB_DIR,", j->dtype == DMD_F32 ?
			"DMD_RT_F32" : "DMD_RT_F64", m->flops);
	else
		snprintf(b, sizeof(b), ".dtype = %s, .flops = -1, "
			".job_dir = DMD_JOB_DIR,", j->dtype == DMD_F32 ?
			"DMD_RT_F32" : "DMD_RT_F64");
	p = print_line(p, b);
	p = isl_printer_indent(p, -2);
	p = print_line(p, "};");
	return p;
}

static const char *init_name(enum dmd_init i)
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

/* "(const long[]){ 64, 96 }" of a tensor's shape. */
static void shape_str(struct dmd_tensor *t, char *b, size_t size)
{
	size_t n = 0;
	int d;

	if (t->ndim == 0) {
		snprintf(b, size, "NULL");
		return;
	}
	n += snprintf(b + n, size - n, "(const long[]){ ");
	for (d = 0; d < t->ndim; ++d)
		n += snprintf(b + n, size - n, "%s%ld", d ? ", " : "",
			t->shape[d]);
	snprintf(b + n, size - n, " }");
}

/* Declare, allocate and fill tensor "ti"'s own block and its view. */
static __isl_give isl_printer *print_tensor_setup(__isl_take isl_printer *p,
	struct emit_info *info, int ti)
{
	struct dmd_prog *prog = info->prog;
	struct dmd_model *m = prog->m;
	struct dmd_tensor *t = &m->job->tensors[ti];
	struct dmd_dist *dist = &m->dist[ti];
	char b[1024], sh[256];
	char *lo[DMD_MAX_DIMS], *ext[DMD_MAX_DIMS];
	long size = 1;
	int d;

	for (d = 0; d < t->ndim; ++d) {
		long mx = dmd_pw_aff_max(dist->ext[d], prog->cell);
		prog->local[ti][d] = mx;
		size *= mx;
		lo[d] = param_expr(prog, dist->lo[d]);
		ext[d] = param_expr(prog, dist->ext[d]);
	}
	p = print_line(p, "");
	p = isl_printer_start_line(p);
	snprintf(b, sizeof(b), "/* %s%s", t->name, t->ndim ? "[" : "");
	p = isl_printer_print_str(p, b);
	for (d = 0; d < t->ndim; ++d) {
		snprintf(b, sizeof(b), "%s%ld", d ? ", " : "", t->shape[d]);
		p = isl_printer_print_str(p, b);
	}
	snprintf(b, sizeof(b), "%s: %s%s%s%s */", t->ndim ? "]" : "",
		dist->is_output ? "the output" : "an input",
		t->file ? ", file " : "", t->file ? t->file : "",
		dist->is_output || t->file ? "" : t->init == DMD_INIT_RANDOM ?
		", random" : t->init == DMD_INIT_ONES ? ", ones" : ", zeros");
	p = isl_printer_print_str(p, b);
	p = isl_printer_end_line(p);
	p = isl_printer_start_line(p);
	snprintf(b, sizeof(b), "const long %s_lo[] = { ", t->name);
	p = isl_printer_print_str(p, b);
	for (d = 0; d < t->ndim; ++d) {
		p = isl_printer_print_str(p, d ? ", " : "");
		p = isl_printer_print_str(p, lo[d]);
	}
	snprintf(b, sizeof(b), "%s }, %s_ext[] = { ", t->ndim ? "" : "0",
		t->name);
	p = isl_printer_print_str(p, b);
	for (d = 0; d < t->ndim; ++d) {
		p = isl_printer_print_str(p, d ? ", " : "");
		p = isl_printer_print_str(p, ext[d]);
	}
	p = isl_printer_print_str(p, t->ndim ? " };" : "0 };");
	p = isl_printer_end_line(p);
	snprintf(b, sizeof(b), "%s *%s_l = dmd_alloc(rt, %ld);", info->real,
		t->name, size);
	p = print_line(p, b);
	shape_str(t, sh, sizeof(sh));
	if (dist->is_input) {
		if (t->file)
			snprintf(b, sizeof(b), "dmd_tensor_input(rt, \"%s\", "
				"\"%s\", DMD_RT_INIT_NONE, 0, %d, %s, %s_lo, "
				"%s_ext, %s_l);", t->name, t->file, t->ndim,
				sh, t->name, t->name, t->name);
		else
			snprintf(b, sizeof(b), "dmd_tensor_input(rt, \"%s\", "
				"NULL, %s, %lluULL, %d, %s, %s_lo, %s_ext, "
				"%s_l);", t->name, init_name(t->init),
				t->seed, t->ndim, sh, t->name, t->name,
				t->name);
		p = print_line(p, b);
	}
	snprintf(b, sizeof(b), "%s *%s_p = %s_l;", info->real, t->name,
		t->name);
	p = print_line(p, b);
	p = isl_printer_start_line(p);
	snprintf(b, sizeof(b), "long %s_o[] = { ", t->name);
	p = isl_printer_print_str(p, b);
	for (d = 0; d < t->ndim; ++d) {
		snprintf(b, sizeof(b), "%s%s_lo[%d]", d ? ", " : "", t->name,
			d);
		p = isl_printer_print_str(p, b);
	}
	snprintf(b, sizeof(b), "%s }, %s_x[] = { ", t->ndim ? "" : "0",
		t->name);
	p = isl_printer_print_str(p, b);
	for (d = 0; d < t->ndim; ++d) {
		snprintf(b, sizeof(b), "%s%s_ext[%d]", d ? ", " : "", t->name,
			d);
		p = isl_printer_print_str(p, b);
	}
	p = isl_printer_print_str(p, t->ndim ? " };" : "0 };");
	p = isl_printer_end_line(p);
	for (d = 0; d < t->ndim; ++d) {
		free(lo[d]);
		free(ext[d]);
	}
	return p;
}

/* The partial results of the output (transfer "xi" returns them): the
 * statement accumulates into T_part, whose first element is the first
 * element this rank writes. */
static __isl_give isl_printer *print_partial(__isl_take isl_printer *p,
	struct emit_info *info, int xi, long size)
{
	struct dmd_prog *prog = info->prog;
	struct dmd_model *m = prog->m;
	struct dmd_xfer *x = &m->xfer[xi];
	const char *t = m->job->tensors[x->tensor].name;
	int nd = m->job->tensors[x->tensor].ndim, d;
	char b[512];

	snprintf(b, sizeof(b), "/* %s: this rank computes elements that other "
		"ranks hold: partial results */", t);
	p = print_line(p, b);
	snprintf(b, sizeof(b), "%s *%s_part = dmd_alloc(rt, %ld);", info->real,
		t, size);
	p = print_line(p, b);
	p = isl_printer_start_line(p);
	snprintf(b, sizeof(b), "%s_p = %s_part;", t, t);
	p = isl_printer_print_str(p, b);
	for (d = 0; d < nd; ++d) {
		isl_pw_aff *pa = isl_pw_aff_project_domain_on_params(
			isl_pw_aff_copy(x->need_lo[d]));
		char *e = param_expr(prog, pa);
		isl_pw_aff_free(pa);
		snprintf(b, sizeof(b), " %s_o[%d] = %s;", t, d, e);
		free(e);
		p = isl_printer_print_str(p, b);
	}
	for (d = 0; d < nd; ++d) {
		snprintf(b, sizeof(b), " %s_x[%d] = %ld;", t, d,
			prog->alloc[xi][d]);
		p = isl_printer_print_str(p, b);
	}
	return isl_printer_end_line(p);
}

/* Receive buffers of transfer "xi", at their largest extents in the
 * class. */
static __isl_give isl_printer *print_recv_setup(__isl_take isl_printer *p,
	struct emit_info *info, int xi)
{
	struct dmd_prog *prog = info->prog;
	struct dmd_model *m = prog->m;
	struct dmd_xfer *x = &m->xfer[xi];
	struct dmd_tensor *t = &m->job->tensors[x->tensor];
	char b[512], rb[128], rb2[128];
	long size = 1;
	int d;
	size_t n = 0;

	if (x->kind == DMD_XFER_LOCAL)
		return p;
	for (d = 0; d < t->ndim; ++d) {
		isl_pw_aff *e = isl_pw_aff_copy(x->need_ext[d]);
		long mx = dmd_pw_aff_max(e, prog->cell);
		isl_pw_aff_free(e);
		if (mx < 0)
			mx = x->alloc[d];
		prog->alloc[xi][d] = mx;
		size *= mx;
	}
	recv_name(m, xi, 0, rb, sizeof(rb));
	recv_name(m, xi, 1, rb2, sizeof(rb2));
	if (x->kind == DMD_XFER_RETURN)
		return print_partial(p, info, xi, size);
	snprintf(b, sizeof(b), "%s *%s = dmd_alloc(rt, %ld);", info->real, rb,
		size);
	p = print_line(p, b);
	if (x->kind == DMD_XFER_SHIFT) {
		snprintf(b, sizeof(b), "%s *%s = dmd_alloc(rt, %ld);",
			info->real, rb2, size);
		p = print_line(p, b);
		n += snprintf(b + n, sizeof(b) - n, "const long %s_a[] = { ",
			rb);
		for (d = 0; d < t->ndim; ++d)
			n += snprintf(b + n, sizeof(b) - n, "%s%ld",
				d ? ", " : "", prog->alloc[xi][d]);
		snprintf(b + n, sizeof(b) - n, " };");
		p = print_line(p, b);
	}
	return p;
}

/* dmd_tensor_output(...) for the output, when it has a file. */
static __isl_give isl_printer *print_output(__isl_take isl_printer *p,
	struct emit_info *info)
{
	struct dmd_prog *prog = info->prog;
	struct dmd_model *m = prog->m;
	int ti = m->out_tensor;
	struct dmd_tensor *t = &m->job->tensors[ti];
	isl_ast_expr *w;
	char b[1024], sh[256], *ws;

	if (!t->file)
		return p;
	w = isl_ast_build_expr_from_set(prog->pbuild,
		isl_set_copy(m->dist[ti].writer));
	ws = isl_ast_expr_to_C_str(w);
	isl_ast_expr_free(w);
	shape_str(t, sh, sizeof(sh));
	snprintf(b, sizeof(b), "dmd_tensor_output(rt, \"%s\", \"%s\", %d, %s, "
		"%s_lo, %s_ext, %s_l, %s);", t->name, t->file, t->ndim, sh,
		t->name, t->name, t->name, ws);
	free(ws);
	return print_line(p, b);
}

/* The body of the C program of "cell" (from "int main" on): the text
 * that is compared to merge cells with identical code. */
__isl_give char *dmd_emit_body(struct dmd_model *m, __isl_keep isl_set *cell)
{
	struct dmd_prog *prog;
	struct emit_info info;
	isl_printer *p;
	isl_ast_print_options *opts;
	char b[256], *s;
	int i;

	prog = dmd_spec_prog(m, cell);
	if (!prog)
		return NULL;
	info.prog = prog;
	info.real = m->job->dtype == DMD_F32 ? "float" : "double";
	p = isl_printer_to_str(m->ctx);
	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	p = print_line(p, "int main(int argc, char **argv)");
	p = print_line(p, "{");
	p = isl_printer_indent(p, 2);
	p = print_line(p, "dmd_rt *rt = dmd_init(&argc, &argv, &job);");
	for (i = 0; i < m->job->n_axes; ++i) {
		snprintf(b, sizeof(b), "const long %s = dmd_coord(rt, %d);",
			m->job->axes[i], i);
		p = print_line(p, b);
	}
	for (i = 0; i < m->job->n_tensors; ++i)
		if (m->dist[i].is_input || m->dist[i].is_output)
			p = print_tensor_setup(p, &info, i);
	p = print_line(p, "");
	for (i = 0; i < m->n_xfer; ++i)
		p = print_recv_setup(p, &info, i);
	p = print_line(p, "dmd_compute_begin(rt);");
	opts = isl_ast_print_options_alloc(m->ctx);
	opts = isl_ast_print_options_set_print_user(opts, &print_user, &info);
	p = isl_ast_node_print(prog->ast, p, opts);
	p = print_line(p, "dmd_compute_end(rt);");
	p = print_output(p, &info);
	p = print_line(p, "return dmd_finish(rt);");
	p = isl_printer_indent(p, -2);
	p = print_line(p, "}");
	s = isl_printer_get_str(p);
	isl_printer_free(p);
	dmd_spec_prog_free(prog);
	return s;
}

/* The whole C file of class "c" (number "class_id" of "n_classes"):
 * the header comment (which ranks, why), the includes, the job
 * descriptor, then "body". */
__isl_give char *dmd_emit_file(struct dmd_model *m, struct dmd_class *c,
	int class_id, int n_classes, const char *body)
{
	isl_printer *p;
	char *set, *s;

	set = isl_set_to_str(c->set);
	p = isl_printer_to_str(m->ctx);
	p = print_header(p, m, class_id, n_classes, set, c->why,
		c->n_ranges, c->ranges);
	p = print_line(p, "#include <math.h>");
	p = print_line(p, "#include <cblas.h>");
	p = print_line(p, "#include \"dmd_rt.h\"");
	p = print_line(p, "#include \"dmd_emit_ops.h\"");
	p = print_line(p, "");
	p = print_desc(p, m, class_id, n_classes, c->n_ranges, c->ranges);
	p = print_line(p, "");
	p = isl_printer_print_str(p, body);
	s = isl_printer_get_str(p);
	isl_printer_free(p);
	free(set);
	return s;
}
