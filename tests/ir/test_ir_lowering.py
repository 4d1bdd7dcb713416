"""Lowering of C constructs to CFGs (pytest_ctgen.ir.lower).

One C unit holds a small function per construct. For each one:
  * the number of branch outcomes of our CFG (`cfg.branch_edges()`) is compared with what
    gcov counts for the same function compiled with `gcc -O0 --coverage` (`gcov -b -j`):
    equal, except where gcc folds a `?:` into MIN/MAX/ABS at -O0 (then ours >= gcov);
  * the function's result on a few inputs, executed by the symbolic Executor on the CFG, is
    compared with the result of the gcc build (so the lowering keeps C's meaning);
plus structural checks of the CFG for constructs where the shape itself is the contract
(no branch for constant conditions and `do {} while (0)`, `sizeof` not evaluated, ...).
"""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.symbolic.ctgen_concrete import differential, load_program
from pytest_ctgen.frontend.ctype import INT, UCHAR, IntType
from pytest_ctgen.frontend.unit import Variable
from pytest_ctgen.ir.cfg import CFG, Assign, Block, Branch, Eval, Goto, Return, Switch
from pytest_ctgen.ir.constants import fold
from pytest_ctgen.ir.expr import Binary, Cast, Const, Load, VarRef, describe
from pytest_ctgen.ir.gccfold import Conditional
from pytest_ctgen.ir.lower import Program

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("gcov") is None,
                                reason="needs gcc and gcov")

PRELUDE = r"""
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
enum color { RED, GREEN = 5, BLUE };
enum neg { NEG_A = -3, NEG_B, NEG_C = 7 };
"""


@dataclass
class Snip:
    """A function of the unit: `edges` is the number of branch outcomes our CFG must have;
    `relation` how it compares with gcov's count ("eq", or "ge" where gcc folds `?:`);
    `inputs` argument tuples for the differential run (empty: not run); `bug` marks a known
    lowering bug (the count test is then a strict xfail with that reason)."""

    name: str
    code: str
    edges: int
    inputs: tuple = ()
    relation: str = "eq"
    bug: str | None = None


