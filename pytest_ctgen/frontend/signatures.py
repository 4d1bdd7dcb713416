"""Functions' signatures (`cases.FunctionSignature`) read from their declarations: what the
harness declares of a function under test, a stub or a callback, so that the code
generator never parses C.

The texts come from the declaration's AST, spelled as the unit spells them (typedef names,
`int16_t win[16u]`), like the prototype the frontend gives a `Function`; what a parameter
is (an array of a constant bound, a function, a record...) from the types it is declared
with, before C adjusts them. A callback, or a stub the unit no longer declares when an
export is replayed, has only its prototype's text: it is parsed as a declaration at the
end of the unit (`declared_signatures`), never taken apart as text.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace

from pycparser import c_ast, c_generator

from ..cases import FileCases, FunctionSignature, Parameter, ParameterKind, StubPrototype
from ..errors import CtgenError
from .ctype import (
    ArrayType,
    CType,
    FunctionType,
    PointerType,
    RecordType,
    VoidType,
    declaration_of,
    prototype_of,
)
from .parse import parse
from .preprocess import gnu_keywords, is_va_list
from . import declarator_text
from .declarator_text import copy_declarator, generate, rename
from .typeresolve import TypeResolver
from .unit import Function, Unit


def _spelled(node: c_ast.Node, name: str = "@") -> str:
    """A declarator chain (a function's result) or a parameter as C text declaring `name`,
    spelled as the frontend spells prototypes (declarator_text.prototype)."""
    copied = copy_declarator(node)
    if isinstance(copied, (c_ast.Decl, c_ast.Typename)):  # a parameter: storage class kept
        rename(copied.type, name)
        return " ".join(c_generator.CGenerator().visit(copied).split())
    rename(copied, name)
    return generate(copied, [])


def _kind(ctype: CType) -> ParameterKind:
    if is_va_list(ctype):
        return "va_list"
    if isinstance(ctype, FunctionType) or \
            (isinstance(ctype, PointerType) and isinstance(ctype.target, FunctionType)):
        return "function"
    if isinstance(ctype, PointerType):
        return "pointer"
    if isinstance(ctype, ArrayType):
        return "array"
    if isinstance(ctype, RecordType):
        return "record"
    return "scalar"


def _parameter(resolver: TypeResolver, param: c_ast.Node, index: int, adjusted: CType
               ) -> Parameter:
    """Parameter `index` of a prototype, `adjusted` its type after adjustment."""
    name = param.name if isinstance(param, c_ast.Decl) and param.name else f"p{index}"
    declaration = _spelled(param)
    declared = param.type
    if isinstance(declared, c_ast.ArrayDecl):  # `int16_t win[16u]`, `const int a[n]`
        try:
            bound: int | None = resolver.eval_int_constant(declared.dim) \
                if declared.dim is not None else None
        except CtgenError:  # a variable length array, `[*]`
            bound = None
        return Parameter(name, declaration, "array", bound)
    if isinstance(declared, c_ast.TypeDecl) and \
            isinstance(declared.type, c_ast.IdentifierType):  # a typedef of an array?
        try:
            ctype = resolver.resolve(declared)
        except CtgenError:  # `__typeof__` of another parameter
            ctype = adjusted
        if isinstance(ctype, ArrayType):
            return Parameter(name, declaration, "array", ctype.count)
    return Parameter(name, declaration, _kind(adjusted))


def _from_declaration(resolver: TypeResolver, decl: c_ast.Decl, ftype: FunctionType
                      ) -> FunctionSignature:
    """The signature of the function `decl` declares with a function declarator."""
    func = decl.type
    assert isinstance(func, c_ast.FuncDecl)
    prototype = declarator_text.prototype(_renamed(decl, "@"))
    returns = None if isinstance(ftype.result, VoidType) else _spelled(func.type)
    items = [p for p in (func.args.params if func.args is not None else [])
             if not isinstance(p, c_ast.EllipsisParam)]
    params = tuple(_parameter(resolver, param, index, adjusted)
                   for index, (param, adjusted) in enumerate(zip(items, ftype.params)))
    return FunctionSignature(prototype, returns, params, ftype.variadic)


def _renamed(decl: c_ast.Decl, name: str) -> c_ast.Decl:
    """A shallow copy of `decl` declaring `name` (the AST is left as it is)."""
    return c_ast.Decl(name, decl.quals, decl.align, decl.storage, decl.funcspec, decl.type,
                      decl.init, decl.bitsize, decl.coord)


def _from_type(ftype: FunctionType, names: tuple[str, ...]) -> FunctionSignature:
    """The signature of a function declared without a function declarator (`fn_t f;`):
    spelled from its type."""
    returns = None if isinstance(ftype.result, VoidType) else \
        declaration_of(ftype.result, "@", qualified=True)
    params = tuple(Parameter(name, declaration_of(ctype, "@", qualified=True), _kind(ctype))
                   for name, ctype in zip(names, ftype.params))
    return FunctionSignature(prototype_of(ftype, "@", names), returns, params, ftype.variadic)


class UnitSignatures(Mapping[str, FunctionSignature]):
    """The signatures of the functions a unit declares or defines, by name, each read
    from its declaration when it is first asked for: from the definition, else from the
    declaration the unit's prototype was made from."""

    def __init__(self, unit: Unit) -> None:
        self._unit = unit
        self._known: dict[str, FunctionSignature] = {}
        self._declarations: dict[str, list[c_ast.Decl]] | None = None

    def __getitem__(self, name: str) -> FunctionSignature:
        if name not in self._known:
            self._known[name] = self._signature(self._unit.functions[name])
        return self._known[name]

    def __contains__(self, name: object) -> bool:
        return name in self._unit.functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._unit.functions)

    def __len__(self) -> int:
        return len(self._unit.functions)

    def _signature(self, fn: Function) -> FunctionSignature:
        resolver = self._unit.resolver
        assert resolver is not None
        if fn.definition is not None:
            return _from_declaration(resolver, fn.definition.decl, fn.type)
        for decl in self._declared(fn.name):
            if declarator_text.prototype(decl) == fn.prototype:
                return _from_declaration(resolver, decl, fn.type)
        return _from_type(fn.type, tuple(p.name for p in fn.params))

    def _declared(self, name: str) -> list[c_ast.Decl]:
        """The file-scope declarations of function `name` with a function declarator."""
        if self._declarations is None:
            self._declarations = {}
            for ext in self._unit.ast.ext:
                if isinstance(ext, c_ast.Decl) and ext.name and \
                        isinstance(ext.type, c_ast.FuncDecl):
                    self._declarations.setdefault(ext.name, []).append(ext)
        return self._declarations.get(name, [])


