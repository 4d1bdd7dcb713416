/* bitmask.c - decodes the 32-bit status register of a smart power switch:
 * flag bits, a 3-bit mode field, a signed 8-bit temperature field, a 12-bit
 * event counter and an odd-parity bit in bit 31; plus generic field insertion. */
#include <stdint.h>
#include <stdbool.h>

#define ST_READY     (1u << 0)
#define ST_BUSY      (1u << 1)
#define ST_ERROR     (1u << 2)
#define ST_MODE_POS  3u
#define ST_MODE_MASK 0x7u
#define ST_TEMP_POS  8u
#define ST_CNT_POS   16u
#define ST_CNT_MASK  0xFFFu
#define ST_PARITY    (1u << 31)

typedef enum { MODE_OFF = 0, MODE_ON, MODE_PWM, MODE_DIAG, MODE_INVALID } sw_mode_t;
typedef enum { LINK_IDLE = 0, LINK_BUSY, LINK_ERROR } link_t;

typedef struct {
    bool ready;
    link_t link;
    sw_mode_t mode;
    int8_t temp_c;
    uint16_t events;
} status_t;

/* gcc folds three of the four ?: here even at -O0, so they give no gcov branch:
 * "busy ? 1 : 0" becomes a bit extraction, "mode <= 3 ? mode : 4" becomes
 * MIN(mode, 4) and the sign fix-up of the temperature becomes a signed char cast. */
status_t status_decode(uint32_t w)
{
    status_t s;
    uint32_t mode = (w >> ST_MODE_POS) & ST_MODE_MASK;
    uint32_t t = (w >> ST_TEMP_POS) & 0xFFu;

    s.ready = (w & ST_READY) != 0u;
    s.link = (w & ST_ERROR) ? LINK_ERROR : ((w & ST_BUSY) ? LINK_BUSY : LINK_IDLE);
    s.mode = (mode <= (uint32_t)MODE_DIAG) ? (sw_mode_t)mode : MODE_INVALID;
    /* two's complement field: values 128..255 are negative */
    s.temp_c = (int8_t)((t & 0x80u) ? (int)t - 256 : (int)t);
    s.events = (uint16_t)((w >> ST_CNT_POS) & ST_CNT_MASK);
    return s;
}

/* Bit 31 makes the number of set bits in the word odd. */
bool status_parity_ok(uint32_t w)
{
    uint32_t x = w;
    uint8_t ones = 0u;

    while (x != 0u) {
        ones += (uint8_t)(x & 1u);
        x >>= 1;
    }
    return (ones & 1u) == 1u;
}

/* Bits set in a 16-bit mask (Kernighan); v - 1 is computed in int. */
uint8_t popcount16(uint16_t v)
{
    uint8_t c;

    for (c = 0u; v != 0u; c++) {
        v &= (uint16_t)(v - 1);
    }
    return c;
}

/* Index of the highest set bit, -1 for 0. */
int8_t highest_bit(uint32_t w)
{
    int8_t i = 31;

    if (w == 0u) {
        return -1;
    }
    while ((w & ST_PARITY) == 0u) {
        w <<= 1;
        --i;
    }
    return i;
}

/* Replace width bits at pos with val; an out-of-range field leaves w unchanged. */
uint32_t field_insert(uint32_t w, uint8_t pos, uint8_t width, uint32_t val)
{
    uint32_t mask;

    if (width == 0u || pos >= 32u || pos + width > 32) {
        return w;
    }
    mask = (width == 32u) ? 0xFFFFFFFFu : ((1u << width) - 1u);
    return (w & ~(mask << pos)) | ((val & mask) << pos);
}
