"""The report files of `--ctgen-report`: what a report spec names, the session's units, and
writing the coverage table as JSON (`json:FILE`), gcovr's Cobertura XML (`xml:FILE`) and the
HTML report (`html:DIR`: gcovr's pages, a control-flow picture per function, and
`ctgen.html` listing every function with its picture)."""
from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..coverage.lines import MeasuredUnit, measure_unit
from ..errors import CtgenError
from .cfg_picture import LEGEND, Picture, write_pictures
from .gcovr import HTML_INDEX, link_from_index, report_root, write_cobertura, write_html
from .mcdc_table import (
    cobertura_with_mcdc,
    mcdc_cell,
    mcdc_infeasible,
    mcdc_missing,
    mcdc_notes,
)
from .table import Row, Totals, percent_text

#: What `--ctgen-report` accepts: kind -> whether it takes a target after "kind:".
#: `mcdc` is no report of its own: MC/DC is measured and every report shows it.
REPORT_KINDS: dict[str, bool] = {
    "term": False, "term-missing": False, "json": True, "html": True, "xml": True,
    "mcdc": False}
_TARGET_NAMES = {"json": "FILE", "html": "DIR", "xml": "FILE"}


@dataclass(frozen=True)
class ReportSpec:
    """One `--ctgen-report` value: its kind and, for a file report, where it goes."""

    kind: str
    target: str = ""


def parse_report_spec(spec: str) -> ReportSpec:
    """`spec` as a ReportSpec. Raises ValueError with a message for the user."""
    kind, colon, target = str(spec).strip().partition(":")
    kinds = ", ".join(f"{k}:{_TARGET_NAMES[k]}" if t else k for k, t in REPORT_KINDS.items())
    if kind not in REPORT_KINDS:
        raise ValueError(f"--ctgen-report: unknown report {spec!r}; use one of {kinds}")
    if REPORT_KINDS[kind] and not target.strip():
        raise ValueError(f"--ctgen-report: {kind} needs a {_TARGET_NAMES[kind]}: "
                         f"{kind}:{_TARGET_NAMES[kind]}")
    if not REPORT_KINDS[kind] and colon:
        raise ValueError(f"--ctgen-report: {kind} takes no argument (got {spec!r})")
    return ReportSpec(kind, target.strip())


def write_json(path: Path, rows: list[Row], total: Totals) -> None:
    """The `--ctgen-report json:FILE` document (DESIGN §2); with MC/DC measured, each
    function's `mcdc` (conditions_total 0: it has no decision of two or more conditions;
    None: its unit was not measured) and the totals'."""
    mcdc = any(r.mcdc is not None for r in rows)
    doc: dict[str, Any] = {
        "functions": [{
            "file": r.file, "function": r.function, "line": r.line,
            "cases": r.cases, "passed": r.passed, "failed": r.failed,
            "boundary_cases": r.boundary_cases,
            "lines_total": r.lines_total, "lines_covered": r.lines_covered,
            "branches_total": r.branches_total, "branches_covered": r.branches_covered,
            "unreachable": [{"line": o.line, "outcome": o.label} for o in r.unreachable],
            "not_reached": [{"line": o.line, "outcome": o.label} for o in r.not_reached],
            "without_goal": [{"line": int(line), "branch": int(number)}
                             for line, _, number in (o.partition(":") for o in r.without_goal)],
            **({"mcdc": r.mcdc.to_json() if r.mcdc is not None else None} if mcdc else {}),
            "stop_reason": r.stop_reason, "generation_seconds": round(r.generation_seconds, 3),
        } for r in rows],
        "totals": {"lines_total": total.lines_total, "lines_covered": total.lines_covered,
                   "branches_total": total.branches_total,
                   "branches_covered": total.branches_covered},
    }
    if mcdc:
        doc["totals"]["mcdc"] = {"conditions_total": total.mcdc_conditions_total,
                                 "conditions_covered": total.mcdc_conditions_covered}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


# ------------------------------------------------------------------- the session's units


@dataclass(frozen=True)
class ReportUnit:
    """What the reports need of one unit of the session: where it is and how it is shown,
    the harness builds holding its gcov data (one per xdist worker that ran its cases),
    and how to preprocess it for its CFGs. `to_json` makes it something an xdist worker
    can send to the controller."""

    source: Path
    shown: str
    builds: tuple[Path, ...]
    cflags: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()  # analysed with the unit (specifications, sources)
    preprocessed: str = field(default="", compare=False, repr=False)  # if known already

    def to_json(self) -> dict[str, Any]:
        return {"source": str(self.source), "shown": self.shown,
                "builds": [str(b) for b in self.builds], "cflags": list(self.cflags),
                "files": [str(f) for f in self.files]}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> ReportUnit:
        return cls(Path(doc["source"]), str(doc["shown"]),
                   tuple(Path(b) for b in doc["builds"]), tuple(doc.get("cflags", ())),
                   tuple(Path(f) for f in doc.get("files", ())))


