/* fanotb: C interface to Fanorona endgame tables (see src/ffi.rs).
 *
 * Link with -lfanotb (target/release/libfanotb.so, or libfanotb.a with -lm -lpthread
 * -ldl), or use pkg-config after scripts/install-c.sh.
 *
 * Positions are position text ("9/9/3B5/9/WW7 w", rows from the top, W/B stones,
 * digits for empty runs, then the side to move) or stone bitboards: bit y*W + x is
 * the point (x, y), a1 is bit 0. Values are for the side to move: 1 win, 0 draw,
 * -1 loss; depths are plies to the end with best play, -1 for a draw.
 *
 * Every function but fanotb_open, fanotb_close, fanotb_version and
 * fanotb_last_error returns FANOTB_OK or a negative FANOTB_E* code; then
 * fanotb_last_error() says why. No panic crosses the boundary.
 *
 * Threads: a handle may be used from any number of threads at once. It must not be
 * closed while another thread uses it. Table files are memory-mapped: they must not
 * be truncated or rewritten in place while a handle is open (replacing them by
 * renaming is safe). */
#ifndef FANOTB_H
#define FANOTB_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FANOTB_OK 0
#define FANOTB_EARG (-1)      /* null pointer, non-UTF-8 string, unsupported board size */
#define FANOTB_EPOSITION (-2) /* malformed position text, stones off the board or overlapping */
#define FANOTB_EDAMAGED (-3)  /* a table file is damaged or cannot be read */
#define FANOTB_ESPACE (-4)    /* buffer too small */
#define FANOTB_EMISSING (-5)  /* no table in the directory covers the position */
#define FANOTB_EOVER (-6)     /* the game is over: a side has no stones */
#define FANOTB_EPANIC (-7)    /* internal error (a bug): the call was abandoned */

#define FANOTB_MOVE_LEN 64

typedef struct fanotb_tablebase fanotb_tablebase;

/* One root move's result, for the side making it (depth counts the move). */
typedef struct fanotb_root_move {
    char notation[FANOTB_MOVE_LEN]; /* NUL-terminated, e.g. "d2-e3A" */
    int value;                      /* 1 win, 0 draw, -1 loss */
    int depth;                      /* plies, -1 for a draw */
} fanotb_root_move;

/* Opens a table directory; NULL on failure. The caller owns the handle and frees it
 * with fanotb_close. */
fanotb_tablebase *fanotb_open(const char *dir);
/* Closes a handle, releasing its tables, when no other thread uses it. NULL and a
 * closed handle are ignored. A closed handle keeps a few bytes so that any later
 * call with it fails with FANOTB_EARG ("closed") instead of undefined behaviour. */
void fanotb_close(fanotb_tablebase *tb);

/* Value and depth, or the value only (reads only the tables' value stream). */
int fanotb_probe(const fanotb_tablebase *tb, const char *position, int *value, int *depth);
int fanotb_probe_wdl(const fanotb_tablebase *tb, const char *position, int *value);
/* The same from bitboards; black_to_move is 0 or 1. */
int fanotb_probe_bb(const fanotb_tablebase *tb, int width, int height, uint64_t white,
                    uint64_t black, int black_to_move, int *value, int *depth);
int fanotb_probe_wdl_bb(const fanotb_tablebase *tb, int width, int height, uint64_t white,
                        uint64_t black, int black_to_move, int *value);

/* Every legal move with its result, best first, into moves[0..cap); *count is the
 * number of legal moves. If cap is smaller, only *count is written and the status is
 * FANOTB_ESPACE: call again with room for *count. */
int fanotb_probe_root(const fanotb_tablebase *tb, const char *position,
                      fanotb_root_move *moves, size_t cap, size_t *count);
/* The best move in notation, NUL-terminated, into buf of len bytes; "" when the side
 * to move has stones but no move. */
int fanotb_best_move(const fanotb_tablebase *tb, const char *position, char *buf, size_t len);

/* Under the no-capture limit `limit` (1 to 250 plies), `counter` plies (0 to the
 * limit) after the last capture, from the rule-aware tables (generate
 * --no-capture-limit): *value at that counter; *plies_to_capture T, the plies to the
 * next capture that keeps a win or loss (-1 for a draw at counter 0); *cursed 1 for
 * a cursed win or blessed loss (drawn under the limit, decided without it). A limit
 * or counter out of range is FANOTB_EARG. */
int fanotb_probe_limited(const fanotb_tablebase *tb, const char *position, int limit,
                         int counter, int *value, int *plies_to_capture, int *cursed);
int fanotb_probe_limited_bb(const fanotb_tablebase *tb, int width, int height,
                            uint64_t white, uint64_t black, int black_to_move, int limit,
                            int counter, int *value, int *plies_to_capture, int *cursed);
/* Root moves under the limit: each move's value at the counter it leads to (0 after
 * a capture, counter + 1 after a paika), depth = plies to the next capture counting
 * the move (-1 for a draw); no move once the counter has reached the limit. */
int fanotb_probe_root_limited(const fanotb_tablebase *tb, const char *position, int limit,
                              int counter, fanotb_root_move *moves, size_t cap,
                              size_t *count);
/* The best move under the limit: a winner captures soonest, a loser delays most. */
int fanotb_best_move_limited(const fanotb_tablebase *tb, const char *position, int limit,
                             int counter, char *buf, size_t len);

/* Value and depth under vela (docs/RULES.md, "Vela"), from the vela tables (generate
 * --vela) while the vela holds: vela 0 when White plays vela, 1 when Black does;
 * lost the stones the vela side has lost so far, or -1 for those it is missing from
 * its start. Outputs as fanotb_probe; a vela no table values is FANOTB_EARG. */
int fanotb_probe_vela(const fanotb_tablebase *tb, const char *position, int vela, int lost,
                      int *value, int *depth);

/* The largest N such that every table of the width x height board with at most N
 * stones is present (0 if none); negative on failure. */
int fanotb_largest(const fanotb_tablebase *tb, int width, int height);

/* The library version, a static string. */
const char *fanotb_version(void);
/* Why the last call on this thread failed: a string owned by the library, valid until
 * the next call on this thread. Do not free it. */
const char *fanotb_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
