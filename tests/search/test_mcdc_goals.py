"""The search under `--ctgen-criterion mcdc` (search/mcdc_goals.py) and `statement`
(search/statement_goals.py) on units of our own: the MC/DC of the generated cases,
measured on the instrumented build (runner/mcdc.py), is 100% of the pairs some input can
give, the others are reported with their condition, and a decision of n conditions gets
at most n + 2 cases."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import STOP_EXHAUSTED, FileCases, FunctionCases, is_extra
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.export_schema import SchemaError
from pytest_ctgen.coverage.mcdc import MASKING, UNIQUE_CAUSE, McdcCoverage
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import lower_unit
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file
from pytest_ctgen.runner.mcdc import measure_mcdc
from pytest_ctgen.search.generator import generate_function
from pytest_ctgen.search.options import SearchOptions

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

UNIT = r"""#include <stddef.h>

int two(int a, int b) { if (a > 0 && b > 0) return 1; return 0; }
int three(int a, int b, int c) { return a == 1 || b == 2 || c == 3; }
int four(int a, int b, int c, int d)
{
    int r = 0;
    if ((a > 0 || b > 0) && (c > 0 || d > 0))
        r = 7;
    return r;
}
int five(unsigned f) { return (f & 1u) && ((f & 2u) || (f & 4u)) && !((f & 8u) && (f & 16u)); }
int six(int a, int b, int c, int d, int e, int g) { return (a || b) && (c || d) && (e || g); }
int rising(int x) { return x > 0 && x > 5; }
int falling(int x) { return x > 5 && x > 0; }
int never(int a) { if (a && !a) return 1; return 0; }
int mux(int a, int b, int c) { return (a && b) || (!a && c); }
int floats(double x, float y) { return x > 0.5 && (y < 2.0f || x != x); }
int through(const int *p, const int *q) { return p != NULL && *p > 0 && (q == NULL || *q < *p); }
int pick(int a, int b) { return (a > 10 || b < -10) ? a : b; }
int both(int a, int b) { return a && b; }
int count(const int *p, int n)
{
    int k = 0;
    for (int i = 0; i < n && p[i] >= 0; i++)
        k++;
    return k;
}
"""

#: Per function: its conditions, and those without a unique-cause pair (by index).
EXPECTED = {
    "two": (2, {}), "three": (3, {}), "four": (4, {}), "five": (5, {}), "six": (6, {}),
    "rising": (2, {}),
    "falling": (2, {1: "infeasible"}),  # x > 5 implies x > 0
    "never": (2, {0: "infeasible", 1: "infeasible"}),
    "mux": (4, {2: "masking"}),  # the second a: tied to the first
    "floats": (3, {2: "infeasible"}),  # x != x: NaN makes x > 0.5 false first
    "through": (4, {}), "pick": (2, {}), "both": (2, {}), "count": (2, {}),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FileCases,
                                                                dict[str, McdcCoverage]]:
    directory = tmp_path_factory.mktemp("mcdc_goals")
    unit = directory / "goals.c"
    unit.write_text(UNIT)
    result = generate_file(unit, unit.name, Options(criterion="mcdc"))
    assert result is not None
    return unit, result.cases, measure_mcdc(unit, result.cases,
                                           cache_dir=directory / "builds")


def _function(cases: FileCases, name: str) -> FunctionCases:
    return next(f for f in cases.functions if f.name == name)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_feasible_pair_is_shown_and_the_others_reported(
        generated: tuple[Path, FileCases, dict[str, McdcCoverage]], name: str) -> None:
    _, cases, measured = generated
    fn = _function(cases, name)
    conditions, gaps = EXPECTED[name]
    cov = measured[name]
    assert fn.stop_reason == STOP_EXHAUSTED
    assert cov.conditions_total == conditions
    reported = {(n.line, n.column): n for n in fn.mcdc}
    for c in cov.conditions:
        note = reported.get((c.condition.location.line, c.condition.location.column))
        verdict = gaps.get(c.condition.index)
        if verdict is None:
            assert c.form == UNIQUE_CAUSE and note is None, (c, note)
        elif verdict == "masking":
            assert c.form == MASKING and note is not None and note.verdict == "masking"
        else:
            assert not c.shown and note is not None and note.verdict == "infeasible"
            assert note.condition == c.condition.text and note.decision == c.decision.text
    assert len(fn.mcdc) == sum(1 for c in cov.conditions if c.form != UNIQUE_CAUSE)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_at_most_n_plus_two_cases_per_decision(
        generated: tuple[Path, FileCases, dict[str, McdcCoverage]], name: str) -> None:
    """The cases the search makes for MC/DC, not counting the boundary cases added after
    it (`is_extra`), which look for other things (sides one apart, loop passes)."""
    _, cases, _ = generated
    conditions, _ = EXPECTED[name]
    assert len([c for c in _function(cases, name).cases if not is_extra(c)]) <= conditions + 2


def test_the_cases_are_the_same_twice(
        generated: tuple[Path, FileCases, dict[str, McdcCoverage]]) -> None:
    unit, cases, _ = generated
    again = generate_file(unit, unit.name, Options(criterion="mcdc"))
    assert again is not None
    assert file_cases_to_json(again.cases) == file_cases_to_json(cases)


def test_branch_cases_show_fewer_unique_cause_pairs(
        generated: tuple[Path, FileCases, dict[str, McdcCoverage]],
        tmp_path: Path) -> None:
    """Branch coverage alone (without the boundary cases, whose unmasked sides one apart
    show pairs too) shows fewer pairs with fewer cases."""
    unit, cases, measured = generated
    branch = generate_file(unit, unit.name, Options(boundary_cases="off"))
    assert branch is not None
    assert all(not f.mcdc for f in branch.cases.functions)
    assert '"mcdc"' not in file_cases_to_json(branch.cases)
    by_branch = measure_mcdc(unit, branch.cases, cache_dir=tmp_path)
    for name in ("four", "six"):
        assert by_branch[name].unique_cause_shown < measured[name].unique_cause_shown
        assert len(_function(branch.cases, name).cases) < len(_function(cases, name).cases)


STATEMENTS = r"""
int clamp(int x)
{
    int r = x;
    if (x > 100)
        r = 100;
    if (x > 0 && x < 0)
        r = 0;
    return r;
}
"""


def test_statement_goals_skip_outcomes_that_run_no_new_line(tmp_path: Path) -> None:
    unit = tmp_path / "st.c"
    unit.write_text(STATEMENTS)
    program = lower_unit(load_unit(unit, [], probe=False))
    by = {criterion: generate_function(program, "clamp", SearchOptions(
              criterion=criterion, boundary_cases="off"))
          for criterion in ("statement", "branch")}
    # one case (x > 100) runs every line that can run; the false side of `x > 100` runs
    # no line of its own, so only the branch criterion asks for it
    assert len(by["statement"].cases) == 1 and len(by["branch"].cases) == 2
    assert ("5", "true") in {(str(o.line), o.label) for o in by["statement"].cases[0].covered}
    # the line no input runs is behind an outcome proved unreachable
    assert [(o.line, o.label) for o in by["statement"].unreachable] == [(7, "true")]
    assert by["statement"].stop_reason == STOP_EXHAUSTED


def test_the_notes_go_through_the_export_and_back(
        generated: tuple[Path, FileCases, dict[str, McdcCoverage]]) -> None:
    _, cases, _ = generated
    text = file_cases_to_json(cases)
    assert file_cases_from_json(text).functions == cases.functions
    doc = json.loads(text)
    notes = next(f for f in doc["functions"] if f["name"] == "falling")["mcdc"]
    assert notes == [{"line": 15, "column": 38, "condition": "x > 0",
                      "decision": "x > 5 && x > 0", "verdict": "infeasible"}]
    notes[0]["verdict"] = "unknown"
    with pytest.raises(SchemaError, match=r"functions\[6\]\.mcdc\[0\]\.verdict"):
        file_cases_from_json(json.dumps(doc))
