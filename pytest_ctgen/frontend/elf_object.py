"""The bytes of named data objects in an ELF relocatable object file.

Just enough of the ELF format (System V gABI) for the layout probe to read back the
numbers it had the compiler emit as initialised data: the section headers, the symbol
table and each symbol's bytes. 32- and 64-bit files of either byte order are read, so a
cross compiler's object file works too. Extended section numbering (`SHN_XINDEX`, for files
with more than 65,279 sections) is followed.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final, Literal

_MAGIC: Final = b"\x7fELF"
_ELFCLASS32, _ELFCLASS64 = 1, 2
_ELFDATA2LSB, _ELFDATA2MSB = 1, 2
_ET_REL: Final = 1
_SHT_SYMTAB, _SHT_NOBITS, _SHT_SYMTAB_SHNDX = 2, 8, 18
_SHF_COMPRESSED: Final = 0x800
_SHN_UNDEF, _SHN_LORESERVE, _SHN_XINDEX = 0, 0xFF00, 0xFFFF

ByteOrder = Literal["little", "big"]


class ElfError(ValueError):
    """The file is not an ELF object this reader understands, or is damaged."""


@dataclass(frozen=True)
class _Section:
    type: int
    flags: int
    address: int
    offset: int
    size: int
    link: int


@dataclass(frozen=True)
class _Format:
    """The struct formats of one ELF class and byte order."""

    header: str  # from e_type to e_shstrndx
    section: str
    symbol: str
    symbol_fields: tuple[str, ...]


def _format(elf_class: int, prefix: str) -> _Format:
    if elf_class == _ELFCLASS32:
        return _Format(prefix + "HHIIIIIHHHHHH", prefix + "IIIIIIIIII", prefix + "IIIBBH",
                       ("name", "value", "size", "info", "other", "shndx"))
    return _Format(prefix + "HHIQQQIHHHHHH", prefix + "IIQQQQIIQQ", prefix + "IBBHQQ",
                   ("name", "info", "other", "shndx", "value", "size"))


class ElfObject:
    """An ELF file's symbols and their bytes. `byteorder` and `word_bits` are the target's."""

    def __init__(self, data: bytes) -> None:
        if len(data) < 16 or data[:4] != _MAGIC:
            raise ElfError("not an ELF file")
        elf_class, encoding = data[4], data[5]
        if elf_class not in (_ELFCLASS32, _ELFCLASS64):
            raise ElfError(f"unknown ELF class {elf_class}")
        if encoding not in (_ELFDATA2LSB, _ELFDATA2MSB):
            raise ElfError(f"unknown ELF data encoding {encoding}")
        self.data = data
        self.byteorder: ByteOrder = "little" if encoding == _ELFDATA2LSB else "big"
        self.word_bits = 32 if elf_class == _ELFCLASS32 else 64
        self._format = _format(elf_class, "<" if encoding == _ELFDATA2LSB else ">")
        header = self._unpack(self._format.header, 16)
        # st_value is an offset into the section in a relocatable file, an address otherwise
        self._relocatable = header[0] == _ET_REL
        self._sections = self._read_sections(shoff=header[5], shentsize=header[10],
                                             shnum=header[11])
        self._symbols = self._read_symbols()

    def _unpack(self, fmt: str, offset: int) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        if offset < 0 or offset + size > len(self.data):
            raise ElfError("truncated ELF file")
        return struct.unpack_from(fmt, self.data, offset)

    def _read_sections(self, shoff: int, shentsize: int, shnum: int) -> list[_Section]:
        if shoff == 0:
            return []
        if shentsize < struct.calcsize(self._format.section):
            raise ElfError(f"section header entries of {shentsize} bytes")

        def section(index: int) -> _Section:
            fields = self._unpack(self._format.section, shoff + index * shentsize)
            return _Section(*fields[1:7])

        first = section(0)
        count = shnum if shnum != 0 else first.size  # extended numbering: count in section 0
        if count * shentsize > len(self.data):
            raise ElfError("truncated ELF file")
        return [first] + [section(i) for i in range(1, count)]

    def section_bytes(self, index: int) -> bytes:
        """The contents of section `index` (zeros for a section that occupies no file space)."""
        if not 0 <= index < len(self._sections):
            raise ElfError(f"no section {index}")
        section = self._sections[index]
        if section.flags & _SHF_COMPRESSED:
            raise ElfError(f"section {index} is compressed")
        if section.type == _SHT_NOBITS:
            return bytes(section.size)
        end = section.offset + section.size
        if end > len(self.data):
            raise ElfError(f"section {index} lies beyond the end of the file")
        return self.data[section.offset:end]

    def _read_symbols(self) -> dict[str, tuple[int, int, int]]:
        """Defined symbols by name: (section index, value, size). A name defined twice (local
        symbols of different files) keeps its first definition."""
        tables = [i for i, s in enumerate(self._sections) if s.type == _SHT_SYMTAB]
        if not tables:
            return {}
        table = tables[0]
        names = self.section_bytes(self._sections[table].link)
        extended = [self.section_bytes(i) for i, s in enumerate(self._sections)
                    if s.type == _SHT_SYMTAB_SHNDX and s.link == table]
        entries = self.section_bytes(table)
        entry_size = struct.calcsize(self._format.symbol)
        symbols: dict[str, tuple[int, int, int]] = {}
        for number in range(len(entries) // entry_size):
            values = struct.unpack_from(self._format.symbol, entries, number * entry_size)
            fields = dict(zip(self._format.symbol_fields, values))
            shndx = fields["shndx"]
            if shndx == _SHN_XINDEX and extended:  # the real index may be >= SHN_LORESERVE
                shndx = int.from_bytes(extended[0][number * 4:number * 4 + 4], self.byteorder)
            elif shndx >= _SHN_LORESERVE:
                continue  # absolute or common: no bytes in a section
            if shndx == _SHN_UNDEF or fields["name"] == 0:
                continue
            name = _c_string(names, fields["name"])
            symbols.setdefault(name, (shndx, fields["value"], fields["size"]))
        return symbols

    def symbol_names(self) -> set[str]:
        return set(self._symbols)

    def symbol_bytes(self, name: str) -> bytes | None:
        """The initial bytes of the data object `name` (st_size of them), None if the file
        defines no such symbol."""
        found = self._symbols.get(name)
        if found is None:
            return None
        shndx, value, size = found
        contents = self.section_bytes(shndx)
        if not self._relocatable:
            value -= self._sections[shndx].address
        if value < 0 or value + size > len(contents):
            raise ElfError(f"symbol {name} lies beyond the end of its section")
        return contents[value:value + size]


def _c_string(table: bytes, offset: int) -> str:
    if offset >= len(table):
        raise ElfError("symbol name beyond the string table")
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", "surrogateescape")
