"""The generation and run options of a session, as one frozen value."""
from __future__ import annotations

import fnmatch
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, get_args

from .compile_db import CompileDatabase
from .search.options import BoundaryCases, Criterion, GoalScope, Leaks, SignedOverflow, StubGlobals
from .symbolic.work import DEFAULT_TIME_BUDGET, DEFAULT_WORK_UNITS

#: The memory a generation child may take beyond what it has when it starts, in MiB.
DEFAULT_MEMORY_MIB = 4096

# The options of a closed set, and the values each takes (its default first).
#: `--ctgen-criterion`: the coverage goal (search/options.py).
CRITERION_VALUES: tuple[Criterion, ...] = get_args(Criterion)
#: `--ctgen-goals`: whose branch outcomes are goals (search/options.py).
GOAL_SCOPE_VALUES: tuple[GoalScope, ...] = get_args(GoalScope)
#: `--ctgen-boundary-cases`: a case where each ordering comparison's sides are equal.
BOUNDARY_CASES_VALUES: tuple[BoundaryCases, ...] = get_args(BoundaryCases)
#: `--ctgen-stub-globals` and `--ctgen-signed-overflow`: the search's own choices.
STUB_GLOBALS_VALUES: tuple[StubGlobals, ...] = get_args(StubGlobals)
SIGNED_OVERFLOW_VALUES: tuple[SignedOverflow, ...] = get_args(SignedOverflow)
#: `--ctgen-leaks`: a case leaking its function's allocation is a note or fails.
LEAKS_VALUES: tuple[Leaks, ...] = get_args(Leaks)
#: `--ctgen-isolate`: where a case runs, in a forked child or in the pytest process.
Isolation = Literal["fork", "none"]
ISOLATION_VALUES: tuple[Isolation, ...] = get_args(Isolation)


@dataclass(frozen=True)
class Options:
    cflags: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()  # globs of functions to test; empty: all
    exclude: tuple[str, ...] = ()  # globs of functions to skip
    criterion: Criterion = "branch"
    goals: GoalScope = "function"  # also the outcomes of the file's functions it calls
    boundary_cases: BoundaryCases = "on"  # a case where each ordering comparison's sides are equal
    max_depth: int = 64
    max_recursion: int = 32  # calls of one function active at once along a path
    work: float = DEFAULT_WORK_UNITS  # per function, in millions of steps (symbolic/work.py)
    timeout: float = DEFAULT_TIME_BUDGET  # per function, a safety net (symbolic/work.py)
    memory: int = DEFAULT_MEMORY_MIB  # MiB a generation child may take beyond its start; 0: none
    jobs: int = 0  # files generated at once; 0: the CPUs the session may use (plugin/ahead.py)
    array_size: int = 10
    stub_globals: StubGlobals = "modifies"  # which globals stubs may write: "modifies" or "all"
    # globs of globals that are inputs although they start from an initializer nothing in
    # the unit writes (ir/written_globals.py)
    input_globals: tuple[str, ...] = ()
    # (glob of functions, the unit's functions their cases call first on their handle:
    # init, then operations), symbolic/setup_calls.py
    setup: tuple[tuple[str, tuple[str, ...]], ...] = ()
    signed_overflow: SignedOverflow = "note"  # a path with signed overflow: "note" or "finding"
    leaks: Leaks = "note"  # a case leaking its function's allocation: "note" or "fail"
    # C files analysed with every unit: specifications of external functions (never
    # compiled) and implementations of them (executed and compiled with the unit)
    stub_specs: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    proof: bool = False  # explore every path to prove annotations; robustness cases
    case_timeout: float = 5.0
    isolate: Isolation = "fork"
    regenerate: bool = False
    # per-file include dirs and defines from a compilation database (CMake, Bear)
    compile_database: CompileDatabase | None = None

    def compiler_flags(self, unit: Path | None = None) -> list[str]:
        """Flags for preprocessing and building `unit`: its entry in the compilation
        database (if any), then the session's flags, include dirs and defines."""
        from_database = self.compile_database.flags_for(unit) \
            if self.compile_database is not None and unit is not None else None
        return [*(from_database or ()), *self.cflags,
                *(f"-I{d}" for d in self.include_dirs), *(f"-D{d}" for d in self.defines)]

    def files_for(self, unit: Path) -> tuple[Path, ...]:
        """The spec and source files analysed with `unit` (never the unit itself)."""
        return _other_files(self.stub_specs, unit) + self.sources_for(unit)

    def sources_for(self, unit: Path) -> tuple[Path, ...]:
        """The source files compiled with `unit` (never the unit itself)."""
        return _other_files(self.sources, unit)

    def selects(self, function: str) -> bool:
        if self.functions and not any(fnmatch.fnmatchcase(function, g) for g in self.functions):
            return False
        return not any(fnmatch.fnmatchcase(function, g) for g in self.exclude)

    def generation_key(self) -> str:
        """The options that influence generated cases, as stable text for cache keys."""
        fields = asdict(self)
        # the database's flags count through the unit's flags (see pipeline.generate_file)
        for run_only in ("case_timeout", "isolate", "regenerate", "compile_database", "jobs"):
            fields.pop(run_only)
        return json.dumps(fields, sort_keys=True)


def _other_files(files: tuple[str, ...], unit: Path) -> tuple[Path, ...]:
    own = unit.resolve()
    return tuple(Path(f) for f in files if Path(f).resolve() != own)
