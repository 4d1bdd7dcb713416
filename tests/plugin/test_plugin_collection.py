"""Collection: item ids, selection (-k, -x, --lf), bad C input, unsupported constructs, and
no collection of C files without --ctgen."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from plugin_helpers import ID_LINE, QUIET, collected_ids, output, run_ctgen

REPO = Path(__file__).resolve().parents[2]

# tritype.c without tri_is_right, whose generation takes a few seconds.
TRITYPE_FUNCTIONS = {"sides_positive", "tri_inequality_ok", "tritype", "tri_perimeter"}


@pytest.fixture
def tritype_dir(ctgen_dir: pytest.Pytester) -> pytest.Pytester:
    shutil.copy(REPO / "examples" / "tritype.c", ctgen_dir.path / "tritype.c")
    return ctgen_dir


def _by_function(ids: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for item in ids:
        m = ID_LINE.match(item)
        assert m, item
        case = re.fullmatch(r"case(\d+)", m.group(3))
        assert case, item
        out.setdefault(m.group(2), []).append(int(case.group(1)))
    return out


def test_collect_only_lists_case_ids(tritype_dir: pytest.Pytester) -> None:
    result = run_ctgen(tritype_dir, "--collect-only", "-q", "--ctgen-exclude", "tri_is_right",
                       "tritype.c")
    assert result.ret == 0, output(result)
    ids = collected_ids(result)
    assert "tritype.c::tritype[case1]" in ids
    assert all(i.startswith("tritype.c::") for i in ids)
    assert len(ids) == len(set(ids))
    by_fn = _by_function(ids)
    assert set(by_fn) == TRITYPE_FUNCTIONS
    for fn, numbers in by_fn.items():
        assert numbers == list(range(1, len(numbers) + 1)), fn
    # tritype() has 14 gcov branch outcomes: it cannot be covered by fewer than 2 cases
    assert len(by_fn["tritype"]) >= 2
    assert re.search(rf"^{len(ids)} tests? collected", output(result), re.M)
    # collection only: no harness ran, so no coverage table
    assert "ctgen coverage" not in output(result)


def test_k_selects_the_cases_of_one_function(tritype_dir: pytest.Pytester) -> None:
    collected = run_ctgen(tritype_dir, "--collect-only", "-q",
                          "--ctgen-exclude", "tri_is_right", "tritype.c")
    by_fn = _by_function(collected_ids(collected))
    result = run_ctgen(tritype_dir, "-v", "-k", "tri_perimeter",
                       "--ctgen-exclude", "tri_is_right", "tritype.c")
    ran = re.findall(r"^(tritype\.c::\S+) PASSED", output(result), re.M)
    assert ran == [f"tritype.c::tri_perimeter[case{n}]" for n in by_fn["tri_perimeter"]]
    result.assert_outcomes(passed=len(by_fn["tri_perimeter"]),
                           deselected=sum(map(len, by_fn.values()))
                           - len(by_fn["tri_perimeter"]))


CRASH_IN_MIDDLE = """\
int first(int a)
{
    if (a > 0) {
        return 1;
    }
    return 0;
}

int boom(int x)
{
    __asm__("ud2");
    return x;
}

int last(int b)
{
    if (b == 4) {
        return 2;
    }
    return 3;
}
"""


def test_x_stops_at_first_failure_and_lf_reruns_it(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", mid=CRASH_IN_MIDDLE)
    ids = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "mid.c"))
    by_fn = _by_function(ids)
    assert set(by_fn) == {"first", "boom", "last"}
    assert by_fn["boom"] == [1]
    n_first = len(by_fn["first"])

    full = run_ctgen(ctgen_dir, "mid.c")
    full.assert_outcomes(passed=len(ids) - 1, failed=1)

    stopped = run_ctgen(ctgen_dir, "-x", "mid.c")
    stopped.assert_outcomes(passed=n_first, failed=1)
    assert "stopping after 1 failures" in output(stopped)
    assert stopped.ret == pytest.ExitCode.TESTS_FAILED

    again = run_ctgen(ctgen_dir, "--lf", "-v", "mid.c")
    again.assert_outcomes(failed=1, deselected=len(ids) - 1)
    assert re.search(r"^mid\.c::boom\[case1\] FAILED", output(again), re.M)


BAD = """\
int ok(int a) { return a; }

