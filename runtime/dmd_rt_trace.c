/* dmd_rt_trace.c: the trace (DMD_TRACE=path).
 *
 * While the program runs, each rank appends fixed-size events to an array
 * (no MPI call but MPI_Wtime): the compute phase, step spans, dmd_gemm
 * calls, waits, and each transfer from its first post to the end of its
 * wait.  dmd_finish gathers them on rank 0 (MPI_Gatherv of the records and
 * of each rank's table of transfer labels) and rank 0 writes Chrome
 * trace-event JSON, under a temporary name and then renamed:
 *
 *   {"traceEvents": [
 *   {"name": "process_name", "ph": "M", "pid": R, "tid": 0,
 *    "args": {"name": "rank R (class K)"}},
 *   {"name": "process_sort_index", "ph": "M", "pid": R, "tid": 0,
 *    "args": {"sort_index": R}},
 *   {"name": "thread_name", "ph": "M", "pid": R, "tid": T,
 *    "args": {"name": "compute" | "transfers" | "transfers N"}},
 *   {"name": LABEL, "cat": CAT, "ph": "X", "pid": R, "tid": T,
 *    "ts": US, "dur": US, "args": {...}},
 *   ...],
 *   "displayTimeUnit": "ms",
 *   "otherData": {"job": NAME, "ranks": N, "events_dropped": D}}
 *
 * one object per line.  CAT is "compute" (name "compute"), "step" (name:
 * the step's label, args {"step": S}), "gemm" (name "gemm"), "wait" (name:
 * the transfer's label) on thread 0, where they nest properly; "transfer"
 * (name: its label, args {"bytes": B}, the bytes this rank received) on
 * threads 1, 2, ...: transfers that overlap in time go to different
 * threads.  ts and dur are microseconds with 3 decimals, from each rank's
 * time origin (the barrier of its first dmd_compute_begin, else the end of
 * dmd_init); times are rounded to whole nanoseconds first, so that nested
 * events stay nested.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmd_rt.h"
#include "dmd_rt_private.h"

/* At most this many events per rank are kept (32 MiB); later ones are
 * counted as dropped ("otherData": {"events_dropped": N}).
 */
#define DMD_RT_TRACE_MAX (1 << 20)

/* A growing string (owned "s", "len" used bytes, NUL-terminated). */
struct dmd_rt_str {
	char *s;
	int64_t len;
	int64_t cap;
};

