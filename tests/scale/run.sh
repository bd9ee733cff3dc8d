#!/bin/bash
# Scale: jobs on a 64x64 mesh (4096 ranks) with uneven extents build in
# seconds (the analysis is symbolic in the mesh coordinates), with few
# classes, and the manifest lists every rank exactly once; the seed
# examples build at their full sizes into valid manifests and appfiles.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check JOB MAXCLASSES MAXSECONDS NRANKS   (MAXCLASSES "=N": exactly N)
check() {
    local job=$1 max=$2 secs=$3 nranks=$4 name
    name=$(basename "$job" .yaml)
    local t0 t1
    t0=$(date +%s.%N)
    if ! timeout 300 "$DMD" build "$ROOT/$job" -o "$tmp/$name" \
            > "$tmp/$name.out" 2>&1; then
        echo "FAIL $name: build failed"; cat "$tmp/$name.out"
        failed=$((failed + 1)); return
    fi
    t1=$(date +%s.%N)
    if "$PY" - "$tmp/$name/manifest.yaml" "$tmp/$name/appfile" "$max" \
            "$t0" "$t1" "$secs" "$nranks" "$tmp/$name" <<'PYEOF'
import os, sys, yaml
man, app, mx, t0, t1, secs, nranks, d = sys.argv[1:]
m = yaml.safe_load(open(man))
n = m["nranks"]
assert n == int(nranks), n
for c in m["classes"]:
    assert os.access(os.path.join(d, c["binary"]), os.X_OK), c["binary"]
    assert os.path.exists(os.path.join(d, c["source"])), c["source"]
seen = [0] * n
for c in m["classes"]:
    cnt = 0
    for lo, hi in c["ranks"]:
        for r in range(lo, hi + 1):
            seen[r] += 1
            cnt += 1
    assert cnt == c["count"], (c["id"], cnt, c["count"])
bad = [r for r in range(n) if seen[r] != 1]
assert not bad, "ranks not covered exactly once: %s" % bad[:10]
k = len(m["classes"])
if mx.startswith("="):
    assert k == int(mx[1:]), "%d classes, %s expected" % (k, mx[1:])
else:
    assert 1 <= k <= int(mx), "%d classes, at most %s expected" % (k, mx)
# the appfile runs every rank once, in rank order
tot = 0
for line in open(app):
    f = line.split()
    assert f[0] == "-n", line
    tot += int(f[1])
assert tot == n, tot
el = float(t1) - float(t0)
assert el < float(secs), "build took %.1f s" % el
print("%d classes, %.1f s" % (k, el))
PYEOF
    then
        echo "ok scale $name"
        passed=$((passed + 1))
    else
        echo "FAIL scale $name"
        failed=$((failed + 1))
    fi
}

check tests/scale/summa_64x64.yaml 9 60 4096
check tests/scale/stencil_64x64.yaml 27 120 4096
# the seed examples at their full sizes: built (compiled), not run
check examples/summa.yaml =1 60 64
check examples/pumma.yaml =1 60 64
check examples/cannon.yaml =1 60 64
check examples/ag_gemm.yaml =1 60 4
check examples/tail.yaml =2 60 2
check examples/stencil3.yaml =3 60 5
echo "$passed passed, $failed failed"
[ $failed = 0 ]
