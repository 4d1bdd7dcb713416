"""Annotations of functions under test (issue 5): preconditions assumed, postconditions and
test cases checked by C after every case and targeted by generation, `__rtt_assert`,
ghost variables, `__rtt_modifies`, proof mode, and located annotation errors. Every case
is compiled and run; gcov measures the coverage."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import FunctionCases, IntValue
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun, Generated
from pytest_ctgen.pipeline import generate_file

UNIT = r"""
#include <stdint.h>
#include "ctgen.h"

int32_t level;
int32_t peak;
int32_t log_count;

/* Adds a reading to the level, saturating at 1000; remembers the peak. */
int32_t level_add(int32_t x)
{
    __rtt_modifies(level);
    __rtt_modifies(peak);
    __rtt_precondition(x >= 0 && x <= 1000 && level >= 0 && level <= 1000);
    __rtt_postcondition(level >= __rtt_initial(level) && level <= 1000);
    __rtt_postcondition(__rtt_return == level);
    __rtt_testcase(__rtt_initial(level) + x > 1000, level == 1000, "LVL-1");
    __rtt_testcase(__rtt_initial(level) + x <= 1000, level == __rtt_initial(level) + x,
                   "LVL-2, LVL-3");
    __rtt_testcase(x > 5000, __rtt_return == 0, "LVL-9");
    level = level + x;
    if (level > 1000) {
        level = 1000;
    }
    if (level > peak) {
        peak = level;
    }
    return level;
}

/* Wrong: claims the result never exceeds a. */
int32_t clamp_low(int32_t a, int32_t b)
{
    __rtt_postcondition(__rtt_return <= a);
    if (a < b) {
        return b;
    }
    return a;
}

/* Writes log_count through a pointer, which its modifies list leaves out. */
void note_event(int32_t *counter)
{
    __rtt_modifies(peak);
    __rtt_precondition(counter == &log_count);
    *counter = *counter + 1;
}

