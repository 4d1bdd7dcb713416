"""The caches stay bounded: per unit, only the few most recently used generation results
and builds are kept; one in use by another process, or used by the running session, is
never deleted."""
from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock

from pytest_ctgen.cache_bound import KEEP_PER_UNIT, prune, unit_group
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file


def test_prune_keeps_the_most_recently_used_and_those_in_use(tmp_path: Path) -> None:
    entries = []
    for i in range(KEEP_PER_UNIT + 3):
        entry = tmp_path / f"e{i}"
        entry.mkdir()
        (entry / "data").write_text("x")
        os.utime(entry, (1000 + i, 1000 + i))
        entries.append(entry)
    with FileLock(f"{entries[0]}.lock"):  # the oldest, held by another process
        deleted = prune(entries, KEEP_PER_UNIT)
    assert sorted(deleted) == sorted(entries[1:3])
    assert [e.exists() for e in entries] == [True, False, False] + [True] * KEEP_PER_UNIT


def test_prune_keeps_what_the_session_used(tmp_path: Path) -> None:
    """Entries used since the session started stay, however many: it may use them still
    (a build's gcov data is read at its end); the older ones beyond the bound go."""
    entries = []
    for i in range(2 * KEEP_PER_UNIT):
        entry = tmp_path / f"e{i}"
        entry.mkdir()
        os.utime(entry, (1000 + 100 * i, 1000 + 100 * i))
        entries.append(entry)
    session_start = 1000 + 100 * 2  # e2 and after are the session's
    deleted = prune(entries, KEEP_PER_UNIT - 1, session_start=session_start)
    assert sorted(deleted) == entries[:2]
    assert [e.exists() for e in entries] == [False, False] + [True] * (2 * KEEP_PER_UNIT - 2)


def test_generation_results_are_kept_per_unit_the_last_few(tmp_path: Path) -> None:
    unit = tmp_path / "u.c"
    cache = tmp_path / "cache"
    for limit in range(KEEP_PER_UNIT + 2):  # every edit of the unit is a new entry
        unit.write_text(f"int f(int x) {{ if (x > {limit}) return 1; return 0; }}\n")
        generated = generate_file(unit, "u.c", Options(), cache)
        assert generated is not None and not generated.from_cache
    group = cache / unit_group("u.c")
    assert len(list(group.glob("*.json"))) == KEEP_PER_UNIT
    again = generate_file(unit, "u.c", Options(), cache)  # the newest is still there
    assert again is not None and again.from_cache


def test_a_unit_analysed_from_a_copy_is_served_from_the_cache(tmp_path: Path) -> None:
    """A unit with annotations is preprocessed from a copy in a temporary directory of
    its own each time; the directory's name is no part of the text that keys the cache."""
    unit = tmp_path / "annotated.c"
    unit.write_text('#include "ctgen.h"\n'
                    "int f(int x) { __rtt_precondition(x < 100); return x > 3; }\n")
    cache = tmp_path / "cache"
    first = generate_file(unit, "annotated.c", Options(), cache)
    again = generate_file(unit, "annotated.c", Options(), cache)
    assert first is not None and not first.from_cache
    assert again is not None and again.from_cache
    assert again.preprocessed == first.preprocessed and "ctgen-pp-" not in first.preprocessed
