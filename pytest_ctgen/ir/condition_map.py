"""Which branches of a CFG evaluate the conditions of the function's decisions (MC/DC,
frontend/decisions.py), and with which value.

While a function is lowered, `ConditionRecorder` notes each lowering of a decision's
condition as a region: `condition(leaf, T, F)` makes branches whose edges either stay
inside the region or leave it for T (the condition is true) or F (false). A condition
under `!` is lowered as its negation, with the same T and F. The region's edges that leave
it are what `ConditionMap.exits` records; a region without any is a condition gcc folds to
a constant, which it records as such. A decision whose conditions are not all found so
(gcc folded the decision itself, or it only stands in code gcc drops) is left unmapped:
the search targets nothing of it.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pycparser import c_ast

from ..frontend.decisions import Decision, function_decisions
from .cfg import Block, Branch, Edge, Goto, Terminator

#: A condition's value where an edge leaves its region: (decision, condition, value),
#: the decision by its index in `ConditionMap.decisions`.
ConditionValue = tuple[int, int, bool]


@dataclass(frozen=True)
class ConditionMap:
    """The decisions of one function and the branch edges that give their conditions
    values. `constants` are the conditions gcc folds to one value; `mapped` the decisions
    whose every condition has exits or a constant value."""

    decisions: tuple[Decision, ...] = ()
    exits: dict[Edge, tuple[ConditionValue, ...]] = field(default_factory=dict)
    constants: dict[tuple[int, int], bool] = field(default_factory=dict)
    mapped: frozenset[int] = frozenset()

    def branch_blocks(self, decision: int) -> set[int]:
        """The blocks whose branches leave a region of `decision`."""
        return {e.block for e, values in self.exits.items()
                if any(d == decision for d, _, _ in values)}


@dataclass(eq=False)
class _Region:
    decision: int
    condition: int
    negated: bool
    if_true: Block
    if_false: Block
    entry: Block
    first_new: int  # the index of the first block made inside the region
    branches: list[tuple[Block, Terminator]] = field(default_factory=list)
    entry_end: Terminator | None = None
    conditional: bool = False  # a gcc Conditional was tested inside


class ConditionRecorder:
    """Notes the regions of the decisions' conditions of one function while it is
    lowered (see the module docstring)."""

    def __init__(self, definition: c_ast.FuncDef, path: str) -> None:
        found = function_decisions(definition, 0, path)
        self.decisions = tuple(d.decision for d in found)
        self.leaves = {id(leaf): (index, k) for index, d in enumerate(found)
                       for k, (leaf, _) in enumerate(d.conditions)}
        self.regions: list[_Region] = []
        self.open: list[_Region] = []

    @contextmanager
    def region(self, node: c_ast.Node, if_true: Block, if_false: Block,
               blocks: list[Block], current: Block) -> Iterator[None]:
        """Lowering `node` as a condition branching to `if_true` or `if_false`, with
        `blocks` the blocks made so far and `current` the block code goes to."""
        negated = False
        leaf = node
        while isinstance(leaf, c_ast.UnaryOp) and leaf.op == "!":
            leaf, negated = leaf.expr, not negated
        key = self.leaves.get(id(leaf))
        if key is None or (self.open and (self.open[-1].decision, self.open[-1].condition)
                           == key):
            yield
            return
        region = _Region(key[0], key[1], negated, if_true, if_false, current, len(blocks))
        self.open.append(region)
        try:
            yield
        finally:
            self.open.pop()
        made = blocks[region.first_new:]
        region.branches = [(b, b.terminator) for b in [current, *made]
                           if isinstance(b.terminator, Branch)]
        region.entry_end = current.terminator
        self.regions.append(region)

    def tested_conditional(self) -> None:
        """A gcc Conditional is tested: its branches go where its arms' truths say."""
        if self.open:
            self.open[-1].conditional = True

    def finish(self, blocks: list[Block]) -> ConditionMap:
        """The map over the final (reachable, renumbered) `blocks`."""
        final = {id(b) for b in blocks}
        exits: dict[Edge, list[ConditionValue]] = {}
        constants: dict[tuple[int, int], bool] = {}
        found: set[tuple[int, int]] = set()
        broken: set[int] = set()
        for r in self.regions:
            live = [(b, t) for b, t in r.branches if id(b) in final and b.terminator is t]
            values = _exit_values(r, live)
            if values is None:
                broken.add(r.decision)
                continue
            for edge, v in values:
                exits.setdefault(edge, []).append((r.decision, r.condition, v))
                found.add((r.decision, r.condition))
            if not values and id(r.entry) in final and r.entry.terminator is r.entry_end:
                constant = _constant(r)
                key = (r.decision, r.condition)
                if constant is None or constants.setdefault(key, constant) != constant:
                    broken.add(r.decision)
        mapped = frozenset(
            d for d, decision in enumerate(self.decisions) if d not in broken and all(
                (d, k) in found or (d, k) in constants for k in range(len(decision.conditions)))
            and any(key[0] == d for key in found))
        ordered = {e: tuple(v) for e, v in sorted(exits.items(),
                                                   key=lambda i: (i[0].block, i[0].index))}
        return ConditionMap(self.decisions, ordered, constants, mapped)


def _exit_values(r: _Region, live: list[tuple[Block, Terminator]]
                 ) -> list[tuple[Edge, bool]] | None:
    """The edges of the region's branches `live` that leave it, with the condition's value
    there; None when they cannot be told apart (the region branches to one block either
    way, through a gcc Conditional or through branches of its own inside)."""
    out: list[tuple[Edge, bool]] = []
    for block, term in live:
        successors = term.successors()
        if r.if_true is r.if_false:
            targets = [s is r.if_true for s in successors]
            if not any(targets):
                continue
            if r.conditional or not all(targets):
                return None
            out += [(Edge(block.id, 0), not r.negated), (Edge(block.id, 1), r.negated)]
            continue
        for i, s in enumerate(successors):
            if s is r.if_true or s is r.if_false:
                out.append((Edge(block.id, i), (s is r.if_true) != r.negated))
    return out


def _constant(r: _Region) -> bool | None:
    """The value of a condition whose region has no branch: where its jumps lead."""
    block = r.entry
    for _ in range(64):
        if block is r.if_true or block is r.if_false:
            return (block is r.if_true) != r.negated
        term = block.terminator
        if not isinstance(term, Goto):
            return None
        block = term.target
    return None
