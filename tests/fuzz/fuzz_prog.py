#!/usr/bin/python3
"""Random programs: several steps, layouts change from step to step.

    fuzz_prog.py [--seeds A:B] [--jobs N] [--log FILE [--resume]]
                 [--explain] [--keep] [--timeout S] DISTMPMD REF
    fuzz_prog.py --print [--seeds A:B]       print the jobs (and metadata)
    fuzz_prog.py --job FILE DISTMPMD REF     check one job file again
    fuzz_prog.py --inputs FILE [REF]         write its inputs, poisoned

For each seed, generate a small program job (spec 1.5: 2-5 steps, a mesh
of at most 6 ranks, uneven extents, intermediates in layouts that differ
from step to step (some block-cyclic), matrix products with random valid
schedules, partial
sums read by a later step, `repeat` blocks, steps that read what they
write, random expressions (unary minus chains, every function), steps
whose accesses cut each other's ranges (D[i] = A[i + 1] - A[i] into a
shorter D, C[i] = A[2 * i, i]), several output files, an input reading
the file an output writes), run it with `distmpmd run --stats`, and
compare every output with the independent reference (tests/ref/dmd_ref.py).
As in fuzz.py (which runs the seeds, see its docstring): inputs poisoned
with NaN, inf and -0.0, signs of zeros checked in sum-free programs, and
jobs that must be refused: a layout where some block has no holder, two
outputs naming one file (`both write`, naming both).  A job the compiler
refuses with exit 2 and a message saying the feature is not supported
counts as a pass; anything else (a crash, a wrong result, a hang, an
internal error) is a failure, classified by the items of issue 15.
Prints "ok SEED ..." / "FAIL SEED [item] ..." per seed, a breakdown of
the refusals and failures, and "N passed, M failed"; exit 1 if anything
failed.
"""
import collections
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402  (matmul_schedule, the seed loop)
import fuzz_expr  # noqa: E402


# ----------------------------------------------------------------------------
# layouts

def mesh(rng):
    r = rng.random()
    if r < 0.3:
        return ["x"], [rng.randint(2, 4)]
    if r < 0.35:
        return ["x"], [rng.choice([5, 6])]
    shape = [rng.randint(1, 3), rng.randint(2, 3)]
    while shape[0] * shape[1] > 6:
        shape = [rng.randint(1, 3), rng.randint(2, 3)]
    return ["x", "y"], shape


class Layout:
    """dist entries (strings, '-' for not split), split kind, offsets
    {dim: [cuts]}, place {axis: coord}, partial [axes]."""

    def __init__(self, dist, split="block", offsets=None, place=None,
                 partial=None, cyclic=None):
        self.dist = dist
        self.split = split
        self.offsets = offsets or {}
        self.place = place or {}
        self.partial = partial or []
        self.cyclic = cyclic or {}      # {dim: block size} (spec 1.2)

    def axes_used(self, axes):
        used = set()
        for e in self.dist:
            for a in axes:
                if re.search(r"\b%s\b" % a, e):
                    used.add(a)
        return used

    def text(self):
        def q(e):
            return e if re.fullmatch(r"[a-z]+", e) else '"%s"' % e
        s = "dist: [%s]" % ", ".join(q(e) for e in self.dist)
        if self.split != "block" or True:
            s += ", split: %s" % self.split
        if self.offsets:
            s += ", offsets: {%s}" % ", ".join(
                "%d: [%s]" % (d, ", ".join(str(c) for c in cuts))
                for d, cuts in sorted(self.offsets.items()))
        if self.place:
            s += ", place: {%s}" % ", ".join(
                "%s: %d" % kv for kv in sorted(self.place.items()))
        if self.partial:
            s += ", partial: [%s]" % ", ".join(self.partial)
        if self.cyclic:
            s += ", cyclic: {%s}" % ", ".join(
                "%d: %d" % kv for kv in sorted(self.cyclic.items()))
        return s


