"""A crash or a hang of the compiled unit fails that case only. The generator cannot see
inline assembly (the analysis preprocessing defines `__asm__` away), so it predicts a normal
return while the compiled code executes the instruction."""
from __future__ import annotations

import re

import pytest

from plugin_helpers import output, report_rows, run_ctgen

SIGILL_UNIT = """\
int f(int x)
{
    if (x > 10) {
        __asm__("ud2");
    }
    return x;
}

int g(int y)
{
    if (y < 0) {
        return -1;
    }
    return 1;
}
"""

HANG_UNIT = """\
int h(int x)
{
    if (x == 3) {
        __asm__("1: jmp 1b");
    }
    return x + 1;
}

int k(int y)
{
    if (y > 0) {
        return 1;
    }
    return 0;
}
"""

PLAIN_UNIT = """\
#include <stdint.h>

int32_t g_count;

int32_t bump(int32_t by)
{
    if (by <= 0) {
        return g_count;
    }
    g_count += by;
    return g_count > 100 ? 100 : g_count;
}
"""


def _failed(out: str) -> list[tuple[str, str]]:
    return re.findall(r"^FAILED (\S+) - (.*)$", out, re.M)


def test_sigill_fails_only_that_case(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", crash=SIGILL_UNIT)
    result = run_ctgen(ctgen_dir, "-rA", "--ctgen-report", "term",
                       "--ctgen-report", "json:r.json", "crash.c")
    out = output(result)
    result.assert_outcomes(passed=3, failed=1)
    failed = _failed(out)
    assert len(failed) == 1, out
    item, message = failed[0]
    assert re.fullmatch(r"crash\.c::f\[case\d+\]", item)
    assert "SIGILL" in message
    assert len(re.findall(r"^PASSED crash\.c::f\[case\d+\]$", out, re.M)) == 1
    assert len(re.findall(r"^PASSED crash\.c::g\[case\d+\]$", out, re.M)) == 2
    # the failure shows the inputs: the crashing case is the one with x > 10
    x = re.search(r"^inputs:\n\s+x = (-?\d+)$", out, re.M)
    assert x and int(x.group(1)) > 10, out
    assert "Traceback" not in out
    # the session survived: the coverage table, with the crashing function's coverage
    assert re.search(r"^-+ ctgen coverage \(gcov\) -+$", out, re.M)
    assert re.search(r"^crash\.c::g\s+2\s+100\.0%\s+100\.0%", out, re.M)
    assert re.search(r"^TOTAL\s+4\s", out, re.M)
    rows = report_rows(ctgen_dir.path / "r.json")
    assert (rows["f"]["passed"], rows["f"]["failed"]) == (1, 1)
    assert (rows["g"]["passed"], rows["g"]["failed"]) == (2, 0)
    # the crashed child flushed its gcov data: both outcomes of `x > 10` were taken
    assert rows["f"]["branches_covered"] == rows["f"]["branches_total"] == 2


def test_hang_times_out_and_session_continues(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", hang=HANG_UNIT)
    result = run_ctgen(ctgen_dir, "-rA", "--ctgen-case-timeout", "1",
                       "--ctgen-report", "term", "--ctgen-report", "json:r.json", "hang.c")
    out = output(result)
    result.assert_outcomes(passed=3, failed=1)
    failed = _failed(out)
    assert len(failed) == 1, out
    item, message = failed[0]
    assert re.fullmatch(r"hang\.c::h\[case\d+\]", item)
    assert re.search(r"timed out after 1 s", message), message
    x = re.search(r"^inputs:\n\s+x = (-?\d+)$", out, re.M)
    assert x and int(x.group(1)) == 3
    assert len(re.findall(r"^PASSED hang\.c::k\[case\d+\]$", out, re.M)) == 2
    assert re.search(r"^TOTAL\s+4\s", out, re.M)
    rows = report_rows(ctgen_dir.path / "r.json")
    assert rows["k"]["branches_covered"] == rows["k"]["branches_total"] == 2
    assert (rows["h"]["passed"], rows["h"]["failed"]) == (1, 1)


def test_isolate_none_runs_in_process(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", plain=PLAIN_UNIT)
    fork = run_ctgen(ctgen_dir, "--ctgen-report", "json:fork.json", "plain.c")
    inproc = run_ctgen(ctgen_dir, "--ctgen-isolate", "none", "--ctgen-report",
                       "json:none.json", "plain.c")
    assert fork.ret == inproc.ret == 0, output(inproc)
    n = fork.parseoutcomes()["passed"]
    assert n >= 3
    inproc.assert_outcomes(passed=n)
    a = report_rows(ctgen_dir.path / "fork.json")["bump"]
    b = report_rows(ctgen_dir.path / "none.json")["bump"]
    # gcov data flushed from the pytest process itself
    assert b["branches_total"] == a["branches_total"] > 0
    assert b["branches_covered"] == a["branches_covered"] == a["branches_total"]
    assert b["lines_covered"] == a["lines_covered"] == a["lines_total"]


def test_isolate_rejects_unknown_mode(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", plain=PLAIN_UNIT)
    result = run_ctgen(ctgen_dir, "--ctgen-isolate", "thread", "plain.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "invalid choice: 'thread'" in output(result)
