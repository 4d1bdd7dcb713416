"""The stubs of the harness: a definition for each function the unit calls and does not
define (and for each callback a function-pointer input points to) that plays back the
running case's script of its calls, logs each call and checks a specification's
preconditions on the arguments.
"""
from __future__ import annotations

from ..cases import Case, StubPrototype, declare
from .c_values import (
    INDENT,
    c_string,
    declare_with_value,
    pointer_targets,
    scalar_expr,
    set_statements,
    with_targets,
)
from .checks import ARGUMENT_SLOTS, argument_slots
from .harness_names import (
    call_counter,
    case_name,
    object_slots,
    signature_of,
    stub_symbol,
)


def renamed_prototype(stub: StubPrototype) -> str:
    """The stub's prototype under the symbol it is defined with (`stub_symbol`)."""
    text = declare(signature_of(stub).prototype, stub_symbol(stub))
    return f"static {text}" if stub.static or stub.callback else text


_LOG_FORMATS = {"signed": ("%lld", "(long long)"), "unsigned": ("%llu", "(unsigned long long)"),
                "float": ("%g", "(double)"), "pointer": ("%p", "(const void *)")}


def log_call_line(stub: StubPrototype) -> str:
    """The statement logging a call of `stub` and its arguments."""
    formats, values = [], []
    for name, kind in stub.params:
        if kind in _LOG_FORMATS:
            fmt, cast = _LOG_FORMATS[kind]
            formats.append(fmt)
            values.append(f"{cast}{name}")
        else:
            formats.append({"...": "...", "function": "<function>"}.get(kind, "{...}"))
    text = c_string(f"{stub.name}({', '.join(formats)})")  # names hold no '%'
    return f"ctgen_log_call({', '.join([text] + values)});"


def record_call_lines(stub: StubPrototype) -> list[str]:
    """The statements recording a call of `stub` with the arguments a case checks (see
    checks.call_checks) in the runtime's log of stub calls."""
    slots = argument_slots(stub)
    stores = [f"ctgen_a[{slots[name]}].{ARGUMENT_SLOTS[kind][0]} = "
              f"{ARGUMENT_SLOTS[kind][1]}{name};"
              for name, kind in stub.params if kind in ARGUMENT_SLOTS]
    record = f"ctgen_record_call({c_string(stub.name)}, {len(slots)})"
    if not stores:
        return [f"(void){record};"]
    return ["{", f"{INDENT}ctgen_arg *ctgen_a = {record};", f"{INDENT}if (ctgen_a) {{",
            *(f"{INDENT * 2}{line}" for line in stores), f"{INDENT}}}", "}"]


def received_lines(stub: StubPrototype, cases: list[Case]) -> list[str]:
    """The statements keeping, in the runtime's log, what the pointer arguments of call
    k of case i point to, as many bytes as the case predicts of them (checks.call_checks
    compares them after the call)."""
    slots = argument_slots(stub)
    arms: list[str] = []
    for index, c in enumerate(cases):
        calls = [k for k in c.expected.calls or () if k.stub == stub.name]
        kept = [(k, [f"ctgen_record_bytes({slots[b.name]}, (const void *){b.name}, "
                     f"sizeof ({declare(b.declaration, '')}));" for b in call.contents])
                for k, call in enumerate(calls) if call.contents]
        if not kept:
            continue
        arms += [f"case {index}: /* {case_name(c)} */", f"{INDENT}switch (ctgen_k) {{"]
        for k, lines in kept:
            arms += [f"{INDENT}case {k}:", *(f"{INDENT * 2}{line}" for line in lines),
                     f"{INDENT * 2}break;"]
        arms += [f"{INDENT}default: break;", f"{INDENT}}}", f"{INDENT}break;"]
    if not arms:
        return []
    return ["switch (ctgen_current_case) {", *arms, "default: break;", "}"]


def precondition_lines(stub: StubPrototype) -> list[str]:
    """Checks of the specification's preconditions on the arguments of the call."""
    return [f"if (!({condition})) ctgen_precondition_failed("
            f"{c_string(stub.name)}, ctgen_k, {c_string(condition)}, {c_string(at)});"
            for condition, at in stub.preconditions]


