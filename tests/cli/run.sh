#!/bin/bash
# tests/cli: the command line and the build directory.
#
#   bash tests/cli/run.sh         (DISTMPMD=PATH: the compiler to test)
#
# Everything runs in a directory whose path holds spaces, quotes and
# $(...), with jobs in directories named like shell code: no shell may
# ever see them.  Each test asserts exact text, an exit status or the
# state of files and processes:
#   - no shell: hostile directory names, a hostile -o, no system/popen
#   - the job directory compiled in relative to the build directory:
#     a build directory moved with the job's files still runs; escaping
#   - concurrent runs of one job into one directory
#   - run DIR checks the binaries (SHA-256) and the launcher files
#   - cancelling a run or a build leaves no process and no output
#   - messages for bad arguments
#   - parallel compilation (-j), progress line, --cflag, DISTMPMD_CFLAGS
#   - appfile, multiprog.conf, run --dry-run, MPICH arguments after --
#   - make install, a moved installation, pkg-config, the man page
#   - run --trace, diff, sweep, classes --svg (tests/cli/v2.sh)
#   - integers on the command line: no wrapping (tests/cli/numbers.sh)
#   - the first hour: --version, help, getopt_long options, "did you
#     mean" (tests/cli/first_hour.sh)
#   - any MPI: Open MPI's wrapper and launcher, the MPI in the manifest,
#     run DIR refusing another MPI's launcher (tests/cli/mpi.sh)
# The last line is "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
case $DMD in
    /*) ;;
    *) DMD=$PWD/$DMD ;;
esac
PY=/usr/bin/python3
REF=$ROOT/tests/ref/dmd_ref.py
export OPENBLAS_NUM_THREADS=1 LC_ALL=C
unset DMD_STATS DMD_JOB_DIR DISTMPMD_HOME DISTMPMD_CFLAGS

passed=0
failed=0
base=$(mktemp -d "${TMPDIR:-/tmp}/dmd-cli.XXXXXX") || exit 2
chmod 755 "$base"
cleanup() {
    cd /
    rm -rf "$base"
}
trap cleanup EXIT

# The working directory: spaces, quotes and $(...) in its path.
W="$base/w d 'q' \"dq\" \$(touch \${IFS}$base/pwned0) \`touch x\`"
mkdir -p "$W" && cd "$W" || exit 2

ok() {
    passed=$((passed + 1))
    echo "ok - $1"
}

# fail NAME [DETAIL...]
fail() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    shift
    local l
    for l in "$@"; do
        printf '%s\n' "$l" | sed 's/^/#   /'
    done
}

# check NAME COND_STATUS [DETAIL...]: ok if the status is 0
check() {
    local name=$1 st=$2
    shift 2
    if [ "$st" = 0 ]; then ok "$name"; else fail "$name" "$@"; fi
}

# same NAME WANT GOT: exact text
same() {
    if [ "$2" = "$3" ]; then
        ok "$1"
    else
        fail "$1" "expected:" "$2" "got:" "$3"
    fi
}

# run_dmd ARGS...: run distmpmd with stdout in $out, stderr in $err and
# the exit status in $rc (no input, a time limit)
run_dmd() {
    "$DMD" "$@" </dev/null >"$base/out" 2>"$base/err"
    rc=$?
    out=$(cat "$base/out")
    err=$(cat "$base/err")
}

# ref_check JOBFILE: the job's output matches the reference
ref_check() {
    "$PY" "$REF" check "$1" >"$base/ref.out" 2>&1
}

# no_pwned: no file "pwned*" appeared in $base
no_pwned() {
    [ -z "$(find "$base" -name 'pwned*' -o -name x -print)" ]
}

# procs_in PATH: the processes (other than us) whose command line holds
# PATH, or whose working directory or executable is PATH or below it
procs_in() {
    local p path=$1 found=""
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = $$ ] && continue
        [ "${p#/proc/}" = "$BASHPID" ] && continue
        if grep -qaF -- "$path" "$p/cmdline" 2>/dev/null; then
            found="$found ${p#/proc/}"
            continue
        fi
        case "$(readlink "$p/cwd" 2>/dev/null)/" in
            "$path"/*) found="$found ${p#/proc/}"; continue ;;
        esac
        case "$(readlink "$p/exe" 2>/dev/null)" in
            "$path"/*) found="$found ${p#/proc/}" ;;
        esac
    done
    echo $found
}

# wait_for N CMD...: wait (at most N seconds) until CMD succeeds
wait_for() {
    local n=$(($1 * 10))
    shift
    while [ $n -gt 0 ]; do
        "$@" && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

# exe_count_is PATH N: are N processes running the executable PATH?
exe_count_is() {
    local p n=0
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/exe" 2>/dev/null)" = "$1" ] && n=$((n + 1))
    done
    [ $n = "$2" ]
}

# procs_at_least PATH N: are there N processes that procs_in PATH finds?
procs_at_least() {
    [ "$(procs_in "$1" | wc -w)" -ge "$2" ]
}

# xml_check FILE PROGRAM ARGS...: run the python PROGRAM (stdin) on the
# parsed SVG FILE (sys.argv[1]; "svg" is its root, NS its namespace);
# print what it prints
xml_check() {
    local f=$1 prog=$2
    shift 2
    "$PY" -c "
import sys, json, collections, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
svg = ET.parse(sys.argv[1]).getroot()
assert svg.tag == NS + 'svg', svg.tag
def cls(e):
    return (e.get('class') or '').split()
def title(e):
    t = e.find(NS + 'title')
    return t.text if t is not None else None
$prog" "$f" "$@" 2>&1
}

# A fake mpicc.mpich (first in PATH), an MPICH to "-show" and "-v":
# "sleep" waits, "fail1" fails for
# class1.c, "log" records start and end in $base/cc.log; otherwise it
# writes a copy of /bin/true as the -o target.
fake=$base/fakecc
mkdir -p "$fake"
cat >"$fake/mpicc.mpich" <<'SH'
#!/bin/bash
# what distmpmd asks to tell the MPI (manifests/dmd_mpi.c)
case $1 in
    -show) echo "gcc -I/fake/mpich -lmpich"; exit 0 ;;
    -v) echo "mpicc for MPICH version 0.fake"; exit 0 ;;
esac
out=
prev=
for a in "$@"; do
    [ "$prev" = -o ] && out=$a
    prev=$a
done
case $FAKE_CC in
    sleep)
        bash -c 'exec -a "$1-child" sleep 60' _ "$0" &
        wait
        exit 0 ;;
    fail1)
        case " $* " in
            *" class1.c "*) echo "fake: class1.c: error" >&2; exit 1 ;;
        esac ;;
    log)
        echo start >>"$FAKE_LOG"
        sleep 0.3
        echo end >>"$FAKE_LOG" ;;
esac
cp /bin/true "$out"
SH
chmod 755 "$fake/mpicc.mpich"

# fake_build MODE ARGS...: distmpmd with the fake compiler
fake_build() {
    local mode=$1
    shift
    FAKE_CC=$mode FAKE_LOG=$base/cc.log PATH="$fake:$PATH" run_dmd "$@"
}

# The jobs: tail (2 ranks, 2 classes) in a directory named like shell
# code (the name holds '/': it is several directories).
J="$W/x'\$(touch\${IFS}$base/pwned1)'y"
mkdir -p "$J"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$J/tail.yaml"

echo "# working in: $W"

# ---------------------------------------------------------------- no shell

cd "$J"
run_dmd build tail.yaml
check "build in a directory named x'\$(touch...)'y succeeds" $rc "$err"
same "... and says where" \
    "distmpmd: built tail: 2 classes for 2 ranks in build/tail" "$out"
no_pwned
check "... and runs no shell code from the name" $?
same "... and writes the build directory" \
    "appfile class0 class0.c class1 class1.c common.h manifest.yaml multiprog.conf" \
    "$(ls -A build/tail | tr '\n' ' ' | sed 's/ $//')"

hostile="o';touch\${IFS}pwned2;'"
run_dmd build tail.yaml -o "$hostile"
check "build -o \"o';touch\${IFS}...;'\" succeeds" $rc "$err"
[ -f "$hostile/manifest.yaml" ] && [ -x "$hostile/class1" ] && no_pwned
check "... into a directory of exactly that name, no shell code run" $?

run_dmd run tail.yaml
check "run JOB in that directory exits 0" $rc "$err"
ref_check "$J/tail.yaml"
check "... and its output is right" $? "$(cat "$base/ref.out")"

hits=$(grep -n -E '\b(system|popen)[[:space:]]*\(' \
    "$ROOT"/cmd/*.[ch] "$ROOT"/manifests/*.[ch])
same "no system( or popen( in cmd/ and manifests/" "" "$hits"

# The job directory is compiled in relative to the build directory: a
# copy of the job directory with its build directory runs in the copy.
cd "$W"
cp -a "$J" "$W/moved copy"
rm -f "$W/moved copy/Y.npy"
sum_before=$(cksum <"$J/Y.npy")
run_dmd run "$W/moved copy/build/tail"
check "a copied job directory's build directory runs" $rc "$err"
ref_check "$W/moved copy/tail.yaml"
check "... writing the copy's output" $? "$(cat "$base/ref.out")"
same "... not the original's" "$sum_before" "$(cksum <"$J/Y.npy")"

# Every byte of the job directory survives as a C string: a newline, a
# backslash, quotes, non-ASCII, and a build directory elsewhere.
K="$W/"$'j"\\\n\xc3\xa9 \'q\'?\?=\x01'
mkdir -p "$K" "$W/builds"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$K/tail.yaml"
run_dmd run "$K/tail.yaml" -o "$W/builds/k"
check "a job directory with a newline, '\\', '\"', é, ??= and \\001 runs" \
    $rc "$err"
ref_check "$K/tail.yaml"
check "... writing its output there" $? "$(cat "$base/ref.out")"

# The literal: relative when the directories share more than "/",
# absolute otherwise.
mkdir -p "$W/builds"
run_dmd build "$J/tail.yaml" -o "$W/builds/rel"
grep -qaF "../../x'\$(touch\${IFS}" "$W/builds/rel/class0"
check "DMD_JOB_DIR is the job directory relative to the build directory" \
    $(( rc + $? )) "$err"
if shm=$(mktemp -d /dev/shm/dmd-cli.XXXXXX 2>/dev/null); then
    cp "$J/tail.yaml" "$shm/"
    run_dmd build "$shm/tail.yaml" -o "$W/builds/abs"
    grep -qaF "$shm" "$W/builds/abs/class0"
    check "... or absolute when they have only / in common" $(( rc + $? )) \
        "$err"
    rm -rf "$shm"
else
    echo "# skipped: absolute job directory (no /dev/shm)"
fi

# ------------------------------------------------------------- concurrency

C="$W/conc"
mkdir -p "$C"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$C/tail.yaml"
cd "$C"
( "$DMD" run tail.yaml </dev/null >"$base/c1.out" 2>&1; echo $? >"$base/c1.rc" ) &
( "$DMD" run tail.yaml </dev/null >"$base/c2.out" 2>&1; echo $? >"$base/c2.rc" ) &
wait
same "two concurrent runs of one job into one directory both exit 0" \
    "0 0" "$(cat "$base/c1.rc") $(cat "$base/c2.rc")"
[ "$(cat "$base/c1.rc")" = 0 ] || cat "$base/c1.out"
[ "$(cat "$base/c2.rc")" = 0 ] || cat "$base/c2.out"
ref_check "$C/tail.yaml"
check "... and the output is right" $? "$(cat "$base/ref.out")"
same "... and no temporary file is left" \
    "appfile class0 class0.c class1 class1.c common.h manifest.yaml multiprog.conf" \
    "$(ls -A build/tail | tr '\n' ' ' | sed 's/ $//')"
same "... nor beside the output" "Y.npy build tail.yaml" \
    "$(ls -A | tr '\n' ' ' | sed 's/ $//')"

# ----------------------------------------------------- run DIR: the checks

cd "$J"
good_app=$(cat build/tail/appfile)
printf -- '-n 2 /bin/echo PWNED\n' >build/tail/appfile
run_dmd run build/tail
same "run DIR with an appfile running /bin/echo exits 1" 1 "$rc"
same "... naming the file and the first differing line" \
    "distmpmd: cannot run build/tail: build/tail/appfile line 1 is '-n 2 /bin/echo PWNED', but build/tail/manifest.yaml implies '-n 1 ./class0'" \
    "$err"
same "... and runs nothing" "" "$out"
printf '%s\n' "$good_app" >build/tail/appfile

cp build/tail/class1 "$base/class1.good"
cp /bin/true build/tail/class1
want=$(sed -n '/binary: class1/,/ranks/s/ *sha256: //p' build/tail/manifest.yaml |
    tr -d "'")
got=$(sha256sum /bin/true | cut -c1-64)
run_dmd run build/tail
same "run DIR with a class binary replaced by /bin/true exits 1" 1 "$rc"
same "... saying so with both SHA-256" \
    "distmpmd: cannot run build/tail: build/tail/class1 is not the binary that build/tail/manifest.yaml describes (its SHA-256 is $got, not $want)" \
    "$err"

ln -sf /bin/true build/tail/class1
run_dmd run build/tail
same "a class binary that is a symbolic link out of DIR is refused" \
    "1: distmpmd: cannot run build/tail: build/tail/class1 is a symbolic link to a file outside build/tail" \
    "$rc: $err"
rm -f build/tail/class1
cp "$base/class1.good" build/tail/class1

cp build/tail/manifest.yaml "$base/manifest.good"
sed -i 's/binary: class1/binary: ..\/..\/class1/' build/tail/manifest.yaml
run_dmd run build/tail
same "a manifest naming a binary outside DIR is refused" \
    "1: build/tail/manifest.yaml: error: class 1: the binary '../../class1' is not a plain file name in the build directory" \
    "$rc: $err"
cp "$base/manifest.good" build/tail/manifest.yaml

printf '0 ./class0\n1 /bin/sh\n' >build/tail/multiprog.conf
run_dmd run build/tail
same "a multiprog.conf running another program is refused" \
    "1: distmpmd: cannot run build/tail: build/tail/multiprog.conf line 2 is '1 /bin/sh', but build/tail/manifest.yaml implies '1 ./class1'" \
    "$rc: $err"
printf '0 ./class0\n1 ./class1\n' >build/tail/multiprog.conf

run_dmd run build/tail
check "the restored build directory runs again" $rc "$err"

# The SHA-256 of manifests/dmd_sha256.c against sha256sum.
if cc -std=gnu11 -Wall -Wextra -Werror -I"$ROOT" -o "$base/sha256_test" \
        "$ROOT/tests/cli/sha256_test.c" "$ROOT/manifests/dmd_sha256.c"; then
    mkdir -p "$base/sha"
    for n in 0 1 3 55 56 57 63 64 65 119 120 127 128 1000 100000; do
        head -c $n /dev/urandom >"$base/sha/f$n"
    done
    cp "$DMD" "$base/sha/distmpmd"
    (cd "$base/sha" && "$base/sha256_test" * >"$base/sha.mine" &&
        sha256sum * >"$base/sha.ref")
    cmp -s "$base/sha.mine" "$base/sha.ref"
    check "SHA-256 equals sha256sum on 16 files (0 to 100000 bytes, a binary)" \
        $? "$(diff "$base/sha.mine" "$base/sha.ref")"
else
    fail "tests/cli/sha256_test.c builds"
fi

# -------------------------------------------------------------- cancelling

# A job that would compute for many seconds (a matrix product by loops;
# it is cancelled after half a second).
S="$W/slow job"
mkdir -p "$S"
cat >"$S/slow.yaml" <<'YAML'
name: slow
mesh: {axes: [x], shape: [2]}
tensors:
  X: {shape: [2048, 2048], dtype: f64, dist: [x, "-"], init: random, seed: 7}
  W: {shape: [2048, 2048], dtype: f64, dist: ["-", "-"], init: random, seed: 8}
  Y: {shape: [2048, 2048], dtype: f64, dist: [x, "-"], file: Y.npy}
compute: Y[m, n] = X[m, k] * W[k, n]
schedule:
  - distribute([m], [mo], [mi], [x])
YAML
cd "$S"
run_dmd build slow.yaml
check "the slow job builds" $rc "$err"
S=$(pwd -P)
sbin="$S/build/slow/class0"

# Under nohup the suite ignores SIGHUP, and so would every run it starts
# (an ignored signal stays ignored across exec, and distmpmd rightly
# keeps it so): the runs that are to be cancelled start with SIGHUP's
# default action, as from a terminal (env --default-signal, coreutils
# 8.31).  Without it, the SIGHUP test gave 4 false failures under nohup.
if env --default-signal=HUP true 2>/dev/null; then
    dfl_hup=(env --default-signal=HUP)
else
    dfl_hup=()
fi

# ranks_up_or_gone PID: are the 2 ranks of the slow job running (then
# ranks_up=1), or has process PID ended?  One scan of /proc takes a
# second while the ranks busy-poll both cores: its answer is kept, not
# asked again (a second scan may end after the ranks did).
ranks_up_or_gone() {
    if exe_count_is "$sbin" 2; then
        ranks_up=1
        return 0
    fi
    ! kill -0 "$1" 2>/dev/null
}

# cancel_run NAME SIGNAL HOW: start run DIR, wait for its 2 ranks, then
# send SIGNAL ("kill": to distmpmd alone; "timeout": with timeout(1),
# after 4 s).  With timeout, a slow MPI launch (seen on a loaded CI
# machine: more than 4 s) may let it fire before the ranks start: that
# is a cancel during the launch, which must end the same way, so it is
# checked the same and only noted.  rc and left are always set.
cancel_run() {
    local name=$1 sig=$2 how=$3 pid
    rc=none
    left=unchecked
    ranks_up=0
    if [ "$how" = timeout ]; then
        timeout -s "$sig" 4 "${dfl_hup[@]}" "$DMD" run build/slow \
            </dev/null >"$base/cancel.out" 2>"$base/cancel.err" &
    else
        "${dfl_hup[@]}" "$DMD" run build/slow </dev/null \
            >"$base/cancel.out" 2>"$base/cancel.err" &
    fi
    pid=$!
    if [ "$how" = timeout ]; then
        if ! wait_for 60 ranks_up_or_gone $pid; then
            fail "$name: the ranks start or the run ends"
            kill -KILL $pid
            wait $pid
            return
        fi
        [ $ranks_up = 1 ] ||
            echo "# $name: fired before both ranks started (a slow launch)"
    fi
    if [ "$how" = kill ] && ! wait_for 60 exe_count_is "$sbin" 2; then
        fail "$name: the ranks start"
        kill -KILL $pid
        wait $pid
        return
    fi
    [ "$how" = kill ] && { sleep 0.5; kill -s "$sig" $pid; }
    wait $pid
    rc=$?
    left=$(procs_in "$S")
}

cancel_run "SIGTERM" TERM kill
same "SIGTERM to distmpmd run: exit status 1" 1 "$rc"
same "... with a message" "distmpmd: run cancelled by signal 15 (Terminated)" \
    "$(tail -n 1 "$base/cancel.err")"
same "... and no mpiexec, proxy or rank is left" "" "$left"

cancel_run "SIGHUP" HUP kill
same "SIGHUP to distmpmd run: exit status 1, a message" \
    "1: distmpmd: run cancelled by signal 1 (Hangup)" \
    "$rc: $(tail -n 1 "$base/cancel.err")"
same "... and nothing is left" "" "$left"

# the same with SIGHUP ignored, as when the suite runs under nohup
if [ ${#dfl_hup[@]} -gt 0 ]; then
    trap '' HUP
    cancel_run "SIGHUP under nohup" HUP kill
    trap - HUP
    same "SIGHUP when the suite ignores it (nohup): still cancels, nothing left" \
        "1: distmpmd: run cancelled by signal 1 (Hangup)|" \
        "$rc: $(tail -n 1 "$base/cancel.err")|$left"
else
    echo "# skipped: SIGHUP under nohup (no env --default-signal)"
fi

cancel_run "timeout" TERM timeout
same "timeout 4 distmpmd run: 124, cancelled by signal 15" \
    "124: distmpmd: run cancelled by signal 15 (Terminated)" \
    "$rc: $(tail -n 1 "$base/cancel.err")"
same "... and nothing is left" "" "$left"

sleep 3
same "no output file appears after the cancelled runs" "" \
    "$(ls -A "$S" | grep -v -x -e slow.yaml -e build)"

# Cancelling a build: the compilers (and their children) are stopped,
# no temporary file is left, nothing is installed.
cd "$J"
FAKE_CC=sleep PATH="$fake:$PATH" "$DMD" build tail.yaml -o cancelled -j 2 \
    </dev/null >"$base/cb.out" 2>"$base/cb.err" &
pid=$!
wait_for 30 procs_at_least "$fake" 4
kill -TERM $pid
wait $pid
rc=$?
same "SIGTERM during a build: exit status 1, a message" \
    "1: distmpmd: build cancelled by signal 15 (Terminated)" \
    "$rc: $(cat "$base/cb.err")"
same "... no compiler (nor its children) is left" "" "$(procs_in "$fake")"
same "... only the sources are in the directory" "class0.c class1.c common.h" \
    "$(ls -A cancelled | tr '\n' ' ' | sed 's/ $//')"

# --------------------------------------------------------------- messages

cd "$J"
run_dmd build --frob tail.yaml
same "an unknown option is named, then the usage; exit 2" \
    "2: distmpmd: build: unknown option '--frob'||usage: distmpmd build JOB [--lib] [-o DIR] [-j N] [--mpicc CC]" \
    "$rc: $(printf '%s\n' "$err" | head -n 3 | tr '\n' '|' | sed 's/|$//')"
run_dmd run tail.yaml --frob
same "... for run too" "2: distmpmd: run: unknown option '--frob'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml --rank ''
same "--rank '' is not an integer" \
    "2: distmpmd: emit: --rank '' is not an integer" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml --rank 12x
same "--rank 12x is not an integer" \
    "2: distmpmd: emit: --rank '12x' is not an integer" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml --rank -1
same "--rank -1 is out of range" \
    "2: distmpmd: emit: --rank '-1' is out of range (0 to 1)|" \
    "$rc: $err|$out"
run_dmd emit tail.yaml --rank 99999999999999999999999
same "--rank 99999999999999999999999 is reported as given" \
    "2: distmpmd: emit: --rank '99999999999999999999999' is out of range (0 to 1)" \
    "$rc: $err"
run_dmd emit tail.yaml --rank 2
same "--rank 2 is not in a 2-rank mesh" \
    "2: distmpmd: emit: --rank '2' is out of range (0 to 1)" "$rc: $err"
run_dmd emit tail.yaml --class x
same "--class x is not an integer" \
    "2: distmpmd: emit: --class 'x' is not an integer" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml --class 99999999999999999999999
same "--class 99999999999999999999999 is reported as given" \
    "2: distmpmd: emit: --class '99999999999999999999999' is out of range (0 to 1)" \
    "$rc: $err"
run_dmd emit tail.yaml --rank 1
{ echo "/* ---- common.h ---- */"; cat build/tail/common.h
  echo "/* ---- class1.c ---- */"; cat build/tail/class1.c; } > "$base/want"
