"""Distinguishing data (issue 19): what a case's path leaves free gets distinct values, so a
copy from the wrong offset, swapped arguments or an off-by-one copy changes what the case
observes; what the path constrains keeps its readable or boundary value."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import OPERAND_NOTE, RESULT_NOTE, ArrayValue, IntValue, Value
from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

UNIT = r"""
#include <stdint.h>

void copy_bytes(uint8_t *dst, const uint8_t *src, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        dst[i] = src[i];
    }
}

struct pair { unsigned lo, hi; };

unsigned span(const struct pair *p, unsigned limit)
{
    if (limit < 100u) {
        return 0u;
    }
    return p->hi - p->lo;
}

/* a register as a word and as bitfields: the bits a path decides (fault) and the bits it
   leaves free (retries) are one input */
union ctrl_reg {
    uint32_t word;
    struct { uint32_t busy : 1, fault : 1, pad : 6, retries : 4, rest : 20; } bits;
};

unsigned clear_fault(union ctrl_reg *r)
{
    if (!r->bits.fault) {
        return 0u;
    }
    r->bits.fault = 0u;
    r->bits.retries = 0u;
    return 1u;
}

uint32_t field(uint32_t reg, unsigned pos)
{
    if (pos > 24u) {
        return 0u;
    }
    return (reg >> pos) & 0x7Fu;
}

uint8_t g_flags;

void mark(unsigned ch)
{
    if (ch < 8u) {
        g_flags |= (uint8_t)(1u << ch);
    }
}

unsigned sensor(void);

unsigned scaled(void)
{
    return sensor() * 3u;
}

uint16_t g_count;
uint8_t g_saturated;

/* the saturating path writes g_saturated without reading it: it must not start at 1 */
uint16_t count_up(void)
{
    if (g_count >= 1000u) {
        g_count = 1000u;
        g_saturated = 1u;
    } else {
        g_count++;
    }
    return g_count;
}

unsigned g_used;

/* the boundary of `mark > g_used` has mark == g_used, where the write changes nothing */
int release(unsigned mark)
{
    if (mark > g_used) {
        return -1;
    }
    g_used = mark;
    return 0;
}

union status {
    uint32_t word;
    struct { uint32_t ready : 1, trim : 5, rest : 26; } bits;
};
union status g_status;

/* the boundary of `x == 0u` is x = 1, for which the result is 0 */
unsigned permille(unsigned x)
{
    if (x == 0u) {
        return 0u;
    }
    return (x * 1000u + 16384u) >> 15;
}

/* the path reads one byte of the word: the others are free */
uint8_t second_byte(uint32_t word)
{
    const uint8_t *bytes = (const uint8_t *)&word;

    if (bytes[0] == 0u) {
        return bytes[1];
    }
    return bytes[0];
}

