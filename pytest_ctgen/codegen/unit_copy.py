"""The unit as the run compiles it when it uses annotations, specifies external functions
or is preprocessed (a `.i` file).

Annotations (c_harness/ctgen.h) are renamed to their reserved spelling, as for the analysis
(frontend/annotations.py), and defined here as the run needs them, whatever header the
unit includes: `__rtt_assert` checks its condition, `__rtt_aux` and `__rtt_assign` keep the
ghost variables for the checks after the call, the others vanish.

A definition whose body holds `__rtt_extern()` specifies a function that the unit calls
but that is not its own, and calls of it must reach the stub. The copy renames each such
definition (its body is never run) and declares the function again under its own name
after it. The renamed definition is not instrumented for coverage (gcc and clang's
no_profile_instrument_function), so the lines of a body that no build runs are counted
nowhere, as in the pytest run's per-function table.

A case the harness stops inside a loop (cases.LoopStop) needs the loop's iterations counted:
the copy ticks each such loop as frontend/loop_ticks.py says (the MC/DC copy,
frontend/mcdc_instrument.py, ticks its own by the same rule).

A preprocessed unit's line markers are made to point into the `.i` itself, as for the
analysis (frontend/preprocessed.py), so that gcov measures the lines of the file the user
has. Lines stay where they were, and a `#line` directive names the original file, so
compiler messages and gcov point into it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..cases import StubPrototype
from ..errors import CtgenError
from ..frontend.annotations import (
    closing_bracket,
    code_only,
    has_annotations,
    line_directive,
    quoted_path,
    reserved_spelling,
)
from ..frontend.loop_ticks import tick_edits
from ..frontend.preprocessed import is_preprocessed, located_in_itself

#: The name a specification's definition is compiled under in the copy.
SPEC_PREFIX = "ctgen_spec_"
#: The annotations as the run compiles them (see ctgen_runtime.h for the functions).
ANNOTATIONS_FOR_THE_RUN = """\
/* pytest-ctgen: the annotations as the run checks them */
#define __ctg_precondition(...) ((void)0)
#define __ctg_postcondition(...) ((void)0)
#define __ctg_testcase(...) ((void)0)
#define __ctg_modifies(...) ((void)0)
#define __ctg_extern(...) ((void)0)
#define __ctg_initial(x) (x)
#define __ctg_return 0
#define __ctg_assert(...) ((__VA_ARGS__) ? (void)0 : \\
    ctgen_annotation_assert_failed(CTGEN_UNIT_SHOWN, __LINE__, #__VA_ARGS__))
#define __ctg_aux(type, name) static type name; \\
    ctgen_aux_bind(#name, (void *)&name, sizeof name)
#define __ctg_assign(...) ((void)(__VA_ARGS__))
"""


#: What the renamed definition of a specification is marked with.
NEVER_RUN = "CTGEN_NEVER_RUN"

#: Its definition, for compilers that know the attribute.
NEVER_RUN_DEFINITION = f"""\
/* pytest-ctgen: the bodies of specifications of external functions are never run */
#if defined(__has_attribute)
#if __has_attribute(no_profile_instrument_function)
#define {NEVER_RUN} __attribute__((__no_profile_instrument_function__))
#endif
#endif
#ifndef {NEVER_RUN}
#define {NEVER_RUN}
#endif
"""


def definition_span(code: str, name: str) -> tuple[int, int] | None:
    """Where the name of the definition of function `name` is and where its body ends
    (the index of the closing brace), in comment-free `code`."""
    for match in re.finditer(rf"(?<![\w$]){re.escape(name)}\s*\(", code):
        close = closing_bracket(code, match.end() - 1, "(", ")")
        if close < 0:
            return None
        rest = code[close + 1:]
        body = close + 1 + len(rest) - len(rest.lstrip())
        if body < len(code) and code[body] == "{":
            end = closing_bracket(code, body, "{", "}")
            if end >= 0:
                return match.start(), end
    return None


def _specifiers_start(code: str, name_start: int) -> int:
    """Where the attribute of a definition whose name is at `name_start` goes: before the
    first word of its line when all that stands there before the name are declaration
    specifiers (`static uint8_t *name(`), else right before the name."""
    line_start = code.rfind("\n", 0, name_start) + 1
    before = code[line_start:name_start]
    if re.fullmatch(r"[\w\s*]*", before):
        return line_start + len(before) - len(before.lstrip())
    return name_start


def _declaration(stub: StubPrototype) -> str:
    return f"{'static ' if stub.static else ''}{stub.prototype.strip().rstrip(';')};"


def unit_copy_text(unit: Path, display_path: str, stubs: Iterable[StubPrototype],
                   shown_as: str = "", text: str | None = None,
                   loops: Iterable[tuple[int, int]] = ()) -> str | None:
    """The text of the copy of `unit` with its annotations defined for the run, the
    definitions of those `stubs` that are specified in the unit renamed and, when it is
    preprocessed, its line markers pointing into it; None when none of these applies (the
    unit is compiled as it is). `display_path` is the file name compiler messages and gcov
    should show, `shown_as` the one failing annotations show (the same by default).
    `text`, when given, is the unit's text as the caller changed it (the MC/DC
    instrumented copy, frontend/mcdc_instrument.py): the copy is then always made.
    `loops` are the loops (line and column of their keyword) cases stop in, whose
    iterations the copy counts (not in a `text` given: the MC/DC copy has its ticks
    already, mcdc_instrument.instrument_unit).

    Raises:
        CtgenError: a definition cannot be found in the text (its name or its body's
        braces come from a macro).
    """
    specified = [s for s in stubs if s.specified_in_unit]
    changed = text is not None
    if text is None:
        text = unit.read_text(encoding="utf-8", errors="surrogateescape")
    annotated = has_annotations(text)
    preprocessed = is_preprocessed(unit)
    loops = () if changed else tuple(loops)
    if not specified and not annotated and not preprocessed and not changed and not loops:
        return None
    if preprocessed:
        text = located_in_itself(text, display_path)
    text = reserved_spelling(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in text order
    code = code_only(text)
    for stub in specified:
        span = definition_span(code, stub.name)
        if span is None:
            raise CtgenError(
                f"cannot find the definition of '{stub.name}', which specifies an external "
                f"function (__rtt_extern), in {display_path}: its name and its body's braces "
                f"must be written out, not made by a macro")
        start, end = span
        edits.append((_specifiers_start(code, start), _specifiers_start(code, start),
                      NEVER_RUN + " "))
        edits.append((start, start + len(stub.name), SPEC_PREFIX + stub.name))
        edits.append((end + 1, end + 1, " " + _declaration(stub)))
    edits += tick_edits(code, loops, display_path)
    out = []
    position = 0
    for start, end, replacement in sorted(edits):
        out.append(text[position:start])
        out.append(replacement)
        position = end
    out.append(text[position:])
    prelude = NEVER_RUN_DEFINITION if specified else ""
    if annotated:
        prelude += (f"#define CTGEN_UNIT_SHOWN {quoted_path(shown_as or display_path)}\n"
                    + ANNOTATIONS_FOR_THE_RUN)
    return prelude + line_directive(display_path) + "".join(out)
