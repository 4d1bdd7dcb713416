"""libFuzzer's side of the benchmark: build a function's harness with clang
`-fsanitize=fuzzer`, fuzz it for a wall-time budget, then replay the inputs it kept on a
`gcc --coverage -O0` build of the same harness and let gcov (through gcovr) measure them."""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_ctgen.coverage.gcov import FunctionCoverage, measure

BENCH_DIR = Path(__file__).resolve().parent
RUNTIME_C = BENCH_DIR / "fz_runtime.c"

#: Signals the harness returns from itself (fz_runtime.c): libFuzzer must not take them.
LIBFUZZER_FLAGS = ("-timeout=0", "-handle_segv=0", "-handle_bus=0", "-handle_fpe=0",
                   "-handle_ill=0", "-print_final_stats=1")
ENDINGS = ("returned", "exit", "abort", "assert", "annotation", "assume", "crash", "hang",
           "invalid", "killed")
#: The replay is built with AddressSanitizer: an invalid access (the fuzzer's inputs are not
#: bounded by the objects, pytest-ctgen's are) aborts the input before it writes anything,
#: gcov's counters included; the abort handler writes the counters of what ran before.
REPLAY_ASAN_OPTIONS = ("abort_on_error=1:detect_leaks=0:allow_user_segv_handler=1:"
                       "handle_abort=0:symbolize=0:print_summary=0")


class FuzzError(Exception):
    """A step of the fuzzing side failed; the message says which and why."""


def find_clang() -> str | None:
    """The clang to build fuzzers with: $CLANG, else clang, else clang-NN."""
    for name in (os.environ.get("CLANG"), "clang", *(f"clang-{v}" for v in range(20, 10, -1))):
        if name and shutil.which(name):
            return name
    return None


def libfuzzer_works(clang: str | None = None, work: Path | None = None) -> bool:
    """Whether `clang -fsanitize=fuzzer` links (clang and libFuzzer's runtime installed)."""
    clang = clang or find_clang()
    if clang is None:
        return False
    import tempfile
    with tempfile.TemporaryDirectory(prefix="bench-probe-", dir=work) as tmp:
        src = Path(tmp) / "probe.c"
        src.write_text("#include <stdint.h>\n#include <stddef.h>\n"
                       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)"
                       "{ (void)d; (void)n; return 0; }\n")
        done = subprocess.run([clang, "-fsanitize=fuzzer", str(src), "-o",
                               str(Path(tmp) / "probe")], capture_output=True, text=True,
                              check=False)
        return done.returncode == 0


def _run(cmd: list[str], cwd: Path | None = None, timeout: float = 300) -> str:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              errors="replace", check=False)
    except subprocess.TimeoutExpired:
        raise FuzzError(f"{Path(cmd[0]).name} timed out after {timeout:.0f} s") from None
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        error = next((ln for ln in lines if "error" in ln), lines[-1] if lines else "")
        raise FuzzError(f"{Path(cmd[0]).name} failed: {error.strip()}")
    return done.stdout


@dataclass
class Runtimes:
    """fz_runtime.c compiled once per benchmark run: for the fuzzer (clang, not
    instrumented) and for the replay (gcc, with the replay main, not instrumented)."""

    fuzz_object: Path | None
    replay_object: Path

    @staticmethod
    def build(work: Path, clang: str | None) -> Runtimes:
        work.mkdir(parents=True, exist_ok=True)
        replay = work / "fz_runtime_replay.o"
        _run(["gcc", "-O0", "-g", "-DFZ_REPLAY", f"-I{BENCH_DIR}", "-c", str(RUNTIME_C),
              "-o", str(replay)])
        fuzz = None
        if clang is not None:
            fuzz = work / "fz_runtime_fuzz.o"
            _run([clang, "-O1", "-g", f"-I{BENCH_DIR}", "-c", str(RUNTIME_C), "-o", str(fuzz)])
        return Runtimes(fuzz, replay)


@dataclass
class FuzzRun:
    """What fuzzing one function gave, measured on the replay."""

    budget_seconds: int
    fuzz_seconds: float = 0.0  # wall time of libFuzzer's runs (the budget, plus start-up)
    executions: int = 0  # inputs libFuzzer ran
    restarts: int = 0  # runs that ended before the budget (something escaped the harness)
    no_features: bool = False  # libFuzzer stopped at once: no instrumented code ran
    inputs: int = 0  # files replayed: the corpus libFuzzer kept (plus any crash artifacts)
    artifacts: int = 0
    endings: dict[str, int] = field(default_factory=dict)  # how the replayed inputs ended
    replay_seconds: float = 0.0
    coverage: FunctionCoverage | None = None


def write_harness(directory: Path, source: str, files: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "harness.c").write_text(source, encoding="utf-8")
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory / "harness.c"


def _flags(cflags: list[str], include_dirs: tuple[str, ...], extra_dirs: list[str]) -> list[str]:
    out = [f"-I{BENCH_DIR}", *cflags]
    for d in include_dirs:
        out += ["-iquote", d]
    for d in extra_dirs:
        out += ["-idirafter", d]
    return out


