"""The MC/DC measurement of one unit as plain data: its functions, its decisions and the
evaluations the cases that ran recorded. MC/DC is computed from the union of the
evaluations (coverage/mcdc.py), so the measurements of several processes that ran
different cases of the same unit (pytest-xdist workers) merge by joining their
evaluations; `to_json` is what a worker sends to the controller."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import SourceLocation
from ..frontend.decisions import BoolTree, Condition, Decision
from .mcdc import Evaluation, McdcCoverage, function_mcdc


@dataclass(frozen=True)
class McdcFile:
    """What the MC/DC measurement of the unit `source` (as the table shows it) found."""

    source: str
    functions: tuple[str, ...]  # those the unit file defines, in order
    decisions: tuple[Decision, ...]
    evaluations: frozenset[Evaluation]
    #: functions with decisions the instrumented copy leaves as they are, and why
    not_instrumented: Mapping[str, str] = field(default_factory=dict)

    def coverage(self) -> dict[str, McdcCoverage]:
        """MC/DC per function of the unit."""
        return function_mcdc(self.functions, self.decisions, self.evaluations,
                             self.not_instrumented)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "functions": list(self.functions),
            "decisions": [_decision_to_json(d) for d in self.decisions],
            # each condition's value as 1, 0 or "-" (not evaluated)
            "evaluations": sorted([e.decision, "".join(_VALUE[v] for v in e.values),
                                   e.outcome] for e in self.evaluations),
            "not_instrumented": dict(self.not_instrumented),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> McdcFile:
        evaluations = frozenset(
            Evaluation(int(d), tuple(_READ[v] for v in values), bool(outcome))
            for d, values, outcome in doc["evaluations"])
        return cls(str(doc["source"]), tuple(doc["functions"]),
                   tuple(_decision_from_json(d) for d in doc["decisions"]), evaluations,
                   dict(doc.get("not_instrumented", {})))


def merge_mcdc_files(files: Iterable[McdcFile]) -> dict[str, McdcFile]:
    """The measurements of the same units by several processes, by unit: the evaluations
    of each unit joined."""
    merged: dict[str, McdcFile] = {}
    for f in files:
        known = merged.get(f.source)
        merged[f.source] = f if known is None else McdcFile(
            known.source, known.functions, known.decisions,
            known.evaluations | f.evaluations, known.not_instrumented)
    return merged


_VALUE = {True: "1", False: "0", None: "-"}
_READ = {text: value for value, text in _VALUE.items()}


def _location(doc: list[Any]) -> SourceLocation:
    return SourceLocation(str(doc[0]), int(doc[1]), int(doc[2]))


def _tree_from_json(doc: Any) -> BoolTree:
    if isinstance(doc, int):
        return doc
    if doc[0] == "!":
        return ("!", _tree_from_json(doc[1]))
    return (str(doc[0]), _tree_from_json(doc[1]), _tree_from_json(doc[2]))


def _decision_to_json(d: Decision) -> dict[str, Any]:
    return {"id": d.id, "function": d.function,
            "location": [d.location.file, d.location.line, d.location.column],
            "text": d.text, "tree": d.tree,
            "conditions": [[c.text, [c.location.file, c.location.line, c.location.column]]
                           for c in d.conditions]}


def _decision_from_json(doc: Mapping[str, Any]) -> Decision:
    conditions = tuple(Condition(k, str(text), _location(where))
                       for k, (text, where) in enumerate(doc["conditions"]))
    return Decision(int(doc["id"]), str(doc["function"]), _location(doc["location"]),
                    str(doc["text"]), conditions, _tree_from_json(doc["tree"]))
