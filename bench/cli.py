"""`python -m bench PATH... --out DIR`: pytest-ctgen and libFuzzer side by side on every
function of every C file under the paths (see bench/README.md)."""
from __future__ import annotations

import argparse
import fnmatch
import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from . import ctgen_side, fuzz
from .fuzz_harness import HarnessError, fuzz_harness
from .manifest import has_manifest, infeasible_missing, manifest_for
from .report import write_reports

SOURCE_SUFFIXES = {".c", ".h", ".md", ".inc", ".def"}


def _copy_sources(paths: list[Path], src_root: Path) -> list[tuple[Path, str]]:
    """Copy every path's tree (sources only) under `src_root` (nothing is ever written
    where the inputs are); returns the C files to benchmark as (copy, display name)."""
    files: list[tuple[Path, str]] = []
    taken: set[str] = set()
    for path in paths:
        path = path.resolve()
        tree = path if path.is_dir() else path.parent
        name = tree.name or "root"
        while name in taken:
            name += "_"
        taken.add(name)
        dest = src_root / name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(tree, dest, ignore=lambda d, names: [
            n for n in names if not (Path(d, n).is_dir() or Path(n).suffix in SOURCE_SUFFIXES)])
        chosen = sorted(dest.rglob("*.c")) if path.is_dir() else [dest / path.name]
        files += [(f, f"{name}/{f.relative_to(dest).as_posix()}") for f in chosen]
    return files


def group_of(c_file: Path, display: str) -> str:
    """A corpus prefix (`annot_`, `ptr_`, ...) for files of a corpus with a MANIFEST.md,
    else the directory they are in (`examples/`)."""
    if has_manifest(c_file) and "_" in c_file.stem:
        return c_file.stem.split("_", 1)[0] + "_"
    parent = Path(display).parent.as_posix()
    return (parent or ".") + "/"


