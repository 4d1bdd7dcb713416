"""Merging two paths that stand at the same point of the program into one state, as a
bounded model checker's encoding merges them: where their values differ, the merged value
is `If(first path, its value, the other's)`, and the path condition is the disjunction of
theirs. The merged state is for asking the solver whether any of the paths merged reaches
a goal (search/merged_search.py), never for a case: a case comes from running one path.

Two states merge only when they are alike in everything a path decides beyond values:
the same frames at the same statement, the same objects (where pointers point), the same
inputs, stub calls and allocations; anything else keeps them apart."""
from __future__ import annotations

import z3

from .large_objects import SparseCells
from .memory import Cell, MemObject, byte_of
from .state import Frame, State, StubCallRecord
from .values import AggVal, AliasPtr, PtrVal, SymValue


class _Apart(Exception):
    """The two states differ in more than values."""


class _Merger:
    """Merges the values of two states under `first`: the condition of the first one's
    path since the paths parted. One merged term per pair of terms, so that a value's
    byte cells stay cells of one value (memory.value_from_cells)."""

    def __init__(self, first: z3.BoolRef) -> None:
        self.first = first
        self.terms: dict[tuple[int, int], z3.ExprRef] = {}
        self.pointers: dict[tuple[int, int], PtrVal] = {}

    def term(self, a: z3.ExprRef, b: z3.ExprRef) -> z3.ExprRef:
        key = (a.get_id(), b.get_id())
        if key[0] == key[1]:
            return a
        merged = self.terms.get(key)
        if merged is None:
            # z3.If's own coercions and checks cost most of a merge of large objects:
            # the ite is made directly, and z3 refuses two terms of different sorts
            ctx = a.ctx
            try:
                made = z3.Z3_mk_ite(ctx.ref(), self.first.as_ast(), a.as_ast(), b.as_ast())
            except z3.Z3Exception:
                raise _Apart from None
            merged = self.terms[key] = z3.z3._to_expr_ref(made, ctx)
        return merged

    def pointer(self, a: PtrVal, b: PtrVal) -> PtrVal:
        if a is b:
            return a
        if a.base != b.base or a.beyond_depth != b.beyond_depth or not _same_term(a.null, b.null):
            raise _Apart
        key = (id(a), id(b))
        merged = self.pointers.get(key)
        if merged is None:
            offset = self.term(a.offset, b.offset)
            assert isinstance(offset, z3.BitVecRef)
            merged = self.pointers[key] = PtrVal(a.base, offset, a.null, a.beyond_depth)
        return merged

    def value(self, a: SymValue, b: SymValue) -> SymValue:
        if a is b:
            return a
        if isinstance(a, AggVal) and isinstance(b, AggVal):
            return AggVal(tuple(self.cells(list(a.cells), list(b.cells))))
        if isinstance(a, PtrVal) and isinstance(b, PtrVal):
            return self.pointer(a, b)
        if isinstance(a, (PtrVal, AliasPtr, AggVal)) or isinstance(b, (PtrVal, AliasPtr, AggVal)):
            raise _Apart
        merged = self.term(a, b)
        assert isinstance(merged, (z3.BitVecRef, z3.FPRef))
        return merged

    def cells(self, a: list[Cell], b: list[Cell]) -> list[Cell]:
        if len(a) != len(b):
            raise _Apart
        return [self.cell(x, y) for x, y in zip(a, b)]

    def cell(self, a: Cell, b: Cell) -> Cell:
        (va, ia), (vb, ib) = a, b
        if va is vb and ia == ib:
            return a
        if isinstance(va, (PtrVal, AliasPtr)) or isinstance(vb, (PtrVal, AliasPtr)):
            if isinstance(va, PtrVal) and isinstance(vb, PtrVal) and ia == ib:
                return (self.pointer(va, vb), ia)
            raise _Apart
        if ia == ib:
            try:
                merged = self.term(va, vb)
            except _Apart:  # a float's byte beside an integer's
                pass
            else:
                assert isinstance(merged, (z3.BitVecRef, z3.FPRef))
                return (merged, ia)
        byte = self.term(byte_of(a), byte_of(b))
        assert isinstance(byte, z3.BitVecRef)
        return (byte, 0)

    def memory_object(self, a: MemObject, b: MemObject, owner: object) -> MemObject:
        if a is b or a.cells is b.cells:
            return a
        if (a.size, a.readonly, a.function) != (b.size, b.readonly, b.function) or \
                isinstance(a.cells, SparseCells) or isinstance(b.cells, SparseCells):
            raise _Apart
        return MemObject(a.id, a.name, a.size, self.cells(a.cells, b.cells), a.readonly,
                         owner, a.initial, a.function)

    def frame(self, a: Frame, b: Frame) -> Frame:
        if a.cfg is not b.cfg or a.block is not b.block or a.index != b.index or \
                a.return_target is not b.return_target or a.objects != b.objects or \
                a.registers.keys() != b.registers.keys():
            raise _Apart
        merged = a.copy()
        merged.registers = {v: self.value(x, b.registers[v]) for v, x in a.registers.items()}
        return merged


