"""gradc's linker on AArch64 relocation samples (artifacts/loader/relocs_aarch64.py),
without executing: LLVM's objects for AArch64 (cross-compiled by llvmlite) are relocated
into a buffer at a chosen base, and every patched field is decoded back (an A64 decoder
written here, independent of the encoder) to the address the relocation's psABI formula
names; hand-made instructions cover the types LLVM does not emit for the sample."""

from __future__ import annotations

import struct

import pytest

from gradc.artifacts.loader.link import LinkError, Plan, base_offset, plan, relocate
from gradc.artifacts.loader.relocs import Place
from gradc.artifacts.loader.relocs_aarch64 import AARCH64

from .elf_samples import AARCH64 as TRIPLE
from .elf_samples import sample

BASE = 0x5500_0000_0000
NEAR_SIN = BASE + 0x10_0000  # within a BL's 128 MiB
FAR_SIN = 0xFFFF_0000_1000  # beyond it: through a stub
EXT = BASE - 0x4000_0000  # within ADRP's 4 GiB


def _sext(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def _insn(image: bytearray, at: int) -> int:
    return int(struct.unpack_from("<I", image, at)[0])


def _adrp(insn: int, place: int) -> int:
    imm = _sext(((insn >> 5) & 0x7FFFF) << 2 | (insn >> 29) & 3, 21)
    return (place & ~0xFFF) + (imm << 12)


def _imm12(insn: int) -> int:
    return (insn >> 10) & 0xFFF


def _b26(insn: int, place: int) -> int:
    return place + 4 * _sext(insn & 0x3FFFFFF, 26)


def _check(layout: Plan, image: bytearray, symbols: dict[str, int], sin: int) -> set[int]:
    """Decode every relocation of the sample; returns the types seen."""
    obj = layout.objects[0]
    names = {"sin": sin, "ext_data": EXT, **symbols}
    page = {}
    seen = set()
    for r in obj.relocations:
        if (0, r.target) not in layout.sections:  # .eh_frame: not loaded
            continue
        sym = obj.symbols[r.symbol]
        at = base_offset(layout, 0, r)
        place = BASE + at
        if sym.name in names:
            s = names[sym.name]
        else:  # a section symbol: its section's address
            s = BASE + layout.sections[(0, sym.shndx)] + sym.value
        insn = _insn(image, at)
        seen.add(r.type)
        if r.type == 257:
            assert struct.unpack_from("<Q", image, at)[0] == s + r.addend
        elif r.type in (260, 261):
            fmt = "<q" if r.type == 260 else "<i"
            assert struct.unpack_from(fmt, image, at)[0] == s + r.addend - place
        elif r.type == 275:
            assert _adrp(insn, place) == (s + r.addend) & ~0xFFF
        elif r.type == 277:
            assert _imm12(insn) == (s + r.addend) & 0xFFF
        elif r.type == 283:
            target = _b26(insn, place)
            if sin == FAR_SIN and sym.name == "sin":
                stub = target - BASE
                assert stub == layout.stubs["sin"]
                assert struct.unpack_from("<IIQ", image, stub) == (0x58000050, 0xD61F0200, sin)
            else:
                assert target == s + r.addend
        elif r.type == 311:
            page[sym.name or r.symbol] = _adrp(insn, place)
        elif r.type == 312:
            slot = page[sym.name or r.symbol] + 8 * _imm12(insn) - BASE
            assert struct.unpack_from("<Q", image, slot)[0] == s + r.addend
        elif r.type in (264, 266, 268, 269):
            group = {264: 0, 266: 1, 268: 2, 269: 3}[r.type]
            assert (insn >> 5) & 0xFFFF == ((s + r.addend) >> (16 * group)) & 0xFFFF
        else:
            raise AssertionError(f"type {r.type} not checked")
    return seen


@pytest.mark.parametrize("sin", [NEAR_SIN, FAR_SIN])
@pytest.mark.parametrize(
    ("reloc", "model"),
    [("pic", "small"), ("static", "small"), ("pic", "large"), ("static", "large")],
)
def test_llvm_samples_decode_to_their_targets(reloc: str, model: str, sin: int) -> None:
    layout = plan([("arm.o", sample(TRIPLE, reloc, model))], AARCH64)
    (text_index,) = [i for i, s in enumerate(layout.objects[0].sections) if s.name == ".text"]
    original = bytes(layout.objects[0].section_bytes(text_index))
    image, symbols = relocate(layout, BASE, {"sin": sin, "ext_data": EXT}.get)
    seen = _check(layout, image, symbols, sin)
    assert {283, 311, 312} <= seen
    # only the relocated fields changed: opcodes stay
    text = layout.sections[(0, text_index)]
    for r in layout.objects[0].relocations:
        if r.target == text_index and r.type in (275, 277, 283, 311, 312):
            old = struct.unpack_from("<I", original, r.offset)[0]
            new = _insn(image, text + r.offset)
            mask = {275: 0x60FFFFE0, 311: 0x60FFFFE0, 283: 0x3FFFFFF}.get(r.type, 0x3FFC00)
            assert old & ~mask == new & ~mask


# hand-made: (type, instruction, S + A - P or S + A, decode(patched, P) -> value)
_P = 0x4000_1000
HAND = [
    (274, 0x10000000, 0x12345, lambda i, p: _sext((i >> 5 & 0x7FFFF) << 2 | i >> 29 & 3, 21)),
    (278, 0x39400020, 0x1ABC, lambda i, p: _imm12(i)),  # ldrb w0, [x1]
    (284, 0x79400020, 0x1ABE, lambda i, p: _imm12(i) << 1),  # ldrh
    (285, 0xB9400020, 0x1AB8, lambda i, p: _imm12(i) << 2),  # ldr w0
    (286, 0xF9400020, 0x1AB8, lambda i, p: _imm12(i) << 3),  # ldr x0
    (299, 0x3DC00020, 0x1AB0, lambda i, p: _imm12(i) << 4),  # ldr q0
    (279, 0x36000000, -0x1000, lambda i, p: 4 * _sext(i >> 5 & 0x3FFF, 14)),  # tbz
    (280, 0x54000000, 0x3FFFC, lambda i, p: 4 * _sext(i >> 5 & 0x7FFFF, 19)),  # b.eq
    (273, 0x58000000, -0x40000, lambda i, p: 4 * _sext(i >> 5 & 0x7FFFF, 19)),  # ldr literal
    (282, 0x14000000, 0x7FFFFFC, lambda i, p: 4 * _sext(i & 0x3FFFFFF, 26)),  # b
]


@pytest.mark.parametrize(("rtype", "insn", "value", "decode"), HAND)
def test_hand_made_instructions(rtype: int, insn: int, value: int, decode: object) -> None:
    rule = AARCH64.rules[rtype]
    buf = bytearray(struct.pack("<I", insn))
    relative = rtype in (274, 279, 280, 273, 282)
    s = _P + value if relative else 0x7000_0000 + value
    rule.apply(buf, 0, Place(S=s, A=0, P=_P, G=0, GOT=0, L=s))
    got = decode(_insn(buf, 0), _P)  # type: ignore[operator]
    assert got == (value if relative else value & 0xFFF)


@pytest.mark.parametrize(("rtype", "value"), [(279, 0x8000), (280, 0x100000), (282, 0x8000000)])
def test_branches_out_of_reach_are_refused(rtype: int, value: int) -> None:
    from gradc.artifacts.loader.relocs import RelocationError

    buf = bytearray(4)
    with pytest.raises(RelocationError, match="out of range"):
        AARCH64.rules[rtype].apply(buf, 0, Place(_P + value, 0, _P, 0, 0, _P + value))


def test_misaligned_lo12_is_refused() -> None:
    layout = plan([("arm.o", sample(TRIPLE, "pic", "small"))], AARCH64)
    relocate(layout, BASE, {"sin": NEAR_SIN, "ext_data": EXT}.get)
    from gradc.artifacts.loader.relocs import RelocationError

    with pytest.raises(RelocationError, match="not aligned to 8 bytes"):
        AARCH64.rules[286].apply(bytearray(4), 0, Place(0x1004, 0, 0, 0, 0, 0))
    with pytest.raises(LinkError, match="undefined symbol 'ext_data'"):
        relocate(layout, BASE, {"sin": NEAR_SIN}.get)
