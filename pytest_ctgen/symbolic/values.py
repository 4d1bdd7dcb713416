"""C values as z3 terms and C operations on them, as gcc compiles them for x86-64 at -O0.

An integer of n bits is an n-bit z3 bit-vector (_Bool is 8 bits holding 0 or 1), a float or
double is a z3 IEEE floating-point term, a pointer is a `PtrVal` (memory object and byte
offset), and a struct or union value is an `AggVal` (its bytes).

Operations that C leaves undefined for some operands (division by zero, INT_MIN / -1, a
shift count outside the width, float-to-integer conversion out of range, clz of 0) return,
next to the value, each `Undefined` error with the condition under which it happens: the
executor makes the path into it a finding and goes on where the operation is defined.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

import z3

from ..errors import UnsupportedError
from ..frontend.ctype import (
    CType, FloatType, IntType, PointerType, RecordType, ArrayType, strip_enum)
from ..frontend.literals import round_to_float32

if TYPE_CHECKING:
    from .memory import Cell



# z3 terms belong to the context current when they are made (see solver.own_context),
# so the generator's constants are made when used, never kept in the module.
def rne() -> z3.FPRMRef:
    """IEEE rounding to nearest, ties to even: C's rounding of float arithmetic."""
    return z3.RNE()


def rtz() -> z3.FPRMRef:
    """Rounding toward zero: C's conversion of a float to an integer."""
    return z3.RTZ()


def zero64() -> z3.BitVecRef:
    """The offset of an object's start (a 64-bit vector, as every pointer offset)."""
    return z3.BitVecVal(0, 64)


@dataclass(frozen=True, eq=False)
class Undefined:
    """An error C leaves undefined: `condition` holds where the operation has it, `what`
    names it as a report says it ("division by zero")."""

    condition: z3.BoolRef
    what: str


Errors = tuple[Undefined, ...]


@dataclass(frozen=True, eq=False)
class PtrVal:
    """A pointer: `base` is a memory object id (None for NULL), `offset` a 64-bit vector.
    `null` is the condition under which an input pointer is NULL instead (None: never)."""

    base: int | None
    offset: z3.BitVecRef
    null: z3.BoolRef | None = None
    # a NULL standing for an input pointer nested deeper than the search makes objects
    # for: using it is a bound of the search, never the code's error
    beyond_depth: bool = False

    @property
    def is_null(self) -> bool:
        return self.base is None

    def null_condition(self) -> z3.BoolRef:
        if self.base is None:
            return z3.BoolVal(True)
        return self.null if self.null is not None else z3.BoolVal(False)


def null_pointer() -> PtrVal:
    """NULL: a pointer into no object."""
    return PtrVal(None, zero64())


@dataclass(frozen=True, eq=False)
class AliasPtr:
    """An input pointer that may point into an object of its own (`own`, at its start) or
    into another object of its element type: the pointee of another input, an object that
    contains it, a global. Which one is a choice of the search, made when the pointer is
    first used for more than a NULL test (see `inputs.resolve`); `fallback` is where a
    pointer without an object of its own points when no path decided."""

    choice: str  # unique per input pointer
    own: PtrVal | None
    element: CType  # of the elements it points to
    null: z3.BoolRef
    depth: int  # 0 for a pointer in a parameter or global
    containers: tuple[int, ...]  # the input objects it lies in, outermost first
    fallback: PtrVal | None = None
    # a pointer made lazily (lazy.py): the links from a parameter or global to it; `own`
    # is where it points when fresh, an object made only when a path chooses that
    lazy_depth: int | None = None

    is_null = False

    def null_condition(self) -> z3.BoolRef:
        return self.null

    def default(self) -> PtrVal:
        target = self.own if self.own is not None else self.fallback
        assert target is not None
        return target


@dataclass(frozen=True, eq=False)
class AggVal:
    """A struct or union value: its byte cells (see memory.py)."""

    cells: tuple[Cell, ...]


#: A value that is no aggregate: what a byte cell of memory holds part of.
ScalarValue: TypeAlias = z3.BitVecRef | z3.FPRef | PtrVal | AliasPtr
SymValue: TypeAlias = ScalarValue | AggVal


