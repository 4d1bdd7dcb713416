"""C literals and exact constant folding of IR expressions."""
from __future__ import annotations

from fractions import Fraction

from ..frontend.ctype import (
    CHAR, INT, LLONG, LONG, UINT, ULLONG, ULONG, CType, FloatType,
    IntType, PointerType)
from ..frontend.literals import round_to_float32
from .expr import Binary, Cast, Const, Expr, Unary

_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92,
            "'": 39, '"': 34, "?": 63, "e": 27}


def parse_int_literal(text: str) -> tuple[int, IntType]:
    """Value and type of an integer literal (C11 6.4.4.1, gcc's LP64 types)."""
    t = text.lower()
    suffix = ""
    while t and t[-1] in "ul":
        suffix = t[-1] + suffix
        t = t[:-1]
    if t.startswith("0x"):
        value, decimal = int(t[2:], 16), False
    elif t.startswith("0b"):
        value, decimal = int(t[2:], 2), False
    elif len(t) > 1 and t.startswith("0"):
        value, decimal = int(t, 8), False
    else:
        value, decimal = int(t), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    n = min(longs, 2)
    if unsigned:
        candidates = [[UINT, ULONG, ULLONG], [ULONG, ULLONG], [ULLONG]][n]
    elif decimal:
        candidates = [[INT, LONG, LLONG], [LONG, LLONG], [LLONG]][n]
    else:
        candidates = [[INT, UINT, LONG, ULONG, LLONG, ULLONG], [LONG, ULONG, LLONG, ULLONG],
                      [LLONG, ULLONG]][n]
    for c in candidates:
        if value <= c.max_value:
            return value, c
    return value & ((1 << 64) - 1), ULLONG


def _unescape(body: str) -> list[int]:
    """Byte values of the characters of a C string or character literal body."""
    out: list[int] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.extend(ch.encode("utf-8"))
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 2:j], 16) & 0xFF)
            i = j
        elif nxt in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        else:
            out.append(_ESCAPES.get(nxt, ord(nxt)))
            i += 2
    return out


def parse_char_literal(text: str) -> int:
    """Value (type int) of a character constant; gcc's char is signed."""
    if text[0] in "LuU":
        return _unescape(text[2:-1])[0]
    values = _unescape(text[1:-1])
    value = 0
    for v in values:
        value = (value << 8) | v
    if len(values) == 1:
        return CHAR.wrap(value)
    return INT.wrap(value)


def parse_string_literal(text: str) -> bytes:
    """Bytes (with the terminating NUL) of a possibly concatenated string literal."""
    data: list[int] = []
    i = 0
    while i < len(text):
        start = text.index('"', i)
        j = start + 1
        while text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        data.extend(_unescape(text[start + 1:j]))
        i = j + 1
        rest = text[i:].lstrip()
        if not rest.startswith('"'):
            break
    return bytes(data) + b"\0"


def convert_constant(value: int | float, src: CType, dst: CType) -> int | float | None:
    """A constant converted from `src` to `dst` with C's rules, or None if not a constant
    conversion that folding handles."""
    if isinstance(dst, IntType):
        if isinstance(src, FloatType):
            if value != value or value in (float("inf"), float("-inf")):
                return None
            v = int(value)
            if dst.is_bool:
                return 1 if value != 0 else 0
            return v if dst.min_value <= v <= dst.max_value else None
        return dst.wrap(int(value))
    if isinstance(dst, FloatType):
        if dst.size == 4:
            return round_to_float32(Fraction(value))
        return float(Fraction(value)) if isinstance(value, int) else float(value)
    if isinstance(dst, PointerType) and isinstance(src, IntType):
        return int(value) & ((1 << 64) - 1)
    return None


def fold(e: Expr) -> int | float | None:
    """The value of `e` if it is a constant expression of arithmetic type, else None."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Cast):
        v = fold(e.operand)
        return None if v is None else convert_constant(v, e.operand.type, e.type)
    if isinstance(e, Unary):
        v = fold(e.operand)
        if v is None:
            return None
        if e.op == "!":
            return 0 if v else 1
        if not isinstance(e.type, IntType):
            return -v if e.op == "-" else None
        if e.op == "-":
            return e.type.wrap(-int(v))
        if e.op == "~":
            return e.type.wrap(~int(v))
        return None
    if isinstance(e, Binary):
        a, b = fold(e.left), fold(e.right)
        if a is None or b is None:
            return None
        return fold_binary(e.op, a, b, e.left.type, e.type)
    return None


def fold_binary(op: str, a: int | float, b: int | float, operand_type: CType,
                result_type: CType) -> int | float | None:
    """Exact integer folding of a binary operation as gcc folds constants (floats only for
    comparisons)."""
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[op])
    if not isinstance(result_type, IntType):
        return None
    a, b = int(a), int(b)
    t = result_type
    if op == "+":
        return t.wrap(a + b)
    if op == "-":
        return t.wrap(a - b)
    if op == "*":
        return t.wrap(a * b)
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return t.wrap(q) if op == "/" else t.wrap(a - q * b)
    if op == "&":
        return t.wrap(a & b)
    if op == "|":
        return t.wrap(a | b)
    if op == "^":
        return t.wrap(a ^ b)
    if op in ("<<", ">>"):
        if b < 0:
            return None
        if b >= t.bits:  # undefined; gcc's folder shifts every bit out (a run masks b)
            return t.wrap(-1) if op == ">>" and t.wrap(a) < 0 else 0
        if op == "<<":
            return t.wrap(a << b)
        return t.wrap(a >> b)
    return None
