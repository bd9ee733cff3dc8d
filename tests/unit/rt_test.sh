#!/bin/bash
# rt_test.sh: builds and runs the runtime's unit test (tests/unit/rt_test.c)
# under mpiexec.mpich on 1 to 4 ranks: the full test on a 2x2 mesh in f64
# and f32 (values, stats line, the .npy files read by numpy, the trace),
# dmd_gemm on 2 ranks, and every error path: each must stop every rank
# with one clear message, a non-zero exit status and no hang.
# Last line: "N passed, M failed"; exit status non-zero on any failure.
#
# Needs mpicc.mpich, mpiexec.mpich and /usr/bin/python3 with numpy.
#
# RT_MPI chooses the MPI and the runtime's path for counts:
#   mpich       (default) obj/libdmdrt.a: MPI 4's large-count calls
#   mpich-mpi3  the runtime compiled with -DDMD_RT_MPI3
#               -DDMD_RT_COUNT_MAX=7: MPI 3's int-count calls, every
#               count past 7 items as one item of a derived datatype
#   openmpi     mpicc.openmpi and mpiexec.openmpi (Debian's Open MPI 4.1
#               is MPI 3), the runtime with -DDMD_RT_COUNT_MAX=7
# The two variants run the main and gemm tests (every transfer, the files
# read and written, the stats and the trace, checked on values), and
# check that the runtime made derived datatypes for large counts.

cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
PY=/usr/bin/python3
export OPENBLAS_NUM_THREADS=1
unset DMD_STATS DMD_TRACE DMD_JOB_DIR
pass=0
fail=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rt_test.XXXXXX")
[ -n "$RT_KEEP" ] || trap 'rm -rf "$WORK"' EXIT
HOST=$(hostname)

ok() { pass=$((pass + 1)); echo "ok $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

RT_MPI=${RT_MPI:-mpich}
MPICC=mpicc.mpich
MPIEXEC=mpiexec.mpich
RT_DEFS=
LARGE=1
case $RT_MPI in
mpich) ;;
mpich-mpi3) RT_DEFS="-DDMD_RT_MPI3 -DDMD_RT_COUNT_MAX=7"; LARGE=0 ;;
openmpi)
	MPICC=mpicc.openmpi
	MPIEXEC=mpiexec.openmpi
	RT_DEFS="-DDMD_RT_COUNT_MAX=7"
	LARGE=0
	# as root, and 4 ranks on fewer cores
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	;;
*) echo "rt_test.sh: unknown RT_MPI=$RT_MPI"; ko "RT_MPI"; finish ;;
esac

# run OUT ERR ARGS...: mpiexec with a time limit; the exit status is kept.
run() {
	local out=$1 err=$2
	shift 2
	timeout 60 $MPIEXEC "$@" >"$out" 2>"$err"
}

if [ "$RT_MPI" = mpich ]; then
	make -s obj/libdmdrt.a >"$WORK/make.log" 2>&1
	RTLIB=obj/libdmdrt.a
