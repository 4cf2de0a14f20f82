#!/usr/bin/env bash
# The leaf budget of PN², measured (issue 49): one question of the tsivy start
# ("does SIDE win?") answered from an empty lemma store once per leaf budget, all
# at once, one `prove-tree` worker each on a store of its own (OUT/BUDGET), so
# that each run's nodes do not depend on the others or on the machine's load.
# Prints, per budget, the answer, expansions, leaves searched, nodes, seconds and
# peak memory (seconds are shared cores: compare nodes).
#   scripts/compare-tree-budget.sh TABLES SIDE "BUDGET..." [K=7] [MINUTES=60] [OUT=target/tree-budget]
set -euo pipefail
tables=${1:?usage: scripts/compare-tree-budget.sh TABLES SIDE "BUDGET..." [K] [MINUTES] [OUT]}
side=${2:?usage} budgets=${3:?usage}
k=${4:-7} minutes=${5:-60} out=${6:-target/tree-budget}
case $tables in /*) ;; *) tables=$PWD/$tables ;; esac # before the cd
cd "$(dirname "$0")/.."
cargo build --release --quiet
fanotb=$PWD/target/release/fanotb
for b in $budgets; do
  rm -rf "${out:?}/$b"
  mkdir -p "$out/$b"
  /usr/bin/time -f "peak %M KiB" timeout --signal=TERM "${minutes}m" "$fanotb" --json prove-tree tsivy \
    --attacker "$side" --lemmas "$out/$b/lemmas" --max-table-stones "$k" --max-nodes "$b" \
    --workers 1 --dir "$tables" >"$out/$b/run.json" 2>"$out/$b/time.txt" &
done
wait || true
printf '%-10s %-10s %10s %8s %14s %9s %10s\n' budget answer expansions leaves nodes seconds peak_KiB
for b in $budgets; do
  python3 - "$out/$b/run.json" "$b" "$(grep -o 'peak [0-9]*' "$out/$b/time.txt" | cut -d' ' -f2)" <<'PY'
import sys
sys.path.insert(0, "scripts")
from fanotb_json import objects
objs = objects(open(sys.argv[1]).read())  # the progress lines, then the report
reports = [o for o in objs if "attacker" in o]
# A run killed before its report: its last progress line.
last = reports[-1] if reports else ([o for o in objs if "expansions" in o] or [None])[-1]
if last is None:
    print(f"{sys.argv[2]:<10} no progress line in {sys.argv[1]}")
    sys.exit()
print(f"{sys.argv[2]:<10} {last.get('answer') or 'open':<10} {last['expansions']:>10} "
      f"{last['searched']:>8} {last['nodes']:>14} {last['seconds']:>9.0f} {sys.argv[3]:>10}")
PY
done
