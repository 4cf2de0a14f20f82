#!/usr/bin/env bash
# Adds the tables under each table directory DIR to docs/MANIFEST.tsv, the checksums
# users check their tables against (`fanotb verify --manifest`). Its rows of tables
# not under any DIR are kept, and a table already listed must be the same file
# (tables are deterministic), so the manifest of more tables than one machine holds
# at once is made a few builds at a time, on any machine, by one fanotb version.
#   scripts/manifest.sh DIR...
# The sets it lists, and the commands that build them into DIR:
#   tsivy up to 8 stones with the vela tables   scripts/build-8.sh DIR (about 2 h)
#   dimy up to 9 stones                         fanotb generate --board dimy --max-stones 9 --dir DIR
#   3x3, 5x3, 3x5, 7x3, 3x7 whole               fanotb solve --all-small --dir DIR (7x3 and 3x7: about an hour)
# Only `*.fntb` files are listed.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/manifest.sh DIR..." >&2; exit 2; }
cd "$(dirname "$0")/.."
cargo build --release --quiet
manifest=docs/MANIFEST.tsv
for dir in "$@"; do
  if [ -f "$manifest" ]; then
    target/release/fanotb manifest --dir "$dir" --update "$manifest" >"$manifest.tmp"
  else
    target/release/fanotb manifest --dir "$dir" >"$manifest.tmp"
  fi
  mv "$manifest.tmp" "$manifest"
done
echo "$manifest: $(grep -vc '^#' "$manifest") tables"
