"""Variable length arrays and `alloca` as C defines them: a size expression is evaluated
once, where its declarator is reached (a parameter's on entry), `sizeof` of a variable
length array is computed at run time, pointers to one step by its size, and an `alloca`
object lives until its function returns. A symbolic size is fixed on each path, up to the
size of the input arrays; a size of 0 or less is undefined and excluded like a division by
zero, and so is a read past the end, as for an ordinary array; a size beyond the bound is
reported as the bound, never as unreachable. Every case passes against gcc's build."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit, unit_generator

from pytest_ctgen.cases import ArrayValue, Case, FunctionCases, IntValue, PointerValue

UNIT = r"""
#include <alloca.h>
#include <stddef.h>

void fill(int n, int a[n]);

int histogram(int n, int key)
{
    if (n < 1 || n > 6) {
        return -1;
    }
    int counts[n];
    for (int i = 0; i < n; i++) {
        counts[i] = i * key;
    }
    if (sizeof counts > 4 * sizeof(int)) {
        return counts[n - 1] > 10 ? 2 : 3;
    }
    return counts[n - 1] == 0 ? 0 : 5;  /* `? 0 : 1` is no branch to gcc */
}

int grid(int rows, int cols, int r, int c)
{
    if (rows > 4 || cols > 4) {
        return -1;
    }
    int g[rows][cols];
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            g[i][j] = i * 10 + j;
        }
    }
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
        return -2;
    }
    if (sizeof g[0] == 3 * sizeof(int) && g[r][c] > 20) {
        return 1;
    }
    return g[r][c];
}

int sum_first(int n, const int a[n])
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += a[i];
    }
    return s > 100 ? 100 : s;
}

int column(int n, int m[][n], int row)
{
    if (n > 3 || row < 0 || row > 2) {
        return -1;
    }
    int (*p)[n] = m + row;
    if (p[0][n - 1] > 5) {
        return 1;
    }
    return (int)sizeof *p;
}

long strides(int n, int k)
{
    if (n < 1 || n > 3) {
        return -1;
    }
    int g[3][n];
    int (*p)[n] = g;
    int (*q)[n] = p + 2;
    p++;
    if (k > 0) {
        return (q - p) * 100 + (long)sizeof(int[n]) + ((char *)q - (char *)g);
    }
    return &g[1][0] - &g[0][0];
}

int typedefs(int n, int k)
{
    if (n < 1 || n > 3) {
        return -1;
    }
    typedef int row_t[n];
    n = 100;                    /* the type keeps the size it was declared with */
    row_t r;
    row_t q[2];
    size_t i = 0;
    size_t s = sizeof(q[i++]);  /* an operand of a variable length type is evaluated */
    r[0] = k;
    if (sizeof r == 3 * sizeof(int) && r[0] == 7) {
        return (int)i + 10;
    }
    return (int)(s + i);
}

int constant_size(int k)
{
    int x[4] = {0};
    {
        char x[2];
        int y[sizeof x] = {k, k + 1};  /* sizeof of the inner x is a constant: no VLA */
        static char keep[sizeof y];
        keep[0] = (char)k;
        if (__builtin_constant_p(sizeof y) && k > 0) {
            return y[1] + (int)sizeof keep;
        }
        return y[0];
    }
}

int stubbed(int n)
{
    if (n < 1 || n > 3) {
        return -1;
    }
    int a[n];
    fill(n, a);
    return a[0] > 5;
}

int stacked(unsigned k)
{
    if (k > 8) {
        return -1;
    }
    unsigned char *buf = alloca(k);
    for (unsigned i = 0; i < k; i++) {
        buf[i] = (unsigned char)(i + 1);
    }
    if (k > 3 && buf[3] == 4) {
        return 1;
    }
    return 0;
}

int chain(int n)
{
    int *first = 0;

    if (n < 1 || n > 3) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int *p = __builtin_alloca(sizeof(int) * (size_t)(i + 1));
        p[i] = 10 * i + 1;
        if (i == 0) {
            first = p;
        }
    }
    return *first + n;  /* the first object lives until the function returns */
}

int past_end(int n, int i)
{
    if (n < 1 || n > 4) {
        return -1;
    }
    int v[n];
    for (int j = 0; j < n; j++) {
        v[j] = 2 * j;
    }
    if (i == n) {
        return v[i];
    }
    return v[i] > 3 ? 1 : 7;  /* `? 1 : 0` is no branch to gcc */
}

int past_fixed(int i)
{
    int v[4] = {0, 2, 4, 6};
    if (i == 4) {
        return v[i];
    }
    return v[i] > 3 ? 1 : 7;  /* `? 1 : 0` is no branch to gcc */
}

int no_empty(int n)
{
    if (n > 5) {
        return -1;
    }
    char s[n];
    s[0] = 'a';
    if (n <= 0) {
        return 9;
    }
    return (int)sizeof s;
}

