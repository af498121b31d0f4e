"""gradc's own linker on x86-64 (artifacts/loader/link.py, relocs_x86_64.py, memory.py):
LLVM's objects at every code model run correctly once mapped; W^X; clear errors."""

from __future__ import annotations

import ctypes
import gc
import platform
import random

import pytest

from gradc.artifacts.loader import link
from gradc.artifacts.loader.elfobj import RelocatableObject
from gradc.artifacts.loader.link import LinkError, plan, relocate
from gradc.artifacts.loader.memory import load_image, process_symbol
from gradc.artifacts.loader.relocs_x86_64 import X86_64

from .elf_samples import X86_64 as TRIPLE
from .elf_samples import expected, retype, sample

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="executes x86-64 code")

_EXT = ctypes.c_int64(0)


def _resolve(name: str) -> int | None:
    if name == "ext_data":
        return ctypes.addressof(_EXT)
    return process_symbol(name)


def _run(obj: bytes, x: float, i: int) -> tuple[float, int]:
    image = load_image([("sample.o", obj)], _resolve)
    f = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int64)(image["f"])
    result = f(x, i)
    counter = ctypes.c_int64.from_address(image["counter"]).value
    return result, counter


MODELS = [
    ("pic", "small"),
    ("pic", "medium"),
    ("pic", "large"),
    ("static", "medium"),
    ("static", "large"),
]


@pytest.mark.parametrize(("reloc", "model"), MODELS)
def test_code_models_run(reloc: str, model: str) -> None:
    obj = sample(TRIPLE, reloc, model)
    _EXT.value = 7
    for x, i in ((0.5, 0), (-2.25, 3)):
        result, counter = _run(obj, x, i)
        assert result == expected(x, i, 7)
        assert counter == 1  # a fresh image each time: data is the object's, then bumped


def test_every_rule_is_exercised_by_llvm_or_a_hand_made_sample() -> None:
    seen = set()
    for reloc, model in [*MODELS, ("static", "small")]:
        seen |= {r.type for r in RelocatableObject(sample(TRIPLE, reloc, model)).relocations}
    hand_made = {9, 41, 10, 28, 31}  # retyped samples below / plan-only checks
    assert set(X86_64.rules) <= seen | hand_made
    assert {1, 2, 4, 11, 24, 25, 26, 27, 29, 42} <= seen


@pytest.mark.parametrize("new", [9, 41])  # GOTPCREL, GOTPCRELX: computed like REX_GOTPCRELX
def test_gotpcrel_variants(new: int) -> None:
    obj = retype(sample(TRIPLE, "pic", "small"), 42, new)
    assert new in {r.type for r in RelocatableObject(obj).relocations}
    _EXT.value = -3
    assert _run(obj, 1.0, 2)[0] == expected(1.0, 2, -3)


def test_got64_reaches_the_slot_of_its_symbol() -> None:
    obj = sample(TRIPLE, "pic", "large")
    layout = plan([("s.o", obj)], X86_64)
    base = 0x7F00_0000_0000
    image, _ = relocate(layout, base, lambda n: 0x1234_5000 if n == "sin" else 0x9000)
    for r in layout.objects[0].relocations:
        if r.type == 27 and layout.objects[0].symbols[r.symbol].name == "ext_data":
            at = link.base_offset(layout, 0, r)
            offset = int.from_bytes(image[at : at + 8], "little", signed=True)
            slot = layout.got + offset - r.addend
            assert int.from_bytes(image[slot : slot + 8], "little") == 0x9000


@pytest.mark.parametrize(
    ("rtype", "value"),
    [(10, 0x1000 + 8 + 0x7000), (28, 0x3000 + 8 - 0x2000), (31, 0x6000 + 8 - 0x4000)],
)
def test_types_llvm_does_not_emit_here(rtype: int, value: int) -> None:
    from gradc.artifacts.loader.relocs import Place, RelocationError

    # S=0x1000 A=8 P=0x2000 G=0x3000 GOT=0x4000 L=0x6000: R_X86_64_32 (S + A, here with
    # S + 0x7000), GOTPCREL64 (G + A - P), PLTOFF64 (L - GOT + A)
    rule = X86_64.rules[rtype]
    buf = bytearray(rule.width)
    s = 0x1000 + (0x7000 if rtype == 10 else 0)
    rule.apply(buf, 0, Place(S=s, A=8, P=0x2000, G=0x3000, GOT=0x4000, L=0x6000))
    assert int.from_bytes(buf, "little", signed=rtype != 10) == value
    if rtype == 10:
        with pytest.raises(RelocationError, match="does not fit in 32 bits"):
            rule.apply(buf, 0, Place(S=1 << 32, A=0, P=0, G=0, GOT=0, L=0))


