"""What a unit tells of its values (value_shapes.UnitShapes): the shapes of the type
names it declares, as its C types are (an enum's with its enumerators, a struct's with its
members' shapes), and the names its code uses as masks (mask_uses.py).

An enum's values are shown by the names of its enumerators only where each of those is a
constant of the unit's file scope with that value (the harness, which includes the unit,
can then write it): an enum declared in a block or a prototype shows numbers.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..cases import IntForm
from ..value_shapes import ANY, Shape, UnitShapes, as_mask
from .ctype import ArrayType, CType, EnumType, FloatType, IntType, PointerType, RecordType
from .layout import leaf_members
from .mask_uses import mask_uses
from .unit import Unit

_TAG_KINDS = {"struct": RecordType, "union": RecordType, "enum": EnumType}


class _TypeShapes(Mapping[str, Shape]):
    """The shapes of a unit's type names (`state_t`, `enum e`, `struct s`), each made when
    first asked for."""

    def __init__(self, unit: Unit, mask_members: frozenset[str]) -> None:
        self._unit = unit
        self._masks = mask_members
        self._tags = unit.resolver.tags if unit.resolver is not None else {}
        self._made: dict[str, Shape] = {}

    def _type(self, key: str) -> CType | None:
        words = key.split()
        if len(words) == 1:
            return self._unit.typedefs.get(words[0])
        if len(words) == 2 and words[0] in _TAG_KINDS:
            found = self._tags.get(words[1])
            if isinstance(found, _TAG_KINDS[words[0]]) and \
                    (not isinstance(found, RecordType) or found.kind == words[0]):
                return found
        return None

    def __getitem__(self, key: str) -> Shape:
        if key not in self._made:
            ctype = self._type(key)
            if ctype is None:
                raise KeyError(key)
            self._made[key] = self.of(ctype)
        return self._made[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._unit.typedefs
        for tag, ctype in self._tags.items():
            kind = ctype.kind if isinstance(ctype, RecordType) else "enum"
            yield f"{kind} {tag}"

    def __len__(self) -> int:
        return len(self._unit.typedefs) + len(self._tags)

    def of(self, ctype: CType) -> Shape:
        """The shape of the values of `ctype`."""
        if isinstance(ctype, EnumType):
            return Shape("int", ctype.min_value, ctype.max_value, form=self._enum_form(ctype))
        if isinstance(ctype, IntType):
            if ctype.is_bool:
                return Shape("int", 0, 1)
            return Shape("int", ctype.min_value, ctype.max_value, char=ctype.name == "char")
        if isinstance(ctype, FloatType) and ctype.unmodelled is None:
            return Shape("float" if ctype.size == 4 else "double")
        if isinstance(ctype, PointerType):
            return Shape("pointer")
        if isinstance(ctype, ArrayType):
            return Shape("array", count=ctype.count, element=self.of(ctype.element))
        if isinstance(ctype, RecordType) and ctype.is_complete:
            members = []
            # the members a designated initializer can name, through anonymous ones
            for f in leaf_members(ctype):
                assert f.name is not None
                shape = self.of(f.type)
                if f.bit_width is not None and shape.kind == "int" and shape.form is None:
                    low = -(1 << (f.bit_width - 1)) if shape.low < 0 else 0
                    high = (1 << (f.bit_width - (1 if shape.low < 0 else 0))) - 1
                    shape = Shape("int", low, high)
                members.append((f.name, as_mask(shape) if f.name in self._masks else shape))
            return Shape("any", members=tuple(members), name=str(ctype), size=ctype.size)
        return ANY

    def _enum_form(self, enum: EnumType) -> IntForm | None:
        """How the values of `enum` are shown: by its enumerators that are constants of
        the unit's file scope with their values."""
        constants = self._unit.enum_constants
        named = tuple((name, value) for name, value in enum.enumerators
                      if name in constants and constants[name][0] == value)
        return IntForm(enumerators=named) if named else None


class _GlobalShapes(Mapping[str, Shape]):
    """The shapes of a unit's file-scope objects, by name, each made when first asked for."""

    def __init__(self, unit: Unit, types: _TypeShapes) -> None:
        self._unit = unit
        self._types = types

    def __getitem__(self, name: str) -> Shape:
        return self._types.of(self._unit.globals[name].type)

    def __iter__(self) -> Iterator[str]:
        return iter(self._unit.globals)

    def __len__(self) -> int:
        return len(self._unit.globals)


def unit_shapes(unit: Unit) -> UnitShapes:
    """What `unit` tells of its values."""
    masks = mask_uses(unit)
    types = _TypeShapes(unit, masks.members)
    return UnitShapes(types, masks.params, masks.globals, masks.results,
                      globals=_GlobalShapes(unit, types))
