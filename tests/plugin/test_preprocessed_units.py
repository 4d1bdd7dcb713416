"""Preprocessed units (`.i` files, as `gcc -E` writes them and verification benchmarks ship
them) are collected and tested as C units. A `.i` carries its own copies of the C
library's declarations; locations, the coverage table and the export point into the `.i`
itself, the file the user has (here the `.c` it was made from is gone)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from plugin_helpers import (
    ID_LINE, QUIET, collected_ids, gcovr_functions, output, report_rows, run_ctgen)

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# The C library through its headers, a static global and a static function, a library
# function without a model (puts, a stub), exit, and inline assembly the generator cannot
# see (it takes `ud2` for a barrier; the compiled code traps).
LEVELS = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls;

static int clamp(int v, int hi)
{
    return v > hi ? hi : v;
}

int scale(int x, const char *tag)
{
    calls++;
    if (x < 0) {
        return -1;
    }
    if (tag != 0 && strcmp(tag, "big") == 0) {
        return clamp(x * 10, 1000);
    }
    return clamp(abs(x), 100);
}

void must_be_positive(int x)
{
    if (x <= 0) {
        puts("not positive");
        exit(2);
    }
    calls += x;
}

int trap(int x)
{
    if (x > 10) {
        __asm__("ud2");
    }
    return x + calls;
}
"""
#: The cases of LEVELS that pass: the search's, and its boundary and result cases (one
#: more, trap's, runs into the trap it is there for).
LEVELS_PASSED = 13

# Per function: cases, passed, failed, and gcov's lines and branch outcomes (total,
# covered) on the compiled .i: those of the .c it was made from.
EXPECTED = {
    "clamp": (3, 3, 0, (2, 2), (0, 0)),  # a comparison used as a value: below, equal, above
    "scale": (7, 7, 0, (7, 7), (6, 6)),  # with boundary and result cases
    "must_be_positive": (2, 2, 0, (6, 6), (2, 2)),
    "trap": (2, 1, 1, (4, 4), (2, 2)),
}

UNSUPPORTED = """\
#include <stdio.h>

typedef int (*op_t)(int, ...);  /* calls through it are not supported */

int apply(op_t op, int x)
{
    if (x > 0) {
        return op(x);
    }
    return 0;
}

int twice(int v)
{
    if (v > 100) {
        puts("large");
    }
    return 2 * v;
}
"""


def _preprocessed(pytester: pytest.Pytester, name: str, text: str) -> Path:
    """`src/<name>.i`, made with `gcc -E` from `<name>.c`, which is then deleted."""
    source = pytester.path / f"{name}.c"
    source.write_text(text, encoding="utf-8")
    (pytester.path / "src").mkdir(exist_ok=True)
    unit = pytester.path / "src" / f"{name}.i"
    subprocess.run(["gcc", "-E", source.name, "-o", str(unit)], cwd=pytester.path,
                   check=True, capture_output=True)
    source.unlink()
    return unit


def _line_of(unit: Path, text: str) -> int:
    """The line of the `.i` that is `text`."""
    return unit.read_text(encoding="utf-8").splitlines().index(text) + 1


def _rows(path: Path) -> dict[str, tuple[int, int, int, tuple[int, int], tuple[int, int]]]:
    return {name: (r["cases"], r["passed"], r["failed"],
                   (r["lines_total"], r["lines_covered"]),
                   (r["branches_total"], r["branches_covered"]))
            for name, r in report_rows(path).items()}


def test_a_preprocessed_unit_is_tested_as_c(ctgen_dir: pytest.Pytester) -> None:
    unit = _preprocessed(ctgen_dir, "levels", LEVELS)
    assert "struct _IO_FILE" in unit.read_text(encoding="utf-8")  # libc's own copies
    result = run_ctgen(ctgen_dir, "-rA", "--ctgen-report", "term", "--ctgen-report",
                       "json:r.json", "src")  # found in a directory
    out = output(result)
    result.assert_outcomes(passed=LEVELS_PASSED, failed=1)
    assert "Traceback" not in out
    ids = [m.group(1) for m in re.finditer(r"^PASSED (\S+)$", out, re.M)]
    assert ids and all(ID_LINE.match(i) and i.startswith("src/levels.i::") for i in ids), out

    # the case that really fails: the compiled code traps where the generator saw none
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, re.M)
    assert len(failed) == 1 and re.fullmatch(r"src/levels\.i::trap\[case\d+\]", failed[0][0])
    assert "SIGILL" in failed[0][1]
    x = re.search(r"^inputs:\n\s+x = (-?\d+)$", out, re.M)
    assert x and int(x.group(1)) > 10, out

    # gcov measured the lines and branches of the .i, at its own lines
    assert _rows(ctgen_dir.path / "r.json") == EXPECTED
    rows = report_rows(ctgen_dir.path / "r.json")
    for name, first_line in (("clamp", "static int clamp(int v, int hi)"),
                             ("scale", "int scale(int x, const char *tag)"),
                             ("trap", "int trap(int x)")):
        assert rows[name]["file"] == "src/levels.i"
        assert rows[name]["line"] == _line_of(unit, first_line), name
    assert re.search(r"^src/levels\.i::scale\s+7\s+100\.0%\s+100\.0%", out, re.M), out
    assert re.search(rf"^TOTAL\s+{LEVELS_PASSED + 1}\s+100\.0%\s+100\.0%", out, re.M), out


