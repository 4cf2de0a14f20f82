#!/usr/bin/env bash
# Installs the C library into a temporary prefix, compiles examples/c/probe.c with
# pkg-config against the shared and the static library, and runs both on a position:
# an example of the C ABI, and a check that the header, the library and the
# pkg-config file agree. Without a table directory it builds the tsivy tables up to
# 3 stones, plain and for the no-capture limit 20, into a temporary one, and then
# its output must be what docs/guide/api.md shows.
#   scripts/c-probe.sh [TABLES_DIR] [POSITION] [LIMIT [COUNTER]]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${1:-}
pos=${2:-9/9/3B5/9/WW7 w}
limits=("${@:3}")
if [ -z "$dir" ]; then
  dir="$tmp/tables"
  cargo run --release --quiet -- generate --max-stones 3 --no-capture-limit 20 --dir "$dir" >/dev/null 2>&1
  limits=(20 3)
fi
scripts/install-c.sh "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
gcc -Wall -Wextra -Werror examples/c/probe.c $(pkg-config --cflags --libs fanotb) -o "$tmp/probe"
gcc -Wall -Wextra -Werror examples/c/probe.c $(pkg-config --cflags fanotb) \
  "$tmp/prefix/lib/libfanotb.a" $(pkg-config --libs-only-l --static fanotb | sed 's/-lfanotb//') \
  -o "$tmp/probe-static"
readelf -d "$tmp/prefix/lib/libfanotb.so" | grep -q 'SONAME.*libfanotb\.so\.0'
{
  LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/probe" "$dir" "$pos" "${limits[@]}"
  "$tmp/probe-static" "$dir" "$pos" "${limits[@]}" >/dev/null
  echo "static build: same run ok"
  # The shared library as cargo built it, without installing: the SONAME's link is
  # there beside it.
  gcc -Wall -Wextra -Werror examples/c/probe.c -I src/ffi -L target/release -lfanotb -o "$tmp/probe-built"
  LD_LIBRARY_PATH=target/release "$tmp/probe-built" "$dir" "$pos" "${limits[@]}" >/dev/null
  echo "target/release build: same run ok"
} | tee "$tmp/out"
if [ $# -eq 0 ]; then
  awk '/^\$ scripts\/c-probe.sh$/ { on = 1; next } on && /^```/ { exit } on' docs/guide/api.md |
    diff - "$tmp/out" >&2 || { echo "docs/guide/api.md shows other output than this" >&2; exit 1; }
fi
