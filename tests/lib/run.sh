#!/bin/bash
# Library mode (distmpmd build --lib, spec section 2; issue 18): libraries
# of the jobs here, called by an MPI program of our own (driver.c), whose
# results tests/lib/check.py compares with the sequential reference.
#
#   pumma+jacobi  lib_pumma_uneven (PUMMA on 2x2, tail blocks, every
#                 operand the caller's) on the world of 4 ranks and
#                 lib_jacobi_3 (a program: u read and written in place, an
#                 init tensor, an intermediate with halos) on 3 of them,
#                 both linked into one program, each run twice with other
#                 values; nothing on stdout or stderr
#   cyclic        the same with block-cyclic tensors, the caller's blocks
#                 in ScaLAPACK's local layout: lib_summa_cyclic_2x2 (MB !=
#                 NB, extents no block divides) and lib_cyclic_prog_3 (a
#                 program on 3 ranks, one holding fewer blocks, one none
#                 of w: NULL); lib_auto_cyclic_2x2 (no schedule, holders
#                 with different numbers of blocks) and lib_cyclic_axe_2x2
#                 ('axe', replicated cyclic inputs and outputs, f32),
#                 lib_cyclic_view_4 (on a view of 3 of 4 ranks: rank 3
#                 none; and on the mesh, one holder short)
#   blocks        NAME_block of every rank of lib_summa_cyclic_2x2 and
#                 lib_cyclic_prog_3, exact text (check.py also compares
#                 every dumped block with the reference's layout)
#   symbols       each library defines only NAME_run, NAME_block and
#                 NAME_error, none calls MPI_Init, MPI_Finalize or exit,
#                 and two libraries define no symbol in common
#   null          lib_empty_blocks_4 (rank 3 holds nothing: NULL there):
#                 rank 1 passes NULL for B: every rank returns 1 with the
#                 same message; then two runs are right
#   wrongsize     run with 3 and 5 ranks: every rank returns 1 with the
#                 message
#   pkg-config, make   a program linked with $(pkg-config ...) and with
#                 include NAME.mk
#   asan          the libraries (DISTMPMD_CFLAGS) and the program built
#                 with ASan/UBSan (LeakSanitizer on), by bin-san/distmpmd
#                 if it is built: no report, results right
#   e2e jobs      dot (a replicated 0-D output), conv, partial_view_4,
#                 hostile_names, cannon_2x2 of tests/e2e/jobs as libraries,
#                 and cyclic ones: hostile_names3, reshard_cyclic_empty_4,
#                 reshard_cyclic_place_2x2, summa_cyclic_whole_k_2x2
#   checker       check.py catches one wrong value, and a block whose
#                 offset is not the spec's
#   errors        build --lib of a bad job: the located error of build;
#                 a tensor named 'run' refused at its key; run --lib
#                 refused
#
#	bash tests/lib/run.sh
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
HERE=$ROOT/tests/lib
export OPENBLAS_NUM_THREADS=1
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

ok() { echo "ok lib $1"; passed=$((passed + 1)); }
fail() { echo "FAIL lib $1"; failed=$((failed + 1)); }

# build NAME OUTDIR [DMD]: distmpmd build tests/lib/NAME.yaml --lib.
build() {
    "${3:-$DMD}" build "$HERE/$1.yaml" --lib -o "$2" > "$2.log" 2>&1 || {
        echo "    build --lib $1 failed:"; sed 's/^/    /' "$2.log"
        return 1; }
}

# mpirun N OUT ARGS...: mpiexec.mpich -n N ARGS, stdout to OUT, stderr to
# OUT.err, at most 120 s.
mpirun() {
    local n=$1 out=$2
    shift 2
    timeout 120 mpiexec.mpich -n "$n" "$@" > "$out" 2> "$out.err"
}

RT="$ROOT/obj/libdmdrt.a $(pkg-config --libs openblas) -lm"

# cyc JOB: driver.c's CYC for JOB (its cyclic dimensions, check.py).
cyc() { $PY "$HERE/check.py" "$1" --cyclic; }

# --- the libraries, and two of them in one program
libs_ok=1
for j in lib_pumma_uneven lib_jacobi_3 lib_empty_blocks_4; do
    build $j "$tmp/$j" || libs_ok=0