R = range(-3, 4)
SNIPPETS: list[Snip] = [
    # --------------------------------------------------------------- if / else
    Snip("if_else", "int if_else(int a) { if (a > 0) return 1; else return 2; }", 2,
         ((-1,), (0,), (1,))),
    Snip("if_only", "int if_only(int a) { int x = 0; if (a) x = 1; return x; }", 2,
         ((0,), (5,))),
    Snip("if_nested", """int if_nested(int a, int b) { int x = 0;
         if (a > 0) { if (b > 0) x = 1; else x = 2; } else if (b < 0) x = 3; else x = 4;
         return x; }""", 6, tuple((a, b) for a in (-1, 1) for b in (-1, 0, 1))),
    # ------------------------------------------------------------------- switch
    Snip("sw_fall", """int sw_fall(int a) { int x = 0; switch (a) { case 1: x += 1;
         case 2: x += 2; break; case 3: x = 3; break; default: x = -1; } return x; }""", 4,
         tuple((a,) for a in range(0, 5))),
    Snip("sw_nodef", """int sw_nodef(int a) { int x = 0; switch (a) { case 1: x = 1; break;
         case 2: x = 2; break; } return x; }""", 3, tuple((a,) for a in range(0, 4))),
    Snip("sw_default_first", """int sw_default_first(int a) { int x = 10;
         switch (a) { default: x++; case 4: x++; break; case 5: x = 0; } return x; }""", 3,
         ((3,), (4,), (5,))),
    Snip("sw_shared", """int sw_shared(int a) { int x = 0; switch (a) { case 1: case 2:
         x = 1; break; case 3: x = 3; break; default: x = 4; } return x; }""", 3,
         tuple((a,) for a in range(0, 5))),
    Snip("sw_shared_default", """int sw_shared_default(int a) { int x = 0; switch (a) {
         case 1: default: x = 1; break; case 3: x = 3; break; } return x; }""", 2,
         ((0,), (1,), (3,))),
    Snip("sw_constexpr", """int sw_constexpr(int a) { switch (a) { case 1 + 2: return 1;
         case (4 << 2): return 2; case GREEN: return 3; case 'a': return 4;
         case BLUE * 2: return 5; } return 0; }""", 6,
         tuple((a,) for a in (3, 16, 5, 97, 12, 0))),
    Snip("sw_char", """int sw_char(char c) { switch (c) { case 'a': return 1; case -1: return 2;
         default: return 0; } }""", 3, ((97,), (-1,), (255,), (0,))),
    Snip("sw_char_out_of_range", """int sw_char_out_of_range(char c) { switch (c) {
         case 'a': return 1; case 200: return 3; default: return 0; } }""", 2,
         ((97,), (-56,), (0,))),
    Snip("sw_uchar", """int sw_uchar(unsigned char c) { switch (c) { case 0: return 1;
         case 255: return 2; default: return 0; } }""", 3, ((0,), (255,), (7,))),
    Snip("sw_enum", """int sw_enum(enum color c) { switch (c) { case RED: return 1;
         case GREEN: return 2; case BLUE: return 3; } return 0; }""", 4,
         ((0,), (5,), (6,), (1,))),
    Snip("sw_negenum", """int sw_negenum(enum neg c) { switch (c) { case NEG_A: return 1;
         case NEG_B: return 2; default: return 3; } }""", 3, ((-3,), (-2,), (7,))),
    Snip("sw_only_default", """int sw_only_default(int a) { switch (a) { default: a++; }
         return a; }""", 0, ((4,),)),
    Snip("sw_no_labels", """int sw_no_labels(int a) { switch (a) { } return a; }""", 0,
         ((4,),)),
    Snip("sw_const", """int sw_const(void) { switch (2) { case 1: return 1; case 2: return 2; }
         return 0; }""", 0, ((),)),
    Snip("sw_cast_label", """int sw_cast_label(char c) { switch (c) { case (char)200: return 1;
         case 'x': return 2; } return 0; }""", 3, ((-56,), (120,), (0,))),
    Snip("sw_llong", """int sw_llong(long long v) { switch (v) { case 1LL << 40: return 1;
         case -1: return 2; default: return 3; } }""", 3, ((1 << 40,), (-1,), (0,))),
    Snip("sw_unsigned_neg_label", """int sw_unsigned_neg_label(unsigned v) { switch (v) {
         case -1: return 1; case 0x80000000u: return 2; } return 0; }""", 3,
         ((4294967295,), (0x80000000,), (3,))),
    Snip("sw_bool", """int sw_bool(_Bool b) { switch (b) { case 0: return 5; case 1: return 6; }
         return 0; }""", 2, ((0,), (1,))),
    Snip("sw_nested", """int sw_nested(int a, int b) { switch (a) { case 1: switch (b) {
         case 1: return 11; default: break; } return 10; case 2: return 20; } return 0; }""",
         5, tuple((a, b) for a in (1, 2, 3) for b in (1, 2))),
    Snip("sw_block_decl", """int sw_block_decl(int a) { int r = 0; switch (a) { case 1: {
         int t = a * 5; r = t; break; } case 2: r = 7; } return r; }""", 3,
         ((1,), (2,), (3,))),
    Snip("duff", """int duff(int n) { int s = 0; int k = (n + 3) / 4; if (n <= 0) return 0;
         switch (n % 4) { case 0: do { s++; case 3: s++; case 2: s++; case 1: s++; }
         while (--k > 0); } return s; }""", 9, tuple((n,) for n in (0, 1, 4, 7, 9))),
    Snip("sw_in_loop", """int sw_in_loop(int n) { int s = 0; for (int i = 0; i < n; i++) {
         switch (i % 3) { case 0: continue; case 1: s += 10; break; default: s++; }
         s *= 2; } return s; }""", 5, ((0,), (1,), (5,))),
    # ------------------------------------------------------------------- loops
    Snip("dw_continue", """int dw_continue(int n) { int s = 0; do { n--; if (n % 2) continue;
         s += n; } while (n > 0); return s; }""", 4, ((0,), (1,), (7,))),
    Snip("sw_continue", """int sw_continue(int n) { int s = 0; do { switch (n & 3) {
         case 0: n -= 1; continue; case 1: s++; break; } n -= 2; } while (n > 0);
         return s; }""", 5, ((0,), (5,), (12,))),
    Snip("label_loop", """int label_loop(int n) { int i = 0; top: if (i < n) { i += 2;
         goto top; } return i; }""", 2, ((0,), (5,))),
    Snip("w_loop", """int w_loop(int n) { int s = 0; while (n > 0) { s += n; n--; }
         return s; }""", 2, ((-1,), (0,), (4,))),
    Snip("w_and", """int w_and(int n, int m) { int s = 0; while (n > 0 && m > 0) { s++; n--;
         m -= 2; } return s; }""", 4, ((3, 10), (10, 3), (0, 1))),
    Snip("dw_loop", """int dw_loop(int n) { int s = 0; do { s++; n--; } while (n > 0);
         return s; }""", 2, ((-5,), (1,), (6,))),
    Snip("dw_zero", "int dw_zero(int n) { do { n++; } while (0); return n; }", 0, ((1,),)),
    Snip("dw_empty", "int dw_empty(int n) { do {} while (0); return n; }", 0, ((1,),)),
    Snip("dw_break", """int dw_break(int n) { do { if (n > 3) break; n += 2; } while (0);
         return n; }""", 2, ((1,), (7,))),
    Snip("for_loop", """int for_loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i;
         return s; }""", 2, ((0,), (1,), (6,))),
    Snip("for_nocond", """int for_nocond(int n) { int s = 0; for (int i = 0;; i++) {
         if (i >= n) break; s += i; } return s; }""", 2, ((0,), (5,))),
    Snip("for_ever", """int for_ever(int n) { for (;;) { if (n > 10) break; n++; }
         return n; }""", 2, ((3,), (20,))),
    Snip("for_no_init_next", """int for_no_init_next(int n) { int s = 0; for (; n > 0;) {
         s += n; n -= 3; } return s; }""", 2, ((0,), (10,))),
    Snip("while_one", """int while_one(int n) { while (1) { if (n-- < 0) break; }
         return n; }""", 2, ((-1,), (4,))),
    Snip("brk_cont", """int brk_cont(int n) { int s = 0; for (int i = 0; i < n; i++) {
         if (i == 3) continue; if (i == 7) break; s += i; } return s; }""", 6,
         ((0,), (4,), (10,))),
    Snip("nested_break", """int nested_break(int n) { int s = 0;
         for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) { if (j > i) break;
         s++; } } return s; }""", 6, ((0,), (3,), (5,))),
    # ---------------------------------------------------------- goto, return
    Snip("goto_back", """int goto_back(int n) { int s = 0; again: s++; if (s < n) goto again;
         if (n == 42) goto out; s = -s; out: return s; }""", 4, ((0,), (5,), (42,))),
    Snip("goto_fwd", """int goto_fwd(int a) { if (a) goto skip; a = 5; skip: return a; }""",
         2, ((0,), (3,))),
    Snip("multi_ret", """int multi_ret(int a) { if (a < 0) return -1; if (a == 0) return 0;
         return 1; }""", 4, ((-4,), (0,), (4,))),
    Snip("void_ret", """int void_ret_g; void void_helper(int a) { if (a) return;
         void_ret_g = 1; } int void_ret(int a) { void_ret_g = 0; void_helper(a);
         return void_ret_g; }""", 0, ((0,), (1,))),
    # --------------------------------------------------- &&, ||, !, ?: in conditions
    Snip("and_cond", "int and_cond(int a, int b) { if (a && b) return 1; return 0; }", 4,
         tuple((a, b) for a in (0, 2) for b in (0, -1))),
    Snip("or_cond", "int or_cond(int a, int b) { if (a || b) return 1; return 0; }", 4,
         tuple((a, b) for a in (0, 2) for b in (0, -1))),
    Snip("not_cond", "int not_cond(int a) { if (!a) return 1; return 0; }", 2,
         ((0,), (9,))),
    Snip("not_not", "int not_not(int a) { if (!!a) return 1; return 0; }", 2, ((0,), (9,))),
    Snip("not_and", "int not_and(int a, int b) { if (!(a && b)) return 1; return 0; }", 4,
         tuple((a, b) for a in (0, 2) for b in (0, -1))),
    Snip("and_or", """int and_or(int a, int b, int c) { if (a > 0 && b > 0 || c > 0)
         return 1; return 0; }""", 6, tuple((a, b, c) for a in (0, 1) for b in (0, 1)
                                             for c in (0, 1))),
    Snip("tern_cond", """int tern_cond(int a, int b, int c) { if (a ? b : c) return 1;
         return 0; }""", 4, tuple((a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1))),
    # ------------------------------------------------- &&, ||, !, ?: as values
    Snip("and_val", "int and_val(int a, int b) { int r = a && b; return r; }", 4,
         tuple((a, b) for a in (0, 5) for b in (0, -5))),
    Snip("or_val", "int or_val(int a, int b) { return a || b; }", 4,
         tuple((a, b) for a in (0, 5) for b in (0, -5))),
    Snip("mixed_val", "int mixed_val(int a, int b, int c) { return a || b && c; }", 6,
         tuple((a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1))),
    Snip("not_val", "int not_val(int a) { int x = !a; int y = !!a; return x + y * 10; }", 0,
         ((0,), (-3,))),
    Snip("tern_val", "int tern_val(int a, int b, int c) { return a ? b : c; }", 2,
         ((0, 1, 2), (3, 1, 2))),
    Snip("tern_nested", "int tern_nested(int a, int b) { return a ? b ? 1 : 2 : 3; }", 4,
         tuple((a, b) for a in (0, 1) for b in (0, 1))),
    Snip("tern_types", """int tern_types(int a, unsigned b) { unsigned t = a ? -1 : b;
         return t > 0; }""", 2, ((0, 0), (1, 0), (0, 3))),
    Snip("tern_max", "int tern_max(int a, int b) { return a > b ? a : b; }", 2,
         ((1, 2), (2, 1)), relation="ge"),
    Snip("tern_abs", "int tern_abs(int a) { return a < 0 ? -a : a; }", 2, ((-4,), (4,)),
         relation="ge"),
    Snip("and_effect", """int and_effect(int a, int b) { a > 0 && (b = 7); a < 0 || (b = 1);
         return b; }""", 4, ((1, 0), (-1, 0), (0, 0))),
    # gcc -O0 folds these into conditional jumps the source does not have (fold-const),
    # and the CFG has the same branches (ir/gccfold.py)
    Snip("truth_times_const", """int truth_times_const(int a, int b) { return (a < b) * 3
         + !a * 10; }""", 4, ((0, 1), (1, 0))),
    Snip("or_effect_value", """int or_effect_value(int a, int b) { a < 0 || (b += 1);
         return b; }""", 4, ((-1, 0), (1, 0), (1, -1))),
    Snip("tern_compared", """int tern_compared(int a, int b) { return (a ? 1 : b) == 5; }""",
         4, ((0, 5), (0, 4), (1, 5))),
    Snip("cmp_sum", """int cmp_sum(int x) { return (x % 3 == 0) + (x % 5 == 0) * 2; }""", 2,
         tuple((x,) for x in (0, 3, 5, 7, -15))),
    Snip("cmp_pointers", """int cmp_pointers(const int *p, const int *q) {
         return (p == 0) + 2 * (q == 0); }""", 2),
    Snip("cmp_ops", """int cmp_ops(int x) { return ((x < 3) << 2) + (5 - (x > 7))
         + ((x == 1) | 8) + ((x != 2) ^ 1) * 0 + ((x < 0) - 1); }""", 8,
         tuple((x,) for x in (-1, 1, 2, 3, 8))),
    Snip("cmp_folded", """int cmp_folded(int x) { return (x < 3) * 1 + ((x < 4) & 1)
         + ((x > 5) ^ 1) + ((x < 3) * 2 == 2) + (0 - (x < 1)) + ((x < 2) / 2)
         + (x % 1 == 0) + ((x > 3) + 4 > 4); }""", 0, tuple((x,) for x in (0, 2, 3, 4, 6))),
    Snip("cmp_shifted_out", """int cmp_shifted_out(unsigned u, int x) { return ((u < 7u) << 100)
         + ((x == 3) << 40) * 5 + ((x > 0) << 3); }""", 2,
         ((0, 3), (9, 1), (1, -2))),
    Snip("cmp_types", """long cmp_types(int x, unsigned u, char c) { return (x < 3) + 5L
         + (u > 4u) * 3u + (c == 'a') * 2 + (long)((x > 9) * 2) + 1L; }""", 8,
         ((0, 0, 97), (10, 5, 98))),
    Snip("cmp_negated", """int cmp_negated(int x) { return -(x < 3) * 2 + (-(x > 4) + 5)
         + (~(x == 1) + 3) + (-(x == 2) + 1); }""", 6, tuple((x,) for x in (1, 2, 3, 5))),
    Snip("cmp_float", """int cmp_float(int x, double d) { double v = x < 3; float w = !x;
         return (int)(v * 4) + (int)(w * 8) + (int)((d > 1) * 2.5) + (d < 0) * 3; }""", 8,
         ((0, 0.0), (5, 2.0), (1, -1.0))),
    Snip("cmp_bool", """int cmp_bool(int x, int y) { _Bool b = x; return (_Bool)x * 3
         + !!y * 5 + !x * 2 + b * 7 + !b * 11 + (!!x + (_Bool)x); }""", 8,
         ((0, 0), (2, 0), (0, -1))),
    Snip("abs_value", """int abs_value(int x, long l, short s) { return (abs(x) < 10)
         + (labs(l) <= 3) * 2 + (abs(x) > 10) + !(abs(x) < 3) + (abs(x) < 0)
         + (abs(s) < 4) + (10 > abs(x - 1)); }""", 12,
         ((0, 0, 0), (12, -3, 5), (-9, 4, -4), (3, 9, 1))),
    Snip("abs_condition", """int abs_condition(int x, int y) { if (abs(x - y) <= 2)
         return 1; if (!(abs(x) < 5)) return 2; return 0; }""", 6,
         ((0, 0), (9, 0), (4, 0), (-3, 0))),
    Snip("tern_folds", """int tern_folds(int x, int y, _Bool b) { return (x ? 1 : 0)
         + (y > 2 ? 0 : 1) + (x < 0 ? 7 : 7) + (b ? 1 : 0) + (b ? 0 : 1) + (b ? 1 : 0) * 3
         + (x ? 2 : 3) * 0; }""", 2,
         ((0, 0, 0), (1, 3, 1), (-1, 2, 0))),
    Snip("tern_converted", """long tern_converted(long n, int b, int c) { return n - (b ? 1 : 0)
         + (c ? 1 : 0) + (long)(b ? 0 : 1); }""", 4, ((5, 0, 0), (5, 2, -1))),
    Snip("tern_logical", """int tern_logical(int x, int y) { return (x > 0 ? y > 0 : 0)
         + (x ? 1 : y < 3) * 10 + (x ? y : 0) != 0; }""", 10,
         tuple((x, y) for x in (-1, 0, 1) for y in (0, 1, 4))),
    Snip("tern_tested", """int tern_tested(int x, int y, int z) { if (x ? (y < 3) * 4 : z)
         return 1; if (x > 0 ? (x > 0) * 3 : 5) return 2; if (y ? 2 : 3) return 3;
         return 0; }""", 8,
         tuple((x, y, z) for x in (-1, 0, 1) for y in (0, 5) for z in (0, 1))),
    Snip("logical_consts", """int logical_consts(int x, int y) { return (x && 1) + (0 || y)
         + (x || 0) * 3 + (y && 0) + (1 && x < 2); }""", 2,
         tuple((x, y) for x in (0, 1, 2) for y in (0, 1))),
    Snip("logical_stmt", """int logical_stmt(int x, int y) { int r = 0; x && y;
         x > 1 || (r = 3); x && 1; 0 && (r = 9); return r; }""", 6,
         tuple((x, y) for x in (0, 1, 2) for y in (0, 1))),
    Snip("known_nonzero", """int known_nonzero(int x) { int a; int *p; if ((a = 7)) x++;
         if ((p = &a)) x++; if ((a = 0)) x++; return x + *p; }""", 2, ((0,), (5,))),
    Snip("fp_classes", """int fp_classes(double d, float f) { return fpclassify(d) * 10
         + isinf(f) + (fpclassify(d) == FP_ZERO) + isnan(d); }""", 18,
         ((0.0, 0.0), (1.0, -1.0), (1e-310, 1.5), (-2.0, 3.0))),
    Snip("discarded", """int discarded(int a, int b) { a / b; (void)(a % b); a + 1, b;
         a ?: b / 0; return a; }""", 2, ((7, 2), (3, 5), (-4, 1))),  # b == 0 or a == 0:
    # undefined in C, a finding (tests/symbolic/test_findings.py), though gcc -O0 runs on
    Snip("switch_full_default", """struct bf2 { unsigned m : 2; };
         int switch_full_default(int v) { struct bf2 s; s.m = v; switch (s.m) {
         case 0: return 1; case 1: return 2; case 2: return 3; case 3: return 4;
         default: return 5; } }""", 5, tuple((v,) for v in range(4))),
    # ------------------------------------------------------ constant conditions
    Snip("const_if", """int const_if(int a) { if (1) a++; if (0) a--; if (2 > 3) a = 0;
         if (sizeof(int) == 4) a += 10; return a; }""", 0, ((1,),)),
    Snip("const_and", """int const_and(int a) { if (1 && a) return 1; if (0 && a) return 2;
         return 0; }""", 2, ((0,), (3,))),
    Snip("const_or", """int const_or(int a) { if (0 || a) return 1; if (1 || a) return 2;
         return 0; }""", 2, ((0,), (3,))),
    Snip("const_while", "int const_while(int a) { while (0) a++; return a; }", 0, ((1,),)),
    Snip("const_tern", "int const_tern(int a) { return 1 ? a : -a; }", 0, ((5,),)),
    Snip("const_enum", """int const_enum(int a) { if (GREEN > RED) a++; if (NEG_A > 0) a--;
         return a; }""", 0, ((1,),)),
    # ---------------------------------------------- statements without branches
    Snip("comma_cond", "int comma_cond(int a) { int b; if (b = a, b > 2) return 1; return 0; }",
         2, ((0,), (3,))),
    Snip("comma_val", """int comma_val(int a) { int b = (a++, a * 2); return (a, b + 1)
         + (a--, a); }""", 0, ((0,), (4,))),
    Snip("sizeof_no_eval", """int sizeof_no_eval(int x) { int s = sizeof(x++); s += sizeof x
         + sizeof(long) + sizeof(char[7]) + sizeof(x = 9); return x * 100 + s; }""", 0,
         ((0,), (5,))),
    Snip("compound_int", """int compound_int(int a, int b) { int x = a; x += b; x -= 3;
         x *= b; x /= 7; x %= 5; x <<= 3; x >>= 1; x &= 0x1f7; x |= 0x400; x ^= b;
         return x; }""", 0, tuple((a, b) for a in R for b in (-7, 0, 2, 9))),
    Snip("compound_uchar", """int compound_uchar(unsigned char c, int b) { c += b; c *= 3;
         c <<= 1; c >>= 1; c -= 300; c /= 3; c %= 7; c ^= 0xAA; c |= 1; c &= 0xF3;
         return c; }""", 0, tuple((c, b) for c in (0, 1, 200, 255) for b in (-7, 0, 100))),
    Snip("compound_schar", """int compound_schar(signed char c) { c += 100; int r = c;
         c *= 2; r = r * 1000 + c; c -= 200; return r * 1000 + c; }""", 0,
         tuple((c,) for c in (-128, -1, 0, 27, 28, 127))),
    Snip("compound_unsigned", """unsigned compound_unsigned(unsigned x, int b) { x -= b;
         x *= 3; x >>= 2; x /= 5; x %= 1000; x += -1; return x; }""", 0,
         tuple((x, b) for x in (0, 7, 4294967295) for b in (-1, 0, 1, 9))),
    Snip("compound_float", """int compound_float(float f, int b) { f += b; f *= 0.5f; f -= 1;
         f /= 3; double d = f; d += 0.25; f += d; return (int)(f * 100); }""", 0,
         tuple((f, b) for f in (0.0, 1.5, -2.25, 100.0) for b in (-3, 0, 7))),
    Snip("compound_int_by_double", """int compound_int_by_double(int x) { x *= 2.5; x /= 0.5;
         x += 0.75; return x; }""", 0, ((0,), (3,), (-3,), (7,))),
    Snip("compound_ptr", """int compound_ptr(int i) { int a[6] = {1, 2, 3, 4, 5, 6};
         int *p = a; p += 3; p -= 1; p += i; *p += 10; *p <<= 1; return *p * 100
         + (int)(p - a); }""", 0, ((0,), (1,), (-2,), (3,))),
    Snip("incdec_int", """int incdec_int(int a) { int x = a; int r1 = x++; int r2 = ++x;
         int r3 = x--; int r4 = --x; x++; ++x; x--; return ((r1 * 8 + r2) * 8 + r3) * 8 + r4
         + x * 4096; }""", 0, ((-3,), (0,), (2,))),
    Snip("incdec_char", """int incdec_char(signed char c, unsigned char u) { c++; u--;
         int r = c * 1000 + u; ++c; --u; return r * 3 + c + u; }""", 0,
         ((127, 0), (-128, 255), (0, 1))),
    Snip("incdec_bool", """int incdec_bool(int a) { _Bool b = a; b++; int r1 = b; b--;
         int r2 = b; b--; int r3 = b; --b; int r4 = b; return r1 * 1000 + r2 * 100 + r3 * 10
         + r4; }""", 0, ((0,), (1,), (7,))),
    Snip("incdec_ptr", """int incdec_ptr(int i) { int arr[5] = {10, 20, 30, 40, 50};
         int *p = arr; p++; ++p; int v = *p--; v += *--p; v += *p++; p[1] = i;
         return v * 10 + (int)(p - arr) + arr[2] * 1000; }""", 0, ((0,), (7,))),
    Snip("incdec_float", """int incdec_float(float f) { f++; ++f; f--; double d = f; d++;
         return (int)(f * 4) + (int)(d * 8); }""", 0, ((0.0,), (1.25,), (-3.5,))),
    Snip("incdec_ulong", """int incdec_ulong(unsigned long x) { x--; int r = x > 100; x++; x++;
         return r * 10 + (int)x; }""", 0, ((0,), (5,))),
    Snip("floats", """int floats(float a, double b) { float c = a * 2 + (float)b; double d = c / 3;
         if (d > 1.0) return (int)d; return a == b; }""", 2,
         ((0.0, 0.0), (1.5, 3.0), (-4.0, 2.0), (100.0, -0.5))),
    Snip("bools", """int bools(int a, int b) { _Bool x = a; _Bool y = b & 2; _Bool z = 0.5;
         int e = x == y; return x * 100 + y * 10 + z + e * 1000; }""", 0,
         tuple((a, b) for a in (0, 2, 256) for b in (0, 1, 2))),
    Snip("bool_cond", "int bool_cond(_Bool b) { if (b) return !b + 10; return b; }", 2,
         ((0,), (1,))),
    Snip("casts", """int casts(int a) { return (unsigned char)a + (signed char)a * 1000
         + (short)(a * 100) / 7 + (int)(long long)(unsigned)a / 65536; }""", 0,
         tuple((a,) for a in (0, 1, -1, 255, 256, -129, 70000, -70000))),
    Snip("enums", """int enums(int a) { enum color c = GREEN; c += a; enum neg n = NEG_B;
         return (int)c * 2 + RED + BLUE + n * 100 + (c > RED); }""", 0,
         ((0,), (1,), (-5,), (-6,))),
    Snip("arrays", """int arrays(int i) { int a[4] = {1, 2, 3, 4}; int b[5] = {[2] = 7, [4] = 9};
         char s[] = "hi"; char t[6] = "ab"; int z[3] = {0}; int m[2][3] = {{1, 2, 3}, {4}};
         unsigned char u[3] = {255, 256, -1}; int late[4] = {[3] = 1, [1] = 2, 5};
         i &= 3; return a[i] * 100000 + b[i + 1] * 10000 + s[i % 3] * 1000 + t[i] * 100
         + z[i % 3] + m[i & 1][i % 3] * 10 + u[i % 3] + late[i] * 3 + (int)sizeof s; }""", 0,
         tuple((i,) for i in range(4))),
    Snip("static_local", """int static_local(int a) { static int cnt = 5; static int arr[3] =
         {1, 2, 3}; static int zero; cnt += a; arr[1] += cnt; zero++; if (cnt > 10) cnt = 0;
         return cnt * 100 + arr[1] + zero; }""", 2, ((7,),)),
    Snip("ptr_local", """int ptr_local(int i) { int a[3] = {5, 6, 7}; int *p = &a[1]; *p = i;
         p[1] += 2; int *q = a + 2; if (p < q) *q *= 2; return a[0] + a[1] * 10
         + a[2] * 100 + (int)(q - p); }""", 2, ((0,), (9,))),
    Snip("while_postdec", """int while_postdec(int n) { int s = 0; while (n--) s += 2;
         return s * 100 + n; }""", 2, ((0,), (1,), (5,))),
    Snip("assign_in_cond", """int assign_in_cond(int a) { int x; if ((x = a * 2) > 3)
         return x; return x += 100; }""", 2, ((0,), (2,))),
    Snip("chained_assign", """int chained_assign(int a) { int x, y; unsigned char c;
         x = y = c = a; return x * 1000 + y + c; }""", 0, ((7,), (300,), (-1,))),
    Snip("for_comma", """int for_comma(int n) { int i, j, s = 0; for (i = 0, j = n; i < j;
         i++, j--) s += j - i; return s; }""", 2, ((0,), (5,), (8,))),
    Snip("string_index", """int string_index(int i) { const char *s = "hello"; i &= 3;
         return s[i] + "xyz"[i % 3] * 1000 + (int)sizeof "abc"; }""", 0,
         tuple((i,) for i in range(4))),
    Snip("call_args", """static int mix(int a, unsigned char b, long c) { return a * 3 + b - c; }
         int call_args(int a) { int x = a; int r = mix(x++, a + 250, -a); return r + x; }""",
         0,
         ((0,), (9,))),
    Snip("void_tern", """static int vt_g; static void vt_inc(void) { vt_g++; }
         static void vt_dec(void) { vt_g--; } int void_tern(int a) { vt_g = 10;
         a ? vt_inc() : vt_dec(); return vt_g; }""", 2, ((0,), (1,))),
    Snip("bitfield_incdec", """struct bfi { unsigned a : 3; int b : 4; };
         int bitfield_incdec(int x) { struct bfi s = {0}; s.a = x; s.b = x; s.a++; s.b--;
         s.a += 5; s.b *= 3; return s.a * 100 + s.b; }""", 0,
         tuple((x,) for x in (0, 3, 7, -8, 5))),
    Snip("block_scope", """int block_scope(int a) { int x = 1; { int x = a; x++; a = x; }
         for (int x = 0; x < 2; x++) a += x; return a * 10 + x; }""", 2, ((0,), (5,))),
]

