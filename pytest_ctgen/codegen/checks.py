"""The checks of a case after its call: each leaf of a predicted value against the object
it was predicted for, and the annotations of the function under test (its postconditions
and test cases, cases.Contract) through functions of their own.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..cases import (
    ArrayValue,
    BytesValue,
    Case,
    FilledBytesValue,
    FloatValue,
    FunctionCases,
    FunctionSignature,
    IntForm,
    IntValue,
    PointerValue,
    PredictedCall,
    RecordValue,
    StubPrototype,
    UnsetValue,
    Value,
    declare,
)
from ..char_text import array_text, char_constant
from ..value_forms import hex_text
from .c_values import (
    INDENT,
    byte_count,
    c_bytes,
    c_enumerators,
    c_float_literal,
    c_int_expr,
    c_int_literal,
    c_string,
    pointer_expr,
    size_is,
)
from .harness_names import callee


def enum_table(form: IntForm) -> str:
    """The name of the table of an enum's enumerators (`enum_tables`), after its first."""
    return f"ctgen_enum_{form.enumerators[0][0]}"


def _checked_forms(v: Value) -> list[IntForm]:
    if isinstance(v, IntValue):
        return [v.form] if v.form is not None and c_enumerators(v.form) else []
    if isinstance(v, RecordValue):
        return [f for _, x in v.fields for f in _checked_forms(x)]
    if isinstance(v, ArrayValue):
        return [f for x in v.elements for f in _checked_forms(x)]
    return []


def enum_tables(cases: list[Case]) -> list[str]:
    """The tables of the enumerators of the enums whose values `cases` check (their
    failures name them: `ctgen_check_enum`), one per enum, at file scope."""
    predicted = [x for c in cases for x in (
        *([c.expected.returns] if c.expected.returns is not None and
          c.expected.ending is None else []),  # checked where the call returns
        *(b.value for b in (*c.expected.globals, *c.expected.objects)),
        *(v for k in c.expected.calls or () for _, v in k.arguments),
        *(b.value for k in c.expected.calls or () for b in k.contents))]
    forms = {enum_table(f): f for v in predicted for f in _checked_forms(v)}
    out = []
    for name, form in sorted(forms.items()):
        out += ["", f"static const ctgen_enumerator {name}[] = {{"]
        out += [f"{INDENT}{{ {c_string(e)}, (unsigned long long)({e}) }},"
                for e, _ in form.enumerators]
        out += [f"{INDENT}{{ 0, 0 }}", "};"]
    if out:
        out[0:1] = ["", "/* The enumerators of the enums the cases check, for their messages. */"]
    return out


def check_statements(ctx: str, what: str, lvalue: str, v: Value) -> list[str]:
    """Checks of every leaf of `lvalue` against the predicted `v`, named from `what`."""
    w = c_string(what)
    if isinstance(v, IntValue) and v.form is not None and c_enumerators(v.form):
        return [f"ctgen_check_enum({ctx}, {w}, {lvalue}, {c_int_expr(v)}, "
                f"{enum_table(v.form)});"]
    if isinstance(v, IntValue) and v.form is not None and hex_text(v) is not None and \
            v.form.hex_digits <= 16:  # ctgen_check_hex shows 64 bits
        return [f"ctgen_check_hex({ctx}, {w}, {lvalue}, {c_int_expr(v)}, "
                f"{v.form.hex_digits});"]
    if isinstance(v, IntValue):
        return [f"ctgen_check_int({ctx}, {w}, {lvalue}, {c_int_literal(v.value)});"]
    if isinstance(v, FloatValue):
        fn = "ctgen_check_float" if v.size == 4 else "ctgen_check_double"
        return [f"{fn}({ctx}, {w}, {lvalue}, {c_float_literal(v)});"]
    if isinstance(v, PointerValue):
        if v.target == "*":
            return [f"ctgen_check_nonnull({ctx}, {w}, ({lvalue}) != 0);"]
        if v.target is not None:
            text = v.target if not v.offset else f"{v.target} + {v.offset} bytes"
            return [(f"ctgen_check_pointer({ctx}, {w}, (const void *)({lvalue}), "
                     f"(const void *){pointer_expr(v)}, {c_string(text)});")]
        return [f"ctgen_check_null({ctx}, {w}, ({lvalue}) == 0);"]
    if isinstance(v, RecordValue):
        return [s for n, x in v.fields
                for s in check_statements(ctx, f"{what}.{n}", f"{lvalue}.{n}", x)]
    if isinstance(v, ArrayValue) and array_text(v) is not None:  # text: as characters
        return [f"ctgen_check_char({ctx}, {c_string(f'{what}[{i}]')}, {lvalue}[{i}], "
                f"{char_constant(b)});" for i, b in enumerate(array_text(v) or b"")]
    if isinstance(v, ArrayValue):
        return [s for i, x in enumerate(v.elements)
                for s in check_statements(ctx, f"{what}[{i}]", f"{lvalue}[{i}]", x)]
    if isinstance(v, BytesValue):
        return [(f"ctgen_check_bytes({ctx}, {w}, (const void *)&({lvalue}), "
                 f"{c_bytes(v.data)}, {byte_count(lvalue, len(v.data))});")]
    if isinstance(v, FilledBytesValue):
        return filled_checks(ctx, what, lvalue, v)
    if isinstance(v, UnsetValue):
        return []  # C gives it no value to check
    raise TypeError(f"not a case value: {v!r}")


