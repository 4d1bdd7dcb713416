"""The incremental solver: one z3 solver per function, path constraints passed as
assumption literals so that every query reuses what the solver learnt before, and models
biased towards values a person would pick."""
from __future__ import annotations

import z3

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"


class Solver:
    """Feasibility checks and models for path conditions (lists of z3 Booleans)."""

    def __init__(self, timeout_ms: int = 10000) -> None:
        self._solver = z3.Solver()
        self._solver.set("timeout", timeout_ms)
        self._solver.set("random_seed", 0)
        self._literals: dict[int, z3.BoolRef] = {}
        self._keep: list[z3.ExprRef] = []  # keep constraint ASTs alive so ids stay unique
        self.queries = 0
        self.cache_hits = 0
        self._last_model: z3.ModelRef | None = None

    def _literal(self, c: z3.BoolRef) -> z3.BoolRef:
        key = c.get_id()
        lit = self._literals.get(key)
        if lit is None:
            lit = z3.Bool(f"ctgen.p{len(self._literals)}")
            self._solver.add(z3.Implies(lit, c))
            self._literals[key] = lit
            self._keep.append(c)
        return lit

    def check(self, constraints: list[z3.BoolRef]) -> str:
        """SAT, UNSAT or UNKNOWN for the conjunction of `constraints`. The last model found
        answers first: when it satisfies every constraint no solver call is needed."""
        if self._last_model is not None and all(
                z3.is_true(self._last_model.eval(c, model_completion=True))
                for c in constraints):
            self.cache_hits += 1
            return SAT
        self.queries += 1
        result = self._solver.check(*[self._literal(c) for c in constraints])
        if result == z3.sat:
            self._last_model = self._solver.model()
            return SAT
        if result == z3.unsat:
            return UNSAT
        return UNKNOWN

    def model(self, constraints: list[z3.BoolRef], preferences: list[z3.BoolRef]
              ) -> z3.ModelRef | None:
        """A model of `constraints` satisfying as many `preferences` as the solver finds
        compatible (preferences in an unsat core are dropped, a few rounds at most)."""
        base = [self._literal(c) for c in constraints]
        prefs = {self._literal(p).get_id(): self._literal(p) for p in preferences}
        for _ in range(8):
            if not prefs:
                break
            self.queries += 1
            result = self._solver.check(*base, *prefs.values())
            if result == z3.sat:
                return self._solver.model()
            if result != z3.unsat:
                break
            core = {lit.get_id() for lit in self._solver.unsat_core()}
            dropped = [k for k in prefs if k in core]
            if not dropped:
                break
            for k in dropped:
                del prefs[k]
        self.queries += 1
        if self._solver.check(*base) == z3.sat:
            return self._solver.model()
        return None
