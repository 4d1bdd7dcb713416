"""Control-flow pictures (report/cfg_picture.py) of a small unit compiled and run through the
real pipeline: blocks and edges coloured by what gcov measured, ambiguous lines partly covered."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pytest_ctgen.coverage.lines import LineCoverage, measure_unit
from pytest_ctgen.ir.cfg import CFG
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun
from pytest_ctgen.pipeline import generate_file
from pytest_ctgen.report import cfg_picture
from pytest_ctgen.report.cfg_picture import (
    COVERED, PARTLY, UNCOVERED, UNKNOWN, EdgeState, block_states, edge_states, function_dot,
    render_svg, write_pictures)
from pytest_ctgen.report.writers import ReportUnit, merge_report_units, report_units, unit_program

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# parity_two: `y == 2` is never true, and its then-block is a line of its own.
# one_line: both conditions and the assignment on one line; `b == 2` is never true, so gcov
# counts 3 of the line's 4 outcomes taken and cannot say which condition missed one.
# pick: every outcome of its line is taken. never: no case of it is run. magnitude: gcc
# compiles its `?:` without a jump, so gcov counts no branch on the line all its blocks share.
UNIT = """\
int parity_two(int x)
{
    int y = x & 1;
    if (y == 2) {
        return 1;
    }
    return 0;
}

int one_line(int a)
{
    int r = 0;
    int b = a & 1;
    if (a > 0 && b == 2) r = 1;
    return r;
}

int pick(int a)
{
    if (a > 0 && a < 10) {
        return 1;
    }
    return 0;
}

int never(int v)
{
    if (v) {
        return 2;
    }
    return 3;
}

