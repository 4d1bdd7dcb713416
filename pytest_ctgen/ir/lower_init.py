"""Lowering of initializers: `InitializerLowerer` turns `= init` of an object (a
declaration, a compound literal, a global or static local) into the statements that give
the object its initial contents: zero first, then each element or member given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.ctype import LONG, ArrayType, CType, PointerType, RecordType
from ..frontend.gnu_ast import index_range
from ..frontend.initializers import string_initializer
from .cfg import Assign, ZeroFill
from ..frontend.literals import string_literal
from .expr import AddrOf, Const, Deref, Expr, Member, PtrAdd

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer

#: Most values a GNU case range or array designator range may span (each is enumerated).
MAX_RANGE = 1 << 16


class InitializerLowerer:
    """The initializers of one function body, or of the static objects of a unit."""

    def __init__(self, exprs: ExpressionLowerer) -> None:
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit

    def initialize(self, target: Expr, ctype: CType, init: c_ast.Node,
                   node: c_ast.Node) -> None:
        """Assignments giving the object `target` its initial value from `init`."""
        self.exprs.check_modelled(ctype, node)
        loc = self.builder.loc(node)
        string = string_initializer(init, ctype.element) if isinstance(ctype, ArrayType) \
            else None
        if string is not None:  # `char t[] = "abc";`, `{"abc"}`, `wchar_t w[] = L"abc";`
            assert isinstance(ctype, ArrayType)
            data = [*string_literal(string.value)[0], 0]
            self.builder.emit(ZeroFill(target, loc))
            elem = ctype.element
            count = ctype.count if ctype.count is not None else len(data)
            for i, byte in enumerate(data[:count]):
                if byte:
                    self.builder.emit(Assign(self.element(target, i, elem), Const(elem, byte),
                                             loc))
            return
        if isinstance(init, c_ast.InitList) and not isinstance(ctype, (ArrayType, RecordType)):
            if init.exprs:
                self.initialize(target, ctype, init.exprs[0], node)
            else:
                self.builder.emit(ZeroFill(target, loc))
            return
        if not isinstance(init, c_ast.InitList):
            value = self.exprs.rvalue(init)
            if isinstance(ctype, RecordType):
                self.builder.emit(Assign(target, value, loc))
            else:
                self.builder.emit(Assign(target, self.exprs.convert(value, ctype), loc))
            return
        self.builder.emit(ZeroFill(target, loc))
        self.init_list(target, ctype, list(init.exprs), node)

    def element(self, target: Expr, index: int, elem: CType) -> Expr:
        base = AddrOf(target, PointerType(elem))
        return Deref(PtrAdd(base, Const(LONG, index), PointerType(elem)), elem)

    def init_list(self, target: Expr, ctype: CType, items: list[c_ast.Node],
                  node: c_ast.Node) -> None:
        """The `items` of a braced initializer of the array or record `target`."""
        if isinstance(ctype, ArrayType):
            self.init_array(target, ctype, items, node)
        else:
            assert isinstance(ctype, RecordType)
            self.init_record(target, ctype, items, node)

    def init_array(self, target: Expr, ctype: ArrayType, items: list[c_ast.Node],
                   node: c_ast.Node) -> None:
        """The elements of the array `target`, given in order or by designators (`[2] = x`,
        GNU `[1 ... 3] = x`)."""
        index = 0
        for item in items:
            last = index
            if isinstance(item, c_ast.NamedInitializer):
                desig = item.name[0]  # an ID is an index (`[EV_RX]`: arrays have no member)
                if len(item.name) != 1:
                    raise self.builder.unsupported("nested designator in an array initializer",
                                                   item)
                assert self.unit.resolver is not None
                bounds = index_range(desig) or (desig, desig)
                index, last = (self.unit.resolver.eval_int_constant(e) for e in bounds)
                if last - index >= MAX_RANGE:
                    raise self.builder.unsupported(f"designator range of more than {MAX_RANGE} "
                                                   "elements", item)
                item = item.expr
            if last > index and ctype.element.is_scalar and \
                    not isinstance(item, c_ast.InitList):
                value = self.builder.kept(self.exprs.rvalue(item), item)  # once for the range
                for at in range(index, last + 1):
                    self.builder.emit(Assign(self.element(target, at, ctype.element),
                                             self.exprs.convert(value, ctype.element),
                                             self.builder.loc(item)))
            else:
                for at in range(index, last + 1):
                    self.init_item(self.element(target, at, ctype.element),
                                   ctype.element, item, node)
            index = last + 1

    def init_record(self, target: Expr, ctype: RecordType, items: list[c_ast.Node],
                    node: c_ast.Node) -> None:
        """The members of the struct or union `target`, given in order or by designators
        (`.b = x`, `.inner.b = x`)."""
        members = [f for f in ctype.fields if f.name is not None or
                   isinstance(f.type, RecordType)]
        pos = 0
        nested = False  # the last item had a nested designator (`.inner.b = 3`)
        for item in items:
            if isinstance(item, c_ast.NamedInitializer):
                if not isinstance(item.name[0], c_ast.ID):
                    raise self.builder.unsupported("array designator in a struct initializer",
                                                   item)
                fname = item.name[0].name
                lv = self.exprs.member(target, fname, item)
                for designator in item.name[1:]:
                    lv = self.designated(lv, designator, item)
                self.init_item(lv, lv.type, item.expr, node)
                names = [f.name for f in members]
                pos = names.index(fname) + 1 if fname in names else pos
                nested = len(item.name) > 1
                continue
            if nested:  # C goes on inside the designated member: elided braces
                raise self.builder.unsupported("initializer after a nested designator", item)
            if pos >= len(members):
                raise CtgenError("excess elements in initializer", self.builder.loc(item))
            f = members[pos]
            self.init_item(Member(target, f, f.type), f.type, item, node)
            pos += 1
            if ctype.is_union:
                break

    def designated(self, target: Expr, designator: c_ast.Node, item: c_ast.Node) -> Expr:
        """The subobject of `target` one designator past the first names (`.b`, `[3]`)."""
        if isinstance(designator, c_ast.ID):
            return self.exprs.member(target, designator.name, item)
        ctype = target.type
        if not isinstance(ctype, ArrayType) or index_range(designator) is not None:
            raise self.builder.unsupported("array designator in a nested designator", item)
        assert self.unit.resolver is not None
        index = self.unit.resolver.eval_int_constant(designator)
        if ctype.count is None or not 0 <= index < ctype.count:
            raise CtgenError(f"array index {index} in initializer exceeds array bounds",
                             self.builder.loc(item))
        return self.element(target, index, ctype.element)

    def init_item(self, target: Expr, ctype: CType, item: c_ast.Node,
                  node: c_ast.Node) -> None:
        if isinstance(item, c_ast.InitList):
            if isinstance(ctype, (ArrayType, RecordType)):
                self.init_list(target, ctype, list(item.exprs), node)
            elif item.exprs:
                self.init_item(target, ctype, item.exprs[0], node)
            return
        if isinstance(ctype, ArrayType) and string_initializer(item, ctype.element) is not None:
            self.initialize(target, ctype, item, node)
            return
        if isinstance(ctype, (ArrayType, RecordType)) and not (
                isinstance(ctype, RecordType) and self.is_record_valued(item)):
            raise self.builder.unsupported("initializer with elided braces", item)
        value = self.exprs.rvalue(item)
        self.builder.emit(Assign(target, value if isinstance(ctype, RecordType)
                                 else self.exprs.convert(value, ctype), self.builder.loc(item)))

    def is_record_valued(self, item: c_ast.Node) -> bool:
        try:
            return isinstance(self.exprs.types.type_of(item), RecordType)
        except CtgenError:
            return False

    def static_constant(self, node: c_ast.Node) -> Expr | None:
        """In the initializer of a global, `?:`, `&&` and `||` of an arithmetic constant
        expression folded, as gcc folds the initializer: they are no branches (whose blocks
        these statements lack); None for other nodes."""
        if isinstance(node, c_ast.TernaryOp) or (
                isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||")):
            assert self.unit.resolver is not None
            try:
                value, ctype = self.unit.resolver.constant(node)
            except CtgenError:
                pass
            else:
                if ctype.is_arithmetic:
                    return Const(ctype, value)
        return None
