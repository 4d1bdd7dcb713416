"""Building a generated harness into a shared library with gcc, and loading it with cffi.

A build lives in `<cache_dir>/<key>/` where the key is a sha256 of everything that decides
the result (harness text, caller's key material such as the unit's preprocessed text, flags,
compiler version, the runtime header). A finished build is reused. gcov data (`*.gcda`)
accumulates beside the object, at the path gcc compiled into it, so a build is never moved.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping, Sequence

from filelock import FileLock

from ..cache_bound import prune, used
from ..c_harness_files import RUNTIME, RUNTIME_SOURCE, harness_dir, runtime_flags
from ..errors import BuildError, SourceLocation

# Changes whenever the recipe below changes, so old builds are not reused.
RECIPE_VERSION = "2"
HARNESS_SOURCE = "harness.c"
OBJECT = "harness.o"
RUNTIME_OBJECT = "ctgen_runtime.o"
LIBRARY = "libctgen_harness.so"
_DONE = "build.done"

_CDEF = """
int ctgen_case_count(void);
const char *ctgen_case_name(int index);
int ctgen_run_case(int index, char *message, size_t capacity);
void ctgen_install_crash_flush(unsigned int timeout_seconds);
void ctgen_flush_coverage(void);
void ctgen_final_flush(void);
"""


def default_cache_dir() -> Path:
    """Where builds go when the caller names no directory."""
    return Path(tempfile.gettempdir()) / f"pytest-ctgen-{os.getuid()}" / "builds"


@functools.cache
def compiler_version(cc: str = "gcc") -> str:
    """The compiler's `--version` banner (part of every build key)."""
    try:
        done = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"cannot run the C compiler {cc!r}: {exc}") from None
    return done.stdout.strip()


@dataclass(frozen=True)
class Build:
    """A finished build of a harness."""

    directory: Path
    key: str

    @property
    def library(self) -> Path:
        return self.directory / LIBRARY

    @property
    def source(self) -> Path:
        return self.directory / HARNESS_SOURCE


def build_key(harness_source: str, key_material: str | bytes, cflags: Sequence[str],
              ldflags: Sequence[str], cc: str) -> str:
    """The sha256 naming a build of these inputs."""
    h = hashlib.sha256()

    def part(data: str | bytes) -> None:
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        h.update(len(raw).to_bytes(8, "little"))
        h.update(raw)

    part(RECIPE_VERSION)
    part(harness_source)
    part(key_material)
    part("\0".join(cflags))
    part("\0".join(ldflags))
    part(cc)
    part(compiler_version(cc))
    for runtime in (RUNTIME, RUNTIME_SOURCE):
        path = harness_dir() / runtime
        part(path.read_bytes() if path.is_file() else b"")
    part(str(Path.cwd()))  # relative paths in the flags are resolved from here
    return h.hexdigest()


_ERROR = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.MULTILINE)


_UNDEFINED = re.compile(
    r"^(?:(?P<file>[^:\n]+):(?P<line>\d+): )?(?P<msg>undefined reference to .*)$", re.MULTILINE)


def _build_error(what: str, stderr: str) -> BuildError:
    """A BuildError carrying gcc's first error and its location (full output in .details)."""
    m = _ERROR.search(stderr)
    u = _UNDEFINED.search(stderr)
    if m:
        err = BuildError(m.group("msg"), SourceLocation(m.group("file"), int(m.group("line")),
                                                        int(m.group("col"))))
    elif u:
        where = (SourceLocation(u.group("file"), int(u.group("line"))) if u.group("file")
                 else None)
        err = BuildError(u.group("msg").replace("`", "'") + ": the unit uses it but nothing "
                         "defines it", where)
    else:
        lines = [ln for ln in stderr.splitlines() if "error" in ln or "undefined" in ln]
        first = lines[0] if lines else (stderr.strip().splitlines() or [f"{what} failed"])[0]
        err = BuildError(f"{what} failed: {first.strip()}")
    err.details = stderr  # type: ignore[attr-defined]
    return err


