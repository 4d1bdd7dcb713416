"""Lowering of statements and control flow: `StatementLowerer` lowers the statements of
a function body (one `stmt_<Node>` method per node kind): declarations, `if`, loops,
`switch`, labels and `goto`, `break`, `continue`, `return`, and GNU statement expressions.
Annotations among them go to the ContractLowerer (ir/lower_contract.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pycparser import c_ast

from ..errors import CtgenError
from ..frontend.ctype import INT, ArrayType, CType, IntType, RecordType, VoidType, has_variable_size
from ..frontend.gnu_ast import ComputedGoto, LocalLabels, case_range
from ..frontend.unit import LOCAL, STATIC_LOCAL, Function, Variable
from .cfg import Block, Init, Return, Stmt, Switch
from .constants import fold
from .expr import Const, Expr, VarRef, value_range
from .lower_contract import annotation_kind
from .lower_init import MAX_RANGE

if TYPE_CHECKING:
    from .lower_contract import ContractLowerer
    from .lower_expr import ExpressionLowerer

# where a block's scope holds the labels it declares local (`__label__`): no identifier
# starts with a space
_LABEL_KEY = " label "


@dataclass
class _SwitchContext:
    type: CType
    cases: list[tuple[int, Block]] = field(default_factory=list)
    default: Block | None = None


class StatementLowerer:
    """The statements of one function body."""

    def __init__(self, exprs: ExpressionLowerer, contracts: ContractLowerer,
                 static_inits: dict[Variable, list[Stmt]]) -> None:
        assert exprs.function is not None
        self.exprs = exprs
        self.builder = exprs.builder
        self.conditions = exprs.conditions
        self.initializers = exprs.initializers
        self.contracts = contracts
        self.unit = exprs.unit
        self.fn: Function = exprs.function
        # the program's: the statements that initialize a static local go there
        self.static_inits = static_inits
        self.breaks: list[Block] = []
        self.continues: list[Block] = []
        self.switches: list[_SwitchContext] = []
        self.labels: dict[str, Block] = {}
        self.defined_labels: set[str] = set()
        self.local_labels = 0  # labels declared with `__label__` so far
        self.last_label_block: Block | None = None

    def statement(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        kind = annotation_kind(node)
        if kind is not None:
            self.contracts.annotation(kind, node)
            return
        for item in node.decls if isinstance(node, c_ast.DeclList) else (node,):
            flagged = self.unit.flagged.get(id(item))
            if flagged is not None:  # a construct the parser dropped (frontend/parse.py)
                raise flagged
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is not None:
            method(node)
        else:
            self.exprs.effect(node)

    def stmt_Compound(self, node: c_ast.Compound) -> None:
        self.exprs.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            for item in node.block_items or []:
                self.statement(item)
        finally:
            self.unit.resolver.pop_scope()
            self.exprs.scopes.pop()

    def statement_expression(self, node: c_ast.Compound) -> Expr:
        """A GNU statement expression `({ ...; e; })`: its value is that of its last
        statement, an expression (glibc's assert and many MIN/MAX macros use them)."""
        items = node.block_items or []
        self.exprs.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            for item in items[:-1]:
                self.statement(item)
            last = items[-1] if items else None
            if last is None or hasattr(self, f"stmt_{type(last).__name__}"):
                self.statement(last)
                return Const(INT, 0)  # a statement expression of type void
            return self.exprs.rvalue(last)
        finally:
            self.unit.resolver.pop_scope()
            self.exprs.scopes.pop()

    def stmt_EmptyStatement(self, node: c_ast.Node) -> None:
        pass

    def stmt_Pragma(self, node: c_ast.Node) -> None:
        pass

    def stmt_StaticAssert(self, node: c_ast.Node) -> None:
        pass

    def stmt_Typedef(self, node: c_ast.Typedef) -> None:
        assert self.unit.resolver is not None
        self.unit.resolver.declare_typedef(node.name, self.exprs.resolve_type(node.type))

    def stmt_DeclList(self, node: c_ast.DeclList) -> None:
        for d in node.decls:
            self.stmt_Decl(d)

    def stmt_Decl(self, node: c_ast.Decl) -> None:
        if node.name is None:
            self.exprs.resolve_type(node.type)  # a struct/union/enum declaration
            return
        if isinstance(node.type, c_ast.FuncDecl):
            return  # a block-scope function declaration; calls resolve by name
        storage = node.storage or []
        assert self.unit.resolver is not None
        if "extern" in storage:
            g = self.unit.globals.get(node.name)
            if g is None:
                raise self.builder.unsupported(f"block-scope extern '{node.name}'", node)
            self.exprs.scopes[-1][node.name] = g
            self.unit.resolver.declare_object(node.name, g.type)
            return
        ctype = self.unit.resolver.declared_type(node)
        variable_size = has_variable_size(ctype)
        if isinstance(ctype, ArrayType) and ctype.count is None and not variable_size:
            raise self.builder.unsupported("array of unknown size", node)
        if variable_size and ("static" in storage or node.init is not None):
            raise CtgenError(f"variable length array '{node.name}' cannot be "
                             f"{'static' if 'static' in storage else 'initialized'}",
                             self.builder.loc(node))
        quals = node.quals or []
        var = Variable(
            node.name, ctype, STATIC_LOCAL if "static" in storage else LOCAL,
            self.builder.loc(node),
            self.unit.resolver.declaration_template(node, ctype=ctype),
            is_const="const" in quals, is_volatile="volatile" in quals, init=node.init)
        self.exprs.scopes[-1][node.name] = var
        self.unit.resolver.declare_object(node.name, ctype)  # for constant expressions
        if isinstance(ctype, (ArrayType, RecordType)):
            self.builder.address_taken.add(var)
        if variable_size:  # its object is made here, of the size evaluated now
            self.builder.locals.append(var)
            self.builder.emit(Init(var, self.builder.loc(node),
                                   self.exprs.types.size_expr(ctype, node)))
            return
        if var.kind == STATIC_LOCAL:
            self.builder.static_locals.append(var)
            if node.init is not None:
                saved = self.builder.cur
                self.builder.cur = Block(-1)
                self.initializers.initialize(VarRef(var, ctype), ctype, node.init, node)
                self.static_inits[var] = self.builder.cur.stmts
                self.builder.cur = saved
            return
        self.builder.locals.append(var)
        if node.init is None:
            self.builder.emit(Init(var, self.builder.loc(node)))
        else:
            self.initializers.initialize(VarRef(var, ctype), ctype, node.init, node)

    def stmt_Return(self, node: c_ast.Return) -> None:
        value = None
        if node.expr is not None:
            v = self.exprs.rvalue(node.expr)
            if not isinstance(self.fn.type.result, VoidType):
                value = self.exprs.convert(v, self.fn.type.result)
        self.builder.terminate(Return(value, self.builder.loc(node)))

    def stmt_If(self, node: c_ast.If) -> None:
        then_b, join = self.builder.new_blocks(2)
        else_b = self.builder.new_block() if node.iffalse is not None else join
        self.conditions.condition(node.cond, then_b, else_b)
        self.builder.cur = then_b
        self.statement(node.iftrue)
        self.builder.goto(join, node)
        if node.iffalse is not None:
            self.builder.cur = else_b
            self.statement(node.iffalse)
            self.builder.goto(join, node)
        self.builder.cur = join

    def loop(self, head: Block, cond: c_ast.Node | None, body: c_ast.Node | None,
             cont: Block, exit_b: Block, node: c_ast.Node) -> None:
        body_b = self.builder.new_block()
        self.builder.loops.append((body_b, node, not _always_true(cond)))
        self.builder.cur = head
        if cond is None:
            self.builder.goto(body_b, node)
        else:
            self.conditions.condition(cond, body_b, exit_b)
        self.builder.cur = body_b
        self.breaks.append(exit_b)
        self.continues.append(cont)
        self.statement(body)
        self.breaks.pop()
        self.continues.pop()
        self.builder.goto(cont, node)

    def stmt_While(self, node: c_ast.While) -> None:
        head, exit_b = self.builder.new_blocks(2)
        self.builder.goto(head, node)
        self.loop(head, node.cond, node.stmt, head, exit_b, node)
        self.builder.cur = exit_b

    def stmt_DoWhile(self, node: c_ast.DoWhile) -> None:
        body_b, cond_b, exit_b = self.builder.new_blocks(3)
        self.builder.loops.append((body_b, node, not _always_true(node.cond)))
        self.builder.goto(body_b, node)
        self.builder.cur = body_b
        self.breaks.append(exit_b)
        self.continues.append(cond_b)
        self.statement(node.stmt)
        self.breaks.pop()
        self.continues.pop()
        self.builder.goto(cond_b, node)
        self.builder.cur = cond_b
        self.conditions.condition(node.cond, body_b, exit_b)
        self.builder.cur = exit_b

    def stmt_For(self, node: c_ast.For) -> None:
        self.exprs.scopes.append({})
        assert self.unit.resolver is not None
        self.unit.resolver.push_scope()
        try:
            if node.init is not None:
                if isinstance(node.init, (c_ast.DeclList, c_ast.Decl)):
                    self.statement(node.init)
                else:
                    self.exprs.effect(node.init)
            head, next_b, exit_b = self.builder.new_blocks(3)
            self.builder.goto(head, node)
            self.loop(head, node.cond, node.stmt, next_b, exit_b, node)
            self.builder.cur = next_b
            if node.next is not None:
                self.exprs.effect(node.next)
            self.builder.goto(head, node)
            self.builder.cur = exit_b
        finally:
            self.unit.resolver.pop_scope()
            self.exprs.scopes.pop()

    def check_labels(self, definition: c_ast.FuncDef) -> None:
        """After the body: every label a `goto` names is defined."""
        for name in self.labels:
            if name not in self.defined_labels:
                raise CtgenError(f"label '{name}' used but not defined",
                                 self.builder.loc(definition))

    def stmt_Break(self, node: c_ast.Break) -> None:
        if not self.breaks:
            raise CtgenError("break outside a loop or switch", self.builder.loc(node))
        self.builder.goto(self.breaks[-1], node)

    def stmt_Continue(self, node: c_ast.Continue) -> None:
        if not self.continues:
            raise CtgenError("continue outside a loop", self.builder.loc(node))
        self.builder.goto(self.continues[-1], node)

    # ------------------------------------------------------------------ labels

    def label_block(self, name: str) -> Block:
        if name not in self.labels:
            self.labels[name] = self.builder.new_block()
        return self.labels[name]

    def label_name(self, name: str) -> str:
        """The label `name` names here: one declared with `__label__` in an enclosing
        block (a name of its own, "name#n"), else the function's label."""
        for scope in reversed(self.exprs.scopes):
            local = scope.get(_LABEL_KEY + name)
            if isinstance(local, str):
                return local
        return name

    def stmt_LocalLabels(self, node: LocalLabels) -> None:
        """GNU `__label__ a;`: labels `a` of this block are not those of other blocks
        (a macro's statement expression used twice has two)."""
        for name in node.names:
            self.local_labels += 1
            self.exprs.scopes[-1][_LABEL_KEY + name] = f"{name}#{self.local_labels}"

    def stmt_Label(self, node: c_ast.Label) -> None:
        name = self.label_name(node.name)
        b = self.label_block(name)
        self.defined_labels.add(name)
        self.builder.goto(b, node)
        self.builder.cur = b
        self.statement(node.stmt)

    def stmt_Goto(self, node: c_ast.Goto) -> None:
        self.builder.goto(self.label_block(self.label_name(node.name)), node)

    def stmt_ComputedGoto(self, node: ComputedGoto) -> None:
        raise self.builder.unsupported("computed goto ('goto *')", node)

    def stmt_FuncDef(self, node: c_ast.FuncDef) -> None:
        raise self.builder.unsupported(f"nested function '{node.decl.name}'", node.decl)

    # ------------------------------------------------------------------ switch

    def stmt_Switch(self, node: c_ast.Switch) -> None:
        original = self.exprs.rvalue(node.cond)
        value = self.exprs.promote(original)
        if not isinstance(value.type, IntType):
            raise CtgenError("switch on a non-integer", self.builder.loc(node))
        head = self.builder.cur
        exit_b = self.builder.new_block()
        ctx = _SwitchContext(value.type)
        self.switches.append(ctx)
        self.breaks.append(exit_b)
        self.builder.cur = self.builder.new_block()  # code before the first label: unreachable
        self.statement(node.stmt)
        self.breaks.pop()
        self.switches.pop()
        self.builder.goto(exit_b, node)
        cases, default = self.switch_targets(ctx, value_range(original), exit_b, node)
        self.builder.cur = head
        const = fold(value)
        if not cases:
            self.builder.goto(default, node)
        elif const is not None:
            target = next((b for vs, b in cases if const in vs), default)
            self.builder.goto(target, node)
        else:
            self.builder.terminate(Switch(value, cases, default, ctx.default is not None,
                                          self.builder.loc(node)))
        self.builder.cur = exit_b

    def switch_targets(self, ctx: _SwitchContext, values: tuple[int, int], exit_b: Block,
                       node: c_ast.Switch) -> tuple[list[tuple[tuple[int, ...], Block]], Block]:
        """The outcomes of a switch whose labels `ctx` holds: the case values per target
        block, and the default target. gcc drops labels the unpromoted controlling type
        cannot hold (outside `values`, its lowest and highest)."""
        groups: dict[int, list[int]] = {}
        blocks: dict[int, Block] = {}
        seen: set[int] = set()
        lo, hi = values
        for v, b in ctx.cases:
            if v in seen:
                raise CtgenError(f"duplicate case value {v}", self.builder.loc(node))
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
        return cases, default

    def label_target(self) -> Block:
        """The block a case or default label starts: consecutive labels share one."""
        if self.builder.cur is self.last_label_block and not self.builder.cur.stmts:
            return self.builder.cur
        b = self.builder.new_block()
        self.builder.goto(b, None)
        self.builder.cur = b
        self.last_label_block = b
        return b

    def stmt_Case(self, node: c_ast.Case) -> None:
        if not self.switches:
            raise CtgenError("case label outside a switch", self.builder.loc(node))
        ctx = self.switches[-1]
        b = self.label_target()
        bounds = case_range(node)
        low, high = (self.case_value(e, ctx.type) for e in bounds or (node.expr, node.expr))
        if high - low >= MAX_RANGE:
            raise self.builder.unsupported(f"case range of more than {MAX_RANGE} values",
                                           node)
        ctx.cases.extend((value, b) for value in range(low, high + 1))  # empty if low > high
        for s in node.stmts or []:
            self.statement(s)

    def case_value(self, expr: c_ast.Node, ctype: CType) -> int:
        value = fold(self.exprs.convert(self.exprs.rvalue(expr), ctype))
        if not isinstance(value, int):
            raise CtgenError("case label is not an integer constant", self.builder.loc(expr))
        return value

    def stmt_Default(self, node: c_ast.Default) -> None:
        if not self.switches:
            raise CtgenError("default label outside a switch", self.builder.loc(node))
        ctx = self.switches[-1]
        b = self.label_target()
        ctx.default = b
        for s in node.stmts or []:
            self.statement(s)


def _always_true(cond: c_ast.Node | None) -> bool:
    """Whether a loop's condition is missing or a nonzero integer constant (`for (;;)`,
    `while (1)`): only `break`, `return` or a call that does not return end the loop."""
    if cond is None:
        return True
    if not isinstance(cond, c_ast.Constant) or "int" not in cond.type:
        return False
    digits = cond.value.rstrip("uUlL")
    try:
        return int(digits, 8 if digits.startswith("0") and digits[1:].isdigit() else 0) != 0
    except ValueError:
        return False
