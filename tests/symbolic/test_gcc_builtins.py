"""GCC's bit builtins (clz, ctz, popcount, parity, ffs, clrsb in every width, bswap16/32/64)
the overflow builtins (add, sub, mul) and the `__atomic_*`/`__sync_*` builtins are modelled
exactly: every case passes against the compiled code, gcov measures every outcome, and the
bit builtins' constant values agree with gcc's in constant expressions."""
from __future__ import annotations

import subprocess
from pathlib import Path
from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.frontend.builtins import BIT_BUILTINS, evaluate

UNIT = r"""
#include <stdint.h>

/* what a software division or a normalisation step does */
int lead(uint32_t x)
{
    int n;

    if (x == 0u) {
        return -1;
    }
    n = __builtin_clz(x);
    if (n > 20) {
        return 1;
    }
    if (n == 3) {
        return 2;
    }
    return 0;
}

int lead_wide(unsigned long x, unsigned long long y)
{
    if (x != 0u && __builtin_clzl(x) == 63) {
        return 1;
    }
    if (y != 0u && __builtin_ctzll(y) == 40) {
        return 2;
    }
    return 0;
}

int bits_set(uint64_t v)
{
    int n = __builtin_popcountll(v);

    if (n == 7) {
        return 1;
    }
    if (__builtin_parity((unsigned)v)) {
        return 2;
    }
    return __builtin_popcountl((unsigned long)v) > 60 ? 3 : 0;
}

int low(int x, long y)
{
    int f = __builtin_ffs(x);

    if (f == 0) {
        return 0;
    }
    if (f > 16) {
        return 1;
    }
    if (__builtin_ffsl(y) == 64) {
        return 2;
    }
    return __builtin_ctz((unsigned)x) + 10;
}

uint32_t swapped(uint32_t x)
{
    if (__builtin_bswap32(x) == 0x11223344u) {
        return 1u;
    }
    if (__builtin_bswap16((uint16_t)x) == 0xABCDu) {
        return 2u;
    }
    return (uint32_t)(__builtin_bswap64(x) >> 32);
}

int sign_bits(int x, long long y)
{
    int r = __builtin_clrsb(x);

    if (r == 31) {
        return 1;
    }
    if (r == 5) {
        return 2;
    }
    return __builtin_clrsbll(y) == 0 ? 3 : 0;
}

enum { SHIFT = __builtin_ctz(64u), WIDTH = 32 - __builtin_clz(1000u) };
static const unsigned table[2] = { __builtin_popcount(0xF0u), __builtin_bswap16(0x1234u) };

int consts(int i)
{
    if (i < 0 || i > 1) {
        return -1;
    }
    if (table[i] == 0x3412u) {
        return SHIFT;
    }
    return WIDTH;
}
"""

FUNCTIONS = {"lead", "lead_wide", "bits_set", "low", "swapped", "sign_bits", "consts"}


def test_bit_builtins_are_exact(generated_unit: Callable[[str, str], GeneratedUnit]
                                ) -> None:
    unit = generated_unit("bits.c", UNIT)
    assert set(unit.functions) == FUNCTIONS
    unit.assert_fully_covered()
    assert {c.expected.returns.value for c in unit.functions["consts"].cases} == {-1, 6, 10}


OPERANDS = [0, 1, 2, 3, 0x80, 0xFF, 0x1234, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFF,
            0xDEADBEEF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 0x0123456789ABCDEF, -1, -2,
            -0x80000000, 12345678901234]


def test_constant_values_agree_with_gcc(tmp_path: Path) -> None:
    """`evaluate` against a program compiled by gcc, for every builtin and operand."""
    lines = ["#include <stdio.h>", "int main(void) {"]
    expected = []
    for name, builtin in sorted(BIT_BUILTINS.items()):
        for k in OPERANDS:
            arg = builtin.argument
            value = arg.wrap(k)
            result = evaluate(builtin, value)
            if result is None:
                continue  # undefined in gcc
            literal = f"(({arg.name}){k & 0xFFFFFFFFFFFFFFFF}ULL)"
            shown = ('"%lld\\n", (long long)' if builtin.result.signed
                     else '"%llu\\n", (unsigned long long)')
            lines.append(f"    printf({shown}{name}({literal}));")
            expected.append(builtin.result.wrap(result))
    lines += ["    return 0;", "}"]
    source = tmp_path / "probe.c"
    source.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "probe"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(source)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    assert [int(v) for v in out.split()] == expected


