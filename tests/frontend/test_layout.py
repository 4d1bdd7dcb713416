"""Record layouts: the compiler probe is the truth, the System V fallback must agree with it
wherever attributes are not involved."""
from __future__ import annotations

import subprocess

import pytest
from pycparser import c_ast

from pytest_ctgen.frontend import ctype as ct
from pytest_ctgen.frontend import layout
from pytest_ctgen.frontend.layout import Member, leaf_members, probe_layouts, sysv_layout
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.parse import parse
from pytest_ctgen.frontend.preprocess import preprocess
from pytest_ctgen.frontend.typeresolve import TypeResolver

TRICKY = """#include <stdint.h>
#include <stdbool.h>
struct pad { char c; int i; char d; double x; short s; };
struct nested { char tag; struct pad p; struct { short a; char b; } inner; long l; };
struct arrays { char name[3]; int vals[5]; struct pad ps[2]; uint8_t tail[]; };
union u1 { char c[5]; int i; double d; struct { char x; short y; } s; };
struct bf1 { unsigned a:3; unsigned b:5; unsigned c:9; signed d:7; unsigned e:31; };
struct bf2 { char a; int b:31; short c:9; char d:3; long long e:40; unsigned char f:1; };
struct bf3 { int a:3; int :0; int b:2; char :0; char c; unsigned :5; long long d:7; int :0; };
struct bf4 { _Bool flag:1; uint64_t big:60; uint64_t more:10; uint16_t s:9; uint16_t t:8; };
struct anon { int k; struct { char a; int b; }; union { short s; double d; }; char z:3; };
union ubf { unsigned a:3; int b:17; char c; unsigned long long d:33; };
typedef struct { char c; float f; struct { double d; char e; } in; } td_t;
struct empty_tail { int n; char data[0]; };
struct unnamed_only { char a; int :3; char b; };
struct bool_mix { bool a; bool b:1; int c:4; bool d; };
struct enum_bits { enum { LOW, HIGH } level:1; enum { NEG = -1, POS = 1 } sign:2; char after; };
struct deep { struct { struct { char a; long b; } two; int c; } one; short d[3][2]; };
struct ptrs { char c; void *p; int (*fn)(int); struct ptrs *self; };
struct { char c; long double ld; } g_anon_global;
struct { char c; struct { short s; int i; } arr[2]; } g_anon_array[3];
struct anon_bits { char k; struct { unsigned lo:4, hi:4; }; union { unsigned u:12; signed char sc:3; };
                   struct { _Bool on:1; long long wide:40; }; };
"""

ATTRIBUTES = """#include <stdint.h>
struct __attribute__((packed)) pk { char c; int i; short s:5; long long q; };
struct mixed { char c; struct pk p; short after; };
struct aligned_member { char c; int i __attribute__((aligned(16))); char tail; };
struct __attribute__((aligned(32))) aligned_record { char c; };
#pragma pack(push, 2)
struct pragma_packed { char c; int i; double d; };
#pragma pack(pop)
struct __attribute__((packed)) packed_bits { uint8_t a:3; uint16_t b:12; uint32_t c:20; };
typedef struct __attribute__((packed)) { char c; uint32_t v; } packed_td;
struct __attribute__((packed)) packed_anon { char c; struct { uint16_t a:3; uint32_t b:30; }; };
"""


def _fallback_records(write_c, source: str) -> dict[str, ct.RecordType]:
    path = write_c("fallback.c", source)
    ast = parse(preprocess(path, []), path)
    resolver = TypeResolver()
    for ext in ast.ext:
        resolver.declare(ext.decl if isinstance(ext, c_ast.FuncDef) else ext)
    return {r.type_expr: r.record for r in resolver.probe_requests()}


def _probed_records(unit) -> dict[str, ct.RecordType]:
    return {r.type_expr: r.record for r in unit.resolver.probe_requests()}


def _shape(record: ct.RecordType) -> tuple:
    leaves = []
    for f in leaf_members(record):
        offset, field = ct.member_offset(record, f.name)
        leaves.append((f.name, offset, field.bit_offset, field.bit_width))
    return record.size, record.align, tuple(leaves)


