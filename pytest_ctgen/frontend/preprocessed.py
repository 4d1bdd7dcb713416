"""Preprocessed units: `.i` files, as `gcc -E` writes them and verification benchmarks
(SV-COMP) ship them, located in themselves.

A `.i` file carries line markers (`# 12 "motor.c"`) naming the files it was made from, which
the user often does not have. Its own code, that of the file it was made from and of that
file's own headers, is located at its lines in the `.i`, where the user reads it: each of
those markers becomes a `#line` naming the `.i` at the line that follows. The code of
system headers (a marker with gcc's flag 3, or a file in a system directory) keeps the
markers naming the header, so the C library is recognized as such (frontend/unit.py) and
compilers treat it as system code. The analysis and the build compile the same rewritten
text, so locations, compiler messages and gcov's lines agree.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from .annotations import quoted_path
from .unit import in_system_dir

#: The suffixes of preprocessed C units.
PREPROCESSED_SUFFIXES: Final = (".i",)

# `# 12 "file" 1 3 4` (gcc's line marker) and `#line 12 "file"`, the name optional
_MARKER = re.compile(r'^[ \t]*#[ \t]*(?:line[ \t]+)?(\d+)'
                     r'(?:[ \t]+"((?:[^"\\\n]|\\.)*)")?((?:[ \t]+\d+)*)[ \t]*$')
_SYSTEM_HEADER_FLAG: Final = "3"


def is_preprocessed(path: Path | str) -> bool:
    """Whether `path` names a preprocessed unit (by its suffix)."""
    return Path(path).suffix in PREPROCESSED_SUFFIXES


def _unescaped(name: str) -> str:
    return re.sub(r"\\(.)", r"\1", name)


def located_in_itself(text: str, shown_as: str) -> str:
    """The preprocessed `text` with the line markers of its own code replaced by `#line`
    directives naming `shown_as` (the `.i` as messages and gcov should show it) at the
    physical line that follows; markers into system headers keep their file and line
    (without the include flags 1 and 2, which no longer nest). Every line stays where it
    is. The first marker names the file the `.i` was made from."""
    lines = text.split("\n")
    main_file: str | None = None
    quoted = quoted_path(shown_as)
    for number, line in enumerate(lines, start=1):
        if "#" not in line:
            continue
        match = _MARKER.match(line)
        if match is None:
            continue
        name = _unescaped(match[2]) if match[2] is not None else None
        if main_file is None and name is not None:
            main_file = name
        flags = match[3].split()
        if name is not None and name != main_file and \
                (_SYSTEM_HEADER_FLAG in flags or in_system_dir(name)):
            kept = " ".join(f for f in flags if f not in ("1", "2"))
            lines[number - 1] = f'# {match[1]} "{match[2]}"' + (f" {kept}" if kept else "")
        else:
            lines[number - 1] = f"#line {number + 1} {quoted}"
    return "\n".join(lines)
