"""`pytest --ctgen examples/` end to end, pinned against the gcov counts measured by hand in
tests/examples_expected.py. The run (~1 min) happens once per module and several tests read
its JSON report and terminal output."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _load_expected() -> dict[str, dict[str, dict[str, Any]]]:
    spec = importlib.util.spec_from_file_location("ctgen_examples_expected",
                                                  REPO / "tests" / "examples_expected.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXPECTED


EXPECTED = _load_expected()
FUNCTIONS = [(file, fn) for file, fns in EXPECTED.items() for fn in fns]

# Generation budget per function for this run. The double-precision triangle functions
# take 4 to 18 s on an idle machine (solver time limits are wall-clock, so the search
# varies with load); once tri_perimeter_f ran past the default 30 s on a loaded CI run.
# A generous budget keeps this test about coverage, not about the machine's speed.
EXAMPLES_TIMEOUT = "90"


@dataclass
class ExamplesRun:
    returncode: int
    stdout: str
    report: dict[str, Any]
    rows: dict[tuple[str, str], dict[str, Any]]


@pytest.fixture(scope="module")
def examples_run(tmp_path_factory: pytest.TempPathFactory) -> ExamplesRun:
    work = tmp_path_factory.mktemp("ctgen-examples")
    shutil.copytree(REPO / "examples", work / "examples")
    (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:hypothesispytest", "-p", "no:benchmark",
         "-p", "no:xdist", "--ctgen", "examples",
         "--ctgen-timeout", EXAMPLES_TIMEOUT,
         "--ctgen-report", "term", "--ctgen-report", "json:report.json"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)
    report_file = work / "report.json"
    assert report_file.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_file.read_text(encoding="utf-8"))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for row in report["functions"]:
        key = (Path(row["file"]).name, row["function"])
        assert key not in rows, f"{key} reported twice"
        rows[key] = row
    return ExamplesRun(done.returncode, done.stdout + done.stderr, report, rows)


def test_session_passes_without_failed_cases(examples_run: ExamplesRun) -> None:
    assert examples_run.returncode == 0, examples_run.stdout[-4000:]
    assert "Traceback" not in examples_run.stdout
    m = re.search(r"^=+ (\d+) passed in [\d.]+s", examples_run.stdout, re.M)
    assert m, examples_run.stdout[-2000:]
    assert int(m.group(1)) == sum(r["cases"] for r in examples_run.rows.values())
    for key, row in examples_run.rows.items():
        assert row["failed"] == 0, key
        assert row["passed"] == row["cases"] >= 1, key


def test_report_lists_exactly_the_example_functions(examples_run: ExamplesRun) -> None:
    assert sorted(examples_run.rows) == sorted(FUNCTIONS)
    for (file, _), row in examples_run.rows.items():
        assert row["file"] == f"examples/{file}"


@pytest.mark.parametrize(("file", "function"), FUNCTIONS)
def test_gcov_totals_pinned(examples_run: ExamplesRun, file: str, function: str) -> None:
    expected = EXPECTED[file][function]
    row = examples_run.rows[(file, function)]
    assert (row["branches_total"], row["lines_total"]) == \
        (expected["branches"], expected["lines"])


def _branch_params() -> list[Any]:
    return [pytest.param(file, fn, id=f"{file}::{fn}") for file, fn in FUNCTIONS]


@pytest.mark.parametrize(("file", "function"), _branch_params())
def test_every_feasible_branch_covered(examples_run: ExamplesRun, file: str,
                                       function: str) -> None:
    expected = EXPECTED[file][function]
    row = examples_run.rows[(file, function)]
    infeasible = expected["infeasible"]
    assert row["branches_covered"] == expected["branches"] - len(infeasible)
    if not infeasible:
        assert row["lines_covered"] == row["lines_total"]
        assert row["not_reached"] == []
        assert row["stop_reason"] == "exhausted"


@pytest.mark.parametrize(("file", "function"), FUNCTIONS)
def test_incomplete_coverage_is_explained(examples_run: ExamplesRun, file: str,
                                          function: str) -> None:
    """An outcome neither covered nor proved unreachable must be reported as not reached,
    with a bound or the budget as the reason (DESIGN §5)."""
    expected = EXPECTED[file][function]
    row = examples_run.rows[(file, function)]
    if row["branches_covered"] < expected["branches"] - len(expected["infeasible"]):
        assert row["stop_reason"] in ("time budget", "depth bound"), row
        assert row["not_reached"], row
    else:
        assert row["branches_covered"] == expected["branches"] - len(expected["infeasible"])


@pytest.mark.parametrize(("file", "function"), FUNCTIONS)
def test_unreachable_only_where_infeasible(examples_run: ExamplesRun, file: str,
                                           function: str) -> None:
    """The generator never claims a reachable outcome to be unreachable."""
    row = examples_run.rows[(file, function)]
    infeasible_lines = {line for line, _ in EXPECTED[file][function]["infeasible"]}
    assert {u["line"] for u in row["unreachable"]} <= infeasible_lines


def test_ntc_table_ok_infeasible_outcome_proved(examples_run: ExamplesRun) -> None:
    row = examples_run.rows[("lookup.c", "ntc_table_ok")]
    assert row["unreachable"] == [{"line": 77, "outcome": "true"}]
    assert row["stop_reason"] == "exhausted"
    assert row["branches_covered"] == row["branches_total"] - 1 == 3
    assert row["lines_covered"] == row["lines_total"] - 1  # the `return false;`


def test_totals_are_the_sum_of_rows(examples_run: ExamplesRun) -> None:
    totals = examples_run.report["totals"]
    for key in ("lines_total", "lines_covered", "branches_total", "branches_covered"):
        assert totals[key] == sum(r[key] for r in examples_run.rows.values()), key
    assert totals["branches_total"] == sum(e["branches"] for fns in EXPECTED.values()
                                           for e in fns.values())


def test_terminal_table(examples_run: ExamplesRun) -> None:
    out = examples_run.stdout
    assert re.search(r"^-+ ctgen coverage \(gcov\) -+$", out, re.M)
    table = out[out.index("ctgen coverage (gcov)"):]
    assert re.search(r"^function\s+cases\s+C0\s+C1\s+unreachable\s+stop\s+time$", table, re.M)
    for (file, fn), row in examples_run.rows.items():
        line = re.search(rf"^examples/{re.escape(file)}::{fn}\s+(\d+)\s+(\S+)\s+(\S+)\s",
                         table, re.M)
        assert line, f"no row for {file}::{fn}"
        assert int(line.group(1)) == row["cases"]
    ntc = re.search(r"^examples/lookup\.c::ntc_table_ok\s+1\s+80\.0%\s+75\.0%\s+77:true\s+"
                    r"exhausted", table, re.M)
    assert ntc, table
    totals = examples_run.report["totals"]
    total = re.search(r"^TOTAL\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%$", table, re.M)
    assert total, table
    assert int(total.group(1)) == sum(r["cases"] for r in examples_run.rows.values())
    assert total.group(2) == f"{100 * totals['lines_covered'] / totals['lines_total']:.1f}"
    assert total.group(3) == \
        f"{100 * totals['branches_covered'] / totals['branches_total']:.1f}"
