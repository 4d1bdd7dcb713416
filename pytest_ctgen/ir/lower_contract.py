"""Lowering of annotations (c_harness/ctgen.h): `ContractLowerer` turns the `__rtt_*`
calls and declarations in a function body into a `FunctionContract` (pre- and
postconditions, test cases, asserts, auxiliary variables, `modifies`) or, in the body of
an external function's specification (`__rtt_extern()`), a `StubSpec` (ir/spec.py).

An annotation's condition is lowered without branches and without side effects, in the
names a contract may use; the harness evaluates its C text after the call.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pycparser import c_ast, c_generator

from ..errors import AnnotationError, CtgenError
from ..frontend.annotations import AUX_DECLARATION, RESERVED_PREFIX, USER_PREFIX
from ..frontend.ctype import INT, VoidType, usual_arithmetic_conversion
from ..frontend.unit import GLOBAL, LOCAL, Function, Variable
from .cfg import CFG, Assign, Block, Check, CheckKind, Stmt
from ..frontend.literals import string_bytes
from .expr import Const, Expr, Load, Logical, Select, Unary, VarRef
from .spec import Condition, FunctionContract, StubSpec, TestCaseSpec

if TYPE_CHECKING:
    from .lower_expr import ExpressionLowerer

#: Annotations reach the parser as calls of these names (see frontend/annotations.py).
ANNOTATION_PREFIX = RESERVED_PREFIX
_RETURN_ID = ANNOTATION_PREFIX + "return"  # `__rtt_return`
INITIAL_ID = ANNOTATION_PREFIX + "initial"  # `__rtt_initial(e)`
#: Annotations that state the contract: at the top level of the body only.
_TOP_LEVEL_ONLY = frozenset(
    {"precondition", "postcondition", "testcase", "modifies", "extern", "aux"})


def annotation_kind(node: c_ast.Node) -> str | None:
    """`modifies` for the statement `__rtt_modifies(g);`, `aux` for the declaration
    `__rtt_aux(T, g);` and so on; None for code."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and \
            node.name.name.startswith(ANNOTATION_PREFIX):
        return node.name.name.removeprefix(ANNOTATION_PREFIX)
    if isinstance(node, c_ast.Decl) and isinstance(node.init, c_ast.ID) and \
            node.init.name == AUX_DECLARATION:
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


