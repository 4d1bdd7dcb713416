"""`python -m bench.generate_worker FILE DISPLAY OUT.json [options]`: pytest-ctgen's generation
of one C file in a process of its own, so that the benchmark measures its wall time and peak
memory alone (the parent reads this process's peak RSS from wait4; the generation itself runs
in a forked child of this one, see forked.run_forked, whose peak is RUSAGE_CHILDREN here).

Writes OUT.json: {"cases": <the export's JSON text>, "seconds": {function: s},
"wall_seconds": s (generate_file: preprocessing, parsing, every function), "maxrss_self_kib": n, "maxrss_children_kib": n, "error": str|null}.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate_worker")
    parser.add_argument("file")
    parser.add_argument("display")
    parser.add_argument("out")
    parser.add_argument("--cflag", action="append", default=[])
    parser.add_argument("--work", type=float, default=None)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--max-depth", type=int, default=64)
    parser.add_argument("--array-size", type=int, default=10)
    args = parser.parse_args(argv)

    from pytest_ctgen.case_writer import file_cases_to_json
    from pytest_ctgen.errors import CtgenError
    from pytest_ctgen.options import Options
    from pytest_ctgen.pipeline import generate_file

    start = time.monotonic()  # the file's generation, without Python's start and imports
    budget = {"work": args.work} if args.work is not None else {}
    options = Options(cflags=tuple(args.cflag), timeout=args.timeout, max_depth=args.max_depth,
                      array_size=args.array_size, regenerate=True, **budget)
    doc: dict[str, object] = {"cases": None, "seconds": {}, "error": None}
    try:
        generated = generate_file(Path(args.file), args.display, options, cache_dir=None)
        doc["cases"] = file_cases_to_json(generated.cases)
        doc["seconds"] = generated.seconds
    except CtgenError as err:
        doc["error"] = str(err)
    except Exception as err:  # noqa: BLE001 - reported in the table, the bench goes on
        doc["error"] = f"internal error: {type(err).__name__}: {err}"
    doc["wall_seconds"] = time.monotonic() - start
    doc["maxrss_self_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    doc["maxrss_children_kib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    Path(args.out).write_text(json.dumps(doc), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