same "emit --rank 1 prints common.h, then class 1" "0" \
    "$rc$(cmp -s "$base/out" "$base/want" || echo ' differs')"
for j in "0|out of range (1 to 2147483647)" "abc|not an integer" \
        "|not an integer" "-2|out of range (1 to 2147483647)" \
        "4x|not an integer" "2147483648|out of range (1 to 2147483647)"; do
    run_dmd build tail.yaml -j "${j%%|*}"
    same "build -j '${j%%|*}' is refused" \
        "2: distmpmd: build: -j '${j%%|*}' is ${j#*|}" \
        "$rc: $(printf '%s\n' "$err" | head -n 1)"
done
run_dmd build tail.yaml -o
same "a missing option argument" \
    "2: distmpmd: build: option '-o' needs an argument" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd build tail.yaml other.yaml
same "one argument too many" \
    "2: distmpmd: build: unexpected argument 'other.yaml'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd build
same "no job file" "2: distmpmd: build: no job file given" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd emit tail.yaml
same "emit without --rank, --class or --common" \
    "2: distmpmd: emit: --rank R, --class K, --common, --lib or --lib-header is needed" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd frob
same "an unknown command" "2: distmpmd: unknown command 'frob'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd build --help
same "build --help: the usage on stdout, exit 0" \
    "0: usage: distmpmd build JOB [--lib] [-o DIR] [-j N] [--mpicc CC]" \
    "$rc: $(printf '%s\n' "$out" | head -n 1)"
