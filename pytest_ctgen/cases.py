"""Plain, frozen data for generated test cases (the export of DESIGN §2 holds them).

Nothing here knows about z3, pycparser or pytest: the generator produces these objects, the
code generator turns them into C, and the export writes them as diff-friendly JSON
(case_writer.py; case_reader.py reads it back, every field checked).

C declarations are kept as text templates in which `@` stands for the declared name, e.g.
`"const uint8_t @[4]"`; `declare(template, name)` fills it in.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias, get_args

FORMAT_VERSION = 1
# An object a case places (`Binding.placement`) lies at an address with this residue modulo
# PLACEMENT: the harness puts it into a buffer aligned to PLACEMENT.
PLACEMENT = 4096


def declare(template: str, name: str) -> str:
    """The C declaration of `name` from a template such as `"int32_t @"`."""
    return template.replace("@", name)


# ---------------------------------------------------------------------------------- values


@dataclass(frozen=True)
class IntForm:
    """How a case shows the integers of one type (value_forms.py): an enum's by the name
    of an enumerator (`enumerators`: those of the unit's enum type, in declaration order,
    with their values), a mask's in hex with `hex_digits` digits (the width of its type)."""

    enumerators: tuple[tuple[str, int], ...] = ()
    hex_digits: int = 0


@dataclass(frozen=True)
class IntValue:
    """An integer (also _Bool and enums) with its mathematical value; `form`: how it is
    shown (an enumerator's name, hex), not what it is: no part of equality."""

    value: int
    form: IntForm | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FloatValue:
    """A float (size 4) or double (size 8), exact through its IEEE bit pattern."""

    bits: int
    size: int

    @staticmethod
    def of(value: float, size: int) -> FloatValue:
        if size == 4:
            return FloatValue(struct.unpack("<I", struct.pack("<f", value))[0], 4)
        return FloatValue(struct.unpack("<Q", struct.pack("<d", value))[0], 8)

    @property
    def value(self) -> float:
        if self.size == 4:
            return struct.unpack("<f", struct.pack("<I", self.bits))[0]
        return struct.unpack("<d", struct.pack("<Q", self.bits))[0]

    @property
    def is_nan(self) -> bool:
        return math.isnan(self.value)

    def shortest_text(self) -> str:
        """The shortest decimal text that reads back as exactly this value (finite only)."""
        v = self.value
        if self.size == 8:
            return repr(v)
        for digits in range(1, 10):
            text = f"{v:.{digits}g}"
            try:
                same = FloatValue.of(float(text), 4).bits == self.bits
            except OverflowError:  # rounded beyond FLT_MAX
                continue
            if same:
                return text if any(c in text for c in ".en") else text + ".0"
        return repr(v)


@dataclass(frozen=True)
class RecordValue:
    """A struct by member (in declaration order); nested values for nested members."""

    fields: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class ArrayValue:
    """The elements of an array; `text`: an array of plain char, shown as a string where
    its bytes are text (char_text.py). How a value is shown, not what it is: no part of
    equality."""

    elements: tuple[Value, ...]
    text: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class BytesValue:
    """An object given by its bytes (unions, or storage read through another type)."""

    data: bytes


@dataclass(frozen=True)
class FilledBytesValue:
    """A large object by its bytes, sparsely: all `size` are `fill` but those listed in
    `at`, (offset, byte) pairs by offset. JSON: `{"@bytes": {"size": n, "fill": b,
    "at": {"offset": byte, ...}}}`."""

    size: int
    fill: int
    at: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class PointerValue:
    """NULL when `target` is None; otherwise `offset` bytes into the object named `target`,
    or, for a `function` pointer, the function `target` (of the unit, a stub, or one of
    the callbacks the harness generates)."""

    target: str | None
    offset: int = 0
    function: bool = False


@dataclass(frozen=True)
class UnsetValue:
    """A predicted value nothing set: what an uninitialized object held (a member of a
    struct returned by value that the function never wrote). C gives it no value, so the
    run leaves it unchecked; never an input. JSON: `{"@unset": true}`."""


