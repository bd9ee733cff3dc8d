"""Random expressions, index patterns and layouts for the random jobs
(fuzz.py, fuzz_prog.py).

Expressions (spec 1.3, 1.5) are trees drawn over given leaves (accesses)
and printed in the job's syntax with random spacing and redundant
parentheses: unary minus chains (`- -x`, `--x`, `-(-x)`, around numbers,
accesses and calls), every binary operator with every kind of operand
(`a - - -b`, `a * -b`, `a / -(b)`), every function (max and min with 2-4
arguments), numbers in every notation (`2`, `2.`, `.5`, `5e-1`, `2.5E+1`).
Each node carries a bound of its magnitude for inputs in [-1, 1], so that
no finite intermediate can overflow f32 (where the f32 program and the f64
reference would then disagree): exp only of arguments bounded by 4,
divisions only by numbers, single accesses (well conditioned) or
`1 + abs(e)`.  NaN and inf come from the inputs (fuzz.py poisons them)
and from the functions themselves (log(relu(x)), sqrt(-x), x / 0).

Layouts: blocks_held() enumerates which block combinations a dist/place
layout holds on a small mesh (spec 1.2), unheld_layout() draws one where
some block is held by no rank (an error the compiler must report).
"""
import math

FUNCS1 = ["exp", "sqrt", "relu", "tanh", "sigmoid", "erf", "gelu", "abs",
          "log"]
FUNCSN = ["max", "min"]
FUNCS = FUNCS1 + FUNCSN

# (value, spellings); zero is used as a term or factor, and rarely as a
# divisor (x / 0 is +-inf or NaN, exactly as in the reference)
NUMBERS = [(2.0, ["2", "2.0", "2.", "2e0", "0.2e1"]),
           (0.5, ["0.5", ".5", "5e-1", "5E-1", "0.50"]),
           (3.0, ["3", "3.0", "3e+0"]),
           (0.25, ["0.25", "25e-2", ".25"]),
           (1.5, ["1.5", "15e-1", "1.50"]),
           (1.0, ["1", "1.0", "1e0"]),
           (4.0, ["4", "4.", "0.4E1"]),
           (0.001, ["0.001", "1e-3", "1E-3"]),
           (25.0, ["25", "2.5E+1", "2.5e1"]),
           (0.0, ["0", "0.0", "0e0", ".0"])]


# --------------------------------------------------------------------------
# Trees: ("acc", text, bound) | ("num", value, text) | ("neg", e)
#        | ("bin", op, a, b) | ("call", name, [args])

def bound(e):
    """An upper bound of |e| for finite leaves within their bounds (None:
    not bounded, after a division by an access that may be near 0)."""
    k = e[0]
    if k == "acc":
        return e[2]
    if k == "num":
        return abs(e[1])
    if k == "neg":
        return bound(e[1])
    if k == "bin":
        a, b = bound(e[2]), bound(e[3])
        if a is None or b is None:
            return None
        if e[1] in "+-":
            return a + b
        if e[1] == "*":
            return a * b
        d = e[3]
        while d[0] == "neg":
            d = d[1]
        if d[0] == "num":
            return a / d[1] if d[1] else None
        if d[0] == "acc":
            return None
        return a                      # 1 + abs(e): at least 1
    f, args = e[1], e[2]
    bs = [bound(x) for x in args]
    if f in ("tanh", "sigmoid", "erf"):
        return 1.0
    if None in bs:
        return None
    if f == "exp":
        return math.exp(bs[0])
    if f == "sqrt":
        return math.sqrt(bs[0])
    if f == "log":
        return max(abs(math.log(bs[0])) if bs[0] > 0 else 0, 90.0)
    return max(bs)                    # relu, abs, gelu, max, min


def strip_neg(e):
    while e[0] == "neg":
        e = e[1]
    return e


def calls(e):
    """The names of the functions the tree calls."""
    if e[0] == "call":
        out = {e[1]}
        for x in e[2]:
            out |= calls(x)
        return out
    if e[0] == "neg":
        return calls(e[1])
    if e[0] == "bin":
        return calls(e[2]) | calls(e[3])
    return set()


