"""While generating, one line per function (`ctgen file.c::fn 8 cases 100% C1 0.4s`),
hidden by -q; a function that takes long says it is still working."""
from __future__ import annotations

import re

import pytest

from plugin_helpers import output, run_ctgen

UNIT = """\
int band(int x)
{
    if (x < 10) {
        return 0;
    }
    return 1;
}

int flat(int x)
{
    return x + 1;
}
"""

# Paths double with every iteration: without a work budget, the search runs until its
# time budget stops it.
SLOW = """\
unsigned mix(unsigned a[40])
{
    unsigned h = 0u;
    int i;
    for (i = 0; i < 40; i++) {
        if (a[i] * 2654435761u > h) {
            h ^= a[i] * 40503u;
        } else {
            h += a[i] >> 3;
        }
    }
    return h > 77777u ? 1u : 0u;
}
"""

LINE = re.compile(r"^ctgen (\S+)::(\w+) (\d+) cases? (\d+% C1|no branches) \d+\.\ds$")


def _progress(result: pytest.RunResult) -> list[tuple[str, str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3), m.group(4))
            for line in result.outlines if (m := LINE.match(line))]


def test_one_line_per_generated_function(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", unit=UNIT)
    result = run_ctgen(ctgen_dir, "unit.c")
    assert result.ret == 0, output(result)
    assert _progress(result) == [("unit.c", "band", "2", "100% C1"),
                                 ("unit.c", "flat", "1", "no branches")]
    # before the items run
    text = output(result)
    assert text.index("ctgen unit.c::band") < text.index("unit.c ...")
    assert "ctgen generation: 1 file: 1 generated, 0 from the cache" in text

    cached = run_ctgen(ctgen_dir, "unit.c")
    assert _progress(cached) == []
    assert "ctgen generation: 1 file: 0 generated, 1 from the cache" in output(cached)


def test_quiet_hides_progress(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", unit=UNIT)
    result = run_ctgen(ctgen_dir, "-q", "unit.c")
    assert result.ret == 0, output(result)
    assert not any(line.startswith("ctgen unit.c::") for line in result.outlines)
    assert "ctgen generation" not in output(result)


def test_a_long_generation_says_it_is_still_working(ctgen_dir: pytest.Pytester) -> None:
    ctgen_dir.makefile(".c", slow=SLOW)
    result = ctgen_dir.runpytest_subprocess("-p", "no:xdist", "--ctgen", "--ctgen-work", "0",
                                            "--ctgen-timeout", "7", "--collect-only", "slow.c",
                                            timeout=120)
    lines = result.outlines
    working = [i for i, line in enumerate(lines)
               if re.fullmatch(r"ctgen slow\.c::mix still working \(\d+s\)", line)]
    done = [i for i, line in enumerate(lines) if LINE.match(line)]
    assert working and done and working[0] < done[0], output(result)
