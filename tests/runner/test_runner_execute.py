"""Building a harness with runner/build.py and running its cases in forked children: a crash
or a hang fails that case only, and gcov still sees the lines the case reached."""
from __future__ import annotations

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
    PointerValue,
)
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.coverage.gcov import measure
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.runner.build import (
    HarnessLibrary,
    build_harness,
    clear_coverage_data,
    load_library,
)
from pytest_ctgen.runner.execute import CRASHED, FAILED, PASSED, TIMEOUT, CaseRun, run_case

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

UNIT = r"""#include <stdlib.h>
#include <stdio.h>

int g_hits;

int add(int a, int b)
{
    if (a > 0)
        return a + b;
    return b;
}

int deref(int *p)
{
    g_hits++;
    return *p;
}

int divide(int a, int b)
{
    g_hits++;
    return a / b;
}

int spin(int n)
{
    while (n >= 0)
        n = n | 1;
    return n;
}

void boom(void)
{
    g_hits++;
    abort();
}

int recurse(int n)
{
    volatile char pad[512];
    pad[0] = (char)n;
    return recurse(n + 1) + pad[0];
}

int twice(int x)
{
    return 2 * x;
}

int chatty(void)
{
    puts("said by the unit");
    return 1;
}
"""


def _int(name: str, v: int) -> Binding:
    return Binding(name, "int @", IntValue(v))


def _fn(name: str, proto: str, *cases: Case) -> FunctionCases:
    return FunctionCases(name, 1, proto, cases, "exhausted")


def unit_cases() -> FileCases:
    return FileCases("crashy.c", (
        _fn("add", "int add(int a, int b)",
            Case("add", 1, (_int("a", 2), _int("b", 3)), (), Expected(IntValue(5))),
            Case("add", 2, (_int("a", 2), _int("b", 3)), (), Expected(IntValue(7)))),
        _fn("deref", "int deref(int *p)",
            Case("deref", 1, (Binding("p", "int *@", PointerValue(None)),), (),
                 Expected(IntValue(0)))),
        _fn("divide", "int divide(int a, int b)",
            Case("divide", 1, (_int("a", 1), _int("b", 0)), (), Expected(IntValue(0)))),
        _fn("spin", "int spin(int n)",
            Case("spin", 1, (_int("n", 0),), (), Expected(IntValue(-1)))),
        _fn("boom", "void boom(void)", Case("boom", 1, (), (), Expected(None))),
        _fn("recurse", "int recurse(int n)",
            Case("recurse", 1, (_int("n", 0),), (), Expected(IntValue(0)))),
        _fn("twice", "int twice(int x)",
            Case("twice", 1, (_int("x", 21),), (), Expected(IntValue(42)))),
        _fn("chatty", "int chatty(void)", Case("chatty", 1, (), (), Expected(IntValue(1)))),
    ))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, HarnessLibrary]:
    root = tmp_path_factory.mktemp("crashy")
    unit = root / "crashy.c"
    unit.write_text(UNIT)
    cases = with_signatures(unit_cases(), load_unit(unit, probe=False))
    build = build_harness(generate_harness(cases, str(unit)),
                          key_material=UNIT, cache_dir=root / "cache")
    clear_coverage_data(build)
    return unit, build.directory, load_library(build)


@pytest.fixture(scope="module")
def runs(built: tuple[Path, Path, HarnessLibrary]) -> dict[str, CaseRun]:
    _, _, lib = built
    return {lib.case_name(i): run_case(lib, i, timeout=1.0, isolate="fork")
            for i in range(lib.case_count())}


def test_case_table(built: tuple[Path, Path, HarnessLibrary]) -> None:
    lib = built[2]
    assert lib.case_names() == ["add[case1]", "add[case2]", "deref[case1]", "divide[case1]",
                                "spin[case1]", "boom[case1]", "recurse[case1]", "twice[case1]",
                                "chatty[case1]"]
    with pytest.raises(IndexError):
        lib.case_name(99)


def test_passing_case(runs: dict[str, CaseRun]) -> None:
    assert runs["add[case1]"] == CaseRun(PASSED, "", None, runs["add[case1]"].duration)


