"""The heap: malloc, calloc, realloc, aligned_alloc and free, executed symbolically.

Allocation call k of a path (0-based, counted over malloc, calloc, realloc and
aligned_alloc in the order the path makes them, as the harness allocator counts them)
makes a fresh object of the requested size: garbage (malloc, aligned_alloc, what realloc
adds; reading it is a finding, see access.load) or zeros (calloc). A size that depends on
the inputs is a choice of the search, bounded like the objects behind input pointers:
`array_size` elements (the size's known factor, `sizeof (T)` in `n * sizeof (T)`) and one
alternative beyond, where the search stops at the bound (statements.length does the same
for variable length arrays).

The call returns NULL instead where `Allocation.fails` holds, a condition the case
chooses: the harness fails the case's chosen calls (`Case.failing_allocations`). A path
decides it where the code tests the pointer; using the pointer where the call may have
failed is a finding (access.dereference: the unit made the pointer, and nothing
promises that the call succeeds).

`free` of a pointer the allocator did not return, not to the start of its object, or
freed before, and any use of a freed object (check_live), are findings. An input
pointer's object may be freed: the case's caller owns it (the harness's free leaves the
case's objects alone). On return, what the caller cannot reach of the function's own
allocations and was not freed is a leak, a note on the case (`notes`), or
with `--ctgen-leaks fail` a violation it fails with (`leaks`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import z3

from ..cases import (
    HEAP_PREFIX, LEAK, ArrayValue, Binding, IntValue, PointerValue, Value, Violation)
from ..errors import UnsupportedError
from ..frontend.ctype import FunctionType
from . import memory
from .large_objects import LARGE_OBJECT, SparseCells
from .memory import GARBAGE, Cell, value_cells, zero_cells
from .paths import BEYOND_BOUND, BoundReached, NeedChoice, OffsetChoice, PathError
from .state import Allocation, State
from .values import AggVal, AliasPtr, PtrVal, SymValue, uninterpreted_in, zero64

if TYPE_CHECKING:
    from .executor import Executor

# ------------------------------------------------------------------------------ sizes


def _factor(term: z3.BitVecRef) -> tuple[int, int]:
    """(m, r): the size `term` is r plus a multiple of m as its shape shows (`n * 12 + 4`
    is (12, 4)); an element's size where the code multiplies by one."""
    if z3.is_app_of(term, z3.Z3_OP_BMUL):
        for arg in term.children():
            if z3.is_bv_value(arg) and 0 < arg.as_long() <= 1 << 16:
                return arg.as_long(), 0
    if z3.is_app_of(term, z3.Z3_OP_BADD) and term.num_args() == 2:
        a, b = term.children()
        if z3.is_bv_value(a):
            a, b = b, a
        if z3.is_bv_value(b):
            m, r = _factor(a)
            return m, (r + b.as_long()) % m
    return memory.known_residue(term)


def size_of(ex: Executor, state: State, n: z3.BitVecRef, what: str) -> int:
    """The size `n` (bytes) as a number: a symbolic one is a choice of the values it can
    take up to `array_size` elements of its factor, and one beyond, where the search
    stops at the bound."""
    simple = z3.simplify(n)
    if z3.is_bv_value(simple):
        return simple.as_long()
    chosen = state.fixed_offsets.get(simple.get_id())
    if chosen == BEYOND_BOUND:
        ex.objects_too_small = True
        raise BoundReached(f"{what} objects hold at most {ex.array_size} elements")
    if chosen is not None:
        return chosen
    step, residue = _factor(simple)
    values = tuple(residue + k * step for k in range(ex.array_size + 1))
    top = z3.BitVecVal(values[-1], simple.size())
    raise NeedChoice(OffsetChoice(
        simple, values + (BEYOND_BOUND,),
        tuple(simple == v for v in values) + (z3.UGT(simple, top),)))


