"""forked.run_forked: a function in a forked child, its result or exception read back
completely through the pipe, the child reaped, and how it ended reported."""
from __future__ import annotations

import os
import signal
import time

import pytest

from pytest_ctgen.errors import CtgenError
from pytest_ctgen.forked import Send, run_forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _gone(pid: int) -> bool:
    """`pid` was reaped (no process, not even a zombie, has it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_result_comes_back_and_the_child_exits() -> None:
    ended = run_forked(lambda send: {"answer": 42})
    assert ended.sent and ended.result() == {"answer": 42}
    assert ended.exit_code == 0 and ended.signal_number is None and not ended.killed


def test_the_exception_is_raised_in_the_parent() -> None:
    def fail(send: Send) -> None:
        raise CtgenError("no such function")

    ended = run_forked(fail)
    assert ended.sent and isinstance(ended.error, CtgenError)
    with pytest.raises(CtgenError, match="no such function"):
        ended.result()


def test_an_exception_that_cannot_be_pickled_becomes_an_internal_error() -> None:
    class Local(Exception):
        pass

    def fail(send: Send) -> None:
        raise Local("local class")

    with pytest.raises(CtgenError, match="internal error of pytest-ctgen: Local: local class"):
        run_forked(fail).result()


def test_a_child_killed_by_a_signal_sends_nothing_and_names_the_signal() -> None:
    def die(send: Send) -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    ended = run_forked(die)
    assert not ended.sent and ended.signal_number == signal.SIGTERM
    assert ended.exit_code is None


def test_a_child_that_exits_without_writing_reports_its_status() -> None:
    def leave(send: Send) -> None:
        os._exit(3)

    ended = run_forked(leave)
    assert not ended.sent and ended.exit_code == 3 and ended.signal_number is None
    with pytest.raises(RuntimeError):
        ended.result()


def test_a_result_larger_than_a_pipe_buffer_arrives_whole() -> None:
    big = bytes(range(256)) * 40_000  # 10 MB, a pipe holds 64 KiB
    ended = run_forked(lambda send: big)
    assert ended.result() == big and ended.exit_code == 0


def test_messages_arrive_in_order_before_the_result() -> None:
    seen: list[object] = []

    def talk(send: Send) -> str:
        for i in range(3):
            send(("step", i))
        return "done"

    ended = run_forked(talk, on_message=seen.append)
    assert seen == [("step", 0), ("step", 1), ("step", 2)] and ended.result() == "done"


def test_stop_when_kills_a_child_that_sends_nothing() -> None:
    asked: list[float] = []

    def stop() -> bool:
        asked.append(time.monotonic())
        return len(asked) >= 2

    start = time.monotonic()
    ended = run_forked(lambda send: time.sleep(600), stop_when=stop, wait_at_most=lambda: 0.1)
    assert ended.killed and not ended.sent and ended.signal_number == signal.SIGKILL
    assert time.monotonic() - start < 60


def test_a_finished_child_is_not_killed_for_being_late() -> None:
    """What the child sent is read before `stop_when` is asked: the child answers only
    when `stop_when` has been asked, which then waits for it to exit and would stop it
    from then on."""
    go_read, go_write = os.pipe()
    pids: list[int] = []
    late: list[bool] = []

    def stop() -> bool:
        if late:
            return True
        if pids:
            os.write(go_write, b"!")
            os.waitid(os.P_PID, pids[0], os.WEXITED | os.WNOWAIT)  # exited, not reaped
            late.append(True)
        return False

    def answer(send: Send) -> str:
        send(os.getpid())
        os.read(go_read, 1)
        return "in time"

    try:
        ended = run_forked(answer, on_message=pids.append, stop_when=stop,
                           wait_at_most=lambda: 0.01)
    finally:
        os.close(go_read)
        os.close(go_write)
    assert late and ended.result() == "in time" and not ended.killed
    assert ended.exit_code == 0


def test_after_sending_runs_once_the_result_is_sent_and_reap_by_bounds_it() -> None:
    start = time.monotonic()
    ended = run_forked(lambda send: "sent", after_sending=lambda: time.sleep(600),
                       reap_by=time.monotonic() + 0.5)
    assert ended.result() == "sent" and not ended.killed
    assert ended.signal_number == signal.SIGKILL and time.monotonic() - start < 60


def test_a_parent_that_fails_reading_kills_and_reaps_the_child() -> None:
    pids: list[int] = []

    def on_message(pid: object) -> None:
        assert isinstance(pid, int)
        pids.append(pid)
        raise KeyboardInterrupt

    def report_then_wait(send: Send) -> None:
        send(os.getpid())
        time.sleep(600)

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_forked(report_then_wait, on_message=on_message)
    assert time.monotonic() - start < 60
    assert pids and _gone(pids[0])
