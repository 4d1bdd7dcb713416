"""Floating literals and binary32 rounding: one home for both, used by constant evaluation
in the front end and by the lowering (ir/constants.py)."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

from .ctype import DOUBLE, FLOAT, LONGDOUBLE, FloatType


def round_to_float32(x: Fraction | float) -> float:
    """The float (binary32) nearest to `x`, ties to even (beyond the largest float by half
    an ulp or more: infinity), returned as a Python float; infinities and NaN stay."""
    if isinstance(x, float) and not math.isfinite(x):
        return x
    frac = Fraction(x)
    try:
        approx = struct.unpack("<f", struct.pack("<f", float(frac)))[0]
    except OverflowError:  # rounds to infinity
        return math.inf if frac > 0 else -math.inf
    if math.isinf(approx):
        return approx
    bits = struct.unpack("<I", struct.pack("<f", approx))[0]
    best = approx
    for nb in (bits - 1, bits + 1):
        if 0 <= nb < 2 ** 32:
            cand = struct.unpack("<f", struct.pack("<I", nb))[0]
            if cand != cand or cand in (float("inf"), float("-inf")):
                continue
            d_best, d_cand = abs(Fraction(best) - frac), abs(Fraction(cand) - frac)
            if d_cand < d_best or (d_cand == d_best and nb % 2 == 0):
                best = cand
    return best


def float_literal(text: str) -> tuple[float, FloatType]:
    """The value of a floating literal, rounded once from its exact decimal (or hex) value
    to its type, and the type: `float` for an `f` suffix, `long double` for `l` (its value
    as a double), else `double`. Rounding a decimal to double first and then to float
    would round twice and can miss the nearest float."""
    t = text.lower()
    ctype = DOUBLE
    if t.endswith("f"):
        ctype, t = FLOAT, t[:-1]
    elif t.endswith("l"):
        ctype, t = LONGDOUBLE, t[:-1]
    if t.startswith("0x"):
        value = Fraction(float.fromhex(t))  # hex literals are exact in double
    else:
        value = Fraction(t)
    if ctype is FLOAT:
        return round_to_float32(value), FLOAT
    try:
        return float(value), ctype
    except OverflowError:  # beyond the largest double: infinity, as gcc reads it
        return (math.inf if value > 0 else -math.inf), ctype
