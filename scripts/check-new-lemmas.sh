#!/usr/bin/env bash
# Checks every lemma of DIR that git does not track yet (the ones a proof run wrote
# since the last commit) with `fanotb check-proof`, all in one pass (the tables
# loaded once, each lemma checked once), before they are committed. Exits non-zero
# naming the first lemma that fails, else stages exactly the lemmas it checked,
# with DIR/tree.tsv, for `git commit` (a run still going on writes more meanwhile:
# they wait for the next check).
#   scripts/check-new-lemmas.sh TABLES [DIR=proofs/tsivy/lemmas]
set -euo pipefail
tables=${1:?usage: scripts/check-new-lemmas.sh TABLES [DIR]}
dir=${2:-proofs/tsivy/lemmas}
cd "$(dirname "$0")/.."
cargo build --release --quiet
list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files --others --exclude-standard -- "$dir" | grep '\.fnlemma$' >"$list" || true
echo "$(wc -l <"$list") new lemmas"
xargs -r target/release/fanotb check-proof --lemmas "$dir" --dir "$tables" <"$list"
xargs -r git add -- <"$list"
[ ! -f "$dir/tree.tsv" ] || git add -- "$dir/tree.tsv"
