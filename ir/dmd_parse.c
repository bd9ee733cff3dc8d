/* dmd_parse.c: read a job file (spec section 1) into a struct dmd_job.
 *
 * The file is loaded with libyaml's document API and then walked by hand,
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
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "dmd_job.h"
#include "dmd_parse_private.h"

/* The state of one read. */
struct dmd_parse {
	struct dmd_job *job;		/* not owned */
	char *text;			/* owned: the bytes of the file */
	size_t len;
	size_t *line;			/* owned: byte offset of each line */
	size_t n_line;
	int utf8;			/* the marks of libyaml map to "text" */
	yaml_document_t doc;
	int have_doc;			/* "doc" needs yaml_document_delete */
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

/* Copy text[0..len) to buf for a message: control characters become '?',
 * and long text is cut with "...". */
static const char *dmd_parse_show(const char *text, size_t len, char *buf,
	size_t size)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 1 < size; ++i) {
		unsigned char c = text[i];

		if (n + 4 >= size && i + 1 < len) {
			strcpy(buf + n, "...");
			return buf;
		}
		buf[n++] = c < 0x20 || c == 0x7f ? '?' : c;
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

/* Is scalar "node" an identifier? */
static int dmd_parse_is_identifier(const yaml_node_t *node)
{
	return dmd_expr_is_identifier(dmd_parse_str(node),
		node->data.scalar.length);
}

/* Read the integer of scalar "node" ("what" names it in messages) into
 * *val.  Decimal, with an optional sign. */
static int dmd_parse_long(struct dmd_parse *parse, const yaml_node_t *node,
	long *val, const char *what)
{
	const char *s;
	size_t i = 0, n;
	long v = 0;
	int neg = 0;
	char buf[DMD_PARSE_SHOW_SIZE];

	if (dmd_parse_expect(parse, node, YAML_SCALAR_NODE, "for %s",
			what) < 0)
		return -1;
	s = dmd_parse_str(node);
	n = node->data.scalar.length;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i >= n)
		goto not_int;
	for (; i < n; ++i) {
		if (s[i] < '0' || s[i] > '9')
			goto not_int;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, neg ? -(s[i] - '0') : s[i] - '0',
					   &v)) {
			dmd_parse_error(parse, dmd_parse_loc(node),
				"integer '%s' for %s is too large",
				dmd_parse_show_node(node, buf), what);
			return -1;
		}
	}
	*val = v;
	return 0;
not_int:
	dmd_parse_error(parse, dmd_parse_loc(node),
		"expected an integer for %s, got '%s'", what,
		dmd_parse_show_node(node, buf));
	return -1;
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

/* Build the table of line starts of the text, breaking lines as libyaml
 * does (CR LF, CR, LF, NEL, LS, PS).  A UTF-16 or UTF-32 file (which
 * libyaml converts) leaves "utf8" unset: locations inside its scalars are
 * then those of the scalars. */
