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
 * One tokenizer serves the three; each is a recursive-descent parser.
 * Every token carries the location in the job file of its first byte
 * (struct dmd_src maps bytes to locations), and so does every node and
 * identifier stored in the job.
 *
 * The printers dmd_expr_to_str (the job's own syntax) and dmd_expr_to_isl
 * (isl's syntax, for affine and quasi-affine expressions) are here too.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_int.h"
#include "dmd_job.h"
#include "dmd_parse_private.h"

/* Limits that keep the recursive walks shallow on hostile input. */
#define DMD_EXPR_MAX_NEST	200	/* nested parentheses and signs */
#define DMD_EXPR_MAX_NODES	4096	/* nodes in one expression */

enum dmd_tok_type {
	DMD_TOK_END,
	DMD_TOK_ID,
	DMD_TOK_INT,
	DMD_TOK_NUM,
	DMD_TOK_PLUS,
	DMD_TOK_MINUS,
	DMD_TOK_STAR,
	DMD_TOK_SLASH,
	DMD_TOK_FDIV,
	DMD_TOK_MOD,
	DMD_TOK_LPAR,
	DMD_TOK_RPAR,
	DMD_TOK_LBRACK,
	DMD_TOK_RBRACK,
	DMD_TOK_COMMA,
	DMD_TOK_ASSIGN,
	DMD_TOK_ADD_ASSIGN,
};

/* A token: text[start .. start + len) of the source. */
struct dmd_tok {
	enum dmd_tok_type type;
	size_t start;
	size_t len;
	struct dmd_loc loc;
	long ival;			/* DMD_TOK_INT, unless overflow */
	int overflow;			/* DMD_TOK_INT too large for a long */
	double fval;			/* DMD_TOK_NUM, DMD_TOK_INT */
};

/* The state of one parse. */
struct dmd_expr_parser {
	struct dmd_job *job;		/* not owned */
	const struct dmd_src *src;	/* not owned */
	size_t pos;			/* next byte to scan */
	struct dmd_tok tok;		/* the current token */
	int depth;			/* current nesting */
	int n_nodes;			/* nodes allocated so far */
	int n_names;			/* names in the schedule command */
};

/* A growing string, for the printers.  On allocation failure "failed" is
 * set and the string is dropped. */
struct dmd_expr_buf {
	char *s;			/* owned */
	size_t len;
	size_t cap;
	int failed;
};

/* Character classes in the C locale, whatever the current one. */
static int dmd_expr_is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int dmd_expr_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int dmd_expr_is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		c == '\f' || c == '\v';
}

/* Must an array of "n" elements, grown by doubling, grow before its
 * next element?  It is reallocated (to room for 2 * n + 2 elements)
 * whenever "n" is 0 or a power of 2, which leaves room for every count up
 * to the next power of 2: appending n elements costs O(n). */
static int dmd_expr_full(int n)
{
	return (n & (n - 1)) == 0;
}

/* The length in bytes of the character at s[0] (n > 0 bytes left), and
 * in *printable whether it may go into a one-line message as is: not a
 * control character (C0, DEL, C1: U+0080 to U+009F), not U+2028 or U+2029
 * (line breaks for YAML), not a bidirectional control (U+200E, U+200F,
 * U+202A to U+202E, U+2066 to U+2069, which reorder what a terminal
 * shows), and valid UTF-8 (a byte that starts no valid sequence has
 * length 1). */
size_t dmd_expr_char(const char *s, size_t n, int *printable)
{
	const unsigned char *u = (const unsigned char *) s;
	unsigned long code;
	size_t k, i;

	*printable = 0;
	if (u[0] < 0x80) {
		*printable = u[0] >= 0x20 && u[0] != 0x7f;
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		k = 2, code = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		k = 3, code = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		k = 4, code = u[0] & 0x07;
	else
		return 1;
	if (k > n)
		return 1;
	for (i = 1; i < k; ++i) {
		if ((u[i] & 0xc0) != 0x80)
			return 1;
		code = code << 6 | (u[i] & 0x3f);
	}
	if ((k == 3 && code < 0x800) || (k == 4 && code < 0x10000) ||
	    (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff)
		return 1;
	*printable = !(code <= 0x9f || code == 0x200e || code == 0x200f ||
		(code >= 0x2028 && code <= 0x202e) ||
		(code >= 0x2066 && code <= 0x2069));
	return k;
}

/* Is text[0..len) an identifier [A-Za-z_][A-Za-z0-9_]*? */
int dmd_expr_is_identifier(const char *text, size_t len)
{
	size_t i;

	if (!text || len == 0 || !dmd_expr_is_alpha((unsigned char) text[0]))
		return 0;
	for (i = 1; i < len; ++i)
		if (!dmd_expr_is_alpha((unsigned char) text[i]) &&
		    !dmd_expr_is_digit((unsigned char) text[i]))
			return 0;
	return 1;
}

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

/* Release what "cmd" owns (not "cmd" itself). */
void dmd_sched_cmd_clear(struct dmd_sched_cmd *cmd)
{
	int i, j;

	if (!cmd)
		return;
	for (i = 0; i < cmd->n_args; ++i) {
		struct dmd_sched_arg *arg = &cmd->args[i];

		free(arg->id);
		for (j = 0; j < arg->n; ++j)
			free(arg->ids[j]);
		free(arg->ids);
		free(arg->locs);
	}
	free(cmd->args);
	cmd->args = NULL;
	cmd->n_args = 0;
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

static int dmd_expr_fold(enum dmd_expr_type type, long a, long b,
	long *val);

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
static int dmd_expr_fold(enum dmd_expr_type type, long a, long b, long *val)
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
 * Tokenizer
 */

/* Report an error at "loc" about the source being parsed. */
static void dmd_expr_error(struct dmd_expr_parser *p, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void dmd_expr_error(struct dmd_expr_parser *p, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(p->job, loc, fmt, ap);
	va_end(ap);
}

/* Report an error at the current token. */
#define dmd_expr_tok_error(p, ...) dmd_expr_error(p, (p)->tok.loc, __VA_ARGS__)

/* Copy the text of the current token (at most "size" - 1 bytes, "..."
 * if cut) to "buf", for messages.  The end reads "end". */
static const char *dmd_expr_tok_text(struct dmd_expr_parser *p, char *buf,
	size_t size)
{
	size_t len = p->tok.len;

	if (p->tok.type == DMD_TOK_END)
		return "end";
	if (len + 1 > size) {
		snprintf(buf, size, "%.*s...", (int) (size - 4),
			p->src->text + p->tok.start);
		return buf;
	}
	memcpy(buf, p->src->text + p->tok.start, len);
	buf[len] = '\0';
	return buf;
}

/* Read a number at "i": an integer (DMD_TOK_INT, "overflow" set if it
 * does not fit a long) or one with a fraction or an exponent
 * (DMD_TOK_NUM).  Returns the end of the number, or 0 after an error. */
static size_t dmd_expr_scan_number(struct dmd_expr_parser *p, size_t i)
{
	const char *s = p->src->text;
	size_t n = p->src->len, j = i, k;
	int is_num = 0;
	char *copy;

	while (j < n && dmd_expr_is_digit((unsigned char) s[j]))
		++j;
	if (j < n && s[j] == '.') {
		is_num = 1;
		++j;
		while (j < n && dmd_expr_is_digit((unsigned char) s[j]))
			++j;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		k = j + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			++k;
		if (k < n && dmd_expr_is_digit((unsigned char) s[k])) {
			is_num = 1;
			j = k;
			while (j < n && dmd_expr_is_digit((unsigned char) s[j]))
				++j;
		}
	}
	p->tok.type = is_num ? DMD_TOK_NUM : DMD_TOK_INT;
	p->tok.len = j - i;
	if (!is_num) {
		p->tok.ival = 0;
		p->tok.overflow = dmd_int_parse(s + i, j - i, 0, LONG_MAX,
			&p->tok.ival) != DMD_INT_OK;
	}
	copy = malloc(j - i + 1);
	if (!copy) {
		dmd_expr_tok_error(p, "out of memory");
		return 0;
	}
	memcpy(copy, s + i, j - i);
	copy[j - i] = '\0';
	p->tok.fval = strtod(copy, NULL);
	free(copy);
	if (is_num && isinf(p->tok.fval)) {
		char buf[48];

		dmd_expr_tok_error(p, "number '%s' is out of range in %s",
			dmd_expr_tok_text(p, buf, sizeof(buf)), p->src->what);
		return 0;
	}
	return j;
}

/* Report an unexpected character at "i": a printable one as it is (see
 * dmd_expr_char), anything else as \xNN (its first byte). */
static void dmd_expr_bad_char(struct dmd_expr_parser *p, size_t i)
{
	const char *s = p->src->text;
	size_t k;
	int printable;

	k = dmd_expr_char(s + i, p->src->len - i, &printable);
	if (printable && k > 1)
		dmd_expr_tok_error(p, "unexpected character '%.*s' in %s",
			(int) k, s + i, p->src->what);
	else if (printable)
		dmd_expr_tok_error(p, "unexpected character '%c' in %s",
			s[i], p->src->what);
	else
		dmd_expr_tok_error(p, "unexpected character '\\x%02x' in %s",
			(unsigned char) s[i], p->src->what);
}

/* Move to the next token.  Returns 0, or -1 after an error. */
static int dmd_expr_next(struct dmd_expr_parser *p)
{
	const char *s = p->src->text;
	size_t n = p->src->len, i = p->pos, j;
	struct dmd_tok *tok = &p->tok;
	int c;

	while (i < n && dmd_expr_is_space((unsigned char) s[i]))
		++i;
	memset(tok, 0, sizeof(*tok));
	tok->start = i;
	tok->loc = p->src->locs[i];
	tok->len = 1;
	if (i >= n) {
		tok->type = DMD_TOK_END;
		tok->len = 0;
		p->pos = i;
		return 0;
	}
	c = (unsigned char) s[i];
	j = i + 1;
	if (dmd_expr_is_alpha(c)) {
		while (j < n && (dmd_expr_is_alpha((unsigned char) s[j]) ||
				 dmd_expr_is_digit((unsigned char) s[j])))
			++j;
		tok->type = DMD_TOK_ID;
		tok->len = j - i;
		if (tok->len > DMD_MAX_NAME) {
			char buf[48];

			dmd_expr_tok_error(p, "name '%s' in %s is longer than "
				"%d characters", dmd_expr_tok_text(p, buf,
					sizeof(buf)), p->src->what,
				DMD_MAX_NAME);
			return -1;
		}
	} else if (dmd_expr_is_digit(c) || (c == '.' && i + 1 < n &&
				dmd_expr_is_digit((unsigned char) s[i + 1]))) {
		j = dmd_expr_scan_number(p, i);
		if (j == 0)
			return -1;
	} else if (c == '+' && j < n && s[j] == '=') {
		tok->type = DMD_TOK_ADD_ASSIGN;
		tok->len = 2;
		j++;
	} else if (c == '/' && j < n && s[j] == '/') {
		tok->type = DMD_TOK_FDIV;
		tok->len = 2;
		j++;
	} else {
		switch (c) {
		case '+': tok->type = DMD_TOK_PLUS; break;
		case '-': tok->type = DMD_TOK_MINUS; break;
		case '*': tok->type = DMD_TOK_STAR; break;
		case '/': tok->type = DMD_TOK_SLASH; break;
		case '%': tok->type = DMD_TOK_MOD; break;
		case '(': tok->type = DMD_TOK_LPAR; break;
		case ')': tok->type = DMD_TOK_RPAR; break;
		case '[': tok->type = DMD_TOK_LBRACK; break;
		case ']': tok->type = DMD_TOK_RBRACK; break;
		case ',': tok->type = DMD_TOK_COMMA; break;
		case '=': tok->type = DMD_TOK_ASSIGN; break;
		default:
			dmd_expr_bad_char(p, i);
			return -1;
		}
	}
	p->pos = j;
	return 0;
}

/* Start parsing "src": set up "p" and read the first token. */
static int dmd_expr_start(struct dmd_expr_parser *p, struct dmd_job *job,
	const struct dmd_src *src)
{
	memset(p, 0, sizeof(*p));
	p->job = job;
	p->src = src;
	return dmd_expr_next(p);
}

/* A copy of the text of the current token (owned by the caller). */
static char *dmd_expr_tok_strdup(struct dmd_expr_parser *p)
{
	char *s = malloc(p->tok.len + 1);

	if (!s) {
		dmd_expr_tok_error(p, "out of memory");
		return NULL;
	}
	memcpy(s, p->src->text + p->tok.start, p->tok.len);
	s[p->tok.len] = '\0';
	return s;
}

/* Does the current token have type "type"? */
static int dmd_expr_is(struct dmd_expr_parser *p, enum dmd_tok_type type)
{
	return p->tok.type == type;
}

/* Consume a token of type "type", or report "expected <what> in ...". */
static int dmd_expr_expect(struct dmd_expr_parser *p, enum dmd_tok_type type,
	const char *what)
{
	if (!dmd_expr_is(p, type)) {
		dmd_expr_tok_error(p, "expected %s in %s", what, p->src->what);
		return -1;
	}
	return dmd_expr_next(p);
}

/* Report that the current token cannot come here. */
static void dmd_expr_unexpected(struct dmd_expr_parser *p)
{
	char buf[48];

	if (dmd_expr_is(p, DMD_TOK_END))
		dmd_expr_tok_error(p, "unexpected end of %s", p->src->what);
	else
		dmd_expr_tok_error(p, "unexpected '%s' in %s",
			dmd_expr_tok_text(p, buf, sizeof(buf)), p->src->what);
}

/* Enter one level of nesting. */
static int dmd_expr_enter(struct dmd_expr_parser *p)
{
	if (++p->depth > DMD_EXPR_MAX_NEST) {
		dmd_expr_tok_error(p, "expression nested too deeply in %s "
			"(at most %d levels)", p->src->what,
			DMD_EXPR_MAX_NEST);
		return -1;
	}
	return 0;
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

/* Report "'<e>' in <what> <msg>" at the operator of "e". */
static void dmd_expr_node_error(struct dmd_expr_parser *p,
	const struct dmd_expr *e, const char *msg)
{
	char *s = dmd_expr_to_msg(e);

	dmd_expr_error(p, e->loc, "'%s' in %s %s", s ? s : "?",
		p->src->what, msg);
	free(s);
}

/* Check that constant "e" with value "val" is within +-DMD_MAX_INT. */
static int dmd_expr_check_range(struct dmd_expr_parser *p,
	const struct dmd_expr *e, long val)
{
	if (val >= -DMD_MAX_INT && val <= DMD_MAX_INT)
		return 1;
	dmd_expr_node_error(p, e, "is out of range (integers in indices and "
		"dist entries are at most 2^62 in absolute value)");
	return -1;
}

/* Check that "e" (from dmd_expr_parse_aff) is (quasi-)affine: products
 * have a constant side, divisors are positive constants, constants and
 * constant parts lie within +-DMD_MAX_INT.  Returns 1 if "e" is constant
 * (its value in *val), 0 if not, -1 after an error. */
static int dmd_expr_check_aff(struct dmd_expr_parser *p,
	const struct dmd_expr *e, long *val)
{
	long a = 0, b = 0;
	int ra, rb;

	switch (e->type) {
	case DMD_EXPR_INT:
		*val = e->ival;
		return dmd_expr_check_range(p, e, *val);
	case DMD_EXPR_VAR:
		return 0;
	case DMD_EXPR_NEG:
		ra = dmd_expr_check_aff(p, e->args[0], &a);
		if (ra == 1 && a == LONG_MIN) {
			dmd_expr_node_error(p, e, "overflows");
			return -1;
		}
		*val = -a;
		return ra;
	case DMD_EXPR_ADD:
	case DMD_EXPR_SUB:
	case DMD_EXPR_MUL:
	case DMD_EXPR_FDIV:
	case DMD_EXPR_MOD:
		break;
	default:
		dmd_expr_node_error(p, e, "is not affine");
		return -1;
	}
	ra = dmd_expr_check_aff(p, e->args[0], &a);
	if (ra < 0)
		return -1;
	rb = dmd_expr_check_aff(p, e->args[1], &b);
	if (rb < 0)
		return -1;
	if (e->type == DMD_EXPR_MUL && ra == 0 && rb == 0) {
		dmd_expr_node_error(p, e, "is not affine");
		return -1;
	}
	if ((e->type == DMD_EXPR_FDIV || e->type == DMD_EXPR_MOD) &&
	    (rb == 0 || b <= 0)) {
		dmd_expr_node_error(p, e,
			"does not divide by a positive integer constant");
		return -1;
	}
	if (ra == 0 || rb == 0)
		return 0;
	if (dmd_expr_fold(e->type, a, b, val) < 0) {
		dmd_expr_node_error(p, e, "overflows");
		return -1;
	}
	return dmd_expr_check_range(p, e, *val);
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

/* Check one access of the statement being parsed by "p": a declared
 * tensor, one index per dimension, affine indices.  The extents of the
 * dimensions an index variable indexes need not agree: it ranges over
 * the values where every access is in bounds (spec 1.3; the iteration
 * domain of ir/dmd_poly.c). */
static int dmd_expr_check_access(struct dmd_expr_parser *p,
	const struct dmd_expr *e)
{
	const struct dmd_tensor *tensor;
	int t, d;
	long val;

	t = dmd_job_find_tensor(p->job, e->name);
	if (t < 0) {
		dmd_expr_error(p, e->loc, "tensor '%s' is not declared",
			e->name);
		return -1;
	}
	tensor = &p->job->tensors[t];
	if (e->n_arg != tensor->ndim) {
		dmd_expr_error(p, e->loc, "tensor '%s' has %d dimension%s "
			"but is accessed with %d ind%s", e->name, tensor->ndim,
			tensor->ndim == 1 ? "" : "s", e->n_arg,
			e->n_arg == 1 ? "ex" : "ices");
		return -1;
	}
	for (d = 0; d < e->n_arg; ++d)
		if (dmd_expr_check_aff(p, e->args[d], &val) < 0)
			return -1;
	return 0;
}

/* Check every access in "e", left to right. */
static int dmd_expr_check_rhs(struct dmd_expr_parser *p,
	const struct dmd_expr *e)
{
	int i;

	if (e->type == DMD_EXPR_ACCESS)
		return dmd_expr_check_access(p, e);
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_expr_check_rhs(p, e->args[i]) < 0)
			return -1;
	return 0;
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

/* ---------------------------------------------------------------------
 * Schedule commands
 */

/* The commands, their arities and the kinds of their arguments ('i' an
 * identifier, 'n' an integer, 'l' a list, '*' any number of identifiers
 * (reorder)). */
static const struct {
	const char *name;
	enum dmd_cmd_type type;
	const char *kinds;
	const char *arity;		/* for messages */
} dmd_expr_cmds[] = {
	{ "divide", DMD_CMD_DIVIDE, "iiini", "4 or 5 arguments" },
	{ "split", DMD_CMD_SPLIT, "iiin", "4 arguments" },
	{ "reorder", DMD_CMD_REORDER, "*", "at least 1 argument" },
	{ "distribute", DMD_CMD_DISTRIBUTE, "llll", "4 arguments" },
	{ "rotate", DMD_CMD_ROTATE, "ili", "3 arguments" },
	{ "communicate", DMD_CMD_COMMUNICATE, "li", "2 arguments" },
	{ "tensorize", DMD_CMD_TENSORIZE, "li", "2 arguments" },
};

/* Count one more name in the schedule command being parsed. */
static int dmd_expr_count_name(struct dmd_expr_parser *p)
{
	if (++p->n_names <= DMD_MAX_CMD_NAMES)
		return 0;
	dmd_expr_tok_error(p, "more than %d names in one schedule command",
		DMD_MAX_CMD_NAMES);
	return -1;
}

/* Append a zeroed argument to "cmd"; NULL after an error. */
static struct dmd_sched_arg *dmd_expr_cmd_add_arg(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *args;

	if (cmd->n_args >= DMD_MAX_CMD_NAMES) {
		dmd_expr_tok_error(p, "more than %d arguments in one schedule "
			"command", DMD_MAX_CMD_NAMES);
		return NULL;
	}
	if (dmd_expr_full(cmd->n_args)) {
		args = realloc(cmd->args, 2 * (cmd->n_args + 1) *
			sizeof(*args));
		if (!args) {
			dmd_expr_tok_error(p, "out of memory");
			return NULL;
		}
		cmd->args = args;
	}
	args = cmd->args;
	memset(&args[cmd->n_args], 0, sizeof(*args));
	return &args[cmd->n_args++];
}

/* Append the current token (an identifier) to list "arg". */
static int dmd_expr_list_add(struct dmd_expr_parser *p,
	struct dmd_sched_arg *arg)
{
	char **ids;
	struct dmd_loc *locs;

	if (dmd_expr_count_name(p) < 0)
		return -1;
	if (dmd_expr_full(arg->n)) {
		ids = realloc(arg->ids, 2 * (arg->n + 1) * sizeof(*ids));
		if (!ids)
			goto nomem;
		arg->ids = ids;
		locs = realloc(arg->locs, 2 * (arg->n + 1) * sizeof(*locs));
		if (!locs)
			goto nomem;
		arg->locs = locs;
	}
	arg->ids[arg->n] = dmd_expr_tok_strdup(p);
	if (!arg->ids[arg->n])
		return -1;
	arg->locs[arg->n++] = p->tok.loc;
	return dmd_expr_next(p);
nomem:
	dmd_expr_tok_error(p, "out of memory");
	return -1;
}

/* arg := NAME | ['-'] INTEGER | '[' [NAME (',' NAME)*] ']' */
static int dmd_expr_parse_cmd_arg(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *arg;
	char buf[48];
	int neg = 0;

	arg = dmd_expr_cmd_add_arg(p, cmd);
	if (!arg)
		return -1;
	arg->loc = p->tok.loc;
	switch (p->tok.type) {
	case DMD_TOK_ID:
		if (dmd_expr_count_name(p) < 0)
			return -1;
		arg->kind = DMD_ARG_ID;
		arg->id = dmd_expr_tok_strdup(p);
		if (!arg->id)
			return -1;
		return dmd_expr_next(p);
	case DMD_TOK_MINUS:
		if (dmd_expr_next(p) < 0)
			return -1;
		if (!dmd_expr_is(p, DMD_TOK_INT)) {
			dmd_expr_tok_error(p, "expected an integer in %s",
				p->src->what);
			return -1;
		}
		neg = 1;
		/* fall through */
	case DMD_TOK_INT:
		if (p->tok.overflow) {
			dmd_expr_tok_error(p, "integer '%s' is too large in %s",
				dmd_expr_tok_text(p, buf, sizeof(buf)),
				p->src->what);
			return -1;
		}
		arg->kind = DMD_ARG_INT;
		arg->ival = neg ? -p->tok.ival : p->tok.ival;
		return dmd_expr_next(p);
	case DMD_TOK_LBRACK:
		arg->kind = DMD_ARG_LIST;
		if (dmd_expr_next(p) < 0)
			return -1;
		if (dmd_expr_is(p, DMD_TOK_RBRACK))
			return dmd_expr_next(p);
		for (;;) {
			if (!dmd_expr_is(p, DMD_TOK_ID)) {
				dmd_expr_tok_error(p, "expected a name in %s",
					p->src->what);
				return -1;
			}
			if (dmd_expr_list_add(p, arg) < 0)
				return -1;
			if (!dmd_expr_is(p, DMD_TOK_COMMA))
				break;
			if (dmd_expr_next(p) < 0)
				return -1;
		}
		return dmd_expr_expect(p, DMD_TOK_RBRACK, "']'");
	default:
		if (dmd_expr_is(p, DMD_TOK_END))
			dmd_expr_tok_error(p, "expected an argument in %s",
				p->src->what);
		else
			dmd_expr_tok_error(p, "expected an argument in %s, "
				"got '%s'", p->src->what,
				dmd_expr_tok_text(p, buf, sizeof(buf)));
		return -1;
	}
}

/* Turn identifier argument "arg" into a list of one. */
static int dmd_expr_arg_to_list(struct dmd_expr_parser *p,
	struct dmd_sched_arg *arg)
{
	arg->ids = malloc(sizeof(*arg->ids));
	arg->locs = malloc(sizeof(*arg->locs));
	if (!arg->ids || !arg->locs) {
		dmd_expr_error(p, arg->loc, "out of memory");
		return -1;
	}
	arg->kind = DMD_ARG_LIST;
	arg->n = 1;
	arg->ids[0] = arg->id;
	arg->locs[0] = arg->loc;
	arg->id = NULL;
	return 0;
}

/* reorder([a, b, c]): replace the single list argument of "cmd" by its
 * identifiers. */
static int dmd_expr_flatten(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *list = &cmd->args[0];
	struct dmd_sched_arg *args;
	int i, n = list->n;

	args = calloc(list->n > 0 ? list->n : 1, sizeof(*args));
	if (!args) {
		dmd_expr_error(p, cmd->loc, "out of memory");
		return -1;
	}
	for (i = 0; i < list->n; ++i) {
		args[i].kind = DMD_ARG_ID;
		args[i].id = list->ids[i];
		args[i].loc = list->locs[i];
	}
	free(list->ids);
	free(list->locs);
	free(cmd->args);
	cmd->args = args;
	cmd->n_args = n;
	return 0;
}

/* Check the number and kinds of the arguments of "cmd" against "kinds"
 * (see dmd_expr_cmds), turning lone identifiers into lists where lists
 * are expected. */
static int dmd_expr_check_kinds(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd, const char *name, const char *kinds,
	const char *arity)
{
	int i, n = strlen(kinds);
	int ok;

	if (kinds[0] == '*') {
		if (cmd->n_args == 1 && cmd->args[0].kind == DMD_ARG_LIST &&
		    dmd_expr_flatten(p, cmd) < 0)
			return -1;
		ok = cmd->n_args >= 1;
	} else if (cmd->type == DMD_CMD_DIVIDE)
		ok = cmd->n_args == 4 || cmd->n_args == 5;
	else
		ok = cmd->n_args == n;
	if (!ok) {
		dmd_expr_error(p, cmd->loc, "%s takes %s, got %d", name,
			arity, cmd->n_args);
		return -1;
	}
	for (i = 0; i < cmd->n_args; ++i) {
		struct dmd_sched_arg *arg = &cmd->args[i];
		char kind = kinds[0] == '*' ? 'i' : kinds[i];

		if (kind == 'l' && arg->kind == DMD_ARG_ID &&
		    dmd_expr_arg_to_list(p, arg) < 0)
			return -1;
		if (kind == 'i' && arg->kind != DMD_ARG_ID)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"a name", i + 1, name);
		else if (kind == 'n' && arg->kind != DMD_ARG_INT)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"an integer", i + 1, name);
		else if (kind == 'l' && arg->kind != DMD_ARG_LIST)
			dmd_expr_error(p, arg->loc, "argument %d of %s must be "
				"a list of names", i + 1, name);
		else
			continue;
		return -1;
	}
	return 0;
}

/* Is "id" one of ids[0..n)? */
static int dmd_expr_listed(char *const *ids, int n, const char *id)
{
	int i;

	for (i = 0; i < n; ++i)
		if (!strcmp(ids[i], id))
			return 1;
	return 0;
}

/* Check that no name appears twice in lists args[0..n) of "cmd" (taken
 * together); otherwise report "<name>: <what> '<id>' appears twice" at the
 * second one. */
static int dmd_expr_check_twice(struct dmd_expr_parser *p,
	const struct dmd_sched_arg *args, int n, const char *name,
	const char *what)
{
	int a, b, i;

	for (a = 0; a < n; ++a)
		for (i = 0; i < args[a].n; ++i) {
			int twice = dmd_expr_listed(args[a].ids, i,
				args[a].ids[i]);

			for (b = 0; b < a && !twice; ++b)
				twice = dmd_expr_listed(args[b].ids, args[b].n,
					args[a].ids[i]);
			if (!twice)
				continue;
			dmd_expr_error(p, args[a].locs[i], "%s: %s '%s' "
				"appears twice", name, what, args[a].ids[i]);
			return -1;
		}
	return 0;
}

/* The checks of rotate(t, [v..], r) beyond the kinds of its arguments:
 * the new loop "r" is not "t", and "t" is not in the list. */
static int dmd_expr_check_rotate(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_sched_arg *args = cmd->args;
	int i;

	if (!strcmp(args[2].id, args[0].id)) {
		dmd_expr_error(p, args[2].loc, "rotate: the new loop needs a "
			"name other than '%s'", args[0].id);
		return -1;
	}
	for (i = 0; i < args[1].n; ++i) {
		if (strcmp(args[1].ids[i], args[0].id))
			continue;
		dmd_expr_error(p, args[1].locs[i], "rotate: loop '%s' cannot "
			"be rotated by itself", args[0].id);
		return -1;
	}
	return dmd_expr_check_twice(p, &args[1], 1, "rotate", "loop");
}

/* The checks of each command beyond the kinds of its arguments, those
 * that its arguments decide (those that need the loops are done by the
 * analysis). */
static int dmd_expr_check_cmd(struct dmd_expr_parser *p,
	struct dmd_sched_cmd *cmd, const char *name)
{
	struct dmd_sched_arg *args = cmd->args;
	int i;

	switch (cmd->type) {
	case DMD_CMD_DIVIDE:
	case DMD_CMD_SPLIT:
		if (args[3].ival < 1) {
			dmd_expr_error(p, args[3].loc, "the %s of %s must be "
				">= 1, got %ld", cmd->type == DMD_CMD_DIVIDE ?
				"number of parts" : "chunk size", name,
				args[3].ival);
			return -1;
		}
		if (args[3].ival > DMD_MAX_INT) {
			dmd_expr_error(p, args[3].loc, "the %s of %s must be "
				"at most 2^62, got %ld",
				cmd->type == DMD_CMD_DIVIDE ?
				"number of parts" : "chunk size", name,
				args[3].ival);
			return -1;
		}
		if (!strcmp(args[1].id, args[2].id)) {
			dmd_expr_error(p, args[2].loc, "%s: the two new loops "
				"need different names", name);
			return -1;
		}
		if (cmd->n_args == 5) {
			if (strcmp(args[4].id, "balanced") != 0) {
				dmd_expr_error(p, args[4].loc, "argument 5 of "
					"divide must be 'balanced', got '%s'",
					args[4].id);
				return -1;
			}
			cmd->balanced = 1;
		}
		return 0;
	case DMD_CMD_DISTRIBUTE:
		if (args[0].n == 0) {
			dmd_expr_error(p, args[0].loc,
				"distribute needs at least one loop");
			return -1;
		}
		for (i = 1; i < 4; ++i) {
			if (args[i].n == args[0].n)
				continue;
			dmd_expr_error(p, args[i].loc, "argument %d of "
				"distribute has %d name%s but argument 1 has "
				"%d", i + 1, args[i].n,
				args[i].n == 1 ? "" : "s", args[0].n);
			return -1;
		}
		if (dmd_expr_check_twice(p, args, 3, name, "loop") < 0)
			return -1;
		for (i = 0; i < args[3].n; ++i) {
			if (dmd_job_find_axis(p->job, args[3].ids[i]) >= 0)
				continue;
			dmd_expr_error(p, args[3].locs[i], "unknown mesh axis "
				"'%s' in distribute", args[3].ids[i]);
			return -1;
		}
		return dmd_expr_check_twice(p, &args[3], 1, name, "mesh axis");
	case DMD_CMD_ROTATE:
		return dmd_expr_check_rotate(p, cmd);
	case DMD_CMD_COMMUNICATE:
		if (args[0].n == 0) {
			dmd_expr_error(p, args[0].loc,
				"communicate needs at least one tensor");
			return -1;
		}
		for (i = 0; i < args[0].n; ++i) {
			if (dmd_job_find_tensor(p->job, args[0].ids[i]) >= 0)
				continue;
			dmd_expr_error(p, args[0].locs[i], "tensor '%s' is not "
				"declared", args[0].ids[i]);
			return -1;
		}
		return dmd_expr_check_twice(p, args, 1, name, "tensor");
	case DMD_CMD_TENSORIZE:
		if (strcmp(args[1].id, "gemm") != 0) {
			dmd_expr_error(p, args[1].loc, "unknown tensorize kind "
				"'%s' (only gemm is known)", args[1].id);
			return -1;
		}
		if (args[0].n != 3) {
			dmd_expr_error(p, args[0].loc, "tensorize(..., gemm) "
				"takes 3 loops, got %d", args[0].n);
			return -1;
		}
		return dmd_expr_check_twice(p, args, 1, name, "loop");
	default:
		return 0;
	}
}

/* Parse and check one schedule command into "cmd" (zeroed by the caller,
 * which owns what is stored in it, also on error).  Returns 0, or -1
 * after an error. */
int dmd_expr_parse_cmd(struct dmd_job *job, const struct dmd_src *src,
	struct dmd_sched_cmd *cmd)
{
	struct dmd_expr_parser p;
	size_t i, n = sizeof(dmd_expr_cmds) / sizeof(dmd_expr_cmds[0]);
	char buf[48];

	if (dmd_expr_start(&p, job, src) < 0)
		return -1;
	cmd->loc = p.tok.loc;
	if (!dmd_expr_is(&p, DMD_TOK_ID)) {
		if (dmd_expr_is(&p, DMD_TOK_END))
			dmd_expr_tok_error(&p, "expected a command in %s",
				src->what);
		else
			dmd_expr_tok_error(&p, "expected a command in %s, "
				"got '%s'", src->what,
				dmd_expr_tok_text(&p, buf, sizeof(buf)));
		return -1;
	}
	for (i = 0; i < n; ++i)
		if (p.tok.len == strlen(dmd_expr_cmds[i].name) &&
		    strncmp(src->text + p.tok.start, dmd_expr_cmds[i].name,
			    p.tok.len) == 0)
			break;
	if (i >= n) {
		dmd_expr_tok_error(&p, "unknown schedule command '%s'",
			dmd_expr_tok_text(&p, buf, sizeof(buf)));
		return -1;
	}
	cmd->type = dmd_expr_cmds[i].type;
	if (dmd_expr_next(&p) < 0 ||
	    dmd_expr_expect(&p, DMD_TOK_LPAR, "'('") < 0)
		return -1;
	if (!dmd_expr_is(&p, DMD_TOK_RPAR)) {
		for (;;) {
			if (dmd_expr_parse_cmd_arg(&p, cmd) < 0)
				return -1;
			if (!dmd_expr_is(&p, DMD_TOK_COMMA))
				break;
			if (dmd_expr_next(&p) < 0)
				return -1;
		}
	}
	if (dmd_expr_expect(&p, DMD_TOK_RPAR, "')'") < 0)
		return -1;
	if (!dmd_expr_is(&p, DMD_TOK_END)) {
		dmd_expr_unexpected(&p);
		return -1;
	}
	if (dmd_expr_check_kinds(&p, cmd, dmd_expr_cmds[i].name,
			dmd_expr_cmds[i].kinds, dmd_expr_cmds[i].arity) < 0)
		return -1;
	return dmd_expr_check_cmd(&p, cmd, dmd_expr_cmds[i].name);
}
