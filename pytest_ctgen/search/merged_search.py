"""The second engine: all paths at once, for the goals the tree search stalls on.

The tree search (generator.py) runs one path at a time, so a goal behind a loop that must
take a branch k times of n (a counter compared after the loop, a sum over an input
buffer) needs one of 2^n paths. Here the function runs forward in the weak topological
order of its blocks (ir/weak_order.py), a loop iteration by iteration, and the paths that
arrive at the same point are merged into one state whose values are conditional
(symbolic/merge.py), as a bounded model checker encodes a program. At each branch with
an uncovered outcome one query asks for inputs of any path merged there that takes it.
The inputs are then run through the executor, one path, which makes the case as any
other: the merged states only find inputs, they never predict what a case observes.

The merged states obey the search's bounds: a path beyond the unwinding or depth bound, or
one the executor cannot run, is dropped. When nothing was dropped, every path within the
bounds was merged: then an outcome the solver refused at every arrival, or that no path
arrived at, is proved unreachable, as an exhausted tree search proves it (`MergedResult`);
a path into undefined behaviour, a bound of the objects behind input pointers, an
assumption about them or an approximation of the executor leave the proof out."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..ir.cfg import CFG, Edge
from ..ir.weak_order import WeakOrder, weak_order
from ..symbolic.merge import merge
from ..symbolic.paths import BoundReached, Finished, Fork, PathError, ProgramEnds
from ..symbolic.solver import SAT, UNSAT, Model
from ..symbolic.state import State

if TYPE_CHECKING:
    from .generator import Generator

#: The most states (paths not merged) waiting at once; beyond, the latest are dropped.
_MOST_STATES = 256
#: The share of the work left that one run of this engine may spend.
_SHARE = 3

Position = tuple[tuple[int, ...], ...]


class _Orders:
    """The weak topological order of each function's blocks, made when first needed."""

    def __init__(self) -> None:
        self._orders: dict[int, WeakOrder] = {}
        self._kept: list[CFG] = []  # the CFGs the ids stand for

    def of(self, cfg: CFG) -> WeakOrder:
        order = self._orders.get(id(cfg))
        if order is None:
            order = self._orders[id(cfg)] = weak_order(cfg)
            self._kept.append(cfg)
        return order


def position(state: State, orders: _Orders) -> Position:
    """Where `state` stands in the program unrolled loop by loop: for each frame, the
    (number, arrivals) of the head of each loop it is in, outermost first, then the
    block's number and statement. Along every path this grows, so a state is run only
    after every path that can arrive at its point has arrived (and merged)."""
    key: list[tuple[int, ...]] = []
    top = len(state.frames) - 1
    for depth, frame in enumerate(state.frames):
        order = orders.of(frame.cfg)
        block = frame.block.id
        for head in order.heads[block]:
            key.append((order.position[head], _arrivals(state, depth, head)))
        # a caller stands at its call: before the statement after it, where it returns
        key.append((order.position[block], frame.index if depth == top else frame.index - 1))
    return tuple(key)


def _arrivals(state: State, depth: int, head: int) -> int:
    """How often the path has arrived at block `head` of frame `depth` (its current
    arrival included)."""
    frame = state.frames[depth]
    cfg = frame.cfg
    if head in cfg.loops:  # a loop's body: counted on arrival (Executor.begin_iteration)
        return state.loop_iterations.get((id(cfg), head), 0)
    # a loop's condition: counted when the path leaves it (Executor.take)
    passes = state.visits.get((depth + 1, id(cfg), head), 0)
    return passes + (1 if frame.block.id == head else 0)


class _Waiting:
    """The states waiting to run, by position, merged where they meet."""

    def __init__(self, orders: _Orders) -> None:
        self.orders = orders
        self.positions: list[Position] = []  # a heap
        self.states: dict[Position, list[State]] = {}
        self.count = 0
        self.dropped = False

    def add(self, state: State) -> None:
        where = position(state, self.orders)
        here = self.states.get(where)
        if here is None:
            if self.count >= _MOST_STATES:
                self.dropped = True
                return
            self.states[where] = [state]
            heapq.heappush(self.positions, where)
            self.count += 1
            return
        for i, other in enumerate(here):
            merged = merge(other, state)
            if merged is not None:
                here[i] = merged
                return
        if self.count >= _MOST_STATES:
            self.dropped = True
            return
        here.append(state)
        self.count += 1

    def next(self) -> State | None:
        while self.positions:
            where = self.positions[0]
            here = self.states[where]
            state = here.pop(0)
            self.count -= 1
            if not here:
                heapq.heappop(self.positions)
                del self.states[where]
            return state
        return None


