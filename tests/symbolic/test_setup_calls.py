"""Setup calls (`--ctgen-setup`, symbolic/setup_calls.py): a function that takes a handle
gets cases that start from what the unit's own init function and operations build on a
zeroed object, each case listing the calls and their arguments; the compiled run makes
the same calls (every case ran against gcc's build, `generated_unit`). An outcome no
such state takes gets a case from any input, as without setup."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit

from pytest_ctgen.cases import ArrayValue, Case, IntValue, PointerValue, RecordValue, SetupCall

Generate = Callable[..., GeneratedUnit]

MAILBOX = r"""#include <stddef.h>
#include <stdint.h>
#define MB_CAP 4u

typedef struct {
    uint16_t items[MB_CAP];
    uint8_t head;
    uint8_t count;
    uint8_t ready;
} mailbox_t;

void mb_init(mailbox_t *mb)
{
    mb->head = 0;
    mb->count = 0;
    mb->ready = 1;
}

/* 0 is no item: refused */
int mb_post(mailbox_t *mb, uint16_t item)
{
    if (!mb->ready || item == 0u || mb->count == MB_CAP)
        return -1;
    mb->items[(mb->head + mb->count) % MB_CAP] = item;
    mb->count++;
    return 0;
}

int mb_take(mailbox_t *mb, uint16_t *out)
{
    if (!mb->ready)
        return -2;
    if (mb->count == 0u)
        return -1;
    *out = mb->items[mb->head];
    mb->head = (uint8_t)((mb->head + 1u) % MB_CAP);
    mb->count--;
    return 0;
}

unsigned mb_pending(const mailbox_t *mb)
{
    return mb->count > MB_CAP ? MB_CAP : mb->count;
}

int mb_scale(int x)
{
    return x > 10 ? 2 * x : x;
}
"""

SETUP = (("mb_*", ("mb_init", "mb_post")),)


def _returns(case: Case) -> object:
    value = case.expected.returns
    return value.value if isinstance(value, IntValue) else value


def _int(v: object) -> int:
    assert isinstance(v, IntValue), v
    return v.value


def test_cases_start_from_the_states_init_and_the_operations_build(
        generated_unit: Generate) -> None:
    unit = generated_unit("mailbox.c", MAILBOX, setup=SETUP)
    take = unit.functions["mb_take"]
    built = [c for c in take.cases if c.setup]
    assert {_returns(c) for c in built} == {-1, 0}
    for case in built:
        handle = case.params[0].value
        assert handle == PointerValue("ctgen_obj_mb")
        # a zeroed object, then mb_init and mb_post on it: the handle is their first
        # argument, their others are the case's inputs
        assert [(s.function, s.handle, s.params[0].value) for s in case.setup] == \
            [("mb_init", 0, handle), ("mb_post", 0, handle)]
        (obj,) = [o for o in case.objects if o.name == "ctgen_obj_mb"]
        assert isinstance(obj.value, ArrayValue)
        (record,) = obj.value.elements
        assert isinstance(record, RecordValue)
        assert all(_int(v) == 0 for name, v in record.fields if name != "items")
    # the item taken is the one the setup posted
    posted = next(c for c in built if _returns(c) == 0)
    item = _int(posted.setup[1].params[1].value)
    assert item != 0
    (out,) = [o for o in posted.expected.objects if o.name != "ctgen_obj_mb"]
    assert isinstance(out.value, ArrayValue) and _int(out.value.elements[0]) == item


def test_an_outcome_no_built_state_takes_gets_a_case_from_any_input(
        generated_unit: Generate) -> None:
    """mb_init always makes the mailbox ready, and one post holds at most one item: the
    search then starts anew from any bytes for what is left, so the defensive code is
    covered (or proved unreachable) as without setup."""
    unit = generated_unit("mailbox.c", MAILBOX, setup=SETUP)
    unit.assert_fully_covered("mb_take", "mb_pending", "mb_post")
    take, pending = unit.functions["mb_take"], unit.functions["mb_pending"]
    assert [_returns(c) for c in take.cases if not c.setup] == [-2]
    assert {_returns(c) for c in pending.cases if not c.setup} == {4}
    assert all(c.setup for c in take.cases if _returns(c) != -2)


def test_the_init_function_and_functions_without_the_handle_start_as_they_are(
        generated_unit: Generate) -> None:
    unit = generated_unit("mailbox.c", MAILBOX, setup=SETUP)
    for name in ("mb_init", "mb_scale"):
        fn = unit.functions[name]
        assert fn.cases and all(c.setup == () for c in fn.cases), name
    unit.assert_fully_covered("mb_scale")
    # the init function's own cases start from any bytes, as without setup
    assert unit.functions["mb_init"].stop_reason == "exhausted"


def test_auto_finds_the_init_function_by_its_signature(generated_unit: Generate) -> None:
    """`GLOB: auto`: the one function with `init` in its name whose first parameter points
    to the struct the function's handle points to."""
    unit = generated_unit("mailbox.c", MAILBOX, setup=(("mb_*", ("auto",)),))
    for name in ("mb_take", "mb_post", "mb_pending"):
        built = [c for c in unit.functions[name].cases if c.setup]
        assert built and all([s.function for s in c.setup] == ["mb_init"] for c in built)
    for name in ("mb_init", "mb_scale"):
        assert all(not c.setup for c in unit.functions[name].cases), name
    unit.assert_fully_covered("mb_take", "mb_post", "mb_pending", "mb_scale")