run_dmd run build/tail -j 2
same "-j with a build directory is refused" \
    "2: distmpmd: run: -o, -j, --mpicc and --cflag apply to a job file, but 'build/tail' is a build directory" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd build tail.yaml -o "missing parent/dir"
same "a build directory whose parent is missing: the system's reason" \
    "1: distmpmd: cannot create the build directory missing parent/dir: No such file or directory" \
    "$rc: $err"
run_dmd build tail.yaml -o tail.yaml/dir
same "a build directory below a file: the system's reason" \
    "1: distmpmd: cannot create the build directory tail.yaml/dir: Not a directory" \
    "$rc: $err"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # as an unprivileged user, a directory without write permission
    mkdir -p ro && chmod 555 ro
    chmod -R a+rX "$base"
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$DMD" build tail.yaml -o ro </dev/null >"$base/out" 2>"$base/err"
    rc=$?
    same "a read-only build directory: the system's reason" \
        "1: distmpmd: cannot write in the build directory ro: Permission denied" \
        "$rc: $(cat "$base/err")"
else
    echo "# skipped: read-only build directory (needs root and setpriv)"
fi
DISTMPMD_HOME=/nonexistent run_dmd build tail.yaml -o home
same "DISTMPMD_HOME without a runtime is reported" \
    "1: distmpmd: DISTMPMD_HOME=/nonexistent holds no distmpmd runtime (neither include/distmpmd/dmd_rt.h and lib/libdmdrt.a nor runtime/dmd_rt.h and obj/libdmdrt.a)" \
    "$rc: $err"

