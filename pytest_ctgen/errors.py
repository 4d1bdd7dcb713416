"""One error hierarchy for problems in the user's C code or setup; every message can carry
a source location so the user sees `file:line:col`, never a traceback."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from collections.abc import Callable


@dataclass(frozen=True, order=True)
class SourceLocation:
    """A position in a C source file (1-based line and column; column 0 if unknown)."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        if self.column:
            return f"{self.file}:{self.line}:{self.column}"
        return f"{self.file}:{self.line}"

    def shown(self, show: Callable[[str], str]) -> SourceLocation:
        """This location with its file as `show` presents it (relative to the unit the
        user named: never an absolute path of this machine in a result)."""
        return SourceLocation(show(self.file), self.line, self.column)


class CtgenError(Exception):
    """Base of every error pytest-ctgen reports to a user."""

    def __init__(self, message: str, location: SourceLocation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (type(self), (self.message, self.location))

    def __str__(self) -> str:
        if self.location is not None:
            return f"{self.location}: {self.message}"
        return self.message

    def as_cause(self, here: SourceLocation | None) -> str:
        """This error as the reason of another at `here`: its place as `line L:C` in the
        same file, else by the file's name only (a reason never holds an absolute path)."""
        message = self.message.removeprefix("unsupported construct: ")
        where = self.location
        if where is None:
            return message
        position = f"{where.line}:{where.column}" if where.column else str(where.line)
        if here is not None and here.file == where.file:
            return f"line {position}: {message}"
        return f"{PurePath(where.file).name}:{position}: {message}"


class PreprocessError(CtgenError):
    """The system preprocessor rejected the file."""


class ParseError(CtgenError):
    """pycparser could not parse the preprocessed file."""


class UnsupportedError(CtgenError):
    """A C construct the generator does not handle; the function using it is skipped."""


class BuildError(CtgenError):
    """The generated harness did not compile or link."""


class AnnotationError(CtgenError):
    """A malformed or misplaced annotation."""
