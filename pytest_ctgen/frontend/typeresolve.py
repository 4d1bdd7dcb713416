"""pycparser type trees to `ctype` objects, with C's scopes for typedef names, tags and
enumerators, and evaluation of integer constant expressions as gcc folds them on x86-64."""
from __future__ import annotations

import copy
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

from pycparser import c_ast, c_generator

from ..errors import SourceLocation, UnsupportedError
from .builtins import BIT_BUILTINS
from .builtins import evaluate as evaluate_builtin
from .constant_eval import (
    ARITHMETIC, COMPARISONS, compare, convert_constant, float_binary, integer_binary, unary)
from .ctype import (
    BOOL, CHAR, DOUBLE, EXTENDED_FLOATS, FLOAT, INT, INT128, LLONG, LONG, LONGDOUBLE,
    PREDEFINED_TYPEDEFS, PTRDIFF_T, SCHAR, SHORT, SIZE_T, UCHAR, UINT, UINT128, ULLONG, ULONG,
    USHORT, VOID, ArrayType, CType, EnumType, Field, FloatType, FunctionType, IntType,
    PointerType, RecordType, VariableLength, compatible, decay, integer_promotion,
    is_variably_modified, usual_arithmetic_conversion,
)
from .layout import Member, ProbedRecord, ProbeRequest, apply_probed, layout_differs, sysv_layout
from .literals import (
    char_literal, float_literal, int_literal, is_imaginary, string_literal)
from .gnu_ast import (
    AUTO_TYPE, CHOOSE_EXPR, TYPES_COMPATIBLE, GenericSelection, TypeofSpecifier, index_range)
from .locations import coord_location

Value = tuple[int | float, CType]

TYPEDEF: Final = "typedef"
OBJECT: Final = "object"
ENUMERATOR: Final = "enumerator"

_SPECIFIERS: Final = frozenset(
    {"void", "_Bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
     "__int128", "_Complex", *EXTENDED_FLOATS}
)


@dataclass(frozen=True)
class _Entry:
    """An ordinary identifier: a typedef name, an object/function, or an enumerator."""

    kind: str
    type: CType
    quals: frozenset[str] = frozenset()
    value: int = 0


@dataclass
class _Scope:
    ordinary: dict[str, _Entry] = field(default_factory=dict)
    tags: dict[str, CType] = field(default_factory=dict)
    enumerators: dict[str, tuple[int, CType]] = field(default_factory=dict)


def _location(node: c_ast.Node | None) -> SourceLocation | None:
    coord = getattr(node, "coord", None)
    return coord_location(coord) if coord is not None else None


def _unsupported(message: str, node: c_ast.Node | None) -> UnsupportedError:
    return UnsupportedError(message, _location(node))


