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


def operand_goals(op: str, t: CType, a: z3.BitVecRef, b: z3.BitVecRef,
                  right: CType | None = None) -> list[tuple[str, z3.BoolRef]]:
    """The operand goals of an evaluation of integer operation `a op b` (in type `t`;
    `right`: a shift count's type), each by its kind (the second part of its key), in the
    order they are tried: "bits" (which meets "operands" too), "operands", and "constant",
    which search/boundary_goals.py tries last of all:
    - "operands": neither operand is 0 (`x + 0` is `x - 0`, `0 << n` is `0 >> n`), neither
      is 1 for `*`, `/` and `%` (`x * 1` is `x / 1`);
    - "bits", for `&`, `|` and `^`: those and operands that differ (`x & x` is `x | x`),
      sharing a bit for `|` and `^` (`1 ^ 2` is `1 | 2`); a rotation's halves never share
      one, and then "operands" alone is the goal;
    - "constant", where one operand is a constant: the result differs from what the
      constant one off each way gives (`x % 255` with x >= 255, `p / 100` where `/ 99` and
      `/ 101` give other quotients).
    Readable values are often the ones that do not."""
    operands = [a != 0, b != 0]
    if op in ("*", "/", "%"):
        operands += [a != 1, b != 1]
    goals: list[tuple[str, z3.BoolRef]] = []
    if op in ("&", "|", "^") and a.size() == b.size():
        bits = [a != b] + ([a & b != 0] if op != "&" else [])
        goals.append(("bits", z3.And(*operands, *bits)))
    goals.append(("operands", z3.And(*operands)))
    if op in _CONSTANT_SENSITIVE and z3.is_bv_value(a) != z3.is_bv_value(b):
        result, _ = arithmetic(op, t, a, b, right)
        differs = []
        for step in (-1, 1):
            other, _ = (arithmetic(op, t, a, b + step, right) if z3.is_bv_value(b) else
                        arithmetic(op, t, a + step, b, right))
            assert isinstance(result, z3.BitVecRef) and isinstance(other, z3.BitVecRef)
            differs.append(result != other)
        goals.append(("constant", z3.And(*differs)))
    return goals