def fp_sort(t: FloatType) -> z3.FPSortRef:
    return z3.Float32() if t.size == 4 else z3.Float64()


def int_const(t: IntType, value: int) -> z3.BitVecRef:
    return z3.BitVecVal(value & ((1 << t.bits) - 1), t.bits)


def float_const(t: FloatType, value: float) -> z3.FPRef:
    """The exact float or double `value` (built from its bit pattern, so -0.0 and NaN too)."""
    import struct

    if t.size == 4:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
    else:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return z3.simplify(z3.fpBVToFP(z3.BitVecVal(bits, t.size * 8), fp_sort(t)))


def constant(t: CType, value: int | float) -> SymValue:
    if isinstance(t, IntType):
        return int_const(t, int(value))
    if isinstance(t, FloatType):
        return float_const(t, float(value))
    if isinstance(t, PointerType):
        if int(value) == 0:
            return null_pointer()
        raise UnsupportedError("integer constant used as an address")
    raise UnsupportedError(f"constant of type {t}")


def truth(t: CType, v: SymValue) -> z3.BoolRef:
    """The condition `v != 0` of a scalar."""
    if isinstance(v, (PtrVal, AliasPtr)):
        return z3.Not(v.null_condition())
    if isinstance(t, FloatType):
        assert isinstance(v, z3.FPRef)
        return z3.Not(z3.fpIsZero(v))
    assert isinstance(v, z3.BitVecRef)
    return v != 0


def bool_to_int(c: z3.BoolRef, bits: int = 32) -> z3.BitVecRef:
    return z3.If(c, z3.BitVecVal(1, bits), z3.BitVecVal(0, bits))


def _representable(value: int, t: FloatType) -> bool:
    if t.size == 8:
        return float(value) == value
    return round_to_float32(Fraction(value)) == value


def convert(v: SymValue, src: CType, dst: CType) -> tuple[SymValue, Errors]:
    """`v` of type `src` converted to `dst`; second item: where the conversion is
    undefined (a floating value out of the integer type's range)."""
    src, dst = strip_enum(src), strip_enum(dst)
    if isinstance(dst, IntType):
        if isinstance(src, IntType):
            assert isinstance(v, z3.BitVecRef)
            if dst.is_bool:
                return bool_to_int(v != 0, 8), ()
            if dst.bits == src.bits:
                return v, ()
            if dst.bits < src.bits:
                return z3.Extract(dst.bits - 1, 0, v), ()
            ext = dst.bits - src.bits
            return (z3.SignExt(ext, v) if src.signed else z3.ZeroExt(ext, v)), ()
        if isinstance(src, FloatType):
            assert isinstance(v, z3.FPRef)
            if dst.is_bool:
                return bool_to_int(z3.Not(z3.fpIsZero(v)), 8), ()
            sort = fp_sort(src)
            lo, hi = dst.min_value, dst.max_value + 1
            lower = z3.fpGT(v, z3.FPVal(lo - 1, sort)) if _representable(lo - 1, src) \
                else z3.fpGEQ(v, z3.FPVal(lo, sort))
            out_of_range = (Undefined(
                z3.Not(z3.And(lower, z3.fpLT(v, z3.FPVal(hi, sort)))),
                f"conversion of a value out of the range of {dst}"),)
            if dst.signed:
                return z3.fpToSBV(rtz(), v, z3.BitVecSort(dst.bits)), out_of_range
            return z3.fpToUBV(rtz(), v, z3.BitVecSort(dst.bits)), out_of_range
        if isinstance(src, PointerType):
            if dst.is_bool and isinstance(v, (PtrVal, AliasPtr)):
                return bool_to_int(z3.Not(v.null_condition()), 8), ()
            raise UnsupportedError("conversion of a pointer to an integer")
    if isinstance(dst, FloatType):
        sort = fp_sort(dst)
        if isinstance(src, IntType):
            assert isinstance(v, z3.BitVecRef)
            if src.signed:
                return z3.fpSignedToFP(rne(), v, sort), ()
            return z3.fpUnsignedToFP(rne(), v, sort), ()
        if isinstance(src, FloatType):
            if src.size == dst.size:
                return v, ()
            assert isinstance(v, z3.FPRef)
            return z3.fpFPToFP(rne(), v, sort), ()
    if isinstance(dst, PointerType):
        if isinstance(v, (PtrVal, AliasPtr)):
            return v, ()
        if isinstance(src, IntType):
            assert isinstance(v, z3.BitVecRef)
            simple = z3.simplify(v)
            if z3.is_bv_value(simple) and simple.as_long() == 0:
                return null_pointer(), ()
            raise UnsupportedError("conversion of an integer to a pointer")
    if isinstance(dst, (RecordType, ArrayType)) and isinstance(v, AggVal):
        return v, ()
    raise UnsupportedError(f"conversion from {src} to {dst}")


