"""Generation is bounded by counted work, never by the clock: the solvers' step limits, the
work meter, Bitwuzla for floating point, and the same answers however often a query runs."""
from __future__ import annotations

import subprocess
import sys

import pytest
import z3

from pytest_ctgen.symbolic import bitwuzla_solver
from pytest_ctgen.symbolic.solver import SAT, UNKNOWN, UNSAT, Solver
from pytest_ctgen.symbolic.work import STEPS_PER_UNIT, WorkMeter

needs_bitwuzla = pytest.mark.skipif(not bitwuzla_solver.available(),
                                    reason="Bitwuzla has no wheel for this platform")

D = z3.Float64()
RNE = z3.RNE()


def _double(name: str) -> tuple[z3.BitVecRef, z3.FPRef]:
    """A double input as the executor makes it: a bit-vector read as IEEE."""
    bits = z3.BitVec(name, 64)
    return bits, z3.fpBVToFP(bits, D)


def _triangle_query(strict: bool) -> list[z3.BoolRef]:
    """Three sides: finite, positive, a triangle, and a + b exactly equal to c (no
    triangle, unsatisfiable) when `strict`, else a + b just above c."""
    constraints = []
    sides = [_double(n)[1] for n in "abc"]
    a, b, c = sides
    for s in sides:
        constraints += [z3.Not(z3.fpIsNaN(s)), z3.Not(z3.fpIsInf(s)),
                        z3.fpGT(s, z3.FPVal(0.0, D))]
    total = z3.fpAdd(RNE, a, b)
    constraints.append(z3.fpGT(total, c))
    if strict:
        constraints.append(z3.fpLEQ(total, c))
    else:
        constraints.append(z3.fpLT(z3.fpSub(RNE, total, c), z3.FPVal(1e-9, D)))
        constraints.append(z3.fpGT(z3.fpMul(RNE, a, b), z3.FPVal(2.5, D)))
    return constraints


def test_meter_counts_against_its_budget() -> None:
    meter = WorkMeter.of_units(2)
    assert meter.limit == 2 * STEPS_PER_UNIT
    assert meter.allowance(10 * STEPS_PER_UNIT) == 2 * STEPS_PER_UNIT
    meter.charge(STEPS_PER_UNIT)
    assert meter.allowance(10 * STEPS_PER_UNIT) == STEPS_PER_UNIT
    assert meter.allowance(5) == 5 and not meter.exhausted
    meter.charge(STEPS_PER_UNIT)
    assert meter.exhausted and meter.allowance(5) == 1  # a query still starts
    unlimited = WorkMeter.of_units(0)
    unlimited.charge(10 ** 12)
    assert not unlimited.exhausted and unlimited.allowance(7) == 7


@needs_bitwuzla
def test_bitwuzla_answers_float_queries_with_a_z3_model() -> None:
    constraints = _triangle_query(strict=False)
    answer = bitwuzla_solver.solve(constraints, 50_000_000)
    assert answer is not None
    result, model, spent = answer
    assert result == SAT and spent > 0
    assert all(z3.is_true(model.eval(c, model_completion=True)) for c in constraints)
    result, model, _ = bitwuzla_solver.solve(_triangle_query(strict=True), 50_000_000)
    assert (result, model) == (UNSAT, None)


