/* fanotb: C interface to Fanorona endgame tables (see src/ffi.rs).
 * Link with -lfanotb (target/release/libfanotb.so).
 * Positions are position text, e.g. "9/9/3B5/9/WW7 w". */
#ifndef FANOTB_H
#define FANOTB_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FANOTB_OK 0
#define FANOTB_EARG (-1)      /* null pointer or non-UTF-8 string */
#define FANOTB_EPOSITION (-2) /* malformed position text */
#define FANOTB_ETABLE (-3)    /* table missing or damaged, position not covered */
#define FANOTB_ESPACE (-4)    /* buffer too small */

typedef struct fanotb_tablebase fanotb_tablebase;

/* Opens a table directory; NULL on failure. Thread-safe handle. */
fanotb_tablebase *fanotb_open(const char *dir);
void fanotb_close(fanotb_tablebase *tb);
/* value: 1 win, 0 draw, -1 loss for the side to move; depth in plies, -1 for a draw. */
int fanotb_probe(const fanotb_tablebase *tb, const char *position, int *value, int *depth);
/* The best move in notation, NUL-terminated; "" when the side to move has no move. */
int fanotb_best_move(const fanotb_tablebase *tb, const char *position, char *buf, size_t len);
/* Why the last call on this thread failed. */
const char *fanotb_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
