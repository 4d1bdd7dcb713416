/* units.c - unit conversions of a temperature/voltage monitor: Celsius and
 * Fahrenheit in float, 12-bit ADC counts to millivolts with clamping, and
 * double-to-integer conversions guarded by range checks (NaN included). */
#include <stdint.h>
#include <stdbool.h>

#define ADC_MAX_COUNT 4095u
#define ADC_VREF_MV   3300u
#define ABS_ZERO_C    (-273.15f)

float c_to_f(float c)
{
    return c * 9.0f / 5.0f + 32.0f;
}

/* Fahrenheit to Celsius, never below absolute zero; NaN passes through. */
float f_to_c(float f)
{
    float c = (f - 32.0f) * 5.0f / 9.0f;

    if (c < ABS_ZERO_C) {
        c = ABS_ZERO_C;
    }
    return c;
}

/* Rounded millivolts; counts above full scale are clamped and flagged in bit 15. */
uint16_t adc_to_mv(uint16_t counts)
{
    uint16_t flag = 0u;
    uint32_t mv;

    if (counts > ADC_MAX_COUNT) {
        counts = ADC_MAX_COUNT;
        flag = 0x8000u;
    }
    mv = ((uint32_t)counts * ADC_VREF_MV + ADC_MAX_COUNT / 2u) / ADC_MAX_COUNT;
    return (uint16_t)(mv | flag);
}

/* Degrees to centidegrees, rounded half away from zero.  The range checks come
 * first: converting an out-of-range double (or NaN) to int16_t is undefined. */
int16_t temp_to_centi(double t)
{
    double scaled;

    if (t != t) {
        return INT16_MIN;       /* NaN: sensor fault marker */
    }
    if (t >= 327.0) {
        return 32700;
    }
    if (t <= -327.0) {
        return -32700;
    }
    scaled = t * 100.0;
    return (int16_t)(scaled >= 0.0 ? scaled + 0.5 : scaled - 0.5);
}

/* Fraction 0..1 as a percentage; !(x >= 0) also catches NaN. */
uint8_t fraction_to_percent(float x)
{
    if (!(x >= 0.0f)) {
        return 0u;
    }
    if (x >= 1.0f) {
        return 100u;
    }
    return (uint8_t)(x * 100.0f + 0.5f);
}
