"""`--ctgen-setup` / ini `ctgen_setup` end to end: the cases of the functions that take a
handle start from what the unit's init function and operations build; the harness, the
exported driver and a replay make the same calls; a bug in the init function fails the
cases of the functions after it, and the failure shows the setup calls. A setting that
is not GLOB: INIT [OPERATION ...] is a usage error; a setup function the unit does not
define skips the functions it was meant for, with the reason and where."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from plugin_helpers import failure_lines, output, run_ctgen

UNIT = r"""#include <stdint.h>
#define MB_CAP 4u
typedef struct { uint16_t items[MB_CAP]; uint8_t head; uint8_t count; uint8_t ready; } mailbox_t;

void mb_init(mailbox_t *mb)
{
    mb->head = 0;
    mb->count = 0;
    mb->ready = 1;
}

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
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_cases_start_from_the_built_state_in_pytest_the_driver_and_a_replay(
        ctgen_dir: pytest.Pytester) -> None:
    unit = Path(ctgen_dir.path, "mailbox.c")
    unit.write_text(UNIT, encoding="utf-8")
    ctgen_dir.makeini("[pytest]\nctgen_setup =\n    mb_*: mb_init mb_post\n")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "mailbox.c")
    assert result.ret == 0, output(result)
    export = Path(ctgen_dir.path, "out/mailbox")
    doc = json.loads((export / "mailbox.ctgen.json").read_text(encoding="utf-8"))
    take = next(f for f in doc["functions"] if f["name"] == "mb_take")
    built = [c for c in take["cases"] if "setup" in c]
    assert built and [s["function"] for s in built[0]["setup"]] == ["mb_init", "mb_post"]
    driver = (export / "ctgen_driver.c").read_text(encoding="utf-8")
    assert "(void)mb_init(ctgen_setup0_0);" in driver
    make = subprocess.run(["make", "-s", "-C", str(export), "run"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr

    # a bug in the init function: every case built on its state fails, in the driver...
    unit.write_text(UNIT.replace("mb->head = 0;", "mb->head = 1;"), encoding="utf-8")
    make = subprocess.run(["make", "-s", "-C", str(export), "run"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert make.returncode != 0, make.stdout
    # ... and in a replay, which shows the calls the case starts with
    replay = run_ctgen(ctgen_dir, "-q", "out")
    text = output(replay)
    assert replay.ret == 1, text
    lines = failure_lines(replay)
    at = lines.index("setup:")
    handle = '{"@pointer": "ctgen_obj_mb", "offset": 0}'
    assert lines[at + 1] == f"  mb_init(mb = {handle})", text
    assert lines[at + 2].startswith(f"  mb_post(mb = {handle}, item = "), text


def test_a_setting_that_is_not_a_setup_is_a_usage_error(ctgen_dir: pytest.Pytester) -> None:
    Path(ctgen_dir.path, "mailbox.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-setup", "mb_* mb_init", "mailbox.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--ctgen-setup / ctgen_setup: 'mb_* mb_init' is not GLOB: INIT "
            "[OPERATION ...] (function names) or GLOB: auto") in output(result)


def test_a_setup_function_the_unit_does_not_define_skips_with_the_reason(
        ctgen_dir: pytest.Pytester) -> None:
    Path(ctgen_dir.path, "mailbox.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-rs", "--ctgen-setup", "mb_t*: mb_start", "mailbox.c")
    text = output(result)
    assert result.ret == 0, text
    assert ("mailbox.c:21:5: setup 'mb_t*: mb_start': the unit defines no function "
            "'mb_start'") in text
    outcomes = result.parseoutcomes()  # only mb_take, which the glob names, is skipped
    assert outcomes["skipped"] == 1 and outcomes["passed"] > 0, text
