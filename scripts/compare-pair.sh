#!/usr/bin/env bash
# Two fanotb binaries building one tsivy signature pair side by side, alternating
# runs so that the machine's drift falls on both alike. The smaller tables the pair
# reads are linked from TABLES (a directory holding them, e.g. one built by
# scripts/bench-tables.sh), so each run builds only the pair, into a fresh
# directory. Prints each run's pair seconds (solving) and peak memory as the
# generator reports them, its wall seconds (solving and writing), the medians, and
# whether both binaries wrote the same bytes.
#   scripts/compare-pair.sh OLD NEW SIG TABLES [ROUNDS=3] [THREADS=1]
set -euo pipefail
old=${1:?usage: scripts/compare-pair.sh OLD NEW SIG TABLES [ROUNDS] [THREADS]}
new=${2:?usage}
sig=${3:?usage}
tables=$(realpath "${4:?usage}")
rounds=${5:-3}
threads=${6:-1}
work=$(mktemp -d /tmp/fanotb-pair.XXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/pair-dirs.sh"

declare -A secs peak wall
for r in $(seq "$rounds"); do
  for which in old new; do
    bin=${!which}
    pair_dir "$work/$which" "$tables" "$sig"
    start=$(date +%s.%N)
    out=$("$bin" generate --board tsivy --signature "$sig" --threads "$threads" \
      --dir "$work/$which" 2>/dev/null)
    wall[$which]+="$(echo "$(date +%s.%N) - $start" | bc -l | xargs printf '%.2f') "
    line=$(echo "$out" | grep -m1 "^$sig ")
    secs[$which]+="$(echo "$line" | awk '{for (i = 1; i < NF; i++) if ($(i+1) == "s") {print $i; exit}}') "
    peak[$which]+="$(echo "$line" | sed -E 's/.*peak +([0-9.]+ [KMG]iB).*/\1/' | tr -d ' ') "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "pair $sig, $threads thread(s), $rounds rounds"
o=$(echo "${secs[old]}" | median)
w=$(echo "${secs[new]}" | median)
printf 'old %8.2f s  new %8.2f s  new/old %.3f   (old: %s| new: %s)\n' \
  "$o" "$w" "$(echo "$w / $o" | bc -l)" "${secs[old]}" "${secs[new]}"
o=$(echo "${wall[old]}" | median)
w=$(echo "${wall[new]}" | median)
printf 'wall old %8.2f s  new %8.2f s  new/old %.3f   (old: %s| new: %s)\n' \
  "$o" "$w" "$(echo "$w / $o" | bc -l)" "${wall[old]}" "${wall[new]}"
echo "peak  old: ${peak[old]}| new: ${peak[new]}"
pair_same "$work/old" "$work/new" "$sig"
