"""runner/mcdc.py with frontend/decisions.py, frontend/mcdc_instrument.py and
coverage/mcdc.py: MC/DC measured on the instrumented build of units of our own, compiled
with gcc, for hand-chosen cases."""
from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_ctgen.cases import (
    ArrayValue,
    Binding,
    Case,
    Expected,
    FileCases,
    FloatValue,
    FunctionCases,
    IntValue,
    PointerValue,
    Value,
)
from pytest_ctgen.coverage.mcdc import MASKING, UNIQUE_CAUSE, Evaluation
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.file_run import unit_for_build
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.runner.build import build_harness, load_library
from pytest_ctgen.runner.execute import run_case
from pytest_ctgen.runner.mcdc import McdcMeasurement, run_mcdc

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

UNIT = r"""
#include <stddef.h>

int and2(int a, int b) { if (a > 0 && b > 0) return 1; return 0; }
int or3(int a, int b, int c) { return a || b || c; }
int mix4(int a, int b, int c, int d) { return (a && b) || (c && d); }
int chain5(int a, int b, int c, int d, int e) { return a && b && c && d && e; }
int six(int a, int b, int c, int d, int e, int f)
{
    return (a || b) && (c || d) && (e || f);
}
int mux(int a, int b, int c) { return (a && b) || (!a && c); }
int never(int a) { return a && !a; }
int fl(double x, float y) { return x > 0.5 && y < 2.0f; }
int ptr(const int *p, const int *q) { return p != NULL && *p > 0 && q[1] != 0; }
int count(const int *p, int n)
{
    int k = 0;
    for (int i = 0; i < n && p[i] >= 0; i++)
        k++;
    return k;
}
static int id(int v) { return v; }
int nest(int a, int b, int c) { return id(a && b) || c; }
int depth(int n, int m) { return n > 0 && (depth(n - 1, m) || m > 0); }
int withasm(int a, int b) { __asm__ volatile("" ::: "memory"); return a && b; }
"""

PARAMS = {"and2": "ab", "or3": "abc", "mix4": "abcd", "chain5": "abcde", "six": "abcdef",
          "mux": "abc", "never": "a", "nest": "abc", "depth": "nm", "withasm": "ab"}


def _int_case(function: str, number: int, values: Sequence[int]) -> Case:
    params = tuple(Binding(name, "int @", IntValue(v))
                   for name, v in zip(PARAMS[function], values))
    return Case(function, number, params, (), Expected(None))


def _file_cases(unit: Path, cases: Sequence[Case], source: str = "mcdc_unit.c") -> FileCases:
    by_function: dict[str, list[Case]] = {}
    for c in cases:
        by_function.setdefault(c.function, []).append(c)
    functions = tuple(FunctionCases(name, 1, "", tuple(cs), "exhausted")
                      for name, cs in by_function.items())
    return with_signatures(FileCases(source, functions), load_unit(unit, [], probe=False))


def _int_cases(table: dict[str, list[tuple[int, ...]]]) -> list[Case]:
    return [_int_case(f, i + 1, v) for f, rows in table.items() for i, v in enumerate(rows)]


MINIMAL = {  # n + 1 cases for n conditions, each a unique-cause pair with another
    "and2": [(1, 1), (0, 1), (1, 0)],
    "or3": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],
    "mix4": [(1, 1, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0), (0, 0, 1, 1), (0, 0, 1, 0)],
    "chain5": [(1, 1, 1, 1, 1), (0, 1, 1, 1, 1), (1, 0, 1, 1, 1), (1, 1, 0, 1, 1),
               (1, 1, 1, 0, 1), (1, 1, 1, 1, 0)],
    "six": [(1, 0, 1, 0, 1, 0), (0, 0, 0, 0, 0, 0), (0, 1, 1, 0, 1, 0), (1, 0, 0, 0, 0, 0),
            (1, 0, 0, 1, 1, 0), (1, 0, 1, 0, 0, 0), (1, 0, 1, 0, 0, 1)],
    "mux": [(1, 1, 0), (0, 0, 0), (1, 0, 0), (0, 0, 1)],
    "never": [(0,), (1,)],
    "nest": [(1, 1, 0), (0, 0, 0), (1, 0, 1)],
    "depth": [(2, 1), (1, 0)],
    "withasm": [(1, 1), (0, 1)],
}


