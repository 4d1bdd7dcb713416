"""The time budget and the memory limit hold from outside the search: a function whose
generation runs HARD_STOP_GRACE seconds past its budget, or needs more memory than
`--ctgen-memory`, keeps the cases it found until then and says why it stopped, and the
other functions of its file keep their cases (a new child generates the ones after it)."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from pytest_ctgen import generation_child, pipeline
from pytest_ctgen.cases import STOP_EXHAUSTED, STOP_MEMORY, STOP_TIME
from pytest_ctgen.options import Options
from pytest_ctgen.search import generator

UNIT = """\
int before(int x) { if (x > 3) return 1; return 0; }
int stuck(int x) { if (x == 7) return 2; return 0; }
int after(int x) { if (x < -3) return 1; return 0; }
"""


@pytest.fixture
def unit(tmp_path: Path) -> Path:
    path = tmp_path / "limits.c"
    path.write_text(UNIT, encoding="utf-8")
    return path


def _generate_with(monkeypatch: pytest.MonkeyPatch, unit: Path, options: Options,
                   misbehave) -> dict[str, object]:
    """Generate `unit` where the generation of `stuck` does `misbehave()` (in the forked
    child, which inherits the patch)."""
    real = generator.generate_function

    def patched(program, name, *args, **kwargs):
        if name == "stuck":
            misbehave()
        return real(program, name, *args, **kwargs)

    monkeypatch.setattr(generator, "generate_function", patched)
    monkeypatch.setattr(generation_child, "HARD_STOP_GRACE", 0.5)
    fc = pipeline.generate_file(unit, "limits.c", options).cases
    return {f.name: f for f in fc.functions}


def test_a_function_past_its_time_budget_is_stopped_and_the_others_keep_their_cases(
        monkeypatch: pytest.MonkeyPatch, unit: Path) -> None:
    start = time.monotonic()
    functions = _generate_with(monkeypatch, unit, Options(timeout=1.0),
                               lambda: time.sleep(600))  # a step that never comes back
    assert time.monotonic() - start < 300  # stopped, not the 600 s the step takes
    stuck = functions["stuck"]
    assert stuck.stop_reason == STOP_TIME and stuck.cases == ()
    assert [o.label for o in stuck.not_reached] == ["true", "false"]
    assert 1.0 < stuck.generation_seconds < 300
    for name in ("before", "after"):
        assert functions[name].stop_reason == STOP_EXHAUSTED and len(functions[name].cases) == 2


def test_a_function_past_the_memory_limit_stops_and_the_others_keep_their_cases(
        monkeypatch: pytest.MonkeyPatch, unit: Path) -> None:
    def allocate() -> None:
        # what a function's generation holds is freed when its MemoryError unwinds it (its
        # z3 context with it), so the functions after it have their memory back
        hoard: list[bytearray] = []
        while True:
            hoard.append(bytearray(1 << 24))

    functions = _generate_with(monkeypatch, unit, Options(memory=256), allocate)
    stuck = functions["stuck"]
    assert stuck.stop_reason == STOP_MEMORY and stuck.cases == ()
    for name in ("before", "after"):
        assert functions[name].stop_reason == STOP_EXHAUSTED and len(functions[name].cases) == 2


def test_a_solver_that_aborts_past_half_the_memory_limit_is_the_memory_limit(
        monkeypatch: pytest.MonkeyPatch, unit: Path) -> None:
    """z3 aborts the process (SIGABRT) where an allocation beyond the address-space limit
    fails, instead of raising: after growing by half the limit or more, that is the
    memory limit; an abort with little memory held stays a crash."""
    def grow_then_abort() -> None:
        held = bytearray(b"\x01") * (300 << 20)  # touched: resident
        assert held[-1] == 1
        os.abort()

    functions = _generate_with(monkeypatch, unit, Options(memory=512), grow_then_abort)
    assert functions["stuck"].stop_reason == STOP_MEMORY
    assert functions["after"].stop_reason == STOP_EXHAUSTED
    functions = _generate_with(monkeypatch, unit, Options(memory=256), os.abort)
    assert functions["stuck"].skip_reason == "generation crashed with signal 6"


def test_without_proc_the_memory_limit_is_left_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host without /proc (macOS) generates unlimited instead of losing every file."""
    def no_proc(*args, **kwargs):
        raise FileNotFoundError("/proc/self/statm")

    monkeypatch.setattr("builtins.open", no_proc)
    generation_child._limit_memory(256)  # no exception


