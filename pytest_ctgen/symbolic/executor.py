"""Symbolic execution of the IR: advances a state statement by statement until the next
branch whose outcome depends on the inputs, or until the function under test returns.

Calls of functions defined in the unit are executed (inlined) in a new frame; calls of
undefined functions return a fresh symbolic value per call (the stub's choice), narrowed
by the function's specification when it has one. A call through a function pointer calls
the function it holds: one of the unit's, or the callback of a function-pointer input (a
stub of the pointer's type).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import z3

from ..cases import OBJECT_PREFIX, UNDEFINED, UNDEFINED_BEHAVIOUR, Violation
from ..errors import UnsupportedError
from ..frontend.ctype import (
    LONG, UCHAR, ULONG, ArrayType, CType, FloatType, FunctionType, IntType, PointerType,
    RecordType, VoidType, compatible, has_variable_size, prototype_of, strip_enum)
from ..frontend.unit import GLOBAL, STATIC_LOCAL, Variable, is_unsized_array
from ..ir.cfg import (
    CFG, Assign, Block, Branch, Call, Check, Edge, Eval, Goto, Init, Length, Return, Stmt,
    Switch, ZeroFill)
from ..ir.expr import (
    AddrOf, Binary, BitOp, Cast, Classify, Const, Deref, Expr, FunctionRef, Load, Logical,
    Member, OverflowFlag, PtrAdd, PtrDiff, Select, StringLit, Unary, VarRef, describe)
from ..ir.lower import Program
from ..ir.spec import Condition, StubSpec
from . import addresses, libc, memory, work
from .memory import MemObject, cells_of, zero_cells
from .state import Frame, InputRoot, Pointee, State, StubCallRecord, StubWrite
from .values import (
    AggVal, AliasPtr, Errors, PtrVal, SymValue, arithmetic, bit_builtin, bool_to_int,
    Undefined, classify, compare, constant, convert, exact_quotient, overflows,
    signed_overflow, truth, unary)


class PathError(Exception):
    """The path cannot become a case: it accesses memory outside an object or hits a
    construct the generator does not support."""

    def __init__(self, message: str, location: object = None, unsupported: bool = False):
        super().__init__(message)
        self.location = location
        self.unsupported = unsupported


class BoundReached(Exception):
    """The path exceeded the loop-unwinding, recursion or step bound. `resumable`: the
    state is as before the step the bound refused (a loop's back edge), so the path can
    run on from it without the bound."""

    def __init__(self, message: str, resumable: bool = False) -> None:
        super().__init__(message)
        self.resumable = resumable


#: How a path ends whose arguments violate the precondition of a specified stub.
PRECONDITION_VIOLATION = "precondition violation"
#: How a path ends that violates an `__rtt_assert`.
ASSERT_VIOLATION = "__rtt_assert violation"


class ProgramEnds(Exception):
    """The path called exit, abort or a failing assert: it ends there."""

    def __init__(self, how: str, status: SymValue | None = None) -> None:
        super().__init__(how)
        self.how = how
        self.status = status


ViolationKey = tuple[str, int, str]


@dataclass
class ViolationLedger:
    """Which violations (annotations, undefined behaviour; by `State.violations` key) a
    case shows, and how often each other one was looked for: a settled one gets no more
    paths forked off for it. Shared by the generator and its executors (data only: an
    executor holding its generator would be freed by the cycle collector at a moment that
    depends on the process, and z3 would reuse AST ids, and with them its choices,
    differently)."""

    tries_each: int | None  # None: every try (proof mode)
    shown: set[ViolationKey] = field(default_factory=set)
    tries: dict[ViolationKey, int] = field(default_factory=dict)

    def settled(self, key: ViolationKey) -> bool:
        return key in self.shown or (self.tries_each is not None
                                     and self.tries.get(key, 0) >= self.tries_each)


#: SV-COMP's assumption function: its argument is assumed, whether the unit defines it.
VERIFIER_ASSUME = "__VERIFIER_assume"


@dataclass(frozen=True, eq=False)
class AliasChoice:
    """Where an input pointer may point: alternative i under conditions[i]."""

    pointer: AliasPtr
    alternatives: tuple[PtrVal, ...]
    conditions: tuple[z3.BoolRef, ...]


@dataclass(frozen=True, eq=False)
class OffsetChoice:
    """Which of `values` a symbolic byte offset is, for an access that needs it concrete
    (a pointer or a struct at a computed position), or which size a variable length array
    or an `alloca` object has: value i under conditions[i]. For a size, the last values
    are BEYOND_BOUND (larger than the bound, which the search does not explore) and
    BELOW_MINIMUM (undefined, not explored either)."""

    offset: z3.BitVecRef
    values: tuple[int, ...]
    conditions: tuple[z3.BoolRef, ...]


#: The size of a variable length array or `alloca` object is larger than the bound.
BEYOND_BOUND = -1
#: The size of a variable length array is below its minimum (undefined).
BELOW_MINIMUM = -2


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


class _NeedChoice(Exception):
    """A statement needs a decision the path has not made: where an input pointer points,
    or which offset a symbolic offset is."""

    def __init__(self, choice: AliasChoice | OffsetChoice) -> None:
        super().__init__("choice")
        self.choice = choice


@dataclass
class Finished:
    state: State


@dataclass
class Fork:
    """The state stopped at a branch of `block` whose outcome depends on the inputs;
    `guards[i]` is the condition of outgoing edge i (None if the edge is impossible).
    With `choice`, the state stopped before a use of an input pointer that may alias:
    alternative i of the pointer is taken under `guards[i]` (see `Executor.choose`)."""

    state: State
    block: Block
    guards: list[z3.BoolRef | None]
    choice: AliasChoice | OffsetChoice | None = None


@dataclass
class _Mem:
    object_id: int
    offset: z3.BitVecRef
    bitfield: object = None  # ctype.Field of a bit-field member
    # through an input pointer: generated inputs never make the unit access outside an
    # object (DESIGN §4), so the path assumes it stays inside, never a finding
    assumed: bool = False


@dataclass
class _Reg:
    frame: Frame
    var: Variable


_ZERO64 = z3.BitVecVal(0, 64)


def _is_function_pointer(v: SymValue) -> bool:
    """Whether `v` is an input function pointer whose target the path has not decided."""
    return isinstance(v, AliasPtr) and isinstance(v.element, FunctionType)


def _shown_input(name: str) -> str:
    """An input's name as the user reads it: `ops->read` for `ops[][0].read` (the first
    element of what `ops` points to), `ops[2].read` for `ops[][2].read`."""
    name = re.sub(r"\[\]\[0\]\.", "->", name)
    return re.sub(r"\[\]\[(\d+)\]", r"[\1]", name)


def _same_element(a: CType, b: CType) -> bool:
    """Whether objects of element type `a` may be accessed through a pointer to `b` as
    arrays of the same elements: the same type, or both one-byte integers (a `char` buffer
    seen as `uint8_t`)."""
    if a == b or a is b:
        return True
    return isinstance(a, IntType) and isinstance(b, IntType) and a.size == b.size == 1 \
        and not a.is_bool and not b.is_bool


class Executor:
    """Runs paths of one function under test."""

    def __init__(self, program: Program, function: str, max_depth: int = 64,
                 max_recursion: int = 8, max_steps: int = 20000, array_size: int = 10,
                 pointer_depth: int = 2, stub_globals: str = "modifies", proof: bool = False,
                 shown: Callable[[str], str] = str, overflow_is_finding: bool = False
                 ) -> None:
        self.program = program
        self.function = function
        self.cfg = program.cfgs[function]
        self.max_depth = max_depth
        self.max_recursion = max_recursion
        self.max_steps = max_steps
        self.array_size = array_size
        self.pointer_depth = pointer_depth
        self.unbounded = False  # ignore the unwinding bound (concrete completion of a path)
        # a path with signed overflow (gcc wraps): a finding, or a note on its case
        self.overflow_is_finding = overflow_is_finding
        # why exploring every path within the bounds would still not prove unreachability
        self.approximation: str | None = None
        self.objects_too_small = False  # a path needed a larger object behind an input pointer
        self._next_object = 0
        # the name of each uninitialized local's unknown contents, numbered in the order
        # paths meet them (a memory address in a name would change z3's choices per run)
        self._garbage_names: dict[Variable, str] = {}
        # input objects whose contents are being made: (id, array type), outermost first
        self._building: list[tuple[int, ArrayType]] = []
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
        self.proof = proof  # also fork the paths that violate the precondition
        # the globals the function may not write
        self.forbidden = frozenset() if allowed is None else frozenset(
            v for v in writable if not v.is_volatile and v.name not in allowed)
        self.location: object = None  # of the statement being executed
        # the conditions under which the expression being evaluated is (see `guarded`)
        self._guards: list[z3.BoolRef] = []
        # the violations the generator has settled: no path is forked off for them
        self.ledger = ViolationLedger(None)
        self.shown = shown  # how a file name in a location is shown to the user
        # function pointers: the object standing for each function (see MemObject), the
        # callbacks of function-pointer inputs by C name, and each input's callback
        self._function_objects: dict[str, int] = {}
        self.callbacks: dict[str, Callback] = {}
        self._input_callbacks: dict[str, Callback] = {}

    # ------------------------------------------------------------------ states

    def new_object(self, state: State, name: str, cells: list, readonly: bool = False
                   ) -> int:
        oid = self.reserve_object()
        self.add_object(state, oid, name, cells, readonly)
        return oid

    def reserve_object(self) -> int:
        self._next_object += 1
        return self._next_object

    def add_object(self, state: State, oid: int, name: str, cells: list,
                   readonly: bool = False) -> None:
        state.memory[oid] = MemObject(oid, name, len(cells), list(cells), readonly,
                                      state.token, initial=list(cells))

    def initial_state(self) -> State:
        """A state at the entry of the function under test, with symbolic parameters."""
        state = State()
        frame = Frame(self.cfg, self.cfg.entry)
        state.frames.append(frame)
        for p in self.cfg.function.params:
            try:
                cells = self.input_cells(state, p.name, p.type)
            except PathError as err:
                err.location = err.location or p.location
                raise
            if self.in_memory(self.cfg, p):
                oid = self.new_object(state, p.name, cells)
                frame.objects[p] = oid
                state.inputs.append(InputRoot("param", p, oid, None))
            else:
                value = memory.value_from_cells(cells, p.type)
                frame.registers[p] = value
                state.inputs.append(InputRoot("param", p, None, value))
        self.enter_locals(state, frame)
        return state

    def input_cells(self, state: State, name: str, ctype: CType, depth: int = 0) -> list:
        """Fresh symbolic contents for an input object of type `ctype`. A pointer points
        to a fresh object of `array_size` elements, or is NULL (a solver choice); pointers
        nested deeper than `pointer_depth` are NULL."""
        if isinstance(ctype, IntType):
            v = z3.BitVec(name, ctype.bits)
            if ctype.is_bool:
                state.assume(z3.ULE(v, 1))
            return [(v, i) for i in range(ctype.size)]
        if isinstance(ctype, FloatType):
            bits = z3.BitVec(name, ctype.size * 8)
            v = z3.fpBVToFP(bits, z3.Float32() if ctype.size == 4 else z3.Float64())
            return [(v, i) for i in range(ctype.size)]
        if isinstance(ctype, ArrayType):
            out: list = []
            for i in range(ctype.count or 0):
                out.extend(self.input_cells(state, f"{name}[{i}]", ctype.element, depth))
            return out
        if isinstance(ctype, RecordType):
            if ctype.is_union or any(f.is_bitfield for f in ctype.fields):
                v = z3.BitVec(name, ctype.size * 8)
                return [(v, i) for i in range(ctype.size)]
            cells = zero_cells(ctype.size)
            for f in ctype.fields:
                sub = self.input_cells(state, f"{name}.{f.name}", f.type, depth)
                cells[f.offset:f.offset + len(sub)] = sub
            return cells
        if isinstance(ctype, PointerType):
            return self.pointer_input(state, name, ctype, depth)
        raise PathError(f"input '{name}' of type {ctype}", unsupported=True)

    def pointer_input(self, state: State, name: str, ctype: PointerType, depth: int) -> list:
        """An input pointer: NULL (a solver choice), or into an object of `array_size`
        elements of its own, or, decided when the path first uses it, into another object
        of its element type (an `AliasPtr`). Beyond `pointer_depth` it has no object of its
        own: it is NULL or points into an object that contains it or another input's."""
        target = ctype.target
        if isinstance(target, FunctionType):
            return self.function_pointer_input(state, name, target, depth)
        while has_variable_size(target):  # rows of a size known on entry: their elements
            assert isinstance(target, ArrayType)
            target = target.element
        if isinstance(target, VoidType) or not target.is_complete:
            target = UCHAR
        null = z3.Bool(f"{name}==NULL")
        containers = tuple(oid for oid, _ in self._building)
        ident = OBJECT_PREFIX + "".join(c if c.isalnum() else "_" for c in name)
        if depth < self.pointer_depth:
            array = ArrayType(target, self.array_size)
            oid = self.reserve_object()
            self._building.append((oid, array))
            try:
                cells = self.input_cells(state, f"{name}[]", array, depth + 1)
            finally:
                self._building.pop()
            self.add_object(state, oid, f"*{name}", cells)
            ptr = AliasPtr(f"{name}->", PtrVal(oid, _ZERO64, null), target, null, depth,
                           containers)
            state.pointees.append(Pointee(ident, oid, array, ptr, depth))
            return [(ptr, i) for i in range(8)]
        fallback = None
        for oid, array in self._building:
            if _same_element(array.element, target):
                fallback = oid
                break
        else:
            for p in state.pointees:
                if p.depth == 0 and p.type is not None and \
                        _same_element(p.type.element, target):
                    fallback = p.object_id
                    break
        if fallback is None:
            beyond = PtrVal(None, _ZERO64, beyond_depth=True)
            return [(beyond, i) for i in range(8)]
        ptr = AliasPtr(f"{name}->", None, target, null, depth, containers,
                       PtrVal(fallback, _ZERO64, null))
        state.pointees.append(Pointee(ident, None, None, ptr, depth))
        return [(ptr, i) for i in range(8)]

    def alias_choice(self, state: State, ptr: AliasPtr) -> AliasChoice:
        """Where `ptr` may point: its own object first, then into the objects that contain
        it, the pointees of other inputs (for a pointer inside a pointee, only those of
        parameters and globals), and the unit's globals, each at an offset inside, aligned
        to the element."""
        if isinstance(ptr.element, FunctionType):
            return self.function_choice(state, ptr)
        own = ptr.own.base if ptr.own is not None else None
        by_object = {p.object_id: p for p in state.pointees if p.object_id is not None}
        targets: list[int] = []
        for oid in ptr.containers:
            p = by_object.get(oid)
            if p is not None and p.type is not None and \
                    _same_element(p.type.element, ptr.element):
                targets.append(oid)
        for p in state.pointees:
            if p.object_id is None or p.object_id == own or p.object_id in targets:
                continue
            if ptr.depth > 0 and p.depth > 0:
                continue
            if p.type is not None and _same_element(p.type.element, ptr.element):
                targets.append(p.object_id)
        for var in self.program.unit.globals.values():
            if var.kind != GLOBAL or var.is_const:
                continue
            t = var.type
            element = t.element if isinstance(t, ArrayType) else t
            if _same_element(element, ptr.element) and t.size > 0:
                targets.append(self.global_object(state, var))
        alternatives: list[PtrVal] = []
        conditions: list[z3.BoolRef] = []
        if ptr.own is not None:
            alternatives.append(ptr.own)
            conditions.append(z3.BoolVal(True))
        size = ptr.element.size  # type: ignore[attr-defined]
        for oid in targets:
            obj = state.memory[oid]
            # an element index, so the offset's shape tells accesses through it where
            # they can land (see memory.known_residue)
            index = z3.BitVec(f"{ptr.choice}{obj.name}.index", 64)
            offset = index * size if size > 1 else index
            alternatives.append(PtrVal(oid, offset, ptr.null))
            conditions.append(z3.ULE(index, obj.size // max(1, size)))
        return AliasChoice(ptr, tuple(alternatives), tuple(conditions))

    def in_memory(self, cfg: CFG, var: Variable) -> bool:
        return var in cfg.address_taken or not var.type.is_scalar

    def enter_locals(self, state: State, frame: Frame) -> None:
        """Create the memory objects of the frame's locals that live in memory."""
        for v in frame.cfg.locals:
            if v.kind == STATIC_LOCAL or has_variable_size(v.type):
                continue  # a variable length array's object is made by its Init
            if self.in_memory(frame.cfg, v):
                size = v.type.size
                frame.objects[v] = self.new_object(state, v.name, self.garbage(v, size))

    def garbage(self, var: Variable, size: int) -> list:
        """Contents of an uninitialized object: unknown, the same on every path. An
        uninitialized pointer is modelled as NULL: using it is undefined anyway."""
        if isinstance(var.type, PointerType):
            return [(PtrVal(None, _ZERO64), i) for i in range(size)]
        if size == 0:
            return []
        name = self._garbage_names.setdefault(
            var, f"uninit.{var.name}.{len(self._garbage_names)}")
        v = z3.BitVec(name, size * 8)
        return [(v, i) for i in range(size)]

    def global_object(self, state: State, var: Variable) -> int:
        """The object of a global or static local, created on first use: inputs for
        non-const globals, the initializer's contents for const globals and static locals."""
        oid = state.globals.get(var)
        if oid is not None:
            return oid
        inits = self.program.static_inits.get(var)
        is_input = var.kind == GLOBAL and not var.is_const
        failure = self.program.init_failures.get(var)
        if failure is not None and not is_input:
            raise PathError(f"the initializer of '{var.name}' is not supported: "
                            f"{failure.message}", failure.location, unsupported=True)
        if is_input and is_unsized_array(var.type):
            raise PathError(f"extern array '{var.name}' of unknown size, defined by no file "
                            "of the build", unsupported=True)
        if is_input:
            cells = self.input_cells(state, var.name, var.type)
        else:
            cells = zero_cells(var.type.size)
        oid = self.new_object(state, var.name, cells, readonly=var.is_const)
        state.globals[var] = oid
        if is_input:
            state.inputs.append(InputRoot("global", var, oid, None))
        elif inits:
            location = self.location  # of the statement that uses the global
            for stmt in inits:
                self.execute(state, stmt, initializing=True)
            self.location = location
            state.memory[oid].initial = list(state.memory[oid].cells)
        elif var.is_const and var.is_extern:
            raise PathError(f"const global '{var.name}' has no initializer in the unit",
                            unsupported=True)
        return oid

    # --------------------------------------------------------------- advancing

    def advance(self, state: State) -> Finished | Fork:
        """Run `state` until it returns from the function under test or reaches a branch
        whose outcome is not decided by the path so far."""
        try:
            return self._advance(state)
        except memory.OutOfBounds as err:
            term = state.frame.block.terminator if state.frames else None
            self.out_of_bounds(state, err, term.location if term is not None else None)
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
                    self.execute(state, stmt)
                except ProgramEnds as end:
                    state.ending = (end.how, end.status)
                    state.finished = True
                    return Finished(state)
                except _NeedChoice as need:
                    # nothing of the statement took effect: it runs again after the choice
                    frame.index -= 1
                    return self.choice_fork(state, need.choice)
                if state.frame is not frame:  # a call pushed a frame
                    break
            else:
                try:
                    decided = self.terminate(state, block)
                except _NeedChoice as need:
                    return self.choice_fork(state, need.choice)
                if decided is not None:
                    return decided

    def terminate(self, state: State, block: Block) -> Finished | Fork | None:
        """Run the terminator of the current block: None when the path went on."""
        term = block.terminator
        self.location = term.location if term is not None else self.location
        if isinstance(term, Goto):
            self.move(state, term.target)
        elif isinstance(term, Return):
            if self.contract is not None and len(state.frames) == 1:
                self.check_contract(state, term)
            if self.do_return(state, term):
                return Finished(state)
        elif isinstance(term, Branch):
            c = self.truth(state, term.cond.type, self.eval(state, term.cond))
            guards: list[z3.BoolRef | None] = [c, z3.Not(c)]
            return self.decide(state, block, guards)
        elif isinstance(term, Switch):
            v = self.eval(state, term.value)
            assert isinstance(v, z3.BitVecRef)
            case_guards: list[z3.BoolRef | None] = []
            all_values = []
            for values, _ in term.cases:
                t = term.value.type
                assert isinstance(t, IntType)
                conds = [v == z3.BitVecVal(x & ((1 << t.bits) - 1), t.bits)
                         for x in values]
                all_values.extend(conds)
                case_guards.append(z3.Or(*conds) if len(conds) > 1 else conds[0])
            case_guards.append(z3.Not(z3.Or(*all_values)) if all_values
                               else z3.BoolVal(True))
            return self.decide(state, block, case_guards)
        else:
            raise PathError("block without terminator")
        return None

    def choice_fork(self, state: State, choice: AliasChoice | OffsetChoice) -> Fork:
        guards: list[z3.BoolRef | None] = []
        for c in choice.conditions:
            simple = z3.simplify(c)
            guards.append(None if z3.is_false(simple) else simple)
        return Fork(state, state.frame.block, guards, choice)

    def choose(self, state: State, choice: AliasChoice | OffsetChoice, index: int) -> None:
        """Take alternative `index` of `choice` on this path."""
        if isinstance(choice, AliasChoice):
            state.aliases[choice.pointer.choice] = choice.alternatives[index]
        else:
            state.fixed_offsets[choice.offset.get_id()] = choice.values[index]
        state.assume(choice.conditions[index])

    def fixed_offset(self, state: State, obj: MemObject, offset: z3.BitVecRef,
                     size: int, align: int, start: int = 0) -> z3.BitVecRef:
        """`offset` as a constant for an access of `size` bytes that cannot be made at a
        symbolic offset (a pointer, a struct, a bit-field); it can be `start` plus a
        multiple of `align`. Raises _NeedChoice when the path has not decided which."""
        off = z3.simplify(offset)
        if z3.is_bv_value(off):
            return off
        k = state.fixed_offsets.get(off.get_id())
        if k is not None:
            return z3.BitVecVal(k, 64)
        values = tuple(range(start % max(1, align), obj.size - size + 1, max(1, align)))
        if not values:
            raise memory.OutOfBounds(f"access of {size} bytes in '{obj.name}' "
                                     f"({obj.size} bytes)", obj.id)
        raise _NeedChoice(OffsetChoice(off, values, tuple(off == k for k in values)))

    def length(self, state: State, stmt: Length) -> int:
        """The size `stmt` evaluates, as a number: a symbolic one is fixed on the path,
        a choice of each feasible value from `stmt.minimum` up to the bound (the input
        arrays' `array_size`), and one beyond, where the search stops at the bound. A
        size below the minimum is undefined: no path has it, and an outcome only such a
        size would reach is left as not reached (gcc runs the code), never unreachable."""
        value = self.eval(state, stmt.value)
        t = stmt.value.type
        assert isinstance(value, z3.BitVecRef) and isinstance(t, IntType)
        simple = z3.simplify(value)
        if z3.is_bv_value(simple):
            count: int | None = simple.as_signed_long() if t.signed else simple.as_long()
        else:
            count = state.fixed_offsets.get(simple.get_id())
            if count == BEYOND_BOUND:
                self.objects_too_small = True
                raise BoundReached(f"variable length arrays and alloca objects hold at most "
                                   f"{self.array_size} elements")
        if count == BELOW_MINIMUM or (count is not None and count < stmt.minimum):
            self.approximation = "paths where a variable length array has no elements " \
                "(undefined) are not explored"
            raise PathError("a variable length array of no elements, which is undefined")
        if count is not None:
            return count
        values = tuple(range(stmt.minimum, self.array_size + 1))
        bound = z3.BitVecVal(self.array_size, simple.size())
        beyond = simple > bound if t.signed else z3.UGT(simple, bound)
        below = simple < stmt.minimum if t.signed else z3.ULT(simple, stmt.minimum)
        raise _NeedChoice(OffsetChoice(
            simple, values + (BEYOND_BOUND, BELOW_MINIMUM),
            tuple(simple == k for k in values) + (beyond, below)))

    def resolve(self, state: State, v: SymValue) -> SymValue:
        """`v` with an input pointer's aliasing decided; raises _NeedChoice when the path
        has not decided it yet and there is more than its own object to choose from."""
        if not isinstance(v, AliasPtr):
            return v
        decided = state.aliases.get(v.choice)
        if decided is not None:
            return decided
        choice = self.alias_choice(state, v)
        if len(choice.alternatives) == 1 and z3.is_true(choice.conditions[0]):
            state.aliases[v.choice] = choice.alternatives[0]
            return choice.alternatives[0]
        raise _NeedChoice(choice)

    def out_of_bounds(self, state: State, err: memory.OutOfBounds, location: object) -> None:
        """Raise what an access outside an object means: outside an input pointer's object
        (whose size the generator chose), a bound of the search; outside an object the
        unit defines, a finding, and this path ends."""
        if err.object_id in state.input_objects():
            self.objects_too_small = True
            raise BoundReached(f"input pointers point to {self.array_size} elements")
        obj = state.memory[err.object_id]
        if not err.assumed and obj.size > 0:
            self.location = location or self.location
            self.finding(state, z3.BoolVal(True), f"out-of-bounds {err}",
                         f"out of '{obj.name}'")
        raise PathError(f"out-of-bounds access: {err}", location)

    def access(self, state: State, loc: _Mem, obj: MemObject, what: str,
               operation: Callable[[], tuple]) -> tuple:
        """`operation()`, a memory.read or memory.write of `obj` at `loc`, and what its
        last two results say: where the access can leave the object (at a symbolic
        offset), through an input pointer or of an input pointer's object a bound the path
        assumes, else a finding; where it would read the bytes of a pointer as a number
        (`readable`), not modelled. Returns the results before those two (a read's value);
        an OutOfBounds it raises is marked as through an input pointer when it is."""
        try:
            *results, in_bounds, readable = operation()
        except memory.OutOfBounds as err:
            err.assumed = loc.assumed
            raise
        if in_bounds is not None:
            if loc.assumed or obj.id in state.input_objects() or obj.size == 0:
                state.assume_in_bounds(obj.id, in_bounds)
            else:
                self.finding(state, z3.Not(in_bounds), f"out-of-bounds {what} '{obj.name}' "
                             f"({obj.size} bytes)", f"out of '{obj.name}'")
                state.assume(in_bounds)
        state.assume(readable)
        return tuple(results)

    def dereference(self, state: State, p: PtrVal, error: str) -> None:
        """`p` is dereferenced (`error` names what that is when it is NULL): NULL is a
        finding where the path may have it there (a NULL constant, or an input pointer the
        path tested for NULL); an input pointer the path never tested is assumed to point
        to its object."""
        self.within_depth(p)
        if p.is_null:
            self.finding(state, z3.BoolVal(True), error)
            raise PathError(error)
        if p.null is not None:
            if str(p.null) in state.null_tested:
                self.finding(state, p.null, error)
                state.assume(z3.Not(p.null))
                return
            before = len(state.constraints)
            state.assume(z3.Not(p.null))
            state.not_null.extend(state.constraints[before:])

    def truth(self, state: State, t: CType, v: SymValue) -> z3.BoolRef:
        """The condition `v != 0`; a pointer tested so may be NULL where it is used next
        (see `dereference`)."""
        self.within_depth(v)
        self.tested(state, v)
        return truth(t, v)

    def within_depth(self, v: SymValue) -> None:
        """Raise BoundReached when `v` stands for an input pointer nested deeper than the
        objects the search makes (its NULL is no value the code could see)."""
        if isinstance(v, PtrVal) and v.beyond_depth:
            raise BoundReached(f"input pointers nested more than {self.pointer_depth} "
                               "levels deep")

    @staticmethod
    def tested(state: State, v: SymValue) -> None:
        """The path tests whether the input pointer `v` is NULL."""
        if isinstance(v, (PtrVal, AliasPtr)) and v.null is not None:
            state.null_tested.add(str(v.null))

    def undefined_unless(self, state: State, errors: Errors, text: str) -> None:
        """The operation `text` is undefined under each of `errors`: the path into one is
        a finding (see `finding`); this path goes on where the operation is defined."""
        for error in errors:
            self.finding(state, error.condition, f"{error.what} in {text}")
            state.assume(z3.Not(error.condition))

    def finding(self, state: State, condition: z3.BoolRef, what: str,
                site: str | None = None) -> None:
        """Where `condition` holds, the path runs into the undefined behaviour `what` at
        the current statement: that path is kept as a case of its own that ends there
        (DESIGN §4), never a reason to call the code behind it unreachable. One case per
        statement and `site` (what the error is, without the details of one path)."""
        at = self.at(self.location)
        violated = z3.And(*self._guards, condition) if self._guards else condition
        # no note: the case's violation names it (Case.finding)
        violating = self.fork_violation(state, (UNDEFINED, 0, f"{at}: {site or what}"),
                                        violated, "", Violation(UNDEFINED, at, what))
        if violating is not None:
            violating.ending = (UNDEFINED_BEHAVIOUR, None)
            violating.finished = True

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
        return Fork(state, block, simplified)

    def take(self, state: State, block: Block, index: int, guard: z3.BoolRef | None) -> None:
        """Take outgoing edge `index` of `block` (the current frame's terminator)."""
        frame = state.frame
        key = (len(state.frames), id(frame.cfg), block.id)
        count = state.visits.get(key, 0) + 1
        if count > self.max_depth and not self.unbounded:
            raise BoundReached(f"loop unwound more than {self.max_depth} times",
                               resumable=True)
        state.visits[key] = count
        if guard is not None:
            state.assume(guard)
        if frame.cfg is self.cfg and len(state.frames) == 1:
            state.edges.append(Edge(block.id, index))
        term = block.terminator
        assert term is not None
        self.move(state, term.successors()[index])

    def move(self, state: State, target: Block) -> None:
        state.steps += 1
        if state.steps > self.max_steps:
            raise BoundReached(f"path longer than {self.max_steps} blocks")
        state.frame.block = target
        state.frame.index = 0

    def do_return(self, state: State, term: Return) -> bool:
        """Pop the frame; True when the function under test returned."""
        frame = state.frame
        value = None
        if term.value is not None:
            value = self.eval(state, term.value)
        state.frames.pop()
        if state.frames:
            state.callee_returns.append((id(frame.cfg), frame.block.id))
        if not state.frames:
            state.result = value
            state.finished = True
            return True
        if frame.return_target is not None:
            if value is None:
                raise PathError(f"'{frame.cfg.function.name}' returned no value",
                                term.location)
            self.store(state, frame.return_target, value)
        return False

    # -------------------------------------------------------------- statements

    def execute(self, state: State, stmt: Stmt, initializing: bool = False) -> None:
        self.location = stmt.location
        work.tally(1)
        try:
            if isinstance(stmt, Assign):
                value = self.eval(state, stmt.value)
                self.store(state, stmt.target, value, initializing)
            elif isinstance(stmt, ZeroFill):
                loc = self.locate(state, stmt.target)
                assert isinstance(loc, _Mem)
                obj = state.writable(loc.object_id)
                self.access(state, loc, obj, "write to", lambda: memory.write(
                    obj, loc.offset, stmt.target.type,
                    AggVal(tuple(zero_cells(stmt.target.type.size)))))
                if not initializing:
                    state.written_objects.add(loc.object_id)
            elif isinstance(stmt, Init):
                frame = state.frame
                if stmt.size is not None:
                    size = self.eval(state, stmt.size)
                    assert isinstance(size, z3.BitVecRef)
                    size = z3.simplify(size)
                    if not z3.is_bv_value(size):  # its counts are fixed by `Length`
                        raise PathError(f"an object of size {size}", unsupported=True)
                    frame.objects[stmt.var] = self.new_object(
                        state, stmt.var.name, self.garbage(stmt.var, size.as_long()))
                elif stmt.var in frame.objects:
                    obj = state.writable(frame.objects[stmt.var])
                    obj.cells = self.garbage(stmt.var, obj.size)
                else:
                    frame.registers[stmt.var] = memory.value_from_cells(
                        self.garbage(stmt.var, stmt.var.type.size), stmt.var.type)
            elif isinstance(stmt, Length):
                state.frame.registers[stmt.var] = z3.BitVecVal(self.length(state, stmt), 64)
            elif isinstance(stmt, Call):
                self.call(state, stmt)
            elif isinstance(stmt, Check):
                self.check(state, stmt)
            elif isinstance(stmt, Eval):
                # gcc -O0 does not compute it, but C does: what it does that is undefined
                # is a finding, and the path goes on where it is defined
                self.eval(state, stmt.value)
        except memory.OutOfBounds as err:
            self.out_of_bounds(state, err, stmt.location)
        except PathError as err:
            err.location = err.location or stmt.location
            raise
        except UnsupportedError as err:
            raise PathError(err.message, err.location or stmt.location,
                            unsupported=True) from None

    def call(self, state: State, stmt: Call) -> None:
        if stmt.pointer is not None:
            self.indirect_call(state, stmt)
            return
        cfg = self.program.cfgs.get(stmt.function)
        args = [self.eval(state, a) for a in stmt.args]
        if stmt.target is not None:
            self.locate(state, stmt.target)  # decide its pointers' aliasing before the call
        if stmt.function == VERIFIER_ASSUME:
            # SV-COMP's assumption: inputs violating it are not of interest
            state.assume(self.truth(state, stmt.args[0].type, args[0]))
            if cfg is None:
                self.stub_call(state, stmt, args)
            return
        spec = self.program.specs.get(stmt.function)
        if spec is not None:
            self.specified_call(state, stmt, spec, self.resolve_arguments(state, args))
            return
        if cfg is not None:
            self.enter(state, stmt, cfg, args)
            return
        failure = self.program.failures.get(stmt.function)
        if failure is not None:
            raise PathError(f"calls '{stmt.function}', which is not supported: "
                            f"{failure}", stmt.location, unsupported=True)
        fn = self.program.unit.functions.get(stmt.function)
        if fn is None:
            raise PathError(f"call of unknown function '{stmt.function}'", stmt.location,
                            unsupported=True)
        ending = libc.PATH_ENDS.get(stmt.function)
        if ending is not None:
            status = args[0] if ending == "exit" and args else None
            raise ProgramEnds(ending, status)
        args = self.resolve_arguments(state, args)
        model = libc.MODELS.get(stmt.function)
        if model is not None and fn.is_library:
            before = set(state.written_objects) if self.forbidden else None
            value = model(state, args, fn.type)
            for oid in state.written_objects - before if before is not None else ():
                self.note_write(state, oid)
            if stmt.target is not None and value is not None:
                self.store(state, stmt.target, value)
            return
        self.stub_call(state, stmt, args)

    def resolve_arguments(self, state: State, args: list[SymValue]) -> list[SymValue]:
        """The arguments of a stub or library call with the aliasing of input pointers
        decided, but for function pointers: a stub does not call them."""
        return [a if _is_function_pointer(a) else self.resolve(state, a) for a in args]

    def enter(self, state: State, stmt: Call, cfg: CFG, args: list[SymValue]) -> None:
        """Call a function defined in the unit: push its frame."""
        depth = sum(1 for f in state.frames if f.cfg is cfg)
        if depth >= self.max_recursion:
            raise BoundReached(f"recursion of '{stmt.function}' deeper than "
                               f"{self.max_recursion}")
        frame = Frame(cfg, cfg.entry, return_target=stmt.target)
        for p, a in zip(cfg.function.params, args):
            if self.in_memory(cfg, p):
                frame.objects[p] = self.new_object(state, p.name, cells_of(a, p.type))
            else:
                frame.registers[p] = a
        if cfg.variadic_area is not None:  # the call passes it after the named arguments
            frame.registers[cfg.variadic_area] = args[len(cfg.function.params)]
        state.frames.append(frame)
        self.enter_locals(state, frame)

    def stub_call(self, state: State, stmt: Call, args: list[SymValue],
                  store: bool = True, callee: StubSignature | None = None
                  ) -> SymValue | None:
        """Call k of an undefined function (or of a callback, `callee`): the generator
        chooses its result, what it writes through its pointer parameters, and the globals
        it may write. The result is stored into the call's target unless `store` is false;
        it is returned."""
        if callee is None:
            fn = self.program.unit.functions[stmt.function]
            callee = StubSignature(fn.name, fn.type, tuple(p.name for p in fn.params))
        name = callee.name
        index = sum(1 for c in state.stub_calls if c.name == name)
        rtype = callee.type.result
        result: SymValue | None = None
        if not isinstance(rtype, VoidType):
            cells = self.input_cells(state, f"{name}#{index}", rtype)
            result = memory.value_from_cells(cells, rtype)
        writes = self.stub_writes(state, callee, index, args)
        writes += self.stub_global_writes(state, name, index)
        state.stub_calls.append(StubCallRecord(name, index, rtype, result, writes))
        if store and stmt.target is not None and result is not None:
            self.store(state, stmt.target, result)
        return result

    def specified_call(self, state: State, stmt: Call, spec: StubSpec,
                       args: list[SymValue]) -> None:
        """A stub call of a function with a specification: its preconditions are assumed
        of the arguments, its postconditions of what the stub returns and writes. The
        conditions are evaluated in a frame of the specification, whose parameters hold
        the arguments."""
        frame = Frame(spec.cfg, spec.cfg.entry)
        for p, a in zip(spec.cfg.function.params, args):
            if self.in_memory(spec.cfg, p):
                frame.objects[p] = self.new_object(state, p.name, cells_of(a, p.type))
            else:
                frame.registers[p] = a
        state.frames.append(frame)
        try:
            for var, e in spec.initials:
                frame.registers[var] = self.eval(state, e)
            pre = [self.holds(state, cond) for cond in spec.preconditions]
            if pre:
                self.note_violation(state, stmt, z3.Not(z3.And(*pre)))
            for condition in pre:
                state.assume(condition)
            result = self.stub_call(state, stmt, args, store=False)
            if spec.result is not None and result is not None:
                frame.registers[spec.result] = result
            try:
                for cond in spec.postconditions:
                    state.assume(self.holds(state, cond))
            except _NeedChoice:  # the call took effect: it cannot run again after a choice
                raise PathError("a postcondition that reads through a pointer whose target "
                                "is not decided", spec.postconditions[0].location,
                                unsupported=True) from None
        finally:
            state.frames.pop()
        if stmt.target is not None and result is not None:
            self.store(state, stmt.target, result)

    def note_violation(self, state: State, stmt: Call, violated: z3.BoolRef) -> None:
        """Keep the path on which the arguments of this call violate the stub's
        precondition: it ends at the call, a contract violation of the unit."""
        index = sum(1 for c in state.stub_calls if c.name == stmt.function)
        fn = self.program.unit.functions[stmt.function]
        violating = self.fork_violation(
            state, (stmt.function, index, str(stmt.location)), violated,
            f"violates the precondition of {stmt.function} at call {index + 1}: a contract "
            f"violation of the unit, or a specification too narrow")
        if violating is None:
            return
        violating.frames.pop()  # the specification's frame
        violating.stub_calls.append(StubCallRecord(stmt.function, index, fn.type.result, None))
        violating.ending = (PRECONDITION_VIOLATION, None)
        violating.finished = True

    def fork_violation(self, state: State, key: tuple[str, int, str], violated: z3.BoolRef,
                       note: str, violation: Violation | None = None) -> State | None:
        """The path that leaves `state` here under `violated`, kept for the generator to
        make a case of (see `State.violations`); None when `violated` is false."""
        if self.ledger.settled(key) or z3.is_false(z3.simplify(violated)):
            return None
        violating = state.fork()
        violating.assume(violated)
        violating.violations = []
        if violation is not None:
            violating.predicted.append(violation)
        state.violations.append((key, violating, note))
        return violating

    # ------------------------------------------------------------ annotations

    def check(self, state: State, stmt: Check) -> None:
        """A precondition (assumed; in proof mode its violation is forked off as a
        robustness path) or an `__rtt_assert` (its violation is forked off, ending there)."""
        c = self.truth(state, stmt.cond.type, self.eval(state, stmt.cond))
        at = self.at(stmt.location)
        if stmt.kind == "precondition":
            if len(state.frames) != 1:
                return  # a callee's: the compiled code does not check it either
            if self.proof:
                robust = self.fork_violation(
                    state, ("robustness", 0, at), z3.Not(c),
                    f"robustness case: violates the precondition {stmt.text} ({at}); its "
                    f"postconditions and test cases are not checked")
                if robust is not None:
                    robust.robustness = True
            state.assume(c)
            return
        violating = self.fork_violation(
            state, ("assert", 0, at), z3.Not(c),
            f"violates __rtt_assert({stmt.text}) at {at}",
            Violation("assert", at, stmt.text))
        if violating is not None:
            violating.ending = (ASSERT_VIOLATION, None)
            violating.finished = True
        state.assume(c)

    def at(self, location: object) -> str:
        """`location` as the user reads it: "file:line:col" with the file as shown."""
        file = getattr(location, "file", None)
        if file is None:
            return str(location or "?")
        column = getattr(location, "column", 0)
        return f"{self.shown(file)}:{location.line}" + (f":{column}" if column else "")

    def note_write(self, state: State, object_id: int) -> None:
        """Remember a write into a global the function may not modify."""
        for var, oid in state.globals.items():
            if oid == object_id and var in self.forbidden:
                state.forbidden_writes.setdefault(var, self.at(self.location))

    @staticmethod
    def changed(obj: MemObject) -> z3.BoolRef:
        """Where the bytes of `obj` differ from its contents on entry (as the run sees it)."""
        diffs = []
        for now, before in zip(obj.cells, obj.initial):
            if now is before:
                continue
            try:
                diffs.append(memory.byte_of(now) != memory.byte_of(before))
            except UnsupportedError:  # a pointer was written: assume it changed
                return z3.BoolVal(True)
        return z3.Or(*diffs) if diffs else z3.BoolVal(False)

    def check_contract(self, state: State, term: Return) -> None:
        """On return of the function under test: what violates each postcondition, each
        test case and the `__rtt_modifies` list on this path. Each violation that is
        possible is also forked off as a path of its own, which returns."""
        contract = self.contract
        assert contract is not None
        frame = state.frame
        if contract.result is not None and term.value is not None:
            self.store(state, VarRef(contract.result, contract.result.type),
                       self.eval(state, term.value))
        checks: list[tuple[Violation, z3.BoolRef]] = []
        entered: list[tuple[tuple[str, ...], z3.BoolRef]] = []
        for cond in contract.postconditions:
            checks.append((Violation("postcondition", self.at(cond.location), cond.text),
                           z3.Not(self.holds(state, cond))))
        for tc in contract.testcases:
            pre = frame.registers.get(tc.entered)
            assert pre is not None
            pre_holds = truth(tc.entered.type, pre)
            entered.append((tc.requirements, pre_holds))
            checks.append((Violation("testcase", self.at(tc.location), tc.post.text),
                           z3.And(pre_holds, z3.Not(self.holds(state, tc.post)))))
        for var, at in state.forbidden_writes.items():
            checks.append((Violation("modifies", at, var.name),
                           self.changed(state.memory[state.globals[var]])))
        state.contract_checks = checks
        state.testcases_entered = entered
        for violation, violated in checks:
            what = {"postcondition": f"the postcondition {violation.detail}",
                    "testcase": f"the test case post {violation.detail}",
                    "modifies": f"__rtt_modifies: writes {violation.detail}"}[violation.kind]
            violating = self.fork_violation(
                state, (violation.kind, 0, f"{violation.at} {violation.detail}"), violated,
                f"violates {what} ({violation.at})", violation)
            if violating is not None:
                self.do_return(violating, term)

    def on_entry(self, state: State, conditions: tuple[Condition, ...]
                 ) -> list[z3.BoolRef] | None:
        """Where `conditions` hold on entry (`state` is an initial state); None when one
        reads through an input pointer whose target is not decided yet."""
        try:
            return [self.holds(state, cond) for cond in conditions]
        except (_NeedChoice, PathError, UnsupportedError, memory.OutOfBounds):
            return None

    def holds(self, state: State, cond: Condition) -> z3.BoolRef:
        """Where `cond` is true in the current frame."""
        return truth(cond.expr.type, self.eval(state, cond.expr))

    def stub_global_writes(self, state: State, name: str, index: int
                           ) -> tuple[StubWrite, ...]:
        """Fresh contents for every global a stub may write (see `stub_globals` and
        `spec_globals`)."""
        writes = []
        for var in self.spec_globals.get(name, self.stub_globals):
            oid = self.global_object(state, var)
            cells = self.input_cells(state, f"{var.name}@{name}#{index}", var.type)
            obj = state.writable(oid)
            obj.cells = list(cells)
            state.written_objects.add(oid)
            writes.append(StubWrite(var.name, var.type, tuple(cells)))
        return tuple(writes)

    def guarded(self, state: State, guard: z3.BoolRef, e: Expr) -> SymValue:
        """`e`, whose conditions of being defined (in bounds, not NULL, ...) are needed
        only where `guard` holds."""
        before = len(state.constraints)
        self._guards.append(guard)
        try:
            return self.eval(state, e)
        finally:  # also when a choice interrupts it: the statement runs again after it
            self._guards.pop()
            added = state.constraints[before:]
            del state.constraints[before:]
            for c in added:
                state.assume(z3.Implies(guard, c))

    def stub_writes(self, state: State, fn: StubSignature, index: int, args: list[SymValue]
                    ) -> tuple[StubWrite, ...]:
        """A stub writes fresh values through each non-const pointer parameter that points
        into an object: the pointed-to element, or for a character or void pointer (a
        buffer) the rest of the object."""
        writes = []
        for param, ptype, arg in zip(fn.params, fn.type.params, args):
            if not isinstance(ptype, PointerType) or ptype.target_const or \
                    not isinstance(arg, PtrVal) or arg.base is None or arg.null is not None:
                continue
            off = z3.simplify(arg.offset)
            obj = state.memory[arg.base]
            if not z3.is_bv_value(off) or obj.readonly:
                continue
            start = off.as_signed_long()
            target = ptype.target
            name = f"{fn.name}#{index}.{param}"
            is_buffer = isinstance(target, VoidType) or (isinstance(target, IntType) and
                                                         target.size == 1)
            if is_buffer:
                count = obj.size - start
            elif target.is_complete and target.size > 0:
                count = target.size
            else:
                continue
            if count <= 0 or start < 0 or start + count > obj.size:
                continue
            if is_buffer:
                fresh = z3.BitVec(name, count * 8)
                cells = [(fresh, j) for j in range(count)]
                write = StubWrite(f"*(unsigned char *){param}", None, tuple(cells))
            else:
                cells = self.input_cells(state, name, target)
                write = StubWrite(f"(*{param})", target, tuple(cells))
            writable = state.writable(arg.base)
            writable.cells[start:start + count] = cells
            state.written_objects.add(arg.base)
            writes.append(write)
        return tuple(writes)

    # ----------------------------------------------------------------- lvalues

    def locate(self, state: State, lv: Expr) -> _Mem | _Reg:
        if isinstance(lv, VarRef):
            var = lv.var
            if var.kind in (GLOBAL, STATIC_LOCAL):
                return _Mem(self.global_object(state, var), _ZERO64)
            frame = state.frame
            if var in frame.objects:
                return _Mem(frame.objects[var], _ZERO64)
            return _Reg(frame, var)
        if isinstance(lv, Deref):
            p = self.resolve(state, self.eval(state, lv.pointer))
            if not isinstance(p, PtrVal):
                raise PathError(f"dereference of a non-pointer {describe(lv.pointer)}")
            self.dereference(state, p, f"NULL dereference of {describe(lv.pointer)}")
            assert p.base is not None
            return _Mem(p.base, p.offset, assumed=p.null is not None)
        if isinstance(lv, Member):
            base = self.locate(state, lv.base)
            if not isinstance(base, _Mem):
                raise PathError("member of a register value")
            f = lv.field
            return _Mem(base.object_id, base.offset + f.offset,
                        f if f.is_bitfield else None, base.assumed)
        if isinstance(lv, StringLit):
            oid = state.strings.get(id(lv))
            if oid is None:
                cells = [(z3.BitVecVal(b, 8), 0) for b in lv.data]
                oid = self.new_object(state, "string literal", cells, readonly=True)
                state.strings[id(lv)] = oid
            return _Mem(oid, _ZERO64)
        raise PathError(f"not an object: {describe(lv)}", unsupported=True)

    def bitfield_offset(self, state: State, obj: MemObject, lv: Expr, loc: _Mem
                        ) -> z3.BitVecRef:
        """The constant byte offset of the storage of the bit-field `lv` at `loc`."""
        f = loc.bitfield
        assert isinstance(lv, Member) and f is not None
        span = (f.bit_offset + f.bit_width + 7) // 8
        return self.fixed_offset(state, obj, loc.offset, span, lv.base.type.align, f.offset)

    def load(self, state: State, lv: Expr) -> SymValue:
        loc = self.locate(state, lv)
        if isinstance(loc, _Reg):
            value = loc.frame.registers.get(loc.var)
            if value is None:
                value = memory.value_from_cells(self.garbage(loc.var, loc.var.type.size),
                                                loc.var.type)
            return value
        obj = state.memory[loc.object_id]
        state.read_objects.add(loc.object_id)
        offset = loc.offset
        if not lv.type.is_scalar or isinstance(lv.type, PointerType):
            offset = self.fixed_offset(state, obj, offset, lv.type.size, lv.type.align)
        if loc.bitfield is not None:
            f = loc.bitfield
            off = self.bitfield_offset(state, obj, lv, loc)
            assert isinstance(f.type, IntType)
            return memory.read_bitfield(obj, off.as_signed_long(), f.bit_offset,
                                        f.bit_width, f.type)
        (value,) = self.access(state, loc, obj, "read from",
                               lambda: memory.read(obj, offset, lv.type))
        return value

    def store(self, state: State, lv: Expr, value: SymValue, initializing: bool = False
              ) -> None:
        loc = self.locate(state, lv)
        if isinstance(loc, _Reg):
            loc.frame.registers[loc.var] = value
            return
        current = state.memory[loc.object_id]
        if current.readonly and not initializing:
            raise PathError(f"write to the read-only object '{current.name}'")
        offset = loc.offset
        if not lv.type.is_scalar or isinstance(value, (PtrVal, AliasPtr)):
            offset = self.fixed_offset(state, current, offset, lv.type.size, lv.type.align)
        obj = state.writable(loc.object_id)
        if not initializing:
            state.written_objects.add(loc.object_id)
            if self.forbidden:
                self.note_write(state, loc.object_id)
        if loc.bitfield is not None:
            f = loc.bitfield
            off = self.bitfield_offset(state, current, lv, loc)
            assert isinstance(value, z3.BitVecRef)
            memory.write_bitfield(obj, off.as_signed_long(), f.bit_offset, f.bit_width, value)
            return
        self.access(state, loc, obj, "write to",
                    lambda: memory.write(obj, offset, lv.type, value))

    # ------------------------------------------------------------- expressions

    def pointer_as_integer(self, state: State, v: PtrVal | AliasPtr, dst: IntType
                           ) -> z3.BitVecRef:
        """`(dst)v`: the address of the object `v` points into plus its offset, 0 for
        NULL (see addresses.py)."""
        p = self.resolve(state, v)
        assert isinstance(p, PtrVal)
        if p.base is not None and state.memory[p.base].function is not None:
            raise PathError("the address of a function converted to an integer",
                            unsupported=True)
        if p.is_null:
            value: z3.BitVecRef = _ZERO64
        else:
            assert p.base is not None
            value = self.address(state, p.base) + p.offset
            if p.null is not None:
                value = z3.If(p.null, _ZERO64, value)
        result, _ = convert(value, ULONG, dst)
        assert isinstance(result, z3.BitVecRef)
        return result

    def address(self, state: State, object_id: int) -> z3.BitVecRef:
        """The address of an object as a 64-bit term, exposed on first use: an object the
        case sets up is placed by the harness at a residue the case chooses."""
        known = state.addresses.get(object_id)
        if known is not None:
            return known.value
        placed = object_id in state.input_objects()
        static = object_id in state.globals.values() or object_id in state.strings.values() \
            or state.memory[object_id].function is not None
        address, facts = addresses.expose(state.addresses, state.memory[object_id],
                                          self.alignment(state, object_id), placed,
                                          automatic=not placed and not static)
        for fact in facts:
            state.assume_address_fact(fact)
        return address.value

    @staticmethod
    def alignment(state: State, object_id: int) -> int:
        """The alignment of an object's type (1 for a temporary or a string literal)."""
        for p in state.pointees:
            if p.object_id == object_id and p.type is not None:
                return p.type.align
        for var, oid in state.globals.items():
            if oid == object_id:
                return var.type.align
        for frame in state.frames:
            for var, oid in frame.objects.items():
                if oid == object_id:
                    return var.type.align
        return 1

    def compare_pointers(self, state: State, op: str, a: SymValue, b: SymValue
                         ) -> z3.BoolRef:
        """`a op b` for pointers. A test against a NULL constant leaves aliasing open;
        relational comparison is defined only within one object, so a path needs it."""
        self.within_depth(a)
        self.within_depth(b)
        null_a = isinstance(a, PtrVal) and a.is_null
        null_b = isinstance(b, PtrVal) and b.is_null
        if null_a or null_b:  # a NULL test (`p == q` between two pointers is none)
            self.tested(state, a)
            self.tested(state, b)
        if op in ("==", "!=") and (null_a or null_b):
            assert isinstance(a, (PtrVal, AliasPtr)) and isinstance(b, (PtrVal, AliasPtr))
            same = z3.And(a.null_condition(), b.null_condition())
            return same if op == "==" else z3.Not(same)
        a = self.resolve(state, a)
        b = self.resolve(state, b)
        assert isinstance(a, PtrVal) and isinstance(b, PtrVal)
        if op not in ("==", "!="):
            if a.base is None or a.base != b.base:
                state.assume(z3.BoolVal(False))
            state.assume(z3.Not(a.null_condition()))
            state.assume(z3.Not(b.null_condition()))
        return compare(op, PointerType(UCHAR), a, b)

    def eval(self, state: State, e: Expr) -> SymValue:
        if isinstance(e, Const):
            return constant(e.type, e.value)
        if isinstance(e, Load):
            return self.load(state, e.lvalue)
        if isinstance(e, Cast):
            v = self.eval(state, e.operand)
            src, dst = strip_enum(e.operand.type), strip_enum(e.type)
            if isinstance(src, PointerType) and isinstance(dst, IntType) and \
                    not dst.is_bool and isinstance(v, (PtrVal, AliasPtr)):
                return self.pointer_as_integer(state, v, dst)
            if isinstance(src, IntType) and isinstance(dst, PointerType):
                wide, _ = convert(v, src, LONG if src.signed else ULONG)
                assert isinstance(wide, z3.BitVecRef)
                return addresses.pointer_from_integer(state.addresses, wide)
            if isinstance(src, PointerType) and isinstance(dst, IntType) and dst.is_bool:
                self.tested(state, v)  # (_Bool)p
            result, errors = convert(v, e.operand.type, e.type)
            self.undefined_unless(state, errors, describe(e))
            return result
        if isinstance(e, Binary):
            a = self.eval(state, e.left)
            b = self.eval(state, e.right)
            if e.op in ("==", "!=", "<", "<=", ">", ">="):
                if isinstance(a, (PtrVal, AliasPtr)):
                    return bool_to_int(self.compare_pointers(state, e.op, a, b))
                return bool_to_int(compare(e.op, e.left.type, a, b))
            result, errors = arithmetic(e.op, e.type, a, b, e.right.type)
            self.undefined_unless(state, errors, describe(e)[1:-1])  # without its ( )
            if isinstance(e.type, IntType) and e.type.signed and e.op in ("+", "-", "*"):
                overflow = signed_overflow(e.op, a, b)
                if z3.is_false(z3.simplify(overflow)):
                    pass
                elif self.overflow_is_finding:
                    self.undefined_unless(state, (Undefined(overflow, "signed overflow"),),
                                          describe(e)[1:-1])
                else:
                    state.overflows.append(overflow)
            return result
        if isinstance(e, Logical):
            left = self.truth(state, e.left.type, self.eval(state, e.left))
            # the right operand is evaluated only where the left one does not decide
            guard = left if e.op == "&&" else z3.Not(left)
            right = self.truth(state, e.right.type, self.guarded(state, guard, e.right))
            combine = z3.And if e.op == "&&" else z3.Or
            return bool_to_int(combine(left, right))
        if isinstance(e, Select):
            c = self.truth(state, e.condition.type, self.eval(state, e.condition))
            a = self.guarded(state, c, e.then)
            b = self.guarded(state, z3.Not(c), e.otherwise)
            same_sort = (isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)) or \
                (isinstance(a, z3.FPRef) and isinstance(b, z3.FPRef))
            if not same_sort:
                raise PathError(f"?: of non-arithmetic values: {describe(e)}",
                                unsupported=True)
            return z3.If(c, a, b)
        if isinstance(e, Unary):
            v = self.eval(state, e.operand)
            if e.op == "!":
                return bool_to_int(z3.Not(self.truth(state, e.operand.type, v)))
            return unary(e.op, e.type, v)
        if isinstance(e, AddrOf):
            if isinstance(e.lvalue, FunctionRef):
                if e.lvalue.pointer is not None:
                    return self.eval(state, e.lvalue.pointer)
                return PtrVal(self.function_object(state, e.lvalue.name), _ZERO64)
            loc = self.locate(state, e.lvalue)
            if not isinstance(loc, _Mem):
                raise PathError(f"address of a register variable {describe(e.lvalue)}")
            return PtrVal(loc.object_id, loc.offset)
        if isinstance(e, PtrAdd):
            p = self.resolve(state, self.eval(state, e.pointer))
            i = self.eval(state, e.index)
            assert isinstance(p, PtrVal) and isinstance(i, z3.BitVecRef)
            zero = z3.is_bv_value(z3.simplify(i)) and z3.simplify(i).as_long() == 0
            if zero:
                return p
            if p.is_null:
                raise PathError("arithmetic on a null pointer")
            if p.null is not None:  # undefined on NULL: the path needs a pointer there
                state.assume(z3.Not(p.null))
            assert isinstance(e.type, PointerType)
            target = e.type.target
            size = 1 if isinstance(target, VoidType) else target.size
            return PtrVal(p.base, z3.simplify(p.offset + i * size), p.null)
        if isinstance(e, PtrDiff):
            a = self.resolve(state, self.eval(state, e.left))
            b = self.resolve(state, self.eval(state, e.right))
            assert isinstance(a, PtrVal) and isinstance(b, PtrVal)
            if a.base is None or a.base != b.base:
                state.assume(z3.BoolVal(False))  # undefined unless into one object
                return z3.BitVecVal(0, 64)
            state.assume(z3.Not(a.null_condition()))
            state.assume(z3.Not(b.null_condition()))
            assert isinstance(e.left.type, PointerType)
            return exact_quotient(a.offset - b.offset, max(1, e.left.type.target.size))
        if isinstance(e, Classify):
            x = self.eval(state, e.operand)
            assert isinstance(x, z3.FPRef)
            return classify(e.name, x, e.results)
        if isinstance(e, OverflowFlag):
            a, b = self.eval(state, e.left), self.eval(state, e.right)
            left_type, right_type = strip_enum(e.left.type), strip_enum(e.right.type)
            assert isinstance(a, z3.BitVecRef) and isinstance(b, z3.BitVecRef)
            assert isinstance(left_type, IntType) and isinstance(right_type, IntType)
            return bool_to_int(overflows(e.op, a, left_type, b, right_type, e.target),
                               e.type.bits)
        if isinstance(e, BitOp):
            x = self.eval(state, e.operand)
            assert isinstance(x, z3.BitVecRef) and isinstance(e.type, IntType)
            value, errors = bit_builtin(e.operation, x, e.type)
            self.undefined_unless(state, errors, describe(e))
            return value
        if isinstance(e, (VarRef, Deref, Member, StringLit)):
            return self.load(state, e)
        raise PathError(f"expression {describe(e)}", unsupported=True)

    # -------------------------------------------------------- function pointers

    def function_object(self, state: State, name: str) -> int:
        """The object standing for function `name` (a function of the unit or a
        callback): empty and read-only, the same on every path."""
        oid = self._function_objects.get(name)
        if oid is None:
            oid = self.reserve_object()
            self._function_objects[name] = oid
        if oid not in state.memory:
            state.memory[oid] = MemObject(oid, name, 0, [], True, None, [], function=name)
        return oid

    def function_pointer_input(self, state: State, name: str, ftype: FunctionType,
                               depth: int) -> list:
        """An input function pointer: NULL (a solver choice) or the input's callback, or,
        decided when a path first calls or compares it (see `function_choice`), one of the
        unit's functions of its type whose address the unit takes."""
        callback = self.callback(state, name, ftype)
        null = z3.Bool(f"{name}==NULL")
        ptr = AliasPtr(f"{name}->", PtrVal(callback.object_id, _ZERO64, null), ftype, null,
                       depth, ())
        # one a stub call returns or writes (named `stub#k...`) is preferably NULL, as one
        # inside a pointee is (see extract.preferences)
        preferred = max(depth, 1) if "#" in name else depth
        state.pointees.append(Pointee(callback.name, None, None, ptr, preferred))
        return [(ptr, i) for i in range(8)]

    def callback(self, state: State, name: str, ftype: FunctionType) -> Callback:
        """The callback of the function-pointer input `name`: a stub of type `ftype`
        named after the function under test and the input."""
        known = self._input_callbacks.get(name)
        if known is not None:
            self.function_object(state, known.name)
            return known
        shown = _shown_input(name)
        caller, hash_, call = shown.partition("#")
        if caller in self.callbacks:  # what a call of a callback returns or writes
            shown = f"{self.callbacks[caller].input}{hash_}{call}"
        stem = f"ctgen_cb_{self.function}_" + \
            (re.sub(r"\W+", "_", shown, flags=re.ASCII).strip("_") or "fn")
        ident, n = stem, 2
        while ident in self.callbacks:
            ident, n = f"{stem}_{n}", n + 1
        params: list[str] = []
        for i, given in enumerate(ftype.param_names or (None,) * len(ftype.params)):
            ok = given and re.fullmatch(r"[A-Za-z_]\w*", given, re.ASCII) and \
                not given.startswith("ctgen_") and given not in params
            params.append(given if ok else f"p{i}")
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
                            self.function_object(state, ident))
        self.callbacks[ident] = callback
        self._input_callbacks[name] = callback
        return callback

    def function_choice(self, state: State, ptr: AliasPtr) -> AliasChoice:
        """Where an input function pointer may point: its callback first, then each of
        the unit's functions of its type whose address the unit takes."""
        alternatives = [ptr.own] if ptr.own is not None else []
        for name in self.program.designated_functions:
            fn = self.program.unit.functions[name]
            if compatible(fn.type, ptr.element):
                alternatives.append(PtrVal(self.function_object(state, name), _ZERO64,
                                           ptr.null))
        return AliasChoice(ptr, tuple(alternatives),
                           tuple(z3.BoolVal(True) for _ in alternatives))

    def indirect_call(self, state: State, stmt: Call) -> None:
        """A call through a function pointer: of the unit's function it holds (executed
        like a direct call, a stub call if the unit does not define it), or of a
        callback (a stub call). Calling NULL is a finding (see `dereference`)."""
        assert stmt.pointer is not None
        p = self.resolve(state, self.eval(state, stmt.pointer))
        if not isinstance(p, PtrVal):
            raise PathError(f"call through {describe(stmt.pointer)}, not a pointer")
        self.dereference(state, p, "call through the NULL function pointer "
                                   f"{describe(stmt.pointer)}")
        assert p.base is not None
        function = state.memory[p.base].function
        if function is None:
            raise PathError(f"call through {describe(stmt.pointer)}, which points to an "
                            "object", unsupported=True)
        state.assume(p.offset == 0)  # into a function: undefined
        callback = self.callbacks.get(function)
        if callback is None:
            self.call(state, Call(stmt.target, function, stmt.args, stmt.location))
            return
        args = [self.eval(state, a) for a in stmt.args]
        if stmt.target is not None:
            self.locate(state, stmt.target)  # decide its pointers' aliasing before the call
        args = self.resolve_arguments(state, args)
        self.stub_call(state, stmt, args, callee=callback.signature)