def test_wrong_prediction_shows_predicted_and_observed(runs: dict[str, CaseRun]) -> None:
    r = runs["add[case2]"]
    assert r.status == FAILED
    assert r.message == "return: predicted 7, observed 5"


def test_segfault_fails_only_that_case(runs: dict[str, CaseRun]) -> None:
    r = runs["deref[case1]"]
    assert (r.status, r.signal, r.message) == (CRASHED, "SIGSEGV", "crashed with SIGSEGV")
    assert runs["twice[case1]"].status == PASSED  # a later case still runs


def test_division_by_zero_is_named(runs: dict[str, CaseRun]) -> None:
    r = runs["divide[case1]"]
    assert (r.status, r.signal, r.message) == (CRASHED, "SIGFPE", "crashed with SIGFPE")


def test_an_unpredicted_abort_fails_the_case_saying_so(runs: dict[str, CaseRun]) -> None:
    r = runs["boom[case1]"]
    assert (r.status, r.signal, r.message) == (
        FAILED, None, "the unit called abort(); predicted a return")


def test_stack_overflow_is_a_crash(runs: dict[str, CaseRun]) -> None:
    r = runs["recurse[case1]"]
    assert (r.status, r.signal) == (CRASHED, "SIGSEGV")


def test_infinite_loop_times_out(runs: dict[str, CaseRun]) -> None:
    r = runs["spin[case1]"]
    assert r.status == TIMEOUT
    assert r.message == "timed out after 1 s"


def test_coverage_includes_crashed_and_hung_cases(
        built: tuple[Path, Path, HarnessLibrary], runs: dict[str, CaseRun]) -> None:
    unit, directory, _ = built
    assert runs  # every case has run
    cov = measure(directory, unit)
    assert set(cov) >= {"add", "deref", "divide", "spin", "boom", "recurse"}
    add = cov["add"]
    assert (add.lines_total, add.lines_covered, add.missing_lines) == (4, 3, (10,))
    assert (add.branches_total, add.branches_covered) == (2, 1)
    assert add.line_percent == 75.0 and add.branch_percent == 50.0
    # the lines before each crash were flushed by the signal handler
    deref = cov["deref"]
    assert deref.lines_covered >= 2, deref
    assert 15 not in deref.missing_lines  # g_hits++
    assert cov["divide"].lines_covered >= 2
    assert cov["boom"].lines_covered >= 2
    spin = cov["spin"]  # flushed on SIGALRM
    assert spin.lines_covered >= 2
    assert (spin.lines_total, spin.branches_total, spin.calls) == (4, 2, 1)
    # No exact check of the loop's exit: gcov derives uninstrumented arcs by flow
    # conservation, which does not hold in a function interrupted mid-loop.
    assert cov["recurse"].lines_covered >= 3  # flushed on the alternate signal stack


def test_in_process_run_and_flush(built: tuple[Path, Path, HarnessLibrary],
                                  runs: dict[str, CaseRun]) -> None:
    unit, directory, lib = built
    assert runs
    r = run_case(lib, 0, timeout=1.0, isolate="none")
    assert r.status == PASSED
    r = run_case(lib, 1, timeout=1.0, isolate="none")
    assert (r.status, r.message) == (FAILED, "return: predicted 7, observed 5")
    assert list(directory.glob("*.gcda"))
    clear_coverage_data(directory)
    assert not list(directory.glob("*.gcda"))
    run_case(lib, 7, timeout=1.0, isolate="none")  # twice[case1]
    cov = measure(directory, unit)
    assert cov["twice"].lines_covered == cov["twice"].lines_total == 2
    assert cov["add"].lines_covered == 0
    assert cov["deref"].lines_covered == 0


def test_output_of_a_forked_case_is_kept(built: tuple[Path, Path, HarnessLibrary],
                                         capfd: pytest.CaptureFixture[str]) -> None:
    assert run_case(built[2], 8, timeout=1.0).status == PASSED
    assert "said by the unit" in capfd.readouterr().out


def test_unknown_isolation(built: tuple[Path, Path, HarnessLibrary]) -> None:
    with pytest.raises(ValueError):
        run_case(built[2], 0, 1.0, isolate="thread")
