#!/bin/bash
# Self-test of the sequential reference tests/ref/dmd_ref.py:
#   - the random formula against a plain-integer implementation (and the
#     published SplitMix64 outputs for seed 0),
#   - 'inputs' (which files, which seeds, which dtype),
#   - the evaluator on small cases with hand-computed results, each also run
#     through 'check' with a right output (exit 0) and a wrong one (exit 1),
#   - 'check' failures (shape, dtype, order, NaN, missing file, tolerance) and
#     usage errors (exit 2),
#   - the e2e jobs of tests/e2e/jobs against numpy's own products.
# Usage: bash tests/ref/selftest.sh      (last line: "N passed, M failed")
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
export REF=$HERE/dmd_ref.py
export JOBS=$HERE/../e2e/jobs
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0

report() {      # NAME STATUS LOG
    if [ "$2" -eq 0 ]; then
        echo "ok $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1"
        sed 's/^/    /' "$3"
        failed=$((failed + 1))
    fi
}

# pycase NAME: run the Python code on stdin after the prelude; passes when it
# exits 0.
pycase() {
    local name=$1 status=0
    { cat "$TMP/prelude.py"; cat; } >"$TMP/$name.py"
    "$PY" "$TMP/$name.py" >"$TMP/$name.log" 2>&1 || status=$?
    report "$name" "$status" "$TMP/$name.log"
}

cat >"$TMP/prelude.py" <<'EOF'
import os
import subprocess
import sys
import tempfile

import numpy as np

REF = os.environ["REF"]
TMP = os.environ["TMP"]
JOBS = os.environ["JOBS"]
sys.path.insert(0, os.path.dirname(REF))
import dmd_ref

MASK = 2**64 - 1


def plain_z(seed, i):
    """The spec's random formula with Python integers (no numpy)."""
    z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def plain_random(seed, i):
    return (plain_z(seed, i) >> 11) * 2.0**-53 * 2 - 1


def make_job(stmt, tensors, dtype="f64"):
    """Write a job in a fresh directory.  tensors: name -> dict with 'shape'
    and optionally 'values' (saved to NAME.npy, the tensor gets that file),
    'file', 'init', 'seed'.  Returns the job's path."""
    d = tempfile.mkdtemp(dir=TMP)
    lines = ["name: t", "mesh: {axes: [x], shape: [1]}", "tensors:"]
    for name, t in tensors.items():
        shape = list(t["shape"])
        dist = ", ".join(['"-"'] * len(shape))
        keys = [f"shape: {shape}", f"dtype: {dtype}", f"dist: [{dist}]"]
        if "values" in t:
            np.save(f"{d}/{name}.npy",
                    np.asarray(t["values"], dtype=dmd_ref.DTYPES[dtype]))
            keys.append(f"file: {name}.npy")
        elif "file" in t:
            keys.append(f"file: {t['file']}")
        for k in ("init", "seed"):
            if k in t:
                keys.append(f"{k}: {t[k]}")
        lines.append(f"  {name}: {{{', '.join(keys)}}}")
    lines += [f"compute: {stmt}", "schedule: []"]
    path = f"{d}/job.yaml"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run_ref(*args):
    p = subprocess.run(["/usr/bin/python3", REF, *args],
                       capture_output=True, text=True)
    print(f"$ dmd_ref.py {' '.join(args)} -> {p.returncode}\n{p.stdout}{p.stderr}")
    return p.returncode, p.stdout + p.stderr


def expected(path):
    return dmd_ref.expected_output(dmd_ref.Job(path))


