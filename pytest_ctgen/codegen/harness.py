"""The C harness of one source file: its stubs, one function per case, the case table.

The harness includes `ctgen_runtime.h` and then the unit itself (so static functions and
globals are reachable), defines every stub the unit needs, and exposes

    int ctgen_case_count(void);
    const char *ctgen_case_name(int index);                 /* "sat_add[case2]" */
    const char *ctgen_case_finding(int index);  /* the undefined behaviour predicted, or 0 */
    int ctgen_run_case(int index, char *message, ctgen_size capacity); /* 0 pass, 1 fail */

(`ctgen_size` is `size_t`). It is linked with the runtime, `ctgen_runtime.c` (which has
`ctgen_install_crash_flush` and `ctgen_flush_coverage`). The runtime's header includes no
system header, so the unit is the first to declare the C library: a preprocessed unit
(`.i`) carrying its own copies of those declarations compiles as one that includes the
headers. Compiled with CTGEN_DRIVER_MAIN the harness also has a `main` that runs every case
(the exported driver).
"""
from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..cases import (
    OBJECT_PREFIX,
    PLACEMENT,
    PROGRAM_ENDS,
    ArrayValue,
    Binding,
    BytesValue,
    Case,
    Contract,
    FileCases,
    FunctionCases,
    FloatValue,
    IntValue,
    PointerValue,
    RecordValue,
    StubPrototype,
    UNDEFINED_BEHAVIOUR,
    Value,
    declare,
)
from ..errors import UnsupportedError
from ..export_schema import include_problem

INDENT = "    "

# --------------------------------------------------------------------------- literals


def c_int_literal(value: int) -> str:
    """A C integer literal (an expression) of exactly `value`, valid for every 64-bit value."""
    if value < -(1 << 63) or value >= (1 << 64):
        raise ValueError(f"integer {value} does not fit in 64 bits")
    if value == -(1 << 63):
        return "(-9223372036854775807LL - 1)"
    if value == -(1 << 31):
        return "(-2147483647 - 1)"
    if value < 0:
        return f"(-{-value}LL)" if value < -(1 << 31) else f"(-{-value})"
    if value <= 0x7FFFFFFF:
        return str(value)
    if value <= 0xFFFFFFFF:
        return f"{value}U"
    if value <= 0x7FFFFFFFFFFFFFFF:
        return f"{value}LL"
    return f"{value}ULL"


def _shortest_float_text(v: FloatValue) -> str:
    """The shortest decimal text reading back as exactly this finite float (also FLT_MAX)."""
    for digits in range(1, 10):
        text = f"{v.value:.{digits}g}"
        try:
            if FloatValue.of(float(text), 4).bits != v.bits:
                continue
        except OverflowError:  # rounds past FLT_MAX
            continue
        return text if any(c in text for c in ".en") else text + ".0"
    return repr(v.value)


def c_float_literal(v: FloatValue) -> str:
    """An exact C expression for a float or double; non-finite values go through their bits."""
    x = v.value
    if x != x or x in (float("inf"), float("-inf")):
        if v.size == 4:
            return f"ctgen_float_from_bits(0x{v.bits:08x}UL)"
        return f"ctgen_double_from_bits(0x{v.bits:016x}ULL)"
    if v.size == 4:
        return _shortest_float_text(v) + "f"
    text = repr(x)
    return text if any(c in text for c in ".e") else text + ".0"


def c_string(text: str) -> str:
    """A C string literal of `text` (UTF-8; anything unusual as an octal escape)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F and ch != "?":  # '?' escaped: no trigraphs
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_bytes(data: bytes) -> str:
    """A C string literal holding exactly `data` (plus the implicit NUL)."""
    return '"' + "".join(f"\\{b:03o}" for b in data) + '"'


# ------------------------------------------------------------------------- prototypes

_SPECIFIERS_DROPPED = {"static", "extern", "inline", "__inline", "__inline__", "_Noreturn",
                       "__extension__", "noreturn"}


@dataclass(frozen=True)
class Signature:
    """What the harness needs of a prototype: the return type's text (a type name)."""

    name: str
    return_type: str

    @property
    def is_void(self) -> bool:
        return self.return_type.split() == ["void"]


