"""Pointers as integers: `(uintptr_t)p` is the object's address plus the offset. An object
a case sets up lies at an address residue the case chooses (the harness places it), so
word-at-a-time loops and odd-address checks are generated and pass against the compiled
code; an integer computed from an address converts back into its object. A branch on where
unrelated objects lie is never predicted, and a fixed address skips its function with the
reason and its location."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit, unit_generator

from pytest_ctgen.cases import PLACEMENT, PointerValue

UNIT = r"""
#include <stddef.h>
#include <stdint.h>

size_t word_length(const char *s)
{
    const char *start = s;
    const size_t *w;

    for (; (uintptr_t)s % sizeof(size_t) != 0; s++) {
        if (*s == 0) {
            return (size_t)(s - start);
        }
    }
    for (w = (const void *)s; ((*w - 0x0101010101010101u) & ~*w & 0x8080808080808080u) == 0; w++) {
    }
    for (s = (const void *)w; *s != 0; s++) {
    }
    return (size_t)(s - start);
}

unsigned odd_start_sum(const uint8_t *p, int len)
{
    unsigned acc = 0;

    if (((uintptr_t)p & 1u) != 0u) {
        acc = (unsigned)p[0] << 8;
        p++;
        len--;
    }
    while (len > 1) {
        acc += (unsigned)(p[0] | (p[1] << 8));
        p += 2;
        len -= 2;
    }
    if (len == 1) {
        acc += p[0];
    }
    return acc;
}

char *align_down(char *p)
{
    return (char *)((uintptr_t)p & ~(uintptr_t)7);
}

ptrdiff_t distance(const int *a, const int *b)
{
    return (ptrdiff_t)((uintptr_t)b - (uintptr_t)a);
}

static int table[4];

int before_table(const int *p)
{
    if ((uintptr_t)p < (uintptr_t)table) {
        return 1;
    }
    return 2;
}
"""


@pytest.fixture(scope="module")
def addresses_unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    """UNIT generated once, every case run and passed."""
    return unit_generator(tmp_path_factory.mktemp("addresses"))("addresses.c", UNIT)


def _placements(fn) -> list[int | None]:
    return [o.placement for c in fn.cases for o in c.objects]


def test_word_at_a_time_and_odd_starts_are_generated_and_pass(
        addresses_unit: GeneratedUnit) -> None:
    unit = addresses_unit
    unit.assert_fully_covered("word_length", "odd_start_sum")
    # the case chooses where its object lies: aligned where it can, odd where it must
    placements = _placements(unit.functions["odd_start_sum"])
    assert any(p is not None and p % 2 == 1 for p in placements), placements
    assert any(p is not None and p % 2 == 0 for p in placements), placements
    assert all(p is None or 0 <= p < PLACEMENT for p in placements)
    unaligned = [p for p in _placements(unit.functions["word_length"]) if p]
    assert unaligned and all(p % 8 != 0 for p in unaligned), unaligned


def test_an_integer_from_an_address_converts_back_into_its_object(
        addresses_unit: GeneratedUnit) -> None:
    unit = addresses_unit
    (case,) = unit.functions["align_down"].cases
    (obj,) = case.objects
    assert obj.placement is not None
    returned = case.expected.returns
    assert isinstance(returned, PointerValue) and returned.target == obj.name
    assert returned.offset == -(obj.placement % 8)
    # into one object: exact, any placement; into two: never predicted
    distances = unit.functions["distance"].cases
    assert distances
    for c in distances:
        a, b = (p.value for p in c.params)
        assert isinstance(a, PointerValue) and isinstance(b, PointerValue)
        assert a.target == b.target
        assert c.expected.returns.value == b.offset - a.offset  # type: ignore[union-attr]


def test_where_unrelated_objects_lie_is_never_predicted(addresses_unit: GeneratedUnit) -> None:
    unit = addresses_unit
    fn = unit.functions["before_table"]
    # NULL (address 0) lies below the table, the table itself does not: both outcomes,
    # from inputs whose answer does not depend on where the loader put the table
    assert fn.stop_reason == "exhausted"
    assert sorted(c.expected.returns.value for c in fn.cases) == [1, 2]  # type: ignore
    cov = unit.run.coverage()["before_table"]
    assert cov.branches_covered == cov.branches_total == 2


def test_a_fixed_address_skips_its_function_with_the_reason(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("registers.c", """
#include <stdint.h>
#define GPIOA_ODR (*(volatile uint32_t *)0x40020014u)
void led_on(void) { GPIOA_ODR |= 1u; }
int twice(int x) { return x > 3 ? 2 * x : x; }
""")
    fn = unit.functions["led_on"]
    assert fn.stop_reason == "skipped"
    assert fn.skip_reason.startswith("registers.c:4:")
    assert "fixed address 0x40020014 used as a pointer" in fn.skip_reason
    unit.assert_fully_covered("twice")


def test_a_peripheral_mapped_to_an_extern_array_is_generated(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """README's remedy for fixed addresses: the register block is an array another module
    defines; the harness defines it (weak) and the cases set it as a global input. The
    harness spells attributes reserved and defines such globals by their symbol, so a
    unit's macros named `weak`, `noreturn` or like a global do not break it."""
    unit = generated_unit("gpio.c", """
#include <stdint.h>
#include <stdnoreturn.h>
#define weak __attribute__((__weak__))  /* a C library's own spelling */
struct port { int open; };
extern struct port *const console;  /* declared, then replaced by a macro (musl's stdin) */
static struct port console_port;
#define console (&console_port)
extern volatile uint32_t gpioa_regs[8];
#define GPIOA_ODR (*(volatile uint32_t *)((uintptr_t)gpioa_regs + 0x14u))
int led_toggle(void)
{
    if (GPIOA_ODR & 1u) {
        GPIOA_ODR &= ~1u;
        return 0;
    }
    GPIOA_ODR |= 1u;
    return console->open;
}
""")
    unit.assert_fully_covered("led_toggle")
    fn = unit.functions["led_toggle"]
    odr = [next(g for g in c.globals if g.name == "gpioa_regs").value.elements[5].value
           for c in fn.cases]  # type: ignore[union-attr]
    assert sorted(v & 1 for v in odr) == [0, 1]


def test_a_returned_local_may_share_its_slot(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """gcc reuses the stack slot of a returned call's local: whether two calls give the
    same address is not predicted, and neither outcome is called unreachable."""
    unit = generated_unit("slots.c", """
#include <stdint.h>
static uintptr_t where(void) { int x = 0; return (uintptr_t)&x; }
int same(void)
{
    uintptr_t a = where(), b = where();
    if (a == b)
        return 1;
    return 0;
}
""")
    fn = unit.functions["same"]
    assert fn.unreachable == ()
    assert fn.stop_reason == "approximation" and len(fn.not_reached) == 2
