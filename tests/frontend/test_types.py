"""TypeResolver: C spellings to ctype objects, scopes, enums and integer constant
expressions, checked against what gcc says."""
from __future__ import annotations

import pytest
from pycparser import c_ast

from pytest_ctgen.errors import UnsupportedError
from pytest_ctgen.frontend import ctype as ct
from pytest_ctgen.frontend.declarator_text import prototype
from pytest_ctgen.frontend.literals import char_literal, int_literal
from pytest_ctgen.frontend.parse import parse
from pytest_ctgen.frontend.preprocess import preprocess
from pytest_ctgen.frontend.typeresolve import TypeResolver


def _resolver(write_c, source: str, **options) -> tuple[TypeResolver, c_ast.FileAST]:
    path = write_c("types_unit.c", source)
    ast = parse(preprocess(path, []), path)
    resolver = TypeResolver(**options)
    for ext in ast.ext:
        resolver.declare(ext.decl if isinstance(ext, c_ast.FuncDef) else ext)
    return resolver, ast


def _decl(ast: c_ast.FileAST, name: str) -> c_ast.Node:
    for ext in ast.ext:
        node = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if getattr(node, "name", None) == name:
            return node
    raise KeyError(name)


SPELLINGS = {
    "char": ct.CHAR, "signed char": ct.SCHAR, "unsigned char": ct.UCHAR,
    "short": ct.SHORT, "short int": ct.SHORT, "signed short int": ct.SHORT,
    "unsigned short": ct.USHORT, "short unsigned int": ct.USHORT,
    "int": ct.INT, "signed": ct.INT, "signed int": ct.INT, "unsigned": ct.UINT,
    "unsigned int": ct.UINT, "int unsigned": ct.UINT,
    "long": ct.LONG, "long int": ct.LONG, "signed long": ct.LONG, "unsigned long": ct.ULONG,
    "long unsigned int": ct.ULONG, "long long": ct.LLONG, "long long int": ct.LLONG,
    "signed long long int": ct.LLONG, "unsigned long long": ct.ULLONG,
    "long long unsigned int": ct.ULLONG, "unsigned long long int": ct.ULLONG,
    "_Bool": ct.BOOL, "float": ct.FLOAT, "double": ct.DOUBLE, "long double": ct.LONGDOUBLE,
    "__int128": ct.INT128, "unsigned __int128": ct.UINT128, "void": ct.VOID,
}


def test_every_integer_spelling_resolves_and_matches_gcc(write_c, run_gcc):
    names = list(SPELLINGS)
    source = "".join(f"{s} *v{i};\n" for i, s in enumerate(names))
    resolver, ast = _resolver(write_c, source)
    for i, spelling in enumerate(names):
        resolved = resolver.resolve(_decl(ast, f"v{i}").type)
        assert isinstance(resolved, ct.PointerType)
        assert resolved.target == SPELLINGS[spelling], spelling
    checks = [s for s in names if s != "void"]
    program = "#include <stdio.h>\nint main(void) {\n" + "".join(
        f'  printf("%d %d\\n", (int)sizeof({s}), (int)(({s})-1 < ({s})0));\n' for s in checks
    ) + "}\n"
    for spelling, line in zip(checks, run_gcc(program).splitlines()):
        size, signed = map(int, line.split())
        t = SPELLINGS[spelling]
        assert t.size == size, spelling
        if isinstance(t, ct.IntType):
            assert t.signed == bool(signed), spelling


def test_stdint_typedefs_resolve(write_c):
    resolver, _ast = _resolver(write_c, (
        "#include <stdint.h>\n#include <stddef.h>\n#include <stdbool.h>\n"
        "uint8_t a; int8_t b; uint16_t c; int32_t d; uint64_t e; int64_t f; size_t g;\n"
        "ptrdiff_t h; bool i; uintptr_t j;\n"))
    expected = {"a": ct.UCHAR, "b": ct.SCHAR, "c": ct.USHORT, "d": ct.INT, "e": ct.ULONG,
                "f": ct.LONG, "g": ct.ULONG, "h": ct.LONG, "i": ct.BOOL, "j": ct.ULONG}
    for name, t in expected.items():
        assert resolver.lookup_object(name) == t, name
    assert resolver.lookup_typedef("uint32_t") == ct.UINT


