#!/bin/bash
# Run the job reader's harness (tests/fuzz/fuzz_job.c) under AFL++
# instead of libFuzzer, as "make fuzz-afl" does (optional; needs the afl++
# package):
#	bash tests/fuzz/run_afl.sh FUZZER SECONDS [AFL_FUZZ_ARGS...]
# FUZZER is built by afl-clang-fast with -fsanitize=fuzzer (AFL++'s driver
# calls LLVMFuzzerTestOneInput).  Seeds as for run_fuzz.sh (every regular
# *.yaml under tests/ and examples/, tests/fuzz/corpus/), plus the
# libFuzzer corpus obj-fuzz/corpus/ if there is one; findings go to
# obj-fuzz/afl/default/crashes/ and hangs/.  One process, no CPU binding.
set -eu
cd "$(dirname "$0")/../.."
fuzzer=$(realpath "$1")
seconds=$2
shift 2
out=obj-fuzz
mkdir -p $out/afl-seeds
find tests examples -name '*.yaml' -type f | while read -r f; do
	cp "$f" "$out/afl-seeds/$(echo "$f" | tr / _)"
done
cp tests/fuzz/corpus/* tests/fuzz/regress/* $out/afl-seeds/ 2>/dev/null || true
[ -d $out/corpus ] && find $out/corpus -type f -size -16k -exec cp {} $out/afl-seeds/ \;
export AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_AUTORESUME=1
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=1
status=0
afl-fuzz -i $out/afl-seeds -o $out/afl -x tests/fuzz/job.dict -t 5000 \
	-m none -V "$seconds" "$@" -- "$fuzzer" || status=$?
find $out/afl/default/crashes $out/afl/default/hangs -type f \
	! -name 'README*' 2>/dev/null | sed 's|^|fuzz-afl: found |'
grep -E 'run_time|execs_done|saved_crashes|saved_hangs' \
	$out/afl/default/fuzzer_stats 2>/dev/null | sed 's|^|fuzz-afl: |'
exit $status
