"""Preprocessing with the system compiler (`gcc -E`), keeping line markers so every later
location points into the user's files. Owns the flag hygiene shared with the layout probe."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Final
from collections.abc import Sequence

from ..c_harness_files import ANALYSIS_HEADER, harness_dir
from ..errors import PreprocessError, SourceLocation
from .annotations import has_annotations, line_directive, reserved_spelling
from .ctype import CType, PointerType, RecordType
from .preprocessed import is_preprocessed, located_in_itself

#: The compiler used for preprocessing and for the layout probe.
GCC: Final = "gcc"

#: Standard used when the user's flags name none.
DEFAULT_STD: Final = "-std=gnu11"

#: What `va_arg(ap, T)` reaches the parser as (see PYCPARSER_DEFINES).
VA_ARG_MARKER: Final = "__ctgen_va_arg"

#: The tag of the record a `va_list` points to as the parser sees it (ctgen_analysis.h).
VA_LIST_TAG: Final = "__ctgen_va_list_tag"


def is_va_list(ctype: CType) -> bool:
    """Whether `ctype` is <stdarg.h>'s `va_list` as the parser sees it."""
    return isinstance(ctype, PointerType) and isinstance(ctype.target, RecordType) and \
        ctype.target.tag == VA_LIST_TAG


#: Keeps GNU extensions of real glibc headers (and common ones in user code) away from
#: pycparser. Sizes never come from these spellings: the layout probe compiles the real text.
#: Attributes and gcc's further floating types reach the parser (frontend/parse.py).
PYCPARSER_DEFINES: Final[tuple[str, ...]] = (
    "-D__extension__=",
    "-D__restrict=",
    "-D__restrict__=",
    "-D__declspec(x)=",
    "-D__inline=inline",
    "-D__inline__=inline",
    "-D__builtin_va_list=__ctgen_va_list",
    # va_arg(ap, T) names a type where pycparser wants an expression: a marker call that
    # gives the next argument's address (the lowering models <stdarg.h>) keeps it parseable
    f"-D__builtin_va_arg(ap,T)=(*(T *){VA_ARG_MARKER}(&(ap), sizeof(T)))",
    "-D__signed__=signed",
    "-D__signed=signed",
    "-D__volatile__=volatile",
    "-D__volatile=volatile",
    "-D__const=const",
    "-D__const__=const",
    "-D__alignof__=_Alignof",
    "-D__alignof=_Alignof",
    "-D__builtin_offsetof=offsetof",
    "-D__thread=_Thread_local",
    "-D__complex__=_Complex",
    "-D__noreturn__=_Noreturn",
    "-U_FORTIFY_SOURCE",  # fortified inline wrappers in glibc headers use __typeof
    "-D__NO_CTYPE",  # glibc: <ctype.h> classifiers stay calls (modelled), not table lookups
)

#: Defined while analysing, so `ctgen.h` leaves the annotation macros to us.
ANALYSIS_DEFINE: Final = "-DCTGEN_ANALYSIS"

# Flags that take a separate argument and must be dropped with it.
_DROP_WITH_ARG: Final = frozenset({"-o", "-MF", "-MT", "-MQ"})
_DROP: Final = frozenset(
    {"-c", "-S", "-E", "-P", "-C", "-CC", "-M", "-MM", "-MD", "-MMD", "-MG", "-MP",
     "-pie", "-shared", "-static-pie", "-v", "-H", "--verbose", "-save-temps"}
)
_SOURCE_SUFFIXES: Final = (".c", ".i", ".o", ".a", ".so", ".s", ".S")

_ERROR_LINE = re.compile(
    r"^(?P<file>[^:\n]+?):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$"
)
_INCLUDED_FROM = re.compile(r"^(?:In file included|\s+) from (?P<where>.+?)[:,]$")


def analysis_header() -> Path:
    return harness_dir() / ANALYSIS_HEADER


def compile_flags(cflags: list[str] | tuple[str, ...]) -> list[str]:
    """The user's flags with those that change what gcc produces (outputs, dependency files,
    link modes, other inputs) removed, plus the default standard when none is named."""
    result: list[str] = []
    skip_next = False
    for flag in cflags:
        if skip_next:
            skip_next = False
            continue
        if flag in _DROP_WITH_ARG:
            skip_next = True
            continue
        if flag in _DROP or (flag.startswith("-o") and len(flag) > 2):
            continue
        if flag.startswith(("-MF", "-MT", "-MQ")):
            continue
        if not flag.startswith("-") and flag.endswith(_SOURCE_SUFFIXES):
            continue
        result.append(flag)
    if not any(f.startswith("-std=") or f == "-ansi" for f in result):
        result.insert(0, DEFAULT_STD)
    return result


def gnu_keywords(cflags: list[str] | tuple[str, ...]) -> bool:
    """Whether the dialect the flags select makes `typeof` and `asm` keywords: GNU C does,
    ISO C up to C17 leaves them to the program (`__typeof__` and `__asm__` are keywords in
    every dialect). C23's `typeof` keyword is not handled yet."""
    std = DEFAULT_STD
    for flag in compile_flags(cflags):
        if flag.startswith("-std=") or flag == "-ansi":
            std = flag
    dialect = std.removeprefix("-std=")
    return dialect.startswith("gnu")


def preprocess_command(path: Path, cflags: list[str] | tuple[str, ...],
                       with_files: bool = False) -> list[str]:
    """The `gcc -E` command line used for `path`; with `with_files`, for the text on
    standard input that includes the unit and the files analysed with it."""
    return [
        GCC, "-E", *compile_flags(cflags), *shipped_headers(), *PYCPARSER_DEFINES,
        ANALYSIS_DEFINE, "-include", str(analysis_header()),
        # `-x c`: a `.i` file (already preprocessed) is preprocessed again as C, so the
        # defines that keep GNU extensions from pycparser apply to it too
        "-x", "c", "-" if with_files else str(path),
    ]


