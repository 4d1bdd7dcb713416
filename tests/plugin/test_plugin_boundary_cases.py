"""End to end: `--ctgen-boundary-cases` (on by default) adds a case where a comparison no
case decided with its sides equal is, so changing `>` into `>=` fails a case; the summary
and the JSON report count those cases, and `off` leaves them out."""
from __future__ import annotations

import json

import pytest
from plugin_helpers import QUIET, output, report_rows, run_ctgen

UNIT = """\
#define MAX_N 8

int clamp_sum(const int *a, int n)
{
    int s = 0;
    if (n > MAX_N) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        s += a[i];
    }
    return s;
}
"""
MUTANT = UNIT.replace("if (n > MAX_N)", "if (n >= MAX_N)")


def _replay_on_mutant(ctgen_dir: pytest.Pytester) -> pytest.RunResult:
    (ctgen_dir.path / "sum.c").write_text(MUTANT, encoding="utf-8")
    return ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)


def test_a_boundary_case_tells_greater_from_greater_or_equal(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "sum.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "sum.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["clamp_sum"]
    assert row["boundary_cases"] == 1 and row["branches_covered"] == row["branches_total"]
    result.stdout.fnmatch_lines([f"ctgen boundary cases: 1 of {row['cases']} cases decide "
                                 "a comparison with its sides equal*"])
    doc = json.loads((ctgen_dir.path / "out" / "sum" / "sum.ctgen.json").read_text())
    [boundary] = [c for c in doc["functions"][0]["cases"] if c["notes"]]
    assert boundary["params"][1]["value"] == 8  # n == MAX_N
    replay = _replay_on_mutant(ctgen_dir)
    assert replay.ret == 1, output(replay)
    replay.assert_outcomes(passed=row["cases"] - 1, failed=1)


def test_off_adds_no_boundary_case(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "sum.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-boundary-cases", "off", "--ctgen-report",
                       "json:r.json", "--ctgen-export", "out", "sum.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["clamp_sum"]
    assert row["boundary_cases"] == 0
    assert "boundary cases" not in output(result)
    assert _replay_on_mutant(ctgen_dir).ret == 0  # nothing tells > from >= then


def test_an_unknown_value_is_a_usage_error(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "sum.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-boundary-cases", "maybe", "sum.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ctgen-boundary-cases*invalid choice*maybe*"])


DIGITS = """\
int parse_digits(const char *s, long *out)
{
    long v = 0;
    if (*s == '\\0') {
        return 0;
    }
    while (*s != '\\0') {
        if (*s < '0' || *s > '9') {
            return 0;
        }
        v = v * 10 + (*s - '0');
        s++;
    }
    *out = v;
    return 1;
}
"""


@pytest.mark.parametrize("mutant", ["v = v / 10 + (*s - '0');", "v = v * 9 + (*s - '0');"])
def test_a_loop_case_runs_the_body_again_with_other_values(
        ctgen_dir: pytest.Pytester, mutant: str) -> None:
    """Branch coverage is met by one digit; the loop case that leaves through the loop's
    condition reads two different digits, so an accumulation that is wrong only from the
    second pass on fails it. (Another loop case leaves by the `return 0` after a pass.)"""
    (ctgen_dir.path / "digits.c").write_text(DIGITS, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "digits.c")
    assert result.ret == 0, output(result)
    doc = json.loads((ctgen_dir.path / "out" / "digits" / "digits.ctgen.json").read_text())
    loop_cases = [c for c in doc["functions"][0]["cases"]
                  if "loop case: a loop's body run more than once" in c["notes"]]
    assert sorted(c["expected"]["returns"] for c in loop_cases) == [0, 1], loop_cases
    [looped] = [c for c in loop_cases if c["expected"]["returns"] == 1]
    text = looped["objects"][0]["value"]["@string"]
    digits = text[:text.index("\0")]
    assert len(digits) >= 2 and len(set(digits)) == len(digits) and digits[0] != "0", text
    assert looped["expected"]["returns"] == 1
    assert looped["expected"]["objects"][0]["value"][0] == int(digits)
    row = report_rows(ctgen_dir.path / "r.json")["parse_digits"]
    assert row["boundary_cases"] >= 1 and row["branches_covered"] == row["branches_total"]
    (ctgen_dir.path / "digits.c").write_text(
        DIGITS.replace("v = v * 10 + (*s - '0');", mutant), encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    assert replay.ret == 1, output(replay)
    failed = [line for line in replay.outlines if line.startswith("FAILED ")]
    assert any(f"::parse_digits[{looped['id']}]" in line for line in failed), output(replay)


REACHED = """\
#include <stdbool.h>

bool reached(unsigned count, unsigned limit)
{
    return count >= limit;
}
"""


@pytest.mark.parametrize("mutant", ["count > limit", "count == limit", "count <= limit"])
def test_a_comparison_used_as_a_value_gets_each_outcome(
        ctgen_dir: pytest.Pytester, mutant: str) -> None:
    """`return count >= limit;` decides no branch, so branch coverage is met by one case;
    the boundary cases add count equal to limit and above it, so a changed operator fails
    a case."""
    (ctgen_dir.path / "reached.c").write_text(REACHED, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "reached.c")
    assert result.ret == 0, output(result)
    doc = json.loads((ctgen_dir.path / "out" / "reached" / "reached.ctgen.json").read_text())
    cases = doc["functions"][0]["cases"]
    # count below, equal to and above limit: the three tell every operator from the others
    sides = sorted((c["params"][0]["value"] > c["params"][1]["value"]) -
                   (c["params"][0]["value"] < c["params"][1]["value"]) for c in cases)
    assert sides == [-1, 0, 1], cases  # (one returns 0: no result case besides them)
    extras = [c for c in cases if c["notes"]]
    assert extras and all(n.startswith("boundary case: ") for c in extras for n in c["notes"])
    row = report_rows(ctgen_dir.path / "r.json")["reached"]
    assert row["boundary_cases"] == len(extras) == len(cases) - 1
    result.stdout.fnmatch_lines([f"ctgen boundary cases: {len(extras)} of {len(cases)} "
                                 "cases decide a comparison with its sides equal or one "
                                 "apart, give a comparison used as a value another outcome*"])
    (ctgen_dir.path / "reached.c").write_text(
        REACHED.replace("count >= limit", mutant), encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    assert replay.ret == 1, output(replay)
