#!/usr/bin/env bash
# Checks every lemma of DIR that git does not track yet (the ones a proof run wrote
# since the last commit) with `fanotb check-proof`, two at a time, before they are
# committed. Prints each failure and how many passed; exits non-zero if any failed,
# else stages exactly the lemmas it checked, with DIR/tree.tsv, for `git commit`
# (a run still going on writes more meanwhile: they wait for the next check).
#   scripts/check-new-lemmas.sh TABLES [DIR=proofs/tsivy/lemmas]
set -euo pipefail
tables=${1:?usage: scripts/check-new-lemmas.sh TABLES [DIR]}
dir=${2:-proofs/tsivy/lemmas}
cd "$(dirname "$0")/.."
cargo build --release --quiet
fanotb=$PWD/target/release/fanotb
list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files --others --exclude-standard -- "$dir" | grep '\.fnlemma$' >"$list" || true
total=$(wc -l <"$list")
# shellcheck disable=SC2016
failed=$(xargs -r -P2 -I{} sh -c '"$1" check-proof "$2" --lemmas "$3" --dir "$4" >/dev/null 2>&1 || echo "FAILED $2"' \
  _ "$fanotb" {} "$dir" "$tables" <"$list")
[ -z "$failed" ] || echo "$failed"
echo "$((total - $(printf '%s' "$failed" | grep -c FAILED || true))) of $total new lemmas checked"
[ -z "$failed" ] || exit 1
xargs -r git add -- <"$list"
[ ! -f "$dir/tree.tsv" ] || git add -- "$dir/tree.tsv"