def rand_layout(rng, dims, axes, shape, kind=None, allow_place=False,
                allow_offsets=True):
    """A random valid layout for a tensor of extents dims.  kind forces a
    family: 'rep' (replicated), 'split0', 'split1', 'two' (one dim over
    both axes), 'both' (dim0, dim1 over the two axes), None: random."""
    nd = len(dims)
    if nd == 0:
        return Layout([])
    if kind is None:
        kinds = ["rep", "split0", "random", "random"]
        if nd >= 2:
            kinds += ["split1"]
            if len(axes) == 2:
                kinds += ["both", "both"]
        if len(axes) == 2:
            kinds += ["two"]
        kind = rng.choice(kinds)
    d = ["-"] * nd

    def ax_expr(a):
        i = axes.index(a)
        if rng.random() < 0.15 and shape[i] > 1:
            return "(%s + %d) %% %d" % (a, rng.randint(1, shape[i] - 1),
                                       shape[i])
        return a

    if kind == "rep":
        pass
    elif kind in ("split0", "split1"):
        dim = 0 if kind == "split0" or nd < 2 else 1
        d[dim] = ax_expr(rng.choice(axes))
    elif kind == "two" and len(axes) == 2:
        dim = rng.randrange(nd)
        a, b = rng.sample(axes, 2)
        d[dim] = "%s * %d + %s" % (a, shape[axes.index(b)], b)
    elif kind == "both" and len(axes) == 2 and nd >= 2:
        a, b = rng.sample(axes, 2)
        d[0], d[1] = ax_expr(a), ax_expr(b)
    else:
        free = list(axes)
        rng.shuffle(free)
        for i in range(nd):
            if free and rng.random() < 0.6:
                d[i] = ax_expr(free.pop())
    split = rng.choice(["block", "block", "balanced"])
    offsets = {}
    if allow_offsets:
        for i, e in enumerate(d):
            if e in axes and rng.random() < 0.25:
                b = shape[axes.index(e)]
                cuts = sorted(rng.randint(0, dims[i]) for _ in range(b - 1))
                offsets[i] = [0] + cuts + [dims[i]]
    split_dims = [e for e in d if e != "-"]
    if split == "balanced" and offsets and len(offsets) == len(split_dims):
        split = "block"
    # sometimes block-cyclic (spec 1.2, v3) on a split dimension without
    # offsets, drawn from a generator of its own so that every seed's
    # program is otherwise the one it always was
    crng = random.Random("cyc:%s" % (rng.getstate()[1][:8],))
    cyclic = {i: crng.choice([1, 2, 3]) for i, e in enumerate(d)
              if e != "-" and i not in offsets and crng.random() < 0.2}
    if cyclic:
        split = "block"     # balanced and cyclic do not combine
    lay = Layout(d, split, offsets, cyclic=cyclic)
    unused = [a for a in axes if a not in lay.axes_used(axes)]
    if allow_place and unused and rng.random() < 0.15:
        a = rng.choice(unused)
        lay.place = {a: rng.randint(0, shape[axes.index(a)] - 1)}
    return lay


# ----------------------------------------------------------------------------
# programs

FUNCS1 = ["tanh(%s)", "sigmoid(%s)", "erf(%s)", "gelu(%s)", "abs(%s)",
          "log(abs(%s) + 1)", "relu(%s)", "exp(-abs(%s))",
          "sqrt(abs(%s))", "(%s) / (1 + abs(%s))", "sqrt(%s)", "log(%s)",
          "- -%s", "-(-%s)", "max(%s, 0.5)", "min(-0.5, %s, - -1)",
          "exp(tanh(%s))"]


def func1(rng, x):
    f = rng.choice(FUNCS1)
    return f.replace("%s", x)


class Tensor:
    def __init__(self, name, dims, layout, role):
        self.name = name
        self.dims = list(dims)
        self.layout = layout
        self.role = role          # 'in', 'mid' (intermediate), 'out' (file)
        self.file = role == "out" or (role == "in" and False)
        self.fname = name + ".npy"
        self.seed = None
        self.written = False
        self.bound = 1.0 if role == "in" else 100.0


