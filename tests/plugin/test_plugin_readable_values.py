"""Enums by their enumerators and masks in hex: `{"@enum": ...}` and `"0x..."` in the
export, the names and hex literals in the driver, both in failure messages (of pytest and
of `make run`); the export replays under pytest and make, and so does one written with
plain numbers."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import output, run_ctgen

UNIT = r"""#include <stdint.h>

typedef enum { EV_NONE, EV_RX, EV_TX, EV_ERR } event_t;
typedef enum { ST_IDLE, ST_RECV, ST_SEND, ST_FAULT } state_t;

#define SR_ERR  0x0Fu
#define SR_RXNE 0x20u
#define SR_TXE  0x80u

extern uint16_t hal_status(void);

state_t g_state = ST_IDLE;
uint32_t g_ctrl;

state_t uart_step(event_t ev)
{
    switch (g_state) {
    case ST_IDLE:
        if (ev == EV_RX) {
            g_state = ST_RECV;
        } else if (ev == EV_TX) {
            g_state = ST_SEND;
        }
        break;
    case ST_RECV:
    case ST_SEND:
        if (ev == EV_ERR) {
            g_state = ST_FAULT; /* on an error */
        } else if (ev == EV_NONE) {
            g_state = ST_IDLE;
        }
        break;
    default:
        g_state = ST_FAULT;
        break;
    }
    return g_state;
}

event_t uart_decode(uint32_t sr)
{
    if ((sr & SR_ERR) != 0u) {
        g_ctrl &= ~SR_TXE;
        return EV_ERR;
    }
    if ((sr & SR_RXNE) != 0u) {
        g_ctrl |= SR_RXNE;
        return EV_RX;
    }
    return (sr & SR_TXE) != 0u ? EV_TX : EV_NONE;
}

