#!/usr/bin/python3
"""Result check of a benchmark job's output, or of another program's output
for the same problem.

    verify.py JOB.yaml              check the job's output file
    verify.py JOB.yaml FILE.npy     check FILE.npy as that output (the
                                    hand-written stencil's, for instance)

The expected values come from tests/ref/dmd_ref.py (the independent
sequential reference: its fast path evaluates the statement with numpy,
einsum/BLAS for products, strided views for stencils), compared with
dmd_ref.py's own comparison and default tolerance (relative 1e-9 for f64).
The job must have exactly one output.

For a matrix product (C[m, n] = A[m, k] * B[k, n]) the expected values
would come from the same OpenBLAS as the programs under test, so 24
entries (the corners and pseudo-random ones) are also checked against a
dot product in exactly rounded Python arithmetic (math.fsum), with the
bound K * eps * sum |a_ik b_kj|: a wrong BLAS kernel cannot pass both.

Prints one line; exit status 0 ok, 1 mismatch, 2 not such a job.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "ref"))
import numpy as np   # noqa: E402
import dmd_ref       # noqa: E402

EPS = {"f64": 2.0 ** -52, "f32": 2.0 ** -23}


def product_form(job):
    """(A, B) names if the job is one step C[m, n] = A[m, k] * B[k, n]."""
    try:
        stmt = job.stmt
    except Exception:   # a program of several steps
        return None
    rhs = stmt.rhs
    if stmt.op != "=" or rhs[0] != "bin" or rhs[1] != "*":
        return None
    if rhs[2][0] != "acc" or rhs[3][0] != "acc":
        return None
    a, b = rhs[2][1], rhs[3][1]
    def idx(acc):
        return repr(acc)[len(acc.name):]
    if idx(stmt.lhs) != "[m, n]" or idx(a) != "[m, k]" or idx(b) != "[k, n]":
        return None
    return a.name, b.name


def sample_check(job, names, got):
    """(max of |error| / bound over 24 sampled entries of the product,
    number of entries)."""
    a = dmd_ref.starting_values(job, job.tensors[names[0]], True)
    b = dmd_ref.starting_values(job, job.tensors[names[1]], True)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    m, k = a.shape
    n = b.shape[1]
    eps = EPS[job.tensors[job.outputs[0]].dtype]
    worst = 0.0
    rng = np.random.default_rng(12345)
    points = [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)]
    points += [(int(rng.integers(m)), int(rng.integers(n))) for _ in range(20)]
    for i, j in points:
        # the products rounded once, summed exactly (math.fsum): within
        # eps/2 * sum |a_ik b_kj| of the true dot product
        terms = [x * y for x, y in zip(a[i, :].tolist(), b[:, j].tolist())]
        exact = math.fsum(terms)
        absdot = math.fsum(abs(t) for t in terms)
        err = abs(float(got[i, j]) - exact)
        bound = k * eps * absdot
        r = err / bound if bound > 0 else (math.inf if err > 0 else 0.0)
        worst = max(worst, r)
    return worst, len(points)


def main(argv):
    if len(argv) not in (1, 2):
        print("usage: verify.py JOB.yaml [FILE.npy]", file=sys.stderr)
        return 2
    job = dmd_ref.Job(argv[0])
    if len(job.outputs) != 1:
        print("verify.py: the job must have exactly one output",
              file=sys.stderr)
        return 2
    name = job.outputs[0]
    out = job.tensors[name]
    path = argv[1] if len(argv) == 2 else job.file_path(out)
    problem = dmd_ref.npy_problem(path, out.shape, out.dtype)
    if problem:
        print(f"FAIL {name}: {problem}")
        return 1
    got = np.load(path).astype(np.float64)
    want = dmd_ref.expected_outputs(job)[name]
    err, worst = dmd_ref.compare(got, want)
    tol = dmd_ref.DEFAULT_RTOL[out.dtype]
    if err > tol:
        print(f"FAIL {name}: max rel err {err:.1e} vs dmd_ref ({out.dtype}, "
              f"tol {tol:.0e}) at index {worst}: got {got[worst]!r}, "
              f"want {want[worst]!r}")
        return 1
    msg = f"ok {name}: max rel err {err:.1e} vs dmd_ref ({out.dtype}, " \
        f"tol {tol:.0e})"
    names = product_form(job)
    if names:
        w, cnt = sample_check(job, names, got)
        if w > 1.0:
            print(f"FAIL {name}: {msg[3 + len(name) + 2:]}, but sampled "
                  f"entries off by {w:.2f} x the error bound")
            return 1
        msg += f"; {cnt} entries vs exact dot products: err <= " \
            f"{w:.1e} x bound"
    print(msg)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except dmd_ref.JobError as e:
        print(f"verify.py: error: {e}", file=sys.stderr)
        sys.exit(2)
