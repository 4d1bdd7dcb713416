"""An input pointer that the code steps back from (container_of, a header before a
payload, `p[-2]`) points into the middle of its object: a path that reaches before the
object's start makes the next search round place the pointer where the access finds room
(at the member of the record the access names, or past `--ctgen-array-size` elements),
so those outcomes are covered and the cases build such objects in pytest and the driver."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from plugin_helpers import output, report_rows, run_ctgen

UNIT = r"""
#include <stddef.h>
struct link { struct link *next; };
struct item { int key; struct link link; int value; };
#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

int item_key(struct link *l)
{
    struct item *it;
    if (l == NULL)
        return -1;
    it = container_of(l, struct item, link);
    if (it->key > 10)
        return 1;
    return 0;
}

struct hdr { unsigned size; unsigned magic; };

int payload_size(unsigned char *payload)
{
    const struct hdr *h = (const struct hdr *)payload - 1;
    if (h->magic != 0xC0DEu)
        return -1;
    if (h->size > 4 && payload[4] == 'x')
        return 2;
    return (int)h->size;
}

int before(const int *p)
{
    if (p[-2] > p[0])
        return 1;
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_pointers_into_the_middle_of_their_objects(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", room=UNIT)
    result = run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "--ctgen-report",
                       "json:r.json", "room.c")
    assert result.ret == 0, output(result)
    rows = report_rows(ctgen_dir.path / "r.json")
    for name, row in rows.items():
        assert row["branches_covered"] == row["branches_total"], (name, row)
        assert row["stop_reason"] == "exhausted", (name, row)

    doc = json.loads(Path(ctgen_dir.path, "out/room/room.ctgen.json").read_text())
    cases = {f["name"]: f["cases"] for f in doc["functions"]}
    # the link is the member of an item: the object is the item, the pointer 8 bytes in
    linked = [c for c in cases["item_key"] if c["params"][0]["value"] is not None]
    assert linked and all(c["params"][0]["value"] == {"@pointer": "ctgen_obj_l", "offset": 8}
                          and c["objects"][0]["declaration"] == "struct item @"
                          for c in linked), linked
    assert {c["expected"]["returns"] for c in cases["item_key"]} == {-1, 0, 1}
    # a header record before the payload
    assert {c["expected"]["returns"] for c in cases["payload_size"]} >= {-1, 2}
    assert all(c["objects"][0]["declaration"].startswith("struct hdr @[")
               for c in cases["payload_size"])
    # elements before an int pointer
    assert all(c["params"][0]["value"]["offset"] >= 8 for c in cases["before"])

    make = subprocess.run(["make", "-s", "-C", str(ctgen_dir.path / "out/room"), "run"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert make.returncode == 0, make.stdout + make.stderr
