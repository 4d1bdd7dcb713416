"""C arithmetic on constants, exact as gcc folds it on x86-64: conversions between types and
the unary and binary operators on values of a type's width. The one home of these rules:
the evaluation of constant expressions in the front end (constant_expr.py) and the folding
of IR expressions (ir/constants.py) both compute with them.

A value is a Python int (integers, pointers) or float (floating types, a float holding a
binary32 value). A function returns None where C leaves the result undefined or gcc does
not fold it to a constant; the caller decides what that means."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Final

from .ctype import FLOAT, CType, FloatType, IntType, PointerType
from .literals import round_to_float32

Number = int | float

#: C's relational and equality operators (the result is an int, 0 or 1).
COMPARISONS: Final = frozenset({"<", ">", "<=", ">=", "==", "!="})


def convert_constant(value: Number, src: CType, dst: CType) -> Number | None:
    """`value` of type `src` converted to `dst` as by a cast: an integer wraps, a floating
    value is rounded once to a float (never through a double), a floating value goes to
    an integer type by truncation when it fits (else None: undefined), to `_Bool` as
    whether it is nonzero; an integer or a pointer goes to a pointer type."""
    if isinstance(dst, IntType):
        if isinstance(value, float):
            if dst.is_bool:  # whether it compares unequal to 0: NaN and infinities are 1
                return 1 if value != 0 else 0
            if not math.isfinite(value):
                return None
            v = int(value)
            return v if dst.min_value <= v <= dst.max_value else None
        return dst.wrap(int(value))
    if isinstance(dst, FloatType):
        if dst.size == FLOAT.size:
            return round_to_float32(value)
        return float(Fraction(value)) if isinstance(value, int) else float(value)
    if isinstance(dst, PointerType) and isinstance(src, (IntType, PointerType)) \
            and not isinstance(value, float):
        return int(value) & ((1 << 64) - 1)
    return None


def unary(op: str, value: Number, ctype: CType) -> Number | None:
    """`op value` for an operand of type `ctype`, already promoted (the result's type):
    `!` gives 0 or 1, `-`, `+` and `~` (integers only) wrap."""
    if op == "!":
        return 0 if value else 1
    if isinstance(ctype, IntType):
        if op == "-":
            return ctype.wrap(-int(value))
        if op == "+":
            return ctype.wrap(int(value))
        if op == "~":
            return ctype.wrap(~int(value))
        return None
    if isinstance(ctype, FloatType):
        if op == "-":
            return -value
        if op == "+":
            return value
    return None


def compare(op: str, a: Number, b: Number) -> int:
    """A comparison of two values of one type: 1 or 0 (NaN compares unequal to all)."""
    return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                ">=": a >= b}[op])


def integer_binary(op: str, a: int, b: int, ctype: IntType) -> int | None:
    """`a op b` on integers of type `ctype` (for a shift, `ctype` is the left operand's
    promoted type): the result wraps; division truncates toward zero; None for a division
    by zero, a negative shift count or an operator that is not arithmetic. A shift by the
    width or more, undefined, is what gcc's folder makes of it: every bit shifted out."""
    t = ctype
    if op == "+":
        return t.wrap(a + b)
    if op == "-":
        return t.wrap(a - b)
    if op == "*":
        return t.wrap(a * b)
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return t.wrap(q) if op == "/" else t.wrap(a - q * b)
    if op == "&":
        return t.wrap(a & b)
    if op == "|":
        return t.wrap(a | b)
    if op == "^":
        return t.wrap(a ^ b)
    if op in ("<<", ">>"):
        if b < 0:
            return None
        if b >= t.bits:
            return t.wrap(-1) if op == ">>" and t.wrap(a) < 0 else 0
        if op == "<<":
            return t.wrap(a << b)
        return t.wrap(a >> b)
    return None


def float_binary(op: str, a: float, b: float, ctype: FloatType) -> float | None:
    """`a op b` on values of the floating type `ctype` (IEEE: a division by zero is an
    infinity or NaN), rounded to `ctype`; None for an operator that is not arithmetic.
    A float's operation computed in double and rounded once to float is exact."""
    if op == "+":
        result = a + b
    elif op == "-":
        result = a - b
    elif op == "*":
        result = a * b
    elif op == "/":
        if b == 0.0:
            infinite = math.copysign(math.inf, a) * math.copysign(1.0, b)
            result = math.nan if a == 0.0 or math.isnan(a) else infinite
        else:
            result = a / b
    else:
        return None
    return round_to_float32(result) if ctype.size == FLOAT.size else result
