"""The cache bound never prunes a build the session still uses: replaying more variants of
one unit's export than the bound keeps (cache_bound.KEEP_PER_UNIT) measures the coverage of
every one, in one process and with xdist workers."""
from __future__ import annotations

import json
import shutil

import pytest

from plugin_helpers import output, report_rows, run_ctgen

from pytest_ctgen.cache_bound import KEEP_PER_UNIT

VARIANTS = KEEP_PER_UNIT + 2
UNIT = "".join(f"int f{k}(int x) {{ if (x > {k}) return {k}; return 0; }}\n"
               for k in range(1, VARIANTS + 1))
WITH_XDIST = ("-p", "no:hypothesispytest", "-p", "no:benchmark")


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one process", "xdist"])
def test_every_variant_of_an_export_keeps_its_build_to_the_end(
        ctgen_dir: pytest.Pytester, workers: tuple[str, ...]) -> None:
    if workers:
        pytest.importorskip("xdist")
    (ctgen_dir.path / "unit.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "all", "unit.c")
    assert result.ret == 0, output(result)
    # variant k: the cases of f<k> alone, so each has a build of its own and covers what
    # no other covers
    exported = ctgen_dir.path / "all" / "unit" / "unit.ctgen.json"
    doc = json.loads(exported.read_text(encoding="utf-8"))
    variants = []
    for k in range(1, VARIANTS + 1):
        variant = ctgen_dir.path / f"variant{k}" / "unit"
        shutil.copytree(exported.parent, variant)
        (variant / "unit.ctgen.json").write_text(json.dumps(
            {**doc, "functions": [f for f in doc["functions"] if f["name"] == f"f{k}"]}),
            encoding="utf-8")
        variants.append(f"variant{k}")

    replay = ctgen_dir.runpytest_subprocess(
        *WITH_XDIST, *(workers or ("-p", "no:xdist")), "--ctgen-report", "json:report.json",
        *variants, timeout=300)
    assert replay.ret == 0, output(replay)
    assert "gcovr failed" not in output(replay)
    rows = report_rows(ctgen_dir.path / "report.json")
    for k in range(1, VARIANTS + 1):
        row = rows[f"f{k}"]
        assert (row["branches_covered"], row["branches_total"]) == (2, 2), row