class TypeResolver:
    """Resolves declarators and type names in the scope where they appear.

    File-scope records get a C spelling (`struct tag`, a typedef name or a `__typeof__`
    expression) so the layout probe can measure them; `layouts` are probe results keyed by
    that spelling and are applied as soon as a record gets it.
    """

    def __init__(
        self, *, short_enums: bool = False, layouts: Mapping[str, ProbedRecord] | None = None
    ) -> None:
        self.short_enums = short_enums
        self._scopes: list[_Scope] = [_Scope()]
        self._node_types: dict[int, tuple[c_ast.Node, CType]] = {}
        self._layouts: dict[str, ProbedRecord] = dict(layouts or {})
        self._keys: dict[int, str] = {}
        self._keyed: list[tuple[str, RecordType]] = []
        #: How many constant expressions used a record's size, alignment or offsets.
        self.layout_constants = 0
        #: The type of an expression in a `__typeof__` operand or `__auto_type` initializer.
        #: The lowering sets it while it lowers a function, whose objects these scopes do
        #: not hold; otherwise (file scope) the constant evaluator's `type_of`.
        self.expression_type: Callable[[c_ast.Node], CType] | None = None
        #: Evaluates the size expression of a variable length array declared in a block
        #: where the declarator stands and gives its key: set by the lowering while it
        #: lowers a function (at file scope such an array is an error).
        self.variable_length: Callable[[c_ast.Node], VariableLength] | None = None
        self._prototype_depth = 0  # resolving the parameters of a function declarator
        self._constant_depth = 0  # evaluating a constant expression
        #: File-scope typedef names whose declaration uses something unsupported: why.
        self.unsupported_typedefs: dict[str, UnsupportedError] = {}

    # ------------------------------------------------------------------ scopes

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
        self._declare(name, _Entry(TYPEDEF, ctype, frozenset(quals)))
        if isinstance(ctype, RecordType) and ctype.spelling is None:
            ctype.spelling = name
        if self.at_file_scope:
            self._register(ctype, name)

    def declare_object(self, name: str, ctype: CType,
                       quals: frozenset[str] = frozenset()) -> None:
        """A variable or function named `name` in the current scope; `quals` are the
        object's own qualifiers."""
        self._declare(name, _Entry(OBJECT, ctype, quals))
        if self.at_file_scope and not isinstance(ctype, FunctionType):
            self._register(ctype, f"__typeof__({name})")

    def declare_enum_constant(self, name: str, value: int, ctype: CType = INT) -> None:
        self._declare(name, _Entry(ENUMERATOR, ctype, value=value))

    def _declare(self, name: str, entry: _Entry) -> None:
        scope = self._scopes[-1]
        scope.ordinary[name] = entry
        if entry.kind == ENUMERATOR:
            scope.enumerators[name] = (entry.value, entry.type)
        else:
            scope.enumerators.pop(name, None)

    def _lookup(self, name: str) -> _Entry | None:
        for scope in reversed(self._scopes):
            entry = scope.ordinary.get(name)
            if entry is not None:
                return entry
        return None

    def lookup_typedef(self, name: str) -> CType | None:
        entry = self._lookup(name)
        return entry.type if entry is not None and entry.kind == TYPEDEF else None

    def lookup_object(self, name: str) -> CType | None:
        entry = self._lookup(name)
        return entry.type if entry is not None and entry.kind == OBJECT else None

    def lookup_enum_constant(self, name: str) -> tuple[int, CType] | None:
        entry = self._lookup(name)
        if entry is None or entry.kind != ENUMERATOR:
            return None
        return entry.value, entry.type

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

    # ------------------------------------------------------------- declarations

    def declare(self, node: c_ast.Node) -> CType:
        """Resolve a `Decl` or `Typedef` and enter its name in the current scope."""
        if isinstance(node, c_ast.Typedef):
            ctype = self.resolve(node.type)
            self.declare_typedef(node.name, ctype, self.qualifiers(node.type))
            return ctype
        if not isinstance(node, c_ast.Decl):
            raise _unsupported(f"unexpected declaration node {type(node).__name__}", node)
        if node.name is None:
            spec = node.type
            if isinstance(spec, (c_ast.Struct, c_ast.Union)) and spec.decls is None and spec.name:
                return self._forward_declaration(spec)
            return self.resolve(spec)
        ctype = self.declared_type(node)
        self.declare_object(node.name, ctype, self.qualifiers(node))
        return ctype

    def declared_type(self, decl: c_ast.Decl) -> CType:
        """The type of the object `decl` declares, completed by its initializer: an array
        of unknown size gets the initializer's count, `__auto_type` the initializer's type
        (arrays and functions decayed)."""
        if _is_auto_type(decl.type):
            if decl.init is None or isinstance(decl.init, c_ast.InitList):
                raise _unsupported("'__auto_type' needs an initializer expression", decl)
            return decay(self.expression_type_of(decl.init))
        ctype = self.resolve(decl.type)
        if isinstance(ctype, ArrayType) and ctype.count is None and ctype.length is None \
                and decl.init is not None:
            ctype = ArrayType(ctype.element, self.initializer_count(decl.init, ctype))
        return ctype

    def expression_type_of(self, expr: c_ast.Node) -> CType:
        """The type of `expr` where it stands, as `sizeof` and `__typeof__` see it."""
        if self.expression_type is not None:
            return self.expression_type(expr)
        return self.type_of(expr)

    def _forward_declaration(self, spec: c_ast.Struct | c_ast.Union) -> CType:
        """`struct S;` declares a new incomplete type unless S is already in this scope."""
        kind = "struct" if isinstance(spec, c_ast.Struct) else "union"
        existing = self._scopes[-1].tags.get(spec.name)
        if existing is not None:
            return existing
        record = self._new_record(kind, spec.name)
        self._node_types[id(spec)] = (spec, record)
        return record

    def initializer_count(self, init: c_ast.Node, array: ArrayType) -> int:
        """Elements of an array of unknown size given by its initializer."""
        init = unbraced_string(init)
        if _is_string(init):
            assert isinstance(init, c_ast.Constant)
            return len(string_literal(init.value)[0]) + 1
        if isinstance(init, c_ast.InitList):
            count = index = 0
            for item in init.exprs:
                if isinstance(item, c_ast.NamedInitializer):
                    designator = item.name[0]
                    if isinstance(designator, c_ast.ID):
                        raise _unsupported("field designator in an array initializer", item)
                    index = self.eval_int_constant((index_range(designator) or
                                                    (designator, designator))[1])
                index += 1
                count = max(count, index)
            return count
        raise _unsupported("initializer of an array of unknown size", init)

    # -------------------------------------------------------------- resolution

    def resolve(self, node: c_ast.Node) -> CType:
        """The type a declarator, type name or type specifier denotes."""
        if isinstance(node, (c_ast.Decl, c_ast.Typename, c_ast.Typedef)):
            return self.resolve(node.type)
        if isinstance(node, c_ast.TypeDecl):
            return self.resolve(node.type)
        if isinstance(node, c_ast.PtrDecl):
            target = self.resolve(node.type)
            quals = self.qualifiers(node.type)
            return PointerType(
                target, target_const="const" in quals, target_volatile="volatile" in quals
            )
        if isinstance(node, c_ast.ArrayDecl):
            return self._array(node)
        if isinstance(node, c_ast.FuncDecl):
            return self._function(node)
        if isinstance(node, c_ast.IdentifierType):
            return self._identifier_type(node)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self._record(node)
        if isinstance(node, c_ast.Enum):
            return self._enum(node)
        raise _unsupported(f"type construct {type(node).__name__}", node)

    def qualifiers(self, node: c_ast.Node) -> frozenset[str]:
        """Qualifiers of the object a declarator declares (`const int a[3]` is const; for
        `const int *p` only the pointee is)."""
        if isinstance(node, (c_ast.Decl, c_ast.Typename, c_ast.Typedef, c_ast.ArrayDecl)):
            return self.qualifiers(node.type)
        if isinstance(node, c_ast.PtrDecl):
            return frozenset(node.quals or ())
        if isinstance(node, c_ast.TypeDecl):
            quals = frozenset(node.quals or ())
            spec = node.type
            if isinstance(spec, c_ast.IdentifierType) and len(spec.names) == 1:
                entry = self._lookup(spec.names[0])
                if entry is not None and entry.kind == TYPEDEF:
                    quals |= entry.quals
            return quals
        return frozenset()

    def _identifier_type(self, node: c_ast.IdentifierType) -> CType:
        names: list[str] = list(node.names)
        if len(names) == 1 and isinstance(names[0], TypeofSpecifier):
            operand = names[0].operand
            if isinstance(operand, c_ast.Typename):
                return self.resolve(operand)
            return self.expression_type_of(operand)
        if AUTO_TYPE in names:
            raise _unsupported("'__auto_type' outside a declaration with an initializer",
                               node)
        unknown = [n for n in names if n not in _SPECIFIERS]
        if unknown:
            if len(names) == 1:
                entry = self._lookup(names[0])
                if entry is not None and entry.kind == TYPEDEF:
                    return entry.type
                if names[0] in PREDEFINED_TYPEDEFS:
                    return PREDEFINED_TYPEDEFS[names[0]]
                why = self.unsupported_typedefs.get(names[0])
                if why is not None:
                    raise _unsupported(f"unsupported construct: type '{names[0]}', whose "
                                       "declaration is not supported "
                                       f"({why.as_cause(_location(node))})", node)
                raise _unsupported(f"unknown type name '{names[0]}'", node)
            raise _unsupported(f"invalid type specifiers '{' '.join(names)}'", node)
        spelled = " ".join(names)
        if "_Complex" in names:
            raise _unsupported(f"complex type '{spelled}'", node)
        extended = [EXTENDED_FLOATS[n] for n in names if n in EXTENDED_FLOATS]
        if extended:
            if len(names) > 1:
                raise _unsupported(f"invalid type specifiers '{spelled}'", node)
            return extended[0]
        unsigned = "unsigned" in names
        longs = names.count("long")
        if "void" in names:
            return VOID
        if "_Bool" in names:
            return BOOL
        if "float" in names:
            return FLOAT
        if "double" in names:
            return LONGDOUBLE if longs else DOUBLE
        if "char" in names:
            return UCHAR if unsigned else SCHAR if "signed" in names else CHAR
        if "__int128" in names:
            return UINT128 if unsigned else INT128
        if "short" in names:
            return USHORT if unsigned else SHORT
        if longs == 1:
            return ULONG if unsigned else LONG
        if longs >= 2:
            return ULLONG if unsigned else LLONG
        return UINT if unsigned else INT

    def _array(self, node: c_ast.ArrayDecl) -> ArrayType:
        """An array type; a size that is no integer constant expression makes a variable
        length array (C11 6.7.6.2p4), whose inner dimensions gcc evaluates first."""
        element = self.resolve(node.type)
        if isinstance(element, FunctionType):
            raise _unsupported("array of functions", node)
        if node.dim is None:
            return ArrayType(element, None)
        unspecified = isinstance(node.dim, c_ast.ID) and node.dim.name == "*"
        if not unspecified:
            try:
                count = self.eval_int_constant(node.dim)
            except UnsupportedError:
                pass
            else:
                if count < 0:
                    raise _unsupported(f"array size {count} is negative", node.dim)
                return ArrayType(element, count)
        if self._prototype_depth:  # evaluated on entry of the function's definition
            return ArrayType(element, None, VariableLength(node.dim))
        if self._constant_depth:
            raise _unsupported("variable length array in a constant expression", node.dim)
        if self.variable_length is None or unspecified:
            raise _unsupported("variable length array outside a function body", node.dim)
        return ArrayType(element, None, self.variable_length(node.dim))

    def _function(self, node: c_ast.FuncDecl) -> FunctionType:
        result = self.resolve(node.type)
        params: list[CType] = []
        names: list[str | None] = []
        variadic = False
        items = node.args.params if node.args is not None else []
        for param in items:
            if isinstance(param, c_ast.EllipsisParam):
                variadic = True
                continue
            if isinstance(param, c_ast.ID):
                raise _unsupported("old-style (K&R) parameter list", param)
            ctype = self._parameter_declarator(param)
            if ctype == VOID and len(items) == 1 and getattr(param, "name", None) is None:
                break
            params.append(self.adjust_parameter(ctype, param))
            names.append(getattr(param, "name", None))
        return FunctionType(result, tuple(params), variadic, prototyped=node.args is not None,
                            param_names=tuple(names))

    def _parameter_declarator(self, param: c_ast.Node) -> CType:
        """The type a parameter is declared with, before adjustment: the size expressions
        of its array declarators are not evaluated here (see `VariableLength`)."""
        self._prototype_depth += 1
        try:
            return self.resolve(param.type)
        finally:
            self._prototype_depth -= 1

    def adjust_parameter(self, ctype: CType, param: c_ast.Node | None = None) -> CType:
        """A parameter's type after array-to-pointer and function-to-pointer adjustment."""
        if isinstance(ctype, ArrayType):
            quals: frozenset[str] = frozenset()
            if param is not None and isinstance(param.type, c_ast.ArrayDecl):
                quals = self.qualifiers(param.type.type)
            elif param is not None:
                quals = self.qualifiers(param.type)
            return PointerType(
                ctype.element, target_const="const" in quals, target_volatile="volatile" in quals
            )
        if isinstance(ctype, FunctionType):
            return PointerType(ctype)
        return ctype

    # ----------------------------------------------------------------- records

    def _new_record(self, kind: str, tag: str | None) -> RecordType:
        record = RecordType(kind, tag, spelling=f"{kind} {tag}" if tag else None)
        if tag:
            self._scopes[-1].tags[tag] = record
            if self.at_file_scope:
                self._keys[id(record)] = f"{kind} {tag}"
                self._keyed.append((f"{kind} {tag}", record))
        return record

    def _record(self, node: c_ast.Struct | c_ast.Union) -> CType:
        cached = self._node_types.get(id(node))
        if cached is not None:
            return cached[1]
        kind = "struct" if isinstance(node, c_ast.Struct) else "union"
        if node.decls is None:
            found = self.lookup_tag(node.name) if node.name else None
            if found is None:
                record: CType = self._new_record(kind, node.name)
            elif not isinstance(found, RecordType) or found.kind != kind:
                raise _unsupported(f"'{node.name}' defined as wrong kind of tag", node)
            else:
                record = found
            self._node_types[id(node)] = (node, record)
            return record
        existing = self._scopes[-1].tags.get(node.name) if node.name else None
        if existing is not None and (not isinstance(existing, RecordType) or existing.kind != kind):
            raise _unsupported(f"'{node.name}' defined as wrong kind of tag", node)
        if isinstance(existing, RecordType) and existing.defined:
            self._node_types[id(node)] = (node, existing)
            return existing
        record = existing if isinstance(existing, RecordType) else self._new_record(kind, node.name)
        self._node_types[id(node)] = (node, record)
        layout = sysv_layout(kind, self._members(node))
        record.complete(layout.fields, layout.size, layout.align)
        key = self._keys.get(id(record))
        if key is not None:
            self._record_keyed(record, key)
        return record

    def _members(self, node: c_ast.Struct | c_ast.Union) -> list[Member]:
        members: list[Member] = []
        for decl in node.decls or []:
            if not isinstance(decl, c_ast.Decl):
                continue
            ctype = self.resolve(decl.type)
            if decl.bitsize is not None:
                members.append(Member(decl.name, ctype, self._bit_width(decl, ctype)))
                continue
            if decl.name is None:
                if isinstance(decl.type, (c_ast.Struct, c_ast.Union)) and decl.type.name is None:
                    members.append(Member(None, ctype))
                continue
            if is_variably_modified(ctype):
                raise _unsupported(f"field '{decl.name}' has a variably modified type", decl)
            if not ctype.is_complete and not (isinstance(ctype, ArrayType) and ctype.count is None):
                raise _unsupported(f"field '{decl.name}' has incomplete type '{ctype}'", decl)
            if isinstance(ctype, FunctionType):
                raise _unsupported(f"field '{decl.name}' declared as a function", decl)
            members.append(Member(decl.name, ctype))
        return members

    def _bit_width(self, decl: c_ast.Decl, ctype: CType) -> int:
        if not isinstance(ctype, IntType):
            raise _unsupported(f"bit-field '{decl.name}' has non-integer type '{ctype}'", decl)
        width = self.eval_int_constant(decl.bitsize)
        if width < 0 or width > ctype.bits or (width == 0 and decl.name is not None):
            raise _unsupported(f"invalid width {width} for bit-field '{decl.name}'", decl)
        return width

    # ------------------------------------------------------- probe bookkeeping

    def _register(self, ctype: CType, type_expr: str) -> None:
        """Give records reachable from a file-scope type a spelling the probe can use."""
        if isinstance(ctype, RecordType):
            if id(ctype) in self._keys:
                return
            if ctype.tag is not None and not ctype.defined:
                return
            self._keys[id(ctype)] = type_expr
            self._keyed.append((type_expr, ctype))
            if ctype.defined:
                self._record_keyed(ctype, type_expr)
        elif isinstance(ctype, PointerType) and not isinstance(ctype.target, FunctionType):
            self._register(ctype.target, f"__typeof__(*({type_expr})0)")
        elif isinstance(ctype, ArrayType):
            self._register(ctype.element, f"__typeof__((*({type_expr} *)0)[0])")

    def _record_keyed(self, record: RecordType, key: str) -> None:
        probed = self._layouts.get(key)
        if probed is not None:
            try:
                apply_probed(record, probed)
            except (KeyError, UnsupportedError):
                pass
        for f in record.fields:
            self._register_member(f.type, key, f.name, record)

    def _register_member(self, ctype: CType, key: str, name: str | None, record: RecordType) -> None:
        if name is not None:
            self._register(ctype, f"__typeof__((({key} *)0)->{name})")
        elif isinstance(ctype, RecordType):
            for inner in ctype.fields:
                self._register_member(inner.type, key, inner.name, record)

    def probe_requests(self) -> list[ProbeRequest]:
        """The complete file-scope records with their C spellings, in declaration order."""
        return [ProbeRequest(key, record) for key, record in self._keyed if record.defined]

    def apply_layouts(self, layouts: Mapping[str, ProbedRecord]) -> bool:
        """Apply probe results to the keyed records; whether any number changed."""
        changed = False
        for key, record in self._keyed:
            probed = layouts.get(key)
            if probed is None or not record.defined:
                continue
            try:
                if layout_differs(record, probed):
                    changed = True
                apply_probed(record, probed)
            except (KeyError, UnsupportedError):
                continue
        self._layouts.update(layouts)
        return changed

    # ------------------------------------------------------------------- enums

    def _enum(self, node: c_ast.Enum) -> CType:
        cached = self._node_types.get(id(node))
        if cached is not None:
            return cached[1]
        if node.values is None:
            found = self.lookup_tag(node.name) if node.name else None
            if found is None:
                found = EnumType(f"enum {node.name}", UINT.size, UINT.align, False, UINT.rank,
                                 tag=node.name)
                self._scopes[-1].tags[node.name] = found
            elif not isinstance(found, EnumType):
                raise _unsupported(f"'{node.name}' defined as wrong kind of tag", node)
            self._node_types[id(node)] = (node, found)
            return found
        values: list[tuple[str, int]] = []
        value = -1
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                value = self.eval_int_constant(enumerator.value)
            else:
                value += 1
            self.declare_enum_constant(enumerator.name, value, _enumerator_type(value, None))
            values.append((enumerator.name, value))
        underlying = self._enum_underlying([v for _, v in values])
        enum = EnumType(
            f"enum {node.name}" if node.name else underlying.name, underlying.size,
            underlying.align, underlying.signed, underlying.rank, tag=node.name,
        )
        for name, v in values:
            self.declare_enum_constant(name, v, _enumerator_type(v, underlying))
        if node.name:
            self._scopes[-1].tags[node.name] = enum
        self._node_types[id(node)] = (node, enum)
        return enum

    def _enum_underlying(self, values: list[int]) -> IntType:
        """gcc: `unsigned int` unless an enumerator is negative, then `int`; wider types for
        values beyond 32 bits; the smallest fitting type under -fshort-enums."""
        low, high = min(values, default=0), max(values, default=0)
        if low >= 0:
            candidates = [UCHAR, USHORT, UINT, ULONG] if self.short_enums else [UINT, ULONG]
        else:
            candidates = [SCHAR, SHORT, INT, LONG] if self.short_enums else [INT, LONG]
        for candidate in candidates:
            if candidate.min_value <= low and high <= candidate.max_value:
                return candidate
        return candidates[-1]

    # ------------------------------------------------------ constant expressions

    def eval_int_constant(self, expr: c_ast.Node) -> int:
        """The value of an integer constant expression (array sizes, enumerators, bit-field
        widths, case labels), computed with the C types of its operands."""
        value, ctype = self.constant(expr)
        if isinstance(ctype, FloatType) or isinstance(value, float):
            raise _unsupported("floating constant where an integer is required", expr)
        return int(value)

    def constant(self, expr: c_ast.Node) -> Value:
        """An arithmetic constant expression as (value, type)."""
        self._constant_depth += 1
        try:
            return _ConstantEvaluator(self).evaluate(expr)
        finally:
            self._constant_depth -= 1

    def type_of(self, expr: c_ast.Node) -> CType:
        """The type of an expression as `sizeof` sees it (no array decay)."""
        self._constant_depth += 1
        try:
            return _ConstantEvaluator(self).type_of(expr)
        finally:
            self._constant_depth -= 1

    # ------------------------------------------------------------ declarations text

    def declaration_template(self, decl: c_ast.Node, name: str = "@",
                             ctype: CType | None = None) -> str:
        """The declaration of `decl` as C text with `name` (default `@`) for the declared
        name and without storage class: `const uint8_t @[4]`, `int (*@)(int)`. Array sizes
        appear as numbers, including one taken from the initializer (`int a[] = {1, 2}`);
        `ctype` is the declared type when it is resolved already (a variable length
        array's size expression is evaluated once)."""
        type_node = copy_declarator(decl.type)
        if ctype is None:
            ctype = self.declared_type(decl) if isinstance(decl, c_ast.Decl) \
                else self.resolve(decl.type)
        _fold_dimensions(type_node, ctype)
        _rename(type_node, name)
        return _generate(type_node, getattr(decl, "align", None) or [])

    def parameter_template(self, param: c_ast.Node, name: str = "@") -> str:
        """Like `declaration_template` for a parameter, after adjustment (`int a[]` gives
        `int *@`). A pointer to a variable length array (`int m[][n]`) is declared
        `void *@`: its type names other parameters, and `void *` converts to it."""
        adjusted = self.adjust_parameter(self._parameter_declarator(param), param)
        if is_variably_modified(adjusted):
            return f"void *{name}"
        type_node = copy_declarator(param.type)
        if isinstance(type_node, c_ast.ArrayDecl):
            quals = [q for q in type_node.dim_quals or [] if q != "static"]  # `a[static n]`
            type_node = c_ast.PtrDecl(quals, type_node.type)
        elif isinstance(type_node, c_ast.FuncDecl):
            type_node = c_ast.PtrDecl([], type_node)
        elif isinstance(type_node, c_ast.TypeDecl):
            ctype = self.resolve(param.type)
            if isinstance(ctype, FunctionType):
                type_node = c_ast.PtrDecl([], type_node)
            elif isinstance(ctype, ArrayType):
                spelled = _generate(_abstract(copy_declarator(param.type)), [])
                return f"__typeof__((*({spelled} *)0)[0]) *{name}"
        # sizes as numbers (an export's templates hold no expressions)
        _fold_dimensions(type_node, adjusted)
        _rename(type_node, name)
        return _generate(type_node, [])

    def prototype(self, decl: c_ast.Decl) -> str:
        """`decl` (a function) as a prototype without storage class, every parameter named
        (unnamed ones get p0, p1, ... by position)."""
        type_node = copy_declarator(decl.type)
        func = type_node
        while not isinstance(func, c_ast.FuncDecl):
            func = func.type
        if func.args is not None:
            named: list[c_ast.Node] = []
            for index, param in enumerate(func.args.params):
                if isinstance(param, c_ast.Typename) and not _is_void(param):
                    param = c_ast.Decl(f"p{index}", param.quals, param.align, [], [],
                                       param.type, None, None, coord=param.coord)
                    _rename(param.type, f"p{index}")
                named.append(param)
            func.args.params = named
        _rename(type_node, decl.name)
        return _generate(type_node, [])