done
if [ $libs_ok = 1 ] && mkdir d1 && mpicc.mpich -O1 -g -Wall -Wextra -Werror \
        -DLIB=lib_pumma_uneven -DREAL=double \
        -include lib_pumma_uneven/lib_pumma_uneven.h \
        -Ilib_pumma_uneven -DLIB2=lib_jacobi_3 -DREAL2=double \
        -DLIB2_RANKS=3 -include lib_jacobi_3/lib_jacobi_3.h \
        -o drv1 "$HERE/driver.c" lib_pumma_uneven/liblib_pumma_uneven.a \
        lib_jacobi_3/liblib_jacobi_3.a $RT 2> cc1.err; then
    if mpirun 4 out1 ./drv1 d1 &&
       [ ! -s out1 ] && [ ! -s out1.err ] &&
       $PY "$HERE/check.py" "$HERE/lib_pumma_uneven.yaml" d1 2 > chk1 &&
       $PY "$HERE/check.py" "$HERE/lib_jacobi_3.yaml" d1 2 >> chk1; then
        sed 's/^/    /' chk1
        ok "pumma+jacobi (two libraries in one program, 2 runs each)"
    else
        echo "    output of the run:"; cat out1 out1.err chk1 2>/dev/null |
            head -20 | sed 's/^/    /'
        fail "pumma+jacobi"
    fi
else
    cat cc1.err 2>/dev/null | head -20 | sed 's/^/    /'
    fail "pumma+jacobi: the libraries or the program did not build"
fi

# --- block-cyclic tensors: two libraries in one program, then three alone
C1=lib_summa_cyclic_2x2 C2=lib_cyclic_prog_3
cyc_ok=1
for j in $C1 $C2 lib_auto_cyclic_2x2 lib_cyclic_axe_2x2 lib_cyclic_view_4; do
    build $j "$tmp/$j" || cyc_ok=0
done
if [ $cyc_ok = 1 ] && mkdir dc && mpicc.mpich -O1 -g -Wall -Wextra -Werror \
        -DLIB=$C1 -DREAL=double "-DCYC=$(cyc "$HERE/$C1.yaml")" \
        -include $C1/$C1.h -DLIB2=$C2 -DREAL2=double -DLIB2_RANKS=3 \
        "-DCYC2=$(cyc "$HERE/$C2.yaml")" -include $C2/$C2.h \
        -o drvc "$HERE/driver.c" $C1/lib$C1.a $C2/lib$C2.a $RT \
        2> ccc.err; then
    if mpirun 4 outc ./drvc dc &&
       [ ! -s outc ] && [ ! -s outc.err ] &&
       $PY "$HERE/check.py" "$HERE/$C1.yaml" dc 2 > chkc &&
       $PY "$HERE/check.py" "$HERE/$C2.yaml" dc 2 >> chkc; then
        sed 's/^/    /' chkc
        ok "cyclic (two libraries in one program, 2 runs each)"
    else
        cat outc outc.err chkc 2>/dev/null | head -20 | sed 's/^/    /'
        fail "cyclic"
    fi
else
    cat ccc.err 2>/dev/null | head -20 | sed 's/^/    /'
    fail "cyclic: the libraries or the program did not build"
fi
for j in lib_auto_cyclic_2x2 lib_cyclic_axe_2x2 lib_cyclic_view_4; do
    real=$(grep -q 'dtype: f32' "$HERE/$j.yaml" && echo float || echo double)
    if [ -f $j/lib$j.a ] && mkdir d_$j && mpicc.mpich -O1 -g -Wall -Wextra \
            -Werror -DLIB=$j -DREAL=$real "-DCYC=$(cyc "$HERE/$j.yaml")" \
            -include $j/$j.h -o drv_$j "$HERE/driver.c" $j/lib$j.a $RT \
            2> cc_$j.err &&
       mpirun 4 out_$j ./drv_$j d_$j && [ ! -s out_$j ] &&
       [ ! -s out_$j.err ] &&
       $PY "$HERE/check.py" "$HERE/$j.yaml" d_$j 2 > chk_$j; then
        sed 's/^/    /' chk_$j
        ok "cyclic $j (2 runs)"
    else
        cat cc_$j.err out_$j out_$j.err chk_$j 2>/dev/null | head -20 |
            sed 's/^/    /'
        fail "cyclic $j"
    fi
