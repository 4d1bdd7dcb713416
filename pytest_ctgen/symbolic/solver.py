"""Feasibility checks and models for path conditions, biased towards readable values.

Every query runs in a fresh solver: z3's incremental mode (assumptions, push/pop) gives up
its bit-blasting preprocessing, which makes queries over floating point and wide
multiplications many times slower than solving the conjunction from scratch. The model of
the previous query answers first when it already satisfies the new path condition, which is
the common case along one path (KLEE's counterexample cache). Queries over floating point
go to Bitwuzla (see bitwuzla_solver.py), the others to z3.

Every query is bounded by solver steps, never by seconds (see work.py): the same query gets
the same answer on every machine under any load."""
from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator
from typing import Final, Literal, TypeAlias

import z3

from . import bitwuzla_solver
from .approx import float_candidate, real_reading
from .work import (
    CONJUNCTION_STEP, CORE_STEP, EVALUATION_STEP, QUERY_STEP, TRANSLATION_STEP, WorkMeter)

#: What a query comes to: satisfiable, unsatisfiable, or unknown (the solver gave up).
Answer = Literal["sat", "unsat", "unknown"]
#: What the search layer handles of z3 without importing it: a path condition and a model.
Condition: TypeAlias = z3.BoolRef
Model: TypeAlias = z3.ModelRef
SAT: Final = "sat"
UNSAT: Final = "unsat"
UNKNOWN: Final = "unknown"
_KEEP_MODELS = 16
# Per-query bounds in solver steps (about 5 million a second, see work.py).
QUERY_STEPS = 50_000_000
_PREFERENCE_STEPS = 5_000_000
_CANDIDATE_STEPS = 10_000_000
_FLOAT_STEPS = 15_000_000
_SMT_CORE_STEPS = 5_000_000
#: The steps of the one query that keeps a `WholeTier`.
_WHOLE_TIER_STEPS = 1_000_000


class WholeTier(list[z3.BoolRef]):
    """A tier of wishes kept all together when one quick query finds a model with them
    (`_WHOLE_TIER_STEPS`), else taken among the next tier's, where a wish the first model
    meets by chance is kept before the others (`Solver._keep_part`): the boundary wishes,
    which come before readable values where that is cheap, and do not make a search of
    heavy arithmetic (a sum of 32 bytes at its boundary) spend its budget on them."""


@contextlib.contextmanager
def own_context() -> Iterator[None]:
    """Run the block with a z3 context of its own and Python's cycle collector paused.

    z3 numbers its terms, reuses the numbers of freed terms, and its models depend on the
    numbers. Without a context of its own, a function's cases would depend on what the
    process generated before it (a function generated alone got other cases than with its
    file); and the cycle collector frees terms at moments that depend on the process's
    history. Paused, terms are freed by reference counting only, in an order fixed by the
    program; the block's cyclic garbage is collected when it ends.
    """
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    previous = z3.z3._main_ctx
    z3.z3._main_ctx = None  # main_ctx() makes a new one when first asked
    try:
        yield
    finally:
        z3.z3._main_ctx = previous
        if collecting:
            gc.enable()
        gc.collect()


def z3_steps(solver: z3.Solver | z3.Optimize) -> int | None:
    """z3's resource counter after `solver`'s last check: the steps its context has taken
    so far (None when z3 does not report it)."""
    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except (z3.Z3Exception, KeyError, TypeError, ValueError):
        return None


def bounded_z3(solver: z3.Solver | z3.Optimize, steps: int, deadline: float | None = None
               ) -> z3.Solver | z3.Optimize:
    """`solver` bounded to `steps` resource units per check, with a fixed seed; and, as
    the safety net only, stopped at `deadline` (time.monotonic())."""
    solver.set("rlimit", max(1, steps))
    if deadline is not None:
        solver.set("timeout", max(1, int((deadline - time.monotonic()) * 1000)))
    if not isinstance(solver, z3.Optimize):
        solver.set("random_seed", 0)
    return solver


