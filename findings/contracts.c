/* findings/contracts.c - annotations that do not hold: `pytest --ctgen findings/` fails
 * with the counterexamples the generator finds (see README, "Annotations").
 *
 * window_mid    a postcondition that is wrong for large windows
 * limit_store   writes a global its __rtt_modifies list leaves out, through a pointer
 */
#include <stdint.h>
#include "ctgen.h"

/* The middle of the window [lo, hi]. The sum is kept in 16 bits, so it wraps for large
 * windows and the result leaves the window: the postcondition does not hold. */
uint16_t window_mid(uint16_t lo, uint16_t hi)
{
    uint16_t sum;

    __rtt_precondition(lo <= hi);
    __rtt_postcondition(__rtt_return >= lo && __rtt_return <= hi);

    sum = (uint16_t)(lo + hi);
    return (uint16_t)(sum / 2u);
}

uint16_t channel_limits[4];
uint8_t limits_changed;

/* Stores the limit of a channel. The function may write limits_changed only, but it also
 * writes the table, through a pointer: a __rtt_modifies violation. */
void limit_store(uint8_t channel, uint16_t limit)
{
    uint16_t *slot;

    __rtt_modifies(limits_changed);
    __rtt_precondition(channel < 4u);

    slot = &channel_limits[channel];
    if (*slot != limit) {
        *slot = limit;
        limits_changed = 1u;
    }
}
