"""The session's coverage table: per function the cases, what gcov measured, what the
generator proved unreachable and why generation stopped; as terminal text, and as plain
data an xdist worker sends (the JSON report is in writers.py).

Every branch outcome gcov counts and no case covered is listed: as an outcome the
generator proved unreachable or did not reach, or, where gcc branches where the generator's
CFG has no goal (`account_outcomes`), as a gcov outcome without a goal."""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..cases import STOP_SKIPPED, Outcome, is_extra
from .mcdc_table import McdcRow, mcdc_cell, mcdc_infeasible, mcdc_missing, mcdc_notes


@dataclass
class Row:
    file: str
    function: str
    line: int
    cases: int
    passed: int
    failed: int
    lines_total: int
    lines_covered: int
    branches_total: int
    branches_covered: int
    unreachable: tuple[Outcome, ...]
    not_reached: tuple[Outcome, ...]
    stop_reason: str
    generation_seconds: float
    missing_lines: tuple[int, ...] = ()
    missing_branches: tuple[str, ...] = ()
    skip_reason: str | None = None
    measured: bool = True  # False: no case of the function ran here, gcov has nothing
    # gcov outcomes ("line:branch") no case covered that no listed outcome accounts for
    without_goal: tuple[str, ...] = ()
    mcdc: McdcRow | None = None  # when MC/DC was measured (report/mcdc_table.py)
    # (line, column) of the conditions the generator proved to have no independence pair
    mcdc_infeasible: tuple[tuple[int, int], ...] = ()
    # cases `--ctgen-boundary-cases` added (cases.is_extra)
    boundary_cases: int = 0


@dataclass
class Totals:
    lines_total: int = 0
    lines_covered: int = 0
    branches_total: int = 0
    branches_covered: int = 0
    cases: int = 0
    mcdc_conditions_total: int = 0
    mcdc_conditions_covered: int = 0

    @property
    def line_percent(self) -> float | None:
        return 100.0 * self.lines_covered / self.lines_total if self.lines_total else None

    @property
    def branch_percent(self) -> float | None:
        return 100.0 * self.branches_covered / self.branches_total if self.branches_total \
            else None

    @property
    def mcdc_percent(self) -> float | None:
        return 100.0 * self.mcdc_conditions_covered / self.mcdc_conditions_total \
            if self.mcdc_conditions_total else None


def coverage_rows(runs: Mapping[Path, Any], coverage: Mapping[Path, Mapping[str, Any]]
                  ) -> list[Row]:
    """One row per generated function of every collected file: `runs` are the session's
    runs by path (file_run.FileRun), `coverage` what gcov measured of each
    (coverage.gcov.FunctionCoverage by function)."""
    rows = []
    for path, run in runs.items():
        measured = coverage.get(path, {})
        fc = run.generated.cases
        for fn in fc.functions:
            cov = measured.get(fn.name)
            outcomes = [run.results.get((fn.name, c.number)) for c in fn.cases]
            rows.append(Row(
                file=fc.source, function=fn.name, line=fn.line, cases=len(fn.cases),
                passed=sum(1 for o in outcomes if o is True),
                failed=sum(1 for o in outcomes if o is False),
                lines_total=cov.lines_total if cov else 0,
                lines_covered=cov.lines_covered if cov else 0,
                branches_total=cov.branches_total if cov else 0,
                branches_covered=cov.branches_covered if cov else 0,
                unreachable=fn.unreachable, not_reached=fn.not_reached,
                stop_reason=fn.stop_reason,
                generation_seconds=run.generated.seconds.get(fn.name, fn.generation_seconds),
                missing_lines=tuple(cov.missing_lines) if cov else (),
                missing_branches=tuple(f"{line}:{n}" for line, n in cov.missing_branches)
                if cov else (),
                skip_reason=fn.skip_reason, measured=cov is not None,
                mcdc_infeasible=tuple((n.line, n.column) for n in fn.mcdc
                                      if n.verdict == "infeasible"),
                boundary_cases=sum(1 for c in fn.cases if is_extra(c))))
    return rows


def account_outcomes(row: Row) -> Row:
    """`row` with the gcov branch outcomes no case covered that the generator does not list
    (as unreachable or not reached) in `without_goal`: per line, those beyond the number of
    outcomes it lists on that line (the highest-numbered ones). They are branches gcc makes
    that the generator's CFG has no goal for (ir/gccfold.py models the known ones), or ones
    gcc attributes to another line."""
    if not row.measured or row.stop_reason == STOP_SKIPPED:
        return row
    listed = Counter(o.line for o in (*row.unreachable, *row.not_reached))
    missing: dict[int, list[tuple[int, str]]] = {}
    for outcome in row.missing_branches:
        line_text, _, number = outcome.partition(":")
        missing.setdefault(int(line_text), []).append((int(number), outcome))
    extra: list[str] = []
    for line, outcomes in sorted(missing.items()):
        surplus = len(outcomes) - listed[line]
        if surplus > 0:
            extra.extend(name for _, name in sorted(outcomes)[-surplus:])
    return replace(row, without_goal=tuple(extra))


