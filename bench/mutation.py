"""`python -m bench.mutation PATH... --out DIR`: how many mutants of each function the
generated cases kill (see bench/README.md, "Mutation score").

For every C file under the paths: generate its cases (`ctgen_side.generate`, the plugin's
defaults), export them (DESIGN §2), run the exported driver on the unit as it is (the
baseline: which cases pass), then build the same driver on each mutant of each function
(`make build UNIT_SRC=mutant.c`, bench/mutants.py) and run it. A mutant is killed when a
case that passes on the unit fails on it (a wrong value, a crash, a timeout); it survives
when every such case still passes; a mutant gcc rejects does not count."""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from pytest_ctgen.cases import FileCases
from pytest_ctgen.codegen.export import write_export
from pytest_ctgen.export_files import UNIT_COPY

from . import ctgen_side
from .cli import _copy_sources, group_of
from .equivalence import (
    DEFAULT_TIMEOUT, DEFAULT_WORK, EQUIVALENT, EQUIVALENT_DEFINED, NOT_CONFIRMED, VERDICTS,
    check_survivors)
from .mutants import Mutant, definition_line, mutants

_CASE_LINE = re.compile(r"^(PASS|FAIL) (\S+?\[[^\]\s]+\])", re.MULTILINE)  # f[REQ-1:case2]
_SUMMARY = re.compile(r"^\d+ passed, \d+ failed\s*$", re.MULTILINE)


@dataclass
class MutantResult:
    file: str
    function: str
    operator: str
    line: int
    original: str
    replacement: str
    outcome: str  # "killed", "survived", "not compiling"
    killed_by: str = ""  # the first case that failed on it, or "timeout"/"crash"
    column: int = 0  # of the replaced token, 1-based (0: not recorded)
    # a survivor's verdict of the equivalence check (bench/equivalence.py), "" before it:
    # what the check found, why (the reason, the finding), a distinguishing case's inputs
    # and both results, how long the check took, the miter unit it wrote
    equivalence: str = ""
    equivalence_detail: str = ""
    distinguishing: str = ""
    equivalence_seconds: float = 0.0
    miter: str = ""


