#!/bin/bash
# Bad jobs: for each tests/errors/NAME.yaml, "distmpmd check" must exit
# with status 2, print nothing on stdout, and print exactly NAME.err on
# stderr.  Run from anywhere; paths are relative to the repository root.
#	bash tests/errors/run.sh [NAME...]
#	DISTMPMD=path/to/distmpmd bash tests/errors/run.sh
cd "$(dirname "$0")/../.." || exit 1
bin=${DISTMPMD:-bin/distmpmd}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
if [ $# -gt 0 ]; then
	jobs=()
	for n in "$@"; do jobs+=("tests/errors/$n.yaml"); done
else
	jobs=(tests/errors/*.yaml)
fi
for job in "${jobs[@]}"; do
	name=$(basename "$job" .yaml)
	exp=tests/errors/$name.err
	"$bin" check "$job" >"$tmp/out" 2>"$tmp/err" </dev/null
	status=$?
	why=
	if [ ! -f "$exp" ]; then
		why="no $exp"
	elif [ $status -ne 2 ]; then
		why="exit status $status, expected 2"
	elif [ -s "$tmp/out" ]; then
		why="output on stdout"
	elif ! cmp -s "$exp" "$tmp/err"; then
		why="stderr differs"
	fi
	if [ -z "$why" ]; then
		echo "ok $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name: $why"
		[ -f "$exp" ] && diff -u "$exp" "$tmp/err" | sed 's/^/    /'
		[ -s "$tmp/out" ] && sed 's/^/    stdout: /' "$tmp/out"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
