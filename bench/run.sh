#!/usr/bin/env bash
# bench/run.sh: the distmpmd benchmark ("make bench"); see bench/README.md.
#
# Parts (BENCH_PARTS, default all, in this order):
#   checks   small jobs of every algorithm and layout checked with the
#            independent reference (tests/ref/dmd_ref.py check)
#   classes  seconds of `distmpmd classes` on tests/scale/*.yaml (classes.sh)
#   stencil  5-point stencil, N x N f64 over a 1x2 mesh (rows, and [x, y]
#            columns), one sweep and BENCH_STENCIL_SWEEPS sweeps, against a
#            hand-written C sweep on one core, a hand-written MPI sweep on 2
#            ranks, and memcpy / copy-loop bandwidth on 1 and 2 processes
#   gemm12   C = A * B (f64, n in BENCH_SIZES_1X2) on a 1x2 grid: distmpmd
#            SUMMA, PUMMA, Cannon vs ScaLAPACK PDGEMM (1x2 grid, NB = n/2 and
#            64) vs OpenBLAS DGEMM (1 process, 1 and 2 threads)
#   gemm22   the same on a 2x2 grid (4 ranks: oversubscribed on 2 cores),
#            n in BENCH_SIZES
#   auto     bench/auto.py: the automatic schedule's bytes at the busiest
#            receiver against every hand schedule's and the lower bound
#            (plan only; BENCH_AUTO_QUICK=1 for the small cases;
#            BENCH_AUTO_TIMEOUT=S stops a hand plan after S seconds)
#   autotime bench/auto.py --time: the automatic schedule's time_s against
#            every hand schedule's on <= 8 ranks (BENCH_REPS rounds)
# Every method is launched once per round, BENCH_REPS rounds, the methods
# interleaved (and the order rotated each round); medians are reported.
# Every launch runs under `timeout`.  The report goes to stdout and to
# bench/results.md (+ bench/results.svg, and the raw records in
# bench/results.jsonl); exit status 1 if a result was wrong or a step failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
dmd=${DISTMPMD:-$top/bin/distmpmd}
py=/usr/bin/python3
parts=${BENCH_PARTS:-checks classes stencil gemm12 gemm22 auto autotime}
reps=${BENCH_REPS:-5}
sizes12=${BENCH_SIZES_1X2:-2048 4096}
sizes22=${BENCH_SIZES:-1024 2048}
stn=${BENCH_STENCIL_N:-4096}
sweeps=${BENCH_STENCIL_SWEEPS:-10}
tmo=${BENCH_TIMEOUT:-300}
out_md=${BENCH_OUT:-$here/results.md}
# The generated job files, beside the report (bench/jobs by default).
jobs_dir=$(cd "$(dirname "$out_md")" 2>/dev/null && pwd)/jobs ||
	{ echo "bench: error: no directory for $out_md" >&2; exit 1; }
# Always the MPICH names: installing ScaLAPACK pulls in Open MPI, which may
# take over plain "mpicc" / "mpiexec".
MPICC=mpicc.mpich
MPIEXEC=mpiexec.mpich
export OPENBLAS_NUM_THREADS=1
# The flags the generated programs get on top of -O3 -Wall -Wextra
# (DISTMPMD_CFLAGS, split at white space); the hand-written stencil gets
# the same.
read -r -a user_cflags <<< "${DISTMPMD_CFLAGS:-}"

say() { echo "bench: $*" >&2; }
die() { say "error: $*"; exit 1; }
has_part() { [[ " $parts " == *" $1 "* ]]; }

[ -x "$dmd" ] || die "$dmd is missing: run 'make' first"
command -v $MPICC >/dev/null || die "$MPICC not found (apt-get install mpich)"
command -v $MPIEXEC >/dev/null || die "$MPIEXEC not found"
$py -c 'import numpy, yaml' 2>/dev/null || die "$py needs numpy and yaml"
[ "$reps" -ge 1 ] 2>/dev/null || die "BENCH_REPS must be a positive integer"
[ "$sweeps" -ge 1 ] 2>/dev/null || die "BENCH_STENCIL_SWEEPS must be a positive integer"