def test_declarators_and_qualifiers(write_c):
    resolver, ast = _resolver(write_c, (
        "typedef const int cint;\n"
        "const char *s;\n"
        "char *const p;\n"
        "volatile unsigned *vp;\n"
        "cint limit = 3;\n"
        "const int table[2][3];\n"
        "int (*fp)(int, ...);\n"
        "int f(int a[3], void (*cb)(void), char name[const], ...);\n"
        "int g(void);\n"
        "int h();\n"
        "int (*(*handler)(int))[4];\n"
    ))
    s = resolver.lookup_object("s")
    assert s == ct.PointerType(ct.CHAR) and s.target_const and not s.target_volatile
    assert resolver.qualifiers(_decl(ast, "s").type) == frozenset()
    assert resolver.qualifiers(_decl(ast, "p").type) == {"const"}
    vp = resolver.lookup_object("vp")
    assert vp.target == ct.UINT and vp.target_volatile
    assert resolver.qualifiers(_decl(ast, "limit").type) == {"const"}
    assert resolver.lookup_object("limit") == ct.INT
    table = resolver.lookup_object("table")
    assert table == ct.ArrayType(ct.ArrayType(ct.INT, 3), 2) and table.size == 24
    assert str(table) == "int[2][3]"
    assert resolver.qualifiers(_decl(ast, "table").type) == {"const"}
    assert resolver.lookup_object("fp") == ct.PointerType(ct.FunctionType(ct.INT, (ct.INT,), True))
    f = resolver.lookup_object("f")
    assert f == ct.FunctionType(ct.INT, (
        ct.PointerType(ct.INT), ct.PointerType(ct.FunctionType(ct.VOID, ())),
        ct.PointerType(ct.CHAR)), True)
    assert resolver.lookup_object("g") == ct.FunctionType(ct.INT, ())
    assert resolver.lookup_object("h") == ct.FunctionType(ct.INT, ())
    handler = resolver.lookup_object("handler")
    assert handler == ct.PointerType(ct.FunctionType(
        ct.PointerType(ct.ArrayType(ct.INT, 4)), (ct.INT,)))


def test_self_referential_and_forward_declared_records(write_c):
    resolver, _ = _resolver(write_c, (
        "struct node { int value; struct node *next; };\n"
        "struct later;\n"
        "struct later *early_ptr;\n"
        "typedef struct later later_t;\n"
        "struct later { char c; double d; };\n"
        "typedef struct { int x, y; } point_t;\n"
        "typedef union { unsigned raw; struct { unsigned lo:16, hi:16; }; } reg_t;\n"
    ))
    node = resolver.lookup_tag("node")
    assert isinstance(node, ct.RecordType) and node.is_complete
    assert node.member("next").type.target is node
    assert (node.size, node.align) == (16, 8)
    later = resolver.lookup_tag("later")
    assert resolver.lookup_object("early_ptr").target is later
    assert resolver.lookup_typedef("later_t") is later
    assert later.is_complete and later.size == 16 and later.member("d").offset == 8
    point = resolver.lookup_typedef("point_t")
    assert str(point) == "point_t" and point.tag is None and point.size == 8
    reg = resolver.lookup_typedef("reg_t")
    assert reg.is_union and reg.member("hi") is not None
    assert set(reg.member_names()) == {"raw", "lo", "hi"}


def test_anonymous_struct_shared_by_declarators(write_c):
    resolver, _ = _resolver(write_c, "struct { int a; } first, second;\n")
    assert resolver.lookup_object("first") is resolver.lookup_object("second")