def test_fallback_agrees_with_the_probe_on_tricky_records(write_c):
    path = write_c("tricky.c", TRICKY)
    probed = _probed_records(load_unit(path))
    fallback = _fallback_records(write_c, TRICKY)
    names = [k for k in probed if "__" not in k.split("(")[0] or "typeof" in k]
    ours = [k for k in names if not k.startswith(("struct _", "union _"))]
    assert len(ours) >= 20
    for key in ours:
        assert _shape(fallback[key]) == _shape(probed[key]), key


def _gcc_offsets(run_gcc, source: str, checks: list[tuple[str, list[str]]],
                 flags: tuple[str, ...] = ()) -> list[list[int]]:
    body = ""
    for type_expr, members in checks:
        body += (f'  printf("%d %d", (int)sizeof({type_expr}), (int)__alignof__({type_expr}));\n')
        for m in members:
            body += f'  printf(" %d", (int)__builtin_offsetof({type_expr}, {m}));\n'
        body += '  printf("\\n");\n'
    out = run_gcc(source + "#include <stdio.h>\nint main(void) {\n" + body + "}\n", flags)
    return [list(map(int, line.split())) for line in out.splitlines()]


def test_probe_matches_gcc_with_attributes_and_pragmas(write_c, run_gcc):
    unit = load_unit(write_c("attrs.c", ATTRIBUTES))
    records = _probed_records(unit)
    checks = [("struct pk", ["c", "i", "q"]), ("struct mixed", ["c", "p", "after"]),
              ("struct aligned_member", ["c", "i", "tail"]), ("struct aligned_record", ["c"]),
              ("struct pragma_packed", ["c", "i", "d"]), ("packed_td", ["c", "v"])]
    for (type_expr, members), truth in zip(checks, _gcc_offsets(run_gcc, ATTRIBUTES, checks)):
        record = records[type_expr]
        got = [record.size, record.align] + [ct.member_offset(record, m)[0] for m in members]
        assert got == truth, type_expr
    assert records["struct pk"].size == 14
    assert records["struct pk"].member("s").bit_width == 5


def _pattern(width: int) -> int:
    return ((0x5A5A5A5A5A5A5A5A >> 1) & ((1 << width) - 1)) | 1 | (1 << (width - 1))


