"""Whether a case shows what an integer operation computed (the effect cases of
search/boundary_goals.py). Operands that tell `<<` from `>>` (operand_tests.py) are not
enough when what follows hides the difference: `((1u << w) - 1u) << pos` with
pos + w == 32 shifts it out of the word, and `v / 10u` and `v / 9u` give a digit count the
same number of passes for v = 101. For each integer operation of the function under test
that a path evaluated (State.operation_results), its result computed as an operator it is
mistaken for would compute it, or with the constant the code writes as an operand one
off, is put in place of the real one in the path's outputs and in its branch conditions:
a case shows the mistake when an output differs or a branch turns."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

import z3

from ..frontend.ctype import CType
from .values import arithmetic

#: An output of a path, as extract.output_terms gives them.
Output: TypeAlias = z3.ExprRef

#: The operator each integer operator is most often mistaken for.
_MISTAKEN_FOR: Final = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "/", "<<": ">>",
                        ">>": "<<", "&": "|", "|": "&", "^": "|"}


@dataclass(frozen=True, eq=False)
class Evaluation:
    """An evaluation of integer operation `a op b` (in type `t`; `right`: a shift count's
    type) at `site` (Executor.operation_sites); `literal`: which operand the code writes
    as a constant ("a" or "b"), None for neither or both. Its result is made again when
    needed (`result`): a path that kept it alive would have z3 number the terms made
    after it otherwise, which moves the models z3 finds, and so the cases of the search."""

    site: int
    op: str
    t: CType
    a: z3.BitVecRef
    b: z3.BitVecRef
    right: CType | None
    literal: str | None

    def result(self, mistake: str | None = None,
               operands: tuple[z3.BitVecRef, z3.BitVecRef] | None = None) -> z3.BitVecRef:
        """The result of the evaluation, or the one a `mistake` gives from `operands` (by
        default its own)."""
        op = self.op
        a, b = operands if operands is not None else (self.a, self.b)
        if mistake == "op":
            op = _MISTAKEN_FOR[self.op]
        elif mistake is not None:
            step = 1 if mistake == "constant+1" else -1
            if self.literal == "b":
                b = b + step
            else:
                a = a + step
        result, _ = arithmetic(op, self.t, a, b, self.right)
        assert isinstance(result, z3.BitVecRef)
        return result


def mistakes(e: Evaluation) -> list[str]:
    """The mistakes an effect goal of the operation of `e` is about, by the name that is
    the second part of its key: "op" (the operator it is mistaken for), "constant+1" and
    "constant-1" (where the code writes one operand as a constant)."""
    names = ["op"] if e.op in _MISTAKEN_FOR else []
    if e.literal is not None:
        names += ["constant+1", "constant-1"]
    return names


def effect_targets(evaluations: Sequence[Evaluation], outputs: Sequence[Output],
                   conditions: Sequence[z3.BoolRef], wanted: Callable[[tuple[int, str]], bool]
                   ) -> list[tuple[tuple[int, str], z3.BoolRef]]:
    """For each operation the path evaluated and each of its mistakes whose key (site,
    mistake) is `wanted`: that the path's `outputs` differ, or its branch `conditions` (as
    written: the path's constraints are simplified, `UDiv` made `bvudiv_i`) do not all
    hold, with the results of every evaluation of the operation made with the mistake
    (each from the operands the earlier ones give). A mistake none of them would see is
    left out."""
    sites: dict[int, list[Evaluation]] = {}
    for e in evaluations:
        sites.setdefault(e.site, []).append(e)
    path = z3.And(*conditions)
    targets: list[tuple[tuple[int, str], z3.BoolRef]] = []
    for site, evaluated in sites.items():
        first = evaluated[0]
        for mistake in mistakes(first):
            if not wanted((site, mistake)):
                continue
            pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
            for e in evaluated:
                a = z3.substitute(e.a, *pairs) if pairs else e.a
                b = z3.substitute(e.b, *pairs) if pairs else e.b
                assert isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
                pairs.append((e.result(), e.result(mistake, (a, b))))
            turned: list[z3.BoolRef] = []
            for value in outputs:
                other = z3.substitute(value, *pairs)
                if not z3.eq(other, value):
                    turned.append(value != other)
            other_path = z3.substitute(path, *pairs)
            if not z3.eq(other_path, path):
                turned.append(z3.Not(other_path))
            if turned:
                targets.append(((site, mistake), z3.Or(turned)))
    return targets
