"""CTGEN's symbolic test case tree and the generation loop for one function.

The tree holds, at every branch point of every explored path, the execution state there
and which outgoing edges were explored, pruned (infeasible) or cut (a bound). Goals are the
uncovered branch outcomes of the function, ordered by their distance from its start. Each
round selects the open tree edge that is the highest-priority goal (or, when no goal is
directly open, the open edge closest to one), resumes the stored state there, and continues
the path to the function's exit, preferring uncovered edges at each later branch and asking
the solver at each branch whether the edge is feasible. A completed path that covers a new
outcome becomes a case. When no open edge can lead to a goal any more, the remaining goals
are unreachable, unless a bound, the budget or an unsupported construct cut the search, in
which case they are reported as not reached with that reason.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from ..cases import (
    STOP_APPROXIMATION, STOP_DEPTH, STOP_EXHAUSTED, STOP_SKIPPED, STOP_SOLVER, STOP_TIME,
    STOP_UNSUPPORTED, STOP_WORK, Case, Contract, ContractCheck, FunctionCases, Outcome,
    UNDEFINED_BEHAVIOUR, StubPrototype, Violation, functions_named)
from ..errors import SourceLocation, UnsupportedError
from ..frontend.ctype import declaration_of
from ..frontend.preprocess import is_va_list
from ..ir.cfg import CFG, Block, Edge, Return
from ..ir.lower import Program
from ..symbolic import addresses, extract
from ..symbolic.executor import Executor
from ..symbolic.paths import (
    AliasChoice, BoundReached, Finished, Fork, OffsetChoice, PathError, ViolationLedger)
from ..symbolic.solver import SAT, UNSAT, Solver
from ..symbolic.state import Pointee, State
from ..symbolic.work import (
    DEFAULT_TIME_BUDGET, DEFAULT_WORK_UNITS, EXECUTION_STEP, WorkMeter, execution_steps)

OPEN, EXPLORED, PRUNED, CUT = "open", "explored", "pruned", "cut"
_QUICK_GOALS = 4  # uncovered outcomes tried with the cheap check before the first by rank
_MAX_ARRAY_SIZE = 64  # the most elements input pointers point to after growing
_PATIENCE = 64  # explorations without a new case before growing the objects
_VIOLATION_TRIES = 16  # paths on which a violation of one annotation is looked for


@dataclass(frozen=True)
class SearchOptions:
    max_depth: int = 64
    work: float = DEFAULT_WORK_UNITS  # the deterministic budget (see symbolic/work.py)
    timeout: float = DEFAULT_TIME_BUDGET  # a safety net only: what it cuts depends on load
    max_recursion: int = 8
    array_size: int = 10
    stub_globals: str = "modifies"  # or "all": which globals stub calls may write
    signed_overflow: str = "note"  # or "finding": what a path with signed overflow is
    # proof mode: explore every path within the bounds, so that annotations nothing
    # violates are proved, and make robustness cases that violate the precondition
    proof: bool = False


def outcome_of(cfg: CFG, e: Edge) -> Outcome:
    """Branch outcome `e` of `cfg` as cases and reports name it."""
    loc = cfg.edge_location(e)
    return Outcome(loc.line, loc.column, cfg.edge_label(e))


def _without(constraints: list, left_out: list) -> list:
    """`constraints` without those of `left_out` (the same terms)."""
    ids = {c.get_id() for c in left_out}
    return [c for c in constraints if c.get_id() not in ids]


@dataclass(eq=False)
class TreeNode:
    """A branch point of an explored path: the state before the branch and its edges.
    A choice node (`choice` set) branches over where an input pointer points, or which
    value a symbolic offset has, instead: its edges are not outcomes of the function."""

    state: State
    block: Block
    guards: list
    depth: int
    choice: AliasChoice | OffsetChoice | None = None
    edges: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.edges = [OPEN if g is not None else PRUNED for g in self.guards]

    @property
    def in_function_under_test(self) -> bool:
        return len(self.state.frames) == 1 and self.choice is None


class Generator:
    """Generates the cases of one function."""

    def __init__(self, program: Program, function: str, options: SearchOptions,
                 shown: Callable[[str], str] = str) -> None:
        self.program = program
        self.shown = shown
        self.cfg: CFG = program.cfgs[function]
        self.options = options
        # violations of annotations and undefined behaviour a case shows, and how often
        # each other one was looked for
        self.ledger = ViolationLedger(None if options.proof else _VIOLATION_TRIES)
        self.executor = self.new_executor(options.array_size)
        self.meter = WorkMeter.of_units(options.work)
        self.steps_charged = execution_steps()  # the executor's steps charged so far
        self.solver = Solver(self.meter)
        self.order = {e: i for i, e in enumerate(self.cfg.branch_edges())}
        self.uncovered: set[Edge] = set(self.order)
        self.entry_distance = self.cfg.distances_from_entry()
        self.exit_distance: dict[int, dict[int, int]] = {}
        self.goal_distance: dict[int, int] = {}
        self.nodes: list[TreeNode] = []
        self.decisions: dict[int, list[tuple[TreeNode, int]]] = {}  # guard key -> edges taken
        self.boosted: set[tuple[int, int]] = set()  # (id(node), edge) to revisit first
        self.returns_seen: dict[int, set[int]] = {}  # callee CFG id -> return blocks taken
        self.fresh_return_cache: dict[int, tuple[tuple[int, ...], dict[int, int]]] = {}
        self.cases: list[Case] = []
        self.cut_reason: str | None = None
        self.unsupported: PathError | None = None
        self.solver_gave_up = False
        self.deadline = 0.0
        self.violated: set[Violation] = set()  # what the cases show violated
        # outcomes a finding's case runs through (it crashes or misbehaves after them):
        # reached, so never reported unreachable, though no passing case may cover them;
        # and the blocks where findings stop their paths: what the compiled code does after
        # them is not modelled, so the outcomes it can reach from there are not proved
        # unreachable either
        self.finding_edges: set[Edge] = set()
        self.finding_blocks: set[int] = set()
        # a path was infeasible perhaps only because an input pointer dereferenced before
        # the code tests it was assumed not NULL: nothing is proved unreachable then
        self.null_assumed = False
        self.testcases_met: set[int] = set()  # test cases (by index) a case enters
        self.testcases_unreachable: set[int] = set()  # no input meets their PRE
        self.explored_all = False  # proof mode: every path within the bounds was explored
        self.callbacks: dict[str, StubPrototype] = {}  # those the cases use, by name

    # ------------------------------------------------------------------ loop

    def run(self) -> FunctionCases:
        start = time.monotonic()
        self.deadline = start + self.options.timeout
        self.solver.deadline = self.deadline
        self.update_goal_distances()
        stop = STOP_EXHAUSTED
        array_size = self.options.array_size
        try:
            while not self.search_round():
                # the objects behind input pointers were too small for what is left
                array_size = min(array_size * 4, max(_MAX_ARRAY_SIZE, array_size))
                self.new_round(array_size)
            if self.uncovered:
                stop = self.budget_stop() or stop
        except _BudgetSpent as spent:
            stop = spent.stop
        except PathError as err:
            if err.unsupported and not self.cases:
                return self.skipped(err, time.monotonic() - start)
            raise
        try:
            self.testcase_goals()
        except _BudgetSpent as spent:
            stop = spent.stop
        if self.unsupported is not None and not self.cases:
            return self.skipped(self.unsupported, time.monotonic() - start)
        if stop == STOP_EXHAUSTED and (self.uncovered or not self.cases):
            if self.cut_reason is not None:
                stop = STOP_DEPTH
            elif self.solver_gave_up:
                stop = STOP_SOLVER
            elif self.unsupported is not None:
                stop = STOP_UNSUPPORTED
            elif self.executor.approximation is not None or self.null_assumed or \
                    self.behind_findings():
                stop = STOP_APPROXIMATION
        return self.result(stop, time.monotonic() - start)

    def search_round(self) -> bool:
        """Search with the current executor until every outcome is covered, nothing can be
        explored any more, or the time is up (True); False when the search should start
        over with larger objects behind input pointers: a path needed more elements and
        no new case came for a while since, or the search ran out of edges."""
        root_state = self.executor.initial_state()
        self.continue_path(root_state)
        since_case = 0
        cases = len(self.cases)
        while self.uncovered or self.options.proof or not self.cases:
            if self.budget_stop() is not None:
                return True
            if len(self.cases) != cases:
                cases, since_case = len(self.cases), 0
            grow = self.executor.objects_too_small and \
                self.executor.array_size < _MAX_ARRAY_SIZE
            if grow and since_case >= _PATIENCE:
                return False
            choice = self.select()
            if choice is None:
                if self.options.proof and not grow:
                    self.explored_all = True
                return not grow
            node, index = choice
            self.explore(node, index)
            since_case += 1
        return True

    def new_executor(self, array_size: int) -> Executor:
        o = self.options
        executor = Executor(self.program, self.cfg.function.name, o.max_depth,
                            o.max_recursion, array_size=array_size,
                            stub_globals=o.stub_globals, proof=o.proof, shown=self.shown,
                            overflow_is_finding=o.signed_overflow == "finding")
        executor.ledger = self.ledger
        return executor

    def new_round(self, array_size: int) -> None:
        """Start the search tree anew, keeping the cases found, with input pointers to
        `array_size` elements."""
        self.executor = self.new_executor(array_size)
        self.nodes = []
        self.decisions = {}
        self.boosted = set()
        self.cut_reason = None

    def skipped(self, err: PathError, seconds: float) -> FunctionCases:
        fn = self.cfg.function
        loc = err.location
        if isinstance(loc, SourceLocation):
            loc = loc.shown(self.shown)
        where = f"{loc}: " if loc else ""
        return FunctionCases(fn.name, fn.location.line, fn.prototype, (), STOP_SKIPPED,
                             len(self.order), skip_reason=f"{where}{err}",
                             generation_seconds=seconds)

    def behind_findings(self) -> set[Edge]:
        """The outcomes left that the compiled code may reach after a finding."""
        reachable = self.cfg.reachable_from(self.finding_blocks)
        return {e for e in self.uncovered - self.finding_edges if e.block in reachable}

    def result(self, stop: str, seconds: float) -> FunctionCases:
        fn = self.cfg.function
        remaining = sorted(self.uncovered - self.finding_edges, key=lambda e: self.order[e])
        behind = self.behind_findings()
        # proved: exhausted, or only what follows a finding is not modelled (the one
        # reason for an approximation stop that is neither of the others, see `run`)
        proved = stop == STOP_EXHAUSTED or (
            stop == STOP_APPROXIMATION and self.executor.approximation is None
            and not self.null_assumed)
        unreachable = tuple(self.outcome(e) for e in remaining if proved and e not in behind)
        not_reached = tuple(self.outcome(e) for e in remaining
                            if not proved or e in behind)
        return FunctionCases(
            name=fn.name, line=fn.location.line, prototype=fn.prototype,
            cases=tuple(self.cases), stop_reason=stop, outcomes_total=len(self.order),
            unreachable=unreachable,
            not_reached=not_reached,
            generation_seconds=seconds, contract=self.contract_summary(stop),
            callbacks=tuple(self.callbacks[name] for name in sorted(self.callbacks)))

    def outcome(self, e: Edge) -> Outcome:
        return outcome_of(self.cfg, e)

    # ------------------------------------------------------------- selection

    def update_goal_distances(self) -> None:
        self.goal_distance = self.cfg.distances_to(self.uncovered)

    def exit_distances(self, cfg: CFG) -> dict[int, int]:
        key = id(cfg)
        if key not in self.exit_distance:
            self.exit_distance[key] = cfg.distances_to_exit()
        return self.exit_distance[key]

    def edge_rank(self, node: TreeNode, index: int) -> tuple | None:
        """Priority of exploring edge `index` of `node` (smaller first); None when the edge
        cannot lead to an uncovered outcome (last, in proof mode or before a first case)."""
        rank = self.goal_rank(node, index)
        if rank is None and (self.options.proof or not self.cases):
            return (3, node.depth)  # every path, or any path to a first case
        return rank

    def goal_rank(self, node: TreeNode, index: int) -> tuple | None:
        if (id(node), index) in self.boosted:
            return (0, 1 << 30, node.depth)  # after the open goals, before the rest
        if node.choice is not None:
            dist = self.goal_distance.get(node.state.frames[0].block.id)
            if dist is None:
                return None
            if len(node.state.frames) == 1:
                return (1, dist, node.depth)
            return (2, dist, 1 << 20, node.depth)
        if node.in_function_under_test:
            edge = Edge(node.block.id, index)
            if edge in self.uncovered:
                return (0, self.entry_distance.get(node.block.id, 0), self.order[edge])
            target = self.cfg.edge_target(edge)
            dist = self.goal_distance.get(target.id)
            if dist is None:
                return None
            return (1, dist, node.depth)
        bottom = node.state.frames[0]
        dist = self.goal_distance.get(bottom.block.id)
        if dist is None:
            return None
        return (2, dist, self.fresh_return_distance(node, index), node.depth)

    def fresh_return_distance(self, node: TreeNode, index: int) -> int:
        """Inside a called function: how far edge `index` of `node` is from a return
        statement no path has used yet. Paths that leave the callee in new ways give the
        caller new return values, which its uncovered outcomes may need."""
        cfg = node.state.frame.cfg
        key = id(cfg)
        fresh = [b.id for b in cfg.blocks if isinstance(b.terminator, Return)
                 and b.id not in self.returns_seen.get(key, set())]
        if not fresh:
            return 1 << 20
        cached = self.fresh_return_cache.get(key)
        if cached is None or cached[0] != tuple(fresh):
            cached = (tuple(fresh), cfg._backwards_from(fresh))
            self.fresh_return_cache[key] = cached
        term = node.block.terminator
        assert term is not None
        return cached[1].get(term.successors()[index].id, 1 << 20)

    def note_returns(self, state: State) -> None:
        for cfg_id, block in state.callee_returns:
            self.returns_seen.setdefault(cfg_id, set()).add(block)

    def select(self) -> tuple[TreeNode, int] | None:
        """The open tree edge to explore next: by rank; among the first few uncovered
        outcomes, one that a cheap check shows feasible goes first, so that proofs of
        infeasibility, which can be slow, come after the outcomes that are easy to cover."""
        ranked: list[tuple[tuple, int, TreeNode, int]] = []
        alive: list[TreeNode] = []
        for n, node in enumerate(self.nodes):
            has_open = False
            for i, status in enumerate(node.edges):
                if status != OPEN:
                    continue
                has_open = True
                rank = self.edge_rank(node, i)
                if rank is not None:
                    ranked.append((rank, n, node, i))
            if has_open:
                alive.append(node)
        self.nodes = alive  # nodes without open edges are never selected again
        if not ranked:
            return None
        ranked.sort(key=lambda r: (r[0], r[1], r[3]))
        goals = [r for r in ranked if r[0][0] == 0][:_QUICK_GOALS]
        if len(goals) > 1:
            for _, _, node, i in goals:
                guard = node.guards[i]
                if self.solver.check([*node.state.constraints, guard], quick=True) == SAT:
                    return node, i
        _, _, node, i = ranked[0]
        return node, i

    def continuation_order(self, node: TreeNode) -> list[int]:
        """The order in which to try the edges of a branch met while completing a path:
        outcomes still uncovered (and not already on this path) first, then the edges
        closest to such an outcome, then the edges closest to the exit."""
        if node.choice is not None:  # its own object first: aliasing only when needed
            return [i for i, g in enumerate(node.guards) if g is not None]
        frame = node.state.frame
        exits = self.exit_distances(frame.cfg)
        term = node.block.terminator
        assert term is not None
        succs = term.successors()
        taken = set(node.state.edges)
        goal_distance = self.goal_distance
        if taken & self.uncovered:
            goal_distance = self.cfg.distances_to(self.uncovered - taken)
        ranked = []
        for i, g in enumerate(node.guards):
            if g is None:
                continue
            to_exit = exits.get(succs[i].id, 1 << 20)
            if node.in_function_under_test:
                edge = Edge(node.block.id, i)
                if edge in self.uncovered and edge not in taken:
                    ranked.append(((0, self.order[edge]), i))
                    continue
                dist = goal_distance.get(succs[i].id)
                ranked.append(((1, dist, to_exit) if dist is not None else (2, to_exit), i))
            else:
                ranked.append(((1, self.fresh_return_distance(node, i), to_exit), i))
        ranked.sort()
        return [i for _, i in ranked]

    # ------------------------------------------------------------- execution

    def budget_stop(self) -> str | None:
        """STOP_WORK when the work budget is spent, STOP_TIME when the time budget (the
        safety net) is, else None."""
        if self.meter.exhausted:
            return STOP_WORK
        if time.monotonic() > self.deadline:
            return STOP_TIME
        return None

    def check_budget(self) -> None:
        """Charges the execution steps since the last check; raises when a budget is
        spent."""
        steps = execution_steps()
        self.meter.charge((steps - self.steps_charged) * EXECUTION_STEP)
        self.steps_charged = steps
        stop = self.budget_stop()
        if stop is not None:
            raise _BudgetSpent(stop)

    def feasible(self, state: State) -> bool:
        result = self.solver.check(state.constraints)
        if result == UNSAT:
            if state.bounds and self.bounded_by_objects(state):
                self.executor.objects_too_small = True
                self.cut_reason = (f"input pointers point to {self.executor.array_size} "
                                   "elements")
            elif state.not_null and not self.null_assumed and self.solver.check(
                    _without(state.constraints, state.bounds + state.not_null)) == SAT:
                # perhaps only a NULL that an earlier dereference assumed away reaches it
                self.null_assumed = True
            return False
        if result != SAT:
            self.solver_gave_up = True
            return False
        return True

    def bounded_by_objects(self, state: State) -> bool:
        """Whether an infeasible path would be feasible with larger objects behind the
        input pointers (its constraints without those keeping accesses inside them)."""
        return self.solver.check(_without(state.constraints, state.bounds)) == SAT

    def decided(self, node: TreeNode, index: int) -> None:
        """Remember that a path took edge `index` of `node`, keyed by its guard."""
        guard = node.guards[index]
        if guard is not None:
            self.decisions.setdefault(self.solver.key(guard), []).append((node, index))

    def goal_infeasible(self, node: TreeNode, index: int) -> None:
        """An uncovered outcome is infeasible after this prefix: the earlier decisions that
        contradict it (a cheap unsat core) get their other edges explored first."""
        if not self.is_new_goal(node, index):
            return
        guard = node.guards[index]
        for c in self.solver.conflict(node.state.constraints, guard):
            for earlier, taken in self.decisions.get(self.solver.key(c), []):
                for j, status in enumerate(earlier.edges):
                    if j != taken and status == OPEN:
                        self.boosted.add((id(earlier), j))

    def explore(self, node: TreeNode, index: int) -> None:
        """Resume the stored state of `node` along edge `index` and complete the path."""
        node.edges[index] = EXPLORED
        self.decided(node, index)
        state = node.state.fork()
        try:
            self.step(node, state, index)
        except BoundReached as bound:
            node.edges[index] = CUT
            self.bound_hit(str(bound), node, index)
            return
        if not self.feasible(state):
            node.edges[index] = PRUNED
            self.goal_infeasible(node, index)
            return
        self.continue_path(state, node.depth + 1)

    def continue_path(self, state: State, depth: int = 0) -> None:
        """Run `state` to the exit of the function, adding every branch point to the tree."""
        while True:
            self.check_budget()
            try:
                outcome = self.executor.advance(state)
            except BoundReached as bound:
                self.violation_cases(state)
                self.cut_reason = str(bound)
                if bound.resumable:
                    self.complete_cut(state)
                return
            except PathError as err:
                self.violation_cases(state)  # a finding where the path ends
                if err.unsupported:
                    if self.unsupported is None:
                        self.unsupported = err
                    if not self.cases and not self.nodes:
                        raise
                return
            self.violation_cases(outcome.state)
            if isinstance(outcome, Finished):
                self.note_returns(outcome.state)
                self.finish(outcome.state)
                return
            assert isinstance(outcome, Fork)
            node = TreeNode(outcome.state, outcome.block, outcome.guards, depth,
                            outcome.choice)
            self.nodes.append(node)
            depth += 1
            chosen = self.choose_continuation(node)
            if chosen is None:
                return  # every edge infeasible, cut, or the solver gave up
            state = chosen

    def choose_continuation(self, node: TreeNode) -> State | None:
        """The state after the first feasible edge of `node` in continuation order. Among
        the uncovered edges, and then among the others, edges that cheap checks show
        feasible come first, so expensive infeasibility proofs are paid only when no edge
        of the group is easy."""
        order = self.continuation_order(node)
        successors: dict[int, State] = {}
        for i in order:
            next_state = node.state.fork()
            try:
                self.step(node, next_state, i)
            except BoundReached as bound:
                node.edges[i] = CUT
                self.bound_hit(str(bound), node, i)
                return None
            successors[i] = next_state
        goals = [i for i in order if self.is_new_goal(node, i)]
        for group in (goals, [i for i in order if i not in goals]):
            for quick in (True, False):
                for i in group:
                    if node.edges[i] != OPEN:
                        continue
                    if quick:
                        if self.solver.check(successors[i].constraints, quick=True) == SAT:
                            node.edges[i] = EXPLORED
                            self.decided(node, i)
                            return successors[i]
                        continue
                    node.edges[i] = EXPLORED
                    if self.feasible(successors[i]):
                        self.decided(node, i)
                        return successors[i]
                    node.edges[i] = PRUNED
                    self.goal_infeasible(node, i)
        return None

    def step(self, node: TreeNode, state: State, index: int) -> None:
        """Continue `state` (a fork of the node's) along edge `index` of `node`."""
        if node.choice is not None:
            self.executor.choose(state, node.choice, index)
        else:
            self.executor.take(state, node.block, index, node.guards[index])

    def is_new_goal(self, node: TreeNode, index: int) -> bool:
        """Whether edge `index` of `node` is an outcome no case and not this path covers."""
        if not node.in_function_under_test:
            return False
        edge = Edge(node.block.id, index)
        return edge in self.uncovered and edge not in node.state.edges

    def bound_hit(self, reason: str, node: TreeNode, index: int) -> None:
        """A bound cut the path at edge `index` of `node`. If the path up to there covers
        something new, fix the inputs with a model and run on concretely, without the
        bound, so the case still gets its predicted outputs."""
        self.cut_reason = reason
        state = node.state.fork()
        guard = node.guards[index]
        constraints = state.constraints + ([guard] if guard is not None else [])
        new = [e for e in state.edges if e in self.uncovered]
        if node.in_function_under_test and Edge(node.block.id, index) in self.uncovered:
            new.append(Edge(node.block.id, index))
        if not new:
            return
        model = self.solver.model(constraints, extract.preferences(state))
        if model is None:
            return
        if self.complete(state, model, lambda: self.step(node, state, index)):
            self.finish(state, model)

    def complete_cut(self, state: State) -> None:
        """A bound cut the path where nothing was left to decide (a loop counting to a
        constant past the depth bound): when the path covers something new, fix the inputs
        with a model and run on concretely without the bound, so it still gives a case."""
        if self.cases and not any(e in self.uncovered for e in state.edges):
            return
        model = self.solver.model(state.constraints, extract.preferences(state))
        if model is not None and self.complete(state, model):
            self.finish(state, model)

    def complete(self, state: State, model, first: Callable[[], None] | None = None
                 ) -> bool:
        """Run `state` to its end concretely, each decision as `model` says, without the
        bounds (after `first`, if given); whether it ended with `model` still a model."""
        self.executor.unbounded = True
        try:
            if first is not None:
                first()
            while not state.finished:
                self.check_budget()
                outcome = self.executor.advance(state)
                state.violations = []
                if isinstance(outcome, Finished):
                    break
                live = [i for i, g in enumerate(outcome.guards)
                        if g is not None and self.solver.holds(model, g)]
                if outcome.choice is not None and live:
                    self.executor.choose(state, outcome.choice, live[0])
                    continue
                if len(live) != 1:
                    return False
                self.executor.take(state, outcome.block, live[0], outcome.guards[live[0]])
        except (BoundReached, PathError):
            return False
        finally:
            self.executor.unbounded = False
        return all(self.solver.holds(model, c) for c in state.constraints)

    def finish(self, state: State, model=None) -> None:
        """A complete path: a case if it covers a new outcome (or is the first path).
        `model` fixes the inputs when the path was completed concretely."""
        new = [e for e in state.edges if e in self.uncovered]
        if not new and (self.order or any(not c.violations and not c.robustness
                                           for c in self.cases)):
            return
        if model is None:
            model = self.solver.model(state.constraints, self.preferences(state))
        if model is None:
            if self.solver.check(state.constraints) != UNSAT:
                self.solver_gave_up = True  # its outcomes are not proved unreachable
            return
        if self.add_case(state, model):
            self.uncovered.difference_update(state.edges)
            self.update_goal_distances()

    @staticmethod
    def preferences(state: State) -> list[list]:
        """What a readable model of `state` keeps if it can: the path's annotations hold
        (a violation gets a case of its own), then readable values."""
        holds = extract.annotations_hold(state)
        return ([holds] if holds else []) + extract.preferences(state)

    def violation_cases(self, state: State) -> None:
        """A case for each path that left `state` to violate an annotation or run into
        undefined behaviour, the first time such a path has a model (a few tries per
        annotation or place, every try in proof mode)."""
        pending, state.violations = state.violations, []
        for key, violating, note in pending:
            if self.ledger.settled(key):
                continue
            self.ledger.tries[key] = self.ledger.tries.get(key, 0) + 1
            model = self.solver.model(violating.constraints, extract.preferences(violating))
            if model is None:
                continue
            if not violating.finished and not self.complete(violating, model):
                continue  # a robustness path that does not end within what we model
            self.ledger.shown.add(key)
            if self.add_case(violating, model, (note,) if note else ()) and \
                    violating.ending is not None and violating.ending[0] == UNDEFINED_BEHAVIOUR:
                self.finding_edges.update(violating.edges)
                self.finding_blocks.add(violating.frames[0].block.id)

    def add_case(self, state: State, model, extra_notes: tuple[str, ...] = ()) -> bool:
        """The case of the path `state` with the inputs of `model`; which annotations it
        violates and which test cases it enters (by their PREs) are read off the model.
        False when the case would depend on where objects lie in memory."""
        violations = list(state.predicted)
        requirements: list[str] = []
        met: list[int] = []  # the test cases (by index) the case enters
        if not state.robustness:
            for violation, violated in state.contract_checks:
                if violation not in violations and self.solver.holds(model, violated):
                    violations.append(violation)
            for i, (ids, entered) in enumerate(state.testcases_entered):
                if self.solver.holds(model, entered):
                    requirements.extend(ids)
                    met.append(i)
        pointees = extract.case_pointees(model, state)
        if not self.placement_free(state, model, pointees):
            self.executor.approximation = (
                "a path whose outcome or outputs depend on where objects lie in memory "
                "(beyond the alignment a case chooses) gives no case")
            return False
        params, globals_, objects = extract.inputs(model, state, pointees)
        case = Case(
            function=self.cfg.function.name,
            number=len(self.cases) + 1,
            params=params,
            globals=globals_,
            expected=extract.expected(model, state, self.cfg.result_type, pointees),
            stubs=extract.stub_scripts(model, state),
            covered=tuple(self.outcome(e) for e in dict.fromkeys(state.edges)),
            requirements=tuple(dict.fromkeys(requirements)),
            notes=extract.notes(model, state, params, globals_) + extra_notes,
            objects=objects,
            violations=tuple(violations),
            robustness=state.robustness,
        )
        self.violated.update(violations)
        self.testcases_met.update(met)
        self.cases.append(case)
        for name in functions_named(case):
            callback = self.executor.callbacks.get(name)
            if callback is not None:
                sig = callback.signature
                self.callbacks[name] = StubPrototype(
                    name, callback.prototype,
                    params=extract.stub_parameters(sig.params, sig.type),
                    callback=callback.input)
        return True

    def placement_free(self, state: State, model, pointees: list[Pointee]) -> bool:
        """Whether the path of `state` and its predictions, with the inputs of `model`,
        hold wherever the objects whose addresses the path used lie (see
        symbolic/addresses.py)."""
        misplaced = addresses.misplacement_query(state.addresses, state.address_facts,
                                                 state.constraints, model)
        if not misplaced:
            return True
        if self.solver.check(misplaced) != UNSAT:
            return False
        moved = addresses.moved_outputs_query(
            state.addresses, state.constraints, model, extract.output_terms(state, pointees))
        return not moved or self.solver.check(moved) == UNSAT

    # ---------------------------------------------------------------- annotations

    def testcase_goals(self) -> None:
        """A case for each `__rtt_testcase` no case enters yet: inputs meeting its PRE and
        the precondition are solved for on entry and run concretely. When no input meets
        them, the test case is unreachable."""
        contract = self.executor.contract
        if contract is None:
            return
        for i, tc in enumerate(contract.testcases):
            if i in self.testcases_met:
                continue
            self.check_budget()
            state = self.executor.initial_state()
            goal = self.executor.on_entry(state, (tc.pre, *contract.preconditions))
            if goal is None:
                continue  # PRE reads through an input pointer: left to the search
            model = self.solver.model([*state.constraints, *goal], [])
            if model is None:
                if self.solver.check([*state.constraints, *goal]) == UNSAT:
                    self.testcases_unreachable.add(i)
                continue
            if not self.complete(state, model):
                continue
            entered = [e for _, e in state.testcases_entered[i:i + 1]]
            readable = self.solver.model([*state.constraints, *entered],
                                         self.preferences(state))
            self.add_case(state, readable or model)

    def contract_summary(self, stop: str) -> Contract | None:
        """The function's annotations as the harness checks them, with what generation
        found of each."""
        contract = self.executor.contract
        if contract is None:
            return None
        o = self.options
        proved = o.proof and self.explored_all and stop == STOP_EXHAUSTED and \
            not self.solver_gave_up and self.unsupported is None and \
            self.executor.approximation is None
        violated = {(v.kind, v.at) for v in self.violated}

        def verdict(kind: str, at: str) -> str:
            if (kind, at) in violated:
                return "violated"
            return "holds" if proved else ""

        at = self.executor.at
        initial_index = {id(var): k for k, (var, _, _) in enumerate(contract.initials)}
        checks = [ContractCheck("postcondition", c.check_text, c.text, at(c.location),
                                verdict=verdict("postcondition", at(c.location)))
                  for c in contract.postconditions]
        for i, tc in enumerate(contract.testcases):
            where = at(tc.location)
            checks.append(ContractCheck(
                "testcase", tc.post.check_text, tc.post.text, where,
                pre=f"ctgen_initial_{initial_index[id(tc.entered)]}", pre_text=tc.pre.text,
                requirements=tc.requirements,
                verdict="unreachable" if i in self.testcases_unreachable
                else verdict("testcase", where)))
        checks += [ContractCheck("assert", "", c.text, at(c.location),
                                 verdict=verdict("assert", at(c.location)))
                   for c in contract.asserts]
        unmodified = tuple(v.name for v in self.program.unit.globals.values()
                           if v in self.executor.forbidden)
        if contract.modifies is not None:
            checks.append(ContractCheck(
                "modifies", "", ", ".join(contract.modifies) or "nothing",
                at(self.cfg.function.location),
                verdict="violated" if any(v.kind == "modifies" for v in self.violated)
                else "holds" if proved else ""))
        bounds = (f"loops unwound at most {o.max_depth} times, recursion at most "
                  f"{o.max_recursion} deep, input pointers to at most "
                  f"{self.executor.array_size} elements, variable length arrays and alloca "
                  f"objects of at most as many")
        return Contract(
            checks=tuple(checks),
            initials=tuple((declaration_of(var.type), text)
                           for var, _, text in contract.initials),
            aux=tuple((v.name, declaration_of(v.type)) for v in contract.aux),
            modifies=contract.modifies, unmodified=unmodified,
            bounds=bounds if proved else "")


class _BudgetSpent(Exception):
    """The work budget (`stop` STOP_WORK) or the time budget (STOP_TIME) is spent."""

    def __init__(self, stop: str) -> None:
        super().__init__(stop)
        self.stop = stop


def generate_function(program: Program, function: str, options: SearchOptions,
                      shown: Callable[[str], str] = str) -> FunctionCases:
    """The cases of `function` (which must have a CFG in `program`); `shown` maps a file
    name in a location to how the user reads it.

    Raises:
        UnsupportedError: the function reads variadic arguments or takes a `va_list`,
            which the generator does not choose yet (the unit's calls of it, with their
            arguments, are executed).
    """
    cfg = program.cfgs[function]
    for param, ctype in zip(cfg.function.params, cfg.function.type.params):
        if is_va_list(ctype):
            raise UnsupportedError(f"va_list parameter '{param.name}': the generator cannot "
                                   "make one (the unit's functions that pass theirs are "
                                   "tested)", param.location)
    if cfg.variadic_area is not None:
        raise UnsupportedError("variadic function under test: its variadic arguments are "
                               "not generated yet (its callers in the unit are tested)",
                               cfg.function.location)
    return Generator(program, function, options, shown).run()
