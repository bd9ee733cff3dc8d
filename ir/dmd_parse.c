/* dmd_parse.c: read a job file (spec section 1) into a struct dmd_job.
 *
 * The file must be a regular file of at most DMD_MAX_JOB_BYTES bytes.  Its
 * event stream is first walked with libyaml's parser to refuse nesting,
 * anchors and aliases beyond the limits of ir/dmd_job.h before anything
 * grows with them (dmd_parse_scan).  It is then
 * loaded with libyaml's document API and walked by hand,
 * one function per kind of mapping (top level, mesh, tensors, one tensor,
 * schedule), validating every key and value on the way.  Strings that hold
 * a small language (dist entries, compute, schedule commands) go to
 * ir/dmd_expr.c together with the file location of each of their bytes,
 * recovered from the raw text of the file (libyaml only gives the start
 * and end of each scalar).
 *
 * The first problem found is reported (ir/dmd_diag.c) and ends the read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "dmd_int.h"
#include "dmd_job.h"
#include "dmd_parse_private.h"

/* Every DMD_PARSE_CP-th character of the text has its byte offset in
 * the table "cp" of struct dmd_parse. */
#define DMD_PARSE_CP	64

/* The state of one read. */
struct dmd_parse {
	struct dmd_job *job;		/* not owned */
	const char *text;		/* not owned: the bytes of the file */
	size_t len;
	size_t *line;			/* owned: byte offset of each line */
	size_t n_line;
	size_t *cp;			/* owned: byte offset of character
					 * k * DMD_PARSE_CP (libyaml's
					 * mark.index) */
	size_t n_cp;
	int utf8;			/* the marks of libyaml map to "text" */
	yaml_document_t doc;
	int have_doc;			/* "doc" needs yaml_document_delete */
	int n_steps;			/* steps read so far */
	int n_cmds;			/* schedule commands read so far */
	long runs;			/* how often the steps being read run
					 * (repeat counts multiplied) */
};

/* A key expected in a mapping, and what the mapping holds for it. */
struct dmd_parse_key {
	const char *name;
	yaml_node_t *key;		/* not owned; NULL if absent */
	yaml_node_t *value;		/* not owned */
};

/* The location of (the start of) "node". */
static struct dmd_loc dmd_parse_loc(const yaml_node_t *node)
{
	struct dmd_loc loc = { (int) node->start_mark.line + 1,
			       (int) node->start_mark.column + 1 };
	return loc;
}

/* Report an error at "loc". */
static void dmd_parse_error(struct dmd_parse *parse, struct dmd_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void dmd_parse_error(struct dmd_parse *parse, struct dmd_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dmd_job_verror(parse->job, loc, fmt, ap);
	va_end(ap);
}

/* Copy text[0..len) to buf of "size" (at least 4) bytes for a message:
 * characters that would break or hide the line (controls, line
 * separators, bidirectional overrides: see dmd_expr_char) and bytes that
 * are not UTF-8 become '?', and long text is cut with "..." between two
 * characters. */
static const char *dmd_parse_show(const char *text, size_t len, char *buf,
	size_t size)
{
	size_t i, k, n = 0;
	int printable;

	for (i = 0; i < len; i += k) {
		size_t out;

		k = dmd_expr_char(text + i, len - i, &printable);
		out = printable ? k : 1;
		if (n + out + (i + k < len ? 3 : 0) + 1 > size) {
			strcpy(buf + n, "...");
			return buf;
		}
		if (printable)
			memcpy(buf + n, text + i, k);
		else
			buf[n] = '?';
		n += out;
	}
	buf[n] = '\0';
	return buf;
}

#define DMD_PARSE_SHOW_SIZE 80

/* The value of scalar "node", shown for a message in "buf". */
#define dmd_parse_show_node(node, buf) \
	dmd_parse_show((const char *) (node)->data.scalar.value, \
		(node)->data.scalar.length, buf, sizeof(buf))

/* The node with index "i" of the document. */
static yaml_node_t *dmd_parse_node(struct dmd_parse *parse, int i)
{
	return yaml_document_get_node(&parse->doc, i);
}

/* The value of scalar "node" as a C string. */
static const char *dmd_parse_str(const yaml_node_t *node)
{
	return (const char *) node->data.scalar.value;
}

/* Is "node" a YAML null (an empty or "~"/"null" plain scalar)? */
static int dmd_parse_is_null(const yaml_node_t *node)
{
	const char *s;

	if (!node || node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = dmd_parse_str(node);
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* Is scalar "node" equal to "s" (and free of NULs)? */
static int dmd_parse_is(const yaml_node_t *node, const char *s)
{
	return node->data.scalar.length == strlen(s) &&
		strcmp(dmd_parse_str(node), s) == 0;
}

/* Check that "node" has type "type"; otherwise report
 * "expected a <type> <where...>" at "node". */
static int dmd_parse_expect(struct dmd_parse *parse, const yaml_node_t *node,
	yaml_node_type_t type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int dmd_parse_expect(struct dmd_parse *parse, const yaml_node_t *node,
	yaml_node_type_t type, const char *fmt, ...)
{
	va_list ap;
	char *where = NULL;
	const char *kind;

	if (node->type == type)
		return 0;
	kind = type == YAML_MAPPING_NODE ? "a mapping" :
		type == YAML_SEQUENCE_NODE ? "a sequence" : "a scalar";
	va_start(ap, fmt);
	if (vasprintf(&where, fmt, ap) < 0)
		where = NULL;
	va_end(ap);
	dmd_parse_error(parse, dmd_parse_loc(node), "expected %s %s", kind,
		where ? where : "");
	free(where);
	return -1;
}

/* A malloc'ed copy of the value of scalar "node", or NULL after an
 * error. */
static char *dmd_parse_strdup(struct dmd_parse *parse, const yaml_node_t *node)
{
	char *s = strdup(dmd_parse_str(node));

	if (!s)
		dmd_parse_error(parse, dmd_parse_loc(node), "out of memory");
	return s;
}

/* Check that scalar "node" is a name: an identifier of at most
 * DMD_MAX_NAME characters.  "what" ("tensor name") starts the message
 * otherwise. */
static int dmd_parse_name(struct dmd_parse *parse, const yaml_node_t *node,
	const char *what)
{
	char buf[DMD_PARSE_SHOW_SIZE];

	if (!dmd_expr_is_identifier(dmd_parse_str(node),
			node->data.scalar.length)) {
		dmd_parse_error(parse, dmd_parse_loc(node), "%s '%s' is not an "
			"identifier", what, dmd_parse_show_node(node, buf));
		return -1;
	}
	if (node->data.scalar.length > DMD_MAX_NAME) {
		dmd_parse_error(parse, dmd_parse_loc(node), "%s '%s' is longer "
			"than %d characters", what,
			dmd_parse_show_node(node, buf), DMD_MAX_NAME);
		return -1;
	}
	return 0;
}

/* Read the integer of scalar "node" ("what" names it in messages) into
 * *val: an optional sign and decimal digits (ir/dmd_int.h) that fit a
 * long. */
static int dmd_parse_long(struct dmd_parse *parse, const yaml_node_t *node,
	long *val, const char *what)
{
	char buf[DMD_PARSE_SHOW_SIZE];

	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE, "for %s",
			what) < 0)
		return -1;
	switch (dmd_int_parse(dmd_parse_str(node), node->data.scalar.length,
			LONG_MIN, LONG_MAX, val)) {
	case DMD_INT_OK:
		return 0;
	case DMD_INT_RANGE:
		dmd_parse_error(parse, dmd_parse_loc(node),
			"integer '%s' for %s is too large",
			dmd_parse_show_node(node, buf), what);
		return -1;
	default:
		dmd_parse_error(parse, dmd_parse_loc(node),
			"expected an integer for %s, got '%s'", what,
			dmd_parse_show_node(node, buf));
		return -1;
	}
}

/* Match the keys of mapping "map" with "keys" (filling in their nodes);
 * "where" ("at top level", "in mesh") places them in messages. */
static int dmd_parse_keys(struct dmd_parse *parse, yaml_node_t *map,
	struct dmd_parse_key *keys, int n_keys, const char *where)
{
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
	int i;

	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);

		if (!key || !value)
			continue;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE,
				"as a key %s", where) < 0)
			return -1;
		for (i = 0; i < n_keys; ++i)
			if (dmd_parse_is(key, keys[i].name))
				break;
		if (i >= n_keys) {
			dmd_parse_error(parse, dmd_parse_loc(key),
				"unknown key '%s' %s",
				dmd_parse_show_node(key, buf), where);
			return -1;
		}
		if (keys[i].key) {
			dmd_parse_error(parse, dmd_parse_loc(key),
				"duplicate key '%s' %s", keys[i].name, where);
			return -1;
		}
		keys[i].key = key;
		keys[i].value = value;
	}
	return 0;
}

/* Report "missing key '<name>' <where>" at "loc". */
static int dmd_parse_missing(struct dmd_parse *parse, struct dmd_loc loc,
	const char *name, const char *where)
{
	dmd_parse_error(parse, loc, "missing key '%s' %s", name, where);
	return -1;
}

/* ---------------------------------------------------------------------
 * Locations inside scalars
 */

static size_t dmd_parse_utf8_len(unsigned char c);

/* Build the table of the byte offsets of every DMD_PARSE_CP-th character
 * of the text from "start" (after a byte order mark), counting characters
 * as libyaml does for its mark.index (a UTF-8 sequence is one character;
 * libyaml refuses invalid ones). */
static int dmd_parse_checkpoints(struct dmd_parse *parse, size_t start)
{
	size_t i, k = 0, n = parse->len;

	parse->cp = malloc((n / DMD_PARSE_CP + 2) * sizeof(*parse->cp));
	if (!parse->cp)
		return -1;
	for (i = start; i < n; i += dmd_parse_utf8_len(parse->text[i]), ++k)
		if (k % DMD_PARSE_CP == 0)
			parse->cp[parse->n_cp++] = i;
	if (k % DMD_PARSE_CP == 0)
		parse->cp[parse->n_cp++] = n;
	return 0;
}

/* Build the table of line starts of the text, breaking lines as libyaml
 * does (CR LF, CR, LF, NEL, LS, PS), and that of character offsets.  A
 * UTF-16 or UTF-32 file (which libyaml converts) leaves "utf8" unset:
 * locations inside its scalars are then those of the scalars. */