def _enumerator_type(value: int, underlying: IntType | None) -> IntType:
    if INT.min_value <= value <= INT.max_value or underlying is None:
        return INT
    return LONG if underlying.signed else ULONG


def _is_auto_type(type_node: c_ast.Node) -> bool:
    return isinstance(type_node, c_ast.TypeDecl) and isinstance(
        type_node.type, c_ast.IdentifierType) and type_node.type.names == [AUTO_TYPE]


def unbraced_string(init: c_ast.Node) -> c_ast.Node:
    """An array's initializer with the optional braces around a string literal dropped
    (`{"abc"}` is `"abc"`); any other initializer as it is."""
    if isinstance(init, c_ast.InitList) and len(init.exprs) == 1 and _is_string(init.exprs[0]):
        return init.exprs[0]
    return init


def _is_string(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "string"


def _is_void(param: c_ast.Typename) -> bool:
    t = param.type
    return (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
            and t.type.names == ["void"])


def _fold_dimensions(type_node: c_ast.Node, ctype: CType) -> None:
    """Write the sizes of the arrays along a declarator chain as plain numbers, also in
    the parameter lists of function declarators, where a parameter declared as an array
    is a pointer and its own size is left out (`int (*@)(int a[])`)."""
    node: c_ast.Node = type_node
    while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.FuncDecl)):
        if isinstance(node, c_ast.ArrayDecl):
            if not isinstance(ctype, ArrayType):
                return
            if ctype.count is not None:
                node.dim = c_ast.Constant("int", str(ctype.count))
            ctype = ctype.element
        elif isinstance(node, c_ast.FuncDecl):
            if not isinstance(ctype, FunctionType):
                return
            params = [p for p in (node.args.params if node.args is not None else [])
                      if isinstance(p, (c_ast.Decl, c_ast.Typename))]
            for param, ptype in zip(params, ctype.params):
                if isinstance(param.type, c_ast.ArrayDecl) and isinstance(ptype, PointerType):
                    param.type.dim, param.type.dim_quals = None, []
                    _fold_dimensions(param.type.type, ptype.target)
                else:
                    _fold_dimensions(param.type, ptype)
            ctype = ctype.result
        else:
            if not isinstance(ctype, PointerType):
                return
            ctype = ctype.target
        node = node.type