def _coverage_fields(cov: Any, infeasible: dict[int, int] | None) -> dict[str, Any]:
    if cov is None:
        return {"measured": False, "lines_total": 0, "lines_covered": 0, "branches_total": 0,
                "branches_covered": 0, "missing_lines": [], "missing_branches": [],
                "infeasible_missing": 0}
    return {"measured": True, "lines_total": cov.lines_total, "lines_covered": cov.lines_covered,
            "branches_total": cov.branches_total, "branches_covered": cov.branches_covered,
            "missing_lines": list(cov.missing_lines),
            "missing_branches": [list(b) for b in cov.missing_branches],
            "infeasible_missing": infeasible_missing(list(cov.missing_branches), infeasible)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Coverage, cases and time of pytest-ctgen and of libFuzzer on every "
                    "function of the C files under PATH, measured with gcov.")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.add_argument("--out", type=Path, required=True, help="results directory")
    parser.add_argument("--work", type=float, default=None,
                        help="pytest-ctgen's work budget per function, as --ctgen-work "
                             "(default: pytest-ctgen's)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="pytest-ctgen's safety-net time budget per function (s), as "
                             "--ctgen-timeout (default 60)")
    parser.add_argument("--min-fuzz-seconds", type=int, default=10,
                        help="libFuzzer runs as long as pytest-ctgen took, at least this "
                             "(default 10)")
    parser.add_argument("--fuzz-seconds", type=int, default=None,
                        help="a fixed libFuzzer budget per function instead")
    parser.add_argument("--fuzz-flag", action="append", default=[],
                        help="an extra libFuzzer flag, e.g. -use_value_profile=1")
    parser.add_argument("--no-fuzz", action="store_true", help="pytest-ctgen only")
    parser.add_argument("--functions", default="",
                        help="comma-separated globs of functions to benchmark")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the tables from DIR/results.json")
    args = parser.parse_args(argv)

    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    results_file = out / "results.json"
    if args.report_only:
        write_reports(json.loads(results_file.read_text(encoding="utf-8")), out)
        print(f"tables written to {out}")
        return 0
    if not args.paths:
        parser.error("give at least one PATH")
    for p in args.paths:
        if not p.exists():
            parser.error(f"{p} does not exist")

    clang = None if args.no_fuzz else fuzz.find_clang()
    work = out / "work"
    work.mkdir(exist_ok=True)
    fuzz_ok = clang is not None and fuzz.libfuzzer_works(clang, work)
    if not args.no_fuzz and not fuzz_ok:
        print("bench: clang with libFuzzer (-fsanitize=fuzzer) is not available; install "
              "clang and libclang-rt-14-dev (see bench/README.md). Running pytest-ctgen only.",
              file=sys.stderr)
    runtimes = fuzz.Runtimes.build(work / "runtime", clang if fuzz_ok else None)
    from pytest_ctgen.frontend.loader import load_unit
    from pytest_ctgen.c_harness_files import harness_dir

    globs = [g.strip() for g in args.functions.split(",") if g.strip()]
    files = _copy_sources(list(args.paths), out / "src")
    doc: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": " ".join(["python -m bench", *map(str, args.paths), "--out", str(args.out)]),
        "settings": {"work": args.work, "timeout": args.timeout,
                     "min_fuzz_seconds": args.min_fuzz_seconds,
                     "fuzz_seconds": args.fuzz_seconds, "fuzz_flags": args.fuzz_flag,
                     "clang": clang if fuzz_ok else None,
                     "libfuzzer_flags": list(fuzz.LIBFUZZER_FLAGS)},
        "files": [], "functions": []}
    bench_start = time.monotonic()
    for c_file, display in files:
        cflags = [f"-I{c_file.parent}"]
        file_work = work / display.replace("/", "__").removesuffix(".c")
        file_work.mkdir(parents=True, exist_ok=True)
        group = group_of(c_file, display)
        infeasible = manifest_for(c_file)
        print(f"== {display}", flush=True)
        try:
            gen = ctgen_side.generate(c_file, display, cflags, file_work, args.timeout,
                                      functions=20, work_units=args.work)
        except Exception as err:  # noqa: BLE001 - one file never stops the bench
            gen = ctgen_side.Generation(None, {}, 0.0, 0.0, 0, f"{type(err).__name__}: {err}")
        frec = {"file": display, "group": group, "wall_seconds": gen.wall_seconds,
                "process_seconds": gen.process_seconds, "peak_mib": gen.peak_rss_kib / 1024,
                "error": gen.error, "functions": 0, "has_manifest": infeasible is not None,
                "known_infeasible": {str(k): v for k, v in (infeasible or {}).items()}}
        doc["files"].append(frec)
        if gen.cases is None:
            print(f"   generation failed: {gen.error}", flush=True)
            _save(doc, results_file, out, bench_start)
            continue
        fc = gen.cases
        unit = None
        unit_error = None
        if fuzz_ok:
            try:
                unit = load_unit(c_file, cflags)
            except Exception as err:  # noqa: BLE001 - the fuzz side of this file fails
                unit_error = f"cannot load the unit: {err}"
        for fn in fc.functions:
            if globs and not any(fnmatch.fnmatchcase(fn.name, g) for g in globs):
                continue
            frec["functions"] += 1
            row: dict[str, Any] = {"file": display, "group": group, "function": fn.name,
                                   "line": fn.line}
            seconds = gen.seconds.get(fn.name, 0.0)
            try:
                rep = ctgen_side.replay_function(fc, fn, c_file, cflags, file_work)
            except Exception as err:  # noqa: BLE001 - one function never stops the bench
                rep = ctgen_side.Replay(error=f"{type(err).__name__}: {err}")
            row["ctgen"] = {
                "cases": len(fn.cases), "seconds": seconds, "stop_reason": fn.stop_reason,
                "skip_reason": fn.skip_reason, "passed": rep.passed, "failed": rep.failed,
                "replay_seconds": rep.seconds, "error": rep.error,
                "claimed_unreachable": len(fn.unreachable),
                **_coverage_fields(rep.coverage, infeasible)}
            if fuzz_ok:
                budget = args.fuzz_seconds or max(args.min_fuzz_seconds, math.ceil(seconds))
                row["libfuzzer"] = _fuzz_function(
                    unit, unit_error, fn.name, fc, c_file, cflags, file_work, runtimes,
                    clang, budget, args.fuzz_flag, [str(harness_dir())], infeasible)
            _print_row(row)
            doc["functions"].append(row)
            _save(doc, results_file, out, bench_start)
        _save(doc, results_file, out, bench_start)
    _save(doc, results_file, out, bench_start, final=True)
    print(f"results: {out / 'results.md'}, {out / 'results.csv'}, {results_file}")
    return 0


