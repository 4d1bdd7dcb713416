"""The C side that ships with pytest-ctgen (`c_harness/`, DESIGN §3): where it is, the names
of its files, and which of a unit's compiler flags its runtime is built with.

A leaf module: the frontend (the analysis header), the code generator (the export's copies)
and the runner (the build) all find the files here.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from collections.abc import Sequence

#: The annotation macros a unit may include (no-ops for ordinary builds).
ANNOTATIONS = "ctgen.h"
#: Lines of annotations that the harness build compiles to code (checks, ghost variables)
#: but an ordinary build does not: not the unit's lines and branches, for gcov.
ANNOTATION_LINES = r"\s*__rtt_(assert|assign|aux)\s*\(.*"
#: What the analysis adds to a unit it parses (`-idirafter`, frontend/preprocess.py).
ANALYSIS_HEADER = "ctgen_analysis.h"
#: The runtime's header, which the harness includes, and its own translation unit, built
#: and linked beside the harness.
RUNTIME = "ctgen_runtime.h"
RUNTIME_SOURCE = "ctgen_runtime.c"
#: What an MC/DC-instrumented copy of a unit includes, and the runtime that records its
#: decisions' evaluations (built beside the harness only for an MC/DC measurement).
MCDC_RUNTIME = "ctgen_mcdc.h"
MCDC_RUNTIME_SOURCE = "ctgen_mcdc.c"
#: The program an export's `make mcdc` computes MC/DC per function with.
MCDC_REPORT_SOURCE = "ctgen_mcdc_report.c"
#: How many stub calls of a case the runtime logs and checks (its CTGEN_MAX_STUB_CALLS):
#: a case that predicts more fails.
MAX_STUB_CALLS = 4096
#: The most bytes of what one pointer argument of a stub call points to that a case
#: predicts and checks (the rest of the object from where it points, in whole elements).
MOST_RECEIVED = 256
#: How many such bytes the runtime keeps of a case's stub calls (its CTGEN_MAX_STUB_BYTES):
#: a case predicts no more (each byte is a check the harness compiles).
MAX_RECEIVED_BYTES = 4096


def harness_dir() -> Path:
    """The directory of the shipped C files: in a source checkout, `c_harness/` beside the
    package imported (the C side of the same code, also where another checkout is the one
    installed), else the installed `pytest_ctgen.c_harness`."""
    beside = Path(__file__).resolve().parents[1] / "c_harness"
    if (beside / RUNTIME).is_file():
        return beside
    try:
        spec = importlib.util.find_spec("pytest_ctgen.c_harness")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if (Path(location) / RUNTIME).is_file():
                return Path(location)
    return beside


# The user's flags that shape the ABI the runtime shares with the harness (-m32, -mabi=,
# -fshort-enums, -funsigned-char...). The others (include dirs, defines, -nostdinc, -std,
# -include) are for the unit: the runtime is built against the system's C library.
_RUNTIME_FLAG = re.compile(
    r"-m\S+|-f(no-)?(short-enums|short-wchar|(un)?signed-char|pack-struct\S*)")


def runtime_flags(cflags: Sequence[str]) -> list[str]:
    """Of the unit's compiler flags, those the runtime (`ctgen_runtime.c`) is built with."""
    return [f for f in cflags if _RUNTIME_FLAG.fullmatch(f)]
