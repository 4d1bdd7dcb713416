"""Control-flow pictures of the tested functions, coloured by what gcov measured (the HTML
report, `--ctgen-report html:DIR`, links them with gcovr's pages: see writers.py).

A picture is a Graphviz DOT file per function (and an SVG when `dot` is on PATH). Blocks are
labelled with their source lines and gcov's count of each line, and coloured by those
counts; a conditional edge is coloured by gcov's branch outcomes at its condition's line;
never by what the generator claims. gcov counts lines and numbers a line's outcomes, but
says neither which block of a shared line ran nor which condition or way an outcome is. So
a block or an edge is marked only where the counts decide it: a line only the block has
ran; no line of it ran; an edge into a block that ran and has no other way in; an edge out
of or into a block that never ran; no outcome or every outcome of the line taken, or the
undecided edges of the line exactly as many as its taken outcomes not yet accounted for.
Otherwise an edge is "partly covered" (its label says how many of the line's outcomes were
taken) and a block unknown. Edges the generator proved unreachable are dashed.
"""
from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import Outcome
from ..coverage.lines import LineCoverage
from ..ir.cfg import CFG, Block, Branch, Call, Goto, Return, Switch

COVERED = "covered"  # executed / taken
UNCOVERED = "uncovered"  # never executed / never taken
PARTLY = "partly"  # an edge: the line's counts do not say which; a block: ran in part
UNKNOWN = "unknown"  # gcov cannot tell: no code, no branch counted, or a shared line

_COLOURS = {COVERED: "#2e7d32", UNCOVERED: "#c62828", PARTLY: "#ef6c00", UNKNOWN: "#757575"}
_FILLS = {COVERED: "#e8f5e9", UNCOVERED: "#ffebee", PARTLY: "#fff3e0", UNKNOWN: "#f5f5f5"}
_UNREACHABLE_COLOUR = "#9e9e9e"
LEGEND = ("green: executed / taken by the cases (gcov);  red: never executed / never taken",
          "orange: partly covered: gcov's counts of the line do not say which edges",
          "grey: gcov cannot tell (no code, no branch counted, or a shared line)",
          "dashed: proved unreachable by the generator")
#: Characters of a source line shown in a block.
MAX_SOURCE = 60


@dataclass(frozen=True)
class EdgeState:
    """One CFG edge and what gcov says of it. `index` is the branch outcome's index among
    the terminator's successors (0 for a goto); `label` is "" for a goto."""

    source: int
    target: int
    index: int
    label: str
    conditional: bool
    state: str
    note: str = ""
    unreachable: bool = False


def _function_file(cfg: CFG) -> str:
    return cfg.function.location.file


def _block_columns(cfg: CFG, block: Block) -> dict[int, int]:
    """Per line of the function's file that `block`'s statements and terminator are on (a
    goto's line only for a block with no statements), the first column there (0: unknown)."""
    file = _function_file(cfg)
    locations = [s.location for s in block.stmts]
    term = block.terminator
    if term is not None and (not isinstance(term, Goto) or not locations):
        locations.append(term.location)
    columns: dict[int, int] = {}
    for loc in locations:
        if loc is None or loc.file != file or loc.line <= 0:
            continue
        columns[loc.line] = min(columns.get(loc.line, loc.column), loc.column)
    return columns


def block_lines(cfg: CFG, block: Block) -> list[int]:
    """The lines of the function's file that `block`'s statements and terminator are on (a
    goto's line only for a block with no statements)."""
    return sorted(_block_columns(cfg, block))


@dataclass
class _Edge:
    source: int
    target: int
    index: int
    label: str  # "" for a goto
    line: int  # the condition's line (-1: a goto, or a condition from another file)
    state: str = UNKNOWN
    note: str = ""


@dataclass(frozen=True)
class CoverageOfCfg:
    """What gcov's counts say of a CFG: per block id its state (and a note), and every
    edge in block order."""

    blocks: dict[int, str]
    notes: dict[int, str]
    edges: list[EdgeState]