def hand_case(stmt, tensors, out, want, dtype="f64"):
    """The evaluator gives want (hand-computed); if the output has a file,
    'check' accepts want written there and rejects it with its first element
    off by one."""
    path = make_job(stmt, tensors, dtype)
    want = np.asarray(want, dtype=np.float64)
    got = expected(path)
    print("expected:", got.tolist(), "hand:", want.tolist())
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.max(np.abs(got - want), initial=0) <= 1e-12, "evaluator differs"
    if "file" not in tensors[out]:
        return
    out_path = os.path.join(os.path.dirname(path), tensors[out]["file"])
    np.save(out_path, want.astype(dmd_ref.DTYPES[dtype]))
    rc, text = run_ref("check", path)
    assert rc == 0 and text.startswith(f"ok {out}: max rel err"), "check of a right output"
    wrong = want.copy()
    wrong.reshape(-1)[0] += 1
    np.save(out_path, wrong.astype(dmd_ref.DTYPES[dtype]))
    rc, text = run_ref("check", path)
    assert rc == 1 and text.startswith(f"FAIL {out}:"), "check of a wrong output"
EOF

# --------------------------------------------------------------------------
# Random init

pycase random_anchor_splitmix64 <<'EOF'
# Published SplitMix64 outputs for state 0 (the formula is SplitMix64).
assert plain_z(0, 0) == 0xE220A8397B1DCDAF
assert plain_z(0, 1) == 0x6E789E6AA1B965F4
assert plain_z(0, 2) == 0x06C45D188009454F
EOF

pycase random_numpy_vs_plain <<'EOF'
count = 70000
for seed in (0, 1, 3, 101, 12345, 2**63 + 5, 2**64 - 1):
    v = dmd_ref.random_values(seed, count)
    assert v.dtype == np.float64 and v.shape == (count,)
    for i in (0, 1, 2, 3, 999, 65535, 65536, count - 1):
        assert v[i] == plain_random(seed, i), (seed, i, v[i], plain_random(seed, i))
        # f32 values are the f64 ones rounded to nearest
        assert np.float32(plain_random(seed, i)) == np.float32(v[i])
    assert v.min() >= -1 and v.max() < 1 and abs(v.mean()) < 0.02
t = dmd_ref.random_tensor(5, (3, 4), "f32")
assert t.dtype == np.float32 and t.shape == (3, 4)
assert t[2, 1] == np.float32(plain_random(5, 2 * 4 + 1))   # row-major index
s = dmd_ref.random_tensor(9, (), "f64")
assert s.shape == () and s[()] == plain_random(9, 0)
EOF

# --------------------------------------------------------------------------
# inputs

pycase inputs_files_and_seeds <<'EOF'
path = make_job("C[i, j] = A[i, j] * B[j] + D[i, j]", {
    "A": {"shape": [3, 4], "file": "A.npy", "seed": 5},
    "B": {"shape": [4], "file": "B.npy"},                 # index 1: seed 101
    "C": {"shape": [3, 4], "file": "C.npy"},              # output of '=': not written
    "D": {"shape": [3, 4], "init": "random", "seed": 2},  # no file: nothing
    "E": {"shape": [2], "file": "E.npy"},                 # not read: not written
}, dtype="f32")
d = os.path.dirname(path)
rc, _ = run_ref("inputs", path)
assert rc == 0
assert sorted(os.listdir(d)) == ["A.npy", "B.npy", "job.yaml"], os.listdir(d)
a, b = np.load(f"{d}/A.npy"), np.load(f"{d}/B.npy")
assert a.dtype.str == "<f4" and a.shape == (3, 4) and b.shape == (4,)
assert all(a.reshape(-1)[i] == np.float32(plain_random(5, i)) for i in range(12))
assert all(b[i] == np.float32(plain_random(101, i)) for i in range(4))
assert dmd_ref.npy_header(f"{d}/A.npy")[:3] == ((1, 0), (3, 4), False)
EOF

pycase inputs_plus_eq_output <<'EOF'
# With '+=' the output is an input too: 'inputs' writes it (seed 100 + 2).
path = make_job("y[i] += M[i, j] * x[j]", {
    "M": {"shape": [2, 2], "init": "ones"},
    "x": {"shape": [2], "init": "ones"},
    "y": {"shape": [2], "file": "y.npy"}})
