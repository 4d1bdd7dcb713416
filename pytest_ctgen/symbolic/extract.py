"""Turning a solved path into plain case data: inputs, predicted outputs and stub data as
`cases.Value` trees, and the preferences that make the solver choose readable inputs."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import z3

from ..c_harness_files import MAX_RECEIVED_BYTES
from ..cases import (
    ArrayValue, Binding, BytesValue, Expected, FilledBytesValue, FloatValue, IntValue,
    PointerValue, PredictedCall, RecordValue, SetupCall, StubCall, StubScript,
    UNDEFINED_BEHAVIOUR, UnsetValue, Value, leaf_values)
from ..frontend.ctype import (
    INT, VOID, ArrayType, CType, FloatType, FunctionType, IntType, PointerType, RecordType,
    declaration_of, value_members)
from ..errors import UnsupportedError
from ..frontend.unit import GLOBAL, Variable
from . import heap, memory
from .large_objects import SparseCells, array_bytes, is_large
from .setup_calls import SetupSite
from .memory import Cell, MemObject
from .state import Pointee, State
from .values import AggVal, AliasPtr, PtrVal, SymValue, input_bits


def _eval_bits(model: z3.ModelRef, bv: z3.BitVecRef) -> int:
    return model.eval(bv, model_completion=True).as_long()


def _float_bits(model: z3.ModelRef, v: z3.FPRef, size: int) -> int:
    bits = input_bits(v)
    if bits is not None:
        return _eval_bits(model, bits)
    value = model.eval(v, model_completion=True)
    if isinstance(value, z3.FPNumRef) and value.isNaN():
        return 0x7FC00000 if size == 4 else 0x7FF8000000000000
    return _eval_bits(model, z3.fpToIEEEBV(value))


def effective_pointer(v: SymValue, aliases: dict[str, PtrVal]) -> PtrVal:
    """The pointer an input pointer is on a path that decided its aliasing as `aliases`;
    one whose aliasing the path never needed points as its first alternative."""
    if isinstance(v, AliasPtr):
        return aliases.get(v.choice) or v.default()
    assert isinstance(v, PtrVal)
    return v


def value_of(model: z3.ModelRef, cells: list[Cell] | SparseCells, ctype: CType,
             names: dict[int, PointerValue] | None = None,
             aliases: dict[str, PtrVal] | None = None,
             garbage: memory.GarbageMemo | None = None) -> Value:
    """The concrete case value of an object of type `ctype` with contents `cells`; `names`
    gives how the case names each object or function a pointer may point to (see
    `object_names`), `aliases` the path's aliasing decisions. A large object is given by
    its bytes, sparsely. Where `garbage` is given (what is known of the terms of the
    values of one state, see memory.garbage_where), bytes nothing set are `UnsetValue`s;
    inputs hold none."""
    if isinstance(cells, SparseCells):
        return FilledBytesValue(cells.size,
                                *array_bytes(model, memory.sparse_array(cells), cells.size))
    if is_large(ctype):  # a large value, not in an object (a struct returned)
        return _filled_bytes(model, cells)
    if isinstance(ctype, IntType):
        v = memory.value_from_cells(cells, ctype)
        assert isinstance(v, z3.BitVecRef)
        if _unset(model, v, garbage):
            return UnsetValue()
        raw = _eval_bits(model, v)
        return IntValue(ctype.wrap(raw))
    if isinstance(ctype, FloatType):
        v = memory.value_from_cells(cells, ctype)
        assert isinstance(v, z3.FPRef)
        if _unset(model, v, garbage):
            return UnsetValue()
        return FloatValue(_float_bits(model, v, ctype.size), ctype.size)
    if isinstance(ctype, PointerType):
        v = effective_pointer(memory.value_from_cells(cells, ctype), aliases or {})
        if v.is_null or z3.is_true(model.eval(v.null_condition(), model_completion=True)):
            return PointerValue(None)
        assert v.base is not None
        # "*": an object the case cannot name (a local, a literal): only non-NULL is checked
        named = (names or {}).get(v.base, PointerValue("*"))
        if named.function:
            return named
        return replace(named, offset=model.eval(v.offset, model_completion=True)
                       .as_signed_long())
    if isinstance(ctype, ArrayType):
        n = ctype.element.size
        return ArrayValue(tuple(value_of(model, cells[i * n:(i + 1) * n], ctype.element, names,
                                         aliases, garbage)
                                for i in range(ctype.count or 0)),
                          text=isinstance(ctype.element, IntType) and ctype.element.name == "char")
    if isinstance(ctype, RecordType):
        if ctype.is_union:
            data = [memory.byte_of(c) for c in cells]
            if any(_unset(model, b, garbage) for b in data):  # a member set, the rest not
                return UnsetValue()
            return BytesValue(bytes(_eval_bits(model, b) for b in data))
        fields: list[tuple[str, Value]] = []
        obj = MemObject(0, "value", len(cells), list(cells))
        for f in value_members(ctype):
            assert f.name is not None
            if f.is_bitfield:
                assert isinstance(f.type, IntType) and f.bit_offset is not None
                bits = memory.read_bitfield(obj, f.offset, f.bit_offset, f.bit_width or 0,
                                            f.type)
                assert isinstance(bits, z3.BitVecRef)
                fields.append((f.name, UnsetValue() if _unset(model, z3.simplify(bits), garbage)
                               else IntValue(f.type.wrap(_eval_bits(model, bits)))))
            else:
                fields.append((f.name, value_of(model, cells[f.offset:f.offset + f.type.size],
                                                f.type, names, aliases, garbage)))
        return RecordValue(tuple(fields))
    raise NotImplementedError(f"case value of type {ctype}")


def _unset(model: z3.ModelRef, term: z3.ExprRef, garbage: memory.GarbageMemo | None
           ) -> bool:
    """Whether the value `term` holds bytes nothing set in the case of `model` (a member
    of a local struct the function returns and never wrote): C gives it no value."""
    if garbage is None:
        return False
    where = memory.garbage_where(term, garbage)
    return where is not None and z3.is_true(model.eval(where, model_completion=True))


def _filled_bytes(model: z3.ModelRef, cells: list[Cell]) -> FilledBytesValue:
    """The bytes of `cells` as their most frequent byte (the smallest of equals) and the
    bytes that differ from it."""
    data = [_eval_bits(model, memory.byte_of(c)) for c in cells]
    counts = Counter(data)
    fill = min(counts, key=lambda b: (-counts[b], b))
    return FilledBytesValue(len(data), fill,
                            tuple((k, b) for k, b in enumerate(data) if b != fill))


def symbolic_cells(value: SymValue, ctype: CType) -> list[Cell]:
    return list(value.cells) if isinstance(value, AggVal) else memory.cells_of(value, ctype)


def object_names(state: State) -> dict[int, PointerValue]:
    """How a case names each object a pointer may point to (a pointer to its start): the
    pointees of input pointers by their array's name, globals by their address, and
    functions (of the unit, or callbacks) by their name."""
    names = {oid: PointerValue(f"&{var.name}") for var, oid in state.globals.items()
             if var.kind == GLOBAL}
    names.update({p.object_id: PointerValue(p.name) for p in state.pointees
                  if p.object_id is not None})
    names.update({oid: PointerValue(p.name) for oid, p in state.lazy.items()})
    names.update({oid: PointerValue(obj.function, function=True)
                  for oid, obj in state.memory.items() if obj.function is not None})
    names.update(heap.object_names(state))
    return names


def _root_cells(state: State) -> list[list[Cell]]:
    """The initial contents of the case's inputs: parameters, the globals the path used,
    and what its stub calls returned and wrote."""
    out = []
    for call in state.stub_calls:
        if call.result is not None:
            out.append(symbolic_cells(call.result, call.result_type))
        out.extend(list(w.cells) for w in call.writes if not isinstance(w.cells, SparseCells))
    for root in state.inputs:
        if root.object_id is not None:
            if root.kind == "global" and root.object_id not in state.read_objects and \
                    root.object_id not in state.written_objects:
                continue
            initial = _initial(state.memory[root.object_id])
            if not isinstance(initial, SparseCells):  # a large object holds no pointer
                out.append(initial)
        else:
            assert root.value is not None
            out.append(memory.cells_of(root.value, root.var.type))
    return out


def case_pointees(model: z3.ModelRef, state: State) -> list[Pointee]:
    """The objects the case sets up: those reachable from its inputs through pointers that
    are not NULL, following the path's aliasing decisions, in the order they were made."""
    by_object = {p.object_id: p for p in state.pointees if p.object_id is not None}
    by_object.update(state.lazy)
    reached: set[int] = set()
    work = _root_cells(state)
    while work:
        for value, i in work.pop():
            if i != 0 or not isinstance(value, (PtrVal, AliasPtr)) or value.is_null:
                continue
            if z3.is_true(model.eval(value.null_condition(), model_completion=True)):
                continue
            base = effective_pointer(value, state.aliases).base
            if base in by_object and base not in reached:
                reached.add(base)
                if base in state.memory:
                    initial = _initial(state.memory[base])
                    if not isinstance(initial, SparseCells):
                        work.append(initial)
    made = [p for p in state.pointees if p.object_id is not None and p.object_id in reached]
    # lazy pointers the path left NULL or not without using them: zeroed objects
    unused = [p for oid, p in state.lazy.items() if oid in reached and oid not in state.memory]
    return made + unused


