"""pytest-xdist coordination: the controller gives every worker the session's start (and
its temporary cache); before collecting, each worker generates the C files no other worker
is generating; at the end each worker sends its share of the coverage table, its units and
what it generated, and the controller merges them."""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

import pytest

from ..errors import CtgenError
from .collect import collected_as_unit, display
from .session import CTGEN_KEY, CtgenSession


def configure_node(node: Any) -> None:
    """On the controller, for a worker starting (pytest_configure_node): the session's
    start, and the temporary cache every worker shares."""
    ctgen: CtgenSession | None = node.config.stash.get(CTGEN_KEY, None)
    if ctgen is not None:
        node.workerinput["ctgen_started"] = ctgen.started
        if node.config.option.ctgen and getattr(node.config, "cache", None) is None:
            node.workerinput["ctgen_cache_dir"] = str(ctgen.cache_dir)


def pregenerate(session: pytest.Session) -> None:
    """On a pytest-xdist worker, before collecting: generate the C files no other worker
    is generating, so that the workers share the generation of independent files; the
    collection then takes every file's cases from the shared cache (waiting for a file
    another worker is still generating)."""
    config = session.config
    workerinput = getattr(config, "workerinput", None)
    if not config.option.ctgen or workerinput is None or \
            int(workerinput.get("workercount", 1)) < 2:
        return
    from ..pipeline import generate_file

    ctgen: CtgenSession = config.stash[CTGEN_KEY]
    for path in c_files(config):
        try:
            generated = generate_file(path, display(config, path), ctgen.options,
                                      ctgen.generated_dir, fresh_since=ctgen.started,
                                      wait=False)
        except CtgenError:
            continue  # collecting the file reports it
        if generated is not None and not generated.from_cache:
            ctgen.generated_files[str(path)] = True


def c_files(config: pytest.Config) -> list[Path]:
    """The C files under the session's arguments, in a stable order, skipping the
    directories pytest does not recurse into (`norecursedirs`, `--ignore`)."""
    skip_dirs = config.getini("norecursedirs")
    ignored = {Path(p).resolve() for p in (config.getoption("ignore") or [])}
    files: list[Path] = []
    for arg in config.args:
        root = Path(arg.split("::")[0]).resolve()
        if root.is_file():
            files += [root] if collected_as_unit(root, named=True) else []
            continue
        for here, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if Path(here, d).resolve() not in ignored and
                             not any(fnmatch.fnmatch(d, pat) for pat in skip_dirs))
            files += [Path(here, n) for n in sorted(names)
                      if collected_as_unit(Path(here, n), named=False)]
    return list(dict.fromkeys(files))


class WorkerResults:
    """pytest-xdist: each worker sends its share of the coverage table and what it
    generated; the controller merges them (see summary.finish_run_loop, the summary)."""

    def __init__(self, config: pytest.Config, ctgen: CtgenSession) -> None:
        self.config = config
        self.ctgen = ctgen

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        if "ctgen_rows" in output:
            from ..pipeline import ReportUnit, row_from_json

            self.ctgen.worker_rows.append([row_from_json(r) for r in output["ctgen_rows"]])
            self.ctgen.worker_units.append(
                [ReportUnit.from_json(u) for u in output.get("ctgen_units", [])])
        if "ctgen_mcdc" in output:
            from ..pipeline import McdcFile

            self.ctgen.worker_mcdc.append(
                [McdcFile.from_json(f) for f in output["ctgen_mcdc"]])
        if not self.ctgen.worker_verdicts:  # every worker collected every file
            self.ctgen.worker_verdicts = list(output.get("ctgen_verdicts", []))
        for unit, generated in output.get("ctgen_generated", {}).items():
            self.ctgen.generated_files[unit] = \
                self.ctgen.generated_files.get(unit, 0) + int(generated)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is None:
            return
        if self.ctgen.runs:  # a worker without runs has no rows, units or verdicts
            from ..pipeline import annotation_verdicts, report_units, row_to_json

            workeroutput["ctgen_rows"] = [row_to_json(r) for r in self.ctgen.rows]
            workeroutput["ctgen_units"] = [u.to_json() for u in report_units(self.ctgen.runs)]
            workeroutput["ctgen_verdicts"] = annotation_verdicts(
                run.generated.cases for run in self.ctgen.runs.values())
            workeroutput["ctgen_mcdc"] = [f.to_json() for f in self.ctgen.mcdc_files]
        workeroutput["ctgen_generated"] = {
            unit: int(generated) for unit, generated in self.ctgen.generated_files.items()}
