# tests/cli/v2.sh: the v2 commands of the command line (spec section 2):
#   run --trace FILE, diff JOB A B, sweep JOB --set KEY=LIST ...,
#   classes JOB --svg FILE; and the man page's words for them.
#
# Sourced by tests/cli/run.sh (its helpers, counters and hostile working
# directory $W); never run on its own.  Every check asserts exact text,
# exact values or exact counts; XML is parsed with python3's xml.etree.

# ------------------------------------------------------------ run --trace

T="$W/trace 'a' \$(x)"
mkdir -p "$T"
cp "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$T/"
cd "$T"
"$PY" "$REF" inputs pumma_2x2.yaml >/dev/null
timeout 300 "$DMD" run pumma_2x2.yaml --stats --trace "tr ace.json" \
    </dev/null >"$base/out" 2>"$base/err"
rc=$?
same "run JOB --trace FILE --stats: exit 0, the statistics line" \
    '0: {"ranks": 4, "classes": 1,' "$rc: $(cut -c1-26 "$base/out")"
ref_check "$T/pumma_2x2.yaml"
check "... the output is right" $? "$(cat "$base/ref.out")"
same "... FILE relative to where distmpmd runs, the SVG beside it" \
    "tr ace.json|tr ace.svg" "$(ls -A | grep '^tr ace' | tr '\n' '|' | sed 's/|$//')"
got=$("$PY" - "tr ace.json" <<'PY' 2>&1
import collections, json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e["ph"] == "X"]
cats = collections.defaultdict(set)
for e in ev:
    cats[e["pid"]].add(e["cat"])
names = {e["pid"]: e["args"]["name"] for e in t["traceEvents"]
         if e["ph"] == "M" and e["name"] == "process_name"}
for p in sorted(cats):
    print(p, names.get(p), ",".join(sorted(cats[p])))
PY
)
same "... the JSON parses: every rank (pid 0..3) with compute, transfer, wait" \
    "0 rank 0 (class 0) compute,gemm,step,transfer,wait
