"""Stub specifications: what the unit states about an external function it calls.

A definition whose body holds `__rtt_extern()` is no implementation but the specification
of an external function (CTGEN's stub protocol): calls of it stay stub calls, its
preconditions are assumed of the arguments before each call and checked in the run, its
postconditions are assumed of what the stub returns and writes.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import SourceLocation
from ..frontend.unit import Variable
from .cfg import CFG
from .expr import Expr


@dataclass(frozen=True)
class Condition:
    """An annotation condition: a side-effect-free truth value over the specification's
    parameters, the globals and (in postconditions) `__rtt_return` and `__rtt_initial`."""

    expr: Expr
    text: str  # the condition as C, after preprocessing (for messages and run-time checks)
    location: SourceLocation


@dataclass(frozen=True)
class StubSpec:
    """The specification of the external function `name`.

    `cfg` is the lowered dummy body, never executed: its frame gives the parameters their
    arguments while the conditions are evaluated. `result` stands for `__rtt_return`;
    each of `initials` is an `__rtt_initial(e)`: a variable holding `e` as it was before
    the call. `modifies` lists the globals the function writes when the specification names
    them with `__rtt_modifies`, else None (the stub then writes the default set)."""

    name: str
    location: SourceLocation
    cfg: CFG
    preconditions: tuple[Condition, ...]
    postconditions: tuple[Condition, ...]
    result: Variable | None
    initials: tuple[tuple[Variable, Expr], ...]
    modifies: tuple[str, ...] | None
