"""`boundaries.equal_sides`: the equalities that make the ordering comparisons of a branch
condition, as the lowering writes it, tell `<` from `<=` (the boundary-case goals)."""
from __future__ import annotations

import z3

from pytest_ctgen.symbolic.boundaries import equal_sides


def _branch(c: z3.BoolRef) -> z3.BoolRef:
    """A branch on the int value of `c`, as the lowering writes `if (c)`."""
    return z3.If(c, z3.BitVecVal(1, 32), z3.BitVecVal(0, 32)) != 0


def _same(found: list[z3.BoolRef], wanted: list[z3.BoolRef]) -> bool:
    """Whether `found` are `wanted`, in order, each up to equivalence."""
    return len(found) == len(wanted) and all(
        z3.Solver().check(f != w) == z3.unsat for f, w in zip(found, wanted))


def test_integer_orderings_give_their_equality_and_equalities_none() -> None:
    a, b = z3.BitVecs("a b", 32)
    condition = z3.And(_branch(z3.ULT(a, 100)), z3.Not(_branch(a == b)), _branch(b >= a))
    assert _same(equal_sides(condition), [a == 100, b == a])
    assert equal_sides(_branch(a != b)) == []


def test_float_orderings_come_after_the_integer_ones() -> None:
    x, y = z3.FPs("x y", z3.Float64())
    n = z3.BitVec("n", 32)
    condition = z3.Or(_branch(z3.fpGT(x, y)), _branch(n > 8))
    assert _same(equal_sides(condition), [n == 8, z3.fpEQ(x, y)])
    assert equal_sides(_branch(z3.fpEQ(x, y))) == []


def test_the_same_condition_gives_the_same_order_on_both_edges() -> None:
    """The goal of a comparison is keyed by its index: both edges must agree."""
    a = z3.BitVec("a", 32)
    x, y = z3.FPs("x y", z3.Float32())
    condition = z3.And(_branch(a < 3), _branch(z3.fpLEQ(x, y)))
    assert [str(e) for e in equal_sides(condition)] == \
        [str(e) for e in equal_sides(z3.Not(condition))]
