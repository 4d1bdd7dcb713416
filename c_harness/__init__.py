"""The C side that ships with pytest-ctgen: annotation macros and the harness runtime."""
