"""The execution state of one path: call frames, memory objects, the path condition, and
what the path did with inputs and stubs. States fork at branches; memory objects are
copied on write so that forks share what they have not changed."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import z3

from ..cases import Violation
from ..frontend.ctype import ArrayType, CType, RecordType
from ..frontend.unit import Variable
from ..ir.cfg import CFG, Block, Edge, Loop
from ..ir.expr import Expr
from .addresses import Address
from .effect_tests import Evaluation
from .large_objects import SparseCells
from .memory import Cell, MemObject
from .values import AliasPtr, PtrVal, SymValue


@dataclass
class Frame:
    """One activation of a function."""

    cfg: CFG
    block: Block
    index: int = 0  # next statement of `block`
    registers: dict[Variable, SymValue] = field(default_factory=dict)
    objects: dict[Variable, int] = field(default_factory=dict)  # locals living in memory
    return_target: Expr | None = None  # lvalue in the caller's frame
    setup: bool = False  # a setup call's (symbolic/setup_calls.py)

    def copy(self) -> Frame:
        return Frame(self.cfg, self.block, self.index, dict(self.registers), dict(self.objects),
                     self.return_target, self.setup)


@dataclass(frozen=True)
class InputRoot:
    """A variable whose initial value is an input of the case: a parameter, a global, or a
    parameter of a setup call (symbolic/setup_calls.py)."""

    kind: Literal["param", "global", "setup"]  # setup: a parameter of a setup call
    var: Variable
    object_id: int | None  # its memory object, or None for a parameter held in a register
    value: SymValue | None  # the initial value of a register parameter
    call: int = -1  # of a setup call's parameter, the index of the call


@dataclass(frozen=True)
class Pointee:
    """The object an input pointer points to: `name` is a C identifier for it in cases."""

    name: str
    object_id: int | None  # None beyond the pointer depth: only NULL or aliases
    # an array of `array_size` elements; a record for an object made lazily (lazy.py)
    type: ArrayType | RecordType | None
    pointer: PtrVal | AliasPtr  # the input pointer (an AliasPtr when it may alias)
    depth: int = 0  # 0 for a parameter's or global's pointer, 1 for a pointer in its pointee
    read_only: bool = False  # the pointer points to const: the function may not write it


@dataclass(frozen=True)
class StubCallRecord:
    """Call k (0-based) of an undefined function on this path; `arguments` are the
    values it is called with, by parameter name and type (the variadic ones left out);
    `received` what its pointer arguments point to when it is called (calls.received)."""

    name: str
    index: int
    result_type: CType
    result: SymValue | None
    writes: tuple[StubWrite, ...] = ()
    arguments: tuple[tuple[str, CType, SymValue], ...] = ()
    received: tuple[Received, ...] = ()


@dataclass(frozen=True)
class Received:
    """What a stub's pointer parameter `param` points to when the stub is called: `count`
    elements of type `element` (bytes for a `void *`), as `cells` then held; `null`: the
    condition under which the pointer, an input's, is NULL instead; `unset`: the elements
    (bytes) that are padding of the object, which nothing sets."""

    param: str
    element: CType
    count: int
    cells: tuple[Cell, ...]
    null: z3.BoolRef | None = None
    unset: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Allocation:
    """Allocation call k (0-based, over malloc, calloc, realloc and aligned_alloc) on this
    path: its object (of `size` bytes) and the condition under which the call fails and
    returns NULL instead (see heap.py)."""

    index: int
    function: str
    object_id: int
    fails: z3.BoolRef
    size: int
    at: str  # "file:line:col" of the call


@dataclass(frozen=True)
class StubWrite:
    """What a stub call wrote: `target` is the lvalue in the stub's scope (`*quality`,
    a global's name, or `*(unsigned char *)buf` for a buffer), `cells` the fresh contents,
    of type `type` (None for a buffer written as bytes)."""

    target: str
    type: CType | None
    cells: tuple[Cell, ...] | SparseCells  # a large global's: sparse


class State:
    """A path through the function under test, executed up to its current position."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.memory: dict[int, MemObject] = {}
        self.globals: dict[Variable, int] = {}  # global or static local -> object id
        self.strings: dict[int, int] = {}  # id(StringLit) -> object id
        self.constraints: list[z3.BoolRef] = []
        # the constraints that keep accesses inside the objects of input pointers, whose
        # size is a bound of the search, not a property of the function
        self.bounds: list[z3.BoolRef] = []
        # what the path assumed of input pointers the code does not test (not NULL where it
        # dereferenced one, into one object where it ordered two): assumptions, so what
        # they alone exclude is never called unreachable
        self.pointer_assumptions: list[z3.BoolRef] = []
        self.inputs: list[InputRoot] = []
        self.pointees: list[Pointee] = []
        self.aliases: dict[str, PtrVal] = {}  # AliasPtr.choice -> the PtrVal it is here
        # AliasPtr.choice -> the alternative its choice took (paths.AliasChoice), lazy
        # pointers' too: a path run again from the entry takes them again
        self.chosen: dict[str, int] = {}
        self.fixed_offsets: dict[int, int] = {}  # id of a symbolic offset -> its value here
        # the objects whose address the path made an integer (see addresses.py), and the
        # facts about those addresses it assumes
        self.addresses: dict[int, Address] = {}
        self.address_facts: list[z3.BoolRef] = []
        self.read_objects: set[int] = set()
        self.written_objects: set[int] = set()
        self.stub_calls: list[StubCallRecord] = []
        # the allocation calls of the path, and where each freed object was freed: the
        # condition (the pointer freed may be NULL) and "file:line:col" (see heap.py)
        self.allocations: list[Allocation] = []
        self.freed: dict[int, tuple[z3.BoolRef, str]] = {}
        # passes of each branch, in every frame: (frames, id of the CFG, block) -> n; and
        # those of them the inputs decided (a fork), which the unwinding bound counts
        self.visits: dict[tuple[int, int, int], int] = {}
        self.decisions: dict[tuple[int, int, int], int] = {}
        # iterations begun of each loop, in every frame: (id of the CFG, body block) -> n
        self.loop_iterations: dict[tuple[int, int], int] = {}
        # where a path the harness stops inside a loop stops: the loop and how many
        # iterations it ran (the ending LOOP_STOP)
        self.stopped_in: tuple[Loop, int] | None = None
        self.steps = 0
        self.edges: list[Edge] = []  # outcomes of the function under test on this path
        # outcomes of the functions it calls, when they are goals too: (id of the CFG, edge)
        self.callee_edges: list[tuple[int, Edge]] = []
        # the conditions of the branches the path took, in every frame (see boundaries.py)
        self.branch_conditions: list[z3.BoolRef] = []
        # the branches of the function under test on this path: block, condition as written
        self.decided: list[tuple[int, z3.BoolRef]] = []
        # the comparisons of the function under test whose value it uses as a number
        # (Executor.value_sites), each time the path evaluated one: its site, its condition
        # and how many constraints the path had then (search/boundary_goals.py)
        self.value_tests: list[tuple[int, z3.BoolRef, int]] = []
        # the integer operations of the function under test (Executor.operation_sites),
        # the first OPERATION_TESTS times the path evaluated each: its site with the kind
        # of each of its operand goals, that the goal is met there
        # (operand_tests.operand_goals) and how many constraints the path had then
        self.operation_tests: list[tuple[tuple[int, str], z3.BoolRef, int]] = []
        # the same evaluations with their operands (effect_tests.py)
        self.operation_results: list[Evaluation] = []
        # the last assignment to each integer local of the function under test
        # (Executor.assignment_sites) with the value the local held before it, and the
        # comparisons the path evaluated then that read one: (assignment, comparison), that
        # the value before would decide it otherwise, how many constraints the path had
        # (use_tests.py)
        self.assigned: dict[Variable, tuple[int, z3.BitVecRef]] = {}
        self.use_tests: list[tuple[tuple[int, int], z3.BoolRef, int]] = []
        self.notes: set[str] = set()
        # the NULL conditions (by name: a z3 id can be reused once its term is freed) of
        # the input pointers the path tested for NULL
        self.null_tested: set[str] = set()
        # the pointers made lazily on the path (lazy.py), by the id of the object a fresh
        # one points to (made when the path chooses it); and by the name of the NULL
        # condition of each, the family of pointers it is in and whether a test of
        # another of them makes NULL a value it may have (`test_null`)
        self.lazy: dict[int, Pointee] = {}
        self.null_families: dict[str, tuple[str, bool]] = {}
        self.overflows: list[z3.BoolRef] = []  # conditions of signed overflow on the path
        self.callee_returns: list[tuple[int, int]] = []  # (id of the callee's CFG, block)
        self.result: SymValue | None = None
        # how the path ended when it did not return: ("exit", status), ("abort", None)
        self.ending: tuple[str, SymValue | None] | None = None
        # paths that leave this one to violate an annotation: at a stub call whose
        # specification's precondition the arguments can violate (the path ends there), at
        # an `__rtt_assert` (ends there), on return (a postcondition, a test case, a write
        # the function may not make), on entry (proof mode's robustness paths):
        # (key, the violating state, a note for its case)
        self.violations: list[tuple[tuple[str, int, str], State, str]] = []
        # what the annotations this path violates are: set on the violating paths
        self.predicted: list[Violation] = []
        self.robustness = False  # the path violates the precondition of the function
        # on return of the function under test: each contract check with the condition of
        # its violation, and each test case's requirement ids with the truth of its PRE
        self.contract_checks: list[tuple[Violation, z3.BoolRef]] = []
        self.testcases_entered: list[tuple[tuple[str, ...], z3.BoolRef]] = []
        # writes to globals the function may not modify: global -> "file:line:col"
        self.forbidden_writes: dict[Variable, str] = {}
        self.finished = False
        self.token = object()

    def fork(self) -> State:
        s = State.__new__(State)
        s.frames = [f.copy() for f in self.frames]
        s.memory = dict(self.memory)
        s.globals = dict(self.globals)
        s.strings = dict(self.strings)
        s.constraints = list(self.constraints)
        s.bounds = list(self.bounds)
        s.pointer_assumptions = list(self.pointer_assumptions)
        s.inputs = list(self.inputs)
        s.pointees = list(self.pointees)
        s.aliases = dict(self.aliases)
        s.chosen = dict(self.chosen)
        s.fixed_offsets = dict(self.fixed_offsets)
        s.addresses = dict(self.addresses)
        s.address_facts = list(self.address_facts)
        s.read_objects = set(self.read_objects)
        s.written_objects = set(self.written_objects)
        s.stub_calls = list(self.stub_calls)
        s.allocations = list(self.allocations)
        s.freed = dict(self.freed)
        s.visits = dict(self.visits)
        s.decisions = dict(self.decisions)
        s.loop_iterations = dict(self.loop_iterations)
        s.stopped_in = self.stopped_in
        s.steps = self.steps
        s.edges = list(self.edges)
        s.callee_edges = list(self.callee_edges)
        s.branch_conditions = list(self.branch_conditions)
        s.decided = list(self.decided)
        s.value_tests = list(self.value_tests)
        s.operation_tests = list(self.operation_tests)
        s.operation_results = list(self.operation_results)
        s.assigned = dict(self.assigned)
        s.use_tests = list(self.use_tests)
        s.notes = set(self.notes)
        s.null_tested = set(self.null_tested)
        s.lazy = dict(self.lazy)
        s.null_families = self.null_families  # only ever added to, the same in all forks
        s.overflows = list(self.overflows)
        s.callee_returns = list(self.callee_returns)
        s.result = self.result
        s.ending = self.ending
        s.violations = list(self.violations)
        s.predicted = list(self.predicted)
        s.robustness = self.robustness
        s.contract_checks = list(self.contract_checks)
        s.testcases_entered = list(self.testcases_entered)
        s.forbidden_writes = dict(self.forbidden_writes)
        s.finished = self.finished
        s.token = object()
        self.token = object()  # both sides copy shared objects before writing them
        return s

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def writable(self, object_id: int) -> MemObject:
        obj = self.memory[object_id]
        if obj.owner is not self.token:
            obj = obj.clone(self.token)
            self.memory[object_id] = obj
        return obj

    def test_null(self, null: z3.BoolRef) -> None:
        """The path tests an input pointer with the NULL condition `null` for NULL; one
        made lazily tests its family too (see lazy.py)."""
        name = str(null)
        self.null_tested.add(name)
        family = self.null_families.get(name)
        if family is not None:
            self.null_tested.add(family[0])

    @property
    def in_setup(self) -> bool:
        """Whether the path is still in the setup calls before the function under test."""
        return any(f.setup for f in self.frames)

    def tests_a_link(self, guard: z3.BoolRef) -> bool:
        """Whether the branch condition `guard` is whether a lazily made link (a pointer
        in an input object, not a parameter or global) is NULL, or its negation."""
        term = guard.arg(0) if z3.is_not(guard) else guard
        family = self.null_families.get(str(term)) if z3.is_const(term) else None
        return family is not None and family[1]

    def null_was_tested(self, null: z3.BoolRef) -> bool:
        """Whether NULL is a value the path may see in the input pointer with the NULL
        condition `null`: it tested the pointer, or, for a link, one of its family."""
        name = str(null)
        family = self.null_families.get(name)
        return name in self.null_tested or \
            (family is not None and family[1] and family[0] in self.null_tested)

    def input_objects(self) -> set[int]:
        """The objects input pointers point to (whose size the generator chose)."""
        return {p.object_id for p in self.pointees if p.object_id is not None}

    def assume_in_bounds(self, object_id: int, condition: z3.BoolRef | None) -> None:
        """Assume an access of object `object_id` is inside it."""
        if condition is None:
            return
        before = len(self.constraints)
        self.assume(condition)
        if len(self.constraints) > before and object_id in self.input_objects():
            self.bounds.append(self.constraints[-1])

    def assume_address_fact(self, fact: z3.BoolRef) -> None:
        """Assume a fact about where exposed objects lie (see addresses.py)."""
        before = len(self.constraints)
        self.assume(fact)
        self.address_facts.extend(self.constraints[before:])

    def assume(self, condition: z3.BoolRef | None) -> None:
        if condition is None:
            return
        simple = z3.simplify(condition)
        if z3.is_true(simple):
            return
        self.constraints.append(simple)
