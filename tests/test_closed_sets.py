"""The closed sets of cases.py and options.py: each is a Literal type whose values are
written into exports, reports and the command line, so they are pinned here; the named
constants belong to their sets and the options default to the first of their values."""
from __future__ import annotations

from pytest_ctgen import cases
from pytest_ctgen.options import (
    BOUNDARY_CASES_VALUES,
    CRITERION_VALUES,
    GOAL_SCOPE_VALUES,
    ISOLATION_VALUES,
    LEAKS_VALUES,
    SIGNED_OVERFLOW_VALUES,
    STUB_GLOBALS_VALUES,
    Options,
)


def test_the_stop_reasons_and_their_names() -> None:
    assert set(cases.STOP_REASONS) == {
        "exhausted", "depth bound", "time budget", "memory limit", "work budget",
        "solver limit", "unsupported", "approximation", "skipped"}
    named = {getattr(cases, name) for name in dir(cases) if name.startswith("STOP_")
             and name != "STOP_REASONS"}
    assert named == cases.STOP_REASONS


def test_the_endings_and_the_program_ends() -> None:
    assert set(cases.ENDINGS) == {
        "exit", "abort", "assertion failure", "precondition violation",
        "__rtt_assert violation", "undefined behaviour", "loop stop"}
    assert cases.UNDEFINED_BEHAVIOUR in cases.ENDINGS
    assert cases.LOOP_STOP in cases.ENDINGS
    assert set(cases.PROGRAM_ENDS.values()) <= cases.ENDINGS


def test_the_kinds_of_checks_and_violations_and_the_verdicts() -> None:
    assert set(cases.CHECK_KINDS) == {"postcondition", "testcase", "assert", "modifies"}
    assert cases.UNDEFINED == "undefined"
    assert cases.LEAK == "leak"
    assert set(cases.VIOLATION_KINDS) == cases.CHECK_KINDS | {cases.UNDEFINED, cases.LEAK}
    assert set(cases.VERDICTS) == {"", "violated", "holds", "unreachable"}
    assert set(cases.MCDC_VERDICTS) == {"infeasible", "masking", "not reached"}
    assert set(cases.ARGUMENT_KINDS) == {
        "signed", "unsigned", "float", "pointer", "function", "other"}


def test_the_values_of_the_closed_set_options_default_first() -> None:
    assert CRITERION_VALUES == ("branch", "statement", "mcdc")
    assert STUB_GLOBALS_VALUES == ("modifies", "all")
    assert SIGNED_OVERFLOW_VALUES == ("note", "finding")
    assert LEAKS_VALUES == ("note", "fail")
    assert ISOLATION_VALUES == ("fork", "none")
    assert GOAL_SCOPE_VALUES == ("function", "reached")
    assert BOUNDARY_CASES_VALUES == ("on", "off")
    defaults = Options()
    assert (defaults.criterion, defaults.stub_globals, defaults.signed_overflow,
            defaults.isolate, defaults.goals, defaults.boundary_cases, defaults.leaks) == (
        CRITERION_VALUES[0], STUB_GLOBALS_VALUES[0], SIGNED_OVERFLOW_VALUES[0],
        ISOLATION_VALUES[0], GOAL_SCOPE_VALUES[0], BOUNDARY_CASES_VALUES[0], LEAKS_VALUES[0])
