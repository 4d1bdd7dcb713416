"""The MC/DC-instrumented copy of a unit: its source text in which the body of each function
with decisions (decisions.py) is written again from the AST with every condition and every
decision reporting to the runtime of c_harness/ctgen_mcdc.h:

    ctgen_mcdc_decision(d, ctgen_mcdc_begin(d) ? (... ctgen_mcdc_cond(d, k, (c) != 0) ...) : 0)

C's own `&&`, `||` and `!` still join the conditions, so short-circuit evaluation is kept
(a condition not evaluated is recorded as such), each condition is evaluated once, in the
same order, and the decision's value is the same int. Everything outside those bodies
(includes, macros, declarations, attributes, other functions) stays as the user wrote it,
and a `#line` after each rewritten body keeps the rest of the file at its lines.
The loops cases stop in are ticked as in the plain copy of the unit (frontend/loop_ticks.py):
in the user's text first, then, for a body written anew, in its AST, so a case stops after
the same iterations in either build.

A body is written from the analysis AST, where macros are expanded and a few GNU
spellings were changed for the parser (frontend/preprocess.py): `va_arg` is written back as
`__builtin_va_arg`, `a ?: b`, statement expressions and case ranges as GNU C spells them.
A function is left as it is, its decisions not measured, when its body cannot be written
again faithfully: an `asm` statement (the parser keeps only a marker), or a definition
whose name and braces are not written out in the file.
Attributes inside a body (the parser drops them) are lost.

This is the route for any gcc. gcc 14 and newer can measure the same evaluations itself
(`-fcondition-coverage`, read through `gcov --conditions` or gcovr), which would replace
this copy and its runtime by a flag of the harness build; see `gcc_condition_coverage`.
"""
from __future__ import annotations

import copy
import re
import subprocess
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_generator

from ..c_harness_files import MCDC_RUNTIME
from ..errors import CtgenError
from .annotations import (
    AUX_DECLARATION,
    RESERVED_PREFIX,
    USER_PREFIX,
    closing_bracket,
    code_only,
)
from .decisions import Decision, DecisionNodes, function_decisions, unit_definitions
from .gnu_ast import ASM_MARKER, case_range, index_range, is_elvis
from .loop_ticks import LoopAt, tick_call, tick_edits, tick_loops
from .preprocess import VA_ARG_MARKER
from .unit import Unit

#: What the instrumented copy calls (c_harness/ctgen_mcdc.h).
BEGIN, CONDITION, DECISION = "ctgen_mcdc_begin", "ctgen_mcdc_cond", "ctgen_mcdc_decision"
#: The first gcc with -fcondition-coverage.
CONDITION_COVERAGE_GCC = 14


def gcc_condition_coverage(cc: str = "gcc") -> bool:
    """Whether `cc` is a gcc that measures MC/DC itself (`-fcondition-coverage`, gcc 14).

    With it, the harness would be built from the unit as it is, with
    `-fcondition-coverage` beside `--coverage`, and the condition outcomes read from
    `gcov --conditions --json-format` (or gcovr's conditions) instead of this copy's
    records; gcc reports which condition outcomes lack an independence pair (masking
    MC/DC), not the evaluation vectors, so the unique-cause/masking distinction of
    coverage/mcdc.py would not be available on that route. Not implemented: this copy
    works with every gcc."""
    try:
        done = subprocess.run([cc, "-dumpversion"], capture_output=True, text=True,
                              check=False)
    except OSError:
        return False
    major = done.stdout.strip().split(".")[0]
    return major.isdigit() and int(major) >= CONDITION_COVERAGE_GCC


@dataclass(frozen=True)
class InstrumentedUnit:
    """The instrumented copy's text and what it measures."""

    text: str
    decisions: tuple[Decision, ...]
    #: the functions the unit file defines, in order
    functions: tuple[str, ...] = ()
    #: functions with decisions that the copy leaves as they are, and why
    not_instrumented: dict[str, str] = field(default_factory=dict)


class _StatementExpression(c_ast.Node):
    """GNU `({ ... })`: a compound statement where an expression stands."""

    __slots__ = ("__weakref__", "body", "coord")
    attr_names = ()

    def __init__(self, body: c_ast.Compound) -> None:
        self.body = body
        self.coord = body.coord

    def children(self) -> tuple[tuple[str, c_ast.Node]]:
        return (("body", self.body),)

    def __iter__(self) -> Iterator[c_ast.Node]:
        yield self.body


