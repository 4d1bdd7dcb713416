"""MC/DC measured by the session (`--ctgen-criterion mcdc`, `--ctgen-report mcdc`,
`--ctgen-fail-under-mcdc`): the figures of units of our own in the table, JSON, Cobertura
and HTML reports, measured on the cases that ran; the gate; the export's `make mcdc`
printing the same figures; and a branch-criterion session measuring nothing of it."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import make_mcdc, output, report_rows, run_ctgen

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# Branch coverage forces the cases of and2 (a false; a true, b false; both true) and of
# mux (a, b both true; a true, b false; a false with c either way): and2 has both its
# conditions shown (unique-cause), mux all four, its second `a` (in `!a`) only by a masking
# pair since it is coupled with the first. never's outcome never changes: no pair. plain
# has no decision of two conditions. nest's first condition calls a function with a
# decision of its own, evaluated while nest's is under way.
UNIT = """\
int and2(int a, int b)
{
    if (a > 0 && b > 0)
        return 1;
    return 0;
}

int mux(int a, int b, int c)
{
    return (a && b) || (!a && c);
}

int never(int a)
{
    return a && !a;
}

int plain(int x)
{
    if (x > 3)
        return 1;
    return 0;
}

int positive(int v)
{
    return v > 0 && v < 1000;
}

int nest(int a, int b)
{
    if (positive(a) || b == 7)
        return 1;
    return 0;
}
"""


@pytest.fixture
def unit(ctgen_dir: pytest.Pytester) -> pytest.Pytester:
    ctgen_dir.makefile(".c", u=UNIT)
    return ctgen_dir


def _mcdc(rows: dict[str, dict[str, Any]], function: str) -> tuple[int, int]:
    m = rows[function]["mcdc"]
    return m["conditions_covered"], m["conditions_total"]


def test_measured_mcdc_in_the_table_and_the_json_report(unit: pytest.Pytester) -> None:
    result = run_ctgen(unit, "--ctgen-report", "mcdc", "--ctgen-report", "term-missing",
                       "--ctgen-report", "json:r.json", "u.c")
    out = output(result)
    assert result.ret == 0, out
    rows = report_rows(unit.path / "r.json")
    assert _mcdc(rows, "and2") == (2, 2)
    assert rows["and2"]["mcdc"]["unique_cause"] == 2
    assert _mcdc(rows, "mux") == (4, 4)
    assert rows["mux"]["mcdc"]["masking"] == [
        {"line": 10, "column": 26, "condition": "a", "decision": "a && b || (!a) && c"}]
    assert _mcdc(rows, "never") == (0, 2)
    assert [(g["line"], g["column"], g["condition"])
            for g in rows["never"]["mcdc"]["not_covered"]] == [(15, 12, "a"), (15, 18, "a")]
    assert rows["plain"]["mcdc"] == {"decisions": 0, "conditions_total": 0,
                                     "conditions_covered": 0, "unique_cause": 0,
                                     "masking": [], "not_covered": [], "infeasible": []}
    assert _mcdc(rows, "positive") == (2, 2) and _mcdc(rows, "nest") == (2, 2)
    doc = json.loads((unit.path / "r.json").read_text(encoding="utf-8"))
    assert doc["totals"]["mcdc"] == {"conditions_total": 12, "conditions_covered": 10}
    table = {line.split()[0]: line.split() for line in result.outlines
             if line.startswith(("u.c::", "TOTAL"))}
    assert re.search(r"function\s+cases\s+C0\s+C1\s+MC/DC\s+unreachable", out), out
    assert table["u.c::and2"][4] == "100.0%"
    assert table["u.c::never"][4] == "0.0%"
    assert table["u.c::plain"][4] == "-"
    assert table["TOTAL"][4] == "83.3%"
    assert "(MC/DC by masking: 10:26 a)" in out
    assert "MC/DC no pair for 15:12 a, 15:18 a" in out


def _exported_cases(pytester: pytest.Pytester) -> Path:
    """An export of u.c's and2 only, its cases file replayed by `pytest exp`."""
    (pytester.path / "u.c").write_text(UNIT.split("\n\n")[0] + "\n", encoding="utf-8")
    result = run_ctgen(pytester, "--ctgen-export", "exp", "u.c")
    assert result.ret == 0, output(result)
    return pytester.path / "exp" / "u" / "u.ctgen.json"


