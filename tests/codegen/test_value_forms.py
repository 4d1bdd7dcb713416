"""Integers as a case shows them (value_forms.py): an enum's value by its enumerator's name,
a mask in hex, in the export's JSON (read back to the same values, the enumerator's value
taken from the unit's enum), in failure messages and in the driver's C; crafted forms
refused with their field named; exports of plain numbers read as before, in these forms."""
from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_ctgen.case_writer import value_text, value_to_json
from pytest_ctgen.cases import (
    Case,
    Expected,
    IntForm,
    IntValue,
    PredictedCall,
    RecordValue,
    Value,
)
from pytest_ctgen.codegen.c_values import c_int_expr, initializer
from pytest_ctgen.codegen.checks import check_statements, enum_tables
from pytest_ctgen.export_schema import Field, SchemaError
from pytest_ctgen.value_forms import int_text, shaped
from pytest_ctgen.value_reader import ValueScope, read_value
from pytest_ctgen.value_shapes import Shape, UnitShapes, as_mask, template_shape

MODE = IntForm(enumerators=(("M_OFF", 0), ("M_ON", 1), ("M_RUN", 1), ("M_NEG", -1)))
SHAPES = UnitShapes(
    types={"mode_t": Shape("int", -(1 << 31), (1 << 31) - 1, form=MODE),
           "struct regs": Shape("any", members=(
               ("mode", Shape("int", -(1 << 31), (1 << 31) - 1, form=MODE)),
               ("ctrl", as_mask(template_shape("uint16_t @"))),
               ("n", template_shape("uint8_t @"))))},
    mask_params={"poll": frozenset({"reg", "buf"})},
    mask_globals=frozenset({"g_ctrl"}),
    mask_results=frozenset({"poll", "read_dr"}))


def _read(j: Any, shape: Shape) -> Value:
    return read_value(Field(j, "value"), shape, ValueScope())


def round_trip(v: Value, shape: Shape) -> Any:
    """The JSON of `v` with the forms of `shape`, after checking that it reads back equal,
    in the same forms, and writes the same again."""
    v = shaped(v, shape)
    j = value_to_json(v)
    back = _read(json.loads(json.dumps(j)), shape)
    assert back == v
    assert value_to_json(back) == j and value_text(back) == value_text(v)
    return j


@pytest.mark.parametrize("value, j, text", [
    (0, {"@enum": "M_OFF"}, "M_OFF"),
    (1, {"@enum": "M_ON"}, "M_ON"),  # two enumerators of the value: the first declared
    (-1, {"@enum": "M_NEG"}, "M_NEG"),
    (7, 7, "7"),  # no enumerator has it: a number
])
def test_an_enums_value_is_its_enumerators_name(value: int, j: Any, text: str) -> None:
    shape = SHAPES.shape("mode_t @")
    assert round_trip(IntValue(value), shape) == j
    assert value_text(shaped(IntValue(value), shape)) == text
    assert c_int_expr(shaped(IntValue(value), shape)) == (text if value != 7 else "7")


@pytest.mark.parametrize("template, name, role, function, value, j", [
    ("uint16_t @", "reg", "param", "poll", 0x80, "0x0080"),  # to the type's width
    ("uint16_t @", "reg", "param", "other", 0x80, 128),  # a mask in poll only
    ("uint32_t @", "g_ctrl", "global", "", 0, "0x00000000"),
    ("uint64_t @", "g_ctrl", "global", "", (1 << 64) - 1, "0xffffffffffffffff"),
    ("uint8_t @[3]", "ctgen_obj_buf", "object", "poll", [1, 0x80, 0xFF],
     ["0x01", "0x80", "0xff"]),  # what a mask parameter points to
    ("int16_t @", "reg", "param", "poll", -2, -2),  # signed: no hex
    ("_Bool @", "reg", "param", "poll", 1, 1),
    ("char @", "reg", "param", "poll", 65, 65),
])
def test_a_masks_value_is_in_hex(template: str, name: str, role: Any, function: str,
                                 value: Any, j: Any) -> None:
    v: Value = IntValue(value) if isinstance(value, int) else \
        read_value(Field(value, "v"), template_shape(template), ValueScope())
    assert round_trip(v, SHAPES.binding(template, name, role, function)) == j


def test_results_and_members_have_their_forms() -> None:
    assert round_trip(IntValue(0x1F), SHAPES.result("poll", "uint32_t @")) == "0x0000001f"
    assert round_trip(IntValue(0x1F), SHAPES.result("other", "uint32_t @")) == 31
    regs = RecordValue((("mode", IntValue(1)), ("ctrl", IntValue(0x0F0)), ("n", IntValue(3))))
    shape = SHAPES.shape("struct regs @")
    assert round_trip(regs, shape) == {"mode": {"@enum": "M_ON"}, "ctrl": "0x00f0", "n": 3}
    assert value_text(shaped(regs, shape)) == '{"mode": M_ON, "ctrl": 0x00f0, "n": 3}'
    assert initializer(shaped(regs, shape)) == "{ .mode = M_ON, .ctrl = 0x00f0, .n = 3 }"


