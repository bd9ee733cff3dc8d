#!/bin/bash
# The main job: compile examples/pumma_2x2.yaml (PUMMA, a matrix product on
# a 2x2 mesh) into per-class MPI programs, run them with mpiexec.mpich,
# check C against the independent sequential reference (distmpmd ref), and
# report what ran, where the files are and what the figures mean.
#
# Usage: bash examples/demo.sh [JOB.yaml]   (after `bash setup.sh`)
#
# It works in a scratch directory, build/demo/ of the source tree
# (DEMO_DIR=DIR to choose another): the job is copied there, so its input
# and output files (B.npy, C.npy: relative to the job file) are written
# there, never into examples/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JOB=${1:-$ROOT/examples/pumma_2x2.yaml}
name=$(basename "$JOB" .yaml)
work=${DEMO_DIR:-$ROOT/build/demo}
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work"
cp "$JOB" "$work/"
cd "$work"
work=$(pwd -P)
export OPENBLAS_NUM_THREADS=1

# What runs: the job's own description (its leading comment lines), its
# statement, tensors and mesh.
echo "demo: $name.yaml, in $work"
sed -n '/^#/!q; s/^# \{0,1\}/  | /p' "$name.yaml"
"$PY" - "$name.yaml" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
mesh = job["mesh"]
n = 1
for e in mesh["shape"]:
    n *= e
print("  mesh: %s, axes %s (%d ranks)" % (
    "x".join(map(str, mesh["shape"])), ", ".join(mesh["axes"]), n))
def statements(steps):
    for s in steps:
        if "compute" in s:
            yield s["compute"]
        else:
            yield from statements(s.get("steps", []))
steps = [job["compute"]] if "compute" in job else \
    list(statements(job["program"]))
written = set()
for s in steps:
    print("  computes: %s" % s)
    written.add(s.split("=")[0].rstrip("+ ").split("[")[0].strip())
for t, d in job["tensors"].items():
    shape = "x".join(map(str, d["shape"])) or "scalar"
    if "file" in d:
        how = ("written to %s" if t in written else "read from %s") \
            % d["file"]
    elif "init" in d:
        how = "%s, seed %s" % (d["init"], d.get("seed", 0))
    else:
        how = "in memory"
    print("  %-3s %s %s, %s" % (t, shape, d["dtype"], how))
PY

echo
echo "== inputs: distmpmd ref inputs $name.yaml (random values, from the seeds)"
"$DMD" ref inputs "$name.yaml"
echo
echo "== build: distmpmd build $name.yaml -o build"
"$DMD" build "$name.yaml" -o "$work/build"
echo
echo "== rank classes: distmpmd classes $name.yaml"
"$DMD" classes "$name.yaml" | sed -n '1p;/^mesh by class/,$p'
echo
echo "== run: distmpmd run build --stats"
"$DMD" run "$work/build" --stats 2>&1 | tee run.out
echo
echo "== check: distmpmd ref check $name.yaml (numpy, float64)"
# the reference's part (inputs above, check here) takes well under 2 s
check=$("$DMD" ref check "$name.yaml")
printf '%s\n' "$check"
"$PY" - run.out "$check" "$name.yaml" "$work" <<'PY'
import json, os, sys, yaml
st = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
job = yaml.safe_load(open(sys.argv[3]))
work = sys.argv[4]
print()
print("report")
print("  ranks            %d" % st["ranks"])
print("  classes          %d  (ranks that run the same program; one C file"
      " each)" % st["classes"])
print("  time (compute)   %.6f s  (the slowest rank; file I/O excluded)"
      % st["time_s"])
print("  GFLOP/s          %s" % ("%.2f  (2 M N K / time, of the matrix "
      "products)" % st["gflops"] if st["gflops"] is not None else
      "n/a (no matrix product)"))
print("  bytes moved      %d (busiest rank %d), %d messages"
      % (st["bytes_moved_total"], st["bytes_recv_max"], st["messages"]))
print("  blas             %s  (OpenBLAS's core type for this CPU: the "
      "kernels it chose;" % st["blas"])
print("                   OPENBLAS_CORETYPE=... chooses others)")
for k, line in enumerate(sys.argv[2].splitlines()):    # one per output
    print("  %-16s %s" % ("check" if k == 0 else "", line))
for t, d in job["tensors"].items():
    if "file" in d and "init" not in d and t in [
            l.split()[1].rstrip(":") for l in sys.argv[2].splitlines()]:
        print("  output %-9s %s  (%s %s; numpy.load reads it)" % (
            t, os.path.join(work, d["file"]),
            "x".join(map(str, d["shape"])), d["dtype"]))
print("  build directory  %s  (classK.c, manifest.yaml, appfile)"
      % os.path.join(work, "build"))
PY