int big(int n)
{
    int a[n];
    a[0] = 1;
    if (n > 100) {
        return a[0];
    }
    return 0;
}

int member(int n)
{
    struct { int len; int a[n]; } s;
    s.a[0] = n;
    return s.a[0];
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    """The unit generated once, every case run and passed."""
    return unit_generator(tmp_path_factory.mktemp("vla"))("vla.c", UNIT)


def _line(text: str) -> int:
    return UNIT.splitlines().index(text) + 1


def _line_in(function: str, text: str) -> int:
    """The line of `text` in the definition of `function`."""
    lines = UNIT.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {function}(" in line)
    return next(i for i in range(start, len(lines)) if lines[i].startswith(text)) + 1


def _param(case: Case, name: str) -> int:
    value = next(p.value for p in case.params if p.name == name)
    assert isinstance(value, IntValue)
    return value.value


def _returned(case: Case) -> int:
    value = case.expected.returns
    assert isinstance(value, IntValue)
    return value.value


def _returns(fn: FunctionCases) -> set[int]:
    return {_returned(c) for c in fn.cases}


def _outcomes(outcomes: tuple) -> list[tuple[int, str]]:
    return [(o.line, o.label) for o in outcomes]


def test_sizes_are_evaluated_at_run_time(unit: GeneratedUnit) -> None:
    """`sizeof` of a variable length array, a 2-D one's rows, steps of pointers to rows,
    a typedef's size taken where the typedef stands, a sizeof operand evaluated."""
    unit.assert_fully_covered("histogram", "grid", "strides", "typedefs", "constant_size",
                              "stubbed")
    histogram = unit.functions["histogram"]
    assert _returns(histogram) == {-1, 0, 5, 2, 3}
    for case in histogram.cases:  # sizeof counts is n * sizeof(int)
        n, result = _param(case, "n"), _returned(case)
        assert result == -1 or (4 < n <= 6) == (result in (2, 3))
    grid = unit.functions["grid"]
    assert _returns(grid) >= {-1, -2, 1}
    for case in grid.cases:  # the row of g is cols ints
        rows, cols, r, c = (_param(case, name) for name in ("rows", "cols", "r", "c"))
        if 0 <= r < rows <= 4 and 0 <= c < cols <= 4:
            expected = 1 if cols == 3 and 10 * r + c > 20 else 10 * r + c
            assert _returned(case) == expected
    for case in unit.functions["strides"].cases:  # rows of n ints; q - p counts rows
        n, k = _param(case, "n"), _param(case, "k")
        if 1 <= n <= 3:
            assert _returned(case) == (100 + 4 * n + 2 * 4 * n if k > 0 else n)
    typedefs = unit.functions["typedefs"]
    assert {-1, 11} <= _returns(typedefs) <= {-1, 5, 9, 11, 13}
    for case in typedefs.cases:  # sizeof(q[i++]) made i 1
        n, k = _param(case, "n"), _param(case, "k")
        if 1 <= n <= 3:
            assert _returned(case) == (11 if n == 3 and k == 7 else 4 * n + 1)
    for case in unit.functions["constant_size"].cases:  # an integer constant expression
        k = _param(case, "k")
        assert _returned(case) == (k + 1 + 8 if k > 0 else k)


def test_array_parameters_adjust_to_pointers(unit: GeneratedUnit) -> None:
    """`int a[n]` is a pointer; `int m[][n]` points to rows of n ints, its stride
    evaluated on entry. Both give cases (they used to be dropped without a word)."""
    unit.assert_fully_covered("sum_first", "column")
    sum_first = unit.functions["sum_first"]
    assert sum_first.prototype == "int sum_first(int n, const int a[n])"
    assert [p.declaration for p in sum_first.cases[0].params] == ["int @", "const int *@"]
    assert 100 in _returns(sum_first)
    column = unit.functions["column"]
    assert [p.declaration for p in column.cases[0].params] == ["int @", "void *@", "int @"]
    assert _returns(column) >= {-1, 1}
    for case in column.cases:
        n, row, result = _param(case, "n"), _param(case, "row"), _returned(case)
        if result == 1:  # p[0][n - 1] is element row * n + n - 1 of what m points to
            m = next(p.value for p in case.params if p.name == "m")
            assert isinstance(m, PointerValue) and m.offset == 0
            rows = next(o.value for o in case.objects if o.name == m.target)
            assert isinstance(rows, ArrayValue)
            element = rows.elements[row * n + n - 1]
            assert isinstance(element, IntValue) and element.value > 5
        elif result != -1:
            assert result == 4 * n  # sizeof *p


def test_alloca_objects_live_until_return(unit: GeneratedUnit) -> None:
    """`alloca(k)` of a symbolic k (0 allowed) and in a loop: every object stays."""
    stacked = unit.functions["stacked"]
    assert stacked.stop_reason == "exhausted"
    assert _returns(stacked) == {-1, 0, 1}
    line = _line("    if (k > 3 && buf[3] == 4) {")
    assert _outcomes(stacked.unreachable) == [(line, "false")]
    coverage = unit.run.coverage()["stacked"]
    assert coverage.branches_covered == coverage.branches_total - 1
    unit.assert_fully_covered("chain")
    for case in unit.functions["chain"].cases:  # *first is still the first object's 1
        n = _param(case, "n")
        assert _returned(case) == (n + 1 if 1 <= n <= 3 else -1)


def test_reads_past_the_end_are_findings_and_undefined_sizes_not_explored(
        unit: GeneratedUnit) -> None:
    """A read past the end is a finding (a failing case naming it), as with an ordinary
    array: the outcome only such a read reaches is reached by it, never unreachable. A
    size of 0 or less takes no case, but gcc runs such code (`no_empty` returns 9 for
    n = 0), so the outcome only it reaches is left as not reached, stopped by the
    approximation, never called unreachable."""
    coverage = unit.run.coverage()
    for name in ("past_end", "past_fixed"):
        fn = unit.functions[name]
        assert fn.stop_reason == "exhausted" and not fn.unreachable, name
        assert not fn.not_reached, name
        assert coverage[name].branches_covered == coverage[name].branches_total, name
        # past the end where i == n, and below or past it at the comparison after
        lines = sorted(int(f.split(":")[1]) for f in unit.findings[name])
        assert lines == [_line_in(name, "        return v[i];"),
                         _line_in(name, "    return v[i] > 3 ? 1 : 7;")], name
        assert all("out-of-bounds read from 'v'" in f for f in unit.findings[name]), name
    no_empty = unit.functions["no_empty"]
    assert no_empty.stop_reason == "approximation" and no_empty.unreachable == ()
    assert _outcomes(no_empty.not_reached) == [(_line("    if (n <= 0) {"), "true")]
    assert coverage["no_empty"].branches_covered == coverage["no_empty"].branches_total - 1
    past_end = unit.functions["past_end"]
    returning = [c for c in past_end.cases if c.finding is None]
    assert {_returned(c) for c in returning} == {-1, 1, 7}
    for case in returning:
        if _returned(case) != -1:
            assert 0 <= _param(case, "i") < _param(case, "n") <= 4
    for case in unit.functions["no_empty"].cases:
        n = _param(case, "n")
        assert _returned(case) == (-1 if n > 5 else n) and n >= 1


def test_a_size_beyond_the_bound_is_reported_not_unreachable(unit: GeneratedUnit) -> None:
    """Only n > 100 reaches the outcome, more elements than the search gives an array."""
    big = unit.functions["big"]
    assert big.stop_reason == "depth bound" and not big.unreachable
    assert _outcomes(big.not_reached) == [(_line("    if (n > 100) {"), "true")]
    assert _returns(big) == {0}
    coverage = unit.run.coverage()["big"]
    assert coverage.branches_covered == coverage.branches_total - 1


def test_what_is_not_modelled_skips_its_function_with_the_reason(
        unit: GeneratedUnit) -> None:
    """A struct with a variable length member, a GNU extension."""
    member = unit.functions["member"]
    assert member.stop_reason == "skipped" and not member.cases
    line = _line("    struct { int len; int a[n]; } s;")
    assert member.skip_reason == f"vla.c:{line}:27: field 'a' has a variably modified type"


def test_a_definition_the_loader_cannot_take_is_listed_as_skipped(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Not dropped without a word: its reason names the construct and where it stands;
    a caller is skipped with it."""
    unit = generated_unit("loader.c", "#include <complex.h>\n"
                                      "int old_style(int a);\n"
                                      "int fine(int x) { return x; }\n"
                                      "double complex rotate(double complex z) { return z; }\n"
                                      "int old_style(a) int a; { return a; }\n"
                                      "int caller(int x) { return old_style(x); }\n")
    assert [(f.name, f.line, f.stop_reason) for f in unit.functions.values()] == [
        ("fine", 3, "exhausted"), ("rotate", 4, "skipped"), ("old_style", 5, "skipped"),
        ("caller", 6, "skipped")]
    assert unit.functions["rotate"].skip_reason == \
        "loader.c:4:1: complex type 'double _Complex'"
    assert unit.functions["old_style"].skip_reason == \
        "loader.c:5:5: old-style (K&R) function definition"
    assert unit.functions["caller"].skip_reason == (  # the prototype makes it no stub
        "loader.c:6:28: unsupported construct: call of 'old_style', whose declaration is "
        "not supported (line 5:5: old-style (K&R) function definition)")
