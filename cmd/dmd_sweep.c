/* dmd_sweep.c: running a job over a range of values of its fields (see
 * dmd_sweep.h).
 *
 *   --set KEY=LIST          KEY: a field of the job, as mapping keys
 *                           joined by '.', each optionally followed by
 *                           [INDEX] into a list: mesh.shape, mesh.shape[1],
 *                           tensors.A.shape, tensors.A.shape[0] (any field
 *                           that holds one value or a list of values);
 *                           KEY,KEY,... sets several fields to the same
 *                           value at each point (the extent of an index
 *                           shared by several tensors).
 *                           LIST: values separated by ',' or ';' (outside
 *                           brackets): integers and ranges START:STOP or
 *                           START:STOP:STEP (STOP included) for a field
 *                           that holds an integer; [A,B,...] for a list
 *                           field; words for other fields.
 *
 * Points: the Cartesian product of the lists, the first --set varying
 * slowest.  Point N (from 1) lives in WORK/point-N/: the edited job
 * (under the job file's own name; its "file:" paths, relative to it,
 * name files in that directory), its inputs (written by the reference
 * with --ref, else copies of the input files beside the job), the
 * output of the reference (ref-inputs.txt, ref-check.txt), the build
 * directory (build/) and the statistics line of the run (stats.json).
 * The plot (--svg) has four panels: classes, bytes moved, time, GFLOP/s.  The job is edited as a YAML
 * document and written by libyaml's emitter (comments are not kept).
 *
 * A point is one process after another, each with fork/exec (no shell):
 *   python3 dmd_ref.py inputs JOB                   (--ref)
 *   distmpmd run JOB -o WORK/point-N/build --stats  (this executable)
 *   python3 dmd_ref.py check JOB                    (--ref)
 * or, with --no-run, the analysis of the job in this process.  The
 * first point that fails stops the sweep (exit status 1); the rows
 * written before it stay in the CSV, which is flushed after every row.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "cmd/dmd_ref.h"
#include "cmd/dmd_sweep.h"
#include "ir/dmd_int.h"
#include "cmd/dmd_svg.h"
#include "manifests/dmd_launch.h"

/* At most this many points in one sweep. */
#define DMD_SWEEP_MAX_POINTS 10000

extern char **environ;

/* The columns of a row after the swept values. */
static const char *const dmd_sweep_columns[] = { "ranks", "classes",
	"bytes_moved_total", "messages", "time_s", "gflops", "max_rel_err" };
#define DMD_SWEEP_N_STATS 6	/* the first six come from --stats */

/* One segment of a key: a mapping key, then indices into lists. */
struct dmd_sweep_seg {
	char *name;		/* owned */
	int n_idx;
	long idx[8];		/* -1: larger than any list */
	size_t end;		/* the length of the key's text up to here */
};

/* A field of the job that a --set changes. */
struct dmd_sweep_key {
	char *text;		/* owned: the key as given */
	int n_seg;
	struct dmd_sweep_seg *seg;	/* owned */
	int is_list;		/* the field is a list of values */
	int numeric;		/* the field holds an integer */
	unsigned long long max;	/* the largest value it can take */
};

/* One value of a --set list. */
struct dmd_sweep_val {
	char *text;		/* owned: as shown in the CSV and the plot */
	unsigned long long num;	/* its number, for a numeric value */
	int n_items;		/* list field: its entries; else 1 */
	char **items;		/* owned, with their strings */
};

/* One --set. */
struct dmd_sweep_set {
	const char *arg;	/* "KEY=LIST" as given */
	char *keys_text;	/* owned: the part before '=' */
	int n_keys;
	struct dmd_sweep_key *keys;	/* owned */
	int numeric;		/* every value a number (not a list) */
	unsigned long long max;	/* the largest value every key can take */
	int n_vals;
	struct dmd_sweep_val *vals;	/* owned */
};

/* The panels of the plot, one quantity each. */
enum { DMD_SWEEP_CLASSES, DMD_SWEEP_BYTES, DMD_SWEEP_TIME, DMD_SWEEP_GFLOPS,
	DMD_SWEEP_N_PANELS };

/* What the plot needs of a point. */
struct dmd_sweep_row {
	int *val;		/* owned: per set, the index of its value */
	double v[DMD_SWEEP_N_PANELS];	/* per panel; -1: not measured
					 * (or null, for gflops) */
};

/* The state of a sweep. */
struct dmd_sweep {
	const struct dmd_sweep_opts *o;
	int n_set;
	struct dmd_sweep_set *set;	/* owned */
	long n_points;
	char *name;		/* owned: the job's name */
	char *base;		/* owned: the job file's name, no directory */
	char *work;		/* owned: the work directory */
	char *self;		/* owned: this executable */
	char *ref;		/* owned: dmd_ref.py (with --ref) */
	char *job_dir;		/* owned: the job file's directory */
	char **copy;		/* owned, NULL-terminated: the inputs that
				 * each point gets a copy of */
	const char *python;
	char **envp;		/* owned array; strings not owned */
	FILE *csv;
	int n_rows;
	struct dmd_sweep_row *rows;	/* owned */
};

/* Print "distmpmd: sweep: " and the message; return "r". */
static int dmd_sweep_msg(int r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int dmd_sweep_msg(int r, const char *fmt, ...)
{
	va_list ap;

	fputs("distmpmd: sweep: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return r;
}

/* Report that memory ran out; return 1. */
static int dmd_sweep_nomem(void)
{
	fprintf(stderr, "distmpmd: out of memory\n");
	return 1;
}

/* The largest value of an integer field named "name": a seed is an
 * unsigned 64-bit integer (spec 1.2), every other integer of a job lies
 * within an int64 (the reader refuses what it cannot take). */
static unsigned long long dmd_sweep_max(const char *name)
{
	return !strcmp(name, "seed") ? ULLONG_MAX : LONG_MAX;
}

/* Parse the value "s" (as long as "n" bytes; n < 0: up to the NUL) of
 * a --set, an integer in [min, max] (ir/dmd_int.h), into *v.  Returns 0,
 * or 2 after a message naming "arg" and "what" (the value, or its part
 * of a range: "STOP '...'"). */
static int dmd_sweep_number(const char *s, long n, unsigned long long min,
	unsigned long long max, unsigned long long *v, const char *arg,
	const char *what)
{
	size_t len = n < 0 ? strlen(s) : (size_t) n;

	switch (dmd_int_parse_u64(s, len, max, v)) {
	case DMD_INT_OK:
		if (*v >= min)
			return 0;
		/* fall through */
	case DMD_INT_RANGE:
		return dmd_sweep_msg(2, "--set '%s': %s'%.*s' is out of range "
			"(%llu to %llu)", arg, what, (int) len, s, min, max);
	default:
		return dmd_sweep_msg(2, "--set '%s': %s'%.*s' is not a number",
			arg, what, (int) len, s);
	}
}

/* Return a copy of [s, s + n) without leading and trailing white
 * space, or NULL if memory runs out. */
static char *dmd_sweep_trim(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char) *s))
		++s, --n;
	while (n > 0 && isspace((unsigned char) s[n - 1]))
		--n;
	return strndup(s, n);
}

/* Parse the key "text" (as long as "len") into "k".  Returns 0, or 2
 * after a message naming "arg". */