1 rank 1 (class 0) compute,gemm,step,transfer,wait
2 rank 2 (class 0) compute,gemm,step,transfer,wait
3 rank 3 (class 0) compute,gemm,step,transfer,wait" "$got"
got=$(xml_check "tr ace.svg" '
print("|".join(t.text for t in svg.iter(NS + "text") if "rank" in cls(t)))
n = collections.Counter(c for r in svg.iter(NS + "rect") for c in cls(r))
print(n["transfer"] > 0, n["wait"] > 0, n["row"])')
same "... the SVG is well-formed XML: one row label per rank, transfers, waits" \
    "rank 0 (class 0)|rank 1 (class 0)|rank 2 (class 0)|rank 3 (class 0)
True True 4" "$got"

run_dmd run build/pumma_2x2 --trace "$T/timeline"
same "run DIR --trace FILE without an extension: FILE and FILE.svg" \
    "0 timeline timeline.svg" \
    "$rc $(ls -A | grep '^timeline' | tr '\n' ' ' | sed 's/ $//')"
run_dmd run pumma_2x2.yaml -o never --trace "no such dir/t.json"
same "--trace into a missing directory: the system's reason, exit 1" \
    "1: distmpmd: cannot write no such dir/t.json: No such file or directory" \
    "$rc: $err"
same "... reported before anything is built" "" "$(ls -d never 2>/dev/null)"
run_dmd run build/pumma_2x2 --trace t.svg
same "--trace FILE.svg is refused (the SVG would replace it)" \
    "2: distmpmd: run: --trace 't.svg': the SVG timeline is written beside the trace, as FILE.svg; give the trace another extension (.json)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd run build/pumma_2x2 --trace t.json --dry-run
same "--trace with --dry-run is refused" \
    "2: distmpmd: run: --trace needs a run: it cannot go with --dry-run" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# -------------------------------------------------------------------- diff

X="$W/diff \"q\" x"
mkdir -p "$X"
cp "$ROOT/tests/e2e/jobs/stencil3.yaml" "$X/"
cd "$X"
run_dmd diff stencil3.yaml 1 2
same "diff: ranks 1 and 2 of stencil3 run the same class" \
    "0: same class 1" "$rc: $out"
run_dmd diff stencil3.yaml 3 3
same "... as does a rank with itself" "0: same class 1" "$rc: $out"
"$DMD" build stencil3.yaml >/dev/null 2>&1
run_dmd diff stencil3.yaml 0 4
cp "$base/out" "$base/d04"
same "diff stencil3.yaml 0 4: exit 0, the headers name ranks and classes" \
    "0: --- rank 0 (class0.c)|+++ rank 4 (class2.c)" \
    "$rc: $(head -n 2 "$base/d04" | tr '\n' '|' | sed 's/|$//')"
diff -u build/stencil3/class0.c build/stencil3/class2.c | tail -n +3 \
    >"$base/gnu"
tail -n +3 "$base/d04" | cmp -s - "$base/gnu"
check "... the hunks are those of diff -u of the two class files" $? \
    "$(diff "$base/gnu" <(tail -n +3 "$base/d04") | head -n 20)"
same "... with 3 lines of context (hunk headers)" \
    "$(grep '^@@' "$base/gnu")" "$(grep '^@@' "$base/d04")"
patch -s -o "$base/patched" build/stencil3/class0.c "$base/d04" \
    >"$base/patch.log" 2>&1
check "... patch accepts it" $? "$(cat "$base/patch.log")"
cmp -s "$base/patched" build/stencil3/class2.c
check "... and turns class0.c into class2.c" $?
run_dmd diff stencil3.yaml 4 0
patch -s -o "$base/patched" build/stencil3/class2.c "$base/out" \
    >"$base/patch.log" 2>&1 && cmp -s "$base/patched" build/stencil3/class0.c
check "diff 4 0 turns class2.c into class0.c" $? "$(cat "$base/patch.log")"
run_dmd diff stencil3.yaml 0 5
same "diff with a rank outside the mesh: as emit --rank, exit 2" \
    "2: distmpmd: diff: RANK_B '5' is out of range (0 to 4)" "$rc: $err"
run_dmd diff stencil3.yaml x 1
same "... a rank that is not a number" \
    "2: distmpmd: diff: RANK_A 'x' is not an integer" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd diff stencil3.yaml 0 -1
same "... a negative rank (a number, not an option)" \
    "2: distmpmd: diff: RANK_B '-1' is out of range (0 to 4)" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd diff stencil3.yaml 0
same "... one rank only" \
    "2: distmpmd: diff: two ranks are needed: JOB RANK_A RANK_B" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd diff stencil3.yaml 0 1 2
same "... three ranks" "2: distmpmd: diff: unexpected argument '2'" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"

# --------------------------------------------------------- classes --svg

V="$W/svg <&> 'x'"
mkdir -p "$V"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$ROOT/tests/e2e/jobs/stencil3.yaml" \
    "$ROOT/tests/e2e/jobs/mm3d_2x2x2.yaml" "$V/"
cd "$V"

# svg_classes JOB: "RECTS|CLASSES OF THE RECTS|WIDTHS IN SQUARES|LEGEND|
# SLICES" of JOB.svg, and whether each legend tooltip is "class K: WHY"
# with the why of the text listing ($base/out)
svg_classes() {
    xml_check "$1.svg" '
cells = [r for r in svg.iter(NS + "rect") if "cell" in cls(r)]
side = min(float(r.get("height")) for r in cells)
legend = [g for g in svg.iter(NS + "g") if "legend-entry" in cls(g)]
whys = [l[len("  why: "):] for l in open(sys.argv[2]).read().split("\n")
        if l.startswith("  why: ")]
print(len(cells), " ".join(cls(r)[1] for r in cells),
      " ".join("%g" % (float(r.get("width")) / side) for r in cells),
      "|".join(g.find(NS + "text").text for g in legend),
      "|".join(t.text for t in svg.iter(NS + "text") if "slice" in cls(t)),
      sep="; ")
print([title(g) for g in legend] ==
      ["class %d: %s" % (k, w) for k, w in enumerate(whys)])' "$base/out"
}

"$DMD" classes tail.yaml >"$base/plain"
run_dmd classes tail.yaml --svg "tail map.svg"
same "classes tail.yaml --svg FILE: exit 0, the same listing on stdout" \
    "0 same" "$rc $(cmp -s "$base/out" "$base/plain" && echo same)"
mv "tail map.svg" tail.svg
same "... 2 classes: 2 rects, one per rank; the legend; why as tooltips" \
    "2; c0 c1; 1 1; class 0 (0): 1 rank|class 1 (1): 1 rank; 
True" "$(svg_classes tail)"
run_dmd classes stencil3.yaml --svg stencil3.svg
same "stencil3 (0 1 1 1 2): 3 rects, the middle one 3 squares wide" \
    "0: 3; c0 c1 c2; 1 3 1; class 0 (0): 1 rank|class 1 (1): 3 ranks|class 2 (2): 1 rank; 
True" "$rc: $(svg_classes stencil3)"
run_dmd classes mm3d_2x2x2.yaml --svg mm3d.svg
mv mm3d.svg mm3d_2x2x2.svg
same "a 3-D mesh (2x2x2): 2 slices of 2x2, classes alternating: 8 rects" \
    "0: 8; c0 c1 c0 c1 c0 c1 c0 c1; 1 1 1 1 1 1 1 1; class 0 (0): 4 ranks|class 1 (1): 4 ranks; x = 0|x = 1
True" "$rc: $(svg_classes mm3d_2x2x2)"
got=$(xml_check mm3d_2x2x2.svg '
print("|".join(t.text for t in svg.iter(NS + "text") if "axis" in cls(t)))
print("|".join([title(r) for r in svg.iter(NS + "rect") if "cell" in cls(r)][:3]))')
same "... with the axis names, extents and each rect's ranks as tooltip" \
    "z → (2)|y ↓|(2)|z → (2)|y ↓|(2)
rank 0 (x = 0, y = 0, z = 0): class 0|rank 1 (x = 0, y = 0, z = 1): class 1|rank 2 (x = 0, y = 1, z = 0): class 0" \
    "$got"

# A 512x512 mesh: one rect per run of a class in a row; count the runs
# of the text picture (one character per rank) independently.
run_dmd classes "$ROOT/tests/scale/summa_tail_512x512.yaml" --svg big.svg
want=$(printf '%s\n' "$out" | "$PY" -c '
import sys, itertools
lines = sys.stdin.read().split("\n")
rows = lines[lines.index("mesh by class (x down, y across):") + 1:]
rows = [r.strip() for r in rows if r.strip()]
assert len(rows) == 512 and all(len(r) == 512 for r in rows)
print(sum(len(list(itertools.groupby(r))) for r in rows))')
got=$(xml_check big.svg '
print(sum(1 for r in svg.iter(NS + "rect") if "cell" in cls(r)))')
same "a 512x512 mesh: exactly one rect per run of a class in a row ($want)" \
    "0: $want" "$rc: $got"
size=$(stat -c %s big.svg)
check "... a file of less than 1 MB ($size bytes)" \
    $([ "$size" -lt 1000000 ] && echo 0 || echo 1)
run_dmd classes tail.yaml --svg "no dir/x.svg"
same "--svg into a missing directory: the system's reason, exit 1, no listing" \
    "1: distmpmd: cannot write no dir/x.svg: No such file or directory|" \
    "$rc: $err|$out"

# ------------------------------------------------------------------ sweep

Z="$W/sweep 'z' \$(y)"
mkdir -p "$Z"
cp "$ROOT/tests/e2e/jobs/tail.yaml" "$ROOT/tests/e2e/jobs/pumma_2x2.yaml" "$Z/"
cd "$Z"

# The tail job over 126..129 rows (X and Y share the extent of m).  Over
# 2 ranks, E rows are blocks of s = ceil(E/2) and E - s (spec 1.2): the
# two ranks run the same code exactly when the blocks are equal, so an
# even E gives 1 class and an odd one 2.  W is replicated: no byte moves.
want=""
for e in 126 127 128 129; do
    s=$(( (e + 1) / 2 ))
    want="$want$e,$e,2,$([ $s = $((e - s)) ] && echo 1 || echo 2),0,0|"
done
timeout 600 "$DMD" sweep tail.yaml \
    --set 'tensors.X.shape[0],tensors.Y.shape[0]=126:129' --ref \
    -o "tail sweep.csv" --svg "tail sweep.svg" \
    </dev/null >"$base/out" 2>"$base/err"
rc=$?
same "sweep tail.yaml --set X,Y rows=126:129 --ref -o CSV --svg: exit 0, a summary" \
    "0: distmpmd: sweep: 4 points of tail in build/tail-sweep: tail sweep.csv, tail sweep.svg" \
    "$rc: $(cat "$base/out")"
same "... one progress line per point on stderr" \
    "distmpmd: sweep: point 1/4: tensors.X.shape[0],tensors.Y.shape[0]=126
distmpmd: sweep: point 2/4: tensors.X.shape[0],tensors.Y.shape[0]=127
distmpmd: sweep: point 3/4: tensors.X.shape[0],tensors.Y.shape[0]=128
distmpmd: sweep: point 4/4: tensors.X.shape[0],tensors.Y.shape[0]=129" \
    "$(cat "$base/err")"
same "... the CSV header: the keys, then the columns" \
    "tensors.X.shape[0],tensors.Y.shape[0],ranks,classes,bytes_moved_total,messages,time_s,gflops,max_rel_err" \
    "$(head -n 1 "tail sweep.csv")"
same "... a row per point: classes by the block formula, 0 bytes, 0 messages" \
    "$want" "$(tail -n +2 "tail sweep.csv" | cut -d, -f1-6 | tr '\n' '|')"
got=$(tail -n +2 "tail sweep.csv" | awk -F, '
    { ok = NF == 9 && $7 > 0 && $8 > 0 && $9 != "" && $9 + 0 < 1e-4 &&
          $7 ~ /^[0-9.e-]+$/ && $8 ~ /^[0-9.e+-]+$/ && $9 ~ /^[0-9.e+-]+$/
      print ok }' | tr '\n' ' ')
same "... time_s and gflops positive, max_rel_err below the f32 tolerance 1e-4" \
    "1 1 1 1 " "$got"
got=""
for n in 1 2 3 4; do
    got="$got $("$DMD" classes "build/tail-sweep/point-$n/tail.yaml" | head -n 1 | sed 's/.*, //')"
done
same "... distmpmd classes of each point's job agrees" \
    " 1 class 2 classes 1 class 2 classes" "$got"
got=$("$PY" -c '
import sys, yaml
for n in range(1, 5):
    d = yaml.safe_load(open("build/tail-sweep/point-%d/tail.yaml" % n))
    t = d["tensors"]
    print(t["X"]["shape"], t["Y"]["shape"], t["W"]["shape"], t["Y"]["file"],
          t["X"]["dist"])' 2>&1)
same "... each point's job: the fields set, the rest (file:, dist) as it was" \
    "[126, 128] [126, 128] [128, 128] Y.npy ['x', '-']
[127, 128] [127, 128] [128, 128] Y.npy ['x', '-']
[128, 128] [128, 128] [128, 128] Y.npy ['x', '-']
[129, 128] [129, 128] [128, 128] Y.npy ['x', '-']" "$got"
same "... outputs in the point's directory, not beside the job" \
    "Y.npy build ref-check.txt ref-inputs.txt stats.json tail.yaml|pumma_2x2.yaml tail sweep.csv tail sweep.svg tail.yaml build" \
    "$(ls build/tail-sweep/point-2 | tr '\n' ' ' | sed 's/ $//')|$(ls | grep -v '^build$' | tr '\n' ' ')build"
got=$(xml_check "tail sweep.svg" '
n = collections.Counter(" ".join(cls(c)) for c in svg.iter(NS + "circle"))
def labels(w):
    return [t.text for t in svg.iter(NS + "text") if cls(t) == ["label", w]]
ticks = [t.text for t in svg.iter(NS + "text") if "xtick" in cls(t)]
print(n["point classes"], n["point bytes"], n["point time"],
      n["point gflops"], " ".join(labels("classes") + labels("bytes")),
      " ".join(ticks))
print(title(next(svg.iter(NS + "circle"))))
print(" ".join(labels("time")), " ".join(labels("gflops")))')
same "... the plot: 4 labelled points per panel (classes, bytes, time, GFLOP/s) against the first key" \
    "4 4 4 4 1 2 1 2 0 0 0 0 $(printf '126 127 128 129 %.0s' 1 2 3 4 | sed 's/ $//')
tensors.X.shape[0],tensors.Y.shape[0]=126: 1 classes
$(tail -n +2 "tail sweep.csv" | cut -d, -f7 | tr '\n' ' ')$(tail -n +2 "tail sweep.csv" | cut -d, -f8 | tr '\n' ' ' | sed 's/ $//')" \
    "$got"

# A mesh sweep without runs; the CSV on standard output.
run_dmd sweep pumma_2x2.yaml --set 'mesh.shape=[2,2];[2,3];[3,3]' --no-run \
    --work "w 'd'"
same "sweep --set mesh.shape=[2,2];[2,3];[3,3] --no-run: the CSV on stdout" \
    '0: mesh.shape,ranks,classes,bytes_moved_total,messages,time_s,gflops,max_rel_err
"[2,2]",4,1,,,,,
"[2,3]",6,3,,,,,
"[3,3]",9,9,,,,,' "$rc: $out"
got=""
for n in 1 2 3; do
    got="$got $("$DMD" classes "w 'd'/point-$n/pumma_2x2.yaml" | head -n 1 | sed 's/^job pumma_2x2: //')"
done
same "... ranks the product of the shape, classes as distmpmd classes says" \
    " 4 ranks, 1 class 6 ranks, 3 classes 9 ranks, 9 classes" "$got"
same "... nothing built or run" "pumma_2x2.yaml" \
    "$(ls -A "w 'd'/point-3" | tr '\n' ' ' | sed 's/ $//')"
run_dmd sweep pumma_2x2.yaml --set 'mesh.shape[0]=1:2' \
    --set 'mesh.shape[1]=2,3' --no-run --svg product.svg
same "two --set: the product, the first varying slowest" \
    "0: 1,2,2|1,3,3|2,2,4|2,3,6" \
    "$rc: $(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1-3 | tr '\n' '|' | sed 's/|$//')"
got=$(xml_check product.svg '
n = collections.Counter(" ".join(cls(c)) for c in svg.iter(NS + "circle"))
print(n["point classes"], n["point bytes"], len(list(svg.iter(NS + "polyline"))),
      "|".join(g.find(NS + "text").text for g in svg.iter(NS + "g") if "series" in cls(g)),
      "|".join(t.text for t in svg.iter(NS + "text") if "empty" in cls(t)))')
same "... the plot: a line per value of the second key; no bytes, time, GFLOP/s without runs" \
    "4 0 2 mesh.shape[1]=2|mesh.shape[1]=3 not measured (--no-run)|not measured (--no-run)|not measured (--no-run)" "$got"

# A point that fails: the rows before it stay.  The message locates the
# error in the point's job (as emitted: without the two comment lines of
# tail.yaml, X is on line 4).
run_dmd sweep tail.yaml --set 'tensors.X.shape=[127,128];[127]' --no-run \
    -o failed.csv
same "a failing point stops the sweep: exit 1, the reader's message, the point" \
    "1: build/tail-sweep/point-2/tail.yaml:4:39: error: 'dist' of tensor 'X' has 2 entries but the tensor has 1 dimension|distmpmd: sweep: point 2/2 failed (tensors.X.shape=[127]); 1 row written" \
    "$rc: $(printf '%s\n' "$err" | grep -v ': point [0-9]/2: ' | tr '\n' '|' | sed 's/|$//')"
same "... the rows before it are kept" \
    "tensors.X.shape,ranks,classes,bytes_moved_total,messages,time_s,gflops,max_rel_err
\"[127,128]\",2,2,,,,," "$(cat failed.csv)"

# Bad --set arguments: exit 2 before any point, the key named.
rm -rf build/pumma_2x2-sweep
for t in \
    "tensors.Q.shape=[1]|the job has no field 'tensors.Q'" \
    "tensors.A.size=[1]|the job has no field 'tensors.A.size'" \
    "mesh.shape[2]=4|'mesh.shape' has 2 entries: there is no [2]" \
    "tensors.A=4|'tensors.A' is not a value or a list of values" \
    "mesh..shape=4|'mesh..shape' is not a field name (names joined by '.', each optionally followed by [INDEX], as tensors.A.shape[0])" \
    "mesh.shape=2,3|'mesh.shape' is a list: give each value in brackets, as [2,3]" \
    "mesh.shape[0]=[2]|'mesh.shape[0]' holds one value, not a list: '[2]'" \
    "mesh.shape[0]=3:1|'3:1' is not a range START:STOP or START:STOP:STEP (START <= STOP, STEP >= 1)" \
    "mesh.shape[0]=2,x|'x' is not a number" \
    "mesh.shape[0]=1:100000|more than 10000 values" \
    "mesh.shape|is not KEY=LIST"; do
    arg=${t%%|*}
    msg=${t#*|}
    run_dmd sweep pumma_2x2.yaml --set "$arg" --no-run
    case $msg in
        "is not KEY=LIST") msg="distmpmd: sweep: --set '$arg' $msg" ;;
        *) msg="distmpmd: sweep: --set '$arg': $msg" ;;
    esac
    same "sweep --set '$arg' is refused (exit 2)" "2: $msg" "$rc: $err"
done
same "... and nothing ran" "" "$(ls -d build/pumma_2x2-sweep 2>/dev/null)"
run_dmd sweep pumma_2x2.yaml --no-run
same "sweep without --set" \
    "2: distmpmd: sweep: nothing to sweep: give --set KEY=LIST" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd sweep pumma_2x2.yaml --set 'mesh.shape[0]=2' --no-run --ref
same "sweep --no-run --ref" \
    "2: distmpmd: sweep: --ref checks the outputs of the runs: it cannot go with --no-run" \
    "$rc: $(printf '%s\n' "$err" | head -n 1)"
run_dmd sweep pumma_2x2.yaml --set 'mesh.shape[0]=2' --ref=/nonexistent/dmd_ref.py
same "sweep --ref=PATH that does not exist" \
    "2: distmpmd: sweep: --ref=/nonexistent/dmd_ref.py: No such file or directory" \
    "$rc: $err"

# Cancelling a sweep stops its current run and the sweep.
cd "$S"
sweep_bin="$S/build/slow-sweep/point-1/build/class0"
"$DMD" sweep slow.yaml --set 'tensors.X.shape[1],tensors.W.shape[0]=2048,2049' \
    -o "$base/cancel.csv" </dev/null >"$base/cancel.out" 2>"$base/cancel.err" &
pid=$!
if wait_for 120 exe_count_is "$sweep_bin" 2; then
    sleep 0.5
    kill -TERM $pid
    wait $pid
    rc=$?
    same "SIGTERM to a sweep during a run: exit 1, the run and the sweep say so" \
        "1: distmpmd: run cancelled by signal 15 (Terminated)|distmpmd: sweep cancelled by signal 15 (Terminated)" \
        "$rc: $(tail -n 2 "$base/cancel.err" | tr '\n' '|' | sed 's/|$//')"
    same "... no distmpmd, mpiexec or rank is left" "" "$(procs_in "$S")"
    same "... the CSV has its header only" \
        "tensors.X.shape[1],tensors.W.shape[0],ranks,classes,bytes_moved_total,messages,time_s,gflops,max_rel_err" \
        "$(cat "$base/cancel.csv")"
else
    fail "a sweep of the slow job starts its ranks" "$(cat "$base/cancel.err")"
    kill -KILL $pid
    wait $pid
fi

# ---------------------------------------------------------------- man page

if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$ROOT/doc/distmpmd.1" 2>&1)
    same "doc/distmpmd.1 renders without a warning (groff -ww)" "" "$warn"
    MANWIDTH=80 man -l "$ROOT/doc/distmpmd.1" >"$base/man.txt" 2>&1 </dev/null
    rc=$?
    for word in "distmpmd diff" "distmpmd sweep" --trace --svg --set \
            --no-run --ref --work "same class" DMD_TRACE max_rel_err \
            point-N; do
        grep -qF -- "$word" "$base/man.txt" || rc="$rc, no $word"
    done
    same "... it describes run --trace, diff, sweep and classes --svg" 0 "$rc"
fi
