"""The benchmark's tables: `results.md` (summary against the targets, totals and medians
per corpus prefix, every function side by side, what stays below 100%) and `results.csv`
(one row per function and tool). Both are made from `results.json` alone, so
`python -m bench --out DIR --report-only` rewrites them."""
from __future__ import annotations

import csv
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TOOLS = (("ctgen", "pytest-ctgen"), ("libfuzzer", "libFuzzer"))

CSV_COLUMNS = ["file", "group", "function", "line", "tool", "branch_pct", "feasible_branch_pct",
               "line_pct", "cases", "seconds", "branches_covered", "branches_total",
               "infeasible_missing", "lines_covered", "lines_total", "missing_lines",
               "missing_branches", "detail", "error"]


def pct(covered: int, total: int) -> float:
    return 100.0 if total == 0 else 100.0 * covered / total


def branch_pct(r: dict[str, Any]) -> float:
    return pct(r["branches_covered"], r["branches_total"])


def feasible_total(r: dict[str, Any]) -> int:
    return r["branches_total"] - r.get("infeasible_missing", 0)


def feasible_pct(r: dict[str, Any]) -> float:
    return pct(r["branches_covered"], feasible_total(r))


def line_pct(r: dict[str, Any]) -> float:
    return pct(r["lines_covered"], r["lines_total"])


def _fmt_pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def _fmt_s(x: float | None) -> str:
    return "-" if x is None else (f"{x:.2f}" if x < 100 else f"{x:.0f}")


