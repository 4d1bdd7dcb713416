"""Symbolic execution of the IR: advances a state statement by statement until the next
branch whose outcome depends on the inputs, or until the function under test returns.

The Executor holds what one function's paths share (the program, the bounds, the objects
and callbacks made so far) and moves a path on; the semantics are in modules of their own:
statements.py and expressions.py (one handler per IR node), access.py (memory), inputs.py
and function_pointers.py (what the generator chooses), calls.py (the unit's functions,
libc, stubs, function pointers) and contracts.py (annotations and findings).
"""
from __future__ import annotations

import fnmatch
from collections.abc import Callable

import z3

from ..cases import LOOP_STOP
from ..errors import SourceLocation, UnsupportedError
from ..frontend.ctype import ArrayType, CType, RecordType, has_variable_size
from ..frontend.unit import GLOBAL, STATIC_LOCAL, Variable
from ..ir.cfg import Block, Edge
from ..ir.lower import Program
from ..ir.spec import Condition
from . import access, contracts, inputs, lazy, memory, setup_calls, statements
from .function_pointers import Callback
from .large_objects import SparseCells, copy_cells, is_large
from .memory import Cell, MemObject
from .paths import (
    AliasChoice,
    BoundReached,
    Finished,
    Fork,
    NeedChoice,
    OffsetChoice,
    PathError,
    ProgramEnds,
    ViolationLedger,
)
from .state import Frame, InputRoot, State
from .values import SymValue


