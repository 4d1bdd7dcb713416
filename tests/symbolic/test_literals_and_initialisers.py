"""C literals and initialisers as gcc reads them: a float literal is rounded once from its
decimal value (not through double), and `char t[] = {"abc"};` is the same inside a
function as at file scope. Every case passes against the compiled code."""
from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.codegen.export import write_export
from pytest_ctgen.frontend.ctype import DOUBLE, FLOAT, FLOAT32, FLOAT64, LONGDOUBLE
from pytest_ctgen.frontend.literals import float_literal, is_imaginary

# Just above the midpoint of 1 and the next float: nearest float 1 + 2^-23, but rounded to
# double first it becomes the midpoint itself, which ties to even: 1.
ABOVE_MIDPOINT = "1.0000000596046447753906250001f"

UNIT = r"""
static const float k = 1.0000000596046447753906250001f;
static const char top[] = {"top"};

int near_one(float x)
{
    char t[] = {"abc"};

    if (x == 1.0000000596046447753906250001f) {
        return 1;
    }
    if (x == k + 1.0f) {
        return 2;
    }
    if (t[1] != 'b' || sizeof t != 4u || sizeof top != 4u) {
        return 3;
    }
    return 4;
}
"""


def test_float_literal_is_rounded_once() -> None:
    value, ctype = float_literal(ABOVE_MIDPOINT)
    assert ctype == FLOAT and value == 1.0 + 2.0 ** -23
    assert float_literal("0x1.8p1") == (3.0, DOUBLE)
    assert float_literal("2.5L") == (2.5, LONGDOUBLE)
    assert float_literal("1e-9")[0] == 1e-9


def test_gnu_float_suffixes_name_their_types() -> None:
    """gcc's suffixes: `f32`/`f64`/`f32x` name types whose values are modelled (an `f32`
    literal is rounded to binary32), the others types that are not."""
    assert float_literal(ABOVE_MIDPOINT[:-1] + "F32") == (1.0 + 2.0 ** -23, FLOAT32)
    assert float_literal("0.1f64") == (0.1, FLOAT64)
    assert float_literal("2.5f32x")[1].name == "_Float32x"
    for text, name in [("1.5q", "_Float128"), ("1.5f128", "_Float128"), ("1.5w", "long double"),
                       ("1.5f16", "_Float16"), ("1.5df", "_Decimal32"), ("1.5DL", "_Decimal128"),
                       ("1.5f64x", "_Float64x")]:
        value, ctype = float_literal(text)
        assert (value, ctype.name) == (1.5, name) and ctype.unmodelled is not None, text
    assert is_imaginary("2.0fi") and is_imaginary("3j") and not is_imaginary("0x1fp3")
    with pytest.raises(ValueError):
        float_literal("2.0i")


def test_float_literals_beyond_the_range_are_infinite_as_gcc_reads_them() -> None:
    # half an ulp above FLT_MAX rounds to infinity; just below that, to FLT_MAX
    flt_max = (2 - 2.0 ** -23) * 2.0 ** 127
    assert float_literal("3.4028236e38f") == (math.inf, FLOAT)
    assert float_literal("3.40282356e38f") == (flt_max, FLOAT)
    assert float_literal("1e400f") == (math.inf, FLOAT)
    assert float_literal("1e400") == (math.inf, DOUBLE)
    assert float_literal("1e-50f") == (0.0, FLOAT)


