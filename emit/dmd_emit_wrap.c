/* dmd_emit_wrap.c: the layout of the emitted C: a line of code of
 * DMD_EMIT_COLUMNS columns or more is broken into lines under that width,
 * continued 4 columns deeper than it starts.
 *
 * A line breaks after the ", " of an argument list or an initializer, or
 * the "; " of a block on one line, or before a binary operator; of the
 * places that keep the first part under the width, the least nested
 * one, a separator rather than an operator, the rightmost:
 *   dmd_ibcast(rt, q0, 0, root, buf_B, 2, (const int64_t[]){ ext0_B,
 *       ext1_B }, ...
 * becomes
 *   dmd_ibcast(rt, q0, 0, root, buf_B, 2, (const int64_t[]){ ext0_B, ext1_B },
 *       (const int64_t[]){ 0 - lo0_B, 0 - lo1_B }, (const int64_t[]){ 50, 26 });
 * A comment on a line of its own breaks at spaces, continued under its
 * text.  Only white space changes: string literals, code followed by a
 * comment and preprocessor lines are left as they are.  A layout, not a decision: the printers
 * decide what the code says before this runs.
 */
#include <stdlib.h>
#include <string.h>

#include "emit/dmd_emit_private.h"

/* A place where a line may break: the first part ends at "end" (not
 * included), the rest starts at "next". */
struct dmd_wrap_at {
	int end, next;
	int rank;		/* 2 * nesting + (0: separator, 1: operator) */
};

/* Is "s" at a binary operator or an assignment between spaces (" + ",
 * " && ", " = ", ...)? */
static int dmd_wrap_op(const char *s)
{
	static const char *const op[] = { " = ", " += ", " + ", " - ",
		" * ", " / ", " ? ", " : ", " && ", " || " };
	int i;

	for (i = 0; i < (int) (sizeof(op) / sizeof(op[0])); ++i)
		if (!strncmp(s, op[i], strlen(op[i])))
			return 1;
	return 0;
}

/* Account for character "i" of "s" (n characters) in the nesting
 * "*depth" and the open literal "*quote" (string literals break no
 * line); *code: it is code outside a literal and not a bracket.  Returns
 * the index of the last character taken (an escape takes two). */
static int dmd_wrap_scan(const char *s, int n, int i, int *depth,
	int *quote, int *code)
{
	*code = 0;
	if (*quote) {
		if (s[i] == '\\' && i + 1 < n)
			return i + 1;
		if (s[i] == *quote)
			*quote = 0;
	} else if (s[i] == '"' || s[i] == '\'')
		*quote = s[i];
	else if (s[i] == '(' || s[i] == '[' || s[i] == '{')
		++*depth;
	else if (s[i] == ')' || s[i] == ']' || s[i] == '}')
		--*depth;
	else
		*code = 1;
	return i;
}

/* The best place to break line "s" (n characters, starting at nesting
 * "depth") so that its first part is under "width" columns and longer
 * than "min" (see the top of this file); the least nested separator or
 * operator if none is that short.  Returns 0 if the line has no place to
 * break. */
static int dmd_wrap_find(const char *s, int n, int depth, int width,
	int min, struct dmd_wrap_at *best)
{
	struct dmd_wrap_at fit = { -1, -1, 1 << 30 }, any = fit, c;
	int quote = 0, code, i;

	for (i = 0; i < n; ++i) {
		i = dmd_wrap_scan(s, n, i, &depth, &quote, &code);
		c.end = -1;
		if (!code)
			continue;
		if ((s[i] == ',' || s[i] == ';') && s[i + 1] == ' ')
			c = (struct dmd_wrap_at) { i + 1, i + 2, 2 * depth };
		else if (s[i] == ' ' && dmd_wrap_op(s + i))
			c = (struct dmd_wrap_at) { i, i + 1, 2 * depth + 1 };
		if (c.end <= min || c.next >= n)
			continue;
		if (c.end < width && c.rank <= fit.rank)
			fit = c;
		if (c.rank < any.rank)
			any = c;
	}
	*best = fit.end >= 0 ? fit : any;
	return best->end >= 0;
}

/* The text being laid out: "len" characters in "s" (room for "size"). */
struct dmd_wrap_out {
	char *s;
	size_t len, size;
};

/* Append "n" characters of "s" to "out" (out->s NULL once out of
 * memory). */
