"""<stdarg.h> as C defines it: a call of a variadic function of the unit passes its
promoted arguments, `va_arg` reads them in order with the type it names (through a
`va_list` handed to a helper too), `va_copy` starts a second reading. The callers are
generated and every case passes against the compiled code; a function that reads variadic
arguments of its own skips itself with the reason (the generator does not choose them)."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit

UNIT = r"""
#include <stdarg.h>

static int vsum(int n, va_list ap)
{
    int s = 0;

    for (int i = 0; i < n; i++) {
        s += va_arg(ap, int);
    }
    return s;
}

int sum(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int s = vsum(n, ap);
    va_end(ap);
    return s;
}

double mix(const char *format, ...)
{
    va_list ap, again;
    double total = 0.0;

    va_start(ap, format);
    va_copy(again, ap);
    for (const char *f = format; *f != '\0'; f++) {
        switch (*f) {
        case 'i': total += va_arg(ap, int); break;
        case 'd': total += va_arg(ap, double); break;
        case 'l': total += (double)va_arg(ap, long long); break;
        case 'p': {
            int *p = va_arg(ap, int *);
            *p += 1;
            total += *p;
            break;
        }
        default: break;
        }
    }
    total += va_arg(again, int) * 1000;  /* the first argument once more */
    va_end(again);
    va_end(ap);
    return total;
}

int caller(int a, char c, float f)
{
    int k = 5;

    if (a > 3 && a < 100 && sum(3, a, c, 2) > 20 + a) {
        return 1;
    }
    double m = mix("idpl", 2, f, &k, (long long)a * 3000000000LL);
    if (k != 6) {
        return -1;  /* mix incremented k through the pointer */
    }
    if (m > 2.0e10) {
        return 2;
    }
    return m < 0.0 ? 3 : 4;
}
"""


def test_calls_of_variadic_functions_are_modelled(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("va.c", UNIT)
    caller = unit.functions["caller"]
    assert caller.stop_reason == "exhausted"
    line = UNIT.splitlines().index("    if (k != 6) {") + 1
    assert [(o.line, o.label) for o in caller.unreachable] == [(line, "true")]
    assert {c.expected.returns.value for c in caller.cases} == {1, 2, 3, 4}
    coverage = unit.run.coverage()["caller"]
    assert coverage.branches_covered == coverage.branches_total - 1
    for name in ("sum", "mix"):
        reading = unit.functions[name]
        assert reading.stop_reason == "skipped" and not reading.cases
        assert reading.skip_reason.startswith("va.c:") and "variadic function under " \
            "test: its variadic arguments are not generated yet" in reading.skip_reason
    helper = unit.functions["vsum"]
    assert helper.stop_reason == "skipped" and helper.skip_reason == (
        "va.c:4:32: va_list parameter 'ap': the generator cannot make one (the unit's "
        "functions that pass theirs are tested)")
