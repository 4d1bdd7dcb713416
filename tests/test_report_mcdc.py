"""MC/DC in the reports (report/mcdc_table.py) and the measurement as plain data
(coverage/mcdc_file.py): what xdist workers send joins into pairs no worker had alone,
the table shows `-` for a function without a decision of two or more conditions, and the
Cobertura report carries the figures on the right elements."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from pytest_ctgen.coverage.mcdc import Evaluation
from pytest_ctgen.coverage.mcdc_file import McdcFile, merge_mcdc_files
from pytest_ctgen.errors import SourceLocation
from pytest_ctgen.frontend.decisions import Condition, Decision
from pytest_ctgen.report.mcdc_table import cobertura_with_mcdc, with_mcdc
from pytest_ctgen.report.table import Row, format_table, row_from_json, row_to_json, totals
from pytest_ctgen.report.writers import write_json

AND2 = Decision(0, "and2", SourceLocation("/abs/u.c", 3, 9), "a > 0 && b > 0", (
    Condition(0, "a > 0", SourceLocation("/abs/u.c", 3, 9)),
    Condition(1, "b > 0", SourceLocation("/abs/u.c", 3, 18))), ("&&", 0, 1))
MUX = Decision(1, "mux", SourceLocation("/abs/u.c", 9, 12), "a && b || !a && c", (
    Condition(0, "a", SourceLocation("/abs/u.c", 9, 13)),
    Condition(1, "b", SourceLocation("/abs/u.c", 9, 18)),
    Condition(2, "a", SourceLocation("/abs/u.c", 9, 27)),
    Condition(3, "c", SourceLocation("/abs/u.c", 9, 32))), ("||", ("&&", 0, 1),
                                                             ("&&", ("!", 2), 3)))
BOTH = Evaluation(0, (True, True), True)
A_FALSE = Evaluation(0, (False, None), False)
B_FALSE = Evaluation(0, (True, False), False)


def _file(*evaluations: Evaluation) -> McdcFile:
    return McdcFile("u.c", ("and2", "mux", "plain"), (AND2, MUX), frozenset(evaluations),
                    {})


def _row(function: str) -> Row:
    return Row("u.c", function, 1, 2, 2, 0, 4, 4, 2, 2, (), (), "exhausted", 0.1)


def test_a_measurement_survives_json_and_shares_join_into_pairs() -> None:
    share_a, share_b = _file(BOTH), _file(A_FALSE, B_FALSE)
    assert McdcFile.from_json(json.loads(json.dumps(share_b.to_json()))) == share_b
    assert share_a.coverage()["and2"].conditions_shown == 0
    assert share_b.coverage()["and2"].conditions_shown == 0
    merged = merge_mcdc_files([share_a, share_b])
    assert list(merged) == ["u.c"]
    assert merged["u.c"].coverage()["and2"].conditions_shown == 2


def test_the_table_shows_mcdc_and_a_dash_without_decisions() -> None:
    rows = with_mcdc([_row("and2"), _row("mux"), _row("plain")],
                     {"u.c": _file(BOTH, A_FALSE)})
    lines = format_table(rows, missing=True)
    assert lines[0].split()[:5] == ["function", "cases", "C0", "C1", "MC/DC"]
    cells = {line.split()[0]: line.split() for line in lines[1:] if line.strip()}
    assert cells["u.c::and2"][4] == "50.0%"
    assert cells["u.c::mux"][4] == "0.0%"
    assert cells["u.c::plain"][4] == "-"
    assert cells["TOTAL"][4] == "16.7%"  # 1 of 6 conditions
    assert any("MC/DC no pair for 3:18 b > 0" in line for line in lines)
    t = totals(rows)
    assert (t.mcdc_conditions_covered, t.mcdc_conditions_total) == (1, 6)
    # an xdist worker's row leaves the MC/DC out: the controller measures it again
    assert row_from_json(json.loads(json.dumps(row_to_json(rows[0])))).mcdc is None


def test_conditions_proved_infeasible_are_listed_like_unreachable_outcomes(
        tmp_path: Path) -> None:
    proved = replace(_row("and2"), mcdc_infeasible=((3, 18),))
    assert row_from_json(json.loads(json.dumps(row_to_json(proved)))) == proved
    rows = with_mcdc([proved], {"u.c": _file(BOTH, A_FALSE)})
    lines = format_table(rows, missing=True)
    assert lines[1].split()[4:8] == ["50.0%", "MC/DC", "3:18", "b"]  # unreachable column
    assert not any("no pair" in line for line in lines)  # not among the missing ones
    write_json(tmp_path / "r.json", rows, totals(rows))
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    mcdc = doc["functions"][0]["mcdc"]
    assert (mcdc["conditions_covered"], mcdc["conditions_total"]) == (1, 2)  # still counted
    assert mcdc["not_covered"] == []
    assert mcdc["infeasible"] == [{"line": 3, "column": 18, "condition": "b > 0",
                                   "decision": "a > 0 && b > 0"}]


def test_without_mcdc_the_table_has_no_column() -> None:
    lines = format_table([_row("and2")])
    assert "MC/DC" not in lines[0]
    assert totals([_row("and2")]).mcdc_percent is None


COBERTURA = """<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE coverage SYSTEM 'https://example.invalid/coverage-04.dtd'>
<coverage line-rate="1.0" branch-rate="1.0" version="gcovr 8.8">
  <packages><package name="" line-rate="1.0">
    <classes>
      <class name="src_u_c" filename="src/u.c" line-rate="1.0">
        <methods>
          <method name="and2" signature="" line-rate="1.0"><lines/></method>
          <method name="plain" signature="" line-rate="1.0"><lines/></method>
        </methods>
      </class>
      <class name="other_c" filename="other.c" line-rate="1.0">
        <methods><method name="and2" signature="" line-rate="1.0"/></methods>
      </class>
    </classes>
  </package></packages>
</coverage>
"""


def test_cobertura_carries_mcdc_per_unit_and_function() -> None:
    rows = with_mcdc([_row("and2"), _row("plain")], {"u.c": _file(BOTH, A_FALSE, B_FALSE)})
    xml = cobertura_with_mcdc(COBERTURA, rows, {"src/u.c": "u.c"})
    assert "<!DOCTYPE coverage" in xml
    root = ET.fromstring(xml.split("\n", 2)[2])
    assert (root.get("mcdc-rate"), root.get("mcdc-conditions-valid")) == ("1.0", "2")
    unit, other = root.iter("class")
    assert unit.get("mcdc-conditions-covered") == "2"
    methods = {m.get("name"): m for m in unit.iter("method")}
    assert methods["and2"].get("mcdc-rate") == "1.0"
    assert methods["plain"].get("mcdc-conditions-valid") == "0"
    assert methods["plain"].get("mcdc-rate") is None  # nothing to cover: no rate
    assert other.get("mcdc-rate") is None
    assert next(other.iter("method")).get("mcdc-rate") is None
