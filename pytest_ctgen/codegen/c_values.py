"""Case values as C text: exact literals of integers, floats, strings and bytes, and the
initializers and statements that give an object a case's value. An integer is written as
a case shows it (value_forms.py): an enum's value by its enumerator, a mask in hex.

Values follow their pointers by name (`PointerValue.target`): `with_targets` renames the
objects or functions they point to, `pointer_targets` lists them.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace

from ..c_text_rules import is_identifier
from ..cases import (
    ArrayValue,
    BytesValue,
    FilledBytesValue,
    FloatValue,
    IntForm,
    IntValue,
    PointerValue,
    RecordValue,
    Value,
    declare,
)
from ..char_text import array_text, char_constant, text_literal
from ..value_forms import enumerator, hex_text

INDENT = "    "


def c_int_literal(value: int) -> str:
    """A C integer literal (an expression) of exactly `value`, valid for every 64-bit value;
    a value of 128 bits (`__int128`, which C has no literals of) is an expression of its
    two halves (wide_int_expr)."""
    if value < -(1 << 63) or value >= (1 << 64):
        return wide_int_expr(value)
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    if value == -(1 << 31):
        return "(-2147483647 - 1)"
    if value < 0:
        return f"(-{-value}LL)" if value < -(1 << 31) else f"(-{-value})"
    return f"{value}{_suffix(value)}"


def wide_int_expr(value: int) -> str:
    """A constant expression of exactly `value`, an integer of 128 bits, signed or not:
    `unsigned __int128` made of its two 64-bit halves, converted to `__int128` (gcc
    wraps) for a value a signed one holds."""
    if value < -(1 << 127) or value >= (1 << 128):
        raise ValueError(f"integer {value} does not fit in 128 bits")
    bits = value & ((1 << 128) - 1)
    text = f"((unsigned __int128)0x{bits >> 64:x}ULL << 64 | 0x{bits & ((1 << 64) - 1):x}ULL)"
    return text if value >= 1 << 127 else f"((__int128){text})"


def _suffix(value: int) -> str:
    """The suffix that gives a literal of the nonnegative 64-bit `value` the type of the
    smallest of int, unsigned, long long and unsigned long long that holds it."""
    if value <= 0x7FFFFFFF:
        return ""
    if value <= 0xFFFFFFFF:
        return "U"
    return "LL" if value <= 0x7FFFFFFFFFFFFFFF else "ULL"


def c_enumerators(form: IntForm | None) -> tuple[tuple[str, int], ...]:
    """The enumerators of `form` C text may name: all of them, each an identifier (they
    come from the unit, value_shapes.UnitShapes), or none."""
    if form is None or not all(is_identifier(name) for name, _ in form.enumerators):
        return ()
    return form.enumerators


def c_int_expr(v: IntValue) -> str:
    """The C expression of `v` as a case shows it: its enumerator (an enumerator of the
    unit's enum type), a hex literal (a mask), else the exact decimal literal."""
    name = enumerator(v)
    if name is not None and c_enumerators(v.form):
        return name
    text = hex_text(v)
    if text is not None and v.value < 1 << 64:  # C has no literal of a wider one
        return text + _suffix(v.value)
    return c_int_literal(v.value)


def _shortest_float_text(v: FloatValue) -> str:
    """The shortest decimal text reading back as exactly this finite float (also FLT_MAX)."""
    for digits in range(1, 10):
        text = f"{v.value:.{digits}g}"
        try:
            if FloatValue.of(float(text), 4).bits != v.bits:
                continue
        except OverflowError:  # rounds past FLT_MAX
            continue
        return text if any(c in text for c in ".en") else text + ".0"
    return repr(v.value)


def c_float_literal(v: FloatValue) -> str:
    """An exact C expression for a float or double; non-finite values go through their bits."""
    x = v.value
    if math.isnan(x) or math.isinf(x):
        if v.size == 4:
            return f"ctgen_float_from_bits(0x{v.bits:08x}UL)"
        return f"ctgen_double_from_bits(0x{v.bits:016x}ULL)"
    if v.size == 4:
        return _shortest_float_text(v) + "f"
    text = repr(x)
    return text if any(c in text for c in ".e") else text + ".0"


def c_string(text: str) -> str:
    """A C string literal of `text` as UTF-8 (a surrogate escape stands for its byte)."""
    return text_literal(text.encode("utf-8", "surrogateescape"))


def text_initializer(data: bytes) -> str:
    """An initializer of a char array holding the text `data` (char_text.array_text): a
    string literal where the text ends in NUL (it and the NULs before it are implicit),
    else (no room for C's NUL: compilers warn about the literal) character constants."""
    if data.endswith(b"\0"):
        return text_literal(data.rstrip(b"\0"))
    return "{ " + ", ".join(char_constant(b) for b in data) + " }"


def text_statements(lvalue: str, data: bytes) -> list[str]:
    """Statements storing the text `data` into the char array `lvalue` (the bytes a stub
    writes into a buffer: as many as there are); an array of other elements, or fewer,
    is a compile error."""
    literal = text_literal(data[:-1] if data.endswith(b"\0") else data)
    copy = f"ctgen_copy_bytes((void *)&({lvalue}), {literal}, {len(data)}u);"
    if _BUFFER_WRITE.fullmatch(lvalue):
        return [copy]
    return [f"CTGEN_ELEMENTS_FIT({lvalue}, {len(data)});",
            f"(void)sizeof (char[sizeof (({lvalue})[0]) == 1 ? 1 : -1]);", copy]


def c_bytes(data: bytes) -> str:
    """A C string literal holding exactly `data` (plus the implicit NUL)."""
    return '"' + "".join(f"\\{b:03o}" for b in data) + '"'


def _contains(v: Value, kinds: tuple[type, ...]) -> bool:
    if isinstance(v, kinds):
        return True
    if isinstance(v, RecordValue):
        return any(_contains(x, kinds) for _, x in v.fields)
    if isinstance(v, ArrayValue):
        return any(_contains(x, kinds) for x in v.elements)
    return False


def scalar_expr(v: Value) -> str | None:
    """The C expression of a scalar value, or None if `v` is an aggregate or bytes."""
    if isinstance(v, IntValue):
        return c_int_expr(v)
    if isinstance(v, FloatValue):
        return c_float_literal(v)
    if isinstance(v, PointerValue):
        return pointer_expr(v)
    return None


def pointer_expr(v: PointerValue) -> str:
    """A pointer to `v.offset` bytes into the case's object `v.target` (NULL if none), or
    to the function `v.target`."""
    if v.target is None:
        return "0"
    if v.function:
        return v.target
    if v.target == "*":
        raise ValueError("a pointer to an object the case cannot name is no input")
    if v.offset == 0:
        return f"(void *)({v.target})"
    return f"(void *)((unsigned char *)({v.target}) + {c_int_literal(v.offset)})"


def initializer(v: Value) -> str:
    """A C initializer of `v` (designated for records). BytesValue cannot be expressed."""
    s = scalar_expr(v)
    if s is not None:
        return s
    if isinstance(v, RecordValue):
        # a member of no elements (a flexible array member, `int d[0]`) gets no
        # initializer: C has none for it where the object is not static
        fields = [(n, x) for n, x in v.fields
                  if not (isinstance(x, ArrayValue) and not x.elements)]
        if not fields:
            return "{ 0 }"
        return "{ " + ", ".join(f".{n} = {initializer(x)}" for n, x in fields) + " }"
    if isinstance(v, ArrayValue):
        if not v.elements:
            return "{ 0 }"
        text = array_text(v)
        if text is not None:
            return text_initializer(text)
        return "{ " + ", ".join(initializer(x) for x in v.elements) + " }"
    raise ValueError(f"no initializer for {v!r}")


def set_statements(lvalue: str, v: Value, top: bool = True) -> list[str]:
    """Statements storing `v` into `lvalue`; a record is zeroed as a whole first."""
    out: list[str] = []
    if top and _contains(v, (RecordValue,)):
        out.append(f"ctgen_zero_bytes((void *)&({lvalue}), sizeof ({lvalue}));")
    s = scalar_expr(v)
    if s is not None:
        out.append(f"{lvalue} = {s};")
    elif isinstance(v, RecordValue):
        for name, x in v.fields:
            out.extend(set_statements(f"{lvalue}.{name}", x, False))
    elif isinstance(v, ArrayValue) and array_text(v) is not None:
        out.extend(text_statements(lvalue, array_text(v) or b""))
    elif isinstance(v, ArrayValue):
        if v.elements:  # an export's array longer than the object is a compile error
            out.append(f"CTGEN_ELEMENTS_FIT({lvalue}, {len(v.elements)});")
        for i, x in enumerate(v.elements):
            out.extend(set_statements(f"{lvalue}[{i}]", x, False))
    elif isinstance(v, BytesValue):
        out.append(f"ctgen_copy_bytes((void *)&({lvalue}), {c_bytes(v.data)}, "
                   f"{byte_count(lvalue, len(v.data))});")
    elif isinstance(v, FilledBytesValue):
        out.extend(fill_statements(lvalue, v))
    else:
        raise TypeError(f"not a case value: {v!r}")
    return out


#: What a stub writes through a character or void pointer argument: the rest of the
#: object the argument points into, whose size only the case knows.
_BUFFER_WRITE = re.compile(r"\*\(unsigned char \*\)\w+")


def byte_count(lvalue: str, n: int) -> str:
    """How many of `n` bytes are copied into or compared with `lvalue`: at most its size
    (bytes of an export never spill past the object), except for a stub's buffer write."""
    if _BUFFER_WRITE.fullmatch(lvalue):
        return str(n)
    return f"(sizeof ({lvalue}) < {n}u ? sizeof ({lvalue}) : {n}u)"


def declare_with_value(declaration: str, var: str, v: Value) -> list[str]:
    """A local `var` declared from a template and holding `v` (const-qualified types too)."""
    decl = declare(declaration, var)
    if not _contains(v, (BytesValue, FilledBytesValue)):
        return [f"{decl} = {initializer(v)};"]
    return [f"{decl} = {{ 0 }};"] + set_statements(var, v)


def size_is(lvalue: str, size: int) -> str:
    """A statement that does not compile unless `lvalue` is `size` bytes large."""
    return f"(void)sizeof (char[sizeof ({lvalue}) == {size}u ? 1 : -1]);"


def fill_statements(lvalue: str, v: FilledBytesValue) -> list[str]:
    """Statements giving `lvalue` the bytes of `v`: every byte its fill, then one store per
    listed byte (an export's object of another size is a compile error)."""
    out = ["{", f"{INDENT}unsigned char *ctgen_b = (unsigned char *)&({lvalue});",
           f"{INDENT}ctgen_size ctgen_k;",
           f"{INDENT}{size_is(lvalue, v.size)}",
           f"{INDENT}for (ctgen_k = 0; ctgen_k < {v.size}u; ctgen_k++)",
           f"{INDENT * 2}ctgen_b[ctgen_k] = {v.fill};"]
    out += [f"{INDENT}ctgen_b[{k}] = {b};" for k, b in v.at]
    return out + ["}"]


def pointer_targets(v: Value) -> set[str]:
    """The objects (or functions) the pointers of `v` point to."""
    if isinstance(v, PointerValue):
        return {v.target} if v.target else set()
    if isinstance(v, RecordValue):
        return {t for _, x in v.fields for t in pointer_targets(x)}
    if isinstance(v, ArrayValue):
        return {t for x in v.elements for t in pointer_targets(x)}
    return set()


def with_targets(v: Value, names: dict[str, str], functions: bool = False) -> Value:
    """`v` with pointers to the case's objects (or with `functions`, pointers to
    functions) renamed as `names` says."""
    if isinstance(v, PointerValue) and v.function == functions and v.target in names:
        return replace(v, target=names[v.target])
    if isinstance(v, RecordValue):
        return RecordValue(tuple((n, with_targets(x, names, functions)) for n, x in v.fields))
    if isinstance(v, ArrayValue):
        return replace(v, elements=tuple(with_targets(x, names, functions)
                                         for x in v.elements))
    return v