def _fuzz_function(unit: Any, unit_error: str | None, function: str, fc: Any, c_file: Path,
                   cflags: list[str], file_work: Path, runtimes: fuzz.Runtimes, clang: str,
                   budget: int, fuzz_flags: list[str], extra_dirs: list[str],
                   infeasible: dict[int, int] | None) -> dict[str, Any]:
    rec: dict[str, Any] = {"budget_seconds": budget, "seconds": 0.0, "cases": 0, "error": None}
    if unit is None:
        rec["error"] = unit_error or "no unit"
        rec.update(_coverage_fields(None, infeasible))
        return rec
    directory = file_work / "fuzz" / function
    try:
        return _fuzz_steps(rec, unit, function, fc, c_file, cflags, directory, runtimes,
                           clang, budget, fuzz_flags, extra_dirs, infeasible)
    except Exception as err:  # noqa: BLE001 - one function never stops the bench
        rec["error"] = f"{type(err).__name__}: {err}"
        rec.update(_coverage_fields(None, infeasible))
        return rec


def _fuzz_steps(rec: dict[str, Any], unit: Any, function: str, fc: Any, c_file: Path,
                cflags: list[str], directory: Path, runtimes: fuzz.Runtimes, clang: str,
                budget: int, fuzz_flags: list[str], extra_dirs: list[str],
                infeasible: dict[int, int] | None) -> dict[str, Any]:
    try:
        harness = fuzz_harness(unit, function, fc, c_file)
        fuzz.write_harness(directory, harness.source, harness.files)
        binary = fuzz.build_fuzzer(directory, runtimes, clang, cflags, harness.include_dirs,
                                   extra_dirs)
        run = fuzz.run_fuzzer(binary, directory, budget, fuzz_flags)
        run = fuzz.replay(directory, run, runtimes, c_file, function, cflags,
                          harness.include_dirs, extra_dirs)
    except (HarnessError, fuzz.FuzzError) as err:
        rec["error"] = str(err)
        rec.update(_coverage_fields(None, infeasible))
        return rec
    rec.update({"seconds": run.fuzz_seconds, "cases": run.inputs, "executions": run.executions,
                "restarts": run.restarts, "no_features": run.no_features,
                "artifacts": run.artifacts, "endings": run.endings,
                "replay_seconds": run.replay_seconds})
    rec.update(_coverage_fields(run.coverage, infeasible))
    return rec


def _pct(c: int, t: int) -> str:
    return "  -  " if not t else f"{100.0 * c / t:5.1f}"


def _print_row(row: dict[str, Any]) -> None:
    parts = [f"   {row['function']:<24}"]
    for tool in ("ctgen", "libfuzzer"):
        r = row.get(tool)
        if r is None:
            continue
        label = "ctgen" if tool == "ctgen" else "fuzz"
        if r.get("error"):
            parts.append(f"{label}: error ({r['error'][:60]})")
            continue
        parts.append(f"{label}: br {_pct(r['branches_covered'], r['branches_total'])}% "
                     f"ln {_pct(r['lines_covered'], r['lines_total'])}% "
                     f"{r['cases']:>4} cases {r['seconds']:6.2f}s")
    print("  ".join(parts), flush=True)


def _save(doc: dict[str, Any], results_file: Path, out: Path, start: float,
          final: bool = False) -> None:
    doc["bench_seconds"] = time.monotonic() - start
    doc["finished"] = time.strftime("%Y-%m-%d %H:%M:%S") if final else None
    tmp = results_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    tmp.replace(results_file)
    write_reports(doc, out)