def run_driver(export: Path, unit: Path, timeout: float) -> dict[str, bool] | str | None:
    """Build the export's driver on `unit` and run it: each case's name and whether it
    passed; "build" when gcc rejects the unit; None when the run did not finish (a
    timeout, or a crash of the driver itself)."""
    build = subprocess.run(["make", "-s", "-C", str(export), "build", f"UNIT_SRC={unit}"],
                           capture_output=True, text=True, errors="replace", check=False)
    if build.returncode != 0:
        return "build"
    try:
        run = subprocess.run(["./ctgen_driver"], cwd=export, capture_output=True, text=True,
                             errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None
    if not _SUMMARY.search(run.stdout):
        return None
    return {m.group(2): m.group(1) == "PASS" for m in _CASE_LINE.finditer(run.stdout)}


def _verdict(baseline: dict[str, bool], outcome: dict[str, bool] | str | None
             ) -> tuple[str, str]:
    if outcome == "build":
        return "not compiling", ""
    if outcome is None or isinstance(outcome, str):
        return "killed", "timeout or crash of the driver"
    for case, passed in baseline.items():
        if passed and not outcome.get(case, False):
            return "killed", case
    return "survived", ""


def _spread(items: list[Mutant], limit: int) -> list[Mutant]:
    """At most `limit` of `items` (0: all), evenly spread, the same every run."""
    if not limit or len(items) <= limit:
        return items
    return [items[i * len(items) // limit] for i in range(limit)]


def mutate_file(fc: FileCases, unit: Path, display: str, cflags: list[str], work: Path,
                per_function: int, run_timeout: float) -> tuple[list[MutantResult], str]:
    """Every function's mutants of `unit`, run against its exported cases; and an error
    that kept the file from being measured ("" when none)."""
    export = write_export(fc, unit, work / "export", cflags, base_dir=unit.parent, force=True)
    # a unit with annotations or specifications is compiled from its copy (unit_copy.py):
    # the mutants are made of the copy, where the driver includes it
    copy = export / UNIT_COPY
    source = copy if copy.is_file() else unit
    baseline = run_driver(export, source.resolve(), run_timeout)
    if not isinstance(baseline, dict):
        return [], f"the exported driver does not run on the unit ({baseline})"
    text = source.read_text(encoding="utf-8", errors="surrogateescape")
    mutant_path = source.with_name(f"{source.stem}.ctgen_mutant.c")  # beside it: includes
    results: list[MutantResult] = []
    try:
        for fn in fc.functions:
            if not fn.cases:
                continue
            line = definition_line(text, fn.name) if source is copy else fn.line
            if line is None:
                continue
            shift = line - fn.line  # the lines of the copy's header
            for m in _spread(mutants(text, fn.name, line), per_function):
                mutant_path.write_text(m.apply(text), encoding="utf-8",
                                       errors="surrogateescape")
                outcome, by = _verdict(baseline,
                                       run_driver(export, mutant_path.resolve(), run_timeout))
                column = m.start - text.rfind("\n", 0, m.start)
                results.append(MutantResult(display, fn.name, m.operator, m.line - shift,
                                            m.original, m.replacement, outcome, by, column))
    finally:
        mutant_path.unlink(missing_ok=True)
    return results, ""


def _score(results: list[MutantResult]) -> tuple[int, int, str]:
    compiling = [r for r in results if r.outcome != "not compiling"]
    killed = sum(r.outcome == "killed" for r in compiling)
    share = f"{100 * killed / len(compiling):.1f}%" if compiling else "-"
    return len(compiling), killed, share


def _adjusted(results: list[MutantResult], strict: bool = False) -> str:
    """The score over the mutants not proved equivalent: killed / (compiling - equivalent);
    `strict`: only those proved equivalent on every input count as equivalent, not those
    proved equivalent where the original is defined."""
    n, k, _ = _score(results)
    left = n - sum(r.equivalence == EQUIVALENT or
                   (not strict and r.equivalence == EQUIVALENT_DEFINED) for r in results)
    return f"{100 * k / left:.1f}%" if left else "-"


def _verdict_counts(results: list[MutantResult]) -> list[int]:
    return [sum(r.outcome == "survived" and r.equivalence == v for r in results)
            for v in VERDICTS]


def write_report(out: Path, results: list[MutantResult], cases: dict[str, int],
                 errors: dict[str, str], groups: dict[str, str],
                 cflags: list[str] | None = None) -> None:
    """`out/mutation.json` (every mutant) and `out/mutation.md` (scores and survivors; with
    the equivalence check's verdicts on the survivors once they have any)."""
    (out / "mutation.json").write_text(json.dumps(
        {"mutants": [asdict(r) for r in results], "cases": cases, "errors": errors,
         "cflags": cflags or [], "groups": groups}, indent=1), encoding="utf-8")
    checked = any(r.equivalence for r in results)
    compiling, killed, share = _score(results)
    survivors = [r for r in results if r.outcome == "survived"]
    lines = ["# Mutation score of the generated cases", "",
             f"{killed} of {compiling} compiling mutants killed ({share}); "
             f"{sum(cases.values())} cases; "
             f"{sum(r.outcome == 'not compiling' for r in results)} mutants did not compile."]
    if checked:
        counts = _verdict_counts(results)
        equivalent = counts[0] + counts[1]
        lines += ["", f"Equivalence check of the {len(survivors)} surviving mutants "
                      "(bench/equivalence.py): " +
                  ", ".join(f"{n} {v}" for v, n in zip(VERDICTS, counts)) +
                  (f", {len(survivors) - sum(counts)} without a verdict"
                   if len(survivors) > sum(counts) else "") + ".",
                  "", f"Score over the mutants not proved equivalent: {killed} of "
                      f"{compiling - equivalent} ({_adjusted(results)}); counting only "
                      f"those equivalent on every input: {killed} of "
                      f"{compiling - counts[0]} ({_adjusted(results, strict=True)}).",
                  "", f"The check took {sum(r.equivalence_seconds for r in results):.0f} s."]
        unconfirmed = [r for r in survivors if r.equivalence == NOT_CONFIRMED or
                       "confirmed, but the driver" in r.equivalence_detail]
        if unconfirmed:
            lines += ["", "## Miter cases not confirmed natively, or with a prediction the "
                          "native run does not meet (generator bugs)", ""]
            lines += [f"- {r.file}::{r.function} line {r.line}: `{r.original}` -> "
                      f"`{r.replacement}` ({r.operator}): {r.distinguishing}; "
                      f"{r.equivalence_detail}; miter unit {r.miter}" for r in unconfirmed]
    extra = " equivalent | adjusted |" if checked else ""
    lines += ["", f"| group | mutants | killed | score |{extra} cases |",
              "|---|---|---|---|" + ("---|---|" if checked else "") + "---|"]
    for group in sorted(set(groups.values())):
        files = {f for f, g in groups.items() if g == group}
        mine = [r for r in results if r.file in files]
        n, k, s = _score(mine)
        counts = _verdict_counts(mine)
        more = f" {counts[0] + counts[1]} | {_adjusted(mine)} |" if checked else ""
        lines.append(f"| {group} | {n} | {k} | {s} |{more} "
                     f"{sum(c for key, c in cases.items() if key.split('::')[0] in files)} |")
    ops = Counter(r.operator for r in results if r.outcome != "not compiling")
    if checked:
        lines += ["", "| operator | mutants | killed | score | survived | " +
                  " | ".join(VERDICTS) + " | adjusted |", "|---" * (6 + len(VERDICTS)) + "|"]
    else:
        lines += ["", "| operator | mutants | killed | score |", "|---|---|---|---|"]
    for op in sorted(ops):
        mine = [r for r in results if r.operator == op]
        n, k, s = _score(mine)
        if checked:
            counts = _verdict_counts(mine)
            lines.append(f"| {op} | {n} | {k} | {s} | {sum(r.outcome == 'survived' for r in mine)}"
                         f" | {' | '.join(map(str, counts))} | {_adjusted(mine)} |")
        else:
            lines.append(f"| {op} | {n} | {k} | {s} |")
    if checked:
        counts = _verdict_counts(results)
        lines.append(f"| all | {compiling} | {killed} | {share} | {len(survivors)} | "
                     f"{' | '.join(map(str, counts))} | {_adjusted(results)} |")
    lines += ["", "| function | cases | mutants | killed | score |", "|---|---|---|---|---|"]
    for key in sorted(cases):
        file, function = key.split("::")
        n, k, s = _score([r for r in results if r.file == file and r.function == function])
        lines.append(f"| {key} | {cases[key]} | {n} | {k} | {s} |")
    lines += ["", "## Surviving mutants", ""]
    for r in survivors:
        text = f"- {r.file}::{r.function} line {r.line}: `{r.original}` -> " \
               f"`{r.replacement}` ({r.operator})"
        if r.equivalence:
            text += f": **{r.equivalence}**"
            text += "".join(f"; {x}" for x in (r.distinguishing, r.equivalence_detail) if x)
        lines.append(text)
    if errors:
        lines += ["", "## Not measured", ""] + [f"- {f}: {e}" for f, e in sorted(errors.items())]
    (out / "mutation.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.mutation",
        description="How many mutants of each function of the C files under PATH the cases "
                    "pytest-ctgen generates for it kill, run through the exported driver.")
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    parser.add_argument("--out", type=Path, required=True, help="results directory")
    parser.add_argument("--per-function", type=int, default=0, metavar="N",
                        help="at most N mutants per function, evenly spread (default: all)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="pytest-ctgen's safety-net time budget per function (s)")
    parser.add_argument("--run-timeout", type=float, default=60.0,
                        help="the time one run of the driver may take (s)")
    parser.add_argument("--cflag", action="append", default=[], dest="cflags",
                        help="a compiler flag for every file (repeatable)")
    parser.add_argument("--equivalence", action="store_true",
                        help="check each surviving mutant for equivalence with a miter "
                             "(bench/equivalence.py)")
    parser.add_argument("--equivalence-work", type=float, default=DEFAULT_WORK,
                        metavar="UNITS",
                        help="work budget of each miter's generation "
                             f"(default {DEFAULT_WORK:g})")
    parser.add_argument("--equivalence-timeout", type=float, default=DEFAULT_TIMEOUT,
                        metavar="S",
                        help="safety-net time budget of each miter's generation (s)")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    results: list[MutantResult] = []
    cases: dict[str, int] = {}
    errors: dict[str, str] = {}
    groups: dict[str, str] = {}
    for index, (unit, display) in enumerate(_copy_sources(args.paths, out / "src")):
        work = out / "work" / f"{index:03d}_{unit.stem}"
        work.mkdir(parents=True, exist_ok=True)
        groups[display] = group_of(unit, display)
        generation = ctgen_side.generate(unit, display, args.cflags, work, args.timeout)
        if generation.cases is None:
            errors[display] = generation.error or "no cases"
            continue
        for fn in generation.cases.functions:
            if fn.cases:
                cases[f"{display}::{fn.name}"] = len(fn.cases)
        try:
            found, error = mutate_file(generation.cases, unit, display, args.cflags, work,
                                       args.per_function, args.run_timeout)
        except Exception as err:  # one file must not end the run
            found, error = [], f"{type(err).__name__}: {err}"
        results += found
        if error:
            errors[display] = error
        n, k, s = _score(found)
        print(f"{display}: {k} of {n} mutants killed ({s})", file=sys.stderr, flush=True)
        if args.equivalence:
            check_survivors(found, unit, args.cflags, work / "equivalence",
                            args.equivalence_work, args.equivalence_timeout,
                            args.run_timeout)
        write_report(out, results, cases, errors, groups, args.cflags)
    write_report(out, results, cases, errors, groups, args.cflags)
    n, k, s = _score(results)
    print(f"total: {k} of {n} compiling mutants killed ({s}); see {out / 'mutation.md'}")
    if args.equivalence:
        equivalent = sum(r.equivalence in (EQUIVALENT, EQUIVALENT_DEFINED) for r in results)
        print(f"{equivalent} survivors proved equivalent; score over the others: "
              f"{_adjusted(results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
