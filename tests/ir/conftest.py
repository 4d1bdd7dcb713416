"""The IR tests share the differential helper of tests/symbolic (ctgen_concrete.py)."""
from __future__ import annotations

import sys
from pathlib import Path

_SYMBOLIC = str(Path(__file__).resolve().parent.parent / "symbolic")
if _SYMBOLIC not in sys.path:
    sys.path.insert(0, _SYMBOLIC)
