#!/bin/bash
# Regenerate the golden files of tests/codegen/: for each JOB.yaml here,
# JOB.classes (the output of `distmpmd classes`), JOB.check (of `distmpmd
# check`), JOB.common.h (what the
# class programs share) and JOB.classK.c (the emitted C of class K); for
# a job with JOB.lib.c, its library's source and header (JOB.lib.c,
# JOB.lib.h: distmpmd emit --lib, --lib-header).
# Review the diff (git diff tests/codegen) before committing: every change
# to emitted code must be on purpose.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
cd "$ROOT/tests/codegen"
for job in *.yaml; do
    name=${job%.yaml}
    rm -f "$name".class*.c "$name".common.h
    "$DMD" classes "$job" > "$name.classes"
    "$DMD" check "$job" > "$name.check"
    "$DMD" emit "$job" --common > "$name.common.h"
    n=$(sed -n 's/^job .*, \([0-9]*\) class.*$/\1/p' "$name.classes")
    for ((k = 0; k < n; k++)); do
        "$DMD" emit "$job" --class "$k" > "$name.class$k.c"
    done
    if [ -f "$name.lib.c" ]; then
        "$DMD" emit "$job" --lib > "$name.lib.c"
        "$DMD" emit "$job" --lib-header > "$name.lib.h"
    fi
    echo "regenerated $name ($n classes)"
done
