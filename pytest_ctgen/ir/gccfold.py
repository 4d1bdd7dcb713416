"""What gcc -O0 makes of truth values: which become conditional jumps the source does not
spell, and which conditionals of the source fold away (GCC 12's fold-const, applied as
the C front end builds each expression, before any optimization).

gcov counts an outcome for each edge of each conditional jump of the -O0 build. The
lowering (ir/lower_cond.py, ir/lookahead.py, ir/lower_expr.py) follows these rules, so that
the branches of the CFG are gcc's:

- a comparison combined by an arithmetic, bitwise or comparison operator with a constant
  is `cmp ? (1 op k) : (0 op k)` (fold_binary_op_with_conditional_arg): a jump, unless
  the arms fold (`conditional`: to one constant, the comparison, its negation); an
  operator or a conversion applied to such a conditional (and a constant) goes into its
  arms; `-cmp` is distributed over in a sum, a difference or a product, `~cmp` in a sum or
  a difference (gcc rewrites `-a * c` as `a * -c`, `~a + c` as `(c - 1) - a`);
- a comparison converted to a floating type is `cmp ? 1.0 : 0.0`;
- `abs(x) < c` and `abs(x) <= c` are `x >= -c' && x <= c'` (`abs_range`);
- `x % 1`, `x * 0`, `x & 0` are 0 whatever x (`identity`);
- `a ? (a ? x : y) : z` is `a ? x : z` (`relation`); an address is never NULL
  (`known_nonzero`).

The lowering applies the rules that need its context: `&&` and `||` with a constant
operand, `?:` with constant or truth-valued arms, `__builtin_fpclassify`.

"Comparison" is gcc's COMPARISON_CLASS_P: besides `a < b` and kin, `!x` is `x == 0` and
`(_Bool)x` is `x != 0`, while `!b` of a _Bool `b` and `!(a && b)` are other truth values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, is_dataclass
from collections.abc import Container
from typing import Final, Literal

from ..errors import SourceLocation
from ..frontend.constant_eval import COMPARISONS, convert_constant
from ..frontend.ctype import INT, LLONG, LONG, CType, FloatType, IntType, PointerType
from ..frontend.unit import Variable
from .constants import fold
from .expr import (
    AddrOf, Binary, Cast, Const, Expr, FunctionRef, Load, Member, Select,
    StringLit, Unary, VarRef)

Number = int | float

#: The kinds of truth value gcc's trees tell apart (see `kind`).
TruthKind = Literal["comparison", "truth"]
COMPARISON: Final = "comparison"  # COMPARISON_CLASS_P
TRUTH: Final = "truth"  # another truth value: `!b` of a _Bool b, `a && b`, `a || b`

#: The C library's absolute value functions gcc knows, by name: their argument type.
ABS_FUNCTIONS = {"abs": INT, "labs": LONG, "llabs": LLONG, "imaxabs": LONG}
ABS_FUNCTIONS.update({"__builtin_" + name: t for name, t in list(ABS_FUNCTIONS.items())})


@dataclass(frozen=True, eq=False)
class Conditional(Select):
    """`condition ? then : otherwise`, which gcc computes with a conditional jump at
    `location`; its arms are constants, side-effect-free values or Conditionals. The
    lowering keeps it as a value while gcc could still fold it with a constant, and turns
    it into branches where the value is used. `condition_type` is the type gcc gives the
    condition: the arms 1 and 0 make the condition itself only when that is the
    conditional's type (or _Bool)."""

    location: SourceLocation | None = None
    condition_type: CType = INT


def _integer(t: CType) -> bool:
    return isinstance(t, IntType)


def _is_bool(t: CType) -> bool:
    return isinstance(t, IntType) and t.is_bool


def kind(e: Expr, conditions: Container[Variable]) -> TruthKind | None:
    """COMPARISON or TRUTH when gcc's tree for `e` is that kind of truth value, else None.
    `conditions` are the temporaries holding the value of a `&&` or `||`."""
    while isinstance(e, Cast) and _integer(e.type) and not _is_bool(e.type) and \
            _integer(e.operand.type):
        e = e.operand  # an integer conversion of a comparison is a comparison of that type
    if isinstance(e, Binary):
        return COMPARISON if e.op in COMPARISONS else None
    if isinstance(e, Cast) and _is_bool(e.type):
        inner = kind(e.operand, conditions)
        return inner if inner or _is_bool(e.operand.type) else COMPARISON  # `x != 0`
    if isinstance(e, Unary) and e.op == "!":
        inner = kind(e.operand, conditions)
        if inner == COMPARISON:
            return COMPARISON if invertible(e.operand) else TRUTH
        if inner == TRUTH or _is_bool(e.operand.type):
            return TRUTH
        return COMPARISON  # `x == 0`
    if isinstance(e, Load) and isinstance(e.lvalue, VarRef) and e.lvalue.var in conditions:
        return TRUTH
    return None


