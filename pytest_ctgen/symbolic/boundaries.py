"""Boundary values: inputs that put the comparisons a path decides at their boundary.

A case whose `if (x < limit)` is decided by `x = 99` against a limit of 100 tells `<` from
`<=`; `x = 3` does not. So for every integer comparison a path's branches decide, a case
wishes its left side one step from turning it (`a + 1 == b` on the true side of `a < b`,
`a == b` on its false side; for `==` equal, or one apart on the false side), before it
wishes readable values. Wishes are only wishes: the path decides, and the
solver keeps as many as hold together, earlier branches first (see Solver.model)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import z3

from .extract import no_overflow
from .solver import WholeTier

if TYPE_CHECKING:
    from .state import State

#: At most this many comparisons of a path get a boundary wish (each may cost a query).
MOST_WISHES: Final = 32
#: How deep into a branch condition comparisons are looked for (`!`, `&&`, `?:` of them).
_DEPTH: Final = 6

_COMPARISONS: Final = frozenset({
    z3.Z3_OP_SLEQ, z3.Z3_OP_SLT, z3.Z3_OP_SGEQ, z3.Z3_OP_SGT,
    z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT,
    z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT,
})
_UNSIGNED: Final = frozenset({z3.Z3_OP_ULEQ, z3.Z3_OP_ULT, z3.Z3_OP_UGEQ, z3.Z3_OP_UGT})
_CONNECTIVES: Final = frozenset({z3.Z3_OP_NOT, z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_ITE})

#: A comparison of two integers: how to make it of other operands, and its operands.
Comparison = tuple[Callable[[z3.BitVecRef, z3.BitVecRef], z3.BoolRef], z3.BitVecRef,
                   z3.BitVecRef, bool]  # the last: unsigned


def _as_written(condition: z3.ExprRef) -> Comparison | None:
    """`condition` as the comparison of two integers it is, also where z3's simplifier
    turned the comparison with a power of two into bits: `x < 0` into the sign bit of x,
    `u <= 7u` into `u >> 3 == 0`; None when it is none."""
    kind = condition.decl().kind()
    if kind not in _COMPARISONS or condition.num_args() != 2:
        return None
    a, b = condition.arg(0), condition.arg(1)
    if not (z3.is_bv(a) and z3.is_bv(b)) or (z3.is_bv_value(a) and z3.is_bv_value(b)):
        return None
    if kind == z3.Z3_OP_EQ:
        bits, value = (a, b) if z3.is_bv_value(b) else (b, a)
        if z3.is_bv_value(value) and z3.is_app_of(bits, z3.Z3_OP_EXTRACT):
            high, low = bits.params()
            x = bits.arg(0)
            if high == x.size() - 1:
                if high == low:  # the sign bit: x < 0 (1) or x >= 0 (0)
                    return (lambda p, q: p < q), x, z3.BitVecVal(0, x.size()), False
                if value.as_long() == 0:  # x < 2**low
                    return z3.ULT, x, z3.BitVecVal(1 << low, x.size()), True
    return condition.decl(), a, b, kind in _UNSIGNED


def _tested(condition: z3.ExprRef) -> z3.BoolRef | None:
    """c where `condition` tests the int value of c: `If(c, 1, 0) != 0` (or `== 0`), the
    form a branch on a comparison has before z3 simplifies it; None otherwise."""
    if condition.decl().kind() not in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT) or \
            condition.num_args() != 2:
        return None
    a, b = condition.arg(0), condition.arg(1)
    for value, zero in ((a, b), (b, a)):
        if z3.is_bv_value(zero) and zero.as_long() == 0 and \
                z3.is_app_of(value, z3.Z3_OP_ITE) and z3.is_bv_value(value.arg(1)) and \
                z3.is_bv_value(value.arg(2)):
            return value.arg(0)
    return None


def _atoms(condition: z3.ExprRef, depth: int = 0) -> list[z3.ExprRef]:
    """The tests `condition` is made of, in order: what lies below its connectives and
    below the int values of comparisons it tests (`_tested`), to a depth of `_DEPTH`."""
    if depth > _DEPTH or not z3.is_app(condition):
        return []
    if condition.decl().kind() in _CONNECTIVES:
        return [atom for child in condition.children() if z3.is_bool(child)
                for atom in _atoms(child, depth + 1)]
    tested = _tested(condition)
    return _atoms(tested, depth + 1) if tested is not None else [condition]


def _comparisons(condition: z3.ExprRef) -> list[Comparison]:
    """The comparisons of two integers in `condition`, through the connectives."""
    return [c for c in map(_as_written, _atoms(condition)) if c is not None]


def boundary_wishes(conditions: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """For the integer comparisons in the branch `conditions` of a path (in order, each
    once): one step of its left side, without wrapping around, turns it."""
    found = [c for condition in conditions for c in _comparisons(condition)]
    wishes: list[z3.BoolRef] = []
    seen: set[int] = set()
    for make, a, b, unsigned in found:
        compared = make(a, b)
        if compared.get_id() in seen:
            continue
        seen.add(compared.get_id())
        bits = a.size()
        signed_ends = ((1 << (bits - 1)) - 1, 1 << (bits - 1))
        unsigned_ends = ((1 << bits) - 1, 0)
        if isinstance(make, z3.FuncDeclRef) and make.kind() in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT):
            # an equality wraps around at neither end: z3 makes one of `u < 0xFFFF`
            # (u != 0xFFFF), whose neighbour is 0xFFFE, not 0
            ends = list(zip(signed_ends, unsigned_ends))
        else:
            ends = [unsigned_ends if unsigned else signed_ends]
        wishes.append(z3.Or(
            z3.And(*(a != high for high, _ in ends), z3.Xor(compared, make(a + 1, b))),
            z3.And(*(a != low for _, low in ends), z3.Xor(compared, make(a - 1, b)))))
        if len(wishes) == MOST_WISHES:
            break
    return wishes


def with_boundaries(state: State, tiers: list[list[z3.BoolRef]]) -> list[list[z3.BoolRef]]:
    """The readable-value `tiers` of `state` (extract.preferences) after a tier of the
    boundary wishes of its branches, with no signed overflow, which stays above all: kept
    whole where that is quick, else among the readable values (solver.WholeTier)."""
    wishes = boundary_wishes(state.branch_conditions)
    if not wishes or not tiers:
        return tiers
    # a tier of their own where one quick query keeps them: within a tier, the wishes a
    # first model meets are kept before the others (Solver._keep_part), and a small value
    # met by chance would win over the boundary (`n < 1000` decided by 0, not 999)
    return [WholeTier([*no_overflow(state), *wishes]), *tiers]


def equal_sides(condition: z3.BoolRef) -> list[z3.BoolRef]:
    """For each ordering comparison (`<`, `<=`, `>`, `>=`, not `==` or `!=`) in a branch
    `condition` as written, integers first, then floating point: that its two sides are
    equal, the one value where `<` and `<=` (or `>` and `>=`) differ."""
    equalities: list[z3.BoolRef] = [
        a == b for make, a, b, _ in _comparisons(condition)
        if not (isinstance(make, z3.FuncDeclRef) and
                make.kind() in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT))]
    equalities += [z3.fpEQ(a, b) for a, b in _float_orderings(condition)]
    out: list[z3.BoolRef] = []
    seen: set[int] = set()
    for equal in equalities:
        if equal.get_id() not in seen:
            seen.add(equal.get_id())
            out.append(equal)
    return out


def near_sides(condition: z3.BoolRef) -> list[z3.BoolRef]:
    """For each ordering comparison of two integers in a branch `condition` as written:
    that its left side is one step from its right side, without wrapping around, on the
    side where the comparison's outcome differs from its outcome with equal sides
    (`a + 1 == b` for `a < b` and for `a <= b`). With `equal_sides`, it tells a constant
    one off (`v >= 10` from `v >= 9`, which `v == 10` does not)."""
    out: list[z3.BoolRef] = []
    seen: set[int] = set()
    for make, a, b, unsigned in _comparisons(condition):
        if isinstance(make, z3.FuncDeclRef) and \
                make.kind() in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT):
            continue
        bits = a.size()
        high, low = ((1 << bits) - 1, 0) if unsigned else \
            ((1 << (bits - 1)) - 1, 1 << (bits - 1))
        turned = z3.Xor(make(a, b), make(b, b))  # not the outcome of equal sides
        near = z3.And(turned, z3.Or(z3.And(a != high, a + 1 == b),
                                    z3.And(a != low, a - 1 == b)))
        if near.get_id() not in seen:
            seen.add(near.get_id())
            out.append(near)
    return out


def opposite_zeros(condition: z3.BoolRef) -> list[z3.BoolRef]:
    """For each floating-point ordering in a branch `condition` as written whose sides
    may both be 0 (neither is a constant other than 0): that they are zeros of opposite
    signs. -0.0 and +0.0 are equal, so `>` and `>=` decide them apart, and unlike equal
    sides of another value, what the function then returns or stores tells which one it
    took (`a > b ? b : a`)."""
    out: list[z3.BoolRef] = []
    seen: set[int] = set()
    for a, b in _float_orderings(condition):
        if any(z3.is_fp_value(x) and not x.isZero() for x in (a, b)):
            continue
        zeros = z3.And(z3.fpIsZero(a), z3.fpIsZero(b),
                       z3.fpIsNegative(a) != z3.fpIsNegative(b))
        if zeros.get_id() not in seen:
            seen.add(zeros.get_id())
            out.append(zeros)
    return out


def outcomes(compared: z3.BoolRef) -> list[tuple[str, z3.BoolRef]]:
    """The outcomes a case should give a comparison whose value the function uses as a
    number (`return a >= b;`), by name with their conditions: its left side "below",
    "equal to" and "above" its right side, which tell each comparison operator from every
    other (`>=` is false, true, true; `==` false, true, false); "true" and "false" for a
    comparison of other operands."""
    sides: tuple[z3.ExprRef, z3.ExprRef] | None = None
    below: Callable[[z3.ExprRef, z3.ExprRef], z3.BoolRef] = z3.fpLT
    equal: Callable[[z3.ExprRef, z3.ExprRef], z3.BoolRef] = z3.fpEQ
    found = _comparisons(compared)
    if len(found) == 1:
        _, a, b, unsigned = found[0]
        sides, equal = (a, b), (lambda p, q: p == q)
        below = z3.ULT if unsigned else (lambda p, q: p < q)
    else:
        floats = [(atom.arg(0), atom.arg(1)) for atom in _atoms(compared)
                  if atom.decl().kind() in _FLOAT_COMPARISONS and atom.num_args() == 2]
        if len(floats) == 1:
            sides = floats[0]
    if sides is None:
        return [("true", compared), ("false", z3.Not(compared))]
    a, b = sides
    return [("below", below(a, b)), ("equal", equal(a, b)), ("above", below(b, a))]


_FLOAT_ORDERINGS: Final = frozenset({
    z3.Z3_OP_FPA_LT, z3.Z3_OP_FPA_GT, z3.Z3_OP_FPA_LE, z3.Z3_OP_FPA_GE})
_FLOAT_COMPARISONS: Final = _FLOAT_ORDERINGS | {z3.Z3_OP_FPA_EQ}


def _float_orderings(condition: z3.ExprRef) -> list[tuple[z3.FPRef, z3.FPRef]]:
    """The operands of the floating-point orderings in `condition`, through the
    connectives (as `_comparisons` finds the integer ones)."""
    found = []
    for atom in _atoms(condition):
        if atom.decl().kind() in _FLOAT_ORDERINGS and atom.num_args() == 2:
            a, b = atom.arg(0), atom.arg(1)
            if isinstance(a, z3.FPRef) and isinstance(b, z3.FPRef) and \
                    not (z3.is_fp_value(a) and z3.is_fp_value(b)):
                found.append((a, b))
    return found
