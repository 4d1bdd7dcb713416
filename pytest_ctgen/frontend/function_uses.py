"""The functions a unit's code uses: those its function bodies and initializers name
(called, or taken as a pointer), read from the syntax tree, so also in a function the
lowering cannot take. An undefined one must be stubbed or modelled, or the harness links
whatever the system has under that name; a replay refuses a unit whose build flags make
it use a function its export does not account for (`-Dstrlen=system`).

A name a declaration in scope gives to an object (a local function pointer `fp(1)`) is no
function; a call of a name nothing declares (an implicit declaration, which gcc before
version 14 accepts) is a use of that function. gcc's builtins, the annotations (spelled
`__ctg_...` in the analysis) and the markers of the preprocessing are no uses.
"""
from __future__ import annotations

from collections.abc import Iterator

from pycparser import c_ast

from .annotations import RESERVED_PREFIX
from .unit import Unit

#: The prefixes of gcc's builtin functions, which the lowering knows by name, of the
#: annotations, and of the markers the preprocessing writes for the parser (`asm`,
#: `va_arg`: gnu_ast.py, preprocess.py).
_NO_FUNCTION_PREFIXES = ("__builtin_", "__atomic_", "__sync_", RESERVED_PREFIX, "__ctgen_")


def used_functions(unit: Unit) -> frozenset[str]:
    """The functions `unit`'s function bodies and file-scope initializers name."""
    objects = {name for name, var in unit.globals.items()}
    used: set[str] = set()
    for node in unit.ast.ext:
        if isinstance(node, c_ast.FuncDef):
            local = objects | set(_declared_names(node)) - _function_names(node)
            used.update(_uses(node.body, unit, local))
        elif isinstance(node, c_ast.Decl) and node.init is not None:
            used.update(_uses(node.init, unit, objects))
    return frozenset(used)


def _uses(node: c_ast.Node, unit: Unit, objects: set[str]) -> Iterator[str]:
    for child in _walk(node):
        if isinstance(child, c_ast.ID):
            name = child.name
            if name in unit.functions and name not in objects:
                yield name
        elif isinstance(child, c_ast.FuncCall) and isinstance(child.name, c_ast.ID):
            name = child.name.name
            if name not in unit.functions and name not in objects and \
                    name not in unit.enum_constants and name not in _MEMBER_DESIGNATORS and \
                    not name.startswith(_NO_FUNCTION_PREFIXES):
                yield name  # called with no declaration: an implicit declaration


def _declared_names(node: c_ast.Node) -> Iterator[str]:
    """The names declarations inside `node` give (parameters and locals)."""
    for child in _walk(node):
        if isinstance(child, c_ast.Decl) and child.name is not None:
            yield child.name


def _function_names(node: c_ast.FuncDef) -> set[str]:
    """Block-scope declarations of functions (`int helper(int);` inside a body) name
    functions, not objects."""
    return {child.name for child in _walk(node.body)
            if isinstance(child, c_ast.Decl) and isinstance(child.type, c_ast.FuncDecl)}


#: The calls whose arguments name a member, not an identifier of the scope.
_MEMBER_DESIGNATORS = frozenset({"offsetof", "__builtin_offsetof"})


def _walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """`node` and every node under it, without recursion (deep expressions), but the
    names of members (`p->time`, `.time = 0`, `offsetof(struct s, time)`), which are no
    identifiers of the scope."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        if isinstance(current, c_ast.FuncCall) and isinstance(current.name, c_ast.ID) \
                and current.name.name in _MEMBER_DESIGNATORS:
            continue
        todo.extend(child for slot, child in current.children()
                    if not (isinstance(current, c_ast.StructRef) and slot == "field")
                    and not (isinstance(current, c_ast.NamedInitializer)
                             and slot.startswith("name")))