def test_block_scopes_shadow_tags_typedefs_and_enumerators(write_c):
    resolver, ast = _resolver(write_c, (
        "struct S { int a; int b; };\n"
        "typedef int T;\n"
        "enum { K = 1 };\n"
        "void f(void) {\n"
        "    struct S { char c; } local;\n"
        "    struct S *again;\n"
        "    typedef short T;\n"
        "    T t;\n"
        "    enum { K = 7 } e;\n"
        "    int arr[K];\n"
        "    { struct S inner_ref; }\n"
        "}\n"
    ))
    body = next(e for e in ast.ext if isinstance(e, c_ast.FuncDef)).body.block_items
    file_s = resolver.lookup_tag("S")
    resolver.push_scope()
    local = resolver.declare(body[0])
    assert isinstance(local, ct.RecordType) and local is not file_s and local.size == 1
    assert resolver.declare(body[1]).target is local
    resolver.declare(body[2])
    assert resolver.declare(body[3]) == ct.SHORT
    resolver.declare(body[4])
    assert resolver.enum_constants["K"] == (7, ct.INT)
    assert resolver.declare(body[5]) == ct.ArrayType(ct.INT, 7)
    resolver.push_scope()
    assert resolver.declare(body[6].block_items[0]) is local
    resolver.pop_scope()
    resolver.pop_scope()
    assert resolver.lookup_tag("S") is file_s and file_s.size == 8
    assert resolver.lookup_typedef("T") == ct.INT
    assert resolver.enum_constants["K"] == (1, ct.INT)
    assert resolver.lookup_object("local") is None
    with pytest.raises(ValueError):
        resolver.pop_scope()


ENUMS = """
enum e_pos { A0, A1, A2 = 10, A3 };
enum e_neg { B0 = -1, B1, B2 };
enum e_u32 { C0 = 0x80000000 };
enum e_huge { D0 = 0x100000000 };
enum e_neg_big { F0 = -1, F1 = 0x80000000 };
enum e_expr { G0 = 5, G1, G2 = G1 * 2, G3, G4 = (1 << 4) | G0, G5 = sizeof(int) - 5 };
enum e_char { H0 = 'a', H1 = '\\n', H2 = -'b' };
enum e_small { S0 = 200 };
enum e_small_neg { T0 = -100, T1 = 100 };
enum e_short { U0 = 40000 };
"""
ENUM_TAGS = ["e_pos", "e_neg", "e_u32", "e_huge", "e_neg_big", "e_expr", "e_char", "e_small",
             "e_small_neg", "e_short"]
ENUMERATORS = ["A0", "A1", "A2", "A3", "B0", "B1", "B2", "C0", "D0", "F0", "F1", "G0", "G1",
               "G2", "G3", "G4", "G5", "H0", "H1", "H2", "S0", "T0", "T1", "U0"]


@pytest.mark.parametrize("flags", [(), ("-fshort-enums",)])
def test_enum_underlying_types_and_values_match_gcc(write_c, run_gcc, flags):
    resolver, _ = _resolver(write_c, ENUMS, short_enums=bool(flags))
    program = "#include <stdio.h>\n" + ENUMS + "int main(void) {\n" + "".join(
        f'  printf("%d %d\\n", (int)sizeof(enum {t}), (int)((enum {t})-1 < 0));\n'
        for t in ENUM_TAGS
    ) + "".join(f'  printf("%lld\\n", (long long){e});\n' for e in ENUMERATORS) + "}\n"
    lines = run_gcc(program, flags).splitlines()
    for tag, line in zip(ENUM_TAGS, lines):
        size, signed = map(int, line.split())
        enum = resolver.lookup_tag(tag)
        assert isinstance(enum, ct.EnumType) and enum.tag == tag
        assert (enum.size, enum.signed) == (size, bool(signed)), tag
    for name, line in zip(ENUMERATORS, lines[len(ENUM_TAGS):]):
        assert resolver.enum_constants[name][0] % 2**64 == int(line) % 2**64, name


def test_enum_rules_without_gcc(write_c):
    resolver, _ = _resolver(write_c, "enum e { X, Y = -3, Z };\ntypedef enum { P, Q } pq_t;\n")
    e = resolver.lookup_tag("e")
    assert e.signed and e.size == 4 and ct.strip_enum(e) == ct.INT
    assert [resolver.enum_constants[n] for n in "XYZ"] == [(0, ct.INT), (-3, ct.INT), (-2, ct.INT)]
    pq = resolver.lookup_typedef("pq_t")
    assert isinstance(pq, ct.EnumType) and not pq.signed and pq.name == "unsigned int"