def report_units(runs: Mapping[Path, Any]) -> list[ReportUnit]:
    """The units of the session's runs (`CtgenSession.runs`, file_run.FileRun) whose
    harness was built and ran cases, so that it has gcov data."""
    units = []
    for run in runs.values():
        if run.build_directory is None or not run.ran:
            continue
        text = run.generated.preprocessed
        # what generation preprocessed the unit with; a replayed export: what it builds with
        files = run.options.files_for(run.path) if text else run.sources
        units.append(ReportUnit(run.path, run.generated.cases.source, (run.build_directory,),
                                tuple(run.cflags), tuple(files), text))
    return units


def merge_report_units(*groups: Iterable[ReportUnit]) -> list[ReportUnit]:
    """The units of several processes (xdist workers) with their builds joined, in the
    order they first appear."""
    merged: dict[Path, ReportUnit] = {}
    for unit in (u for group in groups for u in group):
        known = merged.get(unit.source)
        if known is None:
            merged[unit.source] = unit
        else:
            builds = known.builds + tuple(b for b in unit.builds if b not in known.builds)
            merged[unit.source] = replace(known, builds=builds)
    return list(merged.values())


def unit_program(unit: ReportUnit) -> Any:  # -> ir.lower.Program
    """The lowered unit, as generation lowered it."""
    from ..frontend.loader import load_unit
    from ..frontend.preprocess import preprocess
    from ..ir.lower import lower_unit

    text = unit.preprocessed or preprocess(unit.source, list(unit.cflags), unit.files)
    return lower_unit(load_unit(unit.source, list(unit.cflags), preprocessed=text))


def _stems(units: Sequence[ReportUnit]) -> dict[Path, str]:
    """A file-name part per unit for its pictures: the file's stem, or its shown path
    when two units have the same stem."""
    stems = {u.source: u.source.stem for u in units}
    clashing = {s for s in stems.values() if list(stems.values()).count(s) > 1}
    for u in units:
        if stems[u.source] in clashing:
            stems[u.source] = os.path.splitext(u.shown)[0]
    return {p: re.sub(r"[^\w.-]+", "_", s).strip("_") or "unit" for p, s in stems.items()}


def write_coverage_reports(units: Sequence[ReportUnit], rows: Sequence[Row],
                           specs: Iterable[ReportSpec], root: Path,
                           dot_executable: str | None = None) -> list[Path]:
    """Write the `html:DIR` and `xml:FILE` reports among `specs` of the session's `units`
    (`report_units`), whose coverage table is `rows` (`table.Row`); file names in them
    are relative to `root`. Returns what was written (HTML index pages, XML files).

    Raises:
        CoverageError: gcovr failed.
    """
    wanted = [s for s in specs if s.kind in ("html", "xml")]
    if not wanted:
        return []
    measured = [measure_unit(u.builds, u.source) for u in units]
    written = []
    for spec in wanted:
        if spec.kind == "xml":
            write_cobertura(measured, Path(spec.target), root)
            if any(r.mcdc is not None for r in rows):
                _add_mcdc(Path(spec.target), units, measured, rows, root)
            written.append(Path(spec.target))
        else:
            written.append(write_html_report(Path(spec.target), units, measured, rows, root,
                                             dot_executable))
    return written


def _add_mcdc(xml: Path, units: Sequence[ReportUnit], measured: Sequence[MeasuredUnit],
              rows: Sequence[Row], root: Path) -> None:
    """The MC/DC of `rows` into the Cobertura report `xml` (report_root: what gcovr
    names the units relative to)."""
    base = report_root(measured, root)
    names = {Path(os.path.relpath(u.source, base)).as_posix(): u.shown for u in units}
    text = xml.read_text(encoding="utf-8")
    xml.write_text(cobertura_with_mcdc(text, rows, names), encoding="utf-8")


#: The page of the HTML report that lists every function with its picture.
CTGEN_INDEX = "ctgen.html"


