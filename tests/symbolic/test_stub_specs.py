"""Stub specifications (`__rtt_extern()` definitions): what the generator assumes of the
stub (postconditions), what it assumes and the run checks of the arguments
(preconditions), the violations it finds, and errors in specifications. Every case is
compiled and run; gcov measures the coverage."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pytest_ctgen.cases import FunctionCases, IntValue
from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun, Generated
from pytest_ctgen.pipeline import generate_file

UNIT = r"""
#include <stdint.h>
#include "ctgen.h"

int32_t queued;

/* The ADC driver: channels 0..7, 12-bit samples. */
uint16_t adc_sample(uint8_t channel)
{
    __rtt_extern();
    __rtt_precondition(channel < 8);
    __rtt_postcondition(__rtt_return <= 4095);
    return 0;
}

/* A queue driver: 0 and one more element, or an error and none. */
static int queue_push(int item)
{
    __rtt_extern();
    __rtt_modifies(queued);
    __rtt_precondition(item != 0 && queued < 16);
    __rtt_postcondition(__rtt_return == 0 ? queued == __rtt_initial(queued) + 1
                                          : queued == __rtt_initial(queued));
    return 0;
}

int scaled_reading(uint8_t channel)
{
    uint16_t raw;
    if (channel >= 8) {
        return -1;
    }
    raw = adc_sample(channel);
    if (raw > 4095) {        /* beyond 12 bits: unreachable */
        return -2;
    }
    if (raw > 4000) {
        return 1000;
    }
    return raw / 4;
}

int push_two(int a, int b)
{
    queued = 0;
    if (a == 0 || b == 0) {
        return -1;
    }
    if (queue_push(a) != 0) {
        return 1;
    }
    if (queue_push(b) != 0) {
        return 2;
    }
    if (queued != 2) {       /* two successful pushes: unreachable */
        return 3;
    }
    return 0;
}

int unchecked(uint8_t channel)
{
    uint16_t v = adc_sample(channel);   /* channel is not checked */
    return v > 2000 ? 1 : -1;  /* `? 1 : 0` would be no branch: gcc folds it to `v > 2000` */
}
"""

FLAGS = (f"-I{harness_dir()}",)


def _line(text: str) -> int:
    return next(i for i, line in enumerate(UNIT.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, FileRun]:
    tmp = tmp_path_factory.mktemp("specs")
    unit = tmp / "spec_unit.c"
    unit.write_text(UNIT)
    options = Options(cflags=FLAGS)
    generated = generate_file(unit, "spec_unit.c", options)
    return generated, FileRun(unit, generated, options, tmp / "builds")


def _function(generated: Generated, name: str) -> FunctionCases:
    return next(f for f in generated.cases.functions if f.name == name)


def test_specifications_are_stubs_not_functions_under_test(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    assert [f.name for f in generated.cases.functions] == [
        "scaled_reading", "push_two", "unchecked"]
    stubs = {s.name: s for s in generated.cases.stubs}
    assert stubs["adc_sample"].specified_in_unit and not stubs["adc_sample"].static
    assert stubs["adc_sample"].preconditions == (
        ("channel < 8", f"spec_unit.c:{_line('__rtt_precondition(channel < 8)')}"),)
    assert stubs["queue_push"].static


@pytest.mark.parametrize("function, unreachable", [
    ("scaled_reading", [(_line("beyond 12 bits"), "true")]),
    ("push_two", [(_line("two successful pushes"), "true")]),
])
def test_postconditions_narrow_the_stub(generated_run, function: str,  # type: ignore[no-untyped-def]
                                        unreachable: list[tuple[int, str]]) -> None:
    generated, run = generated_run
    fn = _function(generated, function)
    assert fn.stop_reason == "exhausted", (fn.skip_reason, fn.not_reached)
    assert [(o.line, o.label) for o in fn.unreachable] == unreachable
    for case in fn.cases:
        result = run.run(fn.name, case.number)
        assert result.passed, (case.id, result.message)
    cov = run.coverage()[function]
    assert cov.branches_covered == cov.branches_total - len(unreachable), cov
    returns = {c.stubs[0].calls[0].returns for c in fn.cases if c.stubs}
    assert all(isinstance(r, IntValue) for r in returns)
    if function == "scaled_reading":
        assert all(r.value <= 4095 for r in returns)  # type: ignore[union-attr]


def test_violated_precondition_is_a_failing_case_with_its_location(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "unchecked")
    violations = [c for c in fn.cases if c.expected.ending == "precondition violation"]
    assert len(violations) == 1
    case = violations[0]
    channel = case.params[0].value
    assert isinstance(channel, IntValue) and channel.value >= 8
    result = run.run(fn.name, case.number)
    assert not result.passed
    line = _line("__rtt_precondition(channel < 8)")
    assert f"call 1 of adc_sample: precondition channel < 8 (spec_unit.c:{line}) does not " \
           f"hold" in result.message, result.message
    assert f"adc_sample({channel.value})" in result.message
    others = [c for c in fn.cases if c is not case]
    assert len(others) == 2
    for other in others:
        assert run.run(fn.name, other.number).passed
    # checked callers never violate it: no such case
    assert not any(c.expected.ending for c in _function(generated, "scaled_reading").cases)


def test_predicted_violation_that_does_not_happen_fails(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "unchecked")
    case = next(c for c in fn.cases if c.expected.ending == "precondition violation")
    valid = replace(case, params=(replace(case.params[0], value=IntValue(3)),))
    functions = tuple(replace(f, cases=tuple(valid if c is case else c for c in f.cases))
                      if f.name == fn.name else f for f in generated.cases.functions)
    changed = replace(generated, cases=replace(generated.cases, functions=functions))
    result = FileRun(run.path, changed, run.options, run.build_dir / "changed").run(
        fn.name, case.number)
    assert not result.passed
    assert "predicted the call violated the precondition of a stub, observed it returned" \
        in result.message, result.message


BAD_SPECS = r"""
#include "ctgen.h"
int ext_a(int x)
{
    if (x) {
        __rtt_extern();
    }
    return 0;
}
int ext_b(int x)
{
    __rtt_extern();
    __rtt_precondition(__rtt_return > x);
    return 0;
}
int ext_c(int x)
{
    __rtt_extern();
    __rtt_postcondition(__rtt_return == x++);
    return 0;
}
int use_a(int x) { return ext_a(x) ? 1 : 0; }
int use_b(int x) { return ext_b(x) ? 1 : 0; }
int use_c(int x) { return ext_c(x) ? 1 : 0; }
"""


# Annotations reach the parser as written (same-length reserved names), so columns are the
# user's, except where gcc -E collapses runs of blanks.
@pytest.mark.parametrize("function, message, place", [
    ("use_a", "__rtt_extern() belongs at the top level of the function's body", "6:9"),
    ("use_b", "__rtt_return belongs in the postcondition of a function that returns a value",
     "13:"),
    ("use_c", "an annotation cannot call functions or assign", "19:"),
])
def test_errors_in_specifications_are_located(tmp_path: Path, function: str, message: str,
                                              place: str) -> None:
    unit = tmp_path / "bad_specs.c"
    unit.write_text(BAD_SPECS)
    generated = generate_file(unit, "bad_specs.c", Options(cflags=FLAGS))
    fn = _function(generated, function)
    assert fn.stop_reason == "skipped"
    reason = fn.skip_reason or ""
    assert f"calls 'ext_{function[-1]}', which is not supported: " in reason
    assert f"bad_specs.c:{place}" in reason.split("not supported: ")[1], reason
    assert message in reason
