"""Floating literals and binary32 rounding: one home for both, used by constant evaluation
in the front end and by the lowering (ir/constants.py)."""
from __future__ import annotations

import math
import re
import struct
from fractions import Fraction

from .ctype import DOUBLE, EXTENDED_FLOATS, FLOAT, LONGDOUBLE, FloatType


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


#: Type of a floating literal by its suffix (gcc's: `f16` ... `f64x` name the `_FloatN`
#: types, `q` is `__float128`, `w` is `__float80`, `df`, `dd`, `dl` the decimal types).
_FLOAT_SUFFIXES: dict[str, FloatType] = {
    "": DOUBLE, "f": FLOAT, "l": LONGDOUBLE, "q": EXTENDED_FLOATS["__float128"],
    "w": EXTENDED_FLOATS["__float80"], "df": EXTENDED_FLOATS["_Decimal32"],
    "dd": EXTENDED_FLOATS["_Decimal64"], "dl": EXTENDED_FLOATS["_Decimal128"],
    **{name.removeprefix("_Float").lower().join(("f", "")): t
       for name, t in EXTENDED_FLOATS.items() if name.startswith("_Float")},
}
_FLOAT_TEXT = re.compile(r"(0x(?:[0-9a-f]*\.?[0-9a-f]*)p[+-]?[0-9]+|"
                         r"(?:[0-9]*\.?[0-9]*)(?:e[+-]?[0-9]+)?)([a-z0-9]*)")


def is_imaginary(text: str) -> bool:
    """Whether a numeric literal is GNU C's imaginary constant (`2.0i`, `1.5fj`, `3i`): its
    type is complex. No digit of a number is an `i` or a `j`."""
    return any(c in "iIjJ" for c in text)


def float_literal(text: str) -> tuple[float, FloatType]:
    """The value of a floating literal, rounded once from its exact decimal (or hex) value
    to its type, and the type (by its suffix: `float` for `f`, `long double` for `l`,
    `_Float32` for `f32`, ...; for a type whose format is not modelled the value is that
    of a double). Rounding a decimal to double first and then to float would round twice
    and can miss the nearest float.

    Raises:
        ValueError: not a real floating literal.
    """
    match = _FLOAT_TEXT.fullmatch(text.lower())
    if match is None or match.group(2) not in _FLOAT_SUFFIXES or not match.group(1):
        raise ValueError(f"not a floating literal: {text}")
    t, ctype = match.group(1), _FLOAT_SUFFIXES[match.group(2)]
    if t.startswith("0x"):
        value = Fraction(float.fromhex(t))  # hex literals are exact in double
    else:
        value = Fraction(t)
    if ctype.size == FLOAT.size and ctype.unmodelled is None:
        return round_to_float32(value), ctype
    try:
        return float(value), ctype
    except OverflowError:  # beyond the largest double: infinity, as gcc reads it
        return (math.inf if value > 0 else -math.inf), ctype
