"""Candidate values for floating-point inputs from real arithmetic.

Bit-blasting IEEE multiplications and additions makes exact floating-point queries slow.
The same path condition read over the reals (no rounding, no NaN or infinity) is usually
easy for z3's arithmetic solvers. Its solution, rounded to float or double, is then only a
candidate: the caller pins the inputs to it and checks the exact IEEE query, which constant
propagation answers at once. A candidate that fails the exact check costs little; the exact
solver still decides."""
from __future__ import annotations

import struct
from fractions import Fraction
from collections.abc import Callable

import z3

_FP_TO_REAL_OPS = {
    z3.Z3_OP_FPA_ADD: lambda a, b: a + b,
    z3.Z3_OP_FPA_SUB: lambda a, b: a - b,
    z3.Z3_OP_FPA_MUL: lambda a, b: a * b,
    z3.Z3_OP_FPA_DIV: lambda a, b: a / b,
}
_FP_COMPARISONS = {
    z3.Z3_OP_FPA_LT: lambda a, b: a < b,
    z3.Z3_OP_FPA_LE: lambda a, b: a <= b,
    z3.Z3_OP_FPA_GT: lambda a, b: a > b,
    z3.Z3_OP_FPA_GE: lambda a, b: a >= b,
    z3.Z3_OP_FPA_EQ: lambda a, b: a == b,
}


class _GiveUp(Exception):
    pass


class _Translator:
    """Rewrites a path condition with floating-point terms into one over the reals."""

    def __init__(self) -> None:
        self.inputs: dict[int, tuple[z3.BitVecRef, z3.ArithRef, z3.FPSortRef]] = {}
        self.integers: dict[int, z3.BitVecRef] = {}  # integer inputs converted to floats
        self._cache: dict[int, z3.ExprRef] = {}
        self._has_fp: dict[int, bool] = {}

    def has_fp(self, e: z3.ExprRef) -> bool:
        key = e.get_id()
        if key not in self._has_fp:
            self._has_fp[key] = z3.is_fp(e) or any(self.has_fp(c) for c in e.children())
        return self._has_fp[key]

    def expr(self, e: z3.ExprRef) -> z3.ExprRef:
        key = e.get_id()
        if key in self._cache:
            return self._cache[key]
        if z3.is_fp(e):
            result = self.real(e)
        elif not self.has_fp(e):
            result = e
        else:
            result = self.mixed(e)
        self._cache[key] = result
        return result

    def real(self, e: z3.ExprRef) -> z3.ArithRef:
        """The real-valued reading of a floating-point term."""
        if isinstance(e, z3.FPNumRef):
            if e.isNaN() or e.isInf():
                raise _GiveUp()
            return z3.simplify(z3.fpToReal(e))
        if not z3.is_app(e):
            raise _GiveUp()
        kind = e.decl().kind()
        args = e.children()
        if kind == z3.Z3_OP_FPA_TO_FP and len(args) == 1 and z3.is_bv(args[0]):
            bits = args[0]
            if not z3.is_const(bits) or z3.is_bv_value(bits):
                raise _GiveUp()
            key = bits.get_id()
            if key not in self.inputs:
                self.inputs[key] = (bits, z3.Real(f"real.{bits}"), e.sort())
            return self.inputs[key][1]
        if kind == z3.Z3_OP_FPA_TO_FP and len(args) == 2 and z3.is_fp(args[1]):
            return self.real(args[1])  # float <-> double: rounding ignored
        if kind in (z3.Z3_OP_FPA_TO_FP, z3.Z3_OP_FPA_TO_FP_UNSIGNED) and len(args) == 2 \
                and z3.is_bv(args[1]):
            # an integer converted to floating point: rounding ignored
            bv = args[1]
            if z3.is_const(bv) and not z3.is_bv_value(bv):
                self.integers[bv.get_id()] = bv
            return z3.ToReal(z3.BV2Int(bv, is_signed=kind == z3.Z3_OP_FPA_TO_FP))
        if kind in _FP_TO_REAL_OPS:
            return _FP_TO_REAL_OPS[kind](self.real(args[1]), self.real(args[2]))
        if kind == z3.Z3_OP_FPA_NEG:
            return -self.real(args[0])
        if kind == z3.Z3_OP_FPA_ABS:
            x = self.real(args[0])
            return z3.If(x < 0, -x, x)
        if kind == z3.Z3_OP_ITE:
            return z3.If(self.boolean(args[0]), self.real(args[1]), self.real(args[2]))
        raise _GiveUp()

    def boolean(self, e: z3.ExprRef) -> z3.BoolRef:
        result = self.expr(e)
        assert z3.is_bool(result)
        return result

    def mixed(self, e: z3.ExprRef) -> z3.ExprRef:
        """A Boolean or bit-vector term with floating-point terms inside."""
        if not z3.is_app(e):
            raise _GiveUp()
        kind = e.decl().kind()
        args = e.children()
        if kind in _FP_COMPARISONS:
            return _FP_COMPARISONS[kind](self.real(args[0]), self.real(args[1]))
        if kind in (z3.Z3_OP_FPA_IS_NAN, z3.Z3_OP_FPA_IS_INF, z3.Z3_OP_FPA_IS_SUBNORMAL):
            self.real(args[0])  # its inputs still need values
            return z3.BoolVal(False)
        if kind == z3.Z3_OP_FPA_IS_ZERO:
            return self.real(args[0]) == 0
        if kind == z3.Z3_OP_FPA_IS_NORMAL:
            return self.real(args[0]) != 0
        if kind == z3.Z3_OP_FPA_IS_NEGATIVE:
            return self.real(args[0]) < 0
        if kind == z3.Z3_OP_FPA_IS_POSITIVE:
            return self.real(args[0]) > 0
        if kind == z3.Z3_OP_EQ and z3.is_fp(args[0]):
            return self.real(args[0]) == self.real(args[1])
        if kind in (z3.Z3_OP_FPA_TO_SBV, z3.Z3_OP_FPA_TO_UBV, z3.Z3_OP_FPA_TO_IEEE_BV):
            raise _GiveUp()
        return e.decl()(*[self.expr(a) for a in args])


