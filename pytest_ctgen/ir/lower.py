"""Lowering of pycparser function bodies to CFGs of typed statements.

Every implicit conversion becomes a `Cast`; side effects become statements; `&&`, `||` and
`?:` become branches, and so do the value-context truth values gcc -O0 computes with
jumps (ir/gccfold.py), while the conditionals gcc folds away do not: each conditional
terminator of the CFG is a branch gcc emits at -O0 and each of its edges is a gcov branch
outcome.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, fields, replace
from typing import Callable, TypeVar

from pycparser import c_ast, c_generator

from ..errors import AnnotationError, CtgenError, SourceLocation, UnsupportedError
from ..frontend.annotations import RESERVED_PREFIX, USER_PREFIX
from ..frontend.builtins import (
    ALLOCA_BUILTINS, ATOMIC_BUILTINS, ATOMIC_SHAPES, BIT_BUILTINS, FLOAT_CONSTANT_BUILTINS,
    GENERIC, LIBRARY_BUILTINS, OVERFLOW_BUILTINS)
from ..frontend.constant_eval import convert_constant
from ..frontend.constant_expr import generic_association, types_compatible
from ..frontend.ctype import (
    BOOL, DOUBLE, INT, LONG, SIZE_T, UCHAR, UINT, VOID, ArrayType, CType, EnumType, FloatType,
    FunctionType, IntType, PointerType, RecordType, VariableLength, VoidType,
    has_variable_size, integer_promotion, is_variably_modified, unmodelled_part,
    unqualified_equal, unsigned_of, usual_arithmetic_conversion)
from ..frontend.gnu_ast import (
    ASM_MARKER, CHOOSE_EXPR, COMPLEX_PARTS, TYPES_COMPATIBLE, ComputedGoto, GenericSelection,
    LocalLabels, case_range, index_range, is_elvis)
from ..frontend.initializers import unbraced_string
from ..frontend.literals import char_value as parse_char_literal
from ..frontend.literals import float_literal, is_imaginary
from ..frontend.literals import int_literal as parse_int_literal
from ..frontend.literals import string_bytes as parse_string_literal
from ..frontend.preprocess import VA_ARG_MARKER
from ..frontend.unit import GLOBAL, LOCAL, PARAM, STATIC_LOCAL, Function, Unit, Variable
from .cfg import (
    CFG, Assign, Block, Branch, Call, Check, Eval, Goto, Init, Length, Return, Stmt, Switch,
    ZeroFill)
from . import gccfold
from .constants import fold
from .expr import (
    ARITHMETIC_OPS, CLASSIFY_BUILTINS, COMPARISON_OPS, AddrOf, Binary, BitOp, Cast,
    Classify, Const, Deref, Expr, FunctionRef, Load, Logical, Member, OverflowFlag, PtrAdd,
    PtrDiff, Select, StringLit, Unary, VarRef, designated_functions, is_null_constant,
    may_be_undefined)
from .gccfold import Conditional
from .spec import Condition, FunctionContract, StubSpec, TestCaseSpec

#: Annotations reach the parser as calls of these names (see frontend/annotations.py).
ANNOTATION_PREFIX = RESERVED_PREFIX
_RETURN_ID = ANNOTATION_PREFIX + "return"  # `__rtt_return`
_INITIAL_ID = ANNOTATION_PREFIX + "initial"  # `__rtt_initial(e)`
_AUX_MARK = ANNOTATION_PREFIX + "aux_declaration"  # `__rtt_aux(T, N)` is `T N = _AUX_MARK`
#: Annotations that state the contract: at the top level of the body only.
_TOP_LEVEL_ONLY = frozenset(
    {"precondition", "postcondition", "testcase", "modifies", "extern", "aux"})
_FUNCTION_NAME_IDS = frozenset({"__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
_T = TypeVar("_T")
# where a block's scope holds the labels it declares local (`__label__`): no identifier
# starts with a space
_LABEL_KEY = " label "
# Builtins whose value is their first argument (hints to the optimizer only).
_TRANSPARENT_BUILTINS = {"__builtin_expect": 0, "__builtin_expect_with_probability": 0}


def _plain_integer(t: CType | None) -> bool:
    """An integer type the overflow and atomic builtins take: neither _Bool nor an enum."""
    return isinstance(t, IntType) and not isinstance(t, EnumType) and not t.is_bool


#: Most values a GNU case range or array designator range may span (each is enumerated).
_MAX_RANGE = 1 << 16

def _variadic_slot(size: int) -> int:
    """Bytes a variadic argument of `size` bytes takes in the area a caller passes
    (`variadic_arguments`): whole 8-byte words, as in the x86-64 ABI's overflow area.
    Caller and callee agree on it, so `va_arg` reads what the call passed."""
    return max(8, (size + 7) // 8 * 8)


#: What <stdarg.h>'s macros reach the lowering as (va_arg: see frontend/preprocess.py).
_VARIADIC_BUILTINS = frozenset({"__builtin_va_start", "__builtin_va_end",
                                "__builtin_va_copy", "__builtin_c23_va_start", VA_ARG_MARKER})


@dataclass
class Program:
    """The lowered unit: a CFG per defined function that could be lowered, the reason for
    each function that could not, and the statements that give static objects their initial
    contents (globals and static locals with initializers)."""

    unit: Unit
    cfgs: dict[str, CFG] = field(default_factory=dict)
    failures: dict[str, CtgenError] = field(default_factory=dict)
    static_inits: dict[Variable, list[Stmt]] = field(default_factory=dict)
    # the globals whose initializer is not modelled: a function reading one of them skips
    init_failures: dict[Variable, CtgenError] = field(default_factory=dict)
    static_locals: dict[str, list[Variable]] = field(default_factory=dict)
    # per function under test with annotations, what they state
    contracts: dict[str, FunctionContract] = field(default_factory=dict)
    # the specifications of external functions (definitions marked `__rtt_extern()`);
    # they have no CFG: calls of them are stub calls
    specs: dict[str, StubSpec] = field(default_factory=dict)

    @functools.cached_property
    def designated_functions(self) -> list[str]:
        """The functions whose address the unit takes (a designator not called, `&f`), in
        the unit's order: what a function pointer of the unit may hold."""
        stmts = [s for cfg in self.cfgs.values() for b in cfg.blocks
                 for s in [*b.stmts, b.terminator]]
        stmts += [s for inits in self.static_inits.values() for s in inits]
        named = {n for s in stmts for n in designated_functions(s)}
        return [name for name in self.unit.functions if name in named]


def lower_unit(unit: Unit) -> Program:
    """Lower every defined function of `unit`; unsupported constructs are recorded per function."""
    program = Program(unit)
    for var in unit.globals.values():
        if var.init is not None:
            try:
                program.static_inits[var] = _StaticInitLowerer(unit).lower(var)
            except CtgenError as err:
                program.init_failures[var] = err
    for fn in unit.defined_functions():
        try:
            lowerer = FunctionLowerer(unit, program, fn)
            cfg = lowerer.lower()
            if lowerer.is_spec:
                program.specs[fn.name] = lowerer.spec(cfg)
                continue
            program.cfgs[fn.name] = cfg
            program.static_locals[fn.name] = lowerer.static_locals
            contract = lowerer.contract()
            if not contract.is_empty:
                program.contracts[fn.name] = contract
        except CtgenError as err:
            program.failures[fn.name] = err
        except (ValueError, KeyError, AssertionError, TypeError, AttributeError) as err:
            # a defect of the lowering: that function is skipped, the others go on
            program.failures[fn.name] = CtgenError(
                f"internal error of pytest-ctgen while lowering: {type(err).__name__}: {err}",
                fn.location)
    return program


