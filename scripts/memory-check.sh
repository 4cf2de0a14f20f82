#!/usr/bin/env bash
# Measures the peak memory of building one signature pair (its smaller tables built
# first, in the same directory) against the bound the generator promises for it.
# Fails when the measured peak exceeds it. The peak is the kernel's (/usr/bin/time
# %M): the generator restarts that count when the pair starts, at the memory it
# holds then, which its bound includes.
#   scripts/memory-check.sh [SIGNATURE] [DIR]        default 2v4 (a mid-sized pair)
set -euo pipefail
sig=${1:-2v4}
dir=${2:-$(mktemp -d /tmp/fanotb-mem.XXXX)}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/fanotb
# The dependencies, in their own process so they do not count.
stones=$(( ${sig%v*} + ${sig#*v} - 1 ))
$bin generate --max-stones "$stones" --dir "$dir" --json >/dev/null
rm -f "$dir/9x5/$sig.fntb" "$dir/9x5/${sig#*v}v${sig%v*}.fntb"
out=$(mktemp)
/usr/bin/time -f '%M' -o "$out.time" $bin generate --signature "$sig" --dir "$dir" --json >"$out"
peak_kib=$(cat "$out.time")
bound=$(python3 -c "import json,sys; t=json.load(open('$out'))['tables']; print(max(x['memory_bound'] for x in t if not x['skipped']))")
entries=$(python3 -c "import json; t=json.load(open('$out'))['tables']; print(sum(x['entries'] for x in t if not x['skipped']))")
peak=$((peak_kib * 1024))
echo "pair $sig: $entries entries, measured peak $peak bytes ($((peak / 1048576)) MiB), bound $bound bytes ($((bound / 1048576)) MiB), $(python3 -c "print(f'{$peak/$entries:.2f}')") bytes per entry"
rm -f "$out" "$out.time"
if [ "$peak" -gt "$bound" ]; then
  echo "FAIL: the peak exceeds the bound"
  exit 1
fi
echo "ok: within the bound"
