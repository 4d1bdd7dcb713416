"""The rules an export is read with (export_schema): what they accept is what generation
and `--ctgen-export` write, what they refuse cannot reach C, a command line or a Makefile."""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from ctgen_sample_unit import signed

from pytest_ctgen.c_text_rules import (
    expression_problem,
    prototype_problem,
    template_problem,
)
from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import (
    Binding,
    Case,
    Contract,
    ContractCheck,
    Expected,
    FileCases,
    FunctionCases,
    IntValue,
)
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.codegen.export import export_names, write_export
from pytest_ctgen.compile_db import _KEEP
from pytest_ctgen.export_schema import SchemaError, UnitNames, cflags_problem, load_json
from pytest_ctgen.value_reader import value_from_json
from pytest_ctgen.value_shapes import template_shape

# Declarations as generation writes them (examples/ and frontend/test_types.py).
GENERATED_TEMPLATES = [
    "uint8_t @", "volatile uint8_t @", "const uint8_t *@", "unsigned char @[10]",
    "signed char @[10][3]", "const uint8_t **@", "const int8_t (*@)[3]",
    "unsigned char *@[10]", "struct channel @[10]", "unsigned char @[]", "_Bool @",
    "const uint8_t @[4]", "int (*@)(int)", "volatile unsigned int @", "struct S @",
    "struct { int a; } @", "char * const @[3]", "const char * const *@", "int @[2][3]",
    "enum color @", "void (*@[4])(void)", "int (*(*@)(int))[3]", "log_fn @",
    "__typeof__((*(row_t *)0)[0]) *@", "void (*@)(int a[], int b[][4])", "void *@",
    "struct { int a : 3; union { int b; char c[2]; } u; } @", "int (*@)(int, ...)",
]

ACCEPTED_FLAGS = [
    ["-Iinclude"], ["-I", "include dir"], ["-I/opt/arm/include"], ["-isystem", "/x"],
    ["-iquote", "../src"], ["-idirafter", "d"], ["-include", "cfg.h"], ["-imacros", "m.h"],
    ["-isysroot", "/opt/sys"], ["--sysroot=/opt/sys"], ["-I-"], ["-nostdinc"],
    ["-DGAIN=3"], ["-D", "GAIN=3"], ["-DNDEBUG"], ['-DVERSION="1.2"'], ["-DEMPTY="],
    ["-DREG=((volatile unsigned *)0x40000000u)"], ["-DINIT={0, 1}"], ["-UNDEBUG"],
    ["-DUNUSED(x)=(void)(x)"], ["-D__attribute__(x)="], ["-DMAX(a, b)=((a) > (b) ? a : b)"],
    ["-U", "X"], ["-std=c99"], ["-std=gnu11"], ["--std=c11"], ["-ansi"], ["-pedantic"],
    ["-m32"], ["-march=armv7-m"], ["-mthumb"], ["-mabi=aapcs"], ["-funsigned-char"],
    ["-fno-signed-char"], ["-fshort-enums"], ["-fpack-struct=4"], ["-fno-builtin"],
    ["-fno-builtin-memcpy"], ["-fwrapv"], ["-fno-common"], ["-O0"], ["-Os"], ["-Ofast"],
    ["-g"], ["-g3"], ["-ggdb"], ["-Wall"], ["-Wextra"], ["-Wno-unused-parameter"],
    ["-Werror=format"], ["-w"], ["-fexcess-precision=standard"],
    [f for f in sorted(_KEEP)],  # what a compilation database keeps (compile_db)
]

REFUSED_FLAGS = [
    (["-wrapper", "/bin/sh,-c,touch x"], 0), (["-B/tmp"], 0), (["-B", "/tmp"], 0),
    (["-fplugin=x.so"], 0), (["-fplugin-arg-x-y=z"], 0), (["@args"], 0), (["-specs=x"], 0),
    (["--specs=x"], 0), (["-o", "x"], 0), (["-x", "c"], 0), (["-Wl,-plugin,x"], 0),
    (["-Wa,-o,x"], 0), (["-Wp,-fplugin=x"], 0), (["-Xlinker", "x"], 0), (["-fdump-tree-all"], 0),
    (["-fprofile-generate"], 0), (["-fsanitize=address"], 0), (["-save-temps"], 0),
    (["-MD"], 0), (["-MF", "x"], 0), (["-c"], 0), (["-L/tmp"], 0), (["-lfoo"], 0),
    (["-DX=system(0)"], 0), (["-DX=(abort)()"], 0), (["-DX=1;abort()"], 0),
    (["-D'f(x)=x'"], 0), (["-Dread(x)=system(x)"], 0), (["-Dread(x)=(x)(0)"], 0), (["-Dctgen_c=1"], 0), (["-DX=a=1"], 0), (["-DX=a++"], 0),
    (["-isystem", "-wrapper"], 1), (["-I", "--help"], 1), (["-I-x"], 0), (["-I"], 0),
    (["-include"], 0), (["-O0", "-I/a\nb"], 1), (["-O0", 3], 1), (["-fno-ident\n"], 0),
]


