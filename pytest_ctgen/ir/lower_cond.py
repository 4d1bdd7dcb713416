"""Lowering of conditions and of the operators that branch: `&&`, `||`, `!` and `?:`.

`ConditionLowerer` makes the branches of a condition, the 0/1 value of `&&` and `||` and
the value of `?:` in value context, and lowers them for their side effects only. In a
function body it follows gcc -O0 (ir/gccfold.py, ir/lookahead.py): what gcc folds away
makes no branch, and each branch left is one gcc emits (a gcov branch outcome).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pycparser import c_ast

from ..frontend.ctype import (
    INT, CType, IntType, PointerType, RecordType, VoidType, usual_arithmetic_conversion)
from ..frontend.gnu_ast import is_elvis
from . import gccfold
from .cfg import Assign, Block, Branch
from ..frontend.constant_eval import convert_constant
from .constants import fold
from .expr import Binary, Const, Expr, Load, VarRef, is_null_constant
from .gccfold import Conditional
from .lookahead import AbsRange

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer


class ConditionLowerer:
    """The conditions and branching operators of one function body (or static initializer)."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.lookahead = exprs.lookahead
        self.tested: set[int] = set()  # ids of the `?:` nodes lowered for their truth

    def condition(self, node: c_ast.Node, if_true: Block, if_false: Block) -> None:
        """Branch to `if_true` or `if_false`; `&&`, `||`, `!` and `?:` become branches."""
        recorder = self.builder.conditions
        if recorder is None:
            self.branches(node, if_true, if_false)
            return
        with recorder.region(node, if_true, if_false, self.builder.blocks, self.builder.cur):
            self.branches(node, if_true, if_false)

    def branches(self, node: c_ast.Node, if_true: Block, if_false: Block) -> None:
        """The branches of `condition`."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and \
                self.exprs.gcc_shapes and self.decided_by_right(node):
            self.builder.goto(if_false if node.op == "&&" else if_true, node)
            return
        if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
            mid = self.builder.new_block()
            self.condition(node.left, mid, if_false)
            self.builder.cur = mid
            self.condition(node.right, if_true, if_false)
            return
        if isinstance(node, c_ast.BinaryOp) and node.op == "||":
            mid = self.builder.new_block()
            self.condition(node.left, if_true, mid)
            self.builder.cur = mid
            self.condition(node.right, if_true, if_false)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            inner = node.expr
            if (isinstance(inner, c_ast.BinaryOp) and inner.op in ("&&", "||")) or (
                    isinstance(inner, c_ast.UnaryOp) and inner.op == "!"):
                self.condition(inner, if_false, if_true)
                return
        if isinstance(node, c_ast.ExprList):
            for e in node.exprs[:-1]:
                self.exprs.effect(e)
            self.condition(node.exprs[-1], if_true, if_false)
            return
        if not self.exprs.gcc_shapes:
            self.builder.branch(self.exprs.truth(self.exprs.rvalue(node)), if_true, if_false,
                                node)
        elif not self.gcc_condition(node, if_true, if_false):
            self.tested_value(self.exprs.pending_value(node), if_true, if_false, node)

    def decided_by_right(self, node: c_ast.BinaryOp) -> bool:
        """Whether `a && 0` or `a || 1` (a constant right operand that decides) needs no
        test at all: `a` does nothing (gcc folds it to the constant)."""
        return self.lookahead.look_ahead_ok(node.right) and \
            self.lookahead.constant_truth(node.right) == (0 if node.op == "&&" else 1) and \
            not self.lookahead.has_side_effects(node.left)

    def gcc_condition(self, node: c_ast.Node, if_true: Block, if_false: Block) -> bool:
        """Branch on `node` where gcc folds it in a condition: a `?:` that is an `&&` or
        `||`, an operator distributed over a `?:`, `abs(x) < c`, an assignment of a value
        known not to be 0. False when none of these applies (nothing lowered)."""
        if isinstance(node, c_ast.TernaryOp):
            truths = [self.lookahead.constant_truth(n) for n in (node.iftrue, node.iffalse)]
            if truths[0] is not None and truths[0] == truths[1] and not is_elvis(node) \
                    and not self.lookahead.has_side_effects(node.cond):
                self.builder.goto(if_true if truths[0] else if_false, node)
                return True
            logical = self.lookahead.ternary_logical(node, truth=True)
            if logical is not None:
                self.condition(logical, if_true, if_false)
                return True
            self.tested.add(id(node))  # only its truth counts: so does its arms'
            try:
                self.tested_value(self.exprs.pending_value(node), if_true, if_false, node)
            finally:
                self.tested.discard(id(node))
            return True
        if isinstance(node, c_ast.BinaryOp):
            ternary = self.lookahead.distributed_ternary(node)
            if ternary is not None:
                self.condition(ternary, if_true, if_false)
                return True
            found = self.lookahead.abs_comparison(node)
            if found is None:
                return False
            self.abs_branches(found, if_true, if_false, node)
            return True
        if isinstance(node, c_ast.Assignment) and node.op == "=":
            target, stored = self.exprs.assignment(node)
            if gccfold.known_nonzero(stored):
                self.builder.goto(if_true, node)
            else:
                self.builder.branch(self.exprs.truth(Load(target, target.type)), if_true,
                                    if_false, node)
            return True
        return False

    def tested_value(self, value: Expr, if_true: Block, if_false: Block,
                     node: c_ast.Node) -> None:
        """Branch on the scalar `value`; a Conditional branches on its condition (where
        its arms differ in truth), an address of an object is not tested (never NULL)."""
        if isinstance(value, Conditional):
            if self.builder.conditions is not None:
                self.builder.conditions.tested_conditional()
            known = gccfold.truth_constant(value)
            if known is not None:
                self.builder.goto(if_true if known else if_false, node)
                return
            arms = (value.then, value.otherwise)
            truths = [gccfold.truth_constant(arm) for arm in arms]
            targets = [self.builder.new_block() if k is None else if_true if k else if_false
                       for k in truths]
            self.builder.branch(value.condition, targets[0], targets[1], node, value.location)
            for arm, known, target in zip(arms, truths, targets):
                if known is None:
                    self.builder.cur = target
                    self.tested_value(arm, if_true, if_false, node)
            return
        value = self.builder.settled(value)
        if gccfold.known_nonzero(value):
            self.exprs.truth(value)
            self.builder.goto(if_true, node)
            return
        self.builder.branch(self.exprs.truth(value), if_true, if_false, node)

    def abs_branches(self, found: AbsRange, if_true: Block, if_false: Block,
                     node: c_ast.Node) -> None:
        """`abs(x) <= c` as gcc has it: `x >= -c && x <= c`, x evaluated once."""
        if found.bounds is False:
            self.exprs.effect(found.argument)
            self.builder.goto(if_false, node)
            return
        assert isinstance(found.bounds, tuple)
        t = found.type
        x = self.builder.kept(self.exprs.convert(self.exprs.rvalue(found.argument), t),
                              found.argument)
        low, high = found.bounds
        mid = self.builder.new_block()
        self.builder.branch(Binary(">=", x, Const(t, low), INT), mid, if_false, node)
        self.builder.cur = mid
        self.builder.branch(Binary("<=", x, Const(t, high), INT), if_true, if_false, node)

    # ------------------------------------------------------ `&&`, `||` and `?:` as values

    def materialize_condition(self, node: c_ast.Node) -> Expr:
        """The 0/1 value of a condition lowered as branches (`&&`, `||` in value context),
        unless gcc folds away a constant operand (`folded_logical`)."""
        if self.exprs.gcc_shapes and isinstance(node, c_ast.BinaryOp):
            folded = self.folded_logical(node)
            if folded is not None:
                return folded
        return self.truth_temporary(lambda yes, no: self.condition(node, yes, no), node)

    def truth_temporary(self, lower_condition: Callable[[Block, Block], None],
                        node: c_ast.Node) -> Expr:
        """The 0/1 value of a condition that `lower_condition(yes, no)` lowers as
        branches."""
        t = self.builder.temp(INT, node)
        self.builder.condition_temps.add(t)
        yes, no, join = self.builder.new_blocks(3)
        lower_condition(yes, no)
        for b, v in ((yes, 1), (no, 0)):
            self.builder.cur = b
            self.builder.emit(Assign(VarRef(t, INT), Const(INT, v), self.builder.loc(node)))
            self.builder.goto(join, node)
        self.builder.cur = join
        return Load(VarRef(t, INT), INT)

    def ternary_value(self, node: c_ast.TernaryOp) -> Expr:
        """The value of `c ? a : b` (or GNU `a ?: b`): each arm lowered in its own block
        into a temporary of the result's type, unless gcc folds it (`folded_ternary`)."""
        if self.exprs.gcc_shapes and not is_elvis(node):
            folded = self.folded_ternary(node)
            if folded is not None:
                return folded
        then_b, else_b, join = self.builder.new_blocks(3)
        first: Expr | None = None
        head = self.builder.cur
        if is_elvis(node):  # `a ?: b` evaluates `a` once
            first = self.builder.kept(self.exprs.rvalue(node.cond), node)
            self.builder.branch(self.exprs.truth(first), then_b, else_b, node)
        else:
            self.condition(node.cond, then_b, else_b)
        test = head.terminator if isinstance(head.terminator, Branch) and \
            {head.terminator.if_true, head.terminator.if_false} == {then_b, else_b} else None
        # the type of the result needs both operands; lower each in its own block
        self.builder.cur = then_b
        truth = id(node) in self.tested
        a = first if first is not None else self.arm_value(node.iftrue, test, then_b, truth)
        a_end = self.builder.cur
        self.builder.cur = else_b
        b = self.arm_value(node.iffalse, test, else_b, truth)
        b_end = self.builder.cur
        if isinstance(a.type, VoidType) or isinstance(b.type, VoidType):
            rtype: CType = a.type
        elif a.type.is_arithmetic and b.type.is_arithmetic:
            rtype = usual_arithmetic_conversion(a.type, b.type)
        elif isinstance(a.type, PointerType) and not is_null_constant(a):
            rtype = a.type
        else:
            rtype = b.type
        if isinstance(rtype, VoidType):
            for end in (a_end, b_end):
                self.builder.cur = end
                self.builder.goto(join, node)
            self.builder.cur = join
            return Const(INT, 0)
        t = self.builder.temp(rtype, node)
        if isinstance(rtype, RecordType):
            self.builder.address_taken.add(t)
        for end, value in ((a_end, a), (b_end, b)):
            self.builder.cur = end
            self.builder.emit(Assign(VarRef(t, rtype), self.exprs.convert(value, rtype),
                                     self.builder.loc(node)))
            self.builder.goto(join, node)
        self.builder.cur = join
        return Load(VarRef(t, rtype), rtype)

    def arm_value(self, arm: c_ast.Node, test: Branch | None, block: Block,
                  truth: bool) -> Expr:
        """The value of an arm of `?:` lowered in `block`, where the Branch `test` went
        (with `truth`, as the 0/1 truth value it has where the `?:` is tested); an arm
        that is a Conditional on the same test takes the arm that test chose (gcc folds
        `a ? (a ? x : y) : z` to `a ? x : z`)."""
        value = self.exprs.pending_value(arm)
        if truth:
            value = self.truth_value(value, arm)
        if test is not None and isinstance(value, Conditional):
            related = gccfold.relation(value.condition, test.cond)
            if related is not None:
                taken = (test.if_true is block) == related
                value = value.then if taken else value.otherwise
        return self.builder.settled(value)

    def truth_of(self, node: c_ast.Node) -> Expr:
        """`node != 0` as a 0/1 int, as gcc makes it (a truth value as it is)."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            return self.materialize_condition(node)
        return self.truth_value(self.exprs.pending_value(node), node)

    def truth_value(self, e: Expr, node: c_ast.Node) -> Expr:
        """The scalar `e` as a 0/1 int: itself for a truth value, else `e != 0`."""
        self.exprs.truth(e)
        if gccfold.kind(e, self.builder.condition_temps) is not None or \
                (isinstance(e.type, IntType) and e.type.is_bool):
            return self.exprs.convert(e, INT)
        return self.exprs.operators.binary("!=", e, Const(INT, 0), node)

    def folded_logical(self, node: c_ast.BinaryOp) -> Expr | None:
        """gcc's fold of `&&` or `||` with a constant operand (fold_binary): `0 && b` is 0,
        `1 && b` and `b && 1` are `b != 0` (no branch), `a && 0` is `(a, 0)`; likewise
        for `||`. None when neither operand is a constant."""
        if not self.lookahead.look_ahead_ok(node):
            return None
        decisive = 0 if node.op == "&&" else 1
        left = self.lookahead.constant_truth(node.left)
        if left is not None:
            return Const(INT, left) if left == decisive else self.truth_of(node.right)
        right = self.lookahead.constant_truth(node.right)
        if right is None:
            return None
        if right != decisive:
            if self.lookahead.has_side_effects(node.left):
                return None
            return self.truth_of(node.left)
        self.exprs.effect(node.left)
        return Const(INT, right)

    def folded_ternary(self, node: c_ast.TernaryOp) -> Expr | None:
        """gcc's fold of the conditional `node` in value context: an `&&` or `||`
        (`ternary_logical`), or for constant arms a Conditional, which may fold to its
        condition, the negation of it or one constant (gccfold.conditional)."""
        logical = self.lookahead.ternary_logical(node, truth=False)
        if logical is not None:
            rtype = usual_arithmetic_conversion(
                *(self.lookahead.look(n).type for n in (node.iftrue, node.iffalse)))
            return self.exprs.convert(self.materialize_condition(logical), rtype)
        if not self.lookahead.look_ahead_ok(node):
            return None
        arms = [self.lookahead.look(n) for n in (node.iftrue, node.iffalse)]
        then_constant, otherwise_constant = (fold(a) for a in arms)
        if not all(a.type.is_arithmetic for a in arms) or then_constant is None or \
                otherwise_constant is None:
            return None
        rtype = usual_arithmetic_conversion(arms[0].type, arms[1].type)
        then_value = convert_constant(then_constant, arms[0].type, rtype)
        otherwise_value = convert_constant(otherwise_constant, arms[1].type, rtype)
        if then_value is None or otherwise_value is None:
            return None
        then, otherwise = Const(rtype, then_value), Const(rtype, otherwise_value)
        if gccfold.same(then, otherwise) and not self.lookahead.has_side_effects(node.cond):
            return then
        if self.lookahead.jumps_alone(node.cond):
            return None  # the condition's own jumps choose the arm
        cond = self.exprs.pending_value(node.cond)
        self.exprs.truth(cond)
        if gccfold.kind(cond, self.builder.condition_temps) is None and \
                isinstance(cond.type, IntType) and cond.type.is_bool:
            return self.builder.conditional(self.builder.settled(cond), then, otherwise, rtype,
                                            self.builder.loc(node), cond.type, eager=False)
        truth = self.builder.settled(self.truth_value(cond, node.cond))
        return self.builder.conditional(truth, then, otherwise, rtype, self.builder.loc(node),
                                        INT, eager=False)

    # ------------------------------------------------------ for side effects only

    def logical_effect(self, node: c_ast.BinaryOp) -> None:
        """`a && b;` or `a || b;`: `b` is evaluated for its side effects where `a` does not
        decide. In gcc's shapes gcc tests `b` too, unless a constant operand folds the
        operator away; then the operand left is evaluated for its side effects."""
        if not self.exprs.gcc_shapes:
            join, rest = self.builder.new_blocks(2)
            if node.op == "&&":
                self.condition(node.left, rest, join)
            else:
                self.condition(node.left, join, rest)
            self.builder.cur = rest
            self.exprs.effect(node.right)
            self.builder.goto(join, node)
            self.builder.cur = join
            return
        if self.lookahead.look_ahead_ok(node):
            decisive = 0 if node.op == "&&" else 1  # the value of `a` that decides alone
            left = self.lookahead.constant_truth(node.left)
            if left is not None:
                if left != decisive:
                    self.exprs.effect(node.right)
                return
            right = self.lookahead.constant_truth(node.right)
            if right is not None and (right == decisive or
                                      not self.lookahead.has_side_effects(node.left)):
                self.exprs.effect(node.left)
                return
        join = self.builder.new_block()
        self.condition(node, join, join)
        self.builder.cur = join

    def ternary_effect(self, node: c_ast.TernaryOp) -> None:
        """`c ? a : b;` (or `a ?: b;`): the arm `c` chooses, for its side effects."""
        if is_elvis(node):  # `a ?: b;`
            first = self.builder.kept(self.exprs.rvalue(node.cond), node)
            else_b, join = self.builder.new_blocks(2)
            self.builder.branch(self.exprs.truth(first), join, else_b, node)
            self.builder.cur = else_b
            self.exprs.effect(node.iffalse)
            self.builder.goto(join, node)
            self.builder.cur = join
            return
        then_b, else_b, join = self.builder.new_blocks(3)
        self.condition(node.cond, then_b, else_b)
        for b, sub in ((then_b, node.iftrue), (else_b, node.iffalse)):
            self.builder.cur = b
            self.exprs.effect(sub)
            self.builder.goto(join, node)
        self.builder.cur = join
