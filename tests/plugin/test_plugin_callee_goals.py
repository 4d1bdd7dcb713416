"""End to end: `--ctgen-goals reached` (ini `ctgen_goals`): the branch outcomes of the
static helpers a public function calls are goals of its search too, and gcov measures them
reached by that function's cases alone; the default `function` aims at its own only."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from plugin_helpers import gcovr_functions, output, run_ctgen

API = """\
static int clamp(int v, int lo, int hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

static int parity(int v)
{
    if (v == 0)
        return 0;
    return v % 2 == 0 ? 2 : 1;
}

static int classify(int v)
{
    return parity(v) + (v > 500);
}

int api_scale(int raw, int gain)
{
    return classify(clamp(raw * gain, -1000, 1000));
}
"""

HELPERS = ("clamp", "parity", "classify")


def _measured(ctgen_dir: pytest.Pytester, *options: str) -> dict[str, dict[str, int]]:
    """gcov's counts per function when only api_scale's cases run."""
    export = ctgen_dir.path / "out" / "api"
    shutil.rmtree(export, ignore_errors=True)
    result = run_ctgen(ctgen_dir, "--ctgen-functions", "api_scale", "--ctgen-export", "out",
                       *options, "api.c")
    assert result.ret == 0, output(result)
    run = subprocess.run(["make", "-s", "-C", str(export), "run", "CFLAGS=--coverage -O0"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return gcovr_functions(ctgen_dir.path, export, "api.c")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_reached_goals_cover_the_helpers_branches(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "api.c").write_text(API, encoding="utf-8")
    default = _measured(ctgen_dir)
    assert any(default[h]["branches_covered"] < default[h]["branches_total"]
               for h in HELPERS), default
    reached = _measured(ctgen_dir, "--ctgen-goals", "reached")
    for name in (*HELPERS, "api_scale"):
        row = reached[name]
        assert row["branches_covered"] == row["branches_total"], (name, row)
        assert row["lines_covered"] == row["lines_total"], (name, row)


def test_the_ini_twin_and_the_default_keep_todays_cases(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "api.c").write_text(API, encoding="utf-8")
    doc = ctgen_dir.path / "out" / "api" / "api.ctgen.json"

    def cases(*options: str) -> str:
        result = run_ctgen(ctgen_dir, "--ctgen-functions", "api_scale", "--ctgen-export",
                           "out", *options, "api.c")
        assert result.ret == 0, output(result)
        return doc.read_text(encoding="utf-8")

    default = cases()
    assert cases("--ctgen-goals", "function") == default
    reached = cases("--ctgen-goals", "reached")
    assert len(json.loads(reached)["functions"][0]["cases"]) > \
        len(json.loads(default)["functions"][0]["cases"])
    ctgen_dir.makeini("[pytest]\nctgen_goals = reached\n")
    assert cases() == reached


def test_a_goal_scope_that_does_not_exist_is_a_usage_error(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "api.c").write_text(API, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-goals", "callees", "api.c")
    assert result.ret != 0
    assert "callees" in output(result) and "reached" in output(result)