def invertible(e: Expr) -> bool:
    """Whether gcc inverts the truth value `e` in place (fold_invert_truthvalue): not an
    ordered comparison of floating values (its inverse would trap differently)."""
    while isinstance(e, Cast) and _integer(e.type) and _integer(e.operand.type):
        e = e.operand
    return not (isinstance(e, Binary) and e.op in ("<", "<=", ">", ">=") and
                isinstance(e.left.type, FloatType))


def known_nonzero(e: Expr) -> bool:
    """gcc's tree_expr_nonzero_p for the values a test sees: a nonzero constant, the
    address of an object or a function (-fdelete-null-pointer-checks)."""
    value = fold(e)
    if value is not None:
        return value != 0
    while isinstance(e, Cast) and isinstance(e.type, PointerType):
        e = e.operand
    if not isinstance(e, AddrOf):
        return False
    target = e.lvalue
    while isinstance(target, Member):
        target = target.base
    return isinstance(target, (VarRef, StringLit)) or \
        (isinstance(target, FunctionRef) and target.pointer is None)


def identity(e: Binary) -> Expr | None:
    """gcc's algebraic folds of an integer operation that make it a constant whatever the
    other operand (match.pd): `x % 1`, `x % -1`, `x * 0`, `x & 0` are 0."""
    if not isinstance(e.type, IntType):
        return None
    left, right = fold(e.left), fold(e.right)
    if (e.op == "%" and (right == 1 or (right == -1 and e.type.signed))) or \
            (e.op in ("*", "&") and 0 in (left, right)):
        return Const(e.type, 0)
    return None


def relation(inner: Expr, outer: Expr) -> bool | None:
    """True when the truth values `inner` and `outer` are the same test, False when one is
    the negation of the other (so gcc folds `a ? (a ? x : y) : z` to `a ? x : z`), None
    otherwise."""
    a, b = _test(inner), _test(outer)
    if a is None or b is None or not (same(a[1], b[1]) and same(a[2], b[2])):
        return None
    if a[0] == b[0]:
        return True
    floating = isinstance(a[1].type, FloatType) and a[0] not in ("==", "!=")
    return False if _INVERSE[a[0]] == b[0] and not floating else None


_INVERSE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _test(e: Expr) -> tuple[str, Expr, Expr | None] | None:
    """The comparison gcc has for the truth value `e`: `(_Bool)x` is `x != 0`, `!x` is
    `x == 0` (or the inverse of the comparison x); None for other values."""
    while isinstance(e, Cast) and _integer(e.type) and not _is_bool(e.type) and \
            _integer(e.operand.type):
        e = e.operand
    if isinstance(e, Binary) and e.op in _INVERSE:
        return e.op, e.left, e.right
    if isinstance(e, Cast) and _is_bool(e.type) and not _is_bool(e.operand.type):
        return _test(e.operand) or ("!=", e.operand, None)
    if isinstance(e, Unary) and e.op == "!" and not _is_bool(e.operand.type):
        inner = _test(e.operand)
        if inner is None:
            return "==", e.operand, None
        if isinstance(inner[1].type, FloatType) and inner[0] not in ("==", "!="):
            return None
        return _INVERSE[inner[0]], inner[1], inner[2]
    return None


def same(a: object, b: object) -> bool:
    """Structural equality of two expressions (variables by identity)."""
    if isinstance(a, Expr) or isinstance(b, Expr):
        if type(a) is not type(b):
            return False
        if isinstance(a, Const) and isinstance(b, Const):  # both or neither: same type
            return a.type == b.type and _same(a.value, b.value)
        assert is_dataclass(a) and not isinstance(a, type)  # as every IR node is
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, Variable):
        return a is b
    return a == b


def choice(c: Conditional) -> Expr | None:
    """gcc's fold of `a ? 1 : 0` to `a` (where `a` has the conditional's type, or is a
    _Bool) and of `a ? 0 : 1` to `!a`: no jump; None for another conditional."""
    if not (isinstance(c.then, Const) and isinstance(c.otherwise, Const) and
            isinstance(c.type, IntType)):
        return None
    arms = (c.then.value, c.otherwise.value)
    if arms == (1, 0) and (c.condition_type == c.type or _is_bool(c.condition_type)):
        return _as(c.condition, c.type)
    if arms == (0, 1):
        return _as(Unary("!", c.condition, INT), c.type)
    return None


def truth_constant(e: Expr) -> int | None:
    """1 or 0 when the value `e` is known to be nonzero or zero: a constant, or a
    Conditional whose arms agree on it."""
    value = fold(e)
    if value is not None:
        return int(value != 0)
    if isinstance(e, Conditional):
        then, otherwise = truth_constant(e.then), truth_constant(e.otherwise)
        return then if then == otherwise else None
    return None


