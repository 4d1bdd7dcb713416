"""Typed, side-effect-free expressions of the IR.

Lowering makes every implicit C conversion explicit: integer promotions, usual arithmetic
conversions, conversions on assignment and argument passing all appear as `Cast` nodes, so
the operands of a `Binary` node always have the type the operation is carried out in, and
`Binary.type` is the result type. Side effects and calls never appear here, and in function
bodies neither do `&&`, `||` and `?:`: they are statements and branches of the CFG. Only the
conditions of annotations, which are no code of the unit, keep them as `Logical` and `Select`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import TYPE_CHECKING

from ..frontend.ctype import ArrayType, CType, Field, IntType, PointerType
from ..frontend.unit import Variable

if TYPE_CHECKING:
    from .cfg import Stmt, Terminator

ARITHMETIC_OPS = ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>")
COMPARISON_OPS = ("==", "!=", "<", "<=", ">", ">=")


class Expr:
    """Base of IR expressions. `type` is the C type of the value."""

    type: CType
    is_lvalue: bool = False


@dataclass(frozen=True, eq=False)
class Const(Expr):
    """An arithmetic constant; `value` is an int for integer types and a Python float holding
    the exact value (already rounded to float precision for `float`) otherwise."""

    type: CType
    value: int | float


@dataclass(frozen=True, eq=False)
class StringLit(Expr):
    """A string literal: an unnamed array object (lvalue) of `char`, or of the `wchar_t`,
    `char16_t` or `char32_t` of a wide literal (`L"..."`, `u"..."`, `U"..."`)."""

    type: CType
    data: bytes  # the array's bytes, little-endian elements, the terminating 0 included
    is_lvalue = True


@dataclass(frozen=True, eq=False)
class VarRef(Expr):
    """The object of a variable (lvalue)."""

    var: Variable
    type: CType
    is_lvalue = True


@dataclass(frozen=True, eq=False)
class Deref(Expr):
    """`*pointer` (lvalue)."""

    pointer: Expr
    type: CType
    is_lvalue = True


@dataclass(frozen=True, eq=False)
class Member(Expr):
    """`base.field` where base is an lvalue of record type (lvalue)."""

    base: Expr
    field: Field
    type: CType
    is_lvalue = True


@dataclass(frozen=True, eq=False)
class FunctionRef(Expr):
    """A function designator (decays to a function pointer): the function `name`, or
    `*pointer` for a function pointer `pointer` (which it decays back to)."""

    name: str
    type: CType
    pointer: Expr | None = None


@dataclass(frozen=True, eq=False)
class Load(Expr):
    """The value stored in an lvalue (lvalue conversion)."""

    lvalue: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class AddrOf(Expr):
    """`&lvalue`; also array-to-pointer decay (then `type` points to the element type)."""

    lvalue: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class Unary(Expr):
    """`-x`, `~x` (operand already promoted), `!x` (result int, operand any scalar)."""

    op: str
    operand: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class Binary(Expr):
    """Arithmetic on operands of the common type, or a comparison (result int) of operands
    converted to their common type (or two pointers). Shifts: left operand promoted, right
    operand promoted independently."""

    op: str
    left: Expr
    right: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class PtrAdd(Expr):
    """`pointer + index` with index a `long`; the byte offset is index * sizeof(*pointer)."""

    pointer: Expr
    index: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class PtrDiff(Expr):
    """`p - q` in elements (result `long`)."""

    left: Expr
    right: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class Cast(Expr):
    """Conversion of `operand` to `type` with C's rules (including to _Bool)."""

    operand: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class Classify(Expr):
    """A type-generic classification builtin of <math.h> macros (`__builtin_isnan`,
    `__builtin_isinf_sign`, `__builtin_isfinite`, `__builtin_isnormal`,
    `__builtin_signbit`, `__builtin_fpclassify`) on a float or double `operand`; for
    fpclassify, `results` are the values for NaN, infinite, normal, subnormal and zero."""

    name: str
    operand: Expr
    type: CType
    results: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class BitOp(Expr):
    """A GCC bit builtin (`__builtin_clz`, `__builtin_popcountll`, `__builtin_bswap32`...,
    see frontend/builtins.py): `operation` on `operand`, already converted to the
    builtin's argument type."""

    operation: str
    operand: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class OverflowFlag(Expr):
    """1 when `left op right`, computed on the mathematical values of the operands (each
    of its own type), does not fit in `target`; else 0 (GCC's `__builtin_*_overflow`)."""

    op: str
    left: Expr
    right: Expr
    target: IntType
    type: CType