rc, _ = run_ref("inputs", path)
y = np.load(os.path.join(os.path.dirname(path), "y.npy"))
assert rc == 0 and y.dtype.str == "<f8"
assert y.tolist() == [plain_random(102, 0), plain_random(102, 1)]
EOF

# --------------------------------------------------------------------------
# Evaluator, hand-computed cases (each also through 'check')

pycase eval_matmul_3x3 <<'EOF'
hand_case("C[m, n] = A[m, k] * B[k, n]", {
    "A": {"shape": [3, 3], "values": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]},
    "B": {"shape": [3, 3], "values": [[1, 0, 2], [0, 1, 0], [3, 0, 1]]},
    "C": {"shape": [3, 3], "file": "C.npy"}},
    "C", [[10, 2, 5], [22, 5, 14], [34, 8, 23]], dtype="f32")
EOF

pycase eval_transposed_product <<'EOF'
# C[m, n] = sum_k A[k, m] B[k, n]
hand_case("C[m, n] = A[k, m] * B[k, n]", {
    "A": {"shape": [2, 2], "values": [[1, 2], [3, 4]]},
    "B": {"shape": [2, 3], "values": [[1, 0, 1], [0, 1, 2]]},
    "C": {"shape": [2, 3], "file": "C.npy"}},
    "C", [[1, 3, 7], [2, 4, 10]])
EOF

pycase eval_stencil_edges_keep_zero <<'EOF'
# i runs over 1..3 only; B[0] and B[4] keep their starting value 0.
hand_case("B[i] = A[i - 1] + A[i] + A[i + 1]", {
    "A": {"shape": [5], "values": [1, 2, 3, 4, 5]},
    "B": {"shape": [5], "file": "B.npy"}},
    "B", [0, 6, 9, 12, 0])
EOF

pycase eval_plus_eq <<'EOF'
# y starts at ones (init, no file): y = 1 + M x
hand_case("y[i] += M[i, j] * x[j]", {
    "M": {"shape": [2, 2], "values": [[1, 2], [3, 4]]},
    "x": {"shape": [2], "values": [1, 1]},
    "y": {"shape": [2], "init": "ones"}},
    "y", [4, 8])
EOF

pycase eval_plus_eq_from_file <<'EOF'
# The output's starting values come from the file 'inputs' wrote; after the
# program overwrote it, 'check' rebuilds them from the seed.
# ('inputs' also fills M.npy, with seed 100.)
path = make_job("y[i] += M[i, j] * x[j]", {
    "M": {"shape": [2, 2], "file": "M.npy"},
    "x": {"shape": [2], "init": "ones"},
    "y": {"shape": [2], "file": "y.npy"}})
assert run_ref("inputs", path)[0] == 0
d = os.path.dirname(path)
m, start = np.load(f"{d}/M.npy"), np.load(f"{d}/y.npy")
assert start[1] == plain_random(102, 1) and m[1, 0] == plain_random(100, 2)
np.save(f"{d}/y.npy", start + m.sum(axis=1))    # what the program writes
rc, text = run_ref("check", path)
assert rc == 0 and text.startswith("ok y"), text
np.save(f"{d}/y.npy", m.sum(axis=1))            # forgot the starting values
assert run_ref("check", path)[0] == 1
EOF

pycase eval_relu_max <<'EOF'
hand_case("B[i] = relu(A[i]) + max(A[i], 0.5)", {
    "A": {"shape": [4], "values": [-2, -0.5, 0.25, 3]},
    "B": {"shape": [4], "file": "B.npy"}},
    "B", [0.5, 0.5, 0.75, 6])
EOF

pycase eval_sqrt_exp_min <<'EOF'
# sqrt(A) + exp(0) - min(A, 1, 2) / 2
hand_case("B[i] = sqrt(A[i]) + exp(A[i] - A[i]) - min(A[i], 1, 2) / 2", {
    "A": {"shape": [3], "values": [0, 1, 4]},
    "B": {"shape": [3], "file": "B.npy"}},
    "B", [1, 1.5, 2.5])
