"""End to end: units that allocate. Every outcome of a pool allocator over malloc, a
checksum over a calloc'd buffer and a vector grown with realloc is covered (gcov measures
it), allocation failures included (the harness allocator fails the case's chosen call);
the seeded errors (a use after free, a missing NULL check, a double free) are failing
cases naming the error and its line, in pytest, in the exported driver and in a replay."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from plugin_helpers import QUIET, output, report_rows, run_ctgen

UNIT = r"""#include <stdlib.h>

/* A pool of slots over malloc, with a free list of indices. */
struct slot {
    int next;
    int value;
};

struct pool {
    struct slot *slots;
    int count;
    int next_free;
};

struct pool *pool_create(int count)
{
    struct pool *p;
    if (count <= 0 || count > 8)
        return NULL;
    p = malloc(sizeof *p);
    if (p == NULL)
        return NULL;
    p->slots = malloc((size_t)count * sizeof *p->slots);
    if (p->slots == NULL) {
        free(p);
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        p->slots[i].next = i + 1 < count ? i + 1 : -1;
        p->slots[i].value = 0;
    }
    p->count = count;
    p->next_free = 0;
    return p;
}

int pool_take(struct pool *p, int value)
{
    int i = p->next_free;
    if (i < 0)
        return -1;
    p->next_free = p->slots[i].next;
    p->slots[i].value = value;
    return i;
}

void pool_destroy(struct pool *p)
{
    if (p == NULL)
        return;
    free(p->slots);
    free(p);
}

int pool_demo(int count, int value)
{
    struct pool *p = pool_create(count);
    int a, b;
    if (p == NULL)
        return -100;
    a = pool_take(p, value);
    b = pool_take(p, value + 1);
    pool_destroy(p);
    return a + b;
}

/* A checksum over a buffer calloc makes. */
unsigned checksum(const unsigned char *data, int n)
{
    unsigned char *buf;
    unsigned sum = 0;
    if (n <= 0 || n > 8)
        return 0;
    buf = calloc((size_t)n, 2);
    if (buf == NULL)
        return 0xFFFFFFFFu;
    for (int i = 0; i < n; i++) {
        buf[2 * i] = data[i];
        if (data[i] > 100)
            buf[2 * i + 1] = (unsigned char)(data[i] ^ 0x5a);
    }
    for (int i = 0; i < 2 * n; i++)
        sum = sum * 31u + buf[i];
    free(buf);
    return sum;
}

/* Seeded: a use after free. */
int take_last(int n)
{
    int *v = malloc(4 * sizeof *v);
    if (v == NULL)
        return -1;
    for (int i = 0; i < 4; i++)
        v[i] = i;
    free(v);
    if (n > 10)
        return v[3];
    return n;
}

/* Seeded: the result of malloc is not checked. */
int sum_pair(int a, int b)
{
    int *p = malloc(2 * sizeof *p);
    int s;
    p[0] = a & 0xff;
    p[1] = b & 0xff;
    s = p[0] + p[1];
    free(p);
    return s;
}

/* A vector that grows with realloc. */
int grow_and_sum(int n)
{
    int cap = 2, len = 0, s = 0;
    int *data = malloc((size_t)cap * sizeof *data);
    if (data == NULL)
        return -1;
    for (int i = 0; i < n && i < 5; i++) {
        if (len == cap) {
            int *bigger = realloc(data, (size_t)(2 * cap) * sizeof *data);
            if (bigger == NULL) {
                free(data);
                return -2;
            }
            data = bigger;
            cap *= 2;
        }
        data[len++] = i * i;
    }
    for (int i = 0; i < len; i++)
        s += data[i];
    free(data);
    return s;
}

/* Seeded: a double free. */
int release_twice(int flag)
{
    char *p = malloc(8);
    if (p == NULL)
        return -1;
    p[0] = 1;
    free(p);
    if (flag > 3)
        free(p); /* again */
    return 0;
}
"""


def _line(marker: str) -> int:
    return next(i for i, text in enumerate(UNIT.splitlines(), 1) if marker in text)


FINDINGS = {
    "take_last": (f"heap.c:{_line('return v[3];')}:9: use after free of 'malloc#0' "
                  f"(freed at heap.c:{_line('free(v);')}:5)"),
    "sum_pair": f"heap.c:{_line('p[0] = a & 0xff;')}:5: NULL dereference of (p + 0)",
    "release_twice": (f"heap.c:{_line('free(p); /* again */')}:9: double free: free of "
                      f"'malloc#0', freed at heap.c:{_line('p[0] = 1;') + 1}:5"),
}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_heap_units_are_covered_and_their_errors_found(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "heap.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-export", "out", "--ctgen-report", "json:r.json",
                       "heap.c")
    text = output(result)
    assert result.ret == 1, text
    failed = sorted(line.split(" - ")[0].split("::")[1].split("[")[0]
                    for line in result.outlines if line.startswith("FAILED "))
    assert failed == sorted(FINDINGS), text
    for what in FINDINGS.values():
        assert f"ends: undefined behaviour at {what}" in text, what
    rows = report_rows(ctgen_dir.path / "r.json")
    for name in ("pool_create", "pool_take", "pool_destroy", "pool_demo", "checksum",
                 "take_last", "grow_and_sum", "release_twice"):
        row = rows[name]
        assert row["unreachable"] == [] and row["stop_reason"] == "exhausted", row
        assert row["branches_covered"] == row["branches_total"] > 0, row
        assert row["lines_covered"] == row["lines_total"], row

    doc = json.loads((ctgen_dir.path / "out" / "heap" / "heap.ctgen.json").read_text())
    assert doc["allocator"] == ["malloc", "calloc", "realloc", "free"]
    fails = {f["name"]: [c.get("failing_allocations", []) for c in f["cases"]]
             for f in doc["functions"]}
    assert [0] in fails["pool_create"] and [1] in fails["pool_create"]
    assert [1] in fails["grow_and_sum"]  # the realloc

    run = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out" / "heap"), "run"],
                         capture_output=True, text=True, timeout=120, check=False)
    lines = run.stdout.splitlines()
    assert run.returncode != 0
    failing = sorted(line.split("[")[0].removeprefix("FAIL ") for line in lines
                     if line.startswith("FAIL "))
    assert failing == sorted(FINDINGS), run.stdout
    assert lines[-1].endswith(" passed, 3 failed"), run.stdout

    replay = ctgen_dir.runpytest_subprocess(*QUIET, "out", timeout=180)
    assert replay.ret == 1
    assert replay.parseoutcomes()["failed"] == 3, output(replay)
