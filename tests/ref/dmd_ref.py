#!/usr/bin/python3
"""Independent sequential reference for distmpmd jobs.

It reads a job file (see shared/spec/job-format.md), ignores mesh, dist and
schedule (they change performance, never results), and evaluates the
statement directly with numpy in float64.  It shares no code with the C
compiler on purpose.

    dmd_ref.py inputs JOB.yaml             write the input .npy files
    dmd_ref.py check JOB.yaml [--rtol R]   compare the output .npy with the
                                           expected values
    dmd_ref.py expect JOB.yaml OUT.npy     write the expected output (float64)

Exit status: 0 ok, 1 mismatch (check), 2 bad arguments or bad job.

Semantics (spec 1.2 and 1.3), as implemented here:
  * every index variable ranges over the integer points for which ALL
    accesses of the statement (left side included) are in bounds; the test is
    made point by point over the whole iteration space;
  * the statement is the loop nest "out[lhs] += rhs" over those points, the
    output starting at zero with '=' and at its input values with '+=';
    variables only on the right are thus summed over, and a reduction sums
    the whole right-hand side (relu(A[i, k]) is summed after the relu);
  * output elements no point writes keep their starting value.
"""

import argparse
import math
import os
import re
import sys

import numpy as np
import yaml

DTYPES = {"f32": np.dtype("<f4"), "f64": np.dtype("<f8")}
DEFAULT_RTOL = {"f32": 1e-4, "f64": 1e-9}
FUNCS = {"max": (2, None), "min": (2, None), "exp": (1, 1), "sqrt": (1, 1),
         "relu": (1, 1)}
CHUNK = 1 << 21          # iteration points evaluated at once


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

class Tensor:
    def __init__(self, name, index, spec):
        if not isinstance(spec, dict):
            raise JobError(f"tensor '{name}': expected a mapping")
        self.name = name
        self.index = index
        shape = spec.get("shape")
        if not isinstance(shape, list) or not all(
                isinstance(e, int) and not isinstance(e, bool) and e >= 0
                for e in shape):
            raise JobError(f"tensor '{name}': bad shape {shape!r}")
        self.shape = tuple(shape)
        self.dtype = spec.get("dtype")
        if self.dtype not in DTYPES:
            raise JobError(f"tensor '{name}': bad dtype {self.dtype!r}")
        self.file = spec.get("file")
        self.init = spec.get("init")
        if self.init not in (None, "zeros", "ones", "random"):
            raise JobError(f"tensor '{name}': bad init {self.init!r}")
        self.seed = spec.get("seed")
        if self.seed is not None and (not isinstance(self.seed, int)
                                      or isinstance(self.seed, bool)):
            raise JobError(f"tensor '{name}': bad seed {self.seed!r}")

    def file_seed(self):
        """Seed used by 'inputs' to fill this tensor's file."""
        return self.seed if self.seed is not None else 100 + self.index


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
        tensors = doc.get("tensors")
        if not isinstance(tensors, dict) or not tensors:
            raise JobError(f"{path}: no tensors")
        self.tensors = {name: Tensor(name, k, spec)
                        for k, (name, spec) in enumerate(tensors.items())}
        dtypes = {t.dtype for t in self.tensors.values()}
        if len(dtypes) != 1:
            raise JobError(f"{path}: tensors have different dtypes")
        self.dtype = dtypes.pop()
        compute = doc.get("compute")
        if not isinstance(compute, str):
            raise JobError(f"{path}: 'compute' must be one statement")
        self.stmt = parse_statement(compute)
        self.stmt.check(self.tensors)

    def file_path(self, tensor):
        return os.path.join(self.dir, tensor.file)

    def input_names(self):
        """Tensors read by the statement (the output too with '+=')."""
        names = list(self.stmt.rhs_tensors())
        if self.stmt.op == "+=" and self.stmt.lhs.name not in names:
            names.append(self.stmt.lhs.name)
        return names


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

    def check(self, tensors):
        for a in self.accesses():
            if a.name not in tensors:
                raise JobError(f"compute: tensor '{a.name}' is not declared")
            rank = len(tensors[a.name].shape)
            if len(a.indices) != rank:
                raise JobError(f"compute: {a.name} has {rank} dimension(s), "
                               f"accessed with {len(a.indices)} index(es)")
        if self.op == "=" and self.lhs.name in self.rhs_tensors():
            raise JobError("compute: the output is read on the right of '=' "
                           "(not supported by the reference)")


# --------------------------------------------------------------------------
# Evaluation

def floor_div(a, b):
    return a // b


