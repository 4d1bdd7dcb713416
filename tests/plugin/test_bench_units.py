"""End to end: the units of bench/units (our own C of the kinds real embedded code has:
callbacks, handler tables, operations structs, a pool over malloc, linked lists, a buffer
chain, a tree), generated with the default budgets in one run. gcov measures every branch
outcome of every function covered; the failing cases are exactly the two seeded bugs; the
outcomes the generator leaves are the ones named here, each with its reason."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from plugin_helpers import failed_functions, output, report_rows, run_ctgen

UNITS = Path(__file__).parents[2] / "bench" / "units"

#: The failing cases: the seeded bugs, by function, with what the case says.
FINDINGS = {
    "device_flush": ("driver.c:92:12: call through the NULL function pointer "
                     "(dev->ops)->write"),
    "pool_store": ("pool.c:101:9: use after free of 'malloc#0' (freed at "
                   "pool.c:58:5)"),
}

#: What the generator leaves of a function's own outcomes, and why: nothing (the sum of
#: two buffers past 0xFFFF, chain_checksum's 35:true, needs the search to leave the
#: buffer loop when it can rather than grow the chain).
NOT_REACHED: dict[str, set[tuple[int, str]]] = {}
#: The lines and branch outcomes gcov does not see run, by function: none.
UNCOVERED: dict[str, tuple[int, int]] = {}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_bench_units_are_covered_and_exactly_their_seeded_bugs_fail(
        ctgen_dir: pytest.Pytester) -> None:
    for unit in sorted(UNITS.glob("*.c")):
        shutil.copy(unit, ctgen_dir.path / unit.name)
    # the time budget is a safety net, not what this test measures: on a busy machine
    # the heaviest unit would meet it before its work budget
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-timeout", "3600",
                       timeout=600)
    text = output(result)
    assert result.ret == 1, text
    assert failed_functions(result) == sorted(FINDINGS), text
    for what in FINDINGS.values():
        assert f"ends: undefined behaviour at {what}" in text, what

    rows = report_rows(ctgen_dir.path / "r.json")
    assert len(rows) == 36
    for name, row in rows.items():
        assert row["unreachable"] == [], row
        assert row["cases"] > 0, row
        assert {(o["line"], o["outcome"]) for o in row["not_reached"]} == \
            NOT_REACHED.get(name, set()), row
        lines, branches = UNCOVERED.get(name, (0, 0))
        assert row["lines_total"] - row["lines_covered"] == lines, row
        assert row["branches_total"] - row["branches_covered"] == branches, row
        if name not in NOT_REACHED and name not in ("pool_store",):
            assert row["stop_reason"] == "exhausted", row
