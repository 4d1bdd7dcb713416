"""pycparser behind a wall: every failure is a located ParseError, coordinates follow line
markers into the user's files."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from pycparser import c_ast, c_generator

from pytest_ctgen.errors import CtgenError, ParseError
from pytest_ctgen.frontend.gnu_ast import ComputedGoto, GenericSelection, LocalLabels
from pytest_ctgen.frontend.locations import include_site
from pytest_ctgen.frontend.parse import parse, parse_file
from pytest_ctgen.frontend.preprocess import preprocess


def _parse_source(write_c, name: str, text: str) -> tuple[Path, c_ast.FileAST]:
    path = write_c(name, text)
    return path, parse(preprocess(path, []), path)


def _parse_error(write_c, name: str, text: str) -> tuple[Path, ParseError]:
    path = write_c(name, text)
    source = preprocess(path, [])
    with pytest.raises(ParseError) as info:
        parse(source, path)
    return path, info.value


@pytest.mark.parametrize("text, position, message", [
    ("int f(int a) {\n  return a +;\n}\n", "2:13", "Invalid expression"),
    ("#include <stdint.h>\nint f(int a) {\n  return a ++ 3 3;\n}\n", "3:15",
     "syntax error before '3'"),
    ("int f(int a) {\n  return a;\n", "2:12", "syntax error: unexpected end of input"),
    ("int f(int a) {\n  return a;\n}\n}\n", "4:1", "syntax error: unmatched '}'"),
    ("#include <stdio.h>\n\nint x = ;\n", "3:9", "Invalid expression"),
    ("typedef int T;\nint f(void) { T = 3; }\n", "2:15", "Invalid declaration"),
    ("int f(void) { int x = (int) ; }\n", "1:29", "Invalid expression"),
    ("int g(void) {\n  return 1 ` 2;\n}\n", "2:12", "Illegal character '`'"),
    ("int a[3] = {1, 2,, 3};\n", "1:18", "Invalid expression"),
])
def test_syntax_error_is_located_in_the_users_file(write_c, text, position, message):
    path, error = _parse_error(write_c, "bad.c", text)
    assert str(error) == f"{path}:{position}: {message}"
    assert error.location is not None and error.location.file == str(path)


def test_error_in_a_header_names_the_include_site(write_c):
    write_c("bad.h", "\n\nint y = ;\n")
    path, error = _parse_error(write_c, "user.c", "int a;\n#include \"bad.h\"\nint z;\n")
    assert error.location is not None
    assert error.location.file.endswith("bad.h")
    assert (error.location.line, error.location.column) == (3, 9)
    assert error.message == f"Invalid expression (included from {path}:2)"


def test_relative_path_keeps_the_users_spelling(write_c, tmp_path, monkeypatch):
    write_c("rel.c", "int f(void) {\n  return 1 +;\n}\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParseError) as info:
        parse(preprocess(Path("rel.c"), []), Path("rel.c"))
    assert str(info.value) == "rel.c:2:13: Invalid expression"


def test_gnu_nested_function_parses(write_c):
    """A GNU nested function is a definition in a block (the lowering skips its function)."""
    _, ast = _parse_source(
        write_c, "gnu.c", "int f(int x) {\n  int g(int y) { return y; }\n  return g(x);\n}\n")
    nested = ast.ext[-1].body.block_items[0]
    assert isinstance(nested, c_ast.FuncDef) and nested.decl.name == "g"
    assert (nested.decl.coord.line, nested.decl.coord.column) == (2, 7)


GNU_EXPRESSIONS = r"""
int pick(int x, double d) {
    __label__ done, again;
    static void *const labels[] = { &&done, &&again };
    int kind = _Generic(x + 1u, int: 1, unsigned: 2, default: 3);
    int same = __builtin_types_compatible_p(const int *, __typeof__(&x));
    double part = __real__ d + __imag__ (d);
    if (x) goto *labels[x & 1];
again:
    return kind + same + (int)(part * 1.5f32);
done:
    return sizeof(2.0fi) + 0x1p3f64;
}
"""


def test_gnu_expressions_and_statements_parse(write_c):
    """C11 `_Generic`, GNU `__builtin_types_compatible_p`, local labels, label addresses,
    computed goto, `__real__`/`__imag__` and literal suffixes reach the AST whole."""
    _, ast = _parse_source(write_c, "gnu.c", GNU_EXPRESSIONS)
    items = ast.ext[-1].body.block_items
    assert isinstance(items[0], LocalLabels) and items[0].names == ["done", "again"]
    assert [e.op for e in items[1].init.exprs] == ["&&", "&&"]
    generic = items[2].init
    assert isinstance(generic, GenericSelection) and len(generic.types) == 3
    assert generic.types[2] is None and generic.exprs[2].value == "3"
    assert c_generator.CGenerator().visit(generic) == \
        "_Generic(x + 1u, int: 1, unsigned: 2, default: 3)"
    same = items[3].init
    assert same.name.name == "__builtin_types_compatible_p"
    assert [type(a).__name__ for a in same.args.exprs] == ["Typename", "Typename"]
    assert [call.name.name for call in (items[4].init.left, items[4].init.right)] == \
        ["__real__", "__imag__"]
    jump = items[5].iftrue
    assert isinstance(jump, ComputedGoto) and c_generator.CGenerator().visit(jump) == \
        "goto *labels[x & 1];"
    assert items[6].stmt.expr.right.expr.right.value == "1.5f32"
    assert items[7].stmt.expr.left.expr.value == "2.0fi"
    assert items[7].stmt.expr.right.value == "0x1p3f64"


ATTRIBUTES = r"""
__attribute__((mode(DI))) int wide_a, wide_b;
int aligned __attribute__((aligned(8)));
typedef int vec_t __attribute__((vector_size(8)));
[[gnu::unused]] static int plain;
int f(int x) {
    [[maybe_unused]] int y = x;
    int z __attribute__((cleanup(release))) = x;
    __attribute__((fallthrough));
    return y + z;
}
int g(int x) { return ((int __attribute__((vector_size(8))))x)[0]; }
int __seg_fs *remote;
"""


def test_attributes_are_dropped_and_unmodelled_ones_flag_their_declaration(write_c):
    """Attributes may stand anywhere and vanish; one that changes what the code means
    (`mode`, `vector_size`, `cleanup`, a named address space) marks the declaration that
    holds it, or the function when no declaration in the body does."""
    path = write_c("attrs.c", ATTRIBUTES)
    parsed = parse_file(preprocess(path, []), path)
    ext = {getattr(e, "name", None) or e.decl.name: e for e in parsed.ast.ext}
    flagged = {name: str(parsed.unsupported[id(node)])
               for name, node in ext.items() if id(node) in parsed.unsupported}
    assert flagged == {
        "wide_a": f"{path}:2:1: unsupported construct: attribute 'mode' (it changes the "
                  "width of the type)",
        "wide_b": f"{path}:2:1: unsupported construct: attribute 'mode' (it changes the "
                  "width of the type)",
        "vec_t": f"{path}:4:19: unsupported construct: vector type (attribute 'vector_size')",
        "g": f"{path}:12:29: unsupported construct: vector type (attribute 'vector_size')",
        "remote": f"{path}:13:5: unsupported construct: named address space '__seg_fs'",
    }
    local = ext["f"].body.block_items[1]
    assert local.name == "z" and str(parsed.unsupported[id(local)]) == \
        f"{path}:8:11: unsupported construct: attribute 'cleanup' (a function runs when " \
        "the variable goes out of scope)"
    assert len(parsed.unsupported) == 6


def test_garbage_never_leaks_a_pycparser_exception():
    rng = random.Random(1234)
    tokens = ["int", "x", "(", ")", "{", "}", ";", "[", "]", "=", "1", "+", "*", ",", "struct",
              "S", "typedef", "return", "if", "else", "'a'", '"s"', ":", "?", "...", "&&", "#"]
    for _ in range(300):
        text = " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 25))) + "\n"
        try:
            parse(text, Path("fuzz.c"))
        except ParseError as error:
            assert error.location is not None
            assert error.location.file == "fuzz.c"
            assert error.location.line >= 1
        except CtgenError as error:  # pragma: no cover - any other kind would be a bug
            pytest.fail(f"unexpected {type(error).__name__} for {text!r}")


def test_deep_nesting_becomes_a_parse_error():
    text = "int x = " + "(" * 20000 + "1" + ")" * 20000 + ";\n"
    try:
        parse(text, Path("deep.c"))
    except ParseError as error:
        assert error.location is not None


def test_coordinates_follow_line_markers(write_c):
    write_c("decls.h", "/* header */\n\nint from_header;\nstruct S { int a; };\n")
    path, ast = _parse_source(write_c, "coords.c", (
        "#include <stdio.h>\n"
        '#include "decls.h"\n'
        "\n"
        "int from_unit;\n"
        "int f(void)\n"
        "{\n"
        "    return from_unit;\n"
        "}\n"
    ))
    by_name = {getattr(e, "name", None) or getattr(getattr(e, "decl", None), "name", None): e
               for e in ast.ext}
    header = by_name["from_header"].coord
    assert header.file.endswith("decls.h") and header.line == 3
    unit = by_name["from_unit"].coord
    assert (unit.file, unit.line, unit.column) == (str(path), 4, 5)
    func = by_name["f"]
    assert func.decl.coord.line == 5
    assert func.body.block_items[0].coord.line == 7


def test_last_declaration_of_a_header_keeps_the_header_file(write_c):
    write_c("last.h", "int last_in_header\n;\n")
    path, ast = _parse_source(write_c, "after.c", '#include "last.h"\nint next_in_unit;\n')
    last, following = ast.ext[-2], ast.ext[-1]
    assert last.name == "last_in_header" and last.coord.file.endswith("last.h")
    assert following.coord.file == str(path)


def test_block_ends_give_the_closing_brace(write_c):
    path = write_c("ends.c", (
        "#include <string.h>\n"
        "int f(int x)\n"
        "{\n"
        "    if (x) {\n"
        "        x++;\n"
        "    }\n"
        "    return x;\n"
        "}\n"
        "\n"
        "static int g(void) { return 0; }\n"
    ))
    parsed = parse_file(preprocess(path, []), path)
    f, g = parsed.ast.ext[-2], parsed.ast.ext[-1]
    assert parsed.block_end(f.body) == (str(path), 8, 1)
    assert parsed.block_end(f.body.block_items[0].iftrue) == (str(path), 6, 5)
    assert parsed.block_end(g.body) == (str(path), 10, 32)


def test_include_site_helper():
    text = ('# 0 "u.c"\n# 1 "u.c"\nint a;\n# 1 "h.h" 1\nint b;\n# 3 "u.c" 2\nint c;\n')
    inside_header = text.index("int b")
    assert include_site(text, inside_header, "u.c") == include_site(text, inside_header, "u.c")
    site = include_site(text, inside_header, "u.c")
    assert site is not None and (site.file, site.line) == ("u.c", 2)
    assert include_site(text, text.index("int c"), "u.c") is None
