"""Generate the cases of a C unit's text and run every case against the unit as gcc
compiles it, the check most tests of C semantics make (the `generated_unit` fixture of
tests/symbolic/conftest.py). A case that predicts a finding (undefined behaviour) must
fail; every other case must pass."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any

from pytest_ctgen.cases import Case, FunctionCases, IntValue
from pytest_ctgen.options import Options
from pytest_ctgen.file_run import FileRun
from pytest_ctgen.pipeline import generate_file


@dataclass
class GeneratedUnit:
    """A unit's generated functions by name, every case already run: passed, or failed
    as its finding predicts (`findings`: function name -> the findings of its cases)."""

    functions: dict[str, FunctionCases]
    run: FileRun
    findings: dict[str, list[str]]

    def assert_fully_covered(self, *names: str) -> None:
        """Each named function (all when none is named) was explored to the end, left no
        outcome unreached or unreachable, and gcov saw every branch outcome taken."""
        coverage = self.run.coverage()
        for name in names or tuple(self.functions):
            fn = self.functions[name]
            assert fn.stop_reason == "exhausted", (name, fn.skip_reason, fn.not_reached)
            assert not fn.not_reached and not fn.unreachable, (name, fn.unreachable)
            cov = coverage[name]
            assert cov.branches_covered == cov.branches_total, (name, cov)

    def noted(self, function: str, note: str) -> list[Case]:
        """The cases of `function` that carry `note`."""
        return [c for c in self.functions[function].cases if note in c.notes]

    def kills(self, mutant_text: str, function: str, directory: Path) -> bool:
        """Whether a case of `function` fails against `mutant_text`, the unit's text
        changed (a mutant of the function), written and built in `directory`."""
        mutant = directory / self.run.path.name
        mutant.write_text(mutant_text, encoding="utf-8")
        run = FileRun(mutant, self.run.generated, Options(), directory / "builds")
        return not all(run.run(function, c.number).passed
                       for c in self.functions[function].cases)

    def kills_line(self, function: str, line: str, mutant: str, tmp_path: Path) -> bool:
        """Whether a case of `function` fails against the unit with its one `line` written
        `mutant`, built in a directory of its own under `tmp_path` (one per mutant)."""
        text = self.run.path.read_text(encoding="utf-8", errors="surrogateescape")
        assert text.count(line) == 1, line
        directory = tmp_path / f"mutant{len(list(tmp_path.iterdir()))}"
        directory.mkdir()
        return self.kills(text.replace(line, mutant), function, directory)


def scalar_params(case: Case) -> dict[str, int]:
    """The integer parameters of `case` by name."""
    return {p.name: p.value.value for p in case.params if isinstance(p.value, IntValue)}


#: A time budget the generation of a test unit does not reach, however busy the machine.
_NO_TIME_LIMIT = 3600.0


def unit_generator(tmp_path: Path) -> Callable[..., GeneratedUnit]:
    """A function that writes a unit under `tmp_path`, generates it (with the Options
    fields given as keywords) and runs its cases."""
    def generate_and_run(file_name: str, text: str, **options: Any) -> GeneratedUnit:
        unit = tmp_path / file_name
        # a surrogate escape (\udc80-\udcff) stands for that byte, no UTF-8 of its own
        unit.write_text(text, encoding="utf-8", errors="surrogateescape")
        # the time budget is a safety net, which these tests of semantics must not meet
        # on a busy machine: the work budget alone decides what is generated
        generated = generate_file(unit, file_name, Options(timeout=_NO_TIME_LIMIT, **options))
        run = FileRun(unit, generated, Options(), tmp_path / "builds")
        functions = {f.name: f for f in generated.cases.functions}
        findings: dict[str, list[str]] = {}
        for fn in functions.values():
            for case in fn.cases:
                result = run.run(fn.name, case.number)
                if case.finding is None:
                    assert result.passed, (fn.name, case.id, result.message)
                    continue
                # the run crashed, or the harness failed it with the finding's words
                assert not result.passed, (fn.name, case.id, case.finding)
                assert result.signal is not None or case.finding in result.message, \
                    (fn.name, case.id, result.message)
                findings.setdefault(fn.name, []).append(case.finding)
        return GeneratedUnit(functions, run, findings)

    return generate_and_run
