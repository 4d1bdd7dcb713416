"""A small C unit and hand-built cases for it, exercising every kind of value the harness
supports, in the forms the unit gives them (enumerators, masks in hex) as generation does
(shared by the codegen tests)."""
from __future__ import annotations

import functools
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path

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
    RecordValue,
    StubCall,
    StubPrototype,
    StubScript,
)
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.signatures import with_signatures
from pytest_ctgen.frontend.unit import Unit
from pytest_ctgen.frontend.unit_shapes import unit_shapes
from pytest_ctgen.value_forms import with_forms

UNIT_SOURCE = r"""
#include <stdint.h>
#include <stdbool.h>

enum motor_mode { MODE_OFF, MODE_ON, MODE_FAULT };
struct inner { int16_t lo; uint8_t tag; };
struct cfg {
    struct inner in;
    int32_t gains[3];
    unsigned flag : 1;
    signed int level : 4;
    double scale;
};
union word { uint32_t u; uint8_t b[4]; };

int32_t g_counter;
struct cfg g_cfg;
enum motor_mode g_mode = MODE_OFF;
float g_ratio;
uint64_t g_big;
union word g_word;
int *g_ptr;

int sensor_read(int channel, int32_t *out);
void log_event(int code);
struct inner make_inner(void);

int8_t id_i8(int8_t x) { return x; }
uint8_t id_u8(uint8_t x) { return x; }
int16_t id_i16(int16_t x) { return x; }
uint16_t id_u16(uint16_t x) { return x; }
int32_t id_i32(int32_t x) { return x; }
uint32_t id_u32(uint32_t x) { return x; }
int64_t id_i64(int64_t x) { return x; }
uint64_t id_u64(uint64_t x) { return x; }
unsigned long long id_ull(unsigned long long x) { return x; }
long id_long(long x) { return x; }
unsigned long id_ulong(unsigned long x) { return x; }
char id_char(char x) { return x; }
signed char id_schar(signed char x) { return x; }
unsigned id_uint(unsigned x) { return x; }
int id_cint(const int x) { return x; }
bool negate_b(bool b) { return !b; }
float id_f(float x) { return x; }
double id_d(double x) { return x; }
float neg_f(float x) { return -x; }

enum motor_mode next_mode(enum motor_mode m)
{
    return m == MODE_FAULT ? MODE_OFF : (enum motor_mode)(m + 1);
}

struct cfg scale_cfg(struct cfg c, int32_t k)
{
    c.gains[0] *= k;
    c.in.lo = (int16_t)(c.in.lo + 1);
    c.flag = !c.flag;
    c.level = -c.level;
    c.scale *= 2.0;
    return c;
}

void bump(int32_t by)
{
    g_counter += by;
    g_cfg.gains[2] = g_counter;
    g_cfg.level = -2;
    g_mode = MODE_ON;
    g_ratio = 0.5f;
    log_event(by);
}

int32_t sum_sensor(void)
{
    int32_t a = 0, b = 0;
    int r1 = sensor_read(1, &a);
    int r2 = sensor_read(2, &b);
    return a + b + r1 * 100 + r2 * 1000;
}

int16_t inner_lo(void)
{
    struct inner i = make_inner();
    return (int16_t)(i.lo + i.tag);
}

uint64_t big_next(void) { return g_big + 1; }

uint8_t low_byte(union word w) { return w.b[0]; }

void swap_halves(void) { g_word.u = (g_word.u << 16) | (g_word.u >> 16); }

int is_null(const int *p) { return p == 0; }

void clear_ptr(void) { g_ptr = 0; }

uint16_t set_bits(uint16_t reg, uint16_t bits) { return reg | bits; }
"""

STUBS = (
    StubPrototype("sensor_read", "int sensor_read(int channel, int32_t *out)"),
    StubPrototype("log_event", "void log_event(int code)"),
    StubPrototype("make_inner", "struct inner make_inner(void)"),
)

_IDENTITIES = [  # function, C type, values
    ("id_i8", "int8_t", [-128, 127, 0]),
    ("id_u8", "uint8_t", [255]),
    ("id_i16", "int16_t", [-32768, 32767]),
    ("id_u16", "uint16_t", [65535]),
    ("id_i32", "int32_t", [-(2**31), 2**31 - 1, -1]),
    ("id_u32", "uint32_t", [2**32 - 1, 2**31]),
    ("id_i64", "int64_t", [-(2**63), 2**63 - 1, -(2**31) - 1]),
    ("id_u64", "uint64_t", [2**64 - 1, 2**63]),
    ("id_ull", "unsigned long long", [2**64 - 1]),
    ("id_long", "long", [-(2**63), 2**63 - 1]),
    ("id_ulong", "unsigned long", [2**64 - 1]),
    ("id_char", "char", [65, -128]),
    ("id_schar", "signed char", [-1]),
    ("id_uint", "unsigned", [2**31, 2**32 - 1]),
    ("id_cint", "const int", [-7]),
]

