#!/usr/bin/python3
"""Compare `distmpmd plan JOB --json` with the --stats line of a run.

    check_plan.py PLAN_JSON STDOUT_FILE

The plan's bytes_moved_total, bytes_recv_max and messages must equal the
run's exactly (spec 1.6: the byte model is exact), and so must each
step's bytes_moved_total and messages (the run's "steps" array, a step in
a 'repeat' summed over its runs; the plan's figures count every run).
Prints "plan=stats" and exits 0, or the differences and exits 1.
"""
import json
import sys

KEYS = ("bytes_moved_total", "bytes_recv_max", "messages")


def main():
    if len(sys.argv) != 3:
        print("usage: check_plan.py PLAN_JSON STDOUT_FILE")
        return 2
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    stats = None
    with open(sys.argv[2]) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                stats = json.loads(line)
    if stats is None:
        print("no stats line")
        return 1
    bad = []
    for k in KEYS:
        if plan.get(k) != stats.get(k):
            bad.append("%s: plan %s, run %s" % (k, plan.get(k),
                                                 stats.get(k)))
    ps, ss = plan.get("steps", []), stats.get("steps")
    if ss is not None:
        if len(ps) != len(ss):
            bad.append("steps: plan %d, run %d" % (len(ps), len(ss)))
        else:
            for i, (p, s) in enumerate(zip(ps, ss)):
                for k in ("bytes_moved_total", "messages"):
                    if p.get(k) != s.get(k):
                        bad.append("step %d %s: plan %s, run %s" % (
                            i + 1, k, p.get(k), s.get(k)))
    if bad:
        print("plan differs from the run: " + "; ".join(bad))
        return 1
    print("plan=stats")
    return 0


if __name__ == "__main__":
    sys.exit(main())