EOF

pycase eval_precedence_unary <<'EOF'
# A + A*2 - ((-A) / 2 * 2) = 4A
hand_case("B[i] = A[i] + A[i] * 2 - -A[i] / 2 * (1 + 1)", {
    "A": {"shape": [2], "values": [2, -4]},
    "B": {"shape": [2], "file": "B.npy"}},
    "B", [8, -16])
EOF

pycase eval_affine_2i_minus_1 <<'EOF'
# 0 <= 2i-1 <= 5 and 0 <= i <= 3: i in {1, 2, 3}
hand_case("B[i] = A[2*i - 1]", {
    "A": {"shape": [6], "values": [10, 11, 12, 13, 14, 15]},
    "B": {"shape": [4], "file": "B.npy"}},
    "B", [0, 11, 13, 15])
EOF

pycase eval_conv_valid <<'EOF'
hand_case("B[h] = A[h + kh] * W[kh]", {
    "A": {"shape": [5], "values": [1, 2, 3, 4, 5]},
    "W": {"shape": [3], "values": [1, 10, 100]},
    "B": {"shape": [3], "file": "B.npy"}},
    "B", [321, 432, 543])
EOF

pycase eval_conv_masked_points <<'EOF'
# B longer than the valid range: only the points (h, kh) with h + kh <= 4 run.
hand_case("B[h] = A[h + kh] * W[kh]", {
    "A": {"shape": [5], "values": [1, 2, 3, 4, 5]},
    "W": {"shape": [3], "values": [1, 10, 100]},
    "B": {"shape": [5], "file": "B.npy"}},
    "B", [321, 432, 543, 54, 5])
# and on the low side: only the points with h - kh >= 0 run.
hand_case("B[h] = A[h - kh] * W[kh]", {
    "A": {"shape": [5], "values": [1, 2, 3, 4, 5]},
    "W": {"shape": [3], "values": [1, 10, 100]},
    "B": {"shape": [5], "file": "B.npy"}},
    "B", [1, 12, 123, 234, 345])
EOF

pycase eval_scalar_output <<'EOF'
hand_case("s = A[i] * A[i]", {
    "A": {"shape": [3], "values": [1, 2, 3]},
    "s": {"shape": [], "file": "s.npy"}},
    "s", 14)
EOF

pycase eval_reduction_sums_whole_rhs <<'EOF'
# k only on the right: summed over, around the whole right-hand side.
hand_case("B[i] = relu(A[i, k])", {
    "A": {"shape": [2, 2], "values": [[1, -2], [-3, 4]]},
    "B": {"shape": [2], "file": "B.npy"}},
    "B", [1, 4])
hand_case("B[i] = A[i, k] + 1", {
    "A": {"shape": [2, 2], "values": [[1, -2], [-3, 4]]},
    "B": {"shape": [2], "file": "B.npy"}},
    "B", [1, 3])
EOF

pycase eval_no_iteration <<'EOF'
hand_case("B[i] = A[i + 5]", {
    "A": {"shape": [3], "values": [1, 2, 3]},
    "B": {"shape": [3], "file": "B.npy"}},
    "B", [0, 0, 0])
EOF

pycase eval_inits <<'EOF'
# ones, no init (zeros), random with a seed, random without one (seed 0)
path = make_job("C[i] = A[i] + B[i] + D[i] * 2 + E[i]", {
    "A": {"shape": [3], "init": "ones"},
    "B": {"shape": [3]},
    "D": {"shape": [3], "init": "random", "seed": 9},
    "E": {"shape": [3], "init": "random"},
    "C": {"shape": [3], "file": "C.npy"}}, dtype="f32")
want = [1 + 2 * float(np.float32(plain_random(9, i)))
        + float(np.float32(plain_random(0, i))) for i in range(3)]
got = expected(path)
assert np.max(np.abs(got - want)) <= 1e-15, (got, want)
EOF

# --------------------------------------------------------------------------
# check: failures, tolerance, usage errors

