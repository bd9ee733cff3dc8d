#!/bin/bash
# The job reader keeps no state from one read to the next: every job of
# tests/errors/ (regular files), tests/unit/parse_good/ and examples/ is
# read twice in one process (parse_test --again), and the second read
# must give the same result, with exactly one message if it fails.  (The
# check of 'repeat' looked at the count of all messages ever printed, so
# a second bad job in one process failed without a message.)
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for job in tests/errors/*.yaml tests/unit/parse_good/*.yaml examples/*.yaml; do
	[ -f "$job" ] && [ ! -L "$job" ] || continue
	bash tests/unit/parse_check.sh --again "$job" >/dev/null 2>"$tmp/err"
	status=$?
	if [ $status -eq 0 ] || [ $status -eq 2 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $job: exit status $status"
		sed 's/^/    /' "$tmp/err"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
