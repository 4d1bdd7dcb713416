"""Goals through callees (`--ctgen-goals reached`): the branch outcomes of the functions
defined in the unit's own file that the function under test calls, directly or through
other functions, are goals of its search too, as a test of a public API over static
helpers, or of a program's `main`, needs.

The executor records the outcomes paths take in called functions (`State.callee_edges`);
a path that takes one no case has taken makes a case. While such outcomes are left, every
open edge of the tree may lead to them: the open edges that are themselves such an
outcome go first, then the others, nearest the root first.
"""
from __future__ import annotations

from ..ir.cfg import CFG, Edge
from ..ir.lower import Program
from ..symbolic.state import State
from .tree import TreeNode

#: An outcome of a called function: (id of its CFG, its edge).
CalleeEdge = tuple[int, Edge]


def called_functions(program: Program, function: str, unit_file: str) -> list[str]:
    """The functions defined in `unit_file` that `function` calls, directly or through
    other functions, by name (Program.called_functions)."""
    return sorted(n for n in program.called_functions(function)
                  if program.cfgs[n].function.location.file == unit_file)


class CalleeGoals:
    """The outcomes of the called functions no case has taken yet."""

    def __init__(self, program: Program, function: str, unit_file: str) -> None:
        self.cfgs: list[CFG] = [program.cfgs[n]
                                for n in called_functions(program, function, unit_file)]
        self.uncovered: set[CalleeEdge] = {
            (id(cfg), e) for cfg in self.cfgs for e in cfg.branch_edges()}

    def new(self, state: State) -> list[CalleeEdge]:
        """The outcomes of called functions `state` takes that no case has."""
        return [e for e in state.callee_edges if e in self.uncovered]

    def covered(self, state: State) -> None:
        self.uncovered.difference_update(state.callee_edges)

    def is_goal(self, node: TreeNode, index: int) -> bool:
        """Whether edge `index` of `node` is an outcome of a called function that no case
        and not this path has taken."""
        if node.choice is not None or len(node.state.frames) == 1:
            return False
        edge = (id(node.state.frame.cfg), Edge(node.block.id, index))
        return edge in self.uncovered and edge not in node.state.callee_edges
