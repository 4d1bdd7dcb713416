"""The statement goals of the search (`--ctgen-criterion statement`): every line of the
function's code that a path can run.

Between two branches a path runs straight through blocks joined by jumps, so taking a
branch outcome runs the lines of the blocks from its target to the next branch or return
(its chain). The goals of the search are then the branch outcomes whose chain holds a line
no case ran yet: an outcome that adds no line (the false side of an `if` without `else`
once the code after it ran) is no goal, so fewer cases than for branch coverage suffice.
"""
from __future__ import annotations

from ..ir.cfg import CFG, Block, Edge, Goto

#: A line of code: (file, line).
Line = tuple[str, int]


def _lines(block: Block) -> set[Line]:
    locations = [s.location for s in block.stmts]
    if block.terminator is not None:
        locations.append(block.terminator.location)
    return {(loc.file, loc.line) for loc in locations if loc.line}


class StatementGoals:
    """The lines of one function no case ran yet, and the outcomes that run them."""

    def __init__(self, cfg: CFG) -> None:
        self.chains = {e: self.chain(cfg.edge_target(e)) for e in cfg.branch_edges()}
        self.entry = self.chain(cfg.entry)
        self.uncovered: set[Line] = set(self.entry).union(*self.chains.values())

    @staticmethod
    def chain(block: Block) -> frozenset[Line]:
        """The lines a path runs from `block` to the next branch or return."""
        lines: set[Line] = set()
        seen: set[int] = set()
        while block.id not in seen:
            seen.add(block.id)
            lines |= _lines(block)
            if not isinstance(block.terminator, Goto):
                break
            block = block.terminator.target
        return frozenset(lines)

    def cover(self, edges: list[Edge]) -> None:
        """A case ran the path of `edges`."""
        self.uncovered -= self.entry
        for e in edges:
            self.uncovered -= self.chains[e]

    def goal_edges(self) -> set[Edge]:
        """The outcomes whose chain holds a line no case ran."""
        return {e for e, lines in self.chains.items() if lines & self.uncovered}
