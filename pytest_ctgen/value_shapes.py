"""What the values of a declared type look like, as far as its declaration template shows
it (`Shape`): an export's values are checked against the shape of the declaration they are
given for (an integer in range, a float, a pointer, an array of so many elements). With
the unit at hand (`UnitShapes`), its type names show more: an enum's enumerators, a
struct's members, and which values its code uses as masks (value_forms.py).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from .c_text_rules import write_target
from .cases import OBJECT_PREFIX, IntForm

#: The integers of an export's fields other than values (lines, counts): 64 bits, signed
#: or unsigned.
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1
#: The widest integer a case's value is: 128 bits (gcc's `__int128`), signed or unsigned.
WIDE_MIN, WIDE_MAX = -(1 << 127), (1 << 128) - 1

_QUALIFIERS = frozenset("const volatile restrict __restrict __restrict__ _Atomic __const "
                        "__volatile__ register".split())
_FIXED = {"int8_t": (8, True), "uint8_t": (8, False), "int16_t": (16, True),
          "uint16_t": (16, False), "int32_t": (32, True), "uint32_t": (32, False),
          "int64_t": (64, True), "uint64_t": (64, False), "intptr_t": (64, True),
          "uintptr_t": (64, False), "size_t": (64, False), "ssize_t": (64, True),
          "ptrdiff_t": (64, True), "intmax_t": (64, True), "uintmax_t": (64, False),
          "__int128_t": (128, True), "__uint128_t": (128, False)}
_INT_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "__signed__",
                        "__int128", "__int128__"})


@dataclass(frozen=True)
class Shape:
    """What a value of a declared type looks like, as far as its template shows it:
    kind "int" (within `low`..`high`), "float", "double", "pointer", "array" (of
    `count` `element`s, None: unsized) or "any" (a record, a typedef of the unit...).
    The ranges are those of LP64, the widest target (an ABI flag only narrows them).
    `char`: plain char, the type of text (an array of it may be given as a string).
    Known from the unit only: `form`, how an integer is shown (an enum's enumerators, a
    mask's hex digits); of a struct or union ("any"): `name`, its C type (`struct cfg`),
    `members`, the shapes of the members a value may name (those a designated
    initializer can: no other), and `size`, its size in bytes."""

    kind: str
    low: int = WIDE_MIN
    high: int = WIDE_MAX
    count: int | None = None
    element: Shape | None = None
    char: bool = False
    form: IntForm | None = None
    members: tuple[tuple[str, Shape], ...] = ()
    name: str = ""
    size: int | None = None

    def holds_text(self) -> bool:
        """Whether this is an array of plain char."""
        return self.kind == "array" and self.element is not None and self.element.char


ANY = Shape("any")


def _scalar_shape(words: list[str], types: Mapping[str, Shape]) -> Shape:
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
            128 if "__int128" in words or "__int128__" in words else \
            64 if "long" in words else 32
        if words == ["char"]:  # plain char: either signedness
            return Shape("int", -128, 255, char=True)
    else:
        return types.get(" ".join(words), ANY)  # a type name of the unit
    if signed:
        return Shape("int", -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return Shape("int", 0, (1 << bits) - 1)


def template_shape(template: str, types: Mapping[str, Shape] | None = None) -> Shape:
    """The shape of the values of a declaration template (one that passed
    `template_problem`): `uint8_t @` an int in 0..255, `int @[4]` an array of four,
    `char *@` and `int (*@)(int)` pointers; a type name of the unit (`state_t`, `enum
    e`, `struct s`) as `types` shows it, else any value."""
    at = template.index("@")
    before, after = template[:at], template[at + 1:].lstrip()
    m = re.match(r"\[\s*(\d*)\s*\]", after)
    if m:  # the suffix binds first: `char *@[4]` is an array of pointers
        element = template_shape(before + "@" + after[m.end():], types)
        return Shape("array", count=int(m.group(1)) if m.group(1) else None,
                     element=element)
    if after.startswith("("):  # a function: no object
        return ANY
    words = [w for w in re.findall(r"[A-Za-z_]\w*|\S", before) if w not in _QUALIFIERS]
    if words and words[-1] == "*":  # `char *@`, `int (*@)(int)`, `int (*@)[3]`
        return Shape("pointer")
    if after:
        return ANY
    return _scalar_shape(words, types or {})


def as_mask(shape: Shape) -> Shape:
    """`shape` as the values of a mask show it (value_forms.py): an unsigned integer
    (not _Bool, plain char or an enum) in hex with as many digits as its type has, the
    elements of an array of them too."""
    if shape.kind == "int" and shape.low == 0 and shape.high > 1 and not shape.char and \
            shape.form is None:
        return replace(shape, form=IntForm(hex_digits=(shape.high.bit_length() + 3) // 4))
    if shape.kind == "array" and shape.element is not None:
        return replace(shape, element=as_mask(shape.element))
    return shape


#: What a binding of a case is (`UnitShapes.binding`): a parameter of the function under
#: test, a global, an object of the case (OBJECT_PREFIX...), or another (a stub's write
#: through a parameter, an object the unit allocates).
BindingRole = Literal["param", "global", "object", "other"]


def write_role(name: str) -> BindingRole:
    """What a stub's write target (`g`, `(*arg0)`) is: a global, or another lvalue."""
    target = write_target(name)
    return "global" if target is not None and target[0] == "global" else "other"


@dataclass(frozen=True)
class UnitShapes:
    """What the unit of a case tells of its values beyond a declaration's words
    (frontend/unit_shapes.py reads it): the shapes of the type names it declares
    (typedef names, `enum e`, `struct s`: enums with their enumerators, structs and
    unions with their members' shapes and their sizes), the names its code uses as
    masks (value_forms.py): parameters per function, globals, and the functions whose
    results are masks; and the shapes of its file-scope objects (`globals`, by name).
    """

    types: Mapping[str, Shape] = field(default_factory=dict)
    mask_params: Mapping[str, frozenset[str]] = field(default_factory=dict)
    mask_globals: frozenset[str] = frozenset()
    mask_results: frozenset[str] = frozenset()
    globals: Mapping[str, Shape] = field(default_factory=dict)

    def shape(self, template: str) -> Shape:
        """The shape of the values of `template` in the unit."""
        return template_shape(template, self.types)

    def binding(self, template: str, name: str, role: BindingRole, function: str = ""
                ) -> Shape:
        """The shape of the value of a binding `name` of a case of `function`: a mask
        where the parameter, the global, or the parameter or global whose object it is
        (`ctgen_obj_NAME`) is one."""
        masks = self.mask_params.get(function, frozenset())
        base = name.removeprefix(OBJECT_PREFIX)
        mask = (role == "param" and name in masks) or \
            (role == "global" and name in self.mask_globals) or \
            (role == "object" and (base in masks or base in self.mask_globals))
        shape = self.shape(template)
        return as_mask(shape) if mask else shape

    def result(self, function: str, template: str) -> Shape:
        """The shape of what `function` (of the unit, a stub) returns."""
        shape = self.shape(template)
        return as_mask(shape) if function in self.mask_results else shape


#: No unit at hand: the shapes the declarations show.
NO_UNIT = UnitShapes()


def byte_size(shape: Shape) -> int | None:
    """The size in bytes of a value of `shape` where the shape shows it (an integer by
    its range, a float, a pointer, a struct or union of the unit, an array of those),
    None otherwise."""
    if shape.size is not None:
        return shape.size
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