/* one byte holds both fields: the ready bit must show on its own */
void set_trim(int value)
{
    g_status.bits.trim = value;
    g_status.bits.ready = 1u;
}
"""

# One change each, of the kind a distinguishing case must notice.
MUTANTS = {
    "copy_bytes": ("dst[i] = src[i];", "dst[i] = src[i + 1];"),  # the wrong offset
    "span": ("return p->hi - p->lo;", "return p->lo - p->hi;"),  # swapped operands
    "scaled": ("return sensor() * 3u;", "return 3u * 3u;"),  # the stub's result unused
    "clear_fault": ("r->bits.retries = 0u;", ";"),  # a bitfield no longer cleared
    "field": ("& 0x7Fu;", "& 0x3Fu;"),  # one bit of the mask lost
    "mark": ("g_flags |= (uint8_t)(1u << ch);", ";"),  # the bit no longer set
    "count_up": ("g_saturated = 1u;", ";"),  # a flag no longer set
    "release": ("g_used = mark;", ";"),  # a global no longer written
    "set_trim": ("g_status.bits.ready = 1u;", ";"),  # a bitfield no longer set
    "permille": (">> 15;", ">> 16;"),  # a wrong shift, hidden where the result is 0
    "second_byte": ("return bytes[1];", "return bytes[2];"),  # the wrong byte
}


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("distinct"))("data.c", UNIT)


def _ints(value: Value) -> list[int]:
    if isinstance(value, IntValue):
        return [value.value]
    assert isinstance(value, ArrayValue), value
    return [x for element in value.elements for x in _ints(element)]


def test_free_bytes_differ_from_each_other_and_from_the_destination(
        unit: GeneratedUnit) -> None:
    copies = [c for c in unit.functions["copy_bytes"].cases if c.params[2].value.value >= 1]
    assert copies
    for case in copies:
        objects = {o.name: _ints(o.value) for o in case.objects}
        everything = objects["ctgen_obj_dst"] + objects["ctgen_obj_src"]
        assert len(set(everything)) == len(everything), objects
        assert 0 not in everything


def test_what_the_path_constrains_keeps_its_boundary(unit: GeneratedUnit) -> None:
    limits = sorted(c.params[1].value.value for c in unit.functions["span"].cases)
    assert limits == [99, 100]
    [reached] = [c for c in unit.functions["span"].cases if c.params[1].value.value == 100]
    [pair] = [o for o in reached.objects if o.name == "ctgen_obj_p"]
    first = _ints(pair.value.elements[0].fields[0][1]) + \
        _ints(pair.value.elements[0].fields[1][1])
    assert first[0] != first[1]


def test_a_stub_result_nothing_constrains_is_distinct_from_zero(unit: GeneratedUnit) -> None:
    """(The operand case, whose result is not 1 either, is one more.)"""
    for case in unit.functions["scaled"].cases:
        [script] = case.stubs
        [call] = script.calls
        assert isinstance(call.returns, IntValue) and call.returns.value != 0


def test_a_free_input_the_output_masks_has_bits_across_its_width(unit: GeneratedUnit
                                                                  ) -> None:
    """Small distinct values (1, 2, 3) have no bit where most masks look: reg, shifted and
    masked into the result, gets a value with bits set in every byte. (The operand case
    of the mask, whose neighbours 0x7E and 0x80 must give other results, is one more.)"""
    [masked] = [c for c in unit.functions["field"].cases
                if c.params[1].value.value <= 24 and OPERAND_NOTE not in c.notes]
    reg = masked.params[0].value.value
    assert all(reg >> (8 * k) & 0xFF for k in range(4)), hex(reg)
    assert bin(reg).count("1") == 16, hex(reg)


def test_the_bit_the_code_sets_is_clear_before(unit: GeneratedUnit) -> None:
    """g_flags gets bits across its width, but never the bit mark sets: that would hide
    the write. (The operand case of `|` has it set: operands that share a bit tell `|`
    from `^`.)"""
    [marked] = [c for c in unit.functions["mark"].cases
                if c.params[0].value.value < 8 and OPERAND_NOTE not in c.notes]
    ch = marked.params[0].value.value
    [flags] = marked.globals
    assert flags.value.value >> ch & 1 == 0 and bin(flags.value.value).count("1") >= 2


def test_a_written_global_starts_from_another_value(unit: GeneratedUnit) -> None:
    """Where the path allows, what a global held before differs from what the function
    writes into it: the flag set to 1 starts elsewhere; `release` has a case that lowers
    g_used (and its boundary case, mark == g_used, besides)."""
    [saturating] = [c for c in unit.functions["count_up"].cases
                    if {b.name: b.value for b in c.globals}["g_count"].value >= 1000
                    and not any("boundary" in n for n in c.notes)]
    assert {b.name: b.value for b in saturating.globals}["g_saturated"] != IntValue(1)
    lowered = [(c.params[0].value.value, c.globals[0].value.value)
               for c in unit.functions["release"].cases if c.expected.returns == IntValue(0)]
    assert any(mark < used for mark, used in lowered), lowered
    assert any(mark == used for mark, used in lowered), lowered


def test_the_bytes_of_a_word_the_path_does_not_read_are_distinct(unit: GeneratedUnit
                                                                  ) -> None:
    for case in unit.functions["second_byte"].cases:
        word = case.params[0].value.value
        assert all(word >> (8 * k) & 0xFF for k in (1, 2, 3)), hex(word)
        assert len({word >> (8 * k) & 0xFF for k in (1, 2, 3)}) == 3, hex(word)


def test_a_path_whose_case_returns_0_gets_a_case_with_another_result(
        unit: GeneratedUnit) -> None:
    cases = unit.functions["permille"].cases
    computed = [c for c in cases if c.params[0].value != IntValue(0)]
    assert IntValue(0) in [c.expected.returns for c in computed]
    [other] = [c for c in computed if RESULT_NOTE in c.notes]
    assert other.expected.returns != IntValue(0) and 0 < other.params[0].value.value <= 100


@pytest.mark.parametrize("function", sorted(MUTANTS))
def test_the_cases_kill_the_mutant(unit: GeneratedUnit, tmp_path: Path, function: str
                                   ) -> None:
    before, after = MUTANTS[function]
    assert before in UNIT
    assert unit.kills(UNIT.replace(before, after), function, tmp_path), function
