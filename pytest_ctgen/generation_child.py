"""Generation in forked children (forked.run_forked): what a child reports while it runs
(Progress), the deep stack and the memory limit a child runs with, and the hard limits: a
function still generating HARD_STOP_GRACE seconds past its time budget, or whose
generation kills its child, keeps the cases it found until then and says why it stopped,
and a new child generates the functions after it."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from .cases import STOP_MEMORY, STOP_SKIPPED, STOP_TIME, FileCases, FunctionCases
from .errors import CtgenError
from .forked import Send, run_forked
from .kept_cases import FoundCase, KeptCases
from .options import Options

T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    """What generation reports while it runs: a function started, found a case, is still
    working (every few seconds), or is done with its cases and the outcomes they cover by
    the generator's reckoning (gcov measures later)."""

    file: str  # the unit as shown
    function: str
    state: str  # "started", "case", "working" or "done"
    seconds: float  # spent so far; for "started": the time.monotonic() it started at
    cases: int = 0
    outcomes_covered: int = 0
    outcomes_total: int = 0
    stop_reason: str = ""
    # "started": the function's result, without its cases, should its generation be
    # stopped from outside; "done": its result
    result: FunctionCases | None = None
    found: FoundCase | None = None  # "case": the case, kept should generation be stopped

    @classmethod
    def done(cls, file: str, result: FunctionCases, seconds: float) -> Progress:
        """A function's generation is done with `result`, after `seconds`."""
        covered = {o for c in result.cases for o in c.covered}
        return cls(file, result.name, "done", seconds, len(result.cases), len(covered),
                   result.outcomes_total, result.stop_reason, result)


ProgressFn = Callable[[Progress], None]
#: How often a function that takes long reports that it is still working.
WORKING_EVERY = 5.0
#: How long past its time budget the generation of one function may run before its child
#: is stopped from outside (the search checks the budget between its steps; one step, a
#: solver query or a huge expression, can run long). The other functions still generate.
HARD_STOP_GRACE = 10.0


class _ChildEnded(Exception):
    """The generation child was stopped from outside, or died, before it finished."""

    def __init__(self, signal_number: int | None, grew_mib: int = 0) -> None:
        super().__init__(f"signal {signal_number}")
        self.signal_number = signal_number
        self.grew_mib = grew_mib  # how much more memory it held at most than at its start

    def out_of_memory(self, limit_mib: int) -> bool:
        """Whether the child died of its memory limit: the kernel killed it, or, with a
        limit of `limit_mib`, it aborted or crashed after growing by half of it (the
        solver aborts the process where an allocation beyond the limit fails)."""
        if self.signal_number == signal.SIGKILL:
            return True
        return limit_mib > 0 and self.grew_mib >= limit_mib // 2 and \
            self.signal_number in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS)


