#!/usr/bin/python3
"""The limits of the job reader (ir/dmd_job.h): a job at each limit is
read, and quickly; one just beyond it is refused with its exact message.

    python3 tests/unit/parse_limits.py

Each job is generated into a temporary directory and read with
tests/unit/parse_check.sh (the reader alone, built without optimisation).
A read must take less than MAX_SECONDS of CPU time (user + system, so
that a busy machine does not make it fail): within the limits nothing in
the reader grows faster than the file (at the limits it takes at most
about 0.5 s; anything quadratic would take minutes).  The last line is
"N passed, M failed".  Files that are not regular (a FIFO, a directory,
/dev/zero) are refused without reading them.
"""
import os
import resource
import subprocess
import sys
import tempfile

MAX_SECONDS = 3.0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tests", "unit", "parse_check.sh")

MIB = 1 << 20
HEAD = "name: lim\nmesh: {axes: [x, y], shape: [2, 2]}\n"
AB = ("tensors:\n  A: {shape: [8], dist: [x], init: ones}\n"
      "  B: {shape: [8], dist: [x]}\n")


def name64(prefix, i):
    """A 64-character name that differs from the others at its end."""
    return prefix + "q" * (58 - len(prefix)) + "%06d" % i


def tensors(n):
    lines = [HEAD + "tensors:"]
    for i in range(n):
        lines.append("  %s: {shape: [4, 4], dist: [x, y], init: random, "
                     "seed: %d}" % (name64("T", i), i))
    lines.append("compute: %s[%s, %s] = %s[%s, %s]" % (
        name64("T", 1), name64("i", 0), name64("j", 0),
        name64("T", 0), name64("i", 0), name64("j", 0)))
    return "\n".join(lines) + "\n"


def steps(n):
    return (HEAD + AB + "program:\n" +
            "".join("  - compute: B[i] = A[i] + %d\n" % k for k in range(n)))


def commands(n):
    return (HEAD + "tensors:\n  A: {shape: [8, 8], dist: [x, y], init: ones}\n"
            "  B: {shape: [8, 8], dist: [x, y]}\n"
            "compute: B[i, j] = A[i, j]\nschedule:\n" +
            "".join("  - reorder(%s)\n" % ("i, j" if k % 2 else "j, i")
                    for k in range(n)))


def padded(size):
    """A valid job of exactly "size" bytes (a comment fills it up)."""
    job = HEAD + AB + "compute: B[i] = A[i]\n"
    return job + "#" + "x" * (size - len(job) - 2) + "\n"


def nested(depth):
    """A top-level mapping (depth 1) with collections nested "depth" deep
    under an unknown key, which the reader reports only if the walk of the
    events accepted the nesting."""
    return HEAD + "x: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"


def anchors(n):
    return HEAD + "x: [" + ", ".join("&a%d %d" % (k, k) for k in range(n)) + "]\n"


def expanded(n_alias):
    """A program whose steps are aliases of one step with a compute of
    about 1000 characters: the reader parses it once per alias."""
    stmt = "B[i] = A[i]" + " + A[i]" * 140
    return (HEAD + AB + "program:\n  - &s {compute: '%s'}\n" % stmt +
            "".join("  - *s\n" for _ in range(n_alias)))


def flat(size):
    """A flow sequence of one-letter scalars filling "size" bytes: the
    heaviest kind of file without aliases (a node per two bytes) is far
    from the limit of the weight with aliases expanded."""
    job = HEAD + "x: ["
    n = (size - len(job) - 2) // 2
    return job + "a," * n + "a" * (size - len(job) - 2 - 2 * n) + "]\n"


def long_compute():
    """A compute line of 100,000 characters within the limits: a number
    with a long fraction."""
    return (HEAD + AB + "compute: B[i] = A[i] * 1." + "0" * 99950 + "1\n")


def big_expression():
    """A statement of almost DMD_EXPR_MAX_NODES (4096) nodes."""
    return HEAD + AB + "compute: B[i] = A[i]" + " + A[i]" * 1364 + "\n"


# (name, text, expected stderr with PATH for the job's path, or None if
# the job must be read).
CASES = [
    ("size_at_limit", padded(MIB), None),
    ("size_over_limit", padded(MIB + 1),
     "PATH: error: the job file is 1048577 bytes; at most 1048576 are accepted\n"),
    ("depth_at_limit", nested(64),
     "PATH:3:1: error: unknown key 'x' at top level\n"),
    ("depth_over_limit", nested(65),
     "PATH:3:67: error: YAML collections are nested more than 64 deep\n"),
    ("tensors_at_limit", tensors(4096), None),
    ("tensors_over_limit", tensors(4097),
     "PATH:4100:3: error: more than 4096 tensors are declared\n"),
    ("steps_at_limit", steps(4096), None),
    ("steps_over_limit", steps(4097),
     "PATH:4103:5: error: the program has more than 4096 steps\n"),
    ("commands_at_limit", commands(4096), None),
    ("commands_over_limit", commands(4097),
     "PATH:4104:5: error: more than 4096 schedule commands in the job\n"),
    ("anchors_at_limit", anchors(256),
     "PATH:3:1: error: unknown key 'x' at top level\n"),
    ("anchors_over_limit", anchors(257),
     "PATH:3:2601: error: more than 256 anchors in the job file\n"),
    ("aliases_within_limit", expanded(1800), None),
    ("aliases_over_limit", expanded(2500),
     "PATH:2101:5: error: the job is too large with its aliases expanded "
     "(more than 2097152 nodes and bytes of scalars)\n"),
    ("flat_at_size_limit", flat(MIB),
     "PATH:3:1: error: unknown key 'x' at top level\n"),
    ("long_compute", long_compute(), None),
    ("big_expression", big_expression(), None),
]


def cpu_children():
    """The CPU time (user + system) of the finished children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        # Build parse_test once, outside the timings.
        subprocess.run(["bash", CHECK, "/dev/null"], capture_output=True)
        for name, text, expect in CASES:
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(text)
            start = cpu_children()
            r = subprocess.run(["bash", CHECK, path], capture_output=True,
                               text=True)
            took = cpu_children() - start
            why = None
            if expect is None and (r.returncode != 0 or r.stderr):
                why = "not read (exit %d): %s" % (r.returncode, r.stderr.strip())
            elif expect is not None:
                want = expect.replace("PATH", path)
                if r.returncode != 2 or r.stderr != want:
                    why = "exit %d, stderr %r, expected %r" % (
                        r.returncode, r.stderr, want)
            if why is None and took > MAX_SECONDS:
                why = "took %.2f s of CPU (at most %.1f)" % (took, MAX_SECONDS)
            if why:
                print("FAIL %s: %s" % (name, why))
                failed += 1
            else:
                print("ok %s (%d bytes, %.2f s of CPU)" % (
                    name, len(text.encode()), took))
                passed += 1
        # Not regular files: a FIFO without writer (opening it for
        # reading would block), a directory, a device.
        fifo = os.path.join(tmp, "fifo.yaml")
        os.mkfifo(fifo)
        for path in (fifo, tmp, "/dev/zero"):
            try:
                r = subprocess.run(["bash", CHECK, path], capture_output=True,
                                   text=True, timeout=20)
                want = "%s: error: not a regular file\n" % path
                ok = r.returncode == 2 and r.stderr == want
                why = "exit %d, stderr %r" % (r.returncode, r.stderr)
            except subprocess.TimeoutExpired:
                ok, why = False, "blocked"
            if ok:
                print("ok not a regular file: %s" % path)
                passed += 1
            else:
                print("FAIL not a regular file: %s: %s" % (path, why))
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
