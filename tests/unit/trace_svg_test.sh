#!/bin/bash
# trace_svg_test.sh: unit test of manifests/dmd_trace_svg.c (the SVG
# timeline of a DMD_TRACE trace): a small trace written here, the trace of
# a real run of the runtime (obj/libdmdrt.a, 2 ranks), and bad inputs.
# The SVG is checked with python3's xml.etree: well-formed, the exact
# number of rects per category, rank labels, tooltips, ticks.
# Last line: "N passed, M failed"; exit status non-zero on any failure.

cd "$(dirname "$0")/../.." || exit 1
PY=/usr/bin/python3
export OPENBLAS_NUM_THREADS=1
unset DMD_STATS DMD_TRACE DMD_JOB_DIR
pass=0
fail=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trace_svg_test.XXXXXX")
[ -n "$RT_KEEP" ] || trap 'rm -rf "$WORK"' EXIT

ok() { pass=$((pass + 1)); echo "ok $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

if cc -Wall -Wextra -Werror -std=gnu11 -I. -g -o "$WORK/tsvg" \
	tests/unit/trace_svg_test.c manifests/dmd_trace_svg.c manifests/dmd_text.c \
	$(pkg-config --cflags --libs yaml-0.1) 2>"$WORK/cc.log"; then
	ok "build"
else
	cat "$WORK/cc.log"
	ko "build"
	finish
fi

# A small trace in the runtime's format: rank 0 with nested compute >
# step > gemm/wait and one transfer; rank 1 with two steps and two
# overlapping transfers (threads 1 and 2), an event of an unknown
# category, and labels that need XML escaping.  It ends at 2500 us.
cat >"$WORK/small.json" <<'EOF'
{"traceEvents": [
{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "rank 0 (class 0)"}},
{"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "compute"}},
{"name": "compute", "cat": "compute", "ph": "X", "pid": 0, "tid": 0, "ts": 0.000, "dur": 2500.000},
{"name": "step 1: C[m, n] = A[m, k] * B[k, n]", "cat": "step", "ph": "X", "pid": 0, "tid": 0, "ts": 10.000, "dur": 1000.000, "args": {"step": 0}},
{"name": "gemm", "cat": "gemm", "ph": "X", "pid": 0, "tid": 0, "ts": 20.000, "dur": 500.000},
{"name": "A<&>\"' x", "cat": "wait", "ph": "X", "pid": 0, "tid": 0, "ts": 600.000, "dur": 100.000},
{"name": "A<&>\"' x", "cat": "transfer", "ph": "X", "pid": 0, "tid": 1, "ts": 5.000, "dur": 695.000, "args": {"bytes": 4096}},
{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "rank 1 (class 1) <b>"}},
{"name": "compute", "cat": "compute", "ph": "X", "pid": 1, "tid": 0, "ts": 0.000, "dur": 2400.000},
{"name": "step 1: C[m, n] = A[m, k] * B[k, n]", "cat": "step", "ph": "X", "pid": 1, "tid": 0, "ts": 10.000, "dur": 1000.000, "args": {"step": 0}},
{"name": "step 2: \u00e9t\u00e9", "cat": "step", "ph": "X", "pid": 1, "tid": 0, "ts": 1010.000, "dur": 1000.000, "args": {"step": 1}},
{"name": "gemm", "cat": "gemm", "ph": "X", "pid": 1, "tid": 0, "ts": 1020.000, "dur": 300.000},
{"name": "B: shift", "cat": "wait", "ph": "X", "pid": 1, "tid": 0, "ts": 1400.000, "dur": 10.000},
{"name": "B: shift", "cat": "transfer", "ph": "X", "pid": 1, "tid": 1, "ts": 1000.000, "dur": 410.000, "args": {"bytes": 8}},
{"name": "C: sums", "cat": "transfer", "ph": "X", "pid": 1, "tid": 2, "ts": 1100.000, "dur": 900.000, "args": {"bytes": 16}},
{"name": "marker", "cat": "mystery", "ph": "X", "pid": 1, "tid": 0, "ts": 2100.000, "dur": 0.001},
{"name": "an instant", "ph": "i", "pid": 1, "tid": 0, "ts": 5}
],
"displayTimeUnit": "ms",
"otherData": {"job": "small", "ranks": 2}}
EOF

