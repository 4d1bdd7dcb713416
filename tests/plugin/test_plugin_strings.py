"""Text in arrays of plain char is shown as strings: `{"@string": ...}` in the export, C
literals in failure messages, string literals or character constants in the driver; the
export replays under pytest and make, and so does one written with lists of numbers."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import output, run_ctgen

UNIT = r"""
char g_last[4];

int parse_cmd(const char *cmd, char reply[8])
{
    if (cmd[0] != '$') {
        reply[0] = '?';
        reply[1] = '\0';
        return -1;
    }
    if (cmd[1] == '*' && cmd[2] == '0' && cmd[3] == '0') {
        reply[0] = 'O';
        reply[1] = 'K';
        reply[2] = '\0';
        g_last[0] = cmd[1];
        return 0;
    }
    reply[0] = '"';
    reply[1] = '\\';
    reply[2] = '\0';
    return 1;
}
"""


def _strings(j: Any) -> list[str]:
    """The strings of the values of an export document."""
    if isinstance(j, dict):
        found = [j["@string"]] if isinstance(j.get("@string"), str) else []
        return found + [s for v in j.values() for s in _strings(v)]
    if isinstance(j, list):
        return [s for v in j for s in _strings(v)]
    return []


def _as_lists(j: Any) -> Any:
    """The document as exports were written before strings: `char @[N]` values as lists
    of N numbers."""
    if isinstance(j, dict):
        m = re.fullmatch(r"char @\[(\d+)\]", str(j.get("declaration", "")))
        if m and isinstance(j.get("value"), dict) and "@string" in j["value"]:
            data = j["value"]["@string"].encode("ascii")
            return {**j, "value": list(data + bytes(int(m.group(1)) - len(data)))}
        return {k: _as_lists(v) for k, v in j.items()}
    if isinstance(j, list):
        return [_as_lists(v) for v in j]
    return j


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_strings_in_the_export_messages_and_driver(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", cmd=UNIT)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "cmd.c")
    assert result.ret == 0, output(result)
    export = Path(ctgen_dir.path, "out/cmd/cmd.ctgen.json")
    text = export.read_text()
    doc = json.loads(text)
    strings = _strings(doc)
    assert any(s.startswith("$*00") for s in strings), strings
    assert any(s.startswith("OK\0") for s in strings), strings
    assert any(s.startswith('"\\\0') for s in strings), strings  # a quote and a backslash
    assert "[36, 42" not in text.replace("\n", "").replace(" ", "")
    driver = Path(ctgen_dir.path, "out/cmd/ctgen_driver.c").read_text()
    assert re.search(r"""= ("\$\*00|\{ '\$', '\*', '0', '0')""", driver), driver

    make = subprocess.run(["make", "-s", "-C", str(export.parent), "run"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    passed = replay.parseoutcomes()["passed"]

    # an export of lists of numbers replays the same cases
    export.write_text(json.dumps(_as_lists(doc), indent=2) + "\n")
    assert "@string" not in export.read_text()
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == passed

    # a wrong prediction fails, and its message shows the strings as C literals
    case = next(c for f in doc["functions"] for c in f["cases"]
                if c["expected"]["returns"] == 0)
    case["expected"]["returns"] = 7
    export.write_text(json.dumps(doc, indent=2) + "\n")
    failed = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert failed.parseoutcomes()["failed"] == 1, output(failed)
    assert re.search(r'ctgen_obj_cmd = "\$\*00', output(failed)), output(failed)
    assert re.search(r'ctgen_obj_reply = "OK\\0', output(failed)), output(failed)
