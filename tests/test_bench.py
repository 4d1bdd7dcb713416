"""The benchmark (bench/): the libFuzzer harness of a small unit, its gcov replay, the
manifest's infeasible outcomes, and the tables. Fast; only the libFuzzer build and run need
clang with libFuzzer and are skipped without it."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import fuzz
from bench.cli import group_of
from bench.fuzz_harness import _strip_top_const, fuzz_harness, referenced_globals
from bench.manifest import infeasible_missing, parse_manifest
from bench.report import markdown, targets, write_reports

REPO = Path(__file__).resolve().parents[1]

UNIT = r"""
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct node { int32_t value; struct node *next; } node_t;

extern int sensor_read(uint8_t channel, int16_t *out);
volatile uint32_t g_flags;
uint8_t g_mode;
static uint8_t g_unused;
const uint8_t TABLE[4] = {1, 2, 3, 4};

static int helper(int x) { return x > 100 ? 1 : 0; }

int probe(const node_t *list, uint8_t channel)
{
    int16_t v = 0;
    int n = 0;
    if (list == NULL)
        return -1;
    if (list->next != NULL && list->next->value == 7)
        n += 10;
    if (g_mode == 3)
        exit(2);
    if (sensor_read(channel, &v) != 0)
        return -2;
    if (v > 1000 && (g_flags & 4u))
        n += helper(v) + TABLE[channel & 3u];
    return n;
}
"""


@pytest.fixture(scope="module")
def unit_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bench_unit")
    (d / "probe.c").write_text(UNIT, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def generated(unit_dir: Path):
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import generate_file

    path = unit_dir / "probe.c"
    return generate_file(path, "probe.c", Options(), cache_dir=None)


@pytest.fixture(scope="module")
def harness(unit_dir: Path, generated):
    from pytest_ctgen.frontend.loader import load_unit

    path = unit_dir / "probe.c"
    unit = load_unit(path)
    return unit, fuzz_harness(unit, "probe", generated.cases, path)


def test_harness_decodes_parameters_globals_and_stubs(harness) -> None:
    unit, h = harness
    text = h.source
    assert "int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)" in text
    assert "int sensor_read(uint8_t channel, int16_t *out)" in text  # the stub, by prototype
    assert "fz_out((void *)out, 2u, 1u, 0);" in text  # writes its out-parameter
    assert "fz_out((void *)&g_flags" in text  # a stub may write a volatile global
    assert "#define exit fz_exit" in text  # exit returns to the fuzz target
    assert "fz_take((void *)&g_mode, sizeof g_mode);" in text  # a global the function reads
    assert "g_unused" not in text.split("LLVMFuzzerTestOneInput(const uint8_t *data, "
                                        "size_t size)\n{")[1]  # one it does not
    assert "TABLE" not in text  # const globals are the unit's, not inputs
    assert "fz_ptr(16u, fz_fix_" in text  # list -> 10 nodes, each with its own next
    assert [v.name for v in referenced_globals(unit, "probe")] == ["g_flags", "g_mode"]


def test_strip_top_const() -> None:
    assert _strip_top_const("const uint8_t *const @") == "const uint8_t *@"
    assert _strip_top_const("const int @") == "int @"
    assert _strip_top_const("volatile struct s @") == "struct s @"


def test_replay_build_measures_the_function(tmp_path: Path, unit_dir: Path, harness) -> None:
    """The gcc --coverage replay of the harness runs hand-made inputs (one exits, one
    crashes on nothing, one takes the stub's paths) and gcov measures `probe`."""
    _, h = harness
    directory = tmp_path / "fz"
    fuzz.write_harness(directory, h.source, h.files)
    runtimes = fuzz.Runtimes.build(tmp_path / "rt", None)
    corpus = directory / "corpus"
    corpus.mkdir()
    (directory / "artifacts").mkdir()
    (corpus / "empty").write_bytes(b"")  # list NULL
    # list: fresh object (selector 3); node 0 value 0, its next: fresh (3), node value 7 ...
    node0 = (0).to_bytes(4, "little") + bytes(12)
    node1 = (7).to_bytes(4, "little") + bytes(12)
    (corpus / "list").write_bytes(bytes([3]) + node0 + bytes([3]) + node1)
    run = fuzz.FuzzRun(budget_seconds=0)
    run = fuzz.replay(directory, run, runtimes, unit_dir / "probe.c", "probe", [])
    assert run.inputs == 2
    assert run.endings.get("returned") == 2
    cov = run.coverage
    assert cov is not None and cov.branches_total > 0
    assert 0 < cov.branches_covered < cov.branches_total
    assert cov.lines_covered >= 5


needs_libfuzzer = pytest.mark.skipif(not fuzz.libfuzzer_works(),
                                     reason="clang with libFuzzer (-fsanitize=fuzzer) missing")


@needs_libfuzzer
def test_libfuzzer_run_and_replay(tmp_path: Path, unit_dir: Path, harness) -> None:
    _, h = harness
    directory = tmp_path / "fz"
    fuzz.write_harness(directory, h.source, h.files)
    clang = fuzz.find_clang()
    runtimes = fuzz.Runtimes.build(tmp_path / "rt", clang)
    binary = fuzz.build_fuzzer(directory, runtimes, clang, [])
    run = fuzz.run_fuzzer(binary, directory, 2)
    assert run.executions > 1000
    assert run.restarts == 0  # exits and crashes stay inside the harness
    run = fuzz.replay(directory, run, runtimes, unit_dir / "probe.c", "probe", [])
    assert run.inputs >= 2
    assert run.coverage is not None and run.coverage.branches_covered >= 4


def test_manifest_infeasible_outcomes() -> None:
    text = """\
| File | Functions (gcov outcomes each) | Capability tags | gcov outcomes | Known infeasible outcomes | Externs to stub |
|---|---|---|---:|---|---|
| `a_one.c` | `f` 4 | `x` | 4 | 0 | - |
| `hard_x.c` | `g` 8 | `y` | 31 | 7: L16, L27, L43, L61, L76, L79 (x2) | - |
| `pun.c` | `h` 4 | `z` | 20 | 3 on little-endian targets: L24, L27 (x2) | - |
"""
    m = parse_manifest(text)
    assert m["a_one.c"] == {}
    assert m["hard_x.c"] == {16: 1, 27: 1, 43: 1, 61: 1, 76: 1, 79: 2}
    assert m["pun.c"] == {24: 1, 27: 2}
    # at most the listed number per line; other lines do not count
    assert infeasible_missing([(79, 0), (79, 1), (79, 2), (16, 1), (20, 0)], m["hard_x.c"]) == 3


def _doc() -> dict:
    def tool(bc, bt, lc, lt, cases, s, missing=(), inf=0, **extra):
        return {"measured": True, "branches_covered": bc, "branches_total": bt,
                "lines_covered": lc, "lines_total": lt, "cases": cases, "seconds": s,
                "missing_lines": [m[0] for m in missing], "missing_branches": list(missing),
                "infeasible_missing": inf, "error": None, **extra}

    rows = [
        {"file": "corpus/scalar_a.c", "group": "scalar_", "function": "fa", "line": 3,
         "ctgen": tool(4, 4, 6, 6, 3, 0.2, stop_reason="exhausted"),
         "libfuzzer": tool(3, 4, 5, 6, 9, 10.1, [[7, 1]], budget_seconds=10)},
        {"file": "corpus/scalar_a.c", "group": "scalar_", "function": "fb", "line": 9,
         "ctgen": tool(5, 6, 6, 6, 2, 0.4, [[12, 0]], inf=1, stop_reason="exhausted"),
         "libfuzzer": tool(5, 6, 6, 6, 12, 10.0, [[12, 0]], inf=1, budget_seconds=10)},
        {"file": "corpus/hard_b.c", "group": "hard_", "function": "fc", "line": 1,
         "ctgen": tool(2, 8, 3, 9, 1, 30.0, [[4, 0]] * 6, stop_reason="time budget"),
         "libfuzzer": tool(8, 8, 9, 9, 40, 30.0, budget_seconds=30)},
    ]
    files = [{"file": "corpus/scalar_a.c", "group": "scalar_", "wall_seconds": 1.5,
              "process_seconds": 2.0, "peak_mib": 70.0, "error": None, "functions": 2,
              "has_manifest": True},
             {"file": "corpus/hard_b.c", "group": "hard_", "wall_seconds": 31.0,
              "process_seconds": 31.5, "peak_mib": 90.0, "error": None, "functions": 1,
              "has_manifest": True}]
    return {"command": "python -m bench corpus --out r", "started": "now", "finished": "later",
            "bench_seconds": 100.0, "settings": {"timeout": 30, "min_fuzz_seconds": 10},
            "files": files, "functions": rows}


def test_tables(tmp_path: Path) -> None:
    doc = _doc()
    write_reports(doc, tmp_path)
    with open(tmp_path / "results.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6
    fb = next(r for r in rows if r["function"] == "fb" and r["tool"] == "pytest-ctgen")
    assert fb["branch_pct"] == "83.3" and fb["feasible_branch_pct"] == "100.0"
    assert fb["missing_branches"] == "12:0"
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "| scalar_ | pytest-ctgen | 2 | 90.0 | 100.0 | 100.0 | 2 | 5 |" in md
    assert "| scalar_ | libFuzzer | 2 | 80.0 |" in md
    assert "| **all** | pytest-ctgen | 3 |" in md
    assert "| corpus/hard_b.c | fc | pytest-ctgen | 25.0 | 33.3 | 0 | 4 4 4 4 4 4 |" in md
    met = {t: (m, ok) for t, m, ok in targets(doc)}
    full = met["pytest-ctgen reaches 100% of the feasible branch outcomes on >= 90% of the "
               "functions"]
    assert full == ("2/3 = 66.7%", False)
    assert met["pytest-ctgen's branch coverage >= libFuzzer's on every function"][1] is False
    assert met["median generation time per function < 1 s"] == ("0.40 s", True)
    assert met["peak memory < 1 GiB"][1] is True
    assert "whole corpus" in markdown(doc)


def test_report_only_rewrites_the_tables(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps(_doc()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bench", "--out", str(tmp_path),
                           "--report-only"], cwd=REPO, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results.md").is_file() and (tmp_path / "results.csv").is_file()


def test_groups(tmp_path: Path) -> None:
    (tmp_path / "MANIFEST.md").write_text("x", encoding="utf-8")
    assert group_of(tmp_path / "annot_x.c", "corpus/annot_x.c") == "annot_"
    other = tmp_path / "sub"
    other.mkdir()
    assert group_of(other / "fixed_point.c", "examples/fixed_point.c") == "examples/"


def test_make_and_gcc_available() -> None:
    assert shutil.which("gcc") and shutil.which("make")
