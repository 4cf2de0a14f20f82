# Sourced by scripts/compare-pair.sh and scripts/count-pair.sh, not run: the
# directories in which a tsivy signature pair is built alone, and their comparison.

# pair_sides SIG: the pair's signatures, one a line (one for a pair like 4v4).
pair_sides() {
  local us=${1%v*} them=${1#*v}
  echo "${us}v$them"
  [ "$us" = "$them" ] || echo "${them}v$us"
}

# pair_dir DIR TABLES SIG: DIR made afresh, the smaller tables of TABLES linked in,
# the pair's own absent.
pair_dir() {
  local dir=$1 tables=$2 sig=$3 f
  local sides
  sides=$(pair_sides "$sig")
  rm -rf "$dir"
  mkdir -p "$dir/9x5"
  for f in "$tables"/9x5/*.fntb "$tables"/9x5/*.depths "$tables"/9x5/*.classes; do
    grep -qx "$(basename "${f%.*}")" <<<"$sides" && continue
    ln -s "$f" "$dir/9x5/"
  done
}

# pair_same OLD NEW SIG: one line a file of the pair (tables and depth sidecars):
# whether the two directories hold the same bytes. Fails if any differs.
pair_same() {
  local old=$1 new=$2 sig=$3 s ext f differ=0
  for s in $(pair_sides "$sig"); do
    for ext in fntb depths; do
      f=9x5/$s.$ext
      [ -e "$old/$f" ] || [ -e "$new/$f" ] || continue
      if cmp -s "$old/$f" "$new/$f"; then
        echo "$f: the same bytes"
      else
        echo "$f: DIFFERENT bytes"
        differ=1
      fi
    done
  done
  return "$differ"
}
