"""The JSON form of generated cases (the export of DESIGN §2): `file_cases_to_json` writes
a file's cases as diff-friendly JSON, which case_reader.py reads back, every field
checked.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .cases import (
    FORMAT_VERSION,
    ArrayValue,
    Binding,
    BytesValue,
    Case,
    Contract,
    FileCases,
    FilledBytesValue,
    FloatValue,
    IntValue,
    LoopStop,
    Outcome,
    PointerValue,
    PredictedCall,
    RecordValue,
    StubPrototype,
    UnsetValue,
    Value,
)
from .char_text import array_text, text_literal
from .value_forms import int_text, int_to_json
from .value_shapes import ANY, Shape, template_shape


def _float_to_json(v: FloatValue) -> Any:
    kind = "float" if v.size == 4 else "double"
    x = v.value
    if math.isnan(x):
        return {kind: "nan", "bits": hex(v.bits)}
    if math.isinf(x):
        return {kind: "inf" if x > 0 else "-inf"}
    return {kind: float(v.shortest_text())}


def _text_to_json(v: ArrayValue, data: bytes, shape: Shape) -> dict[str, Any]:
    """`{"@string": text}`: the text, then NULs up to the array's size as in C's `char
    a[N] = "..."`; the size is written unless the declaration shows it (a member)."""
    text = data.rstrip(b"\0").decode("ascii")
    if shape.kind == "array" and shape.count == len(v.elements):
        return {"@string": text}
    return {"@string": text, "size": len(v.elements)}


def value_to_json(v: Value, shape: Shape = ANY) -> Any:
    """The JSON form of `v`, of a declaration whose values look like `shape`."""
    if isinstance(v, IntValue):
        return int_to_json(v)
    if isinstance(v, FloatValue):
        return _float_to_json(v)
    if isinstance(v, RecordValue):
        return {name: value_to_json(x) for name, x in v.fields}
    if isinstance(v, ArrayValue):
        data = array_text(v)
        if data is not None:
            return _text_to_json(v, data, shape)
        element = shape.element if shape.kind == "array" and shape.element else ANY
        return [value_to_json(x, element) for x in v.elements]
    if isinstance(v, BytesValue):
        return {"@bytes": v.data.hex()}
    if isinstance(v, FilledBytesValue):
        return {"@bytes": {"size": v.size, "fill": v.fill,
                           "at": {str(k): b for k, b in v.at}}}
    if isinstance(v, PointerValue):
        if v.function:
            return {"@function": v.target}
        return None if v.target is None else {"@pointer": v.target, "offset": v.offset}
    if isinstance(v, UnsetValue):
        return {"@unset": True}
    raise TypeError(f"not a case value: {v!r}")


def value_text(v: Value) -> str:
    """`v` as a message shows it: its JSON, but text as a C string literal (`"$*00"`,
    the NULs that fill the array left implicit), an enumerator by its name and a mask in
    hex (`MS_RUNNING`, `0x0080`)."""
    if isinstance(v, IntValue):
        return int_text(v)
    if isinstance(v, RecordValue):
        return "{" + ", ".join(f"{json.dumps(n)}: {value_text(x)}" for n, x in v.fields) + "}"
    if isinstance(v, ArrayValue):
        data = array_text(v)
        if data is not None:
            return text_literal(data.rstrip(b"\0"), trigraphs=False)
        return "[" + ", ".join(value_text(x) for x in v.elements) + "]"
    return json.dumps(value_to_json(v))


def _bindings_to_json(bs: tuple[Binding, ...]) -> list[dict[str, Any]]:
    return [{"name": b.name, "declaration": b.declaration,
             "value": value_to_json(b.value, template_shape(b.declaration)),
             **({} if b.placement is None else {"placement": b.placement})} for b in bs]


def _outcomes_to_json(os_: tuple[Outcome, ...]) -> list[dict[str, Any]]:
    return [{"line": o.line, "column": o.column, "outcome": o.label} for o in os_]


def _loop_stop_to_json(stop: LoopStop | None) -> dict[str, Any]:
    if stop is None:
        return {}
    return {"loop": {"line": stop.line, "column": stop.column,
                     "iterations": stop.iterations}}


def _calls_to_json(calls: tuple[PredictedCall, ...] | None) -> dict[str, Any]:
    """Every stub call a case predicts, in order, with its arguments by parameter name
    and what its pointer arguments point to (nothing when the calls are not predicted)."""
    if calls is None:
        return {}
    return {"calls_in_order": [
        {"stub": k.stub, "arguments": {name: value_to_json(v) for name, v in k.arguments},
         **({"contents": _bindings_to_json(k.contents)} if k.contents else {})}
        for k in calls]}


def case_to_json(c: Case) -> dict[str, Any]:
    return {
        "id": c.id,
        "number": c.number,
        "requirements": list(c.requirements),
        "params": _bindings_to_json(c.params),
        "globals": _bindings_to_json(c.globals),
        "objects": _bindings_to_json(c.objects),
        "stubs": [{"name": s.name, "calls": [
            # no "returns" when the call returns nothing (void, or the path ends in it);
            # null is a NULL pointer
            {**({} if k.returns is None else {"returns": value_to_json(k.returns)}),
             "writes": _bindings_to_json(k.writes)} for k in s.calls]} for s in c.stubs],
        "expected": {
            "returns": None if c.expected.returns is None else value_to_json(c.expected.returns),
            "void": c.expected.returns is None,
            "globals": _bindings_to_json(c.expected.globals),
            "objects": _bindings_to_json(c.expected.objects),
            "stub_calls": {name: n for name, n in c.expected.stub_call_counts},
            **_calls_to_json(c.expected.calls),
            **({"ends": {"how": c.expected.ending, "status": c.expected.exit_status,
                         **_loop_stop_to_json(c.expected.loop_stop)}}
               if c.expected.ending else {}),
        },
        **({"failing_allocations": list(c.failing_allocations)}
           if c.failing_allocations else {}),
        **({"setup": [{"function": s.function, "handle": s.handle,
                       "params": _bindings_to_json(s.params)} for s in c.setup]}
           if c.setup else {}),
        "covered": _outcomes_to_json(c.covered),
        "notes": list(c.notes),
        **({"violations": [{"kind": v.kind, "at": v.at, "detail": v.detail}
                           for v in c.violations]} if c.violations else {}),
        **({"robustness": True} if c.robustness else {}),
    }


def contract_to_json(k: Contract) -> dict[str, Any]:
    return {
        "checks": [{"kind": c.kind, "condition": c.condition, "text": c.text, "at": c.at,
                    **({"pre": c.pre, "pre_text": c.pre_text} if c.kind == "testcase" else {}),
                    "requirements": list(c.requirements), "verdict": c.verdict}
                   for c in k.checks],
        "initials": [{"declaration": d, "expression": e} for d, e in k.initials],
        "aux": [{"name": n, "declaration": d} for n, d in k.aux],
        "modifies": None if k.modifies is None else list(k.modifies),
        "unmodified": list(k.unmodified),
        "bounds": k.bounds,
    }


def _stub_to_json(s: StubPrototype) -> dict[str, Any]:
    return {"name": s.name, "prototype": s.prototype,
            "params": [list(p) for p in s.params],
            **({"library": True, "header": s.header} if s.library else {}),
            **({"preconditions": [{"condition": c, "at": at} for c, at in s.preconditions]}
               if s.preconditions else {}),
            **({"specified_in_unit": True} if s.specified_in_unit else {}),
            **({"static": True} if s.static else {}),
            **({"macro": True} if s.macro else {}),
            **({"callback": s.callback} if s.callback else {})}


def file_cases_to_json(fc: FileCases) -> str:
    """The `name.ctgen.json` text: stable order, no timings, so equal results are equal bytes."""
    doc = {
        "format": "pytest-ctgen cases",
        "version": FORMAT_VERSION,
        "source": fc.source,
        **({"build": {"unit": fc.build.unit, "cflags": list(fc.build.cflags),
                      "sources": list(fc.build.sources)}} if fc.build else {}),
        "stubs": [_stub_to_json(s) for s in fc.stubs],
        **({"allocator": list(fc.allocator)} if fc.allocator else {}),
        **({"global_stubs": [{"name": g.name, "declaration": g.declaration}
                             for g in fc.global_stubs]} if fc.global_stubs else {}),
        "functions": [{
            "name": f.name,
            "line": f.line,
            "prototype": f.prototype,
            "stop_reason": f.stop_reason,
            "skip_reason": f.skip_reason,
            "outcomes_total": f.outcomes_total,
            "unreachable": _outcomes_to_json(f.unreachable),
            "not_reached": _outcomes_to_json(f.not_reached),
            **({"mcdc": [{"line": n.line, "column": n.column, "condition": n.condition,
                          "decision": n.decision, "verdict": n.verdict} for n in f.mcdc]}
               if f.mcdc else {}),
            **({"contract": contract_to_json(f.contract)} if f.contract else {}),
            **({"callbacks": [_stub_to_json(s) for s in f.callbacks]} if f.callbacks else {}),
            "cases": [case_to_json(c) for c in f.cases],
        } for f in fc.functions],
    }
    return json.dumps(doc, indent=2) + "\n"
