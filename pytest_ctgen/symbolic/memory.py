"""Byte-exact memory objects.

An object is a list of byte cells. A cell is `(value, i)`: byte `i` (little-endian) of a
typed value (an n-bit vector, an IEEE term or a `PtrVal`). Storing a value puts all its
cells in place; reading the same span back with the same type returns the very same term, so
ordinary loads and stores stay as simple as with plain variables, while unions, casts between
pointer types and bit-fields read the exact bytes gcc would read. A large object keeps its
cells sparse, over a z3 array (see large_objects.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

from ..errors import UnsupportedError
from ..frontend.ctype import ArrayType, CType, FloatType, IntType, PointerType, RecordType
from .large_objects import LARGEST_COPY, SparseCells, copy_cells
from .values import (
    AggVal, AliasPtr, PtrVal, ScalarValue, SymValue, fp_sort, null_pointer)
from .work import tally

Cell = tuple[ScalarValue, int]  # (value, byte index)

#: The start of the names of the terms that stand for uninitialized bytes
#: (inputs.garbage): a bit-vector per variable, or an array for a large one.
GARBAGE = "uninit."
#: A read at a computed offset of an object with more bytes stored than this is not
#: looked at for unwritten bytes (each stored byte is one more disequality).
_MOST_STORED = 64


def is_garbage(term: object) -> bool:
    """Whether `term` is the contents of an uninitialized object itself."""
    return isinstance(term, z3.ExprRef) and z3.is_const(term) and \
        term.decl().name().startswith(GARBAGE)


#: The operators that move bytes without computing on them (a read's parts), which
#: `garbage_where` looks through, besides concatenation and the arms of conditionals.
_BYTE_MOVES = (z3.Z3_OP_EXTRACT, z3.Z3_OP_FPA_TO_FP, z3.Z3_OP_ZERO_EXT, z3.Z3_OP_SIGN_EXT)
#: The most subterms `garbage_where` looks at for one value: beyond, the value counts as
#: set (the terms of many writes at computed offsets into one object grow quadratically).
GARBAGE_LOOK = 4096

GarbageMemo = dict[int, "z3.BoolRef | None"]


def garbage_where(value: object, memo: GarbageMemo | None = None) -> z3.BoolRef | None:
    """Where `value`, as a read of an object's bytes makes it, holds bytes of an
    uninitialized object (inputs.garbage): always (the term itself, bytes of it next to
    others, a byte of a large one never written), under a condition (a store or a library
    call wrote the byte only where a condition held: `a[c != 0] = 5` then `a[0]`), or
    nowhere (None), also when more than GARBAGE_LOOK subterms would have to be looked at.
    A value computed from such bytes no longer shows it. `memo` (by term id) may be
    shared by the values of one state."""
    if not isinstance(value, z3.ExprRef):
        return None
    memo = {} if memo is None else memo
    todo: list[tuple[z3.ExprRef, bool]] = [(value, False)]
    looked = 0
    while todo:
        term, parts_done = todo.pop()
        key = term.get_id()
        if key in memo:
            continue
        parts = _byte_parts(term)
        if parts is None:
            memo[key] = _garbage_leaf(term)
        elif parts_done:
            memo[key] = _garbage_of_parts(term, parts, memo)
        else:
            looked += 1
            if looked > GARBAGE_LOOK:
                return None
            todo.append((term, True))
            todo.extend((part, False) for part in parts if part.get_id() not in memo)
    return memo[value.get_id()]


def _byte_parts(term: z3.ExprRef) -> list[z3.ExprRef] | None:
    """The subterms whose bytes make up `term`'s (None: none, `term` is a leaf)."""
    if not z3.is_app(term) or z3.is_const(term):
        return None
    kind = term.decl().kind()
    if kind in _BYTE_MOVES:
        return [term.arg(term.num_args() - 1)]
    if kind == z3.Z3_OP_CONCAT:
        return term.children()
    if kind == z3.Z3_OP_ITE:
        return term.children()[1:]
    return None


