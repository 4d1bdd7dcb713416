"""Initializers of arrays as C reads them: a string literal, braced or not, initializes a
character array; the length an initializer gives an array of unknown size. The one home of
that count, for file-scope and block-scope declarations alike (`TypeResolver.declared_type`,
which the lowering asks too)."""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from .gnu_ast import index_range
from .literals import string_literal
from .locations import unsupported


def unbraced_string(init: c_ast.Node) -> c_ast.Node:
    """An array's initializer with the optional braces around a string literal dropped
    (`{"abc"}` is `"abc"`); any other initializer as it is."""
    if isinstance(init, c_ast.InitList) and len(init.exprs) == 1 and is_string(init.exprs[0]):
        return init.exprs[0]
    return init


def is_string(node: c_ast.Node) -> bool:
    """Whether `node` is a string literal."""
    return isinstance(node, c_ast.Constant) and node.type == "string"


def array_length(init: c_ast.Node, index_value: Callable[[c_ast.Node], int]) -> int:
    """Elements of an array of unknown size given by its initializer `init`; `index_value`
    evaluates the constant expression of a designator."""
    init = unbraced_string(init)
    if is_string(init):
        assert isinstance(init, c_ast.Constant)
        return len(string_literal(init.value)[0]) + 1
    if isinstance(init, c_ast.InitList):
        count = index = 0
        for item in init.exprs:
            if isinstance(item, c_ast.NamedInitializer):
                designator = item.name[0]
                if isinstance(designator, c_ast.ID):
                    raise unsupported("field designator in an array initializer", item)
                index = index_value((index_range(designator) or (designator, designator))[1])
            index += 1
            count = max(count, index)
        return count
    raise unsupported("initializer of an array of unknown size", init)
