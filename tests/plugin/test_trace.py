"""Requirement tracing end to end: requirement ids in case ids, `-m REQ-ID` selection (also
under --strict-markers), JUnit XML properties, and the --ctgen-trace matrix in its three
formats (also under pytest-xdist)."""
from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import collected_ids, output, run_ctgen

# Test cases: REQ-LVL-1 (a < 0) and REQ-LVL-2, REQ-LVL-3 (a >= 0) hold for every input the
# precondition admits, so their cases pass; REQ-LVL-9's pre (a > 1000) contradicts the
# precondition, so no case can carry it (verdict "unreachable").
LEVELS = """\
#include "ctgen.h"
int g_level;
int clamp_add(int a)
{
    __rtt_precondition(a >= -100 && a <= 100 && g_level >= 0 && g_level <= 50);
    __rtt_testcase(a < 0, __rtt_return <= g_level, "REQ-LVL-1");
    __rtt_testcase(a >= 0, __rtt_return >= g_level, "REQ-LVL-2, REQ-LVL-3");
    __rtt_testcase(a > 1000, __rtt_return == 0, "REQ-LVL-9");
    if (g_level + a > 50) return 50;
    return g_level + a;
}
"""
UNREACHABLE_LINE = 8  # the line of REQ-LVL-9's __rtt_testcase

CASE_ID = re.compile(r"^levels\.c::clamp_add\[(?:(?P<reqs>[^\]:]+):)?case\d+\]$")
VERBOSE_OUTCOME = re.compile(r"^(levels\.c::\S+) (PASSED|FAILED|ERROR|SKIPPED)")

NO_XDIST_START = ("-p", "no:hypothesispytest", "-p", "no:benchmark")


@pytest.fixture
def levels(ctgen_dir: pytest.Pytester) -> pytest.Pytester:
    ctgen_dir.makefile(".c", levels=LEVELS)
    return ctgen_dir


def _requirements_of(nodeid: str) -> tuple[str, ...]:
    m = CASE_ID.match(nodeid)
    assert m, nodeid
    return tuple(m.group("reqs").split(",")) if m.group("reqs") else ()


def _collected(pytester: pytest.Pytester) -> dict[str, tuple[str, ...]]:
    """Every case id of levels.c and the requirement ids it carries."""
    result = run_ctgen(pytester, "--collect-only", "-q", "levels.c")
    assert result.ret == 0, output(result)
    ids = collected_ids(result)
    assert ids, output(result)
    return {i: _requirements_of(i) for i in ids}


def _verbose_outcomes(result: pytest.RunResult) -> dict[str, str]:
    """The outcome `-v` printed for each case (an ERROR in setup or teardown is a failure)."""
    out: dict[str, str] = {}
    for line in result.outlines:
        m = VERBOSE_OUTCOME.match(line)
        if m:
            word = m.group(2).lower()
            failed = word in ("failed", "error") or out.get(m.group(1)) == "failed"
            out[m.group(1)] = "failed" if failed else word
    return out


def test_case_ids_carry_the_requirements(levels: pytest.Pytester) -> None:
    by_id = _collected(levels)
    carried = {r for reqs in by_id.values() for r in reqs}
    assert any(reqs == ("REQ-LVL-1",) for reqs in by_id.values()), by_id
    assert any(reqs == ("REQ-LVL-2", "REQ-LVL-3") for reqs in by_id.values()), by_id
    assert "REQ-LVL-9" not in carried  # no input satisfies its pre


