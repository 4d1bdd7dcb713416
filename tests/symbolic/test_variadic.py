"""A variadic function defined in a file skips itself (va_start, va_arg are not modelled
yet), with the construct and its location; the file's other functions are generated."""
from __future__ import annotations

from pathlib import Path

from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file

UNIT = """\
#include <stdarg.h>

int sum(int n, ...)
{
    va_list ap;
    int s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        s += va_arg(ap, int);
    }
    va_end(ap);
    return s;
}

int first_is_set(const char *fmt, va_list ap)
{
    (void)fmt;
    return va_arg(ap, char *) != 0;
}

int clamp(int x)
{
    if (x > 10) {
        return 10;
    }
    return x;
}

int calls_sum(int a)
{
    return a > 0 ? sum(2, a, a) : 0;
}
"""


def test_variadic_definitions_skip_themselves(tmp_path: Path) -> None:
    unit = tmp_path / "va.c"
    unit.write_text(UNIT)
    by_name = {f.name: f for f in generate_file(unit, "va.c", Options()).cases.functions}
    assert by_name["sum"].stop_reason == "skipped"
    assert by_name["sum"].skip_reason == \
        "va.c:7:4: unsupported construct: variadic arguments (va_start, va_arg)"
    assert by_name["first_is_set"].skip_reason.startswith("va.c:18:")
    assert by_name["clamp"].stop_reason == "exhausted" and len(by_name["clamp"].cases) == 2
    # a caller's paths into the variadic function are not modelled; the others are
    calls = by_name["calls_sum"]
    assert calls.cases and calls.stop_reason != "exhausted", calls