def _garbage_leaf(term: z3.ExprRef) -> z3.BoolRef | None:
    if is_garbage(term):
        return z3.BoolVal(True)
    if z3.is_app_of(term, z3.Z3_OP_SELECT) and is_garbage(term.arg(0)):
        return z3.BoolVal(True)  # a byte of a large object never written
    return None


def _garbage_of_parts(term: z3.ExprRef, parts: list[z3.ExprRef],
                      memo: GarbageMemo) -> z3.BoolRef | None:
    wheres = [memo[part.get_id()] for part in parts]
    if z3.is_app_of(term, z3.Z3_OP_ITE):
        condition = term.arg(0)
        in_then, in_other = wheres
        wheres = [None if in_then is None else z3.And(condition, in_then),
                  None if in_other is None else z3.And(z3.Not(condition), in_other)]
    present = [w for w in wheres if w is not None]
    return None if not present else present[0] if len(present) == 1 else z3.Or(*present)


def unwritten(obj: MemObject, offset: z3.BitVecRef, n: int) -> z3.BoolRef | None:
    """Where a read of `n` bytes at the computed `offset` of `obj` reads a byte nothing
    wrote (None: nowhere, or not looked at)."""
    if isinstance(obj.cells, SparseCells):
        # the bytes stored: at fixed offsets in the cells, others in the base's stores
        written: list[z3.BitVecRef] = [z3.BitVecVal(k, 64) for k in sorted(obj.cells.cells)]
        base = obj.cells.base
        while z3.is_app_of(base, z3.Z3_OP_STORE) and len(written) <= _MOST_STORED:
            written.append(base.arg(1))
            base = base.arg(0)
        if not is_garbage(base) or len(written) > _MOST_STORED:
            return None
        return z3.Or(*[z3.And(*[offset + j != k for k in written]) for j in range(n)])
    hits = [offset == k for k in _positions(obj, offset, n)
            if any(is_garbage(value) for value, _ in obj.cells[k:k + n])]
    return z3.Or(*hits) if hits else None


class OutOfBounds(IndexError):
    """An access at a concrete offset outside object `object_id`. `assumed`: through an
    input pointer, whose inputs the generator assumes keep it inside (set by the caller)."""

    def __init__(self, message: str, object_id: int, below: int = 0) -> None:
        super().__init__(message)
        self.object_id = object_id
        self.assumed = False
        self.below = below  # how many bytes before the object's start the access begins
        # the record type of the member accessed, and the member's offset in it
        self.record: tuple[RecordType, int] | None = None


@dataclass(eq=False)
class MemObject:
    """A C object: a variable, a temporary, a string literal or an input's pointee."""

    id: int
    name: str
    size: int
    cells: list[Cell] | SparseCells
    readonly: bool = False
    owner: object = None  # the state allowed to mutate `cells` in place
    # contents at the start
    initial: list[Cell] | SparseCells | None = field(default=None, repr=False)
    # the C function this (empty, read-only) object stands for: a function of the unit,
    # or a callback the harness generates; pointers to it are function pointers
    function: str | None = None

    def clone(self, owner: object) -> MemObject:
        return MemObject(self.id, self.name, self.size, copy_cells(self.cells), self.readonly,
                         owner, self.initial, self.function)


def cells_of(value: SymValue, ctype: CType) -> list[Cell]:
    """The byte cells of `value` stored as an object of type `ctype`."""
    if isinstance(value, AggVal):
        return list(value.cells)
    return value_cells(value, ctype.size)


def bits_input(record: RecordType) -> bool:
    """Whether an input of `record` is one bit-vector of all its bits, not member by
    member: a union (its members share the bytes) or a struct with bitfields."""
    return record.is_union or any(f.is_bitfield for f in record.fields)


def value_cells(value: ScalarValue, size: int) -> list[Cell]:
    """The `size` byte cells of one value: cell i holds its byte i."""
    return [(value, i) for i in range(size)]


def zero_cells(n: int) -> list[Cell]:
    zero = z3.BitVecVal(0, 8)
    return [(zero, 0)] * n


