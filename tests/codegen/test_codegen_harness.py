"""The generated harness: warning-free C, exact literals, and a driver whose output and exit
status report every case."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ctgen_sample_unit import STUBS, sample_file_cases, signed, signed_by_source, write_unit
from pytest_ctgen.cases import (
    ArrayValue,
    Binding,
    BytesValue,
    Case,
    Expected,
    FileCases,
    FloatValue,
    FunctionCases,
    IntValue,
    PointerValue,
)
from pytest_ctgen.codegen.c_values import c_float_literal, c_int_literal, c_string
from pytest_ctgen.codegen.harness import generate_harness
from pytest_ctgen.codegen.harness_names import case_name
from pytest_ctgen.c_harness_files import harness_dir

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

WARNINGS = ["-Wall", "-Wextra", "-Werror"]


def _compile(source: Path, out: Path, *flags: str, link: bool = False,
             runtime: bool = True) -> None:
    """Compile `source`; with `link`, a program of it (a harness: and the runtime,
    ctgen_runtime.c)."""
    cmd = ["gcc", *WARNINGS, *flags, f"-I{harness_dir()}", str(source), "-o", str(out)]
    if not link:
        cmd.insert(1, "-c")
    else:
        if runtime:
            cmd[-2:-2] = [str(harness_dir() / "ctgen_runtime.c")]
        cmd.append("-lm")
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _driver(tmp_path: Path, fc: FileCases, *flags: str) -> subprocess.CompletedProcess[str]:
    unit = write_unit(tmp_path / "src")
    harness = tmp_path / "driver.c"
    harness.write_text("#define CTGEN_DRIVER_MAIN 1\n" +
                       generate_harness(signed(fc, unit), str(unit)))
    exe = tmp_path / "driver"
    _compile(harness, exe, *flags, link=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


# ------------------------------------------------------------------------------ literals


@pytest.mark.parametrize("value", [0, 1, -1, 127, -128, 2**31 - 1, -(2**31), 2**31, 2**32 - 1,
                                   2**32, -(2**31) - 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1])
def test_int_literals_are_exact_in_c(tmp_path: Path, value: int) -> None:
    lit = c_int_literal(value)
    src = tmp_path / "lit.c"
    src.write_text(
        "#include <stdio.h>\n"
        f"int main(void) {{ unsigned long long u = (unsigned long long)({lit});\n"
        f"  long double s = ({lit}); printf(\"%llu %d\\n\", u, s < 0); return 0; }}\n")
    _compile(src, tmp_path / "lit", "-std=c11", link=True, runtime=False)
    out = subprocess.run([str(tmp_path / "lit")], capture_output=True, text=True).stdout.split()
    assert int(out[0]) == value % 2**64
    assert out[1] == ("1" if value < 0 else "0")


def test_int_literal_rejects_more_than_128_bits() -> None:
    with pytest.raises(ValueError):
        c_int_literal(2**128)
    with pytest.raises(ValueError):
        c_int_literal(-(2**127) - 1)


def test_float_literals() -> None:
    assert c_float_literal(FloatValue.of(1.5, 4)) == "1.5f"
    assert c_float_literal(FloatValue.of(-0.0, 4)) == "-0.0f"
    assert c_float_literal(FloatValue.of(0.1, 8)) == "0.1"
    assert c_float_literal(FloatValue.of(1e16, 8)) == "1e+16"
    assert c_float_literal(FloatValue.of(float("inf"), 4)) == "ctgen_float_from_bits(0x7f800000UL)"
    assert c_float_literal(FloatValue(0x7FF8000000000001, 8)) == \
        "ctgen_double_from_bits(0x7ff8000000000001ULL)"


def test_c_string_escapes() -> None:
    assert c_string('a"b\\c') == '"a\\"b\\\\c"'
    assert c_string("x??=\n") == '"x\\?\\?=\\n"'
    assert c_string("\u00e9\udc80") == '"\\303\\251\\200"'  # UTF-8, a byte standing for itself


# ------------------------------------------------------------------------- the harness


@pytest.mark.parametrize("std", ["c89", "gnu89", "c99", "c11", "gnu17"])
def test_harness_compiles_without_warnings(tmp_path: Path, std: str) -> None:
    unit = write_unit(tmp_path / "src")
    harness = tmp_path / "harness.c"
    harness.write_text(generate_harness(sample_file_cases(with_failures=True), str(unit)))
    _compile(harness, tmp_path / "harness.o", f"-std={std}")
    _compile(harness, tmp_path / "harness_cov.o", f"-std={std}", "-DCTGEN_COVERAGE",
             "--coverage")
    _compile(harness, tmp_path / "harness_drv.o", f"-std={std}", "-DCTGEN_DRIVER_MAIN")
    runtime = harness_dir() / "ctgen_runtime.c"
    _compile(runtime, tmp_path / "runtime.o", f"-std={std}")
    _compile(runtime, tmp_path / "runtime_cov.o", f"-std={std}", "-DCTGEN_COVERAGE")


def test_harness_shape() -> None:
    fc = sample_file_cases()
    text = generate_harness(fc, "/abs/src/sample.c")
    assert '#define CTGEN_RUNTIME_HEADER "ctgen_runtime.h"' in text
    assert text.index("#include CTGEN_RUNTIME_HEADER") < text.index("#include CTGEN_UNIT_SRC")
    assert '#define CTGEN_UNIT_SRC "/abs/src/sample.c"' in text
    assert "(-9223372036854775807LL - 1)" in text
    assert "18446744073709551615ULL" in text
    assert "4294967295U" in text
    assert "g_cfg.gains[2]" in text
    assert "const int ctgen_arg0 = (-7);" in text
    assert '"id_i8[case1]"' in text
    assert text.count("ctgen_calls_sensor_read = 0;") == 1
    # a macro name is included as it is
    assert "#include UNIT_UNDER_TEST" in generate_harness(fc, "UNIT_UNDER_TEST")


POINTER_UNIT = """
int sum2(const int *p) { return p[0] + p[1]; }
void put(int *out, int v) { out[1] = v; }
int *first(int *p) { return p; }
"""


def _pointer_cases(put_predicted: int) -> FileCases:
    obj = "ctgen_obj_p"
    objects = (Binding(obj, "int @[3]", ArrayValue((IntValue(2), IntValue(5), IntValue(0)))),)
    sum_case = Case("sum2", 1, (Binding("p", "const int *@", PointerValue(obj)),), (),
                    Expected(IntValue(7)), objects=objects)
    put_case = Case("put", 1, (Binding("out", "int *@", PointerValue(obj, 0)),
                               Binding("v", "int @", IntValue(9))), (),
                    Expected(None, objects=(Binding(obj, "int @[3]", ArrayValue(
                        (IntValue(2), IntValue(put_predicted), IntValue(0)))),)),
                    objects=objects)
    first_case = Case("first", 1, (Binding("p", "int *@", PointerValue(obj, 4)),), (),
                      Expected(PointerValue(obj, 4)), objects=objects)
    return signed_by_source(FileCases("ptr.c", (
        FunctionCases("sum2", 2, "int sum2(const int *p)", (sum_case,), "exhausted"),
        FunctionCases("put", 3, "void put(int *out, int v)", (put_case,), "exhausted"),
        FunctionCases("first", 4, "int *first(int *p)", (first_case,), "exhausted"))),
        POINTER_UNIT)


@pytest.mark.parametrize("predicted, passes", [(9, True), (8, False)])
def test_pointer_inputs_point_into_case_objects(tmp_path: Path, predicted: int,
                                                passes: bool) -> None:
    unit = tmp_path / "ptr.c"
    unit.write_text(POINTER_UNIT)
    harness = tmp_path / "driver.c"
    harness.write_text("#define CTGEN_DRIVER_MAIN 1\n" +
                       generate_harness(_pointer_cases(predicted), str(unit)))
    exe = tmp_path / "driver"
    _compile(harness, exe, "-std=c11", link=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    assert lines[-1] == ("3 passed, 0 failed" if passes else "2 passed, 1 failed")
    if not passes:
        assert any("(*p)[1]: predicted 8, observed 9" in line for line in lines), lines


TEXT_UNIT = """
void greet(char *out) { out[0] = 'H'; out[1] = '\\n'; out[2] = '\\''; out[3] = 0; }
"""


def test_text_differences_are_shown_as_characters(tmp_path: Path) -> None:
    """A wrong prediction of a char array of text names each character it got wrong as a
    C character constant, as the case writes them (char_text.py)."""
    unit = tmp_path / "text.c"
    unit.write_text(TEXT_UNIT)
    obj = "ctgen_obj_out"

    def text(data: bytes) -> ArrayValue:
        return ArrayValue(tuple(IntValue(b) for b in data), text=True)

    case = Case("greet", 1, (Binding("out", "char *@", PointerValue(obj)),), (),
                Expected(None, objects=(Binding(obj, "char @[5]", text(b"R\t\\x\0")),)),
                objects=(Binding(obj, "char @[5]", text(b"abcd\0")),))
    fc = signed_by_source(FileCases("text.c", (
        FunctionCases("greet", 2, "void greet(char *out)", (case,), "exhausted"),)), TEXT_UNIT)
    harness = tmp_path / "driver.c"
    harness.write_text("#define CTGEN_DRIVER_MAIN 1\n" + generate_harness(fc, str(unit)))
    exe = tmp_path / "driver"
    _compile(harness, exe, "-std=c11", link=True)
    lines = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60
                           ).stdout.splitlines()
    assert lines[0] == ("FAIL greet[case1]: (*out)[0]: predicted 'R', observed 'H'; "
                        "(*out)[1]: predicted '\\t', observed '\\n'; "
                        "(*out)[2]: predicted '\\\\', observed '\\''; "
                        "(*out)[3]: predicted 'x', observed '\\0'"), lines


def test_driver_runs_every_case(tmp_path: Path) -> None:
    fc = sample_file_cases()
    done = _driver(tmp_path, fc, "-std=c11")
    lines = done.stdout.splitlines()
    names = [case_name(c) for c in fc.all_cases()]
    assert lines[:-1] == [f"PASS {n}" for n in names], done.stdout
    assert lines[-1] == f"{len(names)} passed, 0 failed"
    assert done.returncode == 0


def test_driver_reports_wrong_predictions(tmp_path: Path) -> None:
    fc = sample_file_cases(with_failures=True)
    done = _driver(tmp_path, fc)
    lines = done.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    assert fails == [
        "FAIL id_i32[case4]: return: predicted 7, observed 5",
        "FAIL bump[case2]: g_mode: predicted MODE_FAULT, observed MODE_ON; "
        "stub calls: log_event()",
        "FAIL set_bits[case2]: return: predicted 0x00ff, observed 0x00f0",
    ]
    total = len(fc.all_cases())
    assert lines[-1] == f"{total - 3} passed, 3 failed"
    assert done.returncode == 1


def test_failure_messages_show_both_values(tmp_path: Path) -> None:
    cases = (
        Case("id_u64", 1, (Binding("x", "uint64_t @", IntValue(2**64 - 1)),), (),
             Expected(IntValue(2**64 - 2))),
        Case("id_i8", 1, (Binding("x", "int8_t @", IntValue(-128)),), (),
             Expected(IntValue(-127))),
        Case("id_d", 1, (Binding("x", "double @", FloatValue.of(-0.0, 8)),), (),
             Expected(FloatValue.of(0.0, 8))),
        Case("id_f", 1, (Binding("x", "float @", FloatValue.of(float("nan"), 4)),), (),
             Expected(FloatValue.of(1.0, 4))),
        Case("id_f", 2, (Binding("x", "float @", FloatValue(0x7FC00001, 4)),), (),
             Expected(FloatValue(0x7FC00000, 4))),  # two NaNs match
        Case("swap_halves", 1, (), (Binding("g_word", "union word @",
                                            BytesValue(b"\x01\x02\x03\x04")),),
             Expected(None, (Binding("g_word", "union word @",
                                     BytesValue(b"\x01\x02\x01\x02")),))),
    )
    protos = {"id_u64": "uint64_t id_u64(uint64_t x)", "id_i8": "int8_t id_i8(int8_t x)",
              "id_d": "double id_d(double x)", "id_f": "float id_f(float x)",
              "swap_halves": "void swap_halves(void)"}
    fc = FileCases("src/sample.c", tuple(
        FunctionCases(n, 1, p, tuple(c for c in cases if c.function == n), "exhausted")
        for n, p in protos.items()), STUBS)
    lines = _driver(tmp_path, fc).stdout.splitlines()
    assert "FAIL id_u64[case1]: return: predicted 18446744073709551614, " \
           "observed 18446744073709551615" in lines
    assert "FAIL id_i8[case1]: return: predicted -127, observed -128" in lines
    assert "FAIL id_d[case1]: return: predicted 0, observed -0" in lines
    assert any(re.fullmatch(r"FAIL id_f\[case1\]: return: predicted 1, observed nan\(0x7fc00000\)",
                            ln) for ln in lines), lines
    assert "PASS id_f[case2]" in lines
    assert "FAIL swap_halves[case1]: g_word: predicted bytes 01020102, observed 03040102 " \
           "(first difference at byte 0)" in lines
    assert lines[-1] == "1 passed, 5 failed"


def test_driver_without_cases(tmp_path: Path) -> None:
    done = _driver(tmp_path, FileCases("src/sample.c", (), STUBS))
    assert done.stdout.splitlines() == ["0 passed, 0 failed"]
    assert done.returncode == 0


def test_unit_with_its_own_main(tmp_path: Path) -> None:
    unit = tmp_path / "app.c"
    unit.write_text("int twice(int x) { return 2 * x; }\n"
                    "int main(void) { return twice(0); }\n")
    fc = FileCases("app.c", (
        FunctionCases("twice", 1, "int twice(int x)", (
            Case("twice", 1, (Binding("x", "int @", IntValue(21)),), (), Expected(IntValue(42))),
        ), "exhausted"),
        FunctionCases("main", 2, "int main(void)", (
            Case("main", 1, (), (), Expected(IntValue(0))),), "exhausted"),
    ))
    harness = tmp_path / "driver.c"
    harness.write_text("#define CTGEN_DRIVER_MAIN 1\n" +
                       generate_harness(signed(fc, unit), str(unit)))
    _compile(harness, tmp_path / "driver", link=True)
    done = subprocess.run([str(tmp_path / "driver")], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["PASS twice[case1]", "PASS main[case1]",
                                        "2 passed, 0 failed"]