PRELUDE = """#include <stddef.h>
struct pair { char a; int b; struct { short s[3]; } in; };
enum { E_SMALL = 1, E_BIG = 0x7fffffff, E_LAST = E_BIG - 1 };
int g_array[17];
struct pair g_pair, *g_ptr;
typedef unsigned short u16;
"""

EXPRESSIONS = [
    "(0u - 1) > 0", "-1 < 0u", "-1 < 0ul", "-1L < 0u", "-1LL < 0u", "(unsigned char)300",
    "(signed char)200", "(short)70000", "(_Bool)0.5", "(_Bool)256", "0x7fffffff + 1",
    "0xffffffff", "0xffffffff + 1", "4294967296", "-2147483648", "2147483648",
    "1 << 31", "1u << 31", "-8 >> 1", "-7 / 2", "-7 % 2", "7 % -2", "(int)-1u", "~0u", "~0",
    "!5", "!!5", "!0.0", "sizeof(int) - 5 > 0", "'\\n'", "'\\x41'", "'\\377'", "'ab'",
    "L'x'", "'\\0'", "'\\''", "010 + 0x10 + 0b11", "10ULL * 3", "1 ? 2u : -1", "0 ? 2u : -1",
    "(char)'\\xff'", "sizeof(long double)", "_Alignof(long long)", "_Alignof(struct pair)",
    "sizeof(char[7][3])", "sizeof 'a'", "sizeof(1.0f)", "sizeof(2.0)", "(int)3.99",
    "(int)-3.99", "(unsigned)4e9", "(int)1e3f", "100 / 3 * 3", "(long long)1 << 40",
    "3 > 2 > 1", "5 & 3 | 8 ^ 1", "1 && 0 || 1", "-(-2147483647 - 1)", "(unsigned short)-1 + 0",
    "(u16)1 - 2", "(unsigned int)1 - 2", "0x80000000 >> 31", "-0x80000000", "sizeof(struct pair)",
    "offsetof(struct pair, b)", "offsetof(struct pair, in.s[2])",
    "((size_t)&((struct pair *)0)->in.s[1])", "E_BIG", "E_LAST + 1", "E_BIG + E_SMALL",
    "sizeof(g_array) / sizeof(g_array[0])", "sizeof g_pair.b", "sizeof(g_ptr->in)",
    "sizeof(*g_ptr)", "sizeof(&g_array[1])", "sizeof(\"hello\")", "sizeof(+(char)1)",
    "sizeof((char)1)", "sizeof(1 ? (char)1 : (short)2)", "sizeof(g_array + 1)",
    "sizeof(g_ptr - g_ptr)", "-1 > 0xffffffffffffffff", "18446744073709551615u",
    "9223372036854775807 + 0u", "0x10u - 0x20", "(0 ? 1 : 2) * -1", "5 % 3 - 10 / -4",
    "1u > -1", "(long)-1 > 0u", "~(unsigned char)0", "-(unsigned short)1", "(_Bool)-0.0",
    "'abcd'", "'\\xff\\xfe'", "'é'", "u'x'", "U'\\x10000'", "'\\e'",
    "(1 ? -1 : 0u) > 0", "(0 ? 1.5 : 2) == 2", "sizeof(0 ? 1.5f : 2)", "(int)(2.5 * 4)",
    "sizeof(_Float32)", "sizeof(_Float128)", "sizeof(__uint128_t)", "1.5f32 * 2",
    "sizeof(1.0f64 + 1.0f)", "__builtin_choose_expr(1, (char)-1, 2u)",
    "sizeof(__builtin_choose_expr(0, 1.5, (short)1))", "_Generic(1.0f, float: 1, default: 0)",
    "__builtin_types_compatible_p(u16, unsigned short) + 2",
]


