"""Generating ahead: while a session collects its C files one by one, helper processes
generate the files it comes to later, so that a session generates as many files at once
as `--ctgen-jobs` says (by default the CPUs it may use).

The helpers and the collection share the generation cache and its lock per entry
(pipeline.generate_file): a helper takes the files from the last one back and passes
over a file someone is generating or has generated; the collection, going forward, waits
for a file a helper is generating and reads its cases from the cache. What is generated
does not depend on who generates it (the work budget bounds each function, not the
clock), so the cases are those of a session that generates one file at a time.

A helper is `python -m pytest_ctgen.plugin.ahead` reading what to generate, pickled, from
its standard input. On a pytest-xdist worker the workers already share the files
(xdist.pregenerate), each with its share of the jobs.
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..errors import CtgenError
from .collect import display
from .session import CTGEN_KEY, CtgenSession
from .xdist import c_files


@dataclass(frozen=True)
class _Work:
    """What a helper generates: `files` with their displayed names, in the order it takes
    them, with the session's options, cache and start."""

    files: tuple[tuple[Path, str], ...]
    options: object  # options.Options
    cache_dir: Path
    fresh_since: float


def jobs(config: pytest.Config) -> int:
    """How many files this process generates at once: `--ctgen-jobs`, else the CPUs the
    process may use, divided among the session's pytest-xdist workers."""
    ctgen: CtgenSession = config.stash[CTGEN_KEY]
    if ctgen.options.jobs:
        return ctgen.options.jobs
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    return max(1, cpus // workers)


def start_helpers(session: pytest.Session) -> None:
    """Start the helpers of a session without pytest-xdist that generates two or more
    files with more than one job (`stop_helpers` ends them)."""
    config = session.config
    if not config.option.ctgen or hasattr(config, "workerinput") or \
            config.pluginmanager.getplugin("dsession") is not None:  # an xdist controller
        return
    ctgen: CtgenSession = config.stash[CTGEN_KEY]
    files = c_files(config)
    helpers = min(jobs(config), len(files)) - 1
    if helpers < 1:
        return
    try:
        work = pickle.dumps(_Work(tuple((f, display(config, f)) for f in reversed(files)),
                                  ctgen.options, ctgen.generated_dir, ctgen.started))
    except (pickle.PicklingError, TypeError, AttributeError):
        return  # options no helper can be given: the collection generates every file
    # the helper imports this very pytest_ctgen, also one not installed
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    for _ in range(helpers):
        helper = subprocess.Popen(
            [sys.executable, "-m", "pytest_ctgen.plugin.ahead"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            env=env)
        assert helper.stdin is not None
        try:
            helper.stdin.write(work)
            helper.stdin.close()
        except OSError:  # it ended at once; the collection generates its files
            pass
        ctgen.helpers.append(helper)


def stop_helpers(config: pytest.Config) -> None:
    """End the helpers still running (the collection was cut short) with their
    generation children."""
    ctgen: CtgenSession | None = config.stash.get(CTGEN_KEY, None)
    if ctgen is None:
        return
    for helper in ctgen.helpers:
        if helper.poll() is None:
            try:
                os.killpg(helper.pid, signal.SIGKILL)
            except OSError:
                pass
        helper.wait()
    ctgen.helpers.clear()


def _generate(work: _Work) -> None:
    """Generate the files of `work` that nobody is generating or has generated."""
    from ..pipeline import generate_file
    from ..options import Options

    assert isinstance(work.options, Options)
    for path, shown in work.files:
        try:
            generate_file(path, shown, work.options, work.cache_dir,
                          fresh_since=work.fresh_since, wait=False, ahead=True)
        except CtgenError:
            continue  # collecting the file reports it


if __name__ == "__main__":
    _generate(pickle.loads(sys.stdin.buffer.read()))
