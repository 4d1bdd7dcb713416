/* Sorting with a comparison callback, as a qsort does it: an insertion sort over an
 * array of records, ordered by a caller-supplied comparison. */
#include <stddef.h>

struct reading {
    int sensor;
    int value;
};

typedef int (*compare_fn)(const struct reading *a, const struct reading *b);

/* Sorts v[0..n-1] in place by `cmp`; returns the number of moves, or -1 for bad
 * arguments. */
int sort_readings(struct reading *v, int n, compare_fn cmp)
{
    int moves = 0;
    if (v == NULL || cmp == NULL || n < 0)
        return -1;
    for (int i = 1; i < n; i++) {
        struct reading key = v[i];
        int j = i - 1;
        while (j >= 0 && cmp(&v[j], &key) > 0) {
            v[j + 1] = v[j];
            j--;
            moves++;
        }
        v[j + 1] = key;
    }
    return moves;
}

/* The unit's own comparisons. */
int by_value(const struct reading *a, const struct reading *b)
{
    if (a->value < b->value)
        return -1;
    return a->value > b->value;
}

int by_sensor(const struct reading *a, const struct reading *b)
{
    return a->sensor - b->sensor;
}

/* Whether v[0..n-1] is ordered by `cmp`. */
int is_sorted(const struct reading *v, int n, compare_fn cmp)
{
    for (int i = 1; i < n; i++)
        if (cmp(&v[i - 1], &v[i]) > 0)
            return 0;
    return 1;
}