def _initial(obj: MemObject) -> list[Cell] | SparseCells:
    return obj.initial if obj.initial is not None else obj.cells


def _initial_of(state: State, p: Pointee) -> list[Cell] | SparseCells:
    """The contents of the case object of `p` before the call; zeros for the object of
    a lazy pointer the path never used (lazy.py): nothing read them."""
    assert p.object_id is not None and p.type is not None
    obj = state.memory.get(p.object_id)
    return _initial(obj) if obj is not None else memory.zero_cells(p.type.size)


def case_inputs(model: z3.ModelRef, state: State, pointees: list[Pointee],
                setup: tuple[SetupSite, ...] = (), handle: int | None = None
                ) -> tuple[tuple[Binding, ...], tuple[Binding, ...], tuple[Binding, ...],
                           tuple[SetupCall, ...]]:
    """Parameters (all, in order), the globals the path read or wrote, the case's objects
    (`pointees`, from `case_pointees`) with their initial values, and the calls of
    `setup` (symbolic/setup_calls.py) with their arguments, the handle bound to the
    value of the function's own handle parameter (its index `handle`). A written global
    is set too, so the parts of it the path did not write are known when its contents are
    checked."""
    names = object_names(state)
    params, globals_ = [], []
    setup_params: list[list[Binding]] = [[] for _ in setup]
    for root in state.inputs:
        var = root.var
        if root.object_id is not None:
            cells = _initial(state.memory[root.object_id])
        else:
            assert root.value is not None
            cells = memory.cells_of(root.value, var.type)
        binding = Binding(var.name, var.declaration,
                          value_of(model, cells, var.type, names, state.aliases))
        if root.kind == "setup":
            setup_params[root.call].append(binding)
        elif root.kind == "param":
            params.append(binding)
        elif root.object_id in state.read_objects or root.object_id in state.written_objects:
            globals_.append(binding)
    globals_.sort(key=lambda b: b.name)
    objects = []
    for p in pointees:
        oid, array = _case_object(p)
        objects.append(Binding(p.name, declaration_of(array),
                               value_of(model, _initial_of(state, p), array, names,
                                        state.aliases),
                               placement(model, state, oid)))
    calls = []
    for site, others in zip(setup, setup_params):
        assert handle is not None
        others.insert(site.at, Binding(site.handle.name, site.handle.declaration,
                                       params[handle].value))
        calls.append(SetupCall(site.function, site.at, tuple(others)))
    return tuple(params), tuple(globals_), tuple(objects), tuple(calls)


