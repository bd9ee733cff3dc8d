#!/bin/bash
# Run the libFuzzer harness of the job reader (tests/fuzz/fuzz_job.c), as
# "make fuzz" does:
#	bash tests/fuzz/run_fuzz.sh FUZZER SECONDS [LIBFUZZER_ARGS...]
# The seed corpus is every regular *.yaml file under tests/ and examples/
# (copied, flattened, into obj-fuzz/seeds/: tests/errors/ holds a symlink to
# /dev/zero and a directory named like a job, which libFuzzer must not
# read) and tests/fuzz/corpus/ (the spec's examples).  New inputs go to
# obj-fuzz/corpus/, crashes, leaks and timeouts to obj-fuzz/artifacts/, the
# log to obj-fuzz/fuzz-0.log.  One fuzzer process (-jobs=1 -workers=1):
# the machine is shared.
set -eu
cd "$(dirname "$0")/../.."
fuzzer=$(realpath "$1")
seconds=$2
shift 2
out=obj-fuzz
mkdir -p $out/corpus $out/seeds $out/artifacts
find tests examples -name '*.yaml' -type f | while read -r f; do
	cp "$f" "$out/seeds/$(echo "$f" | tr / _)"
done
dict=$(realpath tests/fuzz/job.dict)
corpus=$(realpath tests/fuzz/corpus)
regress=$(realpath tests/fuzz/regress)
cd $out
echo "fuzz: $seconds s, log in $out/fuzz-0.log"
touch .start
status=0
"$fuzzer" corpus seeds "$corpus" "$regress" -dict="$dict" \
	-max_total_time="$seconds" -jobs=1 -workers=1 -rss_limit_mb=2048 \
	-timeout=20 -max_len=16384 -artifact_prefix=artifacts/ \
	-print_final_stats=1 "$@" || status=$?
tail -n 25 fuzz-0.log 2>/dev/null || true
find artifacts -type f -newer .start | sed 's|^|fuzz: found |'
exit $status
