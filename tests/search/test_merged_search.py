"""The second engine (search/merged_search.py, issue 20): goals behind loops that must take a
branch many times, which the path-by-path tree search stalls on, are reached by merging the
paths and asking the solver once; each case found is one executed path, run compiled.
Also the parts it rests on: the weak topological order (ir/weak_order.py) and the merging
of two states (symbolic/merge.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import z3

from pytest_ctgen.cases import STOP_EXHAUSTED, IntValue
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import Program, lower_unit
from pytest_ctgen.ir.weak_order import weak_order
from pytest_ctgen.search.generator import generate_function
from pytest_ctgen.search.options import SearchOptions
from pytest_ctgen.search.tree import outcome_of
from pytest_ctgen.symbolic.executor import Executor
from pytest_ctgen.symbolic.merge import merge
from pytest_ctgen.symbolic.paths import Fork
from tests.symbolic.generated_unit import GeneratedUnit, unit_generator

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

# Each target needs a loop body to take one branch a given number of times: one path of
# thousands for a search that runs one path at a time.
UNIT = r"""
int rows_over(const unsigned char m[4][4])
{
    int rows = 0;
    for (int r = 0; r < 4; r++) {
        int hot = 0;
        for (int c = 0; c < 4; c++)
            if (m[r][c] > 200)
                hot++;
        if (hot >= 3)
            rows++;
    }
    if (rows == 4)
        return 2;
    if (rows >= 2)
        return 1;
    return 0;
}

unsigned odd_bytes(const unsigned char *buf, int n)
{
    unsigned sum = 0;
    int odd = 0;
    if (n > 32)
        return 0;
    for (int i = 0; i < n; i++) {
        sum += buf[i];
        if (buf[i] & 1)
            odd++;
    }
    if (odd == 12 && sum == 1000)
        return 7;
    return sum;
}

int eight_digits(const char *s)
{
    int digits = 0, i;
    for (i = 0; s[i] != '\0' && i < 40; i++)
        if (s[i] >= '0' && s[i] <= '9')
            digits++;
    if (digits == 8 && i == 12)
        return 1;
    return 0;
}
"""

# A driver loop over a state machine fed by a stub: the switch's default is dead (the state
# is 0, 1 or 2), which only all 3^12 paths together show; and a target that needs more
# loop iterations than the unwinding bound, which is never proved unreachable.
MACHINE = r"""
int sense(void);

int machine(int steps)
{
    int state = 0, alarms = 0;
    if (steps > 12)
        steps = 12;
    for (int i = 0; i < steps; i++) {
        int v = sense();
        switch (state) {
        case 0: if (v > 100) state = 1; break;
        case 1: if (v > 200) state = 2; else if (v < 50) state = 0; break;
        case 2: alarms++; if (v < 10) state = 0; break;
        }
    }
    if (alarms >= 5)
        return -1;
    return state;
}

int long_count(int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i % 3 == 0)
            k++;
    if (k == 30)
        return 1;
    return 0;
}
"""

SHAPES = r"""
int shapes(int a, int b)
{
    int s = 0;
    while (a > 0) {
        if (b & 1)
            s += a;
        for (int k = 0; k < 3; k++)
            s ^= k;
        a--;
    }
    do { s++; } while (s < b);
    return s;
}
"""


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("merged"))("counting.c", UNIT)


@pytest.mark.parametrize("name", ["rows_over", "odd_bytes", "eight_digits"])
def test_counting_targets_are_reached_and_hold_when_compiled(unit: GeneratedUnit,
                                                             name: str) -> None:
    # every case already ran against the gcc build (unit_generator); gcov saw every
    # branch outcome, within the default work budget
    unit.assert_fully_covered(name)


def test_the_counting_case_takes_the_branch_the_target_needs(unit: GeneratedUnit) -> None:
    returns = [c.expected.returns for c in unit.functions["odd_bytes"].cases]
    assert any(isinstance(r, IntValue) and r.value == 7 for r in returns), returns


@pytest.fixture(scope="module")
def machine(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    return unit_generator(tmp_path_factory.mktemp("machine"))("machine.c", MACHINE)


def test_all_paths_merged_prove_an_outcome_unreachable(machine: GeneratedUnit) -> None:
    fn = machine.functions["machine"]
    # exhausted within the work budget (the tree search alone spent all of it)
    assert fn.stop_reason == STOP_EXHAUSTED, (fn.stop_reason, fn.not_reached)
    assert [(o.line, o.label) for o in fn.unreachable] == [(11, "default")]
    assert not fn.not_reached
    coverage = machine.run.coverage()["machine"]
    assert coverage.branches_total - coverage.branches_covered == 1  # that default


def test_what_the_unwinding_bound_cuts_is_never_proved_unreachable(
        machine: GeneratedUnit) -> None:
    fn = machine.functions["long_count"]
    assert not fn.unreachable, fn.unreachable
    covered = {(o.line, o.label) for c in fn.cases for o in c.covered}
    assert (28, "true") in covered or \
        (28, "true") in {(o.line, o.label) for o in fn.not_reached}


def _program(tmp_path: Path, text: str) -> Program:
    path = tmp_path / "unit.c"
    path.write_text(text)
    return lower_unit(load_unit(path, []))


def test_weak_order_leads_every_edge_forward_but_to_a_loop_head(tmp_path: Path) -> None:
    cfg = _program(tmp_path, SHAPES).cfgs["shapes"]
    order = weak_order(cfg)
    assert set(order.position) == {b.id for b in cfg.blocks} & cfg.reachable_from(
        {cfg.entry.id})
    backward = 0
    for block in cfg.blocks:
        if block.id not in order.position:
            continue
        assert block.terminator is not None
        for succ in block.terminator.successors():
            if order.position[succ.id] <= order.position[block.id]:
                # only to the head of a cycle the block lies in
                assert succ.id in order.heads[block.id], (block, succ)
                backward += 1
    assert backward == 3  # the while, the for nested in it, the do-while
    # a loop's blocks are numbered together: its head, then every block of its cycle
    for head in {h for heads in order.heads.values() for h in heads}:
        inside = sorted(order.position[b] for b, hs in order.heads.items() if head in hs)
        assert inside == list(range(inside[0], inside[0] + len(inside)))
        assert inside[0] == order.position[head]


def _arms_at_join(tmp_path: Path, text: str, function: str) -> tuple[Executor, list[Fork]]:
    """The two paths of the function's first branch, each run on to the next branch."""
    executor = Executor(_program(tmp_path, text), function)
    fork = executor.advance(executor.initial_state())
    assert isinstance(fork, Fork)
    arms = []
    for i, guard in enumerate(fork.guards):
        follower = fork.state.fork()
        executor.take(follower, fork.block, i, guard)
        arm = executor.advance(follower)
        assert isinstance(arm, Fork)
        arms.append(arm)
    return executor, arms