def _drop_attributes(text: str) -> str:
    while True:
        m = re.search(r"\b__attribute__\s*\(", text)
        if not m:
            return text
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        text = text[:m.start()] + " " + text[i:]


def _declarator(prototype: str, name: str) -> tuple[str, re.Match[str]]:
    """The prototype without attributes, and where `name(` stands in it."""
    text = _drop_attributes(prototype)
    m = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", text)
    if m is None:
        raise UnsupportedError(f"cannot find {name}( in its prototype {prototype!r}")
    return text, m


def parse_signature(prototype: str, name: str) -> Signature:
    """The return type of function `name` from its prototype text."""
    text, m = _declarator(prototype, name)
    before = text[:m.start()]
    if "(" in before or ")" in before:
        raise UnsupportedError(f"{name}: return type of {prototype!r} is not supported")
    words = [w for w in re.findall(r"\*|[^\s*]+", before) if w not in _SPECIFIERS_DROPPED]
    ret = " ".join(words).replace(" *", "*").replace("*", " *").strip()
    ret = re.sub(r"\*\s+\*", "**", ret)
    if not ret:
        raise UnsupportedError(f"{name}: no return type in {prototype!r}")
    return Signature(name, ret)


def _declare_type(type_text: str, var: str) -> str:
    """A declaration of `var` with a simple type name (no array or function declarators)."""
    return f"{type_text}{'' if type_text.endswith('*') else ' '}{var}"


# -------------------------------------------------------------------------- values in C


def _contains(v: Value, kinds: tuple[type, ...]) -> bool:
    if isinstance(v, kinds):
        return True
    if isinstance(v, RecordValue):
        return any(_contains(x, kinds) for _, x in v.fields)
    if isinstance(v, ArrayValue):
        return any(_contains(x, kinds) for x in v.elements)
    return False


def scalar_expr(v: Value) -> str | None:
    """The C expression of a scalar value, or None if `v` is an aggregate or bytes."""
    if isinstance(v, IntValue):
        return c_int_literal(v.value)
    if isinstance(v, FloatValue):
        return c_float_literal(v)
    if isinstance(v, PointerValue):
        return pointer_expr(v)
    return None


def pointer_expr(v: PointerValue) -> str:
    """A pointer to `v.offset` bytes into the case's object `v.target` (NULL if none), or
    to the function `v.target`."""
    if v.target is None:
        return "0"
    if v.function:
        return v.target
    if v.target == "*":
        raise ValueError("a pointer to an object the case cannot name is no input")
    if v.offset == 0:
        return f"(void *)({v.target})"
    return f"(void *)((unsigned char *)({v.target}) + {c_int_literal(v.offset)})"


def initializer(v: Value) -> str:
    """A C initializer of `v` (designated for records). BytesValue cannot be expressed."""
    s = scalar_expr(v)
    if s is not None:
        return s
    if isinstance(v, RecordValue):
        if not v.fields:
            return "{ 0 }"
        return "{ " + ", ".join(f".{n} = {initializer(x)}" for n, x in v.fields) + " }"
    if isinstance(v, ArrayValue):
        if not v.elements:
            return "{ 0 }"
        return "{ " + ", ".join(initializer(x) for x in v.elements) + " }"
    raise ValueError(f"no initializer for {v!r}")


def set_statements(lvalue: str, v: Value, top: bool = True) -> list[str]:
    """Statements storing `v` into `lvalue`; a record is zeroed as a whole first."""
    out: list[str] = []
    if top and _contains(v, (RecordValue,)):
        out.append(f"ctgen_zero_bytes((void *)&({lvalue}), sizeof ({lvalue}));")
    s = scalar_expr(v)
    if s is not None:
        out.append(f"{lvalue} = {s};")
    elif isinstance(v, RecordValue):
        for name, x in v.fields:
            out.extend(set_statements(f"{lvalue}.{name}", x, False))
    elif isinstance(v, ArrayValue):
        if v.elements:  # an export's array longer than the object is a compile error
            out.append(f"CTGEN_ELEMENTS_FIT({lvalue}, {len(v.elements)});")
        for i, x in enumerate(v.elements):
            out.extend(set_statements(f"{lvalue}[{i}]", x, False))
    elif isinstance(v, BytesValue):
        out.append(f"ctgen_copy_bytes((void *)&({lvalue}), {c_bytes(v.data)}, "
                   f"{_byte_count(lvalue, len(v.data))});")
    else:
        raise TypeError(f"not a case value: {v!r}")
    return out