def _decided(state: State, condition: z3.BoolRef) -> bool:
    """Whether `condition` holds on this path: a choice of the search when the path has
    not decided it."""
    simple = z3.simplify(condition)
    if z3.is_true(simple) or z3.is_false(simple):
        return z3.is_true(simple)
    term = z3.simplify(z3.If(simple, z3.BitVecVal(1, 8), z3.BitVecVal(0, 8)))
    chosen = state.fixed_offsets.get(term.get_id())
    if chosen is not None:
        return chosen == 1
    raise NeedChoice(OffsetChoice(term, (0, 1), (z3.Not(simple), simple)))


# ------------------------------------------------------------------------ allocating


def _garbage(k: int, start: int, size: int) -> list[Cell] | SparseCells:
    """Uninitialized contents of `size` bytes for allocation `k` (from byte `start` of it:
    the part realloc adds)."""
    name = f"{GARBAGE}heap#{k}.{start}"
    if size > LARGE_OBJECT:
        return SparseCells.named(name, size)
    return value_cells(z3.BitVec(name, size * 8), size) if size else []


def _allocate(ex: Executor, state: State, function: str, size: int, zero: bool,
              prefix: list[Cell] | None = None) -> PtrVal:
    """Allocation call k: a fresh object of `size` bytes (its first bytes `prefix`), or
    NULL where the call fails."""
    k = len(state.allocations)
    fails = z3.Bool(f"{function}#{k} fails")
    cells: list[Cell] | SparseCells
    if zero:
        cells = SparseCells.filled(size, z3.BitVecVal(0, 8)) if size > LARGE_OBJECT \
            else zero_cells(size)
    elif prefix:
        rest = _garbage(k, len(prefix), size - len(prefix))
        assert not isinstance(rest, SparseCells)
        cells = prefix + rest
    else:
        cells = _garbage(k, 0, size)
    ex.made_uninitialized |= not zero
    oid = ex.new_object(state, f"{function}#{k}", cells)
    state.allocations.append(Allocation(k, function, oid, fails, size, ex.at(ex.location)))
    # using the pointer where the call may have failed is a finding (access.dereference)
    state.null_tested.add(str(fails))
    return PtrVal(oid, zero64(), fails)


def _number(v: SymValue) -> z3.BitVecRef:
    assert isinstance(v, z3.BitVecRef)
    return v


def _malloc(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType
            ) -> SymValue:
    return _allocate(ex, state, "malloc", size_of(ex, state, _number(args[0]), "malloc"),
                     False)


def _calloc(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType
            ) -> SymValue:
    # the product in 128 bits: one that overflows is beyond every bound
    total = z3.ZeroExt(64, _number(args[0])) * z3.ZeroExt(64, _number(args[1]))
    return _allocate(ex, state, "calloc", size_of(ex, state, total, "calloc"), True)


def _aligned_alloc(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType
                   ) -> SymValue:
    alignment = z3.simplify(_number(args[0]))
    if not z3.is_bv_value(alignment):
        raise UnsupportedError("aligned_alloc with an alignment computed from the inputs")
    a = alignment.as_long()
    size = size_of(ex, state, _number(args[1]), "aligned_alloc")
    if a == 0 or a & (a - 1):
        _error(ex, state, z3.BoolVal(True),
               f"aligned_alloc with the alignment {a}, which is no power of two")
    return _allocate(ex, state, "aligned_alloc", size, False)


