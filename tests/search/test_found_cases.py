"""The generator tells of each case as it makes it (kept_cases.FoundCase), so a function
whose generation is stopped from outside keeps them: each case once, in order, as the result
has it, with the callbacks and the annotations the cases need; telling changes nothing of
what generation gives."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytest_ctgen.c_harness_files import harness_dir
from pytest_ctgen.cases import STOP_MEMORY, FunctionCases
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import lower_unit
from pytest_ctgen.kept_cases import FoundCase, KeptCases
from pytest_ctgen.search.generator import generate_function
from pytest_ctgen.search.options import SearchOptions

UNIT = """\
#include "ctgen.h"
int limit;
int sensor(void);
int pick(int x, int (*pred)(int value), int (*other)(int value))
{
    __rtt_postcondition(__rtt_return != 3);
    int s = sensor();
    if (pred(x)) {
        if (x > limit) return 1;
        return 2;
    }
    if (s == 7) return other(x) ? 3 : 4;
    return 0;
}
"""


def _generate(tmp_path: Path, found=None) -> FunctionCases:
    path = tmp_path / "pick.c"
    path.write_text(UNIT, encoding="utf-8")
    program = lower_unit(load_unit(path, [f"-I{harness_dir()}"]))
    return generate_function(program, "pick", SearchOptions(), found=found)


def test_each_case_is_told_once_as_the_result_has_it(tmp_path: Path) -> None:
    told: list[FoundCase] = []
    result = _generate(tmp_path, told.append)
    assert len(result.cases) >= 4
    assert [f.case for f in told] == list(result.cases)
    assert sorted(c.name for f in told for c in f.callbacks) == \
        [c.name for c in result.callbacks] == ["ctgen_cb_pick_other", "ctgen_cb_pick_pred"]
    contracts = [f.contract for f in told if f.contract is not None]
    assert contracts[0] == told[0].contract  # the first case tells them
    assert [c.checks[0].verdict for c in contracts] == ["", "violated"]

    kept = KeptCases()
    for f in told:
        kept.add(f)
    stopped = replace(result, cases=(), not_reached=result.not_reached + result.unreachable,
                      unreachable=(), contract=None, callbacks=())
    assert kept.result(stopped, STOP_MEMORY) == replace(
        result, stop_reason=STOP_MEMORY, unreachable=(),
        not_reached=tuple(o for o in stopped.not_reached
                          if o not in {o for c in result.cases for o in c.covered}),
        contract=contracts[-1])


def test_telling_changes_nothing(tmp_path: Path) -> None:
    assert _generate(tmp_path, lambda found: None) == _generate(tmp_path)