#: What a stub writes through a character or void pointer argument: the rest of the
#: object the argument points into, whose size only the case knows.
_BUFFER_WRITE = re.compile(r"\*\(unsigned char \*\)\w+")


def _byte_count(lvalue: str, n: int) -> str:
    """How many of `n` bytes are copied into or compared with `lvalue`: at most its size
    (bytes of an export never spill past the object), except for a stub's buffer write."""
    if _BUFFER_WRITE.fullmatch(lvalue):
        return str(n)
    return f"(sizeof ({lvalue}) < {n}u ? sizeof ({lvalue}) : {n}u)"


def declare_with_value(declaration: str, var: str, v: Value) -> list[str]:
    """A local `var` declared from a template and holding `v` (const-qualified types too)."""
    decl = declare(declaration, var)
    if not _contains(v, (BytesValue,)):
        return [f"{decl} = {initializer(v)};"]
    return [f"{decl} = {{ 0 }};"] + set_statements(var, v)


def check_statements(ctx: str, what: str, lvalue: str, v: Value) -> list[str]:
    """Checks of every leaf of `lvalue` against the predicted `v`, named from `what`."""
    w = c_string(what)
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
            return [f"ctgen_check_pointer({ctx}, {w}, (const void *)({lvalue}), "
                    f"(const void *){pointer_expr(v)}, {c_string(text)});"]
        return [f"ctgen_check_null({ctx}, {w}, ({lvalue}) == 0);"]
    if isinstance(v, RecordValue):
        return [s for n, x in v.fields
                for s in check_statements(ctx, f"{what}.{n}", f"{lvalue}.{n}", x)]
    if isinstance(v, ArrayValue):
        return [s for i, x in enumerate(v.elements)
                for s in check_statements(ctx, f"{what}[{i}]", f"{lvalue}[{i}]", x)]
    if isinstance(v, BytesValue):
        return [f"ctgen_check_bytes({ctx}, {w}, (const void *)&({lvalue}), "
                f"{c_bytes(v.data)}, {_byte_count(lvalue, len(v.data))});"]
    raise TypeError(f"not a case value: {v!r}")


# ----------------------------------------------------------------------------- pieces


def case_name(c: Case) -> str:
    """The case's name as the harness reports it: `function[case2]`."""
    return f"{c.function}[{c.id}]"


def include_text(path: str) -> str:
    """`#include`'s quoted name of `path` (include names have no escapes: a path that
    none can name is a ValueError)."""
    text = path.replace("\\", "/")
    problem = include_problem(text)
    if problem:
        raise ValueError(f"{path} {problem}")
    return f'"{text}"'


def _include_lines(unit_include: str) -> list[str]:
    text = unit_include.strip()
    if re.fullmatch(r"[A-Za-z_]\w*", text):  # a macro the build defines
        return [f"#include {text}"]
    if not (text.startswith('"') or text.startswith("<")):
        text = include_text(text)
    return ["#ifndef CTGEN_UNIT_SRC", f"#define CTGEN_UNIT_SRC {text}", "#endif",
            "#define main ctgen_unit_main /* a unit's own main must not clash */",
            "#include CTGEN_UNIT_SRC", "#undef main"]


def _callee(name: str) -> str:
    return "ctgen_unit_main" if name == "main" else name


def _counter(stub: str) -> str:
    return f"ctgen_calls_{stub}"


#: How the harness renames, in the unit, the library functions that end the program
#: (cases.PROGRAM_ENDS): to the runtime's function for how each ends it.
_PROGRAM_ENDS = tuple((name, {"exit": "ctgen_exit", "abort": "ctgen_abort",
                              "assertion failure": "ctgen_assert_fail"}[how])
                      for name, how in PROGRAM_ENDS.items())

_END_CODES = {"exit": "CTGEN_EXITED", "abort": "CTGEN_ABORTED",
              "assertion failure": "CTGEN_ASSERT_FAILED",
              "precondition violation": "CTGEN_VIOLATED",
              "__rtt_assert violation": "CTGEN_ANNOTATION_FAILED"}


