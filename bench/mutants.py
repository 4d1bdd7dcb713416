"""Mutants of a C function: small syntactic changes to its body, as mutation tools make them
(operator, constant and statement-deletion mutants), found on the function's tokens.

Only the body of the function under test is changed, one token range per mutant, so each
mutant is the unit's text with one edit. Tokens in comments, strings, character constants
and preprocessor lines are never changed. The mutants come in source order, each with the
line and what was replaced, so a report names them."""
from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_ctgen.frontend.annotations import RESERVED_PREFIX, USER_PREFIX

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>L?"(?:\\.|[^"\\\n])*"|L?'(?:\\.|[^'\\\n])*')
  | (?P<number>(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
                [uUlLfF]*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=
           |[-+*/%&|^!~<>=?:;,.()\[\]{}])
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str  # "comment", "string", "number", "name", "op", "other"
    text: str
    start: int  # offset in the source text
    line: int  # 1-based


@dataclass(frozen=True)
class Mutant:
    """The unit's text with `original` at [start, end) replaced by `replacement`."""

    operator: str  # the mutation operator: "ROR", "AOR", "LCR", "BOR", "ASR", "CRP", "SDL"
    line: int
    start: int
    end: int
    original: str
    replacement: str

    def apply(self, text: str) -> str:
        return text[:self.start] + self.replacement + text[self.end:]

    def __str__(self) -> str:
        return f"line {self.line}: {self.original!r} -> {self.replacement!r} ({self.operator})"


def tokens(text: str) -> list[Token]:
    """The C tokens of `text`, without white space and preprocessor lines."""
    result: list[Token] = []
    line = 1
    at_line_start = True
    pos = 0
    while pos < len(text):
        if at_line_start and text[pos] == "#":  # a directive, with its continuations
            end = pos
            while True:
                end = text.find("\n", end)
                if end == -1 or text[end - 1] != "\\":
                    break
                end += 1
            end = len(text) if end == -1 else end
            line += text.count("\n", pos, end)
            pos = end
            continue
        m = _TOKEN.match(text, pos)
        assert m is not None  # "other" matches any character
        kind = m.lastgroup or "other"
        if kind not in ("space", "comment"):
            result.append(Token(kind, m.group(), pos, line))
        newlines = m.group().count("\n")
        if newlines:
            at_line_start = True
        elif kind != "space":
            at_line_start = False
        line += newlines
        pos = m.end()
    return result


def body_of(toks: list[Token], name: str, line: int | None) -> tuple[int, int] | None:
    """The token indices of the braces of the body of function `name` defined at `line`
    (the line of its name; None: the first definition), or None when it is not found
    there (a macro made it)."""
    for i, tok in enumerate(toks):
        if tok.kind == "name" and tok.text == name and line in (None, tok.line) and \
                i + 1 < len(toks) and toks[i + 1].text == "(":
            j = i + 1
            while j < len(toks) and toks[j].text not in ("{", ";"):
                j += 1
            if j == len(toks) or toks[j].text == ";":
                continue  # a declaration
            depth = 0
            for k in range(j, len(toks)):
                depth += {"{": 1, "}": -1}.get(toks[k].text, 0)
                if depth == 0:
                    return j, k
    return None


# one replacement each, as the classic operators of mutation testing for C
_RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "/"}
_LOGICAL = {"&&": "||", "||": "&&"}
_BITWISE = {"&": "|", "|": "&", "^": "|", "<<": ">>", ">>": "<<"}
_ASSIGNMENT = {"+=": "-=", "-=": "+=", "++": "--", "--": "++", "|=": "&=", "&=": "|=",
               "<<=": ">>=", ">>=": "<<="}
#: Calls of these names are annotations (c_harness/ctgen.h), as the user writes them and
#: as the copy of the unit an export compiles spells them: never mutated.
ANNOTATION_PREFIXES = (USER_PREFIX, RESERVED_PREFIX)
_NOT_A_STATEMENT = {"if", "else", "for", "while", "do", "switch", "case", "default", "return",
                    "break", "continue", "goto", "int", "char", "short", "long", "unsigned",
                    "signed", "float", "double", "void", "const", "volatile", "static",
                    "struct", "union", "enum", "typedef", "register", "_Bool", "extern"}