static int dmd_parse_lines(struct dmd_parse *parse)
{
	const unsigned char *s = (const unsigned char *) parse->text;
	size_t n = parse->len, i = 0, cap = 64;

	parse->utf8 = !(n >= 2 && ((s[0] == 0xfe && s[1] == 0xff) ||
				   (s[0] == 0xff && s[1] == 0xfe)));
	if (n >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		i = 3;
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

/* The byte offset of libyaml mark "mark" (line and column in
 * characters), or (size_t) -1 if it cannot be found. */
static size_t dmd_parse_offset(struct dmd_parse *parse, yaml_mark_t mark)
{
	size_t off, k;

	if (!parse->utf8 || mark.line >= parse->n_line)
		return (size_t) -1;
	off = parse->line[mark.line];
	for (k = 0; k < mark.column; ++k) {
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

/* Read the mesh: "axes" and "shape", of equal lengths. */
static int dmd_parse_mesh(struct dmd_parse *parse, yaml_node_t *key,
	yaml_node_t *mesh)
{
	struct dmd_job *job = parse->job;
	struct dmd_parse_key keys[] = {
		{ .name = "axes" }, { .name = "shape" },
	};
	yaml_node_t *axes, *shape;
	yaml_node_item_t *item;
	char buf[DMD_PARSE_SHOW_SIZE];
	int n, i;

	job->mesh_loc = dmd_parse_loc(key);
	if (dmd_parse_expect(parse, mesh, YAML_MAPPING_NODE,
			"for 'mesh'") < 0 ||
	    dmd_parse_keys(parse, mesh, keys, 2, "in mesh") < 0)
		return -1;
	for (i = 0; i < 2; ++i)
		if (!keys[i].key)
			return dmd_parse_missing(parse, job->mesh_loc,
				keys[i].name, "in mesh");
	axes = keys[0].value;
	shape = keys[1].value;
	if (dmd_parse_expect(parse, axes, YAML_SEQUENCE_NODE,
			"for 'axes' in mesh") < 0)
		return -1;
	n = axes->data.sequence.items.top - axes->data.sequence.items.start;
	if (n > DMD_MAX_AXES) {
		dmd_parse_error(parse, dmd_parse_loc(axes), "the mesh has %d "
			"axes, at most %d are supported", n, DMD_MAX_AXES);
		return -1;
	}
	for (item = axes->data.sequence.items.start, i = 0;
	     item < axes->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *axis = dmd_parse_node(parse, *item);

		if (!axis)
			return -1;
		if (dmd_parse_expect(parse, axis, YAML_SCALAR_NODE,
				"for a mesh axis") < 0)
			return -1;
		if (!dmd_parse_is_identifier(axis)) {
			dmd_parse_error(parse, dmd_parse_loc(axis),
				"mesh axis name '%s' is not an identifier",
				dmd_parse_show_node(axis, buf));
			return -1;
		}
		if (dmd_job_find_axis(job, dmd_parse_str(axis)) >= 0) {
			dmd_parse_error(parse, dmd_parse_loc(axis),
				"duplicate mesh axis '%s'", dmd_parse_str(axis));
			return -1;
		}
		job->axes[i] = dmd_parse_strdup(parse, axis);
		if (!job->axes[i])
			return -1;
		job->n_axes = i + 1;
	}
	if (dmd_parse_expect(parse, shape, YAML_SEQUENCE_NODE,
			"for 'shape' in mesh") < 0)
		return -1;
	i = shape->data.sequence.items.top - shape->data.sequence.items.start;
	if (i != n) {
		dmd_parse_error(parse, dmd_parse_loc(shape), "the mesh has %d "
			"ax%s but %d extent%s", n, n == 1 ? "is" : "es", i,
			i == 1 ? "" : "s");
		return -1;
	}
	job->nranks = 1;
	for (item = shape->data.sequence.items.start, i = 0;
	     item < shape->data.sequence.items.top; ++item, ++i) {
		yaml_node_t *ext = dmd_parse_node(parse, *item);

		if (!ext || dmd_parse_long(parse, ext, &job->mesh_shape[i],
				"'shape' in mesh") < 0)
			return -1;
		if (job->mesh_shape[i] < 1) {
			dmd_parse_error(parse, dmd_parse_loc(ext), "the extent "
				"of mesh axis '%s' must be >= 1, got %ld",
				job->axes[i], job->mesh_shape[i]);
			return -1;
		}
		if (__builtin_mul_overflow(job->nranks, job->mesh_shape[i],
					   &job->nranks) ||
		    job->nranks > INT_MAX) {
			dmd_parse_error(parse, dmd_parse_loc(shape), "the mesh "
				"has more than %d ranks", INT_MAX);
			return -1;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Tensors
 */

/* The keys of a tensor, in the order they are read. */
enum {
	DMD_TK_SHAPE, DMD_TK_DTYPE, DMD_TK_DIST, DMD_TK_SPLIT, DMD_TK_OFFSETS,
	DMD_TK_PLACE, DMD_TK_FILE, DMD_TK_INIT, DMD_TK_SEED, DMD_TK_PARTIAL,
	DMD_TK_N
};

/* Read the "shape" of tensor "t". */
static int dmd_parse_shape(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *shape)
{
	yaml_node_item_t *item;
	char what[64 + 32];
	int n, d;

	snprintf(what, sizeof(what), "'shape' of tensor '%.64s'", t->name);
	if (dmd_parse_expect(parse, shape, YAML_SEQUENCE_NODE, "for %s",
			what) < 0)
		return -1;
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
				job->axes[a], t->name);
			return -1;
		}
		snprintf(what, sizeof(what), "axis '%.32s' in 'place' of "
			"tensor '%.64s'", job->axes[a], t->name);
		if (dmd_parse_long(parse, value, &coord, what) < 0)
			return -1;
		if (coord < 0 || coord >= job->mesh_shape[a]) {
			dmd_parse_error(parse, dmd_parse_loc(value), "coordinate "
				"%ld is out of range for mesh axis '%s' (0 to "
				"%ld) in 'place' of tensor '%s'", coord,
				job->axes[a], job->mesh_shape[a] - 1, t->name);
			return -1;
		}
		t->place_axis[t->n_place] = a;
		t->place_coord[t->n_place++] = coord;
	}
	return 0;
}

/* Read a seed: a decimal integer in [0, 2^64). */
static int dmd_parse_seed(struct dmd_parse *parse, struct dmd_tensor *t,
	yaml_node_t *seed)
{
	const char *s;
	size_t i, n;
	unsigned long long v = 0;
	char buf[DMD_PARSE_SHOW_SIZE];

	if (dmd_parse_expect(parse, seed, YAML_SCALAR_NODE,
			"for 'seed' of tensor '%s'", t->name) < 0)
		return -1;
	s = dmd_parse_str(seed);
	n = seed->data.scalar.length;
	i = n > 0 && s[0] == '+' ? 1 : 0;
	if (i >= n)
		goto bad;
	for (; i < n; ++i) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		if (__builtin_mul_overflow(v, 10ULL, &v) ||
		    __builtin_add_overflow(v, (unsigned long long) (s[i] - '0'),
					   &v))
			goto bad;
	}
	t->seed = v;
	return 0;
bad:
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
				"'%s'", job->axes[a], t->name);
			return -1;
		}
		t->partial_axis[t->n_partial++] = a;
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
		{ .name = "partial" },
	};
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
	for (i = 0; i < DMD_TK_N; ++i)
		if (keys[i].value && dmd_parse_is_null(keys[i].value))
			keys[i].value = NULL;
	if (!keys[DMD_TK_SHAPE].key) {
		dmd_parse_error(parse, t->loc, "missing key 'shape' in tensor "
			"'%s'", t->name);
		return -1;
	}
	v = keys[DMD_TK_SHAPE].value;
	if (!v) {
		dmd_parse_error(parse, dmd_parse_loc(keys[DMD_TK_SHAPE].key),
			"expected a sequence for 'shape' of tensor '%s'",
			t->name);
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
	if ((v = keys[DMD_TK_DIST].value) && dmd_parse_dist(parse, t, v) < 0)
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
	if ((v = keys[DMD_TK_PLACE].value) && dmd_parse_place(parse, t, v) < 0)
		return -1;
	if ((v = keys[DMD_TK_FILE].value)) {
		if (dmd_parse_expect(parse, v, YAML_SCALAR_NODE,
				"for 'file' of tensor '%s'", t->name) < 0)
			return -1;
		if (v->data.scalar.length == 0 ||
		    strlen(dmd_parse_str(v)) != v->data.scalar.length) {
			dmd_parse_error(parse, dmd_parse_loc(v), "'file' of "
				"tensor '%s' is not a valid file name",
				t->name);
			return -1;
		}
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
	return 0;
}

/* Read the tensors (after the mesh), and check that they share a dtype.
 * A tensor without a dtype takes that of the others (f64 if none has
 * one). */
static int dmd_parse_tensors(struct dmd_parse *parse, yaml_node_t *map)
{
	struct dmd_job *job = parse->job;
	yaml_node_pair_t *pair;
	char buf[DMD_PARSE_SHOW_SIZE];
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
	job->tensors = calloc(n, sizeof(*job->tensors));
	dtype_loc = calloc(n, sizeof(*dtype_loc));
	if (!job->tensors || !dtype_loc) {
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
		if (!dmd_parse_is_identifier(key)) {
			dmd_parse_error(parse, dmd_parse_loc(key), "tensor name "
				"'%s' is not an identifier",
				dmd_parse_show_node(key, buf));
			goto done;
		}
		if (dmd_job_find_tensor(job, dmd_parse_str(key)) >= 0) {
			dmd_parse_error(parse, dmd_parse_loc(key), "duplicate "
				"tensor '%s'", dmd_parse_str(key));
			goto done;
		}
		t->name = dmd_parse_strdup(parse, key);
		job->n_tensors = i + 1;
		if (!t->name)
			goto done;
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
	for (i = 0; i < n; ++i)
		job->tensors[i].dtype = job->dtype;
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
	if (keys[K_REPEAT].value->type != YAML_SCALAR_NODE ||
	    dmd_parse_long(parse, keys[K_REPEAT].value, &step->n_repeat,
			"'repeat'") < 0)
		goto not_positive;
	if (step->n_repeat < 1)
		goto not_positive;
	if (!keys[K_STEPS].key) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_REPEAT].key),
			"missing key 'steps' in a 'repeat' step");
		return -1;
	}
	return dmd_parse_steps(parse, keys[K_STEPS].key,
		keys[K_STEPS].value, &step->steps, &step->n_steps);
