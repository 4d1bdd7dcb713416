"""The CFG under construction while a function body (or a static initializer) is lowered.

`CfgBuilder` owns the blocks, the current block, the temporaries and locals, and places
statements and terminators. A gcc `Conditional` (ir/gccfold.py) in a statement is computed
by its branches when the statement is placed (`settled`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from pycparser import c_ast

from ..errors import SourceLocation, UnsupportedError
from ..frontend.ctype import CType
from ..frontend.locations import coord_location
from ..frontend.unit import LOCAL, Unit, Variable
from . import gccfold
from .cfg import Assign, Block, Branch, Goto, Stmt, Terminator
from .constants import fold
from .expr import Const, Expr, Load, VarRef
from .gccfold import Conditional

if TYPE_CHECKING:
    from .condition_map import ConditionRecorder

_T = TypeVar("_T")


def _loc(unit: Unit, node: c_ast.Node | None) -> SourceLocation:
    return coord_location(getattr(node, "coord", None), str(unit.path))


class CfgBuilder:
    """The blocks of one CFG under construction, the block code goes to (`cur`), and the
    objects the CFG will list: locals, static locals, temporaries."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.blocks: list[Block] = []
        self.temps: list[Variable] = []
        self.locals: list[Variable] = []
        self.static_locals: list[Variable] = []
        self.address_taken: set[Variable] = set()
        self.cur = self.new_block()
        self.condition_temps: set[Variable] = set()  # temporaries holding a `&&` or `||`
        self.here: SourceLocation | None = None  # of the expression lowered last
        self.conditionals_made = 0  # gcc Conditionals made so far (settled where used)
        self.conditions: ConditionRecorder | None = None  # notes the decisions' conditions
        # the loops: the block each body starts with, the loop statement and whether a
        # condition can end it
        self.loops: list[tuple[Block, c_ast.Node, bool]] = []

    def loc(self, node: c_ast.Node | None) -> SourceLocation:
        return _loc(self.unit, node)

    def unsupported(self, what: str, node: c_ast.Node | None) -> UnsupportedError:
        return UnsupportedError(f"unsupported construct: {what}", self.loc(node))

    def new_block(self) -> Block:
        b = Block(len(self.blocks))
        self.blocks.append(b)
        return b

    def new_blocks(self, count: int) -> list[Block]:
        """`count` new blocks, numbered in order."""
        return [self.new_block() for _ in range(count)]

    def emit(self, stmt: Stmt) -> None:
        self.settle_parts(stmt)
        self.cur.stmts.append(stmt)

    def terminate(self, term: Terminator) -> None:
        """End the current block; code after it goes to a fresh, unreachable block."""
        self.settle_parts(term)
        if self.cur.terminator is None:
            self.cur.terminator = term
        self.cur = self.new_block()

    def goto(self, target: Block, node: c_ast.Node | None) -> None:
        self.terminate(Goto(target, self.loc(node)))

    def branch(self, truth: Expr, if_true: Block, if_false: Block, node: c_ast.Node | None,
               location: SourceLocation | None = None) -> None:
        """Branch on the 0/1 value `truth` (a jump when it is constant) at `location`
        (default: `node`'s)."""
        value = fold(truth)
        if value is not None:
            self.goto(if_true if value else if_false, node)
            return
        self.terminate(Branch(truth, if_true, if_false, location or self.loc(node)))

    def temp(self, ctype: CType, node: c_ast.Node | None) -> Variable:
        v = Variable(f"ctgen.t{len(self.temps)}", ctype, LOCAL, self.loc(node), "@")
        self.temps.append(v)
        return v

    def kept(self, value: Expr, node: c_ast.Node | None) -> Expr:
        """`value` evaluated here into a new temporary: every read of the result gives what
        it was now, whatever is stored later."""
        t = self.temp(value.type, node)
        self.emit(Assign(VarRef(t, value.type), value, self.loc(node)))
        return Load(VarRef(t, value.type), value.type)

    def discarding(self, lower: Callable[[], _T]) -> _T:
        """What `lower` gives; the statements, blocks and temporaries it makes are dropped."""
        saved_cur, saved_len, saved_blocks = self.cur, len(self.cur.stmts), len(self.blocks)
        saved_temps, saved_terminator = len(self.temps), saved_cur.terminator
        try:
            return lower()
        finally:
            saved_cur.terminator = saved_terminator
            del saved_cur.stmts[saved_len:]
            del self.blocks[saved_blocks:]
            del self.temps[saved_temps:]
            self.cur = saved_cur

    def reachable_blocks(self, entry: Block) -> list[Block]:
        seen = {entry.id}
        order = [entry]
        stack = [entry]
        while stack:
            b = stack.pop()
            assert b.terminator is not None, f"block {b.id} has no terminator"
            for s in b.terminator.successors():
                if s.id not in seen:
                    seen.add(s.id)
                    order.append(s)
                    stack.append(s)
        order.sort(key=lambda b: b.id)
        for new_id, b in enumerate(order):
            b.id = new_id
        return order

    # ------------------------------------------------------- gcc's conditionals

    def conditional(self, condition: Expr, then: Expr, otherwise: Expr,
                    ctype: CType, location: SourceLocation | None, condition_type: CType,
                    negations: bool = False, eager: bool = True) -> Expr:
        """gcc's `condition ? then : otherwise` (gccfold.conditional), counted."""
        e = gccfold.conditional(condition, then, otherwise, ctype, location, condition_type,
                                negations, eager)
        if isinstance(e, Conditional):
            self.conditionals_made += 1
        return e

    def distributed(self, c: Conditional, apply: Callable[[Expr], Expr], ctype: CType,
                    condition_type: CType | None = None, negations: bool = False
                    ) -> Expr | None:
        """gcc's `apply` of an operation to the conditional `c`: the conditional of the
        operation applied to each arm (folded); None when it does not fold on a constant
        arm."""
        arms = []
        for arm in (c.then, c.otherwise):
            result = apply(arm)
            value = fold(result)
            if value is not None:
                result = Const(result.type, value)
            elif isinstance(arm, Const):
                return None
            arms.append(result)
        return self.conditional(c.condition, arms[0], arms[1], ctype, c.location,
                                c.condition_type if condition_type is None
                                else condition_type, negations)

    def settle_parts(self, node: Stmt | Terminator) -> None:
        """Give the expressions of a statement or terminator about to be placed the
        branches of the gcc Conditionals they hold."""
        if not self.conditionals_made:
            return
        assert is_dataclass(node) and not isinstance(node, type)  # as every IR node is
        for f in fields(node):
            value = getattr(node, f.name)
            if isinstance(value, Expr):
                setattr(node, f.name, self.settled(value))
            elif isinstance(value, list) and any(isinstance(v, Expr) for v in value):
                setattr(node, f.name, [self.settled(v) if isinstance(v, Expr) else v
                                       for v in value])

    def settled(self, e: Expr) -> Expr:
        """`e` with each gcc Conditional in it computed by its branch into a temporary
        first (the left operand's before the right one's)."""
        if not self.conditionals_made:
            return e
        if isinstance(e, Conditional):
            return self.materialized(e)
        assert is_dataclass(e) and not isinstance(e, type)  # as every IR node is
        changes = {}
        for f in fields(e):
            value = getattr(e, f.name)
            if isinstance(value, Expr) and f.name != "type":
                new = self.settled(value)
                if new is not value:
                    changes[f.name] = new
        return replace(e, **changes) if changes else e

    def materialized(self, c: Conditional) -> Expr:
        """The value of the conditional `c`, computed by branches into a temporary."""
        value = gccfold.choice(c)
        if value is not None:
            return value
        t = self.temp(c.type, None)
        yes, no, join = self.new_block(), self.new_block(), self.new_block()
        loc = c.location or self.here or self.loc(None)
        self.branch(c.condition, yes, no, None, loc)
        for b, arm in ((yes, c.then), (no, c.otherwise)):
            self.cur = b
            value = self.settled(arm)
            self.cur.stmts.append(Assign(VarRef(t, c.type), value, loc))
            self.goto(join, None)
        self.cur = join
        return Load(VarRef(t, c.type), c.type)