uint16_t pending_irqs(uint16_t enabled)
{
    uint16_t status = hal_status();

    return (uint16_t)(status & enabled);
}
"""

ENUMERATORS = {"EV_NONE": 0, "EV_RX": 1, "EV_TX": 2, "EV_ERR": 3,
               "ST_IDLE": 0, "ST_RECV": 1, "ST_SEND": 2, "ST_FAULT": 3}


def _values(doc: dict[str, Any], function: str) -> list[Any]:
    """The values of the cases of `function`: its parameters, globals, stub results and
    predictions, as the export writes them."""
    out: list[Any] = []
    for c in next(f for f in doc["functions"] if f["name"] == function)["cases"]:
        e = c["expected"]
        out += [b["value"] for b in (*c["params"], *c["globals"], *e["globals"])]
        out += [k["returns"] for s in c["stubs"] for k in s["calls"] if "returns" in k]
        out.append(e["returns"])
    return out


def _as_numbers(j: Any) -> Any:
    """The document as exports were written before these forms: enumerators and hex as
    numbers."""
    if isinstance(j, dict):
        if set(j) == {"@enum"}:
            return ENUMERATORS[j["@enum"]]
        return {k: _as_numbers(v) for k, v in j.items()}
    if isinstance(j, list):
        return [_as_numbers(v) for v in j]
    if isinstance(j, str) and re.fullmatch(r"0x[0-9a-f]+", j):
        return int(j, 16)
    return j


def _make_run(export: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "-s", "-C", str(export), "run"], capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_enumerators_and_masks_in_the_export_messages_and_driver(
        ctgen_dir: pytest.Pytester) -> None:
    unit = Path(ctgen_dir.path, "uart.c")
    unit.write_text(UNIT)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "uart.c")
    assert result.ret == 0, output(result)
    export = Path(ctgen_dir.path, "out/uart/uart.ctgen.json")
    doc = json.loads(export.read_text())

    # the state machine's values by their enumerators (a value none has stays a number)
    step = _values(doc, "uart_step")
    assert {"@enum": "ST_FAULT"} in step and {"@enum": "EV_ERR"} in step, step
    assert all((isinstance(v, dict) and v["@enum"] in ENUMERATORS) or
               (isinstance(v, int) and v not in ENUMERATORS.values()) for v in step), step
    # the register and the control word in hex, to their types' widths
    decode = _values(doc, "uart_decode")
    assert all(isinstance(v, dict) or re.fullmatch(r"0x[0-9a-f]{8}", v) for v in decode)
    # SR_RXNE alone of the bits the code tests (the bytes it never reads are distinct)
    assert any(isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]{6}20", v) for v in decode) \
        and {"@enum": "EV_RX"} in decode, decode
    # a stub's result combined with a mask through a local, and what it returns
    irqs = _values(doc, "pending_irqs")
    assert all(re.fullmatch(r"0x[0-9a-f]{4}", v) for v in irqs), irqs

    driver = Path(ctgen_dir.path, "out/uart/ctgen_driver.c").read_text()
    assert re.search(r"event_t ctgen_arg0 = EV_ERR;", driver), driver
    assert "g_state = ST_RECV;" in driver and re.search(r"g_ctrl = 0x[0-9a-f]{8}U?;", driver)
    assert re.search(r"ctgen_check_enum\(ctgen_c, \"g_state\", g_state, ST_FAULT, ", driver)
    assert re.search(r"ctgen_check_hex\(ctgen_c, \"g_ctrl\", g_ctrl, 0x[0-9a-f]{8}U?, 8\);",
                     driver)

    make = _make_run(export.parent)
    assert make.returncode == 0, make.stdout + make.stderr
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    passed = replay.parseoutcomes()["passed"]

    # an export of plain numbers (written before these forms) replays the same cases
    numbers = _as_numbers(doc)
    export.write_text(json.dumps(numbers, indent=2) + "\n")
    assert "@enum" not in export.read_text() and '"0x' not in export.read_text()
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == passed

    # the unit goes wrong: its failures name the enumerators and show the masks in hex,
    # in pytest (also from the export of numbers) and under make
    unit.write_text(UNIT.replace("g_state = ST_FAULT; /* on an error */", "g_state = ST_IDLE;")
                    .replace("g_ctrl |= SR_RXNE;", "g_ctrl |= SR_TXE;"))
    for text in (json.dumps(numbers, indent=2), json.dumps(doc, indent=2)):
        export.write_text(text + "\n")
        failed = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
        shown = output(failed)
        # the cases of the changed paths fail: ST_FAULT's, and each of SR_RXNE's
        failing = re.findall(r"^FAILED out/uart/uart\.ctgen\.json::(\w+)\[", shown, re.M)
        assert sorted(set(failing)) == ["uart_decode", "uart_step"], shown
        assert failed.parseoutcomes()["failed"] == len(failing), shown
        assert "return: predicted ST_FAULT, observed ST_IDLE" in shown, shown
        assert "g_state: predicted ST_FAULT, observed ST_IDLE" in shown, shown
        assert re.search(r"g_ctrl: predicted 0x[0-9a-f]{8}, observed 0x[0-9a-f]{8}", shown), \
            shown
        assert re.search(r"^  ev = EV_ERR$", shown, re.M), shown
        assert re.search(r"^  g_state = ST_(RECV|SEND) \(global\)$", shown, re.M), shown
        assert re.search(r"^  sr = 0x[0-9a-f]{6}20$", shown, re.M), shown
        assert re.search(r"^  g_ctrl = 0x[0-9a-f]{8}$", shown, re.M), shown
    make = _make_run(export.parent)
    assert make.returncode != 0
    assert re.search(r"FAIL uart_step\[case\d+\]: return: predicted ST_FAULT, observed "
                     r"ST_IDLE; g_state: predicted ST_FAULT, observed ST_IDLE", make.stdout), \
        make.stdout
    assert re.search(r"FAIL uart_decode\[case\d+\]: g_ctrl: predicted 0x[0-9a-f]{8}, observed "
                     r"0x[0-9a-f]{8}", make.stdout), make.stdout
