"""Exact C semantics of the symbolic model, checked against gcc (DESIGN §4).

Every function below is compiled once into one unit; gcc runs it on a list of concrete
inputs (extremes of each type plus seeded random values), and the package's Executor runs
the same function symbolically with the inputs fixed (see ctgen_concrete.py). Each function
is one test item: the model must agree with gcc -O0 on x86-64 for every input.
"""
from __future__ import annotations

import itertools
import math
import random
import shutil
import struct
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

import pytest

from ctgen_concrete import UB, Bits, ModelRunner, differential, load_program

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# ------------------------------------------------------------------------ the inputs

INT_TYPES: dict[str, tuple[int, bool]] = {
    "char": (8, True), "signed char": (8, True), "unsigned char": (8, False),
    "short": (16, True), "unsigned short": (16, False), "int": (32, True),
    "unsigned": (32, False), "long": (64, True), "unsigned long": (64, False),
    "long long": (64, True), "unsigned long long": (64, False),
    "int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True),
    "uint16_t": (16, False), "int32_t": (32, True), "uint32_t": (32, False),
    "int64_t": (64, True), "uint64_t": (64, False),
    "enum pos": (32, False), "enum neg": (32, True),
}
FLOAT_TYPES = {"float": 4, "double": 8}


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def int_extremes(bits: int, signed: bool) -> list[int]:
    if signed:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return [lo, lo + 1, -100, -1, 0, 1, 7, 100, hi - 1, hi]
    hi = (1 << bits) - 1
    return [0, 1, 2, 100, 200, hi >> 1, (hi >> 1) + 1, hi - 1, hi]


FLOAT_EXTREMES = {
    4: [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, _f32(0.1), 3.0, 100.0, -100.0, 16777216.0,
        2147483520.0, -2147483648.0, 3.4028234663852886e38, 1.1754943508222875e-38,
        1.401298464324817e-45, math.inf, -math.inf, math.nan, Bits(0xFFC00000)],
    8: [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 0.1, 3.0, 100.0, -100.0, 9007199254740993.0,
        2147483647.0, -2147483648.0, 1.7976931348623157e308, 2.2250738585072014e-308,
        5e-324, 1e300, math.inf, -math.inf, math.nan, Bits(0xFFF8000000000000)],
}


def pool(ctype: str) -> list:
    if ctype == "_Bool":
        return [0, 1]
    if ctype in FLOAT_TYPES:
        return FLOAT_EXTREMES[FLOAT_TYPES[ctype]]
    bits, signed = INT_TYPES[ctype]
    return int_extremes(bits, signed)


def random_value(rng: random.Random, ctype: str) -> object:
    if ctype == "_Bool":
        return rng.randint(0, 1)
    if ctype in FLOAT_TYPES:
        size = FLOAT_TYPES[ctype]
        kind = rng.randrange(3)
        if kind == 0:  # an ordinary value
            x = rng.uniform(-1000.0, 1000.0)
            return _f32(x) if size == 4 else x
        if kind == 1:  # a small integer-valued one
            return float(rng.randint(-50, 50))
        return Bits(rng.getrandbits(size * 8))  # anything, NaNs and infinities included
    bits, signed = INT_TYPES[ctype]
    if rng.randrange(2):
        v = rng.getrandbits(bits)
        return v - (1 << bits) if signed and v >> (bits - 1) else v
    return rng.randint(-1000, 1000) if signed else rng.randint(0, 1000)


# ----------------------------------------------------------------------- the table


@dataclass
class Fn:
    """`RESULT name(PARAMS) { return BODY; }` with the inputs to try."""

    name: str
    result: str
    params: list[tuple[str, str]]  # (type, name)
    body: str
    ok: Callable[..., bool] | None = None  # inputs outside it are undefined in C: skipped
    values: dict[str, list] = field(default_factory=dict)  # replaces a parameter's pool
    randoms: int = 24
    statements: str = ""  # a body with statements instead of `return BODY;`

    def source(self) -> str:
        params = ", ".join(f"{t} {n}" for t, n in self.params) or "void"
        body = self.statements or f"return {self.body};"
        return f"{self.result} {self.name}({params}) {{ {body} }}"

    def inputs(self, seed: int) -> list[tuple]:
        pools = [self.values.get(n, pool(t)) for t, n in self.params]
        combos = list(itertools.product(*pools))
        rng = random.Random(seed)
        if len(combos) > 120:
            combos = rng.sample(combos, 120)
        for _ in range(self.randoms if self.params else 0):
            combos.append(tuple(self.values[n][rng.randrange(len(self.values[n]))]
                                if n in self.values else random_value(rng, t)
                                for t, n in self.params))
        out = []
        for args in combos:
            if self.ok is not None:
                plain = [a for a in args]
                if not self.ok(*plain):
                    continue
            out.append(args)
        return out


