# tests/cli/mpi.sh: any MPI (spec section 2, "MPI"): --mpicc, --mpiexec,
# DISTMPMD_MPICC and DISTMPMD_MPIEXEC; the MPI that manifest.yaml
# records; run DIR refusing a launcher of another MPI; the runtime of
# the wrapper's MPI (and of no other); wrappers that are not an MPI or
# are named like shell code.
#
# Sourced by tests/cli/run.sh (its helpers, counters and hostile working
# directory $W); never run on its own.  Needs Open MPI (openmpi-bin,
# libopenmpi-dev: setup.sh installs them) and obj/openmpi/libdmdrt.a
# (make all builds it when mpicc.openmpi is there).

# Open MPI as root, and four ranks on fewer cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

M="$W/mpi \$(touch \${IFS}$base/pwned3) 'o'"
mkdir -p "$M"
cd "$M"
cp "$ROOT/tests/e2e/jobs/jacobi2d_2x2.yaml" "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" .
"$PY" "$REF" inputs pumma_2x2.yaml >/dev/null
ompi_version=$(mpicc.openmpi --showme:version 2>/dev/null |
    sed -n 's/.*Open MPI \([0-9.]*\).*/\1/p')
mpich_version=$(mpicc.mpich -v 2>/dev/null |
    sed -n 's/.*for MPICH version \([0-9.]*\).*/\1/p')

# ------------------------------------------------------- built with Open MPI

run_dmd run pumma_2x2.yaml -o "o m" --mpicc mpicc.openmpi \
    --mpiexec mpiexec.openmpi --stats
same "run JOB --mpicc mpicc.openmpi --mpiexec mpiexec.openmpi: PUMMA's bytes" \
    '0: {"ranks": 4, "classes": 1,|"bytes_moved_total": 86016, "bytes_recv_max": 21504, "messages": 8' \
    "$rc: $(printf '%s' "$out" | cut -c1-26)|$(printf '%s' "$out" |
        grep -o '"bytes_moved_total": [0-9]*, "bytes_recv_max": [0-9]*, "messages": [0-9]*')"
ref_check "$M/pumma_2x2.yaml"
check "... the output is right" $? "$(cat "$base/ref.out")"
same "... the manifest records Open MPI, its version and the wrapper" \
    "mpi: {family: openmpi, version: '$ompi_version', mpicc: mpicc.openmpi}" \
    "$(grep '^mpi:' "o m/manifest.yaml")"
same "... which is $(echo "$ompi_version" | cut -c1-3) here (Debian 12: 4.1)" \
    "1" "$(case $ompi_version in [0-9]*.[0-9]*) echo 1 ;; *) echo 0 ;; esac)"

rm -f C.npy
run_dmd run "o m"
same "run DIR of an Open MPI build with MPICH's launcher: refused, exit 1" \
    "1: distmpmd: o m was built with Open MPI (mpicc.openmpi) but the launcher mpiexec.mpich is MPICH's: give Open MPI's launcher (--mpiexec or DISTMPMD_MPIEXEC, e.g. mpiexec.openmpi)" \
    "$rc: $err"
same "... nothing ran: no output" "" "$(ls C.npy 2>/dev/null)"
run_dmd run "o m" --dry-run
same "... --dry-run too" "1: distmpmd: o m was built with Open MPI (mpicc.openmpi) but the launcher mpiexec.mpich is MPICH's: give Open MPI's launcher (--mpiexec or DISTMPMD_MPIEXEC, e.g. mpiexec.openmpi)" \
    "$rc: $err"

DISTMPMD_MPIEXEC=mpiexec.openmpi run_dmd run "o m"
same "DISTMPMD_MPIEXEC=mpiexec.openmpi run DIR: runs (and says so)" \
    "0:distmpmd: ran pumma_2x2 (4 ranks, 1 class) in o m; wrote C.npy" \
    "$rc:$out"
ref_check "$M/pumma_2x2.yaml"
check "... the output is right" $? "$(cat "$base/ref.out")"

