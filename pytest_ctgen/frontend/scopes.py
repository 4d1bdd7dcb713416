"""C's scopes of names (C11 6.2.1): ordinary identifiers (typedef names, objects and
functions, enumerators) and struct, union and enum tags, one scope per block in a stack
whose bottom is the file scope."""
from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from .ctype import INT, CType

#: What an ordinary identifier names.
EntryKind = Literal["typedef", "object", "enumerator"]
TYPEDEF: Final = "typedef"
OBJECT: Final = "object"
ENUMERATOR: Final = "enumerator"


@dataclass(frozen=True)
class Entry:
    """An ordinary identifier: a typedef name, an object/function, or an enumerator."""

    kind: EntryKind
    type: CType
    quals: frozenset[str] = frozenset()
    value: int = 0


@dataclass
class _Scope:
    """One block's (or the file's) names: ordinary identifiers, tags, and its enumerators."""

    ordinary: dict[str, Entry] = field(default_factory=dict)
    tags: dict[str, CType] = field(default_factory=dict)
    enumerators: dict[str, tuple[int, CType]] = field(default_factory=dict)


class Scopes:
    """The names visible where a declaration or an expression stands."""

    def __init__(self) -> None:
        self._scopes: list[_Scope] = [_Scope()]

    def push_scope(self) -> None:
        self._scopes.append(_Scope())

    def pop_scope(self) -> None:
        if len(self._scopes) == 1:
            raise ValueError("cannot pop the file scope")
        self._scopes.pop()

    @property
    def at_file_scope(self) -> bool:
        return len(self._scopes) == 1

    def declare_typedef(self, name: str, ctype: CType, quals: frozenset[str] = frozenset()) -> None:
        """`typedef ... name;` in the current scope; `quals` are the typedef's own qualifiers."""
        self._declare(name, Entry(TYPEDEF, ctype, frozenset(quals)))

    def declare_object(self, name: str, ctype: CType,
                       quals: frozenset[str] = frozenset()) -> None:
        """A variable or function named `name` in the current scope; `quals` are the
        object's own qualifiers."""
        self._declare(name, Entry(OBJECT, ctype, quals))

    def declare_enum_constant(self, name: str, value: int, ctype: CType = INT) -> None:
        self._declare(name, Entry(ENUMERATOR, ctype, value=value))

    def _declare(self, name: str, entry: Entry) -> None:
        scope = self._scopes[-1]
        scope.ordinary[name] = entry
        if entry.kind == ENUMERATOR:
            scope.enumerators[name] = (entry.value, entry.type)
        else:
            scope.enumerators.pop(name, None)

    def lookup(self, name: str) -> Entry | None:
        """The ordinary identifier `name` visible here."""
        for scope in reversed(self._scopes):
            entry = scope.ordinary.get(name)
            if entry is not None:
                return entry
        return None

    def lookup_typedef(self, name: str) -> CType | None:
        entry = self.lookup(name)
        return entry.type if entry is not None and entry.kind == TYPEDEF else None

    def lookup_object(self, name: str) -> CType | None:
        entry = self.lookup(name)
        return entry.type if entry is not None and entry.kind == OBJECT else None

    def lookup_enum_constant(self, name: str) -> tuple[int, CType] | None:
        entry = self.lookup(name)
        if entry is None or entry.kind != ENUMERATOR:
            return None
        return entry.value, entry.type

    def declare_tag(self, name: str, ctype: CType) -> None:
        """The struct, union or enum `ctype` under tag `name` in the current scope."""
        self._scopes[-1].tags[name] = ctype

    def tag_in_scope(self, name: str) -> CType | None:
        """The type under tag `name` in the current scope itself (not an enclosing one)."""
        return self._scopes[-1].tags.get(name)

    def lookup_tag(self, name: str) -> CType | None:
        """The struct, union or enum type visible under tag `name`."""
        for scope in reversed(self._scopes):
            tagged = scope.tags.get(name)
            if tagged is not None:
                return tagged
        return None

    @property
    def enum_constants(self) -> Mapping[str, tuple[int, CType]]:
        """The visible enumerators: name -> (value, type)."""
        return ChainMap(*(scope.enumerators for scope in reversed(self._scopes)))

    @property
    def typedefs(self) -> dict[str, CType]:
        """The typedef names declared at file scope."""
        return {n: e.type for n, e in self._scopes[0].ordinary.items() if e.kind == TYPEDEF}

    @property
    def tags(self) -> dict[str, CType]:
        """The struct/union/enum tags declared at file scope."""
        return dict(self._scopes[0].tags)
