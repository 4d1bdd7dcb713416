"""Struct and union layout.

The numbers come from the compiler: `probe_layouts` compiles (`-c`, never links or runs) a
translation unit that `#include`s the user's unit with the user's flags and defines, as
initialised static data, sizeof, alignment and member offsets of every record type it can
name, and per bit-field an object of the record with that member all ones; the numbers and
bit positions are read back from the object file (elf_object.py). `sysv_layout` is the
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
from .elf_object import ElfError, ElfObject
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


def _numbers_symbol(index: int) -> str:
    """The array of sizeof, alignment and the offsets of the non-bit-field members."""
    return f"ctgen_n{index}__"


def _bits_symbol(index: int, member: int) -> str:
    """An object of the record with bit-field `member` (its index among the leaves) all ones."""
    return f"ctgen_b{index}_{member}__"


def probe_source(unit_path: Path, requests: Sequence[ProbeRequest]) -> tuple[str, list[int]]:
    """The probe translation unit and, per line, the index of the request it measures (-1 if
    none). It only defines data, which gcc computes at compile time: nothing of it runs."""
    lines = [f"#include {_c_string(str(unit_path.resolve()))}"]
    owners = [-1]
    for index, request in enumerate(requests):
        block = _probe_block(index, request)
        lines.extend(block)
        owners.extend([index] * len(block))
    return "\n".join(lines) + "\n", owners


def _probe_block(index: int, request: ProbeRequest) -> list[str]:
    t = f"ctgen_t{index}__"
    keep = "__attribute__((__used__))"
    block = [
        f"typedef {request.type_expr} {t};",
        f"static const unsigned long long {_numbers_symbol(index)}[] {keep} = {{",
        f"  sizeof({t}), __alignof__({t}),",
    ]
    bits = []
    for member, f in enumerate(leaf_members(request.record)):
        if f.is_bitfield:
            bits.append(f"static const {t} {_bits_symbol(index, member)} {keep}"
                        f" = {{ .{f.name} = -1 }};")
        else:
            block.append(f"  __builtin_offsetof({t}, {f.name}),")
    return block + ["};"] + bits


def probe_flags(cflags: Sequence[str]) -> list[str]:
    return [f for f in compile_flags(list(cflags)) if f not in _PROBE_DROP] + shipped_headers()


def probe_layouts(
    unit_path: Path,
    cflags: Sequence[str],
    requests: Sequence[ProbeRequest],
    cache_key: str = "",
) -> dict[str, ProbedRecord]:
    """Compile the layout probe and read its numbers from the object file; the results keyed
    by `type_expr`.

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
            outcome = _compile(Path(tmp), source, cflags)
            if isinstance(outcome, ElfObject):
                results = _read_probe_object(outcome, requests)
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


def _compile(tmp: Path, source: str, cflags: Sequence[str]) -> ElfObject | set[int]:
    """The probe's object file, or the probe lines gcc rejected."""
    probe_c = tmp / "ctgen_layout_probe.c"
    probe_o = tmp / "ctgen_layout_probe.o"
    probe_c.write_text(source)
    # Without macro tracking, an error in a member name the unit #defines (a designator
    # `.name`) is reported on the probe's line, not on the #define.
    command = [GCC, *probe_flags(cflags), "-w", "-O0", "-g0", "-ftrack-macro-expansion=0", "-c",
               "-o", str(probe_o), str(probe_c)]
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
        return ElfObject(probe_o.read_bytes())
    except (OSError, ElfError) as exc:
        log.warning("layout probe's object file could not be read: %s", exc)
        return set()


def _read_probe_object(elf: ElfObject, requests: Sequence[ProbeRequest]
                       ) -> dict[str, ProbedRecord]:
    results: dict[str, ProbedRecord] = {}
    for index, request in enumerate(requests):
        try:
            probed = _read_record(elf, index, request.record)
        except ElfError as exc:
            log.warning("layout probe's numbers for %s could not be read: %s",
                        request.type_expr, exc)
            continue
        if probed is not None:
            results[request.type_expr] = probed
    return results


def _read_record(elf: ElfObject, index: int, record: RecordType) -> ProbedRecord | None:
    """The numbers of request `index`, None if a symbol is missing or a bit-field's object
    has no bit set."""
    leaves = leaf_members(record)
    numbers = _read_numbers(elf, _numbers_symbol(index),
                            2 + sum(1 for f in leaves if not f.is_bitfield))
    if numbers is None:
        return None
    size, align, *member_offsets = numbers
    offsets: dict[str, tuple[int, int | None]] = {}
    plain = iter(member_offsets)
    for member, f in enumerate(leaves):
        assert f.name is not None
        if not f.is_bitfield:
            offsets[f.name] = (next(plain), None)
            continue
        image = elf.symbol_bytes(_bits_symbol(index, member))
        first = next((i for i, byte in enumerate(image or b"") if byte), None)
        if image is None or first is None:
            return None
        lowest_bit = (image[first] & -image[first]).bit_length() - 1
        offsets[f.name] = (first, lowest_bit)
    return ProbedRecord(size, align, offsets)


def _read_numbers(elf: ElfObject, symbol: str, count: int) -> list[int] | None:
    """The `count` unsigned integers of array `symbol`, in the target's byte order and with
    the width the target gives them."""
    data = elf.symbol_bytes(symbol)
    if data is None or len(data) == 0 or len(data) % count:
        return None
    width = len(data) // count
    return [int.from_bytes(data[i:i + width], elf.byteorder) for i in range(0, len(data), width)]


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
