"""Operands that tell an integer operation from the operators it is mistaken for (the
operand cases of search/boundary_goals.py): a case whose `x + off` has off = 0 cannot
fail when `+` becomes `-`."""
from __future__ import annotations

from typing import Final

import z3

#: The evaluations of an integer operation a path notes at most (State.operation_tests).
OPERATION_TESTS: Final = 4


def telling_operands(op: str, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    """That the operands of integer operation `a op b` tell it from the operators it is
    mistaken for: neither is 0 (`x + 0` is `x - 0`, `0 << n` is `0 >> n`); neither is 1
    for `*` and `/` (`x * 1` is `x / 1`); they differ for `&`, `|` and `^` (`x & x` is
    `x | x`), and share a bit for `|` and `^` (`1 ^ 2` is `1 | 2`). Readable values are
    often the ones that do not."""
    telling = [a != 0, b != 0]
    if op in ("*", "/", "%"):
        telling += [a != 1, b != 1]
    if op in ("&", "|", "^") and a.size() == b.size():
        telling.append(a != b)
        if op != "&":
            telling.append(a & b != 0)
    return z3.And(*telling)
