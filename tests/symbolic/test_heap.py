"""The heap (symbolic/heap.py, codegen/heap_allocator.py): malloc, calloc, realloc and
free are modelled, an allocation fails where the case chooses (the harness allocator fails
that call), and the errors of the heap are findings: failing cases that name the error and
its line. Every case ran against gcc's build of the unit (`generated_unit`): a finding's
case failed, every other case passed, its predicted heap objects checked."""
from __future__ import annotations

from pathlib import Path

import pytest
from generated_unit import GeneratedUnit, unit_generator

from pytest_ctgen.cases import HEAP_PREFIX, PointerValue

#: Units of our own that allocate, shared with tests/plugin/test_plugin_heap.py (a `.txt`:
#: no unit of `pytest --ctgen` run on this tree).
HEAP_UNITS = (Path(__file__).parents[1] / "data" / "heap_units.c.txt").read_text(encoding="utf-8")
UNIT = HEAP_UNITS + r"""
/* A list node the function allocates and links in front of the caller's list. */
struct node {
    int value;
    struct node *next;
};

struct node *push(struct node *head, int value)
{
    struct node *n = malloc(sizeof *n);
    if (n == NULL)
        return head;
    n->value = value;
    n->next = head;
    return n;
}

/* The caller's node is freed: no finding; reading it afterwards is one. */
void drop(struct node *n)
{
    free(n);
}

int drop_and_read(struct node *n)
{
    free(n);
    return n->value;
}

/* A leak: the buffer is neither freed nor returned when n > 2. */
int leaky(int n)
{
    char *p = malloc(4);
    if (p == NULL)
        return -1;
    p[0] = (char)n;
    if (n > 2)
        return 1;
    free(p);
    return 0;
}

int free_local(int x)
{
    int local = x;
    if (x > 0)
        free(&local);
    return local;
}

int read_uninitialized(int i)
{
    int *p = malloc(3 * sizeof *p);
    int r;
    if (p == NULL)
        return -1;
    p[0] = 5;
    r = p[i & 1];
    free(p);
    return r;
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("heap"))("heap.c", UNIT)


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(UNIT.splitlines(), 1) if marker in text)


def _finding(unit: GeneratedUnit, function: str) -> tuple[int, str]:
    [finding] = unit.findings[function]
    at, what = finding.removeprefix("undefined behaviour at ").split(": ", 1)
    file, line, _ = at.split(":")
    assert file == "heap.c"
    return int(line), what


def test_every_outcome_of_the_heap_units_is_covered(unit: GeneratedUnit) -> None:
    unit.assert_fully_covered("pool_create", "pool_demo", "pool_destroy", "checksum",
                              "take_last", "grow_and_sum", "release_twice", "push",
                              "leaky", "read_uninitialized")


def test_an_allocation_fails_where_the_code_checks_it(unit: GeneratedUnit) -> None:
    """Each NULL check of pool_create is taken by a case that fails that call, and the
    case's note names the call."""
    failing = {c.failing_allocations for c in unit.functions["pool_create"].cases}
    assert {(), (0,), (1,)} <= failing
    [second] = [c for c in unit.functions["pool_create"].cases if c.failing_allocations == (1,)]
    assert second.expected.returns == PointerValue(None)
    assert any("ctgen_heap_1 fails: malloc at heap.c:" in n for n in second.notes)
    assert {c.failing_allocations for c in unit.functions["grow_and_sum"].cases} >= {(0,), (1,)}


def test_the_objects_a_function_allocates_are_checked_after_the_call(
        unit: GeneratedUnit) -> None:
    """The pool and its slots are predicted byte by byte and pointer by pointer (the run
    checked them); a node pushed in front of the caller's list points to it."""
    [made] = [c for c in unit.functions["pool_create"].cases
              if c.expected.returns == PointerValue(HEAP_PREFIX + "0")
              and c.params[0].value.value == 2]
    objects = {o.name: o for o in made.expected.objects}
    assert objects["ctgen_heap_0"].value.elements == (PointerValue("ctgen_heap_1"),)
    assert [e.value for e in objects["ctgen_heap_1"].value.elements] == \
        [1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0]
    pushed = [c for c in unit.functions["push"].cases if not c.failing_allocations]
    assert pushed and all(c.expected.returns == PointerValue("ctgen_heap_0") for c in pushed)
    links = {o.name: o.value for c in pushed for o in c.expected.objects}
    assert links["ctgen_heap_0_at_8"].elements[0].target == "ctgen_obj_head"


def test_a_use_after_free_is_a_finding(unit: GeneratedUnit) -> None:
    line, what = _finding(unit, "take_last")
    assert line == _line("return v[3];")
    assert what == f"use after free of 'malloc#0' (freed at heap.c:{_line('free(v);')}:5)"
    line, what = _finding(unit, "drop_and_read")
    assert line == _line("return n->value;") and what.startswith("use after free of")


def test_a_missing_null_check_is_a_finding(unit: GeneratedUnit) -> None:
    """The case fails the allocation call: the run crashes where the unit writes."""
    line, what = _finding(unit, "sum_pair")
    assert line == _line("p[0] = a & 0xff;") and what == "NULL dereference of (p + 0)"
    [case] = [c for c in unit.functions["sum_pair"].cases if c.finding]
    assert case.failing_allocations == (0,)


def test_a_double_free_is_a_finding(unit: GeneratedUnit) -> None:
    line, what = _finding(unit, "release_twice")
    assert line == _line("free(p); /* again */")
    assert what.startswith("double free: free of 'malloc#0', freed at heap.c:")


def test_freeing_what_no_allocation_returned_is_a_finding(unit: GeneratedUnit) -> None:
    line, what = _finding(unit, "free_local")
    assert line == _line("free(&local);")
    assert what == "free of 'local', which no allocation function returned"


def test_reading_uninitialized_heap_memory_is_a_finding(unit: GeneratedUnit) -> None:
    line, what = _finding(unit, "read_uninitialized")
    assert line == _line("r = p[i & 1];") and what.startswith("read of the uninitialized")


def test_the_callers_objects_may_be_freed(unit: GeneratedUnit) -> None:
    """free of what an input pointer points to is the caller's business: no finding (the
    harness allocator leaves the case's own objects alone)."""
    assert "drop" not in unit.findings and unit.functions["drop"].cases


def test_a_leak_is_a_note(unit: GeneratedUnit) -> None:
    notes = {n for c in unit.functions["leaky"].cases for n in c.notes}
    assert any(n.startswith("leaks ctgen_heap_0: 4 bytes from malloc at heap.c:") for n in notes)
    assert "leaky" not in unit.findings


def test_an_allocation_of_a_symbolic_size_is_bounded_like_arrays(unit: GeneratedUnit) -> None:
    """checksum's calloc of 2 * n bytes: n up to 8, every size a case needs."""
    sizes = {c.params[1].value.value for c in unit.functions["checksum"].cases}
    assert sizes & set(range(1, 9))
