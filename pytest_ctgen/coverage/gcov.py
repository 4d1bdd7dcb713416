"""Per-function coverage of a unit from the gcov data of a harness build, read through gcovr.

Line coverage (C0) counts gcov's executable lines; branch coverage (C1) counts gcov's branch
outcomes (each arc leaving a conditional jump), which are also the branches the generator's
CFG models.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Mapping

from ..c_harness_files import ANNOTATION_LINES
from ..errors import CtgenError


class CoverageError(CtgenError):
    """gcovr could not measure the coverage of a build."""


def percent(covered: int, total: int) -> float:
    """`covered` of `total` as a percentage; 100.0 when there is nothing to cover."""
    return 100.0 if total == 0 else 100.0 * covered / total


@dataclass(frozen=True)
class FunctionCoverage:
    """What gcov measured for one function of the unit."""

    name: str
    line: int  # the line gcov attributes the function to (0 if unknown)
    lines_total: int
    lines_covered: int
    branches_total: int
    branches_covered: int
    missing_lines: tuple[int, ...] = ()
    missing_branches: tuple[tuple[int, int], ...] = ()  # (line, gcov branch number)
    calls: int = 0  # how often the function was entered

    @property
    def line_percent(self) -> float:
        return percent(self.lines_covered, self.lines_total)

    @property
    def branch_percent(self) -> float:
        return percent(self.branches_covered, self.branches_total)


def totals(functions: Iterable[FunctionCoverage]) -> dict[str, int]:
    """Summed counts of several functions, keyed like the JSON report's totals."""
    t = {"lines_total": 0, "lines_covered": 0, "branches_total": 0, "branches_covered": 0}
    for f in functions:
        t["lines_total"] += f.lines_total
        t["lines_covered"] += f.lines_covered
        t["branches_total"] += f.branches_total
        t["branches_covered"] += f.branches_covered
    return t




def _gcovr_json(build_dir: Path, unit: Path, gcov_executable: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ctgen-gcovr-") as tmp:
        out = Path(tmp) / "coverage.json"
        config = Path(tmp) / "gcovr.cfg"
        config.write_text("", encoding="utf-8")  # a project's gcovr.cfg must not apply here
        cmd = [sys.executable, "-m", "gcovr", "--config", str(config),
               "--root", str(unit.parent),
               # by file name only: gcov may name the unit through another (symlinked) path;
               # measure() keeps the entries that really are the unit
               "--filter", "/(.*/)?" + re.escape(unit.name) + "$",
               # annotations that are code only in the harness build (ctgen.h)
               "--exclude-lines-by-pattern", ANNOTATION_LINES,
               # gcovr leaves out functions named `__*` unless told: libc-style units
               # define many (`__stpcpy` behind a weak alias)
               "--include-internal-functions",
               # a case stopped by its timeout inside a long loop ran it billions of
               # times: real counts, not the gcov bug gcovr suspects above 2**32
               "--gcov-suspicious-hits-threshold", "0",
               # a #line directive names a file that is not there (bison's parser.y):
               # the unit's own lines are still measured
               "--gcov-ignore-errors", "source_not_found",
               "--gcov-object-directory", str(build_dir), "--json", str(out), str(build_dir)]
        if gcov_executable:
            cmd[3:3] = ["--gcov-executable", gcov_executable]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp,
                              env={**os.environ, "LC_ALL": "C"})
        if done.returncode != 0 or not out.is_file():
            lines = (done.stderr or done.stdout).strip().splitlines()
            reason = lines[-1] if lines else f"exit status {done.returncode}"
            raise CoverageError(f"gcovr failed on {build_dir}: {reason}")
        return json.loads(out.read_text(encoding="utf-8"))


def _same_file(reported: str, root: Path, unit: Path) -> bool:
    path = Path(reported)
    if not path.is_absolute():
        path = root / path
    try:
        return path.resolve() == unit
    except OSError:
        return False


def unit_tracefile(build_dir: Path, unit_source: Path,
                   gcov_executable: str | None = None) -> dict[str, Any]:
    """gcovr's JSON document (a tracefile for `gcovr --add-tracefile`) of the build at
    `build_dir`, holding only the entries of `unit_source`, each named by its absolute
    path, with the functions the harness renames under their names in the unit."""
    build_dir = Path(build_dir).resolve()
    unit = Path(unit_source).resolve()
    doc = _gcovr_json(build_dir, unit, gcov_executable)
    files = []
    for entry in doc.get("files", []):
        if not _same_file(entry["file"], unit.parent, unit):
            continue
        entry = dict(entry, file=str(unit))
        entry["functions"] = [
            dict(fn, name=_RENAMED_IN_HARNESS[fn["name"]])
            if fn.get("name") in _RENAMED_IN_HARNESS else fn
            for fn in entry.get("functions", [])]
        entry["lines"] = [
            dict(ln, function_name=_RENAMED_IN_HARNESS[ln["function_name"]])
            if ln.get("function_name") in _RENAMED_IN_HARNESS else ln
            for ln in entry.get("lines", [])]
        files.append(entry)
    return {**doc, "files": files}


