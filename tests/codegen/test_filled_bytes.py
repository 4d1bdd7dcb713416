"""A large object's value (`FilledBytesValue`): its JSON form reads back as written, a
crafted one is refused with its field named, and its C sets and checks every byte with a
loop and one statement per listed byte."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_ctgen.cases import FilledBytesValue
from pytest_ctgen.case_writer import value_to_json
from pytest_ctgen.codegen.c_values import set_statements
from pytest_ctgen.codegen.checks import check_statements
from pytest_ctgen.export_schema import Field, SchemaError
from pytest_ctgen.value_reader import (
    MAX_FILLED_ENTRIES,
    ValueScope,
    read_value,
    value_from_json,
)
from pytest_ctgen.value_shapes import template_shape

VALUE = FilledBytesValue(1 << 20, 7, ((0, 1), (17, 255), (1048575, 0)))


def test_the_json_form_reads_back() -> None:
    j = value_to_json(VALUE)
    assert j == {"@bytes": {"size": 1 << 20, "fill": 7,
                            "at": {"0": 1, "17": 255, "1048575": 0}}}
    assert value_from_json(j) == VALUE
    shape = template_shape("uint8_t @[1048576]")
    assert read_value(Field(j, "value"), shape, ValueScope()) == VALUE
    assert read_value(Field(j, "value"), template_shape("uint32_t @[262144]"),
                      ValueScope()) == VALUE
    assert read_value(Field(j, "value"), template_shape("struct big @"), ValueScope()) == VALUE


def _bytes(**members: Any) -> dict[str, Any]:
    j: dict[str, Any] = {"size": 16, "fill": 0, "at": {"3": 9}}
    j.update(members)
    return {"@bytes": {k: v for k, v in j.items() if v is not None}}


HOSTILE = [
    ("uint8_t @[16]", _bytes(at=None), "value.@bytes: filled bytes are"),
    ("uint8_t @[16]", _bytes(extra=1), "value.@bytes: filled bytes are"),
    ("uint8_t @[16]", {"@bytes": [1, 2]}, "value.@bytes: expected a string, found a list"),
    ("uint8_t @[16]", {"@bytes": {"size": 16, "fill": 0, "at": {}}, "x": 1},
     "value: bytes are"),
    ("uint8_t @", _bytes(), "value.@bytes: expected an integer, found bytes"),
    ("int *@", _bytes(), "value.@bytes: expected a pointer, found bytes"),
    ("uint8_t @[16]", _bytes(size=0), "value.@bytes.size: 0 is out of range"),
    ("uint8_t @[16]", _bytes(size="16"), "value.@bytes.size: expected an integer"),
    ("uint8_t @[16]", _bytes(size=1 << 60), "value.@bytes.size: 1152921504606846976 is out"),
    ("uint8_t @[16]", _bytes(size=17), "value.@bytes.size: 17 bytes, the object 16"),
    ("uint32_t @[16]", _bytes(), "value.@bytes.size: 16 bytes, the object 64"),
    ("uint8_t @[16]", _bytes(fill=256), "value.@bytes.fill: 256 is out of range [0, 255]"),
    ("uint8_t @[16]", _bytes(fill=-1), "value.@bytes.fill: -1 is out of range"),
    ("uint8_t @[16]", _bytes(fill=True), "value.@bytes.fill: expected an integer"),
    ("uint8_t @[16]", _bytes(at=[[3, 9]]), "value.@bytes.at: expected an object"),
    ("uint8_t @[16]", _bytes(at={"16": 1}), "value.@bytes.at.16: offset 16 is outside"),
    ("uint8_t @[16]", _bytes(at={"-1": 1}), 'value.@bytes.at.-1: "-1" is not an offset'),
    ("uint8_t @[16]", _bytes(at={"03": 1}), 'value.@bytes.at.03: "03" is not an offset'),
    ("uint8_t @[16]", _bytes(at={"0x3": 1}), 'value.@bytes.at.0x3: "0x3" is not an offset'),
    ("uint8_t @[16]", _bytes(at={"٣": 1}), "is not an offset"),
    ("uint8_t @[16]", _bytes(at={"3": 256}), "value.@bytes.at.3: 256 is out of range"),
    ("uint8_t @[16]", _bytes(at={"3": "9"}), "value.@bytes.at.3: expected an integer"),
    ("uint8_t @[16]", _bytes(at={"3": None}), "value.@bytes.at.3: expected an integer"),
    ("uint8_t @[100000]", _bytes(size=100000, at={str(k): 1 for k in
                                                  range(MAX_FILLED_ENTRIES + 1)}),
     f"value.@bytes.at: lists {MAX_FILLED_ENTRIES + 1} bytes, more than"),
]


@pytest.mark.parametrize(("template", "j", "message"), HOSTILE,
                         ids=[f"{i}" for i in range(len(HOSTILE))])
def test_crafted_filled_bytes_are_refused_with_their_field(template: str, j: Any,
                                                          message: str) -> None:
    with pytest.raises(SchemaError) as err:
        read_value(Field(j, "value"), template_shape(template), ValueScope())
    assert message in str(err.value)


def test_the_c_sets_and_checks_every_byte(tmp_path: Path) -> None:
    """A C program sets an object from the value, checks it (passing), changes one byte
    listed and one byte not listed, and checks again (failing twice)."""
    value = FilledBytesValue(1 << 16, 7, ((0, 1), (17, 255), (65535, 0)))
    setting = "\n".join(set_statements("big", value))
    checking = "\n".join(check_statements("&failures", "big", "big", value))
    assert setting.count("ctgen_b[") == 4 and len(setting) < 600
    program = f"""#include <stdio.h>
typedef unsigned long ctgen_size;
static unsigned char big[65536];
static void ctgen_check_int_(int *failures, const char *what, unsigned long long observed,
                             unsigned long long expected)
{{
    if (observed != expected) {{
        ++*failures;
        printf("%s: predicted %llu, observed %llu\\n", what, expected, observed);
    }}
}}
#define ctgen_check_int(c, w, o, e) ctgen_check_int_((c), (w), (o), (e))
static int check(void)
{{
    int failures = 0;
    {checking}
    return failures;
}}
int main(void)
{{
    int before;
    {setting}
    before = check();
    big[17] = 254;
    big[300] = 8;
    printf("%d %d\\n", before, check());
    return 0;
}}
"""
    source = tmp_path / "filled.c"
    source.write_text(program)
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-o", str(tmp_path / "filled"),
                    str(source)], check=True)
    out = subprocess.run([str(tmp_path / "filled")], capture_output=True, text=True,
                         check=True).stdout
    assert "big: offset of the first byte not listed and not 7: predicted 65536, " \
           "observed 300" in out
    assert "big byte 17: predicted 255, observed 254" in out
    assert re.search(r"^0 2$", out, re.M)


def test_an_object_of_another_size_does_not_compile(tmp_path: Path) -> None:
    source = tmp_path / "size.c"
    body = "\n".join(set_statements("big", FilledBytesValue(100, 0, ((99, 1),))))
    source.write_text(f"typedef unsigned long ctgen_size;\nunsigned char big[64];\n"
                      f"void set(void)\n{{\n{body}\n}}\n")
    result = subprocess.run(["gcc", "-c", "-o", str(tmp_path / "size.o"), str(source)],
                            capture_output=True, text=True)
    assert result.returncode != 0
