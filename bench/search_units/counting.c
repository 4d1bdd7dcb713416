/* Loops that count: the outcome after the loop depends on how often the body took a
 * branch, over input buffers of 16 to 64 elements (a tree search needs one path of 2^n). */
#include <stdint.h>

/* 1 when `key` is exactly ten of the sixteen readings, 2 when more. */
int ten_matches(const int readings[16], int key)
{
    int k = 0;
    for (int i = 0; i < 16; i++)
        if (readings[i] == key)
            k++;
    if (k == 10)
        return 1;
    if (k > 10)
        return 2;
    return 0;
}

/* The additive checksum of a 32-byte frame against its trailer; -1 when the sum is so
 * high that nearly every byte is 0xFF (an erased flash page). */
int frame_sum_ok(const uint8_t frame[32], uint16_t trailer)
{
    uint16_t sum = 0;
    for (int i = 0; i < 32; i++)
        sum += frame[i];
    if (sum > 0x1F00u)
        return -1;
    if (sum == trailer)
        return 1;
    return 0;
}

/* A burst: 40 or more of the 64 samples above the threshold; activity: 8 or more. */
int burst(const uint8_t samples[64], uint8_t threshold)
{
    int above = 0;
    for (int i = 0; i < 64; i++)
        if (samples[i] > threshold)
            above++;
    if (above >= 40)
        return 2;
    if (above >= 8)
        return 1;
    return 0;
}

/* A 20-character field (not terminated) is an id when it has 12 digits and 8 capitals. */
int id_field(const char field[20])
{
    int digits = 0, capitals = 0;
    for (int i = 0; i < 20; i++) {
        if (field[i] >= '0' && field[i] <= '9')
            digits++;
        else if (field[i] >= 'A' && field[i] <= 'Z')
            capitals++;
    }
    if (digits == 12 && capitals == 8)
        return 1;
    if (digits == 12)
        return 2;
    return 0;
}

/* The longest run of equal bytes in a 24-byte block decides run-length encoding. */
int worth_rle(const uint8_t block[24])
{
    int run = 1, longest = 1;
    for (int i = 1; i < 24; i++) {
        if (block[i] == block[i - 1]) {
            run++;
            if (run > longest)
                longest = run;
        } else {
            run = 1;
        }
    }
    if (longest >= 10)
        return 1;
    return 0;
}
