#!/bin/bash
# tests/doc/run.sh: the user's reference of the job format stays in step
# with the reader.
#
#   bash tests/doc/run.sh        (DISTMPMD=PATH: the compiler to test)
#
# From the reader's own source (not from a list written here):
#   - every key of every key table of ir/dmd_parse.c ({ .name = "KEY" },
#     grouped by the function that holds the table) is a row of the
#     table of its section under "Every key" in doc/job-format.md, and
#     an item (.B KEY) of the same section of doc/distmpmd-job.5;
#   - every value of the reader's word tables (dtype, split, init), every
#     schedule command and function of ir/dmd_expr*.c, and the words that
#     divide and tensorize compare with, appear in both, as code;
#   - a feature the "Not yet implemented" table lists as "not yet" is
#     not a key the reader accepts (when one lands, the table must be
#     updated).
# And: every complete job in doc/job-format.md (a yaml block that starts
# with "name:") passes "distmpmd check", and runs on at most 4 ranks
# with outputs equal to the reference's; the man page renders without a
# warning.  The last line is "N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DMD=${DISTMPMD:-$ROOT/bin/distmpmd}
PY=/usr/bin/python3
REF=$ROOT/tests/ref/dmd_ref.py
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d "${TMPDIR:-/tmp}/dmd-doc.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

"$PY" - "$ROOT" "$work" >"$work/py.out" 2>&1 <<'PY'
import os, re, sys

root, work = sys.argv[1], sys.argv[2]
parse = open(os.path.join(root, 'ir/dmd_parse.c')).read()
expr = ''.join(open(os.path.join(root, 'ir', f)).read() for f in
               ('dmd_expr.c', 'dmd_expr_cmd.c', 'dmd_expr_check.c'))
md = open(os.path.join(root, 'doc/job-format.md')).read()
man = open(os.path.join(root, 'doc/distmpmd-job.5')).read()
passed = failed = 0


def check(ok, name, detail=''):
    global passed, failed
    if ok:
        passed += 1
        print('ok - ' + name)
    else:
        failed += 1
        print('FAIL - ' + name + (': ' + detail if detail else ''))


# The section of each key table: the function that holds it.
SECTIONS = {
    'dmd_parse_top': 'Top level',
    'dmd_parse_mesh': 'In mesh',
    'dmd_parse_views': 'In a view',
    'dmd_parse_links': 'In a link',
    'dmd_parse_tensor': 'In a tensor',
    'dmd_parse_axe': 'In an Axe layout',
    'dmd_parse_step': 'In a program step',
}

# Key tables: "struct dmd_parse_key keys[...] = { { .name = ... }, };"
tables = {}
funcs = [(m.start(), m.group(1)) for m in
         re.finditer(r'^static int (\w+)\(', parse, re.M)]
for m in re.finditer(r'struct dmd_parse_key \w+\[[^\]]*\] = \{(.*?)\};',
                     parse, re.S):
    func = [f for pos, f in funcs if pos < m.start()][-1]
    keys = re.findall(r'\.name = "([^"]+)"', m.group(1))
    tables.setdefault(func, []).extend(keys)
check(set(tables) == set(SECTIONS),
      'the key tables of ir/dmd_parse.c are in the functions this test '
      'knows (%s)' % ', '.join(sorted(tables)),
      'unknown: %s; missing: %s' % (sorted(set(tables) - set(SECTIONS)),
                                    sorted(set(SECTIONS) - set(tables))))
accepted = set(k for keys in tables.values() for k in keys)
check(len(accepted) >= 15, 'the reader accepts %d distinct keys' %
      len(accepted))


def md_section(title):
    """The text of '### title' up to the next heading."""
    m = re.search(r'^### ' + re.escape(title) + r'\n(.*?)(?=^#)', md,
                  re.S | re.M)
    return m.group(1) if m else ''


def man_section(title):
    """The text of '.SS "title"' up to the next .SS or .SH."""
    m = re.search(r'^\.SS "' + re.escape(title) + r'"\n(.*?)(?=^\.S[SH])',
                  man, re.S | re.M)
    return m.group(1) if m else ''


for func, keys in sorted(tables.items()):
    title = SECTIONS.get(func)
    if not title:
        continue
    sec, msec = md_section(title), man_section(title)
    check(sec != '' and msec != '',
          'doc/job-format.md and distmpmd-job.5 have a section "%s"' %
          title)
    for k in keys:
        check(re.search(r'^\| `' + re.escape(k) + r'` \|', sec, re.M),
              'job-format.md, "%s": a row for `%s`' % (title, k))
        check(re.search(r'^\.B ' + re.escape(k) + r'$', msec, re.M),
              'distmpmd-job.5, "%s": an item for %s' % (title, k))

