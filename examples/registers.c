/* registers.c - a peripheral's status register as bit-fields unioned with its word, byte
 * views of words, float bits, and a configuration record reached through pointers. */
#include <stddef.h>
#include <stdint.h>

typedef union {
    uint32_t word;
    struct {
        uint32_t ready : 1;
        uint32_t error : 1;
        int32_t trim : 5;     /* signed, -16..15 */
        uint32_t mode : 3;
        uint32_t count : 6;
        uint32_t : 0;         /* the rest of the word is reserved */
    } bits;
} status_reg_t;

typedef struct {
    int16_t min;
    int16_t max;
} range_t;

typedef struct channel {
    uint8_t enabled;
    range_t limits;           /* nested struct */
    uint8_t taps[4];          /* array in a struct */
    struct channel *linked;   /* another channel that follows this one */
} channel_t;

static status_reg_t g_status;

/* Reads the register word and classifies it by its bit-fields. */
int status_classify(uint32_t raw)
{
    status_reg_t r;

    r.word = raw;
    if (r.bits.error) {
        return -1;
    }
    if (!r.bits.ready) {
        return 0;
    }
    if (r.bits.trim < -8) {
        return 1;
    }
    if (r.bits.mode == 7u && r.bits.count > 40u) {
        return 2;
    }
    return 3;
}

/* Writes the signed trim field of the global register; reports a clamp. */
int status_set_trim(int value)
{
    int clamped = 0;

    if (value > 15) {
        value = 15;
        clamped = 1;
    } else if (value < -16) {
        value = -16;
        clamped = 1;
    }
    g_status.bits.trim = value;
    g_status.bits.ready = 1u;
    return clamped;
}

/* The lowest byte of a word as memory holds it (little-endian on this target). */
uint8_t low_byte(uint32_t word)
{
    const uint8_t *bytes = (const uint8_t *)&word;

    if (bytes[0] == 0u) {
        return bytes[1];
    }
    return bytes[0];
}

/* Class of a float from its bits: 0 zero, 1 normal, 2 subnormal, 3 inf, 4 NaN. */
int float_kind(float f)
{
    union {
        float f;
        uint32_t u;
    } v;
    uint32_t exponent;

    v.f = f;
    exponent = (v.u >> 23) & 0xFFu;
    if (exponent == 0xFFu) {
        return (v.u & 0x7FFFFFu) != 0u ? 4 : 3;
    }
    if (exponent == 0u) {
        return (v.u & 0x7FFFFFu) != 0u ? 2 : 0;
    }
    return 1;
}

/* Validates a channel and the one linked after it. */
int channel_check(const channel_t *ch)
{
    if (ch == NULL || !ch->enabled) {
        return 0;
    }
    if (ch->limits.min > ch->limits.max) {
        return -1;
    }
    if (ch->taps[3] != 0u) {
        return -2;
    }
    if (ch->linked != NULL && ch->linked->limits.min < ch->limits.min) {
        return -3;
    }
    return 1;
}

/* Copies the limits of src into dst (struct assignment) and widens them by one. */
void channel_copy_limits(channel_t *dst, const channel_t *src)
{
    range_t r = src->limits;

    if (r.min > -32768) {
        r.min--;
    }
    if (r.max < 32767) {
        r.max++;
    }
    dst->limits = r;
}

/* Writes through a pointer into a local, a member and an array element. */
int fill_through(int which, int value)
{
    int local = 0;
    range_t range = { 0, 0 };
    int table[3] = { 0, 0, 0 };
    int *target;

    switch (which) {
    case 0:
        target = &local;
        break;
    case 1:
        target = &table[2];
        break;
    default:
        *(&range.max) = (int16_t)value;
        return range.max;
    }
    *target = value;
    if (target == &local) {
        return local;
    }
    return table[2] + 1;
}

static status_reg_t *g_active;   /* a pointer global: the register the driver works on */

/* Marks the register ready through a pointer (a union behind a pointer); 1 when that set
 * the ready bit of the global register too. */
int reg_mark_ready(status_reg_t *reg)
{
    uint32_t before = g_status.word & 1u;

    if (reg == NULL) {
        return -1;
    }
    reg->bits.ready = 1u;
    if ((g_status.word & 1u) != before) {
        return 1;
    }
    return 0;
}

/* The trim of the active register, or of the global one when none is active. */
int active_trim(void)
{
    const status_reg_t *r = g_active != NULL ? g_active : &g_status;

    if (r == &g_status) {
        return 100 + r->bits.trim;
    }
    return r->bits.trim;
}
