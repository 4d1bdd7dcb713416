"""Large objects cost what a path touches (issue 18): a global buffer of 64 KiB, 1 MiB or
16 MiB read and written at offsets the inputs choose, zero-initialised and initialised
tables, locals, structs and memset on large objects. Each case passes against gcc's
build, gcov sees every branch, and a case lists only the bytes that matter."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.cases import FilledBytesValue, IntValue
from pytest_ctgen.case_writer import value_to_json

Generate = Callable[[str, str], GeneratedUnit]


def buffer_unit(size: int) -> str:
    return f"""#include <stdint.h>
#define N {size}u
uint8_t big[N];

int f(unsigned i, unsigned j)
{{
    big[i % N] = 7;
    if (big[j % N] == 7 && i != j)
        return 1;
    return 0;
}}

int g(unsigned i)
{{
    if (big[i % N] == 42 && big[(i + 1) % N] == 43)
        return 1;
    return 0;
}}
"""


def filled_values(unit: GeneratedUnit, name: str) -> list[FilledBytesValue]:
    """The sparse values of every case of `name`: inputs and predictions."""
    out = []
    for case in unit.functions[name].cases:
        for v in case.values():
            if isinstance(v, FilledBytesValue):
                out.append(v)
    return out


@pytest.mark.parametrize("size", [1 << 16, 1 << 20, 1 << 24], ids=["64KiB", "1MiB", "16MiB"])
def test_a_large_global_buffer_costs_what_the_path_touches(generated_unit: Generate,
                                                          size: int) -> None:
    unit = generated_unit("big.c", buffer_unit(size))
    # exhausted within the deterministic work budget (no wall-clock bound: a loaded
    # machine would break it; the times are measured in the note)
    unit.assert_fully_covered("f", "g")
    values = filled_values(unit, "f") + filled_values(unit, "g")
    assert values and all(v.size == size for v in values)
    assert all(len(v.at) <= 4 for v in values)  # the bytes that matter, not the object
    assert all(len(str(value_to_json(v))) < 200 for v in values)
    # g's true outcome needs two neighbouring bytes of its input buffer
    (true_case,) = [c for c in unit.functions["g"].cases if c.expected.returns == IntValue(1)]
    (i,) = true_case.params
    (buffer,) = true_case.globals
    assert isinstance(i.value, IntValue) and isinstance(buffer.value, FilledBytesValue)
    k = i.value.value % size
    assert byte_at(buffer.value, k) == 42 and byte_at(buffer.value, (k + 1) % size) == 43


def byte_at(v: FilledBytesValue, k: int) -> int:
    return dict(v.at).get(k, v.fill)


def test_large_tables_read_at_a_symbolic_index(generated_unit: Generate) -> None:
    unit = generated_unit("tables.c", """#include <stdint.h>
#define N 8192u
const uint8_t tab[N] = {1, 2, 3, [5000] = 9, [8191] = 200};
static uint8_t zeros[N];
static const uint16_t wide[N] = {[4095] = 0xBEEF};

int table(unsigned i)
{
    if (tab[i % N] == 9)
        return 1;
    if (tab[i % N] == 200)
        return 2;
    if (tab[i % N] == 3)
        return 3;
    return 0;
}

int zero_table(unsigned i)
{
    zeros[i % N] = 1;
    if (zeros[(i + 1) % N] == 1)
        return 1;
    return 0;
}

int wide_table(unsigned i)
{
    if (wide[i % N] == 0xBEEF)
        return 1;
    return 0;
}
""")
    unit.assert_fully_covered("table", "zero_table", "wide_table")


def test_large_locals_structs_and_library_calls(generated_unit: Generate) -> None:
    unit = generated_unit("locals.c", """#include <stdint.h>
#include <string.h>
#define N 8192u
uint8_t buf[N];
struct big { int hdr; uint16_t data[N]; float scale; } rec;

int local_zero(unsigned i)
{
    uint8_t loc[N] = {0};
    loc[i % N] = 3;
    if (loc[5] == 3)
        return 1;
    return 0;
}

int static_local(unsigned i)
{
    static uint8_t s[N];
    s[i % N]++;
    if (s[3] == 1)
        return 1;
    return 0;
}

int cleared(unsigned char c)
{
    memset(buf, c, sizeof buf);
    if (buf[100] == 5)
        return 1;
    return 0;
}

int copy_in(unsigned i)
{
    uint8_t small[4] = {1, 2, 3, 4};
    memcpy(buf + (i % 100u), small, 4);
    if (buf[50] == 3)
        return 1;
    return 0;
}

int record(unsigned i)
{
    if (rec.hdr == 42 && rec.data[i % N] == 7) {
        rec.data[0] = 9;
        return 1;
    }
    return 0;
}

int scaled(void)
{
    if (rec.scale > 2.0f)
        return 1;
    return 0;
}

int sum(unsigned n)
{
    unsigned k, s = 0;
    for (k = 0; k < 8 && k < n; k++)
        s += buf[k * 1000u];
    if (s > 300)
        return 1;
    return 0;
}
""")
    unit.assert_fully_covered("local_zero", "cleared", "copy_in", "record", "scaled", "sum")
    # after the memset, the prediction is one fill byte
    for case in unit.functions["cleared"].cases:
        (written,) = case.expected.globals
        assert isinstance(written.value, FilledBytesValue) and not written.value.at


def test_string_functions_over_a_large_object_are_unsupported(
        generated_unit: Generate) -> None:
    unit = generated_unit("strings.c", """#include <string.h>
char text[8192];
int long_text(void) { if (strlen(text) > 3) return 1; return 0; }
""")
    fn = unit.functions["long_text"]
    assert not fn.cases and "strlen of up to 8192 bytes of the large object 'text'" in \
        (fn.skip_reason or "")


def test_a_struct_read_at_a_computed_position_of_a_large_object_is_unsupported(
        generated_unit: Generate) -> None:
    """A struct read whole needs its offset concrete: one choice per position, too many
    in a large object. Its members read one by one are scalars at a symbolic offset."""
    unit = generated_unit("points.c", """struct pt { int x, y; } pts[100000];
int whole(unsigned i) { struct pt p = pts[i % 100000u]; if (p.x > p.y) return 1; return 0; }
int members(unsigned i)
{
    if (pts[i % 100000u].x > pts[i % 100000u].y)
        return 1;
    return 0;
}
""")
    assert "an access of 8 bytes at one of 199999 computed positions in the large " \
        "object 'pts'" in (unit.functions["whole"].skip_reason or "")
    unit.assert_fully_covered("members")


def test_large_structs_copied_returned_and_pointed_to(generated_unit: Generate) -> None:
    """A copy touches every byte: up to LARGEST_COPY bytes are copied, a larger copy is
    unsupported. A large value returned is given sparsely too."""
    unit = generated_unit("structs.c", """struct big { int n; unsigned char d[8192]; } a, b;
struct huge { unsigned char d[1 << 20]; } h1, h2;
struct big get(void) { return a; }
int copy(unsigned i)
{
    a.d[i % 8192u] = 3;
    b = a;
    if (b.d[100] == 3)
        return 1;
    return 0;
}
void copy_huge(void) { h2 = h1; }
int first(struct big *p)
{
    if (p->n == 5 && p[1].d[7] == 9)
        return 1;
    return 0;
}
""")
    unit.assert_fully_covered("get", "copy", "first")
    (case,) = unit.functions["get"].cases
    assert isinstance(case.expected.returns, FilledBytesValue)
    assert "a copy of 1048576 bytes of the large object 'h1'" in \
        (unit.functions["copy_huge"].skip_reason or "")
