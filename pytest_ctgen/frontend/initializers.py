"""Initializers of arrays as C reads them: a string literal, braced or not, initializes an
array of characters of its width (C11 6.7.9p14-15); the length an initializer gives an
array of unknown size. The one home of that count, for file-scope and block-scope
declarations alike (`TypeResolver.declared_type`, which the lowering asks too)."""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..errors import CtgenError
from .ctype import ArrayType, CType, IntType, RecordType
from .gnu_ast import index_range
from .literals import string_literal
from .locations import unsupported


def string_initializer(init: c_ast.Node, element: CType) -> c_ast.Constant | None:
    """The string literal that initializes an array of `element` as a whole: `init` is one,
    with or without braces (`{"abc"}`), and the elements are characters of its width
    (`char`, or `wchar_t` for `L"..."`); None otherwise (`const char *t[] = {"abc"}` has one
    pointer element)."""
    if isinstance(init, c_ast.InitList) and len(init.exprs) == 1:
        init = init.exprs[0]
    if not is_string(init) or not isinstance(element, IntType) or element.is_bool:
        return None
    assert isinstance(init, c_ast.Constant)
    return init if element.bits == string_literal(init.value)[1].bits else None


def is_string(node: c_ast.Node) -> bool:
    """Whether `node` is a string literal."""
    return isinstance(node, c_ast.Constant) and node.type == "string"


def array_length(init: c_ast.Node, element: CType, index_value: Callable[[c_ast.Node], int],
                 expression_type: Callable[[c_ast.Node], CType]) -> int:
    """Elements of an array of unknown size whose elements are `element`, given by its
    initializer `init`; `index_value` evaluates the constant expression of a designator,
    `expression_type` gives the type of an item. Items that leave out the braces of an
    aggregate element fill its scalars one by one (C11 6.7.9p20): `int m[][2] = {1, 2, 3}`
    has two elements."""
    string = string_initializer(init, element)
    if string is not None:
        return len(string_literal(string.value)[0]) + 1
    if not isinstance(init, c_ast.InitList):
        raise unsupported("initializer of an array of unknown size", init)
    if isinstance(element, (ArrayType, RecordType)) and not all(
            _initializes_element(item, element, expression_type) for item in init.exprs):
        return _elided_length(init.exprs, element, expression_type)
    count = index = 0
    for item in init.exprs:
        if isinstance(item, c_ast.NamedInitializer):
            # pycparser gives `[EV_RX]` as the ID it gives `.member` as; an array's
            # initializer has no member, so an ID is the index
            designator = item.name[0]
            index = index_value((index_range(designator) or (designator, designator))[1])
        index += 1
        count = max(count, index)
    return count


def _initializes_element(item: c_ast.Node, element: ArrayType | RecordType,
                         expression_type: Callable[[c_ast.Node], CType]) -> bool:
    """Whether `item` of an array's initializer initializes a whole aggregate element (a
    braced list, a string for an array of characters, a record's value), not its first
    scalar."""
    if isinstance(item, c_ast.NamedInitializer):
        if len(item.name) > 1:  # `[1].x = 2` names a member of the element
            return True
        item = item.expr
    if isinstance(item, c_ast.InitList):
        return True
    if isinstance(element, ArrayType):
        return string_initializer(item, element.element) is not None
    return isinstance(_item_type(item, expression_type), RecordType)


def _item_type(item: c_ast.Node, expression_type: Callable[[c_ast.Node], CType]) -> CType | None:
    """The type of an item that is an expression other than a string literal, if known."""
    if is_string(item):
        return None
    try:
        return expression_type(item)
    except CtgenError:
        return None


def _elided_length(items: list[c_ast.Node], element: ArrayType | RecordType,
                   expression_type: Callable[[c_ast.Node], CType]) -> int:
    """The length an initializer gives when every item is a scalar filling the scalars of
    the elements in order; anything else with elided braces (designators, strings, nested
    braces, records among the items) is not supported."""
    per_element = _scalar_count(element)
    for item in items:
        item_type = _item_type(item, expression_type)
        if per_element is None or isinstance(item, (c_ast.NamedInitializer, c_ast.InitList)) \
                or item_type is None or not item_type.is_scalar:
            raise unsupported("initializer with elided braces", item)
    assert per_element is not None
    return -(-len(items) // per_element)


def _scalar_count(ctype: CType) -> int | None:
    """How many scalars an initializer without braces gives an object of type `ctype` (a
    union: its first member's); None for an array of unknown size or an empty record."""
    if ctype.is_scalar:
        return 1
    if isinstance(ctype, ArrayType):
        inner = _scalar_count(ctype.element)
        return None if ctype.count is None or inner is None or not ctype.count \
            else ctype.count * inner
    if not isinstance(ctype, RecordType):
        return None
    members = [f.type for f in ctype.fields if f.name is not None or
               isinstance(f.type, RecordType)]
    counts = [_scalar_count(t) for t in (members[:1] if ctype.is_union else members)]
    if not counts or None in counts:
        return None
    return sum(c for c in counts if c is not None)


def flexible_storage(ctype: CType, init: c_ast.Node | None,
                     index_value: Callable[[c_ast.Node], int],
                     expression_type: Callable[[c_ast.Node], CType]) -> int:
    """The bytes gcc gives an object of `ctype` with the initializer `init`: its size,
    plus the elements the initializer gives a flexible array member (a GNU extension for
    static objects: `struct fam g = { 3, { 1, 2, 3 } }` holds sizeof (struct fam) + 3
    ints, while `sizeof g` stays sizeof (struct fam))."""
    if not isinstance(ctype, RecordType) or ctype.is_union or not ctype.fields or \
            not isinstance(init, c_ast.InitList):
        return ctype.size
    last = ctype.fields[-1]
    if last.name is None or not isinstance(last.type, ArrayType) or \
            last.type.count is not None or last.type.length is not None:
        return ctype.size
    names = [f.name for f in ctype.fields]
    position = 0
    for at, item in enumerate(init.exprs):
        if isinstance(item, c_ast.NamedInitializer):
            designator = item.name[0]
            if not isinstance(designator, c_ast.ID) or designator.name not in names:
                return ctype.size
            position = names.index(designator.name)
            if position == len(names) - 1:
                if len(item.name) > 1:  # `.d[2] = 1`
                    raise unsupported("designator into a flexible array member", item)
                item = item.expr
        elif position < len(names) - 1 and isinstance(
                member := ctype.fields[position].type, (ArrayType, RecordType)) and \
                not _initializes_element(item, member, expression_type):
            raise unsupported("initializer with elided braces before a flexible array member",
                              item)
        if position == len(names) - 1:
            if isinstance(item, c_ast.InitList) or \
                    string_initializer(item, last.type.element) is not None:
                count = array_length(item, last.type.element, index_value, expression_type)
            elif last.type.element.is_scalar and not any(
                    isinstance(x, c_ast.NamedInitializer) for x in init.exprs[at:]):
                count = len(init.exprs) - at  # braces elided: the scalars left, one each
            else:
                raise unsupported("initializer of a flexible array member", item)
            return ctype.size + count * last.type.element.size
        position += 1
    return ctype.size
