#!/usr/bin/env bash
# Builds every tsivy table of up to 8 stones (telo noho dimy 3v5/5v3 first, then 4v4,
# 2v6/6v2, 1v7/7v1), then the vela tables up to 8 stones (DIR/9x5/vela/: 6v1, 6v2, 7v1
# and their opposites), in the background, logging to DIR/build-8.log. Run it again
# after an interruption: complete tables are kept, and a pair in progress resumes
# from its last checkpoint.
# It runs at low priority (nice 10) so the machine stays usable meanwhile.
#   scripts/build-8.sh [DIR]         (default ./tables)
#   tail -f DIR/build-8.log          (progress; each table's line gives its pair's
#                                      time, peak memory and the bound it kept to)
set -euo pipefail
dir=${1:-tables}
cd "$(dirname "$0")/.."
cargo build --release --quiet
mkdir -p "$dir"
log="$dir/build-8.log"
nohup nice -n 10 /usr/bin/time -f 'wall %e s' bash -c "
  target/release/fanotb generate --board tsivy --signature 3v5 4v4 2v6 1v7 --dir '$dir' &&
  target/release/fanotb generate --board tsivy --vela --max-stones 8 --dir '$dir'" \
  >>"$log" 2>&1 &
echo "building in the background (pid $!); progress: tail -f $log"