# --------------------------------------------------------------------------
# ScaLAPACK (MPICH build): install it if missing.
have_scalapack() {
	dpkg-query -W -f '${Status}' libscalapack-mpich-dev 2>/dev/null |
		grep -q 'install ok installed'
}
if { has_part gemm12 || has_part gemm22; } && ! have_scalapack; then
	if [ "$(id -u)" = 0 ]; then
		say "installing libscalapack-mpich-dev"
		export DEBIAN_FRONTEND=noninteractive
		if ! apt-get install -y libscalapack-mpich-dev >&2; then
			apt-get update >&2 || true
			apt-get install -y libscalapack-mpich-dev >&2 ||
				say "could not install libscalapack-mpich-dev"
		fi
	else
		say "libscalapack-mpich-dev is missing and we are not root: as root, " \
			"run apt-get install -y libscalapack-mpich-dev"
	fi
fi

# --------------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmdbench.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	say "keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi
results=$tmp/results.jsonl
: > "$results"
t_start=$(date +%s)

jstr() { $py -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }
rec() { echo "$1" >> "$results"; }
problem() {  # WHAT MESSAGE
	say "PROBLEM: $1: $2"
	rec "{\"kind\": \"error\", \"what\": $(jstr "$1"), \"msg\": $(jstr "$2")}"
}
# The last line of a file that looks like a JSON object.
json_line() { grep '^{' "$1" | tail -n 1 || true; }
load1() { cut -d' ' -f1 /proc/loadavg; }
tail3() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }
# Note the load at a point of the run: the load average, and for the CPU
# time others used in between (report.py): the machine's busy and steal
# time (/proc/stat), and the CPU time of this script and everything it
# started and waited for (/proc/$$/stat), in clock ticks, at a wall time.
hz=$(getconf CLK_TCK)
self_cpu() {  # user + sys ticks of this shell and its waited-for children
	sed 's/^.*) //' "/proc/$$/stat" | awk '{ print $12 + $13 + $14 + $15 }'
}
# cpu_snap: "WALL BUSY_TICKS SELF_TICKS"; others_since SNAP: the cores
# other processes kept busy on average since SNAP (the machine's busy time
# minus ours; a launch's processes count as ours once waited for).
cpu_snap() {
	echo "$(date +%s.%N) $(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat) $(self_cpu)"
}
others_since() {
	awk -v a="$1" -v b="$(cpu_snap)" -v hz="$hz" 'BEGIN {
		split(a, x, " "); split(b, y, " "); w = y[1] - x[1]
		o = w > 0 ? ((y[2] - x[2]) - (y[3] - x[3])) / hz / w : 0
		printf "%.2f", o < 0 ? 0 : o }'
}
mark() {
	local busy steal
	read -r busy steal < <(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9 }' /proc/stat)
	rec "{\"kind\": \"load\", \"at\": $(jstr "$1"), \"loadavg\": $(jstr "$(cut -d' ' -f1-3 /proc/loadavg)"), \"elapsed_s\": $(($(date +%s) - t_start)), \"wall\": $(date +%s.%N), \"busy_ticks\": $busy, \"steal_ticks\": $steal, \"hz\": $hz, \"self_ticks\": $(self_cpu)}"
}

