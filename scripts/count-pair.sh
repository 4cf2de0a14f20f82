#!/usr/bin/env bash
# Instructions two fanotb binaries execute building one tsivy signature pair on one
# thread, counted by valgrind's callgrind: a measure that does not drift with the
# machine's load, for steps too small to show through it in wall time. The smaller
# tables are linked from TABLES (as in scripts/compare-pair.sh); the pair is built
# into a fresh directory for each binary, and the two builds' files are compared.
#   scripts/count-pair.sh OLD NEW SIG TABLES        (needs valgrind; 2v3: a few minutes)
set -euo pipefail
old=${1:?usage: scripts/count-pair.sh OLD NEW SIG TABLES}
new=${2:?usage}
sig=${3:?usage}
tables=$(realpath "${4:?usage}")
work=$(mktemp -d /tmp/fanotb-count.XXXX)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/pair-dirs.sh"

declare -A count
for which in old new; do
  pair_dir "$work/$which" "$tables" "$sig"
  valgrind --tool=callgrind --callgrind-out-file="$work/$which.out" \
    "${!which}" generate --board tsivy --signature "$sig" --threads 1 \
    --dir "$work/$which" >/dev/null 2>"$work/$which.log"
  count[$which]=$(grep -m1 '^summary:' "$work/$which.out" | awk '{print $2}')
done
awk -v o="${count[old]}" -v n="${count[new]}" -v s="$sig" 'BEGIN {
  printf "pair %s, one thread: old %.3f, new %.3f billion instructions, new/old %.4f\n",
    s, o / 1e9, n / 1e9, n / o }'
pair_same "$work/old" "$work/new" "$sig"
