#!/usr/bin/python3
"""The printer of right sides against the reference, on expression trees.

    expr_trees.py [--seed S] DISTMPMD REF

Every combination of an operator node and an operand node, the operand on
either side (unary minus, + - * /, a call of each function, an access, a
number), appears in a generated tree, written in the job's syntax with a
random mix of parentheses, spaces and unary-minus chains ("- -x",
"-(-x)", "a - - -b").  The trees become the steps of one program on two
ranks (f64, each step writing its own output file) which distmpmd builds
and runs; dmd_ref.py check compares every output with the reference.  A
printer that lets two operators meet ("--x" is C's decrement), drops a
needed parenthesis or evaluates max/min/relu differently fails here.
Prints "ok ..." or "FAIL ..." and "N passed, M failed".
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

FUNCS1 = ["exp", "sqrt", "relu", "tanh", "sigmoid", "erf", "gelu", "abs",
          "log"]
KINDS = ["neg", "+", "-", "*", "/", "max", "min", "f1", "acc", "num"]


def leaf(rng, kind):
    if kind == "num":
        return rng.choice(["2", "0.5", "3", "1.25", "0", "1e-1"])
    return rng.choice(["A[i]", "B[i]", "C[i]", "A[i]"])


def tree(rng, kind, depth, child=None):
    """A tree whose root is of this kind; "child" (kind, side) forces the
    kind of the root's operand on that side."""
    def sub(side):
        if child and child[1] == side:
            return tree(rng, child[0], depth - 1)
        if depth <= 0:
            return leaf(rng, rng.choice(["acc", "num"]))
        return tree(rng, rng.choice(KINDS), depth - 1)

    if kind in ("acc", "num"):
        return leaf(rng, kind)
    if kind == "neg":
        a = sub(0)
        n = rng.choice([1, 1, 2, 3])
        form = rng.choice(["-", "- ", "-("])
        if form == "-(":
            return "-(" * n + a + ")" * n
        return (form * n) + (a if rng.random() < 0.5 else "(" + a + ")")
    if kind in "+-*/":
        a, b = sub(0), sub(1)
        if rng.random() < 0.5:
            a = "(" + a + ")"
        if rng.random() < 0.5:
            b = "(" + b + ")"
        sp = rng.choice([" ", ""])
        return a + sp + kind + sp + b
    if kind in ("max", "min"):
        args = [sub(0), sub(1)]
        if rng.random() < 0.3:
            args.append(sub(2))
        return kind + "(" + ", ".join(args) + ")"
    f = rng.choice(FUNCS1)
    return f + "(" + sub(0) + ")"


def statements(rng):
    out = []
    for parent in KINDS:
        if parent in ("acc", "num"):
            continue
        sides = [0] if parent in ("neg", "f1") else [0, 1]
        for c in KINDS:
            for side in sides:
                out.append(tree(rng, parent, 2, (c, side)))
    return out


def job_text(stmts):
    lines = ["name: expr_trees", "mesh: {axes: [x], shape: [2]}",
             "tensors:"]
    for t in "ABC":
        lines.append("  %s: {shape: [9], dtype: f64, dist: [x], file: %s.npy}"
                     % (t, t))
    for k in range(len(stmts)):
        lines.append("  O%d: {shape: [9], dtype: f64, dist: [x], "
                     "file: O%d.npy}" % (k, k))
    lines.append("program:")
    for k, s in enumerate(stmts):
        lines.append("  - compute: 'O%d[i] = %s'" % (k, s))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("dmd")
    ap.add_argument("ref")
    args = ap.parse_args()
    dmd, ref = os.path.abspath(args.dmd), os.path.abspath(args.ref)
    rng = random.Random(args.seed)
    stmts = statements(rng)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="exprs.") as tmp:
        job = os.path.join(tmp, "expr_trees.yaml")
        with open(job, "w") as f:
            f.write(job_text(stmts))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        steps = [[ref, "inputs", job], [dmd, "run", job],
                 [ref, "check", job]]
        for cmd in steps:
            r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True,
                               text=True, timeout=600)
            if r.returncode != 0:
                text = (r.stdout + r.stderr).strip().splitlines()
                bad = [l for l in text if not l.startswith("ok ")]
                print("FAIL expr_trees (seed %d): %s exited with %d" % (
                    args.seed, os.path.basename(cmd[0]) + " " + cmd[1],
                    r.returncode))
                for line in bad[-12:]:
                    print("    " + line)
                for k, s in enumerate(stmts):
                    if any(("O%d:" % k) in l or ("O%d[" % k) in l
                           for l in bad):
                        print("    O%d[i] = %s" % (k, s))
                failed += 1
                break
        else:
            print("ok expr_trees (seed %d, %d trees covering every "
                  "operator/operand pair)" % (args.seed, len(stmts)))
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
