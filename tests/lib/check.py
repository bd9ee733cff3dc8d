#!/usr/bin/python3
"""Check what tests/lib/driver.c dumped for a library against the
sequential reference tests/ref/dmd_ref.py (which shares no code with the
compiler).

    check.py JOB.yaml DUMPDIR RUNS

For each run k < RUNS: the blocks every rank passed in (NAME.tT.runK.in.rR.
bin) are put together into the tensors' values (every element of every
tensor with a file must be in some rank's block, and ranks holding the
same element must agree), the reference runs the job from them (inputs
with a file take these values, 'init' tensors their init, the rest zeros),
then every rank's block after the run (NAME.tT.runK.out.rR.bin) must hold
the reference's values: an output's the expected ones (rtol 1e-9 for f64,
1e-4 for f32), an input's that the program only reads the values passed
in.  Prints one line per run and exits 1 on the first mismatch.
"""
import glob
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ref"))
import dmd_ref  # noqa: E402


def read_block(path, dtype):
    with open(path, "rb") as f:
        data = f.read()
    nd = int(np.frombuffer(data[:8], "<i8")[0])
    head = np.frombuffer(data[8:8 + 16 * nd], "<i8")
    off, ext = [int(v) for v in head[:nd]], [int(v) for v in head[nd:]]
    vals = np.frombuffer(data[8 + 16 * nd:], dtype).astype(np.float64)
    if vals.size != int(np.prod(ext)):
        raise SystemExit(f"FAIL {path}: {vals.size} values for a block "
                         f"of {ext}")
    return off, ext, vals.reshape(ext)


def blocks(dumpdir, name, t, run, phase, dtype):
    """{rank: (off, ext, values)} of library tensor t."""
    res = {}
    for p in glob.glob(os.path.join(dumpdir, f"{name}.t{t}.run{run}."
                                              f"{phase}.r*.bin")):
        rank = int(re.search(r"\.r(\d+)\.bin$", p).group(1))
        res[rank] = read_block(p, dtype)
    return res


def window(off, ext):
    return tuple(slice(o, o + e) for o, e in zip(off, ext))


def main():
    path, dumpdir, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    job = dmd_ref.Job(path)
    name = job.doc["name"]
    files = [n for n, t in job.tensors.items() if t.file]
    dtype = dmd_ref.DTYPES[job.dtype]
    rtol = dmd_ref.DEFAULT_RTOL[job.dtype]
    for run in range(runs):
        state = {}
        for n, t in job.tensors.items():
            state[n] = np.array(dmd_ref.starting_values(job, t, False),
                                dtype=np.float64)
        for i, n in enumerate(files):
            shape = tuple(job.tensors[n].shape)
            full = np.full(shape, np.nan)
            seen = np.zeros(shape, dtype=bool)
            for rank, (off, ext, v) in sorted(
                    blocks(dumpdir, name, i, run, "in", dtype).items()):
                w = window(off, ext)
                both = seen[w]
                if np.any(both & (full[w] != v)):
                    raise SystemExit(f"FAIL {name} run {run}: tensor {n}: "
                                     f"rank {rank} passed other values")
                full[w] = v
                seen[w] = True
            if not seen.all():
                raise SystemExit(f"FAIL {name} run {run}: tensor {n}: "
                                 f"{int((~seen).sum())} elements in no "
                                 f"rank's block")
            if n in job.inputs:
                state[n] = full
        passed = {n: state[n] for n in files}
        after = dmd_ref.run_program(job, state=state)
        checked = 0
        for i, n in enumerate(files):
            want = after[n] if n in job.outputs else passed[n]
            seen = np.zeros(want.shape, dtype=bool)
            for rank, (off, ext, v) in sorted(
                    blocks(dumpdir, name, i, run, "out", dtype).items()):
                w = window(off, ext)
                if not np.allclose(v, want[w], rtol=rtol, atol=rtol,
                                   equal_nan=True):
                    bad = np.argwhere(~np.isclose(v, want[w], rtol=rtol,
                                                  atol=rtol))
                    j = tuple(int(a) for a in bad[0])
                    g = tuple(o + a for o, a in zip(off, j))
                    raise SystemExit(
                        f"FAIL {name} run {run}: tensor {n} "
                        f"({'output' if n in job.outputs else 'input'}) on "
                        f"rank {rank}: element {g} is {v[j]!r}, the "
                        f"reference says {want[w][j]!r}")
                seen[w] = True
                checked += v.size
            if not seen.all():
                raise SystemExit(f"FAIL {name} run {run}: tensor {n}: "
                                 f"elements in no rank's block after the "
                                 f"run")
        print(f"ok {name} run {run}: {checked} values of "
              f"{', '.join(files)} match the reference")


if __name__ == "__main__":
    main()
