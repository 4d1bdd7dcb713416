"""Outputs a case computes but that show nothing (issue 19): a result of 0 at a boundary,
a computed result equal to a constant the function returns elsewhere, a NULL link written
where a node could follow, a comparison met at its boundary only where its decision does
not depend on it, an assignment whose value decides nothing, operands that tell an
operator only on a path whose outcome it does not change, a constant operand whose
neighbours give the same result, a goal on a path of two cursors into one buffer, and a
global the path leaves alone that the function may write. Each mutant below is killed by
a case these goals add or by what the cases now check."""
from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ctgen.cases import (BOUNDARY_NOTE, OPERAND_NOTE, RESULT_NOTE, USE_NOTE,
                                ArrayValue, BytesValue, Case, IntValue, PointerValue,
                                RecordValue, is_extra)

from tests.symbolic.generated_unit import GeneratedUnit, scalar_params, unit_generator

UNIT = r"""
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The count bits of word from bit first on; 0 when they do not all lie in the word. */
uint32_t bit_run(uint32_t word, uint8_t first, uint8_t count)
{
    if (count == 0u || first > 31u || count > 32u - first) {
        return 0u;
    }
    if (count == 32u) {
        return word;
    }
    return (word >> first) & ((1u << count) - 1u);
}

#define LEVEL_CAP 1000u

/* a + b, held at LEVEL_CAP. */
uint16_t level_sum(uint16_t a, uint16_t b)
{
    uint32_t s = (uint32_t)a + b;
    if (s > LEVEL_CAP) {
        return LEVEL_CAP;
    }
    return (uint16_t)s;
}

/* 3: sensor fault, 2: stop the pump, 1: slow it, 0: let it run. */
int pump_action(int16_t level, int16_t inflow, bool drain_open)
{
    if (level < -10 || level > 120 || inflow < -10) {
        return 3;
    }
    if ((level >= 70 && !drain_open) || (inflow > 3 * level + 50 && drain_open)) {
        return 2;
    }
    if (level >= 50) {
        return 1;
    }
    return 0;
}

/* The index at which the signal reaches edge after at least quiet samples below it;
   -1 when it never does. */
int rise_after_quiet(const int8_t *sig, uint8_t n, int8_t edge, uint8_t quiet)
{
    uint8_t k;
    uint8_t low = 0u;
    for (k = 0u; k < n; k++) {
        if (sig[k] < edge) {
            if (low < quiet) {
                low++;
            }
        } else if (low >= quiet) {
            return k;
        } else {
            low = 0u;
        }
    }
    return -1;
}

/* A gain scaled by percent, at least 1 where the gain was positive. */
int32_t scaled_gain(int16_t gain, uint8_t percent)
{
    int32_t g = (int32_t)gain * percent / 100;
    if (g == 0 && gain > 0) {
        g = 1;
    }
    return g;
}

/* 1 when the n bytes of a frame add up to a multiple of 251, 0 when not, -1 for a bad n. */
int frame_sum_ok(const uint8_t *frame, uint8_t n)
{
    uint16_t sum = 0u;
    uint8_t i;
    if (n < 2u || n > 8u) {
        return -1;
    }
    for (i = 0u; i < n; i++) {
        sum = (uint16_t)((sum + frame[i]) % 251u);
    }
    if (sum == 0u) {
        return 1;
    }
    return 0;
}

/* Bytes queued from tail on to head in a ring of size bytes (head may have wrapped
   around); -1 when the cursors do not fit the ring. */
long ring_used(const uint8_t *tail, const uint8_t *head, long size)
{
    long used = head - tail;
    if (used < 0) {
        used = used + size;
    }
    return (used >= 0 && used < size) ? used : -1;
}

typedef struct msg {
    uint16_t id;
    struct msg *link;
} msg_t;

/* Takes the first message off the queue; NULL for an empty queue or a held one (id 0). */
msg_t *queue_take(msg_t **queue)
{
    msg_t *m;
    if (queue == NULL || *queue == NULL || (*queue)->id == 0u) {
        return NULL;
    }
    m = *queue;
    *queue = m->link;
    m->link = NULL;
    return m;
}

unsigned g_send_retries;

/* Sends once; a failed send is counted. */
int send_frame(int line_ok)
{
    if (!line_ok) {
        g_send_retries++;
        return -1;
    }
    return 0; /* sent */
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("hidden"))("hidden.c", UNIT)



def _returned(case: Case) -> int:
    assert isinstance(case.expected.returns, IntValue)
    return case.expected.returns.value


def test_a_result_of_0_at_a_boundary_gets_a_case_at_it_that_is_not_0(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The search decides `count > 32u - first` with its sides equal: the run reaches the
    word's top bit, and its case returns 0 where that bit is clear. A result case keeps
    the sides equal and returns what is not 0, which a limit one off cannot."""
    at_top = [c for c in unit.functions["bit_run"].cases
              if RESULT_NOTE in c.notes and sum(scalar_params(c)[k] for k in ("first", "count"))
              == 32 and scalar_params(c)["count"] < 32]
    assert at_top and all(_returned(c) != 0 for c in at_top), \
        unit.functions["bit_run"].cases
    assert unit.kills_line("bit_run", "count > 32u - first", "count > 31u - first", tmp_path)


