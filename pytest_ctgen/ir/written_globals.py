"""The file-scope variables a unit's own code may write: assigned (also through a member or
an element), or whose address escapes as a pointer to a non-const object (passed to a
function, stored, returned: what it is then written through is not followed).

A global nothing in the unit writes and that has an initializer holds that initializer in
every state the program reaches (a lookup table, a name map), so a case starts from it
instead of choosing its contents. Reading through the address is no write: `t[i]`, `s.f`,
and a pointer converted to point to const (`strcmp(names[i], x)`) leave it unwritten. A
function the lowering could not take writes, as far as anyone knows, every global its body
names; a global initializer that takes a global's address lets it escape too.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from pycparser import c_ast

from ..frontend.ctype import CType, FunctionType, PointerType
from ..frontend.parse import nodes_under
from ..frontend.unit import GLOBAL, Unit, Variable
from .cfg import Assign, Call, Stmt, Terminator, ZeroFill
from .expr import AddrOf, Cast, Deref, Expr, Member, PtrAdd, VarRef, nodes_in


def written_globals(unit: Unit, bodies: Iterable[Stmt | Terminator | None],
                    initializers: Iterable[Stmt], lowered: Iterable[str]
                    ) -> frozenset[Variable]:
    """The globals of `unit` that `bodies` (the statements and terminators of the functions
    named in `lowered`) or the unit's other function definitions (whose bodies the lowering
    could not take) may write, or whose address `initializers` (the statements that give
    static objects their initial contents) let escape."""
    written: set[Variable] = set()
    for node in bodies:
        if node is None:
            continue
        for target in _targets(node):
            written.update(_root(target))
        written.update(_escaping(node, unit))
    for stmt in initializers:
        written.update(_escaping(stmt, unit))
    written.update(_named_in_other_bodies(unit, set(lowered)))
    return frozenset(v for v in written if v.kind == GLOBAL)


def _targets(node: Stmt | Terminator) -> Iterator[Expr]:
    target = node.target if isinstance(node, (Assign, ZeroFill, Call)) else None
    if target is not None:
        yield target


def _root(lvalue: Expr) -> Iterator[Variable]:
    """The variable whose own storage `lvalue` designates (through members and elements
    of it, not through a pointer it holds)."""
    while True:
        if isinstance(lvalue, VarRef):
            yield lvalue.var
            return
        if isinstance(lvalue, Member):
            lvalue = lvalue.base
        elif isinstance(lvalue, Deref):
            pointer = _through_arithmetic(lvalue.pointer)
            if not isinstance(pointer, AddrOf):
                return
            lvalue = pointer.lvalue
        else:
            return


def _through_arithmetic(pointer: Expr) -> Expr:
    while isinstance(pointer, PtrAdd):
        pointer = pointer.pointer
    return pointer


def _escaping(node: Stmt | Terminator, unit: Unit) -> Iterator[Variable]:
    """The variables whose address `node` uses other than to reach their own storage or
    to point to it as const (converted, or passed for a parameter of such a type)."""
    kept: set[int] = set()  # the AddrOf nodes that stay inside an access path
    if isinstance(node, Call):
        for arg, param in zip(node.args, _parameter_types(node, unit)):
            pointer = _through_arithmetic(arg)
            if isinstance(pointer, AddrOf) and isinstance(param, PointerType) and \
                    param.target_const:
                kept.add(id(pointer))
    for n in nodes_in(node):
        if isinstance(n, Deref):
            pointer = _through_arithmetic(n.pointer)
            if isinstance(pointer, AddrOf):
                kept.add(id(pointer))
        elif isinstance(n, Cast) and isinstance(n.type, PointerType) and n.type.target_const:
            operand = _through_arithmetic(n.operand)
            if isinstance(operand, AddrOf):
                kept.add(id(operand))
    for n in nodes_in(node):
        if isinstance(n, AddrOf) and id(n) not in kept:
            yield from _root(n.lvalue)


def _parameter_types(call: Call, unit: Unit) -> tuple[CType, ...]:
    """The declared parameter types of the function `call` calls, as far as known (a
    conversion to one that differs only in its target's qualifiers leaves no `Cast`)."""
    callee = unit.functions.get(call.function)
    if callee is not None:
        return callee.type.params
    pointer = call.pointer.type if call.pointer is not None else None
    if isinstance(pointer, PointerType) and isinstance(pointer.target, FunctionType):
        return pointer.target.params
    return ()


def _named_in_other_bodies(unit: Unit, lowered: set[str]) -> Iterator[Variable]:
    for ext in unit.ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name not in lowered:
            for node in nodes_under(ext.body):
                if isinstance(node, c_ast.ID) and node.name in unit.globals:
                    yield unit.globals[node.name]

