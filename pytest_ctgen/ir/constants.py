"""Exact constant folding of IR expressions: the walk over an expression; its C arithmetic
is frontend/constant_eval.py's, the same the front end evaluates constant expressions with."""
from __future__ import annotations

from ..frontend.constant_eval import (
    COMPARISONS, Number, compare, convert_constant, integer_binary, unary)
from ..frontend.ctype import IntType
from .expr import Binary, Cast, Const, Expr, Unary


def fold(e: Expr) -> Number | None:
    """The value of `e` if it is a constant expression of arithmetic type, else None.
    Comparisons fold on every type, other operators on integers only (the executor
    computes floating arithmetic)."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Cast):
        v = fold(e.operand)
        return None if v is None else convert_constant(v, e.operand.type, e.type)
    if isinstance(e, Unary):
        v = fold(e.operand)
        return None if v is None else unary(e.op, v, e.type)
    if isinstance(e, Binary):
        a, b = fold(e.left), fold(e.right)
        if a is None or b is None:
            return None
        if e.op in COMPARISONS:
            return compare(e.op, a, b)
        if isinstance(e.type, IntType):
            return integer_binary(e.op, int(a), int(b), e.type)
    return None
