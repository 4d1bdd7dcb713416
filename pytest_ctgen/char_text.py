"""Arrays of plain `char` as text: which of them a case shows as a string (`array_text`),
and the exact C string literal of their bytes (`text_literal`).

Only plain `char` is text: it is the type of C's string literals; `unsigned char` and
`signed char` (and uint8_t, a typedef of them) hold data, so they stay numbers. An array
is text when every byte is printable ASCII, NUL, a tab or a line break: `"$*00"` for
`{36, 42, 48, 48, 0, 0, 0, 0}`, NULs inside it too (a tokenizer's output); anything else
(a byte >= 0x80, other control bytes) stays a list of numbers.
"""
from __future__ import annotations

from .cases import ArrayValue, IntValue

#: The control bytes text holds besides its printable characters.
TEXT_CONTROLS = frozenset(b"\0\t\n\r")
_NAMED = {ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r", ord('"'): '\\"',
          ord("\\"): "\\\\"}
_OCTAL_DIGITS = frozenset(b"01234567")


def is_text_byte(b: int) -> bool:
    return 0x20 <= b < 0x7F or b in TEXT_CONTROLS


def array_text(v: ArrayValue) -> bytes | None:
    """The bytes of `v` if it is a plain char array of text (see above), else None."""
    if not v.text or not v.elements:
        return None
    data = []
    for x in v.elements:
        if not isinstance(x, IntValue) or not -128 <= x.value <= 255:
            return None
        data.append(x.value & 0xFF)
    return bytes(data) if all(is_text_byte(b) for b in data) else None


def text_literal(data: bytes, *, trigraphs: bool = True) -> str:
    """A C string literal of exactly `data` (plus the implicit NUL): quotes, backslashes
    and (with `trigraphs`) every `?` escaped, other non-printable bytes as octal escapes
    as short as the next character allows (three digits before an octal digit)."""
    out = []
    for i, b in enumerate(data):
        if b in _NAMED:
            out.append(_NAMED[b])
        elif b == ord("?") and trigraphs:
            out.append("\\?")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            following = data[i + 1] if i + 1 < len(data) else None
            out.append(f"\\{b:03o}" if following in _OCTAL_DIGITS else f"\\{b:o}")
    return '"' + "".join(out) + '"'


def char_constant(b: int) -> str:
    """A C character constant of the byte `b` (as plain char: bytes >= 0x80 octal)."""
    if b == ord("'"):
        return "'\\''"
    if b == ord('"'):
        return "'\"'"
    return "'" + text_literal(bytes([b]), trigraphs=False)[1:-1] + "'"
