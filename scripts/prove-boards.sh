#!/usr/bin/env bash
# Proves board starts from an empty table directory each, checks every certificate,
# and prints one markdown row per board: K, tables built (positions, seconds), nodes,
# nodes per second, peak memory (the whole process, /usr/bin/time), certificate size,
# check time. Peak and wall time are /usr/bin/time's; the rest is fanotb's JSON.
#   scripts/prove-boards.sh [BOARD:K ...]   (default: the five won boards and dimy)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(3x3:4 5x3:4 3x5:4 7x3:4 3x7:4 dimy:2 dimy:4 dimy:9)
work=$(mktemp -d /tmp/fanotb-prove.XXXX)
echo "| board | K | value | tables: positions, s | nodes | nodes/s | proofs (positions) | peak | certificate | check |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for spec in "${specs[@]}"; do
  board=${spec%:*}
  k=${spec#*:}
  dir="$work/$board-$k"
  mkdir -p "$dir"
  /usr/bin/time -f '%M' -o "$dir/time" target/release/fanotb prove "$board" \
    --max-table-stones "$k" --dir "$dir" --json >"$dir/prove.json" 2>/dev/null
  target/release/fanotb check-proof "$dir/proofs/"*.fnproof --dir "$dir" --json >"$dir/check.json"
  python3 - "$board" "$k" "$dir" <<'PY'
import json, sys
board, k, d = sys.argv[1:]
p = json.load(open(f"{d}/prove.json"))
c = json.load(open(f"{d}/check.json"))
peak = int(open(f"{d}/time").read().split()[-1]) / 1024
proofs = ", ".join(f"{x['side']} {x['claim']} ({x['positions']})" for x in p["proofs"])
nps = p["nodes"] / max(p["search_seconds"], 1e-9)
print(f"| {p['board']} | {k} | {p['value']} | {p['tables']['positions']:,}, {p['tables']['seconds']:.2f} s "
      f"| {p['nodes']:,} | {nps:,.0f} | {proofs} | {peak:.1f} MiB | {p['certificate_bytes']:,} B "
      f"| {c['positions']:,} positions, {c['seconds']:.2f} s |")
PY
done
rm -rf "$work"
