"""The names a unit's code uses as bit masks, read from its syntax tree: which values a
case shows in hex (value_forms.py).

A *mask operand* is an operand of `&`, `|`, `^` or `~`, the left operand of `<<` or `>>`
(the count is none), either side of `&=`, `|=`, `^=`, or the target of `<<=`, `>>=`.
Looking through casts, `*`, `[...]`, `++` and `--`, it names a variable (`*reg |= 1u`,
`buf[i] & 0x80u`: `reg`, `buf`), a struct or union member by its name (`r->ctrl & EN`:
`ctrl`) or, being a call, the function called (`read_sr() & RXNE`).

A name the code also uses as a number is no mask: an operand of `+ - * / %`, of `< > <= >=`,
of unary `-`, `++` or `--`, either side of `+= -= *= /= %=`, or an array index (`n & 1u`
beside `n / 2u`, `head & RB_MASK` beside `head++`); not arithmetic that is itself an
operand of `&`, `|` or `^` (`x & (x - 1u)`, `x &= x - 1u` keep x a mask). For a pointer or
array parameter or global, only its elements count (`*p & 0x80u` beside `p++` stays a
mask; `p[i] + 1` does not). Then:

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

from .ctype import ArrayType, CType, PointerType
from .parse import nodes_under
from .unit import Unit

_BITWISE = frozenset({"&", "|", "^"})
_SHIFTS = frozenset({"<<", ">>"})
_BOTH_SIDES = frozenset({"&=", "|=", "^="})
_TARGET_ONLY = frozenset({"<<=", ">>="})
_THROUGH = frozenset({"*", "++", "--", "p++", "p--"})  # unary operators looked through
_COUNTING = frozenset({"++", "--", "p++", "p--"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "<", ">", "<=", ">="})
_ARITHMETIC_ASSIGN = frozenset({"+=", "-=", "*=", "/=", "%="})


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
    # the names and members it uses as numbers: (name, whether its elements: through
    # `*` or `[...]`)
    numbers: set[tuple[str, bool]]
    number_members: set[str]


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


def _number_operand(expr: c_ast.Node | None) -> tuple[c_ast.Node, bool] | None:
    """What an operand used as a number names (an ID or a StructRef), looking through
    casts, `*`, `[...]`, `++` and `--`, and whether through `*` or `[...]`; else None."""
    elements = False
    while expr is not None:
        if isinstance(expr, c_ast.Cast) or \
                (isinstance(expr, c_ast.UnaryOp) and expr.op in _COUNTING):
            expr = expr.expr
        elif isinstance(expr, c_ast.UnaryOp) and expr.op == "*":
            expr, elements = expr.expr, True
        elif isinstance(expr, c_ast.ArrayRef):
            expr, elements = expr.name, True
        elif isinstance(expr, (c_ast.ID, c_ast.StructRef)):
            return expr, elements
        else:
            return None
    return None


def _uncast(expr: c_ast.Node | None) -> c_ast.Node | None:
    while isinstance(expr, c_ast.Cast):
        expr = expr.expr
    return expr


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
    found = _Function(set(), set(), set(), [], False, set(), set(), set())
    returned: list[c_ast.Node] = []

    def number(expr: c_ast.Node | None) -> None:
        named = _number_operand(expr)
        if named is not None and isinstance(named[0], c_ast.ID):
            found.numbers.add((named[0].name, named[1]))
        elif named is not None:
            found.number_members.add(named[0].field.name)

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

    # `x & (x - 1)`, `w | (w + 1)`: arithmetic inside a bitwise operand counts as neither
    in_bitwise = {id(_uncast(side)) for node in nodes_under(body)
                  for side in ((node.left, node.right)
                               if isinstance(node, c_ast.BinaryOp) and node.op in _BITWISE
                               else (node.rvalue,)
                               if isinstance(node, c_ast.Assignment) and node.op in _BOTH_SIDES
                               else ())}
    for node in nodes_under(body):
        if isinstance(node, c_ast.BinaryOp) and node.op in _ARITHMETIC and \
                id(node) not in in_bitwise:
            number(node.left)
            number(node.right)
        elif isinstance(node, c_ast.UnaryOp) and node.op in _COUNTING | {"-"}:
            number(node.expr)
        elif isinstance(node, c_ast.Assignment) and node.op in _ARITHMETIC_ASSIGN:
            number(node.lvalue)
            number(node.rvalue)
        elif isinstance(node, c_ast.ArrayRef):
            number(node.subscript)
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
    numbers: set[str] = set()  # globals used as numbers
    number_members: set[str] = set()
    for fn in unit.functions.values():
        if fn.definition is None:
            continue
        found = _function(fn.definition.body)
        types = {p.name: p.type for p in fn.params}
        params[fn.name] = frozenset(n for n in found.names & set(types)
                                    if not _as_number(n, types[n], found.numbers))
        own_globals = {n for n in found.names | {n for n, _ in found.numbers}
                       if n not in types and n not in found.declared and n in unit.globals}
        globals_ |= found.names & own_globals
        numbers |= {n for n in own_globals
                    if _as_number(n, unit.globals[n].type, found.numbers)}
        members |= found.members
        number_members |= found.number_members
        results |= found.calls | {callee for name, callee in found.assigned
                                  if name in found.names}
        if found.returns_mask:
            results.add(fn.name)
    return MaskUses(params, frozenset(globals_ - numbers), frozenset(members - number_members),
                    frozenset(results))


def _as_number(name: str, ctype: CType, numbers: set[tuple[str, bool]]) -> bool:
    """Whether a function uses the variable `name` of type `ctype` as a number: its
    elements, for a pointer or an array, else itself."""
    pointer = isinstance(ctype, (PointerType, ArrayType))
    return (name, True) in numbers or (not pointer and (name, False) in numbers)
