"""coverage/gcov.py: per-function counts that agree with gcov on the example units, and
their sums and merges."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from pytest_ctgen.cases import FileCases
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.coverage.gcov import FunctionCoverage, measure, merge, percent, totals
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.ir.lower import lower_unit
from pytest_ctgen.file_run import unit_for_build
from pytest_ctgen.pipeline import stubs_of
from pytest_ctgen.runner.build import build_harness

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

REPO = Path(__file__).resolve().parents[2]


def test_percent_and_totals() -> None:
    assert percent(0, 0) == 100.0
    assert percent(1, 4) == 25.0
    a = FunctionCoverage("a", 1, 4, 2, 2, 1)
    b = FunctionCoverage("b", 9, 6, 6, 0, 0)
    assert (a.line_percent, a.branch_percent) == (50.0, 50.0)
    assert totals([a, b]) == {"lines_total": 10, "lines_covered": 8, "branches_total": 2,
                              "branches_covered": 1}


def test_merge_of_two_runs() -> None:
    a = {"f": FunctionCoverage("f", 3, 4, 2, 2, 1, (5, 6), ((4, 0),), calls=1)}
    b = {"f": FunctionCoverage("f", 3, 4, 3, 2, 1, (6,), ((4, 1),), calls=2),
         "g": FunctionCoverage("g", 9, 1, 1, 0, 0)}
    m = merge(a, b)
    assert m["f"] == FunctionCoverage("f", 3, 4, 3, 2, 2, (6,), (), calls=3)
    assert m["g"] == b["g"]


def _examples_expected() -> dict[str, dict[str, dict[str, object]]]:
    path = REPO / "tests" / "examples_expected.py"
    if not path.is_file():
        pytest.skip("no tests/examples_expected.py")
    spec = importlib.util.spec_from_file_location("ctgen_examples_expected", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.EXPECTED  # type: ignore[no-any-return]


def test_gcov_counts_match_the_examples(tmp_path: Path) -> None:
    """Lines and branch outcomes per function agree with gcov's own JSON (measured by hand,
    tests/examples_expected.py) for every example unit."""
    expected = _examples_expected()
    for file_name, functions in expected.items():
        unit = REPO / "examples" / file_name
        loaded = load_unit(unit, ["-std=c11"])
        stubs = stubs_of(lower_unit(loaded))
        cases = with_signatures(FileCases(f"examples/{file_name}", (), stubs), loaded)
        include, files, flags = unit_for_build(unit, cases, ["-std=c11"])
        build = build_harness(generate_harness(cases, include), cflags=flags,
                              cache_dir=tmp_path / "c", extra_files=files)
        cov = measure(build.directory, unit)
        for name, want in functions.items():
            got = cov[name]
            assert (got.lines_total, got.branches_total) == (want["lines"], want["branches"]), \
                f"{file_name}:{name}"
            assert got.lines_covered == 0
