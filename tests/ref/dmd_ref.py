#!/usr/bin/python3
"""Independent sequential reference for distmpmd jobs and programs.

It reads a job file (see shared/spec/job-format.md, sections 1.2, 1.3 and
1.5), ignores mesh, dist, split, offsets, place, partial and schedule for
the values (layouts and schedules change performance, never results; a
partial tensor's value is simply its value), and runs the program in
float64 with numpy.  It shares no code with the C compiler on purpose.

    dmd_ref.py inputs JOB.yaml             write the input .npy files
    dmd_ref.py check JOB.yaml [--rtol R] [--signed-zeros]
                                           compare every output .npy file
                                           with the expected values (NaN
                                           equals NaN, inf only inf; with
                                           --signed-zeros also the sign of
                                           each zero)
    dmd_ref.py expect JOB.yaml OUT.npy     write the expected output (float64)
    dmd_ref.py expect JOB.yaml DIR         write every output as DIR/NAME.npy
    dmd_ref.py ideal JOB.yaml              ideal data movement of each step
    dmd_ref.py blocks JOB.yaml DIR         check the block of every output that
                                           every rank holds, as the ranks
                                           dumped them (DMD_DUMP_BLOCKS=DIR)

Exit status: 0 ok, 1 mismatch (check), 2 bad arguments or bad job.

Semantics, as implemented here (a 'compute' job is a program of one step):
  * inputs: the tensors some step reads before any step writes them (walking
    the program in order, a 'repeat' once).  An input with 'file' is read
    from it (by 'check': from the values 'inputs' wrote, rebuilt from the
    seed when the program also writes that file, through that tensor or
    another naming the same file); one without is
    initialised by 'init' (random, zeros, ones); one with neither is an
    error (an intermediate read before it is written).  Every other tensor
    starts as zeros: 'init' only initialises inputs, as in v1, where the
    output of '=' starts at zero whatever its 'init'.
  * outputs: every tensor with 'file' that some step writes; 'check'
    compares all of them, each against its file's dtype.
  * a step: its right side is evaluated on the values of all tensors
    before the step (B[i] += B[7 - i] adds the reversed old B).  Index
    variables range over the integer points where ALL accesses of the step
    (left side included) are in bounds; variables only on the right are
    summed over, around the whole right side.  With '=' the elements some
    point writes start at zero, with '+=' at their value; elements no point
    writes keep their value (with '=' too).  Several points writing one
    element (B[i + j] = ...) add up.  A step with no such sum (no
    reduction variable, each element written by one point: writes_once)
    evaluates its right side as C evaluates the expression tree and
    assigns it (with '+=': adds it to the old value once), so the sign of
    a zero is C's: B[i] = -A[i] of 0 is -0.0 (a sum started at zero would
    make it +0.0).
  * 'repeat: N' runs its steps N times in order (nested repeats allowed).
  * functions: max, min (2 or more arguments), exp, sqrt, relu, tanh,
    sigmoid = 1/(1+exp(-x)), erf, gelu = 0.5*x*(1+erf(x/sqrt(2))), abs, log.
  * all values float64; inputs are rounded to their dtype first (a file
    holds them so; random init is rounded to the dtype as in spec 1.2).

Evaluation: the fast path cuts the iteration space into boxes on which every
access is in bounds and the left side is one-to-one, evaluates each access
as a strided view of its tensor over the box, and each product term of the
right side with numpy.einsum (optimize=True: BLAS for matrix products),
element-wise parts by broadcasting.  Index patterns it cannot cut into few
such boxes fall back to the point-by-point evaluator (kept for that and to
cross-check the fast path in the self-test).

'ideal' prints one line per step of the program text (the order of the
'steps' array of --stats):  STEP RUNS BYTES MESSAGES STATEMENT, where RUNS is
how many times the step runs (the counts of the repeats around it
multiplied) and BYTES, MESSAGES are totals over those runs; '-' for a step
that is not a redistribution.  A redistribution is a step B[i, j] = A[i, j]:
'=', the right side one access with the same distinct plain index variables
in the same order as the left side, A and B of the same shape (A may be
partial; a partial B is not handled: '-').  From the layouts (spec 1.2,
computed here independently of the compiler):
  * rank r holds element e of a tensor when it lies on the tensor's 'place'
    slice and, in every dimension, e lies in the block that the dist entry
    evaluated on r's coordinates selects ('-': one block, the whole extent;
    a 'cyclic' dimension with block size S and B values of its entry: the
    elements whose block e // S has (e // S) % B equal to the entry);
  * A not partial: every element goes to every rank that holds it in B's
    layout and not in A's, once: bytes = sum over ranks r of the elements
    r holds in B but not in A, times the element size;
  * A partial along axes P: e's value is the sum of one partial per
    combination of coordinates along P; a rank holding e in B receives
    every partial of e it does not hold itself: (|P-group| - 1 if it holds e
    in A, else |P-group|) times the element size.  (For an all-reduce over
    more than 2 ranks this direct exchange is more than a ring's reduce-
    scatter + all-gather, 2 (P-1)/P of the data per rank: the e2e jobs
    keep all-reduces on 2 ranks, where both agree.)
  * messages: (receiver, sender) pairs with something to move, the sender of
    each piece being the holder closest to the receiver (the most leading
    mesh coordinates in common, ties: the lowest rank).  The holders of
    different blocks (or partials) are different ranks, so the count never
    depends on the tie-break; '*' would be printed if it did.
A last line 'total BYTES MESSAGES' sums the redistribution steps.
"""

import argparse
import ast
import itertools
import math
import os
import re
import sys

import numpy as np
import yaml

DTYPES = {"f32": np.dtype("<f4"), "f64": np.dtype("<f8")}
DEFAULT_RTOL = {"f32": 1e-4, "f64": 1e-9}
# name -> (least, most) number of arguments (None: no limit)
FUNCS = {"max": (2, None), "min": (2, None), "exp": (1, 1), "sqrt": (1, 1),
         "relu": (1, 1), "tanh": (1, 1), "sigmoid": (1, 1), "erf": (1, 1),
         "gelu": (1, 1), "abs": (1, 1), "log": (1, 1)}
CHUNK = 1 << 21          # iteration points evaluated at once (point by point)
MAX_PIECES = 4096        # boxes the fast path may cut a step into


class JobError(Exception):
    """A bad job file or bad arguments (exit status 2)."""


# --------------------------------------------------------------------------
# Random init (spec 1.2)

def random_values(seed, count):
    """The spec's random formula for linear indices 0 .. count-1 (float64)."""
    i = np.arange(count, dtype=np.uint64)
    s = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
    with np.errstate(over="ignore"):
        z = s + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    # z >> 11 < 2**53, so the conversion and the arithmetic below are exact.
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 * 2 - 1


def random_tensor(seed, shape, dtype):
    """Random init of a tensor, rounded to its dtype."""
    count = math.prod(shape)
    return random_values(seed, count).astype(DTYPES[dtype]).reshape(shape)


# --------------------------------------------------------------------------
# The job file

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Tensor:
    def __init__(self, name, index, spec):
        if not isinstance(spec, dict):
            raise JobError(f"tensor '{name}': expected a mapping")
        self.name = name
        self.index = index
        self.spec = spec
        shape = spec.get("shape")
        if not isinstance(shape, list) or not all(
                is_int(e) and e >= 0 for e in shape):
            raise JobError(f"tensor '{name}': bad shape {shape!r}")
        self.shape = tuple(shape)
        self.dtype = spec.get("dtype")     # None: that of the others
        if self.dtype is not None and self.dtype not in DTYPES:
            raise JobError(f"tensor '{name}': bad dtype {self.dtype!r}")
        self.file = spec.get("file")
        if self.file is not None and not isinstance(self.file, str):
            raise JobError(f"tensor '{name}': bad file {self.file!r}")
        self.init = spec.get("init")
        if self.init not in (None, "zeros", "ones", "random"):
            raise JobError(f"tensor '{name}': bad init {self.init!r}")
        self.seed = spec.get("seed")
        if self.seed is not None and not is_int(self.seed):
            raise JobError(f"tensor '{name}': bad seed {self.seed!r}")
        partial = spec.get("partial", [])
        if not isinstance(partial, list) or not all(
                isinstance(a, str) for a in partial) \
                or len(set(partial)) != len(partial):
            raise JobError(f"tensor '{name}': bad partial {partial!r}")
        self.partial = partial

    def file_seed(self):
        """Seed used by 'inputs' to fill this tensor's file."""
        return self.seed if self.seed is not None else 100 + self.index


