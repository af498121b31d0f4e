"""Mapping linked images into this process (Linux, x86-64 and AArch64), through libc's
``mmap``/``mprotect``/``munmap`` and the dynamic linker's ``dlsym``, called with ctypes.

:func:`load_image` plans the objects (:func:`.link.plan`), maps fresh anonymous memory
read+write, writes the relocated image (:func:`.link.relocate`) into it, then turns each
region to what it holds: text read+execute, read-only data and the GOT read-only, data
read+write (W^X: no page is ever writable and executable at once). The memory is
unmapped when the :class:`Image` is collected.

:func:`process_symbol` resolves names the way the dynamic linker does for the process
(``dlsym(RTLD_DEFAULT, name)``): libm, libc and the CPython API.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from collections.abc import Callable, Sequence

from gradc.artifacts.loader.link import LinkError, plan, relocate
from gradc.artifacts.loader.relocs import Arch

__all__ = ["Image", "host_arch", "load_image", "process_symbol"]

_PROT = {"r": mmap.PROT_READ, "rw": mmap.PROT_READ | mmap.PROT_WRITE}
_PROT["rx"] = mmap.PROT_READ | mmap.PROT_EXEC
_MAP_FAILED = ctypes.c_void_p(-1).value

_libc = ctypes.CDLL(None, use_errno=True)
_mmap = _libc.mmap
_mmap.restype = ctypes.c_void_p
_mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
_mprotect = _libc.mprotect
_mprotect.restype = ctypes.c_int
_mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_munmap = _libc.munmap
_munmap.restype = ctypes.c_int
_munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_dlsym = _libc.dlsym
_dlsym.restype = ctypes.c_void_p
_dlsym.argtypes = (ctypes.c_void_p, ctypes.c_char_p)


def _clear_cache(base: int, size: int) -> None:
    """Make the instruction cache see the code just written (AArch64: libgcc's
    ``__clear_cache`` where the process has it; Linux also synchronises the caches when
    it first maps a fresh page executable, which the ``mprotect`` that follows does)."""
    address = process_symbol("__clear_cache")
    if address is not None:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(address)(base, base + size)


def host_arch() -> Arch:
    """The relocation rules of this process's architecture.

    Raises:
        LinkError: the architecture is neither x86-64 nor AArch64.
    """
    machine = os.uname().machine.lower()
    if machine in ("x86_64", "amd64"):
        from gradc.artifacts.loader.relocs_x86_64 import X86_64

        return X86_64
    if machine in ("aarch64", "arm64"):
        from gradc.artifacts.loader.relocs_aarch64 import AARCH64

        return AARCH64
    raise LinkError(f"this loader links for x86-64 and AArch64, not {machine}")


def process_symbol(name: str) -> int | None:
    """The address of ``name`` in this process (``dlsym(RTLD_DEFAULT, name)``), None
    when no loaded library defines it."""
    return _dlsym(None, name.encode()) or None


class Image:
    """Linked objects mapped into this process.

    Attributes:
        base: the address of the mapping; ``size``: its length in bytes.
        symbols: the address of each global symbol the objects define.

    ``image[name]`` is ``symbols[name]``, 0 when undefined.
    """

    __slots__ = ("__weakref__", "base", "size", "symbols")

    def __init__(self, base: int, size: int, symbols: dict[str, int]) -> None:
        self.base = base
        self.size = size
        self.symbols = symbols

    def __getitem__(self, name: str) -> int:
        return self.symbols.get(name, 0)

    def __del__(self) -> None:
        if self.base:
            _munmap(self.base, self.size)
            self.base = 0


def load_image(objects: Sequence[tuple[str, bytes]], resolve: Callable[[str], int | None]) -> Image:
    """Link ``objects`` (name, ELF bytes) for this host and map them.

    Raises:
        LinkError: the objects do not link (:mod:`.link`); the mapping failed (an
            ``OSError`` errno in the message).
    """
    layout = plan(objects, host_arch(), mmap.PAGESIZE)
    prot = mmap.PROT_READ | mmap.PROT_WRITE
    base = _mmap(None, layout.size, prot, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if base in (None, _MAP_FAILED):
        raise LinkError(f"mapping {layout.size} bytes failed: errno {ctypes.get_errno()}")
    image = Image(base, layout.size, {})
    data, image.symbols = relocate(layout, base, resolve)
    ctypes.memmove(base, bytes(data), len(data))
    if layout.arch.name == "aarch64":
        _clear_cache(base, layout.size)
    for offset, size, kind in layout.regions:
        if kind != "rw" and _mprotect(base + offset, size, _PROT[kind]) != 0:
            raise LinkError(f"mprotect of {size} bytes failed: errno {ctypes.get_errno()}")
    return image
