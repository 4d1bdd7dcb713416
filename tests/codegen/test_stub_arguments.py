"""The stub calls a case predicts in order with their arguments (`Expected.calls`): their
JSON round-trips, an export written before them reads back without them (and replays
as before: counts only), and the harness records each call's arguments in the stub and
checks them, call by call, after the call of the function under test; so also what a
pointer argument points to when the stub is called (`PredictedCall.contents`)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import (
    ArrayValue,
    Binding,
    Case,
    Expected,
    FileCases,
    FloatValue,
    FunctionCases,
    FunctionSignature,
    IntValue,
    PointerValue,
    PredictedCall,
    StubPrototype,
)
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.codegen.case_functions import case_lines
from pytest_ctgen.codegen.stubs import received_lines, record_call_lines
from pytest_ctgen.export_schema import SchemaError

SPI = StubPrototype("spi_write", "void spi_write(uint8_t reg, uint8_t value)",
                    params=(("reg", "unsigned"), ("value", "unsigned")))
LOG = StubPrototype("log_value", "void log_value(const char *tag, float v, int (*f)(int), "
                    "short level, ...)",
                    params=(("tag", "pointer"), ("v", "float"), ("f", "function"),
                            ("level", "signed"), ("...", "...")))
CALLS = (PredictedCall("spi_write", (("reg", IntValue(31)), ("value", IntValue(2)))),
         PredictedCall("log_value", (("tag", PointerValue("*")),
                                     ("v", FloatValue.of(1.5, 4)),
                                     ("level", IntValue(-3)))),
         PredictedCall("spi_write", (("reg", IntValue(30)), ("value", IntValue(0)))))


def _file(calls: tuple[PredictedCall, ...] | None = CALLS) -> FileCases:
    expected = Expected(None, stub_call_counts=(("log_value", 1), ("spi_write", 2)),
                        calls=calls)
    case = Case("setup", 1, (), (), expected)
    return FileCases("u.c", (FunctionCases("setup", 3, "void setup(void)", (case,),
                                           "exhausted"),), stubs=(SPI, LOG))


def test_predicted_calls_round_trip_in_order() -> None:
    text = file_cases_to_json(_file())
    expected = json.loads(text)["functions"][0]["cases"][0]["expected"]
    assert expected["calls_in_order"] == [
        {"stub": "spi_write", "arguments": {"reg": 31, "value": 2}},
        {"stub": "log_value", "arguments": {"tag": {"@pointer": "*", "offset": 0},
                                            "v": {"float": 1.5}, "level": -3}},
        {"stub": "spi_write", "arguments": {"reg": 30, "value": 0}}]
    assert file_cases_from_json(text) == _file()


def test_an_export_without_them_reads_back_and_checks_counts_only() -> None:
    doc = json.loads(file_cases_to_json(_file()))
    del doc["functions"][0]["cases"][0]["expected"]["calls_in_order"]
    fc = file_cases_from_json(json.dumps(doc))
    assert fc == _file(None)
    [case] = fc.functions[0].cases
    text = "\n".join(case_lines(0, case, FunctionSignature("void @(void)", None),
                                {"spi_write": SPI, "log_value": LOG}))
    assert "ctgen_calls_spi_write, 2);" in text
    assert "ctgen_logged_call" not in text and "ctgen_check_call_total" not in text


def test_the_case_checks_each_call_and_argument_in_order() -> None:
    [case] = _file().functions[0].cases
    lines = [line.strip() for line in case_lines(
        0, case, FunctionSignature("void @(void)", None), {"spi_write": SPI, "log_value": LOG})]
    start = lines.index('if ((ctgen_a = ctgen_logged_call(ctgen_c, 0, "spi_write", 0)) != 0) {')
    assert lines[start:] == [
        'if ((ctgen_a = ctgen_logged_call(ctgen_c, 0, "spi_write", 0)) != 0) {',
        'ctgen_check_int(ctgen_c, "call 1 of spi_write: argument reg", ctgen_a[0].u, 31);',
        'ctgen_check_int(ctgen_c, "call 1 of spi_write: argument value", ctgen_a[1].u, 2);',
        "}",
        'if ((ctgen_a = ctgen_logged_call(ctgen_c, 1, "log_value", 0)) != 0) {',
        # a pointer into what the case cannot name (a local): only non-NULL is checked
        'ctgen_check_nonnull(ctgen_c, "call 1 of log_value: argument tag", '
        "(ctgen_a[0].p) != 0);",
        'ctgen_check_float(ctgen_c, "call 1 of log_value: argument v", (float)ctgen_a[1].f, '
        "1.5f);",
        'ctgen_check_int(ctgen_c, "call 1 of log_value: argument level", ctgen_a[3].s, (-3));',
        "}",
        'if ((ctgen_a = ctgen_logged_call(ctgen_c, 2, "spi_write", 1)) != 0) {',
        'ctgen_check_int(ctgen_c, "call 2 of spi_write: argument reg", ctgen_a[0].u, 30);',
        'ctgen_check_int(ctgen_c, "call 2 of spi_write: argument value", ctgen_a[1].u, 0);',
        "}",
        "ctgen_check_call_total(ctgen_c, 3);",
        "(void)ctgen_a;",
        "}",
        "(void)ctgen_c;",
        "}"]


def test_no_call_predicted_checks_that_none_is_made() -> None:
    [case] = _file(()).functions[0].cases
    case = replace(case, expected=replace(case.expected, stub_call_counts=()))
    text = "\n".join(case_lines(0, case, FunctionSignature("void @(void)", None),
                                {"spi_write": SPI}))
    assert "ctgen_check_call_total(ctgen_c, 0);" in text


def test_the_stub_records_the_arguments_a_case_checks() -> None:
    assert record_call_lines(SPI) == [
        "{", '    ctgen_arg *ctgen_a = ctgen_record_call("spi_write", 2);',
        "    if (ctgen_a) {",
        "        ctgen_a[0].u = (unsigned long long)reg;",
        "        ctgen_a[1].u = (unsigned long long)value;", "    }", "}"]
    # a function pointer and the variadic arguments are not recorded
    assert record_call_lines(LOG)[1:7] == [
        '    ctgen_arg *ctgen_a = ctgen_record_call("log_value", 4);', "    if (ctgen_a) {",
        "        ctgen_a[0].p = (const void *)tag;", "        ctgen_a[1].f = (double)v;",
        "        ctgen_a[3].s = (long long)level;", "    }"]
    none = StubPrototype("tick", "void tick(void)")
    assert record_call_lines(none) == ['(void)ctgen_record_call("tick", 0);']


@pytest.mark.parametrize("call, message", [
    (PredictedCall("spi_write", (("f", IntValue(1)),)), r"\"f\" is not a parameter"),
    (PredictedCall("log_value", (("f", IntValue(1)),)),
     "an argument of kind function is not checked"),
    (PredictedCall("log_value", (("v", IntValue(1)),)), "expected the value of a float"),
    (PredictedCall("log_value", (("level", IntValue(1 << 63)),)), "out of range"),
])
def test_a_call_the_stub_cannot_check_is_refused(call: PredictedCall, message: str) -> None:
    fc = _file()
    [case] = fc.functions[0].cases
    calls = (call, *CALLS[1:])
    bad = replace(fc, functions=(replace(fc.functions[0], cases=(
        replace(case, expected=replace(case.expected, calls=calls)),)),))
    with pytest.raises(SchemaError, match=message) as err:
        file_cases_from_json(file_cases_to_json(bad))
    assert err.value.where.startswith("functions[0].cases[0].expected.calls_in_order[0]")


#: A call of log_value whose `tag` pointed to the text "ok" when it was called.
TAGGED = PredictedCall("log_value", (("tag", PointerValue("*")),),
                       (Binding("tag", "char @[3]", ArrayValue((IntValue(111), IntValue(107),
                                                                IntValue(0)))),))


def _tagged(call: PredictedCall = TAGGED) -> FileCases:
    return _file((CALLS[0], call, CALLS[2]))


def test_what_a_pointer_argument_points_to_round_trips() -> None:
    text = file_cases_to_json(_tagged())
    [_, logged, _] = json.loads(text)["functions"][0]["cases"][0]["expected"]["calls_in_order"]
    assert logged["contents"] == [{"name": "tag", "declaration": "char @[3]",
                                   "value": [111, 107, 0]}]
    assert file_cases_from_json(text) == _tagged()


def test_the_stub_keeps_what_it_is_given_and_the_case_compares_it() -> None:
    """The stub copies the bytes at its call (before a script writes through the
    pointer); the case compares them after its call (as characters where the unit shows
    the type as text: tests/plugin/test_plugin_stub_arguments.py)."""
    fc = _tagged()
    [case] = fc.functions[0].cases
    stub = "\n".join(line.strip() for line in received_lines(LOG, [case, case]))
    assert stub.split("\n") == [
        "switch (ctgen_current_case) {", "case 0: /* setup[case1] */", "switch (ctgen_k) {",
        "case 0:", "ctgen_record_bytes(0, (const void *)tag, sizeof (char [3]));", "break;",
        "default: break;", "}", "break;",
        "case 1: /* setup[case1] */", "switch (ctgen_k) {",
        "case 0:", "ctgen_record_bytes(0, (const void *)tag, sizeof (char [3]));", "break;",
        "default: break;", "}", "break;", "default: break;", "}"]
    assert received_lines(SPI, [case]) == []  # nothing of spi_write's is a pointer
    lines = [line.strip() for line in case_lines(
        0, case, FunctionSignature("void @(void)", None), {"spi_write": SPI, "log_value": LOG})]
    start = lines.index('if ((ctgen_a = ctgen_logged_call(ctgen_c, 1, "log_value", 0)) != 0) {')
    assert lines[start + 1:start + 10] == [
        'ctgen_check_nonnull(ctgen_c, "call 1 of log_value: argument tag", '
        "(ctgen_a[0].p) != 0);",
        "{", "char ctgen_v[3];",
        'if (ctgen_received(ctgen_c, 1, 0, ctgen_v, sizeof ctgen_v, '
        '"call 1 of log_value: tag")) {',
        'ctgen_check_int(ctgen_c, "call 1 of log_value: tag[0]", ctgen_v[0], 111);',
        'ctgen_check_int(ctgen_c, "call 1 of log_value: tag[1]", ctgen_v[1], 107);',
        'ctgen_check_int(ctgen_c, "call 1 of log_value: tag[2]", ctgen_v[2], 0);',
        "}", "}"]


@pytest.mark.parametrize("contents, message", [
    ((Binding("level", "char @[3]", ArrayValue((IntValue(1),) * 3)),),
     r"contents\[0\]\.name: level is not a pointer parameter of log_value"),
    ((Binding("tag", "char @", IntValue(1)),),
     r"contents\[0\]\.declaration: expected an array of at most 256 bytes, found \"char @\""),
    ((Binding("tag", "char @[257]", ArrayValue((IntValue(1),) * 257)),),
     r"expected an array of at most 256 bytes, found \"char @\[257\]\""),
    (TAGGED.contents * 2, r"contents\[1\]\.name: lists what tag points to twice"),
    ((Binding("tag", "char @[3]", ArrayValue((IntValue(1000),) * 3)),), "out of range"),
])
def test_contents_a_stub_cannot_have_been_given_are_refused(
        contents: tuple[Binding, ...], message: str) -> None:
    with pytest.raises(SchemaError, match=message) as err:
        file_cases_from_json(file_cases_to_json(_tagged(replace(TAGGED, contents=contents))))
    assert err.value.where.startswith("functions[0].cases[0].expected.calls_in_order[1]")


def test_more_than_the_runtime_keeps_of_a_case_is_refused() -> None:
    """What a case's calls are given is at most CTGEN_MAX_STUB_BYTES (4096) bytes: each
    byte is a check the harness compiles."""
    given = (Binding("tag", "char @[256]", ArrayValue((IntValue(65),) * 256)),)
    calls = (replace(TAGGED, contents=given),) * 17
    fc = _file(calls)
    [case] = fc.functions[0].cases
    case = replace(case, expected=replace(case.expected,
                                          stub_call_counts=(("log_value", 17),)))
    fc = replace(fc, functions=(replace(fc.functions[0], cases=(case,)),))
    with pytest.raises(SchemaError, match=r"predicts 4352 bytes that stub calls are given, "
                                          r"more than the 4096 the harness keeps") as err:
        file_cases_from_json(file_cases_to_json(fc))
    assert err.value.where == "functions[0].cases[0].expected.calls_in_order[16].contents"
    fc16 = replace(fc, functions=(replace(fc.functions[0], cases=(replace(
        case, expected=replace(case.expected, calls=calls[:16],
                               stub_call_counts=(("log_value", 16),))),)),))
    assert file_cases_from_json(file_cases_to_json(fc16)) == fc16
