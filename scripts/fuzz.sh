#!/usr/bin/env bash
# Runs each fuzz target of fuzz/ for SECONDS (default 60) on the nightly toolchain,
# seeded from fuzz/corpus/TARGET (new inputs go to fuzz/work/TARGET, not committed),
# with a 2 GB memory limit (so a large allocation
# is a finding) and a 10 s timeout per input (a hang is a finding).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs: rustup toolchain nightly, cargo install cargo-fuzz.
set -euo pipefail
secs=${1:-60}
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(position play table)
cd "$(dirname "$0")/../fuzz"
for t in "${targets[@]}"; do
  echo "== $t: $secs s"
  mkdir -p "work/$t"
  cargo +nightly fuzz run "$t" "work/$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 2>&1 | grep -E '^(stat::|==|INFO: (Running|Seed)|SUMMARY|Done)|panicked|ERROR' || true
  [ ! -d artifacts/"$t" ] || [ -z "$(ls -A artifacts/"$t")" ] || { echo "$t: findings in fuzz/artifacts/$t"; exit 1; }
done
