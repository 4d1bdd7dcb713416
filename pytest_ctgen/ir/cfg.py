"""Control flow graph of one function: blocks of statements and guarded edges.

Every conditional terminator (`Branch`, `Switch`) is a conditional jump gcc makes at -O0
(a branching construct of the source, or one of the jumps gcc's folder makes of a truth
value, ir/gccfold.py), and each of its outgoing edges is one branch outcome as gcov counts
them: a `Branch` has a "true" and a "false" edge; a `Switch` has one edge per distinct
target plus "default" (the edge to the end of the switch when there is no default label).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..errors import SourceLocation
from ..frontend.ctype import CType, IntType
from ..frontend.unit import LOCAL, PARAM, Function, Variable
from .expr import (ARITHMETIC_OPS, COMPARISON_OPS, Binary, Cast, Expr, Unary, VarRef,
                   nodes_in, written_constant)

if TYPE_CHECKING:
    from .condition_map import ConditionMap

# ------------------------------------------------------------------------- statements


class Stmt:
    location: SourceLocation


@dataclass(eq=False)
class Assign(Stmt):
    """`target = value`; value has the target's type (records are copied whole)."""

    target: Expr
    value: Expr
    location: SourceLocation


@dataclass(eq=False)
class Call(Stmt):
    """A call of `function` (a name) with arguments converted to the parameter types; the
    result, if used, is stored into `target`. A call through a function pointer has the
    pointer's value as `pointer` and no `function` ("")."""

    target: Expr | None
    function: str
    args: list[Expr]
    location: SourceLocation
    pointer: Expr | None = None


@dataclass(eq=False)
class ZeroFill(Stmt):
    """Set every byte of the object `target` to zero (aggregate initialization)."""

    target: Expr
    location: SourceLocation


@dataclass(eq=False)
class Init(Stmt):
    """Start of the lifetime of a local without initializer: its value is indeterminate.
    For a variable length array (or the object of an `alloca`), `size` is its size in
    bytes, evaluated here: its object is made here, of that size."""

    var: Variable
    location: SourceLocation
    size: Expr | None = None


@dataclass(eq=False)
class Length(Stmt):
    """`var = value`: an element count of a variable length array (C11 6.7.6.2p5), or the
    size of an `alloca` object, evaluated where its declarator (the call) is reached.
    `value` is an integer of its promoted type; a count below `minimum` (1 for an array,
    0 for `alloca`) is undefined. `var` (a size_t) holds it for the sizes computed from it."""

    var: Variable
    value: Expr
    minimum: int
    location: SourceLocation


@dataclass(eq=False)
class Eval(Stmt):
    """An expression statement's value, computed only to be dropped (its side effects are
    statements before this one). gcc -O0 does not compute it, so it changes nothing; C
    evaluates it (C11 6.8.3p2), so what it does that is undefined (a division by zero,
    an out-of-bounds read) is undefined behaviour of the path."""

    value: Expr
    location: SourceLocation


#: What a `Check` checks: a precondition or an `__rtt_assert`.
CheckKind = Literal["precondition", "assert"]


@dataclass(eq=False)
class Check(Stmt):
    """An annotation checked where it stands: "precondition" (on entry: inputs that
    violate it are not of interest) or "assert" (`__rtt_assert`: a path that violates it
    is a finding). `cond` is a side-effect-free truth value; `text` the condition as C."""

    kind: CheckKind
    cond: Expr
    text: str
    location: SourceLocation


# ------------------------------------------------------------------------ terminators


class Terminator:
    location: SourceLocation

    def successors(self) -> list[Block]:
        return []


@dataclass(eq=False)
class Goto(Terminator):
    target: Block
    location: SourceLocation

    def successors(self) -> list[Block]:
        return [self.target]


@dataclass(eq=False)
class Branch(Terminator):
    """Two-way branch on `cond != 0` (cond is a scalar)."""

    cond: Expr
    if_true: Block
    if_false: Block
    location: SourceLocation

    def successors(self) -> list[Block]:
        return [self.if_true, self.if_false]

    def labels(self) -> list[str]:
        return ["true", "false"]


@dataclass(eq=False)
class Switch(Terminator):
    """Multi-way branch on an (already promoted) integer value. `cases` group the values that
    lead to one block; `default` is the default label's block or the block after the switch."""

    value: Expr
    cases: list[tuple[tuple[int, ...], Block]]
    default: Block
    has_default: bool
    location: SourceLocation

    def successors(self) -> list[Block]:
        return [b for _, b in self.cases] + [self.default]

    def labels(self) -> list[str]:
        return ["case " + _spelled_values(values) for values, _ in self.cases] + ["default"]


