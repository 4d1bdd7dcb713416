"""gcc's folds of truth values (pytest_ctgen.ir.gccfold), rule by rule. Their effect on
whole functions, compared with gcov, is tested in test_ir_lowering.py."""
from __future__ import annotations

import pytest

from pytest_ctgen.errors import SourceLocation
from pytest_ctgen.frontend.ctype import BOOL, DOUBLE, INT, LONG, UINT, PointerType
from pytest_ctgen.frontend.unit import LOCAL, Variable
from pytest_ctgen.ir import gccfold
from pytest_ctgen.ir.expr import AddrOf, Binary, Cast, Const, Load, Unary, VarRef
from pytest_ctgen.ir.gccfold import COMPARISON, TRUTH, Conditional

HERE = SourceLocation("f.c", 1, 1)


def var(name: str, ctype=INT) -> Load:  # type: ignore[no-untyped-def]
    return Load(VarRef(Variable(name, ctype, LOCAL, HERE, "@"), ctype), ctype)


X, Y = var("x"), var("y")
D = var("d", DOUBLE)
B = var("b", BOOL)
LESS = Binary("<", X, Const(INT, 3), INT)


def test_comparisons_as_gcc_sees_them() -> None:
    none: set[Variable] = set()
    assert gccfold.kind(LESS, none) == COMPARISON
    assert gccfold.kind(Cast(LESS, LONG), none) == COMPARISON  # retyped, still one
    assert gccfold.kind(Unary("!", X, INT), none) == COMPARISON  # x == 0
    assert gccfold.kind(Cast(X, BOOL), none) == COMPARISON  # x != 0
    assert gccfold.kind(Unary("!", B, INT), none) == TRUTH  # no comparison of a _Bool
    assert gccfold.kind(B, none) is None and gccfold.kind(X, none) is None
    ordered = Binary("<", D, Const(DOUBLE, 1.0), INT)
    assert gccfold.kind(Unary("!", ordered, INT), none) == TRUTH  # not inverted (NaN)
    temp = Variable("ctgen.t0", INT, LOCAL, HERE, "@")
    assert gccfold.kind(Load(VarRef(temp, INT), INT), {temp}) == TRUTH  # an `a && b`


@pytest.mark.parametrize("then, otherwise, expected", [
    (1, 0, "(x < 3)"), (0, 1, "!(x < 3)"), (5, 5, "5"), (2, 0, None)])
def test_constant_arms_fold(then: int, otherwise: int, expected: str | None) -> None:
    from pytest_ctgen.ir.expr import describe

    e = gccfold.conditional(LESS, Const(INT, then), Const(INT, otherwise), INT, HERE, INT)
    if expected is None:
        assert isinstance(e, Conditional)
    else:
        assert describe(e) == expected


def test_negations_only_where_gcc_simplifies_first() -> None:
    minus_one = Const(UINT, UINT.wrap(-1))
    with_negation = gccfold.conditional(LESS, minus_one, Const(UINT, 0), UINT, HERE, UINT,
                                        negations=True)
    assert isinstance(with_negation, Unary) and with_negation.op == "-"
    plain = gccfold.conditional(LESS, minus_one, Const(UINT, 0), UINT, HERE, UINT)
    assert isinstance(plain, Conditional)


def test_one_and_zero_make_the_condition_only_of_its_own_type() -> None:
    """`x ? 1u : 0u` stays a jump: the condition is an int, the conditional unsigned."""
    e = gccfold.conditional(LESS, Const(UINT, 1), Const(UINT, 0), UINT, HERE, INT)
    assert isinstance(e, Conditional)
    kept = gccfold.conditional(B, Const(INT, 1), Const(INT, 0), INT, HERE, BOOL)
    assert isinstance(kept, Conditional)  # `b ? 1 : 0` folds where it is used
    assert gccfold.choice(kept) is not None


def test_arms_of_an_operand() -> None:
    none: set[Variable] = set()
    c = gccfold.arms(LESS, "*", none)
    assert c is not None and (c.then.value, c.otherwise.value) == (1, 0)  # type: ignore[attr-defined]
    negated = gccfold.arms(Unary("-", LESS, INT), "+", none)
    assert negated is not None and negated.then.value == -1  # type: ignore[attr-defined]
    assert gccfold.arms(Unary("-", LESS, INT), "<<", none) is None
    assert gccfold.arms(Unary("~", LESS, INT), "*", none) is None
    assert gccfold.arms(X, "+", none) is None


def test_operations_that_could_trap_are_not_distributed() -> None:
    assert gccfold.could_trap("/", INT, True, 2)  # 2 / cmp
    assert gccfold.could_trap("%", INT, False, 0)  # cmp % 0
    assert not gccfold.could_trap("/", INT, False, 2)
    assert gccfold.could_trap("+", DOUBLE, False, 1.0)  # -ftrapping-math
    assert not gccfold.could_trap("==", DOUBLE, False, 1.0)


@pytest.mark.parametrize("op, bound, expected", [
    ("<", 10, (-9, 9)), ("<=", 10, (-10, 10)), ("<", 1, (0, 0)), ("<", 0, False),
    ("<", -5, False), ("<", 2147483646, (-2147483645, 2147483645)),
    ("<", 2147483647, None), ("<=", 2147483647, None)])
def test_abs_ranges(op: str, bound: int, expected: object) -> None:
    assert gccfold.abs_range(op, bound, INT) == expected


def test_same_and_inverse_tests() -> None:
    same = Binary("<", X, Const(INT, 3), INT)
    assert gccfold.relation(same, LESS) is True
    assert gccfold.relation(Binary(">=", X, Const(INT, 3), INT), LESS) is False
    assert gccfold.relation(Unary("!", X, INT), Cast(X, BOOL)) is False  # x == 0, x != 0
    assert gccfold.relation(Binary("<", Y, Const(INT, 3), INT), LESS) is None
    ordered = Binary("<", D, Const(DOUBLE, 1.0), INT)
    assert gccfold.relation(Binary(">=", D, Const(DOUBLE, 1.0), INT), ordered) is None


def test_identities_and_known_nonzero_values() -> None:
    assert gccfold.identity(Binary("%", X, Const(INT, 1), INT)) is not None
    assert gccfold.identity(Binary("*", Const(INT, 0), X, INT)) is not None
    assert gccfold.identity(Binary("%", X, Const(UINT, UINT.wrap(-1)), UINT)) is None
    address = AddrOf(VarRef(Variable("g", INT, LOCAL, HERE, "@"), INT), PointerType(INT))
    assert gccfold.known_nonzero(address)
    assert gccfold.known_nonzero(Const(INT, 7)) and not gccfold.known_nonzero(X)


def test_a_conditional_known_true_or_false() -> None:
    inner = Conditional(Binary("==", Y, Const(INT, 0), INT), Const(INT, -1), Const(INT, 1),
                        INT, HERE, INT)
    outer = Conditional(LESS, inner, Const(INT, 0), INT, HERE, INT)
    assert gccfold.truth_constant(inner) == 1
    assert gccfold.truth_constant(outer) is None