static int dmd_parse_lines(struct dmd_parse *parse)
{
	const unsigned char *s = (const unsigned char *) parse->text;
	size_t n = parse->len, i = 0, cap = 64;

	parse->utf8 = !(n >= 2 && ((s[0] == 0xfe && s[1] == 0xff) ||
				   (s[0] == 0xff && s[1] == 0xfe)));
	if (n >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		i = 3;
	if (parse->utf8 && dmd_parse_checkpoints(parse, i) < 0)
		goto nomem;
	parse->line = malloc(cap * sizeof(*parse->line));
	if (!parse->line)
		goto nomem;
	parse->line[parse->n_line++] = i;
	for (; i < n; ++i) {
		size_t next;

		if (s[i] == '\r')
			next = i + 1 < n && s[i + 1] == '\n' ? i + 2 : i + 1;
		else if (s[i] == '\n')
			next = i + 1;
		else if (s[i] == 0xc2 && i + 1 < n && s[i + 1] == 0x85)
			next = i + 2;
		else if (s[i] == 0xe2 && i + 2 < n && s[i + 1] == 0x80 &&
			 (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
			next = i + 3;
		else
			continue;
		if (parse->n_line >= cap) {
			size_t *line;

			cap *= 2;
			line = realloc(parse->line, cap * sizeof(*line));
			if (!line)
				goto nomem;
			parse->line = line;
		}
		parse->line[parse->n_line++] = next;
		i = next - 1;
	}
	return 0;
nomem:
	dmd_parse_error(parse, (struct dmd_loc) { 0, 0 }, "out of memory");
	return -1;
}

/* The number of bytes of the UTF-8 sequence that starts with "c" (1 for
 * anything that does not start one). */
static size_t dmd_parse_utf8_len(unsigned char c)
{
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	return 1;
}

/* The byte offset of libyaml mark "mark" (its index in characters), or
 * (size_t) -1 if it cannot be found.  At most DMD_PARSE_CP - 1 characters
 * are walked. */
static size_t dmd_parse_offset(struct dmd_parse *parse, yaml_mark_t mark)
{
	size_t off, k, n = mark.index % DMD_PARSE_CP;

	if (!parse->utf8 || mark.index / DMD_PARSE_CP >= parse->n_cp)
		return (size_t) -1;
	off = parse->cp[mark.index / DMD_PARSE_CP];
	for (k = 0; k < n; ++k) {
		if (off >= parse->len)
			return (size_t) -1;
		off += dmd_parse_utf8_len(parse->text[off]);
	}
	return off > parse->len ? (size_t) -1 : off;
}

/* Move *p over one character of the text, keeping *cur its location. */
static void dmd_parse_advance(struct dmd_parse *parse, size_t *p,
	struct dmd_loc *cur)
{
	const unsigned char *s = (const unsigned char *) parse->text;
	size_t n = parse->len, i = *p;

	if (s[i] == '\r' || s[i] == '\n' ||
	    (s[i] == 0xc2 && i + 1 < n && s[i + 1] == 0x85) ||
	    (s[i] == 0xe2 && i + 2 < n && s[i + 1] == 0x80 &&
	     (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))) {
		if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
			i += 2;
		else
			i += dmd_parse_utf8_len(s[i]);
		cur->line++;
		cur->col = 1;
	} else {
		i += dmd_parse_utf8_len(s[i]);
		cur->col++;
	}
	*p = i < n ? i : n;
}

/* Is "c" a character that a scalar's value may drop from its source
 * (indentation, line folding, the doubled quote of single-quoted
 * scalars)? */
static int dmd_parse_skippable(int c, yaml_scalar_style_t style)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		(c == '\'' && style == YAML_SINGLE_QUOTED_SCALAR_STYLE);
}

/* The escape sequence at s[0] == '\\' of a double-quoted scalar (n bytes
 * left): the number of bytes it produces in the value (0 for an escaped
 * line break), and in *len its length in the source. */
static size_t dmd_parse_escape(const char *s, size_t n, size_t *len)
{
	size_t hex = 0, k;
	unsigned long code = 0;

	*len = n < 2 ? n : 2;
	if (n < 2)
		return 1;
	switch (s[1]) {
	case 'x': hex = 2; break;
	case 'u': hex = 4; break;
	case 'U': hex = 8; break;
	case 'N': case '_': return 2;
	case 'L': case 'P': return 3;
	case '\r': case '\n':
		*len = 1;
		return 0;
	default: return 1;
	}
	for (k = 0; k < hex && 2 + k < n; ++k) {
		char c = s[2 + k];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
		code = code * 16 + d;
	}
	*len = 2 + k;
	return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

/* The location of each byte of the value of scalar "node" (length + 1
 * entries, the last just past the end; owned by the caller), found by
 * walking the value and its source together.  Where they cannot be
 * matched, the location of the scalar stands in.  NULL after an error. */
static struct dmd_loc *dmd_parse_scalar_locs(struct dmd_parse *parse,
	const yaml_node_t *node)
{
	const unsigned char *v = node->data.scalar.value;
	const unsigned char *s = (const unsigned char *) parse->text;
	size_t n = node->data.scalar.length, i = 0, j, p, end, k, len;
	yaml_scalar_style_t style = node->data.scalar.style;
	struct dmd_loc start = dmd_parse_loc(node), cur = start;
	struct dmd_loc *locs;

	locs = malloc((n + 1) * sizeof(*locs));
	if (!locs) {
		dmd_parse_error(parse, start, "out of memory");
		return NULL;
	}
	for (j = 0; j <= n; ++j)
		locs[j] = start;
	p = dmd_parse_offset(parse, node->start_mark);
	end = dmd_parse_offset(parse, node->end_mark);
	if (p == (size_t) -1 || end == (size_t) -1 || end < p)
		return locs;
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	    style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
		if (p < end)
			dmd_parse_advance(parse, &p, &cur);
	} else if (style == YAML_LITERAL_SCALAR_STYLE ||
		   style == YAML_FOLDED_SCALAR_STYLE) {
		int line = cur.line;

		while (p < end && cur.line == line)
			dmd_parse_advance(parse, &p, &cur);
	}
	while (i < n) {
		if (style == YAML_DOUBLE_QUOTED_SCALAR_STYLE && p < end &&
		    s[p] == '\\') {
			k = dmd_parse_escape((const char *) s + p, end - p,
					&len);
			for (j = 0; j < k && i < n; ++j)
				locs[i++] = cur;
			for (j = 0; j < len; ++j)
				dmd_parse_advance(parse, &p, &cur);
			continue;
		}
		len = dmd_parse_utf8_len(v[i]);
		if (i + len > n)
			len = 1;
		if (p + len <= end && memcmp(v + i, s + p, len) == 0) {
			for (j = 0; j < len; ++j)
				locs[i++] = cur;
			dmd_parse_advance(parse, &p, &cur);
			continue;
		}
		if (v[i] == ' ' || v[i] == '\t' || v[i] == '\n') {
			locs[i++] = cur;
			continue;
		}
		if (p < end && dmd_parse_skippable(s[p], style)) {
			dmd_parse_advance(parse, &p, &cur);
			continue;
		}
		return locs;
	}
	locs[n] = cur;
	return locs;
}

/* Hand scalar "node" to "parse_fn" of ir/dmd_expr.c as a struct dmd_src
 * named "what" in messages.  Returns what "parse_fn" returns, or -1. */
static int dmd_parse_with_src(struct dmd_parse *parse, const yaml_node_t *node,
	const char *what, struct dmd_src *src)
{
	src->text = dmd_parse_str(node);
	src->len = node->data.scalar.length;
	src->what = what;
	src->locs = dmd_parse_scalar_locs(parse, node);
	return src->locs ? 0 : -1;
}

/* ---------------------------------------------------------------------
 * The mesh
 */

/* Read the names of "axes" (a sequence of at most DMD_MAX_AXES
 * identifiers, distinct from each other and from every axis read so
 * far) into names[], *n of them; "owner" ("mesh", "view 'g'") places
 * them in messages. */
static int dmd_parse_axis_names(struct dmd_parse *parse, yaml_node_t *axes,
	char **names, int *n, const char *owner)
{
	struct dmd_job *job = parse->job;
	yaml_node_item_t *item;
	int i, k;

	if (dmd_parse_expect(parse, axes, YAML_SEQUENCE_NODE,
			"for 'axes' in %s", owner) < 0)
		return -1;
	k = axes->data.sequence.items.top - axes->data.sequence.items.start;
	if (k > DMD_MAX_AXES) {
		dmd_parse_error(parse, dmd_parse_loc(axes), "the %s has %d "
			"axes, at most %d are supported", owner, k,
			DMD_MAX_AXES);
		return -1;
	}
	if (k == 0 && names != job->axes) {
		dmd_parse_error(parse, dmd_parse_loc(axes), "%s has no axes",
			owner);
		return -1;
	}
	for (item = axes->data.sequence.items.start, i = 0;
	     item < axes->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *axis = dmd_parse_node(parse, *item);
		int a, v, j;

		if (!axis)
			return -1;
		if (dmd_parse_expect(parse, axis, YAML_SCALAR_NODE,
				"for a%s axis", names == job->axes ? " mesh" :
				"n view") < 0)
			return -1;
		if (dmd_parse_name(parse, axis, names == job->axes ?
				"mesh axis name" : "view axis name") < 0)
			return -1;
		for (j = 0; j < i; ++j)
			if (!strcmp(names[j], dmd_parse_str(axis)))
				break;
		a = dmd_job_find_axis(job, dmd_parse_str(axis));
		if (j < i || (a >= 0 && names == job->axes)) {
			dmd_parse_error(parse, dmd_parse_loc(axis),
				"duplicate %s axis '%s'", names == job->axes ?
				"mesh" : "view", dmd_parse_str(axis));
			return -1;
		}
		if (a >= 0) {
			v = dmd_job_axis_view(job, a);
			if (v < 0)
				dmd_parse_error(parse, dmd_parse_loc(axis),
					"axis '%s' of %s is already an "
					"axis of the mesh",
					dmd_parse_str(axis), owner);
			else
				dmd_parse_error(parse, dmd_parse_loc(axis),
					"axis '%s' of %s is already an "
					"axis of view '%s'",
					dmd_parse_str(axis), owner,
					job->views[v].name);
			return -1;
		}
		names[i] = dmd_parse_strdup(parse, axis);
		if (!names[i])
			return -1;
		*n = i + 1;
	}
	return 0;
}

/* Read "shape" (n extents >= 1, one per axis of "names") into ext[],
 * their product into *total; "owner" places them in messages. */
static int dmd_parse_axis_shape(struct dmd_parse *parse, yaml_node_t *shape,
	char **names, int n, long *ext, long *total, const char *owner)
{
	yaml_node_item_t *item;
	char what[96];
	int i;

	snprintf(what, sizeof(what), "'shape' in %s", owner);
	if (dmd_parse_expect(parse, shape, YAML_SEQUENCE_NODE,
			"for %s", what) < 0)
		return -1;
	i = shape->data.sequence.items.top - shape->data.sequence.items.start;
	if (i != n) {
		dmd_parse_error(parse, dmd_parse_loc(shape), "the %s has %d "
			"ax%s but %d extent%s", owner, n, n == 1 ? "is" : "es",
			i, i == 1 ? "" : "s");
		return -1;
	}
	*total = 1;
	for (item = shape->data.sequence.items.start, i = 0;
	     item < shape->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *e = dmd_parse_node(parse, *item);

		if (!e || dmd_parse_long(parse, e, &ext[i], what) < 0)
			return -1;
		if (ext[i] < 1) {
			dmd_parse_error(parse, dmd_parse_loc(e), "the extent "
				"of %s axis '%s' must be >= 1, got %ld",
				strcmp(owner, "mesh") ? "view" : "mesh",
				names[i], ext[i]);
			return -1;
		}
		if (__builtin_mul_overflow(*total, ext[i], total) ||
		    *total > INT_MAX) {
			dmd_parse_error(parse, dmd_parse_loc(shape), "the %s "
				"has more than %d ranks", owner, INT_MAX);
			return -1;
		}
	}
	return 0;
}

/* Read the views of the mesh (spec 1.1): a mapping from view name to
 * {axes, shape}, each over at most as many ranks as the mesh has. */
static int dmd_parse_views(struct dmd_parse *parse, yaml_node_t *views)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE], owner[96], where[100];
	int i;

	if (dmd_parse_expect(parse, views, YAML_MAPPING_NODE,
			"for 'views' in mesh") < 0)
		return -1;
	for (pair = views->data.mapping.pairs.start;
	     pair < views->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		struct dmd_parse_key keys[] = {
			{ .name = "axes" }, { .name = "shape" },
		};
		struct dmd_view *v;

		if (!key || !value)
			return -1;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE,
				"as a view name") < 0 ||
		    dmd_parse_name(parse, key, "view name") < 0)
			return -1;
		if (dmd_job_find_view(job, dmd_parse_str(key)) >= 0) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"view '%s'", dmd_parse_show_node(key, buf));
			return -1;
		}
		if (job->n_views >= DMD_MAX_VIEWS) {
			dmd_parse_error(parse, dmd_parse_loc(key), "more than "
				"%d views", DMD_MAX_VIEWS);
			return -1;
		}
		v = &job->views[job->n_views++];
		v->name = dmd_parse_strdup(parse, key);
		if (!v->name)
			return -1;
		v->loc = dmd_parse_loc(key);
		snprintf(owner, sizeof(owner), "view '%s'", v->name);
		snprintf(where, sizeof(where), "in view '%s'", v->name);
		if (dmd_parse_expect(parse, value, YAML_MAPPING_NODE,
				"for %s", owner) < 0 ||
		    dmd_parse_keys(parse, value, keys, 2, where) < 0)
			return -1;
		for (i = 0; i < 2; ++i)
			if (!keys[i].key)
				return dmd_parse_missing(parse, v->loc,
					keys[i].name, where);
		if (dmd_parse_axis_names(parse, keys[0].value, v->axes,
				&v->n_axes, owner) < 0)
			return -1;
		v->shape_loc = dmd_parse_loc(keys[1].value);
		if (dmd_parse_axis_shape(parse, keys[1].value, v->axes,
				v->n_axes, v->shape, &v->nranks, owner) < 0)
			return -1;
		if (v->nranks > job->nranks) {
			dmd_parse_error(parse, v->shape_loc, "view '%s' has "
				"%ld ranks, more than the %ld of the mesh",
				v->name, v->nranks, job->nranks);
			return -1;
		}
	}
	return 0;
}

/* Read a non-negative decimal number (digits, an optional fraction)
 * from text[0..n) into *val; returns the number of characters read (0:
 * none). */
static size_t dmd_parse_decimal(const char *text, size_t n, double *val)
{
	size_t i = 0, digits = 0;
	double v = 0, scale = 1;

	while (i < n && text[i] >= '0' && text[i] <= '9') {
		v = v * 10 + (text[i++] - '0');
		digits++;
	}
	if (i < n && text[i] == '.') {
		i++;
		while (i < n && text[i] >= '0' && text[i] <= '9') {
			scale /= 10;
			v += (text[i++] - '0') * scale;
			digits++;
		}
	}
	*val = v;
	return digits ? i : 0;
}

