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
which case they are reported as not reached with that reason (search/results.py assembles
what the search reports).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


from ..cases import (
    STOP_APPROXIMATION, STOP_DEPTH, STOP_EXHAUSTED, STOP_SOLVER, STOP_TIME,
    STOP_UNSUPPORTED, STOP_WORK, Case, Contract, FunctionCases, Outcome,
    UNDEFINED_BEHAVIOUR, StubPrototype, Violation)
from ..errors import UnsupportedError
from ..frontend.ctype import CType, RecordType, parameter_list_record
from ..frontend.preprocess import is_va_list
from ..kept_cases import FoundCase
from ..ir.cfg import CFG, Edge
from ..ir.lower import Program
from ..symbolic import boundaries, extract
from ..symbolic.executor import Executor
from ..symbolic.paths import (
    AliasChoice, BoundReached, Finished, Fork, PathError, ProgramEnds, ViolationLedger)
from ..symbolic.solver import SAT, UNSAT, Condition, Model, Solver, own_context
from ..symbolic.setup_calls import setup_for
from ..symbolic.state import State
from ..symbolic.work import EXECUTION_STEP, WorkMeter, execution_steps
from . import loop_stops
from .case_making import add_case
from .merged_search import MergedResult, merged_search
from .boundary_goals import BoundaryGoals, add_boundary_cases, add_effect_cases
from .loop_findings import run_loops_on
from .callee_goals import CalleeGoals
from .options import MAX_ARRAY_SIZE, SearchOptions, larger_array_size
from .results import contract_summary, unproved, function_cases, skipped
from .selection import Goals
from .tree import CUT, EXPLORED, OPEN, PRUNED, Continuation, TreeNode, outcome_of

_PATIENCE = 64  # explorations without a new case before growing the objects
# a path run on concretely past a bound gives up after 1/_COMPLETION_SHARE of the budget
_COMPLETION_SHARE = 16
_STALL = 32  # explorations without a new case before the merged search is asked
_VIOLATION_TRIES = 16  # paths on which a violation of one annotation is looked for


def _without(constraints: list[Condition], left_out: list[Condition]) -> list[Condition]:
    """`constraints` without those of `left_out` (the same terms)."""
    ids = {c.get_id() for c in left_out}
    return [c for c in constraints if c.get_id() not in ids]


