"""Undefined behaviour is a finding (DESIGN §4): a path into it is a failing case that names
the error and its place, run against gcc's build of the unit, and never a reason to call
the outcome behind it unreachable. Inputs the generator chooses (what an input pointer
points to) never make such a path; NULL is a choice only where the code tests for it."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.cases import ArrayValue, IntValue, RecordValue, UnsetValue

UNIT = r"""
#include <limits.h>
#include <stddef.h>

int table[4] = {1, 2, 3, 4};
static const char name[] = "abc";

int null_constant(int x)
{
    int *p = 0;
    if (x == 13) {
        return *p;
    }
    return x;
}

int null_tested(const int *p, int x)
{
    int r = 0;
    if (p == NULL) {
        r = 1;
    }
    return *p + r + x;
}

int null_tested_indexed(const int *p, int x)
{
    int r = 0;
    if (p == NULL) {
        r = 1;
    }
    return p[1] + r + x;
}

int untested(const int *p)
{
    return *p > 3 ? 1 : 0;
}

int divide(int a, int b)
{
    if (a > 3) {
        return a / b;
    }
    return 0;
}

int remainder_min(int a, int b)
{
    if (a == INT_MIN && b == -1) {
        return a % b;
    }
    return 1;
}

unsigned shift(unsigned a, int s)
{
    if (a > 2u) {
        return a << s;
    }
    return 0u;
}

int local_read(int i)
{
    int t[4] = {1, 2, 3, 4};
    if (i > 2) {
        return t[i];
    }
    return 0;
}

void global_write(int i, int v)
{
    if (v > 0) {
        table[i] = v;
    }
}

char literal_read(unsigned i)
{
    return name[i];
}

int to_int(double d)
{
    if (d > 1.0) {
        return (int)d;
    }
    return 0;
}

int guarded(int a, int b)
{
    return a > 0 && 100 / b > 1;
}

static int ratio(int a, int b)
{
    return a / b;
}

int through_callee(int a, int b)
{
    if (b < 10) {
        return ratio(a, b) + 1;
    }
    return 0;
}

typedef int (*op_t)(int);

int call_null(op_t op, int x)
{
    if (op == NULL && x > 0) {
        return op(x);
    }
    return op != NULL ? op(x) : 0;
}