def test_integer_constant_expressions_match_gcc(write_c, run_gcc):
    source = PRELUDE + "".join(
        f"static const unsigned long long ctgen_e{i} = {e};\n" for i, e in enumerate(EXPRESSIONS))
    resolver, ast = _resolver(write_c, source)
    program = PRELUDE + "#include <stdio.h>\nint main(void) {\n" + "".join(
        f'  printf("%llu %d %d\\n", (unsigned long long)({e}), (int)sizeof({e}),'
        f" (int)((__typeof__({e}))-1 < 0));\n" for e in EXPRESSIONS) + "}\n"
    for i, (expression, line) in enumerate(zip(EXPRESSIONS, run_gcc(program).splitlines())):
        value, size, signed = map(int, line.split())
        got, got_type = resolver.constant(_decl(ast, f"ctgen_e{i}").init)
        assert int(got) & (2**64 - 1) == value, expression
        assert got_type.size == size, expression
        if isinstance(got_type, ct.IntType):
            assert got_type.signed == bool(signed), expression


COMPATIBILITY_PRELUDE = """
enum small { S_A, S_B };
enum negative { N_A = -1 };
struct tagged { int x; };
typedef struct tagged tagged_t;
typedef int handle_t;
typedef const int const_int_t;
"""

#: Pairs of type names for `__builtin_types_compatible_p`, which gcc answers.
TYPE_PAIRS = [
    ("int", "const int"), ("int", "volatile int"), ("handle_t", "int"), ("const_int_t", "int"),
    ("char", "signed char"), ("char", "unsigned char"), ("long", "long long"),
    ("unsigned", "unsigned int"), ("long int", "long"), ("_Bool", "unsigned char"),
    ("enum small", "unsigned int"), ("enum small", "int"), ("enum negative", "int"),
    ("enum small", "enum negative"), ("int[]", "int[4]"), ("int[3]", "int[4]"),
    ("const int[3]", "int[3]"), ("int *", "const int *"), ("const int *", "int const *"),
    ("int **", "const int **"), ("int * const *", "int **"), ("void *", "char *"),
    ("int (*)(int)", "int (*)()"), ("int (*)(char)", "int (*)()"),
    ("int (*)(void)", "int (*)(int)"), ("int (*)(int, ...)", "int (*)(int)"),
    ("int (*)(int, ...)", "int (*)()"), ("int (*)(const int)", "int (*)(int)"),
    ("int (*)(int[])", "int (*)(int *)"), ("struct tagged", "tagged_t"),
    ("struct tagged", "struct { int x; }"), ("float", "_Float32"), ("double", "_Float64"),
    ("double", "_Float32x"), ("_Float64", "_Float32x"), ("long double", "__float80"),
    ("_Float128", "__float128"), ("long double", "_Float64x"), ("__int128", "__int128_t"),
    ("unsigned __int128", "__uint128_t"), ("float", "double"), ("int (*)[3]", "int (*)[]"),
    ("char *", "typeof(\"lit\")"), ("int", "typeof(1 + (char)1)"),
]


def test_types_compatible_p_matches_gcc(write_c, run_gcc):
    """`compatible` (and so `__builtin_types_compatible_p` and `_Generic`) answers as gcc."""
    source = COMPATIBILITY_PRELUDE + "".join(
        f"static const int ctgen_c{i} = __builtin_types_compatible_p({a}, {b});\n"
        for i, (a, b) in enumerate(TYPE_PAIRS))
    resolver, ast = _resolver(write_c, source)
    program = COMPATIBILITY_PRELUDE + "#include <stdio.h>\nint main(void) {\n" + "".join(
        f'  printf("%d\\n", __builtin_types_compatible_p({a}, {b}));\n'
        for a, b in TYPE_PAIRS) + "}\n"
    answers = run_gcc(program).split()
    assert len(answers) == len(TYPE_PAIRS)
    for i, (pair, answer) in enumerate(zip(TYPE_PAIRS, answers)):
        assert resolver.constant(_decl(ast, f"ctgen_c{i}").init) == (int(answer), ct.INT), pair


GENERIC_PRELUDE = """
char g_char;
const char *g_text;
char *const g_fixed = 0;
const short g_shorts[2];
_Float32 g_f32;
enum small { S_A } g_enum;
int (*g_fn)(int);
"""

