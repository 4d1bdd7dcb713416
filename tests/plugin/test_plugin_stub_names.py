"""End to end: a stub is renamed by its symbol, so a struct member, a parameter or a label of
the same name as an external function keeps its name in the unit and in the harness that
sets it (`p->init` beside the board's `init()`), and a library function gcc knows as a
builtin (`printf`, which it would turn into `puts`) is still the stub when called."""
from __future__ import annotations

import pytest
from plugin_helpers import output, report_rows, run_ctgen

UNIT = """\
#include <stdio.h>

struct port { int (*init)(int mode); int (*send)(int byte); int send_count; };

int init(int mode);   /* the board's, defined elsewhere */
int send(int byte);

int start(struct port *p, int mode)
{
    int init_tries = 0;
    if (init(mode) < 0) {
        printf("no board\\n");
        return -1;
    }
    if (p->init(mode) > 3) {
        goto send;
    }
    init_tries++;
send:
    p->send_count++;
    return p->send(mode) + send(mode) + init_tries;
}
"""


def test_a_member_named_like_a_stub_keeps_its_name(ctgen_dir: pytest.Pytester) -> None:
    (ctgen_dir.path / "port.c").write_text(UNIT, encoding="utf-8")
    result = run_ctgen(ctgen_dir, "--ctgen-report", "json:r.json", "port.c")
    assert result.ret == 0, output(result)
    result.assert_outcomes(passed=3)
    row = report_rows(ctgen_dir.path / "r.json")["start"]
    assert row["branches_covered"] == row["branches_total"] == 4, row
    assert row["lines_covered"] == row["lines_total"], row


def test_a_case_fails_when_the_builtin_named_stub_is_not_called(
        ctgen_dir: pytest.Pytester) -> None:
    """The stub of `printf` is what the compiled unit calls: a regression that no longer
    calls it fails the case that predicted the call."""
    (ctgen_dir.path / "port.c").write_text(UNIT, encoding="utf-8")
    assert run_ctgen(ctgen_dir, "-q", "--ctgen-export", "out", "port.c").ret == 0
    (ctgen_dir.path / "port.c").write_text(UNIT.replace('printf("no board\\n");', ""),
                                           encoding="utf-8")
    replay = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "out", timeout=180)
    replay.assert_outcomes(passed=2, failed=1)
    assert "printf" in output(replay)
