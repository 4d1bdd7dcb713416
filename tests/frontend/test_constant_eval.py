"""C constant arithmetic (frontend/constant_eval.py): the one set of rules the evaluation of
constant expressions and the folding of IR expressions share, checked against gcc where
floats and integers meet (a value rounded to float once, never through a double)."""
from __future__ import annotations

import math

import pytest
from pycparser import c_ast

from pytest_ctgen.errors import UnsupportedError
from pytest_ctgen.frontend import ctype as ct
from pytest_ctgen.frontend.constant_eval import (
    compare, convert_constant, float_binary, integer_binary, unary)
from pytest_ctgen.frontend.parse import parse
from pytest_ctgen.frontend.preprocess import preprocess
from pytest_ctgen.frontend.typeresolve import TypeResolver
from pytest_ctgen.ir.constants import fold
from pytest_ctgen.ir.expr import Binary, Cast, Const, Unary

#: Constant expressions where a conversion or an operation of floats could round twice.
EXPRESSIONS = [
    "(long long)(float)9007199791611905LL", "(long long)(float)-9007199791611905LL",
    "(unsigned long long)(float)0xffffff7fffffffffULL", "(long long)(double)9007199254740993LL",
    "0x1.0000010000000001p0f > 1.0f", "3.4028235677973366e38f < 1e39",
    "3.4028235677973366e38f == 3.4028234663852886e38f", "16777217.0f == 16777216.0f",
    "1e-45f == 0x1p-149f", "0.1f == (float)0.1", "(double)0.1f == 0.1",
    "(int)(0.1f * 3.0f * 10.0f)", "1.0f / 3.0f * 3.0f == 1.0f", "(long long)1e11f",
    "1.0f / (float)-0.0 < 0", "(float)16777217 == 16777216.0f",
    "sizeof(u'x')", "u'\\xffff'", "U'\\x1F600' >> 8", "L'\\xe9'", "sizeof(L\"ab\")",
    "(int)(2.5f * 4)", "(long long)(float)0x7fffffc0 - 0x7fffff80",
]


def test_constant_expressions_with_floats_match_gcc(write_c, run_gcc):
    source = "".join(f"static const long long ctgen_e{i} = {e};\n"
                     for i, e in enumerate(EXPRESSIONS))
    path = write_c("floats.c", source)
    resolver = TypeResolver()
    ast = parse(preprocess(path, []), path)
    for ext in ast.ext:
        resolver.declare(ext)
    program = "#include <stdio.h>\nint main(void) {\n" + "".join(
        f'  printf("%lld\\n", (long long)({e}));\n' for e in EXPRESSIONS) + "}\n"
    decls = {getattr(ext, "name", None): ext for ext in ast.ext}
    for i, (expression, line) in enumerate(zip(EXPRESSIONS, run_gcc(program).splitlines())):
        value, _ = resolver.constant(decls[f"ctgen_e{i}"].init)
        assert int(value) % 2 ** 64 == int(line) % 2 ** 64, expression


def test_conversions():
    big = 2 ** 53 + 2 ** 29 + 1  # above a float's midpoint; as a double, on it
    assert convert_constant(big, ct.LLONG, ct.FLOAT) == 2.0 ** 53 + 2 ** 30
    assert convert_constant(big, ct.LLONG, ct.DOUBLE) == 2.0 ** 53 + 2 ** 29
    assert convert_constant(-1, ct.INT, ct.UINT) == 2 ** 32 - 1
    assert convert_constant(300, ct.INT, ct.SCHAR) == 44
    assert convert_constant(-3.99, ct.DOUBLE, ct.INT) == -3
    assert convert_constant(0.5, ct.DOUBLE, ct.BOOL) == 1
    assert convert_constant(-0.5, ct.DOUBLE, ct.UINT) == 0
    # out of the integer type's range (undefined), NaN, infinity: not folded
    for value, target in [(1e10, ct.INT), (-1.0, ct.UINT), (math.inf, ct.LONG),
                          (math.nan, ct.INT)]:
        assert convert_constant(value, ct.DOUBLE, target) is None
    assert math.copysign(1.0, convert_constant(-0.0, ct.DOUBLE, ct.FLOAT)) == -1.0
    assert convert_constant(math.inf, ct.DOUBLE, ct.FLOAT) == math.inf
    pointer = ct.PointerType(ct.CHAR)
    assert convert_constant(-1, ct.INT, pointer) == 2 ** 64 - 1
    assert convert_constant(16, ct.PointerType(ct.VOID), pointer) == 16
    assert convert_constant(1.0, ct.DOUBLE, pointer) is None


