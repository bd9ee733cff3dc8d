#!/bin/bash
# Golden tests: for every job in tests/codegen/, the class listing
# (JOB.classes), what check says (JOB.check: loops, index ranges,
# transfers, proofs), the header every class program shares (JOB.common.h) and
# the emitted C of every class (JOB.classK.c), and where JOB.lib.c is
# there the source and header of its library (JOB.lib.c, JOB.lib.h:
# distmpmd emit --lib, --lib-header) must equal the committed
# files byte for byte (regenerate with `make golden`, then review the
# diff), and every class program must compile without a warning
# (-Wall -Wextra -Wconversion -Wshadow -Werror) against the runtime's
# headers, with no line of 100 columns or more; `distmpmd plan` must give
# as mem_max what the largest class allocates (its dmd_alloc sizes).  The
# classes of every job of examples/ too (no goldens: compiled and
# measured).  A job with a twin tests/codegen/axe/JOB.yaml (the same job
# with its layouts written as Axe layouts, spec 1.2 'axe') must give the
# same class listing, check output, common.h and class files as the job,
# byte for byte.  The jobs of BY_RANK are built a second time with every
# test of dmd_part_map_rel decided rank by rank (DMD_BY_RANK_QUOTA=1:
# the transfer proofs, the holes of boxes, what a sender holds) and must
# give the same listing, check output and C.  The jobs are checked side by side (tests/par.sh:
# TEST_JOBS at once, default the processors, at most 2), their outputs
# printed in order.
#	bash tests/codegen/run.sh [JOB...]	(JOB: a name, default every job
#						and every example)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
cd "$ROOT/tests/codegen"
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tests/par.sh"
par_init "$tmp/par"
examples=()
if [ $# -gt 0 ]; then
    jobs=()
    for n in "$@"; do jobs+=("${n%.yaml}.yaml"); done
else
    jobs=(*.yaml)
    examples=("$ROOT"/examples/*.yaml)
fi

# Jobs built again rank by rank, those whose tests go rank by rank under
# DMD_BY_RANK_QUOTA=1 (some finish within one isl operation): holes
# found rank by rank (axe_cyclic_place_12: their combs), returns, halos,
# divisions of views, reshards.
BY_RANK="axe_cyclic_place_12 cyclic_jacobi_3 cyclic_matvec_2x2
reshard_cyclic_view_6 pumma_view7 return_replicated_3x2 conv"

# Does class file "$2" (of job "$1") compile without a warning, with no
# line of 100 columns or more?  Says why not.
compiles() {
    if ! mpicc.mpich -std=gnu11 -fsyntax-only -Wall -Wextra -Wconversion \
            -Wshadow -Werror -I"$ROOT/runtime" "$2" 2> "$scr/cc"; then
        echo "FAIL $1: $(basename "$2") does not compile cleanly:"
        head -n 20 "$scr/cc" | sed 's/^/    /'
        return 1
    fi
    if awk 'length($0) >= 100 { print FILENAME ":" FNR ": " length($0) \
            " columns"; bad = 1 } END { exit bad }' "$2" > "$scr/long"; then
        return 0
    fi
    echo "FAIL $1: lines of 100 columns or more:"
    head -n 5 "$scr/long" | sed 's/^/    /'
    return 1
}
# Do jobs "$1" and "$2" (a twin in another directory) build to the same
# files?  classes, check (each run from its job's directory), emit
# --common and every class; says where they differ.
same_build() {
    local a=$1 b=$2 k n out
    out=$scr/twin
    mkdir -p "$out"
    for cmd in classes check; do
        (cd "$(dirname "$a")" && "$DMD" $cmd "$(basename "$a")") \
            > "$out/a.$cmd" 2>&1
        (cd "$(dirname "$b")" && "$DMD" $cmd "$(basename "$b")") \
            > "$out/b.$cmd" 2>&1
        if ! cmp -s "$out/a.$cmd" "$out/b.$cmd"; then
            echo "FAIL $b: '$cmd' differs from $a's:"
            diff "$out/a.$cmd" "$out/b.$cmd" | head -n 10 | sed 's/^/    /'
            return 1
        fi
    done
    n=$(sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p' "$out/a.classes")
    [ -n "$n" ] || { echo "FAIL $b: no classes"; return 1; }
    for k in common $(seq 0 $((n - 1))); do
        if [ "$k" = common ]; then set -- --common; else set -- --class "$k"; fi
        "$DMD" emit "$a" "$@" > "$out/a.c" 2>&1
        "$DMD" emit "$b" "$@" > "$out/b.c" 2>&1
        if [ ! -s "$out/a.c" ] || ! cmp -s "$out/a.c" "$out/b.c"; then
            echo "FAIL $b: emit $* differs from $a's:"
            diff "$out/a.c" "$out/b.c" | head -n 10 | sed 's/^/    /'
            return 1
        fi
    done
}
# Does job "$1" (a name) build to its goldens with every test of
# dmd_part_map_rel decided rank by rank?  classes, check, emit --common
# and every class; says where they differ.
by_rank_build() {
    local name=$1 k n g out=$scr/rank
    mkdir -p "$out"
    for cmd in classes check; do
        DMD_BY_RANK_QUOTA=1 "$DMD" $cmd "$name.yaml" > "$out/$cmd" 2>&1
        if ! cmp -s "$name.$cmd" "$out/$cmd"; then
            echo "FAIL $name: '$cmd' rank by rank differs from the golden:"
            diff "$name.$cmd" "$out/$cmd" | head -n 10 | sed 's/^/    /'
            return 1
        fi
    done
    n=$(sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p' "$name.classes")
    for k in common $(seq 0 $((n - 1))); do
        if [ "$k" = common ]; then
            set -- --common; g=$name.common.h
        else
            set -- --class "$k"; g=$name.class$k.c
        fi
        DMD_BY_RANK_QUOTA=1 "$DMD" emit "$name.yaml" "$@" > "$out/c" 2>&1
        if ! cmp -s "$g" "$out/c"; then
            echo "FAIL $name: emit $* rank by rank differs from $g:"
            diff "$g" "$out/c" | head -n 10 | sed 's/^/    /'
            return 1
        fi
    done
}
# check_job JOB: the goldens of tests/codegen/JOB (and of its Axe twin),
# in a background shell of par_start (its own scratch directory $scr).
check_job() {
    local job=$1 name ok n want k jn passed=0 failed=0
    name=${job%.yaml}
    scr=$tmp/scr.$PAR_ID
    mkdir -p "$scr"
    if [ ! -f "$job" ]; then
        echo "FAIL $name: no such job in tests/codegen"
        par_count 0 1
        return
    fi
    ok=1
    if ! "$DMD" classes "$job" > "$tmp/$name.classes" 2> "$scr/err"; then
        echo "FAIL $name: distmpmd classes failed: $(cat "$scr/err")"
        par_count 0 1
        return
    fi
    if ! diff -u "$name.classes" "$tmp/$name.classes"; then ok=0; fi
    "$DMD" check "$job" > "$tmp/$name.check" || ok=0
    if ! diff -u "$name.check" "$tmp/$name.check"; then ok=0; fi
    "$DMD" emit "$job" --common > "$tmp/$name.common.h" || ok=0
    if ! diff -u "$name.common.h" "$tmp/$name.common.h"; then ok=0; fi
    n=$(sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p' "$name.classes")
    want=$(ls "$name".class*.c 2>/dev/null | wc -l)
    if [ "$want" != "$n" ]; then
        echo "FAIL $name: $want golden class files, $n classes"
        ok=0
    fi
    mkdir -p "$tmp/$name"
    cp "$tmp/$name.common.h" "$tmp/$name/common.h"
    for ((k = 0; k < n; k++)); do
        "$DMD" emit "$job" --class "$k" > "$tmp/$name.class$k.c" || ok=0
        if ! diff -u "$name.class$k.c" "$tmp/$name.class$k.c"; then ok=0; fi
        cp "$tmp/$name.class$k.c" "$tmp/$name/class$k.c"
        compiles "$name" "$tmp/$name/class$k.c" || ok=0
    done
    # the library of build --lib, for the jobs with a golden JOB.lib.c:
    # its source and header (emit --lib, --lib-header), compiled
    if [ -f "$name.lib.c" ]; then
        jn=$(sed -n 's/^name: *//p' "$job")
        "$DMD" emit "$job" --lib > "$tmp/$name.lib.c" || ok=0
        if ! diff -u "$name.lib.c" "$tmp/$name.lib.c"; then ok=0; fi
        "$DMD" emit "$job" --lib-header > "$tmp/$name.lib.h" || ok=0
        if ! diff -u "$name.lib.h" "$tmp/$name.lib.h"; then ok=0; fi
        cp "$tmp/$name.lib.h" "$tmp/$name/$jn.h"
        cp "$tmp/$name.lib.c" "$tmp/$name/lib$jn.c"
        compiles "$name" "$tmp/$name/lib$jn.c" || ok=0
        compiles "$name" "$tmp/$name/$jn.h" || ok=0
    fi
    # plan's memory is what the emitted code allocates: the largest sum
    # of the dmd_alloc sizes of a class, in bytes
    if ! "$DMD" plan "$job" --json > "$tmp/$name.plan" 2> "$scr/err" ||
       ! /usr/bin/python3 - "$tmp/$name.plan" "$tmp/$name.common.h" \
            "$tmp/$name".class*.c <<'PYEOF' 2> "$scr/err"; then
import json, re, sys
plan = json.load(open(sys.argv[1]))
es = 8 if "DMD_RT_F64" in open(sys.argv[2]).read() else 4
alloc = max(sum(int(v) for v in re.findall(r"dmd_alloc\(rt, (\d+)\)",
                                             open(c).read())) * es
            for c in sys.argv[3:])
assert plan["mem_max"] == alloc, "plan mem_max %d, the code allocates %d" % (
    plan["mem_max"], alloc)
PYEOF
        echo "FAIL $name: plan's memory: $(tail -n 1 "$scr/err")"
        ok=0
    fi
    if [ $ok = 1 ]; then
        echo "ok codegen $name ($n classes)"
        passed=$((passed + 1))
    else
        echo "FAIL codegen $name"
        failed=$((failed + 1))
    fi
    if [[ " ${BY_RANK//$'\n'/ } " == *" $name "* ]]; then
        if by_rank_build "$name"; then
            echo "ok codegen $name rank by rank: the same listing, check and C"
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    fi
    if [ -f "axe/$job" ]; then
        if same_build "$job" "axe/$job"; then
            echo "ok codegen axe/$name: the same listing, check and C as $name"
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    fi
    par_count $passed $failed
}

# check_example JOB: the classes of an example compile (no goldens).
check_example() {
    local job=$1 name ok n k
    name=example_$(basename "$job" .yaml)
    scr=$tmp/scr.$PAR_ID
    mkdir -p "$scr"
    ok=1
    mkdir -p "$tmp/$name"
    n=$("$DMD" classes "$job" 2> "$scr/err" |
        sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p')
    if [ -z "$n" ] || ! "$DMD" emit "$job" --common \
            > "$tmp/$name/common.h"; then
        echo "FAIL $name: distmpmd classes/emit failed: $(cat "$scr/err")"
        ok=0
        n=0
    fi
    for ((k = 0; k < n; k++)); do
        "$DMD" emit "$job" --class "$k" > "$tmp/$name/class$k.c" || ok=0
        compiles "$name" "$tmp/$name/class$k.c" || ok=0
    done
    if [ $ok = 1 ]; then
        echo "ok codegen $name ($n classes, compiled)"
        par_count 1 0
    else
        echo "FAIL codegen $name"
        par_count 0 1
    fi
}

for job in "${jobs[@]}"; do
    par_start check_job "$job"
done
for job in "${examples[@]}"; do
    par_start check_example "$job"
done
par_wait
echo "$passed passed, $failed failed"
[ $failed = 0 ]
