"""A predicted value nothing set (`UnsetValue`): its JSON form reads back as written where
a value is predicted, is refused as an input or with anything beside it, and its check is
none at all."""
from __future__ import annotations

import pytest

from pytest_ctgen.cases import RecordValue, IntValue, UnsetValue
from pytest_ctgen.case_writer import value_to_json
from pytest_ctgen.codegen.checks import check_statements
from pytest_ctgen.export_schema import Field, SchemaError
from pytest_ctgen.value_reader import ValueScope, read_value, value_from_json
from pytest_ctgen.value_shapes import template_shape

VALUE = RecordValue((("valid", IntValue(0)), ("value", UnsetValue())))


def test_the_json_form_reads_back_as_a_prediction() -> None:
    j = value_to_json(VALUE)
    assert j == {"valid": 0, "value": {"@unset": True}}
    assert value_from_json(j) == VALUE
    assert read_value(Field(j, "value"), template_shape("struct reading @"),
                      ValueScope(input=False)) == VALUE


@pytest.mark.parametrize(("j", "scope", "message"), [
    ({"@unset": True}, ValueScope(), 'value: an input must have a value: "@unset" is only '
                                     "predicted"),
    ({"@unset": False}, ValueScope(input=False), 'value: a value nothing set is '
                                                 '{"@unset": true} alone'),
    ({"@unset": True, "x": 1}, ValueScope(input=False), "value: a value nothing set is"),
])
def test_a_crafted_unset_value_is_refused_with_its_field(
        j: object, scope: ValueScope, message: str) -> None:
    with pytest.raises(SchemaError) as e:
        read_value(Field(j, "value"), template_shape("int @"), scope)
    assert message in str(e.value)


def test_an_unset_member_is_not_checked_and_the_others_are() -> None:
    checks = check_statements("ctx", "r", "r", VALUE)
    assert checks == ['ctgen_check_int(ctx, "r.valid", r.valid, 0);']
