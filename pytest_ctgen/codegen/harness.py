"""The C harness of one source file: its stubs, one function per case, the case table.

The harness includes `ctgen_runtime.h` and then the unit itself (so static functions and
globals are reachable), defines every stub the unit needs, and exposes

    int ctgen_case_count(void);
    const char *ctgen_case_name(int index);                 /* "sat_add[case2]" */
    const char *ctgen_case_finding(int index);  /* the undefined behaviour predicted, or 0 */
    int ctgen_run_case(int index, char *message, ctgen_size capacity); /* 0 pass, 1 fail */

(`ctgen_size` is `size_t`). It is linked with the runtime, `ctgen_runtime.c` (which has
`ctgen_install_crash_flush` and `ctgen_flush_coverage`). The runtime's header includes no
system header, so the unit is the first to declare the C library: a preprocessed unit
(`.i`) carrying its own copies of those declarations compiles as one that includes the
headers. Compiled with CTGEN_DRIVER_MAIN the harness also has a `main` that runs every case
(the exported driver).

Its parts: the stubs (stubs.py), a function per case and the table (case_functions.py),
the checks of predicted values and annotations (checks.py), case values as C (c_values.py)
and the names it gives things (harness_names.py). What it declares of a function comes
with the cases (`cases.FunctionSignature`, read from the unit by the frontend): nothing
here parses C.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..c_harness_files import RUNTIME
from ..cases import FileCases, StubPrototype, declare
from ..export_schema import include_problem
from .c_values import c_string
from .case_functions import case_lines, table_lines
from .checks import contract_lines, enum_tables
from .harness_names import (
    PROGRAM_END_RENAMES,
    callee,
    case_name,
    signature_of,
    stub_symbol,
    with_symbols,
)
from .heap_allocator import allocator_lines, renames
from .stubs import refers_to_objects, stub_section


def include_text(path: str) -> str:
    """`#include`'s quoted name of `path` (include names have no escapes: a path that
    none can name is a ValueError)."""
    text = path.replace("\\", "/")
    problem = include_problem(text)
    if problem:
        raise ValueError(f"{path} {problem}")
    return f'"{text}"'


def _include_lines(unit_include: str) -> list[str]:
    text = unit_include.strip()
    if re.fullmatch(r"[A-Za-z_]\w*", text):  # a macro the build defines
        return [f"#include {text}"]
    if not text.startswith(('"', "<")):
        text = include_text(text)
    return ["#ifndef CTGEN_UNIT_SRC", f"#define CTGEN_UNIT_SRC {text}", "#endif",
            "#define main ctgen_unit_main /* a unit's own main must not clash */",
            "#include CTGEN_UNIT_SRC", "#undef main"]


def generate_harness(fc: FileCases, unit_include: str, sources: Sequence[str] = ()) -> str:
    """The C harness of `fc`.

    `unit_include` names the unit for `#include`: a path (quoted here, and overridable with
    -DCTGEN_UNIT_SRC="...") or the name of a macro the build defines. `sources` are the
    paths of the user's implementations of external functions, included after it. Raises
    ValueError for cases that do not fit the harness (a script of no stub, a function
    whose declaration was not read)."""
    callbacks = fc.callbacks()
    symbols = {s.name: stub_symbol(s) for s in fc.stubs}
    symbols.update({"main": callee("main"), **dict(PROGRAM_END_RENAMES)})
    cases = [with_symbols(c, symbols) for c in fc.all_cases()]
    stub_names = {s.name: s for s in (*fc.stubs, *callbacks)}
    for c in cases:
        for s in c.stubs:
            if s.name not in stub_names:
                raise ValueError(f"{case_name(c)} scripts {s.name}, which is no stub")
    signatures = {f.name: signature_of(f) for f in fc.functions if f.cases}
    contracts = {f.name: f.contract for f in fc.functions if f.contract and f.cases}

    out = _unit_lines(fc, unit_include, sources)
    out += ["", "/* The running case; selects what the stubs play back. */",
            "static int ctgen_current_case = -1;"]
    slots = max((len(c.objects) for c in cases if refers_to_objects(c)), default=0)
    if slots:
        out += ["/* The running case's objects, for stubs that return pointers to them. */",
                f"static void *ctgen_objects[{slots}];"]
    out += allocator_lines(fc, cases)
    out += enum_tables(cases)
    out += stub_section(fc.stubs, callbacks, cases)
    if contracts:
        out += ["", "/* -------------------------------------------------------- annotations */",
                "#if defined(__GNUC__)", "#pragma GCC diagnostic push",
                '#pragma GCC diagnostic ignored "-Wunused-parameter"', "#endif"]
        for f in fc.functions:
            if f.name in contracts:
                out += ["", *contract_lines(f, signatures[f.name])]
        out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"]
    out += ["", "/* ------------------------------------------------------------ cases */"]
    for i, c in enumerate(cases):
        if c.failing_allocations and not fc.allocator:
            raise ValueError(f"{case_name(c)} fails allocation calls of a unit that "
                             "allocates nothing")
        out += ["", *case_lines(i, c, signatures[c.function], stub_names,
                                contracts.get(c.function))]
    out += table_lines(cases, (*fc.stubs, *callbacks), bool(fc.allocator))
    return "\n".join(out)


def _stub_rename_lines(stub: StubPrototype) -> list[str]:
    """The lines that make the unit call the stub's symbol instead of `stub.name`.

    By the symbol (`#pragma redefine_extname`), so a struct member or a label of the same
    name (`ops->init` beside an external `init()`) keeps its name. A name gcc knows as a
    builtin is renamed by a macro instead: gcc would fold or replace calls of the builtin
    (`printf("x\\n")` becomes `puts`, a small `memcpy` is inlined) whatever the symbol is.
    A macro of the unit's of that name (`stub.macro`) would replace ours: the symbol then."""
    symbol = stub_symbol(stub)
    pragma = f"#pragma redefine_extname {stub.name} {symbol}"
    if stub.macro:
        return [pragma]
    define = f"#define {stub.name} {symbol}"
    return ["#if defined(__has_builtin)", f"#if __has_builtin(__builtin_{stub.name})", define,
            "#else", pragma, "#endif", "#else", define, "#endif"]