def analyse(cfg: CFG, lines: Mapping[int, LineCoverage],
            unreachable: Iterable[Outcome] = ()) -> CoverageOfCfg:
    """Colour `cfg` by gcov's counts of its file's `lines` (see the module's docstring);
    `unreachable` are the outcomes the generator proved no input takes (drawn dashed).

    A block is uncovered when none of its lines ran, covered when a line only it has ran
    or an edge into it was taken, partly when some of its lines ran and some did not, and
    unknown when it has no executable line or only lines other blocks share."""
    columns = {b.id: _block_columns(cfg, b) for b in cfg.blocks}
    owners: dict[int, set[int]] = {}
    for block_id, cols in columns.items():
        for n in cols:
            owners.setdefault(n, set()).add(block_id)
    blocks: dict[int, str] = {}
    notes: dict[int, str] = {}
    for block in cfg.blocks:
        measured = [n for n in columns[block.id] if n in lines]
        counts = [lines[n].count for n in measured]
        if not counts:
            blocks[block.id] = UNKNOWN
        elif all(c == 0 for c in counts):
            blocks[block.id] = UNCOVERED
        elif any(c == 0 for c in counts):
            blocks[block.id] = PARTLY
        elif any(owners[n] == {block.id} for n in measured):
            blocks[block.id] = COVERED
        else:
            blocks[block.id] = UNKNOWN
            notes[block.id] = "shared line"
    edges = _edges(cfg)
    into: dict[int, list[_Edge]] = {b.id: [] for b in cfg.blocks}
    for e in edges:
        into[e.target].append(e)
    call = _Edge(-1, cfg.entry.id, 0, "", -1)  # the call: gcov counts the function's line
    entered = lines.get(cfg.function.location.line)
    if entered is not None and cfg.function.location.file == _function_file(cfg):
        call.state = COVERED if entered.count > 0 else UNCOVERED
    into[cfg.entry.id].append(call)
    while True:
        _decide_edges(edges, into, blocks, lines)
        changed = False
        for block in cfg.blocks:
            if blocks[block.id] == UNKNOWN and (
                    any(e.state == COVERED for e in into[block.id])
                    or _joined_from_covered(cfg, block, blocks)):
                blocks[block.id] = COVERED
                notes.pop(block.id, None)
                changed = True
        if not changed:
            break
    proved = {(o.line, o.column, o.label) for o in unreachable}
    result = []
    for e in edges:
        term = cfg.blocks[e.source].terminator
        loc = term.location if term is not None else None
        result.append(EdgeState(e.source, e.target, e.index, e.label, bool(e.label), e.state,
                                e.note, loc is not None and bool(e.label)
                                and (loc.line, loc.column, e.label) in proved))
    return CoverageOfCfg(blocks, notes, result)


def _edges(cfg: CFG) -> list[_Edge]:
    file = _function_file(cfg)
    edges = []
    for block in cfg.blocks:
        term = block.terminator
        if isinstance(term, (Branch, Switch)):
            line = term.location.line if term.location.file == file else -1
            for i, (target, label) in enumerate(
                    zip(term.successors(), term.labels(), strict=True)):
                edges.append(_Edge(block.id, target.id, i, label, line))
        elif isinstance(term, Goto):
            edges.append(_Edge(block.id, term.target.id, 0, "", -1))
    return edges


def _joined_from_covered(cfg: CFG, block: Block, blocks: Mapping[int, str]) -> bool:
    """Whether a covered block branches only to `block` or to call-free blocks that go
    straight to it (the two arms of `?:`), so that `block` ran too."""
    for b in cfg.blocks:
        term = b.terminator
        if blocks[b.id] != COVERED or not isinstance(term, (Branch, Switch)):
            continue
        if all(s is block or (isinstance(s.terminator, Goto) and s.terminator.target is block
                              and not any(isinstance(x, Call) for x in s.stmts))
               for s in term.successors()):
            return True
    return False