#: Controlling expressions of `_Generic`, each against the associations below.
GENERIC_OPERANDS = ["g_char", "g_char + 0", "'a'", "g_text", "g_fixed", "g_shorts", "\"lit\"",
                    "g_f32", "g_f32 + 1.0f", "g_f32 * 1.0", "g_enum", "g_fn", "1.5f32",
                    "(const char *)0", "(short)1", "sizeof(int)"]
GENERIC_ASSOCIATIONS = (
    "char: 1, int: 2, const char *: 3, char *: 4, const short *: 5, short *: 6, float: 7, "
    "_Float32: 8, double: 9, unsigned int: 10, int (*)(int): 11, short: 12, "
    "unsigned long: 13, default: 0")


def test_generic_selection_matches_gcc(write_c, run_gcc):
    source = GENERIC_PRELUDE + "".join(
        f"static const int ctgen_g{i} = _Generic({e}, {GENERIC_ASSOCIATIONS});\n"
        for i, e in enumerate(GENERIC_OPERANDS))
    resolver, ast = _resolver(write_c, source)
    program = GENERIC_PRELUDE + "#include <stdio.h>\nint main(void) {\n" + "".join(
        f'  printf("%d\\n", _Generic({e}, {GENERIC_ASSOCIATIONS}));\n'
        for e in GENERIC_OPERANDS) + "}\n"
    answers = run_gcc(program).split()
    assert len(answers) == len(GENERIC_OPERANDS), answers
    for i, (operand, answer) in enumerate(zip(GENERIC_OPERANDS, answers)):
        assert resolver.constant(_decl(ast, f"ctgen_g{i}").init) == (int(answer), ct.INT), \
            operand


def test_generic_selection_on_unknown_target_qualifiers_is_refused(write_c):
    """Where the pointed-to type's qualifiers are not known (a conditional of pointers),
    a choice that depends on them is not guessed."""
    resolver, ast = _resolver(write_c, GENERIC_PRELUDE + (
        "static const int a = _Generic(1 ? g_text : 0, const char *: 1, char *: 2);\n"
        "static const int b = _Generic(1 ? g_text : 0, char *: 1, short: 2, default: 3);\n"))
    with pytest.raises(UnsupportedError) as info:
        resolver.constant(_decl(ast, "a").init)
    assert "depends on the qualifiers" in info.value.message
    assert info.value.location is not None and info.value.location.line == 9
    with pytest.raises(UnsupportedError):
        resolver.constant(_decl(ast, "b").init)  # `char *` or the default: unknown


def test_eval_int_constant_rejects_what_is_not_constant(write_c):
    resolver, ast = _resolver(write_c, (
        "int v;\nint a = v + 1;\nint b = 1 / 0;\nint c = (int)\"s\";\nint d = 1.5;\n"))
    for name, words in [("a", "'v' is not a constant"), ("b", "division by zero"),
                        ("c", "string literal"), ("d", "floating constant")]:
        with pytest.raises(UnsupportedError) as info:
            resolver.eval_int_constant(_decl(ast, name).init)
        assert words in info.value.message
        assert info.value.location is not None and info.value.location.line >= 2


@pytest.mark.parametrize("text, value, ctype", [
    ("0", 0, ct.INT), ("2147483647", 2147483647, ct.INT), ("2147483648", 2147483648, ct.LONG),
    ("0x80000000", 2147483648, ct.UINT), ("0x100000000", 2**32, ct.LONG),
    ("0xffffffffffffffff", 2**64 - 1, ct.ULONG), ("077", 63, ct.INT), ("10u", 10, ct.UINT),
    ("10UL", 10, ct.ULONG), ("10ll", 10, ct.LLONG), ("10uLL", 10, ct.ULLONG),
    ("5000000000u", 5000000000, ct.ULONG), ("0b1010", 10, ct.INT),
])
def test_integer_literal_types(text, value, ctype):
    assert int_literal(text) == (value, ctype)


