"""Modelled C library functions and stub out-parameters: every generated case passes
against the compiled code (the real C library, generated stubs) and reaches every outcome."""
from __future__ import annotations

import pytest

from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun
from pytest_ctgen.pipeline import generate_file

UNIT = r"""
#include <stdint.h>
#include <string.h>

int sensor_read(uint8_t ch, int16_t *value);   /* a driver: defined elsewhere */

int frame_ok(const uint8_t *frame, size_t n)
{
    uint8_t copy[8];
    if (n > sizeof copy) {
        return -1;
    }
    memset(copy, 0, sizeof copy);
    memcpy(copy, frame, n);
    if (memcmp(copy, "OK", 2) == 0) {
        return 1;
    }
    return 0;
}

int command(const char *cmd)
{
    if (strlen(cmd) > 4) {
        return -1;
    }
    if (strcmp(cmd, "go") == 0) {
        return 1;
    }
    if (strncmp(cmd, "st", 2) == 0) {
        return 2;
    }
    if (strchr(cmd, '=') != NULL) {
        return 3;
    }
    return 0;
}

int both_sensors_high(void)
{
    int16_t a = 0;
    int16_t b = 0;
    if (sensor_read(0u, &a) != 0 || sensor_read(1u, &b) != 0) {
        return -1;
    }
    return (a > 100 && b > a) ? 1 : 0;
}
"""


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("libc")
    unit = tmp / "libc_unit.c"
    unit.write_text(UNIT)
    generated = generate_file(unit, "libc_unit.c", Options())
    return generated, FileRun(unit, generated, Options(), tmp / "builds")


@pytest.mark.parametrize("function", ["frame_ok", "command", "both_sensors_high"])
def test_cases_pass_and_cover_every_outcome(generated_run, function: str) -> None:  # type: ignore[no-untyped-def]
    generated, run = generated_run
    fn = next(f for f in generated.cases.functions if f.name == function)
    assert fn.stop_reason == "exhausted", (fn.skip_reason, fn.not_reached)
    assert fn.cases
    for case in fn.cases:
        result = run.run(fn.name, case.number)
        assert result.passed, (case.id, result.message)
    cov = run.coverage()[function]
    assert cov.branches_covered == cov.branches_total, cov


def test_stub_out_parameters_are_scripted_per_call(generated_run) -> None:  # type: ignore[no-untyped-def]
    generated, _ = generated_run
    fn = next(f for f in generated.cases.functions if f.name == "both_sensors_high")
    high = [c for c in fn.cases if c.expected.returns is not None
            and c.expected.returns.value == 1]
    assert len(high) == 1
    (script,) = high[0].stubs
    assert script.name == "sensor_read" and len(script.calls) == 2
    assert [w.name for call in script.calls for w in call.writes] == ["(*value)", "(*value)"]
    a, b = (call.writes[0].value.value for call in script.calls)
    assert 100 < a < b
    assert [s.name for s in generated.cases.stubs] == ["sensor_read"]


def test_memset_over_a_struct_with_pointers(generated_unit) -> None:  # type: ignore[no-untyped-def]
    """Zeroing a struct that holds pointers (a `struct tm`, a handle) writes over the
    pointers' bytes: they read back as NULL afterwards, and the function is generated."""
    unit = generated_unit("clear.c", r"""
#include <stdint.h>
#include <string.h>
struct handle { const char *name; int level; struct handle *next; };
int reset(struct handle *h, int level)
{
    if (level < 0)
        return -1;
    memset(h, 0, sizeof(*h));
    h->level = level;
    return (int)((uintptr_t)h->next | (uintptr_t)h->name) + h->level;
}
""")
    unit.assert_fully_covered("reset")
    for case in unit.functions["reset"].cases:
        level = case.params[1].value.value  # type: ignore[union-attr]
        assert case.expected.returns.value == (-1 if level < 0 else level)  # type: ignore