def refers_to_objects(c: Case) -> bool:
    """Whether a stub script of case `c` returns or writes a pointer to an object of the
    case (the stub reaches it through `object_slots`)."""
    names = {o.name for o in c.objects}
    return any(pointer_targets(v) & names
               for s in c.stubs for k in s.calls
               for v in ([k.returns] if k.returns is not None else []) +
               [w.value for w in k.writes])


def _stub_lines(stub: StubPrototype, scripts: list[tuple[int, Case]], cases: list[Case]
                ) -> list[str]:
    """The stub's definition: call k of case i (of `cases`) plays back that case's
    script (`scripts`: the cases that script the stub) and keeps what its pointer
    arguments point to."""
    sig = signature_of(stub)
    out = [renamed_prototype(stub), "{",
           f"{INDENT}unsigned long ctgen_k = {call_counter(stub.name)}++;",
           f"{INDENT}(void)ctgen_k;",
           f"{INDENT}{log_call_line(stub)}"]
    out += [f"{INDENT}{line}" for line in record_call_lines(stub)]
    out += [f"{INDENT}{line}" for line in received_lines(stub, cases)]
    out += [f"{INDENT}{line}" for line in precondition_lines(stub)]
    arms: list[str] = []
    for index, c in scripts:
        script = next(s for s in c.stubs if s.name == stub.name)
        if not script.calls:
            continue
        slots = object_slots(c)
        arms.append(f"{INDENT}case {index}: /* {case_name(c)} */")
        arms.append(f"{INDENT * 2}switch (ctgen_k) {{")
        for k, call in enumerate(script.calls):
            arms.append(f"{INDENT * 2}case {k}: {{")
            body = [s for w in call.writes
                    for s in set_statements(w.name, with_targets(w.value, slots))]
            if sig.returns is None:
                body.append("return;")
            elif call.returns is None:
                body.append("break;")
            else:
                returns = with_targets(call.returns, slots)
                expr = scalar_expr(returns)
                if expr is not None:
                    body.append(f"return {expr};")
                else:
                    body.extend(declare_with_value(sig.returns, "ctgen_r", returns))
                    body.append("return ctgen_r;")
            arms.extend(f"{INDENT * 3}{s}" for s in body)
            arms.append(f"{INDENT * 2}}}")
        arms.append(f"{INDENT * 2}default: break;")
        arms.append(f"{INDENT * 2}}}")
        arms.append(f"{INDENT * 2}break;")
    if arms:
        out.append(f"{INDENT}switch (ctgen_current_case) {{")
        out.extend(arms)
        out.append(f"{INDENT}default: break;")
        out.append(f"{INDENT}}}")
    if sig.returns is not None:  # past the script: a zero value
        out.append(f"{INDENT}{{")
        out.append(f"{INDENT * 2}static {declare(sig.returns, 'ctgen_zero')};")
        out.append(f"{INDENT * 2}return ctgen_zero;")
        out.append(f"{INDENT}}}")
    out.append("}")
    return out


def stub_section(stubs: tuple[StubPrototype, ...], callbacks: tuple[StubPrototype, ...],
                 cases: list[Case]) -> list[str]:
    """The harness's stubs and callbacks, with their call counters ([] when there are
    none); case i of `cases` is case i of the harness."""
    if not stubs and not callbacks:
        return []
    out = ["", "/* ------------------------------------------------------------ stubs */"]
    out += [f"static unsigned long {call_counter(s.name)};" for s in (*stubs, *callbacks)]
    if callbacks:
        out.append("/* The callbacks: generated functions that function-pointer inputs "
                   "point to. */")
        out += [f"{renamed_prototype(s)};" for s in callbacks]
    out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic push",
            '#pragma GCC diagnostic ignored "-Wunused-parameter"', "#endif"]
    for stub in (*stubs, *callbacks):
        scripts = [(i, c) for i, c in enumerate(cases)
                   if any(s.name == stub.name for s in c.stubs)]
        out += ["", *_stub_lines(stub, scripts, cases)]
    out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"]
    return out
