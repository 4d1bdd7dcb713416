"""The mutation bench (bench/mutants.py, bench/mutation.py): which mutants a function's body
gives, and the score of a small unit's generated cases, run through the exported driver."""
from __future__ import annotations

import json
from pathlib import Path

from bench.mutants import mutants, tokens
from bench.mutation import main

UNIT = r"""#include <stdint.h>
#define LIMIT 10 /* a < b in a comment */

int32_t g_count;

/* counts the values at or above the limit; "a < b" in a string is no operator */
int above(const int32_t *v, int n)
{
    int hits = 0;
    for (int i = 0; i < n && i < 4; i++) {
        if (v[i] >= LIMIT) {
            hits += 1;
        }
    }
    g_count = hits;
    return hits * 2;
}

int other(int x) { return x - 1; }
"""


def test_tokens_skip_comments_strings_and_directives() -> None:
    texts = [t.text for t in tokens('#define X 1 < 2\nint a = b < "<"; // <\n')]
    assert texts == ["int", "a", "=", "b", "<", '"<"', ";"]


def test_mutants_change_one_token_range_of_the_function_body() -> None:
    found = mutants(UNIT, "above", UNIT.splitlines().index("int above(const int32_t *v, int n)")
                    + 1)
    described = [(m.operator, m.original, m.replacement) for m in found]
    assert ("ROR", "<", "<=") in described and ("ROR", ">=", ">") in described
    assert ("LCR", "&&", "||") in described and ("ASR", "++", "--") in described
    assert ("ASR", "+=", "-=") in described and ("AOR", "*", "/") in described
    assert ("CRP", "4", "5") in described and ("CRP", "4", "3") in described
    assert ("SDL", "g_count = hits;", ";") in described
    assert ("SDL", "int hits = 0;", ";") not in described  # a declaration stays
    assert not any(m.original == "-" for m in found)  # `other` is not mutated
    for m in found:
        mutated = m.apply(UNIT)
        assert mutated != UNIT and "a < b" in mutated  # comments and strings untouched
        assert UNIT[:m.start] == mutated[:m.start]


def test_mutants_of_a_function_not_found_are_none() -> None:
    assert mutants(UNIT, "above", 1) == []  # not defined on that line
    assert mutants(UNIT, "missing", 7) == []


def test_the_cases_kill_the_mutants_they_observe(tmp_path: Path) -> None:
    unit = tmp_path / "src" / "count.c"
    unit.parent.mkdir()
    unit.write_text(UNIT, encoding="utf-8")
    assert main([str(unit), "--out", str(tmp_path / "out")]) == 0
    doc = json.loads((tmp_path / "out" / "mutation.json").read_text(encoding="utf-8"))
    assert not doc["errors"], doc["errors"]
    results = doc["mutants"]
    assert {r["function"] for r in results} == {"above", "other"}
    compiling = [r for r in results if r["outcome"] != "not compiling"]
    killed = [r for r in compiling if r["outcome"] == "killed"]
    assert compiling and len(killed) >= len(compiling) // 2, results
    # the return value is checked: doubling and its operator are observed
    assert any(r["original"] == "*" and r["outcome"] == "killed" for r in results)
    # the write of a global is checked
    assert any(r["original"] == "g_count = hits;" and r["outcome"] == "killed"
               for r in results)
    report = (tmp_path / "out" / "mutation.md").read_text(encoding="utf-8")
    assert f"{len(killed)} of {len(compiling)} compiling mutants killed" in report


def test_annotations_are_the_spec_and_never_mutated() -> None:
    text = """int f(int x)
{
    __rtt_precondition(x < 10 && __rtt_initial(x) >= 0);
    __rtt_testcase(x == 1,
                   __rtt_return == 2, "REQ-1");
    return x + 1;
}
"""
    found = mutants(text, "f", 1)
    assert [(m.operator, m.original) for m in found] == [
        ("AOR", "+"), ("CRP", "1"), ("CRP", "1")]
    assert all(m.line == 6 for m in found)
