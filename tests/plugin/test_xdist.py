"""pytest-xdist: every worker collects the same ids, each file is generated once (a file
lock on the shared cache; independent files on different workers), and the coverage table,
the JSON report and the gates merge every worker's gcov data."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from plugin_helpers import collected_ids, output, run_ctgen

pytest.importorskip("xdist")

WITH_XDIST = ("-p", "no:hypothesispytest", "-p", "no:benchmark")

UNITS = {
    "alpha": """\
int band(int x)
{
    if (x < 10) {
        return 0;
    }
    if (x < 100) {
        return 1;
    }
    return 2;
}
""",
    "beta": """\
unsigned bits(unsigned v)
{
    unsigned n = 0u;
    while (v != 0u) {
        n += v & 1u;
        v >>= 1;
    }
    return n;
}
""",
    "gamma": """\
int pick(int a, int b, int c)
{
    if (a > b && b > c) {
        return a;
    }
    if (a == c || b == c) {
        return c;
    }
    return b;
}
""",
}


def _generation_line(result: pytest.RunResult) -> tuple[int, int, int]:
    m = re.search(r"ctgen generation: (\d+) files?: (\d+) generated, (\d+) from the cache",
                  output(result))
    assert m, output(result)
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _rates(path) -> dict[str, tuple[str, str]]:
    """Per file of a Cobertura report: its line and branch rates."""
    root = ET.parse(path).getroot()
    return {c.get("filename"): (c.get("line-rate"), c.get("branch-rate"))
            for c in root.iter("class")}


def _rows(path) -> dict[str, tuple[int, int, int, int, int]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {r["function"]: (r["cases"], r["lines_total"], r["lines_covered"],
                            r["branches_total"], r["branches_covered"])
            for r in doc["functions"]}


def test_xdist_generates_each_file_once_and_merges_coverage(
        ctgen_dir: pytest.Pytester) -> None:
    for name, text in UNITS.items():
        ctgen_dir.makefile(".c", **{name: text})
    files = [f"{name}.c" for name in UNITS]

    parallel = run_ctgen(ctgen_dir, "-n", "2", "--ctgen-report", "term",
                         "--ctgen-report", "json:n2.json", "--ctgen-report", "xml:n2.xml",
                         *files, quiet=WITH_XDIST)
    assert parallel.ret == 0, output(parallel)
    # three files, each generated exactly once by the two workers together
    assert _generation_line(parallel) == (3, 3, 0)
    assert "ctgen coverage (gcov)" in output(parallel)
    merged = _rows(ctgen_dir.path / "n2.json")

    # the same session without xdist: served from the cache, the same table
    serial = run_ctgen(ctgen_dir, "--ctgen-report", "term", "--ctgen-report",
                       "json:n0.json", "--ctgen-report", "xml:n0.xml", *files)
    assert serial.ret == 0, output(serial)
    assert _generation_line(serial) == (3, 0, 3)
    assert _rows(ctgen_dir.path / "n0.json") == merged
    # gcovr's Cobertura report merges the workers' gcov data the same way
    assert _rates(ctgen_dir.path / "n2.xml") == _rates(ctgen_dir.path / "n0.xml")
    assert set(_rates(ctgen_dir.path / "n2.xml")) == {"alpha.c", "beta.c", "gamma.c"}
    assert set(merged) == {"band", "bits", "pick"}
    for fn, (cases, lines_total, lines_covered, br_total, br_covered) in merged.items():
        assert cases > 0 and lines_covered == lines_total > 0, fn
        assert br_covered == br_total > 0, fn

    # identical ids on every worker (xdist fails the run otherwise) and without it
    ids = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", *files))
    assert len(ids) == sum(row[0] for row in merged.values())


def test_xdist_without_the_cache_provider_shares_one_generation(
        ctgen_dir: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pytest's cache the controller's temporary directory is every worker's
    generation cache: each file is generated once, both workers collect the same ids (xdist
    fails the run otherwise), and the directory is gone after the session."""
    for name, text in UNITS.items():
        ctgen_dir.makefile(".c", **{name: text})
    files = [f"{name}.c" for name in UNITS]
    tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(tmp))
    parallel = run_ctgen(ctgen_dir, "-n", "2", "-p", "no:cacheprovider",
                         "--ctgen-report", "json:n2.json", *files, quiet=WITH_XDIST)
    assert parallel.ret == 0, output(parallel)
    assert _generation_line(parallel) == (3, 3, 0)
    assert "Different tests were collected" not in output(parallel)
    assert not list(tmp.glob("pytest-ctgen-*")), list(tmp.iterdir())
    serial = run_ctgen(ctgen_dir, "-p", "no:cacheprovider", "--ctgen-report", "json:n0.json",
                       *files)
    assert _generation_line(serial) == (3, 3, 0)
    assert _rows(ctgen_dir.path / "n0.json") == _rows(ctgen_dir.path / "n2.json")
    assert not list(tmp.glob("pytest-ctgen-*")), list(tmp.iterdir())


def test_xdist_regenerate_generates_once(ctgen_dir: pytest.Pytester) -> None:
    for name, text in UNITS.items():
        ctgen_dir.makefile(".c", **{name: text})
    files = [f"{name}.c" for name in UNITS]
    first = run_ctgen(ctgen_dir, "-n", "2", *files, quiet=WITH_XDIST)
    assert _generation_line(first) == (3, 3, 0)
    again = run_ctgen(ctgen_dir, "-n", "2", "--ctgen-regenerate", *files, quiet=WITH_XDIST)
    assert again.ret == 0, output(again)
    assert _generation_line(again) == (3, 3, 0)


ANNOTATED = """\
#include "ctgen.h"

int half_up(int x)
{
    __rtt_precondition(x >= 0 && x < 1000);
    __rtt_postcondition(__rtt_return * 2 + 1 >= x);
    __rtt_postcondition(__rtt_return < 400);
    return x / 2;
}
"""


def test_annotation_verdicts_with_and_without_xdist(ctgen_dir: pytest.Pytester) -> None:
    """The summary says which annotation generation found violated, also under xdist."""
    ctgen_dir.makefile(".c", annotated=ANNOTATED)
    expected = "  half_up: postcondition __rtt_return < 400 (annotated.c:7:25) is violated"
    for args in ((), ("-n", "2")):
        result = run_ctgen(ctgen_dir, *args, "annotated.c", quiet=WITH_XDIST)
        assert result.ret == 1, output(result)
        lines = output(result).splitlines()
        assert "ctgen annotations:" in lines, output(result)
        assert expected in lines, output(result)
        assert not any("__rtt_return * 2" in line for line in lines
                       if line.startswith("  half_up:")), output(result)