def _rename(type_node: c_ast.Node, name: str | None) -> None:
    """Set the declared name of a declarator chain."""
    node = type_node
    while not isinstance(node, c_ast.TypeDecl):
        if not hasattr(node, "type"):
            return
        node = node.type
    node.declname = name


def _abstract(type_node: c_ast.Node) -> c_ast.Node:
    _rename(type_node, None)
    return type_node


def copy_declarator(node: c_ast.Node) -> c_ast.Node:
    """A copy of a declarator chain that can be renamed and edited without touching the AST.

    Definitions of tagged structs/unions/enums become references (`struct S`); expressions
    and other leaves are shared."""
    if isinstance(node, c_ast.TypeDecl):
        return c_ast.TypeDecl(node.declname, list(node.quals or []), node.align,
                              _copy_specifier(node.type), node.coord)
    if isinstance(node, c_ast.PtrDecl):
        return c_ast.PtrDecl(list(node.quals or []), copy_declarator(node.type), node.coord)
    if isinstance(node, c_ast.ArrayDecl):
        return c_ast.ArrayDecl(copy_declarator(node.type), node.dim,
                               list(node.dim_quals or []), node.coord)
    if isinstance(node, c_ast.FuncDecl):
        args = node.args
        if args is not None:
            args = c_ast.ParamList([_copy_member(p) for p in args.params], args.coord)
        return c_ast.FuncDecl(args, copy_declarator(node.type), node.coord)
    if isinstance(node, (c_ast.Decl, c_ast.Typename)):
        return _copy_member(node)
    return _copy_specifier(node)