def _case_object(p: Pointee) -> tuple[int, ArrayType | RecordType]:
    """The object a case sets up for the pointee `p` and its type: a case has the
    pointees with an object of their own (see `case_pointees`), which have a type."""
    assert p.object_id is not None and p.type is not None
    return p.object_id, p.type


def placement(model: z3.ModelRef, state: State, object_id: int | None) -> int | None:
    """The residue of the object's address the case chose, when the path exposed it."""
    address = state.addresses.get(object_id) if object_id is not None else None
    if address is None or address.residue is None:
        return None
    return _eval_bits(model, address.residue)


def expected(model: z3.ModelRef, state: State, result_type: CType,
             pointees: list[Pointee] | None = None, unset_possible: bool = True,
             writable: frozenset[Variable] = frozenset()) -> Expected:
    """The return value, the globals and pointed-to objects after the call (`_checked`),
    and the stub call counts; `pointees`: the case's objects (`case_pointees`) if known;
    `unset_possible`: whether the path may hold bytes nothing set (the executor made an
    uninitialized object; else they are not looked for); `writable`: the globals the
    unit may write (Program.written_globals)."""
    if state.ending is not None and state.ending[0] == UNDEFINED_BEHAVIOUR:
        return Expected(None, ending=UNDEFINED_BEHAVIOUR)  # nothing after it is defined
    if pointees is None:
        pointees = case_pointees(model, state)
    names = object_names(state)
    garbage: memory.GarbageMemo | None = {} if unset_possible else None
    returns = None
    if state.result is not None:
        returns = value_of(model, symbolic_cells(state.result, result_type), result_type,
                           names, state.aliases, garbage)
    globals_written, objects_written = _checked(state, pointees, writable)
    written = sorted((Binding(var.name, var.declaration,
                              value_of(model, cells, var.type, names, state.aliases, garbage))
                      for var, cells in globals_written), key=lambda b: b.name)
    objects = []
    for p, cells in objects_written:
        if p.object_id is not None and heap.freed_in(model, state, p.object_id):
            continue  # the function freed it: its contents are gone
        _, array = _case_object(p)
        objects.append(Binding(p.name, declaration_of(array),
                               value_of(model, cells, array, names, state.aliases, garbage)))
    counts: dict[str, int] = {}
    for call in state.stub_calls:
        counts[call.name] = counts.get(call.name, 0) + 1
    ending = exit_status = None
    if state.ending is not None:
        ending, status = state.ending
        if isinstance(status, z3.BitVecRef):
            exit_status = INT.wrap(_eval_bits(model, status))
    if state.ending is None:
        pointer = PointerType(VOID)
        objects.extend(heap.expected_objects(
            model, state, lambda cells: value_of(model, cells, pointer, names, state.aliases)))
    calls = predicted_calls(model, state, _case_names(state, names, pointees), garbage)
    return Expected(returns, tuple(written), tuple(sorted(counts.items())), tuple(objects),
                    ending, exit_status, calls=calls)


