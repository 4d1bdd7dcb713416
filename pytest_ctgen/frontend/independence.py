"""What an independence pair of MC/DC is, over a decision's operators (`BoolTree`, see
decisions.py), and which evaluations short-circuit evaluation can give a decision.

An evaluation gives each condition a value, or None where short-circuit evaluation did
not evaluate it. Two evaluations with different outcomes, in which condition `k` is
evaluated with different values, are a pair for `k`:

* of the unique-cause form when every other condition has the same value in both or is
  not evaluated in at least one (a "don't care");
* of the masking form when `k` is masked in neither and every other condition evaluated
  with different values is masked in both. A condition is masked in an evaluation when an
  operator on its way to the outcome has, as its other operand, the value that decides
  that operator alone (false for `&&`, true for `||`).

coverage/mcdc.py measures with these definitions; the search (search/mcdc_goals.py)
targets the evaluations they ask for.
"""
from __future__ import annotations

from collections.abc import Mapping

from .decisions import BoolTree

UNIQUE_CAUSE = "unique-cause"
MASKING = "masking"
#: The values of a decision's conditions in one evaluation (None: not evaluated).
Vector = tuple[bool | None, ...]


def value(tree: BoolTree, values: Vector | list[bool | None]) -> bool | None:
    """The value of a subtree in an evaluation (None: not evaluated, or not decided)."""
    if isinstance(tree, int):
        return values[tree]
    if tree[0] == "!":
        inner = value(tree[1], values)
        return None if inner is None else not inner
    left, right = value(tree[1], values), value(tree[-1], values)
    if left is None:
        return None
    if tree[0] == "&&":
        return False if not left else right
    return True if left else right


def next_condition(tree: BoolTree, values: Vector | list[bool | None]) -> int | None:
    """The condition short-circuit evaluation evaluates next after `values`; None when
    the outcome is decided."""
    if isinstance(tree, int):
        return tree if values[tree] is None else None
    if tree[0] == "!":
        return next_condition(tree[1], values)
    left = value(tree[1], values)
    if left is None:
        return next_condition(tree[1], values)
    if left == (tree[0] == "||"):
        return None
    return next_condition(tree[-1], values)


def evaluations(tree: BoolTree, size: int, constants: Mapping[int, bool] | None = None,
                limit: int = 1 << 10) -> list[tuple[Vector, bool]] | None:
    """Every evaluation of a decision of `size` conditions that short-circuit evaluation
    can give, with its outcome, conditions in `constants` having only their value; in
    order (false before true, left to right). None when there are more than `limit`."""
    fixed = constants or {}
    out: list[tuple[Vector, bool]] = []
    values: list[bool | None] = [None] * size

    def walk() -> bool:
        k = next_condition(tree, values)
        if k is None:
            outcome = value(tree, values)
            assert outcome is not None
            out.append((tuple(values), outcome))
            return len(out) <= limit
        for v in ([fixed[k]] if k in fixed else [False, True]):
            values[k] = v
            if not walk():
                return False
        values[k] = None
        return True

    return out if walk() else None


def _path(tree: BoolTree, k: int) -> list[tuple[str, BoolTree]] | None:
    """The binary operators from the root to condition `k`, each with its other operand."""
    if isinstance(tree, int):
        return [] if tree == k else None
    if tree[0] == "!":
        return _path(tree[1], k)
    for mine, other in ((tree[1], tree[-1]), (tree[-1], tree[1])):
        below = _path(mine, k)
        if below is not None:
            return [(tree[0], other), *below]
    return None


def masked(tree: BoolTree, k: int, values: Vector) -> bool:
    """Whether condition `k` is masked in the evaluation `values`."""
    for op, other in _path(tree, k) or ():
        other_value = value(other, values)
        if other_value is not None and other_value == (op == "||"):
            return True
    return False


def unique_cause(k: int, a: Vector, b: Vector) -> bool:
    """Whether the conditions other than `k` hold still between `a` and `b`."""
    return all(j == k or x is None or y is None or x == y
               for j, (x, y) in enumerate(zip(a, b)))


def masking(tree: BoolTree, k: int, a: Vector, b: Vector) -> bool:
    """Whether `k` is masked in neither of `a` and `b`, and every other condition that
    changes between them is masked in both."""
    if masked(tree, k, a) or masked(tree, k, b):
        return False
    return all(j == k or x is None or y is None or x == y
               or (masked(tree, j, a) and masked(tree, j, b))
               for j, (x, y) in enumerate(zip(a, b)))


def pair_form(tree: BoolTree, k: int, a: tuple[Vector, bool], b: tuple[Vector, bool]
              ) -> str | None:
    """The strongest form of pair for condition `k` that the evaluations `a` and `b`
    (values, outcome) are: UNIQUE_CAUSE, MASKING or None."""
    (va, oa), (vb, ob) = a, b
    if oa == ob or va[k] is None or vb[k] is None or va[k] == vb[k]:
        return None
    if unique_cause(k, va, vb):
        return UNIQUE_CAUSE
    return MASKING if masking(tree, k, va, vb) else None
