"""The benchmark of pytest-ctgen against libFuzzer: `python -m bench PATH... --out DIR`."""