/* Read "memory" of the mesh (spec 1.1): a number of bytes, as an
 * integer or a decimal number with a unit (B, kB/KB, MB, GB, TB: powers
 * of 1000; KiB, MiB, GiB, TiB: powers of 1024), at least 1 byte and at
 * most 2^62 (a fraction of a byte is dropped). */
static int dmd_parse_memory(struct dmd_parse *parse, yaml_node_t *node)
{
	static const struct { const char *unit; double f; } units[] = {
		{ "", 1 }, { "B", 1 }, { "kB", 1e3 }, { "KB", 1e3 },
		{ "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 },
		{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
	};
	struct dmd_job *job = parse->job;
	char buf[DMD_PARSE_SHOW_SIZE];
	const char *s;
	size_t n, k, u;
	double v;

	job->memory_loc = dmd_parse_loc(node);
	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE,
			"for 'memory' in mesh") < 0)
		return -1;
	s = dmd_parse_str(node);
	n = node->data.scalar.length;
	k = dmd_parse_decimal(s, n, &v);
	while (k && k < n && s[k] == ' ')
		k++;
	for (u = 0; k && u < sizeof(units) / sizeof(units[0]); ++u)
		if (n - k == strlen(units[u].unit) &&
		    !memcmp(s + k, units[u].unit, n - k))
			break;
	if (!k || u == sizeof(units) / sizeof(units[0])) {
		dmd_parse_error(parse, job->memory_loc, "'memory' in mesh "
			"must be a number of bytes, with an optional unit (B, "
			"KB, MB, GB, TB, KiB, MiB, GiB, TiB), got '%s'",
			dmd_parse_show_node(node, buf));
		return -1;
	}
	v *= units[u].f;
	if (v < 1 || v > (double) DMD_MAX_INT) {
		dmd_parse_error(parse, job->memory_loc, "'memory' in mesh "
			"must be from 1 byte to 2^62 bytes, got '%s'",
			dmd_parse_show_node(node, buf));
		return -1;
	}
	job->memory = (long) v;
	return 0;
}

/* Read a number >= 0 (> 0 if "positive") for "what" into *val. */
static int dmd_parse_number(struct dmd_parse *parse, yaml_node_t *node,
	double *val, int positive, const char *what)
{
	char buf[DMD_PARSE_SHOW_SIZE];
	const char *s;
	size_t n, k;
	double v = 0;

	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE, "for %s",
			what) < 0)
		return -1;
	s = dmd_parse_str(node);
	n = node->data.scalar.length;
	k = dmd_parse_decimal(s, n, &v);
	if (k && k < n && (s[k] == 'e' || s[k] == 'E')) {
		size_t j = k + 1;
		int neg = 0;
		long e = 0;

		if (j < n && (s[j] == '-' || s[j] == '+'))
			neg = s[j++] == '-';
		if (j == n)
			k = 0;
		for (; k && j < n && s[j] >= '0' && s[j] <= '9' && e < 400;
		     ++j)
			e = e * 10 + (s[j] - '0');
		if (k)
			k = j;
		while (e-- > 0)
			v = neg ? v / 10 : v * 10;
	}
	if (!k || k != n || !(v < 1e300) || (positive && v <= 0)) {
		dmd_parse_error(parse, dmd_parse_loc(node), "%s must be a "
			"number %s 0, got '%s'", what, positive ? ">" : ">=",
			dmd_parse_show_node(node, buf));
		return -1;
	}
	*val = v;
	return 0;
}

/* Read "links" of the mesh (spec 1.1): per mesh axis, latency_us and
 * gbps (either may be left out: the default). */
static int dmd_parse_links(struct dmd_parse *parse, yaml_node_t *links)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE], owner[128];
	int seen[DMD_MAX_AXES] = { 0 };

	if (dmd_parse_expect(parse, links, YAML_MAPPING_NODE,
			"for 'links' in mesh") < 0)
		return -1;
	job->links_given = 1;
	for (pair = links->data.mapping.pairs.start;
	     pair < links->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		struct dmd_parse_key keys[] = {
			{ .name = "latency_us" }, { .name = "gbps" },
		};
		int a;

		if (!key || !value)
			return -1;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE,
				"as a key of 'links' in mesh") < 0)
			return -1;
		a = dmd_job_find_axis(job, dmd_parse_str(key));
		if (a >= job->n_axes) {
			dmd_parse_error(parse, dmd_parse_loc(key), "'links' "
				"are given per mesh axis; '%s' is an axis of "
				"view '%s'", dmd_parse_str(key),
				job->views[dmd_job_axis_view(job, a)].name);
			return -1;
		}
		if (a < 0 || strlen(dmd_parse_str(key)) !=
			     key->data.scalar.length) {
			dmd_parse_error(parse, dmd_parse_loc(key), "unknown "
				"mesh axis '%s' in 'links'",
				dmd_parse_show_node(key, buf));
			return -1;
		}
		if (seen[a]) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"key '%s' in 'links'", job->axes[a]);
			return -1;
		}
		seen[a] = 1;
		snprintf(owner, sizeof(owner), "in 'links' of mesh axis '%s'",
			job->axes[a]);
		if (dmd_parse_expect(parse, value, YAML_MAPPING_NODE,
				"%s", owner) < 0 ||
		    dmd_parse_keys(parse, value, keys, 2, owner) < 0)
			return -1;
		snprintf(owner, sizeof(owner), "'latency_us' of mesh axis "
			"'%s'", job->axes[a]);
		if (keys[0].key && dmd_parse_number(parse, keys[0].value,
				&job->links[a].latency_us, 0, owner) < 0)
			return -1;
		snprintf(owner, sizeof(owner), "'gbps' of mesh axis '%s'",
			job->axes[a]);
		if (keys[1].key && dmd_parse_number(parse, keys[1].value,
				&job->links[a].gbps, 1, owner) < 0)
			return -1;
	}
	return 0;
}

/* Read the mesh: "axes" and "shape", of equal lengths, and the optional
 * "views", "memory" and "links" (spec 1.1). */
static int dmd_parse_mesh(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *mesh)
{
	struct dmd_job *job = parse->job;
	struct dmd_parse_key keys[] = {
		{ .name = "axes" }, { .name = "shape" }, { .name = "views" },
		{ .name = "memory" }, { .name = "links" },
	};
	int i;

	job->mesh_loc = dmd_parse_loc(key);
	if (dmd_parse_expect(parse, mesh, YAML_MAPPING_NODE,
			"for 'mesh'") < 0 ||
	    dmd_parse_keys(parse, mesh, keys, 5, "in mesh") < 0)
		return -1;
	for (i = 0; i < 2; ++i)
		if (!keys[i].key)
			return dmd_parse_missing(parse, job->mesh_loc,
				keys[i].name, "in mesh");
	if (dmd_parse_axis_names(parse, keys[0].value, job->axes,
			&job->n_axes, "mesh") < 0 ||
	    dmd_parse_axis_shape(parse, keys[1].value, job->axes, job->n_axes,
			job->mesh_shape, &job->nranks, "mesh") < 0)
		return -1;
	for (i = 0; i < DMD_MAX_AXES; ++i) {
		job->links[i].latency_us = 2;
		job->links[i].gbps = 10;
	}
	if (keys[2].key && dmd_parse_views(parse, keys[2].value) < 0)
		return -1;
	if (keys[3].key && dmd_parse_memory(parse, keys[3].value) < 0)
		return -1;
	if (keys[4].key && dmd_parse_links(parse, keys[4].value) < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------
 * Tensors
 */

/* The keys of a tensor, in the order they are read. */
enum {
	DMD_TK_SHAPE, DMD_TK_DTYPE, DMD_TK_DIST, DMD_TK_SPLIT, DMD_TK_OFFSETS,
	DMD_TK_PLACE, DMD_TK_FILE, DMD_TK_INIT, DMD_TK_SEED, DMD_TK_PARTIAL,
	DMD_TK_CYCLIC, DMD_TK_AXE, DMD_TK_N
};

/* Print the shape of "t" as "[E0, E1]" into "buf" of "size" bytes. */
static const char *dmd_parse_shape_str(const struct dmd_tensor *t, char *buf,
	size_t size)
{
	size_t n = 0;
	int d;

	n += snprintf(buf + n, size - n, "[");
	for (d = 0; d < t->ndim && n < size; ++d)
		n += snprintf(buf + n, size - n, "%s%ld", d ? ", " : "",
			t->shape[d]);
	if (n < size)
		snprintf(buf + n, size - n, "]");
	return buf;
}

/* The number of elements of "t" in *count; -1 if it overflows an
 * int64. */
static int dmd_parse_count(const struct dmd_tensor *t, long *count)
{
	int d;

	*count = 1;
	for (d = 0; d < t->ndim; ++d)
		if (__builtin_mul_overflow(*count, t->shape[d], count))
			return -1;
	return 0;
}

/* Check that the size in bytes of "t" (after its dtype is known) fits an
 * int64. */
static int dmd_parse_check_bytes(struct dmd_parse *parse,
	const struct dmd_tensor *t)
{
	char buf[DMD_MAX_DIMS * 24 + 8];
	long count, bytes;

	if (dmd_parse_count(t, &count) == 0 &&
	    !__builtin_mul_overflow(count, t->dtype == DMD_F32 ? 4L : 8L,
				    &bytes))
		return 0;
	dmd_parse_error(parse, t->shape_loc, "tensor '%s' is too large: "
		"%ld elements of %s (shape %s) overflow a 64-bit size in "
		"bytes", t->name, count, t->dtype == DMD_F32 ? "f32" : "f64",
		dmd_parse_shape_str(t, buf, sizeof(buf)));
	return -1;
}

/* Read the "shape" of tensor "t". */
static int dmd_parse_shape(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *shape)
{
	yaml_node_item_t *item;
	char what[64 + 32];
	long count;
	int n, d;

	snprintf(what, sizeof(what), "'shape' of tensor '%.64s'", t->name);
	if (dmd_parse_expect(parse, shape, YAML_SEQUENCE_NODE, "for %s",
			what) < 0)
		return -1;
	t->shape_loc = dmd_parse_loc(shape);
	n = shape->data.sequence.items.top - shape->data.sequence.items.start;
	if (n > DMD_MAX_DIMS) {
		dmd_parse_error(parse, dmd_parse_loc(shape), "tensor '%s' has "
			"%d dimensions, at most %d are supported", t->name, n,
			DMD_MAX_DIMS);
		return -1;
	}
	for (item = shape->data.sequence.items.start, d = 0;
	     item < shape->data.sequence.items.top; ++item, ++d) {
		yaml_node_t *ext = dmd_parse_node(parse, *item);

		if (!ext || dmd_parse_long(parse, ext, &t->shape[d], what) < 0)
			return -1;
		if (t->shape[d] < 0) {
			dmd_parse_error(parse, dmd_parse_loc(ext), "negative "
				"extent %ld in %s", t->shape[d], what);
			return -1;
		}
	}
	t->ndim = n;
	if (dmd_parse_count(t, &count) < 0) {
		char buf[DMD_MAX_DIMS * 24 + 8];

		dmd_parse_error(parse, t->shape_loc, "tensor '%s' has too many "
			"elements: shape %s overflows a 64-bit element count",
			t->name, dmd_parse_shape_str(t, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

/* Read the "dist" of tensor "t" (after its shape). */
static int dmd_parse_dist(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *dist)
{
	yaml_node_item_t *item;
	char *what = NULL;
	int n, d, r = -1;

	if (dmd_parse_expect(parse, dist, YAML_SEQUENCE_NODE,
			"for 'dist' of tensor '%s'", t->name) < 0)
		return -1;
	n = dist->data.sequence.items.top - dist->data.sequence.items.start;
	if (n != t->ndim) {
		dmd_parse_error(parse, dmd_parse_loc(dist), "'dist' of tensor "
			"'%s' has %d entr%s but the tensor has %d dimension%s",
			t->name, n, n == 1 ? "y" : "ies", t->ndim,
			t->ndim == 1 ? "" : "s");
		return -1;
	}
	if (asprintf(&what, "dist of tensor '%s'", t->name) < 0) {
		dmd_parse_error(parse, dmd_parse_loc(dist), "out of memory");
		return -1;
	}
	for (item = dist->data.sequence.items.start, d = 0;
	     item < dist->data.sequence.items.top; ++item, ++d) {
		yaml_node_t *entry = dmd_parse_node(parse, *item);
		struct dmd_src src;

		if (!entry || dmd_parse_expect(parse, entry, YAML_SCALAR_NODE,
				"for an entry of 'dist' of tensor '%s'",
				t->name) < 0)
			goto done;
		t->dist_loc[d] = dmd_parse_loc(entry);
		if (dmd_parse_is(entry, "-"))
			continue;
		if (dmd_parse_with_src(parse, entry, what, &src) < 0)
			goto done;
		t->dist[d] = dmd_expr_parse_dist(parse->job, &src);
		free((void *) src.locs);
		if (!t->dist[d])
			goto done;
	}
	r = 0;
done:
	free(what);
	return r;
}

/* Read the "offsets" of tensor "t" (after its shape and dist): a map
 * from dimension index to block boundaries 0 = o0 <= ... <= oB = extent. */
static int dmd_parse_offsets(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *offsets)
{
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
	char what[64 + 64];

	if (dmd_parse_expect(parse, offsets, YAML_MAPPING_NODE,
			"for 'offsets' of tensor '%s'", t->name) < 0)
		return -1;
	for (pair = offsets->data.mapping.pairs.start;
	     pair < offsets->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *list = dmd_parse_node(parse, pair->value);
		yaml_node_item_t *item;
		long dim, v, prev = 0;
		int n, i;

		if (!key || !list)
			return -1;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE, "as a key "
				"of 'offsets' of tensor '%s'", t->name) < 0)
			return -1;
		snprintf(what, sizeof(what), "'offsets' of tensor '%.64s'",
			t->name);
		if (dmd_parse_long(parse, key, &dim, what) < 0)
			return -1;
		if (dim < 0 || dim >= t->ndim) {
			dmd_parse_error(parse, dmd_parse_loc(key), "'offsets' "
				"of tensor '%s': no dimension %s (the tensor "
				"has %d)", t->name,
				dmd_parse_show_node(key, buf), t->ndim);
			return -1;
		}
		if (t->offsets[dim]) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"key '%ld' in 'offsets' of tensor '%s'", dim,
				t->name);
			return -1;
		}
		if (!t->dist[dim]) {
			dmd_parse_error(parse, dmd_parse_loc(key), "'offsets' "
				"of tensor '%s': dimension %ld is not split "
				"(its dist entry is '-')", t->name, dim);
			return -1;
		}
		snprintf(what, sizeof(what), "dimension %ld in 'offsets' of "
			"tensor '%.64s'", dim, t->name);
		if (dmd_parse_expect(parse, list, YAML_SEQUENCE_NODE, "for %s",
				what) < 0)
			return -1;
		n = list->data.sequence.items.top -
			list->data.sequence.items.start;
		if (n < 2) {
			dmd_parse_error(parse, dmd_parse_loc(list), "%s needs "
				"at least two boundaries, 0 and the extent %ld",
				what, t->shape[dim]);
			return -1;
		}
		t->offsets[dim] = calloc(n, sizeof(long));
		if (!t->offsets[dim]) {
			dmd_parse_error(parse, dmd_parse_loc(list),
				"out of memory");
			return -1;
		}
		t->n_offsets[dim] = n;
		for (item = list->data.sequence.items.start, i = 0;
		     item < list->data.sequence.items.top; ++item, ++i) {
			yaml_node_t *o = dmd_parse_node(parse, *item);

			if (!o || dmd_parse_long(parse, o, &v, what) < 0)
				return -1;
			if (i == 0 && v != 0) {
				dmd_parse_error(parse, dmd_parse_loc(o), "%s "
					"must start at 0, not %ld", what, v);
				return -1;
			}
			if (v < prev) {
				dmd_parse_error(parse, dmd_parse_loc(o), "%s "
					"must not decrease (%ld after %ld)",
					what, v, prev);
				return -1;
			}
			if (i == n - 1 && v != t->shape[dim]) {
				dmd_parse_error(parse, dmd_parse_loc(o), "%s "
					"must end at the extent %ld, not %ld",
					what, t->shape[dim], v);
				return -1;
			}
			t->offsets[dim][i] = prev = v;
		}
	}
	return 0;
}

/* Read the "cyclic" of tensor "t" (after its shape, dist and offsets):
 * a map from dimension index to a block size of at least 1 (spec 1.2,
 * v3).  A dimension with offsets cannot be cyclic. */
static int dmd_parse_cyclic(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *cyclic)
{
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
	char what[64 + 64];

	if (dmd_parse_expect(parse, cyclic, YAML_MAPPING_NODE,
			"for 'cyclic' of tensor '%s'", t->name) < 0)
		return -1;
	for (pair = cyclic->data.mapping.pairs.start;
	     pair < cyclic->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		long dim, size;

		if (!key || !value)
			return -1;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE, "as a key "
				"of 'cyclic' of tensor '%s'", t->name) < 0)
			return -1;
		snprintf(what, sizeof(what), "'cyclic' of tensor '%.64s'",
			t->name);
		if (dmd_parse_long(parse, key, &dim, what) < 0)
			return -1;
		if (dim < 0 || dim >= t->ndim) {
			dmd_parse_error(parse, dmd_parse_loc(key), "'cyclic' "
				"of tensor '%s': no dimension %s (the tensor "
				"has %d)", t->name,
				dmd_parse_show_node(key, buf), t->ndim);
			return -1;
		}
		if (t->cyclic[dim]) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"key '%ld' in 'cyclic' of tensor '%s'", dim,
				t->name);
			return -1;
		}
		if (t->offsets[dim]) {
			dmd_parse_error(parse, dmd_parse_loc(key), "'cyclic' "
				"of tensor '%s': dimension %ld has 'offsets' "
				"(a dimension is cut by one or the other)",
				t->name, dim);
			return -1;
		}
		snprintf(what, sizeof(what), "the block size of dimension %ld "
			"in 'cyclic' of tensor '%.64s'", dim, t->name);
		if (dmd_parse_long(parse, value, &size, what) < 0)
			return -1;
		if (size < 1) {
			dmd_parse_error(parse, dmd_parse_loc(value), "%s must "
				"be at least 1, got %ld", what, size);
			return -1;
		}
		t->cyclic[dim] = size;
		t->cyclic_loc[dim] = dmd_parse_loc(key);
		t->n_cyclic++;
	}
	return 0;
}