def _case_names(state: State, names: dict[int, PointerValue], pointees: list[Pointee]
                ) -> dict[int, PointerValue]:
    """`names` without the objects of input pointers the case does not set up (not in
    `pointees`): a pointer to one is named "*" (see `value_of`)."""
    made = {p.object_id for p in pointees}
    unmade = {p.object_id for p in state.pointees} | set(state.lazy)
    return {oid: v for oid, v in names.items() if oid in made or oid not in unmade}


def predicted_calls(model: z3.ModelRef, state: State, names: dict[int, PointerValue],
                    garbage: memory.GarbageMemo | None = None
                    ) -> tuple[PredictedCall, ...]:
    """Every stub call of the path in order, with the arguments a case checks: integers,
    floats and doubles, and pointers to objects (by the case's name for the object, see
    `object_names`; one it cannot name, into a local or a string literal, is "*", of
    which only non-NULL is checked), and what pointer arguments point to at the call
    (calls.received; not when nothing of it was set, nor where the case's pointer is NULL,
    nor when its bytes hold a pointer; NULL pointers in it are not checked).
    Left out: function pointers (also one passed as a `void *`), other types (structs,
    long double), and an argument nothing set (C gives it no value)."""
    calls = []
    room = MAX_RECEIVED_BYTES  # what the runtime keeps of a case's calls
    for call in state.stub_calls:
        arguments: list[tuple[str, Value]] = []
        for param, ctype, value in call.arguments:
            if not _checked_argument(ctype):
                continue
            v = value_of(model, memory.cells_of(value, ctype), ctype, names, state.aliases,
                         garbage)
            if isinstance(v, UnsetValue) or (isinstance(v, PointerValue) and v.function):
                continue  # a function passed as a `void *` (a callback's context) is not
            arguments.append((param, v))
        contents = []
        for given in call.received:
            if len(given.cells) > room:
                break
            if given.null is not None and \
                    z3.is_true(model.eval(given.null, model_completion=True)):
                continue  # the case's pointer is NULL
            array = ArrayType(given.element, given.count)
            try:
                value = _unless_null(value_of(model, list(given.cells), array, names,
                                              state.aliases, garbage))
            except UnsupportedError:  # bytes of a pointer (`memp_free(p)` as a void *)
                continue
            if given.unset and isinstance(value, ArrayValue):
                value = replace(value, elements=tuple(
                    UnsetValue() if i in given.unset else x
                    for i, x in enumerate(value.elements)))
            if any(not isinstance(leaf, UnsetValue) for leaf in leaf_values(value)):
                contents.append(Binding(given.param, declaration_of(array), value))
                room -= len(given.cells)
        calls.append(PredictedCall(call.name, tuple(arguments), tuple(contents)))
    return tuple(calls)


