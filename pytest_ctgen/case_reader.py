"""Reading cases back from their JSON form (`name.ctgen.json`, DESIGN §2), every field
checked by the rules of export_schema and c_text_rules (values: value_reader).

An export is data: each field that reaches C text is refused unless it is what the
generator writes (identifiers are identifiers, declarations are templates with plain
array sizes, expressions neither call nor assign, values fit their types), and a refusal
names the field: `functions[0].cases[2].params[1].declaration: ...`. At replay the unit
is known (`UnitNames`): the functions, globals and prototypes are then taken from it, and
a function pointer may only point to a function of the unit, a stub or a callback.

The JSON form holds no signatures (`cases.FunctionSignature`): those of the unit's functions
are given with the unit (frontend/signatures.py read them from its declarations) and
attached to the functions and stubs; what a function returns is checked against them.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .c_text_rules import (
    expression_problem,
    prototype_problem,
    requirement_problem,
    template_problem,
    write_target,
)
from .c_harness_files import MAX_RECEIVED_BYTES, MAX_STUB_CALLS, MOST_RECEIVED
from .cases import (
    ARGUMENT_KINDS,
    CALLBACK_PREFIX,
    ALLOCATOR_FUNCTIONS,
    CHECK_KINDS,
    ENDINGS,
    FORMAT_VERSION,
    LOOP_STOP,
    MCDC_VERDICTS,
    OBJECT_PREFIX,
    PLACEMENT,
    PROGRAM_ENDS,
    VERDICTS,
    VIOLATION_KINDS,
    Binding,
    BuildRecipe,
    Case,
    Contract,
    ContractCheck,
    Expected,
    FileCases,
    FunctionCases,
    FloatValue,
    FunctionSignature,
    GlobalStub,
    IntValue,
    LoopStop,
    McdcNote,
    Outcome,
    PointerValue,
    PredictedCall,
    SetupCall,
    StubCall,
    StubPrototype,
    StubScript,
    Violation,
)
from .export_schema import (
    UNIT_SUFFIXES,
    Field,
    SchemaError,
    UnitNames,
    cflags_problem,
    load_json,
    outside_problem,
    path_problem,
    shown,
)
from .path_flags import FORCED_INCLUDE_FLAGS, flag_paths, under_sysroot
from .value_reader import ValueScope, is_heap_name, read_value
from .value_shapes import (
    ANY,
    INT_MAX,
    INT_MIN,
    NO_UNIT,
    BindingRole,
    Shape,
    UnitShapes,
    byte_size,
    write_role,
)

__all__ = ["SchemaError", "UnitNames", "build_from_json", "file_cases_from_doc",
           "file_cases_from_json", "load_json"]

_INT32 = (-(1 << 31), (1 << 31) - 1)
_COUNT = (0, (1 << 31) - 1)


# ------------------------------------------------------------------------- bindings


def _template(f: Field) -> str:
    return f.checked(template_problem)


def _binding(f: Field, scope: ValueScope, shapes: UnitShapes, *,
             name_rule: str = "identifier", placed: bool = False, function: str = ""
             ) -> Binding:
    """A binding of a case of `function`; `name_rule`: "identifier" (a parameter),
    "object" (OBJECT_PREFIX...), "output" (an object, or one of the unit's heap objects:
    HEAP_PREFIX...), "global" (of the unit, when known) or "write" (an lvalue a stub
    writes). Its value has the shape `shapes` give its declaration."""
    name_field = f["name"]
    if name_rule == "write":
        name = name_field.string()
        if write_target(name) is None:
            name_field.fail(f"{shown(name)} is not what a stub writes (a global, "
                            "(*param) or *(unsigned char *)param)")
    else:
        name = name_field.identifier()
        heap = name_rule == "output" and is_heap_name(name)
        if name_rule in ("object", "output") and not heap and \
                not name.startswith(OBJECT_PREFIX):
            name_field.fail(f"{name} is not an object's name ({OBJECT_PREFIX}...)")
        if name_rule == "global" and scope.globals is not None and \
                name not in scope.globals:
            name_field.fail(f"{name} is not a global of the unit")
    declaration = _template(f["declaration"])
    role = write_role(name) if name_rule == "write" else _ROLES[name_rule]
    value = read_value(f["value"], shapes.binding(declaration, name, role, function), scope)
    placement = None
    if f.has("placement") and f["placement"].value is not None:
        if not placed:
            f["placement"].fail("only an object of a case is placed")
        placement = f["placement"].integer(0, PLACEMENT - 1)
    return Binding(name, declaration, value, placement)


#: What a binding read by each name rule is (value_shapes.UnitShapes.binding).
_ROLES: dict[str, BindingRole] = {"identifier": "param", "object": "object",
                                  "output": "object", "global": "global"}


def _bindings(f: Field, scope: ValueScope, shapes: UnitShapes, **kwargs: Any
              ) -> tuple[Binding, ...]:
    return tuple(_binding(item, scope, shapes, **kwargs) for item in f.items())


def _outcomes(f: Field) -> tuple[Outcome, ...]:
    return tuple(Outcome(o["line"].integer(0, INT_MAX), o["column"].integer(0, INT_MAX),
                         o["outcome"].string()) for o in f.items())


def _mcdc_notes(f: Field) -> tuple[McdcNote, ...]:
    notes = []
    for n in f.items():
        notes.append(McdcNote(n["line"].integer(0, INT_MAX), n["column"].integer(0, INT_MAX),
                              n["condition"].string(), n["decision"].string(),
                              n["verdict"].one_of(sorted(MCDC_VERDICTS))))
    return tuple(notes)


def _requirements(f: Field) -> tuple[str, ...]:
    return tuple(r.checked(requirement_problem) for r in f.items())


# ------------------------------------------------------------------------- functions


@dataclass
class _File:
    """What reading one function's cases needs of the rest of the file."""

    unit: UnitNames | None
    stubs: dict[str, StubPrototype]
    callbacks: frozenset[str]
    functions: frozenset[str] | None  # allowed function-pointer targets
    globals: frozenset[str] | None
    signatures: Mapping[str, FunctionSignature]  # of the unit's functions, when known
    seen: set[str] = field(default_factory=set)  # names of the functions read so far
    allocator: tuple[str, ...] = ()  # the allocation functions the unit calls
    callback_prototypes: Mapping[str, StubPrototype] = field(default_factory=dict)
    shapes: UnitShapes = NO_UNIT  # what the unit tells of its values


