"""The requirement traceability matrix: for every requirement id the `__rtt_testcase`
annotations name, where it is declared, which generated cases carry it and how they ended;
written as JSON, CSV or Markdown (`--ctgen-trace FILE`). Plain data, no pytest."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import FunctionCases

FORMAT = "pytest-ctgen trace"
VERSION = 1

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
NOT_RUN = "not run"  # a case outcome, and a requirement's status when its cases did not all run
NO_CASE = "no case"

UNREACHABLE_REASON = "test case pre unreachable"
NOT_REACHED_REASON = "not reached"


@dataclass(frozen=True)
class Declaration:
    """One `__rtt_testcase` naming a requirement: its function ("file.c::name"), its
    "file:line:col", its pre and post as written, generation's verdict and, for a "holds"
    verdict, the bounds within which it was proved."""

    function: str
    at: str
    pre: str
    post: str
    verdict: str
    requirements: tuple[str, ...]
    bounds: str = ""


@dataclass(frozen=True)
class TracedCase:
    """A generated case as the matrix sees it: its pytest node id and requirement ids."""

    nodeid: str
    requirements: tuple[str, ...]


@dataclass(frozen=True)
class TracedFunction:
    """What one collected function contributes to the matrix."""

    function: str  # "file.c::name"
    declarations: tuple[Declaration, ...]
    cases: tuple[TracedCase, ...]
    skip_reason: str | None = None  # the generator skipped the function


@dataclass(frozen=True)
class CaseResult:
    """A case carrying a requirement, and its outcome."""

    nodeid: str
    function: str
    outcome: str  # passed, failed, skipped or not run


@dataclass(frozen=True)
class Requirement:
    """One row of the matrix. `status` is "passed" (every case passed), "failed" (a case
    failed), "not run" (no case failed but not every case passed: skipped or not run) or
    "no case"; `reason` says why a requirement has no case."""

    id: str
    status: str
    reason: str
    declarations: tuple[Declaration, ...]
    cases: tuple[CaseResult, ...]


# --------------------------------------------------------------------------- building


def traced_function(function: str, fn: FunctionCases, nodeids: Sequence[str]
                    ) -> TracedFunction:
    """The matrix's view of a generated function; `nodeids[k]` is the id of `fn.cases[k]`."""
    checks = fn.contract.checks if fn.contract is not None else ()
    bounds = fn.contract.bounds if fn.contract is not None else ""
    declarations = tuple(
        Declaration(function, c.at, c.pre_text, c.text, c.verdict, c.requirements,
                    bounds if c.verdict == "holds" else "")
        for c in checks if c.kind == "testcase" and c.requirements)
    cases = tuple(TracedCase(nodeid, c.requirements) for nodeid, c in zip(nodeids, fn.cases))
    return TracedFunction(function, declarations, cases, fn.skip_reason)


def report_outcome(current: str | None, when: str, outcome: str) -> str:
    """A case's outcome after one more of pytest's reports (`when`: setup, call or
    teardown; `outcome`: passed, failed or skipped): a failure in any phase fails the case,
    and a case passes only when its call passed."""
    if current == FAILED or outcome == FAILED:
        return FAILED
    if outcome == SKIPPED:
        return SKIPPED
    if when == "call":
        return PASSED
    return current or NOT_RUN


def _status(cases: Sequence[CaseResult]) -> str:
    if any(c.outcome == FAILED for c in cases):
        return FAILED
    if all(c.outcome == PASSED for c in cases):
        return PASSED
    return NOT_RUN


def _reason(declarations: Sequence[Declaration], skips: Sequence[str]) -> str:
    if skips:
        return "function skipped: " + "; ".join(dict.fromkeys(skips))
    if declarations and all(d.verdict == "unreachable" for d in declarations):
        return UNREACHABLE_REASON
    return NOT_REACHED_REASON


def build_matrix(functions: Iterable[TracedFunction], outcomes: Mapping[str, str]
                 ) -> list[Requirement]:
    """The matrix, one entry per requirement id in first-seen order (a function's test
    cases before its cases, functions in collection order). `outcomes` maps node ids to
    "passed", "failed" or "skipped"; a case without an outcome was not run. A function
    that appears twice (by name) counts once."""
    order: dict[str, None] = {}
    declared: dict[str, list[Declaration]] = {}
    carried: dict[str, list[CaseResult]] = {}
    skips: dict[str, list[str]] = {}
    seen: set[str] = set()
    for f in functions:
        if f.function in seen:
            continue
        seen.add(f.function)
        for d in f.declarations:
            for req in d.requirements:
                order.setdefault(req)
                declared.setdefault(req, []).append(d)
                if f.skip_reason is not None:
                    skips.setdefault(req, []).append(f.skip_reason)
        for c in f.cases:
            result = CaseResult(c.nodeid, f.function, outcomes.get(c.nodeid, NOT_RUN))
            for req in c.requirements:
                order.setdefault(req)
                carried.setdefault(req, []).append(result)
    matrix = []
    for req in order:
        decls = tuple(declared.get(req, ()))
        cases = tuple(carried.get(req, ()))
        if cases:
            matrix.append(Requirement(req, _status(cases), "", decls, cases))
        else:
            matrix.append(Requirement(req, NO_CASE, _reason(decls, skips.get(req, ())),
                                      decls, ()))
    return matrix