def _unless_null(v: Value) -> Value:
    """`v` with its NULL pointers left unchecked: a pointer local nothing set is modelled
    as NULL (inputs.garbage), and what a stub is given (`&end` of `char *end;`) may hold
    one."""
    if isinstance(v, PointerValue) and v.target is None:
        return UnsetValue()
    if isinstance(v, ArrayValue):
        return replace(v, elements=tuple(_unless_null(x) for x in v.elements))
    if isinstance(v, RecordValue):
        return RecordValue(tuple((n, _unless_null(x)) for n, x in v.fields))
    return v


def _checked_argument(ctype: CType) -> bool:
    """Whether a case checks a stub's argument of type `ctype` (see `predicted_calls`)."""
    if isinstance(ctype, PointerType):
        return not isinstance(ctype.target, FunctionType)
    return isinstance(ctype, (IntType, FloatType)) and ctype.size in (
        (1, 2, 4, 8) if isinstance(ctype, IntType) else (4, 8))


def _written(state: State, pointees: list[Pointee]
             ) -> tuple[list[tuple[Variable, list[Cell] | SparseCells]],
                        list[tuple[Pointee, list[Cell] | SparseCells]]]:
    """The globals and case objects the path wrote, with their contents."""
    return _checked(state, pointees, None)


def _checked(state: State, pointees: list[Pointee], writable: frozenset[Variable] | None
             ) -> tuple[list[tuple[Variable, list[Cell] | SparseCells]],
                        list[tuple[Pointee, list[Cell] | SparseCells]]]:
    """The globals and case objects a case checks after the call besides its result, with
    their contents then: what the path wrote, and (unless `writable` is None) what the case
    sets that a mutant of the function could write where the path left it as it was: the
    globals of `writable` (the unit may write them; not volatile ones), and the objects of
    pointers to non-const."""
    unchanged = writable is not None
    globals_ = [(var, state.memory[oid].cells) for var, oid in state.globals.items()
                if var.kind == GLOBAL and not var.is_const and (
                    oid in state.written_objects
                    or (writable is not None and var in writable and not var.is_volatile
                        and oid in state.read_objects))]
    objects = [(p, state.memory[p.object_id].cells) for p in pointees
               if p.object_id in state.memory and (
                   p.object_id in state.written_objects or (unchanged and not p.read_only))]
    return globals_, objects


#: The globals and case objects a path wrote, each as its contents before the call, after
#: it, and its type (see `_written_regions`).
_Regions = list[tuple[list[Cell] | SparseCells, list[Cell] | SparseCells, CType]]


def _written_regions(state: State, pointees: list[Pointee]) -> _Regions:
    """The globals and case objects the path wrote, each with its contents before the
    call and after it, and its type."""
    globals_written, objects_written = _written(state, pointees)
    regions: _Regions = [(_initial(state.memory[state.globals[var]]), cells, var.type)
                         for var, cells in globals_written]
    regions += [(_initial_of(state, p), cells, _case_object(p)[1])
                for p, cells in objects_written]
    return regions


def written_leaves(state: State, pointees: list[Pointee]
                   ) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """The scalars of the globals and case objects the path wrote, each as a pair of its
    value before the call and after it: integers and floats, each bitfield as its bits,
    each member of a union (pointers and large objects left out)."""
    return _leaves_of(_written_regions(state, pointees))


def _leaves_of(regions: _Regions) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """`written_leaves` of the written `regions`."""
    pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    for before, after, ctype in regions:
        if not isinstance(before, SparseCells) and not isinstance(after, SparseCells) and \
                len(before) == len(after) == ctype.size:
            try:
                pairs += _changed_scalars(before, after, ctype)
            except UnsupportedError:  # the bytes of a pointer: not compared
                continue
    return pairs


def _links_of(state: State, regions: _Regions) -> list[PtrVal]:
    """The links of linked records (lazy.py: `next`, `parent`) the path returns or wrote
    to the written `regions` (each where its aliasing decisions make it point, see
    `effective_pointer`)."""
    written: list[AliasPtr] = [state.result] if isinstance(state.result, AliasPtr) else []
    for before, after, _ in regions:
        if isinstance(before, SparseCells) or isinstance(after, SparseCells):
            continue
        written += [cell[0] for i, cell in enumerate(after)
                    if cell[1] == 0 and isinstance(cell[0], AliasPtr)
                    and not (i < len(before) and _same(before[i], cell))]
    return [effective_pointer(v, state.aliases) for v in written if v.lazy_depth is not None]


