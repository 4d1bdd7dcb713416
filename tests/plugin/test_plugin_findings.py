"""End to end: a path into undefined behaviour is a failing case that names the error and
its place, in pytest and in the exported driver, whether the compiled run crashes on it
(a division by zero) or runs on (a read past the end of an array); the coverage table
calls nothing behind it unreachable."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from plugin_helpers import failed_functions, failure_lines, output, report_rows, run_ctgen

UNIT = """\
int scale(int total, int parts)
{
    if (total > 100) {
        return total / parts;
    }
    return total;
}

int pick(int i)
{
    int t[4] = {5, 6, 7, 8};
    if (i > 2) {
        return t[i];
    }
    return 0;
}
"""

DIVISION = "undefined behaviour at src/meter.c:4:9: division by zero in total / parts"
PAST_END = "undefined behaviour at src/meter.c:13:9: out-of-bounds read from 't' (16 bytes)"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_findings_fail_with_the_error_named_in_pytest_and_in_the_driver(
        ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.mkdir("src")
    (ctgen_dir.path / "src" / "meter.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report",
                       "json:r.json", "src/meter.c")
    text = output(result)
    assert result.ret == 1, text
    failed = sorted(line.split(" - ")[0] for line in result.outlines
                    if line.startswith("FAILED "))
    assert failed == ["FAILED src/meter.c::pick[case1]", "FAILED src/meter.c::scale[case1]"]
    # the division traps (SIGFPE); the read past the end runs on and the harness fails it
    assert "scale[case1]: crashed with SIGFPE" in text
    assert f"  ends: {DIVISION}" in text
    assert "  parts = 0\n" in text
    assert f"pick[case1]: {PAST_END}" in text
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in ("scale", "pick"):
        assert rows[name]["unreachable"] == [], rows[name]
        assert rows[name]["branches_covered"] == rows[name]["branches_total"], rows[name]

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "meter"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode != 0
    lines = run.stdout.splitlines()
    assert f"FAIL scale[case1]: crashed with SIGFPE; predicted: {DIVISION}" in lines
    assert f"FAIL pick[case1]: {PAST_END}" in lines
    assert lines[-1] == f"{len(lines) - 3} passed, 2 failed"


def test_a_finding_is_not_run_without_isolation(ctgen_dir: pytest.Pytester) -> None:
    """In the session's own process a crash would end the session: the case fails unrun."""
    (ctgen_dir.path / "meter.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-isolate", "none", "meter.c", "-k", "scale")
    text = output(result)
    assert result.ret == 1, text
    assert ("scale[case1]: undefined behaviour at meter.c:4:9: division by zero in "
            "total / parts; not run: without --ctgen-isolate fork it could end the "
            "session") in text
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["passed"] >= 2, outcomes


OVERFLOW = """\
int add(int a, int b)
{
    if (a > 1000) {
        return a + b;
    }
    return 0;
}
"""


def test_signed_overflow_is_a_note_or_on_request_a_finding(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "acc.c").write_text(OVERFLOW, encoding="utf-8")
    noted = run_ctgen(ctgen_dir, "acc.c")
    assert noted.ret == 0, output(noted)
    ctgen_dir.makeini("[pytest]\nctgen_signed_overflow = finding\n")
    found = run_ctgen(ctgen_dir, "acc.c")
    text = output(found)
    assert found.ret == 1, text
    assert "undefined behaviour at acc.c:4:9: signed overflow in a + b" in text
    found.assert_outcomes(failed=1, passed=2)


NEGATIONS = """\
#include <limits.h>

int neg(int x) { return -x; }
long long neg_ll(long long x) { return -x; }
int magnitude(int x) { return x < 0 ? -x : x; }
unsigned neg_u(unsigned x) { return -x; }
int neg_short(short x) { return -x; }
int neg_char(signed char x) { return -x; }
int neg_min(int x)
{
    if (x == INT_MIN) {
        return -x;
    }
    return 0;
}
"""


def test_negating_the_minimum_is_signed_overflow(ctgen_dir: pytest.Pytester) -> None:
    """-x overflows where x is its type's minimum, as a - b does, after the promotions:
    a short or a char is negated as an int, an unsigned wraps."""
    (ctgen_dir.path / "neg.c").write_text(NEGATIONS, encoding="utf-8")
    noted = run_ctgen(ctgen_dir, "--ctgen-export", "out", "neg.c")
    assert noted.ret == 0, output(noted)
    doc = json.loads((ctgen_dir.path / "out" / "neg" / "neg.ctgen.json").read_text("utf-8"))
    notes = {f["name"]: [n for c in f["cases"] for n in c["notes"]] for f in doc["functions"]}
    assert notes["neg_min"] == ["needs signed overflow (undefined in C; gcc -O0 wraps)"]
    ctgen_dir.makeini("[pytest]\nctgen_signed_overflow = finding\n")
    found = run_ctgen(ctgen_dir, "neg.c")
    text = output(found)
    assert found.ret == 1, text
    assert failed_functions(found) == ["magnitude", "neg", "neg_ll", "neg_min"], text
    ends = sorted(line for line in failure_lines(found) if line.startswith("  ends: "))
    assert [re.sub(r":\d+: ", ": ", line) for line in ends] == [
        f"  ends: undefined behaviour at neg.c:{line}: signed overflow in -x"
        for line in (12, 3, 4, 5)], text


