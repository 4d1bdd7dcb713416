"""Branches gcc -O0 makes of truth values in value context (issue 18): every gcov branch
outcome is covered by a case or listed in the table (unreachable, not reached, or as a
gcov branch without a goal); none vanishes."""
from __future__ import annotations

import pytest

from plugin_helpers import output, report_rows, run_ctgen

SHAPES = r"""
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

int multiples(int x)
{
    return (x % 3 == 0) + (x % 5 == 0) * 2;
}

int small(int i)
{
    return abs(i) < 10;
}

int nulls(const int *p, const int *q)
{
    return (p == NULL) + 2 * (q == NULL);
}

long near(long l, int x)
{
    if (labs(l) <= 3) {
        return 1;
    }
    return (abs(x - 1) < 5) * 7;
}

int negations(int x, int y)
{
    return !x * 10 + !!y * 3 + (_Bool)x * 5 + -(x < y) * 2;
}

int logic(int x, int y)
{
    int both = x && y;
    int either = (x > 2) || (y < -2);
    x && (y = 4);
    return both * 4 + either + (x && 1) + y;
}

int ternaries(int x, int y)
{
    int a = x > 0 ? y > 0 : 0;
    int b = (x ? 1 : y) == 5;
    int c = (x < y ? 1 : 0) + (y > 3 ? 7 : 9) * 2;
    return a + b + c;
}

double ratio(int x)
{
    double share = x > 10;
    return share * 0.5 + (x < -3);
}

int classes(double d)
{
    return fpclassify(d) * 10 + isinf(d);
}

struct mode { unsigned m : 2; };

int decode(unsigned v)
{
    struct mode s;
    s.m = v;
    switch (s.m) {
    case 0u: return 1;
    case 1u: return 2;
    case 2u: return 3;
    case 3u: return 4;
    default: return 5;   /* gcc keeps this outcome: never taken */
    }
}

int inverted(short x, short y)
{
    return (abs(x + y) >= 10) ^ 1;   /* gcc: abs(x + y) < 10, two tests */
}
"""

COVERED = ("multiples", "small", "nulls", "near", "negations", "logic", "ternaries",
           "ratio", "classes")


def test_every_gcov_branch_is_a_goal_or_listed(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", shapes=SHAPES)
    result = run_ctgen(ctgen_dir, "--ctgen-report", "term", "--ctgen-report",
                       "json:report.json", "shapes.c")
    text = output(result)
    assert result.ret == 0, text
    rows = report_rows(ctgen_dir.path / "report.json")
    for name in COVERED:
        r = rows[name]
        assert r["branches_total"] > 0, name
        assert r["branches_covered"] == r["branches_total"], (name, r)
        assert r["stop_reason"] == "exhausted" and not r["without_goal"], (name, r)
    decode = rows["decode"]  # the default outcome no value takes: proved unreachable
    assert decode["branches_covered"] == decode["branches_total"] - 1 == 4
    assert [o["outcome"] for o in decode["unreachable"]] == ["default"]
    inverted = rows["inverted"]  # a fold not modelled: listed, not vanished
    missing = inverted["branches_total"] - inverted["branches_covered"]
    assert missing > 0 and len(inverted["without_goal"]) == missing, inverted
    assert "inverted" in text and "no goal for gcov branches" in text
    for r in rows.values():
        uncovered = r["branches_total"] - r["branches_covered"]
        listed = len(r["unreachable"]) + len(r["not_reached"]) + len(r["without_goal"])
        assert uncovered <= listed, r
