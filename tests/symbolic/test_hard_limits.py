"""The time budget and the memory limit hold from outside the search: a function whose
generation runs HARD_STOP_GRACE seconds past its budget, or needs more memory than
`--ctgen-memory`, gets no case and says why, and the other functions of its file keep
their cases (a new child generates the ones after it)."""
from __future__ import annotations

import os
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
