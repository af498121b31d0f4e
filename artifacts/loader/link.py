"""A static linker for relocatable ELF objects: lay their sections out in one image and
apply their relocations, resolving symbols by name (docs/abi.md "Loading").

:func:`plan` lays out the allocated sections of every object, independent of where the
image will live::

    text (SHF_EXECINSTR) | call stubs  ||  read-only data | GOT  ||  writable data, bss

each of the three regions starting on a page (so that the loader maps text read+execute,
read-only data and the GOT read-only, writable data read+write, never writable and
executable at once). :func:`relocate` then produces the image's bytes for a base address:
global symbols of the objects resolve among themselves first, every other name through
``resolve`` (the runtime, the CPython API, libm/libc: :mod:`.memory`); a call whose target
is out of the instruction's reach goes through a stub, a GOT-relative access through a GOT
slot of the image. ``.eh_frame`` is not loaded (nothing unwinds through compiled code).

Relocation arithmetic is per architecture (:mod:`.relocs_x86_64`, :mod:`.relocs_aarch64`);
an object of another architecture, an undefined symbol, a relocation type or section kind
this linker does not handle, or a value out of its field's range raises :class:`LinkError`
naming the object, the symbol and the relocation type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gradc.artifacts.elf import ElfError
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.elfobj import (
    SHF_ALLOC,
    SHF_EXECINSTR,
    SHF_TLS,
    SHF_WRITE,
    SHN_ABS,
    SHN_COMMON,
    SHN_UNDEF,
    SHT_NOBITS,
    STB_LOCAL,
    STB_WEAK,
    RelocatableObject,
    Relocation,
)
from gradc.artifacts.loader.relocs import Arch, Place, RelocationError

__all__ = ["GOT_SYMBOL", "LinkError", "Plan", "plan", "relocate"]

#: The name that resolves to the image's GOT (the large code models refer to it).
GOT_SYMBOL = "_GLOBAL_OFFSET_TABLE_"

#: Sections of unwind tables: not loaded.
_UNWIND_TYPE = 0x70000001  # SHT_X86_64_UNWIND
#: Sections whose functions a static linker would arrange to run at start-up.
_CONSTRUCTOR_TYPES = {14, 15, 16}  # SHT_INIT_ARRAY, SHT_FINI_ARRAY, SHT_PREINIT_ARRAY
_NONE_TYPES = {0, 256}
#: The largest image linked (a damaged section size must not allocate without bound).
_MAX_IMAGE = 1 << 30  # R_X86_64_NONE, R_AARCH64_NONE (and its alias 0)


class LinkError(ArtifactError):
    """The objects cannot be linked (the message names the object, symbol and
    relocation type concerned)."""


class Plan:
    """Where everything lies in an image, as offsets from its base.

    Attributes:
        arch: the architecture relocated for.
        names: each object's name (for messages), by object index.
        objects: the parsed objects.
        sections: (object index, section index) -> offset of the loaded section.
        regions: ``(offset, size, kind)`` of the text (``"rx"``), read-only (``"r"``) and
            writable (``"rw"``) regions, page-aligned, empty ones left out.
        size: the image's size in bytes (a whole number of pages).
        got: offset of the GOT; ``got_slots``: key -> slot index.
        stubs: symbol name -> offset of its call stub.
        globals: defined global and weak symbol name -> (object index, symbol index).
    """

    def __init__(self, arch: Arch, names: list[str], objects: list[RelocatableObject]) -> None:
        self.arch = arch
        self.names = names
        self.objects = objects
        self.sections: dict[tuple[int, int], int] = {}
        self.regions: list[tuple[int, int, str]] = []
        self.size = 0
        self.got = 0
        self.got_slots: dict[tuple[object, ...], int] = {}
        self.stubs: dict[str, int] = {}
        self.globals: dict[str, tuple[int, int]] = {}


def _align(x: int, a: int) -> int:
    return (x + a - 1) & -a


def _parse(name: str, data: bytes, arch: Arch) -> RelocatableObject:
    try:
        obj = RelocatableObject(data)
    except ElfError as exc:
        raise LinkError(f"object {name}: {exc}") from exc
    if obj.machine != arch.machine:
        raise LinkError(
            f"object {name}: ELF machine {obj.machine} is not {arch.name} ({arch.machine})"
        )
    return obj


def _loaded(obj: RelocatableObject, name: str) -> list[tuple[int, str]]:
    """(section index, region kind) of each section of ``obj`` to load."""
    out = []
    for i, s in enumerate(obj.sections):
        if not s.flags & SHF_ALLOC or s.type == _UNWIND_TYPE or s.name == ".eh_frame":
            continue
        if s.flags & SHF_TLS or s.type in _CONSTRUCTOR_TYPES:
            raise LinkError(
                f"object {name}: section {s.name} (thread-local or constructors) "
                "is not supported by this loader"
            )
        kind = "rx" if s.flags & SHF_EXECINSTR else "rw" if s.flags & SHF_WRITE else "r"
        out.append((i, kind))
    return out


def _globals(p: Plan) -> None:
    """Fill ``p.globals``: a strong definition wins over weak ones; two strong ones of
    the same name are an error."""
    for k, obj in enumerate(p.objects):
        for j, sym in enumerate(obj.symbols):
            if sym.binding == STB_LOCAL or sym.shndx == SHN_UNDEF or not sym.name:
                continue
            if sym.shndx == SHN_COMMON:
                raise LinkError(f"object {p.names[k]}: common symbol {sym.name!r} is not supported")
            seen = p.globals.get(sym.name)
            if seen is not None:
                first = p.objects[seen[0]].symbols[seen[1]]
                if sym.binding == STB_WEAK:
                    continue
                if first.binding != STB_WEAK:
                    raise LinkError(
                        f"object {p.names[k]}: symbol {sym.name!r} is also defined by "
                        f"object {p.names[seen[0]]}"
                    )
            p.globals[sym.name] = (k, j)


def _symbol_key(p: Plan, k: int, r: Relocation) -> tuple[object, ...]:
    sym = p.objects[k].symbols[r.symbol]
    base: tuple[object, ...] = ("local", k, r.symbol) if sym.binding == STB_LOCAL else (sym.name,)
    return (*base, r.addend) if p.arch.got_holds_addend else base


def plan(objects: Sequence[tuple[str, bytes]], arch: Arch, page: int = 4096) -> Plan:
    """Lay out ``objects`` (name, ELF bytes) for ``arch`` with pages of ``page`` bytes.

    Raises:
        LinkError: an object is malformed or of another machine, has thread-local or
            constructor sections or common symbols, or two define the same strong symbol.
    """
    p = Plan(arch, [n for n, _ in objects], [_parse(n, d, arch) for n, d in objects])
    _globals(p)
    cursor = 0
    for kind in ("rx", "r", "rw"):
        start = cursor
        for k, obj in enumerate(p.objects):
            for i, section_kind in _loaded(obj, p.names[k]):
                if section_kind == kind:
                    s = obj.sections[i]
                    cursor = _align(cursor, s.align)
                    p.sections[(k, i)] = cursor
                    cursor += s.size
        if kind == "rx":
            cursor = _reserve_stubs(p, cursor)
        elif kind == "r":
            cursor = _reserve_got(p, cursor)
        if cursor > start:
            p.regions.append((start, _align(cursor, page) - start, kind))
        cursor = _align(cursor, page)
    if cursor > _MAX_IMAGE:
        raise LinkError(f"objects {', '.join(p.names)}: an image of {cursor} bytes is too large")
    p.size = max(cursor, page)
    return p


def _reserve_stubs(p: Plan, cursor: int) -> int:
    cursor = _align(cursor, 16)
    for obj in p.objects:
        for r in obj.relocations:
            sym = obj.symbols[r.symbol]
            if r.type in p.arch.call_types and sym.shndx == SHN_UNDEF and r.symbol:
                if sym.name not in p.globals and sym.name not in p.stubs:
                    p.stubs[sym.name] = cursor
                    cursor += p.arch.stub_size
    return cursor


def _reserve_got(p: Plan, cursor: int) -> int:
    cursor = _align(cursor, 8)
    p.got = cursor
    for k, obj in enumerate(p.objects):
        for r in obj.relocations:
            if r.type in p.arch.got_types and (k, r.target) in p.sections:
                p.got_slots.setdefault(_symbol_key(p, k, r), len(p.got_slots))
    return cursor + 8 * len(p.got_slots)


def _where(p: Plan, k: int, r: Relocation) -> str:
    obj = p.objects[k]
    sym = obj.symbols[r.symbol]
    rule = p.arch.rules.get(r.type)
    kind = rule.name if rule is not None else f"type {r.type}"
    name = sym.name or (obj.sections[sym.shndx].name if sym.shndx < len(obj.sections) else "")
    return (
        f"object {p.names[k]}: {kind} against symbol {name!r} "
        f"at {obj.sections[r.target].name}+{r.offset:#x}"
    )


def relocate(
    p: Plan, base: int, resolve: Callable[[str], int | None]
) -> tuple[bytearray, dict[str, int]]:
    """The image's bytes when loaded at ``base``, and the address of each global symbol
    the objects define.

    ``resolve(name)`` gives the address of a symbol no object defines (None: unknown; an
    undefined weak symbol then resolves to 0).

    Raises:
        LinkError: a symbol is undefined, a relocation type unknown to ``p.arch``, a
            relocation lies outside its section or its value out of its field's range.
    """
    image = bytearray(p.size)
    for (k, i), offset in p.sections.items():
        s = p.objects[k].sections[i]
        if s.type != SHT_NOBITS:
            image[offset : offset + s.size] = p.objects[k].section_bytes(i)
    defined = {name: _address(p, base, k, j) for name, (k, j) in p.globals.items()}

    def external(name: str) -> int | None:
        if name == GOT_SYMBOL:
            return base + p.got
        return defined[name] if name in defined else resolve(name)

    for name, offset in p.stubs.items():
        target = external(name)
        image[offset : offset + p.arch.stub_size] = p.arch.stub(target or 0)
    got_values: dict[int, int] = {}
    for k, obj in enumerate(p.objects):
        for r in obj.relocations:
            if (k, r.target) in p.sections and r.type not in _NONE_TYPES:
                _apply(p, base, k, r, image, external, got_values)
    for slot, value in got_values.items():
        at = p.got + 8 * slot
        image[at : at + 8] = value.to_bytes(8, "little")
    return image, defined


def _address(p: Plan, base: int, k: int, j: int) -> int:
    """The address of symbol ``j`` of object ``k``, defined in a section or absolute."""
    sym = p.objects[k].symbols[j]
    if sym.shndx == SHN_ABS:
        return sym.value
    at = p.sections.get((k, sym.shndx))
    if at is None:
        section = p.objects[k].sections[sym.shndx].name
        raise LinkError(
            f"object {p.names[k]}: symbol {sym.name!r} lies in section {section}, "
            "which is not loaded"
        )
    if sym.value > p.objects[k].sections[sym.shndx].size:
        raise LinkError(f"object {p.names[k]}: symbol {sym.name!r} lies outside its section")
    return base + at + sym.value


def _apply(
    p: Plan,
    base: int,
    k: int,
    r: Relocation,
    image: bytearray,
    external: Callable[[str], int | None],
    got_values: dict[int, int],
) -> None:
    rule = p.arch.rules.get(r.type)
    if rule is None:
        raise LinkError(f"{_where(p, k, r)}: relocation type unknown to the {p.arch.name} linker")
    obj = p.objects[k]
    if r.offset + rule.width > obj.sections[r.target].size:
        raise LinkError(f"{_where(p, k, r)}: the relocation lies outside its section")
    sym = obj.symbols[r.symbol]
    if r.symbol == 0:
        s = 0
    elif sym.shndx == SHN_UNDEF:
        found = external(sym.name)
        if found is None and sym.binding != STB_WEAK:
            raise LinkError(f"{_where(p, k, r)}: undefined symbol {sym.name!r}")
        s = found or 0
    else:
        s = _address(p, base, k, r.symbol)
    place = base + p.sections[(k, r.target)] + r.offset
    got = base + p.got
    g = 0
    if r.type in p.arch.got_types:
        slot = p.got_slots[_symbol_key(p, k, r)]
        got_values[slot] = s + r.addend if p.arch.got_holds_addend else s
        g = got + 8 * slot
    target = s
    if r.type in p.arch.call_types and sym.name in p.stubs and sym.shndx == SHN_UNDEF:
        reach = p.arch.call_reach
        if not -reach <= s + r.addend - place < reach:
            target = base + p.stubs[sym.name]
    try:
        rule.apply(image, base_offset(p, k, r), Place(s, r.addend, place, g, got, target))
    except RelocationError as exc:
        raise LinkError(f"{_where(p, k, r)}: {exc}") from exc


def base_offset(p: Plan, k: int, r: Relocation) -> int:
    """The image offset relocation ``r`` of object ``k`` patches."""
    return p.sections[(k, r.target)] + r.offset