# --------------------------------------------------------------------------
# Job files.
#
# gen_gemm ALG P Q M N K DIR: DIR/ALG_PxQ_<size>.yaml (prints its path).
# One block per rank: m split over x, n over y, k in 2 steps.  Cannon's
# skewed layouts are A [x, (x + y) % Q], B [(x + y) % P, y]: on a square
# grid the classic ones; on a 1xQ grid B's k is one block ((x + y) % 1 = 0)
# and B never moves (its shift runs along x, of extent 1), so Cannon is
# PUMMA there (run.sh checks that the emitted code is the same).
gen_gemm() {
	local alg=$1 p=$2 q=$3 m=$4 n=$5 k=$6 dir=$7 adist bdist rot="" loop=ko tag name
	case $alg in
	summa) adist='[x, y]' bdist='[x, y]' ;;
	pumma) adist='[x, y]' bdist='[x, y]' rot='rotate(ko, [no], kor)' ;;
	cannon) adist="[x, \"(x + y) % $q\"]" bdist="[\"(x + y) % $p\", y]"
		rot='rotate(ko, [mo, no], kor)' ;;
	*) die "unknown algorithm $alg" ;;
	esac
	[ -n "$rot" ] && loop=kor
	if [ "$m" = "$n" ] && [ "$n" = "$k" ]; then tag=n$n; else tag=${m}x${n}x${k}; fi
	name=${alg}_${p}x${q}_$tag
	{
		echo "# $alg, f64, C[$m x $n] = A[$m x $k] * B[$k x $n] on a ${p}x${q} mesh,"
		echo "# one block per rank (generated by bench/run.sh; do not edit)."
		echo "name: $name"
		echo "mesh: {axes: [x, y], shape: [$p, $q]}"
		echo "tensors:"
		echo "  A: {shape: [$m, $k], dtype: f64, dist: $adist, init: random, seed: 1}"
		echo "  B: {shape: [$k, $n], dtype: f64, dist: $bdist, init: random, seed: 2}"
		echo "  C: {shape: [$m, $n], dtype: f64, dist: [x, y], file: C.npy}"
		echo "compute: C[m, n] = A[m, k] * B[k, n]"
		echo "schedule:"
		echo "  - distribute([m, n], [mo, no], [mi, ni], [x, y])"
		echo "  - divide(k, ko, ki, 2)"
		echo "  - reorder(mo, no, ko, mi, ni, ki)"
		[ -n "$rot" ] && echo "  - $rot"
		echo "  - communicate([A, B], $loop)"
		echo "  - tensorize([mi, ni, ki], gemm)"
	} > "$dir/$name.yaml"
	echo "$dir/$name.yaml"
}

# gen_stencil LAYOUT N1 N2 SWEEPS DIR: the 5-point stencil on an N1 x N2
# f64 array over a 1x2 mesh; LAYOUT rows (dist [y, "-"]: blocks of rows,
# contiguous halo rows) or cols (dist [x, y]: on a 1x2 mesh, blocks of
# columns, strided halo columns).  SWEEPS = 1: a one-step job; more: a
# program repeating the step (B is recomputed from A each time).
gen_stencil() {
	local lay=$1 n1=$2 n2=$3 s=$4 dir=$5 dist sched name tag stmt
	case $lay in
	rows) dist='[y, "-"]'
		sched=('distribute([i], [io], [ii], [y])' 'communicate(A, io)') ;;
	cols) dist='[x, y]'
		sched=('distribute([i, j], [io, jo], [ii, ji], [x, y])' 'communicate(A, jo)') ;;
	*) die "unknown layout $lay" ;;
	esac
	if [ "$n1" = "$n2" ]; then tag=n$n1; else tag=${n1}x$n2; fi
	name=stencil_${lay}_1x2_$tag
	[ "$s" = 1 ] || name=${name}_x$s
	stmt='B[i, j] = 0.2 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] + A[i, j])'
	{
		echo "# 5-point stencil, f64 [$n1 x $n2], $lay over a 1x2 mesh, $s sweep(s)"
		echo "# (generated by bench/run.sh; do not edit)."
		echo "name: $name"
		echo "mesh: {axes: [x, y], shape: [1, 2]}"
		echo "tensors:"
		echo "  A: {shape: [$n1, $n2], dtype: f64, dist: $dist, init: random, seed: 1}"
		echo "  B: {shape: [$n1, $n2], dtype: f64, dist: $dist, file: B.npy}"
		if [ "$s" = 1 ]; then
			echo "compute: $stmt"
			echo "schedule:"
			printf '  - %s\n' "${sched[@]}"
		else
			echo "program:"
			echo "  - repeat: $s"
			echo "    steps:"
			echo "      - compute: $stmt"
			echo "        schedule:"
			printf '          - %s\n' "${sched[@]}"
		fi
	} > "$dir/$name.yaml"
	echo "$dir/$name.yaml"
}

