"""Stubs of undefined functions and the C library as a unit sees it: pointer results,
globals a stub writes, library functions that are stubbed, string and ctype models, and
calls that end the program. Every case is compiled and run; gcov measures the coverage."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pytest_ctgen.cases import Case, FunctionCases, IntValue, PointerValue
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun, Generated
from pytest_ctgen.pipeline import generate_file

UNIT = r"""
#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct reading { int16_t value; uint8_t valid; };

extern const struct reading *latest(uint8_t channel);   /* NULL without data */
extern void poll_events(void);
extern int transmit(const uint8_t *data, uint16_t length);

volatile uint8_t g_events;     /* the driver sets events: its calls may change it */
uint8_t g_plain;               /* only the unit writes it */

int read_channel(uint8_t channel)
{
    const struct reading *r = latest(channel);
    if (r == NULL) {
        return -1;
    }
    if (!r->valid) {
        return -2;
    }
    return r->value > 1000 ? 1000 : r->value;
}

int wait_for(uint8_t mask)
{
    g_events = 0u;
    g_plain = 0u;
    poll_events();
    if ((g_events & mask) != 0u) {
        return 1;
    }
    if (g_plain != 0u) {      /* no stub writes g_plain: unreachable */
        return 2;
    }
    return 0;
}

int jitter(void)
{
    int r = rand();                  /* a library function without a model: a stub */
    return (r % 100 > 50) ? 1 : 0;
}

int send_word(uint16_t word)
{
    uint8_t bytes[2];
    bytes[0] = (uint8_t)(word >> 8);
    bytes[1] = (uint8_t)word;
    return transmit(bytes, 2u) == 2 ? 0 : -1;
}

int token_kind(const char *s)
{
    char copy[6];
    if (strlen(s) >= sizeof copy) {
        return -1;
    }
    strcpy(copy, s);
    if (isdigit((unsigned char)copy[0])) {
        return 1;
    }
    if (toupper((unsigned char)copy[0]) == 'Q' && tolower((unsigned char)copy[1]) == 'x') {
        return 2;
    }
    if (isspace((unsigned char)copy[0]) || ispunct((unsigned char)copy[0])) {
        return 3;
    }
    return 0;
}

int class_bits(unsigned char c)
{
    return isxdigit(c) + isalpha(c);   /* glibc's table bits, not 0/1 */
}

int prefix(char out[4], const char *in, size_t n)
{
    if (n > 4u) {
        return -1;
    }
    strncpy(out, in, n);
    return out[0] == 'a' && out[n > 1u ? 1u : 0u] == '\0';
}

int must_be_small(int x)
{
    assert(x < 100);
    if (x < 0) {
        exit(3);
    }
    if (x == 42) {
        abort();
    }
    return x;
}
"""

FUNCTIONS = ["read_channel", "wait_for", "jitter", "send_word", "token_kind", "class_bits",
             "prefix", "must_be_small"]


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, FileRun]:
    tmp = tmp_path_factory.mktemp("stubs")
    unit = tmp / "stub_unit.c"
    unit.write_text(UNIT)
    generated = generate_file(unit, "stub_unit.c", Options())
    return generated, FileRun(unit, generated, Options(), tmp / "builds")


def _function(generated: Generated, name: str) -> FunctionCases:
    return next(f for f in generated.cases.functions if f.name == name)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_cases_pass_and_reach_every_feasible_outcome(generated_run, function: str) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, function)
    assert fn.stop_reason == "exhausted", (fn.skip_reason, fn.not_reached)
    for case in fn.cases:
        result = run.run(fn.name, case.number)
        assert result.passed, (case.id, result.message)
    cov = run.coverage()[function]
    unreachable = {(o.line, o.label) for o in fn.unreachable}
    assert cov.branches_covered == cov.branches_total - len(unreachable), (cov, unreachable)


def test_stub_returns_null_or_an_object_it_fills(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "read_channel")
    results = [c.stubs[0].calls[0].returns for c in fn.cases]
    assert PointerValue(None) in results
    pointed = [c for c in fn.cases if c.stubs[0].calls[0].returns != PointerValue(None)]
    assert pointed and all(c.objects for c in pointed)
    assert {c.expected.returns for c in fn.cases} >= {IntValue(-1), IntValue(-2),
                                                      IntValue(1000)}


def test_stub_writes_volatile_globals_only(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "wait_for")
    writes = {w.name for c in fn.cases for s in c.stubs for k in s.calls for w in k.writes}
    assert writes == {"g_events"}
    # g_plain is not the driver's to write: its test stays false, proved
    line = UNIT.splitlines().index("    if (g_plain != 0u) {      /* no stub writes g_plain: "
                                   "unreachable */") + 1
    assert [(o.line, o.label) for o in fn.unreachable] == [(line, "true")]


def test_all_globals_with_stub_globals_all(tmp_path: Path) -> None:
    unit = tmp_path / "stub_unit.c"
    unit.write_text(UNIT)
    options = Options(stub_globals="all", functions=("wait_for",))
    generated = generate_file(unit, "stub_unit.c", options)
    fn = _function(generated, "wait_for")
    assert fn.unreachable == ()
    assert {c.expected.returns for c in fn.cases} == {IntValue(0), IntValue(1), IntValue(2)}
    run = FileRun(unit, generated, options, tmp_path / "builds")
    for case in fn.cases:
        assert run.run(fn.name, case.number).passed


def test_library_function_without_model_is_a_renamed_stub(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    stubs = {s.name: s for s in generated.cases.stubs}
    assert stubs["rand"].library and stubs["rand"].header == "stdlib.h"
    assert not stubs["transmit"].library
    assert "memcpy" not in stubs and "strcpy" not in stubs and "exit" not in stubs


def test_program_ends_are_recorded(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = _function(generated, "must_be_small")
    endings = {(c.expected.ending, c.expected.exit_status) for c in fn.cases}
    assert endings == {(None, None), ("exit", 3), ("abort", None),
                       ("assertion failure", None)}


def test_failure_shows_the_stub_calls_and_their_arguments(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = _function(generated, "send_word")
    case = fn.cases[0]
    # the unit passes the word's bytes; a failing case shows them with each call
    broken = _with_wrong_return(case)
    failing = FileRun(run.path, _replace_case(generated, "send_word", broken), Options(),
                      run.build_dir / "broken")
    result = failing.run("send_word", broken.number)
    assert not result.passed
    assert "stub calls: transmit(0x" in result.message, result.message


def _with_wrong_return(case: Case) -> Case:
    wrong = IntValue(7 if case.expected.returns != IntValue(7) else 8)
    return replace(case, expected=replace(case.expected, returns=wrong))


def _replace_case(generated: Generated, function: str, case: Case) -> Generated:
    functions = tuple(
        replace(f, cases=tuple(case if c.number == case.number else c for c in f.cases))
        if f.name == function else f for f in generated.cases.functions)
    return replace(generated, cases=replace(generated.cases, functions=functions))


MODIFIES_UNIT = r"""
#include "ctgen.h"
#include <stdint.h>

