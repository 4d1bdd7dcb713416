"""Requirement tracing in a session: what each collected function declares and carries,
each case's outcome from pytest's reports, and at the end the traceability matrix
(`--ctgen-trace FILE`); under pytest-xdist, what the workers collected goes to the
controller."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..cases import FunctionCases
from .session import CtgenSession
from .settings import setting


def trace_function(session: CtgenSession, function: str, fn: FunctionCases,
                   nodeids: list[str]) -> None:
    """Keep what a collected function declares and carries for the traceability matrix."""
    from ..pipeline import traced_function

    session.traced.append(traced_function(function, fn, nodeids))


class RequirementTrace:
    """Gathers each case's outcome from pytest's reports and, at the end of the session,
    builds the traceability matrix and writes `--ctgen-trace`. Under pytest-xdist a worker
    sends what it collected to the controller, which gets every report and writes the file.
    A session without generated cases leaves the engine unimported."""

    def __init__(self, config: pytest.Config, ctgen: CtgenSession) -> None:
        self.config = config
        self.ctgen = ctgen

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if "ctgen" not in report.keywords:
            return  # not a generated case (the ctgen marker): the matrix never asks for it
        from ..pipeline import report_outcome

        outcomes = self.ctgen.outcomes
        outcomes[report.nodeid] = report_outcome(outcomes.get(report.nodeid), report.when or "",
                                                 report.outcome)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist, on the controller: what a worker collected (every worker collects
        every file, so the first one that sends it is enough)."""
        data = getattr(node, "workeroutput", {}).get("ctgen_trace")
        if data and not self.ctgen.traced:
            from ..pipeline import functions_from_json

            self.ctgen.traced.extend(functions_from_json(data))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        trace = setting(self.config, "trace", None)
        if not self.ctgen.traced and not trace:
            return  # nothing traced, nothing asked for: the matrix would be empty
        from ..pipeline import build_matrix, functions_to_json, write_trace

        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller writes the matrix
            workeroutput["ctgen_trace"] = functions_to_json(self.ctgen.traced)
            return
        self.ctgen.matrix = build_matrix(self.ctgen.traced, self.ctgen.outcomes)
        if trace:
            write_trace(Path(trace), self.ctgen.matrix)