/* Does every split dimension of "t" have offsets (so that its "split"
 * applies to none)? */
static int dmd_parse_all_offsets(const struct dmd_tensor *t)
{
	int d;

	for (d = 0; d < t->ndim; ++d)
		if (t->dist[d] && !t->offsets[d])
			return 0;
	return 1;
}

/* Axis "a" (at "loc") is named by the layout of tensor "t": check that
 * every axis it names belongs to one frame, the mesh or one view
 * (t->view: -2 while none is named yet). */
static int dmd_parse_frame(struct dmd_parse *parse, struct dmd_tensor *t,
	int a, struct dmd_loc loc)
{
	struct dmd_job *job = parse->job;
	int v = dmd_job_axis_view(job, a);
	char f1[96], f2[96];

	if (t->view == -2 || t->view == v) {
		t->view = v;
		return 0;
	}
	if (t->view < 0)
		snprintf(f1, sizeof(f1), "the mesh");
	else
		snprintf(f1, sizeof(f1), "view '%s'", job->views[t->view].name);
	if (v < 0)
		snprintf(f2, sizeof(f2), "the mesh");
	else
		snprintf(f2, sizeof(f2), "view '%s'", job->views[v].name);
	dmd_parse_error(parse, loc, "tensor '%s' is laid out on %s, so it "
		"cannot use axis '%s' of %s (a tensor's dist, place and "
		"partial use the axes of one view or of the mesh)", t->name,
		f1, dmd_job_axis_name(job, a), f2);
	return -1;
}

/* The axes that the dist entry "e" of tensor "t" names: one frame. */
static int dmd_parse_frame_expr(struct dmd_parse *parse, struct dmd_tensor *t,
	const struct dmd_expr *e)
{
	int i, a;

	if (!e)
		return 0;
	if (e->type == DMD_EXPR_VAR) {
		a = dmd_job_find_axis(parse->job, e->name);
		if (a >= 0 && dmd_parse_frame(parse, t, a, e->loc) < 0)
			return -1;
	}
	for (i = 0; i < e->n_arg; ++i)
		if (dmd_parse_frame_expr(parse, t, e->args[i]) < 0)
			return -1;
	return 0;
}

/* Read the "place" of tensor "t": a map from mesh axis to coordinate. */
static int dmd_parse_place(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *place)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
	char what[64 + 64];
	int a, i;

	if (dmd_parse_expect(parse, place, YAML_MAPPING_NODE,
			"for 'place' of tensor '%s'", t->name) < 0)
		return -1;
	for (pair = place->data.mapping.pairs.start;
	     pair < place->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		long coord;

		if (!key || !value)
			return -1;
		if (dmd_parse_expect(parse, key, YAML_SCALAR_NODE, "as a key "
				"of 'place' of tensor '%s'", t->name) < 0)
			return -1;
		a = dmd_job_find_axis(job, dmd_parse_str(key));
		if (a < 0 || strlen(dmd_parse_str(key)) !=
			     key->data.scalar.length) {
			dmd_parse_error(parse, dmd_parse_loc(key), "unknown "
				"mesh axis '%s' in 'place' of tensor '%s'",
				dmd_parse_show_node(key, buf), t->name);
			return -1;
		}
		for (i = 0; i < t->n_place; ++i)
			if (t->place_axis[i] == a)
				break;
		if (i < t->n_place) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"key '%s' in 'place' of tensor '%s'",
				dmd_job_axis_name(job, a), t->name);
			return -1;
		}
		if (dmd_parse_frame(parse, t, a, dmd_parse_loc(key)) < 0)
			return -1;
		snprintf(what, sizeof(what), "axis '%.32s' in 'place' of "
			"tensor '%.64s'", dmd_job_axis_name(job, a), t->name);
		if (dmd_parse_long(parse, value, &coord, what) < 0)
			return -1;
		if (coord < 0 || coord >= dmd_job_axis_extent(job, a)) {
			dmd_parse_error(parse, dmd_parse_loc(value), "coordinate "
				"%ld is out of range for %s axis '%s' (0 to "
				"%ld) in 'place' of tensor '%s'", coord,
				a < job->n_axes ? "mesh" : "view",
				dmd_job_axis_name(job, a),
				dmd_job_axis_extent(job, a) - 1, t->name);
			return -1;
		}
		t->place_axis[t->n_place] = a;
		t->place_coord[t->n_place++] = coord;
	}
	return 0;
}

/* Read iterator "node" ([extent, stride, axis]) of list "list" ('D' or
 * 'R') of the 'axe' of tensor "t" into "it": an extent of at least 1,
 * an integer stride, and an axis of the tensor's frame or "m" (local
 * memory: DMD_AXE_MEM). */
static int dmd_parse_axe_iter(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *node, const char *list, struct dmd_axe_iter *it)
{
	yaml_node_t *v[3];
	char buf[DMD_PARSE_SHOW_SIZE];
	char what[96 + 64];
	int n, i, a;

	if (dmd_parse_expect(parse, node, YAML_SEQUENCE_NODE, "for an "
			"iterator [extent, stride, axis] of '%s' in 'axe' of "
			"tensor '%s'", list, t->name) < 0)
		return -1;
	it->loc = dmd_parse_loc(node);
	n = node->data.sequence.items.top - node->data.sequence.items.start;
	if (n != 3) {
		dmd_parse_error(parse, it->loc, "an iterator of '%s' in 'axe' "
			"of tensor '%s' has %d entr%s, expected 3: [extent, "
			"stride, axis]", list, t->name, n, n == 1 ? "y" : "ies");
		return -1;
	}
	for (i = 0; i < 3; ++i) {
		v[i] = dmd_parse_node(parse, node->data.sequence.items.start[i]);
		if (!v[i])
			return -1;
	}
	snprintf(what, sizeof(what), "the extent of an iterator of '%s' in "
		"'axe' of tensor '%.64s'", list, t->name);
	if (dmd_parse_long(parse, v[0], &it->extent, what) < 0)
		return -1;
	if (it->extent < 1) {
		dmd_parse_error(parse, dmd_parse_loc(v[0]), "%s must be at "
			"least 1, got %ld", what, it->extent);
		return -1;
	}
	snprintf(what, sizeof(what), "the stride of an iterator of '%s' in "
		"'axe' of tensor '%.64s'", list, t->name);
	if (dmd_parse_long(parse, v[1], &it->stride, what) < 0)
		return -1;
	if (dmd_parse_expect(parse, v[2], YAML_SCALAR_NODE, "for the axis of "
			"an iterator of '%s' in 'axe' of tensor '%s'", list,
			t->name) < 0)
		return -1;
	it->axis = DMD_AXE_MEM;
	if (dmd_parse_is(v[2], "m"))
		return 0;
	a = dmd_job_find_axis(parse->job, dmd_parse_str(v[2]));
	if (a < 0 || strlen(dmd_parse_str(v[2])) != v[2]->data.scalar.length) {
		dmd_parse_error(parse, dmd_parse_loc(v[2]), "unknown axis '%s' "
			"in 'axe' of tensor '%s' (an axis of the mesh or of a "
			"view, or m for local memory)",
			dmd_parse_show_node(v[2], buf), t->name);
		return -1;
	}
	it->axis = a;
	return dmd_parse_frame(parse, t, a, dmd_parse_loc(v[2]));
}

