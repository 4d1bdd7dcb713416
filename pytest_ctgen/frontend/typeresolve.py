"""pycparser type trees to `ctype` objects: declarators, type names and specifiers resolved
in C's scopes (scopes.py), records laid out (layout.py) and given the C spelling the layout
probe measures them by, enumerations typed as gcc types them; constant expressions and the
C text of declarations through constant_expr.py and declarator_text.py."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from pycparser import c_ast

from ..errors import UnsupportedError
from .constant_expr import ConstantEvaluator, Value
from .ctype import (
    BOOL, CHAR, DOUBLE, EXTENDED_FLOATS, FLOAT, INT, INT128, LLONG, LONG, LONGDOUBLE,
    PREDEFINED_TYPEDEFS, SCHAR, SHORT, UCHAR, UINT, UINT128, ULLONG, ULONG, USHORT, VOID,
    ArrayType, CType, EnumType, FloatType, FunctionType, IntType, PointerType, RecordKind,
    RecordType, VariableLength, decay, is_variably_modified,
)
from .declarator_text import abstract, copy_declarator, fold_dimensions, generate, rename
from .gnu_ast import AUTO_TYPE, TypeofSpecifier
from .initializers import array_length
from .layout import Member, ProbedRecord, ProbeRequest, apply_probed, layout_differs, sysv_layout
from .locations import node_location, unsupported
from .scopes import TYPEDEF, Scopes

_SPECIFIERS: Final = frozenset(
    {"void", "_Bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
     "__int128", "_Complex", *EXTENDED_FLOATS}
)


class TypeResolver(Scopes):
    """Resolves declarators and type names in the scope where they appear.

    File-scope records get a C spelling (`struct tag`, a typedef name or a `__typeof__`
    expression) so the layout probe can measure them; `layouts` are probe results keyed by
    that spelling and are applied as soon as a record gets it.
    """

    def __init__(
        self, *, short_enums: bool = False, layouts: Mapping[str, ProbedRecord] | None = None
    ) -> None:
        super().__init__()
        self.short_enums = short_enums
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

    def declare_typedef(self, name: str, ctype: CType, quals: frozenset[str] = frozenset()) -> None:
        """`typedef ... name;` in the current scope; `quals` are the typedef's own qualifiers.
        A record gets the name as its spelling; at file scope the probe can measure it."""
        super().declare_typedef(name, ctype, quals)
        if isinstance(ctype, RecordType) and ctype.spelling is None:
            ctype.spelling = name
        if self.at_file_scope:
            self._register(ctype, name)

    def declare_object(self, name: str, ctype: CType,
                       quals: frozenset[str] = frozenset()) -> None:
        """A variable or function named `name` in the current scope; `quals` are the
        object's own qualifiers. At file scope, the probe can measure an object's records."""
        super().declare_object(name, ctype, quals)
        if self.at_file_scope and not isinstance(ctype, FunctionType):
            self._register(ctype, f"__typeof__({name})")

    # ------------------------------------------------------------- declarations

    def declare(self, node: c_ast.Node) -> CType:
        """Resolve a `Decl` or `Typedef` and enter its name in the current scope."""
        if isinstance(node, c_ast.Typedef):
            ctype = self.resolve(node.type)
            self.declare_typedef(node.name, ctype, self.qualifiers(node.type))
            return ctype
        if not isinstance(node, c_ast.Decl):
            raise unsupported(f"unexpected declaration node {type(node).__name__}", node)
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
                raise unsupported("'__auto_type' needs an initializer expression", decl)
            return decay(self.expression_type_of(decl.init))
        return self._completed(self.resolve(decl.type), decl.init)

    def compound_literal_type(self, node: c_ast.CompoundLiteral) -> CType:
        """The type of the compound literal `node`: an array of unknown size gets the count
        of its initializer, as a declared array does (`(int[]){4, 5, 6}` is an `int[3]`,
        C11 6.5.2.5p4)."""
        return self._completed(self.resolve(node.type), node.init)

    def _completed(self, ctype: CType, init: c_ast.Node | None) -> CType:
        if isinstance(ctype, ArrayType) and ctype.count is None and ctype.length is None \
                and init is not None:
            ctype = ArrayType(ctype.element, array_length(
                init, ctype.element, self.eval_int_constant, self.expression_type_of))
        return ctype

    def expression_type_of(self, expr: c_ast.Node) -> CType:
        """The type of `expr` where it stands, as `sizeof` and `__typeof__` see it."""
        if self.expression_type is not None:
            return self.expression_type(expr)
        return self.type_of(expr)

    def _forward_declaration(self, spec: c_ast.Struct | c_ast.Union) -> CType:
        """`struct S;` declares a new incomplete type unless S is already in this scope."""
        kind: RecordKind = "struct" if isinstance(spec, c_ast.Struct) else "union"
        existing = self.tag_in_scope(spec.name)
        if existing is not None:
            return existing
        record = self._new_record(kind, spec.name)
        self._node_types[id(spec)] = (spec, record)
        return record

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
        raise unsupported(f"type construct {type(node).__name__}", node)

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
                entry = self.lookup(spec.names[0])
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
            raise unsupported("'__auto_type' outside a declaration with an initializer",
                               node)
        unknown = [n for n in names if n not in _SPECIFIERS]
        if unknown:
            if len(names) == 1:
                entry = self.lookup(names[0])
                if entry is not None and entry.kind == TYPEDEF:
                    return entry.type
                if names[0] in PREDEFINED_TYPEDEFS:
                    return PREDEFINED_TYPEDEFS[names[0]]
                why = self.unsupported_typedefs.get(names[0])
                if why is not None:
                    raise unsupported(f"unsupported construct: type '{names[0]}', whose "
                                       "declaration is not supported "
                                       f"({why.as_cause(node_location(node))})", node)
                raise unsupported(f"unknown type name '{names[0]}'", node)
            raise unsupported(f"invalid type specifiers '{' '.join(names)}'", node)
        spelled = " ".join(names)
        if "_Complex" in names:
            raise unsupported(f"complex type '{spelled}'", node)
        extended = [EXTENDED_FLOATS[n] for n in names if n in EXTENDED_FLOATS]
        if extended:
            if len(names) > 1:
                raise unsupported(f"invalid type specifiers '{spelled}'", node)
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
            raise unsupported("array of functions", node)
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
                    raise unsupported(f"array size {count} is negative", node.dim)
                return ArrayType(element, count)
        if self._prototype_depth:  # evaluated on entry of the function's definition
            return ArrayType(element, None, VariableLength(node.dim))
        if self._constant_depth:
            raise unsupported("variable length array in a constant expression", node.dim)
        if self.variable_length is None or unspecified:
            raise unsupported("variable length array outside a function body", node.dim)
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
                raise unsupported("old-style (K&R) parameter list", param)
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

    def _new_record(self, kind: RecordKind, tag: str | None) -> RecordType:
        record = RecordType(kind, tag, spelling=f"{kind} {tag}" if tag else None,
                            in_parameter_list=self._prototype_depth > 0)
        if tag:
            self.declare_tag(tag, record)
            if self.at_file_scope:
                self._keys[id(record)] = f"{kind} {tag}"
                self._keyed.append((f"{kind} {tag}", record))
        return record

    def _record(self, node: c_ast.Struct | c_ast.Union) -> CType:
        cached = self._node_types.get(id(node))
        if cached is not None:
            return cached[1]
        kind: RecordKind = "struct" if isinstance(node, c_ast.Struct) else "union"
        if node.decls is None:
            found = self.lookup_tag(node.name) if node.name else None
            if found is None:
                record: CType = self._new_record(kind, node.name)
            elif not isinstance(found, RecordType) or found.kind != kind:
                raise unsupported(f"'{node.name}' defined as wrong kind of tag", node)
            else:
                record = found
            self._node_types[id(node)] = (node, record)
            return record
        existing = self.tag_in_scope(node.name) if node.name else None
        if existing is not None and (not isinstance(existing, RecordType) or existing.kind != kind):
            raise unsupported(f"'{node.name}' defined as wrong kind of tag", node)
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
                raise unsupported(f"field '{decl.name}' has a variably modified type", decl)
            if not ctype.is_complete and not (isinstance(ctype, ArrayType) and ctype.count is None):
                raise unsupported(f"field '{decl.name}' has incomplete type '{ctype}'", decl)
            if isinstance(ctype, FunctionType):
                raise unsupported(f"field '{decl.name}' declared as a function", decl)
            members.append(Member(decl.name, ctype))
        return members

    def _bit_width(self, decl: c_ast.Decl, ctype: CType) -> int:
        if not isinstance(ctype, IntType):
            raise unsupported(f"bit-field '{decl.name}' has non-integer type '{ctype}'", decl)
        width = self.eval_int_constant(decl.bitsize)
        if width < 0 or width > ctype.bits or (width == 0 and decl.name is not None):
            raise unsupported(f"invalid width {width} for bit-field '{decl.name}'", decl)
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

    def _register_member(self, ctype: CType, key: str, name: str | None,
                         record: RecordType) -> None:
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
                self.declare_tag(node.name, found)
            elif not isinstance(found, EnumType):
                raise unsupported(f"'{node.name}' defined as wrong kind of tag", node)
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
            enumerators=tuple(values),
        )
        for name, v in values:
            self.declare_enum_constant(name, v, _enumerator_type(v, underlying))
        if node.name:
            self.declare_tag(node.name, enum)
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
            raise unsupported("floating constant where an integer is required", expr)
        return int(value)

    def constant(self, expr: c_ast.Node) -> Value:
        """An arithmetic constant expression as (value, type)."""
        self._constant_depth += 1
        try:
            return ConstantEvaluator(self).evaluate(expr)
        finally:
            self._constant_depth -= 1

    def type_of(self, expr: c_ast.Node) -> CType:
        """The type of an expression as `sizeof` sees it (no array decay)."""
        self._constant_depth += 1
        try:
            return ConstantEvaluator(self).type_of(expr)
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
        fold_dimensions(type_node, ctype)
        rename(type_node, name)
        return generate(type_node, getattr(decl, "align", None) or [])

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
                spelled = generate(abstract(copy_declarator(param.type)), [])
                return f"__typeof__((*({spelled} *)0)[0]) *{name}"
        # sizes as numbers (an export's templates hold no expressions)
        fold_dimensions(type_node, adjusted)
        rename(type_node, name)
        return generate(type_node, [])


def _enumerator_type(value: int, underlying: IntType | None) -> IntType:
    if INT.min_value <= value <= INT.max_value or underlying is None:
        return INT
    return LONG if underlying.signed else ULONG


def _is_auto_type(type_node: c_ast.Node) -> bool:
    return isinstance(type_node, c_ast.TypeDecl) and isinstance(
        type_node.type, c_ast.IdentifierType) and type_node.type.names == [AUTO_TYPE]