@pytest.mark.parametrize("text, value", [
    ("'a'", 97), ("'\\n'", 10), ("'\\x41'", 65), ("'\\101'", 65), ("'\\xff'", -1),
    ("'\\377'", -1), ("'\\\\'", 92), ("'\\''", 39), ("'ab'", 0x6162), ("'\\0'", 0),
    ("'\\e'", 27), ("L'\\x263A'", 0x263A), ("'é'", 50089), ("'abcd'", 0x61626364),
    ("'\\xff\\xfe'", 65534), ("'\\xffa'", -6), ("'abcde'", 0x62636465),
])
def test_character_constants(text, value):
    assert char_literal(text)[0] == value


DECLARATIONS = [
    ("const uint8_t table[4];", "table", "const uint8_t @[4]"),
    ("int (*fp)(int);", "fp", "int (*@)(int)"),
    ("static volatile unsigned int counter;", "counter", "volatile unsigned int @"),
    ("struct S { int a; } s;", "s", "struct S @"),
    ("struct { int a; } anon;", "anon", "struct { int a; } @"),
    ("char *const names[3];", "names", "char * const @[3]"),
    ("const char *const *pp;", "pp", "const char * const *@"),
    ("int m[2][N];", "m", "int @[2][3]"),
    ("enum color { RED, GREEN } c;", "c", "enum color @"),
    ("void (*handlers[4])(void);", "handlers", "void (*@[4])(void)"),
    ("int filled[] = {1, 2, [6] = 3};", "filled", "int @[7]"),
    ("char text[] = \"abc\";", "text", "char @[4]"),
    ("extern int (*(*ptr_fn)(int))[3];", "ptr_fn", "int (*(*@)(int))[3]"),
]


def test_declaration_templates_keep_qualifiers_and_compile(write_c, tmp_path):
    source = "#include <stdint.h>\nenum { N = 3 };\n" + "\n".join(d for d, _, _ in DECLARATIONS)
    resolver, ast = _resolver(write_c, source + "\n")
    checks = []
    for _, name, template in DECLARATIONS:
        got = resolver.declaration_template(_decl(ast, name))
        assert got == template, name
        if name == "anon":  # an anonymous struct body declares a new, distinct type
            checks.append(f"{got.replace('@', name + '_copy')};\n")
            continue
        checks.append(f"{got.replace('@', name + '_copy')};\n"
                      f"_Static_assert(__builtin_types_compatible_p(__typeof__({name}_copy),"
                      f" __typeof__({name})), \"{name}\");\n")
    check = write_c("templates.c", source + "\n" + "".join(checks))
    import subprocess
    subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", str(check)], check=True,
                   capture_output=True)


def test_prototype_and_parameter_templates(write_c):
    resolver, ast = _resolver(write_c, (
        "typedef int F(int);\n"
        "static int add(int, const char *s, int [], F cb, int m[][4]);\n"))
    decl = _decl(ast, "add")
    assert prototype(decl) == "int add(int p0, const char *s, int p2[], F cb, int m[][4])"
    params = decl.type.args.params
    assert [resolver.parameter_template(p) for p in params] == [
        "int @", "const char *@", "int *@", "F *@", "int (*@)[4]"]


def test_parameter_templates_hold_array_sizes_as_numbers(write_c):
    """An export's templates hold no expressions (export_schema.template_problem): sizes
    written with constants become numbers, also in a function pointer's parameters,
    where an array parameter is a pointer and its own size is left out."""
    resolver, ast = _resolver(write_c, (
        "enum { N = 4 };\n"
        "void f(int m[][N + 1], char (*rows)[2 * N], void (*cb)(int a[N], int b[][N]),"
        " int n, int v[n]);\n"))
    params = _decl(ast, "f").type.args.params
    assert [resolver.parameter_template(p) for p in params] == [
        "int (*@)[5]", "char (*@)[8]", "void (*@)(int a[], int b[][4])", "int @",
        "int *@"]


