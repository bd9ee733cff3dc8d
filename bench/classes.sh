#!/usr/bin/env bash
# bench/classes.sh: how long `distmpmd classes` takes on the scale jobs
# (tests/scale/*.yaml: meshes of up to 2^20 ranks).  The tests check the
# class counts without time limits; the time is measured here.
#
#   bash bench/classes.sh [JOB.yaml ...]
#
# Default: every tests/scale/*.yaml.  Each job is run BENCH_CLASSES_REPS
# times (default 3), each under `timeout BENCH_TIMEOUT` (default 300 s);
# the wall time of the whole command (process start, parse, analysis, the
# listing) is measured.  Prints one JSON line per job on stdout:
#   {"kind": "classes", "job": NAME, "ranks": N, "classes": K,
#    "times_s": [...], "median_s": T, "bound_s": B, "ok": true|false,
#    "msg": "..."}
# ok is false when a run failed (exit status, timeout, no "N ranks, K
# classes" line); a median over the bound (BENCH_CLASSES_BOUND, default
# 10 s, the issue's) is reported by report.py, not counted as a failure.
# Exit status 1 if a run failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
dmd=${DISTMPMD:-$top/bin/distmpmd}
py=/usr/bin/python3
reps=${BENCH_CLASSES_REPS:-3}
tmo=${BENCH_TIMEOUT:-300}
bound=${BENCH_CLASSES_BOUND:-10}

if [ $# -eq 0 ]; then
	set -- "$top"/tests/scale/*.yaml
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmdclasses.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

status=0
for job in "$@"; do
	name=$(basename "$job" .yaml)
	times=() ok=true msg=""
	for ((r = 1; r <= reps; ++r)); do
		t0=$(date +%s.%N)
		if timeout -k 10 "$tmo" "$dmd" classes "$job" > "$tmp/out" 2>&1; then
			t1=$(date +%s.%N)
			times+=("$($py -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.3f}")' "$t0" "$t1")")
		else
			rc=$?
			ok=false
			msg="run $r: exit status $rc$([ $rc = 124 ] && echo " (timeout ${tmo}s)"): $(tail -n 2 "$tmp/out" | tr '\n' ' ')"
			break
		fi
	done
	# "job NAME: N ranks, K classes" (the first line of the listing)
	head=$(grep -m1 -E '^job .*: [0-9]+ ranks?, [0-9]+ class' "$tmp/out" || true)
	ranks=$(sed -E 's/.*: ([0-9]+) ranks?, ([0-9]+) class.*/\1/' <<< "$head")
	classes=$(sed -E 's/.*: ([0-9]+) ranks?, ([0-9]+) class.*/\2/' <<< "$head")
	if [ -z "$head" ] && $ok; then
		ok=false msg="no 'N ranks, K classes' line in the output"
	fi
	$ok || status=1
	$py - "$name" "${ranks:-0}" "${classes:-0}" "$bound" "$ok" "$msg" \
		"${times[@]+"${times[@]}"}" <<'EOF'
import json, statistics, sys
name, ranks, classes, bound, ok, msg = sys.argv[1:7]
times = [float(t) for t in sys.argv[7:]]
print(json.dumps({"kind": "classes", "job": name, "ranks": int(ranks),
                  "classes": int(classes), "times_s": times,
                  "median_s": statistics.median(times) if times else None,
                  "bound_s": float(bound), "ok": ok == "true", "msg": msg}))
EOF
	echo "classes: $name: ${times[*]+${times[*]}} s" >&2
done
exit $status
