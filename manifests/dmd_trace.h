/* dmd_trace.h: drawing the trace that the runtime writes with DMD_TRACE
 * (runtime/dmd_rt_trace.c: Chrome trace-event JSON, one process per
 * rank) as an SVG timeline.
 */
#ifndef DMD_TRACE_H
#define DMD_TRACE_H

/* Read the trace "json_path" and draw it into "svg_path": one row per
 * rank (process), labelled with its process_name ("rank R (class K)");
 * thread 0 (compute phase, steps, gemm calls, waits: nested "X" events)
 * drawn as stacked levels, one sub-row per transfer thread (tid >= 1);
 * a time axis with ticks in ms; one colour per category ("compute",
 * "step", "gemm", "wait", "transfer", anything else "other") with a
 * legend.  Each event is a <rect class="CATEGORY"> whose <title> (the
 * tooltip) gives its name, start and duration; legend boxes have
 * class="legend".  Every text is XML-escaped.  The file is written under
 * a temporary name and renamed.  Returns 0, or -1 with a message on
 * stderr ("distmpmd: trace FILE: ...").
 */
int dmd_trace_svg(const char *json_path, const char *svg_path);

#endif