@dataclass(frozen=True, eq=False)
class Logical(Expr):
    """`left && right` or `left || right` as one value (result int 0 or 1); operands are
    truth values. Only in annotation conditions."""

    op: str
    left: Expr
    right: Expr
    type: CType


@dataclass(frozen=True, eq=False)
class Select(Expr):
    """`condition ? then : otherwise` as one value, no branch of its own; `condition` is a
    truth value and both arms have `type`. In annotation conditions and atomic
    compare-and-swap builtins."""

    condition: Expr
    then: Expr
    otherwise: Expr
    type: CType


CLASSIFY_BUILTINS = ("__builtin_isnan", "__builtin_isinf", "__builtin_isinf_sign",
                     "__builtin_isfinite", "__builtin_isnormal", "__builtin_signbit",
                     "__builtin_signbitf", "__builtin_signbitl", "__builtin_fpclassify")


def written_constant(e: Expr) -> Const | None:
    """The constant `e` is as the code writes it, under its casts (`10u`, `(uint8_t)1`),
    or None."""
    while isinstance(e, Cast):
        e = e.operand
    return e if isinstance(e, Const) else None


def is_null_constant(e: Expr) -> bool:
    """Whether `e` is a null pointer constant (an integer constant 0, possibly cast)."""
    c = written_constant(e)
    return c is not None and isinstance(c.type, IntType) and c.value == 0


def may_be_undefined(e: Expr) -> bool:
    """Whether C may leave evaluating `e` undefined: it reads through a pointer, does
    pointer arithmetic, divides, shifts, converts a floating value to an integer, or does
    signed arithmetic (which may overflow)."""
    work = [e]
    while work:
        n = work.pop()
        if isinstance(n, (Deref, PtrAdd, PtrDiff)):
            return True
        if isinstance(n, Binary) and (n.op in ("/", "%", "<<", ">>") or (
                n.op in ("+", "-", "*") and isinstance(n.type, IntType) and n.type.signed)):
            return True
        if isinstance(n, Unary) and n.op == "-" and isinstance(n.type, IntType) and \
                n.type.signed:
            return True
        if isinstance(n, Cast) and isinstance(n.type, IntType) and \
                not isinstance(n.operand.type, (IntType, PointerType)):
            return True
        if is_dataclass(n):
            work.extend(getattr(n, f.name) for f in fields(n)
                        if isinstance(getattr(n, f.name), Expr))
    return False


def bitfield_width(e: Expr) -> int | None:
    """The width of the bit-field `e` reads, if it reads one."""
    if isinstance(e, Load) and isinstance(e.lvalue, Member) and e.lvalue.field.is_bitfield:
        return e.lvalue.field.bit_width
    return None


def value_range(e: Expr) -> tuple[int, int]:
    """The values an integer expression of its (unpromoted) type can have."""
    width = bitfield_width(e)
    t = e.type
    assert isinstance(t, IntType)
    if t.is_bool:
        return 0, 1
    if width is not None:
        return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if t.signed else (0, (1 << width) - 1)
    return t.min_value, t.max_value


def object_qualifiers(lv: Expr) -> tuple[bool, bool] | None:
    """Whether the object `lv` designates is const and whether it is volatile, when the
    lowering knows (not for a member, whose own qualifiers records do not keep)."""
    if isinstance(lv, VarRef):
        return lv.var.is_const, lv.var.is_volatile
    if isinstance(lv, Deref) and isinstance(lv.pointer.type, PointerType):
        return lv.pointer.type.target_const, lv.pointer.type.target_volatile
    if isinstance(lv, StringLit):
        return False, False
    return None


