"""Linking: the process-wide LLJIT, the runtime library, and symbol resolution.

All objects of an artifact are linked into one new library of a process-wide LLVM
``LLJIT`` (``JITLibraryBuilder.add_object_img(...).export_symbol(...).link(...)``). libm
and libc symbols (``sin``, ``pow``, ``malloc`` ...) resolve by name from the process; the
CPython functions fast-call wrappers call are imported by address from the running
interpreter (``gradc.artifacts.abi.symbols.PYTHON_API_FUNCTIONS``).

**Runtime.** The first artifact that carries a runtime object (manifest ``runtime``) has
it linked once per process into the JIT library ``gradc_rt2``
(``gradc.artifacts.abi.symbols.RUNTIME_LIBRARY``); every artifact library is linked
against that library (``add_jit_library``), so all arrays in the process share one set of
``gradc_rt1_*`` functions and one ``gradc_rt1_live`` counter (:func:`runtime_stats`).
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any

import llvmlite.binding as llvm

from gradc.artifacts.abi.symbols import (
    PYTHON_API_DATA,
    PYTHON_API_FUNCTIONS,
    RUNTIME_ARRAY_SYMBOLS,
    RUNTIME_DECREF,
    RUNTIME_LIBRARY,
    RUNTIME_LIVE,
)
from gradc.artifacts.manifest import Manifest

__all__ = [
    "Runtime",
    "link_library",
    "link_runtime",
    "linked_runtime",
    "lljit",
    "runtime_stats",
]

_jit_lock = threading.Lock()
_jit: Any = None
_library_numbers = itertools.count()


def lljit() -> Any:
    """The process-wide LLJIT, created on first use."""
    global _jit
    with _jit_lock:
        if _jit is None:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _jit = llvm.create_lljit_compiler()
        return _jit


# ---------------------------------------------------------------------------- the runtime


class Runtime:
    """The linked runtime library: ``gradc_rt1_decref`` and the ``gradc_rt1_live`` counter.

    Holds the JIT and the runtime's resource tracker, so the runtime code stays mapped as
    long as any array owner (or library) refers to this object.
    """

    __slots__ = ("decref", "jit", "live", "sha256", "tracker")

    def __init__(self, jit: Any, tracker: Any, sha256: str) -> None:
        self.jit = jit
        self.tracker = tracker
        self.sha256 = sha256
        # PYFUNCTYPE: keeps the GIL over this short call (no release and re-take per array)
        self.decref = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(tracker[RUNTIME_DECREF])
        self.live = ctypes.c_int64.from_address(tracker[RUNTIME_LIVE])


_runtime: Runtime | None = None


def linked_runtime() -> Runtime | None:
    """The process's runtime, None while no artifact carrying one has been loaded."""
    return _runtime


def link_runtime(jit: Any, code: bytes, sha256: str) -> Runtime:
    """The process's runtime, linking ``code`` as it unless one is linked already.

    The first runtime object wins: every object of one runtime ABI implements it alike.
    """
    global _runtime
    with _jit_lock:
        if _runtime is None:
            builder = llvm.JITLibraryBuilder().add_object_img(code)
            for symbol in RUNTIME_ARRAY_SYMBOLS:
                builder.export_symbol(symbol)
            _runtime = Runtime(jit, builder.link(jit, RUNTIME_LIBRARY), sha256)
        return _runtime


def runtime_stats() -> dict[str, int]:
    """``{"live": n}``: runtime blocks (owned arrays) allocated and not yet freed in this
    process; 0 before any runtime is linked."""
    rt = _runtime
    return {"live": int(rt.live.value) if rt is not None else 0}


# ---------------------------------------------------------------------------- artifacts


def link_library(
    jit: Any,
    manifest: Manifest,
    objects: dict[str, bytes],
    wrappers: dict[str, bytes],
    runtime: Runtime | None,
    imports: dict[str, int] | None = None,
) -> Any:
    """Link entry ``objects`` and fast-call ``wrappers`` (sha256 -> bytes) of one CPU
    variant's ``manifest`` into a new JIT library; returns its resource tracker, which
    maps symbol names to addresses. Wrappers also get ``imports`` (name -> address: what
    array wrappers read of NumPy, ``gradc.artifacts.loader.numpy_api``).

    Raises:
        RuntimeError: LLVM's linker failed (an undefined symbol ...).
    """
    builder = llvm.JITLibraryBuilder()
    for blobs in (objects, wrappers):
        for sha in sorted(blobs):
            builder.add_object_img(blobs[sha])
    if runtime is not None:
        builder.add_jit_library(RUNTIME_LIBRARY)
    for e in manifest.entries:
        builder.export_symbol(e.symbol)
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            builder.export_symbol(e.wrapper.symbol)
    if wrappers:
        for name, address in {**_python_api(), **(imports or {})}.items():
            builder.import_symbol(name, address)
    with _jit_lock:
        library_name = f"gradc:{manifest.module}:{next(_library_numbers)}"
    return builder.link(jit, library_name)


_api_cache: dict[str, int] = {}


def _python_api() -> dict[str, int]:
    """Name -> address in this interpreter of every symbol a wrapper may need."""
    if not _api_cache:
        api = {}
        for name in PYTHON_API_FUNCTIONS:
            fn = getattr(ctypes.pythonapi, name, None)
            if fn is not None:
                api[name] = ctypes.cast(fn, ctypes.c_void_p).value or 0
        for name, obj in PYTHON_API_DATA.items():
            api[name] = id(obj)  # CPython: an object's id is its address
        _api_cache.update(api)
    return dict(_api_cache)
