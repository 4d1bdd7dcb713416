"""The requirement traceability matrix (pytest_ctgen.report.trace): statuses, requirements without
a case and why, first-seen order, outcomes from pytest's phases, and the JSON, CSV and
Markdown forms."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pytest_ctgen.cases import (
    STOP_EXHAUSTED,
    STOP_SKIPPED,
    Case,
    Contract,
    ContractCheck,
    Expected,
    FunctionCases,
    IntValue,
)
from pytest_ctgen.report.trace import (
    NOT_REACHED_REASON,
    UNREACHABLE_REASON,
    Requirement,
    TracedFunction,
    build_matrix,
    check_trace_path,
    format_csv,
    format_json,
    format_markdown,
    functions_from_json,
    functions_to_json,
    matrix_summary,
    report_outcome,
    traced_function,
    write_trace,
)


def _testcase(line: int, pre: str, post: str, reqs: str, verdict: str = "") -> ContractCheck:
    return ContractCheck(kind="testcase", condition=f"({post})", text=post,
                         at=f"unit.c:{line}:5", pre=f"({pre})", pre_text=pre,
                         requirements=tuple(r.strip() for r in reqs.split(",")),
                         verdict=verdict)


def _case(function: str, number: int, *reqs: str) -> Case:
    return Case(function=function, number=number, params=(), globals=(),
                expected=Expected(IntValue(0)), requirements=reqs)


def _function(name: str, checks: tuple[ContractCheck, ...], cases: tuple[Case, ...],
              bounds: str = "", skip_reason: str | None = None) -> FunctionCases:
    return FunctionCases(name=name, line=1, prototype=f"int {name}(int a)", cases=cases,
                         stop_reason=STOP_SKIPPED if skip_reason else STOP_EXHAUSTED,
                         skip_reason=skip_reason,
                         contract=Contract(checks=checks, bounds=bounds) if checks else None)


def _traced(fn: FunctionCases, file: str = "unit.c") -> TracedFunction:
    return traced_function(f"{file}::{fn.name}", fn,
                           [f"{file}::{fn.name}[{c.id}]" for c in fn.cases])


# clamp_add of the plugin test: REQ-LVL-1 on one case, REQ-LVL-2 and -3 on another, a
# post-condition (not a test case) and REQ-LVL-9 whose pre no input satisfies
CLAMP = _function(
    "clamp_add",
    (ContractCheck("postcondition", "(ctgen_return <= 50)", "__rtt_return <= 50",
                   "unit.c:5:5", verdict="holds"),
     _testcase(6, "a < 0", "__rtt_return <= g_level", "REQ-LVL-1", "holds"),
     _testcase(7, "a >= 0", "__rtt_return >= g_level", "REQ-LVL-2, REQ-LVL-3", "violated"),
     _testcase(8, "a > 1000", "__rtt_return == 0", "REQ-LVL-9", "unreachable")),
    (_case("clamp_add", 1, "REQ-LVL-1"), _case("clamp_add", 2, "REQ-LVL-2", "REQ-LVL-3"),
     _case("clamp_add", 3, "REQ-LVL-2", "REQ-LVL-3"), _case("clamp_add", 4)),
    bounds="depth 64")

CLAMP_IDS = ["unit.c::clamp_add[REQ-LVL-1:case1]",
             "unit.c::clamp_add[REQ-LVL-2,REQ-LVL-3:case2]",
             "unit.c::clamp_add[REQ-LVL-2,REQ-LVL-3:case3]", "unit.c::clamp_add[case4]"]


def _by_id(matrix: list[Requirement]) -> dict[str, Requirement]:
    return {r.id: r for r in matrix}


def test_traced_function_keeps_test_cases_and_case_ids() -> None:
    traced = _traced(CLAMP)
    assert traced.function == "unit.c::clamp_add"
    assert [c.nodeid for c in traced.cases] == CLAMP_IDS
    assert [d.at for d in traced.declarations] == ["unit.c:6:5", "unit.c:7:5", "unit.c:8:5"]
    first = traced.declarations[0]
    assert (first.pre, first.post, first.verdict, first.bounds) == \
        ("a < 0", "__rtt_return <= g_level", "holds", "depth 64")
    # bounds only say something about a "holds" verdict
    assert traced.declarations[1].bounds == ""


def test_statuses_follow_the_outcomes_of_the_cases() -> None:
    outcomes = {CLAMP_IDS[0]: "passed", CLAMP_IDS[1]: "passed", CLAMP_IDS[2]: "failed",
                CLAMP_IDS[3]: "passed"}
    matrix = _by_id(build_matrix([_traced(CLAMP)], outcomes))
    assert matrix["REQ-LVL-1"].status == "passed"
    assert [(c.nodeid, c.outcome) for c in matrix["REQ-LVL-1"].cases] == \
        [(CLAMP_IDS[0], "passed")]
    for req in ("REQ-LVL-2", "REQ-LVL-3"):
        assert matrix[req].status == "failed"
        assert [c.outcome for c in matrix[req].cases] == ["passed", "failed"]
        assert [d.at for d in matrix[req].declarations] == ["unit.c:7:5"]
    # case4 carries no requirement and appears nowhere
    assert all(CLAMP_IDS[3] not in (c.nodeid for c in r.cases) for r in matrix.values())


def test_cases_without_an_outcome_were_not_run() -> None:
    matrix = _by_id(build_matrix([_traced(CLAMP)], {CLAMP_IDS[0]: "passed",
                                                    CLAMP_IDS[1]: "skipped"}))
    assert matrix["REQ-LVL-1"].status == "passed"
    assert matrix["REQ-LVL-2"].status == "not run"
    assert [c.outcome for c in matrix["REQ-LVL-2"].cases] == ["skipped", "not run"]


def test_a_requirement_without_a_case_says_why() -> None:
    other = _function("other", (_testcase(20, "a == 3", "__rtt_return == 1", "REQ-X"),),
                      (_case("other", 1),))
    skipped = _function("weird", (_testcase(30, "a == 1", "__rtt_return == 0", "REQ-S"),),
                        (), skip_reason="unit.c:31:9: inline assembly")
    matrix = _by_id(build_matrix([_traced(CLAMP), _traced(other), _traced(skipped)], {}))
    nine = matrix["REQ-LVL-9"]
    assert (nine.status, nine.reason, nine.cases) == ("no case", UNREACHABLE_REASON, ())
    assert [(d.function, d.at, d.pre, d.post, d.verdict) for d in nine.declarations] == \
        [("unit.c::clamp_add", "unit.c:8:5", "a > 1000", "__rtt_return == 0", "unreachable")]
    assert (matrix["REQ-X"].status, matrix["REQ-X"].reason) == ("no case", NOT_REACHED_REASON)
    assert matrix["REQ-S"].status == "no case"
    assert matrix["REQ-S"].reason == "function skipped: unit.c:31:9: inline assembly"
    # a requirement with cases has no reason
    assert matrix["REQ-LVL-1"].reason == ""


def test_unreachable_only_when_every_declaration_is() -> None:
    a = _function("a", (_testcase(1, "x > 9", "1", "REQ-1", "unreachable"),), ())
    b = _function("b", (_testcase(2, "x > 0", "1", "REQ-1", ""),), ())
    assert build_matrix([_traced(a), _traced(b)], {})[0].reason == NOT_REACHED_REASON
    assert build_matrix([_traced(a)], {})[0].reason == UNREACHABLE_REASON


def test_first_seen_order_over_functions_and_undeclared_ids() -> None:
    first = _function("first", (_testcase(1, "a > 0", "1", "REQ-B"),
                                _testcase(2, "a < 0", "1", "REQ-A, REQ-B")),
                      (_case("first", 1, "REQ-A"), _case("first", 2, "REQ-Z")))
    second = _function("second", (_testcase(9, "a == 0", "1", "REQ-C"),),
                       (_case("second", 1, "REQ-A", "REQ-C"),))
    matrix = build_matrix([_traced(first), _traced(second)], {})
    assert [r.id for r in matrix] == ["REQ-B", "REQ-A", "REQ-Z", "REQ-C"]
    by_id = _by_id(matrix)
    # REQ-Z: no test case declares it, but a case carries it
    assert by_id["REQ-Z"].declarations == ()
    assert [c.nodeid for c in by_id["REQ-Z"].cases] == ["unit.c::first[REQ-Z:case2]"]
    assert [c.function for c in by_id["REQ-A"].cases] == ["unit.c::first", "unit.c::second"]
    assert [d.function for d in by_id["REQ-B"].declarations] == ["unit.c::first"] * 2


def test_a_function_collected_twice_counts_once() -> None:
    matrix = _by_id(build_matrix([_traced(CLAMP), _traced(CLAMP)], {}))
    assert len(matrix["REQ-LVL-2"].cases) == 2
    assert len(matrix["REQ-LVL-9"].declarations) == 1


@pytest.mark.parametrize(("phases", "outcome"), [
    ([("setup", "passed"), ("call", "passed"), ("teardown", "passed")], "passed"),
    ([("setup", "passed"), ("call", "failed"), ("teardown", "passed")], "failed"),
    ([("setup", "failed"), ("teardown", "passed")], "failed"),
    ([("setup", "passed"), ("call", "passed"), ("teardown", "failed")], "failed"),
    ([("setup", "skipped"), ("teardown", "passed")], "skipped"),
    ([("setup", "passed")], "not run"),  # e.g. the session was interrupted
])
def test_outcome_from_the_phases(phases: list[tuple[str, str]], outcome: str) -> None:
    current = None
    for when, result in phases:
        current = report_outcome(current, when, result)
    assert current == outcome


def test_summary_line() -> None:
    outcomes = {CLAMP_IDS[0]: "passed", CLAMP_IDS[1]: "passed", CLAMP_IDS[2]: "failed"}
    matrix = build_matrix([_traced(CLAMP)], outcomes)
    assert matrix_summary(matrix) == "1 passed, 2 failed, 1 without a case"
    everything = {i: "passed" for i in CLAMP_IDS}
    assert matrix_summary(build_matrix([_traced(CLAMP)], everything)) == \
        "3 passed, 1 without a case"
    assert matrix_summary(build_matrix([_traced(CLAMP)], {})) == \
        "0 passed, 3 not run, 1 without a case"


def test_transport_form_round_trips() -> None:
    traced = [_traced(CLAMP), _traced(_function("w", (_testcase(3, "1", "1", "R"),), (),
                                                skip_reason="why"))]
    data = functions_to_json(traced)
    # plain JSON data, which pytest-xdist can send from a worker to the controller
    assert json.loads(json.dumps(data)) == data
    assert functions_from_json(data) == traced


def _clamp_matrix() -> list[Requirement]:
    return build_matrix([_traced(CLAMP)], {CLAMP_IDS[0]: "passed", CLAMP_IDS[1]: "passed",
                                           CLAMP_IDS[2]: "failed"})


def test_json_form() -> None:
    text = format_json(_clamp_matrix())
    assert text.endswith("}\n") and text.startswith('{\n  "format"')
    doc = json.loads(text)
    assert list(doc) == ["format", "version", "requirements"]
    assert (doc["format"], doc["version"]) == ("pytest-ctgen trace", 1)
    assert [r["id"] for r in doc["requirements"]] == \
        ["REQ-LVL-1", "REQ-LVL-2", "REQ-LVL-3", "REQ-LVL-9"]
    one = doc["requirements"][0]
    assert list(one) == ["id", "status", "reason", "testcases", "cases"]
    assert one["testcases"] == [{
        "function": "unit.c::clamp_add", "at": "unit.c:6:5", "pre": "a < 0",
        "post": "__rtt_return <= g_level", "verdict": "holds", "bounds": "depth 64"}]
    assert one["cases"] == [{"nodeid": CLAMP_IDS[0], "function": "unit.c::clamp_add",
                             "outcome": "passed"}]
    nine = doc["requirements"][3]
    assert (nine["status"], nine["reason"], nine["cases"]) == \
        ("no case", "test case pre unreachable", [])
    # the same matrix gives the same bytes
    assert format_json(_clamp_matrix()) == text


def test_csv_form() -> None:
    rows = list(csv.reader(io.StringIO(format_csv(_clamp_matrix()))))
    assert rows[0] == ["requirement", "status", "function", "testcase_at", "case", "outcome"]
    assert rows[1:] == [
        ["REQ-LVL-1", "passed", "unit.c::clamp_add", "unit.c:6:5", CLAMP_IDS[0], "passed"],
        ["REQ-LVL-2", "failed", "unit.c::clamp_add", "unit.c:7:5", CLAMP_IDS[1], "passed"],
        ["REQ-LVL-2", "failed", "unit.c::clamp_add", "unit.c:7:5", CLAMP_IDS[2], "failed"],
        ["REQ-LVL-3", "failed", "unit.c::clamp_add", "unit.c:7:5", CLAMP_IDS[1], "passed"],
        ["REQ-LVL-3", "failed", "unit.c::clamp_add", "unit.c:7:5", CLAMP_IDS[2], "failed"],
        ["REQ-LVL-9", "no case", "unit.c::clamp_add", "unit.c:8:5", "", ""],
    ]


def test_csv_testcase_at_is_that_of_the_cases_function() -> None:
    a = _function("a", (_testcase(1, "x > 0", "1", "REQ-1"),), (_case("a", 1, "REQ-1"),))
    b = _function("b", (_testcase(9, "x < 0", "1", "REQ-1"),), (_case("b", 1, "REQ-1"),))
    rows = list(csv.DictReader(io.StringIO(format_csv(build_matrix(
        [_traced(a), _traced(b)], {})))))
    assert [(r["function"], r["testcase_at"], r["outcome"]) for r in rows] == \
        [("unit.c::a", "unit.c:1:5", "not run"), ("unit.c::b", "unit.c:9:5", "not run")]


def test_markdown_form() -> None:
    text = format_markdown(_clamp_matrix())
    lines = text.splitlines()
    header = lines.index("| requirement | status | test cases | cases |")
    rows = [line for line in lines[header + 2:] if line.startswith("| ")]
    assert [r.split(" | ")[0:2] for r in rows] == [
        ["| REQ-LVL-1", "passed"], ["| REQ-LVL-2", "failed"], ["| REQ-LVL-3", "failed"],
        ["| REQ-LVL-9", "no case"]]
    assert f"`{CLAMP_IDS[2]}` failed" in rows[1]
    assert "pre `a < 0`, post `__rtt_return <= g_level`, holds (depth 64)" in rows[0]
    missing = lines[lines.index("## Requirements without a case"):]
    listed = [line for line in missing if line.startswith("- ")]
    assert len(listed) == 1
    assert listed[0].startswith("- REQ-LVL-9: test case pre unreachable (")
    assert "unit.c:8:5" in listed[0]
    assert text.endswith("\n")


def test_markdown_escapes_table_separators() -> None:
    fn = _function("f", (_testcase(1, "a || b", "__rtt_return\n== 1", "REQ-1"),),
                   (_case("f", 1, "REQ-1"),))
    text = format_markdown(build_matrix([_traced(fn)], {}))
    row = next(line for line in text.splitlines() if line.startswith("| REQ-1 "))
    assert "pre `a \\|\\| b`, post `__rtt_return == 1`" in row
    # every unescaped "|" is a column separator: 4 columns
    assert row.replace("\\|", "").count("|") == 5
    assert "None." in text  # no requirement without a case


@pytest.mark.parametrize("suffix", [".json", ".csv", ".md", ".JSON"])
def test_write_trace_picks_the_format_by_suffix(tmp_path: Path, suffix: str) -> None:
    matrix = _clamp_matrix()
    path = tmp_path / "out" / f"trace{suffix}"
    assert check_trace_path(str(path)) is None
    write_trace(path, matrix)
    formatter = {".json": format_json, ".csv": format_csv, ".md": format_markdown}
    assert path.read_text(encoding="utf-8") == formatter[suffix.lower()](matrix)


@pytest.mark.parametrize("name", ["trace.txt", "trace", "trace.json.bak"])
def test_other_suffixes_are_refused(name: str) -> None:
    problem = check_trace_path(name)
    assert problem is not None
    assert name in problem and ".json, .csv or .md" in problem
