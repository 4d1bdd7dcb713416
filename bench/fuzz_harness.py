"""The libFuzzer harness of one function: C text that decodes the function's inputs from the
fuzz input and calls it.

What is decoded, in this order (fz_runtime.h has the byte-level rules):
- every parameter, as the bytes of its type; a pointer as NULL, an alias into an object made
  before for this input, or a fresh object of 10 (sometimes 64) elements filled from the
  input, two levels deep, like pytest-ctgen's `--ctgen-array-size`;
- the globals the function reads or writes, directly or through the functions of the unit it
  calls (every writable global is restored to its initial value first, so an input means
  the same thing whenever it runs: the replay reproduces the fuzzing run);
- for every call of an undefined function (the stubs pytest-ctgen found, `FileCases.stubs`):
  whether it writes each non-const pointer parameter and what (one element; for a byte
  buffer followed by a length parameter, up to 64 bytes of that length), whether it writes
  each volatile global and each global the function lists in `__rtt_modifies` (what
  pytest-ctgen's stubs may write by default), and its return value.

`exit`, `_Exit`, `quick_exit`, `abort`, a failing `assert` and a failing `__rtt_assert` end
the input, as they end a case of pytest-ctgen; `__VERIFIER_assume(c)` with c false drops it.
A unit that uses annotations or specifies its stubs in itself (`__rtt_extern`) is compiled
as pytest-ctgen compiles it, from `codegen.unit_copy.unit_copy_text`, so both tools are
measured on the same text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from pytest_ctgen.cases import FileCases, StubPrototype, declare
from pytest_ctgen.codegen.unit_copy import unit_copy_text
from pytest_ctgen.frontend.ctype import (
    ArrayType,
    CType,
    FunctionType,
    IntType,
    PointerType,
    RecordType,
    VoidType,
    declaration_of,
)
from pytest_ctgen.frontend.unit import Function, Unit, Variable

INDENT = "    "

#: Library functions that end the program, and what the harness makes of them.
PROGRAM_ENDS = (("exit", "fz_exit"), ("_Exit", "fz_exit"), ("quick_exit", "fz_exit"),
                ("abort", "fz_abort"), ("__assert_fail", "fz_assert_fail"))

#: Byte buffers a stub fills: at most this many bytes of the length argument after them.
STUB_BUFFER_MAX = 64


class HarnessError(Exception):
    """The function cannot be given a fuzz harness (the reason is the message)."""


@dataclass
class FuzzHarness:
    """A harness's C text and the files it needs beside it."""

    source: str
    files: dict[str, str] = field(default_factory=dict)  # name -> text, beside the harness
    include_dirs: tuple[str, ...] = ()  # -iquote directories the unit's includes need
    notes: tuple[str, ...] = ()


# ------------------------------------------------------------------ which globals