int broken(int a) {
    return a +;
}
"""

GOOD = """\
int good(int v)
{
    if (v > 2) {
        return v;
    }
    return 0;
}
"""


def test_syntax_error_is_one_collection_error_with_position(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", bad=BAD, good=GOOD)
    result = run_ctgen(ctgen_dir, "--continue-on-collection-errors", "-rA", ".")
    out = output(result)
    result.assert_outcomes(passed=2, errors=1)
    assert re.search(r"bad\.c:4:15: ", out), out  # the `;` after `a +`
    assert len(re.findall(r"ERROR collecting (\S+)", out)) == 1
    assert re.search(r"ERROR collecting bad\.c", out)
    assert "Traceback" not in out
    assert not re.search(r"^\s*File \".*\.py\", line \d+", out, re.M)
    assert re.search(r"^PASSED good\.c::good\[case1\]$", out, re.M)
    assert re.search(r"^good\.c::good\s+2\s+100\.0%\s+100\.0%", out, re.M)


def test_syntax_error_does_not_stop_the_other_files(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", bad=BAD, good=GOOD)
    result = run_ctgen(ctgen_dir, ".")
    out = output(result)
    result.assert_outcomes(passed=2, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert re.search(r"bad\.c:4:15: ", out)
    assert "Traceback" not in out and "INTERNALERROR" not in out


def test_missing_header_is_a_collection_error(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", good=GOOD)
    ctgen_dir.makefile(".c", inc='/* needs a header */\n#include "nothere.h"\n'
                                 'int b(int x) { return x; }\n')
    result = run_ctgen(ctgen_dir, "--continue-on-collection-errors", ".")
    out = output(result)
    result.assert_outcomes(passed=2, errors=1)
    assert re.search(r"inc\.c:2:10: .*nothere\.h", out), out
    assert "Traceback" not in out


def test_preprocessor_error_directive_carries_compiler_words(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", cfg='int a(int x) { return x; }\n'
                                 '#error "configure the board first"\n')
    result = run_ctgen(ctgen_dir, "cfg.c")
    out = output(result)
    result.assert_outcomes(errors=1)
    assert re.search(r"cfg\.c:2:2: .*configure the board first", out), out
    assert "Traceback" not in out


UNSUPPORTED = """\
typedef int (*op_t)(int, ...);  /* calls through it are not supported */

int twice(int v) { return 2 * v; }

int apply(op_t op, int x)
{
    if (x > 0) {
        return op(x);
    }
    return 0;
}

int deref(const int *p)
{
    if (*p > 3) {
        return 1;
    }
    return 0;
}
"""


def test_unsupported_construct_skips_that_function(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", unsup=UNSUPPORTED)
    result = run_ctgen(ctgen_dir, "-rs", "unsup.c")
    out = output(result)
    result.assert_outcomes(passed=4, skipped=1)
    skips = re.findall(r"^SKIPPED \[1\] (unsup\.c:\d+): (.*)$", out, re.M)
    assert len(skips) == 1, out
    where, reason = skips[0]
    assert where == "unsup.c:5"  # reported at the skipped function
    # the construct and its location (the call `op(x)` at line 8, column 16)
    assert re.search(r"unsup\.c:8:16: .*function pointer", reason), reason
    assert "Traceback" not in out
    assert re.search(r"^unsup\.c::apply\s+0\s.*skipped: .*function pointer", out, re.M)


def test_without_ctgen_c_files_are_not_collected(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".c", good=GOOD)
    pytester.makepyfile(test_py="def test_python():\n    assert True\n")
    result = pytester.runpytest_subprocess(*QUIET, "--collect-only", "-q", ".")
    out = output(result)
    assert result.ret == 0
    assert "test_py.py::test_python" in out
    assert ".c::" not in out
    assert re.search(r"^1 test collected", out, re.M)

    ran = pytester.runpytest_subprocess(*QUIET, ".")
    ran.assert_outcomes(passed=1)
    assert "ctgen coverage" not in output(ran)
    assert not (pytester.path / ".pytest_cache" / "d" / "ctgen").exists()
    assert not (pytester.path / ".pytest_cache" / "ctgen").exists()

    explicit = pytester.runpytest_subprocess(*QUIET, "good.c")
    assert explicit.ret != 0
    assert "good.c::" not in output(explicit)
    assert "ctgen coverage" not in output(explicit)


HEADER_ONLY = """\
#ifndef CLAMP_H
#define CLAMP_H
static inline int clamp_to(int x, int limit)
{
    if (x > limit) {
        return limit;
    }
    return x < -limit ? -limit : x;
}
#endif
"""


def test_a_header_named_on_the_command_line_is_a_unit(ctgen_dir: pytest.Pytester) -> None:
    """A header-only library's functions are tested when the header is named; a directory's
    headers are only included by its units."""
    (ctgen_dir.path / "lib").mkdir()
    (ctgen_dir.path / "lib" / "clamp.h").write_text(HEADER_ONLY)
    named = run_ctgen(ctgen_dir, "-v", "lib/clamp.h")
    assert named.ret == 0, output(named)
    ids = collected_ids(run_ctgen(ctgen_dir, "--collect-only", "-q", "lib/clamp.h"))
    # its three outcomes, and boundary and result cases
    assert set(_by_function(ids)) == {"clamp_to"} and len(ids) >= 3
    assert re.search(rf"^lib/clamp\.h::clamp_to\s+{len(ids)}\s+100\.0%\s+100\.0%",
                     output(named), re.M), output(named)
    in_directory = run_ctgen(ctgen_dir, "--collect-only", "-q", "lib")
    assert collected_ids(in_directory) == []


def test_the_c_files_of_an_export_are_no_units(tmp_path: Path) -> None:
    """Collection and the xdist pre-generation share one rule: the driver, unit copy and
    runtime an export writes beside its cases are replayed from the JSON, not generated."""
    from pytest_ctgen.plugin.collect import collected_as_unit

    export = tmp_path / "out" / "motor"
    export.mkdir(parents=True)
    driver = export / "ctgen_driver.c"
    driver.write_text("int main(void) { return 0; }\n")
    assert collected_as_unit(driver, named=False)  # a unit of that name, no export beside
    (export / "motor.ctgen.json").write_text("{}")
    assert not collected_as_unit(driver, named=False)
    assert not collected_as_unit(export / "ctgen_runtime.c", named=False)
    assert collected_as_unit(tmp_path / "motor.c", named=False)


UNLOWERED_CALLER = r"""
void hal_write(int v);
int (*variadic)(int, ...);

