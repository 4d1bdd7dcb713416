"""Lowering of the arithmetic, bitwise, shift and comparison operators: `OperatorLowerer`
applies C's conversions to the operands (pointer arithmetic through ir/lower_types.py) and,
in a function body, gcc's folds of an operator over a comparison or a Conditional operand
(ir/gccfold.py). `&&`, `||` and `?:` branch: they are ir/lower_cond.py's.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.ctype import INT, LONG, PointerType, usual_arithmetic_conversion
from ..frontend.constant_eval import COMPARISONS
from . import gccfold
from .constants import fold
from .expr import Binary, Cast, Const, Expr, Unary
from .gccfold import Conditional

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer


class OperatorLowerer:
    """The unary and binary operators of one function body (or of static initializers)."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder

    def unary(self, op: str, e: Expr) -> Expr:
        """`op e` for `op` `!`, `-` or `~`; of a Conditional, the conditional of `op`
        applied to its arms (as gcc folds it)."""
        if op != "!":
            e = self.exprs.promote(e)
        if isinstance(e, Conditional):
            folded = self.builder.distributed(e, lambda arm: self.unary(op, arm),
                                      INT if op == "!" else e.type)
            if folded is not None:
                return folded
            e = self.builder.settled(e)
        if op == "!":
            return Unary("!", self.exprs.truth(e), INT)
        return Unary(op, e, e.type)

    def binary(self, op: str, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        """`left op right` with C's conversions; where gcc folds it with a comparison or
        a Conditional operand (ir/gccfold.py), what gcc makes of it."""
        e = self.plain_binary(op, left, right, node)
        if self.exprs.gcc_shapes and isinstance(e, Binary):
            return self.gcc_binary(e, node)
        return e

    def gcc_binary(self, e: Binary, node: c_ast.Node) -> Expr:
        """gcc's fold of `e` when one operand is a comparison or a Conditional and the
        other a constant: the conditional of `op` applied to the arms
        (fold_binary_op_with_conditional_arg); else `e`."""
        constant = gccfold.identity(e)
        if constant is not None:
            return constant
        truths = self.builder.condition_temps
        if e.op == "+" and gccfold.kind(e.left, truths) == gccfold.COMPARISON and \
                gccfold.relation(e.left, e.right):
            e = Binary("*", e.left, Const(e.type, 2), e.type)  # gcc: `a + a` is `a * 2`
        for condition_first in (True, False):
            operand, other = (e.left, e.right) if condition_first else (e.right, e.left)
            k = fold(other)
            if k is None or gccfold.could_trap(e.op, e.left.type, not condition_first, k):
                continue
            c = gccfold.arms(operand, e.op, truths)
            if c is None or fold(operand) is not None:
                continue
            fresh = c is not operand
            if fresh:
                c = replace(c, location=self.builder.loc(node))

            def apply(arm: Expr, first: bool = condition_first, other: Expr = other) -> Expr:
                return self.binary(e.op, *((arm, other) if first else (other, arm)), node)

            folded = self.builder.distributed(c, apply, e.type, e.type if fresh else None,
                                              fresh)
            if folded is not None:
                return folded
        return e

    def plain_binary(self, op: str, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        lt, rt = left.type, right.type
        if op in ("+", "-") and (isinstance(lt, PointerType) or isinstance(rt, PointerType)):
            if op == "-" and isinstance(lt, PointerType) and isinstance(rt, PointerType):
                return self.exprs.types.pointer_difference(left, right, node)
            if isinstance(rt, PointerType):
                left, right = right, left
            index = self.exprs.convert(right, LONG)
            if op == "-":
                index = Unary("-", index, LONG)
            return self.exprs.types.pointer_add(left, index, node)
        if op in COMPARISONS:
            if isinstance(lt, PointerType) or isinstance(rt, PointerType):
                if not isinstance(lt, PointerType):
                    left = Cast(left, rt)
                if not isinstance(rt, PointerType):
                    right = Cast(right, lt)
                return Binary(op, left, right, INT)
            left, right = self.exprs.promote(left), self.exprs.promote(right)
            ct = usual_arithmetic_conversion(left.type, right.type)
            return Binary(op, self.exprs.convert(left, ct), self.exprs.convert(right, ct), INT)
        if op in ("<<", ">>"):
            left, right = self.exprs.promote(left), self.exprs.promote(right)
            return Binary(op, left, right, left.type)
        if not (lt.is_arithmetic and rt.is_arithmetic):
            raise CtgenError(f"invalid operands to binary {op}", self.builder.loc(node))
        left, right = self.exprs.promote(left), self.exprs.promote(right)
        ct = usual_arithmetic_conversion(left.type, right.type)
        return Binary(op, self.exprs.convert(left, ct), self.exprs.convert(right, ct), ct)
