"""Parsing preprocessed C with pycparser. Every failure becomes a `ParseError` located at
`file:line:col` in the user's own files (line markers are followed), never a pycparser
exception."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, cast

from pycparser import c_ast
from pycparser.c_lexer import CLexer
from pycparser.c_parser import Coord, CParser

from ..errors import ParseError, SourceLocation

Position = tuple[str, int, int]

_LINE_MARKER = re.compile(r'^#(?:line)? *(\d+) +"((?:[^"\\]|\\.)*)"((?: +\d+)*) *$', re.M)


def unescape_marker_file(name: str) -> str:
    """A file name as gcc spelled it in a line marker, with its escapes undone."""
    if "\\" not in name:
        return name
    return re.sub(r"\\(.)", r"\1", name)


def coord_location(coord: Any, fallback_file: str = "<unknown>") -> SourceLocation:
    """The `SourceLocation` of a pycparser coord (or None)."""
    if coord is None:
        return SourceLocation(fallback_file, 0, 0)
    return SourceLocation(
        unescape_marker_file(coord.file or fallback_file), coord.line or 0, coord.column or 0
    )


@dataclass(frozen=True)
class ParsedFile:
    """An AST plus what pycparser does not record: where each `{` block closes."""

    ast: c_ast.FileAST
    block_ends: dict[Position, Position] = field(default_factory=dict)

    def block_end(self, compound: c_ast.Compound) -> Position | None:
        """Position of the `}` that closes `compound`."""
        coord = compound.coord
        if coord is None:
            return None
        return self.block_ends.get((unescape_marker_file(coord.file), coord.line, coord.column or 0))


class _ParserFailure(Exception):
    def __init__(self, message: str, coord: Coord | None) -> None:
        super().__init__(message)
        self.message = message
        self.coord = coord


class _TrackingLexer(CLexer):
    """A CLexer that remembers the file each token came from and pairs braces."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.origins: dict[int, tuple[str, int]] = {}
        self.block_ends: dict[Position, Position] = {}
        self._open: list[Position] = []
        super().__init__(*args, **kwargs)

    def token(self) -> Any:
        tok = super().token()
        if tok is None:
            return None
        filename = unescape_marker_file(self._filename)
        self.origins[id(tok)] = (filename, self._line_start + tok.column - 1)
        if tok.type == "LBRACE":
            self._open.append((filename, tok.lineno, tok.column))
        elif tok.type == "RBRACE" and self._open:
            self.block_ends[self._open.pop()] = (filename, tok.lineno, tok.column)
        return tok

    def file_of(self, tok: Any) -> str:
        origin = self.origins.get(id(tok))
        return origin[0] if origin else self._filename


class _Parser(CParser):
    """CParser whose coordinates use each token's own file, and whose errors always carry a
    line and column."""

    def __init__(self) -> None:
        super().__init__(lexer=_TrackingLexer)

    @property
    def lexer(self) -> _TrackingLexer:
        return cast(_TrackingLexer, self.clex)

    def _tok_coord(self, tok: Any) -> Coord:
        return Coord(file=self.lexer.file_of(tok), line=tok.lineno, column=tok.column)

    def _lex_on_rbrace_func(self) -> None:
        if len(self._scope_stack) <= 1:
            lexer = self.lexer
            coord = Coord(
                file=lexer.filename, line=lexer._lineno, column=lexer._pos - lexer._line_start
            )
            raise _ParserFailure("syntax error: unmatched '}'", coord)
        super()._lex_on_rbrace_func()

    def _parse_error(self, msg: str, coord: Coord | str | None) -> NoReturn:
        if not isinstance(coord, Coord) or not coord.line:
            coord = self.current_coord(at_end=msg == "At end of input")
        elif not coord.column:
            here = self.current_coord()
            same_line = here is not None and (here.file, here.line) == (coord.file, coord.line)
            coord = Coord(coord.file, coord.line, here.column if same_line and here else 1)
        raise _ParserFailure(msg, coord)

    def current_coord(self, at_end: bool = False) -> Coord | None:
        """Where the parser stands: the next unread token, or just after the last one."""
        buffer: list[Any] = self._tokens._buffer
        index: int = self._tokens._index
        upcoming = buffer[index] if index < len(buffer) else None
        if upcoming is not None and not at_end:
            return self._tok_coord(upcoming)
        last = next((tok for tok in reversed(buffer) if tok is not None), None)
        if last is None:
            return None
        coord = self._tok_coord(last)
        coord.column = (last.column or 0) + len(last.value)
        return coord

    def offset_of(self, coord: Coord) -> int | None:
        """Absolute text offset of the token at `coord`, if it was lexed."""
        for tok in self._tokens._buffer:
            if tok is not None and tok.lineno == coord.line and tok.column == coord.column:
                origin = self.lexer.origins.get(id(tok))
                if origin and origin[0] == unescape_marker_file(coord.file):
                    return origin[1]
        return None


def parse(text: str, path: Path) -> c_ast.FileAST:
    """Parse preprocessed `text` (from `path`) into a pycparser AST.

    Raises:
        ParseError: located at the offending token in the user's file or header.
    """
    return parse_file(text, path).ast


def parse_file(text: str, path: Path) -> ParsedFile:
    """Like `parse`, also returning where each block closes."""
    parser = _Parser()
    try:
        ast = parser.parse(text, str(path))
    except _ParserFailure as failure:
        raise _parse_error(parser, text, path, _readable(failure.message), failure.coord) from None
    except RecursionError:
        raise _parse_error(
            parser, text, path, "nesting too deep for the parser", parser.current_coord()
        ) from None
    except Exception as exc:  # pycparser's own assertions, e.g. on an unbalanced '}'
        message = f"syntax error ({type(exc).__name__}: {exc})"
        raise _parse_error(parser, text, path, message, parser.current_coord()) from None
    return ParsedFile(ast, dict(parser.lexer.block_ends))


def _readable(message: str) -> str:
    if message.startswith("before: "):
        return f"syntax error before '{message[len('before: '):]}'"
    if message == "At end of input":
        return "syntax error: unexpected end of input"
    return message


def _parse_error(
    parser: _Parser, text: str, path: Path, message: str, coord: Coord | None
) -> ParseError:
    if coord is None:
        return ParseError(message, SourceLocation(str(path), 1, 1))
    location = coord_location(coord, str(path))
    if location.file != str(path):
        offset = parser.offset_of(coord)
        site = include_site(text, offset, str(path)) if offset is not None else None
        if site is not None:
            message += f" (included from {site})"
    return ParseError(message, location)


def include_site(text: str, offset: int, main_file: str) -> SourceLocation | None:
    """The `#include` line in `main_file` through which `text[offset]` was included."""
    stack: list[str] = []
    current_file = main_file
    current_line = 1
    marker_end = 0
    site: SourceLocation | None = None
    for match in _LINE_MARKER.finditer(text, 0, offset):
        line_here = current_line + text.count("\n", marker_end, match.start())
        flags = match.group(3).split()
        name = unescape_marker_file(match.group(2))
        if "1" in flags:
            if current_file == main_file:
                site = SourceLocation(main_file, line_here)
            stack.append(current_file)
        elif "2" in flags and stack:
            stack.pop()
        current_file = name
        current_line = int(match.group(1))
        marker_end = match.end() + 1
    return site if current_file != main_file else None