def _annotation_kind(node: c_ast.Node) -> str | None:
    """`modifies` for the statement `__rtt_modifies(g);`, `aux` for the declaration
    `__rtt_aux(T, g);` and so on; None for code."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and \
            node.name.name.startswith(ANNOTATION_PREFIX):
        return node.name.name.removeprefix(ANNOTATION_PREFIX)
    if isinstance(node, c_ast.Decl) and isinstance(node.init, c_ast.ID) and \
            node.init.name == _AUX_MARK:
        return "aux"
    return None


class _HarnessText(c_generator.CGenerator):
    """An annotation's condition as the harness evaluates it after the call: the nodes in
    `names` (by id) replaced, `__rtt_return` as `ctgen_return`."""

    def __init__(self, names: dict[int, str]) -> None:
        super().__init__()
        self.names = names

    def visit_ID(self, n: c_ast.ID) -> str:
        if id(n) in self.names:
            return self.names[id(n)]
        return "ctgen_return" if n.name == _RETURN_ID else n.name

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        if id(n) in self.names:
            return self.names[id(n)]
        return super().visit_FuncCall(n)


def _loc(unit: Unit, node: c_ast.Node | None) -> SourceLocation:
    coord = getattr(node, "coord", None)
    if coord is None:
        return SourceLocation(str(unit.path), 0, 0)
    return SourceLocation(str(coord.file), coord.line or 0, coord.column or 0)


@dataclass(frozen=True)
class _AbsRange:
    """`abs(argument) < c` as gcc folds it: `argument` (converted to `type`) in `bounds`,
    or False (gccfold.abs_range)."""

    argument: c_ast.Node
    type: IntType
    bounds: tuple[int, int] | bool


@dataclass(frozen=True)
class _Holds:
    """What an expression holds that its shape depends on: whether a statement expression
    (it declares things: it is lowered only once), and what may have side effects."""

    statements: bool
    changes: bool  # an assignment, `++` or `--`
    calls: tuple[c_ast.FuncCall, ...]


@dataclass
class _SwitchContext:
    type: CType
    cases: list[tuple[int, Block]] = field(default_factory=list)
    default: Block | None = None


class _ExprLowerer:
    """Expression lowering shared by function bodies and static initializers."""

    unit: Unit
    temps: list[Variable]
    cur: Block

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.scopes: list[dict[str, object]] = [{}]
        self.temps = []
        self.blocks: list[Block] = []
        self.address_taken: set[Variable] = set()
        # the variable holding each element count of a variable length array met so far
        self.lengths: dict[VariableLength, Variable] = {}
        self.cur = self.new_block()
        self._modelled_types: set[CType] = set()  # checked by `check_modelled`
        self.conditions: set[Variable] = set()  # temporaries holding a `&&` or `||`
        self.here: SourceLocation | None = None  # of the expression lowered last
        self.negated: c_ast.Node | None = None  # the operand of the `!` being lowered
        self.tested: set[int] = set()  # ids of the `?:` nodes lowered for their truth
        # by node id (the node kept, so that its id stays its own): `distributed_ternary`
        # of each binary node met, `look` of each node looked at
        self.ternary_forms: dict[int, tuple[c_ast.Node, c_ast.TernaryOp | None]] = {}
        self.looks: dict[int, tuple[c_ast.Node, Expr]] = {}
        self.held: dict[int, tuple[c_ast.Node, _Holds]] = {}  # `holds` of each node
        self.conditionals_made = 0  # gcc Conditionals made so far (settled where used)

    # -------------------------------------------------------------- infrastructure

    def loc(self, node: c_ast.Node | None) -> SourceLocation:
        return _loc(self.unit, node)

    def unsupported(self, what: str, node: c_ast.Node | None) -> UnsupportedError:
        return UnsupportedError(f"unsupported construct: {what}", self.loc(node))

    def new_block(self) -> Block:
        b = Block(len(self.blocks))
        self.blocks.append(b)
        return b

    def emit(self, stmt: Stmt) -> None:
        self.settle_parts(stmt)
        self.cur.stmts.append(stmt)

    def terminate(self, term: object) -> None:
        """End the current block; code after it goes to a fresh, unreachable block."""
        self.settle_parts(term)
        if self.cur.terminator is None:
            self.cur.terminator = term  # type: ignore[assignment]
        self.cur = self.new_block()

    # ------------------------------------------------------- gcc's conditionals

    @property
    def gcc_shapes(self) -> bool:
        """Whether expressions take the branches gcc -O0 gives them (ir/gccfold.py): in
        code of a function body, not in annotations or static initializers."""
        return False

    def settle_parts(self, node: object) -> None:
        """Give the expressions of a statement or terminator about to be placed the
        branches of the gcc Conditionals they hold."""
        if not self.conditionals_made:
            return
        for f in fields(node):  # type: ignore[arg-type]
            value = getattr(node, f.name)
            if isinstance(value, Expr):
                setattr(node, f.name, self.settled(value))
            elif isinstance(value, list) and any(isinstance(v, Expr) for v in value):
                setattr(node, f.name, [self.settled(v) if isinstance(v, Expr) else v
                                       for v in value])

    def settled(self, e: Expr) -> Expr:
        """`e` with each gcc Conditional in it computed by its branch into a temporary
        first (the left operand's before the right one's)."""
        if not self.conditionals_made:
            return e
        if isinstance(e, Conditional):
            return self.materialized(e)
        changes = {}
        for f in fields(e):  # type: ignore[arg-type]
            value = getattr(e, f.name)
            if isinstance(value, Expr) and f.name != "type":
                new = self.settled(value)
                if new is not value:
                    changes[f.name] = new
        return replace(e, **changes) if changes else e  # type: ignore[type-var]

    def materialized(self, c: Conditional) -> Expr:
        """The value of the conditional `c`, computed by branches into a temporary."""
        value = gccfold.choice(c)
        if value is not None:
            return value
        t = self.temp(c.type, None)
        yes, no, join = self.new_block(), self.new_block(), self.new_block()
        loc = c.location or self.here or self.loc(None)
        self.branch(c.condition, yes, no, None, loc)
        for b, arm in ((yes, c.then), (no, c.otherwise)):
            self.cur = b
            value = self.settled(arm)
            self.cur.stmts.append(Assign(VarRef(t, c.type), value, loc))
            self.goto(join, None)
        self.cur = join
        return Load(VarRef(t, c.type), c.type)

    def distributed(self, c: Conditional, apply: Callable[[Expr], Expr], ctype: CType,
                    condition_type: CType | None = None, negations: bool = False
                    ) -> Expr | None:
        """gcc's `apply` of an operation to the conditional `c`: the conditional of the
        operation applied to each arm (folded); None when it does not fold on a constant
        arm."""
        arms = []
        for arm in (c.then, c.otherwise):
            result = apply(arm)
            value = fold(result)
            if value is not None:
                result = Const(result.type, value)
            elif isinstance(arm, Const):
                return None
            arms.append(result)
        return self.conditional(c.condition, arms[0], arms[1], ctype, c.location,
                                c.condition_type if condition_type is None
                                else condition_type, negations)

    def pending_value(self, node: c_ast.Node) -> Expr:
        """`node` for its value like `rvalue`, but a gcc Conditional is left as it is for
        the operator applied to it (which may still fold it)."""
        if not self.gcc_shapes:
            return self.rvalue(node)
        return self.decay_value(self.expr(node))

    def goto(self, target: Block, node: c_ast.Node | None) -> None:
        self.terminate(Goto(target, self.loc(node)))

    def temp(self, ctype: CType, node: c_ast.Node | None) -> Variable:
        v = Variable(f"ctgen.t{len(self.temps)}", ctype, LOCAL, self.loc(node), "@")
        self.temps.append(v)
        return v

    def kept(self, value: Expr, node: c_ast.Node | None) -> Expr:
        """`value` evaluated here into a new temporary: every read of the result gives what
        it was now, whatever is stored later."""
        t = self.temp(value.type, node)
        self.emit(Assign(VarRef(t, value.type), value, self.loc(node)))
        return Load(VarRef(t, value.type), value.type)

    def resolve_type(self, type_node: c_ast.Node) -> CType:
        assert self.unit.resolver is not None
        return self.unit.resolver.resolve(type_node)

    def declared(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes) or name in self.unit.globals

    def lookup(self, name: str, node: c_ast.Node) -> object:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.unit.globals:
            return self.unit.globals[name]
        if name in self.unit.functions:
            return self.unit.functions[name]
        enums = getattr(self.unit.resolver, "enum_constants", None) or self.unit.enum_constants
        if name in enums:
            return enums[name]
        if name in self.unit.enum_constants:
            return self.unit.enum_constants[name]
        if name in self.unit.unsupported:
            why = self.unit.unsupported[name].as_cause(self.loc(node))
            raise self.unsupported(f"use of '{name}', whose declaration is not supported "
                                   f"({why})", node)
        raise CtgenError(f"'{name}' undeclared", self.loc(node))

    # ---------------------------------------------------------------- conversions

    def convert(self, e: Expr, to: CType) -> Expr:
        """`e` converted as if by assignment to an object of type `to`."""
        if isinstance(to, RecordType) or isinstance(e.type, RecordType):
            return e
        if self.gcc_shapes and isinstance(to, (IntType, FloatType)):
            shaped = self.converted_truth(e, to)
            if shaped is not None:
                return shaped
        if unqualified_equal(e.type, to) and not (isinstance(to, EnumType) != isinstance(
                e.type, EnumType)):
            return e
        if isinstance(to, PointerType) and isinstance(e.type, PointerType):
            return Cast(e, to)
        v = fold(e) if not isinstance(to, PointerType) else None
        if v is not None and isinstance(to, (IntType, FloatType)):
            c = convert_constant(v, e.type, to)
            if c is not None:
                return Const(to, c)
        return Cast(e, to)

    def converted_truth(self, e: Expr, to: IntType | FloatType) -> Expr | None:
        """gcc's conversion of a Conditional (into its arms) or of a comparison to a
        floating type (`cmp ? 1.0 : 0.0`); None for other values."""
        if isinstance(e, Conditional):
            if e.type == to:
                return e
            return self.distributed(e, lambda arm: self.convert(arm, to), to,
                                    to if isinstance(to, IntType) and to.is_bool else None)
        if isinstance(to, FloatType) and fold(e) is None and \
                gccfold.kind(e, self.conditions) == gccfold.COMPARISON:
            return self.conditional(e, Const(to, 1.0), Const(to, 0.0), to, self.here, INT)
        return None

    def conditional(self, condition: Expr, then: Expr, otherwise: Expr,
                    ctype: CType, location: SourceLocation | None, condition_type: CType,
                    negations: bool = False, eager: bool = True) -> Expr:
        """gcc's `condition ? then : otherwise` (gccfold.conditional), counted."""
        e = gccfold.conditional(condition, then, otherwise, ctype, location, condition_type,
                                negations, eager)
        if isinstance(e, Conditional):
            self.conditionals_made += 1
        return e

    def promote(self, e: Expr) -> Expr:
        if isinstance(e.type, IntType):
            width = _bitfield_width(e)
            if width is not None and width < e.type.bits:
                # C11 6.3.1.1p2: a bit-field whose values all fit in int promotes to int
                fits_int = width < INT.bits or (width == INT.bits and e.type.signed)
                if fits_int:
                    return self.convert(e, INT)
                if width <= INT.bits:
                    return self.convert(e, UINT)
            return self.convert(e, integer_promotion(e.type))
        return e

    def truth(self, e: Expr) -> Expr:
        """A scalar in a condition; the branch is taken when it is not zero."""
        if not e.type.is_scalar:
            raise CtgenError("condition is not a scalar", None)
        return e

    # ----------------------------------------------------------------- lvalues

    def lvalue(self, node: c_ast.Node) -> Expr:
        return self.modelled(self.object_of(node), node)

    def object_of(self, node: c_ast.Node) -> Expr:
        """The lvalue `node` designates."""
        if isinstance(node, c_ast.ID):
            target = self.lookup(node.name, node)
            if isinstance(target, Variable):
                return VarRef(target, target.type)
            if isinstance(target, Function):
                return FunctionRef(target.name, target.type)
            raise CtgenError(f"'{node.name}' is not an object", self.loc(node))
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.rvalue(node.expr)
            if isinstance(p.type, PointerType) and isinstance(p.type.target, FunctionType):
                if isinstance(p, AddrOf) and isinstance(p.lvalue, FunctionRef):
                    return p.lvalue  # `*f` is `f`
                return FunctionRef("", p.type.target, p)
            if not isinstance(p.type, PointerType):
                raise CtgenError("indirection of a non-pointer", self.loc(node))
            return Deref(p, p.type.target)
        if isinstance(node, c_ast.ArrayRef):
            a, i = self.rvalue(node.name), self.rvalue(node.subscript)
            if not isinstance(a.type, PointerType):
                a, i = i, a
            if not isinstance(a.type, PointerType):
                raise CtgenError("subscript of a non-array", self.loc(node))
            p = self.pointer_add(a, self.convert(i, LONG), node)
            return Deref(p, a.type.target)
        if isinstance(node, c_ast.StructRef):
            if node.type == "->":
                p = self.rvalue(node.name)
                if not isinstance(p.type, PointerType):
                    raise CtgenError("'->' on a non-pointer", self.loc(node))
                base: Expr = Deref(p, p.type.target)
            else:
                base = self.lvalue(node.name)
            return self.member(base, node.field.name, node)
        if isinstance(node, c_ast.Constant) and node.type == "string":
            data = parse_string_literal(node.value)
            return StringLit(ArrayType(INT_CHAR, len(data)), data)
        if isinstance(node, c_ast.FuncCall):
            e = self.rvalue(node)
            if isinstance(e, Load):
                return e.lvalue
        if isinstance(node, c_ast.CompoundLiteral):
            ctype = self.resolve_type(node.type.type)
            if has_variable_size(ctype):
                raise CtgenError("compound literal of a variable length array type",
                                 self.loc(node))
            tmp = self.temp(ctype, node)
            self.address_taken.add(tmp)
            self.initialize(VarRef(tmp, ctype), ctype, node.init, node)
            return VarRef(tmp, ctype)
        if isinstance(node, c_ast.TernaryOp) or isinstance(node, c_ast.Assignment):
            e = self.rvalue(node)
            if isinstance(e.type, RecordType) and isinstance(e, Load):
                return e.lvalue
        raise self.unsupported(f"{type(node).__name__} used as an object", node)

    def member(self, base: Expr, name: str, node: c_ast.Node) -> Expr:
        rec = base.type
        if not isinstance(rec, RecordType) or not rec.is_complete:
            raise CtgenError(f"member '{name}' of a non-record or incomplete type",
                             self.loc(node))
        while True:
            f = rec.member(name)
            if f is None:
                raise CtgenError(f"no member named '{name}' in {rec}", self.loc(node))
            base = Member(base, f, f.type)
            if f.name == name:
                return base
            rec = f.type  # anonymous inner record
            assert isinstance(rec, RecordType)

    # ----------------------------------------------------------------- rvalues

    def rvalue(self, node: c_ast.Node) -> Expr:
        """Lower `node` for its value: lvalue conversion and array/function decay applied."""
        e = self.decay_value(self.expr(node))
        return self.settled(e)

    def decay_value(self, e: Expr) -> Expr:
        if isinstance(e, FunctionRef):
            return e.pointer if e.pointer is not None else AddrOf(e, PointerType(e.type))
        if e.is_lvalue:
            if isinstance(e.type, ArrayType):
                if isinstance(e, VarRef):
                    self.address_taken.add(e.var)
                return AddrOf(e, self.pointer_to(e, e.type.element))
            return Load(e, e.type)
        return e

    def pointer_to(self, lv: Expr, target: CType) -> PointerType:
        """The type of a pointer to (an element of) the object `lv`, with the object's
        qualifiers as far as they are known (see `_object_qualifiers`)."""
        quals = _object_qualifiers(lv) or (False, False)
        return PointerType(target, target_const=quals[0], target_volatile=quals[1])

    def expr(self, node: c_ast.Node) -> Expr:
        """Lower `node`; lvalues are returned as lvalues (no conversion yet)."""
        method: Callable[[c_ast.Node], Expr] | None = getattr(
            self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.unsupported(type(node).__name__, node)
        if getattr(node, "coord", None) is not None:
            self.here = self.loc(node)
        return self.modelled(method(node), node)

    def modelled(self, e: Expr, node: c_ast.Node | None) -> Expr:
        """`e`, unless its type is or holds a floating type whose values are not modelled
        (`long double`, `_Float128`, ...): then the function is not supported."""
        self.check_modelled(e.type, node)
        return e

    def check_modelled(self, ctype: CType, node: c_ast.Node | None) -> None:
        known = self._modelled_types
        if ctype in known:
            return
        part = unmodelled_part(ctype)
        if part is not None:
            raise self.unsupported(f"type '{part}' ({part.unmodelled})", node)
        known.add(ctype)

    def expr_ID(self, node: c_ast.ID) -> Expr:
        if node.name in _FUNCTION_NAME_IDS and not self.declared(node.name):
            # the predefined `static const char __func__[] = "name"` (and gcc's spellings)
            return self.lvalue(c_ast.Constant("string", f'"{self.fn.name}"', node.coord))
        target = self.lookup(node.name, node)
        if isinstance(target, tuple):
            value, ctype = target
            return Const(INT if isinstance(ctype, EnumType) else ctype, value)
        return self.lvalue(node)

    def expr_Constant(self, node: c_ast.Constant) -> Expr:
        if node.type == "string":
            return self.lvalue(node)
        if node.type == "char" or node.value[:1] == "'" or node.value[1:2] == "'":
            return Const(INT, parse_char_literal(node.value))
        if is_imaginary(node.value):
            raise self.unsupported(f"imaginary constant '{node.value}' (complex arithmetic)",
                                   node)
        if node.type in ("float", "double", "long double"):
            value, ftype = float_literal(node.value)
            return Const(ftype, value)
        try:
            ivalue, itype = parse_int_literal(node.value)
        except ValueError:
            value, ftype = float_literal(node.value)
            return Const(ftype, value)
        return Const(itype, ivalue)

    def expr_ArrayRef(self, node: c_ast.Node) -> Expr:
        return self.lvalue(node)

    def expr_StructRef(self, node: c_ast.Node) -> Expr:
        return self.lvalue(node)

    def expr_Cast(self, node: c_ast.Cast) -> Expr:
        to = self.resolve_type(node.to_type.type)
        if isinstance(to, VoidType):
            self.effect(node.expr)
            return Const(INT, 0)
        e = self.pending_value(node.expr)
        if isinstance(to, RecordType):
            raise self.unsupported("cast to a struct or union", node)
        if isinstance(e.type, RecordType):
            raise self.unsupported("cast of a struct or union", node)
        if isinstance(to, PointerType) or isinstance(e.type, PointerType):
            return Cast(self.settled(e), to)
        if isinstance(e, Conditional) or not unqualified_equal(e.type, to):
            return self.convert(e, to)
        return Cast(e, to)

    def expr_UnaryOp(self, node: c_ast.UnaryOp) -> Expr:
        op = node.op
        if op == "sizeof":
            return self.size_expr(self.operand_type(node.expr), node)
        if op == "_Alignof":
            return Const(SIZE_T, self.type_of(node.expr).align)
        if op == "&":
            lv = self.lvalue(node.expr)
            if isinstance(lv, FunctionRef):
                return self.decay_value(lv)
            if isinstance(lv, Member) and lv.field.is_bitfield:
                raise CtgenError("cannot take the address of a bit-field", self.loc(node))
            self.mark_address_taken(lv)
            return AddrOf(lv, self.pointer_to(lv, lv.type))
        if op == "*":
            return self.lvalue(node)
        if op == "&&":  # GNU `&&label`
            raise self.unsupported(f"address of the label '{node.expr.name}' (computed goto)",
                                   node)
        if op in ("++", "--", "p++", "p--"):
            return self.increment(node, value_used=True)
        saved, self.negated = self.negated, node.expr if op == "!" else None
        try:
            e = self.pending_value(node.expr)
        finally:
            self.negated = saved
        if op == "+":
            return self.promote(e)
        if op in ("!", "-", "~"):
            return self.unary(op, e)
        raise self.unsupported(f"unary operator {op}", node)

    def unary(self, op: str, e: Expr) -> Expr:
        """`op e` for `op` `!`, `-` or `~`; of a Conditional, the conditional of `op`
        applied to its arms (as gcc folds it)."""
        if op != "!":
            e = self.promote(e)
        if isinstance(e, Conditional):
            folded = self.distributed(e, lambda arm: self.unary(op, arm),
                                      INT if op == "!" else e.type)
            if folded is not None:
                return folded
            e = self.settled(e)
        if op == "!":
            return Unary("!", self.truth(e), INT)
        return Unary(op, e, e.type)

    def mark_address_taken(self, lv: Expr) -> None:
        while isinstance(lv, Member):
            lv = lv.base
        if isinstance(lv, VarRef):
            self.address_taken.add(lv.var)

    def type_of(self, node: c_ast.Node) -> CType:
        """The type of an expression or type name, which is not evaluated."""
        if isinstance(node, c_ast.Typename):  # nor are its sizes (a variable length array's)
            return self.discarding(lambda: self.resolve_type(node.type))
        return self.unevaluated(node).type

    def unevaluated(self, node: c_ast.Node) -> Expr:
        """`node` lowered without keeping anything it does (the operand of `sizeof`,
        `__typeof__`, `_Generic`): for its type, or its value when it is a constant."""
        return self.discarding(lambda: self.expr(node))

    def discarding(self, lower: Callable[[], _T]) -> _T:
        """What `lower` gives; the statements, blocks and temporaries it makes are dropped."""
        saved_cur, saved_len, saved_blocks = self.cur, len(self.cur.stmts), len(self.blocks)
        saved_temps, saved_terminator = len(self.temps), saved_cur.terminator
        try:
            return lower()
        finally:
            saved_cur.terminator = saved_terminator
            del saved_cur.stmts[saved_len:]
            del self.blocks[saved_blocks:]
            del self.temps[saved_temps:]
            self.cur = saved_cur

    def operand_type(self, node: c_ast.Node) -> CType:
        """The type of the operand of `sizeof` or `__typeof__`: not evaluated, unless its
        type is variably modified (C11 6.5.3.4p2; gcc's typeof too): then its sizes are
        evaluated here, and an expression's side effects take place."""
        if isinstance(node, c_ast.Typename):
            return self.resolve_type(node.type)
        ctype = self.type_of(node)
        if is_variably_modified(ctype):
            return self.expr(node).type
        return ctype

    def size_expr(self, ctype: CType, node: c_ast.Node) -> Expr:
        """`sizeof` of `ctype` as a size_t: a constant, or for a variable length array the
        product of its element counts as its declarators evaluated them (C11 6.5.3.4p2)."""
        if not has_variable_size(ctype):
            return Const(SIZE_T, ctype.size)
        assert isinstance(ctype, ArrayType)
        element = self.size_expr(ctype.element, node)
        if ctype.length is None:
            return Binary("*", Const(SIZE_T, ctype.count or 0), element, SIZE_T)
        count = self.lengths.get(ctype.length)
        if count is None:
            raise self.unsupported("a variable length array whose size this function does "
                                   "not evaluate", node)
        return Binary("*", Load(VarRef(count, SIZE_T), SIZE_T), element, SIZE_T)

    def pointer_add(self, pointer: Expr, index: Expr, node: c_ast.Node) -> Expr:
        """`pointer + index` (`index` a long). Over a variable length array the step is
        its size at run time: the sum is taken in bytes."""
        assert isinstance(pointer.type, PointerType)
        target = pointer.type.target
        if not has_variable_size(target):
            return PtrAdd(pointer, index, pointer.type)
        step = Binary("*", index, Cast(self.size_expr(target, node), LONG), LONG)
        bytes_ = PtrAdd(Cast(pointer, _BYTES), step, _BYTES)
        return Cast(bytes_, pointer.type)

    def pointer_difference(self, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        """`left - right` in elements (a long); over variable length arrays the elements'
        size is known at run time."""
        assert isinstance(left.type, PointerType)
        target = left.type.target
        if not has_variable_size(target):
            return PtrDiff(left, right, LONG)
        difference = PtrDiff(Cast(left, _BYTES), Cast(right, _BYTES), LONG)
        return Binary("/", difference, Cast(self.size_expr(target, node), LONG), LONG)

    def expr_GenericSelection(self, node: GenericSelection) -> Expr:
        return self.expr(self.generic_choice(node))

    def generic_choice(self, node: GenericSelection) -> c_ast.Node:
        """C11 `_Generic`: the expression of the association the controlling expression's
        type selects (the controlling expression is not evaluated)."""
        e = self.unevaluated(node.expr)
        # lvalue conversion: arrays and functions decay; these types carry no qualifiers
        if isinstance(e, FunctionRef):
            operand: CType = PointerType(e.type)
            known = True
        elif e.is_lvalue and isinstance(e.type, ArrayType):
            operand = self.pointer_to(e, e.type.element)
            known = _object_qualifiers(e) is not None
        else:
            operand = e.type
            known = _target_qualifiers_known(Load(e, e.type) if e.is_lvalue else e)
        assert self.unit.resolver is not None
        return generic_association(self.unit.resolver, node, operand, known)

    def expr_BinaryOp(self, node: c_ast.BinaryOp) -> Expr:
        op = node.op
        if op in ("&&", "||"):
            return self.materialize_condition(node)
        if self.gcc_shapes:
            ternary = self.distributed_ternary(node)
            if ternary is not None:
                return self.expr_TernaryOp(ternary)
            if node is not self.negated:  # `!(abs(x) < c)` is `abs(x) >= c`
                found = self.abs_comparison(node)
                if found is not None:
                    return self.truth_temporary(lambda yes, no: self.abs_branches(
                        found, yes, no, node), node)
        left = self.pending_value(node.left)
        right = self.pending_value(node.right)
        return self.binary(op, left, right, node)

    def binary(self, op: str, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        """`left op right` with C's conversions; where gcc folds it with a comparison or
        a Conditional operand (ir/gccfold.py), what gcc makes of it."""
        e = self.plain_binary(op, left, right, node)
        if self.gcc_shapes and isinstance(e, Binary):
            return self.gcc_binary(e, node)
        return e

    def gcc_binary(self, e: Binary, node: c_ast.Node) -> Expr:
        """gcc's fold of `e` when one operand is a comparison or a Conditional and the
        other a constant: the conditional of `op` applied to the arms
        (fold_binary_op_with_conditional_arg); else `e`."""
        constant = gccfold.identity(e)
        if constant is not None:
            return constant
        if e.op == "+" and gccfold.kind(e.left, self.conditions) == gccfold.COMPARISON and \
                gccfold.relation(e.left, e.right):
            e = Binary("*", e.left, Const(e.type, 2), e.type)  # gcc: `a + a` is `a * 2`
        for condition_first in (True, False):
            operand, other = (e.left, e.right) if condition_first else (e.right, e.left)
            k = fold(other)
            if k is None or gccfold.could_trap(e.op, e.left.type, not condition_first, k):
                continue
            c = gccfold.arms(operand, e.op, self.conditions)
            if c is None or fold(operand) is not None:
                continue
            fresh = c is not operand
            if fresh:
                c = replace(c, location=self.loc(node))
            folded = self.distributed(c, lambda arm, first=condition_first, other=other:
                                      self.binary(e.op, *((arm, other) if first
                                                          else (other, arm)), node),
                                      e.type, e.type if fresh else None, fresh)
            if folded is not None:
                return folded
        return e

    def plain_binary(self, op: str, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        lt, rt = left.type, right.type
        if op in ("+", "-") and (isinstance(lt, PointerType) or isinstance(rt, PointerType)):
            if op == "-" and isinstance(lt, PointerType) and isinstance(rt, PointerType):
                return self.pointer_difference(left, right, node)
            if isinstance(rt, PointerType):
                left, right = right, left
            index = self.convert(right, LONG)
            if op == "-":
                index = Unary("-", index, LONG)
            return self.pointer_add(left, index, node)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            if isinstance(lt, PointerType) or isinstance(rt, PointerType):
                if not isinstance(lt, PointerType):
                    left = Cast(left, rt)
                if not isinstance(rt, PointerType):
                    right = Cast(right, lt)
                return Binary(op, left, right, INT)
            left, right = self.promote(left), self.promote(right)
            ct = usual_arithmetic_conversion(left.type, right.type)
            return Binary(op, self.convert(left, ct), self.convert(right, ct), INT)
        if op in ("<<", ">>"):
            left, right = self.promote(left), self.promote(right)
            return Binary(op, left, right, left.type)
        if not (lt.is_arithmetic and rt.is_arithmetic):
            raise CtgenError(f"invalid operands to binary {op}", self.loc(node))
        left, right = self.promote(left), self.promote(right)
        ct = usual_arithmetic_conversion(left.type, right.type)
        return Binary(op, self.convert(left, ct), self.convert(right, ct), ct)

    def expr_Assignment(self, node: c_ast.Assignment) -> Expr:
        target = self.assign(node)
        return Load(target, target.type)

    def assign(self, node: c_ast.Assignment) -> Expr:
        """Lower an assignment; returns the assigned lvalue."""
        return self.assignment(node)[0]

    def assignment(self, node: c_ast.Assignment) -> tuple[Expr, Expr]:
        """Lower an assignment; returns the assigned lvalue and the value stored."""
        target = self.lvalue(node.lvalue)
        if node.op == "=":
            value = self.rvalue(node.rvalue)
            if not isinstance(target.type, RecordType):
                value = self.convert(value, target.type)
        else:
            current = self.decay_value(target)
            rhs = self.rvalue(node.rvalue)
            value = self.convert(self.binary(node.op[:-1], current, rhs, node), target.type)
        stmt = Assign(target, value, self.loc(node))
        self.emit(stmt)
        return target, stmt.value

    def increment(self, node: c_ast.UnaryOp, value_used: bool) -> Expr:
        target = self.lvalue(node.expr)
        op = "+" if "+" in node.op else "-"
        current = Load(target, target.type)
        old: Expr = current
        if node.op.startswith("p") and value_used:
            old = self.kept(current, node)
        one = Const(INT, 1)
        if isinstance(target.type, FloatType):
            one = Const(DOUBLE, 1.0)
        new = self.binary(op, current, one, node)
        self.emit(Assign(target, self.convert(new, target.type), self.loc(node)))
        if node.op.startswith("p"):
            return old
        return Load(target, target.type)

    def expr_ExprList(self, node: c_ast.ExprList) -> Expr:
        for e in node.exprs[:-1]:
            self.effect(e)
        return self.expr(node.exprs[-1])

    def expr_Compound(self, node: c_ast.Compound) -> Expr:
        """A GNU statement expression `({ ...; e; })`: its value is that of its last
        statement, an expression (glibc's assert and many MIN/MAX macros use them)."""
        items = node.block_items or []
        self.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            for item in items[:-1]:
                self.statement(item)
            last = items[-1] if items else None
            if last is None or hasattr(self, f"stmt_{type(last).__name__}"):
                self.statement(last)
                return Const(INT, 0)  # a statement expression of type void
            return self.rvalue(last)
        finally:
            self.unit.resolver.pop_scope()
            self.scopes.pop()

    def expr_TernaryOp(self, node: c_ast.TernaryOp) -> Expr:
        if self.gcc_shapes and not is_elvis(node):
            folded = self.folded_ternary(node)
            if folded is not None:
                return folded
        then_b, else_b, join = self.new_block(), self.new_block(), self.new_block()
        first: Expr | None = None
        head = self.cur
        if is_elvis(node):  # `a ?: b` evaluates `a` once
            first = self.kept(self.rvalue(node.cond), node)
            self.branch(self.truth(first), then_b, else_b, node)
        else:
            self.condition(node.cond, then_b, else_b)
        test = head.terminator if isinstance(head.terminator, Branch) and \
            {head.terminator.if_true, head.terminator.if_false} == {then_b, else_b} else None
        # the type of the result needs both operands; lower each in its own block
        self.cur = then_b
        truth = id(node) in self.tested
        a = first if first is not None else self.arm_value(node.iftrue, test, then_b, truth)
        a_end = self.cur
        self.cur = else_b
        b = self.arm_value(node.iffalse, test, else_b, truth)
        b_end = self.cur
        if isinstance(a.type, VoidType) or isinstance(b.type, VoidType):
            rtype: CType = a.type
        elif a.type.is_arithmetic and b.type.is_arithmetic:
            rtype = usual_arithmetic_conversion(a.type, b.type)
        elif isinstance(a.type, PointerType) and not is_null_constant(a):
            rtype = a.type
        else:
            rtype = b.type
        if isinstance(rtype, VoidType):
            for end in (a_end, b_end):
                self.cur = end
                self.goto(join, node)
            self.cur = join
            return Const(INT, 0)
        t = self.temp(rtype, node)
        if isinstance(rtype, RecordType):
            self.address_taken.add(t)
        for end, value in ((a_end, a), (b_end, b)):
            self.cur = end
            self.emit(Assign(VarRef(t, rtype), self.convert(value, rtype), self.loc(node)))
            self.goto(join, node)
        self.cur = join
        return Load(VarRef(t, rtype), rtype)

    def arm_value(self, arm: c_ast.Node, test: Branch | None, block: Block,
                  truth: bool) -> Expr:
        """The value of an arm of `?:` lowered in `block`, where the Branch `test` went
        (with `truth`, as the 0/1 truth value it has where the `?:` is tested); an arm
        that is a Conditional on the same test takes the arm that test chose (gcc folds
        `a ? (a ? x : y) : z` to `a ? x : z`)."""
        value = self.pending_value(arm)
        if truth:
            value = self.truth_value(value, arm)
        if test is not None and isinstance(value, Conditional):
            related = gccfold.relation(value.condition, test.cond)
            if related is not None:
                taken = (test.if_true is block) == related
                value = value.then if taken else value.otherwise
        return self.settled(value)

    def materialize_condition(self, node: c_ast.Node) -> Expr:
        """The 0/1 value of a condition lowered as branches (`&&`, `||` in value context),
        unless gcc folds away a constant operand (`folded_logical`)."""
        if self.gcc_shapes and isinstance(node, c_ast.BinaryOp):
            folded = self.folded_logical(node)
            if folded is not None:
                return folded
        return self.truth_temporary(lambda yes, no: self.condition(node, yes, no), node)

    def expr_FuncCall(self, node: c_ast.FuncCall) -> Expr:
        result = self.call(node, value_used=True)
        if result is None:
            return Const(INT, 0)  # value of a void call, never used by valid C
        return result

    def call(self, node: c_ast.FuncCall, value_used: bool) -> Expr | None:
        callee = node.name
        while True:  # `_Generic((x), int: abs, long: labs)(x)` calls a function by name
            if isinstance(callee, GenericSelection):
                callee = self.generic_choice(callee)
            elif isinstance(callee, c_ast.FuncCall) and isinstance(callee.name, c_ast.ID) \
                    and callee.name.name == CHOOSE_EXPR and callee.args is not None:
                callee = self.chosen(callee.args.exprs, callee)
            else:
                break
        if isinstance(callee, c_ast.ID) and not (
                self.declared(callee.name) and
                isinstance(self.lookup(callee.name, node), Variable)):
            name = callee.name
        else:
            pointer = self.rvalue(callee)
            if not (isinstance(pointer, AddrOf) and isinstance(pointer.lvalue, FunctionRef)):
                return self.indirect_call(pointer, node, value_used)
            name = pointer.lvalue.name  # `(*f)(x)`, `(&f)(x)`: a call of `f`
        args_nodes = node.args.exprs if node.args is not None else []
        if name == ASM_MARKER:  # a GNU asm statement (frontend/parse.py)
            if fold(self.rvalue(args_nodes[0])):
                raise self.unsupported("inline assembly with operands", node)
            return None  # an instruction or barrier that reads and writes no C object
        assert self.unit.resolver is not None
        if name == TYPES_COMPATIBLE:
            return Const(INT, types_compatible(self.unit.resolver, node))
        if name == CHOOSE_EXPR:
            return self.choose_expr(args_nodes, node, value_used)
        if name == "offsetof":  # pycparser's spelling of `__builtin_offsetof`
            offset, _ = self.unit.resolver.constant(node)
            return Const(SIZE_T, offset)
        if name in COMPLEX_PARTS:
            raise self.unsupported(f"{name} (complex arithmetic)", node)
        if name in _TRANSPARENT_BUILTINS:
            for extra in args_nodes[1:]:
                self.effect(extra)
            return self.rvalue(args_nodes[_TRANSPARENT_BUILTINS[name]])
        if name in CLASSIFY_BUILTINS:
            return self.classify(name, args_nodes, node)
        defined = self.unit.functions.get(name)
        if name in ALLOCA_BUILTINS and (defined is None or not defined.is_defined):
            return self.alloca(args_nodes, node)
        if name not in self.unit.functions:  # gcc's builtins, unless the unit defines one
            if name in BIT_BUILTINS:
                return self.bit_builtin(name, args_nodes, node)
            if name in OVERFLOW_BUILTINS:
                return self.overflow_builtin(name, args_nodes, node)
            if name in ATOMIC_BUILTINS:
                return self.atomic_builtin(name, args_nodes, node)
            if name in FLOAT_CONSTANT_BUILTINS:
                return self.float_constant(name, args_nodes, node)
            if name == "__builtin_constant_p":
                if len(args_nodes) != 1:
                    raise CtgenError(f"{name} takes one argument", self.loc(node))
                return Const(INT, 1 if self.is_constant(args_nodes[0]) else 0)
            if name in _VARIADIC_BUILTINS:
                return self.variadic_builtin(name, args_nodes, node)
            plain = name.removeprefix("__builtin_")
            if plain in LIBRARY_BUILTINS and plain in self.unit.functions:
                name = plain  # __builtin_memcpy is memcpy, as declared by <string.h>
        fn = self.unit.functions.get(name)
        skipped = any(d.name == name for d in self.unit.skipped_definitions)
        if (fn is None or skipped) and name in self.unit.unsupported:  # never a stub
            why = self.unit.unsupported[name].as_cause(self.loc(node))
            raise self.unsupported(f"call of '{name}', whose declaration is not supported "
                                   f"({why})", node)
        if fn is None:
            try:
                target = self.lookup(name, node)
            except CtgenError:
                if name.startswith("__builtin_"):
                    raise self.unsupported(f"gcc builtin '{name}'", node) from None
                raise CtgenError(f"implicit declaration of function '{name}'",
                                 self.loc(node)) from None
            raise CtgenError(f"'{name}' is not a function", self.loc(node))
        ftype = fn.type
        self.check_modelled(ftype, node)
        if not ftype.variadic and len(args_nodes) != len(ftype.params) and not (
                len(ftype.params) == 0):
            raise CtgenError(f"wrong number of arguments to '{name}'", self.loc(node))
        args = self.arguments(ftype, args_nodes)
        if ftype.variadic and fn.is_defined:  # its va_start finds the rest in an area
            args[len(ftype.params):] = [self.variadic_arguments(args[len(ftype.params):], node)]
        target = self.call_result(ftype, node, value_used)
        self.emit(Call(target, name, args, self.loc(node)))
        return None if target is None else Load(target, target.type)

    def call_result(self, ftype: FunctionType, node: c_ast.Node, value_used: bool
                    ) -> VarRef | None:
        """The temporary a call's result goes to (None when there is none or it is unused);
        a struct result lives in memory."""
        if isinstance(ftype.result, VoidType) or not value_used:
            return None
        t = self.temp(ftype.result, node)
        if isinstance(ftype.result, RecordType):
            self.address_taken.add(t)
        return VarRef(t, t.type)

    def arguments(self, ftype: FunctionType, nodes: list[c_ast.Node]) -> list[Expr]:
        """The arguments of a call of a function of type `ftype`: converted to the types
        of its parameters, the others (variadic, or of an unprototyped function) promoted."""
        args: list[Expr] = []
        for i, a in enumerate(nodes):
            v = self.rvalue(a)
            if i < len(ftype.params):
                v = self.convert(v, ftype.params[i])
            elif isinstance(v.type, FloatType):
                v = self.convert(v, DOUBLE)
            else:
                v = self.promote(v)
            args.append(v)
        return args

    def indirect_call(self, callee: Expr, node: c_ast.FuncCall, value_used: bool
                      ) -> Expr | None:
        """A call through the function pointer `callee`: which function it calls is
        decided where the call is executed."""
        ptype = callee.type
        if not isinstance(ptype, PointerType) or not isinstance(ptype.target, FunctionType):
            raise CtgenError("called object is not a function or function pointer",
                             self.loc(node))
        ftype = ptype.target
        self.check_modelled(ftype, node)
        if ftype.variadic:
            raise self.unsupported("call through a function pointer of a variadic type", node)
        args_nodes = node.args.exprs if node.args is not None else []
        if ftype.params and len(args_nodes) != len(ftype.params):
            raise CtgenError("wrong number of arguments in a call through a function "
                             "pointer", self.loc(node))
        args = self.arguments(ftype, args_nodes)
        target = self.call_result(ftype, node, value_used)
        self.emit(Call(target, "", args, self.loc(node), callee))
        return None if target is None else Load(target, target.type)

    def float_constant(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """The builtins behind INFINITY, HUGE_VAL and NAN: their value; the NaN is that of
        `__builtin_nan("")`, the quiet one (another payload is not modelled)."""
        ftype, value = FLOAT_CONSTANT_BUILTINS[name]
        given = [parse_string_literal(a.value) if isinstance(a, c_ast.Constant) and
                 a.type == "string" else None for a in args]
        if given != ([b"\0"] if value != value else []):
            raise self.unsupported(f"{name} with these arguments", node)
        return self.modelled(Const(ftype, value), node)

    def choose_expr(self, args: list[c_ast.Node], node: c_ast.Node, value_used: bool
                    ) -> Expr | None:
        """GNU `__builtin_choose_expr(constant, a, b)`: `a` when the constant is not 0,
        else `b`, with its own type; the other is not evaluated."""
        chosen = self.chosen(args, node)
        if value_used:
            return self.expr(chosen)
        self.effect(chosen)
        return None

    def chosen(self, args: list[c_ast.Node], node: c_ast.Node) -> c_ast.Node:
        """The operand `__builtin_choose_expr(constant, a, b)` stands for."""
        if len(args) != 3:
            raise CtgenError(f"{CHOOSE_EXPR} takes three arguments", self.loc(node))
        condition = fold(self.unevaluated(args[0]))
        if not isinstance(condition, int):
            raise CtgenError(f"the first argument of {CHOOSE_EXPR} is not an integer "
                             "constant", self.loc(args[0]))
        return args[1] if condition else args[2]

    def variadic_arguments(self, values: list[Expr], node: c_ast.Node) -> Expr:
        """The address of a new area holding the (promoted) variadic arguments of a call,
        one after the other in `_variadic_slot`s, for the callee's `va_arg` to read."""
        loc = self.loc(node)
        total = sum(_variadic_slot(v.type.size) for v in values)
        area = self.temp(ArrayType(UCHAR, max(total, 8)), node)
        self.address_taken.add(area)
        start = AddrOf(VarRef(area, area.type), PointerType(UCHAR))
        offset = 0
        for value in values:
            slot = self.convert(PtrAdd(start, Const(LONG, offset), start.type),
                                PointerType(value.type))
            self.emit(Assign(Deref(slot, value.type), value, loc))
            offset += _variadic_slot(value.type.size)
        return start

    def variadic_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node
                         ) -> Expr | None:
        """<stdarg.h>'s `va_start`, `va_arg`, `va_copy` and `va_end`; only a function
        body has variadic arguments."""
        raise self.unsupported("variadic arguments outside a function body", node)

    def alloca(self, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """`alloca(size)`: the address of a new object of `size` bytes in the caller's
        frame (it lives until the function returns), made as a variable length array of
        unsigned char is; a size of 0 is allowed."""
        if len(args) != 1:
            raise CtgenError("alloca takes one argument", self.loc(node))
        size = self.convert(self.rvalue(args[0]), SIZE_T)
        key = VariableLength(args[0])
        self.lengths[key] = self.length(size, 0, node)
        ctype = ArrayType(UCHAR, None, key)
        area = self.temp(ctype, node)
        self.address_taken.add(area)
        self.emit(Init(area, self.loc(node), self.size_expr(ctype, node)))
        return Cast(AddrOf(VarRef(area, ctype), PointerType(UCHAR)), PointerType(VOID))

    def length(self, value: Expr, minimum: int, node: c_ast.Node) -> Variable:
        """A new variable holding the element count `value` (an integer) evaluated here."""
        if not isinstance(value.type, IntType):
            raise CtgenError("size of array has non-integer type", self.loc(node))
        var = self.temp(SIZE_T, node)
        self.emit(Length(var, self.promote(value), minimum, self.loc(node)))
        return var

    def is_constant(self, node: c_ast.Node) -> bool:
        """`__builtin_constant_p` at -O0: true for a constant expression of C (a literal,
        enumerators, sizeof, a string, a constant cast to a pointer), false for anything
        that reads an object, even a const one. gcc folds a little more (`x * 0` is
        constant to it); those answers differ. The operand is not evaluated."""
        while isinstance(node, c_ast.Cast):
            node = node.expr
        if isinstance(node, c_ast.Constant):
            return True
        if isinstance(node, c_ast.ID):
            try:
                target = _ExprLowerer.lookup(self, node.name, node)
            except CtgenError:
                return False
            if isinstance(target, Variable):
                return False  # an object, even a const one, or a local over an enumerator
        assert self.unit.resolver is not None
        try:
            self.unit.resolver.constant(node)
        except CtgenError:
            return False
        return True

    def bit_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """A GCC bit builtin (frontend/builtins.py) on its converted operand."""
        builtin = BIT_BUILTINS[name]
        if len(args) != 1:
            raise CtgenError(f"{name} takes one argument", self.loc(node))
        operand = self.convert(self.rvalue(args[0]), builtin.argument)
        return BitOp(builtin.operation, operand, builtin.result)

    def overflow_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """`__builtin_add_overflow(a, b, &r)` and kin: whether the mathematical result
        fits in r's type is taken first (r may be a or b), then r gets it wrapped."""
        if len(args) != 3:
            raise CtgenError(f"{name} takes three arguments", self.loc(node))
        left, right, pointer = (self.rvalue(a) for a in args)
        target = pointer.type.target if isinstance(pointer.type, PointerType) else None
        if not all(_plain_integer(t) for t in (left.type, right.type, target)):
            raise CtgenError(f"{name} takes two integers and a pointer to an integer "
                             "that is neither _Bool nor an enum", self.loc(node))
        assert isinstance(target, IntType)
        op = OVERFLOW_BUILTINS[name]
        flag = self.kept(OverflowFlag(op, left, right, target, BOOL), node)
        self.emit(Assign(Deref(pointer, target), self.wrapped(op, left, right, target),
                         self.loc(node)))
        return flag

    def wrapped(self, op: str, left: Expr, right: Expr, target: IntType) -> Expr:
        """`left op right` wrapped to `target`, as the overflow and atomic builtins compute
        it: in an unsigned type of at least int's rank, so it is never undefined; `~&` is
        the atomic builtins' nand."""
        wide = unsigned_of(target) if target.bits >= UINT.bits else UINT
        a, b = self.convert(left, wide), self.convert(right, wide)
        if op == "~&":
            result: Expr = Unary("~", Binary("&", a, b, wide), wide)
        else:
            result = Binary(op, a, b, wide)
        return self.convert(result, target)

    def atomic_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node
                       ) -> Expr | None:
        """An `__atomic_*` or `__sync_*` builtin on an integer object (or a pointer, for
        loads, stores and exchanges), as one thread runs it: the arguments first, then the
        object is read once and written once; arithmetic wraps."""
        kind, op = ATOMIC_BUILTINS[name]
        shape = ATOMIC_SHAPES[kind]
        generic = op == GENERIC
        returned_through = 1 if generic and kind in ("load", "exchange") else 0
        arity = shape.atomic_arity + returned_through if name.startswith("__atomic") \
            else shape.sync_arity
        if len(args) != arity:
            raise CtgenError(f"{name} takes {arity} arguments", self.loc(node))
        if kind == "fence":
            for a in args:
                self.effect(a)
            return None
        loc = self.loc(node)
        if kind in ("test_and_set", "clear"):  # on the byte at the address, whatever its type
            byte = self.pinned_target(args[0], node, UCHAR)
            self.effect(args[1])
            if kind == "clear":
                self.emit(Assign(byte, Const(UCHAR, 0), loc))
                return None
            was = self.kept(Load(byte, UCHAR), node)
            self.emit(Assign(byte, Const(UCHAR, 1), loc))
            return self.convert(was, BOOL)
        obj = self.pinned_target(args[0], node)
        target = obj.type
        moved_only = kind in ("load", "store", "exchange")
        if not (_plain_integer(target) or moved_only and isinstance(target, PointerType)):
            raise self.unsupported(f"{name} on an object that is not an integer", node)

        def value(arg: c_ast.Node) -> Expr:
            if generic:  # passed by address
                return Load(self.pinned_target(arg, node, target), target)
            return self.convert(self.rvalue(arg), target)

        expected: Expr | None = None
        if kind == "compare_exchange":  # (p, &expected, desired, weak, order, order)
            expected = self.pinned_target(args[1], node, target)
            operands = [Load(expected, target), value(args[2])]
        else:
            operands = [value(a) for a in args[1:1 + shape.values]]
        returned: Expr | None = None
        if returned_through:
            returned = self.pinned_target(args[1 + shape.values], node, target)
        for a in args[1 + shape.values + returned_through:]:
            self.effect(a)  # memory orders, `weak`
        old_value = self.kept(Load(obj, target), node)
        if kind == "release":
            self.emit(Assign(obj, Const(target, 0), loc))
            return None
        if kind == "store":
            self.emit(Assign(obj, operands[0], loc))
            return None
        if kind in ("load", "exchange"):
            if kind == "exchange":
                self.emit(Assign(obj, operands[0], loc))
            if returned is not None:
                self.emit(Assign(returned, old_value, loc))
                return None
            return old_value
        assert isinstance(target, IntType)
        if kind in ("fetch", "update"):
            new = self.kept(self.wrapped(op, old_value, operands[0], target), node)
            self.emit(Assign(obj, new, loc))
            return old_value if kind == "fetch" else new
        # compare and swap: the object gets the desired value where it held the expected
        same = self.kept(Binary("==", old_value, operands[0], INT), node)
        self.emit(Assign(obj, Select(same, operands[1], old_value, target), loc))
        if expected is not None:  # a failed exchange tells what the object held
            self.emit(Assign(expected, Select(same, Load(expected, target), old_value, target),
                             loc))
        if kind == "value_cas":
            return old_value
        return self.convert(same, BOOL)

    def pinned_target(self, pointer_node: c_ast.Node, node: c_ast.Node,
                      as_type: CType | None = None) -> Expr:
        """`*p` for the pointer argument `p`, evaluated once into a temporary so that
        later reads and writes of the object do not evaluate it again; with `as_type`, the
        object at that address read as that type (a generic atomic builtin's operands)."""
        pointer = self.rvalue(pointer_node)
        if not isinstance(pointer.type, PointerType):
            raise CtgenError("an atomic builtin takes a pointer to the object",
                             self.loc(node))
        address = self.kept(pointer, node)
        if as_type is None:
            return Deref(address, pointer.type.target)
        return Deref(self.convert(address, PointerType(as_type)), as_type)

    def classify(self, name: str, args: list[c_ast.Node], node: c_ast.Node) -> Expr:
        """A <math.h> classification macro's builtin, on the operand's own type."""
        results: tuple[int, ...] = ()
        if name == "__builtin_fpclassify":
            if len(args) != 6:
                raise CtgenError("__builtin_fpclassify takes 6 arguments", self.loc(node))
            values = [fold(self.rvalue(a)) for a in args[:5]]
            if not all(isinstance(v, int) for v in values):
                raise self.unsupported("__builtin_fpclassify with non-constant results", node)
            results = tuple(int(v) for v in values)  # type: ignore[arg-type]
            args = args[5:]
        if len(args) != 1:
            raise CtgenError(f"{name} takes one argument", self.loc(node))
        operand = self.rvalue(args[0])
        if not isinstance(operand.type, FloatType):
            operand = self.convert(operand, DOUBLE)
        if self.gcc_shapes and fold(operand) is None and \
                name in ("__builtin_fpclassify", "__builtin_isinf_sign"):
            return self.classification(name, operand, results, node)
        return Classify(name.removesuffix("f").removesuffix("l") if "signbit" in name
                        else name, operand, INT, results)

    def classification(self, name: str, x: Expr, results: tuple[int, ...],
                       node: c_ast.Node) -> Expr:
        """`__builtin_fpclassify` and `__builtin_isinf_sign` as gcc expands them: a
        conditional per test (NaN, infinite, normal, zero; infinite, sign)."""
        loc = self.loc(node)

        def test(what: str) -> Expr:
            return Classify(f"__builtin_{what}", x, INT)

        def choice(condition: Expr, then: Expr, otherwise: Expr) -> Expr:
            return self.conditional(condition, then, otherwise, INT, loc, INT)

        if name == "__builtin_isinf_sign":
            sign = choice(test("signbit"), Const(INT, -1), Const(INT, 1))
            return choice(test("isinf"), sign, Const(INT, 0))
        nan, infinite, normal, subnormal, zero = (Const(INT, r) for r in results)
        is_zero = Binary("==", x, Const(x.type, 0.0), INT)
        finite = choice(test("isnormal"), normal, choice(is_zero, zero, subnormal))
        return choice(test("isnan"), nan, choice(test("isinf"), infinite, finite))

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> Expr:
        return self.lvalue(node)

    # ---------------------------------------------------------------- effects

    def effect(self, node: c_ast.Node) -> None:
        """Lower an expression evaluated only for its side effects."""
        if isinstance(node, c_ast.Assignment):
            self.assign(node)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.increment(node, value_used=False)
        elif isinstance(node, c_ast.FuncCall):
            self.call(node, value_used=False)
        elif isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                self.effect(e)
        elif isinstance(node, c_ast.Cast):
            self.effect(node.expr)
        elif isinstance(node, c_ast.Compound):  # a GNU statement expression, value unused
            self.stmt_Compound(node)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and self.gcc_shapes:
            self.logical_effect(node)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            join = self.new_block()
            rest = self.new_block()
            if node.op == "&&":
                self.condition(node.left, rest, join)
            else:
                self.condition(node.left, join, rest)
            self.cur = rest
            self.effect(node.right)
            self.goto(join, node)
            self.cur = join
        elif isinstance(node, c_ast.TernaryOp) and is_elvis(node):  # `a ?: b;`
            first = self.kept(self.rvalue(node.cond), node)
            else_b, join = self.new_block(), self.new_block()
            self.branch(self.truth(first), join, else_b, node)
            self.cur = else_b
            self.effect(node.iffalse)
            self.goto(join, node)
            self.cur = join
        elif isinstance(node, c_ast.TernaryOp):
            then_b, else_b, join = self.new_block(), self.new_block(), self.new_block()
            self.condition(node.cond, then_b, else_b)
            for b, sub in ((then_b, node.iftrue), (else_b, node.iffalse)):
                self.cur = b
                self.effect(sub)
                self.goto(join, node)
            self.cur = join
        else:
            self.discarded(self.rvalue(node), node)

    def discarded(self, value: Expr, node: c_ast.Node) -> None:
        """`value`, computed only to be dropped: gcc -O0 computes none of it (its side
        effects are lowered before it), except that a volatile object is read. What C says
        may be undefined in it is kept as an `Eval` (C11 6.8.3p2: it is evaluated)."""
        if isinstance(value, Load) and (_object_qualifiers(value.lvalue) or (False, False))[1]:
            self.kept(value, node)
        elif may_be_undefined(value):
            self.emit(Eval(value, self.loc(node)))

    def logical_effect(self, node: c_ast.BinaryOp) -> None:
        """`a && b;` or `a || b;`: gcc tests `b` too, unless a constant operand folds the
        operator away; then the operand left is evaluated for its side effects."""
        if self.look_ahead_ok(node):
            decisive = 0 if node.op == "&&" else 1  # the value of `a` that decides alone
            left = self.constant_truth(node.left)
            if left is not None:
                if left != decisive:
                    self.effect(node.right)
                return
            right = self.constant_truth(node.right)
            if right is not None and (right == decisive or
                                      not self.has_side_effects(node.left)):
                self.effect(node.left)
                return
        join = self.new_block()
        self.condition(node, join, join)
        self.cur = join

    # ------------------------------------------------------ gcc's folds of truth values

    def truth_temporary(self, lower_condition: Callable[[Block, Block], None],
                        node: c_ast.Node) -> Expr:
        """The 0/1 value of a condition that `lower_condition(yes, no)` lowers as
        branches."""
        t = self.temp(INT, node)
        self.conditions.add(t)
        yes, no, join = self.new_block(), self.new_block(), self.new_block()
        lower_condition(yes, no)
        for b, v in ((yes, 1), (no, 0)):
            self.cur = b
            self.emit(Assign(VarRef(t, INT), Const(INT, v), self.loc(node)))
            self.goto(join, node)
        self.cur = join
        return Load(VarRef(t, INT), INT)

    def look(self, node: c_ast.Node) -> Expr:
        """What `node` lowers to here, for its shape (kind, constant value, type); nothing
        of it is kept. Computed once per node: nested conditionals look at their
        operands too, which would otherwise cost exponential time."""
        key = id(node)
        if key not in self.looks:
            self.looks[key] = (node, self.discarding(lambda: self.pending_value(node)))
        return self.looks[key][1]

    def constant_truth(self, node: c_ast.Node) -> int | None:
        """1 or 0 when `node` is a constant (nonzero or zero), else None. Nothing of
        `node` is kept."""
        if self.has_side_effects(node):
            return None  # `(f(), 1)` is no constant to gcc's folder
        return gccfold.truth_constant(self.look(node))

    def truth_of(self, node: c_ast.Node) -> Expr:
        """`node != 0` as a 0/1 int, as gcc makes it (a truth value as it is)."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            return self.materialize_condition(node)
        return self.truth_value(self.pending_value(node), node)

    def truth_value(self, e: Expr, node: c_ast.Node) -> Expr:
        """The scalar `e` as a 0/1 int: itself for a truth value, else `e != 0`."""
        self.truth(e)
        if gccfold.kind(e, self.conditions) is not None or \
                isinstance(e.type, IntType) and e.type.is_bool:
            return self.convert(e, INT)
        return self.binary("!=", e, Const(INT, 0), node)

    def folded_logical(self, node: c_ast.BinaryOp) -> Expr | None:
        """gcc's fold of `&&` or `||` with a constant operand (fold_binary): `0 && b` is 0,
        `1 && b` and `b && 1` are `b != 0` (no branch), `a && 0` is `(a, 0)`; likewise
        for `||`. None when neither operand is a constant."""
        if not self.look_ahead_ok(node):
            return None
        decisive = 0 if node.op == "&&" else 1
        left = self.constant_truth(node.left)
        if left is not None:
            return Const(INT, left) if left == decisive else self.truth_of(node.right)
        right = self.constant_truth(node.right)
        if right is None:
            return None
        if right != decisive:
            return None if self.has_side_effects(node.left) else self.truth_of(node.left)
        self.effect(node.left)
        return Const(INT, right)

    def abs_comparison(self, node: c_ast.BinaryOp) -> _AbsRange | None:
        """`abs(x) < c`, `abs(x) <= c` (or `c > abs(x)`...) of an integer constant `c`, which
        gcc folds (gccfold.abs_range); None for other comparisons."""
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        if node.op not in flipped:
            return None
        for call, bound, op in ((node.left, node.right, node.op),
                                (node.right, node.left, flipped[node.op])):
            abs_type = self.abs_call_type(call)
            if op not in ("<", "<=") or abs_type is None or not self.look_ahead_ok(bound):
                continue
            arg = call.args.exprs[0]
            arg_type = self.type_of(arg)
            b = self.look(bound)
            value = fold(b)
            if not (isinstance(arg_type, IntType) and not arg_type.is_bool and
                    arg_type.bits >= abs_type.bits and isinstance(b.type, IntType) and
                    isinstance(value, int) and
                    abs_type.min_value <= value <= abs_type.max_value):
                return None
            if not usual_arithmetic_conversion(abs_type, integer_promotion(b.type)).signed:
                return None
            found = gccfold.abs_range(op, value, abs_type)
            return None if found is None else _AbsRange(arg, abs_type, found)
        return None

    def has_side_effects(self, node: c_ast.Node) -> bool:
        """Whether evaluating `node` may change something (gcc's TREE_SIDE_EFFECTS): an
        assignment, `++`, a call of other than gcc's abs builtins."""
        holds = self.holds(node)
        return holds.statements or holds.changes or \
            any(self.abs_call_type(call) is None for call in holds.calls)

    def look_ahead_ok(self, node: c_ast.Node) -> bool:
        """Whether `node` may be lowered once more to look at its value (`look`): it
        declares nothing (holds no statement expression)."""
        return not self.holds(node).statements

    def holds(self, node: c_ast.Node) -> _Holds:
        """What `node` holds (computed once per node)."""
        key = id(node)
        if key not in self.held:
            parts = [self.holds(child) for child in node]
            calls = tuple(c for part in parts for c in part.calls)
            self.held[key] = (node, _Holds(
                isinstance(node, c_ast.Compound) or any(p.statements for p in parts),
                isinstance(node, c_ast.Assignment) or isinstance(node, c_ast.UnaryOp) and
                node.op in ("++", "--", "p++", "p--") or any(p.changes for p in parts),
                (node, *calls) if isinstance(node, c_ast.FuncCall) else calls))
        return self.held[key][1]

    def abs_call_type(self, node: c_ast.Node) -> IntType | None:
        """The argument type of a call of gcc's builtin abs, labs, llabs or imaxabs of one
        argument; None for any other expression (or a function the unit defines)."""
        if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and
                node.args is not None and len(node.args.exprs) == 1):
            return None
        name = node.name.name
        fn = self.unit.functions.get(name)
        if name not in gccfold.ABS_FUNCTIONS or self.declared(name) or (
                fn is not None and fn.is_defined):
            return None
        return gccfold.ABS_FUNCTIONS[name]

    def abs_branches(self, found: _AbsRange, if_true: Block, if_false: Block,
                     node: c_ast.Node) -> None:
        """`abs(x) <= c` as gcc has it: `x >= -c && x <= c`, x evaluated once."""
        if found.bounds is False:
            self.effect(found.argument)
            self.goto(if_false, node)
            return
        assert isinstance(found.bounds, tuple)
        t = found.type
        x = self.kept(self.convert(self.rvalue(found.argument), t), found.argument)
        low, high = found.bounds
        mid = self.new_block()
        self.branch(Binary(">=", x, Const(t, low), INT), mid, if_false, node)
        self.cur = mid
        self.branch(Binary("<=", x, Const(t, high), INT), if_true, if_false, node)

    def distributed_ternary(self, node: c_ast.BinaryOp) -> c_ast.TernaryOp | None:
        """gcc's `(c ? a : b) op k` for a constant `k`: `c ? a op k : b op k`
        (fold_binary_op_with_conditional_arg), for arms `a` and `b` of one integer type;
        None for another operation."""
        key = id(node)
        if key not in self.ternary_forms:
            self.ternary_forms[key] = (node, self.ternary_form(node))
        return self.ternary_forms[key][1]

    def ternary_form(self, node: c_ast.BinaryOp) -> c_ast.TernaryOp | None:
        if node.op not in ARITHMETIC_OPS + COMPARISON_OPS:
            return None
        for ternary_first in (True, False):
            side, k = (node.left, node.right) if ternary_first else (node.right, node.left)
            ternary = side if isinstance(side, c_ast.TernaryOp) else \
                self.distributed_ternary(side) if isinstance(side, c_ast.BinaryOp) else None
            if ternary is None or is_elvis(ternary) or not self.look_ahead_ok(node) or \
                    not self.stays_conditional(ternary):
                continue
            constant = fold(self.look(k))
            if constant is None or node.op in ("/", "%") and (not ternary_first or
                                                              constant == 0):
                continue
            types = [self.look(n).type for n in (ternary.iftrue, ternary.iffalse, k)]
            if not all(isinstance(t, IntType) for t in types) or \
                    integer_promotion(types[0]) != integer_promotion(types[1]):
                continue
            arms = [c_ast.BinaryOp(node.op, arm, k, node.coord) if ternary_first else
                    c_ast.BinaryOp(node.op, k, arm, node.coord)
                    for arm in (ternary.iftrue, ternary.iffalse)]
            return c_ast.TernaryOp(ternary.cond, arms[0], arms[1], ternary.coord)
        return None

    def stays_conditional(self, node: c_ast.TernaryOp) -> bool:
        """Whether gcc keeps `node` a conditional: it folds to no `&&`, `||`, constant,
        condition or negated condition."""
        if self.ternary_logical(node, truth=False) is not None:
            return False
        values = [fold(self.look(n)) for n in (node.iftrue, node.iffalse)]
        return None in values or not (values[0] == values[1] or set(values) == {0, 1})

    def ternary_logical(self, node: c_ast.TernaryOp, truth: bool) -> c_ast.Node | None:
        """gcc's fold of `a ? b : c` into `&&` or `||` (fold_ternary) where `a` and the
        other arm are truth values: `a ? b : 0` is `a && b`, `a ? b : 1` is `!a || b`,
        `a ? 0 : c` is `!a && c`, `a ? 1 : c` is `a || c` (`!a` only where gcc inverts
        `a`). With `truth` the conditional is itself tested: its arms count as truth
        values. None when it stays a conditional."""
        if is_elvis(node) or not self.look_ahead_ok(node):
            return None
        cond = self.look(node.cond)
        if gccfold.kind(cond, self.conditions) is None and \
                isinstance(cond.type, IntType) and cond.type.is_bool:
            return None  # a _Bool is no truth value to gcc's folder
        arms: list[tuple[int | float | None, bool]] = []
        for arm in (node.iftrue, node.iffalse):
            value = self.look(arm)
            if not truth and not isinstance(value.type, IntType):
                return None
            if truth:
                known = gccfold.truth_constant(value)
                arms.append((known, known is None))
            else:
                constant = fold(value)
                arms.append((constant, gccfold.kind(value, self.conditions) is not None))
        (then, then_truth), (otherwise, otherwise_truth) = arms
        invertible = gccfold.invertible(cond)
        negated = c_ast.UnaryOp("!", node.cond, node.cond.coord)
        if otherwise == 0 and then_truth:
            return c_ast.BinaryOp("&&", node.cond, node.iftrue, node.coord)
        if otherwise == 1 and then_truth and invertible:
            return c_ast.BinaryOp("||", negated, node.iftrue, node.coord)
        if then == 0 and otherwise_truth and invertible:
            return c_ast.BinaryOp("&&", negated, node.iffalse, node.coord)
        if then == 1 and otherwise_truth:
            return c_ast.BinaryOp("||", node.cond, node.iffalse, node.coord)
        return None

    def jumps_alone(self, node: c_ast.Node) -> bool:
        """Whether gcc tests `node` with jumps of its own, not by one value: `&&`, `||`,
        `!` of these, `abs(x) < c`, a `?:` that is an `&&` or `||`."""
        if isinstance(node, c_ast.BinaryOp):
            return node.op in ("&&", "||") or self.abs_comparison(node) is not None
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            inner = node.expr
            return (isinstance(inner, c_ast.BinaryOp) and inner.op in ("&&", "||") or
                    isinstance(inner, c_ast.UnaryOp) and inner.op == "!") and \
                self.jumps_alone(inner)
        if isinstance(node, c_ast.TernaryOp):
            return self.ternary_logical(node, truth=True) is not None
        return False

    def folded_ternary(self, node: c_ast.TernaryOp) -> Expr | None:
        """gcc's fold of the conditional `node` in value context: an `&&` or `||`
        (`ternary_logical`), or for constant arms a Conditional, which may fold to its
        condition, the negation of it or one constant (gccfold.conditional)."""
        logical = self.ternary_logical(node, truth=False)
        if logical is not None:
            rtype = usual_arithmetic_conversion(
                *(self.look(n).type for n in (node.iftrue, node.iffalse)))
            return self.convert(self.materialize_condition(logical), rtype)
        if not self.look_ahead_ok(node):
            return None
        arms = [self.look(n) for n in (node.iftrue, node.iffalse)]
        values = [fold(a) for a in arms]
        if not all(a.type.is_arithmetic for a in arms) or None in values:
            return None
        rtype = usual_arithmetic_conversion(arms[0].type, arms[1].type)
        then, otherwise = (convert_constant(v, a.type, rtype)  # type: ignore[arg-type]
                           for v, a in zip(values, arms))
        if then is None or otherwise is None:
            return None
        then, otherwise = Const(rtype, then), Const(rtype, otherwise)
        if gccfold.same(then, otherwise) and not self.has_side_effects(node.cond):
            return then
        if self.jumps_alone(node.cond):
            return None  # the condition's own jumps choose the arm
        cond = self.pending_value(node.cond)
        self.truth(cond)
        if gccfold.kind(cond, self.conditions) is None and \
                isinstance(cond.type, IntType) and cond.type.is_bool:
            return self.conditional(self.settled(cond), then, otherwise, rtype,
                                    self.loc(node), cond.type, eager=False)
        return self.conditional(self.settled(self.truth_value(cond, node.cond)), then,
                                otherwise, rtype, self.loc(node), INT, eager=False)

    # --------------------------------------------------------------- conditions

    def condition(self, node: c_ast.Node, if_true: Block, if_false: Block) -> None:
        """Branch to `if_true` or `if_false`; `&&`, `||`, `!` and `?:` become branches."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and \
                self.gcc_shapes and self.decided_by_right(node):
            self.goto(if_false if node.op == "&&" else if_true, node)
            return
        if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
            mid = self.new_block()
            self.condition(node.left, mid, if_false)
            self.cur = mid
            self.condition(node.right, if_true, if_false)
            return
        if isinstance(node, c_ast.BinaryOp) and node.op == "||":
            mid = self.new_block()
            self.condition(node.left, if_true, mid)
            self.cur = mid
            self.condition(node.right, if_true, if_false)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            inner = node.expr
            if isinstance(inner, c_ast.BinaryOp) and inner.op in ("&&", "||") or (
                    isinstance(inner, c_ast.UnaryOp) and inner.op == "!"):
                self.condition(inner, if_false, if_true)
                return
        if isinstance(node, c_ast.ExprList):
            for e in node.exprs[:-1]:
                self.effect(e)
            self.condition(node.exprs[-1], if_true, if_false)
            return
        if not self.gcc_shapes:
            self.branch(self.truth(self.rvalue(node)), if_true, if_false, node)
        elif not self.gcc_condition(node, if_true, if_false):
            self.tested_value(self.pending_value(node), if_true, if_false, node)

    def decided_by_right(self, node: c_ast.BinaryOp) -> bool:
        """Whether `a && 0` or `a || 1` (a constant right operand that decides) needs no
        test at all: `a` does nothing (gcc folds it to the constant)."""
        return self.look_ahead_ok(node.right) and \
            self.constant_truth(node.right) == (0 if node.op == "&&" else 1) and \
            not self.has_side_effects(node.left)

    def gcc_condition(self, node: c_ast.Node, if_true: Block, if_false: Block) -> bool:
        """Branch on `node` where gcc folds it in a condition: a `?:` that is an `&&` or
        `||`, an operator distributed over a `?:`, `abs(x) < c`, an assignment of a value
        known not to be 0. False when none of these applies (nothing lowered)."""
        if isinstance(node, c_ast.TernaryOp):
            truths = [self.constant_truth(n) for n in (node.iftrue, node.iffalse)]
            if truths[0] is not None and truths[0] == truths[1] and not is_elvis(node) \
                    and not self.has_side_effects(node.cond):
                self.goto(if_true if truths[0] else if_false, node)
                return True
            logical = self.ternary_logical(node, truth=True)
            if logical is not None:
                self.condition(logical, if_true, if_false)
                return True
            self.tested.add(id(node))  # only its truth counts: so does its arms'
            try:
                self.tested_value(self.pending_value(node), if_true, if_false, node)
            finally:
                self.tested.discard(id(node))
            return True
        if isinstance(node, c_ast.BinaryOp):
            ternary = self.distributed_ternary(node)
            if ternary is not None:
                self.condition(ternary, if_true, if_false)
                return True
            found = self.abs_comparison(node)
            if found is None:
                return False
            self.abs_branches(found, if_true, if_false, node)
            return True
        if isinstance(node, c_ast.Assignment) and node.op == "=":
            target, stored = self.assignment(node)
            if gccfold.known_nonzero(stored):
                self.goto(if_true, node)
            else:
                self.branch(self.truth(Load(target, target.type)), if_true, if_false, node)
            return True
        return False

    def tested_value(self, value: Expr, if_true: Block, if_false: Block,
                     node: c_ast.Node) -> None:
        """Branch on the scalar `value`; a Conditional branches on its condition (where
        its arms differ in truth), an address of an object is not tested (never NULL)."""
        if isinstance(value, Conditional):
            known = gccfold.truth_constant(value)
            if known is not None:
                self.goto(if_true if known else if_false, node)
                return
            arms = (value.then, value.otherwise)
            truths = [gccfold.truth_constant(arm) for arm in arms]
            targets = [self.new_block() if k is None else if_true if k else if_false
                       for k in truths]
            self.branch(value.condition, targets[0], targets[1], node, value.location)
            for arm, known, target in zip(arms, truths, targets):
                if known is None:
                    self.cur = target
                    self.tested_value(arm, if_true, if_false, node)
            return
        value = self.settled(value)
        if gccfold.known_nonzero(value):
            self.truth(value)
            self.goto(if_true, node)
            return
        self.branch(self.truth(value), if_true, if_false, node)

    def branch(self, truth: Expr, if_true: Block, if_false: Block, node: c_ast.Node | None,
               location: SourceLocation | None = None) -> None:
        """Branch on the 0/1 value `truth` (a jump when it is constant) at `location`
        (default: `node`'s)."""
        value = fold(truth)
        if value is not None:
            self.goto(if_true if value else if_false, node)
            return
        self.terminate(Branch(truth, if_true, if_false, location or self.loc(node)))

    # ------------------------------------------------------------- initializers

    def initialize(self, target: Expr, ctype: CType, init: c_ast.Node,
                   node: c_ast.Node) -> None:
        """Assignments giving the object `target` its initial value from `init`."""
        self.check_modelled(ctype, node)
        loc = self.loc(node)
        if isinstance(ctype, ArrayType):
            init = unbraced_string(init)  # `char t[] = {"abc"};`
        if isinstance(ctype, ArrayType) and isinstance(init, c_ast.Constant) and \
                init.type == "string":
            data = parse_string_literal(init.value)
            self.emit(ZeroFill(target, loc))
            elem = ctype.element
            count = ctype.count if ctype.count is not None else len(data)
            for i, byte in enumerate(data[:count]):
                if byte:
                    self.emit(Assign(self.element(target, i, elem), Const(elem, byte), loc))
            return
        if isinstance(init, c_ast.InitList) and not isinstance(ctype, (ArrayType, RecordType)):
            if init.exprs:
                self.initialize(target, ctype, init.exprs[0], node)
            else:
                self.emit(ZeroFill(target, loc))
            return
        if not isinstance(init, c_ast.InitList):
            value = self.rvalue(init)
            if isinstance(ctype, RecordType):
                self.emit(Assign(target, value, loc))
            else:
                self.emit(Assign(target, self.convert(value, ctype), loc))
            return
        self.emit(ZeroFill(target, loc))
        self.init_list(target, ctype, list(init.exprs), node)

    def element(self, target: Expr, index: int, elem: CType) -> Expr:
        base = AddrOf(target, PointerType(elem))
        return Deref(PtrAdd(base, Const(LONG, index), PointerType(elem)), elem)

    def init_list(self, target: Expr, ctype: CType, items: list[c_ast.Node],
                  node: c_ast.Node) -> None:
        if isinstance(ctype, ArrayType):
            index = 0
            for item in items:
                last = index
                if isinstance(item, c_ast.NamedInitializer):
                    desig = item.name[0]
                    if len(item.name) != 1 or isinstance(desig, c_ast.ID):
                        raise self.unsupported("nested designator in an array initializer",
                                               item)
                    assert self.unit.resolver is not None
                    bounds = index_range(desig) or (desig, desig)
                    index, last = (self.unit.resolver.eval_int_constant(e) for e in bounds)
                    if last - index >= _MAX_RANGE:
                        raise self.unsupported(f"designator range of more than {_MAX_RANGE} "
                                               "elements", item)
                    item = item.expr
                if last > index and ctype.element.is_scalar and \
                        not isinstance(item, c_ast.InitList):
                    value = self.kept(self.rvalue(item), item)  # once for the whole range
                    for at in range(index, last + 1):
                        self.emit(Assign(self.element(target, at, ctype.element),
                                         self.convert(value, ctype.element), self.loc(item)))
                else:
                    for at in range(index, last + 1):
                        self.init_item(self.element(target, at, ctype.element),
                                       ctype.element, item, node)
                index = last + 1
            return
        assert isinstance(ctype, RecordType)
        members = [f for f in ctype.fields if f.name is not None or
                   isinstance(f.type, RecordType)]
        pos = 0
        nested = False  # the last item had a nested designator (`.inner.b = 3`)
        for item in items:
            if isinstance(item, c_ast.NamedInitializer):
                if not isinstance(item.name[0], c_ast.ID):
                    raise self.unsupported("array designator in a struct initializer", item)
                fname = item.name[0].name
                lv = self.member(target, fname, item)
                for designator in item.name[1:]:
                    lv = self.designated(lv, designator, item)
                self.init_item(lv, lv.type, item.expr, node)
                names = [f.name for f in members]
                pos = names.index(fname) + 1 if fname in names else pos
                nested = len(item.name) > 1
                continue
            if nested:  # C goes on inside the designated member: elided braces
                raise self.unsupported("initializer after a nested designator", item)
            if pos >= len(members):
                raise CtgenError("excess elements in initializer", self.loc(item))
            f = members[pos]
            self.init_item(Member(target, f, f.type), f.type, item, node)
            pos += 1
            if ctype.is_union:
                break

    def designated(self, target: Expr, designator: c_ast.Node, item: c_ast.Node) -> Expr:
        """The subobject of `target` one designator past the first names (`.b`, `[3]`)."""
        if isinstance(designator, c_ast.ID):
            return self.member(target, designator.name, item)
        ctype = target.type
        if not isinstance(ctype, ArrayType) or index_range(designator) is not None:
            raise self.unsupported("array designator in a nested designator", item)
        assert self.unit.resolver is not None
        index = self.unit.resolver.eval_int_constant(designator)
        if ctype.count is None or not 0 <= index < ctype.count:
            raise CtgenError(f"array index {index} in initializer exceeds array bounds",
                             self.loc(item))
        return self.element(target, index, ctype.element)

    def init_item(self, target: Expr, ctype: CType, item: c_ast.Node,
                  node: c_ast.Node) -> None:
        if isinstance(item, c_ast.InitList):
            if isinstance(ctype, (ArrayType, RecordType)):
                self.init_list(target, ctype, list(item.exprs), node)
            elif item.exprs:
                self.init_item(target, ctype, item.exprs[0], node)
            return
        if isinstance(ctype, ArrayType) and isinstance(item, c_ast.Constant) and \
                item.type == "string":
            self.initialize(target, ctype, item, node)
            return
        if isinstance(ctype, (ArrayType, RecordType)) and not (
                isinstance(ctype, RecordType) and self.is_record_valued(item)):
            raise self.unsupported("initializer with elided braces", item)
        value = self.rvalue(item)
        self.emit(Assign(target, value if isinstance(ctype, RecordType)
                         else self.convert(value, ctype), self.loc(item)))

    def is_record_valued(self, item: c_ast.Node) -> bool:
        try:
            return isinstance(self.type_of(item), RecordType)
        except CtgenError:
            return False


INT_CHAR = IntType("char", 1, 1, True, 1)
_BYTES = PointerType(UCHAR)  # pointer arithmetic in bytes


def _object_qualifiers(lv: Expr) -> tuple[bool, bool] | None:
    """Whether the object `lv` designates is const and whether it is volatile, when the
    lowering knows (not for a member, whose own qualifiers records do not keep)."""
    if isinstance(lv, VarRef):
        return lv.var.is_const, lv.var.is_volatile
    if isinstance(lv, Deref) and isinstance(lv.pointer.type, PointerType):
        return lv.pointer.type.target_const, lv.pointer.type.target_volatile
    if isinstance(lv, StringLit):
        return False, False
    return None


def _target_qualifiers_known(e: Expr) -> bool:
    """Whether the pointer value `e` points to a type whose qualifiers the lowering knows:
    a pointer object's declared type, a cast, the address of an object whose qualifiers
    are known, pointer arithmetic on one of these."""
    while isinstance(e, PtrAdd):
        e = e.pointer
    if isinstance(e, AddrOf):
        return isinstance(e.lvalue, FunctionRef) or _object_qualifiers(e.lvalue) is not None
    if isinstance(e, Load):
        return not (isinstance(e.lvalue, VarRef) and e.lvalue.var.name.startswith("ctgen."))
    return isinstance(e, (Cast, StringLit))


def _value_range(e: Expr) -> tuple[int, int]:
    """The values an integer expression of its (unpromoted) type can have."""
    width = _bitfield_width(e)
    t = e.type
    assert isinstance(t, IntType)
    if t.is_bool:
        return 0, 1
    if width is not None:
        return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if t.signed else (0, (1 << width) - 1)
    return t.min_value, t.max_value


def _bitfield_width(e: Expr) -> int | None:
    """The width of the bit-field `e` reads, if it reads one."""
    if isinstance(e, Load) and isinstance(e.lvalue, Member) and e.lvalue.field.is_bitfield:
        return e.lvalue.field.bit_width
    return None


class _StaticInitLowerer(_ExprLowerer):
    """Turns the initializer of a global into statements that set its initial contents."""

    def lower(self, var: Variable) -> list[Stmt]:
        assert var.init is not None
        self.initialize(VarRef(var, var.type), var.type, var.init, var.init)
        return self.cur.stmts

    def rvalue(self, node: c_ast.Node) -> Expr:
        # `?:`, `&&` and `||` of an arithmetic constant expression are folded, as gcc folds
        # the initializer: they are no branches (whose blocks these statements lack)
        if isinstance(node, c_ast.TernaryOp) or (
                isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||")):
            assert self.unit.resolver is not None
            try:
                value, ctype = self.unit.resolver.constant(node)
            except CtgenError:
                pass
            else:
                if ctype.is_arithmetic:
                    return Const(ctype, value)
        return super().rvalue(node)


class FunctionLowerer(_ExprLowerer):
    """Lowers one function definition to a CFG."""

    def __init__(self, unit: Unit, program: Program, fn: Function) -> None:
        super().__init__(unit)
        self.program = program
        self.fn = fn
        self.locals: list[Variable] = []
        self.static_locals: list[Variable] = []
        self.breaks: list[Block] = []
        self.continues: list[Block] = []
        self.switches: list[_SwitchContext] = []
        self.labels: dict[str, Block] = {}
        self.defined_labels: set[str] = set()
        self.local_labels = 0  # labels declared with `__label__` so far
        self.last_label_block: Block | None = None
        # a specification of an external function (`__rtt_extern()` in its body)
        self.is_spec = False
        self.top_annotations: set[int] = set()  # ids of the annotations at the body's top
        self.preconditions: list[Condition] = []
        self.postconditions: list[Condition] = []
        self.testcases: list[TestCaseSpec] = []
        self.asserts: list[Condition] = []
        self.result = None if isinstance(fn.type.result, VoidType) else Variable(
            "__rtt_return", fn.type.result, LOCAL, fn.location, "@")
        self.in_postcondition = False
        # `__rtt_initial(e)` (and test-case PREs): values taken on entry, with their C text
        self.initials: list[tuple[Variable, Expr, str]] = []
        self.spec_modifies: tuple[str, ...] | None = None
        self.modifies: tuple[str, ...] | None = None
        self.ghosts: list[Variable] = []  # `__rtt_aux` variables
        self.in_annotation = False  # lowering an annotation: ghosts may be used
        self.in_contract = False  # lowering a pre/postcondition or test case
        self.on_entry = False  # `__rtt_initial(e)` is `e` (a test case's PRE)
        self.entry_copies: dict[Variable, Variable] = {}  # parameter -> its value on entry
        self.harness_names: dict[int, str] = {}  # ids of nodes renamed for the harness
        self.variadic_area: Variable | None = None  # set by the first va_start

    @property
    def gcc_shapes(self) -> bool:
        return not self.in_annotation

    def lower(self) -> CFG:
        fn = self.fn
        assert fn.definition is not None
        top = fn.definition.body.block_items or []
        self.top_annotations = {id(item) for item in top if _annotation_kind(item)}
        self.is_spec = any(_annotation_kind(item) == "extern" for item in top)
        self.check_modelled(fn.type, fn.definition.decl)
        entry = self.cur
        for p in fn.params:
            self.scopes[-1][p.name] = p
        resolver = self.unit.resolver
        assert resolver is not None
        self.scopes.append({})
        resolver.push_scope()
        for p in fn.params:  # constant expressions (`sizeof p`) see them as C does
            resolver.declare_object(p.name, p.type)
        resolver.expression_type = self.operand_type  # `__typeof__` of the function's objects
        resolver.variable_length = self.variable_length
        try:
            self.parameter_lengths()
            self.statement(fn.definition.body)
        finally:
            resolver.expression_type = None
            resolver.variable_length = None
            resolver.pop_scope()
        loc = self.loc(fn.definition.body)
        end_loc = SourceLocation(loc.file, fn.end_line or loc.line, 0)
        self.terminate(Return(None, end_loc))  # falling off the end
        for name, b in self.labels.items():
            if name not in self.defined_labels:
                raise CtgenError(f"label '{name}' used but not defined", self.loc(
                    fn.definition))
        if not self.is_spec:
            entry.stmts[0:0] = self.entry_statements()
        blocks = self.reachable_blocks(entry)
        extra = list(self.entry_copies.values()) + [v for v, _, _ in self.initials]
        if self.result is not None and not self.is_spec:
            extra.append(self.result)
        return CFG(fn, blocks, entry, self.locals + self.temps + self.static_locals + extra,
                   fn.type.result, self.address_taken, self.variadic_area)

    def variadic_builtin(self, name: str, args: list[c_ast.Node], node: c_ast.Node
                         ) -> Expr | None:
        """A `va_list` is a pointer into the area of variadic arguments the caller passed
        (`variadic_arguments`): `va_start` points it at the first, `va_arg` reads the
        argument it points at and moves it to the next slot."""
        loc = self.loc(node)
        bytes_pointer = PointerType(UCHAR)
        if name == VA_ARG_MARKER:  # (&ap, sizeof(T)): the address of the argument to read
            ap = self.pinned_target(args[0], node)
            size = fold(self.rvalue(args[1]))
            if not isinstance(size, int):
                raise self.unsupported("va_arg of a variably modified type", node)
            current = self.kept(self.convert(Load(ap, ap.type), bytes_pointer), node)
            moved = PtrAdd(current, Const(LONG, _variadic_slot(size)), bytes_pointer)
            self.emit(Assign(ap, self.convert(moved, ap.type), loc))
            return current
        if name == "__builtin_va_end":
            self.effect(args[0])
            return None
        target = self.lvalue(args[0])
        if name == "__builtin_va_copy":
            self.emit(Assign(target, self.convert(self.rvalue(args[1]), target.type), loc))
            return None
        if not self.fn.type.variadic:  # va_start; its second argument is not evaluated
            raise CtgenError("va_start used in a function with fixed arguments", loc)
        if self.variadic_area is None:
            self.variadic_area = Variable("ctgen.va_area", bytes_pointer, PARAM,
                                          self.fn.location, "@")
        area = VarRef(self.variadic_area, bytes_pointer)
        self.emit(Assign(target, self.convert(Load(area, bytes_pointer), target.type), loc))
        return None

    def variable_length(self, dim: c_ast.Node) -> VariableLength:
        """The size expression of a variable length array's declarator, evaluated where the
        declarator is reached (the type resolver calls this)."""
        key = VariableLength(dim)
        self.lengths[key] = self.length(self.rvalue(dim), 1, dim)
        return key

    def parameter_lengths(self) -> None:
        """On entry, the size expressions of the parameters' array declarators are
        evaluated, one parameter after the other, as gcc does (C11 6.9.1p10): those that
        make a parameter's type variably modified (`int m[][n]`: a pointer to arrays of n)
        give its element counts, the inner ones first; the size of an array adjusted to a
        pointer (`int a[n]`) is evaluated only for what evaluating it does."""
        declarator = self.fn.definition.decl.type if self.fn.definition else None
        if not isinstance(declarator, c_ast.FuncDecl) or declarator.args is None:
            return
        params = [p for p in declarator.args.params if not isinstance(p, c_ast.EllipsisParam)]
        for param, var in zip(params, self.fn.params):
            keys: list[VariableLength] = []
            t = var.type
            while isinstance(t, (ArrayType, PointerType)):
                if isinstance(t, ArrayType) and t.length is not None:
                    keys.append(t.length)
                t = t.element if isinstance(t, ArrayType) else t.target
            for key in reversed(keys):
                self.lengths[key] = self.length(self.parameter_size(key.expression), 1,
                                                param)
            if isinstance(param.type, c_ast.ArrayDecl) and param.type.dim is not None:
                assert self.unit.resolver is not None
                try:
                    self.unit.resolver.eval_int_constant(param.type.dim)
                except CtgenError:
                    self.kept(self.parameter_size(param.type.dim), param.type.dim)

    def parameter_size(self, dim: object) -> Expr:
        """A size expression of a parameter's array declarator, for its value."""
        assert isinstance(dim, c_ast.Node)
        if isinstance(dim, c_ast.ID) and dim.name == "*":
            raise self.unsupported("'[*]' outside a function prototype", dim)
        return self.rvalue(dim)

    def entry_statements(self) -> list[Stmt]:
        """What a function under test does first for its annotations: keep the parameters'
        values on entry and take the `__rtt_initial` values."""
        loc = self.fn.location
        stmts: list[Stmt] = [Assign(VarRef(copy, copy.type), Load(VarRef(p, p.type), p.type),
                                    loc) for p, copy in self.entry_copies.items()]
        stmts += [Assign(VarRef(var, var.type), value, loc) for var, value, _ in self.initials]
        return stmts

    def reachable_blocks(self, entry: Block) -> list[Block]:
        seen = {entry.id}
        order = [entry]
        stack = [entry]
        while stack:
            b = stack.pop()
            assert b.terminator is not None, f"block {b.id} has no terminator"
            for s in b.terminator.successors():
                if s.id not in seen:
                    seen.add(s.id)
                    order.append(s)
                    stack.append(s)
        order.sort(key=lambda b: b.id)
        for new_id, b in enumerate(order):
            b.id = new_id
        return order

    # --------------------------------------------------------------- statements

    def statement(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        kind = _annotation_kind(node)
        if kind is not None:
            self.annotation(kind, node)
            return
        for item in node.decls if isinstance(node, c_ast.DeclList) else (node,):
            flagged = self.unit.flagged.get(id(item))
            if flagged is not None:  # a construct the parser dropped (frontend/parse.py)
                raise flagged
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is not None:
            method(node)
        else:
            self.effect(node)

    def lookup(self, name: str, node: c_ast.Node) -> object:
        target = super().lookup(name, node)
        if not isinstance(target, Variable):
            return target
        if target in self.ghosts:
            if not self.in_annotation:
                raise AnnotationError(f"auxiliary variable '{name}' belongs in annotations "
                                      f"only: the code of the function cannot use it",
                                      self.loc(node))
            if self.on_entry:
                raise AnnotationError(f"auxiliary variable '{name}' has no value on entry",
                                      self.loc(node))
            self.harness_names[id(node)] = f"(*ctgen_aux_{name})"
            return target
        if self.in_contract and not self.is_spec and target.kind == LOCAL:
            if target in self.fn.params:
                if self.on_entry or not self.in_postcondition:
                    return target
                copy = self.entry_copies.get(target)
                if copy is None:
                    copy = Variable(f"{target.name}@entry", target.type, LOCAL,
                                    target.location, "@")
                    self.entry_copies[target] = copy
                return copy
            if name != _RETURN_ID and target is not self.result:
                raise AnnotationError(
                    f"'{name}' is a local variable: pre- and postconditions and test cases "
                    f"name parameters, globals, __rtt_return and auxiliary variables",
                    self.loc(node))
        return target

    def annotation(self, kind: str, node: c_ast.Node) -> None:
        """Record an annotation of the function (see c_harness/ctgen.h)."""
        if kind in _TOP_LEVEL_ONLY and id(node) not in self.top_annotations:
            what = "__rtt_extern()" if kind == "extern" else f"__rtt_{kind}"
            raise AnnotationError(f"{what} belongs at the top level of the function's body",
                                  self.loc(node))
        if kind == "aux":
            self.aux(node)
            return
        assert isinstance(node, c_ast.FuncCall)
        args = node.args.exprs if node.args is not None else []
        if kind == "modifies":
            names = []
            for arg in args:
                target = self.lookup(arg.name, arg) if isinstance(arg, c_ast.ID) else None
                if not isinstance(target, Variable) or target.kind != GLOBAL:
                    raise AnnotationError("__rtt_modifies names a global variable",
                                          self.loc(arg))
                names.append(target.name)
            if self.is_spec:
                self.spec_modifies = (self.spec_modifies or ()) + tuple(names)
            else:
                self.modifies = (self.modifies or ()) + tuple(names)
            return
        if kind == "extern":
            if args:
                raise AnnotationError("__rtt_extern() takes no arguments: it marks the "
                                      "function whose body it is in", self.loc(node))
            return
        if kind in ("precondition", "postcondition", "assert"):
            if len(args) != 1:
                raise AnnotationError(f"__rtt_{kind} takes one condition", self.loc(node))
            if kind == "assert" and self.is_spec:
                raise AnnotationError("__rtt_assert belongs in a function under test, not "
                                      "in a specification", self.loc(node))
            cond = self.annotation_condition(args[0], post=kind == "postcondition",
                                  contract=kind != "assert")
            {"precondition": self.preconditions, "postcondition": self.postconditions,
             "assert": self.asserts}[kind].append(cond)
            if kind != "postcondition" and not self.is_spec:
                self.emit(Check(kind, cond.expr, cond.text, cond.location))
            return
        if kind == "testcase":
            self.testcase(node, args)
            return
        if kind == "assign":
            self.assign_ghost(node, args)
            return
        if kind in ("initial", "return"):
            raise AnnotationError(f"__rtt_{kind} belongs inside a postcondition",
                                  self.loc(node))
        raise AnnotationError(f"unknown annotation '__rtt_{kind}'", self.loc(node))

    def testcase(self, node: c_ast.FuncCall, args: list[c_ast.Node]) -> None:
        """`__rtt_testcase(PRE, POST, "REQ-1, REQ-2")`."""
        if self.is_spec:
            raise AnnotationError("__rtt_testcase belongs in a function under test, not in "
                                  "a specification", self.loc(node))
        if len(args) != 3:
            raise AnnotationError("__rtt_testcase takes a pre, a post and a string of "
                                  "requirement ids: __rtt_testcase(PRE, POST, \"REQ-1\")",
                                  self.loc(node))
        reqs = args[2]
        if not (isinstance(reqs, c_ast.Constant) and reqs.type == "string"):
            raise AnnotationError("the third argument of __rtt_testcase is a string of "
                                  "comma-separated requirement ids", self.loc(reqs))
        text = "".join(chr(c) for c in parse_string_literal(reqs.value)).rstrip("\0")
        ids = tuple(r.strip() for r in text.split(","))
        if not text.strip() or any(not r or any(ch.isspace() for ch in r) for r in ids):
            raise AnnotationError(f"malformed requirement ids {reqs.value}: write them "
                                  f"comma-separated, e.g. \"REQ-1, REQ-2\"", self.loc(reqs))
        self.on_entry = True
        try:
            pre = self.annotation_condition(args[0], post=False, contract=True)
        finally:
            self.on_entry = False
        entered = Variable(f"__rtt_initial#{len(self.initials)}", INT, LOCAL, pre.location, "@")
        self.initials.append((entered, pre.expr, pre.check_text))
        post = self.annotation_condition(args[1], post=True, contract=True)
        self.testcases.append(TestCaseSpec(pre, entered, post, ids, self.loc(node)))

    def aux(self, node: c_ast.Decl) -> None:
        """`__rtt_aux(T, name)`: a ghost variable, zero on entry."""
        if self.is_spec:
            raise AnnotationError("__rtt_aux belongs in a function under test",
                                  self.loc(node))
        ctype = self.resolve_type(node.type)
        if not ctype.is_scalar:
            raise AnnotationError("an auxiliary variable has a scalar type", self.loc(node))
        assert self.unit.resolver is not None
        var = Variable(node.name, ctype, LOCAL, self.loc(node),
                       self.unit.resolver.declaration_template(node))
        self.scopes[-1][node.name] = var
        self.ghosts.append(var)
        self.locals.append(var)
        self.emit(Assign(VarRef(var, ctype), self.convert(Const(INT, 0), ctype),
                         self.loc(node)))

    def assign_ghost(self, node: c_ast.FuncCall, args: list[c_ast.Node]) -> None:
        """`__rtt_assign(aux = e)` (or `aux += e`, `aux++`, ...)."""
        if len(args) != 1:
            raise AnnotationError("__rtt_assign takes one assignment", self.loc(node))
        arg = args[0]
        if isinstance(arg, c_ast.Assignment):
            target_node, rhs = arg.lvalue, arg.rvalue
            if arg.op != "=":
                rhs = c_ast.BinaryOp(arg.op[:-1], arg.lvalue, arg.rvalue, arg.coord)
        elif isinstance(arg, c_ast.UnaryOp) and arg.op in ("++", "--", "p++", "p--"):
            target_node = arg.expr
            rhs = c_ast.BinaryOp(arg.op[-1], arg.expr, c_ast.Constant("int", "1"), arg.coord)
        else:
            raise AnnotationError("__rtt_assign takes an assignment to an auxiliary variable",
                                  self.loc(arg))
        if not isinstance(target_node, c_ast.ID):
            raise AnnotationError("__rtt_assign assigns an auxiliary variable",
                                  self.loc(target_node))
        self.in_annotation = True
        try:
            target = self.lookup(target_node.name, target_node)
            if target not in self.ghosts:
                raise AnnotationError(f"__rtt_assign assigns auxiliary variables only, not "
                                      f"'{target_node.name}'", self.loc(target_node))
            assert isinstance(target, Variable)
            value = self.side_effect_free(rhs)
        finally:
            self.in_annotation = False
        self.emit(Assign(VarRef(target, target.type), self.convert(value, target.type),
                         self.loc(node)))

    def side_effect_free(self, node: c_ast.Node) -> Expr:
        """`node`'s value, which must not call, assign or branch."""
        saved, blocks, temps = self.cur, len(self.blocks), len(self.temps)
        self.cur = Block(-1)
        try:
            e = self.pure(node)
            if self.cur.stmts or len(self.blocks) != blocks or len(self.temps) != temps:
                raise AnnotationError("an annotation cannot call functions or assign",
                                      self.loc(node))
        except AnnotationError:
            raise
        except CtgenError as err:
            message = err.message
            if _RETURN_ID in message:
                message = ("__rtt_return belongs in the postcondition of a function that "
                           "returns a value")
            raise AnnotationError(message, err.location or self.loc(node)) from None
        finally:
            self.cur = saved
        return e

    # ----------------------------------------------------- specification conditions

    def spec(self, cfg: CFG) -> StubSpec:
        """The specification this function's body states (after `lower`)."""
        return StubSpec(self.fn.name, self.fn.location, cfg, tuple(self.preconditions),
                        tuple(self.postconditions), self.result,
                        tuple((var, value) for var, value, _ in self.initials),
                        self.spec_modifies)

    def contract(self) -> FunctionContract:
        """What the annotations of this function under test state (after `lower`)."""
        return FunctionContract(
            tuple(self.preconditions), tuple(self.postconditions), tuple(self.testcases),
            tuple(self.asserts), self.result if self.postconditions or self.testcases
            else None, tuple(self.initials), tuple(self.ghosts), self.modifies)

    def annotation_condition(self, node: c_ast.Node, post: bool, contract: bool
                             ) -> Condition:
        """An annotation's condition as one side-effect-free truth value. In a `contract`
        condition (pre, post, test case) locals other than auxiliary variables are not
        in scope, and in a postcondition the parameters stand for their values on entry."""
        self.scopes.append({_RETURN_ID: self.result} if post and self.result else {})
        self.in_postcondition, self.in_annotation, self.in_contract = post, True, contract
        try:
            e = self.truth(self.side_effect_free(node))
        except CtgenError as err:
            if isinstance(err, AnnotationError):
                raise
            raise AnnotationError(err.message, err.location or self.loc(node)) from None
        finally:
            self.scopes.pop()
            self.in_postcondition = self.in_annotation = self.in_contract = False
        text = re.sub(rf"\b{ANNOTATION_PREFIX}", USER_PREFIX,
                      c_generator.CGenerator().visit(node))
        return Condition(e, text, self.loc(node), _HarnessText(self.harness_names).visit(node))

    def pure(self, node: c_ast.Node) -> Expr:
        """`node` for its value with `&&`, `||`, `!` and `?:` kept as expressions."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            return Logical(node.op, self.truth(self.pure(node.left)),
                           self.truth(self.pure(node.right)), INT)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return Unary("!", self.truth(self.pure(node.expr)), INT)
        if isinstance(node, c_ast.TernaryOp):
            cond = self.truth(self.pure(node.cond))
            a, b = self.pure(node.iftrue), self.pure(node.iffalse)
            if not (a.type.is_arithmetic and b.type.is_arithmetic):
                raise self.unsupported("?: of non-arithmetic values in an annotation", node)
            rtype = usual_arithmetic_conversion(a.type, b.type)
            return Select(cond, self.convert(a, rtype), self.convert(b, rtype), rtype)
        return self.rvalue(node)

    def expr(self, node: c_ast.Node) -> Expr:
        if self.in_annotation and (
                isinstance(node, c_ast.TernaryOp) or
                (isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"))):
            return self.pure(node)  # inside an annotation, these do not branch
        return super().expr(node)

    def call(self, node: c_ast.FuncCall, value_used: bool) -> Expr | None:
        if isinstance(node.name, c_ast.ID) and node.name.name == _INITIAL_ID:
            return self.initial(node)
        return super().call(node, value_used)

    def initial(self, node: c_ast.FuncCall) -> Expr:
        """`__rtt_initial(e)`: a variable holding `e` as it was when the function was
        entered (for a stub: before the call); in a test case's PRE, `e` itself."""
        if not (self.in_postcondition or self.on_entry):
            raise AnnotationError("__rtt_initial belongs inside a postcondition or a test "
                                  "case", self.loc(node))
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            raise AnnotationError("__rtt_initial takes one expression", self.loc(node))
        if self.on_entry:
            value = self.pure(args[0])
            self.harness_names[id(node)] = f"({_HarnessText(self.harness_names).visit(args[0])})"
            return value
        self.in_postcondition, self.on_entry = False, True
        try:
            value = self.pure(args[0])
        finally:
            self.in_postcondition, self.on_entry = True, False
        name = f"ctgen_initial_{len(self.initials)}"
        var = Variable(f"__rtt_initial#{len(self.initials)}",
                       value.type, LOCAL, self.loc(node), "@")
        self.initials.append((var, value, _HarnessText(self.harness_names).visit(args[0])))
        self.harness_names[id(node)] = name
        return Load(VarRef(var, value.type), value.type)

    def stmt_Compound(self, node: c_ast.Compound) -> None:
        self.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            for item in node.block_items or []:
                self.statement(item)
        finally:
            self.unit.resolver.pop_scope()
            self.scopes.pop()

    def stmt_EmptyStatement(self, node: c_ast.Node) -> None:
        pass

    def stmt_Pragma(self, node: c_ast.Node) -> None:
        pass

    def stmt_StaticAssert(self, node: c_ast.Node) -> None:
        pass

    def stmt_Typedef(self, node: c_ast.Typedef) -> None:
        assert self.unit.resolver is not None
        self.unit.resolver.declare_typedef(node.name, self.resolve_type(node.type))

    def stmt_DeclList(self, node: c_ast.DeclList) -> None:
        for d in node.decls:
            self.stmt_Decl(d)

    def stmt_Decl(self, node: c_ast.Decl) -> None:
        if node.name is None:
            self.resolve_type(node.type)  # a struct/union/enum declaration
            return
        if isinstance(node.type, c_ast.FuncDecl):
            return  # a block-scope function declaration; calls resolve by name
        storage = node.storage or []
        assert self.unit.resolver is not None
        if "extern" in storage:
            g = self.unit.globals.get(node.name)
            if g is None:
                raise self.unsupported(f"block-scope extern '{node.name}'", node)
            self.scopes[-1][node.name] = g
            self.unit.resolver.declare_object(node.name, g.type)
            return
        ctype = self.unit.resolver.declared_type(node)
        variable_size = has_variable_size(ctype)
        if isinstance(ctype, ArrayType) and ctype.count is None and not variable_size:
            raise self.unsupported("array of unknown size", node)
        if variable_size and ("static" in storage or node.init is not None):
            raise CtgenError(f"variable length array '{node.name}' cannot be "
                             f"{'static' if 'static' in storage else 'initialized'}",
                             self.loc(node))
        quals = node.quals or []
        var = Variable(
            node.name, ctype, STATIC_LOCAL if "static" in storage else LOCAL, self.loc(node),
            self.unit.resolver.declaration_template(node, ctype=ctype),
            is_const="const" in quals, is_volatile="volatile" in quals, init=node.init)
        self.scopes[-1][node.name] = var
        self.unit.resolver.declare_object(node.name, ctype)  # for constant expressions
        if isinstance(ctype, (ArrayType, RecordType)):
            self.address_taken.add(var)
        if variable_size:  # its object is made here, of the size evaluated now
            self.locals.append(var)
            self.emit(Init(var, self.loc(node), self.size_expr(ctype, node)))
            return
        if var.kind == STATIC_LOCAL:
            self.static_locals.append(var)
            if node.init is not None:
                saved = self.cur
                self.cur = Block(-1)
                self.initialize(VarRef(var, ctype), ctype, node.init, node)
                self.program.static_inits[var] = self.cur.stmts
                self.cur = saved
            return
        self.locals.append(var)
        if node.init is None:
            self.emit(Init(var, self.loc(node)))
        else:
            self.initialize(VarRef(var, ctype), ctype, node.init, node)

    def stmt_Return(self, node: c_ast.Return) -> None:
        value = None
        if node.expr is not None:
            v = self.rvalue(node.expr)
            if not isinstance(self.fn.type.result, VoidType):
                value = self.convert(v, self.fn.type.result)
        self.terminate(Return(value, self.loc(node)))

    def stmt_If(self, node: c_ast.If) -> None:
        then_b, join = self.new_block(), self.new_block()
        else_b = self.new_block() if node.iffalse is not None else join
        self.condition(node.cond, then_b, else_b)
        self.cur = then_b
        self.statement(node.iftrue)
        self.goto(join, node)
        if node.iffalse is not None:
            self.cur = else_b
            self.statement(node.iffalse)
            self.goto(join, node)
        self.cur = join

    def loop(self, head: Block, cond: c_ast.Node | None, body: c_ast.Node | None,
             cont: Block, exit_b: Block, node: c_ast.Node) -> None:
        body_b = self.new_block()
        self.cur = head
        if cond is None:
            self.goto(body_b, node)
        else:
            self.condition(cond, body_b, exit_b)
        self.cur = body_b
        self.breaks.append(exit_b)
        self.continues.append(cont)
        self.statement(body)
        self.breaks.pop()
        self.continues.pop()
        self.goto(cont, node)

    def stmt_While(self, node: c_ast.While) -> None:
        head, exit_b = self.new_block(), self.new_block()
        self.goto(head, node)
        self.loop(head, node.cond, node.stmt, head, exit_b, node)
        self.cur = exit_b

    def stmt_DoWhile(self, node: c_ast.DoWhile) -> None:
        body_b, cond_b, exit_b = self.new_block(), self.new_block(), self.new_block()
        self.goto(body_b, node)
        self.cur = body_b
        self.breaks.append(exit_b)
        self.continues.append(cond_b)
        self.statement(node.stmt)
        self.breaks.pop()
        self.continues.pop()
        self.goto(cond_b, node)
        self.cur = cond_b
        self.condition(node.cond, body_b, exit_b)
        self.cur = exit_b

    def stmt_For(self, node: c_ast.For) -> None:
        self.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            if node.init is not None:
                if isinstance(node.init, (c_ast.DeclList, c_ast.Decl)):
                    self.statement(node.init)
                else:
                    self.effect(node.init)
            head, next_b, exit_b = self.new_block(), self.new_block(), self.new_block()
            self.goto(head, node)
            self.loop(head, node.cond, node.stmt, next_b, exit_b, node)
            self.cur = next_b
            if node.next is not None:
                self.effect(node.next)
            self.goto(head, node)
            self.cur = exit_b
        finally:
            self.unit.resolver.pop_scope()
            self.scopes.pop()

    def stmt_Break(self, node: c_ast.Break) -> None:
        if not self.breaks:
            raise CtgenError("break outside a loop or switch", self.loc(node))
        self.goto(self.breaks[-1], node)

    def stmt_Continue(self, node: c_ast.Continue) -> None:
        if not self.continues:
            raise CtgenError("continue outside a loop", self.loc(node))
        self.goto(self.continues[-1], node)

    def label_block(self, name: str) -> Block:
        if name not in self.labels:
            self.labels[name] = self.new_block()
        return self.labels[name]

    def label_name(self, name: str) -> str:
        """The label `name` names here: one declared with `__label__` in an enclosing
        block (a name of its own, "name#n"), else the function's label."""
        for scope in reversed(self.scopes):
            local = scope.get(_LABEL_KEY + name)
            if isinstance(local, str):
                return local
        return name

    def stmt_LocalLabels(self, node: LocalLabels) -> None:
        """GNU `__label__ a;`: labels `a` of this block are not those of other blocks
        (a macro's statement expression used twice has two)."""
        for name in node.names:
            self.local_labels += 1
            self.scopes[-1][_LABEL_KEY + name] = f"{name}#{self.local_labels}"

    def stmt_Label(self, node: c_ast.Label) -> None:
        name = self.label_name(node.name)
        b = self.label_block(name)
        self.defined_labels.add(name)
        self.goto(b, node)
        self.cur = b
        self.statement(node.stmt)

    def stmt_Goto(self, node: c_ast.Goto) -> None:
        self.goto(self.label_block(self.label_name(node.name)), node)

    def stmt_ComputedGoto(self, node: ComputedGoto) -> None:
        raise self.unsupported("computed goto ('goto *')", node)

    def stmt_FuncDef(self, node: c_ast.FuncDef) -> None:
        raise self.unsupported(f"nested function '{node.decl.name}'", node.decl)

    def stmt_Switch(self, node: c_ast.Switch) -> None:
        original = self.rvalue(node.cond)
        value = self.promote(original)
        if not isinstance(value.type, IntType):
            raise CtgenError("switch on a non-integer", self.loc(node))
        head = self.cur
        exit_b = self.new_block()
        ctx = _SwitchContext(value.type)
        self.switches.append(ctx)
        self.breaks.append(exit_b)
        self.cur = self.new_block()  # code before the first label is unreachable
        self.statement(node.stmt)
        self.breaks.pop()
        self.switches.pop()
        self.goto(exit_b, node)
        groups: dict[int, list[int]] = {}
        blocks: dict[int, Block] = {}
        seen: set[int] = set()
        # gcc drops labels the unpromoted controlling type cannot hold
        lo, hi = _value_range(original)
        for v, b in ctx.cases:
            if v in seen:
                raise CtgenError(f"duplicate case value {v}", self.loc(node))
            seen.add(v)
            if not lo <= v <= hi:
                continue
            if ctx.default is not None and b is ctx.default:
                continue  # a case sharing the default's label is the default outcome
            groups.setdefault(b.id, []).append(v)
            blocks[b.id] = b
        cases = [(tuple(vs), blocks[bid]) for bid, vs in groups.items()]
        default = ctx.default if ctx.default is not None else exit_b
        if cases and ctx.default is None and hi - lo < 1 << 16 and \
                len(seen & set(range(lo, hi + 1))) == hi - lo + 1:
            # every value has a label: the last target is default (gcc keeps the outcome
            # of a default label, never taken)
            _, default = cases.pop()
        saved = self.cur
        self.cur = head
        const = fold(value)
        if not cases:
            self.goto(default, node)
        elif const is not None:
            target = next((b for vs, b in cases if const in vs), default)
            self.goto(target, node)
        else:
            self.terminate(Switch(value, cases, default, ctx.default is not None,
                                  self.loc(node)))
        self.cur = saved
        self.cur = exit_b

    def label_target(self) -> Block:
        """The block a case or default label starts: consecutive labels share one."""
        if self.cur is self.last_label_block and not self.cur.stmts:
            return self.cur
        b = self.new_block()
        self.goto(b, None)
        self.cur = b
        self.last_label_block = b
        return b

    def stmt_Case(self, node: c_ast.Case) -> None:
        if not self.switches:
            raise CtgenError("case label outside a switch", self.loc(node))
        ctx = self.switches[-1]
        b = self.label_target()
        bounds = case_range(node)
        low, high = (self.case_value(e, ctx.type) for e in bounds or (node.expr, node.expr))
        if high - low >= _MAX_RANGE:
            raise self.unsupported(f"case range of more than {_MAX_RANGE} values", node)
        ctx.cases.extend((value, b) for value in range(low, high + 1))  # empty if low > high
        for s in node.stmts or []:
            self.statement(s)

    def case_value(self, expr: c_ast.Node, ctype: CType) -> int:
        value = fold(self.convert(self.rvalue(expr), ctype))
        if not isinstance(value, int):
            raise CtgenError("case label is not an integer constant", self.loc(expr))
        return value

    def stmt_Default(self, node: c_ast.Default) -> None:
        if not self.switches:
            raise CtgenError("default label outside a switch", self.loc(node))
        ctx = self.switches[-1]
        b = self.label_target()
        ctx.default = b
        for s in node.stmts or []:
            self.statement(s)

