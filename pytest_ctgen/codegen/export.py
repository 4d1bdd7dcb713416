"""`--ctgen-export DIR`: the cases of a file as JSON plus a standalone C driver and a Makefile
(DESIGN §2), so `make -C DIR/name run` replays every case with no Python.

Only files pytest-ctgen owns are written: an existing file in DIR/name that pytest-ctgen did
not write is never overwritten unless the caller forces it. Files whose content is unchanged
are not rewritten, so their timestamps (and `make`) stay quiet.
"""
from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from ..c_harness_files import (
    ANNOTATION_LINES,
    ANNOTATIONS,
    RUNTIME,
    RUNTIME_SOURCE,
    harness_dir,
    runtime_flags,
)
from ..c_text_rules import text_problem
from ..cases import BuildRecipe, FileCases, stopped_loops
from ..case_writer import file_cases_to_json
from ..errors import CtgenError
from ..export_files import CASES_SUFFIX, DRIVER, MAKEFILE, UNIT_COPY
from ..export_schema import cflags_problem, include_problem
from ..frontend.mcdc_instrument import InstrumentedUnit
from ..path_flags import map_paths
from .export_mcdc import MCDC_CLEAN, MCDC_USAGE, mcdc_export_files, mcdc_rules
from .harness import generate_harness
from .unit_copy import unit_copy_text

_MARK = "pytest-ctgen"


HarnessSourceFn = Callable[[FileCases, str, Sequence[str]], str]


class ExportError(CtgenError):
    """The export would overwrite a file pytest-ctgen does not own."""


def export_name(fc: FileCases) -> str:
    """The export's directory name for a source file alone: `src/motor.c` -> `motor`."""
    return Path(fc.source).stem


