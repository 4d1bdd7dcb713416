"""Operands that tell an integer operation from the operators it is mistaken for (the
operand cases of search/boundary_goals.py): a case whose `x + off` has off = 0 cannot
fail when `+` becomes `-`."""
from __future__ import annotations

from typing import Final

import z3

from ..frontend.ctype import CType
from .values import arithmetic

#: The evaluations of an integer operation a path notes at most (State.operation_tests).
OPERATION_TESTS: Final = 4


#: The operations whose result a constant operand one off may leave as it is (`x % 255`
#: and `x % 254` agree below 254; `+` and `-` never do).
_CONSTANT_SENSITIVE: Final = ("*", "/", "%", "<<", ">>", "&", "|", "^")


def telling_operands(op: str, t: CType, a: z3.BitVecRef, b: z3.BitVecRef,
                     right: CType | None = None) -> z3.BoolRef:
    """That the operands of integer operation `a op b` (in type `t`; `right`: a shift
    count's type) tell it from the operators it is mistaken for: neither is 0 (`x + 0` is
    `x - 0`, `0 << n` is `0 >> n`); neither is 1 for `*` and `/` (`x * 1` is `x / 1`);
    they differ for `&`, `|` and `^` (`x & x` is `x | x`), and share a bit for `|` and
    `^` (`1 ^ 2` is `1 | 2`). Where one operand is a constant, also that the result
    differs from what the constant one off each way gives (`x % 255` with x >= 254,
    `x * p / 100` where / 99 and / 101 give other quotients). Readable values are often
    the ones that do not."""
    telling = [a != 0, b != 0]
    if op in ("*", "/", "%"):
        telling += [a != 1, b != 1]
    if op in ("&", "|", "^") and a.size() == b.size():
        telling.append(a != b)
        if op != "&":
            telling.append(a & b != 0)
    if op in _CONSTANT_SENSITIVE and z3.is_bv_value(a) != z3.is_bv_value(b):
        result, _ = arithmetic(op, t, a, b, right)
        for step in (-1, 1):
            other, _ = (arithmetic(op, t, a, b + step, right) if z3.is_bv_value(b) else
                        arithmetic(op, t, a + step, b, right))
            assert isinstance(result, z3.BitVecRef) and isinstance(other, z3.BitVecRef)
            telling.append(result != other)
    return z3.And(*telling)
