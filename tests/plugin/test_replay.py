"""`pytest DIR` replays an export's `*.ctgen.json` through cffi, without z3 and without
generating, so committed exports are regression tests of the unit (DESIGN §2)."""
from __future__ import annotations

import json
import re

import pytest

from plugin_helpers import QUIET, output, run_ctgen

UNIT = """\
#include <stdint.h>

extern int32_t sensor_read(uint8_t ch);

int32_t g_limit;  /* set by the configuration code: an input */

int32_t clamp_reading(uint8_t ch)
{
    int32_t r = sensor_read(ch);

    if (r < 0) {
        return -1;
    }
    if (r > g_limit) {
        return g_limit;
    }
    return r;
}

uint8_t parity(uint8_t v)
{
    uint8_t p = 0u;

    while (v != 0u) {
        p ^= (uint8_t)(v & 1u);
        v >>= 1;
    }
    return p;
}
"""

# z3 shadowed by a module that refuses to load: a replay must not need the solver.
NO_Z3 = "raise ImportError('a replay must not import z3')\n"


def _export(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.mkdir("src")
    (pytester.path / "src" / "sensor.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(pytester, "-q", "--ctgen-export", "tests/ctgen", "src/sensor.c")
    assert result.ret == 0, output(result)
    return result


def _replay(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """`pytest ARGS` without --ctgen, with z3 unavailable."""
    pytester.makepyfile(z3=NO_Z3)
    return pytester.runpytest_subprocess(*QUIET, *args, timeout=180)


def _ids(result: pytest.RunResult, status: str) -> list[str]:
    return [m.group(1) for line in result.outlines
            if (m := re.match(rf"^(\S+\.ctgen\.json::\S+) {status}", line))]


def test_replay_runs_every_exported_case_without_z3(ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    doc = json.loads((ctgen_dir.path / "tests/ctgen/sensor/sensor.ctgen.json").read_text())
    assert doc["build"] == {"unit": "../../../src/sensor.c", "cflags": [], "sources": []}
    expected = [f"tests/ctgen/sensor/sensor.ctgen.json::{f['name']}[{c['id']}]"
                for f in doc["functions"] for c in f["cases"]]
    assert len(expected) >= 4

    result = _replay(ctgen_dir, "-v", "tests/ctgen")
    assert result.ret == 0, output(result)
    assert _ids(result, "PASSED") == expected
    text = output(result)
    # the coverage table of the replay, measured by gcov on the unit as it is now
    assert re.search(r"src/sensor\.c::clamp_reading\s+\d+\s+100\.0%\s+100\.0%", text), text
    assert re.search(r"src/sensor\.c::parity\s+\d+\s+100\.0%\s+100\.0%", text), text


def test_replay_fails_and_shows_what_changed(ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    unit = ctgen_dir.path / "src" / "sensor.c"
    # a regression: readings above the limit are no longer clamped
    unit.write_text(UNIT.replace("return g_limit;", "return r;"), encoding="utf-8")

    result = _replay(ctgen_dir, "-v", "tests/ctgen")
    assert result.ret == 1, output(result)
    failed = _ids(result, "FAILED")
    assert failed and all("::clamp_reading[" in i for i in failed), failed
    assert not any("::parity[" in i for i in failed)
    text = output(result)
    # the failure names the return value that changed, with the inputs of the case
    m = re.search(r"return(?: value)?: predicted (-?\d+), observed (-?\d+)", text)
    assert m, text
    assert int(m.group(2)) > int(m.group(1))  # the reading, no longer the limit
    assert "sensor_read() returns" in text


def test_replay_of_a_removed_function_fails_its_cases(ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    unit = ctgen_dir.path / "src" / "sensor.c"
    unit.write_text(UNIT[:UNIT.index("uint8_t parity")], encoding="utf-8")

    result = _replay(ctgen_dir, "-v", "tests/ctgen")
    assert result.ret == 1
    # the removed function's cases fail, saying so; the others still run (nothing of
    # the export calls a function the unit does not define)
    failed = _ids(result, "FAILED")
    assert failed and all("::parity[" in i for i in failed), failed
    assert "parity is not defined in sensor.c any more" in output(result)
    assert _ids(result, "PASSED") and \
        all("::clamp_reading[" in i for i in _ids(result, "PASSED"))


def test_replay_reports_a_broken_cases_file(ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    cases = ctgen_dir.path / "tests/ctgen/sensor/sensor.ctgen.json"
    text = cases.read_text().splitlines()
    text[3] = text[3] + ","  # a trailing comma
    cases.write_text("\n".join(text) + "\n")

    result = _replay(ctgen_dir, "tests/ctgen")
    assert result.ret != 0
    out = output(result)
    assert re.search(r"tests/ctgen/sensor/sensor\.ctgen\.json:\d+:\d+: not valid JSON", out), \
        out
    assert "Traceback" not in out


def test_replay_of_a_missing_unit_names_it(ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    (ctgen_dir.path / "src" / "sensor.c").unlink()
    result = _replay(ctgen_dir, "tests/ctgen")
    assert result.ret != 0
    out = output(result)
    assert "the unit it tests, ../../../src/sensor.c" in out and "does not exist" in out, out
    assert "Traceback" not in out


# A conftest printing where each item says it is (what test explorers jump to).
PRINT_LOCATIONS = """
def pytest_collection_modifyitems(items):
    for item in items:
        print("LOCATION", item.nodeid, item.location[0], item.location[1])
"""


def _locations(result: pytest.RunResult) -> dict[str, list[str]]:
    """Per function (item id without its case): the file and 0-based line it points at."""
    return {line.split()[1].split("[")[0]: line.split()[2:]
            for line in result.outlines if line.startswith("LOCATION")}


def test_replayed_items_point_at_the_c_function(ctgen_dir: pytest.Pytester) -> None:
    """Test explorers jump to an item's location: for a replayed case, the C function."""
    _export(ctgen_dir)
    ctgen_dir.makeconftest(PRINT_LOCATIONS)
    locations = _locations(_replay(ctgen_dir, "--collect-only", "-q", "-s", "tests/ctgen"))
    assert locations["tests/ctgen/sensor/sensor.ctgen.json::clamp_reading"] == \
        ["src/sensor.c", "6"]  # 0-based line of `int32_t clamp_reading(uint8_t ch)`
    assert locations["tests/ctgen/sensor/sensor.ctgen.json::parity"] == ["src/sensor.c", "19"]


def test_generated_items_point_at_the_c_function(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.mkdir("src")
    (ctgen_dir.path / "src" / "sensor.c").write_text(UNIT, encoding="utf-8")
    ctgen_dir.makeconftest(PRINT_LOCATIONS)
    locations = _locations(run_ctgen(ctgen_dir, "--collect-only", "-q", "-s", "src/sensor.c"))
    assert locations == {"src/sensor.c::clamp_reading": ["src/sensor.c", "6"],
                         "src/sensor.c::parity": ["src/sensor.c", "19"]}


def test_an_export_inside_the_tree_is_replayed_not_generated(
        ctgen_dir: pytest.Pytester) -> None:
    """`pytest --ctgen .` over a project with its committed export: the units' cases are
    generated, the export's cases replayed, and the export's own C files (driver, unit
    copy) are not taken for units."""
    ctgen_dir.mkdir("src")
    (ctgen_dir.path / "src" / "sensor.c").write_text(
        "#include \"ctgen.h\"\n" + UNIT.replace("    if (r < 0) {",
                                                "    __rtt_assert(ch < 200u);\n    if (r < 0) {"),
        encoding="utf-8")
    first = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "tests/ctgen", "src")
    export = ctgen_dir.path / "tests/ctgen/sensor"
    assert {"ctgen_driver.c", "ctgen_unit.c"} <= {p.name for p in export.iterdir()}, \
        output(first)
    result = run_ctgen(ctgen_dir, "--collect-only", "-q", ".")
    files = {line.split("::")[0] for line in result.outlines if "::" in line}
    assert files == {"src/sensor.c", "tests/ctgen/sensor/sensor.ctgen.json"}, output(result)
