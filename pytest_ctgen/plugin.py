"""The pytest plugin: options, collection of C files into case items, the coverage table and
the coverage gates. The engine (`pipeline`) is imported only when `--ctgen` is used."""
from __future__ import annotations

import functools
import json
import os
import re
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

from .cases import STOP_SKIPPED, STOP_TIME, Case, FunctionCases

CTGEN_KEY = pytest.StashKey["CtgenSession"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctgen", "C unit test generation (pytest-ctgen)")

    def option(name: str, ini_type: str | None, help: str, **kwargs: Any) -> None:
        group.addoption(f"--ctgen-{name}", dest=f"ctgen_{name.replace('-', '_')}",
                        default=None, help=help, **kwargs)
        if ini_type is not None:
            parser.addini(f"ctgen_{name.replace('-', '_')}", help, type=ini_type)

    group.addoption("--ctgen", action="store_true", default=False,
                    help="generate, build and run unit tests for the C files among the paths")
    option("cflags", "string", "flags for preprocessing and building the units")
    parser.addini("ctgen_include_dirs", "include directories for the units", type="linelist")
    parser.addini("ctgen_defines", "preprocessor defines for the units (NAME or NAME=VALUE)",
                  type="linelist")
    parser.addini("ctgen_stub_specs", "C files with specifications of external functions "
                                      "(definitions marked __rtt_extern()), for every unit",
                  type="paths")
    parser.addini("ctgen_sources", "C files implementing external functions, executed and "
                                   "compiled with every unit instead of stubs", type="paths")
    option("compile-commands", "string", "a compilation database (compile_commands.json "
                                         "as CMake and Bear write it, or its directory): "
                                         "each file's include dirs and defines")
    option("functions", "args", "glob patterns of functions to test (comma-separated)")
    option("exclude", "args", "glob patterns of functions to skip (comma-separated)")
    option("criterion", "string", "coverage goal (default branch; branch coverage implies "
                                  "statement coverage, MC/DC is not implemented yet)",
           choices=_CHOICES["criterion"])
    option("max-depth", "string", "bound on loop unwinding along a path (default 64)", type=int)
    option("work", "string", "generation budget per function in millions of solver and "
                             "execution steps, the same on every machine (default 100, "
                             "about 10 s; 0 for none)")
    option("timeout", "string", "safety net: seconds after which generation of a function "
                                "stops (default 60); what it cuts depends on the machine",
           type=float)
    option("memory", "string", "MiB of memory the generation of a file may take beyond its "
                               "start (default 4096; 0 for no limit): a function that needs "
                               "more stops with 'memory limit'", type=int)
    option("array-size", "string", "elements of the object a pointer input points to, "
                                   "and at most of a variable length array whose size the "
                                   "inputs choose (default 10)", type=int)
    option("stub-globals", "string", "globals a stub call may write: those the function "
                                     "lists in __rtt_modifies and the volatile ones "
                                     "(modifies, default) or every global of the file (all)",
           choices=_CHOICES["stub_globals"])
    option("signed-overflow", "string", "a path where signed + - * overflow (gcc wraps): "
                                        "a note on its case (note, default) or a finding, "
                                        "a failing case of its own (finding)",
           choices=_CHOICES["signed_overflow"])
    option("case-timeout", "string", "seconds after which a running case fails as a hang "
                                     "(default 5)", type=float)
    option("isolate", "string", "run each case in a forked child (fork, default) or in "
                                "the pytest process (none)", choices=_CHOICES["isolate"])
    option("fail-under", "string", "fail if the total branch coverage is below PCT",
           type=float)
    option("fail-under-line", "string", "fail if the total line coverage is below PCT",
           type=float)
    option("export", "string", "write cases, a standalone C driver and a Makefile to DIR")
    option("report", "args", "coverage report, repeatable: term (default), term-missing, "
                             "json:FILE, html:DIR (gcovr's pages and a control-flow picture "
                             "per function), xml:FILE (Cobertura)",
           action="append")
    option("trace", "string", "write a requirement traceability matrix to FILE "
                              "(.json, .csv or .md)")
    group.addoption("--ctgen-proof", action="store_true", default=None,
                    help="proof mode: explore every path within the bounds, so that the "
                         "annotations no input violates are reported as proved, and add "
                         "robustness cases that violate the precondition")
    parser.addini("ctgen_proof", "proof mode (see --ctgen-proof)", type="bool")
    group.addoption("--ctgen-regenerate", action="store_true", default=False,
                    dest="ctgen_regenerate", help="ignore cached generation results")


# The values an option of a closed set takes (its first is the default); its ini twin is
# checked against them too (argparse checks only the command line).
_CHOICES = {"criterion": ("branch", "statement"), "stub_globals": ("modifies", "all"),
            "signed_overflow": ("note", "finding"), "isolate": ("fork", "none")}


def _choice(config: pytest.Config, name: str) -> str:
    """The value of the closed-set option `name` (see _CHOICES)."""
    choices = _CHOICES[name]
    value = str(_setting(config, name, choices[0]))
    if value not in choices:
        raise pytest.UsageError(f"ctgen_{name}: {value!r} is not one of "
                                f"{', '.join(choices)}")
    return value


def _setting(config: pytest.Config, name: str, default: Any) -> Any:
    value = getattr(config.option, f"ctgen_{name}", None)
    if value is not None:
        return value
    try:
        ini = config.getini(f"ctgen_{name}")
    except ValueError:
        return default
    return ini if ini not in (None, "", []) else default


def _globs(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(g.strip() for item in items for g in str(item).split(",") if g.strip())


_DEFINE = re.compile(r"[A-Za-z_]\w*(\([\w\s,.]*\))?(=.*)?", re.S)


def _defines(lines: list[str]) -> tuple[str, ...]:
    """`ctgen_defines`: NAME or NAME=VALUE, several on a line separated by blanks (a value
    with blanks in quotes, as in a shell)."""
    defines: list[str] = []
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError as err:
            raise pytest.UsageError(f"ctgen_defines: {line!r}: {err}") from None
        for word in words:
            if not _DEFINE.fullmatch(word):
                raise pytest.UsageError(
                    f"ctgen_defines: {word!r} is not NAME, NAME=VALUE or NAME(ARGS)=VALUE")
            defines.append(word)
    return tuple(defines)


def _work_budget(value: Any) -> float:
    """`--ctgen-work` / `ctgen_work`: a number of units, 0 for no budget."""
    try:
        units = float(value)
    except (TypeError, ValueError):
        units = -1.0
    if not units >= 0.0 or units == float("inf"):
        raise pytest.UsageError(f"--ctgen-work / ctgen_work: {value!r} is not a number of "
                                "work units (0 or more; 0 for no budget)")
    return units


def _existing_files(config: pytest.Config, ini: str) -> tuple[str, ...]:
    """The files an ini setting lists (relative to the ini file), which must exist."""
    files = []
    for path in config.getini(ini):
        if not Path(path).is_file():
            raise pytest.UsageError(f"{ini}: no such file: {path}")
        files.append(str(path))
    return tuple(files)


def _build_options(config: pytest.Config):
    from .options import DEFAULT_MEMORY_MIB, Options
    from .symbolic.work import DEFAULT_TIME_BUDGET, DEFAULT_WORK_UNITS

    cflags = _setting(config, "cflags", "")
    return Options(
        cflags=tuple(shlex.split(cflags)) if isinstance(cflags, str) else tuple(cflags),
        include_dirs=tuple(str(Path(config.rootpath, d)) for d in config.getini(
            "ctgen_include_dirs")),
        defines=_defines(config.getini("ctgen_defines")),
        functions=_globs(_setting(config, "functions", None)),
        exclude=_globs(_setting(config, "exclude", None)),
        criterion=_choice(config, "criterion"),
        max_depth=int(_setting(config, "max_depth", 64)),
        work=_work_budget(_setting(config, "work", DEFAULT_WORK_UNITS)),
        timeout=float(_setting(config, "timeout", DEFAULT_TIME_BUDGET)),
        memory=int(_setting(config, "memory", DEFAULT_MEMORY_MIB)),
        array_size=int(_setting(config, "array_size", 10)),
        stub_globals=_choice(config, "stub_globals"),
        signed_overflow=_choice(config, "signed_overflow"),
        stub_specs=_existing_files(config, "ctgen_stub_specs"),
        sources=_existing_files(config, "ctgen_sources"),
        case_timeout=float(_setting(config, "case_timeout", 5.0)),
        isolate=_choice(config, "isolate"),
        proof=bool(_setting(config, "proof", False)),
        regenerate=bool(config.option.ctgen_regenerate),
        compile_database=_compile_database(config),
    )


def _compile_database(config: pytest.Config) -> Any:  # compile_db.CompileDatabase | None
    """The `--ctgen-compile-commands` database (an ini path is relative to the ini file)."""
    path = config.option.ctgen_compile_commands
    if path is None:
        path = config.getini("ctgen_compile_commands")
        if not path:
            return None
        path = Path(config.inipath.parent if config.inipath else config.rootpath, path)
    from .compile_db import CompileDatabaseError, read_compile_database

    try:
        return read_compile_database(Path(path))
    except CompileDatabaseError as err:
        raise pytest.UsageError(str(err)) from None


@dataclass
class CtgenSession:
    """What the plugin keeps for one pytest session: with `--ctgen` for the generated C
    files, and for the exported cases files it replays (with or without `--ctgen`)."""

    config: pytest.Config
    runs: dict[Path, Any] = field(default_factory=dict)  # collected path -> pipeline.FileRun
    coverage: dict[Path, dict[str, Any]] = field(default_factory=dict)
    gate_failures: list[str] = field(default_factory=list)
    # requirement tracing: what the collected functions declare and carry (on an xdist
    # controller: what the workers sent), each case's outcome, the matrix at the end
    traced: list[Any] = field(default_factory=list)  # trace.TracedFunction
    outcomes: dict[str, str] = field(default_factory=dict)  # node id -> outcome
    requirement_markers: set[str] = field(default_factory=set)
    matrix: list[Any] | None = None  # trace.Requirement
    # when the session started (on an xdist worker: the controller's session), for
    # --ctgen-regenerate: cache entries written since then are this session's
    started: float = field(default_factory=time.time)
    # how each unit's cases were got: True if generated by this process (on an xdist
    # controller: how often each unit was generated by the workers together)
    generated_files: dict[str, int] = field(default_factory=dict)
    rows: list[Any] = field(default_factory=list)  # report.Row: the coverage table
    worker_rows: list[list[Any]] = field(default_factory=list)  # xdist: each worker's rows
    worker_units: list[list[Any]] = field(default_factory=list)  # and cfg_picture.ReportUnit
    worker_verdicts: list[str] = field(default_factory=list)  # and annotation verdict lines
    replay_errors: int = 0  # exported cases files that could not be collected

    @functools.cached_property
    def options(self) -> Any:  # options.Options
        return _build_options(self.config)

    # without pytest's cache: a directory of this session's own, removed at its end
    temporary_cache: Path | None = None

    @functools.cached_property
    def cache_dir(self) -> Path:
        """Generation results and builds. Without pytest's cache provider, a temporary
        directory that the xdist controller makes and every worker shares, so that each
        file is generated once and every worker collects the same cases."""
        shared = getattr(self.config, "workerinput", {}).get("ctgen_cache_dir")
        if shared is not None:
            return Path(shared)
        if getattr(self.config, "cache", None) is not None:
            return Path(self.config.cache.mkdir("ctgen"))
        self.temporary_cache = Path(tempfile.mkdtemp(prefix="pytest-ctgen-"))
        return self.temporary_cache

    @property
    def generated_dir(self) -> Path:
        """The generation cache, shared by every process of the session."""
        return self.cache_dir / "generated"

    @property
    def build_dir(self) -> Path:
        """Harness builds and their gcov data: one directory per xdist worker, so that
        each worker's coverage data is its own until the controller merges them."""
        worker = getattr(self.config, "workerinput", {}).get("workerid")
        return self.cache_dir / "builds" / worker if worker else self.cache_dir / "builds"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ctgen: a test case generated by pytest-ctgen")
    config.addinivalue_line("markers", "ctgen_requirement(*ids): the requirement ids of a "
                                       "generated case (from __rtt_testcase annotations)")
    trace = _setting(config, "trace", None)
    if trace:
        from .trace import check_trace_path

        problem = check_trace_path(str(trace))
        if problem:
            raise pytest.UsageError(problem)
    from .coverage.reports import parse_report_spec

    for spec in _setting(config, "report", []) or []:
        try:
            parse_report_spec(spec)
        except ValueError as err:
            raise pytest.UsageError(str(err)) from None
    ctgen = config.stash[CTGEN_KEY] = CtgenSession(config)
    started = getattr(config, "workerinput", {}).get("ctgen_started")
    if started is not None:
        ctgen.started = started
    config.pluginmanager.register(RequirementTrace(config, ctgen), "ctgen-trace")
    config.pluginmanager.register(WorkerResults(config, ctgen), "ctgen-workers")
    if config.option.ctgen:
        ctgen.options  # noqa: B018 - bad options are a usage error before collection
        # a C file that does not preprocess or parse is one collection error; the other
        # files of the session still run
        config.option.continue_on_collection_errors = True


#: The C units `--ctgen` collects: C files and preprocessed ones (`.i`, as `gcc -E` writes
#: them; frontend.preprocessed.PREPROCESSED_SUFFIXES).
C_UNIT_SUFFIXES = (".c", ".i")
#: A header is a unit when it is named on the command line (a header-only library's
#: functions); in a directory, headers are only included by the units.
C_HEADER_SUFFIXES = (".h",)


def _is_c_unit(path: Path, named: bool) -> bool:
    """Whether `--ctgen` takes `path` as a unit; `named`: it is a command-line argument."""
    return path.suffix in C_UNIT_SUFFIXES or (named and path.suffix in C_HEADER_SUFFIXES)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if parent.config.option.ctgen and _is_c_unit(file_path,
                                                 parent.session.isinitpath(file_path)):
        if _written_by_an_export(file_path):
            return None
        return CtgenFile.from_parent(parent, path=file_path)
    if file_path.name.endswith(EXPORT_SUFFIX):
        return CtgenReplayFile.from_parent(parent, path=file_path)
    return None


# The cases of an export (DESIGN §2), replayed by `pytest DIR`.
EXPORT_SUFFIX = ".ctgen.json"
# The C files an export writes beside its cases (codegen.export.DRIVER,
# codegen.harness.RUNTIME_SOURCE, unit_copy.UNIT_COPY)
EXPORT_C_FILES = ("ctgen_driver.c", "ctgen_unit.c", "ctgen_runtime.c")


def _written_by_an_export(file_path: Path) -> bool:
    """The driver or unit copy of an export (an export inside the tree `--ctgen` walks):
    its cases are replayed from the JSON beside it, it is not a unit to test."""
    return file_path.name in EXPORT_C_FILES and \
        any(file_path.parent.glob("*" + EXPORT_SUFFIX))


class _CasesFile(pytest.File):
    """A file whose functions' cases become items: one item per case, one skipped item per
    function generation skipped."""

    def items(self, session: CtgenSession, run: Any) -> Iterator[pytest.Item]:
        session.runs[self.path] = run
        for fn in run.generated.cases.functions:
            names = [f"{fn.name}[{case.id}]" for case in fn.cases]
            _trace_function(session, f"{self.nodeid}::{fn.name}", fn,
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
        from .errors import CtgenError
        from .pipeline import FileRun, generate_file

        session: CtgenSession = self.config.stash[CTGEN_KEY]
        problem = _unbuildable(self.path, session.options.sources_for(self.path))
        if problem:
            raise self.CollectError(f"{_display(self.config, self.path)}: {problem}")
        try:
            generated = generate_file(self.path, _display(self.config, self.path),
                                      session.options, session.generated_dir,
                                      progress=_progress_printer(self.config),
                                      fresh_since=session.started)
        except CtgenError as err:
            raise self.CollectError(str(err)) from None
        assert generated is not None  # waited for the cache entry's lock
        unit = str(self.path)
        session.generated_files[unit] = session.generated_files.get(unit, False) or \
            not generated.from_cache
        yield from self.items(session, FileRun(self.path, generated, session.options,
                                               session.build_dir))


def _unbuildable(unit: Path, sources: Sequence[Path]) -> str | None:
    """Why the harness cannot `#include` the unit or a source file compiled with it (a
    name holding '"'...), or None."""
    from .export_schema import include_problem

    for path in (unit, *sources):
        problem = include_problem(Path(os.path.abspath(path)).as_posix())
        if problem:
            return f"{path.name}: the harness #includes the file by its path, which " \
                f"{problem}; rename it"
    return None


def _display(config: pytest.Config, path: Path) -> str:
    """A unit's path as shown in ids and reports: relative to the rootdir when inside it."""
    return path.relative_to(config.rootpath).as_posix() \
        if path.is_relative_to(config.rootpath) else str(path)


def _progress_printer(config: pytest.Config) -> Any:  # pipeline.ProgressFn | None
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

    def show(p: Any) -> None:  # pipeline.Progress
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
        from .errors import CtgenError
        from .pipeline import replay_run

        session: CtgenSession = self.config.stash[CTGEN_KEY]
        try:
            run = replay_run(self.path, session.options, session.build_dir)
        except CtgenError as err:
            session.replay_errors += 1  # the other files still replay
            raise self.CollectError(str(err)) from None
        yield from self.items(session, run)


class CaseFailed(Exception):
    """A generated case whose run differed from the prediction, crashed or hung."""


class CtgenCase(pytest.Item):
    def __init__(self, *, function: FunctionCases, case: Case, run: Any, **kwargs: Any):
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

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        from .errors import CtgenError

        if isinstance(excinfo.value, (CaseFailed, CtgenError)):
            lines = [f"{self.function.name}[{self.case.id}]: {excinfo.value}"]
            lines.append("inputs:")
            for b in self.case.params:
                lines.append(f"  {b.name} = {_show(b.value)}")
            for b in self.case.globals:
                lines.append(f"  {b.name} = {_show(b.value)} (global)")
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
                lines.append(f"  ends: {exp.ending}{status}")
            if exp.returns is not None:
                lines.append(f"  return {_show(exp.returns)}")
            for b in exp.globals:
                lines.append(f"  {b.name} = {_show(b.value)}")
            lines.extend(f"note: {note}" for note in self.case.notes)
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        # the C function, also for a replayed export, so test explorers jump to it
        return self.run.path, self.function.line - 1, self.name


class CtgenSkippedFunction(pytest.Item):
    """A function the generator could not handle; it is reported as skipped with the reason."""

    def __init__(self, *, function: FunctionCases, run: Any, **kwargs: Any):
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
    from .cases import value_to_json

    return json.dumps(value_to_json(v))


# ------------------------------------------------------------------ coverage and gates


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    ctgen: CtgenSession | None = session.config.stash.get(CTGEN_KEY, None)
    if ctgen is not None and ctgen.replay_errors and \
            session.testsfailed == ctgen.replay_errors:
        # replay continues past exported cases files that could not be collected, as
        # --ctgen past C files that do not parse, when they are the only collection
        # errors: the other files' cases still run (the session fails all the same)
        session.config.option.continue_on_collection_errors = True
    yield
    if ctgen is None or session.config.option.collectonly:
        return
    from .errors import CtgenError
    from .report import account_outcomes, coverage_rows, merge_rows, totals

    for path, run in ctgen.runs.items():
        try:
            ctgen.coverage[path] = run.coverage()
        except CtgenError as err:
            ctgen.gate_failures.append(f"coverage of {path}: {err}")
    if ctgen.worker_rows:  # an xdist controller: every worker's share, merged
        ctgen.rows = merge_rows(ctgen.worker_rows)
    else:
        ctgen.rows = coverage_rows(ctgen)
    worker = getattr(session.config, "workerinput", None)
    if worker is None:  # the session's whole coverage: every outcome left is listed
        ctgen.rows = [account_outcomes(r) for r in ctgen.rows]
    rows = ctgen.rows
    total = totals(rows)
    export = _setting(session.config, "export", None)
    if export and (worker is None or worker.get("workerid") == "gw0"):
        _write_exports(ctgen, Path(export))  # every xdist worker collected every file
    if worker is not None:
        return  # the controller writes the reports and applies the gates, on every share
    from .coverage.reports import parse_report_spec

    # checked in pytest_configure
    specs = [parse_report_spec(s) for s in _setting(session.config, "report", []) or []]
    for spec in specs:
        if spec.kind == "json":
            from .report import write_json

            write_json(Path(spec.target), rows, total)
    if any(s.kind in ("html", "xml") for s in specs):  # gcovr's reports of all units
        from .cfg_picture import merge_report_units, report_units, write_coverage_reports

        # on an xdist controller: every worker's builds, whose gcov data gcovr merges
        units = merge_report_units(*ctgen.worker_units) if ctgen.worker_rows else \
            report_units(ctgen.runs)
        try:
            write_coverage_reports(units, rows, specs, session.config.rootpath)
        except CtgenError as err:
            ctgen.gate_failures.append(f"coverage report: {err}")
    for name, key, pct in (("branch", "fail_under", total.branch_percent),
                           ("line", "fail_under_line", total.line_percent)):
        limit = _setting(session.config, key, None)
        if limit is not None and pct is not None and pct < float(limit):
            ctgen.gate_failures.append(
                f"FAIL Required {name} coverage of {float(limit):g}% not reached. "
                f"Total {name} coverage: {pct:.2f}%")
    if ctgen.gate_failures:
        session.testsfailed += 1


def _write_exports(ctgen: CtgenSession, out_dir: Path) -> None:
    """Export every generated unit, each into a directory of its own (export_names); a
    unit that cannot be exported is a gate failure, the others are exported still."""
    from .codegen.export import export_names, write_export
    from .errors import CtgenError

    runs = [run for run in ctgen.runs.values()
            if run.generated.cases.build is None]  # not replayed from an export
    names = export_names([run.generated.cases.source for run in runs])
    for run in runs:
        cases = run.generated.cases
        try:
            write_export(cases, run.path, out_dir, run.cflags, sources=run.sources,
                         name=names[cases.source])
        except CtgenError as err:  # nothing of another owner is overwritten
            ctgen.gate_failures.append(f"export: {err}")


# ------------------------------------------------------------------ pytest-xdist


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller: the session's start for every worker."""
    ctgen: CtgenSession | None = node.config.stash.get(CTGEN_KEY, None)
    if ctgen is not None:
        node.workerinput["ctgen_started"] = ctgen.started
        if node.config.option.ctgen and getattr(node.config, "cache", None) is None:
            node.workerinput["ctgen_cache_dir"] = str(ctgen.cache_dir)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """On a pytest-xdist worker, before collecting: generate the C files no other worker
    is generating, so that the workers share the generation of independent files; the
    collection then takes every file's cases from the shared cache (waiting for a file
    another worker is still generating)."""
    config = session.config
    workerinput = getattr(config, "workerinput", None)
    if not config.option.ctgen or workerinput is None or \
            int(workerinput.get("workercount", 1)) < 2:
        return
    from .errors import CtgenError
    from .pipeline import generate_file

    ctgen: CtgenSession = config.stash[CTGEN_KEY]
    for path in _c_files(config):
        try:
            generated = generate_file(path, _display(config, path), ctgen.options,
                                      ctgen.generated_dir, fresh_since=ctgen.started,
                                      wait=False)
        except CtgenError:
            continue  # collecting the file reports it
        if generated is not None and not generated.from_cache:
            ctgen.generated_files[str(path)] = True


def _c_files(config: pytest.Config) -> list[Path]:
    """The C files under the session's arguments, in a stable order, skipping the
    directories pytest does not recurse into (`norecursedirs`, `--ignore`)."""
    import fnmatch
    import os

    skip_dirs = config.getini("norecursedirs")
    ignored = {Path(p).resolve() for p in (config.getoption("ignore") or [])}
    files: list[Path] = []
    for arg in config.args:
        root = Path(arg.split("::")[0]).resolve()
        if root.is_file():
            files += [root] if _is_c_unit(root, named=True) else []
            continue
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if Path(here, d).resolve() not in ignored and
                             not any(fnmatch.fnmatch(d, pat) for pat in skip_dirs))
            files += [Path(here, n) for n in sorted(names)
                      if _is_c_unit(Path(n), named=False)]
    return list(dict.fromkeys(files))


class WorkerResults:
    """pytest-xdist: each worker sends its share of the coverage table and what it
    generated; the controller merges them (see pytest_runtestloop, the summary)."""

    def __init__(self, config: pytest.Config, ctgen: CtgenSession) -> None:
        self.config = config
        self.ctgen = ctgen

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        from .report import row_from_json

        output = getattr(node, "workeroutput", {})
        if "ctgen_rows" in output:
            from .cfg_picture import ReportUnit

            self.ctgen.worker_rows.append([row_from_json(r) for r in output["ctgen_rows"]])
            self.ctgen.worker_units.append(
                [ReportUnit.from_json(u) for u in output.get("ctgen_units", [])])
        if not self.ctgen.worker_verdicts:  # every worker collected every file
            self.ctgen.worker_verdicts = list(output.get("ctgen_verdicts", []))
        for unit, generated in output.get("ctgen_generated", {}).items():
            self.ctgen.generated_files[unit] = \
                self.ctgen.generated_files.get(unit, 0) + int(generated)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from .report import row_to_json

        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            from .cfg_picture import report_units

            workeroutput["ctgen_rows"] = [row_to_json(r) for r in self.ctgen.rows]
            workeroutput["ctgen_units"] = [u.to_json() for u in report_units(self.ctgen.runs)]
            workeroutput["ctgen_verdicts"] = _annotation_verdicts(self.ctgen)
            workeroutput["ctgen_generated"] = {
                unit: int(generated) for unit, generated in self.ctgen.generated_files.items()}


# ------------------------------------------------------------------ requirement tracing


def _trace_function(session: CtgenSession, function: str, fn: FunctionCases,
                    nodeids: list[str]) -> None:
    """Keep what a collected function declares and carries for the traceability matrix."""
    from .trace import traced_function

    session.traced.append(traced_function(function, fn, nodeids))


class RequirementTrace:
    """Gathers each case's outcome from pytest's reports and, at the end of the session,
    builds the traceability matrix and writes `--ctgen-trace`. Under pytest-xdist a worker
    sends what it collected to the controller, which gets every report and writes the file."""

    def __init__(self, config: pytest.Config, ctgen: CtgenSession) -> None:
        self.config = config
        self.ctgen = ctgen

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        from .trace import report_outcome

        outcomes = self.ctgen.outcomes
        outcomes[report.nodeid] = report_outcome(outcomes.get(report.nodeid), report.when or "",
                                                 report.outcome)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """pytest-xdist, on the controller: what a worker collected (every worker collects
        every file, so the first one that sends it is enough)."""
        data = getattr(node, "workeroutput", {}).get("ctgen_trace")
        if data and not self.ctgen.traced:
            from .trace import functions_from_json

            self.ctgen.traced.extend(functions_from_json(data))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from .trace import build_matrix, functions_to_json, write_trace

        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller writes the matrix
            workeroutput["ctgen_trace"] = functions_to_json(self.ctgen.traced)
            return
        self.ctgen.matrix = build_matrix(self.ctgen.traced, self.ctgen.outcomes)
        trace = _setting(self.config, "trace", None)
        if trace:
            write_trace(Path(trace), self.ctgen.matrix)


def _annotation_verdicts(ctgen: CtgenSession) -> list[str]:
    """What generation found of each annotation: proved (proof mode), violated or, for a
    test case, unreachable. Annotations with no verdict are not listed."""
    lines: list[str] = []
    for run in ctgen.runs.values():
        for fn in run.generated.cases.functions:
            if fn.contract is None:
                continue
            for check in fn.contract.checks:
                if not check.verdict:
                    continue
                what = f"{check.kind} {check.text}"
                if check.verdict == "holds":
                    lines.append(f"  {fn.name}: {what} ({check.at}) holds for all inputs "
                                 f"within the bounds: {fn.contract.bounds}")
                elif check.verdict == "unreachable":
                    lines.append(f"  {fn.name}: no input meets the pre of the test case "
                                 f"({check.at})")
                else:
                    lines.append(f"  {fn.name}: {what} ({check.at}) is violated")
    return ["ctgen annotations:", *lines] if lines else []


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config
                            ) -> None:
    ctgen: CtgenSession | None = config.stash.get(CTGEN_KEY, None)
    if ctgen is None or config.option.collectonly:
        return
    from .report import format_table

    specs = _setting(config, "report", []) or ["term"]  # asking for reports replaces term
    missing = any(s == "term-missing" for s in specs)
    if ctgen.rows and any(s in ("term", "term-missing") for s in specs):
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
    for line in ctgen.worker_verdicts or _annotation_verdicts(ctgen):
        terminalreporter.write_line(line)
    if ctgen.matrix and config.get_verbosity() >= -1:  # shown with -q, not with -qq
        from .trace import summary

        terminalreporter.write_line(f"ctgen requirements: {summary(ctgen.matrix)}")
    for failure in ctgen.gate_failures:
        terminalreporter.write_line(failure, red=True, bold=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The harnesses loaded here write their last coverage counters, and the session's
    temporary cache goes (an xdist worker's is the controller's, which removes it after
    the workers are done)."""
    ctgen: CtgenSession | None = config.stash.get(CTGEN_KEY, None)
    if ctgen is None:
        return
    for run in ctgen.runs.values():
        run.finish()
    if ctgen.temporary_cache is not None:
        import shutil

        shutil.rmtree(ctgen.temporary_cache, ignore_errors=True)