abs=$(cd "o m" && pwd -P)
DISTMPMD_MPIEXEC=mpiexec.openmpi run_dmd run "o m" --dry-run --stats \
    -- --bind-to none
want=$("$PY" - "$abs" <<'PY'
import shlex, sys
d = sys.argv[1]
q = shlex.quote
print("# o m: 4 ranks, 1 class")
print("# Open MPI, the ranks on the command line (what distmpmd run does):")
print("mpiexec.openmpi --bind-to none -n 4 -wdir %s "
      "-x DMD_STATS=1 -x OPENBLAS_NUM_THREADS %s" % (q(d), q(d + "/class0")))
print("# Slurm, inside an allocation of 4 tasks:")
print("DMD_STATS=1 srun --ntasks=4 %s --multi-prog %s"
      % (q("--chdir=" + d), q(d + "/multiprog.conf")))
PY
)
same "run DIR --dry-run with Open MPI: -x in the section, no -configfile" \
    "0: $want" "$rc: $out"
rm -f C.npy
line=$(printf '%s\n' "$out" | sed -n 3p)
(cd / && eval "$line") </dev/null >"$base/eval.out" 2>&1
check "... the Open MPI command runs from anywhere (eval)" $? \
    "$(cat "$base/eval.out")"
ref_check "$M/pumma_2x2.yaml"
check "... with the right output" $? "$(cat "$base/ref.out")"

# A program of several classes (halos, repeat), with the environment.
rm -f A.npy
"$PY" "$REF" inputs jacobi2d_2x2.yaml >/dev/null
DISTMPMD_MPICC=mpicc.openmpi DISTMPMD_MPIEXEC=mpiexec.openmpi \
    run_dmd run jacobi2d_2x2.yaml --trace "j t.json"
same "DISTMPMD_MPICC/DISTMPMD_MPIEXEC: a program of 4 classes runs, traced" \
    "0: j t.json j t.svg" "$rc: $(ls "j t.json" "j t.svg" | tr '\n' ' ' |
        sed 's/ $//')"
ref_check "$M/jacobi2d_2x2.yaml"
check "... the output is right" $? "$(cat "$base/ref.out")"
same "... the trace has every rank" "0 1 2 3" "$("$PY" -c '
import json, sys
t = json.load(open(sys.argv[1]))
print(*sorted({e["pid"] for e in t["traceEvents"]}))' "j t.json" 2>&1)"

# --------------------------------------------------------- built with MPICH

run_dmd build pumma_2x2.yaml -o mp
same "build with the default wrapper: the manifest records MPICH" \
    "0 mpi: {family: mpich, version: '$mpich_version', mpicc: mpicc.mpich}" \
    "$rc $(grep '^mpi:' mp/manifest.yaml)"
run_dmd run mp --mpiexec mpiexec.openmpi
same "run DIR of an MPICH build with Open MPI's launcher: refused, exit 1" \
    "1: distmpmd: mp was built with MPICH (mpicc.mpich) but the launcher mpiexec.openmpi is Open MPI's: give MPICH's launcher (--mpiexec or DISTMPMD_MPIEXEC, e.g. mpiexec.mpich)" \
    "$rc: $err"
grep -v '^mpi:' mp/manifest.yaml >mp/m.tmp && mv mp/m.tmp mp/manifest.yaml
run_dmd run mp --mpiexec mpiexec.openmpi
same "... also when the manifest has no 'mpi' (an older build: MPICH)" \
    "1: distmpmd: mp was built with MPICH (mpicc.mpich) but the launcher mpiexec.openmpi is Open MPI's: give MPICH's launcher (--mpiexec or DISTMPMD_MPIEXEC, e.g. mpiexec.mpich)" \
    "$rc: $err"
cp mp/manifest.yaml "$base/mp.manifest"
sed 's/^nranks: 4$/nranks: 4\nmpi: {family: openmpi, version: "4", mpicc: "cc\\n\\e[2J"}/' \
    "$base/mp.manifest" >mp/manifest.yaml
