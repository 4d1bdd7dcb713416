"""The export (DESIGN §2): JSON, a standalone driver and a Makefile that replays every case
with `make run`, with or without gcov."""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from collections.abc import Sequence

import pytest

from ctgen_sample_unit import sample_file_cases, signed_by_source, write_unit
from pytest_ctgen.cases import (
    Binding,
    BuildRecipe,
    Case,
    Expected,
    FileCases,
    FunctionCases,
    IntValue,
    PointerValue,
)
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.codegen.export import ExportError, rebase_flags, write_export
from pytest_ctgen.codegen.harness_names import case_name
from pytest_ctgen.coverage.gcov import measure
from pytest_ctgen.export_files import EXPORTED_C_FILES
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.mcdc_instrument import instrument_unit
from pytest_ctgen.frontend.signatures import UnitSignatures
from pytest_ctgen.frontend.unit_shapes import unit_shapes
from pytest_ctgen.plugin.collect import collected_as_unit

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("make") is None,
                                reason="needs gcc and make")

MOTOR = r"""#include "motor_cfg.h"

int scaled(int x)
{
    if (x > LIMIT)
        return LIMIT * GAIN;
    return x * GAIN;
}

int deref(int *p)
{
    return *p;
}
"""


def _make(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-s", "-C", str(directory), *args], capture_output=True,
                          text=True, timeout=120)


def _int(name: str, v: int) -> Binding:
    return Binding(name, "int @", IntValue(v))


def _motor_project(tmp_path: Path) -> tuple[Path, Path]:
    proj = tmp_path / "proj"
    (proj / "include").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / "include" / "motor_cfg.h").write_text("#define LIMIT 100\n")
    unit = proj / "src" / "motor.c"
    unit.write_text(MOTOR)
    return proj, unit


def _motor_cases(*cases: Case) -> FileCases:
    by_fn: dict[str, list[Case]] = {}
    for c in cases:
        by_fn.setdefault(c.function, []).append(c)
    protos = {"scaled": "int scaled(int x)", "deref": "int deref(int *p)"}
    return signed_by_source(FileCases("src/motor.c", tuple(
        FunctionCases(n, 1, protos[n], tuple(cs), "exhausted") for n, cs in by_fn.items())),
        MOTOR.replace('#include "motor_cfg.h"', ""))


def test_export_of_every_value_kind_passes_under_make(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    unit = write_unit(proj / "src")
    fc = sample_file_cases(float_max=False)
    out = write_export(fc, unit, proj / "tests" / "ctgen", ["-std=c11"], base_dir=proj)
    assert out == proj / "tests" / "ctgen" / "sample"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["sample.ctgen.json", "ctgen_driver.c", "ctgen_runtime.h", "ctgen_runtime.c", "ctgen.h",
         "Makefile"])
    # the cases, and how a replay builds them again (paths relative to the export)
    recipe = BuildRecipe("../../../src/sample.c", ("-std=c11",))
    assert (out / "sample.ctgen.json").read_text() == file_cases_to_json(
        replace(fc, build=recipe))
    # enumerators by name, masks in hex: read back with the unit, which gives their values
    text = (out / "sample.ctgen.json").read_text()
    assert '"@enum": "MODE_ON"' in text and '"0x0ff0"' in text
    loaded = load_unit(unit, [], probe=False)
    again = file_cases_from_json(text, signatures=UnitSignatures(loaded),
                                 shapes=unit_shapes(loaded))
    assert [c.id for c in again.all_cases()] == [c.id for c in fc.all_cases()]
    assert '#define CTGEN_UNIT_SRC "../../../src/sample.c"' in (out / "ctgen_driver.c").read_text()

    done = _make(out, "run")
    lines = done.stdout.splitlines()
    assert lines[:-1] == [f"PASS {case_name(c)}" for c in fc.all_cases()], done.stderr
    assert lines[-1] == f"{len(fc.all_cases())} passed, 0 failed"
    assert done.returncode == 0


