"""The pytest plugin: options, collection of C files into case items, the coverage table and
the coverage gates. The engine (`pipeline`) is imported only when `--ctgen` is used."""
from __future__ import annotations

import json
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from .cases import STOP_SKIPPED, Case, FunctionCases

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
    option("functions", "args", "glob patterns of functions to test (comma-separated)")
    option("exclude", "args", "glob patterns of functions to skip (comma-separated)")
    option("criterion", "string", "coverage goal (default branch; branch coverage implies "
                                  "statement coverage, MC/DC is not implemented yet)",
           choices=("statement", "branch"))
    option("max-depth", "string", "bound on loop unwinding along a path (default 64)", type=int)
    option("timeout", "string", "generation budget per function in seconds (default 30)",
           type=float)
    option("array-size", "string", "elements of the object a pointer input points to "
                                   "(default 10)", type=int)
    option("stub-globals", "string", "globals a stub call may write: those the function "
                                     "lists in __rtt_modifies and the volatile ones "
                                     "(modifies, default) or every global of the file (all)",
           choices=("modifies", "all"))
    option("case-timeout", "string", "seconds after which a running case fails as a hang "
                                     "(default 5)", type=float)
    option("isolate", "string", "run each case in a forked child (fork, default) or in "
                                "the pytest process (none)", choices=("fork", "none"))
    option("fail-under", "string", "fail if the total branch coverage is below PCT",
           type=float)
    option("fail-under-line", "string", "fail if the total line coverage is below PCT",
           type=float)
    option("export", "string", "write cases, a standalone C driver and a Makefile to DIR")
    option("report", "args", "coverage report: term (default), term-missing, json:FILE",
           action="append")
    group.addoption("--ctgen-regenerate", action="store_true", default=False,
                    dest="ctgen_regenerate", help="ignore cached generation results")


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


def _existing_files(config: pytest.Config, ini: str) -> tuple[str, ...]:
    """The files an ini setting lists (relative to the ini file), which must exist."""
    files = []
    for path in config.getini(ini):
        if not Path(path).is_file():
            raise pytest.UsageError(f"{ini}: no such file: {path}")
        files.append(str(path))
    return tuple(files)


def _build_options(config: pytest.Config):
    from .options import Options

    cflags = _setting(config, "cflags", "")
    return Options(
        cflags=tuple(shlex.split(cflags)) if isinstance(cflags, str) else tuple(cflags),
        include_dirs=tuple(str(Path(config.rootpath, d)) for d in config.getini(
            "ctgen_include_dirs")),
        defines=tuple(config.getini("ctgen_defines")),
        functions=_globs(_setting(config, "functions", None)),
        exclude=_globs(_setting(config, "exclude", None)),
        criterion=str(_setting(config, "criterion", "branch")),
        max_depth=int(_setting(config, "max_depth", 64)),
        timeout=float(_setting(config, "timeout", 30.0)),
        array_size=int(_setting(config, "array_size", 10)),
        stub_globals=str(_setting(config, "stub_globals", "modifies")),
        stub_specs=_existing_files(config, "ctgen_stub_specs"),
        sources=_existing_files(config, "ctgen_sources"),
        case_timeout=float(_setting(config, "case_timeout", 5.0)),
        isolate=str(_setting(config, "isolate", "fork")),
        regenerate=bool(config.option.ctgen_regenerate),
    )


@dataclass
class CtgenSession:
    """What the plugin keeps for one pytest session."""

    options: Any
    cache_dir: Path
    runs: dict[Path, Any] = field(default_factory=dict)  # path -> pipeline.FileRun
    coverage: dict[Path, dict[str, Any]] = field(default_factory=dict)
    gate_failures: list[str] = field(default_factory=list)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ctgen: a test case generated by pytest-ctgen")
    if not config.option.ctgen:
        return
    if getattr(config, "cache", None) is not None:
        cache_dir = Path(config.cache.mkdir("ctgen"))
    else:
        cache_dir = Path(tempfile.mkdtemp(prefix="pytest-ctgen-"))
    config.stash[CTGEN_KEY] = CtgenSession(_build_options(config), cache_dir)
    # a C file that does not preprocess or parse is one collection error; the other files
    # of the session still run
    config.option.continue_on_collection_errors = True


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".c" and CTGEN_KEY in parent.config.stash:
        return CtgenFile.from_parent(parent, path=file_path)
    return None