def build_fuzzer(directory: Path, runtimes: Runtimes, clang: str, cflags: list[str],
                 include_dirs: tuple[str, ...] = (), extra_dirs: list[str] = ()) -> Path:
    """Compile `directory/harness.c` with `clang -O0 -fsanitize=fuzzer`; returns the fuzzer."""
    assert runtimes.fuzz_object is not None
    obj = directory / "harness_fuzz.o"
    binary = directory / "fuzzer"
    flags = _flags(cflags, include_dirs, list(extra_dirs))
    # -O0 as the gcov build: at -O1 clang already turns small switches and ifs into
    # branch-free code, whose outcomes libFuzzer then gets no feedback for
    _run([clang, "-O0", "-g", "-fsanitize=fuzzer", "-w", *flags, "-c", "harness.c",
          "-o", str(obj)], cwd=directory)
    _run([clang, "-fsanitize=fuzzer", str(obj), str(runtimes.fuzz_object), "-lm", "-o",
          str(binary)], cwd=directory)
    return binary


def run_fuzzer(binary: Path, directory: Path, budget_seconds: int,
               extra_flags: list[str] = ()) -> FuzzRun:
    """libFuzzer on `directory/corpus`, seeded with the empty input only, for
    `budget_seconds` of wall time; a run that ends early (something escaped the harness) is
    restarted on the corpus it left."""
    corpus = directory / "corpus"
    artifacts = directory / "artifacts"
    for d in (corpus, artifacts):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    # one seed, a zero byte (every input decodes as zeros): libFuzzer skips empty files
    (corpus / "seed").write_bytes(b"\0")
    stats = directory / "fz_stats.txt"
    stats.unlink(missing_ok=True)
    result = FuzzRun(budget_seconds)
    start = time.monotonic()
    deadline = start + budget_seconds
    log = directory / "libfuzzer.log"
    with open(log, "w", encoding="utf-8", errors="replace") as out:
        while True:
            left = math.ceil(deadline - time.monotonic())
            if left < 1:
                break
            cmd = [str(binary), *LIBFUZZER_FLAGS, f"-max_total_time={left}",
                   f"-artifact_prefix={artifacts}/", *extra_flags, str(corpus)]
            out.write("$ " + " ".join(cmd) + "\n")
            out.flush()
            try:
                done = subprocess.run(cmd, cwd=directory, stdout=out, stderr=subprocess.STDOUT,
                                      timeout=left + 60, check=False,
                                      env={**os.environ, "FZ_STATS": str(stats)})
                code = done.returncode
            except subprocess.TimeoutExpired:
                code = -1
            if code == 0:
                break
            out.flush()
            if "no interesting inputs were found" in log.read_text(errors="replace")[-2000:]:
                result.no_features = True  # e.g. a function that only calls abort()
                break
            result.restarts += 1
    result.fuzz_seconds = time.monotonic() - start
    text = log.read_text(encoding="utf-8", errors="replace")
    result.executions = sum(int(n) for n in
                            re.findall(r"stat::number_of_executed_units:\s*(\d+)", text))
    result.artifacts = sum(1 for _ in artifacts.iterdir())
    return result


def replay(directory: Path, run: FuzzRun, runtimes: Runtimes, unit: Path, function: str,
           cflags: list[str], include_dirs: tuple[str, ...] = (),
           extra_dirs: list[str] = ()) -> FuzzRun:
    """Build the harness with `gcc --coverage -O0 -fsanitize=address`, run every input
    libFuzzer kept (each in a forked child) and measure `function` of `unit` with gcovr."""
    build = directory / "replay"
    if build.exists():
        shutil.rmtree(build)
    build.mkdir()
    flags = _flags(cflags, include_dirs, list(extra_dirs))
    for name in os.listdir(directory):
        if name.endswith(".c") and name != "harness.c":  # the unit's copy, if any
            shutil.copy(directory / name, build / name)
    shutil.copy(directory / "harness.c", build / "harness.c")
    # globals only (asan-stack=0): stack instrumentation would make gcov count the lines
    # declaring local arrays, which the export's plain build does not
    _run(["gcc", "--coverage", "-O0", "-g", "-w", "-fsanitize=address", "--param=asan-stack=0",
          *flags, "-c", "harness.c", "-o", "harness.o"], cwd=build)
    _run(["gcc", "--coverage", "-fsanitize=address", "harness.o", str(runtimes.replay_object),
          "-lm", "-o", "replay"], cwd=build)
    start = time.monotonic()
    inputs = [str(directory / "corpus"), str(directory / "artifacts")]
    try:
        with open(build / "replay.log", "w", encoding="utf-8", errors="replace") as log:
            done = subprocess.run([str(build / "replay"), *inputs], cwd=build, timeout=1800,
                                  stdout=subprocess.PIPE, stderr=log, text=True, check=False,
                                  env={**os.environ, "ASAN_OPTIONS": REPLAY_ASAN_OPTIONS})
    except subprocess.TimeoutExpired:
        raise FuzzError("the replay timed out") from None
    out = done.stdout
    run.replay_seconds = time.monotonic() - start
    m = re.search(r"inputs (\d+)(.*)", out)
    if m:
        run.inputs = int(m.group(1))
        run.endings = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", m.group(2))}
    try:
        measured = measure(build, unit)
    except Exception as err:  # noqa: BLE001 - e.g. gcov data an input corrupted
        raise FuzzError(f"gcovr could not read the replay's coverage: {err}") from None
    run.coverage = measured.get(function)
    return run
