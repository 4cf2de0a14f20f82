#!/usr/bin/env bash
# The Python package from a fresh clone: lints the binding crate, installs
# ./python (with pytest and fanorona-aec) into a new venv, runs its tests against
# the command line's JSON (target/release/fanotb, built first), and plays a few
# endgames of the fanorona-aec example both ways.
#   scripts/python-check.sh [GAMES]
set -euo pipefail
games=${1:-40}
cd "$(dirname "$0")/.."
cargo build --release --quiet
# --locked: a Cargo.lock out of date fails here rather than in a user's clone.
(cd python && cargo fmt --check && cargo clippy --release --locked --quiet -- -D warnings)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "./python[test,aec]"
FANOTB_CLI=$PWD/target/release/fanotb "$work/venv/bin/python" -m pytest -q python/tests
target/release/fanotb generate --max-stones 4 --dir "$work/tables" --json >/dev/null
for opponent in random tables; do
  "$work/venv/bin/python" -W ignore python/examples/aec_endgames.py "$work/tables" \
    --games "$games" --stones 4 --opponent "$opponent"
done
