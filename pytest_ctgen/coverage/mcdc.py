"""MC/DC per function, computed from the evaluations of its decisions that a run recorded
(the instrumented copy, frontend/mcdc_instrument.py, and its runtime, c_harness/ctgen_mcdc.c).

Modified condition/decision coverage (DO-178C, Annex B; DO-248C FAQ #43) asks that each
condition of each decision be shown to affect the decision's outcome independently: an
*independence pair* of evaluations in which the condition has both values and the outcome
differs. Which other conditions may differ within a pair is what separates the forms of
Chilenski's "An Investigation of Three Forms of the Modified Condition Decision Coverage
(MCDC) Criterion" (DOT/FAA/AR-01/18, 2001) that CAST-6 ("Rationale for Accepting Masking
MC/DC in Certification Projects", 2001) accepts:

* Unique-cause MC/DC, for C's short-circuit operators: the condition is evaluated in both
  evaluations, with different values; the outcomes differ; every other condition has the
  same value in both, or is not evaluated in at least one of them (a condition
  short-circuit evaluation skipped is a "don't care" that matches anything, as
  DO-248C's discussion of short-circuit languages and CAST-10 allow).
* Masking MC/DC: the condition is evaluated in both, with different values; the outcomes
  differ; the condition is not masked in either evaluation; and every other condition
  evaluated in both with different values is masked in both. A condition is *masked* in an
  evaluation when an operator on its way to the decision's outcome has, as its other
  operand, the value that decides that operator alone: false for `&&`, true for `||`
  (`!` passes its operand's influence through). Then changing the condition alone could
  not change the outcome.

Every unique-cause pair is a masking pair; a condition is reported with the stronger form
it has. Coupled conditions (the same variable in two conditions, `(a && b) || (!a && c)`)
can make unique-cause pairs impossible and leave masking ones.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..frontend.decisions import Condition, Decision
from ..frontend.independence import (  # the forms of pairs are defined there
    MASKING, UNIQUE_CAUSE, masked as masked, masking, unique_cause)
from .gcov import percent



@dataclass(frozen=True)
class Evaluation:
    """One evaluation of a decision: each condition's value (None: not evaluated) and the
    outcome."""

    decision: int
    values: tuple[bool | None, ...]
    outcome: bool


@dataclass(frozen=True)
class ConditionCoverage:
    """A condition and the independence pair the evaluations hold for it, if any."""

    decision: Decision
    condition: Condition
    form: str | None = None  # UNIQUE_CAUSE, MASKING, or None without a pair
    pair: tuple[Evaluation, Evaluation] | None = None

    @property
    def shown(self) -> bool:
        return self.form is not None


@dataclass(frozen=True)
class McdcCoverage:
    """The MC/DC of one function: each condition of its decisions and its pair."""

    function: str
    conditions: tuple[ConditionCoverage, ...]
    #: why the function's decisions were not measured (its body is not instrumented)
    not_measured: str = ""

    @property
    def decisions_total(self) -> int:
        return len({c.decision.id for c in self.conditions})

    @property
    def conditions_total(self) -> int:
        return len(self.conditions)

    @property
    def conditions_shown(self) -> int:
        return sum(1 for c in self.conditions if c.shown)

    @property
    def unique_cause_shown(self) -> int:
        return sum(1 for c in self.conditions if c.form == UNIQUE_CAUSE)

    @property
    def percent(self) -> float:
        """Conditions shown of conditions total; 100.0 for a function with none."""
        return percent(self.conditions_shown, self.conditions_total)

    @property
    def missing(self) -> tuple[ConditionCoverage, ...]:
        """The conditions without an independence pair."""
        return tuple(c for c in self.conditions if not c.shown)


def read_records(text: str, decisions: Iterable[Decision]
                 ) -> dict[int, frozenset[Evaluation]]:
    """The evaluations in the runtime's records (`tag decision evaluated values outcome`,
    see ctgen_mcdc.c), by tag; records of decisions not in `decisions` are left out."""
    sizes = {d.id: len(d.conditions) for d in decisions}
    out: dict[int, set[Evaluation]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue  # a record a killed case left half written
        tag, decision = int(parts[0]), int(parts[1])
        evaluated, values = int(parts[2], 16), int(parts[3], 16)
        if decision not in sizes:
            continue
        vector = tuple(bool(values >> k & 1) if evaluated >> k & 1 else None
                       for k in range(sizes[decision]))
        out.setdefault(tag, set()).add(Evaluation(decision, vector, parts[4] == "1"))
    return {tag: frozenset(found) for tag, found in out.items()}


def condition_pair(decision: Decision, k: int, evaluations: Iterable[Evaluation]
                   ) -> tuple[str | None, tuple[Evaluation, Evaluation] | None]:
    """The strongest form of independence pair for condition `k` of `decision` among
    `evaluations` (UNIQUE_CAUSE before MASKING), and a pair of that form."""
    seen = sorted((e for e in evaluations if e.decision == decision.id
                   and e.values[k] is not None), key=lambda e: (e.values[k], repr(e)))
    falses = [e for e in seen if e.values[k] is False]
    trues = [e for e in seen if e.values[k] is True]
    found_masking: tuple[Evaluation, Evaluation] | None = None
    for a in falses:
        for b in trues:
            if a.outcome == b.outcome:
                continue
            if unique_cause(k, a.values, b.values):
                return UNIQUE_CAUSE, (a, b)
            if found_masking is None and masking(decision.tree, k, a.values, b.values):
                found_masking = (a, b)
    return (MASKING, found_masking) if found_masking else (None, None)


def function_mcdc(functions: Iterable[str], decisions: Iterable[Decision],
                  evaluations: Iterable[Evaluation],
                  not_measured: Mapping[str, str] | None = None) -> dict[str, McdcCoverage]:
    """The MC/DC of each of `functions` from the `evaluations` of its `decisions`."""
    seen = frozenset(evaluations)
    per_function: dict[str, list[ConditionCoverage]] = {name: [] for name in functions}
    for d in decisions:
        rows = per_function.setdefault(d.function, [])
        for condition in d.conditions:
            form, pair = condition_pair(d, condition.index, seen)
            rows.append(ConditionCoverage(d, condition, form, pair))
    why = not_measured or {}
    return {name: McdcCoverage(name, tuple(rows), why.get(name, ""))
            for name, rows in per_function.items()}
