"""One C function per case: the case's objects, arguments and globals set, the call, and
the checks of what the generator predicts (the return value or how the call ends, the
globals and objects afterwards, the calls of each stub, the function's annotations); and
the table the runtime runs the cases from.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..cases import (
    OBJECT_PREFIX,
    PLACEMENT,
    UNDEFINED_BEHAVIOUR,
    ArrayValue,
    Binding,
    Case,
    Contract,
    FunctionSignature,
    PointerValue,
    RecordValue,
    StubPrototype,
    Value,
    declare,
)
from .c_values import (
    INDENT,
    c_int_literal,
    c_string,
    declare_with_value,
    pointer_targets,
    set_statements,
    with_targets,
)
from .checks import call_checks, check_statements
from .heap_allocator import case_heap_lines, leak_lines
from .harness_names import call_counter, callee, case_name, object_slots
from .stubs import refers_to_objects

_END_CODES = {"exit": "CTGEN_EXITED", "abort": "CTGEN_ABORTED",
              "assertion failure": "CTGEN_ASSERT_FAILED",
              "precondition violation": "CTGEN_VIOLATED",
              "__rtt_assert violation": "CTGEN_ANNOTATION_FAILED",
              "loop stop": "CTGEN_LOOP_STOPPED"}
#: The most elements an object is padded to for an array parameter's bound.
_MOST_PADDED = 1 << 24


def object_lines(objects: tuple[Binding, ...]) -> list[str]:
    """Declarations of the objects pointer inputs point to. When one holds the address of
    itself or of one declared after it (aliasing, a cyclic list), or holds a struct or
    union, all are declared zeroed first and filled afterwards: `= { 0 }` zeroes the
    padding between members too, as the generator assumes (a full initializer of an
    automatic object leaves it unspecified, and an index past a member's array can read
    it)."""
    names = {o.name for o in objects}
    declared: set[str] = set()
    in_order = all(o.placement is None and not _holds_record(o.value) for o in objects)
    for o in objects:
        declared.add(o.name)
        targets = {t.removeprefix("&") for t in pointer_targets(o.value)}
        if (targets & names) - (declared - {o.name}):
            in_order = False
    if in_order:
        return [s for o in objects for s in declare_with_value(o.declaration, o.name, o.value)]
    lines = [line for o in objects for line in _zeroed_object_lines(o)]
    for o in objects:
        lines.extend(set_statements(o.name, o.value))
    return lines


def _holds_record(value: Value) -> bool:
    """Whether `value` is or holds a struct or union."""
    if isinstance(value, RecordValue):
        return True
    return isinstance(value, ArrayValue) and any(_holds_record(e) for e in value.elements)


def _zeroed_object_lines(o: Binding) -> list[str]:
    """The zeroed object `o`; one placed at an address residue lies in a zeroed buffer
    aligned to the placement modulus, and its name is a macro for it until `#undef`."""
    if o.placement is None:
        return [f"{declare(o.declaration, o.name)} = {{ 0 }};"]
    buffer, at = f"ctgen_place_{o.name}", f"ctgen_at_{o.name}"
    return [(f"_Alignas({PLACEMENT}) unsigned char {buffer}"
             f"[{PLACEMENT} + sizeof ({declare(o.declaration, '')})] = {{ 0 }};"),
            (f"{declare(o.declaration, f'(*const {at})')} = "
             f"(void *)({buffer} + {o.placement});"),
            f"#define {o.name} (*{at})"]


def _addressed(c: Case) -> Case:
    """`c` with its pointers to objects that are no arrays (a linked record made lazily,
    `struct node @`) pointing to `&name` in C, as to a global; a stub's values are left
    alone (they reach the objects through `object_slots`)."""
    names = {o.name: "&" + o.name for o in c.objects if "@[" not in o.declaration}
    if not names:
        return c

    def bindings(bs: tuple[Binding, ...]) -> tuple[Binding, ...]:
        return tuple(replace(b, value=with_targets(b.value, names)) for b in bs)

    e = c.expected
    returns = with_targets(e.returns, names) if e.returns is not None else None
    calls = None if e.calls is None else tuple(
        replace(k, arguments=tuple((n, with_targets(v, names)) for n, v in k.arguments),
                contents=bindings(k.contents))
        for k in e.calls)
    return replace(c, params=bindings(c.params), globals=bindings(c.globals),
                   objects=bindings(c.objects),
                   expected=replace(e, returns=returns, globals=bindings(e.globals),
                                    objects=bindings(e.objects), calls=calls))


def _padded_objects(c: Case, bounds: Sequence[int | None]) -> tuple[Binding, ...]:
    """The case's objects, each at least as long as the array parameters that point to its
    start are declared (`f(int16_t win[16])` given 10 elements: 16, the last 6 zero). The
    cases never touch the elements beyond theirs; a smaller object would make the compiler
    warn that the call reads or writes past it (-Wstringop-overflow)."""
    if len(bounds) != len(c.params):
        return c.objects
    need: dict[str, int] = {}
    for p, bound in zip(c.params, bounds):
        v = p.value
        if bound and bound <= _MOST_PADDED and isinstance(v, PointerValue) and v.target \
                and v.offset == 0:
            need[v.target] = max(need.get(v.target, 0), bound)
    if not need:
        return c.objects

    def pad(o: Binding) -> Binding:
        if o.name not in need:
            return o
        declaration = re.sub(r"@\[(\d+)\]",
                             lambda m: f"@[{max(int(m.group(1)), need[o.name])}]",
                             o.declaration, count=1)
        return replace(o, declaration=declaration)

    return tuple(pad(o) for o in c.objects)

def case_lines(index: int, c: Case, signature: FunctionSignature,
               stub_names: Mapping[str, StubPrototype], contract: Contract | None = None
               ) -> list[str]:
    """Case `index` (of the harness) as its function, and what it needs defined before it;
    `stub_names` are the stubs and callbacks by name, `contract` the function's
    annotations."""
    ctx = "ctgen_c"
    c = _addressed(c)
    bounds = [p.bound if p.kind == "array" else None for p in signature.params]
    body, args = _input_lines(c, bounds)
    checked = contract is not None and not c.robustness and c.expected.ending is None
    if checked:
        assert contract is not None
        body += _entry_lines(c, contract, args)
    before, call = _call_lines(index, c, signature, args, checked)
    heap_before, failing, heap_after = case_heap_lines(c, ctx)
    body = failing + body + call + _output_checks(c, stub_names)
    if checked:
        assert contract is not None
        body += _contract_checks(c, contract, signature, args)
    body += leak_lines(c, ctx)
    return (before + heap_before + [f"/* {case_name(c)} */",
                                    f"static void ctgen_case_{index}(ctgen_ctx *{ctx})", "{"]
            + [f"{INDENT}{s}" for s in body] + [f"{INDENT}(void){ctx};", "}"]
            + [f"#undef {o.name}" for o in c.objects if o.placement is not None]
            + heap_after)


def _input_lines(c: Case, bounds: Sequence[int | None]) -> tuple[list[str], list[str]]:
    """The statements that give the case's objects, arguments and globals their values,
    and the arguments of the call."""
    body: list[str] = []
    args: list[str] = []
    body.extend(object_lines(_padded_objects(c, bounds)))
    if refers_to_objects(c):
        body.extend(f"{slot} = (void *)&({name});" for name, slot in object_slots(c).items())
    for i, p in enumerate(c.params):
        var = f"ctgen_arg{i}"
        body.extend(declare_with_value(p.declaration, var, p.value))
        args.append(var)
    for g in c.globals:
        body.extend(set_statements(g.name, g.value))
    return body + _setup_lines(c), args


def _setup_lines(c: Case) -> list[str]:
    """The setup calls (`--ctgen-setup`) on the case's handle, in order, each in a block
    of its own arguments; what they return is not checked (the handle after the call of
    the function under test is)."""
    body: list[str] = []
    for k, call in enumerate(c.setup):
        args = [f"ctgen_setup{k}_{j}" for j in range(len(call.params))]
        body.append("{")
        for p, var in zip(call.params, args):
            body.extend(f"{INDENT}{line}" for line in
                        declare_with_value(p.declaration, var, p.value))
        body += [f"{INDENT}(void){callee(call.function)}({', '.join(args)});", "}"]
    return body


def _entry_lines(c: Case, contract: Contract, args: list[str]) -> list[str]:
    """What the annotations take before the call: the `__rtt_initial` values and copies of
    the globals the function may not modify."""
    body: list[str] = []
    initials = [f"ctgen_initial_{i}" for i in range(len(contract.initials))]
    body += [f"{declare(d, v)};" for (d, _), v in zip(contract.initials, initials)]
    if initials:
        body.append(f"ctgen_initials_{callee(c.function)}("
                    f"{', '.join(args + ['&' + v for v in initials])});")
    for j, name in enumerate(contract.unmodified):
        body += [f"unsigned char ctgen_before_{j}[sizeof ({name})];",
                 (f"ctgen_copy_bytes(ctgen_before_{j}, (const void *)&({name}), "
                  f"sizeof ({name}));")]
    return body


def _call_lines(index: int, c: Case, signature: FunctionSignature, args: list[str],
                checked: bool) -> tuple[list[str], list[str]]:
    """What the case function needs defined before it, and its call of the function under
    test with the check of the result or of how the call ends."""
    ctx = "ctgen_c"
    call = f"{callee(c.function)}({', '.join(args)})"
    e = c.expected
    body: list[str] = []
    before: list[str] = []  # what the case function needs defined before it
    if e.ending == UNDEFINED_BEHAVIOUR:
        # a finding: the case fails whatever the compiled run does (a crash, garbage)
        body.append(f'ctgen_fail({ctx}, "%s", {c_string(c.finding or e.ending)});')
        body.append(f"{'' if signature.is_void else '(void)'}{call};")
    elif e.ending is not None:
        # the call ends the program: the runtime makes it, through a function of its own,
        # where the renamed exit/abort return to
        before = _ending_call_lines(index, c, signature)
        status = c_int_literal(e.exit_status or 0)
        if e.loop_stop is not None:  # the runtime stops the call in a loop
            stop = e.loop_stop
            status = c_int_literal(stop.iterations)
            body.append(f"ctgen_loop_stop_at({stop.line}, {stop.column}, {status});")
        if args:
            body += ["{", f"{INDENT}struct ctgen_args_{index} ctgen_args;"]
            body += [f"{INDENT}ctgen_args.a{i} = &{arg};" for i, arg in enumerate(args)]
            body += [f"{INDENT}ctgen_call_catching_end(ctgen_call_{index}, &ctgen_args);", "}"]
        else:
            body.append(f"ctgen_call_catching_end(ctgen_call_{index}, 0);")
        if e.ending not in _END_CODES:
            raise ValueError(f"{case_name(c)} ends in a way the harness cannot check: "
                             f"{e.ending}")
        body.append(f"ctgen_check_end({ctx}, {_END_CODES[e.ending]}, {status});")
    elif e.returns is not None:
        if signature.returns is None:
            raise ValueError(f"{case_name(c)} predicts a return value of a void function")
        body.append(f"{declare(signature.returns, 'ctgen_result')} = {call};")
        body.extend(check_statements(ctx, "return", "ctgen_result", e.returns))
    elif checked and signature.returns is not None:
        body.append(f"{declare(signature.returns, 'ctgen_result')} = {call};")
    elif signature.is_void:
        body.append(f"{call};")
    else:
        body.append(f"(void){call};")
    return before, body


def _output_checks(c: Case, stub_names: Mapping[str, StubPrototype]) -> list[str]:
    """The checks of the globals and objects after the call and of the stubs' calls: how
    many of each there were and, where the case predicts them, each in order with its
    arguments."""
    ctx = "ctgen_c"
    e = c.expected
    body: list[str] = []
    for g in e.globals:
        body.extend(check_statements(ctx, g.name, g.name, g.value))
    for o in e.objects:
        shown = "(*" + o.name.removeprefix(OBJECT_PREFIX) + ")"
        body.extend(check_statements(ctx, shown, o.name, o.value))
    for stub, count in e.stub_call_counts:
        if stub not in stub_names:
            raise ValueError(f"{case_name(c)} counts calls of {stub}, which is no stub")
        body.append(f"ctgen_check_int({ctx}, {c_string('calls of ' + stub)}, "
                    f"{call_counter(stub)}, {c_int_literal(count)});")
    if e.calls is not None and (e.calls or stub_names):
        try:
            body.extend(call_checks(ctx, e.calls, stub_names))
        except ValueError as err:
            raise ValueError(f"{case_name(c)} {err}") from None
    return body


def _contract_checks(c: Case, contract: Contract, signature: FunctionSignature,
                     args: list[str]) -> list[str]:
    """The checks of the annotations after the call: the globals the function may not
    modify, then its postconditions and test cases (checks.contract_lines)."""
    ctx = "ctgen_c"
    written_at = {v.detail: v.at for v in c.violations if v.kind == "modifies"}
    body: list[str] = []
    for j, name in enumerate(contract.unmodified):
        body.append(f"ctgen_check_unmodified({ctx}, {c_string(c.function)}, "
                    f"{c_string(name)}, (const void *)&({name}), ctgen_before_{j}, "
                    f"sizeof ({name}), {c_string(written_at.get(name, ''))});")
    predicted = "|".join(v.at for v in c.violations if v.kind in ("postcondition",
                                                                  "testcase"))
    values = args + ([] if signature.is_void else ["ctgen_result"]) + \
        [f"ctgen_initial_{i}" for i in range(len(contract.initials))]
    body.append(f"ctgen_contract_{callee(c.function)}({ctx}, {c_string(predicted)}"
                f"{''.join(', ' + v for v in values)});")
    return body


def _ending_call_lines(index: int, c: Case, signature: FunctionSignature) -> list[str]:
    """The call of case `index`, which ends the program, as a function the runtime calls
    (`ctgen_call_catching_end`: the setjmp that exit/abort return to is the runtime's, so
    the harness needs no <setjmp.h>), and the struct of pointers to its arguments."""
    data = "ctgen_data"
    values = [f"*ctgen_a->a{i}" for i in range(len(c.params))]
    call = f"{'' if signature.is_void else '(void)'}{callee(c.function)}({', '.join(values)});"
    out = [f"/* {case_name(c)}: the call, which ends the program */"]
    if c.params:
        out += [f"struct ctgen_args_{index} {{"]
        out += [f"{INDENT}{declare(p.declaration, f'(*a{i})')};"
                for i, p in enumerate(c.params)]
        out += ["};", f"static void ctgen_call_{index}(void *{data})", "{",
                (f"{INDENT}struct ctgen_args_{index} *ctgen_a = "
                 f"(struct ctgen_args_{index} *){data};")]
    else:
        out += [f"static void ctgen_call_{index}(void *{data})", "{", f"{INDENT}(void){data};"]
    return out + [f"{INDENT}{call}", "}", ""]


def table_lines(cases: list[Case], stubs: Sequence[StubPrototype], heap: bool = False
                ) -> list[str]:
    """The table of the harness's cases and the functions the runtime runs them with
    (`ctgen_run_case` resets the call counters of `stubs`, and with `heap` the
    allocator)."""
    out = ["", "/* ------------------------------------------------------------ table */", ""]
    out.append(f"#define CTGEN_CASES {len(cases)}")
    out.append("static void (*const ctgen_cases[])(ctgen_ctx *) = {")
    out += [f"{INDENT}ctgen_case_{i}," for i in range(len(cases))] or [f"{INDENT}0"]
    out.append("};")
    out.append("static const char *const ctgen_case_names[] = {")
    out += [f"{INDENT}{c_string(case_name(c))}," for c in cases] or [f"{INDENT}0"]
    out.append("};")
    out.append("static const char *const ctgen_case_findings[] = {")
    out += [f"{INDENT}{c_string(c.finding) if c.finding else '0'}," for c in cases] \
        or [f"{INDENT}0"]
    out.append("};")
    resets = [f"{INDENT}{call_counter(s.name)} = 0;" for s in stubs]
    resets += [f"{INDENT}ctgen_heap_reset();"] if heap else []
    return out + [
        "",
        "int ctgen_case_count(void)",
        "{",
        f"{INDENT}return CTGEN_CASES;",
        "}",
        "",
        "const char *ctgen_case_name(int index)",
        "{",
        f"{INDENT}return index >= 0 && index < CTGEN_CASES ? ctgen_case_names[index] : 0;",
        "}",
        "",
        "const char *ctgen_case_finding(int index)",
        "{",
        f"{INDENT}return index >= 0 && index < CTGEN_CASES ? ctgen_case_findings[index] : 0;",
        "}",
        "",
        "int ctgen_run_case(int index, char *message, ctgen_size capacity)",
        "{",
        f"{INDENT}ctgen_ctx ctgen_c;",
        f"{INDENT}ctgen_ctx_init(&ctgen_c, message, capacity);",
        f"{INDENT}if (index < 0 || index >= CTGEN_CASES) {{",
        f'{INDENT * 2}ctgen_fail(&ctgen_c, "no case %d", index);',
        f"{INDENT * 2}return 1;",
        f"{INDENT}}}",
        *resets,
        f"{INDENT}ctgen_current_case = index;",
        f"{INDENT}ctgen_case_begin(&ctgen_c);",
        f"{INDENT}ctgen_run_case_body(ctgen_cases[index], &ctgen_c);",
        f"{INDENT}ctgen_current_case = -1;",
        f"{INDENT}return ctgen_case_end(&ctgen_c);",
        "}",
        "",
        "#ifdef CTGEN_DRIVER_MAIN",
        "int main(void)",
        "{",
        f"{INDENT}return ctgen_driver_run_all();",
        "}",
        "#endif",
        "",
    ]
