"""An access at a symbolic offset considers only the positions the offset can take: an
element index times its size, plus a field's offset, never lands between elements. The
value read and the in-bounds condition stay exact."""
from __future__ import annotations

import z3

from pytest_ctgen.frontend.ctype import INT, SHORT
from pytest_ctgen.symbolic import memory
from pytest_ctgen.symbolic.memory import MemObject, known_residue
from pytest_ctgen.symbolic.work import execution_steps


def _ints(n: int) -> MemObject:
    cells: list = []
    for k in range(n):
        cells += memory.cells_of(z3.BitVec(f"a{k}", 32), INT)
    return MemObject(1, "a", 4 * n, cells)


def test_the_shape_of_an_offset_tells_its_residue() -> None:
    i = z3.BitVec("i", 64)
    assert known_residue(i) == (1, 0)
    assert known_residue(z3.simplify(i * 4)) == (4, 0)
    assert known_residue(z3.simplify(i * 12 + 6)) == (4, 2)
    assert known_residue(z3.simplify((i << 3) + 1)) == (8, 1)
    assert known_residue(z3.simplify(i * 8 + (i * 2 + 1))) == (2, 1)


def test_a_read_at_an_element_index_reads_whole_elements_only() -> None:
    obj = _ints(5)
    i = z3.BitVec("i", 64)
    before = execution_steps()
    value, in_bounds, readable = memory.read(obj, z3.simplify(i * 4), INT)
    assert readable is None  # no pointer bytes in it
    # the 5 element starts, 4 bytes each, of the 17 byte positions a 4-byte read could have
    assert execution_steps() - before == 5 * 4
    solver = z3.Solver()
    solver.add(in_bounds, i == 3, value != z3.BitVec("a3", 32))
    assert solver.check() == z3.unsat
    solver = z3.Solver()
    solver.add(in_bounds, z3.UGT(i, 4), z3.ULT(i, 1 << 60))
    assert solver.check() == z3.unsat


def test_a_write_at_an_odd_offset_keeps_its_residue() -> None:
    obj = _ints(3)
    i = z3.BitVec("i", 64)
    offset = z3.simplify(i * 2 + 1)  # odd offsets only: 1, 3, ..., 9
    before = execution_steps()
    in_bounds, writable = memory.write(obj, offset, SHORT, z3.BitVecVal(0x1234, 16))
    assert writable is None
    assert execution_steps() - before == 5 * 2  # of the 11 positions, the 5 odd ones
    value, _, _ = memory.read(obj, z3.BitVecVal(0, 64), INT)
    solver = z3.Solver()
    solver.add(in_bounds, i == 0, value != z3.Concat(
        z3.Extract(31, 24, z3.BitVec("a0", 32)), z3.BitVecVal(0x1234, 16),
        z3.Extract(7, 0, z3.BitVec("a0", 32))))
    assert solver.check() == z3.unsat
    solver = z3.Solver()
    solver.add(in_bounds, z3.UGT(i, 4), z3.ULT(i, 1 << 60))  # 2*5+1 = 11: past the end
    assert solver.check() == z3.unsat