class ExprGen:
    """Draws trees over "leaves": a list of (text, bound) accesses.
    max_depth limits the nesting, max_bound the magnitude."""

    def __init__(self, rng, leaves, max_depth=4, max_bound=1e4):
        self.rng = rng
        self.leaves = leaves
        self.max_depth = max_depth
        self.max_bound = max_bound

    def leaf(self):
        rng = self.rng
        if rng.random() < 0.15:
            return self.number()
        text, b = rng.choice(self.leaves)
        return ("acc", text, b)

    def number(self, nonzero=False):
        rng = self.rng
        vals = NUMBERS[:-1] if nonzero else NUMBERS
        v, spellings = rng.choice(vals)
        return ("num", v, rng.choice(spellings))

    def chain(self, e, lo=1, hi=3):
        """e under lo..hi unary minuses."""
        for _ in range(self.rng.randint(lo, hi)):
            e = ("neg", e)
        return e

    def bounded(self, e, limit):
        """e, or tanh/erf/sigmoid of it when its bound exceeds limit."""
        b = bound(e)
        if b is not None and b <= limit:
            return e
        return ("call", self.rng.choice(["tanh", "erf", "sigmoid"]), [e])

    def gen(self, depth=0):
        rng = self.rng
        r = rng.random()
        if depth >= self.max_depth or r < 0.2:
            e = self.leaf()
            if rng.random() < 0.2:
                e = self.chain(e)
            return e
        if r < 0.28:
            return self.chain(self.gen(depth + 1))
        if r < 0.62:
            return self.binary(depth)
        return self.call(depth)

    def binary(self, depth):
        rng = self.rng
        op = rng.choice("+-*/")
        a = self.gen(depth + 1)
        if op == "/":
            r = rng.random()
            if r < 0.35:
                b = self.number(nonzero=rng.random() < 0.95)
            elif r < 0.7:
                text, lb = rng.choice(self.leaves)
                b = ("acc", text, lb)
            else:
                b = ("bin", "+", ("num", 1.0, rng.choice(["1", "1.0"])),
                     ("call", "abs", [self.gen(depth + 2)]))
            if rng.random() < 0.35:
                b = self.chain(b, 1, 2)
            a = self.bounded(a, self.max_bound ** 0.5)
            return ("bin", op, a, b)
        b = self.gen(depth + 1)
        if rng.random() < 0.35:
            b = self.chain(b, 1, 3)       # a - - -b, a * -b, a + --b
        if op == "*":
            a = self.bounded(a, self.max_bound ** 0.5)
            b = self.bounded(b, self.max_bound ** 0.5)
        else:
            a = self.bounded(a, self.max_bound / 2)
            b = self.bounded(b, self.max_bound / 2)
        return ("bin", op, a, b)

    def call(self, depth):
        rng = self.rng
        f = rng.choice(FUNCS)
        if f in FUNCSN:
            args = [self.gen(depth + 1) for _ in range(rng.randint(2, 4))]
            if rng.random() < 0.3:
                args[rng.randrange(len(args))] = self.chain(self.number())
        else:
            args = [self.gen(depth + 1)]
            if f == "exp":
                args = [self.bounded(args[0], 4.0)]
        e = ("call", f, [self.bounded(x, self.max_bound) for x in args])
        if rng.random() < 0.2:
            e = self.chain(e)             # - -exp(x)
        return e

    def expr(self):
        """A tree whose bound is at most max_bound (or None only through a
        division by an access)."""
        e = self.gen()
        b = bound(e)
        if b is not None and b > self.max_bound:
            e = ("call", "tanh", [e])
        return e


# --------------------------------------------------------------------------
# Printing in the job's syntax

def prec(e):
    """Binding strength in the job's grammar: sums 1, products 2, unary
    minus 3, atoms 4."""
    if e[0] == "bin":
        return 1 if e[1] in "+-" else 2
    if e[0] == "neg":
        return 3
    return 4


