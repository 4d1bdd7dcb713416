"""The padding bytes of a case's objects: the generator takes them as 0, and the harness
declares the objects of structs zeroed before it sets their members, so a read that
reaches padding (an index past a member's array, still inside the object) is predicted
right. A full initializer of an automatic object would leave them unspecified."""
from __future__ import annotations

from collections.abc import Callable

from pytest_ctgen.cases import IntValue

from tests.symbolic.generated_unit import GeneratedUnit

UNIT = r"""
#include <stdint.h>

typedef struct {
    uint16_t word[2];
    uint8_t tag; /* a byte of padding follows */
} slot_t;

uint16_t slot_word(const slot_t *slot, unsigned i)
{
    if (i > 2u) {
        return 0u;
    }
    return slot->word[i]; /* word[2]: the tag and the padding byte */
}
"""


def test_a_read_that_reaches_padding_is_predicted(
        generated_unit: Callable[..., GeneratedUnit]) -> None:
    # the fixture runs every case against the unit as gcc compiles it
    unit = generated_unit("slots.c", UNIT)
    indices = [p.value.value for c in unit.functions["slot_word"].cases
               for p in c.params if p.name == "i" and isinstance(p.value, IntValue)]
    assert 2 in indices, indices
