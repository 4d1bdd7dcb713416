"""Members of anonymous structs and unions are inputs and outputs like named ones: a
record's value shows an anonymous struct's members as its own and an anonymous union by
the member that stands for it (frontend/ctype.value_members), so the export can set and
check them; the cases pass under pytest, `make run` and replay, at full branch coverage."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from plugin_helpers import output, report_rows, run_ctgen

UNIT = r"""
struct packet {
    int kind;
    union {
        struct { short lo, hi; };
        int word;
    };
    struct { unsigned char flags; unsigned char prio; };
};
struct packet last;
struct fl { union { float f; unsigned u; }; int n; };

int classify(struct packet p)
{
    if (p.kind == 2 && p.hi > 7) return 1;
    if (p.word == 65536) return 2;
    if (p.prio > 3) return 3;
    return 0;
}

int via_ptr(const struct packet *p)
{
    if (p->lo < -5) return 1;
    if (p->flags == 4) return 2;
    return 0;
}

int global_reader(void)
{
    if (last.hi == 3 && last.kind > 0) return 1;
    return 0;
}

void global_writer(int v)
{
    if (v > 10) last.lo = (short)v; else last.word = v;
    last.prio = 2;
}

struct packet make(int v)
{
    struct packet r = { 0 };
    r.kind = 1;
    if (v > 0) r.hi = (short)v; else r.word = v;
    return r;
}

int fl_sign(struct fl x)
{
    if (x.u & 0x80000000u) return 1;
    if (x.f > 2.0f) return 2;
    return 0;
}
"""

FUNCTIONS = ("classify", "via_ptr", "global_reader", "global_writer", "make", "fl_sign")


def _records(j: Any) -> list[dict[str, Any]]:
    """The record values (JSON objects without an `@` key) of an export document."""
    if isinstance(j, dict):
        found = [j] if j and not any(k.startswith("@") for k in j) and "kind" in j else []
        return found + [r for v in j.values() for r in _records(v)]
    if isinstance(j, list):
        return [r for v in j for r in _records(v)]
    return []


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_anonymous_members_are_inputs_and_outputs(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", anon=UNIT)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out",
                       "--ctgen-report", "json:cov.json", "anon.c")
    assert result.ret == 0, output(result)
    assert "no goal" not in output(result), output(result)
    rows = report_rows(Path(ctgen_dir.path, "cov.json"))
    for name in FUNCTIONS:
        row = rows[name]
        assert row["cases"] > 0 and row["failed"] == 0, row
        assert row["branches_covered"] == row["branches_total"] > 0, row
        assert row["stop_reason"] == "exhausted", row

    # a struct packet shows its anonymous members by their names, as C names them
    export = Path(ctgen_dir.path, "out/anon/anon.ctgen.json")
    doc = json.loads(export.read_text())
    packets = _records(doc)
    assert packets, doc
    for packet in packets:
        assert set(packet) == {"kind", "lo", "hi", "flags", "prio"}, packet
    functions = {f["name"]: f for f in doc["functions"]}
    values = [p["value"] for c in functions["fl_sign"]["cases"] for p in c["params"]]
    assert all(set(v) == {"f", "n"} for v in values), values
    written = [g["value"] for c in functions["global_writer"]["cases"]
               for g in c["expected"]["globals"] if g["name"] == "last"]
    assert {w["prio"] for w in written} == {2}, written
    assert {w["lo"] for w in written} >= {11}, written

    make = subprocess.run(["make", "-s", "-C", str(export.parent), "run"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr
    assert make.stdout.splitlines()[-1].endswith(" passed, 0 failed"), make.stdout
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert replay.ret == 0, output(replay)
    assert replay.parseoutcomes()["passed"] == sum(rows[n]["cases"] for n in FUNCTIONS)

    # the driver checks the members: a wrong prediction of one fails
    case = next(c for c in functions["make"]["cases"] if c["expected"]["returns"]["hi"])
    case["expected"]["returns"]["hi"] += 1
    export.write_text(json.dumps(doc, indent=2) + "\n")
    failed = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "-q", "out", timeout=180)
    assert failed.parseoutcomes()["failed"] == 1, output(failed)
    assert "return.hi" in output(failed), output(failed)


QUALIFIED = r"""
struct S { int a; };
typedef volatile struct { int a; } vs_t;
struct { int a; } const *shown;

int cvs(const volatile struct { int a; } *p) { return p->a > 0; }
int tagged(struct T { int a; } *p) { return p->a > 0; }
int by_value(struct { int a; } s) { return s.a > 0; }
int named(const volatile struct S *p) { return p->a > 0; }
int through_typedef(vs_t *p) { return p->a > 0; }
int through_global(void) { return shown != 0 && shown->a > 0; }
"""


def test_a_record_no_declaration_can_name_skips_its_function_with_the_place(
        ctgen_dir: pytest.Pytester) -> None:
    """A struct declared in a parameter list is seen by nothing outside the function (C11
    6.2.1p4), and an untagged one a global points to has no name a case can declare the
    object with: the harness cannot make the input, so the function is skipped with the
    place and the reason, and the file's other functions, qualifiers and all, run."""
    ctgen_dir.makefile(".c", records=QUALIFIED)
    result = run_ctgen(ctgen_dir, "-rs", "--ctgen-report", "json:cov.json", "records.c")
    text = output(result)
    assert result.ret == 0, text
    assert "internal error" not in text, text
    listed = "declared in its parameter list, where nothing outside the function can name it"
    for name, where in (("struct <anonymous>", "5:42: parameter 'p'"),
                        ("struct T", "6:32: parameter 'p'"),
                        ("struct <anonymous>", "7:32: parameter 's'")):
        assert f"records.c:{where}: {name} is {listed}" in text, text
    assert "records.c:3:25: global 'shown' is an input that points to a struct without a " \
           "tag or typedef name" in text, text
    rows = report_rows(Path(ctgen_dir.path, "cov.json"))
    for name in ("cvs", "tagged", "by_value", "through_global"):
        assert rows[name]["stop_reason"] == "skipped" and rows[name]["cases"] == 0, rows[name]
    for name in ("named", "through_typedef"):
        row = rows[name]
        assert row["cases"] > 0 and row["failed"] == 0, row
        assert row["stop_reason"] == "exhausted", row
