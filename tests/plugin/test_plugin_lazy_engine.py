"""The plugin is thin: a session with no work for pytest-ctgen (no `--ctgen`, no exported
cases) loads the plugin but never the engine (the pipeline, pycparser, z3), also under
pytest-xdist on the controller and the workers."""
from __future__ import annotations

from pathlib import Path

import pytest

from plugin_helpers import output

# Every process of the session (an xdist controller and its workers) lists at its end the
# modules it has loaded that the check is about.
CONFTEST = """\
import os
import sys


def pytest_unconfigure(config):
    names = sorted(n for n in sys.modules
                   if n.startswith(("pytest_ctgen", "pycparser", "z3")))
    with open(os.path.join(str(config.rootpath), "modules.txt"), "a") as out:
        out.write(" ".join(names) + "\\n")
"""


@pytest.mark.parametrize("workers", [("-p", "no:xdist"), ("-n", "2")], ids=["plain", "xdist"])
def test_a_session_without_ctgen_work_leaves_the_engine_unimported(
        ctgen_dir: pytest.Pytester, workers: tuple[str, ...]) -> None:
    if "-n" in workers:
        pytest.importorskip("xdist")
    ctgen_dir.makeconftest(CONFTEST)
    ctgen_dir.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    result = ctgen_dir.runpytest_subprocess("-p", "no:hypothesispytest", "-p", "no:benchmark",
                                            *workers)
    assert result.ret == 0, output(result)
    processes = Path(ctgen_dir.path, "modules.txt").read_text().splitlines()
    assert len(processes) == (3 if "-n" in workers else 1)
    for loaded in processes:
        names = loaded.split()
        assert "pytest_ctgen.plugin" in names
        assert not [n for n in names if n == "pytest_ctgen.pipeline"
                    or n.startswith(("pytest_ctgen.report", "pycparser", "z3"))], loaded