def byte_of(cell: Cell) -> z3.BitVecRef:
    """Cell as an 8-bit vector."""
    value, i = cell
    if isinstance(value, PtrVal):
        if value.is_null:
            return z3.BitVecVal(0, 8)
        raise UnsupportedError("reading the bytes of a pointer")
    if isinstance(value, AliasPtr):
        raise UnsupportedError("reading the bytes of a pointer")
    if isinstance(value, z3.FPRef):
        value = z3.fpToIEEEBV(value)
    # z3's API made directly: z3.Extract's checks and size() cost much of a merge of
    # large objects (merge.py) and of every byte-wise load
    ctx, ast = value.ctx_ref(), value.as_ast()
    if z3.Z3_get_bv_sort_size(ctx, z3.Z3_get_sort(ctx, ast)) == 8:
        return value
    return z3.BitVecRef(z3.Z3_mk_extract(ctx, 8 * i + 7, 8 * i, ast), value.ctx)


def bytes_to_bv(cells: list[Cell]) -> z3.BitVecRef:
    """The little-endian bit-vector made of `cells`."""
    parts = [byte_of(c) for c in reversed(cells)]
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _is_zero_byte(cell: Cell) -> bool:
    value = cell[0]
    if isinstance(value, PtrVal):
        return value.is_null
    if isinstance(value, z3.BitVecRef):
        byte = z3.simplify(byte_of(cell))
        return z3.is_bv_value(byte) and byte.as_long() == 0
    return False


def whole_value(cells: list[Cell]) -> object | None:
    """The value whose bytes `cells` are, all of them in order, or None."""
    first = cells[0][0] if cells else None
    if first is None or not all(c[0] is first and c[1] == i for i, c in enumerate(cells)):
        return None
    return first


def value_from_cells(cells: list[Cell], ctype: CType) -> SymValue:
    """The value of type `ctype` whose object representation is `cells`."""
    if isinstance(ctype, (RecordType, ArrayType)):
        return AggVal(tuple(cells))
    first = whole_value(cells)
    if first is not None:
        if isinstance(ctype, PointerType) and isinstance(first, (PtrVal, AliasPtr)):
            return first
        if isinstance(ctype, FloatType) and isinstance(first, z3.FPRef) and \
                first.sort() == fp_sort(ctype):
            return first
        if isinstance(ctype, IntType) and isinstance(first, z3.BitVecRef) and \
                first.size() == ctype.bits:
            return first
    if isinstance(ctype, PointerType):
        if all(_is_zero_byte(c) for c in cells):  # NULL, or zero bytes (memset)
            return null_pointer()
        raise UnsupportedError("a pointer read through a different type")
    bv = bytes_to_bv(cells)
    if isinstance(ctype, FloatType):
        return z3.fpBVToFP(bv, fp_sort(ctype))
    return bv


_MAX_STRIDE = 1 << 12


def known_residue(offset: z3.BitVecRef) -> tuple[int, int]:
    """(m, r): every value of `offset` is r modulo m, as its shape shows (a multiple of an
    element size plus a field's offset); (1, 0) when nothing is known. Accesses at a
    symbolic offset consider only the positions it can take."""
    if z3.is_bv_value(offset):
        return _MAX_STRIDE, offset.as_long() % _MAX_STRIDE
    if z3.is_app_of(offset, z3.Z3_OP_BMUL):
        modulus = 1
        for arg in offset.children():
            if z3.is_bv_value(arg) and arg.as_long():
                value = arg.as_long()
                modulus = max(modulus, min(value & -value, _MAX_STRIDE))
        return modulus, 0
    if z3.is_app_of(offset, z3.Z3_OP_BADD):
        modulus, residue = _MAX_STRIDE, 0
        for arg in offset.children():
            m, r = known_residue(arg)
            modulus = min(modulus, m)
            residue += r
        return modulus, residue % modulus
    last = offset.num_args() - 1 if z3.is_app(offset) else -1
    if z3.is_app_of(offset, z3.Z3_OP_CONCAT) and z3.is_bv_value(offset.arg(last)):
        low = offset.arg(last)
        modulus = min(1 << low.size(), _MAX_STRIDE)
        return modulus, low.as_long() % modulus
    if z3.is_app_of(offset, z3.Z3_OP_BSHL) and z3.is_bv_value(offset.arg(1)):
        return min(1 << min(offset.arg(1).as_long(), 12), _MAX_STRIDE), 0
    return 1, 0