done

# --- NAME_block of cyclic tensors: the spec's offsets (the global index
# of the first element a rank holds) and extents (how many it holds)
want_c1="rank 0 tensor 0: offset [0, 0] extent [6, 9]
rank 0 tensor 1: offset [0, 0] extent [9, 8]
rank 0 tensor 2: offset [0, 0] extent [6, 8]
rank 1 tensor 0: offset [0, 3] extent [6, 8]
rank 1 tensor 1: offset [0, 4] extent [9, 7]
rank 1 tensor 2: offset [0, 4] extent [6, 7]
rank 2 tensor 0: offset [2, 0] extent [5, 9]
rank 2 tensor 1: offset [3, 0] extent [8, 8]
rank 2 tensor 2: offset [2, 0] extent [5, 8]
rank 3 tensor 0: offset [2, 3] extent [5, 8]
rank 3 tensor 1: offset [3, 4] extent [8, 7]
rank 3 tensor 2: offset [2, 4] extent [5, 7]"
want_c2="rank 0 tensor 0: offset [0] extent [7]
rank 0 tensor 1: offset [0] extent [2]
rank 1 tensor 0: offset [2] extent [6]
rank 1 tensor 1: offset [2] extent [1]
rank 2 tensor 0: offset [4] extent [6]
rank 2 tensor 1: none (-1)"
if [ -x drvc ] && mpirun 4 outb1 ./drvc dc blocks &&
   [ "$(cat outb1)" = "$want_c1" ] && [ ! -s outb1.err ] &&
   mpicc.mpich -O1 -Werror -DLIB=$C2 -DREAL=double -include $C2/$C2.h \
        -o drvb "$HERE/driver.c" $C2/lib$C2.a $RT 2> ccb.err &&
   mpirun 3 outb2 ./drvb dc blocks &&
   [ "$(cat outb2)" = "$want_c2" ] && [ ! -s outb2.err ]; then
    ok "blocks ($C1: 12 blocks; $C2: rank 0 7 of u at 0, rank 2 none of w)"
else
    cat ccb.err outb1 outb1.err outb2 outb2.err 2>/dev/null | head -30 |
        sed 's/^/    /'
    fail "blocks"
fi

# --- symbols
sym_ok=1
for j in lib_pumma_uneven lib_jacobi_3 lib_empty_blocks_4 $C1 $C2; do
    a=$j/lib$j.a
    [ -f "$a" ] || { sym_ok=0; continue; }
    got=$(nm -g --defined-only "$a" | awk 'NF == 3 { print $3 }' | sort |
        tr '\n' ' ')
    want="${j}_block ${j}_error ${j}_run "
    if [ "$got" != "$want" ]; then
        echo "    $a defines: $got (want: $want)"
        sym_ok=0
    fi
    bad=$(nm -u "$a" | awk '{ print $2 }' |
        grep -E '^(MPI_Init|MPI_Init_thread|MPI_Finalize|exit|_exit|printf|puts|fprintf)$')
    if [ -n "$bad" ]; then
        echo "    $a calls: $bad"
        sym_ok=0
    fi
done
common=$(comm -12 \
    <(nm -g --defined-only lib_pumma_uneven/liblib_pumma_uneven.a 2>/dev/null |
      awk 'NF == 3 { print $3 }' | sort) \
    <(nm -g --defined-only lib_jacobi_3/liblib_jacobi_3.a 2>/dev/null |
      awk 'NF == 3 { print $3 }' | sort))
if [ -n "$common" ]; then
    echo "    symbols of both libraries: $common"
    sym_ok=0
fi
if [ $sym_ok = 1 ]; then ok "symbols (NAME_run, NAME_block, NAME_error only)"
else fail "symbols"; fi