@pytest.mark.parametrize("source_name, at_least", [("TRICKY", 31), ("ATTRIBUTES", 6)])
def test_bitfield_positions_predict_the_bytes_gcc_writes(write_c, run_gcc, source_name, at_least):
    source = globals()[source_name]
    records = _probed_records(load_unit(write_c("bits.c", source)))
    cases = []
    for type_expr, record in records.items():
        for f in leaf_members(record):
            if f.is_bitfield:
                cases.append((type_expr, record, f))
    assert len(cases) >= at_least
    body = ""
    for type_expr, _record, f in cases:
        body += (
            f"  {{ union {{ {type_expr} v; unsigned char b[sizeof({type_expr})]; }} u;\n"
            f"    memset(&u, 0, sizeof u); u.v.{f.name} = {_pattern(f.bit_width)}ull;\n"
            f'    for (unsigned i = 0; i < sizeof u.b; i++) printf("%02x", u.b[i]);\n'
            f'    printf("\\n"); }}\n')
    out = run_gcc(source + "#include <stdio.h>\n#include <string.h>\nint main(void) {\n"
                  + body + "}\n").splitlines()
    for (type_expr, record, f), line in zip(cases, out):
        offset, field = ct.member_offset(record, f.name)
        expected = bytearray(record.size)
        start = offset * 8 + field.bit_offset
        for bit in range(field.bit_width):
            if _pattern(field.bit_width) >> bit & 1:
                expected[(start + bit) // 8] |= 1 << ((start + bit) % 8)
        assert expected.hex() == line, f"{type_expr}.{f.name}"
        assert 0 <= field.bit_offset < 8


def test_packed_size_reaches_constant_expressions(write_c):
    unit = load_unit(write_c("packed_sizeof.c", ATTRIBUTES + (
        "char image[sizeof(struct pk)];\n"
        "int where = __builtin_offsetof(struct mixed, after);\n"
        "char gap[__builtin_offsetof(struct mixed, after)];\n")))
    assert unit.globals["image"].type == ct.ArrayType(ct.CHAR, 14)
    assert unit.globals["gap"].type == ct.ArrayType(ct.CHAR, 16)
    assert unit.globals["image"].declaration == "char @[14]"


def test_user_flags_reach_the_probe(write_c):
    path = write_c("flagged.c", (
        "#ifdef PACK_IT\n#define PACKED __attribute__((packed))\n#else\n#define PACKED\n#endif\n"
        "struct PACKED frame { char kind; unsigned int length; };\n"))
    assert load_unit(path).resolver.lookup_tag("frame").size == 8
    assert load_unit(path, ["-DPACK_IT"]).resolver.lookup_tag("frame").size == 5


def test_record_the_probe_cannot_compile_falls_back_alone(write_c):
    path = write_c("hidden.c", (
        "struct __attribute__((packed)) hidden { char c; int value; };\n"
        "struct __attribute__((packed)) hidden_bits { char c; int bits:30; };\n"
        "#define value value_hidden_by_a_macro\n"
        "#define bits bits_hidden_by_a_macro\n"
        "struct __attribute__((packed)) fine { char c; int i; int b:20; };\n"))
    unit = load_unit(path)
    assert unit.resolver.lookup_tag("fine").size == 8
    assert unit.resolver.lookup_tag("hidden").size == 8  # System V fallback
    assert unit.resolver.lookup_tag("hidden_bits").size == 8  # System V fallback


def test_unit_that_does_not_compile_keeps_fallback_layouts(write_c):
    path = write_c("broken.c", (
        "struct s { char c; double d; };\n"
        "int f(void) { return undeclared_thing; }\n"))
    unit = load_unit(path)
    record = unit.resolver.lookup_tag("s")
    assert (record.size, record.member("d").offset) == (16, 8)


def test_unit_with_main_and_undefined_externs_is_probed(write_c):
    path = write_c("with_main.c", (
        "extern int sensor_read(void);\n"
        "extern int table_in_other_unit[];\n"
        "int (*hook)(void) = sensor_read;\n"
        "int *first = &table_in_other_unit[0];\n"
        "struct __attribute__((packed)) rec { char a; short b; };\n"
        "int main(void) { return sensor_read(); }\n"))
    assert load_unit(path).resolver.lookup_tag("rec").size == 3


def test_probe_results_are_cached(write_c, monkeypatch):
    path = write_c("cached.c", "struct c1 { char a; int b; };\n")
    unit = load_unit(path)
    requests = unit.resolver.probe_requests()
    first = probe_layouts(path, [], requests, cache_key=unit.preprocessed)

    def no_gcc(*args, **kwargs):
        raise AssertionError("gcc ran again")

    monkeypatch.setattr(layout.subprocess, "run", no_gcc)
    assert probe_layouts(path, [], requests, cache_key=unit.preprocessed) == first
    assert first["struct c1"].size == 8


def test_local_record_uses_the_fallback(write_c):
    path = write_c("local.c", (
        "struct S { char c; };\n"
        "int f(void) { struct S { char c; long l; int b:3; } s; return sizeof s; }\n"))
    unit = load_unit(path)
    body = unit.functions["f"].definition.body.block_items
    unit.resolver.push_scope()
    local = unit.resolver.declare(body[0])
    unit.resolver.pop_scope()
    assert local is not unit.resolver.lookup_tag("S")
    assert (local.size, local.member("l").offset, local.member("b").offset) == (24, 8, 16)


def test_anonymous_members_are_placed(write_c):
    records = _probed_records(load_unit(write_c("anon.c", TRICKY)))
    anon = records["struct anon"]
    inner_struct, inner_union = anon.fields[1], anon.fields[2]
    assert inner_struct.name is None and inner_struct.offset == 4
    assert inner_struct.type.member("b").offset == 4  # relative to the inner struct
    assert inner_union.offset == 16 and anon.member("d") is inner_union
    assert ct.member_offset(anon, "b")[0] == 8


def test_sysv_rules_directly():
    bits = sysv_layout("struct", [Member("a", ct.CHAR), Member("b", ct.INT, 31),
                                  Member(None, ct.INT, 0), Member("c", ct.CHAR, 2)])
    assert [(f.name, f.offset, f.bit_offset) for f in bits.fields] == [
        ("a", 0, None), ("b", 4, 0), ("c", 8, 0)]
    assert (bits.size, bits.align) == (12, 4)
    union = sysv_layout("union", [Member("x", ct.CHAR, 3), Member("y", ct.SHORT)])
    assert (union.size, union.align) == (2, 2)
    unnamed = sysv_layout("struct", [Member("a", ct.CHAR), Member(None, ct.LLONG, 7)])
    assert (unnamed.size, unnamed.align, len(unnamed.fields)) == (2, 1, 1)
    flexible = sysv_layout("struct", [Member("n", ct.SHORT),
                                      Member("d", ct.ArrayType(ct.LONG, None))])
    assert (flexible.size, flexible.fields[1].offset) == (8, 8)


def test_probe_program_is_data_only(write_c, tmp_path):
    unit = load_unit(write_c("shown.c", TRICKY))
    source, owners = layout.probe_source(unit.path, unit.resolver.probe_requests())
    assert len(owners) == len(source.splitlines())
    obj = tmp_path / "probe.o"
    src = tmp_path / "probe.c"
    src.write_text(source)
    subprocess.run(["gcc", "-std=gnu11", "-c", str(src), "-o", str(obj)], check=True,
                   capture_output=True)
    symbols = subprocess.run(["nm", str(obj)], check=True, capture_output=True,
                             text=True).stdout.split("\n")
    probe_symbols = [line.split()[-1] for line in symbols if "ctgen_" in line]
    assert any(name.startswith("ctgen_b") for name in probe_symbols)
    assert all(line.split()[1] in "rR" for line in symbols if "ctgen_" in line)


def test_probe_never_runs_the_unit(write_c, tmp_path):
    marker = tmp_path / "constructor_ran"
    path = write_c("constructed.c", (
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void touch(void) {\n"
        f"  FILE *f = fopen({str(marker)!r}, \"w\"); if (f) fclose(f);\n".replace("'", '"')
        + "}\n"
        "struct __attribute__((packed)) rec { char a; int b; unsigned c:3; };\n"
        "int main(void) { puts(\"main ran\"); return 0; }\n"))
    record = load_unit(path).resolver.lookup_tag("rec")
    assert (record.size, record.member("b").offset, record.member("c").offset) == (6, 1, 5)
    assert not marker.exists()


def test_probe_reads_a_32_bit_target(write_c, tmp_path):
    source = ("struct q { char c; long long v; long l; unsigned bits:7; };\n"
              "struct __attribute__((packed)) p { char c; double d; };\n")
    unit = load_unit(write_c("i386.c", source), ["-m32"])
    q, p = unit.resolver.lookup_tag("q"), unit.resolver.lookup_tag("p")
    got = {"sizeof(struct q)": q.size, "__alignof__(struct q)": q.align,
           "__builtin_offsetof(struct q, v)": q.member("v").offset,
           "__builtin_offsetof(struct q, l)": q.member("l").offset,
           "sizeof(struct p)": p.size, "__alignof__(struct p)": p.align,
           "__builtin_offsetof(struct p, d)": p.member("d").offset}
    assert (q.size, q.member("l").offset, q.member("bits").offset) == (20, 12, 16)
    # gcc's numbers for the i386 target (compiled only: no 32-bit libc needed)
    check = tmp_path / "check.c"
    check.write_text(source + "".join(f"_Static_assert({expr} == {value}, \"{expr}\");\n"
                                      for expr, value in got.items()))
    subprocess.run(["gcc", "-m32", "-c", str(check), "-o", str(tmp_path / "check.o")],
                   check=True, capture_output=True)


def test_probe_works_in_c89(write_c):
    # the probe is declarations only: nothing in it needs C99 (the program it replaced did)
    path = write_c("old.c", "struct __attribute__((packed)) s { char c; long v; unsigned b:3; };\n")
    record = load_unit(path, ["-std=c89"]).resolver.lookup_tag("s")
    assert (record.size, record.member("v").offset, record.member("b").offset) == (10, 1, 9)
