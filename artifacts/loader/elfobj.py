"""What the linker (:mod:`.link`) reads of an ELF64 relocatable object: its sections, its
whole symbol table (local, undefined and section symbols included) and its ``RELA``
relocations.

Pure Python (``struct``); every offset and index is checked against the file, so that a
hostile or truncated object raises :class:`~gradc.artifacts.elf.ElfError` rather than
reading out of bounds. Layouts are the System V gABI's (ELF-64 object file format,
version 1.5): 64-byte file and section headers, 24-byte ``Elf64_Sym`` and ``Elf64_Rela``
entries. Only little-endian relocatable objects (``ET_REL``) are read: x86-64 and AArch64
Linux, the targets the loader links for.
"""

from __future__ import annotations

import struct

from gradc.artifacts.elf import ElfError

__all__ = [
    "EM_AARCH64",
    "EM_X86_64",
    "RelocatableObject",
    "Relocation",
    "Section",
    "Symbol",
]

EM_X86_64 = 62
EM_AARCH64 = 183

_ET_REL = 1
SHT_NOBITS = 8
SHT_RELA = 4
SHT_REL = 9
SHT_SYMTAB = 2
SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_TLS = 0x400
SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
STB_LOCAL = 0
STB_WEAK = 2
STT_SECTION = 3

_FILE = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")


class Section:
    """A section header: ``name``, ``type`` (``SHT_*``), ``flags`` (``SHF_*``), the file
    ``offset`` and ``size`` of its bytes, ``link``, ``info`` and ``align`` (a power of two,
    at least 1)."""

    __slots__ = ("align", "flags", "info", "link", "name", "offset", "size", "type")

    def __init__(
        self, name: str, type: int, flags: int, offset: int, size: int, link: int, info: int,
        align: int,
    ) -> None:  # fmt: skip
        self.name, self.type, self.flags, self.offset = name, type, flags, offset
        self.size, self.link, self.info, self.align = size, link, info, align


class Symbol:
    """An ``Elf64_Sym``: ``name``, ``binding`` (``STB_*``), ``kind`` (``STT_*``), section
    index ``shndx`` (``SHN_UNDEF``, ``SHN_ABS`` ...) and ``value`` (its offset in that
    section)."""

    __slots__ = ("binding", "kind", "name", "shndx", "value")

    def __init__(self, name: str, binding: int, kind: int, shndx: int, value: int) -> None:
        self.name, self.binding, self.kind, self.shndx, self.value = (
            name, binding, kind, shndx, value,
        )  # fmt: skip


class Relocation:
    """An ``Elf64_Rela`` of the section ``target``: patch at ``offset`` in it, relocation
    ``type`` (``R_X86_64_*`` / ``R_AARCH64_*``), against symbol index ``symbol`` with
    ``addend``."""

    __slots__ = ("addend", "offset", "symbol", "target", "type")

    def __init__(self, target: int, offset: int, type: int, symbol: int, addend: int) -> None:
        self.target, self.offset, self.type, self.symbol, self.addend = (
            target, offset, type, symbol, addend,
        )  # fmt: skip


