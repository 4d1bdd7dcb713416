"""The corpus's own account of infeasible branch outcomes (MANIFEST.md beside the files).

Its table has, per file, a column "Known infeasible outcomes" such as `0`, `1: L41` or
`7: L16, L27, L43, L61, L76, L79 (x2)`: the gcov lines of outcomes no input can take (on a
little-endian target, which x86-64 is). The benchmark uses it, and nothing the generator
claims, to tell the feasible outcomes from all of them.
"""
from __future__ import annotations

import re
from pathlib import Path

MANIFEST = "MANIFEST.md"

_ROW = re.compile(r"^\|\s*`([^`]+\.c)`\s*\|(.*)$")
_LINE = re.compile(r"L(\d+)(?:\s*\(x(\d+)\))?")


def parse_manifest(text: str) -> dict[str, dict[int, int]]:
    """File name -> {gcov line: number of infeasible outcomes counted on it}."""
    out: dict[str, dict[int, int]] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("|") and "Known infeasible" in line:
            header = [c.strip().lower() for c in line.strip().strip("|").split("|")]
            continue
        m = _ROW.match(line)
        if not m or header is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        try:
            column = next(i for i, h in enumerate(header) if h.startswith("known infeasible"))
        except StopIteration:
            continue
        if column >= len(cells):
            continue
        lines: dict[int, int] = {}
        cell = cells[column]
        if ":" in cell:
            for n, times in _LINE.findall(cell.split(":", 1)[1]):
                lines[int(n)] = lines.get(int(n), 0) + (int(times) if times else 1)
        out[m.group(1)] = lines
    return out


def manifest_for(c_file: Path) -> dict[int, int] | None:
    """The infeasible outcomes of `c_file` by line, when a MANIFEST.md beside it lists the
    file; None when there is no such manifest (no ground truth: every outcome counts)."""
    manifest = c_file.parent / MANIFEST
    if not manifest.is_file():
        return None
    return parse_manifest(manifest.read_text(encoding="utf-8")).get(c_file.name)


def has_manifest(c_file: Path) -> bool:
    return (c_file.parent / MANIFEST).is_file()


def infeasible_missing(missing_branches: list[tuple[int, int]] | list[list[int]],
                       infeasible: dict[int, int] | None) -> int:
    """How many of the outcomes a tool left (line, branch number) are known infeasible: on
    each listed line, at most as many as the manifest lists there."""
    if not infeasible:
        return 0
    per_line: dict[int, int] = {}
    for line, _ in missing_branches:
        per_line[line] = per_line.get(line, 0) + 1
    return sum(min(n, infeasible.get(line, 0)) for line, n in per_line.items())