def _decide_edges(edges: list[_Edge], into: Mapping[int, list[_Edge]],
                  blocks: Mapping[int, str], lines: Mapping[int, LineCoverage]) -> None:
    """Each edge's state from the blocks' states and gcov's outcomes of its line."""
    def dead(e: _Edge) -> bool:  # gcov shows the edge was never taken
        return blocks[e.source] == UNCOVERED or blocks[e.target] == UNCOVERED

    def taken(e: _Edge) -> bool:  # the only way into a block that ran
        return blocks[e.target] == COVERED and into[e.target] == [e]

    by_line: dict[int, list[_Edge]] = {}
    for e in edges:
        if not e.label:  # a goto: taken when its block ran
            e.state = UNCOVERED if dead(e) else COVERED if blocks[e.source] == COVERED \
                else UNKNOWN
        else:
            by_line.setdefault(e.line, []).append(e)
    for line, on_line in by_line.items():
        measured = lines.get(line)
        outcomes = measured.branches if measured is not None else ()
        n, n_taken = len(outcomes), sum(1 for c in outcomes if c > 0)
        known = [e for e in on_line if not dead(e) and taken(e)]
        rest = [e for e in on_line if not dead(e) and not taken(e)]
        for e in on_line:
            e.state, e.note = (UNCOVERED, "not taken") if dead(e) else (COVERED, "") \
                if taken(e) else (UNKNOWN, "")
        if n == 0:  # e.g. gcc compiled the condition without a jump
            for e in rest:
                e.note = f"gcov counts no\nbranch at line {line}"
            continue
        if n != len(on_line):
            for e in rest:
                e.note = f"gcov counts {n} outcomes\nfor {len(on_line)} edges at line " \
                         f"{line},\n{n_taken} taken"
            continue
        # gcov's outcomes of the line are its edges: exactly n_taken of them were taken
        left = n_taken - len(known)
        for e in rest:
            if left <= 0:
                e.state, e.note = UNCOVERED, "not taken"
            elif left == len(rest):
                e.state, e.note = COVERED, ""
            else:
                e.state = PARTLY
                e.note = f"partly covered:\n{n_taken} of {n} outcomes\nof line {line} taken"


def block_states(cfg: CFG, lines: Mapping[int, LineCoverage]) -> dict[int, str]:
    """Per block id, what gcov's counts say of it (see `analyse`)."""
    return analyse(cfg, lines).blocks


def edge_states(cfg: CFG, lines: Mapping[int, LineCoverage],
                unreachable: Iterable[Outcome] = ()) -> list[EdgeState]:
    """Every edge of `cfg` in block order and what gcov's counts say of it (see `analyse`)."""
    return analyse(cfg, lines, unreachable).edges


# ------------------------------------------------------------------------------ DOT


def _dot_string(text: str) -> str:
    """`text` as a quoted DOT string; its line breaks centre the lines."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def _label_lines(lines: Iterable[str]) -> str:
    """A left-aligned multi-line DOT label (each line ends with `\\l`)."""
    body = "".join(line.replace("\\", "\\\\").replace('"', '\\"') + "\\l" for line in lines)
    return '"' + body + '"'


def _shown_source(text: str, column: int = 0) -> str:
    """A source line for a block's label, from `column` on (1-based; 0: the whole line)."""
    prefix = ""
    if column > 1 and text[:column - 1].strip():
        text, prefix = text[column - 1:], "..."
    text = prefix + " ".join(text.replace("\t", " ").split())
    return text if len(text) <= MAX_SOURCE else text[:MAX_SOURCE - 3] + "..."


def _first_columns(cfg: CFG) -> dict[int, int]:
    """Per line, the first column any block of `cfg` has there."""
    first: dict[int, int] = {}
    for block in cfg.blocks:
        for line, column in _block_columns(cfg, block).items():
            first[line] = min(first.get(line, column), column)
    return first