/* Read the iterators of list "list" ('D' or 'R', the sequence "seq") of
 * the 'axe' of tensor "t" into it[], *n of them (at most
 * DMD_MAX_AXE_ITERS). */
static int dmd_parse_axe_iters(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *seq, const char *list, struct dmd_axe_iter *it, int *n)
{
	yaml_node_item_t *item;

	if (dmd_parse_expect(parse, seq, YAML_SEQUENCE_NODE, "for '%s' in "
			"'axe' of tensor '%s'", list, t->name) < 0)
		return -1;
	for (item = seq->data.sequence.items.start;
	     item < seq->data.sequence.items.top; ++item) {
		yaml_node_t *node = dmd_parse_node(parse, *item);

		if (!node)
			return -1;
		if (*n >= DMD_MAX_AXE_ITERS) {
			dmd_parse_error(parse, dmd_parse_loc(node), "'%s' in "
				"'axe' of tensor '%s' has more than %d "
				"iterators", list, t->name, DMD_MAX_AXE_ITERS);
			return -1;
		}
		if (dmd_parse_axe_iter(parse, t, node, list, &it[*n]) < 0)
			return -1;
		++*n;
	}
	return 0;
}

/* Read 'O' (the mapping "map") of the 'axe' of tensor "t" into "axe": a
 * coordinate per axis of the tensor's frame; offsets on "m" arrange
 * local memory only and are checked to be integers, then dropped. */
static int dmd_parse_axe_offsets(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *map, struct dmd_axe *axe)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
	char what[96 + 64];
	int a, i;

	if (dmd_parse_expect(parse, map, YAML_MAPPING_NODE, "for 'O' in 'axe' "
			"of tensor '%s'", t->name) < 0)
		return -1;
	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		long off;

		if (!key || !value || dmd_parse_expect(parse, key,
				YAML_SCALAR_NODE, "as a key of 'O' in 'axe' of "
				"tensor '%s'", t->name) < 0)
			return -1;
		snprintf(what, sizeof(what), "axis '%.32s' in 'O' of 'axe' of "
			"tensor '%.64s'", dmd_parse_show_node(key, buf), t->name);
		if (dmd_parse_is(key, "m")) {
			if (dmd_parse_long(parse, value, &off, what) < 0)
				return -1;
			continue;
		}
		a = dmd_job_find_axis(job, dmd_parse_str(key));
		if (a < 0 || strlen(dmd_parse_str(key)) !=
			     key->data.scalar.length) {
			dmd_parse_error(parse, dmd_parse_loc(key), "unknown "
				"axis '%s' in 'O' of 'axe' of tensor '%s'",
				dmd_parse_show_node(key, buf), t->name);
			return -1;
		}
		for (i = 0; i < axe->n_o && axe->o_axis[i] != a; ++i)
			;
		if (i < axe->n_o || axe->n_o >= DMD_MAX_AXES) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"key '%s' in 'O' of 'axe' of tensor '%s'",
				dmd_job_axis_name(job, a), t->name);
			return -1;
		}
		if (dmd_parse_frame(parse, t, a, dmd_parse_loc(key)) < 0 ||
		    dmd_parse_long(parse, value, &off, what) < 0)
			return -1;
		if (off < 0 || off >= dmd_job_axis_extent(job, a)) {
			dmd_parse_error(parse, dmd_parse_loc(value), "offset %ld "
				"is out of range for axis '%s' (0 to %ld) in 'O' "
				"of 'axe' of tensor '%s'", off,
				dmd_job_axis_name(job, a),
				dmd_job_axis_extent(job, a) - 1, t->name);
			return -1;
		}
		axe->o_axis[axe->n_o] = a;
		axe->o_val[axe->n_o] = off;
		axe->o_loc[axe->n_o++] = dmd_parse_loc(key);
	}
	return 0;
}

/* Read the 'axe' of tensor "t" (key "key", mapping "map"; spec 1.2, v3:
 * {D: [...], R: [...], O: {...}}) and set the layout it writes
 * (ir/dmd_axe.c).  "other" are the tensor's keys 'dist', 'split',
 * 'offsets', 'cyclic' and 'place', none of which may be given with it:
 * the Axe layout is the whole layout.  "m" is the local memory axis, so
 * the job may have no axis called so. */
static int dmd_parse_axe(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *key, yaml_node_t *map, struct dmd_parse_key **other)
{
	struct dmd_parse_key keys[] = {
		{ .name = "D" }, { .name = "R" }, { .name = "O" },
	};
	struct dmd_axe *axe;
	char where[64 + 64];
	int i, r = -1;

	for (i = 0; other[i]; ++i)
		if (other[i]->key) {
			dmd_parse_error(parse, dmd_parse_loc(other[i]->key),
				"tensor '%s' has both 'axe' and '%s' (an Axe "
				"layout is the whole layout)", t->name,
				other[i]->name);
			return -1;
		}
	if (dmd_job_find_axis(parse->job, "m") >= 0) {
		dmd_parse_error(parse, dmd_parse_loc(key), "'axe' of tensor "
			"'%s': the job has an axis called 'm', which Axe "
			"layouts use for local memory", t->name);
		return -1;
	}
	snprintf(where, sizeof(where), "in 'axe' of tensor '%.64s'", t->name);
	if (dmd_parse_expect(parse, map, YAML_MAPPING_NODE, "for 'axe' of "
			"tensor '%s'", t->name) < 0 ||
	    dmd_parse_keys(parse, map, keys, 3, where) < 0)
		return -1;
	axe = calloc(1, sizeof(*axe));
	if (!axe) {
		dmd_parse_error(parse, dmd_parse_loc(key), "out of memory");
		return -1;
	}
	axe->loc = dmd_parse_loc(key);
	axe->d_loc = keys[0].key ? dmd_parse_loc(keys[0].key) : axe->loc;
	if (keys[0].value && dmd_parse_axe_iters(parse, t, keys[0].value,
			"D", axe->d, &axe->n_d) < 0)
		goto done;
	if (keys[1].value && dmd_parse_axe_iters(parse, t, keys[1].value,
			"R", axe->r, &axe->n_r) < 0)
		goto done;
	if (keys[2].value && dmd_parse_axe_offsets(parse, t, keys[2].value,
			axe) < 0)
		goto done;
	r = dmd_axe_layout(parse->job, t, axe);
done:
	free(axe);
	return r;
}

/* Read a seed: an integer from 0 to 2^64 - 1 (ir/dmd_int.h). */
static int dmd_parse_seed(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *seed)
{
	char buf[DMD_PARSE_SHOW_SIZE];

	if (dmd_parse_expect(parse, seed, YAML_SCALAR_NODE,
			"for 'seed' of tensor '%s'", t->name) < 0)
		return -1;
	if (dmd_int_parse_u64(dmd_parse_str(seed), seed->data.scalar.length,
			ULLONG_MAX, &t->seed) == DMD_INT_OK)
		return 0;
	dmd_parse_error(parse, dmd_parse_loc(seed), "'seed' of tensor '%s' "
		"must be an integer from 0 to 18446744073709551615, got '%s'",
		t->name, dmd_parse_show_node(seed, buf));
	return -1;
}

/* Read "partial: [axes]" of tensor "t" (spec 1.5): distinct mesh axes. */
static int dmd_parse_partial(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *list)
{
	struct dmd_job *job = parse->job;
	yaml_node_item_t *item;
	char buf[DMD_PARSE_SHOW_SIZE];
	int a, i;

	if (dmd_parse_expect(parse, list, YAML_SEQUENCE_NODE,
			"for 'partial' of tensor '%s'", t->name) < 0)
		return -1;
	t->partial_loc = dmd_parse_loc(list);
	for (item = list->data.sequence.items.start;
	     item < list->data.sequence.items.top; ++item) {
		yaml_node_t *node = dmd_parse_node(parse, *item);

		if (!node || dmd_parse_expect(parse, node, YAML_SCALAR_NODE,
				"in 'partial' of tensor '%s'", t->name) < 0)
			return -1;
		a = dmd_job_find_axis(job, dmd_parse_str(node));
		if (a < 0 || strlen(dmd_parse_str(node)) !=
			     node->data.scalar.length) {
			dmd_parse_error(parse, dmd_parse_loc(node), "unknown "
				"mesh axis '%s' in 'partial' of tensor '%s'",
				dmd_parse_show_node(node, buf), t->name);
			return -1;
		}
		for (i = 0; i < t->n_partial; ++i)
			if (t->partial_axis[i] == a)
				break;
		if (i < t->n_partial) {
			dmd_parse_error(parse, dmd_parse_loc(node), "mesh axis "
				"'%s' appears twice in 'partial' of tensor "
				"'%s'", dmd_job_axis_name(job, a), t->name);
			return -1;
		}
		if (dmd_parse_frame(parse, t, a, dmd_parse_loc(node)) < 0)
			return -1;
		t->partial_axis[t->n_partial++] = a;
	}
	return 0;
}

/* Check the name "node" of the file of tensor "t": not empty, at most
 * DMD_MAX_FILE bytes, no NUL, and nothing that would break or hide the
 * line of a message or of a comment in the emitted program (control
 * characters, line separators, bidirectional controls: see
 * dmd_expr_char), and a last component that can name a file ("out/",
 * "d/." and ".." name directories).  Quotes, backslashes and "*" "/"
 * are valid: the emitter escapes them in C strings and defuses them in
 * comments (emit/dmd_emit_name.c). */
static int dmd_parse_file(struct dmd_parse *parse, const struct dmd_tensor *t,
	const yaml_node_t *node)
{
	const char *s = (const char *) node->data.scalar.value, *last;
	size_t i, k, n = node->data.scalar.length;
	int printable;

	if (n == 0 || strlen(s) != n) {
		dmd_parse_error(parse, dmd_parse_loc(node), "'file' of tensor "
			"'%s' is not a valid file name", t->name);
		return -1;
	}
	if (n > DMD_MAX_FILE) {
		dmd_parse_error(parse, dmd_parse_loc(node), "'file' of tensor "
			"'%s' is longer than %d bytes", t->name, DMD_MAX_FILE);
		return -1;
	}
	for (i = 0; i < n; i += k) {
		k = dmd_expr_char(s + i, n - i, &printable);
		if (printable)
			continue;
		dmd_parse_error(parse, dmd_parse_loc(node), "'file' of tensor "
			"'%s' must not hold control characters, line "
			"separators or bidirectional controls", t->name);
		return -1;
	}
	last = strrchr(s, '/');
	last = last ? last + 1 : s;
	if (!strcmp(last, "") || !strcmp(last, ".") || !strcmp(last, "..")) {
		dmd_parse_error(parse, dmd_parse_loc(node), "'file' of tensor "
			"'%s' names a directory (its last component is empty, "
			"'.' or '..'), not a .npy file", t->name);
		return -1;
	}
	return 0;
}

/* Read scalar "node" as one of "names" (n of them, each standing for its
 * index); "what" and "expected" make the message otherwise. */
static int dmd_parse_enum(struct dmd_parse *parse, yaml_node_t *node,
	const char *const *names, int n, const char *what,
	const struct dmd_tensor *t, const char *expected)
{
	char buf[DMD_PARSE_SHOW_SIZE];
	int i;

	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE,
			"for '%s' of tensor '%s'", what, t->name) < 0)
		return -1;
	for (i = 0; i < n; ++i)
		if (dmd_parse_is(node, names[i]))
			return i;
	dmd_parse_error(parse, dmd_parse_loc(node), "unknown %s '%s' for "
		"tensor '%s' (expected %s)", what,
		dmd_parse_show_node(node, buf), t->name, expected);
	return -1;
}

/* Check the automatic layout of tensor "t" (its keys in "keys"), and
 * make the layout of an intermediate without 'dist' automatic (spec 1.2:
 * 'dist: auto', or no 'dist', lets the compiler choose the layout of a
 * tensor with neither 'file' nor 'init'; the layout of data that comes
 * in and goes out is the user's).  An input or output without 'dist'
 * stays replicated, as in v1. */
