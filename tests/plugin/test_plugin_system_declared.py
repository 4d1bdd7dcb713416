"""End to end: a function the unit defines that a system header declares first (a libc's
own `bsearch`, a project header given with `-isystem`) is measured on its own lines. gcov
places such a function at the header's declaration and names none of its lines in the
unit; the table showed `-` for it although its cases ran."""
from __future__ import annotations

import pytest

from plugin_helpers import output, report_rows, run_ctgen

HEADER = "int twice(int x);\n"

UNIT = """\
#include <lib.h>

int twice(int x)
{
    if (x > 3) {
        return 2 * x;
    }
    return x;
}

int other(int y)
{
    if (y < 0) {
        return -y;
    }
    return y;
}
"""


def test_a_function_a_system_header_declares_is_measured_on_its_lines(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.mkdir("sys")
    (ctgen_dir.path / "sys" / "lib.h").write_text(HEADER, encoding="utf-8")
    (ctgen_dir.path / "tw.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-cflags=-isystem sys", "--ctgen-report",
                       "json:r.json", "tw.c")
    assert result.ret == 0, output(result)
    rows = report_rows(ctgen_dir.path / "r.json")
    # gcov counts a function's opening line where it places the function: twice's is in
    # the header, so its lines in the unit are the three of its body
    for name, lines in (("twice", 3), ("other", 4)):
        row = rows[name]
        assert (row["lines_covered"], row["lines_total"]) == (lines, lines), row
        assert (row["branches_covered"], row["branches_total"]) == (2, 2), row
