"""Struct and union layout.

The numbers come from the compiler: `probe_layouts` compiles a small program that
`#include`s the user's unit with the user's flags and prints sizeof, alignment, member
offsets and bit-field positions of every record type it can name. `sysv_layout` is the
System V x86-64 algorithm, used for records the probe cannot name (those defined inside a
function body) and as the starting point before the probe has run.
"""
from __future__ import annotations

import hashlib
import logging
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..errors import UnsupportedError
from .ctype import ArrayType, CType, Field, RecordKind, RecordType
from .preprocess import GCC, compile_flags, compiler_env, shipped_headers

log = logging.getLogger(__name__)

#: Flags that make the probe slower or write files and do not change layouts.
_PROBE_DROP: Final = frozenset(
    {"--coverage", "-fprofile-arcs", "-ftest-coverage", "-g", "-g3", "-ggdb", "-Werror",
     "-pedantic-errors", "-flto"}
)
_PROBE_TIMEOUT: Final = 20.0
_MAX_PROBE_ATTEMPTS: Final = 4


@dataclass(frozen=True)
class Member:
    """A member as declared: `bit_width` for bit-fields (0 for `int : 0;`), `name` None for
    anonymous records and unnamed bit-fields."""

    name: str | None
    type: CType
    bit_width: int | None = None


@dataclass(frozen=True)
class Layout:
    fields: tuple[Field, ...]
    size: int
    align: int


def _round_up(value: int, multiple: int) -> int:
    return (value + multiple - 1) // multiple * multiple


def _member_size(ctype: CType) -> int:
    if isinstance(ctype, ArrayType) and ctype.count is None:
        return 0  # flexible array member
    return ctype.size


