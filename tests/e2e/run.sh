#!/bin/bash
# End-to-end tests: build and run each job with distmpmd, then compare its
# output with the sequential reference tests/ref/dmd_ref.py.
#
#   bash tests/e2e/run.sh [JOB...]     JOB: a name (summa_2x2), a file name in
#                                      tests/e2e/jobs/, or a path
#
# For each job: copy it into a fresh temporary directory, write its input
# files (dmd_ref.py inputs), run `distmpmd run JOB --stats` there (so the
# default build dir build/<name> lands there too) under `timeout 300`, check
# the --stats line (tests/e2e/check_stats.py, with tests/e2e/expected_bytes.txt:
# totals and, for programs, per-step numbers), every output file the job
# writes (dmd_ref.py check: a program may write several) and every copy of
# every output that a rank holds, replicas that write no file included (the
# ranks dump their blocks into DMD_DUMP_BLOCKS; dmd_ref.py blocks), and
# that `distmpmd plan JOB --json` predicted the run's bytes moved, busiest
# receiver and messages exactly, per step too (tests/e2e/check_plan.py).
#
# Environment:
#   DISTMPMD=PATH        the compiler (default: bin/distmpmd of this checkout)
#   E2E_ONLY="a b"       run only these jobs (names)
#   E2E_SKIP_UNEVEN=1    skip the jobs the compiler does not handle yet
#                        (*_uneven*, stencil2d*, vec_offsets, summa_split_cross)
#   E2E_SKIP_PROGRAMS=1  skip the jobs written as a 'program' (spec 1.5), for a
#                        compiler that cannot run programs yet
#   E2E_KEEP=1           keep every temporary directory (failed ones are kept)
#   E2E_MPI=KEY          the manifest must record this MPI (openmpi: with
#                        DISTMPMD_MPICC and DISTMPMD_MPIEXEC set to Open
#                        MPI's wrapper and launcher)
#   E2E_TIMEOUT=S        the time limit of one run (default 300 s)
#   E2E_BLOCKS=0         do not check the blocks every rank holds
#
# Prints "ok NAME (...)" or "FAIL NAME: reason" per job, then
# "N passed, M failed"; exits 1 if any job failed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
REF=$ROOT/tests/ref/dmd_ref.py
STATS=$ROOT/tests/e2e/check_stats.py
PLAN=$ROOT/tests/e2e/check_plan.py
EXPECTED=$ROOT/tests/e2e/expected_bytes.txt
JOBDIR=$ROOT/tests/e2e/jobs
TIMEOUT=${E2E_TIMEOUT:-300}

DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
case $DMD in
    /*) ;;
    */*) DMD=$PWD/$DMD ;;          # relative to where we were started
    *) DMD=$(command -v "$DMD" || echo "$DMD") ;;
esac

passed=0
failed=0

is_uneven() {
    case $1 in
        *_uneven* | stencil2d* | vec_offsets | summa_split_cross) return 0 ;;
        *) return 1 ;;
    esac
}

is_program() {   # PATH: is the job a program (spec 1.5)?
    grep -q '^program:' "$1"
}

selected() {     # NAME PATH: is the job selected by E2E_ONLY / E2E_SKIP_*?
    local name=$1
    if [ -n "${E2E_ONLY:-}" ]; then
        case " $E2E_ONLY " in
            *" $name "*) ;;
            *) return 1 ;;
        esac
    fi
    if [ "${E2E_SKIP_UNEVEN:-0}" = 1 ] && is_uneven "$name"; then
        return 1
    fi
    if [ "${E2E_SKIP_PROGRAMS:-0}" = 1 ] && is_program "$2"; then
        return 1
    fi
    return 0
}

fail() {         # NAME TMPDIR REASON [LOG]
    echo "FAIL $1: $3"
    if [ -n "${4:-}" ] && [ -s "$4" ]; then
        tail -n 20 "$4" | sed 's/^/    /'
    fi
    [ -n "$2" ] && echo "    (files kept in $2)"
    failed=$((failed + 1))
}