@dataclass
class MergedResult:
    """What a merged search settled: `complete` when every path within the bounds was
    merged and run to its end with nothing assumed (see the module's docstring);
    `possible`, the outcomes a query did not refuse or a merged path took where the
    inputs did not decide (a case covers them, or its path could not be run)."""

    complete: bool = True
    possible: set[Edge] = field(default_factory=set)

    def unreachable(self, goals: set[Edge]) -> set[Edge]:
        """The outcomes of `goals` proved unreachable."""
        return goals - self.possible if self.complete else set()


def merged_search(gen: Generator) -> MergedResult:
    """Look for inputs reaching the uncovered outcomes of `gen`'s function along all
    paths at once, and add a case for each found. Spends at most a share of the work
    left; raises the generator's budget exception when the budget or the time is spent."""
    meter = gen.meter
    limit = meter.limit
    if limit > 0:
        meter.limit = meter.spent + max(1, (limit - meter.spent) // _SHARE)
    executor = gen.executor
    kept = (executor.approximation, executor.objects_too_small)
    result = MergedResult(complete=executor.approximation is None)
    try:
        _search(gen, result)
    finally:
        meter.limit = limit
        if executor.approximation is not None or executor.objects_too_small:
            result.complete = False
        executor.approximation, executor.objects_too_small = kept
    return result


def _search(gen: Generator, result: MergedResult) -> None:
    executor = gen.executor
    start = executor.initial_state()
    waiting = _Waiting(_Orders())
    waiting.add(start.fork())
    state = waiting.next()
    while state is not None and gen.goals.uncovered:
        gen.check_budget()
        taken = len(state.edges)
        try:
            outcome = executor.advance(state)
        except (BoundReached, PathError, ProgramEnds):
            result.complete = False
            state = waiting.next()
            continue
        final = outcome.state
        # outcomes the inputs did not decide: the merged paths take them without a query
        result.possible.update(final.edges[taken:])
        if final.violations or final.bounds or final.pointer_assumptions or \
                final.address_facts:
            result.complete = False  # it went on assuming something
        final.violations = []
        if isinstance(outcome, Fork):
            _branch(gen, start, outcome, waiting, result)
        state = waiting.next()
    if state is not None or waiting.dropped:
        result.complete = False


def _branch(gen: Generator, start: State, fork: Fork, waiting: _Waiting,
            result: MergedResult) -> None:
    """Ask for each uncovered outcome of the branch `fork` stops at, then let the paths go
    on along each of its edges."""
    state = fork.state
    executor = gen.executor
    at_top = len(state.frames) == 1 and state.frame.cfg is gen.cfg
    for i, guard in enumerate(fork.guards):
        if guard is None:
            continue
        goal = Edge(fork.block.id, i)
        if fork.choice is None and at_top and goal in gen.goals.uncovered:
            answer, model = gen.solver.readable([*state.constraints, guard], [])
            if answer != UNSAT:
                result.possible.add(goal)
            if model is not None:
                _replay(gen, start, model)
        follower = state.fork()
        try:
            if fork.choice is not None:
                executor.choose(follower, fork.choice, i)
            else:
                executor.take(follower, fork.block, i, guard,
                              fork.written[i] if fork.written else None)
        except (BoundReached, PathError):
            # only a path that can take the edge leaves something unexplored (a query
            # worth its cost only while the proof stands: on merged states it is large)
            if result.complete and gen.solver.check([*state.constraints, guard]) != UNSAT:
                result.complete = False
            continue
        if _at_loop_head(follower, waiting.orders) and \
                gen.solver.check(follower.constraints, quick=True) != SAT and \
                gen.solver.check(follower.constraints) == UNSAT:
            continue  # no more iterations: unrolling it on would run to the bound
        waiting.add(follower)


def _at_loop_head(state: State, orders: _Orders) -> bool:
    """Whether `state` stands at the start of a loop's cycle (an iteration begins)."""
    block = state.frame.block.id
    return state.frame.index == 0 and block in orders.of(state.frame.cfg).heads[block]


def _replay(gen: Generator, start: State, model: Model) -> None:
    """Run the one path the inputs of `model` take from `start`, and make its case."""
    state = start.fork()
    executor = gen.executor
    executor.unbounded = True
    try:
        while not state.finished:
            gen.check_budget()
            outcome = executor.advance(state)
            state.violations = []
            if isinstance(outcome, Finished):
                break
            live = [i for i, g in enumerate(outcome.guards)
                    if g is not None and gen.solver.holds(model, g)]
            if not live:
                return
            if outcome.choice is not None:
                executor.choose(state, outcome.choice, live[0])
            else:
                executor.take(state, outcome.block, live[0], outcome.guards[live[0]],
                              outcome.written[live[0]] if outcome.written else None)
    except ProgramEnds as end:  # the harness stops it in a loop (search/loop_stops.py)
        state.ending = (end.how, None)
        state.finished = True
    except (BoundReached, PathError):
        return
    finally:
        executor.unbounded = False
    gen.finish(state)
