"""A function-pointer parameter gets a callback the harness generates; when a case fails,
its report names the callback with what each call returned, and the stub call log shows
each call of it with its arguments."""
from __future__ import annotations

import json
import re

import pytest

from plugin_helpers import QUIET, output, run_ctgen

UNIT = """\
int find_if(const int *v, int n, int (*pred)(int value))
{
    for (int i = 0; i < n; i++) {
        if (pred(v[i])) {
            return i;
        }
    }
    return -1;
}
"""


def test_a_failing_case_names_the_callback_and_its_calls(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "find.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "find.c")
    assert result.ret == 0, output(result)
    doc = json.loads((ctgen_dir.path / "out" / "find" / "find.ctgen.json").read_text())
    [function] = doc["functions"]
    assert function["callbacks"] == [{
        "name": "ctgen_cb_find_if_pred",
        "prototype": "int ctgen_cb_find_if_pred(int value)",
        "params": [["value", "signed"]], "callback": "pred"}]

    # a regression: the index found is off by one
    (ctgen_dir.path / "find.c").write_text(UNIT.replace("return i;", "return i + 1;"),
                                           encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    text = output(replay)
    assert replay.ret == 1, text
    assert re.search(r'pred = \{"@function": "ctgen_cb_find_if_pred"\}', text), text
    assert re.search(r"ctgen_cb_find_if_pred\(\) returns (0, )*[1-9]\d* "
                     r"\(the callback pred points to\)", text), text
    assert re.search(r"stub calls: (ctgen_cb_find_if_pred\(-?\d+\)(, )?)+", text), text


CONTEXT_UNIT = """\
typedef int (*cmp_fun)(const void *, const void *);

/* qsort_r's wrapper style: the comparison travels as the void * context */
int sign_of(const void *a, const void *b, void *ctx)
{
    int r = ((cmp_fun)ctx)(a, b);
    if (r < 0)
        return -1;
    if (r > 0)
        return 1;
    return 0;
}
"""


def test_a_void_pointer_the_code_calls_is_a_callback(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "ctx.c").write_text(CONTEXT_UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "ctx.c")
    assert result.ret == 0, output(result)
    assert "skipped" not in output(result)
    doc = json.loads((ctgen_dir.path / "out" / "ctx" / "ctx.ctgen.json").read_text())
    cases = doc["functions"][0]["cases"]
    assert {c["expected"]["returns"] for c in cases} == {-1, 0, 1}
    for case in cases:
        params = {p["name"]: p["value"] for p in case["params"]}
        assert params["ctx"] == {"@function": "ctgen_cb_sign_of_ctx"}, params
        assert params["a"] == {"@pointer": "ctgen_obj_a", "offset": 0}, params
    make = ctgen_dir.run("make", "-s", "-C", "out/ctx", "run")
    assert make.ret == 0, output(make)


MEMBER_CONTEXT_UNIT = """\
typedef int (*on_event)(int);

struct listener { int armed; void *handler; };

/* the handler travels as a void * member of the record */
int notify(const struct listener *l, int v)
{
    if (!l->armed)
        return -1;
    if (((on_event)l->handler)(v) > 10)
        return 1;
    return 0;
}
"""


def test_a_void_pointer_member_the_code_calls_is_a_callback(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "member_ctx.c").write_text(MEMBER_CONTEXT_UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "member_ctx.c")
    assert result.ret == 0, output(result)
    assert "skipped" not in output(result)
    doc = json.loads((ctgen_dir.path / "out" / "member_ctx" / "member_ctx.ctgen.json")
                     .read_text())
    cases = doc["functions"][0]["cases"]
    assert {c["expected"]["returns"] for c in cases} == {-1, 0, 1}
    callback = {"@function": "ctgen_cb_notify_l_handler"}
    for case in cases:
        listener = case["objects"][0]["value"][0]
        if case["expected"]["returns"] != -1:
            assert listener["handler"] == callback, case
            assert case["expected"]["calls_in_order"][0]["stub"] == callback["@function"]
    make = ctgen_dir.run("make", "-s", "-C", "out/member_ctx", "run")
    assert make.ret == 0, output(make)
