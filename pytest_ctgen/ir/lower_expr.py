"""Lowering of C expressions: `ExpressionLowerer`, the hub of the lowering.

It lowers a pycparser expression (one `expr_<Node>` method per node kind) to a typed IR
expression, every implicit conversion made a `Cast`, and places the statements its side
effects need with the `CfgBuilder`. What has its own module it hands on: the arithmetic,
bitwise and comparison operators (ir/lower_operators.py), conditions, `?:`, `&&`, `||`
(ir/lower_cond.py, looking ahead with ir/lookahead.py), calls (ir/lower_call.py),
initializers (ir/lower_init.py), and in a function body statement expressions
(ir/lower_stmt.py) and annotations (ir/lower_contract.py).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.ctype import (
    DOUBLE, INT, LONG, SIZE_T, UINT, ArrayType, CType, EnumType, FloatType, FunctionType, IntType,
    PointerType, RecordType, VoidType, has_variable_size, integer_promotion, unmodelled_part,
    unqualified_equal)
from ..frontend.literals import float_literal, is_imaginary
from ..frontend.gnu_ast import GenericSelection
from ..frontend.unit import STATIC_LOCAL, Function, Unit, Variable
from ..frontend.constant_eval import convert_constant
from ..frontend.literals import char_literal, int_literal, string_array
from . import gccfold
from .builder import CfgBuilder
from .cfg import Assign, Block, Eval, Stmt
from .constants import fold
from .expr import (
    AddrOf, Cast, Const, Deref, Expr, FunctionRef, Load, Member, StringLit, VarRef,
    bitfield_width, may_be_undefined, object_qualifiers)
from .gccfold import Conditional
from .lookahead import Lookahead
from .lower_call import CallLowerer
from .lower_cond import ConditionLowerer
from .lower_init import InitializerLowerer
from .lower_operators import OperatorLowerer
from .lower_types import TypeLowerer

if TYPE_CHECKING:
    from .lower_contract import ContractLowerer
    from .lower_stmt import StatementLowerer

_FUNCTION_NAME_IDS = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
INT_CHAR = IntType("char", 1, 1, True, 1)


class ExpressionLowerer:
    """Lowers the expressions of one function body (`function`) or of the static
    initializers (no function), and owns the names in scope."""

    def __init__(self, unit: Unit, builder: CfgBuilder, function: Function | None) -> None:
        self.unit = unit
        self.builder = builder
        self.function = function
        self.scopes: list[dict[str, object]] = [{}]
        # the objects of the compound literals of a global's initializer, with the
        # statements that initialize each (`static_literal`)
        self.static_literals: dict[Variable, list[Stmt]] = {}
        self._modelled_types: set[CType] = set()  # checked by `check_modelled`
        self.negated: c_ast.Node | None = None  # the operand of the `!` being lowered
        # lowering an annotation (set by the ContractLowerer): no gcc shapes, `&&`, `||`
        # and `?:` are values, auxiliary variables may be used
        self.in_annotation = False
        self.types = TypeLowerer(self)
        self.lookahead = Lookahead(self)
        self.conditions = ConditionLowerer(self)
        self.calls = CallLowerer(self)
        self.initializers = InitializerLowerer(self)
        self.operators = OperatorLowerer(self)
        # what only a function body has (set by the FunctionLowerer)
        self.statements: StatementLowerer | None = None
        self.contracts: ContractLowerer | None = None

    @property
    def gcc_shapes(self) -> bool:
        """Whether expressions take the branches gcc -O0 gives them (ir/gccfold.py): in
        code of a function body, not in annotations or static initializers."""
        return self.function is not None and not self.in_annotation

    def pending_value(self, node: c_ast.Node) -> Expr:
        """`node` for its value like `rvalue`, but a gcc Conditional is left as it is for
        the operator applied to it (which may still fold it)."""
        if not self.gcc_shapes:
            return self.rvalue(node)
        return self.decay_value(self.expr(node))

    # ------------------------------------------------------------------- names

    def resolve_type(self, type_node: c_ast.Node) -> CType:
        assert self.unit.resolver is not None
        return self.unit.resolver.resolve(type_node)

    def declared(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes) or name in self.unit.globals

    def lookup(self, name: str, node: c_ast.Node) -> object:
        """What `name` (the ID `node`) names here; in a function body under the rules of
        annotations (ir/lower_contract.py)."""
        target = self.find(name, node)
        if self.contracts is not None:
            return self.contracts.named(name, target, node)
        return target

    def find(self, name: str, node: c_ast.Node) -> object:
        """The declaration `name` names in the scopes, the unit's globals, functions and
        enumerators."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.unit.globals:
            return self.unit.globals[name]
        if name in self.unit.functions:
            return self.unit.functions[name]
        enums = getattr(self.unit.resolver, "enum_constants", None) or self.unit.enum_constants
        if name in enums:
            return enums[name]
        if name in self.unit.enum_constants:
            return self.unit.enum_constants[name]
        if name in self.unit.unsupported:
            why = self.unit.unsupported[name].as_cause(self.builder.loc(node))
            raise self.builder.unsupported(f"use of '{name}', whose declaration is not "
                                           f"supported ({why})", node)
        raise CtgenError(f"'{name}' undeclared", self.builder.loc(node))

    # ---------------------------------------------------------------- conversions

    def convert(self, e: Expr, to: CType) -> Expr:
        """`e` converted as if by assignment to an object of type `to`."""
        if isinstance(to, RecordType) or isinstance(e.type, RecordType):
            return e
        if self.gcc_shapes and isinstance(to, (IntType, FloatType)):
            shaped = self.converted_truth(e, to)
            if shaped is not None:
                return shaped
        if unqualified_equal(e.type, to) and \
                isinstance(to, EnumType) == isinstance(e.type, EnumType):
            return e
        if isinstance(to, PointerType) and isinstance(e.type, PointerType):
            return Cast(e, to)
        v = fold(e) if not isinstance(to, PointerType) else None
        if v is not None and isinstance(to, (IntType, FloatType)):
            c = convert_constant(v, e.type, to)
            if c is not None:
                return Const(to, c)
        return Cast(e, to)

    def converted_truth(self, e: Expr, to: IntType | FloatType) -> Expr | None:
        """gcc's conversion of a Conditional (into its arms) or of a comparison to a
        floating type (`cmp ? 1.0 : 0.0`); None for other values."""
        if isinstance(e, Conditional):
            if e.type == to:
                return e
            return self.builder.distributed(e, lambda arm: self.convert(arm, to), to,
                                            to if isinstance(to, IntType) and to.is_bool
                                            else None)
        if isinstance(to, FloatType) and fold(e) is None and \
                gccfold.kind(e, self.builder.condition_temps) == gccfold.COMPARISON:
            return self.builder.conditional(e, Const(to, 1.0), Const(to, 0.0), to,
                                            self.builder.here, INT)
        return None

    def promote(self, e: Expr) -> Expr:
        if isinstance(e.type, IntType):
            width = bitfield_width(e)
            if width is not None and width < e.type.bits:
                # C11 6.3.1.1p2: a bit-field whose values all fit in int promotes to int
                fits_int = width < INT.bits or (width == INT.bits and e.type.signed)
                if fits_int:
                    return self.convert(e, INT)
                if width <= INT.bits:
                    return self.convert(e, UINT)
            return self.convert(e, integer_promotion(e.type))
        return e

    def truth(self, e: Expr) -> Expr:
        """A scalar in a condition; the branch is taken when it is not zero."""
        if not e.type.is_scalar:
            raise CtgenError("condition is not a scalar", None)
        return e

    # ----------------------------------------------------------------- lvalues

    def lvalue(self, node: c_ast.Node) -> Expr:
        return self.modelled(self.object_of(node), node)

    def object_of(self, node: c_ast.Node) -> Expr:
        """The lvalue `node` designates."""
        if isinstance(node, c_ast.ID):
            target = self.lookup(node.name, node)
            if isinstance(target, Variable):
                return VarRef(target, target.type)
            if isinstance(target, Function):
                return FunctionRef(target.name, target.type)
            raise CtgenError(f"'{node.name}' is not an object", self.builder.loc(node))
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.rvalue(node.expr)
            if isinstance(p.type, PointerType) and isinstance(p.type.target, FunctionType):
                if isinstance(p, AddrOf) and isinstance(p.lvalue, FunctionRef):
                    return p.lvalue  # `*f` is `f`
                return FunctionRef("", p.type.target, p)
            if not isinstance(p.type, PointerType):
                raise CtgenError("indirection of a non-pointer", self.builder.loc(node))
            return Deref(p, p.type.target)
        if isinstance(node, c_ast.ArrayRef):
            a, i = self.rvalue(node.name), self.rvalue(node.subscript)
            if not isinstance(a.type, PointerType):
                a, i = i, a
            if not isinstance(a.type, PointerType):
                raise CtgenError("subscript of a non-array", self.builder.loc(node))
            p = self.types.pointer_add(a, self.convert(i, LONG), node)
            return Deref(p, a.type.target)
        if isinstance(node, c_ast.StructRef):
            if node.type == "->":
                p = self.rvalue(node.name)
                if not isinstance(p.type, PointerType):
                    raise CtgenError("'->' on a non-pointer", self.builder.loc(node))
                base: Expr = Deref(p, p.type.target)
            else:
                base = self.lvalue(node.name)
            return self.member(base, node.field.name, node)
        if isinstance(node, c_ast.Constant) and node.type == "string":
            try:
                element, data = string_array(node.value)
            except ValueError as err:  # what gcc rejects too
                raise CtgenError(f"string literal: {err}", self.builder.loc(node)) from None
            if element.size == 1:
                element = INT_CHAR
            return StringLit(ArrayType(element, len(data) // element.size), data)
        if isinstance(node, c_ast.FuncCall):
            e = self.rvalue(node)
            if isinstance(e, Load):
                return e.lvalue
        if isinstance(node, c_ast.CompoundLiteral):
            assert self.unit.resolver is not None
            ctype = self.unit.resolver.compound_literal_type(node)
            if has_variable_size(ctype):
                raise CtgenError("compound literal of a variable length array type",
                                 self.builder.loc(node))
            if self.function is None:  # at file scope: an object of static storage
                return self.static_literal(node, ctype)
            tmp = self.builder.temp(ctype, node)
            self.builder.address_taken.add(tmp)
            self.initializers.initialize(VarRef(tmp, ctype), ctype, node.init, node)
            return VarRef(tmp, ctype)
        if isinstance(node, (c_ast.TernaryOp, c_ast.Assignment)):
            e = self.rvalue(node)
            if isinstance(e.type, RecordType) and isinstance(e, Load):
                return e.lvalue
        raise self.builder.unsupported(f"{type(node).__name__} used as an object", node)

    def static_literal(self, node: c_ast.CompoundLiteral, ctype: CType) -> Expr:
        """A compound literal in the initializer of a global (`int *p = (int[]){1, 2};`):
        an unnamed object of static storage duration (C11 6.5.2.5p5), given its contents
        by statements of its own (`static_literals`) when a path first uses it, as a
        static local is."""
        var = Variable("compound literal", ctype, STATIC_LOCAL, self.builder.loc(node), "@")
        saved = self.builder.cur
        self.builder.cur = Block(-1)
        try:
            self.initializers.initialize(VarRef(var, ctype), ctype, node.init, node)
            self.static_literals[var] = self.builder.cur.stmts
        finally:
            self.builder.cur = saved
        return VarRef(var, ctype)

    def member(self, base: Expr, name: str, node: c_ast.Node) -> Expr:
        rec = base.type
        if not isinstance(rec, RecordType) or not rec.is_complete:
            raise CtgenError(f"member '{name}' of a non-record or incomplete type",
                             self.builder.loc(node))
        while True:
            f = rec.member(name)
            if f is None:
                raise CtgenError(f"no member named '{name}' in {rec}", self.builder.loc(node))
            base = Member(base, f, f.type)
            if f.name == name:
                return base
            rec = f.type  # anonymous inner record
            assert isinstance(rec, RecordType)

    # ----------------------------------------------------------------- rvalues

    def rvalue(self, node: c_ast.Node) -> Expr:
        """Lower `node` for its value: lvalue conversion and array/function decay applied."""
        if self.function is None:  # a static initializer's, which gcc folds
            folded = self.initializers.static_constant(node)
            if folded is not None:
                return folded
        e = self.decay_value(self.expr(node))
        return self.builder.settled(e)

    def decay_value(self, e: Expr) -> Expr:
        if isinstance(e, FunctionRef):
            return e.pointer if e.pointer is not None else AddrOf(e, PointerType(e.type))
        if e.is_lvalue:
            if isinstance(e.type, ArrayType):
                if isinstance(e, VarRef):
                    self.builder.address_taken.add(e.var)
                return AddrOf(e, self.pointer_to(e, e.type.element))
            return Load(e, e.type)
        return e

    def pointer_to(self, lv: Expr, target: CType) -> PointerType:
        """The type of a pointer to (an element of) the object `lv`, with the object's
        qualifiers as far as they are known (see `object_qualifiers`)."""
        quals = object_qualifiers(lv) or (False, False)
        return PointerType(target, target_const=quals[0], target_volatile=quals[1])

    def expr(self, node: c_ast.Node) -> Expr:
        """Lower `node`; lvalues are returned as lvalues (no conversion yet)."""
        if self.in_annotation and self.contracts is not None and (
                isinstance(node, c_ast.TernaryOp) or
                (isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"))):
            return self.contracts.pure(node)  # inside an annotation, these do not branch
        method: Callable[[c_ast.Node], Expr] | None = getattr(
            self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.builder.unsupported(type(node).__name__, node)
        if getattr(node, "coord", None) is not None:
            self.builder.here = self.builder.loc(node)
        return self.modelled(method(node), node)

    def modelled(self, e: Expr, node: c_ast.Node | None) -> Expr:
        """`e`, unless its type is or holds a floating type whose values are not modelled
        (`long double`, `_Float128`, ...): then the function is not supported."""
        self.check_modelled(e.type, node)
        return e

    def check_modelled(self, ctype: CType, node: c_ast.Node | None) -> None:
        known = self._modelled_types
        if ctype in known:
            return
        part = unmodelled_part(ctype)
        if part is not None:
            raise self.builder.unsupported(f"type '{part}' ({part.unmodelled})", node)
        known.add(ctype)

    def expr_ID(self, node: c_ast.ID) -> Expr:
        if node.name in _FUNCTION_NAME_IDS and self.function is not None and \
                not self.declared(node.name):
            # the predefined `static const char __func__[] = "name"` (and gcc's spellings)
            return self.lvalue(c_ast.Constant("string", f'"{self.function.name}"', node.coord))
        target = self.lookup(node.name, node)
        if isinstance(target, tuple):
            value, ctype = target
            return Const(INT if isinstance(ctype, EnumType) else ctype, value)
        return self.lvalue(node)

    def expr_Constant(self, node: c_ast.Constant) -> Expr:
        if node.type == "string":
            return self.lvalue(node)
        if node.type == "char" or node.value.endswith("'"):  # 'ab' is an int to pycparser
            code, ctype = char_literal(node.value)
            return Const(ctype, code)
        if is_imaginary(node.value):
            raise self.builder.unsupported(
                f"imaginary constant '{node.value}' (complex arithmetic)", node)
        if node.type in ("float", "double", "long double"):
            value, ftype = float_literal(node.value)
            return Const(ftype, value)
        try:
            ivalue, itype = int_literal(node.value)
        except ValueError:
            value, ftype = float_literal(node.value)
            return Const(ftype, value)
        return Const(itype, ivalue)

    def expr_ArrayRef(self, node: c_ast.Node) -> Expr:
        return self.lvalue(node)

    def expr_StructRef(self, node: c_ast.Node) -> Expr:
        return self.lvalue(node)

    def expr_Cast(self, node: c_ast.Cast) -> Expr:
        to = self.resolve_type(node.to_type.type)
        if isinstance(to, VoidType):
            self.effect(node.expr)
            return Const(INT, 0)
        e = self.pending_value(node.expr)
        if isinstance(to, RecordType):
            raise self.builder.unsupported("cast to a struct or union", node)
        if isinstance(e.type, RecordType):
            raise self.builder.unsupported("cast of a struct or union", node)
        if isinstance(to, PointerType) or isinstance(e.type, PointerType):
            return Cast(self.builder.settled(e), to)
        if isinstance(e, Conditional) or not unqualified_equal(e.type, to):
            return self.convert(e, to)
        return Cast(e, to)

    def expr_UnaryOp(self, node: c_ast.UnaryOp) -> Expr:
        op = node.op
        if op == "sizeof":
            return self.types.size_expr(self.types.operand_type(node.expr), node)
        if op == "_Alignof":
            return Const(SIZE_T, self.types.type_of(node.expr).align)
        if op == "&":
            lv = self.lvalue(node.expr)
            if isinstance(lv, FunctionRef):
                return self.decay_value(lv)
            if isinstance(lv, Member) and lv.field.is_bitfield:
                raise CtgenError("cannot take the address of a bit-field",
                                 self.builder.loc(node))
            self.mark_address_taken(lv)
            return AddrOf(lv, self.pointer_to(lv, lv.type))
        if op == "*":
            return self.lvalue(node)
        if op == "&&":  # GNU `&&label`
            raise self.builder.unsupported(
                f"address of the label '{node.expr.name}' (computed goto)", node)
        if op in ("++", "--", "p++", "p--"):
            return self.increment(node, value_used=True)
        saved, self.negated = self.negated, node.expr if op == "!" else None
        try:
            e = self.pending_value(node.expr)
        finally:
            self.negated = saved
        if op == "+":
            return self.promote(e)
        if op in ("!", "-", "~"):
            return self.operators.unary(op, e)
        raise self.builder.unsupported(f"unary operator {op}", node)

    def mark_address_taken(self, lv: Expr) -> None:
        while isinstance(lv, Member):
            lv = lv.base
        if isinstance(lv, VarRef):
            self.builder.address_taken.add(lv.var)

    # ------------------------------------------------------------ types and sizes

    def expr_GenericSelection(self, node: GenericSelection) -> Expr:
        return self.expr(self.types.generic_choice(node))

    # ---------------------------------------------------------------- operators

    def expr_BinaryOp(self, node: c_ast.BinaryOp) -> Expr:
        op = node.op
        if op in ("&&", "||"):
            return self.conditions.materialize_condition(node)
        if self.gcc_shapes:
            ternary = self.lookahead.distributed_ternary(node)
            if ternary is not None:
                return self.expr_TernaryOp(ternary)
            if node is not self.negated:  # `!(abs(x) < c)` is `abs(x) >= c`
                found = self.lookahead.abs_comparison(node)
                if found is not None:
                    return self.conditions.truth_temporary(
                        lambda yes, no: self.conditions.abs_branches(found, yes, no, node),
                        node)
        left = self.pending_value(node.left)
        right = self.pending_value(node.right)
        return self.operators.binary(op, left, right, node)

    def expr_Assignment(self, node: c_ast.Assignment) -> Expr:
        target = self.assign(node)
        return Load(target, target.type)

    def assign(self, node: c_ast.Assignment) -> Expr:
        """Lower an assignment; returns the assigned lvalue."""
        return self.assignment(node)[0]

    def assignment(self, node: c_ast.Assignment) -> tuple[Expr, Expr]:
        """Lower an assignment; returns the assigned lvalue and the value stored."""
        target = self.lvalue(node.lvalue)
        if node.op == "=":
            value = self.rvalue(node.rvalue)
            if not isinstance(target.type, RecordType):
                value = self.convert(value, target.type)
        else:
            current = self.decay_value(target)
            rhs = self.rvalue(node.rvalue)
            value = self.convert(self.operators.binary(node.op[:-1], current, rhs, node),
                                 target.type)
        stmt = Assign(target, value, self.builder.loc(node))
        self.builder.emit(stmt)
        return target, stmt.value

    def increment(self, node: c_ast.UnaryOp, value_used: bool) -> Expr:
        target = self.lvalue(node.expr)
        op = "+" if "+" in node.op else "-"
        current = Load(target, target.type)
        old: Expr = current
        if node.op.startswith("p") and value_used:
            old = self.builder.kept(current, node)
        one = Const(INT, 1)
        if isinstance(target.type, FloatType):
            one = Const(DOUBLE, 1.0)
        new = self.operators.binary(op, current, one, node)
        self.builder.emit(Assign(target, self.convert(new, target.type),
                                 self.builder.loc(node)))
        if node.op.startswith("p"):
            return old
        return Load(target, target.type)

    def expr_ExprList(self, node: c_ast.ExprList) -> Expr:
        for e in node.exprs[:-1]:
            self.effect(e)
        return self.expr(node.exprs[-1])

    def expr_Compound(self, node: c_ast.Compound) -> Expr:
        """A GNU statement expression `({ ...; e; })` (ir/lower_stmt.py)."""
        if self.statements is None:
            raise self.builder.unsupported("statement expression outside a function body",
                                           node)
        return self.statements.statement_expression(node)

    def expr_TernaryOp(self, node: c_ast.TernaryOp) -> Expr:
        return self.conditions.ternary_value(node)

    def expr_FuncCall(self, node: c_ast.FuncCall) -> Expr:
        result = self.calls.call(node, value_used=True)
        if result is None:
            return Const(INT, 0)  # value of a void call, never used by valid C
        return result

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> Expr:
        return self.lvalue(node)

    # ---------------------------------------------------------------- effects

    def effect(self, node: c_ast.Node) -> None:
        """Lower an expression evaluated only for its side effects."""
        if isinstance(node, c_ast.Assignment):
            self.assign(node)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.increment(node, value_used=False)
        elif isinstance(node, c_ast.FuncCall):
            self.calls.call(node, value_used=False)
        elif isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                self.effect(e)
        elif isinstance(node, c_ast.Cast):
            self.effect(node.expr)
        elif isinstance(node, c_ast.Compound):  # a GNU statement expression, value unused
            if self.statements is None:
                raise self.builder.unsupported("statement expression outside a function body",
                                               node)
            self.statements.stmt_Compound(node)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            self.conditions.logical_effect(node)
        elif isinstance(node, c_ast.TernaryOp):
            self.conditions.ternary_effect(node)
        else:
            self.discarded(self.rvalue(node), node)

    def discarded(self, value: Expr, node: c_ast.Node) -> None:
        """`value`, computed only to be dropped: gcc -O0 computes none of it (its side
        effects are lowered before it), except that a volatile object is read. What C says
        may be undefined in it is kept as an `Eval` (C11 6.8.3p2: it is evaluated)."""
        if isinstance(value, Load) and (object_qualifiers(value.lvalue) or (False, False))[1]:
            self.builder.kept(value, node)
        elif may_be_undefined(value):
            self.builder.emit(Eval(value, self.builder.loc(node)))
