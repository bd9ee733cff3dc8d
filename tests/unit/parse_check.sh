#!/bin/sh
# parse_check.sh: a stand-in for "distmpmd check JOB" that only parses,
# for running tests/errors/run.sh before bin/distmpmd exists:
#	DISTMPMD=tests/unit/parse_check.sh bash tests/errors/run.sh
# Builds tests/unit/parse_test.c (with ir/dmd_parse.c, dmd_axe.c,
# dmd_expr*.c, dmd_diag.c, dmd_int.c, dmd_job.c, dmd_program.c) into $PARSE_TEST_BIN
# (default under $TMPDIR, named after this checkout) when a source is newer
# than it.  CFLAGS_EXTRA adds flags (e.g. sanitizers).
top=$(cd "$(dirname "$0")/../.." && pwd)
# (one binary per checkout: several checkouts may test at once)
bin=${PARSE_TEST_BIN:-${TMPDIR:-/tmp}/dmd_parse_test.$(id -u).$(printf '%s' "$top" | cksum | cut -d' ' -f1)}
srcs="$top/tests/unit/parse_test.c $top/ir/dmd_parse.c $top/ir/dmd_axe.c $top/ir/dmd_expr.c
	$top/ir/dmd_expr_lex.c $top/ir/dmd_expr_cmd.c $top/ir/dmd_expr_check.c
	$top/ir/dmd_diag.c $top/ir/dmd_int.c $top/ir/dmd_job.c $top/ir/dmd_program.c"
stale=0
[ -x "$bin" ] || stale=1
for s in $srcs "$top/ir/dmd_int.h" "$top/ir/dmd_job.h" "$top/ir/dmd_parse_private.h" \
	"$top/ir/dmd_expr_private.h"; do
	[ "$s" -nt "$bin" ] && stale=1
done
if [ $stale = 1 ]; then
	${CC:-cc} -g -Wall -Wextra -Werror -std=gnu11 $CFLAGS_EXTRA \
		-I "$top/ir" $srcs \
		$(pkg-config --cflags --libs yaml-0.1 isl) -o "$bin.$$" &&
		mv -f "$bin.$$" "$bin" || exit 1
fi
[ "$1" = check ] && shift
exec "$bin" "$@"
