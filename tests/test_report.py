"""The coverage table lists every gcov branch outcome no case covered
(pytest_ctgen.report.table.account_outcomes)."""
from __future__ import annotations

from dataclasses import replace

from pytest_ctgen.cases import STOP_EXHAUSTED, STOP_SKIPPED, Outcome
from pytest_ctgen.report.table import (
    Row, account_outcomes, format_table, row_from_json, row_to_json)


def row(missing: tuple[str, ...], unreachable: tuple[Outcome, ...] = (),
        not_reached: tuple[Outcome, ...] = ()) -> Row:
    return Row(file="u.c", function="f", line=1, cases=1, passed=1, failed=0,
               lines_total=3, lines_covered=3, branches_total=6,
               branches_covered=6 - len(missing), unreachable=unreachable,
               not_reached=not_reached, stop_reason=STOP_EXHAUSTED, generation_seconds=0.1,
               missing_branches=missing)


def test_outcomes_the_generator_lists_account_for_those_gcov_misses() -> None:
    listed = row(("4:1", "7:0"), unreachable=(Outcome(4, 9, "false"),),
                 not_reached=(Outcome(7, 5, "true"),))
    assert account_outcomes(listed).without_goal == ()


def test_gcov_outcomes_beyond_those_listed_on_their_line_are_listed_without_goal() -> None:
    r = account_outcomes(row(("2:0", "2:2", "2:3", "5:1"),
                             unreachable=(Outcome(2, 10, "true"),)))
    assert r.without_goal == ("2:2", "2:3", "5:1")
    line = next(text for text in format_table([r]) if text.startswith("u.c::f"))
    assert "(no goal for gcov branches 2:2, 2:3, 5:1)" in line
    assert row_from_json(row_to_json(r)) == r


def test_skipped_and_unmeasured_functions_are_left_alone() -> None:
    skipped = replace(row(("3:0",)), stop_reason=STOP_SKIPPED, skip_reason="why")
    assert account_outcomes(skipped).without_goal == ()
    unmeasured = replace(row(("3:0",)), measured=False)
    assert account_outcomes(unmeasured).without_goal == ()