class Printer:
    """Prints a tree so that it parses back to the same tree, with random
    spacing and redundant parentheses (rng None: plain, one space around
    binary operators, none after a unary minus unless before another)."""

    def __init__(self, rng=None):
        self.rng = rng

    def chance(self, p):
        return self.rng is not None and self.rng.random() < p

    def op(self, o):
        if self.rng is None:
            return " %s " % o
        r = self.rng.random()
        if r < 0.65:
            return " %s " % o
        if r < 0.85:
            return o
        return (" " + o) if r < 0.93 else (o + " ")

    def paren(self, s):
        return "(" + s + ")"

    def pr(self, e):
        s = self.pr_bare(e)
        if e[0] != "acc" and self.chance(0.08):
            s = self.paren(s)
        return s

    def pr_bare(self, e):
        k = e[0]
        if k == "acc":
            return e[1]
        if k == "num":
            return e[2]
        if k == "call":
            sep = ", " if not self.chance(0.3) else ","
            return "%s(%s)" % (e[1], sep.join(self.pr(x) for x in e[2]))
        if k == "neg":
            inner = self.pr(e[1])
            if prec(e[1]) < 3 and not balanced_outer(inner):
                inner = self.paren(inner)
            if self.rng is None:
                space = " " if inner.startswith("-") else ""
            else:
                space = self.rng.choice(["", "", " "])
            return "-" + space + inner
        a, b = self.pr(e[2]), self.pr(e[3])
        p = prec(e)
        if prec(e[2]) < p and not balanced_outer(a):
            a = self.paren(a)
        if prec(e[3]) <= p and not balanced_outer(b):
            b = self.paren(b)
        return a + self.op(e[1]) + b


def balanced_outer(s):
    """Is s one parenthesized group, "( ... )"?"""
    if not (s.startswith("(") and s.endswith(")")):
        return False
    depth = 0
    for k, c in enumerate(s):
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and k < len(s) - 1:
            return False
    return True


def text(e, rng=None):
    return Printer(rng).pr_bare(e)


def has_unary_chain(e, parent=None):
    """Does the tree have a unary minus meeting another operator: a minus
    of a minus (`- -x`, `-(-x)`) or of a number, or a minus as the right
    operand of a binary operator (`a - -b`)?"""
    k = e[0]
    if k == "neg":
        if e[1][0] in ("neg", "num") or parent == "bin":
            return True
        return has_unary_chain(e[1], "neg")
    if k == "bin":
        return has_unary_chain(e[2], None) or has_unary_chain(e[3], "bin")
    if k == "call":
        return any(has_unary_chain(x, None) for x in e[2])
    return False


# --------------------------------------------------------------------------
# Trees of the reference's parser (tests/ref/dmd_ref.py): the same shapes
# except ("num", value) and ("acc", Access)

def from_ref(e):
    """A tree of dmd_ref's parser as one of ours."""
    k = e[0]
    if k == "num":
        return ("num", e[1], repr(e[1]))
    if k == "acc":
        return ("acc", access_text(e[1]), 1.0)
    if k == "neg":
        return ("neg", from_ref(e[1]))
    if k == "bin":
        return ("bin", e[1], from_ref(e[2]), from_ref(e[3]))
    return ("call", e[1], [from_ref(x) for x in e[2]])


def affine_text(coefs, const):
    """An affine index without a unary minus: 3 - i, 2 * i + 1, 0 - i - 2."""
    terms = [(c > 0, v if abs(c) == 1 else "%d * %s" % (abs(c), v))
             for v, c in coefs.items() if c]
    if const:
        terms.append((const > 0, str(abs(const))))
    terms.sort(key=lambda t: not t[0])         # the positive ones first
    if not terms:
        return "0"
    s = terms[0][1] if terms[0][0] else "0 - " + terms[0][1]
    for positive, t in terms[1:]:
        s += (" + " if positive else " - ") + t
    return s


def access_text(acc):
    if not acc.indices:
        return acc.name
    return "%s[%s]" % (acc.name, ", ".join(affine_text(c, k)
                                           for c, k in acc.indices))


def without_unary(e):
    """The tree with every unary minus -x written as (0 - 1) * x (the same
    value, NaN, inf and sign of zero included: -1 * x is exact)."""
    k = e[0]
    if k == "neg":
        m1 = ("bin", "-", ("num", 0.0, "0"), ("num", 1.0, "1"))
        return ("bin", "*", m1, without_unary(e[1]))
    if k == "bin":
        return ("bin", e[1], without_unary(e[2]), without_unary(e[3]))
    if k == "call":
        return ("call", e[1], [without_unary(x) for x in e[2]])
    return e


