"""The operand goals of an integer operation (symbolic/operand_tests.py): each a goal of its
own, so that operands which cannot tell every operator apart still tell what they can."""
from __future__ import annotations

import z3

from pytest_ctgen.frontend.ctype import UINT
from pytest_ctgen.symbolic.operand_tests import operand_goals


def _goals(op: str, a: z3.BitVecRef, b: z3.BitVecRef) -> dict[str, z3.BoolRef]:
    return dict(operand_goals(op, UINT, a, b, UINT))


def _satisfiable(*conditions: z3.BoolRef) -> bool:
    return z3.Solver().check(*conditions) == z3.sat


def test_a_rotation_s_halves_are_told_apart_from_0_though_they_never_share_a_bit() -> None:
    """`(x << n) | (x >> (32 - n))`: the halves of a rotation share no bit, so operands
    that tell `|` from `^` are not to be had; that neither half is 0 still is, and is a
    goal of its own."""
    x, n = z3.BitVecs("x n", 32)
    in_range = z3.And(z3.UGT(n, 0), z3.ULT(n, 32))
    goals = _goals("|", x << n, z3.LShR(x, 32 - n))
    assert list(goals) == ["bits", "operands"]
    assert not _satisfiable(in_range, goals["bits"])
    assert _satisfiable(in_range, goals["operands"])


def test_a_constant_operand_is_a_goal_of_its_own_tried_last() -> None:
    """`p / 100` where p < 99 is 0, as `p / 99` and `p / 101` are: the constant goal asks
    for a quotient the divisor one off each way changes, apart from the operands' goal."""
    p = z3.BitVec("p", 32)
    goals = _goals("/", p, z3.BitVecVal(100, 32))
    assert list(goals) == ["operands", "constant"]
    assert not _satisfiable(z3.ULT(p, 99), goals["constant"])
    assert _satisfiable(z3.ULT(p, 99), goals["operands"])
    solver = z3.Solver()
    solver.add(goals["constant"])
    assert solver.check() == z3.sat
    told = solver.model().eval(p).as_long()
    assert told // 100 not in (told // 99, told // 101), told


def test_operations_that_a_constant_one_off_cannot_hide_have_no_constant_goal() -> None:
    """`x + 1` and `x + 2` always differ: no goal."""
    x = z3.BitVec("x", 32)
    assert list(_goals("+", x, z3.BitVecVal(1, 32))) == ["operands"]
    assert list(_goals("&", x, z3.BitVec("y", 32))) == ["bits", "operands"]