def _fmt_n(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def _detail(tool: str, r: dict[str, Any]) -> str:
    if tool == "ctgen":
        parts = [r.get("stop_reason") or ""]
        if r.get("skip_reason"):
            parts.append(f"skipped: {r['skip_reason']}")
        if r.get("failed"):
            parts.append(f"{r['failed']} failed")
        return "; ".join(p for p in parts if p)
    endings = r.get("endings") or {}
    parts = [f"budget {r.get('budget_seconds', 0)} s", f"{r.get('executions', 0)} execs"]
    for k in ("crash", "invalid", "hang", "exit", "abort", "assert", "annotation", "killed"):
        if endings.get(k):
            parts.append(f"{endings[k]} {k}")
    if r.get("restarts"):
        parts.append(f"{r['restarts']} restarts")
    if r.get("no_features"):
        parts.append("stopped at once: no instrumented code (libFuzzer: no interesting inputs)")
    return ", ".join(parts)


def _rows(doc: dict[str, Any]) -> Iterable[tuple[dict[str, Any], str, dict[str, Any]]]:
    for row in doc.get("functions", []):
        for tool, _ in TOOLS:
            if tool in row:
                yield row, tool, row[tool]


def write_csv(doc: dict[str, Any], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(CSV_COLUMNS)
        for row, tool, r in _rows(doc):
            w.writerow([
                row["file"], row["group"], row["function"], row["line"], dict(TOOLS)[tool],
                f"{branch_pct(r):.1f}", f"{feasible_pct(r):.1f}", f"{line_pct(r):.1f}",
                r["cases"], f"{r['seconds']:.3f}", r["branches_covered"], r["branches_total"],
                r.get("infeasible_missing", 0), r["lines_covered"], r["lines_total"],
                " ".join(map(str, r["missing_lines"])),
                " ".join(f"{a}:{b}" for a, b in r["missing_branches"]),
                _detail(tool, r), r.get("error") or ""])


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def _group_stats(rows: list[dict[str, Any]], tool: str) -> dict[str, Any] | None:
    rs = [row[tool] for row in rows if tool in row]
    if not rs:
        return None
    bc = sum(r["branches_covered"] for r in rs)
    bt = sum(r["branches_total"] for r in rs)
    fi = sum(r.get("infeasible_missing", 0) for r in rs)
    lc = sum(r["lines_covered"] for r in rs)
    lt = sum(r["lines_total"] for r in rs)
    return {
        "functions": len(rs), "branch": pct(bc, bt), "feasible": pct(bc, bt - fi),
        "line": pct(lc, lt), "branches": f"{bc}/{bt}", "cases": sum(r["cases"] for r in rs),
        "seconds": sum(r["seconds"] for r in rs),
        "full": sum(1 for r in rs if r["branches_covered"] >= feasible_total(r)),
        "m_branch": _median([branch_pct(r) for r in rs]),
        "m_line": _median([line_pct(r) for r in rs]),
        "m_cases": _median([r["cases"] for r in rs]),
        "m_seconds": _median([r["seconds"] for r in rs]),
    }


def _groups(doc: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in doc.get("functions", []):
        groups.setdefault(row["group"], []).append(row)
    return groups


def _corpus_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The functions of files that have a MANIFEST.md (the benchmark corpus)."""
    manifest_files = {f["file"] for f in doc.get("files", []) if f.get("has_manifest")}
    return [r for r in doc.get("functions", []) if r["file"] in manifest_files]


def targets(doc: dict[str, Any], rows: list[dict[str, Any]] | None = None) -> list[tuple[str, str, bool | None]]:
    """The issue's targets, as (target, measured, met) on `rows` (default: the corpus, or
    every function when no file has a manifest)."""
    if rows is None:
        rows = _corpus_rows(doc) or doc.get("functions", [])
    files = {r["file"] for r in rows}
    frecs = [f for f in doc.get("files", []) if f["file"] in files]
    out: list[tuple[str, str, bool | None]] = []
    n = len(rows)
    if not n:
        return out
    c = [r["ctgen"] for r in rows]
    full = sum(1 for r in c if r["branches_covered"] >= feasible_total(r))
    out.append((("pytest-ctgen reaches 100% of the feasible branch outcomes on >= 90% of the "
                 "functions"), f"{full}/{n} = {100.0 * full / n:.1f}%", full >= 0.9 * n))
    fz = [r for r in rows if "libfuzzer" in r]
    if fz:
        worse = [r for r in fz if branch_pct(r["ctgen"]) + 1e-9 < branch_pct(r["libfuzzer"])]
        out.append(("pytest-ctgen's branch coverage >= libFuzzer's on every function",
                    f"{len(fz) - len(worse)}/{len(fz)}" +
                    (" (below on: " + ", ".join(f"{r['function']}" for r in worse) + ")"
                     if worse else ""), not worse))
    med = _median([r["seconds"] for r in c])
    out.append(("median generation time per function < 1 s", f"{med:.2f} s", med < 1.0))
    total = sum(f["wall_seconds"] for f in frecs)
    out.append(("whole corpus generated in < 2 min",
                (f"{total:.1f} s (generate_file of every file; with Python's start-up per "
                 f"file {sum(f['process_seconds'] for f in frecs):.1f} s)"), total < 120))
    peak = max((f["peak_mib"] for f in frecs), default=0.0)
    out.append(("peak memory < 1 GiB", f"{peak:.0f} MiB (largest file's generation)",
                peak < 1024))
    if fz:
        fewer = [r for r in fz if r["ctgen"]["cases"] < r["libfuzzer"]["cases"]]
        equal = [r for r in fz if r["ctgen"]["cases"] == r["libfuzzer"]["cases"]]
        more = [r for r in fz if r["ctgen"]["cases"] > r["libfuzzer"]["cases"]]
        better = [r for r in fz if branch_pct(r["ctgen"]) + 1e-9 >= branch_pct(r["libfuzzer"])]
        both = [r for r in fewer if r in better]
        more_same = [r for r in more if abs(branch_pct(r["ctgen"]) -
                                            branch_pct(r["libfuzzer"])) < 1e-9]
        out.append(("fewer cases than libFuzzer's replayed corpus, for equal or better coverage",
                    f"fewer on {len(both)}/{len(fz)} functions (as many on {len(equal)}, more "
                    f"on {len(more)}, of which {len(more_same)} at equal branch coverage"
                    + (": " + ", ".join(r["function"] for r in more_same) if more_same else "")
                    + f"); cases {sum(x['cases'] for x in c)} vs "
                    f"{sum(r['libfuzzer']['cases'] for r in fz)} in total", len(both) == len(fz)))
    return out


def markdown(doc: dict[str, Any]) -> str:
    rows = doc.get("functions", [])
    s = doc.get("settings", {})
    out = ["# pytest-ctgen vs libFuzzer", ""]
    out.append(f"`{doc.get('command', '')}`, started {doc.get('started')}, "
               f"{'finished ' + doc['finished'] if doc.get('finished') else 'still running'}; "
               f"the whole benchmark took {doc.get('bench_seconds', 0) / 60:.1f} min.")
    out.append(f"pytest-ctgen: generation budget {s.get('timeout')} s per function. libFuzzer "
               f"({s.get('clang') or 'not available'}): as long as pytest-ctgen took for the "
               f"function, at least {s.get('min_fuzz_seconds')} s"
               + (f" (fixed {s['fuzz_seconds']} s)" if s.get("fuzz_seconds") else "")
               + (f", flags {' '.join(s.get('fuzz_flags') or [])}" if s.get("fuzz_flags")
                  else "") + ". Every coverage figure is gcov's (through gcovr) on a "
               "`gcc --coverage -O0` build replaying the tool's inputs; *feasible* leaves out "
               "the outcomes the corpus's MANIFEST.md lists as infeasible.")
    out.append("")
    corpus = _corpus_rows(doc)
    for title, subset in (("Targets on the corpus (files with a MANIFEST.md)", corpus),
                          ("Targets on every function benchmarked", rows)):
        if not subset or (subset is rows and len(rows) == len(corpus)):
            continue
        out += [f"## {title}", "", "| target | measured | met |", "|---|---|---|"]
        for target, measured, met in targets(doc, subset):
            out.append(f"| {target} | {measured} | {'yes' if met else 'no'} |")
        out.append("")

    out += ["## Totals and medians per group", "",
            ("Totals: outcomes and lines summed over the group's functions; cases and time "
             "summed. Medians: over the functions. Full: functions with every feasible "
             "branch outcome covered."), "",
            ("| group | tool | functions | branch % | feasible % | line % | full | cases | "
             "time s | median branch % | median line % | median cases | median time s |"),
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    groups = _groups(doc)
    order = sorted(groups, key=lambda g: (g.endswith("/"), g))
    all_groups = [(g, groups[g]) for g in order]
    if corpus and len(corpus) != len(rows):
        all_groups.append(("**corpus**", corpus))
    all_groups.append(("**all**", rows))
    for name, grows in all_groups:
        for tool, label in TOOLS:
            st = _group_stats(grows, tool)
            if st is None:
                continue
            out.append(
                f"| {name} | {label} | {st['functions']} | {_fmt_pct(st['branch'])} | "
                f"{_fmt_pct(st['feasible'])} | {_fmt_pct(st['line'])} | {st['full']} | "
                f"{st['cases']} | {_fmt_s(st['seconds'])} | {_fmt_pct(st['m_branch'])} | "
                f"{_fmt_pct(st['m_line'])} | {_fmt_n(st['m_cases'])} | "
                f"{_fmt_s(st['m_seconds'])} |")
    out.append("")

    files = doc.get("files", [])
    errors = [f for f in files if f.get("error")]
    out += ["## Generation per file", "",
            "| file | functions | generate_file s | process s | peak MiB |",
            "|---|---:|---:|---:|---:|"]
    for f in files:
        out.append(f"| {f['file']} | {f['functions']} | {_fmt_s(f['wall_seconds'])} | "
                   f"{_fmt_s(f['process_seconds'])} | {f['peak_mib']:.0f} |")
    out.append("")
    if errors:
        out += ["Files that failed: " + "; ".join(f"{f['file']}: {f['error']}" for f in errors),
                ""]

    out += ["## Per function", "",
            ("Branch and line coverage in %, cases (pytest-ctgen: generated cases; libFuzzer: "
             "the inputs it kept and that were replayed), time in s (pytest-ctgen: generation; "
             "libFuzzer: fuzzing)."), "",
            ("| file | function | ctgen br | ctgen ln | ctgen cases | ctgen s | stop | "
             "fuzz br | fuzz ln | fuzz cases | fuzz s | fuzz notes |"),
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    for row in rows:
        c = row["ctgen"]
        f = row.get("libfuzzer")
        cells = [row["file"], row["function"]]
        cells += _tool_cells(c) + [_detail("ctgen", c) + (f"; {c['error']}" if c.get("error")
                                                          else "")]
        if f is not None:
            cells += _tool_cells(f) + [_detail("libfuzzer", f) +
                                       (f"; error: {f['error']}" if f.get("error") else "")]
        else:
            cells += ["-"] * 5
        out.append("| " + " | ".join(cells) + " |")
    out.append("")

    out += ["## Below 100%", "",
            ("Functions where either tool leaves a branch outcome or a line; missing lines "
             "and branch outcomes as gcov numbers them (`line:branch`). *infeasible* counts "
             "the missing outcomes the MANIFEST lists as infeasible."), "",
            ("| file | function | tool | branch % | line % | infeasible | missing lines | "
             "missing branch outcomes |"), "|---|---|---|---:|---:|---:|---|---|"]
    for row in rows:
        tools = [(t, row[t]) for t, _ in TOOLS if t in row]
        if all(r["branches_covered"] >= r["branches_total"] and
               r["lines_covered"] >= r["lines_total"] for _, r in tools):
            continue
        for tool, r in tools:
            out.append(f"| {row['file']} | {row['function']} | {dict(TOOLS)[tool]} | "
                       f"{_fmt_pct(branch_pct(r))} | {_fmt_pct(line_pct(r))} | "
                       f"{r.get('infeasible_missing', 0)} | "
                       f"{' '.join(map(str, r['missing_lines'])) or '-'} | "
                       f"{' '.join(f'{a}:{b}' for a, b in r['missing_branches']) or '-'} |")
    out.append("")
    return "\n".join(out)


def _tool_cells(r: dict[str, Any]) -> list[str]:
    if not r.get("measured", True) and r.get("error"):
        return ["error", "error", str(r.get("cases", 0)), _fmt_s(r.get("seconds"))]
    return [f"{_fmt_pct(branch_pct(r))} ({r['branches_covered']}/{r['branches_total']})",
            _fmt_pct(line_pct(r)), str(r["cases"]), _fmt_s(r["seconds"])]


def write_reports(doc: dict[str, Any], out: Path) -> None:
    (out / "results.md").write_text(markdown(doc), encoding="utf-8")
    write_csv(doc, out / "results.csv")
