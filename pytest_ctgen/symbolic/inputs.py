"""The inputs of a path: fresh symbolic contents for parameters, globals and what stubs
return or write; input pointers, the objects they point to and where else they may point
(decided when a path first uses one); the unknown contents of uninitialized objects."""
from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from ..cases import OBJECT_PREFIX
from ..frontend.ctype import (
    UCHAR,
    ArrayType,
    CType,
    FloatType,
    FunctionType,
    IntType,
    PointerType,
    RecordType,
    VoidType,
    has_variable_size,
    holds_pointer,
    unnamed_pointee,
)
from ..frontend.unit import Variable, is_unsized_array
from . import function_pointers, lazy, statements
from .large_objects import LARGE_OBJECT, SparseCells, copy_cells, is_large
from .memory import GARBAGE, Cell, bits_input, value_cells, zero_cells
from .paths import AliasChoice, NeedChoice, PathError
from .state import InputRoot, Pointee, State
from .values import AliasPtr, PtrVal, SymValue, null_pointer, zero64

if TYPE_CHECKING:
    from .executor import Executor


def same_element(a: CType, b: CType) -> bool:
    """Whether objects of element type `a` may be accessed through a pointer to `b` as
    arrays of the same elements: the same type, or both one-byte integers (a `char` buffer
    seen as `uint8_t`)."""
    if a == b or a is b:
        return True
    return isinstance(a, IntType) and isinstance(b, IntType) and a.size == b.size == 1 \
        and not a.is_bool and not b.is_bool


def is_function_pointer(v: SymValue) -> bool:
    """Whether `v` is an input function pointer whose target the path has not decided."""
    return isinstance(v, AliasPtr) and isinstance(v.element, FunctionType)


def input_cells(ex: Executor, state: State, name: str, ctype: CType, depth: int = 0,
                elements: int | None = None) -> list[Cell]:
    """Fresh symbolic contents for an input object of type `ctype`. A pointer points
    to a fresh object of `array_size` elements (of `elements` when more: a parameter
    declared as an array of that many), or is NULL (a solver choice); pointers nested
    deeper than `pointer_depth` are NULL."""
    if isinstance(ctype, IntType):
        v = z3.BitVec(name, ctype.bits)
        if ctype.is_bool:
            state.assume(z3.ULE(v, 1))
        return value_cells(v, ctype.size)
    if isinstance(ctype, FloatType):
        bits = z3.BitVec(name, ctype.size * 8)
        v = z3.fpBVToFP(bits, z3.Float32() if ctype.size == 4 else z3.Float64())
        return value_cells(v, ctype.size)
    if isinstance(ctype, ArrayType):
        out: list[Cell] = []
        for i in range(ctype.count or 0):
            out.extend(input_cells(ex, state, f"{name}[{i}]", ctype.element, depth))
        return out
    if isinstance(ctype, RecordType):
        if bits_input(ctype):
            v = z3.BitVec(name, ctype.size * 8)
            return value_cells(v, ctype.size)
        cells = zero_cells(ctype.size)
        for f in ctype.fields:
            # an anonymous struct's members are named as the record's own (C requires
            # them to differ from its other members'); an anonymous union by its offset
            inner = f"{name}.{f.name}" if f.name is not None else \
                f"{name}.<union {f.offset}>" if isinstance(f.type, RecordType) and \
                f.type.is_union else name
            sub = input_cells(ex, state, inner, f.type, depth)
            cells[f.offset:f.offset + len(sub)] = sub
        return cells
    if isinstance(ctype, PointerType):
        return pointer_input(ex, state, name, ctype, depth, elements)
    raise PathError(f"input '{name}' of type {ctype}", unsupported=True)


def object_cells(ex: Executor, state: State, name: str, ctype: CType, depth: int = 0
                 ) -> list[Cell] | SparseCells:
    """Fresh symbolic contents for an input object of type `ctype` (see `input_cells`):
    of a large one, an array of bytes named `name` (see large_objects.py)."""
    if is_large(ctype):
        return SparseCells.named(name, ctype.size)
    return input_cells(ex, state, name, ctype, depth)


