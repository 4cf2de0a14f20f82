#!/usr/bin/env bash
# Compiles a small C program against src/fanotb.h and libfanotb, and probes a position:
# an example of the C ABI and a check that the header matches the library.
#   scripts/c-probe.sh [TABLES_DIR] [POSITION]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-tables}
pos=${2:-9/9/B8/9/3WW3B w}
cargo build --release --quiet --lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.c" <<'C'
#include <stdio.h>
#include "fanotb.h"

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: probe DIR POSITION\n"); return 2; }
    fanotb_tablebase *tb = fanotb_open(argv[1]);
    if (!tb) { fprintf(stderr, "open: %s\n", fanotb_last_error()); return 1; }
    int value, depth;
    if (fanotb_probe(tb, argv[2], &value, &depth) != FANOTB_OK) {
        fprintf(stderr, "probe: %s\n", fanotb_last_error());
        fanotb_close(tb);
        return 1;
    }
    char best[64];
    if (fanotb_best_move(tb, argv[2], best, sizeof best) != FANOTB_OK) {
        fprintf(stderr, "best move: %s\n", fanotb_last_error());
        fanotb_close(tb);
        return 1;
    }
    printf("%s: value %d, depth %d, best move %s\n", argv[2], value, depth, best);
    fanotb_close(tb);
    return 0;
}
C
gcc -Wall -Wextra -Werror -I src "$tmp/probe.c" -L target/release -lfanotb -o "$tmp/probe"
LD_LIBRARY_PATH=target/release "$tmp/probe" "$dir" "$pos"
