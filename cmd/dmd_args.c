/* dmd_args.c: the options of a command, with GNU getopt_long (see
 * dmd_args.h).
 *
 * getopt_long runs in its "return in order" mode (optstring "-:..."):
 * positional arguments come back one by one as option 1, so that
 * nothing is permuted and the arguments after "--" stay where they are
 * ("run DIR -- MPIEXEC_ARGS"); opterr is 0 and every message is our own,
 * naming the argument as the user wrote it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/dmd_args.h"
#include "ir/dmd_int.h"

/* What stands in for a negative number given as a positional argument
 * (see dmd_args_copy): anything getopt does not take for an option. */
static char dmd_args_number[] = "0";

/* "s" for a message (see the header). */
char *dmd_args_show(const char *s)
{
	size_t i, n = strlen(s);
	char *t, *p;

	if (n > 200)
		n = 200;
	t = malloc(4 * n + 4);
	if (!t)
		return NULL;
	p = t;
	for (i = 0; i < n; ++i) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			p += sprintf(p, "\\%03o", c);
		else
			*p++ = c;
	}
	strcpy(p, s[i] ? "..." : "");
	return t;
}

/* Report a problem with the arguments (see the header). */
int dmd_args_error(struct dmd_args *a, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "distmpmd: %s: ", a->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s", a->usage);
	return 2;
}

/* Report "fmt" with the single argument "arg" shown (dmd_args_show);
 * return -1. */
static int dmd_args_fail(struct dmd_args *a, const char *fmt,
	const char *arg)
{
	char *shown = dmd_args_show(arg);

	dmd_args_error(a, fmt, shown ? shown : "?");
	free(shown);
	return -1;
}

/* The optimal string alignment distance between "s" and "t" (edits:
 * insert, delete, replace a character, swap two adjacent ones), or a
 * number larger than "limit" if it exceeds it. */
static int dmd_args_distance(const char *s, const char *t, int limit)
{
	int n = strlen(s), m = strlen(t), i, j, d;
	int *row[3];
	int *buf;

	if (n > 64 || m > 64 || abs(n - m) > limit)
		return limit + 1;
	buf = malloc(3 * (m + 1) * sizeof(int));
	if (!buf)
		return limit + 1;
	row[0] = buf;			/* i - 2 */
	row[1] = buf + (m + 1);		/* i - 1 */
	row[2] = buf + 2 * (m + 1);	/* i */
	for (j = 0; j <= m; ++j)
		row[1][j] = j;
	for (i = 1; i <= n; ++i) {
		int *tmp;

		row[2][0] = i;
		for (j = 1; j <= m; ++j) {
			int cost = s[i - 1] != t[j - 1];

			d = row[1][j - 1] + cost;
			if (row[1][j] + 1 < d)
				d = row[1][j] + 1;
			if (row[2][j - 1] + 1 < d)
				d = row[2][j - 1] + 1;
			if (i > 1 && j > 1 && s[i - 1] == t[j - 2] &&
			    s[i - 2] == t[j - 1] && row[0][j - 2] + 1 < d)
				d = row[0][j - 2] + 1;
			row[2][j] = d;
		}
		tmp = row[0];
		row[0] = row[1];
		row[1] = row[2];
		row[2] = tmp;
	}
	d = row[1][m];
	free(buf);
	return d;
}

/* The word "s" most resembles (see the header): the only word that
 * starts with "s", else the only nearest within 1 edit (words of up to
 * four letters) or 2 edits. */
const char *dmd_args_suggest(const char *s, const char *const *words,
	int n)
{
	const char *best = NULL;
	int i, best_d = 3, ties = 0, starts = 0;
	size_t len = strlen(s);

	for (i = 0; len > 0 && i < n; ++i)
		if (!strncmp(words[i], s, len)) {
			best = words[i];
			++starts;
		}
	if (starts == 1)
		return best;
	best = NULL;
	for (i = 0; i < n; ++i) {
		int limit = strlen(words[i]) <= 4 ? 1 : 2;
		int d = dmd_args_distance(s, words[i], limit);

		if (d > limit || d > best_d)
			continue;
		if (d == best_d) {
			++ties;
			continue;
		}
		best = words[i];
		best_d = d;
		ties = 0;
	}
	return ties ? NULL : best;
}

/* The long option whose value is "val", or NULL. */
static const struct option *dmd_args_by_val(const struct dmd_args *a,
	int val)
{
	const struct option *o;

	for (o = a->longopts; o && o->name; ++o)
		if (o->val == val)
			return o;
	return NULL;
}

/* Report the long option "el" ("--NAME[=VALUE]") that getopt refused:
 * "val" is the option it matched (0: none).  Returns -1. */