class RelocatableObject:
    """An ELF64 little-endian relocatable object, parsed and bounds-checked.

    Attributes:
        data: the object's bytes.
        machine: ``e_machine`` (:data:`EM_X86_64`, :data:`EM_AARCH64` ...).
        sections: the section headers, by index.
        symbols: the symbol table, by index (index 0 is the null symbol).
        relocations: every relocation of every ``SHT_RELA`` section.

    Raises:
        ElfError: the bytes are not a well-formed little-endian ELF64 relocatable object
            (it has ``SHT_REL`` relocations, which LLVM never emits for these targets,
            or more than one symbol table).
    """

    def __init__(self, data: bytes) -> None:
        if len(data) < _FILE.size or data[:4] != b"\x7fELF":
            raise ElfError("not an ELF file")
        if data[4] != 2 or data[5] != 1:
            raise ElfError("not a little-endian 64-bit ELF file")
        fields = _FILE.unpack_from(data, 0)
        e_type, machine, shoff = fields[1], fields[2], fields[6]
        shentsize, shnum, shstrndx = fields[11], fields[12], fields[13]
        if e_type != _ET_REL:
            raise ElfError(f"ELF type {e_type} is not a relocatable object (ET_REL)")
        if shnum and shentsize != _SECTION.size:
            raise ElfError(f"section header size {shentsize}, expected {_SECTION.size}")
        if shoff + shnum * _SECTION.size > len(data) or shnum == 0:
            raise ElfError("section header table lies outside the file or is empty")
        self.data = data
        self.machine = machine
        raw = [_SECTION.unpack_from(data, shoff + i * _SECTION.size) for i in range(shnum)]
        for i, h in enumerate(raw):
            if h[1] != SHT_NOBITS and h[4] + h[5] > len(data):
                raise ElfError(f"section {i} lies outside the file")
        if not 0 <= shstrndx < shnum:
            raise ElfError(f"section name table index {shstrndx} out of range")
        names = raw[shstrndx]
        self.sections = [
            Section(self._string(names, h[0]), h[1], h[2], h[4], h[5], h[6], h[7], max(h[8], 1))
            for h in raw
        ]
        for s in self.sections:
            if s.align & (s.align - 1) or s.align > 1 << 16:
                raise ElfError(f"section {s.name} has alignment {s.align}")
        self.symbols = self._read_symbols(raw)
        self.relocations = self._read_relocations()

    def _string(self, table: tuple[int, ...], offset: int) -> str:
        start, size = table[4], table[5]
        if offset >= size and not (offset == 0 and size == 0):
            raise ElfError(f"name offset {offset} outside its string table")
        end = self.data.find(b"\0", start + offset, start + size)
        if end < 0:
            return "" if size == 0 else _unterminated()
        return self.data[start + offset : end].decode("utf-8", "replace")

    def _read_symbols(self, raw: list[tuple[int, ...]]) -> list[Symbol]:
        tables = [i for i, h in enumerate(raw) if h[1] == SHT_SYMTAB]
        if len(tables) > 1:
            raise ElfError("more than one symbol table")
        if not tables:
            return []
        h = raw[tables[0]]
        if h[9] != _SYMBOL.size or not 0 < h[6] < len(raw):
            raise ElfError("malformed symbol table")
        strtab = raw[h[6]]
        out = []
        for k in range(h[5] // _SYMBOL.size):
            name, info, _, shndx, value, _ = _SYMBOL.unpack_from(self.data, h[4] + k * 24)
            if shndx >= len(raw) and shndx not in (SHN_ABS, SHN_COMMON):
                raise ElfError(f"symbol {k} names section {shndx}, which does not exist")
            out.append(Symbol(self._string(strtab, name), info >> 4, info & 0xF, shndx, value))
        return out

    def _read_relocations(self) -> list[Relocation]:
        out = []
        for s in self.sections:
            if s.type == SHT_REL:
                raise ElfError(f"section {s.name}: SHT_REL relocations are not supported")
            if s.type != SHT_RELA:
                continue
            if not 0 < s.info < len(self.sections):
                raise ElfError(f"relocation section {s.name} applies to no section")
            size = self.sections[s.info].size
            for k in range(s.size // _RELA.size):
                offset, info, addend = _RELA.unpack_from(self.data, s.offset + k * _RELA.size)
                sym = info >> 32
                if sym >= len(self.symbols):
                    raise ElfError(f"relocation {s.name}[{k}] names symbol {sym}: no such symbol")
                if offset >= size:
                    raise ElfError(f"relocation {s.name}[{k}] lies outside its section")
                out.append(Relocation(s.info, offset, info & 0xFFFFFFFF, sym, addend))
        return out

    def section_bytes(self, index: int) -> bytes:
        """The bytes of section ``index`` (zeros for ``SHT_NOBITS``)."""
        s = self.sections[index]
        if s.type == SHT_NOBITS:
            return bytes(s.size)
        return self.data[s.offset : s.offset + s.size]


def _unterminated() -> str:
    raise ElfError("unterminated name")
