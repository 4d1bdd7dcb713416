"""C literals as gcc reads them on x86-64: integer constants with their suffixes and types,
character constants (escapes, prefixes, multi-character), string literals (prefixes, the
bytes of a source that is not UTF-8) and floating literals rounded once to their type.
The one home of these rules: type resolution and constant evaluation in the front end and
the lowering (ir/) read literals only through this module."""
from __future__ import annotations

import math
import re
import struct
from fractions import Fraction
from typing import Final

from .ctype import (
    CHAR, DOUBLE, EXTENDED_FLOATS, FLOAT, INT, LLONG, LONG, LONGDOUBLE, UCHAR, UINT, ULLONG,
    ULONG, USHORT, FloatType, IntType)

# ------------------------------------------------------------------------------ integers

_INT_LITERAL: Final = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)$")


def int_literal(text: str) -> tuple[int, IntType]:
    """Value and type of an integer literal (C11 6.4.4.1, with gcc's LP64 types): the
    first of the suffix's candidate types that holds the value (a decimal literal without
    `u` only signed ones); beyond every type, the value modulo 2^64 as `unsigned long long`.

    Raises:
        ValueError: not an integer literal.
    """
    match = _INT_LITERAL.match(text.replace("'", ""))
    if match is None:
        raise ValueError(f"not an integer literal: {text}")
    digits, suffix = match.group(1), match.group(2).lower()
    if digits[:2].lower() == "0x":
        value, decimal = int(digits, 16), False
    elif digits[:2].lower() == "0b":
        value, decimal = int(digits, 2), False
    elif len(digits) > 1 and digits.startswith("0"):
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    longs = suffix.count("l")
    if "u" in suffix:
        candidates = [UINT, ULONG, ULLONG]
    elif decimal:
        candidates = [INT, LONG, LLONG, ULLONG]
    else:
        candidates = [INT, UINT, LONG, ULONG, LLONG, ULLONG]
    least = {0: INT.rank, 1: LONG.rank, 2: LLONG.rank}[longs]
    for candidate in (c for c in candidates if c.rank >= least):
        if value <= candidate.max_value:
            return value, candidate
    return ULLONG.wrap(value), ULLONG


# ------------------------------------------------------------- characters and strings

_SIMPLE_ESCAPES: Final = {
    "n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27, "E": 27,
    "\\": 92, "'": 39, '"': 34, "?": 63,
}
#: The prefixes of wide character constants and string literals, with the element type.
_WIDE: Final[dict[str, IntType]] = {"L": INT, "u": USHORT, "U": UINT}
#: The type of a character constant by its prefix (`u8'x'` is C23's `char8_t`).
_CHAR_TYPES: Final[dict[str, IntType]] = {"": INT, "u8": UCHAR, **_WIDE}


