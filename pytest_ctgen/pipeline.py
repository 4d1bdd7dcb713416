"""The one place that wires the layers together: C file -> cases -> harness -> runs -> coverage."""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Sequence, TypeVar

from filelock import FileLock, Timeout

from . import __version__
from .c_harness_files import harness_dir
from .cache_bound import prune, unit_group, used
from .case_reader import build_from_json, file_cases_from_doc, file_cases_from_json, load_json
from .cases import FileCases, FunctionCases, GlobalStub, Outcome, STOP_MEMORY, STOP_SKIPPED, STOP_TIME, \
    StubPrototype, file_cases_to_json, FORMAT_VERSION
from .errors import CtgenError, SourceLocation
from .export_schema import SchemaError, UnitNames
from .frontend.loader import load_unit
from .frontend.signatures import UnitSignatures, with_signatures
from .frontend.preprocess import defined_macros, preprocess
from .frontend.unit import Function, SkippedDefinition, Unit
from .ir.cfg import Call
from .ir.lower import Program, lower_unit
from .options import Options, absolute_flags


log = logging.getLogger("pytest_ctgen")
T = TypeVar("T")


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
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


@dataclass
class Generated:
    """The cases of a file and how long generating each function took (0 when cached)."""

    cases: FileCases
    seconds: dict[str, float] = field(default_factory=dict)
    from_cache: bool = False
    preprocessed: str = ""


@dataclass(frozen=True)
class Progress:
    """What generation reports while it runs: a function started, is still working (every
    few seconds), or is done with its cases and the outcomes they cover by the generator's
    reckoning (gcov measures later)."""

    file: str  # the unit as shown
    function: str
    state: str  # "started", "working" or "done"
    seconds: float  # spent so far; for "started": the time.monotonic() it started at
    cases: int = 0
    outcomes_covered: int = 0
    outcomes_total: int = 0
    stop_reason: str = ""
    # "started": the function's result should its generation be stopped from outside;
    # "done": its result
    result: FunctionCases | None = None


ProgressFn = Callable[[Progress], None]
# How often a function that takes long reports that it is still working.
WORKING_EVERY = 5.0
#: How long past its time budget the generation of one function may run before its child
#: is stopped from outside (the search checks the budget between its steps; one step, a
#: solver query or a huge expression, can run long). The other functions still generate.
HARD_STOP_GRACE = 10.0


def generate_file(path: Path, display: str, options: Options,
                  cache_dir: Path | None = None, *, progress: ProgressFn | None = None,
                  fresh_since: float | None = None, wait: bool = True) -> Generated | None:
    """Generate the cases of every selected function defined in `path`. Raises CtgenError
    when the file does not preprocess or parse.

    With a `cache_dir`, a result is generated once and then served from the cache, also to
    several processes at once (pytest-xdist workers): a file lock per cache entry makes
    the others wait for the first. With `wait=False`, returns None at once when another
    process holds that lock. With `options.regenerate`, entries older than `fresh_since`
    (the session's start) are not served."""
    flags = options.compiler_flags(path)
    text = preprocess(path, flags, options.files_for(path))
    # the flags also count where they leave no trace in the text (-m32, -funsigned-char)
    key = generation_key("\0".join([text, display, *flags]), options)
    if cache_dir is None:
        fc, seconds = _generate_isolated(path, display, options, text, progress)
        return Generated(fc, seconds, False, text)
    group = cache_dir / unit_group(display)  # this unit's results, the last few kept
    group.mkdir(parents=True, exist_ok=True)
    cache_file = group / f"{key}.json"
    try:
        with FileLock(str(cache_file) + ".lock", timeout=-1 if wait else 0):
            if cache_file.is_file() and (not options.regenerate or (
                    fresh_since is not None and cache_file.stat().st_mtime >= fresh_since)):
                doc = json.loads(cache_file.read_text(encoding="utf-8"))
                if not options.regenerate:
                    used(cache_file)
                unit = load_unit(path, flags, preprocessed=text, probe=False)  # signatures
                cases = file_cases_from_json(doc["cases"], signatures=UnitSignatures(unit))
                return Generated(with_signatures(cases, unit), doc.get("seconds", {}), True,
                                 text)
            fc, seconds = _generate_isolated(path, display, options, text, progress)
            tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"cases": file_cases_to_json(fc), "seconds": seconds}),
                           encoding="utf-8")
            tmp.replace(cache_file)
        prune([p for p in group.glob("*.json") if p != cache_file])
        return Generated(fc, seconds, False, text)
    except Timeout:
        return None


class _ChildEnded(Exception):
    """The generation child was stopped from outside, or died, before it finished."""

    def __init__(self, signal_number: int | None) -> None:
        super().__init__(f"signal {signal_number}")
        self.signal_number = signal_number


