"""Boundary cases (`--ctgen-boundary-cases`, on by default): for each ordering comparison
the function's branches decide, a case where its two sides are equal.

Branch coverage is content with `n > MAX_N` decided by n = 3 and n = 50; only n == MAX_N
tells `>` from `>=`, so only such a case fails when someone changes one into the other.
The cases of the search already decide their comparisons one step from turning where
their path allows (symbolic/boundaries.py); a comparison no case decided with equal sides
is a goal after the search: from a branch point of the search tree that decides it, the
solver is asked for inputs with both sides equal, and the path runs on concretely as
those inputs take it. A case found so is noted as a boundary case. These are extras: they
may spend a share of what the search spent (within what it left of the budget), and the
function's stop reason stays what the search gave unless the time budget (the safety net)
ran out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING


from ..cases import BOUNDARY_NOTE
from ..symbolic.boundaries import equal_sides
from ..symbolic.solver import Condition, Model, Solver
from ..symbolic.state import State
from ..symbolic.work import STEPS_PER_UNIT
from .tree import TreeNode

if TYPE_CHECKING:
    from .generator import Generator

#: A comparison: the block whose branch decides it, and its index in the branch condition.
Key = tuple[int, int]


#: The work the boundary cases may spend: this share of what the search spent, and at least
#: so many steps. They are extras: a float equality can cost seconds of solving, and the
#: search's goals come first.
_SHARE = 0.25
_LEAST_STEPS = 2 * STEPS_PER_UNIT
#: Branch points kept per comparison to start its goal from (the search forgets the nodes
#: whose edges it explored all); the first ones the search met.
_NODES_PER_GOAL = 4


@dataclass
class BoundaryGoals:
    """Which comparisons of the function under test a case decided with equal sides
    (`met`), and the branch points of the search tree that decide the others."""

    met: set[Key] = field(default_factory=set)
    deciders: dict[Key, list[TreeNode]] = field(default_factory=dict)

    def note_case(self, state: State, model: Model, solver: Solver) -> None:
        """Record the comparisons the path of a case decided with equal sides."""
        for block, condition in state.decided:
            for k, equal in enumerate(equal_sides(condition)):
                if (block, k) not in self.met and solver.holds(model, equal):
                    self.met.add((block, k))
                    self.deciders.pop((block, k), None)

    def offer(self, node: TreeNode) -> None:
        """Keep `node` as a start for the goals of the comparisons its branch decides."""
        condition = _decided(node)
        if condition is None or not node.in_function_under_test:
            return
        for k in range(len(equal_sides(condition))):
            key = (node.block.id, k)
            if key not in self.met:
                kept = self.deciders.setdefault(key, [])
                if len(kept) < _NODES_PER_GOAL:
                    kept.append(node)


def add_boundary_cases(gen: Generator) -> None:
    """A case for each comparison that no case decided with equal sides, where a branch
    point of the search tree that decides it has inputs making them equal. Raises the
    generator's budget exception when their share of the budget (or the budget, or the
    time) is spent."""
    goals = gen.boundary
    if goals is None:
        return
    meter = gen.meter
    share = meter.spent + max(_LEAST_STEPS, int(meter.spent * _SHARE))
    limit = meter.limit
    # the share is the budget while they are made: no query runs past it
    meter.limit = min(limit, share) if limit > 0 else share
    try:
        for key, nodes in list(goals.deciders.items()):
            for node in nodes:
                if key in goals.met or meter.exhausted:
                    break
                gen.check_budget()
                _try_equal_sides(gen, node, key)
    finally:
        meter.limit = limit
        goals.deciders.clear()  # their states are not needed any more


def _try_equal_sides(gen: Generator, node: TreeNode, key: Key) -> None:
    """A case from `node` along inputs that make comparison `key` decide with equal sides,
    when there are such inputs and the path they take ends within what is modelled."""
    condition = _decided(node)
    assert condition is not None  # `offer` kept only nodes that decide a condition
    equal = equal_sides(condition)[key[1]]
    state = node.state.fork()
    model = gen.solver.model([*state.constraints, equal], gen.preferences(state))
    if model is None:
        return
    live = [i for i, g in enumerate(node.guards)
            if g is not None and gen.solver.holds(model, g)]
    if live and gen.complete(state, model, partial(gen.step, node, state, live[0])) and \
            gen.add_case(state, model, (BOUNDARY_NOTE,)):
        # it may take an outcome the search left (a bound cut its paths there)
        gen.goals.covered(state.edges)
        if gen.goals.callees is not None:
            gen.goals.callees.covered(state)


def _decided(node: TreeNode) -> Condition | None:
    """The condition of the first possible edge of the branch of `node`, as written (an
    if's other edge is its negation), or None for a choice node."""
    return next((w for w in node.written or () if w is not None), None)