def _stop_after_a_case(monkeypatch: pytest.MonkeyPatch, misbehave) -> None:
    """The generation of `stuck` does `misbehave()` where, with a case found, its search
    would explore the next edge (in the forked child, which inherits the patch)."""
    real = generator.Generator.explore

    def explore(self, node, index):
        if self.cfg.function.name == "stuck" and self.cases:
            misbehave()
        return real(self, node, index)

    monkeypatch.setattr(generator.Generator, "explore", explore)


def _kept_one_case(functions: dict[str, object], stop: str) -> None:
    stuck = functions["stuck"]
    assert stuck.stop_reason == stop
    assert [c.number for c in stuck.cases] == [1]
    covered = set(stuck.cases[0].covered)
    assert len(covered) == 1 and covered.isdisjoint(stuck.not_reached)
    assert len(stuck.not_reached) == 1 and stuck.unreachable == ()
    for name in ("before", "after"):
        assert functions[name].stop_reason == STOP_EXHAUSTED and len(functions[name].cases) == 2


def test_a_child_killed_for_memory_keeps_the_cases_found(
        monkeypatch: pytest.MonkeyPatch, unit: Path) -> None:
    """The kernel kills a child past its memory (SIGKILL): the function keeps the case its
    generation reported before."""
    _stop_after_a_case(monkeypatch, lambda: os.kill(os.getpid(), signal.SIGKILL))
    _kept_one_case(_generate_with(monkeypatch, unit, Options(memory=256), lambda: None),
                   STOP_MEMORY)


def test_a_memory_error_keeps_the_cases_found(monkeypatch: pytest.MonkeyPatch,
                                              unit: Path) -> None:
    def allocate() -> None:
        hoard: list[bytearray] = []
        while True:
            hoard.append(bytearray(1 << 24))

    _stop_after_a_case(monkeypatch, allocate)
    _kept_one_case(_generate_with(monkeypatch, unit, Options(memory=256), lambda: None),
                   STOP_MEMORY)


def test_the_hard_time_stop_keeps_the_cases_found(monkeypatch: pytest.MonkeyPatch,
                                                  unit: Path, tmp_path: Path) -> None:
    """The child blocks after its first case of `stuck`; the parent's clock then jumps past
    the budget, so the hard stop comes then, however fast the machine found the case."""
    blocked = tmp_path / "blocked"

    def block() -> None:
        blocked.touch()
        time.sleep(600)

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return time.monotonic() + (1000.0 if blocked.exists() else 0.0)

    _stop_after_a_case(monkeypatch, block)
    monkeypatch.setattr(generation_child, "time", Clock)
    start = time.monotonic()
    functions = _generate_with(monkeypatch, unit, Options(timeout=60.0), lambda: None)
    assert time.monotonic() - start < 300
    _kept_one_case(functions, STOP_TIME)


def test_a_child_that_sends_case_after_case_is_still_stopped() -> None:
    """The hard stop is asked about every second, also while the child's messages come
    more often than that."""
    def chatty(send) -> str:
        for _ in range(600):  # 30 s of a case every 50 ms
            send(generation_child.Progress("u.c", "f", "case", 0.0))
            time.sleep(0.05)
        return "finished"

    asked: list[float] = []

    def stop() -> bool:
        asked.append(time.monotonic())
        return True

    start = time.monotonic()
    with pytest.raises(generation_child._ChildEnded):
        generation_child._isolated(chatty, stop_when=stop)
    assert asked and time.monotonic() - start < 25
