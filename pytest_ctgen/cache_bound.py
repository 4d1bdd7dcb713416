"""Keeping the caches bounded: generation results and harness builds are kept per unit, the
few most recently used of each, so a long-lived cache directory does not grow with every
edit of every file; what the running session used stays while it runs."""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from filelock import FileLock, Timeout

#: The entries (generation results, builds) kept per unit: the current one and a few
#: before it, for switching back and forth between branches or options.
KEEP_PER_UNIT = 4
#: How much earlier than the session's start an entry's last use may seem and still be
#: the session's: file times are coarser than the clock on some file systems.
TIME_SLACK = 2.0


def unit_group(unit: str) -> str:
    """The directory name a unit's cache entries share (its path as shown, hashed)."""
    return hashlib.sha256(unit.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def used(entry: Path) -> None:
    """`entry` was just used: it is the newest of its group."""
    try:
        os.utime(entry)
    except OSError:
        pass


def prune(entries: list[Path], keep: int = KEEP_PER_UNIT - 1,
          session_start: float | None = None) -> list[Path]:
    """Delete all but the `keep` most recently used of `entries` (files or directories,
    each guarded by `<entry>.lock`): by default, the others of a group beside the one just
    made. An entry another process holds stays, and so does one used since
    `session_start` (time.time() of the session's start, on an xdist worker its
    controller's): the session may use it still (a build's gcov data is read at its end).
    Returns what was deleted."""
    def last_used(entry: Path) -> float:
        try:
            return entry.stat().st_mtime
        except OSError:
            return 0.0

    deleted = []
    for entry in sorted(entries, key=last_used, reverse=True)[keep:]:
        if session_start is not None and last_used(entry) >= session_start - TIME_SLACK:
            continue  # the session's
        lock = Path(f"{entry}.lock")
        try:
            with FileLock(str(lock), timeout=0):
                if entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
                # while held: a process waiting on it then finds its file gone and takes
                # a new one (filelock >= 4 checks the link count after locking)
                lock.unlink(missing_ok=True)
        except Timeout:
            continue  # in use
        deleted.append(entry)
    return deleted