def unary(op: str, t: CType, v: SymValue) -> SymValue:
    if op == "!":
        raise AssertionError("'!' is handled by the executor")
    if isinstance(t, FloatType):
        assert isinstance(v, z3.FPRef)
        if op == "-":
            return z3.fpNeg(v)
        raise UnsupportedError(f"operator {op} on a floating value")
    assert isinstance(v, z3.BitVecRef)
    if op == "-":
        return -v
    if op == "~":
        return ~v
    raise UnsupportedError(f"unary operator {op}")


def arithmetic(op: str, t: CType, a: SymValue, b: SymValue, right: CType | None = None
               ) -> tuple[SymValue, Errors]:
    """`a op b` in type `t` (`right`: the type of a shift's count, if not `t`); second
    item: where the operation is undefined."""
    if isinstance(t, FloatType):
        assert isinstance(a, z3.FPRef) and isinstance(b, z3.FPRef)
        fn = {"+": z3.fpAdd, "-": z3.fpSub, "*": z3.fpMul, "/": z3.fpDiv}.get(op)
        if fn is None:
            raise UnsupportedError(f"operator {op} on floating values")
        return fn(rne(), a, b), ()
    assert isinstance(t, IntType) and isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
    n = t.bits
    if op == "+":
        return a + b, ()
    if op == "-":
        return a - b, ()
    if op == "*":
        return a * b, ()
    if op in ("/", "%"):
        errors = [Undefined(b == 0, "division by zero")]
        if t.signed:
            errors.append(Undefined(z3.And(a == int_const(t, t.min_value), b == -1),
                                    f"overflow: {t.min_value} {op} -1"))
            return (a / b if op == "/" else z3.SRem(a, b)), tuple(errors)
        return (z3.UDiv(a, b) if op == "/" else z3.URem(a, b)), tuple(errors)
    if op == "&":
        return a & b, ()
    if op == "|":
        return a | b, ()
    if op == "^":
        return a ^ b, ()
    if op in ("<<", ">>"):
        if n < 32:
            raise UnsupportedError("shift of an unpromoted operand")
        count_type = strip_enum(right) if right is not None else t
        assert isinstance(count_type, IntType)
        # C: a count below 0 or from the width on is undefined
        limit = z3.BitVecVal(n, b.size()) if b.size() >= n.bit_length() else None
        beyond = z3.UGE(b, limit) if limit is not None else z3.BoolVal(False)
        if count_type.signed:
            beyond = z3.Or(b < 0, beyond)
        count_errors = (Undefined(beyond, f"shift count out of range (0 to {n - 1})"),)
        # x86 masks the count of a variable shift to 5 bits (6 for 64-bit operands)
        if b.size() > n:
            b = z3.Extract(n - 1, 0, b)
        elif b.size() < n:
            b = z3.ZeroExt(n - b.size(), b)
        count = b & (n - 1)
        if op == "<<":
            return a << count, count_errors
        return (a >> count if t.signed else z3.LShR(a, count)), count_errors
    raise UnsupportedError(f"binary operator {op}")


