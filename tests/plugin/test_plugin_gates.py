"""--ctgen-fail-under / --ctgen-fail-under-line: coverage gates on the totals gcov measured."""
from __future__ import annotations

import re

import pytest

from plugin_helpers import output, report_rows, run_ctgen

# parity_two: `y == 2` can never be true (y is 0 or 1); gcc -O0 keeps the branch. So the
# unit's best branch coverage is 3 of 4 outcomes (75%) and line coverage 8 of 9 (88.89%).
GATED = """\
int parity_two(int x)
{
    int y = x & 1;
    if (y == 2) {
        return 1;
    }
    return 0;
}

int sign(int v)
{
    if (v < 0) {
        return -1;
    }
    return 1;
}
"""


@pytest.fixture
def gated(ctgen_dir: pytest.Pytester) -> pytest.Pytester:
    ctgen_dir.makefile(".c", gated=GATED)
    return ctgen_dir


def _totals(pytester: pytest.Pytester) -> tuple[float, float]:
    rows = report_rows(pytester.path / "r.json")
    assert rows["parity_two"]["unreachable"] == [{"line": 4, "outcome": "true"}]
    lines = sum(r["lines_covered"] for r in rows.values()) / sum(
        r["lines_total"] for r in rows.values())
    branches = sum(r["branches_covered"] for r in rows.values()) / sum(
        r["branches_total"] for r in rows.values())
    return 100 * lines, 100 * branches


def test_branch_gate_fails_below(gated: pytest.Pytester) -> None:
    result = run_ctgen(gated, "--ctgen-fail-under", "100", "--ctgen-report", "term",
                       "--ctgen-report", "json:r.json", "gated.c")
    out = output(result)
    _, branch_pct = _totals(gated)
    assert branch_pct == 75.0
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    result.assert_outcomes(passed=4)  # every case passed: only the gate failed
    assert re.search(r"Required branch coverage of 100% not reached\. "
                     r"Total branch coverage: 75\.00%", out), out
    assert "line coverage" not in out


def test_branch_gate_passes_at_or_above(gated: pytest.Pytester) -> None:
    result = run_ctgen(gated, "--ctgen-fail-under", "75", "gated.c")
    assert result.ret == 0, output(result)
    assert "Required" not in output(result)
    result = run_ctgen(gated, "--ctgen-fail-under", "50", "gated.c")
    assert result.ret == 0, output(result)
    result.assert_outcomes(passed=4)


def test_line_gate(gated: pytest.Pytester) -> None:
    failing = run_ctgen(gated, "--ctgen-fail-under-line", "100", "--ctgen-report", "term",
                        "--ctgen-report", "json:r.json", "gated.c")
    line_pct, _ = _totals(gated)
    assert round(line_pct, 2) == 88.89
    out = output(failing)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED, out
    assert re.search(r"Required line coverage of 100% not reached\. "
                     r"Total line coverage: 88\.89%", out), out
    assert "branch coverage" not in out

    passing = run_ctgen(gated, "--ctgen-fail-under-line", "50", "--ctgen-fail-under", "50",
                        "gated.c")
    assert passing.ret == 0, output(passing)
    assert "Required" not in output(passing)


def test_gates_from_ini(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makeini("[pytest]\nctgen_fail_under = 90\nctgen_fail_under_line = 80\n")
    ctgen_dir.makefile(".c", gated=GATED)
    result = run_ctgen(ctgen_dir, "gated.c")
    out = output(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out
    assert "Required branch coverage of 90% not reached" in out
    assert "Required line coverage" not in out
    # the command line wins over the ini file
    result = run_ctgen(ctgen_dir, "--ctgen-fail-under", "70", "gated.c")
    assert result.ret == 0, output(result)
