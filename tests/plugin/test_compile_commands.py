"""--ctgen-compile-commands / ini ctgen_compile_commands: each file's include dirs and
defines come from a compilation database as CMake and Bear write it."""
from __future__ import annotations

import json
import re

import pytest

from plugin_helpers import output, report_rows, run_ctgen

CONFIG_H = """\
#ifndef LIMIT
#error "LIMIT must be defined by the build"
#endif
typedef unsigned short level_t;
"""

UNIT = """\
#include "config.h"

int level_state(level_t v)
{
#if MODE == 2
    if (v > LIMIT) {
        return 2;
    }
#endif
    if (v == LIMIT) {
        return 1;
    }
    return 0;
}
"""


def _project(pytester: pytest.Pytester) -> None:
    """src/level.c needs -Iinclude and -DLIMIT=.. -DMODE=2, known only to the database;
    the database lives in build/, as CMake writes it."""
    for d in ("src", "include", "build"):
        pytester.mkdir(d)
    (pytester.path / "include" / "config.h").write_text(CONFIG_H, encoding="utf-8")
    (pytester.path / "src" / "level.c").write_text(UNIT, encoding="utf-8")
    db = [{"directory": str(pytester.path / "build"),
           "command": "/usr/bin/cc -I../include -DLIMIT=700 -D MODE=2 -Wall -O2 "
                      "-o CMakeFiles/level.dir/src/level.c.o -c ../src/level.c",
           "file": "../src/level.c"}]
    (pytester.path / "build" / "compile_commands.json").write_text(json.dumps(db, indent=2),
                                                                    encoding="utf-8")


def test_flags_come_from_the_database(ctgen_dir: pytest.Pytester) -> None:
    _project(ctgen_dir)
    result = run_ctgen(ctgen_dir, "-v", "--ctgen-compile-commands", "build",
                       "--ctgen-report", "json:r.json", "--ctgen-export", "out", "src/level.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["level_state"]
    # MODE == 2 compiled the first if in: 4 branch outcomes, all reached
    assert row["branches_total"] == row["branches_covered"] == 4, row
    doc = json.loads((ctgen_dir.path / "out/level/level.ctgen.json").read_text())
    inputs = sorted(c["params"][0]["value"] for c in doc["functions"][0]["cases"])
    assert 700 in inputs and any(v > 700 for v in inputs), inputs
    # the export builds with the database's flags, relative to the export
    assert doc["build"]["cflags"][:2] == ["-I../../include", "-DLIMIT=700"], doc["build"]


def test_ini_names_the_database_relative_to_the_ini_file(ctgen_dir: pytest.Pytester) -> None:
    _project(ctgen_dir)
    ctgen_dir.makeini("[pytest]\nctgen_compile_commands = build/compile_commands.json\n")
    ctgen_dir.mkdir("elsewhere")
    result = run_ctgen(ctgen_dir, "-q", "--rootdir", str(ctgen_dir.path),
                       str(ctgen_dir.path / "src" / "level.c"))
    assert result.ret == 0, output(result)
    assert re.search(r"src/level\.c::level_state\s+\d+\s+100\.0%\s+100\.0%",
                     output(result)), output(result)


def test_a_file_without_an_entry_uses_the_session_flags(ctgen_dir: pytest.Pytester) -> None:
    _project(ctgen_dir)
    (ctgen_dir.path / "src" / "other.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-compile-commands", "build",
                       "--ctgen-cflags=-Iinclude -DLIMIT=5 -DMODE=1", "src/other.c")
    assert result.ret == 0, output(result)
    assert re.search(r"src/other\.c::level_state\s+\d+\s+100\.0%\s+100\.0%",
                     output(result)), output(result)


def test_a_broken_database_is_a_usage_error(ctgen_dir: pytest.Pytester) -> None:
    _project(ctgen_dir)
    (ctgen_dir.path / "build" / "compile_commands.json").write_text(
        '[{"directory": ".",\n  "file": "a.c" "command": "cc -c a.c"}]', encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-compile-commands", "build", "src/level.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = output(result)
    assert re.search(r"build/compile_commands\.json:2:\d+: invalid JSON", err), err
    assert "Traceback" not in err


def test_a_missing_database_is_a_usage_error(ctgen_dir: pytest.Pytester) -> None:
    _project(ctgen_dir)
    result = run_ctgen(ctgen_dir, "--ctgen-compile-commands", "nowhere.json", "src/level.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "nowhere.json: compilation database not found" in output(result)