def _realloc(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType
             ) -> SymValue:
    p = _pointer(args[0], "realloc")
    if p.is_null or _decided(state, p.null_condition()):
        return _allocate(ex, state, "realloc",
                         size_of(ex, state, _number(args[1]), "realloc"), False)
    assert p.base is not None
    size = size_of(ex, state, _number(args[1]), "realloc")
    obj = state.memory[p.base]
    if _allocation(state, p.base) is None:
        if p.base in state.input_objects():
            raise UnsupportedError("realloc of an object an input pointer points to (the "
                                   "harness does not know its size)")
        _error(ex, state, z3.BoolVal(True),
               f"realloc of '{obj.name}', which no allocation function returned")
    _freeable(ex, state, p, "realloc")
    if size == 0:
        _error(ex, state, z3.BoolVal(True), f"realloc of '{obj.name}' to 0 bytes "
               "(C23 leaves it undefined, C17 to the implementation)")
    if isinstance(obj.cells, SparseCells) or size > LARGE_OBJECT:
        raise UnsupportedError(f"realloc of the large object '{obj.name}'")
    result = _allocate(ex, state, "realloc", size, False, list(obj.cells[:size]))
    assert result.null is not None
    # where the call does not fail, the old object is freed
    state.freed[p.base] = (z3.Not(result.null), ex.at(ex.location))
    return result


# --------------------------------------------------------------------------- freeing


def _pointer(v: SymValue, function: str) -> PtrVal:
    if isinstance(v, AliasPtr) or not isinstance(v, PtrVal):
        raise UnsupportedError(f"{function} of a function pointer")
    return v


def _allocation(state: State, object_id: int) -> Allocation | None:
    for a in state.allocations:
        if a.object_id == object_id:
            return a
    return None


def _error(ex: Executor, state: State, condition: z3.BoolRef, what: str,
           site: str | None = None) -> None:
    """Undefined behaviour `what` where `condition` holds: a finding; this path goes on
    where it does not."""
    from . import contracts  # which reaches the calls, and through libc this module

    contracts.finding(ex, state, condition, what, site)
    if z3.is_true(z3.simplify(condition)):
        raise PathError(what)
    state.assume(z3.Not(condition))


def _freeable(ex: Executor, state: State, p: PtrVal, function: str) -> z3.BoolRef:
    """The checks of `function` (free, realloc) freeing `p`, an allocation's result or an
    input pointer: it points to the start of its object, which is not freed yet.
    Returns where `p` is not NULL."""
    assert p.base is not None
    obj = state.memory[p.base]
    given = z3.Not(p.null_condition())
    _error(ex, state, z3.And(given, p.offset != 0),
           f"{function} of a pointer into the middle of '{obj.name}'")
    freed = state.freed.get(p.base)
    if freed is not None:
        condition, at = freed
        _error(ex, state, z3.And(given, condition),
               f"double free: {function} of '{obj.name}', freed at {at}",
               f"double free of '{obj.name}'")
    return given


def _free(ex: Executor, state: State, args: list[SymValue], ftype: FunctionType
          ) -> SymValue | None:
    p = _pointer(args[0], "free")
    if p.is_null:
        return None
    if p.beyond_depth:
        raise BoundReached(f"input pointers nested more than {ex.pointer_depth} levels deep")
    assert p.base is not None
    obj = state.memory[p.base]
    if _allocation(state, p.base) is None and p.base not in state.input_objects():
        what = f"free of '{obj.name}', which no allocation function returned"
        _error(ex, state, z3.Not(p.null_condition()), what)
        return None
    given = _freeable(ex, state, p, "free")
    state.freed[p.base] = (given, ex.at(ex.location))
    return None


def check_live(ex: Executor, state: State, p: PtrVal) -> None:
    """`p` is used to reach its object: a finding where the object is freed."""
    freed = state.freed.get(p.base) if p.base is not None else None
    if freed is None:
        return
    condition, at = freed
    name = state.memory[p.base].name if p.base is not None else ""
    _error(ex, state, z3.And(z3.Not(p.null_condition()), condition),
           f"use after free of '{name}' (freed at {at})", f"use after free of '{name}'")


MODELS = {"malloc": _malloc, "calloc": _calloc, "realloc": _realloc,
          "aligned_alloc": _aligned_alloc, "free": _free}


# -------------------------------------------------------------------------- the case


def heap_name(a: Allocation, offset: int = 0) -> str:
    """How a case names the object of allocation `a` (cases.HEAP_PREFIX), or the part
    of it from byte `offset` on."""
    return f"{HEAP_PREFIX}{a.index}" + (f"_at_{offset}" if offset else "")