def _copy_member(node: c_ast.Node) -> c_ast.Node:
    if isinstance(node, c_ast.Decl):
        return c_ast.Decl(node.name, node.quals, node.align, node.storage, node.funcspec,
                          copy_declarator(node.type), node.init, node.bitsize, node.coord)
    if isinstance(node, c_ast.Typename):
        return c_ast.Typename(node.name, node.quals, node.align, copy_declarator(node.type),
                              node.coord)
    return node


def _copy_specifier(node: c_ast.Node) -> c_ast.Node:
    if isinstance(node, (c_ast.Struct, c_ast.Union)):
        if node.name:
            return type(node)(node.name, None, node.coord)
        if node.decls is not None:
            return type(node)(None, [_copy_member(d) for d in node.decls], node.coord)
    if isinstance(node, c_ast.Enum) and node.name:
        # a copy, not the constructor: pycparser 3.1 added fields to Enum's signature
        ref = copy.copy(node)
        ref.values = None
        return ref
    return node


def _generate(type_node: c_ast.Node, align: list[c_ast.Node]) -> str:
    decl = c_ast.Decl(None, [], align, [], [], type_node, None, None)
    text = c_generator.CGenerator().visit(decl)
    return " ".join(text.split())



# ----------------------------------------------------------------- constant evaluation