run_job() {      # JOB_PATH NAME
    local src=$1 name=$2 tmp rc=0 summary check
    if [ ! -x "$DMD" ]; then
        fail "$name" "" "compiler not found or not executable: $DMD"
        return
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/e2e.$name.XXXXXX")
    cp "$src" "$tmp/$name.yaml"

    if ! "$PY" "$REF" inputs "$tmp/$name.yaml" >"$tmp/inputs.log" 2>&1; then
        fail "$name" "$tmp" "dmd_ref.py inputs failed" "$tmp/inputs.log"
        return
    fi

    mkdir "$tmp/blocks"
    (cd "$tmp" && OPENBLAS_NUM_THREADS=1 DMD_DUMP_BLOCKS=$tmp/blocks \
        timeout -k 10 "$TIMEOUT" \
        "$DMD" run "$tmp/$name.yaml" --stats </dev/null) \
        >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$name" "$tmp" "timed out after $TIMEOUT s" "$tmp/stderr"
        return
    elif [ "$rc" -ne 0 ]; then
        cat "$tmp/stdout" "$tmp/stderr" >"$tmp/run.log"
        fail "$name" "$tmp" "distmpmd run exited with status $rc" "$tmp/run.log"
        return
    fi

    if [ -n "${E2E_MPI:-}" ] && ! grep -q "^mpi: {family: $E2E_MPI, " \
            "$tmp"/build/*/manifest.yaml; then
        fail "$name" "$tmp" "the manifest does not record $E2E_MPI" \
            "$(ls "$tmp"/build/*/manifest.yaml | head -n 1)"
        return
    fi

    if ! summary=$("$PY" "$STATS" "$tmp/$name.yaml" "$tmp/stdout" \
            --name "$name" --expected "$EXPECTED" 2>&1); then
        fail "$name" "$tmp" "$summary" "$tmp/stdout"
        return
    fi

    # the cost model predicts the run's bytes and messages exactly
    if ! "$DMD" plan "$tmp/$name.yaml" --json >"$tmp/plan.json" \
            2>"$tmp/plan.err"; then
        fail "$name" "$tmp" "distmpmd plan failed" "$tmp/plan.err"
        return
    fi
    if ! planned=$("$PY" "$PLAN" "$tmp/plan.json" "$tmp/stdout" 2>&1); then
        fail "$name" "$tmp" "$planned"
        return
    fi

    if ! check=$("$PY" "$REF" check "$tmp/$name.yaml" 2>&1); then
        fail "$name" "$tmp" "$check"
        return
    fi

    # every replica of every output, not only the one in the file
    if [ "${E2E_BLOCKS:-1}" != 0 ] && ! blocks=$("$PY" "$REF" blocks \
            "$tmp/$name.yaml" "$tmp/blocks" 2>&1); then
        fail "$name" "$tmp" "the blocks the ranks hold: $blocks"
        return
    fi

    # one "ok NAME: max rel err ..." line per output
    check=$(echo "$check" | sed 's/^ok //' | paste -sd ';' - | sed 's/;/; /g')
    if [ "${E2E_BLOCKS:-1}" != 0 ]; then
        n=$(echo "$blocks" | sed -n 's/^ok [^:]*: \([0-9]*\) blocks.*/\1/p' |
            paste -sd '+' -)
        skipped=$(echo "$blocks" | sed -n 's/^skip \([^:]*\):.*/\1/p' |
            paste -sd ',' -)
        check="$check; ${n:-0} blocks${skipped:+ (not checked: $skipped)}"
    fi
    echo "ok $name ($summary; $planned; $check)"
    passed=$((passed + 1))
    if [ "${E2E_KEEP:-0}" = 1 ]; then
        echo "    (files kept in $tmp)"
    else
        rm -rf "$tmp"
    fi
}

if [ $# -gt 0 ]; then
    jobs=("$@")
else
    jobs=("$JOBDIR"/*.yaml)
fi

for job in "${jobs[@]}"; do
    if [ -f "$job" ]; then
        path=$job
    elif [ -f "$JOBDIR/$job" ]; then
        path=$JOBDIR/$job
    elif [ -f "$JOBDIR/$job.yaml" ]; then
        path=$JOBDIR/$job.yaml
    else
        fail "$job" "" "no such job"
        continue
    fi
    name=$(basename "$path" .yaml)
    if ! selected "$name" "$path"; then
        echo "skip $name"
        continue
    fi
    run_job "$path" "$name"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
