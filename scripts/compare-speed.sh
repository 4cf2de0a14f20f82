#!/usr/bin/env bash
# Two fanotb binaries side by side, alternating runs so that the machine's drift
# falls on both alike: the generator (every tsivy table up to N stones, one fresh
# directory a run, both threads) and the probe (`probe -` on P random positions of
# those tables, plain, then under the limit 60 from rule-aware tables). Prints each
# run's seconds and the medians.
#   scripts/compare-speed.sh OLD_BINARY NEW_BINARY [N=5] [ROUNDS=5] [P=20000]
set -euo pipefail
old=${1:?usage: scripts/compare-speed.sh OLD NEW [N] [ROUNDS] [P]}
new=${2:?usage: scripts/compare-speed.sh OLD NEW [N] [ROUNDS] [P]}
n=${3:-5}
rounds=${4:-5}
positions=${5:-20000}
work=$(mktemp -d /tmp/fanotb-compare.XXXX)
trap 'rm -rf "$work"' EXIT

# Random positions of every table up to N stones, from a fixed seed.
"$new" generate --max-stones "$n" --no-capture-limit 60 --dir "$work/tables" >/dev/null
"$(dirname "$0")/random-positions.py" "$n" "$positions" 20261201 >"$work/positions.txt"

seconds() { # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
declare -A runs
for r in $(seq "$rounds"); do
  for which in old new; do
    bin=${!which}
    rm -rf "$work/gen"
    runs[$which,gen]+="$(seconds "$bin" generate --max-stones "$n" --dir "$work/gen") "
    runs[$which,probe]+="$(seconds "$bin" probe - --dir "$work/tables" <"$work/positions.txt") "
    runs[$which,limit]+="$(seconds "$bin" probe - --no-capture-limit 60 --dir "$work/tables" <"$work/positions.txt") "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for what in gen probe limit; do
  o=$(echo "${runs[old,$what]}" | median)
  w=$(echo "${runs[new,$what]}" | median)
  printf '%-6s old %8.3f s  new %8.3f s  new/old %.3f   (old: %s| new: %s)\n' \
    "$what" "$o" "$w" "$(echo "$w / $o" | bc -l)" "${runs[old,$what]}" "${runs[new,$what]}"
done