else
	# the runtime's files compiled as the Makefile does, with RT_DEFS
	mkdir -p "$WORK/rt"
	for f in runtime/*.c; do
		$MPICC -O2 -g -Wall -Wextra -Werror -std=gnu11 $RT_DEFS \
			$(pkg-config --cflags openblas) -c -o \
			"$WORK/rt/$(basename "$f" .c).o" "$f" || break
	done >"$WORK/make.log" 2>&1
	ar rcs "$WORK/rt/libdmdrt.a" "$WORK"/rt/*.o >>"$WORK/make.log" 2>&1
	RTLIB=$WORK/rt/libdmdrt.a
fi
if [ -s "$RTLIB" ] && [ ! -s "$WORK/make.log" ] &&
   $MPICC -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$TOP" \
	$(pkg-config --cflags openblas) -o "$WORK/rt_test" \
	tests/unit/rt_test.c "$RTLIB" $(pkg-config --libs openblas) \
	-lm >>"$WORK/make.log" 2>&1; then
	ok "build ($RT_MPI)"
else
	cat "$WORK/make.log"
	ko "build ($RT_MPI)"
	finish
fi
BIN=$WORK/rt_test
# The OpenBLAS library the test runs with, for its core name.
OBLIB=$(ldd "$BIN" | awk '/libopenblas/ { print $3 }')

# sections OUT N WHAT: one "ok NAME"/"FAIL NAME" line per section of
# rt_test in OUT; there must be N of them.
sections() {
	local out=$1 want=$2 what=$3 n=0 verdict name rest
	while read -r verdict name rest; do
		case $verdict in
		ok) ok "$what: $name"; n=$((n + 1)) ;;
		FAIL) ko "$what: $name $rest"; n=$((n + 1)) ;;
		esac
	done <"$out"
	[ "$n" -eq "$want" ] || ko "$what: expected $want sections, got $n"
}

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
	mkdir -p "$D/blocks"
	DMD_STATS=1 DMD_TRACE=$D/trace.json DMD_JOB_DIR=$D \
		DMD_DUMP_BLOCKS=$D/blocks \
		run "$WORK/$dt.out" "$WORK/$dt.err" -n 4 "$BIN" main $dt
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$WORK/$dt.out" "$WORK/$dt.err"
		ko "$dt: rt_test main exits with status $rc"
	fi
	sections "$WORK/$dt.out" 14 "$dt"
	grep -q '^rank' "$WORK/$dt.err" && head -20 "$WORK/$dt.err"
	# the calls for counts that the runtime was compiled to make
	big=some
	[ $LARGE = 1 ] && big=none
	got=$(grep '^mpi ' "$WORK/$dt.out")
	if [ "$got" = "mpi large_count=$LARGE big_types=$big" ]; then
		ok "$dt: $RT_MPI: large_count=$LARGE big_types=$big"
	else
		ko "$dt: $RT_MPI: want large_count=$LARGE big_types=$big, got '$got'"
	fi

	# The stats line, exactly (times and gflops checked apart).
	if $PY - "$WORK/$dt.out" "$OBLIB" <<'EOF'; then
import sys, json, re, ctypes
lines = open(sys.argv[1]).read().splitlines()
lib = ctypes.CDLL(sys.argv[2])
lib.openblas_get_corename.restype = ctypes.c_char_p
core = lib.openblas_get_corename().decode()
stats = [l for l in lines if l.startswith('{')]
exp = [l for l in lines if l.startswith('expect ')]
assert len(stats) == 1, 'want exactly one stats line: %r' % stats
assert len(exp) == 1, exp
line = stats[0]
want = dict(kv.split('=') for kv in exp[0].split()[1:])
steps = [s.split(':') for s in want['steps'].split(',')]
text = ('{"ranks": 4, "classes": 1, "time_s": T, "gflops": G, '
    '"bytes_moved_total": %s, "bytes_recv_max": %s, "messages": %s, '
    '"blas": "%s", "steps": [%s]}' % (want['bytes_moved_total'],
    want['bytes_recv_max'], want['messages'], core,
    ', '.join('{"time_s": T, "bytes_moved_total": %s, "messages": %s}'
              % (b, m) for b, m in steps)))
norm = re.sub(r'"time_s": [0-9][0-9.e+-]*', '"time_s": T', line)
norm = re.sub(r'"gflops": [0-9][0-9.e+-]*', '"gflops": G', norm)
assert norm == text, '\n%s\n%s' % (norm, text)
assert line.endswith('{"time_s": 0, "bytes_moved_total": 0, '
    '"messages": 0}]}'), line
s = json.loads(line)
assert s['time_s'] >= 0.02, s
assert abs(s['gflops'] - 1e6 / s['time_s'] / 1e9) <= 1e-5 * s['gflops'], s
st = s['steps']
assert st[0]['time_s'] > 0 and st[1]['time_s'] > 0, st
# each step's time is the slowest rank's in that step, the total the
# slowest rank's in all: their sum may exceed the total when different
# ranks are slowest in different steps (seen under load), each may not
assert st[0]['time_s'] <= s['time_s'] and st[1]['time_s'] <= s['time_s'], s
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
i3, j3, k3 = np.indices((4, 5, 6))
assert (load('U.npy', (4, 5, 6)) == 100 * i3 + 10 * j3 + k3).all()
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

	# DMD_DUMP_BLOCKS: every rank's block of every output, as the rank
	# holds it (ghost cells left out), replicas that write no file too:
	# V's replicas at c1 = 1 hold -1, Sc's ranks other than 0 hold 99.
	if $PY - "$D" $np <<'EOF'; then
import sys, os, numpy as np
d, t = sys.argv[1], sys.argv[2]
b = os.path.join(d, 'blocks')
full = {n: np.load(os.path.join(d, f)) for n, f in
        (('R', 'rand.npy'), ('T', 'T.npy'), ('V', 'V.npy'), ('U', 'U.npy'))}
want = {}
for r in range(4):
    c0, c1 = r // 2, r % 2
    lo, ext = (3 * c0, 4 * c1), (3 - c0, 4 - c1)
    for n in 'RT':
        want['%s.r%d.at_%d_%d.npy' % ((n, r) + lo)] = \
            full[n][lo[0]:lo[0] + ext[0], lo[1]:lo[1] + ext[1]]
    lv, ev = 2 * c0, 2 - c0
    want['V.r%d.at_%d.npy' % (r, lv)] = (np.full(ev, -1.0) if c1 else
                                         full['V'][lv:lv + ev])
    want['Sc.r%d.at.npy' % r] = np.array(-2.5 if r == 0 else 99.0)
    lu = (2 * c0, 0, 3 * c1)
    want['U.r%d.at_%d_%d_%d.npy' % ((r,) + lu)] = \
        full['U'][lu[0]:lu[0] + 2, :, lu[2]:lu[2] + 3]
got = sorted(os.listdir(b))
assert got == sorted(want), got
for f, w in want.items():
    a = np.load(os.path.join(b, f))
    assert a.dtype == np.dtype(t) and a.shape == w.shape, (f, a.dtype, a.shape)
    assert (a == w.astype(t)).all(), (f, a, w)
EOF
		ok "$dt: DMD_DUMP_BLOCKS: every rank's blocks"
	else
		ko "$dt: DMD_DUMP_BLOCKS: every rank's blocks"
	fi

	# The trace: Chrome trace-event JSON, one process per rank.
	es=8
	[ $dt = f32 ] && es=4
	if $PY - "$D/trace.json" "$WORK/$dt.out" $es <<'EOF'; then
import sys, json, collections
es = int(sys.argv[3])
t = json.load(open(sys.argv[1]))
stats = json.loads([l for l in open(sys.argv[2]) if l.startswith('{')][0])
assert set(t) == {'traceEvents', 'displayTimeUnit', 'otherData'}, set(t)
assert t['otherData'] == {'job': 'rt_test', 'ranks': 4, 'events_dropped': 0}, \
    t['otherData']
ev = t['traceEvents']
labels = {'A: broadcast along y': 1, 'W: broadcast along x': 1,
          'B: shift along x': 1, 'W: shift along y': 1, 'W: self shift': 1,
          'B: half-empty shift': 1, 'P: point to point': 1, 'M0: pair': 1,
          'M1: pair': 1, 'M2: pair': 1, 'C: combed': 1,
          'C: combed, several runs': 1, 'D: combed, six runs': 1,
          'C: partial sums': 1, 'K: cache': 5,
          'L: broadcast along l': 1}
# on the view of ranks 0-2 only (rank 3 posts nothing there)
view3 = {'Q: broadcast along q': 1, 'Q: shift along q': 1}
total = 0
for r in range(4):
    rl = dict(labels, **(view3 if r < 3 else {}))
    meta = [e for e in ev if e['ph'] == 'M' and e['pid'] == r]
    pn = [e['args']['name'] for e in meta if e['name'] == 'process_name']
    assert pn == ['rank %d (class 0)' % r], pn
    x = [e for e in ev if e['ph'] == 'X' and e['pid'] == r]
    assert len(x) + len(meta) == len([e for e in ev if e['pid'] == r])
    for e in x:
        assert set(e) - {'args'} == {'name', 'cat', 'ph', 'pid', 'tid',
                                     'ts', 'dur'}, e
        assert e['ts'] >= 0 and e['dur'] >= 0, e
    t0 = [e for e in x if e['tid'] == 0]
    names = collections.Counter((e['cat'], e['name']) for e in t0)
    want = collections.Counter({('compute', 'compute'): 1,
        ('step', 'step 1: transfers'): 1, ('step', 'step 2: sums'): 2,
        ('gemm', 'gemm'): 1})
    for k, v in rl.items():
        want[('wait', k)] = v
    assert names == want, (r, names - want, want - names)
    # Thread 0 nests: sort by start, longer first; check with a stack.
    ns = lambda v: round(v * 1000)
    stack = []
    for e in sorted(t0, key=lambda e: (ns(e['ts']), -ns(e['dur']))):
        b, f = ns(e['ts']), ns(e['ts']) + ns(e['dur'])
        while stack and stack[-1] <= b:
            stack.pop()
        assert not stack or f <= stack[-1], ('not nested', r, e)
        stack.append(f)
    # Transfers: on threads >= 1, not overlapping on one thread.
    xf = [e for e in x if e['tid'] != 0]
    assert all(e['cat'] == 'transfer' for e in xf), xf
    assert collections.Counter(e['name'] for e in xf) == \
        collections.Counter(rl), xf
    for tid in set(e['tid'] for e in xf):
        end = -1
        for e in sorted((e for e in xf if e['tid'] == tid),
                        key=lambda e: e['ts']):
            assert ns(e['ts']) >= end, ('overlap', r, tid, e)
            end = ns(e['ts']) + ns(e['dur'])
    tn = {e['tid']: e['args']['name'] for e in meta
          if e['name'] == 'thread_name'}
    assert tn[0] == 'compute' and tn[1] == 'transfers', tn
    assert set(tn) == {0} | set(e['tid'] for e in xf), tn
    total += sum(e['args']['bytes'] for e in xf)
    b = {e['name']: e['args']['bytes'] for e in xf}
    assert b['W: self shift'] == 0, b
    assert b['A: broadcast along y'] == (0 if r % 2 else 6 * es), b
    assert b['C: partial sums'] == 3 * 6 * es, b
assert total == stats['bytes_moved_total'], (total, stats)
EOF
		ok "$dt: trace JSON"
	else
		ko "$dt: trace JSON"
	fi
	cp "$D/trace.json" "$WORK/trace_$dt.json"

	run "$WORK/g$dt.out" "$WORK/g$dt.err" -n 2 "$BIN" gemm $dt
	rc=$?
	if [ $rc -ne 0 ]; then
		cat "$WORK/g$dt.out" "$WORK/g$dt.err"
		ko "$dt: rt_test gemm exits with status $rc"
	fi
	sections "$WORK/g$dt.out" 1 "$dt"
	grep -q '^rank' "$WORK/g$dt.err" && head -20 "$WORK/g$dt.err"
done

# The variants stop here (see RT_MPI above).
[ "$RT_MPI" = mpich ] || finish

# The full test under valgrind (f64): no memory error, no leak.
if command -v valgrind >/dev/null; then
	V=$WORK/vg
	mkdir -p "$V"
	cp "$WORK"/f64/in*.npy "$V"
	DMD_STATS=1 DMD_TRACE=$V/trace.json DMD_JOB_DIR=$V \
		timeout 300 mpiexec.mpich -n 4 valgrind -q --leak-check=full \
		--suppressions="$TOP/tests/unit/mpich.supp" \
		--show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
		--log-file="$V/vg.%p.txt" "$BIN" main f64 >"$V/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '^ok ' "$V/out")" -eq 14 ]; then
		ok "valgrind: no memory error, no leak (main, 4 ranks)"
	else
		cat "$V/out" "$V"/vg.*.txt
		ko "valgrind: status $rc"
	fi
fi

# Error cases: each must exit non-zero, print its message exactly once,
# not hang, and stop before going on.
E=$WORK/err
mkdir -p "$E"
$PY - "$E" <<'EOF' || ko "make error inputs"
import sys, numpy as np
d = sys.argv[1]
np.save(d + '/B.npy', np.zeros((64, 32)))
np.save(d + '/B64.npy', np.zeros((64, 64)))
open(d + '/garbage.npy', 'wb').write(b'\x93NUMPY\x01\x00\x10\x00{"descr": <f8}  \n')
EOF
# expect_error NAME MESSAGE ARGS...: mpiexec ARGS must fail with MESSAGE.
# With REFUSE=1, before the program starts computing (it prints
# "computed" when dmd_init has returned).
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
	elif [ -n "$REFUSE" ] && grep -q '^computed' "$WORK/e.out"; then
		ko "$name: refused only after computing"
	else
		ok "$name"
	fi
}
expect_error "wrong rank count" \
	"distmpmd: job 'rt_test' needs 4 ranks but was started with 3" \
	-n 3 "$BIN" wrongcount f64
expect_error "wrong class" \
	"distmpmd: rank 3 runs the program of class 1, but belongs to another class (wrong appfile?)" \
	-n 4 "$BIN" wrongclass f64
expect_error "missing .npy" \
	"distmpmd: tensor 'B': cannot open $E/nope.npy: No such file or directory" \
	-n 2 "$BIN" missing f64
expect_error "shape mismatch" \
	"distmpmd: tensor 'B': B.npy has shape (64, 32), the job says (64, 64)" \
	-n 2 "$BIN" badshape f64
expect_error "dtype mismatch" \
	"distmpmd: tensor 'B': B64.npy has dtype '<f8', the job says '<f4'" \
	-n 2 "$BIN" baddtype f32
expect_error "bad header" \
	"distmpmd: tensor 'B': garbage.npy: bad .npy header" \
	-n 2 "$BIN" badheader f64
expect_error "dmd_fail" \
	"distmpmd: rank 1: deliberate failure 7" \
	-n 2 "$BIN" fail f64
expect_error "transfer never waited for" \
	"distmpmd: rank 0: transfer 'U: never waited' was posted but never waited for" \
	-n 2 "$BIN" unwaited f64

# Output destinations, refused by dmd_init before any computation.
REFUSE=1
mkdir -p "$E/adir"
mkfifo "$E/fifo.npy"
: >"$E/afile"
ln -s "$E/nothere.npy" "$E/dangling.npy"
expect_error "output /dev/null" \
	"distmpmd: tensor 'C': cannot write /dev/null: it exists and is not a regular file" \
	-n 2 "$BIN" out f64 /dev/null
expect_error "output is a directory" \
	"distmpmd: tensor 'C': cannot write $E/adir: it exists and is not a regular file" \
	-n 2 "$BIN" out f64 adir
expect_error "output is a FIFO" \
	"distmpmd: tensor 'C': cannot write $E/fifo.npy: it exists and is not a regular file" \
	-n 2 "$BIN" out f64 fifo.npy
expect_error "output directory missing" \
	"distmpmd: tensor 'C': cannot write $E/no/such/dir/C.npy: directory $E/no/such/dir: No such file or directory" \
	-n 2 "$BIN" out f64 no/such/dir/C.npy
expect_error "output directory is a file" \
	"distmpmd: tensor 'C': cannot write $E/afile/C.npy: directory $E/afile: Not a directory" \
	-n 2 "$BIN" out f64 afile/C.npy
expect_error "output is a dangling symbolic link" \
	"distmpmd: tensor 'C': cannot write $E/dangling.npy: it is a symbolic link to a missing file (No such file or directory)" \
	-n 2 "$BIN" out f64 dangling.npy
expect_error "DMD_DUMP_BLOCKS directory missing" \
	"distmpmd: DMD_DUMP_BLOCKS: cannot write into $E/no/dir: No such file or directory" \
	-n 2 env DMD_DUMP_BLOCKS="$E/no/dir" "$BIN" out f64 C.npy
expect_error "trace directory missing" \
	"distmpmd: trace (DMD_TRACE): cannot write $E/no/dir/t.json: directory $E/no/dir: No such file or directory" \
	-n 2 env DMD_TRACE="$E/no/dir/t.json" "$BIN" out f64 C.npy
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$E/ro"
	chmod 555 "$E/ro"
	expect_error "output directory not writable" \
		"distmpmd: tensor 'C': cannot write $E/ro/C.npy: directory $E/ro: Permission denied" \
		-n 2 "$BIN" out f64 ro/C.npy
else
	echo "skip output directory not writable (running as root)"
fi
REFUSE=

# check_c FILE: numpy reads the 4x6 C (10*i+j) that "out" writes.
check_c() {
	$PY - "$1" <<'EOF'
import sys, numpy as np
c = np.load(sys.argv[1])
i, j = np.indices((4, 6))
assert c.dtype == np.float64 and (c == 10 * i + j).all(), c
EOF
}

# A symbolic link to a regular file is a valid destination (the rename
# replaces the link by the new file).
echo old >"$E/target.npy"
ln -s "$E/target.npy" "$E/link.npy"
if DMD_JOB_DIR=$E run "$WORK/l.out" "$WORK/l.err" -n 2 "$BIN" out f64 \
	link.npy && [ -f "$E/link.npy" ] && [ ! -L "$E/link.npy" ] &&
   check_c "$E/link.npy" && [ "$(cat "$E/target.npy")" = old ]; then
	ok "output through a symbolic link to a regular file"
else
	cat "$WORK/l.out" "$WORK/l.err"
	ko "output through a symbolic link to a regular file"
fi

# Stale temporaries: dmd_init removes ".C.npy.tmp.HOST.PID" of a dead
# process of this host, and nothing else.
S=$E/st
mkdir -p "$S"
for try in 1 2 3 4 5; do
	dead=$(sh -c 'echo $$')
	kill -0 "$dead" 2>/dev/null || break
done
keep=(".C.npy.tmp.$HOST.$$" ".C.npy.tmp.otherhost.$dead"
	".C.npy.tmp.$HOST.${dead}x" ".D.npy.tmp.$HOST.$dead"
	"C.npy.tmp.$HOST.$dead" ".C.npy.tmp.$HOST")
for f in ".C.npy.tmp.$HOST.$dead" "${keep[@]}"; do
	echo stale >"$S/$f"
done
mkdir "$S/.C.npy.tmp.$HOST.1999999999"
keep+=(".C.npy.tmp.$HOST.1999999999")
if DMD_JOB_DIR=$E run "$WORK/s.out" "$WORK/s.err" -n 2 "$BIN" out f64 \
	st/C.npy && check_c "$S/C.npy"; then
	bad=
	[ -e "$S/.C.npy.tmp.$HOST.$dead" ] && bad="the dead pid's temporary is still there"
	for f in "${keep[@]}"; do
		[ -e "$S/$f" ] || bad="$bad; $f was removed"
	done
	n=$(ls -A "$S" | wc -l)
	[ "$n" -eq $((${#keep[@]} + 1)) ] || bad="$bad; $n files: $(ls -A "$S")"
	if [ -z "$bad" ]; then
		ok "stale temporaries: dead pid removed, others kept"
	else
		ko "stale temporaries: $bad"
	fi
else
	cat "$WORK/s.out" "$WORK/s.err"
	ko "stale temporaries: the run failed"
fi

# A full disk: writes of the MPI-IO data fail with ENOSPC (pwrite of an
# LD_PRELOAD library, on the temporary file only); the message gives the
# system's reason and no file is left.
cat >"$WORK/enospc.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Does file descriptor fd name a file whose path contains $RT_FULL? */
static int full(int fd)
{
	const char *pat = getenv("RT_FULL");
	char link[64], path[4096];
	ssize_t n;

	if (!pat || !*pat)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	return strstr(path, pat) != NULL;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))
		dlsym(RTLD_NEXT, "pwrite");

	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t (*real)(int, const struct iovec *, int, off_t) =
		(ssize_t (*)(int, const struct iovec *, int, off_t))
		dlsym(RTLD_NEXT, "pwritev");

	if (full(fd)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, iov, cnt, off);
}
EOF
mkdir -p "$E/full"
if cc -shared -fPIC -O2 -o "$WORK/enospc.so" "$WORK/enospc.c" -ldl; then
	expect_error "full disk" \
		"distmpmd: tensor 'C': cannot write $E/full/C.npy: No space left on device" \
		-n 2 env LD_PRELOAD="$WORK/enospc.so" RT_FULL=/full/.C.npy.tmp. \
		"$BIN" out f64 full/C.npy
	left=$(ls -A "$E/full")
	if [ -z "$left" ]; then
		ok "full disk: no file left"
	else
		ko "full disk: left $left"
	fi
