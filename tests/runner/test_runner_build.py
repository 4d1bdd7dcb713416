"""runner/build.py: cached builds, compiler errors with locations, gcov data housekeeping
(the measurements themselves: tests/coverage)."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.cases import Binding, Case, Expected, FileCases, FunctionCases, IntValue
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.coverage.gcov import measure
from pytest_ctgen.errors import BuildError
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.runner.build import build_harness, clear_coverage_data, load_library
from pytest_ctgen.runner.execute import PASSED, run_case

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def _one_case(name: str = "twice") -> FileCases:
    fc = FileCases("u.c", (FunctionCases(name, 1, f"int {name}(int x)", (
        Case(name, 1, (Binding("x", "int @", IntValue(4)),), (), Expected(IntValue(8))),),
        "exhausted"),))
    with tempfile.TemporaryDirectory() as directory:  # the signature, as generation reads it
        declared = Path(directory) / "u.c"
        declared.write_text(f"int {name}(int x) {{ return x; }}\n")
        return with_signatures(fc, load_unit(declared, probe=False))


def test_runtime_is_found() -> None:
    assert (harness_dir() / "ctgen_runtime.h").is_file()
    assert (harness_dir() / "ctgen_runtime.c").is_file()


def test_build_is_cached_by_content(tmp_path: Path) -> None:
    unit = tmp_path / "u.c"
    unit.write_text("int twice(int x) { return 2 * x; }\n")
    source = generate_harness(_one_case(), str(unit))
    first = build_harness(source, key_material=unit.read_text(), cache_dir=tmp_path / "c")
    stamp = first.library.stat().st_mtime_ns
    again = build_harness(source, key_material=unit.read_text(), cache_dir=tmp_path / "c")
    assert again == first and again.library.stat().st_mtime_ns == stamp
    other = build_harness(source, key_material="changed", cache_dir=tmp_path / "c")
    assert other.directory != first.directory
    flagged = build_harness(source, cflags=["-DX=1"], key_material=unit.read_text(),
                            cache_dir=tmp_path / "c")
    assert flagged.directory not in (first.directory, other.directory)
    lib = load_library(first)
    assert lib.case_names() == ["twice[case1]"]
    assert run_case(lib, 0, 2.0).status == PASSED


def test_compile_error_has_location(tmp_path: Path) -> None:
    unit = tmp_path / "bad.c"
    unit.write_text("int twice(int x)\n{\n    return 2 * x\n}\n")
    with pytest.raises(BuildError) as info:
        build_harness(generate_harness(_one_case(), str(unit)), cache_dir=tmp_path / "c")
    err = info.value
    assert err.location is not None
    assert (Path(err.location.file).name, err.location.line) == ("bad.c", 3)
    assert err.location.column > 0
    assert "expected" in err.message
    assert str(err).startswith(f"{err.location.file}:3:")


def test_undefined_symbol_fails_the_link(tmp_path: Path) -> None:
    unit = tmp_path / "u.c"
    unit.write_text("extern int g_missing;\nint twice(int x) { return g_missing * x; }\n")
    with pytest.raises(BuildError, match="g_missing"):
        build_harness(generate_harness(_one_case(), str(unit)), cache_dir=tmp_path / "c")


def test_user_flags_reach_the_compiler(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "factor.h").write_text("#define FACTOR_BASE 1\n")
    unit = tmp_path / "u.c"
    unit.write_text('#include "factor.h"\nint twice(int x) { return (FACTOR + FACTOR_BASE - 1) * x; }\n')
    build = build_harness(generate_harness(_one_case(), str(unit)),
                          cflags=[f"-I{tmp_path / 'inc'}", "-DFACTOR=2", "-O2"],
                          cache_dir=tmp_path / "c")
    assert run_case(load_library(build), 0, 2.0).status == PASSED


def test_clear_coverage_data(tmp_path: Path) -> None:
    unit = tmp_path / "u.c"
    unit.write_text("int twice(int x)\n{\n    if (x > 100)\n        return 0;\n    return 2 * x;\n}\n")
    build = build_harness(generate_harness(_one_case(), str(unit)), cache_dir=tmp_path / "c")
    lib = load_library(build)
    cov = measure(build.directory, unit)  # no data yet: everything uncovered
    assert (cov["twice"].lines_covered, cov["twice"].lines_total) == (0, 4)
    run_case(lib, 0, 2.0)
    assert list(build.directory.glob("*.gcda"))
    cov = measure(build.directory, unit)["twice"]
    assert (cov.lines_covered, cov.missing_lines) == (3, (4,))
    assert (cov.branches_total, cov.branches_covered, cov.missing_branches) == (2, 1, ((3, 0),))
    clear_coverage_data(build)
    assert not list(build.directory.glob("*.gcda"))
    assert measure(build.directory, unit)["twice"].lines_covered == 0
