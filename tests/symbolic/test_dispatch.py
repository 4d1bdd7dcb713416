"""The executor's dispatch tables: every IR statement, terminator and value expression has
a handler, and a node of a subclass (lowering's gcc `Conditional`) gets its base class's."""
from __future__ import annotations

from pytest_ctgen.ir import cfg, expr
from pytest_ctgen.ir.gccfold import Conditional
from pytest_ctgen.symbolic.dispatch import handler_for
from pytest_ctgen.symbolic.expressions import EVALUATORS
from pytest_ctgen.symbolic.statements import STATEMENTS, TERMINATORS


def _node(cls: type) -> object:
    """An instance of the IR node class `cls` without its fields (only its class counts)."""
    return object.__new__(cls)


def _node_classes(module: object, base: type) -> list[type]:
    return [c for c in vars(module).values()
            if isinstance(c, type) and issubclass(c, base) and c is not base]


def test_every_statement_and_terminator_has_a_handler() -> None:
    for cls in _node_classes(cfg, cfg.Stmt):
        assert handler_for(dict(STATEMENTS), _node(cls)) is not None, cls.__name__
    for cls in _node_classes(cfg, cfg.Terminator):
        assert handler_for(dict(TERMINATORS), _node(cls)) is not None, cls.__name__


def test_every_value_expression_has_an_evaluator() -> None:
    # a function designator is no value: it is only ever the operand of `&`
    classes = [c for c in _node_classes(expr, expr.Expr) if c is not expr.FunctionRef]
    for cls in classes:
        assert handler_for(dict(EVALUATORS), _node(cls)) is not None, cls.__name__
    assert handler_for(dict(EVALUATORS), _node(expr.FunctionRef)) is None


def test_a_subclass_gets_its_base_class_handler() -> None:
    table = dict(EVALUATORS)
    assert handler_for(table, _node(Conditional)) is EVALUATORS[expr.Select]
    assert table[Conditional] is EVALUATORS[expr.Select]  # remembered
    assert handler_for(table, None) is None
