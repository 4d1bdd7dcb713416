"""ini options and their command-line twins: function selection and preprocessor flags."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from plugin_helpers import collected_ids, output, report_rows, run_ctgen

HEADER = """\
#ifndef BOARD_H
#define BOARD_H
#define LIMIT 5
#endif
"""

# Compiles only with -DBUFLEN=8, -DSCALE=3 and the include dir holding board.h.
UNIT = """\
#include "board.h"
#if !defined(BUFLEN) || BUFLEN != 8
#error "build with -DBUFLEN=8"
#endif
#if !defined(SCALE)
#error "build with -DSCALE"
#endif

static char buf[BUFLEN];

int fill(int n)
{
    if (n > LIMIT) {
        return -1;
    }
    if (n < (int)sizeof buf) {
        buf[0] = 1;
        return 1;
    }
    return 0;
}

int scale(int x)
{
    if (x > 100) {
        return 0;
    }
    return x * SCALE;
}

int other(int n)
{
    if (n == 2) {
        return 1;
    }
    return 0;
}

int helper_a(int n) { return n + 1; }

int helper_b(int n) { return n - 1; }
"""

SELECTED = {"fill", "scale", "helper_a"}


def _functions(ids: list[str]) -> set[str]:
    return {re.match(r"[^:]+::(\w+)\[", i).group(1) for i in ids}


def _write_unit(pytester: pytest.Pytester) -> None:
    pytester.mkdir("inc")
    (pytester.path / "inc" / "board.h").write_text(HEADER, encoding="utf-8")
    pytester.makefile(".c", unit=UNIT)


def _check_run(pytester: pytest.Pytester, result: pytest.RunResult) -> None:
    out = output(result)
    assert result.ret == 0, out
    rows = report_rows(pytester.path / "r.json")
    assert set(rows) == SELECTED
    # LIMIT (5, from the include dir) < BUFLEN (8, from the defines): the false outcome of
    # `n < sizeof buf` is proved unreachable; with another LIMIT or BUFLEN it would not be
    assert rows["fill"]["unreachable"] == [{"line": 16, "outcome": "false"}]
    assert rows["fill"]["branches_covered"] == rows["fill"]["branches_total"] - 1 == 3
    assert rows["scale"]["branches_covered"] == rows["scale"]["branches_total"] == 2
    result.assert_outcomes(passed=sum(r["cases"] for r in rows.values()))


INI_STYLES = {
    "pytest.ini": "[pytest]\n{body}",
    "tox.ini": "[pytest]\n{body}",
    "setup.cfg": "[tool:pytest]\n{body}",
}

INI_BODY = """\
ctgen_defines =
    BUFLEN=8
ctgen_include_dirs =
    inc
