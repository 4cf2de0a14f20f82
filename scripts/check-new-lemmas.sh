#!/usr/bin/env bash
# Checks every lemma of DIR that git does not track yet (the packs proof runs wrote
# since the last commit, and any loose lemma file) with `fanotb check-proof`, all in
# one pass (the tables loaded once, each lemma checked once, a pack standing for its
# lemmas), before they are committed. Exits non-zero naming the first lemma that
# fails, else stages exactly the files it checked, with DIR's logs, for `git
# commit` (a pack a run is still writing grows meanwhile: stop the run first, or
# its later lemmas wait for the next check). A few packs a run, never thousands
# of files: `fanotb pack-lemmas DIR` merges them when they are many.
#   scripts/check-new-lemmas.sh TABLES [DIR=proofs/tsivy/lemmas]
set -euo pipefail
tables=${1:?usage: scripts/check-new-lemmas.sh TABLES [DIR]}
dir=${2:-proofs/tsivy/lemmas}
cd "$(dirname "$0")/.."
cargo build --release --quiet
list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files --others --exclude-standard -- "$dir" | grep -E '\.(fnlemma|fnpack)$' >"$list" || true
echo "$(wc -l <"$list") new lemma files and packs"
xargs -r target/release/fanotb check-proof --lemmas "$dir" --dir "$tables" <"$list"
xargs -r git add -- <"$list"
# The logs, open and sealed parts (a part pack-lemmas merged away is staged removed).
{ git ls-files -z -- "$dir"; find "$dir" -maxdepth 1 -type f -print0; } |
  { grep -zE '(^|/)(tree|checked|jobs)\.tsv(\.([1-9][0-9]*\.)?zst)?$' || true; } |
  sort -zu | xargs -0r git add -A --
