"""AArch64 relocations ("ELF for the Arm 64-bit Architecture (AArch64)", 2023Q3, §5.7.3),
for the small (PIC or not), tiny and large code models (the values S, A, P, G, L:
:mod:`.relocs`; ``Page(x)`` is ``x & ~0xfff``).

Instruction fields (Arm ARM, "A64 instruction set encoding"): ADR/ADRP ``immlo`` [30:29]
and ``immhi`` [23:5]; ADD/LDR/STR (unsigned offset) ``imm12`` [21:10], scaled by the
access size; B/BL ``imm26`` [25:0]; B.cond/CBZ/LDR (literal) ``imm19`` [23:5]; TBZ
``imm14`` [18:5]; MOVZ/MOVK ``imm16`` [20:5]. A GOT slot holds S + A. A call stub is
``ldr x16, #8; br x16`` followed by the absolute target (16 bytes; x16 is IP0, which the
AAPCS64 lets veneers clobber).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from gradc.artifacts.loader.elfobj import EM_AARCH64
from gradc.artifacts.loader.relocs import Arch, Place, RelocationError, Rule, fits_signed, write

__all__ = ["AARCH64"]


def _page(x: int) -> int:
    return x & ~0xFFF


def _data(name: str, width: int, signed: bool, compute: Callable[[Place], int]) -> Rule:
    def apply(buf: bytearray, at: int, p: Place) -> None:
        write(buf, at, width, compute(p), signed, name)

    return Rule(name, width, apply)


def _patch(buf: bytearray, at: int, mask: int, bits: int) -> None:
    (insn,) = struct.unpack_from("<I", buf, at)
    struct.pack_into("<I", buf, at, (insn & ~mask) | (bits & mask))


def _adr(name: str, compute: Callable[[Place], int], shift: int, check: bool) -> Rule:
    """ADR (``shift`` 0) or ADRP (``shift`` 12): a 21-bit signed immediate."""

    def apply(buf: bytearray, at: int, p: Place) -> None:
        value = compute(p)
        imm = value >> shift
        if check and (value & ((1 << shift) - 1) or not fits_signed(imm, 21)):
            raise RelocationError(f"{name}: offset {value:#x} out of ADR/ADRP range")
        _patch(buf, at, 0x60FFFFE0, ((imm & 3) << 29) | (((imm >> 2) & 0x7FFFF) << 5))

    return Rule(name, 4, apply)


def _lo12(name: str, compute: Callable[[Place], int], scale: int) -> Rule:
    """ADD / LDR / STR with a 12-bit unsigned offset, in units of ``1 << scale`` bytes."""

    def apply(buf: bytearray, at: int, p: Place) -> None:
        low = compute(p) & 0xFFF
        if low & ((1 << scale) - 1):
            raise RelocationError(f"{name}: offset {low:#x} not aligned to {1 << scale} bytes")
        _patch(buf, at, 0x3FFC00, (low >> scale) << 10)

    return Rule(name, 4, apply)


def _branch(name: str, compute: Callable[[Place], int], bits: int, lsb: int) -> Rule:
    """A PC-relative word offset of ``bits`` bits at bit ``lsb``."""

    def apply(buf: bytearray, at: int, p: Place) -> None:
        value = compute(p)
        if value & 3 or not fits_signed(value >> 2, bits):
            raise RelocationError(f"{name}: offset {value:#x} out of range")
        mask = ((1 << bits) - 1) << lsb
        _patch(buf, at, mask, (value >> 2) << lsb)

    return Rule(name, 4, apply)


def _movw(name: str, group: int, check: bool) -> Rule:
    """MOVZ/MOVK: bits [16*group, 16*group + 16) of S + A."""

    def apply(buf: bytearray, at: int, p: Place) -> None:
        value = p.S + p.A
        if check and not 0 <= value < 1 << (16 * group + 16):
            raise RelocationError(f"{name}: value {value:#x} out of range")
        _patch(buf, at, 0x1FFFE0, ((value >> (16 * group)) & 0xFFFF) << 5)

    return Rule(name, 4, apply)


_RULES = {
    257: _data("R_AARCH64_ABS64", 8, False, lambda p: p.S + p.A),
    258: _data("R_AARCH64_ABS32", 4, False, lambda p: p.S + p.A),
    260: _data("R_AARCH64_PREL64", 8, True, lambda p: p.S + p.A - p.P),
    261: _data("R_AARCH64_PREL32", 4, True, lambda p: p.S + p.A - p.P),
    263: _movw("R_AARCH64_MOVW_UABS_G0", 0, True),
    264: _movw("R_AARCH64_MOVW_UABS_G0_NC", 0, False),
    265: _movw("R_AARCH64_MOVW_UABS_G1", 1, True),
    266: _movw("R_AARCH64_MOVW_UABS_G1_NC", 1, False),
    267: _movw("R_AARCH64_MOVW_UABS_G2", 2, True),
    268: _movw("R_AARCH64_MOVW_UABS_G2_NC", 2, False),
    269: _movw("R_AARCH64_MOVW_UABS_G3", 3, False),
    273: _branch("R_AARCH64_LD_PREL_LO19", lambda p: p.S + p.A - p.P, 19, 5),
    274: _adr("R_AARCH64_ADR_PREL_LO21", lambda p: p.S + p.A - p.P, 0, True),
    275: _adr("R_AARCH64_ADR_PREL_PG_HI21", lambda p: _page(p.S + p.A) - _page(p.P), 12, True),
    276: _adr("R_AARCH64_ADR_PREL_PG_HI21_NC", lambda p: _page(p.S + p.A) - _page(p.P), 12, False),
    277: _lo12("R_AARCH64_ADD_ABS_LO12_NC", lambda p: p.S + p.A, 0),
    278: _lo12("R_AARCH64_LDST8_ABS_LO12_NC", lambda p: p.S + p.A, 0),
    279: _branch("R_AARCH64_TSTBR14", lambda p: p.S + p.A - p.P, 14, 5),
    280: _branch("R_AARCH64_CONDBR19", lambda p: p.S + p.A - p.P, 19, 5),
    282: _branch("R_AARCH64_JUMP26", lambda p: p.L + p.A - p.P, 26, 0),
    283: _branch("R_AARCH64_CALL26", lambda p: p.L + p.A - p.P, 26, 0),
    284: _lo12("R_AARCH64_LDST16_ABS_LO12_NC", lambda p: p.S + p.A, 1),
    285: _lo12("R_AARCH64_LDST32_ABS_LO12_NC", lambda p: p.S + p.A, 2),
    286: _lo12("R_AARCH64_LDST64_ABS_LO12_NC", lambda p: p.S + p.A, 3),
    299: _lo12("R_AARCH64_LDST128_ABS_LO12_NC", lambda p: p.S + p.A, 4),
    309: _branch("R_AARCH64_GOT_LD_PREL19", lambda p: p.G - p.P, 19, 5),
    311: _adr("R_AARCH64_ADR_GOT_PAGE", lambda p: _page(p.G) - _page(p.P), 12, True),
    312: _lo12("R_AARCH64_LD64_GOT_LO12_NC", lambda p: p.G, 3),
}


def _stub(target: int) -> bytes:
    return struct.pack("<IIQ", 0x58000050, 0xD61F0200, target)


#: The AArch64 architecture: every relocation type above; R_AARCH64_NONE (0 and 256) is
#: skipped by the linker.
AARCH64 = Arch(
    name="aarch64",
    machine=EM_AARCH64,
    rules=_RULES,
    got_types=frozenset({309, 311, 312}),
    call_types=frozenset({282, 283}),
    call_reach=1 << 27,
    got_holds_addend=True,
    stub=_stub,
    stub_size=16,
)
