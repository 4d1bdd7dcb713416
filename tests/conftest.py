"""The order the suite runs in: its longest files first.

setup.cfg runs the suite file by file (`--dist loadfile`: a module's fixtures, such as the
generation of examples/, run once, not once per worker) and in the order collected
(`--no-loadscope-reorder`: xdist would otherwise start with the files of the most tests
and leave the end-to-end runs of one test each, minutes long, to run alone at the end).
So the longest files come first, and the many short ones fill the workers up at the end.
"""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).parent

#: The files that take longest (each more than a minute and a half of CPU, measured with
#: `--durations` on 2 cores), longest first.
LONGEST_FIRST = (
    "plugin/test_plugin_examples.py",
    "plugin/test_plugin_mcdc_loop_stops.py",
    "plugin/test_bench_units.py",
    "search/test_merged_search.py",
    "plugin/test_search_units.py",
    "symbolic/test_lazy_inputs.py",
    "search/test_search.py",
    "plugin/test_plugin_loop_stops.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The items of `LONGEST_FIRST` first, in its order; the others as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def place(item: pytest.Item) -> int:
        try:
            name = item.path.relative_to(TESTS).as_posix()
        except ValueError:  # an item outside tests/ (a C unit the suite collects)
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=place)  # stable: the rest keep the order they were collected in