def _keep_cases(cases_file: Path, keep: Any) -> None:
    """Keep only the cases whose (a, b) `keep` accepts."""
    doc = json.loads(cases_file.read_text(encoding="utf-8"))
    for fn in doc["functions"]:
        fn["cases"] = [c for c in fn["cases"]
                       if keep(*(p["value"] for p in c["params"]))]
    cases_file.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def test_mcdc_of_chosen_cases_and_the_gate(ctgen_dir: pytest.Pytester) -> None:
    cases_file = _exported_cases(ctgen_dir)
    # both true, and a false: a is shown (b is not evaluated when a is false), b is not
    _keep_cases(cases_file, lambda a, b: a <= 0 or b > 0)
    failing = ctgen_dir.runpytest_subprocess(
        "-p", "no:xdist", "exp", "--ctgen-fail-under-mcdc", "100", "--ctgen-report",
        "term-missing", "--ctgen-report", "json:r.json")
    out = output(failing)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED, out
    failing.assert_outcomes(passed=2)  # every case passed: only the gate failed
    assert "FAIL Required MC/DC coverage of 100% not reached. Total MC/DC coverage: " \
           "50.00% (1 of 2 conditions shown to affect their decision)" in out
    assert "MC/DC no pair for 3:18 b > 0" in out
    rows = report_rows(ctgen_dir.path / "r.json")
    assert _mcdc(rows, "and2") == (1, 2)
    assert rows["and2"]["mcdc"]["not_covered"] == [
        {"line": 3, "column": 18, "condition": "b > 0", "decision": "a > 0 && b > 0"}]

    passing = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "exp",
                                             "--ctgen-fail-under-mcdc", "50")
    assert passing.ret == 0, output(passing)
    assert "Required MC/DC" not in output(passing)
    assert re.search(r"TOTAL\s+2\s+\S+\s+\S+\s+50\.0%", output(passing))

    # with the case where only b is false, b is shown too
    _exported_cases(ctgen_dir)
    passing = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "exp",
                                             "--ctgen-fail-under-mcdc", "100")
    assert passing.ret == 0, output(passing)
    assert re.search(r"TOTAL\s+3\s+\S+\s+\S+\s+100\.0%", output(passing)), output(passing)


def test_mcdc_is_measured_on_the_cases_that_ran(unit: pytest.Pytester) -> None:
    result = run_ctgen(unit, "--ctgen-report", "mcdc", "--ctgen-report", "json:r.json",
                       "-k", "and2", "u.c")
    assert result.ret == 0, output(result)
    rows = report_rows(unit.path / "r.json")
    assert _mcdc(rows, "and2") == (2, 2)
    assert _mcdc(rows, "mux") == (0, 4)  # none of its cases ran