# -------------------------------------------------------------- toolchain

P="$W/par"
mkdir -p "$P"
cp "$ROOT/tests/e2e/jobs/stencil2d_2x3.yaml" "$ROOT/tests/e2e/jobs/pumma_uneven_3x3.yaml" \
    "$ROOT/tests/e2e/jobs/tail.yaml" "$P/"
cd "$P"

# max_running: the most compilers running at once, from $base/cc.log
max_running() {
    awk '/start/ { n++; if (n > m) m = n } /end/ { n-- } END { print m }' \
        "$base/cc.log"
}
for j in 1 3; do
    rm -f "$base/cc.log"
    fake_build log build stencil2d_2x3.yaml -o "j$j" -j $j
    same "-j $j: 6 classes compile, at most $j at once" "0 6 $j" \
        "$rc $(grep -c start "$base/cc.log") $(max_running)"
done
rm -f "$base/cc.log"
fake_build log build stencil2d_2x3.yaml -o jdef
cores=$(getconf _NPROCESSORS_ONLN)
[ "$cores" -gt 6 ] && cores=6
same "no -j: as many at once as there are cores" "0 $cores" \
    "$rc $(max_running)"
same "no progress line when stderr is not a terminal" "" "$err"

if command -v script >/dev/null; then
    DMD="$DMD" FAKE_CC= PATH="$fake:$PATH" script -qec \
        '"$DMD" build stencil2d_2x3.yaml -o tty' /dev/null \
        </dev/null >"$base/tty.out" 2>&1
    grep -qF $'\r[1/6] compiling class0.c' "$base/tty.out" &&
        grep -qF $'\r[6/6] compiling class5.c' "$base/tty.out"
    check "a progress line on a terminal: [1/6] compiling class0.c ..." $? \
        "$(cat -v "$base/tty.out")"
