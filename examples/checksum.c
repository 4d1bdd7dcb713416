/* checksum.c - integrity checks for 32-bit telemetry words on a serial link:
 * an 8-bit additive sum and a CRC-8 (poly 0x07) over the word's bytes, and a
 * frame check that reports the first failing test through a goto error path. */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define FRAME_SYNC  0xA5u
#define CRC8_POLY   0x07u

enum { FRAME_OK = 0, FRAME_ERR_SYNC = -1, FRAME_ERR_LEN = -2, FRAME_ERR_CRC = -3 };

uint32_t g_frames_ok;
uint16_t g_frames_bad;
int8_t g_last_error;

/* Two's complement of the byte sum, so that sum + checksum == 0 (mod 256). */
uint8_t sum8_word(uint32_t w)
{
    uint8_t s = 0u;
    size_t i;

    for (i = 0u; i < sizeof w; i++) {
        s += (uint8_t)(w >> (8u * i));
    }
    return (uint8_t)-s;
}

/* CRC-8, MSB first, initial value 0, bytes taken most significant first. */
uint8_t crc8_word(uint32_t w)
{
    uint8_t crc = 0u;
    int byte = 3;

    do {
        uint8_t bit;

        crc ^= (uint8_t)(w >> (8 * byte));
        for (bit = 0u; bit < 8u; bit++) {
            if (crc & 0x80u) {
                crc = (uint8_t)((crc << 1) ^ CRC8_POLY);
            } else {
                crc <<= 1;
            }
        }
    } while (--byte >= 0);
    return crc;
}

/* Header: sync(8) | len(8) | seq(16).  len is the payload byte count, 1..4;
 * unused high payload bytes must be zero. */
int8_t frame_check(uint32_t header, uint32_t payload, uint8_t crc)
{
    int8_t rc;
    uint8_t len = (uint8_t)(header >> 16);

    if ((header >> 24) != FRAME_SYNC) {
        rc = FRAME_ERR_SYNC;
        goto fail;
    }
    if (len == 0u || len > sizeof payload) {
        rc = FRAME_ERR_LEN;
        goto fail;
    }
    if (len < 4u && (payload >> (8u * len)) != 0u) {
        rc = FRAME_ERR_LEN;
        goto fail;
    }
    if (crc8_word(payload) != crc) {
        rc = FRAME_ERR_CRC;
        goto fail;
    }
    g_frames_ok++;
    return FRAME_OK;

fail:
    g_frames_bad++;
    g_last_error = rc;
    return rc;
}

/* Position (0..3) of the first zero byte, scanning from the low byte; 4 if none. */
uint8_t first_zero_byte(uint32_t w)
{
    uint8_t i;

    for (i = 0u; i < 4u; i++) {
        if ((w & 0xFFu) == 0u) {
            break;
        }
        w >>= 8;
    }
    return i;
}