static int dmd_sweep_parse_key(struct dmd_sweep_key *k, const char *text,
	size_t len, const char *arg)
{
	const char *p, *end;

	memset(k, 0, sizeof(*k));
	k->text = dmd_sweep_trim(text, len);
	if (!k->text)
		return dmd_sweep_nomem();
	p = k->text;
	end = p + strlen(p);
	while (p < end) {
		struct dmd_sweep_seg *seg, *more;
		const char *q = p;

		while (q < end && *q != '.' && *q != '[' && *q != ']')
			++q;
		if (q == p)
			goto error;
		more = realloc(k->seg, (k->n_seg + 1) * sizeof(*more));
		if (!more)
			return dmd_sweep_nomem();
		k->seg = more;
		seg = &k->seg[k->n_seg++];
		memset(seg, 0, sizeof(*seg));
		seg->name = strndup(p, q - p);
		if (!seg->name)
			return dmd_sweep_nomem();
		seg->end = q - k->text;
		while (q < end && *q == '[') {
			const char *r = strchr(q, ']');
			enum dmd_int_status st;

			if (!r || seg->n_idx == 8)
				goto error;
			st = dmd_int_parse(q + 1, r - q - 1, 0, LONG_MAX,
				&seg->idx[seg->n_idx]);
			if (st == DMD_INT_SYNTAX)
				goto error;
			if (st == DMD_INT_RANGE)
				seg->idx[seg->n_idx] = -1;
			seg->n_idx++;
			q = r + 1;
		}
		if (q < end && *q != '.')
			goto error;
		p = q < end ? q + 1 : q;
		if (q < end && p == end)
			goto error;
	}
	if (k->n_seg == 0)
		goto error;
	return 0;
error:
	return dmd_sweep_msg(2, "--set '%s': '%s' is not a field name "
		"(names joined by '.', each optionally followed by [INDEX], "
		"as tensors.A.shape[0])", arg, k->text);
}

/* Load the YAML file "path" into "doc".  -1 after a message. */
static int dmd_sweep_load(const char *path, yaml_document_t *doc)
{
	yaml_parser_t parser;
	FILE *f;
	int ok;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	ok = yaml_parser_load(&parser, doc);
	if (ok && !yaml_document_get_root_node(doc)) {
		yaml_document_delete(doc);
		ok = 0;
	}
	if (!ok)
		fprintf(stderr, "%s:%lu:%lu: error: %s\n", path,
			(unsigned long) parser.problem_mark.line + 1,
			(unsigned long) parser.problem_mark.column + 1,
			parser.problem ? parser.problem : "no YAML document");
	yaml_parser_delete(&parser);
	fclose(f);
	return ok ? 0 : -1;
}

/* The value of the key "name" in the mapping "node" of "doc", or NULL. */
static yaml_node_t *dmd_sweep_lookup(yaml_document_t *doc,
	yaml_node_t *node, const char *name)
{
	yaml_node_pair_t *pair;

	if (!node || node->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; ++pair) {
		yaml_node_t *key = yaml_document_get_node(doc, pair->key);

		if (key && key->type == YAML_SCALAR_NODE &&
		    key->data.scalar.length == strlen(name) &&
		    !memcmp(key->data.scalar.value, name,
			key->data.scalar.length))
			return yaml_document_get_node(doc, pair->value);
	}
	return NULL;
}

/* Find the field "k" in "doc": its node in *node.  Returns 0, or 2
 * after a message naming "arg" (no such field, an index out of range,
 * a field that is neither a value nor a list of values). */
static int dmd_sweep_resolve(yaml_document_t *doc,
	const struct dmd_sweep_key *k, yaml_node_t **node, const char *arg)
{
	yaml_node_t *n = yaml_document_get_root_node(doc), *item;
	int i, j;

	for (i = 0; i < k->n_seg; ++i) {
		const struct dmd_sweep_seg *seg = &k->seg[i];
		size_t len = seg->end;

		n = dmd_sweep_lookup(doc, n, seg->name);
		if (!n)
			return dmd_sweep_msg(2, "--set '%s': the job has no "
				"field '%.*s'", arg, (int) len, k->text);
		for (j = 0; j < seg->n_idx; ++j) {
			const char *idx = k->text + len + 1;
			size_t next = strchr(idx, ']') + 1 - k->text;
			long count;

			if (n->type != YAML_SEQUENCE_NODE)
				return dmd_sweep_msg(2, "--set '%s': '%.*s' "
					"is not a list", arg, (int) len,
					k->text);
			count = n->data.sequence.items.top -
				n->data.sequence.items.start;
			if (seg->idx[j] < 0 || seg->idx[j] >= count)
				return dmd_sweep_msg(2, "--set '%s': '%.*s' "
					"has %ld entr%s: there is no [%.*s]",
					arg, (int) len, k->text, count,
					count == 1 ? "y" : "ies",
					(int) (next - len - 2), idx);
			n = yaml_document_get_node(doc,
				n->data.sequence.items.start[seg->idx[j]]);
			len = next;
		}
	}
	if (n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		for (it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; ++it) {
			item = yaml_document_get_node(doc, *it);
			if (!item || item->type != YAML_SCALAR_NODE)
				break;
		}
		if (it == n->data.sequence.items.top) {
			*node = n;
			return 0;
		}
	}
	if (n->type != YAML_SCALAR_NODE)
		return dmd_sweep_msg(2, "--set '%s': '%s' is not a value or "
			"a list of values", arg, k->text);
	*node = n;
	return 0;
}

/* Append a copy of "text" (as long as "n") to the items of "v".  -1 if
 * memory runs out. */
static int dmd_sweep_item(struct dmd_sweep_val *v, const char *text,
	size_t n)
{
	char **items = realloc(v->items, (v->n_items + 1) * sizeof(*items));

	if (!items)
		return -1;
	v->items = items;
	items[v->n_items] = strndup(text, n);
	if (!items[v->n_items])
		return -1;
	v->n_items++;
	return 0;
}

/* Append a value to "set" (its text and items are set by the caller).
 * NULL if memory runs out or there are too many. */
static struct dmd_sweep_val *dmd_sweep_new_val(struct dmd_sweep_set *set)
{
	struct dmd_sweep_val *vals;

	if (set->n_vals >= DMD_SWEEP_MAX_POINTS)
		return NULL;
	vals = realloc(set->vals, (set->n_vals + 1) * sizeof(*vals));
	if (!vals)
		return NULL;
	set->vals = vals;
	memset(&vals[set->n_vals], 0, sizeof(*vals));
	return &vals[set->n_vals++];
}

/* Append the numeric value "x" to "set", its text the number in
 * decimal.  -1 if memory runs out or there are too many values. */
static int dmd_sweep_num_val(struct dmd_sweep_set *set, unsigned long long x)
{
	struct dmd_sweep_val *v;
	char num[32];

	snprintf(num, sizeof(num), "%llu", x);
	v = dmd_sweep_new_val(set);
	if (!v || dmd_sweep_item(v, num, strlen(num)) < 0)
		return -1;
	v->text = strdup(num);
	v->num = x;
	return v->text ? 0 : -1;
}

/* Parse the list value "t", "[A,B,...]", of "set" (every entry an
 * integer in [0, set->max], written in decimal).  Returns 0, or 2 after
 * a message. */
static int dmd_sweep_parse_list(struct dmd_sweep_set *set, const char *t)
{
	const char *p = t + 1, *close = strchr(t, ']');
	struct dmd_sweep_val *v;
	unsigned long long x;
	size_t len = 3;
	int i, r;

	if (!close || close[1] || strchr(p, '['))
		return dmd_sweep_msg(2, "--set '%s': '%s' is not a list of "
			"numbers [A,B,...]", set->arg, t);
	v = dmd_sweep_new_val(set);
	if (!v)
		goto nomem;
	while (p < close) {
		const char *e = memchr(p, ',', close - p);
		char *item, num[32];

		e = e ? e : close;
		item = dmd_sweep_trim(p, e - p);
		if (!item)
			goto nomem;
		r = 0;
		if (!*item && e == close) {
			free(item);		/* [] or a trailing comma */
			break;
		}
		if (dmd_int_parse_u64(item, DMD_INT_NUL, ULLONG_MAX, &x) ==
				DMD_INT_SYNTAX)
			r = dmd_sweep_msg(2, "--set '%s': '%s' is not a list "
				"of numbers [A,B,...]", set->arg, t);
		if (!r)
			r = dmd_sweep_number(item, -1, 0, set->max, &x,
				set->arg, "");
		free(item);
		if (r)
			return r;
		snprintf(num, sizeof(num), "%llu", x);
		if (dmd_sweep_item(v, num, strlen(num)) < 0)
			goto nomem;
		len += strlen(num) + 1;
		p = e + 1;
	}
	v->text = malloc(len);
	if (!v->text)
		goto nomem;
	strcpy(v->text, "[");
	for (i = 0; i < v->n_items; ++i) {
		strcat(v->text, i ? "," : "");
		strcat(v->text, v->items[i]);
	}
	strcat(v->text, "]");
	return 0;
nomem:
	if (set->n_vals >= DMD_SWEEP_MAX_POINTS)
		return dmd_sweep_msg(2, "--set '%s': more than %d values",
			set->arg, DMD_SWEEP_MAX_POINTS);
	return dmd_sweep_nomem();
}

