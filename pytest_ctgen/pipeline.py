"""The one place that wires the layers together: C file -> cases -> harness -> runs -> coverage.

It also hands the plugin what the plugin uses of report/ and compile_db, since the plugin
imports nothing of the package but the pipeline, the options and the leaf modules (DESIGN
§3): those names are imported here `as` themselves, the form that marks a re-export."""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from . import __version__
from .c_harness_files import harness_dir
from .cache_bound import prune, unit_group, used
from .case_reader import build_from_json, file_cases_from_doc, file_cases_from_json, load_json
from .cases import (
    ALLOCATOR_FUNCTIONS,
    FORMAT_VERSION,
    STOP_MEMORY,
    STOP_SKIPPED,
    STOP_TIME,
    FileCases,
    FunctionCases,
    GlobalStub,
    Outcome,
    StopReason,
    StubPrototype,
    stopped_loops,
)
from .case_writer import file_cases_to_json
from .compile_db import read_compile_database as read_compile_database
from .coverage.mcdc_file import McdcFile as McdcFile
from .coverage.mcdc_file import merge_mcdc_files as merge_mcdc_files
from .errors import CtgenError, SourceLocation
from .file_run import FileRun as FileRun
from .file_run import Generated as Generated
from .export_schema import SchemaError, UnitNames
from .frontend.ctype import INT, FunctionType
from .frontend.function_uses import used_functions
from .library_models import is_modelled
from .frontend.loader import load_unit
from .frontend.locations import renamed_files
from .frontend.preprocess import defined_macros, preprocess
from .frontend.signatures import UnitSignatures, with_signatures
from .frontend.unit_shapes import unit_shapes
from .frontend.unit import Function, SkippedDefinition, Unit
from .generation_child import Progress, ProgressFn, generate_isolated
from .kept_cases import FoundCase, KeptCases
from .ir.cfg import Call
from .ir.lower import Program, lower_unit
from .options import Options
from .value_forms import with_forms
from .path_flags import absolute_flags
from .report.mcdc_table import with_mcdc as with_mcdc
from .report.table import Row as Row
from .report.table import Totals as Totals
from .report.table import account_outcomes as account_outcomes
from .report.table import coverage_rows as coverage_rows
from .report.table import format_table as format_table
from .report.table import merge_rows as merge_rows
from .report.table import row_from_json as row_from_json
from .report.table import row_to_json as row_to_json
from .report.table import totals as totals
from .report.trace import Requirement as Requirement
from .report.trace import TracedFunction as TracedFunction
from .report.trace import build_matrix as build_matrix
from .report.trace import check_trace_path as check_trace_path
from .report.trace import functions_from_json as functions_from_json
from .report.trace import functions_to_json as functions_to_json
from .report.trace import matrix_summary as matrix_summary
from .report.trace import report_outcome as report_outcome
from .report.trace import traced_function as traced_function
from .report.trace import write_trace as write_trace
from .report.verdicts import annotation_verdicts as annotation_verdicts
from .report.writers import ReportUnit as ReportUnit
from .report.writers import merge_report_units as merge_report_units
from .report.writers import parse_report_spec as parse_report_spec
from .report.writers import report_units as report_units
from .report.writers import write_coverage_reports as write_coverage_reports
from .report.writers import write_json as write_json

if TYPE_CHECKING:  # the engine's run-time parts are imported when a run needs them
    from .search.generator import SearchOptions


log = logging.getLogger("pytest_ctgen")


