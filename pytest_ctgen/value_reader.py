"""Reading a case value back from its JSON form (case_writer.value_to_json), checked against the
shape of the declaration it is given for and against what the case may point to
(`ValueScope`); a refusal names the value's field (`...params[1].value.a[2]: ...`).
"""
from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .cases import (
    CALLBACK_PREFIX,
    HEAP_PREFIX,
    ArrayValue,
    BytesValue,
    FilledBytesValue,
    FloatValue,
    IntValue,
    PointerValue,
    RecordValue,
    UnsetValue,
    Value,
)
from .export_schema import MAX_NESTING, Field, shown
from .value_shapes import ANY, INT_MIN, Shape, byte_size

#: The largest object a `FilledBytesValue` may describe, and the most bytes it may list.
MAX_FILLED_SIZE = 1 << 40
MAX_FILLED_ENTRIES = 1 << 16


@dataclass
class ValueScope:
    """What the values of one case may name: its objects, and which functions."""

    objects: frozenset[str] = frozenset()
    # the file's callbacks and stubs, and at replay the unit's functions; None: any
    # function but an unlisted callback (reading cached cases, with no unit at hand)
    functions: frozenset[str] | None = None
    callbacks: frozenset[str] = frozenset()
    globals: frozenset[str] | None = None  # `&name` targets (None: any identifier)
    input: bool = True  # an input: a pointer names an object, never "*"
    heap: bool = False  # a prediction of a unit that allocates: it may name heap objects
    # the size in bytes of what an input may point into (a pointer target: an object of
    # the case, `&global`), None where the unit does not show it
    size_of: Callable[[str], int | None] = field(default=lambda target: None)


_HEAP_NAME = re.compile(re.escape(HEAP_PREFIX) + r"\d{1,10}(_at_\d{1,10})?")


def is_heap_name(name: str) -> bool:
    """Whether `name` names an object the unit allocates (or a part of one), as a case's
    predictions do: `ctgen_heap_K`, `ctgen_heap_K_at_N`."""
    return _HEAP_NAME.fullmatch(name) is not None


def _float(f: Field, kind: str, size: int) -> FloatValue:
    """`{"float": 1.5}`, `{"double": "-inf"}` or a NaN by its bits, fitting `size` bytes."""
    j = f.obj()
    raw = f[kind].value
    if set(j) - {kind, "bits"}:
        f.fail(f"a {kind} is {{\"{kind}\": number}} or {{\"{kind}\": \"nan\", \"bits\": hex}}")
    if raw == "nan":
        bits = f["bits"]
        text = bits.string()
        try:
            value = int(text, 16)
        except ValueError:
            bits.fail(f"{shown(text)} is not a hexadecimal number")
        if not 0 <= value < 1 << (8 * size):
            bits.fail(f"{text} does not fit in {size} bytes")
        result = FloatValue(value, size)
        if not result.is_nan:
            bits.fail(f"{text} is not the bits of a NaN")
        return result
    if raw in ("inf", "-inf"):
        return FloatValue.of(float(raw), size)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        f[kind].fail(f"expected a number, \"inf\", \"-inf\" or \"nan\", found {shown(raw)}")
    try:
        number = float(raw)
        return FloatValue.of(number, size)
    except (OverflowError, struct.error):
        f[kind].fail(f"{raw} does not fit in a {kind}")


def _pointer(f: Field, scope: ValueScope) -> PointerValue:
    """`{"@pointer": target, "offset": n}`: into an object of the case, a global
    (`&name`) or, predicted only, an object the case cannot name (`*`)."""
    j = f.obj()
    if set(j) - {"@pointer", "offset"}:
        f.fail("a pointer is {\"@pointer\": target, \"offset\": bytes}")
    target = f["@pointer"].string()
    offset = f.get("offset", 0).integer(INT_MIN, (1 << 63) - 1)
    where = f["@pointer"]
    if target == "*":
        if scope.input:
            where.fail("an input cannot point to an object the case does not name (\"*\")")
    elif target.startswith("&"):
        name = target[1:]
        Field(name, where.where).identifier()
        if scope.globals is not None and name not in scope.globals:
            where.fail(f"{name} is not a global of the unit")
    elif scope.heap and not scope.input and is_heap_name(target):
        pass
    elif target not in scope.objects:
        where.fail(f"{shown(target)} is not an object of the case (nor \"*\" or "
                   f"\"&global\")")
    size = scope.size_of(target) if scope.input else None
    if size is not None and not 0 <= offset <= size:
        # a prediction may lie anywhere (`return p + 100` is one); an input is dereferenced
        f.get("offset").fail(f"{offset} is outside {target.lstrip('&')} ({size} bytes): an "
                             f"input points into its object or just past its end, 0 to "
                             f"{size}")
    return PointerValue(target, offset)


