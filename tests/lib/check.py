#!/usr/bin/python3
"""Check what tests/lib/driver.c dumped for a library against the
sequential reference tests/ref/dmd_ref.py (which shares no code with the
compiler).

    check.py JOB.yaml DUMPDIR RUNS
    check.py JOB.yaml --cyclic

For each run k < RUNS: every rank's block (NAME_block's offsets and
extents, in the dumps) must be the one the reference's layout gives it
(spec 2, "Library mode": per dimension the global index of its first
element and the number of elements; a rank holding none dumps nothing),
and a block's values are at the global indices that layout lists for the
rank (a cyclic dimension: its blocks one after another).  The blocks every
rank passed in (NAME.tT.runK.in.rR.bin) are put together into the tensors'
values (every element of every tensor with a file must be in some rank's
block, and ranks holding the same element must agree), the reference runs
the job from them (inputs with a file take these values, 'init' tensors
their init, the rest zeros), then every rank's block after the run
(NAME.tT.runK.out.rR.bin) must hold the reference's values: an output's
the expected ones (rtol 1e-9 for f64, 1e-4 for f32), an input's that the
program only reads the values passed in.  Prints one line per run and
exits 1 on the first mismatch.

--cyclic prints what driver.c needs to map a rank's local indices to
global ones (its macro CYC): "{T, D, S, H}," per cyclic dimension D of
library tensor T (block size S, H holders; local index l of holder h,
whose offset is h S, is element ((l // S) H + h) S + l % S), from the
reference's layout (so 'axe' layouts too).  A dimension whose holders
each hold one range is a plain one there (offset + l).
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


def spec_block(lay, rank):
    """(offsets, extents) that NAME_block must give "rank" (the reference's
    layout: per dimension the first of the global indices it holds and
    their number), or None where it holds no element."""
    box = lay.box(rank)
    if box is None or any(len(x) == 0 for x in box):
        return None
    return [int(x[0]) for x in box], [len(x) for x in box]


def cyclic_dims(job, files):
    """[(t, d, S, H)] of the dimensions of library tensors whose holders'
    elements are not ranges (see --cyclic)."""
    res = []
    for t, n in enumerate(files):
        lay = dmd_ref.Layout(job, job.tensors[n])
        for d, holders in enumerate(lay.ranges):
            if all(len(x) == 0 or np.all(np.diff(x) == 1)
                   for x in holders):
                continue
            first = holders[0]
            size = int(np.argmax(np.diff(first) != 1)) + 1
            want = dmd_ref.cyclic_indices(job.tensors[n].shape[d],
                                          len(holders), size)
            if len(want) != len(holders) or not all(
                    np.array_equal(a, b) for a, b in zip(want, holders)):
                raise SystemExit(f"FAIL tensor {n}: dimension {d} is "
                                 f"neither ranges nor block-cyclic")
            res.append((t, d, size, len(holders)))
    return res


def check_blocks(name, n, lay, found, nranks, run, phase):
    """Every rank's block of tensor n in "found" ({rank: (off, ext, v)})
    is the spec's, and every rank that holds some of n has one."""
    for rank in range(nranks):
        want = spec_block(lay, rank)
        got = found.get(rank)
        if got is None and want is None:
            continue
        if got is None or want is None or (got[0], got[1]) != want:
            raise SystemExit(
                f"FAIL {name} run {run}: tensor {n} ({phase}): rank "
                f"{rank}'s block is "
                f"{'none' if got is None else (got[0], got[1])}, the "
                f"spec's {'none' if want is None else want}")


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--cyclic":
        job = dmd_ref.Job(sys.argv[1])
        files = [n for n, t in job.tensors.items() if t.file]
        print(" ".join("{%d, %d, %d, %d}," % c
                       for c in cyclic_dims(job, files)))
        return
    path, dumpdir, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    job = dmd_ref.Job(path)
    name = job.doc["name"]
    files = [n for n, t in job.tensors.items() if t.file]
    lays = {n: dmd_ref.Layout(job, job.tensors[n]) for n in files}
    nranks = len(lays[files[0]].coords) if files else 0
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
            found = blocks(dumpdir, name, i, run, "in", dtype)
            check_blocks(name, n, lays[n], found, nranks, run, "in")
            for rank, (_, _, v) in sorted(found.items()):
                w = np.ix_(*lays[n].box(rank))
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
            found = blocks(dumpdir, name, i, run, "out", dtype)
            check_blocks(name, n, lays[n], found, nranks, run, "out")
            for rank, (_, _, v) in sorted(found.items()):
                box = lays[n].box(rank)
                w = np.ix_(*box)
                if not np.allclose(v, want[w], rtol=rtol, atol=rtol,
                                   equal_nan=True):
                    bad = np.argwhere(~np.isclose(v, want[w], rtol=rtol,
                                                  atol=rtol))
                    j = tuple(int(a) for a in bad[0])
                    g = tuple(int(x[a]) for x, a in zip(box, j))
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
