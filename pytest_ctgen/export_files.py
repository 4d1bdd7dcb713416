"""The names of the files an export writes (DESIGN §2), known to the code generator that
writes them and to collection, which replays the cases and leaves the C files alone.

A leaf module; the runtime's files are named in c_harness_files.
"""
from __future__ import annotations

from typing import Final

from .c_harness_files import MCDC_REPORT_SOURCE, MCDC_RUNTIME_SOURCE, RUNTIME_SOURCE

#: The cases, `<name>.ctgen.json`: `pytest DIR` replays them.
CASES_SUFFIX: Final = ".ctgen.json"
#: The standalone driver: the harness with its `main`.
DRIVER: Final = "ctgen_driver.c"
#: The copy of the unit the driver includes (codegen/unit_copy.py); a run's harness
#: includes it by the same name.
UNIT_COPY: Final = "ctgen_unit.c"
MAKEFILE: Final = "Makefile"
#: With MC/DC measured: the MC/DC-instrumented copy of the unit `make mcdc` builds the
#: driver with, and the unit's decisions, which its report program reads.
MCDC_UNIT_COPY: Final = "ctgen_unit_mcdc.c"
MCDC_DECISIONS: Final = "ctgen_mcdc_decisions.txt"
#: The C files an export writes beside its cases: not units to generate cases for.
EXPORTED_C_FILES: Final = (DRIVER, UNIT_COPY, RUNTIME_SOURCE, MCDC_UNIT_COPY,
                           MCDC_RUNTIME_SOURCE, MCDC_REPORT_SOURCE)
