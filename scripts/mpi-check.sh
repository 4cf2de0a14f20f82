#!/usr/bin/env bash
# The distributed generator (MPI) against the single-machine one:
# - `mpirun -np 2` and `-np 4 fanotb generate --distributed` write tables
#   byte-identical to `fanotb generate` (files and depth sidecars), for tsivy up to
#   MAX stones (default 6), the whole 3x3 board and 5x3 up to 6 stones;
# - a rank killed mid-build ends the job with an error, and the same command run
#   again skips the pairs already written and finishes to the same bytes;
# - a rank that fails (here rank 0: the directory is held by another build) prints
#   its error and aborts the whole job.
#   scripts/mpi-check.sh [MAX]
# Needs Open MPI and libclang (Debian: openmpi-bin libopenmpi-dev libclang-dev).
set -euo pipefail
max=${1:-6}
cd "$(dirname "$0")/.."
cargo build --release --features mpi --quiet
bin=$PWD/target/release/fanotb
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
work=$(mktemp -d /tmp/fanotb-mpi.XXXX)
trap 'rm -rf "$work"' EXIT
same() {
  if ! diff -r -x .fanotb.lock "$1" "$2" >/dev/null; then
    echo "FAIL: $2 differs from $1" >&2
    diff -rq -x .fanotb.lock "$1" "$2" >&2 || true
    exit 1
  fi
}

for case in "tsivy $max" "3x3 9" "5x3 6"; do
  read -r board n <<<"$case"
  $bin generate --board "$board" --max-stones "$n" --dir "$work/single-$board" --json >/dev/null
  for np in 2 4; do
    start=$(date +%s%N)
    "${mpirun[@]}" -np $np "$bin" generate --board "$board" --max-stones "$n" \
      --dir "$work/np$np-$board" --distributed --threads 1 --json >/dev/null
    same "$work/single-$board" "$work/np$np-$board"
    ms=$((($(date +%s%N) - start) / 1000000))
    printf 'ok: %s up to %s stones on %s ranks: %s files byte-identical (%d ms)\n' "$board" "$n" \
      $np "$(find "$work/np$np-$board" -name '*.fntb' -o -name '*.depths' | wc -l)" "$ms"
  done
done

# Kill rank 1 once the first pairs are written: the job must end, with an error.
dir=$work/killed
"${mpirun[@]}" -np 2 "$bin" generate --max-stones 5 --dir "$dir" --distributed --threads 1 \
  --json >"$work/killed.out" 2>"$work/killed.err" &
job=$!
for _ in $(seq 1200); do [ -e "$dir/9x5/2v2.fntb" ] && break; sleep 0.05; done
ranks=($(pgrep -f "^$bin generate .*--dir $dir"))
[ ${#ranks[@]} = 2 ] || { echo "FAIL: expected 2 rank processes, found ${#ranks[@]}" >&2; exit 1; }
kill -9 "${ranks[1]}"
if wait $job; then
  echo "FAIL: the job went on after a rank was killed" >&2
  exit 1
fi
# Tables of complete pairs (a pair killed between its two tables is built again).
before=0
for f in "$dir"/9x5/*.fntb; do
  s=$(basename "$f" .fntb)
  [ -e "$dir/9x5/${s#*v}v${s%v*}.fntb" ] && before=$((before + 1))
done
grep -q "signal 9" "$work/killed.err" || { cat "$work/killed.err" >&2; exit 1; }
echo "ok: a killed rank ends the job ($(grep -m1 'signal 9' "$work/killed.err" | sed 's/^ *//'))"
"${mpirun[@]}" -np 2 "$bin" generate --max-stones 5 --dir "$dir" --distributed --threads 1 \
  --json >"$work/resumed.json"
skipped=$(grep -o '"skipped": true' "$work/resumed.json" | wc -l)
[ "$skipped" = "$before" ] || { echo "FAIL: $before tables were written, $skipped skipped" >&2; exit 1; }
$bin generate --max-stones 5 --dir "$work/single5" --json >/dev/null
same "$work/single5" "$dir"
echo "ok: run again, it skipped the $before tables written and finished byte-identical"

# A rank that fails aborts the job with its error.
dir=$work/busy
mkdir -p "$dir"
flock "$dir/.fanotb.lock" sleep 60 &
holder=$!
sleep 0.2
if "${mpirun[@]}" -np 2 "$bin" generate --max-stones 3 --dir "$dir" --distributed \
  --threads 1 >/dev/null 2>"$work/busy.err"; then
  echo "FAIL: the job ran in a directory held by another build" >&2
  exit 1
fi
kill $holder
grep -q "error: rank 0: .* is in use by another process" "$work/busy.err" || { cat "$work/busy.err" >&2; exit 1; }
echo "ok: a failing rank aborts the job: $(grep -m1 'error: rank 0' "$work/busy.err")"