# --- NULL blocks (and NULL where the rank holds none), then two runs
E=lib_empty_blocks_4
if mkdir d2 && mpicc.mpich -O1 -g -Wall -Wextra -Werror -DLIB=$E \
        -DREAL=float -include $E/$E.h -o drv2 "$HERE/driver.c" \
        $E/lib$E.a $RT 2> cc2.err; then
    want="lib_empty_blocks_4_run returned 1: lib_empty_blocks_4_run: tensor 'B': rank 1 passed NULL for its block"
    if mpirun 4 out2 ./drv2 d2 null &&
       [ "$(sed 's/^rank [0-9]*: //' out2 | sort -u)" = "$want" ] &&
       [ "$(sed 's/:.*//' out2 | sort | tr '\n' ' ')" = "rank 0 rank 1 rank 2 rank 3 " ] &&
       [ ! -s out2.err ] &&
       $PY "$HERE/check.py" "$HERE/$E.yaml" d2 2 > chk2; then
        sed 's/^/    /' chk2
        ok "null (every rank: $want)"
    else
        cat out2 out2.err chk2 2>/dev/null | head -20 | sed 's/^/    /'
        fail "null"
    fi
    for n in 3 5; do
        want="lib_empty_blocks_4_run returned 1: lib_empty_blocks_4_run: the communicator has $n ranks, the job needs 4"
        ranks=$(seq 0 $((n - 1)) | sed 's/^/rank /' | tr '\n' ' ')
        if mpirun $n out3 ./drv2 d2 wrongsize &&
           [ "$(sed 's/^rank [0-9]*: //' out3 | sort -u)" = "$want" ] &&
           [ "$(sed 's/:.*//' out3 | sort | tr '\n' ' ')" = "$ranks" ] &&
           [ ! -s out3.err ]; then
            ok "wrongsize $n (every rank: $want)"
        else
            cat out3 out3.err 2>/dev/null | head -10 | sed 's/^/    /'
            fail "wrongsize $n"
        fi
    done
else
    cat cc2.err 2>/dev/null | head -20 | sed 's/^/    /'
    fail "null, wrongsize: the program did not build"
fi

# --- linking with the .pc and the .mk beside the library
if mkdir d4 && PKG_CONFIG_PATH=$tmp/$E mpicc.mpich -Werror -DLIB=$E \
        -DREAL=float -include $E.h -o drv4 "$HERE/driver.c" \
        $(PKG_CONFIG_PATH=$tmp/$E pkg-config --cflags --libs $E) \
        2> cc4.err &&
   mpirun 4 out4 ./drv4 d4 && [ ! -s out4 ] && [ ! -s out4.err ] &&
   $PY "$HERE/check.py" "$HERE/$E.yaml" d4 2 > chk4; then
    ok "pkg-config (\$(pkg-config --cflags --libs $E))"
else
    cat cc4.err out4 out4.err chk4 2>/dev/null | head -20 | sed 's/^/    /'
    fail "pkg-config"
fi
printf 'include %s/%s.mk\ndrv5: %s\n\t$(%s_MPICC) $(%s_CFLAGS) -DLIB=%s -DREAL=float -include %s.h -o $@ $< $(%s_LIBS)\n' \
    "$tmp/$E" $E "$HERE/driver.c" $E $E $E $E $E > app.mk
if mkdir d5 && make -s -f app.mk drv5 > cc5.err 2>&1 &&
   mpirun 4 out5 ./drv5 d5 && [ ! -s out5 ] && [ ! -s out5.err ] &&
   $PY "$HERE/check.py" "$HERE/$E.yaml" d5 2 > chk5; then
    ok "make (include $E.mk)"
else
    cat cc5.err out5 out5.err chk5 2>/dev/null | head -20 | sed 's/^/    /'
    fail "make"
fi

# --- ASan/UBSan (LeakSanitizer on): the libraries and the program
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
SDMD=$DMD
[ -x "$ROOT/bin-san/distmpmd" ] && SDMD=$ROOT/bin-san/distmpmd
san_ok=1
for j in lib_pumma_uneven lib_jacobi_3 $C1 $C2; do
    DISTMPMD_CFLAGS="$SAN" build $j "$tmp/san_$j" "$SDMD" || san_ok=0