def _positions(obj: MemObject, offset: z3.BitVecRef, n: int) -> range:
    """The offsets an access of `n` bytes at the symbolic `offset` can start at in bounds."""
    modulus, residue = known_residue(offset)
    return range(residue, obj.size - n + 1, modulus)


def read(obj: MemObject, offset: z3.BitVecRef, ctype: CType
         ) -> tuple[SymValue, z3.BoolRef | None, z3.BoolRef | None]:
    """The value of type `ctype` at `offset`; then the condition for the access to be in
    bounds, and the condition that it does not read a pointer's bytes as a number (each
    None when it always holds). Raises OutOfBounds when a concrete offset is out of
    bounds."""
    n = ctype.size
    off = z3.simplify(offset)
    if z3.is_bv_value(off):
        tally(n)
        k = off.as_signed_long()
        if k < 0 or k + n > obj.size:
            raise OutOfBounds(f"read of {n} bytes at offset {k} of '{obj.name}' "
                              f"({obj.size} bytes)", obj.id, max(0, -k))
        if n > LARGEST_COPY and isinstance(obj.cells, SparseCells):
            raise UnsupportedError(f"a copy of {n} bytes of the large object '{obj.name}'")
        return value_from_cells(obj.cells[k:k + n], ctype), None, None
    if n > obj.size:
        raise OutOfBounds(f"read of {n} bytes from '{obj.name}' ({obj.size} bytes)", obj.id)
    if isinstance(ctype, (PointerType, RecordType, ArrayType)):
        raise UnsupportedError("pointer or struct read at a symbolic offset")
    if isinstance(obj.cells, SparseCells):
        array = folded(obj.cells)
        cells: list[Cell] = [(z3.Select(array, off + j if j else off), 0) for j in range(n)]
        return value_from_cells(cells, ctype), z3.ULE(off, obj.size - n), None
    positions = _positions(obj, off, n)
    tally(len(positions) * n)
    # offsets whose bytes are (part of) a pointer cannot be read as a number: excluded
    possible = []
    result = None
    for k in reversed(positions):
        try:
            v = value_from_cells(obj.cells[k:k + n], ctype)
        except UnsupportedError:
            continue
        possible.append(off == k)
        result = v if result is None else z3.If(off == k, v, result)
    if result is None:
        if not positions:
            raise OutOfBounds(f"read of {n} bytes from '{obj.name}' ({obj.size} bytes) "
                              "at no offset inside it", obj.id)
        raise UnsupportedError("a number read from the bytes of a pointer")
    in_bounds = z3.ULE(off, obj.size - n)
    return result, in_bounds, None if len(possible) == len(positions) else z3.Or(*possible)


def write(obj: MemObject, offset: z3.BitVecRef, ctype: CType, value: SymValue
          ) -> tuple[z3.BoolRef | None, z3.BoolRef | None]:
    """Store `value` at `offset`; returns the conditions `read` does after its value."""
    n = ctype.size
    new_cells = cells_of(value, ctype)
    off = z3.simplify(offset)
    if z3.is_bv_value(off):
        tally(n)
        k = off.as_signed_long()
        if k < 0 or k + n > obj.size:
            raise OutOfBounds(f"write of {n} bytes at offset {k} of '{obj.name}' "
                              f"({obj.size} bytes)", obj.id, max(0, -k))
        obj.cells[k:k + n] = new_cells
        return None, None
    if n > obj.size:
        raise OutOfBounds(f"write of {n} bytes to '{obj.name}' ({obj.size} bytes)", obj.id)
    if isinstance(obj.cells, SparseCells):
        array = folded(obj.cells)
        for j, c in enumerate(new_cells):
            array = z3.Store(array, off + j if j else off, byte_of(c))
        obj.cells.base = array
        return z3.ULE(off, obj.size - n), None
    positions = _positions(obj, off, n)
    tally(len(positions) * n)
    new_bytes = [byte_of(c) for c in new_cells]
    old_bytes: list[z3.BitVecRef | None] = []
    for c in obj.cells:
        try:
            old_bytes.append(byte_of(c))
        except UnsupportedError:  # a pointer's bytes: such offsets are excluded
            old_bytes.append(None)
    possible = [k for k in positions if all(b is not None for b in old_bytes[k:k + n])]
    if not possible:
        if not positions:
            raise OutOfBounds(f"write of {n} bytes to '{obj.name}' ({obj.size} bytes) "
                              "at no offset inside it", obj.id)
        raise UnsupportedError("a number written over the bytes of a pointer")
    for k in possible:
        hit = off == k
        for j in range(n):
            old = obj.cells[k + j]
            obj.cells[k + j] = (z3.If(hit, new_bytes[j], byte_of(old)), 0)
    in_bounds = z3.ULE(off, obj.size - n)
    return in_bounds, None if len(possible) == len(positions) else \
        z3.Or(*[off == k for k in possible])


