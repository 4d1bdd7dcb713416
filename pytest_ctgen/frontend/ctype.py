"""C types with the sizes, alignments and layouts gcc uses on x86-64 (LP64).

Scalar types are frozen values compared by content. Records (struct/union) are compared by
identity because they can be self-referential; their fields are filled in once the layout is
known (from the compiler probe, see `layout.py`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final, Literal, overload

if TYPE_CHECKING:
    from pycparser import c_ast


class CType:
    """Base of every C type."""

    size: int
    align: int

    @property
    def is_scalar(self) -> bool:
        return isinstance(self, (IntType, FloatType, PointerType))

    @property
    def is_integer(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_arithmetic(self) -> bool:
        return isinstance(self, (IntType, FloatType))

    @property
    def is_complete(self) -> bool:
        return True


@dataclass(frozen=True)
class VoidType(CType):
    size: int = 1  # gcc allows arithmetic on void * with size 1
    align: int = 1

    def __str__(self) -> str:
        return "void"

    @property
    def is_complete(self) -> bool:
        return False


@dataclass(frozen=True)
class IntType(CType):
    """An integer type. `rank` orders conversion ranks (bool < char < short < int < long <
    long long)."""

    name: str
    size: int
    align: int
    signed: bool
    rank: int

    @property
    def bits(self) -> int:
        return self.size * 8

    @property
    def is_bool(self) -> bool:
        return self.rank == 0

    @property
    def min_value(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max_value(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, value: int) -> int:
        """`value` converted to this type as gcc does (modulo 2^bits, two's complement)."""
        if self.is_bool:
            return 1 if value else 0
        value &= (1 << self.bits) - 1
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class EnumType(IntType):
    """An enumerated type; gcc gives it `unsigned int` unless an enumerator is negative.
    `enumerators`: its constants and their values in declaration order (none while it is
    incomplete); how its values are shown, no part of the type's identity."""

    tag: str | None = None
    enumerators: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"enum {self.tag}" if self.tag else "enum <anonymous>"


@dataclass(frozen=True)
class FloatType(CType):
    """A real floating type. gcc's `_Float32` and `_Float64` are types of their own with
    the formats of `float` and `double`; `unmodelled` says why values of a type whose
    format is not modelled (x87 extended, half, quadruple and decimal precision) cannot
    be computed with, None for the modelled binary32 and binary64 types."""

    name: str
    size: int
    align: int
    unmodelled: str | None = None

    @property
    def exponent_bits(self) -> int:
        return {4: 8, 8: 11, 16: 15}[self.size]

    @property
    def significand_bits(self) -> int:
        """Significand width including the hidden bit (z3's convention); x87 `long double`
        stores its integer bit explicitly, so 64."""
        return {4: 24, 8: 53, 16: 64}[self.size]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class PointerType(CType):
    """A pointer. `target_const`/`target_volatile` record the qualifiers of the pointed-to
    type (`const char *`); they do not take part in comparisons."""

    target: CType
    size: int = 8
    align: int = 8
    target_const: bool = field(default=False, compare=False)
    target_volatile: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.target} *"


@dataclass(frozen=True, eq=False)
class VariableLength:
    """The element count of a variable length array (C11 6.7.6.2p4), known only at run
    time: `expression` is its size expression as parsed (a pycparser node; `*` for the
    unspecified size of a prototype), evaluated where the declarator is reached or, for a
    parameter, on entry of the function (ir/lower.py). Compared by identity: each
    declarator has its own."""

    expression: c_ast.Node


