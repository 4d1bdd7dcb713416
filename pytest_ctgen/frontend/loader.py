"""From a C file path to a `Unit`: preprocess, parse, resolve the file-scope declarations,
and take record layouts from the compiler."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pycparser import c_ast

from ..errors import SourceLocation, UnsupportedError
from .ctype import ArrayType, FunctionType
from .declarator_text import prototype
from .layout import probe_layouts
from .locations import coord_location
from .parse import ParsedFile, parse_file
from .preprocess import preprocess, gnu_keywords
from .typeresolve import TypeResolver
from .unit import GLOBAL, PARAM, Function, SkippedDefinition, Unit, Variable

# How strongly a declaration defines a global: a later, stronger one supplies the location.
_EXTERN, _TENTATIVE, _INITIALIZED = 0, 1, 2


def load_unit(path: Path, cflags: Sequence[str] = (), preprocessed: str | None = None,
              *, probe: bool = True) -> Unit:
    """Preprocess, parse and resolve the C file at `path` compiled with `cflags`.

    `preprocessed` is the output of `preprocess(path, cflags)` when the caller has it already.
    Without `probe`, nothing is compiled or run: the unit's names, prototypes and
    declaration texts are right, its sizes and layouts are the resolver's fallback.

    Raises:
        PreprocessError: gcc rejected the file.
        ParseError: pycparser rejected the preprocessed text.
    Declarations using unsupported constructs are skipped and listed in `Unit.unsupported`.
    """
    flags = tuple(cflags)
    text = preprocess(path, list(flags)) if preprocessed is None else preprocessed
    parsed = parse_file(text, path, gnu_keywords(flags))
    short_enums = _short_enums(flags)
    unit = _UnitBuilder(path, parsed, text, flags, TypeResolver(short_enums=short_enums)).build()
    assert unit.resolver is not None
    if not probe:
        return unit
    layouts = probe_layouts(path, flags, unit.resolver.probe_requests(), cache_key=text)
    if unit.resolver.apply_layouts(layouts) and unit.resolver.layout_constants:
        # Constant expressions (sizeof, offsetof) used the fallback numbers: resolve again.
        resolver = TypeResolver(short_enums=short_enums, layouts=layouts)
        unit = _UnitBuilder(path, parsed, text, flags, resolver).build()
    return unit


def _short_enums(flags: Sequence[str]) -> bool:
    enabled = False
    for flag in flags:
        if flag == "-fshort-enums":
            enabled = True
        elif flag == "-fno-short-enums":
            enabled = False
    return enabled


class _UnitBuilder:
    """Walks the file-scope declarations once, in order."""

    def __init__(self, path: Path, parsed: ParsedFile, text: str, flags: tuple[str, ...],
                 resolver: TypeResolver) -> None:
        self.path = path
        self.parsed = parsed
        self.resolver = resolver
        self.unit = Unit(path=path, ast=parsed.ast, resolver=resolver, preprocessed=text,
                         cflags=flags, flagged=parsed.unsupported)
        self._strength: dict[str, int] = {}

    def build(self) -> Unit:
        for ext in self.parsed.ast.ext:
            try:
                flagged = self.parsed.unsupported.get(id(ext))
                if flagged is not None:
                    raise flagged
                if isinstance(ext, c_ast.FuncDef):
                    self._function_definition(ext)
                elif isinstance(ext, c_ast.Typedef):
                    self.resolver.declare(ext)
                elif isinstance(ext, c_ast.Decl):
                    self._declaration(ext)
            except UnsupportedError as error:
                self._skip(ext, error)
        self.unit.enum_constants = dict(self.resolver.enum_constants)
        self.unit.typedefs = self.resolver.typedefs
        return self.unit

    def _skip(self, ext: c_ast.Node, error: UnsupportedError) -> None:
        if error.location is None:
            error.location = self._location(ext)
        name = _declared_name(ext)
        if name is not None:
            self.unit.unsupported.setdefault(name, error)
        if isinstance(ext, c_ast.Typedef):
            self.resolver.unsupported_typedefs.setdefault(ext.name, error)
        elif isinstance(ext, c_ast.FuncDef):
            self.unit.skipped_definitions.append(SkippedDefinition(
                str(name), self._location(ext.decl), prototype(ext.decl)))

    def _location(self, node: c_ast.Node | None) -> SourceLocation:
        return coord_location(getattr(node, "coord", None), str(self.path))

    # -------------------------------------------------------------- globals

    def _declaration(self, decl: c_ast.Decl) -> None:
        if decl.name is None:
            self.resolver.declare(decl)
            return
        ctype = self.resolver.resolve(decl.type)
        if isinstance(ctype, FunctionType):
            self._function_declaration(decl, ctype)
            return
        self._global(decl)

    def _global(self, decl: c_ast.Decl) -> None:
        storage = decl.storage or []
        ctype = self.resolver.declare(decl)
        quals = self.resolver.qualifiers(decl.type)
        if decl.init is not None:
            strength = _INITIALIZED
        elif "extern" in storage:
            strength = _EXTERN
        else:
            strength = _TENTATIVE
        template = self.resolver.declaration_template(decl)
        var = self.unit.globals.get(decl.name)
        if var is None:
            self.unit.globals[decl.name] = Variable(
                decl.name, ctype, GLOBAL, self._location(decl), template,
                is_const="const" in quals, is_volatile="volatile" in quals,
                is_static="static" in storage, is_extern=strength == _EXTERN, init=decl.init,
            )
            self._strength[decl.name] = strength
            return
        if strength > self._strength[decl.name]:
            self._strength[decl.name] = strength
            var.location = self._location(decl)
        if strength != _EXTERN:
            var.is_extern = False
        if decl.init is not None:
            var.init = decl.init
        if isinstance(var.type, ArrayType) and not var.type.is_complete and ctype.is_complete:
            var.type = ctype
            var.declaration = template
        var.is_static = var.is_static or "static" in storage
        var.is_const = var.is_const or "const" in quals
        var.is_volatile = var.is_volatile or "volatile" in quals

    # ------------------------------------------------------------ functions

    def _function_declaration(self, decl: c_ast.Decl, ftype: FunctionType) -> None:
        self.resolver.declare_object(decl.name, ftype)
        location = self._location(decl)
        function = self.unit.functions.get(decl.name)
        is_static = "static" in (decl.storage or [])
        if function is None:
            self.unit.functions[decl.name] = Function(
                decl.name, ftype, self._params(decl, ftype), location, self._prototype(decl),
                is_static=is_static, declared_in=(location.file,),
            )
            return
        function.is_static = function.is_static or is_static
        if location.file not in function.declared_in:
            function.declared_in += (location.file,)
        if not function.is_defined and not function.type.params and ftype.params:
            function.type = ftype
            function.params = self._params(decl, ftype)
            function.prototype = self._prototype(decl)

    def _function_definition(self, definition: c_ast.FuncDef) -> None:
        decl = definition.decl
        if definition.param_decls:
            raise UnsupportedError("old-style (K&R) function definition", self._location(decl))
        ftype = self.resolver.resolve(decl.type)
        if not isinstance(ftype, FunctionType):
            raise UnsupportedError(f"'{decl.name}' is not a function", self._location(decl))
        self.resolver.declare_object(decl.name, ftype)
        location = self._location(decl)
        end = self.parsed.block_end(definition.body)
        end_line = end[1] if end is not None and end[0] == location.file else 0
        function = self.unit.functions.get(decl.name)
        if function is not None and function.is_defined:
            # the unit comes first: a file analysed with it (a specification, an
            # implementation) does not replace what the unit defines itself
            return
        is_static = "static" in (decl.storage or [])
        params = self._params(decl, ftype)
        if function is None:
            function = Function(decl.name, ftype, params, location, self._prototype(decl))
            self.unit.functions[decl.name] = function
        function.type = ftype
        function.params = params
        function.location = location
        function.prototype = self._prototype(decl)
        function.definition = definition
        function.is_static = function.is_static or is_static
        function.end_line = end_line
        if location.file not in function.declared_in:
            function.declared_in += (location.file,)

    def _prototype(self, decl: c_ast.Decl) -> str:
        if _function_declarator(decl.type) is None:
            return self.resolver.declaration_template(decl, decl.name)
        return prototype(decl)

    def _params(self, decl: c_ast.Decl, ftype: FunctionType) -> list[Variable]:
        func = _function_declarator(decl.type)
        params: list[Variable] = []
        if func is None or func.args is None:
            for index, ptype in enumerate(ftype.params):
                params.append(Variable(f"p{index}", ptype, PARAM, self._location(decl),
                                       f"__typeof__({ptype}) @"))
            return params
        items = [p for p in func.args.params if not isinstance(p, c_ast.EllipsisParam)]
        for index, (param, ptype) in enumerate(zip(items, ftype.params)):
            if isinstance(param.type, c_ast.ArrayDecl):
                quals = frozenset(param.type.dim_quals or ())
            else:
                quals = self.resolver.qualifiers(param.type)
            params.append(Variable(
                param.name or f"p{index}", ptype, PARAM, self._location(param),
                self.resolver.parameter_template(param),
                is_const="const" in quals, is_volatile="volatile" in quals,
            ))
        return params


def _function_declarator(node: c_ast.Node) -> c_ast.FuncDecl | None:
    """The FuncDecl of a function declarator (`int f(int)`; not `int (*f)(int)`)."""
    return node if isinstance(node, c_ast.FuncDecl) else None


def _declared_name(ext: c_ast.Node) -> str | None:
    if isinstance(ext, c_ast.FuncDef):
        return str(ext.decl.name)
    name = getattr(ext, "name", None)
    if name:
        return str(name)
    spec = getattr(ext, "type", None)
    if isinstance(spec, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and spec.name:
        kind = {c_ast.Struct: "struct", c_ast.Union: "union", c_ast.Enum: "enum"}[type(spec)]
        return f"{kind} {spec.name}"
    return None
