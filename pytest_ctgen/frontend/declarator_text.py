"""Declarations as C text for the generated harness: a declarator chain copied and edited
(renamed, its array sizes written as numbers) and printed by pycparser's generator, and a
function's prototype with every parameter named."""
from __future__ import annotations

import copy

from pycparser import c_ast, c_generator

from .ctype import ArrayType, CType, FunctionType, PointerType


def prototype(decl: c_ast.Decl) -> str:
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
                rename(param.type, f"p{index}")
            named.append(param)
        func.args.params = named
    rename(type_node, decl.name)
    return generate(type_node, [])


def _is_void(param: c_ast.Typename) -> bool:
    t = param.type
    return (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
            and t.type.names == ["void"])


def fold_dimensions(type_node: c_ast.Node, ctype: CType) -> None:
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
                    fold_dimensions(param.type.type, ptype.target)
                else:
                    fold_dimensions(param.type, ptype)
            ctype = ctype.result
        else:
            if not isinstance(ctype, PointerType):
                return
            ctype = ctype.target
        node = node.type


def rename(type_node: c_ast.Node, name: str | None) -> None:
    """Set the declared name of a declarator chain."""
    node = type_node
    while not isinstance(node, c_ast.TypeDecl):
        if not hasattr(node, "type"):
            return
        node = node.type
    node.declname = name


def abstract(type_node: c_ast.Node) -> c_ast.Node:
    rename(type_node, None)
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


def generate(type_node: c_ast.Node, align: list[c_ast.Node]) -> str:
    decl = c_ast.Decl(None, [], align, [], [], type_node, None, None)
    text = c_generator.CGenerator().visit(decl)
    return " ".join(text.split())
