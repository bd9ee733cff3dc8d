#!/usr/bin/python3
"""Mutation testing: plant one plausible bug at a time, see that a check
catches it.

    mutate.py [--list] [--all-checks] [--keep] [--no-baseline] [--file F]
              [NAME...]
    make mutate                       every mutant of tests/mutate/mutants.txt
    MUTANTS=name1,name2 make mutate   some of them

Each mutant of tests/mutate/mutants.txt (its format is described at the
top of that file) names a source file, an anchor (a few lines of code
that occur exactly once in it, matched with any white space where the
anchor has white space, so that the mutant survives reindentation and
code moving around it), the replacement, what the bug is, and the checks
that should see it.  For each mutant:

  * the tree (sources, tests, examples and the objects of `make all`,
    modification times kept) is copied from a pristine copy built once
    under a temporary directory: the working tree is never changed;
  * the anchor is replaced and `make -j2 all` rebuilds only the touched
    file (an object of the compiler or of the runtime) and relinks;
  * the listed checks run in order until one fails: the mutant is then
    caught (by that check).  A mutant that passes every check survives.

A mutant marked `proof: check` is one that the transfer proofs must
refuse (`distmpmd check` exits non-zero): it counts as caught only when a
`check` catches it; when none does, its other checks still run and say
whether the tests would have seen it.

Before the mutants, every check that some selected mutant lists runs
once on the pristine copy and must pass (else a "catch" would mean
nothing).  An anchor that is not found exactly once, a mutant that does
not compile, a failing check on the pristine copy: errors of the list
(it must be kept in step with the code), exit status 2.  Otherwise the
last line is "N mutants, M caught", exit status 0 when every mutant was
caught, else 1.

Checks (separated by ';' on the `checks:` line):
  check JOB.yaml     `bin/distmpmd check JOB.yaml` exits 0
  e2e NAME|PATH...   tests/e2e/run.sh (E2E_TIMEOUT=60: a hang fails in a
                     minute)
  codegen NAME...    tests/codegen/run.sh on those jobs (goldens)
  errors NAME...     tests/errors/run.sh on those jobs
  unit/runtime, unit/model, unit/parse, unit/manifest   as in tests/run.sh
  fuzz A:B           tests/fuzz/fuzz.py over seeds A..B-1
  fuzzprog A:B       tests/fuzz/fuzz_prog.py over seeds A..B-1

Environment: MUTANTS (names, comma-separated), MUTATE_KEEP=1 (keep the
temporary trees), TMPDIR.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "tests", "mutate", "mutants.txt")
PY = "/usr/bin/python3"
# what is copied: the tree without version control and other builds
SKIP_TOP = {".git", ".tmp", "build", "obj-san", "bin-san", "obj-fuzz"}
CHECK_TIMEOUT = 900          # seconds, a whole check (several e2e jobs);
                             # 120 for "check JOB"


class ListError(Exception):
    """A problem of the list of mutants (not of the code under test)."""


class Mutant:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.file = None
        self.what = None
        self.checks = []
        self.proof = False
        self.anchor = None
        self.replace = None


def parse_list(path):
    """The mutants of the list, in order."""
    mutants, cur, mode, buf = [], None, None, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if mode in ("anchor", "replace"):
            if line == "replace:" and mode == "anchor":
                cur.anchor = "\n".join(buf)
                mode, buf = "replace", []
            elif line == "end":
                if mode != "replace":
                    raise ListError(f"{path}:{n}: 'end' before 'replace:'")
                cur.replace = "\n".join(buf)
                mode, buf, cur = None, [], None
            else:
                buf.append(line)
            continue
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep:
            raise ListError(f"{path}:{n}: expected 'key: value'")
        if key == "mutant":
            if cur is not None:
                raise ListError(f"{path}:{n}: mutant '{cur.name}' has no "
                                f"anchor")
            if not re.fullmatch(r"[a-z0-9_]+", value):
                raise ListError(f"{path}:{n}: bad mutant name {value!r}")
            if any(m.name == value for m in mutants):
                raise ListError(f"{path}:{n}: mutant '{value}' twice")
            cur = Mutant(value, n)
            mutants.append(cur)
            continue
        if cur is None:
            raise ListError(f"{path}:{n}: '{key}' outside a mutant")
        if key == "file":
            cur.file = value
        elif key == "what":
            cur.what = value
        elif key == "checks":
            cur.checks = [c.strip() for c in value.split(";") if c.strip()]
        elif key == "proof":
            if value != "check":
                raise ListError(f"{path}:{n}: proof: must be 'check'")
            cur.proof = True
        elif key == "anchor" and not value:
            mode, buf = "anchor", []
        else:
            raise ListError(f"{path}:{n}: unknown key '{key}'")
    if cur is not None:
        raise ListError(f"{path}: mutant '{cur.name}' is not finished")
    for m in mutants:
        for what in ("file", "what", "anchor", "replace"):
            if getattr(m, what) is None:
                raise ListError(f"{path}:{m.line}: mutant '{m.name}' has "
                                f"no {what}")
        if not m.checks:
            raise ListError(f"{path}:{m.line}: mutant '{m.name}' has no "
                            f"checks")
        if m.proof and not any(c.split()[0] == "check" for c in m.checks):
            raise ListError(f"{path}:{m.line}: mutant '{m.name}' is a "
                            f"proof mutant without a 'check' check")
        for c in m.checks:
            check_command(c, ROOT)      # the syntax of every check
    return mutants


def anchor_regex(anchor):
    """The anchor as a regular expression: its white space matches any
    white space, everything else itself."""
    parts = re.split(r"(\s+)", anchor.strip())
    return re.compile("".join(r"\s+" if p.isspace() else re.escape(p)
                              for p in parts if p))


def apply_mutant(m, tree):
    """Replace m's anchor in its file under "tree" (exactly once)."""
    path = os.path.join(tree, m.file)
    if not os.path.isfile(path):
        raise ListError(f"mutant '{m.name}': no file {m.file}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    hits = list(anchor_regex(m.anchor).finditer(text))
    if len(hits) != 1:
        raise ListError(f"mutant '{m.name}': the anchor occurs {len(hits)} "
                        f"times in {m.file} (must be once)")
    h = hits[0]
    new = text[:h.start()] + m.replace.strip() + text[h.end():]
    if new == text:
        raise ListError(f"mutant '{m.name}': the replacement changes "
                        f"nothing")
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    # newer than every object (built before the copy)
    os.utime(path)


def check_command(check, tree):
    """(argv, environment additions) of a check, run in "tree"."""
    words = check.split()
    kind, args = words[0], words[1:]
    dmd = os.path.join(tree, "bin", "distmpmd")
    scripts = {
        "unit/runtime": "tests/unit/rt_test.sh",
        "unit/model": "tests/unit/model_test.sh",
        "unit/parse": "tests/unit/parse_ok.sh",
        "unit/manifest": "tests/unit/manifest_test.sh",
    }
    if kind == "check" and len(args) == 1:
        return [dmd, "check", args[0]], {}
    if kind == "e2e" and args:
        return ["bash", "tests/e2e/run.sh"] + args, {"E2E_TIMEOUT": "60"}
    if kind == "codegen" and args:
        return ["bash", "tests/codegen/run.sh"] + args, {}
    if kind == "plan" and args:
        return ["bash", "tests/plan/run.sh", "--only"] + args, {}
    if kind == "errors" and args:
        return ["bash", "tests/errors/run.sh"] + args, {}
    if kind in scripts and not args:
        return ["bash", scripts[kind]], {}
    if kind in ("special", "exprs") and not args:
        script = "special_values.py" if kind == "special" else "expr_trees.py"
        return [PY, f"tests/e2e/{script}", dmd, "tests/ref/dmd_ref.py"], {}
    if kind in ("fuzz", "fuzzprog") and len(args) == 1 and re.fullmatch(
            r"\d+:\d+", args[0]):
        script = "fuzz.py" if kind == "fuzz" else "fuzz_prog.py"
        return [PY, f"tests/fuzz/{script}", "--seeds", args[0], dmd,
                "tests/ref/dmd_ref.py"], {}
    raise ListError(f"bad check {check!r}")


def run_check(check, tree, log):
    """Run one check in "tree": (passed, seconds, last lines of output).
    It runs in a process group of its own, killed whole if it outlives its
    time limit (or if we are interrupted): nothing is left running."""
    argv, extra = check_command(check, tree)
    tmp = os.path.join(tree, ".tmp")      # what failing tests keep goes too
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TMPDIR=tmp, **extra)
    env.pop("DISTMPMD", None)
    limit = CHECK_TIMEOUT if check.split()[0] != "check" else 120
    t0 = time.time()
    proc = subprocess.Popen(argv, cwd=tree, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=limit)
        out, ok = raw.decode("utf-8", "replace"), proc.returncode == 0
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raw, _ = proc.communicate()
        out = raw.decode("utf-8", "replace")
        out += f"\n(timed out after {limit} s)"
        ok = False
    except BaseException:
        kill_group(proc)
        proc.wait()
        raise
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"=== {check}\n{out}\n")
    tail = [l for l in out.splitlines() if l.strip()][-3:]
    return ok, time.time() - t0, tail


