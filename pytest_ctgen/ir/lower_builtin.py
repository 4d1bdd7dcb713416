"""Lowering of gcc's builtins (frontend/builtins.py names them): `BuiltinLowerer` gives
the bit, overflow, atomic and classification builtins, `alloca`, `__builtin_constant_p`,
`__builtin_choose_expr`, the float constants and <stdarg.h>'s `va_*` their C semantics in
IR statements and expressions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.builtins import (
    ATOMIC_BUILTINS, ATOMIC_SHAPES, BIT_BUILTINS, FLOAT_CONSTANT_BUILTINS, GENERIC,
    OVERFLOW_BUILTINS, AtomicKind)
from ..frontend.ctype import (
    BOOL, DOUBLE, INT, LONG, SIZE_T, UCHAR, UINT, VOID, ArrayType, CType, EnumType, FloatType,
    IntType, PointerType, VariableLength, unsigned_of)
from ..frontend.gnu_ast import CHOOSE_EXPR
from ..frontend.preprocess import VA_ARG_MARKER
from ..frontend.unit import PARAM, Variable
from .cfg import Assign, Init
from ..frontend.literals import string_bytes
from .constants import fold
from .expr import (
    AddrOf, Binary, BitOp, Cast, Classify, Const, Deref, Expr, Load, OverflowFlag, PtrAdd, Select,
    Unary, VarRef)

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer


def _plain_integer(t: CType | None) -> bool:
    """An integer type the overflow and atomic builtins take: neither _Bool nor an enum."""
    return isinstance(t, IntType) and not isinstance(t, EnumType) and not t.is_bool


def variadic_slot(size: int) -> int:
    """Bytes a variadic argument of `size` bytes takes in the area a caller passes
    (`variadic_arguments`): whole 8-byte words, as in the x86-64 ABI's overflow area.
    Caller and callee agree on it, so `va_arg` reads what the call passed."""
    return max(8, (size + 7) // 8 * 8)


class BuiltinLowerer:
    """The calls of gcc builtins in one function body (or static initializer)."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit
        self.variadic_area: Variable | None = None  # set by the first va_start

    def choose_expr(self, args: list[c_ast.Node], node: c_ast.Node, value_used: bool
                    ) -> Expr | None:
        """GNU `__builtin_choose_expr(constant, a, b)`: `a` when the constant is not 0,
        else `b`, with its own type; the other is not evaluated."""
        chosen = self.chosen(args, node)
        if value_used:
            return self.exprs.expr(chosen)
        self.exprs.effect(chosen)
        return None

    def chosen(self, args: list[c_ast.Node], node: c_ast.Node) -> c_ast.Node:
        """The operand `__builtin_choose_expr(constant, a, b)` stands for."""
        if len(args) != 3:
            raise CtgenError(f"{CHOOSE_EXPR} takes three arguments", self.builder.loc(node))
        condition = fold(self.exprs.types.unevaluated(args[0]))
        if not isinstance(condition, int):
            raise CtgenError(f"the first argument of {CHOOSE_EXPR} is not an integer "
                             "constant", self.builder.loc(args[0]))
        return args[1] if condition else args[2]

    def is_constant(self, node: c_ast.Node) -> bool:
        """`__builtin_constant_p` at -O0: true for a constant expression of C (a literal,
        enumerators, sizeof, a string, a constant cast to a pointer), false for anything
        that reads an object, even a const one. gcc folds a little more (`x * 0` is
        constant to it); those answers differ. The operand is not evaluated."""
        while isinstance(node, c_ast.Cast):
            node = node.expr
        if isinstance(node, c_ast.Constant):
            return True
        if isinstance(node, c_ast.ID):
            try:
                target = self.exprs.find(node.name, node)
            except CtgenError:
                return False
            if isinstance(target, Variable):
                return False  # an object, even a const one, or a local over an enumerator
        assert self.unit.resolver is not None
        try:
            self.unit.resolver.constant(node)
        except CtgenError:
            return False
        return True

    def float_constant(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """The builtins behind INFINITY, HUGE_VAL and NAN: their value; the NaN is that of
        `__builtin_nan("")`, the quiet one (another payload is not modelled)."""
        ftype, value = FLOAT_CONSTANT_BUILTINS[name]
        given = [string_bytes(a.value) if isinstance(a, c_ast.Constant) and
                 a.type == "string" else None for a in args]
        if given != ([b"\0"] if value != value else []):
            raise self.builder.unsupported(f"{name} with these arguments", node)
        return self.exprs.modelled(Const(ftype, value), node)

    def alloca(self, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """`alloca(size)`: the address of a new object of `size` bytes in the caller's
        frame (it lives until the function returns), made as a variable length array of
        unsigned char is; a size of 0 is allowed."""
        if len(args) != 1:
            raise CtgenError("alloca takes one argument", self.builder.loc(node))
        size = self.exprs.convert(self.exprs.rvalue(args[0]), SIZE_T)
        key = VariableLength(args[0])
        types = self.exprs.types
        types.lengths[key] = types.length(size, 0, node)
        ctype = ArrayType(UCHAR, None, key)
        area = self.builder.temp(ctype, node)
        self.builder.address_taken.add(area)
        self.builder.emit(Init(area, self.builder.loc(node), types.size_expr(ctype, node)))
        return Cast(AddrOf(VarRef(area, ctype), PointerType(UCHAR)), PointerType(VOID))

    def bit_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """A GCC bit builtin (frontend/builtins.py) on its converted operand."""
        builtin = BIT_BUILTINS[name]
        if len(args) != 1:
            raise CtgenError(f"{name} takes one argument", self.builder.loc(node))
        operand = self.exprs.convert(self.exprs.rvalue(args[0]), builtin.argument)
        return BitOp(builtin.operation, operand, builtin.result)

    def overflow_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """`__builtin_add_overflow(a, b, &r)` and kin: whether the mathematical result
        fits in r's type is taken first (r may be a or b), then r gets it wrapped."""
        if len(args) != 3:
            raise CtgenError(f"{name} takes three arguments", self.builder.loc(node))
        left, right, pointer = (self.exprs.rvalue(a) for a in args)
        target = pointer.type.target if isinstance(pointer.type, PointerType) else None
        if not all(_plain_integer(t) for t in (left.type, right.type, target)):
            raise CtgenError(f"{name} takes two integers and a pointer to an integer "
                             "that is neither _Bool nor an enum", self.builder.loc(node))
        assert isinstance(target, IntType)
        op = OVERFLOW_BUILTINS[name]
        flag = self.builder.kept(OverflowFlag(op, left, right, target, BOOL), node)
        self.builder.emit(Assign(Deref(pointer, target), self.wrapped(op, left, right, target),
                         self.builder.loc(node)))
        return flag

    def wrapped(self, op: str, left: Expr, right: Expr, target: IntType) -> Expr:
        """`left op right` wrapped to `target`, as the overflow and atomic builtins compute
        it: in an unsigned type of at least int's rank, so it is never undefined; `~&` is
        the atomic builtins' nand."""
        wide = unsigned_of(target) if target.bits >= UINT.bits else UINT
        a, b = self.exprs.convert(left, wide), self.exprs.convert(right, wide)
        if op == "~&":
            result: Expr = Unary("~", Binary("&", a, b, wide), wide)
        else:
            result = Binary(op, a, b, wide)
        return self.exprs.convert(result, target)

    def atomic_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node
                       ) -> Expr | None:
        """An `__atomic_*` or `__sync_*` builtin on an integer object (or a pointer, for
        loads, stores and exchanges), as one thread runs it: the arguments first, then the
        object is read once and written once; arithmetic wraps."""
        kind, op = ATOMIC_BUILTINS[name]
        shape = ATOMIC_SHAPES[kind]
        generic = op == GENERIC
        returned_through = 1 if generic and kind in ("load", "exchange") else 0
        arity = shape.atomic_arity + returned_through if name.startswith("__atomic") \
            else shape.sync_arity
        if len(args) != arity:
            raise CtgenError(f"{name} takes {arity} arguments", self.builder.loc(node))
        if kind == "fence":
            for a in args:
                self.exprs.effect(a)
            return None
        if kind in ("test_and_set", "clear"):
            return self.atomic_flag(kind, args, node)
        obj = self.pinned_target(args[0], node)
        target = obj.type
        moved_only = kind in ("load", "store", "exchange")
        if not (_plain_integer(target) or (moved_only and isinstance(target, PointerType))):
            raise self.builder.unsupported(f"{name} on an object that is not an integer", node)

        def value(arg: c_ast.Node) -> Expr:
            if generic:  # passed by address
                return Load(self.pinned_target(arg, node, target), target)
            return self.exprs.convert(self.exprs.rvalue(arg), target)

        expected: Expr | None = None
        if kind == "compare_exchange":  # (p, &expected, desired, weak, order, order)
            expected = self.pinned_target(args[1], node, target)
            operands = [Load(expected, target), value(args[2])]
        else:
            operands = [value(a) for a in args[1:1 + shape.values]]
        returned: Expr | None = None
        if returned_through:
            returned = self.pinned_target(args[1 + shape.values], node, target)
        for a in args[1 + shape.values + returned_through:]:
            self.exprs.effect(a)  # memory orders, `weak`
        return self.atomic_access(kind, op, obj, operands, expected, returned, node)

    def atomic_flag(self, kind: AtomicKind, args: list[c_ast.Node], node: c_ast.Node
                    ) -> Expr | None:
        """`__atomic_test_and_set` and `__atomic_clear`: on the byte at the address,
        whatever its type."""
        loc = self.builder.loc(node)
        byte = self.pinned_target(args[0], node, UCHAR)
        self.exprs.effect(args[1])
        if kind == "clear":
            self.builder.emit(Assign(byte, Const(UCHAR, 0), loc))
            return None
        was = self.builder.kept(Load(byte, UCHAR), node)
        self.builder.emit(Assign(byte, Const(UCHAR, 1), loc))
        return self.exprs.convert(was, BOOL)

    def atomic_access(self, kind: AtomicKind, op: str, obj: Expr, operands: list[Expr],
                      expected: Expr | None, returned: Expr | None, node: c_ast.Node
                      ) -> Expr | None:
        """The one read and one write of the object `obj` of an atomic builtin of `kind`
        whose `operands` are evaluated; `expected` is the object a compare-exchange
        reports to, `returned` the one a generic load or exchange returns through."""
        loc = self.builder.loc(node)
        target = obj.type
        old_value = self.builder.kept(Load(obj, target), node)
        if kind == "release":
            self.builder.emit(Assign(obj, Const(target, 0), loc))
            return None
        if kind == "store":
            self.builder.emit(Assign(obj, operands[0], loc))
            return None
        if kind in ("load", "exchange"):
            if kind == "exchange":
                self.builder.emit(Assign(obj, operands[0], loc))
            if returned is not None:
                self.builder.emit(Assign(returned, old_value, loc))
                return None
            return old_value
        assert isinstance(target, IntType)
        if kind in ("fetch", "update"):
            new = self.builder.kept(self.wrapped(op, old_value, operands[0], target), node)
            self.builder.emit(Assign(obj, new, loc))
            return old_value if kind == "fetch" else new
        # compare and swap: the object gets the desired value where it held the expected
        same = self.builder.kept(Binary("==", old_value, operands[0], INT), node)
        self.builder.emit(Assign(obj, Select(same, operands[1], old_value, target), loc))
        if expected is not None:  # a failed exchange tells what the object held
            self.builder.emit(Assign(
                expected, Select(same, Load(expected, target), old_value, target), loc))
        if kind == "value_cas":
            return old_value
        return self.exprs.convert(same, BOOL)

    def pinned_target(self, pointer_node: c_ast.Node, node: c_ast.Node,
                      as_type: CType | None = None) -> Expr:
        """`*p` for the pointer argument `p`, evaluated once into a temporary so that
        later reads and writes of the object do not evaluate it again; with `as_type`, the
        object at that address read as that type (a generic atomic builtin's operands)."""
        pointer = self.exprs.rvalue(pointer_node)
        if not isinstance(pointer.type, PointerType):
            raise CtgenError("an atomic builtin takes a pointer to the object",
                             self.builder.loc(node))
        address = self.builder.kept(pointer, node)
        if as_type is None:
            return Deref(address, pointer.type.target)
        return Deref(self.exprs.convert(address, PointerType(as_type)), as_type)

    def classify(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """A <math.h> classification macro's builtin, on the operand's own type."""
        results: tuple[int, ...] = ()
        if name == "__builtin_fpclassify":
            if len(args) != 6:
                raise CtgenError("__builtin_fpclassify takes 6 arguments",
                                 self.builder.loc(node))
            values = [fold(self.exprs.rvalue(a)) for a in args[:5]]
            results = tuple(int(v) for v in values if isinstance(v, int))
            if len(results) != len(values):
                raise self.builder.unsupported("__builtin_fpclassify with non-constant results",
                                               node)
            args = args[5:]
        if len(args) != 1:
            raise CtgenError(f"{name} takes one argument", self.builder.loc(node))
        operand = self.exprs.rvalue(args[0])
        if not isinstance(operand.type, FloatType):
            operand = self.exprs.convert(operand, DOUBLE)
        if self.exprs.gcc_shapes and fold(operand) is None and \
                name in ("__builtin_fpclassify", "__builtin_isinf_sign"):
            return self.classification(name, operand, results, node)
        return Classify(name.removesuffix("f").removesuffix("l") if "signbit" in name
                        else name, operand, INT, results)

    def classification(self, name: str, x: Expr, results: tuple[int, ...],
                       node: c_ast.Node) -> Expr:
        """`__builtin_fpclassify` and `__builtin_isinf_sign` as gcc expands them: a
        conditional per test (NaN, infinite, normal, zero; infinite, sign)."""
        loc = self.builder.loc(node)

        def test(what: str) -> Expr:
            return Classify(f"__builtin_{what}", x, INT)

        def choice(condition: Expr, then: Expr, otherwise: Expr) -> Expr:
            return self.builder.conditional(condition, then, otherwise, INT, loc, INT)

        if name == "__builtin_isinf_sign":
            sign = choice(test("signbit"), Const(INT, -1), Const(INT, 1))
            return choice(test("isinf"), sign, Const(INT, 0))
        nan, infinite, normal, subnormal, zero = (Const(INT, r) for r in results)
        is_zero = Binary("==", x, Const(x.type, 0.0), INT)
        finite = choice(test("isnormal"), normal, choice(is_zero, zero, subnormal))
        return choice(test("isnan"), nan, choice(test("isinf"), infinite, finite))

    def variadic_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node
                         ) -> Expr | None:
        """<stdarg.h>'s `va_start`, `va_arg`, `va_copy` and `va_end`; only a function
        body has variadic arguments. A `va_list` is a pointer into the area of variadic
        arguments the caller passed (`variadic_arguments`): `va_start` points it at the
        first, `va_arg` reads the argument it points at and moves it to the next slot."""
        function = self.exprs.function
        if function is None:
            raise self.builder.unsupported("variadic arguments outside a function body", node)
        loc = self.builder.loc(node)
        bytes_pointer = PointerType(UCHAR)
        if name == VA_ARG_MARKER:  # (&ap, sizeof(T)): the address of the argument to read
            ap = self.pinned_target(args[0], node)
            size = fold(self.exprs.rvalue(args[1]))
            if not isinstance(size, int):
                raise self.builder.unsupported("va_arg of a variably modified type", node)
            current = self.builder.kept(self.exprs.convert(Load(ap, ap.type), bytes_pointer),
                                        node)
            moved = PtrAdd(current, Const(LONG, variadic_slot(size)), bytes_pointer)
            self.builder.emit(Assign(ap, self.exprs.convert(moved, ap.type), loc))
            return current
        if name == "__builtin_va_end":
            self.exprs.effect(args[0])
            return None
        target = self.exprs.lvalue(args[0])
        if name == "__builtin_va_copy":
            value = self.exprs.convert(self.exprs.rvalue(args[1]), target.type)
            self.builder.emit(Assign(target, value, loc))
            return None
        if not function.type.variadic:  # va_start; its second argument is not evaluated
            raise CtgenError("va_start used in a function with fixed arguments", loc)
        if self.variadic_area is None:
            self.variadic_area = Variable("ctgen.va_area", bytes_pointer, PARAM,
                                          function.location, "@")
        area = VarRef(self.variadic_area, bytes_pointer)
        start = self.exprs.convert(Load(area, bytes_pointer), target.type)
        self.builder.emit(Assign(target, start, loc))
        return None