static int dmd_args_bad_long(struct dmd_args *a, const char *el, int val)
{
	const struct option *o;
	const char *names[64];
	const char *eq = strchr(el, '='), *hint;
	size_t len = eq ? (size_t) (eq - el - 2) : strlen(el + 2);
	char *name, *shown, *list = NULL;
	int n = 0, n_prefix = 0;

	o = val ? dmd_args_by_val(a, val) : NULL;
	if (o && o->has_arg == no_argument)
		return dmd_args_fail(a, "option '--%s' takes no argument",
			o->name);
	name = strndup(el + 2, len);
	shown = name ? dmd_args_show(name) : NULL;
	if (!shown) {
		free(name);
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	for (o = a->longopts; o && o->name && n < 64; ++o) {
		names[n++] = o->name;
		if (len > 0 && !strncmp(o->name, name, len)) {
			char *more;

			++n_prefix;
			if (asprintf(&more, "%s%s'--%s'", list ? list : "",
					list ? ", " : "", o->name) < 0)
				more = NULL;
			free(list);
			list = more;
		}
	}
	if (n_prefix > 1 && list) {
		dmd_args_error(a, "option '--%s' is ambiguous: %s", shown,
			list);
	} else {
		hint = dmd_args_suggest(name, names, n);
		if (hint)
			dmd_args_error(a, "unknown option '--%s'; did you mean "
				"'--%s'?", shown, hint);
		else
			dmd_args_error(a, "unknown option '--%s'", shown);
	}
	free(list);
	free(shown);
	free(name);
	return -1;
}

/* Is "s" a negative integer ("-" and digits)? */
static int dmd_args_is_negative(const char *s)
{
	long v;

	return s[0] == '-' && s[1] >= '0' && s[1] <= '9' &&
		dmd_int_parse(s, DMD_INT_NUL, LONG_MIN, 0, &v) !=
		DMD_INT_SYNTAX;
}

/* Set up the parse: the optstring, and what getopt reads.  For a
 * command with numeric positional arguments, a copy of argv in which
 * every negative integer before "--" is replaced by a stand-in (the
 * caller gets the original back: the order of the arguments is kept). */
static int dmd_args_start(struct dmd_args *a)
{
	int i;

	if (asprintf(&a->optstring, "-:%s", a->shortopts ? a->shortopts :
			"") < 0) {
		a->optstring = NULL;
		return -1;
	}
	a->v = a->argv;
	if (a->negative_positionals) {
		a->v = malloc((a->argc + 1) * sizeof(*a->v));
		if (!a->v)
			return -1;
		for (i = 0; i <= a->argc; ++i)
			a->v[i] = a->argv[i];
		for (i = 1; i < a->argc && strcmp(a->argv[i], "--"); ++i)
			if (dmd_args_is_negative(a->argv[i]))
				a->v[i] = dmd_args_number;
	}
	optind = 0;
	opterr = 0;
	a->started = 1;
	return 0;
}

/* The next option or argument (see the header). */
int dmd_args_next(struct dmd_args *a)
{
	const char *el;
	int c, prev;

	if (a->done)
		return 0;
	if (!a->started && dmd_args_start(a) < 0) {
		fprintf(stderr, "distmpmd: out of memory\n");
		return -1;
	}
	prev = optind > 0 ? optind : 1;
	c = getopt_long(a->argc, a->v, a->optstring, a->longopts, NULL);
	if (c == -1) {
		a->done = 1;
		a->rest = optind;
		return 0;
	}
	/* the argument getopt looked at, as given */
	el = prev < a->argc ? a->argv[prev] : "";
	if (c == 1 || (c != '?' && c != ':')) {
		a->value = optarg && optind > 0 && optarg == a->v[optind - 1] ?
			a->argv[optind - 1] : optarg;
		return c;
	}
	if (!strncmp(el, "--", 2)) {
		if (c == ':') {
			const struct option *o = dmd_args_by_val(a, optopt);

			return dmd_args_fail(a, "option '--%s' needs an "
				"argument", o ? o->name : el + 2);
		}
		return dmd_args_bad_long(a, el, optopt);
	}
	{
		char opt[3] = { '-', (char) optopt, '\0' };

		if (c == ':')
			return dmd_args_fail(a, "option '%s' needs an "
				"argument", opt);
		return dmd_args_fail(a, "unknown option '%s'", opt);
	}
}

/* Free what the parse holds (see the header). */
void dmd_args_clear(struct dmd_args *a)
{
	if (a->v != a->argv)
		free(a->v);
	free(a->optstring);
	a->v = NULL;
	a->optstring = NULL;
}