def _return_shape(name: str, signature: FunctionSignature | None, shapes: UnitShapes
                  ) -> Shape | None:
    """The shape of what the function `name` returns (None: void), from its signature;
    any value when the signature is not known."""
    if signature is None:
        return ANY
    return None if signature.returns is None else shapes.result(name, signature.returns)


def _expected(f: Field, scope: ValueScope, file: _File, returns: Shape | None,
              objects: frozenset[str], function: str) -> Expected:
    void = f.get("void", False).boolean()
    result = None
    if not void:
        if returns is None:
            f["returns"].fail("a void function returns nothing (\"void\": true)")
        result = read_value(f["returns"], returns, scope)
    expected_objects = _bindings(f.get("objects", []), scope, file.shapes,
                                 name_rule="output", function=function)
    for o, where in zip(expected_objects, f.get("objects", []).items()):
        if o.name not in objects and not (file.allocator and is_heap_name(o.name)):
            where["name"].fail(f"{o.name} is not an object of the case")
    counts = []
    for name, count in f.get("stub_calls", {}).members():
        if name not in file.stubs and name not in file.callbacks:
            count.fail(f"counts calls of {name}, which is no stub of the file")
        counts.append((name, count.integer(*_COUNT)))
    total = sum(n for _, n in counts)
    if total > MAX_STUB_CALLS:
        f["stub_calls"].fail(_too_many("counts", total))
    ending = status = None
    loop_stop: LoopStop | None = None
    if f.has("ends"):
        ends = f["ends"]
        ending = ends["how"].one_of(ENDINGS)
        status_field = ends.get("status")
        status = None if status_field.value is None else status_field.integer(*_INT32)
        loop_stop = _loop_stop(ends, ending)
    calls = _predicted_calls(f["calls_in_order"], scope, file, dict(counts)) \
        if f.has("calls_in_order") else None
    return Expected(result, _bindings(f.get("globals", []), scope, file.shapes,
                                      name_rule="global", function=function),
                    tuple(counts), expected_objects, ending, status, loop_stop, calls)