/* Parse the range "t", START:STOP[:STEP] (STOP included), of the
 * numeric "set" into its values: START and STOP in [0, set->max], STEP
 * in [1, set->max], START <= STOP; no value passes STOP (nothing
 * wraps).  Returns 0, or 2 after a message. */
static int dmd_sweep_parse_range(struct dmd_sweep_set *set, const char *t)
{
	const char *colon = strchr(t, ':'), *colon2 = strchr(colon + 1, ':');
	unsigned long long a, b, step = 1, x;
	long n_b = colon2 ? colon2 - colon - 1 : -1;
	int r;

	if ((colon2 && strchr(colon2 + 1, ':')) ||
	    dmd_int_parse_u64(t, colon - t, ULLONG_MAX, &a) == DMD_INT_SYNTAX ||
	    dmd_int_parse_u64(colon + 1, n_b < 0 ? DMD_INT_NUL : (size_t) n_b,
		    ULLONG_MAX, &b) == DMD_INT_SYNTAX ||
	    (colon2 && dmd_int_parse_u64(colon2 + 1, DMD_INT_NUL, ULLONG_MAX,
		    &step) == DMD_INT_SYNTAX))
		goto not_range;
	r = dmd_sweep_number(t, colon - t, 0, set->max, &a, set->arg,
		"START ");
	if (!r)
		r = dmd_sweep_number(colon + 1, n_b, 0, set->max, &b,
			set->arg, "STOP ");
	if (!r && colon2)
		r = dmd_sweep_number(colon2 + 1, -1, 1, set->max, &step,
			set->arg, "STEP ");
	if (r)
		return r;
	if (a > b)
		goto not_range;
	for (x = a; ; x += step) {
		if (dmd_sweep_num_val(set, x) < 0) {
			if (set->n_vals >= DMD_SWEEP_MAX_POINTS)
				return dmd_sweep_msg(2, "--set '%s': more "
					"than %d values", set->arg,
					DMD_SWEEP_MAX_POINTS);
			return dmd_sweep_nomem();
		}
		if (b - x < step)
			break;
	}
	return 0;
not_range:
	return dmd_sweep_msg(2, "--set '%s': '%s' is not a range START:STOP "
		"or START:STOP:STEP (START <= STOP, STEP >= 1)", set->arg, t);
}

/* Parse one item "t" of the list of "set" (list field if "is_list",
 * numeric field if "numeric") into values of "set".  Returns 0, or 2
 * after a message. */
static int dmd_sweep_parse_item(struct dmd_sweep_set *set, const char *t,
	int is_list, int numeric)
{
	struct dmd_sweep_val *v;
	unsigned long long x;
	int r;

	if (!*t)
		return dmd_sweep_msg(2, "--set '%s': an empty value",
			set->arg);
	if (t[0] == '[') {
		if (!is_list)
			return dmd_sweep_msg(2, "--set '%s': '%s' holds one "
				"value, not a list: '%s'", set->arg,
				set->keys_text, t);
		return dmd_sweep_parse_list(set, t);
	}
	if (is_list)
		return dmd_sweep_msg(2, "--set '%s': '%s' is a list: give "
			"each value in brackets, as [2,3]", set->arg,
			set->keys_text);
	if (numeric && strchr(t, ':'))
		return dmd_sweep_parse_range(set, t);
	if (numeric) {
		r = dmd_sweep_number(t, -1, 0, set->max, &x, set->arg, "");
		if (r)
			return r;
		if (dmd_sweep_num_val(set, x) == 0)
			return 0;
	} else {
		v = dmd_sweep_new_val(set);
		if (v && dmd_sweep_item(v, t, strlen(t)) == 0) {
			v->text = strdup(t);
			if (v->text)
				return 0;
		}
	}
	if (set->n_vals >= DMD_SWEEP_MAX_POINTS)
		return dmd_sweep_msg(2, "--set '%s': more than %d values",
			set->arg, DMD_SWEEP_MAX_POINTS);
	return dmd_sweep_nomem();
}

/* Parse the --set "arg" into "set", its keys checked against "doc".
 * Returns 0, or the exit status after a message. */
static int dmd_sweep_parse_set(struct dmd_sweep_set *set, const char *arg,
	yaml_document_t *doc)
{
	const char *eq = strchr(arg, '='), *p, *list;
	int r, depth, is_list = 0, numeric = 1, i;

	memset(set, 0, sizeof(*set));
	set->arg = arg;
	if (!eq || eq == arg)
		return dmd_sweep_msg(2, "--set '%s' is not KEY=LIST", arg);
	set->keys_text = strndup(arg, eq - arg);
	if (!set->keys_text)
		return dmd_sweep_nomem();
	for (p = arg; p < eq; ) {
		const char *e = memchr(p, ',', eq - p);
		struct dmd_sweep_key *keys;
		yaml_node_t *node;

		e = e ? e : eq;
		keys = realloc(set->keys, (set->n_keys + 1) * sizeof(*keys));
		if (!keys)
			return dmd_sweep_nomem();
		set->keys = keys;
		r = dmd_sweep_parse_key(&keys[set->n_keys++], p, e - p, arg);
		if (!r)
			r = dmd_sweep_resolve(doc, &keys[set->n_keys - 1],
				&node, arg);
		if (r)
			return r;
		keys[set->n_keys - 1].is_list =
			node->type == YAML_SEQUENCE_NODE;
		keys[set->n_keys - 1].numeric =
			node->type == YAML_SCALAR_NODE &&
			dmd_int_parse_u64((char *) node->data.scalar.value,
				node->data.scalar.length, ULLONG_MAX,
				(unsigned long long [1]) { 0 }) == DMD_INT_OK;
		keys[set->n_keys - 1].max = dmd_sweep_max(
			keys[set->n_keys - 1].seg[
				keys[set->n_keys - 1].n_seg - 1].name);
		p = e + 1;
	}
	set->max = ULLONG_MAX;
	for (i = 0; i < set->n_keys; ++i) {
		if (i > 0 && set->keys[i].is_list != is_list)
			return dmd_sweep_msg(2, "--set '%s': '%s' and '%s' "
				"are not both lists or both values", arg,
				set->keys[0].text, set->keys[i].text);
		is_list = set->keys[i].is_list;
		numeric &= set->keys[i].numeric;
		if (set->keys[i].max < set->max)
			set->max = set->keys[i].max;
	}
	set->numeric = !is_list && numeric;
	list = eq + 1;
	for (p = list, depth = 0; ; ++p) {
		char *item;

		if (*p == '[')
			++depth;
		else if (*p == ']')
			--depth;
		if (*p && (depth > 0 || (*p != ',' && *p != ';')))
			continue;
		item = dmd_sweep_trim(list, p - list);
		if (!item)
			return dmd_sweep_nomem();
		r = dmd_sweep_parse_item(set, item, is_list, set->numeric);
		free(item);
		if (r)
			return r;
		if (!*p)
			break;
		list = p + 1;
	}
	return 0;
}

/* Set the scalar "node" to "text". */
static int dmd_sweep_set_scalar(yaml_node_t *node, const char *text)
{
	yaml_char_t *value = (yaml_char_t *) strdup(text);

	if (!value)
		return -1;
	free(node->data.scalar.value);
	node->data.scalar.value = value;
	node->data.scalar.length = strlen(text);
	node->data.scalar.style = YAML_ANY_SCALAR_STYLE;
	return 0;
}