def test_export_with_include_dirs_defines_and_coverage(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(
        Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))),
        Case("scaled", 2, (_int("x", 500),), (), Expected(IntValue(300))),
    )
    out = write_export(fc, unit, proj / "ctgen", ["-Iinclude", "-DGAIN=3"],
                       base_dir=proj)
    assert "-I../../include" in (out / "Makefile").read_text()
    done = _make(out, "run")
    assert done.stdout.splitlines() == ["PASS scaled[case1]", "PASS scaled[case2]",
                                        "2 passed, 0 failed"], done.stderr
    assert done.returncode == 0

    # CFLAGS changed: `run` rebuilds, now with gcov instrumentation
    done = _make(out, "run", "CFLAGS=--coverage -O0")
    assert done.returncode == 0, done.stderr
    assert (out / "ctgen_driver.gcno").is_file() and (out / "ctgen_driver.gcda").is_file()
    cov = measure(out, unit)
    assert (cov["scaled"].lines_covered, cov["scaled"].lines_total) == (4, 4)
    assert (cov["scaled"].branches_covered, cov["scaled"].branches_total) == (2, 2)
    assert cov["deref"].lines_covered == 0

    _make(out, "clean")
    assert not (out / "ctgen_driver").exists() and not (out / "ctgen_driver.gcda").exists()