# Words: the reader's word tables, the commands and functions of the
# statement and schedule grammars, the words divide and tensorize take.
words = {}
for m in re.finditer(r'static const char \*const (\w+)\[\] = \{([^}]*)\}',
                     parse):
    words[m.group(1)] = re.findall(r'"([^"]+)"', m.group(2))
for name in ('dmd_expr_funcs', 'dmd_expr_cmds'):
    m = re.search(name + r'\[\] = \{(.*?)\n\};', expr, re.S)
    words[name] = re.findall(r'\{ "(\w+)",', m.group(1)) if m else []
words['compared'] = re.findall(r'strcmp\(args\[\d\]\.id, "(\w+)"\)', expr)
for name, ws in sorted(words.items()):
    check(len(ws) >= 1, 'the reader\'s %s are found (%s)' %
          (name, ', '.join(ws)))
    for w in ws:
        check('`%s`' % w in md or '`%s(' % w in md,
              'job-format.md names `%s` (%s)' % (w, name))
        check(re.search(r'\\fB%s\\fR|^\.B[IR]? %s\b|^\.BR? "?%s\b' %
                        ((re.escape(w),) * 3), man, re.M),
              'distmpmd-job.5 names %s (%s)' % (w, name))

# "Not yet": a feature listed as not yet is not a key of the reader.
m = re.search(r'^## Not yet implemented\n(.*?)(?=^## )', md, re.S | re.M)
rows = re.findall(r'^\| `([a-z_]+)`[^|]*\|[^|]*\| not yet', m.group(1),
                  re.M) if m else []
# (views, memory, links, cyclic and axe while this was written, all
# landed since: the table's rows stay, their status changes; the count
# of rows guards against a table these regexes no longer read, the keys
# below against rows left behind)
table = re.findall(r'^\| `[^`]+`', m.group(1), re.M) if m else []
check(len(table) >= 3, 'job-format.md\'s "not yet" table has %d rows, '
      '%d of them keys listed as not yet' % (len(table), len(rows)))
for k in ('cyclic', 'axe'):
    check(not re.search(r'^\| `%s`.*\| not yet' % k,
                        m.group(1) if m else '', re.M),
          '%s is implemented: not listed as not yet' % k)
for k in rows:
    check(k not in accepted, 'not yet: `%s` is not a key the reader '
          'accepts' % k, 'the reader accepts it now: update the table')
    check(re.search(r'\.BR? %s\b' % re.escape(k),
                    man.split('.SH NOT YET IMPLEMENTED')[-1]),
          'distmpmd-job.5 lists %s under NOT YET IMPLEMENTED' % k)

# The complete jobs of job-format.md, for the shell below.
n = 0
for b in re.findall(r'```yaml\n(.*?)```', md, re.S):
    if b.startswith('name:'):
        n += 1
        d = os.path.join(work, 'job%02d' % n)
        os.mkdir(d)
        open(os.path.join(d, 'job.yaml'), 'w').write(b)
check(n >= 10, 'job-format.md has %d complete jobs' % n)
print('counts %d %d' % (passed, failed))
PY
grep -v '^counts ' "$work/py.out"
counts=$(grep '^counts ' "$work/py.out")
passed=$(echo "$counts" | cut -d' ' -f2)
failed=$(echo "$counts" | cut -d' ' -f3)
if [ -z "$counts" ]; then
    passed=0
    failed=1
    echo "FAIL - the checks of the sources ran to the end"
fi
ok() { passed=$((passed + 1)); echo "ok - $1"; }
ko() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    shift
    printf '#   %s\n' "$@"
}

# Every complete job: check, inputs by the reference, run, outputs.
for d in "$work"/job*/; do
    name=$(sed -n 's/^name: //p' "$d/job.yaml")
    if ! "$DMD" check "$d/job.yaml" >"$d/check.out" 2>&1; then
        ko "job-format.md, job '$name': distmpmd check" "$(cat "$d/check.out")"
        continue
    fi
    ok "job-format.md, job '$name': distmpmd check"
    if (cd "$d" && "$PY" "$REF" inputs job.yaml >inputs.out 2>&1 &&
        timeout 300 "$DMD" run job.yaml </dev/null >run.out 2>&1 &&
        "$PY" "$REF" check job.yaml >ref.out 2>&1); then
        ok "... it runs, and its outputs are the reference's"
    else
        ko "... it runs, and its outputs are the reference's" \
            "$(cat "$d"/inputs.out "$d"/run.out "$d"/ref.out 2>/dev/null)"
    fi
done

if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$ROOT/doc/distmpmd-job.5" 2>&1)
    if [ -z "$warn" ]; then
        ok "doc/distmpmd-job.5 renders without a warning (groff -ww)"
    else
        ko "doc/distmpmd-job.5 renders without a warning (groff -ww)" "$warn"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