def measure(build_dir: Path, unit_source: Path, gcov_executable: str | None = None,
            defined: Mapping[str, int] | None = None) -> dict[str, FunctionCoverage]:
    """Coverage of every function of `unit_source` in the build at `build_dir`, by name
    (`defined`: the line each function the unit defines starts at, see `summarize`).

    Functions the unit defines but no case entered appear with nothing covered; a build with
    no gcov data yet (no case ran) reports every function uncovered."""
    return summarize(unit_tracefile(build_dir, unit_source, gcov_executable)["files"],
                     defined)


#: What gcovr calls the function of lines gcov names none for (see `summarize`).
_UNNAMED = re.compile(r"<unknown function \d+>")

#: Functions the harness renames when it includes the unit, by their name in the unit.
_RENAMED_IN_HARNESS = {"ctgen_unit_main": "main"}


def summarize(files: Iterable[Mapping[str, Any]], defined: Mapping[str, int] | None = None
              ) -> dict[str, FunctionCoverage]:
    """Per-function coverage from gcovr JSON `files` entries (all of one source file).

    gcov names a function's lines only where it places the function: one first declared
    in a system header (a libc's own `bsearch`) it places at that declaration, and its
    lines in the unit are left without a name (gcovr: `<unknown function N>`). With
    `defined` (the line each function of the unit starts at), such a line belongs to the
    function gcov does not place in the unit that starts last before it."""
    counts: dict[str, dict[int, int]] = {}  # function -> line -> hits
    branches: dict[str, dict[tuple[int, int], int]] = {}  # function -> (line, no) -> hits
    starts: dict[str, int] = {}
    calls: dict[str, int] = {}
    files = list(files)
    for f in files:
        for fn in f.get("functions", []):
            name = fn.get("name") or fn.get("demangled_name") or ""
            name = _RENAMED_IN_HARNESS.get(name, name)
            if _UNNAMED.fullmatch(name):
                continue
            starts.setdefault(name, int(fn.get("lineno", 0)))
            calls[name] = calls.get(name, 0) + int(fn.get("execution_count", 0))
    unplaced = sorted((line, name) for name, line in (defined or {}).items()
                      if name not in starts)
    for f in files:
        for ln in f.get("lines", []):
            if ln.get("gcovr/excluded") or ln.get("gcovr/noncode"):
                continue
            number = int(ln["line_number"])
            name = ln.get("function_name")
            name = _RENAMED_IN_HARNESS.get(name, name) if name and \
                not _UNNAMED.fullmatch(name) else \
                next((n for start, n in reversed(unplaced) if start <= number), None)
            if not name:
                continue
            lines = counts.setdefault(name, {})
            lines[number] = lines.get(number, 0) + int(ln.get("count", 0))
            outcome = branches.setdefault(name, {})
            for i, br in enumerate(ln.get("branches", [])):
                if br.get("gcovr/excluded"):
                    continue
                key = (number, int(br.get("branchno", i)))
                outcome[key] = outcome.get(key, 0) + int(br.get("count", 0))
    result: dict[str, FunctionCoverage] = {}
    for name in sorted(set(counts) | set(starts)):
        lines = counts.get(name, {})
        outs = branches.get(name, {})
        result[name] = FunctionCoverage(
            name=name,
            line=starts.get(name, min(lines, default=0)),
            lines_total=len(lines),
            lines_covered=sum(1 for n in lines.values() if n > 0),
            branches_total=len(outs),
            branches_covered=sum(1 for n in outs.values() if n > 0),
            missing_lines=tuple(sorted(k for k, n in lines.items() if n == 0)),
            missing_branches=tuple(sorted(k for k, n in outs.items() if n == 0)),
            calls=calls.get(name, 0),
        )
    return result


def merge(*results: Mapping[str, FunctionCoverage]) -> dict[str, FunctionCoverage]:
    """Coverage of several runs of the same unit (e.g. one build per xdist worker): a line or
    branch outcome is covered if any run covered it."""
    merged: dict[str, FunctionCoverage] = {}
    for name in sorted({n for r in results for n in r}):
        parts = [r[name] for r in results if name in r]
        first = parts[0]
        missing_lines = set(first.missing_lines)
        missing_branches = set(first.missing_branches)
        for part in parts[1:]:
            missing_lines &= set(part.missing_lines)
            missing_branches &= set(part.missing_branches)
        lines_total = max(p.lines_total for p in parts)
        branches_total = max(p.branches_total for p in parts)
        merged[name] = FunctionCoverage(
            name=name, line=first.line,
            lines_total=lines_total, lines_covered=lines_total - len(missing_lines),
            branches_total=branches_total,
            branches_covered=branches_total - len(missing_branches),
            missing_lines=tuple(sorted(missing_lines)),
            missing_branches=tuple(sorted(missing_branches)),
            calls=sum(p.calls for p in parts))
    return merged