def generate_isolated(generate: Callable[..., tuple[FileCases, dict[str, float]]],
                      path: Path, display: str, options: Options, text: str,
                      progress: ProgressFn | None) -> tuple[FileCases, dict[str, float]]:
    """`generate` (pipeline._generate_cases) in a forked child, its progress passed on,
    with a "working" report every WORKING_EVERY seconds of a function that takes long. A
    function still generating HARD_STOP_GRACE seconds past its time budget, or whose
    generation kills its child (the memory limit, a crash of the solver), keeps the cases
    it reported until then ("case") and says why it stopped, the functions before it keep
    theirs, and a new child generates the functions after it."""
    current: list[Progress] = []
    kept = [KeptCases()]  # the cases of the function `current` names
    known: dict[str, FunctionCases] = {}  # the results the children sent

    def on_message(message: Progress) -> None:
        if message.state == "case":
            if message.found is not None:
                kept[0].add(message.found)
            return
        current[:] = [message] if message.state == "started" else []
        kept[0] = KeptCases()
        if message.state == "done" and message.result is not None:
            known[message.function] = message.result
        if progress is not None:
            progress(replace(message, result=None))

    def on_idle() -> None:
        if current and progress is not None:
            started = current[0]
            progress(replace(started, state="working",
                             seconds=time.monotonic() - started.seconds))

    stopped: list[str] = []  # the function the hard stop killed its child in

    def overran() -> bool:
        over = bool(current) and options.timeout > 0 and \
            time.monotonic() - current[0].seconds > options.timeout + HARD_STOP_GRACE
        if over:
            stopped[:] = [current[0].function]
        return over

    while True:
        try:
            return _isolated(generate, path, display, options, text, dict(known),
                             on_message=on_message, on_idle=on_idle, stop_when=overran,
                             memory_mib=options.memory)
        except _ChildEnded as ended:
            started = current[0] if current else None
            if started is None or started.result is None:
                raise CtgenError(f"generation crashed with {ended}") from None
            placeholder = started.result
            seconds = time.monotonic() - started.seconds
            if stopped == [started.function]:  # killed by the hard stop, not by itself
                result = kept[0].result(placeholder, STOP_TIME)
            elif ended.out_of_memory(options.memory):
                result = kept[0].result(placeholder, STOP_MEMORY)
            else:  # a crash: what was found before it may be what crashed it
                result = replace(placeholder, skip_reason=(
                    f"generation crashed with {ended}"), stop_reason=STOP_SKIPPED)
            known[started.function] = replace(result, generation_seconds=seconds)
            on_message(Progress(display, started.function, "done", seconds,
                                len(result.cases),
                                len({o for c in result.cases for o in c.covered}),
                                result.outcomes_total, result.stop_reason,
                                known[started.function]))


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
    without a message other than a case found. The child may take `memory_mib` MiB beyond
    what it has at the fork (0: no limit); `stop_when()` is asked about every second, and
    when it becomes true the child is killed. Raises _ChildEnded when the child ends
    without its result."""
    def deliver(message: Progress) -> None:
        if on_message is not None:
            on_message(message)

    if not hasattr(os, "fork"):
        return with_deep_stack(lambda: fn(*args, send=deliver))
    heard = [time.monotonic()]  # when the child last sent a message other than a case
    asked = [time.monotonic()]  # when `quiet` was last asked

    def received(message: Progress) -> None:
        if message.state != "case":
            heard[0] = time.monotonic()
        deliver(message)

    def quiet() -> bool:  # asked about every second: stop the child?
        asked[0] = time.monotonic()
        if stop_when is not None and stop_when():
            return True
        if on_idle is not None and time.monotonic() - heard[0] >= WORKING_EVERY:
            heard[0] = time.monotonic()
            on_idle()
        return False

    def wait() -> float:  # a child that sends case after case is still asked about
        return max(0.0, asked[0] + 1.0 - time.monotonic())

    def work(send: Send) -> T:
        _limit_memory(memory_mib)
        return with_deep_stack(lambda: fn(*args, send=send))

    start_kib = _resident_kib()
    ended = run_forked(work, on_message=received, stop_when=quiet, wait_at_most=wait)
    if not ended.sent:
        raise _ChildEnded(ended.signal_number, max(0, ended.peak_kib - start_kib) // 1024)
    return ended.result()


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
        except BaseException as err:
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


def _statm_bytes(field: int) -> int | None:
    """A measure of this process's memory from /proc/self/statm, in bytes (field 0: its
    address space, 1: its resident set); None where /proc does not tell."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _resident_kib() -> int:
    """This process's resident memory now (KiB), what a child forked now starts with; 0
    where /proc does not tell."""
    return (_statm_bytes(1) or 0) // 1024


def _limit_memory(mib: int) -> None:
    """This process may take `mib` MiB of address space beyond what it has now and the
    deep stack generation runs on (0: no limit): beyond, allocations fail (MemoryError)."""
    now = _statm_bytes(0) if mib > 0 else None
    if now is None:
        return  # no limit asked, or no /proc (macOS): generation runs unlimited
    try:
        import resource

        limit = now + DEEP_STACK_BYTES + mib * (1 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass  # no such limit: generation runs unlimited, as before