def _unit_lines(fc: FileCases, unit_include: str, sources: Sequence[str]) -> list[str]:
    """The harness up to the unit and what it needs of the harness: the runtime, the
    renames of the functions that end the program and of the stubs, the unit and the
    user's sources, and the globals the unit declares and no file defines."""
    out = [f"/* Generated by pytest-ctgen from {fc.source.replace('*/', '* /')}:",
           " * the unit's test cases as C. Do not edit; regenerate instead. */",
           "#ifndef CTGEN_RUNTIME_HEADER /* a build may name another copy of the runtime */",
           f'#define CTGEN_RUNTIME_HEADER "{RUNTIME}"', "#endif",
           "#include CTGEN_RUNTIME_HEADER", "",
           "/* An array a case sets element by element has that many elements (and is no",
           " * pointer): an export that says otherwise does not compile. */",
           ("#define CTGEN_ELEMENTS_FIT(a, n) ((void)sizeof (char[(sizeof (a) / sizeof (a)[0] "
            ">= (n) && !__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))) "
            "? 1 : -1]))"), ""]
    out += ["/* Ending the program in the unit returns to the running case instead. */"]
    out += [f"#define {name} {renamed}" for name, renamed in PROGRAM_END_RENAMES]
    if fc.allocator:
        out.append("/* Its allocation functions are the harness's allocator. */")
        out += renames(fc)
    if fc.stubs:
        out.append("/* The functions the unit calls and does not define are stubs of their "
                   "own names. */")
        for stub in fc.stubs:
            out += _stub_rename_lines(stub)
    out += _include_lines(unit_include)
    if sources:
        out += ["/* The implementations of external functions the unit is tested with. */"]
        out += [f"#include {include_text(path)}" for path in sources]
    out += [f"#undef {name}" for name, _ in PROGRAM_END_RENAMES]
    out += [f"#undef {name}" for name in fc.allocator]
    out += [f"#undef {stub.name}" for stub in fc.stubs if not stub.macro]
    if fc.global_stubs:
        out += ["", ("/* The globals the unit declares extern and no file of the build "
                     "defines (a real definition linked in wins). */")]
        # by its symbol under a name of ours: the unit's headers may define a macro of the
        # global's name (`#define stdin (&__stdin_FILE)`)
        out += [f"__attribute__((__weak__)) {declare(g.declaration, f'ctgen_global_{g.name}')}"
                f" __asm__({c_string(g.name)});" for g in fc.global_stubs]
    return out
