"""A case the harness stops in a loop (the ending "loop stop"): its JSON round-trips, the
reader refuses a stop without its loop or a loop on another ending, and the harness arms
the stop before the call and checks the iterations after it."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import (
    Case,
    Expected,
    FileCases,
    FunctionCases,
    FunctionSignature,
    LoopStop,
    StubPrototype,
    stopped_loops,
)
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.codegen.case_functions import case_lines
from pytest_ctgen.codegen.unit_copy import unit_copy_text
from pytest_ctgen.export_schema import SchemaError

UNIT = """\
int read_sensor(void);
void task(void)
{
    for (;;)   /* the task */
    {
        if (read_sensor() > 3) continue;
    }
}
"""


def _file() -> FileCases:
    stop = LoopStop(4, 5, 3)
    case = Case("task", 1, (), (), Expected(None, stub_call_counts=(("read_sensor", 3),),
                                            ending="loop stop", loop_stop=stop))
    stub = StubPrototype("read_sensor", "int read_sensor(void)")
    return FileCases("u.c", (FunctionCases("task", 2, "void task(void)", (case,),
                                           "exhausted"),), stubs=(stub,))


def test_a_loop_stop_round_trips() -> None:
    fc = _file()
    text = file_cases_to_json(fc)
    ends = json.loads(text)["functions"][0]["cases"][0]["expected"]["ends"]
    assert ends == {"how": "loop stop", "status": None,
                    "loop": {"line": 4, "column": 5, "iterations": 3}}
    assert file_cases_from_json(text) == fc
    assert str(fc.functions[0].cases[0].expected.loop_stop) == \
        "stops after 3 iterations of the loop at line 4"


def _ends(doc: dict[str, Any]) -> dict[str, Any]:
    ends: dict[str, Any] = doc["functions"][0]["cases"][0]["expected"]["ends"]
    return ends


@pytest.mark.parametrize("change, message", [
    (lambda e: e.pop("loop"), "loop"),
    (lambda e: e.__setitem__("how", "exit"), "only a case that ends in a \"loop stop\""),
    (lambda e: e["loop"].__setitem__("iterations", -1), "iterations"),
    (lambda e: e["loop"].__setitem__("line", 0), "line"),
])
def test_a_loop_stop_without_its_loop_is_refused(
        change: Callable[[dict[str, Any]], Any], message: str) -> None:
    doc = json.loads(file_cases_to_json(_file()))
    change(_ends(doc))
    with pytest.raises(SchemaError, match=message):
        file_cases_from_json(json.dumps(doc))


def test_the_copy_counts_the_iterations_where_the_body_starts(tmp_path: Any) -> None:
    unit = tmp_path / "u.c"
    unit.write_text(UNIT, encoding="utf-8")
    fc = _file()
    assert stopped_loops(fc) == ((4, 5),)
    assert unit_copy_text(unit, "u.c", fc.stubs) is None  # no stop: compiled as it is
    copy = unit_copy_text(unit, "u.c", fc.stubs, loops=stopped_loops(fc))
    assert copy is not None
    lines = copy.split("\n")
    body = lines.index("    for (;;)   /* the task */")
    # on the body's own line: gcov's lines stay where they were
    assert lines[body + 1] == "    if ((ctgen_loop_tick(4, 5), 1)) {"
    [case] = fc.functions[0].cases
    lines = case_lines(0, case, FunctionSignature("void @(void)", None), {"read_sensor"})
    arm = lines.index("    ctgen_loop_stop_at(4, 5, 3);")
    assert lines[arm + 1:arm + 3] == ["    ctgen_call_catching_end(ctgen_call_0, 0);",
                                      "    ctgen_check_end(ctgen_c, CTGEN_LOOP_STOPPED, 3);"]