def _function_pointer(f: Field, scope: ValueScope) -> PointerValue:
    """`{"@function": name}`: a function of the unit, a stub or a listed callback."""
    if len(f.obj()) != 1:
        f.fail("a function pointer is {\"@function\": name} alone")
    where = f["@function"]
    name = where.identifier()
    if name.startswith(CALLBACK_PREFIX) and name not in scope.callbacks:
        where.fail(f"points to the callback {name}, which the file does not list")
    if scope.functions is not None and name not in scope.functions:
        where.fail(f"{name} is neither a function the unit defines nor a stub or "
                   f"callback of the file")
    return PointerValue(name, function=True)


def _filled_bytes(f: Field, shape: Shape) -> FilledBytesValue:
    """`{"size": n, "fill": b, "at": {"offset": byte, ...}}`: an object of n bytes (as
    large as its declaration says where that shows it), each b but those listed at
    offsets inside it (decimal, as the generator writes them)."""
    if set(f.obj()) != {"size", "fill", "at"}:
        f.fail("filled bytes are {\"size\": bytes, \"fill\": byte, \"at\": "
               "{\"offset\": byte, ...}}")
    if shape.kind in ("int", "float", "double", "pointer"):
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found bytes")
    size = f["size"].integer(1, MAX_FILLED_SIZE)
    expected = byte_size(shape)
    if expected is not None and size != expected:
        f["size"].fail(f"{size} bytes, the object {expected}")
    fill = f["fill"].integer(0, 255)
    entries = list(f["at"].members())
    if len(entries) > MAX_FILLED_ENTRIES:
        f["at"].fail(f"lists {len(entries)} bytes, more than {MAX_FILLED_ENTRIES}")
    at = []
    for key, byte in entries:
        if not (key.isascii() and key.isdigit()) or key != str(int(key)):
            byte.fail(f"{shown(key)} is not an offset (a decimal number)")
        if int(key) >= size:
            byte.fail(f"offset {key} is outside the object ({size} bytes)")
        at.append((int(key), byte.integer(0, 255)))
    return FilledBytesValue(size, fill, tuple(sorted(at)))


#: The longest string an export may give (longer text stays a list, as the generator
#: writes arrays of more than 4096 bytes as filled bytes anyway).
MAX_STRING_SIZE = 1 << 16


def _string(f: Field, shape: Shape) -> ArrayValue:
    """`{"@string": text}` or `{"@string": text, "size": n}`: an array of plain char
    holding the bytes of `text` (ASCII, NULs inside it too) and then NULs up to its size,
    as `char a[n] = "text"` in C: `n` (if given) or the declaration's size, else one NUL.
    Text exactly as long as the array has no NUL, as C allows; longer text is refused."""
    if set(f.obj()) - {"@string", "size"}:
        f.fail("a string is {\"@string\": text} or {\"@string\": text, \"size\": bytes}")
    if shape.kind not in ("array", "any"):
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a string")
    if shape.kind == "array" and not shape.holds_text():
        f.fail("a string gives an array of plain char, this array's elements are not char")
    where = f["@string"]
    text = where.value
    if not isinstance(text, str):
        where.fail(f"expected a string, found {shown(text)}")
    bad = next((ch for ch in text if ord(ch) > 0x7F), None)
    if bad is not None:
        where.fail(f"holds U+{ord(bad):04X}, which is not ASCII (give bytes >= 0x80 "
                   "as a list of numbers)")
    if len(text) > MAX_STRING_SIZE:
        where.fail(f"is longer than {MAX_STRING_SIZE} characters")
    declared = shape.count if shape.kind == "array" else None
    if f.has("size"):
        size = f["size"].integer(1, MAX_STRING_SIZE)
        if declared is not None and size != declared:
            f["size"].fail(f"{size} bytes, the array {declared}")
    else:
        size = declared if declared is not None else len(text) + 1
    if len(text) > size:
        where.fail(f"{len(text)} characters do not fit in the array ({size} bytes)")
    data = text.encode("ascii") + bytes(size - len(text))
    return ArrayValue(tuple(IntValue(b) for b in data), text=True)


#: A mask in hex as an export gives it (value_forms.hex_text): `"0x0080"`.
_HEX = re.compile(r"0x[0-9a-fA-F]{1,32}")


def _hex(f: Field, shape: Shape) -> IntValue:
    """A string `"0x0080"`: an integer in hex (a mask, value_forms.py)."""
    text = f.value
    if not _HEX.fullmatch(text):
        f.fail(f"not a case value: {shown(text)}")
    if shape.kind not in ("int", "any"):
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found an integer")
    value = int(text, 16)
    if not shape.low <= value <= shape.high:
        f.fail(f"{text} is out of range [{shape.low}, {shape.high}]")
    return IntValue(value, shape.form if shape.kind == "int" else None)