def _spelled_values(values: tuple[int, ...]) -> str:
    """Case values as a label shows them, in source order; runs of three or more
    consecutive values as `low...high`."""
    runs: list[list[int]] = []
    for value in values:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ",".join(f"{run[0]}...{run[-1]}" if len(run) >= 3 else ",".join(map(str, run))
                    for run in runs)


@dataclass(eq=False)
class Return(Terminator):
    value: Expr | None
    location: SourceLocation


# ----------------------------------------------------------------------------- blocks


@dataclass(eq=False)
class Block:
    id: int
    stmts: list[Stmt] = field(default_factory=list)
    terminator: Terminator | None = None

    def __repr__(self) -> str:
        return f"Block({self.id})"


@dataclass(frozen=True)
class Loop:
    """A loop of the source: where its statement stands (its `for`, `while` or `do`), and
    whether its condition can end it (False for `for (;;)`, `while (1)`)."""

    location: SourceLocation
    conditional: bool


@dataclass(frozen=True)
class Edge:
    """Outgoing edge `index` of block `block` (index into `terminator.successors()`)."""

    block: int
    index: int


@dataclass(eq=False)
class CFG:
    function: Function
    blocks: list[Block]
    entry: Block
    locals: list[Variable]  # locals, temporaries and static locals of the function
    result_type: CType
    address_taken: set[Variable] = field(default_factory=set)
    #: Where a variadic function's `va_start` finds its variadic arguments: the address
    #: its callers pass after the named arguments (ir/lower_call.py, `variadic_arguments`); None
    #: when the function never calls `va_start`.
    variadic_area: Variable | None = None
    #: The branches that evaluate the conditions of the function's decisions (MC/DC).
    conditions: ConditionMap | None = None
    #: The loops of the function by the id of the block their body starts with: a path
    #: arrives there once per iteration.
    loops: dict[int, Loop] = field(default_factory=dict)
    #: The element counts of the parameters declared as arrays of a constant size
    #: (`const int a[16]`): the caller passes at least that many.
    declared_elements: dict[Variable, int] = field(default_factory=dict)

    def integer_operations(self) -> list[Binary]:
        """The arithmetic and bitwise operations on integers of the function's statements
        and terminators (`a + b`, `x << n`, `f & mask`; not those of annotations), in the
        order of its blocks."""
        return [n for block in self.blocks for part in (*block.stmts, block.terminator)
                if not isinstance(part, Check)
                for n in nodes_in(part) if isinstance(n, Binary) and
                n.op in ARITHMETIC_OPS and isinstance(n.type, IntType)]

    def comparisons(self) -> list[Binary]:
        """The comparisons of the function's statements and terminators (not those of
        annotations), in the order of its blocks."""
        return [n for block in self.blocks for part in (*block.stmts, block.terminator)
                if not isinstance(part, Check)
                for n in nodes_in(part) if isinstance(n, Binary) and n.op in COMPARISON_OPS]

    def local_assignments(self) -> list[Assign]:
        """The assignments to integer variables of the function itself (parameters and
        automatic locals), in the order of its blocks."""
        return [s for block in self.blocks for s in block.stmts
                if isinstance(s, Assign) and isinstance(s.target, VarRef)
                and s.target.var.kind in (PARAM, LOCAL) and isinstance(s.target.type, IntType)]

    def constant_results(self) -> list[int]:
        """The integer constants the function returns (`return INT32_MAX;`, `return -1;`),
        in the order of its blocks, each once."""
        found: dict[int, None] = {}
        for block in self.blocks:
            term = block.terminator
            if isinstance(term, Return) and term.value is not None:
                value = written_constant(term.value)
                if value is not None and isinstance(value.value, int):
                    found[value.value] = None
        return list(found)

    def value_comparisons(self) -> list[Binary]:
        """The comparisons whose value the function uses as a number (`return a >= b;`,
        `ok = x == y;`, `(a > 0) != (b > 0)`), in the order of its blocks: each comparison
        of its statements and terminators but the one a branch tests itself (under `!`
        and conversions), whose outcomes are the branch's, and those of annotations."""
        found: list[Binary] = []
        for block in self.blocks:
            tested: Expr | None = None
            if isinstance(block.terminator, Branch):
                tested = block.terminator.cond
                while isinstance(tested, (Cast, Unary)) and \
                        (isinstance(tested, Cast) or tested.op == "!"):
                    tested = tested.operand
            for part in (*block.stmts, block.terminator):
                if isinstance(part, Check):
                    continue
                found += [n for n in nodes_in(part) if isinstance(n, Binary) and
                          n.op in COMPARISON_OPS and n is not tested]
        return found

    def loop_blocks(self, head: int) -> set[int]:
        """The blocks of the loop whose body starts with block `head`: those on a cycle
        through it."""
        return {b for b in self.reachable_from({head})
                if head in self.reachable_from({b})}

    def branch_edges(self) -> list[Edge]:
        """Every branch outcome of the function, in construction order."""
        return [Edge(b.id, i) for b in self.blocks
                if isinstance(b.terminator, (Branch, Switch))
                for i in range(len(b.terminator.successors()))]

    def edge_target(self, e: Edge) -> Block:
        term = self.blocks[e.block].terminator
        assert term is not None
        return term.successors()[e.index]

    def edge_label(self, e: Edge) -> str:
        term = self.blocks[e.block].terminator
        assert isinstance(term, (Branch, Switch))
        return term.labels()[e.index]

    def edge_location(self, e: Edge) -> SourceLocation:
        term = self.blocks[e.block].terminator
        assert term is not None
        return term.location

    def distances_from_entry(self) -> dict[int, int]:
        """Breadth-first distance in edges from the entry to each reachable block."""
        dist = {self.entry.id: 0}
        queue = deque([self.entry])
        while queue:
            b = queue.popleft()
            assert b.terminator is not None
            for s in b.terminator.successors():
                if s.id not in dist:
                    dist[s.id] = dist[b.id] + 1
                    queue.append(s)
        return dist

    def reachable_from(self, sources: set[int]) -> set[int]:
        """The blocks a path from one of the blocks `sources` can reach, those included."""
        seen = set(sources)
        queue = deque(self.blocks[i] for i in sorted(sources))
        while queue:
            b = queue.popleft()
            assert b.terminator is not None
            for s in b.terminator.successors():
                if s.id not in seen:
                    seen.add(s.id)
                    queue.append(s)
        return seen

    def distances_to(self, targets: set[Edge]) -> dict[int, int]:
        """For each block, the fewest edges to take before taking one of `targets` (0 when
        the block's own terminator has a target edge). Blocks that cannot reach one are
        absent."""
        return self._backwards_from(sorted({e.block for e in targets}))

    def distances_to_exit(self) -> dict[int, int]:
        """For each block, the fewest edges to a `Return`."""
        return self._backwards_from([b.id for b in self.blocks
                                     if isinstance(b.terminator, Return)])

    def _backwards_from(self, sources: list[int]) -> dict[int, int]:
        """Breadth-first distances over reversed edges from the blocks `sources`."""
        preds: dict[int, list[int]] = {b.id: [] for b in self.blocks}
        for block in self.blocks:
            assert block.terminator is not None
            for succ in block.terminator.successors():
                preds[succ.id].append(block.id)
        dist = {b: 0 for b in sources}
        queue = deque(sources)
        while queue:
            b = queue.popleft()
            for p in preds[b]:
                if p not in dist:
                    dist[p] = dist[b] + 1
                    queue.append(p)
        return dist

    def dump(self) -> str:
        """A readable listing for debugging and tests."""
        from .expr import describe

        lines = [f"cfg {self.function.name} entry=B{self.entry.id}"]
        for b in self.blocks:
            lines.append(f"B{b.id}:")
            for s in b.stmts:
                if isinstance(s, Assign):
                    lines.append(f"  {describe(s.target)} = {describe(s.value)}")
                elif isinstance(s, Call):
                    tgt = f"{describe(s.target)} = " if s.target is not None else ""
                    args = ", ".join(describe(a) for a in s.args)
                    callee = s.function if s.pointer is None else f"(*{describe(s.pointer)})"
                    lines.append(f"  {tgt}{callee}({args})")
                elif isinstance(s, ZeroFill):
                    lines.append(f"  zero {describe(s.target)}")
                elif isinstance(s, Init):
                    size = f" [{describe(s.size)} bytes]" if s.size is not None else ""
                    lines.append(f"  init {s.var.name}{size}")
                elif isinstance(s, Length):
                    lines.append(f"  length {s.var.name} = {describe(s.value)}")
                elif isinstance(s, Eval):
                    lines.append(f"  eval {describe(s.value)}")
            t = b.terminator
            if isinstance(t, Goto):
                lines.append(f"  goto B{t.target.id}")
            elif isinstance(t, Branch):
                lines.append(f"  if {describe(t.cond)} then B{t.if_true.id} else B{t.if_false.id}"
                             f"  @{t.location.line}")
            elif isinstance(t, Switch):
                cs = ", ".join(f"{v}->B{b.id}" for v, b in t.cases)
                lines.append(f"  switch {describe(t.value)} [{cs}] default->B{t.default.id}"
                             f"  @{t.location.line}")
            elif isinstance(t, Return):
                lines.append(f"  return {describe(t.value) if t.value is not None else ''}")
        return "\n".join(lines)