def _too_many(verb: str, calls: int) -> str:
    """Why a case with `calls` stub calls is refused: the harness would fail it, and its
    script and checks would take the compiler minutes."""
    return f"{verb} {calls} stub calls, more than the {MAX_STUB_CALLS} the harness logs " \
        "and checks of a case (CTGEN_MAX_STUB_CALLS): no such case passes"


#: The values a stub's argument of each kind (cases.StubPrototype.params) is predicted as.
_ARGUMENT_VALUES: dict[str, tuple[type, Shape]] = {
    "signed": (IntValue, Shape("int", INT_MIN, (1 << 63) - 1)),
    "unsigned": (IntValue, Shape("int", 0, INT_MAX)),
    "float": (FloatValue, ANY), "pointer": (PointerValue, Shape("pointer"))}


def _predicted_calls(f: Field, scope: ValueScope, file: _File, counts: dict[str, int]
                     ) -> tuple[PredictedCall, ...]:
    """Every stub call a case predicts, in order: each of a stub or callback of the file,
    its arguments parameters of it whose kind a case checks, with values of that kind
    (and of the parameter's type where the unit's declaration is known), as many calls
    of each stub as "stub_calls" counts."""
    if isinstance(f.value, list) and len(f.value) > MAX_STUB_CALLS:  # before reading them
        f.fail(_too_many("lists", len(f.value)))
    calls = []
    tally: dict[str, int] = {}
    received = 0
    for k in f.items():
        name = k["stub"].identifier()
        stub = file.stubs.get(name) or file.callback_prototypes.get(name)
        if stub is None:
            k["stub"].fail(f"{name} is no stub or callback of the file")
        tally[name] = tally.get(name, 0) + 1
        kinds = dict(stub.params)
        declared = {p.name: p.declaration for p in stub.signature.params} \
            if stub.signature is not None else {}
        arguments = []
        for param, v in k["arguments"].members():
            kind = kinds.get(param)
            if kind is None or param == "...":
                v.fail(f"{shown(param)} is not a parameter of {name}")
            if kind not in _ARGUMENT_VALUES:
                v.fail(f"an argument of kind {kind} is not checked")
            value_type, shape = _ARGUMENT_VALUES[kind]
            if param in declared:
                of_declaration = file.shapes.shape(declared[param])
                if of_declaration.kind == shape.kind or kind == "float":
                    shape = of_declaration
            value = read_value(v, shape, scope)
            if not isinstance(value, value_type) or \
                    (isinstance(value, PointerValue) and value.function):
                v.fail(f"expected the value of a {kind} argument, found {shown(v.value)}")
            if isinstance(value, IntValue) and not shape.low <= value.value <= shape.high:
                v.fail(f"{value.value} is out of range [{shape.low}, {shape.high}]")
            arguments.append((param, value))
        contents = _contents(k.get("contents", []), name, kinds, scope, file) \
            if k.has("contents") else ()
        received += sum(byte_size(file.shapes.shape(b.declaration)) or 0 for b in contents)
        if received > MAX_RECEIVED_BYTES:
            k["contents"].fail(f"predicts {received} bytes that stub calls are given, more "
                               f"than the {MAX_RECEIVED_BYTES} the harness keeps of a case "
                               "(CTGEN_MAX_STUB_BYTES)")
        calls.append(PredictedCall(name, tuple(arguments), contents))
    if tally != {n: c for n, c in counts.items() if c}:
        f.fail(f"lists calls {shown(tally)}, which \"stub_calls\" counts {shown(counts)}")
    return tuple(calls)


