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
from dataclasses import dataclass

__all__ = ["ElfError", "ElfSymbol", "defined_symbols", "symbol_bytes"]

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


@dataclass(frozen=True)
class ElfSymbol:
    """A symbol defined in a section of the object.

    Attributes:
        name: the symbol's name.
        section: index of the section that holds it.
        value: its offset in that section (relocatable objects).
        size: its size in bytes (``st_size``).
        binding: ``STB_*`` (0 local, 1 global, 2 weak).
        kind: ``STT_*`` (1 object, 2 function ...).
    """

    name: str
    section: int
    value: int
    size: int
    binding: int
    kind: int


@dataclass(frozen=True)
class _Section:
    type: int
    offset: int
    size: int
    link: int
    entsize: int


def _sections(data: bytes) -> tuple[str, list[_Section]]:
    """The byte-order prefix for ``struct`` and the section headers, bounds-checked."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    if data[4] != _ELFCLASS64:
        raise ElfError("not a 64-bit ELF file")
    order = _ELFDATA.get(data[5])
    if order is None:
        raise ElfError(f"unknown ELF byte order {data[5]}")
    (shoff,) = struct.unpack_from(order + "Q", data, 0x28)
    shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
    if shnum == 0 and shoff:  # extended numbering: the count is section 0's sh_size
        if shoff + _SECTION_HEADER_SIZE > len(data):
            raise ElfError("section header table lies outside the file")
        (shnum,) = struct.unpack_from(order + "Q", data, shoff + 0x20)
    if shnum and shentsize != _SECTION_HEADER_SIZE:
        raise ElfError(f"section header size {shentsize}, expected {_SECTION_HEADER_SIZE}")
    if shoff + shnum * _SECTION_HEADER_SIZE > len(data):
        raise ElfError("section header table lies outside the file")
    sections = []
    for i in range(shnum):
        _, sh_type, _, _, offset, size, link, _, _, entsize = struct.unpack_from(
            order + "IIQQQQIIQQ", data, shoff + i * _SECTION_HEADER_SIZE
        )
        if sh_type != _SHT_NOBITS and offset + size > len(data):
            raise ElfError(f"section {i} lies outside the file")
        sections.append(_Section(sh_type, offset, size, link, entsize))
    return order, sections


def _string(data: bytes, strtab: _Section, offset: int) -> str:
    if offset >= strtab.size:
        raise ElfError(f"symbol name offset {offset} outside its string table")
    start = strtab.offset + offset
    end = data.find(b"\0", start, strtab.offset + strtab.size)
    if end < 0:
        raise ElfError("unterminated symbol name")
    return data[start:end].decode("utf-8", "replace")


def defined_symbols(data: bytes) -> dict[str, ElfSymbol]:
    """The named global and weak symbols defined in a section of the ELF64 object ``data``
    (undefined, absolute, common and local symbols are left out), by name.

    Raises:
        ElfError: the bytes are not a well-formed ELF64 object.
    """
    order, sections = _sections(data)
    out: dict[str, ElfSymbol] = {}
    for symtab in sections:
        if symtab.type != _SHT_SYMTAB:
            continue
        if symtab.entsize != _SYMBOL_SIZE or not 0 < symtab.link < len(sections):
            raise ElfError("malformed symbol table")
        strtab = sections[symtab.link]
        for k in range(symtab.size // _SYMBOL_SIZE):
            name_off, info, _, shndx, value, size = struct.unpack_from(
                order + "IBBHQQ", data, symtab.offset + k * _SYMBOL_SIZE
            )
            binding, kind = info >> 4, info & 0xF
            if binding == _STB_LOCAL or shndx == _SHN_UNDEF or shndx >= _SHN_LORESERVE:
                continue
            if shndx >= len(sections):
                raise ElfError(f"symbol {k} names section {shndx}, which does not exist")
            name = _string(data, strtab, name_off)
            if name:
                out[name] = ElfSymbol(name, shndx, value, size, binding, kind)
    return out


def symbol_bytes(data: bytes, symbol: ElfSymbol) -> bytes:
    """The ``symbol.size`` bytes a data symbol's initializer holds in the object.

    Raises:
        ElfError: the symbol's section has no bytes in the file (``.bss``) or the symbol
            does not lie inside it.
    """
    _, sections = _sections(data)
    section = sections[symbol.section]
    if section.type != _SHT_PROGBITS:
        raise ElfError(f"symbol {symbol.name} is not initialised data")
    if symbol.value + symbol.size > section.size:
        raise ElfError(f"symbol {symbol.name} lies outside its section")
    start = section.offset + symbol.value
    return data[start : start + symbol.size]