class _ConstantEvaluator:
    """C constant folding on (value, type) pairs: operands are converted by the usual
    arithmetic conversions and results wrap in their type, as gcc folds them."""

    def __init__(self, resolver: TypeResolver) -> None:
        self.resolver = resolver

    def evaluate(self, node: c_ast.Node) -> Value:
        method = getattr(self, f"_eval_{type(node).__name__}", None)
        if method is None:
            raise _unsupported("expression is not a constant", node)
        result: Value = method(node)
        return result

    def _eval_Constant(self, node: c_ast.Constant) -> Value:
        try:
            if node.type == "string":
                raise _unsupported("string literal in a constant expression", node)
            if node.type == "char" or node.value.endswith("'"):
                return char_literal(node.value)
            if is_imaginary(node.value):
                raise _unsupported(f"imaginary constant '{node.value}'", node)
            try:
                return int_literal(node.value)
            except ValueError:
                value, ctype = float_literal(node.value)
        except (ValueError, IndexError):
            raise _unsupported(f"invalid constant {node.value}", node) from None
        return convert(value, ctype, ctype, node)

    def _eval_ID(self, node: c_ast.ID) -> Value:
        found = self.resolver.lookup_enum_constant(node.name)
        if found is None:
            raise _unsupported(f"'{node.name}' is not a constant", node)
        return found

    def _eval_UnaryOp(self, node: c_ast.UnaryOp) -> Value:
        op = node.op
        if op == "sizeof":
            ctype = self._operand_type(node.expr)
            self._note_layout(ctype)
            if isinstance(ctype, FunctionType) or ctype == VOID:
                return 1, SIZE_T
            if not ctype.is_complete:
                raise _unsupported(f"sizeof of incomplete type '{ctype}'", node)
            return ctype.size, SIZE_T
        if op in ("_Alignof", "alignof"):
            ctype = self._operand_type(node.expr)
            self._note_layout(ctype)
            return (1 if isinstance(ctype, FunctionType) else ctype.align), SIZE_T
        if op == "&":
            self.resolver.layout_constants += 1
            address, ctype = self._address(node.expr)
            return address, PointerType(ctype)
        value, ctype = self.evaluate(node.expr)
        if op == "!":
            return unary(op, value, ctype), INT
        if isinstance(ctype, IntType):
            ctype = integer_promotion(ctype)
        result = unary(op, value, ctype)
        if result is None:
            where = "on a floating constant" if isinstance(ctype, FloatType) \
                else "in a constant expression"
            raise _unsupported(f"operator {op} {where}", node)
        return result, ctype

    def _note_layout(self, ctype: CType) -> None:
        while isinstance(ctype, ArrayType):
            ctype = ctype.element
        if isinstance(ctype, RecordType):
            self.resolver.layout_constants += 1

    def _operand_type(self, operand: c_ast.Node) -> CType:
        if isinstance(operand, c_ast.Typename):
            return self.resolver.resolve(operand)
        return self.type_of(operand)

    def _eval_Cast(self, node: c_ast.Cast) -> Value:
        target = self.resolver.resolve(node.to_type)
        return convert(*self.evaluate(node.expr), target, node)

    def _eval_TernaryOp(self, node: c_ast.TernaryOp) -> Value:
        cond, _ = self.evaluate(node.cond)
        chosen, other = (node.iftrue, node.iffalse) if cond else (node.iffalse, node.iftrue)
        value, ctype = self.evaluate(chosen)
        try:
            other_type = decay(self.type_of(other))
        except UnsupportedError:
            other_type = ctype
        if ctype.is_arithmetic and other_type.is_arithmetic:
            return convert(value, ctype, usual_arithmetic_conversion(ctype, other_type), node)
        return value, ctype

    def _eval_BinaryOp(self, node: c_ast.BinaryOp) -> Value:
        op = node.op
        if op in ("&&", "||"):
            left, _ = self.evaluate(node.left)
            if (op == "&&") != bool(left):
                return (1 if left else 0), INT
            right, _ = self.evaluate(node.right)
            return (1 if right else 0), INT
        lv, lt = self.evaluate(node.left)
        rv, rt = self.evaluate(node.right)
        if not (lt.is_arithmetic and rt.is_arithmetic):
            raise _unsupported(f"operator {op} on non-arithmetic constants", node)
        if op in ("<<", ">>"):
            return self._shift(node, op, lv, lt, rv, rt)
        common = usual_arithmetic_conversion(lt, rt)
        a, _ = convert(lv, lt, common, node)
        b, _ = convert(rv, rt, common, node)
        if op in COMPARISONS:
            return compare(op, a, b), INT
        if isinstance(common, FloatType):
            result = float_binary(op, float(a), float(b), common)
            if result is None:
                raise _unsupported(f"operator {op} on floating constants", node)
            return result, common
        assert isinstance(common, IntType)
        value = integer_binary(op, int(a), int(b), common) if op in ARITHMETIC else None
        if value is None:
            if op in ("/", "%") and b == 0:
                raise _unsupported("division by zero in a constant expression", node)
            raise _unsupported(f"operator {op} in a constant expression", node)
        return value, common

    def _shift(self, node: c_ast.Node, op: str, lv: int | float, lt: CType, rv: int | float,
               rt: CType) -> Value:
        if not isinstance(lt, IntType) or not isinstance(rt, IntType):
            raise _unsupported(f"operator {op} on floating constants", node)
        promoted = integer_promotion(lt)
        value = integer_binary(op, int(lv), int(rv), promoted)
        if value is None:
            raise _unsupported("negative shift count in a constant expression", node)
        return value, promoted

    def _eval_GenericSelection(self, node: GenericSelection) -> Value:
        return self.evaluate(self._association(node))

    def _type_GenericSelection(self, node: GenericSelection) -> CType:
        return self.type_of(self._association(node))

    def _association(self, node: GenericSelection) -> c_ast.Node:
        operand = self.type_of(node.expr)
        # the pointed-to type's qualifiers are known for a named object, a cast, a string
        known = isinstance(node.expr, (c_ast.Cast, c_ast.ID, c_ast.Constant))
        if isinstance(operand, ArrayType):  # decays to a pointer to its qualified elements
            entry = self.resolver._lookup(node.expr.name) \
                if isinstance(node.expr, c_ast.ID) else None
            quals = entry.quals if entry is not None else frozenset()
            operand = PointerType(operand.element, target_const="const" in quals,
                                  target_volatile="volatile" in quals)
        return generic_association(self.resolver, node, decay(operand), known)

    def _eval_FuncCall(self, node: c_ast.FuncCall) -> Value:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        args = node.args.exprs if node.args is not None else []
        if name == TYPES_COMPATIBLE:
            return types_compatible(self.resolver, node), INT
        if name == CHOOSE_EXPR and len(args) == 3:
            return self.evaluate(self._chosen(node))
        if isinstance(node.name, c_ast.ID) and node.name.name == "offsetof" and node.args:
            typename, designator = node.args.exprs
            self.resolver.layout_constants += 1
            offset, _ = self._designator(self.resolver.resolve(typename), designator)
            return offset, SIZE_T
        builtin = BIT_BUILTINS.get(node.name.name) if isinstance(node.name, c_ast.ID) else None
        if builtin is not None and node.args is not None and len(node.args.exprs) == 1:
            operand, _ = convert(*self.evaluate(node.args.exprs[0]), builtin.argument, node)
            result = evaluate_builtin(builtin, int(operand))
            if result is None:
                raise _unsupported(f"{node.name.name} of 0, which gcc leaves undefined", node)
            return result, builtin.result
        raise _unsupported("function call in a constant expression", node)

    def _designator(self, ctype: CType, node: c_ast.Node) -> tuple[int, CType]:
        if isinstance(node, c_ast.ID):
            return self._member(ctype, node.name, node)
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            offset, inner = self._designator(ctype, node.name)
            extra, member = self._member(inner, node.field.name, node)
            return offset + extra, member
        if isinstance(node, c_ast.ArrayRef):
            offset, inner = self._designator(ctype, node.name)
            if not isinstance(inner, ArrayType):
                raise _unsupported("subscript of a non-array in offsetof", node)
            index = self.resolver.eval_int_constant(node.subscript)
            return offset + index * inner.element.size, inner.element
        raise _unsupported("member designator in offsetof", node)

    def _member(self, ctype: CType, name: str, node: c_ast.Node) -> tuple[int, CType]:
        if not isinstance(ctype, RecordType) or not ctype.is_complete:
            raise _unsupported(f"member '{name}' of a non-record or incomplete type", node)
        found = member_offset(ctype, name)
        if found is None:
            raise _unsupported(f"'{ctype}' has no member named '{name}'", node)
        offset, f = found
        if f.is_bitfield:
            raise _unsupported(f"address of bit-field '{name}'", node)
        return offset, f.type

    def _address(self, node: c_ast.Node) -> tuple[int, CType]:
        """Address constants built on an integer cast to a pointer (`&((T *)0)->m`)."""
        if isinstance(node, c_ast.StructRef):
            if node.type == "->":
                base, ptr = self.evaluate(node.name)
                if not isinstance(ptr, PointerType):
                    raise _unsupported("'->' on a non-pointer constant", node)
                offset, member = self._member(ptr.target, node.field.name, node)
                return int(base) + offset, member
            base, record = self._address(node.name)
            offset, member = self._member(record, node.field.name, node)
            return base + offset, member
        if isinstance(node, c_ast.ArrayRef):
            base, array = self._address(node.name)
            element = array.element if isinstance(array, ArrayType) else None
            if element is None:
                raise _unsupported("subscript in an address constant", node)
            return base + self.resolver.eval_int_constant(node.subscript) * element.size, element
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            value, ptr = self.evaluate(node.expr)
            if isinstance(ptr, PointerType):
                return int(value), ptr.target
        raise _unsupported("address in a constant expression", node)

    # ----------------------------------------------------------------- types

    def type_of(self, node: c_ast.Node) -> CType:
        method = getattr(self, f"_type_{type(node).__name__}", None)
        if method is None:
            raise _unsupported(f"cannot determine the type of {type(node).__name__}", node)
        result: CType = method(node)
        return result

    def _type_Constant(self, node: c_ast.Constant) -> CType:
        if node.type == "string":
            units, element = string_literal(node.value)
            return ArrayType(element, len(units) + 1)
        if node.type in ("float", "double", "long double") and not is_imaginary(node.value):
            try:
                return float_literal(node.value)[1]
            except ValueError:
                pass
        return self.evaluate(node)[1]

    def _type_ID(self, node: c_ast.ID) -> CType:
        entry = self.resolver._lookup(node.name)
        if entry is None or entry.kind == TYPEDEF:
            raise _unsupported(f"'{node.name}' undeclared", node)
        return entry.type

    def _type_UnaryOp(self, node: c_ast.UnaryOp) -> CType:
        op = node.op
        if op in ("sizeof", "_Alignof", "alignof"):
            return SIZE_T
        if op == "!":
            return INT
        operand = self.type_of(node.expr)
        if op == "*":
            target = decay(operand)
            if not isinstance(target, PointerType):
                raise _unsupported("dereference of a non-pointer", node)
            return target.target
        if op == "&":
            return PointerType(operand)
        if op in ("-", "+", "~"):
            return integer_promotion(operand) if isinstance(operand, IntType) else operand
        return operand

    def _type_ArrayRef(self, node: c_ast.ArrayRef) -> CType:
        base = decay(self.type_of(node.name))
        if not isinstance(base, PointerType):
            base = decay(self.type_of(node.subscript))
        if not isinstance(base, PointerType):
            raise _unsupported("subscript of a non-array", node)
        return base.target

    def _type_StructRef(self, node: c_ast.StructRef) -> CType:
        base = self.type_of(node.name)
        if node.type == "->":
            pointer = decay(base)
            if not isinstance(pointer, PointerType):
                raise _unsupported("'->' on a non-pointer", node)
            base = pointer.target
        if not isinstance(base, RecordType):
            raise _unsupported(f"member '{node.field.name}' of a non-record", node)
        found = member_offset(base, node.field.name)
        if found is None:
            raise _unsupported(f"'{base}' has no member named '{node.field.name}'", node)
        return found[1].type

    def _type_Cast(self, node: c_ast.Cast) -> CType:
        return self.resolver.resolve(node.to_type)

    def _type_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> CType:
        return self.resolver.resolve(node.type)

    def _type_BinaryOp(self, node: c_ast.BinaryOp) -> CType:
        op = node.op
        if op in COMPARISONS or op in ("&&", "||"):
            return INT
        left, right = decay(self.type_of(node.left)), decay(self.type_of(node.right))
        if op in ("<<", ">>"):
            return integer_promotion(left) if isinstance(left, IntType) else left
        if op in ("+", "-"):
            if isinstance(left, PointerType) and isinstance(right, PointerType):
                return PTRDIFF_T
            if isinstance(left, PointerType):
                return left
            if isinstance(right, PointerType):
                return right
        if left.is_arithmetic and right.is_arithmetic:
            return usual_arithmetic_conversion(left, right)
        raise _unsupported(f"operator {op} on these operands", node)

    def _type_Assignment(self, node: c_ast.Assignment) -> CType:
        return self.type_of(node.lvalue)

    def _type_TernaryOp(self, node: c_ast.TernaryOp) -> CType:
        a, b = decay(self.type_of(node.iftrue)), decay(self.type_of(node.iffalse))
        if a.is_arithmetic and b.is_arithmetic:
            return usual_arithmetic_conversion(a, b)
        return a

    def _chosen(self, node: c_ast.FuncCall) -> c_ast.Node:
        """The operand `__builtin_choose_expr(const, a, b)` stands for."""
        condition, then, otherwise = node.args.exprs
        return then if self.resolver.eval_int_constant(condition) else otherwise

    def _type_FuncCall(self, node: c_ast.FuncCall) -> CType:
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        if name == TYPES_COMPATIBLE:
            return INT
        if name == CHOOSE_EXPR and node.args is not None and len(node.args.exprs) == 3:
            return self.type_of(self._chosen(node))
        if isinstance(node.name, c_ast.ID) and node.name.name == "offsetof":
            return SIZE_T
        if isinstance(node.name, c_ast.ID) and node.name.name in BIT_BUILTINS:
            return BIT_BUILTINS[node.name.name].result
        callee = decay(self.type_of(node.name))
        if isinstance(callee, PointerType) and isinstance(callee.target, FunctionType):
            return callee.target.result
        raise _unsupported("call of a non-function", node)

    def _type_ExprList(self, node: c_ast.ExprList) -> CType:
        return self.type_of(node.exprs[-1])


