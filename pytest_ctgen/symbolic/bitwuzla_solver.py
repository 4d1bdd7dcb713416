"""Bitwuzla as the solver of path conditions over floating point.

z3 bit-blasts IEEE arithmetic slowly: on the triangle classifier's paths it needs 2-25 s
for proofs that Bitwuzla finds in 0.1-2.7 s. The path condition, built in z3, goes to
Bitwuzla as SMT-LIB text; the values Bitwuzla finds come back as a z3 model, so the rest of
generation reads models one way. Bitwuzla's work is bounded by counting the calls of its
terminator, which it makes at points of its own progress, so the bound is the same on
every machine under any load (see work.py)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import z3

from .work import BITWUZLA_STEP

if TYPE_CHECKING:
    from bitwuzla import Term

    from .solver import Answer

try:  # a wheel for Linux on x86-64 and arm64; elsewhere z3 answers alone
    import bitwuzla as _bw
except ImportError:  # pragma: no cover - depends on the platform
    _bw = None

# the answers of solver.py (which imports this module)
SAT: Final = "sat"
UNSAT: Final = "unsat"
UNKNOWN: Final = "unknown"


def available() -> bool:
    return _bw is not None


@dataclass
class _Terminator:
    """Stops Bitwuzla after `limit` calls (counting the calls made), or, as the safety net
    only, at `deadline` (time.monotonic(), looked at every 1024 calls)."""

    limit: int
    deadline: float | None = None
    calls: int = 0

    def __call__(self) -> bool:
        self.calls += 1
        if self.deadline is not None and not self.calls & 1023 and \
                time.monotonic() > self.deadline:
            return True
        return self.calls > self.limit


def solve(constraints: list[z3.BoolRef], steps: int, deadline: float | None = None
          ) -> tuple[Answer, z3.ModelRef | None, int] | None:
    """SAT with a model, UNSAT, or UNKNOWN (the budget of `steps` ran out) for the
    conjunction of `constraints`, and the steps spent; None when Bitwuzla cannot take the
    query (z3's own operators such as `fp.to_ieee_bv` are not SMT-LIB)."""
    if _bw is None:
        return None
    query = z3.Solver()
    query.add(*constraints)
    text = query.to_smt2()
    options = _bw.Options()
    options.set(_bw.Option.PRODUCE_MODELS, True)
    manager = _bw.TermManager()
    parser = _bw.Parser(manager, options)
    try:
        parser.parse(text, True, False)
    except Exception:
        return None
    solver = parser.bitwuzla()
    terminator = _Terminator(max(1, steps // BITWUZLA_STEP), deadline)
    solver.configure_terminator(terminator)
    answer = solver.check_sat()
    spent = terminator.calls * BITWUZLA_STEP
    if answer == _bw.Result.UNSAT:
        return UNSAT, None, spent
    if answer != _bw.Result.SAT:
        return UNKNOWN, None, spent
    model = z3.Model()
    for const in parser.get_declared_funs():
        value = _z3_value(const, solver.get_value(const))
        if value is None:
            return None
        model.update_value(*value)
    return SAT, model, spent


def _z3_value(const: Term, value: Term) -> tuple[z3.ExprRef, z3.ExprRef] | None:
    """The z3 constant of Bitwuzla's `const` and its `value` as a z3 value; None for a
    sort other than bit-vectors and Booleans (path conditions have inputs of no other)."""
    name = const.symbol()
    if len(name) > 1 and name[0] == name[-1] == "|":
        name = name[1:-1]  # SMT-LIB's quoting of a name z3 printed quoted
    sort = const.sort()
    if sort.is_bool():
        return z3.Bool(name), z3.BoolVal(bool(value.is_true()))
    if sort.is_bv():
        size = sort.bv_size()
        return z3.BitVec(name, size), z3.BitVecVal(int(value.value(10)), size)
    return None