_FLOATS = [
    ("id_f", "float", 4, [-0.0, math.inf, -math.inf, math.nan, 1e-45, 3.4028234663852886e38,
                          0.1, 1.0]),
    ("id_d", "double", 8, [-0.0, math.inf, math.nan, 5e-324, 0.1, 1.7976931348623157e308,
                           -2.5]),
]


def _param(name: str, decl: str, value: object) -> Binding:
    return Binding(name, decl, value)  # type: ignore[arg-type]


def _cfg(lo: int, tag: int, gains: list[int], flag: int, level: int, scale: float) -> RecordValue:
    return RecordValue((
        ("in", RecordValue((("lo", IntValue(lo)), ("tag", IntValue(tag))))),
        ("gains", ArrayValue(tuple(IntValue(g) for g in gains))),
        ("flag", IntValue(flag)),
        ("level", IntValue(level)),
        ("scale", FloatValue.of(scale, 8)),
    ))


def _function(name: str, prototype: str, cases: list[Case]) -> FunctionCases:
    return FunctionCases(name, 1, prototype, tuple(cases), "exhausted")


def sample_file_cases(with_failures: bool = False, float_max: bool = True) -> FileCases:
    """Cases for UNIT_SOURCE; all pass unless `with_failures` adds two wrong predictions.

    `float_max=False` leaves out FLT_MAX (FloatValue.shortest_text cannot handle it yet, so the
    JSON export of a case holding it fails)."""
    functions: list[FunctionCases] = []
    for fn, ctype, values in _IDENTITIES:
        ret = ctype.replace("const ", "")
        cases = [Case(fn, i + 1, (_param("x", f"{ctype} @", IntValue(v)),), (),
                      Expected(IntValue(v))) for i, v in enumerate(values)]
        if with_failures and fn == "id_i32":
            cases.append(Case(fn, len(cases) + 1, (_param("x", "int32_t @", IntValue(5)),), (),
                              Expected(IntValue(7))))
        functions.append(_function(fn, f"{ret} {fn}({ctype} x)", cases))
    for fn, ctype, size, fvalues in _FLOATS:
        if not float_max:
            fvalues = [v for v in fvalues if v != 3.4028234663852886e38]
        cases = [Case(fn, i + 1, (_param("x", f"{ctype} @", FloatValue.of(v, size)),), (),
                      Expected(FloatValue.of(v, size))) for i, v in enumerate(fvalues)]
        functions.append(_function(fn, f"{ctype} {fn}({ctype} x)", cases))
    functions.append(_function("neg_f", "float neg_f(float x)", [
        Case("neg_f", 1, (_param("x", "float @", FloatValue.of(1.5, 4)),), (),
             Expected(FloatValue.of(-1.5, 4))),
        Case("neg_f", 2, (_param("x", "float @", FloatValue.of(0.0, 4)),), (),
             Expected(FloatValue.of(-0.0, 4))),
    ]))
    functions.append(_function("negate_b", "bool negate_b(bool b)", [
        Case("negate_b", 1, (_param("b", "bool @", IntValue(1)),), (), Expected(IntValue(0))),
        Case("negate_b", 2, (_param("b", "_Bool @", IntValue(0)),), (), Expected(IntValue(1))),
    ]))
    functions.append(_function("next_mode", "enum motor_mode next_mode(enum motor_mode m)", [
        Case("next_mode", 1, (_param("m", "enum motor_mode @", IntValue(1)),), (),
             Expected(IntValue(2))),
        Case("next_mode", 2, (_param("m", "enum motor_mode @", IntValue(2)),), (),
             Expected(IntValue(0))),
    ]))
    functions.append(_function("scale_cfg", "struct cfg scale_cfg(struct cfg c, int32_t k)", [
        Case("scale_cfg", 1, (
            _param("c", "struct cfg @", _cfg(-5, 200, [1, -2, 3], 1, -3, 0.25)),
            _param("k", "int32_t @", IntValue(4))), (),
            Expected(_cfg(-4, 200, [4, -2, 3], 0, 3, 0.5))),
    ]))
    cfg_before = _cfg(7, 1, [10, 20, 30], 1, 5, 1.5)
    cfg_after = _cfg(7, 1, [10, 20, 15], 1, -2, 1.5)
    bump_globals = (Binding("g_counter", "int32_t @", IntValue(10)),
                    Binding("g_cfg", "struct cfg @", cfg_before),
                    Binding("g_mode", "enum motor_mode @", IntValue(2)))
    bump_cases = [Case("bump", 1, (_param("by", "int32_t @", IntValue(5)),), bump_globals,
                       Expected(None, (
                           Binding("g_counter", "int32_t @", IntValue(15)),
                           Binding("g_cfg", "struct cfg @", cfg_after),
                           Binding("g_mode", "enum motor_mode @", IntValue(1)),
                           Binding("g_ratio", "float @", FloatValue.of(0.5, 4)),
                       ), (("log_event", 1),)))]
    if with_failures:
        bump_cases.append(Case("bump", 2, (_param("by", "int32_t @", IntValue(1)),),
                               bump_globals, Expected(None, (
                                   Binding("g_counter", "int32_t @", IntValue(11)),
                                   Binding("g_mode", "enum motor_mode @", IntValue(2)),
                               ), (("log_event", 1),))))
    functions.append(_function("bump", "void bump(int32_t by)", bump_cases))
    functions.append(_function("sum_sensor", "int32_t sum_sensor(void)", [
        Case("sum_sensor", 1, (), (), Expected(IntValue(10 - 3 + 100 + 2000), (),
                                                (("sensor_read", 2),)),
             stubs=(StubScript("sensor_read", (
                 StubCall(IntValue(1), (Binding("*out", "int32_t @", IntValue(10)),)),
                 StubCall(IntValue(2), (Binding("*out", "int32_t @", IntValue(-3)),)))),)),
        # a script shorter than the calls: later calls return 0 and write nothing
        Case("sum_sensor", 2, (), (), Expected(IntValue(7 + 300), (), (("sensor_read", 2),)),
             stubs=(StubScript("sensor_read", (
                 StubCall(IntValue(3), (Binding("*out", "int32_t @", IntValue(7)),)),)),)),
    ]))
    functions.append(_function("inner_lo", "int16_t inner_lo(void)", [
        Case("inner_lo", 1, (), (), Expected(IntValue(-90), (), (("make_inner", 1),)),
             stubs=(StubScript("make_inner", (StubCall(
                 RecordValue((("lo", IntValue(-100)), ("tag", IntValue(10))))),)),)),
    ]))
    functions.append(_function("big_next", "uint64_t big_next(void)", [
        Case("big_next", 1, (), (Binding("g_big", "uint64_t @", IntValue(2**64 - 2)),),
             Expected(IntValue(2**64 - 1), (Binding("g_big", "uint64_t @", IntValue(2**64 - 2)),))),
    ]))
    functions.append(_function("low_byte", "uint8_t low_byte(union word w)", [
        Case("low_byte", 1, (_param("w", "union word @", BytesValue(b"\x78\x56\x34\x12")),), (),
             Expected(IntValue(0x78))),
    ]))
    functions.append(_function("swap_halves", "void swap_halves(void)", [
        Case("swap_halves", 1, (), (Binding("g_word", "union word @",
                                            BytesValue(b"\x01\x02\x03\x04")),),
             Expected(None, (Binding("g_word", "union word @", BytesValue(b"\x03\x04\x01\x02")),))),
    ]))
    functions.append(_function("is_null", "int is_null(const int *p)", [
        Case("is_null", 1, (_param("p", "const int *@", PointerValue(None)),), (),
             Expected(IntValue(1))),
    ]))
    functions.append(_function("clear_ptr", "void clear_ptr(void)", [
        Case("clear_ptr", 1, (), (), Expected(None, (Binding("g_ptr", "int *@",
                                                             PointerValue(None)),))),
    ]))
    set_bits = [Case("set_bits", 1, (_param("reg", "uint16_t @", IntValue(0x0F00)),
                                     _param("bits", "uint16_t @", IntValue(0x00F0))), (),
                     Expected(IntValue(0x0FF0)))]
    if with_failures:
        set_bits.append(Case("set_bits", 2, (_param("reg", "uint16_t @", IntValue(0x00F0)),
                                             _param("bits", "uint16_t @", IntValue(0))), (),
                             Expected(IntValue(0x00FF))))
    functions.append(_function("set_bits", "uint16_t set_bits(uint16_t reg, uint16_t bits)",
                               set_bits))
    unit = _sample_unit()
    return with_forms(with_signatures(FileCases("src/sample.c", tuple(functions), STUBS), unit),
                      unit_shapes(unit))


@functools.lru_cache(maxsize=1)
def _sample_unit() -> Unit:
    with tempfile.TemporaryDirectory() as directory:
        return load_unit(write_unit(Path(directory)), probe=False)


def signed(fc: FileCases, unit: Path, cflags: Sequence[str] = ()) -> FileCases:
    """`fc` with the signatures of its functions, stubs and callbacks read from the unit at
    `unit`, as generation attaches them."""
    return with_signatures(fc, load_unit(unit, list(cflags), probe=False))


def signed_by_source(fc: FileCases, source: str) -> FileCases:
    """`fc` with the signatures read from the C text `source`, a unit that defines the
    functions of `fc`."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "unit.c"
        path.write_text(source, encoding="utf-8")
        return signed(fc, path)


def write_unit(directory: Path) -> Path:
    """Write UNIT_SOURCE as `sample.c` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "sample.c"
    path.write_text(UNIT_SOURCE, encoding="utf-8")
    return path