def test_32s_needs_a_low_image() -> None:
    obj = sample(TRIPLE, "static", "small")
    layout = plan([("s.o", obj)], X86_64)
    relocate(layout, 0x40_0000, _resolve)  # fits: what a non-PIC executable would get
    with pytest.raises(LinkError, match=r"object s\.o: R_X86_64_32S against symbol"):
        relocate(layout, 0x7F00_0000_0000, _resolve)


def test_far_call_goes_through_a_stub() -> None:
    obj = sample(TRIPLE, "pic", "small")
    layout = plan([("s.o", obj)], X86_64)
    base, sin = 0x10_0000_0000, 0x7F12_3456_7890
    image, _ = relocate(layout, base, lambda n: sin if n == "sin" else 0x5000)
    (call,) = [r for r in layout.objects[0].relocations if r.type == 4]
    at = link.base_offset(layout, 0, call)
    target = base + at + int.from_bytes(image[at : at + 4], "little", signed=True) - call.addend
    stub = target - base
    assert stub == layout.stubs["sin"]
    assert image[stub : stub + 6] == b"\xff\x25\x00\x00\x00\x00"  # jmp *0(%rip)
    assert int.from_bytes(image[stub + 6 : stub + 14], "little") == sin
    near = base + 0x10_0000
    image, _ = relocate(layout, base, lambda n: near if n == "sin" else 0x5000)
    direct = base + at + int.from_bytes(image[at : at + 4], "little", signed=True) - call.addend
    assert direct == near  # in reach: called directly


def test_undefined_symbol_names_object_symbol_and_type() -> None:
    obj = sample(TRIPLE, "pic", "small")
    with pytest.raises(LinkError) as info:
        load_image([("objects/ab12.o", obj)], lambda n: None if n == "ext_data" else _resolve(n))
    msg = str(info.value)
    assert "objects/ab12.o" in msg and "'ext_data'" in msg and "R_X86_64_REX_GOTPCRELX" in msg
    assert "undefined symbol" in msg


def test_unknown_relocation_type_is_refused() -> None:
    obj = retype(sample(TRIPLE, "pic", "small"), 4, 200)
    with pytest.raises(LinkError, match=r"type 200 against symbol 'sin' at \.text\+0x.*unknown"):
        load_image([("s.o", obj)], _resolve)


def test_wrong_machine_and_duplicates_are_refused() -> None:
    from .elf_samples import AARCH64

    with pytest.raises(LinkError, match="ELF machine 183 is not x86-64"):
        load_image([("arm.o", sample(AARCH64, "pic", "small"))], _resolve)
    obj = sample(TRIPLE, "pic", "small")
    with pytest.raises(LinkError, match=r"symbol 'f' is also defined by object a\.o"):
        load_image([("a.o", obj), ("b.o", obj)], _resolve)


def _maps(base: int, size: int) -> list[str]:
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(v, 16) for v in line.split()[0].split("-"))
            if lo < base + size and hi > base:
                out.append(line.split()[1])
    return out


def test_pages_are_never_writable_and_executable() -> None:
    image = load_image([("s.o", sample(TRIPLE, "pic", "small"))], _resolve)
    perms = _maps(image.base, image.size)
    assert "r-xp" in perms and "rw-p" in perms and "r--p" in perms
    assert not any("w" in p and "x" in p for p in perms)
    base, size = image.base, image.size
    del image
    gc.collect()
    assert _maps(base, size) == []  # unmapped once collected


def test_damaged_objects_raise_never_crash() -> None:
    obj = sample(TRIPLE, "pic", "small")
    rng = random.Random(13)
    for _ in range(300):
        bad = bytearray(obj)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(len(bad))] = rng.randrange(256)
        if rng.random() < 0.2:
            bad = bad[: rng.randrange(len(bad))]
        try:
            layout = plan([("bad.o", bytes(bad))], X86_64)
            relocate(layout, 0x7F00_0000_0000, _resolve)  # relocated, never run
        except LinkError:
            pass