def test_m_selects_the_cases_of_a_requirement(levels: pytest.Pytester) -> None:
    by_id = _collected(levels)
    tagged = [i for i, reqs in by_id.items() if "REQ-LVL-1" in reqs]
    assert tagged, by_id
    # --strict-markers: the requirement markers are registered
    result = run_ctgen(levels, "-v", "--strict-markers", "-m", "REQ-LVL-1", "levels.c")
    ran = _verbose_outcomes(result)
    assert sorted(ran) == sorted(tagged), output(result)
    result.assert_outcomes(passed=len(tagged), deselected=len(by_id) - len(tagged))

    either = run_ctgen(levels, "-v", "--strict-markers", "-m", "REQ-LVL-1 or REQ-LVL-3",
                       "levels.c")
    expected = [i for i, reqs in by_id.items() if {"REQ-LVL-1", "REQ-LVL-3"} & set(reqs)]
    assert sorted(_verbose_outcomes(either)) == sorted(expected), output(either)
    assert len(expected) > len(tagged)

    # the ids also come as the args of one marker, for conftest hooks and plugins
    levels.makeconftest("""
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        mark = item.get_closest_marker("ctgen_requirement")
        if mark is not None:
            print("REQS", item.nodeid, ",".join(mark.args))
""")
    listed = run_ctgen(levels, "--collect-only", "-q", "-s", "levels.c")
    shown = dict(line.split()[1:3] for line in listed.outlines if line.startswith("REQS "))
    assert shown == {i: ",".join(reqs) for i, reqs in by_id.items() if reqs}, output(listed)


def test_junitxml_has_a_property_per_requirement(levels: pytest.Pytester) -> None:
    result = run_ctgen(levels, "--junitxml=junit.xml", "levels.c")
    assert result.ret == 0, output(result)
    root = ET.parse(levels.path / "junit.xml").getroot()
    seen = {}
    for case in root.iter("testcase"):
        nodeid = f"levels.c::{case.get('name')}"
        props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
        seen[nodeid] = tuple(v for n, v in props if n == "requirement")
    assert seen, (levels.path / "junit.xml").read_text(encoding="utf-8")
    assert seen == {i: _requirements_of(i) for i in seen}
    assert any(v == ("REQ-LVL-1",) for v in seen.values())
    text = (levels.path / "junit.xml").read_text(encoding="utf-8")
    assert re.search(r'<property name="requirement" value="REQ-LVL-1"\s*/>', text)


def _check_matrix(rows: dict[str, dict[str, Any]], outcomes: dict[str, str]) -> None:
    """`rows`: requirement id -> {"status", "reason", "cases": {node id: outcome},
    "testcase_at"}; `outcomes`: what pytest reported per case."""
    assert list(rows)[:4] == ["REQ-LVL-1", "REQ-LVL-2", "REQ-LVL-3", "REQ-LVL-9"]
    nine = rows["REQ-LVL-9"]
    assert (nine["status"], nine["cases"]) == ("no case", {})
    assert re.search(rf"(^|/)levels\.c:{UNREACHABLE_LINE}(:\d+)?$", nine["testcase_at"])
    for req in ("REQ-LVL-1", "REQ-LVL-2", "REQ-LVL-3"):
        cases = rows[req]["cases"]
        assert cases, req
        assert all(req in _requirements_of(i) for i in cases)
        assert cases == {i: outcomes.get(i, "not run") for i in cases}
        want = "failed" if "failed" in cases.values() else \
            "passed" if set(cases.values()) == {"passed"} else "not run"
        assert rows[req]["status"] == want, (req, cases)
    assert rows["REQ-LVL-2"]["cases"] == rows["REQ-LVL-3"]["cases"]


