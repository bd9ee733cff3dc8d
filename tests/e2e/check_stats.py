#!/usr/bin/python3
"""Check the --stats line of a `distmpmd run` (spec 2 and 1.5).

    check_stats.py JOB.yaml STDOUT_FILE [--name NAME] [--expected FILE]

Exactly one line of STDOUT_FILE must be a JSON object; it must have the keys
ranks, classes, time_s, gflops, bytes_moved_total, bytes_recv_max and
messages, with ranks equal to the job's mesh size.

Programs (spec 1.5): the object must also have "steps", a list with one
object per step of the program text (a step inside a 'repeat' once, its
numbers summed over the repetitions), each with time_s, bytes_moved_total
and messages; the steps' bytes_moved_total must add up to the whole run's,
and so must their messages. A 'compute' job (v1) may give "steps"; if it
does, it has one entry, checked the same way.

gflops: null unless some step is a matrix product (C[m, n] (+)= A[., .] *
B[., .] with one summed index); then it must be the flops of all matrix-
product steps (2*M*N*K each, times the repetitions of the step) / time_s /
1e9, within 10% (not checked when time_s < 1e-4: too rounded).

Expectations (FILE, see tests/e2e/expected_bytes.txt):
    NAME    BYTES MESSAGES      the whole run
    NAME@K  BYTES MESSAGES      step K (1-based) of the "steps" array
'*' for a field leaves it unchecked. Prints "classes=..., bytes=...,
messages=..." (and the steps' bytes) and exits 0, or prints the reason and
exits 1.
"""

import argparse
import json
import math
import re
import sys

import yaml

KEYS = ("ranks", "classes", "time_s", "gflops", "bytes_moved_total",
        "bytes_recv_max", "messages")
STEP_KEYS = ("time_s", "bytes_moved_total", "messages")

# C[m, n] = A[m, k] * B[k, n] and its transposed variants: two 2-d operands.
ACCESS = r"\s*(\w+)\s*\[\s*(\w+)\s*,\s*(\w+)\s*\]\s*"
PRODUCT = re.compile(f"^{ACCESS}\\+?=\\s*{ACCESS}\\*{ACCESS}$")


def read_expected(path, name):
    """{None: (bytes, messages), K: (bytes, messages)}; '*' -> None."""
    out = {}
    with open(path) as f:
        for line in f:
            fields = line.split("#")[0].split()
            if not fields:
                continue
            key = fields[0]
            base, _, step = key.partition("@")
            if base != name:
                continue
            vals = tuple(None if v == "*" else int(v) for v in fields[1:3])
            out[int(step) if step else None] = vals
    return out


def program_steps(job):
    """[(statement, runs)] in program text order (a 'compute' job: one)."""
    if "program" not in job:
        return [(job["compute"], 1)]
    out = []

    def walk(nodes, runs):
        for node in nodes:
            if "repeat" in node:
                walk(node["steps"], runs * node["repeat"])
            else:
                out.append((node["compute"], runs))
    walk(job["program"], 1)
    return out


def matmul_flops(job, stmt):
    """2*M*N*K if the statement is a matrix product, else None."""
    m = PRODUCT.match(stmt)
    if not m:
        return None
    out, o1, o2, a, a1, a2, b, b1, b2 = m.groups()
    summed = ({a1, a2} & {b1, b2}) - {o1, o2}
    if len(summed) != 1 or {o1, o2} != ({a1, a2} | {b1, b2}) - summed:
        return None
    if any(v.isdigit() for v in (o1, o2, a1, a2, b1, b2)):
        return None
    extent = {}
    for name, idx in ((out, (o1, o2)), (a, (a1, a2)), (b, (b1, b2))):
        for var, e in zip(idx, job["tensors"][name]["shape"]):
            extent[var] = min(e, extent.get(var, e))
    return 2 * extent[o1] * extent[o2] * extent[summed.pop()]


def job_flops(job):
    """Flops of all matrix-product steps, or None if there are none."""
    flops = None
    for stmt, runs in program_steps(job):
        f = matmul_flops(job, stmt)
        if f is not None:
            flops = (flops or 0) + f * runs
    return flops


def fmt(v):
    return "*" if v is None else str(v)


def is_count(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_steps(job, s):
    """Reason the "steps" array is wrong, or None."""
    want = len(program_steps(job))
    if "steps" not in s:
        if "program" in job:
            return "stats line lacks steps (a program)"
        return None
    steps = s["steps"]
    if not isinstance(steps, list) or len(steps) != want:
        n = len(steps) if isinstance(steps, list) else repr(steps)
        return f"steps has {n} entries, want {want} (one per step of the program text)"
    for k, st in enumerate(steps, 1):
        if not isinstance(st, dict):
            return f"steps[{k}] is not an object"
        missing = [key for key in STEP_KEYS if key not in st]
        if missing:
            return f"steps[{k}] lacks {', '.join(missing)}"
        for key in ("bytes_moved_total", "messages"):
            if not is_count(st[key]):
                return f"steps[{k}].{key} = {st[key]!r} is not a count"
        if not is_number(st["time_s"]) or st["time_s"] < 0:
            return f"steps[{k}].time_s = {st['time_s']!r}"
    for key in ("bytes_moved_total", "messages"):
        total = sum(int(st[key]) for st in steps)
        if total != s[key]:
            return f"the steps' {key} add up to {total}, not {s[key]}"
    return None


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
    reason = check_steps(job, s)
    if reason:
        return reason, None
    flops = job_flops(job)
    if flops is None:
        if s["gflops"] is not None:
            return f"gflops = {s['gflops']!r}, want null (no matrix product)", None
    elif not is_number(s["gflops"]):
        return f"gflops = {s['gflops']!r}, want a number (matrix product)", None
    elif s["time_s"] >= 1e-4:      # below, the printed time_s may be too rounded
        want = flops / s["time_s"] / 1e9
        if abs(s["gflops"] - want) > 0.1 * want:
            return (f"gflops = {s['gflops']!r}, want flops/time_s/1e9 = "
                    f"{want:.4g} ({flops} flops)"), None
    summary = (f"classes={s['classes']}, bytes={s['bytes_moved_total']}, "
               f"messages={s['messages']}")
    if "steps" in s and len(s["steps"]) > 1:
        summary += ", steps=" + "/".join(
            f"{int(st['bytes_moved_total'])}:{int(st['messages'])}"
            for st in s["steps"])
    if name and expected_file:
        for step, want in sorted(read_expected(expected_file, name).items(),
                                 key=lambda kv: kv[0] or 0):
            if step is None:
                got, where = s, ""
            elif "steps" not in s or not 1 <= step <= len(s["steps"]):
                return (f"tests/e2e/expected_bytes.txt has {name}@{step}, "
                        f"the stats have no step {step}"), None
            else:
                got, where = s["steps"][step - 1], f" of step {step}"
            have = (got["bytes_moved_total"], got["messages"])
            if any(w is not None and w != h for w, h in zip(want, have)):
                return (f"bytes_moved_total, messages{where} = {have[0]}, "
                        f"{have[1]}, want {fmt(want[0])}, {fmt(want[1])} "
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
