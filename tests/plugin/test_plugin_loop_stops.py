"""End to end: code that never returns. A path the depth bound cuts inside a loop that has
not ended is a case the harness stops after the predicted number of iterations (a
`for (;;)` task over sensor stubs, a state machine; a loop that hangs for some inputs),
and the compiled run checks exactly that; gcov measures what the cases reach."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import gcovr_functions, output, report_rows, run_ctgen

TASK = """\
int read_sensor(void);
void actuate(int level);
static int state;
int alarms;

void task(void)
{
    for (;;) {
        int v = read_sensor();
        switch (state) {
        case 0:
            if (v > 10) { state = 1; actuate(1); }
            break;
        case 1:
            if (v < 5) { state = 0; actuate(0); }
            else if (v > 100) state = 2;
            break;
        default:
            alarms++;
            actuate(2);
            if (v == 0) state = 0;
            break;
        }
    }
}

int halve_steps(int x)
{
    int n = 0;
    while (x != 0) {
        if (x < -50)
            n = -1000;
        x -= 2;
        n++;
    }
    return n;
}

unsigned odd_seen;

unsigned count_to(unsigned n)
{
    unsigned i = 0, steps = 0;
    while (i != n) {
        i += 2;
        steps++;
        if (n & 1u)
            odd_seen++;
    }
    return steps;
}
"""


def _number(value: int | str) -> int:
    """An integer of the export: a number, or a mask in hex (`n & 1u` makes n one)."""
    return int(value, 16) if isinstance(value, str) else value


def _cases(export: Path, unit: str) -> dict[str, list[dict[str, Any]]]:
    doc = json.loads((export / f"{unit}.ctgen.json").read_text(encoding="utf-8"))
    return {f["name"]: f["cases"] for f in doc["functions"]}


@pytest.fixture
def generated(ctgen_dir: pytest.Pytester) -> tuple[pytest.Pytester, pytest.RunResult]:
    (ctgen_dir.path / "task.c").write_text(TASK, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "task.c")
    return ctgen_dir, result


def test_a_task_that_never_returns_is_tested_branch_by_branch(
        generated: tuple[pytest.Pytester, pytest.RunResult]) -> None:
    ctgen_dir, result = generated
    assert result.ret == 0, output(result)
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in ("task", "halve_steps", "count_to"):
        row = rows[name]
        assert row["branches_covered"] == row["branches_total"] > 0, (name, row)
        assert row["lines_covered"] == row["lines_total"], (name, row)
    cases = _cases(ctgen_dir.path / "out" / "task", "task")
    assert cases["task"]
    for case in cases["task"]:
        ends = case["expected"]["ends"]
        assert ends["how"] == "loop stop", case
        assert ends["loop"]["line"] == 8 and ends["loop"]["column"] == 5, ends
        n = ends["loop"]["iterations"]
        # one sensor read per iteration begun, and the call stopped before the next
        assert case["expected"]["stub_calls"]["read_sensor"] == n, case


def test_a_hang_is_a_case_with_its_inputs_and_the_stop(
        generated: tuple[pytest.Pytester, pytest.RunResult]) -> None:
    ctgen_dir, result = generated
    assert result.ret == 0, output(result)
    cases = _cases(ctgen_dir.path / "out" / "task", "task")
    for name, line in (("halve_steps", 30), ("count_to", 44)):
        stopped = [c for c in cases[name] if "ends" in c["expected"]]
        assert stopped, cases[name]
        note = [n for n in stopped[0]["notes"] if "may never end" in n]
        assert note and f"the loop at line {line}" in note[0], stopped[0]["notes"]
    odd = next(c for c in cases["count_to"] if "ends" in c["expected"])
    assert _number(odd["params"][0]["value"]) % 2 == 1
    # the global the loop counts holds exactly the iterations run up to the stop
    n = odd["expected"]["ends"]["loop"]["iterations"]
    before = {g["name"]: g["value"] for g in odd["globals"]}.get("odd_seen", 0)
    after = {g["name"]: g["value"] for g in odd["expected"]["globals"]}
    assert after["odd_seen"] == (before + n) % 2**32, odd


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_driver_stops_the_loops_and_gcov_measures_them(
        generated: tuple[pytest.Pytester, pytest.RunResult]) -> None:
    ctgen_dir, result = generated
    assert result.ret == 0, output(result)
    export = ctgen_dir.path / "out" / "task"
    run = subprocess.run(["make", "-s", "-C", str(export), "run", "CFLAGS=--coverage -O0"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1].endswith(" 0 failed")
    measured = gcovr_functions(ctgen_dir.path, export, "task.c")
    for name in ("task", "halve_steps", "count_to"):
        row = measured[name]
        assert row["branches_covered"] == row["branches_total"] > 0, (name, row)


def test_a_loop_that_ends_early_fails_its_stopped_case(ctgen_dir: pytest.Pytester) -> None:
    unit = ctgen_dir.path / "task.c"
    unit.write_text(TASK, encoding="utf-8")
    assert run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-functions", "task",
                     "task.c").ret == 0
    unit.write_text(TASK.replace("    for (;;) {", "    for (int k = 0; k < 3; k++) {"),
                    encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "out")
    text = output(replay)
    assert replay.ret == 1, text
    assert "predicted the call to run" in text and "of the loop at line 8 and be stopped " \
        "there, observed it returned after 3" in text, text
    assert "ends: stops after " in text and " iterations of the loop at line 8" in text, text