static void dmd_wrap_put(struct dmd_wrap_out *out, const char *s, size_t n)
{
	char *t;

	if (!out->s)
		return;
	if (out->len + n + 1 > out->size) {
		out->size = 2 * (out->len + n + 1);
		t = realloc(out->s, out->size);
		if (!t) {
			free(out->s);
			out->s = NULL;
			return;
		}
		out->s = t;
	}
	memcpy(out->s + out->len, s, n);
	out->len += n;
	out->s[out->len] = '\0';
}

/* Append "n" spaces to "out". */
static void dmd_wrap_spaces(struct dmd_wrap_out *out, int n)
{
	while (n-- > 0)
		dmd_wrap_put(out, " ", 1);
}

/* Is line "s" (n characters) one to leave as it is: short, a
 * preprocessor line, or code with a comment? */
static int dmd_wrap_keep(const char *s, int n, int indent)
{
	int i;

	if (n < DMD_EMIT_COLUMNS || s[indent] == '#' || s[indent] == '*')
		return 1;
	for (i = indent + 1; i + 1 < n; ++i)
		if (s[i] == '/' && s[i + 1] == '*')
			return 1;
	return 0;
}

/* The last space of comment line "s" (n characters) at which its first
 * part is under "width" columns and longer than "min" (the first space
 * after "min" if none is), as a place to break, not the one before the
 * comment's end; 0 if there is none. */
static int dmd_wrap_find_space(const char *s, int n, int width, int min,
	struct dmd_wrap_at *best)
{
	int i;

	best->end = -1;
	for (i = min + 1; i + 3 < n; ++i) {
		if (s[i] != ' ' || s[i + 1] == ' ')
			continue;
		if (i < width || best->end < 0)
			*best = (struct dmd_wrap_at) { i, i + 1, 0 };
		if (i >= width)
			break;
	}
	return best->end >= 0;
}

/* The nesting after the first "n" characters of "s" (which start at
 * nesting "depth"; no literal is open at a place to break). */
static int dmd_wrap_depth(const char *s, int n, int depth)
{
	int quote = 0, code, i;

	for (i = 0; i < n; ++i)
		i = dmd_wrap_scan(s, n, i, &depth, &quote, &code);
	return depth;
}

/* Append line "s" (n characters, no '\n') to "out", broken as the top
 * of this file says (a comment at spaces, continued 3 columns deeper,
 * under its text), each part followed by '\n'. */
static void dmd_wrap_line(struct dmd_wrap_out *out, const char *s, int n)
{
	struct dmd_wrap_at at;
	int indent = 0, lead = 0, depth = 0, comment, keep, found;

	while (indent < n && s[indent] == ' ')
		++indent;
	comment = indent + 1 < n && s[indent] == '/' && s[indent + 1] == '*';
	keep = !comment && dmd_wrap_keep(s, n, indent);
	while (!keep && lead + n >= DMD_EMIT_COLUMNS) {
		if (comment)
			found = dmd_wrap_find_space(s, n,
				DMD_EMIT_COLUMNS - lead, lead ? 0 : indent + 2,
				&at);
		else
			found = dmd_wrap_find(s, n, depth,
				DMD_EMIT_COLUMNS - lead, lead ? 0 : indent,
				&at);
		if (!found)
			break;
		dmd_wrap_spaces(out, lead);
		dmd_wrap_put(out, s, at.end);
		dmd_wrap_put(out, "\n", 1);
		if (!comment)
			depth = dmd_wrap_depth(s, at.next, depth);
		s += at.next;
		n -= at.next;
		lead = indent + (comment ? 3 : 4);
	}
	dmd_wrap_spaces(out, lead);
	dmd_wrap_put(out, s, n);
	dmd_wrap_put(out, "\n", 1);
}

/* "text" (taken) with its long lines of code broken (see the top of this
 * file); NULL if out of memory. */
char *dmd_emit_wrap(char *text)
{
	struct dmd_wrap_out out;
	const char *s, *e;

	if (!text)
		return NULL;
	out.len = 0;
	out.size = strlen(text) + 1;
	out.s = malloc(out.size);
	if (out.s)
		out.s[0] = '\0';
	for (s = text; *s; s = *e ? e + 1 : e) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		dmd_wrap_line(&out, s, (int) (e - s));
		if (!*e && out.s)
			out.s[--out.len] = '\0';
	}
	free(text);
	return out.s;
}