@pytest.mark.parametrize("name", ["__builtin_clz", "__builtin_ctzll"])
def test_undefined_at_zero(name: str) -> None:
    assert evaluate(BIT_BUILTINS[name], 0) is None


OVERFLOW_UNIT = r"""
#include <stdint.h>
#include <stdbool.h>

int32_t sat_add(int32_t a, int32_t b)
{
    int32_t r;

    if (__builtin_add_overflow(a, b, &r)) {
        return a > 0 ? INT32_MAX : INT32_MIN;
    }
    return r;
}

int mul_len(uint32_t n, uint32_t size, uint32_t *out)
{
    if (__builtin_mul_overflow(n, size, out)) {
        return -1;
    }
    return *out > 1000u ? 1 : 0;
}

/* mixed signedness, a narrow result, the flag kept in a variable */
int narrow(int a, unsigned b)
{
    uint8_t r;
    bool over = __builtin_sub_overflow(a, b, &r);

    if (over) {
        return 1000 + r;
    }
    return r;
}

/* the result overwrites an operand: the flag is taken first */
int64_t square(int64_t x)
{
    if (__builtin_mul_overflow(x, x, &x)) {
        return -1;
    }
    return x;
}
"""


def test_overflow_builtins_are_exact(generated_unit: Callable[[str, str], GeneratedUnit]
                                     ) -> None:
    unit = generated_unit("ovf.c", OVERFLOW_UNIT)
    assert set(unit.functions) == {"sat_add", "mul_len", "narrow", "square"}
    unit.assert_fully_covered()
    saturated = {c.expected.returns.value for c in unit.functions["sat_add"].cases}
    assert {2 ** 31 - 1, -2 ** 31} <= saturated
    for case in unit.functions["narrow"].cases:
        a, b = (p.value.value for p in case.params)
        over = not 0 <= a - (b & 0xFFFFFFFF) <= 255
        r = (a - b) & 0xFF
        assert case.expected.returns.value == (1000 + r if over else r)


ATOMIC_UNIT = r"""
#include <stdint.h>
#include <stdbool.h>

static volatile uint32_t head;
static uint32_t counter;
int16_t level;
uint8_t flags;

uint32_t take(uint32_t n)
{
    uint32_t h = __atomic_load_n(&head, __ATOMIC_ACQUIRE);

    if (h >= n) {
        __atomic_store_n(&head, h - n, __ATOMIC_RELEASE);
        return n;
    }
    return __atomic_exchange_n(&head, 0u, __ATOMIC_SEQ_CST);
}

uint32_t bump(uint32_t by)
{
    uint32_t before = __atomic_fetch_add(&counter, by, __ATOMIC_RELAXED);

    if (before > 0xFFFFFFF0u) {
        return 1u;
    }
    if (__atomic_sub_fetch(&counter, 1u, __ATOMIC_RELAXED) == 5u) {
        return 2u;
    }
    return __sync_fetch_and_or(&counter, 0x100u) & 3u;
}

int try_set(int16_t want)
{
    int16_t expected = 7;

    if (__atomic_compare_exchange_n(&level, &expected, want, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        return 1;
    }
    if (expected < 0) {
        return 2;
    }
    /* expected now holds what level held: this swap cannot fail */
    if (__sync_bool_compare_and_swap(&level, expected, (int16_t)(want + 1))) {
        __sync_synchronize();
        return 3;
    }
    return __sync_val_compare_and_swap(&level, 9, 10);
}

int nand_it(uint8_t m)
{
    uint8_t was = __atomic_fetch_nand(&flags, m, __ATOMIC_RELAXED);

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (flags == 0xFFu) {
        return was;
    }
    __sync_lock_release(&flags);
    return __sync_lock_test_and_set(&flags, 1) + 100;
}
"""


