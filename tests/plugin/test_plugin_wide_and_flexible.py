"""Units the harness once could not be generated for, failing every case of the file: a
function of `__int128` values beyond 64 bits (C has no literal of them), a struct with a
flexible array member passed by value (C has no initializer of the member outside static
objects), and a global whose initializer gives such a member elements (GNU C: a false
out-of-bounds finding). Their functions get cases of their own, the file's other functions
keep theirs, and the export builds, runs and replays."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from plugin_helpers import output, run_ctgen

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

WIDE = r"""
unsigned __int128 g128;

__int128 mul128(long a, long b)
{
    __int128 r = (__int128)a * b;
    if (r > ((__int128)1 << 70))
        return r;
    return -r;
}

int top_of_g(void)
{
    if (g128 >> 120 == 3)
        return 1;
    return 0;
}

void set_g(unsigned long long x)
{
    if (x > 5)
        g128 = (unsigned __int128)x << 64 | 5;
    else
        g128 = 0;
}

int other(int x)
{
    if (x > 3)
        return 1;
    return 0;
}
"""

FLEXIBLE = r"""
struct fam { int n; int d[]; };
struct fam fg = { 3, { 1, 2, 3 } };
struct fam fw = { 1, { 7 } };

int fam_val(struct fam f)
{
    if (f.n > 2)
        return 1;
    return 0;
}

int fam_read(int i)
{
    if (i >= 0 && i < 3 && fg.d[i] == 2)
        return 1;
    return 0;
}

int fam_size(void)
{
    return (int)sizeof fg;
}

void fam_write(int v)
{
    fw.n = v;
}

int plain(int x)
{
    if (x == 2)
        return 7;
    return 0;
}
"""


def _export_runs_and_replays(ctgen_dir: pytest.Pytester, unit: str, passed: int) -> None:
    make = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / unit), "run"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr
    assert make.stdout.splitlines()[-1] == f"{passed} passed, 0 failed", make.stdout
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == passed, output(replay)


def test_int128_values_beyond_64_bits(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", wide=WIDE)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "wide.c")
    assert result.ret == 0, output(result)
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes and "skipped" not in outcomes, output(result)
    doc = json.loads(Path(ctgen_dir.path, "out/wide/wide.ctgen.json").read_text())
    cases = {f["name"]: f["cases"] for f in doc["functions"]}
    assert all(cases[name] for name in ("mul128", "top_of_g", "set_g", "other")), cases
    # exact values beyond 64 bits, as JSON numbers (or a mask's hex digits)
    returns = [c["expected"]["returns"] for c in cases["mul128"]]
    assert any(isinstance(r, int) and r > 1 << 70 for r in returns), returns
    g_values = [int(b["value"], 16) if isinstance(b["value"], str) else b["value"]
                for c in cases["set_g"] for b in c["expected"]["globals"]]
    assert any(v > 1 << 64 for v in g_values), g_values
    _export_runs_and_replays(ctgen_dir, "wide", outcomes["passed"])


def test_flexible_array_members(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", famx=FLEXIBLE)
    result = run_ctgen(ctgen_dir, "-q", "-rs", "--ctgen-export", "out", "famx.c")
    assert result.ret == 0, output(result)
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes, output(result)
    doc = json.loads(Path(ctgen_dir.path, "out/famx/famx.ctgen.json").read_text())
    functions = {f["name"]: f for f in doc["functions"]}
    for name in ("fam_val", "fam_read", "fam_size", "plain"):
        assert functions[name]["cases"], name
    # fg holds 16 bytes (three elements), and sizeof fg is still 4
    assert len(functions["fam_read"]["cases"]) >= 3
    assert [c["expected"]["returns"] for c in functions["fam_size"]["cases"]] == [4]
    # a global the function writes is an input: the case cannot set its elements
    assert functions["fam_write"]["cases"] == []
    assert re.search(r"famx\.c:3:\d+: global 'fw' ", functions["fam_write"]["skip_reason"]), \
        functions["fam_write"]  # where fw is defined (pytester drops the first newline)
    assert "flexible array member" in output(result)
    assert outcomes["skipped"] == 1, output(result)
    _export_runs_and_replays(ctgen_dir, "famx", outcomes["passed"])
