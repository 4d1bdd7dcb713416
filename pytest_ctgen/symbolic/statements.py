"""Execution of IR statements and block terminators, one handler per node: assignments,
initialisations, sizes of variable length arrays, calls, annotation checks; a goto, a
return (with the contract checked on return of the function under test), a branch or a
switch, whose edge the executor takes or leaves to the inputs (a Fork)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import z3

from ..errors import UnsupportedError
from ..frontend.ctype import IntType
from ..ir.cfg import (
    Assign,
    Block,
    Branch,
    Call,
    Check,
    Eval,
    Goto,
    Init,
    Length,
    Return,
    Stmt,
    Switch,
    ZeroFill,
)
from ..ir.expr import VarRef
from . import access, calls, contracts, expressions, inputs, memory, work
from .dispatch import handler_for
from .memory import zero_cells
from .paths import (
    BELOW_MINIMUM,
    BEYOND_BOUND,
    BoundReached,
    Finished,
    Fork,
    NeedChoice,
    OffsetChoice,
    PathError,
)
from .state import State
from .values import AggVal

if TYPE_CHECKING:
    from .executor import Executor


def execute(ex: Executor, state: State, stmt: Stmt, initializing: bool = False) -> None:
    """Run `stmt` in the current frame (`initializing`: of a static initializer, which
    may write read-only objects)."""
    ex.location = stmt.location
    work.tally(1)
    try:
        run = handler_for(STATEMENTS, stmt)
        if run is not None:
            run(ex, state, stmt, initializing)
    except memory.OutOfBounds as err:
        access.out_of_bounds(ex, state, err, stmt.location)
    except PathError as err:
        err.location = err.location or stmt.location
        raise
    except UnsupportedError as err:
        raise PathError(err.message, err.location or stmt.location,
                        unsupported=True) from None


def _assign(ex: Executor, state: State, stmt: Assign, initializing: bool) -> None:
    site = ex.assignment_sites.get(id(stmt)) if len(state.frames) == 1 else None
    before = None
    if site is not None:
        assert isinstance(stmt.target, VarRef)  # CFG.local_assignments
        before = state.frame.registers.get(stmt.target.var)
    value = expressions.evaluate(ex, state, stmt.value)
    access.store(ex, state, stmt.target, value, initializing)
    if site is not None:
        assert isinstance(stmt.target, VarRef)
        var = stmt.target.var
        if isinstance(before, z3.BitVecRef) and memory.garbage_where(before) is None:
            state.assigned[var] = (site, before)
        else:  # it held no value: the assignment gives it its first one
            state.assigned.pop(var, None)


def _zero_fill(ex: Executor, state: State, stmt: ZeroFill, initializing: bool) -> None:
    loc = access.locate(ex, state, stmt.target)
    assert isinstance(loc, access.InMemory)
    obj = state.writable(loc.object_id)
    if not memory.zero_filled(obj, loc.offset, stmt.target.type.size):
        access.checked(ex, state, loc, obj, "write to", lambda: memory.write(
            obj, loc.offset, stmt.target.type,
            AggVal(tuple(zero_cells(stmt.target.type.size)))))
    if not initializing:
        state.written_objects.add(loc.object_id)


def _init(ex: Executor, state: State, stmt: Init, initializing: bool) -> None:
    frame = state.frame
    if stmt.size is not None:
        size = expressions.evaluate(ex, state, stmt.size)
        assert isinstance(size, z3.BitVecRef)
        size = z3.simplify(size)
        if not z3.is_bv_value(size):  # its counts are fixed by `Length`
            raise PathError(f"an object of size {size}", unsupported=True)
        frame.objects[stmt.var] = ex.new_object(
            state, stmt.var.name, inputs.garbage_object(ex, stmt.var, size.as_long()))
    elif stmt.var in frame.objects:
        obj = state.writable(frame.objects[stmt.var])
        obj.cells = inputs.garbage_object(ex, stmt.var, obj.size)
    else:
        frame.registers[stmt.var] = memory.value_from_cells(
            inputs.garbage(ex, stmt.var, stmt.var.type.size), stmt.var.type)


def _length(ex: Executor, state: State, stmt: Length, initializing: bool) -> None:
    state.frame.registers[stmt.var] = z3.BitVecVal(length(ex, state, stmt), 64)


def _call(ex: Executor, state: State, stmt: Call, initializing: bool) -> None:
    calls.call(ex, state, stmt)


def _check(ex: Executor, state: State, stmt: Check, initializing: bool) -> None:
    contracts.check(ex, state, stmt)


def _eval(ex: Executor, state: State, stmt: Eval, initializing: bool) -> None:
    # gcc -O0 does not compute it, but C does: what it does that is undefined
    # is a finding, and the path goes on where it is defined
    expressions.evaluate(ex, state, stmt.value)


# each handler takes the node class it is listed for (Any: a dict's type cannot say that)
STATEMENTS: dict[type, Callable[[Executor, State, Any, bool], None]] = {
    Assign: _assign, ZeroFill: _zero_fill, Init: _init, Length: _length, Call: _call,
    Check: _check, Eval: _eval}


def length(ex: Executor, state: State, stmt: Length) -> int:
    """The size `stmt` evaluates, as a number: a symbolic one is fixed on the path,
    a choice of each feasible value from `stmt.minimum` up to the bound (the input
    arrays' `array_size`), and one beyond, where the search stops at the bound. A
    size below the minimum is undefined: no path has it, and an outcome only such a
    size would reach is left as not reached (gcc runs the code), never unreachable."""
    value = expressions.evaluate(ex, state, stmt.value)
    t = stmt.value.type
    assert isinstance(value, z3.BitVecRef) and isinstance(t, IntType)
    simple = z3.simplify(value)
    if z3.is_bv_value(simple):
        count: int | None = simple.as_signed_long() if t.signed else simple.as_long()
    else:
        count = state.fixed_offsets.get(simple.get_id())
        if count == BEYOND_BOUND:
            ex.objects_too_small = True
            raise BoundReached(f"variable length arrays and alloca objects hold at most "
                               f"{ex.array_size} elements")
    if count == BELOW_MINIMUM or (count is not None and count < stmt.minimum):
        ex.approximation = "paths where a variable length array has no elements " \
            "(undefined) are not explored"
        raise PathError("a variable length array of no elements, which is undefined")
    if count is not None:
        return count
    values = tuple(range(stmt.minimum, ex.array_size + 1))
    bound = z3.BitVecVal(ex.array_size, simple.size())
    beyond = simple > bound if t.signed else z3.UGT(simple, bound)
    below = simple < stmt.minimum if t.signed else z3.ULT(simple, stmt.minimum)
    raise NeedChoice(OffsetChoice(
        simple, values + (BEYOND_BOUND, BELOW_MINIMUM),
        tuple(simple == k for k in values) + (beyond, below)))


def terminate(ex: Executor, state: State, block: Block) -> Finished | Fork | None:
    """Run the terminator of the current block: None when the path went on."""
    term = block.terminator
    ex.location = term.location if term is not None else ex.location
    run = handler_for(TERMINATORS, term)
    if run is None:
        raise PathError("block without terminator")
    return run(ex, state, block, term)


def _goto(ex: Executor, state: State, block: Block, term: Goto) -> None:
    ex.move(state, term.target)


def _return(ex: Executor, state: State, block: Block, term: Return) -> Finished | None:
    if ex.contract is not None and len(state.frames) == 1:
        contracts.check_contract(ex, state, term)
    if do_return(ex, state, term):
        return Finished(state)
    return None


def _branch(ex: Executor, state: State, block: Block, term: Branch) -> Fork | None:
    c = expressions.condition(ex, state, term.cond.type,
                              expressions.evaluate(ex, state, term.cond))
    guards: list[z3.BoolRef | None] = [c, z3.Not(c)]
    return ex.decide(state, block, guards)


def _switch(ex: Executor, state: State, block: Block, term: Switch) -> Fork | None:
    v = expressions.evaluate(ex, state, term.value)
    assert isinstance(v, z3.BitVecRef)
    case_guards: list[z3.BoolRef | None] = []
    all_values = []
    for values, _ in term.cases:
        t = term.value.type
        assert isinstance(t, IntType)
        conds = [v == z3.BitVecVal(x & ((1 << t.bits) - 1), t.bits)
                 for x in values]
        all_values.extend(conds)
        case_guards.append(z3.Or(*conds) if len(conds) > 1 else conds[0])
    case_guards.append(z3.Not(z3.Or(*all_values)) if all_values
                       else z3.BoolVal(True))
    return ex.decide(state, block, case_guards)


# as STATEMENTS
TERMINATORS: dict[type, Callable[[Executor, State, Block, Any], Finished | Fork | None]] = {
    Goto: _goto, Return: _return, Branch: _branch, Switch: _switch}


def do_return(ex: Executor, state: State, term: Return) -> bool:
    """Pop the frame; True when the function under test returned."""
    frame = state.frame
    value = None
    if term.value is not None:
        value = expressions.evaluate(ex, state, term.value)
    state.frames.pop()
    if state.frames:
        state.callee_returns.append((id(frame.cfg), frame.block.id))
    if not state.frames:
        state.result = value
        state.finished = True
        inputs.check_unwritten_globals(ex, state)
        return True
    if frame.return_target is not None:
        if value is None:  # C11 6.9.1p12: the caller uses a value never returned
            what = f"use of the value of '{frame.cfg.function.name}', which returned none"
            ex.location = term.location
            contracts.finding(ex, state, z3.BoolVal(True), what)
            raise PathError(what, term.location)
        access.store(ex, state, frame.return_target, value)
    return False
