"""End to end: the units of bench/search_units (our own C of the kinds a path-by-path
search stalls on: loops that count over input buffers of 16 to 64 elements, nested loops
with counters, mutual and nested recursion, firmware tasks that never return, a program
`main` over `__VERIFIER_nondet_*` inputs), generated with the default budgets in one run.
gcov measures every feasible branch outcome of every function covered; what is left is
infeasible, and listed as the generator can honestly say it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_helpers import output, report_rows, run_ctgen

UNITS = Path(__file__).parents[2] / "bench" / "search_units"

#: Outcomes proved unreachable: the false outcomes of `__VERIFIER_assume(n >= 0 && n <= 8)`.
UNREACHABLE = {"main": [(43, "false"), (43, "false")]}
#: Outcomes left, and why: the switch's default on a local that is always one of its three
#: cases, in a loop that never ends (no bounded search proves it dead).
NOT_REACHED = {"command_task": ([(40, "default")], "work budget")}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_search_units_reach_every_feasible_outcome(ctgen_dir: pytest.Pytester) -> None:
    for unit in sorted(UNITS.glob("*.c")):
        shutil.copy(unit, ctgen_dir.path / unit.name)
    # the time budget is a safety net, not what this test measures: on a busy machine
    # the heaviest unit would meet it before its work budget
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-timeout", "3600",
                       timeout=900)
    text = output(result)
    assert result.ret == 0, text

    rows = report_rows(ctgen_dir.path / "r.json")
    assert len(rows) == 22
    for name, row in rows.items():
        assert row["cases"] > 0 and row["failed"] == 0, row
        unreachable = UNREACHABLE.get(name, [])
        assert [(o["line"], o["outcome"]) for o in row["unreachable"]] == unreachable, row
        left, stop = NOT_REACHED.get(name, ([], "exhausted"))
        assert [(o["line"], o["outcome"]) for o in row["not_reached"]] == left, row
        assert row["stop_reason"] == stop, row
        assert row["lines_covered"] == row["lines_total"], row
        # gcov sees exactly the outcomes the generator left, and no other, untaken
        assert row["branches_total"] - row["branches_covered"] == \
            len(unreachable) + len(left), row
