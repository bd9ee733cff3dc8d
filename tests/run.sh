#!/bin/bash
# The whole test suite (`make test`; .ci/run calls exactly that).
#
# Each part prints "N passed, M failed" as its last line; this script adds
# them up and prints the total the same way.  Parts:
#   unit       runtime (MPI, .npy, transfers, stats), manifest/appfile/
#              launcher, parser (also: each job read twice in one
#              process; the reader's limits), isl model (objects
#              compared with isl_*_is_equal against strings)
#   ref        the independent sequential reference checks itself
#   errors     every bad job exits 2 with FILE:LINE:COL (also under
#              ASan/UBSan/LeakSanitizer with bin-san/distmpmd)
#   fuzzreplay the job reader's fuzzing regression corpus
#              (tests/fuzz/regress/) under ASan/UBSan/LeakSanitizer:
#              exit 0 or 2, no sanitizer report
#   codegen    golden emitted C of every class of every job
#              (also under ASan/UBSan/LeakSanitizer)
#   plan       distmpmd plan: text and JSON goldens, the frozen job,
#              mesh.memory refusals (also under ASan/UBSan/LeakSanitizer)
#   scale      64x64 meshes with uneven extents and the seed examples at
#              full size: build time, class count, manifest cover (also
#              under ASan/UBSan/LeakSanitizer)
#   e2e        generated programs run under mpiexec.mpich and match the
#              reference, including uneven shapes
#   fuzz       random jobs (uneven extents, random distributions and
#              schedules; fixed seeds FUZZ_SEEDS) and random programs
#              (several steps, resharding, partial sums, repeat, self
#              reads; FUZZ_PROG_SEEDS) match the reference
#   cli        the command line and the build directory: no shell, hostile
#              names, concurrent builds, run DIR's checks (SHA-256,
#              launcher files), cancelling, messages, -j, launchers,
#              make install (also under ASan/UBSan/LeakSanitizer)
# TESTS="unit errors" selects parts.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export OPENBLAS_NUM_THREADS=1
PARTS=${TESTS:-unit ref errors fuzzreplay codegen plan scale e2e fuzz cli}
total_pass=0 total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run NAME CMD...: run one part, echo its output, count its last line.
run() {
    local name=$1
    shift
    echo "=== $name"
    "$@" 2>&1 | tee "$log"
    local st=${PIPESTATUS[0]}
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL $name: no result line (exit status $st)"
        total_fail=$((total_fail + 1))
        return
    fi
    local p f
    p=$(echo "$line" | sed 's/ passed.*//')
    f=$(echo "$line" | sed 's/.* passed, \([0-9]*\) failed.*/\1/')
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    if [ "$st" != 0 ] && [ "$f" = 0 ]; then
        echo "FAIL $name: exit status $st"
        total_fail=$((total_fail + 1))
    fi
}

san_env() {
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    DISTMPMD=$ROOT/bin-san/distmpmd "$@"
}

for part in $PARTS; do
    case $part in
    unit)
        run unit/runtime bash tests/unit/rt_test.sh
        run unit/manifest bash tests/unit/manifest_test.sh
        run unit/parse bash tests/unit/parse_ok.sh
        run unit/parse_again bash tests/unit/parse_again.sh
        run unit/parse_limits /usr/bin/python3 tests/unit/parse_limits.py
        run unit/model bash tests/unit/model_test.sh
        run unit/trace_svg bash tests/unit/trace_svg_test.sh
        ;;
    ref)
        run ref bash tests/ref/selftest.sh
        ;;
    errors)
        run errors bash tests/errors/run.sh
        if [ -x bin-san/distmpmd ]; then
            run errors/sanitizers san_env bash tests/errors/run.sh
        fi
        ;;
    fuzzreplay)
        run fuzzreplay bash tests/fuzz/replay.sh
        ;;
    codegen)
        run codegen bash tests/codegen/run.sh
        if [ -x bin-san/distmpmd ]; then
            run codegen/sanitizers san_env bash tests/codegen/run.sh
        fi
        ;;
    plan)
        run plan bash tests/plan/run.sh
        if [ -x bin-san/distmpmd ]; then
            run plan/sanitizers san_env bash tests/plan/run.sh
        fi
        ;;
    scale)
        run scale bash tests/scale/run.sh
        if [ -x bin-san/distmpmd ]; then
            run scale/sanitizers san_env bash tests/scale/run.sh
        fi
        ;;
    e2e)
        run e2e bash tests/e2e/run.sh
        run e2e/examples bash tests/e2e/run.sh examples/distir_mlp.yaml \
            examples/jacobi.yaml
        ;;
    fuzz)
        run fuzz /usr/bin/python3 tests/fuzz/fuzz.py --seeds ${FUZZ_SEEDS:-0:100} \
            bin/distmpmd tests/ref/dmd_ref.py
        run fuzz/programs /usr/bin/python3 tests/fuzz/fuzz_prog.py \
            --seeds ${FUZZ_PROG_SEEDS:-0:40} bin/distmpmd tests/ref/dmd_ref.py
        ;;
    cli)
        run cli bash tests/cli/run.sh
        if [ -x bin-san/distmpmd ]; then
            run cli/sanitizers san_env bash tests/cli/run.sh
        fi
        ;;
    *)
        echo "unknown test part '$part'"
        total_fail=$((total_fail + 1))
        ;;
    esac
done
echo "=== total"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