@pytest.mark.parametrize("flags", ACCEPTED_FLAGS, ids=lambda f: " ".join(f)[:40])
def test_preprocessor_language_and_abi_flags_are_accepted(flags: list[str]) -> None:
    assert cflags_problem(flags) is None


@pytest.mark.parametrize("flags, index", REFUSED_FLAGS, ids=lambda f: str(f)[:40])
def test_other_flags_are_refused_at_their_index(flags: list, index: int) -> None:
    problem = cflags_problem(flags)
    assert problem is not None and problem[0] == index, problem


@pytest.mark.parametrize("template", GENERATED_TEMPLATES)
def test_templates_the_generator_writes_are_accepted(template: str) -> None:
    assert template_problem(template) is None


@pytest.mark.parametrize("template", [
    "int @ = 1", "int @; int x", "int @[n]", "int @[1 + 1]", "int @[sizeof(int[f()])]",
    "int @, x", "int x", "int @ @", "int @ __attribute__((cleanup(f)))", "int @ asm(\"r1\")",
    "_Pragma(\"x\") int @", "char @[] = \"x\"", "int @ { f(); }", "int (@", "int @)",
    "int @ ??/", "int @[4]??=", "int @ # define x",
    # the members of an anonymous type are declarators too: a size would be evaluated
    "struct { int x[(__builtin_printf(\"P\"),1)]; } @", "struct { int x[n]; } *@",
    "struct { int x[f()]; } @", "struct { int b : f(); } @", "enum { A = g() } @",
    "struct { struct { char c[sizeof(int[f()])]; } in; } @",
])
def test_templates_that_are_more_than_a_declaration_are_refused(template: str) -> None:
    assert template_problem(template) is not None


@pytest.mark.parametrize("template, kind, low, high, count", [
    ("uint8_t @", "int", 0, 255, None), ("int8_t @", "int", -128, 127, None),
    ("const volatile short @", "int", -32768, 32767, None),
    ("unsigned long long @", "int", 0, (1 << 64) - 1, None), ("_Bool @", "int", 0, 1, None),
    ("char @", "int", -128, 255, None), ("double @", "double", None, None, None),
    ("char *@[4]", "array", None, None, 4), ("int (*@)[4]", "pointer", None, None, None),
    ("void (*@)(int a[])", "pointer", None, None, None), ("struct s @", "any", None, None, None),
    ("unsigned char @[]", "array", None, None, None),
])
def test_what_a_template_holds(template: str, kind: str, low: int | None, high: int | None,
                               count: int | None) -> None:
    shape = template_shape(template)
    assert shape.kind == kind
    if low is not None:
        assert (shape.low, shape.high) == (low, high)
    assert shape.count == count


@pytest.mark.parametrize("prototype, name, ok", [
    ("int normalize_name(const char *in, char out[8 + 1])", "normalize_name", True),
    ("int f(int a[static 4], int n, int m[n])", "f", True),
    ("int f(int (*cmp)(const void *, const void *), ...)", "f", True),
    ("struct s *f(struct { int a; } x)", "f", True),
    ("int f(int a[g()])", "f", False), ("int f(int a[n = 1])", "f", False),
    ("int f(void) { return 0; }", "f", False), ("int g(void)", "f", False),
    ("__attribute__((constructor)) int f(void)", "f", False), ("int f(char *s = \"x\")", "f", False),
])
def test_prototypes(prototype: str, name: str, ok: bool) -> None:
    assert (prototype_problem(prototype, name) is None) == ok


@pytest.mark.parametrize("expression, ok", [
    ("(ctgen_return == (&arena[ctgen_initial_1])) && (arena_top == (ctgen_initial_2 + size))",
     True),
    ("(*ctgen_aux_added) == n", True), ("((ctgen_return == ((void *) 0)) && x)", True),
    ("(uint8_t) (x + 1) > sizeof(struct s)", True), ("p->next != 0 ? p->v : -1", True),
    ("f(x)", False), ("(f)(x)", None), ("(*f)(x)", False), ("t[0](x)", False),
    ("(0, f)(x)", False), ("x = 1", False), ("x += 1", False), ("x++", False), ("--x", False),
    ("x; f()", False), ("\"s\" == 0", False), ("({ f(); })", False), ("x ??/", False),
])
def test_expressions_neither_call_nor_assign(expression: str, ok: bool | None) -> None:
    """None: a cast or a call, told apart only where the unit's types are known."""
    lenient = expression_problem(expression)
    strict = expression_problem(expression, typedefs=frozenset({"uint8_t"}),
                                known=frozenset({"ctgen_return", "arena", "arena_top",
                                                 "ctgen_initial_1", "ctgen_initial_2",
                                                 "size", "ctgen_aux_added", "n", "x",
                                                 "p", "t"}))
    if ok is None:
        assert lenient is None and strict is not None
    else:
        assert (lenient is None) == ok and (strict is None) == ok, (lenient, strict)