/* Counts the set bits of v; the assertion fails for large inputs. */
int32_t bits_set(uint32_t v)
{
    int32_t n = 0;
    __rtt_aux(int, steps);
    __rtt_postcondition(steps <= 32 && __rtt_return <= steps);
    while (v != 0u) {
        __rtt_assert(v < 0x80000000u);
        n += (int32_t)(v & 1u);
        v >>= 1;
        __rtt_assign(steps = steps + 1);
    }
    return n;
}
"""


def _line(text: str) -> int:
    return next(i for i, line in enumerate(UNIT.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, FileRun]:
    tmp = tmp_path_factory.mktemp("annotations")
    unit = tmp / "levels.c"
    unit.write_text(UNIT)
    options = Options()
    generated = generate_file(unit, "levels.c", options)
    return generated, FileRun(unit, generated, options, tmp / "builds")


def _function(generated: Generated, name: str) -> FunctionCases:
    return next(f for f in generated.cases.functions if f.name == name)


def _runs(run: FileRun, fn: FunctionCases) -> dict[str, tuple[bool, str]]:
    out = {}
    for case in fn.cases:
        result = run.run(fn.name, case.number)
        out[case.id] = (result.passed, result.message or "")
    return out


def test_testcases_tag_cases_and_unreachable_pre_is_reported(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "level_add")
    assert fn.stop_reason == "exhausted", fn.skip_reason
    tags = [c.requirements for c in fn.cases]
    assert ("LVL-1",) in tags and ("LVL-2", "LVL-3") in tags
    assert all("LVL-9" not in t for t in tags)
    assert fn.contract is not None
    verdicts = {c.requirements: c.verdict for c in fn.contract.checks if c.kind == "testcase"}
    assert verdicts[("LVL-9",)] == "unreachable"
    # every generated input meets the precondition, and every case passes its checks
    for case in fn.cases:
        x = next(b.value for b in case.params if b.name == "x")
        assert isinstance(x, IntValue) and 0 <= x.value <= 1000
    runs = _runs(run, fn)
    assert all(passed for passed, _ in runs.values()), runs
    cov = run.coverage()["level_add"]
    assert cov.branches_covered == cov.branches_total == 4


def test_wrong_postcondition_gives_a_failing_case_with_the_counterexample(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "clamp_low")
    violating = [c for c in fn.cases if c.violations]
    assert len(violating) >= 1
    case = violating[0]
    a, b = (next(p.value.value for p in case.params if p.name == n)  # type: ignore[union-attr]
            for n in ("a", "b"))
    assert a < b  # the counterexample: the result b exceeds a
    at = f"levels.c:{_line('__rtt_postcondition(__rtt_return <= a)')}"
    assert case.violations[0].kind == "postcondition" and case.violations[0].at.startswith(at)
    runs = _runs(run, fn)
    passed, message = runs[case.id]
    assert not passed
    assert "postcondition __rtt_return <= a" in message and at in message
    # the cases that keep the postcondition pass, and they cover the branches
    assert any(p for cid, (p, _) in runs.items() if cid != case.id)
    assert run.coverage()["clamp_low"].branches_covered == 2


def test_modifies_violation_through_a_pointer_names_the_line_of_the_write(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "note_event")
    assert fn.cases and all(c.violations for c in fn.cases)
    line = _line("*counter = *counter + 1;")
    violation = fn.cases[0].violations[0]
    assert (violation.kind, violation.detail) == ("modifies", "log_count")
    assert violation.at.startswith(f"levels.c:{line}:")
    passed, message = _runs(run, fn)[fn.cases[0].id]
    assert not passed
    assert f"note_event wrote log_count (at levels.c:{line}:" in message
    assert "__rtt_modifies does not list" in message


def test_assert_violation_is_found_and_ghosts_reach_the_postcondition(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "bits_set")
    failing = [c for c in fn.cases if c.expected.ending == "__rtt_assert violation"]
    assert len(failing) == 1
    v = failing[0].params[0].value
    assert isinstance(v, IntValue) and v.value >= 0x80000000
    runs = _runs(run, fn)
    passed, message = runs[failing[0].id]
    assert not passed
    assert f"__rtt_assert(v < 0x80000000u) at levels.c:{_line('__rtt_assert(v <')} " \
           "does not hold" in message
    # the other cases pass: the ghost counter `steps` reached the postcondition's check
    assert all(p for cid, (p, _) in runs.items() if cid != failing[0].id), runs
    cov = run.coverage()["bits_set"]
    assert cov.branches_covered == cov.branches_total == 2  # the assert line is excluded


def test_proof_mode_proves_what_holds_and_adds_robustness_cases(tmp_path: Path) -> None:
    unit = tmp_path / "proof.c"
    unit.write_text(UNIT)
    options = Options(proof=True, functions=("level_add", "clamp_low"))
    generated = generate_file(unit, "proof.c", options)
    level_add = _function(generated, "level_add")
    assert level_add.contract is not None
    posts = [c.verdict for c in level_add.contract.checks if c.kind == "postcondition"]
    assert posts == ["holds", "holds"]
    assert "loops unwound at most" in level_add.contract.bounds
    robust = [c for c in level_add.cases if c.robustness]
    assert robust, "a robustness case violates the precondition"
    run = FileRun(unit, generated, options, tmp_path / "builds")
    for case in robust:  # run without the post checks: they pass
        assert run.run("level_add", case.number).passed
    clamp = _function(generated, "clamp_low")
    assert clamp.contract is not None
    assert [c.verdict for c in clamp.contract.checks] == ["violated"]


@pytest.mark.parametrize("body, message, column_of", [
    ("__rtt_postcondition(i == 0);", "'i' is a local variable", "i == 0"),
    ("if (x) { __rtt_precondition(x > 0); }", "__rtt_precondition belongs at the top level",
     "__rtt_precondition"),
    ('__rtt_testcase(x > 0, x < 9);', "__rtt_testcase takes a pre, a post and a string",
     "__rtt_testcase"),
    ('__rtt_testcase(x > 0, x < 9, "REQ 1");', "malformed requirement ids", '"REQ 1"'),
    ("__rtt_assert(nope > 0);", "'nope' undeclared", "nope"),
    # the column is that of the expanded `__rtt_aux` declaration: not checked
    ("__rtt_aux(int, ghost); if (ghost) return 1;", "auxiliary variable 'ghost' belongs in "
     "annotations only", None),
])
def test_annotation_errors_are_located(tmp_path: Path, body: str, message: str,
                                       column_of: str | None) -> None:
    text = f'#include "ctgen.h"\nint f(int x)\n{{\n    int i = 0;\n    {body}\n    return i;\n}}\n'
    unit = tmp_path / "bad.c"
    unit.write_text(text)
    generated = generate_file(unit, "bad.c", Options())
    fn = generated.cases.functions[0]
    assert fn.stop_reason == "skipped"
    where = "bad.c:5:"
    if column_of is not None:
        where += f"{text.splitlines()[4].index(column_of) + 1}: "
    assert fn.skip_reason is not None and where in fn.skip_reason, fn.skip_reason
    assert message in fn.skip_reason


def test_a_header_defining_the_annotations_as_no_ops_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "ctgen.h").write_text(
        "#define __rtt_precondition(...)\n#define __rtt_postcondition(...)\n"
        "#define __rtt_testcase(...)\n#define __rtt_modifies(...)\n"
        "#define __rtt_assert(...)\n#define __rtt_aux(...)\n#define __rtt_assign(...)\n"
        "#define __rtt_initial(x) (x)\n#define __rtt_return 0\n")
    unit = tmp_path / "levels.c"
    unit.write_text(UNIT)
    options = Options(cflags=(f"-I{tmp_path}",), functions=("clamp_low",))
    generated = generate_file(unit, "levels.c", options)
    fn = _function(generated, "clamp_low")
    assert any(c.violations for c in fn.cases)
    run = FileRun(unit, generated, options, tmp_path / "builds")
    results = _runs(run, fn)
    # a case fails exactly when the generator predicted it violates the postcondition
    assert {c.id: not c.violations for c in fn.cases} == \
        {cid: passed for cid, (passed, _) in results.items()}
    assert any(passed for passed, _ in results.values())


def test_proof_mode_proves_nothing_past_a_finding(tmp_path: Path) -> None:
    """What the compiled code does after undefined behaviour is not modelled: a
    postcondition no case violates is not 'holds' when a case runs into a finding."""
    unit = tmp_path / "pick.c"
    unit.write_text('#include "ctgen.h"\n'
                    "static const int k_table[4] = {1, 2, 3, 4};\n"
                    "int pick(unsigned i)\n{\n    __rtt_postcondition(__rtt_return > 0);\n"
                    "    return k_table[i];\n}\n")
    generated = generate_file(unit, "pick.c", Options(proof=True))
    pick = _function(generated, "pick")
    assert any(c.finding for c in pick.cases), pick.cases
    assert pick.contract is not None
    assert [c.verdict for c in pick.contract.checks] == [""], pick.contract.checks
