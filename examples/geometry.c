/* geometry.c - touch-screen hit testing with small structs passed and returned
 * by value: points, rectangles built from points, shapes holding a rectangle,
 * and a polygon holding a fixed array of vertices. */
#include <stdint.h>
#include <stdbool.h>

typedef struct { int16_t x; int16_t y; } point_t;
typedef struct { point_t lo; point_t hi; } rect_t;            /* lo <= hi when valid */
typedef struct { rect_t box; uint8_t layer; bool visible; } shape_t;
typedef struct { point_t v[4]; uint8_t n; } poly4_t;         /* n vertices used */

static int16_t max16(int16_t a, int16_t b)
{
    if (a > b) {
        return a;
    }
    return b;
}

static int16_t min16(int16_t a, int16_t b)
{
    if (a < b) {
        return a;
    }
    return b;
}

bool rect_contains(rect_t r, point_t p)
{
    return p.x >= r.lo.x && p.x <= r.hi.x && p.y >= r.lo.y && p.y <= r.hi.y;
}

/* Overlap of a and b; an empty overlap is returned as the all-zero rectangle
 * and *not* as an inverted one. */
rect_t rect_intersect(rect_t a, rect_t b)
{
    rect_t r;
    const rect_t empty = { { 0, 0 }, { 0, 0 } };

    r.lo.x = max16(a.lo.x, b.lo.x);
    r.lo.y = max16(a.lo.y, b.lo.y);
    r.hi.x = min16(a.hi.x, b.hi.x);
    r.hi.y = min16(a.hi.y, b.hi.y);
    if (r.lo.x > r.hi.x || r.lo.y > r.hi.y) {
        return empty;
    }
    return r;
}

/* Area in pixels.  hi - lo is an int after promotion and may reach 65535, so the
 * product is formed in uint32_t (65535 * 65535 would overflow int). */
uint32_t rect_area(rect_t r)
{
    int w = r.hi.x - r.lo.x;
    int h = r.hi.y - r.lo.y;

    if (w < 0 || h < 0) {
        return 0u;
    }
    return (uint32_t)w * (uint32_t)h;
}

point_t point_clamp(point_t p, rect_t r)
{
    if (p.x < r.lo.x) {
        p.x = r.lo.x;
    } else if (p.x > r.hi.x) {
        p.x = r.hi.x;
    }
    if (p.y < r.lo.y) {
        p.y = r.lo.y;
    } else if (p.y > r.hi.y) {
        p.y = r.hi.y;
    }
    return p;
}

/* Vertices of poly inside a visible shape's box; vertices at the origin are
 * placeholders and skipped.  -1 when the shape is hidden or poly.n is bad. */
int8_t poly_hits(poly4_t poly, shape_t s)
{
    int8_t hits = 0;
    uint8_t i;

    if (!s.visible || poly.n > sizeof poly.v / sizeof poly.v[0]) {
        return -1;
    }
    for (i = 0u; i < poly.n; i++) {
        if (poly.v[i].x == 0 && poly.v[i].y == 0) {
            continue;
        }
        if (rect_contains(s.box, poly.v[i])) {
            hits++;
        }
    }
    return hits;
}