def ceil_div(a, b):
    return -((-a) // b)


def variable_bounds(stmt, shapes):
    """Inclusive integer bounds [lo, hi] of each variable: a box holding every
    point where all accesses are in bounds (interval propagation over the
    constraints 0 <= affine <= extent - 1)."""
    variables = stmt.variables()
    inf = math.inf
    lo = {v: -inf for v in variables}
    hi = {v: inf for v in variables}
    constraints = []
    for a in stmt.accesses():
        for (coefs, const), extent in zip(a.indices, shapes[a.name]):
            constraints.append((coefs, const, extent - 1))
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
                        return {u: (0, -1) for u in variables}
    for v in variables:
        if lo[v] == -inf or hi[v] == inf:
            raise JobError(f"compute: index variable '{v}' is unbounded")
    return {v: (int(lo[v]), int(hi[v])) for v in variables}


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
        return {"+": np.add, "-": np.subtract, "*": np.multiply,
                "/": np.divide}[e[1]](a, b)
    if kind == "call":
        args = [eval_expr(x, data, values, n) for x in e[2]]
        name = e[1]
        if name == "max":
            r = args[0]
            for x in args[1:]:
                r = np.maximum(r, x)
            return r
        if name == "min":
            r = args[0]
            for x in args[1:]:
                r = np.minimum(r, x)
            return r
        if name == "relu":
            return np.maximum(args[0], 0.0)
        return {"exp": np.exp, "sqrt": np.sqrt}[name](args[0])
    raise AssertionError(e)


def evaluate(stmt, data, start):
    """Evaluate the statement.  data: tensor name -> float64 array (the
    inputs); start: float64 array, the output's starting value.  Returns a
    new float64 array."""
    out = np.array(start, dtype=np.float64)
    flat = out.reshape(-1)
    shapes = {name: a.shape for name, a in data.items()}
    shapes[stmt.lhs.name] = out.shape
    bounds = variable_bounds(stmt, shapes)
    variables = list(bounds)
    lows = [bounds[v][0] for v in variables]
    sizes = [max(bounds[v][1] - bounds[v][0] + 1, 0) for v in variables]
    total = math.prod(sizes)
    constraints = [(a, e) for acc in stmt.accesses()
                   for a, e in zip(acc.indices, shapes[acc.name])]
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
                np.asarray(eval_expr(stmt.rhs, data, values, n),
                           dtype=np.float64), (n,))
            if out.ndim == 0:
                flat[0] += vals.sum()
            else:
                pos = np.ravel_multi_index(
                    tuple(eval_affine(a, values, n) for a in stmt.lhs.indices),
                    out.shape)
                flat += np.bincount(pos, weights=vals, minlength=flat.size)
    return out


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


def starting_values(job, tensor, from_file):
    """A tensor's input values (as stored, in its dtype)."""
    if from_file and tensor.file:
        path = job.file_path(tensor)
        problem = npy_problem(path, tensor.shape, tensor.dtype)
        if problem:
            raise JobError(f"input {tensor.name}: {problem}")
        return np.load(path)
    if tensor.file:
        # The output of '+=': the program has overwritten its file, so
        # rebuild what 'inputs' wrote there.
        return random_tensor(tensor.file_seed(), tensor.shape, tensor.dtype)
    init = tensor.init or "zeros"
    if init == "random":
        return random_tensor(tensor.seed or 0, tensor.shape, tensor.dtype)
    fill = np.ones if init == "ones" else np.zeros
    return fill(tensor.shape, dtype=DTYPES[tensor.dtype])


def expected_output(job):
    stmt = job.stmt
    out = job.tensors[stmt.lhs.name]
    if stmt.op == "+=":
        start = starting_values(job, out, False).astype(np.float64)
    else:
        start = np.zeros(out.shape)
    data = {name: (start if name == out.name else
                   starting_values(job, job.tensors[name], True)
                   .astype(np.float64))
            for name in stmt.rhs_tensors()}
    return evaluate(stmt, data, start)


# --------------------------------------------------------------------------
# Commands

def cmd_inputs(job):
    for name in job.input_names():
        t = job.tensors[name]
        if not t.file:
            continue
        path = job.file_path(t)
        values = random_tensor(t.file_seed(), t.shape, t.dtype)
        np.save(path, values)
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


def cmd_check(job, rtol):
    out = job.tensors[job.stmt.lhs.name]
    if not out.file:
        raise JobError(f"output {out.name} has no 'file:' to check")
    want = expected_output(job)
    tol = rtol if rtol is not None else DEFAULT_RTOL[out.dtype]
    path = job.file_path(out)
    problem = npy_problem(path, out.shape, out.dtype)
    if problem:
        print(f"FAIL {out.name}: {problem}")
        return 1
    got = np.load(path).astype(np.float64)
    err, worst = compare(got, want)
    if err <= tol:
        print(f"ok {out.name}: max rel err {err:.1e} ({out.dtype}, tol {fmt_tol(tol)})")
        return 0
    print(f"FAIL {out.name}: max rel err {err:.1e} ({out.dtype}, tol {fmt_tol(tol)})"
          f" at index {worst}: got {got[worst]!r}, want {want[worst]!r}")
    return 1


def cmd_expect(job, path):
    np.save(path, expected_output(job))
    print(f"wrote {path}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(
        prog="dmd_ref.py",
        description="Sequential reference for distmpmd jobs.")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("inputs", help="write the input .npy files").add_argument("job")
    c = sub.add_parser("check", help="check the output .npy file")
    c.add_argument("job")
    c.add_argument("--rtol", type=float, default=None)
    e = sub.add_parser("expect", help="write the expected output (float64)")
    e.add_argument("job")
    e.add_argument("out")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        job = Job(args.job)
        if args.cmd == "inputs":
            return cmd_inputs(job)
        if args.cmd == "check":
            return cmd_check(job, args.rtol)
        return cmd_expect(job, args.out)
    except JobError as e:
        print(f"dmd_ref.py: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