NAMES = [s.name for s in SNIPPETS]
assert len(NAMES) == len(set(NAMES))


# ------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lowering")
    path = root / "lowering.c"
    path.write_text(PRELUDE + "\n".join(s.code for s in SNIPPETS) + "\n")
    return path


@pytest.fixture(scope="module")
def program(unit: Path) -> Program:
    return load_program(unit)


@pytest.fixture(scope="module")
def gcov_branches(unit: Path) -> dict[str, int]:
    """Branch outcomes per function as gcov counts them (gcc -O0 --coverage, gcov -b -j)."""
    work = unit.parent / "gcov"
    work.mkdir()
    obj = work / "lowering.o"
    subprocess.run(["gcc", "-O0", "--coverage", "-w", "-c", str(unit), "-o", str(obj)],
                   check=True, capture_output=True, text=True)
    subprocess.run(["gcov", "-b", "-j", str(obj)], cwd=work, check=True, capture_output=True,
                   text=True)
    data = json.loads(gzip.decompress((work / "lowering.gcov.json.gz").read_bytes()))
    counts: dict[str, int] = {}
    for f in data["files"]:
        for line in f["lines"]:
            name = line.get("function_name")
            counts[name] = counts.get(name, 0) + len(line["branches"])
    return counts


@pytest.fixture(scope="module")
def disagreements(unit: Path, program: Program) -> dict[str, list[str]]:
    calls = [(s.name, args) for s in SNIPPETS for args in s.inputs]
    out: dict[str, list[str]] = {s.name: [] for s in SNIPPETS}
    for p in differential(unit, program, calls, unit.parent):
        out[p.split("(", 1)[0]].append(p)
    return out