else
    echo "# skipped: progress line (no script(1))"
fi

fake_build fail1 build stencil2d_2x3.yaml -o failed -j 1
same "a failing class is named; exit 1" \
    "1: fake: class1.c: error|distmpmd: compiling failed/class1.c failed (mpicc.mpich exit status 1)" \
    "$rc: $(printf '%s\n' "$err" | tr '\n' '|' | sed 's/|$//')"
same "... no binary is installed, no temporary file left" \
    "class0.c class1.c class2.c class3.c class4.c class5.c common.h" \
    "$(ls -A failed | tr '\n' ' ' | sed 's/ $//')"

run_dmd build tail.yaml -o cf --cflag "-Wl,-Map=$P/link map.txt" \
    --cflag -DDMD_TEST_FLAG=1
check "--cflag FLAG reaches the compiler as one argument" \
    $([ $rc = 0 ] && [ -s "$P/link map.txt" ] && echo 0 || echo 1) "$err"
DISTMPMD_CFLAGS="  -include   dmd_no_such_header.h " \
    run_dmd build tail.yaml -o ce -j 1
same "DISTMPMD_CFLAGS is split at white space; the first failure stops" \
    "1 1 distmpmd: compiling ce/class0.c failed (mpicc.mpich exit status 1)" \
    "$rc $(printf '%s\n' "$err" | grep -c 'dmd_no_such_header.h: No such file') $(printf '%s\n' "$err" | grep '^distmpmd')"

