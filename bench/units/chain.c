/* A checksum over a chain of packet buffers (each with a next link, a length and a
 * payload), as a network stack computes the one's-complement sum of a packet. */
#include <stddef.h>
#include <stdint.h>

struct buf {
    struct buf *next;
    uint16_t len;      /* bytes in this buffer */
    uint16_t tot_len;  /* bytes in this and the following buffers */
    uint8_t *payload;
};

/* The 16-bit one's-complement sum of the chain; a buffer with an odd length shifts
 * the byte order of the ones after it. */
uint16_t chain_checksum(const struct buf *p)
{
    uint32_t acc = 0;
    int swapped = 0;
    for (const struct buf *q = p; q != NULL; q = q->next) {
        const uint8_t *d = q->payload;
        uint32_t sum = 0;
        uint16_t i;
        for (i = 0; i + 1 < q->len; i += 2)
            sum += (uint32_t)(d[i] << 8 | d[i + 1]);
        if (i < q->len)
            sum += (uint32_t)d[i] << 8;
        while (sum >> 16)
            sum = (sum & 0xFFFFu) + (sum >> 16);
        if (swapped)
            sum = ((sum & 0xFFu) << 8) | (sum >> 8);
        acc += sum;
        if (q->len % 2 != 0)
            swapped = !swapped;
    }
    while (acc >> 16)
        acc = (acc & 0xFFFFu) + (acc >> 16);
    if (swapped)
        acc = ((acc & 0xFFu) << 8) | (acc >> 8);
    return (uint16_t)~acc;
}

/* Checks that every buffer's tot_len is its len plus the next one's tot_len. */
int chain_consistent(const struct buf *p)
{
    for (; p != NULL; p = p->next) {
        unsigned rest = p->next != NULL ? p->next->tot_len : 0;
        if (p->tot_len != p->len + rest)
            return 0;
    }
    return 1;
}

/* The buffer holding byte `offset` of the chain, and the offset inside it. */
const struct buf *chain_seek(const struct buf *p, unsigned offset, unsigned *inside)
{
    while (p != NULL && offset >= p->len) {
        offset -= p->len;
        p = p->next;
    }
    if (p != NULL)
        *inside = offset;
    return p;
}