def object_names(state: State) -> dict[int, PointerValue]:
    """How a case names the objects of the path's allocations."""
    return {a.object_id: PointerValue(heap_name(a)) for a in state.allocations}


def _true(model: z3.ModelRef, condition: z3.BoolRef) -> bool:
    return z3.is_true(model.eval(condition, model_completion=True))


def failing(model: z3.ModelRef, state: State) -> tuple[int, ...]:
    """The allocation calls the case fails (by number)."""
    return tuple(a.index for a in state.allocations if _true(model, a.fails))


def freed_in(model: z3.ModelRef, state: State, object_id: int) -> bool:
    freed = state.freed.get(object_id)
    return freed is not None and _true(model, freed[0])


def _live(model: z3.ModelRef, state: State) -> list[Allocation]:
    """The allocations of the case that made an object it did not free."""
    return [a for a in state.allocations
            if not _true(model, a.fails) and not freed_in(model, state, a.object_id)]


def reachable(model: z3.ModelRef, state: State, roots: Iterable[Cell]) -> set[int]:
    """The objects the pointers among `roots` reach, directly or through the objects
    they reach, with the aliasing of the path."""
    from .extract import effective_pointer  # extract names heap objects through us

    seen: set[int] = set()
    work = list(roots)
    while work:
        value, i = work.pop()
        if i != 0 or not isinstance(value, (PtrVal, AliasPtr)):
            continue
        p = effective_pointer(value, state.aliases)
        if p.base is None or p.base in seen or _true(model, p.null_condition()):
            continue
        seen.add(p.base)
        obj = state.memory.get(p.base)  # none: a lazy pointer's, never used (lazy.py)
        cells = obj.cells if obj is not None else []
        if not isinstance(cells, SparseCells):
            work.extend(cells)
    return seen


def caller_reaches(model: z3.ModelRef, state: State) -> set[int]:
    """The objects the caller can reach after the call: through the result, the globals
    and the objects of the case's inputs."""
    roots: list[Cell] = []
    if state.result is not None:
        roots.extend(state.result.cells if isinstance(state.result, AggVal)
                     else [(state.result, 0)])
    for oid in state.globals.values():
        cells = state.memory[oid].cells
        if not isinstance(cells, SparseCells):
            roots.extend(cells)
    inputs = state.input_objects()
    for oid in inputs:
        roots.append((PtrVal(oid, zero64()), 0))
    return reachable(model, state, roots)


def _leaked(model: z3.ModelRef, state: State, reached: set[int]) -> list[Allocation]:
    """The allocations of the path it neither freed nor left where the caller reaches
    them (`reached`), on return."""
    return [a for a in _live(model, state) if a.object_id not in reached]


def leaks(model: z3.ModelRef, state: State) -> tuple[Violation, ...]:
    """The leaks of the path as the violations a case fails with (`--ctgen-leaks fail`):
    each at the call that allocated, naming the object as the case does."""
    if state.ending is not None or not state.allocations:
        return ()
    return tuple(Violation(LEAK, a.at, f"{heap_name(a)}: {a.size} bytes from {a.function}")
                 for a in _leaked(model, state, caller_reaches(model, state)))


def notes(model: z3.ModelRef, state: State) -> tuple[str, ...]:
    """The allocation calls the case fails; on return, the leaks of the path (the
    allocations it neither freed nor left where the caller reaches them) and the bytes of
    the caller's heap objects a case does not check."""
    out = [f"{heap_name(a)} fails: {a.function} at {a.at} returns NULL"
           for a in state.allocations if _true(model, a.fails)]
    if state.ending is not None or not state.allocations:
        return tuple(out)
    reached = caller_reaches(model, state)
    leaked = {a.object_id for a in _leaked(model, state, reached)}
    for a in _live(model, state):
        if a.object_id in leaked:
            out.append(f"leaks {heap_name(a)}: {a.size} bytes from {a.function} at {a.at}, "
                       "neither freed nor reachable by the caller")
            continue
        cells = state.memory[a.object_id].cells
        unknown = a.size if isinstance(cells, SparseCells) else \
            sum(1 for k in range(len(cells)) if _unknown_byte(cells, k, model))
        if unknown:
            out.append(f"{heap_name(a)}: {unknown} of its {a.size} bytes not written, "
                       "not checked")
    return tuple(out)


