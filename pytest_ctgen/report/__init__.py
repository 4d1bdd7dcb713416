"""What pytest-ctgen reports of a session's results: the coverage table (table.py), the
requirement traceability matrix (trace.py), what generation found of the annotations
(verdicts.py), control-flow pictures coloured by gcov (cfg_picture.py), and the report files
of `--ctgen-report` (writers.py, with gcovr's HTML and Cobertura in gcovr.py).

It reads cases and what coverage measured, and lowers a unit again for its pictures; it
never imports the pipeline or the plugin."""