# check_svg SVG WHAT ARGS: the checks of the python program below, with
# "small" or "runtime JSON" as ARGS.
check_svg() {
	local svg=$1 what=$2
	shift 2
	if $PY - "$svg" "$@" <<'EOF'; then
import sys, json, collections, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == NS + 'svg', root.tag
rects = root.findall(NS + 'rect')
cls = collections.Counter(r.get('class') for r in rects)
ranks = [t.text for t in root.findall(NS + 'text') if t.get('class') == 'rank']
ticks = [t.text for t in root.findall(NS + 'text')
         if t.text and t.text.endswith(' ms')]
def title(r):
    t = r.find(NS + 'title')
    return t.text if t is not None else None
if sys.argv[2] == 'small':
    want = {'background': 1, 'legend': 6, 'row': 2, 'compute': 2, 'step': 3,
            'gemm': 2, 'wait': 2, 'transfer': 3, 'other': 1}
    assert cls == collections.Counter(want), cls
    assert ranks == ['rank 0 (class 0)', 'rank 1 (class 1) <b>'], ranks
    assert ticks == ['0 ms', '0.5 ms', '1 ms', '1.5 ms', '2 ms', '2.5 ms'], ticks
    titles = [title(r) for r in rects]
    assert 'A<&>"\' x (wait): 0.100 ms at 0.600 ms' in titles, titles
    assert 'A<&>"\' x (transfer): 0.695 ms at 0.005 ms' in titles, titles
    assert 'step 2: \u00e9t\u00e9 (step): 1.000 ms at 1.010 ms' in titles, titles
    ys = {}
    for r in rects:
        if title(r):
            ys.setdefault(title(r).split(' (')[0] + '/' + r.get('class'),
                          []).append(float(r.get('y')))
    # rank 0: compute, step, gemm on levels 0, 1, 2; its transfer below.
    c0, s0, g0 = ys['compute/compute'][0], ys['step 1: C[m, n] = A[m, k] * B[k, n]/step'][0], ys['gemm/gemm'][0]
    assert c0 < s0 < g0 < ys['A<&>"\' x/transfer'][0], ys
    assert ys['A<&>"\' x/wait'][0] == g0, ys
    # rank 1: the two overlapping transfers on two sub-rows.
    assert ys['B: shift/transfer'][0] < ys['C: sums/transfer'][0], ys
    lg = [r.get('fill') for r in rects if r.get('class') == 'legend']
    assert len(set(lg)) == 6, lg
else:
    t = json.load(open(sys.argv[3]))
    ev = [e for e in t['traceEvents'] if e['ph'] == 'X']
    want = collections.Counter(e['cat'] for e in ev)
    got = collections.Counter({k: v for k, v in cls.items()
                               if k not in ('background', 'legend', 'row')})
    assert got == want, (got, want)
    n = t['otherData']['ranks']
    assert ranks == ['rank %d (class %d)' % (r, r) for r in range(n)], ranks
    assert cls['row'] == n, cls
    assert ticks and ticks[0] == '0 ms', ticks
EOF
		ok "$what"
	else
		ko "$what"
	fi
}

if "$WORK/tsvg" "$WORK/small.json" "$WORK/small.svg" 2>"$WORK/e.txt" &&
   [ ! -s "$WORK/e.txt" ]; then
	ok "small trace: dmd_trace_svg returns 0, says nothing"
else
	cat "$WORK/e.txt"
	ko "small trace: dmd_trace_svg returns 0, says nothing"
fi
check_svg "$WORK/small.svg" "small trace: rects per category, labels, tooltips, ticks" small
left=$(ls -A "$WORK" | grep -c '\.tmp\.')
[ "$left" -eq 0 ] && ok "small trace: no temporary left" ||
	ko "small trace: $left temporaries left"
if command -v valgrind >/dev/null; then
	if valgrind -q --leak-check=full --errors-for-leak-kinds=all \
		--error-exitcode=9 "$WORK/tsvg" "$WORK/small.json" \
		"$WORK/v.svg" 2>"$WORK/vg.txt"; then
		ok "small trace under valgrind: no errors, no leaks"
	else
		cat "$WORK/vg.txt"
		ko "small trace under valgrind: no errors, no leaks"
	fi
fi

# The trace of a real run: 2 ranks (classes 0 and 1), two steps, a
# transfer in flight during a product, a wait.
cat >"$WORK/prog.c" <<'EOF'
#include <stdint.h>
#include "runtime/dmd_rt.h"

