#!/usr/bin/python3
"""NaN, infinities and signed zeros through every function (spec 1.3).

    special_values.py DISTMPMD REF

For f32 and f64, one program on two ranks applies every function of spec
1.3 and 1.5 (max and min with two and three arguments in both orders,
relu, exp, sqrt, tanh, sigmoid, erf, gelu, abs, log, unary minus) to inputs
holding NaN, +inf, -inf, -0.0, +0.0 and ordinary values, each step writing
its own output file.  The expected values come from the independent
reference (dmd_ref.py expect, numpy in float64), rounded to the dtype.
Compared element by element: NaN where the reference has NaN and nowhere
else, the same infinity, zeros of the same sign (max(-0.0, 0.0) is numpy's
0.0), finite values within a few units in the last place (libm and
numpy's vectorised exp/log may differ there).  Prints "ok NAME ..." or
"FAIL NAME: ..." per dtype and "N passed, M failed".
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

INF = float("inf")
NAN = float("nan")
# A and B side by side cover: NaN first / second / both, equal zeros of
# both signs in both orders, infinities against each other and finite
# values, overflow of exp, the domains of sqrt and log.
A = [NAN, 1.0, NAN, -0.0, 0.0, -0.0, INF, -INF, INF, 0.5, -0.5, 800.0,
     -800.0, -1.0, 2.0, 1e-3]
B = [1.0, NAN, NAN, 0.0, -0.0, -0.0, -INF, INF, INF, 0.5, -0.75, -800.0,
     3.0, -0.0, 0.0, -1e-3]
C = [0.0, -0.0, 2.0, NAN, 0.0, -0.0, 1.0, -1.0, -INF, -0.5, 0.25, 5.0,
     -5.0, -0.0, -0.0, 0.0]

STEPS = [
    "max(A[i], B[i])", "max(B[i], A[i])", "min(A[i], B[i])",
    "min(B[i], A[i])", "max(A[i], B[i], C[i])", "min(C[i], A[i], B[i])",
    "max(A[i], 0.5) + min(A[i], -0.5)", "relu(A[i])", "relu(B[i])",
    "exp(A[i])", "sqrt(A[i])", "sqrt(B[i])", "tanh(A[i])",
    "sigmoid(A[i])", "erf(A[i])", "gelu(A[i])", "abs(A[i])", "abs(B[i])",
    "log(A[i])", "log(B[i])", "-A[i]", "- -B[i]", "-(-(-C[i]))",
    "A[i] * B[i]", "A[i] - B[i]", "A[i] / B[i]",
]


def job_text(dtype):
    n = len(A)
    lines = ["name: special_%s" % dtype,
             "mesh: {axes: [x], shape: [2]}",
             "tensors:"]
    for t in "ABC":
        lines.append("  %s: {shape: [%d], dtype: %s, dist: [x], file: %s.npy}"
                     % (t, n, dtype, t))
    for k in range(len(STEPS)):
        lines.append("  O%d: {shape: [%d], dtype: %s, dist: [x], "
                     "file: O%d.npy}" % (k, n, dtype, k))
    lines.append("program:")
    for k, s in enumerate(STEPS):
        lines.append("  - compute: O%d[i] = %s" % (k, s))
    return "\n".join(lines) + "\n"


def ulps(got, want, dtype):
    """Distance in units in the last place of dtype (finite values)."""
    eps = np.finfo(dtype).eps
    scale = np.maximum(np.abs(want), np.finfo(dtype).tiny)
    return np.abs(got - want) / (scale * eps)


def compare(name, got, want, dtype):
    """None if got matches want (see the top), else a message."""
    for i, (g, w) in enumerate(zip(got.tolist(), want.tolist())):
        if np.isnan(w) or np.isnan(g):
            if not (np.isnan(w) and np.isnan(g)):
                return "%s[%d]: got %r, want %r" % (name, i, g, w)
        elif np.isinf(w) or np.isinf(g) or w == 0 or g == 0:
            if g != w or np.signbit(g) != np.signbit(w):
                return "%s[%d]: got %r, want %r" % (name, i, g, w)
        elif ulps(np.array(g), np.array(w), dtype) > 4:
            return "%s[%d]: got %r, want %r (more than 4 ulps)" % (
                name, i, g, w)
    return None


def run_one(dmd, ref, dtype, tmp):
    np_dtype = np.float32 if dtype == "f32" else np.float64
    job = os.path.join(tmp, "special_%s.yaml" % dtype)
    with open(job, "w") as f:
        f.write(job_text(dtype))
    with np.errstate(over="ignore"):
        for t, vals in zip("ABC", (A, B, C)):
            np.save(os.path.join(tmp, t + ".npy"),
                    np.array(vals, dtype=np_dtype))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    r = subprocess.run([dmd, "run", job], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return "distmpmd run exited with %d: %s" % (
            r.returncode, (r.stdout + r.stderr).strip()[-400:])
    want_dir = os.path.join(tmp, "want")
    r = subprocess.run([ref, "expect", job, want_dir], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        return "dmd_ref.py expect exited with %d: %s" % (
            r.returncode, r.stderr.strip()[-400:])
    for k, s in enumerate(STEPS):
        got = np.load(os.path.join(tmp, "O%d.npy" % k))
        if got.dtype != np_dtype:
            return "O%d.npy has dtype %s" % (k, got.dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            want = np.load(os.path.join(want_dir, "O%d.npy" % k)).astype(
                np_dtype)
        msg = compare("O%d = %s" % (k, s), got.astype(np.float64),
                      want.astype(np.float64), np_dtype)
        if msg:
            return msg
    return None


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    dmd, ref = (os.path.abspath(a) for a in sys.argv[1:])
    passed = failed = 0
    for dtype in ("f32", "f64"):
        with tempfile.TemporaryDirectory(prefix="special.") as tmp:
            msg = run_one(dmd, ref, dtype, tmp)
        if msg:
            print("FAIL special_%s: %s" % (dtype, msg))
            failed += 1
        else:
            print("ok special_%s (%d functions and operators, NaN, inf, "
                  "-0.0)" % (dtype, len(STEPS)))
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
