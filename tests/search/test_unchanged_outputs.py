"""Every output is checked (issue 19), also where the case's path leaves it as it was: a
global the unit may write that the case sets, and what a pointer to non-const points to.
A mutant that writes them on that path (a saturation that wraps, a write under the wrong
condition) fails the case; a global nothing in the unit writes, and what a pointer to
const points to, are not checked."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import Binding, IntValue
from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

UNIT = r"""
#include <stdint.h>

uint16_t g_errors;
uint8_t g_limit;

void count_error(void)
{
    if (g_errors < 0xFFFFu) {
        g_errors++;
    }
}

int over_limit(int v)
{
    return v > g_limit;
}

int clamp_into(int v, int *out, const int *floor)
{
    if (v > 10) {
        *out = 10;
    }
    return v - *floor;
}
"""

MUTANTS = {
    "count_error": ("g_errors < 0xFFFFu", "g_errors <= 0xFFFFu"),
    "clamp_into": ("v > 10", "v >= 10"),
}


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("unchanged"))("outputs.c", UNIT)


def _named(bindings: tuple[Binding, ...]) -> dict[str, object]:
    return {b.name: b.value for b in bindings}


def test_a_saturated_counter_is_checked_unchanged(unit: GeneratedUnit) -> None:
    [saturated] = [c for c in unit.functions["count_error"].cases
                   if _named(c.globals)["g_errors"] == IntValue(0xFFFF)]
    assert _named(saturated.expected.globals)["g_errors"] == IntValue(0xFFFF)


def test_a_global_nothing_writes_is_not_checked(unit: GeneratedUnit) -> None:
    for case in unit.functions["over_limit"].cases:
        assert "g_limit" in _named(case.globals)
        assert case.expected.globals == ()


def test_what_a_path_does_not_write_through_is_checked(unit: GeneratedUnit) -> None:
    """The boundary case v == 10 writes nothing: it sets `*out` and checks that it kept its
    value; `*floor` (const) is not checked."""
    [kept] = [c for c in unit.functions["clamp_into"].cases
              if _named(c.params)["v"] == IntValue(10)]
    objects = _named(kept.objects)
    [out] = [name for name in objects if name.endswith("_out")]
    assert _named(kept.expected.objects) == {out: objects[out]}


@pytest.mark.parametrize("function", sorted(MUTANTS))
def test_the_cases_kill_the_mutant(unit: GeneratedUnit, tmp_path: Path, function: str
                                   ) -> None:
    before, after = MUTANTS[function]
    assert before in UNIT
    assert unit.kills(UNIT.replace(before, after), function, tmp_path), function