def export_names(sources: Sequence[str]) -> dict[str, str]:
    """The directory of each unit (by `FileCases.source`) of one export, relative to it:
    `motor` for `src/motor.c`, unless another unit has the same base name; then each of
    those gets its path without the suffix (`src/a/util`, `src/b/util`), and where that
    is not enough either (`util.c` beside `util.h`), the suffix too (`src/util_c`)."""
    def counted(names: dict[str, str]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name in names.values():
            counts[name] = counts.get(name, 0) + 1
        return counts

    def path_name(source: str) -> str:
        parts = PurePosixPath(Path(source).as_posix()).with_suffix("").parts
        return "/".join(p for p in parts if p not in ("/", "..", ".", ""))

    names = {s: Path(s).stem for s in sources}
    clash = counted(names)
    names = {s: n if clash[n] == 1 else path_name(s) for s, n in names.items()}
    clash = counted(names)
    return {s: n if clash[n] == 1 else f"{n}_{Path(s).suffix.lstrip('.')}"
            for s, n in names.items()}


def _from_export(path: Path, export_dir: Path) -> str:
    """`path` relative to the export directory `export_dir`."""
    return Path(os.path.relpath(Path(path).resolve(), export_dir.resolve())).as_posix()


def _relative(path: str, base_dir: Path, export_dir: Path) -> str:
    """An include path as the export names it: relative to the export when it is inside
    `base_dir` (the project; a committed export then works in any checkout of it), else
    absolute (a replay takes a relative path only inside the project: export_schema)."""
    full = (base_dir / path).resolve()
    if not full.is_relative_to(base_dir.resolve()):
        return path if os.path.isabs(path) else full.as_posix()
    return Path(os.path.relpath(full, export_dir.resolve())).as_posix()


def rebase_flags(cflags: Sequence[str], base_dir: Path, export_dir: Path) -> list[str]:
    """`cflags` with relative paths (taken from `base_dir`) made relative to `export_dir`,
    where the Makefile runs."""
    return map_paths(cflags, lambda path: _relative(path, base_dir, export_dir))


def _make_word(flag: str) -> str:
    """A flag as a shell word in the value of a Makefile variable that a recipe uses."""
    return _make_value(shlex.quote(flag))


def _make_value(text: str) -> str:
    """`text` as the value of a Makefile variable: `$` doubled, `#` escaped (it would
    start a comment)."""
    return text.replace("$", "$$").replace("#", "\\#")


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def posix_cksum(data: bytes) -> str:
    """What POSIX `cksum < file` prints for a file holding `data`: its CRC and its size."""
    crc = 0
    length = len(data)
    tail = bytearray()
    while length:
        tail.append(length & 0xFF)
        length >>= 8
    for chunk in (data, bytes(tail)):
        for b in chunk:
            crc = ((crc << 8) & 0xFFFFFFFF) ^ _CRC_TABLE[(crc >> 24) ^ b]
    return f"{~crc & 0xFFFFFFFF} {len(data)}"


def _unit_copy_parts(source: str, coverage_src: str, original_cksum: str) -> tuple[str, str]:
    """What the Makefile says of the unit copy the driver includes, and the rule that stops
    the build when the original changed after the export."""
    copy_doc = f"""\
#
# {UNIT_COPY}, which the driver includes, is a copy of
#   {source}
# as it was exported, with its annotations defined for this build (an __rtt_assert checks,
# ghost variables count), the dummy bodies of its specifications of external functions
# renamed and, in a preprocessed unit (.i), its line markers pointing into the unit. Its
# `#line` directives name the original file, so compiler messages, gcov and gcovr show and
# count the lines of the original, never those of the copy. The copy cannot
# follow later edits of the unit: when the original's `cksum` is not the one it had at the
# export, `build` stops and asks for a new export (CTGEN_UNIT_CKSUM= builds the old copy).
"""
    check = f"""\
# `cksum < {coverage_src}` when {UNIT_COPY} was made from it; empty: no check.
CTGEN_UNIT_CKSUM = {original_cksum}

ctgen-check-copy:
\t@if [ $(call ctgen_sq,$(UNIT_SRC)) = '{UNIT_COPY}' ] && [ -n '$(CTGEN_UNIT_CKSUM)' ] && \\
\t  command -v cksum >/dev/null && \\
\t  [ "`cksum < $(call ctgen_sq,$(COVERAGE_SRC))`" != '$(CTGEN_UNIT_CKSUM)' ]; then \\
\t  echo $(call ctgen_sq,$(COVERAGE_SRC))" changed after the export: {UNIT_COPY} is a" \\
\t    "stale copy of it;" \\
\t    "export again (pytest --ctgen ... --ctgen-export DIR)," \\
\t    "or run the old copy with CTGEN_UNIT_CKSUM=" >&2; \\
\t  exit 1; \\
\tfi

"""
    return copy_doc, check


def makefile_text(fc: FileCases, unit_rel: str, cflags: Sequence[str],
                  original_rel: str | None = None, original_cksum: str = "",
                  mcdc: tuple[str, str] | None = None) -> str:
    """The Makefile of an export (unit path and flags relative to its directory).

    `unit_rel` is what the driver includes; when it is the unit copy, `original_rel` is the
    unit it was made from and `original_cksum` that file's `cksum` when it was made.
    `mcdc`, with MC/DC measured (export_mcdc), is the unit as the export names it and its
    `cksum`: the Makefile has a `mcdc` rule."""
    source = re.sub(r"[\x00-\x1f\x7f\\]", "?", fc.source)  # one line of a comment
    copied = original_rel is not None
    coverage_src = _make_value(original_rel) if original_rel is not None else "$(UNIT_SRC)"
    copy_doc, check = _unit_copy_parts(source, coverage_src, original_cksum) if copied \
        else ("", "")
    mcdc_rule = ""
    if mcdc is not None:
        unit_dir = ["-iquote", Path(mcdc[0]).parent.as_posix()]
        mcdc_rule = mcdc_rules(" ".join(_make_word(f) for f in unit_dir),
                               _make_value(mcdc[0]), mcdc[1])
    return _makefile_usage(source, mcdc is not None) + copy_doc + "\n" \
        + _makefile_variables(unit_rel, coverage_src, cflags) + "\n" \
        + _makefile_rules(copied, check, mcdc is not None) + mcdc_rule


def _makefile_usage(source: str, mcdc: bool = False) -> str:
    """The Makefile's head: what it is made from, how to use it, what it does (and
    `make mcdc`, with `mcdc`)."""
    return f"""\
# Generated by {_MARK} from {source}: builds and runs the standalone driver.
#   make run                           build the driver and run every case
#   make run CC=clang CFLAGS='-Wall -Wextra'
#   make coverage                      run with gcov instrumentation (COVERAGE_CFLAGS), then
#                                      report the unit's line and branch coverage with gcovr
#                                      as the pytest run measures it
#   make run CFLAGS='--coverage -O0'   instrumented too; read the .gcda files with any tool
{MCDC_USAGE if mcdc else ""}#   make clean
# Overridable: CC, CFLAGS, CPPFLAGS, LDFLAGS, LDLIBS, UNIT_SRC (the unit under test,
# relative to this directory; passed on as it is, whatever characters its name has), CTGEN_HARNESS_DIR (where ctgen_runtime.h and
# ctgen_runtime.c are), COVERAGE_SRC (the file coverage is reported for), COVERAGE_CFLAGS,
# GCOV, GCOVR.
# `run` always rebuilds (two files), so a change of CFLAGS always takes effect; it exits
# non-zero when a case fails.
#
# Each case runs in a child process of its own (on POSIX hosts; CPPFLAGS=-DCTGEN_FORK=0 runs
# them in this process), so it starts from the program's initial state as under pytest, and
# a crash or a hang (CTGEN_CASE_TIMEOUT, 5 s) fails that case only.
#
# Warnings: the driver includes the unit, so -Wall -Wextra also shows the unit's own
# warnings, at its lines; the generated code ({DRIVER}, the runtime) adds none.
#
# Coverage is that of the unit's lines and branches as gcov counts them (gcc at -O0; clang's
# llvm-cov counts branches its own way). `make coverage` runs gcovr with the options of the
# pytest run: only COVERAGE_SRC, and without the lines of __rtt_assert, __rtt_assign and
# __rtt_aux, which are code only in the test build (an ordinary build compiles them to
# nothing). Without gcovr it prints gcov's own counts, which include those lines.
"""


def _makefile_variables(unit_rel: str, coverage_src: str, cflags: Sequence[str]) -> str:
    """The Makefile's variables: the unit, the flags, gcov and gcovr."""
    flags = " ".join(_make_word(f) for f in cflags)
    runtime = " ".join(_make_word(f) for f in runtime_flags(cflags))
    unit = _make_value(unit_rel)
    return f"""\
# a value as one shell word: in single quotes, each of its own as '\\''
ctgen_sq = '$(subst ','\\'',$(1))'

UNIT_SRC ?= {unit}
COVERAGE_SRC ?= {coverage_src}
CTGEN_HARNESS_DIR ?= .
CFLAGS ?= -O0 -g
COVERAGE_CFLAGS ?= --coverage -O0
CTGEN_CFLAGS = {flags}
# the runtime is built against the system's C library, with the unit's ABI flags only
CTGEN_RUNTIME_CFLAGS = {runtime}
DRIVER = ctgen_driver
GCOVR ?= gcovr
# the gcov of the compiler: gcc -> gcov, arm-none-eabi-gcc -> arm-none-eabi-gcov,
# clang-14 -> llvm-cov-14 gcov
CTGEN_GCC_GCOV = $(if $(findstring gcc,$(CC)),$(subst gcc,gcov,$(CC)),gcov)
GCOV ?= $(if $(findstring clang,$(CC)),$(subst clang,llvm-cov,$(CC)) gcov,$(CTGEN_GCC_GCOV))

# `make coverage` adds COVERAGE_CFLAGS (after CFLAGS, so its -O0 wins) to the build.
CTGEN_EXTRA_CFLAGS =
coverage: CTGEN_EXTRA_CFLAGS = $(COVERAGE_CFLAGS)
CTGEN_ALL_CFLAGS = $(CFLAGS) $(CTGEN_EXTRA_CFLAGS)
# With gcov instrumentation the driver also flushes coverage when a case crashes.
CTGEN_COVERAGE_DEF = $(if $(filter --coverage -fprofile-arcs,$(CTGEN_ALL_CFLAGS)),-DCTGEN_COVERAGE)
# gcovr as the pytest run calls it (coverage/gcov.py); the filter is COVERAGE_SRC as a
# regex, each character regexes give a meaning escaped (paren(x).c, cost$1.c)
CTGEN_GCOVR_OPTIONS = --config /dev/null \\
  --root "$$(dirname -- $(call ctgen_sq,$(COVERAGE_SRC)))" \\
  --filter "$$(printf '%s' $(call ctgen_sq,$(COVERAGE_SRC)) | \\
    sed 's/[][\\.*^$$()+?{{}}|]/\\\\&/g')"'$$' \\
  --exclude-lines-by-pattern {_make_word(ANNOTATION_LINES)} --include-internal-functions \\
  --gcov-object-directory . --gcov-executable '$(GCOV)' $(CTGEN_GCOVR_HITS)
# a case stopped by its timeout inside a long loop ran it billions of times: real counts,
# which gcovr 7.2 and later take for gcov's bug above 2**32 and refuse
# (each case pattern in parentheses of its own: make counts them)
CTGEN_GCOVR_HITS = $(shell h=$$($(GCOVR) --help 2>/dev/null); case "$$h" in \\
  (*--gcov-suspicious-hits-threshold*) echo --gcov-suspicious-hits-threshold=0;; \\
  (*suspicious_hits.warn*) echo --gcov-ignore-parse-errors=suspicious_hits.warn;; esac)
"""


def _makefile_rules(copied: bool, check: str, mcdc: bool = False) -> str:
    """The Makefile's rules: `run`, `build`, `coverage` and `clean`, and `check`, the rule
    that stops the build of a unit copy whose original changed (empty without a copy);
    `clean` also removes what `make mcdc` made, with `mcdc`."""
    return f"""\
.PHONY: run build coverage clean{' ctgen-check-copy' if copied else ''}

run: build
\t./$(DRIVER)

build:{' ctgen-check-copy' if copied else ''}
\trm -f $(DRIVER).gcda ctgen_runtime.gcda
\t$(CC) $(CTGEN_ALL_CFLAGS) $(CPPFLAGS) -I$(CTGEN_HARNESS_DIR) $(CTGEN_CFLAGS) \\
\t  $(CTGEN_COVERAGE_DEF) $(call ctgen_sq,-DCTGEN_UNIT_SRC="$(UNIT_SRC)") \\
\t  '-DCTGEN_RUNTIME_HEADER="$(CTGEN_HARNESS_DIR)/{RUNTIME}"' -c -o $(DRIVER).o {DRIVER}
\t$(CC) $(CTGEN_ALL_CFLAGS) $(CPPFLAGS) -I$(CTGEN_HARNESS_DIR) $(CTGEN_RUNTIME_CFLAGS) \\
\t  $(CTGEN_COVERAGE_DEF) -c -o ctgen_runtime.o '$(CTGEN_HARNESS_DIR)/{RUNTIME_SOURCE}'
\t$(CC) $(CTGEN_ALL_CFLAGS) $(LDFLAGS) -o $(DRIVER) $(DRIVER).o ctgen_runtime.o $(LDLIBS) -lm

# The cases' status is make's; the report comes also when some fail.
coverage: build
\t@status=0; ./$(DRIVER) || status=$$?; \\
\tif command -v $(firstword $(GCOVR)) >/dev/null 2>&1; then \\
\t  $(GCOVR) $(CTGEN_GCOVR_OPTIONS) --txt-metric branch --print-summary . || status=1; \\
\telse \\
\t  echo "$(GCOVR) not found: gcov's counts (with the annotation lines):"; \\
\t  $(GCOV) -b -n -o . {DRIVER} || status=1; \\
\tfi; \\
\texit $$status

{check}clean:
\trm -f $(DRIVER) $(DRIVER).o $(DRIVER).gcda $(DRIVER).gcno *.gcov \\
\t  ctgen_runtime.o ctgen_runtime.gcda ctgen_runtime.gcno{" " + MCDC_CLEAN if mcdc else ""}
"""


def driver_text(fc: FileCases, unit_rel: str, harness_source_fn: HarnessSourceFn,
                sources_rel: Sequence[str] = ()) -> str:
    """`ctgen_driver.c`: the harness with its `main`, including the unit (and the sources
    it is tested with) by relative path."""
    return (f"/* {_MARK} standalone driver for {fc.source.replace('*/', '* /')}: "
            "see the Makefile beside it. */\n"
            "#ifndef CTGEN_DRIVER_MAIN\n#define CTGEN_DRIVER_MAIN 1\n#endif\n"
            + harness_source_fn(fc, unit_rel, sources_rel))


def _check_recipe(fc: FileCases, recipe: BuildRecipe) -> None:
    """Raise ExportError when a replay would refuse `recipe` (or the unit's name)."""
    problems = [f"the unit's name {problem}" for problem in (text_problem(fc.source),)
                if problem]
    problems += [f"{path} {problem}" for path in (recipe.unit, *recipe.sources)
                 for problem in (include_problem(path) or text_problem(path),) if problem]
    flag = cflags_problem(recipe.cflags)
    if flag is not None:
        problems.append(f"the flag {flag[1]}; a replay passes only preprocessor, "
                        "language, warning, optimisation and ABI flags to the compiler")
    if problems:
        raise ExportError(f"cannot export {fc.source}: {problems[0]}")


def _owned(path: Path, source: str, force: bool) -> None:
    """Raise unless writing `path` is allowed: absent, forced, or written by pytest-ctgen."""
    if force or not path.exists():
        return
    if not path.is_file():
        raise ExportError(f"{path} exists and is not a file; not overwriting it")
    head = path.read_bytes()[:4096].decode("utf-8", "replace")
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            doc = None
        if not isinstance(doc, dict) or doc.get("format") != "pytest-ctgen cases":
            raise ExportError(f"{path} was not written by pytest-ctgen; not overwriting it")
        if doc.get("source") != source:
            raise ExportError(f"{path} holds the cases of {doc.get('source')}, not {source}; "
                              "export them to different directories")
        return
    if _MARK not in head:
        raise ExportError(f"{path} was not written by pytest-ctgen; not overwriting it")


def _write(path: Path, text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")  # a byte of the unit that is no UTF-8
    if path.is_file() and path.read_bytes() == data:
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_export(fc: FileCases, unit_path: Path, out_dir: Path, cflags: Sequence[str] = (),
                 *, harness_source_fn: HarnessSourceFn | None = None,
                 base_dir: Path | None = None, force: bool = False,
                 sources: Sequence[Path] = (), name: str | None = None,
                 mcdc: InstrumentedUnit | None = None) -> Path:
    """Write the export of `fc` into `out_dir/<name>/` and return that directory.

    - `name` is the directory, relative to `out_dir` (default `export_name`; see
      `export_names` for the units of one session);

    - `unit_path` is the unit's source file, included by a path relative to the export;
    - `cflags` are the user's build flags; the relative paths in them (path_flags) are
      taken from `base_dir` (default: the current directory) and rewritten relative to
      the export;
    - `harness_source_fn(fc, unit_include, sources)` makes the harness text (default
      generate_harness);
    - `sources` are the implementations of external functions the unit is tested with;
    - `force` allows overwriting files in the export that pytest-ctgen did not write;
    - `mcdc`, the unit's MC/DC-instrumented copy, adds `make mcdc` (export_mcdc).

    Writes `<stem>.ctgen.json`, `ctgen_driver.c`, `ctgen_runtime.h` and `ctgen_runtime.c`
    (and `ctgen.h`, which a unit may include) and `Makefile`. Raises ExportError (nothing
    written) when one of these exists and belongs to someone else, or when a replay
    would refuse the export (a file name `#include` cannot name, a flag a replay does not
    pass to the compiler: export_schema)."""
    export_dir = Path(out_dir) / (name or export_name(fc))
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    # what a replay (`pytest DIR`) needs to build the cases again
    recipe = BuildRecipe(_from_export(unit_path, export_dir),
                         tuple(rebase_flags(cflags, base, export_dir)),
                         tuple(_from_export(p, export_dir) for p in sources))
    _check_recipe(fc, recipe)
    files = _export_files(fc, Path(unit_path), recipe, harness_source_fn or generate_harness,
                          mcdc)
    if export_dir.exists() and not export_dir.is_dir():
        raise ExportError(f"{export_dir} exists and is not a directory")
    for file_name in files:
        _owned(export_dir / file_name, fc.source, force)
    export_dir.mkdir(parents=True, exist_ok=True)
    for file_name, text in files.items():
        _write(export_dir / file_name, text)
    return export_dir


def _export_files(fc: FileCases, unit_path: Path, recipe: BuildRecipe,
                  harness_source_fn: HarnessSourceFn,
                  mcdc: InstrumentedUnit | None = None) -> dict[str, str]:
    """The text of each file of the export of `fc` built with `recipe`, by its name."""
    unit_rel, flags = recipe.unit, list(recipe.cflags)
    files: dict[str, str] = {}
    original: tuple[str, str] | None = None  # the unit a copy is made from, its cksum
    copy = unit_copy_text(unit_path, unit_rel, fc.stubs, fc.source,
                          loops=stopped_loops(fc))
    if copy is not None:
        # the unit uses annotations, specifies external functions or is preprocessed: the
        # driver includes a copy of it (see unit_copy), whose quoted includes are looked up
        # where the unit is
        files[UNIT_COPY] = f"/* {_MARK}: {fc.source.replace('*/', '* /')} as the driver " \
            "compiles it (annotations defined for the run, specifications of external " \
            "functions renamed, line markers pointing into the unit); regenerated with the " \
            "export. */\n" + copy
        flags = ["-iquote", Path(unit_rel).parent.as_posix(), *flags]
        original = (unit_rel, posix_cksum(unit_path.read_bytes()))
        unit_rel = UNIT_COPY
    measured: tuple[str, str] | None = None  # the unit and its cksum, for `make mcdc`
    if mcdc is not None:
        files.update(mcdc_export_files(fc, unit_path, recipe.unit, mcdc))
        measured = (recipe.unit, posix_cksum(unit_path.read_bytes()))
    runtime_dir = harness_dir()
    files.update({
        export_name(fc) + CASES_SUFFIX: file_cases_to_json(replace(fc, build=recipe)),
        DRIVER: driver_text(fc, unit_rel, harness_source_fn, list(recipe.sources)),
        RUNTIME: (runtime_dir / RUNTIME).read_text(encoding="utf-8"),
        RUNTIME_SOURCE: (runtime_dir / RUNTIME_SOURCE).read_text(encoding="utf-8"),
        MAKEFILE: makefile_text(fc, unit_rel, flags, original[0] if original else None,
                                original[1] if original else "", mcdc=measured),
    })
    if (runtime_dir / ANNOTATIONS).is_file():
        files[ANNOTATIONS] = (runtime_dir / ANNOTATIONS).read_text(encoding="utf-8")
    return files