class _BodyText(c_generator.CGenerator):
    """C text of a function body as gcc reads it (see the module docstring)."""

    def visit__StatementExpression(self, n: _StatementExpression) -> str:
        return "(" + str(_BodyText().visit(n.body)).strip() + ")"

    def visit_TernaryOp(self, n: c_ast.TernaryOp) -> str:
        if is_elvis(n):
            return f"({self._visit_expr(n.cond)}) ?: ({self._visit_expr(n.iffalse)})"
        return str(super().visit_TernaryOp(n))

    def visit_Case(self, n: c_ast.Case) -> str:
        bounds = case_range(n)
        if bounds is None:
            return str(super().visit_Case(n))
        s = f"case {self.visit(bounds[0])} ... {self.visit(bounds[1])}:\n"
        return s + "".join(self._generate_stmt(stmt, add_indent=True) for stmt in n.stmts)

    def visit_NamedInitializer(self, n: c_ast.NamedInitializer) -> str:
        parts = []
        for designator in n.name:
            bounds = index_range(designator)
            if bounds is not None:
                parts.append(f"[{self.visit(bounds[0])} ... {self.visit(bounds[1])}]")
            elif isinstance(designator, c_ast.ID):
                parts.append("." + designator.name)
            else:
                parts.append("[" + self.visit(designator) + "]")
        return "".join(parts) + " = " + self._visit_expr(n.expr)

    def visit_ID(self, n: c_ast.ID) -> str:
        # an annotation as the user spells it: the copy renames it for the run again
        # (codegen/unit_copy.py), which also tells the copy to define the annotations
        name = str(n.name)
        if name.startswith(RESERVED_PREFIX):
            return USER_PREFIX + name[len(RESERVED_PREFIX):]
        return name

    def visit_UnaryOp(self, n: c_ast.UnaryOp) -> str:
        va = _va_arg(n)
        if va is not None:
            return f"__builtin_va_arg({self.visit(va[0])}, {self.visit(va[1])})"
        return str(super().visit_UnaryOp(n))


def _va_arg(n: c_ast.UnaryOp) -> tuple[c_ast.Node, c_ast.Node] | None:
    """The list and the type of `va_arg` as the parser sees it:
    `*(T *)__ctgen_va_arg(&(ap), sizeof(T))`."""
    if n.op != "*" or not isinstance(n.expr, c_ast.Cast):
        return None
    call = n.expr.expr
    if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
            and call.name.name == VA_ARG_MARKER and call.args and len(call.args.exprs) == 2):
        return None
    address, size = call.args.exprs
    if not (isinstance(address, c_ast.UnaryOp) and address.op == "&"
            and isinstance(size, c_ast.UnaryOp) and size.op == "sizeof"):
        return None
    return address.expr, size.expr


_STATEMENT_PARENTS = (c_ast.Compound, c_ast.If, c_ast.While, c_ast.DoWhile, c_ast.For,
                      c_ast.Switch, c_ast.Case, c_ast.Default, c_ast.Label, c_ast.FuncDef)


def _mark_statement_expressions(node: c_ast.Node) -> None:
    """Wrap each compound statement that stands where an expression does."""
    for slot, child in node.children():
        if isinstance(child, c_ast.Compound) and not isinstance(node, _STATEMENT_PARENTS):
            match = re.fullmatch(r"(\w+)\[(\d+)\]", slot)
            wrapped = _StatementExpression(child)
            if match:
                getattr(node, match.group(1))[int(match.group(2))] = wrapped
            else:
                setattr(node, slot, wrapped)
        _mark_statement_expressions(child)


def _why_not(definition: c_ast.FuncDef) -> str | None:
    """Why the body of `definition` cannot be written again faithfully, or None."""
    for node in _walk(definition.body):
        if isinstance(node, c_ast.ID) and node.name == ASM_MARKER:
            return "it holds an asm statement"
    return None


def _auxiliary_declarations_restored(body: c_ast.Node) -> None:
    """Write each auxiliary annotation variable's declaration back as the annotation it
    was (`__rtt_aux(T, N)`, which the analysis reads as `T N = __ctg_aux_declaration`):
    the run defines it for its checks after the call (codegen/unit_copy.py)."""
    for node in _walk(body):
        if isinstance(node, c_ast.Compound) and node.block_items:
            node.block_items = [_as_annotation(item) if _is_auxiliary(item) else item
                                for item in node.block_items]


