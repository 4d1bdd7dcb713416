"""The search's bounds as a user sets them: `--ctgen-max-recursion` (ini twin) bounds how
many calls of one function are active at once, `--ctgen-max-depth` how often a path
decides one branch, and a parameter declared as an array of N elements points to N. A
value that is not a bound is a usage error naming the option, never a traceback."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from plugin_helpers import output, report_rows, run_ctgen

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# depth(n) is n + 1 calls deep: only a search that follows the recursion 21 calls down
# decides `== 20` true; a path cut by a lower bound is run on with inputs of its own.
DEPTH = """\
static int depth(int n)
{
    if (n <= 0)
        return 0;
    return 1 + depth(n - 1);
}

int deep_enough(int n)
{
    if (n > 30)
        return -1;
    if (depth(n) == 20)
        return 1;
    return 0;
}
"""

# Euclid by subtraction: a path that goes on subtracting reaches the recursion bound.
EUCLID = """\
int euclid(int a, int b)
{
    if (a <= 0 || b <= 0)
        return 0;
    if (a == b)
        return a;
    if (a > b)
        return euclid(a - b, b);
    return euclid(a, b - a);
}
"""

# The caller passes 16 readings: the first above the limit at every index, and none.
READINGS = """\
int first_over(const int readings[16], int limit)
{
    for (int i = 0; i < 16; i++)
        if (readings[i] > limit)
            return i;
    return -1;
}
"""


def test_the_recursion_bound_is_the_users(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", deep=DEPTH)
    (ctgen_dir.path / "pytest.ini").write_text("[pytest]\nctgen_max_recursion = 8\n")
    bounded = run_ctgen(ctgen_dir, "--ctgen-functions", "deep_enough", "--ctgen-report",
                        "json:b.json", "deep.c")
    assert bounded.ret == 0, output(bounded)
    row = report_rows(ctgen_dir.path / "b.json")["deep_enough"]
    assert row["stop_reason"] == "depth bound", row
    assert row["unreachable"] == []
    assert [(o["line"], o["outcome"]) for o in row["not_reached"]] == [(12, "true")], row
    # the command line overrides the ini
    again = run_ctgen(ctgen_dir, "--ctgen-functions", "deep_enough", "--ctgen-max-recursion",
                      "21", "--ctgen-report", "json:c.json", "deep.c")
    assert again.ret == 0, output(again)
    row = report_rows(ctgen_dir.path / "c.json")["deep_enough"]
    assert row["stop_reason"] == "exhausted" and row["not_reached"] == [], row
    assert row["branches_covered"] == row["branches_total"], row


def test_a_path_the_recursion_bound_cuts_runs_on_to_give_its_case(
        ctgen_dir: pytest.Pytester) -> None:
    """The search's first paths keep subtracting until the bound cuts them; such a path
    is run on concretely with inputs of its own (as a loop cut by the unwinding bound
    is), so every outcome gets a case however deep the search went."""
    ctgen_dir.makefile(".c", euclid=EUCLID)
    result = run_ctgen(ctgen_dir, "--ctgen-max-recursion", "6", "--ctgen-report",
                       "json:r.json", "euclid.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["euclid"]
    assert row["stop_reason"] == "exhausted", row
    assert row["not_reached"] == [] and row["unreachable"] == [], row
    assert row["branches_covered"] == row["branches_total"] == 8, row


def test_a_parameter_declared_as_an_array_points_to_its_elements(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", first_over=READINGS)
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "first_over.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["first_over"]
    assert row["stop_reason"] == "exhausted", row
    assert row["branches_covered"] == row["branches_total"], row
    doc = json.loads((ctgen_dir.path / "out" / "first_over" / "first_over.ctgen.json")
                     .read_text(encoding="utf-8"))
    (function,) = doc["functions"]
    returns = {c["expected"]["returns"] for c in function["cases"]}
    assert -1 in returns and len(returns) > 1, returns  # all 16 checked, and one over
    # every case's readings are the 16 declared, none of another size
    sizes = {o["declaration"] for c in function["cases"] for o in c["objects"]}
    assert sizes == {"int @[16]"}, sizes


@pytest.mark.parametrize(("option", "value", "says"), [
    ("max-recursion", "0", "a whole number of at least 1"),
    ("max-depth", "-3", "a whole number of at least 1"),
    ("array-size", "0", "a whole number of at least 1"),
    ("memory", "-1", "a whole number of at least 0"),
    ("memory", "50", "too little to generate with: at least 128, or 0 for no limit"),
    ("timeout", "0", "a number of at least 0.001"),
    ("case-timeout", "-2", "a number of at least 0.001"),
])
def test_a_bad_bound_is_a_usage_error(ctgen_dir: pytest.Pytester, option: str, value: str,
                                      says: str) -> None:
    ctgen_dir.makefile(".c", deep=DEPTH)
    result = run_ctgen(ctgen_dir, f"--ctgen-{option}={value}", "deep.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output(result)
    name = option.replace("-", "_")
    # the command line's values come typed: -3, 0.0
    assert re.search(rf"--ctgen-{option} / ctgen_{name}: {value}(\.0)?( MiB)? is "
                     rf"(not )?{says}", output(result)), output(result)


@pytest.mark.parametrize(("name", "value"), [("max_depth", "abc"), ("max_recursion", "2.5"),
                                             ("timeout", "nan")])
def test_a_bad_bound_in_the_ini_file_is_a_usage_error(ctgen_dir: pytest.Pytester, name: str,
                                                      value: str) -> None:
    ctgen_dir.makefile(".c", deep=DEPTH)
    (ctgen_dir.path / "pytest.ini").write_text(f"[pytest]\nctgen_{name} = {value}\n")
    result = run_ctgen(ctgen_dir, "deep.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output(result)
    assert f"ctgen_{name}: {value!r} is not" in output(result)
    assert "INTERNALERROR" not in output(result)