def _binary(toks: list[Token], i: int) -> bool:
    """Whether the operator at i stands between two operands (not `-x`, `*p`, `&v`)."""
    before = toks[i - 1]
    return before.kind in ("name", "number", "string") or before.text in (")", "]")


def _declaration(toks: list[Token], i: int) -> bool:
    """Whether the statement at i declares (`name x`, `name *p =`) or is a label."""
    after = toks[i + 1]
    if after.text == ":" or after.kind == "name":
        return True
    return after.text == "*" and toks[i + 2].kind == "name" and \
        toks[i + 3].text in ("=", ";", ",", "[")


def _closing(toks: list[Token], i: int) -> int:
    """The index of the `)` closing the `(` at i (i itself when there is none)."""
    if i >= len(toks) or toks[i].text != "(":
        return i
    depth = 0
    for k in range(i, len(toks)):
        depth += {"(": 1, ")": -1}.get(toks[k].text, 0)
        if depth == 0:
            return k + 1 if k + 1 < len(toks) and toks[k + 1].text == ";" else k
    return len(toks)


def _integer(text: str) -> int | None:
    digits = text.rstrip("uUlL")
    try:
        return int(digits, 16) if digits[:2].lower() == "0x" else \
            int(digits, 8) if digits.startswith("0") and len(digits) > 1 else int(digits)
    except ValueError:
        return None  # a floating constant


def definition_line(text: str, name: str) -> int | None:
    """The line of the name of the first definition of function `name` in `text`."""
    toks = tokens(text)
    body = body_of(toks, name, None)
    if body is None:
        return None
    return next(t.line for t in reversed(toks[:body[0]]) if t.text == name)


def mutants(text: str, name: str, line: int | None) -> list[Mutant]:
    """The mutants of the body of function `name` (its name on `line`; None: its first
    definition) in `text`."""
    toks = tokens(text)
    body = body_of(toks, name, line)
    if body is None:
        return []
    first, last = body
    found: list[Mutant] = []

    def replace(i: int, operator: str, replacement: str, end: int | None = None) -> None:
        tok = toks[i]
        stop = tok.start + len(tok.text) if end is None else end
        found.append(Mutant(operator, tok.line, tok.start, stop, text[tok.start:stop],
                            replacement))

    annotation_end = -1  # the annotations (`__rtt_...(...)`) are the spec, not the code
    for i in range(first + 1, last):
        tok = toks[i]
        if tok.kind == "name" and tok.text.startswith(ANNOTATION_PREFIXES):
            annotation_end = max(annotation_end, _closing(toks, i + 1))
        if i <= annotation_end:
            continue
        if tok.kind == "op":
            if tok.text in _RELATIONAL:
                replace(i, "ROR", _RELATIONAL[tok.text])
            elif tok.text in _ARITHMETIC and _binary(toks, i):
                replace(i, "AOR", _ARITHMETIC[tok.text])
            elif tok.text in _LOGICAL:
                replace(i, "LCR", _LOGICAL[tok.text])
            elif tok.text in _BITWISE and _binary(toks, i):
                replace(i, "BOR", _BITWISE[tok.text])
            elif tok.text in _ASSIGNMENT:
                replace(i, "ASR", _ASSIGNMENT[tok.text])
        elif tok.kind == "number":
            value = _integer(tok.text)
            if value is not None:
                suffix = tok.text[len(tok.text.rstrip("uUlL")):]
                replace(i, "CRP", f"{value + 1}{suffix}")
                if value > 0:
                    replace(i, "CRP", f"{value - 1}{suffix}")
        elif tok.kind == "name" and toks[i - 1].text in (";", "{", "}") and \
                tok.text not in _NOT_A_STATEMENT and not _declaration(toks, i):
            # an expression statement (a call, an assignment): deleted
            depth, j = 0, i
            while j < last and not (toks[j].text == ";" and depth == 0):
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(toks[j].text, 0)
                j += 1
            if j < last and toks[j].text == ";" and \
                    not any(t.kind == "name" and t.text in _NOT_A_STATEMENT
                            for t in toks[i:j]):
                replace(i, "SDL", ";", toks[j].start + 1)
    return found
