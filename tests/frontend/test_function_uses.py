"""The functions a unit's code uses (frontend/function_uses.py): what the harness must
stub or model, also in a body the lowering cannot take."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytest_ctgen.frontend.function_uses import used_functions
from pytest_ctgen.frontend.loader import load_unit

UNIT = r"""
#include <string.h>

struct clock { int time; };
int time(void);
struct clock start = { .time = 1 };
void hal_write(int v);
int hal_read(void);
static int unused(int v);
typedef int (*op_fn)(int);

static int twice(int x) { return 2 * x; }
static const op_fn table[] = { twice };
int (*variadic)(int, ...);

int run(const char *s, op_fn local)
{
    int (*fp)(int) = twice;
    int helper(int);
    hal_write(fp(1) + local(2) + variadic(3, 4) + helper(5));
    if (__builtin_expect(s != 0, 1)) {
        return (int)strlen(s) + legacy_call(6) + start.time + (&start)->time +
               (int)__builtin_offsetof(struct clock, time);
    }
    return hal_read();
}
"""


def test_the_functions_bodies_and_initializers_name(write_c: Callable[..., Path]) -> None:
    """Calls, designators in initializers and block-scope declarations of functions
    count; pointers to functions held in objects (locals, parameters, globals), gcc's
    builtins, functions only declared and members named like a function (`.time`) do
    not; a call of a name nothing declares does (an implicit declaration)."""
    uses = used_functions(load_unit(write_c("uses.c", UNIT)))
    assert uses == {"twice", "hal_write", "helper", "strlen", "legacy_call", "hal_read"}
