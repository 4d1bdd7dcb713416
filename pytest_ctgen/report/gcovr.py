"""The session's coverage reports written by gcovr (`--ctgen-report html:DIR`, `xml:FILE`).

Every unit is read once with the same gcovr invocation as `gcov.measure` (same filter,
same exclusions, the unit's renamed copy mapped back to the unit; `coverage.lines`); its
entries are written as a gcovr tracefile, and one more gcovr run merges the tracefiles of
all the session's units into one report.
"""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..coverage.gcov import CoverageError, unit_tracefile
from ..coverage.lines import MeasuredUnit


def report_root(units: Sequence[MeasuredUnit], root: Path) -> Path:
    """`root` if every unit is below it (gcovr names files relative to it and leaves out
    files outside it), else the directory all units are in."""
    root = Path(root).resolve()
    parents = [u.source.parent for u in units]
    if all(p == root or root in p.parents for p in parents):
        return root
    return Path(os.path.commonpath([root, *parents]))


def _merge_with_gcovr(units: Sequence[MeasuredUnit], root: Path, outputs: list[str]) -> None:
    """One gcovr run over the units' tracefiles writing `outputs` (gcovr's output options)."""
    import json

    with tempfile.TemporaryDirectory(prefix="ctgen-gcovr-report-") as tmp:
        config = Path(tmp) / "gcovr.cfg"
        config.write_text("", encoding="utf-8")  # a project's gcovr.cfg must not apply here
        docs = [doc for u in units for doc in u.tracefiles]
        if not docs:  # nothing measured: an empty report, not a search of the directory
            with tempfile.TemporaryDirectory(prefix="ctgen-empty-") as empty:
                docs = [unit_tracefile(Path(empty), Path(empty) / "none.c")]
        cmd = [sys.executable, "-m", "gcovr", "--config", str(config),
               "--root", str(report_root(units, root))]
        for i, doc in enumerate(docs):
            trace = Path(tmp) / f"unit{i}.json"
            trace.write_text(json.dumps(doc), encoding="utf-8")
            cmd += ["--add-tracefile", str(trace)]
        done = subprocess.run(cmd + outputs, capture_output=True, text=True, check=False,
                              cwd=tmp, env={**os.environ, "LC_ALL": "C"})
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            reason = lines[-1] if lines else f"exit status {done.returncode}"
            raise CoverageError(f"gcovr could not write the report: {reason}")


def write_cobertura(units: Sequence[MeasuredUnit], out_file: Path, root: Path) -> None:
    """A Cobertura XML report of all `units` (file names relative to `root`)."""
    out_file = Path(out_file).resolve()
    out_file.parent.mkdir(parents=True, exist_ok=True)
    _merge_with_gcovr(units, root, ["--cobertura-pretty", "--cobertura", str(out_file)])


#: The page of gcovr's HTML report that lists the files.
HTML_INDEX = "index.html"


def write_html(units: Sequence[MeasuredUnit], out_dir: Path, root: Path,
               title: str = "pytest-ctgen coverage") -> dict[Path, str]:
    """gcovr's HTML report with a page per unit in `out_dir` (`index.html` lists them);
    returns each unit's page, relative to `out_dir`, by the unit's path."""
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    _merge_with_gcovr(units, root, ["--html-title", title,
                                    "--html-details", str(out_dir / HTML_INDEX)])
    return _detail_pages(units, out_dir, report_root(units, root))


_LINK = re.compile(r'<a\b[^>]*\bhref="(index\.[^"]+\.html)"[^>]*>\s*([^<]+?)\s*</a>')


def _detail_pages(units: Sequence[MeasuredUnit], out_dir: Path, root: Path) -> dict[Path, str]:
    """Each unit's page, read from the links of gcovr's index page (the link text is the
    file's name relative to the root)."""
    index = out_dir / HTML_INDEX
    text = index.read_text(encoding="utf-8", errors="replace") if index.is_file() else ""
    by_name = {html.unescape(name).replace(os.sep, "/"): href
               for href, name in _LINK.findall(text)}
    pages: dict[Path, str] = {}
    for unit in units:
        name = os.path.relpath(unit.source, root).replace(os.sep, "/")
        href = by_name.get(name)
        if href is None:  # gcovr wrote a single page per unit, or named it otherwise
            candidates = sorted(p.name for p in out_dir.glob(f"index.{unit.source.name}.*"))
            href = candidates[0] if len(candidates) == 1 else None
        if href is not None:
            pages[unit.source] = href
    return pages


def link_from_index(out_dir: Path, href: str, text: str) -> bool:
    """Put a link to `href` at the top of the body of gcovr's index page; False when the
    page or its body is not there. Writing it twice leaves one link."""
    index = Path(out_dir) / HTML_INDEX
    if not index.is_file():
        return False
    page = index.read_text(encoding="utf-8")
    marker = "<!-- pytest-ctgen link -->"
    link = (f'{marker}<p style="margin:0.5em 1em"><a href="{html.escape(href)}">'
            f'{html.escape(text)}</a></p>')
    if marker in page:
        return True
    body = re.search(r"<body[^>]*>", page)
    if body is None:
        return False
    index.write_text(page[:body.end()] + "\n" + link + page[body.end():], encoding="utf-8")
    return True