/* Set the field "k" of "doc" to the value "v".  -1 if memory runs out
 * (or the document does not have the field, which the parse of the
 * --set checked). */
static int dmd_sweep_set_field(yaml_document_t *doc,
	const struct dmd_sweep_key *k, const struct dmd_sweep_val *v)
{
	yaml_node_t *node;
	int id, i, count, item;

	if (dmd_sweep_resolve(doc, k, &node, "") != 0)
		return -1;
	if (!k->is_list)
		return dmd_sweep_set_scalar(node, v->items[0]);
	id = node - doc->nodes.start + 1;
	count = node->data.sequence.items.top - node->data.sequence.items.start;
	for (i = 0; i < v->n_items; ++i) {
		node = yaml_document_get_node(doc, id);
		if (i < count) {
			yaml_node_t *it = yaml_document_get_node(doc,
				node->data.sequence.items.start[i]);

			if (dmd_sweep_set_scalar(it, v->items[i]) < 0)
				return -1;
			continue;
		}
		item = yaml_document_add_scalar(doc, NULL,
			(yaml_char_t *) v->items[i], -1,
			YAML_PLAIN_SCALAR_STYLE);
		if (!item || !yaml_document_append_sequence_item(doc, id,
				item))
			return -1;
	}
	node = yaml_document_get_node(doc, id);
	if (v->n_items < count)
		node->data.sequence.items.top =
			node->data.sequence.items.start + v->n_items;
	return 0;
}

/* The value of set "i" at point "p" (from 0): the first set varies
 * slowest. */
static int dmd_sweep_index(const struct dmd_sweep *s, long p, int i)
{
	int j;

	for (j = s->n_set - 1; j > i; --j)
		p /= s->set[j].n_vals;
	return (int) (p % s->set[i].n_vals);
}

/* Print the values of point "p" to "f", as "KEY=VALUE, KEY=VALUE". */
static void dmd_sweep_point_name(FILE *f, const struct dmd_sweep *s, long p)
{
	int i;

	for (i = 0; i < s->n_set; ++i)
		fprintf(f, "%s%s=%s", i ? ", " : "", s->set[i].keys_text,
			s->set[i].vals[dmd_sweep_index(s, p, i)].text);
}

/* A growing text, for the emitter. */
struct dmd_sweep_buf {
	char *s;
	size_t len;
	size_t cap;
	int failed;
};

/* The emitter's output handler: append to the buffer "data". */
static int dmd_sweep_write(void *data, unsigned char *buffer, size_t size)
{
	struct dmd_sweep_buf *b = data;

	if (b->len + size + 1 > b->cap) {
		size_t cap = 2 * (b->len + size + 1);
		char *s = realloc(b->s, cap);

		if (!s) {
			b->failed = 1;
			return 0;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, buffer, size);
	b->len += size;
	b->s[b->len] = '\0';
	return 1;
}

/* Write "text" to "path" under a temporary name, then rename.  -1 with
 * the system's reason. */
static int dmd_sweep_put(const char *path, const char *text, size_t len)
{
	char *tmp = NULL;
	FILE *f;

	f = dmd_svg_open(path, &tmp);
	if (!f)
		goto error;
	fwrite(text, 1, len, f);
	if (dmd_svg_close(f, tmp, path) < 0)
		goto error;
	free(tmp);
	return 0;
error:
	free(tmp);
	return -1;
}

/* Write the job of point "p" to "path": the job file loaded as a YAML
 * document, its fields set, emitted by libyaml.  -1 after a message. */
static int dmd_sweep_write_job(struct dmd_sweep *s, long p,
	const char *path)
{
	struct dmd_sweep_buf b = { NULL, 0, 0, 0 };
	yaml_emitter_t emitter;
	yaml_document_t doc;
	int i, j, ok = 0, loaded;

	loaded = dmd_sweep_load(s->o->job, &doc) == 0;
	if (!loaded)
		goto error;
	for (i = 0; i < s->n_set; ++i) {
		struct dmd_sweep_set *set = &s->set[i];
		struct dmd_sweep_val *v = &set->vals[dmd_sweep_index(s, p, i)];

		for (j = 0; j < set->n_keys; ++j)
			if (dmd_sweep_set_field(&doc, &set->keys[j], v) < 0) {
				yaml_document_delete(&doc);
				dmd_sweep_nomem();
				goto error;
			}
	}
	yaml_emitter_initialize(&emitter);
	yaml_emitter_set_output(&emitter, &dmd_sweep_write, &b);
	yaml_emitter_set_unicode(&emitter, 1);
	yaml_emitter_set_width(&emitter, -1);
	ok = yaml_emitter_open(&emitter) &&
		yaml_emitter_dump(&emitter, &doc) &&	/* frees doc */
		yaml_emitter_close(&emitter) && !b.failed;
	if (!ok)
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", path,
			b.failed ? "out of memory" : emitter.problem ?
			emitter.problem : "YAML emitter error");
	yaml_emitter_delete(&emitter);
	if (!ok || dmd_sweep_put(path, b.s, b.len) < 0)
		goto error;
	free(b.s);
	return 0;
error:
	free(b.s);
	return -1;
}

/* Create the directory "dir" if missing.  -1 with a message ("what"
 * names it). */
static int dmd_sweep_mkdir(const char *dir, const char *what)
{
	struct stat st;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno == EEXIST)
		errno = ENOTDIR;
	fprintf(stderr, "distmpmd: cannot create the %s %s: %s\n", what, dir,
		strerror(errno));
	return -1;
}

/* Run "argv" (no shell) with its standard output into the file
 * "out_path", and wait for it, with cancelling signals passed on.
 * Returns 0 if it exited with status 0, -2 if the sweep was cancelled,
 * else -1 with a message naming "what". */
static int dmd_sweep_exec(struct dmd_sweep *s, char **argv,
	const char *out_path, const char *what)
{
	int fd, status = 0;
	pid_t pid, done;

	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		O_NOFOLLOW, 0666);
	if (fd < 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", out_path,
			strerror(errno));
		return -1;
	}
	pid = dmd_launch_start_out(argv, s->envp, NULL, fd);
	close(fd);
	if (pid < 0)
		return dmd_launch_cancelled() ? -2 : -1;
	do
		done = dmd_launch_wait(&status);
	while (done > 0 && done != pid);
	dmd_launch_kill_all();
	if (dmd_launch_cancelled())
		return -2;
	if (done == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (done != pid)
		fprintf(stderr, "distmpmd: sweep: lost %s\n", what);
	else if (WIFEXITED(status))
		fprintf(stderr, "distmpmd: sweep: %s failed (exit status "
			"%d)\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "distmpmd: sweep: %s killed by signal %d "
			"(%s)\n", what, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	return -1;
}

/* Read the whole file "path" (up to a NUL byte) into newly allocated
 * memory, or NULL with a message. */
static char *dmd_sweep_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t cap = 0;

	if (!f)
		goto error;
	if (getdelim(&text, &cap, '\0', f) < 0) {
		if (ferror(f))
			goto error;
		free(text);
		text = strdup("");
	}
	fclose(f);
	if (!text)
		dmd_sweep_nomem();
	return text;
error:
	fprintf(stderr, "distmpmd: cannot read %s: %s\n", path,
		strerror(errno));
	if (f)
		fclose(f);
	free(text);
	return NULL;
}

/* Read the statistics line (--stats) in the file "path": the values of
 * ranks, classes, bytes_moved_total, messages, time_s and gflops as
 * text into "val" (newly allocated; "" for null).  -1 with a message. */