def function_dot(cfg: CFG, lines: Mapping[int, LineCoverage],
                 source: Sequence[str] | None = None, unreachable: Iterable[Outcome] = (),
                 title: str = "") -> str:
    """The DOT text of `cfg`'s picture: `lines` is gcov's data of the function's file,
    `source` that file's lines (for the block labels), `unreachable` the outcomes the
    generator proved unreachable, `title` the picture's heading."""
    coverage = analyse(cfg, lines, unreachable)
    first = _first_columns(cfg)
    name = cfg.function.name
    heading = [title or name, *LEGEND]
    out = [f"digraph {_dot_string(name)} {{",
           (f"  graph [label={_label_lines(heading)}, labelloc=t, labeljust=l, "
            'fontname="Helvetica", fontsize=11, rankdir=TB, nodesep=0.4];'),
           '  node [shape=box, style="rounded,filled", fontname="Courier", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for block in cfg.blocks:
        state = coverage.blocks[block.id]
        marks = [m for m in ("entry" if block is cfg.entry else "",
                             "return" if isinstance(block.terminator, Return) else "",
                             coverage.notes.get(block.id, "")) if m]
        text = [f"B{block.id}" + (f" ({', '.join(marks)})" if marks else "")]
        for n, column in sorted(_block_columns(cfg, block).items()):
            count = f"x{lines[n].count}" if n in lines else "-"
            # a line several blocks share: from where this block's code starts
            column = column if column > first.get(n, 0) else 0
            code = _shown_source(source[n - 1], column) \
                if source and 0 < n <= len(source) else ""
            text.append(f"{n:>4} {count:>6}  {code}".rstrip())
        out.append(f"  B{block.id} [label={_label_lines(text)}, color=\"{_COLOURS[state]}\", "
                   f"fillcolor=\"{_FILLS[state]}\", class=\"{state}\"];")
    for e in coverage.edges:
        attrs = []
        if e.conditional:
            note = e.note
            if e.unreachable:
                note = (note + "\n" if note else "") + "proved unreachable"
            attrs.append(f"label={_dot_string(e.label + (chr(10) + note if note else ''))}")
        colour = _COLOURS[e.state]
        style = "solid"
        if e.unreachable:
            style = "dashed"
            if e.state == UNCOVERED:
                colour = _UNREACHABLE_COLOUR
        width = {UNCOVERED: 2.0, PARTLY: 2.0}.get(e.state, 1.2)
        classes = e.state + (" unreachable" if e.unreachable else "")
        attrs += [f'color="{colour}"', f'fontcolor="{colour}"', f"style={style}",
                  f"penwidth={width}", f'class="{classes}"']
        out.append(f"  B{e.source} -> B{e.target} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def render_svg(dot_file: Path, dot_executable: str | None = None,
               timeout: float = 60.0) -> Path | None:
    """`dot_file` drawn as SVG beside it by Graphviz's `dot` (found on PATH unless given);
    None when there is no `dot` or it fails."""
    exe = dot_executable or shutil.which("dot")
    if not exe:
        return None
    svg = dot_file.with_suffix(".svg")
    try:
        done = subprocess.run([exe, "-Tsvg", "-o", str(svg), str(dot_file)],
                              capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return svg if done.returncode == 0 and svg.is_file() else None


@dataclass(frozen=True)
class Picture:
    """A function's picture: the DOT file, and the SVG when `dot` drew one."""

    function: str
    dot: Path
    svg: Path | None


def _read_source(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def write_pictures(out_dir: Path, stem: str, program: Any,
                   functions: Mapping[str, Sequence[Outcome]],
                   lines: Mapping[int, LineCoverage], titles: Mapping[str, str] | None = None,
                   dot_executable: str | None = None) -> dict[str, Picture]:
    """`out_dir/<stem>.<function>.dot` (and `.svg`) for each of `functions` (name -> the
    outcomes the generator proved unreachable) that `program` has a CFG of; by name."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sources: dict[str, list[str]] = {}
    pictures = {}
    for name, unreachable in functions.items():
        cfg = program.cfgs.get(name)
        if cfg is None:
            continue
        file = _function_file(cfg)
        if file not in sources:
            sources[file] = _read_source(Path(file))
        dot = out_dir / f"{stem}.{name}.dot"
        dot.write_text(function_dot(cfg, lines, sources[file], unreachable,
                                    (titles or {}).get(name, name)), encoding="utf-8")
        pictures[name] = Picture(name, dot, render_svg(dot, dot_executable))
    return pictures
