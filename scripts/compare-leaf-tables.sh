#!/usr/bin/env bash
# What more table stones change for the tsivy proof's leaves (issue 20): samples N
# leaves of the question "does SIDE win?" that proofs/tsivy/lemmas/tree.tsv holds
# undecided, a third each of at most 12, 13 to 24 and at least 25 stones (a fixed
# random source, so the same sample every time), and searches each afresh with the
# tables of up to K1 and of up to K2 stones, alternating, NODES nodes a search, each
# K over its own copy of the committed lemmas. Prints one line a search (stones, K,
# answer, nodes) and then the leaves decided per band and K.
#   scripts/compare-leaf-tables.sh TABLES SIDE N K1 K2 [NODES=200000]
set -euo pipefail
tables=${1:?usage: scripts/compare-leaf-tables.sh TABLES SIDE N K1 K2 [NODES]}
side=${2:?} n=${3:?} k1=${4:?} k2=${5:?} nodes=${6:-200000}
cd "$(dirname "$0")/.."
cargo build --release --quiet
fanotb=$PWD/target/release/fanotb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
attacker=${side^}
awk -F'\t' -v a="$attacker" 'NR > 1 && $1 == a {
  p = $2; sub(/ .*/, "", p); print gsub(/[WB]/, "", p) "\t" $2 }' \
  <("$fanotb" read-log proofs/tsivy/lemmas/tree.tsv) | sort -u >"$work/leaves"
for band in '$1 <= 12' '$1 >= 13 && $1 <= 24' '$1 >= 25'; do
  awk -F'\t' "$band" "$work/leaves" | shuf -n $((n / 3)) --random-source=<(yes)
done >"$work/sample"
for k in "$k1" "$k2"; do
  mkdir "$work/$k" && cp proofs/tsivy/lemmas/*.fnpack "$work/$k/"
done
while IFS=$'\t' read -r stones pos; do
  for k in "$k1" "$k2"; do
    rm -f "$work/$k/tree.tsv"
    # Undecided within NODES, prove-tree exits non-zero: that is a result here.
    answer=$({ "$fanotb" prove-tree tsivy --position "$pos" --attacker "$side" \
      --max-expansions 0 --lemmas "$work/$k" --max-table-stones "$k" \
      --max-nodes "$nodes" --workers 1 --dir "$tables" --json 2>/dev/null || true; } |
      sed -n 's/^  "\(answer\|nodes\)": \(.*\),$/\2/p' | paste -sd' ')
    printf '%s\t%s\t%s\t%s\n' "$stones" "$k" "$answer" "$pos"
  done
done <"$work/sample" | tee "$work/out"
echo "decided (of $((n / 3)) a band): stones, tables up to $k1, up to $k2"
for band in '$1 <= 12' '$1 >= 13 && $1 <= 24' '$1 >= 25'; do
  awk -F'\t' -v k1="$k1" -v k2="$k2" "$band"' { d = $3 !~ /^null/
    if ($2 == k1) a += d; else b += d } END { printf "%s\t%d\t%d\n", "'"$band"'", a, b }' "$work/out"
done
