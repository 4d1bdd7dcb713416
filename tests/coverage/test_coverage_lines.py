"""coverage/lines.py: gcov's counts per line from gcovr's JSON."""
from __future__ import annotations

from pytest_ctgen.coverage.lines import LineCoverage, line_coverage


def test_line_coverage_leaves_out_excluded_lines() -> None:
    doc = {"files": [{"file": "/u.c", "lines": [
        {"line_number": 3, "count": 2, "branches": [{"branchno": 1, "count": 0},
                                                    {"branchno": 0, "count": 2}]},
        {"line_number": 4, "count": 1, "gcovr/excluded": True, "branches": []},
        {"line_number": 5, "count": 0, "gcovr/noncode": True, "branches": []},
        {"line_number": 6, "count": 1, "branches": [
            {"branchno": 0, "count": 1, "gcovr/excluded": True}]}]}]}
    assert line_coverage(doc) == {3: LineCoverage(3, 2, (2, 0)), 6: LineCoverage(6, 1, ())}