static int dmd_sweep_stats(const char *path, char *val[DMD_SWEEP_N_STATS])
{
	char *text = dmd_sweep_slurp(path), *line, *end;
	yaml_parser_t parser;
	yaml_document_t doc;
	int i, loaded = 0;

	for (i = 0; i < DMD_SWEEP_N_STATS; ++i)
		val[i] = NULL;
	if (!text)
		return -1;
	line = strstr(text, "{\"ranks\"");
	while (line && line != text && line[-1] != '\n')
		line = strstr(line + 1, "{\"ranks\"");
	if (line) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		yaml_parser_initialize(&parser);
		yaml_parser_set_input_string(&parser,
			(unsigned char *) line, strlen(line));
		loaded = yaml_parser_load(&parser, &doc);
		yaml_parser_delete(&parser);
	}
	for (i = 0; loaded && i < DMD_SWEEP_N_STATS; ++i) {
		yaml_node_t *n = dmd_sweep_lookup(&doc,
			yaml_document_get_root_node(&doc),
			dmd_sweep_columns[i]);

		if (!n || n->type != YAML_SCALAR_NODE)
			break;
		val[i] = strndup((char *) n->data.scalar.value,
			n->data.scalar.length);
		if (val[i] && !strcmp(val[i], "null"))
			val[i][0] = '\0';
		if (!val[i])
			break;
	}
	if (loaded)
		yaml_document_delete(&doc);
	free(text);
	if (i == DMD_SWEEP_N_STATS)
		return 0;
	fprintf(stderr, "distmpmd: sweep: %s: no statistics line from the "
		"run\n", path);
	for (i = 0; i < DMD_SWEEP_N_STATS; ++i) {
		free(val[i]);
		val[i] = NULL;
	}
	return -1;
}

/* The largest "max rel err E" in the output of dmd_ref.py check, in
 * the file "path", as text (newly allocated; "" if there is none), or
 * NULL with a message. */
static char *dmd_sweep_max_err(const char *path)
{
	static const char tag[] = "max rel err ";
	char *text = dmd_sweep_slurp(path), *p, *best = NULL, *r;
	double worst = -1;

	if (!text)
		return NULL;
	for (p = strstr(text, tag); p; p = strstr(p, tag)) {
		double e;
		char *end;

		p += sizeof(tag) - 1;
		e = strtod(p, &end);
		if (end > p && (e > worst || isnan(e))) {
			worst = isnan(e) ? INFINITY : e;
			free(best);
			best = strndup(p, end - p);
			if (!best)
				break;
		}
	}
	r = best ? best : strdup("");
	free(text);
	if (!r)
		dmd_sweep_nomem();
	return r;
}

/* Print "s" to "f" as a CSV field: in double quotes (doubled inside)
 * if it holds a comma, a quote or a line break. */
static void dmd_sweep_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; ++s) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Print the CSV header: every key of every set, then the columns. */
static void dmd_sweep_csv_header(struct dmd_sweep *s)
{
	size_t i;
	int j, k, first = 1;

	for (j = 0; j < s->n_set; ++j)
		for (k = 0; k < s->set[j].n_keys; ++k) {
			if (!first)
				fputc(',', s->csv);
			dmd_sweep_csv_field(s->csv, s->set[j].keys[k].text);
			first = 0;
		}
	for (i = 0; i < sizeof(dmd_sweep_columns) /
			sizeof(dmd_sweep_columns[0]); ++i)
		fprintf(s->csv, ",%s", dmd_sweep_columns[i]);
	fputc('\n', s->csv);
	fflush(s->csv);
}

/* The number "text" of the statistics line, or -1 if it is empty (not
 * measured, or null) or not a number. */
static double dmd_sweep_measure(const char *text)
{
	char *end;
	double v;

	if (!text || !*text)
		return -1;
	v = strtod(text, &end);
	return *end || v < 0 ? -1 : v;
}

/* Append the row of point "p": its values (one column per key), then
 * "stats" (the six --stats values) and "err", and remember what the plot
 * needs.  -1 if memory runs out or the CSV cannot be written. */
static int dmd_sweep_row(struct dmd_sweep *s, long p,
	char *const stats[DMD_SWEEP_N_STATS], const char *err)
{
	struct dmd_sweep_row *rows, *row;
	int i, k;

	for (i = 0; i < s->n_set; ++i)
		for (k = 0; k < s->set[i].n_keys; ++k) {
			if (i || k)
				fputc(',', s->csv);
			dmd_sweep_csv_field(s->csv,
				s->set[i].vals[dmd_sweep_index(s, p, i)].text);
		}
	for (i = 0; i < DMD_SWEEP_N_STATS; ++i) {
		fputc(',', s->csv);
		dmd_sweep_csv_field(s->csv, stats[i] ? stats[i] : "");
	}
	fputc(',', s->csv);
	dmd_sweep_csv_field(s->csv, err ? err : "");
	fputc('\n', s->csv);
	if (fflush(s->csv) != 0 || ferror(s->csv)) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n",
			s->o->csv ? s->o->csv : "the standard output",
			strerror(errno));
		return -1;
	}
	rows = realloc(s->rows, (s->n_rows + 1) * sizeof(*rows));
	if (!rows)
		return dmd_sweep_nomem(), -1;
	s->rows = rows;
	row = &rows[s->n_rows];
	row->val = malloc(s->n_set * sizeof(*row->val));
	if (!row->val)
		return dmd_sweep_nomem(), -1;
	for (i = 0; i < s->n_set; ++i)
		row->val[i] = dmd_sweep_index(s, p, i);
	{
		long classes;

		row->v[DMD_SWEEP_CLASSES] = dmd_int_parse(stats[1],
			DMD_INT_NUL, 0, LONG_MAX, &classes) == DMD_INT_OK ?
			classes : -1;
	}
	/* bytes_moved_total, time_s, gflops: "" when not measured or null */
	row->v[DMD_SWEEP_BYTES] = dmd_sweep_measure(stats[2]);
	row->v[DMD_SWEEP_TIME] = dmd_sweep_measure(stats[4]);
	row->v[DMD_SWEEP_GFLOPS] = dmd_sweep_measure(stats[5]);
	s->n_rows++;
	return 0;
}

/* Copy the file "src" to "dst", creating the directories of "dst" below
 * "top" (its point's directory) that are missing.  -1 after a message. */
static int dmd_sweep_copy(const char *src, const char *dst, const char *top)
{
	char buf[1 << 16], *dir;
	const char *p;
	int in = -1, out = -1, r = -1;
	ssize_t n;

	for (p = dst + strlen(top) + 1; (p = strchr(p, '/')); ++p) {
		dir = strndup(dst, p - dst);
		if (!dir)
			return dmd_sweep_nomem(), -1;
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			fprintf(stderr, "distmpmd: cannot create the directory "
				"%s: %s\n", dir, strerror(errno));
			free(dir);
			return -1;
		}
		free(dir);
	}
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", src,
			strerror(errno));
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		O_NOFOLLOW, 0666);
	if (out < 0)
		goto write_error;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto write_error;
	if (n < 0) {
		fprintf(stderr, "distmpmd: cannot read %s: %s\n", src,
			strerror(errno));
		goto done;
	}
	if (close(out) < 0) {
		out = -1;
		goto write_error;
	}
	out = -1;
	r = 0;
	goto done;
write_error:
	fprintf(stderr, "distmpmd: cannot write %s: %s\n", dst,
		strerror(errno ? errno : EIO));
done:
	if (out >= 0)
		close(out);
	close(in);
	return r;
}

/* Give the point in "dir" a copy of every input in s->copy (from the
 * job's directory, to the same relative path).  -1 after a message. */
static int dmd_sweep_copy_inputs(struct dmd_sweep *s, const char *dir)
{
	char *src, *dst;
	int i, r = 0;

	for (i = 0; !r && s->copy && s->copy[i]; ++i) {
		if (asprintf(&src, "%s/%s", s->job_dir, s->copy[i]) < 0)
			return dmd_sweep_nomem(), -1;
		if (asprintf(&dst, "%s/%s", dir, s->copy[i]) < 0) {
			free(src);
			return dmd_sweep_nomem(), -1;
		}
		r = dmd_sweep_copy(src, dst, dir);
		free(src);
		free(dst);
	}
	return r;
}

/* Run point "p" (from 0) in its directory: write its job, then analyse
 * it (--no-run) or write its inputs (--ref), build and run it, check
 * its outputs (--ref); append its row.  Returns 0, -2 if the sweep was
 * cancelled, -1 after a message. */
