"""The miter of a mutant (bench/equivalence.py): a unit whose one function returns 1 exactly
when the function under test and its mutant behave differently on the same inputs.

`checkable` says whether that comparison is sound for a function: a miter calls the
function and then the mutant with the same arguments, so each must see the same inputs
in both calls and must show everything it does in what the miter compares. That holds
when

- every parameter is passed by value and holds no pointer (integers, enums, floats,
  records of them), and the result is one of these or void;
- the function and everything it calls (its call closure in the unit) calls no function
  the unit does not define, other than the C library's functions the generator models
  (`library_models.py`; not the allocation functions): a stub returns a value of its own
  per call, so the two calls would not see the same values;
- the closure keeps no state in static locals, calls nothing that ends the program
  (`exit`, `abort`, `assert`: the miter would not compare what follows) and writes
  nothing through a pointer it did not take from a variable's address;
- the globals the closure may write (ir/written_globals.py) are ones the miter can save
  and compare: complete, not volatile. The miter saves their bytes before the first
  call, keeps their bytes after it, puts the saved bytes back for the mutant's call and
  compares the two outcomes byte by byte. Globals only read are inputs both calls see
  alike.

`miter_unit` writes the unit: the unit's text with, right after the function's
definition (so that the macros and declarations in scope there are the same), the
mutant's definition under a name of its own (`f__mutant`, calls of itself renamed too),
then the miter `f__miter` with the function's parameters."""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from pytest_ctgen.cases import ALLOCATOR_FUNCTIONS, PROGRAM_ENDS
from pytest_ctgen.frontend.ctype import (
    ArrayType, CType, EnumType, FloatType, FunctionType, IntType, PointerType, RecordType,
    VoidType, declaration_of, holds_pointer, value_members)
from pytest_ctgen.frontend.annotations import USER_PREFIX
from pytest_ctgen.frontend.signatures import UnitSignatures
from pytest_ctgen.frontend.unit import GLOBAL, Unit, Variable
from pytest_ctgen.ir.cfg import Assign, Call, Stmt, Terminator, ZeroFill
from pytest_ctgen.ir.expr import (
    AddrOf, Binary, Deref, Expr, Member, PtrAdd, PtrDiff, VarRef, is_null_constant, nodes_in)
from pytest_ctgen.ir.lower import Program
from pytest_ctgen.ir.written_globals import written_globals
from pytest_ctgen.library_models import MODELLED_FUNCTIONS

from .mutants import Mutant, Token, body_of, tokens

#: A precondition as the user writes it (c_harness/ctgen.h).
PRECONDITION = USER_PREFIX + "precondition"

#: The most scalar members of a returned record the miter compares one by one.
_MAX_MEMBERS = 64
#: The elements of the object a pointer parameter points to in the miter: those of the
#: objects the generator makes for a function's pointer inputs (--ctgen-array-size).
OBJECT_ELEMENTS = 10
#: The most scalars of an object a pointer parameter points to that the miter compares:
#: fewer elements of larger ones.
_MAX_COMPARED = 256


@dataclass(frozen=True)
class Checkable:
    """Whether the miter of function `name` is sound (`reason` "" when it is), and the
    globals its call closure may write, which the miter saves and compares."""

    name: str
    reason: str = ""
    written: tuple[Variable, ...] = ()
    pointers: tuple[PointerParameter, ...] = ()
    # the call closure reads a global holding a pointer to an object: the generator
    # makes objects for it, and assumes things of them that may leave outcomes unproved
    pointer_inputs: bool = False


@dataclass(frozen=True)
class PointerParameter:
    """A pointer parameter of the function: the miter takes the object it points to by
    value, an array of `count` elements of `target` (wrapped in a struct) and a flag
    for NULL, gives the function and the mutant a copy each and compares the copies
    after the calls, element by element (unless the target is const)."""

    name: str
    target: CType
    count: int
    const: bool


def closure(program: Program, name: str) -> tuple[list[str], list[str]]:
    """The functions of the unit `name` calls, directly or not, itself first; and the
    undefined functions they call (by name, each once)."""
    seen = [name]
    undefined: list[str] = []
    todo = [name]
    while todo:
        cfg = program.cfgs.get(todo.pop())
        if cfg is None:
            continue
        for block in cfg.blocks:
            for stmt in block.stmts:
                if not isinstance(stmt, Call):
                    continue
                # a call through a pointer may reach any function whose address is taken
                callees = program.designated_functions if stmt.pointer is not None \
                    else [stmt.function]
                for callee in callees:
                    if callee in program.cfgs:
                        if callee not in seen:
                            seen.append(callee)
                            todo.append(callee)
                    elif callee not in undefined:
                        undefined.append(callee)
    return seen, undefined