static int dmd_parse_dist_auto(struct dmd_parse *parse, struct dmd_tensor *t,
	const struct dmd_parse_key *keys)
{
	static const int other[] = { DMD_TK_SPLIT, DMD_TK_OFFSETS,
		DMD_TK_PLACE, DMD_TK_PARTIAL, DMD_TK_CYCLIC, DMD_TK_AXE };
	int i;

	if (!t->dist_auto) {
		for (i = 0; i < (int) (sizeof(other) / sizeof(other[0])); ++i)
			if (keys[other[i]].key)
				return 0;
		if (keys[DMD_TK_DIST].key || t->file || t->init)
			return 0;
		t->dist_auto = 1;
		t->dist_auto_loc = t->loc;
		return 0;
	}
	if (t->file || t->init) {
		dmd_parse_error(parse, t->dist_auto_loc, "'dist: auto' is "
			"allowed only on intermediates: tensor '%s' has '%s' "
			"(the layout of data that comes in or goes out is "
			"the user's)", t->name, t->file ? "file" : "init");
		return -1;
	}
	for (i = 0; i < (int) (sizeof(other) / sizeof(other[0])); ++i) {
		if (!keys[other[i]].key)
			continue;
		dmd_parse_error(parse, dmd_parse_loc(keys[other[i]].key),
			"tensor '%s': '%s' cannot be used with 'dist: auto' "
			"(the compiler chooses the whole layout)", t->name,
			keys[other[i]].name);
		return -1;
	}
	return 0;
}

/* Read tensor "t" from mapping "map" (its name and location are set);
 * set *dtype_loc to the location of its dtype, if it has one. */
static int dmd_parse_tensor(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *map, struct dmd_loc *dtype_loc)
{
	static const char *const dtypes[] = { "f32", "f64" };
	static const char *const splits[] = { "block", "balanced" };
	static const char *const inits[] = { "zeros", "ones", "random" };
	struct dmd_parse_key keys[DMD_TK_N] = {
		{ .name = "shape" }, { .name = "dtype" }, { .name = "dist" },
		{ .name = "split" }, { .name = "offsets" }, { .name = "place" },
		{ .name = "file" }, { .name = "init" }, { .name = "seed" },
		{ .name = "partial" }, { .name = "cyclic" }, { .name = "axe" },
	};
	struct dmd_parse_key *layout[] = { &keys[DMD_TK_DIST],
		&keys[DMD_TK_SPLIT], &keys[DMD_TK_OFFSETS],
		&keys[DMD_TK_CYCLIC], &keys[DMD_TK_PLACE], NULL };
	char *where = NULL;
	yaml_node_t *v;
	int i, r;

	if (dmd_parse_expect(parse, map, YAML_MAPPING_NODE,
			"for tensor '%s'", t->name) < 0)
		return -1;
	if (asprintf(&where, "in tensor '%s'", t->name) < 0) {
		dmd_parse_error(parse, t->loc, "out of memory");
		return -1;
	}
	r = dmd_parse_keys(parse, map, keys, DMD_TK_N, where);
	free(where);
	if (r < 0)
		return -1;
	if (!keys[DMD_TK_SHAPE].key) {
		dmd_parse_error(parse, t->loc, "missing key 'shape' in tensor "
			"'%s'", t->name);
		return -1;
	}
	v = keys[DMD_TK_SHAPE].value;
	if (dmd_parse_is_null(v)) {
		dmd_parse_error(parse, dmd_parse_loc(keys[DMD_TK_SHAPE].key),
			"expected a sequence for 'shape' of tensor '%s'",
			t->name);
		return -1;
	}
	for (i = 0; i < DMD_TK_N; ++i) {
		if (!keys[i].value || !dmd_parse_is_null(keys[i].value))
			continue;
		dmd_parse_error(parse, dmd_parse_loc(keys[i].key), "'%s' of "
			"tensor '%s' has no value (give one or leave the key "
			"out)", keys[i].name, t->name);
		return -1;
	}
	if (dmd_parse_shape(parse, t, v) < 0)
		return -1;
	if ((v = keys[DMD_TK_DTYPE].value)) {
		r = dmd_parse_enum(parse, v, dtypes, 2, "dtype", t,
			"f32 or f64");
		if (r < 0)
			return -1;
		t->dtype = r;
		*dtype_loc = dmd_parse_loc(v);
	}
	t->view = -2;
	if ((v = keys[DMD_TK_AXE].value) && dmd_parse_axe(parse, t,
			keys[DMD_TK_AXE].key, v, layout) < 0)
		return -1;
	if ((v = keys[DMD_TK_DIST].value) && v->type == YAML_SCALAR_NODE &&
	    dmd_parse_is(v, "auto")) {
		t->dist_auto = 1;
		t->dist_auto_loc = dmd_parse_loc(v);
	} else if (v && dmd_parse_dist(parse, t, v) < 0)
		return -1;
	for (i = 0; i < t->ndim; ++i)
		if (dmd_parse_frame_expr(parse, t, t->dist[i]) < 0)
			return -1;
	if ((v = keys[DMD_TK_SPLIT].value)) {
		r = dmd_parse_enum(parse, v, splits, 2, "split", t,
			"block or balanced");
		if (r < 0)
			return -1;
		t->split = r;
	}
	if ((v = keys[DMD_TK_OFFSETS].value) &&
	    dmd_parse_offsets(parse, t, v) < 0)
		return -1;
	if (v && t->split == DMD_SPLIT_BALANCED &&
	    dmd_parse_all_offsets(t)) {
		dmd_parse_error(parse, dmd_parse_loc(keys[DMD_TK_OFFSETS].key),
			"tensor '%s': 'offsets' and 'split: balanced' cannot be "
			"used together ('split' is not supported on a dimension "
			"with offsets, and every split dimension has them)",
			t->name);
		return -1;
	}
	if ((v = keys[DMD_TK_CYCLIC].value) &&
	    dmd_parse_cyclic(parse, t, v) < 0)
		return -1;
	if (v && t->split == DMD_SPLIT_BALANCED) {
		for (i = 0; i < t->ndim && !(t->cyclic[i] && t->dist[i]); ++i)
			;
		if (i < t->ndim) {
			dmd_parse_error(parse, t->cyclic_loc[i], "tensor '%s': "
				"'split: balanced' and 'cyclic' cannot be used "
				"together on dimension %d (a dimension is cut "
				"by one or the other)", t->name, i);
			return -1;
		}
	}
	if ((v = keys[DMD_TK_PLACE].value) && dmd_parse_place(parse, t, v) < 0)
		return -1;
	t->layout_loc = keys[DMD_TK_DIST].key ?
		dmd_parse_loc(keys[DMD_TK_DIST].key) :
		keys[DMD_TK_AXE].key ? dmd_parse_loc(keys[DMD_TK_AXE].key) :
		keys[DMD_TK_PLACE].key ?
		dmd_parse_loc(keys[DMD_TK_PLACE].key) : t->loc;
	if ((v = keys[DMD_TK_FILE].value)) {
		if (dmd_parse_expect(parse, v, YAML_SCALAR_NODE,
				"for 'file' of tensor '%s'", t->name) < 0)
			return -1;
		if (dmd_parse_file(parse, t, v) < 0)
			return -1;
		t->file = dmd_parse_strdup(parse, v);
		if (!t->file)
			return -1;
		t->file_loc = dmd_parse_loc(v);
	}
	if ((v = keys[DMD_TK_INIT].value)) {
		if (t->file) {
			dmd_parse_error(parse,
				dmd_parse_loc(keys[DMD_TK_INIT].key),
				"tensor '%s' has both 'file' and 'init'",
				t->name);
			return -1;
		}
		r = dmd_parse_enum(parse, v, inits, 3, "init", t,
			"zeros, ones or random");
		if (r < 0)
			return -1;
		t->init = DMD_INIT_ZEROS + r;
	}
	if ((v = keys[DMD_TK_SEED].value) && dmd_parse_seed(parse, t, v) < 0)
		return -1;
	if ((v = keys[DMD_TK_PARTIAL].value) &&
	    dmd_parse_partial(parse, t, v) < 0)
		return -1;
	if (dmd_parse_dist_auto(parse, t, keys) < 0)
		return -1;
	if (t->view == -2)
		t->view = -1;
	return 0;
}

/* Read the tensors (after the mesh), and check that they share a dtype.
 * A tensor without a dtype takes that of the others (f64 if none has
 * one). */
static int dmd_parse_tensors(struct dmd_parse *parse, yaml_node_t *map)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	struct dmd_loc *dtype_loc;	/* line 0: no dtype */
	int n, i, first = -1, r = -1;

	if (dmd_parse_expect(parse, map, YAML_MAPPING_NODE,
			"for 'tensors'") < 0)
		return -1;
	n = map->data.mapping.pairs.top - map->data.mapping.pairs.start;
	if (n == 0) {
		dmd_parse_error(parse, dmd_parse_loc(map), "no tensors are "
			"declared");
		return -1;
	}
	if (n > DMD_MAX_TENSORS) {
		yaml_node_t *key = dmd_parse_node(parse,
			map->data.mapping.pairs.start[DMD_MAX_TENSORS].key);

		dmd_parse_error(parse, dmd_parse_loc(key ? key : map), "more "
			"than %d tensors are declared", DMD_MAX_TENSORS);
		return -1;
	}
	job->tensors = calloc(n, sizeof(*job->tensors));
	dtype_loc = calloc(n, sizeof(*dtype_loc));
	job->tensor_names = dmd_names_alloc();
	if (!job->tensors || !dtype_loc || !job->tensor_names) {
		dmd_parse_error(parse, dmd_parse_loc(map), "out of memory");
		goto done;
	}
	for (pair = map->data.mapping.pairs.start, i = 0;
	     pair < map->data.mapping.pairs.top; ++pair, ++i) {
		yaml_node_t *key = dmd_parse_node(parse, pair->key);
		yaml_node_t *value = dmd_parse_node(parse, pair->value);
		struct dmd_tensor *t = &job->tensors[i];

		if (!key || !value ||
		    dmd_parse_expect(parse, key, YAML_SCALAR_NODE,
				"as a tensor name") < 0)
			goto done;
		if (dmd_parse_name(parse, key, "tensor name") < 0)
			goto done;
		if (dmd_job_find_tensor(job, dmd_parse_str(key)) >= 0) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"tensor '%s'", dmd_parse_str(key));
			goto done;
		}
		t->name = dmd_parse_strdup(parse, key);
		job->n_tensors = i + 1;
		if (!t->name)
			goto done;
		if (dmd_names_add(job->tensor_names, t->name, i) < 0) {
			dmd_parse_error(parse, dmd_parse_loc(key),
				"out of memory");
			goto done;
		}
		t->loc = dmd_parse_loc(key);
		if (dmd_parse_tensor(parse, t, value, &dtype_loc[i]) < 0)
			goto done;
		if (dtype_loc[i].line == 0)
			continue;
		if (first < 0) {
			first = i;
			job->dtype = t->dtype;
		} else if (t->dtype != job->dtype) {
			static const char *const names[] = { "f32", "f64" };

			dmd_parse_error(parse, dtype_loc[i], "tensor "
				"'%s' has dtype %s but tensor '%s' has %s (all "
				"tensors share one dtype)", t->name,
				names[t->dtype], job->tensors[first].name,
				names[job->dtype]);
			goto done;
		}
	}
	if (first < 0)
		job->dtype = DMD_F64;
	for (i = 0; i < n; ++i) {
		job->tensors[i].dtype = job->dtype;
		if (dmd_parse_check_bytes(parse, &job->tensors[i]) < 0)
			goto done;
	}
	r = 0;
done:
	free(dtype_loc);
	return r;
}

/* ---------------------------------------------------------------------
 * compute and schedule
 */

/* Read the statement "node" of compute step "step" (after the
 * tensors). */
static int dmd_parse_compute(struct dmd_parse *parse, yaml_node_t *node,
	struct dmd_step *step)
{
	struct dmd_src src;
	int r;

	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE,
			"for 'compute'") < 0)
		return -1;
	step->type = DMD_STEP_COMPUTE;
	step->compute_loc = dmd_parse_loc(node);
	if (dmd_parse_with_src(parse, node, "compute", &src) < 0)
		return -1;
	r = dmd_expr_parse_stmt(parse->job, &src, step);
	free((void *) src.locs);
	return r;
}