static int dmd_sweep_point(struct dmd_sweep *s, long p)
{
	char *dir = NULL, *job = NULL, *build = NULL, *stats_path = NULL;
	char *inputs_log = NULL, *check_log = NULL, *err = NULL;
	char *stats[DMD_SWEEP_N_STATS] = { NULL };
	char num[2][32];
	int r = -1, i, n_class;
	long ranks;

	if (asprintf(&dir, "%s/point-%ld", s->work, p + 1) < 0 ||
	    asprintf(&job, "%s/%s", dir, s->base) < 0 ||
	    asprintf(&build, "%s/build", dir) < 0 ||
	    asprintf(&stats_path, "%s/stats.json", dir) < 0 ||
	    asprintf(&inputs_log, "%s/ref-inputs.txt", dir) < 0 ||
	    asprintf(&check_log, "%s/ref-check.txt", dir) < 0) {
		dmd_sweep_nomem();
		goto error;
	}
	if (dmd_sweep_mkdir(dir, "directory") < 0 ||
	    dmd_sweep_write_job(s, p, job) < 0)
		goto error;
	if (s->o->no_run) {
		if (s->o->analyse(job, 1, &ranks, &n_class) != 0)
			goto error;
		snprintf(num[0], sizeof(num[0]), "%ld", ranks);
		snprintf(num[1], sizeof(num[1]), "%d", n_class);
		stats[0] = strdup(num[0]);
		stats[1] = strdup(num[1]);
		for (i = 2; i < DMD_SWEEP_N_STATS; ++i)
			stats[i] = strdup("");
		for (i = 0; i < DMD_SWEEP_N_STATS; ++i)
			if (!stats[i]) {
				dmd_sweep_nomem();
				goto error;
			}
		r = dmd_launch_cancelled() ? -2 : 0;
		if (r)
			goto error;
	} else {
		char *inputs[] = { (char *) s->python, s->ref, "inputs", job,
			NULL };
		char *run[] = { s->self, "run", job, "-o", build, "--stats", "-q",
			NULL };
		char *check[] = { (char *) s->python, s->ref, "check", job,
			NULL };

		if (s->ref) {
			r = dmd_sweep_exec(s, inputs, inputs_log,
				"dmd_ref.py inputs");
			if (r)
				goto error;
		} else if (dmd_sweep_copy_inputs(s, dir) < 0) {
			goto error;
		}
		r = dmd_sweep_exec(s, run, stats_path, "distmpmd run");
		if (r)
			goto error;
		r = -1;
		if (dmd_sweep_stats(stats_path, stats) < 0)
			goto error;
		if (s->ref) {
			r = dmd_sweep_exec(s, check, check_log,
				"dmd_ref.py check");
			if (r == -1) {
				char *log = dmd_sweep_slurp(check_log);

				fputs(log ? log : "", stderr);
				free(log);
			}
			if (r)
				goto error;
			r = -1;
			err = dmd_sweep_max_err(check_log);
			if (!err)
				goto error;
		}
	}
	r = dmd_sweep_row(s, p, stats, err);
error:
	for (i = 0; i < DMD_SWEEP_N_STATS; ++i)
		free(stats[i]);
	free(err);
	free(check_log);
	free(inputs_log);
	free(stats_path);
	free(build);
	free(job);
	free(dir);
	return r;
}

/* A step of about a fifth of "max" for the ticks of an axis: 1, 2 or 5
 * times a power of ten (at least 1 if "integer"). */
static double dmd_sweep_tick(double max, int integer)
{
	double raw = max / 5, mag, norm, step;

	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	return integer && step < 1 ? 1 : step;
}

/* The plot's geometry. */
#define DMD_SWEEP_W 760.0
#define DMD_SWEEP_LEFT 90.0
#define DMD_SWEEP_RIGHT 30.0
#define DMD_SWEEP_TOP 70.0
#define DMD_SWEEP_PANEL 200.0
#define DMD_SWEEP_BETWEEN 70.0

/* The x coordinate of row "r" in the plot: its value of the first set,
 * as a number (numeric) or as its position in the list. */
static double dmd_sweep_x(const struct dmd_sweep *s, int r)
{
	const struct dmd_sweep_set *set = &s->set[0];
	int v = s->rows[r].val[0];

	return set->numeric ? (double) set->vals[v].num : v;
}

/* Fill "series" with the line of each row: rows with the same values
 * of the sets after the first are one line, numbered in the order of
 * their first rows.  Returns the number of lines. */
static int dmd_sweep_series(const struct dmd_sweep *s, int *series)
{
	int r, q, i, n = 0;

	for (r = 0; r < s->n_rows; ++r) {
		for (q = 0; q < r; ++q) {
			for (i = 1; i < s->n_set; ++i)
				if (s->rows[q].val[i] != s->rows[r].val[i])
					break;
			if (i == s->n_set)
				break;
		}
		series[r] = q < r ? series[q] : n++;
	}
	return n;
}

/* Draw panel "which" (DMD_SWEEP_CLASSES, ...) of the plot at height
 * "y0", x from "xmin" to "xmax", with "series" giving each row's line
 * (of "n_series"). */