class Generator:
    """Generates the cases of one function."""

    def __init__(self, program: Program, function: str, options: SearchOptions,
                 shown: Callable[[str], str] = str,
                 found: Callable[[FoundCase], None] | None = None,
                 setup: tuple[str, ...] = ()) -> None:
        self.program = program
        self.setup = setup  # the unit's functions each case calls first (setup_calls.py)
        self.unit_file = str(program.unit.path)
        self.shown = shown
        self.cfg: CFG = program.cfgs[function]
        self.options = options
        # violations of annotations and undefined behaviour a case shows, and how often
        # each other one was looked for
        self.ledger = ViolationLedger(None if options.proof else _VIOLATION_TRIES)
        # how the objects of input pointers are made, as paths found they must be
        # (Executor.placements)
        self.placements: dict[str | RecordType, tuple[CType, int]] = {}
        self.executor = self.new_executor(options.array_size)
        self.meter = WorkMeter.of_units(options.work)
        self.steps_charged = execution_steps()  # the executor's steps charged so far
        self.solver = Solver(self.meter)
        # the order matters: attributes are freed in it, and the order z3 terms are freed
        # in decides which ids z3 gives the terms of the next function, and so its cases
        self.nodes: list[TreeNode] = []
        self.goals = Goals(self.cfg, options.criterion, CalleeGoals(
            program, function, self.unit_file) if options.goals == "reached" else None)
        self.cases: list[Case] = []
        # the comparisons cases decided with equal sides, when boundary cases are wanted
        self.boundary = BoundaryGoals(self.cfg) if options.boundary_cases == "on" else None
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
        # the blocks after which a path was infeasible perhaps only because of what was
        # assumed of input pointers (not NULL where the code did not test them yet, into
        # one object where it orders them): what they lead to is not proved unreachable
        self.assumed_blocks: set[int] = set()
        self.testcases_met: set[int] = set()  # test cases (by index) a case enters
        self.testcases_unreachable: set[int] = set()  # no input meets their PRE
        self.explored_all = False  # proof mode: every path within the bounds was explored
        self.callbacks: dict[str, StubPrototype] = {}  # those the cases use, by name
        # the goals a merged search (search/merged_search.py) last found nothing for
        self.merged_fruitless: frozenset[Edge] | None = None
        # the loop a path is run on in, looking for findings (search/loop_findings.py)
        # a continuation other than the search's (loop_findings, boundary_goals), and the
        # paths that become a case, noted so, although they cover nothing new
        self.staying: Continuation | None = None
        self.wanted_path: tuple[Callable[[State], bool], tuple[str, ...]] | None = None
        # told of each case as it is made (kept should generation be stopped from outside),
        # and what it was told of the callbacks and the annotations
        self.found = found
        self.callbacks_reported: set[str] = set()
        self.contract_reported: Contract | None = None

    # ------------------------------------------------------------------ loop

    def run(self) -> FunctionCases:
        start = time.monotonic()
        self.deadline = start + self.options.timeout
        self.solver.deadline = self.deadline
        stop = STOP_EXHAUSTED
        try:
            if self.setup:
                self.search_from_setup()
            self.search_rounds()
            if self.goals.uncovered or self.goals.targeted:
                stop = self.budget_stop() or stop
        except _BudgetSpent as spent:
            stop = spent.stop
        except PathError as err:
            if err.unsupported and not self.cases:
                return skipped(self, err, time.monotonic() - start)
            raise
        try:
            self.testcase_goals()
        except _BudgetSpent as spent:
            stop = spent.stop
        for extras in (add_boundary_cases, add_effect_cases):
            try:
                extras(self)
            except _BudgetSpent as spent:  # only the safety net is worth reporting
                if spent.stop == STOP_TIME:
                    stop = spent.stop
        try:
            run_loops_on(self)
        except _BudgetSpent as spent:  # as the boundary cases
            if spent.stop == STOP_TIME:
                stop = spent.stop
        if self.unsupported is not None and not self.cases:
            return skipped(self, self.unsupported, time.monotonic() - start)
        if stop == STOP_EXHAUSTED and (self.goals.uncovered or not self.cases or
                                       self.goals.mcdc_gaps):
            if self.cut_reason is not None:
                stop = STOP_DEPTH
            elif self.solver_gave_up:
                stop = STOP_SOLVER
            elif self.unsupported is not None:
                stop = STOP_UNSUPPORTED
            elif self.executor.approximation is not None or unproved(self):
                stop = STOP_APPROXIMATION
        return function_cases(self, stop, time.monotonic() - start)

    def search_rounds(self) -> None:
        """Search, starting anew with other objects behind input pointers as long as a
        round finds they were too small for what is left: room before where a pointer
        points, or else more elements."""
        array_size = self.executor.array_size
        while not self.search_round():
            if self.new_placements():
                self.placements.update(self.executor.placements_wanted)
            else:
                array_size = larger_array_size(array_size)
            self.new_round(array_size)

    def search_from_setup(self) -> None:
        """The first rounds, with half the work budget: cases that start from the states
        the setup calls build (symbolic/setup_calls.py). The outcomes they leave are then
        searched for from any input, as without setup: the defensive code no built state
        takes (a NULL handle, a size of 0) is covered or proved unreachable too; in proof
        mode every path from any input is explored, so annotations are proved of all."""
        meter = self.meter
        limit = meter.limit
        if limit > 0:
            meter.limit = meter.spent + (limit - meter.spent) // 2
        try:
            self.search_rounds()
        except _BudgetSpent as spent:
            if spent.stop == STOP_TIME or (limit > 0 and meter.spent >= limit):
                raise
        finally:
            meter.limit = limit
        self.setup = ()
        if self.goals.uncovered or self.goals.targeted or self.options.proof:
            self.new_round(self.options.array_size)

    def search_round(self) -> bool:
        """Search with the current executor until every outcome is covered, nothing can be
        explored any more, or the time is up (True); False when the search should start
        over with larger objects behind input pointers: a path needed more elements and
        no new case came for a while since, or the search ran out of edges."""
        root_state = self.executor.initial_state()
        self.continue_path(root_state)
        since_case = 0
        cases = len(self.cases)
        while self.goals.uncovered or self.options.proof or not self.cases or \
                self.goals.targeted or self.goals.callees_left:
            if self.budget_stop() is not None:
                return True
            self.finish_kept()
            if len(self.cases) != cases:
                cases, since_case = len(self.cases), 0
            grow = self.new_placements() or (self.executor.objects_too_small and \
                self.executor.array_size < MAX_ARRAY_SIZE)
            if grow and since_case >= _PATIENCE:
                return False
            choice = self.goals.select(self.nodes, self.solver,
                                       self.options.proof or not self.cases)
            if choice is None:
                if not grow and self.goals.exhaust():
                    continue  # other MC/DC targets
                if self.options.proof and not grow:
                    self.explored_all = True
                return not grow
            node, index = choice
            self.explore(node, index)
            since_case += 1
            if since_case == _STALL and self.goals.uncovered and self.search_merged():
                return True
        return True

    def search_merged(self) -> bool:
        """The tree search stalls: look for the uncovered outcomes along all paths at once
        (search/merged_search.py), with a share of the work left. True when that proved
        every outcome left unreachable, so the search is done."""
        goals = frozenset(self.goals.uncovered)
        if goals == self.merged_fruitless:
            return False  # it would search the same paths for the same goals again
        cases = len(self.cases)
        result = MergedResult(complete=False)
        try:
            result = merged_search(self)
        except _BudgetSpent as spent:
            if spent.stop == STOP_TIME or self.meter.exhausted:
                raise  # not only its share: the budget is spent
        if len(self.cases) == cases:
            self.merged_fruitless = goals
        left = self.goals.uncovered
        if not left or self.options.proof or self.goals.targeted or self.goals.callees_left \
                or result.unreachable(left) != left:
            return False
        # every path within the bounds was run, none of them past a bound: what the tree
        # search left open or cut does not stand in the way of the proof
        self.cut_reason = None
        self.solver_gave_up = False
        return True

    def new_placements(self) -> bool:
        """Whether a path found an input pointer's object must be made otherwise: with
        room before where the pointer points, or as a callback."""
        return any(self.placements.get(name) != placed
                   for name, placed in self.executor.placements_wanted.items())

    def finish_kept(self) -> None:
        """Make the cases of the paths kept for the MC/DC targets (search/mcdc_goals.py)."""
        mcdc = self.goals.mcdc
        kept = mcdc.kept_target() if mcdc is not None else None
        while kept is not None:
            self.finish(*kept)
            kept = mcdc.kept_target() if mcdc is not None else None

    def new_executor(self, array_size: int) -> Executor:
        o = self.options
        executor = Executor(self.program, self.cfg.function.name, o.max_depth,
                            o.max_recursion, array_size=array_size,
                            stub_globals=o.stub_globals, proof=o.proof, shown=self.shown,
                            overflow_is_finding=o.signed_overflow == "finding",
                            input_globals=o.input_globals, setup=self.setup)
        executor.ledger = self.ledger
        executor.placements = dict(self.placements)
        executor.record_callee_edges = o.goals == "reached"
        if o.boundary_cases == "on":  # their outcomes are goals of boundary cases
            executor.value_sites = {id(c): k for k, c in enumerate(self.cfg.value_comparisons())}
            executor.operation_sites = {
                id(c): k for k, c in enumerate(self.cfg.integer_operations())}
            executor.assignment_sites = {
                id(s): k for k, s in enumerate(self.cfg.local_assignments())}
            executor.comparison_sites = {
                id(c): k for k, c in enumerate(self.cfg.comparisons())}
        return executor

    def new_round(self, array_size: int) -> None:
        """Start the search tree anew, keeping the cases found, with input pointers to
        `array_size` elements."""
        self.executor = self.new_executor(array_size)
        self.nodes = []
        self.merged_fruitless = None  # larger objects: worth another try
        self.goals.forget_tree()
        if self.boundary is not None:  # their states are of the old executor
            self.boundary.forget()
        self.cut_reason = None

    def outcome(self, e: Edge) -> Outcome:
        return outcome_of(self.cfg, e)

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
            elif state.pointer_assumptions:
                self.assumption_pruned(state)
            return False
        if result != SAT:
            self.solver_gave_up = True
            return False
        return True

    def assumption_pruned(self, state: State) -> None:
        """The infeasible `state` may be infeasible only because of what it assumed of
        input pointers (`State.pointer_assumptions`): then what follows its last outcome is
        not proved unreachable. One query, unless that is known already."""
        block = state.edges[-1].block if state.edges else self.cfg.entry.id
        if block in self.cfg.reachable_from(self.assumed_blocks):
            return
        assumed = state.bounds + state.pointer_assumptions
        if self.solver.check(_without(state.constraints, assumed)) == SAT:
            self.assumed_blocks.add(block)

    def bounded_by_objects(self, state: State) -> bool:
        """Whether an infeasible path would be feasible with larger objects behind the
        input pointers (its constraints without those keeping accesses inside them)."""
        return self.solver.check(_without(state.constraints, state.bounds)) == SAT

    def explore(self, node: TreeNode, index: int) -> None:
        """Resume the stored state of `node` along edge `index` and complete the path."""
        node.edges[index] = EXPLORED
        self.goals.decided(node, index, self.solver)
        state = node.state.fork()
        try:
            self.step(node, state, index)
        except BoundReached as bound:
            node.edges[index] = CUT
            self.bound_hit(str(bound), node, index)
            return
        if not self.feasible(state):
            node.edges[index] = PRUNED
            self.goals.goal_infeasible(node, index, self.solver)
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
                self.goals.note_returns(outcome.state)
                self.finish(outcome.state)
                return
            assert isinstance(outcome, Fork)
            node = TreeNode(outcome.state, outcome.block, outcome.guards, depth,
                            outcome.choice, outcome.written)
            self.nodes.append(node)
            if self.boundary is not None:
                self.boundary.offer(node)
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
        ordered = self.goals.continuation_groups(node)
        order = [i for group in ordered for i in group]
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
        goals = [i for i in order if self.goals.is_new_goal(node, i)]
        groups = [goals, *([i for i in group if i not in goals] for group in ordered)]
        if self.staying is not None:  # running a loop on (for findings, for a loop case)
            groups = self.staying.groups(node, order) or groups
        for group in groups:
            for quick in (True, False):
                for i in group:
                    if node.edges[i] != OPEN:
                        continue
                    if quick:
                        if self.solver.check(successors[i].constraints, quick=True) == SAT:
                            node.edges[i] = EXPLORED
                            self.goals.decided(node, i, self.solver)
                            return successors[i]
                        continue
                    node.edges[i] = EXPLORED
                    if self.feasible(successors[i]):
                        self.goals.decided(node, i, self.solver)
                        return successors[i]
                    node.edges[i] = PRUNED
                    self.goals.goal_infeasible(node, i, self.solver)
        return None

    def step(self, node: TreeNode, state: State, index: int) -> None:
        """Continue `state` (a fork of the node's) along edge `index` of `node`."""
        if node.choice is not None:
            self.executor.choose(state, node.choice, index)
        else:
            self.executor.take(state, node.block, index, node.guards[index],
                               node.written[index] if node.written else None)

    def bound_hit(self, reason: str, node: TreeNode, index: int) -> None:
        """A bound cut the path at edge `index` of `node`. If the path up to there covers
        something new, fix the inputs with a model and run on concretely, without the
        bound, so the case still gets its predicted outputs."""
        self.cut_reason = reason
        state = node.state.fork()
        guard = node.guards[index]
        constraints = state.constraints + ([guard] if guard is not None else [])
        new = [e for e in state.edges if e in self.goals.uncovered]
        if self.goals.callees is not None:
            new += [e for _, e in self.goals.callees.new(state)]
        if node.in_function_under_test and Edge(node.block.id, index) in self.goals.uncovered:
            new.append(Edge(node.block.id, index))
        if not new:
            return
        model = self.solver.model(constraints, extract.preferences(state))
        stop = loop_stops.loop_at(state.frame.cfg, node.block, self.unit_file)
        if model is not None and (stop is None or stop[1].conditional) and \
                self.complete(state, model, lambda: self.step(node, state, index)):
            self.finish(state, model)
            return
        if stop is None:
            return
        # stopped in the loop: along the edge cut if it can be taken, else along the one
        # the inputs of a model of the path up to the branch take
        if model is not None:
            state = node.state.fork()
            cut = Edge(node.block.id, index) if node.in_function_under_test else None
            if loop_stops.stopped(self, state, model, stop[0],
                                  lambda: self.step(node, state, index), cut):
                return
        state = node.state.fork()
        model = self.solver.model(state.constraints, extract.preferences(state))
        if model is not None:
            loop_stops.stopped(self, state, model, stop[0], None)

    def complete_cut(self, state: State) -> None:
        """A bound cut the path where nothing was left to decide (a loop counting to a
        constant past the depth bound): when the path covers something new, fix the inputs
        with a model and run on concretely without the bound, so it still gives a case."""
        if self.cases and not any(e in self.goals.uncovered for e in state.edges) and not (
                self.goals.callees is not None and self.goals.callees.new(state)):
            return
        model = self.solver.model(state.constraints, extract.preferences(state))
        if model is None:
            return
        stop = loop_stops.loop_at(state.frame.cfg, state.frame.block, self.unit_file)
        if stop is not None and not stop[1].conditional:
            loop_stops.stopped(self, state, model, stop[0], None)
            return
        cut = state.fork() if stop is not None else None
        if self.complete(state, model):
            self.finish(state, model)
        elif stop is not None and cut is not None:
            loop_stops.stopped(self, cut, model, stop[0], None)

    def complete(self, state: State, model: Model,
                 first: Callable[[], None] | None = None,
                 chosen: dict[str, int] | None = None) -> bool:
        """Run `state` to its end concretely, each decision as `model` says, without the
        bounds (after `first`, if given); whether it ended with `model` still a model,
        within a share of the budget (a path around a cycle of links never ends). Where an
        input pointer may point is, among what the model allows, what `chosen` says
        (State.chosen of the path the model was solved along), else its first
        alternative."""
        self.executor.unbounded = True
        # a path that cannot end (a cycle through the links it chose) gives up at this
        most = self.meter.spent + self.meter.limit // _COMPLETION_SHARE \
            if self.meter.limit else None
        try:
            if first is not None:
                first()
            while not state.finished:
                self.check_budget()
                if most is not None and self.meter.spent > most:
                    return False
                outcome = self.executor.advance(state)
                state.violations = []
                if isinstance(outcome, Finished):
                    break
                live = [i for i, g in enumerate(outcome.guards)
                        if g is not None and self.solver.holds(model, g)]
                if outcome.choice is not None and live:
                    again = chosen.get(outcome.choice.pointer.choice) if chosen and \
                        isinstance(outcome.choice, AliasChoice) else None
                    self.executor.choose(state, outcome.choice,
                                         again if again in live else live[0])
                    continue
                if len(live) != 1:
                    return False
                self.executor.take(state, outcome.block, live[0], outcome.guards[live[0]],
                                   outcome.written[live[0]] if outcome.written else None)
        except ProgramEnds as end:  # the harness stops it in a loop (search/loop_stops.py)
            state.ending = (end.how, None)
            state.finished = True
        except (BoundReached, PathError):
            return False
        finally:
            self.executor.unbounded = False
        return all(self.solver.holds(model, c) for c in state.constraints)

    def finish(self, state: State, model: Model | None = None) -> None:
        """A complete path: a case if it covers a new outcome (or is the first path).
        `model` fixes the inputs when the path was completed concretely."""
        new = [e for e in state.edges if e in self.goals.uncovered]
        if self.goals.callees is not None:
            new += [e for _, e in self.goals.callees.new(state)]
        wanted = self.goals.mcdc is not None and self.goals.mcdc.wanted(state, model)
        extra, notes = self.wanted_path or (None, ())
        if extra is not None and extra(state):
            wanted = True
        else:
            notes = ()
        if not new and not wanted and (self.goals.order or any(
                not c.violations and not c.robustness for c in self.cases)):
            return
        if model is None:
            model = self.solver.model(state.constraints, self.preferences(state))
        if model is None:
            if self.solver.check(state.constraints) != UNSAT:
                self.solver_gave_up = True  # its outcomes are not proved unreachable
            elif state.pointer_assumptions:  # infeasible since its last fork, perhaps by them
                self.assumption_pruned(state)
            return
        if self.add_case(state, model, notes):
            self.goals.covered(state.edges)
            if self.goals.callees is not None:
                self.goals.callees.covered(state)

    @contextmanager
    def side_paths(self) -> Iterator[None]:
        """Paths run after the search for extras (loop_findings, boundary_goals) go past
        its bounds and assumptions: what the search reports of them is kept as it was."""
        executor = self.executor
        kept = (self.cut_reason, self.solver_gave_up, self.unsupported,
                set(self.assumed_blocks), executor.approximation, executor.objects_too_small)
        try:
            yield
        finally:
            (self.cut_reason, self.solver_gave_up, self.unsupported, self.assumed_blocks,
             executor.approximation, executor.objects_too_small) = kept

    def preferences(self, state: State) -> list[list[Condition]]:
        """What a readable model of `state` keeps if it can: the path's annotations hold
        (a violation gets a case of its own), then the integer comparisons it decides at
        their boundaries (not on floating-point paths, whose tiers hold whole or not at
        all: there they cost queries, and readable floats come first), then readable
        values."""
        holds = extract.annotations_hold(state)
        tiers = extract.preferences(state)
        if not self.solver.on_floats(state.constraints):
            tiers = boundaries.with_boundaries(state, tiers)
        return ([holds] if holds else []) + tiers

    def violation_cases(self, state: State) -> None:
        """A case for each path that left `state` to violate an annotation or run into
        undefined behaviour, the first time such a path has a model (a few tries per
        annotation or place, every try in proof mode)."""
        pending, state.violations = state.violations, []
        for key, violating, note in pending:
            if self.ledger.settled(key):
                continue
            self.ledger.tries[key] = self.ledger.tries.get(key, 0) + 1
            answer, model = self.solver.readable(violating.constraints,
                                                 extract.preferences(violating))
            finding = violating.ending is not None and \
                violating.ending[0] == UNDEFINED_BEHAVIOUR
            if finding and model is not None:
                model = self.just_into(violating) or model
            if model is None:
                if finding and answer != UNSAT:
                    # the path went on assuming the error away: what follows is not proved
                    self.solver_gave_up = True
                continue
            if not violating.finished and not self.complete(violating, model):
                continue  # a robustness path that does not end within what we model
            self.ledger.shown.add(key)
            if self.add_case(violating, model, (note,) if note else ()) and finding:
                self.finding_edges.update(violating.edges)
                self.finding_blocks.add(violating.frames[0].block.id)

    def just_into(self, state: State) -> Model | None:
        """A readable model of the path into a finding `state` that decides its integer
        comparisons at their boundaries where it can, so the inputs run just into the
        error (`i <= n` over `int a[4]`: n = 4, one element past the end, not n = 38,
        whose writes past a global may wreck the run); None on floating-point paths and
        where the path decides no comparison."""
        if self.solver.on_floats(state.constraints):
            return None
        readable = extract.preferences(state)
        tiers = boundaries.with_boundaries(state, readable)
        return None if tiers is readable else self.solver.model(state.constraints, tiers)

    def add_case(self, state: State, model: Model, extra_notes: tuple[str, ...] = (),
                 kept: tuple[Condition, ...] = (), new_only: bool = False) -> bool:
        """The case of the path `state` with the inputs of `model` (search/case_making.py);
        False when the case would depend on where objects lie in memory, or (`new_only`)
        when a case with the same inputs is there."""
        return add_case(self, state, model, extra_notes, kept, new_only)

    def report_case(self, case: Case) -> None:
        """Tell `found` of `case`, just made: with the callbacks no case named before, and
        the annotations when what the cases decide of them changed."""
        if self.found is None:
            return
        names = sorted(set(self.callbacks) - self.callbacks_reported)
        self.callbacks_reported.update(names)
        contract = contract_summary(self, STOP_TIME)  # a stopped search proves nothing
        changed = contract if contract != self.contract_reported else None
        self.contract_reported = contract
        self.found(FoundCase(case, tuple(self.callbacks[n] for n in names), changed))

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



