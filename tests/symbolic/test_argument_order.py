"""The arguments of a call are evaluated last to first, as gcc does (C leaves the order
unspecified): each stub call of `put(g(1), g(2))` gets the script of its place in the
order gcc makes them, and the side effects of arguments happen in that order too. Every
case is run against gcc's build (the `generated_unit` fixture)."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit

from pytest_ctgen.cases import IntValue

UNIT = r"""
int g(int x);
void put(int a, int b, int c);

int stub_arguments(int k)
{
    put(g(k), g(k + 1), g(k + 2));
    return 0;
}

int side_effects(int i)
{
    put(i++, i++, g(i));
    return i;
}

static int count;
static int next(void) { return ++count; }
static int pair(int a, int b) { return a * 10 + b; }

int own_calls(void)
{
    count = 0;
    return pair(next(), next());
}
"""


def test_arguments_are_evaluated_last_to_first(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("order.c", UNIT)
    unit.assert_fully_covered()
    [case] = unit.functions["stub_arguments"].cases
    calls = [(c.stub, dict(c.arguments)) for c in case.expected.calls or ()]
    k = case.params[0].value
    assert isinstance(k, IntValue)
    assert [args["x"] for stub, args in calls if stub == "g"] == \
        [IntValue(k.value + 2), IntValue(k.value + 1), IntValue(k.value)]
    [case] = unit.functions["own_calls"].cases
    assert case.expected.returns.value == 21  # next() for b first: pair(2, 1)