#: The member of `ctgen_arg` (c_harness/ctgen_runtime.h) a stub records an argument of
#: each kind (cases.StubPrototype.params) in, the cast it is recorded with, and the values
#: predicted for it.
ARGUMENT_SLOTS: dict[str, tuple[str, str, type]] = {
    "signed": ("s", "(long long)", IntValue), "unsigned": ("u", "(unsigned long long)", IntValue),
    "float": ("f", "(double)", FloatValue), "pointer": ("p", "(const void *)", PointerValue)}


def argument_slots(stub: StubPrototype) -> dict[str, int]:
    """Where a stub records each of its arguments: one slot per named parameter."""
    return {name: i for i, (name, _) in enumerate(p for p in stub.params if p[0] != "...")}


def call_checks(ctx: str, calls: tuple[PredictedCall, ...],
                stubs: Mapping[str, StubPrototype]) -> list[str]:
    """Checks of the stub calls the case logged (ctgen_record_call): each is the call
    predicted at its place in the order, with the predicted arguments and what its
    pointer arguments pointed to (ctgen_record_bytes), and there are no more."""
    out = ["{", f"{INDENT}const ctgen_arg *ctgen_a = 0;"]
    made: dict[str, int] = {}
    for j, call in enumerate(calls):
        stub = stubs.get(call.stub)
        if stub is None:
            raise ValueError(f"predicts a call of {call.stub}, which is no stub")
        k = made.get(call.stub, 0)
        made[call.stub] = k + 1
        slots, kinds = argument_slots(stub), dict(stub.params)
        lines = []
        for name, v in call.arguments:
            member, _, value_type = ARGUMENT_SLOTS.get(kinds.get(name, ""), ("", "", None))
            if name not in slots or value_type is None or not isinstance(v, value_type) or \
                    (isinstance(v, PointerValue) and v.function):
                raise ValueError(f"predicts argument {name} of {call.stub} as {v!r}, "
                                 "which its stub does not record")
            lvalue = f"ctgen_a[{slots[name]}].{member}"
            if isinstance(v, FloatValue) and v.size == 4:
                lvalue = f"(float){lvalue}"
            lines += check_statements(ctx, f"call {k + 1} of {call.stub}: argument {name}",
                                      lvalue, v)
        for b in call.contents:
            if kinds.get(b.name) != "pointer" or b.name not in slots:
                raise ValueError(f"predicts what {b.name} of {call.stub} points to, which "
                                 "its stub does not record")
            what = f"call {k + 1} of {call.stub}: {b.name}"
            lines += ["{", f"{INDENT}{declare(b.declaration, 'ctgen_v')};",
                      f"{INDENT}if (ctgen_received({ctx}, {j}, {slots[b.name]}, ctgen_v, "
                      f"sizeof ctgen_v, {c_string(what)})) {{",
                      *(f"{INDENT * 2}{line}"
                        for line in check_statements(ctx, what, "ctgen_v", b.value)),
                      f"{INDENT}}}", "}"]
        logged = f"ctgen_logged_call({ctx}, {j}, {c_string(call.stub)}, {k})"
        if lines:
            out += [f"{INDENT}if ((ctgen_a = {logged}) != 0) {{",
                    *(f"{INDENT * 2}{line}" for line in lines), f"{INDENT}}}"]
        else:
            out.append(f"{INDENT}(void){logged};")
    return out + [f"{INDENT}ctgen_check_call_total({ctx}, {len(calls)});",
                  f"{INDENT}(void)ctgen_a;", "}"]


