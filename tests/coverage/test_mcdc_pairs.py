"""coverage/mcdc.py on evaluations written by hand, and frontend/decisions.py on where
decisions are (no compiler run)."""
from __future__ import annotations

from pathlib import Path

from pytest_ctgen.coverage.mcdc import (
    MASKING,
    UNIQUE_CAUSE,
    Evaluation,
    condition_pair,
    function_mcdc,
    masked,
    read_records,
)
from pytest_ctgen.errors import SourceLocation
from pytest_ctgen.frontend.decisions import BoolTree, Condition, Decision, unit_decisions
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.mcdc_instrument import instrument_unit

HERE = SourceLocation("u.c", 1, 1)


def _decision(tree: BoolTree, n: int, function: str = "f", id_: int = 0) -> Decision:
    conditions = tuple(Condition(k, f"c{k}", HERE) for k in range(n))
    return Decision(id_, function, HERE, "", conditions, tree)


def _e(values: str, outcome: int, decision: int = 0) -> Evaluation:
    """`values` as `1`, `0` or `-` (not evaluated) per condition."""
    vector = tuple(None if v == "-" else v == "1" for v in values)
    return Evaluation(decision, vector, bool(outcome))


AND_OR = ("||", ("&&", 0, 1), 2)  # (c0 && c1) || c2


def test_unique_cause_takes_unevaluated_conditions_as_dont_care() -> None:
    d = _decision(AND_OR, 3)
    assert condition_pair(d, 0, [_e("11-", 1), _e("0-0", 0)])[0] == UNIQUE_CAUSE
    # c2 differs and is evaluated in both: no unique cause, and c2 is not masked
    assert condition_pair(d, 0, [_e("11-", 1), _e("0-1", 1), _e("100", 0)])[0] is None


def test_masking_allows_masked_conditions_to_change() -> None:
    d = _decision(AND_OR, 3)
    # c0 changes beside c1 and is not masked (c1 is true in one, c0 false in the other)
    assert condition_pair(d, 1, [_e("110", 1), _e("0-0", 0)])[0] is None
    # (c0 && c1) || (!c2 && c3) with c0 and c2 the same variable: c2 flips the outcome
    # while c0 changes too, masked by c1 false in one evaluation and by the right operand
    # of || true in the other
    mux = _decision(("||", ("&&", 0, 1), ("&&", ("!", 2), 3)), 4)
    pair = [_e("101-", 0), _e("0-01", 1)]
    assert masked(mux.tree, 0, pair[0].values) and masked(mux.tree, 0, pair[1].values)
    assert not masked(mux.tree, 2, pair[0].values)
    assert condition_pair(mux, 2, pair) == (MASKING, (pair[1], pair[0]))  # c2 false first


def test_outcomes_must_differ_and_the_condition_must_be_evaluated_in_both() -> None:
    d = _decision(("&&", 0, 1), 2)
    assert condition_pair(d, 1, [_e("11", 1), _e("0-", 0)])[0] is None
    assert condition_pair(d, 1, [_e("11", 1), _e("10", 1)])[0] is None


def test_function_totals_and_missing() -> None:
    a, b = _decision(("&&", 0, 1), 2), _decision(("||", 0, 1), 2, id_=1)
    cov = function_mcdc(["f", "g"], [a, b], [_e("11", 1), _e("0-", 0), _e("1-", 1, 1)])
    f = cov["f"]
    assert (f.decisions_total, f.conditions_total, f.conditions_shown) == (2, 4, 1)
    assert f.percent == 25.0
    assert [(m.decision.id, m.condition.index) for m in f.missing] == [(0, 1), (1, 0),
                                                                      (1, 1)]
    assert cov["g"].conditions_total == 0 and cov["g"].percent == 100.0


def test_records_are_read_by_tag() -> None:
    d = _decision(("&&", 0, 1), 2, id_=3)
    text = "0 3 1 0 0\n0 3 3 3 1\n1 3 3 1 0\n1 9 1 1 1\n2 3 1"
    assert read_records(text, [d]) == {
        0: {Evaluation(3, (False, None), False), Evaluation(3, (True, True), True)},
        1: {Evaluation(3, (True, False), False)}}


