"""A global with an initializer that nothing in the unit writes (a lookup table) starts
from its initializer: the cases use the real table and check it, so a changed entry fails
them; `--ctgen-input-globals` (ini `ctgen_input_globals`) makes such a global an input
again. Globals the unit writes, and volatile ones, stay inputs."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import output, run_ctgen

UNIT = r"""
#include <string.h>
struct entry { const char *name; int id; };
static struct entry table[] = { {"GGA", 1}, {"RMC", 2}, {"GSV", 3} };
int mode = 1;                /* written by set_mode: an input */
volatile int status = 0;     /* volatile: an input */

int sentence_id(const char *s)
{
    for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strncmp(s, table[i].name, 3) == 0)
            return table[i].id;
    return -1;
}

void set_mode(int m) { mode = m; }

int busy(void)
{
    if (status != 0 && mode > 1)
        return 1;
    return 0;
}
"""


def _globals_of(doc: Any, function: str) -> set[str]:
    """The globals any case of `function` sets."""
    cases = next(f["cases"] for f in doc["functions"] if f["name"] == function)
    return {g["name"] for c in cases for g in c["globals"]}


def _texts(doc: Any, function: str) -> list[str]:
    cases = next(f["cases"] for f in doc["functions"] if f["name"] == function)
    return [o["value"].get("@string", "") for c in cases for o in c["objects"]
            if isinstance(o["value"], dict)]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_table_nothing_writes_starts_from_its_initializer(
        ctgen_dir: pytest.Pytester) -> None:
    unit = ctgen_dir.makefile(".c", nmea=UNIT)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "nmea.c")
    assert result.ret == 0, output(result)
    export = Path(ctgen_dir.path, "out/nmea/nmea.ctgen.json")
    doc = json.loads(export.read_text())
    assert _globals_of(doc, "sentence_id") == set()
    # a case names a sentence of the real table, and expects its id
    assert any(t.startswith(("GGA", "RMC", "GSV")) for t in _texts(doc, "sentence_id"))
    found = [c for f in doc["functions"] if f["name"] == "sentence_id" for c in f["cases"]
             if c["expected"]["returns"] != -1]
    assert found, doc
    assert _globals_of(doc, "busy") == {"mode", "status"}
    assert _globals_of(doc, "set_mode") <= {"mode"}

    make = subprocess.run(["make", "-s", "-C", str(export.parent), "run"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr
    # the table is part of what the cases check: a changed id fails the case that uses it
    case_id = found[0]["expected"]["returns"]
    changed = UNIT.replace(f', {case_id}}}', f', {case_id + 10}}}')
    assert changed != UNIT
    Path(ctgen_dir.path, "changed.c").write_text(changed)
    make = subprocess.run(["make", "-s", "-C", str(export.parent), "run",
                           f"UNIT_SRC={ctgen_dir.path / 'changed.c'}"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode != 0, make.stdout + make.stderr
    assert "1 failed" in make.stdout, make.stdout
    assert unit.exists()


@pytest.mark.parametrize("how", ["option", "ini"])
def test_input_globals_makes_such_a_table_an_input(ctgen_dir: pytest.Pytester,
                                                   how: str) -> None:
    ctgen_dir.makefile(".c", nmea=UNIT)
    if how == "ini":
        ctgen_dir.makeini("[pytest]\nctgen_input_globals = tab*\n")
        args: tuple[str, ...] = ()
    else:
        args = ("--ctgen-input-globals", "tab*,other")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", *args, "nmea.c")
    assert result.ret == 0, output(result)
    assert "Unknown config option" not in output(result)
    doc = json.loads(Path(ctgen_dir.path, "out/nmea/nmea.ctgen.json").read_text())
    assert _globals_of(doc, "sentence_id") == {"table"}
    assert _globals_of(doc, "busy") == {"mode", "status"}
