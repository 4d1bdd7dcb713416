"""Boundary cases (`--ctgen-boundary-cases`, on by default): for each ordering comparison
the function's branches decide, a case where its two sides are equal, one where they are
one apart on the side where its outcome turns, and for floating point one with zeros of
opposite signs; for each comparison whose value it uses, a case for each of its outcomes;
for each way out of each loop of the function, a case that takes it after more than one
pass; for each integer operation, a case whose operands tell it from other operators; for
a path whose case returns or writes 0, a case where that output is not 0.

Branch coverage is content with `n > MAX_N` decided by n = 3 and n = 50; only n == MAX_N
tells `>` from `>=`, so only such a case fails when someone changes one into the other.
The cases of the search already decide their comparisons one step from turning where
their path allows (symbolic/boundaries.py); a comparison no case decided with equal sides
is a goal after the search: from a branch point of the search tree that decides it, the
solver is asked for inputs with both sides equal, and the path runs on concretely as
those inputs take it; where it runs past the end of an object behind an input pointer
(`n == 64` beside the 10 elements of the search), it runs again from the function's entry
with objects as large as a search round would grow them. A case found so is noted as a
boundary case. The same goes for sides one apart (`v = 9` tells `v >= 10` from `v >= 9`,
which `v = 10` decides alike) and for zeros of opposite signs (-0.0 == +0.0: what the
function returns or stores shows whether `>` or `>=` decided them, as equal nonzero sides
do not). Of the branch points kept per comparison, the last is the one deepest in loops:
`v > 1000000` can have equal sides on the seventh digit only.

Likewise branch coverage is content with a loop whose body runs once (`v = v * 10 + d`
over one digit): only a second pass shows a counter stepping the wrong way, an
accumulation that restarts or a pointer that does not move on (loop testing's zero, one
and more passes). A loop that no case runs more than once and then leaves through its
condition is a goal after the search: from a branch point of the tree at which the loop
has run more than once and may be left, the solver is asked for inputs that leave it there,
and the path runs on concretely; where no path of the search ran it more than once, a path
from a branch point after one pass goes on symbolically, staying in the loop until it has
run twice and leaving it then. The case is noted as a loop case, and its inputs are spread
apart where the path allows (symbolic/distinct.py). A loop left only by `return` or
`break` after more passes does not meet this goal: the case must show what the passes
computed. Each other way out of a loop (a `return` or `break` in its body: the branch
edges to a block the loop never comes back from) is a goal of its own the same way: a
search that returns the index it found is content with a case that finds it at index 0,
where a counter stepping the wrong way, or a count that never grows, goes unseen. Such a
way out is also taken at the most passes the search reached it with, where no case took it
after as many: a check of 3 rows failing on the third tells `i < 3` from `i < 2`.

Two goals look at a pass the compiled code does not run. A loop's exit through its test
(`stops`: each condition of the test that leaves the loop) gets a bound case: from a
branch point of the tree that takes it, a ghost of the path enters the body as if the
test had let it and runs one more pass symbolically (`_OneMorePass`: a way out of the loop
first, then the body's statements rather than its `continue`); inputs that stop the loop
there, with its test's sides equal where they can be, and would take that pass so, make
the case: `a[n] == key` where the loop stops at `i == n`, which a bound one off (`i <= n`)
finds. And a loop's way out from its body gets an only-decider case: the ghost goes on
past it as if the loop had not been left, to the function's end (`_RestOfRun`: the loops'
exits through their tests first, their other ways out last), so no later pass would leave
the loop: a check of rows failing on the first row passes the others, which a loop that
starts at the second row then shows. Neither ghost adds to the tree; what it assumes is
kept by the case's inputs.

A comparison whose value the function uses as a number (`return count >= limit;`) decides
no branch: branch coverage never asks for its false outcome. Each evaluation of one on a
case's path is noted (State.value_tests) with the path's constraints up to it; for an
outcome no case gives it (its left side below, equal to or above its right side), inputs
that take such a path to it and give it that outcome there are solved for and run
concretely from the function's entry, its input pointers pointing where they did on that
path (two cursors into one buffer), a boundary case. Integer operations are noted so
too (State.operation_tests), with whether their operands tell them from the operators
they are mistaken for (symbolic/operand_tests.py): `x + 0` is `x - 0`; an operation no
case gave such operands gets a case that does, found the same way (an operand case). Each
operand goal is one of its own: a rotation's halves never share the bit that tells `|`
from `^`, and still can both be non-zero; and an operation with a constant operand whose
result the constant one off each way would not change (`p / 100` for p < 99) is a goal
tried last of all, after the result cases, as its divisions are the costliest queries.
Then, last, an effect goal of each operation and mistake (symbolic/effect_tests.py): its
result computed as the operator it is mistaken for would compute it, or with its constant
operand one off, put in place of the real one on a case's path, changes the case's
outputs or turns a branch of the path; a goal no case met is solved along the whole path
of one that did not (an effect case).
After the result cases, the operand goals are goals again for each way a path ends (its
last outcome): a frame that fails its check tells `+` from `-` where that shows nothing,
while the readable frame that passes is all zeros; a case of the passing path whose
operands tell them is solved along that whole path.
So are the comparisons a path evaluates after assigning a local they read
(symbolic/use_tests.py, State.use_tests): an (assignment, comparison) pair that no case
let the assigned value decide, where the value before would decide it otherwise, gets
such a case (a use case: `below >= hold` after `below++` with hold > 0). These goals are
tried again after the loop cases, whose paths reach points the search's did not.

Boundary values often make a result 0 (`x * 1000 >> 15` for x = 1), and 0 hides a wrong
operator or constant in what computes it: a path whose case returns 0, or writes a
computed 0 (`*out = neg ? -v : v` for "-0"), gets a case of readable values where such an
output is not 0, where the path allows (a result case); so does one that returns or writes
a node's link that is NULL where an input link is (`*head = t->next` for the last node). A
computed result equal to a constant the function returns elsewhere hides it alike (`a + b`
at the boundary of a saturating add is the INT32_MAX the saturated path returns): the
result case is one where it is neither. And a case decided at a comparison's boundary
(sides equal or one apart, whether the search's or a boundary case) whose output is 0 gets
a result case that keeps that boundary: `count == 32 - first` reads a word's top bit,
which may be clear, and only that boundary tells a limit one off.

Boundary cases of other comparisons meet a comparison's boundary by the way; where it is
one condition of a decision of several, such a meeting counts only when the comparison
decided the decision there, as for the cases of the search.

These are extras: they may spend a share of what the search spent (within what it left of
the budget), the effect goals a little more after it, and the function's stop reason stays
what the search gave unless the time budget (the safety net) ran out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..cases import (BOUNDARY_NOTE, EFFECT_NOTE, LOOP_NOTE, NEAR_NOTE, ONLY_NOTE,
                     OPERAND_NOTE, OUTCOME_NOTE, PAST_NOTE, RESULT_NOTE, USE_NOTE)
from ..ir.cfg import CFG, Block, Branch, Edge, Switch
from ..ir.condition_map import ConditionMap
from ..symbolic.boundaries import (boundary_wishes, equal_sides, near_sides,
                                   opposite_zeros, outcomes)
from ..symbolic import extract
from ..symbolic.effect_tests import Evaluation, Output, effect_targets
from ..symbolic.paths import BoundReached, Finished, PathError
from ..symbolic.solver import SAT, Condition, Model, Solver, WholeTier
from ..symbolic.state import Pointee, State
from ..symbolic.work import STEPS_PER_UNIT
from .options import larger_array_size
from .tree import TreeNode
from .unmasking import unmasking

if TYPE_CHECKING:
    from .generator import Generator

#: A boundary goal: the block whose branch decides it, and its index in `_sides` of the
#: branch condition.
Key = tuple[int, int]
#: A loop goal: the loop (by its body block) and where a case leaves it to after more than
#: one pass: a block the loop does not come back from (by its id; a `return` or `break`
#: in its body) or None for any edge out through its condition.
LoopGoal = tuple[int, int | None]
#: An outcome of a comparison whose value the function uses (CFG.value_comparisons): its
#: index there and the outcome (boundaries.outcomes: "below", "equal", "above", or "true",
#: "false").
ValueKey = tuple[int, str]
#: Goals at points of a path, each time the path reached one: its key, its target and how
#: many constraints the path had there.
Points = list[tuple[Any, Condition, int]]
#: A path up to such a point: its constraints there, the goal's target, and where its
#: input pointers point (State.chosen).
Start = tuple[list[Condition], Condition, dict[str, int]]


#: The work the boundary cases may spend: this share of what the search spent, and at least
#: so many steps. They are extras: a float equality can cost seconds of solving, and the
#: search's goals come first.
_SHARE = 0.25
_LEAST_STEPS = 10 * STEPS_PER_UNIT
#: The work the effect goals may spend beyond what the other boundary goals left of their
#: share: they come last, and the share is often spent by then.
_EFFECT_STEPS = 5 * STEPS_PER_UNIT
#: The work one query of an effect goal may take: a mistake in a checksum's arithmetic
#: that no case shows is often costly to prove so, and the goals are many.
_EFFECT_QUERY_STEPS = STEPS_PER_UNIT
#: Branch points kept per comparison or loop to start its goal from (the search forgets the
#: nodes whose edges it explored all); the first ones the search met (for a comparison,
#: the last of them the one deepest in loops).
_NODES_PER_GOAL = 4
#: The passes of a loop's body a loop case makes at least before it leaves the loop.
_PASSES = 2
#: Pairs of evaluations tried at most for a boundary case's comparison to decide its
#: decision (unmasking.py).
_MOST_PAIRS = 4
#: Paths whose case returns 0 tried again for another result, at most (the first ones).
_MOST_RESULT_CASES = 32
#: The branch points a ghost of a path (`_ghost`, `_walk`) goes through at most.
_MOST_GHOST_FORKS = 64


@dataclass
class BoundaryGoals:
    """Which comparisons of the function under test (`cfg`) a case decided with equal
    sides (`met`), and the branch points of the search tree that decide the others; the
    loop goals a case met, running a loop more than once and leaving it through its
    condition or another way out (`looped`), and for the others the branch points to
    start from: at which a loop has run more than once and may be left that way
    (`leave`), or once and may run again (`again`, by the loop's body block)."""

    cfg: CFG
    met: set[Key] = field(default_factory=set)
    deciders: dict[Key, list[TreeNode]] = field(default_factory=dict)
    looped: set[LoopGoal] = field(default_factory=set)
    leave: dict[LoopGoal, list[tuple[TreeNode, int]]] = field(default_factory=dict)
    again: dict[int, list[tuple[TreeNode, int]]] = field(default_factory=dict)
    # each way out of a loop from its body (a `return` or `break`): the most passes after
    # which a case took it, and the branch point of the search tree with the most passes
    # from which it may be taken, with its edge out and those passes
    deepest_met: dict[LoopGoal, int] = field(default_factory=dict)
    deepest: dict[LoopGoal, tuple[TreeNode, int, int]] = field(default_factory=dict)
    # each loop's exits through its condition (by the loop and the edge) that no bound case
    # took yet, with the branch points of the search tree from which they may be taken
    # (`_try_past`)
    past: dict[tuple[int, Edge], list[TreeNode]] = field(default_factory=dict)
    past_met: set[tuple[int, Edge]] = field(default_factory=set)
    # each way out of a loop from its body (an edge of a `return` or `break`) that no
    # only-decider case took yet, with its loop and the branch points of the search tree
    # from which it may be taken (`_try_only`)
    only: dict[Edge, tuple[int, list[TreeNode]]] = field(default_factory=dict)
    only_met: set[Edge] = field(default_factory=set)
    values_met: set[ValueKey] = field(default_factory=set)
    # the operand goals of integer operations (by site and kind, see
    # operand_tests.operand_goals) a case met, and for the others the paths to them to
    # start from
    operations_met: set[tuple[int, str]] = field(default_factory=set)
    operation_starts: dict[tuple[int, str], list[Start]] = field(default_factory=dict)
    # the same goals again for each way a path ends (its last outcome, see
    # `_ending_operations`), and the whole paths of cases that did not meet them
    ending_operations_met: set[tuple[tuple[int, str], Edge | None]] = \
        field(default_factory=set)
    ending_operation_starts: dict[tuple[tuple[int, str], Edge | None], list[Start]] = \
        field(default_factory=dict)
    # the (assignment, comparison) pairs a case let the assigned value decide, and for the
    # others the paths to them to start from (use_tests.py)
    uses_met: set[tuple[int, int]] = field(default_factory=set)
    use_starts: dict[tuple[int, int], list[Start]] = field(default_factory=dict)
    # the effect goals of integer operations (by site and mistake, see
    # effect_tests.effect_targets) a case met, and for the others the whole paths of
    # cases that did not
    effects_met: set[tuple[int, str]] = field(default_factory=set)
    effect_starts: dict[tuple[int, str], list[Start]] = field(default_factory=dict)
    # the paths of the cases whose effect goals are not noted yet (`_note_effects`), of
    # this search round and the ones before
    effect_paths: list[_EffectPath] = field(default_factory=list)
    # the search round (`forget` starts the next), and the step count up to which the
    # boundary goals may work (set by `add_boundary_cases`)
    round: int = 0
    share: int = 0
    value_starts: dict[ValueKey, list[Start]] = field(default_factory=dict)
    # paths whose case returns or writes 0 where another value may be possible, by the
    # outcomes they take (State.edges), with that one of those outputs is not 0: each is
    # tried once; and boundary cases that do, by their path and what they keep (the
    # sides equal), with what they keep
    zero_results: dict[tuple[object, ...], tuple[State, Condition]] = \
        field(default_factory=dict)
    results_tried: set[tuple[object, ...]] = field(default_factory=set)
    zero_boundaries: dict[tuple[object, ...], tuple[State, Condition, tuple[Condition, ...]]] \
        = field(default_factory=dict)
    # comparisons a case of the search decided with equal sides whose branch is a condition
    # of a decision of several, with the cases' models: unless one of them also let the
    # comparison decide its decision, a boundary case that does is still a goal
    equal_only: dict[Key, list[Model]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        #: the constants the function returns (a computed result equal to one is a goal)
        self.returned = self.cfg.constant_results()
        cmap = self.cfg.conditions or ConditionMap()
        #: the blocks whose branch decides a condition of a decision of several
        self.in_decisions: frozenset[int] = frozenset(
            e.block for e, values in cmap.exits.items()
            if any(d in cmap.mapped and len(cmap.decisions[d].conditions) > 1
                   for d, _, _ in values))
        # each loop's exits through its condition: edges out of the loop from a block
        # that also begins the loop's body again (a break's edge is none)
        self.exits: dict[int, set[Edge]] = {}
        self._to_test: dict[int, dict[int, int]] = {}
        #: each loop's exits through its test, those of `exits` and those of the test's
        #: conditions before them
        self.stops: dict[int, set[Edge]] = {}
        self.blocks: dict[int, frozenset[int]] = {}  # each loop's blocks
        #: the loop goals, in the order they are tried: each loop's exit through its
        #: condition, then its other ways out, in block order
        self.loop_goals: list[LoopGoal] = []
        #: each other way out of a loop: the branch edges from the loop to that block
        self.ways_out: dict[LoopGoal, set[Edge]] = {}
        for head in self.cfg.loops:
            blocks = self.blocks[head] = frozenset(self.cfg.loop_blocks(head))
            self.exits[head] = {
                Edge(b, i) for b in blocks
                for term in [self.cfg.blocks[b].terminator] if term is not None
                if any(t.id == head for t in term.successors())
                for i, t in enumerate(term.successors()) if t.id not in blocks}
            self.loop_goals += [(head, None)] if self.exits[head] else []
            # and every condition of the loop's test that leaves it (a false `i < max` of
            # `i < max && names[i] != NULL`), for the bound cases
            decisions = {d for e in self.exits[head] for d, _, _ in cmap.exits.get(e, ())}
            self.stops[head] = self.exits[head] | {
                e for e, values in cmap.exits.items()
                if e.block in blocks and any(d in decisions for d, _, _ in values)
                and self.cfg.edge_target(e).id not in blocks}
            for b in sorted(blocks):
                term = self.cfg.blocks[b].terminator
                if not isinstance(term, (Branch, Switch)):
                    continue
                for i, t in enumerate(term.successors()):
                    if t.id not in blocks and Edge(b, i) not in self.exits[head]:
                        if (head, t.id) not in self.ways_out:
                            self.loop_goals.append((head, t.id))
                        self.ways_out.setdefault((head, t.id), set()).add(Edge(b, i))
        #: the edges of every way out of a loop from its body, and of every exit through
        #: a loop's test
        self.way_edges = frozenset(e for ways in self.ways_out.values() for e in ways)
        self.test_edges = frozenset(e for stops in self.stops.values() for e in stops)
        # the same, each with its loop, by the block whose branch takes it (`offer` is
        # called at every branch point of the search)
        self._stops_at: dict[int, list[tuple[int, Edge]]] = {}
        for head, stops in self.stops.items():
            for e in stops:
                self._stops_at.setdefault(e.block, []).append((head, e))
        self._ways_at: dict[int, list[tuple[int, Edge]]] = {}
        for (head, _), ways in self.ways_out.items():
            for e in ways:
                self._ways_at.setdefault(e.block, []).append((head, e))

    def work_to_test(self, head: int) -> dict[int, int]:
        """For each block of loop `head`, the most statements a pass runs from its start to
        the loop's test (`stops`): a body's statements count more than its `continue`,
        which goes to the step alone."""
        if head not in self._to_test:
            blocks = self.blocks[head]
            tests = {e.block for e in self.stops[head]}
            work: dict[int, int] = {}

            # memoized under the first path that reaches a block (`seen` stops cycles of
            # inner loops): it only orders edges
            def most(b: int, seen: frozenset[int]) -> int:
                if b in tests or b not in blocks or b in seen:
                    return 0
                if b not in work:
                    term = self.cfg.blocks[b].terminator
                    after = [most(t.id, seen | {b}) for t in term.successors()] \
                        if term is not None else []
                    work[b] = len(self.cfg.blocks[b].stmts) + max(after, default=0)
                return work[b]

            for b in sorted(blocks):
                most(b, frozenset())
            self._to_test[head] = work
        return self._to_test[head]

    def goal_exits(self, goal: LoopGoal) -> set[Edge]:
        """The edges out of its loop that meet loop goal `goal`."""
        head, target = goal
        return self.exits[head] if target is None else self.ways_out[goal]

    def note_case(self, state: State, model: Model, solver: Solver,
                  notes: tuple[str, ...], pointees: list[Pointee],
                  kept: tuple[Condition, ...] = ()) -> None:
        """Record the comparisons the path of a case decided with equal sides, the loops
        it ran more than once and left through their condition, the outcomes it gave the
        comparisons whose value the function uses, and whether it returns or writes 0
        (a case of the search, or a boundary case with what it keeps, `kept`); `notes`:
        the notes of an extra case (none for a case of the search); `pointees`: its
        objects."""
        extra = bool(notes)
        path = tuple(state.edges)
        if not extra:
            # the sides a case of the search decided equal or one apart where it could
            kept = tuple(side for _, condition in state.decided
                         for side, _ in _sides(condition) if solver.holds(model, side))
        if kept and RESULT_NOTE not in notes and LOOP_NOTE not in notes:
            self._note_zero_boundary(state, model, pointees, kept)
        if path not in self.results_tried:
            zero = self.zero_results.get(path)
            if zero is not None:
                if solver.holds(model, zero[1]):  # another case of the path did
                    self.results_tried.add(path)
                    del self.zero_results[path]
            else:
                nonzero = extract.nonzero_output(model, state, pointees, self.returned)
                if nonzero is None:  # no output 0: no goal
                    self.results_tried.add(path)
                elif not extra and len(self.zero_results) < _MOST_RESULT_CASES:
                    self.zero_results[path] = (state, nonzero)
        for block, condition in state.decided:
            for k, (equal, _) in enumerate(_sides(condition)):
                if (block, k) not in self.met and solver.holds(model, equal):
                    # a boundary case of another comparison may meet this one where
                    # the decision does not depend on it, as a case of the search may
                    if block not in self.in_decisions:
                        self.met.add((block, k))
                        self.deciders.pop((block, k), None)
                    else:  # whether it decided its decision too is not known yet
                        models = self.equal_only.setdefault((block, k), [])
                        if len(models) < _NODES_PER_GOAL:
                            models.append(model)
        for goal in self.loop_goals:
            passes = self.passes_out(state, goal)
            if goal[1] is not None and passes > self.deepest_met.get(goal, 0):
                self.deepest_met[goal] = passes
            if goal not in self.looped and passes >= _PASSES:
                self.looped.add(goal)
                self.leave.pop(goal, None)
                head = goal[0]
                if all(g in self.looped for g in self.loop_goals if g[0] == head):
                    self.again.pop(head, None)
        _note_points(self.operations_met, self.operation_starts, state.operation_tests,
                     state, model, solver)
        _note_points(self.ending_operations_met, self.ending_operation_starts,
                     _ending_operations(state), state, model, solver)
        _note_points(self.values_met, self.value_starts, _value_points(state), state, model,
                     solver)
        _note_points(self.uses_met, self.use_starts, state.use_tests, state, model, solver)
        if state.operation_results:
            self.effect_paths.append(_EffectPath(
                tuple(state.operation_results), extract.output_terms(state, pointees),
                tuple(state.branch_conditions), list(state.constraints),
                dict(state.chosen), model, self.round))

    def _note_zero_boundary(self, state: State, model: Model, pointees: list[Pointee],
                            kept: tuple[Condition, ...]) -> None:
        """Keep a boundary case that returns or writes a computed 0 for a result case
        that keeps its boundary (`kept`): the sides equal make a mask's top bit the one
        read (`pos == 32 - width`), and a 0 there hides a limit one off."""
        if len(self.zero_boundaries) >= _MOST_RESULT_CASES:
            return
        nonzero = extract.nonzero_output(model, state, pointees, self.returned)
        if nonzero is not None:
            key = (tuple(state.edges), *(c.get_id() for c in kept))
            self.zero_boundaries.setdefault(key, (state, nonzero, kept))

    def passes_out(self, state: State, goal: LoopGoal) -> int:
        """The passes of its loop after which the path of `state` left it as loop goal
        `goal` says; 0 where it did not."""
        exits = self.goal_exits(goal)
        if not any(e in exits for e in state.edges):
            return 0
        return state.loop_iterations.get((id(self.cfg), goal[0]), 0)

    def leaves_after(self, state: State, goal: LoopGoal, passes: int) -> bool:
        """Whether the path of `state` leaves its loop as loop goal `goal` says after
        `passes` passes or more."""
        return self.passes_out(state, goal) >= passes

    def loops_in(self, state: State, goal: LoopGoal) -> bool:
        """Whether the path of `state` meets loop goal `goal`: it ran the body of the loop
        more than once (over all the times it entered it) and left it as the goal
        says."""
        return self.passes_out(state, goal) >= _PASSES

    def _edge_out(self, node: TreeNode, goal: LoopGoal) -> int | None:
        """The edge of the branch of `node` that leaves its loop as loop goal `goal` says
        and the path may take; None for none."""
        return next((e.index for e in self.goal_exits(goal)
                     if e.block == node.block.id and node.guards[e.index] is not None), None)

    def forget(self) -> None:
        """Let go of the branch points and paths kept (they are of one search round); the
        effect paths stay, to say which goals their cases met."""
        self.round += 1
        self.deciders.clear()
        self.leave.clear()
        self.deepest.clear()
        self.past.clear()
        self.only.clear()
        self.again.clear()
        self.value_starts.clear()
        self.operation_starts.clear()
        self.ending_operation_starts.clear()
        self.use_starts.clear()
        self.effect_starts.clear()
        self.zero_results.clear()
        self.zero_boundaries.clear()

    def offer(self, node: TreeNode) -> None:
        """Keep `node` as a start for the goals of the comparisons its branch decides, and
        of the loop it may leave or run again."""
        condition = _decided(node)
        if condition is None or not node.in_function_under_test:
            return
        for k in range(len(_sides(condition))):
            key = (node.block.id, k)
            if key not in self.met:
                kept = self.deciders.setdefault(key, [])
                if len(kept) < _NODES_PER_GOAL:
                    kept.append(node)
                elif _passes(node) > max(map(_passes, kept)):
                    # the last one kept is the one deepest in loops: a comparison in a
                    # loop may reach its boundary only after passes (`v > 1000000` on
                    # the seventh digit)
                    kept[-1] = node
        self._offer_loop(node)

    def _offer_loop(self, node: TreeNode) -> None:
        """Keep `node` for the loop goals no case has met: with its edge out of the loop
        that meets one when the body has run more than once, or, when it tests the loop's
        condition after one pass, with its edge into the body again."""
        succs = [t.id for t in node.block.terminator.successors()] \
            if node.block.terminator is not None else []
        again: set[int] = set()
        for head, e in self._stops_at.get(node.block.id, ()):
            if node.guards[e.index] is not None and (head, e) not in self.past_met:
                froms = self.past.setdefault((head, e), [])
                if len(froms) < _NODES_PER_GOAL:
                    froms.append(node)
        for head, e in self._ways_at.get(node.block.id, ()):
            if node.guards[e.index] is not None and e not in self.only_met:
                _, nodes = self.only.setdefault(e, (head, []))
                if len(nodes) < _NODES_PER_GOAL:
                    nodes.append(node)
        for goal in self.loop_goals:
            head = goal[0]
            passes = node.state.loop_iterations.get((id(self.cfg), head), 0)
            if goal[1] is not None and passes > max(
                    self.deepest_met.get(goal, 0),
                    self.deepest[goal][2] if goal in self.deepest else 0):
                out = self._edge_out(node, goal)
                if out is not None:
                    self.deepest[goal] = (node, out, passes)
            if goal in self.looped:
                continue
            if passes >= _PASSES:
                out = self._edge_out(node, goal)
                kept = self.leave.setdefault(goal, [])
                if out is not None and len(kept) < _NODES_PER_GOAL:
                    kept.append((node, out))
            elif passes == 1 and head not in again and any(
                    e.block == node.block.id and node.guards[e.index] is not None
                    for e in self.exits[head]):
                again.add(head)
                index = succs.index(head)
                kept = self.again.setdefault(head, [])
                if node.guards[index] is not None and len(kept) < _NODES_PER_GOAL:
                    kept.append((node, index))


def add_boundary_cases(gen: Generator) -> None:
    """A case for each comparison that no case decided with equal sides, where a branch
    point of the search tree that decides it has inputs making them equal; then a loop
    case for each loop that no case ran more than once and left through its condition
    (see the module's docstring). Raises the generator's budget exception when their
    share of the budget (or the budget, or the time) is spent."""
    goals = gen.boundary
    if goals is None:
        return
    meter = gen.meter
    share = goals.share = meter.spent + max(_LEAST_STEPS, int(meter.spent * _SHARE))
    limit = meter.limit
    # the share is the budget while they are made: no query runs past it
    meter.limit = min(limit, share) if limit > 0 else share
    try:
        for key, nodes in list(goals.deciders.items()):
            for node in nodes:
                if key in goals.met or meter.exhausted:
                    break
                gen.check_budget()
                _try_equal_sides(gen, goals, node, key)
        _try_points(gen, goals)
        for path, (state, nonzero) in list(goals.zero_results.items()):
            if meter.exhausted:
                break
            gen.check_budget()
            goals.results_tried.add(path)
            _try_result(gen, state, nonzero)
        for state, nonzero, kept in list(goals.zero_boundaries.values()):
            if meter.exhausted:
                break
            gen.check_budget()
            _try_result(gen, state, nonzero, kept)
        for goal in goals.loop_goals:  # leaving after passes the search ran, else again
            for node, index in list(goals.leave.get(goal, [])):
                if goal in goals.looped or meter.exhausted:
                    break
                gen.check_budget()
                _try_edge(gen, node, index, partial(goals.loops_in, goal=goal))
            for node, index in list(goals.again.get(goal[0], [])):
                if goal in goals.looped or meter.exhausted:
                    break
                gen.check_budget()
                _run_again(gen, goals, goal, node, index)
        for goal, (node, index, passes) in list(goals.deepest.items()):
            # a way out taken after the most passes the search reached it with: a bound one
            # off (`i < 2` for `i < 3`) skips only the last pass
            if meter.exhausted:
                break
            if passes > goals.deepest_met.get(goal, 0):
                gen.check_budget()
                _try_edge(gen, node, index, partial(goals.leaves_after, goal=goal,
                                                    passes=passes))
        for (head, out), nodes in list(goals.past.items()):
            for node in nodes:
                if (head, out) in goals.past_met or meter.exhausted:
                    break
                gen.check_budget()
                _try_past(gen, goals, head, node, out.index)
        for way, (head, nodes) in list(goals.only.items()):
            for node in nodes:
                if way in goals.only_met or meter.exhausted:
                    break
                gen.check_budget()
                _try_only(gen, goals, way, head, node)
        # the paths of loop cases reach points the search's did not
        _try_points(gen, goals, last=True)
    finally:
        meter.limit = limit


def _try_points(gen: Generator, goals: BoundaryGoals, last: bool = False) -> None:
    """The goals at points of paths that no case met (a comparison's outcome, an
    operation's operands, an assigned value deciding a comparison), each from the paths
    kept for it; those kept are let go once tried. The goals of constant operands one off
    only when `last`: their divisions are the costliest queries, and the result cases
    come first."""
    points: list[tuple[set[Any], dict[Any, list[Start]], Callable[[State, Model], Points],
                       str | None, Callable[[Any], bool]]] = [
        (goals.values_met, goals.value_starts, lambda s, _: _value_points(s), None, _any),
        (goals.operations_met, goals.operation_starts, lambda s, _: s.operation_tests,
         OPERAND_NOTE, lambda key: key[1] != "constant"),
        (goals.uses_met, goals.use_starts, lambda s, _: s.use_tests, USE_NOTE, _any)]
    if last:
        points.append((goals.ending_operations_met, goals.ending_operation_starts,
                       lambda s, _: _ending_operations(s), OPERAND_NOTE,
                       lambda key: key[0][1] != "constant"))
        points.append((goals.operations_met, goals.operation_starts,
                       lambda s, _: s.operation_tests, OPERAND_NOTE,
                       lambda key: key[1] == "constant"))
    for met, point_starts, points_of, note, wanted in points:
        for key in [k for k in point_starts if wanted(k)]:
            for start in point_starts.pop(key, []):  # met by the way: gone
                if key in met or gen.meter.exhausted:
                    break
                gen.check_budget()
                _try_point(gen, key, start, points_of, note)


def _ending_operations(state: State) -> Points:
    """The operand goals of the path of `state` (State.operation_tests) for the way it
    ends, its last outcome: operands that tell `+` from `-` on a path that fails a
    checksum show nothing where the path that passes it adds zeros. Each is kept with the
    whole path, whose case is to take the same way."""
    last = state.edges[-1] if state.edges else None
    return [((key, last), target, len(state.constraints))
            for key, target, _ in state.operation_tests]


@dataclass(frozen=True, eq=False)
class _EffectPath:
    """What the effect goals of a case need of its path: the operations it evaluated,
    its outputs, its branch conditions as written, its constraints, where its input
    pointers point (State.chosen), the case's model, and the search round it is of."""

    evaluations: tuple[Evaluation, ...]
    outputs: list[Output]
    conditions: tuple[Condition, ...]
    constraints: list[Condition]
    chosen: dict[str, int]
    model: Model
    round: int


def _note_effects(gen: Generator, goals: BoundaryGoals) -> None:
    """Record the effect goals the cases made since the last call meet, and for the
    others the whole paths of this round's to start from. Their goals' terms are made only
    now, after every other goal: new terms move the models z3 finds for the same queries,
    and so would change the cases of the search."""
    paths, goals.effect_paths = goals.effect_paths, []
    for path in paths:
        gen.check_budget()
        for key, target in effect_targets(path.evaluations, path.outputs, path.conditions,
                                          lambda k: k not in goals.effects_met):
            if gen.solver.holds(path.model, target):
                goals.effects_met.add(key)
                goals.effect_starts.pop(key, None)
            elif path.round == goals.round:
                kept = goals.effect_starts.setdefault(key, [])
                if len(kept) < _NODES_PER_GOAL:
                    kept.append((path.constraints, target, path.chosen))


def add_effect_cases(gen: Generator) -> None:
    """An effect case for each effect goal no case met (effect_tests.py), from the paths
    of this round's cases that did not, after the other boundary goals (even where they
    spent their share), within `_EFFECT_STEPS` more, where a query within
    `_EFFECT_QUERY_STEPS` finds there is one; each case made may meet others. Raises the
    generator's budget exception when that is spent (or the budget, or the time)."""
    goals = gen.boundary
    if goals is None:
        return
    meter = gen.meter
    limit = meter.limit
    effects = max(meter.spent, goals.share) + _EFFECT_STEPS
    meter.limit = min(limit, effects) if limit > 0 else effects
    tried: set[tuple[int, str]] = set()
    steps = gen.solver.query_steps
    gen.solver.query_steps = min(steps, _EFFECT_QUERY_STEPS)
    try:
        _note_effects(gen, goals)
        while True:
            key = next((k for k in goals.effect_starts if k not in tried), None)
            if key is None or gen.meter.exhausted:
                return
            tried.add(key)
            for start in goals.effect_starts.pop(key):
                if key in goals.effects_met or gen.meter.exhausted:
                    break
                gen.check_budget()
                # first whether there is a case at all, within the query's steps: the
                # readable one is asked for with more (symbolic/solver.py)
                if gen.solver.check([*start[0], start[1]]) != SAT:
                    continue
                _try_point(gen, key, start, partial(_effect_points, wanted=key), EFFECT_NOTE)
                _note_effects(gen, goals)
    finally:
        gen.solver.query_steps = steps
        meter.limit = limit
        goals.effect_paths.clear()
        goals.forget()  # their states are not needed any more


def _effect_points(state: State, model: Model, wanted: tuple[int, str]) -> Points:
    """The effect goal `wanted` on the path of `state` (effect_tests.py), its case's
    objects as `model` makes them: its outputs or branches turned by that mistake in the
    operation, kept with the whole path, whose case is to take it."""
    if not state.operation_results:
        return []
    known = len(state.constraints)
    outputs = extract.output_terms(state, extract.case_pointees(model, state))
    return [(key, target, known) for key, target in effect_targets(
        state.operation_results, outputs, state.branch_conditions, wanted.__eq__)]


def _any(key: Any) -> bool:
    return True


def _try_equal_sides(gen: Generator, goals: BoundaryGoals, node: TreeNode, key: Key
                     ) -> None:
    """A case from `node` along inputs that make comparison `key` decide with equal sides,
    when there are such inputs and the path they take ends within what is modelled. Where
    the comparison is one condition of a decision of several, inputs under which it also
    decides its decision come first (unmasking.py); where a case of the search already
    decided it with equal sides (`goals.equal_only`), only those, when that case did not
    let it decide, and only new ones."""
    condition = _decided(node)
    assert condition is not None  # `offer` kept only nodes that decide a condition
    equal, note = _sides(condition)[key[1]]
    state = node.state.fork()
    model = gen.solver.model([*state.constraints, equal], gen.preferences(state))
    if model is None:
        return
    live = [i for i, g in enumerate(node.guards)
            if g is not None and gen.solver.holds(model, g)]
    if not live:
        return
    met_by = goals.equal_only.get(key, [])
    for deciding in islice(unmasking(gen, node, live[0]), _MOST_PAIRS):
        if any(all(gen.solver.holds(m, g) for g in deciding) for m in met_by):
            goals.met.add(key)  # a case of the search did
            return
        tiers = gen.preferences(state)
        wishes = boundary_wishes(deciding)  # the other conditions one step from turning
        unmasked = gen.solver.model([*state.constraints, equal, *deciding],
                                    [WholeTier(wishes), *tiers] if wishes else tiers)
        if unmasked is not None and gen.solver.holds(unmasked, node.guards[live[0]]):
            if _complete(gen, node, state, unmasked, live[0], (note,),
                         kept=(equal, *deciding), new_only=bool(met_by)):
                goals.met.add(key)
            return
    if not met_by:
        _complete(gen, node, state, model, live[0], (note,), kept=(equal,))


def _sides(condition: Condition) -> list[tuple[Condition, str]]:
    """The boundary goals of the comparisons in a branch `condition` as written, with the
    note of their cases: each ordering comparison decided with equal sides, then each of
    integers decided with its sides one apart where its outcome differs from that of
    equal sides, then each of floating point decided with zeros of opposite signs
    (boundaries.py)."""
    return [*((e, BOUNDARY_NOTE) for e in equal_sides(condition)),
            *((n, NEAR_NOTE) for n in near_sides(condition)),
            *((z, BOUNDARY_NOTE) for z in opposite_zeros(condition))]


def _value_targets(site: int, compared: Condition) -> list[tuple[ValueKey, Condition]]:
    """The outcomes a case should give comparison `site` (boundaries.outcomes)."""
    return [((site, name), target) for name, target in outcomes(compared)]


def _value_points(state: State) -> Points:
    """The outcomes a case should give the comparisons whose value the function uses, each
    time the path of `state` evaluated one (State.value_tests)."""
    return [(key, target, known) for site, compared, known in state.value_tests
            for key, target in _value_targets(site, compared)]


def _note_points(met: set[Any], starts: dict[Any, list[Start]], points: Points,
                 state: State, model: Model, solver: Solver) -> None:
    """Record the goals at points of the path of a case (`points`: key, target, how many
    constraints the path had there) that its `model` meets, and for the others the path
    up to the point, to start from (at most `_NODES_PER_GOAL` each)."""
    for key, target, known in points:
        if key in met:
            continue
        if solver.holds(model, target):
            met.add(key)
            starts.pop(key, None)
        else:
            kept = starts.setdefault(key, [])
            if len(kept) < _NODES_PER_GOAL:
                kept.append((state.constraints[:known], target, dict(state.chosen)))


def _try_point(gen: Generator, key: Any, start: Start,
               points_of: Callable[[State, Model], Points], note: str | None) -> None:
    """A case that meets the goal `key` at a point of a path (`target`): the outcome of a
    comparison whose value the function uses, operands that tell an integer operation
    from other operators, or a comparison an assignment's value decides. From the path
    `prefix` of a case on which it was not met, inputs that take the same path to the
    point and meet it there run the function concretely from its entry, its input
    pointers pointing where they did on that path. `note`: the case's note (None: that of
    a comparison's outcome)."""
    prefix, target, chosen = start
    state = gen.executor.initial_state()
    model = gen.solver.model([*prefix, target], gen.preferences(state))
    if model is None or not gen.complete(state, model, chosen=chosen):
        return
    if not any(k == key and gen.solver.holds(model, t) for k, t, _ in points_of(state, model)):
        return
    if note is None:
        note = BOUNDARY_NOTE if key[1] == "equal" else OUTCOME_NOTE
    _add(gen, state, model, (note,), (target,), new_only=False)


def _try_result(gen: Generator, state: State, nonzero: Condition,
                kept: tuple[Condition, ...] = ()) -> None:
    """A case of the path of `state`, whose case returns or writes 0, in which such an
    output is not 0 (`nonzero`), when the path allows it: a 0 hides a wrong operator or
    constant in what computes it (`x * 1000 >> 15` for x = 1, a rectangle of no width, a
    sign applied to 0). `kept`: what a boundary case whose output was 0 was made for,
    which this case keeps."""
    # readable values, not boundaries: those are what made the output 0
    model = gen.solver.model([*state.constraints, *kept, nonzero], extract.preferences(state))
    if model is not None:
        gen.add_case(state, model, (RESULT_NOTE,), (*kept, nonzero), new_only=bool(kept))


def _try_edge(gen: Generator, node: TreeNode, index: int, wanted: Callable[[State], bool]
              ) -> None:
    """A loop case from `node` along its edge `index`, when inputs take it and the path
    they take ends within what is modelled and is `wanted`."""
    guard = node.guards[index]
    assert guard is not None  # `_offer_loop` kept only possible edges
    state = node.state.fork()
    model = gen.solver.model([*state.constraints, guard], gen.preferences(state))
    if model is not None:
        _complete(gen, node, state, model, index, (LOOP_NOTE,), wanted)


def _run_again(gen: Generator, goals: BoundaryGoals, goal: LoopGoal, node: TreeNode,
               index: int) -> None:
    """A loop case of loop goal `goal` from `node`, where the loop's body has run once,
    along its edge `index` into the body again: the path stays in the loop until the body
    has run more than once, then leaves as the goal says where it can (a symbolic path:
    what the next passes read is decided as the path goes)."""
    state = node.state.fork()
    head = goal[0]
    gen.staying = _Again(goals.cfg, head, goals.blocks[head], frozenset(goals.goal_exits(goal)))
    gen.wanted_path = (partial(goals.loops_in, goal=goal), (LOOP_NOTE,))
    try:
        with gen.side_paths():
            try:
                gen.step(node, state, index)
            except BoundReached:
                return
            gen.continue_path(state, node.depth + 1)
    finally:
        gen.staying = None
        gen.wanted_path = None


def _try_past(gen: Generator, goals: BoundaryGoals, head: int, node: TreeNode,
              out: int) -> None:
    """A bound case from `node` along its edge `out` through the test of loop `head`:
    inputs that stop the loop there while one more pass of its body, run as if the test
    had let it (`_OneMorePass`), would act on the data after what the loop read
    (`a[n] == key` where the loop stops at `i == n`): a bound one off (`i <= n`) then
    changes what the case observes."""
    term = node.block.terminator
    assert term is not None
    blocks = goals.blocks[head]
    into = next((i for i, t in enumerate(term.successors()) if t.id in blocks), None)
    if into is None:
        return
    passes = node.state.loop_iterations.get((id(goals.cfg), head), 0)
    steering = _OneMorePass(goals, head, passes)
    # the loop stopped with the sides of its test equal (`i == n`), where a bound one off
    # runs the pass
    written = node.written[out] if node.written else None
    if _ghost_case(gen, node, out, into, steering, PAST_NOTE,
                   equal_sides(written) if written is not None else []):
        goals.past_met.add((head, Edge(node.block.id, out)))


def _try_only(gen: Generator, goals: BoundaryGoals, way: Edge, head: int, node: TreeNode
              ) -> None:
    """An only-decider case from `node` along its edge `way` out of loop `head` (a
    `return` or `break` in its body): inputs under which, had the loop gone on there, no
    later pass would leave it early (`_RestOfRun`), so the pass that leaves it is the only
    one that could: a loop that starts a pass late (`i = 1` for `i = 0`) or skips one
    then shows it."""
    term = node.block.terminator
    assert term is not None
    blocks = goals.blocks[head]
    into = next((i for i, t in enumerate(term.successors())
                 if i != way.index and t.id in blocks), None)
    if into is not None and _ghost_case(gen, node, way.index, into, _RestOfRun(goals),
                                        ONLY_NOTE, []):
        goals.only_met.add(way)


def _ghost_case(gen: Generator, node: TreeNode, out: int, into: int,
                steering: _Steering, note: str, wishes: list[Condition]) -> bool:
    """A case from `node` along its edge `out`, whose inputs would also let a ghost of its
    path run on along edge `into` as `steering` says (`_ghost`); `wishes`: what its inputs
    keep where they can. Whether the case was made."""
    guard = node.guards[out]
    assert guard is not None  # `_offer_loop` kept only possible edges
    with gen.side_paths():
        ghost = _ghost(gen, node, into, guard, steering)
    if ghost is None:
        return False
    state = node.state.fork()
    tiers = gen.preferences(state)
    model = gen.solver.model([*state.constraints, guard, *ghost],
                             [WholeTier(wishes), *tiers] if wishes else tiers)
    return model is not None and _complete(gen, node, state, model, out, (note,),
                                           kept=tuple(ghost), new_only=True)


def _ghost(gen: Generator, node: TreeNode, into: int, taken: Condition,
           steering: _Steering) -> list[Condition] | None:
    """The constraints of a ghost of the path of `node`, which takes another edge there
    (under `taken`), run on along edge `into` as if its guard held, as far as `steering`
    says (`_walk`). None where it cannot run so."""
    ghost = node.state.fork()
    known = len(ghost.constraints)
    try:
        gen.executor.take(ghost, node.block, into, None)
    except BoundReached:
        return None
    return ghost.constraints[known:] if _walk(gen, ghost, [taken], steering) else None


def _walk(gen: Generator, state: State, taken: list[Condition], steering: _Steering
          ) -> bool:
    """Run `state` on as `steering` says: at each branch of the function under test, the
    first edge in its order that inputs may take with `taken`, up to a branch where it
    is done or the function's return; whether it got there (not where it goes through
    an input pointer that may alias, a bound, an error, or too many branches)."""
    try:
        for _ in range(_MOST_GHOST_FORKS):
            gen.check_budget()
            outcome = gen.executor.advance(state)
            if isinstance(outcome, Finished):
                return True
            if outcome.choice is not None:
                return False
            block = outcome.block
            order = list(range(len(outcome.guards)))
            if len(state.frames) == 1 and state.frame.cfg is gen.cfg:
                if steering.done(state, block):
                    return True
                order.sort(key=partial(steering.rank, block))
            for i in order:
                guard = outcome.guards[i]
                if guard is not None and \
                        gen.solver.check([*state.constraints, *taken, guard]) == SAT:
                    gen.executor.take(state, block, i, guard,
                                      outcome.written[i] if outcome.written else None)
                    break
            else:
                return False
    except (BoundReached, PathError):
        return False
    return False


class _Steering(Protocol):
    """Where a ghost (`_ghost`) goes at the branches of the function under test."""

    def done(self, ghost: State, block: Block) -> bool:
        """Whether the ghost has gone far enough at the branch of `block`."""

    def rank(self, block: Block, index: int) -> tuple[int, ...]:
        """The order of the edges of the branch of `block` (the lowest first)."""


@dataclass(frozen=True)
class _OneMorePass:
    """One more pass of loop `head`'s body, up to the loop's test again, after `passes`:
    at each branch, a way out of the loop (`return`, `break`) first, then the edge with
    the most statements before the test (the body's, not its `continue`), the exit through
    the test last."""

    goals: BoundaryGoals
    head: int
    passes: int

    def done(self, ghost: State, block: Block) -> bool:
        goals = self.goals
        return block.id not in goals.blocks[self.head] or (
            ghost.loop_iterations.get((id(goals.cfg), self.head), 0) > self.passes and
            any(e.block == block.id for e in goals.stops[self.head]))

    def rank(self, block: Block, index: int) -> tuple[int, ...]:
        goals = self.goals
        assert block.terminator is not None
        target = block.terminator.successors()[index].id
        work = goals.work_to_test(self.head)
        return (Edge(block.id, index) in goals.stops[self.head],
                target in goals.blocks[self.head], -work.get(target, 0))


@dataclass(frozen=True)
class _RestOfRun:
    """The rest of the function's run: at each branch, a loop's exit through its test
    first, then the edges that go on, a loop's way out from its body (`return`, `break`)
    last."""

    goals: BoundaryGoals

    def done(self, ghost: State, block: Block) -> bool:
        return False

    def rank(self, block: Block, index: int) -> tuple[int, ...]:
        e = Edge(block.id, index)
        return (e in self.goals.way_edges, e not in self.goals.test_edges)


@dataclass(frozen=True)
class _Again:
    """The continuation of a loop case (see `_run_again`): `exits`, the edges out of the
    loop it is to leave by."""

    cfg: CFG
    head: int
    blocks: frozenset[int]
    exits: frozenset[Edge]

    def groups(self, node: TreeNode, order: list[int]) -> list[list[int]] | None:
        """In the loop: the edges out that it is to leave by first once its body has run
        more than once, else the edges that stay in it first; None elsewhere."""
        if not node.in_function_under_test or node.block.id not in self.blocks:
            return None
        term = node.block.terminator
        assert term is not None
        succs = term.successors()
        leaving = [i for i in order if Edge(node.block.id, i) in self.exits]
        staying = [i for i in order if succs[i].id in self.blocks]
        others = [i for i in order if i not in leaving and i not in staying]
        if node.state.loop_iterations.get((id(self.cfg), self.head), 0) >= _PASSES:
            return [leaving, staying, others]
        return [staying, leaving, others]


def _complete(gen: Generator, node: TreeNode, state: State, model: Model, index: int,
              notes: tuple[str, ...], wanted: Callable[[State], bool] | None = None,
              kept: tuple[Condition, ...] = (), new_only: bool = False) -> bool:
    """The case of `state` (of `node`) run on concretely as `model` says after its edge
    `index`, when the path ends within what is modelled (and is `wanted`); `kept`: what
    the case is made for beyond its path (search/case_making.add_case); `new_only`: not
    when another case has the same inputs. Whether the case was made."""
    executor = gen.executor
    too_small, executor.objects_too_small = executor.objects_too_small, False
    completed = gen.complete(state, model, partial(gen.step, node, state, index))
    if not completed and (executor.objects_too_small or _out_of_bounds(gen, state, model)):
        return _complete_larger(gen, model, notes, wanted, kept, new_only)
    executor.objects_too_small |= too_small
    if not completed or (wanted is not None and not wanted(state)):
        return False
    return _add(gen, state, model, notes, kept, new_only)


def _complete_larger(gen: Generator, model: Model, notes: tuple[str, ...],
                     wanted: Callable[[State], bool] | None, kept: tuple[Condition, ...],
                     new_only: bool) -> bool:
    """The case `_complete` could not run to its end because its input pointers point to
    too few elements (`n == 64` beside 10 elements), run as `model` says from the
    function's entry with larger objects behind them, as many as a search round grows
    them to. Whether the case was made."""
    executor = gen.executor
    size = executor.array_size
    try:
        while larger_array_size(size) > size:
            size = larger_array_size(size)
            gen.executor = gen.new_executor(size)
            state = gen.executor.initial_state()
            if gen.complete(state, model):
                return (wanted is None or wanted(state)) and \
                    _add(gen, state, model, notes, kept, new_only)
            if not (gen.executor.objects_too_small or _out_of_bounds(gen, state, model)):
                return False
        return False
    finally:
        executor.objects_too_small = True
        gen.executor = executor


def _out_of_bounds(gen: Generator, state: State, model: Model) -> bool:
    """Whether the path of `state`, run to its end as `model` says, is not one of `model`
    only because an access went past the end of an object behind an input pointer (its
    constraints that `model` breaks all keep accesses inside them: `len <= 10` for a
    `memcpy` of `len` bytes)."""
    if not state.finished:
        return False
    bounds = {c.get_id() for c in state.bounds}
    broken = [c for c in state.constraints if not gen.solver.holds(model, c)]
    return bool(broken) and all(c.get_id() in bounds for c in broken)


def _add(gen: Generator, state: State, model: Model, notes: tuple[str, ...],
         kept: tuple[Condition, ...], new_only: bool) -> bool:
    """The case of the completed `state` (search/case_making.add_case); whether it was
    made."""
    if not gen.add_case(state, model, notes, kept, new_only=new_only):
        return False
    # it may take an outcome the search left (a bound cut its paths there)
    gen.goals.covered(state.edges)
    if gen.goals.callees is not None:
        gen.goals.callees.covered(state)
    return True


def _passes(node: TreeNode) -> int:
    """How many passes of loops the path of `node` has made."""
    return sum(node.state.loop_iterations.values())


def _decided(node: TreeNode) -> Condition | None:
    """The condition of the first possible edge of the branch of `node`, as written (an
    if's other edge is its negation), or None for a choice node."""
    return next((w for w in node.written or () if w is not None), None)