class Step:
    """One statement of the program.  number: its 1-based position among
    the statements of the program text; runs: how many times it runs (the
    product of the counts of the repeats around it)."""

    def __init__(self, text, number, runs):
        self.text = text
        self.number = number
        self.runs = runs
        try:
            self.stmt = parse_statement(text)
        except JobError as e:
            raise JobError(f"step {number}: {e}")


class Job:
    def __init__(self, path):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        try:
            with open(path) as f:
                doc = yaml.safe_load(f)
        except OSError as e:
            raise JobError(f"{path}: {e.strerror}")
        except yaml.YAMLError as e:
            raise JobError(f"{path}: bad YAML: {e}")
        if not isinstance(doc, dict):
            raise JobError(f"{path}: expected a mapping")
        self.doc = doc
        tensors = doc.get("tensors")
        if not isinstance(tensors, dict) or not tensors:
            raise JobError(f"{path}: no tensors")
        self.tensors = {name: Tensor(name, k, spec)
                        for k, (name, spec) in enumerate(tensors.items())}
        dtypes = {t.dtype for t in self.tensors.values()} - {None}
        if len(dtypes) > 1:
            raise JobError(f"{path}: tensors have different dtypes")
        self.dtype = dtypes.pop() if dtypes else "f64"
        for t in self.tensors.values():
            t.dtype = t.dtype or self.dtype
        # The program: a list of nodes, ("step", Step) or
        # ("repeat", count, [nodes]); steps: every Step in text order.
        self.steps = []
        if "compute" in doc and "program" in doc:
            raise JobError(f"{path}: a job has either 'compute' or "
                           f"'program', not both")
        if "program" in doc:
            self.v1 = False
            self.program = self.read_nodes(doc["program"], 1, "program")
        else:
            self.v1 = True
            compute = doc.get("compute")
            if not isinstance(compute, str):
                raise JobError(f"{path}: 'compute' must be one statement")
            self.program = [("step", self.new_step(compute, 1))]
        for s in self.steps:
            s.stmt.check(self.tensors, s.number)
        self.inputs, self.outputs = self.analyse()

    def new_step(self, text, runs):
        s = Step(text, len(self.steps) + 1, runs)
        self.steps.append(s)
        return s

    def read_nodes(self, nodes, runs, where):
        if not isinstance(nodes, list) or not nodes:
            raise JobError(f"{self.path}: '{where}' must be a non-empty list"
                           f" of steps")
        out = []
        for node in nodes:
            if not isinstance(node, dict):
                raise JobError(f"{self.path}: a step must be a mapping")
            unknown = set(node) - {"compute", "schedule", "repeat", "steps"}
            if unknown:
                raise JobError(f"{self.path}: unknown key "
                               f"'{sorted(unknown)[0]}' in a step")
            if ("compute" in node) == ("repeat" in node):
                raise JobError(f"{self.path}: a step has either 'compute' "
                               f"or 'repeat'")
            if "compute" in node:
                if not isinstance(node["compute"], str) or "steps" in node:
                    raise JobError(f"{self.path}: 'compute' must be one "
                                   f"statement")
                out.append(("step", self.new_step(node["compute"], runs)))
                continue
            count = node["repeat"]
            if not is_int(count) or count < 1:
                raise JobError(f"{self.path}: 'repeat' must be a positive "
                               f"integer, got {count!r}")
            if "schedule" in node:
                raise JobError(f"{self.path}: a 'repeat' has no schedule")
            out.append(("repeat", count,
                        self.read_nodes(node.get("steps"), runs * count,
                                        "steps")))
        return out

    def analyse(self):
        """(inputs, outputs): the tensors read before any step writes them
        (a repeat walked once), and the tensors with a file that some step
        writes, in declaration order."""
        written, inputs = set(), set()

        def walk(nodes):
            for node in nodes:
                if node[0] == "repeat":
                    walk(node[2])
                    continue
                s = node[1]
                reads = s.stmt.rhs_tensors()
                if s.stmt.op == "+=":
                    reads = reads + [s.stmt.lhs.name]
                for name in reads:
                    if name in written or name in inputs:
                        continue
                    t = self.tensors[name]
                    if not t.file and not t.init and not self.v1:
                        raise JobError(
                            f"step {s.number}: tensor '{name}' is read before"
                            f" any step writes it, and has neither 'file' "
                            f"nor 'init'")
                    if t.file and t.partial:
                        raise JobError(
                            f"tensor '{name}' is read from its file, so it "
                            f"cannot be 'partial'")
                    inputs.add(name)
                written.add(s.stmt.lhs.name)
        walk(self.program)
        order = list(self.tensors)
        outputs = [n for n in order if n in written and self.tensors[n].file]
        return ([n for n in order if n in inputs], outputs)

    def file_path(self, tensor):
        return os.path.join(self.dir, tensor.file)

    def runs(self):
        """The steps in the order they run (repeats expanded)."""
        def expand(nodes):
            for node in nodes:
                if node[0] == "step":
                    yield node[1]
                else:
                    for _ in range(node[1]):
                        yield from expand(node[2])
        return expand(self.program)

    # v1 compatibility
    @property
    def stmt(self):
        return self.steps[0].stmt

    def input_names(self):
        return list(self.inputs)


# --------------------------------------------------------------------------
# Statement parser (spec 1.3)
#
# Affine index:  a pair (coefs, const), coefs a dict variable -> int.
# Expression:    ("num", value) | ("acc", Access) | ("neg", e)
#                | ("bin", op, a, b) | ("call", name, [args])

TOKEN = re.compile(r"""\s*(?:
    (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\+=|[-+*/()\[\],=])
  )""", re.VERBOSE)


def tokenize(text):
    tokens = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise JobError(f"compute: unexpected character {text[pos:].strip()[0]!r}"
                           f" at column {pos + 1}")
        kind = m.lastgroup
        tokens.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    tokens.append(("end", "", len(text) + 1))
    return tokens


class Access:
    def __init__(self, name, indices):
        self.name = name
        self.indices = indices           # list of affine (coefs, const)

    def __repr__(self):
        return f"{self.name}[{', '.join(map(affine_str, self.indices))}]"


def affine_str(a):
    coefs, const = a
    parts = [f"{c}*{v}" if c != 1 else v for v, c in coefs.items() if c]
    if const or not parts:
        parts.append(str(const))
    return " + ".join(parts)


class Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.k = 0

    def peek(self, value=None):
        kind, text, _ = self.tokens[self.k]
        if value is None:
            return kind
        return text if kind in ("op", "end") and text == value else None

    def next(self):
        tok = self.tokens[self.k]
        self.k += 1
        return tok

    def error(self, what):
        kind, text, col = self.tokens[self.k]
        found = "end of statement" if kind == "end" else repr(text)
        raise JobError(f"compute: column {col}: expected {what}, found {found}")

    def expect(self, value):
        if self.peek(value) is None:
            self.error(repr(value))
        self.next()

    # statement
    def statement(self):
        if self.peek() != "name":
            self.error("a tensor name")
        lhs = self.access(self.next()[1])
        if self.peek("=") is None and self.peek("+=") is None:
            self.error("'=' or '+='")
        op = self.next()[1]
        rhs = self.expr()
        if self.peek() != "end":
            self.error("an operator")
        return Statement(lhs, op, rhs)

    def access(self, name):
        indices = []
        if self.peek("["):
            self.next()
            indices.append(self.affine())
            while self.peek(","):
                self.next()
                indices.append(self.affine())
            self.expect("]")
        return Access(name, indices)

    # affine index expressions
    def affine(self):
        a = self.aff_term()
        while self.peek("+") or self.peek("-"):
            sign = 1 if self.next()[1] == "+" else -1
            a = aff_add(a, self.aff_term(), sign)
        return a

    def aff_term(self):
        a = self.aff_factor()
        while self.peek("*"):
            self.next()
            b = self.aff_factor()
            if a[0] and b[0]:
                self.error("an affine index (a product of two variables is not)")
            if a[0]:
                a, b = b, a
            a = ({v: a[1] * c for v, c in b[0].items() if a[1] * c},
                 a[1] * b[1])
        return a

    def aff_factor(self):
        kind, text, _ = self.tokens[self.k]
        if kind == "num":
            if not text.isdigit():
                self.error("an integer in an index")
            self.next()
            return ({}, int(text))
        if kind == "name":
            self.next()
            return ({text: 1}, 0)
        if self.peek("-"):
            self.next()
            coefs, const = self.aff_factor()
            return ({v: -c for v, c in coefs.items()}, -const)
        if self.peek("("):
            self.next()
            a = self.affine()
            self.expect(")")
            return a
        self.error("an index")

    # value expressions
    def expr(self):
        e = self.term()
        while self.peek("+") or self.peek("-"):
            op = self.next()[1]
            e = ("bin", op, e, self.term())
        return e

    def term(self):
        e = self.factor()
        while self.peek("*") or self.peek("/"):
            op = self.next()[1]
            e = ("bin", op, e, self.factor())
        return e

    def factor(self):
        kind, text, _ = self.tokens[self.k]
        if kind == "num":
            self.next()
            return ("num", float(text))
        if self.peek("-"):
            self.next()
            return ("neg", self.factor())
        if self.peek("("):
            self.next()
            e = self.expr()
            self.expect(")")
            return e
        if kind == "name":
            self.next()
            if self.peek("(") and text in FUNCS:
                self.next()
                args = [self.expr()]
                while self.peek(","):
                    self.next()
                    args.append(self.expr())
                self.expect(")")
                lo, hi = FUNCS[text]
                if len(args) < lo or (hi is not None and len(args) > hi):
                    raise JobError(f"compute: {text}() takes "
                                   f"{lo if hi == lo else f'{lo} or more'} "
                                   f"argument(s), not {len(args)}")
                return ("call", text, args)
            if self.peek("("):
                raise JobError(f"compute: unknown function '{text}'")
            return ("acc", self.access(text))
        self.error("a value")


def aff_add(a, b, sign):
    coefs = dict(a[0])
    for v, c in b[0].items():
        coefs[v] = coefs.get(v, 0) + sign * c
    return ({v: c for v, c in coefs.items() if c}, a[1] + sign * b[1])


def parse_statement(text):
    return Parser(text).statement()



class Statement:
    def __init__(self, lhs, op, rhs):
        self.lhs = lhs
        self.op = op
        self.rhs = rhs

    def rhs_accesses(self):
        out = []

        def walk(e):
            if e[0] == "acc":
                out.append(e[1])
            elif e[0] == "neg":
                walk(e[1])
            elif e[0] == "bin":
                walk(e[2])
                walk(e[3])
            elif e[0] == "call":
                for a in e[2]:
                    walk(a)
        walk(self.rhs)
        return out

    def rhs_tensors(self):
        names = []
        for a in self.rhs_accesses():
            if a.name not in names:
                names.append(a.name)
        return names

    def accesses(self):
        return [self.lhs] + self.rhs_accesses()

    def variables(self):
        """Index variables in order of first appearance."""
        order = []
        for a in self.accesses():
            for coefs, _ in a.indices:
                for v in coefs:
                    if v not in order:
                        order.append(v)
        return order

    def lhs_variables(self):
        return {v for coefs, _ in self.lhs.indices for v in coefs}

    def check(self, tensors, number=1):
        for a in self.accesses():
            if a.name not in tensors:
                raise JobError(f"step {number}: tensor '{a.name}' is not "
                               f"declared")
            rank = len(tensors[a.name].shape)
            if len(a.indices) != rank:
                raise JobError(f"step {number}: {a.name} has {rank} "
                               f"dimension(s), accessed with "
                               f"{len(a.indices)} index(es)")


# --------------------------------------------------------------------------
# Iteration space: constraints 0 <= affine <= extent - 1 of every access

def floor_div(a, b):
    return a // b