int magnitude(int a)
{
    int r = a < 0 ? -a : a;
    return r;
}
"""


class Measured:
    """The unit after its cases (except never's) ran: CFGs, gcov's lines, the cases."""

    def __init__(self, tmp: Path) -> None:
        self.path = tmp / "unit.c"
        self.path.write_text(UNIT, encoding="utf-8")
        options = Options()
        generated = generate_file(self.path, "unit.c", options)
        self.run = FileRun(self.path, generated, options, tmp / "builds")
        for case in generated.cases.all_cases():
            if case.function != "never":
                assert self.run.run(case.function, case.number).passed
        self.functions = {fn.name: fn for fn in generated.cases.functions}
        [self.unit] = report_units({self.path: self.run})
        self.program = unit_program(self.unit)
        self.lines = measure_unit(self.unit.builds, self.path).lines()

    def cfg(self, name: str) -> CFG:
        return self.program.cfgs[name]

    def edges(self, name: str) -> list[EdgeState]:
        return edge_states(self.cfg(name), self.lines, self.functions[name].unreachable)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Measured:
    return Measured(tmp_path_factory.mktemp("cfg_picture"))


def _line_of(cfg: CFG, block_id: int) -> int:
    return cfg_picture.block_lines(cfg, cfg.blocks[block_id])[-1]


def test_unreachable_edge_not_taken(measured: Measured) -> None:
    cfg = measured.cfg("parity_two")
    edges = {(e.label, _line_of(cfg, e.target)): e for e in measured.edges("parity_two")
             if e.conditional}
    assert set(edges) == {("true", 5), ("false", 7)}
    assert edges["true", 5].state == UNCOVERED and edges["true", 5].unreachable
    assert edges["false", 7].state == COVERED and not edges["false", 7].unreachable
    states = block_states(cfg, measured.lines)
    assert sorted(states[b.id] for b in cfg.blocks) == [COVERED, COVERED, UNCOVERED]


def test_dot_marks_the_uncovered_edge(measured: Measured) -> None:
    cfg = measured.cfg("parity_two")
    dot = function_dot(cfg, measured.lines, UNIT.splitlines(),
                       measured.functions["parity_two"].unreachable, "unit.c::parity_two")
    edge = [line for line in dot.splitlines() if "->" in line and "unreachable" in line]
    assert len(edge) == 1, dot
    assert 'class="uncovered unreachable"' in edge[0] and "style=dashed" in edge[0]
    assert 'label="true\\nnot taken\\nproved unreachable"' in edge[0]
    # blocks are labelled with their lines, gcov's counts and the source text
    assert re.search(r'\\l\s+5\s+x0\s+return 1;\\l", color="#c62828"', dot), dot
    assert "unit.c::parity_two" in dot


def test_ambiguous_line_is_partly_covered(measured: Measured) -> None:
    assert measured.lines[14].branches and measured.lines[14].taken == 3
    assert len(measured.lines[14].branches) == 4
    edges = [e for e in measured.edges("one_line") if e.conditional]
    assert len(edges) == 4
    assert {e.state for e in edges} == {PARTLY}
    assert all("3 of 4 outcomes\nof line 14 taken" in e.note for e in edges)
    proved = [e for e in edges if e.unreachable]
    assert [e.label for e in proved] == ["true"]  # dashed, but coloured by gcov: partly
    dot = function_dot(measured.cfg("one_line"), measured.lines, UNIT.splitlines(),
                       measured.functions["one_line"].unreachable)
    assert dot.count('class="partly') == 4


def test_shared_lines_and_no_branch(measured: Measured) -> None:
    cfg = measured.cfg("magnitude")
    assert not measured.lines[36].branches
    result = cfg_picture.analyse(cfg, measured.lines)
    lines = {b.id: cfg_picture.block_lines(cfg, b) for b in cfg.blocks}
    # the entry ran (gcov counts the function's line), so did the block with line 37 of
    # its own; the arms of `?:` have only line 36, which every block shares: unknown
    assert lines[cfg.entry.id] == [36] and result.blocks[cfg.entry.id] == COVERED
    [join] = [b for b, ls in lines.items() if ls == [36, 37]]
    assert result.blocks[join] == COVERED
    arms = [b for b, ls in lines.items() if ls == [36] and b != cfg.entry.id]
    assert [(result.blocks[b], result.notes[b]) for b in arms] == [
        (UNKNOWN, "shared line"), (UNKNOWN, "shared line")]
    conditional = [e for e in result.edges if e.conditional]
    assert len(conditional) == 2 and {e.state for e in conditional} == {UNKNOWN}
    assert all(e.note == "gcov counts no\nbranch at line 36" for e in conditional)
    assert "(shared line)" in function_dot(cfg, measured.lines, UNIT.splitlines())


def test_all_outcomes_taken(measured: Measured) -> None:
    edges = [e for e in measured.edges("pick") if e.conditional]
    assert len(edges) == 4 and {e.state for e in edges} == {COVERED}


def test_function_never_run_is_uncovered(measured: Measured) -> None:
    cfg = measured.cfg("never")
    assert set(block_states(cfg, measured.lines).values()) == {UNCOVERED}
    assert {e.state for e in measured.edges("never")} == {UNCOVERED}


def test_counts_decide_where_not_taken_edges_leave_the_rest(measured: Measured) -> None:
    """gcov's counts of pick's line 20 changed by hand: 3 of 4 outcomes taken and the
    `return 1` block (line 21) never ran, so its edge is the one not taken; the others are
    taken. With that block run, its edge is taken, and nothing says which other missed."""
    cfg = measured.cfg("pick")
    lines = dict(measured.lines)
    lines[20] = LineCoverage(20, 5, (2, 3, 1, 0))
    lines[21] = LineCoverage(21, 0)
    states = sorted((e.label, _line_of(cfg, e.target), e.state)
                    for e in edge_states(cfg, lines) if e.conditional)
    assert states == [("false", 23, COVERED), ("false", 23, COVERED), ("true", 20, COVERED),
                      ("true", 21, UNCOVERED)]
    # `return 1` ran: its only way in was taken, and 2 of the other 3 edges were
    lines[21] = LineCoverage(21, 1)
    states = sorted((e.label, _line_of(cfg, e.target), e.state)
                    for e in edge_states(cfg, lines) if e.conditional)
    assert states == [("false", 23, PARTLY), ("false", 23, PARTLY), ("true", 20, PARTLY),
                      ("true", 21, COVERED)]


def test_dot_is_deterministic(measured: Measured) -> None:
    again = unit_program(ReportUnit.from_json(measured.unit.to_json()))  # preprocessed anew
    for name in ("parity_two", "one_line", "pick", "never", "magnitude"):
        first = function_dot(measured.cfg(name), measured.lines, UNIT.splitlines())
        assert first == function_dot(again.cfgs[name], measured.lines, UNIT.splitlines())
        nodes = [int(m) for m in re.findall(r"^  B(\d+) \[", first, re.MULTILINE)]
        assert nodes == sorted(nodes)


def test_write_pictures_without_dot(measured: Measured, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cfg_picture.shutil, "which", lambda name: None)
    pictures = write_pictures(tmp_path, "unit", measured.program,
                              {n: f.unreachable for n, f in measured.functions.items()},
                              measured.lines)
    assert sorted(pictures) == ["magnitude", "never", "one_line", "parity_two", "pick"]
    assert all(p.svg is None and p.dot.is_file() for p in pictures.values())
    assert (tmp_path / "unit.parity_two.dot").is_file()
    assert not list(tmp_path.glob("*.svg"))
    assert render_svg(tmp_path / "unit.pick.dot", "/nonexistent/dot") is None


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs graphviz's dot")
def test_svg_drawn_by_dot(measured: Measured, tmp_path: Path) -> None:
    pictures = write_pictures(tmp_path, "unit", measured.program,
                              {"parity_two": measured.functions["parity_two"].unreachable},
                              measured.lines)
    svg = pictures["parity_two"].svg
    assert svg is not None and svg == tmp_path / "unit.parity_two.svg"
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and 'class="edge uncovered unreachable"' in text


def test_report_units_of_several_processes(measured: Measured) -> None:
    """Units as xdist workers would send them: the same unit's builds are joined, and the
    counts of its builds are summed (here the same build twice: every count doubles)."""
    unit = measured.unit
    assert unit.shown == "unit.c" and unit.source == measured.path.resolve()
    sent = ReportUnit.from_json(unit.to_json())
    assert sent == unit and sent.preprocessed == ""
    other = ReportUnit(unit.source, unit.shown, (Path("/elsewhere/build"),))
    [merged] = merge_report_units([unit], [sent, other])
    assert merged.builds == (*unit.builds, Path("/elsewhere/build"))
    twice = measure_unit(unit.builds * 2, unit.source).lines()
    assert twice == {n: LineCoverage(n, 2 * c.count, tuple(2 * b for b in c.branches))
                     for n, c in measured.lines.items()}


def test_cobertura_merges_the_builds_of_a_unit(measured: Measured, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from pytest_ctgen.report.gcovr import write_cobertura

    unit = measured.unit
    rates = []
    for n, name in ((1, "once.xml"), (2, "twice.xml")):
        write_cobertura([measure_unit(unit.builds * n, unit.source)], tmp_path / name,
                        measured.path.parent)
        root = ET.parse(tmp_path / name).getroot()
        hits = {int(e.get("number", 0)): int(e.get("hits", 0)) for e in root.iter("line")}
        rates.append((root.get("line-rate"), root.get("branch-rate"), hits[3]))
    assert rates[0][:2] == rates[1][:2] and rates[1][2] == 2 * rates[0][2] > 0
    assert [c.get("filename") for c in root.iter("class")] == ["unit.c"]
