"""Deterministic measures of the work generation does, so that it never depends on the clock.

The same sources and options must give the same cases on any machine under any load
(DESIGN.md §6), so every limit of generation is counted in steps, never in seconds:

- a *solver step* is one of z3's resource units (its `rlimit` counter, which z3 advances by
  the same amount for the same query everywhere), or one call of Bitwuzla's terminator
  weighted by `BITWUZLA_STEP` so that both take about as long;
- an *execution step* is one statement the symbolic executor runs or one memory cell it
  touches, weighted by `EXECUTION_STEP` solver steps.

The Python work around the solvers is counted too, by the cost model below.
`STEPS_PER_UNIT` turns the user's budget (`--ctgen-work`, in units of a million steps)
into steps."""
from __future__ import annotations

from dataclasses import dataclass

# The cost model: what the work around the solvers costs, in solver steps of about the
# same time. Fitted on the functions of examples/ and ../shared/corpus, where a step took
# 1.3e-7 s on average (z3 takes 3 to 10 million steps a second depending on the theory).
#: One call of Bitwuzla's terminator.
BITWUZLA_STEP = 12
#: A statement the symbolic executor runs, or a memory cell it touches.
EXECUTION_STEP = 1000
#: Setting up one z3 query (making the solver, adding the path condition).
QUERY_STEP = 5000
#: One constraint translated for Bitwuzla or read over the reals (approx.py).
TRANSLATION_STEP = 8000
#: Setting up one unsat-core query.
CORE_STEP = 25000
#: Evaluating one constraint in a model.
EVALUATION_STEP = 80
#: One constraint of a conjunction evaluated in a model as a whole.
CONJUNCTION_STEP = 20
#: Ranking one open edge of the search tree when the search selects the next one.
RANK_STEP = 80

#: The user's work budget is given in units of this many steps.
STEPS_PER_UNIT = 1_000_000
#: The default work budget per function, in units (about 10 s on a quiet machine).
DEFAULT_WORK_UNITS = 100
#: The default time budget per function in seconds: a safety net only, far above what the
#: default work budget takes, so that it is not what stops generation even on a busy
#: machine (when it is, the results depend on the machine and the session says so).
DEFAULT_TIME_BUDGET = 60.0


# Execution work done in this process so far, in execution steps: statements executed and
# memory cells touched (a read or write at a symbolic offset touches every cell it may
# reach). Generation runs one function at a time per process, so the search charges the
# difference across each step of the executor (see `execution_steps`).
_execution_steps = 0


def tally(steps: int) -> None:
    """Count `steps` execution steps."""
    global _execution_steps  # noqa: PLW0603 - one process-wide tally, read by the meters
    _execution_steps += steps


def execution_steps() -> int:
    """The execution steps counted in this process so far."""
    return _execution_steps


@dataclass
class WorkMeter:
    """The work spent on one function against its budget (`limit` steps, 0 for none)."""

    limit: int = 0
    spent: int = 0

    @classmethod
    def of_units(cls, units: float) -> WorkMeter:
        return cls(limit=max(0, int(units * STEPS_PER_UNIT)))

    def charge(self, steps: int) -> None:
        self.spent += max(0, steps)

    @property
    def exhausted(self) -> bool:
        return self.limit > 0 and self.spent >= self.limit

    def allowance(self, wanted: int) -> int:
        """How many steps one query may take: `wanted`, or what is left of the budget
        when that is less (at least 1, so a query always starts)."""
        if self.limit <= 0:
            return wanted
        return max(1, min(wanted, self.limit - self.spent))