def test_a_result_equal_to_a_returned_constant_gets_another_case(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The boundary of `s > LEVEL_CAP` on the path that returns s is s == 1000, what the
    other path returns as a constant: a result case returns a sum other than that, so a
    path that returned the cap itself fails it."""
    sums = [_returned(c) for c in unit.functions["level_sum"].cases
            if sum(scalar_params(c).values()) <= 1000]
    assert 1000 in sums and any(s not in (0, 1000) for s in sums), sums
    assert unit.kills_line("level_sum", "return (uint16_t)s;", "return LEVEL_CAP;", tmp_path)


def test_a_boundary_met_where_the_decision_does_not_depend_on_it_is_met_again(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """A boundary case of `level >= 70` has inflow == 3 * level + 50 by the way, with the
    drain closed, where that comparison decides nothing; a boundary case of its own opens
    the drain, so a factor one off fails it."""
    cases = unit.functions["pump_action"].cases
    deciding = [i for c in cases if BOUNDARY_NOTE in c.notes
                for i in [scalar_params(c)] if i["drain_open"]
                and i["inflow"] == 3 * i["level"] + 50 and i["level"] < 70]
    assert deciding, cases
    assert unit.kills_line("pump_action", "inflow > 3 * level + 50",
                           "inflow > 4 * level + 50", tmp_path)


def test_a_global_the_function_may_write_is_set_and_checked_on_every_path(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The path of a good line never touches g_send_retries; its case still sets it and
    checks that the call left it as it was, so a count on the wrong path fails it."""
    for case in unit.functions["send_frame"].cases:
        assert [b.name for b in case.globals] == ["g_send_retries"], case
        assert [b.name for b in case.expected.globals] == ["g_send_retries"], case
    assert unit.kills_line("send_frame", "return 0; /* sent */",
                           "g_send_retries = 0u; return 0;", tmp_path)


def test_an_assigned_value_decides_a_later_comparison(unit: GeneratedUnit, tmp_path: Path
                                                      ) -> None:
    """Branch coverage is content with `low >= quiet` true for quiet = 0, where the count
    of quiet samples never mattered; a use case reaches it after `low++` with the count
    deciding it, so a count that never grows fails it."""
    used = [c for c in unit.functions["rise_after_quiet"].cases if USE_NOTE in c.notes]
    assert any(scalar_params(c)["quiet"] > 0 and _returned(c) >= 0 for c in used), \
        unit.functions["rise_after_quiet"].cases
    assert unit.kills_line("rise_after_quiet", "low++;", ";", tmp_path)


def test_a_constant_operand_one_off_changes_the_result(unit: GeneratedUnit, tmp_path: Path
                                                       ) -> None:
    """Readable gains make `gain * percent / 100` 0 or 1, which / 99 and / 101 give too;
    an operand case has a product whose quotient the divisor one off each way changes."""
    def quotient(p: int, d: int) -> int:  # C's: toward 0
        return abs(p) // d * (1 if p >= 0 else -1)
    told = [i["gain"] * i["percent"] for c in unit.functions["scaled_gain"].cases
            if OPERAND_NOTE in c.notes for i in [scalar_params(c)]]
    assert any(quotient(p, 100) not in (quotient(p, 99), quotient(p, 101)) for p in told), told
    assert unit.kills_line("scaled_gain", "percent / 100;", "percent / 101;", tmp_path)
    assert unit.kills_line("scaled_gain", "percent / 100;", "percent / 99;", tmp_path)


def test_a_null_link_written_where_a_node_could_follow_gets_a_case_with_one(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """Taking the only message writes its NULL link to the queue's head; a result case
    has a second message there, so a taken message left linked to it fails."""
    def linked(case: Case) -> bool:
        return any(isinstance(o.value, RecordValue) and any(
            name == "link" and isinstance(v, PointerValue) and v.target is not None
            for name, v in o.value.fields) for o in case.objects)
    taken = [c for c in unit.functions["queue_take"].cases if RESULT_NOTE in c.notes]
    assert any(linked(c) for c in taken), unit.functions["queue_take"].cases
    assert unit.kills_line("queue_take", "m->link = NULL;", ";", tmp_path)


def test_operands_tell_the_operator_on_each_way_the_function_ends(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """The readable frames that add up are all zeros, and the frames that do not tell the
    operators apart where it shows nothing: an operand case of the accepting path has
    bytes that are not 0, so a modulus one off rejects it."""
    def frame(case: Case) -> list[int]:
        value = case.objects[0].value
        if isinstance(value, BytesValue):
            return list(value.data)
        assert isinstance(value, ArrayValue)
        return [e.value for e in value.elements if isinstance(e, IntValue)]
    accepted = [frame(c)[:scalar_params(c)["n"]] for c in unit.functions["frame_sum_ok"].cases
                if OPERAND_NOTE in c.notes and _returned(c) == 1]
    assert any(sum(f) >= 251 for f in accepted), unit.functions["frame_sum_ok"].cases
    assert unit.kills_line("frame_sum_ok", "% 251u", "% 250u", tmp_path)


def test_a_goal_on_a_path_of_cursors_into_one_buffer_is_solved_along_it(
        unit: GeneratedUnit, tmp_path: Path) -> None:
    """Only cursors into one buffer, head before tail, wrap around; the case of that path
    has a ring of size 0, and the goals of that path (an operand of `used + size`, a use
    of the sum), run again from the entry, place the cursors as that path did, so a wrap
    that adds nothing fails."""
    def cursors(case: Case) -> dict[str, PointerValue]:
        return {p.name: p.value for p in case.params if isinstance(p.value, PointerValue)}
    wrapped = [c for c in unit.functions["ring_used"].cases if is_extra(c)
               for t in [cursors(c)] if t["tail"].target == t["head"].target
               and t["head"].offset < t["tail"].offset and _returned(c) > 0]
    assert wrapped, unit.functions["ring_used"].cases
    assert unit.kills_line("ring_used", "used = used + size;", ";", tmp_path)