class Executor:
    """Runs paths of one function under test."""

    def __init__(self, program: Program, function: str, max_depth: int = 64,
                 max_recursion: int = 32, max_steps: int = 20000, array_size: int = 10,
                 pointer_depth: int = 2, stub_globals: str = "modifies", proof: bool = False,
                 shown: Callable[[str], str] = str, overflow_is_finding: bool = False,
                 input_globals: tuple[str, ...] = (), setup: tuple[str, ...] = ()) -> None:
        self.program = program
        self.function = function
        self.cfg = program.cfgs[function]
        # the unit's functions a case calls first on its handle (symbolic/setup_calls.py),
        # the record they build and the function's parameter that points to it
        self.setup_record = setup_calls.handle_record(program.cfgs[setup[0]].function) \
            if setup else None
        self.setup_sites = setup_calls.setup_sites(program, setup, self.setup_record) \
            if self.setup_record is not None else ()
        self.setup_handle = setup_calls.handle_parameter(self.cfg.function, self.setup_record) \
            if self.setup_record is not None else None
        self.max_depth = max_depth
        self.max_recursion = max_recursion
        self.max_steps = max_steps
        self.array_size = array_size
        self.pointer_depth = pointer_depth
        self.unbounded = False  # ignore the unwinding bound (concrete completion of a path)
        # where a path ends that the harness stops in a loop: (id of the loop's CFG, its
        # body block, the outcomes of the function under test the path must have taken
        # first), see `begin_iteration`
        self.loop_stop: tuple[int, int, int] | None = None
        # record the outcomes paths take in called functions (`State.callee_edges`)
        self.record_callee_edges = False
        # a path with signed overflow (gcc wraps): a finding, or a note on its case
        self.overflow_is_finding = overflow_is_finding
        # why exploring every path within the bounds would still not prove unreachability
        self.approximation: str | None = None
        if self.setup_sites:  # proved of the states they build only, never of every input
            self.approximation = "the cases start from the states the setup calls build"
        self.objects_too_small = False  # a path needed a larger object behind an input pointer
        # how the object of an input pointer is made where a path found it must differ,
        # by the name of the object (or, for lazily made records, their type): its
        # element type (a record it lies in, with room before the pointer; a function
        # type: the input is a callback) and the pointer's byte offset in it; and what
        # paths of this executor found (inputs.want_placement, inputs.want_callback)
        self.placements: dict[str | RecordType, tuple[CType, int]] = {}
        self.placements_wanted: dict[str | RecordType, tuple[CType, int]] = {}
        self._next_object = 0
        # the name of each uninitialized local's unknown contents, numbered in the order
        # paths meet them (a memory address in a name would change z3's choices per run)
        self.garbage_names: dict[Variable, str] = {}
        # whether a path made an object nothing initialized (a local, a malloc'd block):
        # before that, no read can hold bytes nothing set
        self.made_uninitialized = False
        # input objects whose contents are being made: (id, array type), outermost first
        self.building: list[tuple[int, ArrayType]] = []
        self.contract = program.contracts.get(function)
        # the globals the function may write: its `__rtt_modifies` list (None: not stated)
        allowed = self.contract.modifies if self.contract is not None else None
        # the globals a stub call may write: all (`stub_globals="all"`), or those the
        # function may modify and the volatile ones
        writable = [v for v in program.unit.globals.values()
                    if v.kind == GLOBAL and not v.is_const and v.type.size > 0]
        self.stub_globals = [v for v in writable if stub_globals == "all" or v.is_volatile
                             or v.name in (allowed or ())]
        # a specification naming what its function modifies narrows that to those globals
        self.spec_globals = {
            name: [v for v in writable if v.is_volatile or v.name in spec.modifies]
            for name, spec in program.specs.items() if spec.modifies is not None}
        # the globals a case does not choose: each starts from its initializer, which
        # nothing of the unit or its stubs writes (a lookup table), unless the user names
        # it among `input_globals`
        stubs_write = {*self.stub_globals, *(v for vs in self.spec_globals.values() for v in vs)}
        self.initialized_globals = frozenset(
            v for v in program.static_inits
            if v.kind == GLOBAL and not v.is_const and not v.is_volatile
            and v not in program.init_failures and v not in program.written_globals
            and v not in stubs_write
            and not any(fnmatch.fnmatchcase(v.name, g) for g in input_globals))
        # the globals a case sets and checks even where its path leaves them alone: those
        # the function may write (a mutant of it, or a bug, may write them on any path)
        self.checked_globals = tuple(sorted(
            (v for v in program.globals_written_by(function)
             if self.is_input_global(v) and not v.is_volatile and not is_large(v.type)),
            key=lambda v: v.name))
        self.proof = proof  # also fork the paths that violate the precondition
        # the globals the function may not write
        self.forbidden = frozenset() if allowed is None else frozenset(
            v for v in writable if not v.is_volatile and v.name not in allowed)
        self.location: SourceLocation | None = None  # of the statement being executed
        # the conditions under which the expression being evaluated is (see
        # `expressions.guarded`)
        self.guards: list[z3.BoolRef] = []
        # the comparisons of the function under test whose value it uses as a number, by
        # the id of their expression (CFG.value_comparisons): a path notes each it
        # evaluates (State.value_tests); none unless boundary cases are wanted
        self.value_sites: dict[int, int] = {}
        # the integer operations of the function under test by the id of their expression
        # (CFG.integer_operations): a path notes the first evaluations of each
        # (State.operation_tests); none unless boundary cases are wanted
        self.operation_sites: dict[int, int] = {}
        # the assignments to integer locals of the function under test and its
        # comparisons, by the id of their node (CFG.local_assignments, CFG.comparisons): a
        # path notes the comparisons an assigned value decides (State.use_tests); none
        # unless boundary cases are wanted
        self.assignment_sites: dict[int, int] = {}
        self.comparison_sites: dict[int, int] = {}
        # the violations the generator has settled: no path is forked off for them
        self.ledger = ViolationLedger(None)
        self.shown = shown  # how a file name in a location is shown to the user
        # function pointers: the object standing for each function (see MemObject), the
        # callbacks of function-pointer inputs by C name, and each input's callback
        self.function_objects: dict[str, int] = {}
        self.callbacks: dict[str, Callback] = {}
        self.input_callbacks: dict[str, Callback] = {}
        # lazily made inputs (lazy.py): which records are linked, and the case names of
        # their objects with the pointer each is made for
        self.linked_records: dict[RecordType, bool] = {}
        self.indexed_records: set[RecordType] | None = None
        self.lazy_idents: dict[str, str] = {}

    def is_input_global(self, var: Variable) -> bool:
        """Whether a case chooses the contents of `var` at the start of the call: a
        file-scope variable neither const nor starting from its initializer."""
        return var.kind == GLOBAL and not var.is_const and var not in self.initialized_globals

    # ----------------------------------------------------------------- objects

    def new_object(self, state: State, name: str, cells: list[Cell] | SparseCells,
                   readonly: bool = False) -> int:
        oid = self.reserve_object()
        self.add_object(state, oid, name, cells, readonly)
        return oid

    def reserve_object(self) -> int:
        self._next_object += 1
        return self._next_object

    def add_object(self, state: State, oid: int, name: str, cells: list[Cell] | SparseCells,
                   readonly: bool = False) -> None:
        state.memory[oid] = MemObject(oid, name, len(cells), copy_cells(cells), readonly,
                                      state.token, initial=copy_cells(cells))

    def initial_state(self) -> State:
        """A state at the entry of the function under test, with symbolic parameters."""
        state = State()
        frame = Frame(self.cfg, self.cfg.entry)
        state.frames.append(frame)
        handle: SymValue | None = None
        for i, p in enumerate(self.cfg.function.params):
            try:
                if i == self.setup_handle and self.setup_record is not None:
                    cells = setup_calls.handle_input(self, state, p.name, self.setup_record)
                    handle = memory.value_from_cells(cells, p.type)
                else:
                    cells = inputs.input_cells(self, state, p.name, p.type,
                                               elements=self.cfg.declared_elements.get(p))
            except PathError as err:
                err.location = err.location or p.location
                raise
            if access.in_memory(self.cfg, p):
                oid = self.new_object(state, p.name, cells)
                frame.objects[p] = oid
                state.inputs.append(InputRoot("param", p, oid, None))
            else:
                value = memory.value_from_cells(cells, p.type)
                frame.registers[p] = value
                state.inputs.append(InputRoot("param", p, None, value))
        self.enter_locals(state, frame)
        if handle is not None and self.setup_record is not None:
            setup_calls.push_setup_calls(self, state, self.setup_sites, handle)
        return state

    def enter_locals(self, state: State, frame: Frame) -> None:
        """Create the memory objects of the frame's locals that live in memory."""
        for v in frame.cfg.locals:
            if v.kind == STATIC_LOCAL or has_variable_size(v.type):
                continue  # a variable length array's object is made by its Init
            if access.in_memory(frame.cfg, v):
                size = v.type.size
                frame.objects[v] = self.new_object(state, v.name,
                                                   inputs.garbage_object(self, v, size))

    # --------------------------------------------------------------- advancing

    def advance(self, state: State) -> Finished | Fork:
        """Run `state` until it returns from the function under test or reaches a branch
        whose outcome is not decided by the path so far."""
        try:
            return self._advance(state)
        except memory.OutOfBounds as err:
            term = state.frame.block.terminator if state.frames else None
            access.out_of_bounds(self, state, err,
                                 term.location if term is not None else None)
        except UnsupportedError as err:
            term = state.frame.block.terminator if state.frames else None
            raise PathError(err.message, err.location or (term.location if term else None),
                            unsupported=True) from None
        except PathError as err:
            if err.location is None and state.frames:
                term = state.frame.block.terminator
                err.location = term.location if term is not None else None
            raise

    def _advance(self, state: State) -> Finished | Fork:
        while True:
            frame = state.frame
            block = frame.block
            while frame.index < len(block.stmts):
                stmt = block.stmts[frame.index]
                frame.index += 1
                try:
                    statements.execute(self, state, stmt)
                except ProgramEnds as end:
                    if state.in_setup:  # not a state the function starts from
                        state.assume(z3.BoolVal(False))
                    state.ending = (end.how, end.status)
                    state.finished = True
                    return Finished(state)
                except NeedChoice as need:
                    # nothing of the statement took effect: it runs again after the choice
                    frame.index -= 1
                    return self.choice_fork(state, need.choice)
                except BoundReached as bound:
                    if bound.resumable:  # nor here: it runs again when the path runs on
                        frame.index -= 1
                    raise
                if state.frame is not frame:  # a call pushed a frame
                    break
            else:
                try:
                    decided = statements.terminate(self, state, block)
                except NeedChoice as need:
                    return self.choice_fork(state, need.choice)
                except ProgramEnds as end:  # the harness stops the path in a loop
                    state.ending = (end.how, None)
                    state.finished = True
                    return Finished(state)
                if decided is not None:
                    return decided

    def choice_fork(self, state: State, choice: AliasChoice | OffsetChoice) -> Fork:
        guards: list[z3.BoolRef | None] = []
        for c in choice.conditions:
            simple = z3.simplify(c)
            guards.append(None if z3.is_false(simple) else simple)
        return Fork(state, state.frame.block, guards, choice)

    def choose(self, state: State, choice: AliasChoice | OffsetChoice, index: int) -> None:
        """Take alternative `index` of `choice` on this path."""
        if isinstance(choice, AliasChoice):
            state.chosen[choice.pointer.choice] = index
        if isinstance(choice, AliasChoice) and choice.pointer.lazy_depth is not None:
            lazy.decide(self, state, choice.pointer, choice.alternatives[index])
        elif isinstance(choice, AliasChoice):
            state.aliases[choice.pointer.choice] = choice.alternatives[index]
        else:
            state.fixed_offsets[choice.offset.get_id()] = choice.values[index]
        state.assume(choice.conditions[index])

    def decide(self, state: State, block: Block, guards: list[z3.BoolRef | None]
               ) -> Fork | None:
        """Follow the only possible edge, or return a Fork when the inputs decide."""
        simplified: list[z3.BoolRef | None] = []
        for g in guards:
            s = z3.simplify(g) if g is not None else None
            simplified.append(None if s is None or z3.is_false(s) else s)
        live = [i for i, g in enumerate(simplified) if g is not None]
        if len(live) == 1 and z3.is_true(simplified[live[0]]):
            self.take(state, block, live[0], None)
            return None
        return Fork(state, block, simplified, written=list(guards))

    def take(self, state: State, block: Block, index: int, guard: z3.BoolRef | None,
             written: z3.BoolRef | None = None) -> None:
        """Take outgoing edge `index` of `block` (the current frame's terminator) under
        `guard`, which the code wrote as `written` (see `Fork.written`)."""
        frame = state.frame
        key = (len(state.frames), id(frame.cfg), block.id)
        if guard is not None:
            # the unwinding bound counts the passes the inputs decide: a loop whose
            # branches are all decided by constants (i < 64) runs to its end, bounded by
            # the path's length (max_steps) only
            decided = state.decisions.get(key, 0) + 1
            if decided > self.max_depth and not self.unbounded:
                raise BoundReached(f"loop unwound more than {self.max_depth} times",
                                   resumable=True)
            state.decisions[key] = decided
        state.visits[key] = state.visits.get(key, 0) + 1
        as_written = written if written is not None else guard
        if guard is not None:
            state.assume(guard)
            state.branch_conditions.append(as_written)
        if frame.cfg is self.cfg and len(state.frames) == 1:
            state.edges.append(Edge(block.id, index))
            if guard is not None:
                state.decided.append((block.id, as_written))
        elif self.record_callee_edges:
            state.callee_edges.append((id(frame.cfg), Edge(block.id, index)))
        term = block.terminator
        assert term is not None
        self.move(state, term.successors()[index])

    def move(self, state: State, target: Block) -> None:
        state.steps += 1
        if state.steps > self.max_steps:
            raise BoundReached(f"path longer than {self.max_steps} blocks")
        state.frame.block = target
        state.frame.index = 0
        if target.id in state.frame.cfg.loops:
            self.begin_iteration(state, target)

    def begin_iteration(self, state: State, body: Block) -> None:
        """A loop begins an iteration at its `body` block: count it, and stop the path
        there (ending LOOP_STOP) when it is the loop `loop_stop` names and the path has
        taken the outcomes it needs."""
        cfg = state.frame.cfg
        key = (id(cfg), body.id)
        n = state.loop_iterations.get(key, 0) + 1
        state.loop_iterations[key] = n
        stop = self.loop_stop
        if stop is not None and stop[:2] == key and len(state.edges) >= stop[2]:
            state.stopped_in = (cfg.loops[body.id], n - 1)
            raise ProgramEnds(LOOP_STOP)

    # ------------------------------------------------------------ annotations

    def on_entry(self, state: State, conditions: tuple[Condition, ...]
                 ) -> list[z3.BoolRef] | None:
        """Where `conditions` hold on entry (`state` is an initial state); None when one
        reads through an input pointer whose target is not decided yet."""
        try:
            return [contracts.holds(self, state, cond) for cond in conditions]
        except (NeedChoice, PathError, UnsupportedError, memory.OutOfBounds):
            return None

    def at(self, location: SourceLocation | None) -> str:
        """`location` as the user reads it: "file:line:col" with the file as shown."""
        if location is None:
            return "?"
        column = location.column
        return f"{self.shown(location.file)}:{location.line}" + (f":{column}" if column else "")
