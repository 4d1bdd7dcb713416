"""Making a case of a solved path: its inputs, predictions, verdicts and notes read off
the model (symbolic/extract.py), free inputs given distinguishing values
(symbolic/distinct.py), and the generator's record of what the cases show (the
annotations violated, the test cases entered, the boundary comparisons met, the callbacks
named)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..cases import LOOP_NOTE, Case, StubPrototype, functions_named
from ..symbolic import addresses, distinct, extract, heap
from ..symbolic.solver import UNSAT, Condition, Model
from ..symbolic.state import Pointee, State
from . import loop_stops

if TYPE_CHECKING:
    from .generator import Generator


def add_case(gen: Generator, state: State, model: Model,
             extra_notes: tuple[str, ...] = (), kept: tuple[Condition, ...] = (),
             new_only: bool = False) -> bool:
    """The case of the path `state` with the inputs of `model`; which annotations it
    violates and which test cases it enters (by their PREs) are read off the model.
    `kept`: what the case was made for beyond its path (a comparison's sides equal),
    which the inputs keep. False when the case would depend on where objects lie in
    memory, or (`new_only`) when a case with the same inputs is there."""
    pointees = extract.case_pointees(model, state)
    given = model
    model = _visible_writes(gen, state, model, kept, pointees)
    if LOOP_NOTE in extra_notes:  # a loop case: its passes read different values
        model = distinct.spread(model, state)
    if model is not given:  # NULL flags, which decide the case's objects, may have moved
        pointees = extract.case_pointees(model, state)
    model = distinct.distinguished(model, state, pointees, kept)
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
            unset_possible=gen.executor.made_uninitialized,
            writable=ex.program.written_globals), state),
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
    if new_only and any(_same_inputs(case, c) for c in gen.cases):
        return False
    gen.violated.update(violations)
    gen.testcases_met.update(met)
    gen.cases.append(case)
    if gen.boundary is not None:
        gen.boundary.note_case(state, model, gen.solver, extra_notes, pointees, kept)
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


def _visible_writes(gen: Generator, state: State, model: Model,
                    kept: tuple[Condition, ...], pointees: list[Pointee]) -> Model:
    """`model`, or where it leaves a value the path writes as it was before the call (a
    global set to the 1 it held), a model of the same path in which the first such writes
    (`_MOST_SHOWN`) all change what they write, when the path allows that
    (distinct.hidden_writes). A boundary the new model no longer decides becomes a goal of
    the boundary cases (boundary_goals.py). `pointees`: the case's objects in `model`."""
    wishes = distinct.hidden_writes(model, state, pointees)
    if not wishes:
        return model
    holds = extract.annotations_hold(state)
    changed = gen.solver.model([*state.constraints, *kept, *wishes[:_MOST_SHOWN]],
                               gen.preferences(state))
    if changed is None or not all(gen.solver.holds(changed, c)
                                  for c in [*holds, *extract.no_overflow(state)]):
        return model
    return changed


#: The writes a case's model is asked to show at once (one query, not one per write: an
#: object of a hundred bytes that memcpy wrote would cost a search's budget).
_MOST_SHOWN = 8


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


def _same_inputs(a: Case, b: Case) -> bool:
    """Whether cases `a` and `b` give the function the same inputs."""
    return (a.params, a.globals, a.objects, a.stubs, a.setup, a.failing_allocations) == \
        (b.params, b.globals, b.objects, b.stubs, b.setup, b.failing_allocations)
