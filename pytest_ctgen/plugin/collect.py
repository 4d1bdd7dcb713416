"""Collection: which files pytest-ctgen collects (C units with `--ctgen`, exported cases
files always), the collectors that generate or replay a file's cases, and the progress
lines generation prints."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..cases import STOP_SKIPPED
from ..errors import CtgenError
from ..export_files import CASES_SUFFIX, EXPORTED_C_FILES
from .items import CtgenCase, CtgenSkippedFunction
from .session import CTGEN_KEY, CtgenSession
from .tracing import trace_function

if TYPE_CHECKING:
    from ..pipeline import FileRun, Progress, ProgressFn


#: The C units `--ctgen` collects: C files and preprocessed ones (`.i`, as `gcc -E` writes
#: them; frontend.preprocessed.PREPROCESSED_SUFFIXES).
C_UNIT_SUFFIXES = (".c", ".i")
#: A header is a unit when it is named on the command line (a header-only library's
#: functions); in a directory, headers are only included by the units.
C_HEADER_SUFFIXES = (".h",)


def is_c_unit(path: Path, named: bool) -> bool:
    """Whether `--ctgen` takes `path` as a unit; `named`: it is a command-line argument."""
    return path.suffix in C_UNIT_SUFFIXES or (named and path.suffix in C_HEADER_SUFFIXES)


def collected_as_unit(path: Path, named: bool) -> bool:
    """Whether `--ctgen` generates cases for `path`: a C unit that no export wrote."""
    return is_c_unit(path, named) and not written_by_an_export(path)


def written_by_an_export(file_path: Path) -> bool:
    """The driver or unit copy of an export (an export inside the tree `--ctgen` walks):
    its cases are replayed from the JSON beside it, it is not a unit to test."""
    return file_path.name in EXPORTED_C_FILES and \
        any(file_path.parent.glob("*" + CASES_SUFFIX))


class _CasesFile(pytest.File):
    """A file whose functions' cases become items: one item per case, one skipped item per
    function generation skipped."""

    def items(self, session: CtgenSession, run: FileRun) -> Iterator[pytest.Item]:
        session.runs[self.path] = run
        for fn in run.generated.cases.functions:
            names = [f"{fn.name}[{case.id}]" for case in fn.cases]
            trace_function(session, f"{self.nodeid}::{fn.name}", fn,
                           [f"{self.nodeid}::{name}" for name in names])
            if fn.stop_reason == STOP_SKIPPED:
                yield CtgenSkippedFunction.from_parent(self, name=fn.name, function=fn,
                                                       run=run)
                continue
            for case, name in zip(fn.cases, names):
                # the id as text: pytest 9.2 parses "[...]" from it as the parameter part,
                # which --lf needs to match reports with items
                yield CtgenCase.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}",
                                            function=fn, case=case, run=run)


class CtgenFile(_CasesFile):
    """A C source file: its cases are generated (or taken from the cache)."""

    def collect(self) -> Iterator[pytest.Item]:
        from ..pipeline import FileRun, Progress, generate_file, unbuildable

        session: CtgenSession = self.config.stash[CTGEN_KEY]
        problem = unbuildable(self.path, session.options.sources_for(self.path))
        if problem:
            raise self.CollectError(f"{display(self.config, self.path)}: {problem}")
        printer = _progress_printer(self.config)
        try:
            generated = generate_file(self.path, display(self.config, self.path),
                                      session.options, session.generated_dir,
                                      progress=printer, fresh_since=session.started)
        except CtgenError as err:
            raise self.CollectError(str(err)) from None
        assert generated is not None  # waited for the cache entry's lock
        unit = str(self.path)
        session.generated_files[unit] = session.generated_files.get(unit, False) or \
            not generated.from_cache or generated.ahead
        if generated.ahead and printer is not None:  # the lines its generation would show
            for fn in generated.cases.functions:
                printer(Progress.done(generated.cases.source, fn,
                                      generated.seconds.get(fn.name, fn.generation_seconds)))
        yield from self.items(session, FileRun(self.path, generated, session.options,
                                               session.build_dir,
                                               session_start=session.started))


def display(config: pytest.Config, path: Path) -> str:
    """A unit's path as shown in ids and reports: relative to the rootdir when inside it."""
    return path.relative_to(config.rootpath).as_posix() \
        if path.is_relative_to(config.rootpath) else str(path)


def _progress_printer(config: pytest.Config) -> ProgressFn | None:
    """One line per generated function (`ctgen tritype.c::tritype 8 cases 100% C1 0.4s`,
    C1 as the generator reckons it; gcov measures later), and one every few seconds for a
    function that takes long. Not with -q, nor on an xdist worker (no terminal)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or config.get_verbosity() < 0 or hasattr(config, "workerinput"):
        return None

    def write(line: str) -> None:
        if capture is None:
            reporter.write_line(line)
            return
        with capture.global_and_fixture_disabled():  # collection runs captured
            reporter.write_line(line)

    def show(p: Progress) -> None:
        where = f"ctgen {p.file}::{p.function}"
        if p.state == "working":
            write(f"{where} still working ({p.seconds:.0f}s)")
        elif p.state == "done":
            if p.stop_reason == STOP_SKIPPED:
                write(f"{where} skipped {p.seconds:.1f}s")
                return
            c1 = f"{100.0 * p.outcomes_covered / p.outcomes_total:.0f}% C1" \
                if p.outcomes_total else "no branches"
            plural = "case" if p.cases == 1 else "cases"
            write(f"{where} {p.cases} {plural} {c1} {p.seconds:.1f}s")

    return show


class CtgenReplayFile(_CasesFile):
    """An exported `name.ctgen.json`: its cases run against the unit as it is now, with no
    solver and no generation, so a change of the unit's behaviour fails them."""

    def collect(self) -> Iterator[pytest.Item]:
        from ..pipeline import replay_run

        session: CtgenSession = self.config.stash[CTGEN_KEY]
        try:
            run = replay_run(self.path, session.options, session.build_dir,
                             roots=(self.config.rootpath, self.config.invocation_params.dir),
                             session_start=session.started)
        except CtgenError as err:
            session.replay_errors += 1  # the other files still replay
            raise self.CollectError(str(err)) from None
        yield from self.items(session, run)
