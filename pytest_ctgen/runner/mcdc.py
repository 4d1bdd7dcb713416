"""Measuring the MC/DC of a unit for a set of cases: the harness of the cases is built with
the unit's MC/DC-instrumented copy (frontend/mcdc_instrument.py) in place of the unit and
its runtime (c_harness/ctgen_mcdc.c) beside it; each case runs as the session runs it
(runner/execute.py), its decisions' evaluations recorded under its index; MC/DC per
function is computed from them (coverage/mcdc.py), as gcov's counts give lines and
branches. A case that stops in a loop stops there after the same iterations as in the
session's harness: the copy ticks the loops as the plain copy does
(frontend/loop_ticks.py)."""
from __future__ import annotations

import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..c_harness_files import MCDC_RUNTIME_SOURCE, harness_dir
from ..cases import FileCases, stopped_loops
from ..codegen.harness import generate_harness
from ..codegen.unit_copy import unit_copy_text
from ..coverage.mcdc import Evaluation, McdcCoverage, function_mcdc, read_records
from ..coverage.mcdc_file import McdcFile
from ..export_files import UNIT_COPY
from ..frontend.decisions import Decision
from ..frontend.loader import load_unit
from ..frontend.mcdc_instrument import InstrumentedUnit, instrument_unit
from .build import Build, HarnessLibrary, build_harness, load_library
from .execute import ISOLATE_FORK, CaseRun, run_case

_CONTROL = "void ctgen_mcdc_output(const char *path, int tag);"

#: A case by its function and its number.
CaseKey = tuple[str, int]


@dataclass(frozen=True)
class McdcMeasurement:
    """What the instrumented build recorded: each case's run and its evaluations."""

    instrumented: InstrumentedUnit
    runs: Mapping[CaseKey, CaseRun]
    evaluations: Mapping[CaseKey, frozenset[Evaluation]]

    @property
    def decisions(self) -> tuple[Decision, ...]:
        return self.instrumented.decisions

    def coverage(self, cases: Iterable[CaseKey] | None = None) -> dict[str, McdcCoverage]:
        """MC/DC per function of the unit, from the evaluations of `cases` (all by
        default)."""
        keys = self.evaluations.keys() if cases is None else cases
        seen = [e for key in keys for e in self.evaluations.get(key, ())]
        return function_mcdc(self.instrumented.functions, self.decisions, seen,
                             self.instrumented.not_instrumented)

    def as_file(self, source: str) -> McdcFile:
        """What every case recorded, as the plain data of the unit `source`."""
        return McdcFile(source, self.instrumented.functions, self.decisions,
                        frozenset(e for found in self.evaluations.values() for e in found),
                        dict(self.instrumented.not_instrumented))


def build_instrumented(unit: Path, cases: FileCases, instrumented: InstrumentedUnit,
                       cflags: Sequence[str] = (), *, sources: Sequence[Path] = (),
                       key_material: str = "", cache_dir: Path | None = None) -> Build:
    """The harness of `cases` built with the instrumented copy in place of `unit`."""
    copy = unit_copy_text(unit, str(unit), cases.stubs, cases.source,
                          text=instrumented.text)
    assert copy is not None  # a changed text always makes a copy
    source = generate_harness(cases, UNIT_COPY, [str(Path(p).resolve()) for p in sources])
    return build_harness(source, cflags=["-iquote", str(unit.parent), *cflags],
                         key_material=key_material + instrumented.text,
                         cache_dir=cache_dir, extra_files={UNIT_COPY: copy},
                         extra_sources=[harness_dir() / MCDC_RUNTIME_SOURCE],
                         prune_others=cache_dir is not None)


def _record_cases(lib: HarnessLibrary, cases: FileCases, records: Path, timeout: float,
                  isolate: str) -> dict[CaseKey, CaseRun]:
    """Run every case, its evaluations recorded in `records` under its index."""
    from cffi import FFI

    ffi = FFI()
    ffi.cdef(_CONTROL)
    control = ffi.dlopen(str(lib.path))  # the same loaded library: its runtime's state
    path = str(records).encode()
    runs: dict[CaseKey, CaseRun] = {}
    try:
        for index, case in enumerate(cases.all_cases()):
            control.ctgen_mcdc_output(path, index)
            runs[(case.function, case.number)] = run_case(lib, index, timeout, isolate)
    finally:
        control.ctgen_mcdc_output(ffi.NULL, -1)
    return runs


def run_mcdc(unit: Path, cases: FileCases, cflags: Sequence[str] = (), *,
             sources: Sequence[Path] = (), timeout: float = 5.0,
             isolate: str = ISOLATE_FORK, cache_dir: Path | None = None) -> McdcMeasurement:
    """Build the instrumented harness of `cases` and run each case of it (in a forked
    child by default, as the session does), recording its decisions' evaluations.

    Raises:
        CtgenError: the unit cannot be read or the harness not built (BuildError).
    """
    unit = Path(unit).resolve()
    loaded = load_unit(unit, list(cflags), probe=False)
    instrumented = instrument_unit(loaded, loops=stopped_loops(cases))
    build = build_instrumented(unit, cases, instrumented, cflags, sources=sources,
                               key_material=loaded.preprocessed, cache_dir=cache_dir)
    lib = load_library(build)
    with tempfile.TemporaryDirectory(prefix="ctgen-mcdc-") as tmp:
        records = Path(tmp) / "evaluations"
        records.touch()
        runs = _record_cases(lib, cases, records, timeout, isolate)
        by_tag = read_records(records.read_text(encoding="utf-8"), instrumented.decisions)
    keys = [(c.function, c.number) for c in cases.all_cases()]
    evaluations = {key: by_tag.get(index, frozenset()) for index, key in enumerate(keys)}
    return McdcMeasurement(instrumented, runs, evaluations)


def measure_mcdc(unit: Path, cases: FileCases, cflags: Sequence[str] = (), *,
                 sources: Sequence[Path] = (), timeout: float = 5.0,
                 isolate: str = ISOLATE_FORK, cache_dir: Path | None = None
                 ) -> dict[str, McdcCoverage]:
    """The MC/DC of each function defined in `unit` (compiled with `cflags`, with the
    user's implementations `sources`) when `cases` run, measured on the instrumented
    build. See run_mcdc."""
    return run_mcdc(unit, cases, cflags, sources=sources, timeout=timeout,
                    isolate=isolate, cache_dir=cache_dir).coverage()


def cases_that_ran(cases: FileCases, ran: Collection[CaseKey]) -> FileCases:
    """`cases` with only those in `ran`, so that MC/DC is measured on what gcov measured."""
    return replace(cases, functions=tuple(
        replace(f, cases=tuple(c for c in f.cases if (f.name, c.number) in ran))
        for f in cases.functions))
