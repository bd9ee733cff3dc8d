#!/usr/bin/python3
"""Random jobs: a schedule changes performance, never results.

    fuzz.py [--seeds A:B] [--jobs N] [--log FILE [--resume]] [--explain]
            [--keep] [--timeout S] DISTMPMD REF
    fuzz.py --print [--seeds A:B]            print the jobs (and metadata)
    fuzz.py --job FILE DISTMPMD REF          check one job file again
    fuzz.py --inputs FILE [REF]              write its inputs, poisoned

For each seed, generate a small job (mesh of at most 8 ranks, uneven
extents, random distributions, some with cyclic blocks, some written as
Axe layouts (spec 1.2, v3: the same layout, 'axe'), a random but
valid schedule; for about a third of the seeds a view of the ranks, spec
1.1, that the schedule and most tensors use, over all the ranks or fewer),
run it with `distmpmd run --stats`, check that `distmpmd plan --json`
predicted its bytes moved, busiest receiver and messages (per step too),
and compare every output with the independent reference
(tests/ref/dmd_ref.py).  The families: matrix products,
stencils, random element-wise expressions (unary minus chains, every
function and operator, numbers in every notation, self reads), and
accesses whose in-bounds ranges cut each other (A[2 * i, i] into a
shorter C, A[i + 1] - A[i], extents that differ per access).  Some jobs
have an input file poisoned with NaN, +inf, -inf, -0.0 or 0.0 after the
reference wrote it; jobs whose every step is sum-free are also checked
for the sign of zeros (`check --signed-zeros`).  Some jobs hold a layout
where some block has no holder (`dist: [x, x]` on a 1-D mesh, a used axis
placed): those must be refused (exit 2, `JOB:LINE:COL: error: ... no rank
holds block ...` on the tensor's line, naming it).

A job the compiler refuses with exit 2 and a located message counts as a
pass if it was expected, or if the message says the feature is not
supported; anything else (a crash, a wrong result, a hang, an internal
error, a refusal of a valid job) is a failure, classified by the items of
issue 15 where it matches one (1 unary minus, 2 NaN/inf/-0.0, 3 unheld
blocks, 4 one file for two outputs, 5 in-bounds ranges) or "other";
--explain re-runs a failing job without its unary minuses and without its
poison to confirm items 1 and 2.  Prints "ok SEED ..." / "FAIL SEED
[item] ..." per seed, the failures by item and "N passed, M failed".
--log appends one JSON line per seed; --resume skips the seeds already in
the log (the summary counts them).  The job's metadata is in comments:
`# fuzz-expect:`, `# fuzz-poison:`, `# fuzz-signed-zeros`.
"""
import argparse
import collections
import concurrent.futures
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_expr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REF = os.path.join(HERE, "..", "ref", "dmd_ref.py")


# --------------------------------------------------------------------------
# Jobs

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
    """Dist entries using each axis at most once ('-' for not split), and
    a split."""
    free = list(axes)
    rng.shuffle(free)
    d = []
    for _ in range(ndim):
        if free and rng.random() < 0.7:
            a = free.pop()
            i = axes.index(a)
            if rng.random() < 0.15 and shape[i] > 1:
                d.append("(%s + 1) %% %d" % (a, shape[i]))
            else:
                d.append(a)
        else:
            d.append("-")
    split = rng.choice(["block", "block", "balanced"])
    return d, split


def offsets(rng, dims, d, axes, shape):
    """Sometimes explicit block boundaries for a dimension split over one
    axis (uneven, possibly empty blocks)."""
    out = []
    for i, e in enumerate(d):
        if e in axes and rng.random() < 0.3:
            b = shape[axes.index(e)]
            cuts = sorted(rng.randint(0, dims[i]) for _ in range(b - 1))
            out.append("%d: [%s]" % (i, ", ".join(
                str(c) for c in [0] + cuts + [dims[i]])))
    return out


def quote(e):
    return e if re.fullmatch(r"[a-z]+", e) else '"%s"' % e


