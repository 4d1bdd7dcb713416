"""Lowering of calls: `CallLowerer` tells a call of a gcc builtin (ir/lower_builtin.py)
from a call of a function of the unit or of a stub, and a call through a function pointer;
it converts the arguments and passes variadic ones in an area the callee's `va_arg` reads.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.builtins import (
    ALLOCA_BUILTINS, ATOMIC_BUILTINS, BIT_BUILTINS, FLOAT_CONSTANT_BUILTINS, LIBRARY_BUILTINS,
    OVERFLOW_BUILTINS)
from ..frontend.ctype import (
    DOUBLE, INT, LONG, SIZE_T, UCHAR, ArrayType, FloatType, FunctionType, PointerType, RecordType,
    VoidType)
from ..frontend.gnu_ast import (
    ASM_MARKER, CHOOSE_EXPR, COMPLEX_PARTS, TYPES_COMPATIBLE, GenericSelection)
from ..frontend.preprocess import VA_ARG_MARKER
from ..frontend.constant_expr import types_compatible
from ..frontend.unit import Variable
from .cfg import Assign, Call
from .constants import fold
from .expr import CLASSIFY_BUILTINS, AddrOf, Const, Deref, Expr, FunctionRef, Load, PtrAdd, VarRef
from .lower_builtin import BuiltinLowerer, variadic_slot
from .lower_contract import INITIAL_ID

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer

# Builtins whose value is their first argument (hints to the optimizer only).
_TRANSPARENT_BUILTINS = {"__builtin_expect": 0, "__builtin_expect_with_probability": 0}
#: What <stdarg.h>'s macros reach the lowering as (va_arg: see frontend/preprocess.py).
_VARIADIC_BUILTINS = frozenset({"__builtin_va_start", "__builtin_va_end",
                                "__builtin_va_copy", "__builtin_c23_va_start", VA_ARG_MARKER})


class CallLowerer:
    """The calls of one function body (or static initializer)."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit
        self.builtins = BuiltinLowerer(exprs)

    def call(self, node: c_ast.FuncCall, value_used: bool) -> Expr | None:
        """The call `node`: its value, None for a void call or one whose value is unused."""
        if self.exprs.contracts is not None and isinstance(node.name, c_ast.ID) and \
                node.name.name == INITIAL_ID:  # an annotation's `__rtt_initial(e)`
            return self.exprs.contracts.initial(node)
        callee = self.callee(node)
        if not isinstance(callee, str):
            return self.indirect_call(callee, node, value_used)
        args_nodes = node.args.exprs if node.args is not None else []
        return self.named_call(callee, args_nodes, node, value_used)

    def callee(self, node: c_ast.FuncCall) -> str | Expr:
        """The name of the function `node` calls, or the function pointer it calls
        through."""
        callee = node.name
        while True:  # `_Generic((x), int: abs, long: labs)(x)` calls a function by name
            if isinstance(callee, GenericSelection):
                callee = self.exprs.types.generic_choice(callee)
            elif isinstance(callee, c_ast.FuncCall) and isinstance(callee.name, c_ast.ID) \
                    and callee.name.name == CHOOSE_EXPR and callee.args is not None:
                callee = self.builtins.chosen(callee.args.exprs, callee)
            else:
                break
        if isinstance(callee, c_ast.ID) and not (
                self.exprs.declared(callee.name) and
                isinstance(self.exprs.lookup(callee.name, node), Variable)):
            return callee.name
        pointer = self.exprs.rvalue(callee)
        if not (isinstance(pointer, AddrOf) and isinstance(pointer.lvalue, FunctionRef)):
            return pointer
        return pointer.lvalue.name  # `(*f)(x)`, `(&f)(x)`: a call of `f`

    def named_call(self, name: str, args_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                   value_used: bool) -> Expr | None:
        """A call of `name`: a gcc builtin's (ir/lower_builtin.py), unless the unit
        defines a function of that name, else a call of a function (`function_call`)."""
        if name == ASM_MARKER:  # a GNU asm statement (frontend/parse.py)
            if fold(self.exprs.rvalue(args_nodes[0])):
                raise self.builder.unsupported("inline assembly with operands", node)
            return None  # an instruction or barrier that reads and writes no C object
        assert self.unit.resolver is not None
        if name == TYPES_COMPATIBLE:
            return Const(INT, types_compatible(self.unit.resolver, node))
        if name == CHOOSE_EXPR:
            return self.builtins.choose_expr(args_nodes, node, value_used)
        if name == "offsetof":  # pycparser's spelling of `__builtin_offsetof`
            offset, _ = self.unit.resolver.constant(node)
            return Const(SIZE_T, offset)
        if name in COMPLEX_PARTS:
            raise self.builder.unsupported(f"{name} (complex arithmetic)", node)
        if name in _TRANSPARENT_BUILTINS:
            for extra in args_nodes[1:]:
                self.exprs.effect(extra)
            return self.exprs.rvalue(args_nodes[_TRANSPARENT_BUILTINS[name]])
        if name in CLASSIFY_BUILTINS:
            return self.builtins.classify(name, args_nodes, node)
        defined = self.unit.functions.get(name)
        if name in ALLOCA_BUILTINS and (defined is None or not defined.is_defined):
            return self.builtins.alloca(args_nodes, node)
        if name not in self.unit.functions:  # gcc's builtins, unless the unit defines one
            if name in BIT_BUILTINS:
                return self.builtins.bit_builtin(name, args_nodes, node)
            if name in OVERFLOW_BUILTINS:
                return self.builtins.overflow_builtin(name, args_nodes, node)
            if name in ATOMIC_BUILTINS:
                return self.builtins.atomic_builtin(name, args_nodes, node)
            if name in FLOAT_CONSTANT_BUILTINS:
                return self.builtins.float_constant(name, args_nodes, node)
            if name == "__builtin_constant_p":
                if len(args_nodes) != 1:
                    raise CtgenError(f"{name} takes one argument", self.builder.loc(node))
                return Const(INT, 1 if self.builtins.is_constant(args_nodes[0]) else 0)
            if name in _VARIADIC_BUILTINS:
                return self.builtins.variadic_builtin(name, args_nodes, node)
            plain = name.removeprefix("__builtin_")
            if plain in LIBRARY_BUILTINS and plain in self.unit.functions:
                name = plain  # __builtin_memcpy is memcpy, as declared by <string.h>
        return self.function_call(name, args_nodes, node, value_used)

    def function_call(self, name: str, args_nodes: list[c_ast.Node], node: c_ast.FuncCall,
                      value_used: bool) -> Expr | None:
        """A call of the function `name`, defined in the unit or a stub, its arguments
        converted; variadic arguments of a defined function are passed in an area."""
        fn = self.unit.functions.get(name)
        skipped = any(d.name == name for d in self.unit.skipped_definitions)
        if (fn is None or skipped) and name in self.unit.unsupported:  # never a stub
            why = self.unit.unsupported[name].as_cause(self.builder.loc(node))
            raise self.builder.unsupported(f"call of '{name}', whose declaration is not "
                                           f"supported ({why})", node)
        if fn is None:
            try:
                target = self.exprs.lookup(name, node)
            except CtgenError:
                if name.startswith("__builtin_"):
                    raise self.builder.unsupported(f"gcc builtin '{name}'", node) from None
                raise CtgenError(f"implicit declaration of function '{name}'",
                                 self.builder.loc(node)) from None
            raise CtgenError(f"'{name}' is not a function", self.builder.loc(node))
        ftype = fn.type
        self.exprs.check_modelled(ftype, node)
        if not ftype.variadic and len(args_nodes) != len(ftype.params) and not (
                len(ftype.params) == 0):
            raise CtgenError(f"wrong number of arguments to '{name}'", self.builder.loc(node))
        args = self.arguments(ftype, args_nodes)
        if ftype.variadic and fn.is_defined:  # its va_start finds the rest in an area
            args[len(ftype.params):] = [self.variadic_arguments(args[len(ftype.params):], node)]
        target = self.call_result(ftype, node, value_used)
        self.builder.emit(Call(target, name, args, self.builder.loc(node)))
        return None if target is None else Load(target, target.type)

    def call_result(self, ftype: FunctionType, node: c_ast.Node, value_used: bool
                    ) -> VarRef | None:
        """The temporary a call's result goes to (None when there is none or it is unused);
        a struct result lives in memory."""
        if isinstance(ftype.result, VoidType) or not value_used:
            return None
        t = self.builder.temp(ftype.result, node)
        if isinstance(ftype.result, RecordType):
            self.builder.address_taken.add(t)
        return VarRef(t, t.type)

    def arguments(self, ftype: FunctionType, nodes: list[c_ast.Node]) -> list[Expr]:
        """The arguments of a call of a function of type `ftype`: converted to the types
        of its parameters, the others (variadic, or of an unprototyped function) promoted.
        They are evaluated last to first, as gcc does (C leaves the order unspecified):
        `put(g(1), g(2))` calls g(2) first."""
        args: list[Expr] = []
        for i, a in reversed(list(enumerate(nodes))):
            v = self.exprs.rvalue(a)
            if i < len(ftype.params):
                v = self.exprs.convert(v, ftype.params[i])
            elif isinstance(v.type, FloatType):
                v = self.exprs.convert(v, DOUBLE)
            else:
                v = self.exprs.promote(v)
            args.append(v)
        return args[::-1]

    def indirect_call(self, callee: Expr, node: c_ast.FuncCall, value_used: bool
                      ) -> Expr | None:
        """A call through the function pointer `callee`: which function it calls is
        decided where the call is executed."""
        ptype = callee.type
        if not isinstance(ptype, PointerType) or not isinstance(ptype.target, FunctionType):
            raise CtgenError("called object is not a function or function pointer",
                             self.builder.loc(node))
        ftype = ptype.target
        self.exprs.check_modelled(ftype, node)
        if ftype.variadic:
            raise self.builder.unsupported("call through a function pointer of a variadic type",
                                           node)
        args_nodes = node.args.exprs if node.args is not None else []
        if ftype.params and len(args_nodes) != len(ftype.params):
            raise CtgenError("wrong number of arguments in a call through a function "
                             "pointer", self.builder.loc(node))
        args = self.arguments(ftype, args_nodes)
        target = self.call_result(ftype, node, value_used)
        self.builder.emit(Call(target, "", args, self.builder.loc(node), callee))
        return None if target is None else Load(target, target.type)

    def variadic_arguments(self, values: list[Expr], node: c_ast.Node) -> Expr:
        """The address of a new area holding the (promoted) variadic arguments of a call,
        one after the other in `variadic_slot`s, for the callee's `va_arg` to read."""
        loc = self.builder.loc(node)
        total = sum(variadic_slot(v.type.size) for v in values)
        area = self.builder.temp(ArrayType(UCHAR, max(total, 8)), node)
        self.builder.address_taken.add(area)
        start = AddrOf(VarRef(area, area.type), PointerType(UCHAR))
        offset = 0
        for value in values:
            slot = self.exprs.convert(PtrAdd(start, Const(LONG, offset), start.type),
                                      PointerType(value.type))
            self.builder.emit(Assign(Deref(slot, value.type), value, loc))
            offset += variadic_slot(value.type.size)
        return start