def test_make_coverage_takes_counts_above_two_to_the_32(tmp_path: Path) -> None:
    """A case stopped by its timeout in a long loop ran it billions of times: the gcovr
    options accept such counts with the gcovr at hand (it refuses them by default)."""
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    out = write_export(fc, unit, proj / "ctgen", ["-Iinclude", "-DGAIN=3"], base_dir=proj)
    shown = subprocess.run(["make", "-s", "-C", str(out), "--eval",
                            "ctgen-hits: ; @echo $(CTGEN_GCOVR_HITS)", "ctgen-hits"],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() in ("--gcov-suspicious-hits-threshold=0",
                                    "--gcov-ignore-parse-errors=suspicious_hits.warn")


def test_export_unit_override(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    out = write_export(fc, unit, proj / "ctgen", ["-Iinclude", "-DGAIN=3"],
                       base_dir=proj)
    other = tmp_path / "elsewhere" / "motor_v2.c"
    other.parent.mkdir()
    other.write_text(MOTOR.replace("x * GAIN", "x * GAIN + 1"))
    done = _make(out, "run", f"UNIT_SRC={other}", f"CPPFLAGS=-I{proj / 'include'}")
    assert done.stdout.splitlines() == ["FAIL scaled[case1]: return: predicted 15, observed 16",
                                        "0 passed, 1 failed"], done.stderr
    assert done.returncode != 0


def test_export_runtime_dir_override(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    out = write_export(fc, unit, proj / "ctgen", ["-Iinclude", "-DGAIN=3"],
                       base_dir=proj)
    alt = tmp_path / "alt_runtime"
    alt.mkdir()
    (alt / "ctgen_runtime.h").write_text(
        "#warning using-the-alternative-runtime-header\n" + (out / "ctgen_runtime.h").read_text())
    (alt / "ctgen_runtime.c").write_text(
        "#warning using-the-alternative-runtime-source\n"
        + (out / "ctgen_runtime.c").read_text())
    done = _make(out, "run", f"CTGEN_HARNESS_DIR={alt}")
    assert "using-the-alternative-runtime-header" in done.stderr
    assert "using-the-alternative-runtime-source" in done.stderr
    assert done.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_export_driver_reports_a_crash(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(
        Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(10))),
        Case("deref", 1, (Binding("p", "int *@", PointerValue(None)),), (),
             Expected(IntValue(0))),
        Case("deref", 2, (Binding("p", "int *@", PointerValue(None)),), (),
             Expected(IntValue(0))),
    )
    out = write_export(fc, unit, proj / "ctgen", ["-Iinclude", "-DGAIN=2"],
                       base_dir=proj)
    done = _make(out, "run", "CFLAGS=--coverage -O0")
    # every case runs in a child process: a crash fails that case only
    assert done.stdout.splitlines() == [
        "PASS scaled[case1]", "FAIL deref[case1]: crashed with SIGSEGV",
        "FAIL deref[case2]: crashed with SIGSEGV", "1 passed, 2 failed"], done.stdout
    assert done.returncode != 0
    cov = measure(out, unit)  # flushed by the crash handler
    assert cov["deref"].lines_covered == cov["deref"].lines_total == 2
    assert cov["scaled"].calls == 1 and cov["deref"].calls == 2  # each child counted once

    # without children the first crash ends the run
    done = _make(out, "run", "CFLAGS=--coverage -O0", "CPPFLAGS=-DCTGEN_FORK=0")
    assert done.stdout.splitlines() == [
        "PASS scaled[case1]", "FAIL deref[case1]: crashed with SIGSEGV", "NOT RUN deref[case2]",
        "1 passed, 2 failed"], done.stdout
    assert done.returncode != 0
    cov = measure(out, unit)
    assert cov["deref"].lines_covered == cov["deref"].lines_total == 2


def test_export_never_overwrites_foreign_files(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    target = proj / "ctgen" / "motor"
    target.mkdir(parents=True)
    (target / "Makefile").write_text("all:\n\techo mine\n")
    with pytest.raises(ExportError, match="not written by pytest-ctgen"):
        write_export(fc, unit, proj / "ctgen", [], base_dir=proj)
    assert sorted(p.name for p in target.iterdir()) == ["Makefile"]  # nothing written
    assert (target / "Makefile").read_text() == "all:\n\techo mine\n"
    (target / "notes.txt").write_text("kept")
    write_export(fc, unit, proj / "ctgen", [], base_dir=proj, force=True)
    assert "pytest-ctgen" in (target / "Makefile").read_text()
    assert (target / "notes.txt").read_text() == "kept"


def test_export_refuses_cases_of_another_file(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    write_export(fc, unit, proj / "ctgen", [], base_dir=proj)
    other = FileCases("lib/motor.c", fc.functions)
    with pytest.raises(ExportError, match=r"src/motor\.c"):
        write_export(other, unit, proj / "ctgen", [], base_dir=proj)


def test_reexport_keeps_unchanged_files(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    out = write_export(fc, unit, proj / "ctgen", [], base_dir=proj)
    stamps = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    write_export(fc, unit, proj / "ctgen", [], base_dir=proj)
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == stamps
    doc = json.loads((out / "motor.ctgen.json").read_text())
    assert doc["source"] == "src/motor.c"


def test_custom_harness_function(tmp_path: Path) -> None:
    proj, unit = _motor_project(tmp_path)
    fc = _motor_cases(Case("scaled", 1, (_int("x", 5),), (), Expected(IntValue(15))))
    seen: list[str] = []

    def harness(f: FileCases, include: str, sources: Sequence[str]) -> str:
        seen.append(include)
        return "/* custom */\n"

    out = write_export(fc, unit, proj / "ctgen", [], harness_source_fn=harness, base_dir=proj)
    assert seen == ["../../src/motor.c"]
    assert (out / "ctgen_driver.c").read_text().endswith("/* custom */\n")


def test_collection_skips_every_c_file_an_export_writes(tmp_path: Path) -> None:
    """The export and collection know the C files by the same names (export_files): with
    a unit copy and MC/DC measured, the driver, the copies and the runtimes (and the MC/DC
    report program) are all an export writes."""
    proj = tmp_path / "proj"
    unit = write_unit(proj / "src")
    unit.write_text(unit.read_text() + "\nint checked(int x) { __rtt_assert(x > 0); return x; }\n")
    out = write_export(sample_file_cases(float_max=False), unit, proj / "ctgen", [],
                       base_dir=proj, mcdc=instrument_unit(load_unit(unit, [], probe=False)))
    written = {p.name for p in out.iterdir() if p.suffix == ".c"}
    assert written == set(EXPORTED_C_FILES)
    assert not any(collected_as_unit(out / name, named=False) for name in written)


def test_rebase_flags(tmp_path: Path) -> None:
    base = tmp_path / "proj"
    export = tmp_path / "proj" / "tests" / "ctgen" / "motor"
    flags = ["-Iinc", "-I", "inc2", "-isystem", "sys", "-I/abs/inc", "-DX=\"a b\"",
             "-include", "pre.h", "-std=c11", "-iquoteq", "-I-", "-I=sys", "-I../sdk/inc"]
    # outside the project: absolute (a replay reads relative paths inside the project only)
    sdk = (tmp_path / "sdk" / "inc").resolve().as_posix()
    assert rebase_flags(flags, base, export) == [
        "-I../../../inc", "-I", "../../../inc2", "-isystem", "../../../sys", "-I/abs/inc",
        "-DX=\"a b\"", "-include", "../../../pre.h", "-std=c11", "-iquote../../../q", "-I-",
        "-I=sys", f"-I{sdk}"]


PLACED = r"""#include <stdint.h>
extern int scale;  /* defined by another module */

int odd_scaled(const uint8_t *p)
{
    if (((uintptr_t)p & 1u) != 0u)
        return p[0] * scale;
    return -1;
}
"""


def test_export_places_objects_and_defines_extern_globals(tmp_path: Path) -> None:
    """An object whose address a case chose lies at that residue in the driver too, and a
    global declared extern and defined nowhere is defined by the driver: `make run`
    replays the cases and the JSON keeps both."""
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import generate_file

    unit = tmp_path / "placed.c"
    unit.write_text(PLACED)
    fc = generate_file(unit, "placed.c", Options()).cases
    assert [(g.name, g.declaration) for g in fc.global_stubs] == [("scale", "int @")]
    placements = [o.placement for c in fc.all_cases() for o in c.objects]
    assert sorted(p % 2 for p in placements) == [0, 1], placements
    out = write_export(fc, unit, tmp_path / "export", [], base_dir=tmp_path)
    again = file_cases_from_json((out / "placed.ctgen.json").read_text())
    assert again.global_stubs == fc.global_stubs
    assert [o.placement for c in again.all_cases() for o in c.objects] == \
        [o.placement for c in fc.all_cases() for o in c.objects]
    done = _make(out, "run")
    assert done.stdout.splitlines()[-1] == "2 passed, 0 failed", done.stdout + done.stderr


@pytest.fixture(scope="module")
def placed_json(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The cases of PLACED as an export writes them, generated once for the module."""
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import generate_file

    unit = tmp_path_factory.mktemp("placed") / "placed.c"
    unit.write_text(PLACED)
    return file_cases_to_json(generate_file(unit, "placed.c", Options()).cases)


def _odd_case(doc: dict) -> dict:
    return next(c for c in doc["functions"][0]["cases"] if c["objects"])


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["global_stubs"][0].update(name="x; int y"),
     r"^global_stubs\[0\]\.name: \"x; int y\" is not a C identifier"),
    (lambda d: d["global_stubs"][0].update(declaration="int @ = 1"),
     r"^global_stubs\[0\]\.declaration: is not a declaration template"),
    (lambda d: d["global_stubs"][0].update(declaration="int @[sizeof(int[f()])]"),
     r"^global_stubs\[0\]\.declaration: is not a declaration template"),
    (lambda d: d["global_stubs"][0].update(declaration="int @ __attribute__((used))"),
     r"^global_stubs\[0\]\.declaration: is not a declaration template"),
    (lambda d: _odd_case(d)["objects"][0].update(placement=4096),
     r"^functions\[0\]\.cases\[\d+\]\.objects\[0\]\.placement: 4096 is out of range"),
    (lambda d: _odd_case(d)["objects"][0].update(name="x;\n#define y"),
     r"^functions\[0\]\.cases\[\d+\]\.objects\[0\]\.name: holds the control character"),
    (lambda d: d["stubs"].append({"name": "f; g", "prototype": "int f(void)"}),
     r"^stubs\[0\]\.name: \"f; g\" is not a C identifier"),
])
def test_export_json_with_bad_placement_or_global_is_refused(placed_json: str, edit,
                                                             message: str) -> None:
    doc = json.loads(placed_json)
    edit(doc)
    with pytest.raises(ValueError, match=message):
        file_cases_from_json(json.dumps(doc))


CALLBACKS = r"""#include <stdint.h>

struct ops {
    int (*read)(uint8_t *buf, int n);
    void (*done)(int status);
};

static void ignore(int status)
{
    (void)status;
}

int poll(const struct ops *ops)
{
    uint8_t b[1];

    if (ops->read(b, 1) != 1) {
        return -1;
    }
    if (b[0] == 0x7Eu) {
        ops->done(0);
        return 1;
    }
    return 0;
}

void setup(struct ops *ops, int (*read)(uint8_t *buf, int n))
{
    ops->read = read;
    ops->done = ignore;
}
"""


def _callback_cases(tmp_path: Path) -> tuple[Path, FileCases]:
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import generate_file

    unit = tmp_path / "ops.c"
    unit.write_text(CALLBACKS)
    return unit, generate_file(unit, "ops.c", Options()).cases


def test_export_replays_callbacks_under_make(tmp_path: Path) -> None:
    """The driver defines the callbacks the cases' function pointers point to and plays
    back their scripts; the JSON keeps them, the same bytes on every generation."""
    unit, fc = _callback_cases(tmp_path)
    assert [s.name for s in fc.callbacks()] == [
        "ctgen_cb_poll_ops_done", "ctgen_cb_poll_ops_read", "ctgen_cb_setup_read"]
    out = write_export(fc, unit, tmp_path / "export", [], base_dir=tmp_path)
    text = (out / "ops.ctgen.json").read_text()
    assert file_cases_from_json(text) == replace(fc, build=file_cases_from_json(text).build)
    assert '"@function": "ignore"' in text and '"@function": "ctgen_cb_setup_read"' in text
    _, again = _callback_cases(tmp_path)
    assert file_cases_to_json(again) == file_cases_to_json(fc)
    done = _make(out, "run")
    total = len(fc.all_cases())
    assert done.stdout.splitlines()[-1] == f"{total} passed, 0 failed", \
        done.stdout + done.stderr


def _poll(doc: dict) -> dict:
    return next(f for f in doc["functions"] if f["name"] == "poll")


@pytest.mark.parametrize("edit, message", [
    (lambda d: _poll(d)["cases"][-1]["params"][0].update(value={"@function": "f(); x"}),
     r"^functions\[1\]\.cases\[\d+\]\.params\[0\]\.value\.@function: \"f\(\); x\" is "
     r"not a C identifier"),
    (lambda d: _poll(d)["callbacks"][0].update(
        prototype="void ctgen_cb_poll_ops_done(int status) { system(0); }"),
     r"^functions\[1\]\.callbacks\[0\]\.prototype: is not a prototype: it holds '\{'"),
    (lambda d: _poll(d)["callbacks"][0].update(
        prototype="__attribute__((constructor)) void ctgen_cb_poll_ops_done(int status)"),
     r"^functions\[1\]\.callbacks\[0\]\.prototype: is not a prototype: it holds an "
     r"attribute"),
    (lambda d: _poll(d)["callbacks"][0].update(
        prototype="void ctgen_cb_poll_ops_done(int status, char x[abort()])"),
     r"^functions\[1\]\.callbacks\[0\]\.prototype: is not a prototype: it has an array "
     r"size that calls abort\(\)"),
    (lambda d: _poll(d)["callbacks"][0].update(name="exit"),
     r"^functions\[1\]\.callbacks\[0\]\.name: exit is not a callback's name"),
    (lambda d: _poll(d).update(callbacks=_poll(d)["callbacks"][1:]),
     r"^functions\[1\]\.cases\[\d+\]\.\S+: .*ctgen_cb_poll_ops_done, which (the file "
     r"does not list|is no stub)"),
])
def test_export_json_with_bad_callbacks_is_refused(tmp_path: Path, edit,
                                                   message: str) -> None:
    _, fc = _callback_cases(tmp_path)
    doc = json.loads(file_cases_to_json(fc))
    edit(doc)
    with pytest.raises(ValueError, match=message):
        file_cases_from_json(json.dumps(doc))


def test_cached_and_replayed_cases_are_signed_as_fresh_ones(tmp_path: Path) -> None:
    """Signatures are never read from the JSON: the cache and a replay read them from the
    unit, so the harness is the same text; a callback's prototype is read with the unit."""
    from pytest_ctgen.codegen.harness import generate_harness
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import ReplayError, generate_file, replay_run

    unit = tmp_path / "ops.c"
    unit.write_text(CALLBACKS)
    fresh = generate_file(unit, "ops.c", Options(), tmp_path / "cache")
    cached = generate_file(unit, "ops.c", Options(), tmp_path / "cache")
    assert fresh is not None and cached is not None and cached.from_cache
    assert all(f.signature for f in fresh.cases.functions)
    assert all(s.signature for s in (*fresh.cases.stubs, *fresh.cases.callbacks()))
    harness = generate_harness(fresh.cases, str(unit))
    assert generate_harness(cached.cases, str(unit)) == harness
    out = write_export(fresh.cases, unit, tmp_path / "export", [], base_dir=tmp_path)
    replayed = replay_run(out / "ops.ctgen.json", Options(), None, roots=(tmp_path,)).generated.cases
    assert generate_harness(replayed, str(unit)) == harness
    doc = json.loads((out / "ops.ctgen.json").read_text())
    _poll(doc)["callbacks"][0]["prototype"] = "unknown_t ctgen_cb_poll_ops_done(int status)"
    (out / "ops.ctgen.json").write_text(json.dumps(doc))
    with pytest.raises(ReplayError, match="cannot read the prototype of "
                                          "ctgen_cb_poll_ops_done"):
        replay_run(out / "ops.ctgen.json", Options(), None, roots=(tmp_path,))
