#!/usr/bin/env bash
# The whole proof of the tsivy start from an empty lemma store, timed: the two PN²
# questions ("does White win?", "does Black win?") at once, WORKERS `fanotb prove-tree`
# workers each on one store (OUT/lemmas), leaves of MAX_NODES nodes over the tables
# of up to K stones; once both are answered no, the root's certificate is bundled
# with its lemmas (OUT/start.fnproof) and checked by `fanotb check-proof`. Stopped
# after MINUTES (SIGTERM: each run logs where its root stands), it prints how far
# each question got. The proof's inputs are the tables alone: TABLES must hold the
# tsivy tables of up to K stones. Two workers each (four threads on two cores while
# both run) keep both cores busy once the quicker question is answered. K may be two
# numbers, WHITE,BLACK: "8,7" asks "does White win?" over the tables of 8 stones and
# "does Black win?" over those of 7 (the eighth stone cuts the first and doubles the
# second: docs/guide/proofs.md, "The eighth stone"); the root's two halves are then
# joined over the larger tables.
#   scripts/tsivy-from-scratch.sh TABLES [MINUTES=60] [OUT=target/tsivy-from-scratch] [K=7 | KWHITE,KBLACK] [MAX_NODES=50000] [WORKERS=2]
set -euo pipefail
tables=${1:?usage: scripts/tsivy-from-scratch.sh TABLES [MINUTES] [OUT] [K | KWHITE,KBLACK] [MAX_NODES] [WORKERS]}
minutes=${2:-60} out=${3:-target/tsivy-from-scratch} k=${4:-7} nodes=${5:-50000} workers=${6:-2}
case $k in
  [0-9] | [0-9][0-9]) k_white=$k k_black=$k ;;
  [0-9],[0-9] | [0-9][0-9],[0-9] | [0-9],[0-9][0-9] | [0-9][0-9],[0-9][0-9]) k_white=${k%,*} k_black=${k#*,} ;;
  *) echo "K is a number of stones or two, WHITE,BLACK (such as 8,7), not '$k'" >&2; exit 2 ;;
esac
case $tables in /*) ;; *) tables=$PWD/$tables ;; esac # before the cd
cd "$(dirname "$0")/.."
cargo build --release --quiet
fanotb=$PWD/target/release/fanotb
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
for side in white black; do
  side_k=$k_white
  [ "$side" = black ] && side_k=$k_black
  timeout --signal=TERM "${minutes}m" "$fanotb" prove-tree tsivy --attacker "$side" --lemmas "$out/lemmas" \
    --max-table-stones "$side_k" --max-nodes "$nodes" --workers "$workers" --dir "$tables" \
    >"$out/tree-$side.log" 2>&1 &
done
wait || true
echo "wall: $(($(date +%s) - start)) s for both questions (limit ${minutes} min, K=$k_white for White's, $k_black for Black's, leaves of $nodes nodes, $workers workers each)"
for side in white black; do
  # Its answer if it has one, and its last progress line: the root's proof and
  # disproof numbers, its moves settled, the nodes, the rate and the peak.
  echo "does $side win? $(grep -A1 -E ': does (White|Black) win\?$' "$out/tree-$side.log" | tail -1 || true)"
  grep -E '^ *[0-9]+ +root ' "$out/tree-$side.log" | tail -1 |
    sed -E 's/ moves ([0-9]+\/[0-9]+) settled:[^t]*/ moves \1 settled /; s/ \|.*//' || true
done
if [ ! -f "$out/lemmas/root.fnproof" ] && [ "$k_white" != "$k_black" ]; then
  # The run over the smaller tables, ended last, passed over the other's lemmas (it
  # cannot check them): a run over the larger tables, with no expansion, reads both
  # halves and joins them into the root's certificate.
  k_max=$((k_white > k_black ? k_white : k_black))
  joined=$(date +%s)
  "$fanotb" prove-tree tsivy --attacker white --lemmas "$out/lemmas" --max-table-stones "$k_max" \
    --max-expansions 0 --dir "$tables" >"$out/join.log" 2>&1 || true
  echo "joined over the tables of $k_max stones: $(($(date +%s) - joined)) s"
fi
if [ -f "$out/lemmas/root.fnproof" ]; then
  "$fanotb" bundle-proof "$out/lemmas/root.fnproof" --lemmas "$out/lemmas" --out "$out/start.fnproof"
  /usr/bin/time -f "check: wall %e s peak %M KiB" "$fanotb" check-proof "$out/start.fnproof" --dir "$tables"
else
  echo "no root certificate: the start is not proved within ${minutes} min" >&2
  exit 1
fi