def types_compatible(resolver: TypeResolver, node: c_ast.FuncCall) -> int:
    """GNU `__builtin_types_compatible_p(type1, type2)`: 1 when the type names denote
    compatible types (top-level qualifiers aside), else 0."""
    operands = node.args.exprs if node.args is not None else []
    if len(operands) != 2 or not all(isinstance(t, c_ast.Typename) for t in operands):
        raise _unsupported(f"{TYPES_COMPATIBLE} takes two type names", node)
    first, second = (resolver.resolve(t) for t in operands)
    return 1 if compatible(first, second) else 0


def generic_association(resolver: TypeResolver, node: GenericSelection, operand: CType,
                        target_qualifiers_known: bool = True) -> c_ast.Node:
    """The expression a C11 generic selection stands for: that of the association whose
    type is compatible with `operand` (the controlling expression's type after lvalue
    conversion: decayed, unqualified), else the default one. When `operand` is a pointer
    whose target's qualifiers are not known, the choice must not depend on them."""
    types = [None if t is None else resolver.resolve(t) for t in node.types]
    candidates = [operand]
    if isinstance(operand, PointerType) and not target_qualifiers_known:
        candidates = [PointerType(operand.target, target_const=const, target_volatile=volatile)
                      for const in (False, True) for volatile in (False, True)]
    chosen: set[int] = set()
    for candidate in candidates:
        matches = [i for i, t in enumerate(types) if t is not None and compatible(candidate, t)]
        defaults = [i for i, t in enumerate(types) if t is None]
        if matches or defaults:
            chosen.add((matches or defaults)[0])
    if not chosen:
        raise UnsupportedError(
            f"_Generic: no association matches the controlling type '{operand}'",
            _location(node))
    if len(chosen) > 1:
        raise _unsupported("_Generic selection that depends on the qualifiers of what its "
                           "controlling pointer points to", node)
    return node.exprs[chosen.pop()]


def convert(value: int | float, source: CType, target: CType,
            node: c_ast.Node | None = None) -> Value:
    """A constant of type `source` converted to `target` as by a cast (constant_eval's
    rules); a conversion C leaves undefined is unsupported."""
    if isinstance(target, FloatType) and target.unmodelled is not None:
        raise _unsupported(f"constant of type '{target}' ({target.unmodelled})", node)
    result = convert_constant(value, source, target)
    if result is not None:
        return result, target
    if isinstance(target, IntType):
        raise _unsupported(f"conversion of a value out of the range of {target} ({value})",
                           node)
    if isinstance(target, PointerType) and isinstance(value, float):
        raise _unsupported("conversion of a floating constant to a pointer", node)
    raise _unsupported(f"conversion to '{target}' in a constant expression", node)


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
