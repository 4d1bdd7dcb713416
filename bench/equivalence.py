"""`python -m bench.equivalence DIR`: which surviving mutants of a mutation run
(`python -m bench.mutation ... --out DIR`) are equivalent to their function, proved with
pytest-ctgen's own generator, and an input that tells each other one apart (see
bench/README.md, "Mutation score"). `python -m bench.mutation ... --equivalence` runs the
same check on each file right after its mutants.

For each survivor of a function the miter is sound for (bench/miter.py), the check writes
the miter unit into the run's work directory (never beside the inputs), generates cases
for the miter function alone with a larger work budget than the plugin's default, and
reads what the generator found of the miter's `if (differ)`:

- **equivalent**: its true outcome is proved unreachable (the generator reports an
  outcome unreachable only when it explored every path, stop reason `exhausted`);
- **equivalent where the original is defined**: every path was explored, and only
  findings (undefined behaviour) of the original leave the outcome unproved. The miter
  is generated again with a sentinel, an `if` before the calls that no input takes,
  which the generator reports unreachable only when what it reports is proved;
- **distinguishable**: a case reaches it. The case is run natively (the miter's export,
  gcc -O0): the original and the mutant in one program on the case's inputs. When the
  native miter does not return 1, the generator's case is wrong: **miter case not
  confirmed**;
- **distinguishable (undefined behaviour)**: a case of the miter runs into undefined
  behaviour in the mutant (a finding) where the original has none;
- **unknown**: none of these (a bound, the work budget, the original's undefined
  behaviour where that is not enough, reading past the miter's copy of an object);
- **not checked**: the miter would not be sound for the function, or does not build.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_ctgen.cases import (
    STOP_EXHAUSTED, ArrayValue, BytesValue, Case, FileCases, FilledBytesValue, FloatValue,
    FunctionCases, IntValue, PointerValue, RecordValue, UnsetValue, Value)
from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.codegen.export import write_export
from pytest_ctgen.errors import CtgenError
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import Program, lower_unit
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file

from .miter import Checkable, MiterError, MiterUnit, checkable, miter_unit
from .mutants import Mutant, mutants

if TYPE_CHECKING:  # bench.mutation imports this module
    from .mutation import MutantResult

EQUIVALENT = "equivalent"
EQUIVALENT_DEFINED = "equivalent where the original is defined"
DISTINGUISHABLE = "distinguishable"
DISTINGUISHABLE_UB = "distinguishable (undefined behaviour)"
NOT_CONFIRMED = "miter case not confirmed"
UNKNOWN = "unknown"
NOT_CHECKED = "not checked"
#: The verdicts, in the order a report lists them.
VERDICTS = (EQUIVALENT, EQUIVALENT_DEFINED, DISTINGUISHABLE, DISTINGUISHABLE_UB,
            NOT_CONFIRMED, UNKNOWN, NOT_CHECKED)

#: The work budget of a miter's generation, in pytest-ctgen's units (--ctgen-work): ten
#: times the plugin's default, as a miter runs two functions on every path.
DEFAULT_WORK = 1000.0
#: The time budget of a miter's generation (s): a safety net far above what the work
#: budget takes (about 130 s on a quiet machine), so that the work budget (deterministic)
#: is what stops a generation.
DEFAULT_TIMEOUT = 600.0

_CASE_LINE = re.compile(r"^(PASS|FAIL) (\S+?\[[^\]\s]+\])(?:: (.*))?$", re.MULTILINE)


@dataclass
class Verdict:
    """What the check found of one surviving mutant."""

    verdict: str  # one of VERDICTS
    detail: str = ""  # the reason, the finding, the stop reason
    inputs: str = ""  # a distinguishing case's inputs and both results
    seconds: float = 0.0
    miter: str = ""  # the miter unit's path


class UnitChecks:
    """A unit whose survivors are checked: its text, lowered program and what is known of
    each of its functions."""

    def __init__(self, path: Path, cflags: list[str]) -> None:
        self.path = path
        self.cflags = cflags
        self.text = path.read_text(encoding="utf-8", errors="surrogateescape")
        self.error = ""
        self.program: Program | None = None
        try:
            self.program = lower_unit(load_unit(path, cflags))
        except CtgenError as err:
            self.error = f"the unit does not load: {err}"
        self.checks: dict[str, Checkable] = {}

    def check(self, name: str) -> Checkable:
        assert self.program is not None
        if name not in self.checks:
            self.checks[name] = checkable(self.program, name)
        return self.checks[name]


def find_mutant(text: str, function: str, line: int, operator: str, mutant_line: int,
                original: str, replacement: str, column: int = 0) -> Mutant | None:
    """The mutant of `function` (its name on `line`) a mutation run describes, found again
    in the unit's `text`; None when there is not exactly one."""
    found = [m for m in mutants(text, function, line)
             if (m.operator, m.line, m.original, m.replacement) ==
             (operator, mutant_line, original, replacement) and
             (not column or m.start - text.rfind("\n", 0, m.start) == column)]
    return found[0] if len(found) == 1 else None