@needs_bitwuzla
def test_bitwuzla_steps_are_the_same_every_time() -> None:
    runs = [bitwuzla_solver.solve(_triangle_query(strict=True), 50_000_000)
            for _ in range(3)]
    assert len({spent for _, _, spent in runs}) == 1
    # a budget below what the proof needs gives up, after exactly that many steps
    needed = runs[0][2]
    result, _, spent = bitwuzla_solver.solve(_triangle_query(strict=True), needed // 2)
    assert result == UNKNOWN
    assert spent <= needed // 2 + bitwuzla_solver.BITWUZLA_STEP


@needs_bitwuzla
def test_bitwuzla_declines_what_smtlib_cannot_say() -> None:
    f = z3.FP("f", z3.Float32())
    assert bitwuzla_solver.solve([z3.fpToIEEEBV(f) == 5], 1_000_000) is None


@pytest.mark.parametrize("with_bitwuzla", [True, False])
def test_solver_decides_float_paths_with_or_without_bitwuzla(
        with_bitwuzla: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if with_bitwuzla and not bitwuzla_solver.available():
        pytest.skip("Bitwuzla has no wheel for this platform")
    if not with_bitwuzla:
        monkeypatch.setattr(bitwuzla_solver, "_bw", None)
    solver = Solver(WorkMeter.of_units(0))
    assert solver.check(_triangle_query(strict=False)) == SAT
    assert solver.meter.spent > 0


# A query z3 cannot decide within 3 units (factoring the product of two 31-bit primes), in
# a fresh interpreter: z3's answers depend on what its context saw before, which
# is why generation runs in a forked child of a process that never used z3.
STEP_LIMIT_SCRIPT = """
import z3
from pytest_ctgen.symbolic.solver import Solver
from pytest_ctgen.symbolic.work import WorkMeter
x, y = z3.BitVecs("x y", 64)
hard = [x * y == 2147483629 * 2147483587, z3.ULT(x, 1 << 32), z3.ULT(y, 1 << 32),
        z3.UGT(x, 1), z3.UGT(y, 1)]
solver = Solver(WorkMeter.of_units(3))
print(solver.check(hard), solver.meter.exhausted, solver.meter.spent)
"""


@needs_bitwuzla
def test_z3_decides_where_the_solvers_read_smtlib_differently() -> None:
    """fp.to_sbv of a NaN is unspecified in SMT-LIB: Bitwuzla's model does not satisfy the
    path as z3 evaluates it, so the solver takes z3's answer and model instead."""
    bits = z3.BitVec("nan_bits", 64)
    x = z3.fpBVToFP(bits, D)
    path = [z3.fpIsNaN(x), z3.fpToSBV(z3.RTZ(), x, z3.BitVecSort(32)) == 12345]
    _, theirs, _ = bitwuzla_solver.solve(path, 50_000_000)
    assert theirs is not None and not all(
        z3.is_true(theirs.eval(c, model_completion=True)) for c in path)
    solver = Solver(WorkMeter.of_units(0))
    model = solver.model(path, [])
    assert model is not None
    assert all(z3.is_true(model.eval(c, model_completion=True)) for c in path)


def test_a_step_limit_gives_the_same_answer_every_time() -> None:
    runs = [subprocess.run([sys.executable, "-c", STEP_LIMIT_SCRIPT], check=True,
                           capture_output=True, text=True, timeout=300).stdout.split()
            for _ in range(2)]
    assert runs[0] == runs[1]
    result, exhausted, _ = runs[0]
    assert (result, exhausted) == (UNKNOWN, "True")


# A query no machine decides in minutes (a 92-bit product of two primes, 2^61 - 1 and
# 2^31 - 1) with a step limit it would take hours to reach and a deadline already passed:
# only the deadline can stop it, however late a loaded machine lets z3's timer run.
DEADLINE_SCRIPT = """
import time
import z3
from pytest_ctgen.symbolic.solver import Solver
from pytest_ctgen.symbolic.work import WorkMeter
x, y = z3.BitVecs("x y", 128)
hard = [x * y == (2**61 - 1) * (2**31 - 1), z3.ULT(x, 1 << 64), z3.ULT(y, 1 << 64),
        z3.UGT(x, 1), z3.UGT(y, 1)]
solver = Solver(WorkMeter.of_units(0), query_steps=1 << 40)
solver.deadline = time.monotonic() - 1
print(solver.check(hard), solver.meter.exhausted, solver.meter.spent)
"""


def test_the_time_budget_stops_a_query_it_finds_running() -> None:
    """The safety net bounds a single query too: past the deadline z3 stops after its
    shortest timeout, long before the query's own step limit."""
    result, exhausted, spent = subprocess.run(
        [sys.executable, "-c", DEADLINE_SCRIPT], check=True, capture_output=True, text=True,
        timeout=300).stdout.split()
    assert (result, exhausted) == (UNKNOWN, "False")
    assert int(spent) < 1 << 40
