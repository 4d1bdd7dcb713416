/* buffers.c - byte and sample buffers handled through pointers, as a serial driver and a
 * sample pipeline do: NULL checks, pointers that may point into one buffer, cursors passed
 * by pointer to pointer, arrays of records, a global frame buffer and a 2-D table. */
#include <stddef.h>
#include <stdint.h>
#include "ctgen.h"

#define FRAME_MAX 12u

typedef struct {
    uint16_t id;
    int16_t value;
} sample_t;

static uint8_t g_frame[FRAME_MAX];
static size_t g_frame_len;

static const int8_t k_gain[3][3] = {
    { 1, 2, 3 },
    { 2, 4, 6 },
    { 3, 6, 9 },
};

/* Copies n bytes in the direction that is safe when dst and src overlap; returns how many
 * bytes moved, 0 when there is nothing to do, -1 for NULL. */
int copy_overlapping(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t i;

    if (dst == NULL || src == NULL) {
        return -1;
    }
    if (dst == src || n == 0u) {
        return 0;
    }
    if (dst < src) {
        for (i = 0u; i < n; i++) {
            dst[i] = src[i];
        }
    } else {
        for (i = n; i > 0u; i--) {
            dst[i - 1u] = src[i - 1u];
        }
    }
    return (int)n;
}

/* Number of samples between a read and a write cursor into one ring of cap samples. */
int ring_fill(const sample_t *rd, const sample_t *wr, int cap)
{
    ptrdiff_t d = wr - rd;

    if (d < 0) {
        d += cap;
    }
    if (d < 0 || d >= cap) {
        return -1;
    }
    return (int)d;
}

/* Sets *limit and reports whether *shadow followed: 2 when it is the same cell. */
int set_and_check(int32_t *limit, const int32_t *shadow, int32_t value)
{
    int32_t before = *shadow;

    *limit = value;
    if (*shadow == value && before != value) {
        return 2;
    }
    return *shadow == value;
}

/* Takes the next byte at *cursor before end; advances the cursor. -1 at the end. */
int take_byte(const uint8_t **cursor, const uint8_t *end)
{
    const uint8_t *p;

    if (cursor == NULL || *cursor == NULL) {
        return -1;
    }
    p = *cursor;
    if (p >= end) {
        return -1;
    }
    *cursor = p + 1;
    return *p;
}

/* Index of the sample with the largest value among the first n with the given id. */
int find_peak(const sample_t samples[], size_t n, uint16_t id)
{
    size_t i;
    int best = -1;

    for (i = 0u; i < n && i < 8u; i++) {
        if (samples[i].id != id) {
            continue;
        }
        if (best < 0 || samples[i].value > samples[best].value) {
            best = (int)i;
        }
    }
    return best;
}

/* Appends len bytes of data to the global frame; returns the new length, -1 if full. */
int frame_append(const void *data, size_t len)
{
    const uint8_t *bytes = (const uint8_t *)data;
    size_t i;

    /* the frame never holds more than FRAME_MAX bytes: without this, pytest-ctgen finds
     * the out-of-bounds write a larger g_frame_len leads to */
    __rtt_precondition(g_frame_len <= FRAME_MAX);
    if (len > FRAME_MAX - g_frame_len) {
        return -1;
    }
    for (i = 0u; i < len; i++) {
        g_frame[g_frame_len + i] = bytes[i];
    }
    g_frame_len += len;
    if (g_frame_len == FRAME_MAX) {
        return 0;
    }
    return (int)g_frame_len;
}

/* Scales a value by the gain of a (row, col) cell; 0 outside the table. */
int gain_scale(int row, int col, int value)
{
    const int8_t *cell;

    if (row < 0 || row >= 3 || col < 0 || col >= 3) {
        return 0;
    }
    cell = &k_gain[row][col];
    if (*cell > 4) {
        return value * *cell / 4;
    }
    return value * *cell;
}

/* Sums the last n bytes before end, walking backwards; n is capped at 4. */
unsigned sum_before(const uint8_t *end, size_t n)
{
    const uint8_t *p = end - (n > 4u ? 4u : n);
    unsigned sum = 0u;

    while (p != end) {
        sum += *p++;
    }
    return sum;
}

/* Sum of one row of a 3x3 block of readings (a 2-D array parameter); -1 for a bad row. */
int row_sum(const int8_t block[3][3], int row)
{
    int sum = 0;
    int col;

    if (row < 0 || row > 2) {
        return -1;
    }
    for (col = 0; col < 3; col++) {
        sum += block[row][col];
    }
    return sum > 100 ? 100 : sum;
}
