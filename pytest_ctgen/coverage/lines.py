"""gcov's per-line data of a unit (what the control-flow pictures are coloured by): how often
each executable line ran and how often each of its branch outcomes was taken, summed over
the unit's harness builds."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .gcov import unit_tracefile


@dataclass(frozen=True)
class LineCoverage:
    """What gcov counted on one executable line of a unit: how often it ran, and how often
    each of its branch outcomes was taken (in gcov's branch-number order)."""

    line: int
    count: int
    branches: tuple[int, ...] = ()

    @property
    def taken(self) -> int:
        """The branch outcomes of the line taken at least once."""
        return sum(1 for n in self.branches if n > 0)


def line_coverage(*tracefiles: Mapping[str, Any]) -> dict[int, LineCoverage]:
    """Per line number, gcov's counts in a unit's tracefiles (`gcov.unit_tracefile`, one
    per build of the unit), summed; excluded and non-code lines and excluded outcomes are
    left out."""
    counts: dict[int, int] = {}
    branches: dict[int, dict[int, int]] = {}
    for entry in (e for doc in tracefiles for e in doc.get("files", [])):
        for ln in entry.get("lines", []):
            if ln.get("gcovr/excluded") or ln.get("gcovr/noncode"):
                continue
            number = int(ln["line_number"])
            counts[number] = counts.get(number, 0) + int(ln.get("count", 0))
            outs = branches.setdefault(number, {})
            for i, br in enumerate(ln.get("branches", [])):
                if br.get("gcovr/excluded"):
                    continue
                no = int(br.get("branchno", i))
                outs[no] = outs.get(no, 0) + int(br.get("count", 0))
    return {n: LineCoverage(n, counts[n], tuple(v for _, v in sorted(branches[n].items())))
            for n in sorted(counts)}


@dataclass(frozen=True)
class MeasuredUnit:
    """A unit's gcov data as gcovr tracefiles (absolute file names), one per build."""

    source: Path
    tracefiles: tuple[dict[str, Any], ...]

    def lines(self) -> dict[int, LineCoverage]:
        """gcov's counts per line, summed over the builds."""
        return line_coverage(*self.tracefiles)


def measure_unit(builds: Sequence[Path], source: Path,
                 gcov_executable: str | None = None) -> MeasuredUnit:
    """The gcov data of `source` in its harness builds `builds` (e.g. one per xdist
    worker that ran cases of it)."""
    return MeasuredUnit(Path(source).resolve(), tuple(
        unit_tracefile(build, source, gcov_executable) for build in builds))
