#!/usr/bin/env bash
# Installs the C library under PREFIX: lib/libfanotb.so.VERSION with its SONAME link,
# lib/libfanotb.a, include/fanotb.h and lib/pkgconfig/fanotb.pc.
#   scripts/install-c.sh PREFIX      then: pkg-config --cflags --libs fanotb
set -euo pipefail
prefix=$(realpath -m "${1:?usage: scripts/install-c.sh PREFIX}")
cd "$(dirname "$0")/.."
cargo build --release --quiet --lib
version=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
major=${version%%.*}
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
install -m 644 src/ffi/fanotb.h "$prefix/include/"
install -m 755 target/release/libfanotb.so "$prefix/lib/libfanotb.so.$version"
ln -sf "libfanotb.so.$version" "$prefix/lib/libfanotb.so.$major"
ln -sf "libfanotb.so.$major" "$prefix/lib/libfanotb.so"
install -m 644 target/release/libfanotb.a "$prefix/lib/"
cat >"$prefix/lib/pkgconfig/fanotb.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: fanotb
Description: Fanorona endgame tables: probes from C
Version: $version
Libs: -L\${libdir} -lfanotb
Libs.private: -lm -lpthread -ldl
Cflags: -I\${includedir}
PC
echo "installed fanotb $version under $prefix"
