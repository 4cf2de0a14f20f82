#!/usr/bin/env bash
# Kills a build with SIGKILL at N random moments, resuming it each time, then
# compares every table with an uninterrupted build: they must be byte-identical.
#   scripts/kill-resume.sh [N] [MAX_STONES] [BOARD]
set -euo pipefail
n=${1:-10}; stones=${2:-5}; board=${3:-tsivy}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/fanotb
work=$(mktemp -d /tmp/fanotb-kill.XXXX)
trap 'rm -rf "$work"' EXIT
/usr/bin/time -f 'clean build: %e s' "$bin" generate --board "$board" --max-stones "$stones" \
  --dir "$work/clean" --json > /dev/null
resumed=0
for i in $(seq "$n"); do
  delay=$(python3 -c "import random; print(round(random.uniform(0.5, 15.0), 2))")
  "$bin" generate --board "$board" --max-stones "$stones" --dir "$work/killed" \
    --checkpoint-minutes 0 --json > /dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null && echo "kill $i after $delay s" || echo "kill $i: already finished"
  wait "$pid" 2>/dev/null || true
  ls "$work/killed"/*/*.pair.ckpt >/dev/null 2>&1 && resumed=$((resumed + 1))
done
"$bin" generate --board "$board" --max-stones "$stones" --dir "$work/killed" --json > "$work/last.json"
grep -o '"resumed_at_depth": [0-9]*' "$work/last.json" || true
echo "kills that left a pair checkpoint: $resumed of $n"
diff -r -x '.fanotb.lock' "$work/clean" "$work/killed" && echo "byte-identical"