def cfg_of(program: Program, name: str) -> CFG:
    assert name in program.cfgs, program.failures.get(name)
    return program.cfgs[name]


def terminators(cfg: CFG, kind: type) -> list:
    return [b.terminator for b in cfg.blocks if isinstance(b.terminator, kind)]


# --------------------------------------------------------------------- branch counts


def _count_param(s: Snip):  # type: ignore[no-untyped-def]
    if s.bug is None:
        return s.name
    return pytest.param(s.name, marks=pytest.mark.xfail(strict=True, reason=s.bug))


@pytest.mark.parametrize("name", [_count_param(s) for s in SNIPPETS])
def test_branch_edges_match_gcov(program: Program, gcov_branches: dict[str, int],
                                 name: str) -> None:
    snip = SNIPPETS[NAMES.index(name)]
    ours = len(cfg_of(program, name).branch_edges())
    theirs = gcov_branches.get(name, 0)
    if snip.relation == "eq":
        assert (ours, theirs) == (snip.edges, snip.edges), cfg_of(program, name).dump()
    else:  # gcc folded a `?:` into MIN/MAX/ABS: gcov sees fewer outcomes than the source
        assert ours == snip.edges and ours >= theirs, cfg_of(program, name).dump()


def test_every_snippet_lowers(program: Program) -> None:
    assert not program.failures
    assert set(NAMES) <= set(program.cfgs)


