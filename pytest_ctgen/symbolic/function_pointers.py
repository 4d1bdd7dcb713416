"""Function pointers: the object standing for each function, function-pointer inputs and
the callbacks the harness generates for them to point to, and where such an input may
point (its callback, or one of the unit's functions of its type)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from ..frontend.ctype import FunctionType, PointerType, compatible, prototype_of
from .memory import Cell, MemObject, value_cells
from .paths import AliasChoice, PathError
from .state import Pointee, State
from .values import AliasPtr, PtrVal, zero64

if TYPE_CHECKING:
    from .executor import Executor


@dataclass(frozen=True)
class StubSignature:
    """What a stub call needs of the function it stands for: its name, type and
    parameter names."""

    name: str
    type: FunctionType
    params: tuple[str, ...]


@dataclass(frozen=True)
class Callback:
    """A function the harness generates for a function-pointer input to point to: a stub
    of the input's type (`signature`, under a C name derived from the input), declared
    by `prototype`. `input` names the input as the user reads it (`cmp`, `ops->read`)."""

    signature: StubSignature
    input: str
    prototype: str
    object_id: int

    @property
    def name(self) -> str:
        return self.signature.name


def _shown_input(name: str) -> str:
    """An input's name as the user reads it: `ops->read` for `ops[][0].read` (the first
    element of what `ops` points to), `ops[2].read` for `ops[][2].read`."""
    name = re.sub(r"\[\]\[0\]\.", "->", name)
    return re.sub(r"\[\]\[(\d+)\]", r"[\1]", name)


def function_object(ex: Executor, state: State, name: str) -> int:
    """The object standing for function `name` (a function of the unit or a
    callback): empty and read-only, the same on every path."""
    oid = ex.function_objects.get(name)
    if oid is None:
        oid = ex.reserve_object()
        ex.function_objects[name] = oid
    if oid not in state.memory:
        state.memory[oid] = MemObject(oid, name, 0, [], True, None, [], function=name)
    return oid


def function_pointer_input(ex: Executor, state: State, name: str, ftype: FunctionType,
                           depth: int) -> list[Cell]:
    """An input function pointer: NULL (a solver choice) or the input's callback, or,
    decided when a path first calls or compares it (see `function_choice`), one of the
    unit's functions of its type whose address the unit takes."""
    callback = input_callback(ex, state, name, ftype)
    null = z3.Bool(f"{name}==NULL")
    ptr = AliasPtr(f"{name}->", PtrVal(callback.object_id, zero64(), null), ftype, null,
                   depth, ())
    # one a stub call returns or writes (named `stub#k...`) is preferably NULL, as one
    # inside a pointee is (see extract.preferences)
    preferred = max(depth, 1) if "#" in name else depth
    state.pointees.append(Pointee(callback.name, None, None, ptr, preferred))
    return value_cells(ptr, 8)


def input_callback(ex: Executor, state: State, name: str, ftype: FunctionType) -> Callback:
    """The callback of the function-pointer input `name`: a stub of type `ftype`
    named after the function under test and the input."""
    known = ex.input_callbacks.get(name)
    if known is not None:
        function_object(ex, state, known.name)
        return known
    shown = _shown_input(name)
    caller, hash_, call = shown.partition("#")
    if caller in ex.callbacks:  # what a call of a callback returns or writes
        shown = f"{ex.callbacks[caller].input}{hash_}{call}"
    stem = f"ctgen_cb_{ex.function}_" + \
        (re.sub(r"\W+", "_", shown, flags=re.ASCII).strip("_") or "fn")
    ident, n = stem, 2
    while ident in ex.callbacks:
        ident, n = f"{stem}_{n}", n + 1
    params = _parameter_names(ftype)
    result = ftype.result
    if isinstance(result, PointerType) and isinstance(result.target, FunctionType):
        raise PathError(f"function pointer input '{shown}' returns a function pointer",
                        unsupported=True)
    try:
        prototype = prototype_of(ftype, ident, tuple(params))
    except ValueError as err:  # a parameter of an anonymous struct type
        raise PathError(f"function pointer input '{shown}': {err}",
                        unsupported=True) from None
    callback = Callback(StubSignature(ident, ftype, tuple(params)), shown, prototype,
                        function_object(ex, state, ident))
    ex.callbacks[ident] = callback
    ex.input_callbacks[name] = callback
    return callback


def _parameter_names(ftype: FunctionType) -> list[str]:
    """The names of a callback's parameters: those of `ftype` that are C identifiers of
    the user's, unique, else `p<i>`."""
    params: list[str] = []
    for i, given in enumerate(ftype.param_names or (None,) * len(ftype.params)):
        if given is not None and re.fullmatch(r"[A-Za-z_]\w*", given, re.ASCII) and \
                not given.startswith("ctgen_") and given not in params:
            params.append(given)
        else:
            params.append(f"p{i}")
    return params


def function_choice(ex: Executor, state: State, ptr: AliasPtr) -> AliasChoice:
    """Where an input function pointer may point: its callback first, then each of
    the unit's functions of its type whose address the unit takes."""
    alternatives = [ptr.own] if ptr.own is not None else []
    for name in ex.program.designated_functions:
        fn = ex.program.unit.functions[name]
        if compatible(fn.type, ptr.element):
            alternatives.append(PtrVal(function_object(ex, state, name), zero64(),
                                       ptr.null))
    return AliasChoice(ptr, tuple(alternatives),
                       tuple(z3.BoolVal(True) for _ in alternatives))