class Program:
    def __init__(self, rng, seed):
        self.rng = rng
        self.seed = seed
        self.axes, self.shape = mesh(rng)
        self.dtype = rng.choice(["f32", "f64"])
        self.tensors = collections.OrderedDict()
        self.steps = []           # lines (already indented at level 0)
        self.nsteps = 0
        self.names = iter("ABCDEFGHJKLMNOPQRSTUVWZ")
        # a few extents per program, some of them smaller than the mesh
        pool = [1, 2, 3, 5, 7, 7, 9, 11, 13, 13, 16, 17, 19, 23]
        self.extents = rng.sample(pool, 4)
        self.expect = []          # metadata: the job must be refused
        # sometimes one tensor in a layout where some block has no holder
        self.unheld = rng.random() < 0.06

    # --- tensors
    def new(self, dims, role, layout=None, kind=None, partial_ok=False):
        name = next(self.names)
        rng = self.rng
        if layout is None:
            layout = rand_layout(rng, dims, self.axes, self.shape, kind,
                                 allow_place=(role == "in" or
                                              rng.random() < 0.3))
        if self.unheld and dims and rng.random() < 0.4:
            lay = fuzz_expr.unheld_layout(rng, len(dims), self.axes,
                                          self.shape)
            if lay:
                layout = Layout(lay[0], "block", None, lay[1])
                self.unheld = False
                partial_ok = False
                self.expect.append("# fuzz-expect: no rank holds block; "
                                   "%s" % name)
        t = Tensor(name, dims, layout, role)
        if role == "in":
            if rng.random() < 0.45:
                t.file = True
            else:
                t.seed = rng.randint(0, 99)
            t.written = True
        if partial_ok and role != "out":
            unused = [a for a in self.axes
                      if a not in layout.axes_used(self.axes)
                      and a not in layout.place]
            if unused:
                k = rng.randint(1, len(unused))
                layout.partial = sorted(rng.sample(unused, k),
                                        key=self.axes.index)
        self.tensors[name] = t
        return t

    def ext(self):
        return self.rng.choice(self.extents)

    def pool(self, nd=None, pred=None):
        out = [t for t in self.tensors.values() if t.written
               and (nd is None or len(t.dims) == nd)
               and (pred is None or pred(t))]
        return out

    def pick_or_new(self, dims_pred, make_dims, nd):
        c = self.pool(nd, lambda t: dims_pred(t.dims))
        if c and self.rng.random() < 0.7:
            return self.rng.choice(c)
        return self.new(make_dims(), "in")

    def out_role(self, last):
        return "out" if (last or self.rng.random() < 0.3) else "mid"

    def emit(self, stmt, sched=None, indent=""):
        self.steps.append(indent + "  - compute: " + stmt)
        if sched:
            self.steps.append(indent + "    schedule:")
            self.steps += [indent + "      - " + c for c in sched]
        self.nsteps += 1

    # --- schedules
    def elem_sched(self, loopvars, reads, prob=0.45):
        """distribute some loops over axes, maybe split an inner loop,
        maybe communicate an input at some loop."""
        rng = self.rng
        if rng.random() > prob:
            return []
        axes = list(self.axes)
        rng.shuffle(axes)
        n = rng.randint(1, min(len(axes), len(loopvars)))
        dv = rng.sample(loopvars, n)
        dv.sort(key=loopvars.index)
        sched = ["distribute([%s], [%s], [%s], [%s])" % (
            ", ".join(dv), ", ".join(v + "o" for v in dv),
            ", ".join(v + "i" for v in dv), ", ".join(axes[:n]))]
        loops = [v + "o" for v in dv] + [v + "i" if v in dv else v
                                         for v in loopvars]
        if reads and rng.random() < 0.5:
            inner = [l for l in loops if not l.endswith("o")]
            at = rng.choice(inner + [l for l in loops if l.endswith("o")])
            if at in inner and rng.random() < 0.5:
                sched.append("split(%s, %st, %su, %d)" % (
                    at, at, at, rng.randint(2, 5)))
                at = at + "t"
            sched.append("communicate(%s, %s)" % (
                rng.choice(reads) if rng.random() < 0.7 else
                "[%s]" % ", ".join(reads), at))
        return sched

    def matmul_sched(self):
        """fuzz.py's schedule patterns for C[m, n] = A * B, and the axis
        k is distributed over (or None)."""
        return fuzz.matmul_schedule(self.rng, self.axes, 0.5,
                                    ("%(A)s", "%(B)s"))

    # --- step kinds
    def step_reshard(self, last):
        rng = self.rng
        src = rng.choice(self.pool())
        if not src.dims:
            return False
        # a layout that differs from the source's
        for _ in range(5):
            lay = rand_layout(rng, src.dims, self.axes, self.shape,
                              allow_place=rng.random() < 0.2)
            if lay.dist != src.layout.dist:
                break
        role = self.out_role(last)
        dst = self.new(src.dims, role, layout=lay,
                       partial_ok=(role == "mid" and rng.random() < 0.15))
        iv = ["i", "j", "l"][:len(src.dims)]
        rhs = "%s[%s]" % (src.name, ", ".join(iv))
        r = rng.random()
        if r < 0.55:
            pass                                   # pure redistribution
        elif r < 0.8:
            rhs = func1(rng, rhs)
        else:
            rhs = "%s * %s" % (rng.choice(["2", "0.5", "-1", "3"]), rhs)
        sched = self.elem_sched(iv, [src.name], 0.2)
        self.emit("%s[%s] = %s" % (dst.name, ", ".join(iv), rhs), sched)
        dst.written = True
        return True

    def step_transpose(self, last):
        rng = self.rng
        c = self.pool(2)
        if not c:
            return False
        src = rng.choice(c)
        role = self.out_role(last)
        dst = self.new(src.dims[::-1], role)
        rhs = "%s[i, j]" % src.name
        if rng.random() < 0.4:
            rhs = func1(rng, rhs)
        sched = self.elem_sched(["j", "i"], [src.name], 0.25)
        self.emit("%s[j, i] = %s" % (dst.name, rhs), sched)
        dst.written = True
        return True

    def step_elem(self, last):
        rng = self.rng
        a = rng.choice(self.pool())
        if not a.dims:
            return False
        same = [t for t in self.pool() if t.dims == a.dims and t is not a]
        b = rng.choice(same) if same and rng.random() < 0.7 else \
            self.new(a.dims, "in")
        iv = ["i", "j", "l"][:len(a.dims)]
        ia, ib = ("%s[%s]" % (t.name, ", ".join(iv)) for t in (a, b))
        forms = ["%s + %s" % (func1(rng, ia), func1(rng, ib)),
                 "%s * %s - %s" % (ia, ib, ia),
                 "max(%s, %s) + 0.5" % (ia, ib),
                 "min(%s, %s, 0.75) - %s" % (ia, func1(rng, ib), ia),
                 "%s * %s" % (func1(rng, ia), ib),
                 "2 * %s + 1 - %s / 3" % (ia, ib)]
        rhs = rng.choice(forms)
        role = self.out_role(last)
        op = "="
        dst = None
        if rng.random() < 0.2:
            # accumulate into an existing tensor of that shape
            cand = [t for t in self.pool() if t.dims == a.dims
                    and not t.layout.partial]
            if cand:
                dst = rng.choice(cand)
                op = "+="
        if dst is None:
            dst = self.new(a.dims, role,
                           partial_ok=(role == "mid" and rng.random() < 0.1))
        sched = self.elem_sched(iv, sorted({a.name, b.name}), 0.35)
        self.emit("%s[%s] %s %s" % (dst.name, ", ".join(iv), op, rhs), sched)
        dst.written = True
        return True

    def step_matmul(self, last):
        rng = self.rng
        c2 = self.pool(2)
        if c2 and rng.random() < 0.8:
            A = rng.choice(c2)
        else:
            A = self.new([self.ext() + 2, self.ext() + 2], "in")
        ta = rng.random() < 0.25
        M, K = (A.dims[1], A.dims[0]) if ta else (A.dims[0], A.dims[1])
        tb = rng.random() < 0.25
        bc = self.pool(2, lambda t: (t.dims[1] if tb else t.dims[0]) == K
                       and t is not A)
        if bc and rng.random() < 0.6:
            B = rng.choice(bc)
            N = B.dims[0] if tb else B.dims[1]
        else:
            N = self.ext() + rng.randint(0, 3)
            B = self.new([N, K] if tb else [K, N], "in")
        sched, kaxis = self.matmul_sched()
        sched = [s % {"A": A.name, "B": B.name} for s in sched]
        role = self.out_role(last)
        op = "="
        dst = None
        if rng.random() < 0.15:
            cand = self.pool(2, lambda t: t.dims == [M, N])
            if cand:
                dst = rng.choice(cand)
                op = "+="
        if dst is None:
            lay = rand_layout(rng, [M, N], self.axes, self.shape,
                              allow_place=rng.random() < 0.1)
            dst = self.new([M, N], role, layout=lay)
            if role == "mid" and rng.random() < 0.5:
                unused = [a for a in self.axes
                          if a not in lay.axes_used(self.axes)
                          and a not in lay.place]
                if unused:
                    if kaxis in unused and rng.random() < 0.8:
                        lay.partial = [kaxis]
                    else:
                        lay.partial = [rng.choice(unused)]
        a = "%s[k, m]" % A.name if ta else "%s[m, k]" % A.name
        b = "%s[n, k]" % B.name if tb else "%s[k, n]" % B.name
        self.emit("%s[m, n] %s %s * %s" % (dst.name, op, a, b), sched)
        dst.written = True
        return True

    def pick_matrix(self):
        """A matrix of the pool, whether its columns (else its rows) are
        taken, and that extent; None if the pool has no matrix."""
        c = self.pool(2)
        if not c:
            return None
        A = self.rng.choice(c)
        col = self.rng.random() < 0.5
        return A, col, A.dims[1] if col else A.dims[0]

    def step_reduce(self, last):
        """row/column sums (possibly into a partial vector), or a matvec."""
        rng = self.rng
        picked = self.pick_matrix()
        if not picked:
            return False
        A, col, n = picked
        role = self.out_role(last)
        dst = self.new([n], role, partial_ok=(role == "mid" and
                                              rng.random() < 0.5))
        acc = "%s[i, j]" % A.name
        v = "j" if col else "i"
        r = rng.random()
        if r < 0.4:
            rhs = acc
        elif r < 0.7:
            rhs = "%s * %s" % (acc, acc)
        else:
            other = A.dims[0] if col else A.dims[1]
            cand = self.pool(1, lambda t: t.dims == [other])
            w = rng.choice(cand) if cand and rng.random() < 0.6 else \
                self.new([other], "in")
            rhs = "%s * %s[%s]" % (acc, w.name, "i" if col else "j")
        loops = [v, "i" if col else "j"]
        sched = self.elem_sched(loops, [A.name], 0.3)
        self.emit("%s[%s] = %s" % (dst.name, v, rhs), sched)
        dst.written = True
        return True

    def step_broadcast(self, last):
        """O[i, j] = A[i, j] * v[j] (+ partial or not)."""
        rng = self.rng
        picked = self.pick_matrix()
        if not picked:
            return False
        A, col, n = picked
        cand = self.pool(1, lambda t: t.dims == [n])
        v = rng.choice(cand) if cand and rng.random() < 0.8 else \
            self.new([n], "in")
        role = self.out_role(last)
        dst = self.new(A.dims, role)
        vi = "%s[%s]" % (v.name, "j" if col else "i")
        rhs = rng.choice(["%s[i, j] * %s" % (A.name, vi),
                          "%s[i, j] - %s" % (A.name, func1(rng, vi)),
                          "%s * %s[i, 0]" % (func1(rng, vi), A.name)])
        self.emit("%s[i, j] = %s" % (dst.name, rhs),
                  self.elem_sched(["i", "j"], [A.name, v.name], 0.25))
        dst.written = True
        return True

    def stencil_stmt(self, dst, src, nd):
        rng = self.rng
        if nd == 1:
            return rng.choice([
                "%(d)s[i] = (%(s)s[i - 1] + %(s)s[i] + %(s)s[i + 1]) / 3",
                "%(d)s[i] = 0.5 * %(s)s[i] + 0.25 * (%(s)s[i - 1] + "
                "%(s)s[i + 1])",
                "%(d)s[i] = max(%(s)s[i - 2], %(s)s[i + 1]) * 0.5",
                "%(d)s[i] = tanh(%(s)s[i + 2] - %(s)s[i])",
            ]) % {"d": dst, "s": src}
        return rng.choice([
            "%(d)s[i, j] = (%(s)s[i - 1, j] + %(s)s[i + 1, j] + "
            "%(s)s[i, j - 1] + %(s)s[i, j + 1]) / 4",
            "%(d)s[i, j] = %(s)s[i - 1, j] + 2 * %(s)s[i, j + 1] - "
            "%(s)s[i + 1, j] * %(s)s[i, j - 1]",
        ]) % {"d": dst, "s": src}

    def stencil_sched(self, nd):
        rng = self.rng
        if rng.random() < 0.5:
            return []
        if nd == 1:
            s = ["distribute([i], [io], [ii], [%s])" % rng.choice(self.axes)]
            r = rng.random()
            if r < 0.4:
                s += ["split(ii, it, iu, %d)" % rng.randint(2, 5),
                      "communicate(%(S)s, it)"]
            elif r < 0.7:
                s += ["communicate(%(S)s, io)"]
            return s
        if len(self.axes) == 2:
            s = ["distribute([i, j], [io, jo], [ii, ji], [%s])" %
                 ", ".join(rng.sample(self.axes, 2))]
            if rng.random() < 0.5:
                s.append("communicate(%%(S)s, %s)" % rng.choice(
                    ["io", "jo", "ii"]))
            return s
        return ["distribute([i], [io], [ii], [x])"]

    def step_stencil(self, last):
        rng = self.rng
        nd = 1 if rng.random() < 0.6 else 2
        c = self.pool(nd, lambda t: min(t.dims) >= 3)
        if c and rng.random() < 0.7:
            src = rng.choice(c)
        else:
            dims = [rng.choice([7, 13, 17, 31, 127])] if nd == 1 else \
                [self.ext() + 3, self.ext() + 3]
            src = self.new(dims, "in")
        role = self.out_role(last)
        dst = self.new(src.dims, role)
        sched = [s % {"S": src.name} for s in self.stencil_sched(nd)]
        self.emit(self.stencil_stmt(dst.name, src.name, nd), sched)
        dst.written = True
        return True

    def step_repeat(self, last):
        """jacobi-like: repeat N { B = stencil(A); A = B }, B maybe in
        another layout."""
        rng = self.rng
        nd = 1 if rng.random() < 0.6 else 2
        c = self.pool(nd, lambda t: min(t.dims) >= 3 and
                      not t.layout.partial)
        if c and rng.random() < 0.6:
            A = rng.choice(c)
        else:
            dims = [rng.choice([7, 13, 17, 31, 127])] if nd == 1 else \
                [self.ext() + 3, self.ext() + 3]
            A = self.new(dims, "in")
        if rng.random() < 0.5:
            lay = Layout(list(A.layout.dist), A.layout.split,
                         dict(A.layout.offsets), dict(A.layout.place))
        else:
            lay = None
        B = self.new(A.dims, "mid", layout=lay)
        iv = "i" if nd == 1 else "i, j"
        if rng.random() < 0.4:
            self.emit("%s[%s] = %s[%s]" % (B.name, iv, A.name, iv))
        n = rng.randint(2, 5)
        self.steps.append("  - repeat: %d" % n)
        self.steps.append("    steps:")
        sched = [s % {"S": A.name} for s in self.stencil_sched(nd)]
        self.emit(self.stencil_stmt(B.name, A.name, nd), sched, "    ")
        back = "%s[%s] = %s[%s]" % (A.name, iv, B.name, iv)
        self.emit(back, None, "    ")
        B.written = True
        if A.role == "in" and not A.file and last:
            pass
        # A is written: if it has no file it is not an output; give the
        # program a visible result.
        if A.role != "out" and not A.file:
            self.need_out.append(A)
        return True

    def step_selfread(self, last):
        rng = self.rng
        c = self.pool(None, lambda t: len(t.dims) in (1, 2)
                      and not t.layout.partial)
        sq = [t for t in c if len(t.dims) == 2 and t.dims[0] == t.dims[1]]
        one = [t for t in c if len(t.dims) == 1]
        r = rng.random()
        if sq and r < 0.4:
            T = rng.choice(sq)
            stmt = rng.choice(["%(T)s[i, j] += %(T)s[j, i]",
                               "%(T)s[i, j] = %(T)s[j, i] - %(T)s[i, j]"])
        elif one and r < 0.8:
            T = rng.choice(one)
            E = T.dims[0]
            stmt = rng.choice(["%%(T)s[i] += %%(T)s[%d - i]" % (E - 1),
                               "%(T)s[i] = %(T)s[i - 1] + %(T)s[i + 1]",
                               "%%(T)s[i] = tanh(%%(T)s[%d - i]) * %%(T)s[i]"
                               % (E - 1)])
        else:
            n = self.ext() + 2
            T = self.new([n, n], "in")
            stmt = "%(T)s[i, j] += %(T)s[j, i]"
        self.emit(stmt % {"T": T.name})
        if T.role != "out" and not T.file:
            self.need_out.append(T)
        return True

    def step_scalar(self, last):
        """s = sum A[i, j] * A[i, j] (maybe partial), then scale."""
        rng = self.rng
        c = self.pool(2)
        if not c:
            return False
        A = rng.choice(c)
        s = self.new([], "mid", partial_ok=rng.random() < 0.1)
        self.emit("%s = %s[i, j] * %s[i, j]" % (s.name, A.name, A.name))
        s.written = True
        dst = self.new(A.dims, self.out_role(last))
        self.emit("%s[i, j] = %s[i, j] / (1 + %s)" % (dst.name, A.name,
                                                      s.name))
        dst.written = True
        return True

    def step_expr(self, last):
        """A random expression (fuzz_expr: unary minus chains, every
        function and operator) over tensors of one shape, into a new
        tensor or added to one (maybe itself: T[i] += - - T[i] * 2)."""
        rng = self.rng
        a = rng.choice(self.pool())
        iv = ["i", "j", "l"][:len(a.dims)]
        idx = "[%s]" % ", ".join(iv) if iv else ""
        same = [t for t in self.pool() if t.dims == a.dims and t is not a]
        srcs = [a] + rng.sample(same, min(len(same), rng.randint(0, 2)))
        if rng.random() < 0.3:
            srcs.append(self.new(a.dims, "in"))
        leaves = [(t.name + idx, t.bound) for t in srcs]
        op, dst = "=", None
        if rng.random() < 0.25:
            cand = [t for t in self.pool() if t.dims == a.dims
                    and not t.layout.partial]
            if cand:
                dst = rng.choice(cand)
                op = "+="
                if rng.random() < 0.5:
                    leaves.append((dst.name + idx, dst.bound))
        if dst is None:
            dst = self.new(a.dims, self.out_role(last),
                           partial_ok=rng.random() < 0.05)
        g = fuzz_expr.ExprGen(rng, leaves, rng.choice([2, 3, 4]))
        rhs = fuzz_expr.text(g.expr(), rng)
        sched = self.elem_sched(iv, sorted({t.name for t in srcs}), 0.35) \
            if iv else []
        self.emit("%s%s %s %s" % (dst.name, idx, op, rhs), sched)
        dst.written = True
        if op == "+=" and dst.role != "out" and not dst.file:
            self.need_out.append(dst)
        return True

    def step_cut(self, last):
        """Accesses whose ranges cut each other (spec 1.3): D[i] =
        A[i + d] - A[i] into a D of another extent, C[i] = A[2 * i, i],
        a diagonal, or vectors of different extents added."""
        rng = self.rng
        r = rng.random()
        one = self.pool(1, lambda t: not t.layout.partial)
        two = self.pool(2, lambda t: not t.layout.partial)
        if r < 0.35 and one:
            A = rng.choice(one)
            d = rng.randint(1, 2)
            E = A.dims[0]
            D = self.new([max(1, E - d + rng.choice([0, 0, -1, 1]))],
                         self.out_role(last))
            form = rng.choice(["%(A)s[i + %(d)d] - %(A)s[i]",
                               "%(A)s[i - -%(d)d] - %(A)s[- -i]",
                               "(%(A)s[i + %(d)d] - %(A)s[i]) / 2"])
            stmt = "%s[i] = " % D.name + form % {"A": A.name, "d": d}
            iv, reads = ["i"], [A.name]
        elif r < 0.7 and two:
            A = rng.choice(two)
            R, Q = A.dims
            C = self.new([rng.randint(1, max(R, Q) + 1)],
                         self.out_role(last))
            stmt = "%s[i] = %s" % (C.name, rng.choice([
                "%(A)s[2 * i, i]", "%(A)s[i, i + 1]", "%(A)s[i, 2 * i + 1]",
                "- -%(A)s[i, i] * 2", "%(A)s[3 - i, i]"]) % {"A": A.name})
            iv, reads = ["i"], [A.name]
        elif len(one) >= 2:
            A, B = rng.sample(one, 2)
            C = self.new([rng.choice([A.dims[0], B.dims[0],
                                      self.ext() + 1])],
                         self.out_role(last))
            stmt = "%s[i] = %s[i] %s %s[i]" % (
                C.name, A.name, rng.choice(["+", "*", "- -", "-"]), B.name)
            iv, reads = ["i"], [A.name, B.name]
        else:
            return False
        self.emit(stmt, self.elem_sched(iv, reads, 0.35))
        self.tensors[stmt.split("[")[0]].written = True
        return True

    def share_files(self):
        """Sometimes two written tensors name one file (must be refused:
        'both write', naming both), or an input that no step writes reads
        the file an output writes (valid: read before, written after)."""
        rng = self.rng
        outs = [t for t in self.tensors.values() if t.written and
                t.role == "out"]
        r = rng.random()
        if r < 0.1 and outs and not self.expect:     # one refusal a job
            a = rng.choice(outs)
            others = [t for t in outs if t is not a]
            mids = [t for t in self.tensors.values() if t.written and
                    t.role == "mid" and not t.layout.partial and
                    self.is_written_by_step(t)]
            if others:
                b = rng.choice(others)
            elif mids:
                b = rng.choice(mids)
                b.role, b.file = "out", True
            else:
                return
            b.fname = a.fname
            self.expect.append("# fuzz-expect: both write; %s %s" % tuple(
                sorted([a.name, b.name])))
        elif r < 0.18 and outs:
            ins = [t for t in self.tensors.values() if t.role == "in" and
                   t.file and not self.is_written_by_step(t)]
            if ins:
                rng.choice(ins).fname = rng.choice(outs).fname

    def generate(self):
        rng = self.rng
        self.need_out = []
        # a starting input
        if rng.random() < 0.75:
            self.new([self.ext() + 1, self.ext() + 1], "in")
        else:
            self.new([rng.choice([7, 13, 17, 31, 127])], "in")
        target = rng.randint(2, 5)
        kinds = [(self.step_reshard, 5), (self.step_matmul, 4),
                 (self.step_elem, 3), (self.step_transpose, 1),
                 (self.step_reduce, 2), (self.step_broadcast, 1),
                 (self.step_stencil, 2), (self.step_repeat, 2),
                 (self.step_selfread, 2), (self.step_scalar, 1),
                 (self.step_expr, 4), (self.step_cut, 2)]
        fns, weights = zip(*kinds)
        tries = 0
        while self.nsteps < target and tries < 50:
            tries += 1
            last = self.nsteps == target - 1
            # prefer to consume a pending partial tensor
            partial = [t for t in self.pool() if t.layout.partial
                       and not t.read]
            if partial and rng.random() < 0.7:
                self.consume_partial(rng.choice(partial), last)
                continue
            f = rng.choices(fns, weights)[0]
            try:
                f(last)
            except StopIteration:
                break
        # partials never read: read them now into an output
        for _ in range(5):
            todo = [t for t in self.tensors.values()
                    if t.layout.partial and t.written and not t.read]
            if not todo:
                break
            for t in todo:
                self.consume_partial(t, True)
        # tensors updated in place that nobody sees: write them out
        for t in self.need_out:
            if t.role != "out" and not t.file and not t.layout.partial:
                self.copy_out(t)
        if not any(t.role == "out" and t.written
                   for t in self.tensors.values()) and \
                not any(t.file and t.written and t.role == "in" and
                        self.is_written_by_step(t) for t in
                        self.tensors.values()):
            srcs = [t for t in self.pool() if t.dims]
            self.copy_out(srcs[-1])
        self.share_files()

    def is_written_by_step(self, t):
        return any(re.match(r"\s*- compute: %s\b" % t.name, s)
                   for s in self.steps)

    def copy_out(self, t):
        lay = rand_layout(self.rng, t.dims, self.axes, self.shape)
        o = self.new(t.dims, "out", layout=lay)
        iv = ["i", "j", "l"][:len(t.dims)]
        self.emit("%s[%s] = %s[%s]" % (o.name, ", ".join(iv), t.name,
                                       ", ".join(iv)))
        o.written = True

    def consume_partial(self, P, last):
        """all-reduce into replicated, reduce-scatter into split, or an
        element-wise step on it."""
        rng = self.rng
        P.read = True
        role = "out" if (last or rng.random() < 0.5) else "mid"
        if not P.dims:
            o = self.new([], role)
            self.emit("%s = %s * 2" % (o.name, P.name))
            o.written = True
            return
        iv = ["i", "j", "l"][:len(P.dims)]
        acc = "%s[%s]" % (P.name, ", ".join(iv))
        r = rng.random()
        if r < 0.06 and not last:
            # update in place (stays partial)
            forms = ["%s = 2 * %s" % (acc, acc), "%s += %s" % (acc, acc)]
            if len(P.dims) == 2 and P.dims[0] == P.dims[1]:
                forms.append("%s += %s[j, i]" % (acc, P.name))
            P.read = False
            self.emit(rng.choice(forms))
            return
        if r < 0.18 and not last:
            # a step on the partials into another tensor partial along the
            # same axes (linear or not: the compiler must tell)
            q = self.new(P.dims, "mid", layout=Layout(
                list(P.layout.dist), P.layout.split,
                dict(P.layout.offsets), dict(P.layout.place),
                list(P.layout.partial)))
            same = [t for t in self.pool() if t.dims == P.dims
                    and t is not P and not t.layout.partial]
            forms = ["2 * %s" % acc, "%s + 1" % acc, "%s * %s" % (acc, acc),
                     func1(rng, acc), "-%s" % acc]
            if same:
                o = "%s[%s]" % (rng.choice(same).name, ", ".join(iv))
                forms += ["%s * %s" % (acc, o), "%s + %s" % (acc, o)]
            if len(P.dims) == 2 and P.dims[0] == P.dims[1]:
                forms.append("%s[j, i] - %s" % (P.name, acc))
            self.emit("%s[%s] = %s" % (q.name, ", ".join(iv),
                                       rng.choice(forms)))
            q.written = True
            return
        r = rng.random()
        if r < 0.3:
            lay = rand_layout(rng, P.dims, self.axes, self.shape, "rep")
        elif r < 0.6:
            # split along one of the partial axes (reduce-scatter)
            a = rng.choice(P.layout.partial)
            d = list(P.layout.dist)
            free = [i for i, e in enumerate(d) if e == "-"]
            if free:
                d[rng.choice(free)] = a
            lay = Layout(d, rng.choice(["block", "balanced"]))
        else:
            lay = rand_layout(rng, P.dims, self.axes, self.shape)
        o = self.new(P.dims, role, layout=lay)
        r = rng.random()
        if r < 0.5:
            rhs = acc
        elif r < 0.75:
            rhs = "3 * %s" % acc
        else:
            rhs = func1(rng, acc)
        self.emit("%s[%s] = %s" % (o.name, ", ".join(iv), rhs),
                  self.elem_sched(iv, [P.name], 0.2))
        o.written = True

    def text(self):
        seed = self.seed
        out = ["# fuzz_prog seed %d" % seed] + self.expect[:1] + [
               "name: fuzzprog%d" % seed,
               "mesh: {axes: [%s], shape: [%s]}" % (
                   ", ".join(self.axes), ", ".join(str(s)
                                                  for s in self.shape)),
               "tensors:"]
        for t in self.tensors.values():
            s = "  %s: {shape: [%s], dtype: %s, %s" % (
                t.name, ", ".join(str(e) for e in t.dims), self.dtype,
                t.layout.text())
            if t.role == "out" or (t.role == "in" and t.file):
                s += ", file: %s" % t.fname
            elif t.role == "in":
                s += ", init: random, seed: %d" % t.seed
            out.append(s + "}")
        out.append("program:")
        out += self.steps
        return "\n".join(out) + "\n"


Tensor.read = False


def job(seed):
    rng = random.Random(seed)
    p = Program(rng, seed)
    p.generate()
    return p.text()


# ----------------------------------------------------------------------------
# driver: fuzz.py's (seed loop, poisoning, judging, --log, --explain)

def main():
    return fuzz.main_for(job, "fuzzprog", 120)


if __name__ == "__main__":
    sys.exit(main())
