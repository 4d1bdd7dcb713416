"""Input pointers that alias: the generator makes two pointers point into one object when a
path needs it (a write seen through another pointer, an order or a difference of pointers),
lets pointers inside objects point back into them (lists), into globals, and grows the
objects behind input pointers when a path needs more elements. Every case runs against the
compiled code and gcov measures the outcomes reached."""
from __future__ import annotations

import pytest

from pytest_ctgen.cases import FunctionCases, IntValue, PointerValue
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun
from pytest_ctgen.pipeline import generate_file

UNIT = r"""
#include <stddef.h>
#include <stdint.h>

struct node { int key; struct node *next; };

static int g_cells[4];

int same_cell(int *a, const int *b)
{
    int before = *b;
    *a = before + 1;
    if (*b != before) {
        return 1;
    }
    return 0;
}

int order(const char *p, const char *q)
{
    if (p == q) {
        return 0;
    }
    return p < q ? -1 : 1;
}

long gap(const short *from, const short *to)
{
    long d = to - from;
    if (d > 3) {
        return 3;
    }
    return d;
}

int chain_length(const struct node *n)
{
    int len = 0;
    while (n != NULL) {
        len++;
        if (len > 5) {
            return -1;
        }
        n = n->next;
    }
    return len;
}

int into_global(int *p)
{
    g_cells[2] = 7;
    *p = 1;
    if (g_cells[2] == 1) {
        return 1;
    }
    return 0;
}

int sum_long(const uint8_t *a, size_t n)
{
    size_t i;
    int sum = 0;
    if (n > 20u) {
        n = 20u;
    }
    for (i = 0u; i < n; i++) {
        sum += a[i];
    }
    return n == 20u ? -sum : sum;
}
"""

FUNCTIONS = ["same_cell", "order", "gap", "chain_length", "into_global", "sum_long"]


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("alias")
    unit = tmp / "alias_unit.c"
    unit.write_text(UNIT)
    generated = generate_file(unit, "alias_unit.c", Options())
    return generated, FileRun(unit, generated, Options(), tmp / "builds")


def _function(generated, name: str) -> FunctionCases:  # type: ignore[no-untyped-def]
    return next(f for f in generated.cases.functions if f.name == name)


def _returns(case) -> int:  # type: ignore[no-untyped-def]
    assert isinstance(case.expected.returns, IntValue)
    return case.expected.returns.value


@pytest.mark.parametrize("function", FUNCTIONS)
def test_cases_pass_and_cover_every_outcome(generated_run, function: str) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, function)
    assert fn.stop_reason == "exhausted", (fn.skip_reason, fn.not_reached)
    assert not fn.unreachable
    for case in fn.cases:
        result = run.run(fn.name, case.number)
        assert result.passed, (case.id, result.message)
    cov = run.coverage()[function]
    assert cov.branches_covered == cov.branches_total, cov


def test_a_write_seen_through_another_pointer_needs_one_object(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "same_cell")
    seen_all = [c for c in fn.cases if _returns(c) == 1]
    assert seen_all
    for seen in seen_all:  # the search's, and an operand case of `before + 1` on its path
        a, b = (p.value for p in seen.params)
        assert isinstance(a, PointerValue) and isinstance(b, PointerValue)
        assert (a.target, a.offset) == (b.target, b.offset)
    (apart,) = [c for c in fn.cases if _returns(c) == 0]
    assert apart.params[0].value.target != apart.params[1].value.target


def test_ordered_pointers_point_into_one_object(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "order")
    assert sorted(_returns(c) for c in fn.cases) == [-1, 0, 1]
    for case in fn.cases:
        p, q = (b.value for b in case.params)
        assert p.target == q.target  # an order of pointers into two objects is undefined
        assert {-1: p.offset < q.offset, 0: p.offset == q.offset,
                1: p.offset > q.offset}[_returns(case)]


def test_pointer_difference_counts_elements(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "gap")
    for case in fn.cases:
        frm, to = (b.value for b in case.params)
        assert frm.target == to.target
        assert _returns(case) == min(3, (to.offset - frm.offset) // 2)


def test_a_list_longer_than_the_pointer_depth_is_built_node_by_node(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "chain_length")
    too_long = [c for c in fn.cases if _returns(c) == -1]
    assert too_long
    # six nodes made as the walk needed them (symbolic/lazy.py), each linked to the next
    # by name, or a shorter list closed into a cycle
    objects = {o.name for o in too_long[0].objects}
    nexts = [v for o in too_long[0].objects for name, v in o.value.fields if name == "next"]
    assert all(isinstance(v, PointerValue) for v in nexts)
    assert len(too_long[0].objects) == 6 or any(v.target in objects for v in nexts)
    assert sum(v.target in objects for v in nexts) >= len(objects) - 1


def test_a_pointer_may_point_into_a_global(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "into_global")
    (hit,) = [c for c in fn.cases if _returns(c) == 1]
    assert hit.params[0].value == PointerValue("&g_cells", 8)


def test_objects_grow_when_a_path_needs_more_elements(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "sum_long")
    capped = [c for c in fn.cases if c.params[1].value.value > 20]
    assert capped
    assert len(capped[0].objects[0].value.elements) > 20