def object_ident(name: str) -> str:
    """The case's name of the object the input pointer `name` points to (`p->next` is
    `ctgen_obj_p__next`)."""
    return OBJECT_PREFIX + "".join(c if c.isalnum() else "_" for c in name)


def pointer_input(ex: Executor, state: State, name: str, ctype: PointerType, depth: int,
                  elements: int | None = None) -> list[Cell]:
    """An input pointer: NULL (a solver choice), or into an object of `array_size`
    elements (or `elements`, when more) of its own, or, decided when the path first uses
    it, into another object of its element type (an `AliasPtr`). Beyond `pointer_depth`
    it has no object of its own: it is NULL or points into an object that contains it or
    another input's."""
    target = ctype.target
    if isinstance(target, FunctionType):
        return function_pointers.function_pointer_input(ex, state, name, target, depth)
    while has_variable_size(target):  # rows of a size known on entry: their elements
        assert isinstance(target, ArrayType)
        target = target.element
    if isinstance(target, VoidType) or not target.is_complete:
        target = UCHAR
    if lazy.is_linked(ex, target):
        assert isinstance(target, RecordType)
        return lazy.lazy_pointer(ex, state, name, target, depth, 0)
    null = z3.Bool(f"{name}==NULL")
    containers = tuple(oid for oid, _ in ex.building)
    ident = object_ident(name)
    if depth < ex.pointer_depth:
        # where a path needed room before where the pointer points: an array of `element`
        # (the pointer's target, or the record it lies in), the pointer `start` bytes in;
        # where a path called it, a callback
        element, start = ex.placements.get(ident, (target, 0))
        if isinstance(element, FunctionType):
            return function_pointers.function_pointer_input(ex, state, name, element, depth)
        count = max(ex.array_size, elements or 0) + -(-start // element.size)
        array = ArrayType(element, count)
        oid = ex.reserve_object()
        ex.building.append((oid, array))
        try:
            cells = object_cells(ex, state, f"{name}[]", array, depth + 1)
        finally:
            ex.building.pop()
        ex.add_object(state, oid, f"*{name}", cells)
        at = z3.BitVecVal(start, 64) if start else zero64()
        ptr = AliasPtr(f"{name}->", PtrVal(oid, at, null), target, null, depth, containers)
        state.pointees.append(Pointee(ident, oid, array, ptr, depth,
                                     read_only=ctype.target_const))
        return value_cells(ptr, 8)
    fallback = _fallback(ex, state, target)
    if fallback is None:
        beyond = PtrVal(None, zero64(), beyond_depth=True)
        return value_cells(beyond, 8)
    ptr = AliasPtr(f"{name}->", None, target, null, depth, containers,
                   PtrVal(fallback, zero64(), null))
    state.pointees.append(Pointee(ident, None, None, ptr, depth))
    return value_cells(ptr, 8)


def want_placement(ex: Executor, state: State, oid: int, below: int,
                  record: tuple[RecordType, int] | None) -> None:
    """A path accessed `below` bytes before the start of the input object `oid`, as the
    member at offset k of `record` when it says so. Where that object is what an input
    pointer points to, the next search round makes it with room before the pointer: for
    a member, an array of its record with the pointer where the access finds it
    (`container_of`: a pointer to a member, the record found from it; a header record
    before a payload); else `array_size` elements or more of its own type before it."""
    made = state.lazy.get(oid)
    if made is not None and record is not None and isinstance(made.pointer, AliasPtr):
        # a lazily made record: every fresh one of its type becomes that member
        linked = made.pointer.element
        assert isinstance(linked, RecordType)
        kind, k = record
        _, start = ex.placements.get(linked, (linked, 0))
        if kind is not linked and start + below + k + linked.size <= kind.size:
            ex.placements_wanted[linked] = (kind, start + below + k)
        return
    for p in state.pointees:
        if p.object_id != oid or not isinstance(p.type, ArrayType) or not p.type.element.size:
            continue
        element, start = ex.placements.get(p.name, (p.type.element, 0))
        if record is not None:  # the pointer lies start + below + k bytes into a record
            kind, k = record
            ex.placements_wanted[p.name] = (kind, start + below + k)
        else:
            lead = max(ex.array_size, -(-(start + below) // element.size))
            ex.placements_wanted[p.name] = (element, lead * element.size)
        return


def want_callback(ex: Executor, state: State, called: SymValue, oid: int,
                  ftype: FunctionType) -> str | None:
    """A path calls, as a function of type `ftype`, the object `oid`, the value `called`
    points to. Where `called` is an input pointer (a parameter, a global, a member or
    element of an input object) and `oid` its own object, as for a `void *` context that
    holds a callback (qsort_r's wrappers, an event's `void *ctx`), the next search round
    makes that pointer a callback of that type. The pointer's name, or None."""
    if not isinstance(called, AliasPtr) or called.own is None or called.own.base != oid:
        return None
    for p in state.pointees:
        if p.pointer is called:
            ex.placements_wanted[p.name] = (ftype, 0)
            return called.choice.removesuffix("->")
    return None


def _fallback(ex: Executor, state: State, target: CType) -> int | None:
    """Where an input pointer beyond `pointer_depth` points when no path decided: into
    the outermost object being made that it may point into, else into the pointee of a
    parameter or global; None when there is neither."""
    for oid, array in ex.building:
        if same_element(array.element, target):
            return oid
    for p in state.pointees:
        if p.depth == 0 and isinstance(p.type, ArrayType) and \
                same_element(p.type.element, target):
            return p.object_id
    return None


def alias_choice(ex: Executor, state: State, ptr: AliasPtr) -> AliasChoice:
    """Where `ptr` may point: its own object first, then into the objects that contain
    it, the pointees of other inputs (for a pointer inside a pointee, only those of
    parameters and globals), and the unit's globals, each at an offset inside, aligned
    to the element."""
    if isinstance(ptr.element, FunctionType):
        return function_pointers.function_choice(ex, state, ptr)
    own = ptr.own.base if ptr.own is not None else None
    by_object = {p.object_id: p for p in state.pointees if p.object_id is not None}
    targets: list[int] = []
    for oid in ptr.containers:
        p = by_object.get(oid)
        if p is not None and isinstance(p.type, ArrayType) and \
                same_element(p.type.element, ptr.element):
            targets.append(oid)
    for p in state.pointees:
        if p.object_id is None or p.object_id == own or p.object_id in targets:
            continue
        if ptr.depth > 0 and p.depth > 0:
            continue
        if isinstance(p.type, ArrayType) and \
                same_element(p.type.element, ptr.element):
            targets.append(p.object_id)
    for var in ex.program.unit.globals.values():
        if not ex.is_input_global(var):
            continue
        t = var.type
        element = t.element if isinstance(t, ArrayType) else t
        if same_element(element, ptr.element) and t.size > 0:
            targets.append(global_object(ex, state, var))
    alternatives: list[PtrVal] = []
    conditions: list[z3.BoolRef] = []
    if ptr.own is not None:
        alternatives.append(ptr.own)
        conditions.append(z3.BoolVal(True))
    size = ptr.element.size
    for oid in targets:
        obj = state.memory[oid]
        # an element index, so the offset's shape tells accesses through it where
        # they can land (see memory.known_residue)
        index = z3.BitVec(f"{ptr.choice}{obj.name}.index", 64)
        offset = index * size if size > 1 else index
        alternatives.append(PtrVal(oid, offset, ptr.null))
        conditions.append(z3.ULE(index, obj.size // max(1, size)))
    return AliasChoice(ptr, tuple(alternatives), tuple(conditions))


def resolve(ex: Executor, state: State, v: SymValue) -> SymValue:
    """`v` with an input pointer's aliasing decided; raises NeedChoice when the path
    has not decided it yet and there is more than its own object to choose from."""
    if not isinstance(v, AliasPtr):
        return v
    if v.lazy_depth is not None:
        return lazy.resolve(ex, state, v)
    decided = state.aliases.get(v.choice)
    if decided is not None:
        return decided
    choice = alias_choice(ex, state, v)
    if len(choice.alternatives) == 1 and z3.is_true(choice.conditions[0]):
        state.aliases[v.choice] = choice.alternatives[0]
        return choice.alternatives[0]
    raise NeedChoice(choice)


def resolve_arguments(ex: Executor, state: State, args: list[SymValue]) -> list[SymValue]:
    """The arguments of a stub or library call with the aliasing of input pointers
    decided, but for function pointers: a stub does not call them."""
    return [a if is_function_pointer(a) else resolve(ex, state, a) for a in args]




def garbage(ex: Executor, var: Variable, size: int) -> list[Cell]:
    """Contents of an uninitialized object: unknown, the same on every path. An
    uninitialized pointer is modelled as NULL: using it is undefined anyway."""
    if isinstance(var.type, PointerType):
        return [(null_pointer(), i) for i in range(size)]  # a pointer of its own per byte
    if size == 0:
        return []
    v = z3.BitVec(_garbage_name(ex, var), size * 8)
    return value_cells(v, size)


def garbage_object(ex: Executor, var: Variable, size: int) -> list[Cell] | SparseCells:
    """`garbage` for the object of `var` in memory, of `size` bytes: sparse when large."""
    if size > LARGE_OBJECT and not holds_pointer(var.type):
        return SparseCells.named(_garbage_name(ex, var), size)
    return garbage(ex, var, size)


def _garbage_name(ex: Executor, var: Variable) -> str:
    ex.made_uninitialized = True
    return ex.garbage_names.setdefault(var, f"{GARBAGE}{var.name}.{len(ex.garbage_names)}")


def check_unwritten_globals(ex: Executor, state: State) -> None:
    """Make the globals the function may write that the finished path of `state` did
    not touch inputs it reads (Executor.checked_globals): a case sets them to values of
    its own and checks that the call left them so."""
    for var in ex.checked_globals:
        if var not in state.globals:
            state.read_objects.add(global_object(ex, state, var))


def global_object(ex: Executor, state: State, var: Variable) -> int:
    """The object of a global or static local, created on first use: inputs for
    non-const globals, the initializer's contents for const globals and static locals."""
    oid = state.globals.get(var)
    if oid is not None:
        return oid
    inits = ex.program.static_inits.get(var)
    is_input = ex.is_input_global(var)
    failure = ex.program.init_failures.get(var)
    if failure is not None and not is_input:
        raise PathError(f"the initializer of '{var.name}' is not supported: "
                        f"{failure.message}", failure.location, unsupported=True)
    if is_input and is_unsized_array(var.type):
        raise PathError(f"extern array '{var.name}' of unknown size, defined by no file "
                        "of the build", unsupported=True)
    # the initializer gives a flexible array member elements beyond the type's size
    size = ex.program.storage.get(var, var.type.size)
    if is_input and size != var.type.size:
        raise PathError(f"global '{var.name}' is an input whose initializer gives its "
                        "flexible array member elements: the case cannot set them",
                        var.location, unsupported=True)
    unnamed = unnamed_pointee(var.type) if is_input else None
    if unnamed is not None:
        raise PathError(f"global '{var.name}' is an input that points to a {unnamed.kind} "
                        "without a tag or typedef name: the case cannot declare the object "
                        f"it points to; give the {unnamed.kind} a tag", var.location,
                        unsupported=True)
    cells: list[Cell] | SparseCells
    if is_input:
        cells = object_cells(ex, state, var.name, var.type)
    elif is_large(var.type):
        cells = SparseCells.filled(size, z3.BitVecVal(0, 8))
    else:
        cells = zero_cells(size)
    oid = ex.new_object(state, var.name, cells, readonly=var.is_const)
    state.globals[var] = oid
    if is_input:
        state.inputs.append(InputRoot("global", var, oid, None))
    elif inits:
        location = ex.location  # of the statement that uses the global
        for stmt in inits:
            statements.execute(ex, state, stmt, initializing=True)
        ex.location = location
        state.memory[oid].initial = copy_cells(state.memory[oid].cells)
    elif var.is_const and var.is_extern:
        raise PathError(f"const global '{var.name}' has no initializer in the unit",
                        unsupported=True)
    return oid