pycase check_rejects_bad_files <<'EOF'
tensors = {"A": {"shape": [2, 3], "values": [[1, 2, 3], [4, 5, 6]]},
           "B": {"shape": [2, 3], "file": "B.npy"}}
path = make_job("B[i, j] = A[i, j] * 2", tensors, dtype="f32")
out = os.path.join(os.path.dirname(path), "B.npy")
want = np.array([[2, 4, 6], [8, 10, 12]], dtype="<f4")
rc, text = run_ref("check", path)
assert rc == 1 and "not found" in text                        # missing
np.save(out, want.reshape(3, 2))
rc, text = run_ref("check", path)
assert rc == 1 and "shape" in text                            # shape
np.save(out, want.astype("<f8"))
rc, text = run_ref("check", path)
assert rc == 1 and "dtype" in text                            # dtype
np.save(out, np.asfortranarray(want))
rc, text = run_ref("check", path)
assert rc == 1 and "Fortran" in text                          # order
np.save(out, want.astype(">f4"))
rc, text = run_ref("check", path)
assert rc == 1 and "dtype" in text                            # byte order
bad = want.copy()
bad[1, 2] = np.nan
np.save(out, bad)
rc, text = run_ref("check", path)
assert rc == 1 and "at index (1, 2)" in text                  # NaN
np.save(out, want)
assert run_ref("check", path)[0] == 0
EOF

pycase check_tolerance <<'EOF'
n = 50
a = np.linspace(-1, 1, n)
path = make_job("B[i] = A[i]", {"A": {"shape": [n], "values": a},
                                "B": {"shape": [n], "file": "B.npy"}}, dtype="f32")
out = os.path.join(os.path.dirname(path), "B.npy")
want = a.astype("<f4")
near = want.copy(); near[7] += np.float32(3e-6)        # rel 3e-6 < 1e-4
far = want.copy(); far[7] += np.float32(3e-3)          # rel 3e-3 > 1e-4
np.save(out, near)
rc, text = run_ref("check", path)
assert rc == 0 and "(f32, tol 1e-04)" in text, text
rc, text = run_ref("check", path, "--rtol", "1e-7")
assert rc == 1 and "at index (7,)" in text, text
np.save(out, far)
rc, text = run_ref("check", path)
assert rc == 1 and text.startswith("FAIL B: max rel err 3.0e-03") and "at index (7,)" in text
# f64: tolerance 1e-9
path = make_job("B[i] = A[i]", {"A": {"shape": [n], "values": a},
                                "B": {"shape": [n], "file": "B.npy"}}, dtype="f64")
out = os.path.join(os.path.dirname(path), "B.npy")
b = a.copy(); b[3] += 1e-11
np.save(out, b)
assert run_ref("check", path)[0] == 0
b[3] += 1e-7
np.save(out, b)
assert run_ref("check", path)[0] == 1
EOF

pycase usage_errors_exit_2 <<'EOF'
good = {"A": {"shape": [3], "init": "ones"}, "B": {"shape": [3], "file": "B.npy"}}
assert run_ref()[0] == 2
assert run_ref("frobnicate", "x.yaml")[0] == 2
assert run_ref("check", os.path.join(TMP, "no-such-job.yaml"))[0] == 2
assert run_ref("check", make_job("B[i] = Z[i]", good))[0] == 2        # undeclared
assert run_ref("check", make_job("B[i] = A[i, i]", good))[0] == 2     # rank
assert run_ref("check", make_job("B[i] = A[i] *", good))[0] == 2      # syntax
assert run_ref("check", make_job("B[i] = exp(A[i], 1)", good))[0] == 2  # arity
assert run_ref("check", make_job("B[i] = foo(A[i])", good))[0] == 2   # function
assert run_ref("check", make_job("B[i] = A[i * i]", good))[0] == 2    # not affine
assert run_ref("check", make_job("B[0] = A[i + j]", good))[0] == 2    # unbounded
assert run_ref("check", make_job("B[i] = A[i]", {                     # no output file
    "A": {"shape": [3], "init": "ones"}, "B": {"shape": [3]}}))[0] == 2
