"""Boundary values (issue 19): the comparisons a case's path decides are decided at their
boundary, one step from turning, when the path allows."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import IntValue, is_extra

from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

UNIT = r"""
int limits(int x, int y)
{
    if (x < 100) {
        return 1;
    }
    if (y >= 20 && x != 250) {
        return 2;
    }
    if (x == 300) {
        return 3;
    }
    return 0;
}

unsigned wrap(unsigned u)
{
    if (u > 7u) {
        return 1u;
    }
    return 0u;
}

int ranged(int v)
{
    if (v > -50 && v < 50) {
        return 1;
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("boundaries"))("limits.c", UNIT)


def _inputs(unit: GeneratedUnit, name: str) -> dict[object, tuple[object, ...]]:
    """Each case's inputs by what it returned (the fixture ran each against gcc)."""
    return {case.expected.returns.value: tuple(p.value.value for p in case.params)
            for case in unit.functions[name].cases}


def test_each_outcome_is_reached_one_step_from_the_other(unit: GeneratedUnit) -> None:
    cases = _inputs(unit, "limits")
    assert cases[1][0] == 99  # x < 100 by the least step
    assert cases[2] == (100, 20)  # x < 100 false at 100, y >= 20 true at 20
    assert cases[3][0] == 300
    # returns 0: y >= 20 false at 19, or x != 250 false at 250
    assert cases[0][1] == 19 or cases[0][0] == 250


def test_unsigned_and_two_sided_comparisons(unit: GeneratedUnit) -> None:
    assert _inputs(unit, "wrap") == {1: (8,), 0: (7,)}
    inside, outside = _inputs(unit, "ranged")[1][0], _inputs(unit, "ranged")[0][0]
    assert inside in (-49, 49) and outside in (-50, 50)


def test_boundaries_never_wrap_around(tmp_path: Path) -> None:
    """`a > 1000000` decided false by INT_MIN would be "one step" (INT_MIN - 1 wraps to
    INT_MAX): the boundary is 1000000."""
    unit = unit_generator(tmp_path)(
        "big.c", "int big(int a) { if (a > 1000000) return 1; return 0; }\n")
    assert _inputs(unit, "big") == {1: (1000001,), 0: (1000000,)}


def test_a_path_past_the_recursion_bound_runs_on_and_covers_its_outcome(
        tmp_path: Path) -> None:
    """McCarthy's 91: the search's path into `n <= 100` recurses past the recursion bound;
    it is run on concretely (as gcc computes it: 91) and the outcome it takes is covered,
    never listed as not reached beside a case that covers it."""
    unit = unit_generator(tmp_path)(
        "mc.c", "int mc91(int n) { if (n > 100) return n - 10; return mc91(mc91(n + 11)); }\n")
    fn = unit.functions["mc91"]
    (recursing,) = [c for c in fn.cases
                    if any(o.label == "false" for o in c.covered) and not is_extra(c)]
    assert recursing.params[0].value.value <= 100
    assert recursing.expected.returns == IntValue(91)
    unit.assert_fully_covered("mc91")  # exhausted, nothing not reached, gcov 100%