/* Read the schedule of compute step "step": a list of commands. */
static int dmd_parse_schedule(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *list, struct dmd_step *step)
{
	struct dmd_job *job = parse->job;
	yaml_node_item_t *item;
	int n, i;

	step->schedule_loc = dmd_parse_loc(key);
	if (dmd_parse_is_null(list))
		return 0;
	if (list->type == YAML_SCALAR_NODE && dmd_parse_is(list, "auto")) {
		step->schedule_auto = 1;
		return 0;
	}
	if (dmd_parse_expect(parse, list, YAML_SEQUENCE_NODE,
			"for 'schedule'") < 0)
		return -1;
	n = list->data.sequence.items.top - list->data.sequence.items.start;
	if (n == 0)
		return 0;
	step->cmds = calloc(n, sizeof(*step->cmds));
	if (!step->cmds) {
		dmd_parse_error(parse, dmd_parse_loc(list), "out of memory");
		return -1;
	}
	step->n_cmds = n;
	for (item = list->data.sequence.items.start, i = 0;
	     item < list->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *node = dmd_parse_node(parse, *item);
		struct dmd_src src;
		int r;

		if (!node || dmd_parse_expect(parse, node, YAML_SCALAR_NODE,
				"for item %d of 'schedule'", i + 1) < 0)
			return -1;
		if (++parse->n_cmds > DMD_MAX_CMDS) {
			dmd_parse_error(parse, dmd_parse_loc(node), "more than "
				"%d schedule commands in the job",
				DMD_MAX_CMDS);
			return -1;
		}
		if (dmd_parse_with_src(parse, node, "schedule", &src) < 0)
			return -1;
		r = dmd_expr_parse_cmd(job, &src, &step->cmds[i]);
		free((void *) src.locs);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * program (spec 1.5)
 */

static int dmd_parse_steps(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *list, struct dmd_step **steps, int *n_steps);

/* Read one step, mapping "map", into "step": either "compute" with an
 * optional "schedule", or "repeat: N" with "steps". */
static int dmd_parse_step(struct dmd_parse *parse, yaml_node_t *map,
	struct dmd_step *step)
{
	enum { K_COMPUTE, K_SCHEDULE, K_REPEAT, K_STEPS, K_N };
	struct dmd_parse_key keys[K_N] = {
		{ .name = "compute" }, { .name = "schedule" },
		{ .name = "repeat" }, { .name = "steps" },
	};
	char buf[DMD_PARSE_SHOW_SIZE];
	long runs = parse->runs;
	int r;

	if (++parse->n_steps > DMD_MAX_STEPS) {
		dmd_parse_error(parse, dmd_parse_loc(map), "the program has "
			"more than %d steps", DMD_MAX_STEPS);
		return -1;
	}
	if (dmd_parse_expect(parse, map, YAML_MAPPING_NODE,
			"for a step of 'program'") < 0 ||
	    dmd_parse_keys(parse, map, keys, K_N, "in a step") < 0)
		return -1;
	step->loc = dmd_parse_loc(map);
	if (keys[K_COMPUTE].key && keys[K_REPEAT].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_REPEAT].key),
			"a step has either 'compute' or 'repeat', not both");
		return -1;
	}
	if (keys[K_COMPUTE].key) {
		if (keys[K_STEPS].key) {
			dmd_parse_error(parse, dmd_parse_loc(keys[K_STEPS].key),
				"'steps' belongs to a 'repeat' step");
			return -1;
		}
		if (dmd_parse_compute(parse, keys[K_COMPUTE].value, step) < 0)
			return -1;
		if (keys[K_SCHEDULE].key &&
		    dmd_parse_schedule(parse, keys[K_SCHEDULE].key,
				keys[K_SCHEDULE].value, step) < 0)
			return -1;
		return 0;
	}
	if (!keys[K_REPEAT].key) {
		dmd_parse_error(parse, step->loc,
			"a step needs 'compute' or 'repeat'");
		return -1;
	}
	step->type = DMD_STEP_REPEAT;
	if (keys[K_SCHEDULE].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_SCHEDULE].key),
			"'schedule' belongs to a 'compute' step");
		return -1;
	}
	step->repeat_loc = dmd_parse_loc(keys[K_REPEAT].value);
	if (keys[K_REPEAT].value->type != YAML_SCALAR_NODE)
		goto not_positive;
	if (dmd_parse_long(parse, keys[K_REPEAT].value, &step->n_repeat,
			"'repeat'") < 0)
		return -1;
	if (step->n_repeat < 1)
		goto not_positive;
	if (!keys[K_STEPS].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_REPEAT].key),
			"missing key 'steps' in a 'repeat' step");
		return -1;
	}
	if (__builtin_mul_overflow(runs, step->n_repeat, &parse->runs) ||
	    parse->runs > DMD_MAX_RUNS) {
		dmd_parse_error(parse, step->repeat_loc, "with 'repeat: %ld' "
			"the steps inside would run more than %ld times",
			step->n_repeat, DMD_MAX_RUNS);
		return -1;
	}
	r = dmd_parse_steps(parse, keys[K_STEPS].key,
		keys[K_STEPS].value, &step->steps, &step->n_steps);
	parse->runs = runs;
	return r;
not_positive:
	dmd_parse_error(parse, step->repeat_loc, "'repeat' must be a positive "
		"integer (a number of repetitions), got '%s'",
		keys[K_REPEAT].value->type == YAML_SCALAR_NODE ?
		dmd_parse_show_node(keys[K_REPEAT].value, buf) : "a collection");
	return -1;
}

/* Read the list of steps "list" (the value of "key": 'program' or
 * 'steps') into a new array *steps of *n_steps entries. */
static int dmd_parse_steps(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *list, struct dmd_step **steps, int *n_steps)
{
	yaml_node_item_t *item;
	const char *name = dmd_parse_str(key);
	int n, i;

	if (dmd_parse_is_null(list) ||
	    (list->type == YAML_SEQUENCE_NODE &&
	     list->data.sequence.items.top == list->data.sequence.items.start)) {
		dmd_parse_error(parse, dmd_parse_loc(key), "'%s' has no steps",
			name);
		return -1;
	}
	if (dmd_parse_expect(parse, list, YAML_SEQUENCE_NODE,
			"for '%s'", name) < 0)
		return -1;
	n = list->data.sequence.items.top - list->data.sequence.items.start;
	*steps = calloc(n, sizeof(**steps));
	if (!*steps) {
		dmd_parse_error(parse, dmd_parse_loc(list), "out of memory");
		return -1;
	}
	*n_steps = n;
	for (item = list->data.sequence.items.start, i = 0;
	     item < list->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *node = dmd_parse_node(parse, *item);

		if (!node || dmd_parse_step(parse, node, &(*steps)[i]) < 0)
			return -1;
	}
	return 0;
}

/* Read "program" (the value of "key"). */
static int dmd_parse_program(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *list)
{
	struct dmd_job *job = parse->job;

	job->is_program = 1;
	job->program_loc = dmd_parse_loc(key);
	if (dmd_parse_steps(parse, key, list, &job->steps, &job->n_steps) < 0)
		return -1;
	return dmd_job_check_program(job);
}

/* Read a v1 job's "compute" and "schedule" (NULL keys if absent) as a
 * program of one step (spec 1.5). */
static int dmd_parse_v1(struct dmd_parse *parse, yaml_node_t *compute,
	yaml_node_t *key, yaml_node_t *schedule)
{
	struct dmd_job *job = parse->job;

	job->steps = calloc(1, sizeof(*job->steps));
	if (!job->steps) {
		dmd_parse_error(parse, dmd_parse_loc(compute), "out of memory");
		return -1;
	}
	job->n_steps = 1;
	job->steps[0].loc = dmd_parse_loc(compute);
	if (dmd_parse_compute(parse, compute, &job->steps[0]) < 0)
		return -1;
	if (key && dmd_parse_schedule(parse, key, schedule,
			&job->steps[0]) < 0)
		return -1;
	return dmd_job_check_program(job);
}

/* ---------------------------------------------------------------------
 * The top level
 */

/* Read the top-level mapping "root". */
static int dmd_parse_top(struct dmd_parse *parse, yaml_node_t *root)
{
	enum { K_NAME, K_MESH, K_TENSORS, K_COMPUTE, K_SCHEDULE, K_PROGRAM,
		K_N };
	struct dmd_job *job = parse->job;
	struct dmd_parse_key keys[K_N] = {
		{ .name = "name" }, { .name = "mesh" }, { .name = "tensors" },
		{ .name = "compute" }, { .name = "schedule" },
		{ .name = "program" },
	};
	int i;

	if (!root || dmd_parse_is_null(root)) {
		dmd_parse_error(parse, root ? dmd_parse_loc(root) :
			(struct dmd_loc) { 1, 1 }, "the job file is empty");
		return -1;
	}
	if (dmd_parse_expect(parse, root, YAML_MAPPING_NODE,
			"at top level") < 0 ||
	    dmd_parse_keys(parse, root, keys, K_N, "at top level") < 0)
		return -1;
	if (keys[K_COMPUTE].key && keys[K_PROGRAM].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_PROGRAM].key),
			"a job has either 'compute' or 'program', not both");
		return -1;
	}
	if (keys[K_PROGRAM].key && keys[K_SCHEDULE].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_SCHEDULE].key),
			"with 'program', each step has its own 'schedule'");
		return -1;
	}
	for (i = 0; i < K_COMPUTE; ++i)
		if (!keys[i].key)
			return dmd_parse_missing(parse, dmd_parse_loc(root),
				keys[i].name, "at top level");
	if (!keys[K_COMPUTE].key && !keys[K_PROGRAM].key)
		return dmd_parse_missing(parse, dmd_parse_loc(root),
			"compute' or 'program", "at top level");
	if (dmd_parse_expect(parse, keys[K_NAME].value, YAML_SCALAR_NODE,
			"for 'name'") < 0)
		return -1;
	if (dmd_parse_name(parse, keys[K_NAME].value, "job name") < 0)
		return -1;
	job->name = dmd_parse_strdup(parse, keys[K_NAME].value);
	if (!job->name)
		return -1;
	job->name_loc = dmd_parse_loc(keys[K_NAME].value);
	if (dmd_parse_mesh(parse, keys[K_MESH].key, keys[K_MESH].value) < 0 ||
	    dmd_parse_tensors(parse, keys[K_TENSORS].value) < 0)
		return -1;
	if (keys[K_PROGRAM].key)
		return dmd_parse_program(parse, keys[K_PROGRAM].key,
			keys[K_PROGRAM].value);
	return dmd_parse_v1(parse, keys[K_COMPUTE].value,
		keys[K_SCHEDULE].key, keys[K_SCHEDULE].value);
}

/* The location of byte "offset" of the text (for libyaml's reader
 * errors, which give an offset rather than a mark). */
static struct dmd_loc dmd_parse_offset_loc(struct dmd_parse *parse,
	size_t offset)
{
	struct dmd_loc loc = { 1, 1 };
	size_t l = 0, p;

	if (!parse->utf8 || parse->n_line == 0)
		return loc;
	while (l + 1 < parse->n_line && parse->line[l + 1] <= offset)
		++l;
	loc.line = l + 1;
	for (p = parse->line[l]; p < offset && p < parse->len; ) {
		p += dmd_parse_utf8_len(parse->text[p]);
		loc.col++;
	}
	return loc;
}

/* Report the error of "parser". */
static void dmd_parse_yaml_error(struct dmd_parse *parse,
	yaml_parser_t *parser)
{
	struct dmd_loc loc;

	if (parser->error == YAML_MEMORY_ERROR) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"out of memory");
		return;
	}
	if (parser->error == YAML_READER_ERROR)
		loc = dmd_parse_offset_loc(parse, parser->problem_offset);
	else {
		loc.line = parser->problem_mark.line + 1;
		loc.col = parser->problem_mark.column + 1;
	}
	dmd_parse_error(parse, loc, "YAML syntax: %s",
		parser->problem ? parser->problem : "error");
}

/* An open collection during dmd_parse_scan. */
struct dmd_parse_frame {
	size_t start;			/* the weight before it */
	int height;			/* of its nesting, itself included */
	char *anchor;			/* owned; NULL if none */
};

/* An anchor defined in the document being scanned, with the weight and
 * height of its node. */
struct dmd_parse_anchor {
	char *name;			/* owned */
	size_t weight;
	int height;
};

/* The state of dmd_parse_scan.  The weight of the document with aliases
 * expanded is "weight": 1 per node, plus its length for a scalar. */
struct dmd_parse_scan {
	struct dmd_parse *parse;	/* not owned */
	int depth;			/* open collections */
	struct dmd_parse_frame frame[DMD_MAX_DEPTH];
	int n_anchor;
	struct dmd_parse_anchor anchor[DMD_MAX_ANCHORS];
	size_t weight;
};

/* The location of libyaml mark "mark". */
static struct dmd_loc dmd_parse_mark_loc(yaml_mark_t mark)
{
	struct dmd_loc loc = { (int) mark.line + 1, (int) mark.column + 1 };
	return loc;
}

/* Release what "scan" owns. */
static void dmd_parse_scan_clear(struct dmd_parse_scan *scan)
{
	int i;

	for (i = 0; i < scan->depth; ++i)
		free(scan->frame[i].anchor);
	for (i = 0; i < scan->n_anchor; ++i)
		free(scan->anchor[i].name);
	scan->depth = scan->n_anchor = 0;
}

/* Add "weight" to the weight of the document, at "mark". */
static int dmd_parse_scan_weigh(struct dmd_parse_scan *scan, size_t weight,
	yaml_mark_t mark)
{
	if (weight <= DMD_MAX_EXPANDED &&
	    scan->weight + weight <= DMD_MAX_EXPANDED) {
		scan->weight += weight;
		return 0;
	}
	dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark), "the job is "
		"too large with its aliases expanded (more than %d nodes and "
		"bytes of scalars)", DMD_MAX_EXPANDED);
	return -1;
}

