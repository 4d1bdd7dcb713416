"""End to end: MC/DC of code that never returns. Cases the harness stops in a loop (a
`for (;;)` task over stubs, a loop that hangs for odd inputs) run on the MC/DC build too,
stopped after the same iterations, so the decisions inside those loops are measured; the
export's `make mcdc` runs them the same way and prints the same figures."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import make_mcdc, output, report_rows, run_ctgen

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# Every case of task stops in its loop; count_to's odd n (with m != 99) never ends, and
# only those cases show its inner decision's `n & 1u` and `m > 3`.
UNIT = """\
int sensor(void);
int button(void);
void act(int what);

void task(void)
{
    for (;;) {
        int a = sensor();
        int b = button();
        if (a > 10 && b)
            act(1);
        else if (a < 0 || b == 2)
            act(2);
    }
}

unsigned odd_seen;

unsigned count_to(unsigned n, int m)
{
    unsigned i = 0, steps = 0;
    while (i != n && m != 99) {
        i += 2;
        steps++;
        if ((n & 1u) && m > 3)
            odd_seen++;
    }
    return steps;
}
"""

EVERY_CONDITION = {"task": (4, 4), "count_to": (4, 4)}


def _mcdc(rows: dict[str, dict[str, Any]]) -> dict[str, tuple[int, int]]:
    return {name: (row["mcdc"]["conditions_covered"], row["mcdc"]["conditions_total"])
            for name, row in rows.items()}


def _stopped(export: Path) -> dict[str, int]:
    """How many cases of each function the export's cases file stops in a loop."""
    doc = json.loads((export / "task.ctgen.json").read_text(encoding="utf-8"))
    return {f["name"]: sum(1 for c in f["cases"]
                           if c["expected"].get("ends", {}).get("how") == "loop stop")
            for f in doc["functions"]}


@pytest.mark.parametrize("options", [("--ctgen-criterion", "mcdc"),
                                     ("--ctgen-report", "mcdc")],
                         ids=["criterion-mcdc", "report-mcdc"])
def test_stopped_cases_are_measured_for_mcdc(ctgen_dir: pytest.Pytester,
                                             options: tuple[str, str]) -> None:
    (ctgen_dir.path / "task.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, *options, "--ctgen-report", "term-missing",
                       "--ctgen-report", "json:r.json", "--ctgen-export", "exp", "task.c")
    out = output(result)
    assert result.ret == 0, out
    stopped = _stopped(ctgen_dir.path / "exp" / "task")
    assert stopped["task"] >= 1 and stopped["count_to"] >= 1, stopped
    rows = report_rows(ctgen_dir.path / "r.json")
    cases = sum(row["cases"] for row in rows.values())
    result.assert_outcomes(passed=cases)
    assert _mcdc(rows) == EVERY_CONDITION, out
    doc = json.loads((ctgen_dir.path / "r.json").read_text(encoding="utf-8"))
    assert doc["totals"]["mcdc"] == {"conditions_total": 8, "conditions_covered": 8}
    assert re.search(r"^TOTAL\s+\d+\s+\S+\s+\S+\s+100\.0%", out, re.M), out
    assert "MC/DC no pair" not in out

    if shutil.which("make") is None:
        return
    stdout, figures = make_mcdc(ctgen_dir.path / "exp" / "task")
    verdict = next(line for line in stdout.splitlines() if " failed" in line)
    assert verdict == f"{cases} passed, 0 failed"  # none timed out: each stopped
    assert figures == {**EVERY_CONDITION, "TOTAL": (8, 8)}
