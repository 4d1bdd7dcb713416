"""The rules an export (`name.ctgen.json`, DESIGN §2) is read with.

An export is data: replay compiles C text, passes flags to the compiler and names files
from it, so every field that reaches C, a command line or a Makefile is checked here, and
a refusal names its field the way the JSON spells it:
`functions[0].cases[2].params[1].declaration: ...`.

`Field` reads a JSON document with its position; the rules (`*_problem`) say what is wrong
with a piece of text, or None, and are also used where the same text is written (the
export, the harness): here those of files and compiler flags, in c_text_rules those of C
text, in value_shapes what a declaration's values look like. Nothing here knows about
cases, the frontend or the code generator.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .c_text_rules import expression_problem, is_identifier, text_problem
from .path_flags import path_flag
from .value_shapes import INT_MAX, INT_MIN

#: How deep the values of an export may nest (a struct of arrays of structs...): deeper
#: documents are refused before anything recursive reads them.
MAX_NESTING = 64


class SchemaError(ValueError):
    """A field of an export that is not what the format allows: `where` is its position
    (`functions[0].name`), empty for the document as a whole."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


def load_json(text: str) -> Any:
    """The document of `text`. Raises json.JSONDecodeError (with its line and column) for
    text that is no JSON, SchemaError for a document nested more than MAX_NESTING deep."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise SchemaError("", f"nested more than {MAX_NESTING} levels deep") from None
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:  # without recursion: the limit holds whatever the depth
        node, depth = stack.pop()
        if depth > MAX_NESTING + 8:  # the document's own levels above the values
            raise SchemaError("", f"nested more than {MAX_NESTING} levels deep")
        children = node.values() if isinstance(node, dict) else \
            node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return doc


def _json_kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def shown(value: Any, limit: int = 60) -> str:
    """`value` as a message quotes it: JSON, cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Field:
    """A value of an export's document and where it is in it."""

    def __init__(self, value: Any, where: str = "") -> None:
        self.value = value
        self.where = where

    def fail(self, message: str) -> NoReturn:
        raise SchemaError(self.where, message)

    def _child(self, key: str | int, value: Any) -> Field:
        if isinstance(key, int):
            return Field(value, f"{self.where}[{key}]")
        return Field(value, f"{self.where}.{key}" if self.where else key)

    # ------------------------------------------------------------------ structure

    def obj(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            self.fail(f"expected an object, found {_json_kind(self.value)}")
        return self.value

    def __getitem__(self, key: str) -> Field:
        """The member `key`, which must be there."""
        members = self.obj()
        if key not in members:
            self.fail(f'missing "{key}"')
        return self._child(key, members[key])

    def get(self, key: str, default: Any = None) -> Field:
        """The member `key`, or a field holding `default` when it is absent."""
        return self._child(key, self.obj().get(key, default))

    def has(self, key: str) -> bool:
        return key in self.obj()

    def items(self) -> list[Field]:
        """The elements of a list."""
        if not isinstance(self.value, list):
            self.fail(f"expected a list, found {_json_kind(self.value)}")
        return [self._child(i, v) for i, v in enumerate(self.value)]

    def members(self) -> Iterator[tuple[str, Field]]:
        """The members of an object, in order."""
        for key, value in self.obj().items():
            yield key, self._child(key, value)

    # ---------------------------------------------------------------- scalars

    def string(self) -> str:
        """A string without control characters (it may reach a terminal, C or make)."""
        if not isinstance(self.value, str):
            self.fail(f"expected a string, found {_json_kind(self.value)}")
        problem = text_problem(self.value)
        if problem:
            self.fail(problem)
        return self.value

    def optional_string(self) -> str | None:
        return None if self.value is None else self.string()

    def strings(self) -> tuple[str, ...]:
        return tuple(f.string() for f in self.items())

    def integer(self, low: int = INT_MIN, high: int = INT_MAX) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            self.fail(f"expected an integer, found {_json_kind(self.value)}")
        if not low <= self.value <= high:
            self.fail(f"{self.value} is out of range [{low}, {high}]")
        return self.value

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail(f"expected true or false, found {_json_kind(self.value)}")
        return self.value

    def one_of(self, allowed: Collection[str]) -> str:
        text = self.string()
        if text not in allowed:
            self.fail(f"{shown(text)} is not one of {', '.join(sorted(allowed))}")
        return text

    def identifier(self) -> str:
        text = self.string()
        if not is_identifier(text):
            self.fail(f"{shown(text)} is not a C identifier")
        return text

    def checked(self, problem: Callable[[str], str | None]) -> str:
        """The string, refused with the message `problem(string)` returns, if any."""
        text = self.string()
        message = problem(text)
        if message:
            self.fail(message)
        return text


# ------------------------------------------------------------------ files and flags

#: Unit suffixes a replay builds: C files, preprocessed files, headers.
UNIT_SUFFIXES = (".c", ".i", ".h")
#: Names the harness defines for itself (a -D of them would steer the harness).
_RESERVED_MACROS = ("CTGEN_", "ctgen_", "__ctg_")

# -f flags of the language and the ABI, with and without `no-`.
_F_SWITCHES = frozenset("""
    signed-char unsigned-char short-enums short-wchar pack-struct builtin common wrapv
    trapv strict-aliasing strict-overflow ms-extensions plan9-extensions gnu89-inline asm
    gnu-keywords freestanding hosted signed-bitfields unsigned-bitfields
    dollars-in-identifiers extended-identifiers inline omit-frame-pointer
    stack-protector stack-protector-strong stack-protector-all PIC pic PIE pie
    delete-null-pointer-checks math-errno fast-math single-precision-constant
    lax-vector-conversions zero-initialized-in-bss data-sections function-sections
    diagnostics-color permissive strict-volatile-bitfields ident
    allow-parameterless-variadic-functions
""".split())
_F_VALUED = frozenset("""
    excess-precision fp-contract exec-charset input-charset wide-exec-charset pack-struct
    diagnostics-color max-errors trivial-auto-var-init strict-flex-arrays
    stack-protector-guard tabstop
""".split())
_FLAG_PATTERNS = re.compile(r"""
    -nostdinc | -ansi | -pedantic | -pedantic-errors | -w | -trigraphs | -undef | -I-
  | --?std=[A-Za-z0-9+]+
  | -O[0-3sgz]? | -Ofast
  | -g[A-Za-z0-9-]*
  | -W[A-Za-z0-9_=+-]+
  | -m[A-Za-z0-9_=.+-]+
  | -fno-builtin-[A-Za-z0-9_]+
  | -f(?:no-)?(?P<switch>[A-Za-z0-9-]+)
  | -f(?P<valued>[a-z0-9-]+)=[A-Za-z0-9_.+-]+
""", re.VERBOSE | re.ASCII)


def path_problem(path: str, *, relative: bool = True) -> str | None:
    """What makes `path` (a file an export names) unsafe to hand to the compiler, a
    Makefile or `#include`: not relative (when it must be), taken for an option,
    control characters, or characters an `#include "..."` cannot name."""
    if not path:
        return "is an empty path"
    if relative and (os.path.isabs(path) or path.startswith("~")):
        return "is not a relative path"
    if path.startswith("-"):
        return "starts with '-' (it would be read as an option)"
    return text_problem(path) or include_problem(path)


def outside_problem(path: str, base: Path, roots: Sequence[Path]) -> str | None:
    """What keeps a replay from reading `path`, a file or directory an export names
    (relative to `base`, the export's directory): it lies, symbolic links followed,
    outside each of the directories `roots` (the project), or None. The root of the
    file system is no project."""
    full = os.path.realpath(os.path.join(base, path))
    for root in roots:
        top = os.path.realpath(root)
        if top != os.path.dirname(top) and os.path.commonpath((full, top)) == top:
            return None
    return f"is {full}, outside the directories a replay reads files from " \
        f"({', '.join(dict.fromkeys(str(r) for r in roots))})"


def include_problem(path: str) -> str | None:
    """What stops `#include "path"` from naming `path` (and make and the shell from
    passing it on), or None."""
    for ch, why in (('"', "a '\"'"), ("\\", "a backslash"), ("\n", "a line break")):
        if ch in path:
            return f"holds {why}, which #include \"...\" cannot name"
    if "??" in path:
        return "holds '??', which a compiler may read as a trigraph"
    return None


_MACRO = re.compile(r"([A-Za-z_]\w*)(?:\((\s*(?:[A-Za-z_]\w*\s*,\s*)*"
                    r"(?:[A-Za-z_]\w*|\.\.\.)?\s*)\))?", re.ASCII)


def _macro_problem(text: str) -> str | None:
    """A `-D`/`-U` argument: a macro's name (not the harness's), with its parameters for a
    function-like one, and a value that is a side-effect-free expression (it may call
    nothing: `-Dread_sensor(x)=system(x)` is refused)."""
    head, _, value = text.partition("=")
    m = _MACRO.fullmatch(head)
    if m is None:
        return f"defines {shown(head)}, which is not a macro's name"
    name = m.group(1)
    if name.startswith(_RESERVED_MACROS):
        return f"defines {name}, a name of pytest-ctgen's harness"
    problem = expression_problem(value, typedefs=frozenset(), strings=True, braces=True)
    return None if problem is None else f"defines {name} as a value that {problem}"


def flag_problem(flag: str) -> str | None:
    """Whether one word of `build.cflags` that takes no argument is allowed: the
    preprocessor's and the language's options, warnings, optimisation, debug info and
    the ABI (`-m*`). Everything else (`-wrapper`, `-B`, `-fplugin`, `@file`, `-specs`,
    `-o`, `-x`...) is refused."""
    if text_problem(flag):
        return text_problem(flag)
    m = _FLAG_PATTERNS.fullmatch(flag)
    if m is None:
        return "is not an allowed compiler flag"
    switch, valued = m.group("switch"), m.group("valued")
    if switch is not None and switch not in _F_SWITCHES:
        return "is not an allowed compiler flag"
    if valued is not None and valued not in _F_VALUED:
        return "is not an allowed compiler flag"
    return None


def cflags_problem(flags: list[str] | tuple[str, ...]) -> tuple[int, str] | None:
    """The first word of `flags` that a replay does not pass to the compiler, and why:
    (its index, the problem); None when all are allowed."""
    i = 0
    while i < len(flags):
        flag = flags[i]
        if not isinstance(flag, str):
            return i, f"expected a string, found {_json_kind(flag)}"
        path_option, attached = path_flag(flag) or (None, None)
        if flag in ("-D", "-U") or (path_option is not None and attached is None):
            if i + 1 >= len(flags) or not isinstance(flags[i + 1], str):
                return i, f"{flag} needs an argument"
            argument = flags[i + 1]
            problem = _macro_problem(argument) if flag in ("-D", "-U") else \
                path_problem(argument, relative=False)
            if problem:
                return i + 1, f"the argument of {flag} {shown(argument)} {problem}"
            i += 2
            continue
        if flag.startswith(("-D", "-U")):
            problem = _macro_problem(flag[2:])
        elif attached is not None:
            problem = path_problem(attached, relative=False)
        else:
            problem = flag_problem(flag)
        if problem:
            return i, f"{shown(flag)} {problem}"
        i += 1
    return None


# ---------------------------------------------------------------------- the unit


@dataclass(frozen=True)
class UnitNames:
    """What a replay knows of the unit an export tests, read from its source: which
    names C text of the export may use, and the prototypes it takes from the unit
    instead of the export's text."""

    defined: frozenset[str]  # the functions the unit defines
    prototypes: dict[str, str]  # of every function declared or defined
    params: dict[str, tuple[str, ...]]  # parameter names of every function
    globals: frozenset[str]  # file-scope objects
    extern_globals: frozenset[str]  # declared extern, defined nowhere in the unit
    enum_constants: frozenset[str]
    typedefs: frozenset[str]

    def values(self) -> frozenset[str]:
        """The file-scope names an expression may read."""
        return self.globals | self.enum_constants | frozenset(self.prototypes)
