"""The stub calls a case predicts in order with their arguments (`Expected.calls`): their
JSON round-trips, an export written before them reads back without them (and replays
as before: counts only), and the harness records each call's arguments in the stub and
checks them, call by call, after the call of the function under test."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pytest_ctgen.case_reader import file_cases_from_json
from pytest_ctgen.cases import (
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
from pytest_ctgen.codegen.stubs import record_call_lines
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
