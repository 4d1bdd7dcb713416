"""Fixtures of the tests of C semantics."""
from __future__ import annotations

from pathlib import Path
from collections.abc import Callable

import pytest
from generated_unit import GeneratedUnit, unit_generator


@pytest.fixture
def generated_unit(tmp_path: Path) -> Callable[..., GeneratedUnit]:
    """Write a unit's text, generate its cases and run each against gcc's build of it."""
    return unit_generator(tmp_path)
