"""Differential testing of the symbolic model against gcc: run a function of a C unit on
concrete inputs through the package's Executor, and through the same unit compiled by gcc.

Shared by tests/symbolic and tests/ir (which imports it as tests.symbolic.ctgen_concrete).

`model_call` executes the function under test symbolically with every parameter fixed to a
concrete value: the executor builds its symbolic initial state and advances it; at each
branch the guard is decided by substituting the concrete inputs; at the end the return
value is the substituted result term, and the path's definedness constraints (division by
zero, float-to-int range, in-bounds accesses) must hold, otherwise the call is "UB".

`gcc_calls` compiles a driver that `#include`s the unit and prints one line per call, and
`Result` values from both sides compare with `same_result`.
"""
from __future__ import annotations

import math
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

import z3

from pytest_ctgen.frontend.ctype import (
    ArrayType, CType, EnumType, FloatType, IntType, RecordType, strip_enum)
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import Program, lower_unit
from pytest_ctgen.symbolic import extract, memory
from pytest_ctgen.symbolic.executor import Executor
from pytest_ctgen.symbolic.paths import Finished, Fork
from pytest_ctgen.symbolic.solver import Solver
from pytest_ctgen.symbolic.values import AggVal, PtrVal

UB = "UB"

# A concrete argument: an int (for integer types), a Python float, or Bits for an exact
# float/double bit pattern (NaN payloads, -0.0).
@dataclass(frozen=True)
class Bits:
    bits: int


Arg = int | float | Bits
# A result: UB or a tuple of items ("int", value) / ("float", bits, size)
Result = tuple | str


# ----------------------------------------------------------------------------- values


def float_bits(value: float, size: int) -> int:
    if size == 4:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def bits_float(bits: int, size: int) -> float:
    if size == 4:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def arg_bits(arg: Arg, ctype: CType) -> int:
    """The object representation (as an unsigned int) of `arg` stored in type `ctype`."""
    t = strip_enum(ctype)
    if isinstance(t, FloatType):
        if isinstance(arg, Bits):
            return arg.bits
        return float_bits(float(arg), t.size)
    assert isinstance(t, IntType), t
    assert isinstance(arg, int), (arg, t)
    if t.is_bool:
        return 1 if arg else 0
    return arg & ((1 << t.bits) - 1)


def result_of(bits: int, ctype: CType) -> tuple:
    """One scalar item of a result: ("int", value) or ("float", bits, size)."""
    t = strip_enum(ctype)
    if isinstance(t, FloatType):
        return ("float", bits, t.size)
    assert isinstance(t, IntType), t
    return ("int", t.wrap(bits))


def _same_item(a: tuple, b: tuple) -> bool:
    if a[0] == "float" and b[0] == "float":
        fa, fb = bits_float(a[1], a[2]), bits_float(b[1], b[2])
        if math.isnan(fa) and math.isnan(fb):
            return True  # NaN sign and payload are not part of the contract
    return a == b


def same_result(a: Result, b: Result) -> bool:
    """Results are UB or tuples of scalar items (one for a scalar, one per member of a
    struct result, in declaration order)."""
    if a == UB or b == UB:
        return a == b
    return len(a) == len(b) and all(_same_item(x, y) for x, y in zip(a, b))


def show(r: Result) -> str:
    if r == UB:
        return UB
    items = []
    for item in r:
        if item[0] == "float":
            items.append(f"{bits_float(item[1], item[2])!r} (0x{item[1]:x})")
        else:
            items.append(str(item[1]))
    return items[0] if len(items) == 1 else "{" + ", ".join(items) + "}"


def scalar_members(ctype: CType, prefix: str = "") -> list[tuple[str, CType]]:
    """The scalar leaves of a struct (named members, array elements), as C accessors."""
    if isinstance(ctype, RecordType):
        out = []
        for f in ctype.fields:
            if f.name is not None:
                out += scalar_members(f.type, f"{prefix}.{f.name}")
        return out
    if isinstance(ctype, ArrayType):
        out = []
        for i in range(ctype.count or 0):
            out += scalar_members(ctype.element, f"{prefix}[{i}]")
        return out
    return [(prefix, ctype)]


def _flatten(v: object) -> list[tuple]:
    from pytest_ctgen.cases import ArrayValue, FloatValue, IntValue, RecordValue

    if isinstance(v, RecordValue):
        return [item for _, sub in v.fields for item in _flatten(sub)]
    if isinstance(v, ArrayValue):
        return [item for sub in v.elements for item in _flatten(sub)]
    if isinstance(v, FloatValue):
        return [("float", v.bits, v.size)]
    assert isinstance(v, IntValue), v
    return [("int", v.value)]


# ------------------------------------------------------------------------- the model


def load_program(path: Path) -> Program:
    program = lower_unit(load_unit(path, []))
    assert not program.failures, program.failures
    return program