def _pointer_at(cells: list[Cell], k: int) -> PtrVal | AliasPtr | None:
    """The pointer whose bytes start at `k` of `cells`, whole, or None."""
    value, i = cells[k]
    if i != 0 or not isinstance(value, (PtrVal, AliasPtr)) or k + 8 > len(cells):
        return None
    if all(cells[k + j][0] is value and cells[k + j][1] == j for j in range(8)):
        return value
    return None


def _unknown_byte(cells: list[Cell], k: int, model: z3.ModelRef) -> bool:
    """Whether byte k of `cells` is unknown to a case: not of a whole pointer, and of a
    pointer's part or made from bytes nothing wrote."""
    value, i = cells[k]
    if isinstance(value, (PtrVal, AliasPtr)) and i <= k and \
            _pointer_at(cells, k - i) is value:
        return False
    return _unknown(cells[k], model)


def _unknown(cell: Cell, model: z3.ModelRef) -> bool:
    """Whether the byte of `cell` is unknown to a case: of a pointer, or made from bytes
    nothing wrote, with the inputs of `model` (a store at a computed position leaves the
    other positions' old bytes in its terms)."""
    try:
        byte = memory.byte_of(cell)
    except UnsupportedError:
        return True
    inputs, garbage = _constants(byte)
    if not garbage:
        return False
    fixed = [(c, model.eval(c, model_completion=True)) for c in inputs]
    return bool(_constants(z3.simplify(z3.substitute(byte, *fixed)) if fixed else byte)[1])


def _constants(term: z3.ExprRef) -> tuple[list[z3.ExprRef], bool]:
    """The constants of `term` but the garbage ones, and whether it has a garbage one."""
    constants = [t for t in uninterpreted_in([term]) if z3.is_const(t)]
    found = [t for t in constants if not memory.is_garbage(t)]
    return found, len(found) < len(constants)


def expected_objects(model: z3.ModelRef, state: State,
                     pointer: Callable[[list[Cell]], Value]) -> tuple[Binding, ...]:
    """The caller's heap objects after the call as a case checks them: each run of bytes
    the function wrote, and each pointer it stored (`pointer` gives its case value), as
    an object of its own: `ctgen_heap_K` from the start, `ctgen_heap_K_at_N` from byte
    N."""
    if not state.allocations:  # nothing to evaluate: z3 makes no term (see README)
        return ()
    reached = caller_reaches(model, state)
    out = []
    for a in _live(model, state):
        cells = state.memory[a.object_id].cells
        if a.object_id not in reached or isinstance(cells, SparseCells):
            continue
        k = 0
        while k < len(cells):
            if _pointer_at(cells, k) is not None:
                # an array, as every object of a case: its name is its address too
                out.append(Binding(heap_name(a, k), "void *@[1]",
                                   ArrayValue((pointer(cells[k:k + 8]),))))
                k += 8
                continue
            start = k
            while k < len(cells) and _pointer_at(cells, k) is None and \
                    not _unknown(cells[k], model):
                k += 1
            if k == start:
                k += 1
                continue
            data = [model.eval(memory.byte_of(c), model_completion=True).as_long()
                    for c in cells[start:k]]
            out.append(Binding(heap_name(a, start), f"unsigned char @[{k - start}]",
                               ArrayValue(tuple(IntValue(b) for b in data))))
    return tuple(out)


def preferences(state: State) -> list[z3.BoolRef]:
    """Wishes for readable cases: allocations succeed unless the path needs them not to."""
    return [z3.Not(a.fails) for a in state.allocations]
