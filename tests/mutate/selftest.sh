#!/bin/bash
# Self-test of the mutation harness tests/mutate/mutate.py, on small lists
# of its own (about a minute; needs `make all`):
#   - a mutant a check catches, one that nothing sees (a comment), a proof
#     mutant that only a test catches: exit 1, "3 mutants, 1 caught";
#   - an anchor not in the file, an anchor found twice, a mutant that does
#     not compile: errors of the list, exit 2 (and --list says so);
#   - a check that fails without a mutant: exit 2 before any mutant;
#   - the working tree is left as it was.
# Last line: "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { echo "ok $1"; passed=$((passed + 1)); }
ko() { echo "FAIL $1"; sed 's/^/    /' "$2"; failed=$((failed + 1)); }

# expect NAME STATUS LOG LINE...: the exit status, and lines of the log
# that start with each LINE (the times at their ends vary)
expect() {
    local name=$1 want=$2 got=$3 log=$4 line
    shift 4
    if [ "$got" != "$want" ]; then
        echo "exit status $got, want $want" >>"$log"
        ko "$name" "$log"
        return
    fi
    for line in "$@"; do
        if ! awk -v l="$line" 'index($0, l) == 1 { f = 1 } END { exit !f }' \
                "$log"; then
            echo "no line: $line" >>"$log"
            ko "$name" "$log"
            return
        fi
    done
    ok "$name"
}

cat >"$tmp/list.txt" <<'EOF'
# a ring shift the wrong way: a 3-rank ring shows it
mutant: caught_one
file: runtime/dmd_rt_xfer.c
what: a ring shift sends to (c + disp) and receives from (c - disp)
checks: codegen tail; e2e ring_shift_3
anchor:
	dst = (c - d + p) % p;
	src = (c + d) % p;
replace:
	dst = (c + d) % p;
	src = (c - d + p) % p;
end

mutant: survivor
file: emit/dmd_emit_stmt.c
what: two spaces in a comment
checks: codegen tail
anchor:
/* Print one user statement from its payload: the only switch on the
replace:
/* Print one user statement  from its payload: the only switch on the
end

mutant: proof_one
file: runtime/dmd_rt_xfer.c
what: caught_one, as a proof mutant
proof: check
checks: check examples/tail.yaml; e2e ring_shift_3
anchor:
	dst = (c - d + p) % p;
	src = (c + d) % p;
replace:
	dst = (c + d) % p;
	src = (c - d + p) % p;
end
EOF
sum0=$(git status --porcelain=v1 --untracked-files=no | md5sum)
st=0
$PY tests/mutate/mutate.py --file "$tmp/list.txt" >"$tmp/1.log" 2>&1 || st=$?
expect "a mutant caught, one surviving, a proof mutant caught by a test only" \
    1 "$st" "$tmp/1.log" \
    "caught caught_one by e2e ring_shift_3" \
    "SURVIVED survivor: two spaces in a comment (checks: codegen tail)" \
    "survive the proof (expected to be refused by check): proof_one" \
    "survive every check: survivor" "3 mutants, 1 caught"
if grep -q "^SURVIVED proof_one: .*the tests catch it (e2e ring_shift_3)" \
        "$tmp/1.log"; then
    ok "a proof mutant says which test would catch it"
else
    ko "a proof mutant says which test would catch it" "$tmp/1.log"
fi
st=0
$PY tests/mutate/mutate.py --file "$tmp/list.txt" --no-baseline caught_one \
    >"$tmp/2.log" 2>&1 || st=$?
expect "one mutant by name, all caught: exit 0" 0 "$st" "$tmp/2.log" \
    "1 mutants, 1 caught"

cat >"$tmp/bad.txt" <<'EOF'
mutant: missing_anchor
file: runtime/dmd_rt_xfer.c
what: an anchor that is not in the file
checks: codegen tail
anchor:
	dst = (c - d + p) % q;
replace:
	dst = 0;
end

mutant: twice
file: runtime/dmd_rt_xfer.c
what: an anchor found twice
checks: codegen tail
anchor:
	int64_t k;
replace:
	int64_t k = 0;
end

mutant: no_build
file: runtime/dmd_rt_xfer.c
what: does not compile
checks: codegen tail
anchor:
	dst = (c - d + p) % p;
replace:
	dst = (c - d + p) % p
end
EOF
st=0
$PY tests/mutate/mutate.py --file "$tmp/bad.txt" --list >"$tmp/3.log" 2>&1 ||
    st=$?
expect "--list checks the anchors" 2 "$st" "$tmp/3.log" \
    "    ERROR: the anchor occurs 0 times in runtime/dmd_rt_xfer.c" \
    "    ERROR: the anchor occurs 2 times in runtime/dmd_rt_xfer.c"
st=0
TMPDIR=$tmp $PY tests/mutate/mutate.py --file "$tmp/bad.txt" \
    >"$tmp/4.log" 2>&1 || st=$?
expect "anchors and builds are errors of the list: exit 2" 2 "$st" \
    "$tmp/4.log" "3 errors of the list:" \
    "  mutant 'missing_anchor': the anchor occurs 0 times in runtime/dmd_rt_xfer.c (must be once)" \
    "  mutant 'twice': the anchor occurs 2 times in runtime/dmd_rt_xfer.c (must be once)" \
    "  mutant 'no_build' does not build"

sed 's/^checks: codegen tail; e2e ring_shift_3$/checks: codegen no_such_job/' \
    "$tmp/list.txt" >"$tmp/base.txt"
st=0
TMPDIR=$tmp $PY tests/mutate/mutate.py --file "$tmp/base.txt" caught_one \
    >"$tmp/5.log" 2>&1 || st=$?
expect "a check that fails without a mutant stops everything: exit 2" 2 \
    "$st" "$tmp/5.log" "baseline: some checks fail on the pristine copy"
if grep -q "^caught\|^SURVIVED" "$tmp/5.log"; then
    ko "... and no mutant runs" "$tmp/5.log"
else
    ok "... and no mutant runs"
fi

sum1=$(git status --porcelain=v1 --untracked-files=no | md5sum)
if [ "$sum0" = "$sum1" ]; then
    ok "the working tree is unchanged"
else
    echo "git status changed" >"$tmp/6.log"
    ko "the working tree is unchanged" "$tmp/6.log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
