/* lookup.c - NTC thermistor linearisation: a const table of ADC counts (strictly
 * decreasing) against temperatures, a bounds-checked accessor, a recursive
 * binary search for the segment and linear interpolation between the points. */
#include <stdint.h>
#include <stdbool.h>
#include "ctgen.h"

#define NTC_POINTS 9u

static const uint16_t k_ntc_adc[NTC_POINTS] = {
    3900u, 3620u, 3210u, 2700u, 2150u, 1630u, 1190u, 840u, 580u
};
static const int16_t k_ntc_decic[NTC_POINTS] = {   /* tenths of a degree C */
    -400, -250, -100, 50, 200, 350, 500, 650, 800
};

int16_t g_ntc_offset;           /* per-board calibration, tenths of a degree */
uint8_t g_ntc_errors;

/* Table entry idx, or INT16_MIN (and an error count) when out of range. */
int16_t ntc_point(uint8_t idx)
{
    if (idx >= sizeof k_ntc_decic / sizeof k_ntc_decic[0]) {
        g_ntc_errors++;
        return INT16_MIN;
    }
    return k_ntc_decic[idx];
}

/* Segment i with k_ntc_adc[i] >= adc > k_ntc_adc[i + 1], searched in [lo, hi).
 * Recursion depth is at most 4 for 9 points. */
static uint8_t find_segment(uint16_t adc, uint8_t lo, uint8_t hi)
{
    uint8_t mid;

    __rtt_precondition(lo < hi && hi <= NTC_POINTS);  /* its callers' promise */
    if (hi - lo <= 1) {
        return lo;
    }
    mid = (uint8_t)((lo + hi) / 2u);
    if (adc > k_ntc_adc[mid]) {
        return find_segment(adc, lo, mid);
    }
    return find_segment(adc, mid, hi);
}

/* Temperature in tenths of a degree, clamped to the table ends, plus offset. */
int16_t ntc_to_decic(uint16_t adc)
{
    uint8_t i;
    int32_t span_adc;
    int32_t span_t;
    int32_t t;

    if (adc >= k_ntc_adc[0]) {
        t = k_ntc_decic[0];
    } else if (adc <= k_ntc_adc[NTC_POINTS - 1u]) {
        t = k_ntc_decic[NTC_POINTS - 1u];
    } else {
        i = find_segment(adc, 0u, (uint8_t)(NTC_POINTS - 1u));
        span_adc = (int32_t)k_ntc_adc[i] - k_ntc_adc[i + 1u];
        span_t = k_ntc_decic[i + 1u] - k_ntc_decic[i];
        /* both operands positive: adding half the divisor rounds to nearest */
        t = k_ntc_decic[i] + ((int32_t)(k_ntc_adc[i] - adc) * span_t + span_adc / 2) / span_adc;
    }
    t += g_ntc_offset;
    return (int16_t)(t > INT16_MAX ? INT16_MAX : (t < INT16_MIN ? INT16_MIN : t));
}

/* Start-up self test of the const table. */
bool ntc_table_ok(void)
{
    uint8_t i;
    uint16_t prev;

    for (i = 1u, prev = k_ntc_adc[0]; i < NTC_POINTS; prev = k_ntc_adc[i], i++) {
        if (k_ntc_adc[i] >= prev) {  /* infeasible: true outcome, the const table is strictly decreasing */
            return false;
        }
    }
    return true;
}
