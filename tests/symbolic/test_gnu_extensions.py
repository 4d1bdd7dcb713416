"""C11 and GNU C constructs that gcc accepts in gnu11: `_Generic`,
`__builtin_types_compatible_p`, `__builtin_choose_expr`, local labels (`__label__`),
gcc's further floating types, attributes anywhere, and the declarations real headers and
firmware write. Each either works exactly (every case passes against gcc's build and gcov
sees every branch outcome taken) or skips its own function with the construct and its
file:line:col while the file's other functions are generated."""
from __future__ import annotations

import math
from collections.abc import Callable

from generated_unit import GeneratedUnit

from pytest_ctgen.cases import is_extra


def _at(text: str, needle: str, occurrence: int = 1) -> str:
    """`line:column` (1-based) of the `occurrence`-th `needle` in `text`."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return f"{line}:{index - text.rfind(chr(10), 0, index)}"


def _returns(unit: GeneratedUnit, name: str) -> set[object]:
    return {case.expected.returns.value for case in unit.functions[name].cases
            if case.finding is None}  # labs(LONG_MIN) is one


GENERIC_UNIT = r"""
#include <stdint.h>
#include <stdlib.h>

#define TYPE_ID(x) _Generic((x), char: 1, signed char: 2, unsigned char: 3, short: 4, \
    int: 5, unsigned: 6, long: 7, long long: 8, float: 9, double: 10, _Float32: 11, \
    const char *: 12, char *: 13, default: 0)
#define ABS(x) _Generic((x), int: abs, long: labs, long long: llabs)(x)

enum mode { OFF, ON };

int promoted(char c, unsigned char u, short s)
{
    int kinds = TYPE_ID(c) * 100 + TYPE_ID(c + 0) * 10 + TYPE_ID(u);
    if (c > s) {
        return kinds + TYPE_ID(s);
    }
    return -(TYPE_ID('a') + TYPE_ID(s * 2u) + TYPE_ID((signed char)c));
}

long magnitude(long v, int i)
{
    long m = ABS(v);

    if (m > 1000) {
        return m * 10 + TYPE_ID(ABS(v));
    }
    return TYPE_ID(ABS(i)) + TYPE_ID(1LL + i);
}

int strings(const char *name, int pick)
{
    char buffer[8] = "abc";
    const char fixed[4] = "xyz";
    int kinds = TYPE_ID(name) * 100 + TYPE_ID(buffer) * 10 + TYPE_ID("lit") - TYPE_ID(fixed);
    if (pick > 0) {
        return kinds + TYPE_ID(&buffer[1]) + TYPE_ID(name + pick);
    }
    return kinds;
}

int floats(float f, _Float32 g, double d)
{
    int kinds = TYPE_ID(f) * 100 + TYPE_ID(g) * 10 + TYPE_ID(f + g);
    if (f + g > d) {
        return kinds + TYPE_ID(1.5f32);
    }
    return kinds - TYPE_ID(g * d) + _Generic(d, default: 7);
}

int selected(enum mode m, int x)
{
    int scale = _Generic(m, unsigned int: 2, int: 3);
    switch (_Generic(x, int: x, default: 0) + scale) {
    case 4:
        return _Generic(&x, int *: 40, const int *: 41);
    case 5:
        return sizeof(_Generic(x, long: x, default: (char)x));
    default:
        return scale;
    }
}
"""


def test_generic_selection_follows_the_controlling_type(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """The association is chosen by the controlling expression's type after lvalue
    conversion: `char` stays `char` but `c + 0` is `int`, arrays decay keeping their
    elements' qualifiers, a string literal is `char *`, an enum is its `unsigned int`,
    `float + _Float32` is `_Float32`; a selection of functions is called by name."""
    unit = generated_unit("generic.c", GENERIC_UNIT)
    unit.assert_fully_covered()
    assert _returns(unit, "promoted") == {100 * 1 + 10 * 5 + 3 + 4, -(5 + 6 + 2)}
    magnitude = _returns(unit, "magnitude")
    assert 5 + 8 in magnitude and any(r % 10 == 7 and r > 10000 for r in magnitude)  # labs
    assert _returns(unit, "strings") == {1200 + 130 + 13 - 12, 1331 + 13 + 12}
    assert _returns(unit, "floats") == {900 + 110 + 11 + 11, 1021 - 10 + 7}
    assert _returns(unit, "selected") == {40, 1, 2}


COMPAT_UNIT = r"""
#include <stdint.h>