def sysv_layout(kind: RecordKind, members: Sequence[Member]) -> Layout:
    """The layout gcc gives a struct/union without attributes on x86-64 (System V ABI:
    bit-fields never straddle a boundary of their declared type's alignment; unnamed
    bit-fields do not raise the record's alignment)."""
    fields: list[Field] = []
    bit = 0  # next free bit (struct) / size so far in bits (union)
    align = 1
    for m in members:
        unit_bits = m.type.align * 8
        if m.bit_width is None:
            offset = 0 if kind == "union" else _round_up((bit + 7) // 8, m.type.align)
            align = max(align, m.type.align)
            end_bits = (offset + _member_size(m.type)) * 8
            fields.append(Field(m.name, m.type, offset))
            bit = max(bit, end_bits) if kind == "union" else end_bits
            continue
        if m.bit_width == 0:
            if kind != "union":
                bit = _round_up(bit, unit_bits)
            continue
        if m.name is not None:
            align = max(align, m.type.align)
        start = 0 if kind == "union" else bit
        if start // unit_bits != (start + m.bit_width - 1) // unit_bits:
            start = _round_up(start, unit_bits)
        if m.name is not None:
            fields.append(Field(m.name, m.type, start // 8, start % 8, m.bit_width))
        end = start + m.bit_width
        bit = max(bit, end) if kind == "union" else end
    size = _round_up((bit + 7) // 8, align)
    return Layout(tuple(fields), size, align)


# ----------------------------------------------------------------------------- the probe


@dataclass(frozen=True)
class ProbedRecord:
    """What the compiler says about one record: size, alignment, and for every named member
    (members of anonymous inner records included) its byte offset and, for bit-fields,
    the normalised bit offset (0..7) within that byte."""

    size: int
    align: int
    offsets: dict[str, tuple[int, int | None]]


@dataclass(frozen=True)
class ProbeRequest:
    """A record to measure: `type_expr` names its type in C (`struct tag`, a typedef name,
    or a `__typeof__(...)` expression)."""

    type_expr: str
    record: RecordType


_cache: dict[str, dict[str, ProbedRecord]] = {}


def leaf_members(record: RecordType) -> list[Field]:
    """Named members reachable directly in `record` (through anonymous inner records)."""
    leaves: list[Field] = []
    for f in record.fields:
        if f.name is not None:
            leaves.append(f)
        elif isinstance(f.type, RecordType):
            leaves.extend(leaf_members(f.type))
    return leaves


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def probe_source(unit_path: Path, requests: Sequence[ProbeRequest]) -> tuple[str, list[int]]:
    """The probe program and, per line, the index of the request it measures (-1 if none)."""
    lines = [
        f"#include {_c_string(str(unit_path.resolve()))}",
        "#undef main",
        "static void ctgen_probe_bits__(const unsigned char *ctgen_p__, unsigned long ctgen_n__,",
        "                               int ctgen_r__, const char *ctgen_m__) {",
        "  for (unsigned long ctgen_i__ = 0; ctgen_i__ < ctgen_n__; ctgen_i__++)",
        "    if (ctgen_p__[ctgen_i__]) {",
        '      __builtin_printf("B %d %s %lu %d\\n", ctgen_r__, ctgen_m__, ctgen_i__,',
        "                       __builtin_ctz(ctgen_p__[ctgen_i__]));",
        "      return;",
        "    }",
        "}",
        "int main(void) {",
    ]
    owners = [-1] * len(lines)
    for index, request in enumerate(requests):
        block = _probe_block(index, request)
        lines.extend(block)
        owners.extend([index] * len(block))
    lines += ["  return 0;", "}"]
    owners += [-1, -1]
    return "\n".join(lines) + "\n", owners


def _probe_block(index: int, request: ProbeRequest) -> list[str]:
    t = f"ctgen_t{index}__"
    block = [
        "  {",
        f"    typedef {request.type_expr} {t};",
        f'    __builtin_printf("R {index} %lu %lu\\n", (unsigned long)sizeof({t}),'
        f" (unsigned long)__alignof__({t}));",
    ]
    for f in leaf_members(request.record):
        if f.is_bitfield:
            block.append(
                f"    {{ {t} ctgen_o__; __builtin_memset(&ctgen_o__, 0, sizeof ctgen_o__);"
                f" ctgen_o__.{f.name} = -1; ctgen_probe_bits__((const unsigned char *)"
                f'&ctgen_o__, sizeof ctgen_o__, {index}, "{f.name}"); }}'
            )
        else:
            block.append(
                f'    __builtin_printf("M {index} {f.name} %lu\\n",'
                f" (unsigned long)__builtin_offsetof({t}, {f.name}));"
            )
    block.append("  }")
    return block


def probe_flags(cflags: Sequence[str]) -> list[str]:
    return [f for f in compile_flags(list(cflags)) if f not in _PROBE_DROP] + shipped_headers()


def probe_layouts(
    unit_path: Path,
    cflags: Sequence[str],
    requests: Sequence[ProbeRequest],
    cache_key: str = "",
) -> dict[str, ProbedRecord]:
    """Compile and run the layout probe; the results keyed by `type_expr`.

    Records whose probe code does not compile (e.g. a member name hidden by a macro) are left
    out; if the unit itself does not compile, the result is empty. `cache_key` should
    identify the unit's full text (e.g. its preprocessed form): results are cached in memory
    per (cache_key, flags, probe program).
    """
    if not requests:
        return {}
    requests = list(requests)
    source, _ = probe_source(unit_path, requests)
    key = hashlib.sha256(
        "\0".join([cache_key, *cflags, source]).encode("utf-8", "surrogateescape")
    ).hexdigest()
    if key in _cache:
        return _cache[key]
    results: dict[str, ProbedRecord] = {}
    with tempfile.TemporaryDirectory(prefix="ctgen-layout-") as tmp:
        for _ in range(_MAX_PROBE_ATTEMPTS):
            source, owners = probe_source(unit_path, requests)
            outcome = _compile_and_run(Path(tmp), source, cflags)
            if isinstance(outcome, str):
                results = _parse_probe_output(outcome, requests)
                break
            failed = {owners[line - 1] for line in outcome if 0 < line <= len(owners)}
            failed.discard(-1)
            if not failed:
                break  # the unit itself (or the environment) is broken
            requests = [r for i, r in enumerate(requests) if i not in failed]
            if not requests:
                break
    _cache[key] = results
    return results


def _compile_and_run(tmp: Path, source: str, cflags: Sequence[str]) -> str | set[int]:
    """The probe's output, or the probe lines gcc rejected."""
    probe_c = tmp / "ctgen_layout_probe.c"
    exe = tmp / "ctgen_layout_probe"
    probe_c.write_text(source)
    command = [
        GCC, *probe_flags(cflags), "-w", "-O0", "-g0", "-Dmain=ctgen_unit_main__",
        "-no-pie", "-o", str(exe), str(probe_c),
        "-Wl,--unresolved-symbols=ignore-all", "-lm",
    ]
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, env=compiler_env(), errors="replace",
            timeout=_PROBE_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("layout probe could not run gcc: %s", exc)
        return set()
    if proc.returncode != 0:
        pattern = re.compile(rf"^{re.escape(str(probe_c))}:(\d+):(?:\d+:)? (?:fatal )?error:", re.M)
        lines = {int(m.group(1)) for m in pattern.finditer(proc.stderr)}
        if not lines:
            log.warning("layout probe did not compile; using the System V fallback:\n%s",
                        proc.stderr.strip())
        return lines
    try:
        run = subprocess.run(
            [str(exe)], capture_output=True, text=True, timeout=_PROBE_TIMEOUT,
            errors="replace",
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("layout probe did not run: %s", exc)
        return set()
    if run.returncode != 0:
        log.warning("layout probe exited with status %s", run.returncode)
        return set()
    return run.stdout


def _parse_probe_output(output: str, requests: Sequence[ProbeRequest]) -> dict[str, ProbedRecord]:
    sizes: dict[int, tuple[int, int]] = {}
    offsets: dict[int, dict[str, tuple[int, int | None]]] = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        tag, index = parts[0], int(parts[1])
        if tag == "R":
            sizes[index] = (int(parts[2]), int(parts[3]))
        elif tag == "M":
            offsets.setdefault(index, {})[parts[2]] = (int(parts[3]), None)
        elif tag == "B" and len(parts) == 5:
            offsets.setdefault(index, {})[parts[2]] = (int(parts[3]), int(parts[4]))
    results: dict[str, ProbedRecord] = {}
    for index, request in enumerate(requests):
        if index not in sizes:
            continue
        measured = offsets.get(index, {})
        if any(f.name not in measured for f in leaf_members(request.record)):
            continue
        size, align = sizes[index]
        results[request.type_expr] = ProbedRecord(size, align, measured)
    return results


def apply_probed(record: RecordType, probed: ProbedRecord) -> None:
    """Re-complete `record` (and its anonymous inner records) with the compiler's numbers."""
    fields = _probed_fields(record, probed, 0)
    record.complete(fields, probed.size, probed.align)


def _probed_fields(record: RecordType, probed: ProbedRecord, base: int) -> tuple[Field, ...]:
    fields: list[Field] = []
    for f in record.fields:
        if f.name is not None:
            offset, bit = probed.offsets[f.name]
            fields.append(
                Field(f.name, f.type, offset - base, bit if f.is_bitfield else None, f.bit_width)
            )
        elif isinstance(f.type, RecordType):
            inner = f.type
            inner_base = _anonymous_base(inner, probed)
            inner.complete(_probed_fields(inner, probed, inner_base), inner.size, inner.align)
            fields.append(Field(None, inner, inner_base - base))
    return tuple(fields)


def _anonymous_base(record: RecordType, probed: ProbedRecord) -> int:
    """Where an anonymous member starts: its first member is at offset 0 within it."""
    starts = [probed.offsets[f.name][0] for f in leaf_members(record) if f.name in probed.offsets]
    if not starts:
        raise UnsupportedError("anonymous member without named members")
    return min(starts)


def layout_differs(record: RecordType, probed: ProbedRecord) -> bool:
    """Whether the compiler's numbers differ from what `record` holds now."""
    if (record.size, record.align) != (probed.size, probed.align):
        return True
    current = {f.name: f for f in leaf_members(record)}
    for name, (offset, bit) in probed.offsets.items():
        f = current.get(name)
        if f is None:
            return True
        absolute = _absolute_offset(record, name)
        if absolute != offset or (f.is_bitfield and f.bit_offset != bit):
            return True
    return False


def _absolute_offset(record: RecordType, name: str) -> int | None:
    for f in record.fields:
        if f.name == name:
            return f.offset
        if f.name is None and isinstance(f.type, RecordType):
            inner = _absolute_offset(f.type, name)
            if inner is not None:
                return f.offset + inner
    return None