PRELUDE = r"""
#include <stdint.h>
#include <stdbool.h>
enum pos { POS_A, POS_B = 5, POS_C };
enum neg { NEG_A = -3, NEG_B, NEG_C = 7 };
"""

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN = -(1 << 63)


def _sdiv_ok(lo: int) -> Callable[[int, int], bool]:
    return lambda a, b: b != 0 and not (a == lo and b == -1)


def _fits(lo: int, hi: int) -> Callable[[object], bool]:
    """A float input whose truncation is in [lo, hi] (conversion defined)."""

    def ok(x: object) -> bool:
        if isinstance(x, Bits):
            return False
        x = float(x)  # type: ignore[arg-type]
        return math.isfinite(x) and lo <= math.trunc(x) <= hi

    return ok


SHIFT32 = list(range(32))
SHIFT64 = list(range(64))

FUNCTIONS: list[Fn] = []

# Integer types: conversion from a wide value (truncation), widening (sign / zero
# extension), arithmetic after promotion, wraparound in the type itself.
for _t in ["char", "signed char", "unsigned char", "short", "unsigned short", "int",
           "unsigned", "long", "unsigned long", "long long", "unsigned long long",
           "int8_t", "uint16_t", "int64_t", "uint64_t", "enum pos", "enum neg"]:
    _id = _t.replace(" ", "_")
    FUNCTIONS += [
        Fn(f"narrow_to_{_id}", _t, [("long long", "a")], "a"),
        Fn(f"widen_{_id}_to_ll", "long long", [(_t, "a")], "a"),
        Fn(f"widen_{_id}_to_ull", "unsigned long long", [(_t, "a")], "a"),
        Fn(f"add_{_id}", "long long", [(_t, "a"), (_t, "b")], "a + b"),
        Fn(f"mul_wrap_{_id}", _t, [(_t, "a"), (_t, "b")], "a * b"),
        Fn(f"sub_{_id}", "long long", [(_t, "a"), (_t, "b")], "a - b"),
        Fn(f"neg_{_id}", "long long", [(_t, "a")], "-a"),
        Fn(f"not_{_id}", "long long", [(_t, "a")], "~a"),
        Fn(f"lt_{_id}", "int", [(_t, "a"), (_t, "b")], "a < b"),
        Fn(f"bits_{_id}", "long long", [(_t, "a"), (_t, "b")], "(a & b) ^ (a | 3)"),
    ]