ctgen_cflags = -DSCALE=3 -O0
ctgen_functions = fill scale helper_*
ctgen_exclude = helper_b
"""


@pytest.mark.parametrize("ini_file", sorted(INI_STYLES))
def test_ini_options_reach_preprocessor_and_select(pytester: pytest.Pytester,
                                                   ini_file: str) -> None:
    (pytester.path / ini_file).write_text(INI_STYLES[ini_file].format(body=INI_BODY),
                                          encoding="utf-8")
    _write_unit(pytester)
    result = run_ctgen(pytester, "--ctgen-report", "json:r.json", "-v", "unit.c")
    assert f"configfile: {ini_file}" in output(result)
    _check_run(pytester, result)
    assert _functions(re.findall(r"^(unit\.c::\S+) PASSED", output(result), re.M)) == SELECTED


def test_several_defines_on_one_ini_line(pytester: pytest.Pytester) -> None:
    pytester.makeini('[pytest]\nctgen_defines = BUFLEN=8 SCALE=3 "NOTE=a b"\n'
                     "ctgen_include_dirs = inc\nctgen_functions = fill scale\n")
    _write_unit(pytester)
    result = run_ctgen(pytester, "--ctgen-report", "json:r.json", "unit.c")
    assert result.ret == 0, output(result)
    rows = report_rows(pytester.path / "r.json")
    assert set(rows) == {"fill", "scale"} and rows["scale"]["cases"] == 2


def test_a_malformed_define_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nctgen_defines = BUFLEN=8 -DSCALE=3\n")
    _write_unit(pytester)
    result = run_ctgen(pytester, "unit.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ctgen_defines: '-DSCALE=3' is not NAME, NAME=VALUE or NAME(ARGS)=VALUE" in \
        output(result)


def test_pyproject_toml_options(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("""\
[tool.pytest.ini_options]
ctgen_defines = ["BUFLEN=8"]
ctgen_include_dirs = ["inc"]
ctgen_cflags = "-DSCALE=3"
ctgen_functions = ["fill", "scale", "helper_*"]
ctgen_exclude = ["helper_b"]
""")
    _write_unit(pytester)
    result = run_ctgen(pytester, "--ctgen-report", "json:r.json", "unit.c")
    _check_run(pytester, result)


def test_cli_twins_override_ini(pytester: pytest.Pytester) -> None:
    # the ini file selects `other` only and has no flags: the command line must win
    pytester.makeini("[pytest]\nctgen_functions = other\nctgen_cflags = -DSCALE=1\n")
    _write_unit(pytester)
    result = run_ctgen(pytester, "--ctgen-cflags", "-DBUFLEN=8 -DSCALE=3 -Iinc",
                       "--ctgen-functions", "fill,scale,helper_*",
                       "--ctgen-exclude", "helper_b",
                       "--ctgen-report", "json:r.json", "unit.c")
    _check_run(pytester, result)
    ids = collected_ids(run_ctgen(pytester, "--collect-only", "-q",
                                  "--ctgen-cflags", "-DBUFLEN=8 -DSCALE=3 -Iinc",
                                  "--ctgen-functions", "other", "unit.c"))
    assert _functions(ids) == {"other"}
    ids = collected_ids(run_ctgen(pytester, "--collect-only", "-q",
                                  "--ctgen-cflags", "-DBUFLEN=8 -DSCALE=3 -Iinc",
                                  "--ctgen-functions", "*", "--ctgen-exclude",
                                  "helper_*,other", "unit.c"))
    assert _functions(ids) == {"fill", "scale"}


def test_missing_flags_make_collection_error(ctgen_dir: pytest.Pytester) -> None:
    _write_unit(ctgen_dir)
    no_inc = run_ctgen(ctgen_dir, "--ctgen-cflags", "-DBUFLEN=8 -DSCALE=3", "unit.c")
    no_inc.assert_outcomes(errors=1)
    assert re.search(r"unit\.c:1:10: .*board\.h", output(no_inc)), output(no_inc)
    wrong = run_ctgen(ctgen_dir, "--ctgen-cflags", "-DBUFLEN=4 -DSCALE=3 -Iinc", "unit.c")
    wrong.assert_outcomes(errors=1)
    assert re.search(r"unit\.c:3:2: .*build with -DBUFLEN=8", output(wrong)), output(wrong)
    assert "Traceback" not in output(no_inc) + output(wrong)


SIMPLE = """\
int sign(int v)
{
    if (v < 0) {
        return -1;
    }
    return 1;
}
"""


def test_without_cacheprovider(ctgen_dir: pytest.Pytester) -> None:
    """Regression: config.cache does not exist with -p no:cacheprovider (was INTERNALERROR)."""
    ctgen_dir.makefile(".c", simple=SIMPLE)
    result = run_ctgen(ctgen_dir, "-p", "no:cacheprovider", "simple.c")
    assert "INTERNALERROR" not in output(result)
    result.assert_outcomes(passed=2)


# A switch of 60 outcomes: a few work units cover only some of them.
WIDE = "int wide(int a)\n{\n    switch (a) {\n" + "".join(
    f"    case {i * 3}: return {i};\n" for i in range(60)) + "    }\n    return -1;\n}\n"


def test_work_budget_bounds_generation_the_same_way_every_time(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", wide=WIDE)
    first = run_ctgen(ctgen_dir, "--ctgen-work", "0.5", "--ctgen-report", "json:a.json",
                      "--ctgen-report", "term", "--ctgen-export", "a", "wide.c")
    assert first.ret == 0, output(first)
    row = report_rows(ctgen_dir.path / "a.json")["wide"]
    assert row["stop_reason"] == "work budget"
    assert 0 < row["cases"] < 61 and len(row["not_reached"]) > 0
    assert re.search(r"wide\.c::wide +\d+ .* work budget \(not reached: ", output(first))
    assert "not reproducible" not in output(first)
    again = run_ctgen(ctgen_dir, "--ctgen-work", "0.5", "--ctgen-regenerate",
                      "--ctgen-export", "b", "wide.c")
    assert again.ret == 0, output(again)
    assert (ctgen_dir.path / "a" / "wide" / "wide.ctgen.json").read_bytes() == \
        (ctgen_dir.path / "b" / "wide" / "wide.ctgen.json").read_bytes()
    # the default budget covers every outcome (another cache key: generated anew)
    full = run_ctgen(ctgen_dir, "--ctgen-report", "json:full.json", "wide.c")
    assert full.ret == 0, output(full)
    assert report_rows(ctgen_dir.path / "full.json")["wide"]["cases"] == 61


@pytest.mark.parametrize("value", ["-1", "lots", "nan"])
def test_a_bad_work_budget_is_a_usage_error(ctgen_dir: pytest.Pytester, value: str) -> None:
    ctgen_dir.makefile(".c", wide=WIDE)
    result = run_ctgen(ctgen_dir, "--ctgen-work", value, "wide.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--ctgen-work / ctgen_work: {value!r} is not a number of work units" in \
        output(result)


def test_time_budget_that_stops_generation_is_reported_as_not_reproducible(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", wide=WIDE)
    result = run_ctgen(ctgen_dir, "--ctgen-work", "0", "--ctgen-timeout", "0.01",
                       "--ctgen-report", "json:r.json", "wide.c")
    # the budget may have run out before the first case
    assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED), output(result)
    assert report_rows(ctgen_dir.path / "r.json")["wide"]["stop_reason"] == "time budget"
    assert "ctgen: not reproducible: generation of 1 function stopped at the time budget " \
        "(--ctgen-timeout) before the work budget (--ctgen-work), so their cases depend on " \
        "this machine's speed and load: wide.c::wide" in output(result)


# ------------------------------------------------------------------ package bugs (xfail)


def test_ini_report_json(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makeini("[pytest]\nctgen_report = json:ini_report.json\n")
    ctgen_dir.makefile(".c", simple=SIMPLE)
    result = run_ctgen(ctgen_dir, "simple.c")
    assert result.ret == 0, output(result)
    assert (ctgen_dir.path / "ini_report.json").is_file()
    assert report_rows(ctgen_dir.path / "ini_report.json")["sign"]["branches_covered"] == 2


def test_xdist_keeps_coverage(ctgen_dir: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    ctgen_dir.makefile(".c", simple=SIMPLE)
    result = run_ctgen(ctgen_dir, "-n", "2", "--ctgen-report", "term",
                       "--ctgen-report", "json:r.json", "simple.c",
                       quiet=("-p", "no:hypothesispytest", "-p", "no:benchmark"))
    result.assert_outcomes(passed=2)
    doc = json.loads((ctgen_dir.path / "r.json").read_text(encoding="utf-8"))
    assert [f["function"] for f in doc["functions"]] == ["sign"]
    assert doc["functions"][0]["branches_covered"] == 2
    assert "ctgen coverage (gcov)" in output(result)


def test_xdist_gate_still_fails(ctgen_dir: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    ctgen_dir.makefile(".c", gated="""\
int parity_two(int x)
{
    int y = x & 1;
    if (y == 2) {
        return 1;
    }
    return 0;
}
""")
    result = run_ctgen(ctgen_dir, "-n", "2", "--ctgen-fail-under", "100", "gated.c",
                       quiet=("-p", "no:hypothesispytest", "-p", "no:benchmark"))
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Required branch coverage of 100% not reached" in output(result)


def test_a_freestanding_unit_with_its_own_headers(pytester: pytest.Pytester) -> None:
    """`-nostdinc` with the project's own headers (a libc, firmware with its own
    stdint.h): the unit is compiled with them, the harness runtime against the system's C
    library, in the run and in the export alike."""
    pytester.makeini("[pytest]\nctgen_cflags = -nostdinc -ffreestanding -Iown\n")
    (pytester.path / "own").mkdir()
    (pytester.path / "own" / "stdint.h").write_text("typedef unsigned int uint32_t;\n")
    (pytester.path / "bits.c").write_text(
        "#include <stdint.h>\n"
        "int top_bit(uint32_t x)\n{\n    if (x & 0x80000000u)\n        return 1;\n"
        "    return 0;\n}\n")
    result = run_ctgen(pytester, "--ctgen-report", "json:r.json", "--ctgen-export", "out",
                       "bits.c")
    assert result.ret == 0, output(result)
    rows = report_rows(pytester.path / "r.json")
    assert rows["top_bit"]["branches_covered"] == rows["top_bit"]["branches_total"] == 2
    done = subprocess.run(["make", "-s", "-C", str(pytester.path / "out" / "bits"), "run"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "2 passed, 0 failed", done.stdout + done.stderr
