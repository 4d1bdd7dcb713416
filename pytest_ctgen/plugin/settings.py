"""pytest-ctgen's command-line options and ini settings: their registration, reading a
setting (the command line before the ini file), checking the values of a closed set, and
the session's Options built from them."""
from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import pytest

from ..cases import SETUP_AUTO
from ..errors import CtgenError
from ..options import (
    BOUNDARY_CASES_VALUES,
    CRITERION_VALUES,
    GOAL_SCOPE_VALUES,
    ISOLATION_VALUES,
    LEAKS_VALUES,
    SIGNED_OVERFLOW_VALUES,
    STUB_GLOBALS_VALUES,
    Options,
)


def add_options(parser: pytest.Parser) -> None:
    """pytest-ctgen's command-line options and ini settings (pytest_addoption), in the
    order `pytest --help` shows them."""
    group = parser.getgroup("ctgen", "C unit test generation (pytest-ctgen)")
    option = _option_adder(parser, group)
    group.addoption("--ctgen", action="store_true", default=False,
                    help="generate, build and run unit tests for the C files among the paths")
    _add_unit_options(parser, option)
    _add_generation_options(option)
    option("setup", None, _SETUP_HELP, action="append", metavar="GLOB: INIT [OPERATION ...]")
    parser.addini("ctgen_setup", _SETUP_HELP + " (one per line)", type="linelist")
    _add_run_options(option)
    group.addoption("--ctgen-proof", action="store_true", default=None,
                    help="proof mode: explore every path within the bounds, so that the "
                         "annotations no input violates are reported as proved, and add "
                         "robustness cases that violate the precondition")
    parser.addini("ctgen_proof", "proof mode (see --ctgen-proof)", type="bool")
    group.addoption("--ctgen-regenerate", action="store_true", default=False,
                    dest="ctgen_regenerate", help="ignore cached generation results")


_AddOption = Callable[..., None]


def _option_adder(parser: pytest.Parser, group: pytest.OptionGroup) -> _AddOption:
    """`option(name, ini_type, help, **kwargs)`: adds `--ctgen-<name>` and, with an
    `ini_type`, its ini twin `ctgen_<name>`."""
    def option(name: str, ini_type: Literal["string", "args"] | None, help: str,
               **kwargs: Any) -> None:
        group.addoption(f"--ctgen-{name}", dest=f"ctgen_{name.replace('-', '_')}",
                        default=None, help=help, **kwargs)
        if ini_type is not None:
            parser.addini(f"ctgen_{name.replace('-', '_')}", help, type=ini_type)

    return option


def _add_unit_options(parser: pytest.Parser, option: _AddOption) -> None:
    """How the units are read and built."""
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


def _add_generation_options(option: _AddOption) -> None:
    """Which functions generation works on, what it aims for and its bounds."""
    option("functions", "args", "glob patterns of functions to test (comma-separated)")
    option("exclude", "args", "glob patterns of functions to skip (comma-separated)")
    option("criterion", "string", "what the cases are generated for (default branch): "
                                  "statement (every line), branch (every outcome) or mcdc "
                                  "(every outcome, and a pair of cases showing each "
                                  "condition's effect; also measures MC/DC and shows it "
                                  "in the reports)",
           choices=CRITERION_VALUES)
    option("goals", "string", "whose branch outcomes are goals: the function's own "
                              "(function, default) or also those of the functions of its "
                              "file it calls (reached)", choices=GOAL_SCOPE_VALUES)
    option("boundary-cases", "string", "add a case for each ordering comparison (< <= > >=) "
                                       "no case decided with its sides equal or one apart, "
                                       "for each way out of a loop no case takes after "
                                       "passes or at its deepest pass, for a loop stopped "
                                       "where one more pass would act or left by the "
                                       "only pass that would leave it, for operands of 0 "
                                       "or a constant one off, for an operation whose "
                                       "result computed by mistake no case's outputs "
                                       "or branches show, for an assigned value "
                                       "that decides no comparison, and for an output "
                                       "of 0, NULL or a returned constant (on, default; "
                                       "off)",
           choices=BOUNDARY_CASES_VALUES)
    option("max-depth", "string", "how often a path may decide one branch: the bound on "
                                  "loop unwinding (default 64)", type=int)
    option("max-recursion", "string", "how many calls of one function of the file may be "
                                      "active at once along a path: the bound on "
                                      "recursion (default 32)", type=int)
    option("work", "string", "generation budget per function in millions of solver and "
                             "execution steps, the same on every machine (default 100, "
                             "about 10 s; 0 for none)")
    option("timeout", "string", "safety net: seconds after which generation of a function "
                                "stops (default 60); what it cuts depends on the machine",
           type=float)
    option("memory", "string", "MiB of memory the generation of a file may take beyond its "
                               "start (default 4096; 0 for no limit): a function that needs "
                               "more stops with 'memory limit'", type=int)
    option("jobs", "string", "C files generated at once, each in a process of its own "
                             "(default: the CPUs the session may use, divided among "
                             "pytest-xdist workers; 1: one at a time); the cases are the "
                             "same", type=int)
    option("array-size", "string", "elements of the object a pointer input points to, "
                                   "and at most of a variable length array whose size the "
                                   "inputs choose (default 10)", type=int)
    option("stub-globals", "string", "globals a stub call may write: those the function "
                                     "lists in __rtt_modifies and the volatile ones "
                                     "(modifies, default) or every global of the file (all)",
           choices=STUB_GLOBALS_VALUES)
    option("input-globals", "args", "glob patterns of globals (comma-separated) that are "
                                    "inputs of the cases although nothing in the unit "
                                    "writes them; without it such a global with an "
                                    "initializer (a lookup table) starts from it")
    option("signed-overflow", "string", "a path where signed + - * overflow (gcc wraps): "
                                        "a note on its case (note, default) or a finding, "
                                        "a failing case of its own (finding)",
           choices=SIGNED_OVERFLOW_VALUES)
    option("leaks", "string", "a case whose function leaks an allocation of its own "
                              "(neither freed nor reachable by the caller): a note on the "
                              "case (note, default) or a failing case naming the leak and "
                              "where it was allocated (fail)",
           choices=LEAKS_VALUES)