Value: TypeAlias = (IntValue | FloatValue | RecordValue | ArrayValue | BytesValue
                    | FilledBytesValue | PointerValue | UnsetValue)


def leaf_values(v: Value) -> list[Value]:
    """The scalars and byte strings `v` is made of."""
    if isinstance(v, RecordValue):
        return [leaf for _, x in v.fields for leaf in leaf_values(x)]
    if isinstance(v, ArrayValue):
        return [leaf for x in v.elements for leaf in leaf_values(x)]
    return [v]


@dataclass(frozen=True)
class Binding:
    """A named C object and its value: a parameter, a global, or a target of a check."""

    name: str
    declaration: str  # template with '@' for the name
    value: Value
    placement: int | None = None  # an object's address modulo PLACEMENT, when chosen


# ------------------------------------------------------------------------------ cases


@dataclass(frozen=True)
class Outcome:
    """A branch outcome of the unit: the branching construct's position and which way it
    went: "true", "false", "case 3", "default"."""

    line: int
    column: int
    label: str

    def __str__(self) -> str:
        return f"line {self.line}:{self.column} {self.label}"


@dataclass(frozen=True)
class StubCall:
    """What one call of a stub does: its return value and what it writes.

    `writes` name lvalues in the stub's scope: `*arg1`, `arg0[2]`, or a global's name."""

    returns: Value | None
    writes: tuple[Binding, ...] = ()


@dataclass(frozen=True)
class StubScript:
    """The calls of one stub during one case, in order."""

    name: str
    calls: tuple[StubCall, ...]


#: How a call may end without returning (`Expected.ending`): the harness catches each.
Ending = Literal["exit", "abort", "assertion failure", "precondition violation",
                 "__rtt_assert violation", "undefined behaviour", "loop stop"]
ENDINGS: frozenset[Ending] = frozenset(get_args(Ending))
#: How a case ends that runs into undefined behaviour (DESIGN §4: a finding).
UNDEFINED_BEHAVIOUR: Final = "undefined behaviour"
#: How a case ends that the harness stops inside a loop that has not ended by then (a
#: `for (;;)` task, or a loop that runs on past the depth bound): see `LoopStop`.
LOOP_STOP: Final = "loop stop"


@dataclass(frozen=True)
class LoopStop:
    """Where the harness stops a case whose call does not return: when the loop at
    `line`:`column` of the unit (of its `for`, `while` or `do`) is about to begin its
    iteration `iterations + 1`. The harness counts the iterations where the loop's body
    statement starts (codegen/unit_copy.py)."""

    line: int
    column: int
    iterations: int

    def __str__(self) -> str:
        return f"stops after {self.iterations} iterations of the loop at line {self.line}"


#: The library functions that end the program, and how a path through each ends (an
#: ending): the harness renames them in the unit and returns from them to the running
#: case (a function pointer of a case may name them).
PROGRAM_ENDS: dict[str, Ending] = {
    "exit": "exit", "_Exit": "exit", "_exit": "exit", "quick_exit": "exit", "abort": "abort",
    "__assert_fail": "assertion failure"}


@dataclass(frozen=True)
class PredictedCall:
    """One stub (or callback) call a case predicts, in the order of all the stub calls of
    the case: the stub's name and the value of each argument the generator knows, by
    parameter name in parameter order. An integer, float or pointer (a pointer to an
    object the case cannot name is `PointerValue("*")`: only non-NULL is checked); an
    argument of another type, a variadic one or one nothing set is left out. `contents`:
    what its pointer arguments point to when it is called (the data a HAL call sends)."""

    stub: str
    arguments: tuple[tuple[str, Value], ...] = ()
    # what pointer arguments point to at the call: by parameter name, an array of the
    # pointed-to type (`@bytes` for a `void *`) whose elements nothing set are UnsetValues
    contents: tuple[Binding, ...] = ()