def stub_symbol(stub: StubPrototype) -> str:
    """The C name the stub is defined under, renamed in the unit: the stub must not replace
    a function of the same name for the runtime, gcov's runtime or the process (a
    freestanding unit's `malloc` or `memcpy`, libc's `send`, zlib's `crc32`). A callback
    is a name of the harness's own."""
    return stub.name if stub.callback else f"ctgen_stub_{stub.name}"


def _renamed_prototype(stub: StubPrototype) -> str:
    text = stub.prototype.strip().rstrip(";")
    if stub.static or stub.callback:
        text = "static " + text
    symbol = stub_symbol(stub)
    if symbol == stub.name:
        return text
    return re.sub(rf"(?<![\w$]){re.escape(stub.name)}(?=\s*\()", symbol, text, count=1)


_LOG_FORMATS = {"signed": ("%lld", "(long long)"), "unsigned": ("%llu", "(unsigned long long)"),
                "float": ("%g", "(double)"), "pointer": ("%p", "(const void *)")}


def _log_call_line(stub: StubPrototype) -> str:
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


def _precondition_lines(stub: StubPrototype) -> list[str]:
    """Checks of the specification's preconditions on the arguments of the call."""
    return [f"if (!({condition})) ctgen_precondition_failed("
            f"{c_string(stub.name)}, ctgen_k, {c_string(condition)}, {c_string(at)});"
            for condition, at in stub.preconditions]


def _with_targets(v: Value, names: dict[str, str], functions: bool = False) -> Value:
    """`v` with pointers to the case's objects (or with `functions`, pointers to
    functions) renamed as `names` says."""
    if isinstance(v, PointerValue) and v.function == functions and v.target in names:
        return replace(v, target=names[v.target])
    if isinstance(v, RecordValue):
        return RecordValue(tuple((n, _with_targets(x, names, functions)) for n, x in v.fields))
    if isinstance(v, ArrayValue):
        return ArrayValue(tuple(_with_targets(x, names, functions) for x in v.elements))
    return v


def _with_symbols(c: Case, symbols: dict[str, str]) -> Case:
    """Case `c` with its pointers to functions the harness renames in the unit (stubs,
    `main`, `exit`) pointing to them under their names in the harness."""
    def bound(bs: tuple[Binding, ...]) -> tuple[Binding, ...]:
        return tuple(replace(b, value=_with_targets(b.value, symbols, True)) for b in bs)

    e = c.expected
    returns = None if e.returns is None else _with_targets(e.returns, symbols, True)
    stubs = tuple(replace(s, calls=tuple(
        replace(k, returns=None if k.returns is None else _with_targets(k.returns, symbols,
                                                                         True),
                writes=bound(k.writes)) for k in s.calls)) for s in c.stubs)
    return replace(c, params=bound(c.params), globals=bound(c.globals),
                   objects=bound(c.objects), stubs=stubs,
                   expected=replace(e, returns=returns, globals=bound(e.globals),
                                    objects=bound(e.objects)))


def _object_slots(c: Case) -> dict[str, str]:
    """How a stub reaches the objects of case `c`: through the file-scope table the case
    fills, since they are local to the case's function."""
    return {o.name: f"ctgen_objects[{j}]" for j, o in enumerate(c.objects)}


def _script_refers_to_objects(c: Case) -> bool:
    names = {o.name for o in c.objects}
    return any(_pointer_targets(v) & names
               for s in c.stubs for k in s.calls
               for v in ([k.returns] if k.returns is not None else []) +
               [w.value for w in k.writes])


