#!/bin/bash
# rt_test.sh: builds and runs the runtime's unit test (tests/unit/rt_test.c)
# on 4 ranks, checks with numpy the .npy files the runtime wrote, and checks
# that the runtime's errors stop every rank with one clear message.
# Last line: "N passed, M failed"; exit status non-zero on any failure.
#
# Needs mpicc.mpich, mpiexec.mpich and /usr/bin/python3 with numpy.

cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
PY=/usr/bin/python3
export OPENBLAS_NUM_THREADS=1
unset DMD_STATS
pass=0
fail=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rt_test.XXXXXX")
[ -n "$RT_KEEP" ] || trap 'rm -rf "$WORK"' EXIT

ok() { pass=$((pass + 1)); echo "ok $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

# run OUT ERR ARGS...: mpiexec with a time limit; the exit status is kept.
run() {
	local out=$1 err=$2
	shift 2
	timeout 60 mpiexec.mpich "$@" >"$out" 2>"$err"
}

if make -s obj/libdmdrt.a >"$WORK/make.log" 2>&1 &&
   mpicc.mpich -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$TOP" \
	-o "$WORK/rt_test" tests/unit/rt_test.c obj/libdmdrt.a -lm \
	>>"$WORK/make.log" 2>&1; then
	ok build
else
	cat "$WORK/make.log"
	ko build
	finish
fi
BIN=$WORK/rt_test

for dt in f64 f32; do
	D=$WORK/$dt
	mkdir -p "$D"
	np=float64
	[ $dt = f32 ] && np=float32
	# Inputs written by numpy (versions 1.0 and 2.0).
	$PY - "$D" $np <<'EOF' || ko "$dt: make numpy inputs"
import sys, numpy as np
from numpy.lib import format as fmt
d, t = sys.argv[1], sys.argv[2]
a = (10 * np.arange(6)[:, None] + np.arange(5)[None, :] + 0.5).astype(t)
np.save(d + '/in.npy', a)
with open(d + '/in_v2.npy', 'wb') as f:
    fmt.write_array(f, a, version=(2, 0))
np.save(d + '/in_vec.npy', (2 * np.arange(4)).astype(t))
np.save(d + '/in_scalar.npy', np.array(3.25, dtype=t))
EOF
	DMD_STATS=1 DMD_JOB_DIR=$D run "$WORK/$dt.out" "$WORK/$dt.err" \
		-n 4 "$BIN" $dt
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$WORK/$dt.out" "$WORK/$dt.err"
		ko "$dt: rt_test exits with status $rc"
	fi
	# One "ok NAME"/"FAIL NAME" line per section of rt_test.
	nsec=0
	while read -r verdict name rest; do
		case $verdict in
		ok) ok "$dt: $name"; nsec=$((nsec + 1)) ;;
		FAIL) ko "$dt: $name $rest"; nsec=$((nsec + 1)) ;;
		esac
	done <"$WORK/$dt.out"
	if [ $nsec -ne 8 ]; then
		ko "$dt: expected 8 sections, got $nsec"
		cat "$WORK/$dt.err"
	fi
	grep -q '^rank' "$WORK/$dt.err" && head -20 "$WORK/$dt.err"
	# The stats line against what rt_test expects.
	if $PY - "$WORK/$dt.out" <<'EOF'; then
import sys, json
lines = open(sys.argv[1]).read().splitlines()
stats = [l for l in lines if l.startswith('{')]
exp = [l for l in lines if l.startswith('expect ')]
assert len(stats) == 1, 'want exactly one stats line: %r' % stats
assert len(exp) == 1, exp
s = json.loads(stats[0])
want = dict(kv.split('=') for kv in exp[0].split()[1:])
assert list(s) == ['ranks', 'classes', 'time_s', 'gflops',
    'bytes_moved_total', 'bytes_recv_max', 'messages'], list(s)
assert s['ranks'] == 4 and s['classes'] == 1, s
for k, v in want.items():
    assert s[k] == int(v), (k, s[k], v)
assert s['time_s'] >= 0.02, s
assert abs(s['gflops'] - 1e6 / s['time_s'] / 1e9) <= 1e-5 * s['gflops'], s
EOF
		ok "$dt: stats line"
	else
		cat "$WORK/$dt.out"
		ko "$dt: stats line"
	fi
	# The files the runtime wrote, read by numpy.
	if $PY - "$D" $np <<'EOF'; then