def test_unsupported_constructs_carry_a_location(write_c):
    resolver, ast = _resolver(write_c, (
        "int ok;\n"
        "void f(int n) {\n"
        "    int vla[n];\n"
        "}\n"
    ))
    path = str(write_c("types_unit.c", "")).rsplit("/", 1)[0] + "/types_unit.c"
    body = next(e for e in ast.ext if isinstance(e, c_ast.FuncDef)).body.block_items
    resolver.push_scope()
    resolver.declare_object("n", ct.INT)
    with pytest.raises(UnsupportedError) as info:
        resolver.declare(body[0])
    assert str(info.value) == f"{path}:3:13: variable length array outside a function body"
    resolver.pop_scope()


def test_complex_type_is_unsupported(write_c):
    path = write_c("cplx.c", "int a;\n_Complex double z;\n")
    ast = parse(preprocess(path, []), path)
    resolver = TypeResolver()
    resolver.declare(ast.ext[-2])  # after the analysis header's declarations
    with pytest.raises(UnsupportedError) as info:
        resolver.declare(ast.ext[-1])
    assert str(info.value).startswith(f"{path}:2:")
    assert "complex type '_Complex double'" in str(info.value)


def test_bitfield_and_incomplete_member_errors(write_c):
    for text, words in [
        ("struct A { int a : 40; };\n", "invalid width 40"),
        ("struct B { double d : 3; };\n", "non-integer type"),
        ("struct C { struct missing m; };\n", "incomplete type"),
        ("struct D { int a : -1; };\n", "invalid width -1"),
    ]:
        path = write_c("bad_member.c", text)
        ast = parse(preprocess(path, []), path)
        with pytest.raises(UnsupportedError) as info:
            TypeResolver().declare(ast.ext[-1])
        assert words in info.value.message
        assert info.value.location is not None and info.value.location.line == 1


def test_type_of_expressions_for_sizeof(write_c):
    resolver, ast = _resolver(write_c, PRELUDE + "int use = sizeof(g_pair.in.s[1]);\n")
    assert resolver.type_of(_decl(ast, "use").init.expr) == ct.SHORT
    assert resolver.eval_int_constant(_decl(ast, "use").init) == 2


def _anonymous_record(kind: str, fields: list[ct.Field], size: int) -> ct.RecordType:
    record = ct.RecordType(kind, None)  # type: ignore[arg-type]
    record.complete(tuple(fields), size, 4)
    return record


def test_the_member_an_anonymous_union_shows() -> None:
    """What a case value shows of an anonymous union (ctype.value_members): the first
    member covering every byte, else the first as large, else the first of the largest."""
    padded = _anonymous_record("struct", [ct.Field("a", ct.CHAR, 0), ct.Field("b", ct.INT, 4)], 8)
    dense = _anonymous_record("struct", [ct.Field("x", ct.INT, 0), ct.Field("y", ct.INT, 4)], 8)
    chars = ct.ArrayType(ct.UCHAR, 5)
    cases = [([ct.Field("s", padded, 0), ct.Field("d", dense, 0)], "d"),
             ([ct.Field("s", padded, 0), ct.Field("c", ct.CHAR, 0)], "s"),
             ([ct.Field("c", ct.CHAR, 0), ct.Field("t", chars, 0)], "t"),
             ([ct.Field("b", ct.BOOL, 0), ct.Field("u", ct.UCHAR, 0)], "u"),
             ([ct.Field("p", ct.PointerType(ct.INT), 0), ct.Field("c", ct.CHAR, 0)], "c")]
    for fields, name in cases:
        chosen = ct.union_member(_anonymous_record("union", fields, 8))
        assert chosen is not None and chosen.name == name, (fields, chosen)
    pointers = _anonymous_record("union", [ct.Field("p", ct.PointerType(ct.INT), 0)], 8)
    assert ct.union_member(pointers) is None  # left out of the value
    inner = _anonymous_record("union", [ct.Field(None, dense, 0), ct.Field("w", ct.INT, 0)], 8)
    outer = _anonymous_record("struct", [ct.Field("k", ct.INT, 0), ct.Field(None, inner, 4),
                                         ct.Field(None, pointers, 16)], 24)
    assert [(f.name, f.offset) for f in ct.value_members(outer)] == \
        [("k", 0), ("x", 4), ("y", 8)]
