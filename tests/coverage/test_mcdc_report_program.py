"""c_harness/ctgen_mcdc_report.c, the program an export's `make mcdc` computes MC/DC with,
against coverage/mcdc.py: the same decisions and evaluations give the same conditions
shown per function, on hand-picked decisions and on many drawn from a fixed seed."""
from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_ctgen.c_harness_files import MCDC_REPORT_SOURCE, harness_dir
from pytest_ctgen.codegen.export_mcdc import decisions_text
from pytest_ctgen.coverage.mcdc import MASKING, Evaluation, function_mcdc
from pytest_ctgen.errors import SourceLocation
from pytest_ctgen.frontend.decisions import BoolTree, Condition, Decision
from pytest_ctgen.frontend.mcdc_instrument import InstrumentedUnit

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


@pytest.fixture(scope="module")
def report_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcdc-report") / "ctgen_mcdc_report"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", str(out),
                    str(harness_dir() / MCDC_REPORT_SOURCE)], check=True)
    return out


def _leaves(tree: BoolTree) -> int:
    if isinstance(tree, int):
        return 1
    return sum(_leaves(t) for t in tree[1:])  # type: ignore[misc]


def _decision(id_: int, function: str, tree: BoolTree) -> Decision:
    n = _leaves(tree)
    conditions = tuple(Condition(k, f"c{k} > {id_}", SourceLocation("u.c", 10 + id_, 5 + k))
                       for k in range(n))
    return Decision(id_, function, SourceLocation("u.c", 10 + id_, 5), "text", conditions,
                    tree)


def _evaluate(tree: BoolTree, values: Sequence[bool], seen: list[bool | None]) -> bool:
    """C's short-circuit evaluation of `tree`, marking the conditions evaluated."""
    if isinstance(tree, int):
        seen[tree] = values[tree]
        return values[tree]
    if tree[0] == "!":
        return not _evaluate(tree[1], values, seen)
    left = _evaluate(tree[1], values, seen)
    if left == (tree[0] == "||"):
        return left
    return _evaluate(tree[-1], values, seen)  # type: ignore[misc]


def _evaluation(d: Decision, values: Sequence[bool]) -> Evaluation:
    seen: list[bool | None] = [None] * len(d.conditions)
    outcome = _evaluate(d.tree, values, seen)
    return Evaluation(d.id, tuple(seen), outcome)


def _record(e: Evaluation) -> str:
    evaluated = sum(1 << k for k, v in enumerate(e.values) if v is not None)
    values = sum(1 << k for k, v in enumerate(e.values) if v)
    return f"0 {e.decision} {evaluated:x} {values:x} {int(e.outcome)}\n"


def _run(program: Path, tmp_path: Path, functions: Sequence[str],
         decisions: Sequence[Decision], evaluations: Sequence[Evaluation]
         ) -> dict[str, tuple[int, int, int]]:
    """The program's rows: function -> (covered, total, by masking)."""
    unit = InstrumentedUnit("", tuple(decisions), tuple(functions))
    (tmp_path / "decisions.txt").write_text(decisions_text("u.c", unit), encoding="utf-8")
    (tmp_path / "records").write_text("".join(_record(e) for e in evaluations) + "0 1 f",
                                      encoding="utf-8")  # and a half-written record
    done = subprocess.run([str(program), str(tmp_path / "decisions.txt"),
                           str(tmp_path / "records")], capture_output=True, text=True,
                          check=True)
    rows = {}
    for line in done.stdout.splitlines():
        m = re.match(r"(\w+)\s+\d+\s+(\d+)/(\d+)\s+\S+(?:\s+\((\d+) by masking\))?$", line)
        if m:
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4) or 0))
    return rows


def _expected(functions: Sequence[str], decisions: Sequence[Decision],
              evaluations: Sequence[Evaluation]) -> dict[str, tuple[int, int, int]]:
    measured = function_mcdc(functions, decisions, evaluations)
    rows = {name: (m.conditions_shown, m.conditions_total,
                   sum(1 for c in m.conditions if c.form == MASKING))
            for name, m in measured.items()}
    rows["TOTAL"] = (sum(r[0] for r in rows.values()), sum(r[1] for r in rows.values()), 0)
    return rows


def test_hand_picked_decisions(report_program: Path, tmp_path: Path) -> None:
    and2 = _decision(0, "f", ("&&", 0, 1))
    mux = _decision(1, "g", ("||", ("&&", 0, 1), ("&&", ("!", 2), 3)))
    evaluations = [_evaluation(and2, v) for v in ((True, True), (False, True))]
    # (a && b) || (!a && c): conditions 0 and 2 are the same `a`
    evaluations += [_evaluation(mux, (a, b, a, c)) for a, b, c in (
        (True, True, False), (True, False, True), (False, False, True),
        (False, False, False))]
    rows = _run(report_program, tmp_path, ["f", "g", "h"], [and2, mux], evaluations)
    assert rows == _expected(["f", "g", "h"], [and2, mux], evaluations)
    assert rows["f"] == (1, 2, 0)  # a shown; b never false
    assert rows["h"] == (0, 0, 0)
    assert rows["g"] == (4, 4, 1)  # the second `a` only by a masking pair


def _random_tree(rng: random.Random, n: int, numbers: list[int]) -> BoolTree:
    if n == 1:
        tree: BoolTree = numbers.pop(0)
    else:
        left = rng.randint(1, n - 1)
        first = _random_tree(rng, left, numbers)
        tree = (rng.choice(("&&", "||")), first, _random_tree(rng, n - left, numbers))
    return ("!", tree) if rng.random() < 0.2 else tree


def test_drawn_decisions_and_evaluations(report_program: Path, tmp_path: Path) -> None:
    rng = random.Random(21)
    functions = [f"fn{i}" for i in range(8)]
    decisions = []
    for id_ in range(40):
        n = rng.randint(2, 6)
        decisions.append(_decision(id_, rng.choice(functions),
                                   _random_tree(rng, n, list(range(n)))))
    evaluations = []
    for d in decisions:
        n = len(d.conditions)
        for _ in range(rng.randint(0, 2 * n)):
            values = [rng.random() < 0.5 for _ in range(n)]
            if rng.random() < 0.3 and n >= 2:
                values[1] = values[0]  # coupled: one variable in two conditions
            evaluations.append(_evaluation(d, values))
    rows = _run(report_program, tmp_path, functions, decisions, evaluations)
    expected = _expected(functions, decisions, evaluations)
    assert rows == expected
    shown, total, _ = expected["TOTAL"]
    assert 0 < shown < total  # the draw covers some conditions and misses others
    assert any(r[2] for r in expected.values())  # and some only by masking
