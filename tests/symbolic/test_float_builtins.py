"""The <math.h> classification macros (gcc builtins) are modelled exactly: every case the
generator derives for them passes against the compiled code, and every outcome is reached."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit

UNIT = r"""
#include <math.h>

int kind(double x)
{
    switch (fpclassify(x)) {
    case FP_NAN: return 1;
    case FP_INFINITE: return signbit(x) ? 2 : 3;
    case FP_SUBNORMAL: return 4;
    case FP_ZERO: return signbit(x) ? 5 : 6;
    default: return 7;
    }
}

int checks(float f, double d)
{
    if (isnan(f)) return 1;
    if (isinf(d)) return 2;
    if (!isfinite(f)) return 3;
    if (isnormal(d) && signbit(f)) return 4;
    return 0;
}

int scaled_is_nan(int counts, double gain)
{
    return isnan((double)counts * gain) ? 1 : 0;
}
"""


def test_classification_builtins_are_exact(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("classify.c", UNIT)
    assert set(unit.functions) == {"kind", "checks", "scaled_is_nan"}
    unit.assert_fully_covered()
    returns = {c.expected.returns.value for c in unit.functions["kind"].cases}
    assert returns == {1, 2, 3, 4, 5, 6, 7}