@pytest.mark.parametrize("name", [s.name for s in SNIPPETS if s.inputs])
def test_lowered_function_computes_what_gcc_computes(
        disagreements: dict[str, list[str]], name: str) -> None:
    assert not disagreements[name], "\n".join(disagreements[name])


# ----------------------------------------------------------------- CFG structure


def test_do_while_zero_has_no_branch(program: Program) -> None:
    for name in ("dw_zero", "dw_empty", "const_while", "const_if", "sw_const", "const_tern",
                 "const_enum"):
        cfg = cfg_of(program, name)
        assert not terminators(cfg, Branch) and not terminators(cfg, Switch), cfg.dump()


def test_constant_false_code_is_dropped(program: Program) -> None:
    dump = cfg_of(program, "const_if").dump()
    assert "(a - 1)" not in dump and "a = 0" not in dump  # `if (0) a--;`, `if (2 > 3) a = 0;`
    assert "(a + 10)" in dump  # `if (sizeof(int) == 4)` is always taken


def test_for_ever_has_only_the_break_branch(program: Program) -> None:
    cfg = cfg_of(program, "for_ever")
    (_branch,) = terminators(cfg, Branch)
    assert "n > 10" in cfg.dump()
    # the loop is a cycle of gotos back to its head
    assert any(isinstance(b.terminator, Goto) and b.terminator.target.id <= b.id
               for b in cfg.blocks)


