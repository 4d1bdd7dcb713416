"""What a unit tells of its values (frontend/unit_shapes.py, mask_uses.py): its enums'
enumerators, its structs' members, and the names its code uses as masks, by the rule
value_forms.py states."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytest_ctgen.cases import IntForm
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.frontend.mask_uses import mask_uses
from pytest_ctgen.frontend.unit import Unit
from pytest_ctgen.frontend.unit_shapes import unit_shapes
from pytest_ctgen.value_shapes import ANY, Shape

UNIT = r"""#include <stdint.h>
typedef enum { S_IDLE, S_RUN, S_BUSY = 1, S_DONE } state_t;
enum ev { EV_A = 3, EV_B };
struct regs { uint32_t ctrl; uint8_t status; state_t st; unsigned mode : 3; int trim : 4; };

uint32_t g_ctrl;
uint32_t g_count;
extern uint32_t read_sr(void);
extern uint16_t read_dr(void);
extern uint32_t other(void);

uint32_t poll(uint32_t mask, uint32_t n, struct regs *r, uint8_t *buf)
{
    uint32_t sr = read_sr();
    uint32_t x = other();

    if (sr & 1u) {
        g_ctrl |= mask;
    }
    if ((read_dr() >> 8) != 0u) {
        r->mode = 2u;
    }
    buf[0] ^= 0x80u;
    x = x + n;
    g_count = g_count + (1u << n);
    return r->ctrl & ~mask;
}

uint32_t plus(uint32_t mask) { return mask + other(); }
uint32_t scaled(uint32_t v) { return (v * 1000u) >> 15; }
uint32_t passed_on(uint32_t w, uint32_t b) { if (b) { w <<= 1; } return w; }

void local_enum(void)
{
    enum inner { I_A, I_B } v = I_A;
    (void)v;
}
"""


def _unit(write_c: Callable[..., Path]) -> Unit:
    return load_unit(write_c("shapes.c", UNIT), probe=False)


def test_the_masks_of_a_units_code(write_c: Callable[..., Path]) -> None:
    masks = mask_uses(_unit(write_c))
    # operands of & | ^ ~, the left of a shift (never the count), compound targets
    assert masks.params["poll"] == {"mask", "buf"}
    assert masks.params["plus"] == set()  # a mask in poll, a number here
    assert masks.params["scaled"] == set()  # `v * 1000u` is shifted, not v
    assert masks.params["passed_on"] == {"w"}
    assert masks.globals == {"g_ctrl"}  # g_count is only added to
    assert masks.members == {"ctrl"}
    # a call that is an operand or assigned to a local that is one; a function returning
    # a bitwise expression or a mask name; a shift's result is no mask
    assert masks.results == {"read_sr", "read_dr", "poll", "passed_on"}


NUMBERS = r"""
#include <stdint.h>
#define RB_MASK 7u
struct ring { uint8_t head; uint8_t flags; uint8_t count; uint8_t data[8]; };
uint32_t g_ticks;
uint32_t g_status;

uint8_t ring_put(struct ring *r, uint8_t v)
{
    r->data[r->head & RB_MASK] = v;
    r->head++;
    if (r->flags & 0x01u) {
        r->count += 1u;
    }
    return r->count & 1u;
}

uint32_t halves(uint32_t n, uint32_t bits, const uint8_t *p, const uint8_t *q, uint8_t k)
{
    uint32_t odd = n & 1u;
    bits &= bits - 1u;
    uint32_t top = *p++ & 0x80u;
    g_ticks |= 1u;
    g_ticks = g_ticks + 1u;
    g_status |= bits;
    return odd + n / 2u + top + (*p & 1u) + (q[k] & 0x0Fu) + q[0] * 2u;
}
"""


def test_a_name_also_used_as_a_number_is_no_mask(write_c: Callable[..., Path]) -> None:
    """An index, a counter or an operand of arithmetic is a number, even where the code
    also masks it; a pointer's own arithmetic (`p++`) says nothing of its elements."""
    masks = mask_uses(load_unit(write_c("numbers.c", NUMBERS), probe=False))
    # n halved, q's bytes doubled; `bits & (bits - 1)` clears a bit of a mask
    assert masks.params["halves"] == {"bits", "p"}
    assert masks.globals == {"g_status"}  # g_ticks is added to
    assert masks.members == {"flags"}  # head is counted, count added to