def target_qualifiers_known(e: Expr) -> bool:
    """Whether the pointer value `e` points to a type whose qualifiers the lowering knows:
    a pointer object's declared type, a cast, the address of an object whose qualifiers
    are known, pointer arithmetic on one of these."""
    while isinstance(e, PtrAdd):
        e = e.pointer
    if isinstance(e, AddrOf):
        return isinstance(e.lvalue, FunctionRef) or object_qualifiers(e.lvalue) is not None
    if isinstance(e, Load):
        return not (isinstance(e.lvalue, VarRef) and e.lvalue.var.name.startswith("ctgen."))
    return isinstance(e, (Cast, StringLit))


def describe(e: Expr) -> str:
    """A short C-like rendering for messages."""
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, VarRef):
        return e.var.name
    if isinstance(e, Load):
        return describe(e.lvalue)
    if isinstance(e, Deref):
        if isinstance(e.pointer, PtrAdd):  # p[i]
            return f"{describe(e.pointer.pointer)}[{describe(e.pointer.index)}]"
        inner = describe(e.pointer)
        return f"*{inner}" if inner.isidentifier() else f"*({inner})"
    if isinstance(e, Member):
        if isinstance(e.base, Deref):  # p->field
            inner = describe(e.base.pointer)
            return f"{inner if inner.isidentifier() else f'({inner})'}->{e.field.name}"
        return f"{describe(e.base)}.{e.field.name}"
    if isinstance(e, AddrOf):
        decays = isinstance(e.lvalue.type, ArrayType) and isinstance(e.type, PointerType) \
            and not isinstance(e.type.target, ArrayType)
        return describe(e.lvalue) if decays else f"&{describe(e.lvalue)}"
    if isinstance(e, Cast):
        return f"({e.type}){describe(e.operand)}"
    if isinstance(e, Unary):
        return f"{e.op}{describe(e.operand)}"
    if isinstance(e, (Binary, Logical)):
        return f"({describe(e.left)} {e.op} {describe(e.right)})"
    if isinstance(e, Select):
        return f"({describe(e.condition)} ? {describe(e.then)} : {describe(e.otherwise)})"
    if isinstance(e, PtrAdd):
        return f"({describe(e.pointer)} + {describe(e.index)})"
    if isinstance(e, PtrDiff):
        return f"({describe(e.left)} - {describe(e.right)})"
    if isinstance(e, StringLit):
        width = e.type.element.size if isinstance(e.type, ArrayType) else 1
        if width == 1:
            return repr(e.data[:-1].decode("latin-1"))
        text = e.data[:-width].decode("utf-16-le" if width == 2 else "utf-32-le", "replace")
        return ("u" if width == 2 else "L") + repr(text)
    if isinstance(e, FunctionRef):
        return e.name if e.pointer is None else f"(*{describe(e.pointer)})"
    if isinstance(e, Classify):
        return f"{e.name}({describe(e.operand)})"
    if isinstance(e, BitOp):
        return f"__builtin_{e.operation}({describe(e.operand)})"
    if isinstance(e, OverflowFlag):
        return f"overflows({describe(e.left)} {e.op} {describe(e.right)}, {e.target.name})"
    return type(e).__name__


def nodes_in(node: Expr | Stmt | Terminator | None) -> Iterator[object]:
    """`node`, an expression, a statement or a terminator, and every expression in it (in
    its fields and lists of them)."""
    work: list[object] = [node]
    while work:
        n = work.pop()
        yield n
        if not is_dataclass(n) or isinstance(n, type):
            continue
        for f in fields(n):
            value = getattr(n, f.name)
            if isinstance(value, Expr):
                work.append(value)
            elif isinstance(value, list):
                work.extend(v for v in value if isinstance(v, Expr))


def designated_functions(node: Expr | Stmt | Terminator | None) -> Iterator[str]:
    """The names of the functions whose designators appear in `node`, an expression, a
    statement or a terminator (not those it calls by name)."""
    return (n.name for n in nodes_in(node) if isinstance(n, FunctionRef) and n.pointer is None)