else
	ko "full disk: cannot build the LD_PRELOAD library"
fi

# job_dir: relative to the directory of the binary (DMD_JOB_DIR unset),
# or absolute.
mkdir -p "$WORK/bindir/jobdir"
cp "$BIN" "$WORK/bindir/rt_test"
cp "$WORK/f64/in.npy" "$WORK/bindir/jobdir/in.npy"
run "$WORK/j.out" "$WORK/j.err" -n 1 "$WORK/bindir/rt_test" jobdir f64 ||
	cat "$WORK/j.out" "$WORK/j.err"
sections "$WORK/j.out" 1 "job_dir relative to the binary"
run "$WORK/j.out" "$WORK/j.err" -n 1 "$BIN" absdir f64 "$WORK/f64" ||
	cat "$WORK/j.out" "$WORK/j.err"
sections "$WORK/j.out" 1 "absolute job_dir"

# The BLAS check: with OPENBLAS_CORETYPE set it says nothing (and the stats
# name the kernels asked for); unset, it speaks exactly when the CPU has
# AVX-512F/AVX2 and OpenBLAS runs older kernels (one line, rank 0).
if DMD_STATS=1 OPENBLAS_CORETYPE=Prescott DMD_JOB_DIR=$E \
	run "$WORK/b.out" "$WORK/b.err" -n 2 "$BIN" out f64 C.npy &&
   grep -qF '"blas": "Prescott"' "$WORK/b.out" &&
   ! grep -q 'OpenBLAS uses' "$WORK/b.err"; then
	ok "BLAS check: quiet with OPENBLAS_CORETYPE set"
