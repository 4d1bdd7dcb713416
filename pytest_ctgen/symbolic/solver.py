"""Feasibility checks and models for path conditions, biased towards readable values.

Every query runs in a fresh z3 solver: z3's incremental mode (assumptions, push/pop) gives
up its bit-blasting preprocessing, which makes queries over floating point and wide
multiplications many times slower than solving the conjunction from scratch. The model of
the previous query answers first when it already satisfies the new path condition, which is
the common case along one path (KLEE's counterexample cache)."""
from __future__ import annotations

import time

import z3

from .approx import float_candidate, real_reading

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"
_KEEP_MODELS = 16
_PREFERENCE_TIMEOUT_MS = 1000
_MAXSAT_TIMEOUT_MS = 3000  # once per case: readable inputs are worth a little time
_CANDIDATE_TIMEOUT_MS = 2000
_FLOAT_TIMEOUT_MS = 3000
_SMT_CORE_MS = 1000


class Solver:
    """Checks conjunctions of z3 Booleans and produces models for them."""

    def __init__(self, timeout_ms: int = 10000) -> None:
        self.timeout_ms = timeout_ms
        self.queries = 0
        self.cache_hits = 0
        self.candidate_hits = 0
        self.deadline: float | None = None
        self._float_terms: dict[int, tuple[z3.ExprRef, bool]] = {}  # time.monotonic() after which queries give up
        self._models: list[z3.ModelRef] = []  # recent models, newest first

    def _cached(self, constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        for model in self._models:
            if all(self.holds(model, c) for c in constraints):
                self.cache_hits += 1
                return model
        return None

    def _solve(self, constraints: list[z3.BoolRef], timeout_ms: int | None = None,
               wishes: list[z3.BoolRef] | None = None) -> tuple[str, z3.ModelRef | None]:
        """Solve `constraints` (and `wishes`, which may be dropped). With floating-point
        terms, a candidate from real arithmetic is tried first (see approx.py)."""
        wishes = wishes or []
        if any(self._has_float(c) for c in constraints):
            # proving a floating-point path infeasible can take very long: bounded tighter
            timeout_ms = min(timeout_ms or self.timeout_ms, _FLOAT_TIMEOUT_MS)
            pins = float_candidate(constraints, wishes, _CANDIDATE_TIMEOUT_MS)
            if pins is not None:
                for attempt in ([*constraints, *wishes, *pins], [*constraints, *pins]):
                    _, model = self._plain(attempt, _CANDIDATE_TIMEOUT_MS)
                    if model is not None:
                        self.candidate_hits += 1
                        return SAT, model
                    if not wishes:
                        break
        return self._plain([*constraints, *wishes], timeout_ms)

    def _plain(self, constraints: list[z3.BoolRef], timeout_ms: int | None = None
               ) -> tuple[str, z3.ModelRef | None]:
        """A small portfolio: z3's SMT core first (quick on nonlinear bit-vector problems),
        then its default bit-blasting solver with the time that is left."""
        budget = timeout_ms or self.timeout_ms
        if self.deadline is not None:
            budget = max(1, min(budget, int((self.deadline - time.monotonic()) * 1000)))
        result = UNKNOWN
        for make, share in ((lambda: z3.Tactic("smt").solver(), _SMT_CORE_MS),
                            (z3.Solver, None)):
            self.queries += 1
            solver = make()
            solver.set("timeout", min(budget, share) if share else budget)
            solver.set("random_seed", 0)
            solver.add(*constraints)
            start = time.monotonic()
            answer = solver.check()
            budget -= int((time.monotonic() - start) * 1000)
            if answer == z3.sat:
                model = solver.model()
                self._models.insert(0, model)
                del self._models[_KEEP_MODELS:]
                return SAT, model
            if answer == z3.unsat:
                return UNSAT, None
            if budget <= 0:
                break
        return result, None

    def check(self, constraints: list[z3.BoolRef], quick: bool = False) -> str:
        """SAT, UNSAT or UNKNOWN (the solver gave up) for the conjunction of `constraints`.
        `quick`: only the cached models and a real-arithmetic candidate are tried, so the
        answer is SAT or UNKNOWN, at little cost."""
        if self._cached(constraints) is not None:
            return SAT
        if quick:
            if not any(self._has_float(c) for c in constraints):
                return UNKNOWN
            pins = float_candidate(constraints, [], _CANDIDATE_TIMEOUT_MS)
            if pins is None:
                return UNKNOWN
            result, _ = self._plain([*constraints, *pins], _CANDIDATE_TIMEOUT_MS)
            return SAT if result == SAT else UNKNOWN
        return self._solve(constraints)[0]

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
        readings: list[z3.BoolRef] | None = [*constraints, target]
        timeout = _PREFERENCE_TIMEOUT_MS
        if any(self._has_float(c) for c in readings):
            readings = real_reading(readings)
            timeout = _CANDIDATE_TIMEOUT_MS
            if readings is None:
                return []
        *tracked, goal = readings
        solver = z3.Solver()
        solver.set("timeout", timeout)
        solver.set("core.minimize", True)
        solver.add(goal)
        marks = [z3.Bool(f"ctgen.core{i}") for i in range(len(tracked))]
        for mark, c in zip(marks, tracked):
            solver.add(z3.Implies(mark, c))
        self.queries += 1
        try:
            if solver.check(*marks) != z3.unsat:
                return []
        except z3.Z3Exception:
            return []
        core = {m.get_id() for m in solver.unsat_core()}
        return [c for mark, c in zip(marks, constraints) if mark.get_id() in core]

    @staticmethod
    def key(constraint: z3.BoolRef) -> int:
        """An identity for a constraint as a path condition stores it (simplified)."""
        return z3.simplify(constraint).get_id()

    @staticmethod
    def holds(model: z3.ModelRef, constraint: z3.BoolRef) -> bool:
        """Whether `constraint` is true in `model` (unassigned symbols taken as completed)."""
        return z3.is_true(model.eval(constraint, model_completion=True))

    def model(self, constraints: list[z3.BoolRef], preferences: list[list[z3.BoolRef]]
              ) -> z3.ModelRef | None:
        """A model of `constraints` that is as readable as the path allows. `preferences`
        are tiers of wishes, most readable first. Without floating point, as many wishes are
        kept as the path allows (MaxSAT), so one input that must be large does not make
        the others large too. With floating point, or when MaxSAT runs out of time, the
        first tier that holds as a whole wins."""
        if not any(self._has_float(c) for c in constraints):
            wishes = [w for tier in preferences for w in tier]
            model = self._cached([*constraints, *wishes]) if wishes else None
            if model is None and wishes:
                model = self._keep_compatible(preferences, constraints)
            if model is not None:
                return model
            # MaxSAT gave up: whole tiers, as hard constraints, are quick to try
        for tier in [*preferences, []]:
            model = self._cached([*constraints, *tier])
            if model is None:
                # a preference must not cost more than the path itself: short timeouts
                result, model = self._solve(constraints, _PREFERENCE_TIMEOUT_MS, tier) \
                    if tier else self._solve(constraints)
                if model is not None and tier and not all(self.holds(model, c)
                                                          for c in tier):
                    model = None  # the candidate satisfied the path but not this tier
            if model is not None:
                return model
        return None

    def _keep_compatible(self, tiers: list[list[z3.BoolRef]],
                         constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        """A model of `constraints` breaking as few wishes as possible, a wish of an
        earlier tier weighing more (z3's MaxSAT)."""
        opt = z3.Optimize()
        budget = _MAXSAT_TIMEOUT_MS
        if self.deadline is not None:
            budget = max(1, min(budget, int((self.deadline - time.monotonic()) * 1000)))
        opt.set(timeout=budget)  # the keyword form: Optimize ignores set("timeout", ms)
        opt.add(*constraints)
        for weight, tier in zip(range(len(tiers), 0, -1), tiers):
            for wish in tier:
                opt.add_soft(wish, weight)
        self.queries += 1
        if opt.check() == z3.sat:
            return opt.model()
        return None


