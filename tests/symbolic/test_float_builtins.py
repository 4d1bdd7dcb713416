"""The <math.h> classification macros (gcc builtins) are modelled exactly: every case the
generator derives for them passes against the compiled code, and every outcome is reached."""
from __future__ import annotations

from pathlib import Path

from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import FileRun, generate_file

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


def test_classification_builtins_are_exact(tmp_path: Path) -> None:
    unit = tmp_path / "classify.c"
    unit.write_text(UNIT)
    generated = generate_file(unit, "classify.c", Options())
    run = FileRun(unit, generated, Options(), tmp_path / "builds")
    by_name = {f.name: f for f in generated.cases.functions}
    assert set(by_name) == {"kind", "checks", "scaled_is_nan"}
    for fn in by_name.values():
        assert fn.stop_reason == "exhausted", (fn.name, fn.skip_reason, fn.not_reached)
        assert not fn.not_reached and not fn.unreachable, fn.name
        for case in fn.cases:
            result = run.run(fn.name, case.number)
            assert result.passed, (fn.name, case.id, result.message)
    coverage = run.coverage()
    for name in by_name:
        cov = coverage[name]
        assert cov.branches_covered == cov.branches_total, (name, cov)
    returns = {c.expected.returns.value for c in by_name["kind"].cases}
    assert returns == {1, 2, 3, 4, 5, 6, 7}
