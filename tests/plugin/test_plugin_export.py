"""--ctgen-export DIR: the cases as JSON, a standalone C driver and a Makefile that replay
every case without Python, with the same coverage as the pytest run (DESIGN §2)."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from plugin_helpers import gcovr_functions, output, passed_ids, report_rows, run_ctgen

# A stub (sensor_read), a global, a static global, && and a loop.
UNIT = """\
#include <stdint.h>

extern int32_t sensor_read(uint8_t ch);

int32_t g_last;
static uint8_t s_errors;

int32_t sample(uint8_t ch)
{
    int32_t r = sensor_read(ch);

    if (r < 0) {
        s_errors++;
        return -1;
    }
    if (r > 1000 && s_errors < 3u) {
        g_last = 1000;
        return 1;
    }
    g_last = r;
    return 0;
}

uint8_t count_set(uint8_t v)
{
    uint8_t n = 0u;
    uint8_t i;

    for (i = 0u; i < 8u; i++) {
        if ((v >> i) & 1u) {
            n++;
        }
    }
    return n;
}

int classify(int16_t a, int16_t b)
{
    if (a == b) {
        return 0;
    }
    if (a > b && b > 0) {
        return 1;
    }
    return 2;
}
"""


def _make(directory, *args: str) -> subprocess.CompletedProcess[str]:
    """`make -s -C directory ARGS`: only the recipes' own output."""
    return subprocess.run(["make", "-s", "-C", str(directory), *args], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_export_replays_with_make_and_same_coverage(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.mkdir("src")
    (ctgen_dir.path / "src" / "monitor.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-v", "--ctgen-export", "out", "--ctgen-report", "term",
                       "--ctgen-report", "json:r.json", "src/monitor.c")
    assert result.ret == 0, output(result)
    ids = passed_ids(result)
    n = len(ids)
    assert n >= 6
    result.assert_outcomes(passed=n)

    export = ctgen_dir.path / "out" / "monitor"
    for name in ("monitor.ctgen.json", "ctgen_driver.c", "Makefile"):
        assert (export / name).is_file(), name
    doc = json.loads((export / "monitor.ctgen.json").read_text(encoding="utf-8"))
    assert doc["format"] == "pytest-ctgen cases"
    assert doc["source"] == "src/monitor.c"
    assert [f["name"] for f in doc["functions"]] == ["sample", "count_set", "classify"]
    exported_ids = [f"src/monitor.c::{f['name']}[{c['id']}]"
                    for f in doc["functions"] for c in f["cases"]]
    assert exported_ids == ids

    run = _make(export, "run")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    # one line per case, then the count alone on the last line
    assert lines[-1] == f"{n} passed, 0 failed"
    assert lines[:-1] == [f"PASS {i.split('::', 1)[1]}" for i in ids]

    # coverage build; nothing from the pytest run's build is in the export directory
    assert not list(export.glob("*.gcda"))
    cov = _make(export, "run", "CFLAGS=--coverage -O0")
    assert cov.returncode == 0, cov.stdout + cov.stderr
    assert cov.stdout.splitlines()[-1] == f"{n} passed, 0 failed"
    assert list(export.glob("*.gcda"))
    measured = gcovr_functions(ctgen_dir.path, export, "monitor.c")
    rows = report_rows(ctgen_dir.path / "r.json")
    assert set(measured) == set(rows) == {"sample", "count_set", "classify"}
    for fn, row in rows.items():
        keys = ("lines_total", "lines_covered", "branches_total", "branches_covered")
        assert {k: measured[fn][k] for k in keys} == {k: row[k] for k in keys}, fn
        assert row["branches_covered"] == row["branches_total"] > 0, fn


def test_two_units_of_one_name_export_to_directories_of_their_own(
        ctgen_dir: pytest.Pytester) -> None:
    """a/monitor.c and b/monitor.c both export (to out/a/monitor and out/b/monitor: a
    unit whose base name is unique keeps out/NAME), and each export replays."""
    for d in ("a", "b"):
        ctgen_dir.mkdir(d)
        (ctgen_dir.path / d / "monitor.c").write_text(UNIT, encoding="utf-8")
    (ctgen_dir.path / "solo.c").write_text("int solo(int x) { return x > 2; }\n")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "a/monitor.c",
                       "b/monitor.c", "solo.c")
    assert result.ret == 0, output(result)
    for d in ("a", "b"):
        export = ctgen_dir.path / "out" / d / "monitor"
        doc = json.loads((export / "monitor.ctgen.json").read_text())
        assert doc["source"] == f"{d}/monitor.c"
        assert doc["build"]["unit"] == f"../../../{d}/monitor.c"
        if shutil.which("make"):
            done = _make(export, "run")
            assert done.returncode == 0, done.stdout + done.stderr
    assert (ctgen_dir.path / "out/solo/solo.ctgen.json").is_file()
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == result.parseoutcomes()["passed"]


def test_an_export_conflict_stops_only_its_unit(ctgen_dir: pytest.Pytester) -> None:
    """A file of another owner where one unit's export goes: that unit is refused with a
    message, the session fails, and the units after it are exported all the same."""
    (ctgen_dir.path / "alpha.c").write_text("int alpha(int x) { return x > 2; }\n")
    (ctgen_dir.path / "beta.c").write_text("int beta(int x) { return x < 2; }\n")
    ctgen_dir.mkdir("out")
    ctgen_dir.mkdir("out/alpha")
    (ctgen_dir.path / "out/alpha/Makefile").write_text("all:\n\techo mine\n")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "alpha.c", "beta.c")
    text = output(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, text
    assert "Traceback" not in text
    assert "export: " in text and "was not written by pytest-ctgen" in text, text
    assert (ctgen_dir.path / "out/alpha/Makefile").read_text() == "all:\n\techo mine\n"
    assert not (ctgen_dir.path / "out/alpha/alpha.ctgen.json").exists()
    assert json.loads((ctgen_dir.path / "out/beta/beta.ctgen.json").read_text())[
        "source"] == "beta.c"
