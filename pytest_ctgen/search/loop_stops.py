"""Cases of paths that do not return: a path that reaches the loop-unwinding bound inside
a loop, when it covers something new, becomes a case the harness stops inside that loop
(the ending LOOP_STOP, cases.LoopStop) instead of no case at all.

The path is run again from the function's entry, concretely with the inputs of a model
and without the bound, until the loop is about to begin the iteration after the one in
which the path took the last outcome no case has taken (or, failing that, run on from
where it was cut until the loop begins its next iteration); there it ends, and the case
predicts what the call has done up to then (globals written, stub calls) and that the loop
ran exactly that many iterations. The harness counts the iterations where the loop's body starts
(codegen/unit_copy.py) and stops the call there.

A loop that only `break`, `return` or a call that does not return can end (`for (;;)`,
`while (1)`: firmware tasks, state machines) is stopped at once. Any other loop is first run
to its end concretely, as before; only when that does not end within the path length bound
does its case stop it, with a note that the loop may not end for these inputs (a hang).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ..cases import Expected, LoopStop
from ..ir.cfg import CFG, Block, Edge, Loop
from ..symbolic.solver import Model
from ..symbolic.state import State

if TYPE_CHECKING:
    from .generator import Generator

#: The key of a loop in `State.loop_iterations`: (id of its CFG, its body block).
LoopKey = tuple[int, int]


def loop_at(cfg: CFG, block: Block, unit_file: str) -> tuple[LoopKey, Loop] | None:
    """The loop a path cut at `block` of `cfg` is stopped in: the innermost loop without
    a condition that holds the block, else the innermost loop that does; None when the
    block is in no loop of the source, or the loop's body is not in the unit's own file
    (the harness counts iterations only there)."""
    holding = [(len(cfg.loop_blocks(head)), head) for head in cfg.loops
               if block.id in cfg.loop_blocks(head)]
    if not holding:
        return None
    holding.sort()
    endless = [head for _, head in holding if not cfg.loops[head].conditional]
    head = endless[0] if endless else holding[0][1]
    loop = cfg.loops[head]
    where = loop.location
    if where.file != unit_file or where.line <= 0 or where.column <= 0:
        return None
    return (id(cfg), head), loop


def stopped(gen: Generator, state: State, model: Model, loop: LoopKey,
            first: Callable[[], None] | None, cut: Edge | None = None) -> bool:
    """The case of `state` (cut by the bound in `loop`; `first` takes edge `cut` of the
    function under test, if that is where): the path run again from the entry with the
    inputs of `model` and stopped where the loop begins the iteration after the one in
    which it first took the last outcome new to the cases, else run on after `first` and
    stopped where the loop begins its next iteration; whether it became a case."""
    taken = [*state.edges, *([cut] if cut is not None else [])]
    new = [i for i, e in enumerate(taken)
           if e in gen.goals.uncovered and e not in taken[:i]]
    if new and _stop_case(gen, gen.executor.initial_state(), model, (*loop, new[-1] + 1),
                          None):
        return True
    return _stop_case(gen, state, model, (*loop, len(state.edges)), first)


def _stop_case(gen: Generator, state: State, model: Model, stop: tuple[int, int, int],
               first: Callable[[], None] | None) -> bool:
    """The case of `state` run on concretely after `first` as `model` says, stopped where
    `stop` says (`Executor.loop_stop`); whether it became a case."""
    gen.executor.loop_stop = stop
    try:
        done = gen.complete(state, model, first)
    finally:
        gen.executor.loop_stop = None
    cases = len(gen.cases)
    if done and state.stopped_in is not None:
        gen.finish(state, model)
    return len(gen.cases) > cases


def loop_stop(state: State) -> LoopStop | None:
    """Where the harness stops the case of `state`, if it ended in a loop."""
    if state.stopped_in is None:
        return None
    loop, iterations = state.stopped_in
    return LoopStop(loop.location.line, loop.location.column, iterations)


def with_stop(expected: Expected, state: State) -> Expected:
    """`expected` with where the harness stops the case of `state`."""
    stop = loop_stop(state)
    return expected if stop is None else replace(expected, loop_stop=stop)


def hang_notes(state: State) -> tuple[str, ...]:
    """A note on a case stopped in a loop that a condition can end: it may not end."""
    if state.stopped_in is None or not state.stopped_in[0].conditional:
        return ()
    loop, iterations = state.stopped_in
    return (f"the loop at line {loop.location.line} runs on past the depth bound for these "
            f"inputs: it may never end (the case stops it after {iterations} iterations)",)
