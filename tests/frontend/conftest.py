"""Helpers for the frontend tests: writing C files and asking gcc for the truth."""
from __future__ import annotations

import subprocess
from pathlib import Path
from collections.abc import Callable

import pytest


@pytest.fixture
def write_c(tmp_path: Path) -> Callable[..., Path]:
    """Write `text` to `tmp_path/name` (creating folders) and return the path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    return write


@pytest.fixture
def run_gcc(tmp_path: Path) -> Callable[..., str]:
    """Compile `source` with gcc and return what the program prints."""
    counter = iter(range(1_000_000))

    def run(source: str, flags: tuple[str, ...] = ()) -> str:
        n = next(counter)
        src = tmp_path / f"gcc_check_{n}.c"
        exe = tmp_path / f"gcc_check_{n}"
        src.write_text(source)
        subprocess.run(["gcc", "-std=gnu11", "-w", *flags, str(src), "-o", str(exe), "-lm"],
                       check=True, capture_output=True, text=True)
        return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout

    return run
