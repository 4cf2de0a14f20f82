#!/usr/bin/env bash
# The first probe of a table from a fresh process, two fanotb binaries side by side
# (alternating runs): wall seconds and peak resident memory of `fanotb probe POS`,
# which opens the position's table and its successors'. Prints each run and the
# medians. The default position is a 6v1 one (its class table: 8.1 million sets of
# six stones); DIR must hold the tsivy tables up to 7 stones.
#   scripts/first-probe.sh OLD_BINARY NEW_BINARY DIR [POSITION] [ROUNDS=5]
set -euo pipefail
old=${1:?usage: scripts/first-probe.sh OLD NEW DIR [POSITION] [ROUNDS]}
new=${2:?usage: scripts/first-probe.sh OLD NEW DIR [POSITION] [ROUNDS]}
dir=${3:?usage: scripts/first-probe.sh OLD NEW DIR [POSITION] [ROUNDS]}
pos=${4:-9/9/B8/WWW6/3WWW3 w}
rounds=${5:-5}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A secs=([old]="" [new]="") kib=([old]="" [new]="")
for _ in $(seq "$rounds"); do
  for which in old new; do
    # Wall time from bash's microsecond clock (time's %e counts hundredths), the
    # peak from time's %M.
    t0=$EPOCHREALTIME
    out=$( { /usr/bin/time -f '%M' "${!which}" probe "$pos" --dir "$dir" >/dev/null; } 2>&1 | tail -1)
    t1=$EPOCHREALTIME
    secs[$which]+="$(echo "$t0 $t1" | awk '{printf "%.4f", $2 - $1}') "
    kib[$which]+="$out "
  done
done
for which in old new; do
  s=$(echo "${secs[$which]}" | tr ' ' '\n' | grep . | median)
  k=$(echo "${kib[$which]}" | tr ' ' '\n' | grep . | median)
  echo "$which: ${secs[$which]}s; peak ${kib[$which]}KiB; medians $s s, $((k / 1024)) MiB"
done