@dataclass(frozen=True)
class Expected:
    """What the symbolic execution predicts for a case: the return value (None for void),
    the globals after the call, how often each stub is called and, when known (`calls`;
    None in an export written before it was predicted), every stub call in order with
    its arguments."""

    returns: Value | None
    globals: tuple[Binding, ...] = ()
    stub_call_counts: tuple[tuple[str, int], ...] = ()
    objects: tuple[Binding, ...] = ()  # contents of written pointed-to objects after the call
    # the call does not return: one of ENDINGS; UNDEFINED_BEHAVIOUR is a finding (the path
    # runs into an error C leaves undefined; nothing after it is predicted, see the case's
    # UNDEFINED violation)
    ending: str | None = None
    exit_status: int | None = None  # the status passed to exit
    loop_stop: LoopStop | None = None  # where the harness stops it (ending LOOP_STOP)
    calls: tuple[PredictedCall, ...] | None = None


#: The note of a case made for a comparison no other case decided with its sides equal
#: (`--ctgen-boundary-cases`, search/boundary_goals.py).
BOUNDARY_NOTE: Final = "boundary case: a comparison decided with equal sides"
#: The note of a case made for a comparison no other case decided with its sides one apart,
#: on the side whose outcome differs from that of equal sides (search/boundary_goals.py).
NEAR_NOTE: Final = "boundary case: a comparison decided with its sides one apart"
#: The note of a case made for a loop whose body no other case ran more than once
#: (`--ctgen-boundary-cases`, search/boundary_goals.py).
LOOP_NOTE: Final = "loop case: a loop's body run more than once"
#: The note of a case made for an outcome no other case gives a comparison whose value the
#: function uses as a number (`return a >= b;`; `--ctgen-boundary-cases`,
#: search/boundary_goals.py).
OUTCOME_NOTE: Final = "boundary case: a comparison used as a value, with an outcome no " \
    "other case gives it"
#: The note of a case made for a path whose other cases return 0 (or a computed value
#: equal to a constant the function returns elsewhere): the same path with another result
#: (`--ctgen-boundary-cases`, search/boundary_goals.py).
RESULT_NOTE: Final = "result case: the path again with a result other than 0 or " \
    "a constant returned elsewhere"
#: The note of a case made for an integer operation no other case gave operands that tell
#: it from other operators (`--ctgen-boundary-cases`, search/boundary_goals.py).
OPERAND_NOTE: Final = "operand case: an operation with operands that tell it from " \
    "other operators"
#: The note of a case made for an assignment to a local whose value decides a later
#: comparison in no other case (`--ctgen-boundary-cases`, symbolic/use_tests.py).
USE_NOTE: Final = "use case: a comparison decided otherwise than the value before an " \
    "assignment would decide it"
#: The note of a case made for a loop's exit through its condition: the loop stops where
#: one more pass of its body would act on the data after what it read (`i <= n` for
#: `i < n`; `--ctgen-boundary-cases`, search/boundary_goals.py).
PAST_NOTE: Final = "bound case: a loop stopped where one more pass would act"
#: The note of a case made for a loop's way out from its body (a `return` or `break`): the
#: pass that takes it is the only one that would (`--ctgen-boundary-cases`,
#: search/boundary_goals.py).
ONLY_NOTE: Final = "only-decider case: a loop left by the one pass that would leave it"
#: The note of a case made for an integer operation whose result, computed as an operator
#: it is mistaken for computes it (or with its literal operand one off), no other case's
#: outputs or branches show (`--ctgen-boundary-cases`, symbolic/effect_tests.py).
EFFECT_NOTE: Final = "effect case: an operation whose result, computed by mistake, " \
    "changes an output or a branch"
#: The notes of the cases `--ctgen-boundary-cases` adds to those of the search.
EXTRA_NOTES: Final = (BOUNDARY_NOTE, NEAR_NOTE, LOOP_NOTE, OUTCOME_NOTE, RESULT_NOTE,
                      OPERAND_NOTE, USE_NOTE, PAST_NOTE, ONLY_NOTE, EFFECT_NOTE)


