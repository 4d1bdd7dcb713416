"""A function whose generation child is stopped from outside (the memory limit, the hard
time stop) keeps the cases it found until then: they run as items and pass, also replayed
from an export, and the report says why its generation stopped."""
from __future__ import annotations

import json

import pytest

from plugin_helpers import QUIET, output, passed_ids, report_rows, run_ctgen

# `stuck` has annotations, calls a stub and takes a callback: what its kept cases need of
# the function's result besides the cases themselves
UNIT = """\
#include "ctgen.h"

int limit;
int sensor(void);

int before(int x) { if (x > 3) return 1; return 0; }

int stuck(int x, int (*pred)(int value))
{
    int s;

    __rtt_postcondition(__rtt_return >= 0);
    s = sensor();
    if (pred(x)) {
        if (x > limit) {
            return 1;
        }
        return 2;
    }
    if (s == 7) {
        return 3;
    }
    return 0;
}

int after(int x) { if (x < -3) return 1; return 0; }
"""

# Where the search of `stuck` would explore an edge with a case found, its child is killed
# as the kernel kills a child past its memory, or blocks and the parent's clock jumps past
# the hard stop: so the stop comes after the first case, however fast the machine is.
CONFTEST = """\
import os
import signal
import time
from pathlib import Path

from pytest_ctgen import generation_child
from pytest_ctgen.search import generator

MODE = {mode!r}
BLOCKED = Path({blocked!r})
real = generator.Generator.explore


def explore(self, node, index):
    if self.cfg.function.name == "stuck" and self.cases:
        if MODE == "memory":
            os.kill(os.getpid(), signal.SIGKILL)
        BLOCKED.touch()
        time.sleep(600)
    return real(self, node, index)


class Clock:
    @staticmethod
    def monotonic():
        return time.monotonic() + (1000.0 if BLOCKED.exists() else 0.0)


generator.Generator.explore = explore
generation_child.time = Clock
"""


@pytest.mark.parametrize(("mode", "stop"), [("memory", "memory limit"),
                                            ("time", "time budget")])
def test_a_stopped_function_keeps_the_cases_it_found(ctgen_dir: pytest.Pytester, mode: str,
                                                     stop: str) -> None:
    ctgen_dir.makeconftest(CONFTEST.format(mode=mode,
                                           blocked=str(ctgen_dir.path / "blocked")))
    (ctgen_dir.path / "unit.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-v", "--ctgen-timeout", "60", "--ctgen-memory", "512",
                       "--ctgen-report", "json:report.json", "--ctgen-report", "term",
                       "--ctgen-export", "out",
                       "unit.c")
    assert result.ret == 0, output(result)
    rows = report_rows(ctgen_dir.path / "report.json")
    row = rows["stuck"]
    assert row["stop_reason"] == stop and row["cases"] >= 1, row
    assert row["passed"] == row["cases"] and row["failed"] == 0, row
    assert row["not_reached"] and row["branches_covered"] >= 1, row
    assert [i for i in passed_ids(result) if "::stuck[" in i] == \
        [f"unit.c::stuck[case{k}]" for k in range(1, row["cases"] + 1)]
    assert any(line.startswith("unit.c::stuck") and stop in line
               for line in result.outlines), output(result)  # the table
    for name in ("before", "after"):
        assert rows[name]["stop_reason"] == "exhausted" and rows[name]["cases"] == 2

    doc = json.loads((ctgen_dir.path / "out" / "unit" / "unit.ctgen.json").read_text())
    [function] = [f for f in doc["functions"] if f["name"] == "stuck"]
    assert [c["name"] for c in function["callbacks"]] == ["ctgen_cb_stuck_pred"]
    assert [c["kind"] for c in function["contract"]["checks"]] == ["postcondition"]

    (ctgen_dir.path / "conftest.py").unlink()
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "-v", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert len([line for line in replay.outlines
                if "::stuck[" in line and " PASSED" in line]) == row["cases"]
