#!/bin/bash
# The main job: compile examples/pumma_2x2.yaml into per-class MPI
# programs, run them with mpiexec.mpich, check C against the independent
# sequential reference (tests/ref/dmd_ref.py), and report.
# Usage: bash examples/demo.sh [JOB.yaml]   (after `bash setup.sh`)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JOB=${1:-$ROOT/examples/pumma_2x2.yaml}
name=$(basename "$JOB" .yaml)
work=$ROOT/build/demo
rm -rf "$work"
mkdir -p "$work"
cp "$JOB" "$work/"
cd "$work"
export OPENBLAS_NUM_THREADS=1
/usr/bin/python3 "$ROOT/tests/ref/dmd_ref.py" inputs "$name.yaml"
"$ROOT/bin/distmpmd" build "$name.yaml" -o "$work/build"
"$ROOT/bin/distmpmd" classes "$name.yaml" | sed -n '1p;/^mesh by class/,$p'
"$ROOT/bin/distmpmd" run "$work/build" --stats | tee run.out
# the reference's part (inputs above, check here) takes well under 2 s
check=$(/usr/bin/python3 "$ROOT/tests/ref/dmd_ref.py" check "$name.yaml")
/usr/bin/python3 - run.out "$check" <<'PY'
import json, sys
st = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
print()
print("report")
print("  ranks            %d" % st["ranks"])
print("  classes          %d" % st["classes"])
print("  time (compute)   %.6f s" % st["time_s"])
print("  GFLOP/s          %s" % ("%.2f" % st["gflops"] if st["gflops"] is not None else "n/a"))
print("  bytes moved      %d (busiest rank %d), %d messages"
      % (st["bytes_moved_total"], st["bytes_recv_max"], st["messages"]))
for k, line in enumerate(sys.argv[2].splitlines()):    # one per output
    print("  %-16s %s" % ("check" if k == 0 else "", line))
PY
echo "  build directory  $work/build (classK.c, manifest.yaml, appfile)"