static void dmd_sweep_panel(FILE *f, const struct dmd_sweep *s, int which,
	double y0, double xmin, double xmax, const int *series, int n_series)
{
	static const char *const what[] = { "classes", "bytes", "time",
		"gflops" };
	static const char *const title[] = { "rank classes",
		"bytes moved (bytes_moved_total)",
		"time of the compute phase, s (time_s)",
		"GFLOP/s (gflops: 2 M N K / time_s of the matrix products)" };
	int integer = which == DMD_SWEEP_CLASSES || which == DMD_SWEEP_BYTES;
	double plot_w = DMD_SWEEP_W - DMD_SWEEP_LEFT - DMD_SWEEP_RIGHT;
	double ymax = 0, tick, y, px, py;
	char colour[8];
	int r, q, n = 0, first;

	for (r = 0; r < s->n_rows; ++r) {
		double v = s->rows[r].v[which];

		if (v >= 0)
			++n;
		if (v > ymax)
			ymax = v;
	}
	fprintf(f, "<text class=\"panel-title\" x=\"%.6g\" y=\"%.6g\" "
		"font-weight=\"bold\">%s</text>\n", DMD_SWEEP_LEFT, y0 - 10,
		title[which]);
	fprintf(f, "<rect class=\"frame\" x=\"%.6g\" y=\"%.6g\" "
		"width=\"%.6g\" height=\"%.6g\" fill=\"none\" "
		"stroke=\"#999999\"/>\n", DMD_SWEEP_LEFT, y0, plot_w,
		DMD_SWEEP_PANEL);
	if (n == 0) {
		fprintf(f, "<text class=\"empty\" x=\"%.6g\" y=\"%.6g\" "
			"text-anchor=\"middle\">%s</text>\n",
			DMD_SWEEP_LEFT + plot_w / 2, y0 + DMD_SWEEP_PANEL / 2,
			s->o->no_run ? "not measured (--no-run)" :
			"null at every point (no matrix product)");
		return;
	}
	tick = dmd_sweep_tick(ymax, integer);
	ymax = tick * ceil(ymax / tick + 1e-9);
	if (ymax <= 0)
		ymax = tick;
	for (y = 0; y <= ymax * (1 + 1e-9); y += tick) {
		py = y0 + DMD_SWEEP_PANEL * (1 - y / ymax);
		fprintf(f, "<line class=\"grid\" x1=\"%.6g\" y1=\"%.6g\" "
			"x2=\"%.6g\" y2=\"%.6g\" stroke=\"#e0e0e0\"/>"
			"<text class=\"ytick\" x=\"%.6g\" y=\"%.6g\" "
			"text-anchor=\"end\">%.10g</text>\n", DMD_SWEEP_LEFT,
			py, DMD_SWEEP_LEFT + plot_w, py, DMD_SWEEP_LEFT - 6,
			py + 4, y);
	}
	for (q = 0; q < n_series; ++q) {
		first = 1;
		fprintf(f, "<polyline class=\"line %s\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			what[which], dmd_svg_colour(q, colour));
		/* the rows of a line come in the order of the first set */
		for (r = 0; r < s->n_rows; ++r) {
			double v = s->rows[r].v[which];

			if (series[r] != q || v < 0)
				continue;
			px = DMD_SWEEP_LEFT + plot_w * (dmd_sweep_x(s, r) -
				xmin) / (xmax - xmin);
			py = y0 + DMD_SWEEP_PANEL * (1 - v / ymax);
			fprintf(f, "%s%.6g,%.6g", first ? "" : " ", px, py);
			first = 0;
		}
		fputs("\"/>\n", f);
	}
	for (r = 0; r < s->n_rows; ++r) {
		double v = s->rows[r].v[which];

		if (v < 0)
			continue;
		px = DMD_SWEEP_LEFT + plot_w * (dmd_sweep_x(s, r) - xmin) /
			(xmax - xmin);
		py = y0 + DMD_SWEEP_PANEL * (1 - v / ymax);
		fprintf(f, "<circle class=\"point %s\" cx=\"%.6g\" "
			"cy=\"%.6g\" r=\"3.5\" fill=\"%s\"><title>", what[which],
			px, py, dmd_svg_colour(series[r], colour));
		for (q = 0; q < s->n_set; ++q) {
			fputs(q ? ", " : "", f);
			dmd_xml_text(f, s->set[q].keys_text);
			fputc('=', f);
			dmd_xml_text(f, s->set[q].vals[s->rows[r].val[q]].text);
		}
		fprintf(f, ": %.15g %s</title></circle>"
			"<text class=\"label %s\" x=\"%.6g\" y=\"%.6g\" "
			"text-anchor=\"middle\" font-size=\"10\">%.15g</text>\n",
			v, what[which], what[which], px, py - 7, v);
	}
}

/* Draw the plot of the rows into "path": classes, bytes moved, time and
 * GFLOP/s (a panel each, one above the other) against the first swept
 * key, one line per combination of the other keys' values.  -1 after a
 * message. */
static int dmd_sweep_plot(struct dmd_sweep *s, const char *path)
{
	double plot_w = DMD_SWEEP_W - DMD_SWEEP_LEFT - DMD_SWEEP_RIGHT;
	double height = DMD_SWEEP_TOP + DMD_SWEEP_N_PANELS * DMD_SWEEP_PANEL +
		(DMD_SWEEP_N_PANELS - 1) * DMD_SWEEP_BETWEEN + 50;
	double xmin = 0, xmax = 0, px, y_axis;
	int *series = NULL, r, q, i, n_series = 0;
	char *tmp = NULL, colour[8];
	FILE *f = NULL;

	series = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*series));
	if (!series) {
		dmd_sweep_nomem();
		goto error;
	}
	n_series = dmd_sweep_series(s, series);
	for (r = 0; r < s->n_rows; ++r) {
		double x = dmd_sweep_x(s, r);

		if (r == 0 || x < xmin)
			xmin = x;
		if (r == 0 || x > xmax)
			xmax = x;
	}
	if (s->set[0].numeric) {
		double pad = xmax > xmin ? (xmax - xmin) * 0.06 : 1;

		xmin -= pad;
		xmax += pad;
	} else {
		xmin = -0.5;
		xmax = s->set[0].n_vals - 0.5;
	}
	f = dmd_svg_open(path, &tmp);
	if (!f)
		goto error;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" "
		"height=\"%.0f\" fill=\"white\"/>\n", DMD_SWEEP_W, height,
		DMD_SWEEP_W, height, DMD_SWEEP_W, height);
	fputs("<title>", f);
	dmd_xml_text(f, s->name);
	fputs(": sweep</title>\n<text class=\"title\" x=\"10\" y=\"20\" "
		"font-size=\"13\" font-weight=\"bold\">", f);
	dmd_xml_text(f, s->name);
	fputs(": rank classes, bytes moved, time and GFLOP/s against ", f);
	dmd_xml_text(f, s->set[0].keys_text);
	fputs("</text>\n", f);
	for (q = 0, i = 0; n_series > 1 && q < s->n_rows; ++q) {
		int k;

		if (series[q] != i)
			continue;
		fprintf(f, "<g class=\"series\"><rect x=\"%.6g\" y=\"30\" "
			"width=\"10\" height=\"10\" fill=\"%s\"/><text "
			"x=\"%.6g\" y=\"39\">", 10.0 + 190 * (i % 4) ,
			dmd_svg_colour(i, colour), 24.0 + 190 * (i % 4));
		for (k = 1; k < s->n_set; ++k) {
			fputs(k > 1 ? ", " : "", f);
			dmd_xml_text(f, s->set[k].keys_text);
			fputc('=', f);
			dmd_xml_text(f, s->set[k].vals[s->rows[q].val[k]].text);
		}
		fputs("</text></g>\n", f);
		++i;
	}
	for (i = 0; i < DMD_SWEEP_N_PANELS; ++i)
		dmd_sweep_panel(f, s, i, DMD_SWEEP_TOP +
			i * (DMD_SWEEP_PANEL + DMD_SWEEP_BETWEEN), xmin, xmax,
			series, n_series);
	/* the x axis, below each panel: every value of the first set */
	for (i = 0; i < DMD_SWEEP_N_PANELS; ++i) {
		y_axis = DMD_SWEEP_TOP + DMD_SWEEP_PANEL +
			i * (DMD_SWEEP_PANEL + DMD_SWEEP_BETWEEN);
		for (q = 0; q < s->set[0].n_vals; ++q) {
			const struct dmd_sweep_val *v = &s->set[0].vals[q];

			if (s->set[0].n_vals > 24 &&
			    q % ((s->set[0].n_vals + 23) / 24))
				continue;
			px = DMD_SWEEP_LEFT + plot_w * ((s->set[0].numeric ?
				(double) v->num : q) - xmin) / (xmax - xmin);
			fprintf(f, "<text class=\"xtick\" x=\"%.6g\" "
				"y=\"%.6g\" text-anchor=\"middle\">", px,
				y_axis + 14);
			dmd_xml_text(f, v->text);
			fputs("</text>\n", f);
		}
		fprintf(f, "<text class=\"xlabel\" x=\"%.6g\" y=\"%.6g\" "
			"text-anchor=\"middle\">", DMD_SWEEP_LEFT + plot_w / 2,
			y_axis + 30);
		dmd_xml_text(f, s->set[0].keys_text);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	if (dmd_svg_close(f, tmp, path) < 0)
		goto error;
	free(tmp);
	free(series);
	return 0;
error:
	free(tmp);
	free(series);
	return -1;
}

/* The environment of the processes of a point: ours without
 * DMD_JOB_DIR, DMD_TRACE and DMD_STATS (a point's files are in its
 * directory; --stats is given).  NULL if memory runs out. */
static char **dmd_sweep_envp(void)
{
	static const char *const drop[] = { "DMD_JOB_DIR=", "DMD_TRACE=",
		"DMD_STATS=" };
	char **envp;
	int n = 0, i, k;
	size_t j;

	while (environ && environ[n])
		++n;
	envp = malloc((n + 1) * sizeof(*envp));
	if (!envp)
		return NULL;
	for (i = 0, k = 0; i < n; ++i) {
		for (j = 0; j < sizeof(drop) / sizeof(drop[0]); ++j)
			if (!strncmp(environ[i], drop[j], strlen(drop[j])))
				break;
		if (j == sizeof(drop) / sizeof(drop[0]))
			envp[k++] = environ[i];
	}
	envp[k] = NULL;
	return envp;
}