def _stub_lines(stub: StubPrototype, scripts: list[tuple[int, Case]]) -> list[str]:
    """The stub's definition: call k of case i plays back that case's script."""
    sig = parse_signature(stub.prototype, stub.name)
    out = [_renamed_prototype(stub), "{",
           f"{INDENT}unsigned long ctgen_k = {_counter(stub.name)}++;", f"{INDENT}(void)ctgen_k;",
           f"{INDENT}{_log_call_line(stub)}"]
    out += [f"{INDENT}{line}" for line in _precondition_lines(stub)]
    arms: list[str] = []
    for index, c in scripts:
        script = next(s for s in c.stubs if s.name == stub.name)
        if not script.calls:
            continue
        slots = _object_slots(c)
        arms.append(f"{INDENT}case {index}: /* {case_name(c)} */")
        arms.append(f"{INDENT * 2}switch (ctgen_k) {{")
        for k, call in enumerate(script.calls):
            arms.append(f"{INDENT * 2}case {k}: {{")
            body = [s for w in call.writes
                    for s in set_statements(w.name, _with_targets(w.value, slots))]
            if sig.is_void:
                body.append("return;")
            elif call.returns is None:
                body.append("break;")
            else:
                returns = _with_targets(call.returns, slots)
                expr = scalar_expr(returns)
                if expr is not None:
                    body.append(f"return {expr};")
                else:
                    body.extend(declare_with_value(_declare_type(sig.return_type, "@"),
                                                   "ctgen_r", returns))
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
    if not sig.is_void:  # past the script: a zero value
        out.append(f"{INDENT}{{")
        out.append(f"{INDENT * 2}static {_declare_type(sig.return_type, 'ctgen_zero')};")
        out.append(f"{INDENT * 2}return ctgen_zero;")
        out.append(f"{INDENT}}}")
    out.append("}")
    return out


def _pointer_targets(v: Value) -> set[str]:
    if isinstance(v, PointerValue):
        return {v.target} if v.target else set()
    if isinstance(v, RecordValue):
        return {t for _, x in v.fields for t in _pointer_targets(x)}
    if isinstance(v, ArrayValue):
        return {t for x in v.elements for t in _pointer_targets(x)}
    return set()


def _object_lines(objects: tuple[Binding, ...]) -> list[str]:
    """Declarations of the objects pointer inputs point to. When one holds the address of
    itself or of one declared after it (aliasing, a cyclic list), all are declared zeroed
    first and filled afterwards."""
    names = {o.name for o in objects}
    declared: set[str] = set()
    in_order = all(o.placement is None for o in objects)
    for o in objects:
        declared.add(o.name)
        if (_pointer_targets(o.value) & names) - (declared - {o.name}):
            in_order = False
    if in_order:
        return [s for o in objects for s in declare_with_value(o.declaration, o.name, o.value)]
    lines = [line for o in objects for line in _zeroed_object_lines(o)]
    for o in objects:
        lines.extend(set_statements(o.name, o.value))
    return lines


def _zeroed_object_lines(o: Binding) -> list[str]:
    """The zeroed object `o`; one placed at an address residue lies in a zeroed buffer
    aligned to the placement modulus, and its name is a macro for it until `#undef`."""
    if o.placement is None:
        return [f"{declare(o.declaration, o.name)} = {{ 0 }};"]
    buffer, at = f"ctgen_place_{o.name}", f"ctgen_at_{o.name}"
    return [f"_Alignas({PLACEMENT}) unsigned char {buffer}"
            f"[{PLACEMENT} + sizeof ({declare(o.declaration, '')})] = {{ 0 }};",
            f"{declare(o.declaration, f'(*const {at})')} = "
            f"(void *)({buffer} + {o.placement});",
            f"#define {o.name} (*{at})"]


def parameter_list(prototype: str, name: str) -> str:
    """The text of the parameter list of function `name` in its prototype ("" for none)."""
    text, m = _declarator(prototype, name)
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    params = text[m.end():i - 1].strip()
    return "" if params in ("", "void") else params


