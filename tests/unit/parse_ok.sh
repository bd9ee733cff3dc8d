#!/bin/bash
# The job reader on good jobs: every example of the spec and every
# tests/unit/parse_good/*.yaml must parse (parse_test --dump exits 0 with
# nothing on stderr), and the dumps must equal the expected ones:
#	summa.yaml    -> tests/unit/parse_summa.dump
#	stencil3.yaml -> tests/unit/parse_stencil3.dump
#	parse_good/NAME.yaml -> parse_good/NAME.dump
# Usage: bash tests/unit/parse_ok.sh   (EXAMPLES=dir overrides the
# examples' directory; parse_test is built by tests/unit/parse_check.sh)
cd "$(dirname "$0")/../.." || exit 1
examples=${EXAMPLES:-/work/shared/spec/examples}
run=tests/unit/parse_check.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# check JOB [EXPECTED_DUMP]
check() {
	local job=$1 exp=$2 name why=
	name=$(basename "$job" .yaml)
	"$run" --dump "$job" >"$tmp/out" 2>"$tmp/err"
	local status=$?
	if [ $status -ne 0 ]; then
		why="exit status $status"
	elif [ -s "$tmp/err" ]; then
		why="output on stderr"
	elif [ -n "$exp" ] && ! cmp -s "$exp" "$tmp/out"; then
		why="dump differs from $exp"
	fi
	if [ -z "$why" ]; then
		echo "ok $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name: $why"
		sed 's/^/    /' "$tmp/err"
		[ -n "$exp" ] && [ -f "$exp" ] &&
			diff -u "$exp" "$tmp/out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

for job in "$examples"/*.yaml; do
	case $(basename "$job") in
	summa.yaml) check "$job" tests/unit/parse_summa.dump ;;
	stencil3.yaml) check "$job" tests/unit/parse_stencil3.dump ;;
	*) check "$job" ;;
	esac
done
for job in tests/unit/parse_good/*.yaml; do
	exp=${job%.yaml}.dump
	[ -f "$exp" ] || exp=/dev/null/missing
	check "$job" "$exp"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
