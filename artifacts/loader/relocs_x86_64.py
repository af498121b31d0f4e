"""x86-64 relocations (System V AMD64 psABI 1.0, §4.4 table 4.10), for the small, medium
and large code models, PIC or not (the values S, A, P, G, GOT, L: :mod:`.relocs`).

``GOTPCRELX`` and ``REX_GOTPCRELX`` are applied as ``GOTPCREL`` (through the GOT slot,
never relaxed: the instruction stays a load). A call stub is ``jmp *0(%rip)`` followed by
the absolute target (16 bytes).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from gradc.artifacts.loader.elfobj import EM_X86_64
from gradc.artifacts.loader.relocs import Arch, Place, Rule, write

__all__ = ["X86_64"]


def _rule(name: str, width: int, signed: bool, compute: Callable[[Place], int]) -> Rule:
    def apply(buf: bytearray, at: int, p: Place) -> None:
        write(buf, at, width, compute(p), signed, name)

    return Rule(name, width, apply)


_RULES = {
    1: _rule("R_X86_64_64", 8, False, lambda p: p.S + p.A),
    2: _rule("R_X86_64_PC32", 4, True, lambda p: p.S + p.A - p.P),
    4: _rule("R_X86_64_PLT32", 4, True, lambda p: p.L + p.A - p.P),
    9: _rule("R_X86_64_GOTPCREL", 4, True, lambda p: p.G + p.A - p.P),
    10: _rule("R_X86_64_32", 4, False, lambda p: p.S + p.A),
    11: _rule("R_X86_64_32S", 4, True, lambda p: p.S + p.A),
    24: _rule("R_X86_64_PC64", 8, True, lambda p: p.S + p.A - p.P),
    25: _rule("R_X86_64_GOTOFF64", 8, True, lambda p: p.S + p.A - p.GOT),
    26: _rule("R_X86_64_GOTPC32", 4, True, lambda p: p.GOT + p.A - p.P),
    27: _rule("R_X86_64_GOT64", 8, True, lambda p: p.G - p.GOT + p.A),
    28: _rule("R_X86_64_GOTPCREL64", 8, True, lambda p: p.G + p.A - p.P),
    29: _rule("R_X86_64_GOTPC64", 8, True, lambda p: p.GOT + p.A - p.P),
    31: _rule("R_X86_64_PLTOFF64", 8, True, lambda p: p.L - p.GOT + p.A),
    41: _rule("R_X86_64_GOTPCRELX", 4, True, lambda p: p.G + p.A - p.P),
    42: _rule("R_X86_64_REX_GOTPCRELX", 4, True, lambda p: p.G + p.A - p.P),
}


def _stub(target: int) -> bytes:
    return b"\xff\x25\x00\x00\x00\x00" + struct.pack("<Q", target) + b"\xcc\xcc"


#: The x86-64 architecture: every relocation type above; R_X86_64_NONE (0) is skipped by
#: the linker.
X86_64 = Arch(
    name="x86-64",
    machine=EM_X86_64,
    rules=_RULES,
    got_types=frozenset({9, 27, 28, 41, 42}),
    call_types=frozenset({4, 31}),
    call_reach=1 << 31,
    got_holds_addend=False,
    stub=_stub,
    stub_size=16,
)