def test_do_while_condition_branches_back_to_the_body(program: Program) -> None:
    cfg = cfg_of(program, "dw_loop")
    (branch,) = terminators(cfg, Branch)
    # the true edge leads back into the loop body: it reaches the branch again
    seen, todo = set(), [branch.if_true]
    while todo:
        b = todo.pop()
        if b.id in seen:
            continue
        seen.add(b.id)
        todo += b.terminator.successors()
    assert any(b.terminator is branch for b in cfg.blocks if b.id in seen)


def test_sizeof_does_not_evaluate_its_operand(program: Program) -> None:
    cfg = cfg_of(program, "sizeof_no_eval")
    targets = [s.target.var.name for b in cfg.blocks for s in b.stmts
               if isinstance(s, Assign) and isinstance(s.target, VarRef)]
    assert "x" not in targets, cfg.dump()


def test_switch_case_values(program: Program) -> None:
    def values(name: str) -> set[int]:
        (sw,) = terminators(cfg_of(program, name), Switch)
        return {v for vs, _ in sw.cases for v in vs}

    assert values("sw_constexpr") == {3, 16, 5, 97, 12}
    assert values("sw_char") == {97, -1}
    assert values("sw_uchar") == {0, 255}
    assert values("sw_enum") == {0, 5, 6}
    assert values("sw_negenum") == {-3, -2}
    for name in ("sw_char", "sw_uchar", "sw_constexpr"):
        (sw,) = terminators(cfg_of(program, name), Switch)
        assert sw.value.type == INT  # the controlling expression is promoted