class ContractLowerer:
    """The annotations of one function body and what they state."""

    def __init__(self, exprs: ExpressionLowerer, fn: Function) -> None:
        assert fn.definition is not None
        self.exprs = exprs
        self.builder = exprs.builder
        self.unit = exprs.unit
        self.fn = fn
        top = fn.definition.body.block_items or []
        self.top_annotations = {id(item) for item in top if annotation_kind(item)}
        # a specification of an external function (`__rtt_extern()` in its body)
        self.is_spec = any(annotation_kind(item) == "extern" for item in top)
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
        self.in_contract = False  # lowering a pre/postcondition or test case
        self.on_entry = False  # `__rtt_initial(e)` is `e` (a test case's PRE)
        self.entry_copies: dict[Variable, Variable] = {}  # parameter -> its value on entry
        self.harness_names: dict[int, str] = {}  # ids of nodes renamed for the harness

    def annotation(self, kind: str, node: c_ast.Node) -> None:
        """Record an annotation of the function (see c_harness/ctgen.h)."""
        if kind in _TOP_LEVEL_ONLY and id(node) not in self.top_annotations:
            what = "__rtt_extern()" if kind == "extern" else f"__rtt_{kind}"
            raise AnnotationError(f"{what} belongs at the top level of the function's body",
                                  self.builder.loc(node))
        if kind == "aux":
            self.aux(node)
            return
        assert isinstance(node, c_ast.FuncCall)
        args = node.args.exprs if node.args is not None else []
        if kind == "modifies":
            names = []
            for arg in args:
                target = self.exprs.lookup(arg.name, arg) if isinstance(arg, c_ast.ID) else None
                if not isinstance(target, Variable) or target.kind != GLOBAL:
                    raise AnnotationError("__rtt_modifies names a global variable",
                                          self.builder.loc(arg))
                names.append(target.name)
            if self.is_spec:
                self.spec_modifies = (self.spec_modifies or ()) + tuple(names)
            else:
                self.modifies = (self.modifies or ()) + tuple(names)
            return
        if kind == "extern":
            if args:
                raise AnnotationError("__rtt_extern() takes no arguments: it marks the "
                                      "function whose body it is in", self.builder.loc(node))
            return
        if kind in ("precondition", "postcondition", "assert"):
            if len(args) != 1:
                raise AnnotationError(f"__rtt_{kind} takes one condition",
                                  self.builder.loc(node))
            if kind == "assert" and self.is_spec:
                raise AnnotationError("__rtt_assert belongs in a function under test, not "
                                      "in a specification", self.builder.loc(node))
            cond = self.annotation_condition(args[0], post=kind == "postcondition",
                                             contract=kind != "assert")
            {"precondition": self.preconditions, "postcondition": self.postconditions,
             "assert": self.asserts}[kind].append(cond)
            if kind != "postcondition" and not self.is_spec:
                checked: CheckKind = "assert" if kind == "assert" else "precondition"
                self.builder.emit(Check(checked, cond.expr, cond.text, cond.location))
            return
        if kind == "testcase":
            self.testcase(node, args)
            return
        if kind == "assign":
            self.assign_ghost(node, args)
            return
        if kind in ("initial", "return"):
            raise AnnotationError(f"__rtt_{kind} belongs inside a postcondition",
                                  self.builder.loc(node))
        raise AnnotationError(f"unknown annotation '__rtt_{kind}'", self.builder.loc(node))

    def testcase(self, node: c_ast.FuncCall, args: list[c_ast.Node]) -> None:
        """`__rtt_testcase(PRE, POST, "REQ-1, REQ-2")`."""
        if self.is_spec:
            raise AnnotationError("__rtt_testcase belongs in a function under test, not in "
                                  "a specification", self.builder.loc(node))
        if len(args) != 3:
            raise AnnotationError("__rtt_testcase takes a pre, a post and a string of "
                                  "requirement ids: __rtt_testcase(PRE, POST, \"REQ-1\")",
                                  self.builder.loc(node))
        reqs = args[2]
        if not (isinstance(reqs, c_ast.Constant) and reqs.type == "string"):
            raise AnnotationError("the third argument of __rtt_testcase is a string of "
                                  "comma-separated requirement ids", self.builder.loc(reqs))
        text = "".join(chr(c) for c in string_bytes(reqs.value)).rstrip("\0")
        ids = tuple(r.strip() for r in text.split(","))
        if not text.strip() or any(not r or any(ch.isspace() for ch in r) for r in ids):
            raise AnnotationError(f"malformed requirement ids {reqs.value}: write them "
                                  f"comma-separated, e.g. \"REQ-1, REQ-2\"",
                                  self.builder.loc(reqs))
        self.on_entry = True
        try:
            pre = self.annotation_condition(args[0], post=False, contract=True)
        finally:
            self.on_entry = False
        entered = Variable(f"__rtt_initial#{len(self.initials)}", INT, LOCAL, pre.location, "@")
        self.initials.append((entered, pre.expr, pre.check_text))
        post = self.annotation_condition(args[1], post=True, contract=True)
        self.testcases.append(TestCaseSpec(pre, entered, post, ids, self.builder.loc(node)))

    def aux(self, node: c_ast.Decl) -> None:
        """`__rtt_aux(T, name)`: a ghost variable, zero on entry."""
        if self.is_spec:
            raise AnnotationError("__rtt_aux belongs in a function under test",
                                  self.builder.loc(node))
        ctype = self.exprs.resolve_type(node.type)
        if not ctype.is_scalar:
            raise AnnotationError("an auxiliary variable has a scalar type",
                                  self.builder.loc(node))
        assert self.unit.resolver is not None
        var = Variable(node.name, ctype, LOCAL, self.builder.loc(node),
                       self.unit.resolver.declaration_template(node))
        self.exprs.scopes[-1][node.name] = var
        self.ghosts.append(var)
        self.builder.locals.append(var)
        self.builder.emit(Assign(VarRef(var, ctype), self.exprs.convert(Const(INT, 0), ctype),
                                 self.builder.loc(node)))

    def assign_ghost(self, node: c_ast.FuncCall, args: list[c_ast.Node]) -> None:
        """`__rtt_assign(aux = e)` (or `aux += e`, `aux++`, ...)."""
        if len(args) != 1:
            raise AnnotationError("__rtt_assign takes one assignment",
                                  self.builder.loc(node))
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
                                  self.builder.loc(arg))
        if not isinstance(target_node, c_ast.ID):
            raise AnnotationError("__rtt_assign assigns an auxiliary variable",
                                  self.builder.loc(target_node))
        self.exprs.in_annotation = True
        try:
            target = self.exprs.lookup(target_node.name, target_node)
            if target not in self.ghosts:
                raise AnnotationError(f"__rtt_assign assigns auxiliary variables only, not "
                                      f"'{target_node.name}'", self.builder.loc(target_node))
            assert isinstance(target, Variable)
            value = self.side_effect_free(rhs)
        finally:
            self.exprs.in_annotation = False
        self.builder.emit(Assign(VarRef(target, target.type),
                                 self.exprs.convert(value, target.type), self.builder.loc(node)))

    def named(self, name: str, target: object, node: c_ast.Node) -> object:
        """What the name `name` (the ID `node`) found as `target` stands for here: an
        auxiliary variable only in annotations, in a contract no local but a parameter,
        which a postcondition reads as it was on entry."""
        if not isinstance(target, Variable):
            return target
        if target in self.ghosts:
            if not self.exprs.in_annotation:
                raise AnnotationError(f"auxiliary variable '{name}' belongs in annotations "
                                      f"only: the code of the function cannot use it",
                                      self.builder.loc(node))
            if self.on_entry:
                raise AnnotationError(f"auxiliary variable '{name}' has no value on entry",
                                      self.builder.loc(node))
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
                    self.builder.loc(node))
        return target

    def side_effect_free(self, node: c_ast.Node) -> Expr:
        """`node`'s value, which must not call, assign or branch."""
        builder = self.builder
        saved, blocks, temps = builder.cur, len(builder.blocks), len(builder.temps)
        builder.cur = Block(-1)
        try:
            e = self.pure(node)
            if builder.cur.stmts or len(builder.blocks) != blocks or len(builder.temps) != temps:
                raise AnnotationError("an annotation cannot call functions or assign",
                                      builder.loc(node))
        except AnnotationError:
            raise
        except CtgenError as err:
            message = err.message
            if _RETURN_ID in message:
                message = ("__rtt_return belongs in the postcondition of a function that "
                           "returns a value")
            raise AnnotationError(message, err.location or builder.loc(node)) from None
        finally:
            builder.cur = saved
        return e

    def annotation_condition(self, node: c_ast.Node, post: bool, contract: bool
                             ) -> Condition:
        """An annotation's condition as one side-effect-free truth value. In a `contract`
        condition (pre, post, test case) locals other than auxiliary variables are not
        in scope, and in a postcondition the parameters stand for their values on entry."""
        self.exprs.scopes.append({_RETURN_ID: self.result} if post and self.result else {})
        self.in_postcondition, self.exprs.in_annotation, self.in_contract = post, True, contract
        try:
            e = self.exprs.truth(self.side_effect_free(node))
        except CtgenError as err:
            if isinstance(err, AnnotationError):
                raise
            raise AnnotationError(err.message, err.location or self.builder.loc(node)) from None
        finally:
            self.exprs.scopes.pop()
            self.in_postcondition = self.exprs.in_annotation = self.in_contract = False
        text = re.sub(rf"\b{ANNOTATION_PREFIX}", USER_PREFIX,
                      c_generator.CGenerator().visit(node))
        return Condition(e, text, self.builder.loc(node),
                         _HarnessText(self.harness_names).visit(node))

    def pure(self, node: c_ast.Node) -> Expr:
        """`node` for its value with `&&`, `||`, `!` and `?:` kept as expressions."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            return Logical(node.op, self.exprs.truth(self.pure(node.left)),
                           self.exprs.truth(self.pure(node.right)), INT)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return Unary("!", self.exprs.truth(self.pure(node.expr)), INT)
        if isinstance(node, c_ast.TernaryOp):
            cond = self.exprs.truth(self.pure(node.cond))
            a, b = self.pure(node.iftrue), self.pure(node.iffalse)
            if not (a.type.is_arithmetic and b.type.is_arithmetic):
                raise self.builder.unsupported("?: of non-arithmetic values in an annotation",
                                               node)
            rtype = usual_arithmetic_conversion(a.type, b.type)
            return Select(cond, self.exprs.convert(a, rtype), self.exprs.convert(b, rtype),
                          rtype)
        return self.exprs.rvalue(node)

    def initial(self, node: c_ast.FuncCall) -> Expr:
        """`__rtt_initial(e)`: a variable holding `e` as it was when the function was
        entered (for a stub: before the call); in a test case's PRE, `e` itself."""
        if not (self.in_postcondition or self.on_entry):
            raise AnnotationError("__rtt_initial belongs inside a postcondition or a test "
                                  "case", self.builder.loc(node))
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            raise AnnotationError("__rtt_initial takes one expression",
                                  self.builder.loc(node))
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
                       value.type, LOCAL, self.builder.loc(node), "@")
        self.initials.append((var, value, _HarnessText(self.harness_names).visit(args[0])))
        self.harness_names[id(node)] = name
        return Load(VarRef(var, value.type), value.type)

    # ------------------------------------------------------------ what they state

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

    def entry_statements(self) -> list[Stmt]:
        """What a function under test does first for its annotations: keep the parameters'
        values on entry and take the `__rtt_initial` values."""
        loc = self.fn.location
        stmts: list[Stmt] = [Assign(VarRef(copy, copy.type), Load(VarRef(p, p.type), p.type),
                                    loc) for p, copy in self.entry_copies.items()]
        stmts += [Assign(VarRef(var, var.type), value, loc) for var, value, _ in self.initials]
        return stmts

    def variables(self) -> list[Variable]:
        """The variables the annotations add to the CFG: the parameters' values on entry,
        the `__rtt_initial` values, the result a postcondition reads."""
        extra = list(self.entry_copies.values()) + [v for v, _, _ in self.initials]
        if self.result is not None and not self.is_spec:
            extra.append(self.result)
        return extra
