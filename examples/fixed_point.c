/* fixed_point.c - Q15 fixed-point kernel of a digital filter: saturation, a
 * multiply with symmetric rounding, a ratio with 64-bit intermediates and a
 * saturating multiply-accumulate, all without floating point. */
#include <stdint.h>
#include <stdbool.h>

typedef int16_t q15_t;

#define Q15_ONE_HALF 0x4000
#define Q15_SCALE    32768

q15_t q15_sat(int32_t x)
{
    if (x > INT16_MAX) {
        return INT16_MAX;
    }
    if (x < INT16_MIN) {
        return INT16_MIN;
    }
    return (q15_t)x;
}

/* Rounds half away from zero: / truncates toward zero for negatives too.
 * -1.0 * -1.0 gives +1.0, which does not fit and saturates. */
q15_t q15_mul(q15_t a, q15_t b)
{
    int32_t p = (int32_t)a * b;

    p = (p >= 0) ? p + Q15_ONE_HALF : p - Q15_ONE_HALF;
    return q15_sat(p / Q15_SCALE);
}

/* num / den as Q15; the shift is done as a multiply in int64_t (left-shifting a
 * negative value is undefined).  den == 0 saturates by the sign of num. */
q15_t q15_ratio(int32_t num, int32_t den)
{
    int64_t q;

    if (den == 0) {
        if (num == 0) {
            return 0;
        }
        return (num > 0) ? INT16_MAX : INT16_MIN;
    }
    q = ((int64_t)num * Q15_SCALE) / den;
    if (q > INT16_MAX) {
        return INT16_MAX;
    } else if (q < INT16_MIN) {
        return INT16_MIN;
    }
    return (q15_t)q;
}

/* acc + a * b with the sum clamped to int32_t. */
int32_t q15_mac_sat(int32_t acc, q15_t a, q15_t b)
{
    int64_t s = (int64_t)acc + (int32_t)a * b;

    if (s > INT32_MAX) {
        s = INT32_MAX;
    }
    if (s < INT32_MIN) {
        s = INT32_MIN;
    }
    return (int32_t)s;
}

/* Q15 duty cycle to 0..1000 permille, rounded; negative duty is 0. */
uint16_t q15_to_permille(q15_t x)
{
    if (x <= 0) {
        return 0u;
    }
    return (uint16_t)(((int32_t)x * 1000 + Q15_ONE_HALF) >> 15);
}
