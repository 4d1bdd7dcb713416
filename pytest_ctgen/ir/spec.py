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
    # for a function under test, the condition as the harness evaluates it after the call
    # (see cases.ContractCheck): `ctgen_return`, `ctgen_initial_K`, `(*ctgen_aux_NAME)`
    check_text: str = ""


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


@dataclass(frozen=True)
class TestCaseSpec:
    """`__rtt_testcase(PRE, POST, "REQ-1, REQ-2")`: inputs meeting PRE on entry must give
    POST. `entered` is the variable holding PRE's truth value, taken on entry."""

    pre: Condition
    entered: Variable
    post: Condition
    requirements: tuple[str, ...]
    location: SourceLocation


@dataclass(frozen=True)
class FunctionContract:
    """What the annotations of a function under test state. Preconditions and asserts are
    `Check` statements of its CFG; the postconditions and test cases are evaluated when it
    returns, in its frame, where `result` holds the returned value, each of `initials` a
    value taken on entry (`__rtt_initial(e)`, a test case's PRE) and the parameters' names
    their values on entry. `aux` are the ghost variables (`__rtt_aux`); `modifies` the
    globals it may write (None: writes are not checked)."""

    preconditions: tuple[Condition, ...]
    postconditions: tuple[Condition, ...]
    testcases: tuple[TestCaseSpec, ...]
    asserts: tuple[Condition, ...]
    result: Variable | None
    initials: tuple[tuple[Variable, Expr, str], ...]  # (variable, value, as C for the harness)
    aux: tuple[Variable, ...]
    modifies: tuple[str, ...] | None

    @property
    def is_empty(self) -> bool:
        return not (self.preconditions or self.postconditions or self.testcases
                    or self.asserts or self.aux or self.modifies is not None)
