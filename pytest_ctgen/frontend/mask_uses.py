"""The names a unit's code uses as bit masks, read from its syntax tree: which values a
case shows in hex (value_forms.py).

A *mask operand* is an operand of `&`, `|`, `^` or `~`, the left operand of `<<` or `>>`
(the count is none), either side of `&=`, `|=`, `^=`, or the target of `<<=`, `>>=`.
Looking through casts, `*`, `[...]`, `++` and `--`, it names a variable (`*reg |= 1u`,
`buf[i] & 0x80u`: `reg`, `buf`), a struct or union member by its name (`r->ctrl & EN`:
`ctrl`) or, being a call, the function called (`read_sr() & RXNE`). Then:

- a parameter is a mask in its own function when it is so named there;
- a global, and a member name in every struct, when a function of the unit so names it;
- a function's results are masks when a call of it is a mask operand, initializes or is
  assigned to a local that is one (`sr = read_sr(); if (sr & RXNE)`), or when the function
  returns a mask name or an expression of `&`, `|`, `^` or `~` (`return w | bit;`; not a
  shift, which scales as often as it moves bits: `return (x * 1000) >> 15;`).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .parse import nodes_under
from .unit import Unit

_BITWISE = frozenset({"&", "|", "^"})
_SHIFTS = frozenset({"<<", ">>"})
_BOTH_SIDES = frozenset({"&=", "|=", "^="})
_TARGET_ONLY = frozenset({"<<=", ">>="})
_THROUGH = frozenset({"*", "++", "--", "p++", "p--"})  # unary operators looked through


@dataclass(frozen=True)
class MaskUses:
    """What a unit's code uses as masks (see the module's docstring)."""

    params: dict[str, frozenset[str]]  # by function: its parameters that are masks
    globals: frozenset[str]
    members: frozenset[str]
    results: frozenset[str]  # the functions whose results are masks


@dataclass
class _Function:
    """The mask operands of one function's body."""

    names: set[str]
    members: set[str]
    calls: set[str]
    assigned: list[tuple[str, str]]  # (local, function) of `local = f(...)`
    returns_mask: bool
    declared: set[str]  # the names its declarations give (parameters, locals)


def _operand(expr: c_ast.Node | None) -> c_ast.Node | None:
    """What a mask operand names, looking through casts, `*`, `[...]`, `++`, `--`: an ID,
    a StructRef or a FuncCall, else None."""
    while expr is not None:
        if isinstance(expr, c_ast.Cast) or \
                (isinstance(expr, c_ast.UnaryOp) and expr.op in _THROUGH):
            expr = expr.expr
        elif isinstance(expr, c_ast.ArrayRef):
            expr = expr.name
        elif isinstance(expr, (c_ast.ID, c_ast.StructRef, c_ast.FuncCall)):
            return expr
        else:
            return None
    return None


def _called(expr: c_ast.Node | None) -> str | None:
    """The function `expr` calls, through casts (`(uint8_t)read()`), or None."""
    while isinstance(expr, c_ast.Cast):
        expr = expr.expr
    if isinstance(expr, c_ast.FuncCall) and isinstance(expr.name, c_ast.ID):
        return str(expr.name.name)
    return None


def _is_bitwise(expr: c_ast.Node | None) -> bool:
    """Whether `expr` is an expression of `&`, `|`, `^` or `~` (not a shift, which scales
    as often as it moves bits), through casts."""
    while isinstance(expr, c_ast.Cast):
        expr = expr.expr
    return (isinstance(expr, c_ast.BinaryOp) and expr.op in _BITWISE) or \
        (isinstance(expr, c_ast.UnaryOp) and expr.op == "~")


def _function(body: c_ast.Node) -> _Function:
    found = _Function(set(), set(), set(), [], False, set())
    returned: list[c_ast.Node] = []

    def mark(expr: c_ast.Node | None) -> None:
        named = _operand(expr)
        if isinstance(named, c_ast.ID):
            found.names.add(named.name)
        elif isinstance(named, c_ast.StructRef):
            found.members.add(named.field.name)
        elif named is not None:
            callee = _called(named)
            if callee is not None:
                found.calls.add(callee)

    for node in nodes_under(body):
        if isinstance(node, c_ast.BinaryOp) and node.op in _BITWISE:
            mark(node.left)
            mark(node.right)
        elif isinstance(node, c_ast.BinaryOp) and node.op in _SHIFTS:
            mark(node.left)
        elif isinstance(node, c_ast.UnaryOp) and node.op == "~":
            mark(node.expr)
        elif isinstance(node, c_ast.Assignment):
            if node.op in _BOTH_SIDES | _TARGET_ONLY:
                mark(node.lvalue)
            if node.op in _BOTH_SIDES:
                mark(node.rvalue)
            callee = _called(node.rvalue)
            if node.op == "=" and callee and isinstance(node.lvalue, c_ast.ID):
                found.assigned.append((node.lvalue.name, callee))
        elif isinstance(node, c_ast.Decl) and node.name:
            found.declared.add(node.name)
            callee = _called(node.init)
            if callee is not None:
                found.assigned.append((node.name, callee))
        elif isinstance(node, c_ast.Return) and node.expr is not None:
            returned.append(node.expr)
    named = [_operand(e) for e in returned]
    found.returns_mask = any(_is_bitwise(e) for e in returned) or \
        any(isinstance(n, c_ast.ID) and n.name in found.names for n in named)
    return found


def mask_uses(unit: Unit) -> MaskUses:
    """The masks of `unit`'s code (see the module's docstring)."""
    params: dict[str, frozenset[str]] = {}
    globals_: set[str] = set()
    members: set[str] = set()
    results: set[str] = set()
    for fn in unit.functions.values():
        if fn.definition is None:
            continue
        found = _function(fn.definition.body)
        own = {p.name for p in fn.params}
        params[fn.name] = frozenset(found.names & own)
        globals_ |= {n for n in found.names - own - found.declared if n in unit.globals}
        members |= found.members
        results |= found.calls | {callee for name, callee in found.assigned
                                  if name in found.names}
        if found.returns_mask:
            results.add(fn.name)
    return MaskUses(params, frozenset(globals_), frozenset(members), frozenset(results))
