#!/bin/bash
# The examples with their schedules deleted (spec 1.6: a step without a
# schedule gets the search's): each of the cheap examples that has a
# schedule is copied with every `schedule` key removed (and "_auto"
# added to its name), then run as an e2e job (tests/e2e/run.sh): the
# output matches tests/ref/dmd_ref.py, every rank's blocks too, and
# `plan --json` predicts the run's bytes_moved_total, bytes_recv_max and
# messages exactly, per step too (tests/e2e/check_plan.py).
#
# Only the examples that run in a few seconds here: tail (2 ranks),
# distir_mlp (2 ranks, a program), pumma_2x2 (4 ranks), stencil3 (5
# ranks).  ag_gemm (4 ranks, 100 MB moved, 16 s) and the 64-rank
# cannon, pumma and summa are left out (their plans take minutes: the
# 3-D winner on a view of 64 ranks, doc/design-notes.md "Still slow").
#
#   bash tests/e2e/examples_auto.sh [NAME...]    (default: the list above)
# Last line: "N passed, M failed" (tests/e2e/run.sh's).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(tail distir_mlp pumma_2x2 stencil3)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/examples_auto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
jobs=()
for n in "${names[@]}"; do
    "$PY" - "$ROOT/examples/$n.yaml" "$tmp/${n}_auto.yaml" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
def strip(steps):
    for s in steps:
        s.pop('schedule', None)
        strip(s.get('steps', []))
had = 'schedule' in d or any('schedule' in s for s in d.get('program', []))
if not had:
    sys.exit('%s has no schedule to delete' % sys.argv[1])
d.pop('schedule', None)
strip(d.get('program', []))
d['name'] += '_auto'
with open(sys.argv[2], 'w') as f:
    yaml.safe_dump(d, f, sort_keys=False, default_flow_style=None, width=1000)
PYEOF
    jobs+=("$tmp/${n}_auto.yaml")
done
bash "$ROOT/tests/e2e/run.sh" "${jobs[@]}"