def _rows_from_json(path: Path) -> dict[str, dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    doc = json.loads(text)
    assert list(doc) == ["format", "version", "requirements"]
    assert (doc["format"], doc["version"]) == ("pytest-ctgen trace", 1)
    rows = {}
    for r in doc["requirements"]:
        at = ";".join(t["at"] for t in r["testcases"])
        rows[r["id"]] = {"status": r["status"], "reason": r["reason"], "testcase_at": at,
                         "cases": {c["nodeid"]: c["outcome"] for c in r["cases"]}}
        if r["id"] == "REQ-LVL-9":
            (t,) = r["testcases"]
            assert t["function"] == "levels.c::clamp_add"
            assert re.sub(r"\s", "", t["pre"]) == "a>1000"
            assert re.sub(r"\s", "", t["post"]) == "__rtt_return==0"
            assert t["verdict"] == "unreachable"
            assert r["reason"] == "test case pre unreachable"
    return rows


def _rows_from_csv(path: Path) -> dict[str, dict[str, Any]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["requirement", "status", "function", "testcase_at",
                                     "case", "outcome"]
        rows: dict[str, dict[str, Any]] = {}
        for line in reader:
            row = rows.setdefault(line["requirement"], {
                "status": line["status"], "testcase_at": line["testcase_at"], "cases": {}})
            assert line["function"] == "levels.c::clamp_add"
            if line["case"]:
                row["cases"][line["case"]] = line["outcome"]
    return rows


def _rows_from_markdown(path: Path) -> dict[str, dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    rows: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        m = re.match(r"^\| (REQ-\S+) \| ([a-z ]+) \| (.*) \| (.*) \|$", line)
        if m:
            at = re.findall(r" at (\S+):", m.group(3))
            cases = dict(re.findall(r"`(levels\.c::[^`]+)` ([a-z ]+?)(?:<br>|$)",
                                    m.group(4)))
            rows[m.group(1)] = {"status": m.group(2), "testcase_at": ";".join(at),
                                "cases": cases}
    section = text[text.index("## Requirements without a case"):]
    assert re.search(r"^- REQ-LVL-9: test case pre unreachable", section, re.M), text
    return rows


@pytest.mark.parametrize(("name", "read"), [("trace.json", _rows_from_json),
                                            ("out/trace.csv", _rows_from_csv),
                                            ("trace.md", _rows_from_markdown)])
def test_trace_file(levels: pytest.Pytester, name: str, read: Any) -> None:
    # a failure in setup fails the case (and its requirements) like one in the call
    levels.makeconftest("""
def pytest_runtest_setup(item):
    if "REQ-LVL-1" in item.name:
        raise RuntimeError("broken test bench")
""")
    result = run_ctgen(levels, "-v", f"--ctgen-trace={name}", "levels.c")
    outcomes = _verbose_outcomes(result)
    assert outcomes, output(result)
    rows = read(levels.path / name)
    _check_matrix(rows, outcomes)
    assert rows["REQ-LVL-1"]["status"] == "failed"
    counts = {s: sum(1 for r in rows.values() if r["status"] == s)
              for s in ("passed", "failed", "not run", "no case")}
    line = f"ctgen requirements: {counts['passed']} passed"
    if counts["failed"]:
        line += f", {counts['failed']} failed"
    if counts["not run"]:
        line += f", {counts['not run']} not run"
    line += f", {counts['no case']} without a case"
    assert line in result.outlines, output(result)


def test_trace_from_ini_with_deselected_cases(levels: pytest.Pytester) -> None:
    levels.makeini("[pytest]\nctgen_trace = trace.json\n")
    result = run_ctgen(levels, "-q", "-m", "REQ-LVL-1", "levels.c")
    assert result.ret == 0, output(result)
    rows = _rows_from_json(levels.path / "trace.json")
    _check_matrix(rows, {i: "passed" for i in rows["REQ-LVL-1"]["cases"]})
    assert rows["REQ-LVL-1"]["status"] == "passed"
    assert set(rows["REQ-LVL-2"]["cases"].values()) == {"not run"}
    assert rows["REQ-LVL-2"]["status"] == "not run"
    # -q keeps the summary line
    assert "ctgen requirements: 1 passed, 2 not run, 1 without a case" in result.outlines


def test_trace_under_xdist(levels: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    alone = run_ctgen(levels, "-v", "--ctgen-trace=alone.json", "levels.c")
    assert alone.ret == 0, output(alone)
    result = run_ctgen(levels, "-n", "2", "--ctgen-trace=xdist.json", "levels.c",
                       quiet=NO_XDIST_START)
    assert result.ret == 0, output(result)
    assert (levels.path / "xdist.json").read_text(encoding="utf-8") == \
        (levels.path / "alone.json").read_text(encoding="utf-8")
    _check_matrix(_rows_from_json(levels.path / "xdist.json"), _verbose_outcomes(alone))


def test_unknown_trace_format_is_a_usage_error(levels: pytest.Pytester) -> None:
    result = run_ctgen(levels, "--ctgen-trace=trace.txt", "levels.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = output(result)
    assert "--ctgen-trace trace.txt" in err and ".json, .csv or .md" in err
    assert "Traceback" not in err
    assert not (levels.path / "trace.txt").exists()
