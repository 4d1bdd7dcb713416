"""Helpers for the end-to-end tests of the pytest plugin (imported by the test modules).

Every run goes through a fresh Python process (`pytester.runpytest_subprocess`): the plugin
forks children for the cases and loads cffi libraries, neither of which should touch the
process running these tests."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# Wall-clock limit of one inner pytest run.
RUN_TIMEOUT = 180

# Third-party plugins that only slow down the start of every inner run (hypothesis' alone
# costs ~1.5 s); `-p no:NAME` is harmless when NAME is not installed.
QUIET = ("-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:xdist")

ID_LINE = re.compile(r"^(\S+\.[chi])::(\w+)\[([^\]]+)\]$")


def run_ctgen(pytester: pytest.Pytester, *args: str, timeout: float = RUN_TIMEOUT,
              quiet: tuple[str, ...] = QUIET) -> pytest.RunResult:
    """`pytest --ctgen ARGS` in a subprocess inside pytester's dir, with the default
    budgets: generation stops by its work budget, the same on every machine."""
    return pytester.runpytest_subprocess(*quiet, "--ctgen", *args, timeout=timeout)


def collected_ids(result: pytest.RunResult) -> list[str]:
    """The item ids printed by `--collect-only -q`, in order."""
    return [line.strip() for line in result.outlines if ID_LINE.match(line.strip())]


def passed_ids(result: pytest.RunResult) -> list[str]:
    """The ids of the items a `-v` run reports as PASSED, in order."""
    out = []
    for line in result.outlines:
        m = re.match(r"^(\S+\.c::\S+) PASSED", line)
        if m:
            out.append(m.group(1))
    return out


def failed_functions(result: pytest.RunResult) -> list[str]:
    """The functions of the items a run's short summary lists as FAILED, one per failing
    case, sorted."""
    return sorted(line.split(" - ")[0].split("::")[1].split("[")[0]
                  for line in result.outlines if line.startswith("FAILED "))


def failure_lines(result: pytest.RunResult) -> list[str]:
    """The lines of a run's FAILURES section, without the short summary after it: on CI
    (the `CI` variable set) pytest repeats each whole failure message in the summary."""
    lines = result.outlines
    end = next((i for i, line in enumerate(lines) if "short test summary info" in line),
               len(lines))
    return lines[:end]


def make_mcdc(export: Path, timeout: float = 300) -> tuple[str, dict[str, tuple[int, int]]]:
    """`make mcdc` in an export, which must succeed: its output, and its figures by
    function (and TOTAL): conditions shown, of all."""
    done = subprocess.run(["make", "-s", "-C", str(export), "mcdc"], capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = {}
    for line in done.stdout.splitlines():
        m = re.match(r"(\w+)\s+\d+\s+(\d+)/(\d+)\s+\S+", line)
        if m:
            figures[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return done.stdout, figures


def output(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines + result.errlines)


def load_report(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert set(doc) == {"functions", "totals"}
    return doc


def report_rows(path: Path) -> dict[str, dict[str, Any]]:
    """The JSON report's rows by function name (the tests use unique names)."""
    rows = load_report(path)["functions"]
    by_name = {r["function"]: r for r in rows}
    assert len(by_name) == len(rows), "a function appears twice in the report"
    return by_name


def gcovr_functions(root: Path, build_dir: Path, unit_name: str) -> dict[str, dict[str, int]]:
    """Per-function line and branch counts of `unit_name` in the gcov data under
    `build_dir`, computed here from gcovr's JSON (independently of pytest_ctgen.coverage)."""
    out = build_dir / "gcovr-check.json"
    cfg = build_dir / "gcovr-check.cfg"
    cfg.write_text("", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "gcovr", "--config", str(cfg), "--root", str(root),
         "--filter", "(.*/)?" + re.escape(unit_name) + "$", "--json", str(out),
         str(build_dir)],
        cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    files = [f for f in doc["files"] if Path(f["file"]).name == unit_name]
    assert len(files) == 1, [f["file"] for f in doc["files"]]
    result: dict[str, dict[str, int]] = {}
    for line in files[0]["lines"]:
        name = line.get("function_name")
        if not name or line.get("gcovr/noncode"):
            continue
        row = result.setdefault(name, {"lines_total": 0, "lines_covered": 0,
                                       "branches_total": 0, "branches_covered": 0})
        row["lines_total"] += 1
        row["lines_covered"] += int(line["count"] > 0)
        for br in line.get("branches", []):
            row["branches_total"] += 1
            row["branches_covered"] += int(br["count"] > 0)
    return result