class Solver:
    """Checks conjunctions of z3 Booleans and produces models for them, charging the work
    to `meter`."""

    def __init__(self, meter: WorkMeter | None = None, query_steps: int = QUERY_STEPS
                 ) -> None:
        self.meter = meter if meter is not None else WorkMeter()
        self.query_steps = query_steps
        # the time budget (time.monotonic()), a safety net: a query it stops makes the
        # search stop with the time budget as its reason, so no answer it changed is kept
        # without that being reported
        self.deadline: float | None = None
        self.queries = 0
        self.model_answer: Answer = UNKNOWN  # of the last query `model` made
        self.cache_hits = 0
        self.candidate_hits = 0
        self._float_terms: dict[int, tuple[z3.ExprRef, bool]] = {}
        self._models: list[z3.ModelRef] = []  # recent models, newest first
        baseline = z3.Solver()
        baseline.check()
        self._z3_count = z3_steps(baseline) or 0

    def charge_z3(self, solver: z3.Solver | z3.Optimize) -> None:
        """Charge what z3 did since the last reading (this query and any simplification
        in between) to the meter."""
        count = z3_steps(solver)
        if count is not None:
            self.meter.charge(count - self._z3_count)
            self._z3_count = count

    def _remember(self, model: z3.ModelRef) -> None:
        self._models.insert(0, model)
        del self._models[_KEEP_MODELS:]

    def _cached(self, constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        if not self._models:
            return None
        conjunction = z3.And(*constraints) if len(constraints) != 1 else constraints[0]
        for model in self._models:
            if self._satisfies(model, constraints, conjunction):
                self.cache_hits += 1
                return model
        return None

    def _satisfies(self, model: z3.ModelRef, constraints: list[z3.BoolRef],
                   conjunction: z3.BoolRef | None = None) -> bool:
        """Whether `model` (unassigned symbols completed) satisfies all `constraints`: one
        evaluation of their conjunction, which z3 walks in C (a call per constraint from
        Python cost more than the queries it saved on long paths)."""
        self.meter.charge(CONJUNCTION_STEP * len(constraints))
        if conjunction is None:
            conjunction = z3.And(*constraints)
        return z3.is_true(model.eval(conjunction, model_completion=True))

    def _solve(self, constraints: list[z3.BoolRef], steps: int | None = None,
               wishes: list[z3.BoolRef] | None = None) -> tuple[Answer, z3.ModelRef | None]:
        """Solve `constraints` (and `wishes`, which may be dropped). With floating-point
        terms, a candidate from real arithmetic is tried first (see approx.py)."""
        wishes = wishes or []
        if self.on_floats(constraints):
            # proving a floating-point path infeasible can take very long: bounded tighter
            steps = min(steps or self.query_steps, _FLOAT_STEPS)
            pins = self._float_pins(constraints, wishes)
            if pins is not None:
                for attempt in ([*constraints, *wishes, *pins], [*constraints, *pins]):
                    _, model = self._plain(attempt, _CANDIDATE_STEPS)
                    if model is not None:
                        self.candidate_hits += 1
                        return SAT, model
                    if not wishes:
                        break
            answer = self._bitwuzla([*constraints, *wishes], steps)
            if answer is not None:
                return answer
        return self._plain([*constraints, *wishes], steps)

    def _float_pins(self, constraints: list[z3.BoolRef], wishes: list[z3.BoolRef]
                    ) -> list[z3.BoolRef] | None:
        self.meter.charge(TRANSLATION_STEP * (len(constraints) + len(wishes)))
        return float_candidate(constraints, wishes,
                               lambda: bounded_z3(z3.Solver(),
                                                  self.meter.allowance(_CANDIDATE_STEPS),
                                                  self.deadline),
                               self.charge_z3)

    def _bitwuzla(self, constraints: list[z3.BoolRef], steps: int
                  ) -> tuple[Answer, z3.ModelRef | None] | None:
        """Bitwuzla's answer, or None when it cannot take the query."""
        self.meter.charge(TRANSLATION_STEP * len(constraints))
        answer = bitwuzla_solver.solve(constraints, self.meter.allowance(steps),
                                       self.deadline)
        if answer is None:
            return None
        self.queries += 1
        result, model, spent = answer
        self.meter.charge(spent)
        if model is not None:
            if not self._satisfies(model, constraints):
                # an operation SMT-LIB leaves unspecified (e.g. fp.to_sbv out of range)
                # that the two solvers read differently: z3, which evaluates the cases,
                # decides
                return None
            self._remember(model)
        return result, model

    def _plain(self, constraints: list[z3.BoolRef], steps: int | None = None
               ) -> tuple[Answer, z3.ModelRef | None]:
        """A small portfolio: z3's SMT core first (quick on nonlinear bit-vector problems),
        then its default bit-blasting solver with the steps that are left."""
        budget = self.meter.allowance(steps or self.query_steps)
        for make, share in ((lambda: z3.Tactic("smt").solver(), _SMT_CORE_STEPS),
                            (z3.Solver, None)):
            self.queries += 1
            self.meter.charge(QUERY_STEP)
            solver = bounded_z3(make(), min(budget, share) if share else budget,
                                self.deadline)
            solver.add(*constraints)
            before = self.meter.spent
            answer = solver.check()
            self.charge_z3(solver)
            budget -= self.meter.spent - before
            if answer == z3.sat:
                model = solver.model()
                self._remember(model)
                return SAT, model
            if answer == z3.unsat:
                return UNSAT, None
            if budget <= 0:
                break
        return UNKNOWN, None

    def check(self, constraints: list[z3.BoolRef], quick: bool = False) -> Answer:
        """SAT, UNSAT or UNKNOWN (the solver gave up) for the conjunction of `constraints`.
        `quick`: only the cached models and a real-arithmetic candidate are tried, so the
        answer is SAT or UNKNOWN, at little cost."""
        if self._cached(constraints) is not None:
            return SAT
        if quick:
            if not self.on_floats(constraints):
                return UNKNOWN
            pins = self._float_pins(constraints, [])
            if pins is None:
                return UNKNOWN
            result, _ = self._plain([*constraints, *pins], _CANDIDATE_STEPS)
            return SAT if result == SAT else UNKNOWN
        return self._solve(constraints)[0]

    def on_floats(self, constraints: list[z3.BoolRef]) -> bool:
        """Whether a path of `constraints` computes with floating point (its models are
        found tier by tier whole, see `model`)."""
        return any(self._has_float(c) for c in constraints)

    def _has_float(self, e: z3.ExprRef) -> bool:
        """Whether `e` contains a floating-point term. Memoized with a reference to `e`, so
        its AST id cannot be reused by another term while the entry lives."""
        key = e.get_id()
        entry = self._float_terms.get(key)
        if entry is None:
            entry = (e, z3.is_fp(e) or any(self._has_float(a) for a in e.children()))
            self._float_terms[key] = entry
        return entry[1]

    def conflict(self, constraints: list[z3.BoolRef], target: z3.BoolRef
                 ) -> list[z3.BoolRef]:
        """Path constraints that, cheaply read, contradict `target`: which earlier
        decisions to revisit so that `target` becomes feasible. Empty when unknown. With
        floating point they are read over the reals (see approx.py)."""
        readings = [*constraints, target]
        steps = _PREFERENCE_STEPS
        self.meter.charge(CORE_STEP)
        if any(self._has_float(c) for c in readings):
            over_reals = real_reading(readings)
            steps = _CANDIDATE_STEPS
            if over_reals is None:
                return []
            readings = over_reals
        *tracked, goal = readings
        solver = bounded_z3(z3.Solver(), self.meter.allowance(steps), self.deadline)
        solver.set("core.minimize", True)
        solver.add(goal)
        marks = [z3.Bool(f"ctgen.core{i}") for i in range(len(tracked))]
        for mark, c in zip(marks, tracked):
            solver.add(z3.Implies(mark, c))
        self.queries += 1
        try:
            answer = solver.check(*marks)
        except z3.Z3Exception:
            return []
        finally:
            self.charge_z3(solver)
        if answer != z3.unsat:
            return []
        core = {m.get_id() for m in solver.unsat_core()}
        return [c for mark, c in zip(marks, constraints) if mark.get_id() in core]

    @staticmethod
    def key(constraint: z3.BoolRef) -> int:
        """An identity for a constraint as a path condition stores it (simplified)."""
        return z3.simplify(constraint).get_id()

    def holds(self, model: z3.ModelRef, constraint: z3.BoolRef) -> bool:
        """Whether `constraint` is true in `model` (unassigned symbols taken as completed)."""
        self.meter.charge(EVALUATION_STEP)
        return z3.is_true(model.eval(constraint, model_completion=True))

    def model(self, constraints: list[z3.BoolRef], preferences: list[list[z3.BoolRef]]
              ) -> z3.ModelRef | None:
        """A model of `constraints` that is as readable as the path allows. `preferences`
        are tiers of wishes, most readable first. Without floating point, as many wishes are
        kept as the path allows, tier by tier (see `_keep_compatible`), so one input that
        must be large does not make the others large too. With floating point the first
        tier that holds as a whole wins. The answer of its last query is `model_answer`."""
        if not self.on_floats(constraints):
            wishes = [w for tier in preferences for w in tier]
            model = self._cached([*constraints, *wishes]) if wishes else None
            if model is None and wishes:
                model = self._keep_compatible(preferences, constraints)
            if model is None:
                self.model_answer, model = self._solve(constraints)
            return model if model is not None else self._zero_model(constraints)
        for tier in [*preferences, []]:
            model = self._cached([*constraints, *tier])
            if model is None:
                # a preference must not cost more than the path itself: fewer steps
                self.model_answer, model = \
                    self._solve(constraints, _PREFERENCE_STEPS, tier) if tier \
                    else self._solve(constraints)
                if model is not None and tier and not all(self.holds(model, c)
                                                          for c in tier):
                    model = None  # the candidate satisfied the path but not this tier
            if model is not None:
                return model
        return self._zero_model(constraints)

    def readable(self, constraints: list[z3.BoolRef], preferences: list[list[z3.BoolRef]]
                 ) -> tuple[Answer, z3.ModelRef | None]:
        """`model(constraints, preferences)` with the solver's answer: SAT with the model,
        or UNSAT or UNKNOWN (the solver gave up) without one."""
        self.model_answer = UNKNOWN
        model = self.model(constraints, preferences)
        return (SAT, model) if model is not None else (self.model_answer, None)

    def _zero_model(self, constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        """The model of all-zero inputs when it satisfies `constraints`: the last resort
        where the solver gave up (a straight path through wide arithmetic)."""
        zero = z3.Model()
        return zero if self._satisfies(zero, constraints) else None

    def _keep_compatible(self, tiers: list[list[z3.BoolRef]],
                         constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        """A model of `constraints` and a maximal set of wishes, taken in tier order: a
        tier whole when it can be, else its halves, recursively (a wish the last model
        already meets costs no query). None when the path itself has no model within the
        steps. On paths with wide multiplications this is several times quicker than z3's
        MaxSAT, and it keeps an earlier tier's wishes first by construction. A `WholeTier`
        is kept whole when one quick query finds a model, else its wishes join the next
        tier's."""
        kept: list[z3.BoolRef] = []
        model: z3.ModelRef | None = None
        tiers = list(tiers)
        for i, tier in enumerate(tiers):
            if isinstance(tier, WholeTier):
                result, found = self._plain([*constraints, *kept, *tier], _WHOLE_TIER_STEPS)
                if result == SAT:
                    kept += tier
                    model = found
                elif i + 1 < len(tiers):
                    tiers[i + 1] = [*tier, *tiers[i + 1]]
                continue
            if model is None:
                result, model = self._plain([*constraints, *tier], _PREFERENCE_STEPS)
                if result == SAT:
                    kept += tier
                    continue
                # some wish of the tier conflicts, or the path is infeasible: which?
                result, model = self._plain(constraints, _PREFERENCE_STEPS)
                if result != SAT:
                    return None
            model = self._keep_part(constraints, kept, tier, model)
        return model

    def _keep_part(self, constraints: list[z3.BoolRef], kept: list[z3.BoolRef],
                   wishes: list[z3.BoolRef], model: z3.ModelRef | None
                   ) -> z3.ModelRef | None:
        """Add to `kept` the wishes of `wishes` (in order) that hold together with
        `constraints` and `kept`; the last model found (or `model`)."""
        met = [model is not None and self.holds(model, w) for w in wishes]
        kept += [w for w, m in zip(wishes, met) if m]
        pending = [w for w, m in zip(wishes, met) if not m]
        if not pending:
            return model
        result, found = self._plain([*constraints, *kept, *pending], _PREFERENCE_STEPS)
        if result == SAT:
            kept += pending
            return found
        if len(pending) == 1:
            return model
        half = len(pending) // 2
        model = self._keep_part(constraints, kept, pending[:half], model)
        return self._keep_part(constraints, kept, pending[half:], model)