UNIT = r"""
struct s { int x; };
int f(int a, int b, int c)
{
    static int once = 1 && 1;
    int size = sizeof(a && b);
    switch (a) { case 1 && 1: return 0; }
    int r = (a && b) ?: c;
    while (a || b) { a--; b = 0; }
    do { c--; } while (c > 0 && !b);
    for (int i = 0; i < 3 && c; i++) c--;
    g(a && b, c || a);
    return !(a && b) == (c || once) && size;
}
int g(int x, int y) { return x + y; }
"""


def test_where_decisions_are(tmp_path: Path) -> None:
    unit = tmp_path / "u.c"
    unit.write_text("int g(int x, int y);" + UNIT)
    loaded = load_unit(unit, [], probe=False)
    found = [(d.text, d.location.line) for d in unit_decisions(loaded)]
    assert found == [("a && b", 8), ("a || b", 9), ("c > 0 && (!b)", 10), ("i < 3 && c", 11),
                     ("a && b", 12), ("c || a", 12),
                     ("(!(a && b)) == (c || once) && size", 13), ("!(a && b)", 13),
                     ("c || once", 13)]
    copy = instrument_unit(loaded).text
    assert "static int once = 1 && 1;" in copy  # constant contexts stay as they are
    assert "sizeof(a && b)" in copy
    assert "ctgen_mcdc_cond(0, 0, a != 0)" in copy
    assert copy.count("ctgen_mcdc_begin(") == 9
    assert ") ?: (c)" in copy  # `?:` still evaluates its condition once
    assert "#line 14\n" in copy  # the lines after the body stay where they were


def test_annotations_hold_no_decision(tmp_path: Path) -> None:
    unit = tmp_path / "a.c"
    unit.write_text("int f(int a, int b)\n{\n    __rtt_precondition(a > 0 && b > 0);\n"
                    "    return a > 1 || b > 1;\n}\n")
    found = unit_decisions(load_unit(unit, [], probe=False))
    assert [(d.text, d.location.line) for d in found] == [("a > 1 || b > 1", 4)]


def test_annotations_in_a_rewritten_body_are_defined_for_the_run(tmp_path: Path) -> None:
    from pytest_ctgen.codegen.unit_copy import unit_copy_text

    unit = tmp_path / "a.c"
    unit.write_text("int f(int a, int b)\n{\n    __rtt_assert(a < 1000);\n"
                    "    return a > 1 || b > 1;\n}\n")
    text = instrument_unit(load_unit(unit, [], probe=False)).text
    assert "__rtt_assert(a < 1000);" in text  # spelled as the user did
    copy = unit_copy_text(unit, str(unit), (), text=text)
    assert copy is not None and "#define __ctg_assert" in copy
    assert "__ctg_assert(a < 1000);" in copy


def test_a_body_with_auxiliary_variables_is_rewritten_with_them(tmp_path: Path) -> None:
    """An auxiliary annotation variable is written back as the annotation that declares
    it, which the run defines (its checks after the call use it); the body is measured."""
    from pytest_ctgen.codegen.unit_copy import unit_copy_text

    unit = tmp_path / "a.c"
    unit.write_text("int f(int a, int b)\n{\n    __rtt_aux(unsigned long *, seen);\n"
                    "    __rtt_assign(seen = 0);\n    return a > 1 || b > 1;\n}\n")
    instrumented = instrument_unit(load_unit(unit, [], probe=False))
    assert instrumented.not_instrumented == {}
    assert "__rtt_aux(unsigned long *, seen);" in instrumented.text
    assert "ctgen_mcdc_cond(0, 1, (b > 1) != 0)" in instrumented.text
    copy = unit_copy_text(unit, str(unit), (), text=instrumented.text)
    assert copy is not None and "__ctg_aux(unsigned long *, seen);" in copy