else
	cat "$WORK/b.out" "$WORK/b.err"
	ko "BLAS check: quiet with OPENBLAS_CORETYPE set"
fi
# (the kernels OpenBLAS picks by itself: OPENBLAS_CORETYPE unset here too)
want=$(env -u OPENBLAS_CORETYPE $PY - "$OBLIB" <<'EOF'
import sys, ctypes
lib = ctypes.CDLL(sys.argv[1])
lib.openblas_get_corename.restype = ctypes.c_char_p
core = lib.openblas_get_corename().decode().lower()
flags = set()
for l in open('/proc/cpuinfo'):
    if l.startswith('flags'):
        flags = set(l.split(':')[1].split())
        break
k512 = {'skylakex', 'cooperlake', 'sapphirerapids'}
k256 = k512 | {'haswell', 'zen'}
if 'avx512f' in flags:
    print(0 if core in k512 else 1)
elif 'avx2' in flags:
    print(0 if core in k256 else 1)
else:
    print(0)
EOF
)
(unset OPENBLAS_CORETYPE; DMD_JOB_DIR=$E \
	run "$WORK/b.out" "$WORK/b.err" -n 2 "$BIN" out f64 C.npy)
n=$(grep -c '^distmpmd: OpenBLAS uses its .* kernels on this .* CPU' "$WORK/b.err")
if [ "$n" = "$want" ]; then
	ok "BLAS check: $n advice line(s) on this CPU, as expected"
else
	cat "$WORK/b.err"
	ko "BLAS check: $n advice line(s), want $want"
fi

finish