def _float_cases() -> list[Case]:
    rows = [(1.0, 1.0), (0.25, 1.0), (1.0, 3.0)]
    return [Case("fl", i + 1, (Binding("x", "double @", FloatValue.of(x, 8)),
                               Binding("y", "float @", FloatValue.of(y, 4))), (),
                 Expected(None)) for i, (x, y) in enumerate(rows)]


def _array(values: Sequence[int], size: int = 4) -> ArrayValue:
    return ArrayValue(tuple(IntValue(v) for v in [*values, *[0] * (size - len(values))]))


def _pointer_case(function: str, number: int, arrays: dict[str, Sequence[int] | None],
                  extra: Sequence[Binding] = ()) -> Case:
    params, objects = [], []
    for name, values in arrays.items():
        if values is None:
            params.append(Binding(name, "const int *@", PointerValue(None)))
            continue
        obj = f"ctgen_obj_{name}"
        objects.append(Binding(obj, "int @[4]", _array(values)))
        params.append(Binding(name, "const int *@", PointerValue(obj)))
    return Case(function, number, (*params, *extra), (), Expected(None),
                objects=tuple(objects))


def _pointer_cases() -> list[Case]:
    n = "int @"
    return [
        _pointer_case("ptr", 1, {"p": [5], "q": [0, 7]}),
        _pointer_case("ptr", 2, {"p": None, "q": [0, 7]}),
        _pointer_case("ptr", 3, {"p": [-1], "q": [0, 7]}),
        _pointer_case("ptr", 4, {"p": [5], "q": [0, 0]}),
        _pointer_case("count", 1, {"p": [1, 2, -1, 3]}, [Binding("n", n, IntValue(4))]),
        _pointer_case("count", 2, {"p": [1]}, [Binding("n", n, IntValue(1))]),
    ]


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> McdcMeasurement:
    directory = tmp_path_factory.mktemp("mcdc")
    unit = directory / "mcdc_unit.c"
    unit.write_text(UNIT)
    cases = [*_int_cases(MINIMAL), *_float_cases(), *_pointer_cases()]
    return run_mcdc(unit, _file_cases(unit, cases), cache_dir=directory / "builds")


def _keys(function: str, numbers: Sequence[int]) -> list[tuple[str, int]]:
    return [(function, n) for n in numbers]


def test_every_case_ran(measured: McdcMeasurement) -> None:
    assert measured.runs and all(r.passed for r in measured.runs.values()), measured.runs


@pytest.mark.parametrize("function, conditions", [
    ("and2", 2), ("or3", 3), ("mix4", 4), ("chain5", 5), ("six", 6), ("fl", 2), ("ptr", 3),
    ("nest", 4), ("depth", 3)])
def test_minimal_sets_give_full_unique_cause(measured: McdcMeasurement, function: str,
                                             conditions: int) -> None:
    cov = measured.coverage()[function]
    assert cov.conditions_total == conditions
    assert (cov.conditions_shown, cov.unique_cause_shown) == (conditions, conditions)
    assert cov.percent == 100.0 and cov.missing == ()


@pytest.mark.parametrize("function, dropped, missing", [
    ("and2", 3, ["b > 0"]),  # (1, 0) was b's only pair
    ("or3", 4, ["c"]),
    ("mix4", 5, ["d"]),
    ("chain5", 5, ["d"]),
    ("six", 7, ["f"]),
])
def test_dropping_one_case_drops_exactly_its_condition(
        measured: McdcMeasurement, function: str, dropped: int, missing: list[str]) -> None:
    numbers = [n for n in range(1, len(MINIMAL[function]) + 1) if n != dropped]
    cov = measured.coverage(_keys(function, numbers))[function]
    assert [c.condition.text for c in cov.missing] == missing
    assert cov.conditions_shown == cov.conditions_total - 1
    assert all(c.location.line > 0 for c in (m.condition for m in cov.missing))


def test_coupled_condition_is_only_masking(measured: McdcMeasurement) -> None:
    cov = measured.coverage()["mux"]
    forms = [(c.condition.text, c.form) for c in cov.conditions]
    assert forms == [("a", UNIQUE_CAUSE), ("b", UNIQUE_CAUSE), ("a", MASKING),
                     ("c", UNIQUE_CAUSE)]
    assert cov.percent == 100.0 and cov.unique_cause_shown == 3


def test_a_decision_no_input_can_flip_has_no_pair(measured: McdcMeasurement) -> None:
    cov = measured.coverage()["never"]
    assert (cov.conditions_total, cov.conditions_shown, cov.percent) == (2, 0, 0.0)


