"""The decisions of a unit's functions, in the sense of MC/DC (DO-178C, Annex B: "a Boolean
expression composed of conditions and zero or more Boolean operators"): every expression
tree of `&&`, `||` and `!` whose leaves, the conditions, are two or more. A decision stands
wherever C evaluates one: the condition of an `if`, `while`, `do`, `for` or `?:`, and a
boolean expression assigned, passed, returned or used as an operand. A condition that
holds a decision of its own (`f(a && b) || c`) holds a further decision; each occurrence
of a condition is a condition of its own (`a && !a` has two), as DO-178C counts them.

Contexts C does not evaluate, or evaluates at compile time, hold no decision: the operands
of `sizeof`, `_Alignof` and `__typeof__`, type names, case labels, the initializers of
static locals, the first operand of `__builtin_choose_expr` and `__builtin_constant_p`.
Nor do annotations (`__rtt_precondition(...)` and the rest, reaching the parser as
`__ctg_` calls): they state what the code must do, they are no code of the function.

Decisions are numbered from 0 in the order of the unit's function definitions and, in a
function, of a pre-order walk (a decision before those inside its conditions); the
instrumented copy (mcdc_instrument.py) numbers them the same way.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from pycparser import c_ast, c_generator

from ..errors import SourceLocation
from .annotations import RESERVED_PREFIX
from .gnu_ast import CHOOSE_EXPR, TYPES_COMPATIBLE, GenericSelection, is_elvis
from .locations import coord_location
from .unit import Unit

#: Calls whose arguments (all, or the first) C does not evaluate at run time.
_UNEVALUATED_CALLS = {"__builtin_constant_p": 0, TYPES_COMPATIBLE: 0, "offsetof": 0,
                      "__builtin_offsetof": 0, CHOOSE_EXPR: 1}
_UNEVALUATED_OPERATORS = frozenset({"sizeof", "_Alignof", "__alignof__", "__alignof"})


#: A decision's operators over its conditions: a condition's index, `("!", tree)`, or
#: `("&&", left, right)` / `("||", left, right)`.
BoolTree: TypeAlias = int | tuple[str, "BoolTree"] | tuple[str, "BoolTree", "BoolTree"]


@dataclass(frozen=True)
class Condition:
    """A condition of a decision: its position among the decision's conditions (left to
    right, from 0), its C text and where it starts."""

    index: int
    text: str
    location: SourceLocation


@dataclass(frozen=True)
class Decision:
    """A decision of `function`: its number in the unit, where it starts, its C text and
    its conditions in order."""

    id: int
    function: str
    location: SourceLocation
    text: str
    conditions: tuple[Condition, ...]
    tree: BoolTree = 0

    @property
    def where(self) -> str:
        """`file:line:col` of the decision."""
        return f"{self.location.file}:{self.location.line}:{self.location.column}"


#: Sets a node in its parent (in the slot the walk found it in).
Setter = Callable[[c_ast.Node], None]


@dataclass(frozen=True)
class DecisionNodes:
    """A decision with its nodes in the AST it was found in: the top operator, its
    setter, and the conditions with theirs (for the instrumentation)."""

    decision: Decision
    node: c_ast.Node
    set_node: Setter
    conditions: tuple[tuple[c_ast.Node, Setter], ...]


def text_of(node: c_ast.Node) -> str:
    """`node` as C text on one line."""
    return " ".join(c_generator.CGenerator(reduce_parentheses=True).visit(node).split())


def _is_logical(node: c_ast.Node) -> bool:
    return (isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||")) or (
        isinstance(node, c_ast.UnaryOp) and node.op == "!")


def _setter(parent: c_ast.Node, slot: str) -> Setter:
    """What puts a node where `parent.children()` names `slot` (`cond`, `exprs[2]`)."""
    match = re.fullmatch(r"(\w+)\[(\d+)\]", slot)
    if match:
        items = getattr(parent, match.group(1))
        index = int(match.group(2))

        def set_item(node: c_ast.Node) -> None:
            items[index] = node
        return set_item
    if isinstance(parent, c_ast.TernaryOp) and slot == "cond" and is_elvis(parent):
        def set_elvis(node: c_ast.Node) -> None:  # `a ?: b` evaluates `a` once
            parent.cond = parent.iftrue = node
        return set_elvis

    def set_attribute(node: c_ast.Node) -> None:
        setattr(parent, slot, node)
    return set_attribute


def _conditions(node: c_ast.Node, set_node: Setter) -> Iterator[tuple[c_ast.Node, Setter]]:
    """The leaves of the `&&`/`||`/`!` tree at `node`, left to right."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        yield from _conditions(node.left, _setter(node, "left"))
        yield from _conditions(node.right, _setter(node, "right"))
    elif isinstance(node, c_ast.UnaryOp) and node.op == "!":
        yield from _conditions(node.expr, _setter(node, "expr"))
    else:
        yield node, set_node


