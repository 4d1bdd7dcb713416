"""Cases whose inputs a pass the compiled code does not run would act on (issue 19): a
loop stopped by its test where one more pass would find what it looks for (a bound one
off, `k <= n`, then reads it), and a loop left early by the one pass that would leave it
(a loop that starts a pass late then runs to its end). Each mutant below is killed by a
case these goals add; without them, no case of the search or of the other goals kills
those of `first_marked` and `id_index`."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import (ONLY_NOTE, PAST_NOTE, ArrayValue, BytesValue, Case,
                                IntValue, RecordValue, Value)

from tests.symbolic.generated_unit import GeneratedUnit, scalar_params, unit_generator

UNIT = r"""
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The index of the first of count flags with its top bit set; -1 when none is. */
int first_marked(const uint8_t *flags, size_t count)
{
    size_t k;
    for (k = 0u; k < count; k++) {
        if ((flags[k] & 0x80u) != 0u) {
            return (int)k;
        }
    }
    return -1;
}

typedef struct {
    uint8_t enabled;
    int16_t level;
} channel_t;

/* The sum of the levels of the enabled channels among the first n. */
int32_t enabled_sum(const channel_t *ch, uint8_t n)
{
    int32_t total = 0;
    uint8_t i;
    for (i = 0u; i < n; i++) {
        if (ch[i].enabled == 0u) {
            continue;
        }
        total += ch[i].level;
    }
    return total;
}

/* The index of want among the ids before the first 0 of the first n; -1 when absent. */
int id_index(const uint16_t *ids, uint8_t n, uint16_t want)
{
    uint8_t i;
    for (i = 0u; i < n && ids[i] != 0u; i++) {
        if (ids[i] == want) {
            return i;
        }
    }
    return -1;
}

/* Whether the four samples rise strictly. */
bool rising4(const int16_t v[4])
{
    int k;
    for (k = 0; k < 3; k++) {
        if (v[k] >= v[k + 1]) {
            return false;
        }
    }
    return true;
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("ghost"))("ghost.c", UNIT)



def _elements(value: Value) -> list[Value]:
    if isinstance(value, BytesValue):
        return [IntValue(b) for b in value.data]
    assert isinstance(value, ArrayValue), value
    return list(value.elements)


def _array(case: Case) -> list[Value]:
    """The elements of the object the case's pointer argument points to."""
    return _elements(case.objects[0].value)


def _int(value: Value) -> int:
    assert isinstance(value, IntValue), value
    return value.value


def test_a_loop_stops_where_one_more_pass_would_find_the_mark(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The flag just past the count has its top bit set in a bound case, which returns -1:
    a loop that runs once more returns its index."""
    stopped = [c for c in unit.noted("first_marked", PAST_NOTE)
               for n in [scalar_params(c)["count"]] if n < len(_array(c))
               and _int(_array(c)[n]) & 0x80]
    assert stopped, unit.functions["first_marked"].cases
    assert unit.kills_line("first_marked", "k < count;", "k <= count;", tmp_path)


def test_one_more_pass_takes_the_body_not_its_continue(unit: GeneratedUnit, tmp_path: Path
                                                       ) -> None:
    """The channel just past n is enabled in a bound case (the pass would add its level,
    not `continue`), so a loop that runs once more gives another sum."""
    def enabled_past(case: Case) -> bool:
        n = scalar_params(case)["n"]
        channels = _array(case)
        if n >= len(channels):
            return False
        channel = channels[n]
        assert isinstance(channel, RecordValue), channel
        fields = dict(channel.fields)
        return _int(fields["enabled"]) != 0 and _int(fields["level"]) != 0
    assert any(enabled_past(c) for c in unit.noted("enabled_sum", PAST_NOTE)), \
        unit.functions["enabled_sum"].cases
    assert unit.kills_line("enabled_sum", "i < n; i++)", "i <= n; i++)", tmp_path)


def test_a_loop_stops_at_the_first_condition_of_its_test(unit: GeneratedUnit,
                                                         tmp_path: Path) -> None:
    """`i < n` of `i < n && ids[i] != 0u` stops the loop where the id past n is the one
    wanted, and not 0: a bound one off finds it."""
    stopped = [c for c in unit.noted("id_index", PAST_NOTE)
               for s in [scalar_params(c)] if s["n"] < len(_array(c))
               and _int(_array(c)[s["n"]]) == s["want"] != 0]
    assert stopped, unit.functions["id_index"].cases
    assert unit.kills_line("id_index", "i < n && ids[i]", "i <= n && ids[i]", tmp_path)


def test_a_loop_is_left_by_the_only_pass_that_would_leave_it(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The free samples of the search fall as often as they rise; an only-decider case
    falls at the first pair and rises after it, so a loop that skips the first pair
    returns true."""
    def falls_first_only(case: Case) -> bool:
        v = [_int(e) for e in _array(case)[:4]]
        return v[0] >= v[1] and v[1] < v[2] < v[3]
    assert any(falls_first_only(c) for c in unit.noted("rising4", ONLY_NOTE)), \
        unit.functions["rising4"].cases
    assert unit.kills_line("rising4", "for (k = 0; k < 3", "for (k = 1; k < 3", tmp_path)
