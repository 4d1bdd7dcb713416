"""Where a loop gets its tick: the one rule both copies of the unit that a harness builds
follow, so that a case the harness stops in a loop (cases.LoopStop) stops after the same
iterations in either.

The loops are named by where their keyword (`for`, `while` or `do`) stands, line and
column of the unit as the analysis saw it (cases.stopped_loops). The body statement of
each is prefixed with `if ((ctgen_loop_tick(L, C), 1))`, which the runtime
(c_harness/ctgen_runtime.h) counts and stops the call at; gcc folds the constant
condition, so gcov's lines and branches stay as they were. The tick is written on the
body's own line, in the text or in a body written again from the AST:

- `tick_edits`: in the unit's text (the plain copy, codegen/unit_copy.py, and the parts
  of the MC/DC copy that keep the user's text);
- `tick_loops`: in a function body's AST, the loop found by its coord (the bodies the
  MC/DC copy writes again, frontend/mcdc_instrument.py).
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

from pycparser import c_ast

from ..errors import CtgenError
from .annotations import closing_bracket
from .locations import coord_location

#: What counts the iterations of a loop a case stops in (c_harness/ctgen_runtime.h).
LOOP_TICK = "ctgen_loop_tick"

#: A loop by the line and column of its keyword.
LoopAt = tuple[int, int]


def tick_call(line: int, column: int) -> str:
    """The call that counts an iteration of the loop at `line`:`column`."""
    return f"{LOOP_TICK}({line}, {column})"


def _body_start(code: str, line: int, column: int) -> int:
    """Where the body statement of the loop whose keyword the analysis saw at
    `line`:`column` starts in comment-free `code`, or -1. The keyword is the first
    `for`, `while` or `do` on the line from that column on (preprocessing only ever
    shortens a line before a token: it joins blanks and drops comments)."""
    starts = [0] + [m.end() for m in re.finditer("\n", code)]
    if line > len(starts):
        return -1
    end = starts[line] if line < len(starts) else len(code)
    keyword = re.compile(r"(?<![\w$])(for|while|do)(?![\w$])")
    match = keyword.search(code, starts[line - 1] + column - 1, end)
    if match is None:
        return -1
    after = match.end()
    if match.group(1) != "do":
        opening = after + len(code[after:]) - len(code[after:].lstrip())
        if opening >= len(code) or code[opening] != "(":
            return -1
        after = closing_bracket(code, opening, "(", ")") + 1
        if after <= 0:
            return -1
    return after + len(code[after:]) - len(code[after:].lstrip())


def tick_edits(code: str, loops: Iterable[LoopAt], display_path: str
               ) -> list[tuple[int, int, str]]:
    """The insertions (start, end, text) that tick `loops` in comment-free `code` (the
    unit's text with comments and literals blanked, frontend/annotations.code_only).

    Raises:
        CtgenError: a loop's body cannot be found in the text (a macro makes it).
    """
    edits = []
    for line, column in sorted(set(loops)):
        at = _body_start(code, line, column)
        if at < 0:
            raise CtgenError(f"{display_path}:{line}:{column}: cannot find this loop's body "
                             "in the file (made by a macro?): the harness cannot stop a "
                             "case in it")
        edits.append((at, at, f"if (({tick_call(line, column)}, 1)) "))
    return edits


def tick_loops(body: c_ast.Node, loops: Collection[LoopAt], unit_file: str) -> set[LoopAt]:
    """Tick the loops of `loops` in the AST of a function `body` (in place): each loop
    of the unit file `unit_file` whose keyword's coord is one of them has its body
    statement wrapped in the same `if` (written `if (ctgen_loop_tick(L, C), 1) body`).
    Returns the loops ticked."""
    here = Path(unit_file).resolve()
    ticked: set[LoopAt] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        stack.extend(child for _, child in node.children())
        if not isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            continue
        where = coord_location(node.coord)
        at = (where.line, where.column)
        if at not in loops or Path(where.file).resolve() != here:
            continue
        call = c_ast.FuncCall(c_ast.ID(LOOP_TICK), c_ast.ExprList(
            [c_ast.Constant("int", str(at[0])), c_ast.Constant("int", str(at[1]))]))
        condition = c_ast.ExprList([call, c_ast.Constant("int", "1")])
        node.stmt = c_ast.If(condition, node.stmt or c_ast.EmptyStatement(), None)
        ticked.add(at)
    return ticked
