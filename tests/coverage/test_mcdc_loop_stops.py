"""Cases the harness stops in a loop (cases.LoopStop) on the MC/DC build: the instrumented
copy ticks the same loops as the plain copy (frontend/loop_ticks.py), in a body written
anew as in one kept as the user wrote it, its lines stay where they were, and each case
stops after the same iterations, its predictions checked as on the plain build."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pytest_ctgen.cases import (
    Binding,
    Case,
    Expected,
    FileCases,
    FunctionCases,
    IntValue,
    LoopStop,
    stopped_loops,
)
from pytest_ctgen.codegen.unit_copy import unit_copy_text
from pytest_ctgen.errors import CtgenError
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.mcdc_instrument import instrument_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.runner.mcdc import run_mcdc

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# spin has a decision of two conditions (its body is written anew), count has none (kept
# as written); both loop until the harness stops them
UNIT = """\
unsigned seen;

void spin(int a, int b)
{
    for (;;) {   /* the task */
        if (a > 0 && b > 0)
            seen++;
        a--;
    }
}

int count(int n)
{
    int k = 0;
    while (n != 0)
        k++, n -= 2;
    return k;
}
"""
SPIN, COUNT = (5, 5), (15, 5)


def _case(function: str, number: int, params: dict[str, int], stop: tuple[int, int, int],
          seen: tuple[int, int] | None = None) -> Case:
    start = after = ()
    if seen is not None:
        start = (Binding("seen", "unsigned int @", IntValue(seen[0])),)
        after = (Binding("seen", "unsigned int @", IntValue(seen[1])),)
    return Case(function, number,
                tuple(Binding(n, "int @", IntValue(v)) for n, v in params.items()), start,
                Expected(None, after, ending="loop stop", loop_stop=LoopStop(*stop)))


def _file_cases(unit: Path, cases: list[Case]) -> FileCases:
    by_function: dict[str, list[Case]] = {}
    for c in cases:
        by_function.setdefault(c.function, []).append(c)
    functions = tuple(FunctionCases(name, 1, "", tuple(cs), "exhausted")
                      for name, cs in by_function.items())
    return with_signatures(FileCases("loops.c", functions), load_unit(unit, [], probe=False))


@pytest.fixture
def unit(tmp_path: Path) -> Path:
    path = tmp_path / "loops.c"
    path.write_text(UNIT, encoding="utf-8")
    return path


def _ticks(text: str) -> list[str]:
    return sorted(re.findall(r"ctgen_loop_tick\(\d+, \d+\)", text))


def test_both_copies_tick_the_same_loops(unit: Path) -> None:
    loaded = load_unit(unit, [], probe=False)
    plain = unit_copy_text(unit, str(unit), (), loops=[SPIN, COUNT])
    assert plain is not None
    instrumented = instrument_unit(loaded, loops=[SPIN, COUNT])
    assert _ticks(instrumented.text) == _ticks(plain) == [
        "ctgen_loop_tick(15, 5)", "ctgen_loop_tick(5, 5)"]
    assert "ctgen_mcdc_cond(0, 1, (b > 0) != 0)" in instrumented.text  # spin written anew
    assert _ticks(instrument_unit(loaded).text) == []  # no case stops: no tick


def test_the_copy_keeps_its_lines_where_the_unit_has_them(unit: Path) -> None:
    """After a body written anew, `#line` puts the user's text back at its lines, with
    the tick on the line of the loop's body (what compiler messages and gcov point at)."""
    text = instrument_unit(load_unit(unit, [], probe=False), loops=[SPIN, COUNT]).text
    at: dict[int, str] = {}
    line = None
    for row in text.split("\n"):
        directive = re.fullmatch(r"#line (\d+)", row)
        if directive:
            line = int(directive.group(1))
        elif line is not None:
            at[line] = row
            line += 1
    original = UNIT.split("\n")
    assert at[15] == original[14] == "    while (n != 0)"
    assert at[16] == "        if ((ctgen_loop_tick(15, 5), 1)) k++, n -= 2;"
    assert at[17] == original[16] and at[18] == original[17]
    assert at[12] == original[11] == "int count(int n)"


def test_a_loop_the_copy_cannot_find_is_an_error(unit: Path) -> None:
    with pytest.raises(CtgenError, match=r"loops\.c:7:5: cannot find this loop's body"):
        instrument_unit(load_unit(unit, [], probe=False), loops=[(7, 5)])


def test_stopped_cases_run_and_are_checked_on_the_mcdc_build(unit: Path) -> None:
    cases = [_case("spin", 1, {"a": 2, "b": 1}, (*SPIN, 3), (0, 2)),  # a > 0 true, then false
             _case("spin", 2, {"a": 1, "b": 0}, (*SPIN, 1), (5, 5)),  # b > 0 false
             _case("spin", 3, {"a": 9, "b": 9}, (*SPIN, 2), (0, 3)),  # predicts one too many
             _case("count", 1, {"n": 3}, (*COUNT, 4))]
    fc = _file_cases(unit, cases)
    assert stopped_loops(fc) == (SPIN, COUNT)
    measured = run_mcdc(unit, fc, cache_dir=unit.parent / "builds")
    runs = measured.runs
    assert runs[("spin", 1)].passed and runs[("spin", 2)].passed, runs
    assert runs[("count", 1)].passed, runs
    assert not runs[("spin", 3)].passed and "seen" in runs[("spin", 3)].message, runs
    mcdc = measured.coverage([("spin", 1), ("spin", 2), ("count", 1)])
    assert (mcdc["spin"].conditions_shown, mcdc["spin"].conditions_total) == (2, 2)
    only_first = measured.coverage([("spin", 1)])["spin"]
    assert (only_first.conditions_shown, only_first.conditions_total) == (1, 2)  # a shown, b never false