def test_names_outside_the_unit_are_refused_where_it_is_known() -> None:
    assert expression_problem("errno == 0", known=frozenset({"x"})) == \
        "names errno, which the unit does not declare here"
    assert expression_problem("s.errno == 0", known=frozenset({"s"})) is None


def test_deep_documents_are_refused_without_recursion() -> None:
    with pytest.raises(SchemaError, match="nested more than 64 levels deep"):
        load_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SchemaError, match="nested more than 64 levels deep"):
        load_json(json.dumps({"functions": [{"value": [[[[[[[[[[0]]]]]]]]]] * 8}]})
                  .replace("0", "[" * 80 + "0" + "]" * 80))


def test_value_errors_name_the_value() -> None:
    with pytest.raises(SchemaError, match=r'^value\.a\.b\[1\]\.float: expected a number, '
                                          r'"inf", "-inf" or "nan", found "x"$'):
        value_from_json({"a": {"b": [1, {"float": "x"}]}})
    # the widest integer is 128 bits (__int128)
    assert value_from_json(1 << 64) == IntValue(1 << 64)
    with pytest.raises(SchemaError, match=rf"^value: {1 << 128} is out of range"):
        value_from_json(1 << 128)


def test_units_of_one_base_name_get_directories_of_their_own() -> None:
    assert export_names(["src/motor.c", "lib/util.c", "app/util.c", "app/x/y.c",
                         "app/x/y.h", "/abs/z.c"]) == {
        "src/motor.c": "motor", "lib/util.c": "lib/util", "app/util.c": "app/util",
        "app/x/y.c": "app/x/y_c", "app/x/y.h": "app/x/y_h", "/abs/z.c": "z"}


UNIT = "int32_t scaled(int32_t x) { return x * GAIN + OFFSET; }\n"
UNIT_NAMES = UnitNames(
    defined=frozenset({"scaled"}), prototypes={"scaled": "int32_t scaled(int32_t x)"},
    params={"scaled": ("x",)}, globals=frozenset({"g"}), extern_globals=frozenset(),
    enum_constants=frozenset(), typedefs=frozenset({"int32_t"}))


def _scaled_cases(prototype: str = "int32_t scaled(int32_t x)", condition: str = "1"
                  ) -> FileCases:
    check = ContractCheck("postcondition", condition, "x", "u.c:1:1")
    return FileCases("u.c", (FunctionCases(
        "scaled", 1, prototype, (Case("scaled", 1, (Binding("x", "int32_t @", IntValue(2)),),
                                      (), Expected(IntValue(7))),),
        "exhausted", contract=Contract(checks=(check,))),))


def test_the_units_prototype_replaces_the_exports() -> None:
    text = file_cases_to_json(_scaled_cases("int32_t scaled(int32_t y)"))
    assert file_cases_from_json(text).functions[0].prototype == "int32_t scaled(int32_t y)"
    assert file_cases_from_json(text, UNIT_NAMES).functions[0].prototype == \
        "int32_t scaled(int32_t x)"


@pytest.mark.parametrize("condition, problem", [
    ("(int32_t) (ctgen_return) == x * 3 + g", None),
    ("(scaled)(x) == 0", "calls a function through an expression"),
    ("environ == 0", "names environ, which the unit does not declare here"),
])
def test_annotations_are_checked_against_the_unit(condition: str, problem: str | None) -> None:
    text = file_cases_to_json(_scaled_cases(condition=condition))
    if problem is None:
        file_cases_from_json(text, UNIT_NAMES)
        return
    with pytest.raises(SchemaError) as info:
        file_cases_from_json(text, UNIT_NAMES)
    assert str(info.value) == f"functions[0].contract.checks[0].condition: {problem}"


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                    reason="needs gcc and make")
def test_make_takes_flags_and_paths_with_hash_dollar_and_spaces(tmp_path: Path) -> None:
    """`#` would start a comment in a Makefile variable and `$` a reference: both reach
    the compiler as they are, like quotes and spaces."""
    proj = tmp_path / "proj"
    include = proj / "inc #1 $HOME it's"
    include.mkdir(parents=True)
    (include / "cfg.h").write_text("#include <stdint.h>\n#define GAIN 3\n")
    unit = proj / "src" / "a #b.c"
    unit.parent.mkdir()
    unit.write_text('#include "cfg.h"\n' + UNIT)
    fc = replace(_scaled_cases(), source="src/a #b.c")
    fc = signed(replace(fc, functions=(replace(fc.functions[0], contract=None),)), unit,
                [f"-I{include}"])
    out = write_export(fc, unit, proj / "out", ["-Iinc #1 $HOME it's", "-DOFFSET=1"],
                       base_dir=proj)
    assert out == proj / "out" / "a #b"
    done = subprocess.run(["make", "-s", "-C", str(out), "run"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == ["PASS scaled[case1]", "1 passed, 0 failed"]