class _Names(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.calls: set[str] = set()

    def visit_ID(self, node: c_ast.ID) -> None:
        self.ids.add(node.name)

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        if isinstance(node.name, c_ast.ID):
            self.calls.add(node.name.name)
        self.generic_visit(node)


def reached_functions(unit: Unit, function: str) -> list[Function]:
    """`function` and the functions of the unit it calls, directly or not (also through a
    function's address taken by name)."""
    seen: dict[str, Function] = {}
    todo = [function]
    while todo:
        name = todo.pop()
        fn = unit.functions.get(name)
        if name in seen or fn is None or fn.definition is None:
            continue
        seen[name] = fn
        names = _Names()
        names.visit(fn.definition.body)
        todo.extend(sorted((names.ids | names.calls) & set(unit.functions)))
    return list(seen.values())


def referenced_globals(unit: Unit, function: str) -> list[Variable]:
    """The writable globals of the unit that `function` (or what it calls) names."""
    ids: set[str] = set()
    for fn in reached_functions(unit, function):
        names = _Names()
        names.visit(fn.definition.body)  # type: ignore[union-attr]
        ids |= names.ids
    return [v for v in writable_globals(unit) if v.name in ids]


def writable_globals(unit: Unit) -> list[Variable]:
    """The globals the unit defines that a run can change (not const, not only extern)."""
    out = []
    for v in unit.globals.values():
        if v.is_const or v.is_extern or not unit.in_main_file(v.location):
            continue
        if isinstance(v.type, (FunctionType, VoidType)) or v.type.size <= 0:
            continue
        out.append(v)
    return out


# ------------------------------------------------------------------ fixers

class _Fixers:
    """C functions `fz_fix_K(unsigned char *o, int depth)` that set up the pointers (and
    _Bools) inside an object of a type after its bytes were taken from the input."""

    def __init__(self) -> None:
        self.names: dict[object, str | None] = {}
        self.bodies: list[tuple[str, list[str]]] = []

    @staticmethod
    def _key(t: CType) -> object:
        if isinstance(t, RecordType):
            return ("record", id(t))
        if isinstance(t, PointerType):
            return ("pointer", _Fixers._key(t.target) if not isinstance(t.target, FunctionType)
                    else "function")
        if isinstance(t, ArrayType):
            return ("array", _Fixers._key(t.element), t.count)
        if isinstance(t, IntType) and t.is_bool:
            return ("bool",)
        return ("plain",)

    def fixer(self, t: CType) -> str | None:
        """The name of the fixer of `t`, or None when its bytes need no fixing."""
        key = self._key(t)
        if key in self.names:
            return self.names[key]
        if key == ("plain",):
            self.names[key] = None
            return None
        name = f"fz_fix_{len(self.bodies)}"
        self.names[key] = name  # before the body: recursive types refer to themselves
        slot = len(self.bodies)
        self.bodies.append((name, []))
        body = self._body(t)
        if not body:
            self.names[key] = None
            self.bodies[slot] = ("", [])
            return None
        self.bodies[slot] = (name, body)
        return name

    def _body(self, t: CType) -> list[str]:
        if isinstance(t, IntType) and t.is_bool:
            return ["o[0] &= 1u;"]
        if isinstance(t, PointerType):
            target = t.target
            if isinstance(target, FunctionType):
                return ["*(void **)o = 0; /* no function to point to */"]
            esize = object_size(target)
            fix = self.fixer(target) if esize and target.is_complete else None
            return [f"*(void **)o = fz_ptr({esize or 1}u, {fix or '0'}, depth);"]
        if isinstance(t, ArrayType):
            fix = self.fixer(t.element)
            if fix is None or not t.count:
                return []
            return [(f"{{ unsigned long i; for (i = 0; i < {t.count}ul; i++) "
                     f"{fix}(o + i * {t.element.size}u, depth); }}")]
        if isinstance(t, RecordType):
            out = []
            for f in t.fields:
                if f.is_bitfield:
                    continue
                fix = self.fixer(f.type)
                if fix is not None:
                    out.append(f"{fix}(o + {f.offset}u, depth);")
            return out
        return []

    def text(self) -> list[str]:
        live = [(n, b) for n, b in self.bodies if n]
        out = [f"static void {n}(unsigned char *o, int depth) FZ_UNINSTRUMENTED;"
               for n, _ in live]
        for name, body in live:
            out += [f"static void {name}(unsigned char *o, int depth)", "{"]
            out += [INDENT + s for s in body]
            out += [f"{INDENT}(void)o;", f"{INDENT}(void)depth;", "}"]
        return out


def object_size(t: CType) -> int:
    """The size of an element a pointer to `t` steps over (void: 1, incomplete: 0)."""
    if isinstance(t, VoidType):
        return 1
    if not t.is_complete:
        return 0
    return t.size


# ------------------------------------------------------------------ declarations

def _strip_top_const(template: str) -> str:
    """A declaration template without the qualifiers of the declared object itself, so the
    harness can fill it (`const uint8_t *const @` -> `const uint8_t *@`)."""
    at = template.index("@")
    before, after = template[:at], template[at:]
    star = before.rfind("*")
    if star >= 0:
        head, tail = before[:star + 1], before[star + 1:]
        tail = re.sub(r"\b(const|volatile)\b\s*", "", tail)
        return head + tail + after
    return re.sub(r"\b(const|volatile)\b\s*", "", before) + after


def local_declaration(v: Variable, name: str) -> str:
    template = v.declaration if "@" in v.declaration else declaration_of(v.type)
    if re.search(r"@\s*\[", template):  # an array parameter: the pointer it is
        template = declaration_of(v.type)
    return _strip_top_const(template).replace("@", name)


def _params(fn: Function) -> list[tuple[str, CType]]:
    return [(p.name, t) for p, t in zip(fn.params, fn.type.params)]


# ------------------------------------------------------------------ stubs

def _stub_symbol(stub: StubPrototype) -> str:
    return f"fz_stub_{stub.name}" if stub.library else stub.name


def _stub_definition(stub: StubPrototype, fn: Function | None, fixers: _Fixers,
                     globals_written: list[Variable]) -> list[str]:
    sig = stub.signature  # read from the unit with the cases
    if sig is None:
        raise HarnessError(f"the declaration of the stub {stub.name} was not read")
    proto = stub.prototype.strip().rstrip(";")
    proto = re.sub(r"\b(extern|inline|__inline|__inline__)\b\s*", "", proto)
    if stub.library:
        proto = re.sub(rf"(?<![\w$]){re.escape(stub.name)}(?=\s*\()", _stub_symbol(stub),
                       proto, count=1)
    if stub.static and not proto.startswith("static"):
        proto = "static " + proto
    body: list[str] = []
    params = _params(fn) if fn is not None else []
    if stub.name == "__VERIFIER_assume" and params:
        body.append(f"if (!({params[0][0]})) fz_end(FZ_END_ASSUME);")
    for v in globals_written:
        fix = fixers.fixer(v.type)
        body.append(f"fz_out((void *)&{v.name}, sizeof {v.name}, 1u, {fix or '0'});")
    for i, (name, t) in enumerate(params):
        if not isinstance(t, PointerType) or t.target_const or \
                isinstance(t.target, FunctionType):
            continue
        esize = object_size(t.target)
        if not esize:
            continue
        count = "1u"
        if esize == 1:  # a byte buffer: as many bytes as a length argument after it says
            lengths = [n for n, u in params[i + 1:] if isinstance(u, IntType)]
            if lengths:
                count = (f"((size_t)({lengths[0]}) < {STUB_BUFFER_MAX}u ? "
                         f"(size_t)({lengths[0]}) : {STUB_BUFFER_MAX}u)")
        fix = fixers.fixer(t.target)
        body.append(f"fz_out((void *){name}, {esize}u, {count}, {fix or '0'});")
    if sig.returns is not None:
        ret = sig.returns
        if "*" not in ret:
            ret = re.sub(r"\b(const|volatile)\b\s*", "", ret).strip()
        rtype = fn.type.result if fn is not None else None
        fix = fixers.fixer(rtype) if rtype is not None else None
        body.append(f"{declare(ret, 'fz_r')};")
        if not isinstance(rtype, PointerType):
            body.append("fz_take(&fz_r, sizeof fz_r);")
        if fix:
            body.append(f"{fix}((unsigned char *)&fz_r, 0);")
        body.append("return fz_r;")
    unused = [f"(void){n};" for n, _ in params]
    return [f"{proto} FZ_UNINSTRUMENTED;", proto, "{"] + \
        [INDENT + s for s in unused + body] + ["}"]


# ------------------------------------------------------------------ the harness

def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fuzz_harness(unit: Unit, function: str, fc: FileCases, unit_path: Path) -> FuzzHarness:
    """The harness fuzzing `function` of `unit` (loaded from `unit_path`); `fc` gives the
    stubs (pytest-ctgen's `FileCases.stubs`) and the function's `__rtt_modifies`."""
    fn = unit.functions.get(function)
    if fn is None or fn.definition is None:
        raise HarnessError(f"{function} is not defined in {unit_path}")
    if fn.type.variadic:
        raise HarnessError(f"{function} is variadic")
    unit_path = Path(unit_path).resolve()
    files: dict[str, str] = {}
    include_dirs: tuple[str, ...] = ()
    copy = unit_copy_text(unit_path, str(unit_path), fc.stubs, fc.source)
    if copy is not None:
        files["fz_unit.c"] = copy
        unit_include = '"fz_unit.c"'
        include_dirs = (str(unit_path.parent),)
    else:
        unit_include = _c_string(str(unit_path))
    fixers = _Fixers()


    # what stubs may write: volatile globals and the function's __rtt_modifies
    writable = writable_globals(unit)
    fcases = next((f for f in fc.functions if f.name == function), None)
    modifies = set(fcases.contract.modifies or ()) \
        if fcases is not None and fcases.contract is not None else set()
    stub_writes = [v for v in writable if v.is_volatile or v.name in modifies]

    stub_lines: list[str] = []
    if fc.stubs:
        stub_lines += ["#if defined(__GNUC__)", "#pragma GCC diagnostic push",
                       '#pragma GCC diagnostic ignored "-Wunused-parameter"', "#endif"]
        for stub in fc.stubs:
            stub_lines += [""] + _stub_definition(stub, unit.functions.get(stub.name), fixers,
                                                  stub_writes)
        stub_lines += ["#if defined(__GNUC__)", "#pragma GCC diagnostic pop", "#endif"]

    # the call
    body: list[str] = ["fz_begin(data, size);", "fz_restore_globals();"]
    args = []
    for i, (p, t) in enumerate(zip(fn.params, fn.type.params)):
        var = f"fz_arg{i}"
        body.append(f"{local_declaration(p, var)};")
        if not isinstance(t, PointerType):  # a pointer is made by its fixer alone
            body.append(f"fz_take(&{var}, sizeof {var});")
        fix = fixers.fixer(t)
        if fix:
            body.append(f"{fix}((unsigned char *)&{var}, 0);")
        args.append(var)
    for v in referenced_globals(unit, function):
        if not isinstance(v.type, PointerType):
            body.append(f"fz_take((void *)&{v.name}, sizeof {v.name});")
        fix = fixers.fixer(v.type)
        if fix:
            body.append(f"{fix}((unsigned char *)&{v.name}, 0);")
    callee = "ctgen_unit_main" if function == "main" else function
    # through a volatile pointer: the function is never inlined into this uninstrumented one
    body += [f"__typeof__({callee}) *volatile fz_target = {callee};",
             "if (setjmp(fz_end_jump) == 0) { /* fz_end() returns here */",
             f"{INDENT}fz_end_armed = 1;", f"{INDENT}(void)fz_target({', '.join(args)});",
             f"{INDENT}fz_end_armed = 0;", f"{INDENT}fz_ended(FZ_END_RETURN);", "}",
             "return 0;"]

    saved = [f"static unsigned char fz_saved_{i}[sizeof {v.name}];"
             for i, v in enumerate(writable)]
    restore = ["static void fz_restore_globals(void) FZ_UNINSTRUMENTED;",
               "static void fz_restore_globals(void)", "{", f"{INDENT}static int saved;",
               f"{INDENT}if (!saved) {{", f"{INDENT * 2}saved = 1;"]
    restore += [f"{INDENT * 2}__builtin_memcpy(fz_saved_{i}, (const void *)&{v.name}, "
                f"sizeof {v.name});" for i, v in enumerate(writable)]
    restore += [f"{INDENT}}}"]
    restore += [f"{INDENT}__builtin_memcpy((void *)&{v.name}, fz_saved_{i}, sizeof {v.name});"
                for i, v in enumerate(writable)]
    restore += ["}"]

    out = [f"/* libFuzzer harness of {function} in {unit_path.name}, generated by bench/. */",
           '#include "fz_runtime.h"', ""]
    out += [f"#define {name} {renamed}" for name, renamed in PROGRAM_ENDS]
    library = [s for s in fc.stubs if s.library]
    out += [f"#define {s.name} {_stub_symbol(s)}" for s in library]
    if copy is not None:
        out += ["/* what the unit's copy calls for its annotations (see codegen/unit_copy) */",
                ("static void ctgen_annotation_assert_failed(const char *file, int line, "
                 "const char *text)"),
                "{", f"{INDENT}(void)file;", f"{INDENT}(void)line;", f"{INDENT}(void)text;",
                f"{INDENT}fz_end(FZ_END_ANNOTATION);", "}",
                "static void ctgen_aux_bind(const char *name, void *address, size_t size)",
                "{", f"{INDENT}(void)name;", f"{INDENT}(void)address;", f"{INDENT}(void)size;",
                "}"]
    out += ["#define main ctgen_unit_main", f"#include {unit_include}", "#undef main"]
    out += [f"#undef {name}" for name, _ in PROGRAM_ENDS]
    out += [f"#undef {s.name}" for s in library]
    out.append("")
    out += ["/* ---------------------------------------------------------- objects */"]
    out += fixers.text()
    out += [""] + saved + restore
    out += ["", "/* ------------------------------------------------------------ stubs */"]
    out += stub_lines
    out += ["", "/* ----------------------------------------------------------- target */",
            "int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) FZ_UNINSTRUMENTED;",
            "int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)", "{"]
    out += [INDENT + s for s in body]
    out += ["}", ""]
    text = "\n".join(out)
    return FuzzHarness(text, files, include_dirs)

