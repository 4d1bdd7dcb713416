"""The same sources and options generate byte-identical cases and ids; generation results
are cached by content hash and never served for different sources or options."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plugin_helpers import QUIET, collected_ids, output, passed_ids, report_rows, run_ctgen

SENSOR = """\
#include <stdint.h>

extern int32_t sensor_read(uint8_t ch);

int32_t g_last;
static uint8_t s_errors;

int32_t clamp(int32_t v, int32_t lo, int32_t hi)
{
    if (v < lo) {
        return lo;
    }
    if (v > hi) {
        return hi;
    }
    return v;
}

int32_t sample(uint8_t ch)
{
    int32_t r = sensor_read(ch);

    if (r < 0) {
        s_errors++;
        return -1;
    }
    if (r > 1000 && s_errors < 3u) {
        g_last = 1000;
        return 1;
    }
    g_last = r;
    return 0;
}

int classify(int16_t a, int16_t b)
{
    if (a == b) {
        return 0;
    }
    if (a > b && b > 0) {
        return 1;
    }
    return 2;
}
"""


def _cache_files(root: Path) -> list[Path]:
    # one directory per unit (the cache keeps the last few results of each)
    return sorted((root / ".pytest_cache" / "d" / "ctgen" / "generated").glob("*/*.json"))


def test_regeneration_is_byte_identical(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", sensor=SENSOR)
    first = run_ctgen(ctgen_dir, "-v", "--ctgen-export", "out1", "sensor.c")
    first.assert_outcomes(passed=len(passed_ids(first)))
    second = run_ctgen(ctgen_dir, "-v", "--ctgen-regenerate", "--ctgen-export", "out2",
                       "sensor.c")
    assert first.ret == second.ret == 0, output(second)
    ids = passed_ids(first)
    assert len(ids) >= 9  # 3 + 3 + 3 cases at least for the 6+6+4 outcomes
    assert passed_ids(second) == ids

    one = (ctgen_dir.path / "out1" / "sensor" / "sensor.ctgen.json").read_bytes()
    two = (ctgen_dir.path / "out2" / "sensor" / "sensor.ctgen.json").read_bytes()
    assert one == two
    doc = json.loads(one)
    assert [f["name"] for f in doc["functions"]] == ["clamp", "sample", "classify"]
    assert [s["name"] for s in doc["stubs"]] == ["sensor_read"]
    assert sum(len(f["cases"]) for f in doc["functions"]) == len(ids)
    # the drivers include the unit through the same relative path, so they are equal too
    assert (ctgen_dir.path / "out1" / "sensor" / "ctgen_driver.c").read_bytes() == \
        (ctgen_dir.path / "out2" / "sensor" / "ctgen_driver.c").read_bytes()

    collect_a = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "sensor.c"))
    collect_b = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q",
                                        "--ctgen-regenerate", "sensor.c"))
    assert collect_a == collect_b == ids


def test_fresh_directory_generates_the_same_cases(pytester: pytest.Pytester) -> None:
    """No cache shared: two project copies at different paths get the same bytes."""
    for name in ("copy_a", "copy_b"):
        d = pytester.mkdir(name)
        (d / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (d / "sensor.c").write_text(SENSOR, encoding="utf-8")
    texts = []
    for name in ("copy_a", "copy_b"):
        result = pytester.runpytest_subprocess(
            *QUIET, "--ctgen", "--ctgen-timeout", "10", "--rootdir", name, "-c",
            f"{name}/pytest.ini", "--ctgen-export", f"{name}/out", f"{name}/sensor.c",
            timeout=180)
        assert result.ret == 0, output(result)
        texts.append((pytester.path / name / "out" / "sensor" / "sensor.ctgen.json")
                     .read_bytes())
    assert texts[0] == texts[1]


def test_generation_cache_is_used_and_keyed(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", sensor=SENSOR)
    first = run_ctgen(ctgen_dir, "--ctgen-report", "json:r1.json", "sensor.c")
    assert first.ret == 0, output(first)
    cached = _cache_files(ctgen_dir.path)
    assert len(cached) == 1
    text = cached[0].read_text(encoding="utf-8")
    stored = json.loads(text)

    # second run: served from the cache (file untouched), timings are the cached ones
    second = run_ctgen(ctgen_dir, "--ctgen-report", "json:r2.json", "sensor.c")
    assert second.ret == 0, output(second)
    assert _cache_files(ctgen_dir.path) == cached
    assert cached[0].read_text(encoding="utf-8") == text  # served, not written again
    r1, r2 = report_rows(ctgen_dir.path / "r1.json"), report_rows(ctgen_dir.path / "r2.json")
    for fn in ("clamp", "sample", "classify"):
        assert r2[fn]["generation_seconds"] == r1[fn]["generation_seconds"] == \
            round(stored["seconds"][fn], 3)
        assert r2[fn]["cases"] == r1[fn]["cases"]

    ids = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "sensor.c"))
    # tamper with the cached result: drop the last case of classify
    cases = json.loads(stored["cases"])
    classify = next(f for f in cases["functions"] if f["name"] == "classify")
    dropped = classify["cases"].pop()
    tampered = dict(stored, cases=json.dumps(cases, indent=2) + "\n")
    cached[0].write_text(json.dumps(tampered), encoding="utf-8")
    served = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "sensor.c"))
    assert served == [i for i in ids if i != f"sensor.c::classify[{dropped['id']}]"]
    assert len(served) == len(ids) - 1

    # options that change generation use another key: the tampered entry is not served
    other_opts = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q",
                                         "--ctgen-max-depth", "40", "sensor.c"))
    assert other_opts == ids
    assert len(_cache_files(ctgen_dir.path)) == 2
    # run-only options (case timeout, isolation) share the generation key
    run_only = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q",
                                       "--ctgen-case-timeout", "3", "sensor.c"))
    assert run_only == served

    # a change of the source uses another key
    ctgen_dir.makefile(".c", sensor=SENSOR.replace("r > 1000", "r > 1001"))
    changed = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "sensor.c"))
    assert changed == ids
    assert len(_cache_files(ctgen_dir.path)) == 3
    ctgen_dir.makefile(".c", sensor=SENSOR)

    # --ctgen-regenerate ignores the (tampered) entry and rewrites it
    regenerated = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q",
                                          "--ctgen-regenerate", "sensor.c"))
    assert regenerated == ids
    assert json.loads(json.loads(cached[0].read_text(encoding="utf-8"))["cases"]) == \
        json.loads(stored["cases"])
    assert len(_cache_files(ctgen_dir.path)) == 3
    assert re.fullmatch(r"[0-9a-f]{64}\.json", cached[0].name)