def test_setup_calls_are_a_case_field(generated_unit: Generate) -> None:
    unit = generated_unit("mailbox.c", MAILBOX, setup=SETUP)
    post = unit.functions["mb_post"]
    assert all(isinstance(s, SetupCall) for c in post.cases for s in c.setup)
    # after one successful post, a second post succeeds; a refused item leaves it empty
    assert {_returns(c) for c in post.cases} == {-1, 0}


STRICT_INIT = r"""#include <stdint.h>
#include <stdlib.h>
typedef struct { unsigned step; unsigned pos; } stepper_t;

void st_init(stepper_t *st, unsigned div)
{
    if (div > 50u)
        exit(3);
    st->step = 100u / div;
    st->pos = 0;
}

unsigned st_next(stepper_t *st)
{
    st->pos += st->step;
    return st->pos > 60u ? 1u : 0u;
}
"""


def test_setup_calls_only_run_where_they_are_defined_and_return(
        generated_unit: Generate) -> None:
    """A division by zero or an exit in the init function is the setup's inputs' doing:
    no case of the function after it is a finding or ends the program (the init
    function's own cases have them)."""
    unit = generated_unit("stepper.c", STRICT_INIT, setup=(("st_*", ("st_init",)),))
    following = unit.functions["st_next"]
    assert following.cases and all(c.setup for c in following.cases)
    assert all(c.finding is None and c.expected.ending is None for c in following.cases)
    assert all(0 < _int(c.setup[0].params[1].value) <= 50 for c in following.cases)
    unit.assert_fully_covered("st_next")
    own = unit.functions["st_init"]
    assert unit.findings["st_init"] and any(c.expected.ending == "exit" for c in own.cases)


def test_a_setup_the_unit_cannot_make_skips_the_function_with_its_reason(
        generated_unit: Generate) -> None:
    text = "#include <stdarg.h>\n" + MAILBOX + (
        "\nvoid mb_setv(mailbox_t *mb, ...)\n{\n    va_list ap;\n    va_start(ap, mb);\n"
        "    mb->ready = (uint8_t)va_arg(ap, int);\n    va_end(ap);\n}\n")
    for functions, reason in [
            (("mb_start",), "setup 'mb_take: mb_start': the unit defines no function "
                            "'mb_start'"),
            (("mb_setv",), "setup 'mb_take: mb_setv': 'mb_setv' is variadic"),
            (("mb_scale",), "setup 'mb_take: mb_scale': the first parameter of 'mb_scale' "
                            "is not a pointer to a struct or union it could build"),
            (("mb_init", "mb_scale"), "setup 'mb_take: mb_init mb_scale': 'mb_scale' takes "
                                      "no mailbox_t *")]:
        unit = generated_unit("mailbox.c", text, setup=(("mb_take", functions),))
        take = unit.functions["mb_take"]
        assert take.cases == () and take.skip_reason is not None, functions
        # located at the function the glob named
        assert take.skip_reason == f"mailbox.c:{take.line}:5: {reason}", take.skip_reason
        assert unit.functions["mb_post"].cases  # not named by the glob: as without setup
