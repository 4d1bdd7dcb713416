"""The length an initializer gives an array of unknown size (frontend/initializers.py, the
one count for file scope and block scope), checked against gcc's sizeof."""
from __future__ import annotations

import pytest
from pycparser import c_ast

from pytest_ctgen.errors import UnsupportedError
from pytest_ctgen.frontend.parse import parse
from pytest_ctgen.frontend.preprocess import preprocess
from pytest_ctgen.frontend.typeresolve import TypeResolver

PRELUDE = """
#include <wchar.h>
struct pt { int x, y; };
struct named { char n[4]; int v; };
union u { int a; char b[8]; };
struct with_union { union u u; int z; };
struct anon { struct { int a, b; }; int c : 3; int : 5; int d; };
static const struct pt origin = { 0, 0 };
"""

#: Declarations of arrays of unknown size (named `a`, numbered on the way).
DECLARATIONS = [
    'char a[] = "abc";', 'char a[] = {"abc"};', 'char a[] = "a\\0b";', 'char a[] = "\\xe9";',
    "wchar_t a[] = L\"ab\";", "int a[] = {1, [5] = 2};", "int a[] = {[2 ... 4] = 1, 7};",
    "int a[] = {[3] = 1, [1] = 2};", "int a[][2] = {1, 2, 3, 4, 5};",
    "int a[][2] = {{1, 2}, {3}};", "char a[][4] = {\"ab\", \"cd\", \"e\"};",
    "struct pt a[] = {1, 2, 3};", "struct pt a[] = {{1, 2}, [3] = {5, 6}};",
    "struct pt a[] = {{1, 2}, [3].y = 6};", "union u a[] = {1, 2, 3};",
    "struct with_union a[] = {1, 2, 3, 4, 5};", "struct anon a[] = {1, 2, 3, 4, 5};",
    "int a[][2][3] = {1, 2, 3, 4, 5, 6, 7};",
]

#: Brace elision the count does not follow (the lowering does not either).
ELIDED = [
    "struct named a[] = {\"ab\", 1, \"cd\", 2};", "int a[][2] = {1, 2, {3, 4}};",
    "int a[][2] = {1, 2, [2] = 3};", "struct pt a[] = {origin, 1, 2};",
]


def _declared(write_c, declarations: list[str]) -> tuple[TypeResolver, list[c_ast.Decl]]:
    source = PRELUDE + "".join(
        decl.replace(" a[", f" a{i}[", 1) + "\n" for i, decl in enumerate(declarations))
    path = write_c("inits.c", source)
    ast = parse(preprocess(path, []), path)
    resolver = TypeResolver()
    decls: list[c_ast.Decl] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name and ext.name[:1] == "a" \
                and ext.name[1:].isdigit():
            decls.append(ext)
            continue
        resolver.declare(ext)
    return resolver, decls


def test_array_lengths_match_gcc(write_c, run_gcc):
    resolver, decls = _declared(write_c, DECLARATIONS)
    program = PRELUDE + "#include <stdio.h>\n" + "".join(
        decl.replace(" a[", f" a{i}[", 1) + "\n" for i, decl in enumerate(DECLARATIONS)) + \
        "int main(void) {\n" + "".join(
            f'  printf("%zu\\n", sizeof a{i});\n' for i in range(len(DECLARATIONS))) + "}\n"
    sizes = [int(line) for line in run_gcc(program).splitlines()]
    for decl, text, size in zip(decls, DECLARATIONS, sizes):
        assert resolver.declared_type(decl).size == size, text


@pytest.mark.parametrize("declaration", ELIDED)
def test_other_elided_braces_are_unsupported(write_c, declaration):
    resolver, (decl,) = _declared(write_c, [declaration])
    with pytest.raises(UnsupportedError, match="initializer with elided braces"):
        resolver.declared_type(decl)
