"""Unit file names that make, the shell or `#include` read specially: the cases run under
pytest, export, replay and run under `make run` as for any name, and a name never runs a
command; a name `#include` cannot name at all (a '"') is one collection error."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from plugin_helpers import QUIET, output, run_ctgen

UNIT = """\
int above(int x)
{
    if (x > 3) {
        return 1;
    }
    return 0;
}
"""

ANNOTATED = """\
#include "ctgen.h"

int halve(int x)
{
    __rtt_assert(x == x);
    if (x > 10) {
        return x / 2;
    }
    return x;
}
"""

NAMES = ["it's.c", "#hash.c", "x'$(touch INJECTED)'.c", "two words.c", "cost$HOME%1.c",
         'back`touch INJECTED`tick.c', "paren(x)+{2}.c", "star*^what?|or.c"]


def _injected(root: Path) -> list[Path]:
    return [p for p in root.rglob("INJECTED")]


def _make(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-s", "-C", str(directory), *args], capture_output=True,
                          text=True, timeout=180, check=False)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("name, text", [(n, UNIT) for n in NAMES] +
                         [("it's annotated #1.c", ANNOTATED)])
def test_a_unit_of_any_name_runs_exports_and_replays(ctgen_dir: pytest.Pytester, name: str,
                                                     text: str) -> None:
    ctgen_dir.mkdir("src")
    (ctgen_dir.path / "src" / name).write_text(text, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", f"src/{name}")
    assert result.ret == 0, output(result)
    cases = result.parseoutcomes()["passed"]
    export = ctgen_dir.path / "out" / Path(name).stem
    doc = json.loads((export / f"{Path(name).stem}.ctgen.json").read_text())
    assert doc["build"]["unit"] == f"../../src/{name}"

    done = _make(export, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{cases} passed, 0 failed", done.stdout
    coverage = _make(export, "coverage")
    assert coverage.returncode == 0, coverage.stdout + coverage.stderr
    # gcovr's filter is the unit's name as a regex: every line of the unit is measured
    assert re.search(r"^lines: 100\.0% \((\d+) out of \1\)", coverage.stdout, re.M), \
        coverage.stdout

    replay = ctgen_dir.runpytest_subprocess(*QUIET, "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == cases
    assert not _injected(ctgen_dir.path)


def test_a_unit_name_include_cannot_name_is_one_collection_error(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / 'a"b.c').write_text(UNIT, encoding="utf-8")
    (ctgen_dir.path / "plain.c").write_text(UNIT.replace("above", "plain"), encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", ".")
    text = output(result)
    assert "INTERNALERROR" not in text and "Traceback" not in text, text
    assert re.search(r"a\"b\.c: the harness #includes the file by its path, which holds "
                     r"a '\"'.*rename it", text), text
    outcomes = result.parseoutcomes()
    assert outcomes["errors" if "errors" in outcomes else "error"] == 1, outcomes
    assert outcomes["passed"] == 2, outcomes  # plain.c's cases
    assert (ctgen_dir.path / "out/plain/plain.ctgen.json").is_file()


def test_an_export_that_a_replay_would_refuse_is_not_written(
        ctgen_dir: pytest.Pytester) -> None:
    """A flag a replay does not pass to the compiler is refused at the export, with the
    reason; the cases still run and the other units are exported."""
    (ctgen_dir.path / "unit.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-cflags=-pipe", "--ctgen-export", "out",
                       "unit.c")
    text = output(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, text
    assert 'export: cannot export unit.c: the flag "-pipe" is not an allowed compiler flag' \
        in text, text
    assert result.parseoutcomes()["passed"] == 2
    assert not (ctgen_dir.path / "out" / "unit").exists()
