"""A boundary case of a comparison that is one condition of a decision of several lets the
comparison decide the decision (search/unmasking.py): the other conditions take values
under which the comparison's other outcome changes the branch, so a `>=` written `>` or a
constant one off fails the case."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import BOUNDARY_NOTE, Case
from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

UNIT = r"""
#include <stdbool.h>

/* 2 trip, 1 warn, 0 fine */
int alarm_level(int temp, int flue, bool flow_ok, bool door_closed)
{
    if (flue > 2 * temp + 100 && door_closed) {
        return 2;
    }
    if (temp >= 80 || (!flow_ok && temp > 40) || !door_closed) {
        return 1;
    }
    return 0;
}
"""

#: Each changes one comparison of alarm_level; only a case where it decides its decision
#: at its boundary tells it from the original.
MUTANTS = {
    "flue": ("flue > 2 * temp", "flue >= 2 * temp"),
    "warn": ("temp >= 80", "temp > 80"),
    "warm": ("temp > 40", "temp >= 40"),
}


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("unmasking"))("alarm.c", UNIT)


def _boundary(unit: GeneratedUnit, temp: int | None = None, flue: int | None = None
              ) -> Case:
    """The boundary case with these inputs."""
    [case] = [c for c in unit.functions["alarm_level"].cases if BOUNDARY_NOTE in c.notes
              and (temp is None or c.params[0].value.value == temp)
              and (flue is None or c.params[1].value.value == flue)]
    return case


def _inputs(case: Case) -> tuple[int, ...]:
    return tuple(p.value.value for p in case.params)


def test_the_other_conditions_let_the_comparison_decide(unit: GeneratedUnit) -> None:
    # temp == 80 decides `||` only where the other two disjuncts are false
    assert _inputs(_boundary(unit, temp=80))[2:] == (1, 1)
    # temp == 40 decides `!flow_ok && temp > 40` only with the flow low, and the door shut
    assert _inputs(_boundary(unit, temp=40))[2:] == (0, 1)
    # flue == 2 * temp + 100 decides `&&` only with the door shut
    equal = [_inputs(c) for c in unit.functions["alarm_level"].cases
             if BOUNDARY_NOTE in c.notes and _inputs(c)[1] == 2 * _inputs(c)[0] + 100]
    assert equal and all(door_closed == 1 for *_, door_closed in equal), equal


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_cases_kill_the_mutant(unit: GeneratedUnit, tmp_path: Path, name: str) -> None:
    before, after = MUTANTS[name]
    assert unit.kills(UNIT.replace(before, after), "alarm_level", tmp_path), name
