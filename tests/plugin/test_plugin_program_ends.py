"""End to end: a unit that ends the program where its case predicts a return (a regression
caught by replaying an export) fails that case saying how: the exit status, or the failed
assertion's text and line; never "crashed with SIGABRT", never a green session that ended
early (`_exit` with `--ctgen-isolate none`)."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from plugin_helpers import output, run_ctgen

BEFORE = """\
#include <assert.h>
#include <stdlib.h>
#include <unistd.h>

int stop(int x) { if (x > 3) return 9; return x; }
int check(int x) { return x + 1; }
int quit(int x) { if (x == 2) return 5; return 1; }
"""

AFTER = """\
#include <assert.h>
#include <stdlib.h>
#include <unistd.h>

int stop(int x) { if (x > 3) exit(4); return x; }
int check(int x) { assert(x > 100); return x + 1; }
int quit(int x) { if (x == 2) _exit(0); return 1; }
"""

MESSAGES = {
    "stop": "the unit ended the program with exit status 4; predicted a return",
    "check": "assertion `x > 100` failed at ",
    "quit": "the unit ended the program with exit status 0; predicted a return",
}


@pytest.mark.parametrize("isolate", ["fork", "none"])
def test_an_unpredicted_end_names_how_the_program_ended(ctgen_dir: pytest.Pytester,
                                                        isolate: str) -> None:
    unit = ctgen_dir.path / "ends.c"
    unit.write_text(BEFORE, encoding="utf-8")
    first = run_ctgen(ctgen_dir, "--ctgen-export", "out", "ends.c")
    assert first.ret == 0, output(first)
    unit.write_text(AFTER, encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "--ctgen-isolate", isolate,
                                            "out")
    text = output(replay)
    assert replay.ret == 1, text
    for function, message in MESSAGES.items():
        assert f"{function}[case1]: {message}" in text, (function, text)
    assert "in check(); predicted a return" in text
    assert "SIGABRT" not in text
    outcomes = replay.parseoutcomes()
    assert outcomes["failed"] == 3 and outcomes["passed"] == first.parseoutcomes()["passed"] - 3


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_driver_names_how_the_program_ended(ctgen_dir: pytest.Pytester) -> None:
    unit = ctgen_dir.path / "ends.c"
    unit.write_text(BEFORE, encoding="utf-8")
    assert run_ctgen(ctgen_dir, "--ctgen-export", "out", "ends.c").ret == 0
    unit.write_text(AFTER, encoding="utf-8")
    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "ends"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    lines = run.stdout.splitlines()
    assert run.returncode != 0
    for function, message in MESSAGES.items():
        assert any(line.startswith(f"FAIL {function}[case1]: {message}") for line in lines), \
            (function, lines)
    assert lines[-1].endswith(", 3 failed")
