"""Shared by the whole test suite.

The repository root is on sys.path for the tests (pytest puts a root conftest's folder
there): tests import `bench` and the helpers of other test folders (`tests.symbolic...`)
as packages instead of editing sys.path. The end-to-end tests (tests/plugin, each a pytest
run of its own through `pytester`) are marked `slow`: `pytest -m "not slow"` runs the rest
in 1.5 to 3 minutes."""
from __future__ import annotations

from pathlib import Path

import pytest

_END_TO_END = Path(__file__).resolve().parent / "tests" / "plugin"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _END_TO_END in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.slow)
