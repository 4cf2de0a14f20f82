#!/usr/bin/env bash
# The tsivy proof by jobs (issue 20), in the background at low priority: every
# position DEPTH plies deep, then each level above, then the start, each job a
# bounded search whose proofs are kept as lemmas in proofs/tsivy/lemmas (commit them:
# a later run, here or on another machine with the same tables, goes on from them).
# Logs to LOG (default proofs/tsivy/jobs.log, not committed).
#   scripts/tsivy-jobs.sh TABLES [DEPTH=3] [MAX_NODES=300000] [K=6] [WORKERS=2] [LOG]
# TABLES must hold the tsivy tables of up to K stones (they are built there if
# missing). Stop it with kill: claims of a killed run are taken over by the next.
set -euo pipefail
tables=${1:?usage: scripts/tsivy-jobs.sh TABLES [DEPTH] [MAX_NODES] [K] [WORKERS] [LOG]}
depth=${2:-3} nodes=${3:-300000} k=${4:-6} workers=${5:-2}
cd "$(dirname "$0")/.."
log=${6:-proofs/tsivy/jobs.log}
cargo build --release --quiet
nohup nice -n 15 /usr/bin/time -f 'wall %e s peak %M KiB' target/release/fanotb prove-jobs tsivy \
  --depth "$depth" --lemmas proofs/tsivy/lemmas --max-table-stones "$k" \
  --max-nodes "$nodes" --workers "$workers" --dir "$tables" >>"$log" 2>&1 &
echo "proving in the background (pid $!); progress: tail -f $log"
