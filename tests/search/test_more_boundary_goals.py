"""The boundary goals that tell a constant one off, a loop left early after passes or at
its last pass, a boundary past the objects the search made, a sign applied to 0 and an
operator whose operands are 0 (issue 19): each mutant below is killed by a case these
goals add."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import (BOUNDARY_NOTE, LOOP_NOTE, NEAR_NOTE, OPERAND_NOTE,
                                RESULT_NOTE, ArrayValue, Case, IntValue)

from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

UNIT = r"""
#include <stddef.h>
#include <stdint.h>

/* How many times v can be divided by 10 before it is below 10. */
unsigned tens(uint32_t v)
{
    unsigned n = 0u;
    while (v >= 10u) {
        v /= 10u;
        n++;
    }
    return n;
}

/* Where the first slot holding tag is, -1 when none of the first n does. */
int slot_of(const uint8_t *slots, size_t n, uint8_t tag)
{
    size_t i;
    for (i = 0u; i < n; i++) {
        if (slots[i] == tag) {
            return (int)i;
        }
    }
    return -1;
}

#define CHANNELS 4

/* 1 when every channel reads within [lo, hi]; 0 at the first that does not. */
int channels_ok(const int16_t reading[CHANNELS], int16_t lo, int16_t hi)
{
    int ch;
    for (ch = 0; ch < CHANNELS; ch++) {
        if (reading[ch] < lo || reading[ch] > hi) {
            return 0;
        }
    }
    return 1;
}

#define MAX_WORDS 24u

/* The sum of n words; -1 when n is not in 1..MAX_WORDS. */
int32_t word_sum(const uint16_t *w, size_t n)
{
    int32_t sum = 0;
    size_t k;
    if (n == 0u || n > MAX_WORDS) {
        return -1;
    }
    for (k = 0u; k < n; k++) {
        sum += w[k];
    }
    return sum;
}

/* A signed digit: "-d" or "d"; 0 when text is neither. */
int signed_digit(const char *text, int *value)
{
    int negative = 0;
    if (*text == '-') {
        negative = 1;
        text++;
    }
    if (*text < '0' || *text > '9') {
        return 0;
    }
    *value = negative ? -(*text - '0') : *text - '0';
    return 1;
}

/* The byte off places after start in a ring of 16 holding count bytes; 0 past them. */
uint8_t ring_at(const uint8_t ring[16], uint8_t start, uint8_t count, uint8_t off)
{
    if (off >= count) {
        return 0u;
    }
    return ring[(start + off) & 15u];
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("more_goals"))("more_goals.c", UNIT)



def _returned(case: Case) -> int:
    """What the case predicts the function returns."""
    assert isinstance(case.expected.returns, IntValue)
    return case.expected.returns.value


def _noted(unit: GeneratedUnit, function: str, note: str) -> list[dict[str, object]]:
    """The inputs of the cases of `function` that carry `note`, by parameter name."""
    return [{p.name: getattr(p.value, "value", p.value) for p in case.params}
            for case in unit.functions[function].cases if note in case.notes]


def test_sides_one_apart_tell_a_constant_one_off(unit: GeneratedUnit, tmp_path: Path
                                                 ) -> None:
    """v = 10 decides `v >= 10` with equal sides, and `v >= 9` decides it alike; v = 9,
    the sides one apart where the outcome turns, tells them apart."""
    assert {"v": 9} in _noted(unit, "tens", NEAR_NOTE)
    assert unit.kills_line("tens", "while (v >= 10u)", "while (v >= 9u)", tmp_path)
    assert not unit.kills_line("tens", "while (v >= 10u)", "while (v > 9u)", tmp_path)


def test_each_way_out_of_a_loop_is_taken_after_passes(unit: GeneratedUnit, tmp_path: Path
                                                      ) -> None:
    """Branch coverage is content with the `return (int)i` on the first slot; a case
    takes it after more than one pass (a loop case where no case of the search did), and
    another leaves through the loop's condition after passes, where a counter that steps
    the wrong way is seen."""
    cases = unit.functions["slot_of"].cases
    returns = [_returned(case) for case in cases]
    assert any(r >= 1 for r in returns), returns
    assert any(LOOP_NOTE in case.notes and _returned(case) == -1 for case in cases)
    assert unit.kills_line("slot_of", "i < n; i++)", "i < n; i--)", tmp_path)


def test_a_way_out_of_a_loop_is_taken_at_the_last_pass_the_search_reached(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """A case leaves a loop of 4 passes by its `return 0` at the fourth channel, the
    deepest pass the search reached that way out at: only it fails a loop that stops a
    channel early."""
    def last_out(case: Case) -> bool:
        reading = next(o.value for o in case.objects)
        assert isinstance(reading, ArrayValue)
        values = [v.value for v in reading.elements[:4] if isinstance(v, IntValue)]
        bounds = {p.name: p.value.value for p in case.params if isinstance(p.value, IntValue)}
        inside = [bounds["lo"] <= v <= bounds["hi"] for v in values]
        return inside == [True, True, True, False]
    cases = unit.functions["channels_ok"].cases
    assert any(LOOP_NOTE in c.notes and last_out(c) for c in cases), cases
    assert unit.kills_line("channels_ok", "ch < CHANNELS;", "ch < CHANNELS - 1;", tmp_path)


def test_a_boundary_past_the_objects_of_the_search(unit: GeneratedUnit, tmp_path: Path
                                                   ) -> None:
    """n == MAX_WORDS needs 24 words behind w, more than the search's objects hold: the
    boundary case runs with larger ones."""
    assert any(inputs["n"] == 24 for inputs in _noted(unit, "word_sum", BOUNDARY_NOTE))
    assert unit.kills_line("word_sum", "n > MAX_WORDS", "n >= MAX_WORDS", tmp_path)


def test_an_output_of_0_gets_a_case_where_it_is_not(unit: GeneratedUnit, tmp_path: Path
                                                    ) -> None:
    """"-0" writes 0 through the sign; a result case writes another value on that path,
    so a sign that is never applied fails it."""
    negative = [case for case in unit.functions["signed_digit"].cases
                if RESULT_NOTE in case.notes]
    assert negative, unit.functions["signed_digit"].cases
    assert unit.kills_line("signed_digit", "negative = 1;", "negative = 0;", tmp_path)


def test_operands_that_tell_the_operator(unit: GeneratedUnit, tmp_path: Path) -> None:
    """count = 1 and off = 0 decide `off >= count` one step from turning, and make
    `start + off` equal `start - off`; an operand case gives them values that tell the
    operators apart."""
    told = _noted(unit, "ring_at", OPERAND_NOTE)
    assert told and all(inputs["start"] != 0 and inputs["off"] != 0 for inputs in told)
    assert unit.kills_line("ring_at", "(start + off) & 15u", "(start - off) & 15u", tmp_path)
