"""Per-file flags from a JSON compilation database (`compile_commands.json`, as written by
CMake's CMAKE_EXPORT_COMPILE_COMMANDS and by Bear).

Only the flags that change how a file is preprocessed and parsed are kept: include paths
and forced includes (made absolute against the entry's "directory"), macro definitions,
the language standard, the data model, char signedness, enum and struct packing, the
sysroot and `-nostdinc`. Everything else (the compiler, the source, outputs, warnings,
optimisation, dependency-file flags, link flags) is dropped.
"""
from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from .errors import CtgenError
from .path_flags import FORCED_INCLUDE_FLAGS, attached_form, path_flag, under_sysroot

DB_NAME: Final = "compile_commands.json"

# Wrappers that run the real compiler named by the next argument.
_LAUNCHERS: Final = frozenset({"ccache", "sccache", "distcc", "icecc"})

_MACRO_OPTS: Final = ("-D", "-U")

_KEEP: Final = frozenset({
    "-ansi", "-m32", "-m64", "-nostdinc",
    "-funsigned-char", "-fsigned-char", "-fno-unsigned-char", "-fno-signed-char",
    "-fshort-enums", "-fno-short-enums", "-fpack-struct", "-fno-pack-struct",
})

# Dropped options whose argument is the next word (never to be read as a flag or path).
_DROP_WITH_ARG: Final = frozenset({
    "-o", "-MF", "-MT", "-MQ", "-x", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang",
    "-L", "-T", "-u", "-z", "-e", "-target", "-arch", "--param", "-aux-info",
    "-include-pch", "-isystem-after", "-iprefix", "-iwithprefix", "-iwithprefixbefore",
    "-imultilib", "-iframework", "-dumpbase", "-dumpdir", "-specs",
})


class CompileDatabaseError(CtgenError):
    """The compilation database is missing, not valid JSON, or has a malformed entry."""


@dataclass(frozen=True)
class CompileDatabase:
    """A read compilation database; build it with `read_compile_database`.

    `path` is the absolute path of the JSON file. Entries are kept in database order as
    (resolved source path, kept flags) pairs.
    """

    path: Path
    entries: tuple[tuple[Path, tuple[str, ...]], ...] = field(default=(), repr=False)
    _index: dict[Path, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, hash=False, default_factory=dict)

    def __post_init__(self) -> None:
        index: dict[Path, tuple[str, ...]] = {}
        for source, flags in self.entries:
            index.setdefault(source, flags)  # the first entry for a file wins
        object.__setattr__(self, "_index", index)

    def flags_for(self, source: Path | str) -> tuple[str, ...] | None:
        """The preprocessing/parsing flags of `source` (a relative path is taken from the
        working directory), or None when the database has no entry for it."""
        return self._index.get(Path(os.path.realpath(source)))

    def files(self) -> tuple[Path, ...]:
        """Every source file with an entry, resolved, once each, in database order."""
        return tuple(self._index)


def read_compile_database(path: Path | str) -> CompileDatabase:
    """Read `path`, a `compile_commands.json` file or a directory holding one.

    Raises CompileDatabaseError (its message starts with the database path) for a missing
    file, invalid JSON, or a malformed entry (entries are numbered from 0, as in the list).
    """
    path = Path(path)
    if path.is_dir():
        if not (path / DB_NAME).is_file():
            raise CompileDatabaseError(f"{path}: no {DB_NAME} in this directory")
        path = path / DB_NAME
    path = Path(os.path.abspath(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompileDatabaseError(f"{path}: compilation database not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CompileDatabaseError(
            f"{path}: cannot read compilation database: {reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CompileDatabaseError(
            f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise CompileDatabaseError(f"{path}: invalid JSON: nested too deeply") from None
    if not isinstance(data, list):
        raise CompileDatabaseError(
            f"{path}: expected a JSON list of entries, found {_json_type(data)}")
    entries = tuple(_read_entry(path, i, entry) for i, entry in enumerate(data))
    return CompileDatabase(path, entries)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _read_entry(db: Path, index: int, entry: Any) -> tuple[Path, tuple[str, ...]]:
    where = f"{db}: entry {index}"
    if not isinstance(entry, dict):
        raise CompileDatabaseError(f"{where}: expected an object, found {_json_type(entry)}")
    for key in ("directory", "file"):
        if key not in entry:
            raise CompileDatabaseError(f'{where}: missing "{key}"')
        if not isinstance(entry[key], str) or not entry[key]:
            raise CompileDatabaseError(f'{where}: "{key}" must be a non-empty string')
    where = f"{where} ({entry['file']})"
    directory = Path(os.path.realpath(db.parent / entry["directory"]))
    if "arguments" in entry:
        argv = entry["arguments"]
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise CompileDatabaseError(f'{where}: "arguments" must be a list of strings')
    elif "command" in entry:
        if not isinstance(entry["command"], str):
            raise CompileDatabaseError(f'{where}: "command" must be a string')
        try:
            argv = shlex.split(entry["command"])
        except ValueError as exc:
            raise CompileDatabaseError(f'{where}: cannot split "command": {exc}') from None
    else:
        raise CompileDatabaseError(f'{where}: missing "arguments" or "command"')
    if not argv:
        raise CompileDatabaseError(f"{where}: empty command")
    source = Path(os.path.realpath(directory / entry["file"]))
    return source, _relevant_flags(argv, directory, where)


def _strip_compiler(argv: list[str]) -> list[str]:
    """`argv` without the compiler (and a launcher such as ccache in front of it)."""
    name = os.path.basename(argv[0]).lower().removesuffix(".exe")
    if name in _LAUNCHERS and len(argv) > 1 and not argv[1].startswith("-"):
        return argv[2:]
    return argv[1:]


def _path_words(option: str, value: str, directory: Path) -> list[str]:
    """A path option (path_flags) as the database keeps it: `-Ipath`, `--sysroot=path`,
    the others as `option path`; the path taken from `directory`, except one under the
    sysroot (`=dir`, `$SYSROOT/dir`) and a forced include that is not there (gcc looks in
    the working directory first and then along the include chain)."""
    if option in FORCED_INCLUDE_FLAGS:
        if (directory / value).is_file():
            value = os.path.realpath(directory / value)
        return [option, value]
    if not under_sysroot(option, value):
        value = os.path.realpath(directory / value)
    if option in ("-I", "--sysroot"):
        return [attached_form(option) + value]
    return [option, value]


def _relevant_flags(argv: list[str], directory: Path, where: str) -> tuple[str, ...]:
    args = _strip_compiler(argv)
    out: list[str] = []
    i = 0

    def value_of(opt: str, arg: str) -> str:
        """The argument of `opt`, attached to `arg` or the next word."""
        nonlocal i
        if arg != opt:
            return arg[len(opt):]
        i += 1
        if i >= len(args):
            raise CompileDatabaseError(f"{where}: {opt} needs an argument")
        return args[i]

    while i < len(args):
        arg = args[i]
        if arg in _DROP_WITH_ARG:
            i += 1
        elif arg in _KEEP or arg.startswith("-fpack-struct="):
            out.append(arg)
        elif arg.startswith(("-std=", "--std=")):
            out.append("-" + arg.lstrip("-"))
        elif arg == "-I-":
            out.append(arg)  # obsolete quote/bracket split marker: no path
        elif (found := path_flag(arg)) is not None:
            option, attached = found
            value = attached if attached is not None else value_of(option, arg)
            out.extend(_path_words(option, value, directory))
        elif arg.startswith(_MACRO_OPTS):
            opt = arg[:2]
            out.append(opt + value_of(opt, arg))
        i += 1
    return tuple(out)
