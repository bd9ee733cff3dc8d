#!/usr/bin/python3
"""Fast result check of a benchmark job (a plain matrix product C = A * B).

    verify.py JOB.yaml

tests/ref/dmd_ref.py check evaluates the statement point by point, which
takes minutes at the benchmark's sizes.  For the benchmark's jobs
("C[m, n] = A[m, k] * B[k, n]" with '=') this script uses dmd_ref.py to
read the job and build the inputs (the spec's random values, or the input
files), computes the expected output with one float64 numpy matmul, and
compares it with the job's output file using dmd_ref.py's own comparison
and default tolerance.  Exit status: 0 ok, 1 mismatch, 2 not such a job.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "ref"))
import numpy as np   # noqa: E402
import dmd_ref       # noqa: E402


def main(argv):
    if len(argv) != 1:
        print("usage: verify.py JOB.yaml", file=sys.stderr)
        return 2
    job = dmd_ref.Job(argv[0])
    stmt = job.stmt
    rhs = stmt.rhs
    form = (stmt.op, repr(stmt.lhs), rhs[0], rhs[1] if rhs[0] == "bin" else None,
            repr(rhs[2][1]) if rhs[0] == "bin" and rhs[2][0] == "acc" else None,
            repr(rhs[3][1]) if rhs[0] == "bin" and rhs[3][0] == "acc" else None)
    if form != ("=", "C[m, n]", "bin", "*", "A[m, k]", "B[k, n]"):
        print("verify.py: not a plain C[m, n] = A[m, k] * B[k, n] job",
              file=sys.stderr)
        return 2
    out = job.tensors["C"]
    a = dmd_ref.starting_values(job, job.tensors["A"], True).astype(np.float64)
    b = dmd_ref.starting_values(job, job.tensors["B"], True).astype(np.float64)
    want = a @ b
    path = job.file_path(out)
    problem = dmd_ref.npy_problem(path, out.shape, out.dtype)
    if problem:
        print(f"FAIL C: {problem}")
        return 1
    got = np.load(path).astype(np.float64)
    err, worst = dmd_ref.compare(got, want)
    tol = dmd_ref.DEFAULT_RTOL[out.dtype]
    if err <= tol:
        print(f"ok C: max rel err {err:.1e} ({out.dtype}, tol {tol:.0e})")
        return 0
    print(f"FAIL C: max rel err {err:.1e} ({out.dtype}, tol {tol:.0e}) at "
          f"index {worst}: got {got[worst]!r}, want {want[worst]!r}")
    return 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except dmd_ref.JobError as e:
        print(f"verify.py: error: {e}", file=sys.stderr)
        sys.exit(2)