def _contents(f: Field, stub: str, kinds: dict[str, str], scope: ValueScope, file: _File
              ) -> tuple[Binding, ...]:
    """What the pointer arguments of a call of `stub` point to when it is called: each of
    a pointer parameter, once, an array of at most MOST_RECEIVED bytes."""
    contents: list[Binding] = []
    for item in f.items():
        b = _binding(item, scope, file.shapes, function=stub)
        if kinds.get(b.name) != "pointer":
            item["name"].fail(f"{b.name} is not a pointer parameter of {stub}")
        if any(c.name == b.name for c in contents):
            item["name"].fail(f"lists what {b.name} points to twice")
        shape = file.shapes.shape(b.declaration)
        size = byte_size(shape)
        if shape.kind != "array" or size is None or not 0 < size <= MOST_RECEIVED:
            item["declaration"].fail(f"expected an array of at most {MOST_RECEIVED} bytes, "
                                     f"found {shown(b.declaration)}")
        contents.append(b)
    return tuple(contents)


def _loop_stop(ends: Field, ending: str) -> LoopStop | None:
    """Where a case with the ending LOOP_STOP stops (and no such place for the others)."""
    if ending != LOOP_STOP:
        if ends.has("loop"):
            ends["loop"].fail(f"only a case that ends in a \"{LOOP_STOP}\" stops in a loop")
        return None
    loop = ends["loop"]
    line, column = (loop[key].integer(1, (1 << 31) - 1) for key in ("line", "column"))
    return LoopStop(line, column, loop["iterations"].integer(*_COUNT))


def _stub_parameter_names(stub: StubPrototype | None, unit: UnitNames | None
                          ) -> frozenset[str] | None:
    """The parameter names a write of `stub` may name: the unit's, else those its
    arguments are logged by; None when neither is known."""
    if stub is None:
        return None
    if unit is not None and stub.name in unit.params:
        return frozenset(unit.params[stub.name])
    return frozenset(p for p, _ in stub.params if p != "...") or None


def _stub_scripts(f: Field, scope: ValueScope, file: _File, counts: Mapping[str, int]
                  ) -> tuple[StubScript, ...]:
    """What each call of a stub returns and writes, for no more calls than `counts` (the
    case's "stub_calls") counts of it."""
    scripts = []
    for s in f.items():
        name = s["name"].identifier()
        stub = file.stubs.get(name)
        if stub is None and name not in file.callbacks:
            s["name"].fail(f"scripts {name}, which is no stub or callback of the file")
        listed = s["calls"].value
        if isinstance(listed, list) and len(listed) > counts.get(name, 0):
            s["calls"].fail(f"scripts {len(listed)} calls of {name}, which \"stub_calls\" "
                            f"counts {counts.get(name, 0)}")
        params = _stub_parameter_names(stub, file.unit)
        returns = _return_shape(name, stub.signature, file.shapes) if stub is not None \
            else ANY
        calls = []
        for k in s["calls"].items():
            result = read_value(k["returns"], returns or ANY, scope) if k.has("returns") \
                else None
            writes = _bindings(k.get("writes", []), scope, file.shapes, name_rule="write")
            for i, w in enumerate(writes):
                kind, target = write_target(w.name) or ("", "")
                where = k["writes"].items()[i]["name"]
                if kind == "parameter" and params is not None and target not in params:
                    where.fail(f"{target} is not a parameter of {name}")
                if kind == "global" and file.globals is not None and \
                        target not in file.globals:
                    where.fail(f"{target} is not a global of the unit")
            calls.append(StubCall(result, writes))
        scripts.append(StubScript(name, tuple(calls)))
    return tuple(scripts)