# -------------------------------------------------------------- launchers

fake_build "" build pumma_uneven_3x3.yaml -o pu
same "appfile: rank order, one line per run of ranks" \
    "-n 2 ./class0|-n 1 ./class1|-n 2 ./class0|-n 1 ./class1|-n 2 ./class2|-n 1 ./class3" \
    "$(tr '\n' '|' <pu/appfile | sed 's/|$//')"
same "multiprog.conf: one line per class, Slurm's ranges" \
    "0-1,3-4 ./class0|2,5 ./class1|6-7 ./class2|8 ./class3" \
    "$(tr '\n' '|' <pu/multiprog.conf | sed 's/|$//')"

# nine appfile lines (a 2-D halo on 3x3: a class per position) and
# MPICH options: the colon form has six words per line (found by
# fuzz.py seed 2285: a heap overflow from eight lines on)
cat >halo9.yaml <<'EOF2'
name: halo9
mesh: {axes: [x, y], shape: [3, 3]}
tensors:
  A: {shape: [9, 9], dtype: f64, dist: [x, y], init: random, seed: 1}
  B: {shape: [9, 9], dtype: f64, dist: [x, y], file: B.npy}
compute: B[i, j] = A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1]
EOF2
fake_build "" build halo9.yaml -o h9
run_dmd run h9 --dry-run --stats -- -genv A 1 -genv B 2
same "nine appfile lines: the colon form has nine sections" \
    "0 9 9" "$rc $(wc -l <h9/appfile) $(printf '%s\n' "$out" | sed -n 3p |
        grep -o ' -wdir ' | wc -l)"

