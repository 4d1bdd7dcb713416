"""A case predicts every stub call in order with its arguments: an exported case fails,
replayed and under `make run`, when the unit calls a stub with another argument (a HAL
write to the wrong register, two arguments swapped, a pointer one byte off)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from plugin_helpers import QUIET, output, run_ctgen

UNIT = """\
#include <stdint.h>

extern void spi_write(uint8_t reg, uint8_t value);
extern int16_t spi_read(uint8_t reg);
extern void hal_send(const uint8_t *buf, uint8_t n);

void radio_set(uint8_t reg, uint8_t value)
{
    if (value > 10u) {
        spi_write(reg, 10u);
    } else {
        spi_write(reg, value);
    }
    spi_write((uint8_t)(reg + 1u), 0x01u);
}

int16_t radio_status(void)
{
    int16_t s = spi_read(0x20u);
    if (s < 0) {
        spi_write(0x21u, 0x80u);
    }
    return s;
}

void send_tail(const uint8_t *buf, uint8_t n)
{
    if (n > 2u) {
        hal_send(buf + 2, (uint8_t)(n - 2u));
    }
}
"""

#: The unit changed so that each stub call count stays the same and only an argument
#: differs: the second register of radio_set, the arguments of radio_status's write
#: swapped, the buffer one byte off.
CHANGED = (UNIT.replace("(uint8_t)(reg + 1u)", "(uint8_t)(reg + 2u)")
           .replace("spi_write(0x21u, 0x80u)", "spi_write(0x80u, 0x21u)")
           .replace("hal_send(buf + 2", "hal_send(buf + 1"))


def _export(pytester: pytest.Pytester) -> dict:
    pytester.mkdir("src")
    (pytester.path / "src" / "radio.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(pytester, "-q", "--ctgen-export", "out", "src/radio.c")
    assert result.ret == 0, output(result)
    return json.loads((pytester.path / "out/radio/radio.ctgen.json").read_text())


def _cases(doc: dict, function: str) -> list[dict]:
    return next(f["cases"] for f in doc["functions"] if f["name"] == function)


def test_cases_predict_stub_calls_in_order_with_their_arguments(
        ctgen_dir: pytest.Pytester) -> None:
    doc = _export(ctgen_dir)
    for case in _cases(doc, "radio_set"):
        reg = case["params"][0]["value"]
        value = case["params"][1]["value"]
        assert case["expected"]["calls_in_order"] == [
            {"stub": "spi_write", "arguments": {"reg": reg, "value": min(value, 10)}},
            {"stub": "spi_write", "arguments": {"reg": (reg + 1) % 256, "value": 1}}]
    calls = [c["expected"]["calls_in_order"] for c in _cases(doc, "radio_status")]
    read = {"stub": "spi_read", "arguments": {"reg": 0x20}}
    written = [read, {"stub": "spi_write", "arguments": {"reg": 0x21, "value": 0x80}}]
    assert calls.count(written) == 1 and {len(c) for c in calls} == {1, 2}, calls
    assert all(c in ([read], written) for c in calls), calls
    sent = [c["expected"]["calls_in_order"] for c in _cases(doc, "send_tail")]
    [buf] = [o["value"] for c in _cases(doc, "send_tail") for o in c["objects"]
             if c["expected"]["calls_in_order"]]
    assert sorted(sent, key=len) == [[], [{"stub": "hal_send", "arguments": {
        "buf": {"@pointer": "ctgen_obj_buf", "offset": 2}, "n": 1}, "contents": [  # the rest
        {"name": "buf", "declaration": f"unsigned char @[{len(buf) - 2}]", "value": buf[2:]}]}]]


def test_a_stub_called_with_another_argument_fails_replay_and_make_run(
        ctgen_dir: pytest.Pytester) -> None:
    _export(ctgen_dir)
    (ctgen_dir.path / "src" / "radio.c").write_text(CHANGED, encoding="utf-8")

    replay = ctgen_dir.runpytest_subprocess(*QUIET, "-v", "out", timeout=180)
    text = output(replay)
    assert replay.ret == 1, text
    replayed = _failure_lines(text)
    assert replayed, text
    for case in ("radio_set[case1]", "radio_set[case2]"):  # both make the second call
        assert re.search(rf"::{re.escape(case)} FAILED", text), text
    made = _failing_make_run(ctgen_dir.path / "out/radio")
    if made is not None:
        assert _failure_lines(made) == replayed, made


def _failing_make_run(export: Path) -> str | None:
    """The output of the export's `make run`, which must fail (None without make)."""
    if shutil.which("make") is None:
        return None
    run = subprocess.run(["make", "-s", "-C", str(export), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode != 0, run.stdout + run.stderr
    return run.stdout


def _failure_lines(text: str) -> list[str]:
    """What the failures say of the stubs' arguments, checked against the changes of
    CHANGED: each of the three shows up (the same message once)."""
    found = sorted(set(re.findall(r"call \d of \w+: argument \w+: predicted [^,;]+, "
                                  r"observed [^;\n]+", text)))
    second = [f for f in found if f.startswith("call 2 of spi_write: argument reg:")]
    assert second, found  # the cases of radio_set may share their register
    for line in second:
        m = re.fullmatch(r".*predicted (\d+), observed (\d+)", line)
        assert m and int(m.group(2)) == (int(m.group(1)) + 1) % 256, line
    assert "call 1 of spi_write: argument reg: predicted 33, observed 128" in found
    assert "call 1 of spi_write: argument value: predicted 128, observed 33" in found
    assert "call 1 of hal_send: argument buf: predicted ctgen_obj_buf + 2 bytes, " \
        "observed another address" in found
    assert not any("radio_status" in f or "argument n:" in f for f in found), found
    return found


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_calls_past_the_log_fail_the_case_clearly(ctgen_dir: pytest.Pytester) -> None:
    """The runtime logs so many calls (CTGEN_MAX_STUB_CALLS): a case that makes more fails
    saying so, and one within the bound passes."""
    doc = _export(ctgen_dir)
    cases = sum(len(f["cases"]) for f in doc["functions"])
    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out/radio"), "run",
                          "CFLAGS=-O0 -DCTGEN_MAX_STUB_CALLS=1"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode != 0, run.stdout + run.stderr
    failed = [line for line in run.stdout.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 3, run.stdout  # radio_set's two, radio_status' with a write
    for line in failed:
        assert "stub call 2: predicted call " in line, line
        assert "the log of stub calls holds 1 (CTGEN_MAX_STUB_CALLS" in line, line
    assert run.stdout.splitlines()[-1] == f"{cases - 3} passed, 3 failed", run.stdout


CONTEXT_UNIT = """\
typedef int (*cmp_fn)(const void *a, const void *b);
void sort_with(void *base, unsigned n, void *context);

int sorted_first(int *v, unsigned n, cmp_fn cmp)
{
    if (n == 0u) {
        return -1;
    }
    sort_with(v, n, (void *)cmp);
    return v[0];
}
"""


def test_a_callback_passed_as_a_context_pointer_is_not_checked(
        ctgen_dir: pytest.Pytester) -> None:
    """A function passed where the stub takes a `void *` (a callback's context, as qsort_r
    wrappers do) is no object a case can name: that argument is left unchecked, the
    others are checked (before, generating the harness failed)."""
    (ctgen_dir.path / "ctx.c").write_text(CONTEXT_UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "ctx.c")
    assert result.ret == 0, output(result)
    result.assert_outcomes(passed=2)
    doc = json.loads((ctgen_dir.path / "out" / "ctx" / "ctx.ctgen.json").read_text())
    [called] = [c for c in doc["functions"][0]["cases"] if c["expected"]["calls_in_order"]]
    [call] = called["expected"]["calls_in_order"]
    assert call["stub"] == "sort_with" and set(call["arguments"]) == {"base", "n"}


SENT_UNIT = """\
#include <stdint.h>

struct motor_cfg {
    uint16_t speed;
    uint8_t dir;
};

extern int spi_transfer(uint8_t *frame, uint16_t len);
extern void uart_puts(const char *text);
extern void motor_apply(const struct motor_cfg *cfg);

int send_command(uint8_t command, uint8_t argument)
{
    uint8_t frame[3];

    frame[0] = 0xA5u;
    frame[1] = command;
    frame[2] = argument;
    if (spi_transfer(frame, 3u) != 0) {
        uart_puts("ERR");
        return -1;
    }
    return frame[2];
}

void motor_start(uint16_t speed)
{
    struct motor_cfg cfg;

    cfg.speed = speed > 1000u ? 1000u : speed;
    cfg.dir = 1u;
    motor_apply(&cfg);
}
"""

#: What the stubs are given changed, their arguments not: the frame's bytes swapped, the
#: text, a member of the struct.
SENT_CHANGED = (SENT_UNIT.replace("frame[1] = command;", "frame[1] = argument;")
                .replace("frame[2] = argument;", "frame[2] = command;")
                .replace('"ERR"', '"ERX"').replace("cfg.dir = 1u;", "cfg.dir = 2u;"))


def test_what_a_stub_is_given_through_a_pointer_is_checked(
        ctgen_dir: pytest.Pytester) -> None:
    """The bytes of a frame a HAL call sends, a text, a struct: what each pointer argument
    points to when the stub is called is predicted (before the stub writes the reply into
    the frame), and a case fails, replayed and under `make run`, when it differs."""
    (ctgen_dir.path / "sent.c").write_text(SENT_UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "sent.c")
    assert result.ret == 0, output(result)
    doc = json.loads((ctgen_dir.path / "out/sent/sent.ctgen.json").read_text())
    sent = {}
    for case in _cases(doc, "send_command"):
        command, argument = (p["value"] for p in case["params"])
        calls = case["expected"]["calls_in_order"]
        assert calls[0]["contents"] == [{"name": "frame", "declaration": "unsigned char @[3]",
                                         "value": [0xA5, command, argument]}], calls
        sent.update({k["stub"]: k["contents"] for k in calls[1:]})
    assert sent == {"uart_puts": [{"name": "text", "declaration": "char @[4]",
                                   "value": {"@string": "ERR"}}]}
    for case in _cases(doc, "motor_start"):
        speed = min(case["params"][0]["value"], 1000)
        [call] = case["expected"]["calls_in_order"]
        assert call["contents"] == [{"name": "cfg", "declaration": "struct motor_cfg @[1]",
                                     "value": [{"speed": speed, "dir": 1}]}], call

    (ctgen_dir.path / "sent.c").write_text(SENT_CHANGED, encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    text = output(replay)
    assert replay.ret == 1, text
    replay.assert_outcomes(failed=sum(len(f["cases"]) for f in doc["functions"]))
    found = _sent_failures(text)
    made = _failing_make_run(ctgen_dir.path / "out/sent")
    if made is not None:
        assert _sent_failures(made) == found, made


def _sent_failures(text: str) -> set[str]:
    """What the failures say of what the stubs were given: each change of SENT_CHANGED."""
    found = set(re.findall(r"call 1 of \w+: \w+\[\d\](?:\.\w+)?: predicted [^,;]+, "
                           r"observed [^;\n]+", text))
    kinds = {re.sub(r": predicted.*", "", f) for f in found}
    assert kinds == {"call 1 of spi_transfer: frame[1]", "call 1 of spi_transfer: frame[2]",
                     "call 1 of uart_puts: text[2]", "call 1 of motor_apply: cfg[0].dir"}, found
    assert "call 1 of uart_puts: text[2]: predicted 'R', observed 'X'" in found, found
    assert "call 1 of motor_apply: cfg[0].dir: predicted 1, observed 2" in found, found
    return found