def _leaf_constants(term: z3.ExprRef) -> dict[str, z3.ExprRef]:
    out: dict[str, z3.ExprRef] = {}
    todo = [term]
    seen: set[int] = set()
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out[t.decl().name()] = t
        todo.extend(t.children())
    return out


class ModelRunner:
    """Runs one function of a lowered program on concrete arguments with the Executor."""

    def __init__(self, program: Program, function: str) -> None:
        self.program = program
        self.function = function
        self.cfg = program.cfgs[function]
        self.params = list(self.cfg.function.params)
        self.executor = Executor(program, function)

    def _substitution(self, state, args: Sequence[Arg]) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        assert len(args) == len(self.params), (self.function, args)
        subst = []
        by_var = {root.var: root for root in state.inputs}
        for p, a in zip(self.params, args):
            root = by_var[p]
            if root.object_id is not None:
                obj = state.memory[root.object_id]
                cells = obj.initial if obj.initial is not None else obj.cells
                value = memory.value_from_cells(cells, p.type)
            else:
                value = root.value
            leaves = _leaf_constants(value)
            assert list(leaves) == [p.name], (p.name, leaves)
            leaf = leaves[p.name]
            bits = arg_bits(a, p.type)
            if isinstance(leaf, z3.FPRef):  # a float input as an FP constant
                ebits, sbits = leaf.sort().ebits(), leaf.sort().sbits()
                concrete = z3.simplify(z3.fpBVToFP(z3.BitVecVal(bits, ebits + sbits),
                                                   leaf.sort()))
            else:  # an integer, or a float input as fpBVToFP(bit-vector)
                concrete = z3.BitVecVal(bits, leaf.size())
            subst.append((leaf, concrete))
        return subst

    def call(self, args: Sequence[Arg]) -> Result:
        """The model's result of `function(*args)`, or UB."""
        state = self.executor.initial_state()
        subst = self._substitution(state, args)

        def concrete(term: z3.ExprRef) -> z3.ExprRef:
            return z3.simplify(z3.substitute(term, *subst)) if subst else z3.simplify(term)

        while True:
            outcome = self.executor.advance(state)
            if isinstance(outcome, Finished):
                break
            assert isinstance(outcome, Fork)
            taken = [i for i, g in enumerate(outcome.guards)
                     if g is not None and z3.is_true(concrete(g))]
            assert len(taken) == 1, (self.function, args, outcome.guards)
            self.executor.take(state, outcome.block, taken[0], outcome.guards[taken[0]])
        for c in state.constraints:
            v = concrete(c)
            if z3.is_false(v):
                return UB
            assert z3.is_true(v), (self.function, args, c, v)
        result = state.result
        assert result is not None, f"{self.function} returned no value"
        rtype = strip_enum(self.cfg.result_type)
        if isinstance(rtype, RecordType):
            # a struct: its members through extract.value_of, on the concrete cells
            assert isinstance(result, AggVal)
            cells = [(concrete(v) if not isinstance(v, PtrVal) else v, i)
                     for v, i in result.cells]
            empty = z3.Solver()
            empty.check()
            return tuple(_flatten(extract.value_of(empty.model(), cells, rtype)))
        value = concrete(result)
        if isinstance(rtype, FloatType):
            assert isinstance(value, z3.FPNumRef), value
            if value.isNaN():
                return (("float", 0x7FC00000 if rtype.size == 4 else 0x7FF8000000000000,
                         rtype.size),)
            bits = z3.simplify(z3.fpToIEEEBV(value))
            return (("float", bits.as_long(), rtype.size),)
        assert z3.is_bv_value(value), (self.function, args, value)
        return (result_of(value.as_long(), rtype),)

    def call_via_solver(self, args: Sequence[Arg]) -> Result:
        """The same through the package's Solver and `extract.expected` (slower): the path is
        followed with the solver deciding feasibility of each guard."""
        state = self.executor.initial_state()
        subst = self._substitution(state, args)
        for leaf, value in subst:
            # SMT equality (for floats: the same datum, so NaN == NaN and -0.0 != +0.0)
            state.assume(z3.ExprRef.__eq__(leaf, value))
        solver = Solver()
        while True:
            outcome = self.executor.advance(state)
            if isinstance(outcome, Finished):
                break
            taken = []
            for i, g in enumerate(outcome.guards):
                if g is not None and solver.check(state.constraints + [g]) == "sat":
                    taken.append(i)
            assert len(taken) == 1, (self.function, args)
            self.executor.take(state, outcome.block, taken[0], outcome.guards[taken[0]])
        if solver.check(state.constraints) != "sat":
            return UB
        model = solver.model(state.constraints, [])
        assert model is not None
        ret = extract.expected(model, state, self.cfg.result_type).returns
        return tuple(_flatten(ret))


# --------------------------------------------------------------------------- the compiler


