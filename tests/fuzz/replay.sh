#!/bin/bash
# Replay the fuzzer's regression corpus: "distmpmd check" built with
# ASan/UBSan/LeakSanitizer (bin-san/distmpmd, "make SAN=1 all") on every
# file of tests/fuzz/regress/ must exit with status 0 (a good job) or 2 (a
# bad job, with one located message) and print no sanitizer report.
#	bash tests/fuzz/replay.sh            (DISTMPMD=... overrides the binary)
# The inputs that the fuzzer found (crashes, leaks, UB, timeouts, broken
# messages) go to tests/fuzz/regress/ (README.md, "Fuzzing the job
# reader"), with a readable bad job in tests/errors/ where one makes sense.
cd "$(dirname "$0")/../.." || exit 1
bin=${DISTMPMD:-bin-san/distmpmd}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0
fail=0
if [ ! -x "$bin" ]; then
	echo "FAIL replay: no $bin (make SAN=1 all)"
	echo "0 passed, 1 failed"
	exit 1
fi
for job in tests/fuzz/regress/*; do
	[ "$(basename "$job")" = README ] && continue
	[ -f "$job" ] || continue
	name=$(basename "$job")
	(cd "$tmp" && timeout 20 "$OLDPWD/$bin" check "$OLDPWD/$job") \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	why=
	if [ $status -ne 0 ] && [ $status -ne 2 ]; then
		why="exit status $status"
	elif grep -qE 'Sanitizer|runtime error:|internal error' "$tmp/err"; then
		why="sanitizer report"
	elif [ $status -eq 2 ] && [ "$(grep -c ': error: ' "$tmp/err")" != 1 ]; then
		why="not exactly one message"
	fi
	if [ -z "$why" ]; then
		echo "ok $name (exit $status)"
		pass=$((pass + 1))
	else
		echo "FAIL $name: $why"
		head -n 20 "$tmp/err" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
