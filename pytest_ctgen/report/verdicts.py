"""What generation found of each annotation, as lines of the terminal summary: proved
(proof mode), violated or, for a test case, unreachable."""
from __future__ import annotations

from collections.abc import Iterable

from ..cases import FileCases


def annotation_verdicts(files: Iterable[FileCases]) -> list[str]:
    """What generation found of each annotation of `files`: proved (proof mode), violated
    or, for a test case, unreachable. Annotations with no verdict are not listed."""
    lines: list[str] = []
    for cases in files:
        for fn in cases.functions:
            if fn.contract is None:
                continue
            for check in fn.contract.checks:
                if not check.verdict:
                    continue
                what = f"{check.kind} {check.text}"
                if check.verdict == "holds":
                    lines.append(f"  {fn.name}: {what} ({check.at}) holds for all inputs "
                                 f"within the bounds: {fn.contract.bounds}")
                elif check.verdict == "unreachable":
                    lines.append(f"  {fn.name}: no input meets the pre of the test case "
                                 f"({check.at})")
                else:
                    lines.append(f"  {fn.name}: {what} ({check.at}) is violated")
    return ["ctgen annotations:", *lines] if lines else []
