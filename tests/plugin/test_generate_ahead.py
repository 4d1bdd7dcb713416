"""Generating ahead (plugin/ahead.py, `--ctgen-jobs`): helper processes generate the C files
a session collects later, into the shared generation cache; the cases, the progress lines
and the generation summary are those of a session that generates one file at a time."""
from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from plugin_helpers import output, run_ctgen
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file
from pytest_ctgen.plugin.ahead import _Work

UNITS = {
    "alpha": "int alpha(int x) { if (x > 3) return 1; return 0; }\n",
    "beta": "int beta(int x, int y) { if (x > y) return x - y; return y - x; }\n",
    "gamma": "unsigned gamma(unsigned v) { unsigned n = 0u; while (v != 0u) { n += v & 1u;"
             " v >>= 1; } return n; }\n",
}

LINE = re.compile(r"^ctgen (\S+)::(\w+) (\d+ cases? (?:\d+% C1|no branches)) \d+\.\ds$")


def _progress(result: pytest.RunResult) -> list[tuple[str, ...]]:
    return sorted(m.groups() for line in result.outlines if (m := LINE.match(line)))


def test_two_jobs_give_the_cases_lines_and_summary_of_one(ctgen_dir: pytest.Pytester
                                                          ) -> None:
    for name, text in UNITS.items():
        ctgen_dir.makefile(".c", **{name: text})
    files = [f"{name}.c" for name in UNITS]
    runs = {}
    for jobs in ("1", "2"):
        result = run_ctgen(ctgen_dir, "--ctgen-jobs", jobs, "--ctgen-regenerate",
                           "--ctgen-export", f"out{jobs}", *files, quiet=())
        assert result.ret == 0, output(result)
        assert "ctgen generation: 3 files: 3 generated, 0 from the cache" in output(result)
        runs[jobs] = result
    assert _progress(runs["1"]) == _progress(runs["2"])
    assert [p[1] for p in _progress(runs["1"])] == ["alpha", "beta", "gamma"]
    for name in UNITS:
        exported = [(ctgen_dir.path / f"out{jobs}" / name / f"{name}.ctgen.json").read_text()
                    for jobs in ("1", "2")]
        assert exported[0] == exported[1], name


def test_a_helper_generates_into_the_cache_what_the_collection_reads(tmp_path: Path
                                                                     ) -> None:
    """The helper itself (`python -m pytest_ctgen.plugin.ahead`): it generates each file
    nobody has generated, marks the entries as the session's, and the collection's read
    of them gives the cases a generation without the cache gives."""
    paths = []
    for name, text in UNITS.items():
        path = tmp_path / f"{name}.c"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    cache = tmp_path / "cache"
    started = time.time()
    work = _Work(tuple((p, p.name) for p in paths), Options(), cache, started)
    done = subprocess.run([sys.executable, "-m", "pytest_ctgen.plugin.ahead"],
                          input=pickle.dumps(work), capture_output=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    entries = sorted(cache.glob("*/*.json"))
    assert len(entries) == 3, entries
    assert all(json.loads(e.read_text())["ahead"] == started for e in entries)
    for path in paths:
        read = generate_file(path, path.name, Options(), cache, fresh_since=started)
        fresh = generate_file(path, path.name, Options())
        assert read is not None and fresh is not None
        assert read.from_cache and read.ahead
        assert read.cases == fresh.cases
        # a later session did not generate them: not its own
        later = generate_file(path, path.name, Options(), cache, fresh_since=started + 1)
        assert later is not None and later.from_cache and not later.ahead


def test_a_job_count_that_is_no_count_is_a_usage_error(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", alpha=UNITS["alpha"])
    result = run_ctgen(ctgen_dir, "--ctgen-jobs", "-1", "alpha.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output(result)
    assert "--ctgen-jobs / ctgen_jobs: -1 is not a whole number of at least 0" \
        in output(result)
    ctgen_dir.makeini("[pytest]\nctgen_jobs = two\n")
    result = run_ctgen(ctgen_dir, "alpha.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, output(result)
    assert "--ctgen-jobs / ctgen_jobs: 'two' is not a whole number of at least 0" \
        in output(result)