def _same_file(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def solver_versions() -> str:
    """The versions of the solvers generation uses (read without importing them): another
    solver version may answer a query with another model."""
    from importlib import metadata

    versions = []
    for package in ("z3-solver", "bitwuzla"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} absent")
    return ", ".join(versions)


@functools.lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """A digest of pytest-ctgen's own code and the solvers' versions: cached cases of
    another engine are stale."""
    h = hashlib.sha256(__version__.encode())
    h.update(solver_versions().encode())
    package = Path(__file__).resolve().parent
    for file in sorted([*package.rglob("*.py"), *harness_dir().glob("*.h")]):
        h.update(file.read_bytes())
    return h.hexdigest()


def generation_key(preprocessed: str, options: Options) -> str:
    h = hashlib.sha256()
    for part in (engine_fingerprint(), preprocessed, options.generation_key()):
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


def generate_file(path: Path, display: str, options: Options,
                  cache_dir: Path | None = None, *, progress: ProgressFn | None = None,
                  fresh_since: float | None = None, wait: bool = True, ahead: bool = False
                  ) -> Generated | None:
    """Generate the cases of every selected function defined in `path`. Raises CtgenError
    when the file does not preprocess or parse.

    With a `cache_dir`, a result is generated once and then served from the cache, also to
    several processes at once (pytest-xdist workers): a file lock per cache entry makes
    the others wait for the first. With `wait=False`, returns None at once when another
    process holds that lock. With `options.regenerate`, entries older than `fresh_since`
    (the session's start) are not served; entries used since then are not pruned. With
    `ahead` (a process generating ahead of the session's collection, plugin/ahead.py), a
    cached result is not read (None) and a new one is marked as the session's (its
    `fresh_since`), which `Generated.ahead` tells the collection."""
    flags = options.compiler_flags(path)
    text = preprocess(path, flags, options.files_for(path))
    # the flags also count where they leave no trace in the text (-m32, -funsigned-char)
    key = generation_key("\0".join([text, display, *flags]), options)
    if cache_dir is None:
        fc, seconds = generate_isolated(_generate_cases, path, display, options, text,
                                        progress)
        return Generated(fc, seconds, False, text)
    group = cache_dir / unit_group(display)  # this unit's results, the last few kept
    group.mkdir(parents=True, exist_ok=True)
    cache_file = group / f"{key}.json"
    try:
        with FileLock(str(cache_file) + ".lock", timeout=-1 if wait else 0):
            if cache_file.is_file() and (not options.regenerate or (
                    fresh_since is not None and cache_file.stat().st_mtime >= fresh_since)):
                if ahead:
                    return None
                doc = json.loads(cache_file.read_text(encoding="utf-8"))
                if not options.regenerate:
                    used(cache_file)
                # signatures, and the compiler's sizes of its types (value_shapes)
                unit = load_unit(path, flags, preprocessed=text)
                made_ahead = fresh_since is not None and doc.get("ahead") == fresh_since
                return Generated(generated_cases(doc["cases"], unit), doc.get("seconds", {}),
                                 True, text, made_ahead)
            fc, seconds = generate_isolated(_generate_cases, path, display, options, text,
                                            progress)
            tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
            entry = {"cases": file_cases_to_json(fc), "seconds": seconds,
                     **({"ahead": fresh_since} if ahead else {})}
            tmp.write_text(json.dumps(entry), encoding="utf-8")
            tmp.replace(cache_file)
        prune([p for p in group.glob("*.json") if p != cache_file], session_start=fresh_since)
        return Generated(fc, seconds, False, text)
    except Timeout:
        return None



def generated_cases(text: str, unit: Unit) -> FileCases:
    """The cases the generator wrote of `unit` (file_cases_to_json, a cache entry), read
    back with what the unit tells: its functions' signatures, its values' shapes."""
    signatures = UnitSignatures(unit)
    cases = file_cases_from_json(text, signatures=signatures, shapes=unit_shapes(unit))
    return with_signatures(cases, unit, signatures)


def _generate_cases(path: Path, display: str, options: Options, text: str,
                    known: dict[str, FunctionCases] | None = None,
                    send: Callable[[Progress], None] | None = None
                    ) -> tuple[FileCases, dict[str, float]]:
    """The cases of the functions of `path`; those in `known` (a child before this one sent
    them, or was stopped generating them) are not generated again."""
    from .search.options import SearchOptions

    flags = options.compiler_flags(path)
    unit = load_unit(path, flags, preprocessed=text)
    _check_names(unit, path, display)
    program = lower_unit(unit)
    search = SearchOptions(max_depth=options.max_depth, max_recursion=options.max_recursion,
                           work=options.work,
                           timeout=options.timeout,
                           array_size=options.array_size,
                           stub_globals=options.stub_globals,
                           input_globals=options.input_globals, setup=options.setup,
                           signed_overflow=options.signed_overflow, leaks=options.leaks,
                           proof=options.proof,
                           criterion=options.criterion, goals=options.goals,
                           boundary_cases=options.boundary_cases)
    functions: list[FunctionCases] = []
    seconds: dict[str, float] = {}
    # the names #line directives of the unit give its lines (bison, flex)
    renamed = renamed_files(text, lambda name: _same_file(name, path))
    for fn in unit.defined_functions():
        if fn.location.file in renamed and options.selects(fn.name):
            functions.append(_skipped(fn, f"{fn.location}: defined where a #line directive "
                                          f"of the unit names {fn.location.file}: lines of "
                                          "another file are not generated for"))
            continue
        if not _same_file(fn.location.file, path) or not options.selects(fn.name) or \
                fn.name in program.specs:
            continue
        if known and fn.name in known:
            functions.append(known[fn.name])
            seconds[fn.name] = known[fn.name].generation_seconds
            continue
        start = time.monotonic()
        stopped = _stopped(fn, program.cfgs.get(fn.name), STOP_TIME)
        kept = KeptCases()
        if send is not None:
            send(Progress(display, fn.name, "started", start, result=stopped))
        result = _generate_function(program, fn, search, path, display, kept, stopped,
                                    _reporter(kept, send, display, fn.name, start))
        seconds[fn.name] = time.monotonic() - start
        functions.append(replace(result, generation_seconds=seconds[fn.name]))
        if send is not None:
            send(Progress.done(display, functions[-1], seconds[fn.name]))
    for skipped in unit.skipped_definitions:  # among the others, by line
        if not _same_file(skipped.location.file, path) or not options.selects(skipped.name):
            continue
        result = _skipped(skipped, _shown_error(unit.unsupported[skipped.name], path, display))
        at = next((i for i, f in enumerate(functions) if f.line > result.line), len(functions))
        functions.insert(at, result)
        seconds[skipped.name] = 0.0
    global_stubs = tuple(GlobalStub(v.name, _defined_size(v.declaration))
                         for v in program.unit.undefined_globals())
    stubs = stubs_of(program, path, display)
    if stubs:
        macros = defined_macros(path, flags)
        stubs = tuple(replace(s, macro=True) if s.name in macros and not s.specified_in_unit
                      else s for s in stubs)
    cases = with_signatures(FileCases(display, tuple(functions), stubs,
                                      global_stubs=global_stubs,
                                      allocator=allocator_of(program)), unit)
    return with_forms(cases, unit_shapes(unit)), seconds


#: The prefix of the names the harness and its runtime define (codegen/harness_names.py).
HARNESS_PREFIX = "ctgen_"


def _check_names(unit: Unit, path: Path, display: str) -> None:
    """Raise CtgenError, located, for a function or global of the unit's own file named
    like the harness's (`ctgen_...`): the harness would not build."""
    clashes = [(location.line, location.column, name, location) for name, location in (
        *((f.name, f.location) for f in unit.functions.values()),
        *((v.name, v.location) for v in unit.globals.values()))
        if name.lower().startswith(HARNESS_PREFIX) and _same_file(location.file, path)]
    if clashes:
        _, _, name, location = min(clashes)
        where = location.shown(lambda file: shown_path(file, path, display))
        raise CtgenError(f"{where}: '{name}': names that start with {HARNESS_PREFIX} "
                         "are the test harness's; rename it")


def _reporter(kept: KeptCases, send: Callable[[Progress], None] | None, display: str,
              function: str, start: float) -> Callable[[FoundCase], None]:
    """What the generator tells of each case it makes: `kept` keeps it (for a MemoryError
    here), `send` passes it to the parent (for a child stopped from outside)."""
    def found(case: FoundCase) -> None:
        kept.add(case)
        if send is not None:
            send(Progress(display, function, "case", time.monotonic() - start, found=case))

    return found


def _generate_function(program: Program, fn: Function, search: SearchOptions, path: Path,
                       display: str, kept: KeptCases, stopped: FunctionCases,
                       found: Callable[[FoundCase], None]) -> FunctionCases:
    """What the generation of `fn` gives: its cases, or no case and why; `found` is told
    of each case as it is made, and should generation run out of memory, `stopped` (no
    case) with the cases in `kept` is its result."""
    from .search.generator import generate_function  # z3: generation only

    failure = program.failures.get(fn.name)
    if failure is not None:
        return _skipped(fn, _shown_error(failure, path, display))
    try:
        return generate_function(program, fn.name, search,
                                 lambda file: shown_path(file, path, display), found)
    except CtgenError as err:
        return _skipped(fn, _shown_error(err, path, display))
    except MemoryError:
        return kept.result(stopped, STOP_MEMORY)
    except Exception as err:  # a defect of ours must not end the session
        if "out of memory" in str(err):  # z3's words for a failed allocation
            return kept.result(stopped, STOP_MEMORY)
        log.exception("generation of %s failed", fn.name)
        return _skipped(fn, f"internal error of pytest-ctgen: {type(err).__name__}: {err}")


def shown_path(file: str, path: Path, display: str) -> str:
    """How a location in `file` is shown when the unit `path` is shown as `display`: a
    path relative to the place `display` is relative to, the same on every machine."""
    if _same_file(file, path):
        return display
    base = Path(os.path.abspath(path)).parent
    for _ in Path(display).parts[:-1]:
        base = base.parent
    try:
        return Path(os.path.relpath(os.path.abspath(file), base)).as_posix()
    except ValueError:  # another drive
        return file


def stubs_of(program: Program, path: Path | None = None, display: str = ""
             ) -> tuple[StubPrototype, ...]:
    """The stubs the harness of `program`'s unit defines: the undefined functions it calls,
    except the modelled library functions and those that end the program, and the
    functions with a specification. Locations are shown relative as `display` is."""

    # what the lowering sees called, and what any body names (also one it cannot lower)
    called = _called(program) | used_functions(program.unit)

    def shown(location: SourceLocation) -> str:
        file = shown_path(location.file, path, display) if path else location.file
        return f"{file}:{location.line}"

    stubs = []
    skipped = {s.name for s in program.unit.skipped_definitions}  # defined, not read
    for f in program.unit.functions.values():
        if f.name not in called or f.name in skipped:
            continue
        spec = program.specs.get(f.name)
        if spec is not None:
            stubs.append(replace(
                stub_prototype(f),
                preconditions=tuple((c.text, shown(c.location)) for c in spec.preconditions),
                specified_in_unit=program.unit.in_main_file(spec.location),
                static=f.is_static))
        elif not f.is_defined and not is_modelled(f.name, f.is_library):
            stubs.append(stub_prototype(f))
    # called with no declaration (gcc before 14 takes it as `int f()`): the functions
    # that call it are skipped, but the harness must still link
    for name in sorted(called - set(program.unit.functions) - {""}):  # "": through a pointer
        if not is_modelled(name, True):
            stubs.append(implicit_stub(name))
    return tuple(stubs)


def _called(program: Program) -> set[str]:
    """The functions the unit calls, or may call through a function pointer."""
    called = {s.function for cfg in program.cfgs.values() for b in cfg.blocks
              for s in b.stmts if isinstance(s, Call)}
    return called | set(program.designated_functions)


def allocator_of(program: Program) -> tuple[str, ...]:
    """The C library's allocation functions (and free) the unit calls: the harness
    renames them to its allocator (codegen/heap_allocator.py)."""
    called = _called(program)
    functions = program.unit.functions
    return tuple(name for name in ALLOCATOR_FUNCTIONS if name in called and
                 name in functions and functions[name].is_library and
                 not functions[name].is_defined and name not in program.specs)


def implicit_stub(name: str) -> StubPrototype:
    """The stub of a function the unit calls without declaring it: `int name()`."""
    from .symbolic.extract import stub_parameters  # z3: generation only

    ftype = FunctionType(INT, (), prototyped=False)
    return StubPrototype(name, f"int {name}()", False, stub_parameters((), ftype), "")


def stub_prototype(fn: Function) -> StubPrototype:
    """What the harness needs to define a stub for the undefined function `fn`."""
    from .symbolic.extract import stub_parameters  # z3: generation only

    params = stub_parameters(tuple(p.name for p in fn.params), fn.type)
    header = ""
    if fn.is_library:
        header = os.path.basename((fn.declared_in or (fn.location.file,))[0])
    return StubPrototype(fn.name, fn.prototype, fn.is_library, params, header)


def _shown_error(err: CtgenError, path: Path, display: str) -> str:
    """`err` with its location's file shown as the user reads it (never an absolute path
    of this machine: the reason is part of the cases)."""
    if isinstance(err.location, SourceLocation):
        shown = err.location.shown(lambda file: shown_path(file, path, display))
        return f"{shown}: {err.message}"
    return str(err)


#: How many elements the harness gives an extern array of unknown size that no file of the
#: build defines (the generator does not model its contents: paths that use it stop as
#: unsupported), so that the unit links.
UNSIZED_EXTERN_ELEMENTS = 1024


def _defined_size(declaration: str) -> str:
    """The declaration template of a global the harness defines: an array of unknown size
    (`int @[]`) gets UNSIZED_EXTERN_ELEMENTS elements."""
    return declaration.replace("@[]", f"@[{UNSIZED_EXTERN_ELEMENTS}]", 1)


def _stopped(fn: Function, cfg: Any, stop: StopReason) -> FunctionCases:
    """The result of `fn` (its CFG `cfg`, None if it has none) when its generation is
    stopped before it has one: no case, every outcome not reached."""
    from .search.tree import outcome_of  # z3: generation only

    outcomes: tuple[Outcome, ...] = ()
    if cfg is not None:
        outcomes = tuple(outcome_of(cfg, e) for e in cfg.branch_edges())
    return FunctionCases(fn.name, fn.location.line, fn.prototype, (), stop,
                         outcomes_total=len(outcomes), not_reached=outcomes)


def _skipped(fn: Function | SkippedDefinition, reason: str) -> FunctionCases:
    return FunctionCases(fn.name, fn.location.line, fn.prototype, (), STOP_SKIPPED,
                         skip_reason=reason)


class ReplayError(CtgenError):
    """An exported cases file that cannot be replayed."""


def replay_run(json_path: Path, options: Options, build_dir: Path | None, *,
               roots: Sequence[Path], session_start: float | None = None) -> FileRun:
    """The run of an export's cases (`name.ctgen.json`, DESIGN §2) against the unit its
    build recipe names, as it is now: no solver, no generation. Every field is checked
    (case_reader) and the unit's own prototypes replace the file's; a function the unit
    no longer defines fails its cases. The files the recipe names lie in the export's
    directory or in one of `roots` (the project: pytest's rootdir, the directory pytest
    runs in). Builds in `build_dir` used since `session_start` stay (cache_bound.prune).
    Raises ReplayError naming the file and field."""
    try:
        text = json_path.read_text(encoding="utf-8")
        doc = load_json(text)
    except (OSError, UnicodeDecodeError) as err:
        raise ReplayError(f"{json_path}: cannot read it: {err}") from None
    except json.JSONDecodeError as err:
        raise ReplayError(f"{json_path}:{err.lineno}:{err.colno}: not valid JSON: "
                          f"{err.msg}") from None
    except SchemaError as err:
        raise ReplayError(f"{json_path}: {err}") from None
    version = doc.get("version") if isinstance(doc, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and \
            version > FORMAT_VERSION:
        raise ReplayError(f"{json_path}: written by a newer pytest-ctgen (format version "
                          f"{version}, this one reads {FORMAT_VERSION})")
    try:
        recipe = build_from_json(doc, json_path.parent, roots)
        if recipe is None:
            raise ReplayError(f"{json_path}: has no build recipe (\"build\"); export the "
                              "cases again with --ctgen-export to replay them")
        here = json_path.parent
        unit = here / recipe.unit
        if not unit.is_file():
            raise ReplayError(f"{json_path}: the unit it tests, {recipe.unit} "
                              f"({os.path.normpath(unit)}), does not exist")
        cflags = absolute_flags(recipe.cflags, here)
        sources = [here / s for s in recipe.sources]
        try:
            preprocessed = preprocess(unit, cflags, tuple(sources))
            # compiled (`-c`) for the compiler's sizes of its types, never run
            loaded = load_unit(unit, cflags, preprocessed=preprocessed)
        except CtgenError as err:
            raise ReplayError(f"{json_path}: cannot read the unit it tests, "
                              f"{recipe.unit}: {err}") from None
        names = unit_names(loaded)
        signatures = UnitSignatures(loaded)  # the unit's; never the file's text
        cases = file_cases_from_doc(doc, names, signatures, unit_shapes(loaded))
        unaccounted = unaccounted_functions(loaded, cases)
        if unaccounted:
            raise ReplayError(
                f"{json_path}: build.cflags: built with them, {recipe.unit} uses "
                f"{', '.join(unaccounted)}, which the export neither stubs nor models "
                "(a -D or -U may rename a call); the harness would run the system's "
                "function of that name. Export the cases again")
        try:
            cases = with_signatures(cases, loaded, signatures)
        except CtgenError as err:  # a callback's prototype that is none in the unit
            raise ReplayError(f"{json_path}: {err}") from None
    except SchemaError as err:
        raise ReplayError(f"{json_path}: {err}") from None
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as err:
        # a defect of ours must not end the session either
        raise ReplayError(f"{json_path}: not a valid pytest-ctgen cases file "
                          f"({type(err).__name__}: {err})") from None
    missing = frozenset(f.name for f in cases.functions
                        if f.cases and f.name not in names.defined)
    return FileRun(unit, Generated(cases, from_cache=True, preprocessed=preprocessed),
                   options, build_dir, cflags=cflags, sources=sources, missing=missing,
                   session_start=session_start)


def unaccounted_functions(unit: Unit, cases: FileCases) -> list[str]:
    """The functions `unit` uses (frontend/function_uses.py) that it does not define,
    `cases` do not stub, and the generator does not model: what the harness would link
    from the system."""

    stubs = {s.name for s in cases.stubs} | {s.name for s in unit.skipped_definitions}
    unaccounted = []
    for name in sorted(used_functions(unit)):
        f = unit.functions.get(name)
        library = f is not None and f.is_library
        if (f is not None and f.is_defined) or name in stubs or is_modelled(name, library) \
                or (library and name in ALLOCATOR_FUNCTIONS):
            continue
        unaccounted.append(name)
    return unaccounted


def unit_names(unit: Unit) -> UnitNames:
    """What a replay checks an export against: the names and prototypes of `unit`, read
    from its preprocessed text with nothing of it compiled or run."""
    prototypes = {f.name: f.prototype for f in unit.functions.values()}
    prototypes.update({s.name: s.prototype for s in unit.skipped_definitions})
    return UnitNames(
        defined=frozenset(f.name for f in unit.defined_functions()) |
        frozenset(s.name for s in unit.skipped_definitions),
        prototypes=prototypes,
        params={f.name: tuple(p.name for p in f.params) for f in unit.functions.values()},
        globals=frozenset(unit.globals),
        extern_globals=frozenset(v.name for v in unit.globals.values() if v.is_extern),
        enum_constants=frozenset(unit.enum_constants),
        typedefs=frozenset(unit.typedefs))


def unbuildable(unit: Path, sources: Sequence[Path]) -> str | None:
    """Why the harness cannot `#include` the unit or a source file compiled with it (a
    name holding '"'...), or None."""
    from .export_schema import include_problem

    for path in (unit, *sources):
        problem = include_problem(Path(os.path.abspath(path)).as_posix())
        if problem:
            return f"{path.name}: the harness #includes the file by its path, which " \
                f"{problem}; rename it"
    return None


def export_runs(runs: Iterable[FileRun], out_dir: Path, mcdc: bool = False) -> list[str]:
    """Export every generated unit of `runs` (not those replayed from an export), each
    into a directory of its own (codegen.export.export_names), with `make mcdc` when
    `mcdc`; returns why a unit could not be exported (the others are exported still)."""
    from .codegen.export import export_names, write_export
    from .frontend.mcdc_instrument import instrument_unit

    generated = [run for run in runs if run.generated.cases.build is None]
    names = export_names([run.generated.cases.source for run in generated])
    problems: list[str] = []
    for run in generated:
        cases = run.generated.cases
        try:
            instrumented = instrument_unit(load_unit(run.path, run.cflags, probe=False),
                                           loops=stopped_loops(cases)) if mcdc else None
            write_export(cases, run.path, out_dir, run.cflags, sources=run.sources,
                         name=names[cases.source], mcdc=instrumented)
        except CtgenError as err:  # nothing of another owner is overwritten
            problems.append(str(err))
        except ValueError as err:  # cases the driver cannot express, as the harness
            problems.append(f"{cases.source}: cannot generate the export's driver: {err}")
    return problems