def declared_signatures(unit: Unit, prototypes: Mapping[str, str]
                        ) -> dict[str, FunctionSignature]:
    """The signatures of functions the unit does not declare, by name, from the text of
    their prototypes: each is parsed as a declaration after the unit's typedef names and
    resolved in the unit's file scope. Raises CtgenError for a text that is no prototype
    of its function there."""
    resolver = unit.resolver
    assert resolver is not None
    prelude = "".join(f"typedef int {name};\n" for name in unit.typedefs)
    out = {}
    for name, text in prototypes.items():
        try:
            ext = parse(f"{prelude}{text};\n", unit.path, gnu_keywords(unit.cflags)).ext
            decl = ext[-1]
            if len(ext) != len(unit.typedefs) + 1 or not isinstance(decl, c_ast.Decl) or \
                    decl.name != name or not isinstance(decl.type, c_ast.FuncDecl):
                raise CtgenError(f"it declares no function {name}")
            ftype = resolver.resolve(decl.type)
            assert isinstance(ftype, FunctionType)
            out[name] = _from_declaration(resolver, decl, ftype)
        except CtgenError as err:
            raise CtgenError(f"cannot read the prototype of {name} ({text!r}) with the "
                             f"unit: {err.message}") from None
    return out


def with_signatures(fc: FileCases, unit: Unit,
                    known: Mapping[str, FunctionSignature] | None = None) -> FileCases:
    """`fc` with a signature for each function the unit defines, each stub and each
    callback that has none yet: the unit's own (`known`, default all of `unit`'s), else
    (a callback, a stub the unit does not declare) read from the prototype's text."""
    own = known if known is not None else UnitSignatures(unit)
    defined = {f.name for f in unit.defined_functions()}
    def from_text(s: StubPrototype) -> bool:
        return s.signature is None and bool(s.callback or s.name not in own)

    stubs = (*fc.stubs, *(s for f in fc.functions for s in f.callbacks))
    read = declared_signatures(unit, {s.name: s.prototype for s in stubs if from_text(s)})

    def signed(s: StubPrototype) -> StubPrototype:
        if s.signature is not None:
            return s
        return replace(s, signature=read[s.name] if from_text(s) else own[s.name])

    functions = tuple(replace(
        f, callbacks=tuple(signed(s) for s in f.callbacks),
        signature=f.signature or (own[f.name] if f.name in defined else None))
        for f in fc.functions)
    return replace(fc, functions=functions, stubs=tuple(signed(s) for s in fc.stubs))