FUNCTIONS += [
    # _Bool
    Fn("bool_from_int", "_Bool", [("int", "a")], "a", values={"a": [0, 1, 2, 256, -1, 255]}),
    Fn("bool_from_ll", "_Bool", [("long long", "a")], "a",
       values={"a": [0, 1 << 32, 1 << 40, -1, 256]}),
    # (unsigned: gcc folds `(_Bool)(a * 256)` to `(_Bool)a`, signed overflow being undefined)
    Fn("bool_cast_256", "int", [("int", "a")], "(_Bool)(a + 256u) + (_Bool)(a * 256u)",
       values={"a": [0, 1, -256, 1 << 24, -(1 << 24), 255, INT32_MIN]}),
    Fn("bool_from_double", "_Bool", [("double", "a")], "a"),
    Fn("bool_from_float", "_Bool", [("float", "a")], "a"),
    Fn("bool_arith", "int", [("_Bool", "a"), ("_Bool", "b")], "a + b - (a == 1) + !b"),
    Fn("bool_to_uchar", "unsigned char", [("_Bool", "a")], "a * 200"),
    Fn("bool_half", "int", [("int", "a")], "(_Bool)0.5 + (_Bool)(a / 3.0)"),
    # plain char is signed on x86-64
    Fn("char_sign", "int", [("char", "c")], "c < 0"),
    Fn("char_value", "int", [("char", "c")], "c + 0"),
    Fn("char_from_200", "int", [("int", "a")], "(char)200 + (char)a"),
    Fn("char_literal", "int", [("int", "a")], "'\\xff' + a"),
    # integer promotions and usual arithmetic conversions
    Fn("minus1_lt_1u", "int", [], "-1 < 1u"),
    Fn("int_lt_unsigned", "int", [("int", "a"), ("unsigned", "b")], "a < b"),
    Fn("long_lt_unsigned", "int", [("long", "a"), ("unsigned", "b")], "a < b"),
    Fn("ll_lt_ulong", "int", [("long long", "a"), ("unsigned long", "b")], "a < b"),
    Fn("short_lt_ushort", "int", [("short", "a"), ("unsigned short", "b")], "a < b"),
    Fn("uchar_plus_schar", "int", [("unsigned char", "a"), ("signed char", "b")], "a + b",
       values={"a": [200, 0, 255], "b": [-100, 127, -128]}),
    Fn("uchar200_plus_schar_m100", "int", [], "(unsigned char)200 + (signed char)-100"),
    Fn("u16_mul_u16", "int", [("uint16_t", "a"), ("uint16_t", "b")], "a * b"),
    Fn("u16_mul_u16_to_u32", "uint32_t", [("uint16_t", "a"), ("uint16_t", "b")], "a * b"),
    Fn("u8_mul_i8_shift", "int", [("int8_t", "a"), ("uint16_t", "b")], "a * b >> 3"),
    Fn("u8_sub_gives_int", "int", [("uint8_t", "a"), ("uint8_t", "b")], "a - b"),
    Fn("u32_sub_wraps", "long long", [("uint32_t", "a"), ("uint32_t", "b")], "a - b"),
    Fn("int_plus_unsigned", "long long", [("int", "a"), ("unsigned", "b")], "a + b"),
    Fn("long_plus_unsigned", "long long", [("long", "a"), ("unsigned", "b")], "a + b"),
    Fn("ll_plus_ulong", "unsigned long long", [("long long", "a"), ("unsigned long", "b")],
       "a + b"),
    Fn("int_mul_ul", "unsigned long", [("int", "a"), ("unsigned long", "b")], "a * b"),
    Fn("ushort_neg", "int", [("unsigned short", "a")], "-a"),
    Fn("uint_neg", "unsigned", [("unsigned", "a")], "-a"),
    Fn("uchar_not", "int", [("unsigned char", "a")], "~a"),
    Fn("int_overflow", "int", [("int", "a"), ("int", "b")], "a + b",
       values={"a": [INT32_MAX, INT32_MIN, 5], "b": [1, -1, INT32_MAX]}),
    Fn("enum_pos_minus", "long long", [("enum pos", "e")], "e - 6",
       values={"e": [0, 5, 6, 7]}),
    Fn("enum_neg_lt0", "int", [("enum neg", "e")], "e < 0", values={"e": [-3, -2, 7, 0]}),
    Fn("enum_const_arith", "long long", [("int", "a")], "a * POS_C + NEG_A"),
    Fn("enum_cmp_unsigned", "int", [("enum pos", "e"), ("int", "a")], "e < a"),
    Fn("cond_value", "int", [("int", "a"), ("int", "b")], "a > b ? a - b : (b && a) * 7"),
    # division and remainder truncate toward zero
    Fn("sdiv", "int", [("int", "a"), ("int", "b")], "a / b", ok=_sdiv_ok(INT32_MIN),
       values={"b": [1, -1, 2, -2, 3, -7, 100, INT32_MIN, INT32_MAX]}),
    Fn("srem", "int", [("int", "a"), ("int", "b")], "a % b", ok=_sdiv_ok(INT32_MIN),
       values={"b": [1, -1, 2, -2, 3, -7, 100, INT32_MIN, INT32_MAX]}),
    Fn("udiv", "unsigned", [("unsigned", "a"), ("unsigned", "b")], "a / b",
       ok=lambda a, b: b != 0),
    Fn("urem", "unsigned", [("unsigned", "a"), ("unsigned", "b")], "a % b",
       ok=lambda a, b: b != 0),
    Fn("lldiv", "long long", [("long long", "a"), ("long long", "b")], "a / b + a % b",
       ok=_sdiv_ok(INT64_MIN)),
    Fn("ulldiv", "unsigned long long", [("unsigned long long", "a"),
                                        ("unsigned long long", "b")], "a / b ^ a % b",
       ok=lambda a, b: b != 0),
    Fn("i8_div_promoted", "int", [("int8_t", "a"), ("int8_t", "b")], "a / b * 1000 + a % b",
       ok=lambda a, b: b != 0),  # -128 / -1 is fine: the operands are ints
    Fn("neg_div_unsigned", "unsigned", [("int", "a"), ("unsigned", "b")], "a / b",
       ok=lambda a, b: b != 0),
    Fn("div_literals", "int", [("int", "a")], "-7 / 2 * 100 + -7 % 2 * 10 + 7 % -2 + a"),
    # shifts: counts in range, left operand promoted, right shift of negatives arithmetic
    Fn("shl_int", "int", [("int", "a"), ("int", "n")], "a << n", values={"n": SHIFT32}),
    Fn("shr_int", "int", [("int", "a"), ("int", "n")], "a >> n", values={"n": SHIFT32}),
    Fn("shl_unsigned", "unsigned", [("unsigned", "a"), ("int", "n")], "a << n",
       values={"n": SHIFT32}),
    Fn("shr_unsigned", "unsigned", [("unsigned", "a"), ("unsigned char", "n")], "a >> n",
       values={"n": SHIFT32}),
    Fn("shl_ll", "long long", [("long long", "a"), ("int", "n")], "a << n",
       values={"n": SHIFT64}),
    Fn("shr_ll", "long long", [("long long", "a"), ("long long", "n")], "a >> n",
       values={"n": SHIFT64}),
    Fn("shr_ull", "unsigned long long", [("unsigned long long", "a"), ("unsigned", "n")],
       "a >> n", values={"n": SHIFT64}),
    Fn("shl_u8_promoted", "int", [("uint8_t", "a"), ("int", "n")], "a << n",
       values={"n": list(range(24))}),
    Fn("shr_i8_negative", "int", [("int8_t", "a"), ("int", "n")], "a >> n",
       values={"n": SHIFT32}),
    Fn("shl_by_long", "int", [("int", "a"), ("long", "n")], "a << n", values={"n": SHIFT32}),
    Fn("shift_result_type", "long long", [("unsigned char", "a")], "a << 24"),
    # casts
    Fn("cast_i8", "int", [("int", "a")], "(int8_t)a"),
    Fn("cast_u8", "int", [("int", "a")], "(uint8_t)a"),
    Fn("cast_i16_from_u32", "int", [("unsigned", "a")], "(short)a"),
    Fn("cast_u64_from_int", "unsigned long long", [("int", "a")], "(unsigned long long)a"),
    Fn("cast_ll_from_unsigned", "long long", [("unsigned", "a")], "(long long)a"),
    Fn("cast_u32_from_ll", "unsigned", [("long long", "a")], "(unsigned)a"),
    Fn("cast_chain", "int", [("int", "a")], "(int)(unsigned char)(signed char)(short)a"),
    Fn("cast_bool_256", "int", [("int", "a")], "(_Bool)256 * 10 + (_Bool)a"),
    Fn("cast_bool_half", "int", [("double", "d")], "(_Bool)d", values={"d": [0.5, 0.0, -0.0,
                                                                              1e-300, -0.5]}),
    # float and double arithmetic
    Fn("fadd", "float", [("float", "a"), ("float", "b")], "a + b"),
    Fn("fsub", "float", [("float", "a"), ("float", "b")], "a - b"),
    Fn("fmul", "float", [("float", "a"), ("float", "b")], "a * b"),
    Fn("fdiv", "float", [("float", "a"), ("float", "b")], "a / b"),
    Fn("dadd", "double", [("double", "a"), ("double", "b")], "a + b"),
    Fn("dsub", "double", [("double", "a"), ("double", "b")], "a - b"),
    Fn("dmul", "double", [("double", "a"), ("double", "b")], "a * b"),
    Fn("ddiv", "double", [("double", "a"), ("double", "b")], "a / b"),
    Fn("fneg", "float", [("float", "a")], "-a"),
    Fn("dneg", "double", [("double", "a")], "-a"),
    Fn("float_times_double", "float", [("float", "a"), ("double", "b")], "a * b"),
    Fn("float_mixed_to_double", "double", [("float", "a"), ("double", "b")], "a + b"),
    Fn("float_plus_int", "float", [("float", "a"), ("int", "b")], "a + b"),
    Fn("float_literal", "float", [("float", "a")], "a * 0.1f + 1.5f"),
    Fn("double_literal", "double", [("float", "a")], "a * 0.1 + 1e-3"),
    Fn("float_literal_double", "float", [("float", "a")], "a + 0.1"),
    Fn("fma_like", "double", [("double", "a"), ("double", "b"), ("double", "c")], "a * b + c",
       randoms=40),
    # comparisons incl. -0.0, infinities and NaN
    Fn("flt", "int", [("float", "a"), ("float", "b")], "a < b"),
    Fn("fle", "int", [("float", "a"), ("float", "b")], "a <= b"),
    Fn("feq", "int", [("float", "a"), ("float", "b")], "a == b"),
    Fn("fne", "int", [("float", "a"), ("float", "b")], "a != b"),
    Fn("dgt", "int", [("double", "a"), ("double", "b")], "a > b"),
    Fn("dge", "int", [("double", "a"), ("double", "b")], "a >= b"),
    Fn("deq", "int", [("double", "a"), ("double", "b")], "a == b"),
    Fn("fnot", "int", [("float", "a")], "!a"),
    Fn("dand", "int", [("double", "a"), ("double", "b")], "a && b"),
    Fn("float_vs_int", "int", [("float", "a"), ("int", "b")], "a < b"),
    Fn("double_eq_ll", "int", [("double", "a"), ("long long", "b")], "a == b"),
    Fn("neg_zero_bits", "double", [("double", "a")], "a * -0.0"),
    # conversions between floating and integer types (in range)
    Fn("f_to_int", "int", [("float", "a")], "a", ok=_fits(INT32_MIN, INT32_MAX)),
    Fn("d_to_int", "int", [("double", "a")], "(int)a", ok=_fits(INT32_MIN, INT32_MAX)),
    Fn("d_to_unsigned", "unsigned", [("double", "a")], "a", ok=_fits(0, (1 << 32) - 1),
       values={"a": [0.0, 0.99, 1.5, 4294967295.0, 4294967295.9, 3e9, 2147483648.0, -0.5,
                     -0.99, 1e10, -1.0, 123.456]}),
    Fn("d_to_short", "short", [("double", "a")], "a", ok=_fits(-32768, 32767)),
    Fn("d_to_uchar", "unsigned char", [("double", "a")], "a", ok=_fits(0, 255),
       values={"a": [0.0, 255.9, 254.5, -0.7, 256.0, 3.99, 100.0]}),
    Fn("d_to_ll", "long long", [("double", "a")], "a", ok=_fits(INT64_MIN, (1 << 63) - 1),
       values={"a": [0.0, -1.5, 9.2e18, -9.2e18, 9007199254740993.0, -9223372036854775808.0,
                     1e19, 123.9]}),
    Fn("d_to_ull", "unsigned long long", [("double", "a")], "a", ok=_fits(0, (1 << 64) - 1),
       values={"a": [0.0, 0.5, 9.2e18, 9.3e18, 1.8e19, 18446744073709549568.0,
                     9223372036854775808.0, -0.9, 2e19, 42.0]}),
    Fn("f_to_u64", "uint64_t", [("float", "a")], "a", ok=_fits(0, (1 << 64) - 1)),
    Fn("int_to_float", "float", [("int", "a")], "a"),
    Fn("unsigned_to_float", "float", [("unsigned", "a")], "a"),
    Fn("ll_to_float", "float", [("long long", "a")], "a"),
    Fn("ull_to_float", "float", [("unsigned long long", "a")], "a",
       values={"a": [0, 1, (1 << 64) - 1, (1 << 63), (1 << 63) + 1, (1 << 24) + 1,
                     (1 << 63) + (1 << 39) + 1, (1 << 53) + 1, 12345678901234567]}),
    Fn("ull_to_double", "double", [("unsigned long long", "a")], "a",
       values={"a": [0, 1, (1 << 64) - 1, (1 << 63), (1 << 63) + 1, (1 << 53) + 1,
                     (1 << 63) + 1025, (1 << 63) + 1024, 12345678901234567]}),
    Fn("ll_to_double", "double", [("long long", "a")], "a"),
    Fn("u8_to_float", "float", [("uint8_t", "a")], "a / 3.0f"),
    Fn("float_to_double", "double", [("float", "a")], "a"),
    Fn("double_to_float", "float", [("double", "a")], "a",
       values={"a": [0.1, 1e39, -1e39, 3.4028235677973366e38, 3.4028235677973362e38, 1e-46,
                     7e-46, 1.5, -0.0, math.inf, math.nan, 16777217.0, 1.0000000596046448]}),
    Fn("float_round_trip", "int", [("double", "a")], "(double)(float)a == a"),
]


