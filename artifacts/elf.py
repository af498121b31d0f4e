"""A small reader of ELF64 relocatable objects: defined symbols and the bytes of data ones.

The loader and the store use it to read the ABI description every object carries
(:mod:`gradc.artifacts.abi`) before anything is linked: pure Python (``struct``), no
llvmlite or pyelftools at run time, every offset checked against the file's size so that a
hostile or truncated object raises :class:`ElfError`, never reads out of bounds.

Layouts are those of the System V gABI (ELF-64 object file format, version 1.5): the
64-byte file header, 64-byte section headers, 24-byte ``Elf64_Sym`` entries; both byte
orders are read.
"""

from __future__ import annotations

import struct

from gradc.artifacts.abi.types import Record

__all__ = ["ElfError", "ElfObject", "ElfSymbol", "defined_symbols", "symbol_bytes"]

_ELFCLASS64 = 2
_ELFDATA = {1: "<", 2: ">"}
_SHT_PROGBITS = 1
_SHT_SYMTAB = 2
_SHT_NOBITS = 8
_SHN_UNDEF = 0
_SHN_LORESERVE = 0xFF00
_STB_LOCAL = 0
_SYMBOL_SIZE = 24
_SECTION_HEADER_SIZE = 64


class ElfError(ValueError):
    """The bytes are not a well-formed ELF64 object (the message says what is wrong)."""


class ElfSymbol(Record):
    """A symbol defined in a section of the object.

    Attributes:
        name: the symbol's name.
        section: index of the section that holds it.
        value: its offset in that section (relocatable objects).
        size: its size in bytes (``st_size``).
        binding: ``STB_*`` (0 local, 1 global, 2 weak).
        kind: ``STT_*`` (1 object, 2 function ...).
    """

    __slots__ = _fields = ("name", "section", "value", "size", "binding", "kind")
    name: str
    section: int
    value: int
    size: int
    binding: int
    kind: int

    def __init__(
        self, name: str, section: int, value: int, size: int, binding: int, kind: int
    ) -> None:
        set_field = object.__setattr__
        set_field(self, "name", name)
        set_field(self, "section", section)
        set_field(self, "value", value)
        set_field(self, "size", size)
        set_field(self, "binding", binding)
        set_field(self, "kind", kind)


_HEADER = {o: struct.Struct(o + "Q") for o in "<>"}
_COUNTS = {o: struct.Struct(o + "HH") for o in "<>"}
_SECTION = {o: struct.Struct(o + "IIQQQQIIQQ") for o in "<>"}
_SYMBOL = {o: struct.Struct(o + "IBBHQQ") for o in "<>"}


class ElfObject:
    """An ELF64 object's section headers, read once and bounds-checked; its symbols and
    the bytes of its data symbols on demand.

    Raises:
        ElfError: the bytes are not a well-formed ELF64 object.
    """

    def __init__(self, data: bytes) -> None:
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise ElfError("not an ELF file")
        if data[4] != _ELFCLASS64:
            raise ElfError("not a 64-bit ELF file")
        order = _ELFDATA.get(data[5])
        if order is None:
            raise ElfError(f"unknown ELF byte order {data[5]}")
        (shoff,) = _HEADER[order].unpack_from(data, 0x28)
        shentsize, shnum = _COUNTS[order].unpack_from(data, 0x3A)
        if shnum == 0 and shoff:  # extended numbering: the count is section 0's sh_size
            if shoff + _SECTION_HEADER_SIZE > len(data):
                raise ElfError("section header table lies outside the file")
            (shnum,) = _HEADER[order].unpack_from(data, shoff + 0x20)
        if shnum and shentsize != _SECTION_HEADER_SIZE:
            raise ElfError(f"section header size {shentsize}, expected {_SECTION_HEADER_SIZE}")
        if shoff + shnum * _SECTION_HEADER_SIZE > len(data):
            raise ElfError("section header table lies outside the file")
        # (type, offset, size, link, entsize) per section
        sections: list[tuple[int, int, int, int, int]] = []
        unpack = _SECTION[order].unpack_from
        for i in range(shnum):
            _, sh_type, _, _, offset, size, link, _, _, entsize = unpack(
                data, shoff + i * _SECTION_HEADER_SIZE
            )
            if sh_type != _SHT_NOBITS and offset + size > len(data):
                raise ElfError(f"section {i} lies outside the file")
            sections.append((sh_type, offset, size, link, entsize))
        self.data = data
        self.order = order
        self.sections = sections

    def _name(self, strtab: tuple[int, int, int, int, int], offset: int) -> str:
        _, start, size, _, _ = strtab
        if offset >= size:
            raise ElfError(f"symbol name offset {offset} outside its string table")
        end = self.data.find(b"\0", start + offset, start + size)
        if end < 0:
            raise ElfError("unterminated symbol name")
        return self.data[start + offset : end].decode("utf-8", "replace")

    def symbols(self) -> dict[str, ElfSymbol]:
        """The named global and weak symbols defined in a section (undefined, absolute,
        common and local symbols are left out), by name.

        Raises:
            ElfError: a symbol table, name or section index is malformed.
        """
        out: dict[str, ElfSymbol] = {}
        sections = self.sections
        unpack = _SYMBOL[self.order].unpack_from
        for sh_type, offset, size, link, entsize in sections:
            if sh_type != _SHT_SYMTAB:
                continue
            if entsize != _SYMBOL_SIZE or not 0 < link < len(sections):
                raise ElfError("malformed symbol table")
            strtab = sections[link]
            for k in range(size // _SYMBOL_SIZE):
                name_off, info, _, shndx, value, sym_size = unpack(
                    self.data, offset + k * _SYMBOL_SIZE
                )
                binding, kind = info >> 4, info & 0xF
                if binding == _STB_LOCAL or shndx == _SHN_UNDEF or shndx >= _SHN_LORESERVE:
                    continue
                if shndx >= len(sections):
                    raise ElfError(f"symbol {k} names section {shndx}, which does not exist")
                name = self._name(strtab, name_off)
                if name:
                    out[name] = ElfSymbol(name, shndx, value, sym_size, binding, kind)
        return out

    def symbol_bytes(self, symbol: ElfSymbol) -> bytes:
        """The ``symbol.size`` bytes a data symbol's initializer holds in the object.

        Raises:
            ElfError: the symbol's section has no bytes in the file (``.bss``) or the
                symbol does not lie inside it.
        """
        sh_type, offset, size, _, _ = self.sections[symbol.section]
        if sh_type != _SHT_PROGBITS:
            raise ElfError(f"symbol {symbol.name} is not initialised data")
        if symbol.value + symbol.size > size:
            raise ElfError(f"symbol {symbol.name} lies outside its section")
        start = offset + symbol.value
        return self.data[start : start + symbol.size]


def defined_symbols(data: bytes) -> dict[str, ElfSymbol]:
    """:meth:`ElfObject.symbols` of the ELF64 object ``data``.

    Raises:
        ElfError: the bytes are not a well-formed ELF64 object.
    """
    return ElfObject(data).symbols()


def symbol_bytes(data: bytes, symbol: ElfSymbol) -> bytes:
    """:meth:`ElfObject.symbol_bytes` of the ELF64 object ``data``.

    Raises:
        ElfError: as :class:`ElfObject` and :meth:`ElfObject.symbol_bytes` do.
    """
    return ElfObject(data).symbol_bytes(symbol)