def ceil_div(a, b):
    return -((-a) // b)


def constraints_of(stmt, shapes):
    """[(coefs, const, top)]: one per index of every access."""
    return [(coefs, const, extent - 1)
            for a in stmt.accesses()
            for (coefs, const), extent in zip(a.indices, shapes[a.name])]


def substitute(constraints, fixed):
    """The constraints with the fixed variables replaced by their values."""
    out = []
    for coefs, const, top in constraints:
        rest = {}
        for v, c in coefs.items():
            if v in fixed:
                const += c * fixed[v]
            else:
                rest[v] = c
        out.append((rest, const, top))
    return out


def propagate(variables, constraints):
    """Inclusive integer bounds {v: (lo, hi)} of a box holding every point
    where all constraints hold (interval propagation), or None if there is
    no such point.  JobError if a variable is unbounded."""
    inf = math.inf
    lo = {v: -inf for v in variables}
    hi = {v: inf for v in variables}
    for coefs, const, top in constraints:
        if not coefs and not 0 <= const <= top:
            return None
    changed = True
    while changed:
        changed = False
        for coefs, const, top in constraints:
            for v, c in coefs.items():
                # c*v = affine - rest, rest = const + sum of the other terms
                rest_lo = rest_hi = const
                for u, cu in coefs.items():
                    if u != v:
                        a, b = cu * lo[u], cu * hi[u]
                        rest_lo += min(a, b)
                        rest_hi += max(a, b)
                # 0 - rest_hi <= c*v <= top - rest_lo
                new_lo, new_hi = lo[v], hi[v]
                if c > 0:
                    if rest_hi != inf:
                        new_lo = max(new_lo, ceil_div(-rest_hi, c))
                    if rest_lo != -inf:
                        new_hi = min(new_hi, floor_div(top - rest_lo, c))
                else:
                    if rest_lo != -inf:
                        new_lo = max(new_lo, ceil_div(top - rest_lo, c))
                    if rest_hi != inf:
                        new_hi = min(new_hi, floor_div(-rest_hi, c))
                if (new_lo, new_hi) != (lo[v], hi[v]):
                    lo[v], hi[v] = new_lo, new_hi
                    changed = True
                    if new_lo > new_hi:       # empty: nothing runs
                        return None
    for v in variables:
        if lo[v] == -inf or hi[v] == inf:
            raise JobError(f"index variable '{v}' is unbounded")
    return {v: (int(lo[v]), int(hi[v])) for v in variables}


def variable_bounds(stmt, shapes):
    """Bounds of every variable of the statement ((0, -1) each if nothing
    runs)."""
    variables = stmt.variables()
    box = propagate(variables, constraints_of(stmt, shapes))
    return box if box is not None else {v: (0, -1) for v in variables}


def inexact_variables(constraints, box):
    """Variables of the constraints that some point of the box violates."""
    bad = set()
    for coefs, const, top in constraints:
        low = high = const
        for v, c in coefs.items():
            a, b = c * box[v][0], c * box[v][1]
            low += min(a, b)
            high += max(a, b)
        if low < 0 or high > top:
            bad |= set(coefs)
    return bad


# --------------------------------------------------------------------------
# Functions (spec 1.3 and 1.5), float64

_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return np.asarray(_ERF(x), dtype=np.float64)


def apply_func(name, args):
    if name in ("max", "min"):
        f = np.maximum if name == "max" else np.minimum
        r = args[0]
        for x in args[1:]:
            r = f(r, x)
        return r
    x = args[0]
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    if name == "erf":
        return erf(x)
    if name == "gelu":
        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    return {"exp": np.exp, "sqrt": np.sqrt, "tanh": np.tanh, "abs": np.abs,
            "log": np.log}[name](x)


BINOPS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


# --------------------------------------------------------------------------
# Fast evaluation: boxes, strided views, einsum

class Fallback(Exception):
    """The fast path cannot evaluate this step: use the point-by-point
    evaluator."""


def c_strides(shape):
    """Element strides of a C-order array of that shape."""
    st, acc = [], 1
    for e in reversed(shape):
        st.append(acc)
        acc *= e
    return st[::-1]


def strided_view(arr, access, fixed, box, order, writeable=False):
    """The values arr[access] over the box, as a view whose axes are the
    free variables the access uses, in the order of 'order'.  Every point of
    the box is in bounds (the caller made sure), so the view stays inside
    the array's memory."""
    offset = 0
    vstride = {}
    for (coefs, const), st in zip(access.indices, c_strides(arr.shape)):
        pos = const
        for v, c in coefs.items():
            if v in fixed:
                pos += c * fixed[v]
            else:
                pos += c * box[v][0]
                vstride[v] = vstride.get(v, 0) + c * st
        offset += pos * st
    names = tuple(v for v in order if v in vstride)
    shape = [box[v][1] - box[v][0] + 1 for v in names]
    strides = [vstride[v] * arr.itemsize for v in names]
    base = arr.reshape(-1)[offset:]
    view = np.lib.stride_tricks.as_strided(base, shape=shape, strides=strides,
                                           writeable=writeable)
    return view, names


def product_terms(e):
    """The right side as a sum of products: [(coef, [(factor, power)])],
    power 1 or -1; only the top-level + and - are distributed."""
    if e[0] == "bin" and e[1] in "+-":
        sign = 1.0 if e[1] == "+" else -1.0
        return product_terms(e[2]) + [(sign * c, f)
                                      for c, f in product_terms(e[3])]
    if e[0] == "neg":
        return [(-c, f) for c, f in product_terms(e[1])]
    return [factors(e)]


def factors(e):
    if e[0] == "num":
        return e[1], []
    if e[0] == "neg":
        c, f = factors(e[1])
        return -c, f
    if e[0] == "bin" and e[1] in "*/":
        ca, fa = factors(e[2])
        cb, fb = factors(e[3])
        if e[1] == "*":
            return ca * cb, fa + fb
        if cb == 0:
            raise Fallback("division by a constant zero")
        return ca / cb, fa + [(x, -p) for x, p in fb]
    return 1.0, [(e, 1)]


class Piece:
    """A box of the iteration space: some variables fixed, the others
    ranging over box, every access in bounds, the left side one-to-one."""

    def __init__(self, state, fixed, box, order):
        self.state = state
        self.fixed = fixed
        self.box = box
        self.order = order          # the free variables, in statement order

    def size(self, v):
        return self.box[v][1] - self.box[v][0] + 1

    def align(self, items):
        union = tuple(v for v in self.order
                      if any(v in names for _, names in items))
        out = []
        for a, names in items:
            if names == union or not names:
                out.append(a)
            else:
                out.append(a[tuple(slice(None) if v in names else None
                                   for v in union)])
        return out, union

    def finite(self, e):
        """Are the values every access of expression e reads over the box
        finite?"""
        if e[0] == "acc":
            a, _ = strided_view(self.state[e[1].name], e[1], self.fixed,
                                self.box, self.order)
            return bool(np.all(np.isfinite(a)))
        if e[0] in ("neg", "bin", "call"):
            kids = ([e[1]] if e[0] == "neg" else [e[2], e[3]]
                    if e[0] == "bin" else e[2])
            return all(self.finite(k) for k in kids)
        return True

    def value(self, e):
        """(array, variable names of its axes) of an expression."""
        kind = e[0]
        if kind == "num":
            return np.float64(e[1]), ()
        if kind == "acc":
            return strided_view(self.state[e[1].name], e[1], self.fixed,
                                self.box, self.order)
        if kind == "neg":
            a, names = self.value(e[1])
            return -a, names
        if kind == "bin":
            (a, b), names = self.align([self.value(e[2]), self.value(e[3])])
            return BINOPS[e[1]](a, b), names
        if kind == "call":
            args, names = self.align([self.value(x) for x in e[2]])
            return apply_func(e[1], args), names
        raise AssertionError(e)

    def rhs(self, stmt, lhs_free, ids):
        """The right side summed over the reduction variables: an array over
        lhs_free."""
        reduction = [v for v in self.order if v not in lhs_free]
        if not reduction:
            # nothing summed: the expression tree as written, so that NaN,
            # infinities and signed zeros come out as C evaluates it
            a, names = self.value(stmt.rhs)
            a = np.asarray(a, dtype=np.float64)
            a = a[tuple(slice(None) if v in names else None
                        for v in lhs_free)] if lhs_free else a
            return np.broadcast_to(a, [self.size(v) for v in lhs_free])
        if not self.finite(stmt.rhs):
            # the sum of the right side over the reduction variables point
            # by point, as the loop adds it: a factored a * inf * sum(b)
            # (einsum's way) is -inf where the loop's +inf + -inf is NaN
            a, names = self.value(stmt.rhs)
            a = np.asarray(a, dtype=np.float64)
            full = [self.size(v) for v in self.order]
            a = np.broadcast_to(a[tuple(slice(None) if v in names else None
                                        for v in self.order)]
                                if self.order else a, full)
            axes = tuple(k for k, v in enumerate(self.order)
                         if v in reduction)
            return np.sum(a, axis=axes)
        total = np.zeros([self.size(v) for v in lhs_free])
        for coef, flist in product_terms(stmt.rhs):
            scale = np.float64(coef)
            operands = []
            covered = set()
            for e, power in flist:
                a, names = self.value(e)
                if power < 0:
                    a = 1.0 / a
                if names:
                    operands += [a, [ids[v] for v in names]]
                    covered |= set(names)
                else:
                    scale = scale * a
            for v in reduction:
                if v not in covered:
                    scale = scale * self.size(v)
            present = [v for v in lhs_free if v in covered]
            if operands:
                r = np.einsum(*operands, [ids[v] for v in present],
                              optimize=True) * scale
                r = r[tuple(slice(None) if v in present else None
                            for v in lhs_free)]
            else:
                r = scale
            total = total + r
        return total


def writes_once(stmt):
    """Does every point of the step write its own element, with nothing
    summed (no variable only on the right, the left side one-to-one)?
    Then an element's new value is the right side itself (with '=') or
    its old value plus the right side ('+='): no sum starting from zero,
    which would turn -0.0 into 0.0."""
    lhs_vars = stmt.lhs_variables()
    return (all(v in lhs_vars for v in stmt.variables()) and
            injective(stmt.lhs, [v for v in stmt.variables()
                                 if v in lhs_vars]))


def injective(lhs, free_lhs):
    """Is the left side one-to-one over the free variables it uses?"""
    if not free_lhs:
        return True
    m = np.array([[coefs.get(v, 0) for v in free_lhs]
                  for coefs, _ in lhs.indices], dtype=float)
    return np.linalg.matrix_rank(m) == len(free_lhs)


def cut_pieces(stmt, constraints, variables):
    """Cut the iteration space into boxes on which every access is in bounds
    and the left side is one-to-one: fix the variable of smallest range among
    those that spoil it, value by value.  Returns [(fixed, box)]."""
    lhs_vars = stmt.lhs_variables()
    pieces = []

    def cut(fixed):
        free = [v for v in variables if v not in fixed]
        cons = substitute(constraints, fixed)
        box = propagate(free, cons)
        if box is None:
            return
        spoil = inexact_variables(cons, box)
        if not spoil:
            free_lhs = [v for v in free if v in lhs_vars]
            if injective(stmt.lhs, free_lhs):
                pieces.append((dict(fixed), box))
                if len(pieces) > MAX_PIECES:
                    raise Fallback("too many pieces")
                return
            spoil = set(free_lhs)
        v = min(spoil, key=lambda u: (box[u][1] - box[u][0],
                                      variables.index(u)))
        if box[v][1] - box[v][0] + 1 > MAX_PIECES:
            raise Fallback("too many pieces")
        for x in range(box[v][0], box[v][1] + 1):
            cut({**fixed, v: x})

    cut({})
    return pieces


def evaluate_fast(stmt, state):
    """The new value of the step's output (a new array); state: tensor name
    -> C-contiguous float64 array, the values before the step."""
    old = state[stmt.lhs.name]
    shapes = {name: a.shape for name, a in state.items()}
    variables = stmt.variables()
    constraints = constraints_of(stmt, shapes)
    if propagate(variables, constraints) is None:
        return old.copy()
    pieces = cut_pieces(stmt, constraints, variables)
    ids = {v: k for k, v in enumerate(variables)}
    lhs_vars = stmt.lhs_variables()

    def values(out):
        """(value of the right side, writable view of out at the left
        side) per piece."""
        for fixed, box in pieces:
            order = [v for v in variables if v not in fixed]
            piece = Piece(state, fixed, box, order)
            lhs_free = [v for v in order if v in lhs_vars]
            view, _ = strided_view(out, stmt.lhs, fixed, box, order, True)
            yield piece.rhs(stmt, lhs_free, ids), view, (fixed, box, order)

    if writes_once(stmt):
        new = old.copy()
        with np.errstate(all="ignore"):
            for value, view, _ in values(new):
                if stmt.op == "=":
                    view[...] = value
                else:
                    view += value
        return new
    acc = np.zeros(old.shape)
    written = np.zeros(old.shape, dtype=bool)
    with np.errstate(all="ignore"):
        for value, view, (fixed, box, order) in values(acc):
            view += value
            view, _ = strided_view(written, stmt.lhs, fixed, box, order,
                                   True)
            view[...] = True
        if stmt.op == "=":
            return np.where(written, acc, old)
        return np.where(written, old + acc, old)


# --------------------------------------------------------------------------
# Point-by-point evaluation (fallback, and cross-check of the fast path)

def eval_affine(a, values, n):
    coefs, const = a
    r = np.full(n, const, dtype=np.int64)
    for v, c in coefs.items():
        r += c * values[v]
    return r


def eval_expr(e, data, values, n):
    kind = e[0]
    if kind == "num":
        return e[1]
    if kind == "acc":
        acc = e[1]
        idx = tuple(eval_affine(a, values, n) for a in acc.indices)
        return data[acc.name][idx] if idx else data[acc.name][()]
    if kind == "neg":
        return -eval_expr(e[1], data, values, n)
    if kind == "bin":
        a = eval_expr(e[2], data, values, n)
        b = eval_expr(e[3], data, values, n)
        return BINOPS[e[1]](a, b)
    if kind == "call":
        return apply_func(e[1], [eval_expr(x, data, values, n)
                                 for x in e[2]])
    raise AssertionError(e)


def evaluate_pointwise(stmt, state):
    """Same as evaluate_fast, point by point: the loop nest
    "out[lhs] += rhs" over every point of the bounding box where all
    accesses are in bounds."""
    old = state[stmt.lhs.name]
    shapes = {name: a.shape for name, a in state.items()}
    bounds = variable_bounds(stmt, shapes)
    variables = list(bounds)
    lows = [bounds[v][0] for v in variables]
    sizes = [max(bounds[v][1] - bounds[v][0] + 1, 0) for v in variables]
    total = math.prod(sizes)
    constraints = [(a, e) for acc in stmt.accesses()
                   for a, e in zip(acc.indices, shapes[acc.name])]
    size = old.size
    sums = np.zeros(size)
    counts = np.zeros(size)
    # every element written at most once: assigned (or added to) directly
    once = writes_once(stmt)
    new = old.copy()
    flat = new.reshape(-1)
    with np.errstate(all="ignore"):
        for begin in range(0, total, CHUNK):
            n = min(CHUNK, total - begin)
            lin = np.arange(begin, begin + n, dtype=np.int64)
            coords = np.unravel_index(lin, sizes) if variables else ()
            values = {v: c + lo for v, c, lo in zip(variables, coords, lows)}
            keep = np.ones(n, dtype=bool)
            for a, extent in constraints:
                x = eval_affine(a, values, n)
                keep &= (x >= 0) & (x < extent)
            values = {v: x[keep] for v, x in values.items()}
            n = int(keep.sum())
            if n == 0:
                continue
            vals = np.broadcast_to(
                np.asarray(eval_expr(stmt.rhs, state, values, n),
                           dtype=np.float64), (n,))
            if old.ndim == 0:
                pos = np.zeros(n, dtype=np.int64)
            else:
                pos = np.ravel_multi_index(
                    tuple(eval_affine(a, values, n)
                          for a in stmt.lhs.indices), old.shape)
            if once:
                if stmt.op == "=":
                    flat[pos] = vals
                else:
                    flat[pos] += vals
                continue
            sums += np.bincount(pos, weights=vals, minlength=size)
            counts += np.bincount(pos, minlength=size)
        if once:
            return new
        if stmt.op == "=":
            hit = counts > 0
            flat[hit] = sums[hit]
        else:
            flat += sums
    return new


def evaluate(stmt, state, mode="auto"):
    """The step's new output value.  mode: "auto" (fast, else point by
    point), "fast" (Fallback if it cannot), "pointwise"."""
    if mode == "pointwise":
        return evaluate_pointwise(stmt, state)
    try:
        return evaluate_fast(stmt, state)
    except Fallback:
        if mode == "fast":
            raise
        return evaluate_pointwise(stmt, state)


# --------------------------------------------------------------------------
# .npy files

def npy_header(path):
    """(version, shape, fortran_order, dtype) of a .npy file."""
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            shape, fortran, dtype = None, None, None
    return version, shape, fortran, dtype


def npy_problem(path, shape, dtype):
    """Why the file at path is not a v1.0 C-order little-endian array of that
    shape and dtype (None if it is)."""
    if not os.path.exists(path):
        return f"{path} not found"
    try:
        version, fshape, fortran, fdtype = npy_header(path)
    except (OSError, ValueError) as e:
        return f"{path}: not a .npy file ({e})"
    want = DTYPES[dtype]
    if version != (1, 0):
        return f"{path}: .npy version {version[0]}.{version[1]}, want 1.0"
    if fortran:
        return f"{path}: Fortran order, want C order"
    if fdtype.str != want.str:
        return f"{path}: dtype {fdtype.str}, want {want.str} ({dtype})"
    if tuple(fshape) != tuple(shape):
        return f"{path}: shape {tuple(fshape)}, want {tuple(shape)}"
    return None


# --------------------------------------------------------------------------
# Running a program

def starting_values(job, tensor, from_file):
    """A tensor's value before the first step (in its dtype).  from_file:
    read an input's file (else rebuild what 'inputs' wrote there)."""
    if tensor.name not in job.inputs:
        return np.zeros(tensor.shape, dtype=DTYPES[tensor.dtype])
    if tensor.file and from_file:
        path = job.file_path(tensor)
        problem = npy_problem(path, tensor.shape, tensor.dtype)
        if problem:
            raise JobError(f"input {tensor.name}: {problem}")
        return np.load(path)
    if tensor.file:
        return random_tensor(tensor.file_seed(), tensor.shape, tensor.dtype)
    init = tensor.init or "zeros"
    if init == "random":
        return random_tensor(tensor.seed or 0, tensor.shape, tensor.dtype)
    fill = np.ones if init == "ones" else np.zeros
    return fill(tensor.shape, dtype=DTYPES[tensor.dtype])


def initial_state(job):
    """Every tensor's value before the first step, float64.  An input whose
    file the program also writes (itself, or another tensor naming the
    same file) is rebuilt from its seed (the program has overwritten the
    file)."""
    written = {os.path.normpath(job.file_path(job.tensors[n]))
               for n in job.outputs}
    return {name: np.array(starting_values(
                job, t, not (t.file and os.path.normpath(job.file_path(t))
                             in written)),
                dtype=np.float64, order="C")
            for name, t in job.tensors.items()}


def run_program(job, mode="auto", state=None):
    """Every tensor's value after the last step."""
    state = dict(initial_state(job) if state is None else state)
    for step in job.runs():
        state[step.stmt.lhs.name] = evaluate(step.stmt, state, mode)
    return state


def expected_outputs(job, mode="auto"):
    state = run_program(job, mode)
    return {name: state[name] for name in job.outputs}


def expected_output(job, mode="auto"):
    """The value of the last step's output (a v1 job's output)."""
    return run_program(job, mode)[job.steps[-1].stmt.lhs.name]


# --------------------------------------------------------------------------
# Ideal data movement of redistribution steps

def dist_function(text, axes, where):
    """The quasi-affine dist entry as a function of the mesh coordinates
    (a dict axis -> int): + - * // % over integers and axis names."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval")
    except SyntaxError:
        raise JobError(f"{where}: bad dist entry {text!r}")
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Mod: lambda a, b: a % b}

    def check(n):
        if isinstance(n, ast.Expression):
            return check(n.body)
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            return check(n.left) and check(n.right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub,
                                                            ast.UAdd)):
            return check(n.operand)
        if isinstance(n, ast.Constant) and is_int(n.value):
            return True
        if isinstance(n, ast.Name) and n.id in axes:
            return True
        raise JobError(f"{where}: bad dist entry {text!r}")

    def ev(n, c):
        if isinstance(n, ast.Expression):
            return ev(n.body, c)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left, c), ev(n.right, c)
            if b == 0 and isinstance(n.op, (ast.FloorDiv, ast.Mod)):
                raise JobError(f"{where}: division by zero in {text!r}")
            return ops[type(n.op)](a, b)
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand, c)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.Constant):
            return n.value
        return c[n.id]

    check(tree)
    return lambda c: ev(tree, c)


def cyclic_indices(extent, nblocks, size):
    """[array of global indices] of each holder of a cyclic dimension (spec
    1.2, v3): blocks of 'size' elements dealt round-robin over 'nblocks'
    holders, each holder's in increasing order (its local layout)."""
    e = np.arange(extent)
    return [e[(e // size) % nblocks == b] for b in range(nblocks)]


def block_ranges(extent, nblocks, split, offsets, where):
    """[(lo, hi)] of each block of a dimension (spec 1.2)."""
    if offsets is not None:
        if (not isinstance(offsets, list) or len(offsets) != nblocks + 1
                or not all(is_int(o) for o in offsets)
                or offsets[0] != 0 or offsets[-1] != extent
                or any(a > b for a, b in zip(offsets, offsets[1:]))):
            raise JobError(f"{where}: bad offsets {offsets!r} for extent "
                           f"{extent} in {nblocks} blocks")
        return list(zip(offsets, offsets[1:]))
    if split == "balanced":
        q, r = divmod(extent, nblocks)
        return [(b * q + min(b, r), (b + 1) * q + min(b + 1, r))
                for b in range(nblocks)]
    s = ceil_div(extent, nblocks)
    return [(min(b * s, extent), min((b + 1) * s, extent))
            for b in range(nblocks)]


class Layout:
    """Where a tensor lives on the mesh: which block of each dimension each
    rank holds (ranks numbered row-major, last axis fastest).  A block is,
    per dimension, the array of the global indices it holds in the order
    the rank stores them: a range, or a cyclic holder's blocks one after
    another."""

    def __init__(self, job, t):
        mesh = job.doc.get("mesh")
        if not isinstance(mesh, dict):
            raise JobError("no mesh")
        self.axes = list(mesh.get("axes") or [])
        self.mshape = list(mesh.get("shape") or [])
        if (len(self.axes) != len(self.mshape) or not all(
                is_int(s) and s > 0 for s in self.mshape)):
            raise JobError("bad mesh")
        where = f"tensor '{t.name}'"
        self.coords = list(itertools.product(*map(range, self.mshape)))
        # views (spec 1.1): rank r has coordinates on a view by the
        # row-major order of r, if r < the product of its shape
        views = mesh.get("views") or {}
        if not isinstance(views, dict):
            raise JobError("bad views")
        self.view_of = {}
        self.extent = dict(zip(self.axes, self.mshape))
        vcoords = [{} for _ in self.coords]
        for vname, v in views.items():
            vaxes, vshape = list(v.get("axes") or []), list(
                v.get("shape") or [])
            if (len(vaxes) != len(vshape) or not all(
                    is_int(s) and s > 0 for s in vshape)
                    or math.prod(vshape) > len(self.coords)):
                raise JobError(f"bad view {vname!r}")
            for r, c in enumerate(itertools.product(*map(range, vshape))):
                vcoords[r].update(zip(vaxes, c))
            for a, e in zip(vaxes, vshape):
                self.view_of[a] = vname
                self.extent[a] = e
        all_axes = self.axes + list(self.view_of)
        spec = t.spec
        self.named = [dict(vc, **{a: c[k] for k, a in enumerate(self.axes)})
                      for c, vc in zip(self.coords, vcoords)]
        if "axe" in spec:
            self.init_axe(t, spec["axe"], all_axes, views, where)
            return
        dist = spec.get("dist")
        if not isinstance(dist, list) or len(dist) != len(t.shape):
            raise JobError(f"{where}: bad dist {dist!r}")
        place = spec.get("place") or {}
        if not isinstance(place, dict) or not all(
                a in all_axes and is_int(v) for a, v in place.items()):
            raise JobError(f"{where}: bad place {place!r}")
        offsets = {int(k): v for k, v in (spec.get("offsets") or {}).items()}
        split = spec.get("split", "block")
        cyclic = spec.get("cyclic") or {}
        if not isinstance(cyclic, dict) or not all(
                is_int(k) and 0 <= k < len(t.shape) and is_int(v) and v >= 1
                and k not in offsets and (split != "balanced"
                                          or dist[k] == "-")
                for k, v in cyclic.items()):
            raise JobError(f"{where}: bad cyclic {cyclic!r}")
        named = [dict(vc, **{a: c[k] for k, a in enumerate(self.axes)})
                 for c, vc in zip(self.coords, vcoords)]
        self.named = named
        # the view the tensor's layout names (its ranks only hold it)
        mentioned = set(place) | set(t.partial)
        for entry in dist:
            if entry != "-":
                mentioned |= {node.id for node in ast.walk(ast.parse(
                    str(entry).strip(), mode="eval"))
                              if isinstance(node, ast.Name)}
        frames = {self.view_of.get(a) for a in mentioned}
        if len(frames) > 1:
            raise JobError(f"{where}: axes of several views")
        self.view = frames.pop() if frames else None
        vaxes = [a for a, v in self.view_of.items() if v == self.view]
        self.held = [all(a in n for a in vaxes) and all(
            n[a] == v for a, v in place.items()) for n in named]
        self.partial = [a for a in t.partial if a in all_axes]
        if len(self.partial) != len(t.partial):
            raise JobError(f"{where}: unknown axis in partial")
        funcs = []
        for d, entry in enumerate(dist):
            if entry == "-":
                funcs.append(lambda c: 0)
            else:
                funcs.append(dist_function(entry, all_axes, where))
                used = {node.id for node in ast.walk(ast.parse(
                    str(entry).strip(), mode="eval"))
                        if isinstance(node, ast.Name)}
                if used & set(t.partial) or used & set(place):
                    raise JobError(f"{where}: dist entry {entry!r} uses a "
                                   f"partial or placed axis")
        if set(t.partial) & set(place):
            raise JobError(f"{where}: partial along a placed axis")
        self.block = [tuple(f(n) for f in funcs) if h else None
                      for n, h in zip(named, self.held)]
        self.ranges = []
        for d in range(len(t.shape)):
            values = {b[d] for b in self.block if b is not None}
            nb = max(values) + 1 if values else 1
            if values != set(range(nb)):
                raise JobError(f"{where}: dist entry {dist[d]!r} takes the "
                               f"values {sorted(values)}, not 0..B-1")
            if d in cyclic:
                self.ranges.append(cyclic_indices(t.shape[d], nb,
                                                  cyclic[d]))
            else:
                self.ranges.append([np.arange(lo, hi) for lo, hi in
                                    block_ranges(t.shape[d], nb, split,
                                                 offsets.get(d), where)])
        self.holders = {}
        for r, b in enumerate(self.block):
            if b is not None:
                self.holders.setdefault(b, []).append(r)

    def init_axe(self, t, axe, all_axes, views, where):
        """An Axe layout (spec 1.2, v3) from its definition, element by
        element: the row-major index of an element decomposed by the
        extents of the D iterators (last fastest); its coordinate along an
        axis of the layout's frame (the mesh, or the view its axes belong
        to) the sum of index * stride over the iterators on that axis,
        plus each replica's r * stride (every r), plus O; 'm' is local
        memory.  Each rank's elements must then be a box (a layout of
        1.2), which it stores in increasing order per dimension; ranks
        holding the same box hold the same block."""
        if not isinstance(axe, dict) or set(axe) - {"D", "R", "O"}:
            raise JobError(f"{where}: bad axe {axe!r}")

        def iters(key):
            v = axe.get(key) or []
            if not isinstance(v, list) or not all(
                    isinstance(i, list) and len(i) == 3 and is_int(i[0])
                    and i[0] >= 1 and is_int(i[1])
                    and (i[2] == "m" or i[2] in all_axes) for i in v):
                raise JobError(f"{where}: bad axe {key} {v!r}")
            return [tuple(i) for i in v]
        D, R = iters("D"), iters("R")
        O = axe.get("O") or {}
        if not isinstance(O, dict) or not all(
                (a == "m" or a in all_axes) and is_int(v)
                for a, v in O.items()):
            raise JobError(f"{where}: bad axe O {O!r}")
        mentioned = {a for _, _, a in D + R if a != "m"} | {
            a for a in O if a != "m"} | set(t.partial)
        frames = {self.view_of.get(a) for a in mentioned}
        if len(frames) > 1:
            raise JobError(f"{where}: axes of several views")
        self.view = frames.pop() if frames else None
        self.partial = list(t.partial)
        fr = [a for a in all_axes if self.view_of.get(a) == self.view]
        fshape = [self.extent[a] for a in fr]
        n = math.prod(t.shape)
        if math.prod(e for e, _, _ in D) != n:
            raise JobError(f"{where}: the extents of D multiply to "
                           f"{math.prod(e for e, _, _ in D)}, not {n}")
        idx, coord = np.arange(n), {a: np.zeros(n, dtype=np.int64)
                                    for a in fr}
        for e, s, a in reversed(D):
            if a != "m":
                coord[a] += (idx % e) * s
            idx = idx // e
        for a, v in O.items():
            if a != "m":
                coord[a] += v
        reps = [{}]
        for e, s, a in R:
            if a != "m":
                reps = [dict(p, **{a: p.get(a, 0) + k * s})
                        for p in reps for k in range(e)]
        nranks = math.prod(fshape)
        holds = np.zeros((nranks, n), dtype=bool)
        for p in reps:
            c = [coord[a] + p.get(a, 0) for a in fr]
            if any(np.any((x < 0) | (x >= e)) for x, e in zip(c, fshape)):
                raise JobError(f"{where}: an element's coordinate is "
                               f"outside an axis of the mesh")
            holds[np.ravel_multi_index(c, fshape) if fr else
                  np.zeros(n, dtype=np.int64), np.arange(n)] = True
        boxes = []
        for r in range(len(self.coords)):
            if r >= nranks:
                boxes.append(None)
                continue
            if not t.shape:
                boxes.append(() if holds[r, 0] else None)
                continue
            ix = np.unravel_index(np.nonzero(holds[r])[0], t.shape)
            box = tuple(np.unique(x) for x in ix)
            if len(ix[0]) == 0:
                boxes.append(None)
                continue
            if math.prod(len(x) for x in box) != len(ix[0]):
                raise JobError(f"{where}: rank {r}'s elements are not a "
                               f"box: not a layout of 1.2")
            boxes.append(box)
        self.held = [b is not None for b in boxes]
        self.ranges, ids = [], []
        for d in range(len(t.shape)):
            seen = sorted({tuple(b[d]) for b in boxes if b is not None})
            self.ranges.append([np.array(x, dtype=np.int64) for x in seen])
            ids.append({x: k for k, x in enumerate(seen)})
        self.block = [None if b is None else tuple(
            ids[d][tuple(b[d])] for d in range(len(t.shape)))
            for b in boxes]
        self.holders = {}
        for r, b in enumerate(self.block):
            if b is not None:
                self.holders.setdefault(b, []).append(r)

    def box(self, r):
        b = self.block[r]
        return None if b is None else self.block_box(b)

    def block_box(self, b):
        return tuple(self.ranges[d][k] for d, k in enumerate(b))


def box_size(a, b):
    """Number of elements in the intersection of two blocks (per dimension
    arrays of global indices)."""
    n = 1
    for x, y in zip(a, b):
        n *= len(np.intersect1d(x, y, assume_unique=True))
    return n


def closest(coords, r, candidates):
    """The candidates closest to rank r: sharing the most leading mesh
    coordinates with it (ties: all of them, in rank order)."""
    def shared(h):
        k = 0
        while k < len(coords[r]) and coords[h][k] == coords[r][k]:
            k += 1
        return k
    best = max(shared(h) for h in candidates)
    return sorted(h for h in candidates if shared(h) == best)


def sender_count(needs):
    """Number of distinct senders for one receiver, given for each piece it
    needs the tied closest holders; None if the choice among ties could
    change the number."""
    first = len({n[0] for n in needs})
    if all(len(n) == 1 for n in needs):
        return first
    if math.prod(len(n) for n in needs) > 4096:
        return None
    counts = {len(set(choice)) for choice in itertools.product(*needs)}
    return first if len(counts) == 1 else None


def redistribution(stmt, tensors):
    """(source, destination) tensor names if the step is a redistribution:
    B[i, j] = A[i, j], the same distinct plain indices in the same order and
    the same shapes; else None."""
    rhs = stmt.rhs
    if stmt.op != "=" or rhs[0] != "acc":
        return None
    src, dst = rhs[1], stmt.lhs
    plain = [(tuple(c.items()), k) for c, k in dst.indices]
    if any(k != 0 or len(c) != 1 or c[0][1] != 1 for c, k in plain):
        return None
    if len({c[0][0] for c, _ in plain}) != len(plain):
        return None
    if [(tuple(c.items()), k) for c, k in src.indices] != plain:
        return None
    if tensors[src.name].shape != tensors[dst.name].shape:
        return None
    return src.name, dst.name


def ideal_step(job, stmt):
    """(bytes, messages) one run of a redistribution step ideally moves;
    messages is None when ambiguous.  None if it is not a redistribution
    (or its destination is partial)."""
    names = redistribution(stmt, job.tensors)
    if names is None:
        return None
    a, b = job.tensors[names[0]], job.tensors[names[1]]
    if a.name == b.name:
        return 0, 0
    if b.partial:
        return None
    la, lb = Layout(job, a), Layout(job, b)
    size = DTYPES[b.dtype].itemsize
    coords = la.coords
    total, messages = 0, 0
    for r in range(len(coords)):
        box_b = lb.box(r)
        if box_b is None:
            continue
        needs = []
        for k, holders in la.holders.items():
            n = box_size(box_b, la.block_box(k))
            if n == 0:
                continue
            # Holders of the element's value: one group, or one per
            # combination of coordinates along the partial axes.
            groups = {}
            for h in holders:
                groups.setdefault(tuple(la.named[h][p] for p in la.partial),
                                  []).append(h)
            want = math.prod(la.extent[p] for p in la.partial)
            if len(groups) != want:
                raise JobError(f"tensor '{a.name}': some partial sums of a "
                               f"block have no holder")
            for g in groups.values():
                if r in g:
                    continue
                total += n * size
                needs.append(closest(coords, r, g))
        if needs:
            count = sender_count(needs)
            if count is None or messages is None:
                messages = None
            else:
                messages += count
    return total, messages


# --------------------------------------------------------------------------
# Commands

def cmd_inputs(job):
    for name in job.inputs:
        t = job.tensors[name]
        if not t.file:
            continue
        path = job.file_path(t)
        values = random_tensor(t.file_seed(), t.shape, t.dtype)
        # a file name may hold directories ("a*/ b; /*.npy")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            np.save(f, values)
        shape = "x".join(map(str, t.shape)) or "scalar"
        print(f"wrote {t.file} ({shape} {t.dtype}, seed {t.file_seed()})")
    return 0


def fmt_tol(t):
    s = f"{t:.0e}"
    return s if float(s) == t else f"{t:.3e}"


def compare(got, want):
    """(relative error, index of the worst element)."""
    both_nan = np.isnan(got) & np.isnan(want)
    with np.errstate(invalid="ignore"):
        diff = np.where((got == want) | both_nan, 0.0, np.abs(got - want))
    diff = np.where(np.isnan(diff), np.inf, diff)
    finite = want[np.isfinite(want)]
    scale = max(float(np.max(np.abs(finite))) if finite.size else 0.0, 1e-30)
    if diff.size == 0:
        return 0.0, ()
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return float(diff[worst]) / scale, tuple(int(i) for i in worst)


def zero_signs(got, want):
    """Indices of the elements where both are zero with different signs."""
    bad = (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    return np.argwhere(bad)


def need_outputs(job):
    if not job.outputs:
        raise JobError("no output to check: no tensor with 'file:' is "
                       "written by the program")


def cmd_check(job, rtol, signed_zeros=False):
    need_outputs(job)
    wants = expected_outputs(job)
    status = 0
    for name in job.outputs:
        out = job.tensors[name]
        want = wants[name]
        tol = rtol if rtol is not None else DEFAULT_RTOL[out.dtype]
        path = job.file_path(out)
        problem = npy_problem(path, out.shape, out.dtype)
        if problem:
            print(f"FAIL {name}: {problem}")
            status = 1
            continue
        got = np.load(path).astype(np.float64)
        err, worst = compare(got, want)
        head = f"{name}: max rel err {err:.1e} ({out.dtype}, tol {fmt_tol(tol)})"
        signs = zero_signs(got, want) if signed_zeros else []
        if err <= tol and len(signs):
            worst = tuple(int(i) for i in signs[0])
            print(f"FAIL {name}: sign of zero differs at {len(signs)} "
                  f"element(s), first at index {worst}: got {got[worst]!r}, "
                  f"want {want[worst]!r}")
            status = 1
        elif err <= tol:
            print(f"ok {head}")
        else:
            print(f"FAIL {head} at index {worst}: got {got[worst]!r}, "
                  f"want {want[worst]!r}")
            status = 1
    return status


BLOCK_FILE = re.compile(r"(\w+)\.r(\d+)\.at((?:_\d+)*)\.npy")


def cmd_blocks(job, directory, rtol):
    """Check the blocks that every rank dumped (DMD_DUMP_BLOCKS=DIRECTORY):
    for each output and each rank, the rank's file exists exactly when its
    block (from the layout, computed here) is not empty, has the block's
    origin and shape, and holds the expected values (error relative to the
    largest expected value of the whole tensor); no other file."""
    need_outputs(job)
    wants = expected_outputs(job)
    try:
        files = set(os.listdir(directory))
    except OSError as e:
        raise JobError(f"{directory}: {e.strerror}")
    status = 0
    for name in job.outputs:
        out = job.tensors[name]
        want = wants[name]
        tol = rtol if rtol is not None else DEFAULT_RTOL[out.dtype]
        finite = want[np.isfinite(want)]
        scale = max(float(np.max(np.abs(finite))) if finite.size else 0.0,
                    1e-30)
        unknown = []
        if not isinstance(out.spec.get("dist"), list) and \
                "axe" not in out.spec:
            unknown.append(f"dist {out.spec.get('dist')!r}")
        if unknown:
            # layouts this reference does not model (yet): say so
            print(f"skip {name}: its layout ({', '.join(unknown)}) is not "
                  f"modelled here")
            files -= {f for f in files if f.startswith(name + ".r")}
            continue
        lay = Layout(job, out)
        worst, n, bad = 0.0, 0, []
        for r in range(len(lay.coords)):
            box = lay.box(r)
            if box is None or any(len(ix) == 0 for ix in box):
                continue
            fname = (f"{name}.r{r}.at" +
                     "".join(f"_{ix[0]}" for ix in box) + ".npy")
            if fname not in files:
                bad.append(f"rank {r} wrote no block {fname}")
                continue
            files.discard(fname)
            n += 1
            shape = tuple(len(ix) for ix in box)
            problem = npy_problem(os.path.join(directory, fname), shape,
                                  out.dtype)
            if problem:
                bad.append(f"rank {r}: {problem}")
                continue
            got = np.load(os.path.join(directory, fname)).astype(np.float64)
            w = want[np.ix_(*box)] if box else want[()]
            both_nan = np.isnan(got) & np.isnan(w)
            with np.errstate(invalid="ignore"):
                diff = np.where((got == w) | both_nan, 0.0,
                                np.abs(got - w))
            diff = np.where(np.isnan(diff), np.inf, diff)
            err = float(np.max(diff)) / scale if diff.size else 0.0
            worst = max(worst, err)
            if err > tol:
                at = np.unravel_index(int(np.argmax(diff)), diff.shape)
                g = tuple(int(ix[i]) for i, ix in zip(at, box))
                bad.append(f"rank {r} holds {got[at]!r} at {g}, want "
                           f"{w[at]!r} (rel err {err:.1e})")
        if bad:
            status = 1
            print(f"FAIL {name}: " + "; ".join(bad[:4]) +
                  (f"; ... ({len(bad)} problems)" if len(bad) > 4 else ""))
        else:
            print(f"ok {name}: {n} blocks, max rel err {worst:.1e} "
                  f"({out.dtype}, tol {fmt_tol(tol)})")
    others = sorted(f for f in files if BLOCK_FILE.fullmatch(f))
    if others:
        status = 1
        print(f"FAIL blocks no rank should have written: "
              f"{', '.join(others[:6])}")
    return status


def cmd_expect(job, path):
    need_outputs(job)
    wants = expected_outputs(job)
    if path.endswith(".npy"):
        if len(wants) != 1:
            raise JobError(f"the program writes {len(wants)} outputs: give "
                           f"a directory")
        np.save(path, wants[job.outputs[0]])
        print(f"wrote {path}")
        return 0
    os.makedirs(path, exist_ok=True)
    for name, value in wants.items():
        np.save(os.path.join(path, f"{name}.npy"), value)
        print(f"wrote {os.path.join(path, name + '.npy')}")
    return 0


def cmd_ideal(job):
    """Print the ideal data movement of each step (format: see the module's
    docstring)."""
    name = job.doc.get("name", os.path.basename(job.path))
    print(f"# ideal data movement of {name}: step runs bytes messages "
          f"statement")
    tb, tm, others = 0, 0, False
    for s in job.steps:
        res = ideal_step(job, s.stmt)
        if res is None:
            others = True
            print(f"{s.number} {s.runs} - - {s.text}")
            continue
        nbytes, msgs = res[0] * s.runs, res[1]
        msgs = "*" if msgs is None else msgs * s.runs
        tb += nbytes
        tm = "*" if "*" in (tm, msgs) else tm + msgs
        print(f"{s.number} {s.runs} {nbytes} {msgs} {s.text}")
    print(f"total {tb} {tm}" + (" (redistribution steps only)"
                                if others else ""))
    return 0


def main(argv):
    # "distmpmd ref" runs this script with DMD_REF_PROG="distmpmd ref", so
    # that usage and messages name the command the user typed
    prog = os.environ.get("DMD_REF_PROG") or "dmd_ref.py"
    p = argparse.ArgumentParser(
        prog=prog,
        description="Sequential reference for distmpmd jobs.")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("inputs", help="write the input .npy files").add_argument("job")
    c = sub.add_parser("check", help="check the output .npy files")
    c.add_argument("job")
    c.add_argument("--rtol", type=float, default=None)
    c.add_argument("--signed-zeros", action="store_true",
                   help="also fail where both values are zero but their "
                   "signs differ")
    e = sub.add_parser("expect", help="write the expected outputs (float64)")
    e.add_argument("job")
    e.add_argument("out", help="OUT.npy (one output) or a directory")
    sub.add_parser("ideal", help="ideal bytes of redistribution steps"
                   ).add_argument("job")
    b = sub.add_parser("blocks", help="check the blocks every rank dumped "
                       "(DMD_DUMP_BLOCKS)")
    b.add_argument("job")
    b.add_argument("dir")
    b.add_argument("--rtol", type=float, default=None)
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        job = Job(args.job)
        if args.cmd == "inputs":
            return cmd_inputs(job)
        if args.cmd == "check":
            return cmd_check(job, args.rtol, args.signed_zeros)
        if args.cmd == "ideal":
            return cmd_ideal(job)
        if args.cmd == "blocks":
            return cmd_blocks(job, args.dir, args.rtol)
        return cmd_expect(job, args.out)
    except JobError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
