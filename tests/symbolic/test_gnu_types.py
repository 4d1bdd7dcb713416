"""GNU C as real headers and firmware write it: `__typeof__` of an expression or a type
name (also `typeof` in the GNU dialects), `__auto_type`, statement expressions anywhere an
expression may stand, <stdatomic.h> (whose macros are built from all three and the generic
`__atomic_*` builtins), case ranges, `a ?: b`, designator ranges and asm statements. Every
case passes against the compiled code."""
from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.errors import ParseError
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file

TYPEOF_UNIT = r"""
#include <stdint.h>

int scale = 3;
extern __typeof(scale) scale_alias __attribute__((weak, alias("scale")));

#define SWAP(a, b) do { __typeof__(a) swap_tmp = (a); (a) = (b); (b) = swap_tmp; } while (0)
#define MAX(a, b) ({ __auto_type max_a = (a); __auto_type max_b = (b); \
                     max_a > max_b ? max_a : max_b; })

int ordered(int16_t x, int16_t y)
{
    SWAP(x, y);
    if (x < y) {
        return 1;
    }
    return MAX(x, y) + scale;
}

unsigned widths(uint8_t b)
{
    typeof(b) narrow = (typeof(b))(b + 1);          /* wraps like a uint8_t */
    __typeof__(uint32_t[4]) words = {0};
    __auto_type p = words;                           /* an array decays to a pointer */

    p[1] = narrow;
    if (sizeof(__typeof__(b + 1)) == sizeof(int) && words[1] == 0u) {
        return 100u + (unsigned)sizeof(words);
    }
    return -({ int neg = narrow; neg; }) < -200 ? 1u : 2u;
}
"""


def test_typeof_auto_type_and_statement_expressions(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("gnu_types.c", TYPEOF_UNIT)
    unit.assert_fully_covered("ordered", "widths")
    returns = {c.expected.returns.value for c in unit.functions["widths"].cases}
    assert returns == {116, 1, 2}  # 255 + 1 wraps to 0 in a uint8_t; sizeof(words) is 16


def test_typeof_is_a_name_in_iso_c(tmp_path: Path) -> None:
    """With -std=c11, `typeof` is an ordinary identifier (gcc: only `__typeof__` is a
    keyword); with the default gnu11 it is the keyword."""
    source = tmp_path / "iso.c"
    source.write_text("static int typeof(int x) { return x; }\n"
                      "int twice(int x) { return typeof(x) * 2; }\n")
    unit = load_unit(source, ["-std=c11"])
    assert set(unit.functions) >= {"typeof", "twice"}
    with pytest.raises(ParseError) as error:
        load_unit(source, [])
    assert f"{source}:1:" in str(error.value.location)


STDATOMIC_UNIT = r"""
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    unsigned char *data;
    size_t size;
    atomic_size_t r;
    atomic_size_t w;
} ring_t;

static atomic_flag busy = ATOMIC_FLAG_INIT;
static _Atomic(int *) last;
static atomic_int users;

size_t ring_free(ring_t *ring)
{
    size_t w = atomic_load_explicit(&ring->w, memory_order_acquire);
    size_t r = atomic_load_explicit(&ring->r, memory_order_acquire);

    if (ring->size == 0u) {
        return 0u;
    }
    if (w >= r) {
        return ring->size - (w - r) - 1u;
    }
    return r - w - 1u;
}

int ring_push(ring_t *ring, unsigned char byte)
{
    size_t w = atomic_load(&ring->w);
    size_t next = w + 1u == ring->size ? 0u : w + 1u;

    if (next == atomic_load(&ring->r) || w >= ring->size) {
        return 0;
    }
    ring->data[w] = byte;
    atomic_store_explicit(&ring->w, next, memory_order_release);
    return 1;
}

int enter(int *who)
{
    if (atomic_flag_test_and_set(&busy)) {
        return -1;
    }
    int *before = atomic_exchange(&last, who);
    int count = atomic_fetch_add(&users, 1) + 1;
    atomic_flag_clear(&busy);
    return before == who ? 100 + count : count;
}

bool claim(int expected_users)
{
    int seen = expected_users;
    int guess = 5;

    if (atomic_compare_exchange_strong(&users, &seen, 0)) {
        return true;
    }
    /* seen now holds users */
    return seen < 10 && atomic_compare_exchange_weak(&users, &guess, 1);
}
"""


def test_stdatomic_is_modelled(generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("atomics.c", STDATOMIC_UNIT)
    assert set(unit.functions) == {"ring_free", "ring_push", "enter", "claim"}
    unit.assert_fully_covered("ring_free", "ring_push", "enter", "claim")


GNU_SYNTAX_UNIT = r"""
#include <stdint.h>

static const uint8_t lookup[16] = { [0 ... 3] = 1, [4 ... 9] = 2, [12] = 5 };
static int calls;

static int next_call(void)
{
    return ++calls;
}

int classify(char c)
{
    switch (c) {
    case '0' ... '9':
        return 1;
    case 'a' ... 'f':
    case 'A' ... 'F':
        return 2;
    case 'x':
        return 3;
    default:
        return 0;
    }
}

int fallback(int x, int y)
{
    int counted = next_call() ?: 7;   /* the call happens once */
    int chosen = x ?: y;

    __asm__ volatile ("" ::: "memory");   /* a compiler barrier: no C object changes */
    if (chosen != x && x != 0) {
        return -1;  /* x ?: y is x unless x is 0 */
    }
    if (counted != 7 && counted != calls) {
        return -2;  /* the call happened once */
    }
    return chosen == y ? y : 0;
}

int table_class(unsigned i)
{
    uint8_t v = lookup[i & 15u];

    if (v == 1u) {
        return 1;
    }
    if (v == 2u) {
        return 2;
    }
    return v == 5u ? 5 : 0;
}
"""


def test_case_ranges_elvis_designator_ranges_and_asm_barriers(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("gnu_syntax.c", GNU_SYNTAX_UNIT)
    unit.assert_fully_covered("classify", "table_class")
    fallback = unit.functions["fallback"]
    lines = GNU_SYNTAX_UNIT.splitlines()
    dead = [(lines.index(text) + 1, label) for text, label in (
        ("    if (chosen != x && x != 0) {", "true"),
        ("    if (counted != 7 && counted != calls) {", "true"))]
    assert fallback.stop_reason == "exhausted" and not fallback.not_reached
    assert sorted((o.line, o.label) for o in fallback.unreachable) == dead
    assert {c.expected.returns.value for c in unit.functions["table_class"].cases} == \
        {0, 1, 2, 5}
    classify = unit.functions["classify"]
    assert {c.expected.returns.value for c in classify.cases} == {0, 1, 2, 3}


def test_asm_with_operands_skips_its_function(tmp_path: Path) -> None:
    source = tmp_path / "asm.c"
    source.write_text("int g(int) __asm__(\"real_g\");\n"
                      "int copy(int x)\n{\n    int y;\n"
                      "    __asm__ (\"mov %1, %0\" : \"=r\"(y) : \"r\"(x));\n    return y;\n}\n"
                      "int plain(int x)\n{\n    asm volatile (\"nop\");\n"
                      "    return x > 0 ? 1 : 2;\n}\n")
    functions = {f.name: f for f in generate_file(source, "asm.c", Options()).cases.functions}
    assert functions["copy"].skip_reason == \
        "asm.c:5:5: unsupported construct: inline assembly with operands"
    assert functions["plain"].stop_reason == "exhausted" and len(functions["plain"].cases) == 2
