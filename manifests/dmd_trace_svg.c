/* dmd_trace_svg.c: the trace of a run (Chrome trace-event JSON, as
 * runtime/dmd_rt_trace.c writes it) drawn as an SVG timeline.
 *
 * The JSON is read with libyaml (JSON is YAML: its document loader gives
 * the tree), so the fields may come in any order and the file may be any
 * trace-event file with a "traceEvents" array; only "X" (complete) events
 * and "process_name" metadata are drawn.  Times are microseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "dmd_text.h"
#include "dmd_trace.h"

/* Geometry of the picture, in pixels. */
#define DMD_TRACE_LEFT 160		/* rank labels */
#define DMD_TRACE_PLOT 1000		/* width of the time axis */
#define DMD_TRACE_RIGHT 30
#define DMD_TRACE_TOP 64		/* legend and axis */
#define DMD_TRACE_LEVEL 14		/* a nesting level of thread 0 */
#define DMD_TRACE_SUB 10		/* a transfer thread */
#define DMD_TRACE_GAP 10		/* between ranks */

/* Categories of events, their names (the "cat" field and the rect
 * class) and colours. */
enum { DMD_TRACE_COMPUTE, DMD_TRACE_STEP, DMD_TRACE_GEMM, DMD_TRACE_WAIT,
	DMD_TRACE_XFER, DMD_TRACE_OTHER, DMD_TRACE_NKINDS };
static const char *const dmd_trace_kind[DMD_TRACE_NKINDS] = { "compute",
	"step", "gemm", "wait", "transfer", "other" };
static const char *const dmd_trace_fill[DMD_TRACE_NKINDS] = { "#d9d9d9",
	"#9ecae1", "#31a354", "#de2d26", "#fd8d3c", "#bcbd22" };

/* An "X" event. */
struct dmd_trace_ev {
	long pid;
	long tid;
	double ts;
	double dur;
	int kind;
	char *name;		/* owned */
	int level;		/* nesting level (thread 0) or sub-row */
};

/* A process (rank): its label, the levels of its thread 0 and its
 * transfer threads (sorted). */
struct dmd_trace_proc {
	long pid;
	char *name;		/* owned; NULL: "pid N" */
	int levels;
	long *tids;		/* owned */
	int n_tids;
	double y;
};

/* The whole trace. */
struct dmd_trace {
	const char *path;
	struct dmd_trace_ev *ev;
	int n_ev;
	int cap_ev;
	struct dmd_trace_proc *proc;
	int n_proc;
	int cap_proc;
};