# Struct by value, unions and bit-fields: member reads and writes, struct assignment,
# struct arguments and a struct returned by a callee (layout from gcc through the frontend).
STRUCTS = r"""
struct S { char c; int i; short s; double d; };
struct O { struct S in; int arr[3]; unsigned char tail; };
struct B { unsigned a : 3; signed b : 5; unsigned c : 1; unsigned long long w : 40; };
union U { uint32_t u; uint8_t b[4]; float f; };

static struct S mk(int8_t c, int i) { struct S s; s.c = c; s.i = i; s.s = (short)(i * 3);
    s.d = c / 2.0; return s; }
static int sum_s(struct S s) { s.i += 1; return s.c + s.i + s.s; }

int st_member(int8_t c, int i) { struct S s = mk(c, i); struct S t; t = s; t.i += 1;
    s.i = 0; return sum_s(t) + s.i + t.i; }
double st_double(int8_t c, int i) { struct S s = mk(c, i); return s.d + s.c; }
int st_init(int a, int b) { struct S s = { .i = a, .c = (char)b }; struct S u = {0};
    u = s; return u.i - u.c + u.s + (u.d == 0.0); }
int st_nested(int a, int b) { struct O o = {{1, 2, 3, 4.0}, {a, b, a ^ b}, 9};
    struct O p = o; p.arr[1] = 7; p.in.c = (char)a; return p.in.i + p.arr[0] + p.arr[1]
    + o.arr[1] + p.in.c + p.tail; }
int st_arg_copy(int i) { struct S s = mk(3, i); int r = sum_s(s); return r * 1000 + s.i; }
int st_ternary(int a, int b) { struct S x = mk(1, a), y = mk(2, b);
    struct S z = a < b ? x : y; return z.i + z.c; }
int bf_rw(int x, int y) { struct B b = {0}; b.a = x; b.b = y; b.c = x; b.w = (unsigned)x;
    return b.a * 1000 + b.b * 2 + b.c; }
long long bf_wide(long long x) { struct B b = {0}; b.w = x; b.a = 7; return b.w; }
long long bf_wide_arith(long long x) { struct B b = {0}; b.w = x; return b.w + 1; }
int bf_promoted(int x) { struct B b = {0}; b.a = x; return b.a - 5 < 0; }
int bf_signed_neg(int x) { struct B b = {0}; b.b = x; return b.b < 0; }
uint32_t un_float_bits(float f) { union U x; x.f = f; return x.u; }
int un_byte(uint32_t v) { union U x; x.u = v; return x.b[1] * 256 + x.b[3]; }
struct S st_ret(int8_t c, int i) { struct S s = mk(c, i); s.s += c; return s; }
struct O st_ret_nested(int a, short b) { struct O o = {{0}}; o.in = mk((int8_t)b, a);
    o.arr[2] = a + b; o.tail = (unsigned char)a; return o; }
struct B bf_ret(int x) { struct B b = {0}; b.a = x; b.b = -x; b.w = x * 3u; return b; }
float un_from_bytes(uint8_t a, uint8_t b) { union U x; x.u = 0; x.b[2] = a; x.b[3] = b;
    return x.f; }
int cast_bytes(uint32_t w) { const uint8_t *b = (const uint8_t *)&w; return b[0] + b[3] * 256; }
int cast_byte_at(uint32_t w, int i) { const uint8_t *b = (const uint8_t *)&w;
    return b[i & 3]; }
uint32_t cast_write_byte(uint32_t w, uint8_t v, int i) { uint8_t *b = (uint8_t *)&w;
    b[i & 3] = v; return w; }
int cast_halves(uint32_t w) { uint16_t *h = (uint16_t *)&w; h[1] ^= 0xFFFFu;
    return (int)(w >> 16) - h[0]; }
uint32_t cast_float_bits(float f) { return *(const uint32_t *)&f >> 20; }
int cast_struct_bytes(int8_t c, int i) { struct S s = mk(c, i);
    const unsigned char *p = (const unsigned char *)&s; return p[0] + p[4] * 3 + p[8]; }
int64_t cast_double_words(double d) { const int32_t *w = (const int32_t *)&d;
    return (int64_t)w[1] - w[0]; }
"""

