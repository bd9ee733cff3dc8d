#!/bin/bash
# The whole test suite (`make test`; .ci/run calls exactly that).
#
# Each part prints "N passed, M failed" as its last line; this script adds
# them up and prints the total the same way, after the time each part
# took ("--- NAME: S s") and the total time ("time: S s (M min S s)").
# Parts:
#   unit       runtime (MPI, .npy, transfers, stats; also with MPI 3's
#              int counts and derived types past a small limit, under
#              MPICH and under Open MPI), manifest/appfile/
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
#              reference, including uneven shapes; NaN, infinities and
#              signed zeros through every function (special_values.py);
#              every operator/operand pair of right sides (expr_trees.py);
#              the cheap examples with their schedules deleted
#              (examples_auto.sh: the search's choice, plan = stats);
#              some also built and launched with Open MPI
#   fuzz       random jobs (uneven extents, random distributions and
#              schedules, random expressions, cut ranges, inputs poisoned
#              with NaN/inf/-0.0; fixed seeds FUZZ_SEEDS) and random
#              programs (several steps, resharding, partial sums, repeat,
#              self reads; FUZZ_PROG_SEEDS) match the reference; unheld
#              blocks and two outputs on one file are refused
#   cli        the command line and the build directory: no shell, hostile
#              names, concurrent builds, run DIR's checks (SHA-256,
#              launcher files), cancelling, messages, -j, launchers,
#              make install (also under ASan/UBSan/LeakSanitizer)
#   lib        build --lib: two libraries called from one MPI program of
#              our own (tests/lib/driver.c), each run twice, checked
#              against the reference; NULL blocks and a wrong communicator
#              size refused on every rank; only NAME_* symbols; linked by
#              pkg-config and by make; ASan/UBSan/LeakSanitizer clean
#   doc        the job format's reference (doc/job-format.md and the man
#              page distmpmd-job(5)) names every key of the reader's
#              tables; its example jobs run and match the reference
# TESTS="unit errors" selects parts; codegen and plan check two jobs at a
# time on two processors or more (TEST_JOBS=N, tests/par.sh).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export OPENBLAS_NUM_THREADS=1
PARTS=${TESTS:-unit ref errors fuzzreplay codegen plan scale e2e fuzz cli lib doc}
total_pass=0 total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run NAME CMD...: run one part, echo its output and its time, count its
# last line.
run() {
    local name=$1 start=$SECONDS
    shift
    echo "=== $name"
    "$@" 2>&1 | tee "$log"
    local st=${PIPESTATUS[0]}
    echo "--- $name: $((SECONDS - start)) s"
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
    DISTMPMD=$ROOT/bin-san/distmpmd SAN_RUN=1 "$@"
}

for part in $PARTS; do
    case $part in
    unit)
        run unit/runtime bash tests/unit/rt_test.sh
        run unit/runtime-mpi3 env RT_MPI=mpich-mpi3 bash tests/unit/rt_test.sh
        run unit/runtime-openmpi env RT_MPI=openmpi bash tests/unit/rt_test.sh
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
        # the cheap examples with their schedules deleted: the search's
        # choice computes right and plan --json = run --stats
        run e2e/examples_auto bash tests/e2e/examples_auto.sh
        run e2e/special /usr/bin/python3 tests/e2e/special_values.py \
            bin/distmpmd tests/ref/dmd_ref.py
        run e2e/expr_trees /usr/bin/python3 tests/e2e/expr_trees.py \
            bin/distmpmd tests/ref/dmd_ref.py
        # the same programs built and launched with Open MPI (as root,
        # four ranks on two cores): every kind of transfer (broadcast,
        # shift, point to point, halos, sums of partials, reshards)
        run e2e/openmpi env DISTMPMD_MPICC=mpicc.openmpi \
            DISTMPMD_MPIEXEC=mpiexec.openmpi E2E_MPI=openmpi \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OMPI_MCA_rmaps_base_oversubscribe=1 \
            bash tests/e2e/run.sh pumma_2x2 cannon_2x2 summa_2x2 ag_gemm_4 \
            jacobi2d_2x2 partial_linear_2x2 hostile_names hostile_names3 \
            reshard_alltoall_3 stencil_acc_3 conv dot
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
    lib)
        run lib bash tests/lib/run.sh
        ;;
    doc)
        run doc bash tests/doc/run.sh
        run mutate/anchors bash tests/mutate/anchors.sh
        ;;
    *)
        echo "unknown test part '$part'"
        total_fail=$((total_fail + 1))
        ;;
    esac
done
echo "=== total"
echo "time: $SECONDS s ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
