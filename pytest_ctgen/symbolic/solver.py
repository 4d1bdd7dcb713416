"""Feasibility checks and models for path conditions, biased towards readable values.

Every query runs in a fresh z3 solver: z3's incremental mode (assumptions, push/pop) gives
up its bit-blasting preprocessing, which makes queries over floating point and wide
multiplications many times slower than solving the conjunction from scratch. The model of
the previous query answers first when it already satisfies the new path condition, which is
the common case along one path (KLEE's counterexample cache)."""
from __future__ import annotations

import z3

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"
_KEEP_MODELS = 16
_PREFERENCE_TIMEOUT_MS = 1000


class Solver:
    """Checks conjunctions of z3 Booleans and produces models for them."""

    def __init__(self, timeout_ms: int = 10000) -> None:
        self.timeout_ms = timeout_ms
        self.queries = 0
        self.cache_hits = 0
        self._models: list[z3.ModelRef] = []  # recent models, newest first

    def _cached(self, constraints: list[z3.BoolRef]) -> z3.ModelRef | None:
        for model in self._models:
            if all(self.holds(model, c) for c in constraints):
                self.cache_hits += 1
                return model
        return None

    def _solve(self, constraints: list[z3.BoolRef], timeout_ms: int | None = None
               ) -> tuple[str, z3.ModelRef | None]:
        self.queries += 1
        solver = z3.Solver()
        solver.set("timeout", timeout_ms or self.timeout_ms)
        solver.set("random_seed", 0)
        solver.add(*constraints)
        result = solver.check()
        if result == z3.sat:
            model = solver.model()
            self._models.insert(0, model)
            del self._models[_KEEP_MODELS:]
            return SAT, model
        return (UNSAT if result == z3.unsat else UNKNOWN), None

    def check(self, constraints: list[z3.BoolRef]) -> str:
        """SAT, UNSAT or UNKNOWN (the solver gave up) for the conjunction of `constraints`."""
        if self._cached(constraints) is not None:
            return SAT
        return self._solve(constraints)[0]

    @staticmethod
    def holds(model: z3.ModelRef, constraint: z3.BoolRef) -> bool:
        """Whether `constraint` is true in `model` (unassigned symbols taken as completed)."""
        return z3.is_true(model.eval(constraint, model_completion=True))

    def model(self, constraints: list[z3.BoolRef], preferences: list[list[z3.BoolRef]]
              ) -> z3.ModelRef | None:
        """A model of `constraints` that satisfies the first tier of `preferences` the path
        allows (tiers from most to least readable), or any model."""
        for tier in [*preferences, []]:
            model = self._cached([*constraints, *tier])
            if model is None:
                # a preference must not cost more than the path itself: short timeouts
                _, model = self._solve([*constraints, *tier],
                                       _PREFERENCE_TIMEOUT_MS if tier else None)
            if model is not None:
                return model
        return None

