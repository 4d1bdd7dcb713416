"""Lazily built inputs (lazy initialisation, as KLEE and SPF do it): a pointer input to a
linked record (a struct on a cycle of the type graph, a list node or tree node, or one
embedding such a struct, a list head with its sentinel) points to nothing until a path
uses it for more than a NULL test. Then the path chooses: a fresh object of the record of
its own, or an object of that record the case holds already (one made so, a record of
that type inside one, a global). Its NULL condition stays as for every input pointer (a
choice where the code tests it), so a list walker gets lists of the lengths and shapes its
branches need: empty, one node, the key at position k, cyclic where it compares nodes.

A record the unit does pointer arithmetic on (a pool of nodes indexed as an array) keeps
the objects of `array_size` elements every other input pointer gets (inputs.py).

A chain of fresh objects is at most `array_size` links long (the bound of the objects
behind input pointers, grown by the search as those are). A fresh object's contents are
inputs as every input's, its linked pointers lazy again. An object no path needed but a
case leaves non-NULL is set up zeroed (`extract.case_pointees`): nothing read it.

NULL in a link (a lazy pointer inside such an object) is a value the code may see once the
path tested a pointer to the same record for NULL (`State.test_null`): a walker that
stops at NULL and dereferences a link unchecked elsewhere has a finding there.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from ..cases import OBJECT_PREFIX
from ..frontend.ctype import ArrayType, CType, PointerType, RecordType
from ..ir.expr import Const, PtrAdd, PtrDiff, nodes_in
from ..ir.lower import Program
from .large_objects import SparseCells
from .memory import Cell, bits_input, value_cells, zero_cells
from .paths import AliasChoice, BoundReached, NeedChoice
from .state import Pointee, State
from .values import AliasPtr, PtrVal, zero64

if TYPE_CHECKING:
    from .executor import Executor


def _children(t: CType) -> list[CType]:
    """The types `t` holds by value or points to."""
    if isinstance(t, RecordType):
        return [f.type for f in t.fields]
    if isinstance(t, ArrayType):
        return [t.element]
    if isinstance(t, PointerType):
        return [t.target]
    return []


def _plain(t: CType) -> bool:
    """Whether `t` is a complete struct whose contents an input gets member by member
    (no union, no bit-field: those are inputs as bytes, see inputs.input_cells)."""
    return isinstance(t, RecordType) and t.is_complete and not bits_input(t)


def _on_cycle(record: RecordType) -> bool:
    """Whether `record` reaches itself through its members and pointers."""
    seen: set[int] = set()
    todo = list(_children(record))
    while todo:
        t = todo.pop()
        if t is record:
            return True
        if id(t) in seen:
            continue
        seen.add(id(t))
        todo.extend(_children(t))
    return False


def _embedded(t: CType) -> list[RecordType]:
    """The records `t` holds by value, `t` itself first when it is one."""
    if isinstance(t, ArrayType):
        return _embedded(t.element)
    if not isinstance(t, RecordType):
        return []
    return [t] + [r for f in t.fields for r in _embedded(f.type)]


def _indexed(program: Program) -> set[RecordType]:
    """The records the unit's functions do pointer arithmetic on (`pool[i]`, `p + 1`,
    `p - pool`): arrays of them, whose pointers get objects of `array_size` elements."""
    found: set[RecordType] = set()
    statements = [s for cfg in program.cfgs.values() for b in cfg.blocks
                  for s in [*b.stmts, b.terminator]]
    for n in (n for s in statements for n in nodes_in(s)):
        t = n.pointer.type if isinstance(n, PtrAdd) and not (
            isinstance(n.index, Const) and n.index.value == 0) else \
            n.left.type if isinstance(n, PtrDiff) else None
        if isinstance(t, PointerType) and isinstance(t.target, RecordType):
            found.add(t.target)
    return found


def is_linked(ex: Executor, t: CType) -> bool:
    """Whether an input pointer to `t` is made lazily: `t` is a plain struct on a cycle
    of the type graph or holding one by value, and the unit does no pointer arithmetic
    on pointers to any of those (`_indexed`)."""
    if not isinstance(t, RecordType):
        return False
    known = ex.linked_records.get(t)
    if known is None:
        if ex.indexed_records is None:
            ex.indexed_records = _indexed(ex.program)
        embedded = _embedded(t)
        known = all(_plain(r) and r not in ex.indexed_records for r in embedded) and \
            any(_on_cycle(r) for r in embedded)
        ex.linked_records[t] = known
    return known


def offsets_of(t: CType, record: RecordType) -> list[int]:
    """The offsets of the objects of type `record` inside an object of type `t`."""
    if t is record:
        return [0]
    if isinstance(t, ArrayType) and t.count:
        inner = offsets_of(t.element, record)
        return [i * t.element.size + k for i in range(t.count) for k in inner]
    if isinstance(t, RecordType) and not t.is_union:
        return [f.offset + k for f in t.fields if not f.is_bitfield
                for k in offsets_of(f.type, record)]
    return []


def _ident(ex: Executor, name: str) -> str:
    """The case's name of the object of the lazy pointer `name` (`n->next` is
    `ctgen_obj_n_next`), unique among those of the function."""
    text = name.replace("->", "_").replace(".", "_")
    ident = OBJECT_PREFIX + "".join(c if c.isalnum() or c == "_" else "_" for c in text)
    taken = ex.lazy_idents.get(ident)
    if taken is not None and taken != name:
        k = 2
        while f"{ident}_{k}" in ex.lazy_idents:
            k += 1
        ident = f"{ident}_{k}"
    ex.lazy_idents.setdefault(ident, name)
    return ident


def lazy_pointer(ex: Executor, state: State, name: str, target: RecordType, depth: int,
                 links: int) -> list[Cell]:
    """The cells of the lazy input pointer `name` to `target`, `links` lazy pointers from
    a parameter or global (`depth`: as input pointers count it). Testing it for NULL
    shows NULL is a value of pointers to `target` (the end of a list, a leaf): one
    inside a lazily made object (a link) may be NULL where the code dereferences it
    unchecked then (State.test_null)."""
    null = z3.Bool(f"{name}==NULL")
    oid = ex.reserve_object()
    # a path found `target` to be a member of a larger record (container_of): its fresh
    # object is that record, the pointer at the member
    record, start = ex.placements.get(target, (target, 0))
    assert isinstance(record, RecordType)
    at = z3.BitVecVal(start, 64) if start else zero64()
    ptr = AliasPtr(f"{name}->", PtrVal(oid, at, null), target, null, depth, (),
                   lazy_depth=links)
    state.lazy[oid] = Pointee(_ident(ex, name), oid, record, ptr, depth)
    state.null_families[str(null)] = (f"links to {id(target)}", links > 0)
    return value_cells(ptr, 8)


def _record_cells(ex: Executor, state: State, name: str, joiner: str, t: RecordType,
                  links: int) -> list[Cell]:
    """Fresh input contents of the struct `name` (its members `name` `joiner` member),
    part of a lazily made object."""
    cells = zero_cells(t.size)
    for f in t.fields:
        sub = _fresh_cells(ex, state, f"{name}{joiner}{f.name}", f.type, links)
        cells[f.offset:f.offset + len(sub)] = sub
    return cells


def _fresh_cells(ex: Executor, state: State, name: str, t: CType, links: int
                 ) -> list[Cell]:
    """Fresh input contents of the part `name` of a lazily made object, of type `t`."""
    from .inputs import input_cells

    if isinstance(t, ArrayType):
        out: list[Cell] = []
        for i in range(t.count or 0):
            out.extend(_fresh_cells(ex, state, f"{name}[{i}]", t.element, links))
        return out
    if isinstance(t, RecordType) and _plain(t):
        return _record_cells(ex, state, name, ".", t, links)
    if isinstance(t, PointerType) and is_linked(ex, t.target):
        assert isinstance(t.target, RecordType)
        return lazy_pointer(ex, state, name, t.target, 1 + links, links)
    return input_cells(ex, state, name, t, 1)


def _make(ex: Executor, state: State, p: Pointee) -> None:
    """The fresh object of the lazy pointer of `p`, which the path chose."""
    ptr = p.pointer
    assert isinstance(ptr, AliasPtr) and ptr.lazy_depth is not None
    assert isinstance(p.type, RecordType) and p.object_id is not None
    name = ptr.choice.removesuffix("->")
    cells = _record_cells(ex, state, name, "->", p.type, ptr.lazy_depth + 1)
    ex.add_object(state, p.object_id, f"*{name}", cells)
    state.pointees.append(p)


def decide(ex: Executor, state: State, ptr: AliasPtr, target: PtrVal) -> None:
    """The lazy `ptr` points to `target` on this path: its fresh object, made now, or
    another object."""
    state.aliases[ptr.choice] = target
    base = target.base
    if ptr.own is not None and base is not None and base == ptr.own.base and \
            base not in state.memory:
        _make(ex, state, state.lazy[base])


def _home(state: State, ptr: AliasPtr) -> tuple[int, int] | None:
    """The record the lazy `ptr` lies in when that is inside a lazily made object (the
    object and the offset of the record): pointing there is a loop of one link."""
    record = ptr.element
    assert isinstance(record, RecordType)
    for p in state.pointees:
        if p.object_id is None or not isinstance(p.type, RecordType) or \
                p.object_id not in state.memory:
            continue
        cells = state.memory[p.object_id].initial
        if cells is None or isinstance(cells, SparseCells):
            continue
        for k, (value, i) in enumerate(cells):
            if value is ptr and i == 0:
                inner = [o for o in offsets_of(p.type, record) if o <= k]
                return (p.object_id, max(inner)) if inner else None
    return None


def choice(ex: Executor, state: State, ptr: AliasPtr) -> AliasChoice:
    """Where the lazy `ptr` may point, in the order the search tries them: a parameter
    or global gets its fresh object first; a link closes a structure on a record inside
    another object (a list's end item, a global) before it grows by its fresh object
    (within the bound), and grows before it points back to its own record or shares or
    cycles through the objects made for other lazy pointers (in the order they were
    made)."""
    from .inputs import global_object

    record = ptr.element
    assert isinstance(record, RecordType) and ptr.own is not None
    inside: list[PtrVal] = []
    made: list[PtrVal] = []
    home = _home(state, ptr)
    for p in state.pointees:
        if p.object_id is None or p.type is None or p.object_id not in state.memory:
            continue
        for k in offsets_of(p.type, record):
            group = made if p.type is record or (p.object_id, k) == home else inside
            group.append(PtrVal(p.object_id, z3.BitVecVal(k, 64), ptr.null))
    for var in ex.program.unit.globals.values():
        if not ex.is_input_global(var) or var.type.size == 0:
            continue
        offsets = offsets_of(var.type, record)
        if offsets:
            oid = global_object(ex, state, var)
            inside += [PtrVal(oid, z3.BitVecVal(k, 64), ptr.null) for k in offsets]
    assert ptr.lazy_depth is not None
    fresh = [ptr.own] if ptr.lazy_depth < ex.array_size else []
    alternatives = fresh + inside + made if ptr.lazy_depth == 0 else inside + fresh + made
    return AliasChoice(ptr, tuple(alternatives), tuple(z3.BoolVal(True) for _ in alternatives))


def resolve(ex: Executor, state: State, ptr: AliasPtr) -> PtrVal:
    """The lazy `ptr` as this path decided it; raises NeedChoice when there is more than
    one place to choose from, BoundReached when there is none (the chain of fresh
    objects is at the bound, and the path holds no object of the record)."""
    decided = state.aliases.get(ptr.choice)
    if decided is not None:
        return decided
    options = choice(ex, state, ptr)
    if not options.alternatives:
        ex.objects_too_small = True
        raise BoundReached(f"linked input objects more than {ex.array_size} links deep")
    if len(options.alternatives) == 1:
        decide(ex, state, ptr, options.alternatives[0])
        return options.alternatives[0]
    raise NeedChoice(options)