def test_two_paths_merge_into_conditional_values(tmp_path: Path) -> None:
    _, (then, other) = _arms_at_join(
        tmp_path, "int pick(int a, int b) { int r = 5; if (a > 3) r = a; if (b) r++; "
                  "return r; }", "pick")
    assert then.block is other.block
    merged = merge(then.state, other.state)
    assert merged is not None
    registers = {v.name: value for v, value in merged.frames[0].registers.items()}
    solver = z3.Solver()
    solver.add(*merged.constraints)
    for given, expected in ((9, 9), (4, 4), (3, 5), (-7, 5)):
        solver.push()
        solver.add(registers["a"] == given)
        assert solver.check() == z3.sat  # the merged condition admits both paths
        assert solver.model().eval(registers["r"]).as_long() == expected
        solver.pop()


def test_paths_with_different_stub_calls_stay_apart(tmp_path: Path) -> None:
    _, (called, skipped) = _arms_at_join(
        tmp_path, "int sense(void);\n"
                  "int poll(int a, int b) { int r = 0; if (a) r = sense(); if (b) r++; "
                  "return r; }", "poll")
    assert called.block is skipped.block
    assert len(called.state.stub_calls) == 1 and not skipped.state.stub_calls
    assert merge(called.state, skipped.state) is None


# Past `k == 11` every merged path takes `x == 2` true by constants alone: no query asks
# for that outcome, so only the edges the merged paths took show it can be reached.
TALLY = r"""
unsigned char a[12];

int tally(void)
{
    int k = 0, x = 0;
    for (int i = 0; i < 12; i++)
        if (a[i] > 200)
            k++;
    if (k == 11) {
        for (int j = 0; j < 2; j++)
            x++;
        if (x == 2)
            return 1;
    }
    return 0;
}
"""


def test_an_outcome_merged_paths_take_by_constants_is_never_proved_unreachable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the replay of what the queries find left out (as when its path cannot be
    run), nothing makes a case past `k == 11`: the outcome the merged paths took there
    without a query is reachable all the same, so the merged search counts it possible
    and it can never be proved unreachable."""
    from pytest_ctgen.search import generator, merged_search

    results: list[merged_search.MergedResult] = []

    def recorded(gen: generator.Generator) -> merged_search.MergedResult:
        results.append(merged_search.merged_search(gen))
        return results[-1]

    monkeypatch.setattr(merged_search, "_replay", lambda gen, start, model: None)
    monkeypatch.setattr(generator, "merged_search", recorded)
    program = _program(tmp_path, TALLY)
    fn = generate_function(program, "tally", SearchOptions())
    line = TALLY.splitlines().index("        if (x == 2)") + 1
    assert results and results[0].complete
    cfg = program.cfgs["tally"]
    taken = {e for e in cfg.branch_edges()
             if (outcome_of(cfg, e).line, outcome_of(cfg, e).label) == (line, "true")}
    assert taken and taken <= results[0].possible, results[0].possible
    assert (line, "true") not in {(o.line, o.label) for o in fn.unreachable}
