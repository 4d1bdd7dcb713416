"""What a path must not do, and the paths that do it, forked off as cases of their own:
the annotations (preconditions, `__rtt_assert`, on return the postconditions, test cases
and `__rtt_modifies`), the preconditions of specified stubs, and undefined behaviour
(findings)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from ..cases import UNDEFINED, UNDEFINED_BEHAVIOUR, Violation
from ..errors import UnsupportedError
from ..ir.cfg import Call, Check, Return
from ..ir.expr import VarRef
from ..ir.spec import Condition
from . import access, expressions, memory, statements
from .large_objects import SparseCells
from .memory import MemObject
from .state import State, StubCallRecord
from .values import Errors, truth

if TYPE_CHECKING:
    from .executor import Executor

#: How a path ends whose arguments violate the precondition of a specified stub.
PRECONDITION_VIOLATION = "precondition violation"
#: How a path ends that violates an `__rtt_assert`.
ASSERT_VIOLATION = "__rtt_assert violation"


def fork_violation(ex: Executor, state: State, key: tuple[str, int, str],
                   violated: z3.BoolRef, note: str, violation: Violation | None = None
                   ) -> State | None:
    """The path that leaves `state` here under `violated`, kept for the generator to
    make a case of (see `State.violations`); None when `violated` is false."""
    if ex.ledger.settled(key) or z3.is_false(z3.simplify(violated)):
        return None
    violating = state.fork()
    violating.assume(violated)
    violating.violations = []
    if violation is not None:
        violating.predicted.append(violation)
    state.violations.append((key, violating, note))
    return violating


def finding(ex: Executor, state: State, condition: z3.BoolRef, what: str,
            site: str | None = None) -> None:
    """Where `condition` holds, the path runs into the undefined behaviour `what` at
    the current statement: that path is kept as a case of its own that ends there
    (DESIGN §4), never a reason to call the code behind it unreachable. One case per
    statement, `site` (what the error is, without the details of one path) and block of
    the function under test: what the compiled code may reach after the error is known
    by that block (a callee's error reached from two call sites is two findings)."""
    if state.in_setup:  # the caller assumes it away: only defined setups (setup_calls.py)
        return
    at = ex.at(ex.location)
    violated = z3.And(*ex.guards, condition) if ex.guards else condition
    # no note: the case's violation names it (Case.finding)
    key = (UNDEFINED, state.frames[0].block.id, f"{at}: {site or what}")
    violating = fork_violation(ex, state, key, violated, "", Violation(UNDEFINED, at, what))
    if violating is not None:
        violating.ending = (UNDEFINED_BEHAVIOUR, None)
        violating.finished = True


def undefined_unless(ex: Executor, state: State, errors: Errors, text: str) -> None:
    """The operation `text` is undefined under each of `errors`: the path into one is
    a finding (see `finding`); this path goes on where the operation is defined."""
    for error in errors:
        finding(ex, state, error.condition, f"{error.what} in {text}")
        state.assume(z3.Not(error.condition))


def holds(ex: Executor, state: State, cond: Condition) -> z3.BoolRef:
    """Where `cond` is true in the current frame."""
    return truth(cond.expr.type, expressions.evaluate(ex, state, cond.expr))


def check(ex: Executor, state: State, stmt: Check) -> None:
    """A precondition (assumed; in proof mode its violation is forked off as a
    robustness path) or an `__rtt_assert` (its violation is forked off, ending there)."""
    c = expressions.condition(ex, state, stmt.cond.type,
                              expressions.evaluate(ex, state, stmt.cond))
    at = ex.at(stmt.location)
    if stmt.kind == "precondition":
        if len(state.frames) != 1:
            return  # a callee's: the compiled code does not check it either
        if ex.proof:
            robust = fork_violation(
                ex, state, ("robustness", 0, at), z3.Not(c),
                f"robustness case: violates the precondition {stmt.text} ({at}); its "
                f"postconditions and test cases are not checked")
            if robust is not None:
                robust.robustness = True
        state.assume(c)
        return
    violating = fork_violation(
        ex, state, ("assert", 0, at), z3.Not(c),
        f"violates __rtt_assert({stmt.text}) at {at}",
        Violation("assert", at, stmt.text))
    if violating is not None:
        violating.ending = (ASSERT_VIOLATION, None)
        violating.finished = True
    state.assume(c)


def note_violation(ex: Executor, state: State, stmt: Call, violated: z3.BoolRef) -> None:
    """Keep the path on which the arguments of this call violate the stub's
    precondition: it ends at the call, a contract violation of the unit."""
    index = sum(1 for c in state.stub_calls if c.name == stmt.function)
    fn = ex.program.unit.functions[stmt.function]
    violating = fork_violation(
        ex, state, (stmt.function, index, str(stmt.location)), violated,
        f"violates the precondition of {stmt.function} at call {index + 1}: a contract "
        f"violation of the unit, or a specification too narrow")
    if violating is None:
        return
    violating.frames.pop()  # the specification's frame
    violating.stub_calls.append(StubCallRecord(stmt.function, index, fn.type.result, None))
    violating.ending = (PRECONDITION_VIOLATION, None)
    violating.finished = True


def note_write(ex: Executor, state: State, object_id: int) -> None:
    """Remember a write into a global the function may not modify."""
    for var, oid in state.globals.items():
        if oid == object_id and var in ex.forbidden:
            state.forbidden_writes.setdefault(var, ex.at(ex.location))


def changed(obj: MemObject) -> z3.BoolRef:
    """Where the bytes of `obj` differ from its contents on entry (as the run sees it)."""
    assert obj.initial is not None
    if isinstance(obj.cells, SparseCells) and isinstance(obj.initial, SparseCells):
        try:
            return memory.sparse_array(obj.cells) != memory.sparse_array(obj.initial)
        except UnsupportedError:  # a pointer was written: assume it changed
            return z3.BoolVal(True)
    diffs = []
    for now, before in zip(obj.cells, obj.initial):
        if now is before:
            continue
        try:
            diffs.append(memory.byte_of(now) != memory.byte_of(before))
        except UnsupportedError:  # a pointer was written: assume it changed
            return z3.BoolVal(True)
    return z3.Or(*diffs) if diffs else z3.BoolVal(False)


def check_contract(ex: Executor, state: State, term: Return) -> None:
    """On return of the function under test: what violates each postcondition, each
    test case and the `__rtt_modifies` list on this path. Each violation that is
    possible is also forked off as a path of its own, which returns."""
    contract = ex.contract
    assert contract is not None
    frame = state.frame
    if contract.result is not None and term.value is not None:
        access.store(ex, state, VarRef(contract.result, contract.result.type),
                     expressions.evaluate(ex, state, term.value))
    checks: list[tuple[Violation, z3.BoolRef]] = []
    entered: list[tuple[tuple[str, ...], z3.BoolRef]] = []
    for cond in contract.postconditions:
        checks.append((Violation("postcondition", ex.at(cond.location), cond.text),
                       z3.Not(holds(ex, state, cond))))
    for tc in contract.testcases:
        pre = frame.registers.get(tc.entered)
        assert pre is not None
        pre_holds = truth(tc.entered.type, pre)
        entered.append((tc.requirements, pre_holds))
        checks.append((Violation("testcase", ex.at(tc.location), tc.post.text),
                       z3.And(pre_holds, z3.Not(holds(ex, state, tc.post)))))
    for var, at in state.forbidden_writes.items():
        checks.append((Violation("modifies", at, var.name),
                       changed(state.memory[state.globals[var]])))
    state.contract_checks = checks
    state.testcases_entered = entered
    for violation, violated in checks:
        what = {"postcondition": f"the postcondition {violation.detail}",
                "testcase": f"the test case post {violation.detail}",
                "modifies": f"__rtt_modifies: writes {violation.detail}"}[violation.kind]
        violating = fork_violation(
            ex, state, (violation.kind, 0, f"{violation.at} {violation.detail}"), violated,
            f"violates {what} ({violation.at})", violation)
        if violating is not None:
            statements.do_return(ex, violating, term)
