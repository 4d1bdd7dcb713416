"""Making a case of a solved path: its inputs, predictions, verdicts and notes read off
the model (symbolic/extract.py), free inputs given distinguishing values
(symbolic/distinct.py), and the generator's record of what the cases show (the
annotations violated, the test cases entered, the boundary comparisons met, the callbacks
named)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..cases import LOOP_NOTE, Case, StubPrototype, functions_named
from ..symbolic import addresses, distinct, extract, heap
from ..symbolic.solver import UNSAT, Model
from ..symbolic.state import Pointee, State
from . import loop_stops

if TYPE_CHECKING:
    from .generator import Generator


def add_case(gen: Generator, state: State, model: Model,
             extra_notes: tuple[str, ...] = ()) -> bool:
    """The case of the path `state` with the inputs of `model`; which annotations it
    violates and which test cases it enters (by their PREs) are read off the model.
    False when the case would depend on where objects lie in memory."""
    if LOOP_NOTE in extra_notes:  # a loop case: its passes read different values
        model = distinct.spread(model, state)
    pointees = extract.case_pointees(model, state)
    model = distinct.distinguished(model, state, pointees)
    violations = list(state.predicted)
    if gen.options.leaks == "fail":
        violations += heap.leaks(model, state)
    requirements: list[str] = []
    met: list[int] = []  # the test cases (by index) the case enters
    if not state.robustness:
        for violation, violated in state.contract_checks:
            if violation not in violations and gen.solver.holds(model, violated):
                violations.append(violation)
        for i, (ids, entered) in enumerate(state.testcases_entered):
            if gen.solver.holds(model, entered):
                requirements.extend(ids)
                met.append(i)
    if not _placement_free(gen, state, model, pointees):
        gen.executor.approximation = (
            "a path whose outcome or outputs depend on where objects lie in memory "
            "(beyond the alignment a case chooses) gives no case")
        return False
    ex = gen.executor
    params, globals_, objects, setup = extract.case_inputs(model, state, pointees,
                                                           ex.setup_sites, ex.setup_handle)
    case = Case(
        function=gen.cfg.function.name,
        number=len(gen.cases) + 1,
        params=params,
        globals=globals_,
        expected=loop_stops.with_stop(extract.expected(
            model, state, gen.cfg.result_type, pointees,
            unset_possible=gen.executor.made_uninitialized), state),
        stubs=extract.stub_scripts(model, state),
        covered=tuple(gen.outcome(e) for e in dict.fromkeys(state.edges)),
        requirements=tuple(dict.fromkeys(requirements)),
        notes=(extract.notes(model, state, params, globals_) + extra_notes
               + loop_stops.hang_notes(state)),
        objects=objects,
        violations=tuple(violations),
        robustness=state.robustness,
        failing_allocations=heap.failing(model, state),
        setup=setup,
    )
    gen.violated.update(violations)
    gen.testcases_met.update(met)
    gen.cases.append(case)
    if gen.boundary is not None:
        gen.boundary.note_case(state, model, gen.solver)
    for name in functions_named(case):
        callback = gen.executor.callbacks.get(name)
        if callback is not None:
            sig = callback.signature
            gen.callbacks[name] = StubPrototype(
                name, callback.prototype,
                params=extract.stub_parameters(sig.params, sig.type),
                callback=callback.input)
    gen.report_case(case)
    return True

def _placement_free(gen: Generator, state: State, model: Model,
                    pointees: list[Pointee]) -> bool:
    """Whether the path of `state` and its predictions, with the inputs of `model`,
    hold wherever the objects whose addresses the path used lie (see
    symbolic/addresses.py)."""
    misplaced = addresses.misplacement_query(state.addresses, state.address_facts,
                                             state.constraints, model)
    if not misplaced:
        return True
    if gen.solver.check(misplaced) != UNSAT:
        return False
    moved = addresses.moved_outputs_query(
        state.addresses, state.constraints, model, extract.output_terms(state, pointees))
    return not moved or gen.solver.check(moved) == UNSAT
