"""Evaluation of IR expressions to symbolic values, one evaluator per expression node:
C's arithmetic in z3 (see values.py), with what is undefined in it a finding (see
`contracts.undefined_unless`), pointers compared, offset and converted to integers."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import z3

from ..frontend.ctype import (
    LONG,
    UCHAR,
    ULONG,
    CType,
    IntType,
    PointerType,
    VoidType,
    strip_enum,
)
from ..ir.expr import (
    COMPARISON_OPS,
    AddrOf,
    Binary,
    BitOp,
    Cast,
    Classify,
    Const,
    Deref,
    Expr,
    FunctionRef,
    Load,
    Logical,
    Member,
    OverflowFlag,
    PtrAdd,
    PtrDiff,
    Select,
    StringLit,
    Unary,
    VarRef,
    describe,
    written_constant,
)
from . import access, addresses, contracts, function_pointers, inputs
from .dispatch import handler_for
from .effect_tests import Evaluation
from .operand_tests import OPERATION_TESTS, operand_goals
from .paths import PathError
from .state import State
from .use_tests import note_uses
from .values import (
    AliasPtr,
    PtrVal,
    SymValue,
    Undefined,
    arithmetic,
    bit_builtin,
    bool_to_int,
    classify,
    compare,
    constant,
    convert,
    exact_quotient,
    negation_overflow,
    overflows,
    signed_overflow,
    truth,
    unary,
    zero64,
)

if TYPE_CHECKING:
    from .executor import Executor


def evaluate(ex: Executor, state: State, e: Expr) -> SymValue:
    """The value of `e` in the current frame of `state`."""
    evaluator = handler_for(EVALUATORS, e)
    if evaluator is None:
        raise PathError(f"expression {describe(e)}", unsupported=True)
    return evaluator(ex, state, e)


def condition(ex: Executor, state: State, t: CType, v: SymValue) -> z3.BoolRef:
    """The condition `v != 0`; a pointer tested so may be NULL where it is used next
    (see `access.dereference`)."""
    access.within_depth(ex, v)
    access.tested(state, v)
    return truth(t, v)


def guarded(ex: Executor, state: State, guard: z3.BoolRef, e: Expr) -> SymValue:
    """`e`, whose conditions of being defined (in bounds, not NULL, ...) are needed
    only where `guard` holds."""
    before = len(state.constraints)
    ex.guards.append(guard)
    try:
        return evaluate(ex, state, e)
    finally:  # also when a choice interrupts it: the statement runs again after it
        ex.guards.pop()
        added = state.constraints[before:]
        del state.constraints[before:]
        for c in added:
            state.assume(z3.Implies(guard, c))


def _const(ex: Executor, state: State, e: Const) -> SymValue:
    return constant(e.type, e.value)


def _load(ex: Executor, state: State, e: Load) -> SymValue:
    return access.load(ex, state, e.lvalue)


def _lvalue(ex: Executor, state: State, e: Expr) -> SymValue:
    return access.load(ex, state, e)


def _cast(ex: Executor, state: State, e: Cast) -> SymValue:
    v = evaluate(ex, state, e.operand)
    src, dst = strip_enum(e.operand.type), strip_enum(e.type)
    if isinstance(src, PointerType) and isinstance(dst, IntType) and \
            not dst.is_bool and isinstance(v, (PtrVal, AliasPtr)):
        return pointer_as_integer(ex, state, v, dst)
    if isinstance(src, IntType) and isinstance(dst, PointerType):
        wide, _ = convert(v, src, LONG if src.signed else ULONG)
        assert isinstance(wide, z3.BitVecRef)
        return addresses.pointer_from_integer(state.addresses, wide)
    if isinstance(src, PointerType) and isinstance(dst, IntType) and dst.is_bool:
        access.tested(state, v)  # (_Bool)p
    result, errors = convert(v, e.operand.type, e.type)
    contracts.undefined_unless(ex, state, errors, describe(e))
    return result


def _binary(ex: Executor, state: State, e: Binary) -> SymValue:
    a = evaluate(ex, state, e.left)
    b = evaluate(ex, state, e.right)
    if e.op in COMPARISON_OPS:
        if isinstance(a, (PtrVal, AliasPtr)):
            return bool_to_int(compare_pointers(ex, state, e, a, b))
        compared = compare(e.op, e.left.type, a, b)
        if len(state.frames) == 1:
            site = ex.value_sites.get(id(e))
            if site is not None:
                state.value_tests.append((site, compared, len(state.constraints)))
            site = ex.comparison_sites.get(id(e))
            if site is not None and state.assigned and isinstance(a, z3.BitVecRef) and \
                    isinstance(b, z3.BitVecRef):
                note_uses(state, e, site, compared, a, b)
        return bool_to_int(compared)
    result, errors = arithmetic(e.op, e.type, a, b, e.right.type)
    contracts.undefined_unless(ex, state, errors, describe(e)[1:-1])  # without its ( )
    site = ex.operation_sites.get(id(e))
    if site is not None and len(state.frames) == 1 and isinstance(a, z3.BitVecRef) and \
            isinstance(b, z3.BitVecRef) and \
            sum(t[0] == (site, "operands") for t in state.operation_tests) < OPERATION_TESTS:
        known = len(state.constraints)
        state.operation_tests += [((site, kind), goal, known) for kind, goal in
                                  operand_goals(e.op, e.type, a, b, e.right.type)]
        literal = {(False, True): "b", (True, False): "a"}.get(
            (written_constant(e.left) is not None, written_constant(e.right) is not None))
        state.operation_results.append(
            Evaluation(site, e.op, e.type, a, b, e.right.type, literal))
    if isinstance(e.type, IntType) and e.type.signed and e.op in ("+", "-", "*"):
        _overflow(ex, state, signed_overflow(e.op, a, b), describe(e)[1:-1])
    return result


def _overflow(ex: Executor, state: State, overflow: z3.BoolRef, text: str) -> None:
    """Signed arithmetic `text` overflows where `overflow` holds: a finding, or a note on
    the case (`Executor.overflow_is_finding`)."""
    if z3.is_false(z3.simplify(overflow)):
        return
    if ex.overflow_is_finding:
        contracts.undefined_unless(ex, state, (Undefined(overflow, "signed overflow"),), text)
    else:
        state.overflows.append(overflow)


def _logical(ex: Executor, state: State, e: Logical) -> SymValue:
    left = condition(ex, state, e.left.type, evaluate(ex, state, e.left))
    # the right operand is evaluated only where the left one does not decide
    guard = left if e.op == "&&" else z3.Not(left)
    right = condition(ex, state, e.right.type, guarded(ex, state, guard, e.right))
    combine = z3.And if e.op == "&&" else z3.Or
    return bool_to_int(combine(left, right))


def _select(ex: Executor, state: State, e: Select) -> SymValue:
    c = condition(ex, state, e.condition.type, evaluate(ex, state, e.condition))
    a = guarded(ex, state, c, e.then)
    b = guarded(ex, state, z3.Not(c), e.otherwise)
    same_sort = (isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)) or \
        (isinstance(a, z3.FPRef) and isinstance(b, z3.FPRef))
    if not same_sort:
        raise PathError(f"?: of non-arithmetic values: {describe(e)}",
                        unsupported=True)
    return z3.If(c, a, b)


def _unary(ex: Executor, state: State, e: Unary) -> SymValue:
    v = evaluate(ex, state, e.operand)
    if e.op == "!":
        return bool_to_int(z3.Not(condition(ex, state, e.operand.type, v)))
    if e.op == "-" and isinstance(e.type, IntType) and e.type.signed:
        _overflow(ex, state, negation_overflow(v), describe(e))
    return unary(e.op, e.type, v)


def _address_of(ex: Executor, state: State, e: AddrOf) -> SymValue:
    if isinstance(e.lvalue, FunctionRef):
        if e.lvalue.pointer is not None:
            return evaluate(ex, state, e.lvalue.pointer)
        return PtrVal(function_pointers.function_object(ex, state, e.lvalue.name), zero64())
    loc = access.locate(ex, state, e.lvalue)
    if not isinstance(loc, access.InMemory):
        raise PathError(f"address of a register variable {describe(e.lvalue)}")
    return PtrVal(loc.object_id, loc.offset)


def _pointer_add(ex: Executor, state: State, e: PtrAdd) -> SymValue:
    p = inputs.resolve(ex, state, evaluate(ex, state, e.pointer))
    i = evaluate(ex, state, e.index)
    assert isinstance(p, PtrVal) and isinstance(i, z3.BitVecRef)
    zero = z3.is_bv_value(z3.simplify(i)) and z3.simplify(i).as_long() == 0
    if zero:
        return p
    # undefined on NULL (C11 6.5.6p8): as a dereference, a finding where the path may have
    # NULL there, else the path needs a pointer there
    access.dereference(ex, state, p, f"arithmetic on the NULL pointer {describe(e.pointer)}")
    assert isinstance(e.type, PointerType)
    target = e.type.target
    size = 1 if isinstance(target, VoidType) else target.size
    return PtrVal(p.base, z3.simplify(p.offset + i * size), p.null)


def _pointer_difference(ex: Executor, state: State, e: PtrDiff) -> SymValue:
    a = inputs.resolve(ex, state, evaluate(ex, state, e.left))
    b = inputs.resolve(ex, state, evaluate(ex, state, e.right))
    assert isinstance(a, PtrVal) and isinstance(b, PtrVal)
    access.into_one_object(ex, state, a, b, (describe(e.left), describe(e.right)),
                           describe(e)[1:-1])  # without its ( )
    assert isinstance(e.left.type, PointerType)
    return exact_quotient(a.offset - b.offset, max(1, e.left.type.target.size))


def _classify(ex: Executor, state: State, e: Classify) -> SymValue:
    x = evaluate(ex, state, e.operand)
    assert isinstance(x, z3.FPRef)
    return classify(e.name, x, e.results)


def _overflow_flag(ex: Executor, state: State, e: OverflowFlag) -> SymValue:
    a, b = evaluate(ex, state, e.left), evaluate(ex, state, e.right)
    left_type, right_type = strip_enum(e.left.type), strip_enum(e.right.type)
    assert isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
    assert isinstance(left_type, IntType) and isinstance(right_type, IntType)
    assert isinstance(e.type, IntType)
    return bool_to_int(overflows(e.op, a, left_type, b, right_type, e.target),
                       e.type.bits)


def _bit_operation(ex: Executor, state: State, e: BitOp) -> SymValue:
    x = evaluate(ex, state, e.operand)
    assert isinstance(x, z3.BitVecRef) and isinstance(e.type, IntType)
    value, errors = bit_builtin(e.operation, x, e.type)
    contracts.undefined_unless(ex, state, errors, describe(e))
    return value


# each handler takes the node class it is listed for (Any: a dict's type cannot say that)
EVALUATORS: dict[type, Callable[[Executor, State, Any], SymValue]] = {
    Const: _const, Load: _load, Cast: _cast, Binary: _binary, Logical: _logical,
    Select: _select, Unary: _unary, AddrOf: _address_of, PtrAdd: _pointer_add,
    PtrDiff: _pointer_difference, Classify: _classify, OverflowFlag: _overflow_flag,
    BitOp: _bit_operation, VarRef: _lvalue, Deref: _lvalue, Member: _lvalue,
    StringLit: _lvalue}


def compare_pointers(ex: Executor, state: State, e: Binary, a: SymValue, b: SymValue
                     ) -> z3.BoolRef:
    """`a op b` (`e`) for pointers. A test against a NULL constant leaves aliasing open;
    relational comparison is defined only within one object (see
    access.into_one_object)."""
    op = e.op
    access.within_depth(ex, a)
    access.within_depth(ex, b)
    null_a = isinstance(a, PtrVal) and a.is_null
    null_b = isinstance(b, PtrVal) and b.is_null
    if null_a or null_b:  # a NULL test (`p == q` between two pointers is none)
        access.tested(state, a)
        access.tested(state, b)
    if op in ("==", "!=") and (null_a or null_b):
        assert isinstance(a, (PtrVal, AliasPtr)) and isinstance(b, (PtrVal, AliasPtr))
        same = z3.And(a.null_condition(), b.null_condition())
        return same if op == "==" else z3.Not(same)
    a = inputs.resolve(ex, state, a)
    b = inputs.resolve(ex, state, b)
    assert isinstance(a, PtrVal) and isinstance(b, PtrVal)
    if op not in ("==", "!="):
        access.into_one_object(ex, state, a, b, (describe(e.left), describe(e.right)),
                               describe(e)[1:-1])  # without its ( )
    return compare(op, PointerType(UCHAR), a, b)


def pointer_as_integer(ex: Executor, state: State, v: PtrVal | AliasPtr, dst: IntType
                       ) -> z3.BitVecRef:
    """`(dst)v`: the address of the object `v` points into plus its offset, 0 for
    NULL (see addresses.py)."""
    p = inputs.resolve(ex, state, v)
    assert isinstance(p, PtrVal)
    if p.base is not None and state.memory[p.base].function is not None:
        raise PathError("the address of a function converted to an integer",
                        unsupported=True)
    if p.is_null:
        value: z3.BitVecRef = zero64()
    else:
        assert p.base is not None
        value = address(state, p.base) + p.offset
        if p.null is not None:
            value = z3.If(p.null, zero64(), value)
    result, _ = convert(value, ULONG, dst)
    assert isinstance(result, z3.BitVecRef)
    return result


def address(state: State, object_id: int) -> z3.BitVecRef:
    """The address of an object as a 64-bit term, exposed on first use: an object the
    case sets up is placed by the harness at a residue the case chooses."""
    known = state.addresses.get(object_id)
    if known is not None:
        return known.value
    placed = object_id in state.input_objects()
    static = object_id in state.globals.values() or object_id in state.strings.values() \
        or state.memory[object_id].function is not None
    exposed, facts = addresses.expose(state.addresses, state.memory[object_id],
                                      alignment(state, object_id), placed,
                                      automatic=not placed and not static)
    for fact in facts:
        state.assume_address_fact(fact)
    return exposed.value


def alignment(state: State, object_id: int) -> int:
    """The alignment of an object's type (1 for a temporary or a string literal)."""
    ctype = object_type(state, object_id)
    return ctype.align if ctype is not None else 1


def object_type(state: State, object_id: int) -> CType | None:
    """The type of an object: an input pointer's pointee, a global or a local (None for a
    temporary, a heap object or a string literal)."""
    for p in state.pointees:
        if p.object_id == object_id and p.type is not None:
            return p.type
    for var, oid in state.globals.items():
        if oid == object_id:
            return var.type
    for frame in state.frames:
        for var, oid in frame.objects.items():
            if oid == object_id:
                return var.type
    return None
