/* dmd_emit_name.c: names and text in the emitted C.
 *
 * A user name N only ever appears as part of KIND_N, with KIND one of the
 * compiler's underscore-free words: tensor A's buffer is buf_A, the loop
 * kor is i_kor, the coordinate along axis x is c_x.  Two such names are
 * equal only if kind and name are, and none can be a keyword ("int"
 * becomes i_int), a libc macro ("EOF" becomes buf_EOF), a runtime symbol
 * (dmd_*, MPI_*) or an isl keyword.  Strings (file names, labels) are
 * escaped byte by byte; comments never contain a user's "*" "/".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/dmd_emit_private.h"

/* printf to "p" (no length limit). */
__isl_give isl_printer *dmd_emit_printf(__isl_take isl_printer *p,
	const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return isl_printer_free(p);
	s = malloc(n + 1);
	if (!s)
		return isl_printer_free(p);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	p = isl_printer_print_str(p, s);
	free(s);
	return p;
}

/* Print "kind" "_" "user". */
__isl_give isl_printer *dmd_emit_name(__isl_take isl_printer *p,
	const char *kind, const char *user)
{
	p = isl_printer_print_str(p, kind);
	p = isl_printer_print_str(p, "_");
	return isl_printer_print_str(p, user);
}

/* Print the kind formatted from "fmt", "_", "user". */
__isl_give isl_printer *dmd_emit_namef(__isl_take isl_printer *p,
	const char *user, const char *fmt, ...)
{
	char kind[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kind, sizeof(kind), fmt, ap);
	va_end(ap);
	return dmd_emit_name(p, kind, user);
}

/* Print "s" as a C string literal: printable ASCII other than \ " ? as
 * is, everything else as a three-digit octal escape (which no following
 * character can extend). */
__isl_give isl_printer *dmd_emit_cstr(__isl_take isl_printer *p,
	const char *s)
{
	char buf[8];

	p = isl_printer_print_str(p, "\"");
	for (; s && *s; ++s) {
		unsigned char c = *s;

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"' &&
		    c != '?') {
			buf[0] = c;
			buf[1] = '\0';
		} else
			snprintf(buf, sizeof(buf), "\\%03o", c);
		p = isl_printer_print_str(p, buf);
	}
	return isl_printer_print_str(p, "\"");
}

/* Print "s" inside a comment: printable ASCII as is, except that a
 * comment's opening or closing ("/" "*" in either order) is broken by a
 * backslash ("*\/", "/\*"); other bytes (newlines included) as \xNN. */
__isl_give isl_printer *dmd_emit_ctext(__isl_take isl_printer *p,
	const char *s)
{
	char buf[8];
	unsigned char prev = 0;

	for (; s && *s; ++s) {
		unsigned char c = *s;

		if ((c == '/' && prev == '*') || (c == '*' && prev == '/'))
			snprintf(buf, sizeof(buf), "\\%c", c);
		else if (c >= 0x20 && c < 0x7f && c != '\\') {
			buf[0] = c;
			buf[1] = '\0';
		} else
			snprintf(buf, sizeof(buf), "\\x%02x", c);
		prev = c;
		p = isl_printer_print_str(p, buf);
	}
	return p;
}

/* Print "kind" (from "fmt") "_" "user": a name of the program (which
 * the typed program says is declared, specialize/dmd_spec_uses.c). */
__isl_give isl_printer *dmd_emit_use(struct dmd_emit_ctx *ctx,
	__isl_take isl_printer *p, const char *user, const char *fmt, ...)
{
	char kind[64];
	va_list ap;

	(void) ctx;
	va_start(ap, fmt);
	vsnprintf(kind, sizeof(kind), fmt, ap);
	va_end(ap);
	return dmd_emit_name(p, kind, user);
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
