#!/bin/bash
# Build and run the isl model unit test against the compiler's objects.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=$(ls "$ROOT"/obj/ir/*.o "$ROOT"/obj/partition/*.o \
	"$ROOT"/obj/specialize/*.o "$ROOT"/obj/emit/*.o)
if ! cc -g -Wall -Wextra -Werror -std=gnu11 -I"$ROOT" -I"$ROOT/ir" \
	$(pkg-config --cflags isl yaml-0.1) -o "$tmp/model_test" \
	"$ROOT/tests/unit/model_test.c" $objs \
	$(pkg-config --libs isl yaml-0.1); then
    echo "0 passed, 1 failed"
    exit 1
fi
"$tmp/model_test" "$ROOT"
