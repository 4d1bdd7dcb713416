"""The inputs under which a condition decides its decision, for a boundary case.

A boundary case decides a comparison with its sides equal (search/boundary_goals.py), so
that a `>=` written `>` takes the other edge there. That shows only where the other edge
changes what the decision decides: in `if (t >= 80 || !flow_ok || !door_closed)`, a case
with `t == 80` and `door_closed` false takes the same branch either way, and the changed
comparison goes unnoticed.

So for a comparison that is one condition of a decision of several, a pair of evaluations
of the decision (frontend/independence.py) is looked for in which the comparison's value,
as the equal sides give it, and its other value give different outcomes, with the values
of the conditions the path evaluated before it. The edges of both are walked symbolically
from the branch point, through the decision's later conditions as each evaluation has
them; their guards are what the case asks for beside the equal sides. The walk of the other
edge is a what-if: its own guard (which the equal sides contradict) is not asked for, only
the values the later conditions would then have. The first pair whose guards the solver
can meet with the equal sides wins.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..frontend.independence import MASKING, UNIQUE_CAUSE, Vector, evaluations, pair_form
from ..ir.cfg import Edge
from ..ir.condition_map import ConditionMap
from ..symbolic.paths import BoundReached, Finished, PathError
from ..symbolic.solver import Condition
from .tree import TreeNode

if TYPE_CHECKING:
    from .generator import Generator

#: Decisions with more possible evaluations are left as they are.
_MOST_EVALUATIONS = 128
#: The branches a walk goes through at most before it gives up on reaching the end of the
#: decision (a condition that calls a function with loops of its own).
_MOST_STEPS = 64


def unmasking(gen: Generator, node: TreeNode, index: int) -> Iterator[list[Condition]]:
    """What makes the comparison that edge `index` of `node` decides also decide its
    decision, beside the path to `node`: for each pair of evaluations that fits the values
    the path gave before it, the guards of both walks (nothing when the comparison is no
    condition of a decision of several)."""
    cmap = node.state.frame.cfg.conditions
    if cmap is None or node.choice is not None:
        return
    for d, k, v in cmap.exits.get(Edge(node.block.id, index), ()):
        decision = cmap.decisions[d]
        if d not in cmap.mapped or len(decision.conditions) < 2:
            continue
        flipped = next((i for i, g in enumerate(node.guards) if g is not None and
                        (d, k, not v) in cmap.exits.get(Edge(node.block.id, i), ())), None)
        if flipped is None:
            return
        for taken, other in _pairs(cmap, d, k, v, _values_so_far(cmap, d, node)):
            walked = _walk(gen, node, index, cmap, d, taken)
            what_if = _walk(gen, node, flipped, cmap, d, other) if walked is not None \
                else None
            if walked is not None and what_if is not None:
                yield walked + what_if
        return


def _values_so_far(cmap: ConditionMap, d: int, node: TreeNode) -> list[bool | None]:
    """The values the path to `node` gave the conditions of decision `d` in its last
    evaluation (a condition given a value again starts another)."""
    values: list[bool | None] = [None] * len(cmap.decisions[d].conditions)
    for e in node.state.edges:
        for dd, k, v in cmap.exits.get(e, ()):
            if dd != d:
                continue
            if values[k] is not None:
                values = [None] * len(values)
            values[k] = v
    return values


def _pairs(cmap: ConditionMap, d: int, k: int, v: bool, before: list[bool | None]
           ) -> Iterator[tuple[Vector, Vector]]:
    """The pairs of evaluations of decision `d` for its condition `k`, unique-cause or
    masking, of which the first gives `k` the value `v`; both agree with the values
    `before` gives."""
    decision = cmap.decisions[d]
    constants = {c: x for (dd, c), x in cmap.constants.items() if dd == d}
    found = evaluations(decision.tree, len(decision.conditions), constants,
                        _MOST_EVALUATIONS)
    fits = [e for e in found or ()
            if all(b is None or b == x for b, x in zip(before, e[0]))]
    for a in fits:
        if a[0][k] == v:
            for b in fits:
                if pair_form(decision.tree, k, a, b) in (UNIQUE_CAUSE, MASKING):
                    yield a[0], b[0]


def _walk(gen: Generator, node: TreeNode, index: int, cmap: ConditionMap, d: int,
          wanted: Vector) -> list[Condition] | None:
    """The guards of the edges a path takes from edge `index` of `node` through the rest
    of decision `d`, each condition with the value `wanted` gives it, up to where the path
    leaves the decision (None when such a path cannot be walked: a condition evaluated
    that `wanted` has no such value for, a bound, an error, more than _MOST_STEPS
    branches)."""
    state = node.state.fork()
    guards: list[Condition] = []
    with gen.side_paths():
        try:
            gen.step(node, state, index)
            for _ in range(_MOST_STEPS):
                outcome = gen.executor.advance(state)
                if isinstance(outcome, Finished) or outcome.choice is not None:
                    return guards
                edges = [i for i in range(len(outcome.guards))
                         if any(dd == d for dd, _, _ in
                                cmap.exits.get(Edge(outcome.block.id, i), ()))]
                if not edges:
                    return guards  # out of the decision
                chosen = next((i for i in edges if all(
                    wanted[k] == v for dd, k, v in cmap.exits[Edge(outcome.block.id, i)]
                    if dd == d)), None)
                if chosen is None or outcome.guards[chosen] is None:
                    return None
                guard = outcome.guards[chosen]
                guards.append(guard)
                gen.executor.take(state, outcome.block, chosen, guard,
                                  outcome.written[chosen] if outcome.written else None)
        except (BoundReached, PathError):
            return None
    return None