STRUCT_CALLS: list[tuple[str, list[tuple]]] = [
    ("st_member", [(c, i) for c in (-128, -1, 0, 5, 127) for i in (-7, 0, 1000, 2147483646)]),
    ("st_double", [(c, i) for c in (-128, -3, 0, 7, 127) for i in (0, 9)]),
    ("st_init", [(a, b) for a in (-5, 0, 70000) for b in (-200, -1, 0, 65, 300)]),
    ("st_nested", [(a, b) for a in (-1, 0, 3, 300) for b in (-9, 0, 12)]),
    ("st_arg_copy", [(i,) for i in (-4, 0, 11, 65536)]),
    ("st_ternary", [(a, b) for a in (-1, 3) for b in (-5, 3, 8)]),
    ("bf_rw", [(x, y) for x in (0, 1, 5, 7, 8, 15, -1, 300) for y in (0, 15, 16, -16, -1, 31)]),
    ("bf_wide", [(x,) for x in (0, 1, (1 << 40) - 1, 1 << 40, -1, 123456789012)]),
    ("bf_wide_arith", [(x,) for x in (0, 5, (1 << 40) - 1, -1)]),
    ("bf_promoted", [(x,) for x in (0, 4, 5, 6, 7)]),
    ("bf_signed_neg", [(x,) for x in (0, 15, 16, 31, -1)]),
    ("st_ret", [(c, i) for c in (-128, 0, 99) for i in (-1, 0, 77777)]),
    ("st_ret_nested", [(a, b) for a in (-1, 0, 300) for b in (-32768, 2, 32767)]),
    ("bf_ret", [(x,) for x in (0, 1, 7, 9, -1, 100000)]),
    ("un_float_bits", [(f,) for f in (0.0, -0.0, 1.0, -2.5, 3.4028234663852886e38, math.inf)]),
    ("un_byte", [(v,) for v in (0, 0x12345678, 0xFFFFFFFF, 0x00FF00FF)]),
    ("un_from_bytes", [(a, b) for a in (0, 0x80, 0xC0) for b in (0, 0x3F, 0x7F, 0xBF, 0xFF)]),
    ("cast_bytes", [(w,) for w in (0, 0x12345678, 0xFFFFFFFF, 0x80000001)]),
    ("cast_byte_at", [(w, i) for w in (0x12345678, 0xA1B2C3D4) for i in (0, 1, 2, 3, 7, -1)]),
    ("cast_write_byte", [(w, v, i) for w in (0, 0x12345678) for v in (0, 0xAB)
                         for i in (0, 1, 3, 6)]),
    ("cast_halves", [(w,) for w in (0, 0x12345678, 0xFFFF0000, 0x0000FFFF)]),
    ("cast_float_bits", [(f,) for f in (0.0, -0.0, 1.0, -2.5, math.inf, 1e-40)]),
    ("cast_struct_bytes", [(c, i) for c in (-128, 0, 99) for i in (-1, 0, 77777)]),
    ("cast_double_words", [(d,) for d in (0.0, -0.0, 1.0, -2.5, 1e300, math.inf)]),
]