def test_operators():
    assert integer_binary("/", -7, 2, ct.INT) == -3
    assert integer_binary("%", -7, 2, ct.INT) == -1
    assert integer_binary("%", 7, -2, ct.INT) == 1
    assert integer_binary("/", 1, 0, ct.INT) is None
    assert integer_binary("+", 2 ** 31 - 1, 1, ct.INT) == -(2 ** 31)
    assert integer_binary("-", 0, 1, ct.UINT) == 2 ** 32 - 1
    assert integer_binary("<<", 1, 31, ct.INT) == -(2 ** 31)
    assert integer_binary(">>", -8, 1, ct.INT) == -4
    assert integer_binary("<<", 1, 10 ** 9, ct.INT) == 0  # gcc: every bit shifted out
    assert integer_binary(">>", -1, 64, ct.INT) == -1
    assert integer_binary("<<", 1, -1, ct.INT) is None
    assert integer_binary("&&", 1, 1, ct.INT) is None
    assert unary("-", -(2 ** 31), ct.INT) == -(2 ** 31)
    assert unary("~", 0, ct.UINT) == 2 ** 32 - 1
    assert unary("!", math.nan, ct.DOUBLE) == 0
    assert unary("~", 1.0, ct.DOUBLE) is None
    assert compare("<", math.nan, 1.0) == 0 and compare("!=", math.nan, math.nan) == 1
    third = float_binary("/", 1.0, 3.0, ct.FLOAT)
    assert third == 0.3333333432674408
    assert float_binary("/", 1.0, -0.0, ct.DOUBLE) == -math.inf
    assert math.isnan(float_binary("/", 0.0, 0.0, ct.DOUBLE))
    assert float_binary("%", 1.0, 2.0, ct.DOUBLE) is None


def test_the_ir_folds_with_the_same_rules():
    """What the evaluator of constant expressions computes, the IR folding computes."""
    big = Const(ct.LLONG, 2 ** 53 + 2 ** 29 + 1)
    assert fold(Cast(big, ct.FLOAT)) == 2.0 ** 53 + 2 ** 30
    assert fold(Unary("-", Const(ct.INT, -(2 ** 31)), ct.INT)) == -(2 ** 31)
    assert fold(Binary("<<", Const(ct.INT, 1), Const(ct.INT, 40), ct.INT)) == 0
    assert fold(Binary("<", Const(ct.DOUBLE, 0.5), Const(ct.DOUBLE, 1.0), ct.INT)) == 1
    # floating arithmetic is left to the executor
    assert fold(Binary("+", Const(ct.DOUBLE, 0.5), Const(ct.DOUBLE, 1.0), ct.DOUBLE)) is None
    assert fold(Cast(Const(ct.DOUBLE, 1e10), ct.INT)) is None


@pytest.mark.parametrize("expression, words", [
    ("(int)1e10", "out of the range of int"),
    ("(unsigned)-1.0", "out of the range of unsigned int"),
    ("1 / 0", "division by zero"),
    ("1 << -1", "negative shift count"),
    ("~1.0", "operator ~ on a floating constant"),
    ("1.0 % 2", "operator % on floating constants"),
])
def test_what_c_leaves_undefined_is_no_constant(write_c, expression, words):
    path = write_c("undefined.c", f"static const long long c = {expression};\n")
    ast = parse(preprocess(path, []), path)
    decl = ast.ext[-1]
    assert isinstance(decl, c_ast.Decl) and decl.name == "c"
    with pytest.raises(UnsupportedError) as info:
        TypeResolver().constant(decl.init)
    assert words in info.value.message
