#!/usr/bin/env bash
# Builds every tsivy table up to N stones into a fresh directory and prints one line
# per table (signature, positions, seconds, peak memory, bytes), then the totals and
# the wall time. The peak is the generator's own figure, the largest of its pairs:
# it restarts the kernel's peak count for each pair, so /usr/bin/time's %M would
# show only the last pair's.
#   scripts/bench-tables.sh N [DIR] [extra generate flags...]
set -euo pipefail
n=${1:?usage: scripts/bench-tables.sh N [DIR] [generate flags]}
dir=${2:-$(mktemp -d /tmp/fanotb-bench-$n.XXXX)}
shift $(( $# >= 2 ? 2 : 1 ))
cd "$(dirname "$0")/.."
cargo build --release --quiet
rm -rf "$dir"
mkdir -p "$dir"
echo "building all tsivy tables up to $n stones in $dir ($(nproc) cores)"
/usr/bin/time -f 'wall %e s' \
  target/release/fanotb generate --board tsivy --max-stones "$n" --dir "$dir" "$@" 2>&1 |
  grep --line-buffered -v '^\s*$'
echo "disk: $(du -sb "$dir" | cut -f1) bytes in $(ls "$dir"/9x5/*.fntb | wc -l) files"