def exact_quotient(difference: z3.BitVecRef, size: int) -> z3.BitVecRef:
    """A pointer difference in bytes divided by the element size as gcc does it (C defines
    it only for a multiple of the size): an arithmetic shift by the size's power of two,
    then a multiplication by the inverse of its odd part modulo 2^64. Cheaper for the
    solver than a division, and the same as gcc for any difference."""
    shift = (size & -size).bit_length() - 1
    odd = size >> shift
    quotient = difference >> shift if shift else difference
    if odd > 1:
        quotient = quotient * pow(odd, -1, 1 << difference.size())
    return quotient


def signed_overflow(op: str, a: SymValue, b: SymValue) -> z3.BoolRef:
    """When signed `a op b` leaves its type's range (undefined in C; gcc -O0 wraps)."""
    assert isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
    if op == "+":
        ok = z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b))
    elif op == "-":
        ok = z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True))
    else:
        ok = z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b))
    return z3.Not(ok)


def negation_overflow(a: SymValue) -> z3.BoolRef:
    """When signed `-a` leaves its type's range: `a` is the type's minimum."""
    assert isinstance(a, z3.BitVecRef)
    return a == z3.BitVecVal(1 << (a.size() - 1), a.size())


def compare(op: str, t: CType, a: SymValue, b: SymValue) -> z3.BoolRef:
    """The condition `a op b` for operands of common type `t`."""
    if isinstance(a, PtrVal) or isinstance(b, PtrVal):
        assert isinstance(a, PtrVal) and isinstance(b, PtrVal)
        if op in ("==", "!="):
            a_null, b_null = a.null_condition(), b.null_condition()
            both = z3.BoolVal(False)
            if a.base is not None and a.base == b.base:
                both = a.offset == b.offset
            same = z3.Or(z3.And(a_null, b_null),
                         z3.And(z3.Not(a_null), z3.Not(b_null), both))
            return same if op == "==" else z3.Not(same)
        if a.base != b.base:  # undefined in C: the executor excludes it from the path
            return z3.BoolVal(False)
        return {"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}[op](a.offset, b.offset)
    if isinstance(t, FloatType):
        assert isinstance(a, z3.FPRef) and isinstance(b, z3.FPRef)
        if op == "!=":
            return z3.Not(z3.fpEQ(a, b))
        return {"==": z3.fpEQ, "<": z3.fpLT, "<=": z3.fpLEQ, ">": z3.fpGT,
                ">=": z3.fpGEQ}[op](a, b)
    assert isinstance(t, IntType)
    assert isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if t.signed:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return {"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}[op](a, b)


def classify(name: str, x: z3.FPRef, results: tuple[int, ...] = ()) -> z3.BitVecRef:
    """The int result of a <math.h> classification builtin on `x`, as gcc computes it."""
    if name == "__builtin_isnan":
        return bool_to_int(z3.fpIsNaN(x))
    if name == "__builtin_isinf":
        return bool_to_int(z3.fpIsInf(x))
    if name == "__builtin_isinf_sign":
        return z3.If(z3.fpIsInf(x), z3.If(z3.fpIsNegative(x), z3.BitVecVal(-1, 32),
                                          z3.BitVecVal(1, 32)), z3.BitVecVal(0, 32))
    if name == "__builtin_isfinite":
        return bool_to_int(z3.Not(z3.Or(z3.fpIsNaN(x), z3.fpIsInf(x))))
    if name == "__builtin_isnormal":
        return bool_to_int(z3.fpIsNormal(x))
    if name == "__builtin_signbit":
        # the sign bit itself (set for -0.0 and for NaNs with the sign bit set); gcc
        # returns it in place (0x80000000 for float, bit 63 moved to bit 31 for double)
        width = x.ebits() + x.sbits()
        sign = z3.Extract(width - 1, width - 1, _ieee_bits(x))
        if width == 32:
            return z3.Concat(sign, z3.BitVecVal(0, 31))
        return z3.ZeroExt(31, sign)
    if name == "__builtin_fpclassify":
        nan, inf, normal, subnormal, zero = (z3.BitVecVal(v & 0xFFFFFFFF, 32) for v in results)
        return z3.If(z3.fpIsNaN(x), nan, z3.If(z3.fpIsInf(x), inf, z3.If(
            z3.fpIsNormal(x), normal, z3.If(z3.fpIsSubnormal(x), subnormal, zero))))
    raise UnsupportedError(f"builtin {name}")


def bit_builtin(operation: str, x: z3.BitVecRef, result: IntType
                ) -> tuple[z3.BitVecRef, Errors]:
    """A GCC bit builtin (see frontend/builtins.py) on `x`, and where it is undefined: clz
    and ctz of 0."""
    w = x.size()

    def count(n: int) -> z3.BitVecRef:
        return z3.BitVecVal(n, result.bits)

    def leading_zeros(v: z3.BitVecRef, from_top: bool = True) -> z3.BitVecRef:
        """How many bits of `v` come before its first set one, from the most (or least)
        significant; w when none is set."""
        order = range(w - 1, -1, -1) if from_top else range(w)
        value = count(w)
        for k, i in reversed(list(enumerate(order))):
            value = z3.If(z3.Extract(i, i, v) == 1, count(k), value)
        return value

    if operation in ("popcount", "parity"):
        ones = z3.Sum([z3.ZeroExt(result.bits - 1, z3.Extract(i, i, x)) for i in range(w)])
        return (ones if operation == "popcount" else ones & 1), ()
    if operation == "clz":
        return leading_zeros(x), (Undefined(x == 0, "__builtin_clz of 0"),)
    if operation == "ctz":
        return leading_zeros(x, from_top=False), (Undefined(x == 0, "__builtin_ctz of 0"),)
    if operation == "ffs":
        return z3.If(x == 0, count(0), leading_zeros(x, from_top=False) + 1), ()
    if operation == "clrsb":
        # the bits after the sign that equal it: the leading zeros of x ^ (x >> (w-1)),
        # whose top bit is 0, less that bit (arithmetic shift: the sign over every bit)
        return leading_zeros(x ^ (x >> (w - 1))) - 1, ()
    if operation == "bswap":
        return z3.Concat(*[z3.Extract(8 * i + 7, 8 * i, x) for i in range(w // 8)]), ()
    raise UnsupportedError(f"builtin {operation}")


def overflows(op: str, a: z3.BitVecRef, a_type: IntType, b: z3.BitVecRef, b_type: IntType,
              target: IntType) -> z3.BoolRef:
    """Whether `a op b` on the mathematical values does not fit in `target` (GCC's
    `__builtin_*_overflow`): computed exactly in a width that holds any product."""
    width = 2 * max(a.size(), b.size(), target.bits) + 2

    def exact(v: z3.BitVecRef, t: IntType) -> z3.BitVecRef:
        extend = z3.SignExt if t.signed else z3.ZeroExt
        return extend(width - v.size(), v)

    x, y = exact(a, a_type), exact(b, b_type)
    r = x + y if op == "+" else x - y if op == "-" else x * y
    return z3.Or(r < z3.BitVecVal(target.min_value, width),
                 r > z3.BitVecVal(target.max_value, width))


def input_bits(x: z3.FPRef) -> z3.BitVecRef | None:
    """The bit-vector an input float is made of (`fpBVToFP(bits)`), or None for any other
    term. Exact where `fpToIEEEBV` is not: a NaN keeps its sign and payload."""
    if z3.is_app(x) and x.num_args() == 1 and z3.is_bv(x.arg(0)) and \
            x.decl().kind() == z3.Z3_OP_FPA_TO_FP:
        return x.arg(0)
    return None


def _ieee_bits(x: z3.FPRef) -> z3.BitVecRef:
    """The bits of `x`: an input's own bit-vector when `x` is one."""
    bits = input_bits(x)
    return bits if bits is not None else z3.fpToIEEEBV(x)


def uninterpreted_in(terms: Iterable[z3.ExprRef]) -> list[z3.ExprRef]:
    """The applications of uninterpreted symbols in `terms` (the inputs and other
    variables a term is built from; an array or function symbol with its arguments), each
    shared subterm visited once, in a fixed order."""
    seen: set[int] = set()
    found: list[z3.ExprRef] = []
    work = list(terms)
    while work:
        term = work.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if z3.is_app(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.append(term)
        work.extend(term.children())
    return found
