"""pytest-ctgen's side of the benchmark: generation of a file in a measured subprocess, then
each function's cases replayed natively through the export (DESIGN §2): `write_export`,
`make -C DIR/name run CFLAGS='--coverage -O0'`, and gcov (through gcovr) on that build."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_ctgen.cases import FileCases, FunctionCases
from pytest_ctgen.codegen.export import write_export
from pytest_ctgen.coverage.gcov import FunctionCoverage, measure
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.pipeline import generated_cases

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Generation:
    """What generating one file took, measured from outside."""

    cases: FileCases | None
    seconds: dict[str, float]  # per function, wall time of its generation
    wall_seconds: float  # generate_file: preprocessing, parsing and every function
    process_seconds: float  # the worker process, with Python's start and imports
    peak_rss_kib: int  # the worker and the generation child it forked
    error: str | None = None


def generate(path: Path, display: str, cflags: list[str], work: Path, timeout: float,
             functions: int = 0, work_units: float | None = None) -> Generation:
    """Generate the cases of `path` in `python -m bench.generate_worker` and measure it."""
    out = work / "generation.json"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "bench.generate_worker", str(path), display, str(out),
           f"--timeout={timeout}", *(f"--cflag={f}" for f in cflags),
           *([f"--work={work_units}"] if work_units is not None else [])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}
    start = time.monotonic()
    with open(work / "generation.log", "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        limit = start + 120 + timeout * max(functions, 1) * 2
        while True:  # wait4: the worker's own resource usage, its peak RSS
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > limit:
                proc.kill()
                _, status, rusage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    process_seconds = time.monotonic() - start
    peak = rusage.ru_maxrss if rusage else 0
    if not out.is_file():
        log = (work / "generation.log").read_text(errors="replace").strip().splitlines()
        return Generation(None, {}, process_seconds, process_seconds, peak,
                          f"generation process failed ({proc.returncode}): "
                          f"{log[-1] if log else ''}")
    doc = json.loads(out.read_text(encoding="utf-8"))
    peak = max(peak, doc.get("maxrss_self_kib", 0), doc.get("maxrss_children_kib", 0))
    cases = _with_signatures(doc["cases"], path, cflags) if doc.get("cases") else None
    return Generation(cases, doc.get("seconds", {}), doc.get("wall_seconds", process_seconds),
                      process_seconds, peak, doc.get("error"))


def _with_signatures(text: str, path: Path, cflags: list[str]) -> FileCases:
    """The cases the worker wrote, with the signatures of the unit's functions, which an
    export is made from (the plugin's cache reads its entries the same way)."""
    return generated_cases(text, load_unit(path, cflags, probe=False))


@dataclass
class Replay:
    passed: int = 0
    failed: int = 0
    seconds: float = 0.0
    coverage: FunctionCoverage | None = None
    error: str | None = None


def replay_function(fc: FileCases, fn: FunctionCases, unit: Path, cflags: list[str],
                    work: Path) -> Replay:
    """Export the cases of `fn` alone and run them natively with gcov; the coverage of `fn`
    measured on that build (only its own cases count, as only its own fuzz inputs do)."""
    result = Replay()
    out_dir = work / "ctgen" / fn.name
    if out_dir.exists():
        shutil.rmtree(out_dir)
    try:
        export = write_export(replace(fc, functions=(fn,)), unit, out_dir, cflags,
                              base_dir=unit.parent)
    except Exception as err:  # noqa: BLE001 - reported in the table
        result.error = f"export failed: {err}"
        return result
    start = time.monotonic()
    try:
        done = subprocess.run(["make", "-C", str(export), "run", "CFLAGS=--coverage -O0"],
                              capture_output=True, text=True, timeout=600, errors="replace",
                              check=False)
    except subprocess.TimeoutExpired:
        result.error = "the exported driver timed out"
        return result
    result.seconds = time.monotonic() - start
    (out_dir / "make.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    m = re.search(r"^(\d+) passed, (\d+) failed\s*$", done.stdout, re.MULTILINE)
    if m:
        result.passed, result.failed = int(m.group(1)), int(m.group(2))
    elif done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if "error" in ln] or \
            done.stderr.splitlines()[-1:]
        result.error = f"make run failed: {lines[0].strip() if lines else done.returncode}"
        return result
    try:
        result.coverage = measure(export, unit).get(fn.name)
    except Exception as err:  # noqa: BLE001
        result.error = f"gcovr failed: {err}"
    return result
