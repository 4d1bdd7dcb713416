"""The export with gcc and with clang (DESIGN §2): `make run` builds every case with no
Python, `-Wall -Wextra` finds nothing to say about the generated code (warnings of the unit
under test are shown, but they are the user's), every case passes as it did under pytest, and
`make coverage` (gcovr with the pytest run's options) measures the same lines and branches of
the unit as the pytest run, function by function.

A warning is the export's when it is located in a generated file, or in the unit but absent
when the unit is compiled on its own with the same flags (say, one our macros cause there)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctgen_sample_unit import sample_file_cases, write_unit
from pytest_ctgen.codegen.export import posix_cksum
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.coverage.gcov import measure
from pytest_ctgen.c_harness_files import harness_dir

REPO = Path(__file__).resolve().parents[2]
COMPILERS = [pytest.param(cc, marks=pytest.mark.skipif(shutil.which(cc) is None,
                                                       reason=f"needs {cc}"))
             for cc in ("gcc", "clang")]
WARNING = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)? warning: (?P<text>.*)$")
Diagnostic = tuple[str, int, str]  # file name, line, text
C_LOCALE = {**os.environ, "LC_ALL": "C"}  # compiler messages in plain English and quotes
GCOVR = f"GCOVR={sys.executable} -m gcovr"  # the gcovr pytest-ctgen runs with

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                                reason="needs make and gcc")

# Pointer inputs, an array parameter with a bound, stubs returning a pointer and writing
# through an out-parameter, a static local (each case starts from the initial state), and a
# warning of the user's own (the unused `spare`), which the export must show but not own.
POINTERS = """\
#include <stddef.h>
#include <stdint.h>

struct reading { int16_t value; uint8_t valid; };

extern struct reading *sensor_get(uint8_t id);
extern int bus_read(uint8_t reg, uint8_t *out);

int window_max(const int16_t win[16], uint8_t n)
{
    int16_t best;
    uint8_t i;
    if (n == 0u || n > 4u)
        return -1;
    best = win[0];
    for (i = 1u; i < n; i++) {
        if (win[i] > best)
            best = win[i];
    }
    return best;
}

int sensor_value(uint8_t id)
{
    struct reading *r = sensor_get(id);
    if (r == NULL)
        return -1;
    if (!r->valid)
        return -2;
    return r->value;
}

int reg_ready(uint8_t reg, int *flags)
{
    uint8_t v = 0u;
    int spare;
    if (flags == NULL)
        return -1;
    if (bus_read(reg, &v) != 0)
        return -2;
    *flags = v & 0x0F;
    return (v & 0x80u) != 0u;
}

int call_number(int k)
{
    static int calls;
    calls++;
    if (k > 5)
        return calls + 10;
    return calls;
}
"""

# A specification of an external function in the unit (its dummy body's unused parameter is
# the user's warning too, as in an ordinary build of the unit).
SPECS = """\
#include <stdint.h>
#include "ctgen.h"

uint16_t adc_sample(uint8_t channel)
{
    __rtt_extern();
    __rtt_precondition(channel < 8u);
    __rtt_postcondition(__rtt_return <= 4095u);
    return 0u;
}

int level(uint8_t channel)
{
    uint16_t raw;
    if (channel >= 8u)
        return -1;
    raw = adc_sample(channel);
    if (raw > 4095u)
        return -2;
    return raw > 3000u ? 2 : raw > 1000u ? 1 : 0;
}
"""

# Annotations: a precondition, postconditions with __rtt_return and __rtt_initial, a test
# case, __rtt_modifies, an __rtt_assert in a loop and a ghost variable.
ANNOTATIONS = """\
#include <stdint.h>
#include "ctgen.h"

static uint16_t total;
uint16_t events;