# ------------------------------------------------------------------------ the session

SEED = 20240611


@pytest.fixture(scope="module")
def semantics_unit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("semantics")
    unit = root / "semantics.c"
    unit.write_text(PRELUDE + "\n".join(f.source() for f in FUNCTIONS) + "\n" + STRUCTS)
    return unit, load_program(unit)


@pytest.fixture(scope="module")
def verdicts(semantics_unit: tuple[Path, object]) -> dict[str, list[str]]:
    """Per function: the inputs on which the model and gcc disagree."""
    unit, program = semantics_unit
    root = unit.parent
    calls: list[tuple[str, Sequence]] = []
    for i, f in enumerate(FUNCTIONS):
        inputs = f.inputs(SEED + i)
        assert inputs, f.name
        calls += [(f.name, args) for args in inputs]
    for name, inputs in STRUCT_CALLS:
        calls += [(name, args) for args in inputs]
    problems = differential(unit, program, calls, root, via_solver=2)
    out: dict[str, list[str]] = {name: [] for name, _ in calls}
    for p in problems:
        out[p.split("(", 1)[0]].append(p)
    return out


KNOWN_BUGS: dict[str, str] = {
    "bf_wide_arith": "gcc gives a bit-field `unsigned long long w:40` a 40-bit type: "
                     "`b.w + 1` wraps modulo 2^40 (b.w == 2^40-1 gives 0); the model "
                     "computes in 64 bits",
}