def _add_run_options(option: _AddOption) -> None:
    """How the cases run, the gates on their coverage and what is written of them."""
    option("case-timeout", "string", "seconds after which a running case fails as a hang "
                                     "(default 5)", type=float)
    option("isolate", "string", "run each case in a forked child (fork, default) or in "
                                "the pytest process (none)", choices=ISOLATION_VALUES)
    option("fail-under", "string", "fail if the total branch coverage is below PCT",
           type=float)
    option("fail-under-line", "string", "fail if the total line coverage is below PCT",
           type=float)
    option("fail-under-mcdc", "string", "fail if the total MC/DC (conditions shown of "
                                        "those of decisions with two or more) is below PCT; "
                                        "measures MC/DC", type=float)
    option("export", "string", "write cases, a standalone C driver and a Makefile to DIR")
    option("report", "args", "coverage report, repeatable: term (default), term-missing, "
                             "json:FILE, html:DIR (gcovr's pages and a control-flow picture "
                             "per function), xml:FILE (Cobertura); mcdc: measure MC/DC "
                             "too and show it in every report",
           action="append")
    option("trace", "string", "write a requirement traceability matrix to FILE "
                              "(.json, .csv or .md)")


Choice = TypeVar("Choice", bound=str)
Number = TypeVar("Number", int, float)


def _choice(config: pytest.Config, name: str, choices: tuple[Choice, ...]) -> Choice:
    """The value of the closed-set option `name`, one of `choices` (the first is the
    default); its ini twin is checked too (argparse checks only the command line)."""
    value = str(setting(config, name, choices[0]))
    for choice in choices:
        if value == choice:
            return choice
    raise pytest.UsageError(f"ctgen_{name}: {value!r} is not one of {', '.join(choices)}")


def setting(config: pytest.Config, name: str, default: Any) -> Any:
    """`--ctgen-<name>` if given, else the ini setting `ctgen_<name>` if set, else
    `default`."""
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


_DEFINE = re.compile(r"[A-Za-z_]\w*(\([\w\s,.]*\))?(=.*)?", re.DOTALL)


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


def _number(config: pytest.Config, name: str, default: Number, kind: type[Number],
            minimum: Number) -> Number:
    """The number setting `name` (see `setting`): of `kind`, at least `minimum`; a usage
    error naming the option and the ini setting otherwise."""
    value = setting(config, name, default)
    try:
        number = kind(value)
        ok = number >= minimum and number != float("inf")
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        what = "a whole number" if kind is int else "a number"
        raise pytest.UsageError(f"--ctgen-{name.replace('_', '-')} / ctgen_{name}: {value!r} "
                                f"is not {what} of at least {minimum}")
    return number


#: The least memory limit generation can run with: the solver's library alone needs tens
#: of MiB to load and start.
MIN_MEMORY_MIB = 128