def write_html_report(out_dir: Path, units: Sequence[ReportUnit],
                      measured: Sequence[MeasuredUnit], rows: Sequence[Row], root: Path,
                      dot_executable: str | None = None) -> Path:
    """gcovr's HTML report of `measured` in `out_dir`, the picture of each function of
    `units` in `out_dir/cfg/`, and `ctgen.html` listing every row with its C0, C1,
    picture and gcovr page, linked from gcovr's index page. Returns `ctgen.html`."""
    out_dir = Path(out_dir)
    pages = write_html(measured, out_dir, root)
    stems = _stems(units)
    pictures: dict[tuple[str, str], Picture] = {}
    problems: dict[str, str] = {}
    for stale in sorted((out_dir / "cfg").glob("*.*")):  # pictures of an earlier session
        if stale.suffix in (".dot", ".svg") and stale.is_file():
            stale.unlink()
    for unit, data in zip(units, measured, strict=True):
        mine = [r for r in rows if r.file == unit.shown]
        try:
            program = unit_program(unit)
        except CtgenError as err:
            problems[unit.shown] = f"no pictures: {err}"
            continue
        titles = {r.function: f"{r.file}::{r.function}   C0 "
                              f"{percent_text(r.lines_covered, r.lines_total)}   C1 "
                              f"{percent_text(r.branches_covered, r.branches_total)}"
                              + (f"   MC/DC {mcdc_cell(r.mcdc)}" if r.mcdc else "")
                   for r in mine}
        drawn = write_pictures(out_dir / "cfg", stems[unit.source], program,
                               {r.function: r.unreachable for r in mine}, data.lines(),
                               titles, dot_executable)
        pictures.update({(unit.shown, name): p for name, p in drawn.items()})
    page_of = {u.shown: pages.get(u.source) for u in units}
    index = out_dir / CTGEN_INDEX
    index.write_text(_index_page(out_dir, rows, pictures, page_of, problems), encoding="utf-8")
    link_from_index(out_dir, CTGEN_INDEX, "pytest-ctgen: every function with its C0, C1 "
                                          "and control-flow picture")
    return index


def _index_page(out_dir: Path, rows: Sequence[Row], pictures: Mapping[tuple[str, str], Picture],
                pages: Mapping[str, str | None], problems: Mapping[str, str]) -> str:
    def link(target: Path | str | None, text: str) -> str:
        if target is None:
            return ""
        href = Path(target).relative_to(out_dir).as_posix() if isinstance(target, Path) \
            else target
        return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'

    mcdc = any(r.mcdc is not None for r in rows)
    body = []
    for r in rows:
        pic = pictures.get((r.file, r.function))
        if pic is not None:
            drawn = " ".join(x for x in (link(pic.svg, "svg"), link(pic.dot, "dot")) if x)
        else:
            drawn = html.escape(r.skip_reason or problems.get(r.file, "no picture"))
        unreachable = ", ".join([*(f"{o.line}:{o.label}" for o in r.unreachable),
                                 *filter(None, [mcdc_infeasible(r.mcdc)])]) or "-"
        body.append(
            "<tr>" + "".join(f"<td>{cell}</td>" for cell in (
                link(pages.get(r.file), r.file) or html.escape(r.file),
                html.escape(r.function), str(r.cases),
                percent_text(r.lines_covered, r.lines_total),
                percent_text(r.branches_covered, r.branches_total),
                *((html.escape(mcdc_cell(r.mcdc) + mcdc_notes(r.mcdc)
                               + mcdc_missing(r.mcdc)),) if mcdc else ()),
                html.escape(unreachable), drawn)) + "</tr>")
    mcdc_head, mcdc_text = ("<th>MC/DC</th>", (
        " MC/DC: the conditions of decisions with two or more shown to affect their "
        "decision independently, of all; - where a function has no such decision.")) \
        if mcdc else ("", "")
    left = 7 if mcdc else 6  # the unreachable column, left-aligned
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8"/>',
        "<title>pytest-ctgen: functions</title>",
        ("<style>body{font-family:sans-serif;margin:1em} table{border-collapse:collapse} "
         "td,th{border:1px solid #ccc;padding:0.2em 0.6em} td:nth-child(n+3){text-align:right}"
         f" td:last-child,td:nth-child({left}){{text-align:left}}</style>"),
        "</head>", "<body>", f'<p><a href="{HTML_INDEX}">gcovr\'s report</a></p>',
        "<h1>pytest-ctgen: functions</h1>",
        ("<p>C0 and C1 as gcov measured them (the terminal table's numbers)." + mcdc_text
         + " The pictures show each function's control flow: "
         f"{html.escape('; '.join(LEGEND))}.</p>"),
        "<table>", ("<tr><th>file</th><th>function</th><th>cases</th><th>C0</th><th>C1</th>"
                    f"{mcdc_head}<th>unreachable</th><th>control flow</th></tr>"),
        *body, "</table>", "</body>", "</html>", ""])