/* Print "distmpmd: trace PATH: <message>" on stderr; return -1. */
static int dmd_trace_error(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "distmpmd: trace %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The value of scalar "node", or NULL if it is not a scalar. */
static const char *dmd_trace_scalar(yaml_node_t *node)
{
	if (!node || node->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *) node->data.scalar.value;
}

/* The value of key "key" in mapping "map", or NULL. */
static yaml_node_t *dmd_trace_get(yaml_document_t *doc, yaml_node_t *map,
	const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; ++p) {
		const char *k = dmd_trace_scalar(
			yaml_document_get_node(doc, p->key));

		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* Parse the number at key "key" of "map" into *v; 0, or -1 if it is
 * missing or not a number. */
static int dmd_trace_num(yaml_document_t *doc, yaml_node_t *map,
	const char *key, double *v)
{
	const char *s = dmd_trace_scalar(dmd_trace_get(doc, map, key));
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return *end || errno ? -1 : 0;
}

/* The process "pid" of "t", added if new; NULL if memory runs out. */
static struct dmd_trace_proc *dmd_trace_proc_get(struct dmd_trace *t,
	long pid)
{
	struct dmd_trace_proc *p;
	int i;

	for (i = 0; i < t->n_proc; ++i)
		if (t->proc[i].pid == pid)
			return &t->proc[i];
	if (t->n_proc == t->cap_proc) {
		int cap = t->cap_proc ? 2 * t->cap_proc : 16;

		p = realloc(t->proc, cap * sizeof(*p));
		if (!p)
			return NULL;
		t->proc = p;
		t->cap_proc = cap;
	}
	p = &t->proc[t->n_proc++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->levels = 1;
	return p;
}

/* Add the event described by mapping "e" (number "i" in the array) to
 * "t": "X" events and process_name metadata; others are skipped.
 * 0, or -1 with a message. */
static int dmd_trace_add(struct dmd_trace *t, yaml_document_t *doc,
	yaml_node_t *e, int i)
{
	const char *ph = dmd_trace_scalar(dmd_trace_get(doc, e, "ph"));
	const char *name = dmd_trace_scalar(dmd_trace_get(doc, e, "name"));
	const char *cat;
	struct dmd_trace_proc *p;
	struct dmd_trace_ev *ev;
	double pid, tid = 0;
	int k;

	if (!ph)
		return dmd_trace_error(t->path, "event %d has no \"ph\"", i);
	if (strcmp(ph, "X") && strcmp(ph, "M"))
		return 0;
	if (dmd_trace_num(doc, e, "pid", &pid) < 0)
		return dmd_trace_error(t->path, "event %d has no numeric "
			"\"pid\"", i);
	if (!strcmp(ph, "M")) {
		const char *label;

		if (!name || strcmp(name, "process_name"))
			return 0;
		label = dmd_trace_scalar(dmd_trace_get(doc,
			dmd_trace_get(doc, e, "args"), "name"));
		p = dmd_trace_proc_get(t, (long) pid);
		if (!p)
			return dmd_trace_error(t->path, "out of memory");
		free(p->name);
		p->name = label ? strdup(label) : NULL;
		return 0;
	}
	if (t->n_ev == t->cap_ev) {
		int cap = t->cap_ev ? 2 * t->cap_ev : 256;

		ev = realloc(t->ev, cap * sizeof(*ev));
		if (!ev)
			return dmd_trace_error(t->path, "out of memory");
		t->ev = ev;
		t->cap_ev = cap;
	}
	ev = &t->ev[t->n_ev];
	memset(ev, 0, sizeof(*ev));
	if (dmd_trace_num(doc, e, "ts", &ev->ts) < 0 ||
	    dmd_trace_num(doc, e, "dur", &ev->dur) < 0 || ev->dur < 0)
		return dmd_trace_error(t->path, "event %d lacks a numeric "
			"\"ts\" or \"dur\"", i);
	if (dmd_trace_get(doc, e, "tid") &&
	    dmd_trace_num(doc, e, "tid", &tid) < 0)
		return dmd_trace_error(t->path, "event %d has a bad \"tid\"",
			i);
	ev->pid = (long) pid;
	ev->tid = (long) tid;
	cat = dmd_trace_scalar(dmd_trace_get(doc, e, "cat"));
	ev->kind = DMD_TRACE_OTHER;
	for (k = 0; cat && k < DMD_TRACE_OTHER; ++k)
		if (!strcmp(cat, dmd_trace_kind[k]))
			ev->kind = k;
	ev->name = strdup(name ? name : "");
	if (!ev->name || !dmd_trace_proc_get(t, ev->pid))
		return dmd_trace_error(t->path, "out of memory");
	t->n_ev++;
	return 0;
}

/* Read the JSON file of "t" into "t".  0, or -1 with a message. */
static int dmd_trace_read(struct dmd_trace *t)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *arr;
	yaml_node_item_t *it;
	FILE *f;
	int r = 0, i = 0;

	f = fopen(t->path, "rb");
	if (!f)
		return dmd_trace_error(t->path, "cannot open: %s",
			strerror(errno));
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return dmd_trace_error(t->path, "out of memory");
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		r = dmd_trace_error(t->path, "not JSON: %s at line %lu, "
			"column %lu", parser.problem ? parser.problem : "error",
			(unsigned long) parser.problem_mark.line + 1,
			(unsigned long) parser.problem_mark.column + 1);
		yaml_parser_delete(&parser);
		fclose(f);
		return r;
	}
	root = yaml_document_get_root_node(&doc);
	arr = dmd_trace_get(&doc, root, "traceEvents");
	if (!arr || arr->type != YAML_SEQUENCE_NODE)
		r = dmd_trace_error(t->path, "no \"traceEvents\" array");
	for (it = arr && !r ? arr->data.sequence.items.start : NULL;
	     it && it < arr->data.sequence.items.top && !r; ++it, ++i) {
		yaml_node_t *e = yaml_document_get_node(&doc, *it);

		if (!e || e->type != YAML_MAPPING_NODE)
			r = dmd_trace_error(t->path, "event %d is not an "
				"object", i);
		else
			r = dmd_trace_add(t, &doc, e, i);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return r;
}

/* Order of events: by process, thread, start, longer first. */
static int dmd_trace_ev_cmp(const void *a, const void *b)
{
	const struct dmd_trace_ev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->kind - y->kind;
}

/* Order of processes: by pid. */
static int dmd_trace_proc_cmp(const void *a, const void *b)
{
	const struct dmd_trace_proc *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The process "pid" (present) of "t". */
static struct dmd_trace_proc *dmd_trace_proc_find(struct dmd_trace *t,
	long pid)
{
	int i;

	for (i = 0; i < t->n_proc; ++i)
		if (t->proc[i].pid == pid)
			break;
	return &t->proc[i];
}

/* Lay the events out: the nesting level of each event of thread 0, the
 * sub-row of each other thread, the height of each process's row.
 * 0, or -1 with a message. */
static int dmd_trace_layout(struct dmd_trace *t, double *height)
{
	double stack[64], y = DMD_TRACE_TOP;
	int i, j, depth = 0;

	qsort(t->ev, t->n_ev, sizeof(*t->ev), &dmd_trace_ev_cmp);
	qsort(t->proc, t->n_proc, sizeof(*t->proc), &dmd_trace_proc_cmp);
	for (i = 0; i < t->n_ev; ++i) {
		struct dmd_trace_ev *e = &t->ev[i];
		struct dmd_trace_proc *p = dmd_trace_proc_find(t, e->pid);

		if (i == 0 || e->pid != t->ev[i - 1].pid ||
		    e->tid != t->ev[i - 1].tid)
			depth = 0;
		if (e->tid != 0) {
			if (!p->n_tids || p->tids[p->n_tids - 1] != e->tid) {
				long *n = realloc(p->tids,
					(p->n_tids + 1) * sizeof(*n));

				if (!n)
					return dmd_trace_error(t->path,
						"out of memory");
				p->tids = n;
				p->tids[p->n_tids++] = e->tid;
			}
			e->level = p->n_tids - 1;
			continue;
		}
		while (depth > 0 && stack[depth - 1] <= e->ts + 1e-9)
			depth--;
		if (depth == 64)
			depth--;
		e->level = depth;
		stack[depth++] = e->ts + e->dur;
		if (p->levels < depth)
			p->levels = depth;
	}
	for (j = 0; j < t->n_proc; ++j) {
		t->proc[j].y = y;
		y += t->proc[j].levels * DMD_TRACE_LEVEL +
			t->proc[j].n_tids * DMD_TRACE_SUB + DMD_TRACE_GAP;
	}
	*height = y + 10;
	return 0;
}

/* The step between ticks, in ms, for an axis of "ms" milliseconds: 1, 2
 * or 5 times a power of 10, at most 10 ticks. */
static double dmd_trace_tick(double ms)
{
	double p = 1e-6, m[3] = { 1, 2, 5 };
	int i;

	for (;;) {
		for (i = 0; i < 3; ++i)
			if (ms / (m[i] * p) <= 10)
				return m[i] * p;
		p *= 10;
	}
}

/* Write the SVG of "t" (laid out, "height" pixels high) to "f". */
static void dmd_trace_draw(struct dmd_trace *t, FILE *f, double height)
{
	double end = 0, scale, tick, ms, x;
	double width = DMD_TRACE_LEFT + DMD_TRACE_PLOT + DMD_TRACE_RIGHT;
	int i, k;

	for (i = 0; i < t->n_ev; ++i)
		if (t->ev[i].ts + t->ev[i].dur > end)
			end = t->ev[i].ts + t->ev[i].dur;
	if (end <= 0)
		end = 1;
	scale = DMD_TRACE_PLOT / end;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n",
		width, height, width, height);
	fputs("<title>", f);
	dmd_xml_text(f, t->path);
	fputs("</title>\n", f);
	fprintf(f, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" "
		"height=\"%.0f\" fill=\"white\"/>\n", width, height);
	for (k = 0; k < DMD_TRACE_NKINDS; ++k) {
		x = DMD_TRACE_LEFT + k * 100;
		fprintf(f, "<rect class=\"legend\" x=\"%.0f\" y=\"8\" "
			"width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"18\">%s</text>\n", x,
			dmd_trace_fill[k], x + 16, dmd_trace_kind[k]);
	}
	ms = end / 1000;
	tick = dmd_trace_tick(ms);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"black\"/>\n", DMD_TRACE_LEFT,
		DMD_TRACE_TOP - 8, DMD_TRACE_LEFT + DMD_TRACE_PLOT,
		DMD_TRACE_TOP - 8);
	for (i = 0; i * tick <= ms * (1 + 1e-9); ++i) {
		x = DMD_TRACE_LEFT + i * tick * 1000 * scale;
		fprintf(f, "<line class=\"tick\" x1=\"%.3f\" y1=\"%d\" "
			"x2=\"%.3f\" y2=\"%.0f\" stroke=\"#cccccc\"/>"
			"<text x=\"%.3f\" y=\"%d\" text-anchor=\"middle\">%g ms"
			"</text>\n", x, DMD_TRACE_TOP - 12, x, height - 10, x,
			DMD_TRACE_TOP - 16, i * tick);
	}
	for (i = 0; i < t->n_proc; ++i) {
		struct dmd_trace_proc *p = &t->proc[i];
		double h = p->levels * DMD_TRACE_LEVEL +
			p->n_tids * DMD_TRACE_SUB;

		fprintf(f, "<rect class=\"row\" x=\"%d\" y=\"%.0f\" "
			"width=\"%d\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n",
			DMD_TRACE_LEFT, p->y, DMD_TRACE_PLOT, h);
		fprintf(f, "<text class=\"rank\" x=\"4\" y=\"%.0f\">",
			p->y + 11);
		if (p->name)
			dmd_xml_text(f, p->name);
		else
			fprintf(f, "pid %ld", p->pid);
		fputs("</text>\n", f);
	}
	for (i = 0; i < t->n_ev; ++i) {
		struct dmd_trace_ev *e = &t->ev[i];
		struct dmd_trace_proc *p = dmd_trace_proc_find(t, e->pid);
		double y, h, w = e->dur * scale;

		if (e->tid == 0) {
			y = p->y + e->level * DMD_TRACE_LEVEL;
			h = DMD_TRACE_LEVEL - 1;
		} else {
			y = p->y + p->levels * DMD_TRACE_LEVEL +
				e->level * DMD_TRACE_SUB;
			h = DMD_TRACE_SUB - 1;
		}
		fprintf(f, "<rect class=\"%s\" x=\"%.3f\" y=\"%.0f\" "
			"width=\"%.3f\" height=\"%.0f\" fill=\"%s\" "
			"stroke=\"white\" stroke-width=\"0.5\"><title>",
			dmd_trace_kind[e->kind],
			DMD_TRACE_LEFT + e->ts * scale, y, w < 0.5 ? 0.5 : w,
			h, dmd_trace_fill[e->kind]);
		dmd_xml_text(f, e->name);
		fprintf(f, " (%s): %.3f ms at %.3f ms</title></rect>\n",
			dmd_trace_kind[e->kind], e->dur / 1000, e->ts / 1000);
	}
	fputs("</svg>\n", f);
}

/* Free what "t" holds. */
static void dmd_trace_free(struct dmd_trace *t)
{
	int i;

	for (i = 0; i < t->n_ev; ++i)
		free(t->ev[i].name);
	for (i = 0; i < t->n_proc; ++i) {
		free(t->proc[i].name);
		free(t->proc[i].tids);
	}
	free(t->ev);
	free(t->proc);
}

/* Draw the trace "json_path" into "svg_path" (see dmd_trace.h). */
int dmd_trace_svg(const char *json_path, const char *svg_path)
{
	struct dmd_trace t;
	double height = 0;
	char *tmp = NULL;
	FILE *f = NULL;
	int r;

	memset(&t, 0, sizeof(t));
	t.path = json_path;
	r = dmd_trace_read(&t);
	if (!r)
		r = dmd_trace_layout(&t, &height);
	if (!r && asprintf(&tmp, "%s.tmp.%ld", svg_path, (long) getpid()) < 0) {
		tmp = NULL;
		r = dmd_trace_error(json_path, "out of memory");
	}
	if (!r) {
		f = fopen(tmp, "w");
		if (!f)
			r = dmd_trace_error(json_path, "cannot write %s: %s",
				tmp, strerror(errno));
	}
	if (!r) {
		dmd_trace_draw(&t, f, height);
		if (ferror(f) | (fclose(f) != 0))
			r = dmd_trace_error(json_path, "cannot write %s: %s",
				tmp, strerror(errno));
		else if (rename(tmp, svg_path) != 0)
			r = dmd_trace_error(json_path, "cannot rename %s to "
				"%s: %s", tmp, svg_path, strerror(errno));
		if (r)
			unlink(tmp);
	}
	free(tmp);
	dmd_trace_free(&t);
	return r;
}