def _decode(body: str, wide: bool) -> list[int]:
    """Code units of the inside of a character constant or string literal: bytes (UTF-8,
    escapes truncated to 8 bits as gcc truncates them) unless `wide`, then code points.
    A byte of the source that is not UTF-8 reaches here as a lone surrogate (the source is
    read with `surrogateescape`) and stands for itself in a narrow literal.

    Raises:
        ValueError: such a byte in a wide literal, or a universal character name of a
            surrogate or beyond U+10FFFF (gcc rejects both).
    """
    units: list[int] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            if not wide:
                units.extend(ch.encode("utf-8", "surrogateescape"))
            elif 0xDC80 <= ord(ch) <= 0xDCFF:
                raise ValueError("a byte that is not UTF-8 in a wide literal")
            else:
                units.append(ord(ch))
            i += 1
            continue
        i += 1
        esc = body[i] if i < len(body) else "\\"
        if esc in _SIMPLE_ESCAPES:
            units.append(_SIMPLE_ESCAPES[esc])
            i += 1
        elif esc in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            units.append(int(body[i:j], 8) if wide else int(body[i:j], 8) & 0xFF)
            i = j
        elif esc == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            code = int(body[i + 1:j] or "0", 16)
            units.append(code if wide else code & 0xFF)
            i = j
        elif esc in "uU":
            n = 4 if esc == "u" else 8
            code = int(body[i + 1:i + 1 + n], 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise ValueError(f"\\{esc}{body[i + 1:i + 1 + n]} is no character")  # as gcc
            units.extend([code] if wide else list(chr(code).encode("utf-8")))
            i += 1 + n
        else:
            units.append(ord(esc))
            i += 1
    return units


def char_literal(text: str) -> tuple[int, IntType]:
    """Value and type of a character constant (`'a'`, `'\\n'`, `L'x'`, `u'x'`, `'ab'`) as
    gcc gives them: a plain one is an `int` holding a (signed) `char`, several characters
    make an `int` of their bytes, big-endian; a wide one is its last character.

    Raises:
        ValueError: not a character constant, or an empty one.
    """
    prefix = text[: text.index("'")]
    if prefix not in _CHAR_TYPES or not text.endswith("'"):
        raise ValueError(f"not a character constant: {text}")
    ctype = _CHAR_TYPES[prefix]
    units = _decode(text[len(prefix) + 1:-1], wide=prefix in _WIDE)
    if not units:
        raise ValueError("empty character constant")
    if prefix == "":
        if len(units) == 1:
            return CHAR.wrap(units[0]), INT
        value = 0
        for unit in units:
            value = (value << 8) | unit
        return INT.wrap(value), INT
    return ctype.wrap(units[0] if prefix == "u8" else units[-1]), ctype


def string_literal(text: str) -> tuple[list[int], IntType]:
    """Code units (without the terminator) and element type of a string literal (pycparser
    has joined adjacent literals into one); `u"..."` is UTF-16, `L` and `U` UTF-32.

    Raises:
        ValueError: not a string literal, or a byte that is not UTF-8 in a wide one.
    """
    prefix = text[: text.index('"')]
    if prefix not in ("", "u8", *_WIDE) or not text.endswith('"'):
        raise ValueError(f"not a string literal: {text}")
    element = _WIDE.get(prefix, CHAR)
    units = _decode(text[len(prefix) + 1:-1], prefix in _WIDE)
    if prefix == "u":
        utf16: list[int] = []
        for code in units:
            if code > 0xFFFF:
                code -= 0x10000
                utf16 += [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]
            else:
                utf16.append(code)
        units = utf16
    return [unit & ((1 << element.bits) - 1) for unit in units], element


def string_array(text: str) -> tuple[IntType, bytes]:
    """The element type of a string literal's array and the array's bytes as gcc lays them
    out on x86-64 (little-endian elements, the terminating 0 element included): `L"é"` is
    two `int`s (wchar_t), `u"é€"` three `unsigned short`s (char16_t), `U"..."` `unsigned
    int`s (char32_t), `"..."` and `u8"..."` `char`s.

    Raises:
        ValueError: not a string literal, or a byte that is not UTF-8 in a wide one.
    """
    units, element = string_literal(text)
    size = element.size
    return element, b"".join(unit.to_bytes(size, "little") for unit in [*units, 0])


def string_bytes(text: str) -> bytes:
    """The bytes of a narrow string literal's array, its terminator included, for what
    reads a string as text (a builtin's argument, an annotation): a wide literal's
    characters as a narrow literal's (UTF-8); `string_array` gives the real array."""
    prefix = text[: text.index('"')]
    if prefix not in ("", "u8", *_WIDE) or not text.endswith('"'):
        raise ValueError(f"not a string literal: {text}")
    return bytes(_decode(text[len(prefix) + 1:-1], wide=False)) + b"\0"


# ------------------------------------------------------------------------------ floats

#: The largest finite float, and the least value that rounds to infinity as a float
#: (half an ulp above it: the tie goes to the even significand, that of 2^128).
FLT_MAX: Final = (2 - 2.0 ** -23) * 2.0 ** 127
_FLOAT_OVERFLOW: Final = Fraction(2 ** 128 - 2 ** 103)


def round_to_float32(x: Fraction | float | int) -> float:
    """The float (binary32) nearest to `x`, ties to even (from half an ulp beyond the
    largest float on: infinity), returned as a Python float; infinities, NaN and the sign
    of a zero stay."""
    if isinstance(x, float) and (not math.isfinite(x) or x == 0.0):
        return x
    frac = Fraction(x)
    if abs(frac) >= _FLOAT_OVERFLOW:
        return math.inf if frac > 0 else -math.inf
    try:  # near the nearest float: rounding through a double may miss it by an ulp
        approx = struct.unpack("<f", struct.pack("<f", float(frac)))[0]
    except OverflowError:  # the double is beyond the largest float, `frac` is not
        approx = FLT_MAX if frac > 0 else -FLT_MAX
    bits = struct.unpack("<I", struct.pack("<f", approx))[0]
    best = approx
    for nb in (bits - 1, bits + 1):
        if 0 <= nb < 2 ** 32:
            cand = struct.unpack("<f", struct.pack("<I", nb))[0]
            if not math.isfinite(cand):
                continue
            d_best, d_cand = abs(Fraction(best) - frac), abs(Fraction(cand) - frac)
            if d_cand < d_best or (d_cand == d_best and nb % 2 == 0):
                best = cand
    return best


#: Type of a floating literal by its suffix (gcc's: `f16` ... `f64x` name the `_FloatN`
#: types, `q` is `__float128`, `w` is `__float80`, `df`, `dd`, `dl` the decimal types).
_FLOAT_SUFFIXES: dict[str, FloatType] = {
    "": DOUBLE, "f": FLOAT, "l": LONGDOUBLE, "q": EXTENDED_FLOATS["__float128"],
    "w": EXTENDED_FLOATS["__float80"], "df": EXTENDED_FLOATS["_Decimal32"],
    "dd": EXTENDED_FLOATS["_Decimal64"], "dl": EXTENDED_FLOATS["_Decimal128"],
    **{name.removeprefix("_Float").lower().join(("f", "")): t
       for name, t in EXTENDED_FLOATS.items() if name.startswith("_Float")},
}
_FLOAT_TEXT = re.compile(r"(0x(?:[0-9a-f]*\.?[0-9a-f]*)p[+-]?[0-9]+|"
                         r"(?:[0-9]*\.?[0-9]*)(?:e[+-]?[0-9]+)?)([a-z0-9]*)")


def is_imaginary(text: str) -> bool:
    """Whether a numeric literal is GNU C's imaginary constant (`2.0i`, `1.5fj`, `3i`): its
    type is complex. No digit of a number is an `i` or a `j`."""
    return any(c in "iIjJ" for c in text)


def _hex_value(text: str) -> Fraction:
    """The exact value of a hexadecimal floating literal without its suffix (`0x1.8p1`)."""
    mantissa, exponent = text[2:].split("p")
    whole, _, fraction = mantissa.partition(".")
    return Fraction(int(whole + fraction, 16)) * Fraction(2) ** (int(exponent) - 4 * len(fraction))


def float_literal(text: str) -> tuple[float, FloatType]:
    """The value of a floating literal, rounded once from its exact decimal (or hex) value
    to its type, and the type (by its suffix: `float` for `f`, `long double` for `l`,
    `_Float32` for `f32`, ...; for a type whose format is not modelled the value is that
    of a double). Rounding to double first and then to float would round twice and can
    miss the nearest float.

    Raises:
        ValueError: not a real floating literal.
    """
    match = _FLOAT_TEXT.fullmatch(text.lower())
    if match is None or match.group(2) not in _FLOAT_SUFFIXES or not match.group(1):
        raise ValueError(f"not a floating literal: {text}")
    t, ctype = match.group(1), _FLOAT_SUFFIXES[match.group(2)]
    value = _hex_value(t) if t.startswith("0x") else Fraction(t)
    if ctype.size == FLOAT.size and ctype.unmodelled is None:
        return round_to_float32(value), ctype
    try:
        return float(value), ctype
    except OverflowError:  # beyond the largest double: infinity, as gcc reads it
        return (math.inf if value > 0 else -math.inf), ctype