run_dmd run mp
same "a wrapper's name from the manifest is shown escaped" \
    "1: distmpmd: mp was built with Open MPI (cc\\012\\033[2J) but the launcher mpiexec.mpich is MPICH's: give Open MPI's launcher (--mpiexec or DISTMPMD_MPIEXEC, e.g. mpiexec.openmpi)" \
    "$rc: $err"
cp "$base/mp.manifest" mp/manifest.yaml
run_dmd run mp --mpiexec mpiexec.mpich --stats
same "... and runs with MPICH's" '0: {"ranks": 4,' "$rc: $(printf '%s' "$out" | cut -c1-12)"

# ------------------------------------------------- wrappers and launchers

run_dmd build pumma_2x2.yaml -o bad --mpicc "$M/no such \$(touch x) cc"
same "--mpicc naming a missing program: exit 1, named, no shell" \
    "1: distmpmd: cannot run $M/no such \$(touch x) cc: No such file or directory" \
    "$rc: $err"
no_pwned
check "... and no shell code ran" $?
run_dmd build pumma_2x2.yaml -o bad --mpicc /bin/false
same "a wrapper that is not an MPI's: exit 1, said so" \
    "1: distmpmd: cannot tell which MPI the compiler wrapper '/bin/false' belongs to ('-show' names no -lmpich and '--showme:version' no Open MPI); distmpmd knows MPICH and Open MPI" \
    "$rc: $err"
DISTMPMD_MPIEXEC=/bin/echo run_dmd run mp
same "a launcher that is not an MPI's: exit 1, said so" \
    "1: distmpmd: cannot tell which MPI the launcher '/bin/echo' belongs to ('--version' names neither HYDRA nor OpenRTE or Open MPI); distmpmd knows MPICH and Open MPI" \
    "$rc: $err"
run_dmd build pumma_2x2.yaml --mpicc ""
same "--mpicc '': exit 2" \
    "2: distmpmd: build: --mpicc needs a compiler wrapper" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd run mp --mpicc mpicc.openmpi
same "--mpicc with a build directory: exit 2" \
    "2: distmpmd: run: -o, -j, --mpicc and --cflag apply to a job file, but 'mp' is a build directory" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# Open MPI's wrapper, but the runtime in its place was compiled with
# MPICH: refused (its handles would mean nothing to Open MPI's library).
# (A wrapper that does not answer is given up after 30 s: not tested.)
fake_home=$base/fake_home
mkdir -p "$fake_home/runtime" "$fake_home/obj/openmpi"
cp "$ROOT"/runtime/*.h "$fake_home/runtime/"
cp "$ROOT/obj/libdmdrt.a" "$fake_home/obj/openmpi/libdmdrt.a"
DISTMPMD_HOME=$fake_home run_dmd build pumma_2x2.yaml -o bad \
    --mpicc mpicc.openmpi
same "a runtime compiled with MPICH where Open MPI's should be: refused" \
    "1: distmpmd: the runtime $fake_home/obj/openmpi/libdmdrt.a was compiled with MPICH, not with Open MPI" \
    "$rc: $err"
rm "$fake_home/obj/openmpi/libdmdrt.a"
DISTMPMD_HOME=$fake_home run_dmd build pumma_2x2.yaml -o bad \
    --mpicc mpicc.openmpi
same "no runtime for Open MPI: refused, how to make it" \
    "1: distmpmd: DISTMPMD_HOME=$fake_home holds no distmpmd runtime for Open MPI (neither include/distmpmd/dmd_rt.h and lib/distmpmd/openmpi/libdmdrt.a nor runtime/dmd_rt.h and obj/openmpi/libdmdrt.a; in the source tree: make runtime-openmpi)" \
    "$rc: $err"
same "... and no class was compiled" "" "$(ls bad/class0 2>/dev/null)"
cd "$W"