def kill_group(proc):
    """Kill the process group of "proc" (started in a session of its own)."""
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass


def copy_tree(src, dst):
    """Copy the tree (modification times kept, so that make rebuilds only
    what a mutant touches)."""
    def ignore(d, names):
        return SKIP_TOP & set(names) if os.path.samefile(d, src) else ()
    shutil.copytree(src, dst, symlinks=True, ignore=ignore)


def make(tree, log):
    with open(log, "a", encoding="utf-8") as f:
        f.write("=== make -j2 all\n")
        f.flush()
        r = subprocess.run(["make", "-j2", "all"], cwd=tree, stdout=f,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return r.returncode == 0


def main(argv):
    ap = argparse.ArgumentParser(prog="mutate.py")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", action="store_true",
                    help="list the mutants and their checks, run nothing")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary trees and logs")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not run the checks on the pristine copy first")
    ap.add_argument("--file", default=LIST,
                    help="the list of mutants (default: %(default)s)")
    ap.add_argument("--all-checks", action="store_true",
                    help="run every check of each mutant and say which "
                    "catch it (to choose the checks of the list)")
    args = ap.parse_args(argv)
    try:
        mutants = parse_list(args.file)
    except ListError as e:
        print(f"mutate: {e}")
        return 2
    names = args.names or [n for n in os.environ.get("MUTANTS", "").split(
        ",") if n.strip()]
    if names:
        known = {m.name for m in mutants}
        bad = [n for n in names if n not in known]
        if bad:
            print(f"mutate: no mutant named {', '.join(bad)}")
            return 2
        mutants = [m for m in mutants if m.name in names]
    if args.list:
        bad = 0
        for m in mutants:
            proof = " [proof]" if m.proof else ""
            print(f"{m.name}{proof} ({m.file}): {m.what}\n"
                  f"    checks: {'; '.join(m.checks)}")
            try:
                with open(os.path.join(ROOT, m.file), encoding="utf-8") as f:
                    n = len(anchor_regex(m.anchor).findall(f.read()))
            except OSError as e:
                n = f"unreadable ({e.strerror})"
            if n != 1:
                print(f"    ERROR: the anchor occurs {n} times in {m.file}")
                bad += 1
        print(f"{len(mutants)} mutants")
        return 2 if bad else 0
    keep = args.keep or os.environ.get("MUTATE_KEEP") == "1"
    work = tempfile.mkdtemp(prefix="mutate.")
    log = os.path.join(work, "log")
    t_start = time.time()
    errors, caught, survivors, pending = [], [], [], []
    try:
        base = os.path.join(work, "base")
        copy_tree(ROOT, base)
        if not make(base, log):
            print(f"mutate: the pristine copy does not build (see {log})")
            keep = True
            return 2
        print(f"mutate: {len(mutants)} mutants; pristine copy in {base}",
              flush=True)
        if not args.no_baseline:
            seen = []
            for m in mutants:
                seen += [c for c in m.checks if c not in seen]
            t0 = time.time()
            for c in seen:
                ok, _, tail = run_check(c, base, log)
                if not ok:
                    errors.append(f"check '{c}' fails without a mutant: "
                                  + " | ".join(tail))
                    print(f"ERROR baseline: {errors[-1]}", flush=True)
            print(f"baseline: {len(seen)} checks pass on the pristine copy "
                  f"({time.time() - t0:.0f} s)" if not errors else
                  "baseline: some checks fail on the pristine copy",
                  flush=True)
            if errors:
                keep = True
                print(f"mutate: errors (log: {log})")
                return 2
        for m in mutants:
            t0 = time.time()
            tree = os.path.join(work, m.name)
            copy_tree(base, tree)
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"##### mutant {m.name}\n")
            try:
                apply_mutant(m, tree)
            except ListError as e:
                errors.append(str(e))
                print(f"ERROR {m.name}: {e}", flush=True)
                shutil.rmtree(tree, ignore_errors=True)
                continue
            if not make(tree, log):
                errors.append(f"mutant '{m.name}' does not build")
                print(f"ERROR {m.name}: does not build (see {log})",
                      flush=True)
                keep = True             # for the log
                shutil.rmtree(tree, ignore_errors=True)
                continue
            if args.all_checks:
                res = [(c, run_check(c, tree, log)) for c in m.checks]
                bys = [c for c, r in res if not r[0]]
                print(f"{m.name}: caught by {', '.join(bys) or 'nothing'}; "
                      f"passed: {', '.join(c for c, r in res if r[0]) or '-'}"
                      f" ({time.time() - t0:.0f} s)", flush=True)
                for c, r in res:
                    if not r[0]:
                        print(f"    {c}: {' | '.join(r[2])}")
                (caught if bys else survivors).append(m.name)
                if not keep:
                    shutil.rmtree(tree, ignore_errors=True)
                continue
            by, tests_by = None, None
            order = m.checks
            if m.proof:
                order = ([c for c in m.checks if c.split()[0] == "check"] +
                         [c for c in m.checks if c.split()[0] != "check"])
            for c in order:
                ok, _, tail = run_check(c, tree, log)
                if ok:
                    continue
                if m.proof and c.split()[0] != "check":
                    tests_by = c
                else:
                    by = c
                break
            dt = time.time() - t0
            if by:
                caught.append(m.name)
                print(f"caught {m.name} by {by} ({dt:.0f} s)", flush=True)
            elif m.proof:
                pending.append(m.name)
                seen_by = (f"the tests catch it ({tests_by})" if tests_by
                           else "no test catches it either")
                print(f"SURVIVED {m.name}: {m.what}; the proof does not "
                      f"refuse it, {seen_by} ({dt:.0f} s)", flush=True)
            else:
                survivors.append(m.name)
                print(f"SURVIVED {m.name}: {m.what} (checks: "
                      f"{'; '.join(m.checks)}) ({dt:.0f} s)", flush=True)
            if not keep:
                shutil.rmtree(tree, ignore_errors=True)
    finally:
        if keep:
            print(f"mutate: trees and log kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    n = len(mutants) - len(errors)
    print(f"time: {time.time() - t_start:.0f} s")
    if pending:
        print(f"survive the proof (expected to be refused by check): "
              f"{', '.join(pending)}")
    if survivors:
        print(f"survive every check: {', '.join(survivors)}")
    if errors:
        print(f"{len(errors)} errors of the list:")
        for e in errors:
            print(f"  {e}")
    print(f"{n} mutants, {len(caught)} caught")
    if errors:
        return 2
    return 0 if len(caught) == n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