not_positive:
	if (dmd_job_n_errors() > 0)
		return -1;
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
	char buf[DMD_PARSE_SHOW_SIZE];
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
	if (!dmd_parse_is_identifier(keys[K_NAME].value)) {
		dmd_parse_error(parse, dmd_parse_loc(keys[K_NAME].value), "job "
			"name '%s' is not an identifier",
			dmd_parse_show_node(keys[K_NAME].value, buf));
		return -1;
	}
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

/* Read the whole file "path" into parse->text. */
static int dmd_parse_read_file(struct dmd_parse *parse, const char *path)
{
	FILE *f;
	size_t cap = 4096, n;
	char *text;

	f = fopen(path, "rb");
	if (!f) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"cannot open: %s", strerror(errno));
		return -1;
	}
	parse->text = malloc(cap);
	if (!parse->text)
		goto nomem;
	for (;;) {
		n = fread(parse->text + parse->len, 1, cap - parse->len, f);
		parse->len += n;
		if (parse->len < cap)
			break;
		cap *= 2;
		text = realloc(parse->text, cap);
		if (!text)
			goto nomem;
		parse->text = text;
	}
	if (ferror(f)) {
		dmd_parse_error(parse, (struct dmd_loc) { 0, 0 },
			"cannot read: %s", strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
nomem:
	fclose(f);
	dmd_parse_error(parse, (struct dmd_loc) { 0, 0 }, "out of memory");
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

/* Read and validate the job file "path".  Returns the job (owned by the
 * caller), or NULL after printing "PATH:LINE:COL: error: ..." to
 * stderr. */
struct dmd_job *dmd_job_read(const char *path)
{
	struct dmd_parse parse;
	struct dmd_job *job;
	int r = -1;

	memset(&parse, 0, sizeof(parse));
	job = calloc(1, sizeof(*job));
	if (!job || !(job->path = strdup(path ? path : ""))) {
		fprintf(stderr, "%s: error: out of memory\n", path);
		return dmd_job_free(job);
	}
	parse.job = job;
	if (dmd_parse_read_file(&parse, path) < 0 ||
	    dmd_parse_dir(&parse, path) < 0 ||
	    dmd_parse_lines(&parse) < 0 ||
	    dmd_parse_load(&parse) < 0)
		goto done;
	r = dmd_parse_top(&parse, yaml_document_get_root_node(&parse.doc));
done:
	if (parse.have_doc)
		yaml_document_delete(&parse.doc);
	free(parse.text);
	free(parse.line);
	if (r < 0)
		return dmd_job_free(job);
	return job;
}
