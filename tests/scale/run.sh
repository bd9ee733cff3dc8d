#!/bin/bash
# Scale: jobs on meshes of up to 2^20 ranks with uneven extents have the
# expected (few) classes, and their manifests list every rank exactly
# once; the seed examples build at their full sizes into valid manifests
# and appfiles.  The analysis is symbolic in the mesh coordinates, so
# nothing here grows with the number of ranks but the listing of them.
# A timeout guards against hangs only: times are measured by
# bench/classes.sh, not here.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check JOB CLASSES NRANKS   (CLASSES "=N": exactly N; "N": at most N)
check() {
    local job=$1 max=$2 secs=0 nranks=$3 name
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

# classes JOB N: `distmpmd classes JOB` finds exactly N classes, whose
# rank counts add up to the mesh
classes() {
    local job=$1 want=$2 name out
    name=$(basename "$job" .yaml)
    if ! out=$(timeout 300 "$DMD" classes "$ROOT/$job" 2>&1); then
        echo "FAIL $name: distmpmd classes failed"; echo "$out" | head -5
        failed=$((failed + 1)); return
    fi
    if "$PY" - "$want" <<PYEOF
import re, sys
out = """$(echo "$out" | grep -E '^(job|class [0-9])')"""
want = int(sys.argv[1])
m = re.match(r"job \S+: (\d+) ranks, (\d+) class", out)
n, k = int(m.group(1)), int(m.group(2))
assert k == want, "%d classes, %d expected" % (k, want)
tot = sum(int(c) for c in re.findall(r"^class \d+ \(.\): (\d+) rank", out, re.M))
assert tot == n, "classes cover %d of %d ranks" % (tot, n)
print("%d ranks, %d classes" % (n, k))
PYEOF
    then
        echo "ok scale classes $name"
        passed=$((passed + 1))
    else
        echo "FAIL scale classes $name"
        failed=$((failed + 1))
    fi
}

# built (compiled, manifest and appfile checked), not run
check tests/scale/summa_64x64.yaml =9 4096
check tests/scale/stencil_64x64.yaml =16 4096
check tests/scale/summa_tail_1024x1024.yaml =16 1048576
# the class derivation at scale (SUMMA with a rotation and uneven
# extents, a 3-D product, a 1-D stencil of 2^20 ranks)
classes tests/scale/summa_tail_128x128.yaml 9
classes tests/scale/summa_tail_256x256.yaml 16
classes tests/scale/summa_tail_512x512.yaml 16
classes tests/scale/johnson_16x16x16.yaml 12
classes tests/scale/stencil_1d_2p20.yaml 4
# 2-D block-cyclic with uneven extents on 512x512 (spec 1.2, v3)
classes tests/scale/cyclic_512x512.yaml 6
# SUMMA tensorized on 2-D block-cyclic layouts, short last holders
classes tests/scale/summa_cyclic_512x512.yaml 4
# the seed examples at their full sizes: built (compiled), not run
check examples/summa.yaml =1 64
check examples/pumma.yaml =1 64
check examples/cannon.yaml =1 64
check examples/ag_gemm.yaml =1 4
check examples/tail.yaml =2 2
check examples/stencil3.yaml =3 5
echo "$passed passed, $failed failed"
[ $failed = 0 ]
