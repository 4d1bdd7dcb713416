"""The end of a session: after the run loop, what gcov measured of every run, the coverage
table, the exports, the report files and the coverage gates; then the terminal summary."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..cases import STOP_TIME
from ..errors import CtgenError
from .session import CtgenSession
from .settings import measures_mcdc, report_specs, setting

if TYPE_CHECKING:
    from ..pipeline import Row, Totals


def finish_run_loop(session: pytest.Session, ctgen: CtgenSession) -> None:
    """After the run loop: measure every run, make the coverage table (an xdist worker its
    share, the controller every worker's merged), export, and on the controller write the
    report files and apply the gates. A session without pytest-ctgen's work, and asking
    for no report or export, has nothing to do here and leaves the engine unimported."""
    config = session.config
    if not (ctgen.runs or any(ctgen.worker_rows) or setting(config, "report", None)
            or setting(config, "export", None)):
        return
    from ..pipeline import (
        account_outcomes,
        coverage_rows,
        export_runs,
        merge_rows,
        totals,
    )

    for path, run in ctgen.runs.items():
        try:
            ctgen.coverage[path] = run.coverage()
        except CtgenError as err:
            ctgen.gate_failures.append(f"coverage of {path}: {err}")
    if ctgen.worker_rows:  # an xdist controller: every worker's share, merged
        ctgen.rows = merge_rows(ctgen.worker_rows)
    else:
        ctgen.rows = coverage_rows(ctgen.runs, ctgen.coverage)
    if measures_mcdc(config):
        _measure_mcdc(ctgen)
    worker = getattr(config, "workerinput", None)
    if worker is None:  # the session's whole coverage: every outcome left is listed
        ctgen.rows = [account_outcomes(r) for r in ctgen.rows]
    rows = ctgen.rows
    total = totals(rows)
    export = setting(config, "export", None)
    if export and (worker is None or worker.get("workerid") == "gw0"):
        # every xdist worker collected every file; a unit that cannot be exported is a
        # gate failure, the others are exported still
        ctgen.gate_failures.extend(
            f"export: {problem}" for problem in export_runs(
                ctgen.runs.values(), Path(export), mcdc=measures_mcdc(config)))
    if worker is not None:
        return  # the controller writes the reports and applies the gates, on every share
    _write_reports(config, ctgen, rows, total)
    _apply_gates(config, ctgen, total)
    if ctgen.gate_failures:
        session.testsfailed += 1


def _measure_mcdc(ctgen: CtgenSession) -> None:
    """MC/DC of every run (each case that ran, run again in an instrumented build), and
    on an xdist controller every worker's, joined; then in the table's rows."""
    from ..pipeline import merge_mcdc_files, with_mcdc

    for path, run in ctgen.runs.items():
        try:
            measured = run.mcdc()
        except CtgenError as err:
            ctgen.gate_failures.append(f"MC/DC of {path}: {err}")
            continue
        if measured is not None:
            ctgen.mcdc_files.append(measured)
    shares = [*ctgen.worker_mcdc, ctgen.mcdc_files]
    ctgen.rows = with_mcdc(ctgen.rows, merge_mcdc_files(f for share in shares for f in share))


def _apply_gates(config: pytest.Config, ctgen: CtgenSession, total: Totals) -> None:
    """`--ctgen-fail-under`, `--ctgen-fail-under-line` and `--ctgen-fail-under-mcdc` on
    the session's totals."""
    for name, key, pct in (("branch", "fail_under", total.branch_percent),
                           ("line", "fail_under_line", total.line_percent),
                           ("MC/DC", "fail_under_mcdc", total.mcdc_percent)):
        limit = setting(config, key, None)
        if limit is not None and pct is not None and pct < float(limit):
            counts = f" ({total.mcdc_conditions_covered} of {total.mcdc_conditions_total} " \
                "conditions shown to affect their decision)" if key == "fail_under_mcdc" else ""
            ctgen.gate_failures.append(
                f"FAIL Required {name} coverage of {float(limit):g}% not reached. "
                f"Total {name} coverage: {pct:.2f}%{counts}")


def _write_reports(config: pytest.Config, ctgen: CtgenSession, rows: list[Row],
                   total: Totals) -> None:
    """The report files `--ctgen-report` asks for (json:FILE, html:DIR, xml:FILE)."""
    from ..pipeline import (
        merge_report_units,
        parse_report_spec,
        report_units,
        write_coverage_reports,
        write_json,
    )

    # checked in pytest_configure
    specs = [parse_report_spec(s) for s in report_specs(config)]
    for spec in specs:
        if spec.kind == "json":
            write_json(Path(spec.target), rows, total)
    if any(s.kind in ("html", "xml") for s in specs):  # gcovr's reports of all units
        # on an xdist controller: every worker's builds, whose gcov data gcovr merges
        units = merge_report_units(*ctgen.worker_units) if ctgen.worker_rows else \
            report_units(ctgen.runs)
        try:
            write_coverage_reports(units, rows, specs, config.rootpath)
        except CtgenError as err:
            ctgen.gate_failures.append(f"coverage report: {err}")


def write_summary(terminalreporter: Any, config: pytest.Config, ctgen: CtgenSession) -> None:
    """pytest-ctgen's part of the terminal summary: the coverage table, how the cases were
    got, the functions whose cases depend on the machine, the annotations' verdicts, the
    requirements and the gates that failed."""
    # asking for reports replaces term (`mcdc` asks for a measurement, not a report)
    specs = [s for s in report_specs(config) if s != "mcdc"] or ["term"]
    missing = any(s == "term-missing" for s in specs)
    if ctgen.rows and any(s in ("term", "term-missing") for s in specs):
        from ..pipeline import format_table

        terminalreporter.write_sep("-", "ctgen coverage (gcov)")
        for line in format_table(ctgen.rows, missing=missing):
            terminalreporter.write_line(line)
    if ctgen.generated_files and config.get_verbosity() >= 0:
        generations = sum(ctgen.generated_files.values())
        cached = sum(1 for n in ctgen.generated_files.values() if not n)
        files = len(ctgen.generated_files)
        # each file is generated once, also by several xdist workers together: then
        # generated + from the cache == files
        terminalreporter.write_line(
            f"ctgen generation: {files} file{'s' if files != 1 else ''}: {generations} "
            f"generated, {cached} from the cache")
    timed_out = [f"{r.file}::{r.function}" for r in ctgen.rows if r.stop_reason == STOP_TIME]
    if timed_out:
        terminalreporter.write_line(
            f"ctgen: not reproducible: generation of {len(timed_out)} "
            f"function{'s' if len(timed_out) != 1 else ''} stopped at the time budget "
            f"(--ctgen-timeout) before the work budget (--ctgen-work), so their cases "
            f"depend on this machine's speed and load: {', '.join(timed_out)}", yellow=True)
    boundary = sum(r.boundary_cases for r in ctgen.rows)
    if boundary:
        terminalreporter.write_line(
            f"ctgen boundary cases: {boundary} of {sum(r.cases for r in ctgen.rows)} cases "
            "decide a comparison with its sides equal or one apart, give a comparison used "
            "as a value another outcome, run a loop's body more than once before leaving "
            "it, stop a loop where one more pass would act or leave it by the only pass "
            "that would, give an operation operands that tell its operator, show an "
            "operation's result computed by mistake in an output or a branch, let an "
            "assigned value decide a comparison, or give a path an output other than 0 or "
            "a constant "
            "returned elsewhere (--ctgen-boundary-cases)")
    verdicts = ctgen.worker_verdicts
    if not verdicts and ctgen.runs:
        from ..pipeline import annotation_verdicts

        verdicts = annotation_verdicts(run.generated.cases for run in ctgen.runs.values())
    for line in verdicts:
        terminalreporter.write_line(line)
    if ctgen.matrix and config.get_verbosity() >= -1:  # shown with -q, not with -qq
        from ..pipeline import matrix_summary

        terminalreporter.write_line(f"ctgen requirements: {matrix_summary(ctgen.matrix)}")
    for failure in ctgen.gate_failures:
        terminalreporter.write_line(failure, red=True, bold=True)
