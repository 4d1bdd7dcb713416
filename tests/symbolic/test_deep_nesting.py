"""C nested as deep as macros nest it never reaches Python's recursion limit: generation
runs with a deep stack (generation_child.with_deep_stack)."""
from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.generation_child import with_deep_stack


def _nested(depth: int) -> str:
    text = "x"
    for i in range(depth):
        text = f"({text} + {i % 7})"
    return text


def test_deeply_nested_expressions_are_generated_and_run(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    depth = 600  # several frames of parsing and lowering per level: past 1000 frames
    text = (f"int nest(int x)\n{{\n    if ({_nested(depth)} == 2000) {{\n"
            "        return 1;\n    }\n    return 0;\n}\n")
    unit = generated_unit("nest.c", text)
    unit.assert_fully_covered()
    offset = sum(i % 7 for i in range(depth))
    cases = unit.functions["nest"].cases
    assert {c.params[0].value.value for c in cases if c.expected.returns.value == 1} == \
        {2000 - offset}


def test_deep_stack_restores_the_limits_and_passes_errors_on() -> None:
    limit = sys.getrecursionlimit()

    def recurse(n: int) -> int:
        return 0 if n == 0 else 1 + recurse(n - 1)

    assert with_deep_stack(lambda: recurse(20_000)) == 20_000
    assert sys.getrecursionlimit() == limit
    with pytest.raises(ZeroDivisionError):
        with_deep_stack(lambda: 1 // 0)