class _BudgetSpent(Exception):
    """The work budget (`stop` STOP_WORK) or the time budget (STOP_TIME) is spent."""

    def __init__(self, stop: str) -> None:
        super().__init__(stop)
        self.stop = stop


def generate_function(program: Program, function: str, options: SearchOptions,
                      shown: Callable[[str], str] = str,
                      found: Callable[[FoundCase], None] | None = None) -> FunctionCases:
    """The cases of `function` (which must have a CFG in `program`); `shown` maps a file
    name in a location to how the user reads it; `found` is told of each case as it is
    made.

    Raises:
        UnsupportedError: the function reads variadic arguments or takes a `va_list`,
            which the generator does not choose yet (the unit's calls of it, with their
            arguments, are executed), or a parameter's type holds a record declared in
            its parameter list.
    """
    cfg = program.cfgs[function]
    for param, ctype in zip(cfg.function.params, cfg.function.type.params):
        if is_va_list(ctype):
            raise UnsupportedError(f"va_list parameter '{param.name}': the generator cannot "
                                   "make one (the unit's functions that pass theirs are "
                                   "tested)", param.location)
        hidden = parameter_list_record(ctype)
        if hidden is not None:
            raise UnsupportedError(
                f"parameter '{param.name}': {hidden} is declared in its parameter list, "
                "where nothing outside the function can name it (gcc warns so), so the "
                f"test harness cannot make the argument; declare the {hidden.kind} at file "
                "scope", param.location)
    if cfg.variadic_area is not None:
        raise UnsupportedError("variadic function under test: its variadic arguments are "
                               "not generated yet (its callers in the unit are tested)",
                               cfg.function.location)
    setup = setup_for(program, function, options.setup)
    with own_context():
        return Generator(program, function, options, shown, found, setup).run()
