"""The parsed translation unit: its objects, functions and the type resolver for its bodies.

`load_unit` (in `loader.py`) produces a `Unit`; the IR lowering consumes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from pycparser import c_ast

from ..errors import SourceLocation, UnsupportedError
from .ctype import ArrayType, CType, FunctionType

if TYPE_CHECKING:
    from .typeresolve import TypeResolver

#: What a `Variable` is: a file-scope variable, a parameter, a local or a static local.
VariableKind = Literal["global", "param", "local", "static_local"]
GLOBAL: Final = "global"
PARAM: Final = "param"
LOCAL: Final = "local"
STATIC_LOCAL: Final = "static_local"
_SYSTEM_DIRS = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/", "/usr/lib/clang/")


def is_unsized_array(t: CType) -> bool:
    """`T x[]`: an array of unknown size whose elements have a size."""
    return isinstance(t, ArrayType) and t.count is None and t.length is None and \
        t.element.is_complete and t.element.size > 0


def in_system_dir(file: str) -> bool:
    """Whether `file` is in a directory of the system's headers (the C library's)."""
    return file.startswith(_SYSTEM_DIRS)


@dataclass(eq=False)
class Variable:
    """A C object: a file-scope variable, a parameter, a local or a static local.

    Compared by identity: two locals of the same name in different blocks are different."""

    name: str
    type: CType
    kind: VariableKind
    location: SourceLocation
    declaration: str  # C declaration template, '@' for the name, qualifiers kept
    is_const: bool = False  # the object itself is const-qualified (never written)
    is_volatile: bool = False
    is_static: bool = False  # internal linkage (file-scope `static`)
    is_extern: bool = False  # declared `extern` and not defined in this unit
    init: c_ast.Node | None = None  # initializer expression or InitList

    def __repr__(self) -> str:
        return f"Variable({self.name}: {self.type}, {self.kind})"


@dataclass(eq=False)
class Function:
    """A function declared or defined in the unit."""

    name: str
    type: FunctionType
    params: list[Variable]
    location: SourceLocation
    prototype: str  # e.g. "int32_t sat_add(int32_t a, int32_t b)"; unnamed params get p0, p1
    definition: c_ast.FuncDef | None = None
    is_static: bool = False
    end_line: int = 0  # last line of the body, 0 if not defined

    declared_in: tuple[str, ...] = ()  # files holding a declaration or the definition

    @property
    def is_defined(self) -> bool:
        return self.definition is not None

    @property
    def is_library(self) -> bool:
        """Declared only in system headers (the C library), never in the user's files."""
        files = self.declared_in or (self.location.file,)
        return all(in_system_dir(f) for f in files)

    def in_file(self, file: str) -> bool:
        return self.location.file == file or file in self.declared_in


@dataclass(frozen=True)
class SkippedDefinition:
    """A function definition whose declaration uses something unsupported: not in
    `Unit.functions`, the reason in `Unit.unsupported`; it is reported as skipped."""

    name: str
    location: SourceLocation
    prototype: str


@dataclass(eq=False)
class Unit:
    """A preprocessed and parsed C source file."""

    path: Path  # the file as the user named it
    ast: c_ast.FileAST
    globals: dict[str, Variable] = field(default_factory=dict)  # in order of declaration
    functions: dict[str, Function] = field(default_factory=dict)
    enum_constants: dict[str, tuple[int, CType]] = field(default_factory=dict)  # value, type
    resolver: TypeResolver | None = None
    preprocessed: str = ""  # the text pycparser parsed (hash input for caches)
    typedefs: dict[str, CType] = field(default_factory=dict)  # file-scope typedef names
    # file-scope names (functions, globals, typedefs, tags as "struct S") whose declaration
    # uses something unsupported; the declaration was skipped and the reason kept here
    unsupported: dict[str, UnsupportedError] = field(default_factory=dict)
    skipped_definitions: list[SkippedDefinition] = field(default_factory=list)
    cflags: tuple[str, ...] = ()
    # declarations inside function bodies that use a construct the parser flagged, by id
    # of their node (frontend/parse.py: ParsedFile.unsupported)
    flagged: dict[int, UnsupportedError] = field(default_factory=dict)

    @property
    def main_file(self) -> str:
        """The file name locations of the unit's own file carry (headers carry theirs)."""
        return str(self.path)

    def in_main_file(self, location: SourceLocation) -> bool:
        return location.file == self.main_file

    def own_functions(self) -> list[Function]:
        """Functions declared or defined in the unit's own file (not only in headers)."""
        return [f for f in self.functions.values() if f.in_file(self.main_file)]

    def defined_functions(self) -> list[Function]:
        return [f for f in self.functions.values() if f.is_defined]

    def undefined_globals(self) -> list[Variable]:
        """Globals the unit declares `extern` in its own files (not the C library's headers)
        and does not define: of complete type, or arrays of unknown size."""
        return [v for v in self.globals.values()
                if v.is_extern and not in_system_dir(v.location.file) and (
                    (v.type.is_complete and v.type.size > 0) or is_unsized_array(v.type))]

    def undefined_functions(self) -> list[Function]:
        return [f for f in self.functions.values() if not f.is_defined]