def _generate_isolated(path: Path, display: str, options: Options, text: str,
                       progress: ProgressFn | None) -> tuple[FileCases, dict[str, float]]:
    """_generate_cases in a forked child, its progress passed on, with a "working" report
    every WORKING_EVERY seconds of a function that takes long. A function still generating
    HARD_STOP_GRACE seconds past its time budget, or whose generation kills its child (the
    memory limit, a crash of the solver), keeps the cases of the functions before it: it
    gets no case and says why, and a new child generates the functions after it."""
    current: list[Progress] = []
    known: dict[str, FunctionCases] = {}  # the results the children sent

    def on_message(message: Progress) -> None:
        current[:] = [message] if message.state == "started" else []
        if message.state == "done" and message.result is not None:
            known[message.function] = message.result
        if progress is not None:
            progress(replace(message, result=None))

    def on_idle() -> None:
        if current and progress is not None:
            started = current[0]
            progress(replace(started, state="working",
                             seconds=time.monotonic() - started.seconds))

    def overran() -> bool:
        return bool(current) and options.timeout > 0 and \
            time.monotonic() - current[0].seconds > options.timeout + HARD_STOP_GRACE

    while True:
        try:
            return _isolated(_generate_cases, path, display, options, text, dict(known),
                             on_message=on_message, on_idle=on_idle, stop_when=overran,
                             memory_mib=options.memory)
        except _ChildEnded as ended:
            if not current or current[0].result is None:
                raise CtgenError(f"generation crashed with {ended}") from None
            started = current[0]
            seconds = time.monotonic() - started.seconds
            if overran():
                result = replace(started.result, stop_reason=STOP_TIME)
            elif ended.signal_number == signal.SIGKILL:  # the kernel's, out of memory
                result = replace(started.result, stop_reason=STOP_MEMORY)
            else:
                result = replace(started.result, skip_reason=(
                    f"generation crashed with {ended}"), stop_reason=STOP_SKIPPED)
            known[started.function] = replace(result, generation_seconds=seconds)
            on_message(Progress(display, started.function, "done", seconds,
                                outcomes_total=result.outcomes_total,
                                stop_reason=result.stop_reason, result=known[started.function]))


