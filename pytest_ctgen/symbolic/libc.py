"""C library functions with a known meaning, executed symbolically instead of stubbed.

Each model takes the state, the argument values and the function's type and returns the
result (or None for void). In the run the unit is linked with the real library (or gcc
expands the call inline, as it does for fabs), so these functions are never stubbed.
"""
from __future__ import annotations

from typing import Callable

import z3

from ..frontend.ctype import FunctionType, IntType
from .state import State
from .values import SymValue, int_const

Model = Callable[[State, list[SymValue], FunctionType], SymValue | None]


def _fabs(state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    x = args[0]
    assert isinstance(x, z3.FPRef)
    return z3.fpAbs(x)


def _abs(state: State, args: list[SymValue], ftype: FunctionType) -> SymValue:
    x = args[0]
    t = ftype.result
    assert isinstance(x, z3.BitVecRef) and isinstance(t, IntType)
    state.assume(x != int_const(t, t.min_value))  # abs(INT_MIN) is undefined
    return z3.If(x < 0, -x, x)


MODELS: dict[str, Model] = {
    "fabs": _fabs,
    "fabsf": _fabs,
    "abs": _abs,
    "labs": _abs,
    "llabs": _abs,
}


def is_modelled(name: str) -> bool:
    return name in MODELS
