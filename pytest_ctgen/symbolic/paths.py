"""What running a path comes to: it finishes, stops at a fork the inputs decide or at a
choice it has to make (where an input pointer points, which value a symbolic offset or
size has), ends the program, hits a bound of the search, or cannot become a case
(PathError); and the ledger of the violations a generator has settled, which no more
paths are forked off for."""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..cases import UNDEFINED
from ..errors import SourceLocation
from ..ir.cfg import Block
from .state import State
from .values import AliasPtr, PtrVal, SymValue


class PathError(Exception):
    """The path cannot become a case: it accesses memory outside an object or hits a
    construct the generator does not support."""

    def __init__(self, message: str, location: SourceLocation | None = None,
                 unsupported: bool = False) -> None:
        super().__init__(message)
        self.location = location
        self.unsupported = unsupported


class BoundReached(Exception):
    """The path exceeded the loop-unwinding, recursion or step bound. `resumable`: the
    state is as before the step the bound refused (a loop's back edge), so the path can
    run on from it without the bound."""

    def __init__(self, message: str, resumable: bool = False) -> None:
        super().__init__(message)
        self.resumable = resumable


class ProgramEnds(Exception):
    """The path called exit, abort or a failing assert: it ends there."""

    def __init__(self, how: str, status: SymValue | None = None) -> None:
        super().__init__(how)
        self.how = how
        self.status = status


@dataclass(frozen=True, eq=False)
class AliasChoice:
    """Where an input pointer may point: alternative i under conditions[i]."""

    pointer: AliasPtr
    alternatives: tuple[PtrVal, ...]
    conditions: tuple[z3.BoolRef, ...]


@dataclass(frozen=True, eq=False)
class OffsetChoice:
    """Which of `values` a symbolic byte offset is, for an access that needs it concrete
    (a pointer or a struct at a computed position), or which size a variable length array
    or an `alloca` object has: value i under conditions[i]. For a size, the last values
    are BEYOND_BOUND (larger than the bound, which the search does not explore) and
    BELOW_MINIMUM (undefined, not explored either)."""

    offset: z3.BitVecRef
    values: tuple[int, ...]
    conditions: tuple[z3.BoolRef, ...]


#: The size of a variable length array or `alloca` object is larger than the bound.
BEYOND_BOUND = -1
#: The size of a variable length array is below its minimum (undefined).
BELOW_MINIMUM = -2


class NeedChoice(Exception):
    """A statement needs a decision the path has not made: where an input pointer points,
    or which offset a symbolic offset is."""

    def __init__(self, choice: AliasChoice | OffsetChoice) -> None:
        super().__init__("choice")
        self.choice = choice


@dataclass
class Finished:
    state: State


@dataclass
class Fork:
    """The state stopped at a branch of `block` whose outcome depends on the inputs;
    `guards[i]` is the condition of outgoing edge i (None if the edge is impossible).
    With `choice`, the state stopped before a use of an input pointer that may alias:
    alternative i of the pointer is taken under `guards[i]` (see `Executor.choose`).
    `written` are the guards before z3 simplified them, as the code compares (boundary
    values look for its comparisons there, see boundaries.py)."""

    state: State
    block: Block
    guards: list[z3.BoolRef | None]
    choice: AliasChoice | OffsetChoice | None = None
    written: list[z3.BoolRef | None] | None = None


ViolationKey = tuple[str, int, str]


@dataclass
class ViolationLedger:
    """Which violations (annotations, undefined behaviour; by `State.violations` key) a
    case shows, and how often each other one was looked for: a settled one gets no more
    paths forked off for it. Shared by the generator and its executors (data only: an
    executor holding its generator would be freed by the cycle collector at a moment that
    depends on the process, and z3 would reuse AST ids, and with them its choices,
    differently)."""

    tries_each: int | None  # None: every try (proof mode); findings are always tried
    shown: set[ViolationKey] = field(default_factory=set)
    tries: dict[ViolationKey, int] = field(default_factory=dict)

    def settled(self, key: ViolationKey) -> bool:
        if key in self.shown:
            return True
        # a finding not looked for would be assumed away, and what only it leads to
        # called unreachable
        return self.tries_each is not None and key[0] != UNDEFINED and \
            self.tries.get(key, 0) >= self.tries_each
