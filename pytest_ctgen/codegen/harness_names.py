"""The names the harness gives things: a case's name, the symbols stubs and renamed
functions are defined under, the counters of calls and the slots of a case's objects; and
the signature it declares a function with.
"""
from __future__ import annotations

from dataclasses import replace

from ..cases import (
    PROGRAM_ENDS,
    Binding,
    Case,
    FunctionCases,
    FunctionSignature,
    StubPrototype,
)
from .c_values import with_targets


def case_name(c: Case) -> str:
    """The case's name as the harness reports it: `function[case2]`."""
    return f"{c.function}[{c.id}]"


def callee(name: str) -> str:
    """The name the harness calls the unit's function `name` by (a unit's own `main` is
    renamed)."""
    return "ctgen_unit_main" if name == "main" else name


def call_counter(stub: str) -> str:
    """The counter of the calls of `stub` (or of a callback) in the running case."""
    return f"ctgen_calls_{stub}"


#: How the harness renames, in the unit, the library functions that end the program
#: (cases.PROGRAM_ENDS): to the runtime's function for how each ends it.
PROGRAM_END_RENAMES = tuple((name, {"exit": "ctgen_exit", "abort": "ctgen_abort",
                                    "assertion failure": "ctgen_assert_fail"}[how])
                            for name, how in PROGRAM_ENDS.items())


def stub_symbol(stub: StubPrototype) -> str:
    """The C name the stub is defined under, renamed in the unit: the stub must not replace
    a function of the same name for the runtime, gcov's runtime or the process (a
    freestanding unit's `malloc` or `memcpy`, libc's `send`, zlib's `crc32`). A callback
    is a name of the harness's own."""
    return stub.name if stub.callback else f"ctgen_stub_{stub.name}"


def signature_of(item: FunctionCases | StubPrototype) -> FunctionSignature:
    """The signature the harness declares a function under test, a stub or a callback
    with (read from the unit by the frontend). Raises ValueError when it was not read."""
    if item.signature is None:
        raise ValueError(f"the declaration of {item.name} was not read from the unit")
    return item.signature


def object_slots(c: Case) -> dict[str, str]:
    """How a stub reaches the objects of case `c`: through the file-scope table the case
    fills, since they are local to the case's function."""
    return {o.name: f"ctgen_objects[{j}]" for j, o in enumerate(c.objects)}


def with_symbols(c: Case, symbols: dict[str, str]) -> Case:
    """Case `c` with its pointers to functions the harness renames in the unit (stubs,
    `main`, `exit`) pointing to them under their names in the harness."""
    def bound(bs: tuple[Binding, ...]) -> tuple[Binding, ...]:
        return tuple(replace(b, value=with_targets(b.value, symbols, True)) for b in bs)

    e = c.expected
    returns = None if e.returns is None else with_targets(e.returns, symbols, True)
    stubs = tuple(replace(s, calls=tuple(
        replace(k, returns=None if k.returns is None else with_targets(k.returns, symbols,
                                                                        True),
                writes=bound(k.writes)) for k in s.calls)) for s in c.stubs)
    return replace(c, params=bound(c.params), globals=bound(c.globals),
                   objects=bound(c.objects), stubs=stubs,
                   expected=replace(e, returns=returns, globals=bound(e.globals),
                                    objects=bound(e.objects)))
