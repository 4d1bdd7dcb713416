"""The symbolic test case tree: its nodes (branch points of explored paths) and the status
of their edges, and how a CFG edge is named as a branch outcome."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, Protocol


from ..cases import Outcome
from ..ir.cfg import CFG, Block, Edge
from ..symbolic.paths import AliasChoice, OffsetChoice
from ..symbolic.solver import Condition
from ..symbolic.state import State

#: What became of a tree edge: not explored yet, explored, pruned (infeasible) or cut (a
#: bound stopped the path there).
EdgeStatus = Literal["open", "explored", "pruned", "cut"]
OPEN: Final = "open"
EXPLORED: Final = "explored"
PRUNED: Final = "pruned"
CUT: Final = "cut"


def outcome_of(cfg: CFG, e: Edge) -> Outcome:
    """Branch outcome `e` of `cfg` as cases and reports name it."""
    loc = cfg.edge_location(e)
    return Outcome(loc.line, loc.column, cfg.edge_label(e))


@dataclass(eq=False)
class TreeNode:
    """A branch point of an explored path: the state before the branch and its edges.
    A choice node (`choice` set) branches over where an input pointer points, or which
    value a symbolic offset has, instead: its edges are not outcomes of the function."""

    state: State
    block: Block
    guards: list[Condition | None]  # of each edge, None when it is impossible
    depth: int
    choice: AliasChoice | OffsetChoice | None = None
    written: list[Condition | None] | None = None  # the guards as written (`Fork.written`)
    edges: list[EdgeStatus] = field(default_factory=list)
    # the evaluations of decisions open at this node (search/mcdc_goals.py), once known
    mcdc_open: dict[int, list[bool | None]] | None = None

    def __post_init__(self) -> None:
        self.edges = [OPEN if g is not None else PRUNED for g in self.guards]

    @property
    def in_function_under_test(self) -> bool:
        return len(self.state.frames) == 1 and self.choice is None

    def new_goal(self, index: int, uncovered: set[Edge]) -> bool:
        """Whether edge `index` is an outcome of `uncovered` that this path does not
        cover yet."""
        if not self.in_function_under_test:
            return False
        edge = Edge(self.block.id, index)
        return edge in uncovered and edge not in self.state.edges


class Continuation(Protocol):
    """A way of continuing a path other than toward the outcomes left (a loop run on for
    its findings, a loop run again for a loop case)."""

    def groups(self, node: TreeNode, order: list[int]) -> list[list[int]] | None:
        """The edges of `node` (tried in `order`) in the groups a path continues with,
        the first feasible edge of a group before any of the next; None where the search's
        own order holds."""
