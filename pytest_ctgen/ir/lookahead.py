"""What gcc will fold, found by looking ahead: `Lookahead` lowers a node once more for its
shape (kind, constant value, type) and drops what that made.

The lowering asks it before it lowers a `?:`, `&&`, `||` or comparison for good, so that the
branches it makes are those gcc -O0 makes (the rules are in ir/gccfold.py). Each answer is
computed once per node: nested conditionals look at their operands too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pycparser import c_ast

from ..frontend.ctype import IntType, integer_promotion, usual_arithmetic_conversion
from ..frontend.gnu_ast import is_elvis
from . import gccfold
from .constants import fold
from ..frontend.constant_eval import COMPARISONS
from .expr import ARITHMETIC_OPS, Expr

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer


@dataclass(frozen=True)
class AbsRange:
    """`abs(argument) < c` as gcc folds it: `argument` (converted to `type`) in `bounds`,
    or False (gccfold.abs_range)."""

    argument: c_ast.Node
    type: IntType
    bounds: tuple[int, int] | bool


@dataclass(frozen=True)
class _Holds:
    """What an expression holds that its shape depends on: whether a statement expression
    (it declares things: it is lowered only once), and what may have side effects."""

    statements: bool
    changes: bool  # an assignment, `++` or `--`
    calls: tuple[c_ast.FuncCall, ...]


class Lookahead:
    """gcc's folds of the nodes of one function body, looked at before they are lowered."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit
        # by node id (the node kept, so that its id stays its own): `distributed_ternary`
        # of each binary node met, `look` of each node looked at
        self.ternary_forms: dict[int, tuple[c_ast.Node, c_ast.TernaryOp | None]] = {}
        self.looks: dict[int, tuple[c_ast.Node, Expr]] = {}
        self.held: dict[int, tuple[c_ast.Node, _Holds]] = {}  # `holds` of each node
        # `ternary_logical` of each conditional, tested or not: lowering a chain of them
        # looks at each one once per enclosing one (quadratic in a 1500-deep ?: chain)
        self.logicals: dict[tuple[int, bool], tuple[c_ast.Node, c_ast.Node | None]] = {}

    def look(self, node: c_ast.Node) -> Expr:
        """What `node` lowers to here, for its shape (kind, constant value, type); nothing
        of it is kept. Computed once per node: nested conditionals look at their
        operands too, which would otherwise cost exponential time."""
        key = id(node)
        if key not in self.looks:
            shape = self.builder.discarding(lambda: self.exprs.pending_value(node))
            self.looks[key] = (node, shape)
        return self.looks[key][1]

    def constant_truth(self, node: c_ast.Node) -> int | None:
        """1 or 0 when `node` is a constant (nonzero or zero), else None. Nothing of
        `node` is kept."""
        if self.has_side_effects(node):
            return None  # `(f(), 1)` is no constant to gcc's folder
        return gccfold.truth_constant(self.look(node))

    def has_side_effects(self, node: c_ast.Node) -> bool:
        """Whether evaluating `node` may change something (gcc's TREE_SIDE_EFFECTS): an
        assignment, `++`, a call of other than gcc's abs builtins."""
        holds = self.holds(node)
        return holds.statements or holds.changes or \
            any(self.abs_call_type(call) is None for call in holds.calls)

    def look_ahead_ok(self, node: c_ast.Node) -> bool:
        """Whether `node` may be lowered once more to look at its value (`look`): it
        declares nothing (holds no statement expression)."""
        return not self.holds(node).statements

    def holds(self, node: c_ast.Node) -> _Holds:
        """What `node` holds (computed once per node)."""
        key = id(node)
        if key not in self.held:
            parts = [self.holds(child) for child in node]
            calls = tuple(c for part in parts for c in part.calls)
            self.held[key] = (node, _Holds(
                isinstance(node, c_ast.Compound) or any(p.statements for p in parts),
                isinstance(node, c_ast.Assignment) or (isinstance(node, c_ast.UnaryOp) and
                node.op in ("++", "--", "p++", "p--")) or any(p.changes for p in parts),
                (node, *calls) if isinstance(node, c_ast.FuncCall) else calls))
        return self.held[key][1]

    def abs_call_type(self, node: c_ast.Node) -> IntType | None:
        """The argument type of a call of gcc's builtin abs, labs, llabs or imaxabs of one
        argument; None for any other expression (or a function the unit defines)."""
        if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and
                node.args is not None and len(node.args.exprs) == 1):
            return None
        name = node.name.name
        fn = self.unit.functions.get(name)
        if name not in gccfold.ABS_FUNCTIONS or self.exprs.declared(name) or (
                fn is not None and fn.is_defined):
            return None
        return gccfold.ABS_FUNCTIONS[name]

    def abs_comparison(self, node: c_ast.BinaryOp) -> AbsRange | None:
        """`abs(x) < c`, `abs(x) <= c` (or `c > abs(x)`...) of an integer constant `c`, which
        gcc folds (gccfold.abs_range); None for other comparisons."""
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        if node.op not in flipped:
            return None
        for call, bound, op in ((node.left, node.right, node.op),
                                (node.right, node.left, flipped[node.op])):
            abs_type = self.abs_call_type(call)
            if op not in ("<", "<=") or abs_type is None or not self.look_ahead_ok(bound):
                continue
            arg = call.args.exprs[0]
            arg_type = self.exprs.types.type_of(arg)
            b = self.look(bound)
            value = fold(b)
            if not (isinstance(arg_type, IntType) and not arg_type.is_bool and
                    arg_type.bits >= abs_type.bits and isinstance(b.type, IntType) and
                    isinstance(value, int) and
                    abs_type.min_value <= value <= abs_type.max_value):
                return None
            common = usual_arithmetic_conversion(abs_type, integer_promotion(b.type))
            if not (isinstance(common, IntType) and common.signed):
                return None
            found = gccfold.abs_range(op, value, abs_type)
            return None if found is None else AbsRange(arg, abs_type, found)
        return None

    def distributed_ternary(self, node: c_ast.BinaryOp) -> c_ast.TernaryOp | None:
        """gcc's `(c ? a : b) op k` for a constant `k`: `c ? a op k : b op k`
        (fold_binary_op_with_conditional_arg), for arms `a` and `b` of one integer type;
        None for another operation."""
        key = id(node)
        if key not in self.ternary_forms:
            self.ternary_forms[key] = (node, self.ternary_form(node))
        return self.ternary_forms[key][1]

    def ternary_form(self, node: c_ast.BinaryOp) -> c_ast.TernaryOp | None:
        if node.op not in ARITHMETIC_OPS and node.op not in COMPARISONS:
            return None
        for ternary_first in (True, False):
            side, k = (node.left, node.right) if ternary_first else (node.right, node.left)
            ternary = side if isinstance(side, c_ast.TernaryOp) else \
                self.distributed_ternary(side) if isinstance(side, c_ast.BinaryOp) else None
            if ternary is None or is_elvis(ternary) or not self.look_ahead_ok(node) or \
                    not self.stays_conditional(ternary):
                continue
            constant = fold(self.look(k))
            if constant is None or (node.op in ("/", "%") and (not ternary_first or
                                                              constant == 0)):
                continue
            types = [self.look(n).type for n in (ternary.iftrue, ternary.iffalse, k)]
            ints = [t for t in types if isinstance(t, IntType)]
            if len(ints) != len(types) or \
                    integer_promotion(ints[0]) != integer_promotion(ints[1]):
                continue
            arms = [c_ast.BinaryOp(node.op, arm, k, node.coord) if ternary_first else
                    c_ast.BinaryOp(node.op, k, arm, node.coord)
                    for arm in (ternary.iftrue, ternary.iffalse)]
            return c_ast.TernaryOp(ternary.cond, arms[0], arms[1], ternary.coord)
        return None

    def stays_conditional(self, node: c_ast.TernaryOp) -> bool:
        """Whether gcc keeps `node` a conditional: it folds to no `&&`, `||`, constant,
        condition or negated condition."""
        if self.ternary_logical(node, truth=False) is not None:
            return False
        values = [fold(self.look(n)) for n in (node.iftrue, node.iffalse)]
        return None in values or not (values[0] == values[1] or set(values) == {0, 1})

    def ternary_logical(self, node: c_ast.TernaryOp, truth: bool) -> c_ast.Node | None:
        """gcc's fold of `a ? b : c` into `&&` or `||` (fold_ternary) where `a` and the
        other arm are truth values: `a ? b : 0` is `a && b`, `a ? b : 1` is `!a || b`,
        `a ? 0 : c` is `!a && c`, `a ? 1 : c` is `a || c` (`!a` only where gcc inverts
        `a`). With `truth` the conditional is itself tested: its arms count as truth
        values. None when it stays a conditional. Computed once per node and `truth`."""
        key = (id(node), truth)
        if key not in self.logicals:
            self.logicals[key] = (node, self._ternary_logical(node, truth))
        return self.logicals[key][1]

    def _ternary_logical(self, node: c_ast.TernaryOp, truth: bool) -> c_ast.Node | None:
        if is_elvis(node) or not self.look_ahead_ok(node):
            return None
        cond = self.look(node.cond)
        if gccfold.kind(cond, self.builder.condition_temps) is None and \
                isinstance(cond.type, IntType) and cond.type.is_bool:
            return None  # a _Bool is no truth value to gcc's folder
        arms: list[tuple[int | float | None, bool]] = []
        for arm in (node.iftrue, node.iffalse):
            value = self.look(arm)
            if not truth and not isinstance(value.type, IntType):
                return None
            if truth:
                known = gccfold.truth_constant(value)
                arms.append((known, known is None))
            else:
                constant = fold(value)
                is_truth = gccfold.kind(value, self.builder.condition_temps) is not None
                arms.append((constant, is_truth))
        (then, then_truth), (otherwise, otherwise_truth) = arms
        invertible = gccfold.invertible(cond)
        negated = c_ast.UnaryOp("!", node.cond, node.cond.coord)
        if otherwise == 0 and then_truth:
            return c_ast.BinaryOp("&&", node.cond, node.iftrue, node.coord)
        if otherwise == 1 and then_truth and invertible:
            return c_ast.BinaryOp("||", negated, node.iftrue, node.coord)
        if then == 0 and otherwise_truth and invertible:
            return c_ast.BinaryOp("&&", negated, node.iffalse, node.coord)
        if then == 1 and otherwise_truth:
            return c_ast.BinaryOp("||", node.cond, node.iffalse, node.coord)
        return None

    def jumps_alone(self, node: c_ast.Node) -> bool:
        """Whether gcc tests `node` with jumps of its own, not by one value: `&&`, `||`,
        `!` of these, `abs(x) < c`, a `?:` that is an `&&` or `||`."""
        if isinstance(node, c_ast.BinaryOp):
            return node.op in ("&&", "||") or self.abs_comparison(node) is not None
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            inner = node.expr
            return ((isinstance(inner, c_ast.BinaryOp) and inner.op in ("&&", "||")) or
                    (isinstance(inner, c_ast.UnaryOp) and inner.op == "!")) and \
                self.jumps_alone(inner)
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary_logical(node, truth=True) is not None
        return False