int main(int argc, char **argv)
{
	static const int shape[1] = { 2 };
	static const char *const names[1] = { "x" };
	static const char *const steps[2] = { "step 1: gemm", "step 2: idle" };
	static const int64_t r0[1][2] = { { 0, 0 } }, r1[1][2] = { { 1, 1 } };
	dmd_job_desc job = {
		.job = "trace", .n_axes = 1, .mesh_shape = shape,
		.axis_names = names, .nranks = 2, .nclasses = 2,
		.dtype = DMD_RT_F64, .flops = -1, .job_dir = "/",
		.n_steps = 2, .step_labels = steps,
	};
	int cls = argc > 1 && argv[1][0] == '1';
	dmd_rt *rt = dmd_init(&argc, &argv, &job, cls, 1, cls ? r1 : r0);
	int64_t n = 100000, z = 0, peer[1] = { 1 - dmd_rank(rt) };
	double *a = dmd_alloc(rt, 400 * 400), *c = dmd_alloc(rt, 400 * 400);
	double *s = dmd_alloc(rt, n), *r = dmd_alloc(rt, n);
	dmd_req *q = dmd_req_new(rt, 1, 0, "S: exchange <x>");

	dmd_compute_begin(rt);
	dmd_step_begin(rt, 0);
	dmd_irecv(rt, q, peer, r, 1, &n, &z, &n);
	dmd_isend(rt, q, peer, s, 1, &n, &z, &n);
	dmd_gemm(rt, 0, 0, 400, 400, 400, a, 400, a, 400, c, 400);
	dmd_wait(rt, q);
	dmd_step_end(rt, 0);
	dmd_step_begin(rt, 1);
	dmd_step_end(rt, 1);
	dmd_compute_end(rt);
	return dmd_finish(rt);
}
EOF
if make -s obj/libdmdrt.a >"$WORK/make.log" 2>&1 &&
   mpicc.mpich -O2 -Wall -Wextra -Werror -std=gnu11 -I. \
	$(pkg-config --cflags openblas) -o "$WORK/prog" "$WORK/prog.c" \
	obj/libdmdrt.a $(pkg-config --libs openblas) -lm \
	>>"$WORK/make.log" 2>&1 &&
   DMD_TRACE=$WORK/run.json timeout 60 mpiexec.mpich -n 1 "$WORK/prog" 0 : \
	-n 1 "$WORK/prog" 1 >"$WORK/run.out" 2>&1 &&
   "$WORK/tsvg" "$WORK/run.json" "$WORK/run.svg"; then
	ok "runtime trace: drawn"
	check_svg "$WORK/run.svg" "runtime trace: one rect per event, rank labels" \
		runtime "$WORK/run.json"
else
	cat "$WORK/make.log" "$WORK/run.out"
	ko "runtime trace: drawn"
fi

# Bad inputs: -1 with one message, no SVG.
printf '{"traceEvents": [\n{"ph": "X", "pid": 0, "ts": 1,\n' >"$WORK/cut.json"
echo '{"events": []}' >"$WORK/noev.json"
echo '{"traceEvents": [{"name": "x", "ph": "X", "pid": 0, "dur": 3}]}' \
	>"$WORK/nots.json"
echo '{"traceEvents": [[1, 2]]}' >"$WORK/notobj.json"
# bad NAME JSON MESSAGE
bad() {
	local name=$1 json=$2 msg=$3
	rm -f "$WORK/bad.svg"
	"$WORK/tsvg" "$json" "$WORK/bad.svg" 2>"$WORK/e.txt"
	local rc=$?
	if [ $rc -eq 1 ] && [ "$(cat "$WORK/e.txt")" = "$msg" ] &&
	   [ ! -e "$WORK/bad.svg" ]; then
		ok "$name"
	else
		echo "status $rc, stderr: $(cat "$WORK/e.txt")"
		ko "$name"
	fi
}
bad "missing trace" "$WORK/nope.json" \
	"distmpmd: trace $WORK/nope.json: cannot open: No such file or directory"
bad "cut trace" "$WORK/cut.json" \
	"distmpmd: trace $WORK/cut.json: not JSON: did not find expected node content at line 3, column 1"
bad "no traceEvents" "$WORK/noev.json" \
	"distmpmd: trace $WORK/noev.json: no \"traceEvents\" array"
bad "event without ts" "$WORK/nots.json" \
	"distmpmd: trace $WORK/nots.json: event 0 lacks a numeric \"ts\" or \"dur\""
bad "event not an object" "$WORK/notobj.json" \
	"distmpmd: trace $WORK/notobj.json: event 0 is not an object"
"$WORK/tsvg" "$WORK/small.json" "$WORK/no/dir/x.svg" 2>"$WORK/e.txt"
rc=$?
msg=$(cat "$WORK/e.txt")
case $msg in
"distmpmd: trace $WORK/small.json: cannot write $WORK/no/dir/x.svg.tmp."*": No such file or directory")
	[ $rc -eq 1 ] && ok "unwritable SVG" || ko "unwritable SVG: status $rc" ;;
*)
	echo "status $rc, stderr: $msg"
	ko "unwritable SVG" ;;
esac
finish