def test_short_circuit_is_recorded_as_not_evaluated(measured: McdcMeasurement) -> None:
    decision = next(d for d in measured.decisions if d.function == "and2")
    assert measured.evaluations[("and2", 2)] == {Evaluation(decision.id, (False, None), False)}
    assert measured.evaluations[("and2", 1)] == {Evaluation(decision.id, (True, True), True)}


def test_a_decision_in_a_loop(measured: McdcMeasurement) -> None:
    d = next(d for d in measured.decisions if d.function == "count")
    assert measured.evaluations[("count", 1)] == {Evaluation(d.id, (True, True), True),
                                                 Evaluation(d.id, (True, False), False)}
    alone = measured.coverage(_keys("count", [1]))["count"]
    assert [c.condition.text for c in alone.missing] == ["i < n"]
    assert measured.coverage()["count"].percent == 100.0


def test_nested_and_recursive_decisions(measured: McdcMeasurement) -> None:
    outer, inner = [d for d in measured.decisions if d.function == "nest"]
    assert [c.text for c in outer.conditions] == ["id(a && b)", "c"]
    assert [c.text for c in inner.conditions] == ["a", "b"]
    assert measured.evaluations[("nest", 3)] == {Evaluation(inner.id, (True, False), False),
                                                Evaluation(outer.id, (False, True), True)}
    d = next(d for d in measured.decisions if d.function == "depth")
    assert measured.evaluations[("depth", 1)] == {
        Evaluation(d.id, (False, None, None), False), Evaluation(d.id, (True, False, True), True),
        Evaluation(d.id, (True, True, None), True)}


def test_decisions_and_locations(measured: McdcMeasurement) -> None:
    d = next(d for d in measured.decisions if d.function == "and2")
    assert (d.location.line, d.location.column) == (4, 30)
    assert d.where.endswith("mcdc_unit.c:4:30")
    assert [(c.text, c.location.column) for c in d.conditions] == [("a > 0", 30),
                                                                    ("b > 0", 39)]
    assert d.tree == ("&&", 0, 1)


def test_a_body_that_cannot_be_written_again_is_not_measured(
        measured: McdcMeasurement) -> None:
    cov = measured.coverage()["withasm"]
    assert "asm" in cov.not_measured and cov.conditions_shown == 0
    assert measured.runs[("withasm", 1)].passed


# ------------------------------------------------- the copy behaves like the unit

SIDE_UNIT = r"""
int trace[8];
int trace_n;
static int t(int v) { trace[trace_n++] = v; return v; }
int side(int a, int b, int c)
{
    return (t(a) && t(b)) || t(c) ? 10 + trace_n : -trace_n;
}
"""


def _side_model(a: int, b: int, c: int) -> tuple[int, list[int]]:
    trace: list[int] = []

    def t(v: int) -> int:
        trace.append(v)
        return v
    taken = (t(a) and t(b)) or t(c)
    return (10 + len(trace) if taken else -len(trace)), trace


def _side_cases() -> list[Case]:
    out = []
    for number, (a, b, c) in enumerate([(1, 2, 0), (0, 5, 3), (4, 0, 0), (0, 1, 0)], 1):
        result, trace = _side_model(a, b, c)
        after: tuple[Binding, ...] = (
            Binding("trace", "int @[8]", _array(trace, 8)),
            Binding("trace_n", "int @", IntValue(len(trace))))
        start = (Binding("trace", "int @[8]", _array([], 8)),
                 Binding("trace_n", "int @", IntValue(0)))
        returns: Value = IntValue(result)
        out.append(Case("side", number, tuple(
            Binding(n, "int @", IntValue(v)) for n, v in zip("abc", (a, b, c))), start,
            Expected(returns, after)))
    return out


def test_instrumented_copy_behaves_like_the_unit(tmp_path: Path) -> None:
    """Same return values and the same side effects of the conditions, each once and in
    order: the cases predict them from C's semantics and pass on both builds."""
    unit = tmp_path / "side.c"
    unit.write_text(SIDE_UNIT)
    fc = _file_cases(unit, _side_cases(), "side.c")
    include, files, flags = unit_for_build(unit, fc, [])
    plain = load_library(build_harness(generate_harness(fc, include), cflags=flags,
                                       cache_dir=tmp_path / "plain", extra_files=files))
    assert all(run_case(plain, i).passed for i in range(len(fc.all_cases())))
    measured = run_mcdc(unit, fc, cache_dir=tmp_path / "mcdc")
    assert all(r.passed for r in measured.runs.values()), measured.runs
    assert measured.coverage()["side"].percent == 100.0
