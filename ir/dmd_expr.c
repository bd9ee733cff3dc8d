/* dmd_expr.c: the small languages inside a job file.
 *
 *  - dist entries: quasi-affine expressions over the mesh axes
 *    (+ - * by a constant, // and % by a positive constant, parentheses);
 *  - the statement of "compute" (spec 1.3):
 *	stmt   := access ('=' | '+=') expr
 *	access := NAME '[' index (',' index)* ']' | NAME
 *	index  := affine expression of index variables and integers
 *	expr   := term (('+' | '-') term)*
 *	term   := factor (('*' | '/') factor)*
 *	factor := access | NUMBER | '(' expr ')' | '-' factor
 *		| FUNC '(' expr (',' expr)* ')'
 *  - schedule commands (spec 1.4): NAME '(' arg (',' arg)* ')' with
 *	arg := NAME | ['-'] INTEGER | '[' [NAME (',' NAME)*] ']'.
 *
 * One tokenizer serves the three (ir/dmd_expr_lex.c); each is a
 * recursive-descent parser: the expressions here, the schedule commands
 * in ir/dmd_expr_cmd.c, and the checks of both in ir/dmd_expr_check.c.
 * Every node and identifier stored in the job carries its location in
 * the job file.
 *
 * The printers dmd_expr_to_str (the job's own syntax) and dmd_expr_to_isl
 * (isl's syntax, for affine and quasi-affine expressions) are here too.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_expr_private.h"

/* A growing string, for the printers.  On allocation failure "failed" is
 * set and the string is dropped. */
struct dmd_expr_buf {
	char *s;			/* owned */
	size_t len;
	size_t cap;
	int failed;
};

/* Release an expression tree.  Returns NULL. */
struct dmd_expr *dmd_expr_free(struct dmd_expr *e)
{
	int i;

	if (!e)
		return NULL;
	for (i = 0; i < e->n_arg; ++i)
		dmd_expr_free(e->args[i]);
	free(e->args);
	free(e->name);
	free(e);
	return NULL;
}

/* ---------------------------------------------------------------------
 * Printing
 */

/* Append printf-style text to "b". */
static void dmd_expr_buf_printf(struct dmd_expr_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void dmd_expr_buf_printf(struct dmd_expr_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto error;
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1);
		char *s = realloc(b->s, cap);

		if (!s)
			goto error;
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += n;
	return;
error:
	b->failed = 1;
}

/* Return the string of "b" (owned by the caller), or NULL if anything
 * failed. */
