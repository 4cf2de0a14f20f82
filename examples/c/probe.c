/* A C engine's view of fanotb: probe a position as text and as bitboards, list the
 * root moves, and print the best move; with a no-capture limit, the same under it
 * from the rule-aware tables. Built and run by scripts/c-probe.sh.
 *   probe DIR POSITION [LIMIT [COUNTER]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fanotb.h"

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: probe DIR POSITION [LIMIT [COUNTER]]\n");
        return 2;
    }
    int limit = argc > 3 ? atoi(argv[3]) : 0, counter = argc > 4 ? atoi(argv[4]) : 0;
    printf("fanotb %s\n", fanotb_version());
    fanotb_tablebase *tb = fanotb_open(argv[1]);
    if (!tb) {
        fprintf(stderr, "open: %s\n", fanotb_last_error());
        return 1;
    }
    int status = 1;
    int value, depth;
    if (fanotb_probe(tb, argv[2], &value, &depth) != FANOTB_OK) {
        fprintf(stderr, "probe: %s\n", fanotb_last_error());
        goto done;
    }
    printf("%s: value %d, depth %d\n", argv[2], value, depth);

    size_t count = 0;
    if (fanotb_probe_root(tb, argv[2], NULL, 0, &count) != FANOTB_ESPACE && count > 0) {
        fprintf(stderr, "probe_root: %s\n", fanotb_last_error());
        goto done;
    }
    fanotb_root_move *moves = calloc(count ? count : 1, sizeof *moves);
    if (fanotb_probe_root(tb, argv[2], moves, count, &count) != FANOTB_OK) {
        fprintf(stderr, "probe_root: %s\n", fanotb_last_error());
        free(moves);
        goto done;
    }
    printf("its moves:\n");
    for (size_t i = 0; i < count; i++)
        printf("  %-16s value %2d depth %3d\n", moves[i].notation, moves[i].value, moves[i].depth);
    free(moves);

    char best[FANOTB_MOVE_LEN];
    if (fanotb_best_move(tb, argv[2], best, sizeof best) != FANOTB_OK) {
        fprintf(stderr, "best move: %s\n", fanotb_last_error());
        goto done;
    }
    printf("best move %s\n", best);

    if (limit > 0) {
        int plies, cursed;
        if (fanotb_probe_limited(tb, argv[2], limit, counter, &value, &plies, &cursed) != FANOTB_OK) {
            fprintf(stderr, "probe_limited: %s\n", fanotb_last_error());
            goto done;
        }
        printf("no-capture limit %d, counter %d: value %d, plies to capture %d, cursed %d\n",
               limit, counter, value, plies, cursed);
        fanotb_root_move root[64];
        if (fanotb_probe_root_limited(tb, argv[2], limit, counter, root, 64, &count) != FANOTB_OK) {
            fprintf(stderr, "probe_root_limited: %s\n", fanotb_last_error());
            goto done;
        }
        for (size_t i = 0; i < count; i++)
            printf("  %-16s value %2d plies to capture %3d\n", root[i].notation, root[i].value,
                   root[i].depth);
        if (fanotb_best_move_limited(tb, argv[2], limit, counter, best, sizeof best) != FANOTB_OK) {
            fprintf(stderr, "best move: %s\n", fanotb_last_error());
            goto done;
        }
        printf("best move under the limit %s\n", best);
    }

    /* The board of the position: its rows, and the points of its first row. */
    int width = 0, height = 1;
    for (const char *c = argv[2]; *c && *c != ' '; c++) {
        if (*c == '/')
            height++;
        else if (height == 1)
            width += (*c >= '1' && *c <= '9') ? *c - '0' : 1;
    }
    printf("tables complete up to %d stones on %dx%d\n", fanotb_largest(tb, width, height),
           width, height);

    /* Two white stones on a1 and b1 against one black on d3 on tsivy, White to move,
     * as bitboards (bit 9 * row + column). */
    uint64_t white = (1u << 0) | (1u << 1), black = 1u << (2 * 9 + 3);
    int r = fanotb_probe_wdl_bb(tb, 9, 5, white, black, 0, &value);
    if (r == FANOTB_OK) {
        printf("bitboards a1 b1 v d3 on 9x5, White to move: value %d\n", value);
    } else if (r == FANOTB_EMISSING) {
        printf("bitboards a1 b1 v d3 on 9x5: no such table here\n");
    } else {
        fprintf(stderr, "probe_wdl_bb: %s\n", fanotb_last_error());
        goto done;
    }
    status = 0;
done:
    fanotb_close(tb);
    return status;
}