extern void refresh(void);
uint8_t g_mode;
uint8_t g_other;

int mode_after_refresh(void)
{
    __rtt_modifies(g_mode);
    refresh();
    if (g_mode == 3u) {
        return 1;
    }
    if (g_other == 7u) {     /* read only: the stub cannot have changed it */
        return 2;
    }
    return 0;
}

int bad_annotation(void)
{
    __rtt_modifies(g_mode + 1);
    return 0;
}
"""


def test_stubs_write_the_globals_listed_in_rtt_modifies(tmp_path: Path) -> None:
    from pytest_ctgen.c_harness_files import harness_dir

    unit = tmp_path / "modifies.c"
    unit.write_text(MODIFIES_UNIT)
    options = Options(cflags=(f"-I{harness_dir()}",))
    generated = generate_file(unit, "modifies.c", options)
    fn = _function(generated, "mode_after_refresh")
    assert fn.stop_reason == "exhausted" and fn.unreachable == ()
    writes = {w.name for c in fn.cases for s in c.stubs for k in s.calls for w in k.writes}
    assert writes == {"g_mode"}
    run = FileRun(unit, generated, options, tmp_path / "builds")
    for case in fn.cases:
        assert run.run(fn.name, case.number).passed
    assert run.coverage()["mode_after_refresh"].branches_covered == 4
    bad = _function(generated, "bad_annotation")
    assert bad.stop_reason == "skipped"
    line = MODIFIES_UNIT.splitlines().index("    __rtt_modifies(g_mode + 1);") + 1
    assert f"modifies.c:{line}:" in (bad.skip_reason or "")
    assert "__rtt_modifies names a global variable" in (bad.skip_reason or "")


def test_a_stub_the_unit_also_defines_as_a_macro(tmp_path: Path) -> None:
    """`#define sys_call(...) (sys_call)(...)` (a C library's internals, a HAL's wrappers):
    the unit's macro would replace a rename by macro, so the stub is renamed by its symbol;
    the cases play back what the stub returns and pass."""
    (tmp_path / "sys.h").write_text(
        "long sys_call(long number, long argument);\n"
        "#define sys_call(n, a) (sys_call)((n), (a))\n")
    unit = tmp_path / "wrap.c"
    unit.write_text('#include "sys.h"\n'
                    "int wrap(long a)\n{\n    if (sys_call(7, a) < 0)\n        return -1;\n"
                    "    return 0;\n}\n")
    generated = generate_file(unit, "wrap.c", Options())
    (stub,) = generated.cases.stubs
    assert stub.name == "sys_call" and stub.macro
    (fn,) = generated.cases.functions
    assert len(fn.cases) == 2 and fn.stop_reason == "exhausted"
    run = FileRun(unit, generated, Options(), tmp_path / "builds")
    for case in fn.cases:
        result = run.run("wrap", case.number)
        assert result.passed, result.message
    cov = run.coverage()["wrap"]
    assert cov.branches_covered == cov.branches_total == 2