def _is_auxiliary(item: c_ast.Node) -> bool:
    return isinstance(item, c_ast.Decl) and isinstance(item.init, c_ast.ID) and \
        item.init.name == AUX_DECLARATION


def _as_annotation(decl: c_ast.Decl) -> c_ast.FuncCall:
    unnamed = copy.deepcopy(decl.type)
    inner = unnamed
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = None
    type_text = c_generator.CGenerator().visit(c_ast.Typename(None, [], None, unnamed))
    return _call(f"{RESERVED_PREFIX}aux", c_ast.ID(type_text), c_ast.ID(str(decl.name)))


def _walk(node: c_ast.Node) -> list[c_ast.Node]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(child for _, child in n.children())
    return out


def _int(value: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(value))


def _call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(list(args)))


def _instrument(found: DecisionNodes) -> None:
    """Rewrite one decision's nodes in place (see the module docstring)."""
    d = found.decision.id
    for k, (leaf, set_leaf) in enumerate(found.conditions):
        set_leaf(_call(CONDITION, _int(d), _int(k), c_ast.BinaryOp("!=", leaf, _int(0))))
    began = c_ast.TernaryOp(_call(BEGIN, _int(d)), found.node, _int(0))
    found.set_node(_call(DECISION, _int(d), began))


def body_span(text: str, definition: c_ast.FuncDef) -> tuple[int, int] | None:
    """Where the body of `definition` is in the unit's `text`: the index of its `{` and
    of its `}`; None when its name and braces are not written out at its line."""
    code = code_only(text)
    line = definition.decl.coord.line if definition.decl.coord else 0
    start = 0
    for _ in range(max(0, line - 1)):
        start = code.find("\n", start) + 1
        if start == 0:
            return None
    name = re.compile(rf"(?<![\w$]){re.escape(str(definition.decl.name))}\s*\(")
    match = name.search(code, start)
    if match is None or code.count("\n", start, match.start()) > 0:
        return None
    close = closing_bracket(code, match.end() - 1, "(", ")")
    body = code.find("{", close + 1) if close >= 0 else -1
    if body < 0 or ";" in code[close:body]:
        return None
    end = closing_bracket(code, body, "{", "}")
    return (body, end) if end >= 0 else None


def instrument_unit(unit: Unit, text: str | None = None,
                    loops: Collection[LoopAt] = ()) -> InstrumentedUnit:
    """The instrumented copy of `unit` (its file's `text`, read if not given), with the
    `loops` that cases stop in ticked as in the plain copy (frontend/loop_ticks.py): in
    the user's text first, then again in each body written anew from the AST.

    Raises:
        CtgenError: a loop of `loops` cannot be found.
    """
    if text is None:
        text = Path(unit.path).read_text(encoding="utf-8", errors="surrogateescape")
    text = _with_edits(text, tick_edits(code_only(text), loops, str(unit.path)))
    decisions: list[Decision] = []
    skipped: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    for original in unit_definitions(unit):
        definition = copy.deepcopy(original)
        found = function_decisions(definition, len(decisions), str(unit.path))
        decisions += [f.decision for f in found]
        if not found:
            continue
        name = str(definition.decl.name)
        _auxiliary_declarations_restored(definition.body)
        why = _why_not(definition)
        span = body_span(text, original) if why is None else None
        if why is None and span is None:
            why = "its name and braces are not written out in the file"
        if why is not None or span is None:
            skipped[name] = why or ""
            continue
        for f in found:
            _instrument(f)
        tick_loops(definition.body, loops, str(unit.path))
        _mark_statement_expressions(definition)
        body = _BodyText().visit(definition.body).rstrip("\n")
        end_line = text.count("\n", 0, span[1]) + 1
        edits.append((span[0], span[1] + 1, f"{body}\n#line {end_line}\n"))
    out = f'#include "{MCDC_RUNTIME}"\n#line 1\n' + _with_edits(text, edits)
    for line, column in sorted(set(loops)):
        if tick_call(line, column) not in out:  # in a body written anew, not found there
            raise CtgenError(f"{unit.path}:{line}:{column}: cannot find this loop in the "
                             "function's syntax tree: the MC/DC build cannot stop a case "
                             "in it")
    functions = tuple(str(d.decl.name) for d in unit_definitions(unit))
    return InstrumentedUnit(out, tuple(decisions), functions, skipped)


def _with_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) of `edits` made (they do not overlap)."""
    out, position = [], 0
    for start, end, replacement in sorted(edits):
        out += [text[position:start], replacement]
        position = end
    out.append(text[position:])
    return "".join(out)
