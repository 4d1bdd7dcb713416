"""ir/condition_map.py: which branch edges give the conditions of a function's decisions
their values, under `!`, in value context, in a statement, nested, and folded."""
from __future__ import annotations

import pytest

from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.cfg import CFG, Branch
from pytest_ctgen.ir.condition_map import ConditionMap
from pytest_ctgen.ir.lower import lower_unit

UNIT = r"""
int id(int v) { return v; }
int plain(int a, int b) { if (a > 0 && b > 0) return 1; return 0; }
int negated(int a, int b) { return !(!a || !!b); }
int nested(int a, int b, int c) { return id(a && b) || c; }
void statement(int a, int *p) { a && (*p = 3); }
int folded(int a) { int x; if ((x = 5) && a) return 1; return 0; }
int whole(int a) { return a && 0; }
"""


@pytest.fixture(scope="module")
def cfgs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CFG]:
    unit = tmp_path_factory.mktemp("condition_map") / "u.c"
    unit.write_text(UNIT)
    return lower_unit(load_unit(unit, [], probe=False)).cfgs


def _by_column(cfg: CFG) -> dict[tuple[int, int, bool], str]:
    """Each (decision, condition, value) and the label and column of the edge giving it."""
    conditions = cfg.conditions
    assert isinstance(conditions, ConditionMap)
    out = {}
    for edge, values in conditions.exits.items():
        term = cfg.blocks[edge.block].terminator
        assert isinstance(term, Branch)
        for value in values:
            out[value] = f"{term.location.column}:{term.labels()[edge.index]}"
    return out


def test_each_condition_has_an_edge_for_each_value(cfgs: dict[str, CFG]) -> None:
    assert _by_column(cfgs["plain"]) == {
        (0, 0, True): "31:true", (0, 0, False): "31:false",
        (0, 1, True): "40:true", (0, 1, False): "40:false"}
    assert cfgs["plain"].conditions is not None and cfgs["plain"].conditions.mapped == {0}


def test_a_condition_under_not_is_true_on_the_false_edge(cfgs: dict[str, CFG]) -> None:
    assert _by_column(cfgs["negated"]) == {
        (0, 0, False): "39:true", (0, 0, True): "39:false",
        (0, 1, False): "46:true", (0, 1, True): "46:false"}


def test_a_decision_inside_a_condition_is_a_decision_of_its_own(cfgs: dict[str, CFG]) -> None:
    m = cfgs["nested"].conditions
    assert m is not None
    assert [d.text for d in m.decisions] == ["id(a && b) || c", "a && b"]
    assert m.mapped == {0, 1}
    assert {(d, k) for values in m.exits.values() for d, k, _ in values} == {
        (0, 0), (0, 1), (1, 0), (1, 1)}


def test_a_condition_gcc_folds_is_a_constant(cfgs: dict[str, CFG]) -> None:
    for name in ("statement", "folded"):
        m = cfgs[name].conditions
        assert m is not None and m.constants == {(0, 1 if name == "statement" else 0): True}
        assert m.mapped == {0}


def test_a_decision_gcc_folds_whole_is_not_mapped(cfgs: dict[str, CFG]) -> None:
    m = cfgs["whole"].conditions
    assert m is not None and [d.text for d in m.decisions] == ["a && 0"]
    assert m.mapped == frozenset() and m.exits == {}