def _split_parameters(params: str) -> list[str]:
    """The declarations of a parameter list, split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(params):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(params[start:i].strip())
            start = i + 1
    out.append(params[start:].strip())
    return [p for p in out if p]


_SIGNS: dict[type, Callable[[int], int]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def _constant(text: str) -> int | None:
    """The value of an integer constant expression made of literals, `+`, `-` and `*`
    (`16u`, `4 * 4`), or None for anything else (a name, a cast, a division)."""
    text = re.sub(r"\b((?:0[xX][0-9a-fA-F]+)|\d+)[uUlL]+\b", r"\1", text.strip())
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None

    def value(n: ast.expr) -> int | None:
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.UnaryOp) and type(n.op) in _SIGNS:
            v = value(n.operand)
            return None if v is None else _SIGNS[type(n.op)](v)
        if isinstance(n, ast.BinOp) and type(n.op) in _OPERATORS:
            a, b = value(n.left), value(n.right)
            return None if a is None or b is None else _OPERATORS[type(n.op)](a, b)
        return None

    v = value(tree)
    return v if v is not None and 0 < v <= 1 << 24 else None


def array_parameter_bounds(prototype: str, name: str) -> list[int | None]:
    """Per parameter of function `name`, the bound it is declared with as an array
    (`int16_t win[16u]`: 16), or None (not an array, no bound, a bound that is not made of
    integer literals)."""
    bounds: list[int | None] = []
    for decl in _split_parameters(parameter_list(prototype, name)):
        m = re.search(r"[A-Za-z_]\w*\s*\[([^\[\]]*)\]", decl)
        if m is None or "(" in decl[:m.start()]:
            bounds.append(None)
            continue
        words = [w for w in m.group(1).split()
                 if w not in ("static", "const", "volatile", "restrict", "__restrict")]
        bounds.append(_constant(" ".join(words)) if words else None)
    return bounds


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
        if bound and isinstance(v, PointerValue) and v.target and v.offset == 0:
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


def _contract_lines(fn: FunctionCases, signature: Signature) -> list[str]:
    """The functions that take the annotations' values on entry and check the
    postconditions and test cases after the call (see cases.Contract)."""
    k = fn.contract
    assert k is not None
    params = parameter_list(fn.prototype, fn.name)
    name = _callee(fn.name)
    out: list[str] = []
    if k.initials:
        slots = ", ".join(declare(d, f"*ctgen_initial_{i}") for i, (d, _) in enumerate(k.initials))
        out += [f"static void ctgen_initials_{name}({params + ', ' if params else ''}{slots})",
                "{"]
        out += [f"{INDENT}*ctgen_initial_{i} = {expr};" for i, (_, expr) in enumerate(k.initials)]
        out += ["}", ""]
    args = [params] if params else []
    if not signature.is_void:
        args.append(_declare_type(signature.return_type, "ctgen_return"))
    args += [declare(d, f"ctgen_initial_{i}") for i, (d, _) in enumerate(k.initials)]
    out += [f"static void ctgen_contract_{name}(ctgen_ctx *ctgen_c, const char *ctgen_predicted"
            f"{''.join(', ' + a for a in args)})", "{"]
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


def _case_lines(index: int, c: Case, signature: Signature, stub_names: set[str],
                contract: Contract | None = None,
                bounds: Sequence[int | None] = ()) -> list[str]:
    ctx = "ctgen_c"
    body: list[str] = []
    args: list[str] = []
    body.extend(_object_lines(_padded_objects(c, bounds)))
    if _script_refers_to_objects(c):
        body.extend(f"{slot} = (void *)&({name});" for name, slot in _object_slots(c).items())
    for i, p in enumerate(c.params):
        var = f"ctgen_arg{i}"
        body.extend(declare_with_value(p.declaration, var, p.value))
        args.append(var)
    for g in c.globals:
        body.extend(set_statements(g.name, g.value))
    checked = contract is not None and not c.robustness and c.expected.ending is None
    written_at = {v.detail: v.at for v in c.violations if v.kind == "modifies"}
    if checked:
        assert contract is not None
        initials = [f"ctgen_initial_{i}" for i in range(len(contract.initials))]
        body += [f"{declare(d, v)};" for (d, _), v in zip(contract.initials, initials)]
        if initials:
            body.append(f"ctgen_initials_{_callee(c.function)}("
                        f"{', '.join(args + ['&' + v for v in initials])});")
        for j, name in enumerate(contract.unmodified):
            body += [f"unsigned char ctgen_before_{j}[sizeof ({name})];",
                     f"ctgen_copy_bytes(ctgen_before_{j}, (const void *)&({name}), "
                     f"sizeof ({name}));"]
    call = f"{_callee(c.function)}({', '.join(args)})"
    e = c.expected
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
        if signature.is_void:
            raise ValueError(f"{case_name(c)} predicts a return value of a void function")
        body.append(f"{_declare_type(signature.return_type, 'ctgen_result')} = {call};")
        body.extend(check_statements(ctx, "return", "ctgen_result", e.returns))
    elif checked and not signature.is_void:
        body.append(f"{_declare_type(signature.return_type, 'ctgen_result')} = {call};")
    elif signature.is_void:
        body.append(f"{call};")
    else:
        body.append(f"(void){call};")
    for g in e.globals:
        body.extend(check_statements(ctx, g.name, g.name, g.value))
    for o in e.objects:
        shown = "(*" + o.name.removeprefix(OBJECT_PREFIX) + ")"
        body.extend(check_statements(ctx, shown, o.name, o.value))
    for stub, count in e.stub_call_counts:
        if stub not in stub_names:
            raise ValueError(f"{case_name(c)} counts calls of {stub}, which is no stub")
        body.append(f"ctgen_check_int({ctx}, {c_string('calls of ' + stub)}, "
                    f"{_counter(stub)}, {c_int_literal(count)});")
    if checked:
        assert contract is not None
        for j, name in enumerate(contract.unmodified):
            body.append(f"ctgen_check_unmodified({ctx}, {c_string(c.function)}, "
                        f"{c_string(name)}, (const void *)&({name}), ctgen_before_{j}, "
                        f"sizeof ({name}), {c_string(written_at.get(name, ''))});")
        predicted = "|".join(v.at for v in c.violations if v.kind in ("postcondition",
                                                                      "testcase"))
        values = args + ([] if signature.is_void else ["ctgen_result"]) + \
            [f"ctgen_initial_{i}" for i in range(len(contract.initials))]
        body.append(f"ctgen_contract_{_callee(c.function)}({ctx}, {c_string(predicted)}"
                    f"{''.join(', ' + v for v in values)});")
    return (before + [f"/* {case_name(c)} */",
                      f"static void ctgen_case_{index}(ctgen_ctx *{ctx})", "{"]
            + [f"{INDENT}{s}" for s in body] + [f"{INDENT}(void){ctx};", "}"]
            + [f"#undef {o.name}" for o in c.objects if o.placement is not None])


def _ending_call_lines(index: int, c: Case, signature: Signature) -> list[str]:
    """The call of case `index`, which ends the program, as a function the runtime calls
    (`ctgen_call_catching_end`: the setjmp that exit/abort return to is the runtime's, so
    the harness needs no <setjmp.h>), and the struct of pointers to its arguments."""
    data = "ctgen_data"
    values = [f"*ctgen_a->a{i}" for i in range(len(c.params))]
    call = f"{'' if signature.is_void else '(void)'}{_callee(c.function)}({', '.join(values)});"
    out = [f"/* {case_name(c)}: the call, which ends the program */"]
    if c.params:
        out += [f"struct ctgen_args_{index} {{"]
        out += [f"{INDENT}{declare(p.declaration, f'(*a{i})')};"
                for i, p in enumerate(c.params)]
        out += ["};", f"static void ctgen_call_{index}(void *{data})", "{",
                f"{INDENT}struct ctgen_args_{index} *ctgen_a = "
                f"(struct ctgen_args_{index} *){data};"]
    else:
        out += [f"static void ctgen_call_{index}(void *{data})", "{", f"{INDENT}(void){data};"]
    return out + [f"{INDENT}{call}", "}", ""]


# ------------------------------------------------------------------------------ harness


def generate_harness(fc: FileCases, unit_include: str, sources: Sequence[str] = ()) -> str:
    """The C harness of `fc`.

    `unit_include` names the unit for `#include`: a path (quoted here, and overridable with
    -DCTGEN_UNIT_SRC="...") or the name of a macro the build defines. `sources` are the
    paths of the user's implementations of external functions, included after it. Raises
    NotImplementedError for pointer values into objects, UnsupportedError for a prototype
    whose return type the harness cannot declare."""
    callbacks = fc.callbacks()
    symbols = {s.name: stub_symbol(s) for s in fc.stubs}
    symbols.update({"main": _callee("main"), **dict(_PROGRAM_ENDS)})
    cases = [_with_symbols(c, symbols) for c in fc.all_cases()]
    stub_names = {s.name for s in (*fc.stubs, *callbacks)}
    for c in cases:
        for s in c.stubs:
            if s.name not in stub_names:
                raise ValueError(f"{case_name(c)} scripts {s.name}, which is no stub")
    signatures = {f.name: parse_signature(f.prototype, f.name) for f in fc.functions
                  if f.cases}
    bounds = {f.name: array_parameter_bounds(f.prototype, f.name) for f in fc.functions
              if f.cases}

    out = [f"/* Generated by pytest-ctgen from {fc.source.replace('*/', '* /')}:",
           " * the unit's test cases as C. Do not edit; regenerate instead. */",
           "#ifndef CTGEN_RUNTIME_HEADER /* a build may name another copy of the runtime */",
           '#define CTGEN_RUNTIME_HEADER "ctgen_runtime.h"', "#endif",
           "#include CTGEN_RUNTIME_HEADER", "",
           "/* An array a case sets element by element has that many elements (and is no",
           " * pointer): an export that says otherwise does not compile. */",
           "#define CTGEN_ELEMENTS_FIT(a, n) ((void)sizeof (char[(sizeof (a) / sizeof (a)[0] "
           ">= (n) && !__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))) "
           "? 1 : -1]))", ""]
    out += ["/* Ending the program in the unit returns to the running case instead. */"]
    out += [f"#define {name} {renamed}" for name, renamed in _PROGRAM_ENDS]
    if fc.stubs:
        out += ["/* The functions the unit calls and does not define are stubs of their own "
                "names. */"]
        for stub in fc.stubs:
            if stub.macro:  # a macro of the unit's would replace ours: the symbol instead
                out.append(f"#pragma redefine_extname {stub.name} {stub_symbol(stub)}")
            else:
                out.append(f"#define {stub.name} {stub_symbol(stub)}")
    out += _include_lines(unit_include)
    if sources:
        out += ["/* The implementations of external functions the unit is tested with. */"]
        out += [f"#include {include_text(path)}" for path in sources]
    out += [f"#undef {name}" for name, _ in _PROGRAM_ENDS]
    out += [f"#undef {stub.name}" for stub in fc.stubs if not stub.macro]
    if fc.global_stubs:
        out += ["", "/* The globals the unit declares extern and no file of the build defines "
                "(a real definition linked in wins). */"]
        # by its symbol under a name of ours: the unit's headers may define a macro of the
        # global's name (`#define stdin (&__stdin_FILE)`)
        out += [f"__attribute__((__weak__)) {declare(g.declaration, f'ctgen_global_{g.name}')}"
                f" __asm__({c_string(g.name)});" for g in fc.global_stubs]
    out += ["", "/* The running case; selects what the stubs play back. */",
            "static int ctgen_current_case = -1;"]
    slots = max((len(c.objects) for c in cases if _script_refers_to_objects(c)), default=0)
    if slots:
        out += ["/* The running case's objects, for stubs that return pointers to them. */",
                f"static void *ctgen_objects[{slots}];"]
    if fc.stubs or callbacks:
        out += ["", "/* ------------------------------------------------------------ stubs */"]
        out += [f"static unsigned long {_counter(s.name)};" for s in (*fc.stubs, *callbacks)]
        if callbacks:
            out += ["/* The callbacks: generated functions that function-pointer inputs "
                    "point to. */"]
            out += [f"{_renamed_prototype(s)};" for s in callbacks]
        out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic push",
                '#pragma GCC diagnostic ignored "-Wunused-parameter"', "#endif"]
        for stub in (*fc.stubs, *callbacks):
            scripts = [(i, c) for i, c in enumerate(cases)
                       if any(s.name == stub.name for s in c.stubs)]
            out += [""] + _stub_lines(stub, scripts)
        out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"]

    contracts = {f.name: f.contract for f in fc.functions if f.contract and f.cases}
    if contracts:
        out += ["", "/* -------------------------------------------------------- annotations */",
                "#if defined(__GNUC__)", "#pragma GCC diagnostic push",
                '#pragma GCC diagnostic ignored "-Wunused-parameter"', "#endif"]
        for f in fc.functions:
            if f.name in contracts:
                out += [""] + _contract_lines(f, signatures[f.name])
        out += ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"]

    out += ["", "/* ------------------------------------------------------------ cases */"]
    for i, c in enumerate(cases):
        out += [""] + _case_lines(i, c, signatures[c.function], stub_names,
                                  contracts.get(c.function), bounds[c.function])

    out += ["", "/* ------------------------------------------------------------ table */", ""]
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
    resets = [f"{INDENT}{_counter(s.name)} = 0;" for s in (*fc.stubs, *callbacks)]
    out += [
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
    return "\n".join(out)