def test_switch_default_edge(program: Program) -> None:
    (with_default,) = terminators(cfg_of(program, "sw_fall"), Switch)
    (without,) = terminators(cfg_of(program, "sw_nodef"), Switch)
    assert with_default.has_default and not without.has_default
    cfg = cfg_of(program, "sw_fall")
    labels = [cfg.edge_label(e) for e in cfg.branch_edges()]
    assert labels == ["case 1", "case 2", "case 3", "default"]


def _goto_closure(start) -> set[int]:  # type: ignore[no-untyped-def]
    """Blocks reachable from `start` through unconditional jumps only."""
    seen: set[int] = set()
    todo = [start]
    while todo:
        b = todo.pop()
        if b.id in seen:
            continue
        seen.add(b.id)
        if isinstance(b.terminator, Goto):
            todo.append(b.terminator.target)
    return seen


def test_switch_fallthrough_reaches_next_case(program: Program) -> None:
    cfg = cfg_of(program, "sw_fall")
    (sw,) = terminators(cfg, Switch)
    blocks = {vs: b for vs, b in sw.cases}
    # case 1 has no break: it falls through into case 2; case 2 breaks past case 3
    assert blocks[(2,)].id in _goto_closure(blocks[(1,)])
    assert blocks[(3,)].id not in _goto_closure(blocks[(2,)])
    assert sw.default.id not in _goto_closure(blocks[(3,)])


def test_short_circuit_in_value_context_materializes_a_temporary(program: Program) -> None:
    cfg = cfg_of(program, "and_val")
    consts = sorted(s.value.value for b in cfg.blocks for s in b.stmts
                    if isinstance(s, Assign) and isinstance(s.value, Const)
                    and isinstance(s.target, VarRef) and s.target.var.name.startswith("ctgen"))
    assert consts == [0, 1]
    assert len(terminators(cfg, Branch)) == 2


def test_negation_swaps_targets_instead_of_branching(program: Program) -> None:
    cfg = cfg_of(program, "not_and")
    assert len(terminators(cfg, Branch)) == 2
    # `!(a && b)`: a false goes straight to `return 1`
    first = cfg.entry.terminator
    assert isinstance(first, Branch)
    target = first.if_false
    while isinstance(target.terminator, Goto) and not target.stmts:
        target = target.terminator.target
    assert isinstance(target.terminator, Return)
    assert isinstance(target.terminator.value, Const) and target.terminator.value.value == 1


def test_compound_assignment_operators(program: Program) -> None:
    cfg = cfg_of(program, "compound_int")
    ops = [s.value.op for b in cfg.blocks for s in b.stmts
           if isinstance(s, Assign) and isinstance(s.value, Binary)]
    assert ops == ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]
    cfg = cfg_of(program, "compound_uchar")
    stores = [s for b in cfg.blocks for s in b.stmts if isinstance(s, Assign)
              and isinstance(s.target, VarRef) and s.target.var.name == "c"]
    assert len(stores) == 10
    for s in stores:  # computed in int, converted back on the store
        assert isinstance(s.value, Cast) and s.value.type == UCHAR
        assert isinstance(s.value.operand, Binary) and s.value.operand.type == INT


def test_post_increment_keeps_the_old_value(program: Program) -> None:
    cfg = cfg_of(program, "incdec_int")
    temps = [s for b in cfg.blocks for s in b.stmts if isinstance(s, Assign)
             and isinstance(s.target, VarRef) and s.target.var.name.startswith("ctgen")]
    assert len(temps) == 2  # x++ and x-- whose values are used; the others are not copied
    for s in temps:
        assert isinstance(s.value, Load) and s.value.lvalue.var.name == "x"


def test_static_locals_are_initialized_once(program: Program) -> None:
    names = [v.name for v in program.static_locals["static_local"]]
    assert names == ["cnt", "arr", "zero"]
    inits = {v.name: stmts for v, stmts in program.static_inits.items()
             if v in program.static_locals["static_local"]}
    assert set(inits) == {"cnt", "arr"}
    cfg = cfg_of(program, "static_local")
    # no statement of the body re-initializes them
    assert "cnt = 5" not in cfg.dump()