def test_atomic_builtins_are_exact(generated_unit: Callable[[str, str], GeneratedUnit]
                                   ) -> None:
    unit = generated_unit("atom.c", ATOMIC_UNIT)
    assert set(unit.functions) == {"take", "bump", "try_set", "nand_it"}
    unit.assert_fully_covered("take", "bump", "nand_it")
    # the second swap is given what the first one found: its false outcome is dead
    try_set = unit.functions["try_set"]
    assert try_set.stop_reason == "exhausted"
    line = ATOMIC_UNIT.splitlines().index(
        "    if (__sync_bool_compare_and_swap(&level, expected, (int16_t)(want + 1))) {") + 1
    assert [(o.line, o.label) for o in try_set.unreachable] == [(line, "false")]
    assert {c.expected.returns.value for c in try_set.cases} == {1, 2, 3}


CONSTANT_P_UNIT = r"""
static const int K = 4;
enum { E = 3 };

/* gcc -O0: constant expressions of C are constants, objects are not, even const ones */
int classify_constants(int x)
{
    const int c = 7;
    int r = __builtin_constant_p(5) * 1 + __builtin_constant_p(x) * 2 +
            __builtin_constant_p(c) * 4 + __builtin_constant_p(K) * 8 +
            __builtin_constant_p(E + 1) * 16 + __builtin_constant_p(sizeof(int)) * 32 +
            __builtin_constant_p("abc") * 64 + __builtin_constant_p(3.5) * 128 +
            __builtin_constant_p((char *)0) * 256 + __builtin_constant_p(x + 1) * 512;

    return x > 3 ? r : -r;
}
"""


def test_constant_p_answers_as_gcc_at_O0(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("cp.c", CONSTANT_P_UNIT)
    unit.assert_fully_covered()
    cases = unit.functions["classify_constants"].cases
    assert {c.expected.returns.value for c in cases} == {497, -497}


LIBRARY_UNIT = r"""
#include <string.h>
#include <stdint.h>

int frame(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n > 8u) {
        return -1;
    }
    __builtin_memcpy(dst, src, n);
    __builtin_memset(dst + n, 0, 8u - n);
    if (__builtin_memcmp(dst, "AB", 2) == 0) {
        return 1;
    }
    return (int)__builtin_strlen("xyz");
}
"""


def test_library_builtins_are_the_modelled_functions(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("lb.c", LIBRARY_UNIT)
    unit.assert_fully_covered()
    assert not unit.run.generated.cases.stubs  # modelled, not stubbed
    assert {c.expected.returns.value for c in unit.functions["frame"].cases} == {-1, 1, 3}


UNDEFINED_AT_ZERO_UNIT = r"""
int leading(unsigned x)
{
    int n = __builtin_clz(x);

    if (x == 0u) {
        return -1;  /* reached only through clz(0), which gcc leaves undefined */
    }
    return n > 30 ? 1 : 2;  /* `? 1 : 0` would be no branch: gcc folds it to `n > 30` */
}
"""


def test_clz_of_zero_is_a_finding_and_its_outcome_is_reached(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """gcc leaves clz(0) undefined, and the compiled code does run that path: the path is
    a finding (a failing case that names it), never a reason to call the outcome behind
    it unreachable: what the compiled code does after it is not modelled, so that outcome
    is listed as not reached, and gcov sees the finding's run take it."""
    unit = generated_unit("clz0.c", UNDEFINED_AT_ZERO_UNIT)
    fn = unit.functions["leading"]
    lines = UNDEFINED_AT_ZERO_UNIT.splitlines()
    line = lines.index("    int n = __builtin_clz(x);") + 1
    assert fn.stop_reason == "approximation" and not fn.unreachable
    assert [(o.line, o.label) for o in fn.not_reached] == [
        (lines.index("    if (x == 0u) {") + 1, "true")]
    assert unit.findings["leading"] == [
        f"undefined behaviour at clz0.c:{line}:9: __builtin_clz of 0 in __builtin_clz(x)"]
    assert {c.expected.returns.value for c in fn.cases if c.finding is None} == {1, 2}
    coverage = unit.run.coverage()["leading"]
    assert coverage.branches_covered == coverage.branches_total
