"""The options of the search for one function's cases, `SearchOptions`, and the closed
sets its choices take."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..symbolic.work import DEFAULT_TIME_BUDGET, DEFAULT_WORK_UNITS

#: Which globals stub calls may write: those the function may modify (and the volatile
#: ones), or all.
StubGlobals = Literal["modifies", "all"]
#: What a path with signed overflow is: a note on its case, or a finding.
SignedOverflow = Literal["note", "finding"]
#: What a case whose function leaks its own allocation is: a note on it, or a failing
#: case (symbolic/heap.py).
Leaks = Literal["note", "fail"]
#: What the search covers: branch outcomes, statements, or MC/DC (branch outcomes and
#: each condition's independence pair, search/mcdc_goals.py).
Criterion = Literal["branch", "statement", "mcdc"]
#: Whose branch outcomes are goals: the function's own (`function`), or also those of the
#: functions of its file it calls, directly or not (`reached`, search/callee_goals.py).
GoalScope = Literal["function", "reached"]
#: Whether a case is added for each ordering comparison no case decided with its sides
#: equal (search/boundary_goals.py).
BoundaryCases = Literal["on", "off"]


#: The most elements input pointers point to after growing.
MAX_ARRAY_SIZE = 64


def larger_array_size(array_size: int) -> int:
    """How many elements input pointers point to when `array_size` were too few (the same
    when they cannot grow any more)."""
    return min(array_size * 4, max(MAX_ARRAY_SIZE, array_size))


@dataclass(frozen=True)
class SearchOptions:
    max_depth: int = 64
    work: float = DEFAULT_WORK_UNITS  # the deterministic budget (see symbolic/work.py)
    timeout: float = DEFAULT_TIME_BUDGET  # a safety net only: what it cuts depends on load
    max_recursion: int = 32
    array_size: int = 10
    stub_globals: StubGlobals = "modifies"  # which globals stub calls may write
    # globs of the globals that are inputs although nothing in the unit writes them and
    # they have an initializer (by default they start from it: ir/written_globals.py)
    input_globals: tuple[str, ...] = ()
    signed_overflow: SignedOverflow = "note"  # what a path with signed overflow is
    leaks: Leaks = "note"  # what a case that leaks its function's allocation is
    # proof mode: explore every path within the bounds, so that annotations nothing
    # violates are proved, and make robustness cases that violate the precondition
    proof: bool = False
    criterion: Criterion = "branch"  # what the search covers
    goals: GoalScope = "function"  # whose outcomes are goals
    # a case for each ordering comparison with its sides equal (search/boundary_goals.py)
    boundary_cases: BoundaryCases = "on"
    # `--ctgen-setup`: (glob of functions, the setup functions: init, then operations),
    # see symbolic/setup_calls.py
    setup: tuple[tuple[str, tuple[str, ...]], ...] = ()
