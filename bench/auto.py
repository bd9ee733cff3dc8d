#!/usr/bin/python3
"""bench/auto.py: the automatic schedules of distmpmd (spec 1.6) against
hand-written schedules and the lower bound, in bytes at the busiest
receiver.

For each case (a matrix product m x n x k on a 1-D mesh of P ranks, A, B
and C in row blocks over the ranks, f64), it writes the job without a
schedule and the same job with each hand schedule, runs `distmpmd plan
--json` on each (the exact cost model: the bytes that `run --stats`
measures), and reports the automatic plan's bytes_recv_max against the
best hand schedule's (goal: at most 1.02x) and against the
memory-independent lower bound of Al Daas, Ballard, Grigori, Kumar and
Rouse (SPAA 2022) for the data a processor must receive.

The hand schedules, written here from the textbook algorithms (not taken
from the search):
  1-D on m, n, k        distribute one loop over the P ranks, tensorize
  2-D on every p x q    views of Q ranks (P >= Q >= 0.9 P, p, q >= 2):
                        SUMMA (k in lcm(p, q) panels, communicate A and B
                        at each) and the whole k at once
  3-D on every p x q x s  distribute m, n and k (split reduction)
With mesh.memory, a hand plan whose busiest rank needs more is not
counted ("beyond memory"); a SUMMA or 3-D one is written again with k in
more panels (3-D as 2.5-D: SUMMA within each layer, lcm(p, q) panels and
at least 4), the least count (doubling) whose estimate fits, planned
again until it fits or k runs out.

    bench/auto.py [--quick] [--case NAME]... [--plan-timeout S] [--jsonl FILE]
    bench/auto.py --time [--reps N] [--jsonl FILE]

prints the table (Markdown) on stdout; --jsonl appends one record per
case (kind "auto": bench/run.sh's part `auto`, rendered by report.py);
--quick: small cases only; --case NAME (repeatable): only the cases of
that name (the 64-rank ones take 30-60 minutes each here: some 80 hand
plans on views of a 1-D mesh of 64 ranks, 5-40 s each); --plan-timeout
S: a hand plan that takes more than S seconds is stopped and counted as
unfinished (the table says how many; the case then cannot meet the goal,
as the best hand plan may be among them; so does a hand plan that
distmpmd refuses).  Exit status 1 if a plan failed, a hand plan did not
finish or was refused, or the automatic plan is above 1.02x the best
hand schedule.

--time (the issue's time goal, on jobs that run here: <= 8 ranks): for
each of TIME_CASES it builds the automatic job and every hand schedule,
runs them with `distmpmd run --stats` N rounds (default 5), the methods
interleaved and their order rotated each round, and compares the medians
of `time_s` (the slowest rank's compute phase, transfers included): the
automatic plan's against the best hand schedule's (goal: at most 1.10x).
Every run's C.npy is checked against the sequential reference
(`distmpmd ref check`) once per method.  Records of kind "auto_time";
exit status 1 if a run failed, a result was wrong or the goal was missed.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DMD = os.environ.get("DISTMPMD", os.path.join(HERE, "..", "bin", "distmpmd"))

# (name, m, n, k, P, memory or None)
CASES = [
    ("tall-skinny", 1 << 20, 512, 512, 64, None),
    ("long-k", 512, 512, 1 << 20, 64, None),
    ("square", 8192, 8192, 8192, 64, None),
    ("flat", 65536, 65536, 256, 64, None),
    ("square, prime P", 4096, 4096, 4096, 61, None),
    ("square, P = 96", 6144, 6144, 6144, 96, None),
    ("square, memory-capped", 8192, 8192, 8192, 64, "80MiB"),
]
QUICK = [
    ("tall-skinny", 4096, 64, 64, 8, None),
    ("long-k", 64, 64, 4096, 8, None),
    ("square", 512, 512, 512, 8, None),
    ("square, P = 12", 480, 480, 480, 12, None),
    ("square, prime P", 512, 512, 512, 11, None),
    ("long-k, memory-capped", 512, 512, 2048, 8, "4MiB"),
]


def job_text(name, m, n, k, P, memory, views=None, schedule=None):
    """The job: mesh [P] (axis r), A, B, C in row blocks, f64."""
    mesh = "mesh:\n  axes: [r]\n  shape: [%d]\n" % P
    if memory:
        mesh += "  memory: %s\n" % memory
    if views:
        mesh += "  views: {%s}\n" % ", ".join(
            "%s: {axes: [%s], shape: [%s]}" % (v, ", ".join(ax),
                                               ", ".join(map(str, sh)))
            for v, ax, sh in views)
    text = ("name: %s\n%s"
            "tensors:\n"
            "  A: {shape: [%d, %d], dtype: f64, dist: [r, \"-\"], init: random}\n"
            "  B: {shape: [%d, %d], dtype: f64, dist: [r, \"-\"], init: random}\n"
            "  C: {shape: [%d, %d], dtype: f64, dist: [r, \"-\"], file: C.npy}\n"
            "compute: C[m, n] = A[m, k] * B[k, n]\n"
            % (name, mesh, m, k, k, n, m, n))
    if schedule is not None:
        text += "schedule:\n" + "".join("  - %s\n" % c for c in schedule)
    return text


def factor2(Q):
    return [(p, Q // p) for p in range(2, Q // 2 + 1) if Q % p == 0]


def factor3(Q):
    out = []
    for p in range(2, Q + 1):
        if Q % p:
            continue
        for q, s in factor2(Q // p):
            out.append((p, q, s))
    return out


def hand_schedules(P):
    """(label, views, schedule) of every hand schedule for P ranks."""
    out = [
        ("1-D on m", None, ["distribute([m], [mo], [mi], [r])",
                            "tensorize([mi, n, k], gemm)"]),
        ("1-D on n", None, ["distribute([n], [no], [ni], [r])",
                            "tensorize([m, ni, k], gemm)"]),
        ("1-D on k", None, ["distribute([k], [ko], [ki], [r])",
                            "tensorize([m, n, ki], gemm)"]),
    ]
    for Q in range(P, int(math.ceil(0.9 * P)) - 1, -1):
        idle = "" if Q == P else ", %d idle" % (P - Q)
        for p, q in factor2(Q):
            v = [("g", ["a", "b"], [p, q])]
            dist = "distribute([m, n], [mo, no], [mi, ni], [a, b])"
            panels = p * q // math.gcd(p, q)
            out.append(("SUMMA %dx%d%s" % (p, q, idle), v, [
                dist, "divide(k, ko, ki, %d)" % panels,
                "reorder(mo, no, ko, mi, ni, ki)",
                "communicate([A, B], ko)",
                "tensorize([mi, ni, ki], gemm)"]))
            out.append(("2-D %dx%d, whole k%s" % (p, q, idle), v, [
                dist, "tensorize([mi, ni, k], gemm)"]))
        for p, q, s in factor3(Q):
            v = [("c", ["a", "b", "c3"], [p, q, s])]
            out.append(("3-D %dx%dx%d%s" % (p, q, s, idle), v, [
                "distribute([m, n, k], [mo, no, ko], [mi, ni, ki], "
                "[a, b, c3])", "tensorize([mi, ni, ki], gemm)"]))
    return out


def mem_bytes(mem):
    """The bytes of a mesh.memory value ("80MiB", "240000")."""
    for suf, f in (("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)):
        if mem.endswith(suf):
            return int(mem[:-len(suf)]) * f
    return int(mem)


def panel_schedule(label, views, sched, panels):
    """The hand schedule "sched" (SUMMA, or 3-D: then 2.5-D, SUMMA within
    each layer) with k in "panels" panels."""
    if label.startswith("SUMMA"):
        return ("%s, %d panels" % (label, panels), views,
                [sched[0], "divide(k, ko, ki, %d)" % panels] + sched[2:])
    return (label.replace("3-D", "2.5-D", 1) + ", %d panels" % panels,
            views, [sched[0], "divide(ki, ko2, ki2, %d)" % panels,
                    "reorder(mo, no, ko, ko2, mi, ni, ki2)",
                    "communicate([A, B], ko2)",
                    "tensorize([mi, ni, ki2], gemm)"])


def panel_block(label, views, m, n, k, size=8):
    """Where a hand SUMMA or 3-D schedule over "views" needs more than
    mesh.memory, what a user would write next: k in more panels (3-D
    becomes 2.5-D: SUMMA within each layer).  Panels are held two at a
    time (the next received while the last is multiplied), so k's part of
    the A and B blocks, "blk" bytes in all, takes blk * 2 / L with L > 2
    panels, else blk.  Returns (the first panel count: lcm(p, q), at
    least 4 for 2.5-D; the most panels: k's extent, within a layer;
    blk), or None for other schedules."""
    (_, _, sh), = views
    p, q = sh[0], sh[1]
    l = p * q // math.gcd(p, q)
    if label.startswith("SUMMA"):
        kk = k
    elif label.startswith("3-D"):
        kk = -(-k // sh[2])
        l *= -(-4 // l)
    else:
        return None
    return l, kk, (-(-m // p) * kk + kk * -(-n // q)) * size


def panel_held(blk, L):
    """The bytes of k's part of the A and B blocks held with L panels
    (0: the whole block at once)."""
    return blk * 2 / L if L > 2 else blk


def lower_bound(m, n, k, P, size=8):
    """Bytes some processor must receive (Al Daas et al., SPAA 2022,
    memory-independent; one copy of each matrix spread evenly at the
    start): for sorted d1 >= d2 >= d3 the data a processor must access,
    less its share of the three matrices."""
    d1, d2, d3 = sorted((m, n, k), reverse=True)
    if P <= d1 / d2:
        access = (d1 * d2 + d1 * d3) / P + d2 * d3
    elif P <= d1 * d2 / d3 ** 2:
        access = 2 * math.sqrt(d1 * d2 * d3 * d3 / P) + d1 * d2 / P
    else:
        access = 3 * (d1 * d2 * d3 / P) ** (2.0 / 3)
    own = (d1 * d2 + d1 * d3 + d2 * d3) / P
    return max(0.0, access - own) * size


def plan(path, timeout=3600):
    """plan --json of the job at "path": (the plan or None, seconds, None
    or the last line of the error); "timeout" in the error if it did not
    finish within "timeout" seconds."""
    t0 = time.time()
    try:
        r = subprocess.run([DMD, "plan", path, "--json"],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.time() - t0, ["timeout"]
    dt = time.time() - t0
    if r.returncode != 0:
        return None, dt, r.stderr.strip().splitlines()[-1:] or ["?"]
    return json.loads(r.stdout), dt, None


HEAD = ["## Automatic schedules against hand schedules", "",
        "Bytes received by the busiest rank (`plan --json` "
        "`bytes_recv_max`, the exact model: what `run --stats` measures), "
        "f64, A, B and C in row blocks over a 1-D mesh of P ranks "
        "(`bench/auto.py`). *best hand*: the least of the hand schedules "
        "(1-D on m, n, k; SUMMA and whole-k 2-D on every 2-factor view; 3-D "
        "on every 3-factor view; views of 0.9 P to P ranks; under "
        "mesh.memory only the plans within it, SUMMA and 3-D beyond it "
        "written again with more panels, 3-D as 2.5-D); *LB*: the "
        "memory-independent lower bound of the data the busiest processor "
        "must receive (Al Daas et al., SPAA 2022), which assumes the "
        "matrices start spread evenly in whatever layout suits the "
        "algorithm (here the declared row blocks may need moving first: "
        "long-k products are far above it for every schedule).", "",
        "| case | m x n x k | P | auto: algorithm | auto B | best hand | "
        "hand B | auto / hand | auto / LB | hand plans | auto plan s |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]


def table(recs):
    """The Markdown table of the records of kind "auto"; and whether
    every case met the goal (auto at most 1.02x the best hand)."""
    lines = list(HEAD)
    ok = True
    for r in recs:
        if r.get("error"):
            lines.append("| %s | | %d | plan failed: %s | | | | | | | |"
                         % (r["case"], r["P"], r["error"]))
            ok = False
            continue
        hb, ab, lb = r["hand_bytes"], r["auto_bytes"], r["lower_bound"]
        ratio = ab / hb if hb else float("inf") if ab else 1.0
        late = r.get("unfinished", [])
        refused = r.get("refused", [])
        ok &= hb is not None and ab <= 1.02 * hb and not late and \
            not refused
        lines.append("| %s%s | %d x %d x %d | %d | %s | %d | %s | %s | "
                     "%.3f | %s | %s | %.1f |" % (
                         r["case"], " (%s)" % r["memory"] if r["memory"]
                         else "", r["m"], r["n"], r["k"], r["P"],
                         r["auto"], ab, r["hand"], hb, ratio,
                         "%.2f" % (ab / lb) if lb > 0 else "-",
                         "%d%s%s%s" % (r["hand_plans"],
                                     " (%d beyond memory)" % r["beyond"]
                                     if r.get("beyond") else "",
                                     " (%d unfinished: %s)" % (
                                         len(late), ", ".join(late))
                                     if late else "",
                                     " (%d refused: %s)" % (
                                         len(refused), ", ".join(refused))
                                     if refused else ""),
                         r["plan_s"]))
    return lines, ok


def run_case(tmp, name, m, n, k, P, mem, plan_timeout=3600):
    """The record of one case: the automatic plan and every hand one
    (each stopped after "plan_timeout" seconds: unfinished)."""
    rec = {"kind": "auto", "case": name, "m": m, "n": n, "k": k, "P": P,
           "memory": mem}
    path = os.path.join(tmp, "auto.yaml")
    with open(path, "w") as f:
        f.write(job_text("auto", m, n, k, P, mem))
    auto, dt, err = plan(path)
    if auto is None:
        rec["error"] = err[0]
        return rec
    st = auto["steps"][0]
    chosen = [c["algorithm"] for c in st["candidates"] if c["chosen"]]
    if not chosen:
        # every candidate beyond mesh.memory (or refused): no plan
        rec["error"] = ("the search found no candidate within "
                        "mesh.memory" if mem else
                        "the search found no candidate")
        return rec
    rec["auto"] = chosen[0]
    rec["auto_bytes"] = auto["bytes_recv_max"]
    rec["plan_s"] = round(dt, 2)
    best, best_label, n_ok, late, refused = None, None, 0, [], []
    beyond = []
    cap = mem_bytes(mem) if mem else None
    # (label, views, schedule, the schedule without panels, its label,
    # panels: 0 for the hand schedules as written)
    todo = [(lb, v, sc, sc, lb, 0) for lb, v, sc in hand_schedules(P)]
    while todo:
        label, views, sched, base, blabel, cur = todo.pop(0)
        hp = os.path.join(tmp, "hand.yaml")
        with open(hp, "w") as f:
            f.write(job_text("hand", m, n, k, P, mem, views, sched))
        h, dt, err = plan(hp, plan_timeout)
        if err == ["timeout"]:
            print("  %s: %s: did not finish within %g s" % (
                name, label, plan_timeout), file=sys.stderr)
            late.append(label)
            continue
        if h is None:
            print("  %s: %s: refused: %s" % (name, label, err[0]),
                  file=sys.stderr)
            refused.append(label)
            continue
        n_ok += 1
        b = h["bytes_recv_max"]
        if cap is not None and h["mem_max"] > cap:
            # beyond mesh.memory: not a plan a user can run; with more
            # panels it may fit: the least count whose estimate fits
            # (then planned exactly, and doubled again if beyond)
            print("  %s: %s: %d B, %d B memory: beyond mesh.memory "
                  "(%.1f s)" % (name, label, b, h["mem_max"], dt),
                  file=sys.stderr)
            beyond.append(label)
            pb = panel_block(blabel, views, m, n, k) if views else None
            if pb:
                l, kk, blk = pb
                if cur == 0 and blabel.startswith("SUMMA"):
                    cur = l
                held = panel_held(blk, cur)
                L = max(l, 2 * cur)
                while L <= kk and h["mem_max"] - held + \
                        panel_held(blk, L) > cap:
                    L *= 2
                if L <= kk:
                    lb, v, sc = panel_schedule(blabel, views, base, L)
                    todo.insert(0, (lb, v, sc, base, blabel, L))
            continue
        print("  %s: %s: %d B (%.1f s)" % (name, label, b, dt),
              file=sys.stderr)
        if best is None or b < best:
            best, best_label = b, label
    rec.update(hand=best_label, hand_bytes=best, hand_plans=n_ok,
               unfinished=late, refused=refused, beyond=len(beyond),
               lower_bound=lower_bound(m, n, k, P))
    return rec


# (name, m, n, k, P): runs here (<= 8 ranks), the local products large
# enough that the launch does not dominate
TIME_CASES = [
    ("square", 1024, 1024, 1024, 4),
    ("tall-skinny", 65536, 128, 128, 4),
    ("long-k", 128, 128, 65536, 4),
    ("square, P = 8", 1024, 1024, 1024, 8),
]


def dmd(args, cwd, timeout=900):
    """Run distmpmd with "args" in "cwd": (exit status, stdout, stderr)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    r = subprocess.run([DMD] + args, cwd=cwd, capture_output=True,
                       text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


def build_checked(d, name, m, n, k, P, views, sched):
    """Write the job in directory "d", build it and check one run against
    the reference: None, or why not."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "job.yaml"), "w") as f:
        f.write(job_text(name, m, n, k, P, None, views, sched))
    for args in (["build", "job.yaml", "-o", "b"], ["run", "b", "-q"],
                 ["ref", "check", "job.yaml"]):
        rc, _, err = dmd(args, d)
        if rc != 0:
            return "%s: %s" % (args[0], (err.strip().splitlines() or
                                         ["exit %d" % rc])[-1])
    return None


def run_time(d):
    """time_s of one run of the build in directory "d" (None: failed)."""
    rc, out, _ = dmd(["run", "b", "--stats", "-q"], d)
    if rc != 0:
        return None
    for line in out.splitlines():
        if line.startswith("{"):
            return json.loads(line)["time_s"]
    return None


def time_case(tmp, name, m, n, k, P, reps):
    """The record of one time case: medians of time_s of the automatic
    plan and of every hand schedule, interleaved."""
    rec = {"kind": "auto_time", "case": name, "m": m, "n": n, "k": k,
           "P": P, "reps": reps}
    methods = [("auto", None, None)] + hand_schedules(P)
    dirs, times = {}, {}
    for i, (label, views, sched) in enumerate(methods):
        d = os.path.join(tmp, "%s-%d" % (name.replace(" ", "_").replace(
            ",", "").replace("=", ""), i))
        err = build_checked(d, "t%d" % i, m, n, k, P, views, sched)
        if err:
            print("  %s: %s: %s" % (name, label, err), file=sys.stderr)
            if label == "auto":
                rec["error"] = err
                return rec
            continue
        dirs[label], times[label] = d, []
    rc, out, _ = dmd(["plan", "job.yaml", "--json"], dirs["auto"])
    if rc == 0:
        st = json.loads(out)["steps"][0]
        rec["auto"] = [c["algorithm"] for c in st["candidates"]
                       if c["chosen"]][0]
    labels = list(dirs)
    for r in range(reps):
        rot = labels[r % len(labels):] + labels[:r % len(labels)]
        for label in rot:
            t = run_time(dirs[label])
            if t is None:
                rec["error"] = "%s: a run failed" % label
                return rec
            times[label].append(t)
    med = {l: sorted(v)[len(v) // 2] for l, v in times.items()}
    hand = min((l for l in med if l != "auto"), key=lambda l: med[l])
    rec.update(auto_s=med["auto"], hand=hand, hand_s=med[hand],
               methods=len(med), medians=med,
               loadavg=open("/proc/loadavg").read().split()[:3])
    return rec


TIME_HEAD = ["## Automatic schedules against hand schedules: time", "",
             "Medians of `run --stats` `time_s` (the slowest rank's "
             "compute phase, transfers included) over interleaved rounds "
             "(`bench/auto.py --time`), f64, A, B and C in row blocks over "
             "a 1-D mesh of P ranks; every method's result checked against "
             "the sequential reference once.  *best hand*: the fastest of "
             "the hand schedules of the bytes table (1-D on m, n, k; SUMMA "
             "and whole-k 2-D; 3-D).  Goal: auto / hand at most 1.10.  *load*: "
             "the 1-minute load average at the end of the case (2 cores: P "
             "ranks busy-poll on them, more when the machine is shared).",
             "",
             "| case | m x n x k | P | auto: algorithm | auto s | "
             "best hand | hand s | auto / hand | methods | rounds | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]


def time_table(recs):
    """The Markdown table of the records of kind "auto_time"; and whether
    every case met the goal (auto at most 1.10x the best hand)."""
    lines = list(TIME_HEAD)
    ok = True
    for r in recs:
        if r.get("error"):
            lines.append("| %s | | %d | failed: %s | | | | | | | |"
                         % (r["case"], r["P"], r["error"]))
            ok = False
            continue
        ratio = r["auto_s"] / r["hand_s"]
        ok &= ratio <= 1.10
        lines.append("| %s | %d x %d x %d | %d | %s | %.4f | %s | %.4f | "
                     "%.3f | %d | %d | %s |" % (
                         r["case"], r["m"], r["n"], r["k"], r["P"],
                         r.get("auto", "?"), r["auto_s"], r["hand"],
                         r["hand_s"], ratio, r["methods"], r["reps"],
                         r.get("loadavg", ["?"])[0]))
    return lines, ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--jsonl", default=None)
    ap.add_argument("--case", action="append", default=None,
                    help="only the cases of this name (repeatable)")
    ap.add_argument("--plan-timeout", type=float, default=3600,
                    help="seconds a hand plan may take (then unfinished)")
    a = ap.parse_args()
    recs = []
    if a.time:
        with tempfile.TemporaryDirectory() as tmp:
            for case in TIME_CASES:
                recs.append(time_case(tmp, *case, a.reps))
                print(time_table(recs[-1:])[0][-1], file=sys.stderr)
                if a.jsonl:
                    with open(a.jsonl, "a") as f:
                        f.write(json.dumps(recs[-1]) + "\n")
        lines, ok = time_table(recs)
        sys.stdout.write("\n".join(lines) + "\n")
        return 0 if ok else 1
    with tempfile.TemporaryDirectory() as tmp:
        cases = QUICK if a.quick else CASES
        if a.case:
            cases = [c for c in cases if c[0] in a.case]
            if not cases:
                print("auto.py: no case named %s" % ", ".join(a.case),
                      file=sys.stderr)
                return 2
        for case in cases:
            recs.append(run_case(tmp, *case, a.plan_timeout))
            print(table(recs[-1:])[0][-1], file=sys.stderr)
            if a.jsonl:
                with open(a.jsonl, "a") as f:
                    f.write(json.dumps(recs[-1]) + "\n")
    lines, ok = table(recs)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
