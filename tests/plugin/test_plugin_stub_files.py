"""End to end: the ini settings `ctgen_stub_specs` (specifications of external functions in
a file of their own) and `ctgen_sources` (the user's implementations, executed and linked
instead of stubs), and the export of a unit that specifies its stubs itself."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from plugin_helpers import run_ctgen

HAL_H = """\
#include <stdint.h>
extern int16_t temp_read(uint8_t sensor);
extern uint8_t crc8(const uint8_t *data, uint8_t len);
extern uint8_t bus_byte(void);
"""

SPEC = """\
#include "hal.h"
#include "ctgen.h"
/* sensors 0..3 deliver -40..125 degrees */
int16_t temp_read(uint8_t sensor)
{
    __rtt_extern();
    __rtt_precondition(sensor < 4);
    __rtt_postcondition(__rtt_return >= -40 && __rtt_return <= 125);
    return 0;
}
"""

CRC = """\
#include "hal.h"
uint8_t crc8(const uint8_t *data, uint8_t len)
{
    uint8_t crc = 0;
    for (uint8_t i = 0; i < len; i++) {
        crc ^= data[i];
    }
    return crc;
}
"""

MONITOR = """\
#include "hal.h"

int classify(uint8_t sensor)
{
    int16_t t;
    if (sensor > 3)
        return -1;
    t = temp_read(sensor);
    if (t < -50)
        return 9;
    if (t > 100)
        return 2;
    if (t < 0)
        return 1;
    return 0;
}

int frame_ok(uint8_t a, uint8_t b)
{
    uint8_t frame[3];
    frame[0] = a;
    frame[1] = b;
    frame[2] = bus_byte();
    if (crc8(frame, 2) != frame[2])
        return 0;
    return 1;
}
"""


def _project(pytester: pytest.Pytester) -> None:
    from pytest_ctgen.c_harness_files import harness_dir

    pytester.makeini("[pytest]\nctgen_stub_specs = specs/hal_spec.c\n"
                     "ctgen_sources = sim/crc_impl.c\nctgen_include_dirs = src\n")
    for name, text in {"src/hal.h": HAL_H, "src/monitor.c": MONITOR,
                       "specs/hal_spec.c": SPEC, "sim/crc_impl.c": CRC,
                       "src/ctgen.h": (harness_dir() / "ctgen.h").read_text()}.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_spec_file_narrows_stub_and_sources_are_executed(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = run_ctgen(pytester, "src", "--ctgen-report", "term-missing",
                       "--ctgen-report", "json:report.json")
    result.assert_outcomes(passed=7)
    # the specification's range makes `t < -50` false on every path (one of classify's
    # five cases is a boundary case, --ctgen-boundary-cases)
    result.stdout.re_match_lines([r"src/monitor.c::classify\s+5\s+90.9%\s+87.5%\s+9:true\s+"
                                  r"exhausted"])
    # crc8 runs for real (symbolically in generation, compiled in the run): its result is
    # the XOR of the frame, and only bus_byte is a stub
    result.stdout.re_match_lines([r"src/monitor.c::frame_ok\s+2\s+100.0%\s+100.0%"])
    report = json.loads((pytester.path / "report.json").read_text())
    functions = {f["function"]: f for f in report["functions"]}
    assert set(functions) == {"classify", "frame_ok"}  # no case items for spec or source


def test_missing_spec_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nctgen_stub_specs = nowhere.c\n")
    pytester.makefile(".c", unit="int f(int x) { return x; }\n")
    result = run_ctgen(pytester, "unit.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ctgen_stub_specs: no such file: *nowhere.c*"])


UNIT_WITH_SPEC = """\
#include <stdint.h>
#include "ctgen.h"

uint16_t adc_sample(uint8_t channel)
{
    __rtt_extern();
    __rtt_precondition(channel < 8);
    __rtt_postcondition(__rtt_return <= 4095);
    return 0;
}

int scaled(uint8_t channel)
{
    uint16_t raw;
    if (channel >= 8)
        return -1;
    raw = adc_sample(channel);
    if (raw > 4095)
        return -2;
    return raw > 4000 ? 1000 : raw / 4;
}
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_export_of_unit_specifying_its_stubs_runs_with_make(pytester: pytest.Pytester) -> None:
    from pytest_ctgen.c_harness_files import harness_dir

    pytester.makeini("[pytest]\n")
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "ctgen.h").write_text((harness_dir() / "ctgen.h").read_text())
    (pytester.path / "src" / "adc.c").write_text(UNIT_WITH_SPEC)
    result = run_ctgen(pytester, "src", "--ctgen-export", "out")
    outcomes = result.parseoutcomes()
    cases = outcomes["passed"]
    assert cases >= 3 and not outcomes.get("failed"), outcomes  # each outcome, boundaries
    export = pytester.path / "out" / "adc"
    copy = (export / "ctgen_unit.c").read_text()
    assert '#line 1 "../../src/adc.c"' in copy
    assert "uint16_t ctgen_spec_adc_sample(uint8_t channel)" in copy
    done = subprocess.run(["make", "-s", "-C", str(export), "run",
                           "CFLAGS=--coverage -O0 -Wall -Wextra -Werror=implicit"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{cases} passed, 0 failed" in done.stdout
