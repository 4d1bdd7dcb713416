"""Findings in the iterations of a loop that no goal needs (issue 18).

The search stops when its goals are covered: `for (i = 0; i <= n; i++) s += a[i]` is
covered by n = 0, and the path that reads a[4] is never run, although a path into undefined
behaviour is a finding (DESIGN §4). So after the search, each loop whose iterations the
inputs decide is run on from the branch point of the search tree earliest in its
iterations that has an edge in the loop left to explore, along the edges that stay in the
loop wherever the path can take one, until the path leaves it, hits the unwinding bound, or
runs into undefined behaviour, which becomes a finding's case as on any path. It is run on
twice: at a branch inside the loop, once along the edge the search would continue with,
once along the last (`if (b[i] > 100) hits[k++] = i;` overflows `hits` only where the
branch is taken every time). These are extras, as the boundary cases are: they may spend a
share of what the search spent (within what it left of the budget), and nothing else the
search reported changes, unless the time budget (the safety net) ran out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..ir.cfg import CFG, Block, Call
from ..ir.expr import Binary, Const, Deref, PtrAdd, nodes_in
from ..symbolic.paths import BoundReached
from ..symbolic.work import STEPS_PER_UNIT
from .tree import EXPLORED, OPEN, TreeNode

if TYPE_CHECKING:
    from .generator import Generator

#: The work the loops may be run on with: this share of what the search spent, and at
#: least so many steps (a loop unwound to the default bound takes about one unit).
_SHARE = 0.25
_LEAST_STEPS = 2 * STEPS_PER_UNIT


@dataclass(frozen=True)
class Staying:
    """A loop being run on: the blocks of the loop whose body starts with `head` in the
    function of `cfg`."""

    cfg: CFG
    head: int
    blocks: frozenset[int]
    reverse: bool = False  # the edges that stay in the loop in reverse order

    def groups(self, node: TreeNode, order: list[int]) -> list[list[int]] | None:
        """The edges of `node` (tried in `order`) in the groups a path continues with,
        the first feasible edge of a group before any of the next: each edge that stays
        in the loop alone, then the others; None at a branch outside the loop."""
        if node.choice is not None or node.state.frame.cfg is not self.cfg or \
                node.block.id not in self.blocks:
            return None
        term = node.block.terminator
        assert term is not None
        succs = term.successors()
        staying = [i for i in order if succs[i].id in self.blocks]
        if self.reverse:
            staying.reverse()
        return [*([i] for i in staying), [i for i in order if succs[i].id not in self.blocks]]


def run_loops_on(gen: Generator) -> None:
    """Run on each loop the tree left open (see the module's docstring). Raises the
    generator's budget exception when the share of the budget, the budget or the time is
    spent."""
    starts = _starts(gen)
    if not starts:
        return
    meter = gen.meter
    share = meter.spent + max(_LEAST_STEPS, int(meter.spent * _SHARE))
    limit = meter.limit
    meter.limit = min(limit, share) if limit > 0 else share
    try:
        with gen.side_paths():
            for staying, node, index in starts:
                for reverse in (False, True):
                    gen.check_budget()
                    gen.staying = replace(staying, reverse=reverse)
                    _run_on(gen, node, index)
    finally:
        gen.staying = None
        meter.limit = limit
        if gen.boundary is not None:  # the branch points these paths offered
            gen.boundary.forget()


def _run_on(gen: Generator, node: TreeNode, index: int) -> None:
    """Complete a path from `node` along its edge `index`, explored already or not."""
    if node.edges[index] == OPEN:
        gen.explore(node, index)
        return
    if node.edges[index] != EXPLORED:
        return  # infeasible, or cut by a bound
    state = node.state.fork()
    try:
        gen.step(node, state, index)
    except BoundReached:
        return
    gen.continue_path(state, node.depth + 1)


def _starts(gen: Generator) -> list[tuple[Staying, TreeNode, int]]:
    """For each loop with an open edge of the tree that stays in it, the one of the
    branch point earliest in the loop's iterations (the first of them in the tree), in
    the order the tree met the loops: the later iterations are all the run's to decide."""
    best: dict[tuple[int, int], tuple[int, Staying, TreeNode, int]] = {}
    every = gen.executor.overflow_is_finding
    loops: dict[int, list[tuple[Staying, bool]]] = {}
    for node in gen.nodes:
        if node.choice is not None:
            continue
        cfg = node.state.frame.cfg
        staying = _innermost(cfg, node.block.id, loops, every)
        if staying is None:
            continue
        term = node.block.terminator
        assert term is not None
        succs = term.successors()
        index = next((i for i, status in enumerate(node.edges)
                      if status == OPEN and succs[i].id in staying.blocks), None)
        if index is None:
            continue
        key = (id(cfg), staying.head)
        iterations = node.state.loop_iterations.get(key, 0)
        if key not in best or iterations < best[key][0]:
            best[key] = (iterations, staying, node, index)
    return [(staying, node, index) for _, staying, node, index in best.values()]


def _innermost(cfg: CFG, block: int, loops: dict[int, list[tuple[Staying, bool]]],
               every: bool) -> Staying | None:
    """The innermost loop of `cfg` that `block` lies in, when its iterations can run
    into undefined behaviour (`_may_be_undefined`; `every`: any loop, as where signed
    overflow is a finding). `loops` caches each CFG's loops, innermost first, with
    whether they can."""
    of_cfg = loops.get(id(cfg))
    if of_cfg is None:
        stayings = sorted(
            (Staying(cfg, head, frozenset(cfg.loop_blocks(head))) for head in cfg.loops),
            key=lambda s: (len(s.blocks), s.head))
        of_cfg = loops[id(cfg)] = [
            (s, any(_may_be_undefined(cfg.blocks[b]) for b in s.blocks)) for s in stayings]
    innermost = next(((s, undefined) for s, undefined in of_cfg if block in s.blocks),
                     None)
    if innermost is None or not (every or innermost[1]):
        return None
    return innermost[0]


_UNDEFINED_FOR_SOME_RIGHT = frozenset({"/", "%", "<<", ">>"})


def _may_be_undefined(block: Block) -> bool:
    """Whether `block` accesses memory through a pointer (`a[i]`, `*p`), calls, or
    divides or shifts by a value that is not a constant: what an iteration the search
    did not run may do wrong, signed overflow aside. A loop of arithmetic on locals
    alone (a sum of a series) is not run on."""
    return any(isinstance(node, (Call, Deref, PtrAdd)) or
               (isinstance(node, Binary) and node.op in _UNDEFINED_FOR_SOME_RIGHT and
                not isinstance(node.right, Const))
               for part in (*block.stmts, block.terminator) for node in nodes_in(part))