def _rooted(target: Expr) -> bool:
    """Whether the lvalue `target` designates (a part of) a variable's own storage, not
    an object reached through a pointer the code holds."""
    while True:
        if isinstance(target, VarRef):
            return True
        if isinstance(target, Member):
            target = target.base
        elif isinstance(target, Deref):
            pointer = target.pointer
            while isinstance(pointer, PtrAdd):
                pointer = pointer.pointer
            if not isinstance(pointer, AddrOf):
                return False
            target = pointer.lvalue
        else:
            return False


def _value_reason(t: CType, what: str) -> str:
    """Why a parameter or result of type `t` cannot be compared ("" when it can)."""
    if isinstance(t, FloatType) and t.unmodelled is not None:
        return f"{what} is a {t} ({t.unmodelled})"
    if holds_pointer(t):
        return f"{what} is or holds a pointer"
    if isinstance(t, ArrayType) and not t.is_complete:
        return f"{what} has a size known only at run time"
    if isinstance(t, RecordType) and any(
            isinstance(s, RecordType) and s.is_union for s in _nested_records(t)):
        return f"{what} is or holds a union"
    return ""


def _nested_records(t: CType) -> list[RecordType]:
    if isinstance(t, ArrayType):
        return _nested_records(t.element)
    if isinstance(t, RecordType):
        return [t, *(r for f in t.fields for r in _nested_records(f.type))]
    return []