void report(void)
{
    variadic(1, 2);
    hal_write(1);
}

int twice(int x)
{
    if (x > 3) {
        return 2 * x;
    }
    return x;
}
"""


def test_what_a_skipped_function_calls_is_stubbed_for_the_others(
        ctgen_dir: pytest.Pytester) -> None:
    """`report` cannot be lowered, so no case sees its call of `hal_write`; the harness
    still stubs it (the unit's code names it), or no case of the file would link."""
    ctgen_dir.makefile(".c", skipper=UNLOWERED_CALLER)
    result = run_ctgen(ctgen_dir, "-rs", "skipper.c")
    out = output(result)
    result.assert_outcomes(passed=2, skipped=1)
    assert "undefined reference" not in out, out


LINE_DIRECTIVES = """\
int before(int x) { if (x > 3) return 1; return 0; }
#line 100 "parser.y"
int in_grammar(int x) { if (x > 3) return 1; return 0; }
"""


def test_a_function_a_line_directive_moves_to_another_file_is_skipped_with_its_reason(
        ctgen_dir: pytest.Pytester) -> None:
    """bison and flex write `#line N "parser.y"` before the code of the grammar's actions:
    such a function is a skip with its reason, never dropped silently, and the unit's own
    functions keep their coverage (gcovr does not fail on the file that is not there)."""
    ctgen_dir.mkdir("gen")
    (ctgen_dir.path / "gen" / "parser.c").write_text(LINE_DIRECTIVES, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "-rs", "gen/parser.c")
    text = output(result)
    assert result.ret == 0, text
    assert result.parseoutcomes()["skipped"] == 1, text
    assert re.search(r"SKIPPED \[1\] gen/parser\.c:100: parser\.y:100:5: defined where a "
                     r"#line directive of the unit names parser\.y", text), text
    assert re.search(r"gen/parser\.c::before\s+2\s+100\.0%\s+100\.0%", text), text
    assert "gcovr failed" not in text


def test_a_name_of_the_harness_in_the_unit_is_one_located_collection_error(
        ctgen_dir: pytest.Pytester) -> None:
    """The harness defines its own functions and objects under `ctgen_`: a unit that
    defines such a name would not build with it (every case failing with the compiler's
    `conflicting types`); the user is told where to rename, and the other files run."""
    (ctgen_dir.path / "clash.c").write_text(
        "int ok(int x) { return x > 2; }\nint ctgen_run_case(int x)\n{\n    return x;\n}\n",
        encoding="utf-8")
    (ctgen_dir.path / "fine.c").write_text("int fine(int x) { if (x) return 1; return 0; }\n",
                                          encoding="utf-8")
    result = run_ctgen(ctgen_dir, "clash.c", "fine.c")
    text = output(result)
    assert "clash.c:2:5: 'ctgen_run_case': names that start with ctgen_ are the test " \
           "harness's; rename it" in text, text
    outcomes = result.parseoutcomes()
    assert outcomes["errors"] == 1 and outcomes["passed"] == 2, text
