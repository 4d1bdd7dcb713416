"""Setup calls (`--ctgen-setup`): a case of a function that takes a handle (a pointer to
a record, `lwrb_t *buff`) starts from a state the unit's own functions build, not from
any bytes at all. The case's handle object starts zeroed, as a static object does; the
path calls the init function on it, then each operation in turn, every other parameter
of theirs an input of the case, and then the function under test with the handle.

The calls are frames pushed on the function's own at its entry, the last to run at the
bottom: to the search they are calls the function makes before its first statement, so
their branches are a callee's and the function's outcomes stay its goals. A path through
them goes where their behaviour is defined and they return: their undefined behaviour
and a call ending the program are the setup's inputs' doing, not findings of the case
(the init function's own cases have them)."""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cases import SETUP_AUTO
from ..errors import UnsupportedError
from ..frontend.ctype import ArrayType, PointerType, RecordType
from ..frontend.unit import Function, Variable
from ..ir.lower import Program
from . import calls, inputs, memory
from .memory import Cell, value_cells, zero_cells
from .state import InputRoot, Pointee, State
from .values import PtrVal, SymValue, zero64

if TYPE_CHECKING:
    from .executor import Executor


#: `--ctgen-setup`: the functions whose names match a glob get setup calls of these
#: functions, in order (an init function, then operations), or of the init function
#: found for them (SETUP_AUTO).
SetupSpec = tuple[str, tuple[str, ...]]


def setup_for(program: Program, function: str, specs: tuple[SetupSpec, ...]
              ) -> tuple[str, ...]:
    """The setup calls of `function`: those of the first spec whose glob matches its name,
    when it takes a pointer to the record the init function builds; none for the init
    function itself. Raises UnsupportedError, located at the function, when a setup
    function is not defined in the unit or cannot take the handle."""
    for pattern, functions in specs:
        if not fnmatch.fnmatchcase(function, pattern):
            continue
        if functions == (SETUP_AUTO,):
            return found_init(program, function)
        if function == functions[0]:
            return ()
        at = program.cfgs[function].function.location
        for name in functions:
            if name not in program.cfgs or name in program.specs:
                raise UnsupportedError(f"setup '{pattern}: {' '.join(functions)}': the "
                                       f"unit defines no function '{name}'", at)
            if program.cfgs[name].variadic_area is not None:
                raise UnsupportedError(f"setup '{pattern}: {' '.join(functions)}': "
                                       f"'{name}' is variadic", at)
        record = handle_record(program.cfgs[functions[0]].function)
        if record is None:
            raise UnsupportedError(
                f"setup '{pattern}: {' '.join(functions)}': the first parameter of "
                f"'{functions[0]}' is not a pointer to a struct or union it could build", at)
        if handle_parameter(program.cfgs[function].function, record) is None:
            return ()  # the function takes no handle: it starts as it is
        for name in functions[1:]:
            if handle_parameter(program.cfgs[name].function, record) is None:
                raise UnsupportedError(
                    f"setup '{pattern}: {' '.join(functions)}': '{name}' takes no "
                    f"{record} *", at)
        return functions
    return ()


def found_init(program: Program, function: str) -> tuple[str, ...]:
    """The init function of `function`'s first handle that has exactly one: a function
    of the unit's own file, other than `function`, with `init` in its name (in any case)
    whose first parameter points to the struct or union that handle points to; none when
    no handle has one."""
    fn = program.cfgs[function].function
    own_file = fn.location.file
    for p in fn.params:
        t = p.type
        if not (isinstance(t, PointerType) and isinstance(t.target, RecordType)):
            continue
        inits = [name for name, cfg in program.cfgs.items()
                 if name != function and "init" in name.lower() and name not in program.specs
                 and cfg.function.location.file == own_file and cfg.variadic_area is None
                 and handle_record(cfg.function) is t.target]
        if len(inits) == 1:
            return (inits[0],)
    return ()


def handle_record(fn: Function) -> RecordType | None:
    """The record an init function builds: what its first parameter points to, when that
    is a complete struct or union."""
    if not fn.params:
        return None
    first = fn.params[0].type
    if isinstance(first, PointerType) and isinstance(first.target, RecordType) and \
            first.target.is_complete:
        return first.target
    return None


def handle_parameter(fn: Function, record: RecordType) -> int | None:
    """The index of `fn`'s first parameter that points to `record` (const or not)."""
    for i, p in enumerate(fn.params):
        if isinstance(p.type, PointerType) and p.type.target is record:
            return i
    return None


def handle_input(ex: Executor, state: State, name: str, record: RecordType) -> list[Cell]:
    """The cells of the function's handle parameter `name`: a pointer to a zeroed object
    of `record` of the case's own (an input object: the case shows it and the run checks
    it after the call), never NULL."""
    oid = ex.new_object(state, f"*{name}", zero_cells(record.size))
    pointer = PtrVal(oid, zero64())
    state.pointees.append(Pointee(inputs.object_ident(name), oid, ArrayType(record, 1),
                                  pointer))
    return value_cells(pointer, 8)


@dataclass(frozen=True)
class SetupSite:
    """A setup call: the function, and its parameter that takes the handle (`at`, its
    index)."""

    function: str
    handle: Variable
    at: int


def setup_sites(program: Program, functions: tuple[str, ...], record: RecordType
                ) -> tuple[SetupSite, ...]:
    """The setup calls of `functions` (defined in the unit, each with a parameter that
    points to `record`, none variadic: `setup_for` checked)."""
    sites = []
    for name in functions:
        fn = program.cfgs[name].function
        at = handle_parameter(fn, record)
        assert at is not None
        sites.append(SetupSite(name, fn.params[at], at))
    return tuple(sites)


def push_setup_calls(ex: Executor, state: State, sites: tuple[SetupSite, ...],
                     handle: SymValue) -> None:
    """Push the frames of the setup calls on the state at the function's entry, the first
    of `sites` on top: each gets `handle`, and fresh inputs for its other parameters
    (`InputRoot` of kind "setup")."""
    frames = []
    for k, site in enumerate(sites):
        cfg = ex.program.cfgs[site.function]
        args: list[SymValue] = []
        for i, p in enumerate(cfg.function.params):
            if i == site.at:
                args.append(handle)
                continue
            cells = inputs.input_cells(ex, state, f"{site.function}.{p.name}", p.type,
                                       elements=cfg.declared_elements.get(p))
            value = memory.value_from_cells(cells, p.type)
            state.inputs.append(InputRoot("setup", p, None, value, call=k))
            args.append(value)
        frame = calls.new_frame(ex, state, cfg, args)
        frame.setup = True
        frames.append(frame)
    for frame in reversed(frames):
        state.frames.append(frame)
        ex.enter_locals(state, frame)