def checkable(program: Program, name: str) -> Checkable:
    """Whether the miter of function `name` of `program` is sound (see the module's
    docstring), and what it must save and compare of the globals."""
    unit = program.unit
    fn = unit.functions.get(name)
    if fn is None or name not in program.cfgs:
        failure = program.failures.get(name)
        return Checkable(name, f"the generator does not take the function"
                               f"{f' ({failure})' if failure else ''}")
    ftype = fn.type
    if ftype.variadic or not ftype.prototyped:
        return Checkable(name, "variadic or without a prototype")
    pointers: list[PointerParameter] = []
    for param, ptype in zip(fn.params, ftype.params):
        if isinstance(ptype, PointerType) and \
                not isinstance(ptype.target, (FunctionType, VoidType)):
            target = ptype.target
            why = _value_reason(target, f"the object parameter {param.name} points to")
            if not why and (not target.is_complete or target.size <= 0):
                why = f"parameter {param.name} points to an object of unknown size"
            if why:
                return Checkable(name, why)
            scalars = max(1, len(_leaves(target, "e")))
            count = OBJECT_ELEMENTS if ptype.target_const else \
                max(1, min(OBJECT_ELEMENTS, _MAX_COMPARED // scalars))
            pointers.append(PointerParameter(param.name, target, count, ptype.target_const))
            continue
        why = _value_reason(ptype, f"parameter {param.name}")
        if why:
            return Checkable(name, why + " (the miter passes values only)")
    result = ftype.result
    if not isinstance(result, VoidType):
        why = _value_reason(result, "the result")
        if why:
            return Checkable(name, why)
        if isinstance(result, RecordType) and len(_leaves(result, "r")) > _MAX_MEMBERS:
            return Checkable(name, f"the result has more than {_MAX_MEMBERS} members")
    functions, undefined = closure(program, name)
    for callee in undefined:
        declared = unit.functions.get(callee)
        library = declared is not None and declared.is_library
        if callee in PROGRAM_ENDS:
            return Checkable(name, f"may end the program ({callee})")
        if callee in program.specs:
            return Checkable(name, f"calls {callee}, a specified external function (a stub)")
        if library and callee in ALLOCATOR_FUNCTIONS:
            return Checkable(name, f"calls {callee} (an allocation may fail per call)")
        if not (library and callee in MODELLED_FUNCTIONS):
            return Checkable(name, f"calls {callee}, undefined in the unit (a stub returns "
                                   "values of its own per call)")
    for f in functions:
        contract = program.contracts.get(f)
        if contract is not None and contract.aux:
            return Checkable(name, f"{f} keeps ghost variables (__rtt_aux), which the "
                                   "miter does not compare")
        for var in program.static_locals.get(f, []):
            if not var.is_const:
                return Checkable(name, f"{f} keeps state in static local {var.name}")
    bodies: list[Stmt | Terminator | None] = []
    through: Stmt | None = None  # a write through a pointer
    for f in functions:
        for block in program.cfgs[f].blocks:
            for stmt in block.stmts:
                lvalue = stmt.target if isinstance(stmt, (Assign, ZeroFill, Call)) else None
                if lvalue is not None and not _rooted(lvalue) and through is None:
                    through = stmt
            bodies += [*block.stmts, block.terminator]
    # two pointer parameters may point into one object in a case; the miter gives each an
    # object of its own: alike when the function only reads them and never compares them
    if len(pointers) > 1:
        if not all(p.const for p in pointers):
            return Checkable(name, "pointer parameters that may point into one object, one "
                                   "written through")
        compared = next((n for node in bodies for n in nodes_in(node)
                         if isinstance(n, PtrDiff) or (
                             isinstance(n, Binary) and isinstance(n.left.type, PointerType)
                             and not is_null_constant(n.left)
                             and not is_null_constant(n.right))), None)
        if compared is not None:
            return Checkable(name, "compares pointers (its pointer parameters may point "
                                   "into one object)")
    # a write through a pointer reaches a parameter's object (which the miter compares),
    # a local, or a global whose address the code takes (written_globals counts it as
    # written); unless a pointer comes from a global, to an object no copy is made of
    pointer_globals = sorted({n.var.name for node in bodies for n in nodes_in(node)
                              if isinstance(n, VarRef) and n.var.kind == GLOBAL and
                              _holds_data_pointer(n.var.type)})
    if through is not None and pointer_globals:
        return Checkable(name, f"writes through a pointer (line {through.location.line}) "
                               f"and reads pointer global {pointer_globals[0]}")
    defined = [f.name for f in unit.functions.values() if f.is_defined]
    written = written_globals(unit, bodies, [], defined)
    # a const global is never written (its address taken counts for written_globals): the
    # miter must not restore it either, which would write into read-only memory
    ordered = tuple(v for v in unit.globals.values()
                    if v in written and v.kind == GLOBAL and not v.is_const)
    for var in ordered:
        if pointers and holds_pointer(var.type):
            return Checkable(name, f"writes pointer global {var.name} (the two calls get "
                                   "copies of the objects at other addresses)")
        if var.is_volatile:
            return Checkable(name, f"writes volatile global {var.name}")
        if not var.type.is_complete or var.type.size <= 0:
            return Checkable(name, f"writes global {var.name} of unknown size")
    return Checkable(name, "", ordered, tuple(pointers), bool(pointer_globals))


def _holds_data_pointer(t: CType) -> bool:
    """Whether an object of `t` holds a pointer to an object (not only to functions)."""
    if isinstance(t, PointerType):
        return not isinstance(t.target, FunctionType)
    if isinstance(t, ArrayType):
        return _holds_data_pointer(t.element)
    if isinstance(t, RecordType):
        return any(_holds_data_pointer(f.type) for f in t.fields)
    return False


def _leaves(t: CType, access: str) -> list[tuple[str, CType]]:
    """The scalar parts of an object of type `t` reached by the C expression `access`:
    (expression, type) in declaration order."""
    if isinstance(t, RecordType):
        return [leaf for f in value_members(t)
                for leaf in _leaves(f.type, f"{access}.{f.name}")]
    if isinstance(t, ArrayType):
        return [leaf for i in range(t.count or 0) for leaf in _leaves(t.element, f"{access}[{i}]")]
    return [(access, t)]


def _differ(t: CType, a: str, b: str, names: Iterator[int]) -> tuple[list[str], list[str]]:
    """Declarations and C expressions (int, no branch) that are 1 when the values `a` and
    `b` of type `t` differ (`names` numbers the declarations). Integers (enums, _Bool)
    differ when `!=`. Floats differ when their bits differ, unless both are NaN: so 0.0
    and -0.0 differ, as a case's check tells them apart, and two NaNs are the same
    whatever their payloads, as a case's check accepts any NaN (ctgen_runtime.c). The
    bits are read through a union of the float and an unsigned integer of its size,
    which gcc defines and the generator models: no comparison of C tells 0.0 from -0.0.
    Records and arrays differ where a scalar member or element does."""
    if isinstance(t, FloatType):
        bits = "unsigned int" if t.size == 4 else "unsigned long long"
        u = f"f__miter_u{next(names)}"
        return [f"union {{ {t.name} v; {bits} u; }} {u}a, {u}b;"], \
            [f"({u}a.v = {a}, {u}b.v = {b}, !(({a} != {a}) & ({b} != {b})) & "
             f"({u}a.u != {u}b.u))"]
    if isinstance(t, (IntType, EnumType)):
        return [], [f"({a} != {b})"]
    decls: list[str] = []
    exprs: list[str] = []
    for (left, leaf), (right, _) in zip(_leaves(t, a), _leaves(t, b)):
        d, e = _differ(leaf, left, right, names)
        decls += d
        exprs += e
    return decls, exprs


@dataclass(frozen=True)
class MiterUnit:
    """The text of a miter unit, the names in it, and where its parts are: 1-based lines
    (first, last) of the original function, of the mutant and of the miter; `goal` is the
    line of the miter's `if` whose true outcome means the two differ, `sentinel` that
    of an `if` before the calls whose true outcome no input takes; the unit's lines
    after the function are `shift` lines further down than in the unit."""

    text: str
    function: str
    mutant: str
    miter: str
    original_lines: tuple[int, int]
    mutant_lines: tuple[int, int]
    miter_lines: tuple[int, int]
    goal: int
    sentinel: int  # the line of an `if` never taken, before the calls (0: none)
    shift: int
    results: tuple[str, str] | None = None  # the globals the miter stores both results in
    # the globals compared after the calls, each with the global that keeps what the
    # original left in it (the mutant leaves its own in the global itself)
    compared: tuple[tuple[str, str], ...] = field(default=())
    # the pointer parameters, each with the globals holding the copies of its object the
    # original and the mutant get
    objects: tuple[tuple[str, str, str], ...] = field(default=())

    def region(self, line: int) -> str:
        """What the miter unit's `line` is part of: "original", "mutant", "miter" or
        "unit" (the rest of the unit's text)."""
        for region, (first, last) in (("original", self.original_lines),
                                      ("mutant", self.mutant_lines),
                                      ("miter", self.miter_lines)):
            if first <= line <= last:
                return region
        return "unit"

    def unit_line(self, line: int) -> int:
        """The line of the unit that the miter unit's `line` (of the rest) is."""
        return line - self.shift if line > self.miter_lines[1] else line


def _preconditions(text: str, toks: list[Token], first: int, last: int) -> list[str]:
    """The `__rtt_precondition(...);` statements among the tokens first..last, as written."""
    found = []
    for i in range(first + 1, last):
        if toks[i].kind == "name" and toks[i].text == PRECONDITION and \
                toks[i + 1].text == "(":
            depth, j = 0, i + 1
            while j < last:
                depth += {"(": 1, ")": -1}.get(toks[j].text, 0)
                if depth == 0:
                    break
                j += 1
            found.append(" ".join(text[toks[i].start:toks[j].start + 1].split()) + ";")
    return found


def _null_tests(condition: str, pointers: set[str]) -> str:
    """`condition` with its tests of pointer parameters for NULL (`p != NULL`, `p == 0`)
    as tests of their NULL flags, which the miter has in their place."""
    for p in pointers:
        for op, flag in (("!=", f"!{p}__null"), ("==", f"{p}__null")):
            null = r"(?:NULL|0|\(\s*void\s*\*\s*\)\s*0)"
            condition = re.sub(rf"(?<![\w.>]){re.escape(p)}\s*{op}\s*{null}(?!\w)", flag,
                               condition)
            condition = re.sub(rf"(?<![\w.>]){null}\s*{op}\s*{re.escape(p)}(?!\w)", flag,
                               condition)
    return condition


class MiterError(Exception):
    """Why a miter unit cannot be written for a mutant."""


def _fresh(unit: Unit, name: str) -> str:
    taken = set(unit.functions) | set(unit.globals)
    while name in taken:
        name += "_"
    return name


def miter_unit(text: str, program: Program, check: Checkable, mutant: Mutant,
               line: int, sentinel: bool = False) -> MiterUnit:
    """The miter unit of `mutant` of the function `check.name` (its name on `line` of
    `text`, the unit's text); `check` must say the miter is sound. The miter's only
    branch is its `if (differ)`, so that the generator stops as soon as a case takes it
    (a pointer's NULL flag is tested in a function of its own, whose branches are no
    goals); with `sentinel`, also an `if` before the calls that no input takes."""
    assert not check.reason
    name = check.name
    unit = program.unit
    toks = tokens(text)
    body = body_of(toks, name, line)
    if body is None:
        raise ValueError(f"no definition of {name} at line {line}")
    open_index, close_index = body
    name_index = next(i for i in range(open_index, -1, -1)
                      if toks[i].kind == "name" and toks[i].text == name and
                      toks[i + 1].text == "(")
    first = name_index
    while first > 0 and toks[first - 1].text not in (";", "}"):
        first -= 1
    start = toks[first].start
    end = toks[close_index].start + 1
    if not start <= mutant.start < mutant.end <= end:
        raise ValueError(f"the mutant {mutant} is not inside {name}")
    mutated = mutant.apply(text)[start:end + len(mutant.replacement) -
                                 (mutant.end - mutant.start)]
    mutant_name = _fresh(unit, f"{name}__mutant")
    miter_name = _fresh(unit, f"{name}__miter")
    # the definition again, under its own name (and the calls of itself), internal
    pieces: list[str] = []
    at = 0
    header_end = toks[open_index].start - start
    storage = False
    for tok in tokens(mutated):
        if tok.kind == "name" and tok.start < header_end and tok.text in ("static", "extern"):
            storage = True
            if tok.text == "extern":
                pieces += [mutated[at:tok.start], "static"]
                at = tok.start + len(tok.text)
        if tok.kind == "name" and tok.text == name:
            pieces += [mutated[at:tok.start], mutant_name]
            at = tok.start + len(tok.text)
    pieces.append(mutated[at:])
    mutant_text = ("" if storage else "static ") + "".join(pieces)

    signature = UnitSignatures(unit)[name]
    fn = unit.functions[name]
    result = fn.type.result
    pointers = {p.name: p for p in check.pointers}
    pick = _fresh(unit, f"{name}__miter_pointer")
    # a pointer parameter: its object by value, a flag for NULL, and a copy for each call
    objects: list[str] = []  # the types of the objects
    copies: list[tuple[str, str]] = []  # the globals the function and the mutant get
    params_c: list[str] = []
    args1: list[str] = []
    args2: list[str] = []
    for param in signature.params:
        pointer = pointers.get(param.name)
        if pointer is None:
            params_c.append(param.declaration.replace("@", param.name))
            args1.append(param.name)
            args2.append(param.name)
            continue
        tag = _fresh(unit, f"{name}__miter_object_{param.name}")
        element = declaration_of(pointer.target, f"e[{pointer.count}]")
        objects.append(f"struct {tag} {{ {element}; }};")
        copy1 = _fresh(unit, f"{param.name}__miter_original")
        copy2 = _fresh(unit, f"{param.name}__miter_mutant")
        objects.append(f"struct {tag} {copy1}, {copy2};")
        copies.append((copy1, copy2))
        params_c += [f"struct {tag} {param.name}", f"int {param.name}__null"]
        args1.append(f"{pick}({param.name}__null, {copy1}.e)")
        args2.append(f"{pick}({param.name}__null, {copy2}.e)")
    params = ", ".join(params_c) or "void"
    globals_before: list[str] = []
    lines_decl: list[str] = []
    kept: list[str] = []  # the globals that keep what the original left in each
    for i, var in enumerate(check.written):
        g = var.name
        lines_decl.append(f"unsigned char f__miter_before{i}[sizeof {g}];")
        globals_before.append(f"memcpy(f__miter_before{i}, (const void *)&{g}, sizeof {g});")
        kept.append(_fresh(unit, f"{g}__miter_original"))
    results: tuple[str, str] | None = None
    out = ["", f"/* bench.equivalence: the mutant of {name} ({mutant}), and the miter "
               "that compares the two */"]
    if check.written:
        out.append("#include <string.h>")
    out += [mutant_text, ""]
    if objects:
        out.append(f"static void *{pick}(int null, void *object) "
                   "{ if (null) return 0; return object; }")
    out += objects
    for var, k in zip(check.written, kept):
        plain = " ".join(w for w in var.declaration.split(" ")
                         if w not in ("const", "volatile"))
        out.append(f"{plain.replace('@', k)};")
    if not isinstance(result, VoidType):
        r1, r2 = _fresh(unit, f"{name}__miter_r1"), _fresh(unit, f"{name}__miter_r2")
        assert signature.returns is not None
        returns = signature.returns.replace("const ", "")
        out += [f"{returns.replace('@', r1)};", f"{returns.replace('@', r2)};"]
        results = (r1, r2)
    out += [f"int {miter_name}({params})", "{"]
    # the function's preconditions are the miter's: only inputs they admit are compared
    preconditions = [_null_tests(p, set(pointers))
                     for p in _preconditions(text, toks, open_index, close_index)]
    for p in preconditions:
        named = {t.text for t in tokens(p) if t.kind == "name"} & set(pointers)
        if named:
            raise MiterError(f"a precondition names pointer parameter {min(named)} other "
                             "than to test it for NULL")
    out += [f"    {p}" for p in preconditions]
    out.append("    int f__miter_differ = 0;")
    if sentinel:
        # never taken: reported unreachable exactly when the generator proves what it
        # reports, also when a finding leaves the outcomes after it unproved (the
        # blocks before the calls are not after any finding)
        out += ["    if (f__miter_differ)", "        f__miter_differ = 2;"]
    out += [f"    {d}" for d in lines_decl]
    differ_decls: list[str] = []
    differ_exprs: list[str] = []
    names = itertools.count()
    if results is not None:
        differ_decls, differ_exprs = _differ(result, results[0], results[1], names)
    for pointer, (copy1, copy2) in zip(check.pointers, copies):
        if not pointer.const:
            for i in range(pointer.count):
                decls, exprs = _differ(pointer.target, f"{copy1}.e[{i}]", f"{copy2}.e[{i}]",
                                       names)
                differ_decls += decls
                differ_exprs += exprs
    out += [f"    {d}" for d in differ_decls]
    out += [f"    {s}" for s in globals_before]
    for pointer, (copy1, copy2) in zip(check.pointers, copies):
        out.append(f"    {copy1} = {pointer.name};")
        out.append(f"    {copy2} = {pointer.name};")
    call1 = f"{name}({', '.join(args1)});"
    call2 = f"{mutant_name}({', '.join(args2)});"
    out.append(f"    {results[0]} = {call1}" if results else f"    {call1}")
    for i, var in enumerate(check.written):
        g = var.name
        out.append(f"    memcpy((void *)&{kept[i]}, (const void *)&{g}, sizeof {g});")
        out.append(f"    memcpy((void *)&{g}, f__miter_before{i}, sizeof {g});")
    out.append(f"    {results[1]} = {call2}" if results else f"    {call2}")
    for differ in differ_exprs:
        out.append(f"    f__miter_differ |= {differ};")
    for i, var in enumerate(check.written):
        g = var.name
        out.append(f"    f__miter_differ |= memcmp((const void *)&{kept[i]}, "
                   f"(const void *)&{g}, sizeof {g}) != 0;")
    out += ["    if (f__miter_differ)", "        return 1;", "    return 0;", "}", ""]
    block = "\n".join(out)
    miter_text = text[:end] + block + text[end:]

    def line_of(offset: int) -> int:
        return miter_text.count("\n", 0, offset) + 1

    mutant_at = end + block.index(mutant_text)
    miter_at = end + block.index(f"int {miter_name}(")
    sentinel_at = end + block.find("    if (f__miter_differ)\n        f__miter_differ = 2;")
    goal_at = end + block.index("    if (f__miter_differ)\n        return 1;")
    return MiterUnit(miter_text, name, mutant_name, miter_name,
                     (line_of(start), line_of(end - 1)),
                     (line_of(mutant_at), line_of(mutant_at + len(mutant_text) - 1)),
                     (line_of(miter_at), line_of(end + len(block) - 1)), line_of(goal_at),
                     line_of(sentinel_at) if sentinel else 0, block.count("\n"), results,
                     tuple(zip((v.name for v in check.written), kept)),
                     tuple((p.name, c1, c2) for p, (c1, c2) in zip(check.pointers, copies)))