def totals(rows: list[Row]) -> Totals:
    t = Totals()
    for r in rows:
        t.lines_total += r.lines_total
        t.lines_covered += r.lines_covered
        t.branches_total += r.branches_total
        t.branches_covered += r.branches_covered
        t.cases += r.cases
        if r.mcdc is not None:
            t.mcdc_conditions_total += r.mcdc.conditions_total
            t.mcdc_conditions_covered += r.mcdc.conditions_covered
    return t


def percent_text(covered: int, total: int) -> str:
    """`covered` of `total` as the tables show it (`-` when there is nothing to cover)."""
    return f"{100.0 * covered / total:.1f}%" if total else "-"


def _outcomes(os_: tuple[Outcome, ...], more: str = "") -> str:
    return ", ".join([*(f"{o.line}:{o.label}" for o in os_), *([more] if more else [])]) \
        or "-"


def format_table(rows: list[Row], missing: bool = False) -> list[str]:
    """The coverage table as terminal lines; with an MC/DC column when it was measured."""
    mcdc = any(r.mcdc is not None for r in rows)
    header = ("function", "cases", "C0", "C1", *(("MC/DC",) if mcdc else ()),
              "unreachable", "stop", "time")
    body: list[tuple[str, ...]] = []
    for r in rows:
        stop = r.stop_reason if r.stop_reason != STOP_SKIPPED else f"skipped: {r.skip_reason}"
        if r.not_reached and r.stop_reason != STOP_SKIPPED:
            stop += f" (not reached: {_outcomes(r.not_reached)})"
        if r.without_goal:
            stop += f" (no goal for gcov branches {', '.join(r.without_goal)})"
        stop += mcdc_notes(r.mcdc)
        body.append((f"{r.file}::{r.function}", str(r.cases),
                     percent_text(r.lines_covered, r.lines_total),
                     percent_text(r.branches_covered, r.branches_total),
                     *((mcdc_cell(r.mcdc),) if mcdc else ()),
                     _outcomes(r.unreachable, mcdc_infeasible(r.mcdc)), stop,
                     f"{r.generation_seconds:.2f}s"))
        more = mcdc_missing(r.mcdc) if mcdc else ""
        if missing and (r.missing_lines or r.missing_branches or more):
            body.append(("", "", "", "", *(("",) if mcdc else ()), "", "missing lines " + ",".join(
                map(str, r.missing_lines)) + "; branches " + ",".join(r.missing_branches)
                + more, ""))
    t = totals(rows)
    footer = ("TOTAL", str(t.cases), percent_text(t.lines_covered, t.lines_total),
              percent_text(t.branches_covered, t.branches_total),
              *((percent_text(t.mcdc_conditions_covered, t.mcdc_conditions_total),)
                if mcdc else ()), "", "", "")
    numbers = len(header) - 3  # the columns before `unreachable`, numbers right-aligned
    widths = [max(len(row[i]) for row in [header, footer, *body]) for i in range(numbers)]
    lines = []
    for row in [header, *body, footer]:
        cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i])
                                             for i in range(1, numbers)]
        lines.append("  ".join(cells + list(row[numbers:])).rstrip())
    return lines


def row_to_json(r: Row) -> dict[str, Any]:
    """A row as plain data (what an xdist worker sends to the controller)."""
    doc = asdict(r)
    doc.pop("mcdc")  # the controller measures it again from every worker's evaluations
    for key in ("unreachable", "not_reached"):
        doc[key] = [[o.line, o.column, o.label] for o in getattr(r, key)]
    return doc


def row_from_json(doc: dict[str, Any]) -> Row:
    fields = dict(doc)
    for key in ("unreachable", "not_reached"):
        fields[key] = tuple(Outcome(*o) for o in doc[key])
    for key in ("missing_lines", "missing_branches", "without_goal"):
        fields[key] = tuple(doc.get(key, ()))
    fields["mcdc_infeasible"] = tuple(tuple(p) for p in doc.get("mcdc_infeasible", ()))
    return Row(**fields)


def merge_rows(shares: list[list[Row]]) -> list[Row]:
    """One table from the rows of several processes that ran different cases of the same
    builds (pytest-xdist workers): the cases' outcomes add up, and a line or branch outcome
    is covered when any process covered it. A process that ran no case of a function
    measured nothing for it."""
    merged: dict[tuple[str, str], Row] = {}
    for share in shares:
        for r in share:
            key = (r.file, r.function)
            if key not in merged:
                merged[key] = replace(r)
                continue
            m = merged[key]
            m.passed += r.passed
            m.failed += r.failed
            if not r.measured:
                continue
            if not m.measured:
                m.lines_total, m.branches_total = r.lines_total, r.branches_total
                m.missing_lines, m.missing_branches = r.missing_lines, r.missing_branches
                m.measured = True
            else:
                m.missing_lines = tuple(x for x in m.missing_lines if x in r.missing_lines)
                m.missing_branches = tuple(x for x in m.missing_branches
                                           if x in r.missing_branches)
            m.lines_covered = m.lines_total - len(m.missing_lines)
            m.branches_covered = m.branches_total - len(m.missing_branches)
    return list(merged.values())
