/* intdiv.c - integer division helpers of a tick scheduler: saturating and
 * rounding division, floored modulo for wrapping phase offsets, and an index
 * check that relies on signed-to-unsigned conversion. */
#include <stdint.h>
#include <stdbool.h>

/* Division truncates toward zero; INT16_MIN / -1 is 32768 in int and saturates;
 * division by zero saturates by the sign of the dividend.  gcc folds the inner
 * "(a < 0) ? INT16_MIN : 0" into a & INT16_MIN: it gives no gcov branch. */
int16_t sat_div_i16(int16_t a, int16_t b)
{
    int q;

    if (b == 0) {
        return (a > 0) ? INT16_MAX : ((a < 0) ? INT16_MIN : 0);
    }
    q = a / b;
    if (q > INT16_MAX) {
        q = INT16_MAX;
    }
    return (int16_t)q;
}

/* Floored modulo: C's % takes the sign of the dividend, so fix it up. */
int16_t mod_floor_i16(int16_t a, int16_t m)
{
    int r;

    if (m == 0) {
        return 0;
    }
    r = a % m;
    if (r != 0 && ((r < 0) != (m < 0))) {
        r += m;
    }
    return (int16_t)r;
}

/* n / d rounded half away from zero; 0 for d == 0, INT32_MAX for INT32_MIN / -1. */
int32_t div_round_i32(int32_t n, int32_t d)
{
    int32_t q;
    int64_t r2;
    int64_t ad;

    if (d == 0) {
        return 0;
    }
    if (n == INT32_MIN && d == -1) {
        return INT32_MAX;
    }
    q = n / d;
    r2 = (int64_t)(n % d) * 2;
    ad = d;
    if (r2 < 0) {
        r2 = -r2;
    }
    if (ad < 0) {
        ad = -ad;
    }
    if (r2 >= ad) {
        /* n and d of the same sign give a positive quotient */
        q += ((n < 0) == (d < 0)) ? 1 : -1;
    }
    return q;
}

/* A negative index converts to a huge unsigned value, so one test rejects it. */
bool index_ok(int32_t i, uint32_t n)
{
    return (uint32_t)i < n;
}