def filled_checks(ctx: str, what: str, lvalue: str, v: FilledBytesValue) -> list[str]:
    """Checks of every byte of `lvalue` against `v`: each listed byte, and the offset of
    the first byte that is neither listed nor the fill (predicted: none, the size)."""
    first = c_string(f"{what}: offset of the first byte not listed and not {v.fill}")
    listed = ", ".join(f"{k}u" for k, _ in v.at)
    out = ["{", f"{INDENT}const unsigned char *ctgen_b = "
                f"(const unsigned char *)&({lvalue});"]
    if v.at:
        out.append(f"{INDENT}static const ctgen_size ctgen_at[] = {{ {listed} }};")
    out += [f"{INDENT}ctgen_size ctgen_k, ctgen_j = 0;",
            f"{INDENT}{size_is(lvalue, v.size)}",
            f"{INDENT}for (ctgen_k = 0; ctgen_k < {v.size}u; ctgen_k++) {{"]
    if v.at:
        out += [f"{INDENT * 2}if (ctgen_j < {len(v.at)}u && ctgen_at[ctgen_j] == ctgen_k) {{",
                f"{INDENT * 3}ctgen_j++;", f"{INDENT * 3}continue;", f"{INDENT * 2}}}"]
    out += [f"{INDENT * 2}if (ctgen_b[ctgen_k] != {v.fill})",
            f"{INDENT * 3}break;", f"{INDENT}}}",
            f"{INDENT}(void)ctgen_j;",
            f"{INDENT}ctgen_check_int({ctx}, {first}, ctgen_k, {v.size}u);"]
    out += [f"{INDENT}ctgen_check_int({ctx}, {c_string(f'{what} byte {k}')}, "
            f"ctgen_b[{k}], {b});" for k, b in v.at]
    return out + ["}"]


def contract_lines(fn: FunctionCases, signature: FunctionSignature) -> list[str]:
    """The functions that take the annotations' values on entry and check the
    postconditions and test cases after the call (see cases.Contract)."""
    k = fn.contract
    assert k is not None
    params = signature.parameter_list()
    name = callee(fn.name)
    out: list[str] = []
    if k.initials:
        slots = ", ".join(declare(d, f"*ctgen_initial_{i}") for i, (d, _) in enumerate(k.initials))
        out += [f"static void ctgen_initials_{name}({params + ', ' if params else ''}{slots})",
                "{"]
        out += [f"{INDENT}*ctgen_initial_{i} = {expr};" for i, (_, expr) in enumerate(k.initials)]
        out += ["}", ""]
    args = [params] if params else []
    if signature.returns is not None:
        args.append(declare(signature.returns, "ctgen_return"))
    args += [declare(d, f"ctgen_initial_{i}") for i, (d, _) in enumerate(k.initials)]
    out += [(f"static void ctgen_contract_{name}(ctgen_ctx *ctgen_c, const char *ctgen_predicted"
             f"{''.join(', ' + a for a in args)})"), "{"]
    for aux, decl in k.aux:
        out.append(f"{INDENT}{declare(decl, f'*ctgen_aux_{aux}')} = "
                   f"({declare(decl, '*')})ctgen_aux_find({c_string(aux)});")
        missing = c_string(f"auxiliary variable {aux} was not declared in the run")
        out += [f"{INDENT}if (!ctgen_aux_{aux}) {{",
                f"{INDENT * 2}ctgen_fail(ctgen_c, {missing});",
                f"{INDENT * 2}return;", f"{INDENT}}}"]
    for check in k.checks:
        if check.kind not in ("postcondition", "testcase"):
            continue
        what = "postcondition" if check.kind == "postcondition" else \
            f"test case ({', '.join(check.requirements)}) post"
        line = (f"ctgen_check_annotation(ctgen_c, ({check.condition}) != 0, ctgen_predicted, "
                f"{c_string(what)}, {c_string(check.text)}, {c_string(check.at)});")
        out.append(f"{INDENT}if ({check.pre}) {line}" if check.pre else f"{INDENT}{line}")
    out += [f"{INDENT}(void)ctgen_predicted;", f"{INDENT}(void)ctgen_c;", "}"]
    return out