def shown_value(v: Value) -> str:
    """A case's value as the report shows it."""
    if isinstance(v, IntValue):
        names = [n for n, value in (v.form.enumerators if v.form else ()) if value == v.value]
        return names[0] if names else str(v.value)
    if isinstance(v, FloatValue):
        return "NaN" if v.is_nan else repr(v.value) if v.size == 8 else \
            (v.shortest_text() if abs(v.value) != float("inf") else repr(v.value))
    if isinstance(v, RecordValue):
        return "{" + ", ".join(f"{n}={shown_value(x)}" for n, x in v.fields) + "}"
    if isinstance(v, ArrayValue):
        return "[" + ", ".join(shown_value(x) for x in v.elements) + "]"
    if isinstance(v, BytesValue):
        return "bytes " + v.data.hex()
    if isinstance(v, FilledBytesValue):
        return f"{v.size} bytes of {v.fill:#x} but {dict(v.at)}"
    if isinstance(v, PointerValue):
        return "NULL" if v.target is None else f"&{v.target}+{v.offset}"
    if isinstance(v, UnsetValue):
        return "unset"
    return str(v)


def _inputs(case: Case, mu: MiterUnit) -> str:
    """A distinguishing case as a report shows it: its inputs, then both results."""
    own = {mu.miter, *(mu.results or ()), *(k for _, k in mu.compared),
           *(c for _, c1, c2 in mu.objects for c in (c1, c2))}
    pointers = {p for p, _, _ in mu.objects}
    values = {b.name: b.value for b in case.params}
    parts = []
    for b in (*case.params, *case.globals):
        if b.name in own or (b.name.endswith("__null") and
                             b.name.removesuffix("__null") in pointers):
            continue
        if b.name in pointers:
            null = values.get(f"{b.name}__null")
            if isinstance(null, IntValue) and null.value:
                parts.append(f"{b.name}=NULL")
                continue
            if isinstance(b.value, RecordValue) and b.value.fields:
                parts.append(f"*{b.name}={shown_value(b.value.fields[0][1])}")
                continue
        parts.append(f"{b.name}={shown_value(b.value)}")
    text = ", ".join(parts) or "no inputs"
    after = {b.name: b.value for b in case.expected.globals}
    shown = []
    if mu.results is not None and all(r in after for r in mu.results):
        shown.append(f"original {shown_value(after[mu.results[0]])}, "
                     f"mutant {shown_value(after[mu.results[1]])}")
    for g, kept in mu.compared:
        if g in after and kept in after and after[g] != after[kept]:
            shown.append(f"{g}: original {shown_value(after[kept])}, "
                         f"mutant {shown_value(after[g])}")
    for p, copy1, copy2 in mu.objects:
        one, two = after.get(copy1), after.get(copy2)
        if isinstance(one, RecordValue) and isinstance(two, RecordValue) and one != two:
            shown.append(f"*{p}: original {shown_value(one.fields[0][1])}, "
                         f"mutant {shown_value(two.fields[0][1])}")
    return text + (" -> " + "; ".join(shown) if shown else "")


def _line_of(at: str) -> int:
    """The line of a location "file:line:col" (or "file:line")."""
    parts = at.rsplit(":", 2)
    for part in parts[1:]:
        if part.isdigit():
            return int(part)
    return 0


