"""Calls: of a function the unit defines (executed in a new frame), of a libc function
with a model, of an undefined function (a stub: the generator chooses what it returns and
writes, narrowed by the function's specification when it has one), and through a function
pointer (of the unit's function it holds, or of the callback of a function-pointer input)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from ..c_harness_files import MOST_RECEIVED
from ..cases import PROGRAM_ENDS
from ..frontend.ctype import (
    UCHAR, ArrayType, FunctionType, IntType, PointerType, RecordType, VoidType, padding_bytes)
from ..ir.cfg import CFG, Call
from ..ir.expr import Expr, describe
from ..ir.spec import StubSpec
from . import access, contracts, expressions, inputs, libc, memory
from .function_pointers import StubSignature
from .large_objects import LARGE_OBJECT, SparseCells, copy_cells
from .memory import cells_of, value_cells
from .paths import BoundReached, NeedChoice, PathError, ProgramEnds
from .state import Frame, Received, State, StubCallRecord, StubWrite
from .values import PtrVal, SymValue

if TYPE_CHECKING:
    from .executor import Executor

#: SV-COMP's assumption function: its argument is assumed, whether the unit defines it.
VERIFIER_ASSUME = "__VERIFIER_assume"


def call(ex: Executor, state: State, stmt: Call) -> None:
    if stmt.pointer is not None:
        indirect_call(ex, state, stmt)
        return
    cfg = ex.program.cfgs.get(stmt.function)
    if cfg is not None and stmt.function not in ex.program.specs:
        # before anything of the call takes effect, so the path can run on from it
        _check_recursion(ex, state, cfg, stmt)
    args = _arguments(ex, state, stmt)
    if stmt.function == VERIFIER_ASSUME:
        # SV-COMP's assumption: inputs violating it are not of interest
        state.assume(expressions.condition(ex, state, stmt.args[0].type, args[0]))
        if cfg is None:
            stub_call(ex, state, stmt, args)
        return
    spec = ex.program.specs.get(stmt.function)
    if spec is not None:
        specified_call(ex, state, stmt, spec, inputs.resolve_arguments(ex, state, args))
        return
    if cfg is not None:
        enter(ex, state, stmt, cfg, args)
        return
    _undefined_call(ex, state, stmt, args)


def _arguments(ex: Executor, state: State, stmt: Call) -> list[SymValue]:
    """The values of the arguments of `stmt`; the aliasing of the pointers its target is
    reached through is decided before the call."""
    args = [expressions.evaluate(ex, state, a) for a in stmt.args]
    if stmt.target is not None:
        access.locate(ex, state, stmt.target)
    return args


def _undefined_call(ex: Executor, state: State, stmt: Call, args: list[SymValue]) -> None:
    """A call of a function the unit does not define: one that ends the program, one of
    the libc functions modelled (see libc.py), else a stub call."""
    failure = ex.program.failures.get(stmt.function)
    if failure is not None:
        raise PathError(f"calls '{stmt.function}', which is not supported: "
                        f"{failure}", stmt.location, unsupported=True)
    fn = ex.program.unit.functions.get(stmt.function)
    if fn is None:
        raise PathError(f"call of unknown function '{stmt.function}'", stmt.location,
                        unsupported=True)
    ending = PROGRAM_ENDS.get(stmt.function)  # a path reaching one ends there
    if ending is not None:
        status = args[0] if ending == "exit" and args else None
        raise ProgramEnds(ending, status)
    args = inputs.resolve_arguments(ex, state, args)
    model = libc.MODELS.get(stmt.function)
    if model is not None and fn.is_library:
        before = set(state.written_objects) if ex.forbidden else None
        value = model(ex, state, args, fn.type)
        for oid in state.written_objects - before if before is not None else ():
            contracts.note_write(ex, state, oid)
        if stmt.target is not None and value is not None:
            access.store(ex, state, stmt.target, value)
        return
    stub_call(ex, state, stmt, args)


def new_frame(ex: Executor, state: State, cfg: CFG, args: list[SymValue],
           return_target: Expr | None = None) -> Frame:
    """A frame of the function of `cfg` whose parameters hold `args`."""
    frame = Frame(cfg, cfg.entry, return_target=return_target)
    for p, a in zip(cfg.function.params, args):
        if access.in_memory(cfg, p):
            frame.objects[p] = ex.new_object(state, p.name, cells_of(a, p.type))
        else:
            frame.registers[p] = a
    return frame


def _check_recursion(ex: Executor, state: State, cfg: CFG, stmt: Call) -> None:
    """Raises BoundReached, resumable, when the call `stmt` of `cfg` would exceed the
    recursion bound, unless the path runs on concretely (`Executor.unbounded`: then the
    path's length bounds it). A path that made linked input objects lazily (lazy.py) is
    bounded all the same and not resumed: a recursion over them may be one over a cycle
    the path chose, or over a tree each step of it would grow."""
    if sum(1 for f in state.frames if f.cfg is cfg) >= ex.max_recursion:
        linked = any(isinstance(p.type, RecordType) for p in state.pointees)
        if ex.unbounded and not linked:
            return
        raise BoundReached(f"recursion of '{stmt.function}' deeper than "
                           f"{ex.max_recursion}", resumable=not linked)


def enter(ex: Executor, state: State, stmt: Call, cfg: CFG, args: list[SymValue]) -> None:
    """Call a function defined in the unit (`call` checked the recursion bound): push its
    frame."""
    frame = new_frame(ex, state, cfg, args, stmt.target)
    if cfg.variadic_area is not None:  # the call passes it after the named arguments
        frame.registers[cfg.variadic_area] = args[len(cfg.function.params)]
    state.frames.append(frame)
    ex.enter_locals(state, frame)


def stub_call(ex: Executor, state: State, stmt: Call, args: list[SymValue],
              store: bool = True, callee: StubSignature | None = None) -> SymValue | None:
    """Call k of an undefined function (or of a callback, `callee`): the generator
    chooses its result, what it writes through its pointer parameters, and the globals
    it may write. The result is stored into the call's target unless `store` is false;
    it is returned."""
    if callee is None:
        fn = ex.program.unit.functions[stmt.function]
        callee = StubSignature(fn.name, fn.type, tuple(p.name for p in fn.params))
    name = callee.name
    index = sum(1 for c in state.stub_calls if c.name == name)
    rtype = callee.type.result
    result: SymValue | None = None
    if not isinstance(rtype, VoidType):
        cells = inputs.input_cells(ex, state, f"{name}#{index}", rtype)
        result = memory.value_from_cells(cells, rtype)
    given = received(state, callee, args)  # before the stub writes through them
    writes = stub_writes(ex, state, callee, index, args)
    writes += stub_global_writes(ex, state, name, index)
    arguments = tuple(zip(callee.params, callee.type.params, args))
    state.stub_calls.append(StubCallRecord(name, index, rtype, result, writes, arguments,
                                           given))
    if store and stmt.target is not None and result is not None:
        access.store(ex, state, stmt.target, result)
    return result


def specified_call(ex: Executor, state: State, stmt: Call, spec: StubSpec,
                   args: list[SymValue]) -> None:
    """A stub call of a function with a specification: its preconditions are assumed
    of the arguments, its postconditions of what the stub returns and writes. The
    conditions are evaluated in a frame of the specification, whose parameters hold
    the arguments."""
    frame = new_frame(ex, state, spec.cfg, args)
    state.frames.append(frame)
    try:
        for var, e in spec.initials:
            frame.registers[var] = expressions.evaluate(ex, state, e)
        pre = [contracts.holds(ex, state, cond) for cond in spec.preconditions]
        if pre:
            contracts.note_violation(ex, state, stmt, z3.Not(z3.And(*pre)))
        for condition in pre:
            state.assume(condition)
        result = stub_call(ex, state, stmt, args, store=False)
        if spec.result is not None and result is not None:
            frame.registers[spec.result] = result
        try:
            for cond in spec.postconditions:
                state.assume(contracts.holds(ex, state, cond))
        except NeedChoice:  # the call took effect: it cannot run again after a choice
            raise PathError("a postcondition that reads through a pointer whose target "
                            "is not decided", spec.postconditions[0].location,
                            unsupported=True) from None
    finally:
        state.frames.pop()
    if stmt.target is not None and result is not None:
        access.store(ex, state, stmt.target, result)


def received(state: State, fn: StubSignature, args: list[SymValue]) -> tuple[Received, ...]:
    """What the pointer arguments of a stub call point to at the call, the data a HAL
    call is given (`spi_transfer(frame, 2u)`): from where each points, the rest of its
    object in bytes for a `char` or `void` pointer (its padding bytes left unset: a case
    never sets them), else one element of the pointed-to type, or the rest of an array of
    such elements; at most MOST_RECEIVED bytes. Left out: NULL, a pointer the path has
    not resolved to one object at one offset, a function, a large object's bytes; an input
    pointer that may be NULL is left out where the case's is (extract.predicted_calls)."""
    given = []
    for param, ptype, arg in zip(fn.params, fn.type.params, args):
        if not isinstance(ptype, PointerType) or isinstance(ptype.target, FunctionType) or \
                not isinstance(arg, PtrVal) or arg.base is None or arg.base not in state.memory:
            continue
        off = z3.simplify(arg.offset)
        obj = state.memory[arg.base]
        if not z3.is_bv_value(off) or isinstance(obj.cells, SparseCells):
            continue
        element = UCHAR if isinstance(ptype.target, VoidType) else ptype.target
        start = off.as_signed_long()
        if not element.is_complete or element.size <= 0 or start < 0:
            continue
        whole = expressions.object_type(state, arg.base)
        count = min(obj.size - start, MOST_RECEIVED) // element.size
        if element.size > 1 and not (isinstance(whole, ArrayType) and
                                     whole.element.size == element.size):
            count = min(count, 1)  # one element, unless the object is an array of them
        if count > 0:
            cells = tuple(obj.cells[start:start + count * element.size])
            padding = padding_bytes(whole) if whole is not None and element.size == 1 \
                else frozenset()
            unset = frozenset(b - start for b in padding if start <= b < start + count)
            given.append(Received(param, element, count, cells, arg.null, unset))
    return tuple(given)


def stub_writes(ex: Executor, state: State, fn: StubSignature, index: int,
                args: list[SymValue]) -> tuple[StubWrite, ...]:
    """A stub writes fresh values through each non-const pointer parameter that points
    into an object: the pointed-to element, or for a character or void pointer (a
    buffer) the rest of the object."""
    writes = []
    for param, ptype, arg in zip(fn.params, fn.type.params, args):
        if not isinstance(ptype, PointerType) or ptype.target_const or \
                not isinstance(arg, PtrVal) or arg.base is None or arg.null is not None:
            continue
        off = z3.simplify(arg.offset)
        obj = state.memory[arg.base]
        if not z3.is_bv_value(off) or obj.readonly:
            continue
        start = off.as_signed_long()
        target = ptype.target
        name = f"{fn.name}#{index}.{param}"
        is_buffer = isinstance(target, VoidType) or (isinstance(target, IntType) and
                                                     target.size == 1)
        if is_buffer:
            count = obj.size - start
        elif target.is_complete and target.size > 0:
            count = target.size
        else:
            continue
        if count <= 0 or start < 0 or start + count > obj.size or \
                (count > LARGE_OBJECT and isinstance(obj.cells, SparseCells)):
            continue  # a stub writes no large part of an object
        if is_buffer:
            fresh = z3.BitVec(name, count * 8)
            cells = value_cells(fresh, count)
            write = StubWrite(f"*(unsigned char *){param}", None, tuple(cells))
        else:
            cells = inputs.input_cells(ex, state, name, target)
            write = StubWrite(f"(*{param})", target, tuple(cells))
        writable = state.writable(arg.base)
        writable.cells[start:start + count] = cells
        state.written_objects.add(arg.base)
        writes.append(write)
    return tuple(writes)


def stub_global_writes(ex: Executor, state: State, name: str, index: int
                       ) -> tuple[StubWrite, ...]:
    """Fresh contents for every global a stub may write (see `Executor.stub_globals`
    and `Executor.spec_globals`)."""
    writes = []
    for var in ex.spec_globals.get(name, ex.stub_globals):
        oid = inputs.global_object(ex, state, var)
        cells = inputs.object_cells(ex, state, f"{var.name}@{name}#{index}", var.type)
        obj = state.writable(oid)
        obj.cells = copy_cells(cells)
        state.written_objects.add(oid)
        writes.append(StubWrite(var.name, var.type, cells if isinstance(cells, SparseCells)
                                else tuple(cells)))
    return tuple(writes)


def indirect_call(ex: Executor, state: State, stmt: Call) -> None:
    """A call through a function pointer: of the unit's function it holds (executed
    like a direct call, a stub call if the unit does not define it), or of a
    callback (a stub call). Calling NULL is a finding (see `access.dereference`)."""
    assert stmt.pointer is not None
    called = expressions.evaluate(ex, state, stmt.pointer)
    p = inputs.resolve(ex, state, called)
    if not isinstance(p, PtrVal):
        raise PathError(f"call through {describe(stmt.pointer)}, not a pointer",
                        unsupported=True)
    access.dereference(ex, state, p, "call through the NULL function pointer "
                                     f"{describe(stmt.pointer)}")
    assert p.base is not None
    function = state.memory[p.base].function
    if function is None:
        pointer = stmt.pointer.type
        held = inputs.want_callback(ex, state, called, p.base, pointer.target) if \
            isinstance(pointer, PointerType) and isinstance(pointer.target, FunctionType) \
            else None
        if held is not None:
            raise BoundReached(f"{held} is called: a callback in the next round")
        raise PathError(f"call through {describe(stmt.pointer)}, which points to an "
                        "object", unsupported=True)
    state.assume(p.offset == 0)  # into a function: undefined
    callback = ex.callbacks.get(function)
    if callback is None:
        call(ex, state, Call(stmt.target, function, stmt.args, stmt.location))
        return
    args = inputs.resolve_arguments(ex, state, _arguments(ex, state, stmt))
    stub_call(ex, state, stmt, args, callee=callback.signature)
