"""Members of anonymous structs and unions (C11): the cases set and predict them as the
compiled code has them, whatever the anonymous union's members (frontend/ctype.py
`value_members`, `union_member`; tests/frontend/test_types.py)."""
from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit

from pytest_ctgen.cases import RecordValue, Value

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

UNIT = r"""
struct bits { int a; struct { unsigned b : 3; unsigned c : 5; }; };
struct odd { char k; union { char c[5]; int i; }; };
struct boolish { union { _Bool b; unsigned char raw; }; };
struct nest { char k; union { struct { short lo, mid; }; int all; }; };
struct gap { char k; union { struct { char lo; short mid; }; int all; }; };
struct pp { int tag; union { int *p; }; };
struct two { union { int i; float f; }; union { short s; unsigned short us; }; };

int bits_c(struct bits s) { if (s.c == 17) return 1; if (s.b > 2) return 2; return 0; }
int odd_i(struct odd o) { if (o.i == 300) return 1; if (o.c[0] == 'x') return 2; return 0; }
int boolish(struct boolish s) { if (s.raw == 2) return 1; if (s.b) return 2; return 0; }
int nest_mid(struct nest *n) { if (n->mid == 9 && n->lo == 1) return 1; return 0; }
int gap_mid(struct gap g) { if (g.mid == 9 && g.lo == 1) return 1; return 0; }
int pp_tag(struct pp s) { if (s.tag == 3) return 1; return 0; }
int two(struct two t) { if (t.i == 5 && t.s == -2) return 1; if (t.us == 7) return 2; return 0; }
struct two two_out(int v) { struct two t; t.f = 1.5f; t.us = (unsigned short)v; return t; }
"""


def _members(v: Value) -> set[str]:
    assert isinstance(v, RecordValue), v
    return {n for n, _ in v.fields}


def test_anonymous_members_are_set_and_predicted(
        generated_unit: Callable[[str, str], GeneratedUnit]) -> None:
    unit = generated_unit("anon.c", UNIT)
    unit.assert_fully_covered()
    first = {name: fn.cases[0] for name, fn in unit.functions.items()}
    assert _members(first["bits_c"].params[0].value) == {"a", "b", "c"}
    assert _members(first["odd_i"].params[0].value) == {"k", "c"}
    assert _members(first["boolish"].params[0].value) == {"raw"}
    assert _members(first["pp_tag"].params[0].value) == {"tag"}  # no pointer from bytes
    assert _members(first["two"].params[0].value) == {"i", "s"}
    returned = first["two_out"].expected.returns
    assert returned is not None and _members(returned) == {"i", "s"}
    pointee = first["nest_mid"].objects[0].value
    assert hasattr(pointee, "elements"), pointee
    assert _members(pointee.elements[0]) == {"k", "lo", "mid"}
    # a padding byte in the anonymous struct: the union shows as its int
    assert _members(first["gap_mid"].params[0].value) == {"k", "all"}
