"""The globals a unit's own code may write (pytest_ctgen.ir.written_globals): one unit whose
global `wN` is written in the N-th way C has, and whose `rN` are only read (in the N-th
way); plus a function the lowering cannot take."""
from __future__ import annotations

from pathlib import Path

from pytest_ctgen.frontend.loader import load_unit
from pytest_ctgen.ir.lower import lower_unit

UNIT = r"""
#include <string.h>
struct pair { int a; int b[2]; };
struct entry { const char *name; int id; };
int w1 = 1;                    /* assigned */
struct pair w2 = {1, {2, 3}};  /* a member's element assigned */
int w3[4] = {1, 2, 3, 4};      /* an element incremented */
int w4[4] = {1};               /* the destination of memcpy */
int w5 = 5;                    /* its address passed as int * */
int w6 = 6;                    /* its address in a global's initializer */
int *alias = &w6;              /* initialized, never written */
int w7[2] = {7, 7};            /* its address returned */
int w8 = 8;                    /* named in a function the lowering cannot take */
int w9[3] = {9};               /* decays to a non-const pointer in a local */
int r1 = 1;                    /* read */
struct entry r2[2] = {{"a", 1}, {"b", 2}};  /* members and elements read */
char r3[8] = "name";           /* compared through a pointer to const */
int r4[3] = {1, 2, 3};         /* read through &r4[i] dereferenced at once */
int r5;                        /* read, no initializer */

static void bump(int *p) { *p += 1; }

int use(int i, const char *s)
{
    int *local;
    w1 = i;
    w2.b[1] = i;
    w3[i & 3]++;
    memcpy(w4, &i, sizeof i);
    bump(&w5);
    local = w9;
    (void)local;
    if (strcmp(s, r3) == 0)
        return r1 + r2[i & 1].id + *&r4[i % 3] + r5;
    return 0;
}

int *where(void) { return w7; }

int later(int x)
{
    __asm__("" : "+r"(x));
    return w8 + x;
}
"""


def test_every_way_of_writing_a_global_is_seen_and_reading_is_not(tmp_path: Path) -> None:
    unit = tmp_path / "globals.c"
    unit.write_text(UNIT)
    program = lower_unit(load_unit(unit, []))
    assert "later" in program.failures  # inline asm: the lowering cannot take it
    written = {v.name for v in program.written_globals}
    assert written == {f"w{n}" for n in range(1, 10)}
