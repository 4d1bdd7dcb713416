"""Cases whose outputs or branches show what an integer operation computed (issue 19): its
operands may tell `<<` from `>>` where it is evaluated while what follows hides the
difference. Each mutant below is killed by an effect case; without the effect goals, those
of `clear_run` and `quinary_digits` survive every other case (that of `odd_weight` is
killed by another case by chance)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import EFFECT_NOTE

from tests.symbolic.generated_unit import GeneratedUnit, scalar_params, unit_generator

UNIT = r"""
#include <stdbool.h>
#include <stdint.h>

/* Clears count bits of *w from bit first up; false when they do not fit in 16 bits. */
bool clear_run(uint16_t *w, uint8_t first, uint8_t count)
{
    if (first >= 16u || count == 0u || count > 16u - first) {
        return false;
    }
    *w &= (uint16_t)~(((1u << count) - 1u) << first);
    return true;
}

/* How many digits v has in base 5 (1 for 0). */
uint8_t quinary_digits(uint16_t v)
{
    uint8_t n = 1u;
    while (v >= 5u) {
        v /= 5u;
        n++;
    }
    return n;
}

/* Whether b has an odd number of bits set. */
bool odd_weight(uint8_t b)
{
    bool odd = false;
    while (b != 0u) {
        odd = odd != ((b & 1u) != 0u);
        b >>= 1;
    }
    return odd;
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("effect"))("effect.c", UNIT)


def test_a_run_below_the_top_bit_shows_how_its_mask_is_made(unit: GeneratedUnit,
                                                           tmp_path: Path) -> None:
    """The search and the boundary cases clear runs that reach bit 15, where a mask of all
    ones shifted by `first` clears the same bits; an effect case clears one below it."""
    below = [c for c in unit.noted("clear_run", EFFECT_NOTE)
             for s in [scalar_params(c)] if s["first"] + s["count"] < 16]
    assert below, unit.functions["clear_run"].cases
    assert unit.kills_line("clear_run", "((1u << count) - 1u)", "((1u >> count) - 1u)",
                           tmp_path)


def test_a_divisor_one_off_changes_how_many_passes_the_loop_makes(unit: GeneratedUnit,
                                                                  tmp_path: Path) -> None:
    """`v /= 6u` gives the search's values as many passes as `v /= 5u` does; an effect
    case has a value for which it does not (25: 4 with 6u, then the loop ends)."""
    assert unit.noted("quinary_digits", EFFECT_NOTE), unit.functions["quinary_digits"].cases
    assert unit.kills_line("quinary_digits", "v /= 5u;", "v /= 6u;", tmp_path)


def test_a_shift_the_wrong_way_shows_in_the_weight_it_counts(unit: GeneratedUnit,
                                                            tmp_path: Path) -> None:
    """Shifted left, b keeps its bit 0 clear after the first pass: the result is bit 0,
    which is the weight's parity for the search's values; an effect case has a value
    whose parity is not its bit 0."""
    shown = [c for c in unit.noted("odd_weight", EFFECT_NOTE)
             for b in [scalar_params(c)["b"]] if bin(b).count("1") % 2 != b & 1]
    assert shown, unit.functions["odd_weight"].cases
    assert unit.kills_line("odd_weight", "b >>= 1;", "b <<= 1;", tmp_path)