def _param(name: str):  # type: ignore[no-untyped-def]
    reason = KNOWN_BUGS.get(name)
    if reason is None:
        return name
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize("name", [_param(f.name) for f in FUNCTIONS] +
                         [_param(n) for n, _ in STRUCT_CALLS])
def test_model_agrees_with_gcc(verdicts: dict[str, list[str]], name: str) -> None:
    problems = verdicts[name]
    assert not problems, "\n".join(problems[:10]) + (
        f"\n... {len(problems)} disagreements" if len(problems) > 10 else "")


# ------------------------------------------------------------ undefined behaviour


@pytest.mark.parametrize("name, args, expected", [
    ("sdiv", (5, 0), UB),
    ("sdiv", (INT32_MIN, -1), UB),
    ("srem", (INT32_MIN, -1), UB),
    ("srem", (7, 0), UB),
    ("udiv", (1, 0), UB),
    ("lldiv", (INT64_MIN, -1), UB),
    ("i8_div_promoted", (-128, -1), (("int", 128000),)),  # int operands: defined
    ("i8_div_promoted", (3, 0), UB),
    ("f_to_int", (3e9,), UB),
    ("f_to_int", (math.nan,), UB),
    ("f_to_int", (-math.inf,), UB),
    ("f_to_int", (-2147483648.0,), (("int", INT32_MIN),)),
    ("d_to_int", (2147483647.9,), (("int", INT32_MAX),)),
    ("d_to_int", (2147483648.0,), UB),
    ("d_to_unsigned", (-1.0,), UB),
    ("d_to_unsigned", (-0.99,), (("int", 0),)),
    ("d_to_unsigned", (4294967296.0,), UB),
    ("d_to_uchar", (256.0,), UB),
    ("d_to_uchar", (255.99,), (("int", 255),)),
    ("d_to_ull", (18446744073709551616.0,), UB),
    ("d_to_ll", (9223372036854775808.0,), UB),
    ("bool_from_double", (math.nan,), (("int", 1),)),  # to _Bool is always defined
])
def test_model_marks_undefined_operations(semantics_unit: tuple[Path, object], name: str,
                                          args: tuple, expected: object) -> None:
    """Division by zero, INT_MIN / -1 and out-of-range float-to-integer conversions make the
    path's definedness constraint false (so no generated case relies on them)."""
    _, program = semantics_unit
    runner = ModelRunner(program, name)  # type: ignore[arg-type]
    assert runner.call(args) == expected
    assert runner.call_via_solver(args) == expected
