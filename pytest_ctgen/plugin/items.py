"""The items of a collected file: one per generated case, run against the built harness
and reported with its inputs and predictions when it fails, and one per function the
generator skipped."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..cases import LEAK, Case, FunctionCases, leak_message
from ..case_writer import value_text
from ..errors import CtgenError
from .session import CTGEN_KEY, CtgenSession

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from ..pipeline import FileRun


class CaseFailed(Exception):
    """A generated case whose run differed from the prediction, crashed or hung."""


class CtgenCase(pytest.Item):
    def __init__(self, *, function: FunctionCases, case: Case, run: FileRun,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.case = case
        self.run = run
        self.add_marker(pytest.mark.ctgen)
        if case.requirements:
            self.add_marker(pytest.mark.ctgen_requirement(*case.requirements))
        for req in case.requirements:
            if _requirement_marker(self.config, req):
                self.add_marker(req)
            self.user_properties.append(("requirement", req))

    def runtest(self) -> None:
        result = self.run.run(self.case.function, self.case.number)
        if not result.passed:
            raise CaseFailed(result.message or result.status)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, (CaseFailed, CtgenError)):
            lines = [f"{self.function.name}[{self.case.id}]: {excinfo.value}"]
            if self.case.setup:
                lines.append("setup:")
                lines.extend(f"  {call.function}("
                             + ", ".join(f"{b.name} = {_show(b.value)}" for b in call.params)
                             + ")" for call in self.case.setup)
            lines.append("inputs:")
            for b in self.case.params:
                lines.append(f"  {b.name} = {_show(b.value)}")
            for b in self.case.globals:
                lines.append(f"  {b.name} = {_show(b.value)} (global)")
            for b in self.case.objects:
                lines.append(f"  {b.name} = {_show(b.value)}")
            inputs = {s.name: s.callback for s in self.function.callbacks}
            for s in self.case.stubs:
                calls = ", ".join(_show(c.returns) if c.returns is not None else "-"
                                  for c in s.calls)
                pointed = f" (the callback {inputs[s.name]} points to)" \
                    if s.name in inputs else ""
                lines.append(f"  {s.name}() returns {calls}{pointed}")
            exp = self.case.expected
            lines.append("predicted:")
            if self.case.finding is not None:
                lines.append(f"  ends: {self.case.finding}")
            elif exp.ending is not None:
                status = f" with status {exp.exit_status}" if exp.exit_status is not None \
                    else ""
                lines.append(f"  ends: {exp.loop_stop or exp.ending}{status}")
            if exp.returns is not None:
                lines.append(f"  return {_show(exp.returns)}")
            for b in exp.globals + exp.objects:
                lines.append(f"  {b.name} = {_show(b.value)}")
            lines.extend(f"  {leak_message(v)}" for v in self.case.violations
                         if v.kind == LEAK)
            lines.extend(f"note: {note}" for note in self.case.notes)
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # the C function, also for a replayed export, so test explorers jump to it
        return self.run.path, self.function.line - 1, self.name


class CtgenSkippedFunction(pytest.Item):
    """A function the generator could not handle; it is reported as skipped with the reason."""

    def __init__(self, *, function: FunctionCases, run: FileRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.run = run

    def runtest(self) -> None:
        raise pytest.skip.Exception(self.function.skip_reason or "not supported",
                                    _use_item_location=True)

    def reportinfo(self) -> tuple[Path, int, str]:
        # the C function, also for a replayed export, so test explorers jump to it
        return self.run.path, self.function.line - 1, self.name


# Marker names a requirement id must not take: pytest's own and pytest-ctgen's.
_RESERVED_MARKERS = frozenset({
    "skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tryfirst",
    "trylast", "ctgen", "ctgen_requirement"})


def _requirement_marker(config: pytest.Config, req: str) -> bool:
    """Register a marker named like the requirement id `req` (so `-m REQ-12` selects its
    cases under --strict-markers too); False when no marker can have that name: pytest's
    `markers` setting ends a name at ":" or "(", and a name may not start with "_"."""
    if (not req or req.startswith("_") or any(ch in req for ch in ":(")
            or req != req.strip() or req in _RESERVED_MARKERS):
        return False
    session: CtgenSession | None = config.stash.get(CTGEN_KEY, None)
    if session is not None and req not in session.requirement_markers:
        session.requirement_markers.add(req)
        config.addinivalue_line("markers", f"{req}: requirement {req} (pytest-ctgen)")
    return True


def _show(v: Any) -> str:
    return value_text(v)