# ideal_bytes ALG P Q M N K: the algorithm's ideal bytes_moved_total (f64)
# on a P x Q grid, one block per rank, S = 2 steps over k (|A|, |B| are the
# whole matrices: the blocks of a matrix add up to it).
ideal_bytes() {
	local alg=$1 p=$2 q=$3 m=$4 n=$5 k=$6 S=2 A B
	A=$((m * k * 8)) B=$((k * n * 8))
	case $alg in
	summa) echo $(((q - 1) * A + (p - 1) * B)) ;;   # A bcast along y, B along x
	pumma) echo $(((S - 1) * A + (p - 1) * B)) ;;   # A shifts along y, B bcast along x
	cannon) # A shifts along y, B along x, every step but the first
		echo $(((q > 1 ? (S - 1) * A : 0) + (p > 1 ? (S - 1) * B : 0))) ;;
	esac
}
# ideal_messages ALG P Q: the same in logical transfers (one per receiver
# and block).
ideal_messages() {
	local alg=$1 p=$2 q=$3 S=2
	case $alg in
	summa) echo $((p * q * (q - 1) + p * q * (p - 1))) ;;
	pumma) echo $((p * q * (S - 1) + p * q * (p - 1))) ;;
	cannon) echo $(((q > 1 ? p * q * (S - 1) : 0) + (p > 1 ? p * q * (S - 1) : 0))) ;;
	esac
}

# build_job JOB DIR: copy JOB into DIR and build it there (DIR/build);
# prints the copy's path; returns 1 (and records the problem) on failure.
build_job() {
	local src=$1 d=$2 name
	name=$(basename "$src" .yaml)
	mkdir -p "$d"
	cp "$src" "$d/"
	if ! (cd "$d" && timeout -k 10 "$tmo" "$dmd" build "$d/$name.yaml" -o "$d/build" \
		> build.out 2>&1); then
		problem "distmpmd build $name" "$(tail3 "$d/build.out")"
		return 1
	fi
	echo "$d/$name.yaml"
}

# run_dmd JOB: one launch of a built job (its build is beside it); prints
# the --stats line, or nothing (and records the problem).
run_dmd() {
	local job=$1 d name stats
	d=$(dirname "$job") name=$(basename "$job" .yaml)
	rm -f "$d/C.npy" "$d/B.npy"
	if ! (cd "$d" && timeout -k 10 "$tmo" "$dmd" run "$d/build" --stats \
		> run.out 2> run.err); then
		problem "distmpmd run $name" "$(tail3 "$d/run.err")"
		return 0
	fi
	stats=$(json_line "$d/run.out")
	[ -n "$stats" ] || { problem "distmpmd run $name" "no --stats line"; return 0; }
	echo "$stats"
}

# verify JOB [FILE]: bench/verify.py's one-line verdict (2 BLAS threads).
verify() {
	OPENBLAS_NUM_THREADS=2 timeout -k 10 "$tmo" $py "$here/verify.py" "$@" 2>&1 |
		tail -n 1 || true
}

