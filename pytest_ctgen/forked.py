"""Running a function in a forked child: what it returns, or the exception it raises, comes
back through a pipe (pickled, in length-prefixed frames, after any messages it sends while
it runs) and is read completely before the child is reaped; a parent that fails while it
waits kills and reaps the child before it passes the failure on; and the caller learns how
the child ended. What a time limit, a memory limit or a crash means stays with the caller."""
from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Generic, NoReturn, TypeVar, cast

from .errors import CtgenError

T = TypeVar("T")
#: What the child's function is given to send a message to the parent while it runs.
Send = Callable[[Any], None]


@dataclass(frozen=True)
class ChildEnd(Generic[T]):
    """How a forked child ended, and what it sent back."""

    status: int  # the wait status (os.waitpid)
    killed: bool  # by the parent, because `stop_when()` said so
    sent: bool  # the child's result (or its exception) arrived
    value: T | None = None
    error: BaseException | None = None
    peak_kib: int = 0  # the most memory the child held (its maximum resident set)

    @property
    def signal_number(self) -> int | None:
        """The signal that ended the child, None when it exited."""
        return os.WTERMSIG(self.status) if os.WIFSIGNALED(self.status) else None

    @property
    def exit_code(self) -> int | None:
        """The child's exit status, None when a signal ended it."""
        return os.WEXITSTATUS(self.status) if os.WIFEXITED(self.status) else None

    def result(self) -> T:
        """What the child's function returned; raises what it raised."""
        if not self.sent:
            raise RuntimeError("the child ended without sending its result")
        if self.error is not None:
            raise self.error
        return cast(T, self.value)


def run_forked(work: Callable[[Send], T], *,
               on_message: Callable[[Any], None] | None = None,
               stop_when: Callable[[], bool] | None = None,
               wait_at_most: Callable[[], float | None] = lambda: None,
               after_sending: Callable[[], None] | None = None,
               reap_by: float | None = None) -> ChildEnd[T]:
    """`work(send)` in a forked child. What it `send`s reaches `on_message` in this process
    while it runs. When nothing arrives for `wait_at_most()` seconds (None: no limit),
    `stop_when()` is asked, and when it is true the child is killed; what the child sent is
    read first, so a child that finished in time is never killed for being late. After
    sending its result the child runs `after_sending()` and exits; it is waited for until
    `reap_by` (time.monotonic(); None: no limit) and killed past it."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(work, write_fd, after_sending)
    os.close(write_fd)
    status: int | None = None
    peak = 0
    killed = False
    outcome: tuple[bool, Any] | None = None
    try:
        try:
            for final, body in _read_frames(read_fd, stop_when, wait_at_most):
                if final:  # the child is done: it is not stopped any more, only reaped
                    outcome = body
                    break
                if on_message is not None:
                    on_message(body)
        except _StopChild:
            os.kill(pid, signal.SIGKILL)
            killed = True
        finally:
            os.close(read_fd)
        status, peak = _reap(pid, None if killed else reap_by)
    finally:
        if status is None:  # this process failed waiting (an interrupt): leave no child behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    if outcome is None:
        return ChildEnd(status, killed, sent=False, peak_kib=peak)
    ok, value = outcome
    if ok:
        return ChildEnd(status, killed, sent=True, value=value, peak_kib=peak)
    return ChildEnd(status, killed, sent=True, error=value, peak_kib=peak)


def _child(work: Callable[[Send], Any], write_fd: int,
           after_sending: Callable[[], None] | None) -> NoReturn:
    """The forked child: never returns."""
    try:
        out = os.fdopen(write_fd, "wb")

        def send(message: object) -> None:
            _write_frame(out, (False, message))

        try:
            payload: tuple[bool, object] = (True, (True, work(send)))
        except BaseException as err:
            payload = (True, (False, _picklable(err)))
        _write_frame(out, payload)
        out.close()
        if after_sending is not None:
            after_sending()
    finally:
        os._exit(0)


def _write_frame(out: BinaryIO, body: object) -> None:
    data = pickle.dumps(body)
    out.write(len(data).to_bytes(8, "little") + data)
    out.flush()


class _StopChild(Exception):
    """The parent stops reading a child it is about to kill."""


def _read_frames(fd: int, stop_when: Callable[[], bool] | None,
                 wait_at_most: Callable[[], float | None]) -> Iterator[Any]:
    """The child's frames until it closes the pipe (a truncated frame ends them). Raises
    _StopChild when nothing arrived for `wait_at_most()` seconds and `stop_when()` is true."""
    buffer = bytearray()
    while True:
        wait = wait_at_most()
        ready, _, _ = select.select([fd], [], [], None if wait is None else max(0.0, wait))
        if not ready:  # what the child sent is read first: it may have finished in time
            if stop_when is not None and stop_when():
                raise _StopChild
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        buffer += chunk
        while len(buffer) >= 8:
            size = int.from_bytes(buffer[:8], "little")
            if len(buffer) < 8 + size:
                break
            yield pickle.loads(buffer[8:8 + size])
            del buffer[:8 + size]


def _reap(pid: int, deadline: float | None) -> tuple[int, int]:
    """The child's wait status and the most memory it held (KiB); past `deadline`
    (monotonic) it is killed first."""
    while deadline is not None:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage.ru_maxrss
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_maxrss


def _picklable(err: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        return CtgenError(f"internal error of pytest-ctgen: {type(err).__name__}: {err}")
