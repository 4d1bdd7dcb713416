"""`make mcdc` in an export made with MC/DC measured: the unit's MC/DC as the pytest run
reports it, without Python. The export then also holds the MC/DC-instrumented copy of the
unit (frontend/mcdc_instrument.py), the runtime that records its decisions' evaluations
(c_harness/ctgen_mcdc.c), the unit's decisions as text and a small C program,
`ctgen_mcdc_report.c`, that computes MC/DC per function from the two the way
coverage/mcdc.py does; the Makefile builds the driver with the copy, runs every case and
prints the figures. The copy ticks the loops the cases stop in as the driver's own copy
does (frontend/loop_ticks.py), so a case stops there after the same iterations and is
checked as by `make run`."""
from __future__ import annotations

from pathlib import Path

from ..c_harness_files import MCDC_REPORT_SOURCE, MCDC_RUNTIME, MCDC_RUNTIME_SOURCE, \
    RUNTIME, RUNTIME_SOURCE, harness_dir
from ..cases import FileCases
from ..export_files import DRIVER, MCDC_DECISIONS, MCDC_UNIT_COPY
from ..frontend.decisions import BoolTree
from ..frontend.mcdc_instrument import InstrumentedUnit
from .unit_copy import unit_copy_text

_MARK = "pytest-ctgen"
MCDC_DRIVER = "ctgen_driver_mcdc"
_RECORDS = "ctgen_mcdc.records"
_REPORT = "ctgen_mcdc_report"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _prefix(tree: BoolTree) -> str:
    """A decision's tree in prefix notation: `| & 0 1 & ! 0 2`."""
    if isinstance(tree, int):
        return str(tree)
    if tree[0] == "!":
        return f"! {_prefix(tree[1])}"
    return f"{tree[0][0]} {_prefix(tree[1])} {_prefix(tree[-1])}"


def decisions_text(source: str, unit: InstrumentedUnit) -> str:
    """The unit's functions and decisions as ctgen_mcdc_report.c reads them."""
    lines = [f"# {_MARK}: the decisions of {_one_line(source)} for `make mcdc` "
             f"({MCDC_REPORT_SOURCE} says how to read this)"]
    lines += [f"F {name}" for name in unit.functions]
    lines += [f"N {name} {_one_line(why)}" for name, why in unit.not_instrumented.items()]
    for d in unit.decisions:
        lines.append(f"D {d.id} {d.function} {len(d.conditions)} {d.location.line} "
                     f"{d.location.column} {_prefix(d.tree)}")
        lines += [f"C {d.id} {c.index} {c.location.line} {c.location.column} "
                  f"{_one_line(c.text)}" for c in d.conditions]
    return "\n".join(lines) + "\n"


def mcdc_export_files(fc: FileCases, unit_path: Path, unit_rel: str,
                      unit: InstrumentedUnit) -> dict[str, str]:
    """The files `make mcdc` needs, by name: the instrumented copy (its `#line`s name the
    unit as `unit_rel`), the runtime, the decisions and the report program."""
    copy = unit_copy_text(unit_path, unit_rel, fc.stubs, fc.source, text=unit.text)
    assert copy is not None  # a changed text always makes a copy
    shipped = harness_dir()
    return {
        MCDC_UNIT_COPY: f"/* {_MARK}: {fc.source.replace('*/', '* /')} with each decision "
                        "reporting its evaluations, for `make mcdc`; regenerated with the "
                        "export. */\n" + copy,
        MCDC_DECISIONS: decisions_text(fc.source, unit),
        **{name: (shipped / name).read_text(encoding="utf-8")
           for name in (MCDC_RUNTIME, MCDC_RUNTIME_SOURCE, MCDC_REPORT_SOURCE)},
    }


MCDC_USAGE = f"""\
#   make mcdc                          the unit's MC/DC as the pytest run measures it: the
#                                      driver built with {MCDC_UNIT_COPY} runs every case,
#                                      {_REPORT} (built with HOSTCC) prints per function
#                                      the conditions shown to affect their decision
"""

#: What `make clean` also removes.
MCDC_CLEAN = f"{MCDC_DRIVER} {MCDC_DRIVER}.o ctgen_runtime_mcdc.o ctgen_mcdc.o " \
    f"{_RECORDS} {_REPORT}"


def mcdc_rules(unit_dir_flag: str, original: str, original_cksum: str) -> str:
    """The Makefile's `mcdc` rule. `unit_dir_flag` is `-iquote DIR` (as Makefile words),
    DIR where the unit is, for the copy's quoted includes; `original` the unit the copy
    was made from (a Makefile value) and `original_cksum` its `cksum` then."""
    return f"""
# `make mcdc`: MC/DC (modified condition/decision coverage) of the unit's decisions of two
# or more conditions, unique-cause, masking where coupled conditions allow no other (see
# {MCDC_REPORT_SOURCE}). {MCDC_UNIT_COPY} is the unit as exported with each decision
# reporting its evaluations to {MCDC_RUNTIME_SOURCE}; when the unit's `cksum` is not the one
# it had at the export, `mcdc` stops and asks for a new export.
HOSTCC ?= cc
CTGEN_MCDC_CFLAGS = {unit_dir_flag}
CTGEN_MCDC_UNIT = {original}
CTGEN_MCDC_CKSUM = {original_cksum}

.PHONY: mcdc
mcdc:
\t@if [ -n '$(CTGEN_MCDC_CKSUM)' ] && command -v cksum >/dev/null && \\
\t  [ "`cksum < $(call ctgen_sq,$(CTGEN_MCDC_UNIT))`" != '$(CTGEN_MCDC_CKSUM)' ]; then \\
\t  echo $(call ctgen_sq,$(CTGEN_MCDC_UNIT))" changed after the export: {MCDC_UNIT_COPY}" \\
\t    "is a stale copy of it; export again, or measure the old copy with" \\
\t    "CTGEN_MCDC_CKSUM=" >&2; \\
\t  exit 1; \\
\tfi
\t: > {_RECORDS}
\t$(CC) $(CFLAGS) $(CPPFLAGS) -I$(CTGEN_HARNESS_DIR) $(CTGEN_MCDC_CFLAGS) $(CTGEN_CFLAGS) \\
\t  '-DCTGEN_UNIT_SRC="{MCDC_UNIT_COPY}"' \\
\t  '-DCTGEN_RUNTIME_HEADER="$(CTGEN_HARNESS_DIR)/{RUNTIME}"' -c -o {MCDC_DRIVER}.o {DRIVER}
\t$(CC) $(CFLAGS) $(CPPFLAGS) -I$(CTGEN_HARNESS_DIR) $(CTGEN_RUNTIME_CFLAGS) \\
\t  -c -o ctgen_runtime_mcdc.o '$(CTGEN_HARNESS_DIR)/{RUNTIME_SOURCE}'
\t$(CC) $(CFLAGS) $(CTGEN_RUNTIME_CFLAGS) -c -o ctgen_mcdc.o {MCDC_RUNTIME_SOURCE}
\t$(CC) $(CFLAGS) $(LDFLAGS) -o {MCDC_DRIVER} {MCDC_DRIVER}.o ctgen_runtime_mcdc.o \\
\t  ctgen_mcdc.o $(LDLIBS) -lm
\t$(HOSTCC) -o {_REPORT} {MCDC_REPORT_SOURCE}
\t@status=0; CTGEN_MCDC_FILE={_RECORDS} ./{MCDC_DRIVER} || status=$$?; \\
\t./{_REPORT} {MCDC_DECISIONS} {_RECORDS} || status=1; \\
\texit $$status
"""