def test_literals_and_braced_strings_match_the_compiled_code(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("lit.c", UNIT)
    fn = unit.functions["near_one"]
    assert fn.stop_reason == "exhausted", fn.skip_reason
    assert {c.expected.returns.value for c in fn.cases} == {1, 2, 4}
    inputs = {c.expected.returns.value: c.params[0].value.value for c in fn.cases}
    assert inputs[1] == 1.0 + 2.0 ** -23
    # `t` is "abc" on every path: its test can only be false (the sizes are constants,
    # folded by gcc and by the lowering alike, no branch of their own)
    line = UNIT.splitlines().index(
        "    if (t[1] != 'b' || sizeof t != 4u || sizeof top != 4u) {") + 1
    assert [(o.line, o.label) for o in fn.unreachable] == [(line, "true")]
    cov = unit.run.coverage()["near_one"]
    assert cov.branches_total - cov.branches_covered == 1  # gcov agrees: that one only


DESIGNATORS = r"""
struct inner { int a; int b; };
struct cfg { int rate; struct inner inner; };
struct pt { int x, y; };
struct shape { int n; struct pt p[3]; };

static const struct cfg k_cfg = { .rate = 9600, .inner.b = 3 };
static const struct shape k_shape = { .p[1].y = 7, .n = 2, .p[2] = { 4, 5 } };
static const struct cfg k_elided = { .inner.a = 1, 2 };  /* 2 goes to inner.b */

int rate(int x)
{
    if (x > 0) {
        return k_cfg.rate + k_cfg.inner.b;
    }
    return k_cfg.inner.a;
}

int shape_get(int i)
{
    if (i == 0) {
        return k_shape.n + k_shape.p[1].y;
    }
    return k_shape.p[2].x * 10 + k_shape.p[2].y + k_shape.p[0].x;
}

int elided(int x)
{
    if (x > 0) {
        return k_elided.inner.b;
    }
    return 0;
}
"""


def test_nested_designators_initialise_what_they_name(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`.inner.b = 3`, `.p[1].y = 7` as gcc reads them: the cases' predictions pass."""
    unit = generated_unit("desig.c", DESIGNATORS)
    unit.assert_fully_covered("rate", "shape_get")
    assert {c.expected.returns.value for c in unit.functions["rate"].cases} == {9603, 0}
    assert {c.expected.returns.value for c in unit.functions["shape_get"].cases} == {9, 45}


def test_a_const_global_whose_initialiser_is_not_modelled_is_never_read_as_zero(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Its contents are unknown to the generator, so the path that reads it is not
    predicted (before, it read zeros: "predicted 0, observed 2")."""
    unit = generated_unit("desig.c", DESIGNATORS)
    fn = unit.functions["elided"]
    assert fn.stop_reason == "unsupported"
    assert [c.expected.returns.value for c in fn.cases] == [0]
    line = DESIGNATORS.splitlines().index("    if (x > 0) {", 20) + 1
    assert [(o.line, o.label) for o in fn.not_reached] == [(line, "true")]


ENUM_DESIGNATORS = r"""
enum ev { EV_NONE, EV_TIMER, EV_RX, EV_COUNT };
#define SLOT_LAST 4

static const int weights[EV_COUNT] = { [EV_TIMER] = 5, [EV_RX] = 7 };
static const int sized[] = { [EV_RX] = 1, [SLOT_LAST] = 9 };

int weight(int id)
{
    if (id < 0 || id >= EV_COUNT)
        return -1;
    if (weights[id] == 0)
        return 0;
    return weights[id] + (int)(sizeof sized / sizeof sized[0]);
}
"""


def test_an_array_designator_may_be_an_enumeration_constant(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`[EV_RX] = 7`: pycparser gives the index as an ID, as it gives `.member`; in an
    array's initializer it is the index (it was "nested designator in an array
    initializer", and the function stopped `unsupported`)."""
    unit = generated_unit("enumdesig.c", ENUM_DESIGNATORS)
    unit.assert_fully_covered("weight")
    returns = {c.expected.returns.value for c in unit.functions["weight"].cases}
    assert {-1, 0} < returns <= {-1, 0, 5 + 5, 7 + 5}  # `sized` has 5 elements


# Latin-1 in a comment, and a string literal whose bytes are no UTF-8 (surrogate escapes
# stand for the bytes 0xE9, 0xEF and 0xB0 in the file)
NOT_UTF8 = """/* caf\udce9 */
int second_byte(const char *s)
{
    static const char mark[] = "\udcef\udcb0";
    if (s[0] == mark[1]) {
        return 1;
    }
    return (unsigned char)mark[1];
}
"""


def test_a_byte_that_is_no_utf8_stands_for_itself_in_a_string_literal(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """gcc keeps the source's bytes in a narrow string: `mark[1]` is 0xB0 (it was read as
    a byte of U+FFFD, 0xBF, and the case predicted 1 where the compiled code gave 176)."""
    unit = generated_unit("bytes.c", NOT_UTF8)  # the fixture ran every case against gcc
    fn = unit.functions["second_byte"]
    assert fn.stop_reason == "exhausted" and not fn.unreachable
    assert {case.expected.returns.value for case in fn.cases} == {1, 0xB0}


# an annotated unit is compiled from a copy (codegen/unit_copy.py), written back with its bytes
ANNOTATED_NOT_UTF8 = """#include <string.h>
#include "ctgen.h"

int degrees(const char *s)
{
    __rtt_precondition(s != 0);
    if (strcmp(s, "\udcb0C") == 0) {
        return 1;
    }
    return 0;
}
"""


def test_a_unit_compiled_from_its_copy_keeps_its_bytes_in_the_run_and_the_export(
        generated_unit: Callable[[str, str], GeneratedUnit], tmp_path: Path) -> None:
    unit = generated_unit("deg.c", ANNOTATED_NOT_UTF8)  # every case ran against gcc
    fn = unit.functions["degrees"]
    assert {case.expected.returns.value for case in fn.cases} == {0, 1}
    out = write_export(unit.run.generated.cases, unit.run.path, tmp_path / "export")
    done = subprocess.run(["make", "-s", "-C", str(out), "run"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{len(fn.cases)} passed, 0 failed"


COMPOUND_LITERALS = r"""
struct two { int n; int d[2]; };

int *g_ints = (int[]){ 1, 2 };
const int *g_const = (const int[]){ 5, 6, 7 };
struct two *g_two = &(struct two){ 1, { 8, 9 } };

int complit(int i)
{
    int *p = (int[]){ 4, 5, 6 };
    if (i >= 0 && i < 3 && p[i] == 5)
        return 1;
    return 0;
}

int complit_subscript(int i)
{
    int r = ((int[]){ 7, 8 })[0];
    if (r == i)
        return 1;
    return 0;
}

int complit_const(int i)
{
    const int *p = (const int[]){ 4, 5, 6, [5] = 9 };
    if (i >= 0 && i < 6 && p[i] == 9)
        return (int)sizeof((const int[]){ 1, [7] = 2 });
    return 0;
}

int complit_string(int i)
{
    const char *s = (const char[]){ "hey" };
    if (i >= 0 && i < 4 && s[i] == 'y')
        return (int)sizeof((char[]){ "hey" });
    return 0;
}

int complit_records(int i)
{
    struct two *t = (struct two[]){ { 1, { 2, 3 } }, { 4, { 5, 6 } } };
    if (i >= 0 && i < 2 && t[i].d[1] == 6)
        return 1;
    return 0;
}

int complit_file_scope(int i)
{
    if (i >= 0 && i < 3 && g_const[i] == 7)
        return g_two->d[1] * 10 + g_ints[1];
    return 0;
}
"""


def test_a_compound_literal_of_an_array_of_unknown_size_has_its_initializers_count(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`(int[]){4, 5, 6}` is an `int[3]`, as `int a[] = {4, 5, 6}` is (it was an array of
    no element: every read was out of bounds, every outcome falsely unreachable); at file
    scope a compound literal is an object of static storage (it was an internal error)."""
    unit = generated_unit("complit.c", COMPOUND_LITERALS)
    unit.assert_fully_covered()
    returns = {name: {c.expected.returns.value for c in fn.cases}
               for name, fn in unit.functions.items()}
    assert returns["complit"] == returns["complit_subscript"] == {0, 1}
    assert returns["complit_const"] == {0, 32}
    assert returns["complit_string"] == {0, 4}
    assert returns["complit_file_scope"] == {0, 92}


WIDE_STRINGS = r"""
#include <wchar.h>
#include <uchar.h>

int wide_sizes(void)
{
    return (int)(sizeof(L"ab") * 1000 + sizeof(u"\u00e9\u20ac") * 100 + sizeof(U"a" "bc") * 10
                 + sizeof(u8"\u00e9"));
}

int wide_read(int i)
{
    const wchar_t *w = L"\u00e9" "z";
    if (i >= 0 && i < 3 && w[i] == 0x7a)
        return w[0] + (int)sizeof(L"\u00e9" "z");
    return w[2];
}

int utf16_read(int i)
{
    const char16_t *u = u"\u00e9\u20ac\U0001F600";
    if (i >= 0 && i < 5 && u[i] == 0xde00)
        return u[1];
    return u[2] - 0xd800;
}

int utf32_read(int i)
{
    const char32_t *u = U"\x1" "2\U0001F600\377";
    if (i >= 0 && i < 5 && u[i] == 0x1f600)
        return (int)u[0] * 1000 + (int)u[1] * 10 + (int)u[3];
    return 0;
}

int wide_escapes(int i)
{
    const wchar_t *w = L"\xffffffff\101\x20ac";
    if (i >= 0 && i < 4 && w[i] == -1)
        return w[1] + w[2];
    return 0;
}

int utf8_read(int i)
{
    const char *s = u8"\u00e9" "a";
    if (i >= 0 && i < 4 && s[i] == 'a')
        return (unsigned char)s[0] * 1000 + (unsigned char)s[1];
    return 0;
}

int wide_chars(int c)
{
    if (c == L'é')
        return u'€' + (int)sizeof(u'x');
    if (c == U'😀')
        return (int)sizeof(L'x');
    return 0;
}

int wide_array(int i)
{
    wchar_t w[] = L"ab" "c";
    if (i >= 0 && i < 4 && w[i] == L'c')
        return (int)sizeof w;
    return 0;
}
"""


def test_wide_string_literals_are_arrays_of_their_wide_characters(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`L"..."` is an array of `wchar_t` (int), `u"..."` of `char16_t` (UTF-16, a surrogate
    pair beyond the BMP), `U"..."` of `char32_t`, `u8"..."` of `char` (UTF-8), with their
    escapes and a 0 element at the end; an adjacent literal without a prefix takes the other's
    (`L"a" "b"` is wide, and was a parse error). They were arrays of the UTF-8 bytes: `sizeof
    L"ab"` predicted 3 where gcc gave 12, reading `L"é"[0]` a false out-of-bounds finding."""
    unit = generated_unit("wide.c", WIDE_STRINGS)
    unit.assert_fully_covered()
    assert not unit.findings
    returns = {name: {c.expected.returns.value for c in fn.cases}
               for name, fn in unit.functions.items()}
    assert returns["wide_sizes"] == {12 * 1000 + 6 * 100 + 16 * 10 + 3}
    assert returns["wide_read"] == {0, 0xe9 + 12}
    assert returns["utf16_read"] == {0x20ac, 0xd83d - 0xd800}
    assert returns["utf32_read"] == {0, 1000 + 0x32 * 10 + 0xff}
    assert returns["wide_escapes"] == {0, 65 + 0x20ac}
    assert returns["utf8_read"] == {0, 0xc3 * 1000 + 0xa9}
    assert returns["wide_chars"] == {0, 0x20ac + 2, 4}
    assert returns["wide_array"] == {0, 16}
