"""How a case shows its integers (`cases.IntForm`, given them by the unit's shapes,
value_shapes.UnitShapes): in failure messages, the export's JSON and the driver's C.

- A value of an enum type is the name of its enumerator where one of the type's
  enumerators has exactly that value (the first declared, where several have it); a value
  none has stays a number. JSON: `{"@enum": "MS_RUNNING"}`.
- A value of an unsigned integer type (not _Bool, plain char or an enum) that the unit's
  code uses as a bit mask (frontend/mask_uses.py) is in hex, with as many digits as its
  type has (`0x0080` for a uint16_t, `0x5` for a 3-bit field), 0 too. JSON: the string
  `"0x0080"`.

Old exports give numbers: they read as well, and show the same forms.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .cases import (
    ArrayValue,
    Binding,
    Case,
    FileCases,
    FunctionCases,
    IntValue,
    PredictedCall,
    RecordValue,
    StubCall,
    StubPrototype,
    StubScript,
    Value,
)
from .value_shapes import BindingRole, Shape, UnitShapes, write_role


def enumerator(v: IntValue) -> str | None:
    """The name of the first enumerator of `v`'s enum type with `v`'s value, or None."""
    if v.form is None:
        return None
    return next((name for name, value in v.form.enumerators if value == v.value), None)


def hex_text(v: IntValue) -> str | None:
    """`v` in hex, as many digits as its type has (`0x0080`), when it is a mask."""
    if v.form is None or not v.form.hex_digits or v.value < 0:
        return None
    return f"0x{v.value:0{v.form.hex_digits}x}"


def int_text(v: IntValue) -> str:
    """`v` as a message shows it: an enumerator's name, hex, or the number."""
    return enumerator(v) or hex_text(v) or str(v.value)


def int_to_json(v: IntValue) -> Any:
    """`v` in an export: `{"@enum": name}`, a hex string, or the number."""
    name = enumerator(v)
    if name is not None:
        return {"@enum": name}
    return hex_text(v) or v.value


def shaped(v: Value, shape: Shape) -> Value:
    """`v` with the forms of `shape` for its integers (its elements', its members')."""
    if isinstance(v, IntValue):
        return replace(v, form=shape.form) if shape.kind == "int" and shape.form else v
    if isinstance(v, ArrayValue) and shape.kind == "array" and shape.element is not None:
        element = shape.element
        return replace(v, elements=tuple(shaped(x, element) for x in v.elements))
    if isinstance(v, RecordValue) and shape.members:
        members = dict(shape.members)
        return RecordValue(tuple((n, shaped(x, members[n]) if n in members else x)
                                 for n, x in v.fields))
    return v


def _bindings(bs: tuple[Binding, ...], shapes: UnitShapes, role: BindingRole,
              function: str) -> tuple[Binding, ...]:
    return tuple(replace(b, value=shaped(b.value, shapes.binding(
        b.declaration, b.name, role, function))) for b in bs)


def _stub_call(k: StubCall, stub: StubPrototype | None, shapes: UnitShapes) -> StubCall:
    returns = k.returns
    if returns is not None and stub is not None and stub.signature is not None and \
            stub.signature.returns is not None:
        returns = shaped(returns, shapes.result(stub.name, stub.signature.returns))
    writes = tuple(replace(w, value=shaped(w.value, shapes.binding(
        w.declaration, w.name, write_role(w.name)))) for w in k.writes)
    return StubCall(returns, writes)


def _predicted_call(k: PredictedCall, stub: StubPrototype | None, shapes: UnitShapes
                    ) -> PredictedCall:
    declared = {p.name: p.declaration for p in stub.signature.params} \
        if stub is not None and stub.signature is not None else {}
    return replace(k, arguments=tuple(
        (name, shaped(v, shapes.shape(declared[name])) if name in declared else v)
        for name, v in k.arguments), contents=_bindings(k.contents, shapes, "param", k.stub))


def _case(c: Case, f: FunctionCases, stubs: dict[str, StubPrototype], shapes: UnitShapes
          ) -> Case:
    e = c.expected
    returns = e.returns
    if returns is not None and f.signature is not None and f.signature.returns is not None:
        returns = shaped(returns, shapes.result(f.name, f.signature.returns))
    calls = None if e.calls is None else \
        tuple(_predicted_call(k, stubs.get(k.stub), shapes) for k in e.calls)
    expected = replace(e, returns=returns, calls=calls,
                       globals=_bindings(e.globals, shapes, "global", f.name),
                       objects=_bindings(e.objects, shapes, "object", f.name))
    scripts = tuple(StubScript(s.name, tuple(_stub_call(k, stubs.get(s.name), shapes)
                                             for k in s.calls)) for s in c.stubs)
    setup = tuple(replace(k, params=_bindings(k.params, shapes, "param", k.function))
                  for k in c.setup)
    return replace(c, params=_bindings(c.params, shapes, "param", f.name),
                   globals=_bindings(c.globals, shapes, "global", f.name),
                   objects=_bindings(c.objects, shapes, "object", f.name),
                   expected=expected, stubs=scripts, setup=setup)


def with_forms(fc: FileCases, shapes: UnitShapes) -> FileCases:
    """`fc` with the forms its unit gives its integers, as the export's reader gives them
    (case_reader.py): where the signatures of the functions and stubs of the unit show
    the types (a callback's, read from its prototype's text, never)."""
    stubs = {s.name: s for s in fc.stubs}
    return replace(fc, functions=tuple(
        replace(f, cases=tuple(_case(c, f, stubs, shapes) for c in f.cases))
        for f in fc.functions))