@dataclass(frozen=True)
class ArrayType(CType):
    """`count` is None for an array of unknown size (`int a[]`) and for a variable length
    array, whose `length` is then set."""

    element: CType
    count: int | None
    length: VariableLength | None = None

    # `size` and `align` are computed from the element: mypy does not accept a read-only
    # property in place of the base's attribute, which is what it is at run time
    @property
    def size(self) -> int:  # type: ignore[override]
        """The size in bytes; 0 when the compiler does not know it (see `is_complete`)."""
        return self.element.size * (self.count or 0)

    @property
    def align(self) -> int:  # type: ignore[override]
        return self.element.align

    @property
    def is_complete(self) -> bool:
        """Whether the size is known before the run: not for an array of unknown size nor
        for a variable length array or an array of them (`has_variable_size`)."""
        return self.count is not None and not has_variable_size(self)

    def __str__(self) -> str:
        dims = ""
        inner: CType = self
        while isinstance(inner, ArrayType):
            count = "*" if inner.length is not None else inner.count
            dims += f"[{'' if count is None else count}]"
            inner = inner.element
        return f"{inner}{dims}"


@dataclass(frozen=True)
class FunctionType(CType):
    """A function type; `prototyped` is False for an old-style declarator `f()`, which
    says nothing about the parameters."""

    result: CType
    params: tuple[CType, ...]
    variadic: bool = False
    size: int = 1
    align: int = 1
    prototyped: bool = field(default=True, compare=False)
    # the parameters' names where the declarator gives them (None where not)
    param_names: tuple[str | None, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        params = ", ".join(str(p) for p in self.params) + (", ..." if self.variadic else "")
        return f"{self.result} (*)({params or 'void'})"


@dataclass(frozen=True)
class Field:
    """A member of a record. Bit-fields have `bit_width`; `bit_offset` counts from the least
    significant bit of the storage unit that starts at byte `offset` (gcc, little-endian).

    The frontend normalises bit-fields so that `offset` is the byte holding the field's
    lowest bit and `0 <= bit_offset < 8`; the field spans `(bit_offset + bit_width + 7) // 8`
    bytes from `offset`. An anonymous struct/union member has `name` None and its record
    as `type`; unnamed bit-fields (padding) are not listed."""

    name: str | None
    type: CType
    offset: int
    bit_offset: int | None = None
    bit_width: int | None = None

    @property
    def is_bitfield(self) -> bool:
        return self.bit_width is not None


RecordKind = Literal["struct", "union"]


@dataclass(eq=False)
class RecordType(CType):
    """A struct or union. Incomplete until `complete()` gives it fields and a layout."""

    kind: RecordKind
    tag: str | None
    fields: tuple[Field, ...] = ()
    size: int = 0
    align: int = 1
    defined: bool = False
    spelling: str | None = None  # a C type name for it (tag or typedef), for diagnostics
    # declared in a function's parameter list (prototype scope, C11 6.2.1p4)
    in_parameter_list: bool = False
    _by_name: dict[str, Field] = field(default_factory=dict, repr=False)

    def complete(self, fields: tuple[Field, ...], size: int, align: int) -> None:
        self.fields = fields
        self.size = size
        self.align = align
        self.defined = True
        self._by_name = {}
        for f in fields:
            if f.name is not None:
                self._by_name[f.name] = f
            elif isinstance(f.type, RecordType):
                # anonymous struct/union member: its members are reachable directly
                for sub_name in f.type.member_names():
                    self._by_name.setdefault(sub_name, f)

    def member_names(self) -> list[str]:
        return list(self._by_name)

    def member(self, name: str) -> Field | None:
        """The field `name`, or for a member of an anonymous inner record, that inner field."""
        return self._by_name.get(name)

    @property
    def is_union(self) -> bool:
        return self.kind == "union"

    @property
    def is_complete(self) -> bool:
        return self.defined

    def __str__(self) -> str:
        if self.spelling:
            return self.spelling
        return f"{self.kind} {self.tag}" if self.tag else f"{self.kind} <anonymous>"

    def __hash__(self) -> int:
        return id(self)


def member_offset(record: RecordType, name: str) -> tuple[int, Field] | None:
    """Offset from the start of `record` and the field of member `name`, looking through
    anonymous inner records."""
    for f in record.fields:
        if f.name == name:
            return f.offset, f
        if f.name is None and isinstance(f.type, RecordType):
            inner = member_offset(f.type, name)
            if inner is not None:
                return f.offset + inner[0], inner[1]
    return None


def padding_bytes(t: CType) -> frozenset[int]:
    """The bytes of a value of type `t` that hold no member's value: a struct's padding,
    and the bytes of its unnamed bit-fields, also inside its members and elements (a case
    sets the members of an object, never these)."""
    if isinstance(t, ArrayType) and t.count is not None:
        inner = padding_bytes(t.element)
        size = t.element.size
        return frozenset(i * size + b for i in range(t.count) for b in inner)
    if not isinstance(t, RecordType) or not t.is_complete:
        return frozenset()
    held: set[int] = set()
    for f in t.fields:
        if f.bit_width is not None:
            held.update(range(f.offset, f.offset + ((f.bit_offset or 0) + f.bit_width + 7) // 8))
        else:
            inner = padding_bytes(f.type)
            held.update(f.offset + b for b in range(f.type.size) if b not in inner)
    return frozenset(range(t.size)) - held


def value_members(record: RecordType) -> list[Field]:
    """The members a value of the struct `record` shows (a case's value, its JSON and C
    text), each at its offset from the start of `record`: the named members, and in place
    of an anonymous member the members C names as the record's own: an anonymous
    struct's members, and of an anonymous union the one member that stands for it
    (`union_member`), in its place likewise when that is anonymous itself."""
    out: list[Field] = []
    for f in record.fields:
        if f.name is not None:
            out.append(f)
        elif isinstance(f.type, RecordType) and f.type.is_complete:
            inner = f.type
            members = value_members(inner) if not inner.is_union else \
                _union_members(inner)
            out.extend(replace(m, offset=f.offset + m.offset) for m in members)
    return out


def _union_members(union: RecordType) -> list[Field]:
    chosen = union_member(union)
    if chosen is None:
        return []
    if chosen.name is not None:
        return [chosen]
    assert isinstance(chosen.type, RecordType)
    inner = value_members(chosen.type) if not chosen.type.is_union else \
        _union_members(chosen.type)
    return [replace(m, offset=chosen.offset + m.offset) for m in inner]


def union_member(union: RecordType) -> Field | None:
    """The member of an anonymous `union` a case's value shows it by (C cannot name the
    union itself): the first as large as the union that gives each of its bytes a value
    (no padding, no bit-field, no `_Bool`), else the first as large, else the first of
    the largest, preferring one that does; never one holding a pointer (an input union's
    bytes are no pointer), None when each does (the union is left out of the value)."""
    members = [f for f in union.fields if not holds_pointer(f.type)]
    if not members:
        return None
    return min(members, key=lambda f: (f.type.size != union.size, -f.type.size,
                                       f.is_bitfield or not _dense(f.type)))


def holds_pointer(t: CType) -> bool:
    """Whether an object of `t` holds a pointer (which no array of bytes can)."""
    if isinstance(t, (PointerType, FunctionType)):
        return True
    if isinstance(t, ArrayType):
        return holds_pointer(t.element)
    if isinstance(t, RecordType):
        return any(holds_pointer(f.type) for f in t.fields)
    return False


def _dense(t: CType) -> bool:
    """Whether every byte pattern of a `t` is a value a case can show (no pointer)."""
    if isinstance(t, IntType):
        return not t.is_bool
    if isinstance(t, FloatType):
        return t.unmodelled is None
    if isinstance(t, ArrayType):
        return t.count is not None and _dense(t.element)
    if isinstance(t, RecordType) and t.is_complete:
        if t.is_union:
            chosen = union_member(t)
            return chosen is not None and not chosen.is_bitfield and \
                chosen.type.size == t.size and _dense(chosen.type)
        members = t.fields
        return all(not f.is_bitfield and _dense(f.type) for f in members) and \
            sum(f.type.size for f in members) == t.size
    return False


# The integer and floating types of gcc on x86-64 (LP64; plain char is signed).
BOOL = IntType("_Bool", 1, 1, False, 0)
CHAR = IntType("char", 1, 1, True, 1)
SCHAR = IntType("signed char", 1, 1, True, 1)
UCHAR = IntType("unsigned char", 1, 1, False, 1)
SHORT = IntType("short", 2, 2, True, 2)
USHORT = IntType("unsigned short", 2, 2, False, 2)
INT = IntType("int", 4, 4, True, 3)
UINT = IntType("unsigned int", 4, 4, False, 3)
LONG = IntType("long", 8, 8, True, 4)
ULONG = IntType("unsigned long", 8, 8, False, 4)
LLONG = IntType("long long", 8, 8, True, 5)
ULLONG = IntType("unsigned long long", 8, 8, False, 5)
FLOAT = FloatType("float", 4, 4)
DOUBLE = FloatType("double", 8, 8)
_X87 = "x87 80-bit extended precision is not modelled"
LONGDOUBLE = FloatType("long double", 16, 16, _X87)
# gcc's further real floating types on x86-64 (`__float80` is `long double`, `__float128`
# is `_Float128`), by the type specifier that names each
FLOAT16 = FloatType("_Float16", 2, 2, "half precision is not modelled")
FLOAT32 = FloatType("_Float32", 4, 4)
FLOAT64 = FloatType("_Float64", 8, 8)
FLOAT32X = FloatType("_Float32x", 8, 8)
FLOAT64X = FloatType("_Float64x", 16, 16, _X87)
FLOAT128 = FloatType("_Float128", 16, 16, "quadruple precision is not modelled")
EXTENDED_FLOATS: Final[dict[str, FloatType]] = {
    "_Float16": FLOAT16, "_Float32": FLOAT32, "_Float64": FLOAT64, "_Float32x": FLOAT32X,
    "_Float64x": FLOAT64X, "_Float128": FLOAT128, "__float128": FLOAT128,
    "__float80": LONGDOUBLE,
    **{f"_Decimal{bits}": FloatType(f"_Decimal{bits}", bits // 8, bits // 8,
                                    "decimal floating point is not modelled")
       for bits in (32, 64, 128)},
}
INT128 = IntType("__int128", 16, 16, True, 6)
UINT128 = IntType("unsigned __int128", 16, 16, False, 6)
VOID = VoidType()
SIZE_T = ULONG
#: Type names gcc predefines (no header declares them).
PREDEFINED_TYPEDEFS: Final[dict[str, CType]] = {"__int128_t": INT128, "__uint128_t": UINT128}
PTRDIFF_T = LONG

_UNSIGNED_OF = {
    SCHAR: UCHAR, CHAR: UCHAR, SHORT: USHORT, INT: UINT, LONG: ULONG, LLONG: ULLONG,
    INT128: UINT128,
}
_PLAIN_INTEGERS: Final[dict[tuple[int, bool], IntType]] = {
    (1, True): SCHAR, (1, False): UCHAR, (2, True): SHORT, (2, False): USHORT,
    (4, True): INT, (4, False): UINT, (8, True): LONG, (8, False): ULONG,
}


def unsigned_of(t: IntType) -> IntType:
    """The unsigned type of the same rank."""
    t = strip_enum(t)
    return _UNSIGNED_OF[t] if t.signed else t


@overload
def strip_enum(t: IntType) -> IntType: ...


@overload
def strip_enum(t: CType) -> CType: ...


def strip_enum(t: CType) -> CType:
    """The plain integer type an enum is compatible with (gcc: unsigned int or int, other
    widths only with out-of-range enumerators or -fshort-enums)."""
    if isinstance(t, EnumType):
        return _PLAIN_INTEGERS[(t.size, t.signed)]
    return t


def integer_promotion(t: IntType) -> IntType:
    """C11 6.3.1.1: types of rank below int become int (all their values fit)."""
    t = strip_enum(t)
    if t.rank < INT.rank:
        return INT
    return t


def usual_arithmetic_conversion(a: CType, b: CType) -> CType:
    """C11 6.3.1.8: the common real type of two arithmetic operands."""
    if isinstance(a, FloatType) or isinstance(b, FloatType):
        if isinstance(a, FloatType) and isinstance(b, FloatType):
            return a if _float_rank(a) >= _float_rank(b) else b
        return a if isinstance(a, FloatType) else b
    assert isinstance(a, IntType) and isinstance(b, IntType)
    a, b = integer_promotion(a), integer_promotion(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    if signed.size > unsigned.size:
        return signed
    return unsigned_of(signed)


def has_variable_size(t: CType) -> bool:
    """Whether `t` is a variable length array type or an array of them: its size is
    computed at run time from the element counts its declarators evaluated."""
    while isinstance(t, ArrayType):
        if t.length is not None:
            return True
        t = t.element
    return False


def is_variably_modified(t: CType) -> bool:
    """Whether `t` is a variable length array type, or an array of or a pointer to one
    (C11 6.7.6p3): a type whose meaning depends on sizes evaluated at run time."""
    while isinstance(t, (ArrayType, PointerType)):
        if isinstance(t, ArrayType) and t.length is not None:
            return True
        t = t.element if isinstance(t, ArrayType) else t.target
    return False


def _float_rank(t: FloatType) -> tuple[int, int]:
    """gcc's order of real floating types in the usual arithmetic conversions: the wider
    format first; of one format, `_FloatN` before the standard type before `_FloatNx`
    (`float + _Float32` is `_Float32`, `double + _Float32x` is `double`)."""
    if not t.name.startswith("_Float"):
        return t.size, 1
    return t.size, 0 if t.name.endswith("x") else 2


def decay(t: CType) -> CType:
    """Array-to-pointer and function-to-pointer conversion of an operand's type."""
    if isinstance(t, ArrayType):
        return PointerType(t.element)
    if isinstance(t, FunctionType):
        return PointerType(t)
    return t


def unqualified_equal(a: CType, b: CType) -> bool:
    """Whether two types are the same type (records by identity)."""
    if isinstance(a, RecordType) or isinstance(b, RecordType):
        return a is b
    return a == b


def compatible(a: CType, b: CType) -> bool:
    """C11 6.2.7: whether `a` and `b` are compatible types, as gcc decides it for
    `_Generic` and `__builtin_types_compatible_p` (top-level qualifiers, which these types
    do not carry, play no part). An enum is compatible with its underlying integer type,
    the qualifiers of pointed-to types must agree, an array of unknown size is compatible
    with one of any size, a function without a prototype with a prototype whose
    parameters the default argument promotions leave alone."""
    if isinstance(a, RecordType) or isinstance(b, RecordType):
        return a is b
    if isinstance(a, EnumType) or isinstance(b, EnumType):
        if isinstance(a, EnumType) and isinstance(b, EnumType):
            return a == b
        enum, other = (a, b) if isinstance(a, EnumType) else (b, a)
        return type(other) is IntType and strip_enum(enum) == other
    if isinstance(a, PointerType) and isinstance(b, PointerType):
        return (a.target_const, a.target_volatile) == (b.target_const, b.target_volatile) \
            and compatible(a.target, b.target)
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return compatible(a.element, b.element) and (
            a.count is None or b.count is None or a.count == b.count)
    if isinstance(a, FunctionType) and isinstance(b, FunctionType):
        if not compatible(a.result, b.result):
            return False
        if a.prototyped and b.prototyped:
            return a.variadic == b.variadic and len(a.params) == len(b.params) and all(
                compatible(p, q) for p, q in zip(a.params, b.params))
        typed = a if a.prototyped else b
        return not typed.variadic and all(
            not (isinstance(p, FloatType) and p.size < DOUBLE.size) and
            not (isinstance(p, IntType) and p.rank < INT.rank) for p in typed.params)
    return a == b


def reached_types(t: CType) -> Iterator[CType]:
    """`t` and the types it holds or points to (through arrays, members, pointers and
    function types), each record once."""
    seen: set[int] = set()
    todo = [t]
    while todo:
        t = todo.pop()
        if isinstance(t, RecordType):
            if id(t) in seen:
                continue
            seen.add(id(t))
            todo.extend(f.type for f in t.fields)
        elif isinstance(t, ArrayType):
            todo.append(t.element)
        elif isinstance(t, PointerType):
            todo.append(t.target)
        elif isinstance(t, FunctionType):
            todo.extend((t.result, *t.params))
        yield t


def unmodelled_part(t: CType) -> FloatType | None:
    """A floating type whose values are not modelled that `t` is, holds or points to
    (through arrays, members, pointers and function types), or None."""
    return next((r for r in reached_types(t)
                 if isinstance(r, FloatType) and r.unmodelled is not None), None)


def unnamed_pointee(t: CType) -> RecordType | None:
    """A record without a tag or typedef name that a pointer `t` is or holds points to
    (through arrays), or None: no declaration outside the unit's can make an object of it."""
    for r in reached_types(t):
        if isinstance(r, PointerType):
            target = r.target
            while isinstance(target, ArrayType):
                target = target.element
            if isinstance(target, RecordType) and not target.spelling:
                return target
    return None


def parameter_list_record(t: CType) -> RecordType | None:
    """A record declared in a parameter list that `t` is, holds or points to, or None:
    its scope ends with the function's declarator, so no code outside can name it."""
    return next((r for r in reached_types(t)
                 if isinstance(r, RecordType) and r.in_parameter_list), None)


def spell(t: CType) -> str:
    """A C type name for `t` (records by tag, typedef or `__typeof__`, as probed)."""
    if isinstance(t, EnumType):
        return f"enum {t.tag}" if t.tag else ("int" if t.signed else "unsigned int")
    if isinstance(t, (IntType, FloatType, VoidType)):
        return str(t)
    if isinstance(t, RecordType):
        if t.spelling:
            return t.spelling
        if t.tag:
            return f"{t.kind} {t.tag}"
        raise ValueError("an anonymous struct or union has no name to declare it with")
    return declaration_of(t, "")


def declaration_of(t: CType, name: str = "@", qualified: bool = False) -> str:
    """A C declaration of `name` with type `t`, e.g. `unsigned char *@[4]`; `qualified`
    keeps the qualifiers of pointed-to types (`const char *@`), as a declaration that
    must be compatible with the unit's own needs them."""
    inner = name
    quals = ""  # of the type the declarator reached
    while True:
        if isinstance(t, ArrayType):
            inner = f"{inner}[{t.count if t.count is not None else ''}]"
            t = t.element
        elif isinstance(t, PointerType):
            inner = f"(*{quals}{inner})" if isinstance(t.target, (ArrayType, FunctionType)) \
                else f"*{quals}{inner}"
            quals = ("const " if t.target_const else "") + \
                ("volatile " if t.target_volatile else "") if qualified else ""
            t = t.target
        elif isinstance(t, FunctionType):
            params = ", ".join(declaration_of(p, "", qualified) if qualified else spell(p)
                               for p in t.params) or "void"
            inner = f"{inner}({params}{', ...' if t.variadic else ''})"
            quals = ""
            t = t.result
        else:
            return f"{quals}{spell(t)} {inner}".strip()


def prototype_of(t: FunctionType, name: str, param_names: tuple[str, ...]) -> str:
    """The prototype of a function `name` of type `t` with the given parameter names,
    compatible with `t` (qualifiers kept)."""
    params = ", ".join(declaration_of(p, n, qualified=True)
                       for p, n in zip(t.params, param_names))
    if t.variadic:
        params += ", ..."
    if not params and t.prototyped:
        params = "void"
    return declaration_of(t.result, f"{name}({params})", qualified=True)
