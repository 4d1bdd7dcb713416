"""A function called without a declaration (gcc before 14 takes it as `int f()`, and
library sources lean on it: musl's qsort calls __qsort_r so) skips the functions that
call it, and the harness still links: it defines a stub for it, so the file's other
functions run their cases, in pytest and in the exported driver."""
from __future__ import annotations

import shutil

import pytest

from plugin_helpers import output, run_ctgen

UNIT = """\
int twice(int x)
{
    if (x > 100)
        return 0;
    return 2 * x;
}

int via_undeclared(int x)
{
    return helper_nobody_declares(x) + 1;
}
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_an_undeclared_function_skips_its_callers_and_the_others_run(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "impl.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "-rs", "--ctgen-export", "out", "impl.c")
    text = output(result)
    assert result.ret == 0, text
    assert "implicit declaration of function 'helper_nobody_declares'" in text
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 1 and outcomes["passed"] >= 2, text
    make = ctgen_dir.run("make", "-s", "-C", "out/impl", "run")
    assert make.ret == 0, output(make)
