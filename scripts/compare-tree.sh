#!/usr/bin/env bash
# Two fanotb binaries growing the same first-level tree side by side: "does
# ATTACKER win at POSITION?" for EXPANSIONS expansions, each over a fresh copy of
# the lemma store proofs/tsivy/lemmas as it was when the script started (its
# leaves' log left out, so that every leaf is searched), one worker, 50,000-node
# leaves over the tables of up to 7 stones, alternating runs so that the machine's
# drift falls on both alike. The lemma
# store is the tree workload's own: a leaf search probes it at every child.
# Prints each run's nodes, seconds and nodes per second; equal searches grow the
# same tree, so their nodes must be equal.
#   scripts/compare-tree.sh OLD NEW TABLES POSITION ATTACKER [EXPANSIONS=30] [ROUNDS=2]
set -euo pipefail
old=${1:?usage: scripts/compare-tree.sh OLD NEW TABLES POSITION ATTACKER [EXPANSIONS] [ROUNDS]}
new=${2:?usage}
tables=$(realpath "${3:?usage}")
position=${4:?usage}
attacker=${5:?usage}
expansions=${6:-30}
rounds=${7:-2}
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "compare-tree.sh: $bin is not an executable fanotb" >&2; exit 1; }
done
[ -d "$tables" ] || { echo "compare-tree.sh: no table directory $tables" >&2; exit 1; }
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/fanotb-tree.XXXX)
trap 'rm -rf "$work"' EXIT
# One snapshot for every run: a search running meanwhile adds to the store.
mkdir "$work/snapshot"
find proofs/tsivy/lemmas -maxdepth 1 -type f ! -name 'tree.tsv*' ! -name '.*' \
  -exec cp {} "$work/snapshot/" \;
printf '%-6s %-4s %14s %9s %10s\n' round bin nodes seconds nodes/s
for r in $(seq "$rounds"); do
  for which in old new; do
    rm -rf "$work/store"
    cp -r "$work/snapshot" "$work/store"
    # Not answered within the expansions: exit 1, the report printed all the same.
    { "${!which}" --json prove-tree tsivy --position "$position" --attacker "$attacker" \
      --lemmas "$work/store" --workers 1 --max-table-stones 7 --max-nodes 50000 \
      --max-expansions "$expansions" --dir "$tables" --out "$work/root.fnproof" 2>/dev/null || true; } |
      python3 -c 'import sys
sys.path.insert(0, "scripts")
from fanotb_json import objects
found = objects(sys.stdin.read())
reports = [o for o in found if "attacker" in o]
if not reports:
    sys.exit("prove-tree gave no report: " + str([o.get("error") for o in found]))
r = reports[-1]
print(r["nodes"], round(r["seconds"], 1), round(r["nodes"] / r["seconds"]))' |
      { read -r nodes secs rate; printf '%-6s %-4s %14s %9s %10s\n' "$r" "$which" "$nodes" "$secs" "$rate"; }
  done
done
