/* sat_arith.c - saturating arithmetic helpers of a motor-control DSP library:
 * add/sub/mul/div that clamp instead of wrapping, on int16_t, uint8_t and int32_t,
 * relying on integer promotion, 64-bit intermediates and unsigned wraparound. */
#include <stdint.h>
#include <stdbool.h>

/* int16 + int16 is computed in int after promotion, so it cannot overflow. */
int16_t sat_add_i16(int16_t a, int16_t b)
{
    int32_t s = a + b;

    if (s > INT16_MAX) {
        return INT16_MAX;
    }
    if (s < INT16_MIN) {
        return INT16_MIN;
    }
    return (int16_t)s;
}

/* The uint8 sum wraps when stored back; a wrapped sum is smaller than a. */
uint8_t sat_add_u8(uint8_t a, uint8_t b)
{
    uint8_t s = (uint8_t)(a + b);

    if (s < a) {
        return UINT8_MAX;
    }
    return s;
}

/* a - b is an int (promotion), so it is negative rather than wrapped. */
uint8_t sat_sub_u8(uint8_t a, uint8_t b)
{
    int d = a - b;

    return (d < 0) ? 0u : (uint8_t)d;
}

/* Subtraction done in uint32_t (defined wraparound); overflow is detected when
 * the operands have different signs and the result's sign differs from a. */
int32_t sat_sub_i32(int32_t a, int32_t b)
{
    uint32_t ur = (uint32_t)a - (uint32_t)b;
    int32_t r = (int32_t)ur;

    if (((a ^ b) & (a ^ r)) < 0) {
        return (a < 0) ? INT32_MIN : INT32_MAX;
    }
    return r;
}

int32_t sat_mul_i32(int32_t a, int32_t b)
{
    int64_t p = (int64_t)a * b;

    if (p > INT32_MAX) {
        return INT32_MAX;
    } else if (p < INT32_MIN) {
        return INT32_MIN;
    }
    return (int32_t)p;
}