def _target_sizes(objects: Field, shapes: UnitShapes) -> Callable[[str], int | None]:
    """The size in bytes of each object `objects` lists and of each global of the unit
    (`&name`), where their declarations show it."""
    sizes = {o["name"].value: byte_size(shapes.shape(_template(o["declaration"])))
             for o in objects.items()}

    def size_of(target: str) -> int | None:
        if target.startswith("&"):
            shape = shapes.globals.get(target[1:])
            return None if shape is None else byte_size(shape)
        return sizes.get(target)
    return size_of


def _case(f: Field, function: str, returns: Shape | None, file: _File) -> Case:
    objects_field = f.get("objects", [])
    names = [o["name"].identifier() for o in objects_field.items()]
    if len(set(names)) != len(names):
        objects_field.fail("lists an object twice")
    inputs = ValueScope(frozenset(names), file.functions, file.callbacks, file.globals,
                        size_of=_target_sizes(objects_field, file.shapes))
    outputs = ValueScope(frozenset(names), file.functions, file.callbacks, file.globals,
                         input=False, heap=bool(file.allocator))
    objects = _bindings(objects_field, inputs, file.shapes, name_rule="object", placed=True,
                        function=function)
    number = f["number"].integer(1, _COUNT[1])
    params = _bindings(f["params"], inputs, file.shapes, function=function)
    globals_ = _bindings(f.get("globals", []), inputs, file.shapes, name_rule="global",
                         function=function)
    expected = _expected(f["expected"], outputs, file, returns, frozenset(names), function)
    return Case(
        function=function,
        number=number,
        params=params,
        globals=globals_,
        expected=expected,
        stubs=_stub_scripts(f.get("stubs", []), inputs, file,
                            dict(expected.stub_call_counts)),
        covered=_outcomes(f.get("covered", [])),
        requirements=_requirements(f.get("requirements", [])),
        notes=f.get("notes", []).strings(),
        objects=objects,
        violations=tuple(_violation(v) for v in f.get("violations", []).items()),
        robustness=f.get("robustness", False).boolean(),
        failing_allocations=_failing_allocations(f.get("failing_allocations", []), file),
        setup=_setup_calls(f.get("setup", []), inputs, file),
    )


def _setup_calls(f: Field, scope: ValueScope, file: _File) -> tuple[SetupCall, ...]:
    """The setup calls of a case (`--ctgen-setup`): functions the unit defines (when it
    is known), each with all its parameters, one of them the handle."""
    calls = []
    for item in f.items():
        name = item["function"].identifier()
        if file.unit is not None and name not in file.unit.defined:
            item["function"].fail(f"{name} is not a function the unit defines")
        params = _bindings(item["params"], scope, file.shapes, function=name)
        signature = file.signatures.get(name)
        if signature is not None and len(params) != len(signature.params):
            count = len(signature.params)
            item["params"].fail(f"{name} takes {count} parameter{'' if count == 1 else 's'}, "
                                f"not {len(params)}")
        if not params:
            item["params"].fail("a setup call passes the handle: it has a parameter")
        calls.append(SetupCall(name, item["handle"].integer(0, len(params) - 1), params))
    return tuple(calls)


def _failing_allocations(f: Field, file: _File) -> tuple[int, ...]:
    """The allocation calls a case fails: numbers in increasing order, of a unit that
    allocates."""
    calls = tuple(k.integer(*_COUNT) for k in f.items())
    if calls and not file.allocator:
        f.fail("the unit calls no allocation function (\"allocator\")")
    if list(calls) != sorted(set(calls)):
        f.fail("allocation calls are listed once each, in increasing order")
    return calls


def _violation(f: Field) -> Violation:
    return Violation(f["kind"].one_of(VIOLATION_KINDS), f["at"].string(),
                     f["detail"].string())


def _expression(f: Field, file: _File, local: frozenset[str]) -> str:
    """A C expression of an annotation: side-effect free, and at replay over the
    unit's names and `local` ones only."""
    unit = file.unit
    return f.checked(lambda text: expression_problem(
        text, typedefs=unit.typedefs if unit else None,
        known=unit.values() | local if unit else None))


