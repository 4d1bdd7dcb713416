"""A file's generated cases and the run of them: the harness built on first use (with the
unit, or a copy of it where annotations or specifications need one), each case run in it,
and what gcov and the MC/DC build measure of the runs."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .cache_bound import unit_group
from .cases import FileCases, stopped_loops
from .coverage.mcdc_file import McdcFile
from .errors import CtgenError
from .frontend.preprocess import preprocess
from .options import Options

if TYPE_CHECKING:  # the engine's run-time parts are imported when a run needs them
    from .coverage.gcov import FunctionCoverage
    from .runner.build import Build, HarnessLibrary
    from .runner.execute import CaseRun


@dataclass
class Generated:
    """The cases of a file and how long generating each function took (0 when cached);
    `ahead`: taken from the cache, where a process generating ahead of the session's
    collection put them (plugin/ahead.py)."""

    cases: FileCases
    seconds: dict[str, float] = field(default_factory=dict)
    from_cache: bool = False
    preprocessed: str = ""
    ahead: bool = False





def unit_for_build(path: Path, cases: FileCases, flags: list[str]
                   ) -> tuple[str, dict[str, str], list[str]]:
    """How the harness of `cases` includes the unit `path`: by its path, or, when the unit
    uses annotations, specifies external functions itself or is preprocessed, as a copy
    beside the harness (see codegen.unit_copy); and the files and flags that takes."""
    from .codegen.unit_copy import unit_copy_text
    from .export_files import UNIT_COPY

    copy = unit_copy_text(path, str(path), cases.stubs, cases.source,
                          loops=stopped_loops(cases))
    if copy is None:
        return str(path), {}, flags
    # the copy's quoted includes are looked up where the unit is
    return UNIT_COPY, {UNIT_COPY: copy}, ["-iquote", str(path.parent), *flags]


class FileRun:
    """The compiled harness of one file's cases, built on first use, and its runs."""

    def __init__(self, path: Path, generated: Generated, options: Options,
                 build_dir: Path | None, *, cflags: Sequence[str] | None = None,
                 sources: Sequence[Path] | None = None,
                 missing: frozenset[str] = frozenset(),
                 session_start: float | None = None) -> None:
        self.path = path.resolve()
        self.generated = generated
        self.options = options
        self.build_dir = build_dir
        # the builds in `build_dir` used since then stay (cache_bound.prune)
        self.session_start = session_start
        # how the unit is built: the session's options, or an export's recipe (replay)
        self.cflags = list(cflags) if cflags is not None else \
            options.compiler_flags(self.path)
        self.sources = list(sources) if sources is not None else \
            list(options.sources_for(self.path))
        self._lib: HarnessLibrary | None = None
        self._build: Build | None = None
        self._error: CtgenError | None = None
        # a replay's functions the unit no longer defines: their cases are not built
        self.missing = missing
        self.built = replace(generated.cases, functions=tuple(
            f for f in generated.cases.functions if f.name not in missing))
        self.index = {(c.function, c.number): i
                      for i, c in enumerate(self.built.all_cases())}
        self.findings = {(c.function, c.number): c.finding
                         for c in self.built.all_cases() if c.finding}
        self.ran = False
        self.results: dict[tuple[str, int], bool] = {}  # (function, case number) -> passed

    @property
    def build_directory(self) -> Path | None:
        """Where the harness was built and its gcov data is (None before the build)."""
        return self._build.directory if self._build is not None else None

    def library(self) -> HarnessLibrary:
        from .codegen.harness import generate_harness
        from .runner.build import build_harness, clear_coverage_data, load_library

        if self._error is not None:
            raise self._error
        if self._lib is None:
            try:
                unit_include, extra_files, cflags = unit_for_build(
                    self.path, self.built, self.cflags)
                sources = [str(p.resolve()) for p in self.sources]
                try:
                    source = generate_harness(self.built, unit_include, sources)
                except ValueError as err:  # cases that do not fit the unit as it is now
                    raise CtgenError(f"cannot generate the harness: {err}") from None
                key_material = self.generated.preprocessed or preprocess(
                    self.path, self.cflags, tuple(self.sources))
                self._build = build_harness(
                    source, cflags=cflags, key_material=key_material,
                    cache_dir=None if self.build_dir is None
                    else self.build_dir / unit_group(str(self.path)),
                    extra_files=extra_files, prune_others=self.build_dir is not None,
                    session_start=self.session_start)
                clear_coverage_data(self._build)
                self._lib = load_library(self._build)
            except CtgenError as err:
                self._error = err
                raise
        return self._lib

    def finish(self) -> None:
        """The session is over: this process writes its coverage counters now, so that it
        writes nothing into the build directory at its exit (which may be gone by then)."""
        if self._lib is not None:
            self._lib.final_flush()

    def run(self, function: str, number: int) -> CaseRun:
        from .runner.execute import FAILED, ISOLATE_FORK, CaseRun, run_case

        if function in self.missing:
            raise CtgenError(f"{function} is not defined in {self.path.name} any more: "
                             "its cases cannot run")
        lib = self.library()
        finding = self.findings.get((function, number))
        if finding is not None and self.options.isolate != ISOLATE_FORK:
            self.results[(function, number)] = False
            return CaseRun(FAILED, f"{finding}; not run: without --ctgen-isolate fork it "
                                   "could end the session")
        self.ran = True
        result = run_case(lib, self.index[(function, number)], self.options.case_timeout,
                          self.options.isolate)
        self.results[(function, number)] = result.passed
        return result

    def coverage(self) -> dict[str, FunctionCoverage]:
        from .coverage.gcov import measure

        if self._build is None or not self.ran:
            return {}
        if self.options.isolate != "fork" and self._lib is not None:
            self._lib.flush_coverage()
        return measure(self._build.directory, self.path, defined={
            fn.name: fn.line for fn in self.generated.cases.functions})

    def mcdc(self) -> McdcFile | None:
        """The unit's MC/DC measured on the cases that ran here, each run again in an
        instrumented build of their harness (runner/mcdc.py); None when none ran."""
        from .runner.execute import ISOLATE_FORK
        from .runner.mcdc import cases_that_ran, run_mcdc

        ran = {key for key in self.results
               if self.options.isolate == ISOLATE_FORK or key not in self.findings}
        if not ran:
            return None
        cache = None if self.build_dir is None \
            else self.build_dir / unit_group("mcdc\0" + str(self.path))
        measured = run_mcdc(self.path, cases_that_ran(self.built, ran), self.cflags,
                            sources=self.sources, timeout=self.options.case_timeout,
                            isolate=self.options.isolate, cache_dir=cache)
        return measured.as_file(self.generated.cases.source)