def _same_cells(a: tuple[Cell, ...] | SparseCells, b: tuple[Cell, ...] | SparseCells) -> bool:
    if a is b:
        return True
    if isinstance(a, SparseCells) or isinstance(b, SparseCells) or len(a) != len(b):
        return False
    return all(x[1] == y[1] and _same_term(x[0], y[0]) for x, y in zip(a, b))


def _stub_call(a: StubCallRecord, b: StubCallRecord, merger: _Merger) -> StubCallRecord:
    """One record for the same call of a stub on two paths: its result and what it wrote
    are named by the call (inputs.py), so they are the same terms; the arguments may
    differ."""
    if a is b:
        return a
    if (a.name, a.index, a.result_type) != (b.name, b.index, b.result_type) or \
            not _same_term(a.result, b.result) or \
            len(a.writes) != len(b.writes) or len(a.arguments) != len(b.arguments) or \
            any(x.target != y.target or not _same_cells(x.cells, y.cells)
                for x, y in zip(a.writes, b.writes)):
        raise _Apart
    arguments = tuple((name, ctype, merger.value(value, other[2]))
                      for (name, ctype, value), other in zip(a.arguments, b.arguments))
    return StubCallRecord(a.name, a.index, a.result_type, a.result, a.writes, arguments)


def _same_term(a: object, b: object) -> bool:
    """Whether two values are one object, or two z3 terms that are the same term."""
    return a is b or (isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b))


def _common_prefix(a: list[z3.BoolRef], b: list[z3.BoolRef]) -> int:
    n = 0
    for x, y in zip(a, b):
        # forked paths share the very objects of their common past: no z3 call for them
        if x is not y and not x.eq(y):
            break
        n += 1
    return n


def _identical(a: list | dict, b: list | dict) -> bool:
    """Whether two lists or dicts hold the very same objects."""
    if len(a) != len(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return all(k in b and b[k] is v for k, v in a.items())
    return all(x is y for x, y in zip(a, b))


def mergeable(a: State, b: State) -> bool:
    """Whether `a` and `b` differ only in values (a quick test before `merge`)."""
    return len(a.frames) == len(b.frames) and _identical(a.inputs, b.inputs) and \
        _identical(a.pointees, b.pointees) and len(a.stub_calls) == len(b.stub_calls) and \
        _identical(a.allocations, b.allocations) and a.memory.keys() == b.memory.keys() and \
        a.globals == b.globals and a.strings == b.strings and \
        _identical(a.aliases, b.aliases) and a.fixed_offsets == b.fixed_offsets and \
        _identical(a.addresses, b.addresses) and _identical(a.lazy, b.lazy) and \
        a.freed.keys() == b.freed.keys() and a.robustness == b.robustness and \
        a.ending is None and b.ending is None and not a.finished and not b.finished


def merge(a: State, b: State) -> State | None:
    """One state for the paths of `a` and `b`, which stand at the same statement; None when
    they differ in more than values (see the module's docstring)."""
    if not mergeable(a, b):
        return None
    shared = _common_prefix(a.constraints, b.constraints)
    only_a, only_b = a.constraints[shared:], b.constraints[shared:]
    if not only_a or not only_b:
        return None  # one path's condition holds wherever the other's does: not two paths
    first = z3.And(*only_a) if len(only_a) > 1 else only_a[0]
    other = z3.And(*only_b) if len(only_b) > 1 else only_b[0]
    merger = _Merger(first)
    merged = a.fork()
    try:
        merged.frames = [merger.frame(x, y) for x, y in zip(a.frames, b.frames)]
        merged.memory = {oid: merger.memory_object(obj, b.memory[oid], merged.token)
                         for oid, obj in a.memory.items()}
        merged.stub_calls = [_stub_call(x, y, merger)
                             for x, y in zip(a.stub_calls, b.stub_calls)]
    except _Apart:
        return None
    merged.constraints = [*a.constraints[:shared], z3.Or(first, other)]
    # what either path assumed stays assumed (search/merged_search.py reads it)
    for name in ("bounds", "pointer_assumptions", "address_facts", "overflows"):
        mine, theirs = getattr(a, name), getattr(b, name)
        setattr(merged, name, [*mine, *theirs[_common_prefix(mine, theirs):]])
    merged.branch_conditions = a.branch_conditions[
        :_common_prefix(a.branch_conditions, b.branch_conditions)]
    for name in ("edges", "callee_edges", "decided", "callee_returns", "contract_checks",
                 "testcases_entered"):
        mine, theirs = getattr(a, name), getattr(b, name)
        n = 0
        while n < min(len(mine), len(theirs)) and mine[n] is theirs[n]:
            n += 1
        setattr(merged, name, mine[:n])
    for counts in ("visits", "decisions", "loop_iterations"):
        mine, theirs = getattr(a, counts), getattr(b, counts)
        setattr(merged, counts, {k: max(mine.get(k, 0), theirs.get(k, 0))
                                 for k in mine.keys() | theirs.keys()})
    merged.steps = max(a.steps, b.steps)
    merged.read_objects = a.read_objects | b.read_objects
    merged.written_objects = a.written_objects | b.written_objects
    merged.notes = a.notes | b.notes
    merged.null_tested = a.null_tested | b.null_tested
    merged.forbidden_writes = {**b.forbidden_writes, **a.forbidden_writes}
    merged.violations = []
    merged.predicted = []
    merged.assigned = {}  # the values before assignments differ between the two paths
    return merged