done
if [ $san_ok = 1 ] && mkdir d6 && mpicc.mpich -O1 -g $SAN \
        -DLIB=lib_pumma_uneven -DREAL=double \
        -include san_lib_pumma_uneven/lib_pumma_uneven.h \
        -Isan_lib_pumma_uneven -DLIB2=lib_jacobi_3 -DREAL2=double \
        -DLIB2_RANKS=3 -include san_lib_jacobi_3/lib_jacobi_3.h \
        -o drv6 "$HERE/driver.c" \
        san_lib_pumma_uneven/liblib_pumma_uneven.a \
        san_lib_jacobi_3/liblib_jacobi_3.a $RT 2> cc6.err &&
   ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0 \
   LSAN_OPTIONS=suppressions=$HERE/lsan.supp:print_suppressions=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        mpirun 4 out6 ./drv6 d6 &&
   [ ! -s out6 ] && [ ! -s out6.err ] &&
   $PY "$HERE/check.py" "$HERE/lib_pumma_uneven.yaml" d6 2 > chk6 &&
   $PY "$HERE/check.py" "$HERE/lib_jacobi_3.yaml" d6 2 >> chk6; then
    ok "asan (ASan/UBSan/LeakSanitizer: no report; results right)"
else
    cat cc6.err out6 out6.err chk6 2>/dev/null | head -30 | sed 's/^/    /'
    fail "asan"
fi
if [ $san_ok = 1 ] && mkdir d6c && mpicc.mpich -O1 -g $SAN \
        -DLIB=$C1 -DREAL=double "-DCYC=$(cyc "$HERE/$C1.yaml")" \
        -include san_$C1/$C1.h -DLIB2=$C2 -DREAL2=double -DLIB2_RANKS=3 \
        "-DCYC2=$(cyc "$HERE/$C2.yaml")" -include san_$C2/$C2.h \
        -o drv6c "$HERE/driver.c" san_$C1/lib$C1.a san_$C2/lib$C2.a $RT \
        2> cc6c.err &&
   ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:fast_unwind_on_malloc=0 \
   LSAN_OPTIONS=suppressions=$HERE/lsan.supp:print_suppressions=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        mpirun 4 out6c ./drv6c d6c &&
   [ ! -s out6c ] && [ ! -s out6c.err ] &&
   $PY "$HERE/check.py" "$HERE/$C1.yaml" d6c 2 > chk6c &&
   $PY "$HERE/check.py" "$HERE/$C2.yaml" d6c 2 >> chk6c; then
    ok "asan cyclic ($C1 and $C2: no report; results right)"
else
    cat cc6c.err out6c out6c.err chk6c 2>/dev/null | head -30 |
        sed 's/^/    /'
    fail "asan cyclic"
fi

