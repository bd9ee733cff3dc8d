#!/bin/bash
# Golden tests: the classes and the emitted C of every class of every job
# in tests/codegen/ must equal the committed files byte for byte
# (regenerate with `make golden`, then review the diff).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
cd "$ROOT/tests/codegen"
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for job in *.yaml; do
    name=${job%.yaml}
    ok=1
    if ! "$DMD" classes "$job" > "$tmp/$name.classes" 2> "$tmp/err"; then
        echo "FAIL $name: distmpmd classes failed: $(cat "$tmp/err")"
        failed=$((failed + 1))
        continue
    fi
    if ! diff -u "$name.classes" "$tmp/$name.classes"; then ok=0; fi
    n=$(sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p' "$name.classes")
    want=$(ls "$name".class*.c 2>/dev/null | wc -l)
    if [ "$want" != "$n" ]; then
        echo "FAIL $name: $want golden class files, $n classes"
        ok=0
    fi
    for ((k = 0; k < n; k++)); do
        "$DMD" emit "$job" --class "$k" > "$tmp/$name.class$k.c" || ok=0
        if ! diff -u "$name.class$k.c" "$tmp/$name.class$k.c"; then ok=0; fi
    done
    if [ $ok = 1 ]; then
        echo "ok codegen $name ($n classes)"
        passed=$((passed + 1))
    else
        echo "FAIL codegen $name"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