/* Record a node of "height" that ends at the current event: in the
 * height of the collection around it, and under "anchor" (not taken) if
 * it has one, with "weight". */
static int dmd_parse_scan_node(struct dmd_parse_scan *scan, int height,
	size_t weight, const yaml_char_t *anchor, yaml_mark_t mark)
{
	struct dmd_parse_frame *up;
	struct dmd_parse_anchor *a;
	int i;

	if (scan->depth > 0) {
		up = &scan->frame[scan->depth - 1];
		if (up->height < height + 1)
			up->height = height + 1;
	}
	if (!anchor)
		return 0;
	for (i = 0; i < scan->n_anchor; ++i)
		if (!strcmp(scan->anchor[i].name, (const char *) anchor))
			break;
	if (i >= DMD_MAX_ANCHORS) {
		dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark), "more "
			"than %d anchors in the job file", DMD_MAX_ANCHORS);
		return -1;
	}
	a = &scan->anchor[i];
	if (i >= scan->n_anchor) {
		a->name = strdup((const char *) anchor);
		if (!a->name) {
			dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark),
				"out of memory");
			return -1;
		}
		scan->n_anchor++;
	}
	a->weight = weight;
	a->height = height;
	return 0;
}

/* Check that a collection can open at "mark" (not too deep), and open it
 * with "anchor" (not taken). */
static int dmd_parse_scan_open(struct dmd_parse_scan *scan,
	const yaml_char_t *anchor, yaml_mark_t mark)
{
	struct dmd_parse_frame *f;

	if (scan->depth >= DMD_MAX_DEPTH) {
		dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark), "YAML "
			"collections are nested more than %d deep",
			DMD_MAX_DEPTH);
		return -1;
	}
	f = &scan->frame[scan->depth];
	f->start = scan->weight;
	f->height = 1;
	f->anchor = NULL;
	if (anchor && !(f->anchor = strdup((const char *) anchor))) {
		dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark),
			"out of memory");
		return -1;
	}
	scan->depth++;
	return dmd_parse_scan_weigh(scan, 1, mark);
}

/* Close the innermost collection (at "mark"). */
static int dmd_parse_scan_close(struct dmd_parse_scan *scan,
	yaml_mark_t mark)
{
	struct dmd_parse_frame f;
	int r;

	if (scan->depth == 0)
		return 0;
	f = scan->frame[--scan->depth];
	r = dmd_parse_scan_node(scan, f.height, scan->weight - f.start,
		(yaml_char_t *) f.anchor, mark);
	free(f.anchor);
	return r;
}

/* An alias to "name" at "mark": it must refer to a complete node; the
 * node is counted again, as deep as it is here. */
static int dmd_parse_scan_alias(struct dmd_parse_scan *scan,
	const yaml_char_t *name, yaml_mark_t mark)
{
	char buf[DMD_PARSE_SHOW_SIZE];
	int i;

	for (i = 0; i < scan->depth; ++i) {
		if (!scan->frame[i].anchor ||
		    strcmp(scan->frame[i].anchor, (const char *) name))
			continue;
		dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark), "alias "
			"'*%s' refers to a node that contains it",
			dmd_parse_show((const char *) name,
				strlen((const char *) name), buf, sizeof(buf)));
		return -1;
	}
	for (i = 0; i < scan->n_anchor; ++i)
		if (!strcmp(scan->anchor[i].name, (const char *) name))
			break;
	if (i >= scan->n_anchor)	/* undefined: libyaml says so */
		return dmd_parse_scan_weigh(scan, 1, mark);
	if (scan->depth + scan->anchor[i].height > DMD_MAX_DEPTH) {
		dmd_parse_error(scan->parse, dmd_parse_mark_loc(mark), "YAML "
			"collections are nested more than %d deep (with "
			"alias '*%s' expanded)", DMD_MAX_DEPTH,
			dmd_parse_show((const char *) name,
				strlen((const char *) name), buf, sizeof(buf)));
		return -1;
	}
	if (dmd_parse_scan_weigh(scan, scan->anchor[i].weight, mark) < 0)
		return -1;
	return dmd_parse_scan_node(scan, scan->anchor[i].height, 0, NULL,
		mark);
}

/* Handle "event" of the scan; set *done at the end of the stream. */
static int dmd_parse_scan_event(struct dmd_parse_scan *scan,
	yaml_event_t *event, int *done)
{
	size_t len;
	int i;

	switch (event->type) {
	case YAML_STREAM_END_EVENT:
		*done = 1;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		for (i = 0; i < scan->n_anchor; ++i)
			free(scan->anchor[i].name);
		scan->n_anchor = 0;
		return 0;
	case YAML_SCALAR_EVENT:
		len = event->data.scalar.length;
		if (dmd_parse_scan_weigh(scan, len < DMD_MAX_EXPANDED ?
				1 + len : DMD_MAX_EXPANDED + 1,
				event->start_mark) < 0)
			return -1;
		return dmd_parse_scan_node(scan, 0, 1 + len,
			event->data.scalar.anchor, event->start_mark);
	case YAML_ALIAS_EVENT:
		return dmd_parse_scan_alias(scan, event->data.alias.anchor,
			event->start_mark);
	case YAML_SEQUENCE_START_EVENT:
		return dmd_parse_scan_open(scan,
			event->data.sequence_start.anchor, event->start_mark);
	case YAML_MAPPING_START_EVENT:
		return dmd_parse_scan_open(scan,
			event->data.mapping_start.anchor, event->start_mark);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return dmd_parse_scan_close(scan, event->start_mark);
	default:
		return 0;
	}
}

/* Walk the events of the text (every document) and refuse what would
 * make loading it or walking it costly: collections nested more than
 * DMD_MAX_DEPTH deep, more than DMD_MAX_ANCHORS anchors, an alias inside
 * the node it refers to (a loop), a weight with aliases expanded over
 * DMD_MAX_EXPANDED.  Syntax errors are reported here, as the loader would
 * report them. */
static int dmd_parse_scan(struct dmd_parse *parse)
{
	yaml_parser_t parser;
	yaml_event_t event;
	struct dmd_parse_scan *scan;
	int done = 0, r = -1;

	scan = calloc(1, sizeof(*scan));
	if (!scan || !yaml_parser_initialize(&parser)) {
		free(scan);
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"out of memory");
		return -1;
	}
	scan->parse = parse;
	yaml_parser_set_input_string(&parser,
		(const unsigned char *) parse->text, parse->len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &event)) {
			dmd_parse_yaml_error(parse, &parser);
			r = -1;
			goto error;
		}
		r = dmd_parse_scan_event(scan, &event, &done);
		yaml_event_delete(&event);
		if (r < 0)
			goto error;
	}
	r = 0;
error:
	dmd_parse_scan_clear(scan);
	free(scan);
	yaml_parser_delete(&parser);
	return r < 0 ? -1 : 0;
}

/* Load the text as one YAML document into parse->doc. */
static int dmd_parse_load(struct dmd_parse *parse)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	yaml_node_t *root;
	int r = -1;

	if (!yaml_parser_initialize(&parser)) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser,
		(const unsigned char *) parse->text, parse->len);
	if (!yaml_parser_load(&parser, &parse->doc)) {
		dmd_parse_yaml_error(parse, &parser);
		goto done;
	}
	parse->have_doc = 1;
	if (yaml_document_get_root_node(&parse->doc)) {
		if (!yaml_parser_load(&parser, &extra)) {
			dmd_parse_yaml_error(parse, &parser);
			goto done;
		}
		root = yaml_document_get_root_node(&extra);
		if (root)
			dmd_parse_error(parse, dmd_parse_loc(root), "more than "
				"one YAML document in the job file");
		yaml_document_delete(&extra);
		if (root)
			goto done;
	}
	r = 0;
done:
	yaml_parser_delete(&parser);
	return r;
}

/* Report "the job file is ..." for a file of "size" bytes over the
 * limit ("more" if it has at least that many). */
static void dmd_parse_too_large(struct dmd_job *job, long long size, int more)
{
	dmd_job_error(job, (struct dmd_loc) { 0, 0 }, "the job file is %s%lld "
		"bytes; at most %d are accepted", more ? "more than " : "",
		size, DMD_MAX_JOB_BYTES);
}

/* Read the job file "path" (a regular file of at most DMD_MAX_JOB_BYTES
 * bytes) into *text (owned by the caller) and *len.  "job" names it in
 * messages.  The file is opened without blocking (a FIFO without writer
 * would block) and checked before any byte is read. */
static int dmd_parse_read_file(struct dmd_job *job, const char *path,
	char **text, size_t *len)
{
	struct stat st;
	struct dmd_loc none = { 0, 0 };
	size_t cap = DMD_MAX_JOB_BYTES + 1, n = 0;
	ssize_t k;
	int fd;

	*text = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		dmd_job_error(job, none, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		dmd_job_error(job, none, "cannot read: %s", strerror(errno));
		goto error;
	}
	if (!S_ISREG(st.st_mode)) {
		dmd_job_error(job, none, "not a regular file");
		goto error;
	}
	if (st.st_size > DMD_MAX_JOB_BYTES) {
		dmd_parse_too_large(job, st.st_size, 0);
		goto error;
	}
	if ((size_t) st.st_size + 1 < cap)
		cap = st.st_size + 1;
	*text = malloc(cap);
	if (!*text) {
		dmd_job_error(job, none, "out of memory");
		goto error;
	}
	for (;;) {
		if (n == cap) {
			char *bigger;

			if (cap > DMD_MAX_JOB_BYTES) {
				dmd_parse_too_large(job, DMD_MAX_JOB_BYTES, 1);
				goto error;
			}
			cap = 2 * cap < DMD_MAX_JOB_BYTES + 1 ? 2 * cap :
				DMD_MAX_JOB_BYTES + 1;
			bigger = realloc(*text, cap);
			if (!bigger) {
				dmd_job_error(job, none, "out of memory");
				goto error;
			}
			*text = bigger;
		}
		k = read(fd, *text + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			dmd_job_error(job, none, "cannot read: %s",
				strerror(errno));
			goto error;
		}
		if (k == 0)
			break;
		n += k;
	}
	close(fd);
	*len = n;
	return 0;
error:
	free(*text);
	*text = NULL;
	close(fd);
	return -1;
}

/* Set job->dir to the absolute directory of "path". */
static int dmd_parse_dir(struct dmd_parse *parse, const char *path)
{
	char *copy = strdup(path);

	if (!copy) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"out of memory");
		return -1;
	}
	parse->job->dir = realpath(dirname(copy), NULL);
	free(copy);
	if (!parse->job->dir) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"cannot find the directory of the job: %s",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Read and validate the job held in data[0..len) as the content of the
 * job file "name".  Returns the job (owned by the caller), or NULL after
 * reporting "NAME:LINE:COL: error: ..." to "diag" (ir/dmd_diag.h). */
struct dmd_job *dmd_job_read_mem(const char *name, const char *data,
	size_t len, struct dmd_diag *diag)
{
	struct dmd_parse parse;
	struct dmd_job *job;
	int r = -1;

	memset(&parse, 0, sizeof(parse));
	job = calloc(1, sizeof(*job));
	if (job)
		job->diag = diag;
	if (!job || !(job->path = strdup(name ? name : ""))) {
		struct dmd_job named = { .diag = diag,
			.path = (char *) (name ? name : "") };

		dmd_job_error(&named, (struct dmd_loc) { 0, 0 },
			"out of memory");
		return dmd_job_free(job);
	}
	parse.job = job;
	parse.text = data;
	parse.len = len;
	parse.runs = 1;
	if (len > DMD_MAX_JOB_BYTES) {
		dmd_parse_too_large(job, len, 0);
		goto done;
	}
	if (dmd_parse_dir(&parse, job->path) < 0 ||
	    dmd_parse_lines(&parse) < 0 ||
	    dmd_parse_scan(&parse) < 0 ||
	    dmd_parse_load(&parse) < 0)
		goto done;
	r = dmd_parse_top(&parse, yaml_document_get_root_node(&parse.doc));
done:
	if (parse.have_doc)
		yaml_document_delete(&parse.doc);
	free(parse.line);
	free(parse.cp);
	if (r < 0)
		return dmd_job_free(job);
	return job;
}

/* Read and validate the job file "path".  Returns the job (owned by the
 * caller), or NULL after reporting "PATH:LINE:COL: error: ..." to
 * "diag". */
struct dmd_job *dmd_job_read(const char *path, struct dmd_diag *diag)
{
	struct dmd_job named = { .diag = diag,
		.path = (char *) (path ? path : "") };
	struct dmd_job *job;
	char *text;
	size_t len = 0;

	if (dmd_parse_read_file(&named, named.path, &text, &len) < 0)
		return NULL;
	job = dmd_job_read_mem(named.path, text, len, diag);
	free(text);
	return job;
}
