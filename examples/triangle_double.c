/* triangle_double.c - classifies a triangle given as three measured double side
 * lengths, comparing with a relative epsilon and rejecting NaN, infinities,
 * non-positive sides and degenerate triangles.  No <math.h>: own abs helper. */
#include <stdint.h>
#include <stdbool.h>

#define TD_EPS 1e-9

typedef enum {
    TD_INVALID = 0,
    TD_SCALENE,
    TD_ISOSCELES,
    TD_EQUILATERAL,
    TD_RIGHT
} td_kind_t;

static double abs_d(double x)
{
    if (x < 0.0) {
        return -x;
    }
    return x;
}

/* Equal within TD_EPS relative to the larger magnitude (absolute below 1.0). */
static bool near_eq(double a, double b)
{
    double scale = abs_d(a) + abs_d(b);

    return abs_d(a - b) <= TD_EPS * (scale > 1.0 ? scale : 1.0);
}

/* true for NaN and +/-infinity: x - x is NaN for both. */
static bool not_finite(double x)
{
    double d = x - x;

    return d != d;
}

td_kind_t tri_classify_d(double a, double b, double c)
{
    double hyp = a;
    double l1 = b;
    double l2 = c;

    if (not_finite(a) || not_finite(b) || not_finite(c)) {
        return TD_INVALID;
    }
    if (a <= 0.0 || b <= 0.0 || c <= 0.0) {
        return TD_INVALID;
    }
    if (a + b <= c || a + c <= b || b + c <= a) {
        return TD_INVALID;
    }
    if (near_eq(a, b) && near_eq(b, c)) {
        return TD_EQUILATERAL;
    }
    if (near_eq(a, b) || near_eq(b, c) || near_eq(a, c)) {
        return TD_ISOSCELES;
    }
    if (b > hyp) {
        hyp = b;
        l1 = a;
        l2 = c;
    }
    if (c > hyp) {
        hyp = c;
        l1 = a;
        l2 = b;
    }
    if (near_eq(l1 * l1 + l2 * l2, hyp * hyp)) {
        return TD_RIGHT;
    }
    return TD_SCALENE;
}

/* Perimeter as float, -1.0f for anything tri_classify_d rejects or that does not fit a float. */
float tri_perimeter_f(double a, double b, double c)
{
    double p;

    if (tri_classify_d(a, b, c) == TD_INVALID) {
        return -1.0f;
    }
    p = a + b + c;
    return (p > 3.0e38) ? -1.0f : (float)p;
}