_SETUP_HELP = ("cases of the functions matching GLOB that take a pointer to the struct "
               "INIT's first parameter points to start from a state the unit's own "
               "functions build: a zeroed object, then INIT on it, then each OPERATION "
               "in turn (their other parameters are inputs of the case); INIT auto: the "
               "one function with 'init' in its name that takes such a pointer first")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _setup_specs(values: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`--ctgen-setup` / `ctgen_setup`: `GLOB: INIT [OPERATION ...]` each (names apart by
    spaces or commas)."""
    specs = []
    for value in values or ():
        pattern, colon, names = str(value).partition(":")
        functions = tuple(n for n in re.split(r"[\s,]+", names) if n)
        if not colon or not pattern.strip() or not functions or \
                not all(_IDENTIFIER.fullmatch(n) for n in functions) or \
                (SETUP_AUTO in functions and len(functions) > 1):
            raise pytest.UsageError(f"--ctgen-setup / ctgen_setup: {str(value)!r} is not "
                                    "GLOB: INIT [OPERATION ...] (function names) or "
                                    "GLOB: auto")
        specs.append((pattern.strip(), functions))
    return tuple(specs)


def _memory(config: pytest.Config, default: int) -> int:
    """`--ctgen-memory` / `ctgen_memory`: 0 for no limit, else at least MIN_MEMORY_MIB."""
    mib = _number(config, "memory", default, int, 0)
    if 0 < mib < MIN_MEMORY_MIB:
        raise pytest.UsageError(f"--ctgen-memory / ctgen_memory: {mib} MiB is too little "
                                f"to generate with: at least {MIN_MEMORY_MIB}, or 0 for no "
                                "limit")
    return mib


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


def build_options(config: pytest.Config) -> Options:
    """The session's Options from its command line and ini file; a value an option cannot
    take is a usage error."""
    defaults = Options()
    cflags = setting(config, "cflags", "")
    return Options(
        cflags=tuple(shlex.split(cflags)) if isinstance(cflags, str) else tuple(cflags),
        include_dirs=tuple(str(Path(config.rootpath, d)) for d in config.getini(
            "ctgen_include_dirs")),
        defines=_defines(config.getini("ctgen_defines")),
        functions=_globs(setting(config, "functions", None)),
        exclude=_globs(setting(config, "exclude", None)),
        criterion=_choice(config, "criterion", CRITERION_VALUES),
        goals=_choice(config, "goals", GOAL_SCOPE_VALUES),
        boundary_cases=_choice(config, "boundary_cases", BOUNDARY_CASES_VALUES),
        max_depth=_number(config, "max_depth", defaults.max_depth, int, 1),
        max_recursion=_number(config, "max_recursion", defaults.max_recursion, int, 1),
        work=_work_budget(setting(config, "work", defaults.work)),
        timeout=_number(config, "timeout", defaults.timeout, float, 0.001),
        memory=_memory(config, defaults.memory),
        jobs=_number(config, "jobs", defaults.jobs, int, 0),
        array_size=_number(config, "array_size", defaults.array_size, int, 1),
        stub_globals=_choice(config, "stub_globals", STUB_GLOBALS_VALUES),
        input_globals=_globs(setting(config, "input_globals", None)),
        setup=_setup_specs(setting(config, "setup", None)),
        signed_overflow=_choice(config, "signed_overflow", SIGNED_OVERFLOW_VALUES),
        leaks=_choice(config, "leaks", LEAKS_VALUES),
        stub_specs=_existing_files(config, "ctgen_stub_specs"),
        sources=_existing_files(config, "ctgen_sources"),
        case_timeout=_number(config, "case_timeout", defaults.case_timeout, float, 0.001),
        isolate=_choice(config, "isolate", ISOLATION_VALUES),
        proof=bool(setting(config, "proof", False)),
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
    from ..pipeline import read_compile_database

    try:
        return read_compile_database(Path(path))
    except CtgenError as err:  # compile_db.CompileDatabaseError
        raise pytest.UsageError(str(err)) from None


def report_specs(config: pytest.Config) -> list[str]:
    """The `--ctgen-report` values: the reports to write, and `mcdc`."""
    return [str(s) for s in setting(config, "report", []) or []]


def measures_mcdc(config: pytest.Config) -> bool:
    """Whether the session measures MC/DC: the criterion is mcdc, a report asks for it or
    a gate needs it."""
    return (str(setting(config, "criterion", "")) == "mcdc" or "mcdc" in report_specs(config)
            or setting(config, "fail_under_mcdc", None) is not None)


def check_report_settings(config: pytest.Config) -> None:
    """`--ctgen-trace` and every `--ctgen-report` name a report pytest-ctgen writes: a
    usage error before the session, not a failure at its end."""
    trace = setting(config, "trace", None)
    if trace:
        from ..pipeline import check_trace_path

        problem = check_trace_path(str(trace))
        if problem:
            raise pytest.UsageError(problem)
    specs = setting(config, "report", []) or []
    if not specs:
        return
    from ..pipeline import parse_report_spec

    for spec in specs:
        try:
            parse_report_spec(spec)
        except ValueError as err:
            raise pytest.UsageError(str(err)) from None
