"""The ELF reader behind the layout probe: gcc's own object files (64- and 32-bit), and files
built here for the byte orders and numberings no compiler on this machine produces."""
from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from pytest_ctgen.frontend.elf_object import ElfError, ElfObject

SOURCE = """struct s { char c; long long q; long l; };
static const unsigned long long numbers[] __attribute__((used)) =
    { sizeof(struct s), __alignof__(struct s), __builtin_offsetof(struct s, l) };
const char greeting[] = "hi";
static int zeros[3] __attribute__((used));
int answer(void) { return 42; }
"""


def _gcc_object(tmp_path: Path, flags: list[str]) -> bytes:
    src, obj = tmp_path / "object.c", tmp_path / "object.o"
    src.write_text(SOURCE)
    subprocess.run(["gcc", "-c", "-O0", *flags, "-o", str(obj), str(src)], check=True,
                   capture_output=True)
    return obj.read_bytes()


@pytest.mark.parametrize("flags, word_bits, expected", [
    ([], 64, [24, 8, 16]),
    (["-m32"], 32, [16, 4, 12]),  # i386: long long aligned to 4 in records, long is 4 bytes
    (["-fdata-sections"], 64, [24, 8, 16]),
])
def test_reads_gccs_object_files(tmp_path, flags, word_bits, expected):
    elf = ElfObject(_gcc_object(tmp_path, flags))
    assert (elf.byteorder, elf.word_bits) == ("little", word_bits)
    data = elf.symbol_bytes("numbers")
    assert data is not None
    assert [int.from_bytes(data[i:i + 8], "little") for i in range(0, 24, 8)] == expected
    assert elf.symbol_bytes("greeting") == b"hi\0"
    assert elf.symbol_bytes("zeros") == bytes(12)  # .bss: no bytes in the file
    assert elf.symbol_bytes("missing") is None
    assert {"numbers", "greeting", "zeros", "answer"} <= elf.symbol_names()


def test_agrees_with_readelf_on_symbol_sizes(tmp_path):
    data = _gcc_object(tmp_path, [])
    out = subprocess.run(["readelf", "-sW", str(tmp_path / "object.o")], check=True,
                         capture_output=True, text=True).stdout
    elf = ElfObject(data)
    checked = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[3] == "OBJECT":
            assert len(elf.symbol_bytes(parts[7]) or b"") == int(parts[2]), parts[7]
            checked += 1
    assert checked == 3


def _build_elf(elf_class: int, order: str, symbols: dict[str, bytes], bss: dict[str, int],
               extended: bool = False, filler: int = 0) -> bytes:
    """A relocatable ELF file with a .data, a .bss, a symbol table and, with `extended`,
    extended section numbering (e_shnum 0, symbols' sections in SHT_SYMTAB_SHNDX); `filler`
    empty sections come before them."""
    p = "<" if order == "little" else ">"
    is64 = elf_class == 2
    header_size, section_size, symbol_size = (64, 64, 24) if is64 else (52, 40, 16)
    data = b"".join(symbols.values())
    strtab = b"\0"
    entries = [(0, 0, 0, 0)]  # (name, section, value, size)
    offset = 0
    for name, value in symbols.items():
        entries.append((len(strtab), 1 + filler, offset, len(value)))
        strtab += name.encode() + b"\0"
        offset += len(value)
    offset = 0
    for name, size in bss.items():
        entries.append((len(strtab), 2 + filler, offset, size))
        strtab += name.encode() + b"\0"
        offset += size
    symtab = shndx = b""
    for name, section, value, size in entries:
        index = 0xFFFF if extended and section else section
        if is64:
            symtab += struct.pack(p + "IBBHQQ", name, 0x01, 0, index, value, size)
        else:
            symtab += struct.pack(p + "IIIBBH", name, value, size, 0x01, 0, index)
        shndx += struct.pack(p + "I", section)
    blobs = [data, strtab, symtab] + ([shndx] if extended else [])
    offsets, position = [], header_size
    for blob in blobs:
        offsets.append(position)
        position += len(blob)
    count = (6 if extended else 5) + filler
    # (type, flags, offset, size, link, entsize)
    sections = [(0, 0, 0, count if extended else 0, 0, 0)] + [(0, 0, 0, 0, 0, 0)] * filler
    sections += [(1, 3, offsets[0], len(data), 0, 0),
                 (8, 3, offsets[1], offset, 0, 0),  # .bss: its offset is not read
                 (3, 0, offsets[1], len(strtab), 0, 0),
                 (2, 0, offsets[2], len(symtab), 3 + filler, symbol_size)]
    if extended:
        sections.append((18, 0, offsets[3], len(shndx), 4 + filler, 4))
    entry = p + ("IIQQQQIIQQ" if is64 else "IIIIIIIIII")
    table = b"".join(struct.pack(entry, 0, kind, flags, 0, at, size, link, 0, 1, entsize)
                     for kind, flags, at, size, link, entsize in sections)
    ident = b"\x7fELF" + bytes([elf_class, 1 if order == "little" else 2, 1]) + bytes(9)
    shnum = 0 if extended else count
    fmt = p + ("HHIQQQIHHHHHH" if is64 else "HHIIIIIHHHHHH")
    header = ident + struct.pack(fmt, 1, 0, 1, 0, 0, position, 0, header_size, 0, 0,
                                 section_size, shnum, 0)
    return header + b"".join(blobs) + table


@pytest.mark.parametrize("elf_class", [1, 2])
@pytest.mark.parametrize("order", ["little", "big"])
@pytest.mark.parametrize("extended", [False, True])
def test_reads_both_classes_and_byte_orders(elf_class, order, extended):
    numbers = b"".join(n.to_bytes(4, order) for n in (12, 4, 8))
    elf = ElfObject(_build_elf(elf_class, order, {"first": b"\x01\x02", "numbers": numbers},
                               {"zeros": 5}, extended))
    assert (elf.byteorder, elf.word_bits) == (order, 32 if elf_class == 1 else 64)
    assert elf.symbol_bytes("first") == b"\x01\x02"
    assert elf.symbol_bytes("numbers") == numbers
    assert elf.symbol_bytes("zeros") == bytes(5)


def test_section_indices_past_the_reserved_range():
    elf = ElfObject(_build_elf(2, "big", {"far": b"\x2a"}, {"far_zeros": 2}, extended=True,
                               filler=0xFF00))
    assert elf.symbol_bytes("far") == b"\x2a"
    assert elf.symbol_bytes("far_zeros") == bytes(2)


@pytest.mark.parametrize("damage", ["not elf", "class", "encoding", "truncated", "symbol"])
def test_damaged_files_are_located_errors(damage):
    good = bytearray(_build_elf(2, "little", {"numbers": bytes(8)}, {}))
    if damage == "not elf":
        good[:4] = b"MZ\0\0"
    elif damage == "class":
        good[4] = 7
    elif damage == "encoding":
        good[5] = 0
    elif damage == "truncated":
        del good[-10:]
    else:  # the symbol's size reaches past its section
        symtab = good.index(struct.pack("<IBBHQQ", 1, 1, 0, 1, 0, 8))
        good[symtab + 16:symtab + 24] = struct.pack("<Q", 4096)
    with pytest.raises(ElfError):
        elf = ElfObject(bytes(good))
        elf.symbol_bytes("numbers")