def test_a_closed_set_option_refuses_other_values_also_from_the_ini(
        ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "acc.c").write_text(OVERFLOW, encoding="utf-8")
    ctgen_dir.makeini("[pytest]\nctgen_signed_overflow = trap\n")
    result = run_ctgen(ctgen_dir, "acc.c")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ctgen_signed_overflow: 'trap' is not one of note, finding" in output(result)


LOOPS = """\
int table[4] = {1, 2, 3, 4};

int sum_upto(int n)
{
    int a[4] = {1, 2, 3, 4};
    int s = 0;
    for (int i = 0; i <= n; i++) {
        s += a[i];
    }
    return s;
}

void fill_upto(int n, int v)
{
    for (int i = 0; i <= n; i++) {
        table[i] = v;
    }
}

int collect(const unsigned char *b, int n)
{
    int hits[4] = {0};
    int k = 0;
    for (int i = 0; i < n && i < 8; i++) {
        if (b[i] > 100) {
            hits[k++] = i;
        }
    }
    return k;
}
"""

LOOP_FINDINGS = {
    "sum_upto": "undefined behaviour at loops.c:8:9: out-of-bounds read of 4 bytes at "
                "offset 16 of 'a' (16 bytes)",
    "fill_upto": "undefined behaviour at loops.c:16:9: out-of-bounds write of 4 bytes at "
                 "offset 16 of 'table' (16 bytes)",
    "collect": "undefined behaviour at loops.c:26:13: out-of-bounds write of 4 bytes at "
               "offset 16 of 'hits' (16 bytes)",
}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_an_off_by_one_loop_bound_is_a_finding(ctgen_dir: pytest.Pytester) -> None:
    """Covering the branches takes one or two iterations; the iteration past the end of
    the array, which no goal needs, is a failing case too (search/loop_findings.py)."""
    (ctgen_dir.path / "loops.c").write_text(LOOPS, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report", "json:r.json",
                       "loops.c")
    text = output(result)
    assert result.ret == 1, text
    assert failed_functions(result) == sorted(LOOP_FINDINGS), text
    for name, finding in LOOP_FINDINGS.items():
        assert f"  ends: {finding}" in text, name
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in LOOP_FINDINGS:
        assert rows[name]["unreachable"] == [], rows[name]
        assert rows[name]["branches_covered"] == rows[name]["branches_total"], rows[name]

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "loops"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode != 0
    failing = sorted(line for line in run.stdout.splitlines() if line.startswith("FAIL "))
    assert [line.split("[")[0] for line in failing] == \
        [f"FAIL {name}" for name in sorted(LOOP_FINDINGS)], run.stdout
    for line in failing:
        name = line.split()[1].split("[")[0]
        assert line.endswith(f"]: {LOOP_FINDINGS[name]}"), line
    assert run.stdout.splitlines()[-1].endswith(" passed, 3 failed")


READ_ONLY = """\
#include <string.h>

static const int table[4] = {1, 2, 3, 4};
const char label[8] = "abc";

int patch(int k)
{
    if (k == 3) {
        int *t = (int *)table;
        t[1] = 9;
    }
    return table[1];
}

int poke(int k)
{
    char *s = (char *)"abc";
    if (k == 7) {
        s[0] = 'x';
    }
    return s[0];
}

int relabel(unsigned n)
{
    memset((char *)label, 'a', n);
    return label[0];
}
"""


def test_a_write_into_read_only_memory_is_a_finding(ctgen_dir: pytest.Pytester) -> None:
    """Writing a const object or a string literal (through a cast, or by memset) is
    undefined: the path there is a failing case naming the write, and the branch before
    it is covered, never called unreachable. memset of 0 bytes writes nothing."""
    (ctgen_dir.path / "ro.c").write_text(READ_ONLY, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "ro.c")
    text = output(result)
    assert result.ret == 1, text
    assert failed_functions(result) == ["patch", "poke", "relabel"], text
    ends = sorted(line for line in failure_lines(result) if line.startswith("  ends: "))
    assert ends == [
        "  ends: undefined behaviour at ro.c:10:9: write into the const object 'table'",
        "  ends: undefined behaviour at ro.c:19:9: write into a string literal",
        "  ends: undefined behaviour at ro.c:26:5: write into the const object 'label'",
    ], text
    result.assert_outcomes(failed=3, passed=3)  # relabel's other case: n = 0
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in ("patch", "poke", "relabel"):
        assert rows[name]["unreachable"] == [], rows[name]
        assert rows[name]["branches_covered"] == rows[name]["branches_total"], rows[name]


