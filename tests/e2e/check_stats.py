#!/usr/bin/python3
"""Check the --stats line of a `distmpmd run` (spec 2).

    check_stats.py JOB.yaml STDOUT_FILE [--name NAME] [--expected FILE]

Exactly one line of STDOUT_FILE must be a JSON object; it must have the keys
ranks, classes, time_s, gflops, bytes_moved_total, bytes_recv_max and
messages, with ranks equal to the job's mesh size. gflops must be
2*M*N*K / time_s / 1e9 (within 10%) for a matrix product and null otherwise. When NAME is
listed in FILE (lines "NAME BYTES_MOVED_TOTAL MESSAGES"), both numbers must
match. Prints "classes=..., bytes=..., messages=..." and exits 0, or prints
the reason and exits 1.
"""

import argparse
import json
import math
import re
import sys

import yaml

KEYS = ("ranks", "classes", "time_s", "gflops", "bytes_moved_total",
        "bytes_recv_max", "messages")

# C[m, n] = A[m, k] * B[k, n] and its transposed variants: two 2-d operands.
ACCESS = r"\s*(\w+)\s*\[\s*(\w+)\s*,\s*(\w+)\s*\]\s*"
PRODUCT = re.compile(f"^{ACCESS}\\+?=\\s*{ACCESS}\\*{ACCESS}$")


def read_expected(path, name):
    with open(path) as f:
        for line in f:
            fields = line.split("#")[0].split()
            if fields and fields[0] == name:
                return int(fields[1]), int(fields[2])
    return None


def matmul_flops(job):
    """2*M*N*K if the statement is a matrix product, else None."""
    m = PRODUCT.match(job["compute"])
    if not m:
        return None
    out, o1, o2, a, a1, a2, b, b1, b2 = m.groups()
    summed = ({a1, a2} & {b1, b2}) - {o1, o2}
    if len(summed) != 1 or {o1, o2} != ({a1, a2} | {b1, b2}) - summed:
        return None
    extent = {}
    for name, idx in ((out, (o1, o2)), (a, (a1, a2)), (b, (b1, b2))):
        for var, e in zip(idx, job["tensors"][name]["shape"]):
            extent[var] = e
    return 2 * extent[o1] * extent[o2] * extent[summed.pop()]


def is_count(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check(job, lines, name, expected_file):
    objects = []
    for line in lines:
        try:
            v = json.loads(line)
        except ValueError:
            continue
        if isinstance(v, dict):
            objects.append(v)
    if len(objects) != 1:
        return f"{len(objects)} JSON object lines on stdout, want exactly 1", None
    s = objects[0]
    missing = [k for k in KEYS if k not in s]
    if missing:
        return f"stats line lacks {', '.join(missing)}", None
    nranks = math.prod(job["mesh"]["shape"])
    if s["ranks"] != nranks:
        return f"ranks = {s['ranks']!r}, want {nranks}", None
    for k in ("classes", "bytes_moved_total", "bytes_recv_max", "messages"):
        if not is_count(s[k]):
            return f"{k} = {s[k]!r} is not a count", None
    if not 1 <= s["classes"] <= nranks:
        return f"classes = {s['classes']} not in [1, {nranks}]", None
    if not is_number(s["time_s"]) or s["time_s"] < 0:
        return f"time_s = {s['time_s']!r}", None
    if s["bytes_recv_max"] > s["bytes_moved_total"]:
        return "bytes_recv_max > bytes_moved_total", None
    if s["bytes_moved_total"] > 0 and s["bytes_recv_max"] * nranks < s["bytes_moved_total"]:
        return "bytes_recv_max * ranks < bytes_moved_total", None
    flops = matmul_flops(job)
    if flops is None:
        if s["gflops"] is not None:
            return f"gflops = {s['gflops']!r}, want null (not a matrix product)", None
    elif not is_number(s["gflops"]):
        return f"gflops = {s['gflops']!r}, want a number (matrix product)", None
    elif s["time_s"] >= 1e-4:      # below, the printed time_s may be too rounded
        want = flops / s["time_s"] / 1e9
        if abs(s["gflops"] - want) > 0.1 * want:
            return (f"gflops = {s['gflops']!r}, want 2*M*N*K/time_s/1e9 = "
                    f"{want:.4g}"), None
    summary = (f"classes={s['classes']}, bytes={s['bytes_moved_total']}, "
               f"messages={s['messages']}")
    if name and expected_file:
        want = read_expected(expected_file, name)
        if want and (s["bytes_moved_total"], s["messages"]) != want:
            return (f"bytes_moved_total, messages = {s['bytes_moved_total']}, "
                    f"{s['messages']}, want {want[0]}, {want[1]} "
                    f"(tests/e2e/expected_bytes.txt)"), None
    return None, summary


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("job")
    p.add_argument("stdout")
    p.add_argument("--name")
    p.add_argument("--expected")
    args = p.parse_args()
    with open(args.job) as f:
        job = yaml.safe_load(f)
    with open(args.stdout, errors="replace") as f:
        lines = f.read().splitlines()
    reason, summary = check(job, lines, args.name, args.expected)
    if reason:
        print(reason)
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
