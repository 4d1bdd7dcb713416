"""The MC/DC of each function as the reports show it: per function its decisions (of two
or more conditions), the conditions shown to affect their decision independently of the
total, those shown only by a masking pair, and those without any pair.

A function without such a decision has nothing to cover: its MC/DC is shown as `-` and it
adds nothing to the totals. A function whose body the instrumented copy leaves as it is
(frontend/mcdc_instrument.py) counts its conditions, none of them shown, and says why.
A condition the generator proved to have no pair (`Row.mcdc_infeasible`) is listed as
infeasible, like an unreachable branch outcome, and still counts as not shown."""
from __future__ import annotations

import html
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..coverage.mcdc import MASKING, ConditionCoverage, McdcCoverage

if TYPE_CHECKING:
    from ..coverage.mcdc_file import McdcFile
    from .table import Row


@dataclass(frozen=True)
class McdcGap:
    """A condition the reports list: where it is, its text and its decision's."""

    line: int
    column: int
    condition: str
    decision: str

    @property
    def where(self) -> str:
        return f"{self.line}:{self.column}"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "condition": self.condition,
                "decision": self.decision}


@dataclass(frozen=True)
class McdcRow:
    """The MC/DC of one function."""

    decisions: int
    conditions_total: int
    conditions_covered: int
    masking: tuple[McdcGap, ...] = ()  # shown by a masking pair only
    not_covered: tuple[McdcGap, ...] = ()  # without an independence pair
    not_measured: str = ""  # why the function's decisions were not measured
    infeasible: tuple[McdcGap, ...] = ()  # without a pair, proved: no input gives one

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "decisions": self.decisions, "conditions_total": self.conditions_total,
            "conditions_covered": self.conditions_covered,
            "unique_cause": self.conditions_covered - len(self.masking),
            "masking": [g.to_json() for g in self.masking],
            "not_covered": [g.to_json() for g in self.not_covered],
            "infeasible": [g.to_json() for g in self.infeasible]}
        if self.not_measured:
            doc["not_measured"] = self.not_measured
        return doc


def _gap(c: ConditionCoverage) -> McdcGap:
    return McdcGap(c.condition.location.line, c.condition.location.column,
                   c.condition.text, c.decision.text)


def mcdc_row(cov: McdcCoverage, infeasible: Collection[tuple[int, int]] = ()) -> McdcRow:
    """The row of `cov`; the conditions without a pair at the `infeasible` places
    (line, column) are listed as infeasible."""
    missing = [_gap(c) for c in cov.missing]
    return McdcRow(cov.decisions_total, cov.conditions_total, cov.conditions_shown,
                   tuple(_gap(c) for c in cov.conditions if c.form == MASKING),
                   tuple(g for g in missing if (g.line, g.column) not in infeasible),
                   cov.not_measured,
                   tuple(g for g in missing if (g.line, g.column) in infeasible))


def with_mcdc(rows: Sequence[Row], files: Mapping[str, McdcFile]) -> list[Row]:
    """`rows` with the MC/DC of the functions of the units in `files` (by the unit as
    the table shows it); the rows of other units are left without."""
    measured = {source: f.coverage() for source, f in files.items()}
    out = []
    for r in rows:
        cov = measured.get(r.file, {}).get(r.function)
        out.append(replace(r, mcdc=mcdc_row(cov, set(r.mcdc_infeasible)))
                   if cov is not None else r)
    return out


def mcdc_cell(m: McdcRow | None) -> str:
    """The function's MC/DC as the tables show it: `-` when it has nothing to cover."""
    if m is None or not m.conditions_total:
        return "-"
    return f"{100.0 * m.conditions_covered / m.conditions_total:.1f}%"


def mcdc_notes(m: McdcRow | None) -> str:
    """What the stop column of the terminal table adds for the MC/DC of a function."""
    if m is None:
        return ""
    if m.not_measured:
        return f" (MC/DC not measured: {m.not_measured})"
    if m.masking:
        return f" (MC/DC by masking: {', '.join(f'{g.where} {g.condition}' for g in m.masking)})"
    return ""


def mcdc_infeasible(m: McdcRow | None) -> str:
    """The conditions proved to have no pair, for the unreachable column."""
    if m is None or not m.infeasible:
        return ""
    return ", ".join(f"MC/DC {g.where} {g.condition}" for g in m.infeasible)


def mcdc_missing(m: McdcRow | None) -> str:
    """The conditions without an independence pair, for `term-missing`."""
    if m is None or not m.not_covered:
        return ""
    return "; MC/DC no pair for " + ", ".join(f"{g.where} {g.condition}"
                                                for g in m.not_covered)


# ------------------------------------------------------------------ Cobertura attributes

_TAG = re.compile(r"<(coverage|class|method)\b([^>]*?)(/?)>")


def _attributes(rows: Sequence[McdcRow]) -> str:
    """MC/DC attributes of a Cobertura element summing `rows`: conditions valid and
    covered, and the rate when there is something to cover."""
    total = sum(m.conditions_total for m in rows)
    covered = sum(m.conditions_covered for m in rows)
    rate = f' mcdc-rate="{round(covered / total, 4)}"' if total else ""
    return f'{rate} mcdc-conditions-covered="{covered}" mcdc-conditions-valid="{total}"'


def _attribute(attributes: str, name: str) -> str:
    found = re.search(rf'\b{name}="([^"]*)"', attributes)
    return html.unescape(found.group(1)) if found else ""


def cobertura_with_mcdc(xml: str, rows: Sequence[Row], units: Mapping[str, str]) -> str:
    """gcovr's Cobertura `xml` with MC/DC attributes (`mcdc-rate`, `mcdc-conditions-valid`,
    `mcdc-conditions-covered`) on the root, on each class (a unit) and on each method (a
    function) that `rows` measured; `units` is the unit each class's `filename` names, as
    the table shows it."""
    measured = [r for r in rows if r.mcdc is not None]
    by_function = {(r.file, r.function): r.mcdc for r in measured if r.mcdc is not None}
    unit = ""

    def tagged(match: re.Match[str]) -> str:
        nonlocal unit
        kind, attributes, empty = match.groups()
        if kind == "coverage":
            mine = [r.mcdc for r in measured if r.mcdc is not None]
        elif kind == "class":
            unit = units.get(_attribute(attributes, "filename"), "")
            mine = [r.mcdc for r in measured if r.file == unit and r.mcdc is not None]
        else:
            found = by_function.get((unit, _attribute(attributes, "name")))
            mine = [found] if found is not None else []
        if not mine:
            return match.group(0)
        return f"<{kind}{attributes}{_attributes(mine)}{empty}>"

    return _TAG.sub(tagged, xml)