NO_VALUE = """\
static int half(int v)
{
    if (v > 0) {
        return v / 2;
    }
}

int offset(int v)
{
    int r = half(v);
    if (v < -5) {
        return r;
    }
    return 0;
}
"""


def test_using_the_value_of_a_function_that_returned_none_is_a_finding(
        ctgen_dir: pytest.Pytester) -> None:
    """half falls off its end for v <= 0, and offset uses what it returns (C11 6.9.1p12):
    a failing case at half's closing brace; what follows is not reached, not
    unreachable."""
    (ctgen_dir.path / "rv.c").write_text(NO_VALUE, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "rv.c")
    text = output(result)
    assert result.ret == 1, text
    assert failed_functions(result) == ["offset"], text
    assert "  ends: undefined behaviour at rv.c:6: use of the value of 'half', which " \
        "returned none" in failure_lines(result), text
    row = report_rows(ctgen_dir.path / "r.json")["offset"]
    assert row["unreachable"] == [], row


ERROR_CLASSES = """\
#include <limits.h>
#include <stdlib.h>

int null_read(int k)
{
    int *p = 0;
    if (k == 13) {
        return *p;
    }
    return k;
}

int past_end(int i)
{
    int t[4] = {5, 6, 7, 8};
    if (i > 2) {
        t[i] = 0;
    }
    return t[0];
}

int quotient(int a, int b)
{
    if (a > 100) {
        return a / b;
    }
    return 0;
}

int min_by_minus_one(int a, int b)
{
    if (a == INT_MIN) {
        return a % b;
    }
    return 1;
}

unsigned shifted(unsigned x, int n)
{
    if (x > 7u) {
        return x << n;
    }
    return 0u;
}

int uninitialized(int k)
{
    int v;
    if (k > 3) {
        v = k;
    }
    return v;
}

int overflow(int a, int b)
{
    if (a > 1000) {
        return a + b;
    }
    return 0;
}

int after_free(int k)
{
    int *p = malloc(sizeof *p);
    if (p == 0) {
        return -1;
    }
    *p = k;
    free(p);
    if (k == 5) {
        return *p;
    }
    return 0;
}

int twice_freed(int k)
{
    int *p = malloc(sizeof *p);
    free(p);
    if (k == 9) {
        free(p);
    }
    return k;
}
"""

# what each failing case of ERROR_CLASSES ends in, by the line and column of the error
ERRORS = {
    "null_read[case1]": "8:9: NULL dereference of p",
    "past_end[case1]": "17:9: out-of-bounds write to 't' (16 bytes)",
    "quotient[case1]": "25:9: division by zero in a / b",
    "min_by_minus_one[case1]": "33:9: division by zero in a % b",
    "min_by_minus_one[case2]": "33:9: overflow: -2147483648 % -1 in a % b",
    "shifted[case1]": "41:9: shift count out of range (0 to 31) in x << n",
    "uninitialized[case2]": "52:5: read of the uninitialized v",
    "overflow[case1]": "58:9: signed overflow in a + b",
    "after_free[case3]": "72:9: use after free of 'malloc#0' (freed at errs.c:70:5)",
    "twice_freed[case1]": "82:9: double free: free of 'malloc#0', freed at errs.c:80:5",
}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_every_error_class_is_a_failing_case_in_pytest_and_in_the_driver(
        ctgen_dir: pytest.Pytester) -> None:
    """Each run-time error class, one function each: the case that runs into it fails
    with the error and its line named, in pytest and in the exported driver's run, and
    no outcome is called unreachable."""
    (ctgen_dir.path / "errs.c").write_text(ERROR_CLASSES, encoding="utf-8")
    ctgen_dir.makeini("[pytest]\nctgen_signed_overflow = finding\n")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report",
                       "json:r.json", "errs.c")
    text = output(result)
    assert result.ret == 1, text
    ends = {line.strip() for line in failure_lines(result) if line.startswith("  ends: ")}
    assert ends == {f"ends: undefined behaviour at errs.c:{error}"
                    for error in ERRORS.values()}, text
    failed = {line.split(" - ")[0].removeprefix("FAILED errs.c::")
              for line in result.outlines if line.startswith("FAILED ")}
    assert failed == set(ERRORS), text
    for name, row in report_rows(ctgen_dir.path / "r.json").items():
        assert row["unreachable"] == [], (name, row)
        assert row["branches_covered"] == row["branches_total"], (name, row)

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "errs"), "run"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode != 0
    failing = {line.split(":")[0].removeprefix("FAIL "): line
               for line in run.stdout.splitlines() if line.startswith("FAIL ")}
    assert set(failing) == set(ERRORS), run.stdout
    for case, error in ERRORS.items():
        assert f"undefined behaviour at errs.c:{error}" in failing[case], failing[case]