#define IS_SAME(a, b) __builtin_types_compatible_p(__typeof__(a), __typeof__(b))
#define IS_ARRAY(a) (!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#define MAX_SAME(a, b) __builtin_choose_expr(IS_SAME(a, b), (a) > (b) ? (a) : (b), (void)0)

typedef int handle_t;
enum color { RED, GREEN };

_Static_assert(__builtin_types_compatible_p(uint8_t, unsigned char), "uint8_t");
static const int width_kind = __builtin_types_compatible_p(int32_t, int) ? 32 : 64;
static int slots[__builtin_choose_expr(sizeof(long) == 8, 4, 2)];
static int calls;

static int bump(int by)
{
    calls += by;
    return calls;
}

int compat(int x, const char *s)
{
    int table[4] = {0};
    int score = __builtin_types_compatible_p(int, const int)
        + 2 * __builtin_types_compatible_p(const char *, char *)
        + 4 * __builtin_types_compatible_p(handle_t, int)
        + 8 * __builtin_types_compatible_p(enum color, unsigned int)
        + 16 * __builtin_types_compatible_p(long, long long)
        + 32 * IS_ARRAY(table) + 64 * IS_ARRAY(s) + 128 * IS_SAME(x, s[0])
        + 256 * __builtin_types_compatible_p(int[], int[4])
        + 512 * __builtin_types_compatible_p(int (*)(int), int (*)())
        + 1024 * __builtin_types_compatible_p(char, signed char);

    if (__builtin_types_compatible_p(__typeof__(x), handle_t) && x > 3) {
        return score + width_kind + (int)(sizeof(slots) / sizeof(slots[0]));
    }
    return -score;
}

int choose(int a, int b)
{
    int kept = 0;
    int other = 1;

    __builtin_choose_expr(1, kept, other) = MAX_SAME(a, b);   /* an lvalue: `kept` */
    __builtin_choose_expr(IS_SAME(a, 1u), bump(100), bump(1));  /* only bump(1) runs */
    if (sizeof(__builtin_choose_expr(0, 0.5, (char)a)) == 1 && kept > 10) {
        return kept + calls;
    }
    return other;
}
"""


def test_types_compatible_p_and_choose_expr(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`__builtin_types_compatible_p` is an integer constant (typedefs see through, an enum
    is its integer type, pointed-to qualifiers count, `int[]` and `int[4]` agree, `char` is
    not `signed char`), also in file-scope initializers and array sizes;
    `__builtin_choose_expr` is the chosen operand itself: its type, an lvalue, the other
    operand never evaluated."""
    unit = generated_unit("compat.c", COMPAT_UNIT)
    unit.assert_fully_covered("compat", "choose")
    score = 1 + 4 + 8 + 32 + 256 + 512
    assert _returns(unit, "compat") == {score + 32 + 4, -score}
    for case in unit.functions["choose"].cases:  # `kept` is the larger, bump(1) ran once
        a, b = (binding.value.value for binding in case.params)
        calls = next(g.value.value for g in case.globals if g.name == "calls")
        assert case.expected.returns.value == (max(a, b) + calls + 1 if max(a, b) > 10 else 1)


LABELS_UNIT = r"""
/* A macro whose statement expression jumps to a label of its own, used twice in a
   function: each use has its own label `found`. */
#define FIND(v, n, key) ({                          \
    __label__ found;                                \
    int at_ = -1;                                   \
    for (int i_ = 0; i_ < (n); i_++) {              \
        if ((v)[i_] == (key)) {                     \
            at_ = i_;                               \
            goto found;                             \
        }                                           \
    }                                               \
    found: ;                                        \
    at_; })

int locate(const int *v, int a, int b)
{
    int first = FIND(v, 3, a);
    int second = FIND(v, 3, b);

    if (first < 0) {
        return -1;
    }
    if (second < 0) {
        return -2;
    }
    return first * 10 + second;
}

int blocks(int x)
{
    int n = 0;

    { __label__ skip; if (x > 5) goto skip; n += 1; skip: ; }
    { __label__ skip, unused; if (x > 10) goto skip; n += 2; skip: ; }
    if (n == 0) {
        goto skip;
    }
    return n;
skip:
    return -1;
}
"""