def folded(cells: SparseCells) -> z3.ArrayRef:
    """The array of all the bytes of a large object, which its base then is (with no
    cells over it: the same contents, so a state sharing the object sees no change)."""
    tally(1 + len(cells.cells))
    cells.base = sparse_array(cells)
    cells.cells = {}
    return cells.base


def sparse_array(cells: SparseCells) -> z3.ArrayRef:
    """The array of all the bytes of a large object: its cells stored into its base."""
    array = cells.base
    for k in sorted(cells.cells):
        try:
            byte = byte_of(cells.cells[k])
        except UnsupportedError:
            raise UnsupportedError("the bytes of a pointer in a large object accessed at "
                                   "a symbolic offset") from None
        array = z3.Store(array, z3.BitVecVal(k, 64), byte)
    return array


def zero_filled(obj: MemObject, offset: z3.BitVecRef, size: int) -> bool:
    """Set the `size` bytes at `offset` to zero when that is all of a large object (in
    one step); False, doing nothing, otherwise."""
    off = z3.simplify(offset)
    if not isinstance(obj.cells, SparseCells) or size != obj.size or \
            not z3.is_bv_value(off) or off.as_long() != 0:
        return False
    tally(1)
    obj.cells.fill(z3.BitVecVal(0, 8))
    return True


def read_bitfield(obj: MemObject, byte_offset: int, bit_offset: int, width: int,
                  ctype: IntType) -> SymValue:
    """A bit-field of `width` bits starting `bit_offset` bits above byte `byte_offset`."""
    span = (bit_offset + width + 7) // 8
    if byte_offset < 0 or byte_offset + span > obj.size:
        raise OutOfBounds(f"bit-field outside '{obj.name}'", obj.id)
    bits = bytes_to_bv(obj.cells[byte_offset:byte_offset + span])
    raw = z3.Extract(bit_offset + width - 1, bit_offset, bits)
    if ctype.is_bool:
        return z3.ZeroExt(8 - width, raw) if width < 8 else raw
    if width == ctype.bits:
        return raw
    if ctype.signed:
        return z3.SignExt(ctype.bits - width, raw)
    return z3.ZeroExt(ctype.bits - width, raw)


def write_bitfield(obj: MemObject, byte_offset: int, bit_offset: int, width: int,
                   value: z3.BitVecRef) -> None:
    span = (bit_offset + width + 7) // 8
    if byte_offset < 0 or byte_offset + span > obj.size:
        raise OutOfBounds(f"bit-field outside '{obj.name}'", obj.id)
    old = bytes_to_bv(obj.cells[byte_offset:byte_offset + span])
    total = span * 8
    field_bits = z3.Extract(width - 1, 0, value) if value.size() > width else (
        z3.ZeroExt(width - value.size(), value) if value.size() < width else value)
    parts = []
    if bit_offset + width < total:
        parts.append(z3.Extract(total - 1, bit_offset + width, old))
    parts.append(field_bits)
    if bit_offset > 0:
        parts.append(z3.Extract(bit_offset - 1, 0, old))
    new = z3.simplify(z3.Concat(*parts)) if len(parts) > 1 else parts[0]
    for j in range(span):
        obj.cells[byte_offset + j] = (z3.Extract(8 * j + 7, 8 * j, new), 0)