def _contract(f: Field, function: str, file: _File) -> Contract:
    initials = f.get("initials", []).items()
    aux = [(a["name"].identifier(), _template(a["declaration"]))
           for a in f.get("aux", []).items()]
    params = frozenset(file.unit.params.get(function, ())) if file.unit else frozenset()
    local = params | {"ctgen_return"} | {f"ctgen_initial_{k}" for k in range(len(initials))} \
        | {f"ctgen_aux_{name}" for name, _ in aux}
    checks = []
    for c in f.get("checks", []).items():
        kind = c["kind"].one_of(CHECK_KINDS)
        checks.append(ContractCheck(
            kind, _expression(c.get("condition", ""), file, local), c["text"].string(),
            c["at"].string(), _expression(c.get("pre", ""), file, local),
            c.get("pre_text", "").string(), _requirements(c.get("requirements", [])),
            c.get("verdict", "").one_of(VERDICTS)))
    modifies = f.get("modifies")
    unmodified = tuple(u.identifier() for u in f.get("unmodified", []).items())
    for i, name in enumerate(unmodified):
        if file.globals is not None and name not in file.globals:
            f["unmodified"].items()[i].fail(f"{name} is not a global of the unit")
    return Contract(
        checks=tuple(checks),
        initials=tuple((_template(i["declaration"]), _expression(i["expression"], file,
                                                                  params))
                       for i in initials),
        aux=tuple(aux),
        modifies=None if modifies.value is None else
        tuple(m.identifier() for m in modifies.items()),
        unmodified=unmodified,
        bounds=f.get("bounds", "").string(),
    )


def _callback(f: Field) -> StubPrototype:
    """A callback as an export lists it: a function the harness generates."""
    name = f["name"].identifier()
    if not name.startswith(CALLBACK_PREFIX):
        f["name"].fail(f"{name} is not a callback's name ({CALLBACK_PREFIX}...)")
    prototype = f["prototype"].checked(lambda text: prototype_problem(text, name))
    shown_as = f["callback"].string()
    if not shown_as:
        f["callback"].fail("names no input")
    return StubPrototype(name, prototype, params=_parameters(f.get("params", []), False),
                         callback=shown_as)


def _parameters(f: Field, variadic: bool = True) -> tuple[tuple[str, str], ...]:
    """How a stub or callback logs its arguments: (name, kind) pairs, ("...", "...")
    last for a variadic function."""
    out = []
    items = f.items()
    for i, p in enumerate(items):
        pair = p.items()
        if len(pair) != 2:
            p.fail("expected a [name, kind] pair")
        if variadic and i == len(items) - 1 and p.value == ["...", "..."]:
            out.append(("...", "..."))
            continue
        out.append((pair[0].identifier(), pair[1].one_of(ARGUMENT_KINDS)))
    return tuple(out)


def _stub(f: Field, unit: UnitNames | None, signatures: Mapping[str, FunctionSignature]
          ) -> StubPrototype:
    name = f["name"].identifier()
    specified = f.get("specified_in_unit", False).boolean()
    if unit is not None and name in unit.defined and not specified:
        f["name"].fail(f"{name} is defined in the unit: it is no stub")
    prototype = f["prototype"].checked(lambda text: prototype_problem(text, name))
    params = _parameters(f.get("params", []))
    if unit is not None and name in unit.prototypes:  # the unit's own declaration
        prototype = unit.prototypes[name]
        own = set(unit.params.get(name, ()))
        for i, (param, _) in enumerate(params):
            if param != "..." and param not in own:
                f["params"].items()[i].fail(f"{param} is not a parameter of {name}")
    stub_params = frozenset(p for p, _ in params)
    preconditions = []
    for c in f.get("preconditions", []).items():
        if unit is not None:
            condition = c["condition"].checked(lambda text: expression_problem(
                text, typedefs=unit.typedefs, known=unit.values() | stub_params))
        else:
            condition = c["condition"].checked(expression_problem)
        preconditions.append((condition, c["at"].string()))
    return StubPrototype(
        name, prototype, f.get("library", False).boolean(), params,
        f.get("header", "").string(), tuple(preconditions), specified,
        f.get("static", False).boolean(), f.get("macro", False).boolean(),
        signature=signatures.get(name))


