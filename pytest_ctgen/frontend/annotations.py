"""Reading CTGEN's annotations (`__rtt_precondition(...)` and the rest, see c_harness/ctgen.h)
whatever header the user defines them in.

Before preprocessing, every `__rtt_NAME` token of a file the user gave is renamed to the
reserved `__ctg_NAME`, which has the same length: no user header defines it, so the
annotation reaches the parser as written, at its own line and column. The analysis header
then declares what the parser needs, and the harness build defines the `__ctg_` forms as
the run needs them (see codegen/unit_copy.py).
"""
from __future__ import annotations

import re
from typing import Final

#: How the annotations are spelled in the user's code.
USER_PREFIX: Final = "__rtt_"
#: How they reach the parser and the harness build (same length: columns stay put).
RESERVED_PREFIX: Final = "__ctg_"
#: What the analysis initializes an auxiliary variable with: `__rtt_aux(T, N)` reaches
#: the parser as the declaration `T N = __ctg_aux_declaration` (c_harness/ctgen_analysis.h).
AUX_DECLARATION: Final = RESERVED_PREFIX + "aux_declaration"

_COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
_ANNOTATION_TOKEN = re.compile(r"(?<![\w$])" + re.escape(USER_PREFIX) + r"(?=\w)")
# a preprocessor directive with its continuation lines
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)


def _blank(match: re.Match[str]) -> str:
    return "".join("\n" if ch == "\n" else " " for ch in match.group(0))


def code_only(text: str) -> str:
    """`text` with comments and string and character literals blanked out, so that a
    position in it is the same position in `text`."""
    return _COMMENT_OR_LITERAL.sub(_blank, text)


def closing_bracket(code: str, start: int, open_ch: str, close_ch: str) -> int:
    """In `code_only` text, the index of the bracket closing the one at `start`, or -1."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_ch:
            depth += 1
        elif code[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _statements_only(text: str) -> str:
    """`text` with comments, literals and preprocessor directives blanked out: a
    `#define __rtt_X` of the unit's own must keep defining the user's name."""
    return _DIRECTIVE.sub(_blank, code_only(text))


def has_annotations(text: str) -> bool:
    """Whether the code of `text` (not its comments or directives) uses an annotation."""
    return USER_PREFIX in text and bool(_ANNOTATION_TOKEN.search(_statements_only(text)))


def reserved_spelling(text: str) -> str:
    """`text` with each annotation token `__rtt_X` of its code renamed `__ctg_X`;
    comments, literals and directives are left as they are."""
    code = _statements_only(text)
    starts = [m.start() for m in _ANNOTATION_TOKEN.finditer(code)]
    if not starts:
        return text
    out, position = [], 0
    for start in starts:
        out.append(text[position:start])
        out.append(RESERVED_PREFIX)
        position = start + len(USER_PREFIX)
    out.append(text[position:])
    return "".join(out)


def quoted_path(path: str) -> str:
    """`path` as a C string literal, as `#line` and `__FILE__` spell it."""
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def line_directive(display_path: str) -> str:
    """A `#line 1` directive naming `display_path`, so messages and gcov point there."""
    return f"#line 1 {quoted_path(display_path)}\n"
