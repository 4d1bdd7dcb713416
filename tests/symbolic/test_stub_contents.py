"""What a stub is given through a pointer (`PredictedCall.contents`) is predicted as the
compiled code holds it at the call: what the path set is checked, what nothing set is not
(stack garbage: the rest of a union a member was written into, a pointer local a stub is
to fill; the padding of a struct, which a case never sets); every case passes against
gcc's build."""
from __future__ import annotations

from collections.abc import Callable

from generated_unit import GeneratedUnit

from pytest_ctgen.cases import (
    ArrayValue,
    Binding,
    IntValue,
    PredictedCall,
    RecordValue,
    UnsetValue,
)

UNIT = r"""
#include <stdint.h>

union word { uint32_t all; uint8_t low; };
struct frame { uint8_t id; uint16_t length; uint8_t data[4]; };

extern void put_word(const union word *w);
extern void put_frame(const struct frame *f);
extern long to_number(const char *text, char **end);

void send_low(uint8_t v)
{
    union word w;
    w.low = v;
    put_word(&w);
}

void send_full(uint32_t v)
{
    union word w;
    w.all = v;
    put_word(&w);
}

void send_head(uint8_t id)
{
    struct frame f;
    f.id = id;
    f.data[0] = 7u;
    put_frame(&f);
}

struct cfg { uint8_t mode; uint32_t gain; };
extern void send_bytes(const uint8_t *data, unsigned n);
extern void send_gain(const uint32_t *g);

void push_cfg(const struct cfg *c)
{
    send_bytes((const uint8_t *)c, sizeof *c);
}

void push_gain(struct cfg *c)
{
    send_gain(&c->gain);
}

struct node { struct node *next; uint8_t len; };
extern void pool_free(void *mem);

int release(struct node *n)
{
    if (n == 0) {
        return -1;
    }
    pool_free(n);
    return 0;
}

int number_ends(const char *text)
{
    char *end;
    long v = to_number(text, &end);
    return end != text && v > 0;
}
"""


def _given(unit: GeneratedUnit, function: str) -> list[tuple[Binding, ...]]:
    """What each case predicts its function's first stub call is given."""
    calls: list[PredictedCall] = [c.expected.calls[0] for c in unit.functions[function].cases
                                  if c.expected.calls]
    return [k.contents for k in calls]


def test_what_nothing_set_is_not_predicted(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("given.c", UNIT)
    # a union with one small member written: its other bytes are the stack's
    assert _given(unit, "send_low") == [()]
    # a union written whole is checked byte by byte
    [[full]] = _given(unit, "send_full")
    assert full.name == "w" and full.declaration == "union word @[1]"
    # the members set are checked, the others (and the rest of the array) are not
    [[head]] = _given(unit, "send_head")
    [case] = unit.functions["send_head"].cases
    assert head.value == ArrayValue((RecordValue((
        ("id", case.params[0].value), ("length", UnsetValue()),
        ("data", ArrayValue((IntValue(7), UnsetValue(), UnsetValue(), UnsetValue())))),),))
    # an input struct sent as bytes: its padding is no byte a case sets
    for given in _given(unit, "push_cfg"):
        for b in given:
            shown = [not isinstance(x, UnsetValue) for x in b.value.elements]
            assert shown[:8] == [True, False, False, False, True, True, True, True], b
    # a pointer to a member: that member, not the bytes after it
    for given in _given(unit, "push_gain"):
        assert [b.declaration for b in given] in ([], ["unsigned int @[1]"]), given
    # the bytes of a pointer (a node handed back to a pool as a `void *`) are not
    # compared: the function is generated, its call checked without them
    assert unit.functions["release"].skip_reason is None
    assert _given(unit, "release") == [()]
    # a pointer local the stub is to fill holds no value yet: `&end` is given nothing
    # (the text is, where the case's text pointer is not NULL)
    given = [[b.name for b in g] for g in _given(unit, "number_ends")]
    assert ["text"] in given and all(names in ([], ["text"]) for names in given), given
