"""A function's cases depend on its own code only: the same whether it is generated with
its file, alone (`--ctgen-functions`), or after other work in the same process. z3 reuses
the numbers of freed terms and its models depend on them, so generation gives each
function a z3 context of its own (symbolic.solver.own_context)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_ctgen.cases import FunctionCases
from pytest_ctgen.case_writer import file_cases_to_json
from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import lower_unit
from pytest_ctgen.options import Options
from pytest_ctgen.pipeline import generate_file
from pytest_ctgen.search.generator import generate_function
from pytest_ctgen.search.options import SearchOptions

# functions of the kinds whose cases once changed with what was generated before them:
# records passed by value, floats, stubs called in a loop
UNIT = """\
#include <stdint.h>
typedef struct { int x, y; } point;
typedef struct { point lo, hi; } rect;
int read_sensor(int channel);
int send_frame(const uint8_t *data, int len);

int contains(rect r, point p) {
    return p.x >= r.lo.x && p.x <= r.hi.x && p.y >= r.lo.y && p.y <= r.hi.y;
}
rect grow(rect a, rect b) {
    rect u = a;
    if (b.lo.x < u.lo.x) u.lo.x = b.lo.x;
    if (b.hi.y > u.hi.y) u.hi.y = b.hi.y;
    return u;
}
float median(float a, float b, float c) {
    if (a > b) { float t = a; a = b; b = t; }
    if (b > c) b = c;
    return a > b ? a : b;
}
int percent(float v) {
    if (v != v) return -1;
    if (v < 0.0f) return 0;
    if (v > 1.0f) return 100;
    return (int)(v * 100.0f);
}
int retry(const uint8_t *data, int len) {
    for (int i = 0; i < 3; i++) {
        if (send_frame(data, len) == len) return i;
        if (read_sensor(i) < 0) return -2;
    }
    return -1;
}
int checksum_ok(const uint8_t *buf, int n) {
    uint8_t a = 0, b = 0;
    for (int i = 0; i < n && i < 4; i++) { a += buf[i]; b += a; }
    return n > 4 && buf[4] == a && buf[5] == b;
}
"""
FUNCTIONS = ("contains", "grow", "median", "percent", "retry", "checksum_ok")


def _functions(path: Path, options: Options) -> dict[str, dict]:
    data = json.loads(file_cases_to_json(generate_file(path, "unit.c", options).cases))
    for fn in data["functions"]:
        fn.pop("generation_seconds", None)  # the clock, never part of a result
    return {fn["name"]: fn for fn in data["functions"]}


@pytest.fixture(scope="module")
def unit_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("determinism") / "unit.c"
    path.write_text(UNIT, encoding="utf-8")
    return path


def test_a_function_gets_the_same_cases_alone_as_with_its_file(unit_path: Path) -> None:
    whole = _functions(unit_path, Options())
    assert set(whole) == set(FUNCTIONS)
    assert all(fn["cases"] for fn in whole.values())
    for name in FUNCTIONS:
        alone = _functions(unit_path, Options(functions=(name,)))
        assert alone[name] == whole[name], name


def test_a_function_gets_the_same_cases_whatever_ran_before_it_in_the_process(
        unit_path: Path) -> None:
    program = lower_unit(load_unit(unit_path, []))

    def generated(name: str) -> FunctionCases:
        return replace(generate_function(program, name, SearchOptions()),
                       generation_seconds=0.0)

    forward = {name: generated(name) for name in FUNCTIONS}
    backward = {name: generated(name) for name in reversed(FUNCTIONS)}
    assert forward == backward