def test_an_enums_values_have_its_file_scope_enumerators(write_c: Callable[..., Path]) -> None:
    shapes = unit_shapes(_unit(write_c))
    state = shapes.shape("state_t @")
    assert state == Shape("int", 0, (1 << 32) - 1, form=IntForm(
        enumerators=(("S_IDLE", 0), ("S_RUN", 1), ("S_BUSY", 1), ("S_DONE", 2))))
    assert shapes.shape("const enum ev @[4]").element == Shape(
        "int", 0, (1 << 32) - 1, form=IntForm(enumerators=(("EV_A", 3), ("EV_B", 4))))
    assert shapes.shape("enum inner @") == ANY  # a block's enum: no names in C there
    assert shapes.shape("struct nowhere @") == ANY


def test_a_structs_members_and_the_masks_of_the_bindings(write_c: Callable[..., Path]) -> None:
    shapes = unit_shapes(_unit(write_c))
    state = shapes.shape("state_t @")
    members = dict(shapes.shape("struct regs @").members)
    assert members["ctrl"].form == IntForm(hex_digits=8)  # a member used as a mask
    assert members["status"] == Shape("int", 0, 255)
    assert members["st"].form is not None and members["st"].form.enumerators[0] == ("S_IDLE", 0)
    assert members["mode"] == Shape("int", 0, 7)  # a bit-field's own width
    assert members["trim"] == Shape("int", -8, 7)
    hex8 = IntForm(hex_digits=8)
    assert shapes.binding("uint32_t @", "mask", "param", "poll").form == hex8
    assert shapes.binding("uint32_t @", "mask", "param", "plus").form is None
    assert shapes.binding("uint32_t @", "g_ctrl", "global").form == hex8
    assert shapes.binding("uint32_t @", "g_count", "global").form is None
    element = shapes.binding("uint8_t @[10]", "ctgen_obj_buf", "object", "poll").element
    assert element is not None and element.form == IntForm(hex_digits=2)
    assert shapes.result("read_dr", "uint16_t @").form == IntForm(hex_digits=4)
    assert shapes.result("other", "uint32_t @").form is None
    # only unsigned integers are shown in hex
    assert shapes.binding("int32_t @", "mask", "param", "poll").form is None
    assert shapes.binding("_Bool @", "mask", "param", "poll").form is None
    assert shapes.binding("state_t @", "mask", "param", "poll") == state  # names, no hex


ANONYMOUS = r"""
struct frame {
    unsigned kind;
    union { struct { unsigned char lo, hi; }; unsigned short word; };
    struct { unsigned flags : 4; signed char bias; };
};
unsigned masked(struct frame *f) { return f->flags & 3u; }
"""


def test_the_members_of_anonymous_members_are_the_structs_own(
        write_c: Callable[..., Path]) -> None:
    shapes = unit_shapes(load_unit(write_c("anon.c", ANONYMOUS)))
    frame = shapes.shape("struct frame @")
    members = dict(frame.members)
    # an anonymous struct's members and each member of an anonymous union (a value shows
    # one of them: "lo" and "hi"), as a designated initializer names them
    assert list(members) == ["kind", "lo", "hi", "word", "flags", "bias"]
    assert (frame.name, frame.size) == ("struct frame", 12)  # gcc's layout
    assert members["hi"] == Shape("int", 0, 255)
    assert members["flags"] == Shape("int", 0, 15, form=IntForm(hex_digits=1))
    assert members["bias"] == Shape("int", -128, 127)
