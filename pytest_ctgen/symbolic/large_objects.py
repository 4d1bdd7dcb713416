"""Large objects: contents that cost what a path touches, not what the object holds.

An object of more than `LARGE_OBJECT` bytes whose type holds no pointer keeps its bytes as
`SparseCells`: a z3 array from 64-bit offsets to bytes (`base`: the input's own array, a
constant for zero or a `memset`, or the stores at symbolic offsets made so far) under a
dict of the cells stored at concrete offsets since. Reads and writes at a concrete offset
touch only their cells; at a symbolic offset they select from and store into the array
(memory.py folds the cells in first), so nothing ever walks every byte. A case lists such
an object as one fill byte and the bytes that differ from it (`array_bytes`).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import z3

from ..errors import UnsupportedError
from ..frontend.ctype import CType, holds_pointer

if TYPE_CHECKING:
    from .memory import Cell

#: Objects above this many bytes are sparse. Below it, a list of cells costs little (a
#: cell is a pair) and keeps every byte a term of its own, which reads back as typed
#: values and gives readable cases; above it, the list itself (and the ite over every
#: position of an access at a symbolic offset) is what made 64 KiB cost gigabytes.
LARGE_OBJECT = 4096
#: The most bytes of a large object read as one value (a struct copied whole), byte by
#: byte: what such a copy touches, bounded so that no copy costs gigabytes.
LARGEST_COPY = 1 << 16


def _offsets() -> z3.BitVecSortRef:  # made in the current context (see solver.own_context)
    return z3.BitVecSort(64)


def is_large(ctype: CType) -> bool:
    """Whether an object of `ctype` is kept sparse."""
    return ctype.size > LARGE_OBJECT and not holds_pointer(ctype)


class SparseCells:
    """The cells of a large object, a sequence of `size` cells for slicing: cell k is the
    one stored at k, else byte k of `base`."""

    __slots__ = ("base", "cells", "size")

    def __init__(self, size: int, base: z3.ArrayRef, cells: dict[int, Cell] | None = None
                 ) -> None:
        self.size = size
        self.base = base
        self.cells: dict[int, Cell] = {} if cells is None else cells

    @staticmethod
    def named(name: str, size: int) -> SparseCells:
        """Unknown contents: an array of its own, named `name`."""
        return SparseCells(size, z3.Array(name, _offsets(), z3.BitVecSort(8)))

    @staticmethod
    def filled(size: int, byte: z3.BitVecRef) -> SparseCells:
        """`size` bytes of the value `byte`."""
        return SparseCells(size, z3.K(_offsets(), byte))

    def copy(self) -> SparseCells:
        return SparseCells(self.size, self.base, dict(self.cells))

    def fill(self, byte: z3.BitVecRef) -> None:
        """Every byte becomes `byte`."""
        self.base = z3.K(_offsets(), byte)
        self.cells = {}

    def byte(self, k: int) -> Cell:
        cell = self.cells.get(k)
        if cell is not None:
            return cell
        return z3.simplify(z3.Select(self.base, z3.BitVecVal(k, 64))), 0

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Cell]:
        raise UnsupportedError("walking every byte of a large object")

    def __getitem__(self, key: slice) -> list[Cell]:
        start, stop, step = key.indices(self.size)
        return [self.byte(k) for k in range(start, stop, step)]

    def __setitem__(self, key: int | slice, cells: Cell | list[Cell]) -> None:
        if isinstance(key, int):
            assert isinstance(cells, tuple)
            self.cells[key] = cells
            return
        assert isinstance(cells, list)
        start, stop, _ = key.indices(self.size)
        if stop - start != len(cells):
            raise ValueError("a slice of a large object replaced by another length")
        self.cells.update(zip(range(start, stop), cells))


def copy_cells(cells: list[Cell] | SparseCells) -> list[Cell] | SparseCells:
    """An independent copy of an object's cells."""
    return cells.copy() if isinstance(cells, SparseCells) else list(cells)


def array_bytes(model: z3.ModelRef, array: z3.ArrayRef, size: int
                ) -> tuple[int, tuple[tuple[int, int], ...]]:
    """The bytes `model` gives the first `size` offsets of `array`: one fill byte, and
    the (offset, byte) pairs that differ from it, by offset."""
    value = model.eval(array, model_completion=True)
    entries: dict[int, int] = {}
    while z3.is_store(value):
        index, byte = value.arg(1), value.arg(2)
        if not (z3.is_bv_value(index) and z3.is_bv_value(byte)):
            raise UnsupportedError("a model of a large object that is not a table of bytes")
        entries.setdefault(index.as_long(), byte.as_long())  # the outer store wins
        value = value.arg(0)
    if z3.is_K(value) and z3.is_bv_value(value.arg(0)):
        fill = value.arg(0).as_long()
    elif z3.is_as_array(value):
        interpretation = model[z3.get_as_array_func(value)]
        for index, byte in interpretation.as_list()[:-1]:
            entries.setdefault(index.as_long(), byte.as_long())
        fill = interpretation.else_value().as_long()
    else:
        raise UnsupportedError("a model of a large object that is not a table of bytes")
    return fill, tuple(sorted((k, b) for k, b in entries.items() if k < size and b != fill))
