"""Exact constant folding of IR expressions."""
from __future__ import annotations

from fractions import Fraction

from ..frontend.ctype import CType, FloatType, IntType, PointerType
from ..frontend.literals import round_to_float32
from .expr import Binary, Cast, Const, Expr, Unary

def convert_constant(value: int | float, src: CType, dst: CType) -> int | float | None:
    """A constant converted from `src` to `dst` with C's rules, or None if not a constant
    conversion that folding handles."""
    if isinstance(dst, IntType):
        if isinstance(src, FloatType):
            if value != value or value in (float("inf"), float("-inf")):
                return None
            v = int(value)
            if dst.is_bool:
                return 1 if value != 0 else 0
            return v if dst.min_value <= v <= dst.max_value else None
        return dst.wrap(int(value))
    if isinstance(dst, FloatType):
        if dst.size == 4:
            return round_to_float32(Fraction(value))
        return float(Fraction(value)) if isinstance(value, int) else float(value)
    if isinstance(dst, PointerType) and isinstance(src, IntType):
        return int(value) & ((1 << 64) - 1)
    return None


def fold(e: Expr) -> int | float | None:
    """The value of `e` if it is a constant expression of arithmetic type, else None."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Cast):
        v = fold(e.operand)
        return None if v is None else convert_constant(v, e.operand.type, e.type)
    if isinstance(e, Unary):
        v = fold(e.operand)
        if v is None:
            return None
        if e.op == "!":
            return 0 if v else 1
        if not isinstance(e.type, IntType):
            return -v if e.op == "-" else None
        if e.op == "-":
            return e.type.wrap(-int(v))
        if e.op == "~":
            return e.type.wrap(~int(v))
        return None
    if isinstance(e, Binary):
        a, b = fold(e.left), fold(e.right)
        if a is None or b is None:
            return None
        return fold_binary(e.op, a, b, e.left.type, e.type)
    return None


def fold_binary(op: str, a: int | float, b: int | float, operand_type: CType,
                result_type: CType) -> int | float | None:
    """Exact integer folding of a binary operation as gcc folds constants (floats only for
    comparisons)."""
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[op])
    if not isinstance(result_type, IntType):
        return None
    a, b = int(a), int(b)
    t = result_type
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
        if b >= t.bits:  # undefined; gcc's folder shifts every bit out (a run masks b)
            return t.wrap(-1) if op == ">>" and t.wrap(a) < 0 else 0
        if op == "<<":
            return t.wrap(a << b)
        return t.wrap(a >> b)
    return None