def test_cobertura_and_html_carry_mcdc(unit: pytest.Pytester) -> None:
    result = run_ctgen(unit, "--ctgen-criterion", "mcdc", "--ctgen-report", "xml:c.xml",
                       "--ctgen-report", "html:h", "u.c")
    assert result.ret == 0, output(result)
    root = ET.parse(unit.path / "c.xml").getroot()
    assert (root.get("mcdc-conditions-covered"), root.get("mcdc-conditions-valid")) \
        == ("10", "12")
    methods = {m.get("name"): m for m in root.iter("method")}
    assert methods["never"].get("mcdc-rate") == "0.0"
    assert methods["and2"].get("mcdc-rate") == "1.0"
    assert methods["plain"].get("mcdc-conditions-valid") == "0"
    page = (unit.path / "h" / "ctgen.html").read_text(encoding="utf-8")
    assert "<th>MC/DC</th>" in page
    assert "<td>mux</td><td>4</td><td>100.0%</td><td>100.0%</td><td>100.0% (MC/DC by " \
           "masking: 10:26 a)</td>" in page


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_export_prints_the_same_mcdc_without_python(unit: pytest.Pytester) -> None:
    result = run_ctgen(unit, "--ctgen-criterion", "mcdc", "--ctgen-export", "exp",
                       "--ctgen-report", "json:r.json", "u.c")
    assert result.ret == 0, output(result)
    rows = report_rows(unit.path / "r.json")
    _, figures = make_mcdc(unit.path / "exp" / "u")
    assert figures == {**{name: _mcdc(rows, name) for name in rows}, "TOTAL": (10, 12)}
    # the copy follows the unit: a changed unit stops `make mcdc`
    (unit.path / "u.c").write_text(UNIT + "\n", encoding="utf-8")
    stale = subprocess.run(["make", "-s", "-C", str(unit.path / "exp" / "u"), "mcdc"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert stale.returncode != 0
    assert "changed after the export: ctgen_unit_mcdc.c is a stale copy" in stale.stderr


def test_a_branch_session_measures_no_mcdc(unit: pytest.Pytester) -> None:
    result = run_ctgen(unit, "--ctgen-report", "term", "--ctgen-report", "json:r.json",
                       "--ctgen-export", "exp", "u.c")
    assert result.ret == 0, output(result)
    assert "MC/DC" not in output(result)
    assert all("mcdc" not in row for row in report_rows(unit.path / "r.json").values())
    assert "mcdc" not in (unit.path / "exp" / "u" / "Makefile").read_text(encoding="utf-8")
    assert not list((unit.path / "exp" / "u").glob("*mcdc*"))
    builds = unit.path / ".pytest_cache" / "d" / "ctgen" / "builds"
    assert len(list(builds.iterdir())) == 1  # the harness's group only: no MC/DC build
    result = run_ctgen(unit, "--ctgen-report", "mcdc", "u.c")
    assert result.ret == 0, output(result)
    assert len(list(builds.iterdir())) == 2


def test_xdist_workers_join_their_evaluations(unit: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    parallel = run_ctgen(unit, "-n", "2", "--ctgen-report", "mcdc", "--ctgen-report",
                         "json:n2.json", "u.c",
                         quiet=("-p", "no:hypothesispytest", "-p", "no:benchmark"))
    assert parallel.ret == 0, output(parallel)
    serial = run_ctgen(unit, "--ctgen-report", "mcdc", "--ctgen-report", "json:n0.json",
                       "u.c")
    assert serial.ret == 0, output(serial)
    by_worker = report_rows(unit.path / "n2.json")
    alone = report_rows(unit.path / "n0.json")
    assert {f: r["mcdc"] for f, r in by_worker.items()} == \
        {f: r["mcdc"] for f, r in alone.items()}


def test_generating_for_mcdc_lists_the_conditions_proved_without_a_pair(
        unit: pytest.Pytester) -> None:
    """With `--ctgen-criterion mcdc` the search proves `a && !a` gives neither condition a
    pair: both are listed as infeasible, in the JSON report and beside the unreachable
    outcomes in the table, and still count as not shown."""
    result = run_ctgen(unit, "--ctgen-criterion", "mcdc", "--ctgen-report", "term",
                       "--ctgen-report", "json:r.json", "u.c")
    out = output(result)
    assert result.ret == 0, out
    rows = report_rows(unit.path / "r.json")
    assert _mcdc(rows, "never") == (0, 2)
    assert [(g["line"], g["column"]) for g in rows["never"]["mcdc"]["infeasible"]] == [
        (15, 12), (15, 18)]
    assert re.search(r"^u\.c::never .*15:true, MC/DC 15:12 a, MC/DC 15:18 a ", out, re.M), out