static char *dmd_expr_buf_finish(struct dmd_expr_buf *b)
{
	if (b->failed || !b->s) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

/* Print a floating-point literal so that it reads back as the same
 * number and as a NUM (with a '.' or an exponent). */
static void dmd_expr_print_num(struct dmd_expr_buf *b, double v)
{
	char tmp[64];
	int prec;

	for (prec = 1; prec <= 17; ++prec) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (!strpbrk(tmp, ".eEni"))
		strcat(tmp, ".0");
	dmd_expr_buf_printf(b, "%s", tmp);
}

/* Binding strength of the operator at the root of "e" in the job's
 * syntax: sums 1, products 2, negation 3, atoms 4. */
static int dmd_expr_prec(const struct dmd_expr *e)
{
	switch (e->type) {
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
		return 1;
	case DMD_EXPR_MUL:
	case DMD_EXPR_DIV:
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		return 2;
	case DMD_EXPR_NEG:
		return 3;
	case DMD_EXPR_INT:
		return e->ival < 0 ? 3 : 4;
	case DMD_EXPR_NUM:
		return e->fval < 0 || signbit(e->fval) ? 3 : 4;
	default:
		return 4;
	}
}

/* The job's spelling of a binary operator. */
static const char *dmd_expr_op(enum dmd_expr_type type)
{
	switch (type) {
	case DMD_EXPR_ADD:	return "+";
	case DMD_EXPR_SUB:	return "-";
	case DMD_EXPR_MUL:	return "*";
	case DMD_EXPR_DIV:	return "/";
	case DMD_EXPR_FDIV:	return "//";
	case DMD_EXPR_MOD:	return "%";
	default:		return "?";
	}
}

static void dmd_expr_print(struct dmd_expr_buf *b, const struct dmd_expr *e);

/* Print "e", in parentheses if "paren". */
static void dmd_expr_print_sub(struct dmd_expr_buf *b,
	const struct dmd_expr *e, int paren)
{
	if (paren)
		dmd_expr_buf_printf(b, "(");
	dmd_expr_print(b, e);
	if (paren)
		dmd_expr_buf_printf(b, ")");
}

/* Print the arguments of an access or a call, separated by ", ". */
static void dmd_expr_print_args(struct dmd_expr_buf *b,
	const struct dmd_expr *e)
{
	int i;

	for (i = 0; i < e->n_arg; ++i) {
		if (i > 0)
			dmd_expr_buf_printf(b, ", ");
		dmd_expr_print(b, e->args[i]);
	}
}

/* Print "e" in the job's syntax, with the parentheses its tree needs. */
static void dmd_expr_print(struct dmd_expr_buf *b, const struct dmd_expr *e)
{
	int prec;

	if (!e) {
		b->failed = 1;
		return;
	}
	prec = dmd_expr_prec(e);
	switch (e->type) {
	case DMD_EXPR_INT:
		dmd_expr_buf_printf(b, "%ld", e->ival);
		break;
	case DMD_EXPR_NUM:
		dmd_expr_print_num(b, e->fval);
		break;
	case DMD_EXPR_VAR:
		dmd_expr_buf_printf(b, "%s", e->name);
		break;
	case DMD_EXPR_ACCESS:
		dmd_expr_buf_printf(b, "%s", e->name);
		if (e->n_arg > 0) {
			dmd_expr_buf_printf(b, "[");
			dmd_expr_print_args(b, e);
			dmd_expr_buf_printf(b, "]");
		}
		break;
	case DMD_EXPR_CALL:
		dmd_expr_buf_printf(b, "%s(", e->name);
		dmd_expr_print_args(b, e);
		dmd_expr_buf_printf(b, ")");
		break;
	case DMD_EXPR_NEG:
		if (e->n_arg < 1) {
			b->failed = 1;
			break;
		}
		dmd_expr_buf_printf(b, e->args[0]->type == DMD_EXPR_NEG ?
			"- " : "-");
		dmd_expr_print_sub(b, e->args[0],
			dmd_expr_prec(e->args[0]) < prec);
		break;
	default:
		if (e->n_arg < 2) {
			b->failed = 1;
			break;
		}
		dmd_expr_print_sub(b, e->args[0],
			dmd_expr_prec(e->args[0]) < prec);
		dmd_expr_buf_printf(b, " %s ", dmd_expr_op(e->type));
		dmd_expr_print_sub(b, e->args[1],
			dmd_expr_prec(e->args[1]) <= prec);
		break;
	}
}

/* Print an expression in the job's own syntax ("A[i - 1] + A[i]") to a
 * malloc'ed string (owned by the caller).  NULL if out of memory. */
char *dmd_expr_to_str(const struct dmd_expr *e)
{
	struct dmd_expr_buf b = { NULL, 0, 0, 0 };

	dmd_expr_print(&b, e);
	return dmd_expr_buf_finish(&b);
}

/* Print "e" in the job's syntax for a message (owned by the caller): at
 * most DMD_EXPR_MSG_LEN characters (expressions are ASCII), the end cut
 * and replaced with "...".  NULL if out of memory. */
char *dmd_expr_to_msg(const struct dmd_expr *e)
{
	char *s = dmd_expr_to_str(e);

	if (s && strlen(s) > DMD_EXPR_MSG_LEN)
		strcpy(s + DMD_EXPR_MSG_LEN - 3, "...");
	return s;
}

/* Floor of a / b for b > 0. */
static long dmd_expr_floor_div(long a, long b)
{
	long q = a / b;

	if (a % b != 0 && a < 0)
		q -= 1;
	return q;
}

/* Evaluate "e" if it is an integer constant.  Returns 1 and sets *val if
 * it is, 0 if it involves variables (or anything but integers and
 * + - * // %), -1 if its value overflows a long or it divides by a
 * non-positive number. */
static int dmd_expr_const(const struct dmd_expr *e, long *val)
{
	long a, b;
	int ra, rb;

	switch (e->type) {
	case DMD_EXPR_INT:
		*val = e->ival;
		return 1;
	case DMD_EXPR_NEG:
		ra = dmd_expr_const(e->args[0], &a);
		if (ra != 1)
			return ra;
		if (a == LONG_MIN)
			return -1;
		*val = -a;
		return 1;
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		ra = dmd_expr_const(e->args[0], &a);
		rb = dmd_expr_const(e->args[1], &b);
		if (ra < 0 || rb < 0)
			return -1;
		if (ra == 0 || rb == 0)
			return 0;
		return dmd_expr_fold(e->type, a, b, val);
	default:
		return 0;
	}
}

/* Apply binary operator "type" (+ - * // %) to "a" and "b" into *val.
 * Returns 1, or -1 if the value overflows a long or the divisor is not
 * positive. */
int dmd_expr_fold(enum dmd_expr_type type, long a, long b, long *val)
{
	switch (type) {
	case DMD_EXPR_ADD:
		return __builtin_add_overflow(a, b, val) ? -1 : 1;
	case DMD_EXPR_SUB:
		return __builtin_sub_overflow(a, b, val) ? -1 : 1;
	case DMD_EXPR_MUL:
		return __builtin_mul_overflow(a, b, val) ? -1 : 1;
	case DMD_EXPR_FDIV:
		if (b <= 0)
			return -1;
		*val = dmd_expr_floor_div(a, b);
		return 1;
	default:
		if (b <= 0)
			return -1;
		*val = a - dmd_expr_floor_div(a, b) * b;
		return 1;
	}
}

/* Print "e" in isl's syntax; constant parts are folded to integers.
 * Returns -1 if "e" is not quasi-affine. */
static int dmd_expr_print_isl(struct dmd_expr_buf *b, const struct dmd_expr *e)
{
	const struct dmd_expr *r;
	long v;
	int k;

	k = dmd_expr_const(e, &v);
	if (k < 0)
		return -1;
	if (k == 1) {
		dmd_expr_buf_printf(b, "%ld", v);
		return 0;
	}
	switch (e->type) {
	case DMD_EXPR_VAR:
		dmd_expr_buf_printf(b, "%s", e->name);
		return 0;
	case DMD_EXPR_NEG:
		dmd_expr_buf_printf(b, "-(");
		if (dmd_expr_print_isl(b, e->args[0]) < 0)
			return -1;
		dmd_expr_buf_printf(b, ")");
		return 0;
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
		if (dmd_expr_print_isl(b, e->args[0]) < 0)
			return -1;
		r = e->args[1];
		k = r->type != DMD_EXPR_VAR && dmd_expr_const(r, &v) != 1;
		dmd_expr_buf_printf(b, " %s %s", dmd_expr_op(e->type),
			k ? "(" : "");
		if (dmd_expr_print_isl(b, r) < 0)
			return -1;
		dmd_expr_buf_printf(b, "%s", k ? ")" : "");
		return 0;
	case DMD_EXPR_MUL:
		if (dmd_expr_const(e->args[0], &v) == 1)
			r = e->args[1];
		else if (dmd_expr_const(e->args[1], &v) == 1)
			r = e->args[0];
		else
			return -1;
		dmd_expr_buf_printf(b, "%ld * (", v);
		if (dmd_expr_print_isl(b, r) < 0)
			return -1;
		dmd_expr_buf_printf(b, ")");
		return 0;
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		if (dmd_expr_const(e->args[1], &v) != 1 || v <= 0)
			return -1;
		dmd_expr_buf_printf(b, e->type == DMD_EXPR_FDIV ?
			"floor((" : "((");
		if (dmd_expr_print_isl(b, e->args[0]) < 0)
			return -1;
		if (e->type == DMD_EXPR_FDIV)
			dmd_expr_buf_printf(b, ")/%ld)", v);
		else
			dmd_expr_buf_printf(b, ") mod %ld)", v);
		return 0;
	default:
		return -1;
	}
}

/* Print a quasi-affine expression in isl syntax to a malloc'ed string
 * (owned by the caller): "x // 4" gives "floor((x)/4)", "(x + y) % 8"
 * gives "((x + y) mod 8)", "2 * x" gives "2 * (x)".  isl wants the divisor
 * and the constant factor as plain integers, so constant subexpressions
 * are folded.  NULL if "e" is not quasi-affine (accesses, calls,
 * floating-point numbers, '/', a product of two variables) or out of
 * memory. */
char *dmd_expr_to_isl(const struct dmd_expr *e)
{
	struct dmd_expr_buf b = { NULL, 0, 0, 0 };

	if (!e || dmd_expr_print_isl(&b, e) < 0)
		b.failed = 1;
	return dmd_expr_buf_finish(&b);
}

/* ---------------------------------------------------------------------
 * Expression trees
 */

/* A new node of type "type" at "loc" (owned by the caller), or NULL after
 * an error. */
static struct dmd_expr *dmd_expr_alloc(struct dmd_expr_parser *p,
	enum dmd_expr_type type, struct dmd_loc loc)
{
	struct dmd_expr *e;

	if (++p->n_nodes > DMD_EXPR_MAX_NODES) {
		dmd_expr_error(p, loc, "expression too large in %s (at "
			"most %d nodes: accesses, numbers, operators)",
			p->src->what, DMD_EXPR_MAX_NODES);
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		dmd_expr_error(p, loc, "out of memory");
		return NULL;
	}
	e->type = type;
	e->loc = loc;
	return e;
}

/* Append "arg" (taken) to the arguments of "e" (kept). */
static int dmd_expr_add_arg(struct dmd_expr_parser *p, struct dmd_expr *e,
	struct dmd_expr *arg)
{
	struct dmd_expr **args;

	if (!arg)
		return -1;
	if (dmd_expr_full(e->n_arg)) {
		args = realloc(e->args, 2 * (e->n_arg + 1) * sizeof(*args));
		if (!args) {
			dmd_expr_error(p, arg->loc, "out of memory");
			dmd_expr_free(arg);
			return -1;
		}
		e->args = args;
	}
	e->args[e->n_arg++] = arg;
	return 0;
}

/* A node "type" at "loc" with arguments "a" and, unless NULL, "b" (both
 * taken, also on error). */
static struct dmd_expr *dmd_expr_node(struct dmd_expr_parser *p,
	enum dmd_expr_type type, struct dmd_loc loc, struct dmd_expr *a,
	struct dmd_expr *b)
{
	struct dmd_expr *e;

	e = dmd_expr_alloc(p, type, loc);
	if (!e)
		goto error;
	if (dmd_expr_add_arg(p, e, a) < 0) {
		a = NULL;
		goto error;
	}
	a = NULL;
	if (b && dmd_expr_add_arg(p, e, b) < 0) {
		b = NULL;
		goto error;
	}
	return e;
error:
	dmd_expr_free(a);
	dmd_expr_free(b);
	return dmd_expr_free(e);
}

/* ---------------------------------------------------------------------
 * Affine and quasi-affine expressions: indices and dist entries
 */

static struct dmd_expr *dmd_expr_parse_aff(struct dmd_expr_parser *p,
	int quasi);

/* afactor := NAME | INTEGER | '(' aff ')' | '-' afactor.
 * A NAME is a mesh axis in a dist entry ("quasi"), an index variable
 * (which must not be a mesh axis) in an index. */
static struct dmd_expr *dmd_expr_parse_aff_factor(struct dmd_expr_parser *p,
	int quasi)
{
	struct dmd_expr *e = NULL;
	struct dmd_loc loc = p->tok.loc;
	char buf[48];

	switch (p->tok.type) {
	case DMD_TOK_ID:
		e = dmd_expr_alloc(p, DMD_EXPR_VAR, loc);
		if (!e)
			return NULL;
		e->name = dmd_expr_tok_strdup(p);
		if (!e->name)
			return dmd_expr_free(e);
		if (quasi && dmd_job_find_axis(p->job, e->name) < 0) {
			dmd_expr_error(p, loc, "unknown mesh axis '%s' in %s",
				e->name, p->src->what);
			return dmd_expr_free(e);
		}
		if (!quasi && dmd_job_find_axis(p->job, e->name) >= 0) {
			dmd_expr_error(p, loc, "index variable '%s' has the "
				"name of a mesh axis", e->name);
			return dmd_expr_free(e);
		}
		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		return e;
	case DMD_TOK_INT:
		if (p->tok.overflow) {
			dmd_expr_tok_error(p, "integer '%s' is too large in %s",
				dmd_expr_tok_text(p, buf, sizeof(buf)),
				p->src->what);
			return NULL;
		}
		e = dmd_expr_alloc(p, DMD_EXPR_INT, loc);
		if (!e)
			return NULL;
		e->ival = p->tok.ival;
		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		return e;
	case DMD_TOK_NUM:
		dmd_expr_tok_error(p, "'%s' is not an integer in %s",
			dmd_expr_tok_text(p, buf, sizeof(buf)), p->src->what);
		return NULL;
	case DMD_TOK_LPAR:
		if (dmd_expr_enter(p) < 0 || dmd_expr_next(p) < 0)
			return NULL;
		e = dmd_expr_parse_aff(p, quasi);
		if (!e)
			return NULL;
		if (dmd_expr_expect(p, DMD_TOK_RPAR, "')'") < 0)
			return dmd_expr_free(e);
		p->depth--;
		return e;
	case DMD_TOK_MINUS:
		if (dmd_expr_enter(p) < 0 || dmd_expr_next(p) < 0)
			return NULL;
		e = dmd_expr_parse_aff_factor(p, quasi);
		if (!e)
			return NULL;
		p->depth--;
		return dmd_expr_node(p, DMD_EXPR_NEG, loc, e, NULL);
	default:
		if (dmd_expr_is(p, DMD_TOK_END))
			dmd_expr_tok_error(p, "expected %s in %s", quasi ?
				"an expression" : "an index", p->src->what);
		else
			dmd_expr_tok_error(p, "expected %s in %s, got '%s'",
				quasi ? "an expression" : "an index",
				p->src->what,
				dmd_expr_tok_text(p, buf, sizeof(buf)));
		return NULL;
	}
}

/* aterm := afactor (('*' | '//' | '%') afactor)*, with '//' and '%' only
 * in dist entries ("quasi"). */
static struct dmd_expr *dmd_expr_parse_aff_term(struct dmd_expr_parser *p,
	int quasi)
{
	struct dmd_expr *e, *rhs;

	e = dmd_expr_parse_aff_factor(p, quasi);
	while (e) {
		enum dmd_expr_type type;
		struct dmd_loc loc = p->tok.loc;

		if (dmd_expr_is(p, DMD_TOK_STAR))
			type = DMD_EXPR_MUL;
		else if (quasi && dmd_expr_is(p, DMD_TOK_FDIV))
			type = DMD_EXPR_FDIV;
		else if (quasi && dmd_expr_is(p, DMD_TOK_MOD))
			type = DMD_EXPR_MOD;
		else if (quasi && dmd_expr_is(p, DMD_TOK_SLASH)) {
			dmd_expr_tok_error(p, "'/' is not allowed in %s "
				"(use '//' for floor division)", p->src->what);
			return dmd_expr_free(e);
		} else if (dmd_expr_is(p, DMD_TOK_SLASH) ||
			   dmd_expr_is(p, DMD_TOK_FDIV) ||
			   dmd_expr_is(p, DMD_TOK_MOD)) {
			char buf[8];

			dmd_expr_tok_error(p, "'%s' is not allowed in an index "
				"in %s (indices are affine)",
				dmd_expr_tok_text(p, buf, sizeof(buf)),
				p->src->what);
			return dmd_expr_free(e);
		} else
			break;
		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		rhs = dmd_expr_parse_aff_factor(p, quasi);
		if (!rhs)
			return dmd_expr_free(e);
		e = dmd_expr_node(p, type, loc, e, rhs);
	}
	return e;
}

/* aff := aterm (('+' | '-') aterm)* */
static struct dmd_expr *dmd_expr_parse_aff(struct dmd_expr_parser *p,
	int quasi)
{
	struct dmd_expr *e, *rhs;

	e = dmd_expr_parse_aff_term(p, quasi);
	while (e && (dmd_expr_is(p, DMD_TOK_PLUS) ||
		     dmd_expr_is(p, DMD_TOK_MINUS))) {
		enum dmd_expr_type type = dmd_expr_is(p, DMD_TOK_PLUS) ?
			DMD_EXPR_ADD : DMD_EXPR_SUB;
		struct dmd_loc loc = p->tok.loc;

		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		rhs = dmd_expr_parse_aff_term(p, quasi);
		if (!rhs)
			return dmd_expr_free(e);
		e = dmd_expr_node(p, type, loc, e, rhs);
	}
	return e;
}

/* Parse a dist entry (not "-"): a quasi-affine expression over the mesh
 * axes of "job".  Returns a new tree (owned by the caller), or NULL after
 * reporting an error. */
struct dmd_expr *dmd_expr_parse_dist(struct dmd_job *job,
	const struct dmd_src *src)
{
	struct dmd_expr_parser p;
	struct dmd_expr *e = NULL;
	long val;

	if (dmd_expr_start(&p, job, src) < 0)
		return NULL;
	e = dmd_expr_parse_aff(&p, 1);
	if (!e)
		return NULL;
	if (!dmd_expr_is(&p, DMD_TOK_END)) {
		dmd_expr_unexpected(&p);
		goto error;
	}
	if (dmd_expr_check_aff(&p, e, &val) < 0)
		goto error;
	return e;
error:
	return dmd_expr_free(e);
}

/* ---------------------------------------------------------------------
 * The statement
 */

static struct dmd_expr *dmd_expr_parse_rhs(struct dmd_expr_parser *p);

/* The rest of an access whose NAME has just been consumed ("name" taken,
 * "loc" its location): '[' index (',' index)* ']', or nothing for a
 * scalar. */
static struct dmd_expr *dmd_expr_parse_access(struct dmd_expr_parser *p,
	char *name, struct dmd_loc loc)
{
	struct dmd_expr *e;

	e = dmd_expr_alloc(p, DMD_EXPR_ACCESS, loc);
	if (!e) {
		free(name);
		return NULL;
	}
	e->name = name;
	if (!dmd_expr_is(p, DMD_TOK_LBRACK))
		return e;
	do {
		if (dmd_expr_next(p) < 0)
			goto error;
		if (dmd_expr_add_arg(p, e, dmd_expr_parse_aff(p, 0)) < 0)
			goto error;
	} while (dmd_expr_is(p, DMD_TOK_COMMA));
	if (dmd_expr_expect(p, DMD_TOK_RBRACK, "']'") < 0)
		goto error;
	return e;
error:
	return dmd_expr_free(e);
}

/* The functions of the statement and their numbers of arguments. */
static const struct {
	const char *name;
	int n_arg;
} dmd_expr_funcs[] = {
	{ "max", -2 },		/* at least 2 */
	{ "min", -2 },
	{ "exp", 1 },
	{ "sqrt", 1 },
	{ "relu", 1 },
	{ "tanh", 1 },
	{ "sigmoid", 1 },
	{ "erf", 1 },
	{ "gelu", 1 },
	{ "abs", 1 },
	{ "log", 1 },
};

/* The rest of a call whose function name has just been consumed ("name"
 * taken, "loc" its location); the current token is '('. */
static struct dmd_expr *dmd_expr_parse_call(struct dmd_expr_parser *p,
	char *name, struct dmd_loc loc)
{
	struct dmd_expr *e;
	size_t i, n = sizeof(dmd_expr_funcs) / sizeof(dmd_expr_funcs[0]);

	for (i = 0; i < n; ++i)
		if (strcmp(name, dmd_expr_funcs[i].name) == 0)
			break;
	if (i >= n) {
		dmd_expr_error(p, loc, "unknown function '%s' in %s", name,
			p->src->what);
		free(name);
		return NULL;
	}
	e = dmd_expr_alloc(p, DMD_EXPR_CALL, loc);
	if (!e) {
		free(name);
		return NULL;
	}
	e->name = name;
	if (dmd_expr_enter(p) < 0)
		goto error;
	do {
		if (dmd_expr_next(p) < 0)
			goto error;
		if (dmd_expr_add_arg(p, e, dmd_expr_parse_rhs(p)) < 0)
			goto error;
	} while (dmd_expr_is(p, DMD_TOK_COMMA));
	if (dmd_expr_expect(p, DMD_TOK_RPAR, "')'") < 0)
		goto error;
	p->depth--;
	if (dmd_expr_funcs[i].n_arg < 0 &&
	    e->n_arg < -dmd_expr_funcs[i].n_arg) {
		dmd_expr_error(p, loc, "%s takes at least %d arguments, got %d",
			name, -dmd_expr_funcs[i].n_arg, e->n_arg);
		goto error;
	}
	if (dmd_expr_funcs[i].n_arg >= 0 &&
	    e->n_arg != dmd_expr_funcs[i].n_arg) {
		dmd_expr_error(p, loc, "%s takes %d argument%s, got %d",
			name, dmd_expr_funcs[i].n_arg,
			dmd_expr_funcs[i].n_arg == 1 ? "" : "s", e->n_arg);
		goto error;
	}
	return e;
error:
	return dmd_expr_free(e);
}

/* factor := access | NUMBER | '(' expr ')' | '-' factor
 *	| FUNC '(' expr (',' expr)* ')' */
static struct dmd_expr *dmd_expr_parse_factor(struct dmd_expr_parser *p)
{
	struct dmd_expr *e;
	struct dmd_loc loc = p->tok.loc;
	char *name;
	char buf[48];

	switch (p->tok.type) {
	case DMD_TOK_ID:
		name = dmd_expr_tok_strdup(p);
		if (!name)
			return NULL;
		if (dmd_expr_next(p) < 0) {
			free(name);
			return NULL;
		}
		if (dmd_expr_is(p, DMD_TOK_LPAR))
			return dmd_expr_parse_call(p, name, loc);
		return dmd_expr_parse_access(p, name, loc);
	case DMD_TOK_INT:
	case DMD_TOK_NUM:
		if (isinf(p->tok.fval)) {
			dmd_expr_tok_error(p, "number '%s' is out of range "
				"in %s", dmd_expr_tok_text(p, buf, sizeof(buf)),
				p->src->what);
			return NULL;
		}
		if (dmd_expr_is(p, DMD_TOK_INT) && !p->tok.overflow) {
			e = dmd_expr_alloc(p, DMD_EXPR_INT, loc);
			if (e)
				e->ival = p->tok.ival;
		} else {
			e = dmd_expr_alloc(p, DMD_EXPR_NUM, loc);
			if (e)
				e->fval = p->tok.fval;
		}
		if (!e)
			return NULL;
		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		return e;
	case DMD_TOK_LPAR:
		if (dmd_expr_enter(p) < 0 || dmd_expr_next(p) < 0)
			return NULL;
		e = dmd_expr_parse_rhs(p);
		if (!e)
			return NULL;
		if (dmd_expr_expect(p, DMD_TOK_RPAR, "')'") < 0)
			return dmd_expr_free(e);
		p->depth--;
		return e;
	case DMD_TOK_MINUS:
		if (dmd_expr_enter(p) < 0 || dmd_expr_next(p) < 0)
			return NULL;
		e = dmd_expr_parse_factor(p);
		if (!e)
			return NULL;
		p->depth--;
		return dmd_expr_node(p, DMD_EXPR_NEG, loc, e, NULL);
	default:
		if (dmd_expr_is(p, DMD_TOK_END))
			dmd_expr_tok_error(p, "expected an expression in %s",
				p->src->what);
		else
			dmd_expr_tok_error(p, "expected an expression in %s, "
				"got '%s'", p->src->what,
				dmd_expr_tok_text(p, buf, sizeof(buf)));
		return NULL;
	}
}

/* term := factor (('*' | '/') factor)* */
static struct dmd_expr *dmd_expr_parse_term(struct dmd_expr_parser *p)
{
	struct dmd_expr *e, *rhs;

	e = dmd_expr_parse_factor(p);
	while (e && (dmd_expr_is(p, DMD_TOK_STAR) ||
		     dmd_expr_is(p, DMD_TOK_SLASH))) {
		enum dmd_expr_type type = dmd_expr_is(p, DMD_TOK_STAR) ?
			DMD_EXPR_MUL : DMD_EXPR_DIV;
		struct dmd_loc loc = p->tok.loc;

		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		rhs = dmd_expr_parse_factor(p);
		if (!rhs)
			return dmd_expr_free(e);
		e = dmd_expr_node(p, type, loc, e, rhs);
	}
	return e;
}

/* expr := term (('+' | '-') term)* */
static struct dmd_expr *dmd_expr_parse_rhs(struct dmd_expr_parser *p)
{
	struct dmd_expr *e, *rhs;

	e = dmd_expr_parse_term(p);
	while (e && (dmd_expr_is(p, DMD_TOK_PLUS) ||
		     dmd_expr_is(p, DMD_TOK_MINUS))) {
		enum dmd_expr_type type = dmd_expr_is(p, DMD_TOK_PLUS) ?
			DMD_EXPR_ADD : DMD_EXPR_SUB;
		struct dmd_loc loc = p->tok.loc;

		if (dmd_expr_next(p) < 0)
			return dmd_expr_free(e);
		rhs = dmd_expr_parse_term(p);
		if (!rhs)
			return dmd_expr_free(e);
		e = dmd_expr_node(p, type, loc, e, rhs);
	}
	return e;
}

/* Parse and check the statement "src"; on success fill step->lhs,
 * step->rhs and step->accumulate and return 0.  Returns -1 after an
 * error. */
int dmd_expr_parse_stmt(struct dmd_job *job, const struct dmd_src *src,
	struct dmd_step *step)
{
	struct dmd_expr_parser p;
	struct dmd_expr *lhs = NULL, *rhs = NULL;
	int accumulate;
	char *name;
	struct dmd_loc loc;

	if (dmd_expr_start(&p, job, src) < 0)
		return -1;
	if (!dmd_expr_is(&p, DMD_TOK_ID)) {
		dmd_expr_tok_error(&p, "expected a tensor access at the start "
			"of %s", src->what);
		goto error;
	}
	loc = p.tok.loc;
	name = dmd_expr_tok_strdup(&p);
	if (!name)
		goto error;
	if (dmd_expr_next(&p) < 0) {
		free(name);
		goto error;
	}
	lhs = dmd_expr_parse_access(&p, name, loc);
	if (!lhs)
		goto error;
	if (!dmd_expr_is(&p, DMD_TOK_ASSIGN) &&
	    !dmd_expr_is(&p, DMD_TOK_ADD_ASSIGN)) {
		dmd_expr_tok_error(&p, "expected '=' or '+=' in %s", src->what);
		goto error;
	}
	accumulate = dmd_expr_is(&p, DMD_TOK_ADD_ASSIGN);
	if (dmd_expr_next(&p) < 0)
		goto error;
	rhs = dmd_expr_parse_rhs(&p);
	if (!rhs)
		goto error;
	if (!dmd_expr_is(&p, DMD_TOK_END)) {
		dmd_expr_unexpected(&p);
		goto error;
	}
	if (dmd_expr_check_access(&p, lhs) < 0 ||
	    dmd_expr_check_rhs(&p, rhs) < 0)
		goto error;
	step->lhs = lhs;
	step->rhs = rhs;
	step->accumulate = accumulate;
	return 0;
error:
	dmd_expr_free(lhs);
	dmd_expr_free(rhs);
	return -1;
}
