"""Cases of a unit that allocates, as data: the allocation calls a case fails and the heap
objects it predicts are written to the export and read back; a file that names them where
they cannot be is refused with the field named."""
from __future__ import annotations

import json

import pytest

from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import (
    ArrayValue,
    Binding,
    Case,
    Expected,
    FileCases,
    FunctionCases,
    IntValue,
    PointerValue,
)
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.codegen.heap_allocator import case_heap_lines
from pytest_ctgen.export_schema import SchemaError


def _file(allocator: tuple[str, ...] = ("malloc", "free")) -> FileCases:
    case = Case("make", 1, (Binding("n", "int @", IntValue(2)),), (),
                Expected(PointerValue("ctgen_heap_1"), objects=(
                    Binding("ctgen_heap_1", "unsigned char @[2]",
                            ArrayValue((IntValue(7), IntValue(0)))),
                    Binding("ctgen_heap_1_at_8", "void *@[1]",
                            ArrayValue((PointerValue("ctgen_heap_0"),))))),
                failing_allocations=(2,))
    return FileCases("u.c", (FunctionCases("make", 1, "char *make(int n)", (case,),
                                           "exhausted"),), allocator=allocator)


def test_failing_calls_and_heap_objects_round_trip() -> None:
    fc = _file()
    text = file_cases_to_json(fc)
    doc = json.loads(text)
    assert doc["allocator"] == ["malloc", "free"]
    assert doc["functions"][0]["cases"][0]["failing_allocations"] == [2]
    assert file_cases_from_json(text) == fc


def test_a_file_without_allocations_writes_no_allocator() -> None:
    """Exports of units that allocate nothing keep their bytes."""
    fc = FileCases("u.c", ())
    assert "allocator" not in file_cases_to_json(fc)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("allocator"), "ctgen_heap_1\" is not an object of the case"),
    (lambda d: d.pop("allocator") and d["functions"][0]["cases"][0].__setitem__(
        "expected", {"returns": None, "void": False}),
     "the unit calls no allocation function"),
    (lambda d: d.__setitem__("allocator", ["free", "malloc"]), "out of the order"),
    (lambda d: d.__setitem__("allocator", ["mmap"]), "mmap"),
    (lambda d: d["functions"][0]["cases"][0].__setitem__("failing_allocations", [3, 1]),
     "in increasing order"),
    (lambda d: d["functions"][0]["cases"][0]["params"][0].__setitem__(
        "declaration", "char *@") or d["functions"][0]["cases"][0]["params"][0].__setitem__(
        "value", {"@pointer": "ctgen_heap_0", "offset": 0}),
     "is not an object of the case"),
])
def test_heap_data_where_it_cannot_be_is_refused(change, message: str) -> None:
    doc = json.loads(file_cases_to_json(_file()))
    change(doc)
    with pytest.raises(SchemaError, match=message):
        file_cases_from_json(json.dumps(doc))


def test_the_harness_names_a_heap_object_by_its_allocation_call() -> None:
    [case] = _file().functions[0].cases
    before, body, after = case_heap_lines(case, "ctgen_c")
    assert before == [
        "#define ctgen_heap_0 (*(unsigned char (*)[1])(unsigned char *)ctgen_heap_block("
        "ctgen_c, 0UL, 0u))",
        "#define ctgen_heap_1 (*(unsigned char (*)[2])(unsigned char *)ctgen_heap_block("
        "ctgen_c, 1UL, 0u + sizeof (unsigned char [2])))",
        "#define ctgen_heap_1_at_8 (*(void *(*)[1])((unsigned char *)ctgen_heap_block("
        "ctgen_c, 1UL, 8u + sizeof (void *[1])) + 8))"]
    assert body[-1] == "ctgen_heap_fail_calls(ctgen_failing, 1UL);"
    assert after == ["#undef ctgen_heap_0", "#undef ctgen_heap_1", "#undef ctgen_heap_1_at_8"]