def _run(cmd: list[str], what: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise BuildError(f"cannot run {cmd[0]!r}: {exc}") from None
    if done.returncode != 0:
        raise _build_error(what, done.stderr or done.stdout)


def build_harness(harness_source: str, *, cflags: Sequence[str] = (),
                  ldflags: Sequence[str] = (), key_material: str | bytes = "",
                  cache_dir: Path | None = None, cc: str = "gcc",
                  extra_files: Mapping[str, str] | None = None,
                  prune_others: bool = False, session_start: float | None = None,
                  extra_sources: Sequence[Path] = ()) -> Build:
    """Compile `harness_source` into a shared library with coverage, or reuse a finished build.

    `cflags` are the user's flags (include dirs, defines; relative paths are taken from the
    current directory); `key_material` is anything else that must change the key (e.g. the
    unit's preprocessed text, since the harness only #includes the unit by path);
    `extra_files` are written beside the harness (name -> text), for it to include. With
    `prune_others`, a new build leaves only the last few others in `cache_dir` (one unit's
    builds, see cache_bound), and every one used since `session_start`. `extra_sources`
    are C files of ours built like the runtime and linked beside it (the MC/DC runtime,
    c_harness/ctgen_mcdc.c). Raises BuildError with gcc's first error."""
    cflags, ldflags = list(cflags), list(ldflags)
    extra = dict(sorted((extra_files or {}).items()))
    sources = [Path(p) for p in extra_sources]
    key = build_key(harness_source + "".join(f"\0{n}\0{t}" for n, t in extra.items())
                    + "".join(f"\0{p}\0{p.read_text(encoding='utf-8')}" for p in sources),
                    key_material, cflags, ldflags, cc)
    root = (cache_dir or default_cache_dir()).resolve()
    directory = root / key[:32]
    root.mkdir(parents=True, exist_ok=True)
    build = Build(directory, key)
    with FileLock(str(root / f"{key[:32]}.lock")):
        if (directory / _DONE).is_file() and build.library.is_file():
            used(directory)
            return build
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.iterdir():
            if stale.is_file():
                stale.unlink()
        # C text keeps a byte that is no UTF-8 as itself (surrogateescape, as it was read)
        build.source.write_text(harness_source, encoding="utf-8", errors="surrogateescape")
        for name, text in extra.items():
            (directory / name).write_text(text, encoding="utf-8", errors="surrogateescape")
        obj, runtime_obj = directory / OBJECT, directory / RUNTIME_OBJECT
        # The user's flags first: ours (-O0, coverage) must win over e.g. their -O2.
        _run([cc, *cflags, "-c", str(build.source), "-o", str(obj), "-fPIC", "-O0", "-g",
              "--coverage", "-DCTGEN_COVERAGE", f"-I{harness_dir()}"], "compiling the harness")
        # The runtime with the unit's ABI flags (-m32...), not instrumented: gcov measures
        # the unit.
        _run([cc, *runtime_flags(cflags), "-c", str(harness_dir() / RUNTIME_SOURCE), "-o",
              str(runtime_obj), "-fPIC", "-O0", "-g", "-DCTGEN_COVERAGE",
              f"-I{harness_dir()}"], "compiling the harness runtime")
        # -z defs: an undefined symbol (a global the unit only declares) fails here, not at load.
        # -Bsymbolic: the unit's calls reach the unit's functions and the stubs even when the
        # process has a function of the same name (libc's send, zlib's crc32...).
        objects = [str(obj), str(runtime_obj)]
        for source in sources:
            objects.append(str(directory / (source.stem + ".o")))
            _run([cc, *runtime_flags(cflags), "-c", str(source), "-o", objects[-1], "-fPIC",
                  "-O0", "-g", f"-I{harness_dir()}"], f"compiling {source.name}")
        _run([cc, "-shared", "--coverage", "-o", str(build.library), *objects,
              *ldflags, "-lm", "-Wl,-z,defs", "-Wl,-Bsymbolic"],
             "linking the harness")
        (directory / _DONE).write_text(key + "\n", encoding="utf-8")
    if prune_others:
        prune([d for d in root.iterdir() if d.is_dir() and d != directory],
              session_start=session_start)
    return build


def clear_coverage_data(build: Build | Path) -> None:
    """Delete the build's `.gcda` files, so a session measures only its own runs."""
    directory = build.directory if isinstance(build, Build) else Path(build)
    for gcda in directory.glob("*.gcda"):
        try:
            gcda.unlink()
        except FileNotFoundError:
            pass


class HarnessLibrary:
    """A loaded harness (cffi ABI mode): its case table and its runtime."""

    def __init__(self, path: Path) -> None:
        from cffi import FFI

        self.path = Path(path)
        self._ffi = FFI()
        self._ffi.cdef(_CDEF)
        try:
            self._lib = self._ffi.dlopen(str(self.path))
        except OSError as exc:
            raise BuildError(f"cannot load the harness {self.path}: {exc}") from None

    def case_count(self) -> int:
        return int(self._lib.ctgen_case_count())

    def case_name(self, index: int) -> str:
        p = self._lib.ctgen_case_name(index)
        if p == self._ffi.NULL:
            raise IndexError(f"no case {index}")
        return self._ffi.string(p).decode("utf-8", "replace")

    def case_names(self) -> list[str]:
        return [self.case_name(i) for i in range(self.case_count())]

    def run_case(self, index: int, capacity: int = 16384) -> tuple[bool, str]:
        """Run case `index` in this process: (passed, the differences found)."""
        buf = self._ffi.new("char[]", capacity)
        failed = self._lib.ctgen_run_case(index, buf, capacity)
        return failed == 0, self._ffi.string(buf).decode("utf-8", "replace")

    def install_crash_flush(self, timeout_seconds: int) -> None:
        self._lib.ctgen_install_crash_flush(max(0, int(timeout_seconds)))

    def flush_coverage(self) -> None:
        self._lib.ctgen_flush_coverage()

    def final_flush(self) -> None:
        """Write this process's gcov counters; it writes none at its exit after this."""
        self._lib.ctgen_final_flush()


def load_library(build: Build | Path) -> HarnessLibrary:
    """Load a built harness (a Build or the path of its `.so`)."""
    return HarnessLibrary(build.library if isinstance(build, Build) else Path(build))