def is_extra(case: Case) -> bool:
    """Whether `case` is one `--ctgen-boundary-cases` added (its notes say so)."""
    return any(note in case.notes for note in EXTRA_NOTES)


#: The kinds of a function's annotations (`ContractCheck.kind`).
CheckKind = Literal["postcondition", "testcase", "assert", "modifies"]
CHECK_KINDS: frozenset[CheckKind] = frozenset(get_args(CheckKind))
#: What a case may be predicted to violate (`Violation.kind`): an annotation, or C itself.
ViolationKind = Literal[CheckKind, "undefined", "leak"]
VIOLATION_KINDS: frozenset[ViolationKind] = frozenset(get_args(ViolationKind))
#: The kind of the `Violation` that names the undefined behaviour of a case.
UNDEFINED: Final = "undefined"
#: The kind of a `Violation` that names an allocation of the function the case leaks
#: (with `--ctgen-leaks fail`; otherwise a leak is a note on the case).
LEAK: Final = "leak"


@dataclass(frozen=True)
class Violation:
    """An annotation the generator predicts a case violates. `kind` is one of
    VIOLATION_KINDS ("undefined": the run has undefined behaviour); `at` is "file:line:col"
    of the annotation (for
    "modifies", of the write); `detail` the condition as written (for "modifies", the
    global written). Kind UNDEFINED: the case runs into undefined behaviour at `at`, which
    `detail` names ("division by zero in a / b"). Kind LEAK: the function leaks the object
    of its allocation call at `at`, which `detail` names ("ctgen_heap_0: 16 bytes from
    malloc"): the run checks the rest of the case and then fails (`leak_message`)."""

    kind: str
    at: str
    detail: str


def leak_message(v: Violation) -> str:
    """How a case that leaks (a violation of kind LEAK) fails."""
    return f"leaks {v.detail} at {v.at}, neither freed nor reachable by the caller"


#: `--ctgen-setup GLOB: auto`: the init function is the one found by its signature
#: (symbolic/setup_calls.py).
SETUP_AUTO: Final = "auto"


@dataclass(frozen=True)
class SetupCall:
    """A call of one of the unit's own functions that a case makes before it calls the
    function under test (`--ctgen-setup`), so that the case starts from a state the
    program can reach: an init function, then operations. Each gets the case's handle
    object through its parameter `handle` (an index into `params`); its other parameters
    are inputs of the case. `params` are all its parameters, in order, by their names."""

    function: str
    handle: int
    params: tuple[Binding, ...]


@dataclass(frozen=True)
class Case:
    """One generated test case of one function."""

    function: str
    number: int  # 1-based within the function
    params: tuple[Binding, ...]
    globals: tuple[Binding, ...]  # initial values of the globals the path reads
    expected: Expected
    stubs: tuple[StubScript, ...] = ()
    covered: tuple[Outcome, ...] = ()  # outcomes the generator claims for this case
    requirements: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. "needs signed overflow"
    objects: tuple[Binding, ...] = ()  # objects pointer inputs point to, in declaration order
    violations: tuple[Violation, ...] = ()  # annotations the run is predicted to find broken
    # the inputs violate the function's precondition (proof mode's robustness cases): the
    # run checks the predicted outputs but no postcondition or test case
    robustness: bool = False
    # the allocation calls (0-based, over malloc, calloc, realloc, aligned_alloc) that
    # fail, returning NULL; the others allocate (their objects are HEAP_PREFIX + number)
    failing_allocations: tuple[int, ...] = ()
    # the calls made before the function under test, in order (`--ctgen-setup`)
    setup: tuple[SetupCall, ...] = ()

    @property
    def finding(self) -> str | None:
        """The undefined behaviour the case runs into, as a report says it, or None."""
        for v in self.violations:
            if v.kind == UNDEFINED:
                return f"undefined behaviour at {v.at}: {v.detail}"
        return None

    @property
    def id(self) -> str:
        """The pytest id of the case inside its function: `case3` or `REQ-12:case3`."""
        prefix = ",".join(self.requirements)
        return f"{prefix}:case{self.number}" if prefix else f"case{self.number}"

    def values(self) -> list[Value]:
        """Every value of the case: inputs, stub data and predictions."""
        e = self.expected
        out = [b.value for b in (*self.params, *self.globals, *self.objects, *e.globals,
                                 *e.objects)]
        out += [b.value for call in self.setup for b in call.params]
        out += [k.returns for s in self.stubs for k in s.calls if k.returns is not None]
        out += [w.value for s in self.stubs for k in s.calls for w in k.writes]
        out += [v for k in e.calls or () for _, v in k.arguments]
        out += [b.value for k in e.calls or () for b in k.contents]
        return out + ([e.returns] if e.returns is not None else [])