def _same(a: Number, b: Number) -> bool:
    """gcc's operand_equal_p on two constants: 0.0 and -0.0 differ."""
    if isinstance(a, float) or isinstance(b, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def _as(e: Expr, t: CType) -> Expr:
    return e if e.type == t else Cast(e, t)


def conditional(condition: Expr, then: Expr, otherwise: Expr, ctype: CType,
                location: SourceLocation | None, condition_type: CType,
                negations: bool = False, eager: bool = True) -> Expr:
    """gcc's fold of `condition ? then : otherwise` with arms of `ctype` (fold_ternary):
    one arm when both are the same; with `eager`, for integer constant arms 1 and 0 the
    condition itself (`choice`), 0 and 1 its negation (not of a _Bool, which is no truth
    value to gcc); with `negations` (arms made from a comparison operand, which gcc
    simplifies before it distributes) -1 and 0 `-condition`, -2 and -1 `~condition`;
    else a Conditional. A `?:` of the source folds only where its value is used (not
    `eager`): converted first (`n - (b ? 1 : 0)` of a long n), it stays a jump."""
    if same(then, otherwise):
        return then
    if isinstance(then, Const) and isinstance(otherwise, Const) and \
            isinstance(ctype, IntType):
        c = Conditional(condition, then, otherwise, ctype, location, condition_type)
        folded = choice(c) if eager and not (_is_bool(condition_type) and
                                             not ctype.is_bool) else None
        if folded is not None:
            return folded
        values = then.value, otherwise.value
        if negations and values == (ctype.wrap(-1), 0):
            return Unary("-", _as(condition, ctype), ctype)
        if negations and values == (ctype.wrap(-2), ctype.wrap(-1)):
            return Unary("~", _as(condition, ctype), ctype)
        then, otherwise = Const(ctype, values[0]), Const(ctype, values[1])
    return Conditional(condition, then, otherwise, ctype, location, condition_type)


def arms(e: Expr, op: str, conditions: Container[Variable]) -> Conditional | None:
    """`e`, an operand of `op` whose other operand is a constant, as the conditional gcc
    distributes `op` into: a Conditional, or a comparison as `cmp ? 1 : 0` (`-cmp` in a
    sum, difference or product as `cmp ? -1 : 0`, `~cmp` in a sum or difference as
    `cmp ? -2 : -1`), whose `condition_type` is its own type; None when gcc does not."""
    if isinstance(e, Conditional):
        return e
    if kind(e, conditions) == COMPARISON:
        return Conditional(e, Const(e.type, 1), Const(e.type, 0), e.type, None, e.type)
    if isinstance(e, Cast) and _integer(e.type) and _integer(e.operand.type):
        inner = arms(e.operand, op, conditions)
        if inner is None or not (isinstance(inner.then, Const) and
                                 isinstance(inner.otherwise, Const)):
            return None
        then, otherwise = (convert_constant(v.value, e.operand.type, e.type)
                           for v in (inner.then, inner.otherwise))
        assert then is not None and otherwise is not None
        return Conditional(inner.condition, Const(e.type, then), Const(e.type, otherwise),
                           e.type, None, e.type)
    if isinstance(e, Unary) and isinstance(e.type, IntType) and \
            kind(e.operand, conditions) == COMPARISON and \
            ((e.op == "-" and op in ("+", "-", "*")) or (e.op == "~" and op in ("+", "-"))):
        then, otherwise = (-1, 0) if e.op == "-" else (-2, -1)
        return Conditional(e.operand, Const(e.type, e.type.wrap(then)),
                           Const(e.type, e.type.wrap(otherwise)), e.type, None, e.type)
    return None


def could_trap(op: str, operation_type: CType, condition_is_divisor: bool,
               constant: Number) -> bool:
    """gcc's operation_could_trap_p, which keeps it from distributing `op`: a division by
    the conditional or by zero; floating arithmetic and ordered comparisons (-ftrapping-math
    is the default)."""
    if isinstance(operation_type, FloatType):
        return op not in ("==", "!=")
    return op in ("/", "%") and (condition_is_divisor or constant == 0)


def abs_range(op: str, bound: int, abs_type: IntType) -> tuple[int, int] | bool | None:
    """gcc's fold of `abs(x) op bound` for `op` `<` or `<=` and `bound` of the argument
    type `abs_type`: (low, high) when it is `x >= low && x <= high` (two jumps), False when
    it is false, None when gcc keeps the comparison (no jump)."""
    high = bound - 1 if op == "<" else bound
    if high < 0:
        return False
    if high > abs_type.max_value - 2:
        return None  # `abs(x) != MAX`, or true
    return -high, high
