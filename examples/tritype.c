/* tritype.c - plausibility check of a triangular sensor mount: classifies three
 * integer side lengths (mm) as invalid, scalene, isosceles or equilateral.
 * Sums are formed in 64-bit (or unsigned with a wrap check) so nothing overflows. */
#include <stdint.h>
#include <stdbool.h>

typedef enum {
    TRI_INVALID = 0,
    TRI_SCALENE,
    TRI_ISOSCELES,
    TRI_EQUILATERAL
} tri_kind_t;

static bool sides_positive(int32_t a, int32_t b, int32_t c)
{
    return a > 0 && b > 0 && c > 0;
}

/* Strict triangle inequality; int32 + int32 cannot overflow in int64. */
bool tri_inequality_ok(int32_t a, int32_t b, int32_t c)
{
    int64_t sa = a;
    int64_t sb = b;
    int64_t sc = c;

    if (sa + sb <= sc || sa + sc <= sb || sb + sc <= sa) {
        return false;
    }
    return true;
}

tri_kind_t tritype(int32_t a, int32_t b, int32_t c)
{
    if (!sides_positive(a, b, c)) {
        return TRI_INVALID;
    }
    if (!tri_inequality_ok(a, b, c)) {
        return TRI_INVALID;
    }
    if (a == b && b == c) {
        return TRI_EQUILATERAL;
    }
    if (a == b || b == c || a == c) {
        return TRI_ISOSCELES;
    }
    return TRI_SCALENE;
}

/* Perimeter of unsigned sides, or 0 when the 32-bit sum wraps or exceeds limit. */
uint32_t tri_perimeter(uint32_t a, uint32_t b, uint32_t c, uint32_t limit)
{
    uint32_t s = a + b;

    if (s < a) {                /* wrapped */
        return 0u;
    }
    s += c;
    if (s < c) {                /* wrapped */
        return 0u;
    }
    return (s <= limit) ? s : 0u;
}

/* Pythagorean check.  a * a on uint16_t would be computed in (signed) int and
 * overflow for a > 46340, so the squares are taken in uint64_t. */
bool tri_is_right(uint16_t a, uint16_t b, uint16_t c)
{
    uint64_t a2 = (uint64_t)a * a;
    uint64_t b2 = (uint64_t)b * b;
    uint64_t c2 = (uint64_t)c * c;

    if (a == 0u || b == 0u || c == 0u) {
        return false;
    }
    return a2 + b2 == c2 || a2 + c2 == b2 || b2 + c2 == a2;
}