int through_input(const int *p, size_t n)
{
    int s = 0;
    for (size_t i = 0; i < n; i++) {
        s += p[i];
    }
    return s;
}
"""


def _line(text: str, function: str) -> int:
    """The line of `text` in the definition of `function`."""
    lines = UNIT.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {function}(" in line)
    return next(i for i in range(start, len(lines)) if text in lines[i]) + 1


@pytest.fixture(scope="module")
def unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    from generated_unit import unit_generator

    return unit_generator(tmp_path_factory.mktemp("findings"))("ub.c", UNIT)


# (function, a text on the line of the error, what the finding says after "at ub.c:L:C: ")
FINDINGS = [
    ("null_constant", "return *p;", "NULL dereference of p"),
    ("null_tested", "return *p + r + x;", "NULL dereference of p"),
    ("null_tested_indexed", "return p[1] + r + x;", "arithmetic on the NULL pointer p"),
    ("divide", "return a / b;", "division by zero in a / b"),
    ("remainder_min", "return a % b;", "overflow: -2147483648 % -1 in a % b"),
    ("shift", "return a << s;", "shift count out of range (0 to 31) in a << s"),
    ("local_read", "return t[i];", "out-of-bounds read from 't' (16 bytes)"),
    ("global_write", "table[i] = v;", "out-of-bounds write to 'table' (16 bytes)"),
    ("literal_read", "return name[i];", "out-of-bounds read from 'name' (4 bytes)"),
    ("to_int", "return (int)d;", "conversion of a value out of the range of int in (int)d"),
    ("guarded", "return a > 0 && 100 / b > 1;", "division by zero in 100 / b"),
    ("through_callee", "return a / b;", "division by zero in a / b"),
    ("call_null", "return op(x);", "call through the NULL function pointer op"),
]


@pytest.mark.parametrize("function, text, what", FINDINGS)
def test_each_error_is_a_failing_case_that_names_it(unit: GeneratedUnit, function: str,
                                                    text: str, what: str) -> None:
    """One case per place and error; the fixture ran it against gcc's build: it failed
    (crashed, or the harness failed it with these words)."""
    where = "ratio" if function == "through_callee" else function
    findings = [f for f in unit.findings.get(function, []) if f.endswith(": " + what)]
    assert len(findings) == 1, unit.findings.get(function)
    at = findings[0].removeprefix("undefined behaviour at ").removesuffix(": " + what)
    file, line, column = at.split(":")
    assert file == "ub.c" and int(line) == _line(text, where) and int(column) > 0


@pytest.mark.parametrize("function", [f for f, _, _ in FINDINGS])
def test_no_outcome_behind_a_finding_is_called_unreachable(unit: GeneratedUnit,
                                                           function: str) -> None:
    fn = unit.functions[function]
    assert not fn.unreachable, (function, fn.unreachable)
    coverage = unit.run.coverage()[function]
    assert coverage.branches_covered == coverage.branches_total, (function, coverage)


def test_the_cases_that_return_rely_on_no_undefined_behaviour(unit: GeneratedUnit) -> None:
    """The inputs of every other case keep the operations defined (the fixture saw them
    pass against gcc's build)."""
    for case in unit.functions["divide"].cases:
        if case.finding is None:
            a, b = (p.value.value for p in case.params)
            assert a <= 3 or b != 0
    for case in unit.functions["shift"].cases:
        if case.finding is None and case.params[0].value.value > 2:
            assert 0 <= case.params[1].value.value < 32


def test_pointer_inputs_never_make_a_finding(unit: GeneratedUnit) -> None:
    """Where an input pointer points is the generator's choice: a pointer the code never
    tests for NULL points to its object, and a loop over it stays inside it (its size is
    a bound of the search, not the code's error)."""
    assert "untested" not in unit.findings and "through_input" not in unit.findings
    assert unit.functions["untested"].stop_reason == "exhausted"


def test_findings_are_one_per_place(unit: GeneratedUnit) -> None:
    """A loop or several paths through one erroneous statement give one case for it."""
    assert all(len(fs) == len(set(fs)) for fs in unit.findings.values())
    assert len(unit.findings["remainder_min"]) == 1  # b != 0 on the only path there


EXTERN_UNSIZED = r"""
extern int table[];

int get(int i)
{
    if (i > 2) {
        return table[i];
    }
    return 0;
}
"""


def test_an_extern_array_of_unknown_size_is_not_modelled_and_never_unreachable(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """No file of the build defines it: the harness does (so the unit links and runs), and
    the paths that use it stop as unsupported, their outcomes not reached."""
    unit = generated_unit("ext.c", EXTERN_UNSIZED)
    fn = unit.functions["get"]
    assert fn.stop_reason == "unsupported" and not fn.unreachable
    assert [(o.line, o.label) for o in fn.not_reached] == [
        (EXTERN_UNSIZED.splitlines().index("    if (i > 2) {") + 1, "true")]
    assert [c.expected.returns.value for c in fn.cases] == [0]


OUT_PARAMETER = r"""
unsigned long parse(const char *s, char **end);

int field(const char *s)
{
    char *z;
    unsigned long v = parse(s, &z);
    if (z == s || *z != '.') {
        return -1;
    }
    return (int)v;
}
"""


def test_comparing_two_pointers_is_no_null_test(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`z == s` compares two pointers: it does not make NULL a choice for either (a stub's
    out-parameter `z`, the input `s`), so `*z` after it is no finding."""
    unit = generated_unit("outp.c", OUT_PARAMETER)
    assert "field" not in unit.findings
    unit.assert_fully_covered("field")


DISCARDED = r"""
int discarded(int a, int b)
{
    a / b;
    if (b == 0) {
        return 1;
    }
    return 0;
}
"""


def test_a_discarded_expression_is_evaluated_for_its_undefined_behaviour(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """C evaluates `a / b;` (gcc -O0 does not): b == 0 there is a finding, and what the
    compiled code then does is not modelled, so `b == 0` is never called unreachable."""
    unit = generated_unit("disc.c", DISCARDED)
    fn = unit.functions["discarded"]
    assert sorted(f.split(": ", 1)[1] for f in unit.findings["discarded"]) == [
        "division by zero in a / b", "overflow: -2147483648 / -1 in a / b"]
    assert not fn.unreachable and fn.stop_reason == "approximation"
    assert [(o.line, o.label) for o in fn.not_reached] == [
        (DISCARDED.splitlines().index("    if (b == 0) {") + 1, "true")]


DEEP = r"""
struct inner { int v; };
struct mid { struct inner *in; };
struct outer { struct mid *m; };

int chain(struct outer *o)
{
    if (o->m->in->v > 2) {
        return 1;
    }
    return 0;
}
"""


def test_a_pointer_nested_beyond_the_objects_made_is_a_bound_never_a_finding(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """The search gives input pointers objects two levels deep; the third level is no NULL
    of the code's: its outcomes are not reached (depth bound), with no finding."""
    unit = generated_unit("deep.c", DEEP)
    fn = unit.functions["chain"]
    assert "chain" not in unit.findings and not fn.unreachable
    assert fn.stop_reason == "depth bound" and len(fn.not_reached) == 2


LATE_CHECK = r"""
int late_check(const int *p)
{
    int v = *p;
    if (p == 0) {
        return -1;
    }
    return v;
}
"""


def test_a_null_test_after_the_dereference_is_never_called_unreachable(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Only a NULL `p` reaches `p == 0`, and then `*p` before it is undefined: the
    assumption that an untested pointer points to its object proves nothing."""
    unit = generated_unit("late.c", LATE_CHECK)
    fn = unit.functions["late_check"]
    assert not fn.unreachable and fn.stop_reason == "approximation"
    assert [(o.line, o.label) for o in fn.not_reached] == [
        (LATE_CHECK.splitlines().index("    if (p == 0) {") + 1, "true")]


TWO_CALL_SITES = r"""
static const int table[4] = {1, 2, 3, 4};

static int get(int i)
{
    return table[i];
}

int pick(int x, int i)
{
    if (x > 0) {
        return get(i);
    }
    int v = get(i);
    if (i > 10) {
        return -v;
    }
    return v;
}
"""


def test_a_callee_error_from_two_call_sites_is_two_findings(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """What the compiled code may reach after the error depends on the call site: the
    second call's finding keeps `i > 10`, which only an out-of-bounds `i` reaches, from
    being called unreachable."""
    unit = generated_unit("sites.c", TWO_CALL_SITES)
    fn = unit.functions["pick"]
    assert len(unit.findings["pick"]) == 2, unit.findings["pick"]
    assert not fn.unreachable, fn.unreachable
    line = TWO_CALL_SITES.splitlines().index("    if (i > 10) {") + 1
    assert [(o.line, o.label) for o in fn.not_reached] == [(line, "true")]


MANY_TRIES = r"""
static const int weight[6] = {1, 2, 3, 4, 5, 6};

int tally(const unsigned char *a)
{
    int k = 0;
    for (int i = 0; i < 7; i++) {
        if (a[i] > 100) {
            k++;
        }
    }
    int w = weight[k + a[7] % 2];
    if (k == 7) {
        return -w;
    }
    return w;
}
"""


def test_a_finding_is_looked_for_on_every_path_until_one_shows_it(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Most of the 128 paths to the read keep it inside `weight`; the error is looked for
    on each path until one shows it, never given up after a number of tries (and then
    `k == 7`, which only the error reaches, called unreachable)."""
    unit = generated_unit("tally.c", MANY_TRIES)
    fn = unit.functions["tally"]
    assert [f.split(": ", 1)[1] for f in unit.findings["tally"]] == [
        "out-of-bounds read from 'weight' (24 bytes)"]
    assert not fn.unreachable, fn.unreachable
    line = MANY_TRIES.splitlines().index("    if (k == 7) {") + 1
    assert [(o.line, o.label) for o in fn.not_reached] == [(line, "true")]


POINTER_ORDER = r"""
#include <stddef.h>

static char first[8], second[8];

int below(int x)
{
    const char *p = x > 3 ? first : second;
    if (p < first + 4) {
        return 1;
    }
    return 0;
}

long offset(int x)
{
    const char *p = x ? &first[2] : &second[1];
    return p - first;
}

int walk(const char *p, const char *end)
{
    int n = 0;
    if (p == NULL) {
        n = 5;
    }
    while (p < end) {
        p++;
        n++;
    }
    return n;
}

long span(const char *p, const char *q)
{
    if (q - p > 4) {
        return 1;
    }
    return 0;
}
"""


def test_pointers_into_two_objects_or_null_compared_by_order_are_findings(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """C orders and subtracts only pointers into one object: two objects the unit defines,
    or a pointer the path tested for NULL, are findings, never an outcome called
    unreachable; input pointers stay inside one object by the generator's choice."""
    unit = generated_unit("order.c", POINTER_ORDER)
    lines = POINTER_ORDER.splitlines()

    def at(text: str) -> int:
        return lines.index(text) + 1

    assert unit.findings["below"] == [
        f"undefined behaviour at order.c:{at('    if (p < first + 4) {')}:9: pointers "
        "into different objects in p < (first + 4)"]
    assert unit.findings["offset"] == [
        f"undefined behaviour at order.c:{at('    return p - first;')}:5: pointers into "
        "different objects in p - first"]
    assert unit.findings["walk"] == [
        f"undefined behaviour at order.c:{at('    while (p < end) {')}:12: the NULL "
        "pointer p in p < end"]
    assert "span" not in unit.findings
    for name in ("below", "offset", "walk", "span"):
        assert not unit.functions[name].unreachable, name
        coverage = unit.run.coverage()[name]
        assert coverage.branches_covered == coverage.branches_total, (name, coverage)


LIBRARY_CALLS = r"""
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static char name[4];
static const unsigned char source[8] = {1, 2, 3, 4, 5, 6, 7, 8};

int copy_n(int n)
{
    unsigned char out[4];
    memcpy(out, source, n);
    if (n > 4) {
        return 1;
    }
    return out[0];
}

int fill(unsigned n)
{
    memset(name, 'x', n);
    if (n > 100) {
        return 2;
    }
    return name[0];
}

int store(const char *s)
{
    strcpy(name, s);
    return (int)strlen(name);
}

int magnitude(int x)
{
    int m = abs(x);
    if (m < 0) {
        return -1;
    }
    return m;
}

int digit(int c)
{
    if (isdigit(c)) {
        return 1;
    }
    if (c > 1000) {
        return 2;
    }
    return 0;
}

int prefix(const char *s, int n)
{
    if (s == NULL) {
        n = 3;
    }
    return memcmp(s, "abc", n);
}
"""

# (function, a text on the line of the call, what the finding says)
LIBRARY_FINDINGS = [
    ("copy_n", "memcpy(out, source, n);", "memcpy writes past the end of 'out' (4 bytes)"),
    ("fill", "memset(name, 'x', n);", "memset writes past the end of 'name' (4 bytes)"),
    ("store", "strcpy(name, s);", "strcpy writes past the end of 'name' (4 bytes)"),
    ("magnitude", "int m = abs(x);", "overflow: the absolute value of -2147483648"),
    ("digit", "if (isdigit(c)) {",
     "isdigit of a value out of the range of unsigned char, signed char and EOF"),
    ("prefix", "return memcmp(s, \"abc\", n);", "NULL pointer passed to memcmp"),
    ("prefix", "return memcmp(s, \"abc\", n);",
     "memcmp reads past the end of 'string literal' (4 bytes)"),
]


@pytest.fixture(scope="module")
def library_unit(tmp_path_factory: pytest.TempPathFactory) -> GeneratedUnit:
    from generated_unit import unit_generator

    return unit_generator(tmp_path_factory.mktemp("libc"))("lib.c", LIBRARY_CALLS)


@pytest.mark.parametrize("function, text, what", LIBRARY_FINDINGS)
def test_a_library_call_out_of_its_object_or_domain_is_a_finding(
        library_unit: GeneratedUnit, function: str, text: str, what: str) -> None:
    """The modelled C library functions leave objects the unit defines, take NULL or a
    value out of their domain only as findings; what the compiled code reaches after
    such a call is never called unreachable."""
    line = LIBRARY_CALLS.splitlines().index("    " + text) + 1
    wanted = [f for f in library_unit.findings.get(function, [])
              if f.startswith(f"undefined behaviour at lib.c:{line}:") and f.endswith(what)]
    assert len(wanted) == 1, library_unit.findings.get(function)
    assert not library_unit.functions[function].unreachable


def test_input_pointers_to_a_library_call_stay_inside_their_objects(
        library_unit: GeneratedUnit) -> None:
    """`store` copies an input string: its length is the generator's choice (a string
    that fits), so the only finding is the copy into `name` that does not fit."""
    assert len(library_unit.findings["store"]) == 1


ASSUMED_AND_DEAD = r"""
int assumed(int *p, int x)
{
    if (x > 5 && x < 3) {
        return -2;
    }
    int v = *p;
    if (p == 0) {
        return -1;
    }
    return v + x;
}
"""


def test_only_what_follows_an_assumed_pointer_is_left_unproved(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`p == 0` follows the dereference that assumed `p` points to its object: not
    reached. `x < 3` after `x > 5` comes before it and no input reaches it: unreachable."""
    unit = generated_unit("assumed.c", ASSUMED_AND_DEAD)
    fn = unit.functions["assumed"]
    lines = ASSUMED_AND_DEAD.splitlines()
    assert fn.stop_reason == "approximation"
    test = lines.index("    if (x > 5 && x < 3) {")
    assert [(o.line, o.column, o.label) for o in fn.unreachable] == [
        (test + 1, lines[test].index("x < 3") + 1, "true")]
    assert [(o.line, o.label) for o in fn.not_reached] == [
        (lines.index("    if (p == 0) {") + 1, "true")]


UNINITIALIZED = r"""
#include <string.h>

struct pair {
    int a, b;
};

int pick(int c)
{
    int x;
    if (c > 3) {
        x = 1;
    }
    return x;
}

int half(int c)
{
    struct pair p;
    p.a = c;
    if (c > 0) {
        p.b = 2;
    }
    return p.a + p.b;
}

int first_two(int c)
{
    int t[4];
    t[0] = c;
    return t[0] + (c > 5 ? t[1] : 0);
}

int narrow(unsigned v)
{
    struct {
        unsigned m : 2;
        unsigned n : 3;
    } s;
    s.m = v;
    return s.m;
}

int assigned(int c)
{
    int y;
    y = c * 2;
    return y > 4;
}

int computed(int i)
{
    int t[4];
    t[0] = 5;
    t[1] = 6;
    if (i >= 0 && i < 2) {
        return t[i];
    }
    if (i >= 0 && i < 4) {
        return t[i] + 1;
    }
    return 0;
}

int half_bits(void)
{
    struct {
        unsigned a : 4;
        unsigned b : 4;
    } s;
    s.a = 1;
    return s.b;
}

int large(int i)
{
    char buf[8192];
    buf[0] = 1;
    if (i > 0 && i < 8192) {
        return buf[i];
    }
    return buf[0];
}

int stored_where(int c)
{
    int a[2];
    a[c != 0] = 5;
    return a[0];
}

int set_part(unsigned n)
{
    char a[4];
    if (n > 4) {
        return -1;
    }
    memset(a, 7, n);
    return a[2];
}
"""

# (function, the text on the line of the read, what is read)
UNINITIALIZED_READS = [
    ("pick", "    return x;", "x"),
    ("half", "    return p.a + p.b;", "p.b"),
    ("first_two", "    return t[0] + (c > 5 ? t[1] : 0);", "t[1]"),
    ("computed", "        return t[i] + 1;", "t[(long)i]"),  # an index picks one
    ("large", "        return buf[i];", "buf[(long)i]"),  # of a sparse object
    ("half_bits", "    return s.b;", "s.b"),  # a bit-field beside a written one
    ("stored_where", "    return a[0];", "a[0]"),  # written where c == 0 only
    ("set_part", "    return a[2];", "a[2]"),  # set by memset where n > 2 only
]


def test_a_read_of_an_uninitialized_variable_is_a_finding(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """What an automatic variable holds before anything is written to it is whatever
    the stack held: a read of it is a finding (a case can predict nothing), for a
    variable, a member and an element; a bit-field written next to unwritten ones and a
    variable written before its read are no finding; nor is an index that picks only
    written elements (`t[i]` for i < 2)."""
    unit = generated_unit("uninit.c", UNINITIALIZED)
    lines = UNINITIALIZED.splitlines()
    for function, text, what in UNINITIALIZED_READS:
        line = lines.index(text) + 1
        findings = unit.findings.get(function, [])
        assert len(findings) == 1, (function, findings)
        assert findings[0].startswith(f"undefined behaviour at uninit.c:{line}:"), findings
        assert findings[0].endswith(f": read of the uninitialized {what}"), findings
        assert not unit.functions[function].unreachable
    assert "narrow" not in unit.findings and "assigned" not in unit.findings


POINTER_AS_INTEGER = r"""
#include <stdint.h>

int null_by_address(int *p)
{
    if ((uintptr_t)p == 0) {
        *p = 1;
        return 1;
    }
    return 0;
}
"""


def test_a_path_infeasible_only_by_an_assumed_pointer_is_never_unreachable(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Only a NULL `p` reaches the true side, where `*p` assumes it is not NULL (the
    address test is no NULL test of `p`): the path's last step is infeasible by that
    assumption alone, so its outcome is not reached, never unreachable."""
    unit = generated_unit("address.c", POINTER_AS_INTEGER)
    fn = unit.functions["null_by_address"]
    line = POINTER_AS_INTEGER.splitlines().index("    if ((uintptr_t)p == 0) {") + 1
    assert not fn.unreachable, fn.unreachable
    assert [(o.line, o.label) for o in fn.not_reached] == [(line, "true")]


COMPUTED_OFFSETS = r"""
#include <string.h>

static char line[16];

int tail_length(unsigned i)
{
    char s[8] = "abcdefg";
    if (i > 7) {
        return -1;
    }
    if (strlen(s + i) < 3) {
        return 1;
    }
    return 0;
}

int clear_at(unsigned i)
{
    if (i > 16) {
        return -1;
    }
    memset(line + i, 0, 4);
    if (i > 12) {
        return 1;
    }
    return 0;
}
"""


def test_a_library_call_at_a_computed_offset_reaches_every_offset(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`strlen(s + i)` is correct for every i up to 7: each outcome is reached (the bytes
    the call might read were assumed inside one by one, which made i 0 and called
    `< 3` unreachable). `memset(line + i, 0, 4)` past the end for i > 12 is a finding."""
    unit = generated_unit("offsets.c", COMPUTED_OFFSETS)
    tail = unit.functions["tail_length"]
    assert tail.stop_reason == "exhausted" and not tail.unreachable
    assert {c.expected.returns.value for c in tail.cases} == {-1, 0, 1}
    line = COMPUTED_OFFSETS.splitlines().index("    memset(line + i, 0, 4);") + 1
    assert unit.findings["clear_at"] == [
        f"undefined behaviour at offsets.c:{line}:5: memset writes past the end of 'line' "
        "(16 bytes)"]
    assert not unit.functions["clear_at"].unreachable


LONG_STRINGS = r"""
#include <string.h>

int too_long(const char *s)
{
    if (strlen(s) > 24u) {
        return 1;
    }
    return 0;
}

int late_separator(const char *s)
{
    const char *eq = strchr(s, '=');
    if (eq == NULL) {
        return -1;
    }
    if (eq - s > 20) {
        return 1;
    }
    return 0;
}
"""


def test_a_string_longer_than_the_input_array_grows_the_array(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """What strlen or strchr find in an input string is capped by the array the generator
    made; a path that needs a longer string grows the array instead of being called
    unreachable (a position the call found is a bound of the search, not a fact)."""
    unit = generated_unit("long.c", LONG_STRINGS)
    assert {c.expected.returns.value for c in unit.functions["too_long"].cases} == {0, 1}
    late = unit.functions["late_separator"]
    assert {c.expected.returns.value for c in late.cases} == {-1, 0, 1}
    assert not late.unreachable and not unit.functions["too_long"].unreachable


PARTLY_SET = r"""
struct reading {
    int value;
    unsigned char flags[4];
    int valid;
};

struct reading sample(int raw)
{
    struct reading r;
    r.valid = raw >= 0;
    r.flags[0] = 1;
    if (raw >= 0) {
        r.value = raw * 2;
    }
    return r;
}

void publish(int raw, struct reading *out)
{
    *out = sample(raw);
}
"""


def test_bytes_nothing_set_in_a_copied_struct_are_predicted_unset(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Copying a struct with members nothing wrote is no undefined behaviour, and C gives
    those members no value: the case predicts them unset and checks the rest (a predicted
    value there was a false failure)."""
    unit = generated_unit("partly.c", PARTLY_SET)
    assert not unit.findings
    for name in ("sample", "publish"):
        values = []
        for case in unit.functions[name].cases:
            value = case.expected.returns
            if name == "publish":  # what `out` points to: an array of one
                (obj,) = case.expected.objects
                assert isinstance(obj.value, ArrayValue)
                value = obj.value.elements[0]
            assert isinstance(value, RecordValue)
            values.append(dict(value.fields))
        for v in values:
            assert v["flags"] == ArrayValue((IntValue(1),) + (UnsetValue(),) * 3), v
            assert isinstance(v["value"], UnsetValue) == (v["valid"] == IntValue(0)), v
        if name == "sample":  # raw < 0, raw == 0, and raw > 0 for `valid = raw >= 0`
            assert len(values) == 3, values


UNTERMINATED_TAG = r"""
#include <string.h>

static const char tag[3] = {'a', 'b', 'c'};

int same(const char *s)
{
    if (strcmp(s, tag) == 0) {
        return 1;
    }
    return 0;
}
"""


def test_a_comparison_past_the_end_of_the_units_object_is_a_finding(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """`strcmp(s, tag)` with a `tag` the unit left without a NUL reads past its end when
    s starts with "abc": a finding, even though the other string is an input (whose size
    is only a bound of the search, and which is the longer one here)."""
    unit = generated_unit("tag.c", UNTERMINATED_TAG)
    line = UNTERMINATED_TAG.splitlines().index("    if (strcmp(s, tag) == 0) {") + 1
    assert unit.findings["same"] == [
        f"undefined behaviour at tag.c:{line}:9: strcmp reads past the end of 'tag' "
        "(3 bytes)"]
    assert not unit.functions["same"].unreachable


HEAP_ONLY_UNSET = r"""
#include <stdlib.h>

int second(void)
{
    int *p = malloc(2 * sizeof *p);
    if (p == NULL) {
        return -1;
    }
    p[0] = 1;
    return p[1];
}
"""


def test_a_read_of_a_malloc_block_nothing_set_is_a_finding_without_locals(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    """Bytes nothing set are looked for once any object was made uninitialized: a malloc'd
    block in a function with no uninitialized local too."""
    unit = generated_unit("second.c", HEAP_ONLY_UNSET)
    line = HEAP_ONLY_UNSET.splitlines().index("    return p[1];") + 1
    assert unit.findings["second"] == [
        f"undefined behaviour at second.c:{line}:5: read of the uninitialized p[1]"]