def _round(value: Fraction, sort: z3.FPSortRef) -> int:
    """The bit pattern of the float or double nearest to `value`."""
    x = float(value)
    if sort.ebits() == 8:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _fraction(value: z3.ExprRef) -> Fraction | None:
    if isinstance(value, z3.RatNumRef):
        return Fraction(value.as_fraction())
    if isinstance(value, z3.AlgebraicNumRef):
        return Fraction(value.approx(20).as_fraction())
    return None


def float_candidate(constraints: list[z3.BoolRef], extra: list[z3.BoolRef],
                    new_solver: Callable[[], z3.Solver], charge: Callable[[z3.Solver], None]
                    ) -> list[z3.BoolRef] | None:
    """Pins (`bits == pattern`) of the floating-point inputs of `constraints` (and of the
    integer inputs converted to floating point) to a solution
    of their real-valued reading, or None when there is none or the reading is not possible.
    `extra` are further real-valued-readable wishes (e.g. magnitude bounds) to try first.
    `new_solver` makes a bounded z3 solver; `charge` is given it after each check, to
    count its work."""
    tr = _Translator()
    try:
        real = [tr.boolean(c) for c in constraints]
        wishes = [tr.boolean(c) for c in extra]
    except (_GiveUp, z3.Z3Exception):
        return None
    if not tr.inputs:
        return None
    for attempt in ([*real, *wishes], real) if wishes else (real,):
        solver = new_solver()
        solver.add(*attempt)
        try:
            answer = solver.check()
        except z3.Z3Exception:
            return None
        finally:
            charge(solver)
        if answer != z3.sat:
            continue
        model = solver.model()
        pins = []
        for bits, var, sort in tr.inputs.values():
            value = _fraction(model.eval(var, model_completion=True))
            if value is None:
                return None
            try:
                pattern = _round(value, sort)
            except OverflowError:
                return None
            pins.append(bits == z3.BitVecVal(pattern, bits.size()))
        for bv in tr.integers.values():
            pins.append(bv == model.eval(bv, model_completion=True))
        return pins
    return None


def real_reading(constraints: list[z3.BoolRef]) -> list[z3.BoolRef] | None:
    """`constraints` read over the reals, in order, or None when that is not possible."""
    tr = _Translator()
    try:
        return [tr.boolean(c) for c in constraints]
    except (_GiveUp, z3.Z3Exception):
        return None
