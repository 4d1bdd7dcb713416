"""Fixtures for the end-to-end tests of the pytest plugin (helpers: plugin_helpers.py)."""
from __future__ import annotations

import pytest


@pytest.fixture
def ctgen_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory with an empty pytest.ini, so the rootdir is this directory."""
    pytester.makeini("[pytest]\n")
    return pytester