def test_conditional_of_mixed_types_uses_the_common_type(program: Program) -> None:
    cfg = cfg_of(program, "tern_types")
    temps = [s.target.var for b in cfg.blocks for s in b.stmts if isinstance(s, Assign)
             and isinstance(s.target, VarRef) and s.target.var.name.startswith("ctgen")]
    assert temps and all(isinstance(v.type, IntType) and not v.type.signed
                         and v.type.bits == 32 for v in temps)


def test_branch_locations_are_the_condition_lines(program: Program, unit: Path) -> None:
    cfg = cfg_of(program, "multi_ret")
    lines = sorted({cfg.edge_location(e).line for e in cfg.branch_edges()})
    text = unit.read_text().splitlines()
    assert all("if (a" in text[n - 1] for n in lines), lines
    labels = [cfg.edge_label(e) for e in cfg.branch_edges()]
    assert labels == ["true", "false", "true", "false"]


def test_multichar_constant(tmp_path: Path) -> None:
    from pytest_ctgen.frontend.loader import load_unit
    from pytest_ctgen.ir.lower import lower_unit

    path = tmp_path / "multichar.c"
    path.write_text("int other(int a) { return a; }\n"
                    "int multichar(int a) { return 'ab' + a; }\n")
    program = lower_unit(load_unit(path, []))
    assert "other" in program.cfgs
    cfg = program.cfgs["multichar"]
    assert "24930" in cfg.dump()  # ('a' << 8) | 'b', as gcc evaluates it


# ------------------------------------------------- gcc's branches of truth values


def _expressions(node: object) -> list[object]:
    """Every expression under a statement or terminator (dataclass fields)."""
    from dataclasses import fields, is_dataclass

    from pytest_ctgen.ir.expr import Expr

    out, work = [], [node]
    while work:
        n = work.pop()
        if isinstance(n, Expr):
            out.append(n)
        if is_dataclass(n) and not isinstance(n, (Block, Variable)):
            for f in fields(n):
                value = getattr(n, f.name)
                work.extend(value if isinstance(value, list) else [value])
    return out


def test_no_pending_conditional_reaches_the_cfg(program: Program) -> None:
    """gcc's conditionals are branches by the time a statement holds them."""
    for name, cfg in program.cfgs.items():
        parts = [p for b in cfg.blocks for p in (*b.stmts, b.terminator)]
        held = [e for p in parts for e in _expressions(p) if isinstance(e, Conditional)]
        assert not held, (name, cfg.dump())


def test_a_value_context_comparison_with_a_constant_branches_on_the_comparison(
        program: Program) -> None:
    cfg = cfg_of(program, "cmp_sum")
    (branch,) = terminators(cfg, Branch)
    assert isinstance(branch.cond, Binary) and branch.cond.op == "=="
    values = sorted(s.value.value for b in cfg.blocks for s in b.stmts
                    if isinstance(s, Assign) and isinstance(s.value, Const))
    assert values == [0, 2]  # (x % 5 == 0) * 2 is x % 5 == 0 ? 2 : 0


def test_abs_below_a_constant_is_a_range_of_two_tests(program: Program) -> None:
    cfg = cfg_of(program, "abs_condition")
    tests = [(t.cond.op, fold(t.cond.right)) for t in terminators(cfg, Branch)
             if isinstance(t.cond, Binary)]
    assert tests[:2] == [(">=", -2), ("<=", 2)], cfg.dump()


def test_a_statement_and_tests_its_right_operand(program: Program) -> None:
    cfg = cfg_of(program, "logical_stmt")
    both_ways = [t for t in terminators(cfg, Branch) if t.if_true is t.if_false]
    assert len(both_ways) == 1, cfg.dump()  # `x && y;`: y is tested, both lead on


def test_discarded_values_are_kept_only_for_what_c_leaves_undefined(
        program: Program) -> None:
    """`a / b;` computes nothing at -O0 (gcc drops it, and the run does not trap on
    b == 0): an Eval statement, which the executor does not compute."""
    cfg = cfg_of(program, "discarded")
    evals = [describe(s.value) for b in cfg.blocks for s in b.stmts if isinstance(s, Eval)]
    assert evals == ["(a / b)", "(a % b)", "(a + 1)", "(b / 0)"], cfg.dump()


def test_a_discarded_volatile_object_is_read(tmp_path: Path) -> None:
    path = tmp_path / "volatile.c"
    path.write_text("int peek(volatile int *p, int *q) { *p; *q; return 0; }\n")
    cfg = load_program(path).cfgs["peek"]
    reads = [describe(s.value) for b in cfg.blocks for s in b.stmts if isinstance(s, Assign)]
    assert reads == ["*p"], cfg.dump()
    assert [describe(s.value) for b in cfg.blocks for s in b.stmts
            if isinstance(s, Eval)] == ["*q"]


def test_loops_are_known_by_their_body_block_and_whether_a_condition_ends_them(
        tmp_path: Path) -> None:
    """The harness stops cases in loops (search/loop_stops.py): each loop's body block,
    where its statement stands, and whether only break/return can end it."""
    unit = tmp_path / "loops.c"
    unit.write_text("""
int f(int x) {
    for (;;) { if (x > 3) break; x++; }
    while (1) { if (x > 9) break; x++; }
    while (x != 0) x -= 2;
    do x++; while (0x0);
    return x;
}
""", encoding="utf-8")
    cfgs = load_program(unit).cfgs
    loops = sorted(cfgs["f"].loops.values(), key=lambda loop: loop.location.line)
    assert [(loop.location.line, loop.location.column, loop.conditional)
            for loop in loops] == [(3, 5, False), (4, 5, False), (5, 5, True), (6, 5, True)]
    for head in cfgs["f"].loops:
        assert head in cfgs["f"].loop_blocks(head)
