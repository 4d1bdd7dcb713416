"""Source locations of what the parser reads: gcc's line markers (the file a line of
preprocessed text comes from, and the `#include` it came through) and pycparser's coords as
`SourceLocation`s, and the `UnsupportedError` located at a node."""
from __future__ import annotations

import re
from collections.abc import Callable

from pycparser import c_ast
from pycparser.c_parser import Coord

from ..errors import SourceLocation, UnsupportedError

_LINE_MARKER = re.compile(r'^#(?:line)? *(\d+) +"((?:[^"\\]|\\.)*)"((?: +\d+)*) *$',
                          re.MULTILINE)


def unescape_marker_file(name: str) -> str:
    """A file name as gcc spelled it in a line marker, with its escapes undone."""
    if "\\" not in name:
        return name
    return re.sub(r"\\(.)", r"\1", name)


def coord_location(coord: Coord | None, fallback_file: str = "<unknown>") -> SourceLocation:
    """The `SourceLocation` of a pycparser coord (or None)."""
    if coord is None:
        return SourceLocation(fallback_file, 0, 0)
    return SourceLocation(
        unescape_marker_file(coord.file or fallback_file), coord.line or 0, coord.column or 0
    )


def node_location(node: c_ast.Node | None) -> SourceLocation | None:
    """Where `node` stands, if pycparser recorded it."""
    coord = getattr(node, "coord", None)
    return coord_location(coord) if coord is not None else None


def unsupported(message: str, node: c_ast.Node | None) -> UnsupportedError:
    """The error for a construct the generator does not handle, located at `node`."""
    return UnsupportedError(message, node_location(node))


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


def renamed_files(text: str, is_main: Callable[[str], bool]) -> frozenset[str]:
    """The file names a `#line` directive of the main file (the one `is_main` says is it,
    however a marker spells it) gives its lines (bison's and flex's
    `#line 100 "parser.y"`), in the preprocessed `text`: a line marker without flags met
    while in the main file or in one of these names."""
    renamed: set[str] = set()
    current = ""
    for match in _LINE_MARKER.finditer(text):
        name = unescape_marker_file(match.group(2))
        flags = match.group(3).split()
        if not flags and (current in renamed or is_main(current)) and \
                not name.startswith("<") and not is_main(name):
            renamed.add(name)
        current = name
    return frozenset(renamed)

