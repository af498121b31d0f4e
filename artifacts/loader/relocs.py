"""Relocation arithmetic: what each relocation type writes where, per architecture.

The linker (:mod:`.link`) lays sections out, decides symbol addresses, GOT slots and call
stubs, and calls :meth:`Arch.apply` for every relocation with the values the psABIs name:

====  ==========================================================================
S     the symbol's address
A     the addend
P     the address of the place patched
G     the address of the symbol's GOT slot (a slot holding S, or S + A on AArch64)
GOT   the address of the GOT (``_GLOBAL_OFFSET_TABLE_``)
L     the call target: S when it is within the call's reach, else the symbol's stub
====  ==========================================================================

Sources: System V AMD64 psABI 1.0 §4.4 "Relocation" (x86-64, :mod:`.relocs_x86_64`);
"ELF for the Arm 64-bit Architecture (AArch64)" 2023Q3 §5.7 (:mod:`.relocs_aarch64`).
A value out of its field's range raises :class:`RelocationError`, never a silent wrap.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

__all__ = ["Arch", "Place", "RelocationError", "Rule", "fits_signed", "write"]


class RelocationError(ValueError):
    """A relocation cannot be applied (its value does not fit its field)."""


# Slotted classes rather than typing.NamedTuple: the loader imports no ``typing`` (issue 13).


class Place:
    """The values one relocation is computed from (see the module docstring)."""

    __slots__ = ("A", "G", "GOT", "L", "P", "S")

    def __init__(self, S: int, A: int, P: int, G: int, GOT: int, L: int) -> None:
        self.S, self.A, self.P, self.G, self.GOT, self.L = S, A, P, G, GOT, L


class Rule:
    """One relocation type: its psABI ``name``, the bytes it patches (``width``) and the
    function patching ``buf`` at index ``at`` for a :class:`Place`."""

    __slots__ = ("apply", "name", "width")

    def __init__(self, name: str, width: int, apply: Callable[[bytearray, int, Place], None]):
        self.name, self.width, self.apply = name, width, apply


class Arch:
    """An architecture the linker relocates for.

    Attributes:
        name: ``"x86-64"`` / ``"aarch64"``.
        machine: its ELF ``e_machine``.
        rules: relocation type -> :class:`Rule`.
        got_types: the types that need a GOT slot for their symbol.
        call_types: the types of calls and jumps that go through a stub when their
            target is out of reach.
        call_reach: how far (bytes, either way) a call of ``call_types`` reaches.
        got_holds_addend: whether a GOT slot holds S + A (AArch64) rather than S.
        stub: the bytes of a position-independent stub jumping to an absolute address.
    """

    __slots__ = (
        "call_reach",
        "call_types",
        "got_holds_addend",
        "got_types",
        "machine",
        "name",
        "rules",
        "stub",
        "stub_size",
    )

    def __init__(
        self,
        *,
        name: str,
        machine: int,
        rules: dict[int, Rule],
        got_types: frozenset[int],
        call_types: frozenset[int],
        call_reach: int,
        got_holds_addend: bool,
        stub: Callable[[int], bytes],
        stub_size: int,
    ) -> None:
        self.name, self.machine, self.rules = name, machine, rules
        self.got_types, self.call_types, self.call_reach = got_types, call_types, call_reach
        self.got_holds_addend, self.stub, self.stub_size = got_holds_addend, stub, stub_size


def fits_signed(value: int, bits: int) -> bool:
    """Whether ``value`` is representable in ``bits`` bits, two's complement."""
    return -(1 << (bits - 1)) <= value < 1 << (bits - 1)


_FORMATS = {2: "<H", 4: "<I", 8: "<Q"}


def write(buf: bytearray, at: int, width: int, value: int, signed: bool, what: str) -> None:
    """Store ``value`` in ``width`` little-endian bytes at ``buf[at:]``, range checked as
    a signed (two's complement) or unsigned field; 64-bit fields wrap modulo 2**64, as
    the psABIs define them.

    Raises:
        RelocationError: ``value`` does not fit (``what`` names the relocation).
    """
    bits = 8 * width
    if width < 8:
        ok = fits_signed(value, bits) if signed else 0 <= value < 1 << bits
        if not ok:
            raise RelocationError(f"{what}: value {value:#x} does not fit in {bits} bits")
    struct.pack_into(_FORMATS[width], buf, at, value & ((1 << bits) - 1))
