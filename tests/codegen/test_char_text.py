"""Arrays of plain char as text (char_text.py): `{"@string": ...}` in the export, read back
to the same bytes; crafted strings refused with their field named; C string literals that
compile to exactly the bytes of the value, whatever they hold."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_ctgen.case_writer import value_text, value_to_json
from pytest_ctgen.cases import ArrayValue, IntValue, RecordValue, Value
from pytest_ctgen.char_text import array_text, text_literal
from pytest_ctgen.codegen.c_values import initializer, set_statements
from pytest_ctgen.export_schema import Field, SchemaError
from pytest_ctgen.value_reader import ValueScope, read_value
from pytest_ctgen.value_shapes import template_shape


def chars(data: bytes | list[int], text: bool = True) -> ArrayValue:
    return ArrayValue(tuple(IntValue(b) for b in data), text=text)


def read(j: Any, template: str) -> Value:
    return read_value(Field(j, "value"), template_shape(template), ValueScope())


def round_trip(v: Value, template: str) -> Any:
    """The JSON of `v`, after checking it reads back equal and writes the same again."""
    shape = template_shape(template)
    j = value_to_json(v, shape)
    back = read_value(Field(json.loads(json.dumps(j)), "value"), shape, ValueScope())
    assert back == v
    assert value_to_json(back, shape) == j
    return j


@pytest.mark.parametrize("data, j", [
    (b"$*00\0\0\0\0", {"@string": "$*00"}),
    (b"\0" * 8, {"@string": ""}),
    (b"ABCDEFGH", {"@string": "ABCDEFGH"}),  # fills the array: no NUL, as C allows
    (b"-\0ABCDEF", {"@string": "-\0ABCDEF"}),  # a NUL inside stays in the string
    (b'a"b\\c?\0\0', {"@string": 'a"b\\c?'}),
    (b"a\tb\r\n\0\0\0", {"@string": "a\tb\r\n"}),
])
def test_text_in_a_char_array_is_a_string_and_reads_back(data: bytes, j: Any) -> None:
    assert round_trip(chars(data), "char @[8]") == j


@pytest.mark.parametrize("data", [
    [0x41, -27, 0, 0],  # a byte >= 0x80 (plain char is signed)
    [0x41, 1, 0, 0],  # a control byte
])
def test_bytes_that_are_not_text_stay_numbers(data: list[int]) -> None:
    assert round_trip(chars(data), "char @[4]") == data


def test_only_plain_char_is_text() -> None:
    """unsigned char, signed char and uint8_t hold data: their arrays stay numbers."""
    for template in ("unsigned char @[3]", "signed char @[3]", "uint8_t @[3]"):
        assert round_trip(chars(b"ab\0", text=False), template) == [97, 98, 0]
    with pytest.raises(SchemaError, match=r"^value: a string gives an array of plain char"):
        read({"@string": "ab"}, "uint8_t @[3]")


def test_a_member_string_carries_its_size() -> None:
    """A struct's declaration does not show its members' sizes: the string says it."""
    v = RecordValue((("cmd", chars(b"GO\0\0\0\0")), ("n", IntValue(2))))
    j = round_trip(v, "struct command @")
    assert j == {"cmd": {"@string": "GO", "size": 6}, "n": 2}
    assert value_text(v) == '{"cmd": "GO", "n": 2}'


def test_an_unsized_string_is_its_text_and_one_nul() -> None:
    assert read({"@string": "ab"}, "struct s @") == chars(b"ab\0")
    assert read({"@string": "ab"}, "char @[5]") == chars(b"ab\0\0\0")


def test_a_list_for_a_char_array_is_shown_as_text() -> None:
    """Exports written before strings were (lists of numbers) read as they did, and show
    as text."""
    v = read([36, 42, 48, 48, 0, 0], "char @[6]")
    assert v == chars(b"$*00\0\0")
    assert isinstance(v, ArrayValue) and v.text
    assert value_text(v) == '"$*00"'
    assert initializer(v) == '"$*00"'


@pytest.mark.parametrize("j, template, message", [
    ({"@string": "ABCDEFGHI"}, "char @[8]",
     r"value\.@string: 9 characters do not fit in the array \(8 bytes\)"),
    ({"@string": "ab", "size": 9}, "char @[8]", r"value\.size: 9 bytes, the array 8"),
    ({"@string": "abc", "size": 2}, "struct s @",
     r"value\.@string: 3 characters do not fit in the array \(2 bytes\)"),
    ({"@string": "ab", "size": 0}, "struct s @", r"value\.size: 0 is out of range"),
    ({"@string": "caf\u00e9"}, "char @[8]", r"value\.@string: holds U\+00E9, which is not ASCII"),
    ({"@string": "\ud800"}, "char @[8]", r"value\.@string: holds U\+D800, which is not ASCII"),
    ({"@string": 65}, "char @[8]", r"value\.@string: expected a string, found 65"),
    ({"@string": "ab", "fill": 0}, "char @[8]", r"value: a string is"),
    ({"@string": "ab"}, "int @[8]", r"value: a string gives an array of plain char"),
    ({"@string": "ab"}, "char @", r"value: expected an integer, found a string"),
    ({"@string": "ab"}, "char *@", r"value: expected a pointer, found a string"),
])
def test_a_crafted_string_is_refused_with_its_field(j: Any, template: str,
                                                    message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        read(j, template)


def test_literals_escape_what_c_would_read_otherwise() -> None:
    assert text_literal(b'"\\') == r'"\"\\"'
    assert text_literal(b"??=") == r'"\?\?="'  # no trigraph
    assert text_literal(b"\x00" + b"1") == r'"\0001"'  # an escape cannot take the digit
    assert text_literal(b"\x00" + b"8a") == r'"\08a"'
    assert text_literal(b"\x00\x00") == r'"\0\0"'
    assert text_literal(b"\xe5") == r'"\345"'
    assert array_text(chars(b"ab", text=False)) is None


# every byte value in the places an escape could go wrong: before digits, quotes, `?`
_ALL_BYTES = bytes(range(1, 256)) + b"\x001?\x007\"\\??=?\x00"


def _c_bytes(tmp_path: Path, declarations: list[str], names: list[str]) -> list[bytes]:
    """The bytes of the named arrays as a C program built from `declarations` sees them."""
    prints = "\n".join(
        f"    for (k = 0; k < sizeof {n}; k++) printf(\"%02x\", (unsigned char){n}[k]);\n"
        f"    printf(\"\\n\");" for n in names)
    src = tmp_path / "t.c"
    src.write_text("#include <stdio.h>\n#include <string.h>\n"
                   "typedef unsigned long ctgen_size;\n"
                   "#define CTGEN_ELEMENTS_FIT(a, n) ((void)sizeof (char[sizeof (a) / "
                   "sizeof (a)[0] >= (n) ? 1 : -1]))\n"
                   "static void ctgen_copy_bytes(void *t, const void *f, ctgen_size n) "
                   "{ memcpy(t, f, n); }\n"
                   + "\n".join(declarations)
                   + "\nint main(void)\n{\n    unsigned long k;\n    set();\n"
                   + prints + "\n    return 0;\n}\n")
    exe = tmp_path / "t"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-trigraphs",
                    "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return [bytes.fromhex(line) for line in out.split()]


def test_the_c_of_a_string_holds_exactly_its_bytes(tmp_path: Path) -> None:
    """Initializers and statements of text (and, for the literal, of every byte), built
    with trigraphs on: each array holds exactly the bytes of its value."""
    values = {"t_pad": b"$*00\0\0\0\0", "t_full": b"ABCDEFGH", "t_mid": b"-\0" + b"1" * 6,
              "t_esc": b'a"b\\c??=\0', "t_empty": b"\0\0\0"}
    declarations = [f"static char {n}[{len(d)}] = {initializer(chars(d))};"
                    for n, d in values.items()]
    declarations += [f"static char s_{n}[{len(d)}];" for n, d in values.items()]
    declarations.append(f"static char lit[] = {text_literal(_ALL_BYTES)};")
    body = [s for n, d in values.items() for s in set_statements(f"s_{n}", chars(d))]
    assert sum("ctgen_copy_bytes" in s for s in body) == len(values)  # one copy each
    declarations.append("static void set(void)\n{\n    " + "\n    ".join(body) + "\n}")
    names = [*values, *(f"s_{n}" for n in values), "lit"]
    got = _c_bytes(tmp_path, declarations, names)
    assert got == [*values.values(), *values.values(), _ALL_BYTES + b"\0"]