def matrix_summary(matrix: Sequence[Requirement]) -> str:
    """One line for the terminal: `5 passed, 1 failed, 1 without a case`."""
    counts = {status: sum(1 for r in matrix if r.status == status)
              for status in (PASSED, FAILED, NOT_RUN, NO_CASE)}
    parts = [f"{counts[PASSED]} passed"]
    if counts[FAILED]:
        parts.append(f"{counts[FAILED]} failed")
    if counts[NOT_RUN]:
        parts.append(f"{counts[NOT_RUN]} not run")
    if counts[NO_CASE]:
        parts.append(f"{counts[NO_CASE]} without a case")
    return ", ".join(parts)


# ---------------------------------------------------------------- transport (pytest-xdist)


def functions_to_json(functions: Iterable[TracedFunction]) -> list[dict[str, Any]]:
    """Plain lists and dicts (what an xdist worker can send to the controller)."""
    return [{"function": f.function, "skip_reason": f.skip_reason,
             "declarations": [_declaration_to_json(d) for d in f.declarations],
             "cases": [{"nodeid": c.nodeid, "requirements": list(c.requirements)}
                       for c in f.cases]}
            for f in functions]


def functions_from_json(data: Iterable[Mapping[str, Any]]) -> list[TracedFunction]:
    """The inverse of `functions_to_json`."""
    return [TracedFunction(
        function=f["function"],
        declarations=tuple(Declaration(
            d["function"], d["at"], d["pre"], d["post"], d["verdict"],
            tuple(d["requirements"]), d.get("bounds", "")) for d in f["declarations"]),
        cases=tuple(TracedCase(c["nodeid"], tuple(c["requirements"])) for c in f["cases"]),
        skip_reason=f.get("skip_reason")) for f in data]


def _declaration_to_json(d: Declaration) -> dict[str, Any]:
    return {"function": d.function, "at": d.at, "pre": d.pre, "post": d.post,
            "verdict": d.verdict, "bounds": d.bounds, "requirements": list(d.requirements)}


# --------------------------------------------------------------------------- formats


def format_json(matrix: Sequence[Requirement]) -> str:
    """The JSON form: fixed key order, indent 2, trailing newline."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "requirements": [{
            "id": r.id,
            "status": r.status,
            "reason": r.reason,
            "testcases": [{k: v for k, v in _declaration_to_json(d).items()
                           if k != "requirements"} for d in r.declarations],
            "cases": [{"nodeid": c.nodeid, "function": c.function, "outcome": c.outcome}
                      for c in r.cases],
        } for r in matrix],
    }
    return json.dumps(doc, indent=2) + "\n"


CSV_COLUMNS = ("requirement", "status", "function", "testcase_at", "case", "outcome")


def format_csv(matrix: Sequence[Requirement]) -> str:
    """One row per (requirement, case); a requirement without a case gets one row with an
    empty case. `testcase_at` lists the requirement's `__rtt_testcase`s in the case's
    function (for no case: all of them), separated by "; "."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in matrix:
        if not r.cases:
            writer.writerow((r.id, r.status, _joined(d.function for d in r.declarations),
                             _joined(d.at for d in r.declarations), "", ""))
        for c in r.cases:
            writer.writerow((r.id, r.status, c.function,
                             _joined(d.at for d in r.declarations
                                     if d.function == c.function), c.nodeid, c.outcome))
    return out.getvalue()


def format_markdown(matrix: Sequence[Requirement]) -> str:
    """A table with one row per requirement (its test cases and its cases with their
    outcomes), then a section listing the requirements without a case and why."""
    lines = ["# Requirement traceability", "",
             "| requirement | status | test cases | cases |", "|---|---|---|---|"]
    for r in matrix:
        testcases = "<br>".join(_md_declaration(d) for d in r.declarations) or "-"
        cases = "<br>".join(f"`{_md(c.nodeid)}` {c.outcome}" for c in r.cases) or "-"
        lines.append(f"| {_md(r.id)} | {r.status} | {testcases} | {cases} |")
    lines += ["", "## Requirements without a case", ""]
    missing = [r for r in matrix if r.status == NO_CASE]
    for r in missing:
        where = "; ".join(_md_declaration(d) for d in r.declarations) or "no test case"
        lines.append(f"- {_md(r.id)}: {r.reason} ({where})")
    if not missing:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def _joined(values: Iterable[str]) -> str:
    return "; ".join(dict.fromkeys(values))


def _md(text: str) -> str:
    """Text for a Markdown table cell: `|` escaped, no line breaks."""
    return " ".join(text.split()).replace("|", "\\|")


def _md_declaration(d: Declaration) -> str:
    verdict = f", {d.verdict}" if d.verdict else ""
    bounds = f" ({_md(d.bounds)})" if d.bounds else ""
    return (f"`{_md(d.function)}` at {_md(d.at)}: pre `{_md(d.pre)}`, "
            f"post `{_md(d.post)}`{verdict}{bounds}")


FORMATTERS: dict[str, Callable[[Sequence[Requirement]], str]] = {
    ".json": format_json, ".csv": format_csv, ".md": format_markdown}


def check_trace_path(path: str) -> str | None:
    """Why `path` cannot be a trace file (its suffix names no format), or None."""
    suffix = Path(path).suffix.lower()
    if suffix in FORMATTERS:
        return None
    return (f"--ctgen-trace {path}: unknown format {suffix or '(no suffix)'!s}; "
            f"the file name must end in .json, .csv or .md")


def write_trace(path: Path, matrix: Sequence[Requirement]) -> None:
    """Write the matrix in the format `path`'s suffix names."""
    text = FORMATTERS[path.suffix.lower()](matrix)
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