assert run_ref("check", make_job("B[i] = A[i]", {                     # input file missing
    "A": {"shape": [3], "file": "A.npy"}, "B": {"shape": [3], "file": "B.npy"}}))[0] == 2
EOF

# --------------------------------------------------------------------------
# The e2e jobs: their inputs and expected outputs, against numpy

pycase e2e_jobs_vs_numpy <<'EOF'
import glob, shutil, yaml
jobs = sorted(glob.glob(os.path.join(JOBS, "*.yaml")))
assert jobs, "no e2e jobs"
for src in jobs:
    d = tempfile.mkdtemp(dir=TMP)
    path = shutil.copy(src, d)
    assert run_ref("inputs", path)[0] == 0, src
    job = dmd_ref.Job(path)
    got = dmd_ref.expected_output(job)
    doc = yaml.safe_load(open(path))
    vals = {name: dmd_ref.starting_values(job, t, True).astype(np.float64)
            for name, t in job.tensors.items() if name in job.stmt.rhs_tensors()}
    stmt = doc["compute"].replace(" ", "")
    if stmt in ("C[m,n]=A[m,k]*B[k,n]", "C[m,n]=A[k,m]*B[k,n]",
                "Y[m,n]=X[m,k]*W[k,n]"):
        lhs, rhs = stmt.split("=")
        subs = [s.split("[")[1].rstrip("]").replace(",", "") for s in rhs.split("*")]
        names = [s.split("[")[0] for s in rhs.split("*")]
        want = np.einsum(f"{subs[0]},{subs[1]}->mn", vals[names[0]], vals[names[1]])
    elif stmt == "B[i]=A[i-1]+A[i]+A[i+1]":
        a = vals["A"]; want = np.zeros_like(a)
        want[1:-1] = a[:-2] + a[1:-1] + a[2:]
    elif stmt == "B[i,j]=A[i-1,j]+A[i+1,j]+A[i,j-1]+A[i,j+1]+A[i,j]":
        a = vals["A"]; want = np.zeros_like(a)
        want[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]
                            + a[1:-1, 2:] + a[1:-1, 1:-1])
    elif stmt == "C[i]=A[i]*B[i]":
        want = vals["A"] * vals["B"]
    elif stmt == "s=a[i]*b[i]":
        want = np.array(np.dot(vals["a"], vals["b"]))
    elif stmt == "w[i]=A[i,j]*v[j]":
        want = vals["A"] @ vals["v"]
    elif stmt == "O[h]=I[h+kh]*W[kh]":
        i, w = vals["I"], vals["W"]
        want = np.array([np.dot(i[h:h + len(w)], w)
                         for h in range(len(i) - len(w) + 1)])
    elif stmt == "C[m,n]+=A[m,k]*B[n,k]":
        c0 = dmd_ref.starting_values(job, job.tensors["C"], True)
        want = c0.astype(np.float64) + vals["A"] @ vals["B"].T
    elif stmt == ("C[i,j]=relu(A[i,j]-2*B[i,j])+max(A[i,j],0.25)/"
                  "(1+exp(B[i,j]))"):
        a, b = vals["A"], vals["B"]
        want = np.maximum(a - 2 * b, 0) + np.maximum(a, 0.25) / (1 + np.exp(b))
    elif stmt == "B[i]+=0.5*(A[i-2]+A[i+1])":
        a = vals["A"]
        want = dmd_ref.starting_values(job, job.tensors["B"], True).astype(
            np.float64)
        want[2:-1] += 0.5 * (a[:-3] + a[3:])
    else:
        raise AssertionError(f"{src}: no numpy counterpart for {stmt}")
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    print(os.path.basename(src), got.shape, f"{err:.1e}")
    assert got.shape == want.shape and err < 1e-13, src
EOF

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
