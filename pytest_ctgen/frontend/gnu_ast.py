"""The nodes and names the parser adds to pycparser's AST for C11 and GNU C: `_Generic`,
`__label__`, `goto *`, `__typeof__`, `__auto_type`, asm statements, builtins that reach the
AST as calls, and the GNU ranges `case a ... b` and `[a ... b]`; with the C text pycparser's
generator writes for the new nodes."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from pycparser import c_ast, c_generator
from pycparser.c_parser import Coord

#: GNU `__builtin_types_compatible_p(type1, type2)` reaches the AST as a call of this name
#: whose two arguments are `Typename`s.
TYPES_COMPATIBLE: Final = "__builtin_types_compatible_p"
#: GNU `__builtin_choose_expr(constant, a, b)`, an ordinary call in the AST.
CHOOSE_EXPR: Final = "__builtin_choose_expr"
#: GNU `__real__ x` and `__imag__ x` reach the AST as calls of these names.
COMPLEX_PARTS: Final = frozenset({"__real__", "__imag__"})


class GenericSelection(c_ast.Node):
    """C11 `_Generic(expr, type: e, ..., default: e)`: `types[i]` is the `Typename` of
    association i (None for `default`), `exprs[i]` its expression."""

    __slots__ = ("__weakref__", "coord", "expr", "exprs", "types")

    def __init__(self, expr: c_ast.Node, types: list[c_ast.Node | None],
                 exprs: list[c_ast.Node], coord: Coord | None = None) -> None:
        self.expr = expr
        self.types = types
        self.exprs = exprs
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node], ...]:
        nodes: list[tuple[str, c_ast.Node]] = [("expr", self.expr)]
        for index, (ctype, expr) in enumerate(zip(self.types, self.exprs)):
            if ctype is not None:
                nodes.append((f"types[{index}]", ctype))
            nodes.append((f"exprs[{index}]", expr))
        return tuple(nodes)

    def __iter__(self) -> Iterator[c_ast.Node]:
        return (child for _, child in self.children())


class LocalLabels(c_ast.Node):
    """GNU `__label__ a, b;` at the start of a block: labels local to that block."""

    __slots__ = ("__weakref__", "coord", "names")
    attr_names = ("names",)

    def __init__(self, names: list[str], coord: Coord | None = None) -> None:
        self.names = names
        self.coord = coord

    def children(self) -> tuple[()]:
        return ()

    def __iter__(self) -> Iterator[c_ast.Node]:
        return iter(())


class ComputedGoto(c_ast.Node):
    """GNU `goto *expr;`: a jump to a label address (`&&label`, a `UnaryOp` '&&')."""

    __slots__ = ("__weakref__", "coord", "expr")

    def __init__(self, expr: c_ast.Node, coord: Coord | None = None) -> None:
        self.expr = expr
        self.coord = coord

    def children(self) -> tuple[tuple[str, c_ast.Node]]:
        return (("expr", self.expr),)

    def __iter__(self) -> Iterator[c_ast.Node]:
        return iter((self.expr,))


def _generic_text(self: c_generator.CGenerator, n: GenericSelection) -> str:
    parts = [self._visit_expr(n.expr)] + [
        f"{'default' if t is None else self.visit(t)}: {self._visit_expr(e)}"
        for t, e in zip(n.types, n.exprs)]
    return f"_Generic({', '.join(parts)})"


# C text of the nodes only our parser makes (for `__typeof__` operands and annotations)
c_generator.CGenerator.visit_GenericSelection = _generic_text
c_generator.CGenerator.visit_LocalLabels = (
    lambda self, n: f"__label__ {', '.join(n.names)};")
c_generator.CGenerator.visit_ComputedGoto = (
    lambda self, n: f"goto *{self._visit_expr(n.expr)};")

#: What a GNU asm statement reaches the AST as: a call of this name with the argument 1
#: when the statement has operands or goto labels (it reads or writes C objects or jumps),
#: else 0 (an instruction or a barrier that touches no C object).
ASM_MARKER = "__ctgen_asm"

#: `__auto_type`: the type of the declared object is that of its initializer.
AUTO_TYPE = "__auto_type"


class TypeofSpecifier(str):
    """The type specifier `__typeof__(operand)` as it reaches the AST: a name of an
    `IdentifierType` that spells the whole specifier (so C text generated from the AST is
    right) and carries its operand, an expression or a `Typename`."""

    operand: c_ast.Node

    def __new__(cls, operand: c_ast.Node) -> TypeofSpecifier:
        spelled = c_generator.CGenerator().visit(operand)
        self = super().__new__(cls, f"__typeof__({spelled})")
        self.operand = operand
        return self


def is_elvis(node: c_ast.TernaryOp) -> bool:
    """GNU `a ?: b` reaches the AST as a `TernaryOp` whose true operand is the condition's
    very node: `a` is evaluated once."""
    return node.iftrue is node.cond


def case_range(node: c_ast.Case) -> tuple[c_ast.Node, c_ast.Node] | None:
    """The bounds of GNU `case low ... high:` (an `ExprList` of two in the `Case`; a comma
    expression is no constant expression, so it cannot be a case value of its own)."""
    if isinstance(node.expr, c_ast.ExprList):
        low, high = node.expr.exprs
        return low, high
    return None


def index_range(designator: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node] | None:
    """The bounds of the GNU array designator `[first ... last]` (an `ExprList` of two)."""
    if isinstance(designator, c_ast.ExprList):
        first, last = designator.exprs
        return first, last
    return None