def c_arg(arg: Arg, ctype: CType) -> str:
    """An exact C expression of type `ctype` for `arg`."""
    t = strip_enum(ctype)
    bits = arg_bits(arg, ctype)
    if isinstance(t, FloatType):
        if t.size == 4:
            return f"ctgen_f32(0x{bits:08x}u)"
        return f"ctgen_f64(0x{bits:016x}ull)"
    return f"(({_c_type_name(ctype)})0x{bits:x}ull)"


def _c_type_name(ctype: CType) -> str:
    if isinstance(ctype, EnumType):
        return str(ctype) if ctype.tag else ("int" if ctype.signed else "unsigned int")
    return str(ctype)


DRIVER_PRELUDE = r"""
#include <stdio.h>
#include <string.h>
static float ctgen_f32(unsigned int b) { float f; memcpy(&f, &b, 4); return f; }
static double ctgen_f64(unsigned long long b) { double d; memcpy(&d, &b, 8); return d; }
static void ctgen_pf(float f) { unsigned int b; memcpy(&b, &f, 4); printf("f4 %u ", b); }
static void ctgen_pd(double d) { unsigned long long b; memcpy(&b, &d, 8); printf("f8 %llu ", b); }
static void ctgen_pi(long long v) { printf("i %lld ", v); }
static void ctgen_pu(unsigned long long v) { printf("i %llu ", v); }
"""


def _c_print_scalar(value: str, ctype: CType) -> str:
    t = strip_enum(ctype)
    if isinstance(t, FloatType):
        return f"ctgen_pf({value});" if t.size == 4 else f"ctgen_pd({value});"
    assert isinstance(t, IntType), t
    if t.signed:
        return f"ctgen_pi((long long)({value}));"
    return f"ctgen_pu((unsigned long long)({value}));"


def c_print(call: str, rtype: CType, declaration: str) -> str:
    """Statements printing the result of `call` as one line of items."""
    if isinstance(rtype, RecordType):
        members = scalar_members(rtype)
        prints = " ".join(_c_print_scalar(f"ctgen_r{acc}", t) for acc, t in members)
        return f"{{ {declaration.replace('@', 'ctgen_r')} = {call}; {prints} puts(\"\"); }}"
    return f'{_c_print_scalar(call, rtype)} puts("");'


def gcc_calls(unit: Path, program: Program, calls: Sequence[tuple[str, Sequence[Arg]]],
              workdir: Path, flags: Sequence[str] = ()) -> list[Result]:
    """Compile a driver including `unit` (gcc -O0) and run `calls`; one result each."""
    lines = [DRIVER_PRELUDE, f'#include "{unit.resolve()}"', "int main(void) {"]
    for name, args in calls:
        cfg = program.cfgs[name]
        params = cfg.function.params
        call = f"{name}({', '.join(c_arg(a, p.type) for a, p in zip(args, params))})"
        decl = cfg.function.prototype.split(name + "(", 1)[0].strip() + " @"
        lines.append("    " + c_print(call, cfg.result_type, decl))
    lines += ["    return 0;", "}", ""]
    src = workdir / f"{unit.stem}_driver.c"
    exe = workdir / f"{unit.stem}_driver"
    src.write_text("\n".join(lines))
    subprocess.run(["gcc", "-std=gnu11", "-O0", "-w", *flags, str(src), "-o", str(exe), "-lm"],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    results: list[Result] = []
    for line in out.splitlines():
        words = line.split()
        items = []
        for kind, text in zip(words[::2], words[1::2]):
            if kind == "i":
                items.append(("int", int(text)))
            else:
                items.append(("float", int(text), int(kind[1:])))
        results.append(tuple(items))
    assert len(results) == len(calls), (len(results), len(calls))
    return results


def differential(unit: Path, program: Program, calls: Sequence[tuple[str, Sequence[Arg]]],
                 workdir: Path, flags: Sequence[str] = (), via_solver: int = 0) -> list[str]:
    """Every call where the model and gcc disagree, as readable lines (empty: all agree).
    The first `via_solver` calls of each function are also run through the Solver and
    `extract` (`ModelRunner.call_via_solver`)."""
    observed = gcc_calls(unit, program, calls, workdir, flags)
    runners: dict[str, ModelRunner] = {}
    done: dict[str, int] = {}
    problems = []
    for (name, args), gcc_result in zip(calls, observed):
        runner = runners.get(name)
        if runner is None:
            runner = runners[name] = ModelRunner(program, name)
        routes = [("model", runner.call)]
        done[name] = done.get(name, 0) + 1
        if done[name] <= via_solver:
            routes.append(("model via solver", runner.call_via_solver))
        for route, fn in routes:
            try:
                ours = fn(args)
            except Exception as exc:  # report, do not stop at the first
                problems.append(f"{name}{tuple(args)}: {route} raised "
                                f"{type(exc).__name__}: {exc}")
                continue
            if not same_result(ours, gcc_result):
                problems.append(f"{name}{tuple(args)}: {route} {show(ours)}, "
                                f"gcc {show(gcc_result)}")
    return problems
