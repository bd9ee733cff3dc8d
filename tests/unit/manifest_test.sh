#!/bin/bash
# manifest_test.sh: build and run the unit test of manifests/ (writer,
# reader, launcher), then the writer/reader again under valgrind.
# Run from anywhere; the last line is "N passed, M failed".

cd "$(dirname "$0")/../.." || exit 2
CC=${CC:-cc}
MPICC=${MPICC:-mpicc.mpich}
work=$(mktemp -d "${TMPDIR:-/tmp}/manifest_test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
unset DMD_STATS DMD_EXPECT_STATS DMD_EXPECT_OB

passed=0
failed=0

# Record one check of this script: "ok NAME" or "fail NAME".
result() {
	if [ "$1" = ok ]; then
		passed=$((passed + 1)); echo "ok - $2"
	else
		failed=$((failed + 1)); echo "FAIL - $2"
	fi
}

# Run the test binary with "$@", add its counts to ours.
run_test() {
	local out
	out=$("$@")
	local rc=$?
	printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
	passed=$((passed + $(printf '%s\n' "$out" | grep -c '^ok ')))
	failed=$((failed + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
	if ! printf '%s\n' "$out" | grep -q '^[0-9]* passed, [0-9]* failed$'
	then
		result fail "manifest_test ran to the end (status $rc)"
	fi
}

if $CC -Wall -Wextra -Werror -std=gnu11 -I. -g -o "$work/manifest_test" \
	tests/unit/manifest_test.c manifests/*.c ir/dmd_int.c \
	$(pkg-config --cflags --libs yaml-0.1); then
	result ok "manifest_test builds with -Wall -Wextra -Werror"
else
	result fail "manifest_test builds with -Wall -Wextra -Werror"
	echo "$passed passed, $failed failed"
	exit 1
fi

# hello: exits 0 on 2 ranks when DMD_STATS and OPENBLAS_NUM_THREADS are
# as the test expects; exit3: rank 1 exits 3.
cat > "$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *stats = getenv("DMD_STATS");
	const char *ob = getenv("OPENBLAS_NUM_THREADS");
	const char *want_ob = getenv("DMD_EXPECT_OB");
	int rank, size, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2)
		bad = 1;
	if (getenv("DMD_EXPECT_STATS") ? !stats || strcmp(stats, "1") : !!stats)
		bad = 1;
	if (!ob || strcmp(ob, want_ob ? want_ob : "1"))
		bad = 1;
	if (bad)
		fprintf(stderr, "hello %d/%d: DMD_STATS=%s "
			"OPENBLAS_NUM_THREADS=%s\n", rank, size,
			stats ? stats : "(unset)", ob ? ob : "(unset)");
	MPI_Finalize();
	return bad ? 4 : 0;
}
C
cat > "$work/exit3.c" <<'C'
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Finalize();
	return rank == 1 ? 3 : 0;
}
C
mpi_args=()
if $MPICC -o "$work/hello" "$work/hello.c" &&
   $MPICC -o "$work/exit3" "$work/exit3.c"; then
	result ok "MPI test programs build with $MPICC"
	mpi_args=("$work/hello" "$work/exit3")
else
	result fail "MPI test programs build with $MPICC"
fi

mkdir "$work/run"
run_test "$work/manifest_test" "$work/run" "${mpi_args[@]}"

# The writer and reader again under valgrind: no leaks, no errors.
if command -v valgrind >/dev/null; then
	mkdir "$work/vg"
	if valgrind -q --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all --error-exitcode=99 \
		--child-silent-after-fork=yes \
		"$work/manifest_test" "$work/vg" >"$work/vg.out" 2>&1; then
		result ok "valgrind: no errors or leaks"
	else
		cat "$work/vg.out"
		result fail "valgrind: no errors or leaks"
	fi
else
	echo "# skipped: valgrind is not installed"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