def _global_stub(f: Field, unit: UnitNames | None) -> GlobalStub:
    name = f["name"].identifier()
    if unit is not None and name not in unit.extern_globals:
        f["name"].fail(f"{name} is not a global the unit declares extern")
    return GlobalStub(name, _template(f["declaration"]))


def _function(f: Field, file: _File, callbacks: tuple[StubPrototype, ...]) -> FunctionCases:
    name = f["name"].identifier()
    if name in file.seen:
        f["name"].fail(f"{name} is listed twice")
    file.seen.add(name)
    prototype = f["prototype"].checked(lambda text: prototype_problem(text, name))
    if file.unit is not None and name in file.unit.defined:
        # the unit's own; a function it no longer defines keeps the file's prototype,
        # and its cases are not built (see pipeline.replay_run)
        prototype = file.unit.prototypes[name]
    signature = file.signatures.get(name) \
        if file.unit is None or name in file.unit.defined else None
    returns = _return_shape(name, signature, file.shapes)
    cases = []
    numbers: set[int] = set()
    for c in f["cases"].items():
        case = _case(c, name, returns, file)
        if case.number in numbers:
            c["number"].fail(f"case {case.number} of {name} is listed twice")
        numbers.add(case.number)
        cases.append(case)
    return FunctionCases(
        name=name,
        line=f["line"].integer(0, INT_MAX),
        prototype=prototype,
        cases=tuple(cases),
        stop_reason=f["stop_reason"].string(),
        outcomes_total=f.get("outcomes_total", 0).integer(0, INT_MAX),
        unreachable=_outcomes(f.get("unreachable", [])),
        not_reached=_outcomes(f.get("not_reached", [])),
        mcdc=_mcdc_notes(f.get("mcdc", [])),
        skip_reason=f.get("skip_reason").optional_string(),
        contract=_contract(f["contract"], name, file) if f.has("contract") else None,
        callbacks=callbacks,
        signature=signature,
    )


# ----------------------------------------------------------------------------- files


def build_from_json(doc: Any, base: Path | None = None, roots: Sequence[Path] = ()
                    ) -> BuildRecipe | None:
    """An export's build recipe (None when it has none): the unit and the sources are
    relative paths, the flags those a replay may pass to the compiler
    (export_schema.cflags_problem). With `base`, the export's directory, each file the
    recipe names (the unit, the sources, a forced include) and each relative directory
    lies in `base` or one of `roots` (export_schema.outside_problem); an absolute
    include directory (an SDK's: the export writes those outside the project so) may lie
    anywhere."""
    root = Field(doc)
    if not root.has("build"):
        return None
    f = root["build"]
    within = () if base is None else (*roots, base)

    def inside(where: Field, path: str, what: str = "") -> None:
        problem = outside_problem(path, base, within) if base is not None else None
        if problem:
            where.fail(f"{what}{shown(path)} {problem}")

    unit = f["unit"].checked(path_problem)
    if not unit.endswith(UNIT_SUFFIXES):
        f["unit"].fail(f"{shown(unit)} is not a C unit ({', '.join(UNIT_SUFFIXES)})")
    inside(f["unit"], unit)
    cflags = f.get("cflags", [])
    flags = tuple(flag.value for flag in cflags.items())
    problem = cflags_problem(flags)
    if problem is not None:
        index, message = problem
        cflags.items()[index].fail(message)
    for index, option, path in flag_paths(flags):
        if option in FORCED_INCLUDE_FLAGS or not (
                os.path.isabs(path) or under_sysroot(option, path)):
            inside(cflags.items()[index], path, f"the argument of {option} ")
    sources = tuple(s.checked(path_problem) for s in f.get("sources", []).items())
    for source, where in zip(sources, f.get("sources", []).items()):
        inside(where, source)
    return BuildRecipe(unit, flags, sources)


