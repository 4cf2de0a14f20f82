#!/usr/bin/env bash
# Two fanotb binaries' move generators side by side: perft from the tsivy start and
# from a mid-game position, runs alternating so that the machine's drift falls on
# both alike. Prints each run's seconds and, per position, the medians and the
# ratio old/new (above 1: the new one is faster). One core each.
#   scripts/compare-perft.sh OLD_BINARY NEW_BINARY [ROUNDS=7]
set -euo pipefail
old=${1:?usage: scripts/compare-perft.sh OLD NEW [ROUNDS]}
new=${2:?usage: scripts/compare-perft.sh OLD NEW [ROUNDS]}
rounds=${3:-7}
cases=("start 6" "1BB2BBBB/B1B1BBBBB/1W4BBW/WWW1W1WWW/1W1W1W1WW w|6")
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for c in "${cases[@]}"; do
  if [[ $c == *"|"* ]]; then pos=${c%|*} depth=${c#*|}; else pos=${c% *} depth=${c#* }; fi
  declare -A runs=([old]="" [new]="")
  for _ in $(seq "$rounds"); do
    for which in old new; do
      bin=${!which}
      out=$("$bin" perft "$pos" "$depth" --json)
      s=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seconds"])')
      runs[$which]+="$s "
    done
  done
  mo=$(echo "${runs[old]}" | tr ' ' '\n' | grep . | median)
  mn=$(echo "${runs[new]}" | tr ' ' '\n' | grep . | median)
  count=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')
  echo "perft $depth of $pos ($count leaves): old ${runs[old]}| new ${runs[new]}"
  echo "  medians: old $mo s, new $mn s, ratio $(echo "scale=2; $mo / $mn" | bc)"
done
