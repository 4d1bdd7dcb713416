"""The effect goals of an integer operation (symbolic/effect_tests.py): its result computed
by a mistake is put in place of the real one in the path's outputs and branches, for every
evaluation of the operation at once, each from the operands the earlier ones give."""
from __future__ import annotations

import z3

from pytest_ctgen.frontend.ctype import UINT
from pytest_ctgen.symbolic.effect_tests import Evaluation, effect_targets, mistakes


def _division(v: z3.BitVecRef) -> Evaluation:
    return Evaluation(0, "/", UINT, v, z3.BitVecVal(10, 32), UINT, literal="b")


def _holds(condition: z3.BoolRef, **values: int) -> bool:
    pairs = [(z3.BitVec(name, 32), z3.BitVecVal(value, 32)) for name, value in values.items()]
    return z3.is_true(z3.simplify(z3.substitute(condition, *pairs)))


def test_a_loop_s_divisions_are_all_made_with_the_constant_one_off() -> None:
    """`while (v >= 10u) v /= 10u;` run twice: the second division divides what the first
    gave. With 9u for 10u, v = 101 still makes two passes (11, then 1), so no branch turns;
    v = 810 makes a third (90, 10), and v = 100 one pass fewer with 11u."""
    v = z3.BitVec("v", 32)
    first = _division(v)
    second = _division(first.result())
    branches = [z3.UGE(v, 10), z3.UGE(first.result(), 10), z3.ULT(second.result(), 10)]
    assert mistakes(first) == ["op", "constant+1", "constant-1"]
    targets = dict(effect_targets([first, second], [], branches, wanted=lambda _: True))
    assert not _holds(targets[(0, "constant-1")], v=101)
    assert _holds(targets[(0, "constant-1")], v=810)
    assert _holds(targets[(0, "constant+1")], v=100)
    assert not _holds(targets[(0, "constant+1")], v=110)


def test_an_output_that_hides_the_mistake_leaves_the_goal_unmet() -> None:
    """`((1u << n) - 1u) << p` as a 16-bit mask: with `>>` for the first `<<` it is all ones
    shifted by p, the same where n + p == 16 (the run reaches the top bit), not below."""
    n, p = z3.BitVecs("n p", 32)
    evaluation = Evaluation(3, "<<", UINT, z3.BitVecVal(1, 32), n, UINT, literal="a")
    mask = z3.Extract(15, 0, (evaluation.result() - 1) << p)
    targets = dict(effect_targets([evaluation], [mask], [],
                                  wanted=lambda key: key != (3, "constant-1")))
    assert list(targets) == [(3, "op"), (3, "constant+1")]
    assert not _holds(targets[(3, "op")], n=4, p=12)
    assert _holds(targets[(3, "op")], n=4, p=11)


def test_a_mistake_that_changes_nothing_the_path_shows_is_no_goal() -> None:
    """An operation whose result reaches neither an output nor a branch gives no goal."""
    x = z3.BitVec("x", 32)
    unused = Evaluation(1, "+", UINT, x, x, UINT, literal=None)
    assert effect_targets([unused], [x], [z3.UGT(x, 3)], wanted=lambda _: True) == []
