#!/usr/bin/python3
"""Random jobs: a schedule changes performance, never results.

    fuzz.py [--seeds A:B] [--keep] DISTMPMD REF

For each seed, generate a small job (mesh of at most 8 ranks, uneven
extents, random distributions, a random but valid schedule; for about a
third of the seeds a view of the ranks, spec 1.1, that the schedule and
most tensors use, over all the ranks or fewer), run it with
`distmpmd run --stats`, check that `distmpmd plan --json` predicted its
bytes moved, busiest receiver and messages (per step too), and compare
the output with the independent reference (tests/ref/dmd_ref.py).  A job the compiler refuses with exit 2
and a located message counts as a pass only if the message says the
feature is not supported; anything else (a crash, a wrong result, a hang,
an internal error) is a failure.  Prints "ok SEED ..." / "FAIL SEED ..."
and "N passed, M failed".
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def mesh(rng):
    if rng.random() < 0.4:
        return ["x"], [rng.randint(2, 4)]
    if rng.random() < 0.3:
        # three axes, at most 8 ranks (some axes of extent 1)
        shape = [rng.randint(1, 2), rng.randint(1, 2), rng.randint(2, 3)]
        rng.shuffle(shape)
        while shape[0] * shape[1] * shape[2] > 8:
            shape[shape.index(max(shape))] -= 1
        return ["x", "y", "z"], shape
    shape = [rng.randint(1, 3), rng.randint(2, 3)]
    while shape[0] * shape[1] > 6:
        shape = [rng.randint(1, 3), rng.randint(2, 3)]
    return ["x", "y"], shape


def dist(rng, ndim, axes, shape):
    """A dist list using each axis at most once, and a split."""
    free = list(axes)
    rng.shuffle(free)
    d = []
    for _ in range(ndim):
        if free and rng.random() < 0.7:
            a = free.pop()
            i = axes.index(a)
            if rng.random() < 0.15 and shape[i] > 1:
                d.append('"(%s + 1) %% %d"' % (a, shape[i]))
            else:
                d.append(a)
        else:
            d.append('"-"')
    split = rng.choice(["block", "block", "balanced"])
    return "[" + ", ".join(d) + "]", split


def offsets(rng, dims, d, axes, shape):
    """Sometimes explicit block boundaries for a dimension split over one
    axis (uneven, possibly empty blocks)."""
    entries = [e.strip() for e in d.strip("[]").split(",")]
    out = []
    for i, e in enumerate(entries):
        if e in axes and rng.random() < 0.3:
            b = shape[axes.index(e)]
            cuts = sorted(rng.randint(0, dims[i]) for _ in range(b - 1))
            out.append("%d: [%s]" % (i, ", ".join(
                str(c) for c in [0] + cuts + [dims[i]])))
    return out


def tensor(rng, name, dims, axes, shape, dtype, role, seed):
    d, split = dist(rng, len(dims), axes, shape)
    offs = offsets(rng, dims, d, axes, shape)
    split_dims = [e for e in d.strip("[]").split(",") if e.strip() != '"-"']
    if split == "balanced" and offs and len(offs) == len(split_dims):
        # balanced would apply to no dimension: the reader refuses that
        split = "block"
    s = "  %s: {shape: [%s], dtype: %s, dist: %s, split: %s" % (
        name, ", ".join(str(e) for e in dims), dtype, d, split)
    if offs:
        s += ", offsets: {%s}" % ", ".join(offs)
    unused = [a for a in axes if a not in d]
    if role == "in" and unused and rng.random() < 0.2:
        a = rng.choice(unused)
        s += ", place: {%s: %d}" % (a, rng.randint(0, shape[axes.index(a)] - 1))
    if role == "out":
        s += ", file: %s.npy}" % name
    elif rng.random() < 0.3:
        s += ", file: %s.npy}" % name
    else:
        s += ", init: random, seed: %d}" % seed
    return s


def matmul_schedule(rng, axes, p_divide=0.6, names=("A", "B")):
    """A random valid schedule of C[m, n] = A * B on a mesh with "axes":
    distribute some of m, n, k, divide or split k (balanced or not),
    reorder, maybe rotate, communicate at a time or space loop, maybe
    tensorize.  Returns the commands and the axis k is distributed over
    (or None).  Also used by fuzz_prog.py."""
    sched = []
    loops = ["m", "n", "k"]
    used = list(axes)
    rng.shuffle(used)
    dvars = [v for v in ["m", "n", "k"] if rng.random() < 0.6][:len(used)]
    if not (dvars and rng.random() < 0.85):
        dvars = []
    kaxis = None
    if dvars:
        outs = [v + "o" for v in dvars]
        ins = [v + "i" for v in dvars]
        sched.append("distribute([%s], [%s], [%s], [%s])" % (
            ", ".join(dvars), ", ".join(outs), ", ".join(ins),
            ", ".join(used[:len(dvars)])))
        loops = outs + [(v + "i" if v in dvars else v) for v in
                        ["m", "n", "k"]]
        if "k" in dvars:
            kaxis = used[dvars.index("k")]
    kname = "ki" if "k" in dvars else "k"
    time_outer = []
    if rng.random() < p_divide:
        how = rng.choice(["divide", "split", "balanced"])
        if how == "split":
            sched.append("split(%s, kt, kk, %d)" % (kname, rng.randint(2, 7)))
        elif how == "balanced":
            sched.append("divide(%s, kt, kk, %d, balanced)" % (
                kname, rng.randint(2, 4)))
        else:
            sched.append("divide(%s, kt, kk, %d)" % (kname,
                                                    rng.randint(2, 4)))
        i = loops.index(kname)
        loops[i:i + 1] = ["kt", "kk"]
        time_outer = ["kt"]
        # move kt outside the other non-distributed loops
        space = [l for l in loops if l.endswith("o")]
        rest = [l for l in loops if l not in space and l != "kt"]
        sched.append("reorder(%s)" % ", ".join(["kt"] + rest))
        loops = space + ["kt"] + rest
        if rng.random() < 0.4 and space:
            sched.append("rotate(kt, [%s], ktr)" % rng.choice(space))
            loops[loops.index("kt")] = "ktr"
            time_outer = ["ktr"]
    comm_at = rng.choice(time_outer + [l for l in loops if l.endswith("o")]
                         + [None])
    if comm_at:
        a, b = names
        sched.append("communicate([%s], %s)" % (
            rng.choice([a, b, a + ", " + b, a + ", " + b]), comm_at))
    inner = [l for l in loops if not l.endswith("o") and l not in time_outer]
    if len(inner) == 3 and rng.random() < 0.6:
        sched.append("tensorize([%s], gemm)" % ", ".join(inner))
    return sched, kaxis


def matmul_job(rng, axes, shape, dtype, frame=None):
    """frame(): the axes and shape a tensor is laid out on (default:
    "axes", "shape", those of the schedule)."""
    frame = frame or (lambda: (axes, shape))
    M, N, K = rng.randint(3, 23), rng.randint(3, 19), rng.randint(4, 29)
    ta, tb = rng.random() < 0.3, rng.random() < 0.3
    a = "A[k, m]" if ta else "A[m, k]"
    b = "B[n, k]" if tb else "B[k, n]"
    acc = rng.random() < 0.2
    ts = [tensor(rng, "A", [K, M] if ta else [M, K], *frame(), dtype,
                 "in", 1),
          tensor(rng, "B", [N, K] if tb else [K, N], *frame(), dtype,
                 "in", 2),
          tensor(rng, "C", [M, N], *frame(), dtype, "out", 3)]
    stmt = "C[m, n] %s %s * %s" % ("+=" if acc else "=", a, b)
    sched, _ = matmul_schedule(rng, axes)
    return ts, stmt, sched


def stencil_job(rng, axes, shape, dtype, frame=None):
    frame = frame or (lambda: (axes, shape))
    if len(axes) >= 2 and rng.random() < 0.5:
        E0, E1 = rng.randint(5, 17), rng.randint(5, 17)
        ts = [tensor(rng, "A", [E0, E1], *frame(), dtype, "in", 1),
              tensor(rng, "B", [E0, E1], *frame(), dtype, "out", 2)]
        stmt = ("B[i, j] = A[i - 1, j] + 2 * A[i, j + 1] - A[i + 1, j]"
                " * A[i, j - 1]")
        sched = []
        if rng.random() < 0.8:
            sched.append("distribute([i, j], [io, jo], [ii, ji], [%s])" %
                         ", ".join(rng.sample(axes, 2)))
            if rng.random() < 0.5:
                sched.append("communicate(A, %s)" % rng.choice(
                    ["io", "jo", "ii"]))
        return ts, stmt, sched
    E = rng.randint(8, 40)
    ts = [tensor(rng, "A", [E], *frame(), dtype, "in", 1),
          tensor(rng, "B", [E], *frame(), dtype, "out", 2)]
    stmt = rng.choice(["B[i] = A[i - 1] + A[i] + A[i + 1]",
                       "B[i] += max(A[i - 2], A[i + 1]) * 0.5",
                       "B[i] = relu(A[i + 2] - A[i])"])
    sched = []
    if rng.random() < 0.8:
        sched.append("distribute([i], [io], [ii], [%s])" % rng.choice(axes))
        if rng.random() < 0.5:
            sched.append("split(ii, it, iu, %d)" % rng.randint(2, 5))
            sched.append("communicate(A, it)")
        elif rng.random() < 0.6:
            sched.append("communicate(A, io)")
    return ts, stmt, sched


def view(vrng, nranks):
    """A view (spec 1.1) of all the ranks or of fewer: 1 to 3 axes."""
    n = nranks if vrng.random() < 0.6 else vrng.randint(1, nranks)
    k = vrng.randint(1, 3)
    shape = [1] * k
    for p in (2, 3, 5, 7):
        while n % p == 0:
            shape[vrng.randrange(k)] *= p
            n //= p
    return ["a", "b", "c"][:k], shape


def job(seed):
    rng = random.Random(seed)
    # views come from a generator of their own, so that the jobs of the
    # seeds without a view stay the same
    vrng = random.Random("view%d" % seed)
    axes, shape = mesh(rng)
    frame = None
    views = ""
    if vrng.random() < 0.35:
        maxes, mshape = axes, shape
        axes, shape = view(vrng, eval("*".join(str(e) for e in mshape)))
        views = ", views: {v: {axes: [%s], shape: [%s]}}" % (
            ", ".join(axes), ", ".join(str(e) for e in shape))
        # most tensors on the view, some on the mesh
        frame = lambda: ((maxes, mshape) if vrng.random() < 0.25 else
                         (axes, shape))
    else:
        maxes, mshape = axes, shape
    dtype = rng.choice(["f32", "f64"])
    if rng.random() < 0.6:
        ts, stmt, sched = matmul_job(rng, axes, shape, dtype, frame)
    else:
        ts, stmt, sched = stencil_job(rng, axes, shape, dtype, frame)
    text = ["# fuzz seed %d" % seed, "name: fuzz%d" % seed,
            "mesh: {axes: [%s], shape: [%s]%s}" % (
                ", ".join(maxes), ", ".join(str(s) for s in mshape), views),
            "tensors:"] + ts + ["compute: " + stmt]
    if sched:
        text.append("schedule:")
        text += ["  - " + c for c in sched]
    return "\n".join(text) + "\n"


def run(cmd, cwd, env, timeout):
    """subprocess.run in its own process group, killed whole on timeout
    (mpiexec's ranks busy-poll)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def check_plan(distmpmd, path, d, env, stdout):
    """Compare `distmpmd plan --json` with the run's --stats line: bytes
    moved, busiest receiver and messages, and per step bytes and messages,
    must be equal.  Returns None, or why not."""
    import json
    stats = [json.loads(l) for l in stdout.splitlines()
             if l.startswith("{")]
    p = subprocess.run([distmpmd, "plan", path, "--json"], cwd=d, env=env,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or len(stats) != 1:
        return "plan exit %d: %s" % (p.returncode, p.stderr.strip())
    plan, st = json.loads(p.stdout), stats[0]
    for k in ("bytes_moved_total", "bytes_recv_max", "messages"):
        if plan[k] != st[k]:
            return "plan %s %s, run %s" % (k, plan[k], st[k])
    for i, (a, b) in enumerate(zip(plan["steps"], st.get("steps", []))):
        for k in ("bytes_moved_total", "messages"):
            if a[k] != b[k]:
                return "plan step %d %s %s, run %s" % (i + 1, k, a[k], b[k])
    return None


def check_job(distmpmd, ref, path, d, env, timeout):
    """Write the inputs of job "path" (in directory "d"), run it with
    `distmpmd run --stats` and check every output with the reference.
    Returns (ok, refusal, why): refusal is the message of a job refused
    as not supported (exit 2), which counts as ok; anything else that is
    not a right result (a crash, an internal error, a hang, a wrong
    value) is not ok."""
    r = subprocess.run([sys.executable, ref, "inputs", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return False, None, "reference inputs: " + r.stderr.strip()
    for attempt in range(3):
        try:
            r = run([distmpmd, "run", path, "--stats"], d, env, timeout)
        except subprocess.TimeoutExpired:
            return False, None, "timeout"
        # the compiler replaced while it runs (a rebuild): try again
        if "cannot find the distmpmd executable" not in r.stderr:
            break
        time.sleep(5)
    if r.returncode == 2 and "not supported" in r.stderr:
        line = r.stderr.strip().splitlines()[-1]
        return True, line, "refused: " + line
    if r.returncode != 0:
        return False, None, "run exit %d: %s" % (
            r.returncode, (r.stderr.strip().splitlines() or [""])[-1])
    # the cost model predicted the run's bytes and messages exactly
    why = check_plan(distmpmd, path, d, env, r.stdout)
    if why:
        return False, None, why
    c = subprocess.run([sys.executable, ref, "check", path],
                       capture_output=True, text=True)
    lines = (c.stdout + c.stderr).strip().splitlines()
    bad = [l for l in lines if l.startswith("FAIL")]
    return c.returncode == 0, None, (bad or lines or [""])[-1]


def run_seeds(job, prefix, lo, hi, distmpmd, ref, timeout, keep):
    """Generate job(seed) for each seed in [lo, hi) into a fresh directory
    (PREFIX-SEED-*/PREFIXSEED.yaml), check it (check_job) and print
    "ok SEED ..." or "FAIL SEED ... (kept in DIR)".  Returns the numbers
    passed and failed, and the refusal messages."""
    passed = failed = 0
    refusals = []
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    for seed in range(lo, hi):
        d = tempfile.mkdtemp(prefix="dmd-%s-%d-" % (prefix, seed))
        path = os.path.join(d, "%s%d.yaml" % (prefix, seed))
        with open(path, "w") as f:
            f.write(job(seed))
        ok, line, why = check_job(distmpmd, ref, path, d, env, timeout)
        if line:
            refusals.append(line)
        if ok:
            passed += 1
            print("ok %d %s" % (seed, why))
            if not keep:
                shutil.rmtree(d)
        else:
            failed += 1
            print("FAIL %d %s (kept in %s)" % (seed, why, d))
        sys.stdout.flush()
    return passed, failed, refusals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:20")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("distmpmd")
    ap.add_argument("ref")
    args = ap.parse_args()
    args.distmpmd = os.path.abspath(args.distmpmd)
    args.ref = os.path.abspath(args.ref)
    lo, hi = (int(v) for v in args.seeds.split(":"))
    passed, failed, _ = run_seeds(job, "fuzz", lo, hi, args.distmpmd,
                                  args.ref, 300, args.keep)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