def _run_native(fc: FileCases, case: Case, miter_path: Path, cflags: list[str], out: Path,
                timeout: float) -> tuple[str, str]:
    """Build the miter unit with the export's driver (gcc, its Makefile's -O0) and run
    `case`: "confirmed" (the miter returned 1 natively), "refuted" (it did not, or the
    run crashed or hung where the generator predicts it returns) or "failed" (no run);
    and the driver's failure message ("" if the case passed)."""
    fn = next(f for f in fc.functions if f.name == case.function)
    one = replace(fc, functions=(replace(fn, cases=(case,)),))
    export = write_export(one, miter_path, out, cflags, base_dir=miter_path.parent,
                          force=True)
    build = subprocess.run(["make", "-s", "-C", str(export), "build"], capture_output=True,
                           text=True, errors="replace", check=False)
    if build.returncode != 0:
        lines = [ln for ln in build.stderr.splitlines() if "error" in ln] or ["?"]
        return "failed", f"the driver does not build: {lines[0].strip()}"
    try:
        run = subprocess.run(["./ctgen_driver"], cwd=export, capture_output=True, text=True,
                             errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "refuted", "the driver timed out"
    for m in _CASE_LINE.finditer(run.stdout):
        if m.group(1) == "PASS":
            return "confirmed", ""
        message = m.group(3) or ""
        # the return value is the miter's verdict; another prediction (a result, a global)
        # may be off while the two still differ natively
        refuted = "return:" in message or "crashed" in message or "timed out" in message
        return ("refuted" if refuted else "confirmed"), message
    return "failed", f"no result from the driver: {run.stdout[-200:]!r}"


#: What `_verdict` says of a miter that may be "equivalent where the original is defined"
#: when generated without its sentinel: generate it again with it.
_ASK_AGAIN = "ask again with the sentinel"


def _verdict(fn: FunctionCases, mu: MiterUnit, check: Checkable
             ) -> tuple[str, str, Case | None]:
    """The verdict the generation of the miter gives, before any native run: the verdict,
    its detail, and the case that tells the two apart (if any)."""
    if fn.skip_reason:
        return NOT_CHECKED, f"the generator skips the miter: {fn.skip_reason}", None
    ub_mutant: list[tuple[Case, str]] = []
    ub_other: list[tuple[str, str]] = []
    assert_mutant: list[tuple[Case, str]] = []
    for case in fn.cases:
        for v in case.violations:
            line = _line_of(v.at)
            region = mu.region(line)
            past = v.kind == "undefined" and \
                any(c in v.detail for _, c1, c2 in mu.objects for c in (c1, c2))
            if v.kind == "undefined" and region == "mutant" and not past:
                ub_mutant.append((case, f"{v.detail} (line {line} of the miter unit)"))
            elif v.kind == "undefined":
                where = f"line {mu.unit_line(line)}" if region == "unit" else region
                # past the miter's copy of an object (of either): defined on a larger
                # object, so a bound of the check, not undefined behaviour
                ub_other.append(("bound" if past else region, f"{v.detail} ({where})"))
            elif v.kind == "assert" and region == "mutant":
                # an __rtt_assert the original keeps on these inputs fails in the mutant
                assert_mutant.append((case, f"violates __rtt_assert({v.detail})"))
    hits = [c for c in fn.cases if c.finding is None and c.expected.ending is None and
            c.expected.returns == IntValue(1)]
    if hits:
        return DISTINGUISHABLE, "; ".join(hits[0].notes), hits[0]
    if ub_mutant:
        case, finding = ub_mutant[0]
        return DISTINGUISHABLE_UB, f"undefined behaviour in the mutant: {finding}", case
    if assert_mutant:
        case, violation = assert_mutant[0]
        return DISTINGUISHABLE, f"the mutant {violation} (not run natively)", case
    goal_unreachable = any(o.line == mu.goal and o.label == "true" for o in fn.unreachable)
    if goal_unreachable and fn.stop_reason == STOP_EXHAUSTED and not ub_other:
        return EQUIVALENT, "", None
    # the generator explored every path (what it reports is proved: the outcome before
    # the calls that no input takes is unreachable) and only findings of the original
    # leave the goal unproved: on every input where the original is defined, the two
    # are alike, and no case on another input passes on the unit
    goal_left = any(o.line == mu.goal and o.label == "true" for o in fn.not_reached)
    if goal_left and ub_other and not check.pointer_inputs and \
            all(region == "original" for region, _ in ub_other):
        if not mu.sentinel:
            return _ASK_AGAIN, "", None
        if any(o.line == mu.sentinel and o.label == "true" for o in fn.unreachable):
            findings = sorted({text for _, text in ub_other})
            return EQUIVALENT_DEFINED, f"the original: {'; '.join(findings[:3])}", None
    detail = f"stopped: {fn.stop_reason}"
    if ub_other:
        # a bound of the check first: it is what a larger object would remove
        region, text = min(ub_other, key=lambda rt: rt[0] != "bound")
        if region == "bound":
            detail += f"; reads or writes past the miter's object: {text}"
        else:
            who = {"original": "the original", "unit": "a function both call"}.get(region,
                                                                                   region)
            detail += f"; undefined behaviour in {who}: {text}"
    return UNKNOWN, detail, None


def _generate(mu: MiterUnit, path: Path, cflags: list[str], work_units: float,
              timeout: float) -> tuple[FileCases, FunctionCases] | str:
    """Write the miter unit `mu` at `path` and generate the cases of its miter: the file's
    cases and the miter's, or why there are none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(mu.text, encoding="utf-8", errors="surrogateescape")
    syntax = subprocess.run(["gcc", "-fsyntax-only", "-w", "-idirafter", str(harness_dir()),
                             *cflags, str(path)],
                            capture_output=True, text=True, errors="replace", check=False)
    if syntax.returncode != 0:
        errors = [ln for ln in syntax.stderr.splitlines() if "error" in ln] or ["?"]
        return f"the miter does not compile: {errors[0].strip()}"
    options = Options(cflags=tuple(cflags), functions=(mu.miter,), work=work_units,
                      timeout=timeout, boundary_cases="off", regenerate=True)
    try:
        generated = generate_file(path, path.name, options, cache_dir=None)
    except CtgenError as err:
        return f"the generator rejects the miter: {err}"
    assert generated is not None
    cases = next((f for f in generated.cases.functions if f.name == mu.miter), None)
    if cases is None:
        return "the generator reports no miter"
    return generated.cases, cases


def check_mutant(unit: UnitChecks, function: str, mutant: Mutant | None, work: Path,
                 work_units: float, timeout: float, run_timeout: float) -> Verdict:
    """The verdict on one surviving `mutant` of `function` of `unit`; the miter unit and its
    export are written under `work`."""
    start = time.monotonic()
    if unit.program is None:
        return Verdict(NOT_CHECKED, unit.error)
    if mutant is None:
        return Verdict(NOT_CHECKED, "the mutant is not found in the unit's text")
    check = unit.check(function)
    if check.reason:
        return Verdict(NOT_CHECKED, check.reason)
    fn = unit.program.unit.functions[function]
    # the unit's own directory for its "..." includes: the miter unit is elsewhere
    cflags = [*unit.cflags, f"-iquote{unit.path.parent.resolve()}"]
    path = work / f"{unit.path.stem}.miter.c"
    for sentinel in (False, True):
        try:
            mu = miter_unit(unit.text, unit.program, check, mutant, fn.location.line,
                            sentinel)
        except MiterError as err:
            return Verdict(NOT_CHECKED, str(err))
        generated = _generate(mu, path, cflags, work_units, timeout)
        if isinstance(generated, str):
            return Verdict(NOT_CHECKED, generated, seconds=time.monotonic() - start,
                           miter=str(path))
        fc, cases = generated
        verdict, detail, case = _verdict(cases, mu, check)
        if verdict != _ASK_AGAIN:
            break
        path = work / "sentinel" / path.name
    inputs = _inputs(case, mu) if case is not None else ""
    if verdict == DISTINGUISHABLE and case is not None and case.expected.ending is None:
        status, message = _run_native(fc, case, path, cflags, work / "export", run_timeout)
        if status == "refuted":
            verdict = NOT_CONFIRMED
            detail = f"the native run: {message}"
        elif status == "failed":
            verdict = UNKNOWN
            detail = f"a case reaches the difference, but it does not run natively: {message}"
        elif message:
            detail = "; ".join(filter(None, [detail, f"confirmed, but the driver: {message}"]))
    return Verdict(verdict, detail, inputs, time.monotonic() - start, str(path))


def check_survivors(results: Sequence[MutantResult], unit_path: Path, cflags: list[str], work: Path,
                    work_units: float = DEFAULT_WORK, timeout: float = DEFAULT_TIMEOUT,
                    run_timeout: float = 60.0, log: bool = True) -> None:
    """Give every surviving mutant among `results` (bench.mutation.MutantResult, all of the
    unit at `unit_path`) its verdict, in place."""
    survivors = [r for r in results if r.outcome == "survived"]
    if not survivors:
        return
    unit = UnitChecks(unit_path, cflags)
    for index, r in enumerate(survivors):
        mutant = None
        if unit.program is not None and r.function in unit.program.unit.functions:
            line = unit.program.unit.functions[r.function].location.line
            mutant = find_mutant(unit.text, r.function, line, r.operator, r.line,
                                 r.original, r.replacement, r.column)
        try:
            v = check_mutant(unit, r.function, mutant,
                             work / f"{index:03d}_{r.function}", work_units, timeout,
                             run_timeout)
        except Exception as err:  # one mutant must not end the run
            v = Verdict(NOT_CHECKED, f"internal error of the check: {type(err).__name__}: "
                                     f"{err}")
        r.equivalence = v.verdict
        r.equivalence_detail = v.detail
        r.distinguishing = v.inputs
        r.equivalence_seconds = round(v.seconds, 2)
        r.miter = v.miter
        if log:
            print(f"  {r.file}::{r.function} line {r.line} {r.original!r} -> "
                  f"{r.replacement!r}: {v.verdict} ({v.seconds:.1f} s)"
                  f"{': ' + v.detail if v.detail else ''}", file=sys.stderr, flush=True)


def take_verdicts(results: Sequence[MutantResult], out: Path, other: Path) -> int:
    """Give each survivor of the run `out` without a verdict the verdict the run `other`
    has for the same mutant (file, function, place and change) of the same source text;
    how many were given."""
    from .mutation import MutantResult

    doc = json.loads((other / "mutation.json").read_text(encoding="utf-8"))

    def key(r: MutantResult) -> tuple[object, ...]:
        return (r.file, r.function, r.operator, r.line, r.column, r.original,
                r.replacement)

    def text(run: Path, file: str) -> bytes | None:
        path = run / "src" / file
        return path.read_bytes() if path.is_file() else None

    known = {key(r): r for r in (MutantResult(**m) for m in doc["mutants"])
             if r.equivalence}
    same: dict[str, bool] = {}
    taken = 0
    for r in results:
        if r.outcome != "survived" or r.equivalence or key(r) not in known:
            continue
        if r.file not in same:
            mine = text(out, r.file)
            same[r.file] = mine is not None and mine == text(other, r.file)
        if not same[r.file]:
            continue
        k = known[key(r)]
        r.equivalence, r.equivalence_detail = k.equivalence, k.equivalence_detail
        r.distinguishing, r.equivalence_seconds, r.miter = \
            k.distinguishing, k.equivalence_seconds, k.miter
        taken += 1
    return taken


def main(argv: list[str] | None = None) -> int:
    from .cli import group_of
    from .mutation import MutantResult, write_report

    parser = argparse.ArgumentParser(
        prog="python -m bench.equivalence",
        description="Prove surviving mutants of a mutation run equivalent, or find an input "
                    "that tells them apart, with pytest-ctgen's generator on a miter.")
    parser.add_argument("out", type=Path, metavar="DIR",
                        help="the --out directory of `python -m bench.mutation`")
    parser.add_argument("--work", type=float, default=DEFAULT_WORK,
                        help=f"work budget of each miter's generation (default {DEFAULT_WORK:g})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="safety-net time budget of each miter's generation (s)")
    parser.add_argument("--cflag", action="append", default=None, dest="cflags",
                        help="a compiler flag for every file (default: the mutation run's)")
    parser.add_argument("--redo", action="store_true",
                        help="check the survivors that have a verdict again")
    parser.add_argument("--verdicts-from", type=Path, metavar="OTHER",
                        help="take the verdict of each survivor from the mutation run OTHER "
                             "where it has one for the same mutant of the same source text "
                             "(a verdict depends on the mutant, not on the cases)")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    doc = json.loads((out / "mutation.json").read_text(encoding="utf-8"))
    results = [MutantResult(**m) for m in doc["mutants"]]
    if args.verdicts_from is not None:
        taken = take_verdicts(results, out, args.verdicts_from.resolve())
        print(f"{taken} verdicts taken from {args.verdicts_from}", file=sys.stderr)
    cflags = args.cflags if args.cflags is not None else doc.get("cflags", [])
    files = list(dict.fromkeys(r.file for r in results))
    groups = doc.get("groups") or {f: group_of(out / "src" / f, f)
                                   for f in dict.fromkeys([*files, *doc["errors"]])}
    start = time.monotonic()
    for index, file in enumerate(files):
        todo = [r for r in results if r.file == file and r.outcome == "survived" and
                (args.redo or not r.equivalence)]
        if not todo:
            continue
        print(f"{file}: {len(todo)} survivors", file=sys.stderr, flush=True)
        check_survivors(todo, out / "src" / file, cflags,
                        out / "equivalence" / f"{index:03d}_{Path(file).stem}", args.work,
                        args.timeout)
        write_report(out, results, doc["cases"], doc["errors"], groups, cflags)
    write_report(out, results, doc["cases"], doc["errors"], groups, cflags)
    print(f"checked in {time.monotonic() - start:.0f} s; see {out / 'mutation.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
