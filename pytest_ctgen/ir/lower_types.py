"""Types and sizes while lowering: `TypeLowerer` gives the types of the operands C does
not evaluate (`sizeof`, `_Alignof`, `__typeof__`, `_Generic`) and the sizes of objects as
`size_t` values. The size of a variable length array is known at run time: each element
count is evaluated into a variable where its declarator is reached (the parameters' on
entry), and `sizeof` and pointer arithmetic over such arrays read those variables.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.ctype import (
    LONG, SIZE_T, UCHAR, ArrayType, CType, IntType, PointerType, VariableLength, has_variable_size,
    is_variably_modified)
from ..frontend.gnu_ast import GenericSelection
from ..frontend.constant_expr import generic_association
from ..frontend.unit import Function, Variable
from .cfg import Length
from .expr import (
    Binary, Cast, Const, Expr, FunctionRef, Load, PtrAdd, PtrDiff, VarRef, object_qualifiers,
    target_qualifiers_known)

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer

_BYTES = PointerType(UCHAR)  # pointer arithmetic in bytes


class TypeLowerer:
    """The types and sizes of one function body (or of static initializers)."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit
        # the variable holding each element count of a variable length array met so far
        self.lengths: dict[VariableLength, Variable] = {}

    def type_of(self, node: c_ast.Node) -> CType:
        """The type of an expression or type name, which is not evaluated."""
        if isinstance(node, c_ast.Typename):  # nor are its sizes (a variable length array's)
            return self.builder.discarding(lambda: self.exprs.resolve_type(node.type))
        return self.unevaluated(node).type

    def unevaluated(self, node: c_ast.Node) -> Expr:
        """`node` lowered without keeping anything it does (the operand of `sizeof`,
        `__typeof__`, `_Generic`): for its type, or its value when it is a constant."""
        return self.builder.discarding(lambda: self.exprs.expr(node))

    def operand_type(self, node: c_ast.Node) -> CType:
        """The type of the operand of `sizeof` or `__typeof__`: not evaluated, unless its
        type is variably modified (C11 6.5.3.4p2; gcc's typeof too): then its sizes are
        evaluated here, and an expression's side effects take place."""
        if isinstance(node, c_ast.Typename):
            return self.exprs.resolve_type(node.type)
        ctype = self.type_of(node)
        if is_variably_modified(ctype):
            return self.exprs.expr(node).type
        return ctype

    def size_expr(self, ctype: CType, node: c_ast.Node) -> Expr:
        """`sizeof` of `ctype` as a size_t: a constant, or for a variable length array the
        product of its element counts as its declarators evaluated them (C11 6.5.3.4p2)."""
        if not has_variable_size(ctype):
            return Const(SIZE_T, ctype.size)
        assert isinstance(ctype, ArrayType)
        element = self.size_expr(ctype.element, node)
        if ctype.length is None:
            return Binary("*", Const(SIZE_T, ctype.count or 0), element, SIZE_T)
        count = self.lengths.get(ctype.length)
        if count is None:
            raise self.builder.unsupported("a variable length array whose size this function "
                                           "does not evaluate", node)
        return Binary("*", Load(VarRef(count, SIZE_T), SIZE_T), element, SIZE_T)

    def length(self, value: Expr, minimum: int, node: c_ast.Node) -> Variable:
        """A new variable holding the element count `value` (an integer) evaluated here."""
        if not isinstance(value.type, IntType):
            raise CtgenError("size of array has non-integer type", self.builder.loc(node))
        var = self.builder.temp(SIZE_T, node)
        self.builder.emit(Length(var, self.exprs.promote(value), minimum,
                                 self.builder.loc(node)))
        return var

    def pointer_add(self, pointer: Expr, index: Expr, node: c_ast.Node) -> Expr:
        """`pointer + index` (`index` a long). Over a variable length array the step is
        its size at run time: the sum is taken in bytes."""
        assert isinstance(pointer.type, PointerType)
        target = pointer.type.target
        if not has_variable_size(target):
            return PtrAdd(pointer, index, pointer.type)
        step = Binary("*", index, Cast(self.size_expr(target, node), LONG), LONG)
        bytes_ = PtrAdd(Cast(pointer, _BYTES), step, _BYTES)
        return Cast(bytes_, pointer.type)

    def pointer_difference(self, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        """`left - right` in elements (a long); over variable length arrays the elements'
        size is known at run time."""
        assert isinstance(left.type, PointerType)
        target = left.type.target
        if not has_variable_size(target):
            return PtrDiff(left, right, LONG)
        difference = PtrDiff(Cast(left, _BYTES), Cast(right, _BYTES), LONG)
        return Binary("/", difference, Cast(self.size_expr(target, node), LONG), LONG)

    def generic_choice(self, node: GenericSelection) -> c_ast.Node:
        """C11 `_Generic`: the expression of the association the controlling expression's
        type selects (the controlling expression is not evaluated)."""
        e = self.unevaluated(node.expr)
        # lvalue conversion: arrays and functions decay; these types carry no qualifiers
        if isinstance(e, FunctionRef):
            operand: CType = PointerType(e.type)
            known = True
        elif e.is_lvalue and isinstance(e.type, ArrayType):
            operand = self.exprs.pointer_to(e, e.type.element)
            known = object_qualifiers(e) is not None
        else:
            operand = e.type
            known = target_qualifiers_known(Load(e, e.type) if e.is_lvalue else e)
        assert self.unit.resolver is not None
        return generic_association(self.unit.resolver, node, operand, known)

    # ------------------------------------------------ variable length arrays' sizes

    def variable_length(self, dim: c_ast.Node) -> VariableLength:
        """The size expression of a variable length array's declarator, evaluated where the
        declarator is reached (the type resolver calls this)."""
        key = VariableLength(dim)
        self.lengths[key] = self.length(self.exprs.rvalue(dim), 1, dim)
        return key

    def parameter_lengths(self, fn: Function) -> dict[Variable, int]:
        """On entry, the size expressions of the parameters' array declarators are
        evaluated, one parameter after the other, as gcc does (C11 6.9.1p10): those that
        make a parameter's type variably modified (`int m[][n]`: a pointer to arrays of n)
        give its element counts, the inner ones first; the size of an array adjusted to a
        pointer (`int a[n]`) is evaluated only for what evaluating it does. Returns the
        constant element counts the parameters declared as arrays were declared with
        (`int a[16]`: the caller passes 16 elements)."""
        declared: dict[Variable, int] = {}
        declarator = fn.definition.decl.type if fn.definition else None
        if not isinstance(declarator, c_ast.FuncDecl) or declarator.args is None:
            return declared
        params = [p for p in declarator.args.params if not isinstance(p, c_ast.EllipsisParam)]
        for param, var in zip(params, fn.params):
            keys: list[VariableLength] = []
            t = var.type
            while isinstance(t, (ArrayType, PointerType)):
                if isinstance(t, ArrayType) and t.length is not None:
                    keys.append(t.length)
                t = t.element if isinstance(t, ArrayType) else t.target
            for key in reversed(keys):
                self.lengths[key] = self.length(
                    self.parameter_size(key.expression), 1, param)
            if isinstance(param.type, c_ast.ArrayDecl) and param.type.dim is not None:
                assert self.unit.resolver is not None
                try:
                    count = self.unit.resolver.eval_int_constant(param.type.dim)
                except CtgenError:
                    self.builder.kept(self.parameter_size(param.type.dim), param.type.dim)
                else:
                    if count > 0:
                        declared[var] = count
        return declared

    def parameter_size(self, dim: c_ast.Node) -> Expr:
        """A size expression of a parameter's array declarator, for its value."""
        if isinstance(dim, c_ast.ID) and dim.name == "*":
            raise self.builder.unsupported("'[*]' outside a function prototype", dim)
        return self.exprs.rvalue(dim)