def test_local_labels_belong_to_their_block(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """A label declared with `__label__` is the block's own: a macro's statement
    expression used twice jumps to its own copy, and a function's label of the same name
    is another one."""
    unit = generated_unit("labels.c", LABELS_UNIT)
    unit.assert_fully_covered()
    locate = _returns(unit, "locate")
    assert {-1, -2} <= locate and len(locate) >= 4, locate  # and two found: 10 * i + j
    assert _returns(unit, "blocks") == {3, 2, -1}


FLOATS_UNIT = r"""
long double g_precise = 1.0L;
double g_plain = 2.0;

_Float32 scale32(_Float32 x)
{
    if (x > 1.5f32) {
        return x * 2.0f32;
    }
    return x + g_plain;
}

_Float64 scale64(_Float64 x, float y)
{
    return x > y ? x - y : y;
}

long double wide(long double x)
{
    return x * 2;
}

int wide_literal(double x)
{
    return x * 0.1L > 1.0;
}

int reads_precise(int x)
{
    return x > g_precise;
}

_Float16 half(_Float16 x)
{
    return x;
}

__float128 quad(__float128 x)
{
    return x;
}

int quad_cast(double x)
{
    return (_Float128)x > 2;
}

_Decimal32 money(_Decimal32 x)
{
    return x;
}

double imaginary(double x)
{
    return x + 2.0i;
}

_Complex double complex_arg(_Complex double z)
{
    return z;
}

int caller(int x)
{
    return x > 0 ? wide_literal(x) : 0;
}

int plain(int x)
{
    return x > 3 ? 1 : 2;
}
"""


def test_float32_and_float64_work_other_formats_skip(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`_Float32` and `_Float64` are gcc's types of their own with the formats of `float`
    and `double`: their functions work. A function computing with a format that is not
    modelled (x87 `long double`, half, quadruple, decimal, complex) is skipped, the type
    and its place named; the file's other functions are generated."""
    unit = generated_unit("floats.c", FLOATS_UNIT)
    unit.assert_fully_covered("scale32", "scale64", "plain")
    x87 = "unsupported construct: type 'long double' (x87 80-bit extended precision is " \
          "not modelled)"
    quad = "unsupported construct: type '_Float128' (quadruple precision is not modelled)"
    expected = {
        "wide": f"{_at(FLOATS_UNIT, 'wide(')}: {x87}",
        "wide_literal": f"{_at(FLOATS_UNIT, '0.1L')}: {x87}",
        "reads_precise": f"{_at(FLOATS_UNIT, 'g_precise;')}: {x87}",
        "half": f"{_at(FLOATS_UNIT, 'half(')}: unsupported construct: type '_Float16' "
                "(half precision is not modelled)",
        "quad": f"{_at(FLOATS_UNIT, 'quad(')}: {quad}",
        "quad_cast": f"{_at(FLOATS_UNIT, '(_Float128)')}: {quad}",
        "money": f"{_at(FLOATS_UNIT, 'money(')}: unsupported construct: type '_Decimal32' "
                 "(decimal floating point is not modelled)",
        "imaginary": f"{_at(FLOATS_UNIT, '2.0i')}: unsupported construct: imaginary "
                     "constant '2.0i' (complex arithmetic)",
        "complex_arg": f"{_at(FLOATS_UNIT, '_Complex double complex_arg')}: complex type "
                       "'_Complex double'",
    }
    for name, reason in expected.items():
        fn = unit.functions[name]
        assert (fn.stop_reason, fn.skip_reason) == ("skipped", f"floats.c:{reason}"), name
    caller = unit.functions["caller"]  # its call of a skipped function is not executed
    assert caller.stop_reason == "unsupported" and _returns(unit, "caller") == {0}
    for name in ("scale32", "scale64"):  # and a case deciding a comparison with x == limit
        assert sum(1 for c in unit.functions[name].cases if not is_extra(c)) == 2


SKIPS_UNIT = r"""
#include <stdint.h>

typedef int v4si __attribute__((vector_size(16)));
typedef int di_t __attribute__((mode(DI)));

static void release(int *p)
{
    *p = 0;
}

int dispatch(int op, int x)
{
    static void *const table[] = { &&add, &&sub };

    goto *table[op & 1];
add:
    return x + 1;
sub:
    return x - 1;
}

int nested(int x)
{
    int square(int y) { return y * y; }

    return square(x) > 10;
}

int scoped(int x)
{
    int guard __attribute__((cleanup(release))) = x;

    return guard > 2;
}

int vector(int x)
{
    v4si v = { x, 1, 2, 3 };

    return v[0] > 1;
}

int wide_mode(di_t x)
{
    return x > 1;
}

int segment(int __seg_gs *p)
{
    return *p > 0;
}

int frame(int x)
{
    struct __attribute__((packed)) { char tag; int value; } f = { 1, x };

    return f.value > 2;
}

int real_part(double x)
{
    return __real__ x > 1.0;
}

int old_style(a, b)
    int a, b;
{
    return a > b;
}

int __seg_fs *remote;

int uses_remote(void)
{
    return remote != 0;
}

int calls_old(int x)
{
    return old_style(x, 1);
}

int fine(int x)
{
    if (x > 10) {
        return 2;
    }
    return x < -10 ? 0 : 3;  /* `? 0 : 1` is no branch to gcc */
}
"""


def test_computed_goto_nested_functions_and_unmodelled_attributes_skip(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Label addresses and `goto *`, nested functions, `cleanup`, vector types, `mode`,
    named address spaces, a packed type defined in a function (the layout probe sees only
    file-scope types), `__real__` and old-style definitions skip their own function, naming
    the construct where it stands; a use of a skipped declaration names it; the others are
    generated."""
    unit = generated_unit("skips.c", SKIPS_UNIT)
    unit.assert_fully_covered("release", "fine")
    construct = "unsupported construct:"
    unknown = "whose declaration is not supported"
    expected = {
        "dispatch": f"{_at(SKIPS_UNIT, '&&add')}: {construct} address of the label 'add' "
                    "(computed goto)",
        "nested": f"{_at(SKIPS_UNIT, 'square(')}: {construct} nested function 'square'",
        "scoped": f"{_at(SKIPS_UNIT, '__attribute__((cleanup')}: {construct} attribute "
                  "'cleanup' (a function runs when the variable goes out of scope)",
        "vector": f"{_at(SKIPS_UNIT, 'v4si v')}: {construct} type 'v4si', {unknown} (line "
                  f"{_at(SKIPS_UNIT, '__attribute__((vector')}: vector type (attribute "
                  "'vector_size'))",
        "wide_mode": f"{_at(SKIPS_UNIT, 'di_t x')}: {construct} type 'di_t', {unknown} (line "
                     f"{_at(SKIPS_UNIT, '__attribute__((mode')}: attribute 'mode' (it "
                     "changes the width of the type))",
        "uses_remote": f"{_at(SKIPS_UNIT, 'remote !=')}: {construct} use of 'remote', "
                       f"{unknown} (line "
                       f"{_at(SKIPS_UNIT, '__seg_fs')}: named address space '__seg_fs')",
        "calls_old": f"{_at(SKIPS_UNIT, 'old_style(x')}: {construct} call of 'old_style', "
                     f"{unknown} (line {_at(SKIPS_UNIT, 'old_style(')}: old-style (K&R) "
                     "function definition)",
        "segment": f"{_at(SKIPS_UNIT, '__seg_gs')}: {construct} named address space "
                   "'__seg_gs'",
        "frame": f"{_at(SKIPS_UNIT, '__attribute__((packed')}: {construct} attribute "
                 "'packed' on a type defined in a function (its layout is not probed)",
        "real_part": f"{_at(SKIPS_UNIT, '__real__')}: {construct} __real__ (complex "
                     "arithmetic)",
        "old_style": f"{_at(SKIPS_UNIT, 'old_style(')}: old-style (K&R) function definition",
    }
    for name, reason in expected.items():
        fn = unit.functions[name]
        assert (fn.stop_reason, fn.skip_reason) == ("skipped", f"skips.c:{reason}"), name
    assert _returns(unit, "fine") == {0, 2, 3}


WORKS_UNIT = r"""
#include <math.h>
#include <stddef.h>
#include <stdint.h>

struct packet {
    uint8_t kind;
    _Static_assert(sizeof(uint8_t) == 1, "a byte");
    struct { uint16_t lo, hi; } range[3];
    struct {} marker;                    /* GNU: an empty struct, no bytes */
    uint8_t payload[0];                  /* GNU: a zero-length array */
};

struct __attribute__((packed)) wire { uint8_t tag; uint32_t value; };

__extension__ typedef unsigned long long u64_t;
static __thread int per_thread;
_Thread_local int tls_counter;
int a$b = 4;                             /* GNU: '$' in identifiers */

__attribute__((noinline)) static int twice(int x) __attribute__((const));
static int twice(int x) { return 2 * x; }

_Noreturn void exit(int);

static _Noreturn void stop(int code)
{
    exit(code);
}

size_t where(const struct packet *p, int which)
{
    [[maybe_unused]] int unused = 0;
    size_t hi = offsetof(struct packet, range[2].hi);

    if (which == 1) {
        return __builtin_offsetof(struct packet, range[1].lo) + hi;
    }
    return p->kind > 3 ? sizeof(struct packet) : offsetof(struct wire, value) * 4;
}

int bits(unsigned x, char c)
{
    register int r __asm__("r12") = (int)(x & 0b1010);
#pragma GCC diagnostic push
    switch (c) {
    case '\e':
        r += 100;
        __attribute__((fallthrough));
    case 'x':
        r += a$b;
        break;
    default:
        _Pragma("GCC diagnostic ignored \"-Wunused\"")
        r -= 1;
    }
#pragma GCC diagnostic pop
    return r;
}

unsigned __int128 product(uint64_t a, uint64_t b)
{
    __uint128_t wide = (__uint128_t)a * b;

    if ((wide >> 64) != 0) {
        return wide >> 64;
    }
    return wide + (__int128_t)twice(per_thread + tls_counter);
}

int limits(double x, float f)
{
    if (x == INFINITY) {
        return 1;
    }
    if (f == -HUGE_VALF) {
        return 2;
    }
    return x != x ? 3 : 4;
}

float or_nan(float f)
{
    static const double quiet = NAN;

    if (f > 1.0f) {
        return quiet;
    }
    return f;
}

int check(int x)
{
    if (x < 0) {
        goto fail;
    }
    return x;
fail: __attribute__((cold));
    stop(3);
}
"""


def test_gnu_declarations_and_statements_work(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Attributes in any place (`[[...]]` too), `_Static_assert` in a struct, empty structs,
    zero-length arrays, `__int128_t`, `__thread`, `$` in names, `offsetof` with nested
    designators in a function, binary constants, `\\e`, pragmas, register variables with
    an asm name and <math.h>'s INFINITY and HUGE_VAL are no obstacle."""
    unit = generated_unit("works.c", WORKS_UNIT)
    unit.assert_fully_covered()
    # range[1].lo + range[2].hi; the size of a packet; a packed offset
    assert _returns(unit, "where") == {2 + 4 + 2 + 8 + 2, 14, 4}
    # the three ways through the switch (and operand cases, whose r and x are not 0)
    assert len([c for c in unit.functions["bits"].cases if not is_extra(c)]) == 3
    assert len(_returns(unit, "product")) == 2
    assert _returns(unit, "limits") == {1, 2, 3, 4}
    assert sum(math.isnan(value) for value in _returns(unit, "or_nan")) == 1
    check = unit.functions["check"]
    assert sorted(c.expected.ending or "" for c in check.cases if not is_extra(c)) == \
        ["", "exit"]