# --- jobs of tests/e2e as libraries: a 0-D replicated output (dot), a
# convolution, sums of partials on a view, hostile names, a ring shift
for j in dot conv partial_view_4 hostile_names cannon_2x2 hostile_names3 \
        reshard_cyclic_empty_4 reshard_cyclic_place_2x2 \
        summa_cyclic_whole_k_2x2; do
    y=$ROOT/tests/e2e/jobs/$j.yaml
    jn=$(sed -n 's/^name: *//p' "$y")
    real=$(grep -q 'dtype: f32' "$y" && echo float || echo double)
    nr=$($PY -c "import math, sys, yaml
print(math.prod(yaml.safe_load(open(sys.argv[1]))['mesh']['shape']))" "$y")
    mkdir -p "e2e_$j/d"
    if "$DMD" build "$y" --lib -o "e2e_$j/lib" > "e2e_$j/log" 2>&1 &&
       mpicc.mpich -O1 -Werror -DLIB="$jn" -DREAL=$real \
            "-DCYC=$(cyc "$y")" \
            -include "e2e_$j/lib/$jn.h" -o "e2e_$j/drv" "$HERE/driver.c" \
            "e2e_$j/lib/lib$jn.a" $RT >> "e2e_$j/log" 2>&1 &&
       mpirun "$nr" "e2e_$j/out" "e2e_$j/drv" "e2e_$j/d" &&
       [ ! -s "e2e_$j/out" ] && [ ! -s "e2e_$j/out.err" ] &&
       $PY "$HERE/check.py" "$y" "e2e_$j/d" 2 > "e2e_$j/chk"; then
        ok "e2e job $j ($(tail -n 1 "e2e_$j/chk" | sed 's/^ok //'))"
    else
        cat "e2e_$j/log" "e2e_$j/out" "e2e_$j/out.err" "e2e_$j/chk" \
            2>/dev/null | head -20 | sed 's/^/    /'
        fail "e2e job $j"
    fi
done

# --- the checker fails on a wrong value
if [ -d d2 ] && f=$(ls d2/$E.t1.run1.out.r0.bin 2>/dev/null) &&
   $PY - "$f" <<'PYEOF' &&
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[-1] ^= 0x40
open(sys.argv[1], "wb").write(data)
PYEOF
   ! $PY "$HERE/check.py" "$HERE/$E.yaml" d2 2 > chk7 2>&1 &&
   grep -q "^FAIL lib_empty_blocks_4 run 1: tensor C (output) on rank 0" chk7
then
    ok "checker (a wrong value is found)"
else
    cat chk7 2>/dev/null | sed 's/^/    /'
    fail "checker"
fi
# a block at the local origin of rank 1's columns of A (holder 1's
# blocks start at local index 9 = Lmax) instead of its first element, 3
want8="FAIL lib_summa_cyclic_2x2 run 0: tensor A (in): rank 1's block is ([0, 9], [6, 8]), the spec's ([0, 3], [6, 8])"
if f=$(ls dc/$C1.t0.run0.in.r1.bin 2>/dev/null) &&
   $PY - "$f" <<'PYEOF' &&
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<q", data, 16)[0] == 3
struct.pack_into("<q", data, 16, 9)
open(sys.argv[1], "wb").write(data)
PYEOF
   ! $PY "$HERE/check.py" "$HERE/$C1.yaml" dc 2 > chk8 2>&1 &&
   [ "$(cat chk8)" = "$want8" ]
then
    ok "checker (a block that is not the spec's is found)"
else
    cat chk8 2>/dev/null | sed 's/^/    /'
    fail "checker (blocks)"
fi

# --- errors: those of build, and a name that would clash
printf 'name: bad\nmesh: {axes: [x], shape: [2]}\ntensors:\n  A: {shape: [4], dtype: f64, dist: [x], file: A.npy}\ncompute: C[i] = A[i]\n' > bad.yaml
"$DMD" build bad.yaml -o b1 > e1 2>&1; s1=$?
"$DMD" build bad.yaml --lib -o b2 > e2 2>&1; s2=$?
printf 'name: clash\nmesh: {axes: [x], shape: [2]}\ntensors:\n  A: {shape: [4], dtype: f64, dist: [x], file: A.npy}\n  run: {shape: [4], dtype: f64, dist: [x], file: R.npy}\ncompute: run[i] = A[i]\n' > clash.yaml
"$DMD" build clash.yaml --lib -o b3 > e3 2>&1; s3=$?
want3="clash.yaml:5:3: error: tensor 'run': build --lib names it clash_run in the library's header, which is one of the header's own names; rename the tensor"
"$DMD" run clash.yaml --lib > e4 2>&1; s4=$?
want4="distmpmd: run: --lib is an option of build: a library is called from your own MPI program, not run by distmpmd (distmpmd build JOB --lib)"
if [ $s1 = 2 ] && [ $s2 = 2 ] && cmp -s e1 e2 && grep -q "^bad.yaml:5:" e2 &&
   [ $s3 = 2 ] && [ "$(cat e3)" = "$want3" ] && [ ! -e b2/libbad.a ] &&
   [ ! -e b3 ] && [ $s4 = 2 ] && [ "$(head -n 1 e4)" = "$want4" ]; then
    ok "errors (build's located errors; $want3)"
else
    echo "    build: $s1 $(cat e1)"; echo "    build --lib: $s2 $(cat e2)"
    echo "    clash: $s3 $(cat e3)"; echo "    run --lib: $s4 $(head -n 1 e4)"
    fail "errors"
fi

echo "$passed passed, $failed failed"
[ $failed = 0 ]
