/* Nested loops with counters: a count per row or pair decides what follows the loops. */
#include <stdint.h>

/* A row is hot with three or more of its four cells above 100; 2 when all rows are. */
int hot_rows(const int16_t m[4][4])
{
    int rows = 0;
    for (int r = 0; r < 4; r++) {
        int n = 0;
        for (int c = 0; c < 4; c++)
            if (m[r][c] > 100)
                n++;
        if (n >= 3)
            rows++;
    }
    if (rows == 4)
        return 2;
    if (rows > 0)
        return 1;
    return 0;
}

/* The inversions of eight values (the swaps a bubble sort makes): reversed, half way,
 * sorted or other. */
int inversions(const int8_t v[8])
{
    int swaps = 0;
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            if (v[i] > v[j])
                swaps++;
    if (swaps == 28)
        return 3;
    if (swaps == 14)
        return 2;
    if (swaps == 0)
        return 0;
    return 1;
}

/* A 6x5 image is a bar when three or more columns are dark (four of six pixels
 * below 40) and no column is half dark. */
int dark_columns(const uint8_t img[6][5])
{
    int dark = 0, half = 0;
    for (int x = 0; x < 5; x++) {
        int n = 0;
        for (int y = 0; y < 6; y++)
            if (img[y][x] < 40)
                n++;
        if (n >= 4)
            dark++;
        else if (n == 3)
            half++;
    }
    if (dark >= 3 && half == 0)
        return 1;
    if (half > 1)
        return 2;
    return 0;
}
