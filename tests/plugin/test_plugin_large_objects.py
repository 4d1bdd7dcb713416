"""Bounded resources for large objects (issue 18): `pytest --ctgen` on a unit with a
16 MiB global buffer stays within the default budget and far below 1 GB in every process,
writes a small export whose driver compiles, and the export replays; a crafted sparse
value in the export is refused with its field named."""
from __future__ import annotations

import json
import re
import resource

import pytest

from plugin_helpers import QUIET, output, run_ctgen

UNIT = """\
#include <stdint.h>
#include <string.h>
#define N (1u << 24)
uint8_t big[N];
const uint8_t table[N] = {1, 2, 3, [N - 1] = 200};

int touch(unsigned i, unsigned j)
{
    big[i % N] = 7;
    if (big[j % N] == 7 && i != j)
        return 1;
    return 0;
}

int lookup(unsigned i)
{
    if (table[i % N] == 200)
        return 2;
    if (table[i % N] == 3)
        return 1;
    return 0;
}

void clear(void)
{
    memset(big, 0, sizeof big);
}
"""

GIB = 1 << 30


def _export(pytester: pytest.Pytester) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    (pytester.path / "big.c").write_text(UNIT, encoding="utf-8")
    return run_ctgen(pytester, "-q", "--ctgen-export", "exp", "big.c")


def test_a_16_mib_buffer_costs_little_and_replays(pytester: pytest.Pytester) -> None:
    result = _export(pytester)
    text = output(result)
    assert result.ret == 0, text
    # within the budget: every function's search is exhausted below (the time safety net
    # would say "time budget"); no wall-clock bound, which a loaded machine would break
    # the largest process of the run, generation children included (Linux: kilobytes)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 < GIB
    for name in ("touch", "lookup", "clear"):
        assert re.search(rf"big\.c::{name}\s+\d+\s+100\.0%\s+(100\.0%|-)\s+-\s+exhausted",
                         text), text
    cases = pytester.path / "exp/big/big.ctgen.json"
    assert cases.stat().st_size < 20_000
    assert (pytester.path / "exp/big/ctgen_driver.c").stat().st_size < 20_000
    doc = json.loads(cases.read_text())
    values = [g["value"] for f in doc["functions"] for c in f["cases"]
              for g in c["globals"] + c["expected"]["globals"]]
    assert values and all(set(v) == {"@bytes"} and v["@bytes"]["size"] == 1 << 24
                          for v in values)

    replay = pytester.runpytest_subprocess(*QUIET, "exp", timeout=180)
    assert replay.ret == 0, output(replay)
    assert re.search(r"\d+ passed", output(replay))


def test_a_crafted_sparse_value_is_refused_at_replay(pytester: pytest.Pytester) -> None:
    result = _export(pytester)
    assert result.ret == 0, output(result)
    cases = pytester.path / "exp/big/big.ctgen.json"
    doc = json.loads(cases.read_text())
    case = doc["functions"][0]["cases"][0]
    case["globals"][0]["value"]["@bytes"]["at"] = {str(1 << 24): 1}
    cases.write_text(json.dumps(doc, indent=2))
    replay = pytester.runpytest_subprocess(*QUIET, "exp", timeout=180)
    assert replay.ret != 0
    text = output(replay)
    assert "functions[0].cases[0].globals[0].value.@bytes.at.16777216: offset 16777216 " \
           "is outside the object (16777216 bytes)" in text, text
    assert "Traceback" not in text
