"""Which compiler flags take a path, and how the paths in a list of flags are rewritten.

gcc takes the path of each of these options attached (`-Iinc`, `--sysroot=dir`) or as the
next word (`-I inc`, `--sysroot dir`). `-I-`, gcc's obsolete split of the quoted and the
bracketed include search, names no path. A header directory that starts with `=` or
`$SYSROOT` is looked up under the sysroot, not from the working directory, so it is never
rewritten.

A leaf module: the compilation database, the export, its replay and the flags an export
may hold (export_schema) all read flags with this table.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

#: Options whose argument is a directory searched for headers.
INCLUDE_DIR_FLAGS: Final = ("-I", "-iquote", "-isystem", "-idirafter")
#: Options whose argument is a header read before the unit's first line.
FORCED_INCLUDE_FLAGS: Final = ("-include", "-imacros")
#: Options whose argument is the directory the system headers are looked up under.
SYSROOT_FLAGS: Final = ("-isysroot", "--sysroot")
#: Every option whose argument is a path. None is the start of another.
PATH_FLAGS: Final = INCLUDE_DIR_FLAGS + FORCED_INCLUDE_FLAGS + SYSROOT_FLAGS


def attached_form(option: str) -> str:
    """What the path is attached to when `option` and its path are one word: `-I` for
    `-Iinc`, `--sysroot=` for `--sysroot=dir`."""
    return option + "=" if option.startswith("--") else option


def path_flag(word: str) -> tuple[str, str | None] | None:
    """The path option `word` is and the path attached to it, the path None when it is the
    next word (`-I`); None for a word that takes no path (`-I-`, `-O2`, `-DX`, a path)."""
    if word == "-I-":
        return None
    for option in PATH_FLAGS:
        if word == option:
            return option, None
        if word.startswith(attached_form(option)):
            return option, word[len(attached_form(option)):]
    return None


def under_sysroot(option: str, path: str) -> bool:
    """Whether gcc looks `path`, the argument of `option`, up under the sysroot:
    `-I=inc`, `-isystem $SYSROOT/inc`."""
    return option in INCLUDE_DIR_FLAGS and path.startswith(("=", "$SYSROOT"))


def flag_paths(flags: Sequence[str]) -> Iterator[tuple[int, str, str]]:
    """Each path the options of `flags` take (those under the sysroot too): the index of
    the word holding it, the option and the path."""
    pending: str | None = None  # the option whose path is the next word
    for i, flag in enumerate(flags):
        if pending is not None:
            yield i, pending, flag
            pending = None
            continue
        found = path_flag(flag)
        if found is None:
            continue
        option, path = found
        if path is None:
            pending = option
        else:
            yield i, option, path


def map_paths(flags: Sequence[str], rewrite: Callable[[str], str]) -> list[str]:
    """`flags` with each path of a path option replaced by `rewrite(path)`, in the form it
    has (attached or the next word); paths under the sysroot and all other words kept."""
    out: list[str] = []
    pending: str | None = None  # the option whose path is the next word
    for flag in flags:
        if pending is not None:
            out.append(flag if under_sysroot(pending, flag) else rewrite(flag))
            pending = None
            continue
        found = path_flag(flag)
        if found is None:
            out.append(flag)
            continue
        option, path = found
        if path is None:
            pending = option
            out.append(flag)
        else:
            out.append(flag if under_sysroot(option, path)
                       else attached_form(option) + rewrite(path))
    return out


def absolute_flags(flags: Sequence[str], base: Path) -> list[str]:
    """`flags` with the relative paths of path options taken from `base`."""
    return map_paths(flags, lambda path: path if os.path.isabs(path)
                     else os.path.normpath(base / path))