def _isolated(fn: Callable[..., T], *args: object,
              on_message: Callable[[Progress], None] | None = None,
              on_idle: Callable[[], None] | None = None,
              stop_when: Callable[[], bool] | None = None, memory_mib: int = 0) -> T:
    """`fn(*args, send=...)` in a forked child where fork exists. Every generation then
    starts from the same z3 state, whatever this process did before (z3's shared context
    carries AST ids, and with them the solver's choices, from one generation into the
    next), so the same file gives the same cases in any session and on any xdist worker;
    and a crash of the solver cannot take the session down. What the child `send`s reaches
    `on_message` while it runs; `on_idle` is called after each WORKING_EVERY seconds
    without a message. The child may take `memory_mib` MiB beyond what it has at the fork
    (0: no limit); when `stop_when()` becomes true it is killed. Raises _ChildEnded when
    the child ends without its result."""
    def deliver(message: Progress) -> None:
        if on_message is not None:
            on_message(message)

    if not hasattr(os, "fork"):
        return with_deep_stack(lambda: fn(*args, send=deliver))
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_fd)
        try:
            _limit_memory(memory_mib)
            out = os.fdopen(write_fd, "wb")

            def send(message: Progress) -> None:
                _write_frame(out, (False, message))

            try:
                payload: tuple[bool, object] = (
                    True, (True, with_deep_stack(lambda: fn(*args, send=send))))
            except BaseException as err:  # noqa: BLE001 - everything goes to the parent
                payload = (True, (False, _picklable(err)))
            _write_frame(out, payload)
            out.close()
        finally:
            os._exit(0)
    os.close(write_fd)
    result: tuple[bool, object] | None = None
    with os.fdopen(read_fd, "rb") as inp:
        try:
            for final, body in _read_frames(inp, on_idle, stop_when):
                if final:
                    result = body  # type: ignore[assignment]
                else:
                    deliver(body)  # type: ignore[arg-type]
        except _StopChild:
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if result is None:
        raise _ChildEnded(os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
    ok, value = result
    if ok:
        return value  # type: ignore[return-value]
    raise value  # type: ignore[misc]


#: The stack and recursion limit generation runs with: C that real code and its macros
#: nest hundreds of levels deep is parsed and lowered recursively.
DEEP_STACK_BYTES = 1 << 30
DEEP_RECURSION_LIMIT = 200_000


def with_deep_stack(fn: Callable[[], T]) -> T:
    """`fn()` in a thread with a stack of DEEP_STACK_BYTES (address space, touched only as
    deep as it is used) and Python's recursion limit raised to match."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, fn()))
        except BaseException as err:  # noqa: BLE001 - raised again in the caller
            outcome.append((False, err))

    old_size, old_limit = threading.stack_size(), sys.getrecursionlimit()
    threading.stack_size(DEEP_STACK_BYTES)
    sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
    try:
        worker = threading.Thread(target=run, name="ctgen-generation")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def _write_frame(out: BinaryIO, body: object) -> None:
    data = pickle.dumps(body)
    out.write(len(data).to_bytes(8, "little") + data)
    out.flush()


class _StopChild(Exception):
    """The parent stops reading a child it is about to kill."""


def _limit_memory(mib: int) -> None:
    """This process may take `mib` MiB of address space beyond what it has now and the
    deep stack generation runs on (0: no limit): beyond, allocations fail (MemoryError)."""
    if mib <= 0:
        return
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            now = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = now + DEEP_STACK_BYTES + mib * (1 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass  # no /proc (macOS) or no such limit: generation runs unlimited, as before


def _read_frames(inp: BinaryIO, on_idle: Callable[[], None] | None,
                 stop_when: Callable[[], bool] | None = None) -> Iterator[Any]:
    """The child's frames until it closes the pipe (a truncated frame ends them). Raises
    _StopChild as soon as `stop_when()` is true (it is asked every second)."""
    buffer = b""
    fd = inp.fileno()
    quiet_since = time.monotonic()
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:  # what the child sent is read first: it may have finished in time
            if stop_when is not None and stop_when():
                raise _StopChild
            if on_idle is not None and time.monotonic() - quiet_since >= WORKING_EVERY:
                quiet_since = time.monotonic()
                on_idle()
            continue
        quiet_since = time.monotonic()
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        buffer += chunk
        while len(buffer) >= 8:
            size = int.from_bytes(buffer[:8], "little")
            if len(buffer) < 8 + size:
                break
            yield pickle.loads(buffer[8:8 + size])
            buffer = buffer[8 + size:]


def _picklable(err: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:  # noqa: BLE001
        return CtgenError(f"internal error of pytest-ctgen: {type(err).__name__}: {err}")


def _generate_cases(path: Path, display: str, options: Options, text: str,
                    known: dict[str, FunctionCases] | None = None,
                    send: Callable[[Progress], None] | None = None
                    ) -> tuple[FileCases, dict[str, float]]:
    """The cases of the functions of `path`; those in `known` (a child before this one sent
    them, or was stopped generating them) are not generated again."""
    from .search.generator import SearchOptions, generate_function  # z3: generation only

    flags = options.compiler_flags(path)
    unit = load_unit(path, flags, preprocessed=text)
    program = lower_unit(unit)
    search = SearchOptions(max_depth=options.max_depth, work=options.work,
                           timeout=options.timeout,
                           array_size=options.array_size, stub_globals=options.stub_globals,
                           signed_overflow=options.signed_overflow, proof=options.proof)
    functions: list[FunctionCases] = []
    seconds: dict[str, float] = {}
    for fn in unit.defined_functions():
        if not _same_file(fn.location.file, path) or not options.selects(fn.name) or \
                fn.name in program.specs:
            continue
        if known and fn.name in known:
            functions.append(known[fn.name])
            seconds[fn.name] = known[fn.name].generation_seconds
            continue
        start = time.monotonic()
        stopped = _stopped(fn, program.cfgs.get(fn.name), STOP_TIME)
        if send is not None:
            send(Progress(display, fn.name, "started", start, result=stopped))
        failure = program.failures.get(fn.name)
        if failure is not None:
            result = _skipped(fn, _shown_error(failure, path, display))
        else:
            try:
                result = generate_function(program, fn.name, search,
                                           lambda file: shown_path(file, path, display))
            except CtgenError as err:
                result = _skipped(fn, _shown_error(err, path, display))
            except MemoryError:
                result = replace(stopped, stop_reason=STOP_MEMORY)
            except Exception as err:  # a defect of ours must not end the session
                if "out of memory" in str(err):  # z3's words for a failed allocation
                    result = replace(stopped, stop_reason=STOP_MEMORY)
                else:
                    log.exception("generation of %s failed", fn.name)
                    result = _skipped(fn, f"internal error of pytest-ctgen: "
                                          f"{type(err).__name__}: {err}")
        seconds[fn.name] = time.monotonic() - start
        functions.append(replace(result, generation_seconds=seconds[fn.name]))
        if send is not None:
            covered = {o for c in result.cases for o in c.covered}
            send(Progress(display, fn.name, "done", seconds[fn.name], len(result.cases),
                          len(covered), result.outcomes_total, result.stop_reason,
                          functions[-1]))
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
    return with_signatures(FileCases(display, tuple(functions), stubs,
                                     global_stubs=global_stubs), unit), seconds


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
    from .symbolic.libc import is_modelled  # z3: generation only

    called = {s.function for cfg in program.cfgs.values() for b in cfg.blocks
              for s in b.stmts if isinstance(s, Call)}
    called.update(program.designated_functions)  # a function pointer may call them

    def shown(location: SourceLocation) -> str:
        file = shown_path(location.file, path, display) if path else location.file
        return f"{file}:{location.line}"

    stubs = []
    for f in program.unit.functions.values():
        if f.name not in called:
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
    return tuple(stubs)


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


def _stopped(fn: Function, cfg: Any, stop: str) -> FunctionCases:
    """The result of `fn` (its CFG `cfg`, None if it has none) when its generation is
    stopped before it has one: no case, every outcome not reached."""
    from .search.generator import outcome_of  # z3: generation only

    outcomes: tuple[Outcome, ...] = ()
    if cfg is not None:
        outcomes = tuple(outcome_of(cfg, e) for e in cfg.branch_edges())
    return FunctionCases(fn.name, fn.location.line, fn.prototype, (), stop,
                         outcomes_total=len(outcomes), not_reached=outcomes)


def _skipped(fn: Function | SkippedDefinition, reason: str) -> FunctionCases:
    return FunctionCases(fn.name, fn.location.line, fn.prototype, (), STOP_SKIPPED,
                         skip_reason=reason)


def unit_for_build(path: Path, cases: FileCases, flags: list[str]
                   ) -> tuple[str, dict[str, str], list[str]]:
    """How the harness of `cases` includes the unit `path`: by its path, or, when the unit
    uses annotations, specifies external functions itself or is preprocessed, as a copy
    beside the harness (see codegen.unit_copy); and the files and flags that takes."""
    from .codegen.unit_copy import UNIT_COPY, unit_copy_text

    copy = unit_copy_text(path, str(path), cases.stubs, cases.source)
    if copy is None:
        return str(path), {}, flags
    # the copy's quoted includes are looked up where the unit is
    return UNIT_COPY, {UNIT_COPY: copy}, ["-iquote", str(path.parent), *flags]


class FileRun:
    """The compiled harness of one file's cases, built on first use, and its runs."""

    def __init__(self, path: Path, generated: Generated, options: Options,
                 build_dir: Path | None, *, cflags: Sequence[str] | None = None,
                 sources: Sequence[Path] | None = None,
                 missing: frozenset[str] = frozenset()) -> None:
        self.path = path.resolve()
        self.generated = generated
        self.options = options
        self.build_dir = build_dir
        # how the unit is built: the session's options, or an export's recipe (replay)
        self.cflags = list(cflags) if cflags is not None else \
            options.compiler_flags(self.path)
        self.sources = list(sources) if sources is not None else \
            list(options.sources_for(self.path))
        self._lib = None
        self._build = None
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

    def library(self):  # -> runner.build.HarnessLibrary
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
                    extra_files=extra_files, prune_others=self.build_dir is not None)
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

    def run(self, function: str, number: int):  # -> runner.execute.CaseRun
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

    def coverage(self):  # -> dict[str, coverage.gcov.FunctionCoverage]
        from .coverage.gcov import measure

        if self._build is None or not self.ran:
            return {}
        if self.options.isolate != "fork" and self._lib is not None:
            self._lib.flush_coverage()
        return measure(self._build.directory, self.path)


class ReplayError(CtgenError):
    """An exported cases file that cannot be replayed."""


def replay_run(json_path: Path, options: Options, build_dir: Path | None) -> FileRun:
    """The run of an export's cases (`name.ctgen.json`, DESIGN §2) against the unit its
    build recipe names, as it is now: no solver, no generation. Every field is checked
    (case_reader) and the unit's own prototypes replace the file's; a function the unit
    no longer defines fails its cases. Raises ReplayError naming the file and field."""
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
        recipe = build_from_json(doc)
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
            loaded = load_unit(unit, cflags, preprocessed=preprocessed, probe=False)
        except CtgenError as err:
            raise ReplayError(f"{json_path}: cannot read the unit it tests, "
                              f"{recipe.unit}: {err}") from None
        names = unit_names(loaded)
        signatures = UnitSignatures(loaded)  # the unit's; never the file's text
        cases = file_cases_from_doc(doc, names, signatures)
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
                   options, build_dir, cflags=cflags, sources=sources, missing=missing)


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