import sys, os, numpy as np
d, t = sys.argv[1], sys.argv[2]
def load(name, shape):
    p = os.path.join(d, name)
    with open(p, 'rb') as f:
        head = f.read(10)
        assert head[:8] == b'\x93NUMPY\x01\x00', head
        hlen = head[8] | head[9] << 8
        assert (10 + hlen) % 64 == 0, hlen
        text = f.read(hlen).decode('latin1')
        assert text.endswith('\n'), text
    a = np.load(p)
    assert a.dtype == np.dtype(t) and a.shape == shape, (name, a.dtype, a.shape)
    assert os.path.getsize(p) == 10 + hlen + a.nbytes, name
    return a
i, j = np.indices((5, 7))
assert (load('T.npy', (5, 7)) == 100 * i + j + 0.25).all()
assert (load('V.npy', (3,)) == [1, 8, 15]).all()
assert load('S.npy', ()) == -2.5
# rand.npy: the spec's formula, with numpy's wrapping uint64 arithmetic.
with np.errstate(over='ignore'):
    k = np.arange(35, dtype=np.uint64)
    z = np.uint64(42) + (k + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
want = ((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 * 2 - 1)
r = load('rand.npy', (5, 7))
assert (r == want.astype(t).reshape(5, 7)).all(), r
left = [f for f in os.listdir(d) if 'tmp' in f]
assert not left, left
EOF
		ok "$dt: numpy reads the runtime's files"
	else
		ko "$dt: numpy reads the runtime's files"
	fi
done

# Error cases: each must exit non-zero, print its message once, not hang.
E=$WORK/err
mkdir -p "$E"
$PY - "$E" <<'EOF' || ko "make error inputs"
import sys, numpy as np
d = sys.argv[1]
np.save(d + '/B.npy', np.zeros((64, 32)))
np.save(d + '/B64.npy', np.zeros((64, 64)))
open(d + '/garbage.npy', 'wb').write(b'\x93NUMPY\x01\x00\x10\x00{"descr": <f8}  \n')
EOF
expect_error() {
	local name=$1 msg=$2
	shift 2
	DMD_JOB_DIR=$E run "$WORK/e.out" "$WORK/e.err" "$@"
	local rc=$?
	local n
	n=$(grep -cF -- "$msg" "$WORK/e.err")
	if [ $rc -eq 124 ]; then
		ko "$name: hangs"
	elif [ $rc -eq 0 ]; then
		ko "$name: exits with status 0"
	elif [ "$n" -ne 1 ]; then
		cat "$WORK/e.out" "$WORK/e.err"
		ko "$name: message '$msg' printed $n times"
	elif grep -q 'did not stop' "$WORK/e.out"; then
		ko "$name: went on after the error"
	else
		ok "$name"
	fi
}
expect_error "wrong rank count" \
	"distmpmd: job 'rt_test' needs 4 ranks but was started with 3" \
	-n 3 "$BIN" f64
expect_error "wrong class" \
	"distmpmd: rank 3 runs the program of class 1, but belongs to another class (wrong appfile?)" \
	-n 4 "$BIN" wrongclass
expect_error "missing .npy" \
	"distmpmd: tensor 'B': cannot open $E/nope.npy: No such file or directory" \
	-n 4 "$BIN" missing
expect_error "shape mismatch" \
	"distmpmd: tensor 'B': B.npy has shape (64, 32), the job says (64, 64)" \
	-n 4 "$BIN" badshape
expect_error "dtype mismatch" \
	"distmpmd: tensor 'B': B64.npy has dtype '<f8', the job says '<f4'" \
	-n 4 "$BIN" baddtype
expect_error "bad header" \
	"distmpmd: tensor 'B': garbage.npy: bad .npy header" \
	-n 4 "$BIN" badheader
expect_error "output directory missing" \
	"distmpmd: tensor 'C': cannot write $E/no/such/dir/C.npy: cannot create $E/no/such/dir/.C.npy.tmp." \
	-n 4 "$BIN" badout
expect_error "dmd_fail" \
	"distmpmd: rank 1: deliberate failure 7" \
	-n 4 "$BIN" fail

finish