cd "$J"
run_dmd run build/tail --dry-run --stats -- -genv DMD_TEST 1
abs=$(cd build/tail && pwd -P)
want=$("$PY" - "$abs" <<'PY'
import shlex, sys
d = sys.argv[1]
q = shlex.quote
print("# build/tail: 2 ranks, 2 classes")
print("# MPICH, the ranks on the command line (what distmpmd run does):")
print("mpiexec.mpich -genv DMD_TEST 1 -genv DMD_STATS 1 -n 1 -wdir %s %s "
      ": -n 1 -wdir %s %s" % (q(d), q(d + "/class0"), q(d), q(d + "/class1")))
print("# MPICH, with the appfile, in the build directory:")
print("(cd %s && mpiexec.mpich -genv DMD_TEST 1 -genv DMD_STATS 1 "
      "-configfile appfile)" % q(d))
print("# Slurm, inside an allocation of 2 tasks:")
print("DMD_STATS=1 srun --ntasks=2 %s --multi-prog %s"
      % (q("--chdir=" + d), q(d + "/multiprog.conf")))
PY
)
same "run DIR --dry-run prints the three commands, quoted" "0: $want" \
    "$rc: $out"
rm -f Y.npy
line=$(printf '%s\n' "$out" | sed -n 3p)
(cd / && eval "$line") </dev/null >"$base/eval.out" 2>&1
check "... the mpiexec colon form runs from anywhere (eval)" $? \
    "$(cat "$base/eval.out")"
ref_check "$J/tail.yaml"
check "... with the right output" $? "$(cat "$base/ref.out")"
rm -f Y.npy
line=$(printf '%s\n' "$out" | sed -n 5p)
(cd / && eval "$line") </dev/null >"$base/eval.out" 2>&1
check "... the -configfile form runs (eval)" $? "$(cat "$base/eval.out")"
ref_check "$J/tail.yaml"
check "... with the right output" $? "$(cat "$base/ref.out")"

run_dmd run build/tail -- -genv DMD_STATS 1
same "MPICH arguments after -- are passed on (-genv DMD_STATS 1)" \
    '0: {"ranks": 2, "classes": 2,' \
    "$rc: $(printf '%s\n' "$out" | head -n 1 | cut -c1-26)"

mkdir -p "$W/other/alt"
(cd "$W/other" && DMD_JOB_DIR=alt "$DMD" run "$J/build/tail" </dev/null \
    >"$base/out" 2>"$base/err")
rc=$?
same "a relative DMD_JOB_DIR is taken from where distmpmd runs" \
    "0 Y.npy" "$rc $(ls "$W/other/alt")"

# ---------------------------------------------------------------- install

inst=$base/inst
if make -s -C "$ROOT" install PREFIX="$inst" >"$base/inst.log" 2>&1; then
    same "make install PREFIX=... installs these files" \
        "bin/distmpmd include/distmpmd/dmd_emit_ops.h include/distmpmd/dmd_rt.h include/distmpmd/dmd_rt_lib.h lib/distmpmd/openmpi/libdmdrt.a lib/libdmdrt.a lib/pkgconfig/distmpmd.pc share/distmpmd/dmd_ref.py share/man/man1/distmpmd.1 share/man/man5/distmpmd-job.5" \
        "$(cd "$inst" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')"
else
    fail "make install PREFIX=..." "$(cat "$base/inst.log")"
fi
if make -s -C "$ROOT" install DESTDIR="$base/dest" PREFIX=/opt/dmd \
        >"$base/inst.log" 2>&1; then
    same "make install DESTDIR=... PREFIX=/opt/dmd stages under DESTDIR" \
        "10 /opt/dmd/bin/distmpmd" \
        "$(find "$base/dest" -type f | wc -l) $(cd "$base/dest" && ls opt/dmd/bin/distmpmd | sed 's|^|/|')"
else
    fail "make install DESTDIR=..." "$(cat "$base/inst.log")"
fi

