"""C literals as gcc reads them (frontend/literals.py, their one home): integer suffixes and
types, character constants with escapes, prefixes and several characters, string literals
with prefixes and bytes that are not UTF-8, floating literals rounded once."""
from __future__ import annotations

import math

import pytest

from pytest_ctgen.frontend import ctype as ct
from pytest_ctgen.frontend.literals import (
    FLT_MAX, char_literal, float_literal, int_literal, round_to_float32,
    string_bytes, string_literal)


@pytest.mark.parametrize("text, value, ctype", [
    ("0xffffffff", 2**32 - 1, ct.UINT), ("4294967295", 2**32 - 1, ct.LONG),
    ("0x7fffffffffffffff", 2**63 - 1, ct.LONG), ("0x8000000000000000", 2**63, ct.ULONG),
    ("9223372036854775808", 2**63, ct.ULLONG), ("1lu", 1, ct.ULONG), ("1LLU", 1, ct.ULLONG),
    ("0X1F", 31, ct.INT), ("0B11", 3, ct.INT), ("1'000", 1000, ct.INT),
    ("18446744073709551616", 0, ct.ULLONG),
])
def test_integer_literals_take_the_first_type_that_holds_them(text, value, ctype):
    assert int_literal(text) == (value, ctype)


@pytest.mark.parametrize("text", ["1.5", "1e3", "08", "0x1p3", "1u2"])
def test_what_is_no_integer_literal_is_a_value_error(text):
    with pytest.raises(ValueError):
        int_literal(text)


@pytest.mark.parametrize("text, value, ctype", [
    ("'a'", 97, ct.INT), ("'\\xff'", -1, ct.INT), ("'\\400'", 0, ct.INT),
    ("'\\x141'", 0x41, ct.INT), ("'ab'", 0x6162, ct.INT), ("'\\E'", 27, ct.INT),
    ("L'\\xe9'", 0xE9, ct.INT), ("L'\\x263A'", 0x263A, ct.INT), ("L'ab'", 98, ct.INT),
    ("u'\\xffff'", 0xFFFF, ct.USHORT), ("U'\\x1F600'", 0x1F600, ct.UINT),
    ("u8'a'", 97, ct.UCHAR), ("'\\u00e9'", 0xC3A9, ct.INT), ("L'\\u00e9'", 0xE9, ct.INT),
])
def test_character_constants_keep_their_whole_value(text, value, ctype):
    """A wide constant's value is its code point (the lowering took its first UTF-8 byte
    and truncated an escape to 8 bits: u'\\xffff' was 255, U'\\x1F600' 0)."""
    assert char_literal(text) == (value, ctype)


def test_a_source_byte_that_is_not_utf8_stands_for_itself():
    """The source is read with `surrogateescape`: byte 0xE9 arrives as U+DCE9."""
    assert string_literal('"a\udce9b"') == ([0x61, 0xE9, 0x62], ct.CHAR)
    assert string_bytes('"a\udce9b"') == b"a\xe9b\0"
    assert char_literal("'\udce9'") == (-23, ct.INT)
    with pytest.raises(ValueError):
        string_literal('L"\udce9"')


def test_string_literals_by_prefix():
    assert string_literal('"a\\0b"') == ([97, 0, 98], ct.CHAR)
    assert string_literal('u8"\\u00e9"') == ([0xC3, 0xA9], ct.CHAR)
    assert string_literal('"\\xe9\\x141"') == ([0xE9, 0x41], ct.CHAR)
    assert string_literal('L"\\u00e9x"') == ([0xE9, 0x78], ct.INT)
    assert string_literal('u"\\U0001F600"') == ([0xD83D, 0xDE00], ct.USHORT)
    assert string_literal('U"\\U0001F600"') == ([0x1F600], ct.UINT)
    assert string_bytes('"hi"') == b"hi\0"
    # the lowering's model of a wide literal: its characters as a narrow literal's
    assert string_bytes('L"ab\\u00e9"') == b"ab\xc3\xa9\0"


def test_floats_are_rounded_once():
    # 1 + 2^-24 + 2^-64: above the midpoint of 1 and the next float, but a hex literal
    # read as a double first is that midpoint, and ties to even give 1
    assert float_literal("0x1.0000010000000001p0f") == (1 + 2.0 ** -23, ct.FLOAT)
    assert float_literal("0x1.8p1") == (3.0, ct.DOUBLE)
    assert float_literal("0x.8p1f") == (1.0, ct.FLOAT)
    assert float_literal("16777217.0f") == (16777216.0, ct.FLOAT)
    assert float_literal("1e-45f") == (2.0 ** -149, ct.FLOAT)
    assert float_literal("0.1f")[0] == 13421773 * 2.0 ** -27


def test_the_largest_float_and_infinity():
    """3.4028235677973366e38 is below the midpoint of FLT_MAX and 2^128 (it rounds to
    FLT_MAX), although its nearest double is above it (through the double: infinity)."""
    assert float_literal("3.4028235677973366e38f") == (FLT_MAX, ct.FLOAT)
    assert float_literal("3.4028235677973367e38f") == (math.inf, ct.FLOAT)
    assert round_to_float32(2 ** 128 - 2 ** 103) == math.inf
    assert round_to_float32(2 ** 128 - 2 ** 103 - 1) == FLT_MAX
    assert round_to_float32(-(2 ** 128)) == -math.inf


def test_round_to_float32_keeps_signs_and_specials():
    assert math.copysign(1.0, round_to_float32(-0.0)) == -1.0
    assert math.copysign(1.0, round_to_float32(-1e-50)) == -1.0
    assert math.isnan(round_to_float32(math.nan))
    assert round_to_float32(2 ** 53 + 2 ** 29 + 1) == 2.0 ** 53 + 2 ** 30
    assert round_to_float32(0.1) == 13421773 * 2.0 ** -27
