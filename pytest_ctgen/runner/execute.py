"""Running one case of a loaded harness: in a forked child (a crash or a hang fails that case
only) or in this process."""
from __future__ import annotations

import math
import signal
import time
import traceback
from dataclasses import dataclass

from ..forked import run_forked
from .build import HarnessLibrary

PASSED = "passed"
FAILED = "failed"
CRASHED = "crashed"
TIMEOUT = "timeout"

ISOLATE_FORK = "fork"
ISOLATE_NONE = "none"

# Time the parent grants beyond the child's own alarm (gcov flushing, process teardown).
KILL_MARGIN = 2.0


@dataclass(frozen=True)
class CaseRun:
    """How one run of a case ended."""

    status: str  # PASSED, FAILED, CRASHED or TIMEOUT
    message: str = ""  # the failed checks, or how it crashed / timed out
    signal: str | None = None  # e.g. "SIGSEGV" when a signal ended the run
    duration: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == PASSED


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _format_seconds(seconds: float) -> str:
    return f"{seconds:g}"


def run_case(lib: HarnessLibrary, index: int, timeout: float = 5.0,
             isolate: str = ISOLATE_FORK) -> CaseRun:
    """Run case `index` of `lib`.

    isolate "fork": in a child process, so a crash or a hang fails this case only; the child
    dies by SIGALRM after `timeout` seconds (rounded up to whole seconds; 0 for no limit),
    flushing gcov data first. isolate "none": in this process, without a time limit; a crash
    ends the session."""
    if isolate == ISOLATE_NONE:
        return _run_in_process(lib, index)
    if isolate != ISOLATE_FORK:
        raise ValueError(f"unknown isolation {isolate!r} (use 'fork' or 'none')")
    return _run_forked(lib, index, timeout)


def _run_in_process(lib: HarnessLibrary, index: int) -> CaseRun:
    start = time.monotonic()
    passed, message = lib.run_case(index)
    lib.flush_coverage()
    return CaseRun(PASSED if passed else FAILED, message, None, time.monotonic() - start)


def _case_in_child(lib: HarnessLibrary, index: int, alarm_seconds: int) -> tuple[str, str]:
    """The forked child's run of the case: ("P" passed, "F" failed or "E" an internal
    error, the message)."""
    try:
        # Python ignores SIGPIPE and catches SIGINT; the unit gets the C defaults.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        lib.install_crash_flush(alarm_seconds)
        passed, message = lib.run_case(index)
        outcome = ("P" if passed else "F", message)
    except BaseException:
        outcome = ("E", traceback.format_exc())
    signal.alarm(0)  # the case is over: the flush after it must not count as a hang
    return outcome


def _run_forked(lib: HarnessLibrary, index: int, timeout: float) -> CaseRun:
    alarm_seconds = max(1, math.ceil(timeout)) if timeout and timeout > 0 else 0
    start = time.monotonic()
    # the parent kills the child KILL_MARGIN past its own alarm, when it has one
    deadline = start + alarm_seconds + KILL_MARGIN if alarm_seconds else None
    ended = run_forked(
        lambda send: _case_in_child(lib, index, alarm_seconds),
        stop_when=None if deadline is None else lambda: time.monotonic() >= deadline,
        wait_at_most=lambda: None if deadline is None else deadline - time.monotonic(),
        after_sending=lib.flush_coverage, reap_by=deadline)
    duration = time.monotonic() - start

    killed, number = ended.killed, ended.signal_number
    if killed or number == signal.SIGALRM:
        shown = _format_seconds(timeout if timeout else alarm_seconds)
        return CaseRun(TIMEOUT, f"timed out after {shown} s", "SIGALRM" if not killed
                       else "SIGKILL", duration)
    if number is not None:
        name = _signal_name(number)
        return CaseRun(CRASHED, f"crashed with {name}", name, duration)
    if not ended.sent:
        code = ended.exit_code if ended.exit_code is not None else -1
        return CaseRun(CRASHED, f"the case exited with status {code} before finishing",
                       None, duration)
    kind, message = ended.result()
    if kind == "P":
        return CaseRun(PASSED, message, None, duration)
    if kind == "F":
        return CaseRun(FAILED, message, None, duration)
    return CaseRun(CRASHED, f"internal error in the child: {message.strip()}", None, duration)
