#!/bin/bash
# Scale: jobs on meshes of up to 2^20 ranks with uneven extents have the
# expected (few) classes, and their manifests list every rank exactly
# once; the seed examples build at their full sizes into valid manifests
# and appfiles.  The analysis is symbolic in the mesh coordinates, so
# nothing here grows with the number of ranks but the listing of them.
# A timeout guards against hangs; the plans and builds of products
# without a schedule (issue 16, item 5: the search at scale) are also
# bounded in wall time, as the issue asks (times are measured by bench/,
# not here).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
passed=0 failed=0
# the time bounds are the issue's, for the optimised build: under the
# sanitizers (bin-san, several times slower) they are 5 times as long
SLOW=1
case "$DMD" in */bin-san/*) SLOW=5 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check JOB CLASSES NRANKS [SECS]   (CLASSES "=N": exactly N; "N": at
# most N; SECS: the build, compiling included, ends within SECS seconds)
check() {
    local job=$1 max=$2 secs=$((${4:-0} * SLOW)) nranks=$3 name
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
assert float(secs) == 0 or el < float(secs), \
    "build took %.1f s, more than %s s" % (el, secs)
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

# classes JOB N [SECS]: `distmpmd classes JOB` finds exactly N classes,
# whose rank counts add up to the mesh (within SECS seconds of wall time)
classes() {
    local job=$1 want=$2 secs=${3:-300} name out t0 t1
    name=$(basename "$job" .yaml)
    t0=$(date +%s.%N)
    if ! out=$(timeout 300 "$DMD" classes "$ROOT/$job" 2>&1); then
        echo "FAIL $name: distmpmd classes failed"; echo "$out" | head -5
        failed=$((failed + 1)); return
    fi
    t1=$(date +%s.%N)
    if "$PY" - "$want" "$t0" "$t1" $((secs * SLOW)) <<PYEOF
import re, sys
out = """$(echo "$out" | grep -E '^(job|class [0-9])')"""
want = int(sys.argv[1])
el = float(sys.argv[3]) - float(sys.argv[2])
assert el < float(sys.argv[4]), "classes took %.1f s, more than %s s" % (
    el, sys.argv[4])
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

# auto JOB SECS SCHEDULE VIEW FIGURES: `distmpmd plan --json JOB` of a
# step without a schedule (issue 16, item 5) ends within SECS seconds
# of wall time, chooses exactly SCHEDULE (its commands joined by "; ")
# over VIEW ("-": the mesh), analysed exactly, with the step's FIGURES
# ("key=value ...", e.g. flops_max=134217728) as derived in the job's
# comment.  The bound is what the issue asks (10 s up to 4096 ranks, 60 s
# on 2^20); the machine's load may eat into it, so it is an upper bound,
# not a benchmark (bench/ measures).
auto() {
    local job=$1 secs=$2 sched=$3 view=$4 figs=$5 name t0 t1
    name=$(basename "$job" .yaml)
    t0=$(date +%s.%N)
    if ! timeout 300 "$DMD" plan --json "$ROOT/$job" > "$tmp/$name.json" \
            2> "$tmp/$name.err"; then
        echo "FAIL scale $name: plan failed"; cat "$tmp/$name.err"
        failed=$((failed + 1)); return
    fi
    t1=$(date +%s.%N)
    if "$PY" - "$tmp/$name.json" "$t0" "$t1" $((secs * SLOW)) "$sched" "$view" \
            "$figs" <<'PYEOF'
import json, sys
path, t0, t1, secs, sched, view, figs = sys.argv[1:]
p = json.load(open(path))
el = float(t1) - float(t0)
assert el < float(secs), "plan took %.1f s, more than %s s" % (el, secs)
s = p["steps"][0]
assert s["searched"], s
assert "; ".join(s["schedule"]) == sched, s["schedule"]
assert s["view"] == (None if view == "-" else view), s["view"]
c = s["candidates"][0]
assert c["chosen"] and c["exact"] and c["rejected"] is None, c
for kv in figs.split():
    k, v = kv.split("=")
    assert s[k] == int(v) and c[k] == int(v), (k, s[k], c[k], v)
# the busiest receiver receives no more than is moved in all; the
# program's figures are the step's (one step)
assert s["bytes_recv_max"] <= s["bytes_moved_total"], s
for k in ("bytes_moved_total", "bytes_recv_max", "messages", "mem_max"):
    assert p[k] == s[k], (k, p[k], s[k])
# the others come after it (time, then bytes at the busiest receiver)
for d in s["candidates"][1:]:
    assert (d["model_time_s"], d["bytes_recv_max"]) >= \
        (c["model_time_s"], c["bytes_recv_max"]) or not d["exact"], d
print("%s, %.1f s" % (c["algorithm"], el))
PYEOF
    then
        echo "ok scale plan $name"
        passed=$((passed + 1))
    else
        echo "FAIL scale plan $name"
        failed=$((failed + 1))
    fi
}

# plans of products without a schedule: 1-D, 2-D and 3-D winning on 4096
# ranks, 2-D on 2^20 ranks
auto tests/scale/auto_1d_4096.yaml 10 \
    "distribute([m], [mo], [mi], [r]); tensorize([mi, n, k], gemm)" - \
    "flops_max=134217728 mem_max=4194304 bytes_moved_total=0 messages=0"
auto tests/scale/auto_2d_64x64.yaml 10 \
    "distribute([m, n], [mo, no], [mi, ni], [x, y]); tensorize([mi, ni, k], gemm)" - \
    "flops_max=536870912 mem_max=12582912 bytes_moved_total=0 messages=0"
auto tests/scale/auto_3d_16x16x16.yaml 10 \
    "distribute([m, n, k], [mo, no, ko], [mi, ni, ki], [x, y, z]); tensorize([mi, ni, ki], gemm)" - \
    "flops_max=2147483648 mem_max=134479872 bytes_recv_max=1966080 messages=3840 bytes_moved_total=503316480"
auto tests/scale/auto_2d_1024x1024.yaml 60 \
    "distribute([m, n], [mo, no], [mi, ni], [x, y]); tensorize([mi, ni, k], gemm)" - \
    "flops_max=536870912 mem_max=12582912 bytes_moved_total=0 messages=0"
# plans of a stencil without a schedule (issue 16: steps that are not
# products, pruned by the closed-form estimate) on 64 and 4096 ranks:
# owner computes kept
auto tests/scale/stencil_auto_8x8.yaml 10 "" - \
    "flops_max=62500 bytes_recv_max=4000 bytes_moved_total=223552 messages=224"
auto tests/scale/stencil_auto_64x64.yaml 10 "" - \
    "flops_max=1024 bytes_recv_max=512 bytes_moved_total=1980032 messages=15624"

# planned JOB SECS FIGURES: `distmpmd plan --json JOB` of a job with its
# schedule written ends within SECS seconds of wall time (as auto's) with
# the program's FIGURES ("key=value ...") as derived below.
planned() {
    local job=$1 secs=$2 figs=$3 name t0 t1
    name=$(basename "$job" .yaml)
    t0=$(date +%s.%N)
    if ! timeout 300 "$DMD" plan --json "$ROOT/$job" > "$tmp/$name.json" \
            2> "$tmp/$name.err"; then
        echo "FAIL scale plan $name: plan failed"; cat "$tmp/$name.err"
        failed=$((failed + 1)); return
    fi
    t1=$(date +%s.%N)
    if "$PY" - "$tmp/$name.json" "$t0" "$t1" $((secs * SLOW)) "$figs" \
            <<'PYEOF'
import json, sys
path, t0, t1, secs, figs = sys.argv[1:]
p = json.load(open(path))
el = float(t1) - float(t0)
assert el < float(secs), "plan took %.1f s, more than %s s" % (el, secs)
for kv in figs.split():
    k, v = kv.split("=")
    assert p[k] == int(v), (k, p[k], v)
print("%.1f s" % el)
PYEOF
    then
        echo "ok scale plan $name"
        passed=$((passed + 1))
    else
        echo "FAIL scale plan $name"
        failed=$((failed + 1))
    fi
}

# The cost of rotated SUMMA with tails (issue 16, item 5: plan within 60 s
# on 1024x1024; 230 s on 256x256 before its broadcasts' events were
# summed over the loop before the rotation).  On an N x N mesh: rows
# r = ceil(1000 / N) on the nx ranks x with some, panels of k of
# ceil(640 / N) (s(j) elements in panel j, nz panels not empty), columns
# on ny ranks y.  A moves point to point: a rank (x < nx, y < ny)
# receives every panel not empty but its own, r * 8 * (640 - s(y))
# bytes in nz - [s(y) > 0] messages; B is broadcast along x: every rank
# (any x, y < ny) but the panel's holder receives it, 8 * c * (640 -
# s(x)) bytes in nz - [s(x) > 0] messages (c = ceil(1000 / N)).  The
# busiest is a rank holding no panel of either: 8 * 640 * (r + c).
#   256: r = c = 4, nx = ny = 250, s = 3 (panels 0 .. 212), 1 (panel
#        213), 0 (the rest), nz = 214; bytes 32 * 250 * ((250 * 640 -
#        640) + (256 * 640 - 640)) = 2580480000, messages 250 * ((250 *
#        214 - 214) + (256 * 214 - 214)) = 26964000, busiest 40960.
#   1024: r = c = 1, nx = ny = 1000, s = 1 on 640 panels; bytes
#        8 * (1000 * (1000 * 640 - 640) + 1000 * (1024 * 640 - 640))
#        = 10352640000, messages 1294080000, busiest 10240.
planned tests/scale/summa_tail_256x256.yaml 10 \
    "bytes_moved_total=2580480000 bytes_recv_max=40960 messages=26964000"
planned tests/scale/summa_tail_1024x1024.yaml 60 \
    "bytes_moved_total=10352640000 bytes_recv_max=10240 messages=1294080000"
# Cannon with tails on 64x64 (its ring shifts at a loop rotated by both
# coordinates, summed over the loop before the rotation; its sums priced
# rank by rank: 18 s before, 6 s after): rows r(x) = 16 for x < 62, 8 for
# x = 62, none for x = 63, columns c(y) the same, panels of 10.  A rank
# computes iff x < 63 and y < 63 and then receives, at each of the 63
# time points after its first, A's panel (8 * 10 * r(x) bytes) and B's
# (8 * 10 * c(y)); the others receive nothing.  bytes 2 * 63 * 63 * 80 *
# (62 * 16 + 8) = 635040000, messages 2 * 63 * 63 * 63 = 500094, busiest
# 2 * 63 * 80 * 16 = 161280.
planned tests/scale/cannon_tail_64x64.yaml 30 \
    "bytes_moved_total=635040000 bytes_recv_max=161280 messages=500094"

# built (compiled, manifest and appfile checked), not run
check tests/scale/summa_64x64.yaml =9 4096
# the search's choices built within the issue's 10 s
check tests/scale/auto_2d_64x64.yaml =1 4096 10
check tests/scale/auto_3d_16x16x16.yaml =2 4096 10
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
# (issue 17: within 10 s)
classes tests/scale/cyclic_512x512.yaml 6 10
# SUMMA tensorized on 2-D block-cyclic layouts, short last holders
classes tests/scale/summa_cyclic_512x512.yaml 4 10
# the seed examples at their full sizes: built (compiled), not run
check examples/summa.yaml =1 64
check examples/pumma.yaml =1 64
check examples/cannon.yaml =1 64
check examples/ag_gemm.yaml =1 4
check examples/tail.yaml =2 2
check examples/stencil3.yaml =3 5
echo "$passed passed, $failed failed"
[ $failed = 0 ]
