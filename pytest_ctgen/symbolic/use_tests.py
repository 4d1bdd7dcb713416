"""Assignments whose value decides a comparison (the use cases of
search/boundary_goals.py): a case in which `below++` runs and a later `below >= hold`
comes out otherwise than it would with the value `below` held before, so that the
assignment's deletion, or a wrong value in it, changes which way the function goes.

Branch coverage is content with `below >= hold` true for hold = 0 only, where below's
count never mattered. Data-flow testing's def-use pairs ask for a path from each
assignment to each use of its value; a use case asks more of a comparison: that the
assigned value decides it. Each assignment to a scalar local of the function under test
(State.assigned) is noted with the value the variable held before it; each comparison the
path then evaluates that reads the variable is noted (State.use_tests) with the condition
under which the value before would decide it the other way: its operand recomputed with
that value, through casts and arithmetic on locals and constants (other operands: not
followed)."""
from __future__ import annotations

from typing import Final

import z3

from ..frontend.ctype import IntType
from ..frontend.unit import Variable
from ..ir.expr import ARITHMETIC_OPS, Binary, Cast, Const, Expr, Load, VarRef, nodes_in
from .state import State
from .values import arithmetic, compare, constant, convert

#: The evaluations of a comparison a path notes at most per assignment that reaches it.
USE_TESTS: Final = 2


def note_uses(state: State, e: Binary, site: int, compared: z3.BoolRef,
              a: z3.ExprRef, b: z3.ExprRef) -> None:
    """Note the comparison `e` (of the function under test; its site among its comparisons,
    `compared` what it came out, `a` and `b` its operands' values) for each assignment the
    path made to a variable it reads (State.assigned): that it comes out otherwise than
    with the value the variable held before."""
    for var, (assignment, before) in state.assigned.items():
        if not (_reads(e.left, var) or _reads(e.right, var)):
            continue
        key = (assignment, site)
        if sum(t[0] == key for t in state.use_tests) >= USE_TESTS:
            continue
        left = _recomputed(state, e.left, var, before) if _reads(e.left, var) else a
        right = _recomputed(state, e.right, var, before) if _reads(e.right, var) else b
        if not (isinstance(left, z3.BitVecRef) and isinstance(right, z3.BitVecRef)):
            continue
        otherwise = compare(e.op, e.left.type, left, right)
        state.use_tests.append((key, z3.Xor(compared, otherwise), len(state.constraints)))


def _reads(e: Expr, var: Variable) -> bool:
    return any(isinstance(n, VarRef) and n.var == var for n in nodes_in(e))


def _recomputed(state: State, e: Expr, var: Variable, before: z3.ExprRef
                ) -> z3.ExprRef | None:
    """The value of `e` with `var` holding `before`: through loads of the locals the frame
    keeps as values, constants, integer conversions and arithmetic; None for anything
    else (a load through memory, a call)."""
    if isinstance(e, Load) and isinstance(e.lvalue, VarRef):
        if e.lvalue.var == var:
            return before
        value = state.frame.registers.get(e.lvalue.var)
        return value if isinstance(value, z3.BitVecRef) else None
    if isinstance(e, Const) and isinstance(e.type, IntType):
        value = constant(e.type, e.value)
        return value if isinstance(value, z3.BitVecRef) else None
    if isinstance(e, Cast) and isinstance(e.type, IntType) and \
            isinstance(e.operand.type, IntType):
        inner = _recomputed(state, e.operand, var, before)
        if inner is None:
            return None
        converted, _ = convert(inner, e.operand.type, e.type)
        return converted if isinstance(converted, z3.BitVecRef) else None
    if isinstance(e, Binary) and e.op in ARITHMETIC_OPS and isinstance(e.type, IntType):
        left = _recomputed(state, e.left, var, before)
        right = _recomputed(state, e.right, var, before)
        if left is None or right is None:
            return None
        result, _ = arithmetic(e.op, e.type, left, right, e.right.type)
        return result if isinstance(result, z3.BitVecRef) else None
    return None