def axe_layout(rng, dims, d, cyc, place, axes, shape):
    """The layout of dist entries "d" (one axis or '-' each, blocks of
    ceil(E/B)), cyclic block sizes "cyc" ("i: S") and "place", written as
    an Axe layout (spec 1.2, v3: "axe: {D: ..., R: ..., O: ...}"), or None
    when Axe cannot write it (an entry other than one axis, uneven
    blocks, an empty dimension).  Memory strides are free: drawn."""
    sizes = {int(c.split(":")[0]): int(c.split(":")[1]) for c in cyc}
    D = []
    for i, (e, E) in enumerate(zip(d, dims)):
        mem = lambda n: [[n, rng.randint(0, 64), "m"]] if n > 1 or \
            rng.random() < 0.2 else []
        if E == 0 or (e != "-" and e not in axes):
            return None
        if e == "-":
            D += mem(E)
            continue
        B = shape[axes.index(e)]
        S = sizes.get(i, -(-E // B))
        if E % (B * S):
            return None
        D += mem(E // (B * S)) + [[B, 1, e]] + mem(S)
    R = [[n, 1, a] for a, n in zip(axes, shape) if a not in d and
         a not in place and (n > 1 or rng.random() < 0.3)]
    parts = ["D: [%s]" % ", ".join("[%d, %d, %s]" % tuple(it) for it in D)]
    if R or rng.random() < 0.3:
        parts.append("R: [%s]" % ", ".join("[%d, %d, %s]" % tuple(it)
                                           for it in R))
    if place or rng.random() < 0.3:
        parts.append("O: {%s}" % ", ".join("%s: %d" % kv for kv in
                                           sorted(place.items())))
    return "axe: {%s}" % ", ".join(parts)


def tensor(rng, name, dims, axes, shape, dtype, role, seed, layout=None):
    """The line of a tensor: a random layout (or layout = (entries,
    place)), a file for outputs and for half the inputs (the poisoning
    needs files), random init otherwise."""
    if layout is None:
        d, split = dist(rng, len(dims), axes, shape)
        offs = offsets(rng, dims, d, axes, shape)
        if split == "balanced" and offs and \
                len(offs) == len([e for e in d if e != "-"]):
            # balanced would apply to no dimension: the reader refuses that
            split = "block"
        # sometimes cyclic blocks (spec 1.2, v3) on a split dimension
        # without offsets, drawn from a generator of their own so that
        # every seed's job is otherwise the one it always was
        crng = random.Random("%s:%s" % (name, rng.getstate()[1][:8]))
        cyc = ["%d: %d" % (i, crng.choice([1, 2, 3, 5]))
               for i, e in enumerate(d)
               if e != "-" and not any(o.startswith("%d:" % i)
                                       for o in offs)
               and crng.random() < 0.25]
        if cyc:
            split = "block"     # balanced and cyclic do not combine
        place = {}
        unused = [a for a in axes if not any(
            re.search(r"\b%s\b" % a, e) for e in d)]
        if role == "in" and unused and rng.random() < 0.2:
            a = rng.choice(unused)
            place = {a: rng.randint(0, shape[axes.index(a)] - 1)}
        # an entry as a unary chain: - -x is x (spec 1.3's factor)
        d = [("- -%s" % e if rng.random() < 0.5 else "-(-%s)" % e)
             if e in axes and rng.random() < 0.06 and
             not any(o.startswith("%d:" % i) for o in offs) else e
             for i, e in enumerate(d)]
    else:
        (d, place), split, offs = layout, "block", []
        cyc = []
    # sometimes the same layout written with 'axe' (spec 1.2, v3), from a
    # generator of its own (every seed's job otherwise unchanged)
    arng = random.Random("axe:%s:%s" % (name, rng.getstate()[1][:8]))
    axe = None
    if layout is None and not offs and (split == "block" or all(
            e == "-" or dims[i] % shape[axes.index(e)] == 0
            for i, e in enumerate(d) if e in axes)) and \
            arng.random() < 0.2:
        axe = axe_layout(arng, dims, d, cyc, place, axes, shape)
    s = "  %s: {shape: [%s], dtype: %s" % (
        name, ", ".join(str(e) for e in dims), dtype)
    if axe:
        s += ", " + axe
    else:
        s += ", dist: [%s], split: %s" % (", ".join(quote(e) for e in d),
                                          split)
    if offs:
        s += ", offsets: {%s}" % ", ".join(offs)
    if cyc and not axe:
        s += ", cyclic: {%s}" % ", ".join(cyc)
    if place and not axe:
        s += ", place: {%s}" % ", ".join("%s: %d" % kv
                                          for kv in sorted(place.items()))
    if role == "out" or rng.random() < 0.5:
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


def elem_schedule(rng, axes, loopvars, reads, prob=0.6):
    """Distribute some of the loops over mesh axes, maybe split an inner
    loop and communicate an input at some loop."""
    if not loopvars or rng.random() > prob:
        return []
    used = list(axes)
    rng.shuffle(used)
    n = rng.randint(1, min(len(used), len(loopvars)))
    dv = sorted(rng.sample(loopvars, n), key=loopvars.index)
    sched = ["distribute([%s], [%s], [%s], [%s])" % (
        ", ".join(dv), ", ".join(v + "o" for v in dv),
        ", ".join(v + "i" for v in dv), ", ".join(used[:n]))]
    loops = [v + "o" for v in dv] + [v + "i" if v in dv else v
                                     for v in loopvars]
    if reads and rng.random() < 0.5:
        inner = [l for l in loops if not l.endswith("o")]
        at = rng.choice(inner + [l for l in loops if l.endswith("o")])
        if at in inner and rng.random() < 0.5:
            sched.append("split(%s, %st, %su, %d)" % (at, at, at,
                                                      rng.randint(2, 5)))
            at = at + "t"
        sched.append("communicate(%s, %s)" % (
            rng.choice(reads) if rng.random() < 0.7 else
            "[%s]" % ", ".join(reads), at))
    return sched


def matmul_job(rng, axes, shape):
    M, N, K = rng.randint(3, 23), rng.randint(3, 19), rng.randint(4, 29)
    ta, tb = rng.random() < 0.3, rng.random() < 0.3
    a = "A[k, m]" if ta else "A[m, k]"
    b = "B[n, k]" if tb else "B[k, n]"
    acc = rng.random() < 0.2
    ts = [("A", [K, M] if ta else [M, K], "in"),
          ("B", [N, K] if tb else [K, N], "in"),
          ("C", [M, N], "out")]
    stmt = "C[m, n] %s %s * %s" % ("+=" if acc else "=", a, b)
    sched, _ = matmul_schedule(rng, axes)
    return ts, stmt, sched


def stencil_job(rng, axes, shape):
    if len(axes) >= 2 and rng.random() < 0.5:
        E0, E1 = rng.randint(5, 17), rng.randint(5, 17)
        ts = [("A", [E0, E1], "in"), ("B", [E0, E1], "out")]
        stmt = ("B[i, j] = A[i - 1, j] + 2 * A[i, j + 1] - A[i + 1, j]"
                " * A[i, j - 1]")
        if rng.random() < 0.4:
            g = fuzz_expr.ExprGen(rng, [(s, 1.0) for s in [
                "A[i - 1, j]", "A[i, j + 1]", "A[i + 1, j]", "A[i, j - 1]",
                "A[i, j]"]], 3)
            stmt = "B[i, j] = " + fuzz_expr.text(g.expr(), rng)
        sched = []
        if rng.random() < 0.8:
            sched.append("distribute([i, j], [io, jo], [ii, ji], [%s])" %
                         ", ".join(rng.sample(axes, 2)))
            if rng.random() < 0.5:
                sched.append("communicate(A, %s)" % rng.choice(
                    ["io", "jo", "ii"]))
        return ts, stmt, sched
    E = rng.randint(8, 40)
    ts = [("A", [E], "in"), ("B", [E], "out")]
    stmt = rng.choice(["B[i] = A[i - 1] + A[i] + A[i + 1]",
                       "B[i] += max(A[i - 2], A[i + 1]) * 0.5",
                       "B[i] = relu(A[i + 2] - A[i])", None, None])
    if stmt is None:
        g = fuzz_expr.ExprGen(rng, [(s, 1.0) for s in [
            "A[i - 1]", "A[i]", "A[i + 1]", "A[i + 2]", "A[i - 2]"]], 3)
        stmt = "B[i] %s %s" % (rng.choice(["=", "=", "+="]),
                               fuzz_expr.text(g.expr(), rng))
    sched = []
    if rng.random() < 0.8:
        sched.append("distribute([i], [io], [ii], [%s])" % rng.choice(axes))
        if rng.random() < 0.5:
            sched.append("split(ii, it, iu, %d)" % rng.randint(2, 5))
            sched.append("communicate(A, it)")
        elif rng.random() < 0.6:
            sched.append("communicate(A, io)")
    return ts, stmt, sched


def expr_job(rng, axes, shape):
    """O[i(, j)] = or += a random expression over one to three inputs of
    O's shape (plain indices), maybe a scalar, maybe O itself (a self read,
    `T[i] += - - T[i] * 2`)."""
    nd = rng.choice([1, 1, 2])
    dims = [rng.randint(2, 13) for _ in range(nd)]
    iv = ["i", "j"][:nd]
    idx = "[%s]" % ", ".join(iv)
    names = ["A", "B", "D"][:rng.randint(1, 3)]
    ts = [(n, dims, "in") for n in names]
    leaves = [(n + idx, 1.0) for n in names]
    if rng.random() < 0.2:
        ts.append(("s", [], "in"))
        leaves.append(("s", 1.0))
    op = "="
    if rng.random() < 0.25:
        op = "+="
        if rng.random() < 0.6:
            leaves.append(("O" + idx, 1.0))
    elif rng.random() < 0.15:
        leaves.append(("O" + idx, 1.0))     # reads its own old values
    ts.append(("O", dims, "out"))
    g = fuzz_expr.ExprGen(rng, leaves, rng.choice([2, 3, 4]))
    stmt = "O%s %s %s" % (idx, op, fuzz_expr.text(g.expr(), rng))
    sched = elem_schedule(rng, axes, iv, names)
    return ts, stmt, sched


def cut_job(rng, axes, shape):
    """Accesses whose in-bounds ranges cut each other (spec 1.3: each index
    ranges over the values where every access is in bounds): the issue's
    C[i] = A[2 * i, i] and D[i] = A[i + 1] - A[i], or random affine indices
    (strides, offsets, reflections, unary minus) into extents that differ
    per access, with or without a reduction variable."""
    r = rng.random()
    if r < 0.15:
        R, Q = rng.randint(4, 13), rng.randint(3, 9)
        ts = [("A", [R, Q], "in"), ("C", [rng.randint(2, 9)], "out")]
        stmt = "C[i] = A[2 * i, i]"
        return ts, stmt, elem_schedule(rng, axes, ["i"], ["A"])
    if r < 0.3:
        E = rng.randint(3, 20)
        ts = [("A", [E], "in"), ("D", [E - rng.choice([1, 1, 0, 2])], "out")]
        stmt = "D[i] = A[i + 1] - A[i]"
        return ts, stmt, elem_schedule(rng, axes, ["i"], ["A"])
    lhs_vars = ["i", "j"][:rng.choice([1, 1, 2])]
    red = ["k"] if rng.random() < 0.35 else []
    variables = lhs_vars + red
    seen = set()
    accesses = []
    names = ["A", "B", "D"][:rng.randint(1, 3)]
    ts = []
    for n in names:
        nd = rng.randint(1, 2)
        idx, dims = [], []
        for _ in range(nd):
            v = rng.choice(variables)
            text, c, d = fuzz_expr.cut_index(rng, v)
            seen.add(v)
            idx.append(text)
            dims.append(rng.randint(2, 14))
        ts.append((n, dims, "in"))
        accesses.append("%s[%s]" % (n, ", ".join(idx)))
    # every variable appears in some access (bounded)
    for v in variables:
        if v not in seen:
            ts.append(("E" + v, [rng.randint(2, 14)], "in"))
            accesses.append("E%s[%s]" % (v, fuzz_expr.cut_index(rng, v)[0]))
    lhs_idx, lhs_dims = [], []
    for v in lhs_vars:
        if rng.random() < 0.75:
            lhs_idx.append(v)
        else:
            lhs_idx.append(rng.choice(["%s + 1", "2 * %s", "%s - -1"]) % v)
        lhs_dims.append(rng.randint(2, 14))
    ts.append(("C", lhs_dims, "out"))
    if red and rng.random() < 0.6:
        rhs = " * ".join(accesses)
    else:
        g = fuzz_expr.ExprGen(rng, [(a, 1.0) for a in accesses], 3)
        e = g.expr()
        used = str(e)
        missing = [a for a in accesses if a not in used]
        rhs = fuzz_expr.text(e, rng)
        if missing:
            rhs = "(%s) + %s" % (rhs, " * ".join(missing))
    stmt = "C[%s] %s %s" % (", ".join(lhs_idx),
                            "+=" if rng.random() < 0.2 else "=", rhs)
    sched = elem_schedule(rng, axes, lhs_vars, [t[0] for t in ts[:-1]])
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
    maxes, mshape = axes, shape
    views = ""
    if vrng.random() < 0.35:
        axes, shape = view(vrng, eval("*".join(str(e) for e in mshape)))
        views = ", views: {v: {axes: [%s], shape: [%s]}}" % (
            ", ".join(axes), ", ".join(str(e) for e in shape))
    dtype = rng.choice(["f32", "f64"])
    r = rng.random()
    if r < 0.35:
        ts, stmt, sched = matmul_job(rng, axes, shape)
    elif r < 0.55:
        ts, stmt, sched = stencil_job(rng, axes, shape)
    elif r < 0.8:
        ts, stmt, sched = expr_job(rng, axes, shape)
    else:
        ts, stmt, sched = cut_job(rng, axes, shape)
    head = ["# fuzz seed %d" % seed]
    # sometimes one tensor (input or output) in a layout where some block
    # has no holder: the job must be refused
    layouts = {}
    if rng.random() < 0.08:
        cands = [t for t in ts if t[1]]
        rng.shuffle(cands)
        for name, dims, _ in cands:
            lay = fuzz_expr.unheld_layout(rng, len(dims), axes, shape)
            if lay:
                layouts[name] = lay
                head.append("# fuzz-expect: no rank holds block; %s" % name)
                break
    # with a view: most tensors laid out on it, some on the mesh (an
    # unheld layout stays on the frame it was drawn for)
    frames = {name: (maxes, mshape) if views and name not in layouts and
              vrng.random() < 0.25 else (axes, shape)
              for name, _, _ in ts}
    lines = [tensor(rng, name, dims, *frames[name], dtype, role, k + 1,
                    layouts.get(name))
             for k, (name, dims, role) in enumerate(ts)]
    text = head + ["name: fuzz%d" % seed,
                   "mesh: {axes: [%s], shape: [%s]%s}" % (
                       ", ".join(maxes), ", ".join(str(s) for s in mshape),
                       views),
                   "tensors:"] + lines + ["compute: " + stmt]
    if sched:
        text.append("schedule:")
        text += ["  - " + c for c in sched]
    return "\n".join(text) + "\n"


# --------------------------------------------------------------------------
# Metadata, poisoning, signs of zeros

_REF = {}


def load_ref(path):
    """The reference (tests/ref/dmd_ref.py) as a module."""
    path = os.path.abspath(path)
    if path not in _REF:
        spec = importlib.util.spec_from_file_location("dmd_ref_fuzz", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _REF[path] = mod
    return _REF[path]


def meta(text):
    """The job's metadata comments: {'expect': [...], 'poison': [...],
    'signed-zeros': bool}."""
    m = {"expect": [], "poison": [], "signed-zeros": False}
    for line in text.splitlines():
        g = re.match(r"#\s*fuzz-([a-z-]+)(?::\s*(.*))?$", line)
        if not g:
            continue
        key, val = g.group(1), (g.group(2) or "").strip()
        if key == "expect":
            what, _, names = val.partition(";")
            m["expect"].append((what.strip(), names.split()))
        elif key == "poison":
            t = re.match(r"(\w+)\[([\d, ]*)\] = (\S+)$", val)
            idx = tuple(int(x) for x in t.group(2).split(",") if x.strip())
            m["poison"].append((t.group(1), idx, float(t.group(3))))
        elif key == "signed-zeros":
            m["signed-zeros"] = True
    return m


POISON = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]


def fmt_value(v):
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def poison_plan(ref, path, seed):
    """Metadata lines for the job at path: which input elements to poison
    (inputs read from a file no output writes; 40% of the jobs that have
    one), and
    '# fuzz-signed-zeros' when every step is sum-free (ref.writes_once)
    and no tensor is partial (max and min follow numpy: a tie of -0.0 and
    0.0 gives the second argument)."""
    job = ref.Job(path)
    rng = random.Random(seed * 7919 + 17)
    out = []
    written = {os.path.normpath(job.file_path(job.tensors[n]))
               for n in job.outputs}
    cands = [job.tensors[n] for n in job.inputs if job.tensors[n].file and
             os.path.normpath(job.file_path(job.tensors[n])) not in written
             and all(job.tensors[n].shape)]
    if cands and rng.random() < 0.4:
        for t in rng.sample(cands, rng.randint(1, min(2, len(cands)))):
            for _ in range(rng.randint(1, 3)):
                idx = tuple(rng.randrange(e) for e in t.shape)
                out.append("# fuzz-poison: %s[%s] = %s" % (
                    t.name, ", ".join(map(str, idx)),
                    fmt_value(rng.choice(POISON))))
    safe = all(ref.writes_once(s.stmt) for s in job.steps) and \
        not any(t.partial for t in job.tensors.values())
    if safe:
        out.append("# fuzz-signed-zeros")
    return out


def write_job(jobfn, seed, path, ref):
    """Write job(seed) to path with its poison and signed-zeros metadata
    (none for a job that must be refused).  Returns the text."""
    text = jobfn(seed)
    with open(path, "w") as f:
        f.write(text)
    if not meta(text)["expect"]:
        extra = poison_plan(ref, path, seed)
        if extra:
            text += "\n".join(extra) + "\n"
            with open(path, "w") as f:
                f.write(text)
    return text


def quiet(fn, *args):
    """fn(*args) with its output captured: (result, output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        r = fn(*args)
    return r, out.getvalue()


def write_inputs(ref, path):
    """`dmd_ref.py inputs`, then the job's poison: (ok, message)."""
    import numpy as np
    rc, out = quiet(ref.main, ["inputs", path])
    if rc != 0:
        return False, "reference inputs: " + out.strip()
    with open(path) as f:
        poison = meta(f.read())["poison"]
    if not poison:
        return True, ""
    job = ref.Job(path)
    for name, idx, val in poison:
        p = job.file_path(job.tensors[name])
        a = np.load(p)
        a[idx] = val
        np.save(p, a)
    return True, ""


# --------------------------------------------------------------------------
# Running a job and judging the outcome

ITEMS = {"1": "unary minus", "2": "NaN/inf",
         "2z": "sign of zero (not an item)",
         "1+2": "unary minus and NaN/inf",
         "3": "unheld block", "4": "one file for two outputs",
         "5": "in-bounds ranges",
         "plan": "plan's bytes differ from the run's (issue 16)",
         "other": "not an item of issue 15"}


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


def tensor_line(text, name):
    """The 1-based line of tensor name's entry in the job text."""
    for k, line in enumerate(text.splitlines(), 1):
        if re.match(r"\s+%s:\s*\{" % re.escape(name), line):
            return k
    return None


MSG = re.compile(r"^(.*):(\d+):(\d+): error: (.*)$")
EXPECT_WORDS = {"no rank holds block": "3", "both write": "4"}


class Outcome:
    """ok: passed; item: the issue-15 item of a failure (ITEMS), or None;
    why: one line; refusal: the message of a job refused as not
    supported."""

    def __init__(self, ok, why, item=None, refusal=None):
        self.ok, self.why, self.item, self.refusal = ok, why, item, refusal


def judge_expected(text, path, expect, rc, err, check_line):
    """The outcome of a job that must be refused (expect: [(words,
    names)])."""
    words, names = expect[0]
    item = EXPECT_WORDS.get(words, "other")
    lines = [l for l in err.strip().splitlines() if ": error: " in l]
    if rc == 0:
        return Outcome(False, "accepted (exit 0), want '%s' naming %s; "
                       "reference: %s" % (words, ", ".join(names),
                                          check_line), item)
    if rc == 2 and lines and "not supported" in lines[-1]:
        return Outcome(True, "refused: " + lines[-1], refusal=lines[-1])
    if rc != 2 or len(lines) != 1:
        other = classify_failure(text, rc, err, None)
        return Outcome(False, "exit %d, %d message(s), want '%s': %s" % (
            rc, len(lines), words, first_error(err)),
            other if other in ("1", "5") else
            "other" if rc != 2 else item)
    m = MSG.match(lines[0])
    want_lines = [tensor_line(text, n) for n in names]
    if not m or os.path.basename(m.group(1)) != os.path.basename(path):
        return Outcome(False, "not located: " + lines[0], item)
    if words not in m.group(4):
        # another item's refusal first (index extents: item 5)
        other = classify_failure(text, rc, err, None)
        return Outcome(False, "refused, but not with '%s': %s" % (
            words, lines[0]), other if other == "5" else item)
    missing = [n for n in names if "'%s'" % n not in m.group(4)]
    if missing:
        return Outcome(False, "does not name %s: %s" % (
            ", ".join(missing), lines[0]), item)
    if int(m.group(2)) not in want_lines:
        return Outcome(False, "on line %s, want %s: %s" % (
            m.group(2), " or ".join(map(str, want_lines)), lines[0]), item)
    return Outcome(True, "refused as expected: " + lines[0])


def classify_failure(text, rc, err, check_out):
    """The issue-15 item a failure of a valid job looks like (without
    re-running it): a refusal saying an index has two extents (5), a C
    compiler error or a wrong value in a job with unary minus chains (1),
    a NaN or inf where the other side has something else (2), a sign of
    zero (2z); else 'other'."""
    if rc == 2 and re.search(r"index '[^']*' has extent \d+ in .* but \d+ "
                             r"in ", err):
        return "5"
    unary = any(fuzz_expr.has_unary_chain(e) for e in stmt_trees(text))
    if rc == 1 and "compiling" in err and re.search(
            r"(^|[^-])--(?:[A-Za-z_(]|\d)|decrement", err, re.M):
        return "1"
    if check_out is not None:
        if "sign of zero differs" in check_out:
            return "2z"
        m = re.search(r"got (\S+), want (\S+)$", check_out)
        if m and re.search(r"nan|inf", m.group(1) + m.group(2)):
            return "2"
        if unary:
            return "1?"
    return "other"


def stmt_trees(text):
    """The right sides of the job's statements, as fuzz_expr trees (none
    if the reference cannot parse them)."""
    ref = load_ref(DEFAULT_REF)
    out = []
    for m in re.finditer(r"compute:\s*(.*)$", text, re.M):
        try:
            out.append(fuzz_expr.from_ref(ref.parse_statement(
                m.group(1)).rhs))
        except Exception:
            pass
    return out


def first_error(err):
    """The line of err that says what went wrong: the first C compiler
    error or located message, else the last line."""
    lines = err.strip().splitlines() or [""]
    for l in lines:
        if re.search(r": (fatal )?error: ", l):
            return l.strip()
    return lines[-1].strip()


def check_plan(distmpmd, path, d, env, stdout):
    """Compare `distmpmd plan --json` with the run's --stats line: bytes
    moved, busiest receiver and messages, and per step bytes and messages,
    must be equal.  Returns None, or why not."""
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
    Returns an Outcome."""
    with open(path) as f:
        text = f.read()
    info = meta(text)
    ok, msg = write_inputs(ref, path)
    if not ok:
        return Outcome(False, msg, "other")
    for attempt in range(3):
        try:
            r = run([distmpmd, "run", path, "--stats"], d, env, timeout)
        except subprocess.TimeoutExpired:
            return Outcome(False, "timeout", "other")
        # the compiler replaced while it runs (a rebuild): try again
        if "cannot find the distmpmd executable" not in r.stderr:
            break
        time.sleep(5)
    check_out = None
    if r.returncode == 0:
        args = ["check", path] + (["--signed-zeros"]
                                  if info["signed-zeros"] else [])
        try:
            crc, out = quiet(ref.main, args)
        except Exception as e:      # the reference failing is a finding too
            crc, out = 2, "reference: %r" % e
        lines = out.strip().splitlines()
        bad = [l for l in lines if l.startswith("FAIL")]
        check_out = (bad or lines or [""])[0 if bad else -1]
    if info["expect"]:
        return judge_expected(text, path, info["expect"], r.returncode,
                              r.stderr, check_out)
    last = first_error(r.stderr)
    if r.returncode == 2 and "not supported" in r.stderr:
        return Outcome(True, "refused: " + last, refusal=last)
    if r.returncode != 0:
        return Outcome(False, "run exit %d: %s" % (r.returncode, last),
                       classify_failure(text, r.returncode, r.stderr, None))
    # the cost model predicted the run's bytes and messages exactly
    why = check_plan(distmpmd, path, d, env, r.stdout)
    if why:
        return Outcome(False, why, "plan")
    if crc == 0:
        return Outcome(True, check_out)
    return Outcome(False, check_out,
                   classify_failure(text, 0, r.stderr, check_out))


def hide_accesses(stmt):
    """(lhs, op, rhs, accesses): the statement's right side with each
    access NAME[...] replaced by the name _aK (its text kept in accesses
    as it was, so that a rewrite keeps every index exactly)."""
    m = re.match(r"\s*(.*?)\s*(\+?=)\s*(.*)$", stmt)
    lhs, op, rhs = m.group(1), m.group(2), m.group(3)
    out, accesses, k = "", [], 0
    while k < len(rhs):
        g = re.match(r"[A-Za-z_]\w*\s*\[", rhs[k:])
        if g:
            depth, j = 0, k + g.end() - 1
            while True:
                depth += rhs[j] == "["
                depth -= rhs[j] == "]"
                j += 1
                if depth == 0:
                    break
            out += "_a%d" % len(accesses)
            accesses.append(rhs[k:j])
            k = j
        else:
            out += rhs[k]
            k += 1
    return lhs, op, out, accesses


def rewrite_job(text, unary=False, poison=False):
    """The job text with every unary minus of its statements' values
    written as (0 - 1) * x, indices kept as written (unary), or without
    its poison."""
    ref = load_ref(DEFAULT_REF)
    out = []
    for line in text.splitlines():
        m = re.match(r"(\s*(?:- )?compute:\s*)(.*)$", line)
        if unary and m:
            lhs, op, rhs, accesses = hide_accesses(m.group(2))
            tree = fuzz_expr.from_ref(ref.parse_statement(
                "_o = " + rhs).rhs)
            rhs = fuzz_expr.text(fuzz_expr.without_unary(tree))
            rhs = re.sub(r"\b_a(\d+)\b",
                         lambda g: accesses[int(g.group(1))], rhs)
            line = m.group(1) + "%s %s %s" % (lhs, op, rhs)
        if poison and line.startswith("# fuzz-poison:"):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def explain(distmpmd, ref, path, env, timeout, outcome):
    """Re-run a failing job without its unary minuses (item 1 if that
    passes) and without its poison (item 2 if that passes).  Returns the
    item and a note."""
    with open(path) as f:
        text = f.read()
    tries = []
    if any(fuzz_expr.has_unary_chain(e) for e in stmt_trees(text)):
        tries.append(("1", "passes with every unary minus written as "
                      "(0 - 1) * x", dict(unary=True)))
    if meta(text)["poison"]:
        tries.append(("2", "passes without the poisoned elements",
                      dict(poison=True)))
    if len(tries) == 2:
        tries.append(("1+2", "passes only without unary minus and poison",
                      dict(unary=True, poison=True)))
    if not tries:
        return outcome.item, "no unary minus, no poison: nothing to rewrite"
    for item, note, kw in tries:
        d = tempfile.mkdtemp(prefix="dmd-explain-")
        p = os.path.join(d, os.path.basename(path))
        with open(p, "w") as f:
            f.write(rewrite_job(text, **kw))
        o = check_job(distmpmd, ref, p, d, env, timeout)
        shutil.rmtree(d, ignore_errors=True)
        if o.ok:
            return item, note
    return outcome.item, "no rewrite passes"


# --------------------------------------------------------------------------
# The seed loop

def one_seed(jobfn, prefix, seed, distmpmd, refpath, timeout, keep,
             do_explain):
    """Generate, run and judge one seed: a JSON-able record."""
    ref = load_ref(refpath)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    d = tempfile.mkdtemp(prefix="dmd-%s-%d-" % (prefix, seed))
    path = os.path.join(d, "%s%d.yaml" % (prefix, seed))
    t0 = time.time()
    try:
        write_job(jobfn, seed, path, ref)
        o = check_job(distmpmd, ref, path, d, env, timeout)
    except Exception as e:          # a generator bug: report, go on
        o = Outcome(False, "fuzzer: %r" % e, "other")
    rec = {"seed": seed, "ok": o.ok, "why": o.why, "item": o.item,
           "refusal": o.refusal, "time": round(time.time() - t0, 2)}
    if not o.ok and do_explain and not o.why.startswith("fuzzer:") \
            and not meta(open(path).read())["expect"] and o.item != "5":
        item, note = explain(distmpmd, ref, path, env, timeout, o)
        if not (o.item == "2z" and item == "2"):
            rec["item"] = item
        rec["explain"] = note
    if o.ok and not keep:
        shutil.rmtree(d)
    else:
        rec["dir"] = d
    return rec


def format_record(r):
    if r["ok"]:
        return "ok %d %s" % (r["seed"], r["why"])
    item = r["item"] or "other"
    s = "FAIL %d [%s] %s (kept in %s)" % (
        r["seed"], "item " + item if item != "other" else "other",
        r["why"], r.get("dir"))
    if r.get("explain"):
        s += "\n    explain: " + r["explain"]
    return s


def run_seeds(job, prefix, lo, hi, distmpmd, ref, timeout, keep,
              jobs=1, log=None, resume=False, do_explain=False):
    """Generate job(seed) for each seed in [lo, hi) into a fresh directory
    (PREFIX-SEED-*/PREFIXSEED.yaml), check it (check_job) and print
    "ok SEED ..." or "FAIL SEED [item] ... (kept in DIR)", in seed order
    when jobs > 1.  log: append a JSON line per seed; resume: skip the
    seeds the log already has (and count them).  Returns the records."""
    done = {}
    if log and resume and os.path.exists(log):
        with open(log) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if lo <= r["seed"] < hi:
                    done[r["seed"]] = r
        if done:
            print("resuming: %d seed(s) already in %s" % (len(done), log))
    todo = [s for s in range(lo, hi) if s not in done]
    logf = open(log, "a") if log else None
    records = dict(done)

    def emit(r):
        records[r["seed"]] = r
        print(format_record(r))
        sys.stdout.flush()
        if logf:
            logf.write(json.dumps(r) + "\n")
            logf.flush()
    try:
        if jobs <= 1:
            for seed in todo:
                emit(one_seed(job, prefix, seed, distmpmd, ref, timeout,
                              keep, do_explain))
        else:
            with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
                futs = {s: ex.submit(one_seed, job, prefix, s, distmpmd,
                                     ref, timeout, keep, do_explain)
                        for s in todo}
                for s in todo:
                    emit(futs[s].result())
    finally:
        if logf:
            logf.close()
    return [records[s] for s in sorted(records)]


def summary(records):
    """Print the refusals and the failures by item; the last line is
    "N passed, M failed".  Returns the number failed."""
    refusals = collections.Counter(refusal_kind(r["refusal"])
                                   for r in records if r.get("refusal"))
    if refusals:
        print("refusals (%d):" % sum(refusals.values()))
        for m, n in refusals.most_common():
            print("  %4d  %s" % (n, m))
    expected = sum(1 for r in records if r["ok"] and
                   r["why"].startswith("refused as expected"))
    if expected:
        print("refused as expected: %d" % expected)
    failed = [r for r in records if not r["ok"]]
    if failed:
        print("failures by item:")
        by = collections.defaultdict(list)
        for r in failed:
            by[r["item"] or "other"].append(r["seed"])
        for item in sorted(by, key=lambda k: (k.rstrip("?z") == "other",
                                              k)):
            key = item.rstrip("?")
            print("  %-8s %-26s %3d: %s" % (
                "item " + item if key != "other" else "other",
                ITEMS.get(key, ""), len(by[item]),
                " ".join(map(str, by[item][:40])) +
                (" ..." if len(by[item]) > 40 else "")))
    print("%d passed, %d failed" % (len(records) - len(failed), len(failed)))
    return len(failed)


def refusal_kind(line):
    """A refusal message without its location and quoted names."""
    m = re.sub(r"^.*?error: ", "", line)
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"\d+", "N", m)
    return m


def main_for(jobfn, prefix, default_timeout, argv=None):
    """The command line of fuzz.py and fuzz_prog.py (see the docstring)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0:20",
                    help="A:B, the seeds A..B-1")
    ap.add_argument("--keep", action="store_true",
                    help="keep the directories of passing seeds too")
    ap.add_argument("--timeout", type=float, default=default_timeout)
    ap.add_argument("--jobs", "-j", type=int, default=1,
                    help="seeds run at once")
    ap.add_argument("--log", help="append one JSON line per seed")
    ap.add_argument("--resume", action="store_true",
                    help="skip the seeds already in --log")
    ap.add_argument("--explain", action="store_true",
                    help="re-run failures without unary minus / poison")
    ap.add_argument("--print", action="store_true",
                    help="print the jobs, do not run them")
    ap.add_argument("--job", help="check this job file (in its directory)")
    ap.add_argument("--inputs", metavar="JOB",
                    help="write the inputs of JOB, with its poison")
    ap.add_argument("distmpmd", nargs="?")
    ap.add_argument("ref", nargs="?")
    args = ap.parse_args(argv)
    lo, hi = (int(v) for v in args.seeds.split(":"))
    ref = os.path.abspath(args.ref or DEFAULT_REF)
    if args.inputs:
        ok, msg = write_inputs(load_ref(ref), os.path.abspath(args.inputs))
        print(msg or "inputs written")
        return 0 if ok else 1
    if args.print:
        d = tempfile.mkdtemp(prefix="dmd-print-")
        try:
            for seed in range(lo, hi):
                sys.stdout.write(write_job(jobfn, seed, os.path.join(
                    d, "%s%d.yaml" % (prefix, seed)), load_ref(ref)) + "\n")
        finally:
            shutil.rmtree(d)
        return 0
    if not args.distmpmd or not args.ref:
        ap.error("DISTMPMD and REF are required")
    distmpmd = os.path.abspath(args.distmpmd)
    if args.job:
        path = os.path.abspath(args.job)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        o = check_job(distmpmd, load_ref(ref), path, os.path.dirname(path),
                      env, args.timeout)
        rec = {"seed": 0, "ok": o.ok, "why": o.why, "item": o.item,
               "dir": os.path.dirname(path)}
        if not o.ok and args.explain and \
                not meta(open(path).read())["expect"]:
            item, rec["explain"] = explain(
                distmpmd, load_ref(ref), path, env, args.timeout, o)
            if not (o.item == "2z" and item == "2"):
                rec["item"] = item
        print(format_record(rec).replace("FAIL 0", "FAIL", 1)
              .replace("ok 0", "ok", 1))
        return 0 if o.ok else 1
    records = run_seeds(jobfn, prefix, lo, hi, distmpmd, ref, args.timeout,
                        args.keep, args.jobs, args.log, args.resume,
                        args.explain)
    return 1 if summary(records) else 0


def main():
    return main_for(job, "fuzz", 300)


if __name__ == "__main__":
    sys.exit(main())