# --------------------------------------------------------------------------
# Affine indices that cut ranges (spec 1.3: an index ranges over the values
# where every access is in bounds)

def cut_index(rng, v):
    """(text, coef, const): an affine index of variable v with a stride,
    an offset, a reflection or a unary minus."""
    r = rng.random()
    if r < 0.3:
        return v, 1, 0
    if r < 0.5:
        d = rng.randint(1, 3)
        return "%s + %d" % (v, d), 1, d
    if r < 0.6:
        d = rng.randint(1, 2)
        return "%s - %d" % (v, d), 1, -d
    if r < 0.75:
        c = rng.randint(2, 3)
        d = rng.randint(0, 2)
        return ("%d * %s + %d" % (c, v, d) if d else "%d * %s" % (c, v)), c, d
    if r < 0.85:
        d = rng.randint(3, 9)
        return "%d - %s" % (d, v), -1, d
    if r < 0.93:
        return rng.choice(["- -%s", "-(-%s)", "-(-%s) + 0"]) % v, 1, 0
    d = rng.randint(1, 2)
    return "%s - -%d" % (v, d), 1, d


# --------------------------------------------------------------------------
# Layouts on small meshes, by enumeration

def coords(shape):
    """Every coordinate tuple of a mesh, row-major."""
    out = [()]
    for n in shape:
        out = [c + (k,) for c in out for k in range(n)]
    return out


def eval_entry(entry, axes, c):
    """The value of a dist entry (as the generators write them: axis
    names, integers, + - * // % and parentheses; Python's // and % floor
    as the spec's do) at coordinates c."""
    env = dict(zip(axes, c))
    return eval(entry, {"__builtins__": {}}, env)


def blocks_held(entries, place, axes, shape):
    """(nblocks, held, unheld) of a layout: per dimension the number of
    blocks (None if an entry does not take exactly the values 0..B-1),
    the set of block combinations some rank holds, and one combination
    no rank holds (None if all are held).  entries: '-' or an expression;
    place: {axis: coordinate}."""
    vals = [set() for _ in entries]
    held = set()
    for c in coords(shape):
        combo = []
        for d, e in enumerate(entries):
            v = 0 if e == "-" else eval_entry(e, axes, c)
            vals[d].add(v)
            combo.append(v)
        if all(c[axes.index(a)] == k for a, k in place.items()):
            held.add(tuple(combo))
    nb = []
    for vs in vals:
        if vs != set(range(len(vs))):
            return None, held, None
        nb.append(len(vs))
    for combo in coords(nb):
        if combo not in held:
            return nb, held, combo
    return nb, held, None


def unheld_layout(rng, ndim, axes, shape):
    """(entries, place) of a layout of an ndim-dimensional tensor where
    some block is held by no rank (spec 1.2), or None if the mesh and
    ndim allow none of the patterns: [x, x]; [x, (x + 1) % n];
    ["(x + y) % k", "(x + y) % k"]; ["x * ny + y", x]; [x] placed on
    x = c."""
    big = [a for a, n in zip(axes, shape) if n >= 2]
    if not big:
        return None
    cands = []
    for a in big:
        n = shape[axes.index(a)]
        cands.append(([a], {a: rng.randrange(n)}))
        if ndim >= 2:
            cands.append(([a, a], {}))
            cands.append(([a, "(%s + 1) %% %d" % (a, n)], {}))
            cands.append((["- -%s" % a, a], {}))
    if len(big) >= 2 and ndim >= 2:
        a, b = rng.sample(big, 2)
        na, nb = shape[axes.index(a)], shape[axes.index(b)]
        k = min(na, nb)
        s = '(%s + %s) %% %d' % (a, b, k)
        cands.append(([s, s], {}))
        cands.append((["%s * %d + %s" % (a, nb, b), a], {}))
        cands.append(([a, b], {a: rng.randrange(na)}))
    rng.shuffle(cands)
    for entries, place in cands:
        d = list(entries)
        # pad to ndim with unsplit dimensions, in random positions
        while len(d) < ndim:
            d.insert(rng.randint(0, len(d)), "-")
        if len(d) > ndim:
            continue
        nb, _, unheld = blocks_held(d, place, axes, shape)
        if nb is not None and unheld is not None:
            return d, place
    return None