if command -v pkg-config >/dev/null; then
    pc=$(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs \
        distmpmd 2>&1)
    rc=$?
    st=$rc
    flags=""
    for f in $pc; do
        case $f in
            -I*openblas*) flags="$flags -I(openblas)" ;;
            -I*) flags="$flags -I$(realpath "${f#-I}")" ;;
            -L*) flags="$flags -L$(realpath "${f#-L}")" ;;
            *) flags="$flags $f" ;;
        esac
    done
    same "pkg-config --cflags --libs distmpmd: the installed paths" \
        "0: -I$inst/include/distmpmd -I(openblas) -L$inst/lib -ldmdrt" \
        "$st:$flags"
    "$DMD" emit "$J/tail.yaml" --class 0 >"$base/c0.c"
    "$DMD" emit "$J/tail.yaml" --common >"$base/common.h"
    mpicc.mpich -DDMD_JOB_DIR='"."' -o "$base/c0" "$base/c0.c" \
        $(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --static \
        --cflags --libs distmpmd) >"$base/pc.log" 2>&1
    check "... an emitted class builds with pkg-config --static's flags" $? \
        "$(cat "$base/pc.log")"
else
    echo "# skipped: pkg-config (not installed)"
fi

if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$inst/share/man/man1/distmpmd.1" 2>&1)
    same "the man page renders without a warning (groff -ww)" "" "$warn"
    MANWIDTH=80 man -l "$inst/share/man/man1/distmpmd.1" >"$base/man.txt" \
        2>&1 </dev/null
    rc=$?
    for word in build run classes emit check plan --json --top --cflag \
            --dry-run DMD_STATS \
            DMD_JOB_DIR DISTMPMD_HOME DISTMPMD_CFLAGS OPENBLAS_NUM_THREADS \
            multiprog.conf manifest.yaml appfile "EXIT STATUS" EXAMPLES; do
        grep -qF -- "$word" "$base/man.txt" || rc="$rc, no $word"
    done
    same "man -l renders it, with every command, option, variable, file" \
        0 "$rc"
else
    echo "# skipped: man page (no groff)"
fi
if command -v mandoc >/dev/null; then
    same "mandoc -Tlint finds nothing" "" \
        "$(mandoc -Tlint "$inst/share/man/man1/distmpmd.1" 2>&1)"
fi

# The installation moved: the compiler finds its runtime beside itself.
moved="$W/inst moved"
mv "$inst" "$moved"
M="$W/with moved"
mkdir -p "$M"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$M/"
cd "$M"
"$moved/bin/distmpmd" run tail.yaml </dev/null >"$base/out" 2>"$base/err"
rc=$?
check "a moved installation builds and runs a job" $rc "$(cat "$base/err")"
ref_check "$M/tail.yaml"
check "... with the right output" $? "$(cat "$base/ref.out")"
# the installed reference: inputs, check, and sweep --ref (issue 18: an
# installed sweep --ref could not find it)
cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$M/"
"$moved/bin/distmpmd" ref inputs pumma_2x2.yaml </dev/null >"$base/out" 2>&1 &&
    "$moved/bin/distmpmd" run pumma_2x2.yaml </dev/null >>"$base/out" 2>&1 &&
    "$moved/bin/distmpmd" ref check pumma_2x2.yaml </dev/null >>"$base/out" 2>&1
check "a moved installation: ref inputs, run, ref check" $? "$(cat "$base/out")"
"$moved/bin/distmpmd" sweep tail.yaml --ref -o "$base/inst.csv" \
    --set 'tensors.X.shape[0],tensors.Y.shape[0]=127' </dev/null \
    >"$base/out" 2>&1
rc=$?
same "... and sweep --ref, with the installed reference" "0: 127,127,2,2 err<1e-4" \
    "$rc: $(tail -n 1 "$base/inst.csv" | awk -F, '{ print $1 "," $2 "," $3 "," $4, \
        (($9 != "" && $9 + 0 < 1e-4) ? "err<1e-4" : "err=" $9) }')"
rm -rf "$M/build"
DISTMPMD_HOME="$ROOT" "$moved/bin/distmpmd" build tail.yaml \
    </dev/null >"$base/out" 2>"$base/err"
check "DISTMPMD_HOME=the source tree works for an installed compiler" $? \
    "$(cat "$base/err")"

# Two outputs that name one file through a symbolic link to a directory
# (spec 1.5: refused, naming both).
mkdir -p "$base/same/real" && ln -s real "$base/same/link" &&
cat >"$base/same/job.yaml" <<'EOF2'
name: same_link
mesh: {axes: [x], shape: [2]}
tensors:
  A: {shape: [6], dtype: f64, dist: [x], init: random}
  B: {shape: [6], dtype: f64, dist: [x], file: real/o.npy}
  C: {shape: [6], dtype: f64, dist: [x], file: link/o.npy}
program:
  - compute: B[i] = A[i]
  - compute: C[i] = A[i]
EOF2
run_dmd check "$base/same/job.yaml"
same "outputs 'real/o.npy' and 'link/o.npy' (link -> real) are refused" \
    "2 $base/same/job.yaml:6:48: error: tensors 'B' and 'C' both write file 'link/o.npy' (one result would be lost)" \
    "$rc $err"

# The v2 commands: run --trace, diff, sweep, classes --svg.
. "$ROOT/tests/cli/v2.sh"
. "$ROOT/tests/cli/mpi.sh"

# Integers on the command line: ranges, no wrapping.
. "$ROOT/tests/cli/numbers.sh"

# The first hour: --version, help, getopt_long, did you mean.
. "$ROOT/tests/cli/first_hour.sh"

cd "$base"
no_pwned
check "no shell code from any name ran" $?

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