class CtgenFile(pytest.File):
    """A C source file: one item per generated case, one skipped item per skipped function."""

    def collect(self) -> Iterator[pytest.Item]:
        from .errors import CtgenError
        from .pipeline import FileRun, generate_file

        session: CtgenSession = self.config.stash[CTGEN_KEY]
        display = self.path.relative_to(self.config.rootpath).as_posix() \
            if self.path.is_relative_to(self.config.rootpath) else str(self.path)
        try:
            generated = generate_file(self.path, display, session.options,
                                      session.cache_dir / "generated")
        except CtgenError as err:
            raise self.CollectError(str(err)) from None
        run = FileRun(self.path, generated, session.options, session.cache_dir / "builds")
        session.runs[self.path] = run
        for fn in generated.cases.functions:
            if fn.stop_reason == STOP_SKIPPED:
                yield CtgenSkippedFunction.from_parent(self, name=fn.name, function=fn)
                continue
            for case in fn.cases:
                name = f"{fn.name}[{case.id}]"
                # the id as text: pytest 9.2 parses "[...]" from it as the parameter part,
                # which --lf needs to match reports with items
                yield CtgenCase.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}",
                                            function=fn, case=case, run=run)


class CaseFailed(Exception):
    """A generated case whose run differed from the prediction, crashed or hung."""


class CtgenCase(pytest.Item):
    def __init__(self, *, function: FunctionCases, case: Case, run: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.function = function
        self.case = case
        self.run = run
        self.add_marker(pytest.mark.ctgen)
        for req in case.requirements:
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
            for s in self.case.stubs:
                calls = ", ".join(_show(c.returns) if c.returns is not None else "-"
                                  for c in s.calls)
                lines.append(f"  {s.name}() returns {calls}")
            exp = self.case.expected
            lines.append("predicted:")
            if exp.ending is not None:
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
        return self.path, self.function.line - 1, self.name


class CtgenSkippedFunction(pytest.Item):
    """A function the generator could not handle; it is reported as skipped with the reason."""

    def __init__(self, *, function: FunctionCases, **kwargs: Any):
        super().__init__(**kwargs)
        self.function = function

    def runtest(self) -> None:
        raise pytest.skip.Exception(self.function.skip_reason or "not supported",
                                    _use_item_location=True)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.function.line - 1, self.name


def _show(v: Any) -> str:
    from .cases import value_to_json

    return json.dumps(value_to_json(v))


# ------------------------------------------------------------------ coverage and gates


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    yield
    ctgen: CtgenSession | None = session.config.stash.get(CTGEN_KEY, None)
    if ctgen is None or session.config.option.collectonly:
        return
    from .errors import CtgenError
    from .report import coverage_rows, totals

    for path, run in ctgen.runs.items():
        try:
            ctgen.coverage[path] = run.coverage()
        except CtgenError as err:
            ctgen.gate_failures.append(f"coverage of {path}: {err}")
    rows = coverage_rows(ctgen)
    total = totals(rows)
    export = _setting(session.config, "export", None)
    if export:
        _write_exports(ctgen, Path(export))
    for spec in _setting(session.config, "report", []) or []:
        if spec.startswith("json:"):
            from .report import write_json

            write_json(Path(spec[5:]), rows, total)
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
    from .codegen.export import write_export

    for path, run in ctgen.runs.items():
        write_export(run.generated.cases, path, out_dir, ctgen.options.compiler_flags(),
                     sources=ctgen.options.sources_for(path))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config
                            ) -> None:
    ctgen: CtgenSession | None = config.stash.get(CTGEN_KEY, None)
    if ctgen is None or config.option.collectonly or not ctgen.runs:
        return
    from .report import coverage_rows, format_table

    specs = _setting(config, "report", []) or ["term"]
    missing = any(s == "term-missing" for s in specs)
    if any(s in ("term", "term-missing") for s in specs) or not any(
            s.startswith("json:") for s in specs):
        terminalreporter.write_sep("-", "ctgen coverage (gcov)")
        for line in format_table(coverage_rows(ctgen), missing=missing):
            terminalreporter.write_line(line)
    for failure in ctgen.gate_failures:
        terminalreporter.write_line(failure, red=True, bold=True)
