"""What the search of one function reports (`Generator.run`): its cases, and the outcomes
no case covers, proved unreachable or only not reached; the verdicts on its annotations; or
why the function was skipped."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..cases import (
    STOP_APPROXIMATION, STOP_EXHAUSTED, STOP_SKIPPED, Contract, FunctionCases)
from ..errors import SourceLocation
from ..ir.cfg import Edge
from ..symbolic.paths import PathError
from .contracts import summarize_contract

if TYPE_CHECKING:
    from .generator import Generator


def skipped(gen: Generator, err: PathError, seconds: float) -> FunctionCases:
    """The function skipped, without cases, for `err`."""
    fn = gen.cfg.function
    loc = err.location
    if isinstance(loc, SourceLocation):
        loc = loc.shown(gen.shown)
    where = f"{loc}: " if loc else ""
    return FunctionCases(fn.name, fn.location.line, fn.prototype, (), STOP_SKIPPED,
                         len(gen.goals.order), skip_reason=f"{where}{err}",
                         generation_seconds=seconds)


def unproved(gen: Generator) -> set[Edge]:
    """The outcomes left that the compiled code may reach after a finding, or that a path
    may reach that was infeasible only by what it assumed of input pointers."""
    reachable = gen.cfg.reachable_from(gen.finding_blocks | gen.assumed_blocks)
    return {e for e in gen.goals.uncovered - gen.finding_edges if e.block in reachable}


def function_cases(gen: Generator, stop: str, seconds: float) -> FunctionCases:
    """The cases found and the outcomes left when the search stopped for `stop`."""
    fn = gen.cfg.function
    order = gen.goals.order
    remaining = sorted(gen.goals.uncovered - gen.finding_edges, key=lambda e: order[e])
    behind = unproved(gen)
    # proved: exhausted, or only what follows a finding or an assumption about input
    # pointers is not modelled (the reasons for an approximation stop that is not the
    # executor's, see `Generator.run`)
    proved = stop == STOP_EXHAUSTED or (
        stop == STOP_APPROXIMATION and gen.executor.approximation is None)
    unreachable = tuple(gen.outcome(e) for e in remaining if proved and e not in behind)
    not_reached = tuple(gen.outcome(e) for e in remaining
                        if not proved or e in behind)
    mcdc = gen.goals.mcdc
    notes = mcdc.notes(proved, gen.cfg.reachable_from(
        gen.finding_blocks | gen.assumed_blocks)) if mcdc is not None else ()
    return FunctionCases(
        name=fn.name, line=fn.location.line, prototype=fn.prototype,
        cases=tuple(gen.cases), stop_reason=stop, outcomes_total=len(gen.goals.order),
        unreachable=unreachable,
        not_reached=not_reached, mcdc=notes,
        generation_seconds=seconds, contract=contract_summary(gen, stop),
        callbacks=tuple(gen.callbacks[name] for name in sorted(gen.callbacks)))


def contract_summary(gen: Generator, stop: str) -> Contract | None:
    """The function's annotations as the harness checks them, with what generation
    found of each."""
    contract = gen.executor.contract
    if contract is None:
        return None
    o = gen.options
    # nothing after a finding, nor behind a pointer assumed not NULL, is modelled
    proved = o.proof and gen.explored_all and stop == STOP_EXHAUSTED and \
        not gen.solver_gave_up and gen.unsupported is None and \
        gen.executor.approximation is None and not gen.finding_blocks and \
        not gen.assumed_blocks
    unmodified = tuple(v.name for v in gen.program.unit.globals.values()
                       if v in gen.executor.forbidden)
    bounds = (f"loops unwound at most {o.max_depth} times, recursion at most "
              f"{o.max_recursion} deep, input pointers to at most "
              f"{gen.executor.array_size} elements, variable length arrays and alloca "
              f"objects of at most as many")
    return summarize_contract(
        contract, gen.executor.at, proved=proved, violated=gen.violated,
        unreachable_testcases=gen.testcases_unreachable, unmodified=unmodified,
        function_at=gen.executor.at(gen.cfg.function.location),
        bounds=bounds if proved else "")