def _enumerator(f: Field, shape: Shape) -> IntValue:
    """`{"@enum": name}`: the value of the enumerator `name` of the value's enum type, as
    the unit declares it (a type that is no enum of the unit has none)."""
    if len(f.obj()) != 1:
        f.fail("an enumerator is {\"@enum\": name} alone")
    if shape.kind not in ("int", "any"):
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found an enumerator")
    where = f["@enum"]
    name = where.identifier()
    enumerators = shape.form.enumerators if shape.form is not None else ()
    if not enumerators:
        where.fail(f"{name} names an enumerator, but the value's type is no enum the "
                   "unit declares")
    value = next((v for n, v in enumerators if n == name), None)
    if value is None:
        known = ", ".join(n for n, _ in enumerators[:4]) + \
            (", ..." if len(enumerators) > 4 else "")
        where.fail(f"{name} is not an enumerator of the value's enum type ({known})")
    return IntValue(value, shape.form)


_SHOWN_KINDS = {"int": "an integer", "float": "a float", "double": "a double",
                "pointer": "a pointer", "array": "an array", "any": "a value"}


def read_value(f: Field, shape: Shape, scope: ValueScope, depth: int = 0) -> Value:
    """The value at `f`, of a type whose values look like `shape`."""
    if depth > MAX_NESTING:
        f.fail(f"nested more than {MAX_NESTING} levels deep")
    j = f.value
    if isinstance(j, bool):  # JSON true/false, which Python takes for 1 and 0
        bool_type = shape.kind == "int" and (shape.low, shape.high) == (0, 1)
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a boolean"
               + (" (a _Bool is 0 or 1)" if bool_type else ""))
    if isinstance(j, int):
        if shape.kind not in ("int", "any"):
            f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found an integer")
        return IntValue(f.integer(shape.low, shape.high),
                        shape.form if shape.kind == "int" else None)
    if isinstance(j, str):
        return _hex(f, shape)
    if j is None:
        if shape.kind not in ("pointer", "any"):
            f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found null (a NULL pointer)")
        return PointerValue(None)
    if isinstance(j, list):
        if shape.kind not in ("array", "any"):
            f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a list")
        if shape.count is not None and len(j) > shape.count:
            f.fail(f"has {len(j)} elements, the array {shape.count}")
        element = shape.element or ANY
        return ArrayValue(tuple(read_value(x, element, scope, depth + 1) for x in f.items()),
                          text=shape.holds_text())
    if not isinstance(j, dict):
        f.fail(f"not a case value: {shown(j)}")
    for kind, size in (("float", 4), ("double", 8)):
        if kind in j:
            if shape.kind not in (kind, "any"):
                f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a {kind}")
            return _float(f, kind, size)
    if "@unset" in j:
        if j != {"@unset": True}:
            f.fail("a value nothing set is {\"@unset\": true} alone")
        if scope.input:
            f.fail("an input must have a value: \"@unset\" is only predicted")
        return UnsetValue()
    if "@string" in j:
        return _string(f, shape)
    if "@enum" in j:
        return _enumerator(f, shape)
    if "@bytes" in j:
        if len(j) != 1:
            f.fail("bytes are {\"@bytes\": hex} alone")
        if isinstance(j["@bytes"], dict):
            return _filled_bytes(f["@bytes"], shape)
        text = f["@bytes"].string()
        try:
            return BytesValue(bytes.fromhex(text))
        except ValueError:
            f["@bytes"].fail(f"{shown(text)} is not bytes in hexadecimal")
    if shape.kind not in ("pointer", "any") and ("@pointer" in j or "@function" in j):
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a pointer")
    if "@pointer" in j:
        return _pointer(f, scope)
    if "@function" in j:
        return _function_pointer(f, scope)
    if shape.kind != "any":
        f.fail(f"expected {_SHOWN_KINDS[shape.kind]}, found a struct")
    fields = []
    members = dict(shape.members)
    for name, member in f.members():
        Field(name, member.where).identifier()  # a member name becomes `.name` in C
        if shape.name and name not in members:  # a record of the unit: C would refuse it
            member.fail(f"{shape.name} has no member named {name}")
        fields.append((name, read_value(member, members.get(name, ANY), scope, depth + 1)))
    return RecordValue(tuple(fields))


def value_from_json(j: Any) -> Value:
    """A value as the JSON form writes it (value_to_json), of any type."""
    return read_value(Field(j, "value"), ANY, ValueScope(input=False))
