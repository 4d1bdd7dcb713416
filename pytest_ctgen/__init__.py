"""pytest-ctgen: generate branch-covering unit tests for C and run them under pytest."""

__version__ = "0.1.0"