def _changed_scalars(before: list[Cell], after: list[Cell], ctype: CType
                     ) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """The scalars of an object of type `ctype` whose cells were `before` and are `after`
    that a write may have changed (their cells are not the same), as pairs of their
    values (see `written_leaves`).

    Raises:
        UnsupportedError: the object holds the bytes of a pointer."""
    if all(_same(b, a) for b, a in zip(before, after)):
        return []
    if isinstance(ctype, (IntType, FloatType)):
        old, new = memory.value_from_cells(before, ctype), memory.value_from_cells(after, ctype)
        return [(old, new)] if isinstance(old, (z3.BitVecRef, z3.FPRef)) and \
            isinstance(new, (z3.BitVecRef, z3.FPRef)) and old.sort() == new.sort() and \
            not z3.eq(old, new) else []
    pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    if isinstance(ctype, ArrayType):
        n = ctype.element.size
        for i in range(ctype.count or 0):
            pairs += _changed_scalars(before[i * n:(i + 1) * n], after[i * n:(i + 1) * n],
                                      ctype.element)
        return pairs
    if not isinstance(ctype, RecordType):
        return []
    for f in (ctype.fields if ctype.is_union else value_members(ctype)):
        span = slice(f.offset, f.offset + f.type.size)
        if f.bit_width is None:
            pairs += _changed_scalars(before[span], after[span], f.type)
            continue
        low = f.bit_offset or 0
        span = slice(f.offset, f.offset + (low + f.bit_width + 7) // 8)
        old, new = (z3.Concat(*reversed([memory.byte_of(c) for c in cells[span]]))
                    if len(cells[span]) > 1 else memory.byte_of(cells[span][0])
                    for cells in (before, after))
        pairs.append((z3.Extract(low + f.bit_width - 1, low, old),
                      z3.Extract(low + f.bit_width - 1, low, new)))
    return [(old, new) for old, new in pairs if not z3.eq(old, new)]


def _same(before: Cell, after: Cell) -> bool:
    """Whether two cells hold the same byte of the same term."""
    b, a = before[0], after[0]
    return before[1] == after[1] and (
        b is a or (isinstance(b, z3.ExprRef) and isinstance(a, z3.ExprRef) and z3.eq(b, a)))


def output_terms(state: State, pointees: list[Pointee]) -> list[z3.ExprRef]:
    """The terms `expected` reads the predictions of: the return value, the written
    globals and case objects, the exit status (a pointer by its offset and NULL-ness)."""
    if state.ending is not None and state.ending[0] == UNDEFINED_BEHAVIOUR:
        return []
    cells: list[Cell] = []
    if state.result is not None:
        cells += list(state.result.cells) if isinstance(state.result, AggVal) \
            else [(state.result, 0)]
    globals_written, objects_written = _written(state, pointees)
    terms: dict[int, z3.ExprRef] = {}
    for _, contents in (*globals_written, *objects_written):
        if isinstance(contents, SparseCells):
            array = memory.sparse_array(contents)
            terms[array.get_id()] = array
        else:
            cells += contents
    if state.ending is not None and isinstance(state.ending[1], z3.BitVecRef):
        cells.append((state.ending[1], 0))
    for value, _ in cells:
        if isinstance(value, (PtrVal, AliasPtr)):
            pointer = effective_pointer(value, state.aliases)
            found: list[z3.ExprRef] = [pointer.offset, pointer.null_condition()]
        elif isinstance(value, (z3.BitVecRef, z3.FPRef)):
            found = [value]
        else:
            found = []
        terms.update((t.get_id(), t) for t in found)
    return list(terms.values())


def stub_scripts(model: z3.ModelRef, state: State) -> tuple[StubScript, ...]:
    """Per stub, what each of its calls on the path returns and writes."""
    names = object_names(state)
    scripts: dict[str, list[StubCall]] = {}
    for call in state.stub_calls:
        ret = None
        if call.result is not None:
            ret = value_of(model, symbolic_cells(call.result, call.result_type),
                           call.result_type, names, state.aliases)
        writes = []
        for w in call.writes:
            if w.type is None:
                data = bytes(_eval_bits(model, memory.byte_of(c)) for c in w.cells)
                writes.append(Binding(w.target, "unsigned char @[]", BytesValue(data)))
            else:
                contents = w.cells if isinstance(w.cells, SparseCells) else list(w.cells)
                writes.append(Binding(w.target, declaration_of(w.type),
                                      value_of(model, contents, w.type, names,
                                               state.aliases)))
        scripts.setdefault(call.name, []).append(StubCall(ret, tuple(writes)))
    return tuple(StubScript(name, tuple(calls)) for name, calls in sorted(scripts.items()))


def stub_parameters(names: tuple[str, ...], ftype: FunctionType
                    ) -> tuple[tuple[str, str], ...]:
    """How a stub of type `ftype` logs each argument (see `cases.StubPrototype.params`)."""
    def kind(ctype: CType) -> str:
        if isinstance(ctype, IntType) and ctype.size > 8:  # __int128: no 64-bit slot holds it
            return "other"
        if isinstance(ctype, IntType):
            return "signed" if ctype.signed else "unsigned"
        if isinstance(ctype, FloatType):
            return "float"
        if isinstance(ctype, PointerType):
            return "function" if isinstance(ctype.target, FunctionType) else "pointer"
        return "other"

    params = tuple((n, kind(t)) for n, t in zip(names, ftype.params))
    return params + ((("...", "..."),) if ftype.variadic else ())


def _leaves(cells: list[Cell], ctype: CType) -> list[tuple[SymValue, CType]]:
    if isinstance(ctype, (IntType, FloatType)):
        return [(memory.value_from_cells(cells, ctype), ctype)]
    if isinstance(ctype, ArrayType):
        n = ctype.element.size
        out = []
        for i in range(ctype.count or 0):
            out.extend(_leaves(cells[i * n:(i + 1) * n], ctype.element))
        return out
    if not isinstance(ctype, RecordType):
        return []
    out = []
    if not ctype.is_union:
        for f in value_members(ctype):
            if not f.is_bitfield:
                out.extend(_leaves(cells[f.offset:f.offset + f.type.size], f.type))
    # a union, or a record with bitfields, is one input of all its bits
    # (inputs.input_cells): a leaf of its own, with the record's type
    whole = memory.whole_value(cells) if memory.bits_input(ctype) else None
    if isinstance(whole, z3.BitVecRef) and whole.size() == 8 * len(cells):
        out.append((whole, ctype))
    return out


def input_leaves(state: State) -> list[tuple[SymValue, CType]]:
    """The scalar values a case of `state` chooses, with their types, in the order of the
    case: the parameters and globals (and what they point to), the contents of lazily made
    objects, then what each stub call returns and writes. Large objects are left out."""
    leaves: list[tuple[SymValue, CType]] = []
    for root in state.inputs:
        if root.object_id is not None:
            initial = _initial(state.memory[root.object_id])
            if not isinstance(initial, SparseCells):  # a large object's bytes: no wishes
                leaves.extend(_leaves(initial, root.var.type))
        elif root.value is not None:
            leaves.extend(_leaves(memory.cells_of(root.value, root.var.type), root.var.type))
    for p in state.pointees:  # what input pointers point to, made lazily or not (lazy.py)
        if p.type is not None and p.object_id in state.memory:
            initial = _initial(state.memory[p.object_id])
            if not isinstance(initial, SparseCells):
                leaves.extend(_leaves(initial, p.type))
    for call in state.stub_calls:
        if call.result is not None:
            leaves.extend(_leaves(symbolic_cells(call.result, call.result_type),
                                  call.result_type))
        for w in call.writes:
            if w.type is not None and not isinstance(w.cells, SparseCells):
                leaves.extend(_leaves(list(w.cells), w.type))
    return leaves


def preferences(state: State) -> list[list[z3.BoolRef]]:
    """Tiers of soft constraints for readable inputs, most readable first: no signed
    overflow; every integer in [-100, 100] (or [0, 100]), then within [-10000, 10000];
    floats finite and normal (or zero) and within the same magnitudes."""
    leaves = input_leaves(state)
    # pointers in parameters and globals are set, pointers inside what they point to are
    # NULL unless the path needs them: short, readable structures
    unused = [p for oid, p in state.lazy.items() if oid not in state.memory]
    non_null = [z3.Not(p.pointer.null_condition()) if p.depth == 0
                else p.pointer.null_condition()
                for p in state.pointees + unused if isinstance(p.pointer, (PtrVal, AliasPtr))]
    non_null += heap.preferences(state)
    # an object placed in memory by the case lies aligned, or else near an alignment
    residues = [a.residue for a in state.addresses.values() if a.residue is not None]
    tiers: list[list[z3.BoolRef]] = []
    for bound in (100, 10000):
        tier: list[z3.BoolRef] = list(non_null)
        tier += [r == 0 if bound == 100 else z3.ULT(r, 64) for r in residues]
        seen: set[int] = set()
        for value, ctype in leaves:
            if not isinstance(value, (z3.BitVecRef, z3.FPRef)) or value.get_id() in seen:
                continue
            seen.add(value.get_id())
            if isinstance(ctype, IntType) and isinstance(value, z3.BitVecRef):
                if ctype.is_bool or bound >= ctype.max_value:
                    continue
                if ctype.signed:
                    tier.append(z3.And(value >= -bound, value <= bound))
                else:
                    tier.append(z3.ULE(value, bound))
            elif isinstance(ctype, FloatType) and isinstance(value, z3.FPRef):
                sort = value.sort()
                tier.append(z3.Or(z3.fpIsNormal(value), z3.fpIsZero(value)))
                tier.append(z3.fpLEQ(value, z3.FPVal(float(bound), sort)))
                tier.append(z3.fpGEQ(value, z3.FPVal(-float(bound), sort)))
        if tier:
            tiers.append(tier)
    # above all, no signed overflow: C leaves it undefined and gcc folds on that even at
    # -O0 (`a + 1 < a` is false), so a case that needs it is the last resort
    defined = no_overflow(state)
    if defined:
        tiers = [defined + tier for tier in tiers] + [defined]
    return tiers


def nonzero_output(model: z3.ModelRef, state: State, pointees: list[Pointee],
                   returned: Sequence[int] = ()) -> z3.BoolRef | None:
    """That an output of the path that `model` makes 0 and the inputs compute (not a
    constant) is not 0; None when there is none. The outputs are the integer or
    floating-point value the path returns, then the scalars of the globals and case
    objects it wrote, then the links of linked records it returns or wrote that are NULL
    where an input link is (`*head = t->next` unlinking the last node: a `t->next = NULL`
    left out shows only where there is a next); a path that ends otherwise than by
    returning, or is predicted to break an annotation, has none. `returned`: the
    constants the function returns elsewhere (CFG.constant_results), which a computed
    result equal to one hides as 0 does (`a + b` saturating exactly at the INT32_MAX
    another path returns)."""
    if state.ending is not None or state.predicted or state.robustness:
        return None
    result: list[z3.ExprRef] = [state.result] if isinstance(
        state.result, (z3.BitVecRef, z3.FPRef)) else []
    regions = _written_regions(state, pointees)
    values = result + [after for _, after in _leaves_of(regions)]
    nonzero: list[z3.BoolRef] = []
    for value in values:
        if isinstance(value, z3.BitVecRef) and not z3.is_bv_value(value):
            hidden = returned if result and value is result[0] else ()
            wish = z3.And([value != 0, *(value != z3.BitVecVal(c, value.size())
                                         for c in hidden if c != 0)]) \
                if any(c != 0 for c in hidden) else value != 0
        elif isinstance(value, z3.FPRef) and not z3.is_fp_value(value):
            wish = z3.Not(z3.fpIsZero(value))
        else:
            continue
        if z3.is_false(model.eval(wish, model_completion=True)):
            nonzero.append(wish)
    for pointer in _links_of(state, regions):
        null = pointer.null_condition()
        if not (z3.is_true(null) or z3.is_false(null)) and \
                z3.is_true(model.eval(null, model_completion=True)):
            nonzero.append(z3.Not(null))
    return z3.Or(nonzero) if nonzero else None


def no_overflow(state: State) -> list[z3.BoolRef]:
    """That the path's signed arithmetic does not overflow: the wishes above all others."""
    return [z3.Not(c) for c in state.overflows]


def notes(model: z3.ModelRef, state: State, params: tuple[Binding, ...],
          globals_: tuple[Binding, ...]) -> tuple[str, ...]:
    """What a reader of the case should know: the path needs signed overflow (which gcc
    -O0 wraps, but C leaves undefined), or an input is NaN."""
    out = []
    if any(z3.is_true(model.eval(c, model_completion=True)) for c in state.overflows):
        out.append("needs signed overflow (undefined in C; gcc -O0 wraps)")
    for b in (*params, *globals_):
        if _has_nan(b.value):
            out.append(f"{b.name} is NaN")
    return tuple(out) + heap.notes(model, state)


def _has_nan(v: Value) -> bool:
    if isinstance(v, FloatValue):
        return v.is_nan
    if isinstance(v, RecordValue):
        return any(_has_nan(x) for _, x in v.fields)
    if isinstance(v, ArrayValue):
        return any(_has_nan(x) for x in v.elements)
    return False


def annotations_hold(state: State) -> list[z3.BoolRef]:
    """That the path returns with none of its annotations violated."""
    return [z3.Not(violated) for _, violated in state.contract_checks]