# --------------------------------------------------------------------------
# Machine information.
cpu=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
pkgver() { dpkg-query -W -f '${Version}' "$1" 2>/dev/null || echo '?'; }
jlist() { if [ $# = 0 ]; then echo '[]'; else printf '%s\n' "$@" | paste -sd, - | sed 's/^/[/; s/$/]/'; fi; }
# shellcheck disable=SC2086
{
	printf '{"kind": "machine", "nproc": %s, "cpu": %s, "loadavg": %s, ' \
		"$(nproc)" "$(jstr "$cpu")" "$(jstr "$(cut -d' ' -f1-3 /proc/loadavg)")"
	printf '"date": %s, "commit": %s, "dirty": %s, ' \
		"$(jstr "$(date -u '+%Y-%m-%d %H:%M UTC')")" \
		"$(jstr "$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')")" \
		"$( [ -n "$(git -C "$top" status --porcelain --untracked-files=no -- . \
			':!bench/results.md' ':!bench/results.svg' ':!bench/jobs' 2>/dev/null)" ] &&
			echo true || echo false)"
	printf '"mpich": %s, "openblas": %s, "scalapack": %s, ' \
		"$(jstr "$(pkgver libmpich12)")" "$(jstr "$(pkgver libopenblas0-pthread)")" \
		"$(jstr "$(pkgver libscalapack-mpich2.2)")"
	printf '"openblas_coretype": %s, "distmpmd_cflags": %s, "compiler": %s, ' \
		"$( [ -n "${OPENBLAS_CORETYPE+x}" ] && jstr "$OPENBLAS_CORETYPE" || echo null)" \
		"$(jstr "${DISTMPMD_CFLAGS:-}")" "$(jstr "$dmd")"
	printf '"parts": %s, "sizes_1x2": %s, "sizes_2x2": %s, "stencil_n": %s, ' \
		"$(jstr "$parts")" "$(jlist $sizes12)" "$(jlist $sizes22)" "$stn"
	printf '"stencil_sweeps": %s, "reps": %s, "timeout_s": %s}\n' "$sweeps" "$reps" "$tmo"
} >> "$results"
say "machine: $(nproc) cores, $cpu; load $(cut -d' ' -f1-3 /proc/loadavg); parts: $parts; reps: $reps"
say "OPENBLAS_CORETYPE: ${OPENBLAS_CORETYPE-unset}; DISTMPMD_CFLAGS: ${DISTMPMD_CFLAGS-unset}"

# --------------------------------------------------------------------------
# The comparison programs.
blas_ok=1 pdgemm_ok=1 stencil_ok=1
# shellcheck disable=SC2046  # pkg-config output is meant to be split
if has_part gemm12 || has_part gemm22; then
	cc -O2 -std=gnu11 -Wall -Wextra $(pkg-config --cflags openblas) \
		-o "$tmp/blas_bench" "$here/blas_bench.c" $(pkg-config --libs openblas) -lm \
		|| { blas_ok=0; problem "build blas_bench" "compilation failed"; }
	$MPICC -O2 -std=gnu11 -Wall -Wextra -o "$tmp/pdgemm_bench" \
		"$here/pdgemm_bench.c" -lscalapack-mpich -lm \
		|| { pdgemm_ok=0; problem "build pdgemm_bench" \
			"compilation failed (is libscalapack-mpich-dev installed?)"; }
fi
if has_part stencil; then
	# The generated programs' flags: -O3 -Wall -Wextra, then DISTMPMD_CFLAGS.
	$MPICC -O3 -Wall -Wextra -o "$tmp/stencil_bench" "$here/stencil_bench.c" \
		"${user_cflags[@]+"${user_cflags[@]}"}" \
		|| { stencil_ok=0; problem "build stencil_bench" "compilation failed"; }
fi

mkdir -p "$jobs_dir"

# --------------------------------------------------------------------------
# 1. Small jobs against the independent reference (uneven, non-square).
if has_part checks; then
	say "part checks"
	chk() {  # JOB LABEL
		local job=$1 label=$2 d msg ok
		d=$(dirname "$job")
		if (cd "$d" && $py "$top/tests/ref/dmd_ref.py" inputs "$job" >/dev/null &&
			timeout -k 10 "$tmo" "$dmd" run "$job" > run.out 2> run.err); then
			msg=$($py "$top/tests/ref/dmd_ref.py" check "$job" 2>&1) && ok=true || ok=false
		else
			ok=false msg="run failed: $(tail3 "$d/run.err")"
		fi
		say "reference check $label: $msg"
		rec "{\"kind\": \"check_small\", \"what\": $(jstr "$label"), \"ok\": $ok, \"msg\": $(jstr "$msg")}"
	}
	for g in "1 2" "2 2"; do
		read -r p q <<< "$g"
		for alg in summa pumma cannon; do
			d=$tmp/check/${alg}_${p}x$q
			mkdir -p "$d"
			chk "$(gen_gemm $alg $p $q 192 160 256 "$d")" "$alg ${p}x$q M=192 N=160 K=256"
		done
	done
	for lay in rows cols; do
		for s in 1 3; do
			d=$tmp/check/stencil_${lay}_$s
			mkdir -p "$d"
			chk "$(gen_stencil $lay 37 53 $s "$d")" "stencil $lay 1x2 37x53, $s sweep(s)"
		done
	done
fi

# --------------------------------------------------------------------------
# 2. Class derivation time.
if has_part classes; then
	say "part classes"
	mark "classes: start"
	bash "$here/classes.sh" >> "$results" ||
		problem "classes.sh" "a distmpmd classes run failed (see the classes table)"
	mark "classes: end"
fi

# --------------------------------------------------------------------------
# 3. The stencil.
if has_part stencil; then
	say "part stencil (N = $stn)"
	mark "stencil: start"
	rm -f "$jobs_dir"/stencil_*.yaml
	declare -A sjob=()
	for lay in rows cols; do
		for s in 1 "$sweeps"; do
			src=$(gen_stencil $lay "$stn" "$stn" "$s" "$jobs_dir")
			name=$(basename "$src" .yaml)
			[ "$s" = 1 ] && key=$lay || key=${lay}_x
			if job=$(build_job "$src" "$tmp/stencil/$name"); then
				sjob[$key]=$job
			fi
			[ "$s" = 1 ] && [ "$sweeps" = 1 ] && sjob[${lay}_x]=${sjob[$lay]:-} && break
		done
	done
	ref_job=${sjob[rows]:-}   # the expected B of every method
	methods=(hand1 dmd:rows hand2 dmd:cols dmd:rows_x copy1 dmd:cols_x copy2)
	nm=${#methods[@]}
	for ((r = 1; r <= reps; ++r)); do
		mark "stencil: round $r"
		for ((i = 0; i < nm; ++i)); do
			meth=${methods[$(((i + r - 1) % nm))]}
			ld=$(load1)
			snap=$(cpu_snap)
			case $meth in
			dmd:*)
				key=${meth#dmd:}
				job=${sjob[$key]:-}
				[ -n "$job" ] || continue
				lay=${key%_x}
				[ "$key" = "$lay" ] && ns=1 || ns=$sweeps
				stats=$(run_dmd "$job")
				oth=$(others_since "$snap")
				[ -n "$stats" ] || continue
				v=null
				if [ $r = 1 ] || [ "${BENCH_VERIFY_ALL:-0}" = 1 ]; then
					out=$(dirname "$job")/B.npy
					# after any number of sweeps B is one sweep of A
					if [ -n "$ref_job" ]; then
						v=$(verify "$ref_job" "$out")
					else
						v="FAIL: no reference job (the rows job did not build)"
					fi
					say "stencil $key: verify: $v"
					v=$(jstr "$v")
				fi
				say "stencil $key rep $r: $stats"
				rec "{\"kind\": \"stencil\", \"method\": \"dmd_$key\", \"layout\": \"$lay\", \"sweeps\": $ns, \"n\": $stn, \"rep\": $r, \"load1\": $ld, \"others\": $oth, \"verify\": $v, \"ideal_bytes\": $((2 * (stn - 2) * 8 * ns)), \"stats\": $stats}"
				rm -f "$(dirname "$job")/B.npy"
				;;
			hand1 | hand2)
				[ $stencil_ok = 1 ] || continue
				np=${meth#hand}
				o=$tmp/stencil/$meth.out
				args=(sweep "$stn" "$sweeps")
				[ $r = 1 ] && args+=("$tmp/stencil/$meth.npy")
				if ! (cd "$tmp" && timeout -k 10 "$tmo" $MPIEXEC -n "$np" \
					./stencil_bench "${args[@]}" > "$o" 2>&1); then
					problem "hand-written stencil, $np rank(s)" "$(tail3 "$o")"
					continue
				fi
				oth=$(others_since "$snap")
				line=$(json_line "$o")
				[ -n "$line" ] || { problem "hand-written stencil, $np rank(s)" "no JSON line"; continue; }
				v=null
				if [ $r = 1 ]; then
					if [ -n "$ref_job" ]; then
						v=$(verify "$ref_job" "$tmp/stencil/$meth.npy")
					else
						v="FAIL: no reference job (the rows job did not build)"
					fi
					say "stencil $meth: verify: $v"
					v=$(jstr "$v")
					rm -f "$tmp/stencil/$meth.npy"
				fi
				say "stencil $meth rep $r: $line"
				rec "{\"kind\": \"stencil\", \"method\": \"$meth\", \"rep\": $r, \"load1\": $ld, \"others\": $oth, \"verify\": $v, ${line#\{}"
				;;
			copy1 | copy2)
				[ $stencil_ok = 1 ] || continue
				np=${meth#copy}
				o=$tmp/stencil/$meth.out
				if ! (cd "$tmp" && timeout -k 10 "$tmo" $MPIEXEC -n "$np" \
					./stencil_bench copy "$stn" "$sweeps" > "$o" 2>&1); then
					problem "copy bandwidth, $np process(es)" "$(tail3 "$o")"
					continue
				fi
				oth=$(others_since "$snap")
				line=$(json_line "$o")
				[ -n "$line" ] || { problem "copy bandwidth, $np process(es)" "no JSON line"; continue; }
				say "stencil $meth rep $r: $line"
				rec "{\"kind\": \"copy\", \"method\": \"$meth\", \"rep\": $r, \"load1\": $ld, \"others\": $oth, ${line#\{}"
				;;
			esac
		done
	done
	mark "stencil: end"
fi

# --------------------------------------------------------------------------
# 4, 5. Matrix products: gemm_part P Q SIZES.
gemm_part() {
	local p=$1 q=$2 sizes=$3 grid=$1x$2 nranks=$(($1 * $2))
	local n alg src name job methods nm r i meth ld stats v line o nb th d
	declare -A gjob=()
	rm -f "$jobs_dir"/{summa,pumma,cannon}_${grid}_*.yaml
	for n in $sizes; do
		[ $((n % 2)) = 0 ] || die "size $n is not even"
		for alg in summa pumma cannon; do
			src=$(gen_gemm $alg "$p" "$q" "$n" "$n" "$n" "$jobs_dir")
			name=$(basename "$src" .yaml)
			if job=$(build_job "$src" "$tmp/$grid/$name"); then
				gjob[$alg$n]=$job
			fi
		done
		# On a 1xQ grid Cannon degenerates to PUMMA: same emitted code?
		if [ "$p" = 1 ] && [ -n "${gjob[cannon$n]:-}" ] && [ -n "${gjob[pumma$n]:-}" ]; then
			local same=true f
			for f in "$(dirname "${gjob[pumma$n]}")"/build/*.c "$(dirname "${gjob[pumma$n]}")"/build/*.h; do
				if ! cmp -s <(sed "s/pumma_${grid}_n$n/JOB/g" "$f") \
					<(sed "s/cannon_${grid}_n$n/JOB/g" "$(dirname "${gjob[cannon$n]}")/build/$(basename "$f")" 2>/dev/null); then
					same=false
				fi
			done
			rec "{\"kind\": \"same_code\", \"grid\": \"$grid\", \"n\": $n, \"a\": \"cannon\", \"b\": \"pumma\", \"same\": $same}"
		fi
	done
	methods=(dmd:summa pd:n/2 blas:1 dmd:pumma pd:64 dmd:cannon blas:2)
	nm=${#methods[@]}
	for n in $sizes; do
		for ((r = 1; r <= reps; ++r)); do
			mark "gemm $grid n=$n: round $r"
			for ((i = 0; i < nm; ++i)); do
				meth=${methods[$(((i + r - 1) % nm))]}
				ld=$(load1)
				snap=$(cpu_snap)
				case $meth in
				dmd:*)
					alg=${meth#dmd:}
					job=${gjob[$alg$n]:-}
					[ -n "$job" ] || continue
					stats=$(run_dmd "$job")
					oth=$(others_since "$snap")
					[ -n "$stats" ] || continue
					v=null
					if [ $r = 1 ] || [ "${BENCH_VERIFY_ALL:-0}" = 1 ]; then
						v=$(verify "$job")
						say "$(basename "$job" .yaml): verify: $v"
						v=$(jstr "$v")
					fi
					say "$(basename "$job" .yaml) rep $r: $stats"
					rec "{\"kind\": \"gemm\", \"grid\": \"$grid\", \"method\": \"$alg\", \"n\": $n, \"rep\": $r, \"load1\": $ld, \"others\": $oth, \"ideal_bytes\": $(ideal_bytes "$alg" "$p" "$q" "$n" "$n" "$n"), \"ideal_messages\": $(ideal_messages "$alg" "$p" "$q"), \"verify\": $v, \"stats\": $stats}"
					rm -f "$(dirname "$job")/C.npy"
					;;
				pd:*)
					[ $pdgemm_ok = 1 ] || continue
					nb=${meth#pd:}
					[ "$nb" = n/2 ] && nb=$((n / 2))
					o=$tmp/pdgemm.out
					# one (cold) call per launch, like a distmpmd launch
					if ! (cd "$tmp" && timeout -k 10 "$tmo" $MPIEXEC -n $nranks \
						./pdgemm_bench "$n" "$n" "$n" "$nb" "$p" "$q" 0 > "$o" 2>&1); then
						problem "PDGEMM $grid n=$n NB=$nb" "$(tail3 "$o")"
					fi
					oth=$(others_since "$snap")
					line=$(json_line "$o")
					[ -n "$line" ] || continue
					say "PDGEMM $grid n=$n NB=$nb rep $r: $line"
					rec "{\"kind\": \"gemm\", \"grid\": \"$grid\", \"method\": \"pdgemm_${meth#pd:}\", \"n\": $n, \"rep\": $r, \"load1\": $ld, \"others\": $oth, ${line#\{}"
					;;
				blas:*)
					[ $blas_ok = 1 ] || continue
					th=${meth#blas:}
					o=$tmp/blas.out
					if ! OPENBLAS_NUM_THREADS=$th timeout -k 10 "$tmo" \
						"$tmp/blas_bench" "$n" "$n" "$n" 0 > "$o" 2>&1; then
						problem "DGEMM n=$n threads=$th" "$(tail3 "$o")"
					fi
					oth=$(others_since "$snap")
					line=$(json_line "$o")
					[ -n "$line" ] || continue
					say "DGEMM n=$n threads=$th rep $r: $line"
					rec "{\"kind\": \"gemm\", \"grid\": \"$grid\", \"method\": \"dgemm_$th\", \"n\": $n, \"rep\": $r, \"load1\": $ld, \"others\": $oth, ${line#\{}"
					;;
				esac
			done
		done
	done
	for d in "$tmp/$grid"/*/; do rm -rf "$d/build"; done
}

if has_part gemm12; then
	say "part gemm12 (1x2 grid, n in $sizes12)"
	mark "gemm 1x2: start"
	gemm_part 1 2 "$sizes12"
	mark "gemm 1x2: end"
fi
if has_part gemm22; then
	say "part gemm22 (2x2 grid, 4 ranks, n in $sizes22)"
	mark "gemm 2x2: start"
	gemm_part 2 2 "$sizes22"
	mark "gemm 2x2: end"
fi

if has_part auto; then
	say "part auto (automatic schedules vs hand schedules, plan only)"
	mark "auto: start"
	# BENCH_AUTO_QUICK=1: the small cases
	$py "$here/auto.py" ${BENCH_AUTO_QUICK:+--quick} \
		${BENCH_AUTO_TIMEOUT:+--plan-timeout "$BENCH_AUTO_TIMEOUT"} \
		--jsonl "$results" \
		> /dev/null || say "auto: a case failed or missed 1.02x"
	mark "auto: end"
fi
if has_part autotime; then
	say "part autotime (automatic schedules vs hand schedules, time)"
	mark "autotime: start"
	$py "$here/auto.py" --time --reps "$reps" --jsonl "$results" \
		> /dev/null || say "autotime: a case failed or missed 1.10x"
	mark "autotime: end"
fi

# --------------------------------------------------------------------------
mark "end"
rec "{\"kind\": \"end\", \"loadavg\": $(jstr "$(cut -d' ' -f1-3 /proc/loadavg)"), \"elapsed_s\": $(($(date +%s) - t_start))}"
# The raw records beside the report (report.py can render them again).
cp "$results" "${out_md%.md}.jsonl"
echo >&2
$py "$here/report.py" "$results" "$out_md" "${out_md%.md}.svg"
