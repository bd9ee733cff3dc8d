#!/bin/bash
# Build and run the unit test of the compiler's stages (model, plan,
# classes) against the compiler's objects (make all builds them).  Only
# the objects of existing sources are linked: a stale object of a
# removed source must not break the link.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=
for src in "$ROOT"/ir/*.c "$ROOT"/partition/*.c "$ROOT"/specialize/*.c \
	"$ROOT"/emit/*.c; do
    rel=${src#"$ROOT"/}
    obj=$ROOT/obj/${rel%.c}.o
    if [ ! -f "$obj" ]; then
	echo "missing $obj (run make all)"
	echo "0 passed, 1 failed"
	exit 1
    fi
    objs="$objs $obj"
done
if ! cc -g -Wall -Wextra -Werror -std=gnu11 -I"$ROOT" -I"$ROOT/ir" \
	$(pkg-config --cflags isl yaml-0.1) -o "$tmp/model_test" \
	"$ROOT/tests/unit/model_test.c" $objs \
	$(pkg-config --libs isl yaml-0.1) -lm; then
    echo "0 passed, 1 failed"
    exit 1
fi
"$tmp/model_test" "$ROOT"
