"""--ctgen-report html:DIR and xml:FILE: gcovr's HTML and Cobertura reports of all the
session's units, the control-flow pictures linked from the HTML report, and the errors of
a wrong report spec."""
from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from plugin_helpers import output, run_ctgen
from test_plugin_gates import GATED  # parity_two: best C1 50% (y == 2 never holds)
from pytest_ctgen.report.writers import ReportSpec, parse_report_spec


# another unit with the same file name, in a subdirectory
OTHER = """\
int twice(int v)
{
    if (v > 100) {
        return 0;
    }
    return 2 * v;
}
"""

ROW = re.compile(r"^(\S+\.c)::(\w+)\s+\d+\s+(\S+)\s+(\S+)\s")
TOTAL = re.compile(r"^TOTAL\s+\d+\s+(\S+)\s+(\S+)")


@pytest.fixture
def units(ctgen_dir: pytest.Pytester) -> pytest.Pytester:
    ctgen_dir.makefile(".c", gated=GATED)
    (ctgen_dir.path / "sub").mkdir()
    (ctgen_dir.path / "sub" / "gated.c").write_text(OTHER, encoding="utf-8")
    return ctgen_dir


def _table(result: pytest.RunResult) -> tuple[dict[tuple[str, str], tuple[str, str]],
                                              tuple[str, str]]:
    """The terminal table's C0 and C1 per (file, function), and its totals."""
    rows, total = {}, None
    for line in result.outlines:
        m = ROW.match(line)
        if m:
            rows[m.group(1), m.group(2)] = (m.group(3), m.group(4))
        m = TOTAL.match(line)
        if m:
            total = (m.group(1), m.group(2))
    assert total is not None, output(result)
    return rows, total


def _pct(rate: str) -> str:
    return f"{100.0 * float(rate):.1f}%"


def test_html_and_xml_reports(units: pytest.Pytester) -> None:
    result = run_ctgen(units, "--ctgen-report", "term", "--ctgen-report", "html:out",
                       "--ctgen-report", "xml:cov.xml", "gated.c", "sub/gated.c")
    assert result.ret == 0, output(result)
    result.assert_outcomes(passed=6)
    rows, total = _table(result)
    assert rows["gated.c", "parity_two"] == ("80.0%", "50.0%")  # not 100%: unreachable

    # Cobertura: both units in one report, numbers as in the terminal table
    root = ET.parse(units.path / "cov.xml").getroot()
    assert (_pct(root.get("line-rate", "")), _pct(root.get("branch-rate", ""))) == total
    files = {c.get("filename"): c for c in root.iter("class")}
    assert set(files) == {"gated.c", "sub/gated.c"}
    methods = {(name, m.get("name")): (_pct(m.get("line-rate", "")),
                                       _pct(m.get("branch-rate", "")))
               for name, c in files.items() for m in c.iter("method")}
    assert methods == rows

    # gcovr's HTML: an index of both units and a page per unit
    out = units.path / "out"
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "gated.c" in index and "sub/gated.c" in index
    pages = sorted(out.glob("index.gated.c.*.html"))
    assert len(pages) == 2
    assert any("parity_two" in p.read_text(encoding="utf-8") for p in pages)

    # the functions' page, linked from gcovr's index, links pictures and gcovr's pages
    assert 'href="ctgen.html"' in index
    ctgen = (out / "ctgen.html").read_text(encoding="utf-8")
    for stem, function in (("gated", "parity_two"), ("gated", "sign"), ("sub_gated", "twice")):
        dot = out / "cfg" / f"{stem}.{function}.dot"
        assert dot.is_file(), sorted(p.name for p in (out / "cfg").iterdir())
        assert f"cfg/{stem}.{function}.dot" in ctgen
    for page in pages:
        assert f'href="{page.name}"' in ctgen
    assert "<td>80.0%</td><td>50.0%</td>" in ctgen

    # the picture of parity_two marks its never-taken (and proved unreachable) edge
    dot = (out / "cfg" / "gated.parity_two.dot").read_text(encoding="utf-8")
    uncovered = [line for line in dot.splitlines() if '-> ' in line and "uncovered" in line]
    assert len(uncovered) == 1, dot
    assert "true" in uncovered[0] and "proved unreachable" in uncovered[0]
    assert re.search(r"\b5\s+x0\s+return 1;", dot), dot  # the block gcov never ran


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs graphviz's dot")
def test_svg_pictures_when_dot_is_on_path(units: pytest.Pytester) -> None:
    result = run_ctgen(units, "--ctgen-report", "html:out", "gated.c")
    assert result.ret == 0, output(result)
    svg = units.path / "out" / "cfg" / "gated.parity_two.svg"
    assert svg.is_file()
    assert 'class="edge uncovered unreachable"' in svg.read_text(encoding="utf-8")
    assert "cfg/gated.parity_two.svg" in (units.path / "out" / "ctgen.html").read_text(
        encoding="utf-8")


def test_ini_xml_report(units: pytest.Pytester) -> None:
    units.makeini("[pytest]\nctgen_report = xml:ini.xml\n")
    result = run_ctgen(units, "gated.c")
    assert result.ret == 0, output(result)
    root = ET.parse(units.path / "ini.xml").getroot()
    assert [c.get("filename") for c in root.iter("class")] == ["gated.c"]


@pytest.mark.parametrize("spec, message", [
    ("html:", "--ctgen-report: html needs a DIR: html:DIR"),
    ("html", "--ctgen-report: html needs a DIR: html:DIR"),
    ("xml:", "--ctgen-report: xml needs a FILE: xml:FILE"),
    ("lcov:x.info", "--ctgen-report: unknown report 'lcov:x.info'; use one of term, "
                    "term-missing, json:FILE, html:DIR, xml:FILE"),
])
def test_bad_report_spec_is_a_usage_error(ctgen_dir: pytest.Pytester, spec: str,
                                          message: str) -> None:
    result = run_ctgen(ctgen_dir, "--ctgen-report", spec)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output(result)
    assert f"ERROR: {message}" in output(result)


def test_parse_report_spec() -> None:
    assert parse_report_spec("term") == ReportSpec("term")
    assert parse_report_spec("html:out/cov") == ReportSpec("html", "out/cov")
    assert parse_report_spec("xml:C:/ci/cov.xml") == ReportSpec("xml", "C:/ci/cov.xml")
    with pytest.raises(ValueError, match="term takes no argument"):
        parse_report_spec("term:x")
