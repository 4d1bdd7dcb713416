"""Running one case of a loaded harness: in a forked child (a crash or a hang fails that case
only) or in this process."""
from __future__ import annotations

import math
import os
import select
import signal
import time
import traceback
from dataclasses import dataclass

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


def _child(lib: HarnessLibrary, index: int, alarm_seconds: int, write_fd: int) -> None:
    """The forked child: never returns."""
    try:
        # Python ignores SIGPIPE and catches SIGINT; the unit gets the C defaults.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        lib.install_crash_flush(alarm_seconds)
        passed, message = lib.run_case(index)
        payload = ("P" if passed else "F") + message
    except BaseException:
        payload = "E" + traceback.format_exc()
    try:
        signal.alarm(0)  # the case is over: the flush below must not count as a hang
        data = payload.encode("utf-8", "replace")
        while data:
            data = data[os.write(write_fd, data):]
        os.close(write_fd)
        lib.flush_coverage()
    finally:
        os._exit(0)


def _reap(pid: int, deadline: float | None) -> int:
    """The child's wait status; past `deadline` (monotonic) it is killed first."""
    while deadline is not None:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    return os.waitpid(pid, 0)[1]


def _run_forked(lib: HarnessLibrary, index: int, timeout: float) -> CaseRun:
    alarm_seconds = max(1, math.ceil(timeout)) if timeout and timeout > 0 else 0
    deadline_after = alarm_seconds + KILL_MARGIN if alarm_seconds else None
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(lib, index, alarm_seconds, write_fd)
    os.close(write_fd)
    chunks: list[bytes] = []
    status: int | None = None
    killed = False
    try:
        eof = False
        while not eof:
            wait = None
            if deadline_after is not None:
                wait = deadline_after - (time.monotonic() - start)
                if wait <= 0:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
                    break
            ready, _, _ = select.select([read_fd], [], [], wait)
            if ready:
                chunk = os.read(read_fd, 65536)
                if chunk:
                    chunks.append(chunk)
                else:
                    eof = True
        status = _reap(pid, None if killed or deadline_after is None
                       else start + deadline_after)
    finally:
        os.close(read_fd)
        if status is None:  # interrupted (e.g. KeyboardInterrupt): leave no child behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    duration = time.monotonic() - start
    payload = b"".join(chunks).decode("utf-8", "replace")

    if killed or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM):
        shown = _format_seconds(timeout if timeout else alarm_seconds)
        return CaseRun(TIMEOUT, f"timed out after {shown} s", "SIGALRM" if not killed
                       else "SIGKILL", duration)
    if os.WIFSIGNALED(status):
        name = _signal_name(os.WTERMSIG(status))
        return CaseRun(CRASHED, f"crashed with {name}", name, duration)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    if not payload:
        return CaseRun(CRASHED, f"the case exited with status {code} before finishing",
                       None, duration)
    kind, message = payload[0], payload[1:]
    if kind == "P":
        return CaseRun(PASSED, message, None, duration)
    if kind == "F":
        return CaseRun(FAILED, message, None, duration)
    return CaseRun(CRASHED, f"internal error in the child: {message.strip()}", None, duration)
