"""Memory access: where an lvalue is (a register of a frame, or an object and an offset),
reading and writing it, and what an access means beyond its value: an access outside its
object or through NULL is a finding where the unit defines the object or tested the
pointer, a bound of the search where the generator made it."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

import z3

from ..errors import SourceLocation, UnsupportedError
from ..frontend.ctype import Field, IntType, PointerType, RecordType
from ..frontend.unit import GLOBAL, STATIC_LOCAL, Variable
from ..ir.cfg import CFG
from ..ir.expr import Deref, Expr, Member, StringLit, VarRef, describe
from . import contracts, expressions, heap, inputs, memory
from .large_objects import LARGE_OBJECT, SparseCells
from .memory import MemObject
from .paths import BoundReached, NeedChoice, OffsetChoice, PathError
from .state import Frame, State
from .values import AliasPtr, PtrVal, SymValue, zero64

if TYPE_CHECKING:
    from .executor import Executor

STRING_LITERAL = "string literal"  # the name of a string literal's object


@dataclass
class InMemory:
    """An lvalue in memory: at `offset` in object `object_id`."""

    object_id: int
    offset: z3.BitVecRef
    bitfield: Field | None = None  # a bit-field member
    # through an input pointer: generated inputs never make the unit access outside an
    # object (DESIGN §4), so the path assumes it stays inside, never a finding
    assumed: bool = False


@dataclass
class InRegister:
    """An lvalue held in a register of `frame`: a variable whose address is not taken."""

    frame: Frame
    var: Variable


def in_memory(cfg: CFG, var: Variable) -> bool:
    """Whether `var` of the function of `cfg` lives in memory: its address is taken, or
    it is no scalar."""
    return var in cfg.address_taken or not var.type.is_scalar


def locate(ex: Executor, state: State, lv: Expr) -> InMemory | InRegister:
    if isinstance(lv, VarRef):
        var = lv.var
        if var.kind in (GLOBAL, STATIC_LOCAL):
            return InMemory(inputs.global_object(ex, state, var), zero64())
        frame = state.frame
        if var in frame.objects:
            return InMemory(frame.objects[var], zero64())
        return InRegister(frame, var)
    if isinstance(lv, Deref):
        p = inputs.resolve(ex, state, expressions.evaluate(ex, state, lv.pointer))
        if not isinstance(p, PtrVal):
            raise PathError(f"dereference of a non-pointer {describe(lv.pointer)}",
                            unsupported=True)
        dereference(ex, state, p, f"NULL dereference of {describe(lv.pointer)}")
        assert p.base is not None
        return InMemory(p.base, p.offset, assumed=p.null is not None)
    if isinstance(lv, Member):
        base = locate(ex, state, lv.base)
        if not isinstance(base, InMemory):
            raise PathError("member of a register value", unsupported=True)
        f = lv.field
        return InMemory(base.object_id, base.offset + f.offset,
                        f if f.is_bitfield else None, base.assumed)
    if isinstance(lv, StringLit):
        oid = state.strings.get(id(lv))
        if oid is None:
            cells = [(z3.BitVecVal(b, 8), 0) for b in lv.data]
            oid = ex.new_object(state, STRING_LITERAL, cells, readonly=True)
            state.strings[id(lv)] = oid
        return InMemory(oid, zero64())
    raise PathError(f"not an object: {describe(lv)}", unsupported=True)


def fixed_offset(state: State, obj: MemObject, offset: z3.BitVecRef, size: int, align: int,
                 start: int = 0) -> z3.BitVecRef:
    """`offset` as a constant for an access of `size` bytes that cannot be made at a
    symbolic offset (a pointer, a struct, a bit-field); it can be `start` plus a
    multiple of `align`. Raises NeedChoice when the path has not decided which."""
    off = z3.simplify(offset)
    if z3.is_bv_value(off):
        return off
    k = state.fixed_offsets.get(off.get_id())
    if k is not None:
        return z3.BitVecVal(k, 64)
    positions = range(start % max(1, align), obj.size - size + 1, max(1, align))
    if len(positions) > LARGE_OBJECT and isinstance(obj.cells, SparseCells):
        raise UnsupportedError(f"an access of {size} bytes at one of {len(positions)} "
                               f"computed positions in the large object '{obj.name}'")
    values = tuple(positions)
    if not values:
        raise memory.OutOfBounds(f"access of {size} bytes in '{obj.name}' "
                                 f"({obj.size} bytes)", obj.id)
    raise NeedChoice(OffsetChoice(off, values, tuple(off == k for k in values)))


def bitfield_offset(state: State, obj: MemObject, lv: Expr, loc: InMemory) -> z3.BitVecRef:
    """The constant byte offset of the storage of the bit-field `lv` at `loc`."""
    f = loc.bitfield
    assert isinstance(lv, Member) and f is not None
    assert f.bit_offset is not None and f.bit_width is not None
    span = (f.bit_offset + f.bit_width + 7) // 8
    return fixed_offset(state, obj, loc.offset, span, lv.base.type.align, f.offset)


def load(ex: Executor, state: State, lv: Expr) -> SymValue:
    loc = locate(ex, state, lv)
    if isinstance(loc, InRegister):
        value = loc.frame.registers.get(loc.var)
        if value is None:
            value = memory.value_from_cells(inputs.garbage(ex, loc.var, loc.var.type.size),
                                            loc.var.type)
        garbage_read(ex, state, lv, value)
        return value
    obj = state.memory[loc.object_id]
    state.read_objects.add(loc.object_id)
    offset = loc.offset
    if not lv.type.is_scalar or isinstance(lv.type, PointerType):
        offset = fixed_offset(state, obj, offset, lv.type.size, lv.type.align)
    if loc.bitfield is not None:
        f = loc.bitfield
        off = bitfield_offset(state, obj, lv, loc)
        assert isinstance(f.type, IntType)
        assert f.bit_offset is not None and f.bit_width is not None
        field = memory.read_bitfield(obj, off.as_signed_long(), f.bit_offset, f.bit_width,
                                     f.type)
        # its bits come from the storage unit; simplified, those nothing wrote show
        garbage_read(ex, state, lv, z3.simplify(field))
        return field
    (value,) = checked(ex, state, loc, obj, "read from",
                       lambda: memory.read(obj, offset, lv.type), lv)
    if lv.type.is_scalar:
        garbage_read(ex, state, lv, value)
    if lv.type.is_scalar and not z3.is_bv_value(z3.simplify(offset)):
        where = memory.unwritten(obj, offset, lv.type.size)
        if where is not None:  # the computed offset may pick a byte nothing wrote
            contracts.finding(ex, state, where, f"read of the uninitialized {describe(lv)}")
            state.assume(z3.Not(where))
    return value


def garbage_read(ex: Executor, state: State, lv: Expr, value: SymValue) -> None:
    """Where `value`, read from `lv`, holds bytes nothing wrote (an automatic variable, or
    part of one, without a value): the compiled code reads what the stack held, no case
    can predict it. A finding; this path ends, or goes on where the bytes were written."""
    if not ex.made_uninitialized:
        return
    where = memory.garbage_where(value)
    if where is None:
        return
    what = f"read of the uninitialized {describe(lv)}"
    contracts.finding(ex, state, where, what)
    if z3.is_true(z3.simplify(where)):
        raise PathError(what)
    state.assume(z3.Not(where))


def read_only_write(ex: Executor, state: State, obj: MemObject,
                    condition: z3.BoolRef | None = None) -> None:
    """A write into `obj` (where `condition` holds) at the current statement: into a
    string literal, a const global or a function, undefined behaviour (C11 6.4.5p7,
    6.7.3p6) that the compiled code may meet as a crash on read-only memory. A finding;
    this path ends, or goes on where it does not write."""
    if not obj.readonly:
        return
    if obj.function is not None:
        what = f"write into the function '{obj.function}'"
    elif obj.name == STRING_LITERAL:
        what = "write into a string literal"
    else:
        what = f"write into the const object '{obj.name}'"
    where = z3.BoolVal(True) if condition is None else condition
    contracts.finding(ex, state, where, what)
    if z3.is_true(z3.simplify(where)):
        raise PathError(what)
    state.assume(z3.Not(where))


def store(ex: Executor, state: State, lv: Expr, value: SymValue, initializing: bool = False
          ) -> None:
    loc = locate(ex, state, lv)
    if isinstance(loc, InRegister):
        loc.frame.registers[loc.var] = value
        return
    current = state.memory[loc.object_id]
    if not initializing:
        read_only_write(ex, state, current)
    offset = loc.offset
    if not lv.type.is_scalar or isinstance(value, (PtrVal, AliasPtr)):
        offset = fixed_offset(state, current, offset, lv.type.size, lv.type.align)
    obj = state.writable(loc.object_id)
    if not initializing:
        state.written_objects.add(loc.object_id)
        if ex.forbidden:
            contracts.note_write(ex, state, loc.object_id)
    if loc.bitfield is not None:
        f = loc.bitfield
        off = bitfield_offset(state, current, lv, loc)
        assert isinstance(value, z3.BitVecRef)
        assert f.bit_offset is not None and f.bit_width is not None
        memory.write_bitfield(obj, off.as_signed_long(), f.bit_offset, f.bit_width, value)
        return
    checked(ex, state, loc, obj, "write to",
            lambda: memory.write(obj, offset, lv.type, value), lv)


def checked(ex: Executor, state: State, loc: InMemory, obj: MemObject, what: str,
            operation: Callable[[], tuple], lv: Expr | None = None) -> tuple:
    """`operation()`, a memory.read or memory.write of `obj` at `loc`, and what its
    last two results say: where the access can leave the object (at a symbolic
    offset), through an input pointer or of an input pointer's object a bound the path
    assumes, else a finding; where it would read the bytes of a pointer as a number
    (`readable`), not modelled. Returns the results before those two (a read's value);
    an OutOfBounds it raises is marked as through an input pointer when it is, and
    with the record a member `lv` is of."""
    try:
        *results, in_bounds, readable = operation()
    except memory.OutOfBounds as err:
        err.assumed = loc.assumed
        if isinstance(lv, Member) and isinstance(lv.base.type, RecordType):
            err.record = (lv.base.type, lv.field.offset)
        raise
    if in_bounds is not None:
        if loc.assumed or obj.id in state.input_objects() or obj.size == 0:
            state.assume_in_bounds(obj.id, in_bounds)
        else:
            contracts.finding(ex, state, z3.Not(in_bounds), f"out-of-bounds {what} "
                              f"'{obj.name}' ({obj.size} bytes)", f"out of '{obj.name}'")
            state.assume(in_bounds)
    state.assume(readable)
    return tuple(results)


def out_of_bounds(ex: Executor, state: State, err: memory.OutOfBounds,
                  location: SourceLocation | None) -> NoReturn:
    """Raise what an access outside an object means: outside an input pointer's object
    (whose size the generator chose), a bound of the search; outside an object the
    unit defines, a finding, and this path ends."""
    if err.object_id in state.input_objects():
        ex.objects_too_small = True
        if err.below:
            inputs.want_placement(ex, state, err.object_id, err.below, err.record)
        raise BoundReached(f"input pointers point to {ex.array_size} elements")
    obj = state.memory[err.object_id]
    if not err.assumed and obj.size > 0:
        ex.location = location or ex.location
        contracts.finding(ex, state, z3.BoolVal(True), f"out-of-bounds {err}",
                          f"out of '{obj.name}'")
    raise PathError(f"out-of-bounds access: {err}", location)


def dereference(ex: Executor, state: State, p: PtrVal, error: str) -> None:
    """`p` is dereferenced (`error` names what that is when it is NULL): NULL is a
    finding where the path may have it there (a NULL constant, or an input pointer the
    path tested for NULL); an input pointer the path never tested is assumed to point
    to its object."""
    within_depth(ex, p)
    if p.is_null:
        contracts.finding(ex, state, z3.BoolVal(True), error)
        raise PathError(error)
    heap.check_live(ex, state, p)  # a freed object: a finding
    if p.null is not None:
        if state.null_was_tested(p.null):
            contracts.finding(ex, state, p.null, error)
            state.assume(z3.Not(p.null))
            return
        before = len(state.constraints)
        state.assume(z3.Not(p.null))
        state.pointer_assumptions.extend(state.constraints[before:])


def into_one_object(ex: Executor, state: State, a: PtrVal, b: PtrVal, names: tuple[str, str],
                    text: str) -> None:
    """`a` and `b` (`names`) are subtracted or compared by order in `text`, which C
    defines only for pointers into one object. NULL in either is what it is in pointer
    arithmetic (see `dereference`); pointers into two objects the unit defines are a
    finding, and this path ends; an input pointer into another object than the other
    pointer is assumed away (the generator's inputs do not do that), and the assumption
    kept apart, so that it never proves an outcome unreachable."""
    for p, name in zip((a, b), names):
        dereference(ex, state, p, f"the NULL pointer {name} in {text}")
    if a.base == b.base:
        return
    made = state.input_objects()
    if a.base not in made and b.base not in made:
        contracts.finding(ex, state, z3.BoolVal(True),
                          f"pointers into different objects in {text}")
        raise PathError(f"pointers into different objects in {text}")
    state.assume(z3.BoolVal(False))
    state.pointer_assumptions.append(z3.BoolVal(False))


def within_depth(ex: Executor, v: SymValue) -> None:
    """Raise BoundReached when `v` stands for an input pointer nested deeper than the
    objects the search makes (its NULL is no value the code could see)."""
    if isinstance(v, PtrVal) and v.beyond_depth:
        raise BoundReached(f"input pointers nested more than {ex.pointer_depth} "
                           "levels deep")


def tested(state: State, v: SymValue) -> None:
    """The path tests whether the input pointer `v` is NULL."""
    if isinstance(v, (PtrVal, AliasPtr)) and v.null is not None:
        state.test_null(v.null)