def functions_named(c: Case) -> set[str]:
    """The functions the pointers of case `c` point to, and the stubs it scripts."""
    return {leaf.target for v in c.values() for leaf in leaf_values(v)
            if isinstance(leaf, PointerValue) and leaf.function and leaf.target} | \
        {s.name for s in c.stubs}


#: What generation found of an annotation (`ContractCheck.verdict`, "" when it did not
#: decide).
Verdict = Literal["", "violated", "holds", "unreachable"]
VERDICTS: frozenset[Verdict] = frozenset(get_args(Verdict))


@dataclass(frozen=True)
class ContractCheck:
    """A property of a function under test that the run checks after the call, or (for
    "assert") inside it; written with the annotations of c_harness/ctgen.h.

    `condition` and `pre` are C expressions for the harness over the function's parameter
    names (their values on entry), the unit's globals, `ctgen_return`, `ctgen_initial_K`
    and `(*ctgen_aux_NAME)`; `pre` is set for a test case only. `text` is the annotation's
    condition as written, `at` its "file:line:col". `verdict` is what generation found:
    "violated", "holds" (for every input, within `bounds`), "unreachable" (a test case
    whose pre no input satisfies), or "" (not decided)."""

    kind: str  # "postcondition", "testcase" or "assert"
    condition: str
    text: str
    at: str
    pre: str = ""
    pre_text: str = ""
    requirements: tuple[str, ...] = ()
    verdict: str = ""


@dataclass(frozen=True)
class Contract:
    """What the annotations of a function under test ask of every run (CTGEN's annotation
    language). `initials` are the `__rtt_initial(e)` values the harness takes before the
    call, K-th as `ctgen_initial_K`: (declaration template, C expression). `aux` are the
    ghost variables: (name, declaration template). `modifies` lists the globals the
    function may write (None: writes are not checked); `unmodified` the unit's other
    globals, which the run checks are unchanged. `bounds` says within which bounds a
    "holds" verdict was proved."""

    checks: tuple[ContractCheck, ...] = ()
    initials: tuple[tuple[str, str], ...] = ()
    aux: tuple[tuple[str, str], ...] = ()
    modifies: tuple[str, ...] | None = None
    unmodified: tuple[str, ...] = ()
    bounds: str = ""

    def requirements(self) -> tuple[str, ...]:
        """Every requirement id the function's test cases name, in source order."""
        return tuple(dict.fromkeys(r for c in self.checks for r in c.requirements))


# ------------------------------------------------------------------------- signatures

#: What a parameter is declared as (`Parameter.kind`), before C adjusts an array or a
#: function parameter to a pointer.
ParameterKind = Literal["scalar", "pointer", "array", "function", "record", "va_list"]


@dataclass(frozen=True)
class Parameter:
    """A parameter as a function's prototype declares it."""

    name: str  # an unnamed one is p0, p1... by its position
    declaration: str  # as the prototype spells it, '@' for the name: "int16_t @[16u]"
    kind: ParameterKind
    bound: int | None = None  # an array's element count, when it is a constant