/* Free what "s" holds (the CSV file is closed by the caller). */
static void dmd_sweep_free(struct dmd_sweep *s)
{
	int i, j, k;

	for (i = 0; i < s->n_set; ++i) {
		struct dmd_sweep_set *set = &s->set[i];

		for (j = 0; j < set->n_keys; ++j) {
			for (k = 0; k < set->keys[j].n_seg; ++k)
				free(set->keys[j].seg[k].name);
			free(set->keys[j].seg);
			free(set->keys[j].text);
		}
		for (j = 0; j < set->n_vals; ++j) {
			for (k = 0; k < set->vals[j].n_items; ++k)
				free(set->vals[j].items[k]);
			free(set->vals[j].items);
			free(set->vals[j].text);
		}
		free(set->keys);
		free(set->vals);
		free(set->keys_text);
	}
	for (i = 0; i < s->n_rows; ++i)
		free(s->rows[i].val);
	free(s->rows);
	free(s->set);
	free(s->name);
	free(s->base);
	free(s->work);
	free(s->self);
	free(s->ref);
	free(s->job_dir);
	if (s->copy)
		for (i = 0; s->copy[i]; ++i)
			free(s->copy[i]);
	free(s->copy);
	free(s->envp);
}

/* Does the relative path "file" go up (a ".." component)? */
static int dmd_sweep_goes_up(const char *file)
{
	const char *p = file;

	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 1;
		p = strchr(p, '/');
		if (!p)
			return 0;
		++p;
	}
}

/* Find the inputs that each point gets a copy of (without --ref): every
 * input file of the job that is relative to its directory and below it;
 * each must be there.  Say once which are copied.  -1 after a message. */
static int dmd_sweep_find_inputs(struct dmd_sweep *s)
{
	const char *slash = strrchr(s->o->job, '/');
	char **files = NULL;
	int i, n = 0, r;

	s->job_dir = slash ? strndup(s->o->job, slash > s->o->job ?
		(size_t) (slash - s->o->job) : 1) : strdup(".");
	if (!s->job_dir)
		return dmd_sweep_nomem(), -1;
	r = s->o->inputs(s->o->job, &files);
	if (r)
		return -1;
	for (i = 0; files[i]; ++i)
		;
	s->copy = calloc(i + 1, sizeof(*s->copy));
	if (!s->copy)
		r = dmd_sweep_nomem();
	for (i = 0; !r && files[i]; ++i) {
		char *path;
		struct stat st;

		if (files[i][0] == '/' || dmd_sweep_goes_up(files[i])) {
			fprintf(stderr, "distmpmd: sweep: the input %s is not "
				"below the job's directory: every point reads "
				"it from %s\n", files[i], files[i][0] == '/' ?
				"there" : "that path, relative to the point's "
				"directory");
			continue;
		}
		if (asprintf(&path, "%s/%s", s->job_dir, files[i]) < 0) {
			path = NULL;
			r = dmd_sweep_nomem();
		} else if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			fprintf(stderr, "distmpmd: sweep: the input %s is not "
				"beside the job (%s): give --ref to write each "
				"point's inputs with the reference\n",
				files[i], path);
			r = 1;
		} else {
			s->copy[n++] = files[i];
			files[i] = "";
		}
		free(path);
	}
	if (!r && n > 0) {
		fprintf(stderr, "distmpmd: sweep: each point reads a copy of ");
		for (i = 0; i < n; ++i)
			fprintf(stderr, "%s%s", i ? ", " : "", s->copy[i]);
		fprintf(stderr, " (from beside the job; --ref writes each "
			"point's inputs instead)\n");
	}
	for (i = 0; files[i]; ++i)
		if (*files[i])
			free(files[i]);
	free(files);
	return r ? -1 : 0;
}

/* Check the job and the --set arguments of "s" and find what the points
 * need.  Returns 0, or the exit status after a message. */
static int dmd_sweep_prepare(struct dmd_sweep *s)
{
	const struct dmd_sweep_opts *o = s->o;
	yaml_document_t doc;
	yaml_node_t *name;
	const char *base;
	long ranks;
	int r, i, n_class;

	r = o->analyse(o->job, 0, &ranks, &n_class);
	if (r)
		return r;
	if (dmd_sweep_load(o->job, &doc) < 0)
		return 2;
	s->set = calloc(o->n_set, sizeof(*s->set));
	r = s->set ? 0 : dmd_sweep_nomem();
	for (i = 0; !r && i < o->n_set; ++i) {
		r = dmd_sweep_parse_set(&s->set[i], o->set[i], &doc);
		s->n_set = i + 1;
	}
	name = dmd_sweep_lookup(&doc, yaml_document_get_root_node(&doc),
		"name");
	if (!r && name && name->type == YAML_SCALAR_NODE)
		s->name = strndup((char *) name->data.scalar.value,
			name->data.scalar.length);
	yaml_document_delete(&doc);
	if (r)
		return r;
	s->n_points = 1;
	for (i = 0; i < s->n_set; ++i) {
		s->n_points *= s->set[i].n_vals;
		if (s->n_points > DMD_SWEEP_MAX_POINTS)
			return dmd_sweep_msg(2, "more than %d points",
				DMD_SWEEP_MAX_POINTS);
	}
	base = strrchr(o->job, '/');
	s->base = strdup(base ? base + 1 : o->job);
	s->self = realpath("/proc/self/exe", NULL);
	s->envp = dmd_sweep_envp();
	if (!s->name || !s->base || !s->self || !s->envp)
		return dmd_sweep_nomem();
	s->python = dmd_ref_python();
	if (o->ref) {
		s->ref = dmd_ref_find(s->self, o->ref_path, "sweep");
		if (!s->ref)
			return 2;
	}
	if (!o->no_run && !o->ref && dmd_sweep_find_inputs(s) < 0)
		return 1;
	if (o->work)
		s->work = strdup(o->work);
	else if (dmd_sweep_mkdir("build", "directory") < 0)
		return 1;
	else if (asprintf(&s->work, "build/%s-sweep", s->name) < 0)
		s->work = NULL;
	if (!s->work)
		return dmd_sweep_nomem();
	return dmd_sweep_mkdir(s->work, "sweep directory") < 0 ? 1 : 0;
}

/* Run the sweep (see the header). */
int dmd_sweep(const struct dmd_sweep_opts *o)
{
	struct dmd_sweep s;
	long p = 0;
	int r, sig;

	memset(&s, 0, sizeof(s));
	s.o = o;
	r = dmd_sweep_prepare(&s);
	if (r)
		goto done;
	s.csv = o->csv ? fopen(o->csv, "w") : stdout;
	if (!s.csv) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", o->csv,
			strerror(errno));
		r = 1;
		goto done;
	}
	dmd_sweep_csv_header(&s);
	dmd_launch_catch();
	for (p = 0; p < s.n_points && !r; ++p) {
		fprintf(stderr, "distmpmd: sweep: point %ld/%ld: ", p + 1,
			s.n_points);
		dmd_sweep_point_name(stderr, &s, p);
		fputc('\n', stderr);
		r = dmd_sweep_point(&s, p);
	}
	sig = dmd_launch_cancelled();
	dmd_launch_release();
	if (sig) {
		fprintf(stderr, "distmpmd: sweep cancelled by signal %d (%s)\n",
			sig, strsignal(sig));
	} else if (r) {
		fprintf(stderr, "distmpmd: sweep: point %ld/%ld failed (", p,
			s.n_points);
		dmd_sweep_point_name(stderr, &s, p - 1);
		fprintf(stderr, "); %d row%s written\n", s.n_rows,
			s.n_rows == 1 ? "" : "s");
	}
	r = sig || r ? 1 : 0;
	if (o->svg && s.n_rows > 0 && dmd_sweep_plot(&s, o->svg) < 0)
		r = 1;
	if (o->csv && fclose(s.csv) != 0) {
		fprintf(stderr, "distmpmd: cannot write %s: %s\n", o->csv,
			strerror(errno));
		r = 1;
	}
	if (!r && o->csv)
		printf("distmpmd: sweep: %ld point%s of %s in %s: %s%s%s\n",
			s.n_points, s.n_points == 1 ? "" : "s", s.name, s.work,
			o->csv, o->svg ? ", " : "", o->svg ? o->svg : "");
done:
	dmd_sweep_free(&s);
	return r;
}
