/* dmd_expr_lex.c: the tokenizer of the small languages inside a job
 * file (dist entries, the statement, schedule commands; see
 * ir/dmd_expr.c), and what it shares with the reader: characters,
 * identifiers.  Every token carries the location in the job file of its
 * first byte (struct dmd_src maps bytes to locations).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmd_int.h"
#include "dmd_expr_private.h"

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
int dmd_expr_full(int n)
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

/* Report an error at "loc" about the source being parsed. */
void dmd_expr_error(struct dmd_expr_parser *p, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(p->job, loc, fmt, ap);
	va_end(ap);
}

/* Copy the text of the current token (at most "size" - 1 bytes, "..."
 * if cut) to "buf", for messages.  The end reads "end". */
const char *dmd_expr_tok_text(struct dmd_expr_parser *p, char *buf,
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
int dmd_expr_next(struct dmd_expr_parser *p)
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
int dmd_expr_start(struct dmd_expr_parser *p, struct dmd_job *job,
	const struct dmd_src *src)
{
	memset(p, 0, sizeof(*p));
	p->job = job;
	p->src = src;
	return dmd_expr_next(p);
}

/* A copy of the text of the current token (owned by the caller). */
char *dmd_expr_tok_strdup(struct dmd_expr_parser *p)
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
int dmd_expr_is(struct dmd_expr_parser *p, enum dmd_tok_type type)
{
	return p->tok.type == type;
}

/* Consume a token of type "type", or report "expected <what> in ...". */
int dmd_expr_expect(struct dmd_expr_parser *p, enum dmd_tok_type type,
	const char *what)
{
	if (!dmd_expr_is(p, type)) {
		dmd_expr_tok_error(p, "expected %s in %s", what, p->src->what);
		return -1;
	}
	return dmd_expr_next(p);
}

/* Report that the current token cannot come here. */
void dmd_expr_unexpected(struct dmd_expr_parser *p)
{
	char buf[48];

	if (dmd_expr_is(p, DMD_TOK_END))
		dmd_expr_tok_error(p, "unexpected end of %s", p->src->what);
	else
		dmd_expr_tok_error(p, "unexpected '%s' in %s",
			dmd_expr_tok_text(p, buf, sizeof(buf)), p->src->what);
}

/* Enter one level of nesting. */
int dmd_expr_enter(struct dmd_expr_parser *p)
{
	if (++p->depth > DMD_EXPR_MAX_NEST) {
		dmd_expr_tok_error(p, "expression nested too deeply in %s "
			"(at most %d levels)", p->src->what,
			DMD_EXPR_MAX_NEST);
		return -1;
	}
	return 0;
}
