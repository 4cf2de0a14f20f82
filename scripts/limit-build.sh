#!/usr/bin/env bash
# Builds the rule-aware tsivy tables up to MAX_STONES for the no-capture limit LIMIT,
# resting on the complete plain tables of PLAIN_DIR (linked, not copied), and at the
# same time the plain tables afresh, one thread each: the two builds are compared in
# one run on the same machine. Prints each build's total line (time, peak memory,
# disk) and wall time, then every rule-aware table's counts, cursed wins, blessed
# losses and largest T. Run it again with another LIMIT and the same WORK to add
# those tables (then only the rule-aware build runs, on every core).
#   scripts/limit-build.sh MAX_STONES LIMIT PLAIN_DIR [WORK]
set -euo pipefail
n=${1:?usage: scripts/limit-build.sh MAX_STONES LIMIT PLAIN_DIR [WORK]}
limit=${2:?no-capture limit}
plain=${3:?a directory with the plain tables}
work=${4:-$(mktemp -d /tmp/fanotb-limit-$n.XXXX)}
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/fanotb
mkdir -p "$work"
cd "$work"
if [ ! -d rules/9x5 ]; then
  mkdir -p rules
  cp -al "$plain/9x5" rules/9x5
  echo "plain tables afresh and rule-aware tables for N = $limit, up to $n stones, one thread each, in $work"
  ( /usr/bin/time -f 'plain: wall %e s' "$bin" generate --max-stones "$n" --threads 1 --dir plain \
      > plain.log 2> plain.err; tail -1 plain.err ) &
  /usr/bin/time -f "n$limit: wall %e s" "$bin" generate --max-stones "$n" --threads 1 \
    --no-capture-limit "$limit" --dir rules > "n$limit.log" 2> "n$limit.err"
  tail -1 "n$limit.err"
  wait
  echo "plain:  $(grep '^total' plain.log)"
  echo "  disk $(du -sb plain/9x5 | cut -f1) bytes"
else
  echo "rule-aware tables for N = $limit, up to $n stones, in $work"
  /usr/bin/time -f "n$limit: wall %e s" "$bin" generate --max-stones "$n" \
    --no-capture-limit "$limit" --dir rules > "n$limit.log" 2> "n$limit.err"
  tail -1 "n$limit.err"
fi
echo "n$limit: $(grep '^total' "n$limit.log") (the plain phase skipped: every plain table was there)"
echo "  disk $(du -sb "rules/9x5/n$limit" | cut -f1) bytes"
"$bin" stats --dir rules | awk -v t="n$limit/" 'NR == 1 || index($2, t) == 1 || /^rule-aware/ || /^board  table  +cursed/'
