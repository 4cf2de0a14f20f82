#!/usr/bin/env bash
# Runs each fuzz target of fuzz/ for SECONDS (default 60), or for RUNS inputs when
# RUNS is set, seeded from fuzz/corpus/TARGET (new inputs go to fuzz/work/TARGET,
# not committed), with a 2 GB memory limit (so a large allocation is a finding) and
# a 10 s timeout per input (a hang is a finding). Stable Rust is enough: the crate
# is safe Rust outside its C ABI, so the targets run without a sanitizer (-s none).
#   scripts/fuzz.sh [SECONDS] [TARGET...]        RUNS=1000000 scripts/fuzz.sh 0 query
# Needs cargo-fuzz (installed here from crates.io if missing) and a C++ compiler
# for libFuzzer.
set -euo pipefail
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
secs=${1:-60}
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(position play table certificate pack query record)
if [ -n "${RUNS:-}" ]; then budget=(-runs="$RUNS"); else budget=(-max_total_time="$secs"); fi
cd "$(dirname "$0")/../fuzz"
for t in "${targets[@]}"; do
  if [ -n "${RUNS:-}" ]; then echo "== $t: $RUNS runs"; else echo "== $t: $secs s"; fi
  mkdir -p "work/$t"
  cargo fuzz run -s none -O "$t" "work/$t" "corpus/$t" -- \
    "${budget[@]}" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 2>&1 | grep -E '^(stat::|==|INFO: (Running|Seed)|SUMMARY|Done)|panicked|ERROR' || true
  [ ! -d artifacts/"$t" ] || [ -z "$(ls -A artifacts/"$t")" ] || { echo "$t: findings in fuzz/artifacts/$t"; exit 1; }
done