def test_a_preprocessed_unit_is_tested_as_the_c_it_was_made_from(
        ctgen_dir: pytest.Pytester) -> None:
    """Named on the command line, the `.i` gets the cases and the coverage of its `.c`."""
    _preprocessed(ctgen_dir, "levels", LEVELS)
    (ctgen_dir.path / "orig").mkdir()
    (ctgen_dir.path / "orig" / "levels.c").write_text(LEVELS, encoding="utf-8")
    from_i = run_ctgen(ctgen_dir, "--ctgen-report", "json:i.json", "src/levels.i")
    from_c = run_ctgen(ctgen_dir, "--ctgen-report", "json:c.json", "orig/levels.c")
    from_i.assert_outcomes(passed=LEVELS_PASSED, failed=1)
    from_c.assert_outcomes(passed=LEVELS_PASSED, failed=1)
    assert _rows(ctgen_dir.path / "i.json") == _rows(ctgen_dir.path / "c.json") == EXPECTED
    ids_i = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "src/levels.i"))
    ids_c = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "orig/levels.c"))
    assert [i.split("::", 1)[1] for i in ids_i] == [i.split("::", 1)[1] for i in ids_c]
    assert len(ids_i) == LEVELS_PASSED + 1


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_export_of_a_preprocessed_unit_builds_and_runs(ctgen_dir: pytest.Pytester) -> None:
    _preprocessed(ctgen_dir, "levels", LEVELS)
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report", "json:r.json",
                       "src/levels.i")
    result.assert_outcomes(passed=LEVELS_PASSED, failed=1)
    export = ctgen_dir.path / "out" / "levels"
    run = subprocess.run(["make", "-s", "-C", str(export), "run", "CFLAGS=--coverage -O0"],
                         capture_output=True, text=True, timeout=120, check=False)
    lines = run.stdout.splitlines()
    assert run.returncode != 0 and lines[-1] == f"{LEVELS_PASSED} passed, 1 failed", run.stdout + run.stderr
    fails = [line for line in lines if line.startswith("FAIL")]
    assert len(fails) == 1 and re.fullmatch(r"FAIL trap\[case\d+\]: crashed with SIGILL",
                                            fails[0]), run.stdout
    # gcov on the driver's build measures the .i as the pytest run did
    measured = gcovr_functions(ctgen_dir.path, export, "levels.i")
    rows = report_rows(ctgen_dir.path / "r.json")
    keys = ("lines_total", "lines_covered", "branches_total", "branches_covered")
    for fn, row in rows.items():
        assert {k: measured[fn][k] for k in keys} == {k: row[k] for k in keys}, fn

    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out")  # the export, no generation
    replay.assert_outcomes(passed=LEVELS_PASSED, failed=1)


def test_an_unsupported_function_of_a_preprocessed_unit_is_skipped(
        ctgen_dir: pytest.Pytester) -> None:
    unit = _preprocessed(ctgen_dir, "ops", UNSUPPORTED)
    result = run_ctgen(ctgen_dir, "-rs", "src/ops.i")
    out = output(result)
    result.assert_outcomes(passed=2, skipped=1)
    skips = re.findall(r"^SKIPPED \[1\] (\S+): (.*)$", out, re.M)
    assert len(skips) == 1, out
    where, reason = skips[0]
    assert where == f"src/ops.i:{_line_of(unit, 'int apply(op_t op, int x)')}"
    # the construct and its location in the .i: the call `op(x)`, column 16
    call = _line_of(unit, "        return op(x);")
    assert re.search(rf"src/ops\.i:{call}:16: .*function pointer", reason), reason
    assert "Traceback" not in out
