"""Lowering of pycparser function bodies to CFGs of typed statements: the driver.

Every implicit conversion becomes a `Cast`; side effects become statements; `&&`, `||` and
`?:` become branches, and so do the value-context truth values gcc -O0 computes with
jumps (ir/gccfold.py), while the conditionals gcc folds away do not: each conditional
terminator of the CFG is a branch gcc emits at -O0 and each of its edges is a gcov branch
outcome.

`lower_unit` lowers a unit into a `Program`; a `FunctionLowerer` lowers one function
definition with cooperating parts, each owning one concern:

- ir/builder.py: `CfgBuilder`, the blocks and objects of the CFG under construction;
- ir/lower_expr.py: `ExpressionLowerer`, expressions and the names in scope;
- ir/lower_operators.py: the arithmetic, bitwise and comparison operators;
- ir/lower_types.py: types of unevaluated operands, sizes of variable length arrays;
- ir/lower_cond.py and ir/lookahead.py: conditions, `&&`, `||`, `?:`, gcc's folds;
- ir/lower_call.py and ir/lower_builtin.py: calls and gcc's builtins;
- ir/lower_init.py: initializers (also those of globals, `lower_static_init`);
- ir/lower_stmt.py: statements and control flow;
- ir/lower_contract.py: annotations, the function's contract or stub specification.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..errors import CtgenError, SourceLocation
from ..frontend.initializers import flexible_storage
from ..frontend.unit import Function, Unit, Variable
from .builder import CfgBuilder
from .cfg import CFG, Call, Loop, Return, Stmt
from .condition_map import ConditionRecorder
from .expr import VarRef, designated_functions
from .lower_contract import ContractLowerer
from .lower_expr import ExpressionLowerer
from .lower_stmt import StatementLowerer
from .spec import FunctionContract, StubSpec
from .written_globals import written_globals


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
    # the bytes of the globals whose initializer gives them more than their type's size
    # (elements of a flexible array member: initializers.flexible_storage)
    storage: dict[Variable, int] = field(default_factory=dict)
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

    @functools.cached_property
    def written_globals(self) -> frozenset[Variable]:
        """The globals the unit's own code may write (ir/written_globals.py)."""
        bodies = [s for cfg in self.cfgs.values() for b in cfg.blocks
                  for s in [*b.stmts, b.terminator]]
        initializers = [s for inits in self.static_inits.values() for s in inits]
        return written_globals(self.unit, bodies, initializers, self.cfgs)

    def called_functions(self, function: str) -> set[str]:
        """The functions of the unit with a CFG that `function` calls, directly or not, by
        name (through function pointers not followed), without `function` itself."""
        seen: set[str] = set()
        todo = [function]
        while todo:
            for block in self.cfgs[todo.pop()].blocks:
                for stmt in block.stmts:
                    name = stmt.function if isinstance(stmt, Call) else ""
                    if name and name not in seen and name != function and name in self.cfgs:
                        seen.add(name)
                        todo.append(name)
        return seen

    def globals_written_by(self, function: str) -> frozenset[Variable]:
        """The globals `function` and the functions it calls may write
        (ir/written_globals.py: also those whose address escapes there)."""
        bodies = [s for name in {function, *self.called_functions(function)}
                  for b in self.cfgs[name].blocks for s in [*b.stmts, b.terminator]]
        return written_globals(self.unit, bodies, (), self.unit.functions)


def lower_unit(unit: Unit) -> Program:
    """Lower every defined function of `unit`; unsupported constructs are recorded per function."""
    program = Program(unit)
    for var in unit.globals.values():
        if var.init is not None:
            try:
                size = _storage(unit, var)
                program.static_inits[var], literals = lower_static_init(unit, var)
                program.static_inits.update(literals)
                if size != var.type.size:
                    program.storage[var] = size
            except CtgenError as err:
                program.init_failures[var] = err
    for fn in unit.defined_functions():
        try:
            lowerer = FunctionLowerer(unit, program, fn)
            cfg = lowerer.lower()
            if lowerer.contracts.is_spec:
                program.specs[fn.name] = lowerer.contracts.spec(cfg)
                continue
            program.cfgs[fn.name] = cfg
            program.static_locals[fn.name] = lowerer.builder.static_locals
            contract = lowerer.contracts.contract()
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


def _storage(unit: Unit, var: Variable) -> int:
    """The bytes gcc gives the initialized global `var` (initializers.flexible_storage)."""
    resolver = unit.resolver
    assert resolver is not None and var.init is not None
    return flexible_storage(var.type, var.init, resolver.eval_int_constant,
                            resolver.expression_type_of)


def lower_static_init(unit: Unit, var: Variable) -> tuple[list[Stmt],
                                                          dict[Variable, list[Stmt]]]:
    """The statements that give the global `var` its initial contents (of its initializer),
    and those of the objects of the compound literals in it (`int *p = (int[]){1, 2};`)."""
    assert var.init is not None
    exprs = ExpressionLowerer(unit, CfgBuilder(unit), None)
    exprs.initializers.initialize(VarRef(var, var.type), var.type, var.init, var.init)
    return exprs.builder.cur.stmts, exprs.static_literals


class FunctionLowerer:
    """Lowers one function definition to a CFG."""

    def __init__(self, unit: Unit, program: Program, fn: Function) -> None:
        self.unit = unit
        self.fn = fn
        self.builder = CfgBuilder(unit)
        self.exprs = ExpressionLowerer(unit, self.builder, fn)
        self.contracts = ContractLowerer(self.exprs, fn)
        self.statements = StatementLowerer(self.exprs, self.contracts, program.static_inits)
        self.exprs.contracts = self.contracts
        self.exprs.statements = self.statements

    def lower(self) -> CFG:
        fn = self.fn
        assert fn.definition is not None
        self.exprs.check_modelled(fn.type, fn.definition.decl)
        entry = self.builder.cur
        for p in fn.params:
            self.exprs.scopes[-1][p.name] = p
        resolver = self.unit.resolver
        assert resolver is not None
        self.exprs.scopes.append({})
        resolver.push_scope()
        for p in fn.params:  # constant expressions (`sizeof p`) see them as C does
            resolver.declare_object(p.name, p.type)
        # `__typeof__` of the function's objects
        resolver.expression_type = self.exprs.types.operand_type
        resolver.variable_length = self.exprs.types.variable_length
        self.builder.conditions = ConditionRecorder(fn.definition, str(self.unit.path))
        try:
            declared = self.exprs.types.parameter_lengths(fn)
            self.statements.statement(fn.definition.body)
        finally:
            resolver.expression_type = None
            resolver.variable_length = None
            resolver.pop_scope()
        loc = self.builder.loc(fn.definition.body)
        end_loc = SourceLocation(loc.file, fn.end_line or loc.line, 0)
        self.builder.terminate(Return(None, end_loc))  # falling off the end
        self.statements.check_labels(fn.definition)
        if not self.contracts.is_spec:
            entry.stmts[0:0] = self.contracts.entry_statements()
        blocks = self.builder.reachable_blocks(entry)
        b = self.builder
        kept = {id(block) for block in blocks}
        loops = {body.id: Loop(b.loc(node), conditional)
                 for body, node, conditional in b.loops if id(body) in kept}
        return CFG(fn, blocks, entry,
                   b.locals + b.temps + b.static_locals + self.contracts.variables(),
                   fn.type.result, b.address_taken, self.exprs.calls.builtins.variadic_area,
                   b.conditions.finish(blocks) if b.conditions is not None else None,
                   loops, declared)

