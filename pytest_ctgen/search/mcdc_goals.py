"""The MC/DC goals of the search (`--ctgen-criterion mcdc`): for each decision of two or
more conditions, evaluations that show each condition's independence pair.

A decision's conditions are evaluated by the branches `ConditionMap` names (ir/
condition_map.py), so a path's edges say which evaluations of each decision it made
(`replay`). Every evaluation short-circuit evaluation can give is enumerated
(frontend/independence.py); for each condition, the pairs of them of the unique-cause
form, and those only of the masking form, are known in advance. The goal of a decision is
one of its evaluations at a time (`targets`): the one that completes, or takes part in,
the most pairs still wanted, unique-cause first. Paths are ranked toward it: into the
decision with the values so far as the target has them, else nearest the decision.

When no open edge of the search tree can lead to the targets, they are exhausted (no path
within what the search explored gives them) and others are chosen; a condition all of
whose pairs hold an exhausted evaluation has none, which is proved when the search was
exhaustive under the rules that prove outcomes unreachable (`McdcGoals.notes`, called by
search/results.py). Evaluations a path made that were not wanted then are
kept with the path, so that a path, once explored, is never needed again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..cases import McdcNote
from ..frontend.decisions import Decision
from ..frontend.independence import MASKING, UNIQUE_CAUSE, Vector, evaluations, \
    next_condition, pair_form
from ..ir.cfg import CFG, Edge
from ..ir.condition_map import ConditionMap
from ..symbolic.solver import Model
from ..symbolic.state import State
from .tree import TreeNode

_MOST_EVALUATIONS = 128  # decisions with more possible evaluations are not targeted
_COMPLETES = 1 << 16  # the weight of completing a pair against taking part in one
#: A pair of evaluations by their indices.
Pair = tuple[int, int]
Rank = tuple[int, ...]
Values = list[bool | None]


@dataclass(eq=False)
class DecisionGoal:
    """One decision: its possible evaluations, each condition's pairs (unique-cause,
    masking only), and which evaluations cases made or no path can make."""

    index: int  # in ConditionMap.decisions
    decision: Decision
    evaluations: list[tuple[Vector, bool]]
    constants: dict[int, bool]
    unique: list[list[Pair]]
    masking: list[list[Pair]]
    seen: set[int] = field(default_factory=set)
    exhausted: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.position = {values: i for i, (values, _) in enumerate(self.evaluations)}

    def live(self, pairs: list[Pair]) -> list[Pair]:
        return [p for p in pairs if p[0] not in self.exhausted and p[1] not in self.exhausted]

    def shown(self, pairs: list[Pair]) -> bool:
        return any(a in self.seen and b in self.seen for a, b in pairs)

    def status(self, k: int) -> tuple[str, list[Pair]]:
        """Condition `k`: UNIQUE_CAUSE or MASKING when cases show that form (and no
        stronger one is left to look for), "wanted" with the pairs to look for, or
        "none" when every pair holds an exhausted evaluation."""
        if self.shown(self.unique[k]):
            return UNIQUE_CAUSE, []
        live = self.live(self.unique[k])
        if live:
            return "wanted", live
        if self.shown(self.masking[k]):
            return MASKING, []
        live = self.live(self.masking[k])
        return ("wanted", live) if live else ("none", [])

    def scores(self) -> dict[int, int]:
        """How much each evaluation no case made yet is worth: pairs it completes and
        pairs it takes part in, over the conditions still wanted."""
        out: dict[int, int] = {}
        for k in range(len(self.decision.conditions)):
            state, pairs = self.status(k)
            if state != "wanted":
                continue
            for a, b in pairs:
                for mine, other in ((a, b), (b, a)):
                    if mine in self.seen:
                        continue
                    out[mine] = out.get(mine, 0) + (_COMPLETES if other in self.seen else 1)
        return out

    def advance(self, values: Values) -> int | None:
        """The condition evaluated next after `values` (constants filled in); None when
        the outcome is decided."""
        while True:
            k = next_condition(self.decision.tree, values)
            if k is None or k not in self.constants:
                return k
            values[k] = self.constants[k]

    def extend(self, values: Values | None, k: int, v: bool) -> Values | None:
        """The evaluation `values` (None: none open) after condition `k` had value `v`;
        a new evaluation when `k` does not continue the open one; None when `k` cannot
        come first either."""
        for start in ([values, None] if values is not None else [None]):
            current: Values = list(start) if start is not None else \
                [None] * len(self.decision.conditions)
            if self.advance(current) == k:
                current[k] = v
                self.advance(current)
                return current
        return None

    def on_the_way(self, values: Values, target: int) -> bool:
        """Whether the evaluation so far, `values`, is on its way to evaluation
        `target`."""
        wanted = self.evaluations[target][0]
        return all(x is None or x == y for x, y in zip(values, wanted))


def _decision_goal(index: int, decision: Decision, cmap: ConditionMap) -> DecisionGoal | None:
    constants = {k: v for (d, k), v in cmap.constants.items() if d == index}
    n = len(decision.conditions)
    found = evaluations(decision.tree, n, constants, _MOST_EVALUATIONS)
    if found is None:
        return None
    unique: list[list[Pair]] = [[] for _ in range(n)]
    masking: list[list[Pair]] = [[] for _ in range(n)]
    for k in range(n):
        for i, a in enumerate(found):
            for j in range(i + 1, len(found)):
                form = pair_form(decision.tree, k, a, found[j])
                if form == UNIQUE_CAUSE:
                    unique[k].append((i, j))
                elif form == MASKING:
                    masking[k].append((i, j))
    return DecisionGoal(index, decision, found, constants, unique, masking)


class McdcGoals:
    """The MC/DC goals of one function (see the module docstring)."""

    def __init__(self, cfg: CFG) -> None:
        self.cfg = cfg
        self.map = cfg.conditions or ConditionMap()
        self.goals: dict[int, DecisionGoal] = {}
        for d in sorted(self.map.mapped):
            goal = _decision_goal(d, self.map.decisions[d], self.map)
            if goal is not None:
                self.goals[d] = goal
        self.targets: dict[int, int] = {}  # decision -> the evaluation looked for
        self.kept: dict[tuple[int, int], tuple[State, Model | None]] = {}
        self.distance: dict[int, int] = {}
        self.retarget()

    # ------------------------------------------------------------ evaluations

    def replay(self, edges: list[Edge], done: list[tuple[int, int]] | None = None
               ) -> dict[int, Values]:
        """The evaluations the path of `edges` made: those completed are added to `done`
        as (decision, evaluation index); those still open are returned."""
        open_: dict[int, Values] = {}
        for e in edges:
            for d, k, v in self.map.exits.get(e, ()):
                goal = self.goals.get(d)
                if goal is None:
                    continue
                values = goal.extend(open_.get(d), k, v)
                if values is None:
                    open_.pop(d, None)
                elif goal.advance(values) is None:
                    open_.pop(d, None)
                    index = goal.position.get(tuple(values))
                    if index is not None and done is not None:
                        done.append((d, index))
                else:
                    open_[d] = values
        return open_

    def covered(self, edges: list[Edge]) -> None:
        """A case made the evaluations of the path of `edges`."""
        done: list[tuple[int, int]] = []
        self.replay(edges, done)
        for d, index in done:
            self.goals[d].seen.add(index)
            self.kept.pop((d, index), None)
        self.retarget()

    def wanted(self, state: State, model: Model | None) -> bool:
        """Whether the complete path `state` makes an evaluation that is a target or
        completes a pair still wanted; the path is kept for the other evaluations it makes
        that no case made."""
        done: list[tuple[int, int]] = []
        self.replay(state.edges, done)
        want = False
        for d, index in done:
            goal = self.goals[d]
            if index in goal.seen:
                continue
            if self.targets.get(d) == index or goal.scores().get(index, 0) >= _COMPLETES:
                want = True  # a case now: not kept, so never tried twice
            else:
                self.kept.setdefault((d, index), (state, model))
        return want

    def kept_target(self) -> tuple[State, Model | None] | None:
        """A path kept earlier that makes a target evaluation (taken out), if any."""
        for d, index in self.targets.items():
            kept = self.kept.pop((d, index), None)
            if kept is not None:
                return kept
        return None

    @property
    def gaps(self) -> bool:
        """Whether a condition is left without a unique-cause pair among the cases."""
        return any(goal.status(k)[0] != UNIQUE_CAUSE for goal in self.goals.values()
                   for k in range(len(goal.decision.conditions)))

    # ------------------------------------------------------------------ targets

    def retarget(self) -> None:
        """Choose each decision's target: the evaluation worth most (the first of
        equals)."""
        self.targets = {}
        for d, goal in self.goals.items():
            scores = goal.scores()
            if scores:
                best = max(scores.values())
                self.targets[d] = min(i for i, s in scores.items() if s == best)
        edges = {Edge(b, 0) for d in self.targets for b in self.map.branch_blocks(d)}
        self.distance = self.cfg.distances_to(edges) if edges else {}

    def exhaust(self) -> bool:
        """No open edge leads to the targets: they are exhausted (except those a kept path
        makes); whether there are new targets."""
        for d, index in self.targets.items():
            if (d, index) not in self.kept:
                self.goals[d].exhausted.add(index)
        self.retarget()
        return bool(self.targets)

    def forget_tree(self) -> None:
        """The search starts anew with larger objects: what was exhausted may not be."""
        for goal in self.goals.values():
            goal.exhausted.clear()
        self.kept = {}
        self.retarget()

    # ------------------------------------------------------------------ ranking

    def open_at(self, node: TreeNode) -> dict[int, Values]:
        if node.mcdc_open is None:
            node.mcdc_open = self.replay(node.state.edges)
        return node.mcdc_open

    def rank(self, node: TreeNode, index: int) -> Rank | None:
        """Priority of edge `index` of `node` for the targets (smaller first): into a
        target's decision on the way to it, then nearest a target's decision; None when
        it cannot lead to one."""
        if not self.targets:
            return None
        open_ = self.open_at(node)
        block = node.state.frames[0].block.id
        exits: tuple[tuple[int, int, bool], ...] = ()
        if node.in_function_under_test:
            edge = Edge(node.block.id, index)
            exits = self.map.exits.get(edge, ())
            block = self.cfg.edge_target(edge).id
            for d, k, v in exits:
                target = self.targets.get(d)
                if target is None:
                    continue
                values = self.goals[d].extend(open_.get(d), k, v)
                if values is not None and self.goals[d].on_the_way(values, target):
                    return (3, 0, node.depth)
        leaving = {d for d, _, _ in exits}
        for d, values in open_.items():
            target = self.targets.get(d)
            if target is not None and d not in leaving and \
                    self.goals[d].on_the_way(values, target):
                return (3, 0, node.depth)
        dist = self.distance.get(block)
        return None if dist is None else (3, 1, dist, node.depth)

    def continuation_key(self, node: TreeNode, index: int) -> tuple[int, ...]:
        """Where edge `index` of `node` stands among its siblings for the targets."""
        rank = self.rank(node, index)
        return (2,) if rank is None else rank[1:3]

    # ------------------------------------------------------------------ verdicts

    def notes(self, proved: bool, unproved_blocks: set[int]) -> tuple[McdcNote, ...]:
        """The conditions without a unique-cause pair among the cases, and why: no pair
        of either form is possible ("infeasible"), only a masking one ("masking"), or the
        search did not get that far ("not reached"). `proved` says whether the search
        was exhaustive; a decision with a branch in `unproved_blocks` is never proved."""
        out: list[McdcNote] = []
        for d, goal in self.goals.items():
            sure = proved and not (self.map.branch_blocks(d) & unproved_blocks)
            for k, condition in enumerate(goal.decision.conditions):
                state, _ = goal.status(k)
                if state == UNIQUE_CAUSE:
                    continue
                if state == "wanted" or not sure:
                    verdict = "not reached"
                else:
                    verdict = "masking" if state == MASKING else "infeasible"
                loc = condition.location
                out.append(McdcNote(loc.line, loc.column, condition.text,
                                    goal.decision.text, verdict))
        return tuple(out)
