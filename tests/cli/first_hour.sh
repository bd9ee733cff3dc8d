# tests/cli/first_hour.sh: what a new user meets first (issue 18, "the
# first hour"): --version, help, GNU getopt_long options, "did you mean".
#
# Sourced by tests/cli/run.sh (its helpers, counters and hostile working
# directory $W); never run on its own.  Each check asserts exact text or
# exact values.

F="$W/first hour 'f' \$(h)"
mkdir -p "$F"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$F/"
cd "$F"

# ------------------------------------------------------------- --version

run_dmd --version
want_mpi=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')
want_std=$(printf '#include <mpi.h>\n' | mpicc.mpich -E -dM -x c - |
    awk '$2 == "MPI_VERSION" { v = $3 } $2 == "MPI_SUBVERSION" { s = $3 }
         END { print v "." s }')
# a second runtime, for Open MPI, when its wrapper is installed
want_more=
if command -v mpicc.openmpi >/dev/null; then
    want_more="
MPI: Open MPI $(mpicc.openmpi --showme:version | sed 's/.*Open MPI \([0-9.]*\).*/\1/'), MPI $(ompi_info --parsable | sed -n 's/^mpi-api:version:full:\([0-9]*\.[0-9]*\).*/\1/p') (the runtime for --mpicc mpicc.openmpi)"
fi
n_isl=$((3 + $(printf '%s' "$want_more" | grep -c .)))
got_isl=$(printf '%s\n' "$out" | sed -n ${n_isl}p)
same "--version: the version, the MPIs, isl, OpenBLAS and libyaml it was built with" \
    "0: distmpmd $(sed -n 's/^VERSION := //p' "$ROOT/Makefile")
MPI: MPICH $want_mpi, MPI $want_std (the runtime was compiled with mpicc.mpich)$want_more
isl: isl-$(pkg-config --modversion isl)
OpenBLAS: $(pkg-config --modversion openblas)
libyaml: $(pkg-config --modversion yaml-0.1)" \
    "$rc: $(printf '%s\n' "$out" | sed "${n_isl}s/^\\(isl: isl-[0-9.]*\\).*/\\1/")"
run_dmd -V
same "-V is --version" "0 $(printf '%s' "$got_isl")" \
    "$rc $(printf '%s\n' "$out" | sed -n ${n_isl}p)"
run_dmd --vers
same "--vers (a prefix) is --version" "0 $(printf '%s' "$got_isl")" \
    "$rc $(printf '%s\n' "$out" | sed -n ${n_isl}p)"

# ------------------------------------------------------------------ help

run_dmd help
same "help: the list of commands on stdout, exit 0" \
    "0: usage: distmpmd COMMAND [ARGS]|" "$rc: $(printf '%s\n' "$out" | head -n 1)|$err"
for c in build run classes emit check diff sweep ref help; do
    run_dmd help "$c"
    h_rc=$rc h_out=$out h_err=$err
    run_dmd "$c" --help
    same "help $c is $c --help: its usage on stdout, exit 0" \
        "0 0 usage: distmpmd $c|same|" \
        "$h_rc $rc $(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f1-3)|$([ "$h_out" = "$out" ] && echo same)|$h_err$err"
done
run_dmd run -h
same "run -h is run --help" "0: usage: distmpmd run JOB_OR_DIR" \
    "$rc: $(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f1-4)"
run_dmd help frob
same "help of an unknown command: exit 2" \
    "2: distmpmd: unknown command 'frob'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# ------------------------------------------------------------ did you mean

for t in "biuld|build" "rnu|run" "chek|check" "clases|classes" \
        "swep|sweep" "emti|emit" "dif|diff" "bu|build" "hepl|help"; do
    run_dmd "${t%%|*}" tail.yaml
    same "distmpmd ${t%%|*}: did you mean '${t#*|}'? (exit 2, nothing run)" \
        "2: distmpmd: unknown command '${t%%|*}'; did you mean '${t#*|}'?|" \
        "$rc: $err|$out"
done
run_dmd frob tail.yaml
same "an unknown command like none: no guess, the list of commands" \
    "2: distmpmd: unknown command 'frob'||usage: distmpmd COMMAND [ARGS]" \
    "$rc: $(printf '%s\n' "$err" | head -n 3 | tr '\n' '|' | sed 's/|$//')"
run_dmd --stats run tail.yaml
same "an option before the command" \
    "2: distmpmd: unknown option '--stats' (options come after the command)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# ------------------------------------------------------- getopt_long rules

"$DMD" build tail.yaml >/dev/null 2>&1
run_dmd run build/tail --stat
same "run DIR --stat: an unambiguous prefix of --stats" \
    '0: {"ranks": 2, "classes": 2,' "$rc: $(printf '%s\n' "$out" | head -n 1 | cut -c1-26)"
run_dmd run --stats build/tail
same "options before the positional argument" \
    '0: {"ranks": 2, "classes": 2,' "$rc: $(printf '%s\n' "$out" | head -n 1 | cut -c1-26)"
run_dmd build tail.yaml --out=o1 --job=2
same "build --out=DIR --job=2: prefixes with =VALUE" "0 o1/manifest.yaml" \
    "$rc $(ls o1/manifest.yaml)"
run_dmd build tail.yaml --output o2 -j2 --cflag=-DDMD_X=1
same "--output DIR, -j2 (attached), --cflag=FLAG" "0 o2/manifest.yaml" \
    "$rc $(ls o2/manifest.yaml)"
run_dmd build -o o3 -- tail.yaml
same "'--' ends the options: the job after it" "0 o3/manifest.yaml" \
    "$rc $(ls o3/manifest.yaml)"
cp tail.yaml ./-dash.yaml
run_dmd check -- -dash.yaml
same "check -- -dash.yaml: a job whose name starts with '-'" \
    "0: -dash.yaml: ok: job tail, 2 ranks" "$rc: $(printf '%s\n' "$out" | head -n 1)"
run_dmd sweep tail.yaml --s 'mesh.shape=[2]'
same "an ambiguous prefix: its candidates, exit 2" \
    "2: distmpmd: sweep: option '--s' is ambiguous: '--set', '--svg'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd run build/tail --stast
same "an unknown option: did you mean ...? (exit 2)" \
    "2: distmpmd: run: unknown option '--stast'; did you mean '--stats'?" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd run build/tail --stats=yes
same "a value for an option that takes none" \
    "2: distmpmd: run: option '--stats' takes no argument" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd run build/tail --tra
same "a missing value, the option named in full" \
    "2: distmpmd: run: option '--trace' needs an argument" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml --ran=1 --com
same "emit --ran=1 --com: both options recognised (one of them too many)" \
    "2: distmpmd: emit: give one of --rank, --class, --common, --lib and --lib-header" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd build tail.yaml -x
same "an unknown short option" "2: distmpmd: build: unknown option '-x'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# -------------------------------------------------------------- man page

if command -v groff >/dev/null; then
    # wide lines, spaces squeezed: no word broken, no phrase split
    MANWIDTH=2000 man -l "$ROOT/doc/distmpmd.1" 2>&1 </dev/null |
        tr -s ' ' >"$base/man.txt"
    rc=${PIPESTATUS[0]}
    for word in "distmpmd help [COMMAND]" "distmpmd --version" getopt_long \
            "unambiguous prefix" "did you mean" "out of range" \
            "2^64 - 1 for a seed"; do
        grep -qF -- "$word" "$base/man.txt" || rc="$rc, no $word"
    done
    same "the man page describes help, --version, options and integers" 0 "$rc"
fi

# ------------------------------------------------- transfers are not tensors

cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$ROOT/examples/jacobi.yaml" .
run_dmd check pumma_2x2.yaml
same "check: transfers are 'transfer #K', not X0 (read as a tensor X)" \
    "0: transfer #0 of A in step 1 at kor: shift along y
transfer #1 of B in step 1 at kor: broadcast along x
proved: transfer #0 (A in step 1: shift): what each rank receives is what its neighbour along y sends, around the ring
proved: transfer #1 (B in step 1: broadcast): every rank of each group along x enters it at the same time points, with the same root and box extents
covered: transfer #0 (A in step 1: shift): every element a rank reads through it at a time point is one it receives or holds, and every sender has what it sends
proved as emitted: transfer #1 (B in step 1: broadcast): every rank of each group along x enters it at the same time points, with the same root and box extents
covered: transfer #1 (B in step 1: broadcast): every element a rank reads through it at a time point is one it receives or holds, and every sender has what it sends" \
    "$rc: $(printf '%s\n' "$out" | grep -F "transfer #")"
got=""
for j in pumma_2x2.yaml jacobi.yaml; do
    for c in check classes; do
        got="$got$("$DMD" $c $j 2>&1 | grep -cE '\bX[0-9]+\b')"
    done
    got="$got $("$DMD" emit $j --class 0 2>&1 | grep -cE '\bX[0-9]+\b')|"
done
same "... in check, classes and the emitted C of a product and a program" \
    "00 0|00 0|" "$got"

# ---------------------------------------------- the reference as a command

R="$W/ref 'r' \$(q)"
mkdir -p "$R"
cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$R/"
cd "$R"
run_dmd ref
same "ref without a command: exit 2" \
    "2: distmpmd: ref: inputs, check, expect or ideal is needed" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd ref inputs pumma_2x2.yaml
same "ref inputs JOB writes the input B.npy (seed 100 + its position)" \
    "0: wrote B.npy (96x48 f64, seed 101)|B.npy pumma_2x2.yaml" \
    "$rc: $out$err|$(ls | tr '\n' ' ' | sed 's/ $//')"
run_dmd ref check pumma_2x2.yaml
same "ref check JOB before the run: exit 1, the missing output named" \
    "1: FAIL C: " "$rc: $(printf '%s\n' "$out" | cut -c1-8)"
"$DMD" run pumma_2x2.yaml >/dev/null 2>&1
run_dmd ref check pumma_2x2.yaml
same "ref check JOB after distmpmd run: exit 0" \
    "0: ok C: max rel err" "$rc: $(printf '%s\n' "$out" | cut -c1-17)"
run_dmd ref inputs nosuch.yaml
same "ref with a bad job: the reference's message, as 'distmpmd ref'" \
    "2: distmpmd ref: error: " "$rc: $(printf '%s\n' "$err" | cut -c1-21)"
DISTMPMD_HOME=/nonexistent run_dmd ref inputs pumma_2x2.yaml
same "ref without the reference: where it was looked for" \
    "1: distmpmd: ref: cannot find the reference in DISTMPMD_HOME=/nonexistent (tests/ref/dmd_ref.py or share/distmpmd/dmd_ref.py)" \
    "$rc: $err"
DISTMPMD_PYTHON=/nonexistent/python3 run_dmd ref inputs pumma_2x2.yaml
same "DISTMPMD_PYTHON names the interpreter" \
    "1: distmpmd: ref: cannot run /nonexistent/python3: No such file or directory (apt-get install python3-numpy python3-yaml, or set DISTMPMD_PYTHON)" \
    "$rc: $err"

# ------------------------------------ inputs checked before anything starts

I="$W/inputs 'i' \$(n)"
mkdir -p "$I"
cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$I/"
cd "$I"
hint="distmpmd: run: nothing was run; to make the inputs: distmpmd ref inputs pumma_2x2.yaml (random values from each tensor's seed), or numpy.save each array (C order, the shape and dtype the job gives)"
run_dmd run pumma_2x2.yaml
same "run JOB without its input B.npy: exit 1, the file named, how to make it" \
    "1: distmpmd: run: the input B.npy of tensor 'B' does not exist
$hint|" "$rc: $err|$out"
same "... before anything is built (no build directory), no rank started" \
    "pumma_2x2.yaml" "$(ls)"
"$DMD" build pumma_2x2.yaml >/dev/null 2>&1
run_dmd run build/pumma_2x2
same "run DIR without B.npy: the same, from the manifest's files" \
    "1: distmpmd: run: the input B.npy of tensor 'B' does not exist
$hint|" "$rc: $err|$out"
mkdir B.npy
run_dmd run build/pumma_2x2
same "... B.npy a directory" \
    "1: distmpmd: run: the input of tensor 'B': B.npy is not a regular file" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
rmdir B.npy
"$PY" -c 'import numpy as np; np.save("B.npy", np.zeros((96, 47)))'
run_dmd run build/pumma_2x2
same "... B.npy of another shape (the header read as the ranks would)" \
    "1: distmpmd: run: the input of tensor 'B': B.npy has shape (96, 47), the job says (96, 48)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
"$PY" -c 'import numpy as np; np.save("B.npy", np.zeros((96, 48), np.float32))'
run_dmd run build/pumma_2x2
same "... B.npy of another dtype" \
    "1: distmpmd: run: the input of tensor 'B': B.npy has dtype '<f4', the job says '<f8'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
head -c 200 "$ROOT/Makefile" >B.npy
run_dmd run build/pumma_2x2
same "... B.npy not a .npy file" \
    "1: distmpmd: run: the input of tensor 'B': B.npy is not a .npy file (bad magic)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
"$PY" -c 'import numpy as np; np.save("B.npy", np.zeros((96, 48)))'
truncate -s 1000 B.npy
run_dmd run build/pumma_2x2
same "... B.npy truncated" \
    "1: distmpmd: run: the input of tensor 'B': B.npy is truncated: 872 bytes of data, the shape needs 36864" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
mkdir -p sub
Ip=$(pwd -P)
(cd sub && "$DMD" run ../build/pumma_2x2 </dev/null >"$base/out" 2>"$base/err")
same "... run from below: the paths absolute (the job is not below), the hint quoted" \
    "distmpmd: run: the input of tensor 'B': $Ip/B.npy is truncated: 872 bytes of data, the shape needs 36864
distmpmd: run: nothing was run; to make the inputs: distmpmd ref inputs $("$PY" -c 'import shlex, sys; print(shlex.quote(sys.argv[1]))' "$Ip/pumma_2x2.yaml") (random values from each tensor's seed), or numpy.save each array (C order, the shape and dtype the job gives)" \
    "$(cat "$base/err")"
rm B.npy
(cd / && "$DMD" run "$I/pumma_2x2.yaml" </dev/null >"$base/out" 2>"$base/err")
cmd=$(sed -n 's/.*to make the inputs: \(.*\) (random values.*/\1/p' "$base/err")
(cd / && eval "\"\$DMD\"${cmd#distmpmd}") >"$base/ref.out" 2>&1
same "... a job in a hostile directory: the hint is a command that works pasted" \
    "0 B.npy" "$? $(ls "$I" | grep npy)"
mkdir -p alt
"$PY" -c 'import numpy as np; np.save("alt/B.npy", np.zeros((96, 47)))'
DMD_JOB_DIR=alt run_dmd run build/pumma_2x2
same "DMD_JOB_DIR: the inputs are looked for where the ranks will read them" \
    "1: distmpmd: run: the input of tensor 'B': alt/B.npy has shape (96, 47), the job says (96, 48)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
sed 's|file: C.npy|file: out/C.npy|' pumma_2x2.yaml >outdir.yaml
run_dmd run outdir.yaml
same "an output whose directory is missing is refused before the run" \
    "1: distmpmd: run: the output out/C.npy of tensor 'C' cannot be written: out is not a directory|" \
    "$rc: $err|$out"

# ------------------------------------------------ run says what it did

run_dmd run pumma_2x2.yaml
same "run JOB: one line on success, what ran and where the output went" \
    "0: distmpmd: ran pumma_2x2 (4 ranks, 1 class) in build/pumma_2x2; wrote C.npy|" \
    "$rc: $out|$err"
ref_check "$I/pumma_2x2.yaml"
check "... and C.npy is right" $? "$(cat "$base/ref.out")"
run_dmd run build/pumma_2x2 --stats
same "run DIR --stats: stdout is the JSON line alone, the line on stderr" \
    '0: 1 {"ranks": 4, "classes": 1,|distmpmd: ran pumma_2x2 (4 ranks, 1 class) in build/pumma_2x2; wrote C.npy' \
    "$rc: $(printf '%s\n' "$out" | wc -l) $(printf '%s\n' "$out" | cut -c1-26)|$err"
(cd sub && "$DMD" run ../build/pumma_2x2 -q --trace t.json </dev/null >"$base/out" 2>&1)
same "... -q: nothing (and a trace still written)" "0: |t.json t.svg" \
    "$?: $(cat "$base/out")|$(ls sub | tr '\n' ' ' | sed 's/ $//')"
(cd sub && "$DMD" run ../build/pumma_2x2 --trace t.json </dev/null >"$base/out" 2>&1)
same "... run from elsewhere, with a trace: the paths from there" \
    "0: distmpmd: ran pumma_2x2 (4 ranks, 1 class) in ../build/pumma_2x2; wrote $Ip/C.npy; timeline t.json and t.svg" \
    "$?: $(cat "$base/out")"
sed 's|, file: Y.npy||' "$ROOT/tests/e2e/jobs/tail.yaml" >nofile.yaml
run_dmd run nofile.yaml
same "a job that writes no file says so" \
    "0: distmpmd: ran tail (2 ranks, 2 classes) in build/tail; no output file (no tensor with 'file' is written)" \
    "$rc: $out"

# ------------------------------------ --dry-run: paths that work when pasted

printf 'localhost:4\n' >hosts
run_dmd run build/pumma_2x2 --dry-run -- -f hosts
abs=$(cd build/pumma_2x2 && pwd -P)
same "--dry-run -- -f hosts: the host file made absolute in both mpiexec commands" \
    "0: $Ip/hosts|$Ip/hosts" "$rc: $(printf '%s\n' "$out" | "$PY" -c '
import shlex, sys
lines = sys.stdin.read().split("\n")
print("|".join(w[w.index("-f") + 1] for w in (shlex.split(lines[i]) for i in (2, 4))))')"
rm -f C.npy
line=$(printf '%s\n' "$out" | sed -n 5p)
(cd / && eval "$line") </dev/null >"$base/eval.out" 2>&1
check "... the -configfile form (cd DIR && mpiexec -f ...) runs pasted anywhere" \
    $? "$line" "$(cat "$base/eval.out")"
ref_check "$I/pumma_2x2.yaml"
check "... with the right output" $? "$(cat "$base/ref.out")"

# a build directory of an earlier distmpmd (its manifest lists no files)
# runs as before
sed -i -e '/^job_dir:/d' -e '/^job_file:/d' -e '/^files:/,/^classes:/{/^classes:/!d}' \
    build/pumma_2x2/manifest.yaml
run_dmd run build/pumma_2x2
same "a manifest without files: run as before, the line without the outputs" \
    "0: distmpmd: ran pumma_2x2 (4 ranks, 1 class) in build/pumma_2x2|" \
    "$rc: $out|$err"

# ---------------------------------------- sweep: inputs beside the job, plot

Sw="$W/sweep inputs 's' \$(w)"
mkdir -p "$Sw"
cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$ROOT/tests/e2e/jobs/stencil3.yaml" "$Sw/"
cd "$Sw"
run_dmd sweep pumma_2x2.yaml --set 'mesh.shape=[2,2]' --work w0
same "sweep of a job whose input is not beside it, without --ref: exit 1, before any point" \
    "1: distmpmd: sweep: the input B.npy is not beside the job (./B.npy): give --ref to write each point's inputs with the reference|" \
    "$rc: $err|$(ls -d w0 2>/dev/null)"
"$DMD" ref inputs pumma_2x2.yaml >/dev/null 2>&1
timeout 300 "$DMD" sweep pumma_2x2.yaml --set 'mesh.shape=[2,2];[1,2];[2,1]' \
    --work w1 -o w.csv --svg w.svg </dev/null >"$base/out" 2>"$base/err"
rc=$?
same "sweep without --ref: each point reads a copy of the input beside the job" \
    "0: distmpmd: sweep: each point reads a copy of B.npy (from beside the job; --ref writes each point's inputs instead)" \
    "$rc: $(head -n 1 "$base/err")"
got=""
for n in 1 2 3; do
    cmp -s B.npy "w1/point-$n/B.npy" && got="$got same" || got="$got differs"
    "$PY" "$REF" check "w1/point-$n/pumma_2x2.yaml" >/dev/null 2>&1 &&
        got="$got ok" || got="$got FAIL"
done
same "... the copies equal B.npy, and every point's C is right" \
    " same ok same ok same ok" "$got"
csv_col() {
    "$PY" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
print(" ".join(r[int(sys.argv[2])] for r in rows))' "$@"
}
same "... the CSV: the ranks of each mesh" "4 2 2" "$(csv_col w.csv 1)"
got=$(xml_check w.svg '
def vals(w):
    return [t.text for t in svg.iter(NS + "text") if cls(t) == ["label", w]]
titles = [t.text for t in svg.iter(NS + "text") if "panel-title" in cls(t)]
print("|".join(titles))
print(" ".join(vals("time")), " ".join(vals("gflops")))')
same "... the plot: classes, bytes, time and GFLOP/s, the values of the CSV" \
    "rank classes|bytes moved (bytes_moved_total)|time of the compute phase, s (time_s)|GFLOP/s (gflops: 2 M N K / time_s of the matrix products)
$(csv_col w.csv 5) $(csv_col w.csv 6)" \
    "$got"
timeout 300 "$DMD" sweep stencil3.yaml --set 'tensors.A.seed=1,2' --work w2 \
    -o s.csv --svg s.svg </dev/null >/dev/null 2>&1
got=$(xml_check s.svg '
print(sum(1 for c in svg.iter(NS + "circle") if "time" in cls(c)),
      "|".join(t.text for t in svg.iter(NS + "text") if "empty" in cls(t)))')
same "a stencil (no matrix product): time plotted, GFLOP/s said null" \
    "2 null at every point (no matrix product)" "$got"

# ---------------------------------------------------------------- make demo

De="$W/demo 'd' \$(m)"
before=$(ls -A "$ROOT/examples")
DEMO_DIR="$De" DISTMPMD="$DMD" timeout 300 bash "$ROOT/examples/demo.sh" \
    </dev/null >"$base/demo.out" 2>&1
rc=$?
Dp=$(cd "$De" && pwd -P)
got=$(grep -E '^demo: |^  \| PUMMA|^  mesh: |^  computes: |^  [ABC]   |^  blas |^                   OPENBLAS|^  output |^  check  ' "$base/demo.out" |
    sed -e 's/^\(  blas  *\)[A-Za-z0-9_]*/\1CORE/' \
        -e 's/max rel err [0-9.e+-]* (/max rel err E (/')
same "the demo says what it ran (PUMMA, shapes, mesh), where C.npy is, what blas means" \
    "0: demo: pumma_2x2.yaml, in $Dp
  | PUMMA on a 2x2 mesh (the main job of the README): A shifts along y in a
  mesh: 2x2, axes x, y (4 ranks)
  computes: C[m, n] = A[m, k] * B[k, n]
  A   768x1024 f32, random, seed 1
  B   1024x640 f32, read from B.npy
  C   768x640 f32, written to C.npy
  blas             CORE  (OpenBLAS's core type for this CPU: the kernels it chose;
                   OPENBLAS_CORETYPE=... chooses others)
  check            ok C: max rel err E (f32, tol 1e-04)
  output C         $Dp/C.npy  (768x640 f32; numpy.load reads it)" \
    "$rc: $got"
same "... in its scratch directory, nothing written into examples/" \
    "B.npy C.npy build pumma_2x2.yaml run.out|$before" \
    "$(ls "$De" | tr '\n' ' ' | sed 's/ $//')|$(ls -A "$ROOT/examples")"

# ----------------------------------------------- make test prints its time

TESTS=bogus bash "$ROOT/tests/run.sh" </dev/null >"$base/out" 2>&1
rc=$?
same "tests/run.sh (make test) ends with its total time, then the count" \
    "1: unknown test part 'bogus'|=== total|time: N s (0 min N s)|0 passed, 1 failed" \
    "$rc: $(sed 's/[0-9][0-9]* s/N s/g' "$base/out" | tr '\n' '|' | sed 's/|$//')"

# --no-input-check: for a launch node that does not see the files; the
# ranks check them then (one MPI_Abort per rank)
cd "$I"
rm -f B.npy
"$DMD" build pumma_2x2.yaml >/dev/null 2>&1
grep -q '^files:' build/pumma_2x2/manifest.yaml
check "(the manifest lists the files again)" $?
run_dmd run build/pumma_2x2 --no-input-check
same "run DIR --no-input-check: mpiexec starts, the ranks find B.npy missing" \
    "1: 1 distmpmd: mpiexec.mpich failed (exit status 1)" \
    "$rc: $(grep -c "tensor 'B': cannot open" "$base/err") $(tail -n 1 "$base/err")"

# the man page describes what the first hour added
if command -v groff >/dev/null; then
    MANWIDTH=2000 man -l "$ROOT/doc/distmpmd.1" 2>&1 </dev/null |
        tr -s ' ' >"$base/man.txt"
    rc=${PIPESTATUS[0]}
    for word in "ref inputs JOB" "ref check JOB" DISTMPMD_PYTHON \
            "share/distmpmd/dmd_ref.py" "--quiet" "--no-input-check" \
            "nothing was run; to make the inputs" "distmpmd: ran" \
            "made absolute" "reads a copy of" "GFLOP/s" "core type"; do
        grep -qF -- "$word" "$base/man.txt" || rc="$rc, no $word"
    done
    same "the man page: ref, the input check, run's line, --dry-run's files, sweep" \
        0 "$rc"
fi
