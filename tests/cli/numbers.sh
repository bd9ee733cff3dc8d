# tests/cli/numbers.sh: integers on the command line (issue 15, item 6).
# Every integer distmpmd reads goes through ir/dmd_int.c: nothing wraps
# modulo 2^64 or saturates; a value out of range is refused (exit 2)
# naming the argument and the range, and a valid seed (0 to 2^64 - 1)
# is accepted.  Before, 2^64 + 1 was 1 and 2^64 - 1 was not a seed.
#
# Sourced by tests/cli/run.sh (its helpers, counters and hostile working
# directory $W); never run on its own.

Nu="$W/numbers 'n' \$(z)"
mkdir -p "$Nu"
cp "$ROOT/tests/e2e/jobs/stencil3.yaml" "$ROOT/tests/e2e/jobs/tail.yaml" "$Nu/"
cd "$Nu"

run_dmd diff stencil3.yaml 1 18446744073709551616
same "diff JOB 1 2^64: RANK_B is out of range (it was rank 0), nothing printed" \
    "2: distmpmd: diff: RANK_B '18446744073709551616' is out of range (0 to 4)|" \
    "$rc: $err|$out"
run_dmd diff stencil3.yaml 18446744073709551617 0
same "diff JOB 2^64+1 0: RANK_A is out of range (it was rank 1)" \
    "2: distmpmd: diff: RANK_A '18446744073709551617' is out of range (0 to 4)|" \
    "$rc: $err|$out"
run_dmd emit stencil3.yaml --rank 18446744073709551617
same "emit --rank 2^64+1 is out of range (it printed rank 1)" \
    "2: distmpmd: emit: --rank '18446744073709551617' is out of range (0 to 4)|" \
    "$rc: $err|$out"
run_dmd emit stencil3.yaml --rank=9223372036854775808
same "emit --rank=2^63 is out of range" \
    "2: distmpmd: emit: --rank '9223372036854775808' is out of range (0 to 4)" \
    "$rc: $err"
run_dmd emit stencil3.yaml --class 18446744073709551618
same "emit --class 2^64+2 is out of range (it printed class 2)" \
    "2: distmpmd: emit: --class '18446744073709551618' is out of range (0 to 2)|" \
    "$rc: $err|$out"
"$DMD" emit stencil3.yaml --rank 1 >"$base/rank1" 2>&1
run_dmd emit stencil3.yaml --rank +1
same "emit --rank +1 is rank 1 (the job reader's syntax: a sign, digits)" \
    "0 same" "$rc $(cmp -s "$base/out" "$base/rank1" && echo same)"

run_dmd build stencil3.yaml -j 18446744073709551617 -o jbig
same "build -j 2^64+1 is out of range (it was -j 1)" \
    "2: distmpmd: build: -j '18446744073709551617' is out of range (1 to 2147483647)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
same "... and nothing is built" "" "$(ls -d jbig 2>/dev/null)"

# sweep: field indices, values, ranges and steps
for t in \
    "mesh.shape[18446744073709551616]=3|'mesh.shape' has 1 entry: there is no [18446744073709551616]" \
    "mesh.shape[9223372036854775807]=3|'mesh.shape' has 1 entry: there is no [9223372036854775807]" \
    "mesh.shape[0]=1:18446744073709551618|STOP '18446744073709551618' is out of range (0 to 9223372036854775807)" \
    "mesh.shape[0]=18446744073709551617:18446744073709551618|START '18446744073709551617' is out of range (0 to 9223372036854775807)" \
    "mesh.shape[0]=2:3:18446744073709551617|STEP '18446744073709551617' is out of range (1 to 9223372036854775807)" \
    "mesh.shape[0]=2:3:0|STEP '0' is out of range (1 to 9223372036854775807)" \
    "mesh.shape[0]=18446744073709551617|'18446744073709551617' is out of range (0 to 9223372036854775807)" \
    "mesh.shape=[18446744073709551621]|'18446744073709551621' is out of range (0 to 9223372036854775807)" \
    "tensors.A.seed=18446744073709551616|'18446744073709551616' is out of range (0 to 18446744073709551615)" \
    "tensors.A.seed=-1|'-1' is out of range (0 to 18446744073709551615)"; do
    arg=${t%%|*}
    run_dmd sweep stencil3.yaml --set "$arg" --no-run --work never
    same "sweep --set '$arg' is refused (exit 2)" \
        "2: distmpmd: sweep: --set '$arg': ${t#*|}" "$rc: $err"
done
same "... and no point ran" "" "$(ls -d never 2>/dev/null)"

# a list entry as long as one likes: its number is what the job gets
# (the CSV text of a list had room for 20 characters per entry)
run_dmd sweep stencil3.yaml \
    --set 'mesh.shape=[000000000000000000000000000000000000000000000000000005]' \
    --no-run --work zeros
same "sweep --set mesh.shape=[000...0005]: the value 5, written as [5]" \
    "0: [5],5,3|shape: [5]" \
    "$rc: $(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1-3)|$(grep -o 'shape: \[5\]' zeros/point-1/stencil3.yaml)"

# a range up to the largest seed stops there (it wrapped to 0 before)
run_dmd sweep stencil3.yaml \
    --set 'tensors.A.seed=18446744073709551613:18446744073709551615:2' \
    --no-run --work seeds
same "sweep --set seed=2^64-3:2^64-1:2: two points, nothing past 2^64-1" \
    "0: tensors.A.seed,ranks,classes,bytes_moved_total,messages,time_s,gflops,max_rel_err
18446744073709551613,5,3,,,,,
18446744073709551615,5,3,,,,," "$rc: $out"
same "... the largest seed in the second point's job" \
    "seed: 18446744073709551615" \
    "$(grep -o 'seed: [0-9]*' seeds/point-2/stencil3.yaml)"

# the largest seed, run and checked with the reference
timeout 300 "$DMD" sweep tail.yaml --set 'tensors.X.seed=18446744073709551615' \
    --ref --work seedrun </dev/null >"$base/out" 2>"$base/err"
rc=$?
got=$(printf '%s\n' "$(cat "$base/out")" | tail -n 1 | awk -F, '
    { print $1, $2, $3, (($8 != "" && $8 + 0 < 1e-4) ? "err<1e-4" : "err=" $8) }')
same "sweep --set tensors.X.seed=2^64-1 --ref: runs, the reference agrees" \
    "0: 18446744073709551615 2 2 err<1e-4" "$rc: $got"
"$PY" "$REF" check seedrun/point-1/tail.yaml >"$base/ref.out" 2>&1
check "... and the point's output matches the reference's values for that seed" \
    $? "$(cat "$base/ref.out")"