/* Append formatted text to "b". */
static void dmd_rt_str_add(dmd_rt *rt, struct dmd_rt_str *b,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void dmd_rt_str_add(dmd_rt *rt, struct dmd_rt_str *b,
	const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		dmd_fail(rt, "trace: cannot format");
	b->s = dmd_rt_grow(rt, b->s, &b->cap, b->len + n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* Append "s" to "b" as a JSON string (quotes included). */
static void dmd_rt_str_json(dmd_rt *rt, struct dmd_rt_str *b, const char *s)
{
	dmd_rt_str_add(rt, b, "\"");
	for (; *s; ++s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			dmd_rt_str_add(rt, b, "\\%c", c);
		else if (c < 0x20)
			dmd_rt_str_add(rt, b, "\\u%04x", c);
		else
			dmd_rt_str_add(rt, b, "%c", c);
	}
	dmd_rt_str_add(rt, b, "\"");
}

/* Record an event (if tracing): "kind" from t0 to t1 (MPI_Wtime values),
 * "label" a step or a request id, "bytes" received (transfers).
 */
void dmd_rt_trace_event(dmd_rt *rt, int kind, int label, double t0,
	double t1, int64_t bytes)
{
	struct dmd_rt_event *e;

	if (!rt->tracing)
		return;
	if (rt->n_ev >= DMD_RT_TRACE_MAX) {
		rt->n_dropped++;
		return;
	}
	rt->ev = dmd_rt_grow(rt, rt->ev, &rt->cap_ev, rt->n_ev + 1,
		sizeof(*rt->ev));
	e = &rt->ev[rt->n_ev++];
	e->t0 = t0;
	e->t1 = t1;
	e->kind = kind;
	e->label = label;
	e->bytes = bytes;
}

/* An event as rank 0 sorts and prints it: times in whole nanoseconds from
 * the rank's origin.
 */
struct dmd_rt_tev {
	int64_t ns0;
	int64_t ns1;
	int kind;
	int label;
	int64_t bytes;
	int lane;
};

/* Order: by start, longer first (parents before children), then kind. */
static int dmd_rt_tev_cmp(const void *a, const void *b)
{
	const struct dmd_rt_tev *x = a, *y = b;

	if (x->ns0 != y->ns0)
		return x->ns0 < y->ns0 ? -1 : 1;
	if (x->ns1 != y->ns1)
		return x->ns1 > y->ns1 ? -1 : 1;
	return x->kind - y->kind;
}

/* Convert this rank's events to times relative to its origin, in
 * seconds, not before the origin.
 */
static void dmd_rt_trace_rebase(dmd_rt *rt)
{
	int64_t i;

	for (i = 0; i < rt->n_ev; ++i) {
		struct dmd_rt_event *e = &rt->ev[i];

		e->t0 = e->t0 > rt->t0 ? e->t0 - rt->t0 : 0;
		e->t1 = e->t1 > rt->t0 ? e->t1 - rt->t0 : 0;
		if (e->t1 < e->t0)
			e->t1 = e->t0;
	}
}

/* Append "ns" nanoseconds as microseconds with 3 decimals. */
static void dmd_rt_str_us(dmd_rt *rt, struct dmd_rt_str *b, int64_t ns)
{
	dmd_rt_str_add(rt, b, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

/* The label of transfer "id" in the string table "tab" (of "len" bytes)
 * of a rank: the id-th NUL-terminated string.
 */
static const char *dmd_rt_tab_label(const char *tab, int64_t len, int id)
{
	int64_t p = 0;

	while (id > 0 && p < len) {
		p += (int64_t) strlen(tab + p) + 1;
		--id;
	}
	return p < len ? tab + p : "?";
}

/* Append the events "ev" (n of them) of rank "r" (class "cls", transfer
 * labels in "tab") to "b".
 */
static void dmd_rt_trace_rank(dmd_rt *rt, struct dmd_rt_str *b, int r,
	int cls, const struct dmd_rt_event *ev, int64_t n, const char *tab,
	int64_t tablen)
{
	static const char *const cat[DMD_RT_EV_NKINDS] = { "compute", "step",
		"gemm", "wait", "transfer" };
	struct dmd_rt_tev *t = dmd_rt_malloc(rt, (n ? n : 1) * sizeof(*t));
	int64_t *lane_end = NULL, cap_lanes = 0, i;
	int n_lanes = 0, l;

	for (i = 0; i < n; ++i) {
		t[i].ns0 = llround(ev[i].t0 * 1e9);
		t[i].ns1 = llround(ev[i].t1 * 1e9);
		t[i].kind = ev[i].kind;
		t[i].label = ev[i].label;
		t[i].bytes = ev[i].bytes;
		t[i].lane = 0;
	}
	qsort(t, n, sizeof(*t), &dmd_rt_tev_cmp);
	for (i = 0; i < n; ++i) {
		if (t[i].kind != DMD_RT_EV_XFER)
			continue;
		for (l = 0; l < n_lanes; ++l)
			if (lane_end[l] <= t[i].ns0)
				break;
		if (l == n_lanes) {
			lane_end = dmd_rt_grow(rt, lane_end, &cap_lanes,
				n_lanes + 1, sizeof(*lane_end));
			n_lanes++;
		}
		lane_end[l] = t[i].ns1;
		t[i].lane = 1 + l;
	}
	dmd_rt_str_add(rt, b, "{\"name\": \"process_name\", \"ph\": \"M\", "
		"\"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"rank %d "
		"(class %d)\"}},\n", r, r, cls);
	dmd_rt_str_add(rt, b, "{\"name\": \"process_sort_index\", \"ph\": "
		"\"M\", \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": "
		"%d}},\n", r, r);
	dmd_rt_str_add(rt, b, "{\"name\": \"thread_name\", \"ph\": \"M\", "
		"\"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"compute\"}},\n",
		r);
	for (l = 0; l < n_lanes; ++l) {
		dmd_rt_str_add(rt, b, "{\"name\": \"thread_name\", \"ph\": "
			"\"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": "
			"\"transfers", r, l + 1);
		if (l > 0)
			dmd_rt_str_add(rt, b, " %d", l + 1);
		dmd_rt_str_add(rt, b, "\"}},\n");
	}
	for (i = 0; i < n; ++i) {
		const char *name = cat[t[i].kind];
		char step[64];

		if (t[i].kind == DMD_RT_EV_STEP) {
			const char *const *sl = rt->job->step_labels;

			snprintf(step, sizeof(step), "step %d",
				t[i].label + 1);
			name = sl && sl[t[i].label] ? sl[t[i].label] : step;
		} else if (t[i].kind == DMD_RT_EV_WAIT ||
			   t[i].kind == DMD_RT_EV_XFER) {
			name = dmd_rt_tab_label(tab, tablen, t[i].label);
		}
		dmd_rt_str_add(rt, b, "{\"name\": ");
		dmd_rt_str_json(rt, b, name);
		dmd_rt_str_add(rt, b, ", \"cat\": \"%s\", \"ph\": \"X\", "
			"\"pid\": %d, \"tid\": %d, \"ts\": ", cat[t[i].kind], r,
			t[i].lane);
		dmd_rt_str_us(rt, b, t[i].ns0);
		dmd_rt_str_add(rt, b, ", \"dur\": ");
		dmd_rt_str_us(rt, b, t[i].ns1 - t[i].ns0);
		if (t[i].kind == DMD_RT_EV_STEP)
			dmd_rt_str_add(rt, b, ", \"args\": {\"step\": %d}",
				t[i].label);
		else if (t[i].kind == DMD_RT_EV_XFER)
			dmd_rt_str_add(rt, b, ", \"args\": {\"bytes\": %"
				PRId64 "}", t[i].bytes);
		dmd_rt_str_add(rt, b, "},\n");
	}
	free(lane_end);
	free(t);
}

/* This rank's table of transfer labels (NUL-separated, in id order),
 * newly allocated; its length in *len.
 */
static char *dmd_rt_label_table(dmd_rt *rt, int64_t *len)
{
	struct dmd_rt_str b = { NULL, 0, 0 };
	int64_t i;

	for (i = 0; i < rt->n_reqs; ++i) {
		dmd_rt_str_add(rt, &b, "%s", rt->reqs[i]->label);
		b.s = dmd_rt_grow(rt, b.s, &b.cap, b.len + 2, 1);
		b.s[b.len++] = '\0';
		b.s[b.len] = '\0';
	}
	*len = b.len;
	return b.s ? b.s : calloc(1, 1);
}

/* Gather every rank's events on rank 0, which writes the trace file;
 * a failure stops every rank with rank 0's message.  Collective.
 */
void dmd_rt_trace_write(dmd_rt *rt)
{
	int64_t meta[3], *all = NULL, tablen, nev = 0, ntab = 0, dropped = 0;
	MPI_Count *cev = NULL, *ctab = NULL;
	MPI_Aint *dev = NULL, *dtab = NULL;
	struct dmd_rt_event *ev = NULL;
	struct { int ok; char text[DMD_RT_TEXT]; } v;
	char *tab, *tabs = NULL;
	int r;

	dmd_rt_trace_rebase(rt);
	tab = dmd_rt_label_table(rt, &tablen);
	if (!tab)
		dmd_fail(rt, "out of memory");
	meta[0] = rt->n_ev;
	meta[1] = tablen;
	meta[2] = rt->class_id;
	if (rt->rank == 0) {
		all = dmd_rt_malloc(rt, 3 * sizeof(*all) * rt->size);
		cev = dmd_rt_malloc(rt, sizeof(*cev) * rt->size);
		ctab = dmd_rt_malloc(rt, sizeof(*ctab) * rt->size);
		dev = dmd_rt_malloc(rt, sizeof(*dev) * rt->size);
		dtab = dmd_rt_malloc(rt, sizeof(*dtab) * rt->size);
	}
	MPI_Gather(meta, 3, MPI_INT64_T, all, 3, MPI_INT64_T, 0, rt->cart);
	MPI_Reduce(&rt->n_dropped, &dropped, 1, MPI_INT64_T, MPI_SUM, 0,
		rt->cart);
	if (rt->rank == 0) {
		for (r = 0; r < rt->size; ++r) {
			cev[r] = all[3 * r] * (int64_t) sizeof(*ev);
			dev[r] = nev * (int64_t) sizeof(*ev);
			nev += all[3 * r];
			ctab[r] = all[3 * r + 1];
			dtab[r] = ntab;
			ntab += all[3 * r + 1];
		}
		ev = dmd_rt_malloc(rt, (nev ? nev : 1) * sizeof(*ev));
		tabs = dmd_rt_malloc(rt, ntab ? ntab : 1);
	}
	dmd_rt_mpi_gatherv(rt, rt->ev, rt->n_ev * (int64_t) sizeof(*rt->ev),
		ev, cev, dev, rt->cart);
	dmd_rt_mpi_gatherv(rt, tab, tablen, tabs, ctab, dtab, rt->cart);
	free(tab);

	memset(&v, 0, sizeof(v));
	v.ok = 1;
	if (rt->rank == 0) {
		struct dmd_rt_str b = { NULL, 0, 0 };
		char why[DMD_RT_TEXT / 2];

		dmd_rt_str_add(rt, &b, "{\"traceEvents\": [\n");
		for (r = 0; r < rt->size; ++r)
			dmd_rt_trace_rank(rt, &b, r, (int) all[3 * r + 2],
				ev + dev[r] / (MPI_Aint) sizeof(*ev),
				all[3 * r], tabs + dtab[r], ctab[r]);
		if (b.len >= 2 && b.s[b.len - 2] == ',') {
			b.s[b.len - 2] = '\n';
			b.s[--b.len] = '\0';
		}
		dmd_rt_str_add(rt, &b, "],\n\"displayTimeUnit\": \"ms\",\n"
			"\"otherData\": {\"job\": ");
		dmd_rt_str_json(rt, &b, rt->job->job ? rt->job->job : "");
		dmd_rt_str_add(rt, &b, ", \"ranks\": %d, \"events_dropped\": %"
			PRId64 "}}\n", rt->size, dropped);
		if (dmd_rt_write_file(rt, rt->trace_path, b.s, (size_t) b.len,
				why, sizeof(why)) < 0) {
			v.ok = 0;
			snprintf(v.text, sizeof(v.text), "cannot write the "
				"trace %.1500s: %s", rt->trace_path, why);
		}
		free(b.s);
	}
	free(all);
	free(cev);
	free(ctab);
	free(dev);
	free(dtab);
	free(ev);
	free(tabs);
	MPI_Bcast(&v, sizeof(v), MPI_BYTE, 0, rt->cart);
	if (!v.ok)
		dmd_rt_fail_all(rt, "%s", v.text);
}