int16_t accumulate(const int16_t *d, uint8_t n)
{
    int16_t sum = 0;
    uint8_t i;
    __rtt_modifies(total);
    __rtt_aux(int, steps);
    __rtt_precondition(d != 0 && n <= 4u && total <= 1000u);
    __rtt_postcondition(steps == n);
    __rtt_postcondition(total == __rtt_initial(total) + n);
    __rtt_testcase(n == 0u, __rtt_return == 0, "REQ-7");
    for (i = 0u; i < n; i++) {
        __rtt_assert(i < 4u);
        __rtt_assign(steps = steps + 1);
        if (d[i] > 0)
            sum = (int16_t)(sum + d[i]);
    }
    total = (uint16_t)(total + n);
    return sum;
}
"""

UNITS = {"pointers": POINTERS, "specs": SPECS, "annotations": ANNOTATIONS}


@dataclass(frozen=True)
class Exported:
    root: Path  # where pytest ran
    rows: dict[tuple[str, str], dict[str, Any]]  # (unit name, function) -> report row


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """The units generated, run and exported by one pytest run, with its JSON report."""
    root = tmp_path_factory.mktemp("ctgen-export-compilers")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "src").mkdir()
    shutil.copy(harness_dir() / "ctgen.h", root / "src" / "ctgen.h")
    for name, text in UNITS.items():
        (root / "src" / f"{name}.c").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:hypothesispytest", "-p", "no:benchmark", "--ctgen", "src",
         "--ctgen-timeout", "20", "--ctgen-export", "out", "--ctgen-report", "json:r.json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((root / "r.json").read_text(encoding="utf-8"))
    rows = {(Path(r["file"]).stem, r["function"]): r for r in report["functions"]}
    return Exported(root, rows)


def _make(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-s", "-C", str(directory), *args], capture_output=True,
                          text=True, timeout=300, check=False, env=C_LOCALE)


def _warnings(stderr: str) -> list[Diagnostic]:
    """(file name, line, text without the option, quotes made plain) of every warning in
    compiler output."""
    out = []
    for line in stderr.splitlines():
        m = WARNING.match(line)
        if m:
            text = re.sub(r"\s*\[-W[^\]]*\]$", "", m.group("text"))
            text = text.replace("\u2018", "'").replace("\u2019", "'")
            out.append((Path(m.group("file")).name, int(m.group("line")), text))
    return out


def _makefile_value(export: Path, name: str) -> str:
    text = (export / "Makefile").read_text(encoding="utf-8")
    m = re.search(rf"^{name} \??= ?(.*)$", text, re.M)
    assert m, name
    return m.group(1)


def _unit(export: Path) -> Path:
    """The unit an export tests (not its copy): the file its coverage is reported for."""
    path = _makefile_value(export, "COVERAGE_SRC")
    if path == "$(UNIT_SRC)":
        path = _makefile_value(export, "UNIT_SRC")
    return export / path


def exported_warnings(export: Path, cc: str,
                      flags: str) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """The warnings of building `export` with `cc flags`: (the export's, the unit's own)."""
    _make(export, "clean")
    build = _make(export, "build", f"CC={cc}", f"CFLAGS={flags}")
    assert build.returncode == 0, build.stderr
    unit = _unit(export)
    alone = subprocess.run(
        f"{cc} {flags} -fsyntax-only {_makefile_value(export, 'CTGEN_CFLAGS')} '{unit}'",
        shell=True, cwd=export, capture_output=True, text=True, timeout=120, check=False,
        env=C_LOCALE)
    assert alone.returncode == 0, alone.stderr
    own = set(_warnings(alone.stderr))
    ours: list[Diagnostic] = []
    users: list[Diagnostic] = []
    for w in _warnings(build.stderr):
        (users if w[0] == unit.name and w in own else ours).append(w)
    return ours, users


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_export_builds_clean_and_passes(exported: Exported, cc: str, unit: str) -> None:
    export = exported.root / "out" / unit
    ours, users = exported_warnings(export, cc, "-Wall -Wextra -O0")
    assert ours == [], ours
    if unit == "pointers":  # the user's warning is shown, and is the user's
        assert [w[2] for w in users] == ["unused variable 'spare'"], users
    if unit == "annotations":  # a unit without warnings of its own builds with -Werror
        done = _make(export, "build", f"CC={cc}", "CFLAGS=-Wall -Wextra -Werror -O0")
        assert done.returncode == 0, done.stderr

    run = _make(export, "run", f"CC={cc}", "CFLAGS=-Wall -Wextra -O0")
    cases = sum(r["cases"] for (u, _), r in exported.rows.items() if u == unit)
    lines = run.stdout.splitlines()
    assert lines[-1] == f"{cases} passed, 0 failed", run.stdout
    assert len(lines) == cases + 1 and all(ln.startswith("PASS ") for ln in lines[:-1])
    assert run.returncode == 0


KEYS = ("lines_total", "lines_covered", "branches_total", "branches_covered")


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_export_coverage_equals_the_pytest_run(exported: Exported, unit: str) -> None:
    """gcc (the pytest run's compiler): the export's gcov data, read as the pytest run reads
    its own and as `make coverage` shows it, counts the same lines and branches."""
    export = exported.root / "out" / unit
    _make(export, "clean")
    done = _make(export, "coverage", "CC=gcc", GCOVR)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {fn: r for (u, fn), r in exported.rows.items() if u == unit}
    measured = measure(export, exported.root / "src" / f"{unit}.c")
    for fn, row in rows.items():
        assert {k: getattr(measured[fn], k) for k in KEYS} == {k: row[k] for k in KEYS}, fn
    # what `make coverage` prints: gcovr's summary of the unit
    summary = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"^(lines|branches): [\d.]+% \((\d+) out of (\d+)\)$", done.stdout, re.M)}
    assert summary == {
        "lines": (sum(r["lines_covered"] for r in rows.values()),
                  sum(r["lines_total"] for r in rows.values())),
        "branches": (sum(r["branches_covered"] for r in rows.values()),
                     sum(r["branches_total"] for r in rows.values()))}, done.stdout


@pytest.mark.skipif(shutil.which("clang") is None, reason="needs clang")
def test_export_coverage_target_with_clang(exported: Exported) -> None:
    """clang's coverage data are read with its llvm-cov gcov, which the Makefile picks; its
    counts are clang's own, so only the run and the report are checked."""
    if shutil.which("llvm-cov") is None:
        pytest.skip("needs llvm-cov")
    export = exported.root / "out" / "annotations"
    _make(export, "clean")
    done = _make(export, "coverage", "CC=clang", GCOVR)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^branches: [\d.]+% \(\d+ out of \d+\)$", done.stdout, re.M), done.stdout


def test_stale_unit_copy_stops_the_build(exported: Exported, tmp_path: Path) -> None:
    """The copy of an annotated unit is the unit as exported: once the unit changes, `make`
    asks for a new export instead of running the old code against the new file's lines."""
    work = tmp_path / "w"
    shutil.copytree(exported.root / "src", work / "src")
    shutil.copytree(exported.root / "out" / "specs", work / "out" / "specs")
    export = work / "out" / "specs"
    unit = work / "src" / "specs.c"
    assert _makefile_value(export, "CTGEN_UNIT_CKSUM") == posix_cksum(unit.read_bytes())
    assert _make(export, "run").returncode == 0
    unit.write_text(unit.read_text(encoding="utf-8") + "/* edited */\n", encoding="utf-8")
    done = _make(export, "run")
    assert done.returncode != 0
    assert "changed after the export" in done.stderr
    done = _make(export, "run", "CTGEN_UNIT_CKSUM=")  # the old copy, on request
    assert done.returncode == 0, done.stderr


def test_posix_cksum_matches_the_tool(tmp_path: Path) -> None:
    if shutil.which("cksum") is None:
        pytest.skip("needs cksum")
    for data in (b"", b"hello world\n", bytes(range(256)) * 300):
        path = tmp_path / "f"
        path.write_bytes(data)
        with path.open("rb") as f:
            tool = subprocess.run(["cksum"], stdin=f, capture_output=True, text=True,
                                  check=True).stdout.split()
        assert posix_cksum(data) == " ".join(tool)


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("std", ["c99", "c11", "gnu17"])
def test_harness_is_pedantic_clean(tmp_path: Path, cc: str, std: str) -> None:
    """The harness of every kind of value, checks and the driver: no warning under
    -Wall -Wextra -pedantic with either compiler (no _Generic, which C99 lacks)."""
    unit = write_unit(tmp_path / "src")
    harness = tmp_path / "driver.c"
    harness.write_text("#define CTGEN_DRIVER_MAIN 1\n"
                       + generate_harness(sample_file_cases(with_failures=True), str(unit)))
    for extra in ([], ["-DCTGEN_COVERAGE", "--coverage"]):
        for source in (harness, harness_dir() / "ctgen_runtime.c"):
            done = subprocess.run([cc, f"-std={std}", "-Wall", "-Wextra", "-pedantic",
                                   "-Werror", *extra, f"-I{harness_dir()}", "-c", str(source),
                                   "-o", str(tmp_path / "driver.o")],
                                  capture_output=True, text=True, check=False)
            assert done.returncode == 0, done.stderr
