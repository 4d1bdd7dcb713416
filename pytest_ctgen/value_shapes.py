"""What the values of a declared type look like, as far as its declaration template shows
it (`Shape`): an export's values are checked against the shape of the declaration they are
given for (an integer in range, a float, a pointer, an array of so many elements).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: The widest integer a case holds: every value fits in 64 bits, signed or unsigned.
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1

_QUALIFIERS = frozenset("const volatile restrict __restrict __restrict__ _Atomic __const "
                        "__volatile__ register".split())
_FIXED = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True),
          "uint16_t": (16, False), "int32_t": (32, True), "uint32_t": (32, False),
          "int64_t": (64, True), "uint64_t": (64, False), "intptr_t": (64, True),
          "uintptr_t": (64, False), "size_t": (64, False), "ssize_t": (64, True),
          "ptrdiff_t": (64, True), "intmax_t": (64, True), "uintmax_t": (64, False)}
_INT_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "__signed__"})


@dataclass(frozen=True)
class Shape:
    """What a value of a declared type looks like, as far as its template shows it:
    kind "int" (within `low`..`high`), "float", "double", "pointer", "array" (of
    `count` `element`s, None: unsized) or "any" (a record, a typedef of the unit...).
    The ranges are those of LP64, the widest target (an ABI flag only narrows them).
    `char`: plain char, the type of text (an array of it may be given as a string)."""

    kind: str
    low: int = INT_MIN
    high: int = INT_MAX
    count: int | None = None
    element: Shape | None = None
    char: bool = False

    def holds_text(self) -> bool:
        """Whether this is an array of plain char."""
        return self.kind == "array" and self.element is not None and self.element.char


ANY = Shape("any")


def _scalar_shape(words: list[str]) -> Shape:
    if len(words) == 1 and words[0] in _FIXED:
        bits, signed = _FIXED[words[0]]
    elif words in (["_Bool"], ["bool"]):
        return Shape("int", 0, 1)
    elif words == ["float"]:
        return Shape("float")
    elif words == ["double"]:
        return Shape("double")
    elif words and set(words) <= _INT_WORDS:
        signed = "unsigned" not in words
        bits = 8 if "char" in words else 16 if "short" in words else \
            64 if "long" in words else 32
        if words == ["char"]:  # plain char: either signedness
            return Shape("int", -128, 255, char=True)
    else:
        return ANY
    if signed:
        return Shape("int", -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return Shape("int", 0, (1 << bits) - 1)


def template_shape(template: str) -> Shape:
    """The shape of the values of a declaration template (one that passed
    `template_problem`): `uint8_t @` an int in 0..255, `int @[4]` an array of four,
    `char *@` and `int (*@)(int)` pointers."""
    at = template.index("@")
    before, after = template[:at], template[at + 1:].lstrip()
    m = re.match(r"\[\s*(\d*)\s*\]", after)
    if m:  # the suffix binds first: `char *@[4]` is an array of pointers
        element = template_shape(before + "@" + after[m.end():])
        return Shape("array", count=int(m.group(1)) if m.group(1) else None,
                     element=element)
    if after.startswith("("):  # a function: no object
        return ANY
    words = [w for w in re.findall(r"[A-Za-z_]\w*|\S", before) if w not in _QUALIFIERS]
    if words and words[-1] == "*":  # `char *@`, `int (*@)(int)`, `int (*@)[3]`
        return Shape("pointer")
    if after:
        return ANY
    return _scalar_shape(words)


def byte_size(shape: Shape) -> int | None:
    """The size in bytes of a value of `shape` where the shape shows it (an integer by
    its range, a float, a pointer, an array of those), None otherwise."""
    if shape.kind == "int":
        bits = max(shape.high.bit_length(), (-shape.low - 1).bit_length() + 1
                   if shape.low < 0 else 0)
        return next(n for n in (1, 2, 4, 8, 16) if 8 * n >= bits)
    if shape.kind in ("float", "pointer"):
        return 4 if shape.kind == "float" else 8
    if shape.kind == "double":
        return 8
    if shape.kind == "array" and shape.count is not None and shape.element is not None:
        element = byte_size(shape.element)
        return None if element is None else shape.count * element
    return None
