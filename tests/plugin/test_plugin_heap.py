"""End to end: units that allocate. Every outcome of a pool allocator over malloc, a
checksum over a calloc'd buffer and a vector grown with realloc is covered (gcov measures
it), allocation failures included (the harness allocator fails the case's chosen call);
the seeded errors (a use after free, a missing NULL check, a double free) are failing
cases naming the error and its line, in pytest, in the exported driver and in a replay."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from plugin_helpers import QUIET, failed_functions, output, report_rows, run_ctgen

#: Units of our own that allocate, shared with tests/symbolic/test_heap.py (a `.txt`:
#: no unit of `pytest --ctgen` run on this tree).
UNIT = (Path(__file__).parents[1] / "data" / "heap_units.c.txt").read_text(encoding="utf-8")


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(UNIT.splitlines(), 1) if marker in text)


FINDINGS = {
    "take_last": (f"heap.c:{_line('return v[3];')}:9: use after free of 'malloc#0' "
                  f"(freed at heap.c:{_line('free(v);')}:5)"),
    "sum_pair": f"heap.c:{_line('p[0] = a & 0xff;')}:5: NULL dereference of (p + 0)",
    "release_twice": (f"heap.c:{_line('free(p); /* again */')}:9: double free: free of "
                      f"'malloc#0', freed at heap.c:{_line('p[0] = 1;') + 1}:5"),
}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_heap_units_are_covered_and_their_errors_found(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "heap.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report", "json:r.json",
                       "heap.c")
    text = output(result)
    assert result.ret == 1, text
    assert failed_functions(result) == sorted(FINDINGS), text
    for what in FINDINGS.values():
        assert f"ends: undefined behaviour at {what}" in text, what
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in ("pool_create", "pool_take", "pool_destroy", "pool_demo", "checksum",
                 "take_last", "grow_and_sum", "release_twice"):
        row = rows[name]
        assert row["unreachable"] == [] and row["stop_reason"] == "exhausted", row
        assert row["branches_covered"] == row["branches_total"] > 0, row
        assert row["lines_covered"] == row["lines_total"], row

    doc = json.loads((ctgen_dir.path / "out" / "heap" / "heap.ctgen.json").read_text())
    assert doc["allocator"] == ["malloc", "calloc", "realloc", "free"]
    fails = {f["name"]: [c.get("failing_allocations", []) for c in f["cases"]]
             for f in doc["functions"]}
    assert [0] in fails["pool_create"] and [1] in fails["pool_create"]
    assert [1] in fails["grow_and_sum"]  # the realloc

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "heap"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    lines = run.stdout.splitlines()
    assert run.returncode != 0
    failing = sorted(line.split("[")[0].removeprefix("FAIL ") for line in lines
                     if line.startswith("FAIL "))
    assert failing == sorted(FINDINGS), run.stdout
    assert lines[-1].endswith(" passed, 3 failed"), run.stdout

    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    assert replay.ret == 1
    assert replay.parseoutcomes()["failed"] == 3, output(replay)


LEAKY = """\
#include <stdlib.h>

struct item {
    int value;
    struct item *next;
};

/* Leaks its buffer on the early return. */
int keep_or_drop(int n)
{
    int *buf = malloc(4 * sizeof *buf);
    if (buf == NULL)
        return -1;
    buf[0] = n;
    if (n > 5)
        return buf[0];
    free(buf);
    return 0;
}

/* Hands its allocation to the caller: no leak. */
struct item *make_item(int value)
{
    struct item *it = malloc(sizeof *it);
    if (it == NULL)
        return NULL;
    it->value = value;
    it->next = NULL;
    return it;
}
"""
LEAK = ("leaks ctgen_heap_0: 16 bytes from malloc at leaky.c:11:16, neither freed nor "
        "reachable by the caller")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_leak_is_a_note_or_with_ctgen_leaks_fail_a_failing_case(
        ctgen_dir: pytest.Pytester) -> None:
    """By default the leaking case passes with a note; `--ctgen-leaks fail` (or the ini's
    `ctgen_leaks = fail`) fails it, naming the leak and where it was allocated, in pytest,
    in the exported driver and in a replay of the export; an allocation the caller gets
    is no leak."""
    (ctgen_dir.path / "leaky.c").write_text(LEAKY, encoding="utf-8")
    noted = run_ctgen(ctgen_dir, "leaky.c")
    assert noted.ret == 0, output(noted)

    failed = run_ctgen(ctgen_dir, "--ctgen-leaks", "fail", "--ctgen-export", "out",
                       "leaky.c")
    text = output(failed)
    assert failed.ret == 1, text
    failing = [line for line in failed.outlines if line.startswith("FAILED ")]
    assert len(failing) == 1 and "::keep_or_drop[" in failing[0], text
    assert f"keep_or_drop[case3]: {LEAK}; stub calls: malloc(16)" in text
    assert "  n = 6" in text and f"  return 6\n  {LEAK}" in text

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "leaky"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode != 0
    assert [line for line in run.stdout.splitlines() if line.startswith("FAIL ")] == [
        f"FAIL keep_or_drop[case3]: {LEAK}; stub calls: malloc(16)"], run.stdout
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    assert replay.parseoutcomes()["failed"] == 1, output(replay)

    ctgen_dir.makeini("[pytest]\nctgen_leaks = fail\n")
    from_ini = run_ctgen(ctgen_dir, "leaky.c")
    assert from_ini.ret == 1 and LEAK in output(from_ini)
    ctgen_dir.makeini("[pytest]\nctgen_leaks = abort\n")
    refused = run_ctgen(ctgen_dir, "leaky.c")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    assert "ctgen_leaks: 'abort' is not one of note, fail" in output(refused)
