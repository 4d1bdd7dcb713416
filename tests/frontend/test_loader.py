"""load_unit: the corpus loads with the functions its MANIFEST lists, and globals, functions
and locations come out as the rest of the pipeline needs them."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from pycparser import c_ast

from pytest_ctgen.errors import ParseError, PreprocessError, UnsupportedError
from pytest_ctgen.frontend import ctype as ct
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.unit import GLOBAL, PARAM

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"  # ../shared beside the clone


def _manifest() -> dict[str, tuple[list[str], list[str]]]:
    rows: dict[str, tuple[list[str], list[str]]] = {}
    for line in (CORPUS / "MANIFEST.md").read_text().splitlines():
        match = re.match(r"^\| `(\w+\.c)` \| (.*?) \|.*\| ([^|]*) \|$", line)
        if match:
            functions = re.findall(r"`(\w+)` \d+", match.group(2))
            externs = re.findall(r"`(\w+)`", match.group(3))
            rows[match.group(1)] = (functions, externs)
    return rows


MANIFEST = _manifest() if CORPUS.is_dir() else {}


def test_manifest_lists_forty_files():
    if not MANIFEST:
        pytest.skip("corpus not available")
    assert len(MANIFEST) == 40


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_corpus_file_loads_with_the_manifest_functions(name, tmp_path):
    functions, externs = MANIFEST[name]
    path = CORPUS / name
    unit = load_unit(path, [f"-I{CORPUS}"])
    defined_here = [f.name for f in unit.defined_functions() if f.location.file == str(path)]
    assert defined_here == functions
    redeclared = [f"{f.prototype};" for f in unit.defined_functions()
                  if f.location.file == str(path)]
    for function in unit.defined_functions():
        if function.location.file == str(path):
            assert function.end_line > function.location.line
    check = tmp_path / "redeclare.c"
    check.write_text(f'#include "{path}"\n' + "\n".join(redeclared) + "\n")
    subprocess.run(["gcc", "-std=c11", "-fsyntax-only", "-Werror", f"-I{CORPUS}", str(check)],
                   check=True, capture_output=True)
    own_undefined = {f.name for f in unit.undefined_functions() if f.in_file(str(path))}
    assert set(externs) <= own_undefined
    assert not [n for n, e in unit.unsupported.items()
                if e.location is not None and e.location.file == str(path)]
    for variable in unit.globals.values():
        assert variable.kind == GLOBAL and "@" in variable.declaration


def test_corpus_details_struct_bitfield():
    path = CORPUS / "struct_bitfield.c"
    unit = load_unit(path, [f"-I{CORPUS}"])
    status = unit.typedefs["can_status_t"]
    assert isinstance(status, ct.RecordType) and status.size == 4
    trim = status.member("trim")
    assert (trim.offset, trim.bit_offset, trim.bit_width) == (1, 4, 4)
    assert trim.type == ct.INT
    health = unit.functions["can_health"]
    assert health.params[0].type is status
    assert health.prototype == "int can_health(can_status_t st)"
    assert health.location.line == 27 and health.end_line == 53


def test_globals_are_merged_and_described(write_c):
    path = write_c("globals.c", (
        "#include <stdint.h>\n"
        "#include <stdio.h>\n"
        "extern int counter;\n"
        "int tentative;\n"
        "static const uint8_t table[4] = {1, 2, 3, 4};\n"
        "int counter = 5;\n"
        "int tentative;\n"
        "volatile uint32_t status_reg;\n"
        "extern int only_declared;\n"
        "int filled[] = {1, 2, [9] = 3};\n"
        "extern int later_sized[];\n"
        "int later_sized[6];\n"
        "const char *names[] = {\"a\", \"b\"};\n"
        "struct { int x, y; } origin = {0, 0};\n"
    ))
    unit = load_unit(path)
    g = unit.globals
    counter = g["counter"]
    assert not counter.is_extern and isinstance(counter.init, c_ast.Constant)
    assert (counter.location.file, counter.location.line) == (str(path), 6)
    assert g["tentative"].location.line == 4 and not g["tentative"].is_extern
    table = g["table"]
    assert (table.is_const, table.is_static, table.declaration) == \
        (True, True, "const uint8_t @[4]")
    assert table.type == ct.ArrayType(ct.UCHAR, 4)
    assert g["status_reg"].is_volatile and g["status_reg"].type == ct.UINT
    assert g["only_declared"].is_extern
    assert g["filled"].type == ct.ArrayType(ct.INT, 10) and g["filled"].declaration == "int @[10]"
    assert g["later_sized"].type == ct.ArrayType(ct.INT, 6) and not g["later_sized"].is_extern
    assert g["names"].type == ct.ArrayType(ct.PointerType(ct.CHAR), 2)
    assert not g["names"].is_const and g["names"].type.element.target_const
    assert g["origin"].declaration == "struct { int x; int y; } @"
    stdout = g["stdout"]  # header-declared externs are globals too
    assert stdout.is_extern and not unit.in_main_file(stdout.location)
    own = [n for n, v in g.items() if unit.in_main_file(v.location)]
    assert own == ["counter", "tentative", "table", "status_reg", "only_declared", "filled",
                   "later_sized", "names", "origin"]


def test_functions_params_prototypes_and_ends(write_c):
    path = write_c("funcs.c", (
        "#include <string.h>\n"
        "typedef int (*cb_t)(int);\n"
        "static int helper(int);\n"
        "int api(const char *name, int values[8], int, cb_t cb, ...);\n"
        "\n"
        "static int helper(int x)\n"
        "{\n"
        "    return x + 1;\n"
        "}\n"
        "\n"
        "int api(const char *name, int values[const 8], int flags, cb_t cb, ...)\n"
        "{\n"
        "    if (name == 0) {\n"
        "        return -1;\n"
        "    }\n"
        "    return helper(values[0]) + flags + cb(1);\n"
        "}\n"
        "extern void notify(int);\n"
        "int unnamed(int, char *);\n"
    ))
    unit = load_unit(path)
    helper = unit.functions["helper"]
    assert helper.is_static and helper.is_defined and helper.end_line == 9
    assert helper.location.line == 6 and helper.prototype == "int helper(int x)"
    api = unit.functions["api"]
    assert api.type.variadic and api.end_line == 17 and api.location.line == 11
    assert [p.name for p in api.params] == ["name", "values", "flags", "cb"]
    assert all(p.kind == PARAM for p in api.params)
    values = api.params[1]
    assert values.type == ct.PointerType(ct.INT) and values.is_const
    assert values.declaration == "int * const @"
    assert api.params[0].type.target_const and api.params[0].declaration == "const char *@"
    assert api.params[3].declaration == "cb_t @"
    assert api.params[0].location.line == 11
    assert api.prototype == ("int api(const char *name, int values[const 8], int flags, "
                             "cb_t cb, ...)")
    unnamed = unit.functions["unnamed"]
    assert [p.name for p in unnamed.params] == ["p0", "p1"]
    assert unnamed.prototype == "int unnamed(int p0, char *p1)"
    assert not unit.functions["notify"].is_defined
    memcpy = unit.functions["memcpy"]  # header functions are kept; the consumer decides
    assert not memcpy.in_file(unit.main_file) and len(memcpy.params) == 3
    assert [f.name for f in unit.own_functions()] == ["helper", "api", "notify", "unnamed"]


def test_enum_constants_and_typedefs(write_c):
    unit = load_unit(write_c("enums.c", (
        "typedef enum { IDLE, RUN = 4, STOP } state_t;\n"
        "enum level { LOW = -2, HIGH };\n"
        "state_t current = RUN;\n")))
    assert unit.enum_constants["STOP"] == (5, ct.INT)
    assert unit.enum_constants["LOW"] == (-2, ct.INT)
    state = unit.typedefs["state_t"]
    assert isinstance(state, ct.EnumType) and not state.signed
    assert unit.globals["current"].type is state or unit.globals["current"].type == state


def test_unsupported_declarations_are_skipped_with_a_reason(write_c):
    path = write_c("partly.c", (
        "#include <complex.h>\n"
        "int fine(int x) { return x; }\n"
        "double complex rotate(double complex z) { return z; }\n"
        "int after(void) { return 2; }\n"
        "int old_style(a) int a; { return a; }\n"
    ))
    unit = load_unit(path)
    assert {"fine", "after"} <= set(unit.functions)
    error = unit.unsupported["rotate"]
    assert isinstance(error, UnsupportedError)
    assert str(error).startswith(f"{path}:3:")
    assert "complex type" in error.message
    assert "old-style" in unit.unsupported["old_style"].message
    assert "rotate" not in unit.functions
    # the definitions are still listed, to be reported as skipped
    assert [(d.name, d.location.line, d.prototype) for d in unit.skipped_definitions] == [
        ("rotate", 3, "double _Complex rotate(double _Complex z)"),
        ("old_style", 5, "int old_style(a)")]


def test_locations_point_into_the_users_file_after_headers(write_c):
    path = write_c("lines.c", (
        "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n\n"
        "double g_value;\n\nint late(void)\n{\n    return 0;\n}\n"))
    unit = load_unit(path)
    where = unit.globals["g_value"].location
    assert (where.line, where.column) == (5, 8)
    late = unit.functions["late"]
    assert (late.location.file, late.location.line, late.end_line) == (str(path), 7, 10)
    assert unit.functions["printf"].location.file.endswith("stdio.h")


def test_load_errors_are_located(write_c):
    with pytest.raises(PreprocessError) as pre:
        load_unit(write_c("nohdr.c", "#include \"gone.h\"\n"))
    assert str(pre.value).endswith("nohdr.c:1:10: gone.h: No such file or directory")
    path = write_c("syntax.c", "#include <stdint.h>\nint f(void) {\n  return 1 +;\n}\n")
    with pytest.raises(ParseError) as bad:
        load_unit(path)
    assert str(bad.value) == f"{path}:3:13: Invalid expression"


def test_unit_records_inputs_for_caches(write_c):
    path = write_c("cache_inputs.c", "int x;\ntypedef const int row_t[2];\nint f(row_t r);\n")
    unit = load_unit(path, ["-DVALUE=1"])
    again = load_unit(path, ["-DVALUE=1"], preprocessed=unit.preprocessed)
    assert list(again.globals) == ["x"] and again.preprocessed == unit.preprocessed
    row = unit.functions["f"].params[0]
    assert row.type == ct.PointerType(ct.INT) and row.type.target_const
    assert unit.cflags == ("-DVALUE=1",)
    assert "int x;" in unit.preprocessed
    assert unit.main_file == str(path)
    assert unit.resolver is not None and unit.resolver.at_file_scope
