/* specs.c - stubs narrowed by specifications of the drivers they stand in for.
 *
 * adc_sample and queue_push are implemented elsewhere; their definitions here, marked
 * __rtt_extern(), only state what the real functions require and promise. pytest-ctgen
 * stubs every call of them with values the specification allows, so a branch only an
 * impossible driver result could take is reported unreachable, and a call that breaks a
 * driver's precondition becomes a failing case. In an ordinary build (ctgen.h) the
 * annotations are no-ops and these definitions are dummies not to be linked. */
#include <stdint.h>
#include "ctgen.h"

#define ADC_CHANNELS    8u
#define ADC_FULL_SCALE  4095u   /* 12-bit converter */
#define QUEUE_DEPTH     16

int32_t g_queued;               /* elements in the transmit queue */

uint16_t adc_sample(uint8_t channel)
{
    __rtt_extern();
    __rtt_precondition(channel < ADC_CHANNELS);
    __rtt_postcondition(__rtt_return <= ADC_FULL_SCALE);
    return 0u;
}

int queue_push(uint8_t item)
{
    __rtt_extern();
    __rtt_modifies(g_queued);
    __rtt_precondition(g_queued < QUEUE_DEPTH);
    __rtt_postcondition(__rtt_return == 0 ? g_queued == __rtt_initial(g_queued) + 1
                                          : g_queued == __rtt_initial(g_queued));
    return 0;
}

/* Millivolts at a 3300 mV reference; -1 for a bad channel. */
int32_t channel_millivolts(uint8_t channel)
{
    uint16_t raw;
    if (channel >= ADC_CHANNELS) {
        return -1;
    }
    raw = adc_sample(channel);
    if (raw > ADC_FULL_SCALE) {         /* the converter cannot deliver this: unreachable */
        return -2;
    }
    if (raw >= ADC_FULL_SCALE - 5u) {   /* within 5 LSB of the rail: saturated */
        return 3300;
    }
    return (int32_t)((uint32_t)raw * 3300u / ADC_FULL_SCALE);
}

/* Queues a two-byte frame: 0 when both bytes are queued, else how far it got. */
int send_pair(uint8_t first, uint8_t second)
{
    if (g_queued > QUEUE_DEPTH - 2) {
        return -1;                      /* no room for two */
    }
    if (queue_push(first) != 0) {
        return 1;
    }
    if (queue_push(second) != 0) {
        return 2;
    }
    return 0;
}