def file_cases_from_json(text: str, unit: UnitNames | None = None,
                         signatures: Mapping[str, FunctionSignature] | None = None,
                         shapes: UnitShapes = NO_UNIT) -> FileCases:
    """The cases of a `name.ctgen.json` text, every field checked; with `unit` (at
    replay), also against the unit, whose prototypes replace the file's. `signatures`
    are those of the unit's functions: they go to the functions the unit defines and to
    the stubs it declares (callbacks and other stubs get none). `shapes`: what the unit
    tells of its values (its enums' enumerators, which values are masks), which an
    enumerator (`{"@enum": name}`) needs and which give the values their forms
    (value_forms.py). Raises SchemaError (a ValueError naming the field) or
    json.JSONDecodeError."""
    return file_cases_from_doc(load_json(text), unit, signatures, shapes)


def file_cases_from_doc(doc: Any, unit: UnitNames | None = None,
                        signatures: Mapping[str, FunctionSignature] | None = None,
                        shapes: UnitShapes = NO_UNIT) -> FileCases:
    """file_cases_from_json of the document `load_json` read."""
    root = Field(doc)
    if root.get("format").value != "pytest-ctgen cases":
        root.get("format").fail("not a pytest-ctgen cases file")
    root["version"].integer(1, FORMAT_VERSION)
    build = build_from_json(root.value)
    signatures = signatures if signatures is not None else {}
    stubs = tuple(_stub(s, unit, signatures) for s in root.get("stubs", []).items())
    by_name: dict[str, StubPrototype] = {}
    for s, where in zip(stubs, root.get("stubs", []).items()):
        if by_name.setdefault(s.name, s) is not s:
            where["name"].fail(f"{s.name} is listed twice")
    functions_field = root["functions"].items()
    callbacks: list[tuple[StubPrototype, ...]] = []
    known: dict[str, StubPrototype] = {}
    for fn in functions_field:
        listed = tuple(_callback(c) for c in fn.get("callbacks", []).items())
        for cb, where in zip(listed, fn.get("callbacks", []).items()):
            if known.setdefault(cb.name, cb) != cb:
                where.fail(f"two callbacks are named {cb.name}")
        callbacks.append(listed)
    targets = None
    if unit is not None:
        targets = unit.defined | frozenset(by_name) | frozenset(known) | \
            frozenset(PROGRAM_ENDS)
    allocator = _allocator(root.get("allocator", []), by_name)
    file = _File(unit, by_name, frozenset(known), targets,
                 unit.globals if unit is not None else None, signatures, allocator=allocator,
                 callback_prototypes=known, shapes=shapes)
    return FileCases(
        source=root["source"].string(),
        functions=tuple(_function(fn, file, cbs)
                        for fn, cbs in zip(functions_field, callbacks)),
        stubs=stubs,
        build=build,
        global_stubs=tuple(_global_stub(g, unit)
                           for g in root.get("global_stubs", []).items()),
        allocator=allocator,
    )


def _allocator(f: Field, stubs: Mapping[str, StubPrototype]) -> tuple[str, ...]:
    """The allocation functions the unit calls, each once, in ALLOCATOR_FUNCTIONS' order,
    none a stub."""
    names = tuple(k.one_of(frozenset(ALLOCATOR_FUNCTIONS)) for k in f.items())
    if list(names) != [n for n in ALLOCATOR_FUNCTIONS if n in names]:
        f.fail(f"lists allocation functions more than once or out of the order "
               f"{', '.join(ALLOCATOR_FUNCTIONS)}")
    for i, name in enumerate(names):
        if name in stubs:
            f.items()[i].fail(f"{name} is a stub of the file")
    return names