def test_old_exports_numbers_read_in_the_units_forms() -> None:
    """An export written before these forms gives numbers: they read as they did, and
    show as names and hex."""
    v = _read(1, SHAPES.shape("mode_t @"))
    assert v == IntValue(1) and value_text(v) == "M_ON" and value_to_json(v) == {"@enum": "M_ON"}
    v = _read(255, SHAPES.binding("uint16_t @", "reg", "param", "poll"))
    assert v == IntValue(255) and value_text(v) == "0x00ff"
    v = _read({"mode": 0, "ctrl": 16, "n": 2}, SHAPES.shape("struct regs @"))
    assert value_text(v) == '{"mode": M_OFF, "ctrl": 0x0010, "n": 2}'
    # hex reads also where the reader knows no more than an integer
    assert _read("0x10", template_shape("uint8_t @")) == IntValue(16)


@pytest.mark.parametrize("j, template, message", [
    ({"@enum": "M_NOPE"}, "mode_t @",
     r"^value\.@enum: M_NOPE is not an enumerator of the value's enum type "
     r"\(M_OFF, M_ON, M_RUN, M_NEG\)"),
    ({"@enum": 'M_ON); system("x'}, "mode_t @", r"^value\.@enum: .* is not a C identifier"),
    ({"@enum": 1}, "mode_t @", r"^value\.@enum: expected a string, found an integer"),
    ({"@enum": "M_ON", "value": 1}, "mode_t @", r"^value: an enumerator is .* alone"),
    ({"@enum": "M_ON"}, "int @", r"^value\.@enum: M_ON names an enumerator, but the value's "
                                 r"type is no enum the unit declares"),
    ({"@enum": "M_ON"}, "other_t @", r"^value\.@enum: M_ON names an enumerator"),
    ({"@enum": "M_ON"}, "mode_t *@", r"^value: expected a pointer, found an enumerator"),
    ("0x1ff", "uint8_t @", r"^value: 0x1ff is out of range \[0, 255\]"),
    ("0x-1", "uint8_t @", r"^value: not a case value: \"0x-1\""),
    ("0x1); system(1", "uint8_t @", r"^value: not a case value"),
    ("255", "uint8_t @", r"^value: not a case value: \"255\""),
    ("0x10", "uint8_t *@", r"^value: expected a pointer, found an integer"),
    ("0x10", "double @", r"^value: expected a double, found an integer"),
])
def test_a_crafted_form_is_refused_with_its_field(j: Any, template: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        _read(j, SHAPES.shape(template))


def test_the_checks_name_enumerators_and_print_masks_in_hex() -> None:
    mode = shaped(IntValue(1), SHAPES.shape("mode_t @"))
    mask = shaped(IntValue(0xFFFFFFFF), SHAPES.result("poll", "uint32_t @"))
    assert check_statements("c", "return", "r", mode) == [
        'ctgen_check_enum(c, "return", r, M_ON, ctgen_enum_M_OFF);']
    assert check_statements("c", "g", "g", mask) == [
        'ctgen_check_hex(c, "g", g, 0xffffffffU, 8);']
    case = Case("f", 1, (), (), Expected(mode, calls=(PredictedCall("s", (("m", mode),)),)))
    assert enum_tables([case]) == [
        "", "/* The enumerators of the enums the cases check, for their messages. */",
        "static const ctgen_enumerator ctgen_enum_M_OFF[] = {",
        '    { "M_OFF", (unsigned long long)(M_OFF) },',
        '    { "M_ON", (unsigned long long)(M_ON) },',
        '    { "M_RUN", (unsigned long long)(M_RUN) },',
        '    { "M_NEG", (unsigned long long)(M_NEG) },',
        "    { 0, 0 }", "};"]
    assert enum_tables([Case("f", 1, (), (), Expected(IntValue(1)))]) == []


def test_c_text_never_names_what_is_no_identifier() -> None:
    """Forms come from the unit; should one hold a name that is no identifier, the C is
    the number."""
    bad = IntValue(1, IntForm(enumerators=(("M_ON); system(1", 1),)))
    assert c_int_expr(bad) == "1" and int_text(bad) == "M_ON); system(1"
    assert check_statements("c", "v", "v", bad) == ['ctgen_check_int(c, "v", v, 1);']
    assert enum_tables([Case("f", 1, (), (), Expected(bad))]) == []