def shipped_headers() -> list[str]:
    """Flags that let a unit include the shipped `ctgen.h` without configuring anything;
    searched last, so a `ctgen.h` the user's flags reach wins."""
    return ["-idirafter", str(harness_dir())]


def combined_input(path: Path, files: Sequence[Path]) -> str:
    """The translation unit of `path` followed by `files` (specifications of external
    functions, implementations of them), as one text for gcc's standard input. Each is
    included by its name as given, so locations name the files as the user does."""
    lines = []
    for file in (path, *files):
        name = str(file)
        if '"' in name or "\n" in name:
            raise PreprocessError(f"cannot include a file whose name has a quote or a "
                                  f"line break: {name!r}")
        lines.append(f'#include "{name}"')
    return "\n".join(lines) + "\n"


def compiler_env() -> dict[str, str]:
    """The environment for gcc: untranslated messages with plain ASCII quotes."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    env.pop("GCC_COLORS", None)
    return env


#: What the preprocessed text says for the temporary directory of the copies it reads.
COPIES = "<ctgen copies>"


def preprocess(path: Path, cflags: list[str] | tuple[str, ...] = (),
               with_files: Sequence[Path] = ()) -> str:
    """Run `gcc -E` on `path` and return the text with its `# line "file"` markers.
    `with_files` are analysed in the same translation unit, after the unit. Files that use
    annotations are preprocessed from a copy with the annotations renamed (see
    frontend/annotations.py), preprocessed files (`.i`) from a copy located in itself (see
    frontend/preprocessed.py); locations still name the files as given.

    Raises:
        PreprocessError: gcc failed; located at gcc's first error.
    """
    with tempfile.TemporaryDirectory(prefix="ctgen-pp-") as tmp:
        files, quote_dirs = [], []
        for index, file in enumerate((path, *with_files)):
            copy = _analysed_copy(file, Path(tmp) / f"{index}_{file.name}")
            if copy is not None:
                quote_dirs += ["-iquote", str(file.parent)]
            files.append(copy or file)
        stdin_mode = bool(with_files) or files[0] != path
        command = preprocess_command(path, [*cflags, *quote_dirs], stdin_mode)
        stdin = combined_input(files[0], files[1:]) if stdin_mode else None
        try:
            proc = subprocess.run(
                command, capture_output=True, env=compiler_env(),
                input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
            )
        except OSError as exc:
            raise PreprocessError(f"cannot run {GCC}: {exc}") from None
    if proc.returncode != 0:
        raise compiler_error(proc.stderr.decode("utf-8", "replace"), PreprocessError,
                             fallback=f"{GCC} -E failed")
    # a byte that is no UTF-8 (in a string literal: a byte of the program) kept as itself
    text = str(proc.stdout.decode("utf-8", "surrogateescape"))
    # a copy's own line marker names the temporary directory, then its first line names
    # the file it copies: the directory's name, different in every run, is no part of
    # the unit (the text keys the generation cache)
    return text.replace(tmp, COPIES)


_DEFINE = re.compile(r"#define ([A-Za-z_]\w*)")


def defined_macros(path: Path, cflags: list[str] | tuple[str, ...]) -> frozenset[str]:
    """The names of the macros defined at the end of `path`'s translation unit (gcc -E
    -dM; empty when gcc fails, which the unit's preprocessing reports)."""
    command = [GCC, "-E", "-dM", *compile_flags(cflags), *shipped_headers(), "-x", "c",
               str(path)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=compiler_env(),
                              errors="replace")
    except OSError:
        return frozenset()
    if proc.returncode != 0:
        return frozenset()
    return frozenset(m.group(1) for m in _DEFINE.finditer(proc.stdout))


def _analysed_copy(file: Path, copy: Path) -> Path | None:
    """`copy`, written with the annotations of `file` renamed and, when `file` is
    preprocessed, its own code located in it; None when neither applies."""
    try:
        text = file.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None  # gcc reports it
    if is_preprocessed(file):
        text = located_in_itself(text, str(file))
    elif not has_annotations(text):
        return None
    copy.write_text(line_directive(str(file)) + reserved_spelling(text),
                    encoding="utf-8", errors="surrogateescape")
    return copy


def compiler_error(
    stderr: str, kind: type[PreprocessError], fallback: str
) -> PreprocessError:
    """An error located at gcc's first `error:` line, carrying gcc's message."""
    lines = stderr.splitlines()
    for index, line in enumerate(lines):
        match = _ERROR_LINE.match(line)
        if match is None or match["file"] in ("<command-line>", "<built-in>", "cc1", "gcc"):
            continue
        location = SourceLocation(
            match["file"], int(match["line"]), int(match["col"] or 0)
        )
        message = match["msg"].strip()
        included = _include_chain(lines[:index])
        if included:
            message += f" (included from {included})"
        return kind(message, location)
    for line in lines:
        if "error:" in line:
            return kind(line.split("error:", 1)[1].strip() or fallback)
    return kind(stderr.strip() or fallback)


def _include_chain(preceding: list[str]) -> str:
    """The outermost `In file included from` position just above an error, if any."""
    chain: list[str] = []
    for line in reversed(preceding):
        match = _INCLUDED_FROM.match(line)
        if match is None:
            break
        chain.append(match["where"])
    return chain[0] if chain else ""
