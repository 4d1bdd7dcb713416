"""The unit as the run compiles it when the unit itself specifies external functions.

A definition whose body holds `__rtt_extern()` specifies a function that the unit calls
but that is not its own, and calls of it must reach the stub. The run therefore compiles a
copy of the unit in which each such definition is renamed (its body is never run) and the
function is declared again under its own name after it. Lines stay where they were, and a
`#line` directive names the original file, so compiler messages and gcov point into it.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from ..cases import StubPrototype
from ..errors import CtgenError

#: The name a specification's definition is compiled under in the copy.
SPEC_PREFIX = "ctgen_spec_"
#: The copy's file name, beside the harness or the exported driver.
UNIT_COPY = "ctgen_unit.c"

_COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


def _blank(match: re.Match[str]) -> str:
    return "".join("\n" if ch == "\n" else " " for ch in match.group(0))


def code_only(text: str) -> str:
    """`text` with comments and string and character literals blanked out, so that a
    position in it is the same position in `text`."""
    return _COMMENT_OR_LITERAL.sub(_blank, text)


def _closing(code: str, start: int, open_ch: str, close_ch: str) -> int:
    """The index of the bracket closing the one at `start`, or -1."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_ch:
            depth += 1
        elif code[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return -1


def definition_span(code: str, name: str) -> tuple[int, int] | None:
    """Where the name of the definition of function `name` is and where its body ends
    (the index of the closing brace), in comment-free `code`."""
    for match in re.finditer(rf"(?<![\w$]){re.escape(name)}\s*\(", code):
        close = _closing(code, match.end() - 1, "(", ")")
        if close < 0:
            return None
        rest = code[close + 1:]
        body = close + 1 + len(rest) - len(rest.lstrip())
        if body < len(code) and code[body] == "{":
            end = _closing(code, body, "{", "}")
            if end >= 0:
                return match.start(), end
    return None


def _declaration(stub: StubPrototype) -> str:
    return f"{'static ' if stub.static else ''}{stub.prototype.strip().rstrip(';')};"


def specified_unit_copy(unit: Path, display_path: str, stubs: Iterable[StubPrototype]
                        ) -> str | None:
    """The text of the copy of `unit` in which the definitions of those `stubs` that are
    specified in the unit are renamed; None when there are none (the unit is compiled as
    it is). `display_path` is the file name compiler messages and gcov should show.

    Raises:
        CtgenError: a definition cannot be found in the text (its name or its body's
        braces come from a macro).
    """
    specified = [s for s in stubs if s.specified_in_unit]
    if not specified:
        return None
    text = unit.read_text(encoding="utf-8", errors="surrogateescape")
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in text order
    code = code_only(text)
    for stub in specified:
        span = definition_span(code, stub.name)
        if span is None:
            raise CtgenError(
                f"cannot find the definition of '{stub.name}', which specifies an external "
                f"function (__rtt_extern), in {display_path}: its name and its body's braces "
                f"must be written out, not made by a macro")
        start, end = span
        edits.append((start, start + len(stub.name), SPEC_PREFIX + stub.name))
        edits.append((end + 1, end + 1, " " + _declaration(stub)))
    out = []
    position = 0
    for start, end, replacement in sorted(edits):
        out.append(text[position:start])
        out.append(replacement)
        position = end
    out.append(text[position:])
    escaped = display_path.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line 1 "{escaped}"\n' + "".join(out)