@dataclass(frozen=True)
class FunctionSignature:
    """What the harness declares of a function (under test, a stub or a callback), read by
    the frontend from the function's declaration (frontend/signatures.py), so that the code
    generator never parses C. Texts are spelled as the unit spells them."""

    prototype: str  # '@' for the function's name: "int32_t @(int32_t a, int32_t b)"
    returns: str | None  # the result declared with '@' for a name ("const char *@"); None: void
    params: tuple[Parameter, ...] = ()
    variadic: bool = False

    @property
    def is_void(self) -> bool:
        return self.returns is None

    def parameter_list(self) -> str:
        """The parameters as the prototype declares them, "" for none: `int a, char *s`."""
        text = ", ".join(declare(p.declaration, p.name) for p in self.params)
        return f"{text}, ..." if text and self.variadic else text


#: Why generation of a function stopped (`FunctionCases.stop_reason`).
StopReason = Literal["exhausted", "depth bound", "time budget", "memory limit", "work budget",
                     "solver limit", "unsupported", "approximation", "skipped"]
STOP_REASONS: frozenset[StopReason] = frozenset(get_args(StopReason))
STOP_EXHAUSTED: Final = "exhausted"
STOP_DEPTH: Final = "depth bound"
STOP_TIME: Final = "time budget"  # the safety net: what it cut depends on the machine
STOP_MEMORY: Final = "memory limit"  # generation needed more than --ctgen-memory
STOP_WORK: Final = "work budget"  # the deterministic budget of solver and execution steps
STOP_SOLVER: Final = "solver limit"  # the solver gave up on a query
STOP_UNSUPPORTED: Final = "unsupported"  # some paths use a construct the generator cannot model
STOP_APPROXIMATION: Final = "approximation"  # e.g. pointer inputs were assumed not to alias
STOP_SKIPPED: Final = "skipped"


#: What became of a condition without a unique-cause pair (`McdcNote.verdict`).
McdcVerdict = Literal["infeasible", "masking", "not reached"]
MCDC_VERDICTS: frozenset[McdcVerdict] = frozenset(get_args(McdcVerdict))


@dataclass(frozen=True)
class McdcNote:
    """A condition of a decision that the cases of `--ctgen-criterion mcdc` show without a
    unique-cause pair: "infeasible" (proved: no inputs give a pair of either form),
    "masking" (proved: only a masking pair is possible, and the cases show one) or "not
    reached" (a bound or the budget stopped the search first)."""

    line: int
    column: int
    condition: str
    decision: str
    verdict: str


@dataclass(frozen=True)
class FunctionCases:
    """Everything generation found for one function."""

    name: str
    line: int
    prototype: str  # e.g. "int32_t sat_add(int32_t a, int32_t b)"
    cases: tuple[Case, ...]
    stop_reason: str
    outcomes_total: int = 0  # branch outcomes of the function in the generator's CFG
    unreachable: tuple[Outcome, ...] = ()  # proved: no input takes them
    not_reached: tuple[Outcome, ...] = ()  # left by a bound or the budget
    mcdc: tuple[McdcNote, ...] = ()  # conditions without a unique-cause pair (criterion mcdc)
    skip_reason: str | None = None
    generation_seconds: float = field(default=0.0, compare=False)
    contract: Contract | None = None  # the function's annotations, when it has any
    callbacks: tuple[StubPrototype, ...] = ()  # those its cases' inputs point to
    # the function's declaration, from the unit (never from the JSON form); set for every
    # function the unit defines (frontend/signatures.py: with_signatures)
    signature: FunctionSignature | None = field(default=None, compare=False)


