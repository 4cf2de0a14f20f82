#!/usr/bin/env bash
# The tsivy proof by PN² (issue 20), in the background at low priority: one question
# ("does SIDE win at the start?") answered by `fanotb prove-tree`, a best-first tree
# whose leaves are bounded searches. Its proofs are kept as lemmas in
# proofs/tsivy/lemmas and its leaves' numbers in proofs/tsivy/lemmas/tree.tsv
# (commit both: a later run, here or on another machine with the same tables, goes
# on from them). Logs to LOG (default proofs/tsivy/tree-SIDE.log, not committed).
#   scripts/tsivy-tree.sh TABLES SIDE [MAX_NODES=200000] [K=6] [WORKERS=2] [LOG]
# The draw is both answers "no": SIDE=white, then SIDE=black (or both at once, one
# worker each). TABLES must hold the tsivy tables of up to K stones (built there if
# missing). Stop it with `pkill -f "fanotb prove-tree"` (SIGTERM): it ends at once,
# logging where the root and its moves stand; only the leaves being searched are
# lost. NICE=N sets its priority (default 15). POSITION="TEXT" asks the question of
# that position instead of the start (a first move's value: POSITION after the move,
# SIDE=black), logging to proofs/tsivy/tree-SIDE-POSITION.log, with the position's
# `/` and space as `-`; its certificate is LEMMAS/root-POSITION.fnproof.
set -euo pipefail
tables=${1:?usage: scripts/tsivy-tree.sh TABLES SIDE [MAX_NODES] [K] [WORKERS] [LOG]}
side=${2:?usage: scripts/tsivy-tree.sh TABLES SIDE [MAX_NODES] [K] [WORKERS] [LOG]}
nodes=${3:-200000} k=${4:-6} workers=${5:-2}
cd "$(dirname "$0")/.."
at=() name=$side
if [ -n "${POSITION:-}" ]; then
  at=(--position "$POSITION") name=$side-$(echo "$POSITION" | tr '/ ' '--')
fi
log=${6:-proofs/tsivy/tree-$name.log}
cargo build --release --quiet
nohup nice -n "${NICE:-15}" /usr/bin/time -f "wall %e s peak %M KiB" target/release/fanotb prove-tree tsivy \
  --attacker "$side" "${at[@]}" --lemmas proofs/tsivy/lemmas --max-table-stones "$k" \
  --max-nodes "$nodes" --workers "$workers" --dir "$tables" >>"$log" 2>&1 &
echo "proving in the background (pid $!); progress: tail -f $log"
