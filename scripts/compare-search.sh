#!/usr/bin/env bash
# Two fanotb binaries' proof searches side by side on tsivy sub-problems: the
# level-3 positions of proofs/tsivy/lemmas/jobs.tsv (every one tried at 1,000,000
# nodes, the decided ones first, fewest nodes first), each proved with no lemmas,
# one thread, alternating runs. Node counts do not depend on the machine's load;
# seconds do. Prints a line per position and the totals.
#   scripts/compare-search.sh OLD NEW TABLES [COUNT=20] [MAX_NODES=1000000] [K=6] [NEW_K=K] [POSITIONS]
# TABLES holds the tsivy tables of up to K stones; NEW_K gives NEW leaves of another
# size (OLD and NEW the same binary: the tables' size as a lever). POSITIONS, a file
# of one position a line, replaces the level-3 positions (its first COUNT lines).
set -euo pipefail
old=${1:?usage: scripts/compare-search.sh OLD NEW TABLES [COUNT] [MAX_NODES] [K] [NEW_K] [POSITIONS]}
new=${2:?usage}
tables=${3:?usage}
count=${4:-20} max=${5:-1000000} k=${6:-6} new_k=${7:-${6:-6}} list=${8:-}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ -n "$list" ]; then
  mapfile -t positions < <(head -n "$count" "$list")
else
  mapfile -t positions < <(awk -F'\t' 'NR > 1 && $1 == 3 && $4 == 1000000 {
      print ($6 == "undecided" ? 1 : 0) "\t" $7 "\t" $2 }' <("$new" read-log proofs/tsivy/lemmas/jobs.tsv) |
    sort -t$'\t' -k1,1n -k2,2n | cut -f3 | awk '!seen[$0]++' | head -n "$count")
fi
run() { # binary K position -> "value nodes seconds"
  "$1" prove tsivy --position "$3" --max-table-stones "$2" --max-nodes "$max" --threads 1 \
    --dir "$tables" --out "$out/p.fnproof" --json 2>/dev/null |
    MAX="$max" python3 -c 'import json, os, sys; d = json.load(sys.stdin)
# Undecided: both searches ran to the node limit (the JSON then holds only the error).
print(d.get("value", "undecided"), d.get("nodes", 2 * int(os.environ["MAX"])), round(d.get("search_seconds", 0), 2))'
}
declare -A total=([old_nodes]=0 [new_nodes]=0 [old_decided]=0 [new_decided]=0)
printf '%-58s %-22s %-22s\n' position "old: value nodes s" "new: value nodes s"
for p in "${positions[@]}"; do
  read -r ov on os <<<"$(run "$old" "$k" "$p")"
  read -r nv nn ns <<<"$(run "$new" "$new_k" "$p")"
  printf '%-58s %-22s %-22s\n' "$p" "$ov $on $os" "$nv $nn $ns"
  total[old_nodes]=$((total[old_nodes] + on))
  total[new_nodes]=$((total[new_nodes] + nn))
  [ "$ov" = undecided ] || total[old_decided]=$((total[old_decided] + 1))
  [ "$nv" = undecided ] || total[new_decided]=$((total[new_decided] + 1))
done
echo "decided: old ${total[old_decided]}, new ${total[new_decided]} of ${#positions[@]}"
echo "nodes: old ${total[old_nodes]}, new ${total[new_nodes]}"