def _tree(node: c_ast.Node, numbers: Iterator[int]) -> BoolTree:
    """The operators of the `&&`/`||`/`!` tree at `node`, its leaves numbered from
    `numbers` left to right (as `_conditions` yields them)."""
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        left = _tree(node.left, numbers)
        return (str(node.op), left, _tree(node.right, numbers))
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return ("!", _tree(node.expr, numbers))
    return next(numbers)


def _called_name(node: c_ast.FuncCall) -> str | None:
    return node.name.name if isinstance(node.name, c_ast.ID) else None


class _Finder:
    """Walks one function body in evaluation order, collecting its decisions."""

    def __init__(self, function: str, first_id: int, path: str) -> None:
        self.function = function
        self.next_id = first_id
        self.path = path
        self.found: list[DecisionNodes] = []

    def visit(self, node: c_ast.Node | None, set_node: Setter) -> None:
        if node is None:
            return
        if _is_logical(node):
            leaves = tuple(_conditions(node, set_node))
            if len(leaves) >= 2:
                self._record(node, set_node, leaves)
            for leaf, _ in leaves:
                self.children(leaf)
            return
        self.children(node)

    def _record(self, node: c_ast.Node, set_node: Setter,
                leaves: tuple[tuple[c_ast.Node, Setter], ...]) -> None:
        conditions = tuple(
            Condition(k, text_of(leaf), coord_location(leaf.coord, self.path))
            for k, (leaf, _) in enumerate(leaves))
        decision = Decision(self.next_id, self.function, coord_location(node.coord, self.path),
                            text_of(node), conditions, _tree(node, iter(range(len(leaves)))))
        self.next_id += 1
        self.found.append(DecisionNodes(decision, node, set_node, leaves))

    def children(self, node: c_ast.Node) -> None:
        """Visit what of `node` C evaluates at run time."""
        if isinstance(node, (c_ast.Typename, c_ast.Typedef, c_ast.StaticAssert,
                             c_ast.FuncDef)):
            return
        if isinstance(node, c_ast.UnaryOp) and node.op in _UNEVALUATED_OPERATORS:
            return
        if isinstance(node, c_ast.Decl):
            if not {"static", "extern"} & set(node.storage or ()):
                self.visit(node.init, _setter(node, "init"))
            return
        named = {
            c_ast.Cast: ("expr",), c_ast.CompoundLiteral: ("init",),
            c_ast.NamedInitializer: ("expr",), c_ast.Case: None,
        }
        if type(node) in named:
            slots = named[type(node)]
            if slots is None:  # Case: its label is a constant
                for i, stmt in enumerate(node.stmts or ()):
                    self.visit(stmt, _setter(node, f"stmts[{i}]"))
                return
            for slot in slots:
                self.visit(getattr(node, slot), _setter(node, slot))
            return
        if isinstance(node, GenericSelection):  # the controlling expression is not evaluated
            for i, expr in enumerate(node.exprs):
                self.visit(expr, _setter(node, f"exprs[{i}]"))
            return
        skipped = 0
        if isinstance(node, c_ast.FuncCall):
            name = _called_name(node)
            if name is not None and name.startswith(RESERVED_PREFIX):
                return
            if name in _UNEVALUATED_CALLS:
                skipped = _UNEVALUATED_CALLS[name] or len(node.args.exprs if node.args else ())
            if skipped and node.args is not None:
                for i, arg in enumerate(node.args.exprs[skipped:], skipped):
                    self.visit(arg, _setter(node.args, f"exprs[{i}]"))
                return
        for slot, child in node.children():
            if isinstance(node, c_ast.TernaryOp) and slot == "iftrue" and is_elvis(node):
                continue
            self.visit(child, _setter(node, slot))


def function_decisions(definition: c_ast.FuncDef, first_id: int, path: str
                       ) -> list[DecisionNodes]:
    """The decisions of a function definition, numbered from `first_id`, with their nodes
    in `definition` (which the instrumentation may rewrite)."""
    finder = _Finder(str(definition.decl.name), first_id, path)
    finder.visit(definition.body, lambda node: setattr(definition, "body", node))
    return finder.found


def unit_definitions(unit: Unit) -> list[c_ast.FuncDef]:
    """The function definitions the unit file itself holds (not its headers), in order."""
    here = Path(unit.path).resolve()
    out = []
    for function in unit.functions.values():
        definition = function.definition
        if definition is None or not function.location.file:
            continue
        if Path(function.location.file).resolve() == here:
            out.append(definition)
    out.sort(key=lambda d: (d.coord.line, d.coord.column or 0) if d.coord else (0, 0))
    return out


def unit_decisions(unit: Unit) -> tuple[Decision, ...]:
    """Every decision of the functions defined in the unit file, numbered in order."""
    decisions: list[Decision] = []
    for definition in unit_definitions(unit):
        found = function_decisions(definition, len(decisions), str(unit.path))
        decisions += [d.decision for d in found]
    return tuple(decisions)
