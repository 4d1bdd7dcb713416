"""Distinguishing data: the inputs a path leaves free get distinct, deterministic values.

A solver leaves what no constraint mentions at 0, so a case of a copy whose source bytes
are all 0 cannot tell a copy from the wrong offset, or two swapped arguments, from the
right one. Each scalar input no constraint, annotation check, test-case PRE or overflow
condition of the path mentions is given the next value of one sequence instead (1, 2, 3,
... or 'A', 'B', ... for plain `char`), in the order the case lists its inputs. Such an
input is free: any value keeps the path, its checks and its notes, so the model is changed
without a query. What the path constrains keeps the readable or boundary value the solver
chose (extract.preferences, boundaries.py)."""
from __future__ import annotations

import z3

from ..frontend.ctype import CType, EnumType, FloatType, IntType
from .extract import input_leaves
from .solver import Model
from .state import State
from .values import SymValue, fp_sort, uninterpreted_in

#: Free inputs count up from 1 and wrap here: inside the readable range, so a distinct value
#: is also a readable one.
_CYCLE = 99


def distinguished(model: Model, state: State) -> Model:
    """`model` with each free scalar input of `state` set to its distinct value (a copy
    when anything changes; `model` itself is left as it was)."""
    constrained = {t.decl().get_id() for t in uninterpreted_in(_conditions(state))}
    assigned: set[int] = set()
    changes: list[tuple[z3.FuncDeclRef, z3.ExprRef]] = []
    for leaf, ctype in input_leaves(state):
        target = _settable(leaf)
        if target is None:
            continue
        decl = target.decl()
        if decl.get_id() in constrained or decl.get_id() in assigned:
            continue
        value = _distinct_value(len(changes), ctype, target)
        if value is None:
            continue
        assigned.add(decl.get_id())
        changes.append((decl, value))
    if not changes:
        return model
    changed = model.translate(model.ctx)
    for decl, value in changes:
        changed.update_value(decl, value)
    return changed


def _conditions(state: State) -> list[z3.ExprRef]:
    """What a value of an input may change beyond the outputs: the path, the annotations'
    verdicts, the test cases it enters and its signed-overflow note."""
    return [*state.constraints, *(v for _, v in state.contract_checks),
            *(e for _, e in state.testcases_entered), *state.overflows]


def _settable(leaf: SymValue) -> z3.ExprRef | None:
    """The input variable a leaf is (a float may be the bits it was read as), or None for
    a leaf computed from several."""
    if isinstance(leaf, z3.ExprRef) and z3.is_const(leaf) and \
            leaf.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        return leaf
    if isinstance(leaf, z3.FPRef) and z3.is_app(leaf) and \
            leaf.decl().kind() == z3.Z3_OP_FPA_TO_FP and leaf.num_args() == 1:
        return _settable(leaf.arg(0))
    return None


def _distinct_value(n: int, ctype: CType, target: z3.ExprRef) -> z3.ExprRef | None:
    """The `n`th distinct value for an input of type `ctype` held in `target`; None for
    types whose values are few or named (bool, enums)."""
    step = n % _CYCLE
    if isinstance(ctype, IntType) and isinstance(target, z3.BitVecRef):
        if ctype.is_bool or isinstance(ctype, EnumType):
            return None
        number = ord("A") + step % 26 if ctype.name == "char" else 1 + step
        return z3.BitVecVal(number, target.size())
    if isinstance(ctype, FloatType):
        value = 1.5 + step
        if isinstance(target, z3.FPRef):
            return z3.FPVal(value, target.sort())
        if isinstance(target, z3.BitVecRef):  # the bits a float input was read as
            bits = z3.simplify(z3.fpToIEEEBV(z3.FPVal(value, fp_sort(ctype))))
            return bits if bits.size() == target.size() else None
    return None
