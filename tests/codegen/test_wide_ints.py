"""Integers of 128 bits (gcc's `__int128`) in C text: C has no literal of them, so a value
beyond 64 bits is an expression of its halves, exact at file scope and in a function; the
runtime checks such a value whole and shows it in decimal."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.codegen.c_values import c_int_expr, c_int_literal
from pytest_ctgen.cases import IntForm, IntValue

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

WARNINGS = ["-Wall", "-Wextra", "-Werror"]
WIDE = [2**64, 2**64 + 5, 18889465966662952943616, 2**127 - 1, 2**127, 2**128 - 1,
        -(2**63) - 1, -(2**64), -(2**127)]


def _run(tmp_path: Path, text: str, *sources: Path) -> str:
    src = tmp_path / "t.c"
    src.write_text(text)
    exe = tmp_path / "t"
    done = subprocess.run(["gcc", *WARNINGS, "-std=gnu11", f"-I{harness_dir()}", str(src),
                           *map(str, sources), "-o", str(exe), "-lm"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                          check=False).stdout


@pytest.mark.parametrize("value", WIDE)
def test_wide_int_literals_are_exact_in_c(tmp_path: Path, value: int) -> None:
    lit = c_int_literal(value)
    assert "__int128" in lit
    # at file scope (a constant expression) and in a function; signed where __int128 holds it
    out = _run(tmp_path, "#include <stdio.h>\n"
               f"static const unsigned __int128 at_file = {lit};\n"
               "int main(void) {\n"
               f"  unsigned __int128 u = {lit};\n"
               "  printf(\"%llu %llu %d %d\\n\", (unsigned long long)(u >> 64),\n"
               "         (unsigned long long)u, u == at_file,"
               f" !(({lit}) * 0 - 1 > 0));\n"
               "  return 0;\n}\n").split()
    bits = value % 2**128
    assert [int(x) for x in out] == [bits >> 64, bits % 2**64, 1, int(value < 2**127)]


def test_wide_mask_is_no_hex_literal() -> None:
    v = IntValue(2**99, IntForm(hex_digits=32))
    assert c_int_expr(v) == c_int_literal(2**99)
    assert c_int_expr(IntValue(0x80, IntForm(hex_digits=32))) == "0x" + "0" * 30 + "80"


CHECKS = r"""
#include <stdio.h>
#include "ctgen_runtime.h"

static void check(const char *what, int ok_expected, int failures, const char *message)
{
    printf("%s %d %s\n", what, failures == !ok_expected, message);
}

/* the case table the runtime's driver asks for: none */
int ctgen_case_count(void) { return 0; }
const char *ctgen_case_name(int i) { (void)i; return ""; }
const char *ctgen_case_finding(int i) { (void)i; return 0; }
int ctgen_run_case(int i, char *m, ctgen_size n) { (void)i; (void)m; (void)n; return 0; }

#define CHECK(name, ok, observed, expected)                                 \
    do {                                                                    \
        char msg[256] = "";                                                 \
        ctgen_ctx c;                                                        \
        ctgen_ctx_init(&c, msg, sizeof msg);                                \
        ctgen_check_int(&c, name, observed, expected);                      \
        check(name, ok, c.failures, msg);                                   \
    } while (0)

int main(void)
{
    __int128 s = (__int128)1 << 70;
    unsigned __int128 u = ~(unsigned __int128)0;
    __int128 low_same = ((__int128)1 << 64) - 5;  /* low 64 bits of -5 */
    int narrow = -3;
    CHECK("equal", 1, s, @S@);
    CHECK("high", 0, s + ((__int128)1 << 65), @S@);
    CHECK("low_same", 0, low_same, (-5));
    CHECK("umax", 1, u, @U@);
    CHECK("umax_off", 0, u - 1, @U@);
    CHECK("negative", 0, -s, @S@);
    CHECK("narrow", 0, narrow, (-4));
    return 0;
}
"""


def test_wide_values_are_checked_whole_and_shown(tmp_path: Path) -> None:
    text = CHECKS.replace("@S@", c_int_literal(2**70)).replace("@U@", c_int_literal(2**128 - 1))
    out = _run(tmp_path, text, harness_dir() / "ctgen_runtime.c")
    lines = {ln.split(" ", 2)[0]: ln.split(" ", 2)[1:] for ln in out.splitlines()}
    assert all(ok == "1" for ok, _ in lines.values()), out
    assert lines["high"][1] == f"high: predicted {2**70}, observed {2**70 + 2**65}"
    assert lines["low_same"][1] == "low_same: predicted -5, observed 18446744073709551611"
    assert lines["umax_off"][1] == "umax_off: predicted " \
        "340282366920938463463374607431768211455, observed " \
        "340282366920938463463374607431768211454"
    assert lines["negative"][1] == "negative: predicted 1180591620717411303424, " \
                                   "observed -1180591620717411303424"
    assert lines["narrow"][1] == "narrow: predicted -4, observed -3"
