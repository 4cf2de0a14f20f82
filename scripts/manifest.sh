#!/usr/bin/env bash
# Writes docs/MANIFEST.tsv, the checksums users check their tables against
# (`fanotb verify --manifest`): every tsivy table up to 8 stones with the vela tables
# in its vela/ (`fanotb generate --board tsivy --vela --max-stones 8`), every dimy
# table up to 9 stones, and the small boards' tables (3x3, 5x3, 3x5 whole; 7x3 and
# 3x7 with WITH_7=1, about 40 minutes each), from the directories that hold them.
#   scripts/manifest.sh TSIVY_DIR OTHER_DIR
# TSIVY_DIR holds the tsivy tables (scripts/build-8.sh TSIVY_DIR builds them, about
# two hours); OTHER_DIR gets the dimy and small boards' tables, built here if missing
# (generate and solve skip what is complete). Only `*.fntb` files are listed.
set -euo pipefail
tsivy=${1:?usage: scripts/manifest.sh TSIVY_DIR OTHER_DIR}
other=${2:?usage: scripts/manifest.sh TSIVY_DIR OTHER_DIR}
cd "$(dirname "$0")/.."
cargo build --release --quiet
fanotb=target/release/fanotb
"$fanotb" generate --board dimy --max-stones 9 --dir "$other" >/dev/null
boards=(3x3 5x3 3x5)
[ "${WITH_7:-0}" = 1 ] && boards+=(7x3 3x7)
for b in "${boards[@]}"; do
  "$fanotb" solve "$b" --dir "$other" >/dev/null
done
# One directory of links to every board's tables, so that one manifest lists them.
all=$(mktemp -d)
trap 'rm -rf "$all"' EXIT
ln -s "$(realpath "$tsivy")/9x5" "$all/9x5"
for b in "$other"/*/; do
  name=$(basename "$b")
  [ "$name" = 9x5 ] || ln -s "$(realpath "$b")" "$all/$name"
done
"$fanotb" manifest --dir "$all" > docs/MANIFEST.tsv.tmp
mv docs/MANIFEST.tsv.tmp docs/MANIFEST.tsv
echo "docs/MANIFEST.tsv: $(grep -vc '^#' docs/MANIFEST.tsv) tables"
