"""End to end: C literals, constant evaluation and initialiser counts as gcc reads them
(issue 22: one home for each). Every case predicts what the compiled code does: float
literals and integers converted to float are rounded once (a double rounding gave
"predicted 1, observed 2"), a wide character constant keeps its value, an array sized by
its initializer has gcc's length in a function as at file scope; a braced string gives an
array of pointers one element, a wide string gives its code points, a character constant
keeps its type (`sizeof(u'a')` is 2), `(_Bool)` of infinity is 1."""
from __future__ import annotations

import pytest

from plugin_helpers import output, report_rows, run_ctgen

UNIT = r"""
static const float k_max = 3.4028235677973366e38f;
static const float k_big = 1 ? (float)9007199791611905LL : 0.0f;
static const int k_grid[][2] = {1, 2, 3, 4, 5};
enum { ROUNDED = (long long)(float)9007199791611905LL == 9007200328482816LL };

int nearest(float x)
{
    if (x == 0x1.0000010000000001p0f) {
        return 1;
    }
    if (x == 3.4028235677973366e38f) {
        return 2;
    }
    if (x == 16777217.0f) {
        return 3;
    }
    if (x == 1e-45f) {
        return 4;
    }
    if (x == 0.1f) {
        return 5;
    }
    return 6;
}

int folded(int i)
{
    switch (i) {
    case 0:
        return k_max < 1e39;
    case 1:
        return k_big == 9007200328482816.0f;
    case 2:
        return ROUNDED;
    case 3:
        return (int)sizeof k_grid;
    case 4:
        return 1.0f / (float)-0.0 < 0;
    case 5:
        return u'\xffff' + (U'\x1F600' >> 8);
    default:
        return -1;
    }
}

int local_arrays(int i)
{
    char t[] = {"abc"};
    int u[] = {1, [5] = 2};

    if (i > 0) {
        return (int)(sizeof t * 100 + sizeof u);
    }
    return t[2] + u[5];
}

static const char *k_names[] = {"abc"};
static const _Bool k_inf_is_true = (_Bool)(1.0 / 0.0);

int strings_and_characters(int i, unsigned x)
{
    const char *l[1] = {"xyz"};
    int w[] = L"\xe9x";

    switch (i) {
    case 0:
        return (int)(sizeof k_names / sizeof k_names[0]);
    case 1:
        return l[0][1];
    case 2:
        return w[0] + (int)sizeof w;
    case 3:
        return (int)(sizeof(U'a') + sizeof(u'a'));
    case 4:
        return U'\xffffffff' > x;
    case 5:
        return k_inf_is_true;
    default:
        return -1;
    }
}
"""


def test_literals_constants_and_initialiser_counts_match_the_compiled_code(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", facts=UNIT)
    result = run_ctgen(ctgen_dir, "-v", "facts.c", "--ctgen-report=json:report.json")
    out = output(result)
    assert result.ret == 0 and "Traceback" not in out, out
    # `U'\xffffffff' > x` is a comparison used as a value: x == 0xffffffff adds a case
    result.assert_outcomes(passed=6 + 7 + 2 + 8)
    rows = report_rows(ctgen_dir.path / "report.json")
    for name, cases in [("nearest", 6), ("folded", 7), ("local_arrays", 2),
                        ("strings_and_characters", 8)]:
        row = rows[name]
        assert row["stop_reason"] == "exhausted" and row["cases"] == cases, row
        assert row["branches_covered"] == row["branches_total"], row


COMPOUND_LITERAL = r"""
int complit(int i)
{
    int *p = (int[]){ 4, 5, 6 };
    if (i >= 0 && i < 3 && p[i] == 5)
        return 1;
    return 0;
}
"""


def test_a_compound_literal_of_an_array_of_unknown_size_is_fully_covered(
        ctgen_dir: pytest.Pytester) -> None:
    """`(int[]){4, 5, 6}` has three elements: every outcome gets a case that passes (it
    had none, every outcome listed as unreachable)."""
    ctgen_dir.makefile(".c", complit=COMPOUND_LITERAL)
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "complit.c")
    assert result.ret == 0, output(result)
    row = report_rows(ctgen_dir.path / "r.json")["complit"]
    assert row["stop_reason"] == "exhausted", row
    assert row["not_reached"] == [] and row["unreachable"] == [], row
    assert row["branches_covered"] == row["branches_total"] == 6, row
