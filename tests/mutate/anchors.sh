#!/bin/bash
# anchors.sh: every mutant of tests/mutate/mutants.txt still finds its
# anchor exactly once in its file (mutate.py --list), so that `make
# mutate` is not left out of step with the code by a change elsewhere.
# The last line is "N passed, M failed".
cd "$(dirname "$0")/../.." || exit 2
out=$(/usr/bin/python3 tests/mutate/mutate.py --list 2>&1)
st=$?
n=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) mutants$/\1/p')
if [ "$st" = 0 ] && [ -n "$n" ]; then
	echo "ok mutate: the $n mutants' anchors occur once each"
	echo "1 passed, 0 failed"
else
	printf '%s\n' "$out" | grep -B2 "ERROR" | head -20
	echo "FAIL mutate: the list is out of step with the code (exit $st)"
	echo "0 passed, 1 failed"
	exit 1
fi