@dataclass(frozen=True)
class StubPrototype:
    """An undefined function the unit calls, and its C prototype (with parameter names).
    A `library` function (declared only in system headers) is renamed in the unit so that
    its stub does not replace the C library's function for the whole program."""

    name: str
    prototype: str
    library: bool = False
    # how the stub logs each argument: (parameter name, "signed", "unsigned", "float",
    # "pointer", "function" or "other"); ("...", "...") last for a variadic function
    params: tuple[tuple[str, str], ...] = ()
    header: str = ""  # for a library function, the system header declaring it
    # a specification's preconditions, checked on the arguments of every call:
    # (the condition as C over the parameters and globals, "file:line" of the annotation)
    preconditions: tuple[tuple[str, str], ...] = ()
    # the unit itself defines the specification (under the function's name), so the run
    # compiles a copy of the unit with that definition renamed
    specified_in_unit: bool = False
    static: bool = False  # the specification is a `static` function of the unit
    # the unit also defines a macro of this name (`#define f(...) (f)(...)`): the harness
    # renames the function by its symbol (`#pragma redefine_extname`), not by a macro
    macro: bool = False
    # a callback: a function the harness generates, under this name (CALLBACK_PREFIX...),
    # for the function-pointer input named here ("cmp", "ops->read") to point to
    callback: str = ""
    # `prototype` as the frontend reads it (never from the JSON form)
    signature: FunctionSignature | None = field(default=None, compare=False)


#: How the names of callbacks (`StubPrototype.callback`) start.
CALLBACK_PREFIX = "ctgen_cb_"
#: How the names of the objects pointer inputs point to (`Case.objects`) start.
OBJECT_PREFIX = "ctgen_obj_"
#: How the objects the unit allocates (`Case.failing_allocations`) are named: the number
#: of the allocation call after it, `ctgen_heap_0` for the first.
HEAP_PREFIX = "ctgen_heap_"
#: The C library's allocation functions and free: the harness renames those a unit
#: calls (`FileCases.allocator`) to an allocator of its own, which fails the calls a
#: case names.
ALLOCATOR_FUNCTIONS = ("malloc", "calloc", "realloc", "aligned_alloc", "free")
#: How a stub logs an argument (`StubPrototype.params`).
ArgumentKind = Literal["signed", "unsigned", "float", "pointer", "function", "other"]
ARGUMENT_KINDS: frozenset[ArgumentKind] = frozenset(get_args(ArgumentKind))


@dataclass(frozen=True)
class BuildRecipe:
    """How the cases of an export are built again when they are replayed: the unit, the
    flags and the sources it is compiled with, paths relative to the export's directory."""

    unit: str
    cflags: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class GlobalStub:
    """A global the unit declares `extern` and no file of the build defines (it lives in
    another module): the harness defines it, weak and zeroed so that a real definition
    linked in wins, and the cases set it like any global input."""

    name: str
    declaration: str  # template with '@' for the name, qualifiers kept


@dataclass(frozen=True)
class FileCases:
    """The cases of one C source file."""

    source: str  # the unit's path as the user named it (relative to the rootdir)
    functions: tuple[FunctionCases, ...]
    stubs: tuple[StubPrototype, ...] = ()
    build: BuildRecipe | None = None  # set in an export, for replaying it
    global_stubs: tuple[GlobalStub, ...] = ()
    # the allocation functions the unit calls (of ALLOCATOR_FUNCTIONS): the harness's own
    allocator: tuple[str, ...] = ()

    def all_cases(self) -> list[Case]:
        return [c for f in self.functions for c in f.cases]

    def callbacks(self) -> tuple[StubPrototype, ...]:
        """The callbacks of every function, each once; ValueError if two differ in all
        but the name."""
        by_name: dict[str, StubPrototype] = {}
        for s in (s for f in self.functions for s in f.callbacks):
            if by_name.setdefault(s.name, s) != s:
                raise ValueError(f"two callbacks are named {s.name}")
        return tuple(by_name.values())


def stopped_loops(fc: FileCases) -> tuple[tuple[int, int], ...]:
    """The loops (line and column) the cases of `fc` stop in: the harness counts their
    iterations (codegen/unit_copy.py)."""
    return tuple(sorted({(s.line, s.column) for f in fc.functions for c in f.cases
                         if (s := c.expected.loop_stop) is not None}))
