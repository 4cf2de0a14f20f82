#!/usr/bin/env bash
# Load test of `fanotb serve`: 16 concurrent clients (wrk, 2 threads) probe random
# tsivy positions of 2 to MAX stones on localhost for SECONDS seconds, after a
# 3-second warm-up; prints wrk's requests per second and latency percentiles.
# Builds the tables up to MAX stones (default 5) when DIR has none; the server keeps
# CACHE_MIB of decompressed blocks in all (default: serve's own, 256).
#   scripts/load-serve.sh [DIR] [SECONDS] [MAX] [CACHE_MIB]
# Needs wrk (Debian: apt-get install wrk) and python3.
set -euo pipefail
dir=${1:-/tmp/fanotb-load}
seconds=${2:-20}
max=${3:-5}
cache=${4:-256}
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
cargo build --release --quiet
bin=target/release/fanotb
$bin generate --board tsivy --max-stones "$max" --dir "$dir" --json >/dev/null

# 20,000 random positions, both sides with stones, either side to move.
export POSITIONS=$dir/load-positions.txt
scripts/random-positions.py "$max" 20000 | sed 's|^|/api/probe?position=|; s| |%20|' >"$POSITIONS"

log=$(mktemp)
$bin serve --dir "$dir" --bind 127.0.0.1:0 --cache-mib "$cache" >"$log" 2>&1 &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q http "$log" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$log")
echo "fanotb serve on $url, tables up to $max stones in $dir, cache $cache MiB in all, $(nproc) cores"
wrk -t2 -c16 -d3s -s scripts/load-serve.lua "$url" >/dev/null
wrk -t2 -c16 -d"${seconds}s" --latency -s scripts/load-serve.lua "$url"
