/* debounce.c - push-button debouncer sampled from a 1 ms timer tick: the output
 * changes only after DEB_THRESHOLD consecutive equal raw samples.  State lives in
 * globals, the run length in a static global; a static local counts calls. */
#include <stdint.h>
#include <stdbool.h>

#define DEB_THRESHOLD 4u

bool g_raw_prev;                /* last raw sample */
bool g_stable;                  /* debounced level */
uint16_t g_edges;               /* debounced changes, wraps at 65536 */
uint8_t g_presses;              /* rising debounced edges, saturates */
uint32_t g_deb_calls;           /* copy of the static call counter */
static uint8_t s_run;           /* consecutive samples equal to g_raw_prev */

bool debounce_update(bool raw)
{
    static uint32_t s_calls;    /* statistics only, never tested */

    s_calls++;
    g_deb_calls = s_calls;
    if (raw != g_raw_prev) {
        g_raw_prev = raw;
        s_run = 0u;
        return g_stable;
    }
    if (s_run < DEB_THRESHOLD) {
        s_run++;
    }
    if (s_run >= DEB_THRESHOLD && raw != g_stable) {
        g_stable = raw;
        g_edges++;
        if (raw && g_presses != UINT8_MAX) {
            g_presses++;
        }
    }
    return g_stable;
}

/* Feed up to 8 samples, LSB first; returns how many debounced changes occurred. */
uint8_t debounce_feed(uint8_t bits, uint8_t n)
{
    uint8_t changes = 0u;
    uint8_t i;

    if (n > 8u) {
        n = 8u;
    }
    for (i = 0u; i < n; i++) {
        bool before = g_stable;

        if (debounce_update((bits >> i) & 1u) != before) {
            changes++;
        }
    }
    return changes;
}

/* Force a level, e.g. after power-up; no branches. */
void debounce_reset(bool level)
{
    g_raw_prev = level;
    g_stable = level;
    s_run = (uint8_t)DEB_THRESHOLD;
}

/* Samples still needed before the current raw level could be accepted. */
uint8_t debounce_pending(void)
{
    if (g_raw_prev == g_stable) {
        return 0u;
    }
    return (s_run >= DEB_THRESHOLD) ? 0u : (uint8_t)(DEB_THRESHOLD - s_run);
}
